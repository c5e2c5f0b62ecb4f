// Manifest merging on commit and RewriteManifests. Expected manifests, entry statuses,
// snapshot ids and sequence numbers are those of Iceberg Java's TestMergeAppend
// (testMinMergeCount, testMergeWithExistingManifestAfterDelete,
// testMergeSizeTargetWithExistingManifest, testChangedPartitionSpecMergeExisting) and
// of ListPacker.packEnd worked by hand.
#include "floe/iceberg/manifest_merge.h"
#include "floe/base/testing.h"

#include <map>
#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "floe/iceberg/in_memory_table_operations.h"
#include "floe/iceberg/metadata_updates.h"
#include "floe/iceberg/snapshot_producer.h"
#include "floe/iceberg/table.h"
#include "floe/iceberg/table_metadata_builder.h"
#include "floe/io/memory_file_io.h"

namespace floe::iceberg {
namespace {

using testing::FixedCommitEnvironment;
using testing::InMemoryTableOperations;

constexpr int64_t kT0 = 1700000000000;

TEST(PackEndTest, FillsFromTheEndLeavingTheFirstBinUnderFilled) {
  using Bins = std::vector<std::vector<size_t>>;
  // Reversed: 5(2) + 5(1) = 10 fits, 5(0) opens a new bin.
  EXPECT_EQ(PackEnd({5, 5, 5}, 10), (Bins{{0}, {1, 2}}));
  // Every item over the target gets a bin of its own.
  EXPECT_EQ(PackEnd({20, 30, 1}, 10), (Bins{{0}, {1}, {2}}));
  // 1 + 9 fits, then 4 + 4 + 1 fits, then 3 opens a bin: look-back of one, no reordering.
  EXPECT_EQ(PackEnd({3, 1, 4, 4, 1, 9}, 10), (Bins{{0}, {1, 2, 3}, {4, 5}}));
  EXPECT_EQ(PackEnd({}, 10), Bins{});
}

TEST(ManifestMergeConfigTest, JavaDefaultsAndProperties) {
  ManifestMergeConfig d = ManifestMergeConfig::FromProperties({});
  EXPECT_TRUE(d.enabled);
  EXPECT_EQ(d.min_count_to_merge, 100);
  EXPECT_EQ(d.target_size_bytes, 8 * 1024 * 1024);
  ManifestMergeConfig c =
      ManifestMergeConfig::FromProperties({{"commit.manifest-merge.enabled", "FALSE"},
                                           {"commit.manifest.min-count-to-merge", "4"},
                                           {"commit.manifest.target-size-bytes", "1000"}});
  EXPECT_FALSE(c.enabled);
  EXPECT_EQ(c.min_count_to_merge, 4);
  EXPECT_EQ(c.target_size_bytes, 1000);
}

DataFile Data(std::string path, int64_t rows, std::optional<std::string> category) {
  DataFile f;
  f.file_path = std::move(path);
  f.record_count = rows;
  f.file_size_in_bytes = rows * 10;
  if (category) f.partition = {Literal::String(*category)};
  return f;
}

DataFile EqDelete(std::string path, std::optional<std::string> category) {
  DataFile f = Data(std::move(path), 1, std::move(category));
  f.content = FileContent::kEqualityDeletes;
  f.equality_ids = std::vector<int32_t>{1};
  return f;
}

std::string Summary(const Snapshot& s, std::string_view key) {
  const std::string* v = s.SummaryValue(key);
  return v ? *v : "<none>";
}

class MergeTest : public ::testing::Test {
 protected:
  void Init(std::map<std::string, std::string> properties, bool partitioned = false) {
    Schema schema = *Schema::Make({NestedField::Required(1, "id", LongType()),
                                   NestedField::Optional(2, "category", StringType())});
    PartitionSpec spec = partitioned ? *PartitionSpecBuilder(schema).Identity("category").Build()
                                     : PartitionSpec::Unpartitioned();
    properties["format-version"] = "2";
    auto md =
        TableMetadataBuilder::NewTable(schema, spec, SortOrder::Unsorted(), "mem://wh/db/t",
                                       properties, "9c12d441-03fe-4693-9a96-a0705ddf69c1", kT0);
    FLOE_ASSERT_OK(md);
    auto ops = InMemoryTableOperations::Create("db.t", io_, env_, *md);
    FLOE_ASSERT_OK(ops);
    ops_ = std::move(*ops);
    auto table = Table::Load(*ops_);
    FLOE_ASSERT_OK(table);
    table_ = std::move(*table);
    table_->set_sleeper([](int64_t) {});
  }

