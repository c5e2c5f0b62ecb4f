#include "floe/iceberg/snapshot_producer.h"

#include <algorithm>
#include <charconv>
#include <functional>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "floe/base/bytes.h"
#include "floe/base/macros.h"
#include "floe/iceberg/file_filter.h"
#include "floe/iceberg/manifest_list.h"
#include "floe/iceberg/manifest_merge.h"
#include "floe/iceberg/manifest_reader.h"
#include "floe/iceberg/manifest_writer.h"

namespace floe::iceberg {

int64_t SnapshotIdFromUuid(std::string_view uuid) {
  uint64_t halves[2] = {0, 0};
  int nibbles = 0;
  for (char c : uuid) {
    const int v = HexDigitValue(c);
    if (v < 0) continue;
    if (nibbles < 32) halves[nibbles / 16] = (halves[nibbles / 16] << 4) | static_cast<uint64_t>(v);
    ++nibbles;
  }
  return static_cast<int64_t>((halves[0] ^ halves[1]) & 0x7FFFFFFFFFFFFFFFull);
}

namespace {

bool IsDV(const DataFile& f) {
  return f.content == FileContent::kPositionDeletes && f.file_format == FileFormat::kPuffin;
}

// What identifies a delete file, as Java's DeleteFileSet does: its path, and for a deletion
// vector also its blob's offset (one Puffin file holds the vectors of many data files).
std::string DeleteFileKey(const DataFile& f) {
  if (!IsDV(f)) return f.file_path;
  return f.file_path + "#" + std::to_string(f.content_offset.value_or(-1));
}

SummaryFile ToSummaryFile(const DataFile& f, const PartitionSpec* spec) {
  SummaryFile s;
  s.content = f.content == FileContent::kData              ? SummaryFile::Content::kData
              : f.content == FileContent::kPositionDeletes ? SummaryFile::Content::kPositionDeletes
                                                           : SummaryFile::Content::kEqualityDeletes;
  s.record_count = f.record_count;
  s.is_dv = IsDV(f);
  s.size_bytes =
      s.is_dv && f.content_size_in_bytes ? *f.content_size_in_bytes : f.file_size_in_bytes;
  if (spec != nullptr && !spec->fields().empty()) {
    Result<std::string> path = spec->PartitionPath(f.partition);
    if (path.ok()) s.partition_path = *path;
  }
  return s;
}

}  // namespace

Result<std::vector<ManifestFile>> ReadSnapshotManifests(const Snapshot& snapshot, io::FileIO& io) {
  if (snapshot.manifest_list.empty()) {
    if (!snapshot.v1_manifests.empty()) {
      return Status::Unimplemented("snapshot {} embeds its manifests (v1 without a list)",
                                   snapshot.snapshot_id);
    }
    return std::vector<ManifestFile>{};
  }
  FLOE_ASSIGN_OR_RETURN(auto in, io.OpenInput(snapshot.manifest_list));
  return ReadManifestList(*in);
}

Result<std::vector<ManifestEntry>> ReadManifestEntries(const TableMetadata& md,
                                                       const ManifestFile& m, io::FileIO& io,
                                                       ManifestEntryFilter filter,
                                                       bool read_stats) {
  ManifestReaderOptions opts;
  opts.filter = filter;
  opts.read_stats = read_stats;
  const PartitionSpec* spec = md.spec_by_id(m.partition_spec_id);
  const Schema* schema = md.current_schema();
  if (spec != nullptr && schema != nullptr) {
    Result<TypePtr> pt = spec->PartitionType(*schema);
    if (pt.ok()) opts.partition_type = *pt;
  }
  FLOE_ASSIGN_OR_RETURN(auto in, io.OpenInput(m.manifest_path));
  FLOE_ASSIGN_OR_RETURN(std::vector<ManifestEntry> entries, ReadManifest(*in, m, opts));
  for (ManifestEntry& e : entries) e.data_file.spec_id = m.partition_spec_id;
  return entries;
}

namespace {

Result<std::vector<ManifestFile>> ReadManifests(const Snapshot& snapshot, io::FileIO& io) {
  return ReadSnapshotManifests(snapshot, io);
}

Result<std::vector<ManifestEntry>> ReadEntries(const TableMetadata& md, const ManifestFile& m,
                                               io::FileIO& io, ManifestEntryFilter filter) {
  return ReadManifestEntries(md, m, io, filter);
}

bool SamePartition(const DataFile& a, const DataFile& b) {
  return a.spec_id == b.spec_id && a.partition == b.partition;
}

// Can position delete file `d` (not a DV) hold deletes for data file path `path`?
bool PositionDeleteMayReference(const DataFile& d, const std::string& path) {
  if (d.referenced_data_file) return *d.referenced_data_file == path;
  constexpr int32_t kFilePathId = 2147483546;
  auto lo = d.lower_bounds.find(kFilePathId);
  auto hi = d.upper_bounds.find(kFilePathId);
  if (lo != d.lower_bounds.end() && path < lo->second) return false;
  if (hi != d.upper_bounds.end() && path > hi->second) return false;
  return true;
}

// Does delete file `d` (data sequence number `delete_seq`) apply to data file `data` with
// data sequence number `data_seq` (spec "Scan Planning")?
bool DeleteApplies(const TableMetadata& md, const DataFile& d, int64_t delete_seq,
                   const DataFile& data, int64_t data_seq) {
  if (d.content == FileContent::kEqualityDeletes) {
    if (delete_seq <= data_seq) return false;
    const PartitionSpec* spec = md.spec_by_id(d.spec_id);
    if (spec != nullptr && spec->is_unpartitioned()) return true;
    return SamePartition(d, data);
  }
  if (delete_seq < data_seq || !SamePartition(d, data)) return false;
  if (IsDV(d)) return d.referenced_data_file && *d.referenced_data_file == data.file_path;
  return PositionDeleteMayReference(d, data.file_path);
}

std::string JoinPaths(const std::vector<std::string>& paths) {
  std::string out;
  for (const std::string& p : paths) {
    if (!out.empty()) out += ", ";
    out += p;
  }
  return out;
}

// The manifests added by the snapshots after `starting` up to `parent` whose operation is
// in `operations` (Java MergingSnapshotProducer.validationHistory).
struct History {
  std::vector<ManifestFile> manifests;
  std::set<int64_t> snapshot_ids;
};

Result<History> ValidationHistory(const TableMetadata& base, std::optional<int64_t> starting,
                                  const std::vector<std::string_view>& operations,
                                  ManifestContent content, const Snapshot* parent, io::FileIO& io) {
  History h;
  const Snapshot* last = nullptr;
  for (const Snapshot* s : base.Ancestors(parent->snapshot_id)) {
    if (starting && s->snapshot_id == *starting) break;
    last = s;
    if (std::find(operations.begin(), operations.end(), s->operation) == operations.end()) {
      continue;
    }
    h.snapshot_ids.insert(s->snapshot_id);
    FLOE_ASSIGN_OR_RETURN(std::vector<ManifestFile> ms, ReadManifests(*s, io));
    for (ManifestFile& m : ms) {
      if (m.content == content && m.added_snapshot_id == s->snapshot_id) {
        h.manifests.push_back(std::move(m));
      }
    }
  }
  if (last != nullptr && last->parent_snapshot_id != starting) {
    return Status::Conflict(
        "Cannot determine history between starting snapshot {} and the last known ancestor {}",
        starting ? std::to_string(*starting) : "null", last->snapshot_id);
  }
  return h;
}

std::string FilterText(const ExpressionPtr& e) { return e ? e->ToString() : "true"; }

}  // namespace

SnapshotProducer::~SnapshotProducer() = default;

void SnapshotProducer::SetSummaryProperty(std::string key, std::string value) {
  for (auto& [k, v] : summary_properties_) {
    if (k == key) {
      v = std::move(value);
      return;
    }
  }
  summary_properties_.emplace_back(std::move(key), std::move(value));
}

void SnapshotProducer::AddDataFile(const DataFile& file) {
  if (!new_data_paths_.insert(file.file_path).second) return;
  DataFile f = file;
  f.first_row_id.reset();  // Java Delegates.suppressFirstRowId: assigned by inheritance
  new_data_files_[f.spec_id].push_back(std::move(f));
}

void SnapshotProducer::AddDeleteFile(const DataFile& file,
                                     std::optional<int64_t> data_sequence_number) {
  if (!new_delete_paths_.insert(DeleteFileKey(file)).second) return;
  new_delete_files_.emplace_back(file, data_sequence_number);
}

void SnapshotProducer::DeleteDeleteFile(const DataFile& file) {
  delete_delete_paths_.insert(DeleteFileKey(file));
}

void SnapshotProducer::DeleteDataFile(const DataFile& file) {
  delete_data_paths_.insert(file.file_path);
}

std::string SnapshotProducer::NextManifestPath(const TableMetadata& base) {
  return ManifestPath(base.location, commit_uuid_, manifest_count_++);
}

Result<ManifestFile> SnapshotProducer::WriteManifest(const TableMetadata& base, int32_t spec_id,
                                                     ManifestContent content,
                                                     const FilesWithSequence& files,
                                                     TableOperations& ops) {
  const PartitionSpec* spec = base.spec_by_id(spec_id);
  const Schema* schema = base.current_schema();
  if (spec == nullptr) {
    return Status::InvalidArgument("Cannot find partition spec {} for file", spec_id);
  }
  ManifestWriterOptions o;
  o.format_version = base.format_version;
  o.content = content;
  o.spec_id = spec_id;
  FLOE_ASSIGN_OR_RETURN(o.partition_type, spec->PartitionType(*schema));
  o.schema_json = SchemaToJson(*schema);
  o.partition_spec_json = PartitionFieldsToJsonValue(*spec).dump();
  o.snapshot_id = *snapshot_id_;
  std::string path = NextManifestPath(base);
  FLOE_ASSIGN_OR_RETURN(auto out, ops.io().CreateOutput(path, /*overwrite=*/false));
  written_manifests_.insert(path);
  FLOE_ASSIGN_OR_RETURN(auto writer, ManifestWriter::Make(std::move(out), std::move(o)));
  for (const auto& [file, seq] : files) {
    FLOE_RETURN_IF_ERROR(writer->Add(file, seq));
  }
  return writer->Close();
}

Result<ManifestFile> SnapshotProducer::WriteNewManifest(
    const TableMetadata& base, int32_t spec_id, ManifestContent content,
    const std::function<Status(ManifestWriter&)>& write, TableOperations& ops) {
  const PartitionSpec* spec = base.spec_by_id(spec_id);
  const Schema* schema = base.current_schema();
  if (spec == nullptr) return Status::Corrupt("unknown partition spec {}", spec_id);
  FLOE_ASSIGN_OR_RETURN(
      ManifestWriterOptions o,
      MakeManifestWriterOptions(base.format_version, *spec, *schema, *snapshot_id_, content));
  std::string path = NextManifestPath(base);
  FLOE_ASSIGN_OR_RETURN(auto os, ops.io().CreateOutput(path, /*overwrite=*/false));
  written_manifests_.insert(path);
  FLOE_ASSIGN_OR_RETURN(auto writer, ManifestWriter::Make(std::move(os), std::move(o)));
  FLOE_RETURN_IF_ERROR(write(*writer));
  return writer->Close();
}

Result<std::vector<ManifestFile>> SnapshotProducer::MergeManifests(
    const TableMetadata& base, std::vector<ManifestFile> manifests, TableOperations& ops,
    int64_t* replaced) {
  const ManifestMergeConfig config = ManifestMergeConfig::FromProperties(base.properties);
  if (!config.enabled || manifests.empty()) return manifests;
  // The first manifest: the new files' manifest, else the first kept parent manifest. Only
  // its bin waits for min-count-to-merge, so that large manifests never keep older
  // groups from merging.
  const std::string first = manifests.front().manifest_path;
  std::map<int32_t, std::vector<const ManifestFile*>, std::greater<>> groups;  // Java: spec
  for (const ManifestFile& m : manifests) groups[m.partition_spec_id].push_back(&m);
  std::vector<ManifestFile> out;
  for (const auto& [spec_id, group] : groups) {
    std::vector<int64_t> weights;
    weights.reserve(group.size());
    for (const ManifestFile* m : group) weights.push_back(m->manifest_length);
    for (const std::vector<size_t>& indexes : PackEnd(weights, config.target_size_bytes)) {
      std::vector<const ManifestFile*> bin;
      bool has_first = false;
      for (size_t i : indexes) {
        bin.push_back(group[i]);
        has_first = has_first || group[i]->manifest_path == first;
      }
      if (bin.size() == 1 || (has_first && static_cast<int64_t>(bin.size()) <
                                               static_cast<int64_t>(config.min_count_to_merge))) {
        for (const ManifestFile* m : bin) out.push_back(*m);
        continue;
      }
      FLOE_ASSIGN_OR_RETURN(ManifestFile merged, MergeBin(base, spec_id, bin, ops));
      for (const ManifestFile* m : bin) {
        if (m->added_snapshot_id != *snapshot_id_) ++*replaced;
      }
      out.push_back(std::move(merged));
    }
  }
  return out;
}

Result<ManifestFile> SnapshotProducer::MergeBin(const TableMetadata& base, int32_t spec_id,
                                                const std::vector<const ManifestFile*>& bin,
                                                TableOperations& ops) {
  std::vector<std::string> key;
  for (const ManifestFile* m : bin) key.push_back(m->manifest_path);
  if (auto it = merged_.find(key); it != merged_.end()) return it->second;
  const int64_t snapshot_id = *snapshot_id_;
  auto write = [&](ManifestWriter& writer) -> Status {
    for (const ManifestFile* m : bin) {
      FLOE_ASSIGN_OR_RETURN(std::vector<ManifestEntry> entries,
                            ReadEntries(base, *m, ops.io(), ManifestEntryFilter::kAll));
      for (ManifestEntry& e : entries) {
        const bool ours = e.snapshot_id == snapshot_id;
        if (e.status == ManifestStatus::kDeleted) {
          // Deletes of earlier snapshots are history; only this commit's stay.
          if (ours) FLOE_RETURN_IF_ERROR(writer.Delete(e));
        } else if (e.status == ManifestStatus::kAdded && ours) {
          // Java ManifestWriter.add(entry): an explicit data sequence number stays (a
          // rewrite's), an unassigned one is inherited at commit.
          std::optional<int64_t> seq = e.data_sequence_number;
          if (seq && *seq < 0) seq.reset();
          e.data_file.first_row_id.reset();
          FLOE_RETURN_IF_ERROR(writer.Add(e.data_file, seq));
        } else {
          FLOE_RETURN_IF_ERROR(writer.Existing(e));
        }
      }
    }
    return Status::OK();
  };
  FLOE_ASSIGN_OR_RETURN(ManifestFile merged,
                        WriteNewManifest(base, spec_id, bin.front()->content, write, ops));
  merged_.emplace(std::move(key), merged);
  return merged;
}

Result<std::vector<ManifestFile>> SnapshotProducer::NewDataManifests(const TableMetadata& base,
                                                                     TableOperations& ops) {
  if (!new_data_manifests_.empty() || new_data_files_.empty()) return new_data_manifests_;
  for (const auto& [spec_id, files] : new_data_files_) {
    std::vector<std::pair<DataFile, std::optional<int64_t>>> entries;
    for (const DataFile& f : files) {
      if (f.content != FileContent::kData) {
        return Status::InvalidArgument("not a data file: {}", f.file_path);
      }
      entries.emplace_back(f, new_data_sequence_number_);
    }
    FLOE_ASSIGN_OR_RETURN(ManifestFile m,
                          WriteManifest(base, spec_id, ManifestContent::kData, entries, ops));
    new_data_manifests_.push_back(std::move(m));
  }
  return new_data_manifests_;
}

Result<std::vector<ManifestFile>> SnapshotProducer::NewDeleteManifests(const TableMetadata& base,
                                                                       TableOperations& ops) {
  if (!new_delete_manifests_.empty() || new_delete_files_.empty()) return new_delete_manifests_;
  std::map<int32_t, std::vector<std::pair<DataFile, std::optional<int64_t>>>> by_spec;
  for (const auto& e : new_delete_files_) by_spec[e.first.spec_id].push_back(e);
  for (const auto& [spec_id, entries] : by_spec) {
    FLOE_ASSIGN_OR_RETURN(ManifestFile m,
                          WriteManifest(base, spec_id, ManifestContent::kDeletes, entries, ops));
    new_delete_manifests_.push_back(std::move(m));
  }
  return new_delete_manifests_;
}

Result<SnapshotProducer::Written> SnapshotProducer::ApplyManifests(const TableMetadata& base,
                                                                   const Snapshot* parent,
                                                                   TableOperations& ops) {
  io::FileIO& io = ops.io();
  Written out;
  for (const auto& [k, v] : summary_properties_) out.summary.Set(k, v);
  out.summary.SetPartitionSummaryLimit(
      static_cast<int32_t>(base.PropertyAsInt(kPropertyPartitionSummaryLimit, 0)));

  // Checks on the files to add against this attempt's table (format version, specs).
  std::map<std::string, const DataFile*> new_dvs;  // by referenced data file
  for (const auto& [file, seq] : new_delete_files_) {
    if (base.format_version < 2) {
      return Status::InvalidArgument("Deletes are supported in V2 and above");
    }
    if (file.content == FileContent::kData) {
      return Status::InvalidArgument("not a delete file: {}", file.file_path);
    }
    if (file.content == FileContent::kPositionDeletes) {
      if (base.format_version == 2 && IsDV(file)) {
        return Status::InvalidArgument("Must not use DVs for position deletes in V2: {}",
                                       file.file_path);
      }
      if (base.format_version >= 3 && !IsDV(file)) {
        return Status::InvalidArgument("Must use DVs for position deletes in V3: {}",
                                       file.file_path);
      }
    }
    if (IsDV(file)) {
      if (!file.referenced_data_file) {
        return Status::InvalidArgument("DV without referenced_data_file: {}", file.file_path);
      }
      if (!new_dvs.emplace(*file.referenced_data_file, &file).second) {
        return Status::InvalidArgument("More than one DV for data file {} in one commit",
                                       *file.referenced_data_file);
      }
    }
    if (base.spec_by_id(file.spec_id) == nullptr) {
      return Status::InvalidArgument("Cannot find partition spec {} for delete file: {}",
                                     file.spec_id, file.file_path);
    }
  }
  for (const auto& [spec_id, files] : new_data_files_) {
    const PartitionSpec* spec = base.spec_by_id(spec_id);
    if (spec == nullptr) {
      return Status::InvalidArgument("Cannot find partition spec {} for data file: {}", spec_id,
                                     files.front().file_path);
    }
    for (const DataFile& f : files) out.summary.AddedFile(ToSummaryFile(f, spec));
  }

  FLOE_ASSIGN_OR_RETURN(std::vector<ManifestFile> new_data, NewDataManifests(base, ops));
  FLOE_ASSIGN_OR_RETURN(std::vector<ManifestFile> new_deletes, NewDeleteManifests(base, ops));
  for (const auto& [file, seq] : new_delete_files_) {
    out.summary.AddedFile(ToSummaryFile(file, base.spec_by_id(file.spec_id)));
  }

  std::vector<ManifestFile> parent_manifests;
  if (parent != nullptr) {
    FLOE_ASSIGN_OR_RETURN(parent_manifests, ReadManifests(*parent, io));
  }

  if (fast_append()) {
    out.manifests = new_data;
    out.manifests.insert(out.manifests.end(), parent_manifests.begin(), parent_manifests.end());
  } else {
    const Schema* schema = base.current_schema();
    FLOE_ASSIGN_OR_RETURN(FileFilter filter, FileFilter::Make(base, delete_expr_, case_sensitive_));
    const bool has_expr = delete_expr_ != nullptr;

    // Filters one parent manifest; `is_delete` selects the delete-file rules.
    std::set<std::string> found_data, found_deletes;
    std::set<std::string> removed_data_paths;  // data files removed by this commit
    int64_t min_data_seq = 0;
    auto filter_manifest = [&](const ManifestFile& m, bool is_delete) -> Result<Filtered*> {
      auto cached = filtered_.find(m.manifest_path);
      if (cached != filtered_.end()) return cached->second.get();
      auto result = std::make_unique<Filtered>();
      result->manifest = m;
      bool live = m.added_files_count.value_or(1) > 0 || m.existing_files_count.value_or(1) > 0;
      bool may_contain =
          live && (is_delete ? (!delete_delete_paths_.empty() || !removed_data_paths.empty() ||
                                (replace_previous_dvs_ && !new_dvs.empty()))
                             : !delete_data_paths_.empty());
      if (live && !may_contain && has_expr) {
        FLOE_ASSIGN_OR_RETURN(may_contain, filter.ManifestMayMatch(m));
      }
      if (may_contain) {
        FLOE_ASSIGN_OR_RETURN(std::vector<ManifestEntry> entries,
                              ReadEntries(base, m, io, ManifestEntryFilter::kLive));
        std::vector<bool> remove(entries.size(), false);
        bool any = false;
        for (size_t i = 0; i < entries.size(); ++i) {
          const ManifestEntry& e = entries[i];
          const DataFile& f = e.data_file;
          bool marked;
          if (is_delete) {
            marked = delete_delete_paths_.count(DeleteFileKey(f)) > 0;
            int64_t seq = e.data_sequence_number.value_or(0);
            marked = marked || (seq > 0 && seq < min_data_seq);
            if (IsDV(f) && f.referenced_data_file) {
              // Dangling DVs of removed data files; in v3 a new DV replaces the old one.
              marked = marked || removed_data_paths.count(*f.referenced_data_file) > 0 ||
                       (replace_previous_dvs_ && new_dvs.count(*f.referenced_data_file) > 0 &&
                        new_delete_paths_.count(DeleteFileKey(f)) == 0);
            }
          } else {
            marked = delete_data_paths_.count(f.file_path) > 0;
          }
          if (!marked && has_expr) {
            FLOE_ASSIGN_OR_RETURN(bool may, filter.MayMatch(f));
            if (may) {
              FLOE_ASSIGN_OR_RETURN(bool must, filter.MustMatch(f));
              if (!must && !is_delete) {
                return Status::InvalidArgument(
                    "Cannot delete file where some, but not all, rows match filter {}: {}",
                    filter.ToString(), f.file_path);
              }
              marked = must;
            }
          }
          remove[i] = marked;
          any = any || marked;
        }
        if (any) {
          const PartitionSpec* spec = base.spec_by_id(m.partition_spec_id);
          if (spec == nullptr) return Status::Corrupt("unknown spec {}", m.partition_spec_id);
          ManifestWriterOptions o;
          o.format_version = base.format_version;
          o.content = m.content;
          o.spec_id = m.partition_spec_id;
          FLOE_ASSIGN_OR_RETURN(o.partition_type, spec->PartitionType(*schema));
          o.schema_json = SchemaToJson(*schema);
          o.partition_spec_json = PartitionFieldsToJsonValue(*spec).dump();
          o.snapshot_id = *snapshot_id_;
          std::string path = NextManifestPath(base);
          FLOE_ASSIGN_OR_RETURN(auto os, io.CreateOutput(path, false));
          written_manifests_.insert(path);
          FLOE_ASSIGN_OR_RETURN(auto writer, ManifestWriter::Make(std::move(os), std::move(o)));
          std::set<std::string> seen;
          for (size_t i = 0; i < entries.size(); ++i) {
            if (remove[i]) {
              FLOE_RETURN_IF_ERROR(writer->Delete(entries[i]));
              if (seen.insert(is_delete ? DeleteFileKey(entries[i].data_file)
                                        : entries[i].data_file.file_path)
                      .second) {
                result->deleted.push_back(entries[i].data_file);
              } else {
                ++result->duplicates;
              }
            } else {
              FLOE_RETURN_IF_ERROR(writer->Existing(entries[i]));
            }
          }
          FLOE_ASSIGN_OR_RETURN(result->manifest, writer->Close());
          result->replaced = true;
        }
      }
      Filtered* ptr = result.get();
      filtered_[m.manifest_path] = std::move(result);
      return ptr;
    };

    std::vector<Filtered*> data_filtered, delete_filtered;
    for (const ManifestFile& m : parent_manifests) {
      if (m.content != ManifestContent::kData) continue;
      FLOE_ASSIGN_OR_RETURN(Filtered * f, filter_manifest(m, false));
      data_filtered.push_back(f);
      for (const DataFile& d : f->deleted) removed_data_paths.insert(d.file_path);
    }
    // Delete files older than every live data file can no longer apply (Java
    // dropDeleteFilesOlderThan). New data files keeping an older sequence number (a
    // rewrite) count too, so their equality deletes are never dropped (§4 rule 1).
    min_data_seq = base.last_sequence_number;
    for (const Filtered* f : data_filtered) {
      if (f->manifest.min_sequence_number != kUnassignedSequenceNumber) {
        min_data_seq = std::min(min_data_seq, f->manifest.min_sequence_number);
      }
    }
    if (new_data_sequence_number_ && !new_data_files_.empty()) {
      min_data_seq = std::min(min_data_seq, *new_data_sequence_number_);
    }
    for (const ManifestFile& m : parent_manifests) {
      if (m.content != ManifestContent::kDeletes) continue;
      FLOE_ASSIGN_OR_RETURN(Filtered * f, filter_manifest(m, true));
      delete_filtered.push_back(f);
    }

    for (const Filtered* f : data_filtered) {
      for (const DataFile& d : f->deleted) found_data.insert(d.file_path);
    }
    for (const Filtered* f : delete_filtered) {
      for (const DataFile& d : f->deleted) found_deletes.insert(DeleteFileKey(d));
    }
    if (fail_missing_delete_paths_) {
      std::vector<std::string> missing;
      for (const std::string& p : delete_data_paths_) {
        if (found_data.count(p) == 0) missing.push_back(p);
      }
      if (!tolerate_missing_delete_files_) {
        for (const std::string& p : delete_delete_paths_) {
          if (found_deletes.count(p) == 0) missing.push_back(p);
        }
      }
      if (!missing.empty()) {
        return Status::Conflict("Missing required files to delete: {}", JoinPaths(missing));
      }
    }

    const int64_t snapshot_id = *snapshot_id_;
    auto keep = [&](const ManifestFile& m) {
      return m.added_files_count.value_or(1) > 0 || m.existing_files_count.value_or(1) > 0 ||
             m.added_snapshot_id == snapshot_id;
    };
    int64_t replaced = 0;
    std::vector<ManifestFile> data_manifests = new_data;
    for (Filtered* f : data_filtered) {
      if (keep(f->manifest)) data_manifests.push_back(f->manifest);
    }
    std::vector<ManifestFile> delete_manifests = new_deletes;
    for (Filtered* f : delete_filtered) {
      if (keep(f->manifest)) delete_manifests.push_back(f->manifest);
    }
    // Java MergingSnapshotProducer.apply: data and delete manifests merged apart.
    FLOE_ASSIGN_OR_RETURN(out.manifests,
                          MergeManifests(base, std::move(data_manifests), ops, &replaced));
    FLOE_ASSIGN_OR_RETURN(std::vector<ManifestFile> merged_deletes,
                          MergeManifests(base, std::move(delete_manifests), ops, &replaced));
    out.manifests.insert(out.manifests.end(), merged_deletes.begin(), merged_deletes.end());
    for (const auto* list : {&data_filtered, &delete_filtered}) {
      for (Filtered* f : *list) {
        if (f->replaced) ++replaced;
        const PartitionSpec* spec = base.spec_by_id(f->manifest.partition_spec_id);
        for (const DataFile& d : f->deleted) out.summary.RemovedFile(ToSummaryFile(d, spec));
        if (f->duplicates > 0) out.summary.IncrementDuplicateDeletes(f->duplicates);
      }
    }
    int64_t created = 0, kept = 0;
    for (const ManifestFile& m : out.manifests) {
      if (m.added_snapshot_id == snapshot_id) {
        ++created;
      } else {
        ++kept;
      }
    }
    out.summary.Set("manifests-created", std::to_string(created));
    out.summary.Set("manifests-kept", std::to_string(kept));
    out.summary.Set("manifests-replaced", std::to_string(replaced));
    return out;
  }

  int64_t created = 0, kept = 0;
  for (const ManifestFile& m : out.manifests) {
    if (m.added_snapshot_id == *snapshot_id_) {
      ++created;
    } else {
      ++kept;
    }
  }
  out.summary.Set("manifests-created", std::to_string(created));
  out.summary.Set("manifests-kept", std::to_string(kept));
  out.summary.Set("manifests-replaced", "0");
  return out;
}

Status SnapshotProducer::Apply(const TableMetadata& base, TableOperations& ops,
                               std::vector<TableUpdate>* updates) {
  if (base.current_schema() == nullptr) return Status::InvalidArgument("table has no schema");
  for (const auto& check : base_checks_) FLOE_RETURN_IF_ERROR(check(base));
  // Java SnapshotUtil.latestSnapshot: a branch that does not exist yet starts from main.
  const SnapshotRef* ref = base.ref(branch_);
  const Snapshot* parent =
      ref != nullptr ? base.snapshot_by_id(ref->snapshot_id) : base.current_snapshot();
  if (!snapshot_id_) {
    commit_uuid_ = ops.env().NewUuid();
    int64_t id;
    do {
      id = SnapshotIdFromUuid(ops.env().NewUuid());
    } while (base.snapshot_by_id(id) != nullptr);
    snapshot_id_ = id;
  } else if (base.snapshot_by_id(*snapshot_id_) != nullptr) {
    return Status::Conflict("snapshot {} already exists", *snapshot_id_);
  }
  const int64_t sequence_number = base.format_version > 1 ? base.last_sequence_number + 1 : 0;

  FLOE_RETURN_IF_ERROR(Validate(base, parent, ops));
  Written written;
  if (replaces_manifests()) {
    for (const auto& [k, v] : summary_properties_) written.summary.Set(k, v);
    FLOE_ASSIGN_OR_RETURN(written.manifests, ReplaceManifests(base, parent, ops, &written.summary));
  } else {
    FLOE_ASSIGN_OR_RETURN(written, ApplyManifests(base, parent, ops));
  }

  ManifestListWriterOptions lo;
  lo.format_version = base.format_version;
  lo.snapshot_id = *snapshot_id_;
  if (parent != nullptr) lo.parent_snapshot_id = parent->snapshot_id;
  lo.sequence_number = sequence_number;
  if (base.format_version >= 3) lo.first_row_id = base.next_row_id;
  std::string list_path = ManifestListPath(base.location, *snapshot_id_, ++attempt_, commit_uuid_);
  FLOE_ASSIGN_OR_RETURN(auto os, ops.io().CreateOutput(list_path, false));
  written_lists_.push_back(list_path);
  FLOE_ASSIGN_OR_RETURN(auto list, ManifestListWriter::Make(std::move(os), lo));
  for (const ManifestFile& m : written.manifests) FLOE_RETURN_IF_ERROR(list->Add(m).status());
  FLOE_RETURN_IF_ERROR(list->Close());

  SummaryEntries summary = written.summary.Build();
  if (operation() == kOperationReplace) {
    auto get = [&](std::string_view key) -> int64_t {
      for (const auto& [k, v] : summary) {
        if (k == key) {
          int64_t x = 0;
          std::from_chars(v.data(), v.data() + v.size(), x);
          return x;
        }
      }
      return 0;
    };
    if (get("added-records") > get("deleted-records")) {
      return Status::InvalidArgument(
          "Invalid REPLACE operation: {} added records > {} replaced records", get("added-records"),
          get("deleted-records"));
    }
  }
  const Snapshot* previous_head = ref != nullptr ? base.snapshot_by_id(ref->snapshot_id) : nullptr;
  Snapshot previous_without_summary;
  if (previous_head != nullptr && previous_head->operation.empty()) {
    previous_head = &previous_without_summary;  // no summary: no totals
  }
  Snapshot snap;
  snap.snapshot_id = *snapshot_id_;
  if (parent != nullptr) snap.parent_snapshot_id = parent->snapshot_id;
  snap.sequence_number = sequence_number;
  snap.timestamp_ms = ops.env().NowMillis();
  snap.manifest_list = list_path;
  snap.operation = std::string(operation());
  snap.summary = AddSummaryTotals(std::move(summary), previous_head);
  snap.schema_id = base.current_schema_id;
  if (base.format_version >= 3) {
    snap.first_row_id = base.next_row_id;
    snap.added_rows = list->assigned_rows();
  }
  SnapshotRef new_ref = ref != nullptr ? *ref : SnapshotRef::Branch(*snapshot_id_);
  new_ref.snapshot_id = *snapshot_id_;
  updates->push_back(update::AddSnapshot{std::move(snap)});
  updates->push_back(update::SetSnapshotRef{branch_, new_ref});
  return Status::OK();
}

void SnapshotProducer::Cleanup(const TableMetadata* committed, TableOperations& ops) {
  std::set<std::string> keep;
  const Snapshot* saved =
      committed != nullptr && snapshot_id_ ? committed->snapshot_by_id(*snapshot_id_) : nullptr;
  if (saved != nullptr) {
    keep.insert(saved->manifest_list);
    Result<std::vector<ManifestFile>> ms = ReadManifests(*saved, ops.io());
    if (!ms.ok()) return;  // cannot tell what is committed: delete nothing
    for (const ManifestFile& m : *ms) keep.insert(m.manifest_path);
  }
  for (const std::string& p : written_lists_) {
    if (keep.count(p) == 0) (void)ops.io().Delete(p);
  }
  for (const std::string& p : written_manifests_) {
    if (keep.count(p) == 0) (void)ops.io().Delete(p);
  }
  written_lists_.clear();
  written_manifests_.clear();
  new_data_manifests_.clear();
  new_delete_manifests_.clear();
  filtered_.clear();
  merged_.clear();
}

// --- validations -----------------------------------------------------------------------

Status SnapshotProducer::ValidateAddedDataFiles(const TableMetadata& base,
                                                std::optional<int64_t> starting,
                                                const ExpressionPtr& filter, const Snapshot* parent,
                                                TableOperations& ops) {
  if (parent == nullptr) return Status::OK();
  FLOE_ASSIGN_OR_RETURN(History h,
                        ValidationHistory(base, starting, {kOperationAppend, kOperationOverwrite},
                                          ManifestContent::kData, parent, ops.io()));
  FLOE_ASSIGN_OR_RETURN(FileFilter ff, FileFilter::Make(base, filter, case_sensitive_));
  std::vector<std::string> conflicts;
  for (const ManifestFile& m : h.manifests) {
    FLOE_ASSIGN_OR_RETURN(bool may, ff.ManifestMayMatch(m));
    if (!may) continue;
    FLOE_ASSIGN_OR_RETURN(auto entries,
                          ReadEntries(base, m, ops.io(), ManifestEntryFilter::kAdded));
    for (const ManifestEntry& e : entries) {
      if (!e.snapshot_id || h.snapshot_ids.count(*e.snapshot_id) == 0) continue;
      FLOE_ASSIGN_OR_RETURN(bool match, ff.MayMatch(e.data_file));
      if (match) conflicts.push_back(e.data_file.file_path);
    }
  }
  if (!conflicts.empty()) {
    return Status::Conflict("Found conflicting files that can contain records matching {}: [{}]",
                            FilterText(filter), JoinPaths(conflicts));
  }
  return Status::OK();
}

namespace {

struct AddedDelete {
  DataFile file;
  int64_t data_sequence_number = 0;
};

// Delete files added after `starting` (Java MergingSnapshotProducer.addedDeleteFiles).
Result<std::vector<AddedDelete>> AddedDeleteFiles(const TableMetadata& base,
                                                  std::optional<int64_t> starting,
                                                  FileFilter& filter, const Snapshot* parent,
                                                  io::FileIO& io) {
  std::vector<AddedDelete> out;
  if (parent == nullptr || base.format_version < 2) return out;
  FLOE_ASSIGN_OR_RETURN(History h,
                        ValidationHistory(base, starting, {kOperationOverwrite, kOperationDelete},
                                          ManifestContent::kDeletes, parent, io));
  int64_t starting_seq = 0;
  if (starting) {
    if (const Snapshot* s = base.snapshot_by_id(*starting)) starting_seq = s->sequence_number;
  }
  for (const ManifestFile& m : h.manifests) {
    FLOE_ASSIGN_OR_RETURN(bool may, filter.ManifestMayMatch(m));
    if (!may) continue;
    FLOE_ASSIGN_OR_RETURN(auto entries, ReadEntries(base, m, io, ManifestEntryFilter::kLive));
    for (ManifestEntry& e : entries) {
      int64_t seq = e.data_sequence_number.value_or(0);
      if (seq <= starting_seq) continue;
      FLOE_ASSIGN_OR_RETURN(bool match, filter.MayMatch(e.data_file));
      if (match) out.push_back({std::move(e.data_file), seq});
    }
  }
  return out;
}

}  // namespace

Status SnapshotProducer::ValidateNoNewDeleteFiles(const TableMetadata& base,
                                                  std::optional<int64_t> starting,
                                                  const ExpressionPtr& filter,
                                                  const Snapshot* parent, TableOperations& ops) {
  FLOE_ASSIGN_OR_RETURN(FileFilter ff, FileFilter::Make(base, filter, case_sensitive_));
  FLOE_ASSIGN_OR_RETURN(auto added, AddedDeleteFiles(base, starting, ff, parent, ops.io()));
  if (!added.empty()) {
    std::vector<std::string> paths;
    for (const AddedDelete& d : added) paths.push_back(d.file.file_path);
    return Status::Conflict(
        "Found new conflicting delete files that can apply to records matching {}: [{}]",
        FilterText(filter), JoinPaths(paths));
  }
  return Status::OK();
}

Status SnapshotProducer::ValidateNoNewDeletesForDataFiles(
    const TableMetadata& base, std::optional<int64_t> starting, const ExpressionPtr& filter,
    const std::vector<DataFile>& data_files, bool ignore_equality_deletes, const Snapshot* parent,
    TableOperations& ops) {
  if (parent == nullptr || base.format_version < 2) return Status::OK();
  FLOE_ASSIGN_OR_RETURN(FileFilter ff, FileFilter::Make(base, filter, case_sensitive_));
  FLOE_ASSIGN_OR_RETURN(auto added, AddedDeleteFiles(base, starting, ff, parent, ops.io()));
  int64_t starting_seq = 0;
  if (starting) {
    if (const Snapshot* s = base.snapshot_by_id(*starting)) starting_seq = s->sequence_number;
  }
  for (const DataFile& data : data_files) {
    for (const AddedDelete& d : added) {
      if (!DeleteApplies(base, d.file, d.data_sequence_number, data, starting_seq)) continue;
      if (ignore_equality_deletes) {
        if (d.file.content == FileContent::kPositionDeletes) {
          return Status::Conflict(
              "Cannot commit, found new position delete for replaced data file: {} ({})",
              data.file_path, d.file.file_path);
        }
      } else {
        return Status::Conflict("Cannot commit, found new delete for replaced data file: {} ({})",
                                data.file_path, d.file.file_path);
      }
    }
  }
  return Status::OK();
}

Status SnapshotProducer::ValidateDeletedDataFiles(const TableMetadata& base,
                                                  std::optional<int64_t> starting,
                                                  const ExpressionPtr& filter,
                                                  const Snapshot* parent, TableOperations& ops) {
  if (parent == nullptr) return Status::OK();
  FLOE_ASSIGN_OR_RETURN(
      History h,
      ValidationHistory(base, starting, {kOperationOverwrite, kOperationReplace, kOperationDelete},
                        ManifestContent::kData, parent, ops.io()));
  FLOE_ASSIGN_OR_RETURN(FileFilter ff, FileFilter::Make(base, filter, case_sensitive_));
  std::vector<std::string> conflicts;
  for (const ManifestFile& m : h.manifests) {
    FLOE_ASSIGN_OR_RETURN(auto entries, ReadEntries(base, m, ops.io(), ManifestEntryFilter::kAll));
    for (const ManifestEntry& e : entries) {
      if (e.status != ManifestStatus::kDeleted) continue;
      if (!e.snapshot_id || h.snapshot_ids.count(*e.snapshot_id) == 0) continue;
      FLOE_ASSIGN_OR_RETURN(bool match, ff.MayMatch(e.data_file));
      if (match) conflicts.push_back(e.data_file.file_path);
    }
  }
  if (!conflicts.empty()) {
    return Status::Conflict(
        "Found conflicting deleted files that can contain records matching {}: [{}]",
        FilterText(filter), JoinPaths(conflicts));
  }
  return Status::OK();
}

Status SnapshotProducer::ValidateDataFilesExist(const TableMetadata& base,
                                                std::optional<int64_t> starting,
                                                const std::set<std::string>& paths,
                                                bool skip_deletes, const ExpressionPtr& filter,
                                                const Snapshot* parent, TableOperations& ops) {
  if (parent == nullptr || paths.empty()) return Status::OK();
  std::vector<std::string_view> operations = {kOperationOverwrite, kOperationReplace};
  if (!skip_deletes) operations.push_back(kOperationDelete);
  FLOE_ASSIGN_OR_RETURN(History h, ValidationHistory(base, starting, operations,
                                                     ManifestContent::kData, parent, ops.io()));
  FLOE_ASSIGN_OR_RETURN(FileFilter ff, FileFilter::Make(base, filter, case_sensitive_));
  std::vector<std::string> missing;
  for (const ManifestFile& m : h.manifests) {
    FLOE_ASSIGN_OR_RETURN(auto entries, ReadEntries(base, m, ops.io(), ManifestEntryFilter::kAll));
    for (const ManifestEntry& e : entries) {
      if (e.status != ManifestStatus::kDeleted) continue;
      if (!e.snapshot_id || h.snapshot_ids.count(*e.snapshot_id) == 0) continue;
      if (paths.count(e.data_file.file_path) == 0) continue;
      FLOE_ASSIGN_OR_RETURN(bool match, ff.MayMatch(e.data_file));
      if (match) missing.push_back(e.data_file.file_path);
    }
  }
  if (!missing.empty()) {
    return Status::Conflict("Cannot commit, missing data files: [{}]", JoinPaths(missing));
  }
  return Status::OK();
}

Status SnapshotProducer::ValidateAddedDVs(const TableMetadata& base,
                                          std::optional<int64_t> starting,
                                          const ExpressionPtr& filter, const Snapshot* parent,
                                          TableOperations& ops) {
  std::set<std::string> refs;
  for (const auto& [f, seq] : new_delete_files_) {
    if (IsDV(f) && f.referenced_data_file) refs.insert(*f.referenced_data_file);
  }
  if (parent == nullptr || refs.empty()) return Status::OK();
  FLOE_ASSIGN_OR_RETURN(
      History h,
      ValidationHistory(base, starting, {kOperationOverwrite, kOperationDelete, kOperationReplace},
                        ManifestContent::kDeletes, parent, ops.io()));
  FLOE_ASSIGN_OR_RETURN(FileFilter ff, FileFilter::Make(base, filter, case_sensitive_));
  for (const ManifestFile& m : h.manifests) {
    if (m.added_files_count.value_or(1) == 0) continue;
    FLOE_ASSIGN_OR_RETURN(bool may, ff.ManifestMayMatch(m));
    if (!may) continue;
    FLOE_ASSIGN_OR_RETURN(auto entries, ReadEntries(base, m, ops.io(), ManifestEntryFilter::kLive));
    for (const ManifestEntry& e : entries) {
      const DataFile& f = e.data_file;
      if (!e.snapshot_id || h.snapshot_ids.count(*e.snapshot_id) == 0) continue;
      if (IsDV(f) && f.referenced_data_file && refs.count(*f.referenced_data_file) > 0) {
        return Status::Conflict("Found concurrently added DV for {}: {}", *f.referenced_data_file,
                                f.file_path);
      }
    }
  }
  return Status::OK();
}

Status SnapshotProducer::ValidateRemovedDeletesUnneeded(const TableMetadata& base,
                                                        const Snapshot* parent,
                                                        TableOperations& ops) {
  if (parent == nullptr || delete_delete_paths_.empty()) return Status::OK();
  FLOE_ASSIGN_OR_RETURN(std::vector<ManifestFile> manifests, ReadManifests(*parent, ops.io()));
  std::vector<AddedDelete> removed;
  std::vector<std::pair<DataFile, int64_t>> live_data;
  // Data files this commit gives a file-scoped delete (a deletion vector or a position
  // delete file naming only them): the caller built it from every delete that applied to
  // the file at its starting snapshot (minor optimizing's conversion, a merged DV), so
  // the removed deletes no longer need to apply to them.
  std::set<std::string> rescoped = rescoped_data_files_;
  for (const auto& [file, seq] : new_delete_files_) {
    if (file.content == FileContent::kPositionDeletes && file.referenced_data_file) {
      rescoped.insert(*file.referenced_data_file);
    }
  }
  for (const ManifestFile& m : manifests) {
    FLOE_ASSIGN_OR_RETURN(auto entries, ReadEntries(base, m, ops.io(), ManifestEntryFilter::kLive));
    for (ManifestEntry& e : entries) {
      if (m.content == ManifestContent::kDeletes) {
        if (delete_delete_paths_.count(DeleteFileKey(e.data_file)) > 0) {
          removed.push_back({std::move(e.data_file), e.data_sequence_number.value_or(0)});
        }
      } else if (delete_data_paths_.count(e.data_file.file_path) == 0 &&
                 rescoped.count(e.data_file.file_path) == 0) {
        live_data.emplace_back(std::move(e.data_file), e.data_sequence_number.value_or(0));
      }
    }
  }
  for (const AddedDelete& d : removed) {
    for (const auto& [data, seq] : live_data) {
      // An equality delete whose key ranges miss the data file's (column metrics) is not
      // attached to it by any reader (Java's DeleteFileIndex, TableScan): it deletes none
      // of its rows, so the file does not need it.
      if (DeleteApplies(base, d.file, d.data_sequence_number, data, seq) &&
          (d.file.content != FileContent::kEqualityDeletes ||
           EqualityDeletesMayApply(base, data, d.file))) {
        return Status::Conflict(
            "Cannot remove delete file {}: it still applies to data file {} that stays in the "
            "table",
            d.file.file_path, data.file_path);
      }
    }
  }
  return Status::OK();
}

// --- the operations --------------------------------------------------------------------

std::string_view OverwriteFiles::operation() const {
  if (deletes_data_files() && !adds_data_files()) return kOperationDelete;
  if (adds_data_files() && !deletes_data_files()) return kOperationAppend;
  return kOperationOverwrite;
}

Status OverwriteFiles::Validate(const TableMetadata& base, const Snapshot* parent,
                                TableOperations& ops) {
  if (validate_new_data_) {
    ExpressionPtr filter = conflict_filter_;
    if (!filter && row_filter_ && deleted_data_files_.empty()) filter = row_filter_;
    FLOE_RETURN_IF_ERROR(ValidateAddedDataFiles(base, starting_snapshot_id_, filter, parent, ops));
  }
  if (validate_new_deletes_) {
    if (row_filter_) {
      ExpressionPtr filter = conflict_filter_ ? conflict_filter_ : row_filter_;
      FLOE_RETURN_IF_ERROR(
          ValidateNoNewDeleteFiles(base, starting_snapshot_id_, filter, parent, ops));
      FLOE_RETURN_IF_ERROR(
          ValidateDeletedDataFiles(base, starting_snapshot_id_, filter, parent, ops));
    }
    if (!deleted_data_files_.empty()) {
      FLOE_RETURN_IF_ERROR(ValidateNoNewDeletesForDataFiles(
          base, starting_snapshot_id_, conflict_filter_, deleted_data_files_, false, parent, ops));
    }
  }
  return Status::OK();
}

std::string_view RowDelta::operation() const {
  if (adds_data_files() && !adds_delete_files() && !deletes_data_files()) return kOperationAppend;
  if (adds_delete_files() && !adds_data_files()) return kOperationDelete;
  return kOperationOverwrite;
}

Status RowDelta::Validate(const TableMetadata& base, const Snapshot* parent, TableOperations& ops) {
  if (parent == nullptr) return Status::OK();
  if (starting_snapshot_id_) {
    bool ancestor = false;
    for (const Snapshot* s : base.Ancestors(parent->snapshot_id)) {
      if (s->snapshot_id == *starting_snapshot_id_) ancestor = true;
    }
    if (!ancestor) {
      return Status::Conflict("Snapshot {} is not an ancestor of {}", *starting_snapshot_id_,
                              parent->snapshot_id);
    }
  }
  if (!referenced_data_files_.empty()) {
    FLOE_RETURN_IF_ERROR(SnapshotProducer::ValidateDataFilesExist(
        base, starting_snapshot_id_, referenced_data_files_, !validate_deletes_, conflict_filter_,
        parent, ops));
  }
  if (validate_deletes_) FailMissingDeletePaths();
  if (validate_new_data_) {
    FLOE_RETURN_IF_ERROR(
        ValidateAddedDataFiles(base, starting_snapshot_id_, conflict_filter_, parent, ops));
  }
  if (validate_new_deletes_) {
    if (!removed_data_files_.empty()) {
      FLOE_RETURN_IF_ERROR(ValidateNoNewDeletesForDataFiles(
          base, starting_snapshot_id_, conflict_filter_, removed_data_files_, false, parent, ops));
    }
    FLOE_RETURN_IF_ERROR(
        ValidateNoNewDeleteFiles(base, starting_snapshot_id_, conflict_filter_, parent, ops));
  }
  for (const DataFile& f : removed_data_files_) {
    if (referenced_data_files_.count(f.file_path) > 0) {
      return Status::InvalidArgument(
          "Cannot delete data files [{}] that are referenced by new delete files", f.file_path);
    }
  }
  return ValidateAddedDVs(base, starting_snapshot_id_, conflict_filter_, parent, ops);
}

Status RewriteFiles::Validate(const TableMetadata& base, const Snapshot* parent,
                              TableOperations& ops) {
  tolerate_missing_delete_files_ = true;
  if (!deletes_data_files() && !deletes_delete_files()) {
    return Status::InvalidArgument("Files to delete cannot be empty");
  }
  if (!deletes_data_files() && adds_data_files()) {
    return Status::InvalidArgument(
        "Data files to add must be empty because there's no data file to be rewritten");
  }
  if (!deletes_delete_files() && adds_delete_files()) {
    return Status::InvalidArgument(
        "Delete files to add must be empty because there's no delete file to be rewritten");
  }
  new_data_sequence_number_ = explicit_sequence_number_;
  if (!new_data_sequence_number_ && starting_snapshot_id_ && base.format_version >= 2) {
    const Snapshot* start = base.snapshot_by_id(*starting_snapshot_id_);
    if (start == nullptr) {
      return Status::Conflict("Cannot validate from snapshot {}: it no longer exists",
                              *starting_snapshot_id_);
    }
    new_data_sequence_number_ = start->sequence_number;
  }
  if (!replaced_data_files_.empty()) {
    FLOE_RETURN_IF_ERROR(
        ValidateNoNewDeletesForDataFiles(base, starting_snapshot_id_, nullptr, replaced_data_files_,
                                         new_data_sequence_number_.has_value(), parent, ops));
  }
  // A rewrite that converts deletes into a data file's deletion vector must not race a
  // writer that gave the same file a new vector: the table keeps one DV per data file.
  if (starting_snapshot_id_) {
    FLOE_RETURN_IF_ERROR(ValidateAddedDVs(base, starting_snapshot_id_, nullptr, parent, ops));
  }
  return ValidateRemovedDeletesUnneeded(base, parent, ops);
}

}  // namespace floe::iceberg
