#include "floe/format/parquet/statistics.h"

#include <gtest/gtest.h>

#include <cstring>

namespace floe::format::parquet {
namespace {

ColumnDescriptor Column(Type type, std::optional<LogicalType> lt = std::nullopt,
                        int32_t length = 0) {
  ColumnDescriptor c;
  c.physical_type = type;
  c.logical_type = lt;
  c.type_length = length;
  return c;
}

std::string Int32Bytes(int32_t v) {
  std::string s(4, '\0');
  std::memcpy(s.data(), &v, 4);
  return s;
}

TEST(StatisticsTest, SortOrdersFollowTheSpec) {
  EXPECT_EQ(SortOrderOf(Column(Type::kInt32)), SortOrder::kSigned);
  EXPECT_EQ(SortOrderOf(Column(Type::kInt32, LogicalType::Integer(32, false))),
            SortOrder::kUnsigned);
  EXPECT_EQ(SortOrderOf(Column(Type::kByteArray, LogicalType::Of(LogicalType::Kind::kString))),
            SortOrder::kUnsigned);
  EXPECT_EQ(SortOrderOf(Column(Type::kFixedLenByteArray, LogicalType::Decimal(10, 2), 5)),
            SortOrder::kSigned);
  EXPECT_EQ(SortOrderOf(Column(Type::kInt96)), SortOrder::kUndefined);
}

TEST(StatisticsTest, ComparisonsByType) {
  // Unsigned INT32: 0xFFFFFFFF is the largest value, not -1.
  auto u32 = Column(Type::kInt32, LogicalType::Integer(32, false));
  EXPECT_GT(CompareStatValues(u32, Int32Bytes(-1), Int32Bytes(5)), 0);
  EXPECT_LT(CompareStatValues(Column(Type::kInt32), Int32Bytes(-1), Int32Bytes(5)), 0);
  // Decimal in FLBA: big-endian two's complement compared numerically.
  auto dec = Column(Type::kFixedLenByteArray, LogicalType::Decimal(4, 0), 2);
  EXPECT_LT(CompareStatValues(dec, std::string("\xFF\x00", 2), std::string("\x00\x01", 2)), 0);
  // Strings: unsigned bytes, shorter prefix first.
  auto str = Column(Type::kByteArray, LogicalType::Of(LogicalType::Kind::kString));
  EXPECT_LT(CompareStatValues(str, "ab", "abc"), 0);
  EXPECT_GT(CompareStatValues(str, "\xC3\xA9", "z"), 0);
}

TEST(StatisticsTest, Truncation) {
  EXPECT_EQ(TruncateLowerBound("abcdef", 3, false), "abc");
  EXPECT_EQ(*TruncateUpperBound("abcdef", 3, false), "abd");
  // Trailing 0xFF bytes cannot be incremented: the previous byte is.
  EXPECT_EQ(*TruncateUpperBound(std::string("a\xFF\xFFz", 4), 3, false), "b");
  EXPECT_FALSE(TruncateUpperBound(std::string("\xFF\xFF\xFF", 3), 2, false).has_value());
  // UTF-8: cut on a character boundary; increment the last code point.
  EXPECT_EQ(TruncateLowerBound("a\xC3\xA9z", 2, true), "a");
  EXPECT_EQ(*TruncateUpperBound("a\xC3\xA9z", 3, true), "a\xC3\xAA");
  // U+10FFFF cannot grow: it is dropped and the character before it incremented.
  EXPECT_EQ(*TruncateUpperBound("b\xF4\x8F\xBF\xBFz", 5, true), "c");
  EXPECT_EQ(TruncateLowerBound("short", 64, true), "short");
}

TEST(StatisticsTest, TrustRules) {
  auto str = Column(Type::kByteArray, LogicalType::Of(LogicalType::Kind::kString));
  ColumnMetaData meta;
  meta.num_values = 10;
  Statistics s;
  s.min = "a";
  s.max = "z";
  s.null_count = 0;
  meta.statistics = s;
  FileMetaData file;
  file.created_by = "parquet-mr version 1.7.0 (build abc)";
  // PARQUET-251: binary stats of parquet-mr < 1.8.0 are ignored.
  EXPECT_FALSE(TrustedStatistics(str, meta, file).min.has_value());
  // A modern writer with TYPE_ORDER and min_value/max_value is trusted.
  file.created_by = "parquet-mr version 1.13.1 (build abc)";
  file.column_orders = std::vector<ColumnOrder>(1);
  meta.statistics->min_value = "b";
  meta.statistics->max_value = "y";
  auto t = TrustedStatistics(str, meta, file);
  ASSERT_TRUE(t.min && t.max);
  EXPECT_EQ(*t.min, "b");
  EXPECT_EQ(*t.max, "y");
  // Without column orders, unsigned-order legacy stats are only used when min == max.
  file.column_orders.reset();
  meta.statistics->min_value.reset();
  meta.statistics->max_value.reset();
  EXPECT_FALSE(TrustedStatistics(str, meta, file).min.has_value());
}

TEST(StatisticsTest, PruningWithBounds) {
  auto c = Column(Type::kInt32);
  ChunkStatistics s;
  s.num_values = 100;
  s.null_count = 0;
  s.min = Int32Bytes(10);
  s.max = Int32Bytes(20);
  using Op = ColumnPredicate::Op;
  EXPECT_FALSE(ChunkMayMatch(c, s, {0, Op::kEq, Int32Bytes(21)}));
  EXPECT_TRUE(ChunkMayMatch(c, s, {0, Op::kEq, Int32Bytes(20)}));
  EXPECT_FALSE(ChunkMayMatch(c, s, {0, Op::kLt, Int32Bytes(10)}));
  EXPECT_TRUE(ChunkMayMatch(c, s, {0, Op::kLtEq, Int32Bytes(10)}));
  EXPECT_FALSE(ChunkMayMatch(c, s, {0, Op::kGt, Int32Bytes(20)}));
  EXPECT_FALSE(ChunkMayMatch(c, s, {0, Op::kIsNull, ""}));
  s.null_count = 100;
  EXPECT_FALSE(ChunkMayMatch(c, s, {0, Op::kNotNull, ""}));
  EXPECT_FALSE(ChunkMayMatch(c, s, {0, Op::kEq, Int32Bytes(15)}));
}

}  // namespace
}  // namespace floe::format::parquet
