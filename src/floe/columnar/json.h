// JSON rendering of column values, for `floe parquet cat` and the management API.
// Scalars use the Iceberg single-value JSON forms (value_format.h); structs are
// objects, lists arrays, maps objects when keys are strings and [[key, value], ...]
// otherwise, unions the member's value.
#pragma once

#include <string>

#include "floe/base/json_writer.h"
#include "floe/columnar/array.h"

namespace floe::columnar {

// Writes the value at row `i` of `array`.
void WriteJsonValue(const Array& array, int64_t i, JsonWriter& w);

// Appends row `row` of `batch` as one JSON object line (with '\n').
void AppendJsonLine(const RecordBatch& batch, int64_t row, std::string* out);

}  // namespace floe::columnar
