// DELTA_BINARY_PACKED (INT32, INT64), DELTA_LENGTH_BYTE_ARRAY and DELTA_BYTE_ARRAY
// (Encodings.md "Delta Encoding", "Delta-length byte array", "Delta Strings";
// parquet.md §4.5-4.7, §10 gotchas 21-22):
//
//   DBP   header := ULEB(block_size) ULEB(miniblocks_per_block) ULEB(total_count)
//                   zigzag-ULEB(first_value)
//         block  := zigzag-ULEB(min_delta) u8 bit_width[miniblocks_per_block] miniblock*
//   DLBA  DBP(lengths) + concatenated bytes
//   DBA   DBP(prefix lengths) + DBP(suffix lengths) + concatenated suffix bytes
//
// Arithmetic wraps in the unsigned type of the physical width. In the last block the widths
// of miniblocks without values are not validated and have no body (GH-14923). Decoders never
// allocate in proportion to counts read from the page: they walk block headers to find where
// a DBP stream ends and decode lengths in fixed-size chunks.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <type_traits>

#include "floe/base/buffer.h"
#include "floe/base/bytes.h"
#include "floe/base/status.h"

namespace floe::format::parquet {

// Decodes one DELTA_BINARY_PACKED stream in batches; T is int32_t or int64_t.
// Not thread-safe; the data must outlive the decoder.
template <typename T>
class DeltaBinaryPackedDecoder {
  static_assert(std::is_same_v<T, int32_t> || std::is_same_v<T, int64_t>);

 public:
  using U = std::make_unsigned_t<T>;

  // Parses the stream header at data[0]. Empty data is a stream of zero values.
  // kCorrupt: a truncated header, block size not a positive multiple of 128, or a miniblock
  // count that does not divide it into multiples of 32 values.
  Status Reset(std::span<const uint8_t> data);

  // Values in the stream (the header's total count) and values not decoded yet.
  uint32_t total_count() const { return total_count_; }
  size_t values_left() const { return static_cast<size_t>(values_left_); }

  // Decodes the next n values into out[0..n). kCorrupt: n > values_left(), a block or
  // miniblock runs past the data, or a used miniblock's bit width exceeds the type's width.
  Status Decode(T* out, size_t n);
  // Skips the next n values (decoding them). Errors as Decode.
  Status Skip(size_t n);

  // Returns the byte length of the whole stream (header and every block), found by walking
  // the block headers without decoding values; DLBA and DBA use it to find the next section.
  // kCorrupt as Decode for any block of the stream.
  Result<size_t> EncodedSize() const;

 private:
  static constexpr int kTypeBits = 8 * sizeof(T);
  // INT32 streams accept up to 64-bit deltas: DuckDB computes INT32 deltas in 64 bits and
  // writes 33-bit miniblocks, which decode exactly modulo 2^32.
  static constexpr int kMaxBits = 64;

  Status NextMiniblock();

  std::span<const uint8_t> data_;
  size_t header_size_ = 0;
  ByteReader reader_;  // the next block header or miniblock
  uint64_t miniblocks_per_block_ = 0;
  uint64_t values_per_miniblock_ = 0;
  uint32_t total_count_ = 0;
  uint64_t values_left_ = 0;
  bool first_pending_ = false;
  U first_value_ = 0;
  U last_value_ = 0;
  U min_delta_ = 0;
  const uint8_t* widths_ = nullptr;  // the current block's bit widths
  uint64_t miniblock_index_ = 0;     // the next miniblock of the current block
  const uint8_t* miniblock_data_ = nullptr;
  int miniblock_width_ = 0;
  uint64_t miniblock_left_ = 0;  // values of the current miniblock not unpacked yet
  U scratch_[32] = {};           // unpacked deltas of a partially consumed group of 32
  uint8_t scratch_pos_ = 0;
  uint8_t scratch_len_ = 0;
};

extern template class DeltaBinaryPackedDecoder<int32_t>;
extern template class DeltaBinaryPackedDecoder<int64_t>;

// Encodes values as one DELTA_BINARY_PACKED stream with blocks of 128 values in 4 miniblocks
// of 32 (as parquet-java and Arrow write INT32). Unused miniblock widths are written as 0
// and the last miniblock is zero-padded. Not thread-safe.
template <typename T>
class DeltaBinaryPackedEncoder {
  static_assert(std::is_same_v<T, int32_t> || std::is_same_v<T, int64_t>);

 public:
  using U = std::make_unsigned_t<T>;
  static constexpr size_t kBlockSize = 128;
  static constexpr size_t kMiniblocks = 4;
  static constexpr size_t kMiniblockSize = kBlockSize / kMiniblocks;

  void Put(const T* values, size_t n);
  // Values Put since the last Finish.
  uint64_t num_values() const { return total_count_; }
  // Appends the stream of every value Put since the last Finish (a header-only stream when
  // there were 0 or 1 values) and starts a new stream.
  void Finish(Buffer* out);

 private:
  void FlushBlock();

