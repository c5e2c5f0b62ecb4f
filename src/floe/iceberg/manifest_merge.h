// Manifest merging on commit (Iceberg Java's ManifestMergeManager, used by every
// MergingSnapshotProducer: merge append, delete, overwrite, row delta, rewrite) and the
// bin packing it uses. The snapshot producer (snapshot_producer.cc) writes the merged
// manifests; this header holds the settings and the pure packing rules.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "floe/base/status.h"

namespace floe::iceberg {

// Java TableProperties.
inline constexpr std::string_view kPropertyManifestMergeEnabled = "commit.manifest-merge.enabled";
inline constexpr std::string_view kPropertyManifestMinMergeCount =
    "commit.manifest.min-count-to-merge";
inline constexpr std::string_view kPropertyManifestTargetSizeBytes =
    "commit.manifest.target-size-bytes";
inline constexpr int64_t kDefaultManifestTargetSizeBytes = 8LL * 1024 * 1024;
inline constexpr int32_t kDefaultManifestMinMergeCount = 100;

struct ManifestMergeConfig {
  bool enabled = true;
  int32_t min_count_to_merge = kDefaultManifestMinMergeCount;
  int64_t target_size_bytes = kDefaultManifestTargetSizeBytes;

  // The table's settings; values that do not parse fall back to the defaults, as Java's
  // PropertyUtil would fail the commit instead (floe never refuses a commit over them).
  static ManifestMergeConfig FromProperties(const std::map<std::string, std::string>& properties);
};

// Packs items of `weights` into consecutive bins of at most `target` total weight, filled
// from the end so that the first bin is the under-filled one (Java
// BinPacking.ListPacker(target, lookback 1, largestBinFirst false).packEnd). An item
// heavier than `target` gets a bin of its own. Returns each bin's item indexes in order.
std::vector<std::vector<size_t>> PackEnd(const std::vector<int64_t>& weights, int64_t target);

}  // namespace floe::iceberg
