// KeyedBatchWriter over an in-memory table: the ops of a keyed topic's rows (registry_cdc.h)
// turned into one commit's equality deletes and last rows per key (Iceberg spec, Row-level
// deletes; the upsert contract of Flink's writer), or, in position mode, into position
// deletes / deletion vectors of the keys' earlier rows found in the key index
// (key_index.h), read back at every snapshot by the table scan (which applies deletes as
// the spec says).
#include "floe/ingest/keyed_batch_writer.h"

#include <gtest/gtest.h>

#include "floe/base/testing.h"
#include "floe/columnar/builder.h"
#include "floe/iceberg/data_reader.h"
#include "floe/iceberg/data_writer.h"
#include "floe/iceberg/delete_writer.h"
#include "floe/iceberg/in_memory_table_operations.h"
#include "floe/iceberg/metadata_updates.h"
#include "floe/iceberg/scan.h"
#include "floe/iceberg/snapshot_producer.h"
#include "floe/iceberg/table_metadata_builder.h"
#include "floe/ingest/registry_cdc.h"

#include <unistd.h>

#include <filesystem>
#include <map>
#include <set>
#include <tuple>
#include "floe/io/memory_file_io.h"

namespace floe::ingest {
namespace {

namespace col = floe::columnar;
using iceberg::NestedField;
using iceberg::testing::FixedCommitEnvironment;
using iceberg::testing::InMemoryTableOperations;

class KeyedBatchWriterTest : public ::testing::Test {
 protected:
  void SetUp() override { MakeTable(2); }

  void MakeTable(int format_version) {
    schema_ = *iceberg::Schema::Make({NestedField::Required(1, "id", iceberg::LongType()),
                                      NestedField::Optional(2, "v", iceberg::StringType())},
                                     0, {1});
    auto md = iceberg::TableMetadataBuilder::NewTable(
        schema_, iceberg::PartitionSpec::Unpartitioned(), iceberg::SortOrder::Unsorted(),
        "mem://wh/t", {{"format-version", std::to_string(format_version)}},
        "9c12d441-03fe-4693-9a96-a0705ddf69c1", 1700000000000);
    FLOE_ASSERT_OK(md);
    auto ops = InMemoryTableOperations::Create("t", io_, env_, *md);
    FLOE_ASSERT_OK(ops);
    ops_ = std::move(*ops);
    auto table = iceberg::Table::Load(*ops_);
    FLOE_ASSERT_OK(table);
    table_ = std::move(*table);
  }

  col::RecordBatch Batch(const std::vector<std::pair<int64_t, std::string>>& rows) {
    auto cs = std::make_shared<col::Schema>(schema_.ToColumnar());
    col::FixedWidthBuilder<int64_t> id(cs->field(0).type);
    col::BinaryBuilder v(cs->field(1).type);
    for (const auto& [i, s] : rows) {
      id.Append(i);
      v.Append(s);
    }
    std::vector<col::Array> cols;
    cols.push_back(id.Finish());
    cols.push_back(v.Finish());
    return col::RecordBatch(cs, static_cast<int64_t>(rows.size()), std::move(cols));
  }

  // "id=v" per row of the files, as read back.
  std::vector<std::string> Read(const std::vector<iceberg::DataFile>& files,
                                const iceberg::Schema& schema) {
    std::vector<std::string> out;
    for (const iceberg::DataFile& f : files) {
      auto r = iceberg::DataFileReader::Open(
          io_, f.file_path, std::make_shared<const iceberg::Schema>(schema), {}, nullptr);
      FLOE_EXPECT_OK(r);
      while (true) {
        auto b = (*r)->Next();
        if (!b.ok() || !*b) break;
        const col::RecordBatch& batch = (*b)->batch;
        for (int64_t i = 0; i < batch.num_rows(); ++i) {
          std::string row = std::to_string(batch.column(0).Value<int64_t>(i));
          if (batch.num_columns() > 1) row += "=" + std::string(batch.column(1).BinaryValue(i));
          out.push_back(row);
        }
      }
    }
    std::sort(out.begin(), out.end());
    return out;
  }

