// Table writes and commits. Expected states follow the Iceberg spec (sequence numbers and
// inheritance, delete scoping, row lineage) and Iceberg Java's operations (summaries,
// operation names, requirements, validations); see the comments at each expectation.
#include "floe/iceberg/table.h"

#include <set>
#include <string>
#include <utility>

#include <gtest/gtest.h>

#include "floe/base/testing.h"
#include "floe/iceberg/expire_snapshots.h"
#include "floe/iceberg/in_memory_table_operations.h"
#include "floe/iceberg/metadata_updates.h"
#include "floe/iceberg/snapshot_producer.h"
#include "floe/iceberg/table_metadata_builder.h"
#include "floe/iceberg/table_operations_contract.h"
#include "floe/io/memory_file_io.h"

namespace floe::iceberg {
namespace {

using testing::FixedCommitEnvironment;
using testing::InMemoryTableOperations;

constexpr int64_t kT0 = 1700000000000;

std::string LongBytes(int64_t v) {
  std::string out(8, '\0');
  for (int i = 0; i < 8; ++i) {
    out[i] = static_cast<char>((static_cast<uint64_t>(v) >> (8 * i)) & 0xFF);
  }
  return out;
}

// Schema: 1 id long required, 2 data string, 3 category string; partitioned by
// identity(category) (field 1000) or unpartitioned.
TableMetadata NewTableMetadata(int format_version, bool partitioned) {
  Schema schema = *Schema::Make({NestedField::Required(1, "id", LongType()),
                                 NestedField::Optional(2, "data", StringType()),
                                 NestedField::Optional(3, "category", StringType())});
  PartitionSpec spec = partitioned ? *PartitionSpecBuilder(schema).Identity("category").Build()
                                   : PartitionSpec::Unpartitioned();
  auto md = TableMetadataBuilder::NewTable(schema, spec, SortOrder::Unsorted(), "mem://wh/db/t",
                                           {{"format-version", std::to_string(format_version)}},
                                           "9c12d441-03fe-4693-9a96-a0705ddf69c1", kT0);
  FLOE_EXPECT_OK(md);
  return *md;
}

DataFile Data(std::string path, int64_t rows, std::optional<std::string> category,
              int64_t min_id = 0, int64_t max_id = 9) {
  DataFile f;
  f.file_path = std::move(path);
  f.record_count = rows;
  f.file_size_in_bytes = rows * 10;
  if (category) f.partition = {Literal::String(*category)};
  f.value_counts = {{1, rows}};
  f.null_value_counts = {{1, 0}};
  f.lower_bounds = {{1, LongBytes(min_id)}};
  f.upper_bounds = {{1, LongBytes(max_id)}};
  return f;
}

DataFile EqDelete(std::string path, int64_t rows, std::optional<std::string> category) {
  DataFile f = Data(std::move(path), rows, std::move(category));
  f.content = FileContent::kEqualityDeletes;
  f.equality_ids = std::vector<int32_t>{1};
  return f;
}

DataFile PosDelete(std::string path, int64_t rows, std::optional<std::string> category,
                   std::string referenced) {
  DataFile f = Data(std::move(path), rows, std::move(category));
  f.content = FileContent::kPositionDeletes;
  f.referenced_data_file = std::move(referenced);
  f.lower_bounds.clear();
  f.upper_bounds.clear();
  return f;
}

DataFile DV(std::string path, int64_t cardinality, std::optional<std::string> category,
            std::string referenced, int64_t offset) {
  DataFile f = PosDelete(std::move(path), cardinality, std::move(category), std::move(referenced));
  f.file_format = FileFormat::kPuffin;
  f.content_offset = offset;
  f.content_size_in_bytes = 40;
  f.file_size_in_bytes = 1000;
  return f;
}

std::string Summary(const Snapshot& s, std::string_view key) {
  const std::string* v = s.SummaryValue(key);
  return v ? *v : "<none>";
}

struct LiveEntry {
  ManifestEntry entry;
  ManifestContent content;
};

class TableTest : public ::testing::TestWithParam<int> {
 protected:
  void Init(int version, bool partitioned) {
    auto ops =
        InMemoryTableOperations::Create("db.t", io_, env_, NewTableMetadata(version, partitioned));
    FLOE_ASSERT_OK(ops);
    ops_ = std::move(*ops);
    auto table = Table::Load(*ops_);
    FLOE_ASSERT_OK(table);
    table_ = std::move(*table);
    table_->set_sleeper([this](int64_t ms) { sleeps_.push_back(ms); });
  }

  // A second handle on the same table, standing in for a concurrent writer.
  std::unique_ptr<Table> Other() {
    auto t = Table::Load(*ops_);
    FLOE_EXPECT_OK(t);
    return std::move(*t);
  }

  void Append(Table& t, std::vector<DataFile> files) {
    env_.Advance(1000);
    auto op = t.NewAppend();
    for (const auto& f : files) op->AppendFile(f);
    Status st = op->Commit();
    FLOE_ASSERT_OK(st);
  }

  std::vector<ManifestEntry> Entries(const Snapshot& s, ManifestEntryFilter filter,
                                     std::optional<ManifestContent> content = std::nullopt) {
    std::vector<ManifestEntry> out;
    auto ms = ReadSnapshotManifests(s, io_);
    FLOE_EXPECT_OK(ms);
    for (const ManifestFile& m : *ms) {
      if (content && m.content != *content) continue;
      auto es = ReadManifestEntries(*table_->metadata(), m, io_, filter);
      FLOE_EXPECT_OK(es);
      out.insert(out.end(), es->begin(), es->end());
    }
    return out;
  }

  const ManifestEntry* Find(const std::vector<ManifestEntry>& es, const std::string& path) {
    for (const auto& e : es) {
      if (e.data_file.file_path == path) return &e;
    }
    return nullptr;
  }

  bool Exists(const std::string& path) { return *io_.Exists(path); }

