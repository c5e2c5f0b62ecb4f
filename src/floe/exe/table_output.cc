#include "floe/exe/table_output.h"

#include <cstdio>

#include "floe/base/macros.h"
#include "floe/columnar/json.h"
#include "floe/format/parquet/file_writer.h"
#include "floe/format/text/writer.h"

namespace floe::exe {

namespace {

bool EndsWith(const std::string& s, std::string_view suffix) {
  return s.size() >= suffix.size() &&
         s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

class JsonLinesSink final : public RowSink {
 public:
  explicit JsonLinesSink(std::unique_ptr<io::OutputStream> out) : out_(std::move(out)) {}
  Status Write(const columnar::RecordBatch& batch) override {
    buffer_.clear();
    for (int64_t i = 0; i < batch.num_rows(); ++i) {
      columnar::AppendJsonLine(batch, i, &buffer_);
      if (buffer_.size() >= (1 << 20)) FLOE_RETURN_IF_ERROR(Flush());
    }
    return Flush();
  }
  Status Close() override {
    FLOE_RETURN_IF_ERROR(Flush());
    if (out_) return out_->Close();
    if (std::fflush(stdout) != 0) return Status::IOError("cannot write to standard output");
    return Status::OK();
  }

 private:
  Status Flush() {
    if (buffer_.empty()) return Status::OK();
    if (out_) {
      FLOE_RETURN_IF_ERROR(out_->Write(buffer_));
    } else if (std::fwrite(buffer_.data(), 1, buffer_.size(), stdout) != buffer_.size()) {
      return Status::IOError("cannot write to standard output");
    }
    buffer_.clear();
    return Status::OK();
  }
  std::unique_ptr<io::OutputStream> out_;  // null: stdout
  std::string buffer_;
};

class ParquetSink final : public RowSink {
 public:
  explicit ParquetSink(std::unique_ptr<format::parquet::FileWriter> w) : writer_(std::move(w)) {}
  Status Write(const columnar::RecordBatch& batch) override { return writer_->Write(batch); }
  Status Close() override { return writer_->Close().status(); }

 private:
  std::unique_ptr<format::parquet::FileWriter> writer_;
};

// RFC 4180 CSV with a header row (format/text/writer.h: nulls are empty cells).
class CsvSink final : public RowSink {
 public:
  CsvSink(std::unique_ptr<io::OutputStream> out, std::unique_ptr<format::text::CsvWriter> w)
      : out_(std::move(out)), writer_(std::move(w)) {}
  Status Write(const columnar::RecordBatch& batch) override { return writer_->Write(batch); }
  Status Close() override { return out_->Close(); }

 private:
  std::unique_ptr<io::OutputStream> out_;  // outlives writer_, which writes into it
  std::unique_ptr<format::text::CsvWriter> writer_;
};

}  // namespace

Status StdoutStream::Write(const void* data, size_t n) {
  if (n > 0 && std::fwrite(data, 1, n, stdout) != n) {
    return Status::IOError("cannot write to standard output");
  }
  position_ += n;
  return Status::OK();
}

Status StdoutStream::Close() {
  return std::fflush(stdout) == 0 ? Status::OK()
                                  : Status::IOError("cannot write to standard output");
}

Result<std::unique_ptr<RowSink>> OpenRowSink(io::FileIO& io, const std::string& format_in,
                                             const std::string& output,
                                             const columnar::Schema& schema,
                                             const std::string& codec) {
  std::string format = format_in;
  bool to_stdout = output.empty() || output == "-";
  if (format.empty()) {
    format = EndsWith(output, ".parquet") ? "parquet" : EndsWith(output, ".csv") ? "csv" : "jsonl";
  }
  if (!codec.empty() && format != "parquet") {
    return Status::InvalidArgument("--codec applies to --format parquet only");
  }
  if (format == "jsonl" || format == "json") {
    std::unique_ptr<io::OutputStream> out;
    if (!to_stdout) {
      FLOE_ASSIGN_OR_RETURN(out, io.CreateOutput(output, true));
    }
    return std::unique_ptr<RowSink>(new JsonLinesSink(std::move(out)));
  }
  if (format == "csv") {
    std::unique_ptr<io::OutputStream> out;
    if (to_stdout) {
      out = std::make_unique<StdoutStream>();
    } else {
      FLOE_ASSIGN_OR_RETURN(out, io.CreateOutput(output, true));
    }
    FLOE_ASSIGN_OR_RETURN(
        auto writer,
        format::text::CsvWriter::Make(out.get(), std::make_shared<const columnar::Schema>(schema)));
    return std::unique_ptr<RowSink>(new CsvSink(std::move(out), std::move(writer)));
  }
  if (format == "parquet") {
    if (to_stdout) return Status::InvalidArgument("--format parquet needs --output FILE");
    format::parquet::WriterOptions options;
    if (!codec.empty()) {
      FLOE_ASSIGN_OR_RETURN(options.compression, format::ParseCompressionKind(codec));
      // Checked before the output file is created, so a bad flag leaves no empty file.
      FLOE_RETURN_IF_ERROR(format::parquet::CheckParquetCompression(options.compression));
    }
    FLOE_ASSIGN_OR_RETURN(auto out, io.CreateOutput(output, true));
    FLOE_ASSIGN_OR_RETURN(auto desc, format::parquet::SchemaDescriptor::FromColumnar(schema));
    FLOE_ASSIGN_OR_RETURN(
        auto writer,
        format::parquet::FileWriter::Make(
            std::move(out),
            std::shared_ptr<const format::parquet::SchemaDescriptor>(std::move(desc)), options));
    return std::unique_ptr<RowSink>(new ParquetSink(std::move(writer)));
  }
  return Status::InvalidArgument("unknown output format '{}' (jsonl, csv or parquet)", format);
}

}  // namespace floe::exe
