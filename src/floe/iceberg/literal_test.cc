#include "floe/iceberg/literal.h"

#include <cmath>
#include <limits>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "floe/base/testing.h"

namespace floe::iceberg {
namespace {

std::string Bytes(std::initializer_list<int> b) {
  std::string s;
  for (int x : b) s.push_back(static_cast<char>(x));
  return s;
}

// 2017-11-16 is day 17486 and 2017-11-16T22:31:08 is 1510871468 s after the epoch (the
// values behind the spec's Appendix B bucket vectors).
constexpr int32_t kDay = 17486;
constexpr int64_t kTsMicros = 1510871468000000LL;

TEST(LiteralTest, BinaryFormsOfAppendixD) {
  EXPECT_EQ(*Literal::Int(34).ToBytes(), Bytes({34, 0, 0, 0}));
  EXPECT_EQ(*Literal::Long(34).ToBytes(), Bytes({34, 0, 0, 0, 0, 0, 0, 0}));
  EXPECT_EQ(*Literal::Boolean(true).ToBytes(), Bytes({1}));
  EXPECT_EQ(*Literal::Boolean(false).ToBytes(), Bytes({0}));
  EXPECT_EQ(*Literal::Float(1.0f).ToBytes(), Bytes({0, 0, 0x80, 0x3F}));
  // Decimals: minimal two's complement big-endian unscaled value.
  EXPECT_EQ(*Literal::Decimal(1420, 9, 2).ToBytes(), Bytes({0x05, 0x8C}));
  EXPECT_EQ(*Literal::Decimal(-1, 9, 2).ToBytes(), Bytes({0xFF}));
  EXPECT_EQ(*Literal::Decimal(128, 9, 2).ToBytes(), Bytes({0x00, 0x80}));
  EXPECT_EQ(*Literal::Decimal(-128, 9, 2).ToBytes(), Bytes({0x80}));
  EXPECT_EQ(*Literal::Decimal(0, 9, 2).ToBytes(), Bytes({0x00}));
  EXPECT_EQ(*Literal::String("iceberg").ToBytes(), "iceberg");
  auto u = Literal::Parse(UuidType(), "f79c3e09-677c-4bbd-a479-3f349cb785e7");
  FLOE_ASSERT_OK(u);
  EXPECT_EQ(*u->ToBytes(), Bytes({0xf7, 0x9c, 0x3e, 0x09, 0x67, 0x7c, 0x4b, 0xbd, 0xa4, 0x79, 0x3f,
                                  0x34, 0x9c, 0xb7, 0x85, 0xe7}));
  EXPECT_FALSE(Literal::Null(IntType()).ToBytes().ok());
}

TEST(LiteralTest, BinaryRoundTrips) {
  std::vector<Literal> values = {
      Literal::Boolean(true),
      Literal::Int(-5),
      Literal::Long(-1LL << 40),
      Literal::Float(-0.0f),
      Literal::Double(3.25),
      Literal::Decimal(-123456789, 20, 3),
      Literal::Date(-1),
      Literal::Time(81068123456),
      Literal::Timestamp(kTsMicros),
      Literal::TimestampTz(-1),
      Literal::TimestampNs(kTsMicros * 1000 + 7),
      Literal::TimestampTzNs(5),
      Literal::String("ä€𐍈"),
      Literal::Fixed(Bytes({0, 1, 2})),
      Literal::Binary(Bytes({0xFF, 0})),
      Literal::Uuid({1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16})};
  for (const auto& v : values) {
    auto b = v.ToBytes();
    FLOE_ASSERT_OK(b) << v.type()->ToString();
    auto back = Literal::FromBytes(v.type(), *b);
    FLOE_ASSERT_OK(back);
    EXPECT_TRUE(*back == v) << v.type()->ToString() << " " << v.ToString();
  }
}

TEST(LiteralTest, PromotionReadsOfOldBounds) {
  // Appendix D / "Bounds after type promotion": the byte length tells the writer's type.
  auto l = Literal::FromBytes(LongType(), Bytes({0xFE, 0xFF, 0xFF, 0xFF}));
  FLOE_ASSERT_OK(l);
  EXPECT_EQ(l->long_value(), -2);
  auto d = Literal::FromBytes(DoubleType(), *Literal::Float(1.5f).ToBytes());
  FLOE_ASSERT_OK(d);
  EXPECT_EQ(d->double_value(), 1.5);
  auto ts = Literal::FromBytes(TimestampType(), *Literal::Date(kDay).ToBytes());
  FLOE_ASSERT_OK(ts);
  EXPECT_EQ(ts->long_value(), int64_t{kDay} * 86400000000LL);
  auto tsn = Literal::FromBytes(TimestampNsType(), *Literal::Date(1).ToBytes());
  FLOE_ASSERT_OK(tsn);
  EXPECT_EQ(tsn->long_value(), 86400000000000LL);
  // A decimal(9,2) bound read as decimal(20,2): any length.
  auto dec = Literal::FromBytes(DecimalType(20, 2), Bytes({0x05, 0x8C}));
  FLOE_ASSERT_OK(dec);
  EXPECT_EQ(dec->decimal_value(), 1420);
  auto wide = Literal::FromBytes(DecimalType(38, 0), Bytes({0x80, 0, 0, 0, 0, 0, 0, 0, 0}));
  FLOE_ASSERT_OK(wide);
  EXPECT_EQ(wide->decimal_value(), -(static_cast<__int128>(1) << 71));
  // Wrong lengths are corrupt, not crashes.
  EXPECT_EQ(Literal::FromBytes(IntType(), "abc").status().code(), StatusCode::kCorrupt);
  EXPECT_EQ(Literal::FromBytes(UuidType(), "abc").status().code(), StatusCode::kCorrupt);
  EXPECT_EQ(Literal::FromBytes(DecimalType(9, 2), "").status().code(), StatusCode::kCorrupt);
  EXPECT_EQ(Literal::FromBytes(DecimalType(2, 0), Bytes({0x05, 0x8C})).status().code(),
            StatusCode::kCorrupt);
  EXPECT_EQ(Literal::FromBytes(FixedType(4), "abc").status().code(), StatusCode::kCorrupt);
}

TEST(LiteralTest, JsonSingleValueForms) {
  // Spec Appendix D, "JSON single-value serialization" examples.
  EXPECT_EQ(Literal::Date(kDay).ToJson(), R"("2017-11-16")");
  EXPECT_EQ(Literal::Time((22 * 3600 + 31 * 60 + 8) * 1000000LL + 123456).ToJson(),
            R"("22:31:08.123456")");
  EXPECT_EQ(Literal::Timestamp(kTsMicros + 123456).ToJson(), R"("2017-11-16T22:31:08.123456")");
  EXPECT_EQ(Literal::TimestampTz(kTsMicros + 123456).ToJson(),
            R"("2017-11-16T22:31:08.123456+00:00")");
  EXPECT_EQ(Literal::TimestampNs(kTsMicros * 1000 + 123456789).ToJson(),
            R"("2017-11-16T22:31:08.123456789")");
  EXPECT_EQ(Literal::TimestampTzNs(kTsMicros * 1000 + 123456789).ToJson(),
            R"("2017-11-16T22:31:08.123456789+00:00")");
  EXPECT_EQ(Literal::Decimal(1420, 9, 2).ToJson(), R"("14.20")");
  EXPECT_EQ(Literal::Boolean(true).ToJson(), "true");
  EXPECT_EQ(Literal::Long(34).ToJson(), "34");
  EXPECT_EQ(Literal::Float(1.1f).ToJson(), "1.1");
  EXPECT_EQ(Literal::Null(IntType()).ToJson(), "null");
  auto u = Literal::FromJson(UuidType(), R"("F79C3E09-677C-4BBD-A479-3F349CB785E7")");
  FLOE_ASSERT_OK(u);
  EXPECT_EQ(u->ToJson(), R"("f79c3e09-677c-4bbd-a479-3f349cb785e7")");
  // Java writes hex with Guava base16(): uppercase. Both cases are read.
  auto bin = Literal::FromJson(BinaryType(), R"("000102ff")");
  FLOE_ASSERT_OK(bin);
  EXPECT_EQ(bin->string_value(), Bytes({0, 1, 2, 0xFF}));
  EXPECT_EQ(bin->ToJson(), R"("000102FF")");
  auto fixed = Literal::FromJson(FixedType(4), R"("000102FF")");
  FLOE_ASSERT_OK(fixed);
  EXPECT_FALSE(Literal::FromJson(FixedType(3), R"("000102FF")").ok());

  struct Case {
    TypePtr type;
    const char* json;
    Literal expected;
  };
  std::vector<Case> cases = {
      {DateType(), R"("2017-11-16")", Literal::Date(kDay)},
      {TimestampType(), R"("2017-11-16T22:31:08")", Literal::Timestamp(kTsMicros)},
      {TimestampTzType(), R"("2017-11-16T22:31:08.000001+00:00")",
       Literal::TimestampTz(kTsMicros + 1)},
      {TimestampTzType(), R"("2017-11-17T00:31:08+02:00")", Literal::TimestampTz(kTsMicros)},
      {TimestampNsType(), R"("2017-11-16T22:31:08.000000001")",
       Literal::TimestampNs(kTsMicros * 1000 + 1)},
      {DecimalType(9, 2), R"("14.20")", Literal::Decimal(1420, 9, 2)},
      {DecimalType(9, 2), R"("-0.05")", Literal::Decimal(-5, 9, 2)},
      {LongType(), "9223372036854775807", Literal::Long(std::numeric_limits<int64_t>::max())},
      {DoubleType(), "1.5", Literal::Double(1.5)},
      {StringType(), R"("a\"b")", Literal::String("a\"b")},
  };
  for (const auto& c : cases) {
    auto v = Literal::FromJson(c.type, c.json);
    FLOE_ASSERT_OK(v) << c.json;
    EXPECT_TRUE(*v == c.expected) << c.json << " -> " << v->ToString();
  }
  for (auto [type, json] : std::vector<std::pair<TypePtr, const char*>>{
           {IntType(), "2147483648"},
           {IntType(), R"("1")"},
           {IntType(), "1.5"},
           {TimestampType(), R"("2017-11-16T22:31:08+00:00")"},
           {TimestampTzType(), R"("2017-11-16T22:31:08")"},
           {TimestampType(), R"("2017-11-16T22:31:08.0000001")"},
           {DateType(), R"("2017-02-29")"},
           {DateType(), R"("2017-13-01")"},
           {DecimalType(9, 2), R"("14.201")"},
           {DecimalType(3, 2), R"("14.20")"},
           {UuidType(), R"("f79c3e09677c4bbda4793f349cb785e7")"},
           {BinaryType(), R"("0g")"},
           {BooleanType(), "1"},
           {StringType(), "1"}}) {
    EXPECT_EQ(Literal::FromJson(type, json).status().code(), StatusCode::kInvalidArgument)
        << type->ToString() << " " << json;
  }
}

