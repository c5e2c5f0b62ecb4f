#include "floe/io/memory_file_io.h"

#include <cstring>

namespace floe::io {

namespace {

class MemoryInputFile final : public InputFile {
 public:
  MemoryInputFile(std::string location, std::shared_ptr<const std::string> contents)
      : location_(std::move(location)), contents_(std::move(contents)) {}
  const std::string& location() const override { return location_; }
  uint64_t size() const override { return contents_->size(); }
  Status ReadAt(uint64_t offset, size_t n, uint8_t* out) const override {
    if (offset > contents_->size() || n > contents_->size() - offset) {
      return Status::Corrupt("{}: read of {} bytes at offset {} is past the end ({} bytes)",
                             location_, n, offset, contents_->size());
    }
    if (n > 0) std::memcpy(out, contents_->data() + offset, n);
    return Status::OK();
  }

 private:
  std::string location_;
  std::shared_ptr<const std::string> contents_;
};

}  // namespace

class MemoryOutputStream final : public OutputStream {
 public:
  MemoryOutputStream(MemoryFileIO* io, std::string location, bool overwrite)
      : io_(io), location_(std::move(location)), overwrite_(overwrite) {}
  const std::string& location() const override { return location_; }
  uint64_t position() const override { return data_.size(); }
  Status Write(const void* data, size_t n) override {
    if (closed_) return Status::FailedPrecondition("{}: write after close", location_);
    data_.append(static_cast<const char*>(data), n);
    return Status::OK();
  }
  Status Close() override {
    if (closed_) return Status::OK();
    closed_ = true;
    std::lock_guard lock(io_->mu_);
    if (!overwrite_ && io_->files_.contains(location_)) {
      return Status::AlreadyExists("{} exists", location_);
    }
    io_->files_[location_] = {std::make_shared<const std::string>(std::move(data_)),
                              ++io_->version_};
    return Status::OK();
  }

 private:
  MemoryFileIO* io_;
  std::string location_;
  bool overwrite_;
  bool closed_ = false;
  std::string data_;
};

Result<std::unique_ptr<InputFile>> MemoryFileIO::OpenInput(std::string_view location) {
  std::lock_guard lock(mu_);
  auto it = files_.find(location);
  if (it == files_.end()) return Status::NotFound("{} does not exist", location);
  return std::make_unique<MemoryInputFile>(std::string(location), it->second.contents);
}

Result<std::unique_ptr<OutputStream>> MemoryFileIO::CreateOutput(std::string_view location,
                                                                 bool overwrite) {
  std::lock_guard lock(mu_);
  if (!overwrite && files_.contains(location)) {
    return Status::AlreadyExists("{} exists", location);
  }
  return std::make_unique<MemoryOutputStream>(this, std::string(location), overwrite);
}

Status MemoryFileIO::Delete(std::string_view location) {
  std::lock_guard lock(mu_);
  auto it = files_.find(location);
  if (it == files_.end()) return Status::NotFound("{} does not exist", location);
  files_.erase(it);
  return Status::OK();
}

Status MemoryFileIO::RenameNoReplace(std::string_view from, std::string_view to) {
  std::lock_guard lock(mu_);
  auto it = files_.find(from);
  if (it == files_.end()) return Status::NotFound("{} does not exist", from);
  if (files_.contains(to)) return Status::AlreadyExists("{} exists", to);
  File file = std::move(it->second);
  files_.erase(it);
  files_.emplace(std::string(to), std::move(file));
  return Status::OK();
}

Result<bool> MemoryFileIO::Exists(std::string_view location) {
  std::lock_guard lock(mu_);
  return files_.contains(location);
}

Result<std::vector<FileInfo>> MemoryFileIO::List(std::string_view prefix) {
  std::lock_guard lock(mu_);
  std::vector<FileInfo> out;
  for (auto it = files_.lower_bound(prefix); it != files_.end(); ++it) {
    if (!it->first.starts_with(prefix)) break;
    out.push_back({it->first, it->second.contents->size(), it->second.modified_ms});
  }
  return out;
}

void MemoryFileIO::Put(std::string location, std::string contents) {
  std::lock_guard lock(mu_);
  files_[std::move(location)] = {std::make_shared<const std::string>(std::move(contents)),
                                 ++version_};
}

}  // namespace floe::io
