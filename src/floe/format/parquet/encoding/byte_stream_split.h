// BYTE_STREAM_SPLIT (Encodings.md "Byte Stream Split", parquet.md §4.8): for n values of K
// bytes, K streams of n bytes; byte j of value i is at j * n + i. No header: n is the
// section size / K. K is 4 (FLOAT, INT32), 8 (DOUBLE, INT64) or the FLBA type_length; 4
// and 8 decode with SSE2 byte transposes where available.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

#include "floe/base/buffer.h"
#include "floe/base/status.h"

namespace floe::format::parquet {

// Decodes a page's values section in batches. Not thread-safe; data must outlive it.
class ByteStreamSplitDecoder {
 public:
  // Prepares to decode `data` as values of byte_width bytes. kInvalidArgument: byte_width
  // is 0; kCorrupt: the size is not a multiple of byte_width.
  Status Reset(std::span<const uint8_t> data, size_t byte_width);

  // Values in the page (size / byte_width) and values not decoded yet.
  size_t num_values() const { return num_values_; }
  size_t values_left() const { return num_values_ - pos_; }

  // Decodes the next n values into out[0, n * byte_width), each value's bytes in order
  // (little-endian numbers for the numeric types). kCorrupt: fewer than n values left.
  Status Decode(uint8_t* out, size_t n);
  Status Skip(size_t n);

 private:
  const uint8_t* data_ = nullptr;
  size_t byte_width_ = 0;
  size_t num_values_ = 0;
  size_t pos_ = 0;
};

// Appends n values of byte_width bytes (values[0, n * byte_width)) as BYTE_STREAM_SPLIT.
void EncodeByteStreamSplit(const uint8_t* values, size_t n, size_t byte_width, Buffer* out);

}  // namespace floe::format::parquet
