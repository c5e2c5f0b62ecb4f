#include "floe/format/compression/codec.h"

#include <gtest/gtest.h>

#include <random>
#include <string>

#include <zlib.h>

#include "floe/base/testing.h"

namespace floe::format {
namespace {

std::string SampleData(size_t n) {
  std::mt19937 rng(42);
  std::string s;
  s.reserve(n);
  const char* words[] = {"iceberg ", "parquet ", "floe ", "avro ", "kafka "};
  while (s.size() < n) {
    s += words[rng() % 5];
    if (rng() % 7 == 0) s.push_back(static_cast<char>(rng()));
  }
  s.resize(n);
  return s;
}

std::span<const uint8_t> Bytes(const std::string& s) {
  return {reinterpret_cast<const uint8_t*>(s.data()), s.size()};
}

class CodecRoundTrip : public ::testing::TestWithParam<CompressionKind> {};

TEST_P(CodecRoundTrip, KnownAndUnknownSize) {
  auto codec = Codec::Make(GetParam());
  FLOE_ASSERT_OK(codec);
  for (size_t n : {0, 1, 100, 70000, 1 << 20}) {
    std::string input = SampleData(n);
    Buffer compressed;
    FLOE_ASSERT_OK((*codec)->Compress(Bytes(input), &compressed));
    std::string out(n, '\0');
    Status s = (*codec)->Decompress(compressed.span(), reinterpret_cast<uint8_t*>(out.data()), n);
    FLOE_ASSERT_OK(s) << " n=" << n;
    EXPECT_EQ(out, input);
    Buffer grown;
    s = (*codec)->DecompressUnknownSize(compressed.span(), &grown, n + 10);
    FLOE_ASSERT_OK(s);
    EXPECT_EQ(grown.view(), input);
    if (n > 1000) {
      // Wrong expected size and an output bound below the real size are errors.
      EXPECT_FALSE(
          (*codec)
              ->Decompress(compressed.span(), reinterpret_cast<uint8_t*>(out.data()), n - 1)
              .ok());
      Buffer small;
      EXPECT_FALSE((*codec)->DecompressUnknownSize(compressed.span(), &small, n / 2).ok());
    }
  }
}

TEST_P(CodecRoundTrip, PiecesCompressLikeTheirConcatenation) {
  auto codec = Codec::Make(GetParam());
  FLOE_ASSERT_OK(codec);
  std::string a = SampleData(3000), b, c = SampleData(100000);
  std::span<const uint8_t> pieces[3] = {Bytes(a), Bytes(b), Bytes(c)};
  Buffer compressed;
  FLOE_ASSERT_OK((*codec)->CompressPieces(pieces, &compressed));
  std::string joined = a + b + c;
  std::string out(joined.size(), '\0');
  FLOE_ASSERT_OK(
      (*codec)->Decompress(compressed.span(), reinterpret_cast<uint8_t*>(out.data()), out.size()));
  EXPECT_EQ(out, joined);
}

TEST_P(CodecRoundTrip, GarbageIsAnErrorNotACrash) {
  if (GetParam() == CompressionKind::kUncompressed) return;
  auto codec = Codec::Make(GetParam());
  std::mt19937 rng(7);
  for (int trial = 0; trial < 200; ++trial) {
    std::string junk(rng() % 300, '\0');
    for (auto& c : junk) c = static_cast<char>(rng());
    std::string out(1000, '\0');
    (void)(*codec)->Decompress(Bytes(junk), reinterpret_cast<uint8_t*>(out.data()), out.size());
    Buffer b;
    (void)(*codec)->DecompressUnknownSize(Bytes(junk), &b, 1 << 16);
  }
}

INSTANTIATE_TEST_SUITE_P(All, CodecRoundTrip,
                         ::testing::Values(CompressionKind::kUncompressed, CompressionKind::kSnappy,
                                           CompressionKind::kGzip, CompressionKind::kDeflate,
                                           CompressionKind::kZstd, CompressionKind::kLz4Raw,
                                           CompressionKind::kLz4Hadoop, CompressionKind::kLz4Frame),
                         [](const auto& info) {
                           return std::string(CompressionKindName(info.param));
                         });

TEST(CodecTest, GzipReadsZlibOutputAndMultipleMembers) {
  // zlib's compress2 writes an RFC 1950 stream, which Arrow accepts under GZIP.
  std::string input = SampleData(5000);
  uLongf len = compressBound(input.size());
  std::string z(len, '\0');
  ASSERT_EQ(compress2(reinterpret_cast<Bytef*>(z.data()), &len,
                      reinterpret_cast<const Bytef*>(input.data()), input.size(), 6),
            Z_OK);
  z.resize(len);
  auto codec = Codec::Make(CompressionKind::kGzip);
  std::string out(input.size(), '\0');
  FLOE_ASSERT_OK(
      (*codec)->Decompress(Bytes(z), reinterpret_cast<uint8_t*>(out.data()), out.size()));
  EXPECT_EQ(out, input);
  // Two gzip members concatenated decode to the concatenation.
  Buffer two;
  FLOE_ASSERT_OK((*codec)->Compress(Bytes(input), &two));
  FLOE_ASSERT_OK((*codec)->Compress(Bytes(input), &two));
  Buffer both;
  FLOE_ASSERT_OK((*codec)->DecompressUnknownSize(two.span(), &both, 1 << 20));
  EXPECT_EQ(both.view(), input + input);
}

TEST(CodecTest, ParseNames) {
  EXPECT_EQ(*ParseCompressionKind("ZSTD"), CompressionKind::kZstd);
  EXPECT_EQ(*ParseCompressionKind("lz4"), CompressionKind::kLz4Raw);
  EXPECT_EQ(*ParseCompressionKind("none"), CompressionKind::kUncompressed);
  EXPECT_FALSE(ParseCompressionKind("lzo").ok());
  EXPECT_FALSE(Codec::Make(CompressionKind::kZstd, 99).ok());
}

}  // namespace
}  // namespace floe::format
