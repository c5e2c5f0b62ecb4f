#include "floe/iceberg/view_metadata.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "floe/base/testing.h"
#include "floe/io/memory_file_io.h"

namespace floe::iceberg {
namespace {

using OJson = nlohmann::ordered_json;

Schema MakeSchema(std::string_view text) {
  auto schema = ParseSchemaText(text);
  FLOE_EXPECT_OK(schema);
  return *schema;
}

ViewVersion SqlVersion(int32_t id, int64_t ts, int32_t schema_id,
                       std::vector<std::pair<std::string, std::string>> queries) {
  ViewVersion v;
  v.version_id = id;
  v.timestamp_ms = ts;
  v.schema_id = schema_id;
  v.default_namespace = {"ns"};
  for (auto& [dialect, sql] : queries) {
    v.representations.push_back(ViewRepresentation{"sql", sql, dialect});
  }
  return v;
}

// A view created like Java's BaseMetastoreViewCatalog.create: version 1, schema 0.
ViewMetadataPtr NewView(const Schema& schema, const ViewVersion& version,
                        std::map<std::string, std::string> properties = {}) {
  ViewMetadataBuilder b = ViewMetadataBuilder::New("fa6506c3-7681-40c8-86dc-e36561f83385");
  FLOE_EXPECT_OK(b.SetProperties(properties));
  FLOE_EXPECT_OK(b.SetLocation("s3://bucket/view"));
  FLOE_EXPECT_OK(b.SetCurrentVersion(version, schema));
  auto md = b.Build(1000);
  FLOE_EXPECT_OK(md);
  return *md;
}

// core/src/test/resources/org/apache/iceberg/view/ValidViewMetadata.json (Iceberg Java).
constexpr std::string_view kJavaValidViewMetadata = R"({
  "view-uuid": "fa6506c3-7681-40c8-86dc-e36561f83385",
  "format-version": 1,
  "location": "s3://bucket/test/location",
  "properties": {"some-key": "some-value", "comment":  "some-comment"},
  "current-schema-id": 0,
  "schemas": [
    {"type": "struct", "schema-id": 0, "fields": [
      {"id": 1, "name": "x", "required": true, "type": "long"},
      {"id": 2, "name": "y", "required": true, "type": "long", "doc": "comment"},
      {"id": 3, "name": "z", "required": true, "type": "long"}]}
  ],
  "current-version-id": 2,
  "versions": [
    {"version-id": 1, "timestamp-ms": 4353, "summary": {"user": "some-user"}, "schema-id": 0,
     "default-catalog": "some-catalog", "default-namespace": [],
     "representations": [{"type": "sql", "sql": "select 'foo' foo", "dialect": "spark-sql"}]},
    {"version-id": 2, "timestamp-ms": 5555, "summary": {"user": "some-user"}, "schema-id": 0,
     "default-catalog": "some-catalog", "default-namespace": [],
     "representations": [{"type": "sql", "sql": "select 1 id, 'abc' data", "dialect": "spark-sql"}]}
  ],
  "version-log": [{"timestamp-ms": 4353, "version-id": 1}, {"timestamp-ms": 5555, "version-id": 2}]
})";

