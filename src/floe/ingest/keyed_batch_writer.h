// KeyedBatchWriter: the keyed-topic stage of the translator (translator.h; upsert.enable,
// cdc.field, flatten_debezium). It holds the decoded rows of the pending commit with each
// row's op (registry_cdc.h: kOpUpsert, kOpDelete) and, at the commit, writes them against
// the table's current metadata with iceberg::KeyedDeltaWriter: an equality delete of every
// key touched and the last row of each key that is not a delete, committed by the caller as
// one RowDelta. Rows are held rather than written as they come because an equality delete
// cannot remove a row of its own commit (keyed_writer.h).
//
// Thread-safety: used by one thread at a time.
#pragma once

#include <span>
#include <string>
#include <vector>

#include "floe/base/status.h"
#include "floe/columnar/array.h"
#include "floe/iceberg/keyed_writer.h"
#include "floe/iceberg/table.h"

namespace floe::ingest {

class KeyedBatchWriter {
 public:
  // `table_name` names the table in errors; `id_columns` are the topic's id.columns.
  KeyedBatchWriter(std::string table_name, std::vector<std::string> id_columns)
      : table_name_(std::move(table_name)), id_columns_(std::move(id_columns)) {}

  // Holds `batch` (the table's columns) with one op per row. kInternal when the counts
  // differ.
  Status Hold(columnar::RecordBatch batch, std::span<const char> ops);

  bool empty() const { return held_.empty(); }

  // Writes the held rows as files of `table` (its current schema, spec and properties; the
  // data files unsorted) and forgets them. kFailedPrecondition when the schema lacks an id
  // column; writer errors.
  Result<iceberg::KeyedWriteResult> Write(iceberg::Table& table);

  void Clear() {
    held_.clear();
    ops_.clear();
  }

 private:
  std::string table_name_;
  std::vector<std::string> id_columns_;
  std::vector<columnar::RecordBatch> held_;         // of one schema: a schema change commits first
  std::vector<std::vector<iceberg::KeyedOp>> ops_;  // by held batch
};

}  // namespace floe::ingest
