// DeadLetterSink: errors.tolerance routing (docs/table-topics.md, "Errors") and the
// dead-letter commit over an in-memory table; records come from a PartitionReader fed from
// memory.
#include "floe/ingest/dead_letter_sink.h"

#include <gtest/gtest.h>

#include "floe/base/testing.h"
#include "floe/iceberg/in_memory_table_operations.h"
#include "floe/iceberg/scan.h"
#include "floe/iceberg/table.h"
#include "floe/iceberg/table_metadata_builder.h"
#include "floe/io/memory_file_io.h"

namespace floe::ingest {
namespace {

using iceberg::testing::FixedCommitEnvironment;
using iceberg::testing::InMemoryTableOperations;

// A reader holding records of partition 0 at offsets 0..values.size()-1 (key "k", ts 2000).
std::unique_ptr<PartitionReader> Records(std::vector<std::optional<std::string>> values) {
  auto batch = std::make_shared<Buffer>();
  kafka::BatchBuilder b({});
  for (const auto& v : values) b.Add(2000, "k", v);
  FLOE_EXPECT_OK(b.Finish(batch.get()));
  auto reader = std::make_unique<PartitionReader>(
      "t",
      [batch](int32_t, int64_t, size_t, Buffer* out) {
        out->Append(batch->data(), batch->size());
        return Status::OK();
      },
      PartitionReaderOptions{});
  int64_t next = 0;
  int64_t first_ms = -1;
  FLOE_EXPECT_OK(reader->Read(0, static_cast<int64_t>(values.size()), &next, &first_ms));
  return reader;
}

TEST(DeadLetterSink, ToleranceDecidesWhatIsQueued) {
  auto records = Records({"a", "b"});
  const RecordRef& r = records->records()[0];
  DeadLetterSink none("t", ErrorsTolerance::kNone);
  FLOE_ASSERT_OK(none.Start(1, nullptr));
  Status st = none.Route(r, /*invalid_data=*/true, "not JSON");
  EXPECT_EQ(st.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(st.message().find("partition 0 offset 0: not JSON (errors.tolerance=none"),
            std::string::npos)
      << st.ToString();
  DeadLetterSink invalid("t", ErrorsTolerance::kInvalidData);
  FLOE_ASSERT_OK(invalid.Start(1, nullptr));
  FLOE_EXPECT_OK(invalid.Route(r, /*invalid_data=*/true, "not JSON"));
  // A value that fits no evolution of its column is not invalid data.
  EXPECT_EQ(invalid.Route(r, /*invalid_data=*/false, "no evolution").code(),
            StatusCode::kInvalidArgument);
  EXPECT_EQ(invalid.size(), 1u);
  DeadLetterSink all("t", ErrorsTolerance::kAll);
  FLOE_ASSERT_OK(all.Start(1, nullptr));
  FLOE_EXPECT_OK(all.Route(r, false, "no evolution"));
  EXPECT_EQ(all.size(), 1u);
}

class DeadLetterCommitTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto md = iceberg::TableMetadataBuilder::NewTable(
        *DeadLetterSchema(), iceberg::PartitionSpec::Unpartitioned(),
        iceberg::SortOrder::Unsorted(), "mem://wh/t_dlq",
        {{"format-version", "2"}, {"commit.retry.num-retries", "0"}},  // conflicts: no waits
        "9c12d441-03fe-4693-9a96-a0705ddf69c1", 1700000000000);
    FLOE_ASSERT_OK(md);
    auto ops = InMemoryTableOperations::Create("t_dlq", io_, env_, *md);
    FLOE_ASSERT_OK(ops);
    ops_ = std::move(*ops);
  }

  std::vector<std::string> Rows() {
    auto table = iceberg::Table::Load(*ops_);
    FLOE_EXPECT_OK(table);
    auto scan = iceberg::TableScan::Make((*table)->metadata(), io_, {});
    auto tasks = (*scan)->PlanFiles();
    auto reader = (*scan)->Open(std::move(*tasks));
    std::vector<std::string> out;
    while (true) {
      auto b = (*reader)->Next();
      FLOE_EXPECT_OK(b);
      if (!b.ok() || !*b) break;
      const columnar::RecordBatch& batch = **b;
      for (int64_t i = 0; i < batch.num_rows(); ++i) {
        out.push_back(
            std::to_string(batch.column(0).Value<int32_t>(i)) + "/" +
            std::to_string(batch.column(1).Value<int64_t>(i)) + "/" +
            std::to_string(batch.column(2).Value<int64_t>(i)) + "/" +
            std::string(batch.column(3).BinaryValue(i)) + "/" +
            (batch.column(4).IsNull(i) ? "null" : std::string(batch.column(4).BinaryValue(i))) +
            "/" + std::string(batch.column(5).BinaryValue(i)));
      }
    }
    return out;
  }

  io::MemoryFileIO io_;
  FixedCommitEnvironment env_;
  std::unique_ptr<InMemoryTableOperations> ops_;
};

TEST_F(DeadLetterCommitTest, CommitsRowsAndOffsetsAndSkipsWhatTheTableHolds) {
  auto records = Records({"bad", std::nullopt, "good"});
  DeadLetterSink sink("t", ErrorsTolerance::kAll);
  FLOE_ASSERT_OK(sink.Start(1, nullptr));
  FLOE_ASSERT_OK(sink.Route(records->records()[0], true, "not JSON"));
  FLOE_ASSERT_OK(sink.Route(records->records()[1], true, "a null value"));
  auto committed = sink.Commit({3}, *records, *ops_);
  FLOE_ASSERT_OK(committed);
  EXPECT_EQ(*committed, 2);
  EXPECT_TRUE(sink.empty());
  // Timestamps in microseconds (timestamptz).
  EXPECT_EQ(Rows(), (std::vector<std::string>{"0/0/2000000/k/bad/not JSON",
                                              "0/1/2000000/k/null/a null value"}));
  auto table = iceberg::Table::Load(*ops_);
  const iceberg::TableMetadata& md = *(*table)->metadata();
  EXPECT_EQ(md.properties.at(std::string(kPropertyOffsets)), "0:3");
  EXPECT_EQ(*md.current_snapshot()->SummaryValue(kSummaryTopic), "t");
  // A retried range after a restart: the table holds offsets below 3 already.
  DeadLetterSink restarted("t", ErrorsTolerance::kAll);
  FLOE_ASSERT_OK(restarted.Start(1, &md));
  FLOE_ASSERT_OK(restarted.Route(records->records()[0], true, "not JSON"));
  EXPECT_TRUE(restarted.empty());
  // A stale coordinator (started before the commit) conflicts and keeps its rows.
  DeadLetterSink stale("t", ErrorsTolerance::kAll);
  FLOE_ASSERT_OK(stale.Start(1, nullptr));
  FLOE_ASSERT_OK(stale.Route(records->records()[2], true, "late"));
  auto refused = stale.Commit({3}, *records, *ops_);
  EXPECT_EQ(refused.status().code(), StatusCode::kConflict);
  EXPECT_EQ(stale.size(), 1u);
  EXPECT_EQ(Rows().size(), 2u);
}

}  // namespace
}  // namespace floe::ingest
