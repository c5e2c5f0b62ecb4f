#include "floe/iceberg/expression_eval.h"

#include <map>

#include <gtest/gtest.h>

#include "floe/base/testing.h"
#include "floe/columnar/builder.h"
#include "floe/iceberg/partition_spec.h"
#include "floe/iceberg/schema.h"

namespace floe::iceberg {
namespace {

namespace col = floe::columnar;

std::string Bytes(const Literal& l) {
  Result<std::string> r = l.ToBytes();
  return r.ok() ? std::move(*r) : std::string();
}

// id long required (1), name string (2), f double (3), d date (4), s struct<x int (6)> (5)
TypePtr TableType() {
  return StructType(
      {NestedField::Required(1, "id", LongType()), NestedField::Optional(2, "name", StringType()),
       NestedField::Optional(3, "f", DoubleType()), NestedField::Optional(4, "d", DateType()),
       NestedField::Optional(5, "s", StructType({NestedField::Optional(6, "x", IntType())}))});
}

BoundExpressionPtr MustBind(std::string_view text) {
  Result<ExpressionPtr> e = ParseExpression(text);
  FLOE_EXPECT_OK(e) << text;
  Result<BoundExpressionPtr> b = Bind(*TableType(), *e);
  FLOE_EXPECT_OK(b) << text;
  return b.ok() ? *b : BoundExpression::False();
}

Status BindError(std::string_view text) {
  Result<ExpressionPtr> e = ParseExpression(text);
  if (!e.ok()) return e.status();
  Result<BoundExpressionPtr> b = Bind(*TableType(), *e);
  return b.ok() ? Status::OK() : b.status();
}

// Rows:            id  name     f      d      s        s.x
//   0               1  'apple'  1.5    10     {x: 7}   7
//   1               2  null     NaN    null   null     -
//   2               3  'banana' -0.0   -1     {x: null}
//   3              40  'app'    null   20000  {x: 9}   9
col::RecordBatch Rows() {
  col::Schema schema(
      {col::Field("id", col::Int64(), false, 1), col::Field("name", col::String(), true, 2),
       col::Field("f", col::Float64(), true, 3), col::Field("d", col::Date32(), true, 4),
       col::Field("s", col::Struct({col::Field("x", col::Int32(), true, 6)}), true, 5)});
  col::FixedWidthBuilder<int64_t> id(col::Int64());
  col::BinaryBuilder name(col::String());
  col::FixedWidthBuilder<double> f(col::Float64());
  col::FixedWidthBuilder<int32_t> d(col::Date32());
  auto s_builder = col::MakeBuilder(schema.field(4).type);
  auto* s = static_cast<col::StructBuilder*>(s_builder.get());
  auto* x = static_cast<col::FixedWidthBuilder<int32_t>*>(s->child(0));
  for (int64_t v : {1, 2, 3, 40}) id.Append(v);
  name.Append("apple");
  name.AppendNull();
  name.Append("banana");
  name.Append("app");
  f.Append(1.5);
  f.Append(std::nan(""));
  f.Append(-0.0);
  f.AppendNull();
  d.Append(10);
  d.AppendNull();
  d.Append(-1);
  d.Append(20000);
  s->Append();
  x->Append(7);
  s->AppendNull();
  s->Append();
  x->AppendNull();
  s->Append();
  x->Append(9);
  std::vector<col::Array> columns;
  columns.push_back(id.Finish());
  columns.push_back(name.Finish());
  columns.push_back(f.Finish());
  columns.push_back(d.Finish());
  columns.push_back(s->Finish());
  return col::RecordBatch(std::make_shared<col::Schema>(std::move(schema)), 4, std::move(columns));
}

std::string Mask(std::string_view text) {
  col::RecordBatch batch = Rows();
  std::vector<uint8_t> out;
  Status st = EvaluateBatch(*MustBind(text), batch, &out);
  if (!st.ok()) return st.ToString();
  std::string s;
  for (uint8_t b : out) s += b ? '1' : '0';
  return s;
}

TEST(ExpressionEval, Comparisons) {
  EXPECT_EQ(Mask("id = 3"), "0010");
  EXPECT_EQ(Mask("id != 3"), "1101");
  EXPECT_EQ(Mask("id < 3"), "1100");
  EXPECT_EQ(Mask("3 <= id"), "0011");
  EXPECT_EQ(Mask("id > 40"), "0000");
  EXPECT_EQ(Mask("id >= 40"), "0001");
  EXPECT_EQ(Mask("id IN (40, 1, 1)"), "1001");
  EXPECT_EQ(Mask("id NOT IN (40, 1)"), "0110");
}

TEST(ExpressionEval, NullsFollowSqlSemantics) {
  // A comparison with null is false, negated or not.
  EXPECT_EQ(Mask("name = 'app'"), "0001");
  EXPECT_EQ(Mask("name != 'app'"), "1010");
  EXPECT_EQ(Mask("NOT name = 'app'"), "1010");
  EXPECT_EQ(Mask("name NOT IN ('apple')"), "0011");
  EXPECT_EQ(Mask("name IS NULL"), "0100");
  EXPECT_EQ(Mask("name IS NOT NULL"), "1011");
  EXPECT_EQ(Mask("NOT name IS NULL"), "1011");
  EXPECT_EQ(Mask("d < '1970-01-01' OR d IS NULL"), "0110");
}

TEST(ExpressionEval, StringsAndPrefixes) {
  EXPECT_EQ(Mask("name STARTS WITH 'app'"), "1001");
  EXPECT_EQ(Mask("name LIKE 'apple%'"), "1000");
  EXPECT_EQ(Mask("name NOT STARTS WITH 'app'"), "0010");
  // Byte order: 'app' < 'apple' < 'banana'.
  EXPECT_EQ(Mask("name < 'apple'"), "0001");
  EXPECT_EQ(Mask("name BETWEEN 'apple' AND 'b'"), "1000");
}

TEST(ExpressionEval, FloatingPoint) {
  EXPECT_EQ(Mask("f IS NAN"), "0100");
  EXPECT_EQ(Mask("f IS NOT NAN"), "1010");
  // IEEE: NaN is not ordered, -0.0 == 0.0.
  EXPECT_EQ(Mask("f < 2"), "1010");
  EXPECT_EQ(Mask("f = 0"), "0010");
  EXPECT_EQ(Mask("f IN (0, 1.5)"), "1010");
  EXPECT_EQ(Mask("f != 1.5"), "0110");
}

TEST(ExpressionEval, DatesAndNestedFields) {
  EXPECT_EQ(Mask("d = '1970-01-11'"), "1000");
  EXPECT_EQ(Mask("d < date '1970-01-01'"), "0010");
  EXPECT_EQ(Mask("d >= '2024-01-01'"), "0001");
  // s is null in row 1, s.x null in row 2.
  EXPECT_EQ(Mask("s.x IS NULL"), "0110");
  EXPECT_EQ(Mask("s.x > 7"), "0001");
}

TEST(ExpressionEval, BindFoldsAndRejects) {
  EXPECT_EQ(MustBind("id IS NULL")->op(), Operation::kFalse);  // id is required
  EXPECT_EQ(MustBind("id IS NOT NULL")->op(), Operation::kTrue);
  EXPECT_EQ(MustBind("s.x < 3000000000")->ToString(), "true");
  EXPECT_EQ(MustBind("s.x >= 3000000000")->ToString(), "false");
  EXPECT_EQ(MustBind("s.x = -3000000000")->ToString(), "false");
  EXPECT_EQ(MustBind("id IN (5)")->op(), Operation::kEq);
  EXPECT_EQ(MustBind("id NOT IN (5, 5)")->op(), Operation::kNotEq);

  for (std::string_view bad : {"nope = 1", "s = 1", "id IS NAN", "id STARTS WITH 'a'", "f = 'NaN'",
                               "d = 5", "id = 'x'", "name = true", "id = 1.5", "d = date 'nope'"}) {
    Status st = BindError(bad);
    EXPECT_EQ(st.code(), StatusCode::kInvalidArgument) << bad << ": " << st.ToString();
  }
}

TEST(ExpressionEval, StructEvaluation) {
  std::map<int32_t, Literal> values = {{1, Literal::Long(5)}, {2, Literal::Null(StringType())}};
  auto value_of = [&](int32_t id) -> const Literal* {
    auto it = values.find(id);
    return it == values.end() ? nullptr : &it->second;
  };
  EXPECT_TRUE(EvaluateStruct(*MustBind("id = 5"), value_of));
  EXPECT_FALSE(EvaluateStruct(*MustBind("id > 5"), value_of));
  EXPECT_TRUE(EvaluateStruct(*MustBind("id IN (1, 5, 9)"), value_of));
  // Null partition values: only the negated forms may hold (inclusive).
  EXPECT_FALSE(EvaluateStruct(*MustBind("name = 'a'"), value_of));
  EXPECT_TRUE(EvaluateStruct(*MustBind("name != 'a'"), value_of));
  EXPECT_TRUE(EvaluateStruct(*MustBind("name IS NULL"), value_of));
}

// Cases after Iceberg Java's InclusiveMetricsEvaluator semantics: a file whose `id` is in
// [30, 79] with no nulls, `name` all null, `f` with some NaNs.
FileMetricsRef Metrics(std::map<int32_t, std::string>* lower,
                       std::map<int32_t, std::string>* upper) {
  (*lower)[1] = Bytes(Literal::Long(30));
  (*upper)[1] = Bytes(Literal::Long(79));
  (*lower)[3] = Bytes(Literal::Double(-1.0));
  (*upper)[3] = Bytes(Literal::Double(2.0));
  FileMetricsRef m;
  m.record_count = 50;
  std::map<int32_t, int64_t> values = {{1, 50}, {2, 50}, {3, 50}};
  std::map<int32_t, int64_t> nulls = {{1, 0}, {2, 50}, {3, 0}};
  std::map<int32_t, int64_t> nans = {{3, 5}};
  auto lookup = [](std::map<int32_t, int64_t> m) {
    return [m](int32_t id) -> std::optional<int64_t> {
      auto it = m.find(id);
      return it == m.end() ? std::nullopt : std::optional<int64_t>(it->second);
    };
  };
  auto bytes = [](std::map<int32_t, std::string>* m) {
    return [m](int32_t id) -> std::optional<std::string_view> {
      auto it = m->find(id);
      return it == m->end() ? std::nullopt : std::optional<std::string_view>(it->second);
    };
  };
  m.value_count = lookup(values);
  m.null_count = lookup(nulls);
  m.nan_count = lookup(nans);
  m.lower_bound = bytes(lower);
  m.upper_bound = bytes(upper);
  return m;
}

TEST(ExpressionEval, FileMetrics) {
  std::map<int32_t, std::string> lower, upper;
  FileMetricsRef m = Metrics(&lower, &upper);
  auto may = [&](std::string_view text) { return FileMayMatch(*MustBind(text), m); };
  EXPECT_FALSE(may("id < 30"));
  EXPECT_TRUE(may("id < 31"));
  EXPECT_FALSE(may("id <= 29"));
  EXPECT_TRUE(may("id <= 30"));
  EXPECT_FALSE(may("id > 79"));
  EXPECT_TRUE(may("id > 78"));
  EXPECT_FALSE(may("id >= 80"));
  EXPECT_TRUE(may("id >= 79"));
  EXPECT_FALSE(may("id = 29"));
  EXPECT_FALSE(may("id = 80"));
  EXPECT_TRUE(may("id = 30"));
  EXPECT_TRUE(may("id != 30"));
  EXPECT_FALSE(may("id IN (1, 2, 80)"));
  EXPECT_TRUE(may("id IN (1, 31)"));
  EXPECT_FALSE(may("name IS NOT NULL"));  // all null
  EXPECT_FALSE(may("name = 'a'"));
  EXPECT_TRUE(may("name IS NULL"));
  EXPECT_TRUE(may("d IS NULL"));  // no metrics: unknown
  EXPECT_TRUE(may("f IS NAN"));
  EXPECT_FALSE(may("f > 2.0"));
  EXPECT_TRUE(may("f >= 2.0"));
  EXPECT_FALSE(may("false"));
  FileMetricsRef empty;
  empty.record_count = 0;
  EXPECT_FALSE(FileMayMatch(*MustBind("true"), empty));
}

}  // namespace
}  // namespace floe::iceberg

