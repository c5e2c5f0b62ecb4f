// LocationPolicy as data: each location, the catalog's roots, the verdict. The expected
// verdicts follow the rules of location_policy.h (RFC 3986 schemes, file: URI forms of
// RFC 8089, S3's bucket/key split, Polaris' allowed-locations as prefixes of whole segments).
#include "floe/catalog/location_policy.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "floe/base/testing.h"

namespace floe::catalog {
namespace {

using ::testing::HasSubstr;

struct Case {
  const char* location;
  bool allowed;
  const char* why = "";  // a word of the refusal, for refused cases
};

// Warehouse /srv/wh; allowed-locations s3://lake/tables, file:///data/shared.
const Case kCases[] = {
    {"/srv/wh/ns/t", true},
    {"/srv/wh", true},
    {"/srv/wh/", true},
    {"file:/srv/wh/ns/t", true},
    {"file:///srv/wh/ns/t", true},
    {"file://localhost/srv/wh/ns/t", true},
    {"FILE:///srv/wh/ns/t", true},
    {"/srv//wh///ns/t", true},
    {"/srv/./wh/ns/./t", true},
    {"/srv/wh/ns/odd name+1", true},
    {"/srv/wh/a%20b", true},  // decodes to "/srv/wh/a b": still inside
    {"s3://lake/tables/ns/t", true},
    {"s3a://lake/tables/ns/t", true},
    {"s3://lake/tables", true},
    {"/data/shared/x", true},
    // Outside the roots.
    {"/srv/wh-old/t", false, "outside"},
    {"/srv", false, "outside"},
    {"/etc/passwd", false, "outside"},
    {"/", false, "outside"},
    {"s3://lake/other/t", false, "outside"},
    {"s3://other-bucket/tables/t", false, "outside"},
    {"s3://lake/tablesX/t", false, "outside"},
    {"file:///data/sharedX", false, "outside"},
    // Lexical escapes.
    {"/srv/wh/../etc", false, "'..'"},
    {"/srv/wh/ns/..", false, "'..'"},
    {"s3://lake/tables/../secrets", false, "'..'"},
    {"/srv/wh/%2e%2e/etc", false, "'..'"},
    {"/srv/wh/%2E%2E/etc", false, "'..'"},
    {"/srv/wh%2f..%2fetc", false, "'..'"},
    {"/srv/wh%2fx", false,
     "outside"},  // a decoder reads /srv/wh/x, a file system wh%2fx: not under /srv/wh
    {"/srv/wh/a%00b", false, "control"},
    {"/srv/wh/a\nb", false, "control"},
    // Relative paths and schemes floe cannot serve.
    {"ns/t", false, "relative"},
    {"./srv/wh", false, "relative"},
    {"srv/wh/t", false, "relative"},
    {"file:srv/wh/t", false, "relative"},
    {"", false, "empty"},
    {"hdfs://nn/srv/wh/t", false, "serves only"},
    {"gs://lake/tables/t", false, "serves only"},
    {"s3n://lake/tables/t", false, "serves only"},
    {"http://169.254.169.254/latest", false, "serves only"},
    {"file://evil.example/srv/wh/t", false, "remote host"},
    {"s3:///tables/t", false, "bucket"},
    {"s3:lake/tables", false, "s3://"},
};

class LocationPolicyCases : public ::testing::TestWithParam<Case> {};

TEST_P(LocationPolicyCases, Verdict) {
  const Case& c = GetParam();
  FLOE_ASSERT_OK_AND_ASSIGN(
      LocationPolicy policy,
      LocationPolicy::Make("lake", "/srv/wh", {"s3://lake/tables", "file:///data/shared"}));
  Status s = policy.Check(c.location, "table location");
  if (c.allowed) {
    FLOE_EXPECT_OK(s);
  } else {
    EXPECT_THAT(s, IsError(StatusCode::kPermissionDenied, HasSubstr(c.why)));
  }
}

INSTANTIATE_TEST_SUITE_P(Table, LocationPolicyCases, ::testing::ValuesIn(kCases));

TEST(LocationPolicy, CleanupScope) {
  FLOE_ASSERT_OK_AND_ASSIGN(LocationPolicy policy,
                            LocationPolicy::Make("lake", "/srv/wh", {"s3://lake/tables"}));
  FLOE_ASSERT_OK_AND_ASSIGN(NormalizedLocation other, NormalizeLocation("/srv/wh/ns/orders"));
  const std::vector<NormalizedLocation> others = {other};
  FLOE_EXPECT_OK(
      policy.CheckCleanupScope({"/srv/wh/ns/events/data/", "/srv/wh/ns/events/metadata/"}, others));
  // A sibling whose name extends the other's is not inside it.
  FLOE_EXPECT_OK(policy.CheckCleanupScope({"/srv/wh/ns/orders2/data/"}, others));
  struct Refused {
    const char* dir;
    const char* why;
  };
  for (const Refused& r : {
           Refused{"/srv/elsewhere/data/", "outside the allowed locations"},
           Refused{"/srv/wh/", "contains) the allowed location"},
           Refused{"/srv/wh/./", "contains) the allowed location"},
           Refused{"/srv/", "outside the allowed locations"},
           Refused{"s3://lake/tables", "contains) the allowed location"},
           Refused{"/srv/wh/ns/orders/data/", "overlaps '/srv/wh/ns/orders'"},
           Refused{"/srv/wh/ns/", "overlaps '/srv/wh/ns/orders'"},
           Refused{"/srv/wh/ns/events/../orders/data", "'..'"},
       }) {
    EXPECT_THAT(policy.CheckCleanupScope({"/srv/wh/ns/events/data/", r.dir}, others),
                IsError(StatusCode::kPermissionDenied, HasSubstr(r.why)))
        << r.dir;
  }
}

TEST(LocationPolicy, NothingAllowedWithoutRoots) {
  LocationPolicy none;
  EXPECT_TRUE(none.empty());
  EXPECT_THAT(none.Check("/srv/wh/t", "table location"),
              IsError(StatusCode::kPermissionDenied, HasSubstr("allowed-locations")));
}

TEST(LocationPolicy, RootsMustNormalize) {
  FLOE_EXPECT_CODE(LocationPolicy::Make("c", "relative/wh", {}), kInvalidArgument);
  FLOE_EXPECT_CODE(LocationPolicy::Make("c", "/wh", {"hdfs://nn/x"}), kInvalidArgument);
  FLOE_EXPECT_CODE(LocationPolicy::Make("c", "/", {}), kInvalidArgument);
  FLOE_EXPECT_CODE(LocationPolicy::Make("c", "/wh", {"/a/../b"}), kInvalidArgument);
}

TEST(LocationPolicy, ParseAllowedLocations) {
  EXPECT_EQ(LocationPolicy::ParseAllowedLocations(" s3://a/x, /b ,,file:/c "),
            (std::vector<std::string>{"s3://a/x", "/b", "file:/c"}));
  EXPECT_TRUE(LocationPolicy::ParseAllowedLocations("").empty());
}

TEST(LocationPolicy, NormalizedSpelling) {
  FLOE_ASSERT_OK_AND_ASSIGN(NormalizedLocation a, NormalizeLocation("s3a://b//k/./x/"));
  EXPECT_EQ(a.ToString(), "s3://b/k/x");
  FLOE_ASSERT_OK_AND_ASSIGN(NormalizedLocation f, NormalizeLocation("file:///p//q"));
  EXPECT_EQ(f.ToString(), "/p/q");
  FLOE_ASSERT_OK_AND_ASSIGN(NormalizedLocation p, NormalizeLocation("/p"));
  EXPECT_TRUE(f.IsUnder(p));
  EXPECT_FALSE(p.IsUnder(f));
  EXPECT_TRUE(p.Overlaps(f));
  FLOE_ASSERT_OK_AND_ASSIGN(NormalizedLocation pq, NormalizeLocation("/pq"));
  EXPECT_FALSE(pq.Overlaps(p));
}

TEST(LocationPolicy, TableUpdatesAndProperties) {
  FLOE_ASSERT_OK_AND_ASSIGN(LocationPolicy policy, LocationPolicy::Make("c", "/wh", {}));
  std::vector<iceberg::TableUpdate> fine = {
      iceberg::update::SetLocation{"/wh/ns/t2"},
      iceberg::update::SetProperties{{{"write.data.path", "/wh/ns/t/d"}, {"owner", "x"}}}};
  FLOE_EXPECT_OK(policy.CheckTableUpdates(fine));
  for (const char* key : {"write.data.path", "write.metadata.path", "write.object-storage.path",
                          "write.folder-storage.path"}) {
    std::vector<iceberg::TableUpdate> bad = {
        iceberg::update::SetProperties{{{key, "/elsewhere/victim"}}}};
    EXPECT_THAT(policy.CheckTableUpdates(bad),
                IsError(StatusCode::kPermissionDenied, HasSubstr(key)));
  }
  iceberg::StatisticsFile stats;
  stats.path = "/etc/stats.puffin";
  FLOE_EXPECT_CODE(policy.CheckTableUpdates({iceberg::update::SetStatistics{stats}}),
                   kPermissionDenied);
  iceberg::PartitionStatisticsFile pstats;
  pstats.path = "../p.parquet";
  FLOE_EXPECT_CODE(policy.CheckTableUpdates({iceberg::update::SetPartitionStatistics{pstats}}),
                   kPermissionDenied);
  iceberg::Snapshot snapshot;
  snapshot.manifest_list = "/elsewhere/snap.avro";
  FLOE_EXPECT_CODE(policy.CheckTableUpdates({iceberg::update::AddSnapshot{snapshot}}),
                   kPermissionDenied);
  FLOE_EXPECT_CODE(policy.CheckTableUpdates({iceberg::update::SetLocation{"/wh/../x"}}),
                   kPermissionDenied);
  FLOE_EXPECT_CODE(policy.CheckNamespaceProperties({{"location", "/tmp/ns"}}), kPermissionDenied);
  FLOE_EXPECT_OK(policy.CheckNamespaceProperties({{"location", "/wh/ns"}, {"k", "v"}}));
}

TEST(PathSegments, UnsafeNamesRefused) {
  for (const char* name : {"t", "odd name", "k+2", "..x", "a.b", "ünïcode"}) {
    FLOE_EXPECT_OK(CheckPathSegment(name, "table")) << name;
  }
  for (std::string name :
       {std::string(""), std::string("."), std::string(".."), std::string("a/b"),
        std::string("a\\b"), std::string("a\0b", 3), std::string("a\nb"), std::string("\x7f")}) {
    FLOE_EXPECT_CODE(CheckPathSegment(name, "table"), kInvalidArgument);
  }
  FLOE_EXPECT_CODE(CheckNamespaceSegments(Namespace{{"ok", ".."}}), kInvalidArgument);
}

}  // namespace
}  // namespace floe::catalog
