// Table requirements and updates: the commit model of the Iceberg REST catalog
// (`CommitTableRequest`, open-api/rest-catalog-open-api.yaml), shared by REST commits and
// floe's own table operations. JSON follows the OpenAPI spec; members are written in the
// order Java's UpdateRequirementParser / MetadataUpdateParser write them.
//
// Parsing untrusted JSON never throws: malformed input and unknown `type` / `action`
// values are kInvalidArgument (the REST server answers 400).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "floe/base/status.h"
#include "floe/iceberg/table_metadata.h"

namespace floe::iceberg {

namespace requirement {
struct AssertCreate {
  bool operator==(const AssertCreate&) const = default;
};
struct AssertTableUuid {
  std::string uuid;
  bool operator==(const AssertTableUuid&) const = default;
};
// snapshot_id nullopt: the ref must not exist.
struct AssertRefSnapshotId {
  std::string ref;
  std::optional<int64_t> snapshot_id;
  bool operator==(const AssertRefSnapshotId&) const = default;
};
struct AssertLastAssignedFieldId {
  int32_t last_assigned_field_id = 0;
  bool operator==(const AssertLastAssignedFieldId&) const = default;
};
struct AssertCurrentSchemaId {
  int32_t current_schema_id = 0;
  bool operator==(const AssertCurrentSchemaId&) const = default;
};
struct AssertLastAssignedPartitionId {
  int32_t last_assigned_partition_id = 0;
  bool operator==(const AssertLastAssignedPartitionId&) const = default;
};
struct AssertDefaultSpecId {
  int32_t default_spec_id = 0;
  bool operator==(const AssertDefaultSpecId&) const = default;
};
struct AssertDefaultSortOrderId {
  int32_t default_sort_order_id = 0;
  bool operator==(const AssertDefaultSortOrderId&) const = default;
};
}  // namespace requirement

using TableRequirement =
    std::variant<requirement::AssertCreate, requirement::AssertTableUuid,
                 requirement::AssertRefSnapshotId, requirement::AssertLastAssignedFieldId,
                 requirement::AssertCurrentSchemaId, requirement::AssertLastAssignedPartitionId,
                 requirement::AssertDefaultSpecId, requirement::AssertDefaultSortOrderId>;

namespace update {
// Ids of -1 in Set* updates mean "the one added last in this commit".
inline constexpr int32_t kLastAdded = -1;

struct AssignUuid {
  std::string uuid;
};
struct UpgradeFormatVersion {
  int32_t format_version = 0;
};
// JSON also carries the deprecated `last-column-id` (written as the schema's highest field
// id, ignored on read, as Java does).
struct AddSchema {
  Schema schema;
};
struct SetCurrentSchema {
  int32_t schema_id = kLastAdded;
};
struct AddSpec {
  PartitionSpec spec;
};
struct SetDefaultSpec {
  int32_t spec_id = kLastAdded;
};
struct AddSortOrder {
  SortOrder sort_order;
};
struct SetDefaultSortOrder {
  int32_t sort_order_id = kLastAdded;
};
struct AddSnapshot {
  Snapshot snapshot;
};
struct SetSnapshotRef {
  std::string ref_name;
  SnapshotRef ref;
};
struct RemoveSnapshots {
  std::vector<int64_t> snapshot_ids;
};
struct RemoveSnapshotRef {
  std::string ref_name;
};
struct SetLocation {
  std::string location;
};
struct SetProperties {
  std::map<std::string, std::string> updates;
};
struct RemoveProperties {
  std::vector<std::string> removals;
};
struct SetStatistics {
  StatisticsFile statistics;
};
struct RemoveStatistics {
  int64_t snapshot_id = 0;
};
struct SetPartitionStatistics {
  PartitionStatisticsFile partition_statistics;
};
struct RemovePartitionStatistics {
  int64_t snapshot_id = 0;
};
struct RemovePartitionSpecs {
  std::vector<int32_t> spec_ids;
};
struct RemoveSchemas {
  std::vector<int32_t> schema_ids;
};
struct AddEncryptionKey {
  EncryptionKey key;
};
struct RemoveEncryptionKey {
  std::string key_id;
};
}  // namespace update

using TableUpdate =
    std::variant<update::AssignUuid, update::UpgradeFormatVersion, update::AddSchema,
                 update::SetCurrentSchema, update::AddSpec, update::SetDefaultSpec,
                 update::AddSortOrder, update::SetDefaultSortOrder, update::AddSnapshot,
                 update::SetSnapshotRef, update::RemoveSnapshots, update::RemoveSnapshotRef,
                 update::SetLocation, update::SetProperties, update::RemoveProperties,
                 update::SetStatistics, update::RemoveStatistics, update::SetPartitionStatistics,
                 update::RemovePartitionStatistics, update::RemovePartitionSpecs,
                 update::RemoveSchemas, update::AddEncryptionKey, update::RemoveEncryptionKey>;

// The `type` of a requirement / the `action` of an update ("assert-create", "add-schema").
std::string_view RequirementType(const TableRequirement& requirement);
std::string_view UpdateAction(const TableUpdate& update);

Result<TableRequirement> TableRequirementFromJson(const nlohmann::ordered_json& json);
nlohmann::ordered_json TableRequirementToJson(const TableRequirement& requirement);
Result<TableUpdate> TableUpdateFromJson(const nlohmann::ordered_json& json);
nlohmann::ordered_json TableUpdateToJson(const TableUpdate& update);

// A REST `CommitTableRequest` body (the identifier is not needed here and ignored).
struct CommitTableRequest {
  std::vector<TableRequirement> requirements;
  std::vector<TableUpdate> updates;
};
Result<CommitTableRequest> CommitTableRequestFromJson(std::string_view json_text);
std::string CommitTableRequestToJson(const CommitTableRequest& request);

// Checks one requirement against the table's current metadata (`base` null: the table does
// not exist). kConflict with Java's message ("Requirement failed: current schema changed:
// expected id 1 != 2") when it does not hold.
Status Validate(const TableRequirement& requirement, const TableMetadata* base);

}  // namespace floe::iceberg
