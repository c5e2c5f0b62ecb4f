// Schema identity and compatibility for the schema registry (schema_registry.h).
//
// Compatibility is "can a reader with schema R read data written with schema W":
// - Avro: the resolution rules of the Avro spec ("Schema Resolution"): same primitive or a
//   promotion (int -> long, float, double; long -> float, double; float -> double;
//   string <-> bytes); records match fields by name (or reader alias), a reader field the
//   writer lacks needs a default, writer fields the reader lacks are skipped; enums need
//   every writer symbol in the reader or a reader default; unions: every writer branch
//   readable by some reader branch; named types must keep their (unqualified) name; fixed
//   keeps its size.
// - Protobuf (a subset of Confluent's rules): messages are matched by full name; a field
//   number kept in both must keep a wire-compatible type (int32/uint32/int64/uint64/bool,
//   sint32/sint64, fixed32/sfixed32, fixed64/sfixed64, string/bytes/message each a group)
//   and its repeated-ness; removing a message the other side uses is incompatible.
// - JSON Schema (a subset): object properties in both must keep compatible "type"s (integer
//   may widen to number); a property required by the reader must be required by the writer
//   or have a default; a closed reader ("additionalProperties": false) rejects writer
//   properties it lacks.
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "floe/base/status.h"
#include "floe/ingest/schema_registry.h"

namespace floe::ingest {

// The text identifying a schema: Avro's compact JSON as parsed, JSON Schema's compact
// JSON, Protobuf's text without comments and with whitespace collapsed. kInvalidArgument
// when it does not parse. `imports`: referenced schema texts by name.
Result<std::string> NormalizeSchema(SchemaType type, std::string_view text,
                                    const std::map<std::string, std::string>& imports);

// Whether a reader with schema `reader` can read data written with `writer` (same type);
// reasons appended to `messages`.
Result<bool> CanRead(SchemaType type, std::string_view reader, std::string_view writer,
                     const std::map<std::string, std::string>& imports,
                     std::vector<std::string>* messages);

}  // namespace floe::ingest
