// Row-level table operations that commit (the library side of `floe table delete` and
// `floe table upsert`, docs/cli.md):
//
//   - DeleteWhere: merge-on-read deletes of the rows a filter matches: position delete
//     files on format v2, deletion vectors on v3 (a data file's new vector merges its
//     previous vector and position deletes, so it keeps at most one), committed as a
//     RowDelta validated from the scanned snapshot;
//   - TableUpsert: rows replacing those with the same key, as equality deletes of the keys
//     plus the last row per key (KeyedDeltaWriter), committed as one RowDelta.
//
// Thread-safety: an operation is used by one thread at a time, like its Table.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "floe/base/status.h"
#include "floe/columnar/array.h"
#include "floe/iceberg/expression.h"
#include "floe/iceberg/keyed_writer.h"
#include "floe/iceberg/table.h"

namespace floe::iceberg {

struct DeleteWhereResult {
  int64_t deleted_rows = 0;
  // Delete files committed; 0: nothing matched and nothing was committed.
  size_t delete_files = 0;
  bool deletion_vectors = false;  // v3: the files are deletion vectors
};

// Called as the scan opens data files: (files opened so far, files to read).
using ScanProgress = std::function<void(int64_t files_opened, int64_t files_total)>;

// Deletes the rows of the table's current snapshot that `filter` matches (see above).
// kFailedPrecondition for a v1 table; kConflict when a concurrent commit removed a data
// file the deletes refer to; errors of the scan, the writers and the commit.
Result<DeleteWhereResult> DeleteWhere(Table& table, ExpressionPtr filter,
                                      const ScanProgress& progress = {});

struct UpsertResult {
  int64_t upserted_rows = 0;  // rows written: the last per key
  size_t data_files = 0;
  size_t equality_delete_files = 0;
};

class TableUpsert {
 public:
  // An upsert into `table` by `key_columns` (names; empty: the schema's identifier
  // fields). kFailedPrecondition for a v1 table; kInvalidArgument for an unknown column, no
  // key, or a key without a partition source column (Flink's rule: a key's rows stay in one
  // partition); kUnimplemented for a key inside a struct. REQUIRES: `table` outlives this.
  static Result<std::unique_ptr<TableUpsert>> Make(Table* table,
                                                   const std::vector<std::string>& key_columns);

  // The schema rows are added in: the table's current one at Make.
  const Schema& schema() const { return writer_->schema(); }

  // Holds rows (the schema's columnar form); of several rows with one key the last added
  // wins.
  Status Add(columnar::RecordBatch batch) { return writer_->Add(std::move(batch)); }

  // Writes the files and commits them as one RowDelta.
  Result<UpsertResult> Commit();

 private:
  TableUpsert() = default;
  Table* table_ = nullptr;
  std::unique_ptr<KeyedDeltaWriter> writer_;
};

}  // namespace floe::iceberg
