// Parquet metadata: plain structs mirroring the structs of parquet-format's parquet.thrift
// that a reader or writer needs, and their Thrift compact (de)serialization. The structs,
// enums, readers, writers and required-field checks are generated from parquet_thrift.def
// (floe/format/parquet/parquet_thrift.h, in the build tree); this header adds what is
// written by hand.
//
// Conventions (shared/reference/parquet.md §2-§3):
// - Member names are the IDL names in snake_case; each member's comment gives its field id.
// - Optional IDL fields are std::optional, optional lists included (absent is not empty:
//   "null_counts absent" differs from "all zero").
// - Enums are `enum class X : int32_t` and parsing never rejects a value: an unknown codec or
//   encoding must only fail when that column is read, not when the footer is parsed.
// - Unions whose members are all empty structs (TimeUnit, the Bloom filter header's) are
//   `enum class X : int16_t` holding the member's field id; 0 means the union had no member,
//   and an unknown member keeps its id.
// - Union members this code does not know are kept, so a footer read and written back loses
//   no annotation (LogicalType, ColumnOrder). Encryption structs are kept opaque: floe does
//   not implement Parquet modular encryption, but must see that a file uses it.
// - Fields not modelled here are skipped like any unknown field: ColumnMetaData's
//   geospatial_statistics, and fields newer than parquet-format 2.13 (SchemaElement's
//   vector_length, ...).
//
// Deserialize() reads one bare struct (no envelope) from untrusted bytes; required fields
// missing or malformed input give kCorrupt. Serialize() writes every required field.
#pragma once

#include <optional>

#include "floe/format/parquet/parquet_thrift.h"

namespace floe::format::parquet {

// The element's logical type, or the one its legacy converted_type implies when it has none
// (parquet.md §3.10: legacy TIME and TIMESTAMP are UTC-adjusted; DECIMAL takes scale and
// precision from the element, scale defaulting to 0). nullopt when neither says anything.
std::optional<LogicalType> EffectiveLogicalType(const SchemaElement& element);

}  // namespace floe::format::parquet
