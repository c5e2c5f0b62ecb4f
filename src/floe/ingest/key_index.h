// The key index of keyed table topics in position mode (docs/table-topics.md, "Delete
// modes"): for each table, where the live row of every key is, so that an upsert or delete
// of a key becomes a position delete (v2) or a deletion-vector bit (v3) of that row instead
// of an equality delete, and every snapshot stays readable by readers without equality
// deletes (pyiceberg, DuckDB, ...).
//
// Storage: one RocksDB database per server (Debian's librocksdb) under
// kafka.key-index.dir. Its memory is bounded by kafka.key-index.memory-bytes: one LRU block
// cache that also carries the memtables (a WriteBufferManager charged to it) and the index
// and filter blocks; everything else is on local disk. Per table (by table UUID, so a
// dropped and re-created table starts empty) it holds
//   [uuid 16][0]            the snapshot id the index describes and the next file number
//   [uuid 16][1][file no]   a data file's path
//   [uuid 16][2][key bytes] the key's row: file number, position (varints)
// Key bytes are iceberg::AppendKey's encoding of the id columns, in id.columns order.
//
// What an entry means: for every key with a live row in the table at the index's snapshot,
// its entry names that row. The converse need not hold: an entry may name a row that is
// already deleted (by another writer's delete, or because the index caught up past one of
// our own commits lost in a crash); deleting such a row again is harmless (a DV is a set; a
// repeated position delete changes nothing), and an entry naming a file that is no longer
// live (rewritten by the optimizer) is ignored. That is what lets the index catch up from
// any earlier snapshot by reading only the data files added since, in commit order: the
// last row written for a key is its live one (every writer of a keyed table replaces a key
// in one commit), and an optimizer rewrite re-adds every live row of what it removed.
//
// Sync (catch-up or rebuild) runs before every keyed commit: when the index's snapshot is
// the table's current one there is nothing to read; when it is an ancestor, the data files
// added since are read (key columns only); otherwise (no index, a rollback, an expired
// ancestor chain, another table with the name) the index is rebuilt from every live data
// file, in data sequence order.
//
// Thread-safety: KeyIndexStore is thread-safe; a TableKeyIndex is used by one thread at a
// time (its topic's rounds).
#pragma once

#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "floe/base/status.h"
#include "floe/iceberg/keyed_writer.h"
#include "floe/iceberg/manifest.h"
#include "floe/iceberg/table.h"

namespace rocksdb {
class Cache;
class DB;
class WriteBatch;
}  // namespace rocksdb

namespace floe::iceberg {
class ManifestEntryCache;
}

namespace floe::ingest {

struct KeyIndexOptions {
  std::string dir;  // created when missing
  int64_t memory_bytes = int64_t{256} << 20;
};

struct KeyIndexStats {
  // Bytes held in memory: the block cache (memtables, data, index and filter blocks
  // charged to it) and table readers outside it; at most about memory_bytes.
  int64_t memory_bytes = 0;
  int64_t memory_limit_bytes = 0;
  int64_t memtable_bytes = 0;
  int64_t disk_bytes = 0;  // the directory's files: SSTs, write-ahead log, manifest
  int64_t keys = 0;        // RocksDB's estimate, over all tables
  int64_t rebuilds = 0;    // tables indexed from all their live data files
  int64_t catch_ups = 0;   // syncs that read the data files added since the index's snapshot
  int64_t files_read = 0;  // data files read by rebuilds and catch-ups
};

class KeyIndexStore {
 public:
  // Opens (or creates) the database. kIOError when RocksDB cannot open it (another process
  // holds its lock, a corrupt store: the message says which; deleting the directory is
  // always safe, the indexes are rebuilt from the tables).
  static Result<std::unique_ptr<KeyIndexStore>> Open(const KeyIndexOptions& options);
  ~KeyIndexStore();

  KeyIndexStats stats() const;