  const Snapshot& Append(std::vector<DataFile> files, bool fast = false) {
    env_.Advance(1000);
    auto op = fast ? table_->NewFastAppend() : table_->NewAppend();
    for (const auto& f : files) op->AppendFile(f);
    Status st = op->Commit();
    FLOE_EXPECT_OK(st);
    return *table_->metadata()->current_snapshot();
  }

  std::vector<ManifestFile> Manifests(const Snapshot& s) {
    auto ms = ReadSnapshotManifests(s, io_);
    FLOE_EXPECT_OK(ms);
    return *ms;
  }

  // The entries of `m` as (path, status, snapshot id, data seq, file seq).
  struct E {
    std::string path;
    ManifestStatus status;
    int64_t snapshot_id;
    int64_t data_seq;
    int64_t file_seq;
    bool operator==(const E&) const = default;
  };
  std::vector<E> Entries(const ManifestFile& m) {
    auto es = ReadManifestEntries(*table_->metadata(), m, io_, ManifestEntryFilter::kAll);
    FLOE_EXPECT_OK(es);
    std::vector<E> out;
    for (const ManifestEntry& e : *es) {
      out.push_back({e.data_file.file_path, e.status, e.snapshot_id.value_or(-1),
                     e.data_sequence_number.value_or(-1), e.file_sequence_number.value_or(-1)});
    }
    return out;
  }

