// TableMetadata: the content of an Iceberg table metadata file (spec "Table Metadata",
// Appendix C) for format versions 1-3, its JSON form, and reading and writing metadata
// files through FileIO.
//
// TableMetadata is an immutable value once built: the parser and TableMetadataBuilder
// produce it, everyone else shares it as std::shared_ptr<const TableMetadata>.
// Thread-safety: const methods may be called concurrently.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "floe/base/status.h"
#include "floe/iceberg/partition_spec.h"
#include "floe/iceberg/schema.h"
#include "floe/iceberg/snapshot.h"
#include "floe/iceberg/sort_order.h"

namespace floe::io {
class FileIO;
}

namespace floe::iceberg {

// The newest table format version floe reads and writes.
inline constexpr int32_t kMaxFormatVersion = 3;
inline constexpr int32_t kDefaultFormatVersion = 2;
// Partition field ids start here (spec "Partition Specs").
inline constexpr int32_t kFirstPartitionFieldId = 1000;

// Table properties with a meaning to metadata handling (Java TableProperties).
inline constexpr std::string_view kPropertyFormatVersion = "format-version";
inline constexpr std::string_view kPropertyMetadataPath = "write.metadata.path";
inline constexpr std::string_view kPropertyMetadataCompression = "write.metadata.compression-codec";
inline constexpr std::string_view kPropertyPreviousVersionsMax =
    "write.metadata.previous-versions-max";
inline constexpr int32_t kPreviousVersionsMaxDefault = 100;

struct SnapshotLogEntry {
  int64_t timestamp_ms = 0;
  int64_t snapshot_id = 0;
  bool operator==(const SnapshotLogEntry&) const = default;
};

struct MetadataLogEntry {
  int64_t timestamp_ms = 0;
  std::string metadata_file;
  bool operator==(const MetadataLogEntry&) const = default;
};

struct BlobMetadata {
  std::string type;
  int64_t source_snapshot_id = 0;               // JSON "snapshot-id"
  int64_t source_snapshot_sequence_number = 0;  // JSON "sequence-number"
  std::vector<int32_t> fields;
  std::map<std::string, std::string> properties;
  bool operator==(const BlobMetadata&) const = default;
};

struct StatisticsFile {
  int64_t snapshot_id = 0;
  std::string path;  // JSON "statistics-path"
  int64_t file_size_in_bytes = 0;
  int64_t file_footer_size_in_bytes = 0;
  std::vector<BlobMetadata> blob_metadata;
  bool operator==(const StatisticsFile&) const = default;
};

struct PartitionStatisticsFile {
  int64_t snapshot_id = 0;
  std::string path;  // JSON "statistics-path"
  int64_t file_size_in_bytes = 0;
  bool operator==(const PartitionStatisticsFile&) const = default;
};

struct EncryptionKey {
  std::string key_id;
  std::string encrypted_key_metadata;  // raw bytes; base64 in JSON
  std::optional<std::string> encrypted_by_id;
  std::map<std::string, std::string> properties;
  bool operator==(const EncryptionKey&) const = default;
};

struct TableMetadata {
  int32_t format_version = kDefaultFormatVersion;
  // Optional in v1 only.
  std::optional<std::string> table_uuid;
  std::string location;
  int64_t last_sequence_number = 0;
  int64_t last_updated_ms = 0;
  int32_t last_column_id = 0;
  std::vector<Schema> schemas;
  int32_t current_schema_id = 0;
  std::vector<PartitionSpec> specs;
  int32_t default_spec_id = 0;
  int32_t last_partition_id = kFirstPartitionFieldId - 1;
  std::map<std::string, std::string> properties;
  std::optional<int64_t> current_snapshot_id;
  std::vector<Snapshot> snapshots;
  std::vector<SnapshotLogEntry> snapshot_log;
  std::vector<MetadataLogEntry> metadata_log;
  std::vector<SortOrder> sort_orders;
  int32_t default_sort_order_id = 0;
  std::map<std::string, SnapshotRef> refs;
  std::vector<StatisticsFile> statistics;
  std::vector<PartitionStatisticsFile> partition_statistics;
  int64_t next_row_id = 0;  // v3
  std::vector<EncryptionKey> encryption_keys;

