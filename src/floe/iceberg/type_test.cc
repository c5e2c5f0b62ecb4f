#include "floe/iceberg/type.h"

#include <gtest/gtest.h>

#include "floe/base/testing.h"

namespace floe::iceberg {
namespace {

TEST(TypeTest, PrimitiveStringsMatchJava) {
  // Java Types.DecimalType.toString is "decimal(%d, %d)", FixedType "fixed[%d]".
  EXPECT_EQ(DecimalType(9, 2)->ToString(), "decimal(9, 2)");
  EXPECT_EQ(FixedType(16)->ToString(), "fixed[16]");
  EXPECT_EQ(TimestampTzNsType()->ToString(), "timestamptz_ns");
  EXPECT_EQ(TimestampNsType()->ToString(), "timestamp_ns");
  EXPECT_EQ(UuidType()->ToString(), "uuid");
}

TEST(TypeTest, ParsesPrimitiveStringsWithWhitespace) {
  auto d = PrimitiveTypeFromString("decimal( 9 , 2 )");
  FLOE_ASSERT_OK(d);
  EXPECT_TRUE((*d)->Equals(*DecimalType(9, 2)));
  auto f = PrimitiveTypeFromString("fixed[ 16 ]");
  FLOE_ASSERT_OK(f);
  EXPECT_EQ((*f)->length(), 16);
  for (const char* s :
       {"boolean", "int", "long", "float", "double", "date", "time", "timestamp", "timestamptz",
        "timestamp_ns", "timestamptz_ns", "string", "uuid", "binary", "unknown"}) {
    auto t = PrimitiveTypeFromString(s);
    FLOE_ASSERT_OK(t) << s;
    EXPECT_EQ((*t)->ToString(), s);
  }
}

TEST(TypeTest, UnsupportedAndMalformedTypes) {
  EXPECT_EQ(PrimitiveTypeFromString("variant").status().code(), StatusCode::kUnimplemented);
  auto g = PrimitiveTypeFromString("geometry(srid:4326)");
  EXPECT_EQ(g.status().code(), StatusCode::kUnimplemented);
  EXPECT_NE(g.status().message().find("geometry"), std::string_view::npos);
  EXPECT_EQ(PrimitiveTypeFromString("geography(srid:4326, spherical)").status().code(),
            StatusCode::kUnimplemented);
  for (const char* s : {"decimal(39, 2)", "decimal(5, 6)", "decimal(9)", "fixed[0]", "fixed[x]",
                        "fixed[-1]", "decimal(a,b)", "integer", ""}) {
    EXPECT_EQ(PrimitiveTypeFromString(s).status().code(), StatusCode::kInvalidArgument) << s;
  }
}

// The nested example shapes of the spec's Appendix C.
constexpr const char* kNestedJson = R"json({
  "type": "struct",
  "fields": [
    {"id": 1, "name": "id", "required": true, "type": "long", "doc": "unique id"},
    {"id": 2, "name": "tags", "required": false,
     "type": {"type": "list", "element-id": 3, "element-required": true, "element": "string"}},
    {"id": 4, "name": "props", "required": false,
     "type": {"type": "map", "key-id": 5, "key": "string", "value-id": 6,
              "value-required": false, "value": "double"}},
    {"id": 7, "name": "loc", "required": false,
     "type": {"type": "struct", "fields": [
       {"id": 8, "name": "lat", "required": true, "type": "decimal( 9 , 2 )"},
       {"id": 9, "name": "raw", "required": false, "type": "fixed[4]"}]},
     "initial-default": {}, "write-default": null},
    {"id": 10, "name": "flag", "required": false, "type": "boolean",
     "initial-default": true, "write-default": false}
  ]
})json";

TEST(TypeTest, NestedJsonRoundTrip) {
  auto t = TypeFromJson(kNestedJson);
  FLOE_ASSERT_OK(t);
  const Type& s = **t;
  ASSERT_EQ(s.kind(), TypeKind::kStruct);
  ASSERT_EQ(s.fields().size(), 5u);
  EXPECT_EQ(s.fields()[0].doc, "unique id");
  EXPECT_TRUE(s.fields()[0].required);
  const Type& list = *s.fields()[1].type;
  EXPECT_EQ(list.element().id, 3);
  EXPECT_EQ(list.element().name, "element");
  EXPECT_TRUE(list.element().required);
  const Type& map = *s.fields()[2].type;
  EXPECT_EQ(map.key().id, 5);
  EXPECT_EQ(map.value().id, 6);
  EXPECT_EQ(map.value().name, "value");
  EXPECT_FALSE(map.value().required);
  EXPECT_EQ(s.fields()[3].type->fields()[0].type->ToString(), "decimal(9, 2)");
  EXPECT_FALSE(s.fields()[3].initial_default.has_value());
  ASSERT_TRUE(s.fields()[4].initial_default.has_value());
  EXPECT_TRUE(s.fields()[4].initial_default->bool_value());
  EXPECT_FALSE(s.fields()[4].write_default->bool_value());

  auto again = TypeFromJson(TypeToJson(s));
  FLOE_ASSERT_OK(again);
  EXPECT_TRUE((*again)->Equals(s));
}

TEST(TypeTest, MalformedJsonIsAnErrorNotACrash) {
  for (
      const char* j :
      {"", "{", "42", "[]", R"({"type":"struct"})",
       R"({"type":"struct","fields":[{"id":"x","name":"a","required":true,"type":"int"}]})",
       R"({"type":"struct","fields":[{"id":1,"name":"a","required":true}]})",
       R"({"type":"list","element-id":1,"element":"int"})",
       R"({"type":"map","key-id":1,"key":"int","value-id":2,"value":"int"})",
       R"({"type":"struct","fields":[{"id":1,"name":"a","required":true,"type":"int","initial-default":"x"}]})",
       R"({"type":"struct","fields":[{"id":99999999999,"name":"a","required":true,"type":"int"}]})",
       R"({"type":"tuple"})"}) {
    auto t = TypeFromJson(j);
    EXPECT_THAT(t, IsError(StatusCode::kInvalidArgument)) << j;
  }
  EXPECT_EQ(TypeFromJson(R"("variant")").status().code(), StatusCode::kUnimplemented);
}

TEST(TypeTest, NestingIsBounded) {
  // `levels` lists around an int: 100 parse, the 101st is refused rather than recursing
  // without bound, also far beyond what the JSON depth check would allow.
  auto lists = [](int levels) {
    std::string deep;
    for (int i = 0; i < levels; ++i)
      deep += R"({"type":"list","element-id":1,"element-required":true,"element":)";
    deep += "\"int\"";
    for (int i = 0; i < levels; ++i) deep += "}";
    return deep;
  };
  auto at_limit = TypeFromJson(lists(100));
  FLOE_EXPECT_OK(at_limit);
  EXPECT_EQ(TypeFromJson(lists(101)).status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(TypeFromJson(lists(200)).status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(TypeFromJson(lists(50'000)).status().code(), StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace floe::iceberg
