#include "floe/iceberg/table_metadata.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "floe/base/json.h"
#include "floe/base/testing.h"
#include "floe/io/memory_file_io.h"

namespace floe::iceberg {
namespace {

using OJson = nlohmann::ordered_json;
namespace fs = std::filesystem;

fs::path TestData() { return fs::path(FLOE_ICEBERG_TESTDATA); }

std::string ReadText(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// Java writes `properties` and `refs` from hash maps (unspecified order); compare them
// with sorted members, everything else byte for byte.
std::string SortHashMaps(const std::string& text) {
  OJson j = OJson::parse(text);
  for (const char* key : {"properties", "refs"}) {
    if (!j.contains(key)) continue;
    std::map<std::string, OJson> sorted;
    for (const auto& [k, v] : j[key].items()) sorted[k] = v;
    OJson o = OJson::object();
    for (auto& [k, v] : sorted) o[k] = v;
    j[key] = o;
  }
  return j.dump();
}

class JavaGoldenTest : public ::testing::TestWithParam<std::string> {};

// Files written by Iceberg Java 1.10.1 (testdata/gen_java_metadata.sh): reading and writing
// them back gives Java's bytes.
TEST_P(JavaGoldenTest, ByteForByteRoundTrip) {
  std::string text = ReadText(TestData() / "java" / GetParam());
  auto md = TableMetadataFromJson(text);
  FLOE_ASSERT_OK(md);
  EXPECT_EQ(SortHashMaps(TableMetadataToJson(*md)), SortHashMaps(text));
  // And the compact text itself has Java's layout (no spaces).
  EXPECT_EQ(TableMetadataToJson(*md).find(": "), std::string::npos);
}

INSTANTIATE_TEST_SUITE_P(Java, JavaGoldenTest,
                         ::testing::Values("v1-00000.metadata.json", "v1-00001.metadata.json",
                                           "v1-00002.metadata.json", "v2-00000.metadata.json",
                                           "v2-00001.metadata.json", "v2-00002.metadata.json",
                                           "v3-00000.metadata.json", "v3-00001.metadata.json",
                                           "v3-00002.metadata.json"));

TEST(TableMetadataTest, JavaV3Model) {
  auto md = TableMetadataFromJson(ReadText(TestData() / "java" / "v3-00002.metadata.json"));
  FLOE_ASSERT_OK(md);
  EXPECT_EQ(md->format_version, 3);
  EXPECT_EQ(md->next_row_id, 17);  // 10 + 7 added rows (Java's builder)
  ASSERT_NE(md->current_snapshot(), nullptr);
  EXPECT_EQ(md->current_snapshot()->snapshot_id, 1002);
  EXPECT_EQ(md->current_snapshot()->first_row_id, 10);
  EXPECT_EQ(md->SnapshotForRef("v1")->snapshot_id, 1001);
  EXPECT_EQ(md->ref("v1")->type, SnapshotRefType::kTag);
  EXPECT_EQ(md->ref("v1")->max_ref_age_ms, 86400000);
  EXPECT_EQ(md->ref("audit")->min_snapshots_to_keep, 3);
  ASSERT_EQ(md->Ancestors(1002).size(), 2u);
  EXPECT_EQ(md->Ancestors(1002)[1]->snapshot_id, 1001);
  EXPECT_EQ(md->statistics.at(0).blob_metadata.at(0).properties.at("ndv"), "10");
  EXPECT_EQ(md->partition_statistics.at(0).file_size_in_bytes, 55);
  EXPECT_EQ(md->metadata_log.size(), 2u);
  // Time travel through the snapshot log.
  const auto& log = md->snapshot_log;
  EXPECT_EQ(md->SnapshotAsOf(log[0].timestamp_ms - 1), nullptr);
  EXPECT_EQ(md->SnapshotAsOf(log[0].timestamp_ms)->snapshot_id, 1001);
  EXPECT_EQ(md->SnapshotAsOf(log[1].timestamp_ms + 5)->snapshot_id, 1002);
}

TEST(TableMetadataTest, JavaNoSnapshotCurrentIdForm) {
  // Java >= 1.9 writes current-snapshot-id -1 in v1/v2 and null in v3 (#12335).
  for (int v = 1; v <= 3; ++v) {
    std::string text =
        ReadText(TestData() / "java" / ("v" + std::to_string(v) + "-00000.metadata.json"));
    EXPECT_NE(text.find(v == 3 ? R"("current-snapshot-id":null)" : R"("current-snapshot-id":-1)"),
              std::string::npos);
    auto md = TableMetadataFromJson(text);
    FLOE_ASSERT_OK(md);
    EXPECT_FALSE(md->current_snapshot_id);
    EXPECT_TRUE(md->refs.empty());
  }
}

// Files written by pyiceberg 0.12 (testdata/make_metadata.py) and pyiceberg's own reading
// of each (<n>.expected.json).
class PyicebergTest : public ::testing::TestWithParam<std::string> {};

TEST_P(PyicebergTest, ReadsAsPyicebergDoes) {
  for (int i = 0;; ++i) {
    char name[32];
    std::snprintf(name, sizeof(name), "%05d", i);
    fs::path file = TestData() / GetParam() / (std::string(name) + ".metadata.json");
    if (!fs::exists(file)) {
      EXPECT_GT(i, 5);
      break;
    }
    SCOPED_TRACE(file.string());
    auto md = TableMetadataFromJson(ReadText(file));
    FLOE_ASSERT_OK(md);
    auto want = nlohmann::json::parse(
        ReadText(TestData() / GetParam() / (std::string(name) + ".expected.json")));
    EXPECT_EQ(md->format_version, want["format-version"].get<int>());
    EXPECT_EQ(*md->table_uuid, want["table-uuid"].get<std::string>());
    EXPECT_EQ(md->location, want["location"].get<std::string>());
    EXPECT_EQ(md->last_sequence_number, want["last-sequence-number"].get<int64_t>());
    EXPECT_EQ(md->last_updated_ms, want["last-updated-ms"].get<int64_t>());
    EXPECT_EQ(md->last_column_id, want["last-column-id"].get<int>());
    EXPECT_EQ(md->current_schema_id, want["current-schema-id"].get<int>());
    EXPECT_EQ(md->schemas.size(), want["schema-ids"].size());
    std::vector<int32_t> field_ids;
    for (const auto& f : md->current_schema()->fields()) field_ids.push_back(f.id);
    EXPECT_EQ(field_ids, want["current-schema-field-ids"].get<std::vector<int32_t>>());
    EXPECT_EQ(md->default_spec_id, want["default-spec-id"].get<int>());
    EXPECT_EQ(md->specs.size(), want["spec-ids"].size());
    EXPECT_EQ(md->last_partition_id, want["last-partition-id"].get<int>());
    EXPECT_EQ(md->default_sort_order_id, want["default-sort-order-id"].get<int>());
    EXPECT_EQ(md->sort_orders.size(), want["sort-order-ids"].size());
    EXPECT_EQ(md->properties, (want["properties"].get<std::map<std::string, std::string>>()));
    if (want["current-snapshot-id"].is_null()) {
      EXPECT_FALSE(md->current_snapshot_id);
    } else {
      EXPECT_EQ(md->current_snapshot_id, want["current-snapshot-id"].get<int64_t>());
    }
    ASSERT_EQ(md->snapshots.size(), want["snapshots"].size());
    for (size_t s = 0; s < md->snapshots.size(); ++s) {
      const Snapshot& got = md->snapshots[s];
      const auto& w = want["snapshots"][s];
      EXPECT_EQ(got.snapshot_id, w["snapshot-id"].get<int64_t>());
      EXPECT_EQ(got.sequence_number,
                w["sequence-number"].is_null() ? 0 : w["sequence-number"].get<int64_t>());
      EXPECT_EQ(got.manifest_list, w["manifest-list"].get<std::string>());
      EXPECT_EQ(got.operation, w["operation"].get<std::string>());
      std::map<std::string, std::string> summary(got.summary.begin(), got.summary.end());
      EXPECT_EQ(summary, (w["summary"].get<std::map<std::string, std::string>>()));
    }
    ASSERT_EQ(md->refs.size(), want["refs"].size());
    for (const auto& [ref_name, w] : want["refs"].items()) {
      ASSERT_NE(md->ref(ref_name), nullptr) << ref_name;
      EXPECT_EQ(md->ref(ref_name)->snapshot_id, w["snapshot-id"].get<int64_t>());
      EXPECT_EQ(SnapshotRefTypeName(md->ref(ref_name)->type), w["type"].get<std::string>());
    }
    EXPECT_EQ(md->snapshot_log.size(), want["snapshot-log"].size());
    EXPECT_EQ(md->metadata_log.size(), want["metadata-log"].size());
    // Our own output reads back to the same model.
    auto again = TableMetadataFromJson(TableMetadataToJson(*md));
    FLOE_ASSERT_OK(again);
    EXPECT_EQ(TableMetadataToJson(*again), TableMetadataToJson(*md));
  }
}

INSTANTIATE_TEST_SUITE_P(Pyiceberg, PyicebergTest,
                         ::testing::Values("pyiceberg_v1", "pyiceberg_v2"));

// Spec "Table Metadata Fields": a v1 writer may leave out every list form.
constexpr const char* kMinimalV1 = R"({
  "format-version": 1, "location": "s3://b/t", "last-updated-ms": 5, "last-column-id": 2,
  "schema": {"type": "struct", "fields": [
      {"id": 1, "name": "a", "required": true, "type": "int"},
      {"id": 2, "name": "b", "required": false, "type": "string"}]},
  "partition-spec": [{"name": "a", "transform": "identity", "source-id": 1, "field-id": 1000}],
  "properties": {"k": "v"}, "current-snapshot-id": 9,
  "snapshots": [{"snapshot-id": 9, "timestamp-ms": 4, "manifests": ["m1"]}],
  "some-future-field": {"x": 1}})";

TEST(TableMetadataTest, V1TolerantRead) {
  auto md = TableMetadataFromJson(kMinimalV1);
  FLOE_ASSERT_OK(md);
  EXPECT_FALSE(md->table_uuid);
  EXPECT_EQ(md->schemas.size(), 1u);
  EXPECT_EQ(md->specs.size(), 1u);
  EXPECT_EQ(md->last_partition_id, 1000);  // derived from the specs
  EXPECT_EQ(md->default_sort_order_id, 0);
  ASSERT_NE(md->ref("main"), nullptr);  // main from current-snapshot-id
  EXPECT_EQ(md->ref("main")->snapshot_id, 9);
  EXPECT_EQ(md->current_snapshot()->v1_manifests.size(), 1u);
  // v1 output keeps the deprecated single forms.
  std::string out = TableMetadataToJson(*md);
  EXPECT_NE(out.find(R"("schema":{)"), std::string::npos);
  EXPECT_NE(out.find(R"("partition-spec":[)"), std::string::npos);
  EXPECT_NE(out.find(R"("manifests":["m1"])"), std::string::npos);
}

TEST(TableMetadataTest, Errors) {
  auto with = [](const std::string& from, const std::string& to) {
    std::string s = kMinimalV1;
    size_t at = s.find(from);
    EXPECT_NE(at, std::string::npos) << from;
    return s.replace(at, from.size(), to);
  };
  auto code = [](const std::string& text) { return TableMetadataFromJson(text).status().code(); };
  EXPECT_EQ(code(with(R"("format-version": 1)", R"("format-version": 4)")),
            StatusCode::kUnimplemented);
  EXPECT_EQ(code("{"), StatusCode::kCorrupt);
  EXPECT_EQ(code("[]"), StatusCode::kCorrupt);
  EXPECT_EQ(code(with(R"("format-version": 1)", R"("format-version": 2)")), StatusCode::kCorrupt);
  EXPECT_EQ(code(with(R"("current-snapshot-id": 9)", R"("current-snapshot-id": 8)")),
            StatusCode::kCorrupt);
  EXPECT_EQ(code(with(R"("location": "s3://b/t")", R"("location": 5)")), StatusCode::kCorrupt);
  EXPECT_EQ(code(with(R"("properties": {"k": "v"})", R"("properties": {"k": 1})")),
            StatusCode::kCorrupt);
  FLOE_EXPECT_OK(
      TableMetadataFromJson(with(R"("current-snapshot-id": 9)", R"("current-snapshot-id": -1)")));
}

TEST(TableMetadataTest, NestingIsBoundedBeforeParsing) {
  // An unknown field nesting `levels` arrays below the root object: the whole document
  // then nests levels + 1 deep. Metadata may nest to kMaxStoredJsonDepth (it holds a
  // request's schema deeper than the request did); past it, kCorrupt, never a crash.
  auto nested = [](int levels) {
    std::string s = kMinimalV1;
    std::string deep = std::string(static_cast<size_t>(levels), '[') +
                       std::string(static_cast<size_t>(levels), ']');
    return s.replace(s.find(R"({"x": 1})"), 8, deep);
  };
  auto at_limit = TableMetadataFromJson(nested(kMaxStoredJsonDepth - 1));
  FLOE_EXPECT_OK(at_limit);
  auto past = TableMetadataFromJson(nested(kMaxStoredJsonDepth));
  EXPECT_EQ(past.status().code(), StatusCode::kCorrupt);
  EXPECT_NE(past.status().message().find("nested deeper than 512 levels"), std::string_view::npos)
      << past.status().ToString();
  EXPECT_EQ(TableMetadataFromJson(std::string(10 << 20, '[')).status().code(),
            StatusCode::kCorrupt);
}

TEST(TableMetadataTest, FileIoGzipAndNaming) {
  auto md = TableMetadataFromJson(kMinimalV1);
  FLOE_ASSERT_OK(md);
  io::MemoryFileIO fio;
  for (std::string loc :
       {"mem://t/metadata/00001-u.metadata.json", "mem://t/metadata/00002-u.gz.metadata.json",
        "mem://t/metadata/v3.metadata.json.gz"}) {
    FLOE_ASSERT_OK(WriteTableMetadata(fio, loc, *md)) << loc;
    auto back = ReadTableMetadata(fio, loc);
    FLOE_ASSERT_OK(back);
    EXPECT_EQ(back->metadata_file_location, loc);
    EXPECT_EQ(TableMetadataToJson(*back), TableMetadataToJson(*md));
    EXPECT_EQ(WriteTableMetadata(fio, loc, *md).code(), StatusCode::kAlreadyExists);
  }
  auto raw = fio.ReadFile("mem://t/metadata/00002-u.gz.metadata.json");
  FLOE_ASSERT_OK(raw);
  EXPECT_EQ(raw->data()[0], 0x1f);  // gzip magic
  // Java BaseMetastoreTableOperations naming.
  EXPECT_EQ(NextMetadataVersion("s3://b/t/metadata/00041-abc.metadata.json"), 42);
  EXPECT_EQ(NextMetadataVersion("s3://b/t/metadata/v3.metadata.json"), 0);
  EXPECT_EQ(NextMetadataVersion(""), 0);
  EXPECT_EQ(NewMetadataLocation(*md, 42, "u-1"), "s3://b/t/metadata/00042-u-1.metadata.json");
  TableMetadata custom = *md;
  custom.properties["write.metadata.path"] = "s3://other/meta/";
  custom.properties["write.metadata.compression-codec"] = "GZIP";
  EXPECT_EQ(NewMetadataLocation(custom, 7, "u"), "s3://other/meta/00007-u.gz.metadata.json");
}

}  // namespace
}  // namespace floe::iceberg
