// Manifest model (Iceberg spec, "Manifests", "Manifest Lists"): the content files a
// manifest tracks (DataFile), its entries (ManifestEntry) and the manifest list's entries
// (ManifestFile), plus the file names Iceberg Java gives manifests and manifest lists.
//
// Readers and writers live in manifest_reader.h, manifest_writer.h and manifest_list.h;
// the Avro schemas of every format version in manifest_avro.h.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "floe/base/status.h"
#include "floe/iceberg/literal.h"

namespace floe::iceberg {

// data_file.content (field 134).
enum class FileContent : int32_t { kData = 0, kPositionDeletes = 1, kEqualityDeletes = 2 };
// manifest_file.content (field 517) and the manifest's "content" metadata.
enum class ManifestContent : int32_t { kData = 0, kDeletes = 1 };
// manifest_entry.status (field 0).
enum class ManifestStatus : int32_t { kExisting = 0, kAdded = 1, kDeleted = 2 };
enum class FileFormat : uint8_t { kAvro, kOrc, kParquet, kPuffin };

// "AVRO", "ORC", "PARQUET", "PUFFIN": the upper-case names Iceberg Java writes.
std::string_view FileFormatName(FileFormat format);
// Parses a file format name, ignoring case. kInvalidArgument for other names.
Result<FileFormat> ParseFileFormat(std::string_view name);
// "data" / "deletes" (manifest metadata); "DATA", "POSITION_DELETES", "EQUALITY_DELETES".
std::string_view ManifestContentName(ManifestContent content);
std::string_view FileContentName(FileContent content);

// Java's ManifestWriter.UNASSIGNED_SEQ: a manifest's sequence numbers before the manifest
// list assigns the commit's.
inline constexpr int64_t kUnassignedSequenceNumber = -1;

// A content file: a data file, a position or equality delete file, or a deletion vector
// (a Puffin blob: content_offset / content_size_in_bytes / referenced_data_file).
struct DataFile {
  FileContent content = FileContent::kData;
  std::string file_path;
  FileFormat file_format = FileFormat::kParquet;
  // Not stored in the manifest: the spec id of the manifest that holds the file.
  int32_t spec_id = 0;
  // One value per partition field, in spec order, typed with the partition type.
  std::vector<Literal> partition;
  int64_t record_count = 0;
  int64_t file_size_in_bytes = 0;
  // Metrics by field id. Empty maps are written as null.
  std::map<int32_t, int64_t> column_sizes;
  std::map<int32_t, int64_t> value_counts;
  std::map<int32_t, int64_t> null_value_counts;
  std::map<int32_t, int64_t> nan_value_counts;
  // Appendix D single-value bytes, decoded by consumers with Literal::FromBytes.
  std::map<int32_t, std::string> lower_bounds;
  std::map<int32_t, std::string> upper_bounds;
  std::optional<std::string> key_metadata;
  std::optional<std::vector<int64_t>> split_offsets;
  std::optional<std::vector<int32_t>> equality_ids;
  std::optional<int32_t> sort_order_id;
  std::optional<int64_t> first_row_id;              // v3
  std::optional<std::string> referenced_data_file;  // v2+
  std::optional<int64_t> content_offset;            // v3
  std::optional<int64_t> content_size_in_bytes;     // v3

  bool operator==(const DataFile&) const = default;
};

struct ManifestEntry {
  ManifestStatus status = ManifestStatus::kAdded;
  // Null in a manifest means "inherit from the manifest list" (ADDED entries); readers
  // return them inherited.
  std::optional<int64_t> snapshot_id;
  std::optional<int64_t> data_sequence_number;  // field 3 "sequence_number"
  std::optional<int64_t> file_sequence_number;  // field 4
  DataFile data_file;

  bool is_live() const { return status != ManifestStatus::kDeleted; }
  bool operator==(const ManifestEntry&) const = default;
};

// manifest_file.partitions element (record r508).
struct PartitionFieldSummary {
  bool contains_null = false;
  std::optional<bool> contains_nan;
  std::optional<std::string> lower_bound;  // Appendix D bytes of the partition field type
  std::optional<std::string> upper_bound;

  bool operator==(const PartitionFieldSummary&) const = default;
};

// A manifest list entry.
struct ManifestFile {
  std::string manifest_path;
  int64_t manifest_length = 0;
  int32_t partition_spec_id = 0;
  ManifestContent content = ManifestContent::kData;
  // kUnassignedSequenceNumber until the manifest list writer assigns the commit's.
  int64_t sequence_number = kUnassignedSequenceNumber;
  int64_t min_sequence_number = kUnassignedSequenceNumber;
  int64_t added_snapshot_id = 0;
  // Null only in v1 lists, meaning unknown.
  std::optional<int32_t> added_files_count;
  std::optional<int32_t> existing_files_count;
  std::optional<int32_t> deleted_files_count;
  std::optional<int64_t> added_rows_count;
  std::optional<int64_t> existing_rows_count;
  std::optional<int64_t> deleted_rows_count;
  std::optional<std::vector<PartitionFieldSummary>> partitions;
  std::optional<std::string> key_metadata;
  std::optional<int64_t> first_row_id;  // v3 data manifests

  bool operator==(const ManifestFile&) const = default;
};

// "<table_location>/metadata/<commit_uuid>-m<index>.avro", as Java's SnapshotProducer
// names new manifests. A trailing '/' on the location is ignored.
std::string ManifestPath(std::string_view table_location, std::string_view commit_uuid,
                         int64_t index);
// "<table_location>/metadata/snap-<snapshot_id>-<attempt>-<commit_uuid>.avro"; Java's
// attempts count from 1.
std::string ManifestListPath(std::string_view table_location, int64_t snapshot_id, int64_t attempt,
                             std::string_view commit_uuid);

}  // namespace floe::iceberg
