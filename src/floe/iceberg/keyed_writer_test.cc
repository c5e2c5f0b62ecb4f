// KeyedDeltaWriter, TableUpsert and DeleteWhere over MemoryFileIO and an in-memory table.
// Expected rows follow the Iceberg spec (Row-level deletes: equality deletes match by value,
// null to null, and reach only earlier commits; position deletes and deletion vectors) and
// the upsert contract of Flink / Iceberg Java's BaseEqualityDeltaWriter: of one commit's
// rows with a key, the last one wins, and a delete removes the key.
#include "floe/iceberg/keyed_writer.h"

#include <algorithm>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "floe/base/testing.h"
#include "floe/columnar/builder.h"
#include "floe/columnar/json.h"
#include "floe/iceberg/data_reader.h"
#include "floe/iceberg/in_memory_table_operations.h"
#include "floe/iceberg/row_level_ops.h"
#include "floe/iceberg/scan.h"
#include "floe/iceberg/snapshot_producer.h"
#include "floe/iceberg/table_metadata_builder.h"
#include "floe/io/memory_file_io.h"

namespace floe::iceberg {
namespace {

namespace col = floe::columnar;
using testing::FixedCommitEnvironment;
using testing::InMemoryTableOperations;

// Schema: 1 k string, 2 n long, 3 v string, 4 b bool (all optional: null keys are keys).
Schema TestSchema(std::vector<int32_t> identifier = {}) {
  return *Schema::Make(
      {NestedField::Optional(1, "k", StringType()), NestedField::Optional(2, "n", LongType()),
       NestedField::Optional(3, "v", StringType()), NestedField::Optional(4, "b", BooleanType())},
      0, std::move(identifier));
}

struct Row {
  std::optional<std::string> k;
  std::optional<int64_t> n;
  std::string v;
  std::optional<bool> b;
};

col::RecordBatch Batch(const Schema& schema, const std::vector<Row>& rows) {
  auto cs = std::make_shared<col::Schema>(schema.ToColumnar());
  col::BinaryBuilder k(cs->field(0).type);
  col::FixedWidthBuilder<int64_t> n(cs->field(1).type);
  col::BinaryBuilder v(cs->field(2).type);
  col::BoolBuilder b;
  for (const Row& r : rows) {
    r.k ? k.Append(*r.k) : k.AppendNull();
    r.n ? n.Append(*r.n) : n.AppendNull();
    v.Append(r.v);
    r.b ? b.Append(*r.b) : b.AppendNull();
  }
  std::vector<col::Array> cols;
  cols.push_back(k.Finish());
  cols.push_back(n.Finish());
  cols.push_back(v.Finish());
  cols.push_back(b.Finish());
  return col::RecordBatch(cs, static_cast<int64_t>(rows.size()), std::move(cols));
}

std::vector<std::string> Lines(const col::RecordBatch& batch) {
  std::vector<std::string> out;
  for (int64_t i = 0; i < batch.num_rows(); ++i) {
    std::string line;
    col::AppendJsonLine(batch, i, &line);
    line.pop_back();
    out.push_back(std::move(line));
  }
  return out;
}

// The rows of the files, read as `schema`, sorted.
std::vector<std::string> ReadFiles(io::FileIO& io, const std::vector<DataFile>& files,
                                   const Schema& schema) {
  std::vector<std::string> out;
  for (const DataFile& f : files) {
    auto reader =
        DataFileReader::Open(io, f.file_path, std::make_shared<const Schema>(schema), {}, nullptr);
    FLOE_EXPECT_OK(reader);
    if (!reader.ok()) return out;
    while (true) {
      auto b = (*reader)->Next();
      FLOE_EXPECT_OK(b);
      if (!b.ok() || !*b) break;
      for (std::string& line : Lines((*b)->batch)) out.push_back(std::move(line));
    }
  }
  std::sort(out.begin(), out.end());
  return out;
}

KeyedWriterOptions Options() {
  KeyedWriterOptions o;
  o.deletes.table_location = "mem://wh/t";
  o.deletes.operation_id = "op";
  o.data = o.deletes;
  return o;
}

TEST(KeyedDeltaWriter, LastRowPerKeyAndEveryKeyDeleted) {
  io::MemoryFileIO io;
  const Schema schema = TestSchema();
  auto w = KeyedDeltaWriter::Make(&io, schema, PartitionSpec::Unpartitioned(), {1}, Options());
  FLOE_ASSERT_OK(w);
  const std::vector<KeyedOp> ops1 = {KeyedOp::kUpsert, KeyedOp::kUpsert, KeyedOp::kUpsert};
  FLOE_ASSERT_OK(
      (*w)->Add(Batch(schema, {{"a", 1, "a1", {}}, {"b", 1, "b1", {}}, {"a", 1, "a2", {}}}), ops1));
  // A later batch replaces "b", deletes "a" and adds "c" and "d"; "d" is deleted and then
  // upserted again, "c" upserted and then deleted.
  const std::vector<KeyedOp> ops2 = {KeyedOp::kUpsert, KeyedOp::kDelete, KeyedOp::kUpsert,
                                     KeyedOp::kDelete, KeyedOp::kUpsert, KeyedOp::kDelete};
  FLOE_ASSERT_OK((*w)->Add(Batch(schema, {{"b", 2, "b2", {}},
                                          {"a", 0, "gone", {}},
                                          {"c", 3, "c1", {}},
                                          {"d", 4, "d0", {}},
                                          {"d", 4, "d1", {}},
                                          {"c", 3, "c-", {}}}),
                           ops2));
  EXPECT_EQ((*w)->held_rows(), 9);
  auto written = (*w)->Finish();
  FLOE_ASSERT_OK(written);
  EXPECT_EQ(written->keys, 4);
  EXPECT_EQ(written->data_rows, 2);
  ASSERT_EQ(written->delete_files.size(), 1u);
  const DataFile& deletes = written->delete_files[0];
  EXPECT_EQ(deletes.content, FileContent::kEqualityDeletes);
  EXPECT_EQ(deletes.equality_ids, std::vector<int32_t>{1});
  EXPECT_EQ(deletes.record_count, 4);
  EXPECT_NE(deletes.file_path.find("-deletes.parquet"), std::string::npos);
  const Schema key_schema = *Schema::Make({NestedField::Optional(1, "k", StringType())});
  EXPECT_EQ(
      ReadFiles(io, written->delete_files, key_schema),
      (std::vector<std::string>{R"({"k":"a"})", R"({"k":"b"})", R"({"k":"c"})", R"({"k":"d"})"}));
  EXPECT_EQ(ReadFiles(io, written->data_files, schema),
            (std::vector<std::string>{R"({"k":"b","n":2,"v":"b2","b":null})",
                                      R"({"k":"d","n":4,"v":"d1","b":null})"}));
  EXPECT_FALSE((*w)->Finish().ok());
}

TEST(KeyedDeltaWriter, KeysCompareByValueWithNullsEqual) {
  io::MemoryFileIO io;
  const Schema schema = TestSchema();
  // Composite key (k, b): "a" is not a prefix match of "ab" (lengths are part of the key),
  // a null is a key value of its own, equal to other nulls, and false is not null.
  auto w = KeyedDeltaWriter::Make(&io, schema, PartitionSpec::Unpartitioned(), {1, 4}, Options());
  FLOE_ASSERT_OK(w);
  FLOE_ASSERT_OK((*w)->Add(Batch(schema, {{"ab", 1, "1", false},
                                          {"a", 2, "2", false},
                                          {std::nullopt, 3, "3", std::nullopt},
                                          {std::nullopt, 4, "4", std::nullopt},
                                          {std::nullopt, 5, "5", false},
                                          {"ab", 6, "6", true},
                                          {"ab", 7, "7", false}})));
  auto written = (*w)->Finish();
  FLOE_ASSERT_OK(written);
  EXPECT_EQ(written->keys, 5);
  EXPECT_EQ(ReadFiles(io, written->data_files, schema),
            (std::vector<std::string>{
                R"({"k":"a","n":2,"v":"2","b":false})", R"({"k":"ab","n":6,"v":"6","b":true})",
                R"({"k":"ab","n":7,"v":"7","b":false})", R"({"k":null,"n":4,"v":"4","b":null})",
                R"({"k":null,"n":5,"v":"5","b":false})"}));
}

TEST(KeyedDeltaWriter, RejectsBadKeysAndOps) {
  io::MemoryFileIO io;
  const Schema schema = TestSchema();
  EXPECT_EQ(KeyedDeltaWriter::Make(&io, schema, PartitionSpec::Unpartitioned(), {}, Options())
                .status()
                .code(),
            StatusCode::kInvalidArgument);
  EXPECT_EQ(KeyedDeltaWriter::Make(&io, schema, PartitionSpec::Unpartitioned(), {99}, Options())
                .status()
                .code(),
            StatusCode::kUnimplemented);
  auto w = KeyedDeltaWriter::Make(&io, schema, PartitionSpec::Unpartitioned(), {2}, Options());
  FLOE_ASSERT_OK(w);
  const std::vector<KeyedOp> one = {KeyedOp::kDelete};
  EXPECT_EQ((*w)->Add(Batch(schema, {{"a", 1, "", {}}, {"b", 2, "", {}}}), one).code(),
            StatusCode::kInvalidArgument);
  // No rows: no files, as an empty commit.
  auto written = (*w)->Finish();
  FLOE_ASSERT_OK(written);
  EXPECT_TRUE(written->data_files.empty());
  EXPECT_TRUE(written->delete_files.empty());
}

class RowLevelOpsTest : public ::testing::Test {
 protected:
  void Init(int format_version, bool partitioned = false) {
    const Schema schema = TestSchema({2});
    PartitionSpec spec = partitioned ? *PartitionSpecBuilder(schema).Identity("k").Build()
                                     : PartitionSpec::Unpartitioned();
    auto md = TableMetadataBuilder::NewTable(schema, spec, SortOrder::Unsorted(), "mem://wh/db/t",
                                             {{"format-version", std::to_string(format_version)}},
                                             "9c12d441-03fe-4693-9a96-a0705ddf69c1", 1700000000000);
    FLOE_ASSERT_OK(md);
    auto ops = InMemoryTableOperations::Create("db.t", io_, env_, *md);
    FLOE_ASSERT_OK(ops);
    ops_ = std::move(*ops);
    auto table = Table::Load(*ops_);
    FLOE_ASSERT_OK(table);
    table_ = std::move(*table);
  }

