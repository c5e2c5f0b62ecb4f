#include "floe/base/json.h"

#include <gtest/gtest.h>

#include <string>

#include <fmt/format.h>

#include "floe/base/testing.h"

namespace floe {
namespace {

std::string Nested(int levels, char open = '[', char close = ']') {
  return std::string(static_cast<size_t>(levels), open) +
         std::string(static_cast<size_t>(levels), close);
}

TEST(JsonTest, DepthAtTheLimitParsesOnePastIsRefused) {
  FLOE_ASSERT_OK_AND_ASSIGN(auto at_limit, ParseJson(Nested(kDefaultMaxJsonDepth)));
  EXPECT_TRUE(at_limit.is_array());
  EXPECT_THAT(ParseJson(Nested(kDefaultMaxJsonDepth + 1)),
              IsError(StatusCode::kInvalidArgument, ::testing::HasSubstr("nested deeper")));
  EXPECT_THAT(ParseOrderedJson(Nested(5), 4), IsError(StatusCode::kInvalidArgument));
  FLOE_EXPECT_OK(ParseOrderedJson(Nested(4), 4));
}

TEST(JsonTest, ObjectsCountLikeArraysAndStringsAreSkipped) {
  // {"a":{"a":{"a":1}}} is three levels; brackets inside strings are not.
  FLOE_EXPECT_OK(ParseJson(R"({"a":{"a":{"a":1}}})", 3));
  EXPECT_THAT(ParseJson(R"({"a":{"a":{"a":{}}}})", 3), IsError(StatusCode::kInvalidArgument));
  FLOE_EXPECT_OK(ParseJson(R"({"a":"[[[[[[\"{{{{"})", 1));
  FLOE_EXPECT_OK(CheckJsonDepth(R"(["\\", "\"[[[["])", 1));
}

TEST(JsonTest, AHugeNestingIsRefusedWithoutParsing) {
  // 50,000 levels: what overflowed the stack before (issue "Security and hostile input").
  EXPECT_THAT(ParseJson(Nested(50'000, '{', '}')), IsError(StatusCode::kInvalidArgument));
}

TEST(JsonTest, TenMegabytesOfOpenBracketsAreRefusedAtTheLimit) {
  // The depth pass stops at the first byte past the limit: no DOM is built, and the
  // message names where it stopped.
  const std::string body(10 << 20, '[');
  EXPECT_THAT(ParseJson(body),
              IsError(StatusCode::kInvalidArgument,
                      ::testing::HasSubstr(fmt::format("(at byte {})", kDefaultMaxJsonDepth))));
  EXPECT_THAT(ParseOrderedJson(body), IsError(StatusCode::kInvalidArgument));
}

TEST(JsonTest, StoredDocumentsMayNestDeeperThanRequests) {
  FLOE_EXPECT_OK(ParseJson(Nested(kMaxStoredJsonDepth), kMaxStoredJsonDepth));
  EXPECT_THAT(ParseJson(Nested(kMaxStoredJsonDepth + 1), kMaxStoredJsonDepth),
              IsError(StatusCode::kInvalidArgument));
}

TEST(JsonTest, MalformedJsonIsAnInvalidArgumentNamingTheOffset) {
  auto parsed = ParseJson(R"({"a": tru})");
  EXPECT_THAT(parsed, IsError(StatusCode::kInvalidArgument, ::testing::HasSubstr("at byte")));
  EXPECT_THAT(parsed, IsError(StatusCode::kInvalidArgument,
                              ::testing::Not(::testing::HasSubstr("json.exception"))));
  EXPECT_THAT(ParseJson(""), IsError(StatusCode::kInvalidArgument));
}

}  // namespace
}  // namespace floe
