#include "floe/columnar/array.h"

#include <gtest/gtest.h>

#include "floe/base/testing.h"
#include "floe/columnar/builder.h"
#include "floe/columnar/json.h"

namespace floe::columnar {
namespace {

// struct<id: int64 not null, tags: list<string>, attrs: map<string, int32>>
DataTypePtr NestedType() {
  return Struct({Field("id", Int64(), false), Field("tags", List(Field("element", String()))),
                 Field("attrs", Map(Field("key", String()), Field("value", Int32())))});
}

Array BuildNested() {
  auto b = MakeBuilder(NestedType());
  auto* s = static_cast<StructBuilder*>(b.get());
  auto* id = static_cast<FixedWidthBuilder<int64_t>*>(s->child(0));
  auto* tags = static_cast<ListBuilder*>(s->child(1));
  auto* tag = static_cast<BinaryBuilder*>(tags->child());
  auto* attrs = static_cast<ListBuilder*>(s->child(2));
  auto* entries = static_cast<StructBuilder*>(attrs->child());
  auto* key = static_cast<BinaryBuilder*>(attrs->key_builder());
  auto* val = static_cast<FixedWidthBuilder<int32_t>*>(attrs->item_builder());
  // Row 0: full.
  s->Append();
  id->Append(1);
  tags->Append();
  tag->Append("a");
  tag->AppendNull();
  tags->Close();
  attrs->Append();
  entries->Append();
  key->Append("k");
  val->Append(7);
  attrs->Close();
  // Row 1: null struct.
  s->AppendNull();
  // Row 2: empty list, null map.
  s->Append();
  id->Append(3);
  tags->Append();
  tags->Close();
  attrs->AppendNull();
  return b->Finish();
}

TEST(ArrayTest, BuildersProduceValidNestedArrays) {
  Array a = BuildNested();
  FLOE_ASSERT_OK(a.Validate());
  EXPECT_EQ(a.length(), 3);
  EXPECT_EQ(a.null_count(), 1);
  EXPECT_TRUE(a.IsNull(1));
  EXPECT_EQ(a.child(0).Value<int64_t>(2), 3);
  EXPECT_EQ(a.child(1).child(0).length(), 2);
  EXPECT_EQ(a.child(1).child(0).BinaryValue(0), "a");

  std::string out;
  JsonWriter w(&out);
  w.BeginArray();
  for (int64_t i = 0; i < a.length(); ++i) WriteJsonValue(a, i, w);
  w.EndArray();
  EXPECT_EQ(out,
            "[{\"id\":1,\"tags\":[\"a\",null],\"attrs\":{\"k\":7}},null,"
            "{\"id\":3,\"tags\":[],\"attrs\":null}]");
}

TEST(ArrayTest, SliceAndEquals) {
  Array a = BuildNested();
  Array tail = a.Slice(1, 2);
  FLOE_ASSERT_OK(tail.Validate());
  EXPECT_EQ(tail.length(), 2);
  EXPECT_TRUE(tail.IsNull(0));
  EXPECT_EQ(tail.child(0).Value<int64_t>(1), 3);
  EXPECT_TRUE(a.Slice(0, 3).Equals(a));
  EXPECT_FALSE(tail.Equals(a.Slice(0, 2)));
  Array nulls = Array::Nulls(NestedType(), 4);
  FLOE_ASSERT_OK(nulls.Validate());
  EXPECT_EQ(nulls.null_count(), 4);
}

TEST(ArrayTest, ValidateRejectsBrokenOffsets) {
  Buffer offsets;
  for (int64_t o : {0, 5, 3}) offsets.AppendValue<int64_t>(o);
  Buffer data;
  data.Append("hello");
  Array bad(String(), 2, 0, Buffer(), std::move(data), std::move(offsets), {});
  EXPECT_FALSE(bad.Validate().ok());
}

TEST(ArrayTest, UnionBuilder) {
  auto type = Union({Field("null", Null()), Field("int", Int32()), Field("str", String())});
  auto b = MakeBuilder(type);
  auto* u = static_cast<UnionBuilder*>(b.get());
  u->AppendMember(1);
  static_cast<FixedWidthBuilder<int32_t>*>(u->member(1))->Append(5);
  u->AppendMember(2);
  static_cast<BinaryBuilder*>(u->member(2))->Append("x");
  u->AppendNull();
  Array a = b->Finish();
  FLOE_ASSERT_OK(a.Validate());
  std::string out;
  JsonWriter w(&out);
  w.BeginArray();
  for (int64_t i = 0; i < a.length(); ++i) WriteJsonValue(a, i, w);
  w.EndArray();
  EXPECT_EQ(out, "[5,\"x\",null]");
}

}  // namespace
}  // namespace floe::columnar
