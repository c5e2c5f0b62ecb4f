#include "floe/ingest/key_index.h"

#include <rocksdb/cache.h>
#include <rocksdb/db.h>
#include <rocksdb/filter_policy.h>
#include <rocksdb/options.h>
#include <rocksdb/table.h>
#include <rocksdb/write_batch.h>
#include <rocksdb/write_buffer_manager.h>

#include <algorithm>
#include <filesystem>
#include <set>
#include <system_error>

#include "floe/base/bytes.h"
#include "floe/base/macros.h"
#include "floe/format/puffin/deletion_vector.h"
#include "floe/iceberg/delete_writer.h"
#include "floe/iceberg/equality_key.h"
#include "floe/iceberg/manifest_cache.h"
#include "floe/iceberg/manifest_reader.h"
#include "floe/iceberg/scan.h"
#include "floe/iceberg/snapshot_producer.h"

namespace floe::ingest {

namespace {

// Entry kinds after the 16-byte table prefix (key_index.h).
constexpr char kMetaKind = 0;
constexpr char kFileKind = 1;
constexpr char kRowKind = 2;

// Decoded manifests kept for the plans of keyed commits: the live files of a table topic's
// table change by a few per commit, so most of each plan is cached.
constexpr int64_t kManifestCacheEntries = 200000;

Status FromRocks(const rocksdb::Status& s, std::string_view what) {
  if (s.ok()) return Status::OK();
  return Status::IOError("key index: {}: {}", what, s.ToString());
}

void AppendVarint(uint64_t v, std::string* out) {
  uint8_t buf[10];
  const size_t n = EncodeVarint64(v, buf);
  out->append(reinterpret_cast<const char*>(buf), n);
}

// "0f1e...-..." -> 16 bytes. kFailedPrecondition for a table without a UUID (v1 tables may
// lack one; keyed topics need v2).
Result<std::string> UuidBytes(const iceberg::TableMetadata& md) {
  if (!md.table_uuid) return Status::FailedPrecondition("table has no table-uuid");
  std::string out;
  int nibble = -1;
  for (char c : *md.table_uuid) {
    if (c == '-') continue;
    const int v = HexDigitValue(c);
    if (v < 0) return Status::Corrupt("table-uuid '{}' is not a UUID", *md.table_uuid);
    if (nibble < 0) {
      nibble = v;
    } else {
      out.push_back(static_cast<char>(nibble << 4 | v));
      nibble = -1;
    }
  }
  if (out.size() != 16 || nibble >= 0) {
    return Status::Corrupt("table-uuid '{}' is not a UUID", *md.table_uuid);
  }
  return out;
}

// The data files `snapshot` added (ADDED entries of its own manifests), in manifest order.
Result<std::vector<iceberg::DataFile>> AddedDataFiles(const iceberg::TableMetadata& md,
                                                      io::FileIO& io,
                                                      const iceberg::Snapshot& snapshot) {
  std::vector<iceberg::DataFile> out;
  if (snapshot.manifest_list.empty()) return out;
  FLOE_ASSIGN_OR_RETURN(std::vector<iceberg::ManifestFile> manifests,
                        iceberg::ReadSnapshotManifests(snapshot, io));
  for (const iceberg::ManifestFile& m : manifests) {
    if (m.content != iceberg::ManifestContent::kData) continue;
    if (m.added_snapshot_id != snapshot.snapshot_id) continue;
    if (m.added_files_count && *m.added_files_count == 0) continue;
    FLOE_ASSIGN_OR_RETURN(
        std::vector<iceberg::ManifestEntry> entries,
        iceberg::ReadManifestEntries(md, m, io, iceberg::ManifestEntryFilter::kAdded,
                                     /*read_stats=*/false));
    for (iceberg::ManifestEntry& e : entries) {
      if (e.snapshot_id && *e.snapshot_id != snapshot.snapshot_id) continue;
      out.push_back(std::move(e.data_file));
    }
  }
  return out;
}

}  // namespace

// The index writes of one prepared commit, applied by Committed.
struct PositionalDeletes::Update {
  rocksdb::WriteBatch batch;
  std::vector<std::pair<uint32_t, std::string>> new_files;
  std::vector<uint32_t> dead_files;  // numbers of files no longer live at the base snapshot
  std::string uuid;
  std::optional<int64_t> base_snapshot_id;
};

Result<std::unique_ptr<KeyIndexStore>> KeyIndexStore::Open(const KeyIndexOptions& options) {
  if (options.dir.empty()) return Status::InvalidArgument("key index: no directory");
  if (options.memory_bytes < (int64_t{8} << 20)) {
    return Status::InvalidArgument("key index: memory-bytes must be at least 8 MiB, not {}",
                                   options.memory_bytes);
  }
  std::error_code ec;
  std::filesystem::create_directories(options.dir, ec);
  if (ec) return Status::IOError("key index: cannot create {}: {}", options.dir, ec.message());

  std::unique_ptr<KeyIndexStore> store(new KeyIndexStore());
  store->memory_limit_ = options.memory_bytes;
  store->dir_ = options.dir;
  // One budget: the block cache holds data, index and filter blocks, and the memtables are
  // charged to it (WriteBufferManager), so the index's memory is the cache's capacity.
  store->cache_ = rocksdb::NewLRUCache(static_cast<size_t>(options.memory_bytes));
  rocksdb::Options o;
  o.create_if_missing = true;
  o.write_buffer_manager = std::make_shared<rocksdb::WriteBufferManager>(
      static_cast<size_t>(options.memory_bytes / 4), store->cache_);
  o.write_buffer_size =
      static_cast<size_t>(std::min<int64_t>(int64_t{64} << 20, options.memory_bytes / 8));
  o.max_write_buffer_number = 3;
  o.compression = rocksdb::kLZ4Compression;
  o.max_open_files = 512;
  o.keep_log_file_num = 2;
  o.max_log_file_size = size_t{4} << 20;
  o.info_log_level = rocksdb::WARN_LEVEL;
  rocksdb::BlockBasedTableOptions t;
  t.block_cache = store->cache_;
  t.cache_index_and_filter_blocks = true;
  t.pin_l0_filter_and_index_blocks_in_cache = true;
  // Upserts of new keys (most CDC inserts) miss: the filter answers them without a read.
  t.filter_policy.reset(rocksdb::NewBloomFilterPolicy(10));
  t.block_size = 16 << 10;
  o.table_factory.reset(rocksdb::NewBlockBasedTableFactory(t));
  rocksdb::DB* db = nullptr;
  FLOE_RETURN_IF_ERROR(FromRocks(rocksdb::DB::Open(o, options.dir, &db), "open " + options.dir));
  store->db_.reset(db);
  store->manifests_ = std::make_unique<iceberg::ManifestEntryCache>(kManifestCacheEntries);
  return store;
}

KeyIndexStore::~KeyIndexStore() {
  if (db_) (void)db_->Close();
}

KeyIndexStats KeyIndexStore::stats() const {
  KeyIndexStats s;
  uint64_t v = 0;
  s.memory_limit_bytes = memory_limit_;
  s.memory_bytes = static_cast<int64_t>(cache_->GetUsage());
  if (db_->GetIntProperty("rocksdb.estimate-table-readers-mem", &v)) {
    s.memory_bytes += static_cast<int64_t>(v);
  }
  if (db_->GetIntProperty("rocksdb.cur-size-all-mem-tables", &v)) {
    s.memtable_bytes = static_cast<int64_t>(v);
  }
  // The directory, not just the SSTs: until a memtable is flushed its keys are only in the
  // write-ahead log.
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator(dir_, ec)) {
    std::error_code size_ec;
    const uintmax_t size = e.file_size(size_ec);
    if (!size_ec && e.is_regular_file(size_ec)) s.disk_bytes += static_cast<int64_t>(size);
  }
  if (db_->GetIntProperty("rocksdb.estimate-num-keys", &v)) s.keys = static_cast<int64_t>(v);
  s.rebuilds = rebuilds_.load();
  s.catch_ups = catch_ups_.load();
  s.files_read = files_read_.load();
  return s;
}

