#include "floe/columnar/bitmap.h"

namespace floe::columnar {

int64_t CountSetBits(const uint8_t* bits, int64_t offset, int64_t length) {
  int64_t count = 0;
  int64_t i = offset;
  int64_t end = offset + length;
  while (i < end && (i & 7) != 0) count += GetBit(bits, i++);
  while (end - i >= 64) {
    uint64_t w;
    std::memcpy(&w, bits + (i >> 3), 8);
    count += std::popcount(w);
    i += 64;
  }
  while (end - i >= 8) {
    count += std::popcount(static_cast<unsigned>(bits[i >> 3]));
    i += 8;
  }
  while (i < end) count += GetBit(bits, i++);
  return count;
}

void CopyBits(const uint8_t* src, int64_t src_offset, int64_t length, uint8_t* dst,
              int64_t dst_offset) {
  if ((src_offset & 7) == 0 && (dst_offset & 7) == 0) {
    int64_t whole = length >> 3;
    if (whole > 0) {
      std::memcpy(dst + (dst_offset >> 3), src + (src_offset >> 3), static_cast<size_t>(whole));
    }
    for (int64_t i = whole * 8; i < length; ++i) {
      SetBitTo(dst, dst_offset + i, GetBit(src, src_offset + i));
    }
    return;
  }
  for (int64_t i = 0; i < length; ++i) {
    SetBitTo(dst, dst_offset + i, GetBit(src, src_offset + i));
  }
}

}  // namespace floe::columnar
