// Schema inference for JSON values (RFC 8259 value kinds) and the evolutions issue 6 names.
#include "floe/ingest/json_schema.h"

#include <gtest/gtest.h>

#include "floe/base/testing.h"

namespace floe::ingest {
namespace {

using iceberg::NestedField;
using iceberg::TypeKind;

TEST(JsonSchemaTest, InfersTypes) {
  auto t = InferJsonType(nlohmann::json::parse(
      R"({"i": 1, "d": 1.5, "s": "x", "b": true, "n": null, "o": {"a": 2}, "l": [1, 2.5], "e": []})"));
  ASSERT_NE(t, nullptr);
  ASSERT_EQ(t->kind(), TypeKind::kStruct);
  ASSERT_EQ(t->fields().size(), 6u);  // n and e carry no type
  EXPECT_EQ(t->FieldByName("i")->type->kind(), TypeKind::kLong);
  EXPECT_EQ(t->FieldByName("d")->type->kind(), TypeKind::kDouble);
  EXPECT_EQ(t->FieldByName("s")->type->kind(), TypeKind::kString);
  EXPECT_EQ(t->FieldByName("b")->type->kind(), TypeKind::kBoolean);
  EXPECT_EQ(t->FieldByName("o")->type->kind(), TypeKind::kStruct);
  EXPECT_EQ(t->FieldByName("l")->type->element().type->kind(), TypeKind::kDouble);
  EXPECT_FALSE(t->FieldByName("i")->required);
  EXPECT_EQ(InferJsonType(nlohmann::json::parse(R"([1, "a"])")), nullptr);
  EXPECT_EQ(InferJsonType(nlohmann::json::parse("null")), nullptr);
}

TEST(JsonSchemaTest, ChangesForANewRecord) {
  std::vector<NestedField> fields = {
      NestedField::Required(1, "id", iceberg::IntType()),
      NestedField::Optional(2, "score", iceberg::FloatType()),
      NestedField::Optional(3, "name", iceberg::StringType()),
      NestedField::Optional(
          4, "addr",
          iceberg::StructType({NestedField::Optional(5, "city", iceberg::StringType())})),
  };
  std::vector<SchemaChange> changes;
  FLOE_ASSERT_OK(InferChanges(
      fields,
      nlohmann::json::parse(
          R"({"id": 3000000000, "score": 0.1, "addr": {"city": "x", "zip": "7"}, "extra": [true]})"),
      "", &changes));
  ASSERT_EQ(changes.size(), 4u);
  // id above INT32_MAX: int -> long; 0.1 is not exact as a float: float -> double.
  EXPECT_EQ(changes[0].kind, SchemaChange::Kind::kAddColumn);  // addr.zip
  EXPECT_EQ(changes[0].parent, "addr");
  EXPECT_EQ(changes[0].name, "zip");
  EXPECT_EQ(changes[1].kind, SchemaChange::Kind::kAddColumn);  // extra
  EXPECT_EQ(changes[1].name, "extra");
  EXPECT_EQ(changes[1].type->kind(), TypeKind::kList);
  EXPECT_EQ(changes[2].kind, SchemaChange::Kind::kWiden);
  EXPECT_EQ(changes[2].name, "id");
  EXPECT_EQ(changes[2].type->kind(), TypeKind::kLong);
  EXPECT_EQ(changes[3].kind, SchemaChange::Kind::kWiden);
  EXPECT_EQ(changes[3].name, "score");
  EXPECT_EQ(changes[3].type->kind(), TypeKind::kDouble);
}

TEST(JsonSchemaTest, MissingRequiredBecomesOptional) {
  std::vector<NestedField> fields = {NestedField::Required(1, "id", iceberg::LongType())};
  std::vector<SchemaChange> changes;
  FLOE_ASSERT_OK(InferChanges(fields, nlohmann::json::parse(R"({"id": null})"), "", &changes));
  ASSERT_EQ(changes.size(), 1u);
  EXPECT_EQ(changes[0].kind, SchemaChange::Kind::kMakeOptional);
  EXPECT_EQ(changes[0].name, "id");
}

TEST(JsonSchemaTest, ConflictsNameTheField) {
  std::vector<NestedField> fields = {NestedField::Optional(1, "n", iceberg::LongType()),
                                     NestedField::Optional(2, "s", iceberg::StringType())};
  std::vector<SchemaChange> changes;
  Status st = InferChanges(fields, nlohmann::json::parse(R"({"n": 1.5})"), "", &changes);
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.message().find("\"n\""), std::string::npos) << st.message();
  st = InferChanges(fields, nlohmann::json::parse(R"({"s": 1})"), "", &changes);
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.message().find("\"s\""), std::string::npos);
}

// `levels` objects nested in each other around a number: {"a":{"a":...1...}}.
nlohmann::json NestedObjects(int levels) {
  nlohmann::json v = 1;
  for (int i = 0; i < levels; ++i) v = nlohmann::json{{"a", std::move(v)}};
  return v;
}

TEST(JsonSchemaTest, InferredColumnsNestAtMost64Levels) {
  // A value nesting deeper would evolve the table into a schema too deep for Iceberg's
  // type limit and for its metadata to read back.
  EXPECT_NE(InferJsonType(NestedObjects(64)), nullptr);
  EXPECT_EQ(InferJsonType(NestedObjects(65)), nullptr);
  EXPECT_EQ(InferJsonType(nlohmann::json::array({NestedObjects(64)})), nullptr);

  std::vector<NestedField> fields = {NestedField::Optional(
      1, "s", iceberg::StructType({NestedField::Optional(2, "x", iceberg::LongType())}))};
  std::vector<SchemaChange> changes;
  FLOE_ASSERT_OK(InferChanges(fields, nlohmann::json{{"c", NestedObjects(64)}}, "", &changes));
  ASSERT_EQ(changes.size(), 1u);
  EXPECT_EQ(changes[0].name, "c");
  Status st = InferChanges(fields, nlohmann::json{{"c", NestedObjects(65)}}, "", &changes);
  EXPECT_EQ(st.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(st.message().find("\"c\": the value nests deeper than 64 levels"), std::string::npos)
      << st.message();
  // Inside a struct column the struct's own level counts.
  changes.clear();
  FLOE_ASSERT_OK(
      InferChanges(fields, nlohmann::json{{"s", {{"y", NestedObjects(63)}}}}, "", &changes));
  EXPECT_EQ(changes.size(), 1u);
  st = InferChanges(fields, nlohmann::json{{"s", {{"y", NestedObjects(64)}}}}, "", &changes);
  EXPECT_NE(st.message().find("\"s.y\""), std::string::npos) << st.message();
}

}  // namespace
}  // namespace floe::ingest
