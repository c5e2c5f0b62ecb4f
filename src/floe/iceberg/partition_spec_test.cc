#include "floe/iceberg/partition_spec.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "floe/base/testing.h"
#include "floe/iceberg/sort_order.h"

namespace floe::iceberg {
namespace {

Schema TestSchema() {
  auto s = ParseSchemaText(
      "id long not null, name string, ts timestamptz, data binary, price decimal(9,2), "
      "d date, loc struct<lat double>");
  FLOE_EXPECT_OK(s);
  return *s;
}

TEST(PartitionSpecTest, BuilderUsesJavaDefaultNames) {
  Schema s = TestSchema();
  auto spec = PartitionSpecBuilder(s, 0)
                  .Day("ts")
                  .Bucket("id", 16)
                  .Truncate("name", 4)
                  .Identity("d")
                  .Void("price")
                  .Build();
  FLOE_ASSERT_OK(spec);
  const auto& f = spec->fields();
  ASSERT_EQ(f.size(), 5u);
  EXPECT_EQ(f[0].name, "ts_day");
  EXPECT_EQ(f[0].field_id, 1000);
  EXPECT_EQ(f[1].name, "id_bucket");
  EXPECT_EQ(f[1].field_id, 1001);
  EXPECT_EQ(f[2].name, "name_trunc");
  EXPECT_EQ(f[3].name, "d");
  EXPECT_EQ(f[4].name, "price_null");
  EXPECT_EQ(DefaultPartitionName("ts", Transform::Year()), "ts_year");
  EXPECT_EQ(DefaultPartitionName("ts", Transform::Month()), "ts_month");
  EXPECT_EQ(DefaultPartitionName("ts", Transform::Hour()), "ts_hour");
  EXPECT_FALSE(spec->is_unpartitioned());
  EXPECT_TRUE(PartitionSpec(1, {f[4]}).is_unpartitioned());
  EXPECT_TRUE(PartitionSpec::Unpartitioned().is_unpartitioned());

  auto type = spec->PartitionType(s);
  FLOE_ASSERT_OK(type);
  EXPECT_EQ((*type)->fields()[0].id, 1000);
  EXPECT_EQ((*type)->fields()[0].type->kind(), TypeKind::kDate);  // ts_day, as in Java
  EXPECT_FALSE((*type)->fields()[0].required);
  EXPECT_EQ((*type)->fields()[2].type->kind(), TypeKind::kString);
  EXPECT_EQ((*type)->fields()[4].type->ToString(), "decimal(9, 2)");
}

TEST(PartitionSpecTest, BuilderRejectsBadFields) {
  Schema s = TestSchema();
  EXPECT_FALSE(PartitionSpecBuilder(s).Day("nope").Build().ok());
  EXPECT_FALSE(PartitionSpecBuilder(s).Hour("d").Build().ok());             // hour of a date
  EXPECT_FALSE(PartitionSpecBuilder(s).Bucket("loc", 4).Build().ok());      // struct
  EXPECT_FALSE(PartitionSpecBuilder(s).Day("ts").Hour("ts").Build().ok());  // two time parts
  EXPECT_FALSE(PartitionSpecBuilder(s).Bucket("id", 4).Bucket("id", 4, "b2").Build().ok());
  EXPECT_FALSE(PartitionSpecBuilder(s).Day("ts", "x").Identity("d", "x").Build().ok());
  EXPECT_FALSE(PartitionSpecBuilder(s).Bucket("id", 4, "name").Build().ok());  // column name
  EXPECT_FALSE(PartitionSpecBuilder(s).Bucket("id", 0).Build().ok());
  FLOE_EXPECT_OK(PartitionSpecBuilder(s).Bucket("id", 4).Bucket("id", 8, "id_b8").Build());
}

TEST(PartitionSpecTest, PartitionPathEscapesLikeJavaUrlEncoder) {
  Schema s = TestSchema();
  auto spec = PartitionSpecBuilder(s).Day("ts").Bucket("id", 16).Identity("name").Build();
  FLOE_ASSERT_OK(spec);
  auto path =
      spec->PartitionPath({Literal::Date(17486), Literal::Int(3), Literal::String("a b/c=d&é")});
  FLOE_ASSERT_OK(path);
  // URLEncoder: space -> '+', '/' %2F, '=' %3D, '&' %26, é = C3 A9.
  EXPECT_EQ(*path, "ts_day=2017-11-16/id_bucket=3/name=a+b%2Fc%3Dd%26%C3%A9");
  auto nulls = spec->PartitionPath(
      {Literal::Null(IntType()), Literal::Null(IntType()), Literal::Null(StringType())});
  EXPECT_EQ(*nulls, "ts_day=null/id_bucket=null/name=null");
  EXPECT_FALSE(spec->PartitionPath({Literal::Int(1)}).ok());
}

TEST(PartitionSpecTest, JsonV2AndV1) {
  auto spec = PartitionSpecFromJson(R"({"spec-id": 2, "fields": [
      {"name": "ts_day", "transform": "day", "source-id": 3, "field-id": 1000},
      {"name": "id_bucket", "transform": "bucket[16]", "source-id": 1, "field-id": 1001},
      {"name": "z", "transform": "zorder", "source-id": 1, "field-id": 1002}]})");
  FLOE_ASSERT_OK(spec);
  EXPECT_EQ(spec->spec_id(), 2);
  EXPECT_EQ(spec->fields()[1].transform, Transform::Bucket(16));
  EXPECT_FALSE(spec->fields()[2].transform.is_known());
  auto again = PartitionSpecFromJson(PartitionSpecToJson(*spec));
  FLOE_ASSERT_OK(again);
  EXPECT_EQ(*again, *spec);

