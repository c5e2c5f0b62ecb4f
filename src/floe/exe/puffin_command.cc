// `floe puffin meta|dv|write-dv`: inspect Puffin files and the deletion vectors in them, on
// local disk or object storage (file_io_flags.h).
#include <charconv>
#include <cstdio>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "floe/base/json_writer.h"
#include "floe/base/macros.h"
#include "floe/exe/command.h"
#include "floe/exe/file_io_flags.h"
#include "floe/format/puffin/deletion_vector.h"
#include "floe/format/puffin/puffin.h"

namespace floe::exe {

namespace {

namespace puffin = floe::format::puffin;

Status WriteStdout(const std::string& text) {
  if (text.empty()) return Status::OK();
  if (std::fwrite(text.data(), 1, text.size(), stdout) != text.size()) {
    return Status::IOError("cannot write to standard output");
  }
  return Status::OK();
}

// One JSON object: sizes, whether the footer was compressed, and the footer payload as
// floe writes it (the Puffin FileMetadata fields).
Status Meta(io::FileIO& io, const std::string& path) {
  FLOE_ASSIGN_OR_RETURN(auto file, io.OpenInput(path));
  FLOE_ASSIGN_OR_RETURN(auto reader, puffin::PuffinReader::Open(*file));
  std::string out;
  JsonWriter w(&out);
  w.BeginObject();
  w.Key("file");
  w.String(path);
  w.Key("file_size");
  w.UInt(file->size());
  w.Key("footer_size");
  w.UInt(reader->footer_size());
  w.Key("footer_compressed");
  w.Bool(reader->footer_compressed());
  w.Key("footer");
  w.Raw(puffin::FileMetadataToJson(reader->metadata()));
  w.EndObject();
  out.push_back('\n');
  return WriteStdout(out);
}

// The positions of the deletion vector blob at [offset, offset + length), one per line or
// as JSON.
Status Dv(io::FileIO& io, const std::string& path, uint64_t offset, uint64_t length,
          int64_t cardinality, bool json) {
  FLOE_ASSIGN_OR_RETURN(auto file, io.OpenInput(path));
  FLOE_ASSIGN_OR_RETURN(puffin::PositionBitmap positions,
                        puffin::ReadDeletionVector(*file, offset, length, cardinality));
  std::string out;
  if (json) {
    out = "{\"cardinality\":" + std::to_string(positions.cardinality()) + ",\"positions\":[";
  }
  bool first = true;
  Status status;
  positions.ForEach([&](uint64_t pos) {
    if (!status.ok()) return;
    if (json && !first) out.push_back(',');
    first = false;
    out += std::to_string(pos);
    if (!json) out.push_back('\n');
    if (out.size() >= (1 << 16)) {
      status = WriteStdout(out);
      out.clear();
    }
  });
  FLOE_RETURN_IF_ERROR(status);
  if (json) out += "]}\n";
  return WriteStdout(out);
}

Result<uint64_t> ParsePosition(std::string_view text, const std::string& where) {
  uint64_t v = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || end != text.data() + text.size()) {
    return Status::InvalidArgument("{}: '{}' is not a row position", where, text);
  }
  return v;
}

// Reads positions from a text file: one per line, or `START..END` for [START, END).
Result<puffin::PositionBitmap> ReadPositions(io::FileIO& io, const std::string& path) {
  FLOE_ASSIGN_OR_RETURN(Buffer text, io.ReadFile(path));
  puffin::PositionBitmap positions;
  std::string_view rest = text.view();
  while (!rest.empty()) {
    size_t eol = rest.find('\n');
    std::string_view line = rest.substr(0, eol);
    rest = eol == std::string_view::npos ? std::string_view() : rest.substr(eol + 1);
    while (!line.empty() && (line.back() == '\r' || line.back() == ' ')) line.remove_suffix(1);
    if (line.empty()) continue;
    size_t dots = line.find("..");
    if (dots == std::string_view::npos) {
      FLOE_ASSIGN_OR_RETURN(uint64_t pos, ParsePosition(line, path));
      FLOE_RETURN_IF_ERROR(positions.Add(pos));
    } else {
      FLOE_ASSIGN_OR_RETURN(uint64_t start, ParsePosition(line.substr(0, dots), path));
      FLOE_ASSIGN_OR_RETURN(uint64_t end, ParsePosition(line.substr(dots + 2), path));
      FLOE_RETURN_IF_ERROR(positions.AddRange(start, end));
    }
  }
  return positions;
}

// Writes one Puffin file with a deletion vector per DATA_FILE=POSITIONS_FILE argument and
// prints what the manifest entries need.
Status WriteDv(io::FileIO& io, const std::string& out_path, const std::vector<std::string>& specs) {
  std::vector<std::pair<std::string, puffin::PositionBitmap>> dvs;
  for (const std::string& spec : specs) {
    size_t eq = spec.rfind('=');
    if (eq == std::string::npos) {
      return Status::InvalidArgument("'{}' is not DATA_FILE=POSITIONS_FILE", spec);
    }
    FLOE_ASSIGN_OR_RETURN(auto positions, ReadPositions(io, spec.substr(eq + 1)));
    dvs.emplace_back(spec.substr(0, eq), std::move(positions));
  }
  FLOE_ASSIGN_OR_RETURN(auto out, io.CreateOutput(out_path, /*overwrite=*/true));
  FLOE_ASSIGN_OR_RETURN(auto writer, puffin::PuffinWriter::Make(out.get()));
  std::string json;
  JsonWriter w(&json);
  w.BeginObject();
  w.Key("deletion_vectors");
  w.BeginArray();
  for (const auto& [data_file, positions] : dvs) {
    FLOE_ASSIGN_OR_RETURN(auto info,
                          puffin::WriteDeletionVectorBlob(*writer, data_file, positions));
    w.BeginObject();
    w.Key("referenced_data_file");
    w.String(data_file);
    w.Key("content_offset");
    w.UInt(info.content_offset);
    w.Key("content_size_in_bytes");
    w.UInt(info.content_size_in_bytes);
    w.Key("record_count");
    w.UInt(info.record_count);
    w.EndObject();
  }
  w.EndArray();
  FLOE_ASSIGN_OR_RETURN(auto file_info, writer->Finish());
  FLOE_RETURN_IF_ERROR(out->Close());
  w.Key("file_size");
  w.UInt(file_info.file_size);
  w.Key("footer_size");
  w.UInt(file_info.footer_size);
  w.EndObject();
  json.push_back('\n');
  return WriteStdout(json);
}

}  // namespace

