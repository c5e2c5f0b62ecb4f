#include "floe/iceberg/equality_deletes.h"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <map>
#include <utility>

#include "floe/base/macros.h"
#include "floe/iceberg/equality_key.h"
#include "floe/iceberg/name_mapping.h"
#include "floe/iceberg/partition_spec.h"

namespace floe::iceberg {

// ---------------------------------------------------------------------------------------
// DeleteKeyCache

std::shared_ptr<const DecodedDeleteKeys> DeleteKeyCache::Find(const std::string& key) {
  std::lock_guard lock(mu_);
  auto it = index_.find(key);
  if (it == index_.end()) {
    ++misses_;
    return nullptr;
  }
  ++hits_;
  lru_.splice(lru_.begin(), lru_, it->second);
  return it->second->second;
}

void DeleteKeyCache::Insert(const std::string& key, std::shared_ptr<const DecodedDeleteKeys> keys) {
  const auto size = static_cast<int64_t>(keys->memory_bytes());
  if (size > capacity_bytes_ / 4) return;
  std::lock_guard lock(mu_);
  if (index_.contains(key)) return;
  lru_.emplace_front(key, std::move(keys));
  index_[key] = lru_.begin();
  bytes_ += size;
  while (bytes_ > capacity_bytes_ && !lru_.empty()) {
    bytes_ -= static_cast<int64_t>(lru_.back().second->memory_bytes());
    index_.erase(lru_.back().first);
    lru_.pop_back();
  }
}

int64_t DeleteKeyCache::hits() const {
  std::lock_guard lock(mu_);
  return hits_;
}
int64_t DeleteKeyCache::misses() const {
  std::lock_guard lock(mu_);
  return misses_;
}
int64_t DeleteKeyCache::bytes() const {
  std::lock_guard lock(mu_);
  return bytes_;
}

namespace internal {

// ---------------------------------------------------------------------------------------
// Keys

const NestedField* FindAnyField(const TableMetadata& md, const Schema& schema, int32_t id) {
  if (const NestedField* f = schema.FindField(id)) return f;
  for (const Schema& s : md.schemas) {
    if (const NestedField* f = s.FindField(id)) return f;
  }
  return nullptr;
}

Result<std::unique_ptr<DataFileReader>> OpenScanDataFile(const TableMetadata& md, io::FileIO& io,
                                                         const DataFile& data,
                                                         std::shared_ptr<const Schema> read_schema,
                                                         const DataReadOptions& options) {
  // Identity-partition values stand in for source columns missing from the file.
  std::map<int32_t, Literal> constants;
  if (const PartitionSpec* spec = md.spec_by_id(data.spec_id)) {
    for (size_t i = 0; i < spec->fields().size() && i < data.partition.size(); ++i) {
      const PartitionField& pf = spec->fields()[i];
      if (pf.transform.kind() == TransformKind::kIdentity) {
        constants.emplace(pf.source_id, data.partition[i]);
      }
    }
  }
  NameMapping mapping;
  const NameMapping* mapping_ptr = nullptr;
  if (auto it = md.properties.find("schema.name-mapping.default"); it != md.properties.end()) {
    Result<NameMapping> parsed = NameMapping::FromJson(it->second);
    if (!parsed.ok()) {
      return Status::InvalidArgument("table property schema.name-mapping.default: {}",
                                     parsed.status().message());
    }
    mapping = std::move(*parsed);
    mapping_ptr = &mapping;
  }
  return DataFileReader::Open(io, data.file_path, std::move(read_schema), std::move(constants),
                              mapping_ptr, options);
}

Result<std::shared_ptr<const Schema>> KeySchema(const TableMetadata& md, const Schema& schema,
                                                const std::vector<int32_t>& ids) {
  std::vector<NestedField> key_fields;
  for (int32_t id : ids) {
    const NestedField* f = FindAnyField(md, schema, id);
    if (f == nullptr) return Status::Corrupt("equality field {} is in no schema of the table", id);
    key_fields.push_back(*f);
  }
  FLOE_ASSIGN_OR_RETURN(Schema key_schema, Schema::Make(key_fields));
  return std::make_shared<const Schema>(std::move(key_schema));
}

Result<std::shared_ptr<const DecodedDeleteKeys>> LoadDeleteKeys(
    io::FileIO& io, const std::string& path, const std::vector<int32_t>& ids,
    const std::shared_ptr<const Schema>& key_schema, const DataReadOptions& read,
    DeleteKeyCache* cache) {
  std::string cache_key;
  if (cache != nullptr) {
    cache_key = path;
    for (int32_t id : ids) cache_key += fmt::format("\x1f{}", id);
    if (auto hit = cache->Find(cache_key)) return hit;
  }
  auto keys = std::make_shared<DecodedDeleteKeys>();
  FLOE_ASSIGN_OR_RETURN(std::unique_ptr<DataFileReader> r,
                        DataFileReader::Open(io, path, key_schema, {}, nullptr, read));
  while (true) {
    FLOE_ASSIGN_OR_RETURN(std::optional<PositionedBatch> b, r->Next());
    if (!b) break;
    FLOE_ASSIGN_OR_RETURN(std::vector<Located> cols, LocateAll(b->batch, ids));
    for (int64_t i = 0; i < b->batch.num_rows(); ++i) {
      const size_t begin = keys->arena.size();
      AppendKey(cols, i, &keys->arena);
      if (keys->arena.size() > UINT32_MAX) {
        return Status::InvalidArgument("{}: equality delete keys over 4 GiB in one file", path);
      }
      keys->ends.push_back(static_cast<uint32_t>(keys->arena.size()));
      keys->hashes.push_back(EqualityKeyTable::Hash(
          std::string_view(keys->arena).substr(begin, keys->arena.size() - begin)));
    }
  }
  keys->arena.shrink_to_fit();
  keys->ends.shrink_to_fit();
  keys->hashes.shrink_to_fit();
  if (cache != nullptr) cache->Insert(cache_key, keys);
  return std::shared_ptr<const DecodedDeleteKeys>(std::move(keys));
}

// ---------------------------------------------------------------------------------------
// KeyFilter

namespace {

size_t RoundUpPow2(size_t n) {
  size_t p = 1;
  while (p < n) p <<= 1;
  return p;
}

// Parquet's split-block Bloom filter salts (parquet-format BloomFilter.md).
constexpr uint32_t kSalts[8] = {0x47b6137bU, 0x44974d91U, 0x8824ad5bU, 0xa2b7289dU,
                                0x705495c7U, 0x2df1424bU, 0x9efc4947U, 0x5c6bfb31U};

}  // namespace

KeyFilter KeyFilter::Exact(int64_t expected_keys) {
  KeyFilter f;
  f.exact_ = true;
  f.words_.assign(RoundUpPow2(static_cast<size_t>(std::max<int64_t>(expected_keys, 8)) * 2), 0);
  f.mask_ = f.words_.size() - 1;
  return f;
}

KeyFilter KeyFilter::Bloom(int64_t expected_keys) {
  KeyFilter f;
  f.exact_ = false;
  // 16 bits per key; a block is 256 bits = 4 words.
  const size_t blocks = RoundUpPow2(
      std::max<size_t>(1, static_cast<size_t>(std::max<int64_t>(expected_keys, 1)) * 16 / 256));
  f.words_.assign(blocks * 4, 0);
  f.mask_ = blocks - 1;
  return f;
}

void KeyFilter::GrowExact() {
  std::vector<uint64_t> old = std::move(words_);
  words_.assign(old.size() * 2, 0);
  mask_ = words_.size() - 1;
  for (uint64_t h : old) {
    if (h == 0) continue;
    size_t pos = h & mask_;
    while (words_[pos] != 0) pos = (pos + 1) & mask_;
    words_[pos] = h;
  }
}

void KeyFilter::Add(uint64_t hash) {
  if (exact_) {
    if (hash == 0) hash = 1;  // 0 marks an empty slot
    if ((count_ + 1) * 2 > words_.size()) GrowExact();
    size_t pos = hash & mask_;
    for (; words_[pos] != 0; pos = (pos + 1) & mask_) {
      if (words_[pos] == hash) return;
    }
    words_[pos] = hash;
    ++count_;
    return;
  }
  uint64_t* block = &words_[((hash >> 32) & mask_) * 4];
  const auto low = static_cast<uint32_t>(hash);
  for (int i = 0; i < 8; ++i) {
    const uint32_t bit = (low * kSalts[i]) >> 27;
    block[i / 2] |= uint64_t{1} << ((i % 2) * 32 + bit);
  }
}

bool KeyFilter::MayContain(uint64_t hash) const {
  if (exact_) {
    if (hash == 0) hash = 1;
    for (size_t pos = hash & mask_;; pos = (pos + 1) & mask_) {
      if (words_[pos] == hash) return true;
      if (words_[pos] == 0) return false;
    }
  }
  const uint64_t* block = &words_[((hash >> 32) & mask_) * 4];
  const auto low = static_cast<uint32_t>(hash);
  for (int i = 0; i < 8; ++i) {
    const uint32_t bit = (low * kSalts[i]) >> 27;
    if ((block[i / 2] & (uint64_t{1} << ((i % 2) * 32 + bit))) == 0) return false;
  }
  return true;
}

// ---------------------------------------------------------------------------------------
// Planning the groups

namespace {

// The encoded size of a key of these fields (AppendKey): a marker, then the value.
int64_t EstimateKeyBytes(const Schema& key_schema) {
  int64_t bytes = 0;
  for (const NestedField& f : key_schema.fields()) {
    bytes += 1;
    switch (f.type->kind()) {
      case TypeKind::kBoolean: bytes += 1; break;
      case TypeKind::kInt:
      case TypeKind::kFloat:
      case TypeKind::kDate: bytes += 4; break;
      case TypeKind::kDecimal:
      case TypeKind::kUuid: bytes += 16; break;
      case TypeKind::kString:
      case TypeKind::kBinary:
      case TypeKind::kFixed: bytes += 4 + 24; break;
      default: bytes += 8;
    }
  }
  return bytes;
}

// A table entry beyond its key bytes: the key end (8), two slots at the load limit (16), the
// holders (32), and headroom for the doubling growth.
constexpr int64_t kEntryOverhead = 56;

}  // namespace

Result<std::vector<EqualityGroup>> PlanEqualityGroups(const TableMetadata& md, const Schema& schema,
                                                      const std::vector<FileScanTask>& tasks,
                                                      const EqualityDeleteOptions& options) {
  std::map<std::vector<int32_t>, EqualityGroup> by_ids;
  std::map<std::vector<int32_t>, std::unordered_map<std::string, uint32_t>> indexes;
  for (size_t t = 0; t < tasks.size(); ++t) {
    for (const auto& d : tasks[t].equality_deletes) {
      if (!d->file.equality_ids || d->file.equality_ids->empty()) {
        return Status::Corrupt("equality delete file {} has no equality ids", d->file.file_path);
      }
      std::vector<int32_t> ids = *d->file.equality_ids;
      std::sort(ids.begin(), ids.end());
      EqualityGroup& g = by_ids[ids];
      if (g.ids.empty()) {
        g.ids = ids;
        g.applies.resize(tasks.size());
        FLOE_ASSIGN_OR_RETURN(g.key_schema, KeySchema(md, schema, ids));
      }
      auto [it, added] =
          indexes[ids].emplace(d->file.file_path, static_cast<uint32_t>(g.deletes.size()));
      if (added) g.deletes.push_back(d.get());
      g.applies[t].push_back(it->second);
    }
  }
  std::vector<EqualityGroup> groups;
  for (auto& [ids, g] : by_ids) {
    for (auto& a : g.applies) {
      std::sort(a.begin(), a.end());
      a.erase(std::unique(a.begin(), a.end()), a.end());
    }
    if (options.max_memory_bytes > 0) {
      int64_t data_rows = 0;
      for (size_t t = 0; t < tasks.size(); ++t) {
        if (!g.applies[t].empty()) data_rows += tasks[t].data->file.record_count;
      }
      int64_t delete_rows = 0;
      for (const ScanFile* d : g.deletes) delete_rows += d->file.record_count;
      const int64_t entry = EstimateKeyBytes(*g.key_schema) + kEntryOverhead;
      // Half the budget for the key table and filter; the rest is the reader's batches and
      // the writer's row groups.
      const int64_t budget = options.max_memory_bytes / 2;
      if (delete_rows * entry <= budget && delete_rows <= 2 * data_rows) {
        g.mode = EqualityMode::kMemory;
      } else {
        // Behind a filter of the data keys, at most about one delete key per data row stays.
        const int64_t kept = std::min(delete_rows, data_rows);
        const bool exact = data_rows * 16 <= budget / 8;
        const int64_t filter_bytes = exact ? data_rows * 32 : data_rows * 2;
        g.filter = std::make_unique<KeyFilter>(exact ? KeyFilter::Exact(data_rows)
                                                     : KeyFilter::Bloom(data_rows));
        const int64_t table_budget = std::max<int64_t>(budget - filter_bytes, budget / 4);
        if (kept * entry <= table_budget) {
          g.mode = EqualityMode::kFiltered;
        } else {
          g.mode = EqualityMode::kSpilled;
          int parts = 2;
          while (parts < 256 && kept * entry / parts > table_budget) parts *= 2;
          g.partitions = parts;
        }
      }
    }
    groups.push_back(std::move(g));
  }
  return groups;
}

// ---------------------------------------------------------------------------------------
// Spilling

namespace {

// A private directory for one group's runs, removed with everything in it.
class SpillDir {
 public:
  static Result<std::unique_ptr<SpillDir>> Make(const std::string& parent) {
    std::error_code ec;
    std::filesystem::path base =
        parent.empty() ? std::filesystem::temp_directory_path(ec) : std::filesystem::path(parent);
    if (ec) return Status::Unavailable("no temporary directory: {}", ec.message());
    std::filesystem::create_directories(base, ec);
    if (ec) return Status::Unavailable("spill directory {}: {}", base.string(), ec.message());
    std::string tmpl = (base / "floe-eqdelete-XXXXXX").string();
    if (::mkdtemp(tmpl.data()) == nullptr) {
      return Status::Unavailable("spill directory {}: {}", tmpl, std::strerror(errno));
    }
    return std::unique_ptr<SpillDir>(new SpillDir(tmpl));
  }
  ~SpillDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  const std::string& path() const { return path_; }

