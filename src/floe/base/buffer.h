// Buffer: an owned, growable byte array whose growth does not zero-initialize (decoders
// overwrite every byte they expose). The storage behind column arrays, page bodies and
// compression output.
//
// Storage comes from malloc/realloc (16-byte aligned, which the Arrow C Data Interface's
// 8-byte minimum allows): realloc moves large buffers with mremap instead of copying, so
// growing a column buffer costs no memmove. Capacity is rounded up to 64 bytes, so SIMD
// code may read up to the rounded capacity past size().
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>
#include <string_view>

#include "floe/base/macros.h"

namespace floe {

class Buffer {
 public:
  static constexpr size_t kAlignment = 16;
  static constexpr size_t kPadding = 64;

  Buffer() = default;
  explicit Buffer(size_t size) { Resize(size); }
  ~Buffer() { Free(); }

  Buffer(Buffer&& other) noexcept
      : data_(other.data_), size_(other.size_), capacity_(other.capacity_) {
    other.data_ = nullptr;
    other.size_ = other.capacity_ = 0;
  }
  Buffer& operator=(Buffer&& other) noexcept {
    if (this != &other) {
      Free();
      data_ = other.data_;
      size_ = other.size_;
      capacity_ = other.capacity_;
      other.data_ = nullptr;
      other.size_ = other.capacity_ = 0;
    }
    return *this;
  }
  Buffer(const Buffer&) = delete;
  Buffer& operator=(const Buffer&) = delete;

  // Returns a deep copy.
  Buffer Clone() const {
    Buffer b;
    b.Append(data_, size_);
    return b;
  }

  uint8_t* data() { return data_; }
  const uint8_t* data() const { return data_; }
  size_t size() const { return size_; }
  size_t capacity() const { return capacity_; }
  bool empty() const { return size_ == 0; }

  template <typename T>
  T* data_as() {
    return reinterpret_cast<T*>(data_);
  }
  template <typename T>
  const T* data_as() const {
    return reinterpret_cast<const T*>(data_);
  }

  std::span<const uint8_t> span() const { return {data_, size_}; }
  std::string_view view() const { return {reinterpret_cast<const char*>(data_), size_}; }

  void Reserve(size_t capacity) {
    if (capacity > capacity_) Grow(capacity);
  }
  // Sets the size; new bytes are uninitialized.
  void Resize(size_t size) {
    Reserve(size);
    size_ = size;
  }
  // Sets the size; new bytes are zero.
  void ResizeZeroed(size_t size) {
    size_t old = size_;
    Resize(size);
    if (size > old) std::memset(data_ + old, 0, size - old);
  }
  void Clear() { size_ = 0; }

  void Append(const void* p, size_t n) {
    if (n == 0) return;
    EnsureAppend(n);
    std::memcpy(data_ + size_, p, n);
    size_ += n;
  }
  void Append(std::string_view s) { Append(s.data(), s.size()); }
  void Append(std::span<const uint8_t> s) { Append(s.data(), s.size()); }
  void PushBack(uint8_t b) {
    EnsureAppend(1);
    data_[size_++] = b;
  }
  template <typename T>
  void AppendValue(T v) {
    EnsureAppend(sizeof(T));
    std::memcpy(data_ + size_, &v, sizeof(T));
    size_ += sizeof(T);
  }
  // Grows the size by n and returns a pointer to the new (uninitialized) bytes.
  uint8_t* AppendUninitialized(size_t n) {
    EnsureAppend(n);
    uint8_t* p = data_ + size_;
    size_ += n;
    return p;
  }

  // Releases memory beyond size().
  void ShrinkToFit();

 private:
  void EnsureAppend(size_t n) {
    if (FLOE_PREDICT_FALSE(size_ + n > capacity_)) Grow(size_ + n);
  }
  void Grow(size_t min_capacity);
  void Free();

  uint8_t* data_ = nullptr;
  size_t size_ = 0;
  size_t capacity_ = 0;
};

}  // namespace floe
