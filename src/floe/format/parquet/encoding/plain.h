// PLAIN encoding (Encodings.md "Plain", parquet.md §4.1), and RLE-encoded booleans:
//   INT32/FLOAT 4 bytes LE, INT64/DOUBLE 8, INT96 12, FIXED_LEN_BYTE_ARRAY type_length bytes;
//   BOOLEAN bit-packed LSB-first, starting afresh on every page;
//   BYTE_ARRAY u32 LE length + bytes.
// Decoders keep a cursor so a page can be read in several batches. Byte arrays decode into
// column layout: the bytes are appended to a Buffer and one int64 end offset is written per
// value, so one column batch can span pages.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

#include "floe/base/buffer.h"
#include "floe/base/status.h"
#include "floe/format/parquet/encoding/rle.h"

namespace floe::format::parquet {

// Fixed-width values: a bounds-checked memcpy. Not thread-safe; data must outlive it.
class PlainFixedDecoder {
 public:
  // Prepares to decode `data` as values of byte_width bytes (4, 8, 12 or the FLBA length).
  // kInvalidArgument: byte_width is 0.
  Status Reset(std::span<const uint8_t> data, size_t byte_width);

  // Whole values left in the page.
  size_t values_left() const { return byte_width_ == 0 ? 0 : data_.size() / byte_width_; }

  // Copies the next n values (n * byte_width bytes) to out. kCorrupt: fewer than n left.
  Status Decode(void* out, size_t n);
  // Skips the next n values. kCorrupt: fewer than n left.
  Status Skip(size_t n);

 private:
  std::span<const uint8_t> data_;
  size_t byte_width_ = 0;
};

// BOOLEAN: bit i of byte k is value 8k + i. Not thread-safe; data must outlive it.
class PlainBooleanDecoder {
 public:
  void Reset(std::span<const uint8_t> data);

  // Bits left in the page (includes the zero padding of the last byte).
  size_t values_left() const { return data_.size() * 8 - bit_pos_; }

  // Decodes the next n values as one byte each (0 or 1). kCorrupt: fewer than n left.
  Status Decode(uint8_t* out, size_t n);
  // Decodes the next n values into bits [bit_offset, bit_offset + n) of an LSB-first bitmap
  // (other bits are kept). kCorrupt: fewer than n left.
  Status DecodeBits(uint8_t* bitmap, int64_t bit_offset, size_t n);
  Status Skip(size_t n);

 private:
  std::span<const uint8_t> data_;
  size_t bit_pos_ = 0;
};

// BYTE_ARRAY. Not thread-safe; data must outlive it.
class PlainByteArrayDecoder {
 public:
  void Reset(std::span<const uint8_t> data);

  // Bytes of the page not consumed yet.
  size_t bytes_left() const { return data_.size() - pos_; }

  // Decodes the next n values: appends their bytes to *data and writes
  // end_offsets[i] = data->size() after value i (the caller keeps the start offset, so a
  // column's offsets are [start, end_offsets...]). kCorrupt: a length runs past the page or
  // fewer than n values are left; values decoded before the error stay appended.
  Status Decode(size_t n, int64_t* end_offsets, Buffer* data);
  // Skips the next n values. kCorrupt as Decode.
  Status Skip(size_t n);

 private:
  std::span<const uint8_t> data_;
  size_t pos_ = 0;
};

// BOOLEAN with Encoding::RLE: in both v1 and v2 pages a u32 LE byte length precedes hybrid
// runs of width 1 (Encodings.md, RLE table). Returns a decoder over those runs (decode with
// GetBatch(uint8_t*)). kCorrupt: the prefix or its length runs past `data`.
Result<RleBitPackedDecoder> MakeRleBooleanDecoder(std::span<const uint8_t> data);

// Appends n fixed-width values (n * byte_width bytes) as PLAIN.
void EncodePlainFixed(const void* values, size_t n, size_t byte_width, Buffer* out);
// Appends n booleans given as bytes (nonzero = true), bit-packed LSB-first.
void EncodePlainBooleans(const uint8_t* values, size_t n, Buffer* out);
// Appends n booleans taken from bits [bit_offset, bit_offset + n) of an LSB-first bitmap.
void EncodePlainBooleanBits(const uint8_t* bitmap, int64_t bit_offset, size_t n, Buffer* out);
// Appends n byte arrays in column layout (value i is data[offsets[i], offsets[i + 1])).
// kInvalidArgument: a value is 2^32 bytes or longer.
Status EncodePlainByteArrays(const int64_t* offsets, const uint8_t* data, size_t n, Buffer* out);
// Appends n booleans (bytes, nonzero = true) as Encoding::RLE: u32 LE length + runs.
void EncodeRleBooleans(const uint8_t* values, size_t n, Buffer* out);

}  // namespace floe::format::parquet
