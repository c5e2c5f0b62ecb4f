// Table maintenance run by the optimizing service beside self-optimizing (Amoro's
// "expire-snapshots" action): old snapshots are expired and the files only they reach are
// deleted, with the table's MaintenanceConfig (optimizing_config.h).
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
// after it changes no data). nullopt: nothing may expire (no snapshot).
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

}  // namespace floe::optimize