TEST(LiteralTest, ParseForPredicates) {
  auto z = Literal::Parse(TimestampTzType(), "2020-01-01T00:00:00Z");
  FLOE_ASSERT_OK(z);
  EXPECT_EQ(z->long_value(), 1577836800000000LL);
  auto plus2 = Literal::Parse(TimestampTzType(), "2020-01-01T02:00:00+02:00");
  FLOE_ASSERT_OK(plus2);
  EXPECT_EQ(plus2->long_value(), 1577836800000000LL);
  auto date_only = Literal::Parse(TimestampType(), "2020-01-01");
  FLOE_ASSERT_OK(date_only);
  EXPECT_EQ(date_only->long_value(), 1577836800000000LL);
  auto neg = Literal::Parse(TimestampType(), "1969-12-31T23:59:59.999999");
  FLOE_ASSERT_OK(neg);
  EXPECT_EQ(neg->long_value(), -1);
  EXPECT_EQ(Literal::Parse(IntType(), "-12")->int_value(), -12);
  EXPECT_FALSE(Literal::Parse(IntType(), "12x").ok());
  EXPECT_EQ(Literal::Parse(DecimalType(10, 2), "1E+1")->decimal_value(), 1000);
  EXPECT_EQ(Literal::Parse(DecimalType(10, 2), "3.5")->decimal_value(), 350);
  EXPECT_FALSE(Literal::Parse(StructType({}), "x").ok());
}

