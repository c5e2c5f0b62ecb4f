#include "floe/iceberg/table_metadata_builder.h"

#include <filesystem>
#include <fstream>
#include <sstream>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "floe/base/json.h"
#include "floe/base/testing.h"
#include "floe/iceberg/view_metadata.h"

namespace floe::iceberg {
namespace {

using OJson = nlohmann::ordered_json;
namespace fs = std::filesystem;

std::string ReadText(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

fs::path JavaFile(int version, int n) {
  char name[64];
  std::snprintf(name, sizeof(name), "v%d-%05d.metadata.json", version, n);
  return fs::path(FLOE_ICEBERG_TESTDATA) / "java" / name;
}

TableMetadata ReadJava(int version, int n) {
  auto md = TableMetadataFromJson(ReadText(JavaFile(version, n)));
  FLOE_EXPECT_OK(md);
  return *md;
}

// Java writes properties and refs from hash maps: compare with sorted members.
std::string Canonical(const std::string& text) {
  OJson j = OJson::parse(text);
  for (const char* key : {"properties", "refs"}) {
    std::map<std::string, OJson> sorted;
    for (const auto& [k, v] : j[key].items()) sorted[k] = v;
    OJson o = OJson::object();
    for (auto& [k, v] : sorted) o[k] = v;
    j[key] = o;
  }
  return j.dump();
}

Schema TestSchema() {
  auto s = Schema::Make({NestedField::Required(1, "id", LongType()),
                         NestedField::Optional(2, "data", StringType(), "payload"),
                         NestedField::Optional(3, "ts", TimestampTzType()),
                         NestedField::Optional(4, "tags", ListType(5, StringType(), false))});
  FLOE_EXPECT_OK(s);
  return *s;
}

// TableMetadata.newTableMetadata in Java 1.10.1 (GenFloeMetadata.java) with the same inputs
// produced testdata/java/v<N>-00000.metadata.json.
TEST(TableMetadataBuilderTest, NewTableMatchesJava) {
  for (int v = 1; v <= 3; ++v) {
    SCOPED_TRACE(v);
    TableMetadata java = ReadJava(v, 0);
    // Input ids deliberately differ from the fresh ones.
    auto schema =
        Schema::Make({NestedField::Required(11, "id", LongType()),
                      NestedField::Optional(12, "data", StringType(), "payload"),
                      NestedField::Optional(13, "ts", TimestampTzType()),
                      NestedField::Optional(14, "tags", ListType(15, StringType(), false))});
    FLOE_ASSERT_OK(schema);
    PartitionSpec spec(0, {{13, 1000, "ts_day", Transform::Day()},
                           {11, 1001, "id_bucket", Transform::Bucket(16)}});
    SortOrder order(1, {{Transform::Identity(), 11, SortDirection::kAsc, NullOrder::kNullsFirst},
                        {Transform::Identity(), 12, SortDirection::kDesc, NullOrder::kNullsLast}});
    auto md =
        TableMetadataBuilder::NewTable(*schema, spec, order, "s3://bucket/wh/t" + std::to_string(v),
                                       {{"format-version", std::to_string(v)}, {"owner", "floe"}},
                                       *java.table_uuid, java.last_updated_ms);
    FLOE_ASSERT_OK(md);
    EXPECT_EQ(Canonical(TableMetadataToJson(*md)), Canonical(ReadText(JavaFile(v, 0))));

    // The same create as REST updates (staged create) gives the same table.
    auto updates = TableMetadataBuilder::CreateUpdates(*md);
    auto via_rest = TableMetadataBuilder::ApplyCreate(updates, "other", md->last_updated_ms);
    FLOE_ASSERT_OK(via_rest);
    EXPECT_EQ(TableMetadataToJson(*via_rest), TableMetadataToJson(*md));
    EXPECT_EQ(UpdateAction(updates[0]), "assign-uuid");
    EXPECT_EQ(std::get<update::SetCurrentSchema>(updates[3]).schema_id, -1);
  }
}

// Java's Builder applied to 00000: setBranchSnapshot(s1, main) -> 00001; then
// setBranchSnapshot(s2, main), a tag, a branch, statistics, partition statistics and a
// property -> 00002 (GenFloeMetadata.java). The same updates through floe's builder give
// Java's files.
TEST(TableMetadataBuilderTest, CommitsMatchJava) {
  for (int v = 1; v <= 3; ++v) {
    SCOPED_TRACE(v);
    TableMetadata t0 = ReadJava(v, 0);
    TableMetadata t1 = ReadJava(v, 1);
    TableMetadata t2 = ReadJava(v, 2);
    t0.metadata_file_location = t1.metadata_log.at(0).metadata_file;
    auto b1 = TableMetadataBuilder::From(std::make_shared<const TableMetadata>(t0));
    FLOE_ASSERT_OK(b1.AddSnapshot(t1.snapshots.at(0)));
    FLOE_ASSERT_OK(b1.SetRef("main", SnapshotRef::Branch(1001)));
    auto m1 = b1.Build(t1.last_updated_ms);
    FLOE_ASSERT_OK(m1);
    EXPECT_EQ(Canonical(TableMetadataToJson(**m1)), Canonical(ReadText(JavaFile(v, 1))));

    TableMetadata base1 = **m1;
    base1.metadata_file_location = t2.metadata_log.at(1).metadata_file;
    auto b2 = TableMetadataBuilder::From(std::make_shared<const TableMetadata>(base1));
    FLOE_ASSERT_OK(b2.AddSnapshot(t2.snapshots.at(1)));
    FLOE_ASSERT_OK(b2.SetRef("main", SnapshotRef::Branch(1002)));
    FLOE_ASSERT_OK(b2.SetRef("v1", *t2.ref("v1")));
    FLOE_ASSERT_OK(b2.SetRef("audit", *t2.ref("audit")));
    FLOE_ASSERT_OK(b2.SetStatistics(t2.statistics.at(0)));
    FLOE_ASSERT_OK(b2.SetPartitionStatistics(t2.partition_statistics.at(0)));
    FLOE_ASSERT_OK(b2.SetProperties({{"write.metadata.previous-versions-max", "5"}}));
    auto m2 = b2.Build(t2.last_updated_ms);
    FLOE_ASSERT_OK(m2);
    EXPECT_EQ(Canonical(TableMetadataToJson(**m2)), Canonical(ReadText(JavaFile(v, 2))));
  }
}

TableMetadataPtr V2Table() {
  auto md = TableMetadataBuilder::NewTable(TestSchema(), PartitionSpec(), SortOrder(), "s3://b/t",
                                           {}, "u-1", 1000);
  FLOE_EXPECT_OK(md);
  auto p = std::make_shared<TableMetadata>(*md);
  p->metadata_file_location = "s3://b/t/metadata/00000-a.metadata.json";
  return p;
}

Snapshot MakeSnapshot(int64_t id, std::optional<int64_t> parent, int64_t seq, int64_t ts) {
  Snapshot s;
  s.snapshot_id = id;
  s.parent_snapshot_id = parent;
  s.sequence_number = seq;
  s.timestamp_ms = ts;
  s.manifest_list = "s3://b/t/metadata/snap-" + std::to_string(id) + ".avro";
  s.operation = "append";
  s.schema_id = 0;
  return s;
}

TEST(TableRequirementTest, EachFailureIsConflictWithJavasMessage) {
  TableMetadataPtr md = V2Table();
  auto b = TableMetadataBuilder::From(md);
  FLOE_ASSERT_OK(b.AddSnapshot(MakeSnapshot(7, std::nullopt, 1, 2000)));
  FLOE_ASSERT_OK(b.SetRef("main", SnapshotRef::Branch(7)));
  FLOE_ASSERT_OK(b.SetRef("t", SnapshotRef::Tag(7)));
  auto built = b.Build(3000);
  FLOE_ASSERT_OK(built);
  const TableMetadata* base = built->get();

  struct Case {
    TableRequirement req;
    const char* message;  // empty: passes
  };
  std::vector<Case> cases = {
      {requirement::AssertCreate{}, "Requirement failed: table already exists"},
      {requirement::AssertTableUuid{"U-1"}, ""},
      {requirement::AssertTableUuid{"u-2"},
       "Requirement failed: UUID does not match: expected u-1 != u-2"},
      {requirement::AssertRefSnapshotId{"main", 7}, ""},
      {requirement::AssertRefSnapshotId{"main", 8},
       "Requirement failed: branch main has changed: expected id 8 != 7"},
      {requirement::AssertRefSnapshotId{"t", std::nullopt},
       "Requirement failed: tag t was created concurrently"},
      {requirement::AssertRefSnapshotId{"dev", 7},
       "Requirement failed: branch or tag dev is missing, expected 7"},
      {requirement::AssertRefSnapshotId{"dev", std::nullopt}, ""},
      {requirement::AssertLastAssignedFieldId{4},
       "Requirement failed: last assigned field id changed: expected id 4 != 5"},
      {requirement::AssertCurrentSchemaId{1},
       "Requirement failed: current schema changed: expected id 1 != 0"},
      {requirement::AssertLastAssignedPartitionId{1000},
       "Requirement failed: last assigned partition id changed: expected id 1000 != 999"},
      {requirement::AssertDefaultSpecId{1},
       "Requirement failed: default partition spec changed: expected id 1 != 0"},
      {requirement::AssertDefaultSortOrderId{1},
       "Requirement failed: default sort order changed: expected id 1 != 0"},
  };
  for (const Case& c : cases) {
    Status s = Validate(c.req, base);
    if (std::string(c.message).empty()) {
      FLOE_EXPECT_OK(s);
    } else {
      EXPECT_EQ(s.code(), StatusCode::kConflict) << c.message;
      EXPECT_EQ(s.message(), c.message);
    }
    // JSON round trip.
    auto parsed = TableRequirementFromJson(TableRequirementToJson(c.req));
    FLOE_ASSERT_OK(parsed);
    EXPECT_EQ(*parsed, c.req);
  }
  FLOE_EXPECT_OK(Validate(requirement::AssertCreate{}, nullptr));
  EXPECT_TRUE(Validate(requirement::AssertCurrentSchemaId{0}, nullptr).IsConflict());
}

TEST(TableUpdateTest, RestJsonForms) {
  // Shapes from the OpenAPI spec (and Java's legacy "updated"/"removed").
  const char* request = R"({"identifier":{"namespace":["db"],"name":"t"},
    "requirements":[{"type":"assert-ref-snapshot-id","ref":"main","snapshot-id":null},
                    {"type":"assert-table-uuid","uuid":"u-1"}],
    "updates":[{"action":"set-properties","updated":{"a":"1"}},
               {"action":"remove-properties","removals":["b"]},
               {"action":"set-snapshot-ref","ref-name":"main","snapshot-id":5,"type":"branch",
                "max-ref-age-ms":10},
               {"action":"remove-snapshots","snapshot-ids":[1,2]},
               {"action":"set-current-schema","schema-id":-1},
               {"action":"add-spec","spec":{"fields":[{"name":"id_b","transform":"bucket[4]",
                 "source-id":1,"field-id":1000}]}},
               {"action":"upgrade-format-version","format-version":3}]})";
  auto req = CommitTableRequestFromJson(request);
  FLOE_ASSERT_OK(req);
  ASSERT_EQ(req->updates.size(), 7u);
  EXPECT_EQ(std::get<update::SetProperties>(req->updates[0]).updates.at("a"), "1");
  EXPECT_EQ(std::get<update::SetSnapshotRef>(req->updates[2]).ref.max_ref_age_ms, 10);
  EXPECT_FALSE(std::get<requirement::AssertRefSnapshotId>(req->requirements[0]).snapshot_id);
  std::string out = CommitTableRequestToJson(*req);
  EXPECT_NE(out.find(R"({"action":"set-properties","updates":{"a":"1"}})"), std::string::npos);
  EXPECT_NE(out.find(R"({"type":"assert-ref-snapshot-id","ref":"main","snapshot-id":null})"),
            std::string::npos);
  EXPECT_NE(out.find(R"({"action":"set-snapshot-ref","ref-name":"main","snapshot-id":5,)"
                     R"("type":"branch","max-ref-age-ms":10})"),
            std::string::npos);
  auto again = CommitTableRequestFromJson(out);
  FLOE_ASSERT_OK(again);
  EXPECT_EQ(CommitTableRequestToJson(*again), out);