 private:
  friend class TableKeyIndex;
  KeyIndexStore() = default;

  std::unique_ptr<rocksdb::DB> db_;
  std::shared_ptr<rocksdb::Cache> cache_;
  std::unique_ptr<iceberg::ManifestEntryCache> manifests_;
  std::string dir_;
  int64_t memory_limit_ = 0;
  std::atomic<int64_t> rebuilds_{0};
  std::atomic<int64_t> catch_ups_{0};
  std::atomic<int64_t> files_read_{0};
};

// The files a keyed commit adds and removes besides its data files, and the index update
// to apply once it has committed.
struct PositionalDeletes {
  std::vector<iceberg::DataFile> delete_files;            // position delete files or DVs
  std::vector<iceberg::DataFile> rewritten_delete_files;  // previous DVs merged into new ones
  std::vector<std::string> referenced_data_files;         // sorted
  std::optional<int64_t> base_snapshot_id;                // the snapshot the deletes were found in
  int64_t deleted_rows = 0;                               // positions deleted

  struct Update;
  std::shared_ptr<Update> update;  // for TableKeyIndex::Committed
};

class TableKeyIndex {
 public:
  // `key_ids`: the id columns' field ids, in id.columns order. REQUIRES: `store` outlives
  // the index.
  TableKeyIndex(KeyIndexStore* store, std::vector<int32_t> key_ids)
      : store_(store), key_ids_(std::move(key_ids)) {}
  ~TableKeyIndex();

  // Brings the index to `table`'s current snapshot (see above) and finds the rows the
  // commit's keys replace: writes their position deletes (v2) or deletion vectors merged
  // with each data file's previous one (v3) next to the table's data. Nothing is committed
  // and the index itself does not change beyond the sync. kFailedPrecondition for a v1
  // table; read, write and RocksDB errors.
  Result<PositionalDeletes> Prepare(iceberg::Table& table,
                                    const iceberg::KeyedPositionalResult& written);

  // Records a committed `deletes` whose snapshot is `snapshot_id` with parent
  // `parent_snapshot_id`: the keys' new rows, the deleted keys, and the index's snapshot
  // (the committed one when its parent is the snapshot Prepare synced to; else that one, so
  // the next sync also reads what landed in between).
  Status Committed(const PositionalDeletes& deletes, int64_t snapshot_id,
                   std::optional<int64_t> parent_snapshot_id);

  // The snapshot the index describes after the last sync or commit (tests, stats).
  std::optional<int64_t> snapshot_id() const { return snapshot_id_; }

 private:
  // Loads the table's meta and file numbers (once per table UUID); a new UUID (the table
  // re-created under the topic's name) erases the old table's entries.
  Status Load(const iceberg::TableMetadata& md);
  // Removes every entry of the table with this UUID prefix.
  Status Erase(const std::string& uuid);
  Status Sync(iceberg::Table& table);
  Status Rebuild(iceberg::Table& table);
  // Puts the keys of `files` (in order) into `batch` under new file numbers.
  Status IndexFiles(iceberg::Table& table, const std::vector<iceberg::DataFile>& files,
                    rocksdb::WriteBatch* batch);
  Status WriteMeta(rocksdb::WriteBatch* batch, std::optional<int64_t> snapshot_id);
  uint32_t FileNumber(const std::string& path, rocksdb::WriteBatch* batch);
  std::string RowKey(std::string_view key) const;

  KeyIndexStore* store_;
  std::vector<int32_t> key_ids_;
  std::string uuid_;  // 16 bytes: the loaded table's UUID, the prefix of its entries
  bool loaded_ = false;
  std::optional<int64_t> snapshot_id_;
  uint32_t next_file_ = 1;
  std::unordered_map<uint32_t, std::string> paths_;    // file number -> path
  std::unordered_map<std::string, uint32_t> numbers_;  // path -> file number
};

}  // namespace floe::ingest