 private:
  explicit SpillDir(std::string path) : path_(std::move(path)) {}
  std::string path_;
};

// One run file, written sequentially then read back sequentially, through its own buffer.
class Run {
 public:
  Run(std::string path, size_t buffer_bytes) : path_(std::move(path)), buffer_(buffer_bytes) {}
  Run(const Run&) = delete;
  Run& operator=(const Run&) = delete;
  ~Run() { Close(); }

  Status OpenForWrite() { return Open("wb"); }
  Status OpenForRead() {
    Close();
    return Open("rb");
  }
  Status Write(const void* data, size_t n) {
    if (std::fwrite(data, 1, n, file_) != n) return Error("write");
    bytes_ += static_cast<int64_t>(n);
    return Status::OK();
  }
  // false at a clean end; kCorrupt for a truncated record.
  Result<bool> Read(void* data, size_t n, bool first) {
    const size_t got = std::fread(data, 1, n, file_);
    if (got == n) return true;
    if (got == 0 && first && std::feof(file_)) return false;
    return Status::Corrupt("{}: truncated spill run", path_);
  }
  Status FinishWrite() {
    if (file_ != nullptr && std::fflush(file_) != 0) return Error("flush");
    Close();
    return Status::OK();
  }
  void Remove() {
    Close();
    std::remove(path_.c_str());
  }
  int64_t bytes() const { return bytes_; }

