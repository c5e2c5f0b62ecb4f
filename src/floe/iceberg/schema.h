// Schema: the top-level struct of an Iceberg table with its schema id and identifier
// fields, indexed by field id and by name (spec "Schemas and Data Types").
//
// Names are Java's full names: "a.b" for struct fields, "l.element" for list elements,
// "m.key" / "m.value" for maps; like Java, the "element" / "value" step may be left out
// when it leads to a struct ("l.x" for "l.element.x").
//
// Schema is an immutable value; copies share the type tree and the indexes. Thread-safe.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "floe/base/status.h"
#include "floe/columnar/type.h"
#include "floe/iceberg/type.h"

namespace floe::iceberg {

class Schema {
 public:
  // Field ids at or above this are reserved for metadata columns (_file, _pos, ...).
  static constexpr int32_t kMaxUserFieldId = 2147483447;

  // An empty schema with id 0.
  Schema();

  // Builds and indexes a schema. kInvalidArgument for a missing type, duplicate field ids,
  // duplicate names within one struct, or identifier field ids that do not exist.
  // (Identifier field *rules* are checked by SchemaUpdate, not here, so that schemas written
  // by other engines stay readable.)
  static Result<Schema> Make(std::vector<NestedField> fields, int32_t schema_id = 0,
                             std::vector<int32_t> identifier_field_ids = {});

  int32_t schema_id() const { return schema_id_; }
  const std::vector<NestedField>& fields() const { return struct_->fields(); }
  const TypePtr& as_struct() const { return struct_; }
  const std::vector<int32_t>& identifier_field_ids() const { return identifier_field_ids_; }

  // The field with `id` at any depth (struct fields, list elements, map keys and values),
  // or nullptr.
  const NestedField* FindField(int32_t id) const;
  // The field with a full (or short) dotted name, or nullptr.
  const NestedField* FindFieldByName(std::string_view name, bool case_sensitive = true) const;
  // The full dotted name of field `id`, or nullopt.
  std::optional<std::string> FindColumnName(int32_t id) const;
  // The id of the struct/list/map field containing `id`; nullopt for top-level or unknown ids.
  std::optional<int32_t> FindParentId(int32_t id) const;
  // The largest field id in the schema (0 when empty).
  int32_t highest_field_id() const;
  // All field ids, depth-first in schema order.
  std::vector<int32_t> AllFieldIds() const;

  // The same fields with another schema id.
  Schema WithSchemaId(int32_t schema_id) const;

  // Columnar schema with field ids on every level (list element, map key and value too),
  // required -> non-nullable, and the type mapping of format/parquet: decimal -> Decimal128,
  // time -> Time64[us], timestamp(tz) -> Timestamp[us(, utc)], *_ns -> [ns], uuid -> Uuid,
  // fixed -> FixedBinary, unknown -> Null.
  columnar::Schema ToColumnar() const;
  // The reverse mapping. Every field (list elements, map keys and values included) needs a
  // field id; kInvalidArgument otherwise or for types Iceberg cannot hold (unsigned 64-bit,
  // unions, second-unit timestamps). int8/int16/uint8/uint16 -> int, uint32 -> long,
  // float16 -> float, time32[ms] -> time, timestamp[ms] -> timestamp.
  static Result<Schema> FromColumnar(const columnar::Schema& schema, int32_t schema_id = 0);

  // Same fields (deep, ids included) and identifier fields; the schema id is ignored.
  bool SameSchema(const Schema& other) const;
  // Same as SameSchema and the same schema id.
  bool Equals(const Schema& other) const;
  // "table { 1: id: required long, ... }" for messages and tests.
  std::string ToString() const;

  struct Index;  // opaque; defined in schema.cc

 private:
  Schema(TypePtr st, int32_t schema_id, std::vector<int32_t> identifier_field_ids,
         std::shared_ptr<const Index> index);

  TypePtr struct_;
  int32_t schema_id_ = 0;
  std::vector<int32_t> identifier_field_ids_;
  std::shared_ptr<const Index> index_;
};

// The columnar form of an Iceberg type / field (the mapping of Schema::ToColumnar).
columnar::DataTypePtr ColumnarTypeOf(const Type& type);
columnar::Field ColumnarFieldOf(const NestedField& field);

// Schema JSON: {"type":"struct","schema-id":0,"identifier-field-ids":[...],"fields":[...]}.
// "schema-id" is optional (v1; default 0). Errors are kInvalidArgument (kUnimplemented for
// unsupported types). Never throws.
Result<Schema> SchemaFromJsonValue(const nlohmann::json& json);
Result<Schema> SchemaFromJson(std::string_view json_text);
nlohmann::json SchemaToJsonValue(const Schema& schema);
std::string SchemaToJson(const Schema& schema);

// What a client may propose as a new schema (create table or view, add-schema): every
// struct field has a non-empty name, and every field id (struct fields, list elements, map
// keys and values) is positive — ids start at 1, as Iceberg Java assigns them. Stored
// metadata is not held to this (it is read as written). Errors: kInvalidArgument naming the
// field.
Status CheckProposedSchema(const Schema& schema);

// Reassigns every field id of `type` from `next_id`, like Java TypeUtil.assignFreshIds:
// all fields of a struct first, then each field's nested type; a list's element id before
// its element type; a map's key id, value id, then key and value types.
TypePtr AssignFreshIds(const Type& type, const std::function<int32_t()>& next_id);
// The same for a schema's struct (top-level fields get the first ids). Identifier fields are
// carried over by name.
Result<Schema> AssignFreshIds(const Schema& schema, const std::function<int32_t()>& next_id,
                              int32_t schema_id = 0);

// Compact schema text for the CLI, with fresh ids 1..n (Java order, as above):
//   "id long not null comment 'key', name string, tags list<string not null>,
//    props map<string, int>, loc struct<lat double, lon double> not null,
//    price decimal(10,2), raw fixed[16]"
// Types are the Iceberg type names (case-insensitive; "integer" and "bigint" are accepted
// as int and long). "not null" (or "required") makes a field, list element or map value
// required; names may be quoted with backticks. kInvalidArgument with the position of
// the first error.
Result<Schema> ParseSchemaText(std::string_view text);
// One type in that syntax ("map<string, list<int>>"), ids assigned from 1.
Result<TypePtr> ParseTypeText(std::string_view text);

}  // namespace floe::iceberg
