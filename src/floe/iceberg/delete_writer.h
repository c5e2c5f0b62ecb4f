// Delete file writers (Iceberg spec "Row-level Deletes", "Deletion Vectors"; Iceberg Java's
// PositionDeleteWriter / SortingPositionOnlyDeleteWriter, EqualityDeleteWriter and
// BaseDVFileWriter):
//
//   PositionDeleteWriter   (file_path, pos) rows, sorted by path then position, one
//                          Parquet file per partition of the targeted data files
//   EqualityDeleteWriter   rows of the equality columns, partitioned like data files
//   DeletionVectorWriter   v3: one Puffin file with one deletion vector per data file,
//                          merged with the data file's previous deletes
//
// File names use the "deletes" suffix ("...-00001-deletes.parquet", "-deletes.puffin");
// Parquet settings, target sizes (write.delete.target-file-size-bytes, 64 MiB) and
// locations come from the table properties as for data files (data_writer.h).
//
// Thread-safety: a writer is used by one thread at a time.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "floe/base/status.h"
#include "floe/columnar/array.h"
#include "floe/format/puffin/deletion_vector.h"
#include "floe/iceberg/data_writer.h"
#include "floe/iceberg/location.h"
#include "floe/iceberg/manifest.h"
#include "floe/iceberg/partition_spec.h"
#include "floe/iceberg/schema.h"
#include "floe/io/file_io.h"

namespace floe::iceberg {

// Reserved field ids and names of position delete files (spec "Position Delete Files").
inline constexpr int32_t kDeleteFilePathFieldId = 2147483546;
inline constexpr int32_t kDeleteFilePosFieldId = 2147483545;

// The schema of position delete files: required file_path string, required pos long.
const Schema& PositionDeleteSchema();

struct DeleteWriteResult {
  std::vector<DataFile> delete_files;
  // Data files the new delete files refer to, sorted.
  std::vector<std::string> referenced_data_files;
  // Previous delete files whose deletes were merged into the new ones (deletion vectors):
  // a commit removes them.
  std::vector<DataFile> rewritten_delete_files;
};

class PositionDeleteWriter {
 public:
  // `io` must outlive the writer. kInvalidArgument for bad options.
  static Result<std::unique_ptr<PositionDeleteWriter>> Make(io::FileIO* io,
                                                            FileWriterOptions options);
  ~PositionDeleteWriter();

  // Records deletes of rows `positions` of data file `data_file_path`, which lives in
  // `partition` of `spec`. Positions may come in any order and repeat. kInvalidArgument
  // for negative positions or a partition that does not fit the spec.
  Status Delete(std::string_view data_file_path, std::span<const int64_t> positions,
                const PartitionSpec& spec, const std::vector<Literal>& partition);

  // Writes one file per partition (more when one exceeds the target size), rows sorted by
  // path then position without duplicates. A file covering one data file names it in
  // referenced_data_file and keeps file_path / pos bounds; like Java, counts of the two
  // columns are omitted, and bounds too when a file covers several data files.
  Result<DeleteWriteResult> Close();
  Status Abort();

 private:
  struct Group;
  PositionDeleteWriter() = default;

  io::FileIO* io_ = nullptr;
  FileWriterOptions options_;
  std::map<std::string, std::unique_ptr<Group>> groups_;  // by partition key
  std::unique_ptr<internal::PartitionedFileWriter> files_;
  bool closed_ = false;
};

class EqualityDeleteWriter {
 public:
  // Rows have the columnar form of `row_schema` (fields of the table schema with the same
  // ids and types; it must hold every equality field and, for partitioned specs, every
  // partition source: Flink's rule). kInvalidArgument for equality ids that are not
  // primitive fields of `row_schema`, missing partition sources or bad options.
  static Result<std::unique_ptr<EqualityDeleteWriter>> Make(io::FileIO* io, Schema row_schema,
                                                            std::vector<int32_t> equality_ids,
                                                            PartitionSpec spec,
                                                            FileWriterOptions options);
  ~EqualityDeleteWriter();

  // Appends delete rows (validated as DataWriter::Write does).
  Status Write(const columnar::RecordBatch& batch);
  Result<DeleteWriteResult> Close();
  Status Abort();

 private:
  EqualityDeleteWriter() = default;
  Schema schema_;
  std::unique_ptr<internal::PartitionedFileWriter> files_;
};

class DeletionVectorWriter {
 public:
  // `io` must outlive the writer.
  static Result<std::unique_ptr<DeletionVectorWriter>> Make(io::FileIO* io,
                                                            FileWriterOptions options);
  ~DeletionVectorWriter();

  // Records deletes of rows `positions` of data file `data_file_path` in `partition` of
  // `spec`. kInvalidArgument for negative or too large positions, or a data file seen
  // before with another spec or partition.
  Status Delete(std::string_view data_file_path, std::span<const int64_t> positions,
                const PartitionSpec& spec, const std::vector<Literal>& partition);
  // The data file's deletes from earlier snapshots (its current deletion vector, or the
  // positions of position delete files naming it) and the delete files they came from.
  // They are merged into the new vector, and `previous_files` are reported as rewritten,
  // so the table keeps at most one deletion vector per data file. Only data files that
  // get new deletes are rewritten; previous deletes of others are ignored.
  Status MergePrevious(std::string_view data_file_path,
                       const format::puffin::PositionBitmap& previous,
                       std::vector<DataFile> previous_files);

  // Writes the Puffin file (nothing when there are no deletes) and one DataFile per data
  // file: POSITION_DELETES, format PUFFIN, the data file's spec and partition,
  // referenced_data_file, content_offset / content_size_in_bytes of its blob and
  // record_count = the vector's cardinality.
  Result<DeleteWriteResult> Close();
  Status Abort();

 private:
  struct Entry;
  DeletionVectorWriter() = default;

  io::FileIO* io_ = nullptr;
  std::optional<LocationProvider> locations_;
  std::unique_ptr<OutputFileFactory> names_;
  std::map<std::string, Entry, std::less<>> entries_;  // by data file path
  std::string written_;
  bool closed_ = false;
};

}  // namespace floe::iceberg
