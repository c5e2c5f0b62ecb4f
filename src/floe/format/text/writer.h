// Writers of column batches as JSON Lines and CSV (what `floe table scan --format jsonl|csv`
// writes). The JSON Lines form is the one `floe parquet cat` prints (columnar/json.h); CSV
// cells hold the same text (scalar.h), nested values as JSON text. What they write, the
// readers (reader.h) read back to equal batches.
//
// The writers do not own the stream: the caller closes it. Thread-safety: one per thread.
#pragma once

#include <memory>
#include <string>

#include "floe/base/json_writer.h"
#include "floe/base/status.h"
#include "floe/columnar/array.h"
#include "floe/format/text/options.h"
#include "floe/io/file_io.h"

namespace floe::format::text {

class JsonLinesWriter {
 public:
  // REQUIRES: `out` outlives the writer.
  explicit JsonLinesWriter(io::OutputStream* out) : out_(out) {}

  // Writes one line per row of `batch`.
  Status Write(const columnar::RecordBatch& batch);

 private:
  io::OutputStream* out_;
  std::string buffer_;
};

// RFC 4180: CRLF-free output ('\n' records), cells quoted only when needed (delimiter,
// quote, CR or LF inside, or an empty string, which is written "" to tell it from null);
// a null is an empty cell.
class CsvWriter {
 public:
  // Writes the header row (the schema's field names) unless options.header is false.
  // REQUIRES: `out` outlives the writer.
  static Result<std::unique_ptr<CsvWriter>> Make(io::OutputStream* out, columnar::SchemaPtr schema,
                                                 CsvWriteOptions options = {});

  // Writes one record per row. kInvalidArgument if the batch's column count differs.
  Status Write(const columnar::RecordBatch& batch);

 private:
  CsvWriter(io::OutputStream* out, columnar::SchemaPtr schema, CsvWriteOptions options)
      : out_(out), schema_(std::move(schema)), options_(options) {}
  void AppendCell(std::string_view text, bool quote_if_empty);

  io::OutputStream* out_;
  columnar::SchemaPtr schema_;
  CsvWriteOptions options_;
  std::string buffer_;
  std::string cell_;
};

}  // namespace floe::format::text
