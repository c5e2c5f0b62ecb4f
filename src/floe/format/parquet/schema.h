// SchemaDescriptor: the Parquet schema of a file as a tree, its leaf columns with their
// maximum repetition/definition levels, and the mapping to columnar types used by the
// reader and writer (parquet.md §5, §9).
//
// The columnar type of a node is what the reader produces and the writer accepts:
//   BOOLEAN -> bool; INT32 -> int32, or int8/16/uint8/16/32 (INTEGER), date32 (DATE),
//   time32[ms] (TIME MILLIS), decimal128 (DECIMAL); INT64 -> int64, uint64, time64,
//   timestamp[unit, utc], decimal128; INT96 -> timestamp[ns]; FLOAT/DOUBLE -> float32/64;
//   BYTE_ARRAY -> string (STRING/ENUM/JSON), decimal128, else binary;
//   FIXED_LEN_BYTE_ARRAY -> decimal128, uuid (UUID), float16 (FLOAT16), else fixed_binary;
//   UNKNOWN -> null; decimals wider than 38 digits stay binary / fixed_binary.
//   Groups -> struct; LIST -> list (legacy 2-level shapes included); MAP / MAP_KEY_VALUE ->
//   map; a repeated field outside LIST/MAP -> a non-null list of non-null elements.
// Field ids become columnar Field::field_id (lists: the LIST group's id on the list field
// and the element's id on the element; maps: key and value ids).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "floe/base/status.h"
#include "floe/columnar/type.h"
#include "floe/format/parquet/assembly.h"
#include "floe/format/parquet/metadata.h"

namespace floe::format::parquet {

// One leaf column.
struct ColumnDescriptor {
  int index = 0;                  // position among the leaves (= column chunk index)
  std::vector<std::string> path;  // names from the root's child to the leaf
  const SchemaElement* element = nullptr;
  Type physical_type = Type::kBoolean;
  int32_t type_length = 0;  // FIXED_LEN_BYTE_ARRAY width
  int16_t max_def = 0;
  int16_t max_rep = 0;
  std::optional<LogicalType> logical_type;  // EffectiveLogicalType(*element)
  columnar::DataTypePtr type;               // the columnar type of the leaf's values
  std::optional<int32_t> field_id;

  // "a.b.c"
  std::string PathString() const;
  // Bytes per PLAIN value of the physical type (0 for BOOLEAN and BYTE_ARRAY).
  size_t physical_width() const;
};

class SchemaDescriptor {
 public:
  // Builds the tree from a footer's flattened schema. Malformed schemas (child counts that
  // do not add up, leaves without a type, a missing repetition, groups nested deeper than
  // a limit, LIST/MAP groups of the wrong shape) are kCorrupt.
  static Result<std::unique_ptr<SchemaDescriptor>> Make(std::vector<SchemaElement> elements);

  // Builds the Parquet schema for writing a columnar schema, the way Iceberg and Arrow do:
  // 3-level lists (list / element), maps (key_value / key / value), both logical and
  // converted annotations, decimals as INT32 (p <= 9) / INT64 (p <= 18) / minimal
  // FIXED_LEN_BYTE_ARRAY, uuid as FIXED_LEN_BYTE_ARRAY(16), timestamps as INT64 in their
  // unit, field ids from Field::field_id. kInvalidArgument for types Parquet cannot hold
  // (unions).
  static Result<std::unique_ptr<SchemaDescriptor>> FromColumnar(const columnar::Schema& schema,
                                                                std::string root_name = "table");

  const std::vector<SchemaElement>& elements() const { return elements_; }
  int num_leaves() const { return static_cast<int>(leaves_.size()); }
  const ColumnDescriptor& leaf(int i) const { return leaves_[i]; }
  const std::vector<ColumnDescriptor>& leaves() const { return leaves_; }

  // The columnar schema of the whole file (one field per top-level node).
  const columnar::SchemaPtr& schema() const { return schema_; }
  // The assembly plan of each top-level field.
  const std::vector<AssemblyNode>& fields() const { return fields_; }

  // A projection: the selected parts of the schema, their assembly plans (leaf indices
  // refer to the file's leaves) and the sorted list of leaves to read.
  struct Projection {
    columnar::SchemaPtr schema;
    std::vector<AssemblyNode> fields;
    std::vector<int> leaves;
  };
  // Everything.
  Projection ProjectAll() const;
  // Fields whose id is in `ids`, at any depth: a selected node keeps its whole subtree;
  // a node with a selected descendant keeps only the parts leading to it (map keys are
  // always kept). Ids not in the file are ignored (Iceberg reads them as null).
  Projection ProjectByIds(const std::vector<int32_t>& ids) const;
  // Fields named by dotted paths ("a", "a.b"); an unknown name is kNotFound.
  Result<Projection> ProjectByNames(const std::vector<std::string>& paths) const;

 private:
  SchemaDescriptor() = default;
  Status Build();

  std::vector<SchemaElement> elements_;
  std::vector<ColumnDescriptor> leaves_;
  columnar::SchemaPtr schema_;
  std::vector<AssemblyNode> fields_;
};

}  // namespace floe::format::parquet
