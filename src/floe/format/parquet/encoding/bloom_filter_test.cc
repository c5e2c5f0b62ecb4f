#include "floe/format/parquet/encoding/bloom_filter.h"

#include <random>
#include <vector>

#include <gtest/gtest.h>

#include "floe/base/testing.h"
#include "floe/format/parquet/encoding/test_util.h"

namespace floe::format::parquet {
namespace {

using testing::Hex;
using testing::ToHex;

TEST(BloomFilterTest, Sizes) {
  for (size_t bytes :
       {size_t{0}, size_t{16}, size_t{31}, size_t{48}, size_t{1000}, BloomFilter::kMaxBytes * 2}) {
    EXPECT_EQ(BloomFilter::Make(bytes).status().code(), StatusCode::kInvalidArgument) << bytes;
    std::vector<uint8_t> bitset(std::min<size_t>(bytes, 4096));
    if (bitset.size() == bytes) {
      EXPECT_EQ(BloomFilter::FromBitset(bitset).status().code(), StatusCode::kCorrupt) << bytes;
    }
  }
  for (size_t bytes : {size_t{32}, size_t{64}, size_t{1024}}) {
    auto filter = BloomFilter::Make(bytes);
    FLOE_ASSERT_OK(filter);
    EXPECT_EQ(filter->num_bytes(), bytes);
    EXPECT_EQ(filter->bitset().size(), bytes);
  }
}

// parquet.md §8 examples and the spec's formula: -8 * ndv / ln(1 - fpp^(1/8)) bits,
// clamped to [32 B, 128 MiB], rounded up to a power of two.
TEST(BloomFilterTest, OptimalNumBytes) {
  EXPECT_EQ(*BloomFilter::OptimalNumBytes(1000000, 0.01), size_t{2} << 20);
  EXPECT_EQ(*BloomFilter::OptimalNumBytes(100000, 0.01), size_t{128} << 10);
  EXPECT_EQ(*BloomFilter::OptimalNumBytes(0, 0.01), 32u);
  EXPECT_EQ(*BloomFilter::OptimalNumBytes(1, 0.5), 32u);
  EXPECT_EQ(*BloomFilter::OptimalNumBytes(uint64_t{1} << 40, 0.01), BloomFilter::kMaxBytes);
  EXPECT_EQ(BloomFilter::OptimalNumBytes(10, 0.0).status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(BloomFilter::OptimalNumBytes(10, 1.0).status().code(), StatusCode::kInvalidArgument);
}

// Reference hashes computed with the Python xxhash package (xxh64_intdigest(bytes, 0)).
TEST(BloomFilterTest, Xxh64OfPlainBytes) {
  EXPECT_EQ(BloomHash(std::string_view()), 0xef46db3751d8e999u);
  EXPECT_EQ(BloomHash(std::string_view("abc")), 0x44bc2cf5ad770999u);
  EXPECT_EQ(BloomHash(int64_t{42}), 0xb556806fb6d14353u);
  EXPECT_EQ(BloomHash(int32_t{42}), 0xd756d7b62fc50bf1u);
  EXPECT_EQ(BloomHash(-0.0), 0x3f425eacf01544e0u);
  EXPECT_EQ(BloomHash(1.5f), 0x4f2d82595c483a0du);
  EXPECT_NE(BloomHash(0.0), BloomHash(-0.0));
  const int64_t values[2] = {42, 7};
  uint64_t hashes[2];
  BloomHashFixed(reinterpret_cast<const uint8_t*>(values), 2, 8, hashes);
  EXPECT_EQ(hashes[0], BloomHash(int64_t{42}));
  EXPECT_EQ(hashes[1], BloomHash(int64_t{7}));
  const int64_t offsets[3] = {0, 3, 3};
  BloomHashByteArrays(offsets, reinterpret_cast<const uint8_t*>("abc"), 2, hashes);
  EXPECT_EQ(hashes[0], 0x44bc2cf5ad770999u);
  EXPECT_EQ(hashes[1], 0xef46db3751d8e999u);
}

// BloomFilter.md: block = ((h >> 32) * z) >> 32; bit (uint32(h) * salt[i]) >> 27 of word i.
TEST(BloomFilterTest, BitPlacementFollowsTheSpec) {
  auto filter = *BloomFilter::Make(64);  // two blocks
  // h = 0x80000000'00000001: block (0x80000000 * 2) >> 32 = 1; key 1, so word i gets bit
  // salt[i] >> 27.
  filter.Insert(0x8000000000000001u);
  const uint32_t salt[8] = {0x47b6137bU, 0x44974d91U, 0x8824ad5bU, 0xa2b7289dU,
                            0x705495c7U, 0x2df1424bU, 0x9efc4947U, 0x5c6bfb31U};
  std::vector<uint8_t> expected(64, 0);
  for (int i = 0; i < 8; ++i) {
    const uint32_t bit = salt[i] >> 27;
    expected[32 + 4 * i + bit / 8] |= static_cast<uint8_t>(1u << (bit % 8));
  }
  EXPECT_EQ(ToHex(filter.bitset()), ToHex(expected));
  EXPECT_TRUE(filter.Check(0x8000000000000001u));
  EXPECT_TRUE(filter.Check(0xFFFFFFFF00000001u));   // same block (1), same key
  EXPECT_FALSE(filter.Check(0x0000000000000001u));  // block 0
}

TEST(BloomFilterTest, NoFalseNegativesAndAReasonableFpp) {
  std::mt19937_64 rng(61);
  const size_t n = 10000;
  auto filter = *BloomFilter::Make(*BloomFilter::OptimalNumBytes(n, 0.01));
  std::vector<uint64_t> hashes(n);
  for (auto& h : hashes) h = BloomHash(static_cast<int64_t>(rng()));
  filter.InsertBatch(hashes.data(), n);
  for (uint64_t h : hashes) ASSERT_TRUE(filter.Check(h));
  size_t positives = 0;
  const size_t probes = 100000;
  for (size_t i = 0; i < probes; ++i)
    positives += filter.Check(BloomHash(static_cast<int64_t>(rng())));
  // Sized for 1% and rounded up to a power of two: well under 2%.
  EXPECT_LT(positives, probes / 50);
}

TEST(BloomFilterTest, FromBitsetRoundTrip) {
  auto filter = *BloomFilter::Make(128);
  for (int64_t v = 0; v < 20; ++v) filter.Insert(BloomHash(v));
  auto copy = BloomFilter::FromBitset(filter.bitset());
  FLOE_ASSERT_OK(copy);
  for (int64_t v = 0; v < 20; ++v) EXPECT_TRUE(copy->Check(BloomHash(v)));
  EXPECT_EQ(ToHex(copy->bitset()), ToHex(filter.bitset()));
}

}  // namespace
}  // namespace floe::format::parquet
