// Memory-bounded equality-delete application: the options a scan takes, the statistics it
// reports, and a cache of decoded delete keys shared by the readers of one process.
//
// Without a budget a scan reader loads every applicable equality delete file's keys into
// one hash table (scan.cc). With ScanOptions::equality_deletes.max_memory_bytes set, each
// set of equality field ids picks the cheapest of three ways that fits:
//   - in memory, as without a budget, when the delete keys fit and are not many more than
//     the data rows;
//   - filtered: the key columns of the reader's data files are read first into a key
//     filter (an exact hash set when small, else a split-block Bloom filter sized from the
//     data files' record counts) and only the delete keys that pass are held; the table
//     then holds at most about one entry per data row, however long the delete backlog;
//   - spilled: when even that does not fit, data keys (with their file and position) and
//     filtered delete keys are partitioned by key hash into run files under a spill
//     directory and resolved partition by partition into per-file deleted positions, which
//     the reader then applies like position deletes. Memory is one partition's table.
// The sequence-number rules are those of planning in every mode: each data file carries
// the delete files that may apply to it (scan.h), and a key deletes a row only when one of
// the files holding it is among them.
#pragma once

#include <cstdint>
#include <list>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace floe::iceberg {

// The encoded keys of one equality delete file, in file order, with their hashes.
struct DecodedDeleteKeys {
  std::string arena;
  std::vector<uint32_t> ends;  // by key: end of its bytes in arena
  std::vector<uint64_t> hashes;

  size_t size() const { return ends.size(); }
  std::string_view key(size_t i) const {
    const size_t begin = i == 0 ? 0 : ends[i - 1];
    return std::string_view(arena).substr(begin, ends[i] - begin);
  }
  size_t memory_bytes() const {
    return arena.capacity() + ends.capacity() * sizeof(uint32_t) +
           hashes.capacity() * sizeof(uint64_t);
  }
};

// Decoded delete keys by delete file path and equality field ids, least recently used out
// first, holding at most `capacity_bytes`. Tasks of one partition read the same delete
// files: with one cache per process each is decoded once. Delete files are immutable, so
// an entry never goes stale. Thread-safe.
class DeleteKeyCache {
 public:
  explicit DeleteKeyCache(int64_t capacity_bytes) : capacity_bytes_(capacity_bytes) {}

  // The entry, or null.
  std::shared_ptr<const DecodedDeleteKeys> Find(const std::string& key);
  // Adds an entry unless it is larger than a quarter of the capacity.
  void Insert(const std::string& key, std::shared_ptr<const DecodedDeleteKeys> keys);

  int64_t hits() const;
  int64_t misses() const;
  int64_t bytes() const;

 private:
  using Entry = std::pair<std::string, std::shared_ptr<const DecodedDeleteKeys>>;
  const int64_t capacity_bytes_;
  mutable std::mutex mu_;
  std::list<Entry> lru_;  // guarded by mu_; most recent first
  std::unordered_map<std::string, std::list<Entry>::iterator> index_;  // guarded by mu_
  int64_t bytes_ = 0;                                                  // guarded by mu_
  int64_t hits_ = 0;                                                   // guarded by mu_
  int64_t misses_ = 0;                                                 // guarded by mu_
};

struct EqualityDeleteOptions {
  // 0: no budget (one in-memory table, no filter). Otherwise the bytes the delete key
  // tables and filters of one reader may hold.
  int64_t max_memory_bytes = 0;
  // Where spilled runs go (a private directory is made inside and removed afterwards);
  // empty: the system's temporary directory.
  std::string spill_dir;
  DeleteKeyCache* cache = nullptr;  // not owned; may be null
};

struct EqualityDeleteStats {
  int64_t delete_keys_read = 0;  // keys in the delete files read
  int64_t delete_keys_kept = 0;  // of those, held (passed the filter)
  int64_t filtered_groups = 0;   // field-id sets applied with a key filter
  int64_t spilled_groups = 0;    // field-id sets resolved through runs
  int64_t spill_partitions = 0;  // runs per side, summed over spilled groups
  int64_t spilled_bytes = 0;     // bytes written to runs
  int64_t peak_table_bytes = 0;  // the largest key table held at once
};

}  // namespace floe::iceberg
