#include "floe/base/buffer.h"

#include <algorithm>
#include <cstdlib>
#include <new>

namespace floe {

namespace {
size_t RoundUp(size_t n) {
  return (n + Buffer::kPadding - 1) / Buffer::kPadding * Buffer::kPadding;
}
}  // namespace

void Buffer::Grow(size_t min_capacity) {
  size_t capacity = RoundUp(std::max<size_t>({min_capacity, capacity_ + capacity_ / 2, 64}));
  void* p = std::realloc(data_, capacity);
  if (p == nullptr) throw std::bad_alloc();
  data_ = static_cast<uint8_t*>(p);
  capacity_ = capacity;
}

void Buffer::ShrinkToFit() {
  if (size_ == 0) {
    Free();
    return;
  }
  size_t capacity = RoundUp(size_);
  if (capacity >= capacity_) return;
  void* p = std::realloc(data_, capacity);
  if (p == nullptr) return;  // keeping the larger block is harmless
  data_ = static_cast<uint8_t*>(p);
  capacity_ = capacity;
}

void Buffer::Free() {
  std::free(data_);
  data_ = nullptr;
  size_ = capacity_ = 0;
}

}  // namespace floe