namespace floe::iceberg {
namespace {

Schema PartitionedSchema() {
  return *Schema::Make({NestedField::Required(1, "id", LongType()),
                        NestedField::Optional(2, "name", StringType()),
                        NestedField::Optional(3, "ts", TimestampType()),
                        NestedField::Optional(4, "region", StringType()),
                        NestedField::Optional(5, "d", DateType())});
}

PartitionSpec Spec(const Schema& schema) {
  Result<PartitionSpec> spec = PartitionSpecBuilder(schema, 0)
                                   .Day("ts")
                                   .Bucket("id", 16)
                                   .Truncate("name", 3)
                                   .Identity("region")
                                   .Month("d")
                                   .Build();
  FLOE_EXPECT_OK(spec);
  return *spec;
}

std::string Projected(std::string_view text) {
  Schema schema = PartitionedSchema();
  Result<ExpressionPtr> e = ParseExpression(text);
  if (!e.ok()) return e.status().ToString();
  Result<BoundExpressionPtr> b = Bind(schema, *e);
  if (!b.ok()) return b.status().ToString();
  Result<BoundExpressionPtr> p = ProjectInclusive(**b, schema, Spec(schema));
  if (!p.ok()) return p.status().ToString();
  return (*p)->ToString();
}

// Expected projections follow the spec's transform definitions: day(2017-11-16T00:00) is
// 17486 = 2017-11-16 (a date, as Java's Days.getResultType types it), bucket[16](34) = 3
// (spec Appendix B), truncate[3]('abcdef') = 'abc'.
TEST(ExpressionProjection, Inclusive) {
  EXPECT_EQ(Projected("ts < timestamp '2017-11-16T00:00:00'"), "ts_day lt-eq 2017-11-15");
  EXPECT_EQ(Projected("ts <= timestamp '2017-11-16T00:00:00'"), "ts_day lt-eq 2017-11-16");
  EXPECT_EQ(Projected("ts > timestamp '2017-11-16T23:59:59.999999'"), "ts_day gt-eq 2017-11-17");
  EXPECT_EQ(Projected("ts = timestamp '2017-11-16T22:31:08'"), "ts_day eq 2017-11-16");
  EXPECT_EQ(Projected("id = 34"), "id_bucket eq 3");
  EXPECT_EQ(Projected("id < 34"), "true");
  EXPECT_EQ(Projected("id != 34"), "true");
  EXPECT_EQ(Projected("name STARTS WITH 'abcdef'"), "name_trunc starts-with abc");
  EXPECT_EQ(Projected("name NOT STARTS WITH 'ab'"), "name_trunc not-starts-with ab");
  EXPECT_EQ(Projected("name NOT STARTS WITH 'abcd'"), "true");
  EXPECT_EQ(Projected("name > 'abcdef'"), "name_trunc gt-eq abc");
  EXPECT_EQ(Projected("region != 'eu'"), "region not-eq eu");
  EXPECT_EQ(Projected("region IN ('eu', 'us') AND name IS NULL"),
            "(region in eu, us AND name_trunc is-null)");
  EXPECT_EQ(Projected("d < '1970-01-01'"), "d_month lt-eq -1");
  EXPECT_EQ(Projected("id = 34 OR region = 'x'"), "(id_bucket eq 3 OR region eq x)");
}

TEST(ExpressionProjection, PartitionTuplesAndSummaries) {
  Schema schema = PartitionedSchema();
  PartitionSpec spec = Spec(schema);
  auto partition_expr = [&](std::string_view text) {
    Result<BoundExpressionPtr> b = Bind(schema, *ParseExpression(text));
    FLOE_EXPECT_OK(b);
    return *ProjectInclusive(**b, schema, spec);
  };
  std::vector<Literal> tuple = {Literal::Date(17486), Literal::Int(3), Literal::String("abc"),
                                Literal::String("eu"), Literal::Null(IntType())};
  EXPECT_TRUE(EvaluatePartition(*partition_expr("id = 34"), spec, tuple));
  EXPECT_FALSE(EvaluatePartition(*partition_expr("id = 35"), spec, tuple));
  EXPECT_TRUE(EvaluatePartition(*partition_expr("ts >= '2017-11-16T12:00:00'"), spec, tuple));
  EXPECT_FALSE(EvaluatePartition(*partition_expr("ts >= '2017-11-17T00:00:00'"), spec, tuple));
  EXPECT_FALSE(EvaluatePartition(*partition_expr("region = 'us'"), spec, tuple));
  EXPECT_TRUE(EvaluatePartition(*partition_expr("d IS NULL"), spec, tuple));
  EXPECT_FALSE(EvaluatePartition(*partition_expr("d IS NOT NULL"), spec, tuple));

  // Summaries: ts_day in [17480, 17490], id_bucket in [0, 2], name_trunc all null,
  // region in ['eu', 'eu'], d_month unknown.
  std::string day_lo = Bytes(Literal::Date(17480)), day_hi = Bytes(Literal::Date(17490));
  std::string b_lo = Bytes(Literal::Int(0)), b_hi = Bytes(Literal::Int(2));
  std::vector<FieldSummaryRef> summaries(5);
  summaries[0] = {false, std::nullopt, day_lo, day_hi};
  summaries[1] = {false, std::nullopt, b_lo, b_hi};
  summaries[2] = {true, std::nullopt, std::nullopt, std::nullopt};
  summaries[3] = {false, std::nullopt, std::string_view("eu"), std::string_view("eu")};
  summaries[4] = {true, std::nullopt, std::nullopt, std::nullopt};
  auto may = [&](std::string_view text) {
    return ManifestMayMatch(*partition_expr(text), spec, summaries);
  };
  EXPECT_FALSE(may("id = 34"));                     // bucket 3 is outside [0, 2]
  EXPECT_FALSE(may("ts < '2017-11-10T00:00:00'"));  // day 17480 is 2017-11-10
  EXPECT_TRUE(may("ts < '2017-11-10T00:00:01'"));
  EXPECT_FALSE(may("name = 'abc'"));  // every name_trunc is null
  EXPECT_TRUE(may("name IS NULL"));
  EXPECT_FALSE(may("region = 'us'"));
  EXPECT_TRUE(may("region = 'eu' AND id != 1"));
  EXPECT_TRUE(ManifestMayMatch(*partition_expr("id = 34"), spec, {}));
}

}  // namespace
}  // namespace floe::iceberg
