// `floe text convert`: JSON Lines / CSV / Parquet in, JSON Lines / CSV / Parquet out, for
// debugging the text readers and writers and for tests against other implementations.
#include <cstdio>
#include <memory>
#include <string>

#include "floe/base/macros.h"
#include "floe/exe/command.h"
#include "floe/exe/file_io_flags.h"
#include "floe/exe/table_output.h"
#include "floe/format/parquet/file_reader.h"
#include "floe/format/parquet/file_writer.h"
#include "floe/format/text/reader.h"
#include "floe/format/text/writer.h"
#include "floe/iceberg/schema.h"

namespace floe::exe {

namespace {

namespace pq = floe::format::parquet;
namespace text = floe::format::text;

enum class Format { kJsonLines, kCsv, kParquet, kNone };

Result<Format> FormatOf(const std::string& path, const std::string& forced) {
  std::string f = forced;
  if (f.empty()) {
    auto dot = path.rfind('.');
    f = dot == std::string::npos ? "" : path.substr(dot + 1);
  }
  if (f == "jsonl" || f == "ndjson" || f == "json") return Format::kJsonLines;
  if (f == "csv") return Format::kCsv;
  if (f == "parquet") return Format::kParquet;
  if (f == "none") return Format::kNone;
  return Status::InvalidArgument(
      "{}: cannot tell the format (use .jsonl, .csv or .parquet, or "
      "--format)",
      path);
}

struct ConvertArgs {
  std::string in;
  std::string out;
  std::string schema_json;
  std::string schema_file;
  std::string format;
  int64_t batch_rows = 65536;
  bool case_insensitive = false;
  bool ignore_unknown = false;
  bool no_header = false;
  std::string delimiter = ",";
  FileIOFlags io;
};

// Rows of the input that do not parse make the input corrupt for this command (exit 4).
Status AsCorrupt(Status st) {
  if (st.code() == StatusCode::kInvalidArgument) {
    return Status(StatusCode::kCorrupt, std::string(st.message()));
  }
  return st;
}

// A batch source over any input format.
class Source {
 public:
  virtual ~Source() = default;
  virtual Result<std::optional<columnar::RecordBatch>> Next() = 0;
};

template <typename Reader>
class TextSource final : public Source {
 public:
  explicit TextSource(std::unique_ptr<Reader> r) : reader_(std::move(r)) {}
  Result<std::optional<columnar::RecordBatch>> Next() override {
    auto r = reader_->Next();
    if (!r.ok()) return AsCorrupt(r.status());
    return r;
  }

 private:
  std::unique_ptr<Reader> reader_;
};

class ParquetSource final : public Source {
 public:
  ParquetSource(std::unique_ptr<pq::FileReader> file, std::unique_ptr<pq::BatchReader> batches)
      : file_(std::move(file)), batches_(std::move(batches)) {}
  Result<std::optional<columnar::RecordBatch>> Next() override { return batches_->Next(); }

