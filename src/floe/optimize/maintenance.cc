#include "floe/optimize/maintenance.h"

#include <algorithm>

namespace floe::optimize {

bool ProducedByOptimizer(const iceberg::Snapshot& snapshot) {
  const std::string* producer = snapshot.SummaryValue("snapshot-producer");
  return producer != nullptr &&
         (*producer == "OPTIMIZE" || *producer == kCleanDanglingDeleteProducer);
}

bool ProducedByMaintenance(const iceberg::Snapshot& snapshot) {
  const std::string* producer = snapshot.SummaryValue("snapshot-producer");
  return producer != nullptr &&
         (*producer == kCleanDanglingDeleteProducer || *producer == kDataExpirationProducer);
}

std::optional<int64_t> ExpireOlderThanMs(const iceberg::TableMetadata& metadata,
                                         const MaintenanceConfig& config, int64_t now_ms) {
  if (metadata.snapshots.empty()) return std::nullopt;
  std::optional<int64_t> newest_external;
  for (const iceberg::Snapshot& s : metadata.snapshots) {
    if (ProducedByOptimizer(s)) continue;
    newest_external = std::max(newest_external.value_or(s.timestamp_ms), s.timestamp_ms);
  }
  int64_t older_than = now_ms - config.snapshot_keep_ms;
  if (newest_external) older_than = std::min(older_than, *newest_external);
  return older_than;
}

Result<std::optional<iceberg::ExpireSnapshotsResult>> ExpireTableSnapshots(
    iceberg::Table& table, const MaintenanceConfig& config, int64_t now_ms,
    const std::set<int64_t>& protected_ids) {
  using Outcome = std::optional<iceberg::ExpireSnapshotsResult>;
  if (!config.expire_enabled || !config.gc_enabled) return Outcome{};
  const iceberg::TableMetadataPtr& metadata = table.metadata();
  std::optional<int64_t> older_than = ExpireOlderThanMs(*metadata, config, now_ms);
  if (!older_than) return Outcome{};
  const bool any_old =
      std::any_of(metadata->snapshots.begin(), metadata->snapshots.end(),
                  [&](const iceberg::Snapshot& s) { return s.timestamp_ms < *older_than; });
  if (!any_old) return Outcome{};
  auto expire = table.NewExpireSnapshots();
  expire->ExpireOlderThan(*older_than)
      .RetainLast(std::max(1, config.snapshot_keep_min_count))
      .ProtectSnapshots(protected_ids);
  FLOE_RETURN_IF_ERROR(expire->Commit());
  return Outcome(expire->result());
}

}  // namespace floe::optimize
