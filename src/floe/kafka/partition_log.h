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
// With `fsync_every_batch` and group commit (EnableGroupCommit) Append only writes, and the
// owner has the tail synced off its thread: PrepareSync names the file and the offset to
// sync, any thread calls SyncPoint::file->Sync(), and CompleteSync back on the owner's
// thread moves the high watermark up to it. Batches above the high watermark are invisible
// (Read, FindByTimestamp): nobody may see, and so nobody may commit to a table, records a
// power loss could still take. A failed sync is answered with DiscardUnsynced, which cuts
// the unsynced batches off the log again, as a failed inline sync does.
// A new segment's file is created with an fsync of the directory. An append that fails
// part-way (a full disk: kResourceExhausted) leaves the segment as it was (io::AppendFile),
// so the next append, once space is freed, continues from the last good offset.
//
// Retention deletes whole sealed segments, oldest first, never one holding an offset at or
// above `protected_offset` (the broker passes a table topic's committed offset, else the
// log end).
//
// The high watermark is the log-end offset, or under group commit the synced end: floe is a
// single replica, so every appended (synced) batch is committed. A translator reads
// committed records with Read(offset, ...).
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

// What a group-commit worker syncs for a log: its active segment's file, which it shares,
// and where the log stood when the sync was prepared.
struct SyncPoint {
  std::shared_ptr<io::AppendFile> file;
  int64_t end_offset = 0;     // the log end then: the high watermark once synced
  int64_t segment_bytes = 0;  // the active segment's size then
  int64_t batches = 0;        // batches appended to the log until then
  uint64_t epoch = 0;         // the log's sync epoch (a roll or a discard makes it stale)
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
  // The offset the next appended batch gets.
  int64_t log_end_offset() const { return log_end_offset_; }
  // The end of what readers see: the log end, or under group commit the synced end.
  int64_t high_watermark() const { return group_commit_ ? synced_end_offset_ : log_end_offset_; }
  int64_t size_bytes() const;
  // The bytes of log from the batch holding `offset` (clamped to the log start) to the log
  // end: 0 at or past the end. kIOError / kCorrupt reading batch headers.
  Result<int64_t> BytesFrom(int64_t offset) const;
  const std::string& dir() const { return dir_; }

  // Appends one validated batch, assigning it offsets from the log end (rewrites its
  // BaseOffset and PartitionLeaderEpoch in place). Returns the base offset. On an error
  // (kResourceExhausted for a full disk, kIOError) nothing of the batch stays in the log.
  // Under group commit the batch is written, not synced; a roll into a new segment syncs
  // the old one here, and when that sync fails sync_failed() is set: the caller must
  // DiscardUnsynced.
  Result<int64_t> Append(std::span<uint8_t> batch, int32_t leader_epoch);

  // Switches a `fsync_every_batch` log to group commit (above). REQUIRES: nothing appended
  // since the last inline sync (true of a log that has only been appended to inline).
  void EnableGroupCommit();
  bool group_commit() const { return group_commit_; }
  // Whether batches were appended above the high watermark (group commit).
  bool has_unsynced() const { return log_end_offset_ > high_watermark(); }
  // What to sync to make every appended batch durable. REQUIRES: group commit.
  SyncPoint PrepareSync() const;
  // Applies the outcome of syncing `point`: on success the high watermark moves up to it
  // and the number of batches it made durable is returned (0 for a stale point, one from
  // before a roll or a discard). An error (the sync's, or a failed sync seen on the file
  // since) means the unsynced batches may not be on disk: the caller must DiscardUnsynced.
  Result<int64_t> CompleteSync(const SyncPoint& point, const Status& synced);
  // Whether a sync of the active segment failed: its unsynced batches cannot be trusted.
  bool sync_failed() const;
  // Cuts every batch above the high watermark off the log (and the file), so that their
  // offsets are assigned again. The log's state is reset even when cutting the file fails
  // (the cut is then retried before the next append; the error is returned).
  Status DiscardUnsynced();
  // How many times DiscardUnsynced ran: a batch appended under one count and still
  // unsynced under another is gone.
  uint64_t discards() const { return discards_; }

  // Appends whole batches to `out`, starting with the one containing `offset`, while the
  // total stays within `max_bytes` — but always at least one batch when `offset` is below
  // the high watermark; nothing at or above it. kNotFound for offsets outside
  // [log start, high watermark].
  Status Read(int64_t offset, size_t max_bytes, Buffer* out) const;

  // The first batch header below the high watermark whose max timestamp is >=
  // `timestamp_ms`, or nullopt.
  Result<std::optional<BatchHeader>> FindByTimestamp(int64_t timestamp_ms) const;

  // Calls `fn` with the header of every batch in the log, oldest first (as Open does).
  Status ForEachBatch(const std::function<void(const BatchHeader&)>& fn) const;

  // Makes everything appended durable (and, under group commit, visible).
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
    // Shared with a group-commit worker syncing it (SyncPoint); the log alone writes it.
    std::shared_ptr<io::AppendFile> file;
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
  // Group commit: everything below synced_end_offset_ is durable; it lies at
  // synced_segment_bytes_ in the active segment (a roll syncs the sealed one).
  bool group_commit_ = false;
  int64_t synced_end_offset_ = 0;
  int64_t synced_segment_bytes_ = 0;
  int64_t batches_ = 0;         // appended since open
  int64_t synced_batches_ = 0;  // of which counted as synced by CompleteSync
  uint64_t sync_epoch_ = 0;
  uint64_t discards_ = 0;
};

}  // namespace floe::kafka
