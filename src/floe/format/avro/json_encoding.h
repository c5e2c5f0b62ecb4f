// Avro JSON: the JSON encoding of values held in columns (spec, "JSON Encoding"), for
// `floe avro cat`, and the encoding of field default values (spec, "Records": JSON
// without union wrappers) into Avro binary, for schema resolution.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "floe/base/buffer.h"
#include "floe/base/json_writer.h"
#include "floe/base/status.h"
#include "floe/columnar/array.h"
#include "floe/format/avro/schema.h"

namespace floe::format::avro {

// Encodes `json`, a default value for a field of schema `node`, in Avro binary and appends
// it to `out`. A union's default is encoded with the first branch it fits. Values that do
// not fit the schema are kInvalidArgument.
Status EncodeDefaultValue(const Node& node, std::string_view json, Buffer* out);

// Writes the value at `row` of `array`, a column of type ToColumnarType(node), in the Avro
// JSON encoding as fastavro's json_writer writes it: a non-null union value as
// {"<branch label>": value}, bytes and fixed as strings whose code points are the byte
// values, enums as their symbol, decimals as their two's complement bytes (the shortest
// form for bytes), NaN and infinities as the bare tokens NaN, Infinity and -Infinity.
// A column that does not match the schema is kInvalidArgument.
Status WriteJsonValue(const Node& node, const columnar::Array& array, int64_t row,
                      JsonWriter& writer);

// Appends row `row` of `batch`, whose columns are ToColumnarSchema(schema), as one JSON
// text and a newline.
Status AppendJsonLine(const Schema& schema, const columnar::RecordBatch& batch, int64_t row,
                      std::string* out);

}  // namespace floe::format::avro