TEST(ViewMetadataJson, ParsesJavaFile) {
  auto md = ViewMetadataFromJson(kJavaValidViewMetadata);
  FLOE_ASSERT_OK(md);
  EXPECT_EQ(md->view_uuid, "fa6506c3-7681-40c8-86dc-e36561f83385");
  EXPECT_EQ(md->location, "s3://bucket/test/location");
  EXPECT_EQ(md->properties.at("comment"), "some-comment");
  ASSERT_EQ(md->schemas.size(), 1u);
  EXPECT_EQ(md->current_schema()->fields().size(), 3u);
  EXPECT_EQ(md->current_version_id, 2);
  ASSERT_EQ(md->versions.size(), 2u);
  const ViewVersion* v2 = md->current_version();
  ASSERT_NE(v2, nullptr);
  EXPECT_EQ(v2->timestamp_ms, 5555);
  EXPECT_EQ(v2->default_catalog, "some-catalog");
  EXPECT_TRUE(v2->default_namespace.empty());
  EXPECT_EQ(v2->summary.at("user"), "some-user");
  ASSERT_EQ(v2->representations.size(), 1u);
  EXPECT_EQ(v2->representations[0],
            (ViewRepresentation{"sql", "select 1 id, 'abc' data", "spark-sql"}));
  EXPECT_EQ(v2->operation(), "replace");
  EXPECT_EQ(md->versions[0].operation(), "create");
  EXPECT_EQ(md->version_log, (std::vector<ViewHistoryEntry>{{4353, 1}, {5555, 2}}));
}

// TestViewMetadataParser.roundTripSerdeWithoutProperties: Java's pretty output, verbatim.
TEST(ViewMetadataJson, SerializesLikeJava) {
  ViewMetadata md;
  md.view_uuid = "386b9f01-002b-4d8c-b77f-42c3fd3b7c9b";
  md.location = "location";
  md.schemas.push_back(MakeSchema("x long not null"));
  md.current_version_id = 1;
  ViewVersion v;
  v.version_id = 1;
  v.timestamp_ms = 23;
  v.schema_id = 0;
  v.summary = {{"operation", "create"}};
  v.default_namespace = {"ns1"};
  md.versions.push_back(v);
  md.version_log.push_back({23, 1});
  const std::string expected =
      "{\n"
      "  \"view-uuid\" : \"386b9f01-002b-4d8c-b77f-42c3fd3b7c9b\",\n"
      "  \"format-version\" : 1,\n"
      "  \"location\" : \"location\",\n"
      "  \"schemas\" : [ {\n"
      "    \"type\" : \"struct\",\n"
      "    \"schema-id\" : 0,\n"
      "    \"fields\" : [ {\n"
      "      \"id\" : 1,\n"
      "      \"name\" : \"x\",\n"
      "      \"required\" : true,\n"
      "      \"type\" : \"long\"\n"
      "    } ]\n"
      "  } ],\n"
      "  \"current-version-id\" : 1,\n"
      "  \"versions\" : [ {\n"
      "    \"version-id\" : 1,\n"
      "    \"timestamp-ms\" : 23,\n"
      "    \"schema-id\" : 0,\n"
      "    \"summary\" : {\n"
      "      \"operation\" : \"create\"\n"
      "    },\n"
      "    \"default-namespace\" : [ \"ns1\" ],\n"
      "    \"representations\" : [ ]\n"
      "  } ],\n"
      "  \"version-log\" : [ {\n"
      "    \"timestamp-ms\" : 23,\n"
      "    \"version-id\" : 1\n"
      "  } ]\n"
      "}";
  EXPECT_EQ(ViewMetadataToJson(md, /*pretty=*/true), expected);
  auto back = ViewMetadataFromJson(expected);
  FLOE_ASSERT_OK(back);
  EXPECT_EQ(back->versions, md.versions);
  EXPECT_EQ(ViewMetadataToJson(*back, true), expected);
}

TEST(ViewMetadataJson, PropertiesAndCatalogWrittenInJavaOrder) {
  auto md = ViewMetadataFromJson(kJavaValidViewMetadata);
  FLOE_ASSERT_OK(md);
  OJson j = ViewMetadataToJsonValue(*md);
  std::vector<std::string> keys;
  for (const auto& [k, v] : j.items()) keys.push_back(k);
  EXPECT_EQ(keys,
            (std::vector<std::string>{"view-uuid", "format-version", "location", "properties",
                                      "schemas", "current-version-id", "versions", "version-log"}));
  std::vector<std::string> version_keys;
  for (const auto& [k, v] : j["versions"][0].items()) version_keys.push_back(k);
  EXPECT_EQ(version_keys,
            (std::vector<std::string>{"version-id", "timestamp-ms", "schema-id", "summary",
                                      "default-catalog", "default-namespace", "representations"}));
  EXPECT_EQ(j["versions"][0]["representations"][0].dump(),
            R"({"type":"sql","sql":"select 'foo' foo","dialect":"spark-sql"})");
}

