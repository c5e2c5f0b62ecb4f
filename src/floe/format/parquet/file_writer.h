// FileWriter: writes column batches as a Parquet file through an OutputStream. Memory is
// bounded by one row group: pages are encoded and compressed as values arrive and held
// until the row group is flushed (a dictionary page must precede its data pages).
//
// The writer profile follows parquet.md §11: PLAIN and RLE_DICTIONARY (falling back to
// PLAIN when a dictionary outgrows its limit), RLE levels, data page v1 or v2, every
// codec, statistics with TYPE_ORDER column orders, optional split-block Bloom filters.
// Close() reports what Iceberg manifests need per column (sizes, counts, bounds).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "floe/base/status.h"
#include "floe/columnar/array.h"
#include "floe/format/compression/codec.h"
#include "floe/format/parquet/metadata.h"
#include "floe/format/parquet/schema.h"
#include "floe/io/file_io.h"

namespace floe::format::parquet {

struct WriterOptions {
  CompressionKind compression = CompressionKind::kZstd;
  int compression_level = kDefaultCompressionLevel;
  // A row group is flushed once its encoded size reaches this.
  int64_t row_group_bytes = int64_t{128} << 20;
  // A data page is cut once its encoded values reach this many bytes or rows.
  int64_t page_bytes = int64_t{1} << 20;
  int64_t page_rows = 20000;
  bool dictionary = true;
  // A column falls back to PLAIN when its dictionary grows past this many bytes.
  int64_t dictionary_page_bytes = int64_t{1} << 20;
  int page_version = 1;  // 1 or 2
  bool write_page_crc = false;
  // Leaves (by index) that get a Bloom filter, its target false-positive rate and its
  // maximum size.
  std::set<int> bloom_filter_leaves;
  double bloom_filter_fpp = 0.01;
  int64_t bloom_filter_max_bytes = int64_t{1} << 20;
  // Binary min/max statistics longer than this are truncated (and marked inexact).
  size_t statistics_truncate_bytes = 64;
  std::string created_by = "floe version 0.1.0";
  // Written to the footer as given (a value may be absent, as the format allows).
  std::vector<KeyValue> key_value_metadata;
};

// What the writer learned about one leaf column over the whole file, in Parquet terms.
struct ColumnMetrics {
  int leaf = 0;
  std::optional<int32_t> field_id;
  int64_t compressed_bytes = 0;  // column chunks incl. page headers and dictionary pages
  int64_t value_count = 0;       // level entries, nulls included (Iceberg value_counts)
  int64_t null_count = 0;
  std::optional<int64_t> nan_count;  // float/double only
  std::optional<std::string> min;    // PLAIN bytes of the physical type
  std::optional<std::string> max;    // absent when some row group had no upper bound
  bool min_exact = true;
  bool max_exact = true;
};

struct WriteResult {
  int64_t file_bytes = 0;
  int64_t num_rows = 0;
  std::vector<int64_t> row_group_offsets;  // Iceberg split offsets
  std::vector<ColumnMetrics> columns;      // one per leaf
  FileMetaData metadata;
};

class ColumnWriter;

// kInvalidArgument for block codecs Parquet has no code for (raw deflate, LZ4 frame);
// FileWriter::Make checks it too, but callers can fail before creating the output.
Status CheckParquetCompression(CompressionKind kind);

class FileWriter {
 public:
  // Writes the leading magic. `schema` describes the file; batches must have its columnar
  // schema (schema->schema()). kInvalidArgument for bad options.
  static Result<std::unique_ptr<FileWriter>> Make(std::unique_ptr<io::OutputStream> out,
                                                  std::shared_ptr<const SchemaDescriptor> schema,
                                                  WriterOptions options);
  ~FileWriter();

  // Appends the rows of `batch`. kInvalidArgument if its types differ from the schema or a
  // required column holds nulls.
  Status Write(const columnar::RecordBatch& batch);
  // Flushes the buffered rows as a row group now (no-op when none are buffered).
  Status FlushRowGroup();
  // Writes the last row group, the Bloom filters and the footer, and closes the stream.
  Result<WriteResult> Close();

  int64_t num_rows() const { return num_rows_; }
  // Bytes written plus bytes buffered: an estimate of the file size so far.
  int64_t EstimatedSize() const;

 private:
  FileWriter(std::unique_ptr<io::OutputStream> out, std::shared_ptr<const SchemaDescriptor> schema,
             WriterOptions options);
  Status WriteSlice(const columnar::RecordBatch& batch, int64_t offset, int64_t length);
  int64_t BufferedBytes() const;

  std::unique_ptr<io::OutputStream> out_;
  std::shared_ptr<const SchemaDescriptor> schema_;
  WriterOptions options_;
  std::unique_ptr<Codec> codec_;
  std::vector<std::unique_ptr<ColumnWriter>> columns_;
  FileMetaData metadata_;
  int64_t num_rows_ = 0;
  int64_t row_group_rows_ = 0;
  std::vector<int64_t> row_group_offsets_;
  bool closed_ = false;
};

}  // namespace floe::format::parquet
