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
  return log;
}

Status PartitionLog::OpenSegment(int64_t base_offset, bool last,
                                 const std::function<void(const BatchHeader&)>& on_batch) {
  const std::string path = SegmentPath(base_offset, ".log");
  FLOE_ASSIGN_OR_RETURN(std::unique_ptr<io::AppendFile> file,
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
  FLOE_RETURN_IF_ERROR(segments_.rbegin()->second.file->Sync());
  return OpenSegment(log_end_offset_, true, {});
}

Result<int64_t> PartitionLog::Append(std::span<uint8_t> batch, int32_t leader_epoch) {
  if (segments_.rbegin()->second.size > 0 &&
      segments_.rbegin()->second.size + static_cast<int64_t>(batch.size()) >
          options_.segment_bytes) {
    FLOE_RETURN_IF_ERROR(Roll());
  }
  Segment& seg = segments_.rbegin()->second;
  const int64_t base = log_end_offset_;
  SetBatchOffsetAndEpoch(batch, base, leader_epoch);
  FLOE_ASSIGN_OR_RETURN(BatchHeader h, ParseBatchHeader(batch));
  FLOE_RETURN_IF_ERROR(seg.file->Append(batch, options_.fsync_every_batch));
  if (!options_.fsync_every_batch) dirty_ = true;
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
  FLOE_RETURN_IF_ERROR(segments_.rbegin()->second.file->Sync());
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
  if (offset < log_start_offset_ || offset > log_end_offset_) {
    return Status::NotFound("offset {} outside [{}, {}]", offset, log_start_offset_,
                            log_end_offset_);
  }
  if (offset == log_end_offset_) return Status::OK();
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
      if (h.max_timestamp >= timestamp_ms) return std::optional<BatchHeader>(h);
      pos += static_cast<int64_t>(h.total_bytes());
    }
  }
  return std::optional<BatchHeader>();
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
