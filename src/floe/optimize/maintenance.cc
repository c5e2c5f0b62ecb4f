#include "floe/optimize/maintenance.h"

#include <algorithm>
#include <map>
#include <set>
#include <string>

#include "floe/base/macros.h"
#include "floe/iceberg/manifest_merge.h"
#include "floe/iceberg/snapshot_producer.h"
#include "floe/optimize/cleanup.h"

namespace floe::optimize {

bool ProducedByOptimizer(const iceberg::Snapshot& snapshot) {
  const std::string* producer = snapshot.SummaryValue("snapshot-producer");
  return producer != nullptr &&
         (*producer == "OPTIMIZE" || *producer == kCleanDanglingDeleteProducer ||
          *producer == kRewriteManifestsProducer);
}

bool ProducedByMaintenance(const iceberg::Snapshot& snapshot) {
  const std::string* producer = snapshot.SummaryValue("snapshot-producer");
  return producer != nullptr &&
         (*producer == kCleanDanglingDeleteProducer || *producer == kDataExpirationProducer ||
          *producer == kRewriteManifestsProducer);
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
  if (config.snapshot_keep_max_count > 0 && metadata.current_snapshot() != nullptr) {
    const int32_t keep =
        std::max({config.snapshot_keep_max_count, config.snapshot_keep_min_count, 1});
    const auto main = metadata.Ancestors(metadata.current_snapshot()->snapshot_id);  // newest first
    if (static_cast<int64_t>(main.size()) > keep) {
      older_than = std::max(older_than, main[static_cast<size_t>(keep) - 1]->timestamp_ms);
    }
  }
  if (newest_external) older_than = std::min(older_than, *newest_external);
  return older_than;
}

bool OverSnapshotCount(const iceberg::TableMetadata& metadata, const MaintenanceConfig& config) {
  if (config.snapshot_keep_max_count <= 0) return false;
  const int64_t keep =
      std::max({config.snapshot_keep_max_count, config.snapshot_keep_min_count, 1});
  return static_cast<int64_t>(metadata.snapshots.size()) > keep;
}

Result<std::optional<ManifestRewriteResult>> RewriteSmallManifests(
    iceberg::Table& table, const MaintenanceConfig& config) {
  using Outcome = std::optional<ManifestRewriteResult>;
  if (!config.rewrite_manifests_enabled) return Outcome{};
  const iceberg::TableMetadataPtr metadata = table.metadata();
  const iceberg::Snapshot* current = metadata->current_snapshot();
  // A v1 snapshot embedding its manifests has no list to rewrite.
  if (current == nullptr || current->manifest_list.empty()) return Outcome{};
  FLOE_ASSIGN_OR_RETURN(std::vector<iceberg::ManifestFile> manifests,
                        iceberg::ReadSnapshotManifests(*current, table.io()));
  const int64_t target =
      iceberg::ManifestMergeConfig::FromProperties(metadata->properties).target_size_bytes;
  auto small = [target](const iceberg::ManifestFile& m) { return m.manifest_length < target / 2; };
  std::map<iceberg::ManifestContent, int64_t> small_count;
  for (const iceberg::ManifestFile& m : manifests) {
    if (small(m)) ++small_count[m.content];
  }
  std::set<iceberg::ManifestContent> due;
  for (const auto& [content, n] : small_count) {
    if (n > config.rewrite_manifests_max_small_count) due.insert(content);
  }
  if (due.empty()) return Outcome{};
  auto rewrite = table.NewRewriteManifests();
  rewrite->RewriteIf(
      [&](const iceberg::ManifestFile& m) { return small(m) && due.contains(m.content); });
  rewrite->Set("snapshot-producer", std::string(kRewriteManifestsProducer));
  FLOE_RETURN_IF_ERROR(rewrite->Commit());
  ManifestRewriteResult r;
  r.rewritten_manifests = rewrite->rewritten_manifests();
  r.added_manifests = rewrite->added_manifests();
  r.snapshot_id = *rewrite->snapshot_id();
  return Outcome(r);
}

std::string MetadataFolder(const iceberg::TableMetadata& metadata) {
  const std::string& current = metadata.metadata_file_location;
  size_t slash = current.rfind('/');
  if (current.empty() || slash == std::string::npos) return {};
  return current.substr(0, slash + 1);
}

Result<MetadataCleaningResult> DeleteUntrackedMetadataFiles(const iceberg::TableMetadata& metadata,
                                                            io::FileIO& io) {
  MetadataCleaningResult result;
  const std::string folder = MetadataFolder(metadata);
  std::optional<int32_t> current_version =
      iceberg::ParseMetadataFileVersion(metadata.metadata_file_location);
  if (folder.empty() || !current_version) return result;
  std::set<std::string> tracked = {NormalizeLocation(metadata.metadata_file_location)};
  for (const auto& entry : metadata.metadata_log) {
    tracked.insert(NormalizeLocation(entry.metadata_file));
  }
  const std::string normalized_folder = NormalizeLocation(folder);
  FLOE_ASSIGN_OR_RETURN(std::vector<io::FileInfo> files, io.List(folder));
  for (const io::FileInfo& f : files) {
    const std::string location = NormalizeLocation(f.location);
    if (!location.starts_with(normalized_folder)) continue;
    std::string_view name = std::string_view(location).substr(normalized_folder.size());
    if (name.find('/') != std::string_view::npos || !name.ends_with(".metadata.json")) continue;
    std::optional<int32_t> version = iceberg::ParseMetadataFileVersion(f.location);
    if (!version || *version >= *current_version || tracked.contains(location)) continue;
    if (io.Delete(f.location).ok()) {
      ++result.deleted;
    } else {
      ++result.failed_deletes;
    }
  }
  return result;
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
