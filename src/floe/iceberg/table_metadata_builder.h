// TableMetadataBuilder: applies table updates to metadata with the semantics of Java's
// TableMetadata.Builder (the reference REST server's commit path), and creates new tables
// like TableMetadata.newTableMetadata.
//
// Errors: kInvalidArgument where Java throws ValidationException / IllegalArgumentException
// (REST 400); kConflict where Java throws RetryableValidationException (stale sequence
// number or first-row-id: REST 409, the client retries on fresh metadata).
// Not thread-safe; the built metadata is immutable and shareable.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "floe/base/status.h"
#include "floe/iceberg/table_metadata.h"
#include "floe/iceberg/table_update.h"

namespace floe::iceberg {

class TableMetadataBuilder {
 public:
  // Starts a new table (REST staged create / create): format `format_version`, the given
  // uuid, nothing else. REQUIRES: 1 <= format_version <= kMaxFormatVersion (checked by Build).
  static TableMetadataBuilder FromEmpty(int32_t format_version, std::string uuid);
  // Starts from existing metadata; its metadata_file_location goes into the new
  // metadata-log when Build() produces a new version.
  static TableMetadataBuilder From(TableMetadataPtr base);

  // Creates a table like Java's TableMetadata.newTableMetadata: fresh column ids (1..n),
  // spec fields rebound to the fresh schema with ids from 1000, sort order rebound (id 1, or
  // 0 when unsorted), `format-version` taken from `properties` (default 2) and not stored,
  // other reserved properties dropped, and write.parquet.compression-codec=zstd added as
  // Java does for new tables. kInvalidArgument for unknown source columns or bad versions.
  static Result<TableMetadata> NewTable(const Schema& schema, const PartitionSpec& spec,
                                        const SortOrder& sort_order, std::string location,
                                        std::map<std::string, std::string> properties,
                                        std::string uuid, int64_t now_ms);
  // The create of `metadata` as REST updates, as Java's RESTSessionCatalog sends them for a
  // staged create: AssignUuid, UpgradeFormatVersion, AddSchema, SetCurrentSchema(-1),
  // AddSpec, SetDefaultSpec(-1), AddSortOrder, SetDefaultSortOrder(-1), SetLocation,
  // SetProperties. Applying them with ApplyCreate gives the same table.
  static std::vector<TableUpdate> CreateUpdates(const TableMetadata& metadata);
  // Builds a new table from create updates (Java CatalogHandlers.create): the format
  // version is the first UpgradeFormatVersion's (default 2).
  static Result<TableMetadata> ApplyCreate(const std::vector<TableUpdate>& updates,
                                           std::string uuid, int64_t now_ms);

  Status Apply(const TableUpdate& update);
  Status ApplyAll(const std::vector<TableUpdate>& updates);

  Status AssignUuid(const std::string& uuid);
  Status UpgradeFormatVersion(int32_t format_version);
  Status AddSchema(const Schema& schema);
  Status SetCurrentSchema(int32_t schema_id);
  Status AddSpec(const PartitionSpec& spec);
  Status SetDefaultSpec(int32_t spec_id);
  Status AddSortOrder(const SortOrder& order);
  Status SetDefaultSortOrder(int32_t order_id);
  // Adds a snapshot without making it current (set a ref for that).
  Status AddSnapshot(const Snapshot& snapshot);
  Status SetRef(const std::string& name, const SnapshotRef& ref);
  Status RemoveRef(const std::string& name);
  Status RemoveSnapshots(const std::vector<int64_t>& snapshot_ids);
  Status SetLocation(const std::string& location);
  Status SetProperties(const std::map<std::string, std::string>& updates);
  Status RemoveProperties(const std::vector<std::string>& removals);
  Status SetStatistics(const StatisticsFile& file);
  Status RemoveStatistics(int64_t snapshot_id);
  Status SetPartitionStatistics(const PartitionStatisticsFile& file);
  Status RemovePartitionStatistics(int64_t snapshot_id);
  Status RemoveSpecs(const std::vector<int32_t>& spec_ids);
  Status RemoveSchemas(const std::vector<int32_t>& schema_ids);
  Status AddEncryptionKey(const EncryptionKey& key);
  Status RemoveEncryptionKey(const std::string& key_id);

  // The effective changes so far (no-ops left out; ids of just-added objects as -1).
  const std::vector<TableUpdate>& changes() const { return changes_; }
  bool has_changes() const { return !changes_.empty(); }

  // Produces the new metadata with last-updated-ms = now_ms; the metadata-log gains the
  // base's file (trimmed to write.metadata.previous-versions-max, default 100) and the
  // snapshot-log drops intermediate and removed snapshots like Java. Without changes the
  // base is returned unchanged. kInvalidArgument if the result is not a valid table (no
  // current schema, default spec or sort order; unsupported format version).
  Result<TableMetadataPtr> Build(int64_t now_ms);

 private:
  TableMetadataBuilder() = default;
  bool IsAddedSnapshot(int64_t snapshot_id) const;

  TableMetadataPtr base_;
  TableMetadata md_;
  std::vector<TableUpdate> changes_;
  std::optional<int32_t> last_added_schema_id_;
  std::optional<int32_t> last_added_spec_id_;
  std::optional<int32_t> last_added_order_id_;
  // Snapshot-log entries whose time is the commit time (rollbacks), filled in by Build.
  std::set<size_t> log_entries_at_commit_time_;
};

}  // namespace floe::iceberg
