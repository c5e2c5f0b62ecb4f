#include "floe/io/durable_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>

#include "floe/base/macros.h"

namespace floe::io {

Status ErrnoStatus(int err, std::string_view what, std::string_view path) {
  std::string msg = fmt::format("{} {}: {}", what, path, std::strerror(err));
  switch (err) {
    case ENOENT: return Status(StatusCode::kNotFound, std::move(msg));
    case EEXIST: return Status(StatusCode::kAlreadyExists, std::move(msg));
    case EACCES:
    case EPERM: return Status(StatusCode::kPermissionDenied, std::move(msg));
    case ENOSPC:
    case EDQUOT: return Status(StatusCode::kResourceExhausted, std::move(msg));
    default: return Status(StatusCode::kIOError, std::move(msg));
  }
}

void FileFaults::FailWritesAfter(int64_t bytes) {
  std::lock_guard lock(mu_);
  write_budget_ = bytes;
}

void FileFaults::FailSyncs(bool on) {
  std::lock_guard lock(mu_);
  fail_syncs_ = on;
}

void FileFaults::HoldSyncs(bool on) {
  {
    std::lock_guard lock(mu_);
    hold_syncs_ = on;
  }
  released_.notify_all();
}

int FileFaults::held_syncs() {
  std::lock_guard lock(mu_);
  return held_;
}

void FileFaults::Clear() {
  {
    std::lock_guard lock(mu_);
    write_budget_ = -1;
    fail_syncs_ = false;
    hold_syncs_ = false;
  }
  released_.notify_all();
}

size_t FileFaults::AllowWrite(size_t n, int* err) {
  std::lock_guard lock(mu_);
  if (write_budget_ < 0) return n;
  if (write_budget_ == 0) {
    *err = ENOSPC;
    return 0;
  }
  size_t allowed = std::min<size_t>(n, static_cast<size_t>(write_budget_));
  write_budget_ -= static_cast<int64_t>(allowed);
  return allowed;
}

int FileFaults::SyncError() {
  std::unique_lock lock(mu_);
  if (hold_syncs_) {
    ++held_;
    released_.wait(lock, [this] { return !hold_syncs_; });
    --held_;
  }
  return fail_syncs_ ? EIO : 0;
}

namespace {

// Writes all of `data` at `pos`; on failure errno holds the cause.
bool WriteAllAt(int fd, std::span<const uint8_t> data, int64_t pos, FileFaults* faults) {
  size_t done = 0;
  while (done < data.size()) {
    size_t want = data.size() - done;
    if (faults != nullptr) {
      int err = 0;
      want = faults->AllowWrite(want, &err);
      if (want == 0) {
        errno = err;
        return false;
      }
    }
    ssize_t w =
        ::pwrite(fd, data.data() + done, want, static_cast<off_t>(pos) + static_cast<off_t>(done));
    if (w < 0) {
      if (errno == EINTR) continue;
      return false;
    }
    done += static_cast<size_t>(w);
  }
  return true;
}

// fdatasync (data_only) or fsync; on failure errno holds the cause.
bool SyncFd(int fd, bool data_only, FileFaults* faults) {
  if (faults != nullptr) {
    if (int err = faults->SyncError(); err != 0) {
      errno = err;
      return false;
    }
  }
  return (data_only ? ::fdatasync(fd) : ::fsync(fd)) == 0;
}

std::string ParentDir(const std::string& path) {
  std::string dir = std::filesystem::path(path).parent_path().string();
  return dir.empty() ? std::string(".") : dir;
}

}  // namespace

Status SyncDirectory(const std::string& dir, FileFaults* faults) {
  int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return ErrnoStatus(errno, "open directory", dir);
  Status s;
  if (!SyncFd(fd, false, faults)) s = ErrnoStatus(errno, "fsync directory", dir);
  ::close(fd);
  return s;
}

Status WriteFileAtomically(const std::string& path, std::string_view contents, FileFaults* faults) {
  const std::string tmp = path + ".tmp";
  int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) return ErrnoStatus(errno, "create", tmp);
  Status s;
  if (!WriteAllAt(fd, {reinterpret_cast<const uint8_t*>(contents.data()), contents.size()}, 0,
                  faults)) {
    s = ErrnoStatus(errno, "write", tmp);
  } else if (!SyncFd(fd, false, faults)) {
    s = ErrnoStatus(errno, "fsync", tmp);
  }
  if (::close(fd) != 0 && s.ok()) s = ErrnoStatus(errno, "close", tmp);
  if (s.ok() && ::rename(tmp.c_str(), path.c_str()) != 0) s = ErrnoStatus(errno, "rename", tmp);
  if (!s.ok()) {
    // Frees the space at once; a crash before this line leaves the file to
    // RemoveTemporaryFiles.
    (void)::unlink(tmp.c_str());
    return s;
  }
  // After the rename the new contents are in place; the directory's fsync makes the rename
  // itself survive a power loss.
  return SyncDirectory(ParentDir(path), faults);
}

