#include "floe/iceberg/expression.h"

#include <gtest/gtest.h>

#include "floe/base/testing.h"

namespace floe::iceberg {
namespace {

std::string Parsed(std::string_view text) {
  Result<ExpressionPtr> e = ParseExpression(text);
  if (!e.ok()) return "error: " + std::string(e.status().message());
  return (*e)->ToString();
}

TEST(ExpressionParser, Comparisons) {
  EXPECT_EQ(Parsed("id = 5"), "id = 5");
  EXPECT_EQ(Parsed("id == 5"), "id = 5");
  EXPECT_EQ(Parsed("id <> 5"), "id != 5");
  EXPECT_EQ(Parsed("id >= -1.5e3"), "id >= -1.5e3");
  EXPECT_EQ(Parsed("5 < id"), "id > 5");
  EXPECT_EQ(Parsed("'x' >= name"), "name <= 'x'");
  EXPECT_EQ(Parsed("name = 'it''s'"), "name = 'it''s'");
  EXPECT_EQ(Parsed("flag = TRUE"), "flag = true");
  EXPECT_EQ(Parsed("a.b.c < 3"), "a.b.c < 3");
  EXPECT_EQ(Parsed("\"odd name\" = 1"), "\"odd name\" = 1");
  EXPECT_EQ(Parsed("`x` = 1"), "x = 1");
}

TEST(ExpressionParser, TypedLiterals) {
  EXPECT_EQ(Parsed("ts >= timestamp '2020-01-01T00:00:00'"),
            "ts >= timestamp '2020-01-01T00:00:00'");
  EXPECT_EQ(Parsed("d = DATE '2017-11-16'"), "d = date '2017-11-16'");
  EXPECT_EQ(Parsed("b = X'0A0b'"), "b = x'0A0b'");
  EXPECT_EQ(Parsed("u = uuid 'f79c3e09-677c-4bbd-a479-3f349cb785e7'"),
            "u = uuid 'f79c3e09-677c-4bbd-a479-3f349cb785e7'");
  // A column named like a type is still a column when no string follows.
  EXPECT_EQ(Parsed("date = 3"), "date = 3");
}

TEST(ExpressionParser, NullNanInStartsWith) {
  EXPECT_EQ(Parsed("a IS NULL"), "a IS NULL");
  EXPECT_EQ(Parsed("a is not null"), "a IS NOT NULL");
  EXPECT_EQ(Parsed("f IS NaN"), "f IS NAN");
  EXPECT_EQ(Parsed("f IS NOT NAN"), "f IS NOT NAN");
  EXPECT_EQ(Parsed("id IN (1, 2,3)"), "id IN (1, 2, 3)");
  EXPECT_EQ(Parsed("id NOT IN ('a')"), "id NOT IN ('a')");
  EXPECT_EQ(Parsed("s LIKE 'ab%'"), "s STARTS WITH 'ab'");
  EXPECT_EQ(Parsed("s NOT LIKE 'ab%'"), "s NOT STARTS WITH 'ab'");
  EXPECT_EQ(Parsed("s STARTS WITH 'x'"), "s STARTS WITH 'x'");
  EXPECT_EQ(Parsed("x BETWEEN 1 AND 5"), "(x >= 1 AND x <= 5)");
}

TEST(ExpressionParser, BooleanStructure) {
  // AND binds tighter than OR; NOT tighter than AND.
  EXPECT_EQ(Parsed("a = 1 OR b = 2 AND c = 3"), "(a = 1 OR (b = 2 AND c = 3))");
  EXPECT_EQ(Parsed("(a = 1 OR b = 2) AND c = 3"), "((a = 1 OR b = 2) AND c = 3)");
  EXPECT_EQ(Parsed("NOT a = 1 AND b = 2"), "(NOT a = 1 AND b = 2)");
  EXPECT_EQ(Parsed("not not a = 1"), "a = 1");
  EXPECT_EQ(Parsed("true"), "true");
  EXPECT_EQ(Parsed("true AND a = 1"), "a = 1");
  EXPECT_EQ(Parsed("false OR a = 1"), "a = 1");
  EXPECT_EQ(Parsed("false AND a = 1"), "false");
}

TEST(ExpressionParser, RoundTripsThroughToString) {
  for (std::string_view text :
       {"(a = 1 OR (b != 'x' AND NOT c IN (1, 2)))", "ts < timestamptz '2020-01-01T00:00:00+00:00'",
        "\"we\"\"ird\" IS NULL", "d STARTS WITH 'p'"}) {
    Result<ExpressionPtr> e = ParseExpression(text);
    FLOE_ASSERT_OK(e) << text;
    Result<ExpressionPtr> again = ParseExpression((*e)->ToString());
    FLOE_ASSERT_OK(again) << (*e)->ToString();
    EXPECT_TRUE((*e)->Equals(**again)) << text;
  }
}

TEST(ExpressionParser, Errors) {
  for (std::string_view bad : {"", "a =", "a = NULL", "= 1", "a = 1 AND", "(a = 1",
                               "a = 'unterminated", "a ~ 1", "a IN ()", "a IN (1,", "s LIKE '%x'",
                               "s LIKE 'a_b%'", "a IS 5", "a NOT = 1", "a = 1 b = 2"}) {
    Result<ExpressionPtr> e = ParseExpression(bad);
    EXPECT_FALSE(e.ok()) << "accepted: " << bad;
    if (!e.ok()) {
      EXPECT_EQ(e.status().code(), StatusCode::kInvalidArgument);
    }
  }
  // Parentheses and NOTs nest 256 levels, the whole predicate counting as the first.
  auto parenthesized = [](int levels) {
    return std::string(static_cast<size_t>(levels), '(') + "a = 1" +
           std::string(static_cast<size_t>(levels), ')');
  };
  FLOE_EXPECT_OK(ParseExpression(parenthesized(255)));
  EXPECT_EQ(ParseExpression(parenthesized(256)).status().code(), StatusCode::kInvalidArgument);
  EXPECT_FALSE(ParseExpression(parenthesized(1000)).ok());
  std::string nots;
  for (int i = 0; i < 255; ++i) nots += "NOT ";
  FLOE_EXPECT_OK(ParseExpression(nots + "a = 1"));
  EXPECT_EQ(ParseExpression("NOT " + nots + "a = 1").status().code(), StatusCode::kInvalidArgument);
  std::string many = "a = 0";
  for (int i = 0; i < 5000; ++i) many += " OR a = 1";
  EXPECT_FALSE(ParseExpression(many).ok());
}

TEST(Expression, RewriteNotPushesNegationToPredicates) {
  Result<ExpressionPtr> e = ParseExpression("NOT (a < 1 OR (b IS NULL AND c IN (1, 2)))");
  FLOE_ASSERT_OK(e);
  EXPECT_EQ(RewriteNot(*e)->ToString(), "(a >= 1 AND (b IS NOT NULL OR c NOT IN (1, 2)))");
}

}  // namespace
}  // namespace floe::iceberg
