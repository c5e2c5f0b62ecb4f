#include "floe/kafka/partition_log.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstring>
#include <filesystem>

#include "floe/base/bytes.h"
#include "floe/base/macros.h"

namespace floe::kafka {
PartitionLog::~PartitionLog() = default;

std::string PartitionLog::SegmentPath(int64_t base_offset, const char* ext) const {
  return fmt::format("{}/{:020d}{}", dir_, base_offset, ext);
}

Result<std::unique_ptr<PartitionLog>> PartitionLog::Open(
    std::string dir, LogOptions options, const std::function<void(const BatchHeader&)>& on_batch) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) return io::ErrnoStatus(ec.value(), "create directory", dir);
  std::unique_ptr<PartitionLog> log(new PartitionLog(std::move(dir), options));
  std::vector<int64_t> bases;
  for (const auto& entry : std::filesystem::directory_iterator(log->dir_, ec)) {
    const std::string name = entry.path().filename().string();
    if (name.size() != 24 || !name.ends_with(".log")) continue;
    int64_t base = 0;
    auto [ptr, err] = std::from_chars(name.data(), name.data() + 20, base);
    if (err != std::errc() || ptr != name.data() + 20) continue;
    bases.push_back(base);
  }
  if (ec) return Status::IOError("cannot list {}: {}", log->dir_, ec.message());
  std::sort(bases.begin(), bases.end());
  if (bases.empty()) bases.push_back(0);
  for (size_t i = 0; i < bases.size(); ++i) {
    FLOE_RETURN_IF_ERROR(log->OpenSegment(bases[i], i + 1 == bases.size(), on_batch));
  }
  log->log_start_offset_ = log->segments_.begin()->first;
  log->log_end_offset_ = log->segments_.rbegin()->second.next_offset;
  log->synced_end_offset_ = log->log_end_offset_;
  log->synced_segment_bytes_ = log->segments_.rbegin()->second.size;
  return log;
}

Status PartitionLog::OpenSegment(int64_t base_offset, bool last,
                                 const std::function<void(const BatchHeader&)>& on_batch) {
  const std::string path = SegmentPath(base_offset, ".log");
  FLOE_ASSIGN_OR_RETURN(std::shared_ptr<io::AppendFile> file,
                        io::AppendFile::Open(path, options_.faults));
  Segment seg;
  seg.base_offset = base_offset;
  seg.next_offset = base_offset;
  const int64_t file_size = file->size();
  int64_t pos = 0;
  Buffer batch;
  uint8_t head[kBatchHeaderBytes];
  while (pos < file_size) {
    FLOE_ASSIGN_OR_RETURN(size_t n, file->ReadAt(pos, sizeof(head), head));
    Result<BatchHeader> h = ParseBatchHeader({head, n});
    bool ok = h.ok() && pos + static_cast<int64_t>(h->total_bytes()) <= file_size &&
              h->base_offset >= seg.next_offset;
    if (ok && last) {
      // The tail may be torn: check the whole batch.
      batch.Resize(h->total_bytes());
      FLOE_ASSIGN_OR_RETURN(size_t got, file->ReadAt(pos, batch.size(), batch.data()));
      ok = got == batch.size() && ValidateBatch(batch.span()).ok();
    }
    if (!ok) {
      if (!last) {
        return Status::Corrupt("segment {} is damaged at byte {}", path, pos);
      }
      // A torn tail: everything from here on was never acknowledged as durable.
      FLOE_RETURN_IF_ERROR(file->Truncate(pos));
      break;
    }
    if (seg.index.empty() || seg.bytes_since_index >= options_.index_interval_bytes) {
      seg.index.push_back({h->base_offset, pos});
      seg.bytes_since_index = 0;
    }
    seg.bytes_since_index += static_cast<int64_t>(h->total_bytes());
    seg.next_offset = h->last_offset() + 1;
    seg.max_timestamp = std::max(seg.max_timestamp, h->max_timestamp);
    if (on_batch) on_batch(*h);
    pos += static_cast<int64_t>(h->total_bytes());
  }
  seg.size = pos;
  seg.file = std::move(file);
  segments_[base_offset] = std::move(seg);
  return Status::OK();
}

int64_t PartitionLog::size_bytes() const {
  int64_t total = 0;
  for (const auto& [base, seg] : segments_) total += seg.size;
  return total;
}

Result<int64_t> PartitionLog::BytesFrom(int64_t offset) const {
  offset = std::max(offset, log_start_offset_);
  if (offset >= log_end_offset_) return int64_t{0};
  int64_t total = 0;
  for (const auto& [base, seg] : segments_) {
    if (seg.next_offset <= offset) continue;
    if (seg.base_offset >= offset) {
      total += seg.size;
    } else {
      FLOE_ASSIGN_OR_RETURN(int64_t pos, Locate(seg, offset));
      total += seg.size - pos;
    }
  }
  return total;
}

