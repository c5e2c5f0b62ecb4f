#include "floe/iceberg/table_update.h"

#include <algorithm>
#include <cctype>
#include <type_traits>

#include <nlohmann/json.hpp>

#include "floe/base/json.h"
#include "floe/base/macros.h"
#include "floe/iceberg/java_json.h"
#include "floe/iceberg/metadata_json.h"
#include "floe/iceberg/ojson_util.h"

namespace floe::iceberg {

template <class... Ts>
struct Overloaded : Ts... {
  using Ts::operator()...;
};
template <class... Ts>
Overloaded(Ts...) -> Overloaded<Ts...>;

namespace {

std::string Lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return s;
}

bool EqualsIgnoreCase(std::string_view a, std::string_view b) {
  return a.size() == b.size() && Lower(std::string(a)) == Lower(std::string(b));
}

}  // namespace

std::string_view RequirementType(const TableRequirement& r) {
  return std::visit(
      Overloaded{
          [](const requirement::AssertCreate&) { return "assert-create"; },
          [](const requirement::AssertTableUuid&) { return "assert-table-uuid"; },
          [](const requirement::AssertRefSnapshotId&) { return "assert-ref-snapshot-id"; },
          [](const requirement::AssertLastAssignedFieldId&) {
            return "assert-last-assigned-field-id";
          },
          [](const requirement::AssertCurrentSchemaId&) { return "assert-current-schema-id"; },
          [](const requirement::AssertLastAssignedPartitionId&) {
            return "assert-last-assigned-partition-id";
          },
          [](const requirement::AssertDefaultSpecId&) { return "assert-default-spec-id"; },
          [](const requirement::AssertDefaultSortOrderId&) {
            return "assert-default-sort-order-id";
          },
      },
      r);
}

Result<TableRequirement> TableRequirementFromJson(const OJson& json) {
  if (!json.is_object()) return Status::InvalidArgument("requirement must be a JSON object");
  FLOE_ASSIGN_OR_RETURN(std::string type_raw, ojson::GetString(json, "type"));
  std::string type = Lower(type_raw);
  if (type == "assert-create") return requirement::AssertCreate{};
  if (type == "assert-table-uuid") {
    FLOE_ASSIGN_OR_RETURN(std::string uuid, ojson::GetString(json, "uuid"));
    return requirement::AssertTableUuid{std::move(uuid)};
  }
  if (type == "assert-ref-snapshot-id") {
    requirement::AssertRefSnapshotId r;
    FLOE_ASSIGN_OR_RETURN(r.ref, ojson::GetString(json, "ref"));
    FLOE_ASSIGN_OR_RETURN(r.snapshot_id, ojson::OptLong(json, "snapshot-id"));
    return r;
  }
  if (type == "assert-last-assigned-field-id") {
    FLOE_ASSIGN_OR_RETURN(int32_t id, ojson::GetInt(json, "last-assigned-field-id"));
    return requirement::AssertLastAssignedFieldId{id};
  }
  if (type == "assert-current-schema-id") {
    FLOE_ASSIGN_OR_RETURN(int32_t id, ojson::GetInt(json, "current-schema-id"));
    return requirement::AssertCurrentSchemaId{id};
  }
  if (type == "assert-last-assigned-partition-id") {
    FLOE_ASSIGN_OR_RETURN(int32_t id, ojson::GetInt(json, "last-assigned-partition-id"));
    return requirement::AssertLastAssignedPartitionId{id};
  }
  if (type == "assert-default-spec-id") {
    FLOE_ASSIGN_OR_RETURN(int32_t id, ojson::GetInt(json, "default-spec-id"));
    return requirement::AssertDefaultSpecId{id};
  }
  if (type == "assert-default-sort-order-id") {
    FLOE_ASSIGN_OR_RETURN(int32_t id, ojson::GetInt(json, "default-sort-order-id"));
    return requirement::AssertDefaultSortOrderId{id};
  }
  return Status::InvalidArgument("unknown table requirement type '{}'", type_raw);
}