TEST(LiteralTest, IcebergOrdering) {
  EXPECT_LT(Compare(Literal::Double(-0.0), Literal::Double(0.0)), 0);
  EXPECT_GT(Compare(Literal::Double(std::nan("")), Literal::Double(INFINITY)), 0);
  EXPECT_EQ(Compare(Literal::Float(NAN), Literal::Float(NAN)), 0);
  EXPECT_LT(Compare(Literal::Null(IntType()), Literal::Int(std::numeric_limits<int>::min())), 0);
  // UTF-8 byte order is code point order: U+FFFD < U+10000 (Java's char order would differ).
  EXPECT_LT(Compare(Literal::String("\xEF\xBF\xBD"), Literal::String("\xF0\x90\x80\x80")), 0);
  EXPECT_LT(Compare(Literal::String("a"), Literal::String("ab")), 0);
  EXPECT_LT(Compare(Literal::Binary(Bytes({0x7F})), Literal::Binary(Bytes({0x80}))), 0);
  // Decimals by value across scales.
  EXPECT_EQ(Compare(Literal::Decimal(1420, 9, 2), Literal::Decimal(142, 9, 1)), 0);
  EXPECT_LT(Compare(Literal::Decimal(-1, 9, 2), Literal::Decimal(0, 9, 0)), 0);
  // uuid: unsigned bytes (RFC 4122; Java since apache/iceberg#14500) vs the legacy signed order.
  auto lo = *Literal::Parse(UuidType(), "7d7d081d-7440-441d-9828-26e57c614219");
  auto hi = *Literal::Parse(UuidType(), "b6be8d3b-7bad-4499-8a33-50634dc9e3a9");
  EXPECT_LT(Compare(lo, hi), 0);
  EXPECT_GT(CompareUuidSigned(lo.uuid_value(), hi.uuid_value()), 0);
}