  for (const char* bad :
       {R"({"requirements":[{"type":"assert-view-uuid","uuid":"x"}],"updates":[]})",
        R"({"requirements":[],"updates":[{"action":"add-view-version"}]})",
        R"({"requirements":[],"updates":[{"action":"set-current-schema"}]})",
        R"({"requirements":[],"updates":[{"action":"remove-snapshots","snapshot-ids":"x"}]})",
        R"({"requirements":[],"updates":[{}]})", R"({"requirements":{}, "updates":[]})",
        "nonsense"}) {
    auto r = CommitTableRequestFromJson(bad);
    EXPECT_EQ(r.status().code(), StatusCode::kInvalidArgument) << bad;
  }
}

TEST(TableUpdateTest, CommitRequestsNestAtMostTheRequestLimit) {
  // A request body is held to kDefaultMaxJsonDepth, not the deeper limit of stored metadata.
  auto with_padding = [](int levels) {  // the document nests levels + 1 deep
    return R"({"requirements":[],"updates":[],"x":)" +
           std::string(static_cast<size_t>(levels), '[') +
           std::string(static_cast<size_t>(levels), ']') + "}";
  };
  auto at_limit = CommitTableRequestFromJson(with_padding(kDefaultMaxJsonDepth - 1));
  FLOE_EXPECT_OK(at_limit);
  auto past = CommitTableRequestFromJson(with_padding(kDefaultMaxJsonDepth));
  EXPECT_EQ(past.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(past.status().message().find("nested deeper than 256"), std::string_view::npos)
      << past.status().ToString();
  EXPECT_EQ(CommitViewRequestFromJson(with_padding(kDefaultMaxJsonDepth)).status().code(),
            StatusCode::kInvalidArgument);
}

TEST(TableMetadataBuilderTest, SequenceNumbersAndSnapshotChecks) {
  auto b = TableMetadataBuilder::From(V2Table());
  FLOE_ASSERT_OK(b.AddSnapshot(MakeSnapshot(1, std::nullopt, 1, 2000)));
  FLOE_ASSERT_OK(b.SetRef("main", SnapshotRef::Branch(1)));
  // Not current until a ref points at it.
  FLOE_ASSERT_OK(b.AddSnapshot(MakeSnapshot(2, 1, 2, 2100)));
  auto md = b.Build(3000);
  FLOE_ASSERT_OK(md);
  EXPECT_EQ((*md)->current_snapshot_id, 1);
  EXPECT_EQ((*md)->last_sequence_number, 2);

  auto c = TableMetadataBuilder::From(*md);
  Status stale = c.AddSnapshot(MakeSnapshot(3, 2, 2, 2200));
  EXPECT_EQ(stale.code(), StatusCode::kConflict);
  EXPECT_EQ(stale.message(),
            "Cannot add snapshot with sequence number 2 older than last sequence number 2");
  EXPECT_TRUE(c.AddSnapshot(MakeSnapshot(2, 1, 3, 2200)).IsInvalidArgument());  // id exists
  EXPECT_TRUE(c.SetRef("main", SnapshotRef::Branch(99)).IsInvalidArgument());
  SnapshotRef bad_tag = SnapshotRef::Tag(1);
  bad_tag.min_snapshots_to_keep = 1;
  EXPECT_TRUE(c.SetRef("t", bad_tag).IsInvalidArgument());
}

TEST(TableMetadataBuilderTest, V3RowLineage) {
  auto md = TableMetadataBuilder::NewTable(TestSchema(), PartitionSpec(), SortOrder(), "s3://b/t",
                                           {{"format-version", "3"}}, "u", 1000);
  FLOE_ASSERT_OK(md);
  auto b = TableMetadataBuilder::From(std::make_shared<TableMetadata>(*md));
  Snapshot s1 = MakeSnapshot(1, std::nullopt, 1, 2000);
  EXPECT_TRUE(b.AddSnapshot(s1).IsInvalidArgument());  // first-row-id is required in v3
  s1.first_row_id = 0;
  s1.added_rows = 30;
  FLOE_ASSERT_OK(b.AddSnapshot(s1));
  Snapshot s2 = MakeSnapshot(2, 1, 2, 2100);
  s2.first_row_id = 29;  // behind next-row-id 30
  s2.added_rows = 5;
  EXPECT_EQ(b.AddSnapshot(s2).code(), StatusCode::kConflict);
  s2.first_row_id = 30;
  FLOE_ASSERT_OK(b.AddSnapshot(s2));
  auto built = b.Build(3000);
  FLOE_ASSERT_OK(built);
  EXPECT_EQ((*built)->next_row_id, 35);

  // Upgrading a v2 table to v3 starts row ids at 0; no downgrades.
  auto up = TableMetadataBuilder::From(V2Table());
  FLOE_ASSERT_OK(up.UpgradeFormatVersion(3));
  EXPECT_TRUE(up.UpgradeFormatVersion(2).IsInvalidArgument());
  EXPECT_TRUE(up.UpgradeFormatVersion(4).IsInvalidArgument());
  auto v3 = up.Build(2000);
  FLOE_ASSERT_OK(v3);
  EXPECT_EQ((*v3)->format_version, 3);
  EXPECT_EQ((*v3)->next_row_id, 0);
  EXPECT_NE(TableMetadataToJson(**v3).find(R"("current-snapshot-id":null,"next-row-id":0)"),
            std::string::npos);
}

TEST(TableMetadataBuilderTest, MetadataLogTrimming) {
  TableMetadataPtr md = V2Table();
  auto b0 = TableMetadataBuilder::From(md);
  FLOE_ASSERT_OK(b0.SetProperties({{"write.metadata.previous-versions-max", "2"}}));
  auto cur = b0.Build(1100);
  FLOE_ASSERT_OK(cur);
  for (int i = 1; i <= 4; ++i) {
    auto m = std::make_shared<TableMetadata>(**cur);
    m->metadata_file_location = "f" + std::to_string(i);
    auto b = TableMetadataBuilder::From(m);
    FLOE_ASSERT_OK(b.SetProperties({{"k", std::to_string(i)}}));
    cur = b.Build(1100 + i * 100);
    FLOE_ASSERT_OK(cur);
  }
  // Java addPreviousFile: at most max entries, the newest last, each with its file's time.
  ASSERT_EQ((*cur)->metadata_log.size(), 2u);
  EXPECT_EQ((*cur)->metadata_log[0], (MetadataLogEntry{1300, "f3"}));
  EXPECT_EQ((*cur)->metadata_log[1], (MetadataLogEntry{1400, "f4"}));
  // No changes: the base itself.
  auto same = TableMetadataBuilder::From(*cur);
  FLOE_ASSERT_OK(same.SetProperties({}));
  EXPECT_EQ(same.Build(9999)->get(), cur->get());
}

TEST(TableMetadataBuilderTest, LastAddedAndSchemaReuse) {
  auto b = TableMetadataBuilder::From(V2Table());
  EXPECT_TRUE(b.SetCurrentSchema(-1).IsInvalidArgument());  // nothing added yet
  // Re-adding the current schema reuses id 0 and adds nothing.
  FLOE_ASSERT_OK(b.AddSchema(TestSchema().WithSchemaId(7)));
  EXPECT_TRUE(b.changes().empty());
  auto wider = Schema::Make({NestedField::Required(1, "id", LongType()),
                             NestedField::Optional(2, "data", StringType(), "payload"),
                             NestedField::Optional(3, "ts", TimestampTzType()),
                             NestedField::Optional(4, "tags", ListType(5, StringType(), false)),
                             NestedField::Optional(6, "extra", IntType())});
  FLOE_ASSERT_OK(wider);
  FLOE_ASSERT_OK(b.AddSchema(*wider));
  FLOE_ASSERT_OK(b.SetCurrentSchema(-1));
  FLOE_ASSERT_OK(b.AddSpec(PartitionSpec(0, {{6, 1000, "extra", Transform::Identity()}})));
  FLOE_ASSERT_OK(b.SetDefaultSpec(-1));
  SortOrder by_extra(5, {{Transform::Identity(), 6, SortDirection::kDesc, NullOrder::kNullsLast}});
  FLOE_ASSERT_OK(b.AddSortOrder(by_extra));
  FLOE_ASSERT_OK(b.SetDefaultSortOrder(-1));
  auto md = b.Build(2000);
  FLOE_ASSERT_OK(md);
  EXPECT_EQ((*md)->current_schema_id, 1);  // max id + 1
  EXPECT_EQ((*md)->last_column_id, 6);
  EXPECT_EQ((*md)->default_spec_id, 1);
  EXPECT_EQ((*md)->last_partition_id, 1000);
  EXPECT_EQ((*md)->default_sort_order_id, 1);  // id 0 is unsorted; new orders from 1
  // Changes name just-added objects as -1, like Java's builder.
  ASSERT_EQ(b.changes().size(), 6u);
  EXPECT_EQ(std::get<update::SetCurrentSchema>(b.changes()[1]).schema_id, -1);
  EXPECT_EQ(std::get<update::SetDefaultSortOrder>(b.changes()[5]).sort_order_id, -1);

  // An identical schema added again reuses its id; an equal order too.
  auto c = TableMetadataBuilder::From(*md);
  FLOE_ASSERT_OK(c.AddSchema(TestSchema()));
  FLOE_ASSERT_OK(c.SetCurrentSchema(0));
  FLOE_ASSERT_OK(c.AddSortOrder(by_extra));
  auto md2 = c.Build(2100);
  FLOE_ASSERT_OK(md2);
  EXPECT_EQ((*md2)->schemas.size(), 2u);
  EXPECT_EQ((*md2)->current_schema_id, 0);
  EXPECT_EQ((*md2)->sort_orders.size(), 2u);
  // Removing the current schema or default spec is refused.
  auto d = TableMetadataBuilder::From(*md2);
  EXPECT_TRUE(d.RemoveSchemas({0}).IsInvalidArgument());
  EXPECT_TRUE(d.RemoveSpecs({1}).IsInvalidArgument());
  FLOE_EXPECT_OK(d.RemoveSchemas({1}));
  FLOE_EXPECT_OK(d.RemoveSpecs({0}));
}

TEST(TableMetadataBuilderTest, RemoveSnapshotsDropsRefsStatsAndHistory) {
  auto b = TableMetadataBuilder::From(V2Table());
  FLOE_ASSERT_OK(b.AddSnapshot(MakeSnapshot(1, std::nullopt, 1, 2000)));
  FLOE_ASSERT_OK(b.SetRef("main", SnapshotRef::Branch(1)));
  auto m1 = b.Build(2001);
  FLOE_ASSERT_OK(m1);
  auto b2 = TableMetadataBuilder::From(*m1);
  FLOE_ASSERT_OK(b2.AddSnapshot(MakeSnapshot(2, 1, 2, 2100)));
  FLOE_ASSERT_OK(b2.SetRef("main", SnapshotRef::Branch(2)));
  FLOE_ASSERT_OK(b2.SetRef("old", SnapshotRef::Tag(1)));
  FLOE_ASSERT_OK(b2.SetStatistics({1, "s3://s", 1, 1, {}}));
  auto m2 = b2.Build(2101);
  FLOE_ASSERT_OK(m2);
  EXPECT_EQ((*m2)->snapshot_log.size(), 2u);

  auto b3 = TableMetadataBuilder::From(*m2);
  FLOE_ASSERT_OK(b3.RemoveSnapshots({1}));
  auto m3 = b3.Build(2200);
  FLOE_ASSERT_OK(m3);
  EXPECT_EQ((*m3)->ref("old"), nullptr);
  EXPECT_TRUE((*m3)->statistics.empty());
  ASSERT_EQ((*m3)->snapshot_log.size(), 1u);
  EXPECT_EQ((*m3)->snapshot_log[0].snapshot_id, 2);

  // Rolling main back to an existing snapshot logs it at the commit time; removing main
  // clears the current snapshot.
  auto b4 = TableMetadataBuilder::From(*m2);
  FLOE_ASSERT_OK(b4.SetRef("main", SnapshotRef::Branch(1)));
  auto m4 = b4.Build(5000);
  FLOE_ASSERT_OK(m4);
  EXPECT_EQ((*m4)->snapshot_log.back(), (SnapshotLogEntry{5000, 1}));
  auto b5 = TableMetadataBuilder::From(*m4);
  FLOE_ASSERT_OK(b5.RemoveRef("main"));
  auto m5 = b5.Build(6000);
  FLOE_ASSERT_OK(m5);
  EXPECT_FALSE((*m5)->current_snapshot_id);
  EXPECT_NE(TableMetadataToJson(**m5).find(R"("current-snapshot-id":-1)"), std::string::npos);
}

}  // namespace
}  // namespace floe::iceberg