  void Upsert(const std::vector<Row>& rows, std::vector<std::string> key = {}) {
    auto upsert = TableUpsert::Make(table_.get(), key);
    FLOE_ASSERT_OK(upsert);
    FLOE_ASSERT_OK((*upsert)->Add(Batch((*upsert)->schema(), rows)));
    auto result = (*upsert)->Commit();
    FLOE_ASSERT_OK(result);
  }

  void Append(const std::vector<Row>& rows) {
    const TableMetadata& md = *table_->metadata();
    FileWriterOptions o;
    o.table_location = md.location;
    o.operation_id = env_.NewUuid();
    auto w =
        DataWriter::Make(&io_, *md.current_schema(), *md.default_spec(), SortOrder(), false, o);
    FLOE_ASSERT_OK(w);
    FLOE_ASSERT_OK((*w)->Write(Batch(*md.current_schema(), rows)));
    auto files = (*w)->Close();
    FLOE_ASSERT_OK(files);
    auto append = table_->NewAppend();
    for (const DataFile& f : *files) append->AppendFile(f);
    FLOE_ASSERT_OK(append->Commit());
  }

  std::vector<std::string> Scan() {
    FLOE_EXPECT_OK(table_->Refresh());
    auto scan = TableScan::Make(table_->metadata(), io_, {});
    FLOE_EXPECT_OK(scan);
    auto tasks = (*scan)->PlanFiles();
    FLOE_EXPECT_OK(tasks);
    auto reader = (*scan)->Open(std::move(*tasks));
    FLOE_EXPECT_OK(reader);
    std::vector<std::string> out;
    while (true) {
      auto b = (*reader)->Next();
      FLOE_EXPECT_OK(b);
      if (!b.ok() || !*b) break;
      for (std::string& line : Lines(**b)) out.push_back(std::move(line));
    }
    std::sort(out.begin(), out.end());
    return out;
  }

