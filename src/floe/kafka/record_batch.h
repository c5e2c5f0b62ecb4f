// Kafka record batches, magic 2 (shared reference kafka.md §4): the 61-byte header, the
// CRC-32C over attributes..end, varint records with headers, and the five codecs (none,
// gzip, snappy raw or in xerial/snappy-java framing, lz4 frame, zstd).
//
// The log stores batches as received; only BaseOffset and PartitionLeaderEpoch (outside the
// CRC) are rewritten on append. Records are decoded only by tests and, later, the table
// translator: decompression is bounded by the caller's limit.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "floe/base/buffer.h"
#include "floe/base/status.h"

namespace floe::kafka {

inline constexpr size_t kBatchHeaderBytes = 61;
// BaseOffset + BatchLength: the bytes before the length-counted part.
inline constexpr size_t kLogOverheadBytes = 12;

enum class BatchCodec : uint8_t { kNone = 0, kGzip = 1, kSnappy = 2, kLz4 = 3, kZstd = 4 };

struct BatchHeader {
  int64_t base_offset = 0;
  int32_t batch_length = 0;  // bytes after this field: total size - 12
  int32_t partition_leader_epoch = 0;
  int8_t magic = 2;
  uint32_t crc = 0;
  int16_t attributes = 0;
  int32_t last_offset_delta = 0;
  int64_t base_timestamp = 0;
  int64_t max_timestamp = 0;
  int64_t producer_id = -1;
  int16_t producer_epoch = -1;
  int32_t base_sequence = -1;
  int32_t records_count = 0;

  size_t total_bytes() const { return kLogOverheadBytes + static_cast<size_t>(batch_length); }
  int64_t last_offset() const { return base_offset + last_offset_delta; }
  // The sequence of the last record, wrapping from INT32_MAX to 0 (KIP-98).
  int32_t last_sequence() const;
  BatchCodec codec() const { return static_cast<BatchCodec>(attributes & 7); }
  bool log_append_time() const { return (attributes & 0x08) != 0; }
  bool transactional() const { return (attributes & 0x10) != 0; }
  bool control() const { return (attributes & 0x20) != 0; }
};

// Parses the header at the start of `bytes` (which may hold more batches after it). Checks
// the magic and that the length covers at least a header; not the CRC. kCorrupt when
// `bytes` is shorter than a header; `bytes` may be shorter than the whole batch.
Result<BatchHeader> ParseBatchHeader(std::span<const uint8_t> bytes);

// Checks one complete batch: header, length equal to `batch.size()`, CRC-32C, a known
// codec, records_count == last_offset_delta + 1 > 0. kCorrupt for a bad CRC or a batch cut
// short, kInvalidArgument for a structurally invalid batch.
Result<BatchHeader> ValidateBatch(std::span<const uint8_t> batch);

// Overwrites BaseOffset and PartitionLeaderEpoch in place (neither is covered by the CRC).
void SetBatchOffsetAndEpoch(std::span<uint8_t> batch, int64_t base_offset, int32_t leader_epoch);

struct RecordHeader {
  std::string key;
  std::optional<std::string> value;
};

// A decoded record; views point into the caller's scratch buffer or the batch.
struct Record {
  int64_t offset = 0;
  int64_t timestamp = 0;
  std::optional<std::span<const uint8_t>> key;
  std::optional<std::span<const uint8_t>> value;
  std::vector<RecordHeader> headers;
};

// The key and value of one record of a batch (null: absent), pointing into the batch or
// the scratch buffer it was inflated into.
struct RecordView {
  std::optional<std::span<const uint8_t>> key;
  std::optional<std::span<const uint8_t>> value;
};

// Checks the records inside a batch ValidateBatch accepted, as Kafka's LogValidator does
// before a Produce is acknowledged: inflated within `max_uncompressed_bytes` (into
// `scratch`), exactly `h.records_count` records whose length fields match their bytes,
// offset deltas 0, 1, ..., header keys not null, nothing left after the last record.
// kCorrupt for bytes that do not parse (CORRUPT_MESSAGE), kInvalidArgument for a count or
// offset delta that disagrees with the header (INVALID_RECORD). No allocation besides
// `scratch` (and `views`). With `views`, it is cleared and, on success, holds every
// record's key and value in batch order, valid while `batch` and `scratch` are untouched
// (the produce-time validation hook reads them without inflating the batch again).
Status ValidateRecords(std::span<const uint8_t> batch, const BatchHeader& h,
                       size_t max_uncompressed_bytes, Buffer* scratch,
                       std::vector<RecordView>* views = nullptr);

// Decodes every record of a validated batch. Compressed records are inflated into
// `scratch` (at most `max_uncompressed_bytes`, else kCorrupt); the Records passed to
// `visit` point into it or into `batch` and are valid during the call.
Status DecodeRecords(std::span<const uint8_t> batch, size_t max_uncompressed_bytes, Buffer* scratch,
                     const std::function<Status(const Record&)>& visit);

// Builds one batch as a producer would (offset deltas 0..n-1, BaseOffset 0).
struct BatchBuilderOptions {
  BatchCodec codec = BatchCodec::kNone;
  bool xerial_snappy = false;  // snappy-java framing (the Java client's)
  int64_t producer_id = -1;
  int16_t producer_epoch = -1;
  int32_t base_sequence = -1;
  int32_t partition_leader_epoch = -1;
  bool transactional = false;
};

class BatchBuilder {
 public:
  explicit BatchBuilder(BatchBuilderOptions options) : options_(options) {}
  void Add(int64_t timestamp, std::optional<std::string_view> key,
           std::optional<std::string_view> value, const std::vector<RecordHeader>& headers = {});
  // Appends the finished batch to `out`.
  Status Finish(Buffer* out);

 private:
  BatchBuilderOptions options_;
  Buffer records_;
  int32_t count_ = 0;
  int64_t base_timestamp_ = 0;
  int64_t max_timestamp_ = 0;
};

// Snappy in the xerial (snappy-java) framing: magic, version 1, compatible version 1, then
// {int32 BE length, raw snappy block}... Exposed for tests and the fuzz target.
bool IsXerialSnappy(std::span<const uint8_t> in);
Status XerialSnappyDecompress(std::span<const uint8_t> in, Buffer* out, size_t max_size);
Status XerialSnappyCompress(std::span<const uint8_t> in, Buffer* out);

}  // namespace floe::kafka