 private:
  Status Open(const char* mode) {
    file_ = std::fopen(path_.c_str(), mode);
    if (file_ == nullptr) return Error("open");
    std::setvbuf(file_, buffer_.data(), _IOFBF, buffer_.size());
    return Status::OK();
  }
  void Close() {
    if (file_ != nullptr) std::fclose(file_);
    file_ = nullptr;
  }
  Status Error(const char* what) {
    return Status::Unavailable("spill run {}: {} failed: {}", path_, what, std::strerror(errno));
  }
  std::string path_;
  std::vector<char> buffer_;
  std::FILE* file_ = nullptr;
  int64_t bytes_ = 0;
};

// Records: data  = hash u64, task u32, position i64, key length u32, key bytes;
//          delete = hash u64, delete file u32, key length u32, key bytes.
struct DataRecordHead {
  uint64_t hash;
  uint32_t task;
  uint32_t key_size;
  int64_t position;
};
struct DeleteRecordHead {
  uint64_t hash;
  uint32_t file;
  uint32_t key_size;
};

// The top bits pick the run: the table's slots use the low bits, so keys of one run still
// spread over the whole table.
size_t RunOf(uint64_t hash, int partitions) {
  return static_cast<size_t>(hash >> 56) & static_cast<size_t>(partitions - 1);
}

}  // namespace

Status ResolveEqualityGroup(const TableMetadata& md, io::FileIO& io,
                            const std::vector<FileScanTask>& tasks, const DataReadOptions& read,
                            const EqualityDeleteOptions& options, EqualityGroup& group,
                            std::vector<format::puffin::PositionBitmap>* positions,
                            EqualityDeleteStats* stats) {
  const bool spill = group.mode == EqualityMode::kSpilled;
  const int parts = spill ? group.partitions : 1;
  std::unique_ptr<SpillDir> dir;
  std::vector<std::unique_ptr<Run>> data_runs;
  std::vector<std::unique_ptr<Run>> delete_runs;
  // Each open run buffers up to 1 MiB; all of them together an eighth of the budget.
  const size_t buffer = std::clamp<size_t>(
      static_cast<size_t>(options.max_memory_bytes / 8 / std::max(parts, 1)), 16 << 10, 1 << 20);
  if (spill) {
    FLOE_ASSIGN_OR_RETURN(dir, SpillDir::Make(options.spill_dir));
    for (int p = 0; p < parts; ++p) {
      data_runs.push_back(std::make_unique<Run>(fmt::format("{}/data-{}", dir->path(), p), buffer));
      delete_runs.push_back(
          std::make_unique<Run>(fmt::format("{}/delete-{}", dir->path(), p), buffer));
    }
    ++stats->spilled_groups;
    stats->spill_partitions += parts;
  } else {
    ++stats->filtered_groups;
  }

  // The data side: every key into the filter and, when spilling, into its run.
  if (spill) {
    for (auto& r : data_runs) FLOE_RETURN_IF_ERROR(r->OpenForWrite());
  }
  std::string key;
  for (size_t t = 0; t < tasks.size(); ++t) {
    if (group.applies[t].empty()) continue;
    FLOE_ASSIGN_OR_RETURN(std::unique_ptr<DataFileReader> reader,
                          OpenScanDataFile(md, io, tasks[t].data->file, group.key_schema, read));
    while (true) {
      FLOE_ASSIGN_OR_RETURN(std::optional<PositionedBatch> b, reader->Next());
      if (!b) break;
      FLOE_ASSIGN_OR_RETURN(std::vector<Located> cols, LocateAll(b->batch, group.ids));
      for (int64_t i = 0; i < b->batch.num_rows(); ++i) {
        key.clear();
        AppendKey(cols, i, &key);
        const uint64_t hash = EqualityKeyTable::Hash(key);
        group.filter->Add(hash);
        if (!spill) continue;
        DataRecordHead head{hash, static_cast<uint32_t>(t), static_cast<uint32_t>(key.size()),
                            b->first_position + i};
        Run& run = *data_runs[RunOf(hash, parts)];
        FLOE_RETURN_IF_ERROR(run.Write(&head, sizeof(head)));
        FLOE_RETURN_IF_ERROR(run.Write(key.data(), key.size()));
      }
    }
  }
  if (!spill) return Status::OK();
  for (auto& r : data_runs) {
    FLOE_RETURN_IF_ERROR(r->FinishWrite());
    stats->spilled_bytes += r->bytes();
  }

  // The delete side: the keys that pass the filter into their runs.
  for (auto& r : delete_runs) FLOE_RETURN_IF_ERROR(r->OpenForWrite());
  for (size_t d = 0; d < group.deletes.size(); ++d) {
    FLOE_ASSIGN_OR_RETURN(std::shared_ptr<const DecodedDeleteKeys> keys,
                          LoadDeleteKeys(io, group.deletes[d]->file.file_path, group.ids,
                                         group.key_schema, read, options.cache));
    stats->delete_keys_read += static_cast<int64_t>(keys->size());
    for (size_t j = 0; j < keys->size(); ++j) {
      const uint64_t hash = keys->hashes[j];
      if (!group.filter->MayContain(hash)) continue;
      ++stats->delete_keys_kept;
      std::string_view k = keys->key(j);
      DeleteRecordHead head{hash, static_cast<uint32_t>(d), static_cast<uint32_t>(k.size())};
      Run& run = *delete_runs[RunOf(hash, parts)];
      FLOE_RETURN_IF_ERROR(run.Write(&head, sizeof(head)));
      FLOE_RETURN_IF_ERROR(run.Write(k.data(), k.size()));
    }
  }
  for (auto& r : delete_runs) {
    FLOE_RETURN_IF_ERROR(r->FinishWrite());
    stats->spilled_bytes += r->bytes();
  }

  // Partition by partition: the delete keys into a table, then the data keys probe it.
  struct Holders {
    uint32_t first;
    std::vector<uint32_t> more;
  };
  for (int p = 0; p < parts; ++p) {
    EqualityKeyTable table;
    std::vector<Holders> holders;
    Run& deletes = *delete_runs[static_cast<size_t>(p)];
    FLOE_RETURN_IF_ERROR(deletes.OpenForRead());
    while (true) {
      DeleteRecordHead head;
      FLOE_ASSIGN_OR_RETURN(bool more, deletes.Read(&head, sizeof(head), true));
      if (!more) break;
      if (head.file >= group.deletes.size()) return Status::Corrupt("spill run: bad delete file");
      key.resize(head.key_size);
      FLOE_ASSIGN_OR_RETURN(bool got, deletes.Read(key.data(), key.size(), false));
      (void)got;
      bool fresh = false;
      const uint32_t entry = table.FindOrAdd(key, head.hash, &fresh);
      if (fresh) {
        holders.push_back({head.file, {}});
        continue;
      }
      Holders& h = holders[entry];
      if (h.first != head.file && (h.more.empty() || h.more.back() != head.file)) {
        h.more.push_back(head.file);
      }
    }
    deletes.Remove();
    stats->peak_table_bytes = std::max<int64_t>(
        stats->peak_table_bytes,
        static_cast<int64_t>(table.memory_bytes() + holders.capacity() * sizeof(Holders)));
    Run& data = *data_runs[static_cast<size_t>(p)];
    FLOE_RETURN_IF_ERROR(data.OpenForRead());
    while (true) {
      DataRecordHead head;
      FLOE_ASSIGN_OR_RETURN(bool more, data.Read(&head, sizeof(head), true));
      if (!more) break;
      if (head.task >= tasks.size()) return Status::Corrupt("spill run: bad task");
      key.resize(head.key_size);
      FLOE_ASSIGN_OR_RETURN(bool got, data.Read(key.data(), key.size(), false));
      (void)got;
      if (table.size() == 0) continue;
      const uint32_t entry = table.Find(key, head.hash);
      if (entry == EqualityKeyTable::kAbsent) continue;
      // Deleted when a file holding the key applies to the row's data file.
      const std::vector<uint32_t>& applies = group.applies[head.task];
      const Holders& h = holders[entry];
      bool deleted = std::binary_search(applies.begin(), applies.end(), h.first);
      for (size_t k = 0; !deleted && k < h.more.size(); ++k) {
        deleted = std::binary_search(applies.begin(), applies.end(), h.more[k]);
      }
      if (deleted) {
        FLOE_RETURN_IF_ERROR((*positions)[head.task].Add(static_cast<uint64_t>(head.position)));
      }
    }
    data.Remove();
  }
  return Status::OK();
}

}  // namespace internal
}  // namespace floe::iceberg
