#include "floe/iceberg/location.h"

#include <fmt/format.h>

#include "floe/base/macros.h"
#include "floe/iceberg/transform.h"

namespace floe::iceberg {

namespace {

// Java LocationProviders: the entropy is the low 20 bits of the hash, written in binary as
// three 4-bit directories and one of the remaining 8 bits.
constexpr int kHashBits = 20;
constexpr int kEntropyDirLength = 4;
constexpr int kEntropyDirDepth = 3;

std::string_view StripTrailingSlashes(std::string_view s) {
  while (s.size() > 1 && s.back() == '/') s.remove_suffix(1);
  return s;
}

const std::string* Find(const std::map<std::string, std::string>& props, std::string_view key) {
  auto it = props.find(std::string(key));
  return it == props.end() ? nullptr : &it->second;
}

bool EqualsIgnoreCase(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    auto lower = [](char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c + 32) : c; };
    if (lower(a[i]) != lower(b[i])) return false;
  }
  return true;
}

// Java PropertyUtil.propertyAsBoolean is Boolean.parseBoolean: "true" in any case is true,
// anything else false; an absent key takes the default.
bool BoolProperty(const std::map<std::string, std::string>& props, std::string_view key,
                  bool default_value) {
  const std::string* v = Find(props, key);
  if (v == nullptr) return default_value;
  return EqualsIgnoreCase(*v, "true");
}

// Hadoop Path(table_location): "<parent name>/<name>" — the last two path components.
std::string PathContext(std::string_view location) {
  std::string_view path = location;
  if (size_t scheme = path.find("://"); scheme != std::string_view::npos) {
    path.remove_prefix(scheme + 3);
    size_t slash = path.find('/');
    path = slash == std::string_view::npos ? std::string_view() : path.substr(slash);
  }
  path = StripTrailingSlashes(path);
  size_t last = path.rfind('/');
  std::string_view name = last == std::string_view::npos ? path : path.substr(last + 1);
  if (last == std::string_view::npos || last == 0) return fmt::format("/{}", name);
  std::string_view parent = path.substr(0, last);
  size_t prev = parent.rfind('/');
  std::string_view parent_name = prev == std::string_view::npos ? parent : parent.substr(prev + 1);
  return fmt::format("{}/{}", parent_name, name);
}

}  // namespace

LocationProvider LocationProvider::Make(std::string_view table_location,
                                        const std::map<std::string, std::string>& properties) {
  LocationProvider p;
  const std::string_view table = StripTrailingSlashes(table_location);
  p.object_storage_ = BoolProperty(properties, kObjectStoreEnabledProperty, false);
  p.partitioned_paths_ = BoolProperty(properties, kObjectStorePartitionedPathsProperty, true);
  const std::string* data = Find(properties, kWriteDataPathProperty);
  if (data == nullptr && p.object_storage_) data = Find(properties, kObjectStorePathProperty);
  if (data == nullptr) data = Find(properties, kWriteFolderStoragePathProperty);
  p.data_location_ =
      data != nullptr ? std::string(StripTrailingSlashes(*data)) : fmt::format("{}/data", table);
  // Object storage outside the table's own prefix keeps "<db>/<table>" after the hash.
  if (p.object_storage_ && !std::string_view(p.data_location_).starts_with(table)) {
    p.context_ = PathContext(table);
  }
  return p;
}

std::string ObjectStoreHashDirs(std::string_view file_part) {
  const uint32_t hash = Murmur3_32(file_part.data(), file_part.size());
  std::string bits(kHashBits, '0');
  for (int i = 0; i < kHashBits; ++i) {
    if ((hash >> (kHashBits - 1 - i)) & 1u) bits[static_cast<size_t>(i)] = '1';
  }
  std::string out;
  out.reserve(kHashBits + kEntropyDirDepth);
  for (int d = 0; d < kEntropyDirDepth; ++d) {
    out.append(bits, static_cast<size_t>(d * kEntropyDirLength), kEntropyDirLength);
    out.push_back('/');
  }
  out.append(bits, kEntropyDirDepth * kEntropyDirLength);
  return out;
}

std::string LocationProvider::NewDataLocation(std::string_view file_name) const {
  if (!object_storage_) return fmt::format("{}/{}", data_location_, file_name);
  const std::string hash = ObjectStoreHashDirs(file_name);
  if (!context_.empty())
    return fmt::format("{}/{}/{}/{}", data_location_, hash, context_, file_name);
  if (partitioned_paths_) return fmt::format("{}/{}/{}", data_location_, hash, file_name);
  return fmt::format("{}/{}-{}", data_location_, hash, file_name);
}

Result<std::string> LocationProvider::NewDataLocation(const PartitionSpec& spec,
                                                      const std::vector<Literal>& values,
                                                      std::string_view file_name) const {
  if (spec.is_unpartitioned() && values.size() == spec.fields().size()) {
    return NewDataLocation(file_name);
  }
  FLOE_ASSIGN_OR_RETURN(std::string path, spec.PartitionPath(values));
  if (object_storage_ && !partitioned_paths_) return NewDataLocation(file_name);
  return NewDataLocation(fmt::format("{}/{}", path, file_name));
}

std::string_view FileExtension(FileFormat format) {
  switch (format) {
    case FileFormat::kAvro: return ".avro";
    case FileFormat::kOrc: return ".orc";
    case FileFormat::kParquet: return ".parquet";
    case FileFormat::kPuffin: return ".puffin";
  }
  return "";
}

std::string OutputFileFactory::NewFileName(FileFormat format, std::string_view suffix) {
  const int32_t n = count_.fetch_add(1) + 1;
  return fmt::format("{:05d}-{}-{}-{:05d}{}{}{}", partition_id_, task_id_, operation_id_, n,
                     suffix.empty() ? "" : "-", suffix, FileExtension(format));
}

}  // namespace floe::iceberg