Result<int> RemoveTemporaryFiles(const std::string& dir) {
  std::error_code ec;
  int removed = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir, ec)) {
    const std::string name = entry.path().filename().string();
    if (!name.ends_with(".tmp") || !entry.is_regular_file(ec)) continue;
    if (::unlink(entry.path().c_str()) != 0 && errno != ENOENT) {
      return ErrnoStatus(errno, "delete", entry.path().string());
    }
    ++removed;
  }
  if (ec && ec != std::errc::no_such_file_or_directory) {
    return Status::IOError("list {}: {}", dir, ec.message());
  }
  return removed;
}

Result<std::unique_ptr<AppendFile>> AppendFile::Open(std::string path, FileFaults* faults) {
  int fd = ::open(path.c_str(), O_RDWR | O_CLOEXEC);
  bool created = false;
  if (fd < 0 && errno == ENOENT) {
    fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    created = true;
  }
  if (fd < 0) return ErrnoStatus(errno, "open", path);
  struct stat st;
  if (::fstat(fd, &st) != 0) {
    int err = errno;
    ::close(fd);
    return ErrnoStatus(err, "stat", path);
  }
  std::unique_ptr<AppendFile> file(
      new AppendFile(std::move(path), fd, static_cast<int64_t>(st.st_size), faults));
  // The file's name must survive a power loss as surely as what is appended to it.
  if (created) FLOE_RETURN_IF_ERROR(SyncDirectory(ParentDir(file->path_), faults));
  return file;
}

AppendFile::~AppendFile() { ::close(fd_); }

Status AppendFile::CutTail() {
  if (!tail_dirty_) return Status::OK();
  if (::ftruncate(fd_, static_cast<off_t>(size_)) != 0) {
    return ErrnoStatus(errno, "truncate a failed append of", path_);
  }
  tail_dirty_ = false;
  return Status::OK();
}

Status AppendFile::Append(std::span<const uint8_t> data, bool sync) {
  FLOE_RETURN_IF_ERROR(CutTail());
  Status s;
  if (!WriteAllAt(fd_, data, size_, faults_)) {
    s = ErrnoStatus(errno, "write", path_);
  } else if (sync && !SyncFd(fd_, true, faults_)) {
    // Whether the bytes reached the disk is unknown: they were not acknowledged, so they go.
    s = ErrnoStatus(errno, "fdatasync", path_);
  }
  if (!s.ok()) {
    tail_dirty_ = true;
    (void)CutTail();  // retried by the next append when it fails now
    return s;
  }
  size_ += static_cast<int64_t>(data.size());
  return Status::OK();
}

Status AppendFile::Sync() {
  if (!SyncFd(fd_, true, faults_)) {
    sync_failed_.store(true, std::memory_order_release);
    return ErrnoStatus(errno, "fdatasync", path_);
  }
  return Status::OK();
}

Status AppendFile::Truncate(int64_t size) {
  size_ = size;
  tail_dirty_ = true;
  if (::ftruncate(fd_, static_cast<off_t>(size)) != 0) return ErrnoStatus(errno, "truncate", path_);
  tail_dirty_ = false;
  if (!SyncFd(fd_, false, faults_)) return ErrnoStatus(errno, "fsync", path_);
  // What is left was synced before, and the rest is gone: syncs may be trusted again.
  sync_failed_.store(false, std::memory_order_release);
  return Status::OK();
}

Result<size_t> AppendFile::ReadAt(int64_t pos, size_t n, uint8_t* out) const {
  size_t done = 0;
  while (done < n) {
    ssize_t r =
        ::pread(fd_, out + done, n - done, static_cast<off_t>(pos) + static_cast<off_t>(done));
    if (r < 0) {
      if (errno == EINTR) continue;
      return ErrnoStatus(errno, "read", path_);
    }
    if (r == 0) break;
    done += static_cast<size_t>(r);
  }
  return done;
}

}  // namespace floe::io
