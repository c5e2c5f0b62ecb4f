// ManifestEntryCache: decoded manifest entries by manifest path, for scans planned again and
// again over a table that changes by a few manifests at a time (the optimizer evaluates a
// table after every commit). A manifest is immutable once written, so after a commit only the
// manifests it added are read and decoded; the others come from here.
//
// Bounded by the number of entries held (least recently used manifests go first). Entries are
// the live ones (ManifestEntryFilter::kLive) of one partition type, as TableScan reads them;
// those read with column stats also serve a scan that does not need them.
//
// Thread-safe.
#pragma once

#include <cstdint>
#include <list>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "floe/iceberg/manifest.h"

namespace floe::iceberg {

class ManifestEntryCache {
 public:
  using Entries = std::shared_ptr<const std::vector<ManifestEntry>>;

  explicit ManifestEntryCache(int64_t max_entries) : max_entries_(max_entries) {}

  // The manifest's entries when held with stats (or without, when `stats` is false); null
  // otherwise.
  Entries Get(const std::string& manifest_path, bool stats);
  // Holds the entries of a manifest (replacing a copy without stats), then drops the least
  // recently used manifests beyond the bound. A manifest larger than the bound is not held.
  void Put(const std::string& manifest_path, bool stats, Entries entries);

  int64_t hits() const;
  int64_t misses() const;
  int64_t entries() const;

 private:
  struct Slot {
    Entries entries;
    bool stats = false;
    std::list<std::string>::iterator lru;  // position in lru_
  };

  const int64_t max_entries_;
  mutable std::mutex mu_;
  std::map<std::string, Slot> slots_;
  std::list<std::string> lru_;  // most recently used first
  int64_t held_ = 0;
  int64_t hits_ = 0;
  int64_t misses_ = 0;
};

}  // namespace floe::iceberg