  Buffer blocks_;
  U deltas_[kBlockSize] = {};
  size_t block_count_ = 0;
  uint64_t total_count_ = 0;
  U first_value_ = 0;
  U last_value_ = 0;
};

extern template class DeltaBinaryPackedEncoder<int32_t>;
extern template class DeltaBinaryPackedEncoder<int64_t>;

// Appends the DELTA_BINARY_PACKED stream of n values (one Put and Finish).
template <typename T>
void EncodeDeltaBinaryPacked(const T* values, size_t n, Buffer* out) {
  DeltaBinaryPackedEncoder<T> encoder;
  encoder.Put(values, n);
  encoder.Finish(out);
}

// Decodes DELTA_LENGTH_BYTE_ARRAY in batches into column layout.
// Not thread-safe; the data must outlive the decoder.
class DeltaLengthByteArrayDecoder {
 public:
  // Parses the lengths' header and finds where the bytes start. Empty data has zero values.
  // kCorrupt as DeltaBinaryPackedDecoder::Reset and EncodedSize.
  Status Reset(std::span<const uint8_t> data);

  size_t values_left() const { return lengths_.values_left(); }

  // Decodes the next n values: appends their bytes to *data and writes
  // end_offsets[i] = data->size() after value i. kCorrupt: fewer than n values left, a
  // negative length, or lengths that run past the data. Values decoded before an error stay
  // appended.
  Status Decode(size_t n, int64_t* end_offsets, Buffer* data);

  // Bytes of the stream after the last byte of the values decoded so far.
  size_t bytes_left() const { return static_cast<size_t>(bytes_end_ - bytes_); }

 private:
  friend class DeltaByteArrayDecoder;
  // Decodes the next n lengths into lengths[0..n), checks that they are >= 0 and that the
  // page holds their bytes, and returns the bytes they take in total. Does not consume the
  // bytes: the caller advances bytes_.
  Result<size_t> DecodeLengths(int32_t* lengths, size_t n);

  DeltaBinaryPackedDecoder<int32_t> lengths_;
  const uint8_t* bytes_ = nullptr;
  const uint8_t* bytes_end_ = nullptr;
};

// Where the first value of a DELTA_BYTE_ARRAY page takes its prefix from.
enum class DeltaByteArrayPages : uint8_t {
  kIndependent,  // the spec: every page starts from an empty previous value
  // Files written by parquet-mr < 1.8.0 (PARQUET-246; parquet-java
  // CorruptDeltaByteArrays.requiresSequentialReads): the previous value carries over from
  // the last value of the previous page of the column chunk.
  kCarryOver,
};

// Decodes DELTA_BYTE_ARRAY in batches: value[i] = value[i-1][0, prefix[i]) + suffix[i].
// Not thread-safe; the data must outlive the decoder.
class DeltaByteArrayDecoder {
 public:
  // Parses both length streams' headers and finds where the suffix bytes start. Empty data
  // has zero values. With kCarryOver the last value decoded before this call is the previous
  // value of the page's first value (pages must then be read whole and in order).
  // kCorrupt as DeltaLengthByteArrayDecoder::Reset, or if the two streams hold different
  // value counts.
  Status Reset(std::span<const uint8_t> data,
               DeltaByteArrayPages pages = DeltaByteArrayPages::kIndependent);

  size_t values_left() const { return prefixes_.values_left(); }

  // BYTE_ARRAY: decodes the next n values into column layout as
  // DeltaLengthByteArrayDecoder::Decode does. kCorrupt: fewer than n values left, a negative
  // length, a prefix longer than the previous value, or suffixes past the data.
  Status Decode(size_t n, int64_t* end_offsets, Buffer* data);
  // FIXED_LEN_BYTE_ARRAY: decodes the next n values of byte_width bytes each into
  // out[0, n * byte_width). kCorrupt as Decode, or a value that is not byte_width long.
  Status DecodeFixed(size_t n, size_t byte_width, uint8_t* out);

 private:
  static constexpr size_t kChunk = 512;
  static constexpr size_t kSlack = 32;

  DeltaBinaryPackedDecoder<int32_t> prefixes_;
  DeltaLengthByteArrayDecoder suffixes_;
  Buffer last_value_;
};

// Appends n byte arrays (value i is data[offsets[i], offsets[i + 1])) as
// DELTA_LENGTH_BYTE_ARRAY. kInvalidArgument: a value is 2^31 bytes or longer.
Status EncodeDeltaLengthByteArray(const int64_t* offsets, const uint8_t* data, size_t n,
                                  Buffer* out);
// Appends n byte arrays as DELTA_BYTE_ARRAY (prefixes shared with the previous value).
// kInvalidArgument: a value is 2^31 bytes or longer.
Status EncodeDeltaByteArray(const int64_t* offsets, const uint8_t* data, size_t n, Buffer* out);
// Appends n fixed-size values of byte_width bytes (values[i * byte_width, ...)) as
// DELTA_BYTE_ARRAY. REQUIRES: byte_width < 2^31.
void EncodeDeltaByteArrayFixed(const uint8_t* values, size_t n, size_t byte_width, Buffer* out);

}  // namespace floe::format::parquet
