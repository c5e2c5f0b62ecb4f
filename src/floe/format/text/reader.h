// Readers of JSON Lines and CSV files into column batches of a given schema (what
// `floe table append` reads). Both stream the file a chunk at a time: memory is one chunk,
// the longest record and one batch of built columns.
//
// Value forms (README.md has the full table): numbers for numeric columns (NaN, Infinity,
// -Infinity as strings for floats), decimals as exact numbers or strings, ISO-8601 text for
// dates, times and timestamps (an offset required for timestamptz, none for timestamp),
// UUIDs 8-4-4-4-12, binary and fixed as hex, structs as objects, lists as arrays, maps as
// objects or arrays of [key, value] pairs. CSV cells hold the same text as JSON strings
// (nested values: JSON text); an empty unquoted cell is null, a quoted empty cell ("") an
// empty string.
//
// Errors are kInvalidArgument naming the line and the field path; read errors of the file
// are passed through. After an error the reader is done (Next keeps returning it).
//
// Thread-safety: one reader per thread.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "floe/base/status.h"
#include "floe/columnar/array.h"
#include "floe/format/text/options.h"
#include "floe/io/file_io.h"

namespace floe::format::text {

namespace internal {
class ChunkedInput;
class RowDecoder;
}  // namespace internal

// One JSON object per line ('\n' or "\r\n"); blank lines are skipped.
class JsonLinesReader {
 public:
  // kUnimplemented for schema types without a text form (unsigned, float16, unions).
  static Result<std::unique_ptr<JsonLinesReader>> Open(std::unique_ptr<io::InputFile> file,
                                                       columnar::SchemaPtr schema,
                                                       ReadOptions options = {});
  ~JsonLinesReader();

  // The next batch of at most options.batch_rows rows, or nullopt after the last.
  Result<std::optional<columnar::RecordBatch>> Next();

 private:
  JsonLinesReader(std::unique_ptr<internal::ChunkedInput> input,
                  std::unique_ptr<internal::RowDecoder> decoder, ReadOptions options);

  std::unique_ptr<internal::ChunkedInput> input_;
  std::unique_ptr<internal::RowDecoder> decoder_;
  ReadOptions options_;
  int64_t line_ = 0;
  Status error_;
};

// RFC 4180 CSV: quoted fields with doubled quotes, newlines inside quotes, LF or CRLF
// records. With a header (the default), columns match schema fields by name: schema fields
// not in the header are null, header names not in the schema are errors unless
// ignore_unknown_fields. Empty lines are skipped unless the schema has one column (then
// they are nulls). Cells are not trimmed.
class CsvReader {
 public:
  // Reads the header (kInvalidArgument for a bad one).
  static Result<std::unique_ptr<CsvReader>> Open(std::unique_ptr<io::InputFile> file,
                                                 columnar::SchemaPtr schema,
                                                 ReadOptions options = {});
  ~CsvReader();

  // The next batch of at most options.batch_rows rows, or nullopt after the last.
  Result<std::optional<columnar::RecordBatch>> Next();

 private:
  struct Cell {
    size_t begin;  // offset from the record's start
    size_t size;
    bool quoted;
    bool escaped;  // has doubled quotes
  };
  enum class Scan { kRecord, kNeedMore, kEnd };

  CsvReader(std::unique_ptr<internal::ChunkedInput> input,
            std::unique_ptr<internal::RowDecoder> decoder, ReadOptions options);
  Status ReadHeader();
  // Splits the next record into cells_, filling the window as needed.
  Result<Scan> NextRecord();
  Scan ScanRecord(const char* b, const char* e, bool eof, size_t* consumed, int64_t* newlines,
                  Status* error);
  std::string_view CellText(const char* record, const Cell& cell);

  std::unique_ptr<internal::ChunkedInput> input_;
  std::unique_ptr<internal::RowDecoder> decoder_;
  ReadOptions options_;
  std::vector<Cell> cells_;
  size_t max_cells_;
  std::vector<int> column_of_cell_;     // schema column of each CSV column, or -1
  std::vector<size_t> absent_columns_;  // schema columns not in the header
  const char* record_ = nullptr;        // the current record (valid until the next scan)
  size_t record_bytes_ = 0;
  int64_t record_line_ = 0;
  int64_t next_line_ = 1;
  std::string unescaped_;
  std::array<bool, 256> special_{};  // bytes that end an unquoted cell
  Status error_;
};

}  // namespace floe::format::text
