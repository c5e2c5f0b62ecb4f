// `floe iceberg manifest|write-manifest|write-manifest-list|write-data|write-deletes`:
// debugging tools that print manifests and manifest lists as JSON, write them from JSON, and
// drive the data and delete file writers (docs/cli.md). Files and locations may be local or
// s3:// / s3a:// (file_io_flags.h: --property s3.*, the AWS_* environment, --stats). The JSON
// shapes are floe's own, made for tests against other implementations; bytes (bounds,
// key metadata) are hex, partition values the Iceberg JSON single-value form.
#include <charconv>
#include <cstdio>
#include <memory>
#include <string>

#include <nlohmann/json.hpp>

#include "floe/base/json.h"
#include "floe/base/macros.h"
#include "floe/exe/command.h"
#include "floe/exe/file_io_flags.h"
#include "floe/iceberg/data_reader.h"
#include "floe/iceberg/data_writer.h"
#include "floe/iceberg/delete_writer.h"
#include "floe/iceberg/manifest_list.h"
#include "floe/iceberg/manifest_reader.h"
#include "floe/iceberg/manifest_writer.h"

namespace floe::exe {

namespace {

using Json = nlohmann::ordered_json;
using namespace floe::iceberg;  // NOLINT(google-build-using-namespace)

std::string Hex(std::string_view bytes) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string out;
  for (unsigned char c : bytes) {
    out.push_back(kDigits[c >> 4]);
    out.push_back(kDigits[c & 15]);
  }
  return out;
}

Result<std::string> Unhex(const Json& j) {
  if (!j.is_string()) return Status::InvalidArgument("expected a hex string");
  std::string s = j.get<std::string>();
  if (s.size() % 2 != 0) return Status::InvalidArgument("odd hex string length");
  std::string out;
  for (size_t i = 0; i < s.size(); i += 2) {
    auto digit = [](char c) -> int {
      if (c >= '0' && c <= '9') return c - '0';
      if (c >= 'a' && c <= 'f') return c - 'a' + 10;
      if (c >= 'A' && c <= 'F') return c - 'A' + 10;
      return -1;
    };
    int hi = digit(s[i]), lo = digit(s[i + 1]);
    if (hi < 0 || lo < 0) return Status::InvalidArgument("bad hex string '{}'", s);
    out.push_back(static_cast<char>(hi * 16 + lo));
  }
  return out;
}

template <typename T>
Json Opt(const std::optional<T>& v) {
  return v ? Json(*v) : Json(nullptr);
}

Json OptHex(const std::optional<std::string>& v) { return v ? Json(Hex(*v)) : Json(nullptr); }

template <typename V>
Json MapJson(const std::map<int32_t, V>& m, bool hex) {
  Json j = Json::object();
  for (const auto& [k, v] : m) {
    if constexpr (std::is_same_v<V, std::string>) {
      j[std::to_string(k)] = Hex(v);
    } else {
      j[std::to_string(k)] = v;
    }
  }
  return j;
}

Json DataFileJson(const DataFile& f) {
  Json j = Json::object();
  j["content"] = static_cast<int>(f.content);
  j["file_path"] = f.file_path;
  j["file_format"] = FileFormatName(f.file_format);
  j["spec_id"] = f.spec_id;
  Json partition = Json::array();
  for (const Literal& v : f.partition) partition.push_back(Json::parse(v.ToJson()));
  j["partition"] = std::move(partition);
  j["record_count"] = f.record_count;
  j["file_size_in_bytes"] = f.file_size_in_bytes;
  j["column_sizes"] = MapJson(f.column_sizes, false);
  j["value_counts"] = MapJson(f.value_counts, false);
  j["null_value_counts"] = MapJson(f.null_value_counts, false);
  j["nan_value_counts"] = MapJson(f.nan_value_counts, false);
  j["lower_bounds"] = MapJson(f.lower_bounds, true);
  j["upper_bounds"] = MapJson(f.upper_bounds, true);
  j["key_metadata"] = OptHex(f.key_metadata);
  j["split_offsets"] = Opt(f.split_offsets);
  j["equality_ids"] = Opt(f.equality_ids);
  j["sort_order_id"] = Opt(f.sort_order_id);
  j["first_row_id"] = Opt(f.first_row_id);
  j["referenced_data_file"] = Opt(f.referenced_data_file);
  j["content_offset"] = Opt(f.content_offset);
  j["content_size_in_bytes"] = Opt(f.content_size_in_bytes);
  return j;
}

Json ManifestFileJson(const ManifestFile& m) {
  Json j = Json::object();
  j["manifest_path"] = m.manifest_path;
  j["manifest_length"] = m.manifest_length;
  j["partition_spec_id"] = m.partition_spec_id;
  j["content"] = static_cast<int>(m.content);
  j["sequence_number"] = m.sequence_number;
  j["min_sequence_number"] = m.min_sequence_number;
  j["added_snapshot_id"] = m.added_snapshot_id;
  j["added_files_count"] = Opt(m.added_files_count);
  j["existing_files_count"] = Opt(m.existing_files_count);
  j["deleted_files_count"] = Opt(m.deleted_files_count);
  j["added_rows_count"] = Opt(m.added_rows_count);
  j["existing_rows_count"] = Opt(m.existing_rows_count);
  j["deleted_rows_count"] = Opt(m.deleted_rows_count);
  if (m.partitions) {
    Json parts = Json::array();
    for (const PartitionFieldSummary& s : *m.partitions) {
      parts.push_back(Json{{"contains_null", s.contains_null},
                           {"contains_nan", Opt(s.contains_nan)},
                           {"lower_bound", OptHex(s.lower_bound)},
                           {"upper_bound", OptHex(s.upper_bound)}});
    }
    j["partitions"] = std::move(parts);
  } else {
    j["partitions"] = nullptr;
  }
  j["key_metadata"] = OptHex(m.key_metadata);
  j["first_row_id"] = Opt(m.first_row_id);
  return j;
}

// Reads JSON values written by the functions above back; absent keys keep defaults.
template <typename T>
Status Get(const Json& j, std::string_view key, std::optional<T>* out) {
  auto it = j.find(key);
  if (it == j.end() || it->is_null()) return Status::OK();
  try {
    *out = it->get<T>();
  } catch (const nlohmann::json::exception& e) {
    return Status::InvalidArgument("bad value for {}: {}", key, e.what());
  }
  return Status::OK();
}

template <typename T>
Status GetRequired(const Json& j, std::string_view key, T* out) {
  std::optional<T> v;
  FLOE_RETURN_IF_ERROR(Get(j, key, &v));
  if (!v) return Status::InvalidArgument("missing {}", key);
  *out = *v;
  return Status::OK();
}

Status GetHex(const Json& j, std::string_view key, std::optional<std::string>* out) {
  auto it = j.find(key);
  if (it == j.end() || it->is_null()) return Status::OK();
  FLOE_ASSIGN_OR_RETURN(*out, Unhex(*it));
  return Status::OK();
}

template <typename V>
Status GetMap(const Json& j, std::string_view key, std::map<int32_t, V>* out) {
  auto it = j.find(key);
  if (it == j.end() || it->is_null()) return Status::OK();
  if (!it->is_object()) return Status::InvalidArgument("{} must be an object", key);
  for (const auto& [k, v] : it->items()) {
    int32_t id = 0;
    auto [end, ec] = std::from_chars(k.data(), k.data() + k.size(), id);
    if (ec != std::errc() || end != k.data() + k.size()) {
      return Status::InvalidArgument("{} keys are field ids, not '{}'", key, k);
    }
    if constexpr (std::is_same_v<V, std::string>) {
      FLOE_ASSIGN_OR_RETURN((*out)[id], Unhex(v));
    } else {
      if (!v.is_number_integer()) return Status::InvalidArgument("{} values are integers", key);
      (*out)[id] = v.template get<int64_t>();
    }
  }
  return Status::OK();
}

Result<DataFile> DataFileFromJson(const Json& j, const Type& partition_type) {
  if (!j.is_object()) return Status::InvalidArgument("data_file must be an object");
  DataFile f;
  std::optional<int> content;
  FLOE_RETURN_IF_ERROR(Get(j, "content", &content));
  f.content = static_cast<FileContent>(content.value_or(0));
  FLOE_RETURN_IF_ERROR(GetRequired(j, "file_path", &f.file_path));
  std::string format = "PARQUET";
  std::optional<std::string> format_opt;
  FLOE_RETURN_IF_ERROR(Get(j, "file_format", &format_opt));
  FLOE_ASSIGN_OR_RETURN(f.file_format, ParseFileFormat(format_opt.value_or(format)));
  Json partition = j.value("partition", Json::array());
  if (!partition.is_array() || partition.size() != partition_type.fields().size()) {
    return Status::InvalidArgument("partition must be an array of {} values",
                                   partition_type.fields().size());
  }
  for (size_t i = 0; i < partition.size(); ++i) {
    FLOE_ASSIGN_OR_RETURN(Literal v,
                          Literal::FromJson(partition_type.fields()[i].type, partition[i].dump()));
    f.partition.push_back(std::move(v));
  }
  FLOE_RETURN_IF_ERROR(GetRequired(j, "record_count", &f.record_count));
  FLOE_RETURN_IF_ERROR(GetRequired(j, "file_size_in_bytes", &f.file_size_in_bytes));
  FLOE_RETURN_IF_ERROR(GetMap(j, "column_sizes", &f.column_sizes));
  FLOE_RETURN_IF_ERROR(GetMap(j, "value_counts", &f.value_counts));
  FLOE_RETURN_IF_ERROR(GetMap(j, "null_value_counts", &f.null_value_counts));
  FLOE_RETURN_IF_ERROR(GetMap(j, "nan_value_counts", &f.nan_value_counts));
  FLOE_RETURN_IF_ERROR(GetMap(j, "lower_bounds", &f.lower_bounds));
  FLOE_RETURN_IF_ERROR(GetMap(j, "upper_bounds", &f.upper_bounds));
  FLOE_RETURN_IF_ERROR(GetHex(j, "key_metadata", &f.key_metadata));
  FLOE_RETURN_IF_ERROR(Get(j, "split_offsets", &f.split_offsets));
  FLOE_RETURN_IF_ERROR(Get(j, "equality_ids", &f.equality_ids));
  FLOE_RETURN_IF_ERROR(Get(j, "sort_order_id", &f.sort_order_id));
  FLOE_RETURN_IF_ERROR(Get(j, "first_row_id", &f.first_row_id));
  FLOE_RETURN_IF_ERROR(Get(j, "referenced_data_file", &f.referenced_data_file));
  FLOE_RETURN_IF_ERROR(Get(j, "content_offset", &f.content_offset));
  FLOE_RETURN_IF_ERROR(Get(j, "content_size_in_bytes", &f.content_size_in_bytes));
  return f;
}

Result<ManifestFile> ManifestFileFromJson(const Json& j) {
  ManifestFile m;
  FLOE_RETURN_IF_ERROR(GetRequired(j, "manifest_path", &m.manifest_path));
  FLOE_RETURN_IF_ERROR(GetRequired(j, "manifest_length", &m.manifest_length));
  FLOE_RETURN_IF_ERROR(GetRequired(j, "partition_spec_id", &m.partition_spec_id));
  std::optional<int> content;
  FLOE_RETURN_IF_ERROR(Get(j, "content", &content));
  m.content = static_cast<ManifestContent>(content.value_or(0));
  std::optional<int64_t> seq, min_seq;
  FLOE_RETURN_IF_ERROR(Get(j, "sequence_number", &seq));
  FLOE_RETURN_IF_ERROR(Get(j, "min_sequence_number", &min_seq));
  m.sequence_number = seq.value_or(kUnassignedSequenceNumber);
  m.min_sequence_number = min_seq.value_or(kUnassignedSequenceNumber);
  FLOE_RETURN_IF_ERROR(GetRequired(j, "added_snapshot_id", &m.added_snapshot_id));
  FLOE_RETURN_IF_ERROR(Get(j, "added_files_count", &m.added_files_count));
  FLOE_RETURN_IF_ERROR(Get(j, "existing_files_count", &m.existing_files_count));
  FLOE_RETURN_IF_ERROR(Get(j, "deleted_files_count", &m.deleted_files_count));
  FLOE_RETURN_IF_ERROR(Get(j, "added_rows_count", &m.added_rows_count));
  FLOE_RETURN_IF_ERROR(Get(j, "existing_rows_count", &m.existing_rows_count));
  FLOE_RETURN_IF_ERROR(Get(j, "deleted_rows_count", &m.deleted_rows_count));
  if (auto it = j.find("partitions"); it != j.end() && it->is_array()) {
    std::vector<PartitionFieldSummary> parts;
    for (const Json& p : *it) {
      PartitionFieldSummary s;
      FLOE_RETURN_IF_ERROR(GetRequired(p, "contains_null", &s.contains_null));
      FLOE_RETURN_IF_ERROR(Get(p, "contains_nan", &s.contains_nan));
      FLOE_RETURN_IF_ERROR(GetHex(p, "lower_bound", &s.lower_bound));
      FLOE_RETURN_IF_ERROR(GetHex(p, "upper_bound", &s.upper_bound));
      parts.push_back(std::move(s));
    }
    m.partitions = std::move(parts);
  }
  FLOE_RETURN_IF_ERROR(GetHex(j, "key_metadata", &m.key_metadata));
  FLOE_RETURN_IF_ERROR(Get(j, "first_row_id", &m.first_row_id));
  return m;
}

Result<Json> ReadJsonFile(io::FileIO& io, const std::string& path) {
  FLOE_ASSIGN_OR_RETURN(Buffer bytes, io.ReadFile(path));
  Result<Json> j =
      ParseOrderedJson(std::string_view(reinterpret_cast<const char*>(bytes.data()), bytes.size()),
                       kMaxStoredJsonDepth);
  if (!j.ok()) return j.status().WithContext("{} is not JSON", path);
  return j;
}

Status Print(const Json& j) {
  std::string text = j.dump(2) + "\n";
  if (std::fwrite(text.data(), 1, text.size(), stdout) != text.size()) {
    return Status::IOError("cannot write to standard output");
  }
  return Status::OK();
}

struct ManifestArgs {
  FileIOFlags io;
  std::string path;
  bool list = false;
  std::optional<int64_t> sequence_number, snapshot_id, first_row_id;
  std::optional<int32_t> spec_id;
  bool no_stats = false;
  bool json = true;
};

Status ShowManifest(const ManifestArgs& a, io::FileIO& io) {
  FLOE_ASSIGN_OR_RETURN(auto file, io.OpenInput(a.path));
  if (a.list) {
    FLOE_ASSIGN_OR_RETURN(auto manifests, ReadManifestList(*file));
    Json out = Json::array();
    for (const ManifestFile& m : manifests) out.push_back(ManifestFileJson(m));
    return Print(Json{{"manifests", std::move(out)}});
  }
  ManifestFile m;
  m.manifest_path = a.path;
  m.sequence_number = a.sequence_number.value_or(kUnassignedSequenceNumber);
  m.added_snapshot_id = a.snapshot_id.value_or(0);
  m.first_row_id = a.first_row_id;
  m.partition_spec_id = a.spec_id.value_or(0);
  ManifestReaderOptions options;
  options.read_stats = !a.no_stats;
  FLOE_ASSIGN_OR_RETURN(auto reader, ManifestReader::Open(*file, m, options));
  FLOE_ASSIGN_OR_RETURN(auto entries, reader->ReadAll());
  Json out = Json::object();
  out["format_version"] = reader->format_version();
  out["content"] = ManifestContentName(reader->content());
  out["spec_id"] = reader->spec_id();
  out["partition_type"] = Json::parse(TypeToJson(*reader->partition_type()));
  Json list = Json::array();
  for (const ManifestEntry& e : entries) {
    list.push_back(Json{{"status", static_cast<int>(e.status)},
                        {"snapshot_id", Opt(e.snapshot_id)},
                        {"sequence_number", Opt(e.data_sequence_number)},
                        {"file_sequence_number", Opt(e.file_sequence_number)},
                        {"data_file", DataFileJson(e.data_file)}});
  }
  out["entries"] = std::move(list);
  return Print(out);
}

struct WriteArgs {
  FileIOFlags io;
  std::string out;
  std::string entries_json;
  std::string partition_type_json = R"({"type":"struct","fields":[]})";
  std::string schema_json = R"({"type":"struct","schema-id":0,"fields":[]})";
  std::string spec_json = "[]";
  int version = 2;
  int32_t spec_id = 0;
  int64_t snapshot_id = 0;
  std::string content = "data";
  std::optional<int64_t> first_row_id;
};

Status WriteManifest(const WriteArgs& a, io::FileIO& io) {
  FLOE_ASSIGN_OR_RETURN(TypePtr partition_type, TypeFromJson(a.partition_type_json));
  FLOE_ASSIGN_OR_RETURN(Json input, ReadJsonFile(io, a.entries_json));
  ManifestWriterOptions o;
  o.format_version = a.version;
  if (a.content != "data" && a.content != "deletes") {
    return Status::InvalidArgument("--content is data or deletes");
  }
  o.content = a.content == "deletes" ? ManifestContent::kDeletes : ManifestContent::kData;
  o.spec_id = a.spec_id;
  o.partition_type = partition_type;
  o.schema_json = a.schema_json;
  o.partition_spec_json = a.spec_json;
  o.snapshot_id = a.snapshot_id;
  o.first_row_id = a.first_row_id;
  FLOE_ASSIGN_OR_RETURN(auto out, io.CreateOutput(a.out, true));
  FLOE_ASSIGN_OR_RETURN(auto writer, ManifestWriter::Make(std::move(out), std::move(o)));
  const Json& entries = input.is_object() && input.contains("entries") ? input["entries"] : input;
  if (!entries.is_array()) return Status::InvalidArgument("entries must be an array");
  for (const Json& e : entries) {
    if (!e.is_object() || !e.contains("data_file"))
      return Status::InvalidArgument("entry without data_file");
    FLOE_ASSIGN_OR_RETURN(DataFile f, DataFileFromJson(e["data_file"], *partition_type));
    ManifestEntry entry;
    std::optional<int> status;
    FLOE_RETURN_IF_ERROR(Get(e, "status", &status));
    FLOE_RETURN_IF_ERROR(Get(e, "snapshot_id", &entry.snapshot_id));
    FLOE_RETURN_IF_ERROR(Get(e, "sequence_number", &entry.data_sequence_number));
    FLOE_RETURN_IF_ERROR(Get(e, "file_sequence_number", &entry.file_sequence_number));
    entry.data_file = std::move(f);
    switch (status.value_or(1)) {
      case 0: FLOE_RETURN_IF_ERROR(writer->Existing(entry)); break;
      case 1: FLOE_RETURN_IF_ERROR(writer->Add(entry.data_file, entry.data_sequence_number)); break;
      case 2: FLOE_RETURN_IF_ERROR(writer->Delete(entry)); break;
      default: return Status::InvalidArgument("status is 0, 1 or 2");
    }
  }
  FLOE_ASSIGN_OR_RETURN(ManifestFile m, writer->Close());
  return Print(ManifestFileJson(m));
}

struct WriteListArgs {
  FileIOFlags io;
  std::string out;
  std::string manifests_json;
  int version = 2;
  int64_t snapshot_id = 0;
  std::optional<int64_t> parent_snapshot_id;
  int64_t sequence_number = 0;
  std::optional<int64_t> first_row_id;
};

Status WriteManifestList(const WriteListArgs& a, io::FileIO& io) {
  FLOE_ASSIGN_OR_RETURN(Json input, ReadJsonFile(io, a.manifests_json));
  const Json& manifests =
      input.is_object() && input.contains("manifests") ? input["manifests"] : input;
  if (!manifests.is_array()) return Status::InvalidArgument("manifests must be an array");
  ManifestListWriterOptions o;
  o.format_version = a.version;
  o.snapshot_id = a.snapshot_id;
  o.parent_snapshot_id = a.parent_snapshot_id;
  o.sequence_number = a.sequence_number;
  o.first_row_id = a.first_row_id;
  FLOE_ASSIGN_OR_RETURN(auto out, io.CreateOutput(a.out, true));
  FLOE_ASSIGN_OR_RETURN(auto writer, ManifestListWriter::Make(std::move(out), o));
  Json written = Json::array();
  for (const Json& j : manifests) {
    if (!j.is_object()) return Status::InvalidArgument("manifests are objects");
    FLOE_ASSIGN_OR_RETURN(ManifestFile m, ManifestFileFromJson(j));
    FLOE_ASSIGN_OR_RETURN(ManifestFile w, writer->Add(m));
    written.push_back(ManifestFileJson(w));
  }
  FLOE_RETURN_IF_ERROR(writer->Close());
  return Print(Json{{"assigned_rows", writer->assigned_rows()}, {"manifests", written}});
}

struct WriteFilesArgs {
  FileIOFlags io;
  std::string schema_json;
  std::string spec_json = R"({"spec-id":0,"fields":[]})";
  std::string properties_json = "{}";
  std::string sort_order_json;
  bool sorted = false;
  std::vector<std::string> inputs;
  std::string location;
  std::string operation_id = "00000000-0000-0000-0000-000000000000";
  std::optional<int64_t> target_file_size;
  int max_open_files = 64;
  // write-deletes
  std::string mode = "position";
  std::string deletes_json;
  std::vector<int32_t> equality_ids;
};

Result<FileWriterOptions> WriterOptionsFrom(const WriteFilesArgs& a) {
  FileWriterOptions o;
  o.table_location = a.location;
  o.operation_id = a.operation_id;
  o.target_file_size_bytes = a.target_file_size;
  o.max_open_files = a.max_open_files;
  Json props = ParseOrderedJson(a.properties_json).value_or(Json());
  if (!props.is_object()) return Status::InvalidArgument("--properties-json is not a JSON object");
  for (const auto& [k, v] : props.items()) {
    if (!v.is_string()) return Status::InvalidArgument("property {} is not a string", k);
    o.properties[k] = v.get<std::string>();
  }
  return o;
}

Json DataFilesJson(const std::vector<DataFile>& files) {
  Json out = Json::array();
  for (const DataFile& f : files) out.push_back(DataFileJson(f));
  return out;
}

// Reads every input Parquet file by field id as batches of `schema`.
template <typename Fn>
Status ForEachInputBatch(io::FileIO& io, const WriteFilesArgs& a, const Schema& schema, Fn&& fn) {
  auto read_schema = std::make_shared<const Schema>(schema);
  for (const std::string& input : a.inputs) {
    FLOE_ASSIGN_OR_RETURN(auto reader, DataFileReader::Open(io, input, read_schema, {}, nullptr));
    while (true) {
      FLOE_ASSIGN_OR_RETURN(std::optional<PositionedBatch> b, reader->Next());
      if (!b) break;
      FLOE_RETURN_IF_ERROR(fn(b->batch));
    }
  }
  return Status::OK();
}

Status WriteData(const WriteFilesArgs& a, io::FileIO& io) {
  FLOE_ASSIGN_OR_RETURN(Schema schema, SchemaFromJson(a.schema_json));
  FLOE_ASSIGN_OR_RETURN(PartitionSpec spec, PartitionSpecFromJson(a.spec_json));
  SortOrder order;
  if (!a.sort_order_json.empty()) {
    FLOE_ASSIGN_OR_RETURN(order, SortOrderFromJson(a.sort_order_json));
  }
  FLOE_ASSIGN_OR_RETURN(FileWriterOptions options, WriterOptionsFrom(a));
  FLOE_ASSIGN_OR_RETURN(auto writer, DataWriter::Make(&io, schema, spec, order, a.sorted, options));
  Status s = ForEachInputBatch(io, a, schema,
                               [&](const columnar::RecordBatch& b) { return writer->Write(b); });
  if (!s.ok()) {
    (void)writer->Abort();
    return s;
  }
  FLOE_ASSIGN_OR_RETURN(std::vector<DataFile> files, writer->Close());
  return Print(Json{{"data_files", DataFilesJson(files)}});
}

Json DeleteResultJson(const DeleteWriteResult& r) {
  return Json{{"delete_files", DataFilesJson(r.delete_files)},
              {"referenced_data_files", r.referenced_data_files},
              {"rewritten_delete_files", DataFilesJson(r.rewritten_delete_files)}};
}

// --deletes-json: [{"file_path": P, "positions": [..], "partition": [JSON values],
// "previous": [..positions merged into a deletion vector]}], partitions typed by the spec.
Status WriteDeletes(const WriteFilesArgs& a, io::FileIO& io) {
  FLOE_ASSIGN_OR_RETURN(Schema schema, SchemaFromJson(a.schema_json));
  FLOE_ASSIGN_OR_RETURN(PartitionSpec spec, PartitionSpecFromJson(a.spec_json));
  FLOE_ASSIGN_OR_RETURN(FileWriterOptions options, WriterOptionsFrom(a));
  if (a.mode == "equality") {
    FLOE_ASSIGN_OR_RETURN(auto writer,
                          EqualityDeleteWriter::Make(&io, schema, a.equality_ids, spec, options));
    Status s = ForEachInputBatch(io, a, schema,
                                 [&](const columnar::RecordBatch& b) { return writer->Write(b); });
    if (!s.ok()) {
      (void)writer->Abort();
      return s;
    }
    FLOE_ASSIGN_OR_RETURN(DeleteWriteResult r, writer->Close());
    return Print(DeleteResultJson(r));
  }
  if (a.mode != "position" && a.mode != "dv") {
    return Status::InvalidArgument("--mode must be position, equality or dv");
  }
  FLOE_ASSIGN_OR_RETURN(TypePtr partition_type, spec.PartitionType(schema));
  FLOE_ASSIGN_OR_RETURN(Json deletes, ReadJsonFile(io, a.deletes_json));
  if (!deletes.is_array()) return Status::InvalidArgument("--deletes-json must hold an array");
  std::unique_ptr<PositionDeleteWriter> pos;
  std::unique_ptr<DeletionVectorWriter> dv;
  if (a.mode == "position") {
    FLOE_ASSIGN_OR_RETURN(pos, PositionDeleteWriter::Make(&io, options));
  } else {
    FLOE_ASSIGN_OR_RETURN(dv, DeletionVectorWriter::Make(&io, options));
  }
  for (const Json& d : deletes) {
    if (!d.is_object() || !d.contains("file_path") || !d["file_path"].is_string()) {
      return Status::InvalidArgument("each delete needs a file_path");
    }
    const std::string path = d["file_path"].get<std::string>();
    std::vector<int64_t> positions;
    for (const Json& p : d.value("positions", Json::array())) {
      if (!p.is_number_integer()) return Status::InvalidArgument("positions must be integers");
      positions.push_back(p.get<int64_t>());
    }
    std::vector<Literal> partition;
    Json values = d.value("partition", Json::array());
    if (!values.is_array() || values.size() != partition_type->fields().size()) {
      return Status::InvalidArgument("partition of {} must have {} values", path,
                                     partition_type->fields().size());
    }
    for (size_t i = 0; i < values.size(); ++i) {
      FLOE_ASSIGN_OR_RETURN(Literal v,
                            Literal::FromJson(partition_type->fields()[i].type, values[i].dump()));
      partition.push_back(std::move(v));
    }
    if (pos) {
      FLOE_RETURN_IF_ERROR(pos->Delete(path, positions, spec, partition));
    } else {
      FLOE_RETURN_IF_ERROR(dv->Delete(path, positions, spec, partition));
      if (d.contains("previous")) {
        format::puffin::PositionBitmap previous;
        for (const Json& p : d["previous"]) {
          if (!p.is_number_integer() || p.get<int64_t>() < 0) {
            return Status::InvalidArgument("previous positions must be non-negative integers");
          }
          FLOE_RETURN_IF_ERROR(previous.Add(p.get<uint64_t>()));
        }
        FLOE_RETURN_IF_ERROR(dv->MergePrevious(path, previous, {}));
      }
    }
  }
  FLOE_ASSIGN_OR_RETURN(DeleteWriteResult r, pos ? pos->Close() : dv->Close());
  return Print(DeleteResultJson(r));
}

void AddWriterOptions(CLI::App* c, WriteFilesArgs* a) {
  c->add_option("--schema-json", a->schema_json, "Table schema JSON")->required();
  c->add_option("--spec-json", a->spec_json, "Partition spec JSON (default unpartitioned)");
  c->add_option("--properties-json", a->properties_json, "Table properties as a JSON object");
  c->add_option("--location", a->location, "Table location")->required();
  c->add_option("--operation-id", a->operation_id, "Operation id in file names (a UUID)");
  c->add_option("--target-file-size", a->target_file_size, "Target file size in bytes");
  c->add_option("--max-open-files", a->max_open_files, "Files open at once");
  AddFileIOFlags(c, &a->io);
}

}  // namespace

