// KeyedBatchWriter over an in-memory table: the ops of a keyed topic's rows (registry_cdc.h)
// turned into one commit's equality deletes and last rows per key (Iceberg spec, Row-level
// deletes; the upsert contract of Flink's writer).
#include "floe/ingest/keyed_batch_writer.h"

#include <gtest/gtest.h>

#include "floe/base/testing.h"
#include "floe/columnar/builder.h"
#include "floe/iceberg/data_reader.h"
#include "floe/iceberg/in_memory_table_operations.h"
#include "floe/iceberg/table_metadata_builder.h"
#include "floe/ingest/registry_cdc.h"
#include "floe/io/memory_file_io.h"

namespace floe::ingest {
namespace {

namespace col = floe::columnar;
using iceberg::NestedField;
using iceberg::testing::FixedCommitEnvironment;
using iceberg::testing::InMemoryTableOperations;

class KeyedBatchWriterTest : public ::testing::Test {
 protected:
  void SetUp() override {
    schema_ = *iceberg::Schema::Make({NestedField::Required(1, "id", iceberg::LongType()),
                                      NestedField::Optional(2, "v", iceberg::StringType())},
                                     0, {1});
    auto md = iceberg::TableMetadataBuilder::NewTable(
        schema_, iceberg::PartitionSpec::Unpartitioned(), iceberg::SortOrder::Unsorted(),
        "mem://wh/t", {{"format-version", "2"}}, "9c12d441-03fe-4693-9a96-a0705ddf69c1",
        1700000000000);
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
  auto written = w.Write(*table_);
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
  Result<iceberg::KeyedWriteResult> written = w.Write(*table_);
  EXPECT_EQ(written.status().code(), StatusCode::kFailedPrecondition);
  EXPECT_EQ(written.status().message(), "table db.t lacks an id column of id, missing");
}

}  // namespace
}  // namespace floe::ingest
