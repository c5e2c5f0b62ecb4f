#include "floe/iceberg/schema.h"

#include <gtest/gtest.h>

#include "floe/base/testing.h"

namespace floe::iceberg {
namespace {

// Every type and nesting, with defaults and identifier fields, in the spec's JSON shape.
constexpr const char* kAllTypes = R"json({
  "type": "struct", "schema-id": 3, "identifier-field-ids": [1, 2],
  "fields": [
    {"id": 1, "name": "id", "required": true, "type": "long"},
    {"id": 2, "name": "key", "required": true, "type": "string"},
    {"id": 3, "name": "b", "required": false, "type": "boolean"},
    {"id": 4, "name": "i", "required": false, "type": "int", "initial-default": 7, "write-default": 8},
    {"id": 5, "name": "f", "required": false, "type": "float"},
    {"id": 6, "name": "d", "required": false, "type": "double"},
    {"id": 7, "name": "dec", "required": false, "type": "decimal(9, 2)", "initial-default": "14.20"},
    {"id": 8, "name": "day", "required": false, "type": "date", "initial-default": "2017-11-16"},
    {"id": 9, "name": "t", "required": false, "type": "time"},
    {"id": 10, "name": "ts", "required": false, "type": "timestamp"},
    {"id": 11, "name": "tstz", "required": false, "type": "timestamptz",
     "write-default": "2017-11-16T22:31:08.000001+00:00"},
    {"id": 12, "name": "tsn", "required": false, "type": "timestamp_ns"},
    {"id": 13, "name": "tstzn", "required": false, "type": "timestamptz_ns"},
    {"id": 14, "name": "u", "required": false, "type": "uuid"},
    {"id": 15, "name": "fx", "required": false, "type": "fixed[16]"},
    {"id": 16, "name": "bin", "required": false, "type": "binary", "initial-default": "00FF"},
    {"id": 17, "name": "nothing", "required": false, "type": "unknown"},
    {"id": 18, "name": "points", "required": false, "type": {
      "type": "list", "element-id": 19, "element-required": true, "element": {
        "type": "struct", "fields": [
          {"id": 20, "name": "x", "required": true, "type": "double"},
          {"id": 21, "name": "y", "required": false, "type": "double"}]}}},
    {"id": 22, "name": "props", "required": false, "type": {
      "type": "map", "key-id": 23, "key": "string", "value-id": 24, "value-required": false,
      "value": {"type": "map", "key-id": 25, "key": "int", "value-id": 26,
                "value-required": true, "value": {"type": "list", "element-id": 27,
                "element-required": false, "element": "date"}}}},
    {"id": 28, "name": "loc", "required": true, "type": {"type": "struct", "fields": [
      {"id": 29, "name": "lat", "required": true, "type": "double", "doc": "degrees"}]}}
  ]})json";

TEST(SchemaTest, JsonRoundTripOfEveryType) {
  auto s = SchemaFromJson(kAllTypes);
  FLOE_ASSERT_OK(s);
  EXPECT_EQ(s->schema_id(), 3);
  EXPECT_EQ(s->identifier_field_ids(), (std::vector<int32_t>{1, 2}));
  EXPECT_EQ(s->highest_field_id(), 29);
  EXPECT_EQ(s->FindField(7)->initial_default->decimal_value(), 1420);
  EXPECT_EQ(s->FindField(4)->write_default->int_value(), 8);
  auto again = SchemaFromJson(SchemaToJson(*s));
  FLOE_ASSERT_OK(again);
  EXPECT_TRUE(again->Equals(*s)) << again->ToString() << "\n" << s->ToString();
}

