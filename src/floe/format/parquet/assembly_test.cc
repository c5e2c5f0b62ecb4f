// Record shredding and assembly against the Dremel examples of the Parquet spec
// (parquet.md §5.3: the LIST example and the struct example).
#include "floe/format/parquet/assembly.h"

#include <gtest/gtest.h>

#include "floe/base/testing.h"
#include "floe/columnar/builder.h"
#include "floe/columnar/json.h"
#include "floe/format/parquet/schema.h"

namespace floe::format::parquet {
namespace {

namespace col = floe::columnar;

SchemaElement Group(std::string name, int children, std::optional<FieldRepetitionType> rep,
                    std::optional<LogicalType> lt = std::nullopt) {
  SchemaElement e;
  e.name = std::move(name);
  e.num_children = children;
  e.repetition_type = rep;
  e.logical_type = lt;
  return e;
}

SchemaElement Leaf(std::string name, Type type, FieldRepetitionType rep) {
  SchemaElement e;
  e.name = std::move(name);
  e.type = type;
  e.repetition_type = rep;
  return e;
}

// optional group a (LIST) { repeated group list { optional int32 element; } }
std::unique_ptr<SchemaDescriptor> ListSchema() {
  std::vector<SchemaElement> elements = {
      Group("schema", 1, std::nullopt),
      Group("a", 1, FieldRepetitionType::kOptional, LogicalType::Of(LogicalType::Kind::kList)),
      Group("list", 1, FieldRepetitionType::kRepeated),
      Leaf("element", Type::kInt32, FieldRepetitionType::kOptional),
  };
  auto d = SchemaDescriptor::Make(std::move(elements));
  FLOE_EXPECT_OK(d);
  return std::move(*d);
}

std::vector<int16_t> Levels(const Buffer& b, int64_t n) {
  std::vector<int16_t> out(static_cast<size_t>(n));
  if (n) std::memcpy(out.data(), b.data(), sizeof(int16_t) * static_cast<size_t>(n));
  return out;
}

// Records: a = null, [], [null], [1, null, 2].
col::Array SpecListArray() {
  auto type = col::List(col::Field("element", col::Int32()));
  auto b = col::MakeBuilder(type);
  auto* list = static_cast<col::ListBuilder*>(b.get());
  auto* elem = static_cast<col::FixedWidthBuilder<int32_t>*>(list->child());
  list->AppendNull();
  list->Append();
  list->Close();
  list->Append();
  elem->AppendNull();
  list->Close();
  list->Append();
  elem->Append(1);
  elem->AppendNull();
  elem->Append(2);
  list->Close();
  return b->Finish();
}

TEST(AssemblyTest, ListLevelsMatchTheSpecExample) {
  auto schema = ListSchema();
  const ColumnDescriptor& leaf = schema->leaf(0);
  EXPECT_EQ(leaf.max_def, 3);
  EXPECT_EQ(leaf.max_rep, 1);
  col::Array a = SpecListArray();
  FLOE_ASSERT_OK(a.Validate());
  std::vector<ShreddedLeaf> out;
  FLOE_ASSERT_OK(ShredArray(schema->fields()[0], a, 0, a.length(), &out));
  ASSERT_EQ(out.size(), 1u);
  // (rep, def): (0,0) (0,1) (0,2) (0,3) (1,2) (1,3); values 1, 2.
  EXPECT_EQ(out[0].num_entries, 6);
  EXPECT_EQ(Levels(out[0].def_levels, 6), (std::vector<int16_t>{0, 1, 2, 3, 2, 3}));
  EXPECT_EQ(Levels(out[0].rep_levels, 6), (std::vector<int16_t>{0, 0, 0, 0, 1, 1}));
  EXPECT_EQ(out[0].num_values, 2);
  ASSERT_EQ(out[0].value_indices.size(), 2u);
  EXPECT_EQ(a.child(0).Value<int32_t>(out[0].value_indices[0]), 1);
  EXPECT_EQ(a.child(0).Value<int32_t>(out[0].value_indices[1]), 2);
}

TEST(AssemblyTest, ListAssembledFromTheSpecLevels) {
  auto schema = ListSchema();
  std::vector<LeafData> leaves(1);
  LeafData& d = leaves[0];
  d.num_entries = 6;
  for (int16_t v : {0, 1, 2, 3, 2, 3}) d.def_levels.AppendValue<int16_t>(v);
  for (int16_t v : {0, 0, 0, 0, 1, 1}) d.rep_levels.AppendValue<int16_t>(v);
  d.num_values = 2;
  d.values.AppendValue<int32_t>(1);
  d.values.AppendValue<int32_t>(2);
  auto a = AssembleArray(schema->fields()[0], leaves);
  FLOE_ASSERT_OK(a);
  FLOE_ASSERT_OK(a->Validate());
  EXPECT_TRUE(a->Equals(SpecListArray()));
}

TEST(AssemblyTest, StructLevelsMatchTheSpecExample) {
  // optional group s { required int32 x; optional int32 y; }
  std::vector<SchemaElement> elements = {
      Group("schema", 1, std::nullopt),
      Group("s", 2, FieldRepetitionType::kOptional),
      Leaf("x", Type::kInt32, FieldRepetitionType::kRequired),
      Leaf("y", Type::kInt32, FieldRepetitionType::kOptional),
  };
  auto schema = SchemaDescriptor::Make(std::move(elements));
  FLOE_ASSERT_OK(schema);
  EXPECT_EQ((*schema)->leaf(0).max_def, 1);
  EXPECT_EQ((*schema)->leaf(1).max_def, 2);
  // Rows: s = null; s = {x: 5, y: null}; s = {x: 6, y: 7}.
  auto b = col::MakeBuilder((*schema)->schema()->field(0).type);
  auto* s = static_cast<col::StructBuilder*>(b.get());
  auto* x = static_cast<col::FixedWidthBuilder<int32_t>*>(s->child(0));
  auto* y = static_cast<col::FixedWidthBuilder<int32_t>*>(s->child(1));
  s->AppendNull();
  s->Append();
  x->Append(5);
  y->AppendNull();
  s->Append();
  x->Append(6);
  y->Append(7);
  col::Array a = b->Finish();
  std::vector<ShreddedLeaf> out;
  FLOE_ASSERT_OK(ShredArray((*schema)->fields()[0], a, 0, 3, &out));
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(Levels(out[0].def_levels, 3), (std::vector<int16_t>{0, 1, 1}));
  EXPECT_EQ(Levels(out[1].def_levels, 3), (std::vector<int16_t>{0, 1, 2}));
  EXPECT_TRUE(out[0].rep_levels.empty());
  // A null inside a REQUIRED field is refused.
  auto nb = col::MakeBuilder((*schema)->schema()->field(0).type);
  auto* ns = static_cast<col::StructBuilder*>(nb.get());
  ns->Append();
  ns->child(0)->AppendNull();
  ns->child(1)->AppendNull();
  col::Array bad = nb->Finish();
  out.clear();
  EXPECT_EQ(ShredArray((*schema)->fields()[0], bad, 0, 1, &out).code(),
            StatusCode::kInvalidArgument);
}

TEST(AssemblyTest, MismatchedLevelsAreCorrupt) {
  auto schema = ListSchema();
  std::vector<LeafData> leaves(1);
  LeafData& d = leaves[0];
  d.num_entries = 2;
  for (int16_t v : {3, 3}) d.def_levels.AppendValue<int16_t>(v);
  for (int16_t v : {0, 1}) d.rep_levels.AppendValue<int16_t>(v);
  d.num_values = 1;  // the levels say 2
  d.values.AppendValue<int32_t>(1);
  EXPECT_TRUE(AssembleArray(schema->fields()[0], leaves).status().IsCorrupt());
}

// The legacy LIST shapes of parquet.md §5.4 map to the element the spec's rules name.
TEST(SchemaTest, LegacyListShapes) {
  auto list_type = [](std::vector<SchemaElement> elements) {
    auto d = SchemaDescriptor::Make(std::move(elements));
    FLOE_EXPECT_OK(d);
    return d.ok() ? (*d)->schema()->field(0).type->ToString() : std::string();
  };
  const auto kList = LogicalType::Of(LogicalType::Kind::kList);
  // Rule 1: a repeated primitive is the (required) element.
  EXPECT_EQ(list_type({Group("schema", 1, std::nullopt),
                       Group("f", 1, FieldRepetitionType::kOptional, kList),
                       Leaf("array", Type::kInt32, FieldRepetitionType::kRepeated)}),
            "list<array: int32 not null>");
  // Rule 2: a repeated group with two fields is the element (a struct).
  EXPECT_EQ(list_type({Group("schema", 1, std::nullopt),
                       Group("f", 1, FieldRepetitionType::kOptional, kList),
                       Group("element", 2, FieldRepetitionType::kRepeated),
                       Leaf("a", Type::kInt32, FieldRepetitionType::kRequired),
                       Leaf("b", Type::kInt64, FieldRepetitionType::kOptional)}),
            "list<element: struct<a: int32 not null, b: int64> not null>");
  // Rule 4: one field under a group named "array" or "<name>_tuple" is a one-field struct.
  EXPECT_EQ(list_type({Group("schema", 1, std::nullopt),
                       Group("f", 1, FieldRepetitionType::kOptional, kList),
                       Group("f_tuple", 1, FieldRepetitionType::kRepeated),
                       Leaf("x", Type::kInt32, FieldRepetitionType::kRequired)}),
            "list<f_tuple: struct<x: int32 not null> not null>");
  // Rule 5 (Hive): bag / array_element keeps the element's own nullability.
  EXPECT_EQ(list_type({Group("schema", 1, std::nullopt),
                       Group("f", 1, FieldRepetitionType::kOptional, kList),
                       Group("bag", 1, FieldRepetitionType::kRepeated),
                       Leaf("array_element", Type::kInt32, FieldRepetitionType::kOptional)}),
            "list<array_element: int32>");
  // A repeated field outside LIST is a required list of required elements.
  EXPECT_EQ(list_type({Group("schema", 1, std::nullopt),
                       Leaf("r", Type::kInt64, FieldRepetitionType::kRepeated)}),
            "list<r: int64 not null>");
}

TEST(SchemaTest, MalformedSchemasAreCorrupt) {
  // A child count past the end of the element list.
  EXPECT_TRUE(SchemaDescriptor::Make({Group("schema", 3, std::nullopt),
                                      Leaf("a", Type::kInt32, FieldRepetitionType::kRequired)})
                  .status()
                  .IsCorrupt());
  // A group without children or type.
  SchemaElement bare;
  bare.name = "x";
  EXPECT_TRUE(
      SchemaDescriptor::Make({Group("schema", 1, std::nullopt), bare}).status().IsCorrupt());
  // A decimal FIXED_LEN_BYTE_ARRAY with a negative length (found by fuzzing).
  SchemaElement flba = Leaf("d", Type::kFixedLenByteArray, FieldRepetitionType::kOptional);
  flba.type_length = -5;
  flba.logical_type = LogicalType::Decimal(9, 2);
  EXPECT_TRUE(
      SchemaDescriptor::Make({Group("schema", 1, std::nullopt), flba}).status().IsCorrupt());
  // Elements left over after the tree.
  EXPECT_TRUE(SchemaDescriptor::Make({Group("schema", 0, std::nullopt),
                                      Leaf("a", Type::kInt32, FieldRepetitionType::kRequired)})
                  .status()
                  .IsCorrupt());
}

TEST(SchemaTest, FromColumnarFollowsTheIcebergMapping) {
  col::Schema schema({
      col::Field("id", col::Int64(), false, 1),
      col::Field("price", col::Decimal128(9, 2), true, 2),
      col::Field("big", col::Decimal128(38, 10), true, 3),
      col::Field("ts", col::Timestamp(col::TimeUnit::kMicro, true), true, 4),
      col::Field("tags", col::List(col::Field("element", col::String(), true, 6)), true, 5),
      col::Field("m",
                 col::Map(col::Field("key", col::String(), false, 8),
                          col::Field("value", col::Uuid(), true, 9)),
                 true, 7),
  });
  auto d = SchemaDescriptor::FromColumnar(schema);
  FLOE_ASSERT_OK(d);
  const auto& e = (*d)->elements();
  // Decimal precision 9 -> INT32, precision 38 -> FIXED_LEN_BYTE_ARRAY(16).
  EXPECT_EQ(e[2].type, Type::kInt32);
  EXPECT_EQ(e[3].type, Type::kFixedLenByteArray);
  EXPECT_EQ(e[3].type_length, 16);
  EXPECT_EQ(e[4].logical_type->temporal.is_adjusted_to_utc, true);
  EXPECT_EQ(e[4].converted_type, ConvertedType::kTimestampMicros);
  // 3-level list with list/element and ids on the group and the element.
  EXPECT_EQ(e[5].name, "tags");
  EXPECT_EQ(e[5].field_id, 5);
  EXPECT_EQ(e[6].name, "list");
  EXPECT_FALSE(e[6].field_id.has_value());
  EXPECT_EQ(e[7].name, "element");
  EXPECT_EQ(e[7].field_id, 6);
  EXPECT_EQ(e[9].name, "key_value");
  EXPECT_EQ(e[10].repetition_type, FieldRepetitionType::kRequired);
  EXPECT_EQ(e[11].type_length, 16);
  // The reader's mapping of those elements gives the same columnar types back.
  for (size_t i = 0; i < schema.num_fields(); ++i) {
    EXPECT_TRUE((*d)->schema()->field(i).type->Equals(*schema.field(i).type))
        << (*d)->schema()->field(i).type->ToString() << " vs " << schema.field(i).type->ToString();
  }
  EXPECT_FALSE(SchemaDescriptor::FromColumnar(
                   col::Schema({col::Field("u", col::Union({col::Field("a", col::Int32())}))}))
                   .ok());
}

}  // namespace
}  // namespace floe::format::parquet
