// PartitionReader: the first stage of a table topic's translation (translator.h). It reads
// whole record batches of a partition's log, checks them (kafka::ValidateBatch), decodes
// their records and copies each record's key, value and headers into one arena, so that a
// round buffers any number of records without an allocation per record. Later stages see
// the records as RecordRefs into the arena.
//
// The log is read through a LogReader function (the broker's ReadLog on its thread in the
// server, batches in memory in tests).
//
// Thread-safety: used by one thread at a time.
#pragma once

#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "floe/base/buffer.h"
#include "floe/base/status.h"
#include "floe/kafka/record_batch.h"

namespace floe::ingest {

// A record copied into the arena; positions are into it (length -1: null).
struct RecordRef {
  int32_t partition;
  int64_t offset;
  int64_t timestamp_ms;
  int64_t key_pos;
  int64_t key_len;
  int64_t value_pos;
  int64_t value_len;
  int64_t headers_pos;  // [u32 key length, key, i32 value length (-1 null), value] x count
  int32_t header_count;
};

// Appends to `out` whole batches of `partition` from the one holding `offset`, up to
// `max_bytes` (at least one batch when `offset` is below the log end): Broker::ReadLog.
using LogReader =
    std::function<Status(int32_t partition, int64_t offset, size_t max_bytes, Buffer* out)>;

struct PartitionReaderOptions {
  size_t read_bytes = size_t{4} << 20;  // per LogReader call
  size_t max_uncompressed_batch_bytes = size_t{64} << 20;
  size_t arena_bytes = size_t{16} << 20;  // Read stops once the arena holds this much
};

class PartitionReader {
 public:
  // `topic` names the log in errors.
  PartitionReader(std::string topic, LogReader read, PartitionReaderOptions options)
      : topic_(std::move(topic)), read_(std::move(read)), options_(options) {}

  // Reads partition `p` from `*next` to `end` or until the arena is full, adding its
  // records (control batches skipped, records below `*next` of the first batch too) and
  // moving `*next` past every batch read. `*first_ms`, when negative, becomes the first
  // added record's timestamp (at least 0). kCorrupt when the log holds no whole batch at
  // `*next`; errors of the LogReader and of the batches' checks and decoding.
  Status Read(int32_t p, int64_t end, int64_t* next, int64_t* first_ms);

  bool full() const { return arena_.size() >= options_.arena_bytes; }
  const std::vector<RecordRef>& records() const { return records_; }

  std::string_view Bytes(int64_t pos, int64_t len) const {
    return {reinterpret_cast<const char*>(arena_.data()) + pos, static_cast<size_t>(len)};
  }
  std::span<const uint8_t> Span(int64_t pos, int64_t len) const {
    return {arena_.data() + pos, static_cast<size_t>(len)};
  }

  // Forgets the records; their bytes stay until ClearArena (rows kept for the dead-letter
  // table still point into it).
  void ClearRecords() { records_.clear(); }
  void ClearArena() { arena_.Clear(); }
  void Clear() {
    records_.clear();
    arena_.Clear();
  }

 private:
  void Add(int32_t partition, const kafka::Record& r);

  std::string topic_;
  LogReader read_;
  PartitionReaderOptions options_;
  Buffer read_buffer_;
  Buffer scratch_;  // decompressed batches
  Buffer arena_;
  std::vector<RecordRef> records_;
};

}  // namespace floe::ingest