OJson TableRequirementToJson(const TableRequirement& r) {
  OJson j = OJson::object();
  j["type"] = std::string(RequirementType(r));
  std::visit(Overloaded{
                 [](const requirement::AssertCreate&) {},
                 [&](const requirement::AssertTableUuid& x) { j["uuid"] = x.uuid; },
                 [&](const requirement::AssertRefSnapshotId& x) {
                   j["ref"] = x.ref;
                   j["snapshot-id"] = x.snapshot_id ? OJson(*x.snapshot_id) : OJson(nullptr);
                 },
                 [&](const requirement::AssertLastAssignedFieldId& x) {
                   j["last-assigned-field-id"] = x.last_assigned_field_id;
                 },
                 [&](const requirement::AssertCurrentSchemaId& x) {
                   j["current-schema-id"] = x.current_schema_id;
                 },
                 [&](const requirement::AssertLastAssignedPartitionId& x) {
                   j["last-assigned-partition-id"] = x.last_assigned_partition_id;
                 },
                 [&](const requirement::AssertDefaultSpecId& x) {
                   j["default-spec-id"] = x.default_spec_id;
                 },
                 [&](const requirement::AssertDefaultSortOrderId& x) {
                   j["default-sort-order-id"] = x.default_sort_order_id;
                 },
             },
             r);
  return j;
}

Status Validate(const TableRequirement& r, const TableMetadata* base) {
  auto missing = [] { return Status::Conflict("Requirement failed: table does not exist"); };
  return std::visit(
      Overloaded{
          [&](const requirement::AssertCreate&) -> Status {
            if (base != nullptr)
              return Status::Conflict("Requirement failed: table already exists");
            return Status::OK();
          },
          [&](const requirement::AssertTableUuid& x) -> Status {
            if (base == nullptr) return missing();
            if (!base->table_uuid || !EqualsIgnoreCase(x.uuid, *base->table_uuid)) {
              return Status::Conflict("Requirement failed: UUID does not match: expected {} != {}",
                                      base->table_uuid.value_or("null"), x.uuid);
            }
            return Status::OK();
          },
          [&](const requirement::AssertRefSnapshotId& x) -> Status {
            if (base == nullptr) return missing();
            const SnapshotRef* ref = base->ref(x.ref);
            if (ref != nullptr) {
              std::string_view type = ref->is_branch() ? "branch" : "tag";
              if (!x.snapshot_id) {
                return Status::Conflict("Requirement failed: {} {} was created concurrently", type,
                                        x.ref);
              }
              if (*x.snapshot_id != ref->snapshot_id) {
                return Status::Conflict(
                    "Requirement failed: {} {} has changed: expected id {} != {}", type, x.ref,
                    *x.snapshot_id, ref->snapshot_id);
              }
            } else if (x.snapshot_id) {
              return Status::Conflict(
                  "Requirement failed: branch or tag {} is missing, expected {}", x.ref,
                  *x.snapshot_id);
            }
            return Status::OK();
          },
          [&](const requirement::AssertLastAssignedFieldId& x) -> Status {
            if (base != nullptr && base->last_column_id != x.last_assigned_field_id) {
              return Status::Conflict(
                  "Requirement failed: last assigned field id changed: expected id {} != {}",
                  x.last_assigned_field_id, base->last_column_id);
            }
            return Status::OK();
          },
          [&](const requirement::AssertCurrentSchemaId& x) -> Status {
            if (base == nullptr) return missing();
            if (base->current_schema_id != x.current_schema_id) {
              return Status::Conflict(
                  "Requirement failed: current schema changed: expected id {} != {}",
                  x.current_schema_id, base->current_schema_id);
            }
            return Status::OK();
          },
          [&](const requirement::AssertLastAssignedPartitionId& x) -> Status {
            if (base != nullptr && base->last_partition_id != x.last_assigned_partition_id) {
              return Status::Conflict(
                  "Requirement failed: last assigned partition id changed: expected id {} != {}",
                  x.last_assigned_partition_id, base->last_partition_id);
            }
            return Status::OK();
          },
          [&](const requirement::AssertDefaultSpecId& x) -> Status {
            if (base == nullptr) return missing();
            if (base->default_spec_id != x.default_spec_id) {
              return Status::Conflict(
                  "Requirement failed: default partition spec changed: expected id {} != {}",
                  x.default_spec_id, base->default_spec_id);
            }
            return Status::OK();
          },
          [&](const requirement::AssertDefaultSortOrderId& x) -> Status {
            if (base == nullptr) return missing();
            if (base->default_sort_order_id != x.default_sort_order_id) {
              return Status::Conflict(
                  "Requirement failed: default sort order changed: expected id {} != {}",
                  x.default_sort_order_id, base->default_sort_order_id);
            }
            return Status::OK();
          },
      },
      r);
}

