// Table scans: planning (which data files, with which delete files) and reading (the
// live rows of those files as column batches).
//
// Planning follows the spec's "Scan Planning": the snapshot is chosen by id, ref or time
// (snapshot log); manifests are pruned by their partition summaries, data files by their
// partition tuple and column metrics, all through the inclusive projection of the row
// filter; delete files are indexed and matched to data files by the sequence-number rules
// (DESIGN.md §4 rule 3):
//   - equality deletes apply to data files with a strictly smaller data sequence number,
//     globally when the delete file's spec is unpartitioned, else in the same partition;
//   - position deletes and deletion vectors apply to data files with a smaller or equal
//     data sequence number in the same partition (file-scoped ones only to their file);
//   - a deletion vector for a data file replaces that file's position delete files.
// Reading applies position deletes (as a position bitmap), equality deletes (a hash set of
// delete keys per equality field set; nulls match nulls; bounded by a memory budget with a
// key filter and spilling when ScanOptions::equality_deletes asks, equality_deletes.h) and
// the row filter, then keeps the projected columns.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "floe/base/status.h"
#include "floe/columnar/array.h"
#include "floe/format/puffin/deletion_vector.h"
#include "floe/iceberg/data_reader.h"
#include "floe/iceberg/equality_deletes.h"
#include "floe/iceberg/expression.h"
#include "floe/iceberg/expression_eval.h"
#include "floe/iceberg/manifest.h"
#include "floe/iceberg/schema.h"
#include "floe/iceberg/table_metadata.h"
#include "floe/io/file_io.h"

namespace floe::iceberg {

// A content file with the sequence numbers its manifest entry carries (after inheritance).
struct ScanFile {
  DataFile file;
  int64_t data_sequence_number = 0;
  int64_t file_sequence_number = 0;
};

// One data file to read and the delete files that apply to it.
struct FileScanTask {
  std::shared_ptr<const ScanFile> data;
  // Position delete files and at most one deletion vector (a DV replaces position files).
  std::vector<std::shared_ptr<const ScanFile>> position_deletes;
  std::vector<std::shared_ptr<const ScanFile>> equality_deletes;
};

class ManifestEntryCache;  // manifest_cache.h

struct ScanOptions {
  // Which snapshot: at most one of these; none = the current snapshot of `main`.
  std::optional<int64_t> snapshot_id;
  std::optional<std::string> ref;
  std::optional<int64_t> as_of_timestamp_ms;
  // Row filter (unbound); null = all rows.
  ExpressionPtr filter;
  // Columns to return by name (dotted names select nested fields); empty = all.
  std::vector<std::string> columns;
  bool case_sensitive = true;
  // Stop after this many rows (reading only).
  std::optional<int64_t> limit;
  // Plan only the data manifests at positions [first, second) of the snapshot's manifest
  // list (delete manifests are always read): a slice of a plan, for REST plan tasks.
  std::optional<std::pair<size_t, size_t>> manifest_range;
  // Keep the column metrics of planned data files even without a filter.
  bool keep_stats = false;
  // Incremental append scan (Java IncrementalAppendScan): only the data files added by
  // `append` snapshots after this one (exclusive) up to the scan snapshot (inclusive), with
  // no delete files. The snapshot must be an ancestor of the scan snapshot.
  std::optional<int64_t> from_snapshot_id;
  DataReadOptions read;
  // Memory budget, spill directory and key cache for equality deletes
  // (equality_deletes.h); the default holds every delete key in memory.
  EqualityDeleteOptions equality_deletes;
  // Decoded manifests kept between plans (null: every manifest is read); must outlive
  // PlanFiles.
  ManifestEntryCache* manifest_cache = nullptr;
};

struct ScanMetrics {
  int64_t manifests_total = 0;
  int64_t manifests_skipped = 0;
  int64_t data_files_total = 0;
  int64_t data_files_skipped = 0;
  int64_t delete_files = 0;
};

class TableScan {
 public:
  // Resolves the snapshot and schema and binds the filter. Errors: kNotFound for an
  // unknown snapshot id, ref or a time before the first snapshot; kInvalidArgument for a
  // bad filter or unknown column.
  static Result<std::unique_ptr<TableScan>> Make(TableMetadataPtr metadata, io::FileIO& io,
                                                 ScanOptions options);

