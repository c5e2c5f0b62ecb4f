// MemoryFileIO: FileIO over an in-process map, for tests. Files become visible on Close.
#pragma once

#include <map>
#include <mutex>

#include "floe/io/file_io.h"

namespace floe::io {

class MemoryFileIO final : public FileIO {
 public:
  Result<std::unique_ptr<InputFile>> OpenInput(std::string_view location) override;
  Result<std::unique_ptr<OutputStream>> CreateOutput(std::string_view location,
                                                     bool overwrite) override;
  Status Delete(std::string_view location) override;
  Result<bool> Exists(std::string_view location) override;
  Result<std::vector<FileInfo>> List(std::string_view prefix) override;
  Status RenameNoReplace(std::string_view from, std::string_view to) override;

  // Stores a file directly.
  void Put(std::string location, std::string contents);

 private:
  friend class MemoryOutputStream;
  struct File {
    std::shared_ptr<const std::string> contents;
    int64_t modified_ms = 0;
  };
  std::mutex mu_;
  std::map<std::string, File, std::less<>> files_;  // guarded by mu_
  int64_t version_ = 0;                             // guarded by mu_; stands in for mtime
};

}  // namespace floe::io
