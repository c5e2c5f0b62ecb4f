// RoutingFileIO: one FileIO for locations of several schemes. A location whose scheme (the
// text before "://") has a registered FileIO goes there; everything else (plain paths,
// file: URIs) goes to the default.
#pragma once

#include <map>
#include <memory>
#include <string>

#include "floe/io/file_io.h"

namespace floe::io {

class RoutingFileIO final : public FileIO {
 public:
  // `by_scheme` maps a scheme without "://" ("s3") to its FileIO.
  RoutingFileIO(std::unique_ptr<FileIO> fallback,
                std::map<std::string, std::shared_ptr<FileIO>> by_scheme);

  Result<std::unique_ptr<InputFile>> OpenInput(std::string_view location) override;
  Result<std::unique_ptr<OutputStream>> CreateOutput(std::string_view location,
                                                     bool overwrite) override;
  Status Delete(std::string_view location) override;
  // Groups the locations by target, so each store batches its own.
  Status DeleteFiles(const std::vector<std::string>& locations) override;
  Result<bool> Exists(std::string_view location) override;
  Result<std::vector<FileInfo>> List(std::string_view prefix) override;
  // Only within one target; kUnimplemented across targets or where the target cannot.
  Status RenameNoReplace(std::string_view from, std::string_view to) override;

  // The FileIO `location` goes to.
  FileIO& Route(std::string_view location);

 private:
  std::unique_ptr<FileIO> fallback_;
  std::map<std::string, std::shared_ptr<FileIO>> by_scheme_;
};

}  // namespace floe::io
