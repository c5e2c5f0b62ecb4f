#include "floe/iceberg/manifest_cache.h"

namespace floe::iceberg {

ManifestEntryCache::Entries ManifestEntryCache::Get(const std::string& manifest_path, bool stats) {
  std::lock_guard lock(mu_);
  auto it = slots_.find(manifest_path);
  if (it == slots_.end() || (stats && !it->second.stats)) {
    ++misses_;
    return nullptr;
  }
  lru_.splice(lru_.begin(), lru_, it->second.lru);
  ++hits_;
  return it->second.entries;
}

void ManifestEntryCache::Put(const std::string& manifest_path, bool stats, Entries entries) {
  if (entries == nullptr) return;
  const auto size = static_cast<int64_t>(entries->size());
  if (size > max_entries_) return;
  std::lock_guard lock(mu_);
  auto it = slots_.find(manifest_path);
  if (it != slots_.end()) {
    if (it->second.stats && !stats) return;  // the copy held serves both
    held_ -= static_cast<int64_t>(it->second.entries->size());
    lru_.erase(it->second.lru);
    slots_.erase(it);
  }
  lru_.push_front(manifest_path);
  slots_.emplace(manifest_path, Slot{std::move(entries), stats, lru_.begin()});
  held_ += size;
  while (held_ > max_entries_ && !lru_.empty()) {
    auto victim = slots_.find(lru_.back());
    held_ -= static_cast<int64_t>(victim->second.entries->size());
    slots_.erase(victim);
    lru_.pop_back();
  }
}

int64_t ManifestEntryCache::hits() const {
  std::lock_guard lock(mu_);
  return hits_;
}

int64_t ManifestEntryCache::misses() const {
  std::lock_guard lock(mu_);
  return misses_;
}

int64_t ManifestEntryCache::entries() const {
  std::lock_guard lock(mu_);
  return held_;
}

}  // namespace floe::iceberg