TEST(LiteralTest, CastForBinding) {
  EXPECT_EQ(Literal::Int(5).CastTo(LongType())->long_value(), 5);
  EXPECT_EQ(Literal::Long(5).CastTo(IntType())->int_value(), 5);
  EXPECT_FALSE(Literal::Long(1LL << 40).CastTo(IntType()).ok());
  EXPECT_EQ(Literal::Float(1.5f).CastTo(DoubleType())->double_value(), 1.5);
  EXPECT_EQ(Literal::Int(14).CastTo(DecimalType(9, 2))->decimal_value(), 1400);
  EXPECT_FALSE(Literal::Long(1000).CastTo(DecimalType(3, 1)).ok());
  EXPECT_EQ(Literal::Decimal(1420, 9, 2).CastTo(DecimalType(9, 1))->decimal_value(), 142);
  EXPECT_FALSE(Literal::Decimal(1421, 9, 2).CastTo(DecimalType(9, 1)).ok());
  EXPECT_EQ(Literal::String("2017-11-16").CastTo(DateType())->int_value(), kDay);
  EXPECT_EQ(Literal::Date(kDay).CastTo(TimestampType())->long_value(),
            int64_t{kDay} * 86400000000LL);
  EXPECT_EQ(Literal::Timestamp(-1).CastTo(TimestampNsType())->long_value(), -1000);
  EXPECT_EQ(Literal::TimestampNs(-1).CastTo(TimestampType())->long_value(), -1);
  EXPECT_FALSE(Literal::Timestamp(0).CastTo(TimestampTzType()).ok());
  EXPECT_FALSE(Literal::Boolean(true).CastTo(IntType()).ok());
  EXPECT_TRUE(Literal::Null(IntType()).CastTo(LongType())->is_null());
}

TEST(LiteralTest, BoundTruncationFollowsJavaUnicodeUtil) {
  // Katakana: U+30ED + 1 = U+30EE.
  auto s = Literal::String("イロハニホヘト");
  EXPECT_EQ(TruncateLowerBound(s, 2).string_value(), "イロ");
  EXPECT_EQ(TruncateUpperBound(s, 2)->string_value(), "イヮ");
  EXPECT_EQ(TruncateUpperBound(Literal::String("ab"), 2)->string_value(), "ab");
  // U+10000 U+10000 -> U+10001; two U+10FFFF cannot be incremented.
  EXPECT_EQ(TruncateUpperBound(Literal::String("\U00010000\U00010000"), 1)->string_value(),
            "\U00010001");
  EXPECT_FALSE(TruncateUpperBound(Literal::String("\U0010FFFF\U0010FFFF\U0010FFFF"), 2));
  // The last code point overflows; the one before it is incremented.
  EXPECT_EQ(TruncateUpperBound(Literal::String("a\U0010FFFFb"), 2)->string_value(), "b");
  // U+D7FF + 1 skips the surrogates to U+E000.
  EXPECT_EQ(TruncateUpperBound(Literal::String("\uD7FFx"), 1)->string_value(), "\uE000");
  auto b = Literal::Binary(Bytes({1, 2, 3}));
  EXPECT_EQ(TruncateLowerBound(b, 2).string_value(), Bytes({1, 2}));
  EXPECT_EQ(TruncateUpperBound(b, 2)->string_value(), Bytes({1, 3}));
  EXPECT_EQ(TruncateUpperBound(Literal::Binary(Bytes({1, 0xFF, 3})), 2)->string_value(),
            Bytes({2}));
  EXPECT_FALSE(TruncateUpperBound(Literal::Binary(Bytes({0xFF, 0xFF, 3})), 2));
}

}  // namespace
}  // namespace floe::iceberg