std::string_view UpdateAction(const TableUpdate& u) {
  return std::visit(
      Overloaded{
          [](const update::AssignUuid&) { return "assign-uuid"; },
          [](const update::UpgradeFormatVersion&) { return "upgrade-format-version"; },
          [](const update::AddSchema&) { return "add-schema"; },
          [](const update::SetCurrentSchema&) { return "set-current-schema"; },
          [](const update::AddSpec&) { return "add-spec"; },
          [](const update::SetDefaultSpec&) { return "set-default-spec"; },
          [](const update::AddSortOrder&) { return "add-sort-order"; },
          [](const update::SetDefaultSortOrder&) { return "set-default-sort-order"; },
          [](const update::AddSnapshot&) { return "add-snapshot"; },
          [](const update::SetSnapshotRef&) { return "set-snapshot-ref"; },
          [](const update::RemoveSnapshots&) { return "remove-snapshots"; },
          [](const update::RemoveSnapshotRef&) { return "remove-snapshot-ref"; },
          [](const update::SetLocation&) { return "set-location"; },
          [](const update::SetProperties&) { return "set-properties"; },
          [](const update::RemoveProperties&) { return "remove-properties"; },
          [](const update::SetStatistics&) { return "set-statistics"; },
          [](const update::RemoveStatistics&) { return "remove-statistics"; },
          [](const update::SetPartitionStatistics&) { return "set-partition-statistics"; },
          [](const update::RemovePartitionStatistics&) { return "remove-partition-statistics"; },
          [](const update::RemovePartitionSpecs&) { return "remove-partition-specs"; },
          [](const update::RemoveSchemas&) { return "remove-schemas"; },
          [](const update::AddEncryptionKey&) { return "add-encryption-key"; },
          [](const update::RemoveEncryptionKey&) { return "remove-encryption-key"; },
      },
      u);
}

namespace {

// Java reads the legacy member name when the spec's is absent (MetadataUpdateParser).
const char* PickName(const OJson& json, const char* spec_name, const char* legacy_name) {
  return json.contains(spec_name) || !json.contains(legacy_name) ? spec_name : legacy_name;
}

}  // namespace

