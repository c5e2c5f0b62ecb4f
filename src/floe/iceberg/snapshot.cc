#include "floe/iceberg/snapshot.h"

#include <algorithm>
#include <cctype>

#include "floe/base/macros.h"
#include "floe/iceberg/ojson_util.h"

namespace floe::iceberg {

using ojson::OJson;

const std::string* Snapshot::SummaryValue(std::string_view key) const {
  if (key == "operation") return operation.empty() ? nullptr : &operation;
  for (const auto& [k, v] : summary) {
    if (k == key) return &v;
  }
  return nullptr;
}

std::string_view SnapshotRefTypeName(SnapshotRefType type) {
  return type == SnapshotRefType::kBranch ? "branch" : "tag";
}

Result<SnapshotRefType> ParseSnapshotRefType(std::string_view name) {
  std::string lower(name);
  std::transform(lower.begin(), lower.end(), lower.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  if (lower == "branch") return SnapshotRefType::kBranch;
  if (lower == "tag") return SnapshotRefType::kTag;
  return Status::InvalidArgument("invalid snapshot reference type '{}'", name);
}

Status ValidateSnapshotRef(const SnapshotRef& ref) {
  if (ref.type == SnapshotRefType::kTag) {
    if (ref.min_snapshots_to_keep) {
      return Status::InvalidArgument("Tags do not support setting minSnapshotsToKeep");
    }
    if (ref.max_snapshot_age_ms) {
      return Status::InvalidArgument("Tags do not support setting maxSnapshotAgeMs");
    }
  }
  if (ref.min_snapshots_to_keep && *ref.min_snapshots_to_keep <= 0) {
    return Status::InvalidArgument("Min snapshots to keep must be greater than 0");
  }
  if (ref.max_snapshot_age_ms && *ref.max_snapshot_age_ms <= 0) {
    return Status::InvalidArgument("Max snapshot age must be greater than 0 ms");
  }
  if (ref.max_ref_age_ms && *ref.max_ref_age_ms <= 0) {
    return Status::InvalidArgument("Max reference age must be greater than 0");
  }
  return Status::OK();
}

Result<Snapshot> SnapshotFromJson(const OJson& json) {
  if (!json.is_object()) return Status::InvalidArgument("snapshot must be a JSON object");
  Snapshot s;
  FLOE_ASSIGN_OR_RETURN(auto seq, ojson::OptLong(json, "sequence-number"));
  s.sequence_number = seq.value_or(0);
  FLOE_ASSIGN_OR_RETURN(s.snapshot_id, ojson::GetLong(json, "snapshot-id"));
  FLOE_ASSIGN_OR_RETURN(s.parent_snapshot_id, ojson::OptLong(json, "parent-snapshot-id"));
  FLOE_ASSIGN_OR_RETURN(s.timestamp_ms, ojson::GetLong(json, "timestamp-ms"));
  if (const OJson* summary = ojson::Find(json, "summary")) {
    if (!summary->is_object()) return Status::InvalidArgument("'summary' must be an object");
    for (const auto& [k, v] : summary->items()) {
      if (!v.is_string()) {
        return Status::InvalidArgument("summary value for '{}' must be a string", k);
      }
      if (k == "operation") {
        s.operation = v.get_ref<const std::string&>();
      } else {
        s.summary.emplace_back(k, v.get_ref<const std::string&>());
      }
    }
    // Java: a non-empty summary without an operation reads as an overwrite.
    if (s.operation.empty() && !summary->empty()) s.operation = kOperationOverwrite;
  }
  FLOE_ASSIGN_OR_RETURN(s.schema_id, ojson::OptInt(json, "schema-id"));
  FLOE_ASSIGN_OR_RETURN(s.first_row_id, ojson::OptLong(json, "first-row-id"));
  FLOE_ASSIGN_OR_RETURN(s.added_rows, ojson::OptLong(json, "added-rows"));
  FLOE_ASSIGN_OR_RETURN(s.key_id, ojson::OptString(json, "key-id"));
  if (ojson::Find(json, "manifest-list") != nullptr) {
    FLOE_ASSIGN_OR_RETURN(s.manifest_list, ojson::GetString(json, "manifest-list"));
  } else {
    FLOE_ASSIGN_OR_RETURN(s.v1_manifests, ojson::GetStringList(json, "manifests"));
  }
  return s;
}

OJson SnapshotToJson(const Snapshot& s) {
  OJson j = OJson::object();
  if (s.sequence_number > 0) j["sequence-number"] = s.sequence_number;
  j["snapshot-id"] = s.snapshot_id;
  if (s.parent_snapshot_id) j["parent-snapshot-id"] = *s.parent_snapshot_id;
  j["timestamp-ms"] = s.timestamp_ms;
  if (!s.operation.empty()) {
    OJson summary = OJson::object();
    summary["operation"] = s.operation;
    for (const auto& [k, v] : s.summary) {
      if (k != "operation") summary[k] = v;
    }
    j["summary"] = std::move(summary);
  }
  if (!s.manifest_list.empty()) {
    j["manifest-list"] = s.manifest_list;
  } else {
    j["manifests"] = s.v1_manifests;
  }
  if (s.schema_id) j["schema-id"] = *s.schema_id;
  if (s.first_row_id) j["first-row-id"] = *s.first_row_id;
  if (s.added_rows) j["added-rows"] = *s.added_rows;
  if (s.key_id) j["key-id"] = *s.key_id;
  return j;
}

Result<SnapshotRef> SnapshotRefFromJson(const OJson& json) {
  if (!json.is_object()) return Status::InvalidArgument("snapshot reference must be an object");
  SnapshotRef ref;
  FLOE_ASSIGN_OR_RETURN(ref.snapshot_id, ojson::GetLong(json, "snapshot-id"));
  FLOE_ASSIGN_OR_RETURN(std::string type, ojson::GetString(json, "type"));
  FLOE_ASSIGN_OR_RETURN(ref.type, ParseSnapshotRefType(type));
  FLOE_ASSIGN_OR_RETURN(ref.min_snapshots_to_keep, ojson::OptInt(json, "min-snapshots-to-keep"));
  FLOE_ASSIGN_OR_RETURN(ref.max_snapshot_age_ms, ojson::OptLong(json, "max-snapshot-age-ms"));
  FLOE_ASSIGN_OR_RETURN(ref.max_ref_age_ms, ojson::OptLong(json, "max-ref-age-ms"));
  FLOE_RETURN_IF_ERROR(ValidateSnapshotRef(ref));
  return ref;
}

OJson SnapshotRefToJson(const SnapshotRef& ref) {
  OJson j = OJson::object();
  j["snapshot-id"] = ref.snapshot_id;
  j["type"] = std::string(SnapshotRefTypeName(ref.type));
  if (ref.min_snapshots_to_keep) j["min-snapshots-to-keep"] = *ref.min_snapshots_to_keep;
  if (ref.max_snapshot_age_ms) j["max-snapshot-age-ms"] = *ref.max_snapshot_age_ms;
  if (ref.max_ref_age_ms) j["max-ref-age-ms"] = *ref.max_ref_age_ms;
  return j;
}

int64_t NewSnapshotId(const std::function<uint64_t()>& random64) {
  // java.util.UUID.randomUUID(): 122 random bits, version 4 and the IETF variant.
  uint64_t hi = random64();
  uint64_t lo = random64();
  hi = (hi & ~uint64_t{0xF000}) | uint64_t{0x4000};
  lo = (lo & ~(uint64_t{0xC} << 60)) | (uint64_t{0x8} << 60);
  return static_cast<int64_t>((hi ^ lo) & uint64_t{0x7FFFFFFFFFFFFFFF});
}

}  // namespace floe::iceberg
