// The RLE / bit-packing hybrid (Encodings.md, "Run Length Encoding / Bit-Packing Hybrid"):
// a sequence of runs, each an RLE run (one value repeated) or a bit-packed run (a multiple
// of 8 values). Used for levels, dictionary indices and RLE booleans; the length prefix
// some of those carry is handled by their helpers (levels.h, dictionary.h, plain.h), not here.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

#include "floe/base/buffer.h"
#include "floe/base/status.h"

namespace floe::format::parquet {

// Decodes a hybrid stream in batches. Allocates nothing: work is bounded by the values the
// caller asks for and the bytes present, whatever counts the run headers claim.
//
// A bit-packed run that claims more bytes than remain still yields the values whose bits are
// all present (older Polars truncated the last run; Arrow accepts it since GH-47981); asking
// for a value beyond them is kCorrupt. A stream that ends at a run boundary
// simply yields fewer values than asked for: callers that know the count check it.
// Not thread-safe; the data must outlive the decoder.
class RleBitPackedDecoder {
 public:
  static constexpr int kMaxBitWidth = 32;

  RleBitPackedDecoder() = default;
  // REQUIRES: 0 <= bit_width <= 32 (use Make for a width read from a file).
  RleBitPackedDecoder(std::span<const uint8_t> data, int bit_width);

  // Returns a decoder, or kCorrupt if bit_width is outside [0, 32].
  static Result<RleBitPackedDecoder> Make(std::span<const uint8_t> data, int bit_width);

  int bit_width() const { return bit_width_; }

  // Decodes up to n values into out[0..) and returns how many were decoded (< n only when the
  // stream ends). kCorrupt: a malformed run header, an RLE value that is missing or wider
  // than the bit width, or a value wanted from a truncated bit-packed run.
  Result<size_t> GetBatch(uint32_t* out, size_t n);
  // As above for levels. kInvalidArgument if bit_width > 16.
  Result<size_t> GetBatch(int16_t* out, size_t n);
  // As above for booleans (0/1) and other byte-sized values. kInvalidArgument if
  // bit_width > 8.
  Result<size_t> GetBatch(uint8_t* out, size_t n);
  // As GetBatch(uint32_t*), and also kCorrupt if a decoded index is >= dictionary_size.
  Result<size_t> GetIndices(uint32_t* out, size_t n, uint32_t dictionary_size);
  // Skips up to n values; returns how many were skipped. Errors as GetBatch.
  Result<size_t> Skip(size_t n);

 private:
  template <typename Out>
  Result<size_t> GetBatchImpl(Out* out, size_t n);
  Status NextRun();

  const uint8_t* pos_ = nullptr;  // the next run header
  const uint8_t* end_ = nullptr;
  int bit_width_ = 0;
  // Current RLE run.
  uint32_t rle_value_ = 0;
  uint32_t rle_left_ = 0;
  // Current bit-packed run: `bp_data_` is at an 8-value boundary; `bp_left_` values are
  // not yet unpacked, the first `bp_avail_` of which have all their bits present.
  const uint8_t* bp_data_ = nullptr;
  uint64_t bp_left_ = 0;
  uint64_t bp_avail_ = 0;
  // Values unpacked from a partially consumed group of 8.
  uint32_t scratch_[8] = {};
  uint8_t scratch_pos_ = 0;
  uint8_t scratch_len_ = 0;
};

// Encodes values as hybrid runs appended to a Buffer, grouping values by 8 as Arrow and
// parquet-java do: 8 equal values at a group boundary start an RLE run that lasts until the
// value changes; other groups are bit-packed in literal runs of at most 63 groups (a one-byte
// run header). Runs never exceed 2^31 - 1 values.
// Not thread-safe; `out` is not owned and must outlive the encoder.
class RleBitPackedEncoder {
 public:
  // REQUIRES: 0 <= bit_width <= 32.
  RleBitPackedEncoder(int bit_width, Buffer* out);

  // Adds values. REQUIRES: each value < 2^bit_width (higher bits are dropped).
  void Put(const uint32_t* values, size_t n);
  void Put(const int16_t* values, size_t n);  // levels; REQUIRES values >= 0
  void Put(const uint8_t* values, size_t n);  // booleans as 0/1

  // Writes out everything still buffered; the stream in `out` is then complete (the last
  // bit-packed group is zero-padded). The encoder can start a new stream afterwards.
  void Flush();

  // An upper bound of the bytes that n values of bit_width take.
  static size_t MaxEncodedSize(int bit_width, size_t n);

 private:
  static constexpr size_t kMaxLiteralValues = 63 * 8;
  static constexpr uint64_t kMaxRunLength = (uint64_t{1} << 31) - 1;

  template <typename In>
  void PutImpl(const In* values, size_t n);
  void CompleteGroup();
  void EmitRleRun(uint32_t value, uint64_t count);
  void EmitLiterals();

  Buffer* out_;
  int bit_width_;
  uint32_t mask_;
  uint32_t group_[8] = {};
  size_t group_size_ = 0;
  uint32_t literals_[kMaxLiteralValues] = {};
  size_t literal_count_ = 0;  // a multiple of 8
  uint32_t run_value_ = 0;
  uint64_t run_count_ = 0;  // > 0 while an RLE run (>= 8 values) is open
};

}  // namespace floe::format::parquet