  io::MemoryFileIO io_;
  FixedCommitEnvironment env_;
  std::unique_ptr<InMemoryTableOperations> ops_;
  std::unique_ptr<Table> table_;
};

TEST_F(RowLevelOpsTest, UpsertReplacesRowsOfEarlierCommits) {
  Init(2);
  Upsert({{"a", 1, "a1", {}}, {"b", 2, "b1", {}}, {"a", 1, "a2", {}}});
  EXPECT_EQ(Scan(), (std::vector<std::string>{R"({"k":"a","n":1,"v":"a2","b":null})",
                                              R"({"k":"b","n":2,"v":"b1","b":null})"}));
  // By the identifier field n: the new row of n=1 replaces the committed one.
  Upsert({{"x", 1, "x1", true}, {"c", 3, "c1", {}}});
  EXPECT_EQ(Scan(), (std::vector<std::string>{R"({"k":"b","n":2,"v":"b1","b":null})",
                                              R"({"k":"c","n":3,"v":"c1","b":null})",
                                              R"({"k":"x","n":1,"v":"x1","b":true})"}));
  // By an explicit key.
  Upsert({{"b", 9, "b9", {}}}, {"k"});
  EXPECT_EQ(Scan(), (std::vector<std::string>{R"({"k":"b","n":9,"v":"b9","b":null})",
                                              R"({"k":"c","n":3,"v":"c1","b":null})",
                                              R"({"k":"x","n":1,"v":"x1","b":true})"}));
}

TEST_F(RowLevelOpsTest, UpsertRefusals) {
  Init(1);
  EXPECT_EQ(TableUpsert::Make(table_.get(), {}).status().code(), StatusCode::kFailedPrecondition);
  Init(2, /*partitioned=*/true);
  EXPECT_EQ(TableUpsert::Make(table_.get(), {"nope"}).status().code(),
            StatusCode::kInvalidArgument);
  // Partitioned by k: a key without k could leave a key's rows in two partitions.
  EXPECT_EQ(TableUpsert::Make(table_.get(), {"n"}).status().code(), StatusCode::kInvalidArgument);
  FLOE_EXPECT_OK(TableUpsert::Make(table_.get(), {"k", "n"}));
}

TEST_F(RowLevelOpsTest, DeleteWherePositionDeletesOnV2) {
  Init(2);
  DeleteWhereResult empty = *DeleteWhere(*table_, *ParseExpression("n = 1"));
  EXPECT_EQ(empty.delete_files, 0u);
  Append({{"a", 1, "a", {}}, {"b", 2, "b", {}}, {"c", 3, "c", {}}});
  int64_t progress_calls = 0;
  auto deleted =
      DeleteWhere(*table_, *ParseExpression("n >= 2"), [&](int64_t opened, int64_t total) {
        ++progress_calls;
        EXPECT_LE(opened, total);
      });
  FLOE_ASSERT_OK(deleted);
  EXPECT_EQ(deleted->deleted_rows, 2);
  EXPECT_EQ(deleted->delete_files, 1u);
  EXPECT_FALSE(deleted->deletion_vectors);
  EXPECT_GT(progress_calls, 0);
  EXPECT_EQ(Scan(), (std::vector<std::string>{R"({"k":"a","n":1,"v":"a","b":null})"}));
  // Nothing left to match: no commit.
  const int64_t snapshot = table_->metadata()->current_snapshot()->snapshot_id;
  EXPECT_EQ(DeleteWhere(*table_, *ParseExpression("n = 3"))->delete_files, 0u);
  EXPECT_EQ(table_->metadata()->current_snapshot()->snapshot_id, snapshot);
}

TEST_F(RowLevelOpsTest, DeleteWhereKeepsOneDeletionVectorPerFileOnV3) {
  Init(3);
  Append({{"a", 1, "a", {}}, {"b", 2, "b", {}}, {"c", 3, "c", {}}});
  auto first = DeleteWhere(*table_, *ParseExpression("n = 1"));
  FLOE_ASSERT_OK(first);
  EXPECT_TRUE(first->deletion_vectors);
  auto second = DeleteWhere(*table_, *ParseExpression("n = 2"));
  FLOE_ASSERT_OK(second);
  EXPECT_EQ(second->deleted_rows, 1);
  EXPECT_EQ(Scan(), (std::vector<std::string>{R"({"k":"c","n":3,"v":"c","b":null})"}));
  // The second vector merged the first, which the commit removed.
  FLOE_ASSERT_OK(table_->Refresh());
  const std::string* dvs =
      table_->metadata()->current_snapshot()->SummaryValue("total-position-deletes");
  ASSERT_NE(dvs, nullptr);
  EXPECT_EQ(*dvs, "2");
  const std::string* files =
      table_->metadata()->current_snapshot()->SummaryValue("total-delete-files");
  ASSERT_NE(files, nullptr);
  EXPECT_EQ(*files, "1");
}

}  // namespace
}  // namespace floe::iceberg
