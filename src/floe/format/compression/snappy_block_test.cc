// floe's snappy decompressor against libsnappy, the reference implementation: blocks
// libsnappy writes, hand-built blocks using every element form (including the ones
// libsnappy never writes), and damaged blocks, which both must accept or reject alike.
#include "floe/format/compression/snappy_block.h"

#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include <snappy.h>

namespace floe::format {
namespace {

std::span<const uint8_t> Bytes(const std::string& s) {
  return {reinterpret_cast<const uint8_t*>(s.data()), s.size()};
}

// What libsnappy makes of `block`: nullopt when it rejects it.
std::optional<std::string> Reference(const std::string& block) {
  size_t n = 0;
  if (!snappy::GetUncompressedLength(block.data(), block.size(), &n)) return std::nullopt;
  std::string out(n, '\0');
  if (!snappy::RawUncompress(block.data(), block.size(), out.data())) return std::nullopt;
  return out;
}

std::optional<std::string> Ours(const std::string& block) {
  size_t n = 0;
  size_t preamble = 0;
  if (!SnappyUncompressedLength(Bytes(block), &n, &preamble)) return std::nullopt;
  std::string out(n, '\0');
  if (!SnappyDecompress(Bytes(block), reinterpret_cast<uint8_t*>(out.data()), n)) {
    return std::nullopt;
  }
  return out;
}

// Inputs shaped like Parquet pages: hex hashes (short literals and copies), runs and short
// periods (overlapping copies), mixed text, and noise.
std::vector<std::string> Inputs() {
  std::mt19937_64 rng(7);
  std::vector<std::string> inputs;
  std::string hex;
  while (hex.size() < 300000) {
    hex += "0123456789abcdef"[rng() % 16];
    if (rng() % 97 == 0) hex += hex.substr(hex.size() / 2, rng() % 200);
  }
  inputs.push_back(hex);
  for (size_t period = 1; period <= 20; ++period) {
    std::string s;
    for (size_t i = 0; i < 5000 + period * 37; ++i) s += static_cast<char>('a' + i % period);
    inputs.push_back(s);
  }
  std::string noise(200000, '\0');
  for (auto& c : noise) c = static_cast<char>(rng());
  inputs.push_back(noise);
  std::string text;
  const char* words[] = {"iceberg ", "parquet ", "floe ", "snapshot-id ", "\x01\x00\x00\x00"};
  while (text.size() < 200000) text += words[rng() % 5];
  inputs.push_back(text);
  for (size_t n = 0; n < 80; ++n) inputs.push_back(hex.substr(n * 7, n));  // every tiny size
  return inputs;
}

TEST(SnappyBlockTest, DecodesWhatLibsnappyWrites) {
  for (const std::string& input : Inputs()) {
    std::string block;
    snappy::Compress(input.data(), input.size(), &block);
    auto got = Ours(block);
    ASSERT_TRUE(got.has_value()) << "input of " << input.size() << " bytes";
    EXPECT_EQ(*got, input);
  }
}

// Hand-built blocks: a varint length, then elements.
struct BlockBuilder {
  std::string bytes;
  size_t length = 0;
  void Literal(const std::string& s, int length_bytes) {  // 0: length in the tag
    const size_t n = s.size() - 1;
    if (n >= 60 && length_bytes == 0) length_bytes = 1;  // the tag holds lengths to 60
    if (length_bytes == 0) {
      bytes += static_cast<char>(n << 2);
    } else {
      bytes += static_cast<char>((59 + length_bytes) << 2);
      for (int i = 0; i < length_bytes; ++i) bytes += static_cast<char>(n >> (8 * i));
    }
    bytes += s;
    length += s.size();
  }
  void Copy(size_t offset, size_t len, int offset_bytes) {
    if (offset_bytes == 1) {
      bytes += static_cast<char>(1 | ((len - 4) << 2) | ((offset >> 8) << 5));
      bytes += static_cast<char>(offset);
    } else {
      bytes += static_cast<char>((offset_bytes == 2 ? 2 : 3) | ((len - 1) << 2));
      for (int i = 0; i < offset_bytes; ++i) bytes += static_cast<char>(offset >> (8 * i));
    }
    length += len;
  }
  std::string Finish() const {
    std::string out;
    for (size_t v = length;; v >>= 7) {
      if (v < 0x80) {
        out += static_cast<char>(v);
        break;
      }
      out += static_cast<char>(v | 0x80);
    }
    return out + bytes;
  }
};

TEST(SnappyBlockTest, EveryElementFormAndOverlapMatchesLibsnappy) {
  std::mt19937 rng(11);
  std::string seed(300, '\0');
  for (auto& c : seed) c = static_cast<char>('A' + rng() % 26);
  // Copies of every length 1-64 at offsets 1-70 (overlapping for offset < length), with
  // 2- and 4-byte offsets, and 1-byte offsets where the form allows; literals with their
  // length in the tag and in 1 to 4 extra bytes.
  for (int offset_bytes : {1, 2, 4}) {
    BlockBuilder b;
    b.Literal(seed, 2);
    for (size_t offset = 1; offset <= 70; ++offset) {
      for (size_t len = offset_bytes == 1 ? 4 : 1; len <= (offset_bytes == 1 ? 11 : 64); ++len) {
        b.Copy(offset, len, offset_bytes);
        b.Literal(seed.substr(offset % 50, 1 + len % 61), static_cast<int>(len % 5));
      }
    }
    const std::string block = b.Finish();
    auto expected = Reference(block);
    ASSERT_TRUE(expected.has_value()) << "libsnappy rejects the hand-built block";
    auto got = Ours(block);
    ASSERT_TRUE(got.has_value());
    EXPECT_EQ(*got, *expected);
  }
  // A long literal (3 length bytes) and a copy at the very end of the output (no slack).
  BlockBuilder b;
  std::string big(70000, 'x');
  for (size_t i = 0; i < big.size(); i += 13) big[i] = static_cast<char>('a' + i % 23);
  b.Literal(big, 3);
  b.Copy(65000, 64, 4);
  b.Copy(3, 5, 1);
  const std::string block = b.Finish();
  ASSERT_EQ(Ours(block), Reference(block));
  ASSERT_TRUE(Ours(block).has_value());
}

TEST(SnappyBlockTest, DamagedBlocksAreRejectedLikeLibsnappyDoes) {
  std::mt19937_64 rng(5);
  std::vector<std::string> blocks;
  for (const std::string& input : Inputs()) {
    if (input.size() > 20000 || input.empty()) continue;
    std::string block;
    snappy::Compress(input.data(), input.size(), &block);
    blocks.push_back(block);
  }
  int rejected = 0;
  int accepted = 0;
  for (int round = 0; round < 20000; ++round) {
    std::string block = blocks[rng() % blocks.size()];
    switch (rng() % 4) {
      case 0: block.resize(rng() % block.size()); break;  // truncated
      case 1: block[rng() % block.size()] ^= static_cast<char>(1 + rng() % 255); break;
      case 2: block[rng() % block.size()] = static_cast<char>(rng()); break;
      default: block += static_cast<char>(rng()); break;  // trailing byte
    }
    auto expected = Reference(block);
    auto got = Ours(block);
    ASSERT_EQ(got.has_value(), expected.has_value()) << "round " << round;
    if (got) {
      ASSERT_EQ(*got, *expected) << "round " << round;
      ++accepted;
    } else {
      ++rejected;
    }
  }
  // Both outcomes occur (a flipped literal byte still decodes; a cut block never does).
  EXPECT_GT(rejected, 1000);
  EXPECT_GT(accepted, 1000);
}

TEST(SnappyBlockTest, PreambleLimits) {
  size_t n = 0;
  size_t preamble = 0;
  const uint8_t max32[] = {0xff, 0xff, 0xff, 0xff, 0x0f};
  ASSERT_TRUE(SnappyUncompressedLength(max32, &n, &preamble));
  EXPECT_EQ(n, 0xffffffffu);
  EXPECT_EQ(preamble, 5u);
  const uint8_t over32[] = {0xff, 0xff, 0xff, 0xff, 0x10};
  EXPECT_FALSE(SnappyUncompressedLength(over32, &n, &preamble));
  const uint8_t six_bytes[] = {0x80, 0x80, 0x80, 0x80, 0x80, 0x00};
  EXPECT_FALSE(SnappyUncompressedLength(six_bytes, &n, &preamble));
  EXPECT_FALSE(SnappyUncompressedLength({}, &n, &preamble));
  // A block whose elements fall short of, or run past, the preamble's length.
  uint8_t out[8];
  const uint8_t short_block[] = {0x05, 0x08, 'a', 'b', 'c'};  // says 5, has 3
  EXPECT_FALSE(SnappyDecompress(short_block, out, 5));
  const uint8_t long_block[] = {0x02, 0x08, 'a', 'b', 'c'};  // says 2, has 3
  EXPECT_FALSE(SnappyDecompress(long_block, out, 2));
  const uint8_t zero_offset[] = {0x06, 0x04, 'a', 'b', 0x01, 0x00};
  EXPECT_FALSE(SnappyDecompress(zero_offset, out, 6));
}

// A 4-byte literal length of 0xffffffff: libsnappy adds one in 32 bits, reads an empty
// literal and accepts the block (found by fuzz_snappy). Both must agree.
TEST(SnappyBlock, LiteralLengthWrapsAs32Bits) {
  const std::string block("\x01\x00\x01\xfc\xff\xff\xff\xff", 8);
  const auto reference = Reference(block);
  ASSERT_TRUE(reference.has_value());
  EXPECT_EQ(Ours(block), reference);
  EXPECT_EQ(*reference, std::string("\x01", 1));
}

}  // namespace
}  // namespace floe::format
