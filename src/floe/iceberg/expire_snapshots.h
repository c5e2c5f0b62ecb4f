// ExpireSnapshots: removes old snapshots and the files only they reach, with Iceberg Java's
// semantics (RemoveSnapshots, ReachableFileCleanup) and the spec's retention policy
// ("Snapshot Retention Policy"):
//   - refs other than main whose snapshot is older than max-ref-age-ms are removed;
//   - every branch keeps its ancestors that are newer than its max-snapshot-age-ms or among
//     its first min-snapshots-to-keep; tags keep their snapshot;
//   - snapshots on no ref are kept while newer than the expiry time;
//   - defaults come from ExpireOlderThan / RetainLast, else the table properties
//     history.expire.max-snapshot-age-ms (5 days), history.expire.min-snapshots-to-keep (1),
//     history.expire.max-ref-age-ms (forever).
// Snapshots listed with ProtectSnapshots are always kept (DESIGN.md §4 rule 5: snapshots
// that running optimizing processes are based on).
//
// The commit sends remove-snapshot-ref and remove-snapshots. Afterwards the manifest lists,
// manifests, data and delete files and statistics files that no retained snapshot reaches
// are deleted (only after a successful commit).
#pragma once

#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "floe/iceberg/table.h"

namespace floe::iceberg {

inline constexpr std::string_view kPropertyMaxSnapshotAgeMs = "history.expire.max-snapshot-age-ms";
inline constexpr std::string_view kPropertyMinSnapshotsToKeep =
    "history.expire.min-snapshots-to-keep";
inline constexpr std::string_view kPropertyMaxRefAgeMs = "history.expire.max-ref-age-ms";

// Java's ExpireSnapshots output counts.
struct ExpireSnapshotsResult {
  std::vector<int64_t> expired_snapshot_ids;
  int64_t deleted_data_files = 0;
  int64_t deleted_position_delete_files = 0;
  int64_t deleted_equality_delete_files = 0;
  int64_t deleted_manifests = 0;
  int64_t deleted_manifest_lists = 0;
  int64_t deleted_statistics_files = 0;
  // Deletes that failed (they are left behind, as Java logs and continues).
  int64_t failed_deletes = 0;
};

class ExpireSnapshots final : public PendingUpdate {
 public:
  ExpireSnapshots& ExpireOlderThan(int64_t timestamp_ms) {
    older_than_ms_ = timestamp_ms;
    return *this;
  }
  ExpireSnapshots& RetainLast(int32_t n) {
    retain_last_ = n;
    return *this;
  }
  ExpireSnapshots& ExpireSnapshotId(int64_t snapshot_id) {
    explicit_ids_.insert(snapshot_id);
    return *this;
  }
  ExpireSnapshots& ProtectSnapshots(const std::set<int64_t>& ids) {
    protected_ids_.insert(ids.begin(), ids.end());
    return *this;
  }
  // false: commit only, delete no files (Java cleanExpiredFiles(false)).
  ExpireSnapshots& CleanExpiredFiles(bool clean) {
    clean_files_ = clean;
    return *this;
  }

  // After Commit(): what was expired and deleted.
  const ExpireSnapshotsResult& result() const { return result_; }

  Status Apply(const TableMetadata& base, TableOperations& ops,
               std::vector<TableUpdate>* updates) override;
  void Cleanup(const TableMetadata* committed, TableOperations& ops) override;

 private:
  friend class Table;
  ExpireSnapshots() = default;

  std::optional<int64_t> older_than_ms_;
  std::optional<int32_t> retain_last_;
  std::set<int64_t> explicit_ids_;
  std::set<int64_t> protected_ids_;
  bool clean_files_ = true;
  TableMetadataPtr before_;  // the metadata the last attempt applied to
  ExpireSnapshotsResult result_;
};

}  // namespace floe::iceberg
