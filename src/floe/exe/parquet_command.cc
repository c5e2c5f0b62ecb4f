// `floe parquet meta|schema|cat|rewrite` on local files and s3:// objects (file_io_flags.h).
#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include "floe/base/macros.h"
#include "floe/columnar/json.h"
#include "floe/exe/command.h"
#include "floe/exe/file_io_flags.h"
#include "floe/exe/progress.h"
#include "floe/format/parquet/file_reader.h"
#include "floe/format/parquet/file_writer.h"
#include "floe/format/parquet/metadata_json.h"

namespace floe::exe {

namespace pq = floe::format::parquet;

namespace {

// Rows decoded at a time: memory follows the batch, not the row group.
constexpr int64_t kBatchRows = 65536;

Result<std::unique_ptr<pq::FileReader>> OpenParquet(io::FileIO& fio, const std::string& path) {
  FLOE_ASSIGN_OR_RETURN(auto file, fio.OpenInput(path));
  return pq::FileReader::Open(std::move(file));
}

Status WriteStdout(const std::string& s) {
  if (!s.empty() && std::fwrite(s.data(), 1, s.size(), stdout) != s.size()) {
    return Status::IOError("writing to stdout failed");
  }
  return Status::OK();
}

std::vector<std::string> SplitCommas(const std::string& s) {
  std::vector<std::string> out;
  size_t start = 0;
  while (start <= s.size()) {
    size_t comma = s.find(',', start);
    std::string part =
        s.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    if (!part.empty()) out.push_back(part);
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return out;
}

struct CatArgs {
  std::string file;
  std::string columns;
  int64_t limit = -1;
  FileIOFlags io;
};

Status Cat(const CatArgs& args, io::FileIO& fio) {
  FLOE_ASSIGN_OR_RETURN(auto reader, OpenParquet(fio, args.file));
  pq::SchemaDescriptor::Projection projection;
  if (args.columns.empty()) {
    projection = reader->schema().ProjectAll();
  } else {
    FLOE_ASSIGN_OR_RETURN(projection, reader->schema().ProjectByNames(SplitCommas(args.columns)));
  }
  int64_t remaining = args.limit < 0 ? INT64_MAX : args.limit;
  FLOE_ASSIGN_OR_RETURN(
      auto batches,
      reader->ReadBatches(std::move(projection), std::clamp<int64_t>(remaining, 1, kBatchRows)));
  std::string out;
  while (remaining > 0) {
    FLOE_ASSIGN_OR_RETURN(auto batch, batches->Next());
    if (!batch) break;
    const int64_t rows = std::min(batch->num_rows(), remaining);
    for (int64_t i = 0; i < rows; ++i) {
      columnar::AppendJsonLine(*batch, i, &out);
      if (out.size() > (1 << 20)) {
        FLOE_RETURN_IF_ERROR(WriteStdout(out));
        out.clear();
      }
    }
    remaining -= rows;
  }
  return WriteStdout(out);
}

struct RewriteArgs {
  std::string in;
  std::string out;
  std::string codec;
  int level = format::kDefaultCompressionLevel;
  int64_t row_group_bytes = 0;
  int64_t page_bytes = 0;
  std::string dictionary = "on";
  int page_version = 1;
  std::string bloom_filter;
  double bloom_fpp = 0.01;
  std::string page_crc = "off";
  FileIOFlags io;
};

// The codec an input chunk uses, as a codec floe writes (Hadoop-framed LZ4, which DuckDB
// cannot read, becomes LZ4_RAW).
format::CompressionKind InputCodec(const pq::FileMetaData& md) {
  for (const auto& rg : md.row_groups) {
    for (const auto& c : rg.columns) {
      if (!c.meta_data) continue;
      switch (c.meta_data->codec) {
        case pq::CompressionCodec::kSnappy: return format::CompressionKind::kSnappy;
        case pq::CompressionCodec::kGzip: return format::CompressionKind::kGzip;
        case pq::CompressionCodec::kZstd: return format::CompressionKind::kZstd;
        case pq::CompressionCodec::kLz4:
        case pq::CompressionCodec::kLz4Raw: return format::CompressionKind::kLz4Raw;
        case pq::CompressionCodec::kUncompressed: return format::CompressionKind::kUncompressed;
        default: break;
      }
    }
  }
  return format::CompressionKind::kSnappy;
}

Result<int> FindLeaf(const pq::SchemaDescriptor& schema, const std::string& name) {
  for (const auto& leaf : schema.leaves()) {
    if (leaf.PathString() == name) return leaf.index;
  }
  // Also accept the columnar path, which skips the list / key_value levels.
  for (const auto& leaf : schema.leaves()) {
    std::string path;
    for (const auto& part : leaf.path) {
      if (part == "list" || part == "key_value") continue;
      if (!path.empty()) path += '.';
      path += part;
    }
    if (path == name) return leaf.index;
  }
  return Status::NotFound("no leaf column named '{}'", name);
}

Status Rewrite(const RewriteArgs& args, io::FileIO& fio) {
  FLOE_ASSIGN_OR_RETURN(auto reader, OpenParquet(fio, args.in));
  FLOE_ASSIGN_OR_RETURN(std::shared_ptr<const pq::SchemaDescriptor> schema,
                        pq::SchemaDescriptor::Make(reader->metadata().schema));
  pq::WriterOptions options;
  if (args.codec.empty()) {
    options.compression = InputCodec(reader->metadata());
  } else {
    FLOE_ASSIGN_OR_RETURN(options.compression, format::ParseCompressionKind(args.codec));
  }
  options.compression_level = args.level;
  if (args.row_group_bytes > 0) options.row_group_bytes = args.row_group_bytes;
  if (args.page_bytes > 0) options.page_bytes = args.page_bytes;
  if (args.dictionary != "on" && args.dictionary != "off") {
    return Status::InvalidArgument("--dictionary must be on or off");
  }
  options.dictionary = args.dictionary == "on";
  options.page_version = args.page_version;
  options.write_page_crc = args.page_crc == "on";
  options.bloom_filter_fpp = args.bloom_fpp;
  for (const auto& name : SplitCommas(args.bloom_filter)) {
    FLOE_ASSIGN_OR_RETURN(int leaf, FindLeaf(*schema, name));
    options.bloom_filter_leaves.insert(leaf);
  }
  options.key_value_metadata =
      reader->metadata().key_value_metadata.value_or(std::vector<pq::KeyValue>());
  FLOE_ASSIGN_OR_RETURN(auto out, fio.CreateOutput(args.out, /*overwrite=*/true));
  FLOE_ASSIGN_OR_RETURN(auto writer, pq::FileWriter::Make(std::move(out), schema, options));
  FLOE_ASSIGN_OR_RETURN(auto batches,
                        reader->ReadBatches(reader->schema().ProjectAll(), kBatchRows));
  ProgressBar progress = ProgressBar::OnTerminal("rewrite", reader->metadata().num_rows, "rows");
  int64_t rows = 0;
  for (;;) {
    FLOE_ASSIGN_OR_RETURN(auto batch, batches->Next());
    if (!batch) break;
    Status s = writer->Write(*batch);
    if (!s.ok()) return s.WithContext("{}", args.out);
    rows += batch->num_rows();
    progress.Update(rows);
  }
  progress.Finish();
  auto result = writer->Close();
  if (!result.ok()) return std::move(result).status().WithContext("{}", args.out);
  return Status::OK();
}

}  // namespace

void AddParquetCommands(CLI::App& app, int* exit_code) {
  auto* parquet = app.add_subcommand("parquet", "Inspect and rewrite Parquet files");
  parquet->require_subcommand(1);

  // Each command's flags live in a shared_ptr owned by its callback, so they outlive this
  // function without globals.
  auto meta_file = std::make_shared<std::string>();
  auto meta_io = std::make_shared<FileIOFlags>();
  auto* meta = parquet->add_subcommand("meta", "Print the footer as JSON");
  meta->add_option("FILE", *meta_file, "Parquet file")->required();
  AddFileIOFlags(meta, meta_io.get());
  SetCommand(meta, exit_code, [meta_file, meta_io] {
    FLOE_ASSIGN_OR_RETURN(CommandFileIO fio, MakeCommandFileIO(*meta_io));
    FLOE_ASSIGN_OR_RETURN(auto reader, OpenParquet(*fio.io, *meta_file));
    FLOE_RETURN_IF_ERROR(
        WriteStdout(pq::FileMetaDataToJson(reader->metadata(), /*pretty=*/true) + "\n"));
    fio.PrintStats(*meta_io);
    return Status::OK();
  });

  auto schema_file = std::make_shared<std::string>();
  auto schema_io = std::make_shared<FileIOFlags>();
  auto* schema = parquet->add_subcommand("schema", "Print the schema");
  schema->add_option("FILE", *schema_file, "Parquet file")->required();
  AddFileIOFlags(schema, schema_io.get());
  SetCommand(schema, exit_code, [schema_file, schema_io] {
    FLOE_ASSIGN_OR_RETURN(CommandFileIO fio, MakeCommandFileIO(*schema_io));
    FLOE_ASSIGN_OR_RETURN(auto reader, OpenParquet(*fio.io, *schema_file));
    FLOE_RETURN_IF_ERROR(WriteStdout(pq::SchemaToText(reader->metadata())));
    fio.PrintStats(*schema_io);
    return Status::OK();
  });

  auto cat_args = std::make_shared<CatArgs>();
  auto* cat = parquet->add_subcommand("cat", "Print rows as JSON Lines");
  cat->add_option("FILE", cat_args->file, "Parquet file")->required();
  cat->add_option("--columns", cat_args->columns, "Comma-separated columns (dotted paths)");
  cat->add_option("--limit", cat_args->limit, "Print at most N rows")
      ->check(CLI::NonNegativeNumber);
  AddFileIOFlags(cat, &cat_args->io);
  SetCommand(cat, exit_code, [cat_args]() -> Status {
    FLOE_ASSIGN_OR_RETURN(CommandFileIO fio, MakeCommandFileIO(cat_args->io));
    FLOE_RETURN_IF_ERROR(Cat(*cat_args, *fio.io));
    std::fflush(stdout);
    fio.PrintStats(cat_args->io);
    return Status::OK();
  });

  auto rw = std::make_shared<RewriteArgs>();
  auto* rewrite = parquet->add_subcommand(
      "rewrite", "Read IN with floe's reader and write OUT with floe's writer");
  rewrite->add_option("IN", rw->in, "Input Parquet file")->required();
  rewrite->add_option("OUT", rw->out, "Output Parquet file")->required();
  rewrite->add_option("--codec", rw->codec,
                      "none|snappy|gzip|zstd|lz4 (LZ4_RAW); default: the input's codec");
  rewrite->add_option("--level", rw->level, "Compression level");
  rewrite->add_option("--row-group-bytes", rw->row_group_bytes, "Target row group size")
      ->check(CLI::PositiveNumber);
  rewrite->add_option("--page-bytes", rw->page_bytes, "Target data page size")
      ->check(CLI::PositiveNumber);
  rewrite->add_option("--dictionary", rw->dictionary, "on|off")
      ->check(CLI::IsMember({"on", "off"}));
  rewrite->add_option("--page-version", rw->page_version, "Data page version 1|2")
      ->check(CLI::IsMember({1, 2}));
  rewrite->add_option("--bloom-filter", rw->bloom_filter,
                      "Comma-separated leaf columns that get a Bloom filter");
  rewrite->add_option("--bloom-fpp", rw->bloom_fpp, "Bloom filter false-positive rate");
  rewrite->add_option("--page-crc", rw->page_crc, "Write page CRCs: on|off")
      ->check(CLI::IsMember({"on", "off"}));
  AddFileIOFlags(rewrite, &rw->io);
  SetCommand(rewrite, exit_code, [rw]() -> Status {
    FLOE_ASSIGN_OR_RETURN(CommandFileIO fio, MakeCommandFileIO(rw->io));
    FLOE_RETURN_IF_ERROR(Rewrite(*rw, *fio.io));
    fio.PrintStats(rw->io);
    return Status::OK();
  });
}

}  // namespace floe::exe