Status PartitionLog::Roll() {
  // The sealed segment is complete on disk before a newer one exists: recovery checks only
  // the last segment for a torn tail.
  const std::shared_ptr<io::AppendFile>& sealed = segments_.rbegin()->second.file;
  FLOE_RETURN_IF_ERROR(sealed->Sync());
  if (group_commit_) {
    // A worker's earlier failed sync of this file taints this one too (AppendFile::Sync).
    if (sealed->sync_failed()) {
      return Status::IOError("an earlier fdatasync of {} failed", sealed->path());
    }
    // Everything appended is durable now; syncs prepared before are stale (another file).
    synced_end_offset_ = log_end_offset_;
    synced_segment_bytes_ = 0;
    ++sync_epoch_;
  }
  return OpenSegment(log_end_offset_, true, {});
}

void PartitionLog::EnableGroupCommit() {
  if (!options_.fsync_every_batch || group_commit_) return;
  group_commit_ = true;
  synced_end_offset_ = log_end_offset_;
  synced_segment_bytes_ = segments_.rbegin()->second.size;
}

SyncPoint PartitionLog::PrepareSync() const {
  const Segment& seg = segments_.rbegin()->second;
  return {seg.file, log_end_offset_, seg.size, batches_, sync_epoch_};
}

Result<int64_t> PartitionLog::CompleteSync(const SyncPoint& point, const Status& synced) {
  if (!group_commit_ || point.epoch != sync_epoch_) return int64_t{0};
  FLOE_RETURN_IF_ERROR(synced);
  if (point.file->sync_failed()) {
    return Status::IOError("an earlier fdatasync of {} failed", point.file->path());
  }
  if (point.end_offset <= synced_end_offset_) return int64_t{0};
  synced_end_offset_ = point.end_offset;
  synced_segment_bytes_ = point.segment_bytes;
  const int64_t newly = std::max<int64_t>(0, point.batches - synced_batches_);
  synced_batches_ = std::max(synced_batches_, point.batches);
  return newly;
}

bool PartitionLog::sync_failed() const {
  return group_commit_ && segments_.rbegin()->second.file->sync_failed();
}

Status PartitionLog::DiscardUnsynced() {
  if (!group_commit_) return Status::OK();
  ++sync_epoch_;
  ++discards_;
  batches_ = synced_batches_;
  // Unsynced batches are all in the active segment: a roll syncs the one it seals.
  Segment& seg = segments_.rbegin()->second;
  Status cut;
  if (seg.size > synced_segment_bytes_ || seg.file->sync_failed()) {
    cut = seg.file->Truncate(synced_segment_bytes_);
  }
  seg.size = synced_segment_bytes_;
  seg.next_offset = synced_end_offset_;
  std::erase_if(seg.index, [&](const IndexEntry& e) { return e.offset >= synced_end_offset_; });
  seg.bytes_since_index = seg.index.empty() ? 0 : seg.size - seg.index.back().position;
  log_end_offset_ = synced_end_offset_;
  return cut;
}

Result<int64_t> PartitionLog::Append(std::span<uint8_t> batch, int32_t leader_epoch) {
  if (segments_.rbegin()->second.size > 0 &&
      segments_.rbegin()->second.size + static_cast<int64_t>(batch.size()) >
          options_.segment_bytes) {
    FLOE_RETURN_IF_ERROR(Roll());
  }
  Segment& seg = segments_.rbegin()->second;
  if (group_commit_ && !has_unsynced() && seg.file->sync_failed()) {
    // The cut after a failed sync could not be synced itself (DiscardUnsynced): again,
    // before anything new is trusted to this file.
    FLOE_RETURN_IF_ERROR(seg.file->Truncate(synced_segment_bytes_));
  }
  const int64_t base = log_end_offset_;
  SetBatchOffsetAndEpoch(batch, base, leader_epoch);
  FLOE_ASSIGN_OR_RETURN(BatchHeader h, ParseBatchHeader(batch));
  const bool sync_now = options_.fsync_every_batch && !group_commit_;
  FLOE_RETURN_IF_ERROR(seg.file->Append(batch, sync_now));
  if (!sync_now) dirty_ = true;
  ++batches_;
  if (seg.index.empty() || seg.bytes_since_index >= options_.index_interval_bytes) {
    seg.index.push_back({base, seg.size});
    seg.bytes_since_index = 0;
  }
  seg.bytes_since_index += static_cast<int64_t>(batch.size());
  seg.size += static_cast<int64_t>(batch.size());
  seg.next_offset = h.last_offset() + 1;
  seg.max_timestamp = std::max(seg.max_timestamp, h.max_timestamp);
  log_end_offset_ = seg.next_offset;
  return base;
}

Status PartitionLog::Flush() {
  if (!dirty_) return Status::OK();
  if (group_commit_) {
    const SyncPoint point = PrepareSync();
    const Status synced = point.file->Sync();
    FLOE_RETURN_IF_ERROR(CompleteSync(point, synced).status());
  } else {
    FLOE_RETURN_IF_ERROR(segments_.rbegin()->second.file->Sync());
  }
  dirty_ = false;
  return Status::OK();
}