Result<TableUpdate> TableUpdateFromJson(const OJson& json) {
  if (!json.is_object()) return Status::InvalidArgument("update must be a JSON object");
  FLOE_ASSIGN_OR_RETURN(std::string action_raw, ojson::GetString(json, "action"));
  std::string action = Lower(action_raw);
  if (action == "assign-uuid") {
    FLOE_ASSIGN_OR_RETURN(std::string uuid, ojson::GetString(json, "uuid"));
    return update::AssignUuid{std::move(uuid)};
  }
  if (action == "upgrade-format-version") {
    FLOE_ASSIGN_OR_RETURN(int32_t v, ojson::GetInt(json, "format-version"));
    return update::UpgradeFormatVersion{v};
  }
  if (action == "add-schema") {
    FLOE_ASSIGN_OR_RETURN(const OJson* s, ojson::Get(json, "schema"));
    FLOE_ASSIGN_OR_RETURN(Schema schema, ParseSchema(*s));
    return update::AddSchema{std::move(schema)};
  }
  if (action == "set-current-schema") {
    FLOE_ASSIGN_OR_RETURN(int32_t id, ojson::GetInt(json, "schema-id"));
    return update::SetCurrentSchema{id};
  }
  if (action == "add-spec") {
    FLOE_ASSIGN_OR_RETURN(const OJson* s, ojson::Get(json, "spec"));
    // The REST spec makes "spec-id" optional in an added spec; the builder assigns it.
    OJson spec = *s;
    if (spec.is_object() && !spec.contains("spec-id")) spec["spec-id"] = 0;
    FLOE_ASSIGN_OR_RETURN(PartitionSpec parsed, ParseSpec(spec));
    return update::AddSpec{std::move(parsed)};
  }
  if (action == "set-default-spec") {
    FLOE_ASSIGN_OR_RETURN(int32_t id, ojson::GetInt(json, "spec-id"));
    return update::SetDefaultSpec{id};
  }
  if (action == "add-sort-order") {
    FLOE_ASSIGN_OR_RETURN(const OJson* o, ojson::Get(json, "sort-order"));
    FLOE_ASSIGN_OR_RETURN(SortOrder order, ParseSortOrder(*o));
    return update::AddSortOrder{std::move(order)};
  }
  if (action == "set-default-sort-order") {
    FLOE_ASSIGN_OR_RETURN(int32_t id, ojson::GetInt(json, "sort-order-id"));
    return update::SetDefaultSortOrder{id};
  }
  if (action == "add-snapshot") {
    FLOE_ASSIGN_OR_RETURN(const OJson* s, ojson::Get(json, "snapshot"));
    FLOE_ASSIGN_OR_RETURN(Snapshot snapshot, SnapshotFromJson(*s));
    return update::AddSnapshot{std::move(snapshot)};
  }
  if (action == "set-snapshot-ref") {
    update::SetSnapshotRef u;
    FLOE_ASSIGN_OR_RETURN(u.ref_name, ojson::GetString(json, "ref-name"));
    FLOE_ASSIGN_OR_RETURN(u.ref, SnapshotRefFromJson(json));
    return u;
  }
  if (action == "remove-snapshots") {
    FLOE_ASSIGN_OR_RETURN(auto ids, ojson::GetLongList(json, "snapshot-ids"));
    return update::RemoveSnapshots{std::move(ids)};
  }
  if (action == "remove-snapshot-ref") {
    FLOE_ASSIGN_OR_RETURN(std::string name, ojson::GetString(json, "ref-name"));
    return update::RemoveSnapshotRef{std::move(name)};
  }
  if (action == "set-location") {
    FLOE_ASSIGN_OR_RETURN(std::string location, ojson::GetString(json, "location"));
    return update::SetLocation{std::move(location)};
  }
  if (action == "set-properties") {
    const char* name = PickName(json, "updates", "updated");
    FLOE_RETURN_IF_ERROR(ojson::Get(json, name));
    FLOE_ASSIGN_OR_RETURN(auto updates, ojson::GetStringMap(json, name));
    return update::SetProperties{std::move(updates)};
  }
  if (action == "remove-properties") {
    const char* name = PickName(json, "removals", "removed");
    FLOE_ASSIGN_OR_RETURN(auto removals, ojson::GetStringList(json, name));
    return update::RemoveProperties{std::move(removals)};
  }
  if (action == "set-statistics") {
    FLOE_ASSIGN_OR_RETURN(const OJson* s, ojson::Get(json, "statistics"));
    FLOE_ASSIGN_OR_RETURN(StatisticsFile f, StatisticsFileFromJson(*s));
    return update::SetStatistics{std::move(f)};
  }
  if (action == "remove-statistics") {
    FLOE_ASSIGN_OR_RETURN(int64_t id, ojson::GetLong(json, "snapshot-id"));
    return update::RemoveStatistics{id};
  }
  if (action == "set-partition-statistics") {
    FLOE_ASSIGN_OR_RETURN(const OJson* s, ojson::Get(json, "partition-statistics"));
    FLOE_ASSIGN_OR_RETURN(PartitionStatisticsFile f, PartitionStatisticsFileFromJson(*s));
    return update::SetPartitionStatistics{std::move(f)};
  }
  if (action == "remove-partition-statistics") {
    FLOE_ASSIGN_OR_RETURN(int64_t id, ojson::GetLong(json, "snapshot-id"));
    return update::RemovePartitionStatistics{id};
  }
  if (action == "remove-partition-specs") {
    FLOE_ASSIGN_OR_RETURN(auto ids, ojson::GetIntList(json, "spec-ids"));
    return update::RemovePartitionSpecs{std::move(ids)};
  }
  if (action == "remove-schemas") {
    FLOE_ASSIGN_OR_RETURN(auto ids, ojson::GetIntList(json, "schema-ids"));
    return update::RemoveSchemas{std::move(ids)};
  }
  if (action == "add-encryption-key") {
    FLOE_ASSIGN_OR_RETURN(const OJson* k, ojson::Get(json, "encryption-key"));
    FLOE_ASSIGN_OR_RETURN(EncryptionKey key, EncryptionKeyFromJson(*k));
    return update::AddEncryptionKey{std::move(key)};
  }
  if (action == "remove-encryption-key") {
    FLOE_ASSIGN_OR_RETURN(std::string id, ojson::GetString(json, "key-id"));
    return update::RemoveEncryptionKey{std::move(id)};
  }
  return Status::InvalidArgument("unknown table update action '{}'", action_raw);
}