TableKeyIndex::~TableKeyIndex() = default;

std::string TableKeyIndex::RowKey(std::string_view key) const {
  std::string k;
  k.reserve(17 + key.size());
  k += uuid_;
  k.push_back(kRowKind);
  k += key;
  return k;
}

Status TableKeyIndex::Load(const iceberg::TableMetadata& md) {
  FLOE_ASSIGN_OR_RETURN(std::string uuid, UuidBytes(md));
  if (loaded_ && uuid == uuid_) return Status::OK();
  if (loaded_) {
    // The topic's table was dropped and created again under its name: the old one's
    // entries would never be read again.
    FLOE_RETURN_IF_ERROR(Erase(uuid_));
  }
  uuid_ = std::move(uuid);
  loaded_ = false;
  snapshot_id_.reset();
  next_file_ = 1;
  paths_.clear();
  numbers_.clear();
  rocksdb::DB& db = *store_->db_;
  std::string meta;
  rocksdb::Status got = db.Get(rocksdb::ReadOptions(), uuid_ + kMetaKind, &meta);
  bool has_meta = false;
  if (got.ok()) {
    ByteReader r(meta);
    FLOE_ASSIGN_OR_RETURN(uint8_t has_snapshot, r.ReadByte());
    FLOE_ASSIGN_OR_RETURN(uint64_t snapshot, r.ReadVarint64());
    FLOE_ASSIGN_OR_RETURN(uint32_t next, r.ReadVarint32());
    if (has_snapshot) snapshot_id_ = static_cast<int64_t>(snapshot);
    next_file_ = std::max<uint32_t>(next, 1);
    has_meta = true;
  } else if (!got.IsNotFound()) {
    return FromRocks(got, "read meta");
  }
  const std::string prefix = uuid_ + kFileKind;
  std::unique_ptr<rocksdb::Iterator> it(db.NewIterator(rocksdb::ReadOptions()));
  for (it->Seek(prefix); it->Valid() && it->key().starts_with(prefix); it->Next()) {
    ByteReader r(
        std::string_view(it->key().data() + prefix.size(), it->key().size() - prefix.size()));
    FLOE_ASSIGN_OR_RETURN(uint32_t number, r.ReadVarint32());
    std::string path = it->value().ToString();
    // Numbers only grow: one written before a crash that lost the meta is never reused.
    next_file_ = std::max(next_file_, number + 1);
    numbers_[path] = number;
    paths_[number] = std::move(path);
  }
  FLOE_RETURN_IF_ERROR(FromRocks(it->status(), "read files"));
  if (!has_meta) snapshot_id_.reset();
  loaded_ = true;
  return Status::OK();
}

