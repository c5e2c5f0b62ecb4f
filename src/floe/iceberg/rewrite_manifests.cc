// RewriteManifests (snapshot_producer.h): a snapshot's small manifests rewritten into
// manifests of the target size, every live entry carried over unchanged.
#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <utility>

#include "floe/base/macros.h"
#include "floe/iceberg/manifest_merge.h"
#include "floe/iceberg/manifest_writer.h"
#include "floe/iceberg/snapshot_producer.h"

namespace floe::iceberg {

Result<std::vector<ManifestFile>> RewriteManifests::ReplaceManifests(
    const TableMetadata& base, const Snapshot* parent, TableOperations& ops,
    SnapshotSummaryBuilder* summary) {
  std::vector<ManifestFile> current;
  if (parent != nullptr) {
    FLOE_ASSIGN_OR_RETURN(current, ReadSnapshotManifests(*parent, ops.io()));
  }
  if (!chosen_) {
    chosen_ = true;
    const ManifestMergeConfig config = ManifestMergeConfig::FromProperties(base.properties);
    const int64_t target = std::max<int64_t>(1, config.target_size_bytes);
    std::map<std::pair<int, int32_t>, std::vector<const ManifestFile*>> groups;
    for (const ManifestFile& m : current) {
      if (predicate_ && !predicate_(m)) continue;
      groups[{static_cast<int>(m.content), m.partition_spec_id}].push_back(&m);
    }
    for (const auto& [group_key, group] : groups) {
      // One manifest without deleted entries would only be copied.
      if (group.size() == 1 && group.front()->deleted_files_count.value_or(1) == 0) continue;
      std::vector<ManifestEntry> entries;
      int64_t bytes = 0;
      for (const ManifestFile* m : group) {
        FLOE_ASSIGN_OR_RETURN(auto live,
                              ReadManifestEntries(base, *m, ops.io(), ManifestEntryFilter::kLive));
        for (ManifestEntry& e : live) entries.push_back(std::move(e));
        bytes += m->manifest_length;
        selected_.insert(m->manifest_path);
      }
      entries_processed_ += static_cast<int64_t>(entries.size());
      if (entries.empty()) continue;
      // Cluster by partition so that the new manifests prune well (the Spark action sorts
      // by partition), then by path for a stable order.
      const PartitionSpec* spec = base.spec_by_id(group_key.second);
      if (spec == nullptr) return Status::Corrupt("unknown partition spec {}", group_key.second);
      std::vector<std::pair<std::string, size_t>> order;
      order.reserve(entries.size());
      for (size_t i = 0; i < entries.size(); ++i) {
        Result<std::string> path = spec->PartitionPath(entries[i].data_file.partition);
        order.emplace_back(path.ok() ? *path : std::string(), i);
      }
      std::sort(order.begin(), order.end(), [&](const auto& a, const auto& b) {
        if (a.first != b.first) return a.first < b.first;
        return entries[a.second].data_file.file_path < entries[b.second].data_file.file_path;
      });
      const size_t count = static_cast<size_t>(std::max<int64_t>(1, (bytes + target - 1) / target));
      const size_t per_manifest = (entries.size() + count - 1) / count;
      for (size_t start = 0; start < order.size(); start += per_manifest) {
        const size_t end = std::min(order.size(), start + per_manifest);
        auto write = [&](ManifestWriter& writer) -> Status {
          for (size_t k = start; k < end; ++k) {
            FLOE_RETURN_IF_ERROR(writer.Existing(entries[order[k].second]));
          }
          return Status::OK();
        };
        FLOE_ASSIGN_OR_RETURN(ManifestFile m, WriteNewManifest(base, group_key.second,
                                                               group.front()->content, write, ops));
        written_.push_back(std::move(m));
      }
      live_files_ += static_cast<int64_t>(entries.size());
    }
  }
  std::vector<ManifestFile> out = written_;
  int64_t kept = 0;
  std::set<std::string> present;
  for (const ManifestFile& m : current) {
    present.insert(m.manifest_path);
    if (selected_.contains(m.manifest_path)) continue;
    out.push_back(m);
    ++kept;
  }
  for (const std::string& path : selected_) {
    if (!present.contains(path)) return Status::Conflict("Manifest is missing: {}", path);
  }
  summary->Set("manifests-created", std::to_string(written_.size()));
  summary->Set("manifests-kept", std::to_string(kept));
  summary->Set("manifests-replaced", std::to_string(selected_.size()));
  summary->Set("entries-processed", std::to_string(entries_processed_));
  return out;
}

}  // namespace floe::iceberg