TEST(SchemaTest, LookupsByIdAndJavaNames) {
  auto s = SchemaFromJson(kAllTypes);
  FLOE_ASSERT_OK(s);
  EXPECT_EQ(s->FindField(20)->name, "x");
  EXPECT_EQ(s->FindColumnName(20), "points.element.x");
  EXPECT_EQ(s->FindColumnName(19), "points.element");
  EXPECT_EQ(s->FindColumnName(23), "props.key");
  EXPECT_EQ(s->FindColumnName(27), "props.value.value.element");
  EXPECT_EQ(s->FindColumnName(29), "loc.lat");
  EXPECT_EQ(s->FindFieldByName("points.element.x")->id, 20);
  EXPECT_EQ(s->FindFieldByName("points.x")->id, 20);  // Java short name
  EXPECT_EQ(s->FindFieldByName("props.value")->id, 24);
  EXPECT_EQ(s->FindFieldByName("LOC.Lat", false)->id, 29);
  EXPECT_EQ(s->FindFieldByName("LOC.Lat"), nullptr);
  EXPECT_EQ(s->FindFieldByName("nope"), nullptr);
  EXPECT_EQ(s->FindField(1000), nullptr);
  EXPECT_EQ(s->FindParentId(20), 19);
  EXPECT_EQ(s->FindParentId(19), 18);
  EXPECT_EQ(s->FindParentId(1), std::nullopt);
}

TEST(SchemaTest, RejectsInvalidSchemas) {
  EXPECT_FALSE(SchemaFromJson(R"({"type":"struct","fields":[
    {"id":1,"name":"a","required":true,"type":"int"},
    {"id":1,"name":"b","required":true,"type":"int"}]})")
                   .ok());
  EXPECT_FALSE(SchemaFromJson(R"({"type":"struct","fields":[
    {"id":1,"name":"a","required":true,"type":"int"},
    {"id":2,"name":"a","required":true,"type":"int"}]})")
                   .ok());
  EXPECT_FALSE(SchemaFromJson(R"({"type":"struct","identifier-field-ids":[5],"fields":[
    {"id":1,"name":"a","required":true,"type":"int"}]})")
                   .ok());
  EXPECT_FALSE(SchemaFromJson(R"("int")").ok());
  EXPECT_FALSE(SchemaFromJson("{").ok());
}

TEST(SchemaTest, ColumnarRoundTripCarriesIdsOnEveryLevel) {
  auto s = SchemaFromJson(kAllTypes);
  FLOE_ASSERT_OK(s);
  columnar::Schema c = s->ToColumnar();
  const auto& points = c.field(static_cast<size_t>(c.FieldIndex("points")));
  EXPECT_EQ(points.field_id, 18);
  EXPECT_EQ(points.type->child(0).field_id, 19);
  EXPECT_FALSE(points.type->child(0).nullable);
  const auto& props = c.field(static_cast<size_t>(c.FieldIndex("props")));
  EXPECT_EQ(props.type->child(0).type->child(0).field_id, 23);
  EXPECT_EQ(props.type->child(0).type->child(1).field_id, 24);
  EXPECT_EQ(c.field(0).type->id(), columnar::TypeId::kInt64);
  EXPECT_FALSE(c.field(0).nullable);
  const auto& tsn = c.field(static_cast<size_t>(c.FieldIndex("tstzn")));
  EXPECT_EQ(tsn.type->unit(), columnar::TimeUnit::kNano);
  EXPECT_TRUE(tsn.type->utc_adjusted());
  EXPECT_EQ(c.field(static_cast<size_t>(c.FieldIndex("nothing"))).type->id(),
            columnar::TypeId::kNull);

  auto back = Schema::FromColumnar(c, 3);
  FLOE_ASSERT_OK(back);
  // Columnar fields carry no docs or defaults; compare the type skeleton.
  EXPECT_EQ(back->highest_field_id(), 29);
  EXPECT_EQ(back->FindColumnName(27), "props.value.value.element");
  EXPECT_EQ(back->FindField(7)->type->ToString(), "decimal(9, 2)");

  columnar::Schema no_ids({columnar::Field("a", columnar::Int32())});
  EXPECT_EQ(Schema::FromColumnar(no_ids).status().code(), StatusCode::kInvalidArgument);
}

TEST(SchemaTest, AssignFreshIdsInJavaOrder) {
  // Java AssignFreshIds: a struct's fields first, then their types; list element; map key and
  // value ids before their types.
  auto st = StructType({
      NestedField::Optional(100, "a",
                            StructType({NestedField::Required(101, "x", IntType()),
                                        NestedField::Optional(102, "y", IntType())})),
      NestedField::Optional(103, "b", ListType(104, IntType(), false)),
      NestedField::Optional(105, "c", MapType(106, StringType(), 107, IntType(), true)),
  });
  int32_t next = 1;
  TypePtr fresh = AssignFreshIds(*st, [&] { return next++; });
  const auto& f = fresh->fields();
  EXPECT_EQ(f[0].id, 1);
  EXPECT_EQ(f[1].id, 2);
  EXPECT_EQ(f[2].id, 3);
  EXPECT_EQ(f[0].type->fields()[0].id, 4);
  EXPECT_EQ(f[0].type->fields()[1].id, 5);
  EXPECT_EQ(f[1].type->element().id, 6);
  EXPECT_EQ(f[2].type->key().id, 7);
  EXPECT_EQ(f[2].type->value().id, 8);
  EXPECT_TRUE(f[2].type->value().required);
}

