#include "floe/iceberg/scan.h"

#include <algorithm>
#include <cstring>
#include <set>
#include <unordered_map>
#include <utility>

#include <xxhash.h>

#include "floe/base/macros.h"
#include "floe/columnar/bitmap.h"
#include "floe/columnar/compute.h"
#include "floe/format/puffin/deletion_vector.h"
#include "floe/iceberg/equality_key.h"
#include "floe/iceberg/file_filter.h"
#include "floe/iceberg/manifest_cache.h"
#include "floe/iceberg/manifest_list.h"
#include "floe/iceberg/manifest_reader.h"
#include "floe/iceberg/partition_spec.h"

namespace floe::iceberg {

namespace col = floe::columnar;
namespace puffin = floe::format::puffin;
using internal::AppendKey;
using internal::EqualityKeyTable;
using internal::FindAnyField;
using internal::LocateAll;
using internal::Located;

// Reserved field ids of position delete files (spec, "Position Delete Files").
constexpr int32_t kDeleteFilePathFieldId = 2147483546;
constexpr int32_t kDeletePosFieldId = 2147483545;

// ---------------------------------------------------------------------------------------
// Schema projection

namespace {

// Keeps the fields whose id is selected (with their whole subtree) or that contain a
// selected field (structs keep only the selected parts). Lists and maps are kept whole.
std::optional<NestedField> SelectField(const NestedField& f, const std::set<int32_t>& ids) {
  if (ids.count(f.id)) return f;
  if (f.type->kind() != TypeKind::kStruct) {
    // Inside lists and maps nothing can be selected alone: keep the whole field.
    if (f.type->kind() == TypeKind::kList || f.type->kind() == TypeKind::kMap) {
      std::vector<int32_t> inner;
      std::vector<const Type*> stack{f.type.get()};
      bool any = false;
      while (!stack.empty() && !any) {
        const Type* t = stack.back();
        stack.pop_back();
        for (const NestedField& c : t->fields()) {
          if (ids.count(c.id)) any = true;
          if (c.type->is_nested()) stack.push_back(c.type.get());
        }
      }
      if (any) return f;
    }
    return std::nullopt;
  }
  std::vector<NestedField> children;
  for (const NestedField& c : f.type->fields()) {
    if (std::optional<NestedField> s = SelectField(c, ids)) children.push_back(std::move(*s));
  }
  if (children.empty()) return std::nullopt;
  NestedField out = f;
  out.type = StructType(std::move(children));
  return out;
}

Result<Schema> SelectFieldIds(const Schema& schema, const std::set<int32_t>& ids) {
  std::vector<NestedField> fields;
  for (const NestedField& f : schema.fields()) {
    if (std::optional<NestedField> s = SelectField(f, ids)) fields.push_back(std::move(*s));
  }
  std::vector<int32_t> identifiers;
  for (int32_t id : schema.identifier_field_ids()) {
    if (ids.count(id)) identifiers.push_back(id);
  }
  return Schema::Make(std::move(fields), schema.schema_id(), std::move(identifiers));
}

}  // namespace

Result<Schema> ProjectSchema(const Schema& schema, const std::vector<std::string>& columns,
                             bool case_sensitive) {
  if (columns.empty()) return schema;
  std::set<int32_t> ids;
  for (const std::string& name : columns) {
    const NestedField* f = schema.FindFieldByName(name, case_sensitive);
    if (f == nullptr) return Status::InvalidArgument("unknown column '{}'", name);
    ids.insert(f->id);
  }
  // Keep the requested order for top-level columns.
  FLOE_ASSIGN_OR_RETURN(Schema selected, SelectFieldIds(schema, ids));
  std::vector<NestedField> ordered;
  for (const std::string& name : columns) {
    const NestedField* f = schema.FindFieldByName(name, case_sensitive);
    int32_t top = f->id;
    for (std::optional<int32_t> p = schema.FindParentId(top); p; p = schema.FindParentId(*p)) {
      top = *p;
    }
    bool seen = false;
    for (const NestedField& o : ordered) seen |= o.id == top;
    if (seen) continue;
    for (const NestedField& s : selected.fields()) {
      if (s.id == top) ordered.push_back(s);
    }
  }
  return Schema::Make(std::move(ordered), schema.schema_id(), selected.identifier_field_ids());
}

// ---------------------------------------------------------------------------------------
// Planning

namespace {

// Partition identity: spec id and the single-value bytes of each value.
std::string PartitionKey(int32_t spec_id, const std::vector<Literal>& partition) {
  std::string key(reinterpret_cast<const char*>(&spec_id), sizeof(spec_id));
  for (const Literal& v : partition) {
    if (v.is_null()) {
      key.push_back('\0');
      continue;
    }
    Result<std::string> bytes = v.ToBytes();
    std::string b = bytes.ok() ? std::move(*bytes) : v.ToString();
    key.push_back('\1');
    auto len = static_cast<uint32_t>(b.size());
    key.append(reinterpret_cast<const char*>(&len), sizeof(len));
    key += b;
  }
  return key;
}

using ScanFilePtr = std::shared_ptr<const ScanFile>;

// The file a position delete file is scoped to: its referenced_data_file, or the single
// file_path its bounds allow (Java writers before v3 left the field null).
std::optional<std::string> FileScope(const DataFile& f) {
  if (f.referenced_data_file) return f.referenced_data_file;
  auto lo = f.lower_bounds.find(kDeleteFilePathFieldId);
  auto hi = f.upper_bounds.find(kDeleteFilePathFieldId);
  if (lo != f.lower_bounds.end() && hi != f.upper_bounds.end() && lo->second == hi->second) {
    return lo->second;
  }
  return std::nullopt;
}

class DeleteIndex {
 public:
  explicit DeleteIndex(const TableMetadata& md) : md_(md) {}

