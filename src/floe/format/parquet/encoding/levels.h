// Repetition and definition levels of a data page (parquet.md §4.2-4.3, §5):
//   v1 page, RLE:        u32 LE byte length + hybrid runs
//   v1 page, BIT_PACKED: ceil(num_values * bit_width / 8) bytes, MSB-first (deprecated)
//   v2 page:             hybrid runs, byte length in the page header
// A level section is absent when its max level is 0 (every level is then 0).
// The bit width is BitWidth(max_level).
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

#include "floe/base/buffer.h"
#include "floe/base/status.h"
#include "floe/format/parquet/encoding/rle.h"

namespace floe::format::parquet {

// How a v1 page encodes its levels (DataPageHeader repetition/definition_level_encoding).
enum class LevelEncoding : uint8_t {
  kRle,        // Encoding::RLE (3)
  kBitPacked,  // Encoding::BIT_PACKED (4), deprecated
};

// Decodes one level section in batches, checking every level against the max level.
// Not thread-safe; the data must outlive the decoder.
class LevelDecoder {
 public:
  // Prepares to decode the levels of a v1 page whose level section starts at data[0] and
  // sets *bytes_consumed to the section's size (0 when max_level is 0: no section).
  // num_values is the page header's num_values (it sizes a BIT_PACKED section).
  // kCorrupt: the section runs past `data`; kInvalidArgument: max_level < 0.
  Status ResetV1(LevelEncoding encoding, int16_t max_level, uint32_t num_values,
                 std::span<const uint8_t> data, size_t* bytes_consumed);
  // Prepares to decode the levels of a v2 page: `data` is exactly the section (its length
  // comes from the page header). Ignored when max_level is 0 (some writers emit it anyway).
  // kInvalidArgument: max_level < 0.
  Status ResetV2(int16_t max_level, std::span<const uint8_t> data);

  int16_t max_level() const { return max_level_; }

  // Decodes the next n levels into out[0..n). kCorrupt if the section holds fewer than n,
  // or a level exceeds max_level.
  Status Decode(int16_t* out, size_t n);
  // Skips the next n levels. kCorrupt if the section holds fewer than n.
  Status Skip(size_t n);

 private:
  Status DecodeBitPacked(int16_t* out, size_t n);

  int16_t max_level_ = 0;
  int bit_width_ = 0;
  LevelEncoding encoding_ = LevelEncoding::kRle;
  RleBitPackedDecoder rle_;
  // BIT_PACKED cursor: the section and the next value's index.
  std::span<const uint8_t> packed_;
  uint64_t packed_index_ = 0;
  uint64_t packed_count_ = 0;
};

// Appends a v1 level section: u32 LE byte length + hybrid runs of BitWidth(max_level) bits.
// Appends nothing when max_level is 0. REQUIRES: 0 <= levels[i] <= max_level.
void EncodeLevelsV1(const int16_t* levels, size_t n, int16_t max_level, Buffer* out);
// Appends a v2 level section (hybrid runs, no prefix) and returns its byte length, the value
// for DataPageHeaderV2 repetition/definition_levels_byte_length. Appends nothing (returns 0)
// when max_level is 0.
size_t EncodeLevelsV2(const int16_t* levels, size_t n, int16_t max_level, Buffer* out);

}  // namespace floe::format::parquet
