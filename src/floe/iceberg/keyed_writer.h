// KeyedDeltaWriter: the files of one keyed (upsert / CDC) commit. Rows arrive with an op
// each, upsert or delete; Finish writes an equality delete file of every key they touch and
// data files of the last row of each key whose last op is not a delete (Iceberg Java's
// BaseTaskWriter.BaseEqualityDeltaWriter, as Flink's upsert writer commits). The caller
// commits both as one RowDelta.
//
// Why rows are held until Finish: an equality delete applies only to data files of lower
// sequence numbers (Iceberg spec, Row-level deletes), so it cannot remove a row of its own
// commit; two rows of a key in one commit must be reduced to the last one before writing.
// Duplicates are found with an EqualityKeyTable (equality_key.h): one arena of key bytes,
// no allocation per row.
//
// Thread-safety: a writer is used by one thread at a time.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "floe/base/status.h"
#include "floe/columnar/array.h"
#include "floe/iceberg/data_writer.h"
#include "floe/iceberg/manifest.h"
#include "floe/iceberg/partition_spec.h"
#include "floe/iceberg/schema.h"
#include "floe/iceberg/sort_order.h"
#include "floe/io/file_io.h"

namespace floe::iceberg {

enum class KeyedOp : uint8_t {
  kUpsert,  // the row replaces any earlier row of its key
  kDelete,  // the key's earlier rows are removed; the row itself is not written
};

struct KeyedWriterOptions {
  // The data files' sort order (rows are not sorted; it selects the column metrics, as
  // DataWriter's does).
  SortOrder sort_order;
  // Placement and names of the equality delete files and of the data files; each needs an
  // operation id. They may share one: delete files are named with a "-deletes" suffix.
  FileWriterOptions deletes;
  FileWriterOptions data;
};

struct KeyedWriteResult {
  std::vector<DataFile> data_files;
  std::vector<DataFile> delete_files;
  int64_t data_rows = 0;  // rows in data_files: one per key whose last op is an upsert
  int64_t keys = 0;       // distinct keys: rows in delete_files
};

// The outcome of a keyed commit written without equality deletes (FinishPositional): the
// data files and, per distinct key of the commit, its encoded bytes (AppendKey) and where
// its new row went, for the caller to turn the key's earlier row into a position delete
// (it knows where keys live: ingest/key_index.h).
struct KeyedPositionalResult {
  std::vector<DataFile> data_files;
  std::vector<std::string> file_paths;  // RowLocation::file indexes this (DataWriter::file_paths)
  int64_t data_rows = 0;
  int64_t keys = 0;
  // Distinct keys, their bytes back to back: key k is key_arena[key_ends[k-1], key_ends[k]).
  std::string key_arena;
  std::vector<uint32_t> key_ends;
  // By key: false for a key whose last op is a delete (it has no new row).
  std::vector<uint8_t> key_written;
  // By key: the new row's location (meaningful when key_written).
  std::vector<RowLocation> key_locations;

  std::string_view key(size_t k) const {
    const size_t begin = k == 0 ? 0 : key_ends[k - 1];
    return std::string_view(key_arena).substr(begin, key_ends[k] - begin);
  }
};

class KeyedDeltaWriter {
 public:
  // `io` must outlive the writer. `key_ids`: field ids of top-level columns of `schema`,
  // the equality ids of the delete files in this order. kInvalidArgument for no key,
  // kUnimplemented for a key that is not a top-level column. The rest (key types, writer
  // options) is checked when Finish opens the writers.
  static Result<std::unique_ptr<KeyedDeltaWriter>> Make(io::FileIO* io, Schema schema,
                                                        PartitionSpec spec,
                                                        std::vector<int32_t> key_ids,
                                                        KeyedWriterOptions options);
  ~KeyedDeltaWriter();

  // Holds `batch` (the schema's columnar form), every row an upsert.
  Status Add(columnar::RecordBatch batch);
  // Holds `batch` with one op per row. kInvalidArgument when the counts differ.
  Status Add(columnar::RecordBatch batch, std::span<const KeyedOp> ops);

  const Schema& schema() const { return schema_; }
  int64_t held_rows() const { return held_rows_; }

  // Writes the held rows (see above) and closes the files. Nothing is written before this.
  // A failed Finish deletes what it wrote. Call once.
  Result<KeyedWriteResult> Finish();
  // Writes only the data files (the last row of each key not deleted) and reports every
  // distinct key with its new row's location; no delete file. Call once, instead of Finish.
  Result<KeyedPositionalResult> FinishPositional();

 private:
  KeyedDeltaWriter() = default;

  // Marks, from the last row back, the rows that are their key's last (keep_key) and the
  // ones among them to write as data (keep_row).
  Status MarkLastPerKey(int64_t* keys, int64_t* data_rows);

  io::FileIO* io_ = nullptr;
  Schema schema_;
  PartitionSpec spec_;
  std::vector<int32_t> key_ids_;
  std::vector<size_t> key_columns_;  // by key: its column in the batches
  KeyedWriterOptions options_;

  std::vector<columnar::RecordBatch> held_;
  std::vector<std::vector<KeyedOp>> ops_;  // by held batch; empty: all upserts
  std::vector<std::vector<uint8_t>> keep_key_;
  std::vector<std::vector<uint8_t>> keep_row_;
  int64_t held_rows_ = 0;
  bool finished_ = false;
};

}  // namespace floe::iceberg
