#include "floe/iceberg/delete_writer.h"

#include <algorithm>

#include <fmt/format.h>

#include "floe/base/macros.h"
#include "floe/columnar/builder.h"
#include "floe/format/puffin/puffin.h"
#include "floe/iceberg/writer_internal.h"

namespace floe::iceberg {

namespace col = floe::columnar;
namespace puffin = floe::format::puffin;

const Schema& PositionDeleteSchema() {
  static const Schema* schema = [] {
    Result<Schema> s =
        Schema::Make({NestedField::Required(kDeleteFilePathFieldId, "file_path", StringType(),
                                            "Path of a file in which a deleted row is stored"),
                      NestedField::Required(kDeleteFilePosFieldId, "pos", LongType(),
                                            "Ordinal position of a deleted row in the data file")});
    FLOE_CHECK(s.has_value());
    return new Schema(std::move(*s));
  }();
  return *schema;
}

namespace {

Result<std::string> GroupKey(const PartitionSpec& spec, const std::vector<Literal>& partition) {
  if (partition.size() != spec.fields().size()) {
    return Status::InvalidArgument("partition has {} values, spec {} has {} fields",
                                   partition.size(), spec.spec_id(), spec.fields().size());
  }
  std::string key = fmt::format("{}", spec.spec_id());
  for (const Literal& v : partition) {
    key.push_back('/');
    if (v.is_null()) {
      key += "n";
      continue;
    }
    FLOE_ASSIGN_OR_RETURN(std::string bytes, v.ToBytes());
    key += fmt::format("{}:", bytes.size());
    key += bytes;
  }
  return key;
}

void EraseIds(std::map<int32_t, int64_t>* m) {
  m->erase(kDeleteFilePathFieldId);
  m->erase(kDeleteFilePosFieldId);
}

}  // namespace

// PositionDeleteWriter ----------------------------------------------------------------

struct PositionDeleteWriter::Group {
  PartitionSpec spec;
  std::vector<Literal> partition;
  std::map<std::string, std::vector<int64_t>, std::less<>> positions;  // by data file path
};

PositionDeleteWriter::~PositionDeleteWriter() = default;

Result<std::unique_ptr<PositionDeleteWriter>> PositionDeleteWriter::Make(
    io::FileIO* io, FileWriterOptions options) {
  std::unique_ptr<PositionDeleteWriter> w(new PositionDeleteWriter());
  w->io_ = io;
  internal::FileKind kind;
  kind.content = FileContent::kPositionDeletes;
  kind.suffix = "deletes";
  FLOE_ASSIGN_OR_RETURN(w->files_, internal::PartitionedFileWriter::Make(
                                       io, PositionDeleteSchema(), PartitionSpec::Unpartitioned(),
                                       MetricsConfig::ForPositionDeletes(), std::move(kind),
                                       options, kDeleteTargetFileSizeDefault));
  w->options_ = std::move(options);
  return w;
}

Status PositionDeleteWriter::Delete(std::string_view data_file_path,
                                    std::span<const int64_t> positions, const PartitionSpec& spec,
                                    const std::vector<Literal>& partition) {
  if (closed_) return Status::FailedPrecondition("delete after close");
  for (int64_t p : positions) {
    if (p < 0) return Status::InvalidArgument("negative position {} in {}", p, data_file_path);
  }
  FLOE_ASSIGN_OR_RETURN(std::string key, GroupKey(spec, partition));
  std::unique_ptr<Group>& g = groups_[key];
  if (!g) {
    g = std::make_unique<Group>();
    g->spec = spec;
    g->partition = partition;
  }
  auto it = g->positions.find(data_file_path);
  if (it == g->positions.end())
    it = g->positions.emplace(std::string(data_file_path), std::vector<int64_t>()).first;
  it->second.insert(it->second.end(), positions.begin(), positions.end());
  return Status::OK();
}

Result<DeleteWriteResult> PositionDeleteWriter::Close() {
  if (closed_) return Status::FailedPrecondition("closed twice");
  closed_ = true;
  constexpr int64_t kBatchRows = 64 * 1024;
  DeleteWriteResult result;
  const col::SchemaPtr& schema = files_->columnar_schema();
  for (auto& [key, g] : groups_) {
    col::BinaryBuilder paths(col::String());
    col::FixedWidthBuilder<int64_t> pos(col::Int64());
    auto flush = [&]() -> Status {
      if (paths.length() == 0) return Status::OK();
      const int64_t n = paths.length();
      std::vector<col::Array> columns;
      columns.push_back(paths.Finish());
      columns.push_back(pos.Finish());
      return files_->WriteTo(g->spec, g->partition,
                             col::RecordBatch(schema, n, std::move(columns)));
    };
    for (auto& [path, positions] : g->positions) {
      std::sort(positions.begin(), positions.end());
      positions.erase(std::unique(positions.begin(), positions.end()), positions.end());
      result.referenced_data_files.push_back(path);
      for (int64_t p : positions) {
        paths.Append(path);
        pos.Append(p);
        if (paths.length() >= kBatchRows) FLOE_RETURN_IF_ERROR(flush());
      }
      std::vector<int64_t>().swap(positions);
    }
    FLOE_RETURN_IF_ERROR(flush());
  }
  FLOE_ASSIGN_OR_RETURN(result.delete_files, files_->Close());
  for (DataFile& f : result.delete_files) {
    // Java PositionDeleteWriter: no counts for file_path / pos; their bounds only when the
    // file covers a single data file, which it then names (full-mode bounds are exact).
    EraseIds(&f.value_counts);
    EraseIds(&f.null_value_counts);
    EraseIds(&f.nan_value_counts);
    auto lo = f.lower_bounds.find(kDeleteFilePathFieldId);
    auto hi = f.upper_bounds.find(kDeleteFilePathFieldId);
    if (lo != f.lower_bounds.end() && hi != f.upper_bounds.end() && lo->second == hi->second) {
      f.referenced_data_file = lo->second;
    } else {
      f.lower_bounds.erase(kDeleteFilePathFieldId);
      f.upper_bounds.erase(kDeleteFilePathFieldId);
      f.lower_bounds.erase(kDeleteFilePosFieldId);
      f.upper_bounds.erase(kDeleteFilePosFieldId);
    }
  }
  std::sort(result.referenced_data_files.begin(), result.referenced_data_files.end());
  result.referenced_data_files.erase(
      std::unique(result.referenced_data_files.begin(), result.referenced_data_files.end()),
      result.referenced_data_files.end());
  groups_.clear();
  return result;
}

Status PositionDeleteWriter::Abort() {
  closed_ = true;
  groups_.clear();
  return files_->Abort();
}

// EqualityDeleteWriter ----------------------------------------------------------------

EqualityDeleteWriter::~EqualityDeleteWriter() = default;

Result<std::unique_ptr<EqualityDeleteWriter>> EqualityDeleteWriter::Make(
    io::FileIO* io, Schema row_schema, std::vector<int32_t> equality_ids, PartitionSpec spec,
    FileWriterOptions options) {
  if (equality_ids.empty())
    return Status::InvalidArgument("equality delete needs equality field ids");
  for (int32_t id : equality_ids) {
    const NestedField* f = row_schema.FindField(id);
    if (f == nullptr)
      return Status::InvalidArgument("equality field {} is not in the delete rows", id);
    if (!f->type->is_primitive()) {
      return Status::InvalidArgument("equality field {} ({}) is not primitive", id, f->name);
    }
    std::optional<int32_t> parent = row_schema.FindParentId(id);
    for (; parent; parent = row_schema.FindParentId(*parent)) {
      if (row_schema.FindField(*parent)->type->kind() != TypeKind::kStruct) {
        return Status::InvalidArgument("equality field {} ({}) is inside a list or map", id,
                                       f->name);
      }
    }
  }
  if (!spec.is_unpartitioned()) {
    for (const PartitionField& pf : spec.fields()) {
      if (!pf.transform.is_void() && row_schema.FindField(pf.source_id) == nullptr) {
        return Status::InvalidArgument(
            "equality delete rows must include partition source column {} (of {})", pf.source_id,
            pf.name);
      }
    }
  }
  std::unique_ptr<EqualityDeleteWriter> w(new EqualityDeleteWriter());
  w->schema_ = row_schema;
  MetricsConfig metrics = MetricsConfig::ForTable(options.properties, row_schema, SortOrder());
  internal::FileKind kind;
  kind.content = FileContent::kEqualityDeletes;
  kind.suffix = "deletes";
  kind.equality_ids = std::move(equality_ids);
  FLOE_ASSIGN_OR_RETURN(
      w->files_, internal::PartitionedFileWriter::Make(io, std::move(row_schema), std::move(spec),
                                                       std::move(metrics), std::move(kind), options,
                                                       kDeleteTargetFileSizeDefault));
  return w;
}

Status EqualityDeleteWriter::Write(const col::RecordBatch& batch) {
  FLOE_RETURN_IF_ERROR(ValidateBatch(schema_, batch));
  return files_->Write(batch);
}

Result<DeleteWriteResult> EqualityDeleteWriter::Close() {
  DeleteWriteResult result;
  FLOE_ASSIGN_OR_RETURN(result.delete_files, files_->Close());
  return result;
}

Status EqualityDeleteWriter::Abort() { return files_->Abort(); }

// DeletionVectorWriter ----------------------------------------------------------------

struct DeletionVectorWriter::Entry {
  bool has_new = false;
  PartitionSpec spec;
  std::vector<Literal> partition;
  puffin::PositionBitmap positions;
  puffin::PositionBitmap previous;
  std::vector<DataFile> previous_files;
};

DeletionVectorWriter::~DeletionVectorWriter() = default;

Result<std::unique_ptr<DeletionVectorWriter>> DeletionVectorWriter::Make(
    io::FileIO* io, FileWriterOptions options) {
  if (options.operation_id.empty()) return Status::InvalidArgument("writer needs an operation id");
  std::unique_ptr<DeletionVectorWriter> w(new DeletionVectorWriter());
  w->io_ = io;
  w->locations_ = LocationProvider::Make(options.table_location, options.properties);
  w->names_ = std::make_unique<OutputFileFactory>(options.partition_id, options.task_id,
                                                  options.operation_id);
  return w;
}

Status DeletionVectorWriter::Delete(std::string_view data_file_path,
                                    std::span<const int64_t> positions, const PartitionSpec& spec,
                                    const std::vector<Literal>& partition) {
  if (closed_) return Status::FailedPrecondition("delete after close");
  if (partition.size() != spec.fields().size()) {
    return Status::InvalidArgument("partition has {} values, spec {} has {} fields",
                                   partition.size(), spec.spec_id(), spec.fields().size());
  }
  auto it = entries_.find(data_file_path);
  if (it == entries_.end()) it = entries_.emplace(std::string(data_file_path), Entry()).first;
  Entry& e = it->second;
  if (e.has_new && (e.spec.spec_id() != spec.spec_id() || e.partition != partition)) {
    return Status::InvalidArgument("data file {} was given with another spec or partition",
                                   data_file_path);
  }
  if (!e.has_new) {
    e.has_new = true;
    e.spec = spec;
    e.partition = partition;
  }
  for (int64_t p : positions) {
    if (p < 0) return Status::InvalidArgument("negative position {} in {}", p, data_file_path);
    FLOE_RETURN_IF_ERROR(e.positions.Add(static_cast<uint64_t>(p)));
  }
  return Status::OK();
}

Status DeletionVectorWriter::MergePrevious(std::string_view data_file_path,
                                           const puffin::PositionBitmap& previous,
                                           std::vector<DataFile> previous_files) {
  if (closed_) return Status::FailedPrecondition("merge after close");
  auto it = entries_.find(data_file_path);
  if (it == entries_.end()) it = entries_.emplace(std::string(data_file_path), Entry()).first;
  it->second.previous.Merge(previous);
  for (DataFile& f : previous_files) it->second.previous_files.push_back(std::move(f));
  return Status::OK();
}

namespace {

// Java BaseDVFileWriter: only deletion vectors and file-scoped position delete files may
// leave the table when merged; a partition-scoped file still applies to other data files.
bool IsFileScoped(const DataFile& f, std::string_view data_file_path) {
  if (f.file_format == FileFormat::kPuffin) return true;
  if (f.referenced_data_file) return *f.referenced_data_file == data_file_path;
  auto lo = f.lower_bounds.find(kDeleteFilePathFieldId);
  auto hi = f.upper_bounds.find(kDeleteFilePathFieldId);
  return lo != f.lower_bounds.end() && hi != f.upper_bounds.end() && lo->second == hi->second &&
         lo->second == data_file_path;
}

}  // namespace

Result<DeleteWriteResult> DeletionVectorWriter::Close() {
  if (closed_) return Status::FailedPrecondition("closed twice");
  closed_ = true;
  DeleteWriteResult result;
  bool any = false;
  for (const auto& [path, e] : entries_) any |= e.has_new;
  if (!any) return result;
  const std::string name = names_->NewFileName(FileFormat::kPuffin, "deletes");
  const std::string location = locations_->NewDataLocation(name);
  FLOE_ASSIGN_OR_RETURN(std::unique_ptr<io::OutputStream> out, io_->CreateOutput(location, false));
  written_ = location;
  FLOE_ASSIGN_OR_RETURN(std::unique_ptr<puffin::PuffinWriter> writer,
                        puffin::PuffinWriter::Make(out.get()));
  std::vector<std::pair<const std::string*, puffin::DeletionVectorInfo>> blobs;
  for (auto& [path, e] : entries_) {
    if (!e.has_new) continue;
    e.positions.Merge(e.previous);
    FLOE_ASSIGN_OR_RETURN(puffin::DeletionVectorInfo info,
                          puffin::WriteDeletionVectorBlob(*writer, path, e.positions));
    blobs.emplace_back(&path, info);
  }
  FLOE_ASSIGN_OR_RETURN(puffin::PuffinFileInfo file_info, writer->Finish());
  FLOE_RETURN_IF_ERROR(out->Close());
  std::map<std::string, DataFile> rewritten;  // by path and offset, once each
  for (const auto& [path, info] : blobs) {
    const Entry& e = entries_.at(*path);
    DataFile f;
    f.content = FileContent::kPositionDeletes;
    f.file_path = location;
    f.file_format = FileFormat::kPuffin;
    f.spec_id = e.spec.spec_id();
    f.partition = e.partition;
    f.record_count = static_cast<int64_t>(info.record_count);
    f.file_size_in_bytes = static_cast<int64_t>(file_info.file_size);
    f.referenced_data_file = *path;
    f.content_offset = static_cast<int64_t>(info.content_offset);
    f.content_size_in_bytes = static_cast<int64_t>(info.content_size_in_bytes);
    result.delete_files.push_back(std::move(f));
    result.referenced_data_files.push_back(*path);
    for (const DataFile& prev : e.previous_files) {
      if (!IsFileScoped(prev, *path)) continue;
      rewritten.emplace(fmt::format("{}@{}", prev.file_path, prev.content_offset.value_or(-1)),
                        prev);
    }
  }
  for (auto& [key, f] : rewritten) result.rewritten_delete_files.push_back(std::move(f));
  entries_.clear();
  return result;
}

Status DeletionVectorWriter::Abort() {
  closed_ = true;
  entries_.clear();
  if (written_.empty()) return Status::OK();
  Status s = io_->Delete(written_);
  written_.clear();
  return s.ok() || s.code() == StatusCode::kNotFound ? Status::OK() : s;
}

}  // namespace floe::iceberg