  io::MemoryFileIO io_;
  FixedCommitEnvironment env_{kT0};
  std::unique_ptr<InMemoryTableOperations> ops_;
  std::unique_ptr<Table> table_;
};

constexpr auto kAdded = ManifestStatus::kAdded;
constexpr auto kExisting = ManifestStatus::kExisting;
constexpr auto kDeleted = ManifestStatus::kDeleted;

TEST_F(MergeTest, MinMergeCount) {
  // Java testMinMergeCount: merge only at 4 manifests.
  Init({{"commit.manifest.min-count-to-merge", "4"}});
  int64_t a = Append({Data("mem://d/a", 1, std::nullopt)}, /*fast=*/true).snapshot_id;
  int64_t b = Append({Data("mem://d/b", 1, std::nullopt)}, /*fast=*/true).snapshot_id;
  const Snapshot s3 = Append({Data("mem://d/c", 1, std::nullopt)});
  int64_t c = s3.snapshot_id;
  ASSERT_EQ(Manifests(s3).size(), 3u);
  const Snapshot s4 = Append({Data("mem://d/d", 1, std::nullopt)});
  auto ms = Manifests(s4);
  ASSERT_EQ(ms.size(), 1u);
  EXPECT_EQ(Entries(ms[0]), (std::vector<E>{{"mem://d/d", kAdded, s4.snapshot_id, 4, 4},
                                            {"mem://d/c", kExisting, c, 3, 3},
                                            {"mem://d/b", kExisting, b, 2, 2},
                                            {"mem://d/a", kExisting, a, 1, 1}}));
  EXPECT_EQ(Summary(s4, "manifests-created"), "1");
  EXPECT_EQ(Summary(s4, "manifests-kept"), "0");
  EXPECT_EQ(Summary(s4, "manifests-replaced"), "3");
  EXPECT_EQ(Summary(s4, "total-data-files"), "4");
  // The merged-away manifests are still the previous snapshot's: nothing was deleted.
  for (const ManifestFile& m : Manifests(s3)) EXPECT_TRUE(*io_.Exists(m.manifest_path));
}

TEST_F(MergeTest, FastAppendAndDisabledMergeNeverMerge) {
  Init({{"commit.manifest.min-count-to-merge", "2"}});
  Append({Data("mem://d/a", 1, std::nullopt)}, /*fast=*/true);
  EXPECT_EQ(Manifests(Append({Data("mem://d/b", 1, std::nullopt)}, /*fast=*/true)).size(), 2u);
  auto props = table_->NewUpdateProperties();
  props->Set("commit.manifest-merge.enabled", "false");
  FLOE_ASSERT_OK(props->Commit());
  EXPECT_EQ(Manifests(Append({Data("mem://d/c", 1, std::nullopt)})).size(), 3u);
}

TEST_F(MergeTest, DeletedEntriesOfEarlierSnapshotsAreDropped) {
  // Java testMergeWithExistingManifestAfterDelete.
  Init({{"commit.manifest.min-count-to-merge", "1"}});
  const int64_t base =
      Append({Data("mem://d/a", 1, std::nullopt), Data("mem://d/b", 1, std::nullopt)}).snapshot_id;
  auto del = table_->NewDelete();
  del->DeleteFile("mem://d/a");
  FLOE_ASSERT_OK(del->Commit());
  const Snapshot ds = *table_->metadata()->current_snapshot();
  EXPECT_EQ(Summary(ds, "manifests-replaced"), "1");
  EXPECT_EQ(Summary(ds, "manifests-created"), "1");
  EXPECT_EQ(Summary(ds, "manifests-kept"), "0");
  auto dms = Manifests(ds);
  ASSERT_EQ(dms.size(), 1u);
  EXPECT_EQ(Entries(dms[0]), (std::vector<E>{{"mem://d/a", kDeleted, ds.snapshot_id, 1, 1},
                                             {"mem://d/b", kExisting, base, 1, 1}}));
  const Snapshot s =
      Append({Data("mem://d/c", 1, std::nullopt), Data("mem://d/d", 1, std::nullopt)});
  auto ms = Manifests(s);
  ASSERT_EQ(ms.size(), 1u);
  EXPECT_EQ(Entries(ms[0]), (std::vector<E>{{"mem://d/c", kAdded, s.snapshot_id, 3, 3},
                                            {"mem://d/d", kAdded, s.snapshot_id, 3, 3},
                                            {"mem://d/b", kExisting, base, 1, 1}}));
}

TEST_F(MergeTest, SizeTargetPreventsMerging) {
  // Java testMergeSizeTargetWithExistingManifest: a 10-byte target puts every manifest in
  // a bin of its own.
  Init({{"commit.manifest.target-size-bytes", "10"}, {"commit.manifest.min-count-to-merge", "1"}});
  Append({Data("mem://d/a", 1, std::nullopt)});
  const Snapshot s = Append({Data("mem://d/b", 1, std::nullopt)});
  EXPECT_EQ(Manifests(s).size(), 2u);
  EXPECT_EQ(Summary(s, "manifests-kept"), "1");
}

TEST_F(MergeTest, OtherSpecsMergeWhateverTheMinCount) {
  // Java testChangedPartitionSpecMergeExisting: with the default minimum of 100, the two
  // manifests of the old spec share a bin without the new manifest and are merged.
  Init({}, /*partitioned=*/true);
  int64_t a = Append({Data("mem://d/a", 1, "x")}).snapshot_id;
  int64_t b = Append({Data("mem://d/b", 1, "x")}, /*fast=*/true).snapshot_id;
  auto up = table_->NewUpdateSpec();
  up->AddField("id", Transform::Bucket(4));
  FLOE_ASSERT_OK(up->Commit());
  DataFile y = Data("mem://d/y", 1, "x");
  y.spec_id = table_->metadata()->default_spec_id;
  y.partition.push_back(Literal::Int(3));
  const Snapshot s = Append({y});
  auto ms = Manifests(s);
  ASSERT_EQ(ms.size(), 2u);
  EXPECT_EQ(Entries(ms[0]), (std::vector<E>{{"mem://d/y", kAdded, s.snapshot_id, 3, 3}}));
  EXPECT_EQ(Entries(ms[1]),
            (std::vector<E>{{"mem://d/b", kExisting, b, 2, 2}, {"mem://d/a", kExisting, a, 1, 1}}));
}

TEST_F(MergeTest, DeleteManifestsMergeApartFromDataManifests) {
  Init({{"commit.manifest.min-count-to-merge", "2"}});
  int64_t a = Append({Data("mem://d/a", 1, std::nullopt)}).snapshot_id;
  auto rd1 = table_->NewRowDelta();
  rd1->AddDeletes(EqDelete("mem://d/eq1", std::nullopt));
  FLOE_ASSERT_OK(rd1->Commit());
  const int64_t d1 = table_->metadata()->current_snapshot()->snapshot_id;
  env_.Advance(1000);
  auto rd2 = table_->NewRowDelta();
  rd2->AddRows(Data("mem://d/b", 1, std::nullopt))
      .AddDeletes(EqDelete("mem://d/eq2", std::nullopt));
  FLOE_ASSERT_OK(rd2->Commit());
  const Snapshot s = *table_->metadata()->current_snapshot();
  auto ms = Manifests(s);
  ASSERT_EQ(ms.size(), 2u);
  EXPECT_EQ(ms[0].content, ManifestContent::kData);
  EXPECT_EQ(Entries(ms[0]), (std::vector<E>{{"mem://d/b", kAdded, s.snapshot_id, 3, 3},
                                            {"mem://d/a", kExisting, a, 1, 1}}));
  EXPECT_EQ(ms[1].content, ManifestContent::kDeletes);
  EXPECT_EQ(Entries(ms[1]), (std::vector<E>{{"mem://d/eq2", kAdded, s.snapshot_id, 3, 3},
                                            {"mem://d/eq1", kExisting, d1, 2, 2}}));
}

TEST_F(MergeTest, MergedRewriteKeepsItsDataSequenceNumber) {
  Init({{"commit.manifest.min-count-to-merge", "1"}});
  Append({Data("mem://d/a", 1, std::nullopt)});
  const int64_t start = table_->metadata()->current_snapshot()->snapshot_id;
  Append({Data("mem://d/b", 1, std::nullopt)});
  auto rw = table_->NewRewrite();
  rw->DeleteFile(Data("mem://d/a", 1, std::nullopt))
      .AddFile(Data("mem://d/a2", 1, std::nullopt))
      .ValidateFromSnapshot(start);
  FLOE_ASSERT_OK(rw->Commit());
  const Snapshot s = *table_->metadata()->current_snapshot();
  auto ms = Manifests(s);
  ASSERT_EQ(ms.size(), 1u);
  std::map<std::string, E> es;
  for (const E& e : Entries(ms[0])) es.emplace(e.path, e);
  ASSERT_EQ(es.size(), 3u);
  // The new file keeps the starting snapshot's sequence number 1; its file sequence number
  // is the commit's. The removed file is this commit's DELETED entry.
  EXPECT_EQ(es.at("mem://d/a2"), (E{"mem://d/a2", kAdded, s.snapshot_id, 1, 3}));
  EXPECT_EQ(es.at("mem://d/a").status, kDeleted);
  EXPECT_EQ(es.at("mem://d/a").snapshot_id, s.snapshot_id);
  EXPECT_EQ(es.at("mem://d/a").data_seq, 1);
  EXPECT_EQ(es.at("mem://d/b").status, kExisting);
  EXPECT_EQ(es.at("mem://d/b").data_seq, 2);
}

TEST_F(MergeTest, RewriteManifestsKeepsEveryLiveEntryExactly) {
  Init({}, /*partitioned=*/true);
  for (int i = 0; i < 6; ++i) {
    Append({Data("mem://d/f" + std::to_string(i), 1, i % 2 ? "x" : "y")}, /*fast=*/true);
  }
  auto del = table_->NewDelete();
  del->DeleteFile("mem://d/f0");
  FLOE_ASSERT_OK(del->Commit());
  auto rd = table_->NewRowDelta();
  rd->AddDeletes(EqDelete("mem://d/eq", "x"));
  FLOE_ASSERT_OK(rd->Commit());
  const Snapshot parent = *table_->metadata()->current_snapshot();
  std::vector<ManifestFile> old = Manifests(parent);
  std::map<std::string, E> live;
  for (const ManifestFile& m : old) {
    for (const E& e : Entries(m)) {
      if (e.status != kDeleted) live.emplace(e.path, e);
    }
  }
  // Five data manifests (the delete's rewrite of f0's manifest holds no live file, so the
  // row delta drops it, as Java's shouldKeep does) and one delete manifest.
  ASSERT_EQ(old.size(), 6u);

  auto rw = table_->NewRewriteManifests();
  FLOE_ASSERT_OK(rw->Commit());
  const Snapshot s = *table_->metadata()->current_snapshot();
  EXPECT_EQ(s.operation, "replace");
  EXPECT_EQ(s.parent_snapshot_id, parent.snapshot_id);
  EXPECT_EQ(Summary(s, "manifests-replaced"), "5");  // the lone delete manifest is kept
  EXPECT_EQ(Summary(s, "manifests-created"), "1");
  EXPECT_EQ(Summary(s, "manifests-kept"), "1");
  EXPECT_EQ(Summary(s, "entries-processed"), "5");
  EXPECT_EQ(Summary(s, "total-data-files"), "5");
  EXPECT_EQ(Summary(s, "total-delete-files"), "1");
  auto ms = Manifests(s);
  ASSERT_EQ(ms.size(), 2u);
  std::map<std::string, E> after;
  for (const ManifestFile& m : ms) {
    for (const E& e : Entries(m)) {
      auto it = live.find(e.path);
      ASSERT_NE(it, live.end()) << e.path;
      // Rewritten entries are EXISTING; nothing else about them changes.
      E want = it->second;
      if (m.added_snapshot_id == s.snapshot_id) want.status = kExisting;
      EXPECT_EQ(e, want) << e.path;
      after.emplace(e.path, e);
    }
  }
  EXPECT_EQ(after.size(), live.size());
  // Clustered by partition: category=x before category=y.
  std::vector<E> data = Entries(ms[0]);
  ASSERT_EQ(data.size(), 5u);
  EXPECT_EQ(data[0].path, "mem://d/f1");
  EXPECT_EQ(data[3].path, "mem://d/f2");
}

TEST_F(MergeTest, RewriteManifestsRetriesOverAppendsAndConflictsOnAGoneManifest) {
  Init({});
  Append({Data("mem://d/a", 1, std::nullopt)}, /*fast=*/true);
  Append({Data("mem://d/b", 1, std::nullopt)}, /*fast=*/true);
  auto other = Table::Load(*ops_);
  FLOE_ASSERT_OK(other);
  // A concurrent append: the retry keeps its manifest beside the rewritten one.
  ops_->set_before_commit([&] {
    auto op = (*other)->NewFastAppend();
    op->AppendFile(Data("mem://d/c", 1, std::nullopt));
    return op->Commit();
  });
  auto rw = table_->NewRewriteManifests();
  Status st = rw->Commit();
  FLOE_ASSERT_OK(st);
  const Snapshot s = *table_->metadata()->current_snapshot();
  EXPECT_EQ(Summary(s, "total-data-files"), "3");
  EXPECT_EQ(Summary(s, "manifests-replaced"), "2");
  EXPECT_EQ(Summary(s, "manifests-kept"), "1");
  EXPECT_EQ(Manifests(s).size(), 2u);

  // A concurrent delete rewrites a chosen manifest: Java's "Manifest is missing".
  Append({Data("mem://d/d", 1, std::nullopt)}, /*fast=*/true);
  FLOE_ASSERT_OK((*other)->Refresh());
  ops_->set_before_commit([&] {
    auto del = (*other)->NewDelete();
    del->DeleteFile("mem://d/d");
    return del->Commit();
  });
  auto rw2 = table_->NewRewriteManifests();
  st = rw2->Commit();
  EXPECT_EQ(st.code(), StatusCode::kConflict) << st.ToString();
  EXPECT_NE(st.message().find("Manifest is missing"), std::string::npos) << st.ToString();
}

}  // namespace
}  // namespace floe::iceberg
