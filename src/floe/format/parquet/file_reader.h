// FileReader: opens a Parquet file through FileIO, parses and checks its footer, and
// reads row groups as column batches: a whole row group (ReadRowGroup), or batches of at
// most N rows (ReadBatches: memory bounded by the batch, not the row group). Projection by
// field id or name; row-group skipping from statistics and Bloom filters (statistics.h).
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "floe/base/buffer.h"
#include "floe/base/status.h"
#include "floe/columnar/array.h"
#include "floe/format/parquet/column_reader.h"
#include "floe/format/parquet/encoding/bloom_filter.h"
#include "floe/format/parquet/metadata.h"
#include "floe/format/parquet/schema.h"
#include "floe/format/parquet/statistics.h"
#include "floe/io/coalesced_input.h"
#include "floe/io/file_io.h"

namespace floe::format::parquet {

struct ReaderOptions {
  // Verify page CRCs where the writer stored them.
  bool verify_crc = true;
  // The largest footer accepted (a bound against hostile length fields).
  // (A parsed footer takes up to ~30x its encoded size in memory.)
  uint64_t max_footer_bytes = uint64_t{64} << 20;
  // The largest uncompressed page, and decoded column chunk, accepted (bounds against
  // hostile sizes; see column_reader.h).
  int64_t max_page_bytes = int64_t{1} << 30;
  int64_t max_decoded_bytes = int64_t{2} << 30;
};

class FileReader;
class ColumnChunkReader;

// Reads row groups of a file as batches of at most a given number of rows: memory is
// bounded by the batch, whatever the row group size.
class BatchReader {
 public:
  ~BatchReader();
  // Returns the next batch, or nullopt after the last. Errors name the file.
  Result<std::optional<columnar::RecordBatch>> Next();

 private:
  friend class FileReader;
  BatchReader(const FileReader& reader, SchemaDescriptor::Projection projection, int64_t batch_rows,
              std::vector<int> row_groups);
  Result<std::optional<columnar::RecordBatch>> NextImpl();
  Status OpenRowGroup(int index);

  const FileReader& reader_;
  SchemaDescriptor::Projection projection_;
  columnar::SchemaPtr schema_;
  int64_t batch_rows_;
  std::vector<int> row_groups_;
  size_t next_row_group_ = 0;
  int current_ = -1;
  int64_t rows_left_ = 0;
  // The current row group's reads, coalesced; declared before the readers that use it.
  std::unique_ptr<io::CoalescedInputFile> file_;
  std::vector<std::unique_ptr<ColumnChunkReader>> columns_;  // by leaf index
};

class FileReader {
 public:
  // Reads and checks the footer. kCorrupt (naming the file) for a file that is not
  // Parquet or whose footer is malformed; kUnimplemented for encrypted footers.
  static Result<std::unique_ptr<FileReader>> Open(std::unique_ptr<io::InputFile> file,
                                                  ReaderOptions options = {});

  const std::string& location() const { return file_->location(); }
  const FileMetaData& metadata() const { return metadata_; }
  const SchemaDescriptor& schema() const { return *schema_; }
  int num_row_groups() const { return static_cast<int>(metadata_.row_groups.size()); }
  int64_t num_rows() const { return metadata_.num_rows; }
  // The file's key-value metadata, in order (absent values as empty strings).
  const columnar::KeyValueMetadata& key_value_metadata() const { return key_values_; }

  // Reads row group `index` with the columns of `projection`. The batch's schema is the
  // projection's, carrying the file's key-value metadata.
  // Thread-safety: concurrent calls are safe (the file is read with positional reads).
  Result<columnar::RecordBatch> ReadRowGroup(int index,
                                             const SchemaDescriptor::Projection& projection) const;

  // Reads the row groups in `row_groups` (all when empty), in order, as batches of at
  // most `batch_rows` rows of the columns of `projection`. The reader must outlive it.
  Result<std::unique_ptr<BatchReader>> ReadBatches(SchemaDescriptor::Projection projection,
                                                   int64_t batch_rows,
                                                   std::vector<int> row_groups = {}) const;

  // Row-group skipping: false only when the statistics of the row group, or for
  // equalities its Bloom filters, prove that no row satisfies every predicate.
  Result<bool> RowGroupMayMatch(int row_group, std::span<const ColumnPredicate> conjuncts) const;

  // Reads the Bloom filter of (row group, leaf), or nullopt if the writer stored none.
  Result<std::optional<BloomFilter>> ReadBloomFilter(int row_group, int leaf) const;

 private:
  FileReader(std::unique_ptr<io::InputFile> file, ReaderOptions options)
      : file_(std::move(file)), options_(options) {}
  Status ReadFooter();
  friend class BatchReader;
  ColumnReadOptions ColumnOptions() const;
  Status WithFile(Status s) const;

  std::unique_ptr<io::InputFile> file_;
  ReaderOptions options_;
  FileMetaData metadata_;
  std::unique_ptr<SchemaDescriptor> schema_;
  columnar::KeyValueMetadata key_values_;
  uint64_t data_end_ = 0;  // where the footer starts
  // The file's last bytes (up to 64 KiB, footer included), read at open, from tail_offset_.
  Buffer tail_;
  uint64_t tail_offset_ = 0;
};

}  // namespace floe::format::parquet
