// Where new data and delete files go, and what they are called: Iceberg Java's
// LocationProviders (default and object-storage layouts) and OutputFileFactory file names.
//
//   default:        <data>/<partition path>/<file name>
//   object storage: <data>/<hash dirs>/<partition path>/<file name>      (partitioned-paths)
//                   <data>/<hash dirs>-<file name>                       (partitioned-paths off)
//                   <data>/<hash dirs>/<db>/<table>/<...>                 (data outside the table)
//
// <data> is `write.data.path`, else `write.object-storage.path` (object storage only), else
// `write.folder-storage.path`, else "<table location>/data"; trailing slashes are dropped.
// The hash dirs are Java's: the low 20 bits of murmur3_32(file path part) in binary, cut
// into "bbbb/bbbb/bbbb/bbbbbbbb".
#pragma once

#include <atomic>
#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "floe/base/status.h"
#include "floe/iceberg/literal.h"
#include "floe/iceberg/manifest.h"
#include "floe/iceberg/partition_spec.h"

namespace floe::iceberg {

// Table properties read here (Java TableProperties).
inline constexpr std::string_view kWriteDataPathProperty = "write.data.path";
inline constexpr std::string_view kWriteFolderStoragePathProperty = "write.folder-storage.path";
inline constexpr std::string_view kObjectStoreEnabledProperty = "write.object-storage.enabled";
inline constexpr std::string_view kObjectStorePathProperty = "write.object-storage.path";
inline constexpr std::string_view kObjectStorePartitionedPathsProperty =
    "write.object-storage.partitioned-paths";

class LocationProvider {
 public:
  // The provider `properties` select for a table at `table_location`. Boolean properties
  // are "true"/"false" (case-insensitive); anything else keeps the default (false for
  // object storage, true for partitioned paths), as Java's PropertyUtil does.
  static LocationProvider Make(std::string_view table_location,
                               const std::map<std::string, std::string>& properties);

  // The location of an unpartitioned file.
  std::string NewDataLocation(std::string_view file_name) const;
  // The location of a file in the partition `values` of `spec` (PartitionSpec::
  // PartitionPath). kInvalidArgument when the values do not match the spec's fields.
  Result<std::string> NewDataLocation(const PartitionSpec& spec, const std::vector<Literal>& values,
                                      std::string_view file_name) const;

  const std::string& data_location() const { return data_location_; }
  bool object_storage() const { return object_storage_; }

 private:
  LocationProvider() = default;

  std::string data_location_;
  bool object_storage_ = false;
  bool partitioned_paths_ = true;
  std::string context_;  // object storage with data outside the table: "<parent>/<name>"
};

// The object-storage entropy directories of `file_part` ("0101/1100/0001/10110010").
std::string ObjectStoreHashDirs(std::string_view file_part);

// ".parquet", ".avro", ".orc", ".puffin" (Java FileFormat.addExtension).
std::string_view FileExtension(FileFormat format);

// Java's OutputFileFactory naming: "<partition_id:05d>-<task_id>-<operation_id>-
// <count:05d>[-<suffix>].<ext>", the count starting at 1 and shared by all names the
// factory hands out. Delete writers use the suffix "deletes".
// Thread-safety: NewFileName may be called concurrently.
class OutputFileFactory {
 public:
  OutputFileFactory(int32_t partition_id, int64_t task_id, std::string operation_id)
      : partition_id_(partition_id), task_id_(task_id), operation_id_(std::move(operation_id)) {}

  std::string NewFileName(FileFormat format, std::string_view suffix = {});

  const std::string& operation_id() const { return operation_id_; }

 private:
  int32_t partition_id_;
  int64_t task_id_;
  std::string operation_id_;
  std::atomic<int32_t> count_{0};
};

}  // namespace floe::iceberg
