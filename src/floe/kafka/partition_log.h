// PartitionLog: one Kafka partition's records on local disk.
//
// Layout under the partition's directory: segments named by their base offset,
// `00000000000000000000.log` holding record batches exactly as produced (BaseOffset and
// PartitionLeaderEpoch assigned on append). Each segment has a sparse offset index in memory
// ({batch base offset, file position}, one entry per `index_interval_bytes` of log), so a
// read seeks near its batch and scans at most that many bytes of headers.
//
// Recovery (Open) rebuilds the indexes by reading every batch header (61 bytes a batch);
// the last segment's batches are read whole and their CRC checked, and at the first batch
// that is cut short or fails its CRC the file is truncated — a torn tail after a crash.
// Every surviving batch header is reported to the caller, which rebuilds producer state.
//
// Durability: with `fsync_every_batch` Append returns after fdatasync, so an acked batch
// survives kill -9 and power loss; otherwise Flush() is called on an interval by the owner.
// A new segment's file is created with an fsync of the directory. An append that fails
// part-way (a full disk: kResourceExhausted) leaves the segment as it was (io::AppendFile),
// so the next append, once space is freed, continues from the last good offset.
//
// Retention deletes whole sealed segments, oldest first, never one holding an offset at or
// above `protected_offset` (the broker passes a table topic's committed offset, else the
// log end).
//
// The high watermark is the log-end offset: floe is a single replica, so every appended
// batch is committed. A translator reads committed records with Read(offset, ...).
//
// Thread-safety: none; the broker calls a log from one thread.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "floe/base/buffer.h"
#include "floe/base/status.h"
#include "floe/io/durable_file.h"
#include "floe/kafka/record_batch.h"

namespace floe::kafka {

struct LogOptions {
  int64_t segment_bytes = 1 << 30;
  int64_t index_interval_bytes = 4096;
  bool fsync_every_batch = true;
  io::FileFaults* faults = nullptr;  // tests: injected write and sync failures
};

class PartitionLog {
 public:
  // Opens or creates the log in `dir`. `on_batch` sees the header of every batch kept
  // (with its assigned offsets), oldest first. Errors: kIOError, kResourceExhausted (a full
  // disk), kCorrupt (a damaged sealed segment).
  static Result<std::unique_ptr<PartitionLog>> Open(
      std::string dir, LogOptions options,
      const std::function<void(const BatchHeader&)>& on_batch = {});
  ~PartitionLog();

  int64_t log_start_offset() const { return log_start_offset_; }
  int64_t log_end_offset() const { return log_end_offset_; }
  int64_t size_bytes() const;
  // The bytes of log from the batch holding `offset` (clamped to the log start) to the log
  // end: 0 at or past the end. kIOError / kCorrupt reading batch headers.
  Result<int64_t> BytesFrom(int64_t offset) const;
  const std::string& dir() const { return dir_; }

  // Appends one validated batch, assigning it offsets from the log end (rewrites its
  // BaseOffset and PartitionLeaderEpoch in place). Returns the base offset. On an error
  // (kResourceExhausted for a full disk, kIOError) nothing of the batch stays in the log.
  Result<int64_t> Append(std::span<uint8_t> batch, int32_t leader_epoch);

  // Appends whole batches to `out`, starting with the one containing `offset`, while the
  // total stays within `max_bytes` — but always at least one batch when `offset` is below
  // the log end. kNotFound for offsets outside [log start, log end].
  Status Read(int64_t offset, size_t max_bytes, Buffer* out) const;

  // The first batch header whose max timestamp is >= `timestamp_ms`, or nullopt.
  Result<std::optional<BatchHeader>> FindByTimestamp(int64_t timestamp_ms) const;

  // Makes everything appended durable.
  Status Flush();

  // Deletes sealed segments wholly below `protected_offset` whose newest record is older
  // than `now_ms - retention_ms` (when retention_ms >= 0) or that lie beyond
  // `retention_bytes` counted from the newest (when retention_bytes >= 0). Returns the number
  // of segments deleted.
  Result<int> ApplyRetention(int64_t now_ms, int64_t retention_ms, int64_t retention_bytes,
                             int64_t protected_offset);

  // Removes the directory and everything in it; the log is unusable afterwards.
  Status DeleteAll();

 private:
  struct IndexEntry {
    int64_t offset;    // base offset of a batch
    int64_t position;  // its byte position in the segment
  };
  struct Segment {
    int64_t base_offset = 0;
    int64_t next_offset = 0;  // one past its last offset
    int64_t size = 0;         // == file->size()
    int64_t max_timestamp = -1;
    std::unique_ptr<io::AppendFile> file;
    std::vector<IndexEntry> index;
    int64_t bytes_since_index = 0;
  };

  PartitionLog(std::string dir, LogOptions options) : dir_(std::move(dir)), options_(options) {}
  std::string SegmentPath(int64_t base_offset, const char* ext) const;
  Status OpenSegment(int64_t base_offset, bool last,
                     const std::function<void(const BatchHeader&)>& on_batch);
  Status Roll();
  // The byte position in `segment` of the batch containing `offset`.
  Result<int64_t> Locate(const Segment& segment, int64_t offset) const;

  std::string dir_;
  LogOptions options_;
  std::map<int64_t, Segment> segments_;  // by base offset; the last is active
  int64_t log_start_offset_ = 0;
  int64_t log_end_offset_ = 0;
  bool dirty_ = false;
};

}  // namespace floe::kafka
