// Name mapping (Iceberg spec, "Column Projection"; table property
// `schema.name-mapping.default`): field ids for data files written without them, found by
// column names. Applied to a Parquet schema before projection by id.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "floe/base/status.h"
#include "floe/format/parquet/metadata.h"

namespace floe::iceberg {

class Schema;

struct MappedField {
  std::optional<int32_t> field_id;
  std::vector<std::string> names;
  std::vector<MappedField> fields;  // struct fields; lists map "element", maps "key"/"value"
};

class NameMapping {
 public:
  NameMapping() = default;
  explicit NameMapping(std::vector<MappedField> fields) : fields_(std::move(fields)) {}

  // Parses the JSON form: [{"field-id": 1, "names": ["id", "record_id"]}, ...].
  // kInvalidArgument for malformed JSON.
  static Result<NameMapping> FromJson(std::string_view json_text);
  // The mapping of every field of `schema` to its own name (what Java's
  // MappingUtil.create builds).
  static NameMapping FromSchema(const Schema& schema);
  std::string ToJson() const;

  const std::vector<MappedField>& fields() const { return fields_; }
  // The mapped field for a path of names from the root, or nullptr.
  const MappedField* Find(const std::vector<std::string>& path) const;

 private:
  std::vector<MappedField> fields_;
};

// Copies `elements` (a Parquet footer's flattened schema), setting every element's field
// id from the mapping: element names are matched level by level; the repeated group of a
// 3-level LIST maps to "element" through its child, a MAP's key_value group to "key" and
// "value". Elements the mapping does not name keep no id (and are not read). Existing
// ids are replaced. kCorrupt for a malformed tree.
Result<std::vector<format::parquet::SchemaElement>> ApplyNameMapping(
    const std::vector<format::parquet::SchemaElement>& elements, const NameMapping& mapping);

// True when no element of the schema (below the root) has a field id.
bool HasNoFieldIds(const std::vector<format::parquet::SchemaElement>& elements);

}  // namespace floe::iceberg
