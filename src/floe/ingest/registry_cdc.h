// The ops of keyed table topics (docs/table-topics.md, "Upserts and CDC"), shared by the
// JSON text path and registry-decoded values: what a Debezium `op` or a `cdc.field` value
// means, and for registry values (Avro, Protobuf) decoded into columns, the rows and ops of
// a batch of Debezium envelopes or of records carrying a CDC field.
//
// A Debezium envelope (the value Debezium's converters write: {before, after, source, op,
// ts_ms, ...}, `before` and `after` nullable records of the row type) gives the row `after`
// for op c (create), r (snapshot read) and u (update), and `before` for d (delete).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "floe/base/status.h"
#include "floe/columnar/array.h"
#include "floe/iceberg/schema.h"

namespace floe::ingest {

// The op of a row: upsert (replace the key's row) or delete (the key).
inline constexpr char kOpUpsert = 'U';
inline constexpr char kOpDelete = 'D';

// A Debezium op: c, r, u -> kOpUpsert; d -> kOpDelete. kInvalidArgument otherwise.
Result<char> DebeziumOp(std::string_view op);

// A cdc.field value `field` holds: first letter I or U (any case) -> kOpUpsert (a replayed
// insert replaces its key's row), D -> kOpDelete. kInvalidArgument otherwise.
Result<char> CdcFieldOp(std::string_view value, std::string_view field);

// The row columns of a Debezium envelope's columns: the fields of `after` (or of `before`
// when the envelope has no `after`). kInvalidArgument when the envelope lacks both or they
// are not records of one type, or has no `op` string.
Result<std::vector<iceberg::NestedField>> DebeziumRowColumns(
    const std::vector<iceberg::NestedField>& envelope);

// Checks that the dotted `path` names a string field of `columns` (through structs).
Status CheckCdcField(const std::vector<iceberg::NestedField>& columns, std::string_view path);

// Per row of a decoded batch: its op, or why the row is invalid data.
struct KeyedRows {
  std::vector<char> ops;            // kOpUpsert / kOpDelete; 0 for an invalid row
  std::vector<std::string> errors;  // empty for a good row
  // Debezium deletes without a `before` image (invalid unless the key supplies the id).
  std::vector<uint8_t> key_only;
};

// Debezium envelopes decoded into `columns` (named `names`, `num_rows` rows): the row image
// each op picks (after for c/r/u, before for d) as the row type's columns, with their names
// in `row_names`; `keyed` gets each row's op, or the reason it is invalid (an unknown op, a
// missing image; a delete without `before` is also marked key_only). The rows of invalid
// ones are null.
Result<std::vector<columnar::Array>> ExtractDebeziumRows(std::vector<columnar::Array> columns,
                                                         const std::vector<std::string>& names,
                                                         int64_t num_rows,
                                                         std::vector<std::string>* row_names,
                                                         KeyedRows* keyed);

// The ops of records whose dotted `path` field (a string column, through structs) holds
// the cdc.field value.
Status CdcFieldOps(const std::vector<columnar::Array>& columns,
                   const std::vector<std::string>& names, std::string_view path, int64_t num_rows,
                   KeyedRows* keyed);

}  // namespace floe::ingest