void AddIcebergCommands(CLI::App& app, int* exit_code) {
  auto* iceberg =
      app.add_subcommand("iceberg",
                         "Iceberg metadata debugging tools (table metadata, manifests and manifest "
                         "lists as JSON)");
  iceberg->require_subcommand(1);
  AddIcebergMetadataCommand(iceberg, exit_code);
  AddIcebergScanCommand(iceberg, exit_code);
  AddIcebergCommitTestCommand(iceberg, exit_code);

  auto m = std::make_shared<ManifestArgs>();
  auto* show = iceberg->add_subcommand("manifest", "Print a manifest or manifest list as JSON");
  show->add_option("file", m->path, "Manifest (or manifest list with --list)")->required();
  show->add_flag("--list", m->list, "The file is a manifest list");
  show->add_flag("--json", m->json, "Print JSON (the only output form)");
  show->add_option("--sequence-number", m->sequence_number,
                   "The manifest's sequence number, for inheritance (default: unassigned)");
  show->add_option("--snapshot-id", m->snapshot_id, "The manifest's added_snapshot_id");
  show->add_option("--first-row-id", m->first_row_id, "The manifest's first_row_id (v3)");
  show->add_option("--spec-id", m->spec_id, "Spec id when the file does not name one");
  show->add_flag("--no-stats", m->no_stats, "Skip the metrics maps");
  AddFileIOFlags(show, &m->io);
  SetCommand(show, exit_code, [m] {
    return RunWithFileIO(m->io, [&](io::FileIO& io) { return ShowManifest(*m, io); });
  });

  auto w = std::make_shared<WriteArgs>();
  auto* write = iceberg->add_subcommand("write-manifest",
                                        "Write a manifest from JSON entries; print its list entry");
  write->add_option("output", w->out, "Manifest file to write")->required();
  write->add_option("--entries-json", w->entries_json, "File with {\"entries\": [...]}")
      ->required();
  write->add_option("--version", w->version, "Format version 1, 2 or 3");
  write->add_option("--partition-type-json", w->partition_type_json,
                    "Partition struct type JSON (field ids = partition field ids)");
  write->add_option("--schema-json", w->schema_json, "Table schema JSON (metadata)");
  write->add_option("--spec-json", w->spec_json, "Partition spec fields JSON (metadata)");
  write->add_option("--spec-id", w->spec_id, "Partition spec id");
  write->add_option("--snapshot-id", w->snapshot_id, "Snapshot id writing the manifest");
  write->add_option("--content", w->content, "data or deletes");
  write->add_option("--first-row-id", w->first_row_id, "Manifest first_row_id (v3)");
  AddFileIOFlags(write, &w->io);
  SetCommand(write, exit_code, [w] {
    return RunWithFileIO(w->io, [&](io::FileIO& io) { return WriteManifest(*w, io); });
  });

  auto l = std::make_shared<WriteListArgs>();
  auto* write_list = iceberg->add_subcommand(
      "write-manifest-list", "Write a manifest list from JSON manifests; print them as written");
  write_list->add_option("output", l->out, "Manifest list file to write")->required();
  write_list->add_option("--manifests-json", l->manifests_json, "File with {\"manifests\": [...]}")
      ->required();
  write_list->add_option("--version", l->version, "Format version 1, 2 or 3");
  write_list->add_option("--snapshot-id", l->snapshot_id, "Snapshot id");
  write_list->add_option("--parent-snapshot-id", l->parent_snapshot_id, "Parent snapshot id");
  write_list->add_option("--sequence-number", l->sequence_number, "Commit sequence number");
  write_list->add_option("--first-row-id", l->first_row_id, "Snapshot first-row-id (v3)");
  AddFileIOFlags(write_list, &l->io);
  SetCommand(write_list, exit_code, [l] {
    return RunWithFileIO(l->io, [&](io::FileIO& io) { return WriteManifestList(*l, io); });
  });

  auto d = std::make_shared<WriteFilesArgs>();
  auto* write_data = iceberg->add_subcommand(
      "write-data", "Write Parquet input rows as table data files; print the DataFiles as JSON");
  AddWriterOptions(write_data, d.get());
  write_data->add_option("--input", d->inputs, "Parquet files with the rows (read by field id)")
      ->required();
  write_data->add_option("--sort-order-json", d->sort_order_json, "The table's sort order JSON");
  write_data->add_flag("--sorted", d->sorted, "The input is sorted by the sort order");
  SetCommand(write_data, exit_code, [d] {
    return RunWithFileIO(d->io, [&](io::FileIO& io) { return WriteData(*d, io); });
  });

  auto x = std::make_shared<WriteFilesArgs>();
  auto* write_deletes = iceberg->add_subcommand(
      "write-deletes", "Write position, equality or deletion-vector delete files; print them");
  AddWriterOptions(write_deletes, x.get());
  write_deletes->add_option("--mode", x->mode, "position, equality or dv");
  write_deletes->add_option("--deletes-json", x->deletes_json,
                            "position/dv: file with [{file_path, positions, partition, previous}]");
  write_deletes->add_option("--input", x->inputs, "equality: Parquet files with the delete rows");
  write_deletes->add_option("--equality-ids", x->equality_ids, "equality: field ids");
  SetCommand(write_deletes, exit_code, [x] {
    return RunWithFileIO(x->io, [&](io::FileIO& io) { return WriteDeletes(*x, io); });
  });
}

}  // namespace floe::exe