Result<int64_t> PartitionLog::Locate(const Segment& seg, int64_t offset) const {
  // The last index entry at or below `offset`, then header hops.
  auto it = std::upper_bound(seg.index.begin(), seg.index.end(), offset,
                             [](int64_t o, const IndexEntry& e) { return o < e.offset; });
  int64_t pos = it == seg.index.begin() ? 0 : std::prev(it)->position;
  uint8_t head[kBatchHeaderBytes];
  while (pos < seg.size) {
    FLOE_ASSIGN_OR_RETURN(size_t n, seg.file->ReadAt(pos, sizeof(head), head));
    FLOE_ASSIGN_OR_RETURN(BatchHeader h, ParseBatchHeader({head, n}));
    if (h.last_offset() >= offset) return pos;
    pos += static_cast<int64_t>(h.total_bytes());
  }
  return Status::NotFound("offset {} not in segment {}", offset, seg.base_offset);
}

Status PartitionLog::Read(int64_t offset, size_t max_bytes, Buffer* out) const {
  const int64_t end = high_watermark();
  if (offset < log_start_offset_ || offset > end) {
    return Status::NotFound("offset {} outside [{}, {}]", offset, log_start_offset_, end);
  }
  if (offset == end) return Status::OK();
  auto it = segments_.upper_bound(offset);
  --it;
  size_t added = 0;
  int64_t pos = -1;
  for (; it != segments_.end(); ++it) {
    const Segment& seg = it->second;
    if (pos < 0) {
      FLOE_ASSIGN_OR_RETURN(pos, Locate(seg, offset));
    } else {
      pos = 0;
    }
    uint8_t head[kBatchHeaderBytes];
    while (pos < seg.size) {
      FLOE_ASSIGN_OR_RETURN(size_t n, seg.file->ReadAt(pos, sizeof(head), head));
      FLOE_ASSIGN_OR_RETURN(BatchHeader h, ParseBatchHeader({head, n}));
      if (h.base_offset >= end) return Status::OK();  // not yet synced
      const size_t size = h.total_bytes();
      if (added > 0 && added + size > max_bytes) return Status::OK();
      uint8_t* dst = out->AppendUninitialized(size);
      FLOE_ASSIGN_OR_RETURN(size_t got, seg.file->ReadAt(pos, size, dst));
      if (got != size) return Status::Corrupt("segment {} ends inside a batch", seg.file->path());
      added += size;
      pos += static_cast<int64_t>(size);
      if (added >= max_bytes) return Status::OK();
    }
  }
  return Status::OK();
}

Result<std::optional<BatchHeader>> PartitionLog::FindByTimestamp(int64_t timestamp_ms) const {
  for (const auto& [base, seg] : segments_) {
    if (seg.max_timestamp < timestamp_ms) continue;
    uint8_t head[kBatchHeaderBytes];
    for (int64_t pos = 0; pos < seg.size;) {
      FLOE_ASSIGN_OR_RETURN(size_t n, seg.file->ReadAt(pos, sizeof(head), head));
      FLOE_ASSIGN_OR_RETURN(BatchHeader h, ParseBatchHeader({head, n}));
      if (h.base_offset >= high_watermark()) break;
      if (h.max_timestamp >= timestamp_ms) return std::optional<BatchHeader>(h);
      pos += static_cast<int64_t>(h.total_bytes());
    }
  }
  return std::optional<BatchHeader>();
}

Status PartitionLog::ForEachBatch(const std::function<void(const BatchHeader&)>& fn) const {
  uint8_t head[kBatchHeaderBytes];
  for (const auto& [base, seg] : segments_) {
    for (int64_t pos = 0; pos < seg.size;) {
      FLOE_ASSIGN_OR_RETURN(size_t n, seg.file->ReadAt(pos, sizeof(head), head));
      FLOE_ASSIGN_OR_RETURN(BatchHeader h, ParseBatchHeader({head, n}));
      fn(h);
      pos += static_cast<int64_t>(h.total_bytes());
    }
  }
  return Status::OK();
}

Result<int> PartitionLog::ApplyRetention(int64_t now_ms, int64_t retention_ms,
                                         int64_t retention_bytes, int64_t protected_offset) {
  int deleted = 0;
  int64_t total = size_bytes();
  while (segments_.size() > 1) {
    Segment& seg = segments_.begin()->second;
    bool expired =
        retention_ms >= 0 && seg.max_timestamp >= 0 && seg.max_timestamp < now_ms - retention_ms;
    bool oversize = retention_bytes >= 0 && total - seg.size >= retention_bytes;
    if (!(expired || oversize) || seg.next_offset > protected_offset) break;
    const std::string path = seg.file->path();
    seg.file.reset();
    if (::unlink(path.c_str()) != 0 && errno != ENOENT)
      return io::ErrnoStatus(errno, "delete", path);
    total -= seg.size;
    segments_.erase(segments_.begin());
    ++deleted;
  }
  log_start_offset_ = segments_.begin()->first;
  return deleted;
}

Status PartitionLog::DeleteAll() {
  segments_.clear();
  std::error_code ec;
  std::filesystem::remove_all(dir_, ec);
  if (ec) return io::ErrnoStatus(ec.value(), "delete", dir_);
  return Status::OK();
}

}  // namespace floe::kafka
