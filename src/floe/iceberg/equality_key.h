// Encoded equality keys: a row's values of a set of columns as bytes that compare equal
// exactly when the values do (Iceberg spec, Row-level deletes: equality deletes match by
// value, a null matching a null), and an arena hash table of such keys. Used by the scan
// reader (scan.cc), the memory-bounded equality-delete resolver (equality_deletes.cc) and
// the keyed writer (keyed_writer.h). The declarations in `internal` below are the
// resolver's and private to floe_iceberg.
#pragma once

#include <algorithm>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include <xxhash.h>

#include "floe/base/status.h"
#include "floe/columnar/array.h"
#include "floe/format/puffin/deletion_vector.h"
#include "floe/iceberg/data_reader.h"
#include "floe/iceberg/equality_deletes.h"
#include "floe/iceberg/scan.h"
#include "floe/iceberg/table_metadata.h"

namespace floe::iceberg {

// A column located by field id in a batch (top level or inside structs), with the
// validity of the structs above it.
struct Located {
  const columnar::Array* array = nullptr;
  std::vector<const columnar::Array*> parents;
};

// The columns of `ids` in `batch`. kInternal when one is missing.
Result<std::vector<Located>> LocateAll(const columnar::RecordBatch& batch,
                                       const std::vector<int32_t>& ids);

// Appends the key of row i: per column a null marker, then the value's bytes (length-
// prefixed for variable-width types). Equal values give equal bytes, and a null equals a
// null (equality deletes match nulls to nulls). Appending to a reused string allocates only
// when a key is longer than any before it.
void AppendKey(const std::vector<Located>& cols, int64_t i, std::string* key);

// The keys of a run of rows of one data file: row first_position + i has key i.
struct RowKeyBatch {
  std::string arena;
  std::vector<uint32_t> ends;  // by row: end of its key in arena
  int64_t first_position = 0;

  size_t size() const { return ends.size(); }
  std::string_view key(size_t i) const {
    const size_t begin = i == 0 ? 0 : ends[i - 1];
    return std::string_view(arena).substr(begin, ends[i] - begin);
  }
};

// Reads the columns `ids` (in that order) of every row of `data`, a data file of the table
// `md` describes, as encoded keys (AppendKey), one RowKeyBatch at a time; identity-partition
// values stand in for source columns the file lacks, and the table's name mapping applies,
// as in a scan. Deletes are not applied. kCorrupt for an id in no schema of the table.
Status ReadRowKeys(const TableMetadata& md, io::FileIO& io, const DataFile& data,
                   const std::vector<int32_t>& ids,
                   const std::function<Status(const RowKeyBatch&)>& fn);

// A set of encoded keys (AppendKey): an open-addressing table of (hash,
// entry) slots over one arena of key bytes, each key numbered by insertion (its entry). A
// lookup touches one slot and, only when the 64-bit hashes agree, the key bytes: a data row
// whose key is not deleted costs one cache miss, where a node-based map costs a bucket, a
// node and a string. Not thread-safe.
class EqualityKeyTable {
 public:
  static constexpr uint32_t kAbsent = UINT32_MAX;

  static uint64_t Hash(std::string_view key) { return XXH3_64bits(key.data(), key.size()); }

  // The entry of `key`, added (with *added = true) when absent.
  uint32_t FindOrAdd(std::string_view key, uint64_t hash, bool* added) {
    if ((ends_.size() + 1) * 2 > slots_.size()) Grow();
    size_t pos = hash & mask_;
    const auto tag = static_cast<uint32_t>(hash >> 32);
    for (;; pos = (pos + 1) & mask_) {
      Slot& slot = slots_[pos];
      if (slot.entry == kAbsent) break;
      if (slot.tag == tag && Key(slot.entry) == key) {
        *added = false;
        return slot.entry;
      }
    }
    const auto entry = static_cast<uint32_t>(ends_.size());
    arena_.append(key);
    ends_.push_back(arena_.size());
    slots_[pos] = Slot{tag, entry};
    *added = true;
    return entry;
  }

  uint32_t Find(std::string_view key, uint64_t hash) const {
    if (slots_.empty()) return kAbsent;
    const auto tag = static_cast<uint32_t>(hash >> 32);
    for (size_t pos = hash & mask_;; pos = (pos + 1) & mask_) {
      const Slot& slot = slots_[pos];
      if (slot.entry == kAbsent) return kAbsent;
      if (slot.tag == tag && Key(slot.entry) == key) return slot.entry;
    }
  }

  size_t size() const { return ends_.size(); }
  // Bytes held: slots, key arena and key ends.
  size_t memory_bytes() const {
    return slots_.capacity() * sizeof(Slot) + arena_.capacity() + ends_.capacity() * sizeof(size_t);
  }

  // Starts loading the slot a later Find(…, hash) reads first.
  void Prefetch(uint64_t hash) const {
    if (!slots_.empty()) __builtin_prefetch(&slots_[hash & mask_]);
  }

 private:
  // 8 bytes: the low hash bits pick the slot, the high 32 are kept to skip most key
  // compares. Grow() cannot recompute the position from them, so it rehashes the keys.
  struct Slot {
    uint32_t tag = 0;
    uint32_t entry = kAbsent;
  };

