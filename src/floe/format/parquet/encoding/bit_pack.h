// Bit packing as Parquet uses it (Encodings.md, RLE/bit-packing hybrid note 1): values of a
// fixed bit width stored back to back, LSB-first, value 0 in the lowest bits of byte 0.
// The RLE hybrid, dictionary indices and DELTA_BINARY_PACKED miniblocks all use it.
//
// Unpacking runs a kernel specialized per bit width that decodes 32 values at a time with
// compile-time shifts (no per-value branches); a partial last group goes through a
// zero-padded copy, so no function here reads a byte past ceil(n * bit_width / 8).
// The legacy BIT_PACKED level encoding (MSB-first) is here too, for reading old files.
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>

namespace floe::format::parquet {

// Number of bits needed to represent `max_value` (0 for 0): the bit width Parquet uses for
// levels (max level) and dictionary indices (dictionary size - 1).
inline int BitWidth(uint64_t max_value) { return std::bit_width(max_value); }

// Bytes taken by `n` values of `bit_width` bits, packed: ceil(n * bit_width / 8).
inline size_t PackedBytes(size_t n, int bit_width) {
  return static_cast<size_t>((static_cast<uint64_t>(n) * static_cast<uint64_t>(bit_width) + 7) / 8);
}

// Unpack<k>: decodes `n` values of `bit_width` bits from `in` into `out`.
// REQUIRES: 0 <= bit_width <= k (k = the output width); `in` has PackedBytes(n, bit_width)
// readable bytes (no more are read); `out` has room for n values.
void Unpack8(const uint8_t* in, int bit_width, uint8_t* out, size_t n);
void Unpack16(const uint8_t* in, int bit_width, uint16_t* out, size_t n);
void Unpack32(const uint8_t* in, int bit_width, uint32_t* out, size_t n);
void Unpack64(const uint8_t* in, int bit_width, uint64_t* out, size_t n);

// Pack<k>: encodes `n` values into exactly PackedBytes(n, bit_width) bytes at `out`; bits of a
// value above `bit_width` are dropped, the padding bits of the last byte are zero.
// REQUIRES: 0 <= bit_width <= k.
void Pack32(const uint32_t* in, size_t n, int bit_width, uint8_t* out);
void Pack64(const uint64_t* in, size_t n, int bit_width, uint8_t* out);

// Decodes `n` values packed MSB-first (the deprecated BIT_PACKED encoding, Encodings.md
// "Bit-packed (Deprecated)"; 0..7 at width 3 is 05 39 77), starting at bit `first_bit`
// (counted from the most significant bit of in[0]).
// REQUIRES: 0 <= bit_width <= 16; `in` has ceil((first_bit + n * bit_width) / 8) readable
// bytes (no more are read).
void UnpackMsbFirst16(const uint8_t* in, uint64_t first_bit, int bit_width, uint16_t* out,
                      size_t n);

}  // namespace floe::format::parquet
