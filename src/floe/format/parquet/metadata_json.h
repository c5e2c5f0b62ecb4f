// Human-readable forms of a Parquet footer for `floe parquet meta` and `floe parquet schema`.
//
// Both accept any FileMetaData a Deserialize call produced, malformed schemas included: they
// render what can be rendered and never fail.
#pragma once

#include <string>

#include "floe/format/parquet/metadata.h"

namespace floe::format::parquet {

// Returns the footer as JSON: version, num_rows, created_by, key-value metadata, the schema
// element list, column orders, and every row group with its column chunks. Enum values are
// rendered by name (unknown ones as their integer). Statistics min/max are rendered by the
// leaf's physical and logical type: numbers, booleans, text for STRING/ENUM/JSON, DECIMAL,
// DATE, TIME, TIMESTAMP and UUID in their text forms (columnar/value_format.h), other bytes
// as lowercase hex. `pretty` indents with two spaces.
std::string FileMetaDataToJson(const FileMetaData& md, bool pretty);

// Returns the schema in Parquet message syntax, one field per line:
//   message schema {
//     required int32 id (INTEGER(32,true)) = 1;
//     optional group tags (LIST) = 5 {
//       repeated group list {
//         optional binary element (STRING) = 6;
//       }
//     }
//   }
// `= N` is the field id. Annotations show the logical type, or the legacy converted type
// when there is none.
std::string SchemaToText(const FileMetaData& md);

}  // namespace floe::format::parquet