  // Data files need their column metrics to be matched against equality deletes.
  bool has_equality_deletes() const { return !global_eq_.empty() || !eq_by_partition_.empty(); }

  void Add(ScanFilePtr f) {
    const DataFile& d = f->file;
    if (d.content == FileContent::kEqualityDeletes) {
      const PartitionSpec* spec = md_.spec_by_id(d.spec_id);
      if (spec == nullptr || spec->is_unpartitioned()) {
        global_eq_.push_back(std::move(f));
      } else {
        eq_by_partition_[PartitionKey(d.spec_id, d.partition)].push_back(std::move(f));
      }
      return;
    }
    if (d.file_format == FileFormat::kPuffin) {
      std::string path = d.referenced_data_file.value_or("");
      auto it = dv_by_path_.find(path);
      if (it == dv_by_path_.end() || it->second->data_sequence_number < f->data_sequence_number) {
        dv_by_path_[path] = std::move(f);
      }
      return;
    }
    if (std::optional<std::string> scope = FileScope(d)) {
      pos_by_path_[*scope].push_back(std::move(f));
    } else {
      pos_by_partition_[PartitionKey(d.spec_id, d.partition)].push_back(std::move(f));
    }
  }

  void ForDataFile(const ScanFile& data, FileScanTask* task) const {
    const int64_t seq = data.data_sequence_number;
    const DataFile& d = data.file;
    std::string key = PartitionKey(d.spec_id, d.partition);
    if (auto it = dv_by_path_.find(d.file_path);
        it != dv_by_path_.end() && it->second->data_sequence_number >= seq) {
      task->position_deletes.push_back(it->second);
    } else {
      auto add_pos = [&](const std::vector<ScanFilePtr>* files) {
        if (files == nullptr) return;
        for (const ScanFilePtr& f : *files) {
          if (f->data_sequence_number >= seq) task->position_deletes.push_back(f);
        }
      };
      auto by_path = pos_by_path_.find(d.file_path);
      add_pos(by_path == pos_by_path_.end() ? nullptr : &by_path->second);
      auto by_partition = pos_by_partition_.find(key);
      add_pos(by_partition == pos_by_partition_.end() ? nullptr : &by_partition->second);
    }
    auto add_eq = [&](const ScanFilePtr& f) {
      if (f->data_sequence_number > seq && EqualityDeletesMayApply(md_, d, f->file)) {
        task->equality_deletes.push_back(f);
      }
    };
    for (const ScanFilePtr& f : global_eq_) add_eq(f);
    if (auto it = eq_by_partition_.find(key); it != eq_by_partition_.end()) {
      for (const ScanFilePtr& f : it->second) add_eq(f);
    }
  }