  iceberg::Schema schema_;
  io::MemoryFileIO io_;
  FixedCommitEnvironment env_;
  std::unique_ptr<InMemoryTableOperations> ops_;
  std::unique_ptr<iceberg::Table> table_;
};

TEST_F(KeyedBatchWriterTest, OpsDecideTheLastRowPerKey) {
  KeyedBatchWriter w("db.t", {"id"});
  EXPECT_TRUE(w.empty());
  const std::vector<char> ops1 = {kOpUpsert, kOpUpsert, kOpDelete};
  FLOE_ASSERT_OK(w.Hold(Batch({{1, "a"}, {2, "b"}, {2, "b-"}}), ops1));
  const std::vector<char> ops2 = {kOpUpsert, kOpDelete, kOpUpsert};
  FLOE_ASSERT_OK(w.Hold(Batch({{2, "b2"}, {1, "a-"}, {3, "c"}}), ops2));
  EXPECT_FALSE(w.empty());
  auto written = w.Write(*table_, /*positional=*/false);
  FLOE_ASSERT_OK(written);
  EXPECT_TRUE(w.empty());
  EXPECT_EQ(written->data_rows, 2);
  ASSERT_EQ(written->delete_files.size(), 1u);
  EXPECT_EQ(written->delete_files[0].equality_ids, std::vector<int32_t>{1});
  const iceberg::Schema keys =
      *iceberg::Schema::Make({NestedField::Required(1, "id", iceberg::LongType())});
  EXPECT_EQ(Read(written->delete_files, keys), (std::vector<std::string>{"1", "2", "3"}));
  EXPECT_EQ(Read(written->data_files, schema_), (std::vector<std::string>{"2=b2", "3=c"}));
  // The data files are the table's: under its location.
  ASSERT_EQ(written->data_files.size(), 1u);
  EXPECT_EQ(written->data_files[0].file_path.rfind("mem://wh/t/data/", 0), 0u);
}

TEST_F(KeyedBatchWriterTest, Refusals) {
  KeyedBatchWriter w("db.t", {"id", "missing"});
  const std::vector<char> one = {kOpUpsert};
  EXPECT_EQ(w.Hold(Batch({{1, "a"}, {2, "b"}}), one).code(), StatusCode::kInternal);
  FLOE_ASSERT_OK(w.Hold(Batch({{1, "a"}}), one));
  Result<KeyedCommitFiles> written = w.Write(*table_, /*positional=*/false);
  EXPECT_EQ(written.status().code(), StatusCode::kFailedPrecondition);
  EXPECT_EQ(written.status().message(), "table db.t lacks an id column of id, missing");
}

// Position mode: commits as the translator makes them (translator.cc, CommitUpTo), the key
// index told of each one.
class PositionModeTest : public KeyedBatchWriterTest, public ::testing::WithParamInterface<int> {
 protected:
  void SetUp() override {
    MakeTable(GetParam());
    dir_ = std::filesystem::temp_directory_path() /
           ("floe-key-index-" + std::to_string(::getpid()) + "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::remove_all(dir_);
    store_ = OpenStore(dir_);
  }
  void TearDown() override {
    store_.reset();
    std::filesystem::remove_all(dir_);
  }

  static std::unique_ptr<KeyIndexStore> OpenStore(const std::filesystem::path& dir) {
    KeyIndexOptions o;
    o.dir = dir.string();
    o.memory_bytes = int64_t{16} << 20;
    auto store = KeyIndexStore::Open(o);
    EXPECT_TRUE(store.ok()) << store.status().ToString();
    return store.ok() ? std::move(*store) : nullptr;
  }

  // Holds `rows` (op 'U' or 'D' each) and commits them; the table's files afterwards.
  void Commit(KeyedBatchWriter& w,
              const std::vector<std::tuple<char, int64_t, std::string>>& rows) {
    std::vector<std::pair<int64_t, std::string>> values;
    std::vector<char> ops;
    for (const auto& [op, id, v] : rows) {
      values.emplace_back(id, v);
      ops.push_back(op == 'D' ? kOpDelete : kOpUpsert);
    }
    FLOE_ASSERT_OK(w.Hold(Batch(values), ops));
    auto written = w.Write(*table_, /*positional=*/true);
    FLOE_ASSERT_OK(written);
    ASSERT_TRUE(written->positional.has_value());
    for (const iceberg::DataFile& f : written->delete_files) {
      EXPECT_EQ(f.content, iceberg::FileContent::kPositionDeletes) << f.file_path;
      EXPECT_FALSE(f.equality_ids.has_value());
    }
    auto delta = table_->NewRowDelta();
    for (const auto& f : written->data_files) delta->AddRows(f);
    for (const auto& f : written->delete_files) delta->AddDeletes(f);
    for (const auto& f : written->positional->rewritten_delete_files) delta->RemoveDeletes(f);
    if (written->positional->base_snapshot_id) {
      delta->ValidateFromSnapshot(*written->positional->base_snapshot_id);
    }
    delta->ValidateDataFilesExist(written->positional->referenced_data_files);
    FLOE_ASSERT_OK(delta->Commit());
    const iceberg::Snapshot* s = table_->metadata()->current_snapshot();
    FLOE_ASSERT_OK(w.Committed(*written->positional, s->snapshot_id, s->parent_snapshot_id));
  }

  // "id=v" of every live row, deletes applied by the scan.
  std::vector<std::string> Scan() {
    std::vector<std::string> out;
    auto scan = iceberg::TableScan::Make(table_->metadata(), io_, {});
    FLOE_EXPECT_OK(scan);
    auto tasks = (*scan)->PlanFiles();
    FLOE_EXPECT_OK(tasks);
    for (const auto& t : *tasks) {
      EXPECT_TRUE(t.equality_deletes.empty());
      // v3: one deletion vector per data file (spec, "Deletion Vectors").
      if (GetParam() >= 3) {
        EXPECT_LE(t.position_deletes.size(), 1u);
      }
    }
    auto reader = (*scan)->Open(*tasks);
    FLOE_EXPECT_OK(reader);
    while (true) {
      auto b = (*reader)->Next();
      FLOE_EXPECT_OK(b);
      if (!b.ok() || !*b) break;
      for (int64_t i = 0; i < (*b)->num_rows(); ++i) {
        out.push_back(std::to_string((*b)->column(0).Value<int64_t>(i)) + "=" +
                      std::string((*b)->column(1).BinaryValue(i)));
      }
    }
    std::sort(out.begin(), out.end());
    return out;
  }

  static std::vector<std::string> Rows(const std::map<int64_t, std::string>& model) {
    std::vector<std::string> out;
    for (const auto& [id, v] : model) out.push_back(std::to_string(id) + "=" + v);
    std::sort(out.begin(), out.end());
    return out;
  }

  std::filesystem::path dir_;
  std::unique_ptr<KeyIndexStore> store_;
};

TEST_P(PositionModeTest, EverySnapshotReadsAsTheModelWithoutEqualityDeletes) {
  KeyedBatchWriter w("db.t", {"id"}, store_.get());
  std::map<int64_t, std::string> model;
  Commit(w, {{'U', 1, "a"}, {'U', 2, "b"}, {'U', 3, "c"}, {'U', 4, "d"}, {'U', 5, "e"}});
  model = {{1, "a"}, {2, "b"}, {3, "c"}, {4, "d"}, {5, "e"}};
  EXPECT_EQ(Scan(), Rows(model));
  // Upserts of old keys, a delete, a key twice in one commit (its last row wins), a new key.
  Commit(w, {{'U', 2, "b1"}, {'D', 3, ""}, {'U', 6, "f"}, {'U', 2, "b2"}, {'U', 4, "d1"}});
  model[2] = "b2";
  model.erase(3);
  model[6] = "f";
  model[4] = "d1";
  EXPECT_EQ(Scan(), Rows(model));
  // A reinsert of the deleted key, a delete of a key written in the last commit, an upsert
  // then a delete of one key in one commit, an upsert of a key replaced before.
  Commit(w, {{'U', 3, "c1"}, {'D', 6, ""}, {'U', 5, "e1"}, {'D', 5, ""}, {'U', 4, "d2"}});
  model[3] = "c1";
  model.erase(6);
  model.erase(5);
  model[4] = "d2";
  EXPECT_EQ(Scan(), Rows(model));
  // Deleting a key that was never written deletes nothing.
  Commit(w, {{'D', 42, ""}, {'U', 1, "a1"}});
  model[1] = "a1";
  EXPECT_EQ(Scan(), Rows(model));
  const KeyIndexStats stats = store_->stats();
  EXPECT_EQ(stats.rebuilds, 0);  // a new table's index starts empty: nothing to read
  EXPECT_EQ(stats.catch_ups, 0);
}

TEST_P(PositionModeTest, ALostIndexIsRebuiltFromTheTable) {
  std::map<int64_t, std::string> model = {{1, "a"}, {2, "b"}, {3, "c"}};
  {
    KeyedBatchWriter w("db.t", {"id"}, store_.get());
    Commit(w, {{'U', 1, "a"}, {'U', 2, "b"}, {'U', 3, "c"}});
    Commit(w, {{'U', 2, "b1"}, {'D', 3, ""}});
  }
  model[2] = "b1";
  model.erase(3);
  // The index directory is gone (a new machine, a deleted disk).
  store_.reset();
  std::filesystem::remove_all(dir_);
  store_ = OpenStore(dir_);
  KeyedBatchWriter w("db.t", {"id"}, store_.get());
  Commit(w, {{'U', 2, "b2"}, {'U', 1, "a1"}, {'U', 3, "c1"}});
  model[2] = "b2";
  model[1] = "a1";
  model[3] = "c1";
  EXPECT_EQ(Scan(), Rows(model));
  EXPECT_EQ(store_->stats().rebuilds, 1);
  // A restart with the index kept: no rebuild, no catch-up.
  store_.reset();
  store_ = OpenStore(dir_);
  KeyedBatchWriter again("db.t", {"id"}, store_.get());
  Commit(again, {{'D', 1, ""}});
  model.erase(1);
  EXPECT_EQ(Scan(), Rows(model));
  EXPECT_EQ(store_->stats().rebuilds, 0);
  EXPECT_EQ(store_->stats().catch_ups, 0);
}

TEST_P(PositionModeTest, CommitsOfOtherWritersAreCaughtUp) {
  KeyedBatchWriter w("db.t", {"id"}, store_.get());
  std::map<int64_t, std::string> model = {{1, "a"}, {2, "b"}};
  Commit(w, {{'U', 1, "a"}, {'U', 2, "b"}});
  // Another writer appends keys 7 and 8.
  {
    iceberg::FileWriterOptions o;
    o.table_location = table_->metadata()->location;
    o.operation_id = "11111111-2222-4333-8444-555555555555";
    auto dw = iceberg::DataWriter::Make(&io_, schema_, iceberg::PartitionSpec::Unpartitioned(),
                                        iceberg::SortOrder(), false, o);
    FLOE_ASSERT_OK(dw);
    FLOE_ASSERT_OK((*dw)->Write(Batch({{7, "g"}, {8, "h"}})));
    auto files = (*dw)->Close();
    FLOE_ASSERT_OK(files);
    auto append = table_->NewAppend();
    for (const auto& f : *files) append->AppendFile(f);
    FLOE_ASSERT_OK(append->Commit());
  }
  model[7] = "g";
  model[8] = "h";
  // An optimizer-like rewrite of every live row into one file, every delete file dropped.
  auto rewrite_all = [&] {
    const iceberg::TableMetadataPtr md = table_->metadata();
    auto scan = iceberg::TableScan::Make(md, io_, {});
    FLOE_ASSERT_OK(scan);
    auto tasks = (*scan)->PlanFiles();
    FLOE_ASSERT_OK(tasks);
    auto reader = (*scan)->Open(*tasks);
    FLOE_ASSERT_OK(reader);
    iceberg::FileWriterOptions o;
    o.table_location = md->location;
    o.operation_id = "66666666-2222-4333-8444-555555555555";
    auto dw = iceberg::DataWriter::Make(&io_, schema_, iceberg::PartitionSpec::Unpartitioned(),
                                        iceberg::SortOrder(), false, o);
    FLOE_ASSERT_OK(dw);
    while (true) {
      auto b = (*reader)->Next();
      FLOE_ASSERT_OK(b);
      if (!*b) break;
      FLOE_ASSERT_OK((*dw)->Write(**b));
    }
    auto files = (*dw)->Close();
    FLOE_ASSERT_OK(files);
    auto rewrite = table_->NewRewrite();
    std::set<std::string> dropped;
    for (const auto& t : *tasks) {
      rewrite->DeleteFile(t.data->file);
      for (const auto& d : t.position_deletes) {
        if (dropped
                .insert(d->file.file_path + "@" +
                        std::to_string(d->file.content_offset.value_or(-1)))
                .second) {
          rewrite->DeleteDeleteFile(d->file);
        }
      }
    }
    for (const auto& f : *files) rewrite->AddFile(f);
    rewrite->ValidateFromSnapshot(*md->current_snapshot_id);
    FLOE_ASSERT_OK(rewrite->Commit());
  };
  Commit(w, {{'U', 7, "g1"}, {'D', 1, ""}});
  model[7] = "g1";
  model.erase(1);
  EXPECT_EQ(Scan(), Rows(model));
  EXPECT_EQ(store_->stats().catch_ups, 1);
  rewrite_all();
  EXPECT_EQ(Scan(), Rows(model));
  // The rewritten files' rows now live in the rewrite's file: the index reads it.
  Commit(w, {{'U', 8, "h1"}, {'U', 2, "b1"}, {'D', 7, ""}});
  model[8] = "h1";
  model[2] = "b1";
  model.erase(7);
  EXPECT_EQ(Scan(), Rows(model));
  EXPECT_EQ(store_->stats().catch_ups, 2);
  EXPECT_EQ(store_->stats().rebuilds, 0);
}

TEST_P(PositionModeTest, ACommitRacingARewriteOfItsFilesFails) {
  KeyedBatchWriter w("db.t", {"id"}, store_.get());
  Commit(w, {{'U', 1, "a"}, {'U', 2, "b"}});
  const std::vector<char> ops = {kOpUpsert};
  FLOE_ASSERT_OK(w.Hold(Batch({{1, "a1"}}), ops));
  auto written = w.Write(*table_, /*positional=*/true);
  FLOE_ASSERT_OK(written);
  ASSERT_EQ(written->positional->referenced_data_files.size(), 1u);
  // Meanwhile the file holding key 1 is rewritten (its rows copied as they are).
  {
    const iceberg::TableMetadataPtr md = table_->metadata();
    auto scan = iceberg::TableScan::Make(md, io_, {});
    FLOE_ASSERT_OK(scan);
    auto tasks = (*scan)->PlanFiles();
    FLOE_ASSERT_OK(tasks);
    ASSERT_EQ(tasks->size(), 1u);
    auto rewrite = table_->NewRewrite();
    rewrite->DeleteFile((*tasks)[0].data->file);
    iceberg::DataFile copy = (*tasks)[0].data->file;
    copy.file_path += ".copy";
    auto bytes = io_.ReadFile((*tasks)[0].data->file.file_path);
    FLOE_ASSERT_OK(bytes);
    auto out = io_.CreateOutput(copy.file_path, false);
    FLOE_ASSERT_OK(out);
    FLOE_ASSERT_OK((*out)->Write(bytes->data(), bytes->size()));
    FLOE_ASSERT_OK((*out)->Close());
    rewrite->AddFile(copy);
    FLOE_ASSERT_OK(rewrite->Commit());
  }
  auto delta = table_->NewRowDelta();
  for (const auto& f : written->data_files) delta->AddRows(f);
  for (const auto& f : written->delete_files) delta->AddDeletes(f);
  delta->ValidateFromSnapshot(*written->positional->base_snapshot_id);
  delta->ValidateDataFilesExist(written->positional->referenced_data_files);
  // Committing would keep the rewrite's copy of key 1 beside the new row: refused.
  EXPECT_EQ(delta->Commit().code(), StatusCode::kConflict);
  EXPECT_EQ(Scan(), (std::vector<std::string>{"1=a", "2=b"}));
}

// A table upgraded from v2 to v3 keeps its position delete files; the first DV of such a
// data file must merge them (readers ignore a data file's position delete files once it has
// a DV), and the file-scoped ones leave the table.
TEST_P(PositionModeTest, ADeletionVectorMergesTheFilesEarlierPositionDeletes) {
  if (GetParam() != 2) GTEST_SKIP() << "starts from a v2 table";
  KeyedBatchWriter w("db.t", {"id"}, store_.get());
  Commit(w, {{'U', 1, "a"}, {'U', 2, "b"}, {'U', 3, "c"}});
  Commit(w, {{'D', 2, ""}});  // a Parquet position delete of key 2's row
  const std::string data_path = [&] {
    auto scan = iceberg::TableScan::Make(table_->metadata(), io_, {});
    auto tasks = (*scan)->PlanFiles();
    EXPECT_EQ(tasks->size(), 1u);
    EXPECT_EQ((*tasks)[0].position_deletes.size(), 1u);
    EXPECT_EQ((*tasks)[0].position_deletes[0]->file.file_format, iceberg::FileFormat::kParquet);
    return (*tasks)[0].data->file.file_path;
  }();
  auto upgrade = table_->NewUpgradeFormatVersion();
  upgrade->Version(3);
  FLOE_ASSERT_OK(upgrade->Commit());
  // Key 3 replaced: the file's one DV holds both deletes; the Parquet file is gone.
  Commit(w, {{'U', 3, "c1"}});
  EXPECT_EQ(Scan(), (std::vector<std::string>{"1=a", "3=c1"}));
  auto after = iceberg::TableScan::Make(table_->metadata(), io_, {});
  FLOE_ASSERT_OK(after);
  auto planned = (*after)->PlanFiles();
  FLOE_ASSERT_OK(planned);
  bool found = false;
  for (const auto& t : *planned) {
    if (t.data->file.file_path != data_path) continue;
    found = true;
    ASSERT_EQ(t.position_deletes.size(), 1u);
    EXPECT_EQ(t.position_deletes[0]->file.file_format, iceberg::FileFormat::kPuffin);
    EXPECT_EQ(t.position_deletes[0]->file.record_count, 2);
  }
  EXPECT_TRUE(found);
}

INSTANTIATE_TEST_SUITE_P(FormatVersions, PositionModeTest, ::testing::Values(2, 3),
                         [](const auto& info) { return "v" + std::to_string(info.param); });

}  // namespace
}  // namespace floe::ingest