  io::MemoryFileIO io_;
  FixedCommitEnvironment env_{kT0};
  std::unique_ptr<InMemoryTableOperations> ops_;
  std::unique_ptr<Table> table_;
  std::vector<int64_t> sleeps_;
};

TEST_F(TableTest, AppendSequenceNumbersSummaryAndRequirements) {
  Init(2, true);
  Append(*table_, {Data("mem://d/a.parquet", 10, "x"), Data("mem://d/b.parquet", 20, "y")});
  const Snapshot s1copy = *table_->metadata()->current_snapshot();
  const Snapshot* s1 = &s1copy;
  ASSERT_NE(s1, nullptr);
  // A plain append sends assert-table-uuid + assert-ref-snapshot-id(main, null) and
  // add-snapshot + set-snapshot-ref (iceberg.md §2.3, Java UpdateRequirements).
  ASSERT_EQ(ops_->last_requirements().size(), 2u);
  EXPECT_EQ(RequirementType(ops_->last_requirements()[0]), "assert-table-uuid");
  auto ref_req = std::get<requirement::AssertRefSnapshotId>(ops_->last_requirements()[1]);
  EXPECT_EQ(ref_req.ref, "main");
  EXPECT_FALSE(ref_req.snapshot_id.has_value());
  ASSERT_EQ(ops_->last_updates().size(), 2u);
  EXPECT_EQ(UpdateAction(ops_->last_updates()[0]), "add-snapshot");
  EXPECT_EQ(UpdateAction(ops_->last_updates()[1]), "set-snapshot-ref");

  EXPECT_EQ(s1->sequence_number, 1);
  EXPECT_EQ(s1->operation, "append");
  EXPECT_FALSE(s1->parent_snapshot_id.has_value());
  EXPECT_EQ(Summary(*s1, "added-data-files"), "2");
  EXPECT_EQ(Summary(*s1, "added-records"), "30");
  EXPECT_EQ(Summary(*s1, "added-files-size"), "300");
  EXPECT_EQ(Summary(*s1, "changed-partition-count"), "2");
  EXPECT_EQ(Summary(*s1, "total-records"), "30");
  EXPECT_EQ(Summary(*s1, "total-data-files"), "2");
  EXPECT_EQ(Summary(*s1, "total-delete-files"), "0");
  EXPECT_EQ(Summary(*s1, "total-files-size"), "300");
  EXPECT_EQ(Summary(*s1, "manifests-created"), "1");
  EXPECT_EQ(Summary(*s1, "manifests-kept"), "0");

  Append(*table_, {Data("mem://d/c.parquet", 5, "x")});
  const Snapshot s2copy = *table_->metadata()->current_snapshot();
  const Snapshot* s2 = &s2copy;
  EXPECT_EQ(s2->sequence_number, 2);
  EXPECT_EQ(s2->parent_snapshot_id, s1->snapshot_id);
  EXPECT_EQ(Summary(*s2, "manifests-created"), "1");
  EXPECT_EQ(Summary(*s2, "manifests-kept"), "1");
  EXPECT_EQ(Summary(*s2, "total-records"), "35");
  EXPECT_EQ(Summary(*s2, "total-data-files"), "3");
  // Two manifests stay below min-count-to-merge: the old one is kept, so its entries keep
  // sequence number 1; the new entries inherit 2 from the manifest list (spec "Sequence
  // Number Inheritance").
  auto es = Entries(*s2, ManifestEntryFilter::kAll);
  ASSERT_EQ(es.size(), 3u);
  EXPECT_EQ(Find(es, "mem://d/a.parquet")->data_sequence_number, 1);
  EXPECT_EQ(Find(es, "mem://d/a.parquet")->status, ManifestStatus::kAdded);
  EXPECT_EQ(Find(es, "mem://d/c.parquet")->data_sequence_number, 2);
  EXPECT_EQ(Find(es, "mem://d/c.parquet")->file_sequence_number, 2);
  EXPECT_EQ(Find(es, "mem://d/c.parquet")->snapshot_id, s2->snapshot_id);
  EXPECT_EQ(table_->metadata()->last_sequence_number, 2);
}

TEST_F(TableTest, RowDeltaAddsDeletesAsDeleteOperation) {
  Init(2, true);
  Append(*table_, {Data("mem://d/a.parquet", 10, "x")});
  auto rd = table_->NewRowDelta();
  rd->AddDeletes(EqDelete("mem://d/eq1.parquet", 3, "x"))
      .AddDeletes(PosDelete("mem://d/pos1.parquet", 2, "x", "mem://d/a.parquet"))
      .ValidateFromSnapshot(table_->metadata()->current_snapshot()->snapshot_id)
      .ValidateDataFilesExist({"mem://d/a.parquet"});
  FLOE_ASSERT_OK(rd->Commit());
  const Snapshot scopy = *table_->metadata()->current_snapshot();
  const Snapshot* s = &scopy;
  // Java BaseRowDelta: only delete files added -> "delete".
  EXPECT_EQ(s->operation, "delete");
  EXPECT_EQ(s->sequence_number, 2);
  EXPECT_EQ(Summary(*s, "added-delete-files"), "2");
  EXPECT_EQ(Summary(*s, "added-equality-delete-files"), "1");
  EXPECT_EQ(Summary(*s, "added-position-delete-files"), "1");
  EXPECT_EQ(Summary(*s, "added-equality-deletes"), "3");
  EXPECT_EQ(Summary(*s, "added-position-deletes"), "2");
  EXPECT_EQ(Summary(*s, "total-delete-files"), "2");
  EXPECT_EQ(Summary(*s, "total-equality-deletes"), "3");
  EXPECT_EQ(Summary(*s, "total-position-deletes"), "2");
  EXPECT_EQ(Summary(*s, "total-data-files"), "1");
  auto deletes = Entries(*s, ManifestEntryFilter::kLive, ManifestContent::kDeletes);
  ASSERT_EQ(deletes.size(), 2u);
  for (const auto& e : deletes) EXPECT_EQ(e.data_sequence_number, 2);

  // Adding rows and deletes together is an overwrite; adding rows only is an append.
  auto rd2 = table_->NewRowDelta();
  rd2->AddRows(Data("mem://d/b.parquet", 1, "x"))
      .AddDeletes(EqDelete("mem://d/eq2.parquet", 1, "x"));
  FLOE_ASSERT_OK(rd2->Commit());
  EXPECT_EQ(table_->metadata()->current_snapshot()->operation, "overwrite");
  auto rd3 = table_->NewRowDelta();
  rd3->AddRows(Data("mem://d/c.parquet", 1, "x"));
  FLOE_ASSERT_OK(rd3->Commit());
  EXPECT_EQ(table_->metadata()->current_snapshot()->operation, "append");
}

TEST_F(TableTest, RowDeltaValidatesReferencedDataFilesExist) {
  Init(2, true);
  Append(*table_, {Data("mem://d/a.parquet", 10, "x")});
  const int64_t start = table_->metadata()->current_snapshot()->snapshot_id;
  auto other = Other();
  auto del = other->NewDelete();
  del->DeleteFile("mem://d/a.parquet");
  FLOE_ASSERT_OK(del->Commit());
  // Java BaseRowDelta.validateDataFilesExist: the position delete's data file was removed
  // after the starting snapshot.
  auto rd = table_->NewRowDelta();
  rd->AddDeletes(PosDelete("mem://d/pos.parquet", 1, "x", "mem://d/a.parquet"))
      .ValidateFromSnapshot(start)
      .ValidateDataFilesExist({"mem://d/a.parquet"})
      .ValidateDeletedFiles();
  Status st = rd->Commit();
  EXPECT_EQ(st.code(), StatusCode::kConflict) << st.ToString();
  EXPECT_NE(st.message().find("missing data files"), std::string_view::npos) << st.ToString();
  // validateNoConflictingDeleteFiles: a delete file added since the start conflicts.
  auto rd2 = other->NewRowDelta();
  rd2->AddDeletes(EqDelete("mem://d/eq.parquet", 1, "x"));
  FLOE_ASSERT_OK(rd2->Commit());
  auto rd3 = table_->NewRowDelta();
  rd3->AddRows(Data("mem://d/b.parquet", 1, "x"))
      .ValidateFromSnapshot(start)
      .ConflictDetectionFilter(*ParseExpression("category = 'x'"))
      .ValidateNoConflictingDeleteFiles();
  EXPECT_EQ(rd3->Commit().code(), StatusCode::kConflict);
  auto rd4 = table_->NewRowDelta();
  rd4->AddRows(Data("mem://d/b.parquet", 1, "x"))
      .ValidateFromSnapshot(start)
      .ConflictDetectionFilter(*ParseExpression("category = 'y'"))
      .ValidateNoConflictingDeleteFiles();
  FLOE_EXPECT_OK(rd4->Commit());
}

TEST_F(TableTest, DeletesAreRejectedInV1) {
  Init(1, false);
  Append(*table_, {Data("mem://d/a.parquet", 10, std::nullopt)});
  EXPECT_EQ(table_->metadata()->current_snapshot()->sequence_number, 0);
  auto rd = table_->NewRowDelta();
  rd->AddDeletes(EqDelete("mem://d/eq.parquet", 1, std::nullopt));
  EXPECT_EQ(rd->Commit().code(), StatusCode::kInvalidArgument);
}

// DESIGN.md §4 rule 1: a rewrite's new files take the starting snapshot's data sequence
// number, so an equality delete committed meanwhile still applies to them.
TEST_F(TableTest, RewriteKeepsStartingSequenceNumberAndConcurrentEqualityDeletesApply) {
  Init(2, true);
  Append(*table_, {Data("mem://d/a.parquet", 10, "x"), Data("mem://d/b.parquet", 10, "x")});
  const int64_t start = table_->metadata()->current_snapshot()->snapshot_id;

  auto writer = Other();
  auto rd = writer->NewRowDelta();
  rd->AddDeletes(EqDelete("mem://d/eq.parquet", 1, "x"));
  FLOE_ASSERT_OK(rd->Commit());  // sequence number 2

  auto rw = table_->NewRewrite();
  rw->DeleteFile(Data("mem://d/a.parquet", 10, "x"))
      .DeleteFile(Data("mem://d/b.parquet", 10, "x"))
      .AddFile(Data("mem://d/ab.parquet", 20, "x"))
      .ValidateFromSnapshot(start);
  Status st = rw->Commit();
  FLOE_ASSERT_OK(st);
  const Snapshot scopy = *table_->metadata()->current_snapshot();
  const Snapshot* s = &scopy;
  EXPECT_EQ(s->operation, "replace");
  EXPECT_EQ(s->sequence_number, 3);
  EXPECT_EQ(Summary(*s, "added-data-files"), "1");
  EXPECT_EQ(Summary(*s, "deleted-data-files"), "2");
  EXPECT_EQ(Summary(*s, "added-records"), "20");
  EXPECT_EQ(Summary(*s, "deleted-records"), "20");
  EXPECT_EQ(Summary(*s, "total-data-files"), "1");
  EXPECT_EQ(Summary(*s, "total-delete-files"), "1");
  EXPECT_EQ(Summary(*s, "manifests-replaced"), "1");

  auto es = Entries(*s, ManifestEntryFilter::kAll);
  const ManifestEntry* ab = Find(es, "mem://d/ab.parquet");
  ASSERT_NE(ab, nullptr);
  EXPECT_EQ(ab->status, ManifestStatus::kAdded);
  EXPECT_EQ(ab->data_sequence_number, 1);  // the starting snapshot's
  EXPECT_EQ(ab->file_sequence_number, 3);  // the commit's
  const ManifestEntry* a = Find(es, "mem://d/a.parquet");
  ASSERT_NE(a, nullptr);
  EXPECT_EQ(a->status, ManifestStatus::kDeleted);
  EXPECT_EQ(a->data_sequence_number, 1);
  EXPECT_EQ(a->snapshot_id, s->snapshot_id);
  const ManifestEntry* eq = Find(es, "mem://d/eq.parquet");
  ASSERT_NE(eq, nullptr);
  EXPECT_TRUE(eq->is_live());
  // Equality deletes apply to strictly lower data sequence numbers: 2 > 1.
  EXPECT_GT(*eq->data_sequence_number, *ab->data_sequence_number);
}

// Java's MergingSnapshotProducer drops delete files older than the smallest data sequence
// number of the remaining data manifests, ignoring the rewrite's new files that keep an
// older number (open upstream: apache/iceberg#10962). Here eq (2) is older than b (3), but
// still applies to ab (1): it must stay.
TEST_F(TableTest, RewriteKeepsEqualityDeletesNeededByItsOwnNewFiles) {
  Init(2, true);
  Append(*table_, {Data("mem://d/a.parquet", 10, "x")});
  const int64_t start = table_->metadata()->current_snapshot()->snapshot_id;
  auto other = Other();
  auto rd = other->NewRowDelta();
  rd->AddDeletes(EqDelete("mem://d/eq.parquet", 1, "x"));
  FLOE_ASSERT_OK(rd->Commit());
  Append(*other, {Data("mem://d/b.parquet", 10, "x")});
  auto rw = table_->NewRewrite();
  rw->DeleteFile(Data("mem://d/a.parquet", 10, "x"))
      .AddFile(Data("mem://d/ab.parquet", 10, "x"))
      .ValidateFromSnapshot(start);
  Status st = rw->Commit();
  FLOE_ASSERT_OK(st);
  const Snapshot s = *table_->metadata()->current_snapshot();
  auto es = Entries(s, ManifestEntryFilter::kLive);
  ASSERT_NE(Find(es, "mem://d/eq.parquet"), nullptr);
  EXPECT_EQ(Find(es, "mem://d/ab.parquet")->data_sequence_number, 1);
  EXPECT_EQ(Summary(s, "total-delete-files"), "1");
}

TEST_F(TableTest, RewriteFailsOnConcurrentPositionDeletesAndCleansUp) {
  Init(2, true);
  Append(*table_, {Data("mem://d/a.parquet", 10, "x")});
  const int64_t start = table_->metadata()->current_snapshot()->snapshot_id;
  auto writer = Other();
  // The position delete lands between the rewrite's first attempt and its commit.
  ops_->set_before_commit([&] {
    auto rd = writer->NewRowDelta();
    rd->AddDeletes(PosDelete("mem://d/pos.parquet", 1, "x", "mem://d/a.parquet"));
    return rd->Commit();
  });
  auto rw = table_->NewRewrite();
  rw->DeleteFile(Data("mem://d/a.parquet", 10, "x"))
      .AddFile(Data("mem://d/a2.parquet", 10, "x"))
      .ValidateFromSnapshot(start);
  Status st = rw->Commit();
  EXPECT_EQ(st.code(), StatusCode::kConflict) << st.ToString();
  EXPECT_NE(st.message().find("position delete"), std::string_view::npos) << st.ToString();
  // The attempt's manifest list and manifests are gone; the table has the row delta only.
  auto files = io_.List("mem://wh/db/t/metadata/snap-");
  for (const auto& f : *files) {
    EXPECT_EQ(f.location.find("snap-" + std::to_string(*rw->snapshot_id())), std::string::npos)
        << f.location;
  }
  EXPECT_EQ(table_->metadata()->current_snapshot()->operation, "delete");
}

TEST_F(TableTest, RetryAfterConcurrentAppendKeepsBothCommits) {
  Init(2, false);
  Append(*table_, {Data("mem://d/a.parquet", 10, std::nullopt)});
  auto writer = Other();
  ops_->set_before_commit([&] {
    env_.Advance(10);
    auto op = writer->NewAppend();
    op->AppendFile(Data("mem://d/c.parquet", 3, std::nullopt));
    return op->Commit();
  });
  auto op = table_->NewAppend();
  op->AppendFile(Data("mem://d/b.parquet", 5, std::nullopt));
  Status st = op->Commit();
  FLOE_ASSERT_OK(st);
  EXPECT_EQ(sleeps_, std::vector<int64_t>{100});  // commit.retry.min-wait-ms
  const TableMetadata& md = *table_->metadata();
  ASSERT_EQ(md.snapshots.size(), 3u);
  const Snapshot* s = md.current_snapshot();
  EXPECT_EQ(s->snapshot_id, *op->snapshot_id());
  EXPECT_EQ(s->sequence_number, 3);
  EXPECT_EQ(md.snapshot_by_id(*s->parent_snapshot_id)->sequence_number, 2);
  EXPECT_EQ(Summary(*s, "total-data-files"), "3");
  EXPECT_EQ(Summary(*s, "total-records"), "18");
  auto es = Entries(*s, ManifestEntryFilter::kLive);
  EXPECT_EQ(es.size(), 3u);
  EXPECT_EQ(Find(es, "mem://d/b.parquet")->data_sequence_number, 3);
  EXPECT_EQ(Find(es, "mem://d/c.parquet")->data_sequence_number, 2);
  // The first attempt's manifest list was deleted; the final one exists.
  auto lists = io_.List("mem://wh/db/t/metadata/snap-" + std::to_string(s->snapshot_id));
  ASSERT_EQ(lists->size(), 1u);
  EXPECT_EQ((*lists)[0].location, s->manifest_list);
  EXPECT_NE(s->manifest_list.find("-2-"), std::string::npos);  // attempt 2
  // The retry reused the manifest the first attempt wrote: one manifest per append.
  int manifests = 0;
  auto listing = io_.List("mem://wh/db/t/metadata/");
  FLOE_ASSERT_OK(listing);
  for (const auto& f : *listing) {
    if (f.location.find("-m") != std::string::npos && f.location.ends_with(".avro")) ++manifests;
  }
  EXPECT_EQ(manifests, 3);
}

TEST_F(TableTest, UnknownCommitOutcomeDeletesNothing) {
  Init(2, false);
  ops_->FailAfterNextCommit(Status::Unavailable("connection reset"));
  auto op = table_->NewAppend();
  op->AppendFile(Data("mem://d/a.parquet", 10, std::nullopt));
  EXPECT_EQ(op->Commit().code(), StatusCode::kUnavailable);
  const Snapshot* committed = ops_->current()->current_snapshot();
  ASSERT_NE(committed, nullptr);
  EXPECT_TRUE(Exists(committed->manifest_list));
  auto ms = ReadSnapshotManifests(*committed, io_);
  FLOE_ASSERT_OK(ms);
  for (const auto& m : *ms) EXPECT_TRUE(Exists(m.manifest_path));
}

TEST_F(TableTest, ExhaustedRetriesCleanUp) {
  Init(2, false);
  auto props = table_->NewUpdateProperties();
  props->Set("commit.retry.num-retries", "0");
  FLOE_ASSERT_OK(props->Commit());
  ops_->set_before_commit([] { return Status::Conflict("lost the race"); });
  auto op = table_->NewAppend();
  op->AppendFile(Data("mem://d/a.parquet", 10, std::nullopt));
  EXPECT_EQ(op->Commit().code(), StatusCode::kConflict);
  EXPECT_TRUE(sleeps_.empty());
  auto files = io_.List("mem://wh/db/t/metadata/");
  for (const auto& f : *files) {
    EXPECT_EQ(f.location.find(".avro"), std::string::npos) << f.location;
  }
}

TEST_F(TableTest, DeleteByRowFilterUsesStrictEvaluation) {
  Init(2, true);
  Append(*table_,
         {Data("mem://d/x1.parquet", 10, "x", 0, 9), Data("mem://d/x2.parquet", 10, "x", 10, 19),
          Data("mem://d/y1.parquet", 10, "y", 0, 9)});
  // Partition values decide identity-partitioned columns.
  auto del = table_->NewDelete();
  del->DeleteFromRowFilter(*ParseExpression("category = 'y'"));
  FLOE_ASSERT_OK(del->Commit());
  const Snapshot scopy = *table_->metadata()->current_snapshot();
  const Snapshot* s = &scopy;
  EXPECT_EQ(s->operation, "delete");
  EXPECT_EQ(Summary(*s, "deleted-data-files"), "1");
  EXPECT_EQ(Summary(*s, "deleted-records"), "10");
  EXPECT_EQ(Summary(*s, "total-data-files"), "2");
  EXPECT_EQ(Summary(*s, "changed-partition-count"), "1");

  // Rows of x1 all have id < 10 (bounds 0..9): deleted; x2 has none.
  auto del2 = table_->NewDelete();
  del2->DeleteFromRowFilter(*ParseExpression("id < 10"));
  FLOE_ASSERT_OK(del2->Commit());
  auto live = Entries(*table_->metadata()->current_snapshot(), ManifestEntryFilter::kLive);
  ASSERT_EQ(live.size(), 1u);
  EXPECT_EQ(live[0].data_file.file_path, "mem://d/x2.parquet");

  // Only some rows of x2 match: Java's "Cannot delete file where some, but not all, rows
  // match filter".
  auto del3 = table_->NewDelete();
  del3->DeleteFromRowFilter(*ParseExpression("id < 15"));
  Status st = del3->Commit();
  EXPECT_EQ(st.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(st.message().find("some, but not all"), std::string_view::npos);

  auto del4 = table_->NewDelete();
  del4->DeleteFile("mem://d/missing.parquet").ValidateFilesExist();
  EXPECT_EQ(del4->Commit().code(), StatusCode::kConflict);
}

TEST_F(TableTest, OverwriteValidatesConflictingData) {
  Init(2, true);
  Append(*table_, {Data("mem://d/x1.parquet", 10, "x")});
  const int64_t start = table_->metadata()->current_snapshot()->snapshot_id;
  Append(*Other(), {Data("mem://d/x2.parquet", 10, "x")});
  auto ow = table_->NewOverwrite();
  ow->OverwriteByRowFilter(*ParseExpression("category = 'x'"))
      .AddFile(Data("mem://d/x3.parquet", 5, "x"))
      .ValidateFromSnapshot(start)
      .ValidateNoConflictingData();
  Status st = ow->Commit();
  EXPECT_EQ(st.code(), StatusCode::kConflict) << st.ToString();
  EXPECT_NE(st.message().find("mem://d/x2.parquet"), std::string_view::npos);

  auto ow2 = table_->NewOverwrite();
  ow2->OverwriteByRowFilter(*ParseExpression("category = 'x'"))
      .AddFile(Data("mem://d/x3.parquet", 5, "x"))
      .ValidateFromSnapshot(table_->metadata()->current_snapshot()->snapshot_id)
      .ValidateNoConflictingData();
  FLOE_ASSERT_OK(ow2->Commit());
  const Snapshot scopy = *table_->metadata()->current_snapshot();
  const Snapshot* s = &scopy;
  EXPECT_EQ(s->operation, "overwrite");
  EXPECT_EQ(Summary(*s, "deleted-data-files"), "2");
  EXPECT_EQ(Summary(*s, "added-data-files"), "1");
  EXPECT_EQ(Summary(*s, "total-records"), "5");
}

TEST_F(TableTest, V3DeletionVectorReplacesPreviousAndRowLineage) {
  Init(3, false);
  Append(*table_,
         {Data("mem://d/a.parquet", 10, std::nullopt), Data("mem://d/b.parquet", 5, std::nullopt)});
  const Snapshot s1copy = *table_->metadata()->current_snapshot();
  const Snapshot* s1 = &s1copy;
  // Spec "Row Lineage": first-row-id = next-row-id (0); added-rows = assigned ids.
  EXPECT_EQ(s1->first_row_id, 0);
  EXPECT_EQ(s1->added_rows, 15);
  EXPECT_EQ(table_->metadata()->next_row_id, 15);
  auto es = Entries(*s1, ManifestEntryFilter::kLive);
  EXPECT_EQ(Find(es, "mem://d/a.parquet")->data_file.first_row_id, 0);
  EXPECT_EQ(Find(es, "mem://d/b.parquet")->data_file.first_row_id, 10);

  auto rd = table_->NewRowDelta();
  rd->AddDeletes(DV("mem://d/dv1.puffin", 2, std::nullopt, "mem://d/a.parquet", 4))
      .ValidateFromSnapshot(s1->snapshot_id);
  FLOE_ASSERT_OK(rd->Commit());
  const Snapshot s2copy = *table_->metadata()->current_snapshot();
  const Snapshot* s2 = &s2copy;
  EXPECT_EQ(Summary(*s2, "added-dvs"), "1");
  EXPECT_EQ(Summary(*s2, "added-files-size"), "40");  // a DV counts its content size
  EXPECT_EQ(s2->first_row_id, 15);
  EXPECT_EQ(s2->added_rows, 0);  // the data manifest keeps its first_row_id

  auto rd2 = table_->NewRowDelta();
  rd2->AddDeletes(DV("mem://d/dv2.puffin", 3, std::nullopt, "mem://d/a.parquet", 4))
      .ValidateFromSnapshot(s2->snapshot_id);
  Status st = rd2->Commit();
  FLOE_ASSERT_OK(st);
  const Snapshot s3copy = *table_->metadata()->current_snapshot();
  const Snapshot* s3 = &s3copy;
  EXPECT_EQ(Summary(*s3, "added-dvs"), "1");
  EXPECT_EQ(Summary(*s3, "removed-dvs"), "1");
  EXPECT_EQ(Summary(*s3, "total-delete-files"), "1");
  EXPECT_EQ(Summary(*s3, "total-position-deletes"), "3");
  auto all = Entries(*s3, ManifestEntryFilter::kAll, ManifestContent::kDeletes);
  EXPECT_EQ(Find(all, "mem://d/dv1.puffin")->status, ManifestStatus::kDeleted);
  EXPECT_EQ(Find(all, "mem://d/dv2.puffin")->status, ManifestStatus::kAdded);

  // A DV committed concurrently for the same data file conflicts (Java validateAddedDVs).
  auto writer = Other();
  auto rd3 = writer->NewRowDelta();
  rd3->AddDeletes(DV("mem://d/dv3.puffin", 4, std::nullopt, "mem://d/a.parquet", 4))
      .ValidateFromSnapshot(s3->snapshot_id);
  FLOE_ASSERT_OK(rd3->Commit());
  auto rd4 = table_->NewRowDelta();
  rd4->AddDeletes(DV("mem://d/dv4.puffin", 4, std::nullopt, "mem://d/a.parquet", 4))
      .ValidateFromSnapshot(s3->snapshot_id);
  EXPECT_EQ(rd4->Commit().code(), StatusCode::kConflict);

  // v3 forbids position delete files (Java: "Must use DVs for position deletes in V3").
  auto rd5 = table_->NewRowDelta();
  rd5->AddDeletes(PosDelete("mem://d/p.parquet", 1, std::nullopt, "mem://d/b.parquet"));
  EXPECT_EQ(rd5->Commit().code(), StatusCode::kInvalidArgument);
}

// One Puffin file holds the DVs of several data files; removing one of them (floe table
// delete merging a data file's previous DV) must leave the others live (Java's
// DeleteFileSet tells DVs apart by path and offset). Found by Iceberg Java reading a floe
// table whose earlier deletes came back.
TEST_F(TableTest, RemovingOneDeletionVectorKeepsItsPuffinNeighbours) {
  Init(3, false);
  Append(*table_,
         {Data("mem://d/a.parquet", 10, std::nullopt), Data("mem://d/b.parquet", 5, std::nullopt)});
  const DataFile dv_a = DV("mem://d/dv1.puffin", 1, std::nullopt, "mem://d/a.parquet", 4);
  const DataFile dv_b = DV("mem://d/dv1.puffin", 1, std::nullopt, "mem://d/b.parquet", 46);
  auto rd = table_->NewRowDelta();
  rd->AddDeletes(dv_a).AddDeletes(dv_b);
  FLOE_ASSERT_OK(rd->Commit());
  const Snapshot& s1 = *table_->metadata()->current_snapshot();
  EXPECT_EQ(Summary(s1, "added-dvs"), "2");

  auto rd2 = table_->NewRowDelta();
  rd2->RemoveDeletes(dv_a)
      .AddDeletes(DV("mem://d/dv2.puffin", 2, std::nullopt, "mem://d/a.parquet", 4))
      .ValidateFromSnapshot(s1.snapshot_id);
  Status st = rd2->Commit();
  FLOE_ASSERT_OK(st);
  const Snapshot& s = *table_->metadata()->current_snapshot();
  EXPECT_EQ(Summary(s, "removed-dvs"), "1");
  EXPECT_EQ(Summary(s, "deleted-duplicate-files"), "<none>");
  EXPECT_EQ(Summary(s, "total-delete-files"), "2");
  EXPECT_EQ(Summary(s, "total-position-deletes"), "3");
  auto live = Entries(s, ManifestEntryFilter::kLive, ManifestContent::kDeletes);
  ASSERT_EQ(live.size(), 2u);
  std::set<std::pair<std::string, int64_t>> dvs;
  for (const auto& e : live) {
    dvs.insert({*e.data_file.referenced_data_file, e.data_file.record_count});
  }
  EXPECT_EQ(dvs, (std::set<std::pair<std::string, int64_t>>{{"mem://d/a.parquet", 2},
                                                            {"mem://d/b.parquet", 1}}));
}

TEST_F(TableTest, RewriteNeverDropsDeletesStillNeeded) {
  Init(2, true);
  Append(*table_, {Data("mem://d/a.parquet", 10, "x"), Data("mem://d/b.parquet", 10, "x")});
  auto rd = table_->NewRowDelta();
  rd->AddDeletes(EqDelete("mem://d/eq.parquet", 1, "x"));
  FLOE_ASSERT_OK(rd->Commit());
  const int64_t start = table_->metadata()->current_snapshot()->snapshot_id;
  // Rewriting a alone may not remove the equality delete: it still applies to b.
  auto rw = table_->NewRewrite();
  rw->DeleteFile(Data("mem://d/a.parquet", 10, "x"))
      .DeleteDeleteFile(EqDelete("mem://d/eq.parquet", 1, "x"))
      .AddFile(Data("mem://d/a2.parquet", 9, "x"))
      .ValidateFromSnapshot(start);
  EXPECT_EQ(rw->Commit().code(), StatusCode::kConflict);
  // Rewriting both data files removes it.
  auto rw2 = table_->NewRewrite();
  rw2->DeleteFile(Data("mem://d/a.parquet", 10, "x"))
      .DeleteFile(Data("mem://d/b.parquet", 10, "x"))
      .DeleteDeleteFile(EqDelete("mem://d/eq.parquet", 1, "x"))
      .AddFile(Data("mem://d/ab.parquet", 18, "x"))
      .ValidateFromSnapshot(start);
  Status st = rw2->Commit();
  FLOE_ASSERT_OK(st);
  const Snapshot scopy = *table_->metadata()->current_snapshot();
  const Snapshot* s = &scopy;
  EXPECT_EQ(Summary(*s, "removed-equality-delete-files"), "1");
  EXPECT_EQ(Summary(*s, "total-delete-files"), "0");
  // The new file takes the starting snapshot's sequence number (2).
  auto es = Entries(*s, ManifestEntryFilter::kLive);
  ASSERT_EQ(es.size(), 1u);
  EXPECT_EQ(es[0].data_sequence_number, 2);
}

TEST_F(TableTest, TransactionCommitsOnceWithJavaRequirements) {
  Init(2, false);
  Append(*table_, {Data("mem://d/a.parquet", 10, std::nullopt)});
  const int64_t head = table_->metadata()->current_snapshot()->snapshot_id;
  const int64_t calls = ops_->commit_calls();
  auto tx = table_->NewTransaction();
  FLOE_ASSERT_OK(tx->NewUpdateSchema().AddColumn("", "extra", IntType()).Commit());
  FLOE_ASSERT_OK(tx->NewAppend().AppendFile(Data("mem://d/b.parquet", 1, std::nullopt)).Commit());
  FLOE_ASSERT_OK(tx->NewUpdateProperties().Set("k", "v").Commit());
  FLOE_ASSERT_OK(tx->Commit());
  EXPECT_EQ(ops_->commit_calls(), calls + 1);
  const auto& reqs = ops_->last_requirements();
  ASSERT_EQ(reqs.size(), 4u);
  EXPECT_EQ(RequirementType(reqs[0]), "assert-table-uuid");
  EXPECT_EQ(std::get<requirement::AssertLastAssignedFieldId>(reqs[1]).last_assigned_field_id, 3);
  EXPECT_EQ(std::get<requirement::AssertCurrentSchemaId>(reqs[2]).current_schema_id, 0);
  EXPECT_EQ(std::get<requirement::AssertRefSnapshotId>(reqs[3]).snapshot_id, head);
  const TableMetadata& md = *table_->metadata();
  EXPECT_EQ(md.current_schema_id, 1);
  EXPECT_NE(md.current_schema()->FindFieldByName("extra"), nullptr);
  EXPECT_EQ(md.current_snapshot()->schema_id, 1);
  EXPECT_EQ(md.properties.at("k"), "v");
}

TEST_F(TableTest, BranchesTagsAndRollback) {
  Init(2, false);
  Append(*table_, {Data("mem://d/a.parquet", 10, std::nullopt)});
  const int64_t s1 = table_->metadata()->current_snapshot()->snapshot_id;
  Append(*table_, {Data("mem://d/b.parquet", 10, std::nullopt)});
  const int64_t s2 = table_->metadata()->current_snapshot()->snapshot_id;

  auto ms = table_->NewManageSnapshots();
  ms->CreateBranch("dev", s1)
      .CreateTag("v1", s1)
      .SetMaxRefAgeMs("v1", 86400000)
      .SetMinSnapshotsToKeep("dev", 3);
  FLOE_ASSERT_OK(ms->Commit());
  const TableMetadata* md = table_->metadata().get();
  EXPECT_EQ(md->ref("dev")->snapshot_id, s1);
  EXPECT_EQ(md->ref("dev")->min_snapshots_to_keep, 3);
  EXPECT_EQ(md->ref("v1")->type, SnapshotRefType::kTag);
  EXPECT_EQ(md->ref("v1")->max_ref_age_ms, 86400000);

  // A commit to a branch leaves main alone.
  auto op = table_->NewAppend();
  op->AppendFile(Data("mem://d/c.parquet", 1, std::nullopt)).ToBranch("dev");
  FLOE_ASSERT_OK(op->Commit());
  md = table_->metadata().get();
  EXPECT_EQ(md->current_snapshot_id, s2);
  const Snapshot dev_copy = *md->SnapshotForRef("dev");
  const Snapshot* dev = &dev_copy;
  EXPECT_EQ(dev->parent_snapshot_id, s1);
  EXPECT_EQ(Summary(*dev, "total-data-files"), "2");
  EXPECT_EQ(std::get<requirement::AssertRefSnapshotId>(ops_->last_requirements()[1]).ref, "dev");

  // Rollback must target an ancestor of main (Java rollbackTo).
  auto bad = table_->NewManageSnapshots();
  bad->RollbackTo(dev->snapshot_id);
  EXPECT_EQ(bad->Commit().code(), StatusCode::kInvalidArgument);
  auto rb = table_->NewManageSnapshots();
  rb->RollbackTo(s1);
  FLOE_ASSERT_OK(rb->Commit());
  EXPECT_EQ(table_->metadata()->current_snapshot_id, s1);
  EXPECT_EQ(table_->metadata()->snapshot_log.back().snapshot_id, s1);

  // main (s1) is an ancestor of dev: fast-forward moves it to dev's head.
  auto ff = table_->NewManageSnapshots();
  ff->FastForwardBranch("main", "dev").RemoveTag("v1");
  FLOE_ASSERT_OK(ff->Commit());
  EXPECT_EQ(table_->metadata()->current_snapshot_id, dev->snapshot_id);
  EXPECT_EQ(table_->metadata()->ref("v1"), nullptr);
  auto ff2 = table_->NewManageSnapshots();
  ff2->CreateBranch("old", s2).FastForwardBranch("old", "main");
  EXPECT_EQ(ff2->Commit().code(), StatusCode::kInvalidArgument);
}

TEST_F(TableTest, ExpireSnapshotsDeletesOnlyUnreachableFiles) {
  Init(2, false);
  Append(*table_, {Data("mem://d/a.parquet", 10, std::nullopt)});  // S1
  const Snapshot s1 = *table_->metadata()->current_snapshot();
  Append(*table_, {Data("mem://d/b.parquet", 10, std::nullopt)});  // S2
  const Snapshot s2 = *table_->metadata()->current_snapshot();
  env_.Advance(1000);
  auto del = table_->NewDelete();
  del->DeleteFile("mem://d/a.parquet");
  FLOE_ASSERT_OK(del->Commit());  // S3
  const Snapshot s3 = *table_->metadata()->current_snapshot();
  io_.Put("mem://d/a.parquet", "x");
  io_.Put("mem://d/b.parquet", "x");

  env_.Advance(1000);
  auto ex = table_->NewExpireSnapshots();
  ex->ExpireOlderThan(s3.timestamp_ms).RetainLast(1);
  Status st = ex->Commit();
  FLOE_ASSERT_OK(st);
  EXPECT_EQ(table_->metadata()->snapshots.size(), 1u);
  EXPECT_EQ(UpdateAction(ops_->last_updates()[0]), "remove-snapshots");
  const ExpireSnapshotsResult& r = ex->result();
  EXPECT_EQ(r.expired_snapshot_ids.size(), 2u);
  // a was removed by S3 and only expired snapshots reach it live; b is still live.
  EXPECT_EQ(r.deleted_data_files, 1);
  EXPECT_FALSE(Exists("mem://d/a.parquet"));
  EXPECT_TRUE(Exists("mem://d/b.parquet"));
  // S1's manifest (a ADDED) is replaced in S3; S2's new manifest (b) is kept by S3.
  EXPECT_EQ(r.deleted_manifests, 1);
  EXPECT_EQ(r.deleted_manifest_lists, 2);
  EXPECT_FALSE(Exists(s1.manifest_list));
  EXPECT_FALSE(Exists(s2.manifest_list));
  EXPECT_TRUE(Exists(s3.manifest_list));
  auto s3_manifests = ReadSnapshotManifests(s3, io_);
  FLOE_ASSERT_OK(s3_manifests);
  for (const auto& m : *s3_manifests) EXPECT_TRUE(Exists(m.manifest_path));
}

TEST_F(TableTest, ExpireKeepsProtectedTaggedAndRecentSnapshots) {
  Init(2, false);
  Append(*table_, {Data("mem://d/a.parquet", 10, std::nullopt)});
  const int64_t s1 = table_->metadata()->current_snapshot()->snapshot_id;
  Append(*table_, {Data("mem://d/b.parquet", 10, std::nullopt)});
  const int64_t s2 = table_->metadata()->current_snapshot()->snapshot_id;
  Append(*table_, {Data("mem://d/c.parquet", 10, std::nullopt)});
  const int64_t s3 = table_->metadata()->current_snapshot()->snapshot_id;
  auto tag = table_->NewManageSnapshots();
  tag->CreateTag("t", s1);
  FLOE_ASSERT_OK(tag->Commit());

  // Protected (an optimizing process is based on s2) and tagged snapshots stay.
  env_.Advance(10LL * 24 * 3600 * 1000);
  auto ex = table_->NewExpireSnapshots();
  ex->ProtectSnapshots({s2});
  FLOE_ASSERT_OK(ex->Commit());
  const TableMetadata& md = *table_->metadata();
  EXPECT_NE(md.snapshot_by_id(s1), nullptr);
  EXPECT_NE(md.snapshot_by_id(s2), nullptr);
  EXPECT_NE(md.snapshot_by_id(s3), nullptr);
  EXPECT_TRUE(ex->result().expired_snapshot_ids.empty());

  // An explicit id that a ref points at is an error (Java "Still referenced by refs").
  auto ex2 = table_->NewExpireSnapshots();
  ex2->ExpireSnapshotId(s1);
  EXPECT_EQ(ex2->Commit().code(), StatusCode::kInvalidArgument);
  // Without protection s2 expires (older than 5 days, not among the last 1); the tag's
  // max-ref-age is unset, so s1 stays.
  auto ex3 = table_->NewExpireSnapshots();
  FLOE_ASSERT_OK(ex3->Commit());
  EXPECT_EQ(table_->metadata()->snapshot_by_id(s2), nullptr);
  EXPECT_NE(table_->metadata()->snapshot_by_id(s1), nullptr);
  EXPECT_EQ(ex3->result().deleted_data_files, 0);  // a, b, c are all still live in s3
}

TEST_F(TableTest, UpdateSchemaEvolution) {
  Init(2, false);
  auto us = table_->NewUpdateSchema();
  us->AddColumn("", "score", FloatType())
      .RenameColumn("data", "payload")
      .MoveFirst("category")
      .SetIdentifierFields({"id"});
  Status st = us->Commit();
  FLOE_ASSERT_OK(st);
  const Schema* s = table_->metadata()->current_schema();
  ASSERT_EQ(s->fields().size(), 4u);
  EXPECT_EQ(s->fields()[0].name, "category");
  EXPECT_EQ(s->fields()[2].name, "payload");
  EXPECT_EQ(s->fields()[2].id, 2);
  EXPECT_EQ(s->fields()[3].id, 4);  // last-column-id 3 + 1
  EXPECT_EQ(s->identifier_field_ids(), std::vector<int32_t>{1});
  EXPECT_EQ(table_->metadata()->last_column_id, 4);

  auto promote = table_->NewUpdateSchema();
  promote->UpdateColumn("score", DoubleType());
  FLOE_ASSERT_OK(promote->Commit());
  EXPECT_EQ(table_->metadata()->current_schema()->FindFieldByName("score")->type->kind(),
            TypeKind::kDouble);
  auto narrow = table_->NewUpdateSchema();
  narrow->UpdateColumn("id", IntType());
  EXPECT_EQ(narrow->Commit().code(), StatusCode::kInvalidArgument);
  auto req = table_->NewUpdateSchema();
  req->AddColumn("", "must", IntType(), "", /*required=*/true);
  EXPECT_EQ(req->Commit().code(), StatusCode::kInvalidArgument);
  auto drop_id = table_->NewUpdateSchema();
  drop_id->DeleteColumn("id");
  EXPECT_EQ(drop_id->Commit().code(), StatusCode::kInvalidArgument);

  // A schema update made against an older schema does not silently rebase.
  auto stale = table_->NewUpdateSchema();
  stale->DeleteColumn("payload");
  auto other = Other();
  auto concurrent = other->NewUpdateSchema();
  concurrent->AddColumn("", "z", IntType());
  FLOE_ASSERT_OK(concurrent->Commit());
  EXPECT_EQ(stale->Commit().code(), StatusCode::kConflict);
}

TEST_F(TableTest, PartitionEvolutionReusesFieldIds) {
  Init(2, true);
  auto up = table_->NewUpdateSpec();
  up->AddField("id", Transform::Bucket(16));
  FLOE_ASSERT_OK(up->Commit());
  const TableMetadata* md = table_->metadata().get();
  EXPECT_EQ(md->default_spec_id, 1);
  ASSERT_EQ(md->default_spec()->fields().size(), 2u);
  EXPECT_EQ(md->default_spec()->fields()[1].name, "id_bucket");
  EXPECT_EQ(md->default_spec()->fields()[1].field_id, 1001);
  // requirements: assert-last-assigned-partition-id + assert-default-spec-id.
  const auto& reqs = ops_->last_requirements();
  ASSERT_EQ(reqs.size(), 3u);
  EXPECT_EQ(
      std::get<requirement::AssertLastAssignedPartitionId>(reqs[1]).last_assigned_partition_id,
      1000);
  EXPECT_EQ(std::get<requirement::AssertDefaultSpecId>(reqs[2]).default_spec_id, 0);

  auto rm = table_->NewUpdateSpec();
  rm->RemoveField("id_bucket");
  FLOE_ASSERT_OK(rm->Commit());
  // Equivalent to spec 0: that spec becomes the default again, nothing is added.
  EXPECT_EQ(table_->metadata()->default_spec_id, 0);
  EXPECT_EQ(table_->metadata()->specs.size(), 2u);
  auto again = table_->NewUpdateSpec();
  again->AddField("id", Transform::Bucket(16));
  FLOE_ASSERT_OK(again->Commit());
  EXPECT_EQ(table_->metadata()->default_spec_id, 1);

  auto order = table_->NewReplaceSortOrder();
  order->Asc("id").Desc("category");
  FLOE_ASSERT_OK(order->Commit());
  EXPECT_EQ(table_->metadata()->default_sort_order_id, 1);
  EXPECT_EQ(table_->metadata()->default_sort_order()->fields()[1].direction, SortDirection::kDesc);

  auto up3 = table_->NewUpgradeFormatVersion();
  up3->Version(3);
  FLOE_ASSERT_OK(up3->Commit());
  EXPECT_EQ(table_->metadata()->format_version, 3);
  auto down = table_->NewUpgradeFormatVersion();
  down->Version(2);
  EXPECT_EQ(down->Commit().code(), StatusCode::kInvalidArgument);
}

TEST(RequirementsTest, JavaUpdateRequirements) {
  TableMetadata md = NewTableMetadata(2, false);
  md.refs["dev"] = SnapshotRef::Branch(5);
  std::vector<TableUpdate> updates = {
      update::SetSnapshotRef{"main", SnapshotRef::Branch(1)},
      update::SetSnapshotRef{"main", SnapshotRef::Branch(2)},
      update::SetDefaultSortOrder{1},
      update::RemoveSchemas{{7}},
  };
  auto reqs = RequirementsForUpdate(md, updates);
  ASSERT_EQ(reqs.size(), 5u);
  EXPECT_EQ(RequirementType(reqs[0]), "assert-table-uuid");
  EXPECT_EQ(RequirementType(reqs[1]), "assert-ref-snapshot-id");  // once per ref
  EXPECT_EQ(RequirementType(reqs[2]), "assert-default-sort-order-id");
  EXPECT_EQ(RequirementType(reqs[3]), "assert-current-schema-id");
  EXPECT_EQ(std::get<requirement::AssertRefSnapshotId>(reqs[4]).ref, "dev");
}

TEST(InMemoryTableOperationsTest, Contract) {
  io::MemoryFileIO io;
  FixedCommitEnvironment env;
  auto ops = InMemoryTableOperations::Create("db.t", io, env, NewTableMetadata(2, true));
  FLOE_ASSERT_OK(ops);
  testing::CheckTableOperationsContract(**ops);
}

TEST(CommitRetryPolicyTest, ExponentialBackoff) {
  CommitRetryPolicy p;
  EXPECT_EQ(p.WaitMs(1), 100);
  EXPECT_EQ(p.WaitMs(2), 200);
  EXPECT_EQ(p.WaitMs(4), 800);
  EXPECT_EQ(p.WaitMs(40), 60000);
}

}  // namespace
}  // namespace floe::iceberg