TEST(SchemaTest, ParsesCliSchemaText) {
  auto s = ParseSchemaText(
      "id long not null comment 'row key', name string, ts timestamptz, tags list<string>, "
      "props map<string,int>, loc struct<lat double, lon double> not null, "
      "price decimal(10,2), `odd name` fixed[ 4 ], n list<int not null> required");
  FLOE_ASSERT_OK(s);
  ASSERT_EQ(s->fields().size(), 9u);
  EXPECT_EQ(s->fields()[0].id, 1);
  EXPECT_TRUE(s->fields()[0].required);
  EXPECT_EQ(s->fields()[0].doc, "row key");
  EXPECT_EQ(s->fields()[2].type->kind(), TypeKind::kTimestampTz);
  EXPECT_EQ(s->FindColumnName(10), "tags.element");
  EXPECT_EQ(s->FindField(11)->name, "key");
  EXPECT_EQ(s->FindField(12)->name, "value");
  EXPECT_EQ(s->FindColumnName(13), "loc.lat");
  EXPECT_TRUE(s->FindFieldByName("loc")->required);
  EXPECT_EQ(s->FindFieldByName("price")->type->ToString(), "decimal(10, 2)");
  EXPECT_EQ(s->FindFieldByName("odd name")->type->ToString(), "fixed[4]");
  EXPECT_TRUE(s->FindFieldByName("n.element")->required);
  EXPECT_TRUE(s->FindFieldByName("n")->required);
  EXPECT_FALSE(s->FindFieldByName("name")->required);

  for (const char* bad : {"", "id", "id long,", "id lung", "x list<int", "x map<int>",
                          "x decimal(10,2", "a int, a long", "x struct<>>", "x variant"}) {
    EXPECT_FALSE(ParseSchemaText(bad).ok()) << bad;
  }
  auto t = ParseTypeText("map<string, list<int>>");
  FLOE_ASSERT_OK(t);
  EXPECT_EQ((*t)->value().type->element().id, 3);
}

TEST(SchemaTest, ProposedSchemasNeedNamesAndPositiveIds) {
  auto parse = [](const char* fields) {
    return SchemaFromJson(std::string(R"({"type":"struct","fields":)") + fields + "}");
  };
  auto ok = parse(R"([{"id":1,"name":"a","type":{"type":"list","element-id":2,
      "element":"long","element-required":true},"required":true}])");
  FLOE_ASSERT_OK(ok);
  FLOE_EXPECT_OK(CheckProposedSchema(*ok));
  struct Case {
    const char* fields;
    const char* why;
  };
  for (const Case& c : {
           Case{R"([{"id":0,"name":"a","type":"long","required":true}])", "id 0"},
           Case{R"([{"id":-3,"name":"a","type":"long","required":true}])", "id -3"},
           Case{R"([{"id":1,"name":"","type":"long","required":true}])", "empty name"},
           Case{R"([{"id":1,"name":"s","required":true,"type":{"type":"struct","fields":[
               {"id":2,"name":"","type":"int","required":false}]}}])",
                "empty name"},
           Case{R"([{"id":1,"name":"m","required":true,"type":{"type":"map","key-id":0,
               "key":"string","value-id":3,"value":"int","value-required":true}}])",
                "'m.key' has id 0"},
       }) {
    auto schema = parse(c.fields);
    FLOE_ASSERT_OK(schema) << c.fields;
    Status st = CheckProposedSchema(*schema);
    EXPECT_EQ(st.code(), StatusCode::kInvalidArgument) << c.fields;
    EXPECT_NE(st.message().find(c.why), std::string::npos) << st.message();
  }
}

}  // namespace
}  // namespace floe::iceberg