Status TableKeyIndex::WriteMeta(rocksdb::WriteBatch* batch, std::optional<int64_t> snapshot_id) {
  std::string meta;
  meta.push_back(snapshot_id ? 1 : 0);
  AppendVarint(static_cast<uint64_t>(snapshot_id.value_or(0)), &meta);
  AppendVarint(next_file_, &meta);
  return FromRocks(batch->Put(uuid_ + kMetaKind, meta), "write meta");
}

uint32_t TableKeyIndex::FileNumber(const std::string& path, rocksdb::WriteBatch* batch) {
  if (auto it = numbers_.find(path); it != numbers_.end()) return it->second;
  const uint32_t n = next_file_++;
  std::string key = uuid_ + kFileKind;
  AppendVarint(n, &key);
  (void)batch->Put(key, path);
  numbers_[path] = n;
  paths_[n] = path;
  return n;
}

Status TableKeyIndex::IndexFiles(iceberg::Table& table, const std::vector<iceberg::DataFile>& files,
                                 rocksdb::WriteBatch* batch) {
  const iceberg::TableMetadataPtr md = table.metadata();
  std::string value;
  for (const iceberg::DataFile& f : files) {
    if (f.content != iceberg::FileContent::kData) continue;
    const uint32_t number = FileNumber(f.file_path, batch);
    FLOE_RETURN_IF_ERROR(iceberg::ReadRowKeys(
        *md, table.io(), f, key_ids_, [&](const iceberg::RowKeyBatch& keys) -> Status {
          for (size_t i = 0; i < keys.size(); ++i) {
            value.clear();
            AppendVarint(number, &value);
            AppendVarint(static_cast<uint64_t>(keys.first_position + static_cast<int64_t>(i)),
                         &value);
            FLOE_RETURN_IF_ERROR(FromRocks(batch->Put(RowKey(keys.key(i)), value), "put"));
          }
          return Status::OK();
        }));
    ++store_->files_read_;
    // One write per file keeps the batch's memory to one file's keys; a crash in between
    // leaves the meta at the old snapshot, and reading the files again is idempotent.
    FLOE_RETURN_IF_ERROR(FromRocks(store_->db_->Write(rocksdb::WriteOptions(), batch), "write"));
    batch->Clear();
  }
  return Status::OK();
}

