// DataWriter: writes column batches of a table as Parquet data files and describes them as
// DataFile values for a commit (Iceberg Java's GenericAppenderFactory + Parquet writer,
// PartitionedFanoutWriter and RollingFileWriter):
//
//   - rows are routed to their partition (the spec's transforms applied per batch with
//     Transform::ApplyToArray, rows grouped in one pass), one open file per partition;
//     when more than max_open_files are open the least recently written one is closed;
//   - a file is closed and a new one started once it reaches write.target-file-size-bytes
//     (512 MiB) by the Parquet writer's size estimate;
//   - Parquet settings come from the table properties (write.parquet.compression-codec,
//     -level, row-group-size-bytes, page-size-bytes, page-row-limit, dict-size-bytes,
//     bloom-filter-enabled.column.<name>, bloom-filter-fpp.column.<name>,
//     bloom-filter-max-bytes), metrics from write.metadata.metrics.* (metrics.h), file
//     locations from location.h.
//
// Files hold every column of the schema (identity partition sources included, spec
// Appendix A) and the footer key "iceberg.schema".
//
// Thread-safety: a writer is used by one thread at a time.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "floe/base/status.h"
#include "floe/columnar/array.h"
#include "floe/iceberg/manifest.h"
#include "floe/iceberg/partition_spec.h"
#include "floe/iceberg/schema.h"
#include "floe/iceberg/sort_order.h"
#include "floe/io/file_io.h"

namespace floe::iceberg {

inline constexpr std::string_view kTargetFileSizeProperty = "write.target-file-size-bytes";
inline constexpr int64_t kTargetFileSizeDefault = int64_t{512} << 20;
inline constexpr std::string_view kDeleteTargetFileSizeProperty =
    "write.delete.target-file-size-bytes";
inline constexpr int64_t kDeleteTargetFileSizeDefault = int64_t{64} << 20;

// What every writer needs to place and name its files.
struct FileWriterOptions {
  std::string table_location;
  std::map<std::string, std::string> properties;  // the table's
  // OutputFileFactory name parts; operation_id is normally a fresh UUID
  // (CommitEnvironment::NewUuid) and must not be empty.
  int32_t partition_id = 0;
  int64_t task_id = 0;
  std::string operation_id;
  // Overrides the table's target file size property when set.
  std::optional<int64_t> target_file_size_bytes;
  // At most this many files open at once (one per partition); >= 1.
  int max_open_files = 64;
};

// Where a written row went: `file` indexes DataWriter::file_paths(), `position` is its row
// position in that file (what position deletes and deletion vectors name).
struct RowLocation {
  uint32_t file = 0;
  int64_t position = 0;
};

namespace internal {
class PartitionedFileWriter;  // the shared fanout/rolling machinery (writer_internal.h)
}  // namespace internal

class DataWriter {
 public:
  // `io` must outlive the writer. `sort_order` is the table's default order; when
  // `input_sorted` the caller promises every batch arrives in that order and files record
  // its id. kInvalidArgument for unknown transforms, a spec that does not bind to the
  // schema, bad Parquet properties or an empty operation id.
  static Result<std::unique_ptr<DataWriter>> Make(io::FileIO* io, Schema schema, PartitionSpec spec,
                                                  SortOrder sort_order, bool input_sorted,
                                                  FileWriterOptions options);
  ~DataWriter();

  // Appends rows. The batch must have the schema's columnar form (Schema::ToColumnar:
  // same column types in order); kInvalidArgument otherwise, or naming the column for a
  // null in a required column or a value its type cannot hold (decimal precision, time of
  // day). After an error the writer should be aborted.
  Status Write(const columnar::RecordBatch& batch);
  // Write that also appends, per row, the file it went to and its position there: what a
  // later position delete of the row names (the keyed writer's key index, keyed_writer.h).
  Status Write(const columnar::RecordBatch& batch, std::vector<RowLocation>* locations);

  // Every file created so far, in creation order: RowLocation::file indexes this list,
  // which matches the paths of the DataFiles Close returns.
  const std::vector<std::string>& file_paths() const;

  // Closes all files and returns them (in the order they were closed).
  Result<std::vector<DataFile>> Close();
  // Deletes every file written so far (closed or open). Best effort: the first error.
  Status Abort();

 private:
  explicit DataWriter(std::unique_ptr<internal::PartitionedFileWriter> impl);
  std::unique_ptr<internal::PartitionedFileWriter> impl_;
};

// Checks a batch against `schema`'s columnar form: column count and types, no nulls in
// required top-level columns, decimals within their precision, times within a day.
// kInvalidArgument naming the column.
Status ValidateBatch(const Schema& schema, const columnar::RecordBatch& batch);

}  // namespace floe::iceberg
