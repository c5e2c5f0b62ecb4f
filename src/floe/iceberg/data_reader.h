// DataFileReader: reads one Parquet data (or delete) file of an Iceberg table as column
// batches of a requested read schema, resolving columns by field id the way the spec's
// "Column Projection" section says:
//   - a field in the file is read and converted to the read type (the type promotions
//     int -> long, float -> double, decimal widening, date -> timestamp; renamed fields
//     are found by id; nested structs, lists and maps are resolved recursively);
//   - a field missing from the file takes its constant (the identity-partition value
//     passed by the caller), else its initial-default, else null;
//   - files without field ids get them from the table's name mapping first.
// Batches carry the file position of their first row, for position deletes.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "floe/base/status.h"
#include "floe/columnar/array.h"
#include "floe/format/parquet/file_reader.h"
#include "floe/iceberg/literal.h"
#include "floe/iceberg/name_mapping.h"
#include "floe/iceberg/schema.h"
#include "floe/io/file_io.h"

namespace floe::iceberg {

struct DataReadOptions {
  int64_t batch_rows = 64 * 1024;
  format::parquet::ReaderOptions parquet;
};

struct PositionedBatch {
  columnar::RecordBatch batch;
  int64_t first_position = 0;  // file position of the batch's first row
};

class DataFileReader {
 public:
  // Opens `path`. `read_schema` lists the fields to return, in order (a projection of the
  // table schema; it may hold fields of older schemas, e.g. dropped equality-delete
  // columns). `constants` maps field ids to the values of fields that are not stored in
  // data files (identity-partition source columns). `mapping` (may be null) assigns ids
  // to files that have none; without it such files are matched by the read schema's
  // names. Errors: kNotFound for a missing file, kCorrupt for a malformed one.
  static Result<std::unique_ptr<DataFileReader>> Open(io::FileIO& io, const std::string& path,
                                                      std::shared_ptr<const Schema> read_schema,
                                                      std::map<int32_t, Literal> constants,
                                                      const NameMapping* mapping,
                                                      DataReadOptions options = {});

  // The next batch (schema: read_schema->ToColumnar()), or nullopt after the last row.
  // kInvalidArgument (naming the file and column) for a column whose stored type cannot
  // be read as the read type.
  Result<std::optional<PositionedBatch>> Next();

  int64_t num_rows() const { return parquet_->num_rows(); }
  const std::string& path() const { return path_; }

 private:
  DataFileReader() = default;
  Result<columnar::RecordBatch> Conform(columnar::RecordBatch file_batch) const;

  std::string path_;
  std::shared_ptr<const Schema> read_schema_;
  columnar::SchemaPtr out_schema_;
  std::map<int32_t, Literal> constants_;
  DataReadOptions options_;
  std::unique_ptr<format::parquet::FileReader> parquet_;
  std::unique_ptr<format::parquet::SchemaDescriptor> mapped_schema_;  // when name-mapped
  format::parquet::SchemaDescriptor::Projection projection_;
  int row_group_ = -1;
  int64_t row_group_start_ = 0;
  int64_t rows_in_group_done_ = 0;
  std::unique_ptr<format::parquet::BatchReader> batches_;
};

// An array of `n` copies of `value` (nulls when it is null) in the columnar form of
// `type`. kInvalidArgument when the value does not fit the type.
Result<columnar::Array> ConstantArray(const Literal& value, const Type& type, int64_t n);

// Converts an array read from a file to the columnar form of `target`, applying the
// type promotions and resolving nested fields by id (missing nested fields become null
// or their initial-default). kInvalidArgument when the types are incompatible.
Result<columnar::Array> ConformArray(columnar::Array array, const NestedField& target);

}  // namespace floe::iceberg
