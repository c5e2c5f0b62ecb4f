// Bit-level helpers for validity bitmaps and boolean values (LSB-first, as in Arrow
// and Parquet PLAIN booleans).
#pragma once

#include <bit>
#include <cstdint>
#include <cstring>

namespace floe::columnar {

inline bool GetBit(const uint8_t* bits, int64_t i) { return (bits[i >> 3] >> (i & 7)) & 1; }
inline void SetBit(uint8_t* bits, int64_t i) {
  bits[i >> 3] |= static_cast<uint8_t>(1u << (i & 7));
}
inline void ClearBit(uint8_t* bits, int64_t i) {
  bits[i >> 3] &= static_cast<uint8_t>(~(1u << (i & 7)));
}
inline void SetBitTo(uint8_t* bits, int64_t i, bool v) {
  bits[i >> 3] = static_cast<uint8_t>((bits[i >> 3] & ~(1u << (i & 7))) |
                                      (static_cast<unsigned>(v) << (i & 7)));
}
inline int64_t BytesForBits(int64_t bits) { return (bits + 7) >> 3; }

// Number of set bits in [offset, offset + length).
int64_t CountSetBits(const uint8_t* bits, int64_t offset, int64_t length);

// Copies `length` bits from src[src_offset..] to dst[dst_offset..]; other dst bits are kept.
void CopyBits(const uint8_t* src, int64_t src_offset, int64_t length, uint8_t* dst,
              int64_t dst_offset);

}  // namespace floe::columnar
