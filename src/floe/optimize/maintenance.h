// Table maintenance run by the optimizing service beside self-optimizing (Amoro's
// "expire-snapshots" action): old snapshots are expired and the files only they reach are
// deleted, with the table's MaintenanceConfig (optimizing_config.h); and what keeps a
// managed table's metadata bounded: a count bound on snapshots, small manifests rewritten,
// metadata files the metadata log no longer lists deleted.
#pragma once

#include <cstdint>
#include <optional>
#include <set>
#include <string_view>

#include "floe/base/status.h"
#include "floe/iceberg/expire_snapshots.h"
#include "floe/iceberg/table.h"
#include "floe/optimize/optimizing_config.h"

namespace floe::optimize {

// snapshot-producer values of floe's maintenance commits (Amoro's names).
inline constexpr std::string_view kCleanDanglingDeleteProducer = "CLEAN_DANGLING_DELETE";
inline constexpr std::string_view kDataExpirationProducer = "DATA_EXPIRATION";
// floe's own: maintenance's manifest rewrite (no row changes).
inline constexpr std::string_view kRewriteManifestsProducer = "REWRITE_MANIFESTS";

// Whether floe's optimizer committed `snapshot` (snapshot-producer OPTIMIZE, or
// CLEAN_DANGLING_DELETE as Amoro names its dangling-delete cleaning): commits that change no
// row, unlike ingest and external writers.
bool ProducedByOptimizer(const iceberg::Snapshot& snapshot);

// Whether floe's table maintenance committed `snapshot` (dangling-delete cleanup or data
// expiration), as the snapshots API and the dashboard's timeline tell them apart.
bool ProducedByMaintenance(const iceberg::Snapshot& snapshot);

// The expiry time Amoro uses: snapshots older than now - snapshot.keep.duration, but never
// a snapshot at or after the newest one that is not floe's optimizing commit (readers
// consuming the table incrementally start from external commits, and an optimize commit
// after it changes no data). With snapshot.keep.max-count N, also every snapshot older
// than main's Nth newest ancestor (within the same bound of the newest external commit).
// nullopt: nothing may expire (no snapshot).
std::optional<int64_t> ExpireOlderThanMs(const iceberg::TableMetadata& metadata,
                                         const MaintenanceConfig& config, int64_t now_ms);

// Expires `table`'s snapshots older than ExpireOlderThanMs, keeping the newest
// max(1, snapshot.keep.min-count) of main and the `protected_ids` (snapshots running
// processes are based on), then deletes what only the expired snapshots reached. nullopt
// when expiry is off (table-expire.enabled or gc.enabled false) or nothing is old enough.
// Errors: the commit's (a conflict leaves everything as it was).
Result<std::optional<iceberg::ExpireSnapshotsResult>> ExpireTableSnapshots(
    iceberg::Table& table, const MaintenanceConfig& config, int64_t now_ms,
    const std::set<int64_t>& protected_ids);

// Whether main has more snapshots than snapshot.keep.max-count allows: expiry is due before
// its interval.
bool OverSnapshotCount(const iceberg::TableMetadata& metadata, const MaintenanceConfig& config);

struct ManifestRewriteResult {
  int64_t rewritten_manifests = 0;
  int64_t added_manifests = 0;
  int64_t snapshot_id = 0;
};

// Rewrites the small manifests (under half of commit.manifest.target-size-bytes) of the
// current snapshot of main, for each content (data, deletes) that has more than
// rewrite-manifests.max-small-count of them, into target-size manifests
// (iceberg::RewriteManifests; snapshot-producer REWRITE_MANIFESTS). nullopt when off or
// not due. Errors: reading the manifest list, the commit's.
Result<std::optional<ManifestRewriteResult>> RewriteSmallManifests(iceberg::Table& table,
                                                                   const MaintenanceConfig& config);

struct MetadataCleaningResult {
  int64_t deleted = 0;
  int64_t failed_deletes = 0;
};

// Deletes the metadata files in the folder of `table`'s current metadata file that are
// older than it (a lower version in Iceberg's `<version>-<uuid>[.gz].metadata.json`
// names) and that its metadata log does not list: files dropped from the log by
// write.metadata.previous-versions-max and files of commits that lost. A file of a lower
// version can never become current (a commit writes its base's version + 1 and swaps from
// that base), so no commit in flight loses its file. Other names are left alone. The caller
// checks that the folder is the table's own (cleanup scope).
Result<MetadataCleaningResult> DeleteUntrackedMetadataFiles(const iceberg::TableMetadata& metadata,
                                                            io::FileIO& io);

// The folder DeleteUntrackedMetadataFiles cleans, ending in '/'; empty without a metadata
// file.
std::string MetadataFolder(const iceberg::TableMetadata& metadata);

}  // namespace floe::optimize