  std::string_view Key(uint32_t entry) const {
    const size_t begin = entry == 0 ? 0 : ends_[entry - 1];
    return std::string_view(arena_).substr(begin, ends_[entry] - begin);
  }

  void Grow() {
    std::vector<Slot> old = std::move(slots_);
    slots_.assign(std::max<size_t>(1024, old.size() * 2), Slot{});
    mask_ = slots_.size() - 1;
    for (const Slot& slot : old) {
      if (slot.entry == kAbsent) continue;
      size_t pos = Hash(Key(slot.entry)) & mask_;
      while (slots_[pos].entry != kAbsent) pos = (pos + 1) & mask_;
      slots_[pos] = slot;
    }
  }

  std::vector<Slot> slots_;
  size_t mask_ = 0;
  std::string arena_;
  std::vector<size_t> ends_;  // by entry: end of its key in arena_
};

namespace internal {

namespace col = floe::columnar;

// The resolver's own code predates the public names above.
using iceberg::AppendKey;
using iceberg::EqualityKeyTable;
using iceberg::LocateAll;
using iceberg::Located;

// The field with `id` in `schema` or, for columns dropped since (equality deletes still
// apply to them), in any schema of the table.
const NestedField* FindAnyField(const TableMetadata& md, const Schema& schema, int32_t id);

// Opens a data file of a scan for `read_schema`, with the identity-partition constants and
// the table's name mapping (schema.name-mapping.default) the spec asks for.
Result<std::unique_ptr<DataFileReader>> OpenScanDataFile(const TableMetadata& md, io::FileIO& io,
                                                         const DataFile& data,
                                                         std::shared_ptr<const Schema> read_schema,
                                                         const DataReadOptions& options);

// The schema of the key columns `ids` (sorted field ids).
Result<std::shared_ptr<const Schema>> KeySchema(const TableMetadata& md, const Schema& schema,
                                                const std::vector<int32_t>& ids);

// Reads the keys of one equality delete file (through `cache` when set).
Result<std::shared_ptr<const DecodedDeleteKeys>> LoadDeleteKeys(
    io::FileIO& io, const std::string& path, const std::vector<int32_t>& ids,
    const std::shared_ptr<const Schema>& key_schema, const DataReadOptions& read,
    DeleteKeyCache* cache);

// A set of key hashes built from the data side, which delete keys must pass to be kept:
// exact (an open-addressing set of the 64-bit hashes) when small, else a split-block Bloom
// filter (Parquet's layout: 256-bit blocks, 8 bits per key, one cache line per probe) at
// 16 bits per expected key (about 0.05 % false positives). A false positive only keeps a
// delete key that matches nothing; a filter never drops a key that matches.
class KeyFilter {
 public:
  static KeyFilter Exact(int64_t expected_keys);
  static KeyFilter Bloom(int64_t expected_keys);
  void Add(uint64_t hash);
  bool MayContain(uint64_t hash) const;
  bool exact() const { return exact_; }
  size_t memory_bytes() const { return words_.capacity() * sizeof(uint64_t); }

 private:
  void GrowExact();
  bool exact_ = true;
  std::vector<uint64_t> words_;  // exact: slots (0 = empty); bloom: blocks of 4 words
  size_t count_ = 0;
  size_t mask_ = 0;
};

// How one reader applies the equality deletes of one set of field ids.
enum class EqualityMode {
  kMemory,    // every delete key in one in-memory table, probed while rows stream
  kFiltered,  // the same, but only the delete keys that pass the data files' KeyFilter
  kSpilled,   // hash-partitioned runs on disk, resolved before reading into positions
};

// The equality deletes a reader's tasks use with one set of field ids.
struct EqualityGroup {
  std::vector<int32_t> ids;  // sorted
  std::shared_ptr<const Schema> key_schema;
  std::vector<const ScanFile*> deletes;        // distinct files
  std::vector<std::vector<uint32_t>> applies;  // by task: indexes into `deletes`
  EqualityMode mode = EqualityMode::kMemory;
  int partitions = 1;                 // kSpilled: runs per side
  std::unique_ptr<KeyFilter> filter;  // kFiltered and kSpilled
};

// Groups the tasks' equality deletes by field ids and chooses each group's mode from the
// record counts and the budget. kCorrupt for a delete file without equality ids or a field
// in no schema.
Result<std::vector<EqualityGroup>> PlanEqualityGroups(const TableMetadata& md, const Schema& schema,
                                                      const std::vector<FileScanTask>& tasks,
                                                      const EqualityDeleteOptions& options);

// Builds the key filter of a kFiltered or kSpilled group from the key columns of its
// tasks' data files and, for kSpilled, computes the equality-deleted positions of every task
// into (*positions)[task] through hash-partitioned runs under options.spill_dir.
Status ResolveEqualityGroup(const TableMetadata& md, io::FileIO& io,
                            const std::vector<FileScanTask>& tasks, const DataReadOptions& read,
                            const EqualityDeleteOptions& options, EqualityGroup& group,
                            std::vector<format::puffin::PositionBitmap>* positions,
                            EqualityDeleteStats* stats);

}  // namespace internal
}  // namespace floe::iceberg
