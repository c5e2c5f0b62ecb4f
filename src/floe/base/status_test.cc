#include "floe/base/status.h"

#include <gtest/gtest.h>

#include <iterator>

#include "floe/base/macros.h"
#include "floe/base/testing.h"

namespace floe {
namespace {

Result<int> Half(int x) {
  if (x % 2 != 0) return Status::InvalidArgument("{} is odd", x);
  return x / 2;
}

Result<int> Quarter(int x) {
  FLOE_ASSIGN_OR_RETURN(int h, Half(x));
  FLOE_ASSIGN_OR_RETURN(int q, Half(h));
  return q;
}

Status CheckQuarter(int x) {
  FLOE_RETURN_IF_ERROR(Quarter(x));
  return Status::OK();
}

TEST(StatusTest, OkIsEmpty) {
  Status s;
  FLOE_EXPECT_OK(s);
  EXPECT_EQ(s.code(), StatusCode::kOk);
  EXPECT_EQ(s.ToString(), "OK");
}

TEST(StatusTest, ErrorCarriesCodeAndMessage) {
  Status s = Status::Corrupt("bad page {} in {}", 3, "f.parquet");
  EXPECT_THAT(s, IsError(StatusCode::kCorrupt));
  EXPECT_EQ(s.message(), "bad page 3 in f.parquet");
  EXPECT_EQ(s.ToString(), "Corrupt: bad page 3 in f.parquet");
  Status copy = s;
  EXPECT_EQ(copy.ToString(), s.ToString());
  EXPECT_EQ(s.WithContext("reading {}", "x").message(), "reading x: bad page 3 in f.parquet");
  FLOE_EXPECT_OK(Status().WithContext("ignored"));
}

TEST(StatusTest, MacrosPropagate) {
  EXPECT_EQ(*Quarter(8), 2);
  Result<int> r = Quarter(6);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().message(), "3 is odd");
  FLOE_EXPECT_OK(CheckQuarter(4));
  EXPECT_EQ(CheckQuarter(2).code(), StatusCode::kInvalidArgument);
}

// kAllStatusCodes is what the protocols' mapping tests walk: every code, in enum order, and
// nothing after its last (StatusCodeName, a switch without default, names each code).
TEST(StatusTest, AllStatusCodesListsEveryCodeOnce) {
  for (size_t i = 0; i < std::size(kAllStatusCodes); ++i) {
    EXPECT_EQ(static_cast<size_t>(kAllStatusCodes[i]), i);
    EXPECT_NE(StatusCodeName(kAllStatusCodes[i]), "Unknown");
  }
  EXPECT_EQ(StatusCodeName(static_cast<StatusCode>(std::size(kAllStatusCodes))), "Unknown");
}

}  // namespace
}  // namespace floe
