// Record values decoded by a registry schema (convert.value.type by_schema_id /
// by_latest_schema; docs/table-topics.md): the Confluent wire-format header, the Iceberg
// columns a schema gives (Avro, Protobuf, JSON Schema), the schema changes that make a table
// hold them, and the conversion of decoded columns to the table's columns by name.
//
// Type mapping (the Iceberg type of a value; every column is optional):
//   Avro: boolean, int, long, float, double, string, bytes -> binary, enum -> string,
//     fixed(n) -> fixed[n], record -> struct, array -> list, map -> map<string, V>,
//     ["null", T] -> T, decimal -> decimal(p, s), uuid: fixed(16) -> uuid, string -> string,
//     date, time-millis/-micros -> time, timestamp-millis/-micros -> timestamptz,
//     local-timestamp-millis/-micros -> timestamp, duration -> fixed[12], a union of several
//     non-null types -> a struct with one optional field per branch (UnionMemberName).
//     Named types are expanded wherever they are referenced; recursive records are
//     kUnimplemented.
//   Protobuf: double, float, int32/sint32/sfixed32 -> int, int64/sint64/sfixed64,
//     uint32, fixed32 -> long, uint64/fixed64 -> long (values above 2^63 - 1 wrap, as Java
//     reads them), bool, string, bytes -> binary, enum -> string (the symbol; an unknown
//     number as its digits), message -> struct, repeated -> list, map<K, V> -> map,
//     oneof members -> optional fields, google.protobuf.Timestamp -> timestamptz.
//   JSON Schema: object with properties -> struct, array with items -> list, integer ->
//     long, number -> double, boolean, string (format date / date-time -> date /
//     timestamptz) -> string; a type list with "null", or oneOf / anyOf of {"type": "null"}
//     and one schema, is that type; local "$ref"s (#/definitions/..., #/$defs/...) are
//     followed. Anything else (no type, several types, a recursive or remote $ref) is
//     kUnimplemented.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "floe/base/status.h"
#include "floe/columnar/array.h"
#include "floe/format/avro/schema.h"
#include "floe/iceberg/schema.h"
#include "floe/ingest/json_schema.h"
#include "floe/ingest/proto_schema.h"

namespace floe::ingest {

// The Confluent wire format: magic byte 0, the schema id as a big-endian int32, then the
// payload (Protobuf: the message indexes first). kInvalidArgument when `value` lacks it.
struct WireHeader {
  int32_t schema_id = 0;
  std::span<const uint8_t> payload;
};
Result<WireHeader> ParseWireHeader(std::span<const uint8_t> value);

// Reads the Protobuf message-index path at the start of `payload` (a zig-zag varint count,
// then that many zig-zag varints; a count of 0 means [0]) and advances past it.
Result<std::vector<int32_t>> ReadMessageIndexes(std::span<const uint8_t>* payload);

// The field name of an Avro union branch in the struct a union of several non-null types
// becomes: the simple name of a named type ("floe.it.Point" -> "Point"), else the type name
// ("int", "string", "array", "map").
std::string UnionMemberName(std::string_view branch_label);

// The value columns of a schema (field ids 0). A non-record Avro root gives one column
// "value".
Result<std::vector<iceberg::NestedField>> AvroColumns(const format::avro::Schema& schema);
Result<std::vector<iceberg::NestedField>> ProtoColumns(const proto::Message& message);
// `schema` keeps its members in order (properties become columns in that order).
Result<std::vector<iceberg::NestedField>> JsonSchemaColumns(const nlohmann::ordered_json& schema);

// The changes after which columns `record` (ids ignored) fit into `table` (a struct's
// fields at full name `parent`): record columns the table lacks added, table columns the
// record lacks or holds as optional made optional, int -> long and float -> double widened.
// kInvalidArgument naming the column when a type cannot become the table's.
Status RecordChanges(const std::vector<iceberg::NestedField>& table,
                     const std::vector<iceberg::NestedField>& record, const std::string& parent,
                     std::vector<SchemaChange>* changes);

// Converts decoded columns (named like `record`, typed as its columnar form) into the
// columnar form of the table's `targets`: matched by name, promoted, absent ones null.
Result<std::vector<columnar::Array>> ConformColumns(
    std::vector<columnar::Array> columns, const std::vector<std::string>& names,
    const std::vector<iceberg::NestedField>& targets, int64_t num_rows);

}  // namespace floe::ingest