  // The snapshot read (nullptr for a table without snapshots: nothing to read).
  const Snapshot* snapshot() const { return snapshot_; }
  // The schema rows are returned in (the projection of the scan schema).
  const std::shared_ptr<const Schema>& projected_schema() const { return projected_; }
  const Schema& scan_schema() const { return *schema_; }
  // The row filter bound to the scan schema (True() without a filter).
  const BoundExpressionPtr& bound_filter() const { return filter_; }

  // Plans the scan. Reads the manifest list and manifests of the snapshot.
  Result<std::vector<FileScanTask>> PlanFiles();
  const ScanMetrics& metrics() const { return metrics_; }

  // Reads tasks as batches of projected_schema(), deletes and filter applied. Batches may
  // be empty. Reads every task in order; stops after options.limit rows.
  class Reader;
  Result<std::unique_ptr<Reader>> Open(std::vector<FileScanTask> tasks);

 private:
  friend class Reader;
  TableScan() = default;

  TableMetadataPtr metadata_;
  io::FileIO* io_ = nullptr;
  ScanOptions options_;
  const Snapshot* snapshot_ = nullptr;
  std::shared_ptr<const Schema> schema_;
  std::shared_ptr<const Schema> projected_;
  BoundExpressionPtr filter_;  // bound to schema_
  ScanMetrics metrics_;
};

class TableScan::Reader {
 public:
  ~Reader();
  // The next batch, or nullopt at the end.
  Result<std::optional<columnar::RecordBatch>> Next();

  // For row-level deletes: the file positions of the next batch's live rows that match the
  // filter, and the task they belong to (positions ascend within a task). nullopt at the
  // end. Use either Next() or NextMatches() on one reader, not both.
  struct Matches {
    const FileScanTask* task = nullptr;
    std::vector<int64_t> positions;
  };
  Result<std::optional<Matches>> NextMatches();
  int64_t rows_returned() const { return rows_returned_; }
  // Data files opened so far (the current one included) and in all: scan progress.
  size_t tasks_opened() const { return next_task_; }
  size_t task_count() const { return tasks_.size(); }
  // How the equality deletes were applied so far (memory-bounded reads).
  const EqualityDeleteStats& equality_stats() const;

 private:
  friend class TableScan;
  struct State;
  Reader(TableScan* scan, std::vector<FileScanTask> tasks);
  Status OpenTask();
  // Chooses how each set of equality field ids is applied and resolves the spilled ones.
  Status PlanEqualityDeletes();
  Status ComputeKeep(const PositionedBatch& batch);

  TableScan* scan_;
  std::vector<FileScanTask> tasks_;
  size_t next_task_ = 0;
  int64_t rows_returned_ = 0;
  std::unique_ptr<State> state_;
};

// The positions a position delete file (Parquet, Avro or ORC rows of file_path, pos) deletes
// in data file `data_file_path`. kCorrupt for null or negative values.
Result<format::puffin::PositionBitmap> ReadPositionDeletes(io::FileIO& io,
                                                           const std::string& delete_file_path,
                                                           std::string_view data_file_path);

// The deletes data file `task` already has, for its new deletion vector to merge (v3: a
// data file keeps one DV, and readers ignore its position delete files once it has one):
// its DV and the positions of its position delete files, added to `positions`; `files`
// gets the delete files read, for DeletionVectorWriter::MergePrevious (which reports the
// file-scoped ones as rewritten; a partition-scoped position file stays, it still deletes
// rows of other data files).
Status LoadPreviousDeletes(io::FileIO& io, const FileScanTask& task,
                           format::puffin::PositionBitmap* positions, std::vector<DataFile>* files);

// The fields of `schema` named by `columns` (dotted names select nested struct fields,
// keeping their parents); all fields when `columns` is empty. kInvalidArgument for an
// unknown name.
Result<Schema> ProjectSchema(const Schema& schema, const std::vector<std::string>& columns,
                             bool case_sensitive = true);

}  // namespace floe::iceberg