TEST(ViewMetadataJson, RejectsBadMetadata) {
  OJson base = OJson::parse(kJavaValidViewMetadata);
  auto parse = [](const OJson& j) { return ViewMetadataFromJson(j.dump()); };
  {
    OJson j = base;
    j["current-version-id"] = 7;  // ViewMetadataInvalidCurrentVersion.json
    EXPECT_EQ(parse(j).status().code(), StatusCode::kCorrupt);
  }
  {
    OJson j = base;
    j["versions"][1]["schema-id"] = 1;  // ViewMetadataInvalidCurrentSchema.json
    EXPECT_EQ(parse(j).status().code(), StatusCode::kCorrupt);
  }
  {
    OJson j = base;
    j.erase("location");  // ViewMetadataMissingLocation.json
    EXPECT_EQ(parse(j).status().code(), StatusCode::kCorrupt);
  }
  {
    OJson j = base;
    j["format-version"] = 2;
    EXPECT_EQ(parse(j).status().code(), StatusCode::kUnimplemented);
  }
  {
    // Several queries for one dialect are readable (Java fixes them by replacing).
    OJson j = base;
    j["versions"][1]["representations"].push_back(
        OJson{{"type", "sql"}, {"sql", "select 2"}, {"dialect", "SPARK-sql"}});
    FLOE_EXPECT_OK(parse(j));
  }
  EXPECT_EQ(ViewMetadataFromJson("{").status().code(), StatusCode::kCorrupt);
}

TEST(ViewMetadataJson, UnknownRepresentationKeptByType) {
  auto r = ViewRepresentationFromJson(OJson::parse(R"({"type":"Substrait","plan":"x"})"));
  FLOE_ASSERT_OK(r);
  EXPECT_EQ(r->type, "substrait");
  EXPECT_FALSE(r->is_sql());
  EXPECT_EQ(ViewRepresentationToJson(*r).dump(), R"({"type":"substrait"})");
}

TEST(ViewMetadataFiles, WriteReadAndNames) {
  io::MemoryFileIO io;
  ViewMetadataPtr md = NewView(MakeSchema("x long"), SqlVersion(1, 10, 0, {{"spark", "select 1"}}));
  // Java BaseViewOperations: gzip by default, `none` for plain JSON, write.metadata.path.
  EXPECT_EQ(NewViewMetadataLocation(*md, 3, "u"),
            "s3://bucket/view/metadata/00003-u.gz.metadata.json");
  ViewMetadata plain = *md;
  plain.properties["write.metadata.compression-codec"] = "NONE";
  EXPECT_EQ(NewViewMetadataLocation(plain, 0, "u"),
            "s3://bucket/view/metadata/00000-u.metadata.json");
  plain.properties["write.metadata.path"] = "s3://other/meta/";
  EXPECT_EQ(NewViewMetadataLocation(plain, 0, "u"), "s3://other/meta/00000-u.metadata.json");

  for (std::string location :
       {"mem://v/00001-a.gz.metadata.json", "mem://v/00001-a.metadata.json"}) {
    FLOE_ASSERT_OK(WriteViewMetadata(io, location, *md));
    EXPECT_EQ(WriteViewMetadata(io, location, *md).code(), StatusCode::kAlreadyExists);
    auto read = ReadViewMetadata(io, location);
    FLOE_ASSERT_OK(read);
    EXPECT_EQ(read->metadata_file_location, location);
    EXPECT_EQ(ViewMetadataToJson(*read), ViewMetadataToJson(*md));
  }
}

