#include "floe/format/text/writer.h"

#include <cstring>

#include "floe/base/macros.h"
#include "floe/columnar/json.h"
#include "floe/format/text/scalar.h"

namespace floe::format::text {

namespace {

constexpr size_t kFlushBytes = size_t{1} << 20;

}  // namespace

Status JsonLinesWriter::Write(const columnar::RecordBatch& batch) {
  for (int64_t row = 0; row < batch.num_rows(); ++row) {
    columnar::AppendJsonLine(batch, row, &buffer_);
    if (buffer_.size() >= kFlushBytes) {
      FLOE_RETURN_IF_ERROR(out_->Write(buffer_));
      buffer_.clear();
    }
  }
  if (!buffer_.empty()) FLOE_RETURN_IF_ERROR(out_->Write(buffer_));
  buffer_.clear();
  return Status::OK();
}

Result<std::unique_ptr<CsvWriter>> CsvWriter::Make(io::OutputStream* out,
                                                   columnar::SchemaPtr schema,
                                                   CsvWriteOptions options) {
  if (options.delimiter == '"' || options.delimiter == '\n' || options.delimiter == '\r') {
    return Status::InvalidArgument("CSV delimiter cannot be a quote or a line break");
  }
  std::unique_ptr<CsvWriter> w(new CsvWriter(out, std::move(schema), options));
  if (options.header) {
    for (size_t c = 0; c < w->schema_->num_fields(); ++c) {
      if (c > 0) w->buffer_.push_back(options.delimiter);
      w->AppendCell(w->schema_->field(c).name, w->schema_->num_fields() == 1);
    }
    w->buffer_.push_back('\n');
    FLOE_RETURN_IF_ERROR(out->Write(w->buffer_));
    w->buffer_.clear();
  }
  return w;
}

void CsvWriter::AppendCell(std::string_view text, bool quote_if_empty) {
  bool quote = text.empty() ? quote_if_empty : false;
  for (char c : text) {
    if (c == options_.delimiter || c == '"' || c == '\n' || c == '\r') {
      quote = true;
      break;
    }
  }
  if (!quote) {
    buffer_.append(text);
    return;
  }
  buffer_.push_back('"');
  for (char c : text) {
    buffer_.push_back(c);
    if (c == '"') buffer_.push_back('"');
  }
  buffer_.push_back('"');
}

Status CsvWriter::Write(const columnar::RecordBatch& batch) {
  if (batch.num_columns() != schema_->num_fields()) {
    return Status::InvalidArgument("CSV writer: batch has {} columns, the schema {}",
                                   batch.num_columns(), schema_->num_fields());
  }
  for (int64_t row = 0; row < batch.num_rows(); ++row) {
    for (size_t c = 0; c < batch.num_columns(); ++c) {
      if (c > 0) buffer_.push_back(options_.delimiter);
      const columnar::Array& a = batch.column(c);
      if (a.IsNull(row)) continue;
      cell_.clear();
      if (a.type()->is_nested() || a.type_id() == columnar::TypeId::kNull) {
        JsonWriter w(&cell_);
        columnar::WriteJsonValue(a, row, w);
      } else {
        AppendScalarText(a, row, &cell_);
      }
      // An empty value is quoted to tell it from null.
      AppendCell(cell_, true);
    }
    buffer_.push_back('\n');
    if (buffer_.size() >= kFlushBytes) {
      FLOE_RETURN_IF_ERROR(out_->Write(buffer_));
      buffer_.clear();
    }
  }
  if (!buffer_.empty()) FLOE_RETURN_IF_ERROR(out_->Write(buffer_));
  buffer_.clear();
  return Status::OK();
}

}  // namespace floe::format::text
