// Durable local files for floe's own state (Kafka topic configs and partition logs, the
// groups' offsets log, the schema registry log): whole files replaced atomically
// (WriteFileAtomically) and append-only logs whose every append is all or nothing
// (AppendFile). Both survive a crash at any point and a full disk: a failed write leaves the
// file as it was, and the next write works once space is freed.
//
// Errors: ENOSPC and EDQUOT are kResourceExhausted (the disk is full: retry once space is
// freed), ENOENT kNotFound, EACCES / EPERM kPermissionDenied, the rest kIOError — the same
// mapping as LocalFileIO, so a full disk reads the same whichever path hit it.
//
// FileFaults injects such failures in tests (RocksDB's fault-injecting Env, for these files
// only); production code passes none.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <string_view>

#include "floe/base/status.h"

namespace floe::io {

// The Status of a failed system call `what` on `path` with errno `err`.
Status ErrnoStatus(int err, std::string_view what, std::string_view path);

// Injected write and sync failures. Thread-safe.
class FileFaults {
 public:
  // Writes fail with ENOSPC once `bytes` more bytes have been written (the write that
  // crosses the limit is cut short first, as a filling disk does). < 0: no limit.
  void FailWritesAfter(int64_t bytes);
  // fsync / fdatasync fail with EIO while on.
  void FailSyncs(bool on);
  // While on, every fsync / fdatasync waits (a slow disk, for deterministic race tests);
  // turning it off lets them go on, failing or not as FailSyncs says then.
  void HoldSyncs(bool on);
  // How many syncs wait in HoldSyncs now.
  int held_syncs();
  // Removes every fault (space freed) and releases held syncs.
  void Clear();

  // For the files below: how many of `n` bytes the next write may put; 0 with *err set
  // means the write fails.
  size_t AllowWrite(size_t n, int* err);
  // 0, or the errno the next sync fails with (after waiting while syncs are held).
  int SyncError();

 private:
  std::mutex mu_;
  std::condition_variable released_;
  int64_t write_budget_ = -1;  // guarded by mu_
  bool fail_syncs_ = false;    // guarded by mu_
  bool hold_syncs_ = false;    // guarded by mu_
  int held_ = 0;               // guarded by mu_
};

// fsyncs a directory, making the creation, renaming or deletion of its entries durable.
Status SyncDirectory(const std::string& dir, FileFaults* faults = nullptr);

// Replaces `path` with `contents`: writes `<path>.tmp` in the same directory, fsyncs it,
// renames it over `path` and fsyncs the directory. Readers, and a restart after a crash at
// any point, see the old file or the new one, never a mix. On failure the temporary file is
// removed (best effort) and `path` is unchanged.
Status WriteFileAtomically(const std::string& path, std::string_view contents,
                           FileFaults* faults = nullptr);

// Deletes the leftovers of WriteFileAtomically interrupted by a crash: files of `dir` (not
// recursively) whose names end in ".tmp". Returns how many were deleted.
Result<int> RemoveTemporaryFiles(const std::string& dir);

// An append-only file whose appends are all or nothing: an append that fails part-way (a
// full disk, a failed fdatasync) truncates the file back to where it started, and a
// truncation that fails is retried before the next append, so the file never holds a torn
// record between good ones. Creating the file fsyncs its directory.
// Thread-safety: none, except that Sync() and sync_failed() may run on another thread
// concurrently with the owner's calls (a group-commit worker syncing what the owner wrote).
class AppendFile {
 public:
  // Opens `path` for reading and appending, creating it when missing. size() is the size
  // found.
  static Result<std::unique_ptr<AppendFile>> Open(std::string path, FileFaults* faults = nullptr);
  ~AppendFile();
  AppendFile(const AppendFile&) = delete;
  AppendFile& operator=(const AppendFile&) = delete;

  const std::string& path() const { return path_; }
  // The bytes appended successfully (and found at open).
  int64_t size() const { return size_; }

  // Appends `data` at size(); with `sync`, fdatasyncs before returning. On any error the
  // file is as before the call.
  Status Append(std::span<const uint8_t> data, bool sync);
  Status Append(std::string_view data, bool sync) {
    return Append({reinterpret_cast<const uint8_t*>(data.data()), data.size()}, sync);
  }
  // fdatasync of what was appended without `sync`. A failure is remembered (sync_failed):
  // after a failed fdatasync the kernel may have dropped the dirty pages and report the next
  // one as successful, so nothing written before it may be trusted as durable.
  Status Sync();
  // Whether a Sync() failed since the file was opened or last truncated.
  bool sync_failed() const { return sync_failed_.load(std::memory_order_acquire); }
  // Cuts the file to `size` bytes (recovery of a torn tail, discarding unsynced appends)
  // and syncs it. size() is `size` afterwards even on an error: a cut that failed is
  // retried before the next append.
  Status Truncate(int64_t size);
  // Reads up to `n` bytes at `pos` into `out`; fewer only at the end of the file. Returns
  // the count.
  Result<size_t> ReadAt(int64_t pos, size_t n, uint8_t* out) const;

 private:
  AppendFile(std::string path, int fd, int64_t size, FileFaults* faults)
      : path_(std::move(path)), fd_(fd), size_(size), faults_(faults) {}
  // Truncates to size_ a tail a failed append left; an error while that fails.
  Status CutTail();

  std::string path_;
  int fd_;
  int64_t size_;
  bool tail_dirty_ = false;  // bytes past size_ may be in the file
  FileFaults* faults_;
  std::atomic<bool> sync_failed_{false};
};

}  // namespace floe::io
