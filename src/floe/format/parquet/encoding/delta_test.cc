#include "floe/format/parquet/encoding/delta.h"

#include <algorithm>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "floe/base/testing.h"
#include "floe/format/parquet/encoding/test_util.h"

namespace floe::format::parquet {
namespace {

using testing::EdgeSizes;
using testing::EdgeSizesAndLarge;
using testing::ExactBytes;
using testing::Hex;
using testing::ToHex;

template <typename T>
std::vector<uint8_t> EncodeDbp(const std::vector<T>& values) {
  Buffer out;
  EncodeDeltaBinaryPacked(values.data(), values.size(), &out);
  return {out.data(), out.data() + out.size()};
}

template <typename T>
std::vector<T> DecodeDbp(std::span<const uint8_t> bytes, size_t n) {
  DeltaBinaryPackedDecoder<T> decoder;
  FLOE_EXPECT_OK(decoder.Reset(bytes));
  std::vector<T> out(n);
  FLOE_EXPECT_OK(decoder.Decode(out.data(), n));
  return out;
}

// parquet.md §4.5, checked by hand against Encodings.md: header 128 (80 01), 4 miniblocks,
// 8 values, first 7 (zigzag 14 = 0E); min delta -2 (zigzag 3); deltas - min = 0,0,0,3,3,3,3
// need 2 bits; unused miniblock widths 0; one 32-value miniblock of 2 bits = 8 bytes.
// pyarrow 26 writes exactly these bytes too (peer_vectors_test.cc).
constexpr std::string_view kSpecExample = "80 01 04 08 0e 03 02 00 00 00 c0 3f 00 00 00 00 00 00";

TEST(DeltaBinaryPackedTest, SpecExample) {
  const std::vector<int32_t> values = {7, 5, 3, 1, 2, 3, 4, 5};
  EXPECT_EQ(ToHex(EncodeDbp(values)), kSpecExample);
  ExactBytes bytes(Hex(kSpecExample));
  EXPECT_EQ(DecodeDbp<int32_t>(bytes.span(), 8), values);
  EXPECT_EQ(DecodeDbp<int64_t>(bytes.span(), 8),
            std::vector<int64_t>(values.begin(), values.end()));
  DeltaBinaryPackedDecoder<int32_t> decoder;
  FLOE_ASSERT_OK(decoder.Reset(bytes.span()));
  EXPECT_EQ(decoder.total_count(), 8u);
  EXPECT_EQ(*decoder.EncodedSize(), 18u);
}

TEST(DeltaBinaryPackedTest, HeaderOnlyPages) {
  EXPECT_EQ(ToHex(EncodeDbp(std::vector<int32_t>{})), "80 01 04 00 00");
  EXPECT_EQ(ToHex(EncodeDbp(std::vector<int64_t>{7})), "80 01 04 01 0e");
  ExactBytes zero(Hex("80 01 04 00 00"));
  DeltaBinaryPackedDecoder<int32_t> decoder;
  FLOE_ASSERT_OK(decoder.Reset(zero.span()));
  EXPECT_EQ(decoder.values_left(), 0u);
  EXPECT_EQ(*decoder.EncodedSize(), 5u);
  int32_t out[2];
  FLOE_EXPECT_OK(decoder.Decode(out, 0));
  EXPECT_EQ(decoder.Decode(out, 1).code(), StatusCode::kCorrupt);
  ExactBytes one(Hex("80 01 04 01 0e"));
  FLOE_ASSERT_OK(decoder.Reset(one.span()));
  EXPECT_EQ(*decoder.EncodedSize(), 5u);
  FLOE_ASSERT_OK(decoder.Decode(out, 1));
  EXPECT_EQ(out[0], 7);
  // No data at all: zero values.
  FLOE_ASSERT_OK(decoder.Reset({}));
  EXPECT_EQ(decoder.values_left(), 0u);
  EXPECT_EQ(*decoder.EncodedSize(), 0u);
}

// Encodings.md: widths of miniblocks without values may hold anything (GH-14923) and have
// no body; what follows the stream is not part of it.
TEST(DeltaBinaryPackedTest, UnusedMiniblockWidthsAreNotValidated) {
  ExactBytes bytes(Hex("80 01 04 08 0e 03 02 ff 41 07 c0 3f 00 00 00 00 00 00 aa bb"));
  DeltaBinaryPackedDecoder<int32_t> decoder;
  FLOE_ASSERT_OK(decoder.Reset(bytes.span()));
  EXPECT_EQ(*decoder.EncodedSize(), 18u);
  std::vector<int32_t> out(8);
  FLOE_ASSERT_OK(decoder.Decode(out.data(), 8));
  EXPECT_EQ(out, (std::vector<int32_t>{7, 5, 3, 1, 2, 3, 4, 5}));
}

TEST(DeltaBinaryPackedTest, BitWidthsAtTypeLimits) {
  // Two values: first 0, then min delta 0 and one miniblock of width 33 whose first value
  // is 2^32 (bit 32 = byte 4, bit 0).
  std::string hex = "80 01 04 02 00 00 21 00 00 00 00 00 00 00 01";
  for (size_t i = 5; i < 132; ++i) hex += " 00";
  ExactBytes wide(Hex(hex));
  DeltaBinaryPackedDecoder<int64_t> d64;
  FLOE_ASSERT_OK(d64.Reset(wide.span()));
  EXPECT_EQ(*d64.EncodedSize(), 10u + 132u);
  int64_t v64[2];
  FLOE_ASSERT_OK(d64.Decode(v64, 2));
  EXPECT_EQ(v64[1], int64_t{1} << 32);
  // INT32 streams accept widths above 32 (DuckDB writes 33-bit miniblocks for INT32; the
  // stream's arithmetic is modulo 2^32, so 0 + 2^32 decodes to 0).
  DeltaBinaryPackedDecoder<int32_t> d32;
  FLOE_ASSERT_OK(d32.Reset(wide.span()));
  EXPECT_EQ(*d32.EncodedSize(), 10u + 132u);
  int32_t v32[2];
  FLOE_ASSERT_OK(d32.Decode(v32, 2));
  EXPECT_EQ(v32[0], 0);
  EXPECT_EQ(v32[1], 0);
  // Width 65 is corrupt for INT64.
  auto bytes65 = Hex(hex);
  bytes65[6] = 65;
  bytes65.resize(10 + 32 * 65 / 8, 0);
  FLOE_ASSERT_OK(d64.Reset(bytes65));
  EXPECT_EQ(d64.Decode(v64, 2).code(), StatusCode::kCorrupt);
  EXPECT_EQ(d64.EncodedSize().status().code(), StatusCode::kCorrupt);
}

TEST(DeltaBinaryPackedTest, ExtremeDeltasWrap) {
  constexpr int64_t kMin64 = std::numeric_limits<int64_t>::min();
  constexpr int64_t kMax64 = std::numeric_limits<int64_t>::max();
  std::vector<int64_t> v64;
  for (int i = 0; i < 300; ++i) v64.push_back(i % 3 == 0 ? kMin64 : i % 3 == 1 ? kMax64 : -1);
  auto b64 = EncodeDbp(v64);
  // Deltas span the whole range: miniblocks of 64 bits (width byte after header + min delta).
  EXPECT_NE(std::find(b64.begin(), b64.end(), uint8_t{64}), b64.end());
  ExactBytes e64(b64);
  EXPECT_EQ(DecodeDbp<int64_t>(e64.span(), v64.size()), v64);

  constexpr int32_t kMin32 = std::numeric_limits<int32_t>::min();
  constexpr int32_t kMax32 = std::numeric_limits<int32_t>::max();
  std::vector<int32_t> v32;
  for (int i = 0; i < 300; ++i) v32.push_back(i % 2 ? kMin32 : kMax32);
  v32[100] = 0;
  ExactBytes e32(EncodeDbp(v32));
  EXPECT_EQ(DecodeDbp<int32_t>(e32.span(), v32.size()), v32);
  DeltaBinaryPackedDecoder<int32_t> d;
  FLOE_ASSERT_OK(d.Reset(e32.span()));
  EXPECT_EQ(*d.EncodedSize(), e32.size());
}

TEST(DeltaBinaryPackedTest, CorruptHeadersAndBlocks) {
  DeltaBinaryPackedDecoder<int32_t> d;
  auto reset = [&](std::string_view hex) {
    ExactBytes bytes(Hex(hex));
    return d.Reset(bytes.span()).code();
  };
  EXPECT_EQ(reset("80 01 04"), StatusCode::kCorrupt);        // truncated header
  EXPECT_EQ(reset("64 04 08 0e"), StatusCode::kCorrupt);     // block size 100
  EXPECT_EQ(reset("00 04 08 0e"), StatusCode::kCorrupt);     // block size 0
  EXPECT_EQ(reset("80 01 00 08 0e"), StatusCode::kCorrupt);  // no miniblocks
  EXPECT_EQ(reset("80 01 03 08 0e"), StatusCode::kCorrupt);  // 128 / 3
  EXPECT_EQ(reset("80 01 08 08 0e"), StatusCode::kCorrupt);  // 16 values per miniblock
  EXPECT_EQ(reset("80 01 04 ff ff ff ff ff 01 0e"), StatusCode::kCorrupt);  // count > 32 bits
  EXPECT_EQ(reset("80 02 02 08 0e"), StatusCode::kOk);                      // 256 in 2 x 128

  // Truncated miniblock body.
  auto truncated = Hex(kSpecExample);
  truncated.pop_back();
  ExactBytes t(truncated);
  FLOE_ASSERT_OK(d.Reset(t.span()));
  EXPECT_EQ(d.EncodedSize().status().code(), StatusCode::kCorrupt);
  int32_t out[8];
  EXPECT_EQ(d.Decode(out, 8).code(), StatusCode::kCorrupt);
  // Block header missing.
  ExactBytes no_block(Hex("80 01 04 08 0e"));
  FLOE_ASSERT_OK(d.Reset(no_block.span()));
  FLOE_ASSERT_OK(d.Decode(out, 1));
  EXPECT_EQ(d.Decode(out, 1).code(), StatusCode::kCorrupt);
  // More values wanted than the stream has.
  ExactBytes spec(Hex(kSpecExample));
  FLOE_ASSERT_OK(d.Reset(spec.span()));
  EXPECT_EQ(d.Decode(out, 9).code(), StatusCode::kCorrupt);
}

TEST(DeltaBinaryPackedTest, HugeCountsStayBounded) {
  // 2^32 - 1 values claimed, one block of 2^31 values of width 0 (body-less), nothing more.
  ExactBytes bytes(Hex("80 80 80 80 08 01 ff ff ff ff 0f 00 02 00"));
  DeltaBinaryPackedDecoder<int64_t> d;
  FLOE_ASSERT_OK(d.Reset(bytes.span()));
  std::vector<int64_t> out(100000);
  FLOE_ASSERT_OK(d.Decode(out.data(), out.size()));
  EXPECT_EQ(out[99999], 99999);
  EXPECT_EQ(d.EncodedSize().status().code(), StatusCode::kCorrupt);
  ExactBytes header_only(Hex("80 01 04 ff ff ff ff 0f 00"));
  FLOE_ASSERT_OK(d.Reset(header_only.span()));
  EXPECT_EQ(d.Decode(out.data(), 1000).code(), StatusCode::kCorrupt);
}

template <typename T>
void RoundTrip(const std::vector<T>& values, std::mt19937_64& rng) {
  auto bytes = EncodeDbp(values);
  bytes.push_back(0xEE);  // trailing bytes that are not part of the stream
  ExactBytes exact(bytes);
  DeltaBinaryPackedDecoder<T> decoder;
  FLOE_ASSERT_OK(decoder.Reset(exact.span()));
  ASSERT_EQ(decoder.total_count(), values.size());
  ASSERT_EQ(*decoder.EncodedSize(), bytes.size() - 1);
  std::vector<T> out(values.size());
  size_t done = 0;
  while (done < values.size()) {
    const size_t k = std::min<size_t>(values.size() - done, 1 + rng() % 100);
    FLOE_ASSERT_OK(decoder.Decode(out.data() + done, k));
    done += k;
  }
  ASSERT_EQ(out, values);
  EXPECT_EQ(decoder.values_left(), 0u);
}

template <typename T>
void RoundTripAll(uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<size_t> sizes = EdgeSizes();
  sizes.push_back(100000);
  for (size_t n : sizes) {
    for (int kind = 0; kind < 5; ++kind) {
      std::vector<T> values(n);
      T acc = 0;
      for (size_t i = 0; i < n; ++i) {
        switch (kind) {
          case 0:  // full range
            values[i] = static_cast<T>(rng());
            break;
          case 1:  // ascending with small steps
            acc = static_cast<T>(acc + static_cast<T>(rng() % 10));
            values[i] = acc;
            break;
          case 2:  // constant
            values[i] = -42;
            break;
          case 3:  // every bit width: deltas of 2^k
            values[i] = static_cast<T>(static_cast<std::make_unsigned_t<T>>(rng()) >>
                                       (rng() % (8 * sizeof(T))));
            break;
          default:  // small noise around a large negative value
            values[i] =
                static_cast<T>(std::numeric_limits<T>::min() / 2 + static_cast<T>(rng() % 1000));
        }
      }
      RoundTrip(values, rng);
    }
  }
}

TEST(DeltaBinaryPackedTest, RoundTripInt32) { RoundTripAll<int32_t>(21); }
TEST(DeltaBinaryPackedTest, RoundTripInt64) { RoundTripAll<int64_t>(22); }

TEST(DeltaBinaryPackedTest, EncoderStartsOverAfterFinish) {
  DeltaBinaryPackedEncoder<int32_t> encoder;
  const int32_t a[3] = {1, 2, 3};
  encoder.Put(a, 2);
  encoder.Put(a + 2, 1);
  EXPECT_EQ(encoder.num_values(), 3u);
  Buffer first;
  encoder.Finish(&first);
  const std::vector<int32_t> b = {7, 5, 3, 1, 2, 3, 4, 5};
  encoder.Put(b.data(), b.size());
  Buffer second;
  encoder.Finish(&second);
  EXPECT_EQ(ToHex(second.span()), kSpecExample);
  EXPECT_EQ(DecodeDbp<int32_t>(first.span(), 3), (std::vector<int32_t>{1, 2, 3}));
}

TEST(DeltaBinaryPackedTest, Skip) {
  std::vector<int64_t> values(1000);
  for (size_t i = 0; i < values.size(); ++i) values[i] = static_cast<int64_t>(i * i) - 5000;
  auto bytes = EncodeDbp(values);
  DeltaBinaryPackedDecoder<int64_t> d;
  FLOE_ASSERT_OK(d.Reset(bytes));
  FLOE_ASSERT_OK(d.Skip(333));
  int64_t v;
  FLOE_ASSERT_OK(d.Decode(&v, 1));
  EXPECT_EQ(v, values[333]);
  EXPECT_EQ(d.Skip(667).code(), StatusCode::kCorrupt);
}

// ---- DELTA_LENGTH_BYTE_ARRAY ----

std::vector<int64_t> OffsetsOf(const std::vector<std::string>& values, std::string* text) {
  std::vector<int64_t> offsets = {0};
  for (const auto& v : values) {
    *text += v;
    offsets.push_back(static_cast<int64_t>(text->size()));
  }
  return offsets;
}

const uint8_t* Bytes(const std::string& s) { return reinterpret_cast<const uint8_t*>(s.data()); }

// Encodings.md: "Hello", "World", "Foobar", "ABCDEF" -> DBP(5, 5, 6, 6) + the bytes.
// DBP by hand: first 5 (zigzag 0A); deltas 0,1,0, min 0, width 1: bits 010 -> 02.
TEST(DeltaLengthByteArrayTest, SpecExample) {
  const std::vector<std::string> values = {"Hello", "World", "Foobar", "ABCDEF"};
  std::string text;
  auto offsets = OffsetsOf(values, &text);
  Buffer encoded;
  FLOE_ASSERT_OK(EncodeDeltaLengthByteArray(offsets.data(), Bytes(text), 4, &encoded));
  const std::string lengths = "80 01 04 04 0a 00 01 00 00 00 02 00 00 00";
  EXPECT_EQ(ToHex(encoded.span()), lengths + " " + ToHex({Bytes(text), text.size()}));

  ExactBytes page(encoded.span());
  DeltaLengthByteArrayDecoder decoder;
  FLOE_ASSERT_OK(decoder.Reset(page.span()));
  EXPECT_EQ(decoder.values_left(), 4u);
  Buffer data;
  data.Append(std::string_view("<>"));
  int64_t ends[4];
  FLOE_ASSERT_OK(decoder.Decode(1, ends, &data));
  FLOE_ASSERT_OK(decoder.Decode(3, ends + 1, &data));
  EXPECT_EQ(data.view(), "<>HelloWorldFoobarABCDEF");
  EXPECT_EQ(std::vector<int64_t>(ends, ends + 4), (std::vector<int64_t>{7, 12, 18, 24}));
  EXPECT_EQ(decoder.bytes_left(), 0u);
  EXPECT_EQ(decoder.Decode(1, ends, &data).code(), StatusCode::kCorrupt);
}

TEST(DeltaLengthByteArrayTest, Corrupt) {
  DeltaLengthByteArrayDecoder decoder;
  Buffer data;
  int64_t ends[4];
  // Negative length.
  Buffer negative;
  const int32_t lengths[2] = {1, -1};
  EncodeDeltaBinaryPacked(lengths, 2, &negative);
  negative.Append(std::string_view("abc"));
  FLOE_ASSERT_OK(decoder.Reset(negative.span()));
  EXPECT_EQ(decoder.Decode(2, ends, &data).code(), StatusCode::kCorrupt);
  // Lengths beyond the bytes present.
  Buffer too_long;
  const int32_t big[2] = {2, 5};
  EncodeDeltaBinaryPacked(big, 2, &too_long);
  too_long.Append(std::string_view("abcdef"));
  ExactBytes page(too_long.span());
  FLOE_ASSERT_OK(decoder.Reset(page.span()));
  EXPECT_EQ(decoder.Decode(2, ends, &data).code(), StatusCode::kCorrupt);
  // A lengths stream whose blocks run past the page.
  ExactBytes cut(Hex("80 01 04 08 0e 03 02 00 00 00 c0"));
  EXPECT_EQ(decoder.Reset(cut.span()).code(), StatusCode::kCorrupt);
}

std::vector<std::string> RandomStrings(size_t n, std::mt19937_64& rng, bool sorted) {
  std::vector<std::string> values(n);
  for (auto& v : values) {
    const size_t len = rng() % 7 == 0 ? 0 : rng() % 30;
    for (size_t j = 0; j < len; ++j)
      v.push_back(static_cast<char>('a' + rng() % (sorted ? 3 : 26)));
  }
  if (sorted) std::sort(values.begin(), values.end());
  return values;
}

TEST(DeltaLengthByteArrayTest, RoundTrip) {
  std::mt19937_64 rng(31);
  for (size_t n : EdgeSizesAndLarge()) {
    auto values = RandomStrings(n, rng, false);
    std::string text;
    auto offsets = OffsetsOf(values, &text);
    Buffer encoded;
    FLOE_ASSERT_OK(EncodeDeltaLengthByteArray(offsets.data(), Bytes(text), n, &encoded));
    ExactBytes page(encoded.span());
    DeltaLengthByteArrayDecoder decoder;
    FLOE_ASSERT_OK(decoder.Reset(page.span()));
    Buffer data;
    std::vector<int64_t> ends(n);
    FLOE_ASSERT_OK(decoder.Decode(n, ends.data(), &data));
    EXPECT_EQ(data.view(), text);
    EXPECT_EQ(ends, std::vector<int64_t>(offsets.begin() + 1, offsets.end()));
  }
}

// ---- DELTA_BYTE_ARRAY ----

// Encodings.md: "axis", "axle", "babble", "babyhood" -> DBP(0, 2, 0, 3), DBP(4, 2, 6, 5),
// "axislebabbleyhood". By hand: prefixes first 0; deltas 2,-2,3, min -2 (zigzag 03),
// 4,0,5 at width 3 -> 44 01. Suffixes first 4 (08); deltas -2,4,-1, min -2; 0,6,1 at
// width 3 -> 70 00.
TEST(DeltaByteArrayTest, SpecExample) {
  const std::vector<std::string> values = {"axis", "axle", "babble", "babyhood"};
  std::string text;
  auto offsets = OffsetsOf(values, &text);
  Buffer encoded;
  FLOE_ASSERT_OK(EncodeDeltaByteArray(offsets.data(), Bytes(text), 4, &encoded));
  const std::string zeros10 = "00 00 00 00 00 00 00 00 00 00";
  const std::string expected = "80 01 04 04 00 03 03 00 00 00 44 01 " + zeros10 +
                               " 80 01 04 04 08 03 03 00 00 00 70 00 " + zeros10 + " " +
                               ToHex({Bytes(std::string("axislebabbleyhood")), 17});
  EXPECT_EQ(ToHex(encoded.span()), expected);

  ExactBytes page(encoded.span());
  DeltaByteArrayDecoder decoder;
  FLOE_ASSERT_OK(decoder.Reset(page.span()));
  Buffer data;
  int64_t ends[4];
  FLOE_ASSERT_OK(decoder.Decode(2, ends, &data));
  FLOE_ASSERT_OK(decoder.Decode(2, ends + 2, &data));
  EXPECT_EQ(data.view(), "axisaxlebabblebabyhood");
  EXPECT_EQ(std::vector<int64_t>(ends, ends + 4), (std::vector<int64_t>{4, 8, 14, 22}));
}

Buffer DbaPage(const std::vector<int32_t>& prefixes, const std::vector<int32_t>& suffixes,
               std::string_view bytes) {
  Buffer page;
  EncodeDeltaBinaryPacked(prefixes.data(), prefixes.size(), &page);
  EncodeDeltaBinaryPacked(suffixes.data(), suffixes.size(), &page);
  page.Append(bytes);
  return page;
}

TEST(DeltaByteArrayTest, Corrupt) {
  DeltaByteArrayDecoder decoder;
  Buffer data;
  int64_t ends[4];
  // The first value of a page cannot have a prefix.
  auto first = DbaPage({1, 0}, {2, 1}, "abc");
  FLOE_ASSERT_OK(decoder.Reset(first.span()));
  EXPECT_EQ(decoder.Decode(2, ends, &data).code(), StatusCode::kCorrupt);
  // A prefix longer than the previous value.
  auto longer = DbaPage({0, 3}, {2, 1}, "abc");
  FLOE_ASSERT_OK(decoder.Reset(longer.span()));
  EXPECT_EQ(decoder.Decode(2, ends, &data).code(), StatusCode::kCorrupt);
  // Negative lengths.
  auto negative = DbaPage({0, -1}, {2, 1}, "abc");
  FLOE_ASSERT_OK(decoder.Reset(negative.span()));
  EXPECT_EQ(decoder.Decode(2, ends, &data).code(), StatusCode::kCorrupt);
  auto negative_suffix = DbaPage({0, 0}, {2, -1}, "abc");
  FLOE_ASSERT_OK(decoder.Reset(negative_suffix.span()));
  EXPECT_EQ(decoder.Decode(2, ends, &data).code(), StatusCode::kCorrupt);
  // Suffix bytes missing.
  auto missing = DbaPage({0, 1}, {2, 5}, "abc");
  FLOE_ASSERT_OK(decoder.Reset(missing.span()));
  EXPECT_EQ(decoder.Decode(2, ends, &data).code(), StatusCode::kCorrupt);
  // Different counts.
  auto counts = DbaPage({0, 1, 1}, {2, 1}, "abc");
  EXPECT_EQ(decoder.Reset(counts.span()).code(), StatusCode::kCorrupt);
  // Too many values wanted.
  auto ok = DbaPage({0, 1}, {2, 1}, "abc");
  FLOE_ASSERT_OK(decoder.Reset(ok.span()));
  EXPECT_EQ(decoder.Decode(3, ends, &data).code(), StatusCode::kCorrupt);
}

// The previous value starts empty on every page: state does not leak across Reset.
TEST(DeltaByteArrayTest, StateResetsPerPage) {
  auto page1 = DbaPage({0, 2}, {3, 1}, "abcd");  // "abc", "abd"
  auto page2 = DbaPage({2}, {1}, "x");           // would be "abx" if state leaked
  DeltaByteArrayDecoder decoder;
  Buffer data;
  int64_t ends[2];
  FLOE_ASSERT_OK(decoder.Reset(page1.span()));
  FLOE_ASSERT_OK(decoder.Decode(2, ends, &data));
  EXPECT_EQ(data.view(), "abcabd");
  FLOE_ASSERT_OK(decoder.Reset(page2.span()));
  EXPECT_EQ(decoder.Decode(1, ends, &data).code(), StatusCode::kCorrupt);
}

// PARQUET-246: parquet-mr < 1.8.0 continued the prefix chain across pages.
TEST(DeltaByteArrayTest, CarryOverForOldParquetMr) {
  auto page1 = DbaPage({0, 2}, {3, 1}, "abcd");  // "abc", "abd"
  auto page2 = DbaPage({2, 3}, {1, 0}, "x");     // "abx", "abx"
  DeltaByteArrayDecoder decoder;
  Buffer data;
  int64_t ends[4];
  FLOE_ASSERT_OK(decoder.Reset(page1.span(), DeltaByteArrayPages::kCarryOver));
  FLOE_ASSERT_OK(decoder.Decode(2, ends, &data));
  FLOE_ASSERT_OK(decoder.Reset(page2.span(), DeltaByteArrayPages::kCarryOver));
  FLOE_ASSERT_OK(decoder.Decode(2, ends + 2, &data));
  EXPECT_EQ(data.view(), "abcabdabxabx");
  EXPECT_EQ(std::vector<int64_t>(ends, ends + 4), (std::vector<int64_t>{3, 6, 9, 12}));
}

TEST(DeltaByteArrayTest, FixedLenByteArray) {
  const std::string values = "abcdabceabcezzzz";
  Buffer encoded;
  EncodeDeltaByteArrayFixed(Bytes(values), 4, 4, &encoded);
  ExactBytes page(encoded.span());
  DeltaByteArrayDecoder decoder;
  FLOE_ASSERT_OK(decoder.Reset(page.span()));
  uint8_t out[16];
  FLOE_ASSERT_OK(decoder.DecodeFixed(1, 4, out));
  FLOE_ASSERT_OK(decoder.DecodeFixed(3, 4, out + 4));
  EXPECT_EQ(std::string(reinterpret_cast<char*>(out), 16), values);
  // The same page read with the wrong width.
  FLOE_ASSERT_OK(decoder.Reset(page.span()));
  EXPECT_EQ(decoder.DecodeFixed(4, 5, out).code(), StatusCode::kCorrupt);
  // A value of the wrong length.
  auto short_value = DbaPage({0, 2}, {4, 1}, "abcdx");
  FLOE_ASSERT_OK(decoder.Reset(short_value.span()));
  EXPECT_EQ(decoder.DecodeFixed(2, 4, out).code(), StatusCode::kCorrupt);
}

TEST(DeltaByteArrayTest, RoundTripAcrossPages) {
  std::mt19937_64 rng(41);
  std::vector<size_t> sizes = EdgeSizes();
  sizes.push_back(20000);
  for (size_t n : sizes) {
    auto values = RandomStrings(n, rng, true);
    std::string text;
    auto offsets = OffsetsOf(values, &text);
    // Two pages of one column batch: the second continues the offsets.
    const size_t half = n / 2;
    Buffer page1;
    Buffer page2;
    FLOE_ASSERT_OK(EncodeDeltaByteArray(offsets.data(), Bytes(text), half, &page1));
    FLOE_ASSERT_OK(EncodeDeltaByteArray(offsets.data() + half, Bytes(text), n - half, &page2));
    Buffer data;
    std::vector<int64_t> ends(n);
    DeltaByteArrayDecoder decoder;
    ExactBytes p1(page1.span());
    FLOE_ASSERT_OK(decoder.Reset(p1.span()));
    size_t done = 0;
    while (done < half) {
      const size_t k = std::min<size_t>(half - done, 1 + rng() % 700);
      FLOE_ASSERT_OK(decoder.Decode(k, ends.data() + done, &data));
      done += k;
    }
    ExactBytes p2(page2.span());
    FLOE_ASSERT_OK(decoder.Reset(p2.span()));
    FLOE_ASSERT_OK(decoder.Decode(n - half, ends.data() + half, &data));
    ASSERT_EQ(data.view(), text);
    ASSERT_EQ(ends, std::vector<int64_t>(offsets.begin() + 1, offsets.end()));
  }
}

}  // namespace
}  // namespace floe::format::parquet
