// Bounded metadata (maintenance.h): the count bound on snapshots, the small-manifest
// rewrite and the deletion of metadata files the metadata log no longer lists.
#include <gtest/gtest.h>

#include <set>
#include <string>
#include <vector>

#include "floe/base/testing.h"
#include "floe/iceberg/expire_snapshots.h"
#include "floe/iceberg/in_memory_table_operations.h"
#include "floe/iceberg/snapshot_producer.h"
#include "floe/iceberg/table_metadata_builder.h"
#include "floe/io/memory_file_io.h"
#include "floe/optimize/maintenance.h"
#include "floe/optimize/optimizing_config.h"

namespace floe::optimize {
namespace {

using iceberg::DataFile;
using iceberg::testing::FixedCommitEnvironment;
using iceberg::testing::InMemoryTableOperations;

constexpr int64_t kT0 = 1700000000000;

DataFile Data(std::string path) {
  DataFile f;
  f.file_path = std::move(path);
  f.record_count = 1;
  f.file_size_in_bytes = 10;
  return f;
}

class BoundedMetadataTest : public ::testing::Test {
 protected:
  void Init(std::map<std::string, std::string> properties) {
    iceberg::Schema schema =
        *iceberg::Schema::Make({iceberg::NestedField::Required(1, "id", iceberg::LongType())});
    properties["format-version"] = "2";
    auto md = iceberg::TableMetadataBuilder::NewTable(
        schema, iceberg::PartitionSpec::Unpartitioned(), iceberg::SortOrder::Unsorted(),
        "mem://wh/db/t", properties, "9c12d441-03fe-4693-9a96-a0705ddf69c1", kT0);
    FLOE_ASSERT_OK(md);
    auto ops = InMemoryTableOperations::Create("db.t", io_, env_, *md);
    FLOE_ASSERT_OK(ops);
    ops_ = std::move(*ops);
    auto table = iceberg::Table::Load(*ops_);
    FLOE_ASSERT_OK(table);
    table_ = std::move(*table);
    table_->set_sleeper([](int64_t) {});
  }

  void Append(const std::string& path, bool fast = true) {
    env_.Advance(1000);
    auto op = fast ? table_->NewFastAppend() : table_->NewAppend();
    op->AppendFile(Data(path));
    Status st = op->Commit();
    FLOE_ASSERT_OK(st);
  }

  std::vector<iceberg::ManifestFile> Manifests() {
    auto ms = iceberg::ReadSnapshotManifests(*table_->metadata()->current_snapshot(), io_);
    FLOE_EXPECT_OK(ms);
    return *ms;
  }

