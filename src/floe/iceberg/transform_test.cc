#include "floe/iceberg/transform.h"

#include <gtest/gtest.h>

#include "floe/base/testing.h"
#include "floe/columnar/builder.h"

namespace floe::iceberg {
namespace {

Literal P(const TypePtr& t, std::string_view text) {
  auto r = Literal::Parse(t, text);
  FLOE_EXPECT_OK(r) << text;
  return *r;
}

int32_t Hash(const Literal& v) {
  auto h = BucketHash(v);
  FLOE_EXPECT_OK(h);
  return *h;
}

TEST(TransformTest, AppendixBHashVectors) {
  // Spec Appendix B, "32-bit Hash Requirements".
  EXPECT_EQ(Hash(Literal::Int(34)), 2017239379);
  EXPECT_EQ(Hash(Literal::Long(34)), 2017239379);
  EXPECT_EQ(Hash(P(DecimalType(9, 2), "14.20")), -500754589);
  EXPECT_EQ(Hash(P(DateType(), "2017-11-16")), -653330422);
  EXPECT_EQ(Hash(P(TimeType(), "22:31:08")), -662762989);
  EXPECT_EQ(Hash(P(TimestampType(), "2017-11-16T22:31:08")), -2047944441);
  EXPECT_EQ(Hash(P(TimestampTzType(), "2017-11-16T14:31:08-08:00")), -2047944441);
  EXPECT_EQ(Hash(P(TimestampType(), "2017-11-16T22:31:08.000001")), -1207196810);
  EXPECT_EQ(Hash(P(TimestampTzType(), "2017-11-16T14:31:08.000001-08:00")), -1207196810);
  EXPECT_EQ(Hash(P(TimestampNsType(), "2017-11-16T22:31:08")), -2047944441);
  EXPECT_EQ(Hash(P(TimestampTzNsType(), "2017-11-16T14:31:08-08:00")), -2047944441);
  EXPECT_EQ(Hash(P(TimestampNsType(), "2017-11-16T22:31:08.000001001")), -1207196810);
  EXPECT_EQ(Hash(P(TimestampTzNsType(), "2017-11-16T14:31:08.000001001-08:00")), -1207196810);
  EXPECT_EQ(Hash(Literal::String("iceberg")), 1210000089);
  EXPECT_EQ(Hash(P(UuidType(), "f79c3e09-677c-4bbd-a479-3f349cb785e7")), 1488055340);
  std::string b("\x00\x01\x02\x03", 4);
  EXPECT_EQ(Hash(Literal::Fixed(b)), -188683207);
  EXPECT_EQ(Hash(Literal::Binary(b)), -188683207);
  EXPECT_FALSE(BucketHash(Literal::Double(1.0)).ok());
  EXPECT_FALSE(BucketHash(Literal::Null(IntType())).ok());
}

TEST(TransformTest, BucketAndTruncateExamples) {
  // Spec: "bucket[16](34) = 3" (Bucket Transform Details).
  EXPECT_EQ(Transform::Bucket(16).Apply(Literal::Int(34))->int_value(), 3);
  EXPECT_TRUE(Transform::Bucket(16).Apply(Literal::Null(IntType()))->is_null());
  auto t10 = Transform::Truncate(10);
  // Spec "Truncate Transform Details" examples.
  EXPECT_EQ(t10.Apply(Literal::Int(1))->int_value(), 0);
  EXPECT_EQ(t10.Apply(Literal::Int(-1))->int_value(), -10);
  EXPECT_EQ(t10.Apply(Literal::Long(1))->long_value(), 0);
  EXPECT_EQ(t10.Apply(Literal::Long(-1))->long_value(), -10);
  auto dec = Transform::Truncate(50).Apply(P(DecimalType(9, 2), "10.65"));
  FLOE_ASSERT_OK(dec);
  EXPECT_EQ(dec->ToString(), "10.50");
  EXPECT_EQ(Transform::Truncate(3).Apply(Literal::String("iceberg"))->string_value(), "ice");
  EXPECT_EQ(Transform::Truncate(3).Apply(Literal::Binary("\x01\x02\x03\x04\x05"))->string_value(),
            "\x01\x02\x03");
  // Strings truncate by code points, never inside a multi-byte character.
  EXPECT_EQ(Transform::Truncate(2).Apply(Literal::String("イロハニホヘト"))->string_value(),
            "イロ");
  EXPECT_EQ(Transform::Truncate(2).Apply(Literal::String("a\U0001F600b"))->string_value(),
            "a\U0001F600");
  EXPECT_FALSE(Transform::Truncate(2).Apply(Literal::Double(1)).ok());
  EXPECT_FALSE(Transform::Bucket(2).Apply(Literal::Boolean(true)).ok());
}

TEST(TransformTest, TimeTransformsFloorBefore1970) {
  auto ts = P(TimestampType(), "1969-12-31T23:59:59.999999");
  auto tsn = P(TimestampNsType(), "1969-12-31T23:59:59.999999999");
  auto date = P(DateType(), "1969-12-31");
  for (const auto& v : {ts, tsn}) {
    EXPECT_EQ(Transform::Hour().Apply(v)->int_value(), -1);
    EXPECT_EQ(Transform::Day().Apply(v)->int_value(), -1);
    EXPECT_EQ(Transform::Month().Apply(v)->int_value(), -1);
    EXPECT_EQ(Transform::Year().Apply(v)->int_value(), -1);
  }
  EXPECT_EQ(Transform::Day().Apply(date)->int_value(), -1);
  EXPECT_EQ(Transform::Month().Apply(date)->int_value(), -1);
  EXPECT_EQ(Transform::Year().Apply(date)->int_value(), -1);
  EXPECT_FALSE(Transform::Hour().Apply(date).ok());
  auto t = P(TimestampTzType(), "2017-11-16T22:31:08Z");
  EXPECT_EQ(Transform::Year().Apply(t)->int_value(), 47);
  EXPECT_EQ(Transform::Month().Apply(t)->int_value(), 47 * 12 + 10);
  EXPECT_EQ(Transform::Day().Apply(t)->int_value(), 17486);
  EXPECT_EQ(Transform::Hour().Apply(t)->int_value(), 17486 * 24 + 22);
}

TEST(TransformTest, ParseAndToString) {
  EXPECT_EQ(Transform::Parse("bucket[16]"), Transform::Bucket(16));
  EXPECT_EQ(Transform::Parse(" bucket[ 16 ] "), Transform::Bucket(16));
  EXPECT_EQ(Transform::Parse("truncate[4]").param(), 4);
  EXPECT_EQ(Transform::Parse("Day"), Transform::Day());
  for (const char* s :
       {"identity", "year", "month", "day", "hour", "void", "bucket[3]", "truncate[20]"}) {
    EXPECT_EQ(Transform::Parse(s).ToString(), s);
    EXPECT_TRUE(Transform::Parse(s).is_known());
  }
  for (const char* s : {"zorder", "bucket[0]", "bucket[x]", "truncate[]", "bucket[16", ""}) {
    Transform t = Transform::Parse(s);
    EXPECT_FALSE(t.is_known()) << s;
    EXPECT_EQ(t.ToString(), s);
    EXPECT_FALSE(t.Apply(Literal::Int(1)).ok());
  }
  EXPECT_EQ(Transform::Day().DedupName(), "time");
  EXPECT_EQ(Transform::Bucket(4).DedupName(), "bucket[4]");
}

TEST(TransformTest, ResultTypesAndApplicability) {
  // Java's Days.getResultType and pyiceberg's DayTransform.result_type: date; year, month
  // and hour: int.
  EXPECT_EQ((*Transform::Day().ResultType(*TimestampType()))->kind(), TypeKind::kDate);
  EXPECT_EQ((*Transform::Day().ResultType(*DateType()))->kind(), TypeKind::kDate);
  EXPECT_EQ((*Transform::Month().ResultType(*TimestampType()))->kind(), TypeKind::kInt);
  EXPECT_EQ((*Transform::Hour().ResultType(*TimestampType()))->kind(), TypeKind::kInt);
  EXPECT_EQ((*Transform::Bucket(4).ResultType(*StringType()))->kind(), TypeKind::kInt);
  EXPECT_EQ((*Transform::Truncate(4).ResultType(*DecimalType(9, 2)))->ToString(), "decimal(9, 2)");
  EXPECT_EQ((*Transform::Identity().ResultType(*UuidType()))->kind(), TypeKind::kUuid);
  EXPECT_FALSE(Transform::Hour().CanTransform(*DateType()));
  EXPECT_FALSE(Transform::Bucket(4).CanTransform(*FloatType()));
  EXPECT_FALSE(Transform::Truncate(4).CanTransform(*UuidType()));
  EXPECT_FALSE(Transform::Identity().CanTransform(*StructType({})));
  EXPECT_TRUE(Transform::Void().CanTransform(*StructType({})));
  EXPECT_FALSE(Transform::Year().ResultType(*StringType()).ok());
}

TEST(TransformTest, HumanStringsLikeJava) {
  EXPECT_EQ(Transform::Year().ToHumanString(Literal::Int(47)), "2017");
  EXPECT_EQ(Transform::Month().ToHumanString(Literal::Int(47 * 12 + 10)), "2017-11");
  EXPECT_EQ(Transform::Day().ToHumanString(Literal::Int(17486)), "2017-11-16");
  EXPECT_EQ(Transform::Hour().ToHumanString(Literal::Int(17486 * 24 + 22)), "2017-11-16-22");
  EXPECT_EQ(Transform::Hour().ToHumanString(Literal::Int(-1)), "1969-12-31-23");
  EXPECT_EQ(Transform::Year().ToHumanString(Literal::Int(-1)), "1969");
  EXPECT_EQ(Transform::Day().ToHumanString(Literal::Null(IntType())), "null");
  auto id = Transform::Identity();
  EXPECT_EQ(id.ToHumanString(P(DateType(), "2017-11-16")), "2017-11-16");
  // java.time toString forms.
  EXPECT_EQ(id.ToHumanString(P(TimestampType(), "2017-11-16T22:31:08")), "2017-11-16T22:31:08");
  EXPECT_EQ(id.ToHumanString(P(TimestampType(), "2017-11-16T22:31:00")), "2017-11-16T22:31");
  EXPECT_EQ(id.ToHumanString(P(TimestampType(), "2017-11-16T22:31:08.000001")),
            "2017-11-16T22:31:08.000001");
  EXPECT_EQ(id.ToHumanString(P(TimestampType(), "2017-11-16T22:31:08.1")),
            "2017-11-16T22:31:08.100");
  EXPECT_EQ(id.ToHumanString(P(TimestampTzType(), "2017-11-16T22:31:08+00:00")),
            "2017-11-16T22:31:08Z");
  EXPECT_EQ(id.ToHumanString(P(TimeType(), "22:31:08")), "22:31:08");
  EXPECT_EQ(id.ToHumanString(Literal::Binary("\x01\x02\x03")), "AQID");
  EXPECT_EQ(id.ToHumanString(Literal::String("a b")), "a b");
  EXPECT_EQ(id.ToHumanString(Literal::Double(1)), "1.0");
  EXPECT_EQ(Transform::Bucket(16).ToHumanString(Literal::Int(3)), "3");
  EXPECT_EQ(Transform::Truncate(50).ToHumanString(P(DecimalType(9, 2), "10.50")), "10.50");
  EXPECT_EQ(Transform::Void().ToHumanString(Literal::Int(3)), "null");
}

TEST(TransformTest, OrderRelations) {
  EXPECT_TRUE(Transform::Identity().PreservesOrder());
  EXPECT_FALSE(Transform::Bucket(4).PreservesOrder());
  EXPECT_TRUE(Transform::Hour().SatisfiesOrderOf(Transform::Day()));
  EXPECT_TRUE(Transform::Day().SatisfiesOrderOf(Transform::Year()));
  EXPECT_FALSE(Transform::Year().SatisfiesOrderOf(Transform::Month()));
  EXPECT_TRUE(Transform::Identity().SatisfiesOrderOf(Transform::Truncate(3)));
  EXPECT_FALSE(Transform::Identity().SatisfiesOrderOf(Transform::Bucket(3)));
  EXPECT_TRUE(Transform::Bucket(3).SatisfiesOrderOf(Transform::Bucket(3)));
  EXPECT_FALSE(Transform::Bucket(3).SatisfiesOrderOf(Transform::Bucket(4)));
}

TEST(TransformTest, ApplyToArrayMatchesApply) {
  columnar::FixedWidthBuilder<int64_t> b(columnar::Timestamp(columnar::TimeUnit::kMicro, false));
  std::vector<int64_t> values = {0, -1, 1510871468000001LL, -86400000000LL * 400, 42};
  for (int64_t v : values) b.Append(v);
  b.AppendNull();
  columnar::Array ts = b.Finish();
  for (Transform t : {Transform::Bucket(16), Transform::Year(), Transform::Month(),
                      Transform::Day(), Transform::Hour()}) {
    auto out = t.ApplyToArray(ts, *TimestampType());
    FLOE_ASSERT_OK(out);
    ASSERT_EQ(out->length(), 6);
    FLOE_ASSERT_OK(out->Validate());
    for (size_t i = 0; i < values.size(); ++i) {
      EXPECT_EQ(out->Value<int32_t>(static_cast<int64_t>(i)),
                t.Apply(Literal::Timestamp(values[i]))->int_value())
          << t.ToString() << " " << values[i];
    }
    EXPECT_TRUE(out->IsNull(5));
  }

  columnar::BinaryBuilder sb(columnar::String());
  sb.Append("イロハ");
  sb.AppendNull();
  sb.Append("iceberg");
  columnar::Array strs = sb.Finish();
  auto tr = Transform::Truncate(2).ApplyToArray(strs, *StringType());
  FLOE_ASSERT_OK(tr);
  FLOE_ASSERT_OK(tr->Validate());
  EXPECT_EQ(tr->BinaryValue(0), "イロ");
  EXPECT_TRUE(tr->IsNull(1));
  EXPECT_EQ(tr->BinaryValue(2), "ic");
  auto bucket = Transform::Bucket(1000).ApplyToArray(strs, *StringType());
  FLOE_ASSERT_OK(bucket);
  EXPECT_EQ(bucket->Value<int32_t>(2), (1210000089 & 0x7FFFFFFF) % 1000);

  columnar::FixedWidthBuilder<__int128> db(columnar::Decimal128(9, 2));
  db.Append(1065);
  db.Append(-1);
  columnar::Array decs = db.Finish();
  auto td = Transform::Truncate(50).ApplyToArray(decs, *DecimalType(9, 2));
  FLOE_ASSERT_OK(td);
  EXPECT_EQ(td->Value<__int128>(0), 1050);
  EXPECT_EQ(td->Value<__int128>(1), -50);
  auto bd = Transform::Bucket(1 << 30).ApplyToArray(decs, *DecimalType(9, 2));
  FLOE_ASSERT_OK(bd);
  EXPECT_EQ(bd->Value<int32_t>(0),
            Transform::Bucket(1 << 30).Apply(Literal::Decimal(1065, 9, 2))->int_value());

  // Mismatched column types are errors.
  EXPECT_FALSE(Transform::Day().ApplyToArray(strs, *TimestampType()).ok());
  EXPECT_FALSE(Transform::Parse("zorder").ApplyToArray(strs, *StringType()).ok());
}

}  // namespace
}  // namespace floe::iceberg
