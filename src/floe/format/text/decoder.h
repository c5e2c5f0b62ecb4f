// RowDecoder: appends text values to the column builders of one schema. Internal to the
// text readers: the JSON Lines reader hands it whole lines (one object per row), the CSV
// reader hands it cells; both go through the same per-type scalar parsers (scalar.h), and
// nested CSV cells through the same JSON value code.
//
// Errors are kInvalidArgument, "line N, field "a.b": expected X, found Y". After an error
// the builders hold a partial row: the reader stops.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "floe/base/status.h"
#include "floe/columnar/builder.h"
#include "floe/format/text/options.h"

namespace floe::format::text::internal {

class RowDecoder {
 public:
  // kUnimplemented for column types the text forms do not cover (unsigned, float16,
  // time32, unions).
  static Result<std::unique_ptr<RowDecoder>> Make(columnar::SchemaPtr schema,
                                                  const ReadOptions& options);

  const columnar::Schema& schema() const { return *schema_; }
  // The line number errors name.
  void set_line(int64_t line) { line_ = line; }

  // Decodes `text`, one JSON object, as the next row.
  Status DecodeJsonRow(std::string_view text);

  // Top-level column matching `name` (exactly, then ignoring case if configured), or -1.
  int FindColumn(std::string_view name);
  // Appends a null to column `c`: an error for a required column.
  Status AppendNull(size_t c, bool missing);
  // Appends `text` parsed as a value of column `c` (JSON text for nested columns).
  Status AppendText(size_t c, std::string_view text);
  // Counts one finished row (CSV; DecodeJsonRow counts its own).
  void EndRow() { ++rows_; }

  int64_t num_rows() const { return rows_; }
  // The rows so far as a batch; the decoder starts a new one.
  columnar::RecordBatch Finish();

 private:
  struct Node {
    const columnar::Field* field = nullptr;
    columnar::TypeId id = columnar::TypeId::kNull;
    columnar::ArrayBuilder* builder = nullptr;
    std::vector<Node> children;  // struct fields; list element; map key, value
    std::vector<uint8_t> seen;   // struct: fields present in the object being decoded
    size_t next = 0;             // struct: the field expected next (key order hint)
  };
  // A field path for messages, linked through the stack: a name, or a list index.
  struct Path {
    const Path* parent;
    std::string_view name;
    int64_t index;
  };

  RowDecoder(columnar::SchemaPtr schema, const ReadOptions& options);
  Status Build(Node* node, const columnar::Field& field, columnar::ArrayBuilder* builder);

  Status ValueError(const Path& path, std::string_view expected, std::string_view found);
  Status SyntaxError(const Path* path, std::string_view what);
  Status AppendNullAt(Node& n, const Path& path, bool missing);
  Status AppendTextAt(Node& n, const Path& path, std::string_view text);
  int Lookup(Node& n, std::string_view key);

  // JSON over [p_, end_).
  void SkipWs() {
    while (p_ < end_ && (*p_ == ' ' || *p_ == '\t' || *p_ == '\r' || *p_ == '\n')) ++p_;
  }
  Status ParseValue(Node& n, const Path& path, int depth);
  Status ParseObject(Node& n, const Path* path, int depth);
  Status ParseList(Node& n, const Path& path, int depth);
  Status ParseMap(Node& n, const Path& path, int depth);
  // Reads a string at p_ (at its opening quote); the view points into the input, or into
  // scratch_ when it had escapes. False for a malformed string.
  bool ParseString(std::string_view* out);
  std::string_view NumberToken();
  bool Literal(std::string_view word);
  // Skips one value at p_; false if malformed or deeper than the limit.
  bool SkipValue(int depth);
  Status TypeMismatch(Node& n, const Path& path, int depth, std::string_view expected);

  columnar::SchemaPtr schema_;
  ReadOptions options_;
  std::vector<std::unique_ptr<columnar::ArrayBuilder>> builders_;
  Node root_;
  int64_t line_ = 0;
  int64_t rows_ = 0;
  const char* p_ = nullptr;
  const char* end_ = nullptr;
  std::string scratch_;  // unescaped strings
  std::string bytes_;    // decoded hex
};

}  // namespace floe::format::text::internal
