// OffsetCommitter over an in-memory table: the offsets property as the commit point of a
// table topic (docs/table-topics.md, "Exactly once").
#include "floe/ingest/offset_committer.h"

#include <gtest/gtest.h>

#include "floe/base/testing.h"
#include "floe/iceberg/in_memory_table_operations.h"
#include "floe/iceberg/metadata_updates.h"
#include "floe/iceberg/table_metadata_builder.h"
#include "floe/io/memory_file_io.h"

namespace floe::ingest {
namespace {

using iceberg::testing::FixedCommitEnvironment;
using iceberg::testing::InMemoryTableOperations;

class OffsetCommitterTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto schema =
        iceberg::Schema::Make({iceberg::NestedField::Optional(1, "v", iceberg::LongType())});
    auto md = iceberg::TableMetadataBuilder::NewTable(
        *schema, iceberg::PartitionSpec::Unpartitioned(), iceberg::SortOrder::Unsorted(),
        "mem://wh/t", {{"format-version", "2"}}, "9c12d441-03fe-4693-9a96-a0705ddf69c1",
        1700000000000);
    FLOE_ASSERT_OK(md);
    auto ops = InMemoryTableOperations::Create("t", io_, env_, *md);
    FLOE_ASSERT_OK(ops);
    ops_ = std::move(*ops);
  }

  std::unique_ptr<iceberg::Table> Load() {
    auto t = iceberg::Table::Load(*ops_);
    FLOE_EXPECT_OK(t);
    return std::move(*t);
  }

  // An append of no files through `c`, summarized as the translator does.
  Status Commit(OffsetCommitter& c, const std::vector<int64_t>& ends) {
    std::unique_ptr<iceberg::Table> table = Load();
    table->set_sleeper([](int64_t) {});  // conflict retries without waiting
    std::unique_ptr<iceberg::Transaction> txn = table->NewTransaction();
    iceberg::AppendFiles& append = txn->NewAppend();
    append.Set(std::string(kSummaryOffsets), c.Ranges(ends));
    return c.Commit(*txn, append, ends);
  }

  io::MemoryFileIO io_;
  FixedCommitEnvironment env_;
  std::unique_ptr<InMemoryTableOperations> ops_;
};

TEST(Offsets, FormatAndParse) {
  EXPECT_EQ(FormatOffsets({12, 40}), "0:12,1:40");
  EXPECT_EQ(FormatOffsets({}), "");
  EXPECT_EQ(*ParseOffsets("0:12,1:40"), (std::vector<int64_t>{12, 40}));
  EXPECT_TRUE(ParseOffsets("")->empty());
  // Partitions in order from 0, non-negative ends.
  for (const char* bad : {"1:12", "0:12,0:13", "0:-1", "0:x", "0"}) {
    EXPECT_EQ(ParseOffsets(bad).status().code(), StatusCode::kCorrupt) << bad;
  }
}

TEST_F(OffsetCommitterTest, CommitsTheRangesAndTheProperty) {
  OffsetCommitter c("committed offsets");
  FLOE_ASSERT_OK(c.Start(2, nullptr));
  EXPECT_EQ(c.ends(), (std::vector<int64_t>{0, 0}));
  EXPECT_EQ(c.Ranges({5, 3}), "0:0-5,1:0-3");
  FLOE_ASSERT_OK(Commit(c, {5, 3}));
  EXPECT_EQ(c.ends(), (std::vector<int64_t>{5, 3}));
  EXPECT_EQ(c.property(), "0:5,1:3");
  std::unique_ptr<iceberg::Table> table = Load();
  EXPECT_EQ(table->metadata()->properties.at(std::string(kPropertyOffsets)), "0:5,1:3");
  EXPECT_EQ(*table->metadata()->current_snapshot()->SummaryValue(kSummaryOffsets), "0:0-5,1:0-3");
  // A restarted coordinator resumes from the property; a partition added since starts at 0.
  OffsetCommitter restarted("committed offsets");
  FLOE_ASSERT_OK(restarted.Start(3, table->metadata().get()));
  EXPECT_EQ(restarted.ends(), (std::vector<int64_t>{5, 3, 0}));
  EXPECT_EQ(restarted.Ranges({6, 3, 1}), "0:5-6,1:3-3,2:0-1");
}

TEST_F(OffsetCommitterTest, AStaleCoordinatorConflicts) {
  OffsetCommitter first("committed offsets");
  OffsetCommitter stale("committed offsets");
  FLOE_ASSERT_OK(first.Start(1, Load()->metadata().get()));
  FLOE_ASSERT_OK(stale.Start(1, Load()->metadata().get()));
  FLOE_ASSERT_OK(Commit(first, {4}));
  Status st = Commit(stale, {4});
  EXPECT_EQ(st.code(), StatusCode::kConflict);
  EXPECT_NE(st.message().find("committed offsets moved from '' to '0:4'"), std::string::npos)
      << st.ToString();
  // Nothing changed for the stale one, and the table holds one commit.
  EXPECT_EQ(stale.ends(), (std::vector<int64_t>{0}));
  EXPECT_EQ(Load()->metadata()->snapshots.size(), 1u);
}

TEST_F(OffsetCommitterTest, ABadPropertyIsCorrupt) {
  std::unique_ptr<iceberg::Table> table = Load();
  auto props = table->NewUpdateProperties();
  props->Set(std::string(kPropertyOffsets), "0:x");
  FLOE_ASSERT_OK(props->Commit());
  OffsetCommitter c("committed offsets");
  EXPECT_EQ(c.Start(1, Load()->metadata().get()).code(), StatusCode::kCorrupt);
}

}  // namespace
}  // namespace floe::ingest