  io::MemoryFileIO io_;
  FixedCommitEnvironment env_{kT0};
  std::unique_ptr<InMemoryTableOperations> ops_;
  std::unique_ptr<iceberg::Table> table_;
};

TEST(BoundedMetadataConfig, DefaultsAndKeys) {
  auto d = MaintenanceConfig::FromProperties({});
  FLOE_ASSERT_OK(d);
  EXPECT_EQ(d->snapshot_keep_max_count, 100);
  EXPECT_TRUE(d->delete_old_metadata);
  EXPECT_TRUE(d->rewrite_manifests_enabled);
  EXPECT_EQ(d->rewrite_manifests_max_small_count, 16);
  auto c = MaintenanceConfig::FromProperties({{"snapshot.keep.max-count", "0"},
                                              {"write.metadata.delete-after-commit.enabled", "no"},
                                              {"rewrite-manifests.enabled", "false"},
                                              {"rewrite-manifests.max-small-count", "3"}});
  FLOE_ASSERT_OK(c);
  EXPECT_EQ(c->snapshot_keep_max_count, 0);
  EXPECT_FALSE(c->delete_old_metadata);  // Java Boolean.parseBoolean
  EXPECT_FALSE(c->rewrite_manifests_enabled);
  EXPECT_EQ(c->rewrite_manifests_max_small_count, 3);
  auto bad = MaintenanceConfig::FromProperties({{"snapshot.keep.max-count", "-1"}});
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("snapshot.keep.max-count"), std::string::npos);
}

TEST_F(BoundedMetadataTest, SnapshotCountBoundsRetentionWithinTheKeepDuration) {
  Init({});
  for (int i = 0; i < 10; ++i) Append("mem://d/f" + std::to_string(i));
  // Ids, not the Snapshot pointers Ancestors returns: those point into the metadata the
  // expiry commit replaces.
  std::vector<int64_t> main;
  for (const iceberg::Snapshot* s :
       table_->metadata()->Ancestors(table_->metadata()->current_snapshot()->snapshot_id)) {
    main.push_back(s->snapshot_id);
  }
  ASSERT_EQ(main.size(), 10u);
  MaintenanceConfig config;
  config.snapshot_keep_max_count = 3;
  EXPECT_TRUE(OverSnapshotCount(*table_->metadata(), config));
  // Every snapshot is within the 12-hour keep duration: only the count expires them, and
  // the snapshot a running process is based on stays.
  const int64_t protected_id = main[6];
  auto expired = ExpireTableSnapshots(*table_, config, env_.NowMillis(), {protected_id});
  FLOE_ASSERT_OK(expired);
  ASSERT_TRUE(expired->has_value());
  std::set<int64_t> left;
  for (const iceberg::Snapshot& s : table_->metadata()->snapshots) left.insert(s.snapshot_id);
  EXPECT_EQ(left, (std::set<int64_t>{main[0], main[1], main[2], protected_id}));
  EXPECT_FALSE(OverSnapshotCount(*table_->metadata(), MaintenanceConfig{}));
  // Every live file is still there.
  const std::string* total =
      table_->metadata()->current_snapshot()->SummaryValue("total-data-files");
  ASSERT_NE(total, nullptr);
  EXPECT_EQ(*total, "10");

  // min-count above max-count wins; 0 turns the count bound off.
  for (int i = 10; i < 16; ++i) Append("mem://d/f" + std::to_string(i));
  config.snapshot_keep_max_count = 2;
  config.snapshot_keep_min_count = 5;
  FLOE_ASSERT_OK(ExpireTableSnapshots(*table_, config, env_.NowMillis(), {}));
  EXPECT_EQ(table_->metadata()->snapshots.size(), 5u);
  config.snapshot_keep_max_count = 0;
  config.snapshot_keep_min_count = 1;
  EXPECT_FALSE(OverSnapshotCount(*table_->metadata(), config));
  auto none = ExpireTableSnapshots(*table_, config, env_.NowMillis(), {});
  FLOE_ASSERT_OK(none);
  EXPECT_FALSE(none->has_value());
}

TEST_F(BoundedMetadataTest, SmallManifestsAreRewrittenPastTheThreshold) {
  Init({});
  MaintenanceConfig config;
  config.rewrite_manifests_max_small_count = 4;
  for (int i = 0; i < 4; ++i) Append("mem://d/f" + std::to_string(i));
  auto not_due = RewriteSmallManifests(*table_, config);
  FLOE_ASSERT_OK(not_due);
  EXPECT_FALSE(not_due->has_value());
  Append("mem://d/f4");
  auto done = RewriteSmallManifests(*table_, config);
  FLOE_ASSERT_OK(done);
  ASSERT_TRUE(done->has_value());
  EXPECT_EQ((*done)->rewritten_manifests, 5);
  EXPECT_EQ((*done)->added_manifests, 1);
  const iceberg::Snapshot* s = table_->metadata()->current_snapshot();
  EXPECT_EQ(*s->SummaryValue("snapshot-producer"), "REWRITE_MANIFESTS");
  EXPECT_TRUE(ProducedByOptimizer(*s));
  EXPECT_EQ(Manifests().size(), 1u);
  config.rewrite_manifests_enabled = false;
  for (int i = 5; i < 12; ++i) Append("mem://d/f" + std::to_string(i));
  auto off = RewriteSmallManifests(*table_, config);
  FLOE_ASSERT_OK(off);
  EXPECT_FALSE(off->has_value());
}

TEST_F(BoundedMetadataTest, MetadataFilesOutsideTheLogAreDeleted) {
  // Java keeps previous-versions-max entries in the metadata log; InMemoryTableOperations,
  // like a catalog without delete-after-commit, leaves the older files in the folder.
  Init({{"write.metadata.previous-versions-max", "3"}});
  for (int i = 0; i < 8; ++i) Append("mem://d/f" + std::to_string(i));
  const iceberg::TableMetadata& md = *table_->metadata();
  ASSERT_EQ(md.metadata_log.size(), 3u);
  const std::string folder = MetadataFolder(md);
  EXPECT_EQ(folder, "mem://wh/db/t/metadata/");
  // A file of a later version (a commit in flight) and files of other names stay.
  ASSERT_TRUE(io_.WriteFile(folder + "00099-5d2c0000-0000-4000-8000-000000000001.metadata.json",
                            "{}", false)
                  .ok());
  FLOE_ASSERT_OK(io_.WriteFile(folder + "version-hint.text", "8", false));
  auto count_json = [&] {
    int n = 0;
    auto listed = io_.List(folder);
    FLOE_EXPECT_OK(listed);
    for (const io::FileInfo& f : *listed) {
      if (f.location.ends_with(".metadata.json")) ++n;
    }
    return n;
  };
  ASSERT_EQ(count_json(), 10);  // versions 0..8 and the one in flight
  auto cleaned = DeleteUntrackedMetadataFiles(md, io_);
  FLOE_ASSERT_OK(cleaned);
  EXPECT_EQ(cleaned->deleted, 5);  // versions 0..4
  EXPECT_EQ(count_json(), 5);
  EXPECT_TRUE(*io_.Exists(md.metadata_file_location));
  for (const auto& entry : md.metadata_log) EXPECT_TRUE(*io_.Exists(entry.metadata_file));
  EXPECT_TRUE(*io_.Exists(folder + "version-hint.text"));
  auto again = DeleteUntrackedMetadataFiles(md, io_);
  FLOE_ASSERT_OK(again);
  EXPECT_EQ(again->deleted, 0);
}

}  // namespace
}  // namespace floe::optimize
