#include "floe/columnar/value_format.h"

#include <gtest/gtest.h>

namespace floe::columnar {
namespace {

// Examples from the Iceberg spec, Appendix D (JSON single-value serialization).
TEST(ValueFormatTest, IcebergSpecExamples) {
  EXPECT_EQ(FormatDate(17486), "2017-11-16");
  EXPECT_EQ(FormatTime(81068123456, TimeUnit::kMicro), "22:31:08.123456");
  EXPECT_EQ(FormatTimestamp(1510871468123456, TimeUnit::kMicro, false),
            "2017-11-16T22:31:08.123456");
  EXPECT_EQ(FormatTimestamp(1510871468123456, TimeUnit::kMicro, true),
            "2017-11-16T22:31:08.123456+00:00");
  EXPECT_EQ(FormatDecimal(1420, 2), "14.20");
  std::string uuid("\xf7\x9c\x3e\x09\x67\x7c\x4b\xbd\xa4\x79\x3f\x34\x9c\xb7\x85\xe7", 16);
  EXPECT_EQ(FormatUuid(uuid), "f79c3e09-677c-4bbd-a479-3f349cb785e7");
}

TEST(ValueFormatTest, EdgeCases) {
  EXPECT_EQ(FormatDate(0), "1970-01-01");
  EXPECT_EQ(FormatDate(-1), "1969-12-31");
  EXPECT_EQ(FormatDate(-719528), "0000-01-01");
  EXPECT_EQ(FormatDate(2932896), "9999-12-31");
  EXPECT_EQ(FormatTimestamp(-1, TimeUnit::kMicro, false), "1969-12-31T23:59:59.999999");
  EXPECT_EQ(FormatTimestamp(1, TimeUnit::kNano, false), "1970-01-01T00:00:00.000000001");
  EXPECT_EQ(FormatTime(1, TimeUnit::kMilli), "00:00:00.001");
  EXPECT_EQ(FormatDecimal(-5, 3), "-0.005");
  EXPECT_EQ(FormatDecimal(0, 0), "0");
  EXPECT_EQ(FormatDecimal(7, -2), "700");
  __int128 max38 = 1;
  for (int i = 0; i < 38; ++i) max38 *= 10;
  EXPECT_EQ(FormatDecimal(-(max38 - 1), 10), "-9999999999999999999999999999.9999999999");
  for (int64_t d : {-800000, -1, 0, 59, 60, 365, 11016, 2932896}) {
    int64_t y;
    unsigned m, day;
    CivilFromDays(d, &y, &m, &day);
    EXPECT_EQ(DaysFromCivil(y, m, day), d);
  }
  EXPECT_EQ(HalfToFloat(0x3C00), 1.0f);
  EXPECT_EQ(HalfToFloat(0xC000), -2.0f);
  EXPECT_EQ(HalfToFloat(0x0001), 5.9604644775390625e-08f);
  EXPECT_EQ(HalfToFloat(0x7BFF), 65504.0f);
}

}  // namespace
}  // namespace floe::columnar