Status TableKeyIndex::Rebuild(iceberg::Table& table) {
  const iceberg::TableMetadataPtr md = table.metadata();
  rocksdb::DB& db = *store_->db_;
  // Everything of this table but the meta, which moves last.
  FLOE_RETURN_IF_ERROR(FromRocks(db.DeleteRange(rocksdb::WriteOptions(), db.DefaultColumnFamily(),
                                                uuid_ + kFileKind, uuid_ + char(kRowKind + 1)),
                                 "clear"));
  paths_.clear();
  numbers_.clear();
  std::vector<iceberg::DataFile> files;
  if (md->current_snapshot_id) {
    iceberg::ScanOptions options;
    options.snapshot_id = md->current_snapshot_id;
    options.manifest_cache = store_->manifests_.get();
    FLOE_ASSIGN_OR_RETURN(auto scan, iceberg::TableScan::Make(md, table.io(), options));
    FLOE_ASSIGN_OR_RETURN(std::vector<iceberg::FileScanTask> tasks, scan->PlanFiles());
    // Data sequence order: a key's last written row is its live one (key_index.h).
    std::stable_sort(tasks.begin(), tasks.end(),
                     [](const iceberg::FileScanTask& a, const iceberg::FileScanTask& b) {
                       return a.data->data_sequence_number < b.data->data_sequence_number;
                     });
    for (const iceberg::FileScanTask& t : tasks) files.push_back(t.data->file);
  }
  rocksdb::WriteBatch batch;
  FLOE_RETURN_IF_ERROR(IndexFiles(table, files, &batch));
  FLOE_RETURN_IF_ERROR(WriteMeta(&batch, md->current_snapshot_id));
  FLOE_RETURN_IF_ERROR(FromRocks(db.Write(rocksdb::WriteOptions(), &batch), "write"));
  snapshot_id_ = md->current_snapshot_id;
  ++store_->rebuilds_;
  return Status::OK();
}

Status TableKeyIndex::Sync(iceberg::Table& table) {
  const iceberg::TableMetadataPtr md = table.metadata();
  FLOE_RETURN_IF_ERROR(Load(*md));
  const std::optional<int64_t> current = md->current_snapshot_id;
  if (snapshot_id_ == current) return Status::OK();
  if (!snapshot_id_ || !current) return Rebuild(table);
  // The snapshots after the index's, oldest first; none when it is not an ancestor.
  std::vector<const iceberg::Snapshot*> newer;
  bool found = false;
  for (const iceberg::Snapshot* s : md->Ancestors(*current)) {
    if (s->snapshot_id == *snapshot_id_) {
      found = true;
      break;
    }
    newer.push_back(s);
  }
  if (!found) return Rebuild(table);
  rocksdb::WriteBatch batch;
  for (auto it = newer.rbegin(); it != newer.rend(); ++it) {
    FLOE_ASSIGN_OR_RETURN(std::vector<iceberg::DataFile> added,
                          AddedDataFiles(*md, table.io(), **it));
    FLOE_RETURN_IF_ERROR(IndexFiles(table, added, &batch));
  }
  FLOE_RETURN_IF_ERROR(WriteMeta(&batch, current));
  FLOE_RETURN_IF_ERROR(FromRocks(store_->db_->Write(rocksdb::WriteOptions(), &batch), "write"));
  snapshot_id_ = current;
  ++store_->catch_ups_;
  return Status::OK();
}

