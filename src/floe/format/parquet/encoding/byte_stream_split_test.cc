#include "floe/format/parquet/encoding/byte_stream_split.h"

#include <random>
#include <vector>

#include <gtest/gtest.h>

#include "floe/base/testing.h"
#include "floe/format/parquet/encoding/test_util.h"

namespace floe::format::parquet {
namespace {

using testing::EdgeSizes;
using testing::ExactBytes;
using testing::Hex;
using testing::ToHex;

// Encodings.md, "Byte Stream Split": three 4-byte elements.
TEST(ByteStreamSplitTest, SpecExample) {
  const auto values = Hex("AA BB CC DD 00 11 22 33 A3 B4 C5 D6");
  const auto encoded = Hex("AA 00 A3 BB 11 B4 CC 22 C5 DD 33 D6");
  Buffer out;
  EncodeByteStreamSplit(values.data(), 3, 4, &out);
  EXPECT_EQ(ToHex(out.span()), ToHex(encoded));

  ExactBytes page(encoded);
  ByteStreamSplitDecoder decoder;
  FLOE_ASSERT_OK(decoder.Reset(page.span(), 4));
  EXPECT_EQ(decoder.num_values(), 3u);
  uint8_t decoded[12];
  FLOE_ASSERT_OK(decoder.Decode(decoded, 1));
  FLOE_ASSERT_OK(decoder.Decode(decoded + 4, 2));
  EXPECT_EQ(ToHex(decoded), ToHex(values));
  EXPECT_EQ(decoder.Decode(decoded, 1).code(), StatusCode::kCorrupt);

  // The same bytes as K = 3 streams of 4: AA 00 A3 BB | 11 B4 CC 22 | C5 DD 33 D6.
  FLOE_ASSERT_OK(decoder.Reset(page.span(), 3));
  FLOE_ASSERT_OK(decoder.Skip(1));
  FLOE_ASSERT_OK(decoder.Decode(decoded, 1));
  EXPECT_EQ(ToHex({decoded, 3}), "00 b4 dd");
}

TEST(ByteStreamSplitTest, Errors) {
  ByteStreamSplitDecoder decoder;
  auto bytes = Hex("01 02 03 04 05");
  EXPECT_EQ(decoder.Reset(bytes, 4).code(), StatusCode::kCorrupt);
  EXPECT_EQ(decoder.Reset(bytes, 0).code(), StatusCode::kInvalidArgument);
  FLOE_ASSERT_OK(decoder.Reset(bytes, 5));
  EXPECT_EQ(decoder.Skip(2).code(), StatusCode::kCorrupt);
  FLOE_ASSERT_OK(decoder.Reset({}, 8));
  EXPECT_EQ(decoder.num_values(), 0u);
}

TEST(ByteStreamSplitTest, RoundTripEveryWidth) {
  std::mt19937_64 rng(51);
  for (size_t k = 1; k <= 17; ++k) {
    auto sizes = EdgeSizes();
    if (k == 3 || k == 4 || k == 8) sizes.push_back(100000);
    for (size_t n : sizes) {
      std::vector<uint8_t> values(n * k);
      for (auto& b : values) b = static_cast<uint8_t>(rng());
      Buffer encoded;
      EncodeByteStreamSplit(values.data(), n, k, &encoded);
      ASSERT_EQ(encoded.size(), n * k);
      // By definition: byte j of value i at j * n + i.
      for (size_t i = 0; i < n; ++i) {
        for (size_t j = 0; j < k; ++j) ASSERT_EQ(encoded.data()[j * n + i], values[i * k + j]);
      }
      ExactBytes page(encoded.span());
      ByteStreamSplitDecoder decoder;
      FLOE_ASSERT_OK(decoder.Reset(page.span(), k));
      std::vector<uint8_t> out(n * k);
      size_t done = 0;
      while (done < n) {
        const size_t m = std::min<size_t>(n - done, 1 + rng() % 50);
        FLOE_ASSERT_OK(decoder.Decode(out.data() + done * k, m));
        done += m;
      }
      ASSERT_EQ(out, values) << "k=" << k << " n=" << n;
    }
  }
}

}  // namespace
}  // namespace floe::format::parquet
