#include "floe/iceberg/schema_update.h"

#include <gtest/gtest.h>

#include "floe/base/testing.h"

namespace floe::iceberg {
namespace {

Schema Base() {
  // Fresh ids in Java order: id=1 name=2 count=3 price=4 day=5 loc=6 tags=7 props=8 f=9,
  // loc.lat=10 loc.lon=11, tags.element=12 tags.element.t=13, props.key=14 props.value=15.
  auto s = ParseSchemaText(
      "id long not null, name string, count int, price decimal(9,2), day date, "
      "loc struct<lat double not null, lon double> not null, tags list<struct<t string>>, "
      "props map<string, int>, f float");
  FLOE_EXPECT_OK(s);
  return *s;
}

Result<SchemaUpdateResult> Evolve(const SchemaUpdate& u, int version = 2) {
  Schema b = Base();
  return u.Apply(b, b.highest_field_id(), version);
}

TEST(SchemaUpdateTest, AddColumnsGetFreshIds) {
  Schema b = Base();
  EXPECT_EQ(b.highest_field_id(), 15);
  auto r = SchemaUpdate()
               .AddColumn("", "extra",
                          MapType(0, StringType(), 0, ListType(0, IntType(), false), false), "doc")
               .AddColumn("loc", "alt", DoubleType())
               .AddColumn("tags", "weight", IntType())
               .Apply(b, 15, 2);
  FLOE_ASSERT_OK(r);
  // The new field first, then its nested fields (key, value, element).
  const NestedField* extra = r->schema.FindFieldByName("extra");
  ASSERT_NE(extra, nullptr);
  EXPECT_EQ(extra->id, 16);
  EXPECT_EQ(extra->doc, "doc");
  EXPECT_EQ(extra->type->key().id, 17);
  EXPECT_EQ(extra->type->value().id, 18);
  EXPECT_EQ(extra->type->value().type->element().id, 19);
  EXPECT_EQ(r->schema.FindFieldByName("loc.alt")->id, 20);
  EXPECT_EQ(r->schema.FindFieldByName("tags.element.weight")->id, 21);
  EXPECT_EQ(r->last_column_id, 21);
  EXPECT_EQ(r->schema.fields().back().name, "extra");
}

TEST(SchemaUpdateTest, RequiredAddsNeedDefaultsOrIncompatibleFlag) {
  EXPECT_FALSE(Evolve(SchemaUpdate().AddRequiredColumn("", "r", IntType())).ok());
  FLOE_EXPECT_OK(
      Evolve(SchemaUpdate().AllowIncompatibleChanges().AddRequiredColumn("", "r", IntType())));
  auto v2 = Evolve(SchemaUpdate().AddRequiredColumn("", "r", IntType(), "", Literal::Int(5)), 2);
  EXPECT_EQ(v2.status().code(), StatusCode::kFailedPrecondition);
  auto v3 = Evolve(SchemaUpdate().AddRequiredColumn("", "r", LongType(), "", Literal::Int(5)), 3);
  FLOE_ASSERT_OK(v3);
  const NestedField* r = v3->schema.FindFieldByName("r");
  EXPECT_TRUE(r->required);
  EXPECT_EQ(r->initial_default->long_value(), 5);
  EXPECT_EQ(r->write_default->long_value(), 5);
}

TEST(SchemaUpdateTest, TypePromotions) {
  // Spec "Schema Evolution": int->long, float->double, decimal precision widening.
  FLOE_EXPECT_OK(Evolve(SchemaUpdate().UpdateColumnType("count", LongType())));
  FLOE_EXPECT_OK(Evolve(SchemaUpdate().UpdateColumnType("f", DoubleType())));
  FLOE_EXPECT_OK(Evolve(SchemaUpdate().UpdateColumnType("price", DecimalType(18, 2))));
  FLOE_EXPECT_OK(Evolve(SchemaUpdate().UpdateColumnType("props.value", LongType())));
  EXPECT_FALSE(Evolve(SchemaUpdate().UpdateColumnType("price", DecimalType(8, 2))).ok());
  EXPECT_FALSE(Evolve(SchemaUpdate().UpdateColumnType("price", DecimalType(18, 3))).ok());
  EXPECT_FALSE(Evolve(SchemaUpdate().UpdateColumnType("id", IntType())).ok());
  EXPECT_FALSE(Evolve(SchemaUpdate().UpdateColumnType("count", StringType())).ok());
  EXPECT_FALSE(Evolve(SchemaUpdate().UpdateColumnType("f", LongType())).ok());
  EXPECT_FALSE(Evolve(SchemaUpdate().UpdateColumnType("loc", StringType())).ok());
  // v3 only: date -> timestamp / timestamp_ns, never to the tz types.
  EXPECT_FALSE(Evolve(SchemaUpdate().UpdateColumnType("day", TimestampType()), 2).ok());
  FLOE_EXPECT_OK(Evolve(SchemaUpdate().UpdateColumnType("day", TimestampType()), 3));
  FLOE_EXPECT_OK(Evolve(SchemaUpdate().UpdateColumnType("day", TimestampNsType()), 3));
  EXPECT_FALSE(Evolve(SchemaUpdate().UpdateColumnType("day", TimestampTzType()), 3).ok());
  auto r = Evolve(SchemaUpdate().UpdateColumnType("count", LongType()));
  EXPECT_EQ(r->schema.FindField(3)->type->kind(), TypeKind::kLong);
  EXPECT_TRUE(IsPromotionAllowed(*UnknownType(), *StringType(), 3));
  EXPECT_FALSE(IsPromotionAllowed(*UnknownType(), *StringType(), 2));
}

TEST(SchemaUpdateTest, RenameDeleteMoveAndConflicts) {
  auto r = Evolve(SchemaUpdate()
                      .RenameColumn("name", "full_name")
                      .DeleteColumn("f")
                      .MoveFirst("count")
                      .MoveAfter("loc.lat", "loc.lon")
                      .AddColumn("", "z", IntType())
                      .MoveBefore("z", "id")
                      .MakeOptional("loc.lat")
                      .UpdateDoc("id", "the key"));
  FLOE_ASSERT_OK(r);
  const auto& f = r->schema.fields();
  EXPECT_EQ(f[0].name, "count");
  EXPECT_EQ(f[1].name, "z");
  EXPECT_EQ(f[2].name, "id");
  EXPECT_EQ(f[2].doc, "the key");
  EXPECT_EQ(r->schema.FindField(2)->name, "full_name");
  EXPECT_EQ(r->schema.FindFieldByName("f"), nullptr);
  EXPECT_EQ(r->schema.FindField(6)->type->fields()[0].name, "lon");
  EXPECT_FALSE(r->schema.FindFieldByName("loc.lat")->required);

  // Conflicts and illegal changes.
  EXPECT_FALSE(Evolve(SchemaUpdate().DeleteColumn("name").RenameColumn("name", "x")).ok());
  EXPECT_FALSE(Evolve(SchemaUpdate().RenameColumn("name", "x").DeleteColumn("name")).ok());
  EXPECT_FALSE(Evolve(SchemaUpdate().AddColumn("loc", "alt", IntType()).DeleteColumn("loc")).ok());
  EXPECT_FALSE(Evolve(SchemaUpdate().AddColumn("", "name", IntType())).ok());
  EXPECT_FALSE(
      Evolve(SchemaUpdate().AddColumn("", "q", IntType()).AddColumn("", "q", IntType())).ok());
  FLOE_EXPECT_OK(Evolve(SchemaUpdate().DeleteColumn("name").AddColumn("", "name", IntType())));
  EXPECT_FALSE(Evolve(SchemaUpdate().RenameColumn("name", "id")).ok());         // duplicate name
  EXPECT_FALSE(Evolve(SchemaUpdate().AddColumn("name", "x", IntType())).ok());  // not a struct
  EXPECT_FALSE(Evolve(SchemaUpdate().DeleteColumn("nope")).ok());
  EXPECT_FALSE(Evolve(SchemaUpdate().DeleteColumn("tags.element")).ok());
  EXPECT_FALSE(Evolve(SchemaUpdate().MoveAfter("loc.lat", "id")).ok());
  EXPECT_FALSE(Evolve(SchemaUpdate().MoveBefore("id", "id")).ok());
  EXPECT_FALSE(Evolve(SchemaUpdate().RequireColumn("name")).ok());
  FLOE_EXPECT_OK(Evolve(SchemaUpdate().AllowIncompatibleChanges().RequireColumn("name")));
}

TEST(SchemaUpdateTest, IdentifierFieldValidation) {
  EXPECT_FALSE(Evolve(SchemaUpdate().SetIdentifierFields({"loc.lat"})).ok());    // double
  EXPECT_FALSE(Evolve(SchemaUpdate().SetIdentifierFields({"f"})).ok());          // float
  EXPECT_FALSE(Evolve(SchemaUpdate().SetIdentifierFields({"name"})).ok());       // optional
  EXPECT_FALSE(Evolve(SchemaUpdate().SetIdentifierFields({"loc"})).ok());        // struct
  EXPECT_FALSE(Evolve(SchemaUpdate().SetIdentifierFields({"props.key"})).ok());  // in a map
  EXPECT_FALSE(Evolve(SchemaUpdate().SetIdentifierFields({"nope"})).ok());
  FLOE_EXPECT_OK(Evolve(SchemaUpdate().SetIdentifierFields({"id"})));
  // A required field added in the same update may be an identifier; one in an optional
  // struct may not.
  auto added = Evolve(SchemaUpdate()
                          .AllowIncompatibleChanges()
                          .AddRequiredColumn("loc", "code", StringType())
                          .SetIdentifierFields({"id", "loc.code"}));
  FLOE_ASSERT_OK(added);
  EXPECT_EQ(added->schema.identifier_field_ids().size(), 2u);
  auto in_optional =
      Evolve(SchemaUpdate()
                 .AllowIncompatibleChanges()
                 .AddColumn("", "opt", StructType({NestedField::Required(0, "k", IntType())}))
                 .SetIdentifierFields({"opt.k"}));
  EXPECT_FALSE(in_optional.ok());
  // Identifier fields carry over and block deletes / making them optional.
  auto with_id = Evolve(SchemaUpdate().SetIdentifierFields({"id"}));
  FLOE_ASSERT_OK(with_id);
  const Schema& s = with_id->schema;
  EXPECT_FALSE(SchemaUpdate().DeleteColumn("id").Apply(s, 16, 2).ok());
  EXPECT_FALSE(SchemaUpdate().MakeOptional("id").Apply(s, 16, 2).ok());
  FLOE_EXPECT_OK(SchemaUpdate().DeleteColumn("id").SetIdentifierFields({}).Apply(s, 16, 2));
}

}  // namespace
}  // namespace floe::iceberg