// REST JSON from the OpenAPI spec / Java MetadataUpdateParser and UpdateRequirementParser.
TEST(ViewUpdateJson, ParsesAndWritesRestUpdates) {
  const char* cases[] = {
      R"({"action":"assign-uuid","uuid":"9c12d441-03fe-4693-9a96-a0705ddf69c1"})",
      R"({"action":"upgrade-format-version","format-version":1})",
      R"({"action":"add-schema","schema":{"type":"struct","schema-id":1,"fields":[{"id":1,"name":"x","required":false,"type":"long"}]},"last-column-id":1})",
      R"({"action":"set-location","location":"s3://bucket/view"})",
      R"({"action":"set-properties","updates":{"a":"1"}})",
      R"({"action":"remove-properties","removals":["a"]})",
      R"({"action":"add-view-version","view-version":{"version-id":2,"timestamp-ms":5555,"schema-id":-1,"summary":{"engine-name":"spark"},"default-catalog":"cat","default-namespace":["ns"],"representations":[{"type":"sql","sql":"select 1","dialect":"spark"}]}})",
      R"({"action":"set-current-view-version","view-version-id":-1})",
  };
  for (const char* text : cases) {
    auto u = ViewUpdateFromJson(OJson::parse(text));
    FLOE_ASSERT_OK(u) << text;
    EXPECT_EQ(ViewUpdateToJson(*u).dump(), text);
  }
  auto add = ViewUpdateFromJson(OJson::parse(cases[6]));
  EXPECT_EQ(ViewUpdateAction(*add), "add-view-version");
  EXPECT_EQ(std::get<update::AddViewVersion>(*add).view_version.schema_id, -1);

  auto snapshot =
      ViewUpdateFromJson(OJson::parse(R"({"action":"remove-snapshot-ref","ref-name":"main"})"));
  EXPECT_EQ(snapshot.status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(ViewUpdateFromJson(OJson::parse(R"({"action":"add-view-version"})")).status().code(),
            StatusCode::kInvalidArgument);
}

TEST(ViewUpdateJson, Requirements) {
  const char* text = R"({"type":"assert-view-uuid","uuid":"2cc52516-5e73-41f2-b139-545d41a4e151"})";
  auto r = ViewRequirementFromJson(OJson::parse(text));
  FLOE_ASSERT_OK(r);
  EXPECT_EQ(ViewRequirementToJson(*r).dump(), text);
  EXPECT_EQ(ViewRequirementFromJson(OJson::parse(R"({"type":"assert-table-uuid","uuid":"x"})"))
                .status()
                .code(),
            StatusCode::kInvalidArgument);

  ViewMetadata md;
  md.view_uuid = "2CC52516-5e73-41f2-b139-545d41a4e151";
  FLOE_EXPECT_OK(Validate(*r, md));  // case-insensitive, as Java's equalsIgnoreCase
  md.view_uuid = "other";
  Status s = Validate(*r, md);
  EXPECT_EQ(s.code(), StatusCode::kConflict);
  EXPECT_EQ(s.message(),
            "Requirement failed: view UUID does not match: expected other != "
            "2cc52516-5e73-41f2-b139-545d41a4e151");
}

TEST(ViewUpdateJson, CommitRequest) {
  auto req = CommitViewRequestFromJson(
      R"({"identifier":{"namespace":["ns"],"name":"v"},"requirements":[{"type":"assert-view-uuid","uuid":"u"}],"updates":[{"action":"set-properties","updates":{"k":"v"}}]})");
  FLOE_ASSERT_OK(req);
  EXPECT_EQ(req->requirements.size(), 1u);
  EXPECT_EQ(req->updates.size(), 1u);
  EXPECT_EQ(
      CommitViewRequestToJson(*req),
      R"({"requirements":[{"type":"assert-view-uuid","uuid":"u"}],"updates":[{"action":"set-properties","updates":{"k":"v"}}]})");
}

// ---- builder semantics (Java TestViewMetadata, ViewCatalogTests)

TEST(ViewMetadataBuilder, CreateLikeJava) {
  Schema schema = MakeSchema("id int, data string").WithSchemaId(7);
  ViewMetadataPtr md = NewView(schema, SqlVersion(1, 500, 7, {{"spark", "select * from ns.tbl"}}));
  EXPECT_EQ(md->view_uuid, "fa6506c3-7681-40c8-86dc-e36561f83385");
  EXPECT_EQ(md->current_version_id, 1);
  ASSERT_EQ(md->schemas.size(), 1u);
  EXPECT_EQ(md->schemas[0].schema_id(), 0);  // reassigned from 0
  EXPECT_EQ(md->current_version()->schema_id, 0);
  EXPECT_EQ(md->current_version()->operation(), "create");
  // The version-log entry of a version added in this commit has the version's time.
  EXPECT_EQ(md->version_log, (std::vector<ViewHistoryEntry>{{500, 1}}));
}

TEST(ViewMetadataBuilder, BuildErrors) {
  ViewMetadataBuilder no_location = ViewMetadataBuilder::New("u");
  FLOE_ASSERT_OK(no_location.SetCurrentVersion(SqlVersion(1, 1, 0, {}), MakeSchema("x int")));
  EXPECT_EQ(no_location.Build(1).status().message(), "Invalid location: null");

  ViewMetadataBuilder no_version = ViewMetadataBuilder::New("u");
  FLOE_ASSERT_OK(no_version.SetLocation("l"));
  EXPECT_EQ(no_version.Build(1).status().message(), "Invalid view: no versions were added");

  ViewMetadataBuilder b = ViewMetadataBuilder::New("u");
  FLOE_ASSERT_OK(b.AddSchema(MakeSchema("x int")));
  Status dup = b.AddVersion(SqlVersion(1, 1, 0, {{"trino", "a"}, {"Trino", "b"}}));
  EXPECT_EQ(dup.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(dup.message(), "Invalid view version: Cannot add multiple queries for dialect trino");
  EXPECT_EQ(b.AddVersion(SqlVersion(1, 1, 5, {})).message(),
            "Cannot add version with unknown schema: 5");
  EXPECT_EQ(b.SetCurrentVersionId(9).message(), "Cannot set current version to unknown version: 9");
  EXPECT_EQ(ViewMetadataBuilder::New("u").SetCurrentVersionId(-1).message(),
            "Cannot set last version id: no current version id has been set");
  EXPECT_EQ(ViewMetadataBuilder::New("u").AddVersion(SqlVersion(1, 1, -1, {})).message(),
            "Cannot set last added schema: no schema has been added");
  EXPECT_EQ(b.AssignUuid("other").message(), "Cannot reassign uuid");
  EXPECT_EQ(b.UpgradeFormatVersion(0).code(), StatusCode::kInvalidArgument);
}

// The updates Java's RESTViewBuilder.replace sends, applied as the server does.
TEST(ViewMetadataBuilder, ReplaceWithRestUpdates) {
  Schema s0 = MakeSchema("id int");
  ViewMetadataPtr base = NewView(s0, SqlVersion(1, 100, 0, {{"trino", "select 1"}}),
                                 {{"replace.drop-dialect.allowed", "true"}});
  std::vector<ViewUpdate> updates = {
      update::AddSchema{MakeSchema("id int, data string")},
      update::AddViewVersion{SqlVersion(2, 200, -1, {{"spark", "select 2"}})},
      update::SetCurrentViewVersion{-1},
  };
  auto md = ApplyViewCommit(base, {requirement::AssertViewUuid{base->view_uuid}}, updates, 999);
  FLOE_ASSERT_OK(md);
  EXPECT_EQ((*md)->current_version_id, 2);
  EXPECT_EQ((*md)->current_version()->schema_id, 1);
  EXPECT_EQ((*md)->current_version()->operation(), "replace");
  EXPECT_EQ((*md)->schemas.size(), 2u);
  EXPECT_EQ((*md)->version_log, (std::vector<ViewHistoryEntry>{{100, 1}, {200, 2}}));

  // A stale uuid is a conflict and changes nothing.
  auto stale = ApplyViewCommit(base, {requirement::AssertViewUuid{"x"}}, updates, 999);
  EXPECT_EQ(stale.status().code(), StatusCode::kConflict);
  // Nothing to do: the base itself.
  auto same = ApplyViewCommit(base, {}, {update::SetProperties{{}}}, 999);
  FLOE_ASSERT_OK(same);
  EXPECT_EQ(*same, base);
}

// ViewCatalogTests.concurrentReplaceViewVersion with server-side retry: the losing commit's
// version 2 becomes 3, and its schema (already there) is reused.
TEST(ViewMetadataBuilder, VersionIdsAndSchemaReuse) {
  Schema s0 = MakeSchema("id int");
  Schema s1 = MakeSchema("id int, data string");
  ViewMetadataPtr v1 = NewView(s0, SqlVersion(1, 100, 0, {{"trino", "select * from ns.tbl"}}),
                               {{"replace.drop-dialect.allowed", "true"}});
  auto v2 = ApplyViewCommit(
      v1, {},
      {update::AddSchema{s1}, update::AddViewVersion{SqlVersion(2, 200, -1, {{"spark", "b"}})},
       update::SetCurrentViewVersion{-1}},
      999);
  FLOE_ASSERT_OK(v2);
  auto v3 = ApplyViewCommit(*v2, {},
                            {update::AddViewVersion{SqlVersion(2, 300, 0, {{"trino", "c"}})},
                             update::SetCurrentViewVersion{-1}},
                            999);
  FLOE_ASSERT_OK(v3);
  EXPECT_EQ((*v3)->current_version_id, 3);
  EXPECT_EQ((*v3)->current_version()->schema_id, 0);
  EXPECT_EQ((*v3)->version_by_id(2)->schema_id, 1);

  // Replacing with a version equal to version 1 but for id and timestamp reuses id 1 (no
  // add-view-version; set-current-view-version 1); it is logged at commit time.
  ViewMetadataBuilder again = ViewMetadataBuilder::From(*v3);
  FLOE_ASSERT_OK(
      again.SetCurrentVersion(SqlVersion(9, 12345, 0, {{"trino", "select * from ns.tbl"}}), s0));
  ASSERT_EQ(again.changes().size(), 1u);
  EXPECT_EQ(ViewUpdateToJson(again.changes()[0]).dump(),
            R"({"action":"set-current-view-version","view-version-id":1})");
  auto back = again.Build(777);
  FLOE_ASSERT_OK(back);
  EXPECT_EQ((*back)->versions.size(), 3u);
  EXPECT_EQ((*back)->current_version_id, 1);
  EXPECT_EQ((*back)->version_log.back(), (ViewHistoryEntry{777, 1}));

  // Adding an equal schema adds nothing; a new one gets max + 1.
  ViewMetadataBuilder b = ViewMetadataBuilder::From(*v3);
  FLOE_ASSERT_OK(b.AddSchema(s1.WithSchemaId(42)));
  EXPECT_FALSE(b.has_changes());
  FLOE_ASSERT_OK(b.AddSchema(MakeSchema("z long")));
  ASSERT_EQ(b.changes().size(), 1u);
  EXPECT_EQ(std::get<update::AddSchema>(b.changes()[0]).schema.schema_id(), 2);
}

TEST(ViewMetadataBuilder, DroppingADialectNeedsPermission) {
  Schema s0 = MakeSchema("id int");
  ViewMetadataPtr base =
      NewView(s0, SqlVersion(1, 100, 0, {{"trino", "select 1"}, {"spark", "select 1"}}));
  std::vector<ViewUpdate> replace = {
      update::AddViewVersion{SqlVersion(2, 200, 0, {{"TRINO", "select 2"}})},
      update::SetCurrentViewVersion{-1}};
  auto refused = ApplyViewCommit(base, {}, replace, 999);
  EXPECT_EQ(refused.status().code(), StatusCode::kFailedPrecondition);
  EXPECT_NE(refused.status().message().find("loss of view dialects"), std::string::npos);

  // Updating the SQL of every dialect is fine (case-insensitive).
  auto updated = ApplyViewCommit(
      base, {},
      {update::AddViewVersion{SqlVersion(2, 200, 0, {{"Spark", "select 2"}, {"trino", "x"}})},
       update::SetCurrentViewVersion{-1}},
      999);
  FLOE_EXPECT_OK(updated);

  std::vector<ViewUpdate> allowed = replace;
  allowed.insert(allowed.begin(),
                 update::SetProperties{{{"replace.drop-dialect.allowed", "true"}}});
  FLOE_EXPECT_OK(ApplyViewCommit(base, {}, allowed, 999));
}

// Java ViewMetadata.Builder.build: expireVersions and updateHistory.
TEST(ViewMetadataBuilder, HistoryIsTrimmed) {
  Schema s0 = MakeSchema("id int");
  ViewMetadataPtr md = NewView(s0, SqlVersion(1, 1, 0, {{"spark", "select 1"}}),
                               {{"version.history.num-entries", "2"}});
  for (int i = 2; i <= 4; ++i) {
    auto next = ApplyViewCommit(
        md, {},
        {update::AddViewVersion{SqlVersion(i, i, 0, {{"spark", "select " + std::to_string(i)}})},
         update::SetCurrentViewVersion{-1}},
        999);
    FLOE_ASSERT_OK(next);
    md = *next;
  }
  ASSERT_EQ(md->versions.size(), 2u);
  EXPECT_EQ(md->versions[0].version_id, 4);  // the current version first
  EXPECT_EQ(md->versions[1].version_id, 3);
  EXPECT_EQ(md->version_log, (std::vector<ViewHistoryEntry>{{3, 3}, {4, 4}}));

  // Every version added in one commit is kept, whatever the limit.
  ViewMetadataBuilder b = ViewMetadataBuilder::From(md);
  for (int i = 5; i <= 7; ++i) {
    FLOE_ASSERT_OK(b.AddVersion(SqlVersion(i, i, 0, {{"spark", "q" + std::to_string(i)}})));
  }
  FLOE_ASSERT_OK(b.SetCurrentVersionId(-1));
  auto built = b.Build(999);
  FLOE_ASSERT_OK(built);
  EXPECT_EQ((*built)->versions.size(), 3u);

  ViewMetadataBuilder bad = ViewMetadataBuilder::From(md);
  FLOE_ASSERT_OK(bad.SetProperties({{"version.history.num-entries", "0"}}));
  EXPECT_EQ(bad.Build(1).status().message(),
            "version.history.num-entries must be positive but was 0");
}

// The changes Java records (what a REST client sends for a replace).
TEST(ViewMetadataBuilder, ChangesUseLastAddedIds) {
  ViewMetadataPtr base = NewView(MakeSchema("id int"), SqlVersion(1, 1, 0, {{"spark", "a"}}));
  ViewMetadataBuilder b = ViewMetadataBuilder::From(base);
  FLOE_ASSERT_OK(b.SetCurrentVersion(SqlVersion(2, 2, 0, {{"spark", "b"}}), MakeSchema("x long")));
  ASSERT_EQ(b.changes().size(), 3u);
  EXPECT_EQ(ViewUpdateToJson(b.changes()[1])["view-version"]["schema-id"], -1);
  EXPECT_EQ(ViewUpdateToJson(b.changes()[2]).dump(),
            R"({"action":"set-current-view-version","view-version-id":-1})");
}

}  // namespace
}  // namespace floe::iceberg
