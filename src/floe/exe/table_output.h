// Output of table rows for `floe table scan` and `floe iceberg scan`: JSON Lines (default,
// the value forms of docs/cli.md), CSV or Parquet, to a file (local or s3://) or standard
// output.
#pragma once

#include <memory>
#include <string>

#include "floe/base/status.h"
#include "floe/columnar/array.h"
#include "floe/io/file_io.h"

namespace floe::exe {

// Standard output as an OutputStream (an output path of "-").
class StdoutStream final : public io::OutputStream {
 public:
  const std::string& location() const override { return location_; }
  Status Write(const void* data, size_t n) override;
  uint64_t position() const override { return position_; }
  Status Close() override;

 private:
  std::string location_ = "-";
  uint64_t position_ = 0;
};

class RowSink {
 public:
  virtual ~RowSink() = default;
  virtual Status Write(const columnar::RecordBatch& batch) = 0;
  virtual Status Close() = 0;
};

// `format` is "jsonl", "csv" or "parquet" (empty: from the output file's extension, else
// jsonl). `output` empty or "-" is standard output (not for parquet); other outputs are
// created through `io` (an s3:// output streams as a multipart upload: memory holds one
// part, and for Parquet the row group being encoded). `io` must outlive the sink.
// `schema` is the columnar schema of the batches (field ids kept in Parquet output).
// `codec` names the Parquet compression (ParseCompressionKind: snappy, zstd, gzip, lz4,
// none); empty: zstd, Iceberg's default. Other formats take no codec.
Result<std::unique_ptr<RowSink>> OpenRowSink(io::FileIO& io, const std::string& format,
                                             const std::string& output,
                                             const columnar::Schema& schema,
                                             const std::string& codec = "");

}  // namespace floe::exe