void AddPuffinCommands(CLI::App& app, int* exit_code) {
  auto* puffin_cmd = app.add_subcommand("puffin", "Inspect Puffin files and deletion vectors");
  puffin_cmd->require_subcommand(1);

  auto* meta = puffin_cmd->add_subcommand("meta", "Print the footer as JSON");
  auto meta_path = std::make_shared<std::string>();
  auto meta_io = std::make_shared<FileIOFlags>();
  meta->add_option("file", *meta_path, "Puffin file")->required();
  AddFileIOFlags(meta, meta_io.get());
  SetCommand(meta, exit_code, [meta_path, meta_io]() -> Status {
    FLOE_ASSIGN_OR_RETURN(CommandFileIO fio, MakeCommandFileIO(*meta_io));
    FLOE_RETURN_IF_ERROR(Meta(*fio.io, *meta_path).WithContext("{}", *meta_path));
    fio.PrintStats(*meta_io);
    return Status::OK();
  });

  auto* dv = puffin_cmd->add_subcommand(
      "dv", "Print the positions of a deletion vector blob (located as a manifest does)");
  auto dv_path = std::make_shared<std::string>();
  auto offset = std::make_shared<uint64_t>(0);
  auto length = std::make_shared<uint64_t>(0);
  auto cardinality = std::make_shared<int64_t>(-1);
  auto json = std::make_shared<bool>(false);
  dv->add_option("file", *dv_path, "Puffin file")->required();
  dv->add_option("--offset", *offset, "Blob offset (content_offset)")->required();
  dv->add_option("--length", *length, "Blob length (content_size_in_bytes)")->required();
  dv->add_option("--cardinality", *cardinality,
                 "Expected number of positions (record_count); checked when given");
  dv->add_flag("--json", *json, "Print {\"cardinality\": N, \"positions\": [...]}");
  auto dv_io = std::make_shared<FileIOFlags>();
  AddFileIOFlags(dv, dv_io.get());
  SetCommand(dv, exit_code, [dv_path, offset, length, cardinality, json, dv_io]() -> Status {
    FLOE_ASSIGN_OR_RETURN(CommandFileIO fio, MakeCommandFileIO(*dv_io));
    FLOE_RETURN_IF_ERROR(
        Dv(*fio.io, *dv_path, *offset, *length, *cardinality, *json).WithContext("{}", *dv_path));
    fio.PrintStats(*dv_io);
    return Status::OK();
  });

  auto* write_dv = puffin_cmd->add_subcommand(
      "write-dv", "Write a Puffin file of deletion vectors, one per DATA_FILE=POSITIONS_FILE");
  auto out_path = std::make_shared<std::string>();
  auto specs = std::make_shared<std::vector<std::string>>();
  write_dv->add_option("output", *out_path, "Puffin file to write")->required();
  write_dv
      ->add_option("dvs", *specs,
                   "DATA_FILE=POSITIONS_FILE (positions one per line, or START..END)")
      ->required();
  auto write_io = std::make_shared<FileIOFlags>();
  AddFileIOFlags(write_dv, write_io.get());
  SetCommand(write_dv, exit_code, [out_path, specs, write_io]() -> Status {
    FLOE_ASSIGN_OR_RETURN(CommandFileIO fio, MakeCommandFileIO(*write_io));
    FLOE_RETURN_IF_ERROR(WriteDv(*fio.io, *out_path, *specs).WithContext("{}", *out_path));
    fio.PrintStats(*write_io);
    return Status::OK();
  });
}

}  // namespace floe::exe
