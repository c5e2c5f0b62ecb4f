// Schema inference for JSON record values without a registry schema: the Iceberg type of
// a JSON value, and the schema changes that let a record that did not decode into the
// table's current columns decode (issue 6: add columns, make optional, int -> long,
// float -> double). Used on the slow path only, when the columnar decoder rejects a record.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "floe/base/status.h"
#include "floe/iceberg/schema.h"
#include "floe/iceberg/type.h"

namespace floe::ingest {

// JSON numbers without a fraction or exponent are long, others double; strings string;
// booleans boolean; objects structs; arrays lists of their elements' common type. Field ids
// are placeholders (the schema update assigns fresh ones). nullptr when nothing can be
// inferred: null, an empty array or object, or one holding only such values; also when
// objects and arrays nest 64 deep.
iceberg::TypePtr InferJsonType(const nlohmann::json& value);

struct SchemaChange {
  enum class Kind { kAddColumn, kWiden, kMakeOptional };
  Kind kind;
  std::string parent;     // kAddColumn: the struct's full name ("" = top level)
  std::string name;       // kAddColumn: the new column's name; otherwise the full name
  iceberg::TypePtr type;  // kAddColumn, kWiden
};

// The changes to `fields` (a struct's fields, at full name `parent`) after which `object`
// would decode: unknown fields added as optional columns, required columns the record
// lacks made optional, int and float columns holding a wider number widened. Struct values
// are followed into struct columns. kInvalidArgument naming the field when a value cannot
// fit its column at all (a string for a long column, a fraction for a long column, ...),
// or when a new column's objects and arrays would nest 64 deep counted from the record.
Status InferChanges(const std::vector<iceberg::NestedField>& fields, const nlohmann::json& object,
                    const std::string& parent, std::vector<SchemaChange>* changes);

}  // namespace floe::ingest
