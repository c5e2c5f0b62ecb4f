// Internal to the data and delete writers (data_writer.cc, delete_writer.cc): Parquet
// options from table properties, the per-batch partitioner and the partitioned, rolling
// Parquet file writer they share.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "floe/base/status.h"
#include "floe/columnar/array.h"
#include "floe/format/parquet/file_writer.h"
#include "floe/format/parquet/schema.h"
#include "floe/iceberg/data_writer.h"
#include "floe/iceberg/literal.h"
#include "floe/iceberg/location.h"
#include "floe/iceberg/manifest.h"
#include "floe/iceberg/metrics.h"
#include "floe/iceberg/partition_spec.h"
#include "floe/iceberg/schema.h"
#include "floe/io/file_io.h"

namespace floe::iceberg::internal {

// Parquet writer options from the table properties: "write.parquet.*", or for delete files
// "write.delete.parquet.*" falling back to the data file keys. Statistics of string and
// binary columns are kept long enough for the metrics modes (untruncated for full).
Result<format::parquet::WriterOptions> ParquetOptionsFromProperties(
    const std::map<std::string, std::string>& properties, bool delete_file,
    const Schema& file_schema, const format::parquet::SchemaDescriptor& descriptor,
    const MetricsConfig& metrics);

// The value of row `i` of `array` (a value of `type`'s columnar form) as a Literal.
Result<Literal> ArrayValueToLiteral(const columnar::Array& array, int64_t i, const TypePtr& type);

// Groups the rows of batches by their partition tuple under a spec.
class Partitioner {
 public:
  // kInvalidArgument when a source field is missing, inside a list or map, or its
  // transform is unknown or does not apply.
  static Result<Partitioner> Make(const Schema& schema, const PartitionSpec& spec);

  struct Split {
    std::vector<int32_t> group_of_row;       // one per row
    std::vector<std::vector<Literal>> keys;  // one per group, typed by the partition type
    std::vector<int64_t> rows;               // rows per group
  };
  // Computes the groups of `batch` (the schema's columnar form). Rows are hashed and
  // compared in place; only the groups' keys are allocated.
  Status Compute(const columnar::RecordBatch& batch, Split* out) const;

 private:
  struct FieldPlan {
    std::vector<size_t> path;  // column index, then struct child indices
    TypePtr source_type;
    TypePtr result_type;
    Transform transform;
  };
  std::vector<FieldPlan> fields_;
};

// What distinguishes the files of one writer.
struct FileKind {
  FileContent content = FileContent::kData;
  std::string suffix;  // file name suffix ("deletes" for delete files)
  std::optional<std::vector<int32_t>> equality_ids;
  std::optional<int32_t> sort_order_id;
};

// Writes rows of `file_schema` into Parquet files, one open file per partition, rolling at
// the target size and closing the least recently written file beyond max_open_files.
class PartitionedFileWriter {
 public:
  // `spec` partitions rows in Write(); WriteTo() names the partition explicitly.
  static Result<std::unique_ptr<PartitionedFileWriter>> Make(io::FileIO* io, Schema file_schema,
                                                             PartitionSpec spec,
                                                             MetricsConfig metrics, FileKind kind,
                                                             const FileWriterOptions& options,
                                                             int64_t default_target_bytes);
  ~PartitionedFileWriter();

  const Schema& schema() const { return schema_; }
  const columnar::SchemaPtr& columnar_schema() const { return descriptor_->schema(); }

  // Routes each row to the partition of its own values under the writer's spec. With
  // `locations`, appends each row's file (its index in paths()) and position.
  Status Write(const columnar::RecordBatch& batch, std::vector<RowLocation>* locations = nullptr);
  // Appends rows to the given partition of `spec`.
  Status WriteTo(const PartitionSpec& spec, const std::vector<Literal>& partition,
                 const columnar::RecordBatch& batch);
  Result<std::vector<DataFile>> Close();
  Status Abort();

  // Every file created so far, in creation order (RowLocation::file indexes it).
  const std::vector<std::string>& paths() const { return written_; }

 private:
  struct Target;
  PartitionedFileWriter() = default;
  Result<Target*> FindOrAdd(const PartitionSpec& spec, const std::vector<Literal>& partition);
  // `locations` (may be null): the rows' locations, one per row of `batch`.
  Status WriteRows(Target* target, const columnar::RecordBatch& batch, RowLocation* locations);
  Status Open(Target* target);
  Status CloseFile(Target* target);

  io::FileIO* io_ = nullptr;
  Schema schema_;
  PartitionSpec spec_;
  std::optional<Partitioner> partitioner_;
  std::vector<Literal> null_partition_;  // unpartitioned specs
  MetricsConfig metrics_;
  FileKind kind_;
  std::shared_ptr<const format::parquet::SchemaDescriptor> descriptor_;
  format::parquet::WriterOptions parquet_options_;
  int64_t target_bytes_ = 0;
  int max_open_files_ = 1;
  std::optional<LocationProvider> locations_;
  std::unique_ptr<OutputFileFactory> names_;
  std::unordered_map<std::string, std::unique_ptr<Target>> targets_;
  int open_files_ = 0;
  uint64_t clock_ = 0;
  std::vector<std::string> written_;  // every file created, for Abort
  std::vector<DataFile> done_;
  Partitioner::Split split_;  // reused across batches
  bool closed_ = false;
};

}  // namespace floe::iceberg::internal
