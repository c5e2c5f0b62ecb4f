#include "floe/io/s3/make_file_io.h"

#include "floe/base/macros.h"
#include "floe/io/local_file_io.h"
#include "floe/io/routing_file_io.h"
#include "floe/io/s3/s3_file_io.h"

namespace floe::io::s3 {

Result<std::unique_ptr<FileIO>> MakeFileIO(const std::map<std::string, std::string>& properties,
                                           const std::function<const char*(const char*)>& getenv,
                                           std::shared_ptr<S3Metrics> metrics,
                                           std::string catalog) {
  FLOE_ASSIGN_OR_RETURN(S3Options options, S3Options::FromProperties(properties, getenv));
  options.metrics = std::move(metrics);
  options.metrics_catalog = std::move(catalog);
  FLOE_ASSIGN_OR_RETURN(std::unique_ptr<S3FileIO> s3, S3FileIO::Make(std::move(options)));
  std::shared_ptr<FileIO> shared(std::move(s3));
  return std::unique_ptr<FileIO>(
      new RoutingFileIO(std::make_unique<LocalFileIO>(), {{"s3", shared}, {"s3a", shared}}));
}

bool IsS3Location(std::string_view location) {
  return location.starts_with("s3://") || location.starts_with("s3a://");
}

}  // namespace floe::io::s3
