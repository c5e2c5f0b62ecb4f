// Memory-bounded equality deletes: a CDC history of upserts (equality deletes plus the new
// rows in one commit, as a Flink upsert job commits) read with no budget, with a budget
// that forces the key filter, and with one so small that every group spills. Each read
// must return exactly the model (key -> latest value, kept by the test from the operations
// it performed, per the spec's sequence-number rule: a delete removes rows of strictly
// older commits only) and the same rows as the unbounded read.
#include "floe/iceberg/equality_deletes.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "floe/base/testing.h"
#include "floe/columnar/builder.h"
#include "floe/iceberg/data_writer.h"
#include "floe/iceberg/delete_writer.h"
#include "floe/iceberg/equality_key.h"
#include "floe/iceberg/in_memory_table_operations.h"
#include "floe/iceberg/scan.h"
#include "floe/iceberg/snapshot_producer.h"
#include "floe/iceberg/table.h"
#include "floe/iceberg/table_metadata_builder.h"
#include "floe/io/memory_file_io.h"

namespace floe::iceberg {
namespace {

namespace col = floe::columnar;
using testing::FixedCommitEnvironment;
using testing::InMemoryTableOperations;

using Model = std::map<int64_t, std::string>;

class EqualityDeletesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    schema_ = *Schema::Make(
        {NestedField::Required(1, "id", LongType()), NestedField::Optional(2, "v", StringType())});
    auto md = TableMetadataBuilder::NewTable(
        schema_, PartitionSpec::Unpartitioned(), SortOrder::Unsorted(), "mem://wh/db/t",
        {{"format-version", "2"}}, "9c12d441-03fe-4693-9a96-a0705ddf69c1", 1700000000000);
    FLOE_ASSERT_OK(md);
    auto ops = InMemoryTableOperations::Create("db.t", io_, env_, *md);
    FLOE_ASSERT_OK(ops);
    ops_ = std::move(*ops);
    auto t = Table::Load(*ops_);
    FLOE_ASSERT_OK(t);
    table_ = std::move(*t);
    spill_dir_ = std::filesystem::temp_directory_path() /
                 ("floe-eqdelete-test-" + std::to_string(::getpid()));
  }
  void TearDown() override { std::filesystem::remove_all(spill_dir_); }

  col::RecordBatch Batch(const Model& rows) {
    col::SchemaPtr cs = std::make_shared<col::Schema>(schema_.ToColumnar());
    col::FixedWidthBuilder<int64_t> id(cs->field(0).type);
    col::BinaryBuilder v(cs->field(1).type);
    for (const auto& [k, value] : rows) {
      id.Append(k);
      v.Append(value);
    }
    std::vector<col::Array> cols;
    cols.push_back(id.Finish());
    cols.push_back(v.Finish());
    return col::RecordBatch(cs, static_cast<int64_t>(rows.size()), std::move(cols));
  }

  FileWriterOptions Options() {
    FileWriterOptions o;
    o.table_location = table_->metadata()->location;
    o.properties = table_->metadata()->properties;
    o.operation_id = env_.NewUuid();
    return o;
  }

  std::vector<DataFile> WriteData(const Model& rows) {
    auto w = DataWriter::Make(&io_, schema_, PartitionSpec::Unpartitioned(), SortOrder::Unsorted(),
                              false, Options());
    FLOE_EXPECT_OK(w);
    FLOE_EXPECT_OK((*w)->Write(Batch(rows)));
    auto files = (*w)->Close();
    FLOE_EXPECT_OK(files);
    return *files;
  }

  std::vector<DataFile> WriteDeletes(const Model& keys) {
    auto eq =
        EqualityDeleteWriter::Make(&io_, schema_, {1}, PartitionSpec::Unpartitioned(), Options());
    FLOE_EXPECT_OK(eq);
    FLOE_EXPECT_OK((*eq)->Write(Batch(keys)));
    auto deletes = (*eq)->Close();
    FLOE_EXPECT_OK(deletes);
    return deletes->delete_files;
  }

  void Append(const Model& rows) {
    auto op = table_->NewAppend();
    for (const DataFile& f : WriteData(rows)) op->AppendFile(f);
    FLOE_ASSERT_OK(op->Commit());
    for (const auto& [k, v] : rows) model_[k] = v;
  }

  // Deletes of `deleted` keys plus the `rows` (whose keys are deleted too, as an upsert
  // does) in one commit: the new rows have the delete's sequence number and survive it.
  void Commit(const Model& rows, const Model& deleted) {
    Model keys = deleted;
    for (const auto& [k, v] : rows) keys[k] = v;
    auto delta = table_->NewRowDelta();
    for (const DataFile& f : WriteDeletes(keys)) delta->AddDeletes(f);
    if (!rows.empty()) {
      for (const DataFile& f : WriteData(rows)) delta->AddRows(f);
    }
    Status st = delta->Commit();
    FLOE_ASSERT_OK(st);
    for (const auto& [k, v] : deleted) model_.erase(k);
    for (const auto& [k, v] : rows) model_[k] = v;
  }

