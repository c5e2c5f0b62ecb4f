#include "floe/iceberg/manifest.h"

#include <algorithm>
#include <cctype>

#include <fmt/format.h>

namespace floe::iceberg {

std::string_view FileFormatName(FileFormat format) {
  switch (format) {
    case FileFormat::kAvro: return "AVRO";
    case FileFormat::kOrc: return "ORC";
    case FileFormat::kParquet: return "PARQUET";
    case FileFormat::kPuffin: return "PUFFIN";
  }
  return "?";
}

Result<FileFormat> ParseFileFormat(std::string_view name) {
  std::string upper(name);
  std::transform(upper.begin(), upper.end(), upper.begin(),
                 [](unsigned char c) { return static_cast<char>(std::toupper(c)); });
  for (FileFormat f :
       {FileFormat::kAvro, FileFormat::kOrc, FileFormat::kParquet, FileFormat::kPuffin}) {
    if (upper == FileFormatName(f)) return f;
  }
  return Status::InvalidArgument("unknown file format '{}'", name);
}

std::string_view ManifestContentName(ManifestContent content) {
  return content == ManifestContent::kDeletes ? "deletes" : "data";
}

std::string_view FileContentName(FileContent content) {
  switch (content) {
    case FileContent::kData: return "DATA";
    case FileContent::kPositionDeletes: return "POSITION_DELETES";
    case FileContent::kEqualityDeletes: return "EQUALITY_DELETES";
  }
  return "?";
}

namespace {
std::string_view TrimSlash(std::string_view location) {
  while (!location.empty() && location.back() == '/') location.remove_suffix(1);
  return location;
}
}  // namespace

std::string ManifestPath(std::string_view table_location, std::string_view commit_uuid,
                         int64_t index) {
  return fmt::format("{}/metadata/{}-m{}.avro", TrimSlash(table_location), commit_uuid, index);
}

std::string ManifestListPath(std::string_view table_location, int64_t snapshot_id, int64_t attempt,
                             std::string_view commit_uuid) {
  return fmt::format("{}/metadata/snap-{}-{}-{}.avro", TrimSlash(table_location), snapshot_id,
                     attempt, commit_uuid);
}

}  // namespace floe::iceberg
