#include "floe/io/local_file_io.h"

#include <fcntl.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

#include "floe/base/macros.h"
#include "floe/io/durable_file.h"

namespace floe::io {

namespace {

class LocalInputFile final : public InputFile {
 public:
  LocalInputFile(std::string location, int fd, uint64_t size)
      : location_(std::move(location)), fd_(fd), size_(size) {}
  ~LocalInputFile() override { ::close(fd_); }

  const std::string& location() const override { return location_; }
  uint64_t size() const override { return size_; }

  Status ReadAt(uint64_t offset, size_t n, uint8_t* out) const override {
    if (offset > size_ || n > size_ - offset) {
      return Status::Corrupt("{}: read of {} bytes at offset {} is past the end ({} bytes)",
                             location_, n, offset, size_);
    }
    while (n > 0) {
      ssize_t got = ::pread(fd_, out, n, static_cast<off_t>(offset));
      if (got < 0) {
        if (errno == EINTR) continue;
        return ErrnoStatus(errno, "read", location_);
      }
      if (got == 0) return Status::IOError("{}: file shrank while reading", location_);
      out += got;
      offset += static_cast<uint64_t>(got);
      n -= static_cast<size_t>(got);
    }
    return Status::OK();
  }

 private:
  std::string location_;
  int fd_;
  uint64_t size_;
};

class LocalOutputStream final : public OutputStream {
 public:
  static constexpr size_t kBufferBytes = 1 << 20;

  LocalOutputStream(std::string location, int fd) : location_(std::move(location)), fd_(fd) {
    buffer_.Reserve(kBufferBytes);
  }
  ~LocalOutputStream() override {
    if (fd_ >= 0) ::close(fd_);
  }

  const std::string& location() const override { return location_; }
  uint64_t position() const override { return position_; }

  Status Write(const void* data, size_t n) override {
    if (fd_ < 0) return Status::FailedPrecondition("{}: write after close", location_);
    position_ += n;
    if (buffer_.size() + n <= kBufferBytes) {
      buffer_.Append(data, n);
      return Status::OK();
    }
    FLOE_RETURN_IF_ERROR(Flush());
    if (n >= kBufferBytes) return WriteAll(static_cast<const uint8_t*>(data), n);
    buffer_.Append(data, n);
    return Status::OK();
  }

  Status Close() override {
    if (fd_ < 0) return Status::OK();
    Status s = Flush();
    if (s.ok() && ::fsync(fd_) != 0) s = ErrnoStatus(errno, "fsync", location_);
    if (::close(fd_) != 0 && s.ok()) s = ErrnoStatus(errno, "close", location_);
    fd_ = -1;
    return s;
  }

 private:
  Status Flush() {
    Status s = WriteAll(buffer_.data(), buffer_.size());
    buffer_.Clear();
    return s;
  }
  Status WriteAll(const uint8_t* p, size_t n) {
    while (n > 0) {
      ssize_t put = ::write(fd_, p, n);
      if (put < 0) {
        if (errno == EINTR) continue;
        return ErrnoStatus(errno, "write", location_);
      }
      p += put;
      n -= static_cast<size_t>(put);
    }
    return Status::OK();
  }

  std::string location_;
  int fd_;
  uint64_t position_ = 0;
  Buffer buffer_;
};

}  // namespace

std::string LocalFileIO::ToPath(std::string_view location) {
  if (location.starts_with("file://")) return std::string(location.substr(7));
  if (location.starts_with("file:")) return std::string(location.substr(5));
  return std::string(location);
}

Result<std::unique_ptr<InputFile>> LocalFileIO::OpenInput(std::string_view location) {
  std::string path = ToPath(location);
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return ErrnoStatus(errno, "open", path);
  struct stat st;
  if (::fstat(fd, &st) != 0) {
    int err = errno;
    ::close(fd);
    return ErrnoStatus(err, "stat", path);
  }
  if (!S_ISREG(st.st_mode)) {
    ::close(fd);
    return Status::InvalidArgument("{} is not a regular file", path);
  }
  return std::make_unique<LocalInputFile>(std::string(location), fd,
                                          static_cast<uint64_t>(st.st_size));
}

Result<std::unique_ptr<OutputStream>> LocalFileIO::CreateOutput(std::string_view location,
                                                                bool overwrite) {
  std::string path = ToPath(location);
  std::error_code ec;
  auto parent = std::filesystem::path(path).parent_path();
  if (!parent.empty()) std::filesystem::create_directories(parent, ec);
  int flags = O_WRONLY | O_CREAT | O_CLOEXEC | (overwrite ? O_TRUNC : O_EXCL);
  int fd = ::open(path.c_str(), flags, 0644);
  if (fd < 0) return ErrnoStatus(errno, "create", path);
  return std::make_unique<LocalOutputStream>(std::string(location), fd);
}

Status LocalFileIO::Delete(std::string_view location) {
  std::string path = ToPath(location);
  if (::unlink(path.c_str()) != 0) return ErrnoStatus(errno, "delete", path);
  return Status::OK();
}

Status LocalFileIO::RenameNoReplace(std::string_view from, std::string_view to) {
  std::string from_path = ToPath(from);
  std::string to_path = ToPath(to);
  if (::renameat2(AT_FDCWD, from_path.c_str(), AT_FDCWD, to_path.c_str(), RENAME_NOREPLACE) == 0) {
    return Status::OK();
  }
  if (errno != EINVAL && errno != ENOSYS) {
    return ErrnoStatus(errno, "rename to " + to_path, from_path);
  }
  // Filesystems without RENAME_NOREPLACE: link() never replaces either (Hadoop's
  // HadoopTableOperations relies on the same exclusivity of rename on HDFS).
  if (::link(from_path.c_str(), to_path.c_str()) != 0) {
    return ErrnoStatus(errno, "link to " + to_path, from_path);
  }
  if (::unlink(from_path.c_str()) != 0) return ErrnoStatus(errno, "unlink", from_path);
  return Status::OK();
}

Result<bool> LocalFileIO::Exists(std::string_view location) {
  std::string path = ToPath(location);
  struct stat st;
  if (::stat(path.c_str(), &st) == 0) return true;
  if (errno == ENOENT || errno == ENOTDIR) return false;
  return ErrnoStatus(errno, "stat", path);
}

Result<std::vector<FileInfo>> LocalFileIO::List(std::string_view prefix) {
  std::string path = ToPath(prefix);
  std::vector<FileInfo> out;
  std::error_code ec;
  std::filesystem::path root(path);
  if (!std::filesystem::is_directory(root, ec)) {
    root = root.parent_path();
    if (root.empty()) root = ".";
  }
  if (!std::filesystem::exists(root, ec)) return out;
  std::string scheme = prefix.starts_with("file:")
                           ? std::string(prefix.substr(0, prefix.size() - path.size()))
                           : std::string();
  for (auto it = std::filesystem::recursive_directory_iterator(root, ec);
       !ec && it != std::filesystem::recursive_directory_iterator(); it.increment(ec)) {
    if (!it->is_regular_file(ec)) continue;
    std::string p = it->path().string();
    if (!p.starts_with(path)) continue;
    struct stat st;
    if (::stat(p.c_str(), &st) != 0) continue;  // deleted concurrently
    int64_t mtime_ms =
        static_cast<int64_t>(st.st_mtim.tv_sec) * 1000 + st.st_mtim.tv_nsec / 1000000;
    out.push_back({scheme + p, static_cast<uint64_t>(st.st_size), mtime_ms});
  }
  if (ec) return Status::IOError("list {}: {}", path, ec.message());
  return out;
}

}  // namespace floe::io
