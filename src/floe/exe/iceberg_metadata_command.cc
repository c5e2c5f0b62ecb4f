// `floe iceberg metadata`: read an Iceberg table metadata file with floe's parser and write
// it again with floe's writer (optionally upgraded to a newer format version).
#include <chrono>
#include <cstdio>
#include <memory>
#include <string>

#include "floe/base/macros.h"
#include "floe/exe/command.h"
#include "floe/exe/file_io_flags.h"
#include "floe/iceberg/table_metadata.h"
#include "floe/iceberg/table_metadata_builder.h"

namespace floe::exe {

namespace {

struct MetadataOptions {
  std::string path;
  std::string out;
  bool pretty = false;
  int format_version = 0;
  int64_t now_ms = -1;
  FileIOFlags io;
};

Status Metadata(const MetadataOptions& o, io::FileIO& io) {
  FLOE_ASSIGN_OR_RETURN(iceberg::TableMetadata md, iceberg::ReadTableMetadata(io, o.path));
  if (o.format_version != 0) {
    auto base = std::make_shared<const iceberg::TableMetadata>(std::move(md));
    auto builder = iceberg::TableMetadataBuilder::From(base);
    FLOE_RETURN_IF_ERROR(builder.UpgradeFormatVersion(o.format_version));
    int64_t now_ms = o.now_ms;
    if (now_ms < 0) {
      now_ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                   std::chrono::system_clock::now().time_since_epoch())
                   .count();
    }
    FLOE_ASSIGN_OR_RETURN(iceberg::TableMetadataPtr upgraded, builder.Build(now_ms));
    md = *upgraded;
  }
  if (!o.out.empty()) return iceberg::WriteTableMetadata(io, o.out, md);
  std::string text = iceberg::TableMetadataToJson(md, o.pretty);
  text.push_back('\n');
  if (std::fwrite(text.data(), 1, text.size(), stdout) != text.size()) {
    return Status::IOError("cannot write to standard output");
  }
  return Status::OK();
}

}  // namespace

void AddIcebergMetadataCommand(CLI::App* ice, int* exit_code) {
  auto* meta = ice->add_subcommand(
      "metadata", "Read a table metadata file and write it again with floe's writer");
  auto o = std::make_shared<MetadataOptions>();
  meta->add_option("file", o->path, "Metadata file (.metadata.json, gzipped by name)")->required();
  meta->add_option("--out", o->out,
                   "Write a metadata file here (gzipped if named .gz.metadata.json) "
                   "instead of printing");
  meta->add_flag("--pretty", o->pretty, "Indent like Jackson's pretty printer");
  meta->add_option("--format-version", o->format_version,
                   "Upgrade to this format version first (as a commit would)");
  meta->add_option("--now-ms", o->now_ms,
                   "Commit time for --format-version (default: the current time)");
  AddFileIOFlags(meta, &o->io);
  SetCommand(meta, exit_code, [o]() -> Status {
    FLOE_ASSIGN_OR_RETURN(CommandFileIO fio, MakeCommandFileIO(o->io));
    FLOE_RETURN_IF_ERROR(Metadata(*o, *fio.io).WithContext("{}", o->path));
    fio.PrintStats(o->io);
    return Status::OK();
  });
}

}  // namespace floe::exe