OJson TableUpdateToJson(const TableUpdate& u) {
  OJson j = OJson::object();
  j["action"] = std::string(UpdateAction(u));
  std::visit(
      Overloaded{
          [&](const update::AssignUuid& x) { j["uuid"] = x.uuid; },
          [&](const update::UpgradeFormatVersion& x) { j["format-version"] = x.format_version; },
          [&](const update::AddSchema& x) {
            j["schema"] = SchemaJson(x.schema);
            j["last-column-id"] = x.schema.highest_field_id();
          },
          [&](const update::SetCurrentSchema& x) { j["schema-id"] = x.schema_id; },
          [&](const update::AddSpec& x) { j["spec"] = SpecJson(x.spec); },
          [&](const update::SetDefaultSpec& x) { j["spec-id"] = x.spec_id; },
          [&](const update::AddSortOrder& x) { j["sort-order"] = SortOrderJson(x.sort_order); },
          [&](const update::SetDefaultSortOrder& x) { j["sort-order-id"] = x.sort_order_id; },
          [&](const update::AddSnapshot& x) { j["snapshot"] = SnapshotToJson(x.snapshot); },
          [&](const update::SetSnapshotRef& x) {
            j["ref-name"] = x.ref_name;
            OJson ref = SnapshotRefToJson(x.ref);
            for (auto& [k, v] : ref.items()) j[k] = v;
          },
          [&](const update::RemoveSnapshots& x) { j["snapshot-ids"] = x.snapshot_ids; },
          [&](const update::RemoveSnapshotRef& x) { j["ref-name"] = x.ref_name; },
          [&](const update::SetLocation& x) { j["location"] = x.location; },
          [&](const update::SetProperties& x) { j["updates"] = ojson::StringMapToJson(x.updates); },
          [&](const update::RemoveProperties& x) { j["removals"] = x.removals; },
          [&](const update::SetStatistics& x) {
            j["snapshot-id"] = x.statistics.snapshot_id;  // deprecated, still written by Java
            j["statistics"] = StatisticsFileToJson(x.statistics);
          },
          [&](const update::RemoveStatistics& x) { j["snapshot-id"] = x.snapshot_id; },
          [&](const update::SetPartitionStatistics& x) {
            j["partition-statistics"] = PartitionStatisticsFileToJson(x.partition_statistics);
          },
          [&](const update::RemovePartitionStatistics& x) { j["snapshot-id"] = x.snapshot_id; },
          [&](const update::RemovePartitionSpecs& x) { j["spec-ids"] = x.spec_ids; },
          [&](const update::RemoveSchemas& x) { j["schema-ids"] = x.schema_ids; },
          [&](const update::AddEncryptionKey& x) {
            j["encryption-key"] = EncryptionKeyToJson(x.key);
          },
          [&](const update::RemoveEncryptionKey& x) { j["key-id"] = x.key_id; },
      },
      u);
  return j;
}

Result<CommitTableRequest> CommitTableRequestFromJson(std::string_view json_text) {
  FLOE_ASSIGN_OR_RETURN(OJson json,
                        ojson::Parse(json_text, "commit request", kDefaultMaxJsonDepth));
  if (!json.is_object()) return Status::InvalidArgument("commit request must be a JSON object");
  CommitTableRequest req;
  FLOE_ASSIGN_OR_RETURN(const OJson* requirements, ojson::Get(json, "requirements"));
  FLOE_RETURN_IF_ERROR(ojson::AsArray(*requirements, "requirements"));
  for (const OJson& r : *requirements) {
    FLOE_ASSIGN_OR_RETURN(TableRequirement parsed, TableRequirementFromJson(r));
    req.requirements.push_back(std::move(parsed));
  }
  FLOE_ASSIGN_OR_RETURN(const OJson* updates, ojson::Get(json, "updates"));
  FLOE_RETURN_IF_ERROR(ojson::AsArray(*updates, "updates"));
  for (const OJson& u : *updates) {
    FLOE_ASSIGN_OR_RETURN(TableUpdate parsed, TableUpdateFromJson(u));
    req.updates.push_back(std::move(parsed));
  }
  return req;
}

std::string CommitTableRequestToJson(const CommitTableRequest& request) {
  OJson j = OJson::object();
  OJson requirements = OJson::array();
  for (const auto& r : request.requirements) requirements.push_back(TableRequirementToJson(r));
  j["requirements"] = std::move(requirements);
  OJson updates = OJson::array();
  for (const auto& u : request.updates) updates.push_back(TableUpdateToJson(u));
  j["updates"] = std::move(updates);
  return ToJavaJson(j, /*pretty=*/false);
}

}  // namespace floe::iceberg
