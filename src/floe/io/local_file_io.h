// LocalFileIO: FileIO over the local filesystem. Accepts plain paths and file: URIs
// (file:/p, file:///p).
#pragma once

#include "floe/io/file_io.h"

namespace floe::io {

class LocalFileIO final : public FileIO {
 public:
  Result<std::unique_ptr<InputFile>> OpenInput(std::string_view location) override;
  Result<std::unique_ptr<OutputStream>> CreateOutput(std::string_view location,
                                                     bool overwrite) override;
  Status Delete(std::string_view location) override;
  Result<bool> Exists(std::string_view location) override;
  Result<std::vector<FileInfo>> List(std::string_view prefix) override;
  Status RenameNoReplace(std::string_view from, std::string_view to) override;

  // Strips a file: scheme; returns the path unchanged otherwise.
  static std::string ToPath(std::string_view location);
};

}  // namespace floe::io