  // v1 "partition-spec": no field ids; they are assigned from 1000 in order.
  auto v1 = PartitionSpecFromV1FieldsJson(nlohmann::json::parse(R"([
      {"name": "ts_day", "transform": "day", "source-id": 3},
      {"name": "id_bucket", "transform": "bucket[ 16 ]", "source-id": 1}])"));
  FLOE_ASSERT_OK(v1);
  EXPECT_EQ(v1->fields()[0].field_id, 1000);
  EXPECT_EQ(v1->fields()[1].field_id, 1001);
  EXPECT_EQ(v1->fields()[1].transform.ToString(), "bucket[16]");

  EXPECT_FALSE(PartitionSpecFromJson(R"({"fields": []})").ok());
  EXPECT_FALSE(PartitionSpecFromJson(R"({"spec-id": 0, "fields": [{"name": "x"}]})").ok());
  // v3 fields over several sources: the spec defines no such transform, so the field is
  // kept as an unknown transform (Java's UnknownTransform) and written back as it came; a
  // single-element "source-ids" is an ordinary field.
  auto multi = PartitionSpecFromJson(R"({"spec-id": 0, "fields": [{"name": "x",
      "transform": "bucket[4]", "source-ids": [1, 2], "field-id": 1000}, {"name": "y",
      "transform": "identity", "source-ids": [3], "field-id": 1001}]})");
  FLOE_ASSERT_OK(multi);
  const PartitionField& x = multi->fields()[0];
  EXPECT_FALSE(x.transform.is_known());
  EXPECT_EQ(x.transform.ToString(), "bucket[4]");
  EXPECT_EQ(x.source_id, 1);
  EXPECT_EQ(x.source_ids, (std::vector<int32_t>{1, 2}));
  EXPECT_FALSE(x.transform.Apply(Literal::Int(7)).ok());
  EXPECT_TRUE(multi->fields()[1].transform.is_known());
  EXPECT_EQ(multi->fields()[1].source_id, 3);
  EXPECT_TRUE(multi->fields()[1].source_ids.empty());
  const std::string back = PartitionFieldsToJsonValue(*multi).dump();
  EXPECT_EQ(back, R"([{"field-id":1000,"name":"x","source-ids":[1,2],"transform":"bucket[4]"},)"
                  R"({"field-id":1001,"name":"y","source-id":3,"transform":"identity"}])");
}

TEST(PartitionSpecTest, CliText) {
  Schema s = TestSchema();
  auto spec = ParsePartitionText(
      s, "day(ts), bucket(16, id), truncate(4, name) as n4, identity(d), price, void(data)");
  FLOE_ASSERT_OK(spec);
  ASSERT_EQ(spec->fields().size(), 6u);
  EXPECT_EQ(spec->fields()[0].name, "ts_day");
  EXPECT_EQ(spec->fields()[2].name, "n4");
  EXPECT_EQ(spec->fields()[2].transform, Transform::Truncate(4));
  EXPECT_EQ(spec->fields()[4].name, "price");
  EXPECT_EQ(spec->fields()[4].transform, Transform::Identity());
  EXPECT_EQ(spec->fields()[5].name, "data_null");
  for (const char* bad :
       {"day(", "bucket(id)", "bucket(x, id)", "frob(id)", "day(ts) zz", "day(nope)"}) {
    EXPECT_FALSE(ParsePartitionText(s, bad).ok()) << bad;
  }
  EXPECT_TRUE(ParsePartitionText(s, "")->fields().empty());
}

