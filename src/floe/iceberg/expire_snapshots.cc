#include "floe/iceberg/expire_snapshots.h"

#include <limits>
#include <map>

#include "floe/base/macros.h"
#include "floe/iceberg/snapshot_producer.h"

namespace floe::iceberg {

namespace {

constexpr int64_t kDefaultMaxSnapshotAgeMs = 5LL * 24 * 60 * 60 * 1000;

}  // namespace

Status ExpireSnapshots::Apply(const TableMetadata& base, TableOperations& ops,
                              std::vector<TableUpdate>* updates) {
  const int64_t now = ops.env().NowMillis();
  const int64_t default_max_ref_age =
      base.PropertyAsInt(kPropertyMaxRefAgeMs, std::numeric_limits<int64_t>::max());
  const int64_t default_expire_older_than =
      older_than_ms_
          ? *older_than_ms_
          : now - base.PropertyAsInt(kPropertyMaxSnapshotAgeMs, kDefaultMaxSnapshotAgeMs);
  const int64_t default_min_snapshots =
      retain_last_ ? *retain_last_ : base.PropertyAsInt(kPropertyMinSnapshotsToKeep, 1);

  // Refs to keep (Java RemoveSnapshots.computeRetainedRefs).
  std::map<std::string, SnapshotRef> retained_refs;
  for (const auto& [name, ref] : base.refs) {
    if (name == kMainBranch) {
      retained_refs.emplace(name, ref);
      continue;
    }
    const Snapshot* s = base.snapshot_by_id(ref.snapshot_id);
    int64_t max_age = ref.max_ref_age_ms.value_or(default_max_ref_age);
    if (s != nullptr && now - s->timestamp_ms <= max_age) retained_refs.emplace(name, ref);
  }
  std::map<int64_t, std::vector<std::string>> refs_by_id;
  for (const auto& [name, ref] : retained_refs) refs_by_id[ref.snapshot_id].push_back(name);
  for (int64_t id : explicit_ids_) {
    if (auto it = refs_by_id.find(id); it != refs_by_id.end()) {
      return Status::InvalidArgument("Cannot expire {}. Still referenced by refs: {}", id,
                                     it->second.front());
    }
  }

  std::set<int64_t> retain;
  for (const auto& [id, names] : refs_by_id) retain.insert(id);
  std::set<int64_t> referenced;
  for (const auto& [name, ref] : retained_refs) {
    if (!ref.is_branch()) {
      referenced.insert(ref.snapshot_id);
      continue;
    }
    const int64_t older_than =
        ref.max_snapshot_age_ms ? now - *ref.max_snapshot_age_ms : default_expire_older_than;
    const int64_t min_keep = ref.min_snapshots_to_keep.value_or(default_min_snapshots);
    int64_t kept = 0;
    bool stop = false;
    for (const Snapshot* s : base.Ancestors(ref.snapshot_id)) {
      referenced.insert(s->snapshot_id);
      if (stop) continue;
      if (kept < min_keep || s->timestamp_ms >= older_than) {
        retain.insert(s->snapshot_id);
        ++kept;
      } else {
        stop = true;
      }
    }
  }
  for (const Snapshot& s : base.snapshots) {
    if (referenced.count(s.snapshot_id) == 0 && s.timestamp_ms >= default_expire_older_than) {
      retain.insert(s.snapshot_id);
    }
  }
  for (int64_t id : explicit_ids_) retain.erase(id);
  retain.insert(protected_ids_.begin(), protected_ids_.end());

  for (const auto& [name, ref] : base.refs) {
    if (retained_refs.count(name) == 0) updates->push_back(update::RemoveSnapshotRef{name});
  }
  std::vector<int64_t> remove;
  for (const Snapshot& s : base.snapshots) {
    if (retain.count(s.snapshot_id) == 0) remove.push_back(s.snapshot_id);
  }
  if (!remove.empty()) updates->push_back(update::RemoveSnapshots{remove});
  result_ = ExpireSnapshotsResult{};
  result_.expired_snapshot_ids = remove;
  before_ = std::make_shared<TableMetadata>(base);
  return Status::OK();
}

void ExpireSnapshots::Cleanup(const TableMetadata* committed, TableOperations& ops) {
  if (committed == nullptr || !clean_files_ || before_ == nullptr) return;
  io::FileIO& io = ops.io();
  // Java ReachableFileCleanup: what expired snapshots reach minus what retained ones reach.
  std::set<int64_t> after_ids;
  for (const Snapshot& s : committed->snapshots) after_ids.insert(s.snapshot_id);
  std::vector<const Snapshot*> expired;
  for (const Snapshot& s : before_->snapshots) {
    if (after_ids.count(s.snapshot_id) == 0) expired.push_back(&s);
  }
  if (expired.empty()) return;

  std::map<std::string, ManifestFile> candidates;
  for (const Snapshot* s : expired) {
    Result<std::vector<ManifestFile>> ms = ReadSnapshotManifests(*s, io);
    if (!ms.ok()) return;  // cannot tell what is reachable: delete nothing
    for (ManifestFile& m : *ms) candidates.emplace(m.manifest_path, std::move(m));
  }
  std::map<std::string, ManifestFile> current;
  for (const Snapshot& s : committed->snapshots) {
    Result<std::vector<ManifestFile>> ms = ReadSnapshotManifests(s, io);
    if (!ms.ok()) return;
    for (ManifestFile& m : *ms) {
      candidates.erase(m.manifest_path);
      current.emplace(m.manifest_path, std::move(m));
    }
  }
  auto remove = [&](const std::string& path, int64_t* counter) {
    if (io.Delete(path).ok()) {
      ++*counter;
    } else {
      ++result_.failed_deletes;
    }
  };

  if (!candidates.empty()) {
    std::map<std::string, FileContent> files;
    bool complete = true;
    for (const auto& [path, m] : candidates) {
      auto entries = ReadManifestEntries(*before_, m, io, ManifestEntryFilter::kLive, false);
      if (!entries.ok()) {
        complete = false;
        break;
      }
      for (const ManifestEntry& e : *entries) {
        files.emplace(e.data_file.file_path, e.data_file.content);
      }
    }
    for (const auto& [path, m] : current) {
      if (!complete || files.empty()) break;
      auto entries = ReadManifestEntries(*committed, m, io, ManifestEntryFilter::kLive, false);
      if (!entries.ok()) {
        complete = false;
        break;
      }
      for (const ManifestEntry& e : *entries) files.erase(e.data_file.file_path);
    }
    if (complete) {
      for (const auto& [path, content] : files) {
        switch (content) {
          case FileContent::kData: remove(path, &result_.deleted_data_files); break;
          case FileContent::kPositionDeletes:
            remove(path, &result_.deleted_position_delete_files);
            break;
          case FileContent::kEqualityDeletes:
            remove(path, &result_.deleted_equality_delete_files);
            break;
        }
      }
    }
    for (const auto& [path, m] : candidates) remove(path, &result_.deleted_manifests);
  }
  for (const Snapshot* s : expired) {
    if (!s->manifest_list.empty()) remove(s->manifest_list, &result_.deleted_manifest_lists);
  }
  std::set<std::string> stats_after;
  for (const auto& f : committed->statistics) stats_after.insert(f.path);
  for (const auto& f : committed->partition_statistics) stats_after.insert(f.path);
  std::set<std::string> stats_before;
  for (const auto& f : before_->statistics) stats_before.insert(f.path);
  for (const auto& f : before_->partition_statistics) stats_before.insert(f.path);
  for (const std::string& p : stats_before) {
    if (stats_after.count(p) == 0) remove(p, &result_.deleted_statistics_files);
  }
}

}  // namespace floe::iceberg
