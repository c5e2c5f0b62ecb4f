// Partition specs (spec "Partitioning", "Partition Evolution"): fields, the partition
// struct type, Hive-style partition paths, JSON (v1 and v2+), a builder with Java's default
// field names, the CLI text form and partition evolution.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "floe/base/status.h"
#include "floe/iceberg/literal.h"
#include "floe/iceberg/schema.h"
#include "floe/iceberg/transform.h"

namespace floe::iceberg {

struct PartitionField {
  int32_t source_id = 0;  // with several sources: the first
  int32_t field_id = 0;
  std::string name;
  Transform transform;
  // v3 multi-argument fields: every source id (empty for the usual single source). Such a
  // field's transform is unknown to floe: it is kept and written back, scans do not prune
  // on it, and writes to its spec fail (as in Iceberg Java).
  std::vector<int32_t> source_ids = {};

  bool operator==(const PartitionField& other) const = default;
};

class PartitionSpec;
// What a client may propose as a new spec (create table, add-spec): every transform is one
// floe knows (identity, bucket[N], truncate[W], year, month, day, hour, void). Unknown ones
// are kept when read from stored metadata, never accepted into a table. Errors:
// kInvalidArgument naming the field and the transform.
Status CheckProposedSpec(const PartitionSpec& spec);

class PartitionSpec {
 public:
  // Partition field ids start here (Java PARTITION_DATA_ID_START).
  static constexpr int32_t kFirstFieldId = 1000;

  // The unpartitioned spec with id 0.
  PartitionSpec() = default;
  PartitionSpec(int32_t spec_id, std::vector<PartitionField> fields)
      : spec_id_(spec_id), fields_(std::move(fields)) {}
  static PartitionSpec Unpartitioned() { return PartitionSpec(); }

  int32_t spec_id() const { return spec_id_; }
  const std::vector<PartitionField>& fields() const { return fields_; }
  // No fields, or only void transforms.
  bool is_unpartitioned() const;
  // The largest field id, or kFirstFieldId - 1 when there are no fields.
  int32_t last_assigned_field_id() const;

  // The partition tuple type: one optional field per partition field, with the partition
  // field id and name and the transform's result type. Like Java, a source column missing
  // from `schema` (dropped) or an unknown transform gives type unknown / string rather than
  // an error; kInvalidArgument when a transform cannot apply to its source type.
  Result<TypePtr> PartitionType(const Schema& schema) const;

  // "ts_day=2017-11-16/id_bucket=3": each field's name and Transform::ToHumanString of its
  // value, both escaped like java.net.URLEncoder (UTF-8; [A-Za-z0-9.*_-] kept, space '+',
  // others %XX). kInvalidArgument when values.size() != fields().size().
  Result<std::string> PartitionPath(const std::vector<Literal>& values) const;

  // Java compatibleWith: the same number of fields with the same source ids, transforms and
  // names in the same order; field ids and spec ids are ignored.
  bool CompatibleWith(const PartitionSpec& other) const;
  // The spec's "equivalent" (Partition Evolution: never create a spec equivalent to an
  // existing one); the same relation as CompatibleWith.
  bool Equivalent(const PartitionSpec& other) const { return CompatibleWith(other); }

  bool operator==(const PartitionSpec& other) const = default;
  std::string ToString() const;

 private:
  int32_t spec_id_ = 0;
  std::vector<PartitionField> fields_;
};

// Spec JSON: {"spec-id":0,"fields":[{"name","transform","source-id","field-id"}]}.
// A missing "field-id" (v1 writers) is assigned sequentially from 1000. v3 "source-ids"
// with one id is read as source-id; multi-argument transforms are kUnimplemented. Unknown
// transform strings are kept (Transform kind kUnknown).
Result<PartitionSpec> PartitionSpecFromJsonValue(const nlohmann::json& json);
Result<PartitionSpec> PartitionSpecFromJson(std::string_view json_text);
// The v1 metadata "partition-spec" member: a bare array of fields, spec id `spec_id`.
Result<PartitionSpec> PartitionSpecFromV1FieldsJson(const nlohmann::json& fields,
                                                    int32_t spec_id = 0);
nlohmann::json PartitionSpecToJsonValue(const PartitionSpec& spec);
std::string PartitionSpecToJson(const PartitionSpec& spec);
// The fields array alone (for v1 "partition-spec").
nlohmann::json PartitionFieldsToJsonValue(const PartitionSpec& spec);

// Builds a spec against a schema with Java's rules and default names: identity keeps the
// column name; bucket "<col>_bucket", truncate "<col>_trunc", year/month/day/hour
// "<col>_year" ..., void "<col>_null". Errors (unknown column, transform not applicable,
// duplicate or conflicting names, two time transforms or identical transforms on one
// column) are reported by Build(), the first one wins.
class PartitionSpecBuilder {
 public:
  explicit PartitionSpecBuilder(const Schema& schema, int32_t spec_id = 0);

  PartitionSpecBuilder& Identity(std::string_view source, std::string name = {});
  PartitionSpecBuilder& Bucket(std::string_view source, int32_t n, std::string name = {});
  PartitionSpecBuilder& Truncate(std::string_view source, int32_t width, std::string name = {});
  PartitionSpecBuilder& Year(std::string_view source, std::string name = {});
  PartitionSpecBuilder& Month(std::string_view source, std::string name = {});
  PartitionSpecBuilder& Day(std::string_view source, std::string name = {});
  PartitionSpecBuilder& Hour(std::string_view source, std::string name = {});
  PartitionSpecBuilder& Void(std::string_view source, std::string name = {});
  // Any transform by source column name; empty name = the default name.
  PartitionSpecBuilder& Add(std::string_view source, Transform transform, std::string name = {});
  // By source id with an explicit field id (0 = next id).
  PartitionSpecBuilder& AddById(int32_t source_id, Transform transform, std::string name,
                                int32_t field_id = 0);

  Result<PartitionSpec> Build() const;

 private:
  const Schema& schema_;
  int32_t spec_id_;
  std::vector<PartitionField> fields_;
  int32_t last_field_id_ = PartitionSpec::kFirstFieldId - 1;
  Status status_;
};

// The default partition field name Java gives `transform` of column `source_name`.
std::string DefaultPartitionName(std::string_view source_name, const Transform& transform);

// CLI partition text: comma-separated "day(ts)", "bucket(16, id)", "truncate(4, name)",
// "identity(x)" or just "x", "year(ts)", "month(ts)", "hour(ts)", "void(x)", each optionally
// followed by "as <name>". Field ids from 1000.
Result<PartitionSpec> ParsePartitionText(const Schema& schema, std::string_view text,
                                         int32_t spec_id = 0);

struct EvolvedSpec {
  PartitionSpec spec;
  int32_t last_partition_id = 0;
  // True when `spec` is an existing spec (an equivalent one was found), so none is added.
  bool is_existing = false;
};

// Partition evolution (spec "Partition Evolution"): a spec with `new_fields` (their
// field_id ignored) whose ids reuse the id of an existing field of any spec in `specs` with
// the same source id and transform, and otherwise are assigned after last_partition_id. If
// a spec equivalent to the result already exists, that spec is returned (is_existing).
// `new_spec_id` is used for a new spec. kInvalidArgument for duplicate names.
Result<EvolvedSpec> EvolveSpec(const std::vector<PartitionSpec>& specs, int32_t last_partition_id,
                               const std::vector<PartitionField>& new_fields, int32_t new_spec_id);

}  // namespace floe::iceberg
