// Scalar text parsers. Expected values are the Iceberg spec's (Appendix D, JSON single-value
// serialization examples) or computed by hand from the calendar.
#include "floe/format/text/scalar.h"

#include <cmath>
#include <string>

#include <gtest/gtest.h>

namespace floe::format::text {
namespace {

using columnar::TimeUnit;

TEST(ScalarTest, SpecExamples) {
  int32_t days;
  ASSERT_EQ(ParseDate("2017-11-16", &days), nullptr);
  EXPECT_EQ(days, 17486);
  int64_t v;
  ASSERT_EQ(ParseTime("22:31:08", TimeUnit::kMicro, &v), nullptr);
  EXPECT_EQ(v, 81068000000);
  ASSERT_EQ(ParseTimestamp("2017-11-16T22:31:08", TimeUnit::kMicro, false, &v), nullptr);
  EXPECT_EQ(v, 1510871468000000);
  ASSERT_EQ(ParseTimestamp("2017-11-16T22:31:08.000001", TimeUnit::kMicro, false, &v), nullptr);
  EXPECT_EQ(v, 1510871468000001);
  ASSERT_EQ(ParseTimestamp("2017-11-16T14:31:08-08:00", TimeUnit::kMicro, true, &v), nullptr);
  EXPECT_EQ(v, 1510871468000000);
  ASSERT_EQ(ParseTimestamp("2017-11-16T22:31:08.000001+00:00", TimeUnit::kMicro, true, &v),
            nullptr);
  EXPECT_EQ(v, 1510871468000001);
  ASSERT_EQ(ParseTimestamp("2017-11-16T22:31:08.000000001", TimeUnit::kNano, false, &v), nullptr);
  EXPECT_EQ(v, 1510871468000000001);
  __int128 d;
  ASSERT_EQ(ParseDecimal("14.20", 9, 2, &d), nullptr);
  EXPECT_EQ(static_cast<int64_t>(d), 1420);
  char uuid[16];
  ASSERT_EQ(ParseUuid("f79c3e09-677c-4bbd-a479-3f349cb785e7", uuid), nullptr);
  EXPECT_EQ(std::string(uuid, 16),
            std::string("\xf7\x9c\x3e\x09\x67\x7c\x4b\xbd\xa4\x79\x3f\x34\x9c\xb7\x85\xe7", 16));
  std::string bytes;
  ASSERT_EQ(ParseHex("000102ff", &bytes), nullptr);
  EXPECT_EQ(bytes, std::string("\x00\x01\x02\xff", 4));
}

TEST(ScalarTest, Dates) {
  int32_t days;
  ASSERT_EQ(ParseDate("1970-01-01", &days), nullptr);
  EXPECT_EQ(days, 0);
  ASSERT_EQ(ParseDate("1969-12-31", &days), nullptr);
  EXPECT_EQ(days, -1);
  ASSERT_EQ(ParseDate("2000-02-29", &days), nullptr);
  EXPECT_EQ(days, 11016);
  ASSERT_EQ(ParseDate("+10000-01-01", &days), nullptr);
  EXPECT_EQ(days, 2932897);
  ASSERT_EQ(ParseDate("-0001-12-31", &days), nullptr);
  EXPECT_EQ(days, -719529);
  for (const char* bad : {"1900-02-29", "2017-13-01", "2017-11-31", "17-11-16", "2017-1-16",
                          "2017-11-16 ", "", "20171116", "10000-01-01", "2017-11-16T00:00"}) {
    EXPECT_NE(ParseDate(bad, &days), nullptr) << bad;
  }
}

TEST(ScalarTest, TimesAndTimestamps) {
  int64_t v;
  ASSERT_EQ(ParseTime("00:00", TimeUnit::kMicro, &v), nullptr);
  EXPECT_EQ(v, 0);
  ASSERT_EQ(ParseTime("23:59:59.999999", TimeUnit::kMicro, &v), nullptr);
  EXPECT_EQ(v, 86399999999);
  ASSERT_EQ(ParseTime("00:00:00.5", TimeUnit::kMicro, &v), nullptr);
  EXPECT_EQ(v, 500000);
  ASSERT_EQ(ParseTime("00:00:00.123456000", TimeUnit::kMicro, &v), nullptr);
  EXPECT_EQ(v, 123456);
  EXPECT_NE(ParseTime("00:00:00.1234567", TimeUnit::kMicro, &v), nullptr);  // would round
  EXPECT_NE(ParseTime("24:00:00", TimeUnit::kMicro, &v), nullptr);
  EXPECT_NE(ParseTime("12:60", TimeUnit::kMicro, &v), nullptr);
  EXPECT_NE(ParseTime("12:00:00.", TimeUnit::kMicro, &v), nullptr);
  ASSERT_EQ(ParseTimestamp("1970-01-01 00:00:01", TimeUnit::kMicro, false, &v), nullptr);
  EXPECT_EQ(v, 1000000);
  ASSERT_EQ(ParseTimestamp("1970-01-01T00:00:00Z", TimeUnit::kMicro, true, &v), nullptr);
  EXPECT_EQ(v, 0);
  ASSERT_EQ(ParseTimestamp("1970-01-01T05:30:00+0530", TimeUnit::kMicro, true, &v), nullptr);
  EXPECT_EQ(v, 0);
  ASSERT_EQ(ParseTimestamp("1969-12-31T23:00:00-01", TimeUnit::kMicro, true, &v), nullptr);
  EXPECT_EQ(v, 0);
  ASSERT_EQ(ParseTimestamp("1969-12-31T23:59:59.999999", TimeUnit::kMicro, false, &v), nullptr);
  EXPECT_EQ(v, -1);
  // The smallest value of the type (printed by value_format.h's FormatTimestamp).
  ASSERT_EQ(ParseTimestamp("-290308-12-21T19:59:05.224192", TimeUnit::kMicro, false, &v), nullptr);
  EXPECT_EQ(v, INT64_MIN);
  // A local timestamp takes no offset; a timestamptz needs one.
  EXPECT_NE(ParseTimestamp("1970-01-01T00:00:00Z", TimeUnit::kMicro, false, &v), nullptr);
  EXPECT_NE(ParseTimestamp("1970-01-01T00:00:00", TimeUnit::kMicro, true, &v), nullptr);
  // Out of the nanosecond range (years 1677..2262).
  EXPECT_NE(ParseTimestamp("2300-01-01T00:00:00", TimeUnit::kNano, false, &v), nullptr);
  EXPECT_NE(ParseTimestamp("2017-11-16", TimeUnit::kMicro, false, &v), nullptr);
}

TEST(ScalarTest, Numbers) {
  int32_t i;
  int64_t l;
  ASSERT_EQ(ParseInt32("-2147483648", &i), nullptr);
  EXPECT_EQ(i, INT32_MIN);
  EXPECT_NE(ParseInt32("2147483648", &i), nullptr);
  EXPECT_NE(ParseInt32("1.0", &i), nullptr);
  EXPECT_NE(ParseInt32("+1", &i), nullptr);
  EXPECT_NE(ParseInt32("", &i), nullptr);
  EXPECT_NE(ParseInt32(" 1", &i), nullptr);
  ASSERT_EQ(ParseInt64("9223372036854775807", &l), nullptr);
  EXPECT_EQ(l, INT64_MAX);
  EXPECT_NE(ParseInt64("9223372036854775808", &l), nullptr);
  double d;
  float f;
  ASSERT_EQ(ParseFloat64("1e308", &d), nullptr);
  EXPECT_EQ(d, 1e308);
  ASSERT_EQ(ParseFloat64("NaN", &d), nullptr);
  EXPECT_TRUE(std::isnan(d));
  ASSERT_EQ(ParseFloat64("-Infinity", &d), nullptr);
  EXPECT_EQ(d, -INFINITY);
  EXPECT_NE(ParseFloat64("1e999", &d), nullptr);
  EXPECT_NE(ParseFloat64("abc", &d), nullptr);
  ASSERT_EQ(ParseFloat32("0.1", &f), nullptr);
  EXPECT_EQ(f, 0.1f);
  EXPECT_NE(ParseFloat32("1e39", &f), nullptr);
  bool b;
  ASSERT_EQ(ParseBool("TRUE", &b), nullptr);
  EXPECT_TRUE(b);
  ASSERT_EQ(ParseBool("0", &b), nullptr);
  EXPECT_FALSE(b);
  EXPECT_NE(ParseBool("yes", &b), nullptr);
}

TEST(ScalarTest, Decimals) {
  __int128 v;
  ASSERT_EQ(ParseDecimal("-0.01", 5, 2, &v), nullptr);
  EXPECT_EQ(static_cast<int64_t>(v), -1);
  ASSERT_EQ(ParseDecimal("12", 5, 2, &v), nullptr);
  EXPECT_EQ(static_cast<int64_t>(v), 1200);
  ASSERT_EQ(ParseDecimal("1.500", 5, 2, &v), nullptr);  // extra zeros are exact
  EXPECT_EQ(static_cast<int64_t>(v), 150);
  ASSERT_EQ(ParseDecimal("1.5e2", 5, 2, &v), nullptr);
  EXPECT_EQ(static_cast<int64_t>(v), 15000);
  ASSERT_EQ(ParseDecimal("25E-3", 5, 3, &v), nullptr);
  EXPECT_EQ(static_cast<int64_t>(v), 25);
  ASSERT_EQ(ParseDecimal("0.000", 1, 0, &v), nullptr);
  EXPECT_EQ(static_cast<int64_t>(v), 0);
  EXPECT_NE(ParseDecimal("1.234", 5, 2, &v), nullptr);    // would round
  EXPECT_NE(ParseDecimal("1000.00", 5, 2, &v), nullptr);  // precision
  EXPECT_NE(ParseDecimal("1.2.3", 5, 2, &v), nullptr);
  EXPECT_NE(ParseDecimal("", 5, 2, &v), nullptr);
  EXPECT_NE(ParseDecimal("-", 5, 2, &v), nullptr);
  EXPECT_NE(ParseDecimal("1e", 5, 2, &v), nullptr);
  EXPECT_NE(ParseDecimal("1e99999999999", 38, 0, &v), nullptr);
  // 38 nines at scale 0, the largest decimal(38, 0).
  std::string nines(38, '9');
  ASSERT_EQ(ParseDecimal(nines, 38, 0, &v), nullptr);
  __int128 expect = 0;
  for (int k = 0; k < 38; ++k) expect = expect * 10 + 9;
  EXPECT_TRUE(v == expect);
  EXPECT_NE(ParseDecimal(nines + "9", 38, 0, &v), nullptr);
  EXPECT_NE(ParseDecimal(std::string(100, '9'), 38, 0, &v), nullptr);
}

TEST(ScalarTest, UuidAndHex) {
  char u[16];
  EXPECT_EQ(ParseUuid("F79C3E09677C4BBDA4793F349CB785E7", u), nullptr);
  EXPECT_NE(ParseUuid("f79c3e09-677c-4bbd-a479-3f349cb785e", u), nullptr);
  EXPECT_NE(ParseUuid("f79c3e09+677c-4bbd-a479-3f349cb785e7", u), nullptr);
  std::string out;
  EXPECT_NE(ParseHex("abc", &out), nullptr);
  EXPECT_NE(ParseHex("zz", &out), nullptr);
  EXPECT_TRUE(out.empty());
}

}  // namespace
}  // namespace floe::format::text
