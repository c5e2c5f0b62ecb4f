#include "floe/optimize/task_codec.h"

#include <memory>
#include <set>
#include <utility>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "floe/base/json.h"
#include "floe/iceberg/metadata_json.h"

namespace floe::optimize {

namespace {

using Json = nlohmann::json;
using iceberg::DataFile;

constexpr int kVersion = 1;

Json IntMap(const std::map<int32_t, int64_t>& m) {
  Json j = Json::object();
  for (const auto& [k, v] : m) j[std::to_string(k)] = v;
  return j;
}

Json BytesMap(const std::map<int32_t, std::string>& m) {
  Json j = Json::object();
  for (const auto& [k, v] : m) j[std::to_string(k)] = iceberg::Base64Encode(v);
  return j;
}

Json FileJson(const DataFile& f) {
  Json j = Json::object();
  j["content"] = static_cast<int32_t>(f.content);
  j["file-path"] = f.file_path;
  j["file-format"] = std::string(iceberg::FileFormatName(f.file_format));
  j["spec-id"] = f.spec_id;
  Json partition = Json::array();
  for (const iceberg::Literal& v : f.partition) partition.push_back(v.ToJsonValue());
  j["partition"] = std::move(partition);
  j["record-count"] = f.record_count;
  j["file-size-in-bytes"] = f.file_size_in_bytes;
  j["column-sizes"] = IntMap(f.column_sizes);
  j["value-counts"] = IntMap(f.value_counts);
  j["null-value-counts"] = IntMap(f.null_value_counts);
  j["nan-value-counts"] = IntMap(f.nan_value_counts);
  j["lower-bounds"] = BytesMap(f.lower_bounds);
  j["upper-bounds"] = BytesMap(f.upper_bounds);
  if (f.key_metadata) j["key-metadata"] = iceberg::Base64Encode(*f.key_metadata);
  if (f.split_offsets) j["split-offsets"] = *f.split_offsets;
  if (f.equality_ids) j["equality-ids"] = *f.equality_ids;
  if (f.sort_order_id) j["sort-order-id"] = *f.sort_order_id;
  if (f.first_row_id) j["first-row-id"] = *f.first_row_id;
  if (f.referenced_data_file) j["referenced-data-file"] = *f.referenced_data_file;
  if (f.content_offset) j["content-offset"] = *f.content_offset;
  if (f.content_size_in_bytes) j["content-size-in-bytes"] = *f.content_size_in_bytes;
  return j;
}

Result<const Json*> Member(const Json& j, std::string_view key) {
  auto it = j.find(key);
  if (it == j.end() || it->is_null()) return Status::InvalidArgument("'{}' is missing", key);
  return &*it;
}

Result<int64_t> Long(const Json& j, std::string_view key) {
  FLOE_ASSIGN_OR_RETURN(const Json* v, Member(j, key));
  if (!v->is_number_integer()) return Status::InvalidArgument("'{}' must be an integer", key);
  return v->get<int64_t>();
}

Result<std::string> String(const Json& j, std::string_view key) {
  FLOE_ASSIGN_OR_RETURN(const Json* v, Member(j, key));
  if (!v->is_string()) return Status::InvalidArgument("'{}' must be a string", key);
  return v->get<std::string>();
}

Result<std::optional<int64_t>> OptLong(const Json& j, std::string_view key) {
  auto it = j.find(key);
  if (it == j.end() || it->is_null()) return std::optional<int64_t>();
  if (!it->is_number_integer()) return Status::InvalidArgument("'{}' must be an integer", key);
  return std::optional<int64_t>(it->get<int64_t>());
}

Result<int32_t> Int(const Json& j, std::string_view key) {
  FLOE_ASSIGN_OR_RETURN(int64_t v, Long(j, key));
  if (v < INT32_MIN || v > INT32_MAX) return Status::InvalidArgument("'{}' is out of range", key);
  return static_cast<int32_t>(v);
}

Result<int32_t> FieldId(const std::string& key) {
  int64_t id = 0;
  if (key.empty() || key.size() > 10) return Status::InvalidArgument("bad field id '{}'", key);
  for (char c : key) {
    if (c < '0' || c > '9') return Status::InvalidArgument("bad field id '{}'", key);
    id = id * 10 + (c - '0');
  }
  if (id > INT32_MAX) return Status::InvalidArgument("bad field id '{}'", key);
  return static_cast<int32_t>(id);
}

Status ReadIntMap(const Json& j, std::string_view key, std::map<int32_t, int64_t>* out) {
  auto it = j.find(key);
  if (it == j.end() || it->is_null()) return Status::OK();
  if (!it->is_object()) return Status::InvalidArgument("'{}' must be an object", key);
  for (const auto& [k, v] : it->items()) {
    FLOE_ASSIGN_OR_RETURN(int32_t id, FieldId(k));
    if (!v.is_number_integer()) return Status::InvalidArgument("'{}' values must be integers", key);
    (*out)[id] = v.get<int64_t>();
  }
  return Status::OK();
}

Status ReadBytesMap(const Json& j, std::string_view key, std::map<int32_t, std::string>* out) {
  auto it = j.find(key);
  if (it == j.end() || it->is_null()) return Status::OK();
  if (!it->is_object()) return Status::InvalidArgument("'{}' must be an object", key);
  for (const auto& [k, v] : it->items()) {
    FLOE_ASSIGN_OR_RETURN(int32_t id, FieldId(k));
    if (!v.is_string()) return Status::InvalidArgument("'{}' values must be base64", key);
    FLOE_ASSIGN_OR_RETURN((*out)[id], iceberg::Base64Decode(v.get<std::string>()));
  }
  return Status::OK();
}

Result<DataFile> FileFromJson(const Json& j, const iceberg::TableMetadata& metadata) {
  if (!j.is_object()) return Status::InvalidArgument("a file must be an object");
  DataFile f;
  FLOE_ASSIGN_OR_RETURN(int32_t content, Int(j, "content"));
  if (content < 0 || content > 2) return Status::InvalidArgument("bad file content {}", content);
  f.content = static_cast<iceberg::FileContent>(content);
  FLOE_ASSIGN_OR_RETURN(f.file_path, String(j, "file-path"));
  FLOE_ASSIGN_OR_RETURN(std::string format, String(j, "file-format"));
  FLOE_ASSIGN_OR_RETURN(f.file_format, iceberg::ParseFileFormat(format));
  FLOE_ASSIGN_OR_RETURN(f.spec_id, Int(j, "spec-id"));
  const iceberg::PartitionSpec* spec = metadata.spec_by_id(f.spec_id);
  const iceberg::Schema* schema = metadata.current_schema();
  if (spec == nullptr || schema == nullptr) {
    return Status::InvalidArgument("file {} names unknown spec {}", f.file_path, f.spec_id);
  }
  FLOE_ASSIGN_OR_RETURN(iceberg::TypePtr partition_type, spec->PartitionType(*schema));
  FLOE_ASSIGN_OR_RETURN(const Json* partition, Member(j, "partition"));
  if (!partition->is_array() || partition->size() != partition_type->fields().size()) {
    return Status::InvalidArgument("file {} has {} partition values for spec {}", f.file_path,
                                   partition->is_array() ? partition->size() : 0, f.spec_id);
  }
  for (size_t i = 0; i < partition->size(); ++i) {
    const iceberg::TypePtr& type = partition_type->fields()[i].type;
    const Json& v = (*partition)[i];
    if (v.is_null()) {
      f.partition.push_back(iceberg::Literal::Null(type));
    } else {
      FLOE_ASSIGN_OR_RETURN(iceberg::Literal lit, iceberg::Literal::FromJsonValue(type, v));
      f.partition.push_back(std::move(lit));
    }
  }
  FLOE_ASSIGN_OR_RETURN(f.record_count, Long(j, "record-count"));
  FLOE_ASSIGN_OR_RETURN(f.file_size_in_bytes, Long(j, "file-size-in-bytes"));
  if (f.record_count < 0 || f.file_size_in_bytes < 0) {
    return Status::InvalidArgument("file {} has negative counts", f.file_path);
  }
  FLOE_RETURN_IF_ERROR(ReadIntMap(j, "column-sizes", &f.column_sizes));
  FLOE_RETURN_IF_ERROR(ReadIntMap(j, "value-counts", &f.value_counts));
  FLOE_RETURN_IF_ERROR(ReadIntMap(j, "null-value-counts", &f.null_value_counts));
  FLOE_RETURN_IF_ERROR(ReadIntMap(j, "nan-value-counts", &f.nan_value_counts));
  FLOE_RETURN_IF_ERROR(ReadBytesMap(j, "lower-bounds", &f.lower_bounds));
  FLOE_RETURN_IF_ERROR(ReadBytesMap(j, "upper-bounds", &f.upper_bounds));
  if (auto it = j.find("key-metadata"); it != j.end() && !it->is_null()) {
    if (!it->is_string()) return Status::InvalidArgument("'key-metadata' must be base64");
    FLOE_ASSIGN_OR_RETURN(f.key_metadata, iceberg::Base64Decode(it->get<std::string>()));
  }
  if (auto it = j.find("split-offsets"); it != j.end() && !it->is_null()) {
    std::vector<int64_t> offsets;
    if (!it->is_array()) return Status::InvalidArgument("'split-offsets' must be an array");
    for (const Json& v : *it) {
      if (!v.is_number_integer()) return Status::InvalidArgument("bad split offset");
      offsets.push_back(v.get<int64_t>());
    }
    f.split_offsets = std::move(offsets);
  }
  if (auto it = j.find("equality-ids"); it != j.end() && !it->is_null()) {
    std::vector<int32_t> ids;
    if (!it->is_array()) return Status::InvalidArgument("'equality-ids' must be an array");
    for (const Json& v : *it) {
      if (!v.is_number_integer()) return Status::InvalidArgument("bad equality id");
      FLOE_ASSIGN_OR_RETURN(int32_t id, FieldId(std::to_string(v.get<int64_t>())));
      ids.push_back(id);
    }
    f.equality_ids = std::move(ids);
  }
  FLOE_ASSIGN_OR_RETURN(auto sort_order_id, OptLong(j, "sort-order-id"));
  if (sort_order_id) f.sort_order_id = static_cast<int32_t>(*sort_order_id);
  FLOE_ASSIGN_OR_RETURN(f.first_row_id, OptLong(j, "first-row-id"));
  if (auto it = j.find("referenced-data-file"); it != j.end() && !it->is_null()) {
    if (!it->is_string()) return Status::InvalidArgument("'referenced-data-file' must be a string");
    f.referenced_data_file = it->get<std::string>();
  }
  FLOE_ASSIGN_OR_RETURN(f.content_offset, OptLong(j, "content-offset"));
  FLOE_ASSIGN_OR_RETURN(f.content_size_in_bytes, OptLong(j, "content-size-in-bytes"));
  return f;
}

// Scan files are shared between the tasks' file lists (one delete file applies to many data
// files): they are written once, in "files", and named by index.
struct FileTable {
  std::map<const iceberg::ScanFile*, size_t> index;
  Json files = Json::array();

