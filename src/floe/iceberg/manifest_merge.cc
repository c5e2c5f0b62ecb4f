#include "floe/iceberg/manifest_merge.h"

#include <algorithm>
#include <charconv>

namespace floe::iceberg {

namespace {

template <typename T>
T IntProperty(const std::map<std::string, std::string>& properties, std::string_view key,
              T fallback) {
  auto it = properties.find(std::string(key));
  if (it == properties.end()) return fallback;
  T value{};
  const std::string& text = it->second;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size()) return fallback;
  return value;
}

}  // namespace

ManifestMergeConfig ManifestMergeConfig::FromProperties(
    const std::map<std::string, std::string>& properties) {
  ManifestMergeConfig c;
  auto it = properties.find(std::string(kPropertyManifestMergeEnabled));
  if (it != properties.end()) {
    std::string v = it->second;
    std::transform(v.begin(), v.end(), v.begin(),
                   [](unsigned char ch) { return std::tolower(ch); });
    // Java Boolean.parseBoolean: anything but "true" is false.
    c.enabled = v == "true";
  }
  c.min_count_to_merge =
      IntProperty(properties, kPropertyManifestMinMergeCount, c.min_count_to_merge);
  c.target_size_bytes =
      IntProperty(properties, kPropertyManifestTargetSizeBytes, c.target_size_bytes);
  return c;
}

std::vector<std::vector<size_t>> PackEnd(const std::vector<int64_t>& weights, int64_t target) {
  // Java packs the reversed list with a look-back of one bin: an item joins the open bin
  // when it fits, else the open bin is emitted and the item opens the next one.
  std::vector<std::vector<size_t>> bins;
  std::vector<size_t> open;
  int64_t open_weight = 0;
  for (size_t k = weights.size(); k-- > 0;) {
    if (!open.empty() && open_weight + weights[k] <= target) {
      open.push_back(k);
      open_weight += weights[k];
      continue;
    }
    if (!open.empty()) bins.push_back(std::move(open));
    open = {k};
    open_weight = weights[k];
  }
  if (!open.empty()) bins.push_back(std::move(open));
  // Back to the list's order: bins and their items reversed.
  std::reverse(bins.begin(), bins.end());
  for (auto& bin : bins) std::reverse(bin.begin(), bin.end());
  return bins;
}

}  // namespace floe::iceberg
