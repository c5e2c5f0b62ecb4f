#include "floe/iceberg/snapshot.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "floe/base/testing.h"
#include "floe/iceberg/java_json.h"

namespace floe::iceberg {
namespace {

using OJson = nlohmann::ordered_json;

TEST(SnapshotTest, V2RoundTripKeepsSummaryOrder) {
  // Member order as Java's SnapshotParser.toJson writes it.
  const char* text =
      R"({"sequence-number":3,"snapshot-id":3055729675574597004,"parent-snapshot-id":1,)"
      R"("timestamp-ms":1555100955770,"summary":{"operation":"append","z":"1","a":"2"},)"
      R"("manifest-list":"s3://a/b/snap-1.avro","schema-id":1})";
  auto s = SnapshotFromJson(OJson::parse(text));
  FLOE_ASSERT_OK(s);
  EXPECT_EQ(s->sequence_number, 3);
  EXPECT_EQ(s->snapshot_id, 3055729675574597004);
  EXPECT_EQ(s->parent_snapshot_id, 1);
  EXPECT_EQ(s->operation, "append");
  ASSERT_EQ(s->summary.size(), 2u);
  EXPECT_EQ(s->summary[0].first, "z");
  EXPECT_EQ(*s->SummaryValue("a"), "2");
  EXPECT_EQ(ToJavaJson(SnapshotToJson(*s), false), text);
}

TEST(SnapshotTest, V1EmbeddedManifestsAndMissingOperation) {
  // Java SnapshotParser: no sequence number is 0, a summary without operation is an
  // overwrite, `manifests` replaces `manifest-list` in v1.
  auto s = SnapshotFromJson(OJson::parse(
      R"({"snapshot-id":1,"timestamp-ms":2,"summary":{"k":"v"},"manifests":["m1","m2"]})"));
  FLOE_ASSERT_OK(s);
  EXPECT_EQ(s->sequence_number, 0);
  EXPECT_EQ(s->operation, "overwrite");
  EXPECT_EQ(s->v1_manifests, (std::vector<std::string>{"m1", "m2"}));
  EXPECT_EQ(ToJavaJson(SnapshotToJson(*s), false),
            R"({"snapshot-id":1,"timestamp-ms":2,"summary":{"operation":"overwrite","k":"v"},)"
            R"("manifests":["m1","m2"]})");
}

TEST(SnapshotTest, V3Fields) {
  const char* text = R"({"sequence-number":1,"snapshot-id":7,"timestamp-ms":2,)"
                     R"("summary":{"operation":"append"},"manifest-list":"l","schema-id":0,)"
                     R"("first-row-id":10,"added-rows":5,"key-id":"k1"})";
  auto s = SnapshotFromJson(OJson::parse(text));
  FLOE_ASSERT_OK(s);
  EXPECT_EQ(s->first_row_id, 10);
  EXPECT_EQ(s->added_rows, 5);
  EXPECT_EQ(s->key_id, "k1");
  EXPECT_EQ(ToJavaJson(SnapshotToJson(*s), false), text);
}

TEST(SnapshotTest, MalformedIsInvalidArgument) {
  for (const char* bad :
       {R"([])", R"({"timestamp-ms":1,"manifest-list":"x"})",
        R"({"snapshot-id":"1","timestamp-ms":1,"manifest-list":"x"})",
        R"({"snapshot-id":1,"timestamp-ms":1})",
        R"({"snapshot-id":1,"timestamp-ms":1,"manifest-list":"x","summary":[]})",
        R"({"snapshot-id":1,"timestamp-ms":1,"manifest-list":"x",)"
        R"("summary":{"operation":1}})",
        R"({"snapshot-id":18446744073709551615,"timestamp-ms":1,"manifest-list":"x"})"}) {
    auto s = SnapshotFromJson(OJson::parse(bad));
    ASSERT_THAT(s, IsError(StatusCode::kInvalidArgument)) << bad;
  }
}

TEST(SnapshotRefTest, JsonAndJavaValidation) {
  auto r = SnapshotRefFromJson(OJson::parse(
      R"({"snapshot-id":5,"type":"BRANCH","min-snapshots-to-keep":2,"max-ref-age-ms":9})"));
  FLOE_ASSERT_OK(r);
  EXPECT_TRUE(r->is_branch());
  EXPECT_EQ(ToJavaJson(SnapshotRefToJson(*r), false),
            R"({"snapshot-id":5,"type":"branch","min-snapshots-to-keep":2,"max-ref-age-ms":9})");
  // SnapshotRef.Builder: tags take no snapshot retention, values must be positive.
  EXPECT_FALSE(
      SnapshotRefFromJson(OJson::parse(R"({"snapshot-id":5,"type":"tag","max-snapshot-age-ms":3})"))
          .ok());
  EXPECT_FALSE(SnapshotRefFromJson(
                   OJson::parse(R"({"snapshot-id":5,"type":"branch","min-snapshots-to-keep":0})"))
                   .ok());
  EXPECT_FALSE(SnapshotRefFromJson(OJson::parse(R"({"snapshot-id":5,"type":"x"})")).ok());
}

TEST(SnapshotIdTest, JavaUuidXor) {
  // UUID.randomUUID() forces version 4 (bits 12-15 of the high word = 0100) and the IETF
  // variant (top bits of the low word = 10); the id is (hi ^ lo) & Long.MAX_VALUE.
  auto ones = [] { return ~uint64_t{0}; };
  EXPECT_EQ(NewSnapshotId(ones), int64_t{0x400000000000B000});
  uint64_t words[] = {0x0123456789ABCDEF, 0xFEDCBA9876543210};
  int i = 0;
  int64_t id = NewSnapshotId([&] { return words[i++]; });
  // hi = 0x0123456789AB4DEF, lo = 0xBEDCBA9876543210 -> xor = 0xBFFFFFFFFFFF7FFF.
  EXPECT_EQ(id, int64_t{0x3FFFFFFFFFFF7FFF});
}

}  // namespace
}  // namespace floe::iceberg
