#include "floe/format/parquet/encoding/bit_pack.h"

#include <random>
#include <vector>

#include <gtest/gtest.h>

#include "floe/format/parquet/encoding/test_util.h"

namespace floe::format::parquet {
namespace {

using testing::EdgeSizes;
using testing::ExactBytes;
using testing::Hex;

// Packs bit by bit, straight from the definition in Encodings.md (RLE note 1): value i
// occupies bits [i * w, (i + 1) * w) of the stream, bit k of the stream being bit k % 8 of
// byte k / 8, least significant bit of the value first.
std::vector<uint8_t> ReferencePack(const std::vector<uint64_t>& values, int w) {
  std::vector<uint8_t> out(PackedBytes(values.size(), w), 0);
  uint64_t bit = 0;
  for (uint64_t v : values) {
    for (int b = 0; b < w; ++b, ++bit) {
      if ((v >> b) & 1) out[bit / 8] |= static_cast<uint8_t>(1u << (bit % 8));
    }
  }
  return out;
}

std::vector<uint64_t> RandomValues(size_t n, int w, std::mt19937_64& rng) {
  std::vector<uint64_t> values(n);
  const uint64_t mask = w == 64 ? ~uint64_t{0} : (uint64_t{1} << w) - 1;
  for (auto& v : values) v = rng() & mask;
  // Make sure the extremes occur.
  if (n > 2) {
    values[0] = mask;
    values[n - 1] = 0;
  }
  return values;
}

TEST(BitPackTest, BitWidth) {
  EXPECT_EQ(BitWidth(0), 0);
  EXPECT_EQ(BitWidth(1), 1);
  EXPECT_EQ(BitWidth(2), 2);
  EXPECT_EQ(BitWidth(3), 2);
  EXPECT_EQ(BitWidth(4), 3);
  EXPECT_EQ(BitWidth(7), 3);
  EXPECT_EQ(BitWidth(0xFFFFFFFFu), 32);
  EXPECT_EQ(BitWidth(~uint64_t{0}), 64);
}

// Encodings.md, RLE note 1: 0..7 at width 3 is 10001000 11000110 11111010.
TEST(BitPackTest, SpecExampleLsbFirst) {
  const uint32_t values[8] = {0, 1, 2, 3, 4, 5, 6, 7};
  uint8_t packed[3];
  Pack32(values, 8, 3, packed);
  EXPECT_EQ(std::vector<uint8_t>(packed, packed + 3), Hex("88 c6 fa"));
  ExactBytes in(Hex("88 c6 fa"));
  uint32_t out[8];
  Unpack32(in.data(), 3, out, 8);
  EXPECT_EQ(std::vector<uint32_t>(out, out + 8), std::vector<uint32_t>(values, values + 8));
}

// Encodings.md, "Bit-packed (Deprecated)": 0..7 at width 3 is 00000101 00111001 01110111.
TEST(BitPackTest, SpecExampleMsbFirst) {
  ExactBytes in(Hex("05 39 77"));
  uint16_t out[8];
  UnpackMsbFirst16(in.data(), 0, 3, out, 8);
  EXPECT_EQ(std::vector<uint16_t>(out, out + 8), (std::vector<uint16_t>{0, 1, 2, 3, 4, 5, 6, 7}));
  // Starting mid-byte: values 3..7 begin at bit 9.
  UnpackMsbFirst16(in.data(), 9, 3, out, 5);
  EXPECT_EQ(std::vector<uint16_t>(out, out + 5), (std::vector<uint16_t>{3, 4, 5, 6, 7}));
}

TEST(BitPackTest, MsbFirstMatchesReferenceForEveryWidth) {
  std::mt19937_64 rng(7);
  for (int w = 0; w <= 16; ++w) {
    for (size_t n : EdgeSizes()) {
      auto values = RandomValues(n, w, rng);
      // MSB-first reference: bit k of the stream is bit 7 - k % 8 of byte k / 8 and each
      // value is written most significant bit first.
      std::vector<uint8_t> packed(PackedBytes(n, w), 0);
      uint64_t bit = 0;
      for (uint64_t v : values) {
        for (int b = w - 1; b >= 0; --b, ++bit) {
          if ((v >> b) & 1) packed[bit / 8] |= static_cast<uint8_t>(0x80u >> (bit % 8));
        }
      }
      ExactBytes in(packed);
      std::vector<uint16_t> out(n);
      UnpackMsbFirst16(in.data(), 0, w, out.data(), n);
      for (size_t i = 0; i < n; ++i) ASSERT_EQ(out[i], values[i]) << "w=" << w << " i=" << i;
    }
  }
}

TEST(BitPackTest, Pack32MatchesReferenceAndRoundTrips) {
  std::mt19937_64 rng(1);
  for (int w = 0; w <= 32; ++w) {
    for (size_t n : EdgeSizes()) {
      auto values = RandomValues(n, w, rng);
      std::vector<uint32_t> v32(values.begin(), values.end());
      std::vector<uint8_t> packed(PackedBytes(n, w) + 8, 0xAB);
      Pack32(v32.data(), n, w, packed.data());
      EXPECT_EQ(packed[PackedBytes(n, w)], 0xAB) << "wrote past the end, w=" << w;
      packed.resize(PackedBytes(n, w));
      ASSERT_EQ(packed, ReferencePack(values, w)) << "w=" << w << " n=" << n;

      ExactBytes in(packed);
      std::vector<uint32_t> out(n);
      Unpack32(in.data(), w, out.data(), n);
      ASSERT_EQ(out, v32) << "w=" << w << " n=" << n;
    }
  }
}

TEST(BitPackTest, Pack64MatchesReferenceAndRoundTrips) {
  std::mt19937_64 rng(2);
  for (int w = 0; w <= 64; ++w) {
    for (size_t n : EdgeSizes()) {
      auto values = RandomValues(n, w, rng);
      std::vector<uint8_t> packed(PackedBytes(n, w));
      Pack64(values.data(), n, w, packed.data());
      ASSERT_EQ(packed, ReferencePack(values, w)) << "w=" << w << " n=" << n;

      ExactBytes in(packed);
      std::vector<uint64_t> out(n);
      Unpack64(in.data(), w, out.data(), n);
      ASSERT_EQ(out, values) << "w=" << w << " n=" << n;
    }
  }
}

TEST(BitPackTest, NarrowOutputsMatchReference) {
  std::mt19937_64 rng(3);
  for (int w = 0; w <= 16; ++w) {
    for (size_t n : EdgeSizes()) {
      auto values = RandomValues(n, w, rng);
      ExactBytes in(ReferencePack(values, w));
      std::vector<uint16_t> out16(n);
      Unpack16(in.data(), w, out16.data(), n);
      for (size_t i = 0; i < n; ++i) ASSERT_EQ(out16[i], values[i]) << "w=" << w;
      if (w <= 8) {
        std::vector<uint8_t> out8(n);
        Unpack8(in.data(), w, out8.data(), n);
        for (size_t i = 0; i < n; ++i) ASSERT_EQ(out8[i], values[i]) << "w=" << w;
      }
    }
  }
}

TEST(BitPackTest, PackDropsHighBits) {
  const uint32_t values[3] = {0xFF, 0x100, 0x3};
  uint8_t packed[1];
  Pack32(values, 3, 2, packed);
  // 0xFF -> 3, 0x100 -> 0, 3 -> 3: bits 11 00 11 from the bottom.
  EXPECT_EQ(packed[0], 0x33);
}

TEST(BitPackTest, LargeRoundTrip) {
  std::mt19937_64 rng(4);
  const size_t n = 100000;
  for (int w : {1, 5, 13, 32}) {
    auto values = RandomValues(n, w, rng);
    std::vector<uint32_t> v32(values.begin(), values.end());
    std::vector<uint8_t> packed(PackedBytes(n, w));
    Pack32(v32.data(), n, w, packed.data());
    std::vector<uint32_t> out(n);
    Unpack32(packed.data(), w, out.data(), n);
    ASSERT_EQ(out, v32);
  }
}

}  // namespace
}  // namespace floe::format::parquet