  size_t Add(const std::shared_ptr<const iceberg::ScanFile>& f) {
    auto [it, inserted] = index.emplace(f.get(), files.size());
    if (inserted) {
      Json j = FileJson(f->file);
      j["data-sequence-number"] = f->data_sequence_number;
      j["file-sequence-number"] = f->file_sequence_number;
      files.push_back(std::move(j));
    }
    return it->second;
  }
  Json List(const std::vector<std::shared_ptr<const iceberg::ScanFile>>& list) {
    Json j = Json::array();
    for (const auto& f : list) j.push_back(Add(f));
    return j;
  }
  Json Tasks(const std::vector<iceberg::FileScanTask>& tasks) {
    Json j = Json::array();
    for (const iceberg::FileScanTask& t : tasks) {
      j.push_back(Json{{"data", Add(t.data)},
                       {"position-deletes", List(t.position_deletes)},
                       {"equality-deletes", List(t.equality_deletes)}});
    }
    return j;
  }
};

using ScanFiles = std::vector<std::shared_ptr<const iceberg::ScanFile>>;

Result<std::shared_ptr<const iceberg::ScanFile>> FileAt(const ScanFiles& files, const Json& v) {
  if (!v.is_number_unsigned() || v.get<uint64_t>() >= files.size()) {
    return Status::InvalidArgument("a file index is out of range");
  }
  return files[v.get<size_t>()];
}

Result<ScanFiles> ReadList(const ScanFiles& files, const Json& j, std::string_view key) {
  FLOE_ASSIGN_OR_RETURN(const Json* list, Member(j, key));
  if (!list->is_array()) return Status::InvalidArgument("'{}' must be an array", key);
  ScanFiles out;
  for (const Json& v : *list) {
    FLOE_ASSIGN_OR_RETURN(auto f, FileAt(files, v));
    out.push_back(std::move(f));
  }
  return out;
}

Result<std::vector<iceberg::FileScanTask>> ReadTasks(const ScanFiles& files, const Json& j,
                                                     std::string_view key) {
  FLOE_ASSIGN_OR_RETURN(const Json* list, Member(j, key));
  if (!list->is_array()) return Status::InvalidArgument("'{}' must be an array", key);
  std::vector<iceberg::FileScanTask> out;
  for (const Json& t : *list) {
    if (!t.is_object()) return Status::InvalidArgument("a scan task must be an object");
    iceberg::FileScanTask task;
    FLOE_ASSIGN_OR_RETURN(const Json* data, Member(t, "data"));
    FLOE_ASSIGN_OR_RETURN(task.data, FileAt(files, *data));
    if (task.data->file.content != iceberg::FileContent::kData) {
      return Status::InvalidArgument("a scan task's data file is a delete file");
    }
    FLOE_ASSIGN_OR_RETURN(task.position_deletes, ReadList(files, t, "position-deletes"));
    FLOE_ASSIGN_OR_RETURN(task.equality_deletes, ReadList(files, t, "equality-deletes"));
    out.push_back(std::move(task));
  }
  return out;
}

}  // namespace

Result<std::string> EncodeTaskInput(const TaskInput& input) {
  if (input.metadata == nullptr) return Status::InvalidArgument("a task needs table metadata");
  const iceberg::Snapshot* snapshot = input.metadata->snapshot_by_id(input.snapshot_id);
  if (snapshot == nullptr) {
    return Status::InvalidArgument("the metadata has no snapshot {}", input.snapshot_id);
  }
  // Only what the rewrite reads: the history would make every task as large as the table's
  // metadata.
  iceberg::TableMetadata cut = *input.metadata;
  cut.snapshots = {*snapshot};
  cut.current_snapshot_id = input.snapshot_id;
  cut.refs.clear();
  cut.refs["main"] = iceberg::SnapshotRef::Branch(input.snapshot_id);
  cut.snapshot_log.clear();
  cut.metadata_log.clear();
  cut.statistics.clear();
  cut.partition_statistics.clear();

  FileTable files;
  Json task = Json::object();
  task["spec-id"] = input.task.spec_id;
  task["output-spec-id"] = input.task.output_spec_id.value_or(input.task.spec_id);
  task["partition-key"] = input.task.partition_key;
  task["rewrite-data"] = files.Tasks(input.task.rewrite_data);
  task["rewrite-pos-data"] = files.Tasks(input.task.rewrite_pos_data);
  task["read-only-deletes"] = files.List(input.task.read_only_deletes);
  task["rewritten-deletes"] = files.List(input.task.rewritten_deletes);
  task["input-bytes"] = input.task.input_bytes;

  Json j = Json::object();
  j["version"] = kVersion;
  j["table"] = input.table;
  j["metadata"] = Json::parse(iceberg::TableMetadataToJson(cut));
  j["snapshot-id"] = input.snapshot_id;
  j["io-properties"] = input.io_properties;
  j["operation-id"] = input.execute.operation_id;
  j["task-id"] = input.execute.task_id;
  j["files"] = std::move(files.files);
  j["task"] = std::move(task);
  return j.dump();
}

Result<TaskInput> DecodeTaskInput(std::string_view text) {
  // The stored-document limit: an input holds the table's metadata one level down.
  Result<Json> parsed = ParseJson(text, kMaxStoredJsonDepth);
  if (!parsed.ok()) return parsed.status().WithContext("a task input must be a JSON object");
  Json& j = *parsed;
  if (!j.is_object()) return Status::InvalidArgument("a task input must be a JSON object");
  FLOE_ASSIGN_OR_RETURN(int64_t version, Long(j, "version"));
  if (version != kVersion) return Status::InvalidArgument("unknown task version {}", version);
  TaskInput input;
  FLOE_ASSIGN_OR_RETURN(input.table, String(j, "table"));
  FLOE_ASSIGN_OR_RETURN(const Json* metadata_json, Member(j, "metadata"));
  FLOE_ASSIGN_OR_RETURN(iceberg::TableMetadata metadata,
                        iceberg::TableMetadataFromJson(metadata_json->dump()));
  FLOE_ASSIGN_OR_RETURN(input.snapshot_id, Long(j, "snapshot-id"));
  if (metadata.snapshot_by_id(input.snapshot_id) == nullptr) {
    return Status::InvalidArgument("the task's metadata has no snapshot {}", input.snapshot_id);
  }
  if (auto it = j.find("io-properties"); it != j.end() && !it->is_null()) {
    if (!it->is_object()) return Status::InvalidArgument("'io-properties' must be an object");
    for (const auto& [k, v] : it->items()) {
      if (!v.is_string()) return Status::InvalidArgument("'io-properties' values are strings");
      input.io_properties[k] = v.get<std::string>();
    }
  }
  FLOE_ASSIGN_OR_RETURN(input.execute.operation_id, String(j, "operation-id"));
  FLOE_ASSIGN_OR_RETURN(input.execute.task_id, Long(j, "task-id"));

  FLOE_ASSIGN_OR_RETURN(const Json* files_json, Member(j, "files"));
  if (!files_json->is_array()) return Status::InvalidArgument("'files' must be an array");
  ScanFiles files;
  for (const Json& f : *files_json) {
    auto scan_file = std::make_shared<iceberg::ScanFile>();
    FLOE_ASSIGN_OR_RETURN(scan_file->file, FileFromJson(f, metadata));
    FLOE_ASSIGN_OR_RETURN(scan_file->data_sequence_number, Long(f, "data-sequence-number"));
    FLOE_ASSIGN_OR_RETURN(scan_file->file_sequence_number, Long(f, "file-sequence-number"));
    files.push_back(std::move(scan_file));
  }
  FLOE_ASSIGN_OR_RETURN(const Json* task, Member(j, "task"));
  if (!task->is_object()) return Status::InvalidArgument("'task' must be an object");
  RewriteTask& t = input.task;
  FLOE_ASSIGN_OR_RETURN(t.spec_id, Int(*task, "spec-id"));
  if (metadata.spec_by_id(t.spec_id) == nullptr) {
    return Status::InvalidArgument("the task names unknown spec {}", t.spec_id);
  }
  // Payloads of servers from before spec moves have none: the input's spec.
  t.output_spec_id = t.spec_id;
  if (task->contains("output-spec-id")) {
    FLOE_ASSIGN_OR_RETURN(t.output_spec_id, Int(*task, "output-spec-id"));
    if (metadata.spec_by_id(*t.output_spec_id) == nullptr) {
      return Status::InvalidArgument("the task names unknown output spec {}", *t.output_spec_id);
    }
  }
  FLOE_ASSIGN_OR_RETURN(t.partition_key, String(*task, "partition-key"));
  FLOE_ASSIGN_OR_RETURN(t.rewrite_data, ReadTasks(files, *task, "rewrite-data"));
  FLOE_ASSIGN_OR_RETURN(t.rewrite_pos_data, ReadTasks(files, *task, "rewrite-pos-data"));
  FLOE_ASSIGN_OR_RETURN(t.read_only_deletes, ReadList(files, *task, "read-only-deletes"));
  FLOE_ASSIGN_OR_RETURN(t.rewritten_deletes, ReadList(files, *task, "rewritten-deletes"));
  FLOE_ASSIGN_OR_RETURN(t.input_bytes, Long(*task, "input-bytes"));
  const iceberg::FileScanTask* first =
      !t.rewrite_data.empty() ? &t.rewrite_data[0]
                              : (!t.rewrite_pos_data.empty() ? &t.rewrite_pos_data[0] : nullptr);
  // An equality-delete conversion's task may only remove delete files that apply to no
  // data file (PlanEqualityDeleteConversion): its partition is theirs.
  if (first != nullptr) {
    t.partition = first->data->file.partition;
  } else if (!t.rewritten_deletes.empty()) {
    t.partition = t.rewritten_deletes[0]->file.partition;
  } else {
    return Status::InvalidArgument("the task has no data files and removes no delete file");
  }
  input.metadata = std::make_shared<const iceberg::TableMetadata>(std::move(metadata));
  return input;
}

std::string EncodeTaskOutput(const TaskOutput& output) {
  Json j = Json::object();
  j["version"] = kVersion;
  Json data = Json::array();
  for (const DataFile& f : output.data_files) data.push_back(FileJson(f));
  Json deletes = Json::array();
  for (const DataFile& f : output.delete_files) deletes.push_back(FileJson(f));
  j["data-files"] = std::move(data);
  j["delete-files"] = std::move(deletes);
  j["rows-read"] = output.rows_read;
  j["deleted-positions"] = output.deleted_positions;
  j["bytes-written"] = output.bytes_written;
  j["cpu-nanos"] = output.cpu_nanos;
  return j.dump();
}

Result<TaskOutput> DecodeTaskOutput(std::string_view text, const iceberg::TableMetadata& metadata) {
  Result<Json> parsed = ParseJson(text);
  if (!parsed.ok()) return parsed.status().WithContext("a task output must be a JSON object");
  Json& j = *parsed;
  if (!j.is_object()) return Status::InvalidArgument("a task output must be a JSON object");
  FLOE_ASSIGN_OR_RETURN(int64_t version, Long(j, "version"));
  if (version != kVersion) return Status::InvalidArgument("unknown output version {}", version);
  TaskOutput out;
  for (auto [key, list, content_ok] : {std::tuple{"data-files", &out.data_files, true},
                                       {"delete-files", &out.delete_files, false}}) {
    FLOE_ASSIGN_OR_RETURN(const Json* files, Member(j, key));
    if (!files->is_array()) return Status::InvalidArgument("'{}' must be an array", key);
    for (const Json& f : *files) {
      FLOE_ASSIGN_OR_RETURN(DataFile file, FileFromJson(f, metadata));
      const bool is_data = file.content == iceberg::FileContent::kData;
      if (is_data != content_ok) {
        return Status::InvalidArgument("'{}' holds a file of the wrong content", key);
      }
      list->push_back(std::move(file));
    }
  }
  FLOE_ASSIGN_OR_RETURN(out.rows_read, Long(j, "rows-read"));
  FLOE_ASSIGN_OR_RETURN(out.deleted_positions, Long(j, "deleted-positions"));
  FLOE_ASSIGN_OR_RETURN(out.bytes_written, Long(j, "bytes-written"));
  // Optional: optimizers before it did not report their CPU time.
  FLOE_ASSIGN_OR_RETURN(std::optional<int64_t> cpu, OptLong(j, "cpu-nanos"));
  if (cpu && *cpu < 0) return Status::InvalidArgument("'cpu-nanos' must not be negative");
  out.cpu_nanos = cpu.value_or(0);
  return out;
}

Result<TaskOutput> RunTask(const TaskInput& input, io::FileIO& io, int64_t attempt,
                           const ExecuteOptions& local) {
  FLOE_ASSIGN_OR_RETURN(OptimizingConfig config,
                        OptimizingConfig::FromProperties(input.metadata->properties));
  ExecuteOptions execute = input.execute;
  execute.memory_budget_bytes = local.memory_budget_bytes;
  execute.spill_dir = local.spill_dir;
  execute.delete_cache = local.delete_cache;
  execute.operation_id += fmt::format("-a{}", attempt);
  // The rewrite runs on this thread: its CPU time is the task's cost (wall time would
  // count waiting for storage and for other threads).
  const int64_t cpu_before = ThreadCpuNanos();
  auto output =
      ExecuteRewriteTask(input.metadata, input.snapshot_id, io, input.task, config, execute);
  if (output.ok()) output->cpu_nanos = ThreadCpuNanos() - cpu_before;
  return output;
}

void DeleteTaskOutput(const TaskOutput& output, io::FileIO& io) {
  for (const DataFile& f : output.data_files) (void)io.Delete(f.file_path);
  for (const DataFile& f : output.delete_files) (void)io.Delete(f.file_path);
}

}  // namespace floe::optimize
