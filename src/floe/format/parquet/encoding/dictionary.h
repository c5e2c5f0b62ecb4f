// Dictionary indices of RLE_DICTIONARY / PLAIN_DICTIONARY data pages (Encodings.md,
// "Dictionary Encoding"): one byte bit width (0..32), then hybrid runs of indices, no length
// prefix. The dictionary page itself is PLAIN (plain.h).
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <span>

#include "floe/base/buffer.h"
#include "floe/base/macros.h"
#include "floe/base/status.h"
#include "floe/format/parquet/encoding/rle.h"

namespace floe::format::parquet {

// Decodes the indices of one data page and, optionally, gathers dictionary values for them
// straight into column memory. Every index is checked against the dictionary size.
// Not thread-safe; the data must outlive the decoder.
class DictionaryIndexDecoder {
 public:
  // Prepares to decode `data`, the page's values section. An empty section is accepted as a
  // page without values (Arrow writes one for all-null pages). kCorrupt: bit width > 32.
  Status Reset(std::span<const uint8_t> data, uint32_t dictionary_size);

  uint32_t dictionary_size() const { return dictionary_size_; }

  // Decodes up to n indices into out[0..) and returns how many (< n only when the page's
  // runs end). kCorrupt: malformed runs, or an index >= dictionary_size.
  Result<size_t> DecodeIndices(uint32_t* out, size_t n);

  // Decodes exactly n values: out[i] = dictionary[index i]. `dictionary` holds
  // dictionary_size() values. kCorrupt: fewer than n indices, or as DecodeIndices.
  template <typename T>
  Status Decode(const T* dictionary, T* out, size_t n);

  // As Decode for fixed-size values of byte_width bytes (INT96, FIXED_LEN_BYTE_ARRAY).
  Status DecodeFixed(const uint8_t* dictionary, size_t byte_width, uint8_t* out, size_t n);

  // Decodes exactly n byte arrays: appends each value's bytes to *data and writes
  // end_offsets[i] = data->size() after value i. The dictionary is in column layout:
  // value j is dictionary_data[dictionary_offsets[j], dictionary_offsets[j + 1]).
  Status DecodeByteArrays(const int64_t* dictionary_offsets, const uint8_t* dictionary_data,
                          size_t n, int64_t* end_offsets, Buffer* data);

 private:
  static constexpr size_t kChunk = 1024;
  Status DecodeChunk(uint32_t* indices, size_t n);

  RleBitPackedDecoder indices_;
  uint32_t dictionary_size_ = 0;
};

template <typename T>
Status DictionaryIndexDecoder::Decode(const T* dictionary, T* out, size_t n) {
  uint32_t indices[kChunk];
  for (size_t done = 0; done < n;) {
    const size_t k = std::min(kChunk, n - done);
    FLOE_RETURN_IF_ERROR(DecodeChunk(indices, k));
    for (size_t i = 0; i < k; ++i) out[done + i] = dictionary[indices[i]];
    done += k;
  }
  return Status::OK();
}

// Appends a dictionary index section: the bit width byte, then hybrid runs.
// REQUIRES: 0 <= bit_width <= 32 and indices[i] < 2^bit_width. The usual width is
// BitWidth(dictionary_size - 1).
void EncodeDictionaryIndices(const uint32_t* indices, size_t n, int bit_width, Buffer* out);

}  // namespace floe::format::parquet
