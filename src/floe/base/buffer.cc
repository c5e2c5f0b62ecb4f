#include "floe/base/buffer.h"

#include <algorithm>
#include <cstdlib>
#include <new>

namespace floe {

namespace {
uint8_t* AllocateAligned(size_t n) {
  // Padding to a multiple of the alignment lets SIMD code read a full vector past the end.
  size_t rounded = (n + Buffer::kAlignment - 1) / Buffer::kAlignment * Buffer::kAlignment;
  void* p = std::aligned_alloc(Buffer::kAlignment, rounded);
  if (p == nullptr) throw std::bad_alloc();
  return static_cast<uint8_t*>(p);
}
}  // namespace

void Buffer::Grow(size_t min_capacity) {
  size_t capacity = std::max<size_t>({min_capacity, capacity_ + capacity_ / 2, 64});
  uint8_t* p = AllocateAligned(capacity);
  if (size_ > 0) std::memcpy(p, data_, size_);
  std::free(data_);
  data_ = p;
  capacity_ = capacity;
}

void Buffer::ShrinkToFit() {
  if (capacity_ == size_) return;
  if (size_ == 0) {
    Free();
    return;
  }
  uint8_t* p = AllocateAligned(size_);
  std::memcpy(p, data_, size_);
  std::free(data_);
  data_ = p;
  capacity_ = size_;
}

void Buffer::Free() {
  std::free(data_);
  data_ = nullptr;
  size_ = capacity_ = 0;
}

}  // namespace floe
