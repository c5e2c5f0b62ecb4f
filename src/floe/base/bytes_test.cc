#include "floe/base/bytes.h"

#include <gtest/gtest.h>

#include <vector>

namespace floe {
namespace {

TEST(BytesTest, ZigZagMatchesProtobufDefinition) {
  // Values from the protobuf encoding guide's zigzag table.
  EXPECT_EQ(ZigZagEncode32(0), 0u);
  EXPECT_EQ(ZigZagEncode32(-1), 1u);
  EXPECT_EQ(ZigZagEncode32(1), 2u);
  EXPECT_EQ(ZigZagEncode32(-2), 3u);
  EXPECT_EQ(ZigZagEncode32(2147483647), 4294967294u);
  EXPECT_EQ(ZigZagEncode32(-2147483647 - 1), 4294967295u);
  EXPECT_EQ(ZigZagDecode64(ZigZagEncode64(INT64_MIN)), INT64_MIN);
  EXPECT_EQ(ZigZagDecode64(ZigZagEncode64(INT64_MAX)), INT64_MAX);
}

TEST(BytesTest, VarintRoundTripAndLimits) {
  uint8_t buf[10];
  // 300 is the protobuf guide's example: AC 02.
  ASSERT_EQ(EncodeVarint64(300, buf), 2u);
  EXPECT_EQ(buf[0], 0xAC);
  EXPECT_EQ(buf[1], 0x02);
  for (uint64_t v : {0ull, 1ull, 127ull, 128ull, 1ull << 35, ~0ull}) {
    size_t n = EncodeVarint64(v, buf);
    ByteReader r(buf, n);
    EXPECT_EQ(*r.ReadVarint64(), v);
    EXPECT_TRUE(r.empty());
  }
  const uint8_t too_long[] = {0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x01};
  EXPECT_TRUE(ByteReader(too_long, sizeof(too_long)).ReadVarint64().status().IsCorrupt());
  const uint8_t big32[] = {0xFF, 0xFF, 0xFF, 0xFF, 0x1F};
  EXPECT_TRUE(ByteReader(big32, sizeof(big32)).ReadVarint32().status().IsCorrupt());
  const uint8_t truncated[] = {0x80};
  EXPECT_TRUE(ByteReader(truncated, 1).ReadVarint32().status().IsCorrupt());
}

TEST(BytesTest, ByteSwap128) {
  unsigned __int128 v =
      (static_cast<unsigned __int128>(0x0102030405060708ull) << 64) | 0x090A0B0C0D0E0F10ull;
  unsigned __int128 want =
      (static_cast<unsigned __int128>(0x100F0E0D0C0B0A09ull) << 64) | 0x0807060504030201ull;
  EXPECT_TRUE(ByteSwap128(v) == want);
  EXPECT_TRUE(ByteSwap128(ByteSwap128(v)) == v);
}

TEST(BytesTest, ReaderNeverReadsPastEnd) {
  std::vector<uint8_t> data = {1, 2, 3};
  ByteReader r(data.data(), data.size());
  EXPECT_FALSE(r.ReadLE<uint32_t>().ok());
  EXPECT_EQ(*r.ReadLE<uint16_t>(), 0x0201);
  EXPECT_FALSE(r.Take(2).ok());
  EXPECT_EQ(*r.ReadByte(), 3);
  EXPECT_FALSE(r.ReadByte().ok());
  EXPECT_EQ(LoadBE<uint16_t>(data.data()), 0x0102);
}

}  // namespace
}  // namespace floe
