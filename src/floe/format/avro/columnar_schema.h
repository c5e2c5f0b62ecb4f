// The mapping from Avro schemas to columnar types, used by the datum reader (decode into
// columns), the datum writer (encode from columns) and the JSON encoder.
//
//   null -> Null            boolean -> Bool        int -> Int32        long -> Int64
//   float -> Float32        double -> Float64      bytes -> Binary     string -> String
//   fixed(n) -> FixedBinary(n)                     enum -> String (the symbol)
//   array -> List           map -> Map(String, V)  record -> Struct
//   ["null", T] / [T, "null"] / [T] -> T (nullable when null is a branch)
//   other unions -> dense Union, one member per branch ("null" becomes a Null member)
//   decimal -> Decimal128(p, s) (p <= 38)          uuid: fixed(16) -> Uuid, string -> String
//   date -> Date32          time-millis -> Time(ms)                time-micros -> Time(us)
//   timestamp-* -> Timestamp(unit, utc)            local-timestamp-* -> Timestamp(unit)
//   duration -> FixedBinary(12)
//
// Iceberg writes maps whose keys are not strings as arrays of two-field records with
// logicalType "map"; those become Map(key, value) too. Field ids come from a record
// field's "field-id", an array's "element-id" and a map's "key-id"/"value-id" (for map
// arrays, the field-ids of the key and value fields).
#pragma once

#include "floe/base/status.h"
#include "floe/columnar/type.h"
#include "floe/format/avro/schema.h"

namespace floe::format::avro {

// How a union maps to columns.
struct UnionShape {
  int null_branch = -1;  // index of the "null" branch, or -1
  // For a union of at most one non-null branch and optionally null: that branch (-1 for
  // ["null"] and []); the union maps to its type, nullable when null_branch >= 0.
  int value_branch = -1;
  bool dense = false;  // otherwise: a dense Union column whose member i is branch i
};
UnionShape ClassifyUnion(const Node& node);

// True for Iceberg's map encoding: an array with logicalType "map" whose items are
// records of exactly two fields (key, value) with a key that cannot be null.
bool IsMapArray(const Node& node);

// True when a value of `node` may be null (the null type, or a union with a null branch).
bool IsNullable(const Node& node);

// The columnar type of values of `node`. Recursive types and decimals wider than 38 digits
// are kUnimplemented.
Result<columnar::DataTypePtr> ToColumnarType(const Node& node);

// The column of a record field: its name, type, nullability and field id.
Result<columnar::Field> ToColumnarField(const RecordField& field);

// The columns of a record schema; any other root type gives one column named "value".
Result<columnar::SchemaPtr> ToColumnarSchema(const Schema& schema);

}  // namespace floe::format::avro
