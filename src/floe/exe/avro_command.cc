// `floe avro meta|cat|rewrite`: inspect and rewrite Avro object container files.
#include <cstdio>
#include <memory>
#include <string>

#include "floe/base/json_writer.h"
#include "floe/base/macros.h"
#include "floe/columnar/value_format.h"
#include "floe/exe/command.h"
#include "floe/exe/file_io_flags.h"
#include "floe/format/avro/container.h"
#include "floe/format/avro/json_encoding.h"

namespace floe::exe {

namespace {

namespace avro = floe::format::avro;

Result<std::unique_ptr<avro::ContainerReader>> OpenAvro(io::FileIO& io, const std::string& path,
                                                        avro::ContainerReaderOptions options) {
  FLOE_ASSIGN_OR_RETURN(auto file, io.OpenInput(path));
  return avro::ContainerReader::Open(std::move(file), std::move(options));
}

Status WriteStdout(const std::string& text) {
  if (text.empty()) return Status::OK();
  if (std::fwrite(text.data(), 1, text.size(), stdout) != text.size()) {
    return Status::IOError("cannot write to standard output");
  }
  return Status::OK();
}

bool IsReservedKey(const std::string& key) {
  return key == avro::kSchemaKey || key == avro::kCodecKey;
}

// One JSON object: the schema with all its attributes, the codec, the user metadata (values
// as strings), the sync marker in hex, and block and record counts from walking the blocks.
Status Meta(io::FileIO& io, const std::string& path) {
  avro::ContainerReaderOptions options;
  options.metadata_only = true;
  FLOE_ASSIGN_OR_RETURN(auto reader, OpenAvro(io, path, options));
  int64_t blocks = 0;
  int64_t records = 0;
  for (;;) {
    FLOE_ASSIGN_OR_RETURN(auto info, reader->NextBlockInfo());
    if (!info) break;
    ++blocks;
    records += info->record_count;
  }
  std::string out;
  JsonWriter w(&out);
  w.BeginObject();
  w.Key("file");
  w.String(path);
  w.Key("schema");
  w.Raw(reader->writer_schema()->ToJson());
  w.Key("codec");
  w.String(reader->codec_name());
  w.Key("metadata");
  w.BeginObject();
  for (const auto& [key, value] : reader->metadata()) {
    if (IsReservedKey(key)) continue;
    w.Key(key);
    w.String(value);
  }
  w.EndObject();
  const avro::SyncMarker& sync = reader->sync_marker();
  w.Key("sync_marker");
  w.String(columnar::HexEncode({reinterpret_cast<const char*>(sync.data()), sync.size()}));
  w.Key("header_bytes");
  w.UInt(reader->header_size());
  w.Key("blocks");
  w.Int(blocks);
  w.Key("records");
  w.Int(records);
  w.EndObject();
  out.push_back('\n');
  return WriteStdout(out);
}

// The records as JSON Lines in the Avro JSON encoding.
Status Cat(io::FileIO& io, const std::string& path, int64_t limit) {
  FLOE_ASSIGN_OR_RETURN(auto reader, OpenAvro(io, path, {}));
  const avro::Schema& schema = *reader->writer_schema();
  int64_t written = 0;
  std::string out;
  while (limit < 0 || written < limit) {
    FLOE_ASSIGN_OR_RETURN(auto batch, reader->Next());
    if (!batch) break;
    out.clear();
    for (int64_t row = 0; row < batch->num_rows() && (limit < 0 || written < limit); ++row) {
      FLOE_RETURN_IF_ERROR(avro::AppendJsonLine(schema, *batch, row, &out));
      ++written;
    }
    FLOE_RETURN_IF_ERROR(WriteStdout(out));
  }
  return Status::OK();
}

// Reads every record with floe's reader and writes it with floe's writer, keeping the
// schema (every attribute) and the user metadata.
Status Rewrite(io::FileIO& io, const std::string& in_path, const std::string& out_path,
               const std::string& codec_name, int level) {
  FLOE_ASSIGN_OR_RETURN(auto reader, OpenAvro(io, in_path, {}));
  avro::ContainerWriterOptions options;
  if (codec_name.empty()) {
    FLOE_ASSIGN_OR_RETURN(options.codec, avro::ParseAvroCodec(reader->codec_name()));
  } else {
    FLOE_ASSIGN_OR_RETURN(options.codec, avro::ParseAvroCodec(codec_name));
  }
  if (options.codec == avro::AvroCodec::kDeflate || options.codec == avro::AvroCodec::kZstandard) {
    options.level = level;
  }
  for (const auto& [key, value] : reader->metadata()) {
    if (!IsReservedKey(key)) options.metadata.emplace_back(key, value);
  }
  FLOE_ASSIGN_OR_RETURN(auto out, io.CreateOutput(out_path, /*overwrite=*/true));
  Result<std::unique_ptr<avro::ContainerWriter>> writer =
      avro::ContainerWriter::Make(std::move(out), reader->writer_schema(), std::move(options));
  if (!writer.ok()) return writer.status().WithContext("{}", out_path);
  for (;;) {
    FLOE_ASSIGN_OR_RETURN(auto batch, reader->Next());
    if (!batch) break;
    Status s = (*writer)->Write(*batch);
    if (!s.ok()) return s.WithContext("{}", out_path);
  }
  Status s = (*writer)->Close();
  if (!s.ok()) return s.WithContext("{}", out_path);
  return Status::OK();
}

}  // namespace

void AddAvroCommands(CLI::App& app, int* exit_code) {
  auto* avro_cmd = app.add_subcommand("avro", "Inspect and rewrite Avro object container files");
  avro_cmd->require_subcommand(1);

  auto* meta = avro_cmd->add_subcommand("meta", "Print the header, metadata and block counts");
  auto meta_path = std::make_shared<std::string>();
  auto meta_io = std::make_shared<FileIOFlags>();
  meta->add_option("file", *meta_path, "Avro file")->required();
  AddFileIOFlags(meta, meta_io.get());
  SetCommand(meta, exit_code, [meta_path, meta_io]() -> Status {
    FLOE_ASSIGN_OR_RETURN(CommandFileIO fio, MakeCommandFileIO(*meta_io));
    FLOE_RETURN_IF_ERROR(Meta(*fio.io, *meta_path).WithContext("{}", *meta_path));
    fio.PrintStats(*meta_io);
    return Status::OK();
  });

  auto* cat = avro_cmd->add_subcommand("cat", "Print records as JSON Lines (Avro JSON encoding)");
  auto cat_path = std::make_shared<std::string>();
  auto limit = std::make_shared<int64_t>(-1);
  auto cat_io = std::make_shared<FileIOFlags>();
  cat->add_option("file", *cat_path, "Avro file")->required();
  cat->add_option("--limit", *limit, "Print at most this many records");
  AddFileIOFlags(cat, cat_io.get());
  SetCommand(cat, exit_code, [cat_path, limit, cat_io]() -> Status {
    FLOE_ASSIGN_OR_RETURN(CommandFileIO fio, MakeCommandFileIO(*cat_io));
    FLOE_RETURN_IF_ERROR(Cat(*fio.io, *cat_path, *limit).WithContext("{}", *cat_path));
    fio.PrintStats(*cat_io);
    return Status::OK();
  });

  auto* rewrite = avro_cmd->add_subcommand(
      "rewrite", "Read a file and write it again, keeping its schema and metadata");
  auto in_path = std::make_shared<std::string>();
  auto out_path = std::make_shared<std::string>();
  auto codec = std::make_shared<std::string>();
  auto level = std::make_shared<int>(format::kDefaultCompressionLevel);
  rewrite->add_option("input", *in_path, "Avro file to read")->required();
  rewrite->add_option("output", *out_path, "Avro file to write")->required();
  rewrite->add_option("--codec", *codec, "Output codec (default: the input's)")
      ->check(CLI::IsMember({"null", "deflate", "snappy", "zstandard"}));
  rewrite->add_option("--level", *level, "Compression level (deflate, zstandard)");
  auto rewrite_io = std::make_shared<FileIOFlags>();
  AddFileIOFlags(rewrite, rewrite_io.get());
  SetCommand(rewrite, exit_code, [in_path, out_path, codec, level, rewrite_io]() -> Status {
    FLOE_ASSIGN_OR_RETURN(CommandFileIO fio, MakeCommandFileIO(*rewrite_io));
    FLOE_RETURN_IF_ERROR(
        Rewrite(*fio.io, *in_path, *out_path, *codec, *level).WithContext("{}", *in_path));
    fio.PrintStats(*rewrite_io);
    return Status::OK();
  });
}

}  // namespace floe::exe