 private:
  const TableMetadata& md_;
  std::vector<ScanFilePtr> global_eq_;
  std::unordered_map<std::string, std::vector<ScanFilePtr>> eq_by_partition_;
  std::unordered_map<std::string, std::vector<ScanFilePtr>> pos_by_partition_;
  std::unordered_map<std::string, std::vector<ScanFilePtr>> pos_by_path_;
  std::unordered_map<std::string, ScanFilePtr> dv_by_path_;
};

std::vector<FieldSummaryRef> Summaries(const ManifestFile& m) {
  std::vector<FieldSummaryRef> out;
  if (!m.partitions) return out;
  for (const PartitionFieldSummary& s : *m.partitions) {
    FieldSummaryRef r;
    r.contains_null = s.contains_null;
    r.contains_nan = s.contains_nan;
    if (s.lower_bound) r.lower_bound = *s.lower_bound;
    if (s.upper_bound) r.upper_bound = *s.upper_bound;
    out.push_back(r);
  }
  return out;
}

}  // namespace

Result<std::unique_ptr<TableScan>> TableScan::Make(TableMetadataPtr metadata, io::FileIO& io,
                                                   ScanOptions options) {
  std::unique_ptr<TableScan> scan(new TableScan());
  const TableMetadata& md = *metadata;
  const Schema* schema = md.current_schema();
  const Snapshot* snapshot = nullptr;
  auto snapshot_schema = [&](const Snapshot* s) {
    if (s && s->schema_id) {
      if (const Schema* found = md.schema_by_id(*s->schema_id)) return found;
    }
    return md.current_schema();
  };
  int selectors =
      (options.snapshot_id ? 1 : 0) + (options.ref ? 1 : 0) + (options.as_of_timestamp_ms ? 1 : 0);
  if (selectors > 1) {
    return Status::InvalidArgument("choose at most one of a snapshot id, a ref and a time");
  }
  if (options.snapshot_id) {
    snapshot = md.snapshot_by_id(*options.snapshot_id);
    if (snapshot == nullptr) return Status::NotFound("snapshot {} not found", *options.snapshot_id);
    schema = snapshot_schema(snapshot);
  } else if (options.ref) {
    const SnapshotRef* ref = md.ref(*options.ref);
    snapshot = md.SnapshotForRef(*options.ref);
    if (ref == nullptr || snapshot == nullptr) {
      return Status::NotFound("ref '{}' not found", *options.ref);
    }
    // Iceberg Java: a branch reads with the table schema, a tag with its snapshot's.
    if (ref->type != SnapshotRefType::kBranch) schema = snapshot_schema(snapshot);
  } else if (options.as_of_timestamp_ms) {
    snapshot = md.SnapshotAsOf(*options.as_of_timestamp_ms);
    if (snapshot == nullptr) {
      return Status::NotFound("no snapshot at or before {} ms", *options.as_of_timestamp_ms);
    }
    schema = snapshot_schema(snapshot);
  } else {
    snapshot = md.current_snapshot();
  }
  if (schema == nullptr) return Status::Corrupt("table metadata has no current schema");
  if (options.from_snapshot_id) {
    if (snapshot == nullptr)
      return Status::InvalidArgument("an incremental scan needs an end snapshot");
    if (md.snapshot_by_id(*options.from_snapshot_id) == nullptr) {
      return Status::NotFound("snapshot {} not found", *options.from_snapshot_id);
    }
    bool ancestor = false;
    for (const Snapshot* s : md.Ancestors(snapshot->snapshot_id)) {
      if (s->snapshot_id == *options.from_snapshot_id) ancestor = true;
    }
    if (!ancestor) {
      return Status::InvalidArgument("snapshot {} is not an ancestor of snapshot {}",
                                     *options.from_snapshot_id, snapshot->snapshot_id);
    }
  }
  scan->metadata_ = std::move(metadata);
  scan->io_ = &io;
  scan->snapshot_ = snapshot;
  scan->schema_ = std::make_shared<const Schema>(*schema);
  FLOE_ASSIGN_OR_RETURN(Schema projected,
                        ProjectSchema(*schema, options.columns, options.case_sensitive));
  scan->projected_ = std::make_shared<const Schema>(std::move(projected));
  if (options.filter) {
    FLOE_ASSIGN_OR_RETURN(scan->filter_, Bind(*schema, options.filter, options.case_sensitive));
  } else {
    scan->filter_ = BoundExpression::True();
  }
  scan->options_ = std::move(options);
  return scan;
}

Result<std::vector<FileScanTask>> TableScan::PlanFiles() {
  std::vector<FileScanTask> tasks;
  metrics_ = ScanMetrics{};
  if (snapshot_ == nullptr) return tasks;
  const TableMetadata& md = *metadata_;
  FLOE_ASSIGN_OR_RETURN(std::unique_ptr<io::InputFile> list_file,
                        io_->OpenInput(snapshot_->manifest_list));
  FLOE_ASSIGN_OR_RETURN(std::vector<ManifestFile> manifests, ReadManifestList(*list_file));
  metrics_.manifests_total = static_cast<int64_t>(manifests.size());

  const bool filtering = filter_->op() != Operation::kTrue;
  // Per spec: the partition type and the projected partition filter.
  struct SpecInfo {
    const PartitionSpec* spec = nullptr;
    TypePtr partition_type;
    BoundExpressionPtr partition_filter;
  };
  std::map<int32_t, SpecInfo> specs;
  auto spec_info = [&](int32_t spec_id) -> Result<const SpecInfo*> {
    auto it = specs.find(spec_id);
    if (it != specs.end()) return &it->second;
    SpecInfo info;
    info.spec = md.spec_by_id(spec_id);
    if (info.spec == nullptr)
      return Status::Corrupt("manifest uses unknown partition spec {}", spec_id);
    // A spec over columns the scan schema no longer has cannot be typed against it; its
    // manifests are then read with the partition type from the file and not pruned.
    Result<TypePtr> type = info.spec->PartitionType(*schema_);
    if (type.ok()) info.partition_type = *type;
    info.partition_filter = BoundExpression::True();
    if (filtering && type.ok()) {
      Result<BoundExpressionPtr> p = ProjectInclusive(*filter_, *schema_, *info.spec);
      if (p.ok()) info.partition_filter = *p;
    }
    return &specs.emplace(spec_id, std::move(info)).first->second;
  };

  ManifestSchemaCache schema_cache;
  ManifestEntryCache* cache = options_.manifest_cache;
  auto read_manifest = [&](const ManifestFile& m,
                           bool stats) -> Result<std::vector<ManifestEntry>> {
    if (cache != nullptr) {
      // Manifests never change once written: their decoded entries serve every later plan.
      if (ManifestEntryCache::Entries held = cache->Get(m.manifest_path, stats)) {
        return std::vector<ManifestEntry>(*held);
      }
    }
    FLOE_ASSIGN_OR_RETURN(const SpecInfo* info, spec_info(m.partition_spec_id));
    FLOE_ASSIGN_OR_RETURN(std::unique_ptr<io::InputFile> f, io_->OpenInput(m.manifest_path));
    ManifestReaderOptions opts;
    opts.schema_cache = &schema_cache;
    opts.filter = ManifestEntryFilter::kLive;
    opts.read_stats = stats;
    opts.partition_type = info->partition_type;
    Result<std::vector<ManifestEntry>> entries = ReadManifest(*f, m, opts);
    if (!entries.ok()) {
      return Status(entries.status().code(),
                    fmt::format("{}: {}", m.manifest_path, entries.status().message()));
    }
    if (cache != nullptr) {
      cache->Put(m.manifest_path, stats,
                 std::make_shared<const std::vector<ManifestEntry>>(*entries));
    }
    return entries;
  };

  // Incremental append scans read the files the append snapshots in the range added, and
  // no deletes (Java IncrementalAppendScan).
  std::set<int64_t> appended;
  if (options_.from_snapshot_id) {
    for (const Snapshot* s : md.Ancestors(snapshot_->snapshot_id)) {
      if (s->snapshot_id == *options_.from_snapshot_id) break;
      if (s->operation == "append") appended.insert(s->snapshot_id);
    }
  }
  const bool incremental = options_.from_snapshot_id.has_value();

  DeleteIndex deletes(md);
  for (const ManifestFile& m : manifests) {
    if (m.content != ManifestContent::kDeletes || incremental) continue;
    FLOE_ASSIGN_OR_RETURN(const SpecInfo* info, spec_info(m.partition_spec_id));
    if (filtering && !ManifestMayMatch(*info->partition_filter, *info->spec, Summaries(m))) {
      ++metrics_.manifests_skipped;
      continue;
    }
    // Bounds of file_path tell file-scoped position deletes apart.
    FLOE_ASSIGN_OR_RETURN(std::vector<ManifestEntry> entries, read_manifest(m, true));
    for (ManifestEntry& e : entries) {
      auto f = std::make_shared<ScanFile>();
      f->file = std::move(e.data_file);
      f->file.spec_id = m.partition_spec_id;
      f->data_sequence_number = e.data_sequence_number.value_or(0);
      f->file_sequence_number = e.file_sequence_number.value_or(0);
      ++metrics_.delete_files;
      deletes.Add(std::move(f));
    }
  }
  for (size_t position = 0; position < manifests.size(); ++position) {
    const ManifestFile& m = manifests[position];
    if (m.content != ManifestContent::kData) continue;
    if (options_.manifest_range && (position < options_.manifest_range->first ||
                                    position >= options_.manifest_range->second)) {
      continue;
    }
    // An ADDED entry lives in a manifest its own snapshot wrote.
    if (incremental && !appended.contains(m.added_snapshot_id)) continue;
    FLOE_ASSIGN_OR_RETURN(const SpecInfo* info, spec_info(m.partition_spec_id));
    if (filtering && !ManifestMayMatch(*info->partition_filter, *info->spec, Summaries(m))) {
      ++metrics_.manifests_skipped;
      continue;
    }
    FLOE_ASSIGN_OR_RETURN(
        std::vector<ManifestEntry> entries,
        read_manifest(m, filtering || options_.keep_stats || deletes.has_equality_deletes()));
    for (ManifestEntry& e : entries) {
      if (incremental && (e.status != ManifestStatus::kAdded || !e.snapshot_id ||
                          !appended.contains(*e.snapshot_id))) {
        continue;
      }
      ++metrics_.data_files_total;
      if (filtering &&
          (!EvaluatePartition(*info->partition_filter, *info->spec, e.data_file.partition) ||
           !FileMayMatch(*filter_, MetricsOf(e.data_file)))) {
        ++metrics_.data_files_skipped;
        continue;
      }
      auto f = std::make_shared<ScanFile>();
      f->file = std::move(e.data_file);
      f->file.spec_id = m.partition_spec_id;
      f->data_sequence_number = e.data_sequence_number.value_or(0);
      f->file_sequence_number = e.file_sequence_number.value_or(0);
      FileScanTask task;
      deletes.ForDataFile(*f, &task);
      task.data = std::move(f);
      tasks.push_back(std::move(task));
    }
  }
  return tasks;
}

// ---------------------------------------------------------------------------------------
// Reading

namespace {

// The keys of every equality delete file loaded so far that deletes by one set of field
// ids, each key with the files holding it. Data files see different subsets of the delete
// files (the sequence-number and partition rules), so the index is built once per scan and
// each data file marks which loaded files apply to it: a row is deleted when its key is held
// by one of those. Every delete file is read once per scan, however many data files it
// applies to.
struct EqualityDeleteIndex {
  struct Holders {
    uint32_t first;              // index of the first file holding the key
    std::vector<uint32_t> more;  // further files (rare: the same key deleted again)
  };
  std::vector<int32_t> field_ids;  // sorted
  std::shared_ptr<const Schema> key_schema;
  EqualityKeyTable keys;
  std::vector<Holders> holders;                     // by key entry
  std::unordered_map<std::string, uint32_t> files;  // delete file path -> index
  std::vector<uint8_t> applies;  // by file index: applies to the current data file
};

}  // namespace

struct TableScan::Reader::State {
  // Per data file.
  std::unique_ptr<DataFileReader> reader;
  puffin::PositionBitmap positions;
  std::vector<EqualityDeleteIndex*> equality;  // the indexes the current data file uses
  std::vector<uint8_t> keep;
  std::string key;  // one encoded key, or a batch's keys back to back (ends in key_ends)
  std::vector<size_t> key_ends;
  std::vector<int64_t> key_rows;  // batch row of each key
  std::vector<uint64_t> key_hashes;
  // Shared across files.
  std::unordered_map<std::string,
                     std::shared_ptr<std::unordered_map<std::string, puffin::PositionBitmap>>>
      position_files;  // delete file path -> data file path -> positions
  std::map<std::vector<int32_t>, EqualityDeleteIndex> equality_indexes;  // by field ids
  // Memory-bounded application (ScanOptions::equality_deletes), planned at the first task.
  bool equality_planned = false;
  std::vector<internal::EqualityGroup> groups;
  std::vector<puffin::PositionBitmap> equality_positions;  // by task: spilled groups' rows
  EqualityDeleteStats equality_stats;
};

TableScan::Reader::Reader(TableScan* scan, std::vector<FileScanTask> tasks)
    : scan_(scan), tasks_(std::move(tasks)), state_(std::make_unique<State>()) {}
TableScan::Reader::~Reader() = default;

Result<std::unique_ptr<TableScan::Reader>> TableScan::Open(std::vector<FileScanTask> tasks) {
  return std::unique_ptr<Reader>(new Reader(this, std::move(tasks)));
}

namespace {

Result<std::shared_ptr<const Schema>> ReadSchemaFor(const TableMetadata& md, const Schema& scan,
                                                    const Schema& projected,
                                                    const BoundExpression& filter,
                                                    const std::set<int32_t>& extra_ids) {
  std::set<int32_t> ids;
  for (int32_t id : projected.AllFieldIds()) ids.insert(id);
  for (int32_t id : filter.ReferencedFieldIds()) ids.insert(id);
  std::vector<NestedField> dropped;
  for (int32_t id : extra_ids) {
    if (scan.FindField(id)) {
      ids.insert(id);
    } else if (const NestedField* f = FindAnyField(md, scan, id)) {
      dropped.push_back(*f);
    } else {
      return Status::Corrupt("equality delete field {} is in no schema of the table", id);
    }
  }
  FLOE_ASSIGN_OR_RETURN(Schema selected, SelectFieldIds(scan, ids));
  if (dropped.empty()) return std::make_shared<const Schema>(std::move(selected));
  std::vector<NestedField> fields = selected.fields();
  for (NestedField& f : dropped) fields.push_back(std::move(f));
  FLOE_ASSIGN_OR_RETURN(Schema with_dropped, Schema::Make(std::move(fields), scan.schema_id()));
  return std::make_shared<const Schema>(std::move(with_dropped));
}

// Reads a position delete file, grouping positions by data file path.
Result<std::shared_ptr<std::unordered_map<std::string, puffin::PositionBitmap>>> LoadPositionFile(
    io::FileIO& io, const std::string& path, const DataReadOptions& options) {
  auto schema =
      Schema::Make({NestedField::Required(kDeleteFilePathFieldId, "file_path", StringType()),
                    NestedField::Required(kDeletePosFieldId, "pos", LongType())});
  if (!schema.ok()) return schema.status();
  FLOE_ASSIGN_OR_RETURN(std::unique_ptr<DataFileReader> reader,
                        DataFileReader::Open(io, path, std::make_shared<const Schema>(*schema), {},
                                             nullptr, options));
  auto out = std::make_shared<std::unordered_map<std::string, puffin::PositionBitmap>>();
  while (true) {
    FLOE_ASSIGN_OR_RETURN(std::optional<PositionedBatch> b, reader->Next());
    if (!b) break;
    const col::Array& paths = b->batch.column(0);
    const col::Array& pos = b->batch.column(1);
    std::string_view last_path;
    puffin::PositionBitmap* bitmap = nullptr;
    for (int64_t i = 0; i < b->batch.num_rows(); ++i) {
      if (paths.IsNull(i) || pos.IsNull(i)) {
        return Status::Corrupt("{}: null file_path or pos in a position delete file", path);
      }
      std::string_view p = paths.BinaryValue(i);
      if (bitmap == nullptr || p != last_path) {
        bitmap = &(*out)[std::string(p)];
        last_path = p;
      }
      int64_t v = pos.Value<int64_t>(i);
      if (v < 0) return Status::Corrupt("{}: negative position {}", path, v);
      Status st = bitmap->Add(static_cast<uint64_t>(v));
      if (!st.ok()) return Status::Corrupt("{}: {}", path, st.message());
    }
  }
  return out;
}

}  // namespace

Result<puffin::PositionBitmap> ReadPositionDeletes(io::FileIO& io,
                                                   const std::string& delete_file_path,
                                                   std::string_view data_file_path) {
  FLOE_ASSIGN_OR_RETURN(auto loaded, LoadPositionFile(io, delete_file_path, DataReadOptions{}));
  auto it = loaded->find(std::string(data_file_path));
  if (it == loaded->end()) return puffin::PositionBitmap();
  return std::move(it->second);
}

Status LoadPreviousDeletes(io::FileIO& io, const FileScanTask& task,
                           puffin::PositionBitmap* positions, std::vector<DataFile>* files) {
  const std::string& data_path = task.data->file.file_path;
  for (const auto& d : task.position_deletes) {
    const DataFile& f = d->file;
    if (f.file_format == FileFormat::kPuffin) {
      if (!f.content_offset || !f.content_size_in_bytes) {
        return Status::Corrupt("deletion vector {} without content offset and size", f.file_path);
      }
      FLOE_ASSIGN_OR_RETURN(std::unique_ptr<io::InputFile> in, io.OpenInput(f.file_path));
      FLOE_ASSIGN_OR_RETURN(puffin::PositionBitmap dv,
                            puffin::ReadDeletionVector(
                                *in, static_cast<uint64_t>(*f.content_offset),
                                static_cast<uint64_t>(*f.content_size_in_bytes), f.record_count));
      positions->Merge(dv);
      files->push_back(f);
      continue;
    }
    FLOE_ASSIGN_OR_RETURN(puffin::PositionBitmap p,
                          ReadPositionDeletes(io, f.file_path, data_path));
    positions->Merge(p);
    files->push_back(f);
  }
  return Status::OK();
}

Status TableScan::Reader::OpenTask() {
  const FileScanTask& task = tasks_[next_task_++];
  const TableMetadata& md = *scan_->metadata_;
  State& s = *state_;
  s.positions = puffin::PositionBitmap();
  s.equality.clear();
  const DataFile& data = task.data->file;

  for (const auto& d : task.position_deletes) {
    if (d->file.file_format == FileFormat::kPuffin) {
      if (!d->file.content_offset || !d->file.content_size_in_bytes) {
        return Status::Corrupt("deletion vector {} without content offset and size",
                               d->file.file_path);
      }
      FLOE_ASSIGN_OR_RETURN(std::unique_ptr<io::InputFile> f,
                            scan_->io_->OpenInput(d->file.file_path));
      FLOE_ASSIGN_OR_RETURN(
          puffin::PositionBitmap dv,
          puffin::ReadDeletionVector(*f, static_cast<uint64_t>(*d->file.content_offset),
                                     static_cast<uint64_t>(*d->file.content_size_in_bytes),
                                     d->file.record_count));
      s.positions.Merge(dv);
      continue;
    }
    auto it = s.position_files.find(d->file.file_path);
    if (it == s.position_files.end()) {
      FLOE_ASSIGN_OR_RETURN(auto loaded,
                            LoadPositionFile(*scan_->io_, d->file.file_path, scan_->options_.read));
      it = s.position_files.emplace(d->file.file_path, std::move(loaded)).first;
    }
    if (auto p = it->second->find(data.file_path); p != it->second->end()) {
      s.positions.Merge(p->second);
    }
  }

  if (!s.equality_planned) FLOE_RETURN_IF_ERROR(PlanEqualityDeletes());
  const size_t task_index = next_task_ - 1;
  if (!s.equality_positions.empty() && !s.equality_positions[task_index].empty()) {
    s.positions.Merge(s.equality_positions[task_index]);
    s.equality_positions[task_index] = puffin::PositionBitmap();
  }

  // Equality deletes of the groups applied while reading (not spilled).
  std::set<int32_t> equality_ids;
  for (internal::EqualityGroup& group : s.groups) {
    const std::vector<uint32_t>& applies = group.applies[task_index];
    if (applies.empty() || group.mode == internal::EqualityMode::kSpilled) continue;
    for (int32_t id : group.ids) equality_ids.insert(id);
    EqualityDeleteIndex& index = s.equality_indexes[group.ids];
    if (index.key_schema == nullptr) {
      index.field_ids = group.ids;
      index.key_schema = group.key_schema;
    }
    std::fill(index.applies.begin(), index.applies.end(), 0);
    const internal::KeyFilter* filter = group.filter.get();
    for (uint32_t d : applies) {
      const ScanFile* f = group.deletes[d];
      auto [it, added] =
          index.files.emplace(f->file.file_path, static_cast<uint32_t>(index.files.size()));
      const uint32_t file_index = it->second;
      if (added) {
        index.applies.push_back(0);
        FLOE_ASSIGN_OR_RETURN(
            std::shared_ptr<const DecodedDeleteKeys> keys,
            internal::LoadDeleteKeys(*scan_->io_, f->file.file_path, group.ids, group.key_schema,
                                     scan_->options_.read, scan_->options_.equality_deletes.cache));
        s.equality_stats.delete_keys_read += static_cast<int64_t>(keys->size());
        for (size_t j = 0; j < keys->size(); ++j) {
          if (filter != nullptr && !filter->MayContain(keys->hashes[j])) continue;
          ++s.equality_stats.delete_keys_kept;
          bool fresh = false;
          const uint32_t entry = index.keys.FindOrAdd(keys->key(j), keys->hashes[j], &fresh);
          if (fresh) {
            index.holders.push_back({file_index, {}});
            continue;
          }
          EqualityDeleteIndex::Holders& h = index.holders[entry];
          if (h.first != file_index && (h.more.empty() || h.more.back() != file_index)) {
            h.more.push_back(file_index);
          }
        }
        s.equality_stats.peak_table_bytes = std::max<int64_t>(
            s.equality_stats.peak_table_bytes,
            static_cast<int64_t>(index.keys.memory_bytes() +
                                 index.holders.capacity() * sizeof(EqualityDeleteIndex::Holders)));
      }
      index.applies[file_index] = 1;
    }
    s.equality.push_back(&index);
  }

  FLOE_ASSIGN_OR_RETURN(
      std::shared_ptr<const Schema> read_schema,
      ReadSchemaFor(md, *scan_->schema_, *scan_->projected_, *scan_->filter_, equality_ids));
  FLOE_ASSIGN_OR_RETURN(s.reader, internal::OpenScanDataFile(md, *scan_->io_, data, read_schema,
                                                             scan_->options_.read));
  return Status::OK();
}

Status TableScan::Reader::PlanEqualityDeletes() {
  State& s = *state_;
  s.equality_planned = true;
  const TableMetadata& md = *scan_->metadata_;
  const EqualityDeleteOptions& options = scan_->options_.equality_deletes;
  FLOE_ASSIGN_OR_RETURN(s.groups,
                        internal::PlanEqualityGroups(md, *scan_->schema_, tasks_, options));
  for (internal::EqualityGroup& group : s.groups) {
    if (group.mode == internal::EqualityMode::kMemory) continue;
    if (group.mode == internal::EqualityMode::kSpilled && s.equality_positions.empty()) {
      s.equality_positions.resize(tasks_.size());
    }
    FLOE_RETURN_IF_ERROR(internal::ResolveEqualityGroup(md, *scan_->io_, tasks_,
                                                        scan_->options_.read, options, group,
                                                        &s.equality_positions, &s.equality_stats));
  }
  return Status::OK();
}

const EqualityDeleteStats& TableScan::Reader::equality_stats() const {
  return state_->equality_stats;
}

Result<std::optional<TableScan::Reader::Matches>> TableScan::Reader::NextMatches() {
  State& s = *state_;
  while (true) {
    if (!s.reader) {
      if (next_task_ >= tasks_.size()) return std::nullopt;
      FLOE_RETURN_IF_ERROR(OpenTask());
    }
    FLOE_ASSIGN_OR_RETURN(std::optional<PositionedBatch> pb, s.reader->Next());
    if (!pb) {
      s.reader.reset();
      continue;
    }
    FLOE_RETURN_IF_ERROR(ComputeKeep(*pb));
    Matches m;
    m.task = &tasks_[next_task_ - 1];
    for (int64_t i = 0; i < pb->batch.num_rows(); ++i) {
      if (s.keep[i]) m.positions.push_back(pb->first_position + i);
    }
    if (m.positions.empty()) continue;
    return m;
  }
}

// keep[i] = 1 for the batch's rows that are live (no delete applies) and match the filter.
Status TableScan::Reader::ComputeKeep(const PositionedBatch& pb) {
  State& s = *state_;
  const col::RecordBatch& batch = pb.batch;
  const int64_t n = batch.num_rows();
  s.keep.assign(static_cast<size_t>(n), 1);
  if (!s.positions.empty()) {
    std::vector<uint8_t> bits(static_cast<size_t>(col::BytesForBits(n)));
    s.positions.FillKeepBitmap(static_cast<uint64_t>(pb.first_position), static_cast<uint64_t>(n),
                               bits.data());
    for (int64_t i = 0; i < n; ++i) s.keep[i] = col::GetBit(bits.data(), i) ? 1 : 0;
  }
  for (const EqualityDeleteIndex* index : s.equality) {
    FLOE_ASSIGN_OR_RETURN(std::vector<Located> cols, LocateAll(batch, index->field_ids));
    // Encode and hash the live rows' keys first, then probe with the slots of rows a few
    // steps ahead already loading: the table is larger than the caches, and independent
    // misses overlap where one-at-a-time probes would wait for each.
    s.key.clear();
    s.key_ends.clear();
    s.key_rows.clear();
    for (int64_t i = 0; i < n; ++i) {
      if (!s.keep[i]) continue;
      AppendKey(cols, i, &s.key);
      s.key_ends.push_back(s.key.size());
      s.key_rows.push_back(i);
    }
    const size_t m = s.key_rows.size();
    auto key_at = [&s](size_t j) {
      const size_t begin = j == 0 ? 0 : s.key_ends[j - 1];
      return std::string_view(s.key).substr(begin, s.key_ends[j] - begin);
    };
    s.key_hashes.resize(m);
    for (size_t j = 0; j < m; ++j) {
      s.key_hashes[j] = EqualityKeyTable::Hash(key_at(j));
    }
    constexpr size_t kAhead = 16;
    for (size_t j = 0; j < m && j < kAhead; ++j) index->keys.Prefetch(s.key_hashes[j]);
    for (size_t j = 0; j < m; ++j) {
      if (j + kAhead < m) index->keys.Prefetch(s.key_hashes[j + kAhead]);
      const uint32_t entry = index->keys.Find(key_at(j), s.key_hashes[j]);
      if (entry == EqualityKeyTable::kAbsent) continue;
      const EqualityDeleteIndex::Holders& h = index->holders[entry];
      bool deleted = index->applies[h.first] != 0;
      for (size_t k = 0; !deleted && k < h.more.size(); ++k) {
        deleted = index->applies[h.more[k]] != 0;
      }
      if (deleted) s.keep[s.key_rows[j]] = 0;
    }
  }
  if (scan_->filter_->op() != Operation::kTrue) {
    std::vector<uint8_t> match;
    FLOE_RETURN_IF_ERROR(EvaluateBatch(*scan_->filter_, batch, &match));
    for (int64_t i = 0; i < n; ++i) s.keep[i] &= match[i];
  }
  return Status::OK();
}

Result<std::optional<col::RecordBatch>> TableScan::Reader::Next() {
  State& s = *state_;
  const std::optional<int64_t>& limit = scan_->options_.limit;
  while (true) {
    if (limit && rows_returned_ >= *limit) return std::nullopt;
    if (!s.reader) {
      if (next_task_ >= tasks_.size()) return std::nullopt;
      FLOE_RETURN_IF_ERROR(OpenTask());
    }
    FLOE_ASSIGN_OR_RETURN(std::optional<PositionedBatch> pb, s.reader->Next());
    if (!pb) {
      s.reader.reset();
      continue;
    }
    FLOE_RETURN_IF_ERROR(ComputeKeep(*pb));
    col::RecordBatch& batch = pb->batch;
    const int64_t n = batch.num_rows();
    int64_t selected = col::CountSelected(s.keep.data(), n);
    if (limit && rows_returned_ + selected > *limit) {
      int64_t allowed = *limit - rows_returned_;
      for (int64_t i = 0; i < n; ++i) {
        if (s.keep[i] && allowed-- <= 0) s.keep[i] = 0;
      }
      selected = *limit - rows_returned_;
    }
    // Project to the output schema: resolve each projected field by id in the read batch.
    std::vector<col::Array> columns;
    const std::vector<NestedField>& out_fields = scan_->projected_->fields();
    columns.reserve(out_fields.size());
    std::vector<col::Array>& read_columns = batch.mutable_columns();
    for (const NestedField& f : out_fields) {
      int found = -1;
      for (size_t i = 0; i < batch.schema()->num_fields(); ++i) {
        if (batch.schema()->field(i).field_id == f.id) found = static_cast<int>(i);
      }
      if (found < 0) return Status::Internal("projected field {} missing from the read", f.id);
      col::Array a = selected == n ? std::move(read_columns[static_cast<size_t>(found)])
                                   : col::Filter(read_columns[static_cast<size_t>(found)],
                                                 s.keep.data(), selected);
      FLOE_ASSIGN_OR_RETURN(col::Array conformed, ConformArray(std::move(a), f));
      columns.push_back(std::move(conformed));
    }
    rows_returned_ += selected;
    if (selected == 0) continue;
    auto out_schema = std::make_shared<col::Schema>(scan_->projected_->ToColumnar());
    return col::RecordBatch(std::move(out_schema), selected, std::move(columns));
  }
}

}  // namespace floe::iceberg