Result<PositionalDeletes> TableKeyIndex::Prepare(iceberg::Table& table,
                                                 const iceberg::KeyedPositionalResult& written) {
  // Held: Sync reads this metadata; a commit elsewhere replaces the table's.
  const iceberg::TableMetadataPtr md = table.metadata();
  if (md->format_version < 2) {
    return Status::FailedPrecondition("position deletes need format version 2 or 3; table {} is v1",
                                      table.name());
  }
  FLOE_RETURN_IF_ERROR(Sync(table));
  PositionalDeletes out;
  out.base_snapshot_id = md->current_snapshot_id;
  auto update = std::make_shared<PositionalDeletes::Update>();
  update->uuid = uuid_;
  update->base_snapshot_id = md->current_snapshot_id;

  // Where the commit's keys live now.
  std::map<std::string, std::vector<int64_t>, std::less<>> positions;  // by data file path
  const size_t keys = written.key_ends.size();
  if (md->current_snapshot_id && keys > 0) {
    std::vector<std::string> row_keys;
    row_keys.reserve(keys);
    for (size_t k = 0; k < keys; ++k) row_keys.push_back(RowKey(written.key(k)));
    std::vector<rocksdb::Slice> slices(row_keys.begin(), row_keys.end());
    std::vector<rocksdb::PinnableSlice> values(keys);
    std::vector<rocksdb::Status> statuses(keys);
    store_->db_->MultiGet(rocksdb::ReadOptions(), store_->db_->DefaultColumnFamily(), keys,
                          slices.data(), values.data(), statuses.data());
    for (size_t k = 0; k < keys; ++k) {
      if (statuses[k].IsNotFound()) continue;
      FLOE_RETURN_IF_ERROR(FromRocks(statuses[k], "lookup"));
      ByteReader r(std::string_view(values[k].data(), values[k].size()));
      FLOE_ASSIGN_OR_RETURN(uint32_t number, r.ReadVarint32());
      FLOE_ASSIGN_OR_RETURN(uint64_t pos, r.ReadVarint64());
      auto path = paths_.find(number);
      if (path == paths_.end()) continue;  // a file no longer live: the key has no row there
      positions[path->second].push_back(static_cast<int64_t>(pos));
    }
  }

  if (!positions.empty()) {
    iceberg::ScanOptions options;
    options.snapshot_id = md->current_snapshot_id;
    options.manifest_cache = store_->manifests_.get();
    FLOE_ASSIGN_OR_RETURN(auto scan, iceberg::TableScan::Make(md, table.io(), options));
    FLOE_ASSIGN_OR_RETURN(std::vector<iceberg::FileScanTask> tasks, scan->PlanFiles());
    std::set<std::string_view> live;
    for (const iceberg::FileScanTask& t : tasks) live.insert(t.data->file.file_path);
    for (const auto& [number, path] : paths_) {
      if (!live.contains(path)) update->dead_files.push_back(number);
    }
    iceberg::FileWriterOptions w;
    w.table_location = md->location;
    w.properties = md->properties;
    w.operation_id = table.operations().env().NewUuid();
    const bool dv = md->format_version >= 3;
    std::unique_ptr<iceberg::PositionDeleteWriter> pos_writer;
    std::unique_ptr<iceberg::DeletionVectorWriter> dv_writer;
    if (dv) {
      FLOE_ASSIGN_OR_RETURN(dv_writer, iceberg::DeletionVectorWriter::Make(&table.io(), w));
    } else {
      FLOE_ASSIGN_OR_RETURN(pos_writer, iceberg::PositionDeleteWriter::Make(&table.io(), w));
    }
    Status st = [&]() -> Status {
      for (const iceberg::FileScanTask& t : tasks) {
        const iceberg::DataFile& data = t.data->file;
        auto it = positions.find(data.file_path);
        if (it == positions.end()) continue;
        const iceberg::PartitionSpec* spec = md->spec_by_id(data.spec_id);
        if (spec == nullptr) {
          return Status::Corrupt("data file {} has unknown spec {}", data.file_path, data.spec_id);
        }
        out.referenced_data_files.push_back(data.file_path);
        out.deleted_rows += static_cast<int64_t>(it->second.size());
        if (!dv) {
          FLOE_RETURN_IF_ERROR(
              pos_writer->Delete(data.file_path, it->second, *spec, data.partition));
          continue;
        }
        FLOE_RETURN_IF_ERROR(dv_writer->Delete(data.file_path, it->second, *spec, data.partition));
        // One DV per data file (spec): the new one merges the file's previous deletes.
        format::puffin::PositionBitmap previous;
        std::vector<iceberg::DataFile> previous_files;
        FLOE_RETURN_IF_ERROR(
            iceberg::LoadPreviousDeletes(table.io(), t, &previous, &previous_files));
        if (!previous.empty() || !previous_files.empty()) {
          FLOE_RETURN_IF_ERROR(
              dv_writer->MergePrevious(data.file_path, previous, std::move(previous_files)));
        }
      }
      iceberg::DeleteWriteResult result;
      if (dv) {
        FLOE_ASSIGN_OR_RETURN(result, dv_writer->Close());
      } else {
        FLOE_ASSIGN_OR_RETURN(result, pos_writer->Close());
      }
      out.delete_files = std::move(result.delete_files);
      out.rewritten_delete_files = std::move(result.rewritten_delete_files);
      return Status::OK();
    }();
    if (!st.ok()) {
      if (dv_writer) (void)dv_writer->Abort();
      if (pos_writer) (void)pos_writer->Abort();
      return st;
    }
    std::sort(out.referenced_data_files.begin(), out.referenced_data_files.end());
  }

  // The index writes, applied once the commit lands: new file numbers, each key's new row
  // or its removal, and the file numbers of files no longer live.
  std::vector<uint32_t> numbers(written.file_paths.size());
  for (size_t f = 0; f < written.file_paths.size(); ++f) {
    numbers[f] = next_file_++;
    std::string key = uuid_ + kFileKind;
    AppendVarint(numbers[f], &key);
    FLOE_RETURN_IF_ERROR(FromRocks(update->batch.Put(key, written.file_paths[f]), "put"));
    update->new_files.emplace_back(numbers[f], written.file_paths[f]);
  }
  std::string value;
  for (size_t k = 0; k < keys; ++k) {
    const std::string row_key = RowKey(written.key(k));
    if (!written.key_written[k]) {
      FLOE_RETURN_IF_ERROR(FromRocks(update->batch.Delete(row_key), "delete"));
      continue;
    }
    const iceberg::RowLocation& loc = written.key_locations[k];
    if (loc.file >= numbers.size()) return Status::Internal("row location names file {}", loc.file);
    value.clear();
    AppendVarint(numbers[loc.file], &value);
    AppendVarint(static_cast<uint64_t>(loc.position), &value);
    FLOE_RETURN_IF_ERROR(FromRocks(update->batch.Put(row_key, value), "put"));
  }
  for (uint32_t number : update->dead_files) {
    std::string key = uuid_ + kFileKind;
    AppendVarint(number, &key);
    FLOE_RETURN_IF_ERROR(FromRocks(update->batch.Delete(key), "delete"));
  }
  out.update = std::move(update);
  return out;
}