  // Not part of the JSON: the file this metadata was read from or written to, which the
  // next version records in its metadata-log.
  std::string metadata_file_location;

  // Lookups; nullptr when absent.
  const Schema* current_schema() const { return schema_by_id(current_schema_id); }
  const Schema* schema_by_id(int32_t id) const;
  const PartitionSpec* spec_by_id(int32_t id) const;
  const PartitionSpec* default_spec() const { return spec_by_id(default_spec_id); }
  const SortOrder* sort_order_by_id(int32_t id) const;
  const SortOrder* default_sort_order() const { return sort_order_by_id(default_sort_order_id); }
  const Snapshot* snapshot_by_id(int64_t id) const;
  const Snapshot* current_snapshot() const;
  const SnapshotRef* ref(std::string_view name) const;
  // The snapshot a branch or tag points at, or nullptr.
  const Snapshot* SnapshotForRef(std::string_view name) const;
  // The snapshot that was current at `timestamp_ms`: the last snapshot-log entry at or
  // before it (spec: time travel uses the snapshot log, not lineage). nullptr if none.
  const Snapshot* SnapshotAsOf(int64_t timestamp_ms) const;
  // `snapshot_id` and its ancestors, newest first, stopping at the first parent that is no
  // longer in the metadata (expired). Empty when `snapshot_id` is unknown.
  std::vector<const Snapshot*> Ancestors(int64_t snapshot_id) const;
  // An integer property, or `default_value` when absent or not an integer.
  int64_t PropertyAsInt(std::string_view key, int64_t default_value) const;
};

using TableMetadataPtr = std::shared_ptr<const TableMetadata>;

// Parses metadata JSON. Strict per format version where the spec lets readers be strict,
// tolerant where it requires: v1 `schema` / `partition-spec` without the lists,
// `current-snapshot-id` -1 or null for none, `refs` absent -> main from the current
// snapshot, unknown members ignored. Errors: kUnimplemented for format-version > 3,
// kCorrupt for anything malformed or inconsistent (unknown current schema, spec, order or
// snapshot; refs to missing snapshots; main != current-snapshot-id). Never throws.
Result<TableMetadata> TableMetadataFromJson(std::string_view json_text);

// Serializes like Java's TableMetadataParser: its member order; v1 also writes `schema` and
// `partition-spec`; current-snapshot-id -1 for none in v1/v2, null in v3 (Java >= 1.9).
// Compact by default, as Java writes metadata files since 1.9 (apache/iceberg#12318);
// `pretty` gives the Jackson pretty layout older Java versions wrote.
std::string TableMetadataToJson(const TableMetadata& metadata, bool pretty = false);

// Reads a metadata file; `.gz.metadata.json` and `.metadata.json.gz` are gunzipped.
// Sets metadata_file_location to `location`.
Result<TableMetadata> ReadTableMetadata(io::FileIO& io, std::string_view location);
// Writes a metadata file (gzipped when the name says so). Fails with kAlreadyExists if the
// file exists: metadata files are never overwritten.
Status WriteTableMetadata(io::FileIO& io, std::string_view location, const TableMetadata& metadata);

// The version number of a metadata file name, Java's parseVersion: the digits before the
// first '-' of the file name ("00003-<uuid>.metadata.json" -> 3); nullopt if none.
std::optional<int32_t> ParseMetadataFileVersion(std::string_view location);

// The location of the next metadata file for `metadata` (Java
// BaseMetastoreTableOperations.newTableMetadataFilePath):
// `<dir>/<NNNNN>-<uuid>.metadata.json` where dir is `write.metadata.path` or
// `<location>/metadata`, NNNNN is `version` zero-padded to 5 digits, and the extension is
// `.gz.metadata.json` when `write.metadata.compression-codec` is gzip.
std::string NewMetadataLocation(const TableMetadata& metadata, int32_t version,
                                std::string_view uuid);
// The version for the file after `previous_location` (its version + 1; 0 for none or a
// name without a version).
int32_t NextMetadataVersion(std::string_view previous_location);

}  // namespace floe::iceberg