  Model Read(const EqualityDeleteOptions& options, EqualityDeleteStats* stats = nullptr) {
    Model out;
    FLOE_EXPECT_OK(table_->Refresh());
    ScanOptions scan_options;
    scan_options.equality_deletes = options;
    auto scan = TableScan::Make(table_->metadata(), io_, scan_options);
    FLOE_EXPECT_OK(scan);
    auto tasks = (*scan)->PlanFiles();
    FLOE_EXPECT_OK(tasks);
    auto reader = (*scan)->Open(*tasks);
    FLOE_EXPECT_OK(reader);
    while (true) {
      auto b = (*reader)->Next();
      FLOE_EXPECT_OK(b);
      if (!b.ok() || !b->has_value()) break;
      const col::RecordBatch& batch = **b;
      for (int64_t i = 0; i < batch.num_rows(); ++i) {
        int64_t id = batch.column(0).Value<int64_t>(i);
        EXPECT_FALSE(out.contains(id)) << "duplicate key " << id;
        out[id] = std::string(batch.column(1).BinaryValue(i));
      }
    }
    if (stats != nullptr) *stats = (*reader)->equality_stats();
    return out;
  }

  // A CDC history: a base, upserts of existing and new keys (some keys several times),
  // deletes of present keys, and deletes of keys never written (the backlog of a source
  // that deletes more than this table holds).
  void WriteHistory(int commits, int absent_deletes_per_commit) {
    Model base;
    for (int64_t k = 0; k < 2000; ++k) base[k] = "base-" + std::to_string(k);
    Append(base);
    std::mt19937_64 rng(42);
    int64_t absent = 1'000'000;
    for (int c = 0; c < commits; ++c) {
      Model rows;
      Model deleted;
      for (int i = 0; i < 30; ++i) {
        int64_t k = static_cast<int64_t>(rng() % 2400);
        rows[k] = "c" + std::to_string(c) + "-" + std::to_string(k);
      }
      for (int i = 0; i < 5; ++i) {
        int64_t k = static_cast<int64_t>(rng() % 2400);
        if (!rows.contains(k)) deleted[k] = "";
      }
      for (int i = 0; i < absent_deletes_per_commit; ++i) deleted[absent++] = "";
      Commit(rows, deleted);
    }
  }

  io::MemoryFileIO io_;
  FixedCommitEnvironment env_;
  Schema schema_;
  std::unique_ptr<InMemoryTableOperations> ops_;
  std::unique_ptr<Table> table_;
  Model model_;
  std::filesystem::path spill_dir_;
};

TEST_F(EqualityDeletesTest, EveryModeReadsTheModel) {
  WriteHistory(40, 200);
  const Model unbounded = Read({});
  EXPECT_EQ(unbounded, model_);

  // 8000 absent delete keys against ~3200 data rows: too many to hold under 1 MiB, but the
  // data keys' filter lets through only those that can match.
  EqualityDeleteOptions filtered;
  filtered.max_memory_bytes = 1 << 20;
  EqualityDeleteStats fstats;
  EXPECT_EQ(Read(filtered, &fstats), model_);
  EXPECT_EQ(fstats.filtered_groups, 1);
  EXPECT_EQ(fstats.spilled_groups, 0);
  EXPECT_GT(fstats.delete_keys_read, 8000);
  // Upserted and deleted keys pass; absent ones only as Bloom false positives.
  EXPECT_LT(fstats.delete_keys_kept, 1400 + 100);

  // A budget of 4 KiB: every key goes through runs on disk.
  EqualityDeleteOptions spilled;
  spilled.max_memory_bytes = 4096;
  spilled.spill_dir = spill_dir_.string();
  EqualityDeleteStats sstats;
  EXPECT_EQ(Read(spilled, &sstats), model_);
  EXPECT_EQ(sstats.spilled_groups, 1);
  EXPECT_GT(sstats.spill_partitions, 1);
  EXPECT_GT(sstats.spilled_bytes, 0);
  // The runs are gone.
  EXPECT_TRUE(std::filesystem::is_empty(spill_dir_));
}

TEST_F(EqualityDeletesTest, SmallBacklogStaysInMemory) {
  WriteHistory(5, 0);
  EqualityDeleteOptions options;
  options.max_memory_bytes = 64 << 20;
  EqualityDeleteStats stats;
  EXPECT_EQ(Read(options, &stats), model_);
  EXPECT_EQ(stats.filtered_groups + stats.spilled_groups, 0);
}

TEST_F(EqualityDeletesTest, CacheSharesDecodedDeletes) {
  WriteHistory(10, 10);
  DeleteKeyCache cache(64 << 20);
  EqualityDeleteOptions options;
  options.cache = &cache;
  EXPECT_EQ(Read(options), model_);
  const int64_t misses = cache.misses();
  EXPECT_EQ(misses, 10);  // one per delete file
  EXPECT_EQ(Read(options), model_);
  EXPECT_EQ(cache.misses(), misses);
  EXPECT_EQ(cache.hits(), 10);
}

TEST(KeyFilterTest, NeverDropsAnAddedKey) {
  for (bool exact : {true, false}) {
    internal::KeyFilter f =
        exact ? internal::KeyFilter::Exact(10) : internal::KeyFilter::Bloom(10000);
    std::mt19937_64 rng(1);
    std::vector<uint64_t> added;
    for (int i = 0; i < 10000; ++i) added.push_back(rng());
    added.push_back(0);
    for (uint64_t h : added) f.Add(h);
    for (uint64_t h : added) EXPECT_TRUE(f.MayContain(h));
    int false_positives = 0;
    for (int i = 0; i < 100000; ++i) false_positives += f.MayContain(rng()) ? 1 : 0;
    if (exact) {
      EXPECT_EQ(false_positives, 0);
    } else {
      EXPECT_LT(false_positives, 100000 / 100);  // well under 1 %
    }
  }
}

}  // namespace
}  // namespace floe::iceberg