Status TableKeyIndex::Committed(const PositionalDeletes& deletes, int64_t snapshot_id,
                                std::optional<int64_t> parent_snapshot_id) {
  PositionalDeletes::Update& u = *deletes.update;
  if (u.uuid != uuid_ || snapshot_id_ != u.base_snapshot_id) {
    // The index moved since Prepare (it cannot within one round); the next sync reads the
    // commit's files instead.
    return Status::OK();
  }
  const std::optional<int64_t> described = parent_snapshot_id == u.base_snapshot_id
                                               ? std::optional<int64_t>(snapshot_id)
                                               : u.base_snapshot_id;
  FLOE_RETURN_IF_ERROR(WriteMeta(&u.batch, described));
  FLOE_RETURN_IF_ERROR(FromRocks(store_->db_->Write(rocksdb::WriteOptions(), &u.batch), "write"));
  for (const auto& [number, path] : u.new_files) {
    numbers_[path] = number;
    paths_[number] = path;
  }
  for (uint32_t number : u.dead_files) {
    auto it = paths_.find(number);
    if (it == paths_.end()) continue;
    numbers_.erase(it->second);
    paths_.erase(it);
  }
  snapshot_id_ = described;
  return Status::OK();
}

Status TableKeyIndex::Erase(const std::string& uuid) {
  rocksdb::DB& db = *store_->db_;
  return FromRocks(db.DeleteRange(rocksdb::WriteOptions(), db.DefaultColumnFamily(),
                                  uuid + kMetaKind, uuid + char(kRowKind + 1)),
                   "erase");
}

}  // namespace floe::ingest
