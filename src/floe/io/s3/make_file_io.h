// MakeFileIO: the FileIO floe's catalogs use: s3:// and s3a:// locations to an S3FileIO
// configured from catalog properties and the environment (S3Options::FromProperties), all
// other locations (paths, file: URIs) to LocalFileIO.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <string>

#include "floe/io/file_io.h"
#include "floe/io/s3/s3_metrics.h"

namespace floe::io::s3 {

// `getenv` may be null (no environment). Errors: kInvalidArgument (bad s3.* properties or
// endpoint). No request is sent here: missing credentials show at the first S3 request
// (anonymous requests, which a private bucket refuses with 403). S3 requests are counted in
// `metrics` (when not null) under the label `catalog`.
Result<std::unique_ptr<FileIO>> MakeFileIO(const std::map<std::string, std::string>& properties,
                                           const std::function<const char*(const char*)>& getenv,
                                           std::shared_ptr<S3Metrics> metrics = nullptr,
                                           std::string catalog = {});

// True for s3:// and s3a:// locations.
bool IsS3Location(std::string_view location);

}  // namespace floe::io::s3
