#include "floe/iceberg/snapshot_summary.h"

#include <gtest/gtest.h>

namespace floe::iceberg {
namespace {

using C = SummaryFile::Content;

// Expected keys, order and omissions follow Java's SnapshotSummary.Builder /
// UpdateMetrics.addTo and SnapshotProducer.summary(previous).
TEST(SnapshotSummaryTest, AppendOnNewBranch) {
  SnapshotSummaryBuilder b;
  b.Set("kafka.offsets", "0:10");
  b.AddedFile({C::kData, 10, 100, false, "a=1"});
  b.AddedFile({C::kData, 5, 50, false, "a=2"});
  SummaryEntries s = AddSummaryTotals(b.Build(), nullptr);
  SummaryEntries expected = {{"kafka.offsets", "0:10"},        {"added-data-files", "2"},
                             {"added-records", "15"},          {"added-files-size", "150"},
                             {"changed-partition-count", "2"}, {"total-records", "15"},
                             {"total-files-size", "150"},      {"total-data-files", "2"},
                             {"total-delete-files", "0"},      {"total-position-deletes", "0"},
                             {"total-equality-deletes", "0"}};
  EXPECT_EQ(s, expected);
}

TEST(SnapshotSummaryTest, DeletesDvsAndTotalsFromPrevious) {
  SnapshotSummaryBuilder b;
  b.AddedFile({C::kPositionDeletes, 3, 40, /*is_dv=*/true, ""});
  b.AddedFile({C::kPositionDeletes, 2, 60, false, ""});
  b.AddedFile({C::kEqualityDeletes, 4, 70, false, ""});
  b.RemovedFile({C::kData, 10, 100, false, ""});
  b.RemovedFile({C::kEqualityDeletes, 1, 5, false, ""});
  Snapshot previous;
  previous.operation = "append";
  previous.summary = {{"total-records", "100"},        {"total-files-size", "1000"},
                      {"total-data-files", "7"},       {"total-delete-files", "1"},
                      {"total-position-deletes", "0"}, {"total-equality-deletes", "x"}};
  SummaryEntries s = AddSummaryTotals(b.Build(), &previous);
  SummaryEntries expected = {
      {"deleted-data-files", "1"},
      {"added-equality-delete-files", "1"},
      {"removed-equality-delete-files", "1"},
      {"added-position-delete-files", "1"},
      {"added-delete-files", "3"},
      {"removed-delete-files", "1"},
      {"added-dvs", "1"},
      {"deleted-records", "10"},
      {"added-files-size", "170"},
      {"removed-files-size", "105"},
      {"added-position-deletes", "5"},
      {"added-equality-deletes", "4"},
      {"removed-equality-deletes", "1"},
      {"changed-partition-count", "1"},
      {"total-records", "90"},
      {"total-files-size", "1065"},
      {"total-data-files", "6"},
      {"total-delete-files", "3"},
      {"total-position-deletes", "5"},
      // "x" is not a long: Java leaves the total out.
  };
  EXPECT_EQ(s, expected);
}

TEST(SnapshotSummaryTest, PreviousWithoutSummaryHasNoTotals) {
  SnapshotSummaryBuilder b;
  b.AddedFile({C::kData, 1, 1, false, ""});
  Snapshot previous;  // no summary
  SummaryEntries s = AddSummaryTotals(b.Build(), &previous);
  for (const auto& [k, v] : s) EXPECT_NE(k.rfind("total-", 0), 0u) << k;
}

TEST(SnapshotSummaryTest, NegativeTotalIsDropped) {
  SnapshotSummaryBuilder b;
  b.RemovedFile({C::kData, 5, 10, false, ""});
  Snapshot previous;
  previous.operation = "append";
  previous.summary = {{"total-records", "3"}, {"total-data-files", "1"}};
  SummaryEntries s = AddSummaryTotals(b.Build(), &previous);
  SummaryEntries expected = {{"deleted-data-files", "1"},
                             {"deleted-records", "5"},
                             {"removed-files-size", "10"},
                             {"changed-partition-count", "1"},
                             {"total-data-files", "0"}};
  EXPECT_EQ(s, expected);
}

TEST(SnapshotSummaryTest, AddedManifestDropsPartitionMetrics) {
  SnapshotSummaryBuilder b;
  b.AddedFile({C::kData, 1, 1, false, "p=1"});
  b.AddedManifest(/*is_delete_manifest=*/true, 2, 0, 0, 0);
  SummaryEntries expected = {
      {"added-data-files", "1"}, {"added-delete-files", "2"}, {"added-records", "1"}};
  EXPECT_EQ(b.Build(), expected);
}

TEST(SnapshotSummaryTest, PartitionSummaries) {
  SnapshotSummaryBuilder b;
  b.SetPartitionSummaryLimit(10);
  b.AddedFile({C::kData, 2, 20, false, "p=1"});
  SummaryEntries expected = {
      {"added-data-files", "1"},
      {"added-records", "2"},
      {"added-files-size", "20"},
      {"changed-partition-count", "1"},
      {"partition-summaries-included", "true"},
      {"partitions.p=1", "added-data-files=1,added-records=2,added-files-size=20"}};
  EXPECT_EQ(b.Build(), expected);
}

}  // namespace
}  // namespace floe::iceberg
