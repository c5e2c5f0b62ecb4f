#include "floe/iceberg/expression_json.h"

#include <gtest/gtest.h>

#include "floe/base/testing.h"
#include "floe/iceberg/file_filter.h"
#include "floe/iceberg/partition_spec.h"
#include "floe/iceberg/schema.h"

namespace floe::iceberg {
namespace {

// The JSON forms are those of the REST spec's Expression schema and of Java's
// ExpressionParser (which also accepts {"type":"literal"} wrappers and reference terms).
std::string FromJson(std::string_view text) {
  nlohmann::json json = nlohmann::json::parse(text, nullptr, false);
  if (json.is_discarded()) return "bad test JSON";
  Result<ExpressionPtr> e = ExpressionFromJson(json);
  if (!e.ok()) return "error: " + std::string(e.status().message());
  return (*e)->ToString();
}

TEST(ExpressionJson, ParsesTheSpecForms) {
  EXPECT_EQ(FromJson("true"), "true");
  EXPECT_EQ(FromJson(R"({"type":"literal","value":false})"), "false");
  EXPECT_EQ(FromJson(R"({"type":"lt","term":"id","value":5})"), "id < 5");
  EXPECT_EQ(FromJson(R"({"type":"not-eq","term":{"type":"reference","term":"name"},"value":"x"})"),
            "name != 'x'");
  EXPECT_EQ(FromJson(R"({"type":"gt-eq","term":"id","value":{"type":"literal","value":7}})"),
            "id >= 7");
  EXPECT_EQ(FromJson(R"({"type":"in","term":"id","values":[1,2]})"), "id IN (1, 2)");
  EXPECT_EQ(FromJson(R"({"type":"is-null","term":"name"})"), "name IS NULL");
  EXPECT_EQ(
      FromJson(R"({"type":"and","left":{"type":"eq","term":"a","value":1},)"
               R"("right":{"type":"not","child":{"type":"starts-with","term":"s","value":"p"}}})"),
      (*ParseExpression("a = 1 AND NOT s STARTS WITH 'p'"))->ToString());
}

TEST(ExpressionJson, RejectsBadForms) {
  EXPECT_TRUE(FromJson("1").starts_with("error"));
  EXPECT_TRUE(FromJson(R"({"type":"frob","term":"a"})").starts_with("error"));
  EXPECT_TRUE(FromJson(R"({"type":"lt","term":"a"})").starts_with("error"));
  EXPECT_TRUE(FromJson(R"({"type":"lt","term":"a","values":[1]})").starts_with("error"));
  EXPECT_TRUE(FromJson(R"({"type":"is-null","term":"a","value":1})").starts_with("error"));
  EXPECT_TRUE(FromJson(R"({"type":"in","term":"a","values":1})").starts_with("error"));
  EXPECT_TRUE(FromJson(R"({"type":"eq","term":"a","value":null})").starts_with("error"));
  EXPECT_TRUE(
      FromJson(
          R"({"type":"eq","term":{"type":"transform","transform":"bucket[4]","term":"a"},"value":1})")
          .starts_with("error"));
  EXPECT_TRUE(FromJson(R"({"type":"and","left":true})").starts_with("error"));
}

// `levels` nested NOT expressions around `true`, as a DOM (built here without the JSON
// depth check, as a caller holding a deeper document would).
std::string Nots(int levels) {
  std::string deep;
  for (int i = 0; i < levels; ++i) deep += R"({"type":"not","child":)";
  deep += "true";
  for (int i = 0; i < levels; ++i) deep += "}";
  return deep;
}

TEST(ExpressionJson, NestingIsBounded) {
  // 256 levels of expressions parse; the 257th is refused, whatever the JSON depth allowed.
  EXPECT_FALSE(FromJson(Nots(256)).starts_with("error"));
  EXPECT_EQ(FromJson(Nots(257)), "error: expression nested too deeply");
  EXPECT_EQ(FromJson(Nots(5000)), "error: expression nested too deeply");
  nlohmann::json deep = nlohmann::json::parse(Nots(257));
  EXPECT_EQ(ExpressionFromJson(deep).status().code(), StatusCode::kInvalidArgument);
}

TEST(ExpressionJson, ResidualsWrittenAsJavaWritesBoundPredicates) {
  Schema schema = *Schema::Make({NestedField::Required(1, "id", LongType()),
                                 NestedField::Optional(2, "region", StringType()),
                                 NestedField::Optional(3, "d", DateType())});
  PartitionSpec spec = *PartitionSpecBuilder(schema, 0).Identity("region").Build();
  auto filter = ParseExpression("region = 'eu' AND d >= '2020-01-02' AND id IN (3, 1)");
  FLOE_ASSERT_OK(filter);
  auto bound = Bind(schema, *filter);
  FLOE_ASSERT_OK(bound);
  auto residual = [&](const char* region) {
    std::string out;
    JsonWriter w(&out);
    WriteExpressionJson(*Residual(*bound, spec, {Literal::String(region)}), w);
    return out;
  };
  // Dates in the single-value form (ISO text), in-lists sorted; the identity partition
  // value decides region = 'eu'.
  EXPECT_EQ(residual("eu"),
            R"({"type":"and","left":{"type":"gt-eq","term":"d","value":"2020-01-02"},)"
            R"("right":{"type":"in","term":"id","values":[1,3]}})");
  EXPECT_EQ(residual("us"), "false");
}

}  // namespace
}  // namespace floe::iceberg