TEST(PartitionSpecTest, EvolutionReusesIds) {
  PartitionSpec v0(
      0, {{3, 1000, "ts_day", Transform::Day()}, {1, 1001, "id_bucket", Transform::Bucket(16)}});
  // Replace day by hour, keep the bucket: the bucket keeps 1001, hour gets 1002.
  auto e = EvolveSpec(
      {v0}, 1001,
      {{1, 0, "id_bucket", Transform::Bucket(16)}, {3, 0, "ts_hour", Transform::Hour()}}, 1);
  FLOE_ASSERT_OK(e);
  EXPECT_FALSE(e->is_existing);
  EXPECT_EQ(e->spec.spec_id(), 1);
  EXPECT_EQ(e->spec.fields()[0].field_id, 1001);
  EXPECT_EQ(e->spec.fields()[1].field_id, 1002);
  EXPECT_EQ(e->last_partition_id, 1002);
  // Going back to the original spec returns it instead of a duplicate.
  auto back = EvolveSpec(
      {v0, e->spec}, 1002,
      {{3, 0, "ts_day", Transform::Day()}, {1, 0, "id_bucket", Transform::Bucket(16)}}, 2);
  FLOE_ASSERT_OK(back);
  EXPECT_TRUE(back->is_existing);
  EXPECT_EQ(back->spec.spec_id(), 0);
  EXPECT_FALSE(EvolveSpec({}, 999,
                          {{1, 0, "a", Transform::Identity()}, {2, 0, "a", Transform::Identity()}},
                          0)
                   .ok());
  EXPECT_TRUE(v0.CompatibleWith(PartitionSpec(
      5, {{3, 2000, "ts_day", Transform::Day()}, {1, 2001, "id_bucket", Transform::Bucket(16)}})));
  EXPECT_FALSE(v0.CompatibleWith(PartitionSpec(0, {v0.fields()[0]})));
}

TEST(SortOrderTest, JsonAndText) {
  Schema s = TestSchema();
  auto order =
      ParseSortText(s, "id desc, day(ts), name asc nulls last, bucket(4, id) DESC NULLS FIRST");
  FLOE_ASSERT_OK(order);
  const auto& f = order->fields();
  ASSERT_EQ(f.size(), 4u);
  EXPECT_EQ(order->order_id(), 1);
  // Java defaults: desc -> nulls last, asc -> nulls first.
  EXPECT_EQ(f[0].direction, SortDirection::kDesc);
  EXPECT_EQ(f[0].null_order, NullOrder::kNullsLast);
  EXPECT_EQ(f[1].transform, Transform::Day());
  EXPECT_EQ(f[1].direction, SortDirection::kAsc);
  EXPECT_EQ(f[1].null_order, NullOrder::kNullsFirst);
  EXPECT_EQ(f[2].null_order, NullOrder::kNullsLast);
  EXPECT_EQ(f[3].null_order, NullOrder::kNullsFirst);

  auto parsed = SortOrderFromJson(R"({"order-id": 1, "fields": [
      {"transform": "identity", "source-id": 1, "direction": "desc", "null-order": "nulls-last"}]})");
  FLOE_ASSERT_OK(parsed);
  EXPECT_EQ(parsed->fields()[0].source_id, 1);
  EXPECT_EQ(parsed->fields()[0].direction, SortDirection::kDesc);
  auto again = SortOrderFromJson(SortOrderToJson(*order));
  FLOE_ASSERT_OK(again);
  EXPECT_EQ(*again, *order);
  EXPECT_TRUE(SortOrder::Unsorted().is_unsorted());
  EXPECT_FALSE(SortOrderFromJson(R"({"order-id": 1, "fields": [{"transform": "identity",
      "source-id": 1, "direction": "up", "null-order": "nulls-last"}]})")
                   .ok());
  EXPECT_FALSE(ParseSortText(s, "loc").ok());
  EXPECT_FALSE(ParseSortText(s, "id sideways").ok());
}

TEST(PartitionSpecTest, ProposedSpecsNeedKnownTransforms) {
  auto parse = [](const char* transform) {
    return PartitionSpecFromJson(std::string(R"({"spec-id":0,"fields":[{"source-id":1,)") +
                                 R"("field-id":1000,"name":"p","transform":")" + transform +
                                 "\"}]}");
  };
  for (const char* known : {"identity", "bucket[16]", "truncate[4]", "day", "void"}) {
    auto spec = parse(known);
    FLOE_ASSERT_OK(spec) << known;
    FLOE_EXPECT_OK(CheckProposedSpec(*spec)) << known;
  }
  for (const char* unknown : {"frobnicate", "bucket[0]", "zorder"}) {
    auto spec = parse(unknown);
    FLOE_ASSERT_OK(spec) << unknown;  // read as written (forward compatibility)
    Status st = CheckProposedSpec(*spec);
    EXPECT_EQ(st.code(), StatusCode::kInvalidArgument) << unknown;
    EXPECT_NE(st.message().find("unknown transform"), std::string::npos);
  }
}

}  // namespace
}  // namespace floe::iceberg
