// Iceberg data types (spec "Schemas and Data Types") and nested fields.
//
// Type is immutable and shared (TypePtr); primitive types are created by the factories
// below, nested types (struct, list, map) from NestedFields. JSON follows the spec's
// encoding (Appendix C): primitives are strings ("decimal(9, 2)", "fixed[16]"), nested
// types are objects.
//
// Defaults: initial_default / write_default are only kept for primitive fields. For struct
// fields the spec allows only null or {} ("sub-field defaults live on the sub-fields"), so
// both are accepted when reading JSON and dropped: an absent struct default and {} behave
// the same for readers, and writers never emit one.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "floe/base/status.h"
#include "floe/iceberg/literal.h"

namespace floe::iceberg {

enum class TypeKind : uint8_t {
  kBoolean,
  kInt,
  kLong,
  kFloat,
  kDouble,
  kDecimal,
  kDate,
  kTime,
  kTimestamp,
  kTimestampTz,
  kTimestampNs,
  kTimestampTzNs,
  kString,
  kUuid,
  kFixed,
  kBinary,
  kUnknown,
  kStruct,
  kList,
  kMap,
};

// "boolean", ..., "struct", "list", "map" (the JSON name; "decimal"/"fixed" unparameterized).
std::string_view TypeKindName(TypeKind kind);

struct NestedField {
  int32_t id = 0;
  std::string name;
  TypePtr type;
  bool required = false;
  std::string doc;
  std::optional<Literal> initial_default;
  std::optional<Literal> write_default;

  static NestedField Optional(int32_t id, std::string name, TypePtr type, std::string doc = {});
  static NestedField Required(int32_t id, std::string name, TypePtr type, std::string doc = {});

  // Same id, name, type (deep), requiredness, doc and defaults.
  bool Equals(const NestedField& other) const;
  // "1: id: required long (doc)" — for messages and tests.
  std::string ToString() const;
};

class Type {
 public:
  TypeKind kind() const { return kind_; }
  int32_t precision() const { return precision_; }  // decimal
  int32_t scale() const { return scale_; }          // decimal
  int32_t length() const { return length_; }        // fixed
  bool is_primitive() const { return !is_nested(); }
  bool is_nested() const {
    return kind_ == TypeKind::kStruct || kind_ == TypeKind::kList || kind_ == TypeKind::kMap;
  }
  // Struct fields; the list's single element; the map's key and value. Empty for primitives.
  const std::vector<NestedField>& fields() const { return fields_; }
  // REQUIRES: kind() == kList.
  const NestedField& element() const { return fields_[0]; }
  // REQUIRES: kind() == kMap.
  const NestedField& key() const { return fields_[0]; }
  const NestedField& value() const { return fields_[1]; }

  // The struct field named `name` (exact match), or nullptr. Only for structs.
  const NestedField* FieldByName(std::string_view name) const;
  const NestedField* FieldById(int32_t id) const;  // direct children only

  // Primitives: the JSON type string ("long", "decimal(9, 2)", "fixed[16]").
  // Nested: "struct<1: a: optional int, ...>", "list<...>", "map<..., ...>" (not JSON).
  std::string ToString() const;
  // Deep equality (field ids, names, requiredness, docs and defaults included).
  bool Equals(const Type& other) const;

  // Use the factories.
  Type(TypeKind kind, int32_t precision, int32_t scale, int32_t length,
       std::vector<NestedField> fields);

 private:
  TypeKind kind_;
  int32_t precision_ = 0;
  int32_t scale_ = 0;
  int32_t length_ = 0;
  std::vector<NestedField> fields_;
};

// Primitive factories (parameterless ones return shared instances).
TypePtr BooleanType();
TypePtr IntType();
TypePtr LongType();
TypePtr FloatType();
TypePtr DoubleType();
// REQUIRES 0 <= scale <= precision <= 38 (TypeFromJson / Parse validate untrusted input).
TypePtr DecimalType(int32_t precision, int32_t scale);
TypePtr DateType();
TypePtr TimeType();
TypePtr TimestampType();
TypePtr TimestampTzType();
TypePtr TimestampNsType();
TypePtr TimestampTzNsType();
TypePtr StringType();
TypePtr UuidType();
TypePtr FixedType(int32_t length);
TypePtr BinaryType();
TypePtr UnknownType();
TypePtr StructType(std::vector<NestedField> fields);
// The element is renamed "element"; key and value "key" and "value". Map keys are required.
TypePtr ListType(NestedField element);
TypePtr MapType(NestedField key, NestedField value);
// Convenience: list/map from ids and types.
TypePtr ListType(int32_t element_id, TypePtr element, bool element_required);
TypePtr MapType(int32_t key_id, TypePtr key, int32_t value_id, TypePtr value, bool value_required);

inline bool operator==(const Type& a, const Type& b) { return a.Equals(b); }

// Parses a primitive type string ("int", "decimal( 9 , 2 )", "fixed[ 16 ]").
// kUnimplemented (naming the type) for known-but-unsupported types: variant, geometry(...),
// geography(...); kInvalidArgument for anything else unknown or malformed.
Result<TypePtr> PrimitiveTypeFromString(std::string_view text);

// Type JSON (spec Appendix C). FromJson errors: kInvalidArgument for malformed JSON or
// types, kUnimplemented for unsupported types. Field defaults are decoded with the field's
// type. Never throws.
Result<TypePtr> TypeFromJsonValue(const nlohmann::json& json);
Result<TypePtr> TypeFromJson(std::string_view json_text);
nlohmann::json TypeToJsonValue(const Type& type);
std::string TypeToJson(const Type& type);

// Decodes one struct field object ({"id","name","required","type","doc",
// "initial-default","write-default"}).
Result<NestedField> NestedFieldFromJsonValue(const nlohmann::json& json);
nlohmann::json NestedFieldToJsonValue(const NestedField& field);

}  // namespace floe::iceberg