 private:
  std::unique_ptr<pq::FileReader> file_;
  std::unique_ptr<pq::BatchReader> batches_;
};

Status Convert(const ConvertArgs& args, io::FileIO& fio) {
  FLOE_ASSIGN_OR_RETURN(Format in_format, FormatOf(args.in, ""));
  FLOE_ASSIGN_OR_RETURN(
      Format out_format,
      FormatOf(args.out, args.out == "-" && args.format.empty() ? "jsonl" : args.format));
  if (args.delimiter.size() != 1) {
    return Status::InvalidArgument("--delimiter must be one character");
  }
  if (args.batch_rows <= 0) return Status::InvalidArgument("--batch-rows must be positive");

  columnar::SchemaPtr schema;
  std::string schema_json = args.schema_json;
  if (!args.schema_file.empty()) {
    FLOE_ASSIGN_OR_RETURN(Buffer b, fio.ReadFile(args.schema_file));
    schema_json = std::string(b.view());
  }
  if (!schema_json.empty()) {
    FLOE_ASSIGN_OR_RETURN(iceberg::Schema s, iceberg::SchemaFromJson(schema_json));
    schema = std::make_shared<columnar::Schema>(s.ToColumnar());
  }

  std::unique_ptr<Source> source;
  FLOE_ASSIGN_OR_RETURN(auto file, fio.OpenInput(args.in));
  if (in_format == Format::kParquet) {
    FLOE_ASSIGN_OR_RETURN(auto reader, pq::FileReader::Open(std::move(file)));
    FLOE_ASSIGN_OR_RETURN(auto batches,
                          reader->ReadBatches(reader->schema().ProjectAll(), args.batch_rows));
    if (!schema) schema = reader->schema().schema();
    source = std::make_unique<ParquetSource>(std::move(reader), std::move(batches));
  } else {
    if (!schema) {
      return Status::InvalidArgument("{}: a text input needs --schema-json or --schema-file",
                                     args.in);
    }
    text::ReadOptions options;
    options.batch_rows = args.batch_rows;
    options.case_insensitive = args.case_insensitive;
    options.ignore_unknown_fields = args.ignore_unknown;
    options.header = !args.no_header;
    options.delimiter = args.delimiter[0];
    if (in_format == Format::kJsonLines) {
      auto r = text::JsonLinesReader::Open(std::move(file), schema, options);
      if (!r.ok()) return AsCorrupt(r.status());
      source = std::make_unique<TextSource<text::JsonLinesReader>>(std::move(*r));
    } else {
      auto r = text::CsvReader::Open(std::move(file), schema, options);
      if (!r.ok()) return AsCorrupt(r.status());
      source = std::make_unique<TextSource<text::CsvReader>>(std::move(*r));
    }
  }

  if (out_format == Format::kNone) {  // read only: validate and count
    int64_t rows = 0;
    while (true) {
      FLOE_ASSIGN_OR_RETURN(auto batch, source->Next());
      if (!batch) break;
      rows += batch->num_rows();
    }
    std::printf("%lld rows\n", static_cast<long long>(rows));
    return Status::OK();
  }
  std::unique_ptr<io::OutputStream> out;
  if (args.out == "-") {
    out = std::make_unique<StdoutStream>();
  } else {
    FLOE_ASSIGN_OR_RETURN(out, fio.CreateOutput(args.out, /*overwrite=*/true));
  }
  if (out_format == Format::kParquet) {
    FLOE_ASSIGN_OR_RETURN(std::shared_ptr<const pq::SchemaDescriptor> descriptor,
                          pq::SchemaDescriptor::FromColumnar(*schema));
    FLOE_ASSIGN_OR_RETURN(auto writer, pq::FileWriter::Make(std::move(out), descriptor, {}));
    while (true) {
      FLOE_ASSIGN_OR_RETURN(auto batch, source->Next());
      if (!batch) break;
      FLOE_RETURN_IF_ERROR(writer->Write(*batch));
    }
    return writer->Close().status();
  }
  std::unique_ptr<text::CsvWriter> csv;
  std::unique_ptr<text::JsonLinesWriter> jsonl;
  if (out_format == Format::kCsv) {
    text::CsvWriteOptions options;
    options.delimiter = args.delimiter[0];
    options.header = !args.no_header;
    FLOE_ASSIGN_OR_RETURN(csv, text::CsvWriter::Make(out.get(), schema, options));
  } else {
    jsonl = std::make_unique<text::JsonLinesWriter>(out.get());
  }
  while (true) {
    FLOE_ASSIGN_OR_RETURN(auto batch, source->Next());
    if (!batch) break;
    FLOE_RETURN_IF_ERROR(csv ? csv->Write(*batch) : jsonl->Write(*batch));
  }
  return out->Close();
}

}  // namespace

void AddTextCommands(CLI::App& app, int* exit_code) {
  auto* text_cmd = app.add_subcommand("text", "Read and write JSON Lines and CSV files");
  text_cmd->require_subcommand(1);
  auto* convert = text_cmd->add_subcommand(
      "convert", "Convert between JSON Lines, CSV and Parquet (formats from the extensions)");
  auto args = std::make_shared<ConvertArgs>();
  convert->add_option("input", args->in, "File to read (.jsonl, .csv, .parquet)")->required();
  convert->add_option("output", args->out, "File to write (.jsonl, .csv, .parquet; - = stdout)")
      ->required();
  convert->add_option("--schema-json", args->schema_json, "Iceberg schema JSON of the rows");
  convert->add_option("--schema-file", args->schema_file, "File holding the Iceberg schema JSON");
  convert
      ->add_option(
          "--format", args->format,
          "Output format, overriding the extension (none: read, check and count rows only)")
      ->check(CLI::IsMember({"jsonl", "csv", "parquet", "none"}));
  convert->add_option("--batch-rows", args->batch_rows, "Rows per batch");
  convert->add_flag("--case-insensitive", args->case_insensitive,
                    "Match field names ignoring case when there is no exact match");
  convert->add_flag("--ignore-unknown-fields", args->ignore_unknown,
                    "Skip JSON fields and CSV columns not in the schema");
  convert->add_flag("--no-header", args->no_header,
                    "CSV without a header row (columns by position)");
  convert->add_option("--delimiter", args->delimiter, "CSV delimiter (default ,)");
  AddFileIOFlags(convert, &args->io);
  SetCommand(convert, exit_code, [args]() -> Status {
    FLOE_ASSIGN_OR_RETURN(CommandFileIO fio, MakeCommandFileIO(args->io));
    FLOE_RETURN_IF_ERROR(Convert(*args, *fio.io).WithContext("{}", args->in));
    fio.PrintStats(args->io);
    return Status::OK();
  });
}

}  // namespace floe::exe
