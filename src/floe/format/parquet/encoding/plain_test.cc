#include "floe/format/parquet/encoding/plain.h"

#include <cstring>
#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "floe/base/testing.h"
#include "floe/columnar/bitmap.h"
#include "floe/format/parquet/encoding/test_util.h"

namespace floe::format::parquet {
namespace {

using testing::EdgeSizes;
using testing::EdgeSizesAndLarge;
using testing::ExactBytes;
using testing::Hex;
using testing::ToHex;

TEST(PlainTest, FixedWidth) {
  // Encodings.md: INT32 is 4 bytes little-endian.
  ExactBytes page(Hex("01 00 00 00 ff ff ff ff 78 56 34 12"));
  PlainFixedDecoder decoder;
  FLOE_ASSERT_OK(decoder.Reset(page.span(), 4));
  EXPECT_EQ(decoder.values_left(), 3u);
  int32_t out[3];
  FLOE_ASSERT_OK(decoder.Decode(out, 1));
  FLOE_ASSERT_OK(decoder.Decode(out + 1, 2));
  EXPECT_EQ(out[0], 1);
  EXPECT_EQ(out[1], -1);
  EXPECT_EQ(out[2], 0x12345678);
  EXPECT_EQ(decoder.Decode(out, 1).code(), StatusCode::kCorrupt);

  // INT96 / FLBA widths; a partial trailing value does not count.
  FLOE_ASSERT_OK(decoder.Reset(page.span(), 5));
  EXPECT_EQ(decoder.values_left(), 2u);
  FLOE_ASSERT_OK(decoder.Skip(1));
  uint8_t five[5];
  FLOE_ASSERT_OK(decoder.Decode(five, 1));
  EXPECT_EQ(ToHex(five), "ff ff ff 78 56");
  EXPECT_EQ(decoder.Skip(1).code(), StatusCode::kCorrupt);
  EXPECT_EQ(decoder.Reset(page.span(), 0).code(), StatusCode::kInvalidArgument);
  // A huge count must not overflow the size computation.
  FLOE_ASSERT_OK(decoder.Reset(page.span(), 12));
  EXPECT_EQ(decoder.Decode(out, SIZE_MAX / 4).code(), StatusCode::kCorrupt);

  Buffer encoded;
  const double doubles[2] = {1.5, -0.0};
  EncodePlainFixed(doubles, 2, 8, &encoded);
  EXPECT_EQ(ToHex(encoded.span()), "00 00 00 00 00 00 f8 3f 00 00 00 00 00 00 00 80");
}

// Encodings.md: BOOLEAN is bit-packed LSB-first: 1,0,1,1,0,0,0,1 | 1 is 8D 01.
TEST(PlainTest, Booleans) {
  ExactBytes page(Hex("8d 01"));
  PlainBooleanDecoder decoder;
  decoder.Reset(page.span());
  EXPECT_EQ(decoder.values_left(), 16u);
  uint8_t out[9];
  FLOE_ASSERT_OK(decoder.Decode(out, 3));
  FLOE_ASSERT_OK(decoder.Decode(out + 3, 6));
  EXPECT_EQ(std::vector<uint8_t>(out, out + 9), (std::vector<uint8_t>{1, 0, 1, 1, 0, 0, 0, 1, 1}));
  EXPECT_EQ(decoder.Decode(out, 8).code(), StatusCode::kCorrupt);

  // A new page starts at bit 0 again (parquet.md §10 gotcha 23).
  decoder.Reset(page.span());
  FLOE_ASSERT_OK(decoder.Decode(out, 1));
  EXPECT_EQ(out[0], 1);

  decoder.Reset(page.span());
  uint8_t bitmap[2] = {0xFF, 0xFF};
  FLOE_ASSERT_OK(decoder.Skip(1));
  FLOE_ASSERT_OK(decoder.DecodeBits(bitmap, 3, 8));
  // Bits 3..10 get 0,1,1,0,0,0,1,1; the others stay set.
  EXPECT_EQ(bitmap[0], 0b00110111);
  EXPECT_EQ(bitmap[1], 0b11111110 | 0);

  const uint8_t values[9] = {1, 0, 7, 1, 0, 0, 0, 1, 1};
  Buffer encoded;
  EncodePlainBooleans(values, 9, &encoded);
  EXPECT_EQ(ToHex(encoded.span()), "8d 01");
  Buffer from_bits;
  EncodePlainBooleanBits(page.data(), 0, 9, &from_bits);
  EXPECT_EQ(ToHex(from_bits.span()), "8d 01");
  Buffer shifted;
  EncodePlainBooleanBits(page.data(), 2, 7, &shifted);  // 1,1,0,0,0,1,1
  EXPECT_EQ(ToHex(shifted.span()), "63");
}

TEST(PlainTest, BooleanRoundTrip) {
  std::mt19937_64 rng(6);
  for (size_t n : EdgeSizesAndLarge()) {
    std::vector<uint8_t> values(n);
    for (auto& v : values) v = rng() & 1;
    Buffer encoded;
    EncodePlainBooleans(values.data(), n, &encoded);
    ASSERT_EQ(encoded.size(), (n + 7) / 8);
    ExactBytes page(encoded.span());
    PlainBooleanDecoder decoder;
    decoder.Reset(page.span());
    std::vector<uint8_t> out(n);
    size_t done = 0;
    for (size_t batch = 1; done < n; batch += 3) {
      const size_t k = std::min(batch, n - done);
      FLOE_ASSERT_OK(decoder.Decode(out.data() + done, k));
      done += k;
    }
    EXPECT_EQ(out, values);
  }
}

// BOOLEAN with Encoding::RLE: u32 length prefix, then width-1 runs.
TEST(PlainTest, RleBooleans) {
  ExactBytes page(Hex("04 00 00 00 03 8d 14 01 ee"));
  auto decoder = MakeRleBooleanDecoder(page.span());
  FLOE_ASSERT_OK(decoder);
  uint8_t out[20];
  ASSERT_EQ(*decoder->GetBatch(out, 20), 18u);
  EXPECT_EQ(out[1], 0);
  EXPECT_EQ(out[17], 1);
  ExactBytes bad(Hex("09 00 00 00 03 8d"));
  EXPECT_EQ(MakeRleBooleanDecoder(bad.span()).status().code(), StatusCode::kCorrupt);
  EXPECT_EQ(MakeRleBooleanDecoder(Hex("01 00")).status().code(), StatusCode::kCorrupt);

  std::vector<uint8_t> values(18, 1);
  values[1] = values[4] = values[5] = values[6] = 0;
  values[0] = 5;  // any nonzero is true
  Buffer encoded;
  EncodeRleBooleans(values.data(), values.size(), &encoded);
  EXPECT_EQ(ToHex(encoded.span()), "04 00 00 00 03 8d 14 01");
}

// Encodings.md: BYTE_ARRAY is a 4-byte little-endian length and the bytes.
TEST(PlainTest, ByteArrays) {
  ExactBytes page(Hex("05 00 00 00 48 65 6c 6c 6f 00 00 00 00 02 00 00 00 61 62"));
  PlainByteArrayDecoder decoder;
  decoder.Reset(page.span());
  Buffer data;
  data.Append(std::string_view("xyz"));  // a column batch that already holds a value
  int64_t ends[3];
  FLOE_ASSERT_OK(decoder.Decode(2, ends, &data));
  FLOE_ASSERT_OK(decoder.Decode(1, ends + 2, &data));
  EXPECT_EQ(data.view(), "xyzHelloab");
  EXPECT_EQ(std::vector<int64_t>(ends, ends + 3), (std::vector<int64_t>{8, 8, 10}));
  EXPECT_EQ(decoder.bytes_left(), 0u);
  EXPECT_EQ(decoder.Decode(1, ends, &data).code(), StatusCode::kCorrupt);

  // A second page continues the same column batch.
  decoder.Reset(page.span());
  FLOE_ASSERT_OK(decoder.Skip(1));
  FLOE_ASSERT_OK(decoder.Decode(2, ends, &data));
  EXPECT_EQ(data.view(), "xyzHelloabab");
  EXPECT_EQ(ends[0], 10);
  EXPECT_EQ(ends[1], 12);

  Buffer encoded;
  const int64_t offsets[4] = {3, 8, 8, 10};
  FLOE_ASSERT_OK(
      EncodePlainByteArrays(offsets, reinterpret_cast<const uint8_t*>("xyzHelloab"), 3, &encoded));
  EXPECT_EQ(ToHex(encoded.span()), ToHex(page.span()));
}

TEST(PlainTest, ByteArrayCorruption) {
  Buffer data;
  int64_t ends[4];
  PlainByteArrayDecoder decoder;
  // Length past the end: the values before it stay decoded.
  ExactBytes past(Hex("01 00 00 00 61 06 00 00 00 61 62"));
  decoder.Reset(past.span());
  EXPECT_EQ(decoder.Decode(2, ends, &data).code(), StatusCode::kCorrupt);
  EXPECT_EQ(data.view(), "a");
  EXPECT_EQ(ends[0], 1);
  // Truncated length prefix.
  ExactBytes prefix(Hex("01 00 00 00 61 06 00"));
  decoder.Reset(prefix.span());
  EXPECT_EQ(decoder.Decode(2, ends, &data).code(), StatusCode::kCorrupt);
  decoder.Reset(prefix.span());
  EXPECT_EQ(decoder.Skip(2).code(), StatusCode::kCorrupt);
  // A length of 4 GiB - 1.
  ExactBytes huge(Hex("ff ff ff ff 61"));
  decoder.Reset(huge.span());
  EXPECT_EQ(decoder.Decode(1, ends, &data).code(), StatusCode::kCorrupt);
}

TEST(PlainTest, ByteArrayRoundTrip) {
  std::mt19937_64 rng(8);
  for (size_t n : EdgeSizesAndLarge()) {
    std::vector<int64_t> offsets = {0};
    std::string text;
    for (size_t i = 0; i < n; ++i) {
      const size_t len = rng() % 5 == 0 ? 0 : rng() % 40;
      for (size_t j = 0; j < len; ++j) text.push_back(static_cast<char>(rng()));
      offsets.push_back(static_cast<int64_t>(text.size()));
    }
    Buffer encoded;
    FLOE_ASSERT_OK(EncodePlainByteArrays(
        offsets.data(), reinterpret_cast<const uint8_t*>(text.data()), n, &encoded));
    ExactBytes page(encoded.span());
    PlainByteArrayDecoder decoder;
    decoder.Reset(page.span());
    Buffer data;
    std::vector<int64_t> ends(n);
    FLOE_ASSERT_OK(decoder.Decode(n, ends.data(), &data));
    EXPECT_EQ(data.view(), text);
    EXPECT_EQ(std::vector<int64_t>(offsets.begin() + 1, offsets.end()), ends);
  }
}

}  // namespace
}  // namespace floe::format::parquet
