// KeyedBatchWriter: the keyed-topic stage of the translator (translator.h; upsert.enable,
// cdc.field, flatten_debezium). It holds the decoded rows of the pending commit with each
// row's op (registry_cdc.h: kOpUpsert, kOpDelete) and, at the commit, writes them against
// the table's current metadata with iceberg::KeyedDeltaWriter: the last row of each key
// that is not a delete, and
//   - in position mode (delete.mode=position, the default): a position delete (v2) or a
//     deletion-vector bit (v3) of each key's earlier row, found in the key index
//     (key_index.h), so the table never holds an equality delete;
//   - in equality mode: an equality delete of every key touched.
// The caller commits the files as one RowDelta and, in position mode, reports the
// commit's snapshot back (Committed) so that the index follows it. Rows are held rather
// than written as they come because a key's rows within one commit reduce to its last.
//
// Thread-safety: used by one thread at a time.
#pragma once

#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "floe/base/status.h"
#include "floe/columnar/array.h"
#include "floe/iceberg/keyed_writer.h"
#include "floe/iceberg/table.h"
#include "floe/ingest/key_index.h"

namespace floe::ingest {

// The files of one keyed commit.
struct KeyedCommitFiles {
  std::vector<iceberg::DataFile> data_files;
  // Equality deletes, or (position mode) position delete files or deletion vectors.
  std::vector<iceberg::DataFile> delete_files;
  int64_t data_rows = 0;
  // Position mode: the DVs the new ones replace, the data files the deletes name, the
  // snapshot they were found in, and the index update.
  std::optional<PositionalDeletes> positional;
};

class KeyedBatchWriter {
 public:
  // `table_name` names the table in errors; `id_columns` are the topic's id.columns.
  // `key_index` (may be null: equality mode only) must outlive the writer.
  KeyedBatchWriter(std::string table_name, std::vector<std::string> id_columns,
                   KeyIndexStore* key_index = nullptr)
      : table_name_(std::move(table_name)),
        id_columns_(std::move(id_columns)),
        key_index_(key_index) {}

  // Holds `batch` (the table's columns) with one op per row. kInternal when the counts
  // differ.
  Status Hold(columnar::RecordBatch batch, std::span<const char> ops);

  bool empty() const { return held_.empty(); }

  // Writes the held rows as files of `table` (its current schema, spec and properties; the
  // data files unsorted) and forgets them; `positional` picks the mode (see above; it needs
  // a key index). kFailedPrecondition when the schema lacks an id column or position mode
  // has no key index; writer and key index errors.
  Result<KeyedCommitFiles> Write(iceberg::Table& table, bool positional);

  // Position mode: the files of the last Write committed as `snapshot_id` (parent
  // `parent_snapshot_id`); the key index records them.
  Status Committed(const PositionalDeletes& deletes, int64_t snapshot_id,
                   std::optional<int64_t> parent_snapshot_id);
  // The table is gone (dropped, or re-created under the name): forget its key index.
  void ForgetIndex() { index_.reset(); }

  void Clear() {
    held_.clear();
    ops_.clear();
  }

 private:
  std::string table_name_;
  std::vector<std::string> id_columns_;
  KeyIndexStore* key_index_;
  std::unique_ptr<TableKeyIndex> index_;  // position mode, for the id columns' field ids
  std::vector<int32_t> index_key_ids_;
  std::vector<columnar::RecordBatch> held_;         // of one schema: a schema change commits first
  std::vector<std::vector<iceberg::KeyedOp>> ops_;  // by held batch
};

}  // namespace floe::ingest
