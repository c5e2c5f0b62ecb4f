// Iceberg deletion vectors (Puffin blob type `deletion-vector-v1`, puffin-spec.md and the
// table spec's "Deletion Vectors"): PositionBitmap, a set of deleted row positions kept as
// 64-bit Roaring (a sorted map from the high 32 bits to a 32-bit Roaring bitmap), and the
// blob encoding:
//
//   [u32 BE length = 4 + len(vector)] [magic D1 D3 39 64]
//   [vector: u64 LE bitmap count, then per bitmap: u32 LE key, portable 32-bit Roaring]
//   [u32 BE CRC-32 (zlib) of magic + vector]
//
// Thread-safety: const methods may run concurrently; mutation needs exclusive access.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

#include "floe/base/buffer.h"
#include "floe/base/status.h"
#include "floe/format/puffin/puffin.h"
#include "floe/format/puffin/roaring.h"
#include "floe/io/file_io.h"

namespace floe::format::puffin {

inline constexpr std::string_view kDeletionVectorBlobType = "deletion-vector-v1";
// The reserved `_pos` field id that Java's BaseDVFileWriter lists in `fields`.
inline constexpr int32_t kRowPositionFieldId = 2147483645;
inline constexpr std::string_view kReferencedDataFileProperty = "referenced-data-file";
inline constexpr std::string_view kCardinalityProperty = "cardinality";

class PositionBitmap {
 public:
  // The largest position Iceberg Java can read back: its reader rejects keys above
  // INT32_MAX - 1 (RoaringPositionBitmap.MAX_POSITION). Tighter than the spec's 2^63 - 1.
  static constexpr uint64_t kMaxPosition = ((uint64_t{INT32_MAX} - 1) << 32) | 0xFFFFFFFFu;

  PositionBitmap() = default;

  // Adds a position. Positions above kMaxPosition are kInvalidArgument.
  Status Add(uint64_t pos);
  // Adds every position in [start, end); kInvalidArgument if end - 1 > kMaxPosition.
  Status AddRange(uint64_t start, uint64_t end);
  bool Contains(uint64_t pos) const;
  uint64_t cardinality() const;
  bool empty() const { return bitmaps_.empty(); }
  // The largest position. REQUIRES: !empty(). Readers can check it against the data file's
  // record count; the dense serialized form costs 12 bytes per key up to Max() >> 32.
  uint64_t Max() const;
  // Adds every position of `other`.
  void Merge(const PositionBitmap& other);

  // Calls fn(uint64_t) for every position in ascending order.
  template <typename Fn>
  void ForEach(Fn&& fn) const {
    for (const auto& [key, bitmap] : bitmaps_) {
      const uint64_t high = uint64_t{key} << 32;
      bitmap.ForEach([&](uint32_t low) { fn(high | low); });
    }
  }
  std::vector<uint64_t> ToSortedVector() const;

  // Applies the vector to the rows [first_row, first_row + num_rows) of a data file: writes
  // an LSB-first bitmap of BytesForBits(num_rows) bytes to `keep` where bit i is 1 unless
  // position first_row + i is deleted (bits past num_rows in the last byte are 0). Returns
  // the number of deleted rows in the range. Cost: O(num_rows / 8) to fill, then per 32-bit
  // key in range one map lookup and per 2^16 chunk one binary search, then work proportional
  // to the deleted positions (array chunks), 64-bit words (bitmap chunks) or runs (run
  // chunks, clearing whole bytes) in range; no per-row lookups.
  uint64_t FillKeepBitmap(uint64_t first_row, uint64_t num_rows, uint8_t* keep) const;

  // Appends the vector as Iceberg Java writes it: a dense key array (every key from 0 to the
  // largest, empty bitmaps included) and run-optimized containers.
  void SerializeVector(Buffer* out) const;
  // Parses a vector, dense or sparse. Keys must ascend strictly and be at most
  // INT32_MAX - 1; every bitmap must be valid and the input fully used. Errors are kCorrupt.
  static Result<PositionBitmap> DeserializeVector(std::span<const uint8_t> bytes);

  friend bool operator==(const PositionBitmap&, const PositionBitmap&) = default;

 private:
  std::map<uint32_t, Bitmap32> bitmaps_;  // no empty bitmaps
};

// Encodes a whole `deletion-vector-v1` blob (length, magic, vector, CRC).
void SerializeDeletionVector(const PositionBitmap& positions, Buffer* out);
// Decodes a `deletion-vector-v1` blob: the length must equal blob.size() - 8, the magic and
// CRC must match, and when `expected_cardinality` is given the vector must hold exactly that
// many positions. Errors are kCorrupt.
Result<PositionBitmap> DeserializeDeletionVector(
    std::span<const uint8_t> blob, std::optional<uint64_t> expected_cardinality = std::nullopt);

// What a manifest entry of a deletion vector needs (Iceberg spec, "Deletion Vectors").
struct DeletionVectorInfo {
  uint64_t content_offset = 0;         // the blob's offset
  uint64_t content_size_in_bytes = 0;  // the blob's length
  uint64_t record_count = 0;           // cardinality
};

// Adds `positions` as a `deletion-vector-v1` blob with the metadata Java's BaseDVFileWriter
// writes: fields [2147483645], snapshot-id and sequence-number -1, properties
// `referenced-data-file` and `cardinality`, uncompressed.
Result<DeletionVectorInfo> WriteDeletionVectorBlob(PuffinWriter& writer,
                                                   std::string_view referenced_data_file,
                                                   const PositionBitmap& positions);

// Reads the deletion vector at [content_offset, content_offset + content_size_in_bytes) of a
// Puffin file, as a manifest entry locates it, without reading the footer. A range outside
// the file, an empty or over-large (> 2^31 bytes) blob, or a cardinality other than
// `expected_cardinality` (when >= 0) is kCorrupt.
Result<PositionBitmap> ReadDeletionVector(const io::InputFile& file, uint64_t content_offset,
                                          uint64_t content_size_in_bytes,
                                          int64_t expected_cardinality);

}  // namespace floe::format::puffin
