// Deletion vectors: byte vectors from the spec and from pyroaring (CRoaring's portable
// serialization) with zlib's CRC-32, round trips across container kinds and keys, the
// keep-bitmap against per-row lookups, and every kind of corruption.
#include "floe/format/puffin/deletion_vector.h"

#include <cstring>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "floe/base/bytes.h"
#include "floe/base/crc.h"
#include "floe/base/testing.h"

namespace floe::format::puffin {
namespace {

std::vector<uint8_t> Unhex(std::string_view hex) {
  std::vector<uint8_t> out;
  int hi = -1;
  for (char c : hex) {
    int v;
    if (c >= '0' && c <= '9')
      v = c - '0';
    else if (c >= 'a' && c <= 'f')
      v = c - 'a' + 10;
    else
      continue;
    if (hi < 0) {
      hi = v;
    } else {
      out.push_back(static_cast<uint8_t>(hi * 16 + v));
      hi = -1;
    }
  }
  return out;
}

std::vector<uint8_t> ToVector(const Buffer& b) { return {b.data(), b.data() + b.size()}; }

// Wraps a vector in the blob framing (length, magic, CRC).
std::vector<uint8_t> Frame(const std::vector<uint8_t>& vector) {
  std::vector<uint8_t> out(vector.size() + 12);
  StoreBE<uint32_t>(out.data(), static_cast<uint32_t>(vector.size() + 4));
  const uint8_t magic[4] = {0xD1, 0xD3, 0x39, 0x64};
  std::memcpy(out.data() + 4, magic, 4);
  if (!vector.empty()) std::memcpy(out.data() + 8, vector.data(), vector.size());
  StoreBE<uint32_t>(out.data() + 8 + vector.size(), Crc32(0, out.data() + 4, vector.size() + 4));
  return out;
}

std::vector<uint8_t> Cat(std::initializer_list<std::string_view> hex) {
  std::vector<uint8_t> out;
  for (auto h : hex) {
    auto b = Unhex(h);
    out.insert(out.end(), b.begin(), b.end());
  }
  return out;
}

PositionBitmap Of(std::initializer_list<uint64_t> positions) {
  PositionBitmap b;
  for (uint64_t p : positions) FLOE_EXPECT_OK(b.Add(p));
  return b;
}

void ExpectCorrupt(const std::vector<uint8_t>& blob, std::optional<uint64_t> card = {}) {
  auto r = DeserializeDeletionVector(blob, card);
  ASSERT_THAT(r, IsError(StatusCode::kCorrupt));
}

// iceberg.md §1.8's hand-computed example for positions {0, 5}. Checked against peers:
// pyroaring 1.2.0 BitMap([0, 5]).serialize() gives the inner bitmap bytes and Python's
// zlib.crc32 over magic + vector gives 0x86d2574a.
constexpr std::string_view kSpecExample =
    "00 00 00 24  d1 d3 39 64  01 00 00 00 00 00 00 00  00 00 00 00"
    "3a 30 00 00  01 00 00 00  00 00 01 00  10 00 00 00  00 00 05 00"
    "86 d2 57 4a";

TEST(DeletionVector, SpecExampleMatchesPeer) {
  Buffer out;
  SerializeDeletionVector(Of({0, 5}), &out);
  EXPECT_EQ(ToVector(out), Unhex(kSpecExample));
  auto dv = DeserializeDeletionVector(Unhex(kSpecExample), 2);
  FLOE_ASSERT_OK(dv);
  EXPECT_EQ(dv->ToSortedVector(), (std::vector<uint64_t>{0, 5}));
  EXPECT_EQ(out.size(), 44u);
}

// pyroaring: d = BitMap(range(10) + [70000, 140000] + range(200000, 200101));
// d.run_optimize(); d.serialize(). Four containers (run, array, array, run): the run cookie
// with the run-flag bitset and, since there are 4 containers, the offsets.
constexpr std::string_view kPeerMixed =
    "3b3003000900000900010000000200000003006400250000002b0000002d0000002f000000"
    "0100000009007011e0220100400d6400";

TEST(DeletionVector, RunOptimizedContainersMatchPeer) {
  PositionBitmap b;
  FLOE_ASSERT_OK(b.AddRange(0, 10));
  FLOE_ASSERT_OK(b.Add(70000));
  FLOE_ASSERT_OK(b.Add(140000));
  FLOE_ASSERT_OK(b.AddRange(200000, 200101));
  Buffer out;
  b.SerializeVector(&out);
  EXPECT_EQ(ToVector(out), Cat({"0100000000000000", "00000000", kPeerMixed}));
  auto back = PositionBitmap::DeserializeVector(out.span());
  FLOE_ASSERT_OK(back);
  EXPECT_EQ(*back, b);
  EXPECT_EQ(back->cardinality(), 10u + 2 + 101);
}

// Built from single adds, the same positions serialize identically (runs are chosen by
// size, not by how the set was built).
TEST(DeletionVector, RunsChosenBySize) {
  PositionBitmap b;
  for (uint64_t p = 0; p < 10; ++p) FLOE_ASSERT_OK(b.Add(p));
  FLOE_ASSERT_OK(b.Add(70000));
  FLOE_ASSERT_OK(b.Add(140000));
  for (uint64_t p = 200000; p < 200101; ++p) FLOE_ASSERT_OK(b.Add(p));
  Buffer out;
  b.SerializeVector(&out);
  EXPECT_EQ(ToVector(out), Cat({"0100000000000000", "00000000", kPeerMixed}));
}

// {1, 2, 3, 7}: 2 runs (10 bytes) tie with the array (10 bytes); RoaringBitmap keeps the
// array, and so does pyroaring: BitMap([1,2,3,7]).run_optimize(); serialize().
TEST(DeletionVector, TieKeepsArray) {
  Buffer out;
  Of({1, 2, 3, 7}).SerializeVector(&out);
  EXPECT_EQ(ToVector(out), Cat({"0100000000000000", "00000000",
                                "3a3000000100000000000300100000000100020003000700"}));
}

// Dense keys as Java writes them: {2^33 + 1} has keys 0 and 1 as empty bitmaps (pyroaring
// BitMap().serialize() is 3a30000000000000).
TEST(DeletionVector, DenseKeysLikeJava) {
  Buffer out;
  Of({(uint64_t{2} << 32) + 1}).SerializeVector(&out);
  EXPECT_EQ(ToVector(out),
            Cat({"0300000000000000", "00000000 3a30000000000000", "01000000 3a30000000000000",
                 "02000000 3a3000000100000000000000100000000100"}));
  auto back = PositionBitmap::DeserializeVector(out.span());
  FLOE_ASSERT_OK(back);
  EXPECT_EQ(back->ToSortedVector(), (std::vector<uint64_t>{(uint64_t{2} << 32) + 1}));
}

// pyroaring BitMap64([5, 2**33 + 1]).serialize(): the sparse form (no key 1).
TEST(DeletionVector, ReadsSparseKeys) {
  auto blob = Frame(
      Unhex("0200000000000000000000003a3000000100000000000000100000000500020000003a300000010000000"
            "0000000100000000100"));
  auto dv = DeserializeDeletionVector(blob, 2);
  FLOE_ASSERT_OK(dv);
  EXPECT_EQ(dv->ToSortedVector(), (std::vector<uint64_t>{5, (uint64_t{2} << 32) + 1}));
}

TEST(DeletionVector, EmptyVector) {
  Buffer out;
  SerializeDeletionVector(PositionBitmap(), &out);
  EXPECT_EQ(ToVector(out), Frame(Unhex("0000000000000000")));
  auto dv = DeserializeDeletionVector(out.span(), 0);
  FLOE_ASSERT_OK(dv);
  EXPECT_TRUE(dv->empty());
}

TEST(PositionBitmap, AddContainsAcrossKeys) {
  PositionBitmap b;
  const uint64_t k32 = uint64_t{1} << 32;
  for (uint64_t p : {uint64_t{0}, uint64_t{65535}, uint64_t{65536}, k32 - 1, k32, k32 + 5,
                     PositionBitmap::kMaxPosition}) {
    FLOE_ASSERT_OK(b.Add(p));
  }
  FLOE_ASSERT_OK(b.Add(k32 + 5));  // duplicate
  EXPECT_EQ(b.cardinality(), 7u);
  EXPECT_TRUE(b.Contains(k32 + 5));
  EXPECT_FALSE(b.Contains(5));
  EXPECT_FALSE(b.Contains(k32 + 6));
  EXPECT_TRUE(b.Contains(PositionBitmap::kMaxPosition));
  EXPECT_EQ(b.Add(PositionBitmap::kMaxPosition + 1).code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(b.Add(uint64_t{1} << 63).code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(b.AddRange(10, PositionBitmap::kMaxPosition + 2).code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(b.ToSortedVector(), (std::vector<uint64_t>{0, 65535, 65536, k32 - 1, k32, k32 + 5,
                                                       PositionBitmap::kMaxPosition}));
  EXPECT_EQ(b.Max(), PositionBitmap::kMaxPosition);
}

// A model drives adds, ranges and merges; every container kind arises (sparse arrays,
// >4096-value bitmaps, full and partial runs) over three 32-bit keys. The model is one byte
// per position from 2^17 below each key's start to 2^20 above it (every position used lies
// there, and windows cross from one key into the next contiguously): plain stores and
// scans, quick even in the unoptimised sanitizer build, where a std::set of millions of
// positions took minutes.
TEST(PositionBitmap, RandomAgainstSetModel) {
  constexpr uint64_t kBelow = uint64_t{1} << 17;
  constexpr uint64_t kSpan = kBelow + (uint64_t{1} << 20);
  auto slot = [&](uint64_t p) {
    const uint64_t key = (p + kBelow) >> 32, off = (p + kBelow) & 0xFFFFFFFFu;
    EXPECT_LT(key, 3u);
    EXPECT_LT(off, kSpan);
    return static_cast<size_t>(key * kSpan + off);
  };
  std::mt19937_64 rng(7);
  for (int round = 0; round < 20; ++round) {
    PositionBitmap a;
    PositionBitmap other;
    std::vector<uint8_t> model(3 * kSpan, 0);
    auto base_for = [&](int i) {
      return (uint64_t{static_cast<uint64_t>(i % 3)} << 32) + (rng() % 4) * 65536;
    };
    for (int op = 0; op < 200; ++op) {
      const uint64_t base = base_for(op);
      PositionBitmap& target = (op % 5 == 0) ? other : a;
      switch (rng() % 4) {
        case 0:
        case 1: {
          const uint64_t p = base + rng() % 70000;
          FLOE_ASSERT_OK(target.Add(p));
          model[slot(p)] = 1;
          break;
        }
        case 2: {
          const uint64_t s = base + rng() % 70000;
          const uint64_t len = rng() % 3 == 0 ? rng() % 140000 : rng() % 100;
          FLOE_ASSERT_OK(target.AddRange(s, s + len));
          if (len > 0) {
            slot(s + len - 1);  // checks the range stays inside the model
            std::memset(model.data() + slot(s), 1, len);
          }
          break;
        }
        case 3: {
          const uint64_t s = base + rng() % 1000;
          for (uint64_t p = s; p < s + 9000; p += 2) {
            FLOE_ASSERT_OK(target.Add(p));
            model[slot(p)] = 1;
          }
          break;
        }
      }
    }
    std::vector<uint64_t> expected;
    for (size_t i = 0; i < model.size(); ++i) {
      if (model[i]) expected.push_back(((i / kSpan) << 32) + i % kSpan - kBelow);
    }
    a.Merge(other);
    ASSERT_EQ(a.cardinality(), expected.size());
    ASSERT_EQ(a.ToSortedVector(), expected);
    ASSERT_EQ(a.Max(), expected.back());
    for (int i = 0; i < 2000; ++i) {
      const uint64_t p = base_for(i) + rng() % 140000;
      ASSERT_EQ(a.Contains(p), model[slot(p)] == 1) << p;
    }
    Buffer blob;
    SerializeDeletionVector(a, &blob);
    auto back = DeserializeDeletionVector(blob.span(), expected.size());
    FLOE_ASSERT_OK(back);
    ASSERT_EQ(*back, a);
    // Serialization is canonical: the decoded set encodes to the same bytes.
    Buffer again;
    SerializeDeletionVector(*back, &again);
    ASSERT_EQ(ToVector(again), ToVector(blob));

    // Keep-bitmaps over windows crossing container and key boundaries.
    for (int w = 0; w < 50; ++w) {
      uint64_t first = base_for(w) + rng() % 140000;
      if (w % 7 == 0 && first >= 70000) first -= 70000;
      const uint64_t n = 1 + rng() % 100000;
      std::vector<uint8_t> keep((n + 7) / 8 + 1, 0xAB);
      const uint64_t deleted = a.FillKeepBitmap(first, n, keep.data());
      // The expected bitmap: bit i set when first + i is kept; bits past n clear.
      std::vector<uint8_t> expected_keep((n + 7) / 8, 0);
      uint64_t expected_deleted = 0;
      const uint8_t* in_model = model.data() + slot(first);
      slot(first + n - 1);
      for (uint64_t i = 0; i < n; ++i) {
        expected_deleted += in_model[i];
        expected_keep[i / 8] |= static_cast<uint8_t>((in_model[i] ^ 1) << (i % 8));
      }
      ASSERT_EQ(std::memcmp(keep.data(), expected_keep.data(), expected_keep.size()), 0)
          << "window at " << first << " of " << n;
      ASSERT_EQ(keep.back(), 0xAB);  // nothing written past the bitmap
      ASSERT_EQ(deleted, expected_deleted);
    }
  }
}

TEST(PositionBitmap, FullContainersAndLargeRanges) {
  PositionBitmap b;
  const uint64_t k32 = uint64_t{1} << 32;
  FLOE_ASSERT_OK(b.AddRange(k32 - 100000, k32 + 5));
  EXPECT_EQ(b.cardinality(), 100005u);
  EXPECT_TRUE(b.Contains(k32 + 4));
  EXPECT_FALSE(b.Contains(k32 + 5));
  EXPECT_TRUE(b.Contains(k32 - 100000));
  EXPECT_FALSE(b.Contains(k32 - 100001));
  FLOE_ASSERT_OK(b.Add(k32 - 50000));  // inside a full container: no change
  EXPECT_EQ(b.cardinality(), 100005u);
  Buffer blob;
  SerializeDeletionVector(b, &blob);
  // Runs keep it small: 2 keys, each a handful of run containers.
  EXPECT_LT(blob.size(), 200u);
  auto back = DeserializeDeletionVector(blob.span(), 100005);
  FLOE_ASSERT_OK(back);
  EXPECT_EQ(*back, b);
  std::vector<uint8_t> keep(2);
  EXPECT_EQ(b.FillKeepBitmap(k32 + 1, 10, keep.data()), 4u);
  EXPECT_EQ(keep[0], 0xF0);
  EXPECT_EQ(keep[1], 0x03);
}

TEST(PositionBitmap, FillKeepBitmapEdges) {
  PositionBitmap b = Of({3, PositionBitmap::kMaxPosition});
  std::vector<uint8_t> keep(1);
  EXPECT_EQ(b.FillKeepBitmap(0, 0, keep.data()), 0u);
  EXPECT_EQ(b.FillKeepBitmap(PositionBitmap::kMaxPosition - 2, 8, keep.data()), 1u);
  EXPECT_EQ(keep[0], 0xFB);
  EXPECT_EQ(b.FillKeepBitmap(UINT64_MAX - 3, 4, keep.data()), 0u);
  EXPECT_EQ(keep[0], 0x0F);
}

class DeletionVectorCorruption : public ::testing::Test {
 protected:
  // {5, 70000, 2^32 + 1}.
  std::vector<uint8_t> Valid() {
    Buffer out;
    SerializeDeletionVector(Of({5, 70000, (uint64_t{1} << 32) + 1}), &out);
    return ToVector(out);
  }
};

TEST_F(DeletionVectorCorruption, EveryTruncation) {
  auto blob = Valid();
  FLOE_ASSERT_OK(DeserializeDeletionVector(blob, 3));
  for (size_t n = 0; n < blob.size(); ++n) {
    ExpectCorrupt(std::vector<uint8_t>(blob.begin(), blob.begin() + n));
  }
}

TEST_F(DeletionVectorCorruption, FramingErrors) {
  auto blob = Valid();
  auto bad_magic = blob;
  bad_magic[5] ^= 1;
  ExpectCorrupt(bad_magic);
  auto bad_crc = blob;
  bad_crc.back() ^= 1;
  ExpectCorrupt(bad_crc);
  auto bad_length = blob;
  bad_length[3] += 1;
  ExpectCorrupt(bad_length);
  auto trailing = blob;
  trailing.push_back(0);
  ExpectCorrupt(trailing);
  ExpectCorrupt(blob, 2);  // cardinality mismatch
  ExpectCorrupt(blob, 4);
}

TEST_F(DeletionVectorCorruption, EverySingleByteChange) {
  auto blob = Valid();
  for (size_t i = 0; i < blob.size(); ++i) {
    for (uint8_t x : {0x01, 0x80, 0xFF}) {
      auto bad = blob;
      bad[i] ^= x;
      ExpectCorrupt(bad);  // the CRC or the framing catches it
    }
  }
}

// The vector is valid under its CRC but its content is not: the decoder must catch it.
TEST_F(DeletionVectorCorruption, VectorContent) {
  const std::string one = "3a3000000100000000000000100000000500";  // bitmap {5}
  // Keys out of order, duplicated, too large.
  ExpectCorrupt(Frame(Cat({"0200000000000000", "01000000", one, "00000000", one})));
  ExpectCorrupt(Frame(Cat({"0200000000000000", "01000000", one, "01000000", one})));
  ExpectCorrupt(Frame(Cat({"0100000000000000", "ffffff7f", one})));
  ExpectCorrupt(Frame(Cat({"0100000000000000", "00000080", one})));
  FLOE_EXPECT_OK(DeserializeDeletionVector(Frame(Cat({"0100000000000000", "feffff7f", one}))));
  // Counts far beyond the bytes.
  ExpectCorrupt(Frame(Cat({"ffffffffffffffff", "00000000", one})));
  ExpectCorrupt(Frame(Cat({"0200000000000000", "00000000", one})));
  ExpectCorrupt(Frame(Cat({"0000000000000000", "00000000", one})));  // trailing bytes
  // Bad cookie; container count beyond 65536; huge count in a short buffer.
  ExpectCorrupt(
      Frame(Cat({"0100000000000000", "00000000", "3c3000000100000000000000100000000500"})));
  ExpectCorrupt(Frame(Cat({"0100000000000000", "00000000", "3a30000001000100"})));
  ExpectCorrupt(Frame(Cat({"0100000000000000", "00000000", "3a300000ffff0000"})));
  // Array values not ascending; card says 2 but holds 1 value's bytes.
  ExpectCorrupt(
      Frame(Cat({"0100000000000000", "00000000", "3a30000001000000000001001000000005000500"})));
  ExpectCorrupt(
      Frame(Cat({"0100000000000000", "00000000", "3a30000001000000000001001000000005000400"})));
  ExpectCorrupt(
      Frame(Cat({"0100000000000000", "00000000", "3a300000010000000000010010000000050000"})));
  // Container offset that does not match.
  ExpectCorrupt(
      Frame(Cat({"0100000000000000", "00000000", "3a3000000100000000000000110000000500"})));
  // Container keys not ascending inside one bitmap.
  ExpectCorrupt(Frame(Cat({"0100000000000000", "00000000",
                           "3a300000020000000100000000000000180000001a00000005000500"})));
  // Run containers: valid {0..9}; run past 65535; overlapping runs; zero runs; wrong card.
  FLOE_EXPECT_OK(DeserializeDeletionVector(
      Frame(Cat({"0100000000000000", "00000000", "3b30000001000009000100000009 00"})), 10));
  ExpectCorrupt(
      Frame(Cat({"0100000000000000", "00000000", "3b300000 01 0000 0900 0100 feff 0900"})));
  ExpectCorrupt(Frame(
      Cat({"0100000000000000", "00000000", "3b300000 01 0000 1300 0200 0000 0900 0500 0900"})));
  ExpectCorrupt(Frame(Cat({"0100000000000000", "00000000", "3b30000001000009000000"})));
  ExpectCorrupt(Frame(Cat({"0100000000000000", "00000000", "3b30000001000008000100000009 00"})));
  // Adjacent runs are accepted and merged ({0..4} + {5..9}).
  auto adjacent = DeserializeDeletionVector(
      Frame(Cat({"0100000000000000", "00000000", "3b30000001000009000200000004000500 0400"})), 10);
  FLOE_ASSERT_OK(adjacent);
  EXPECT_TRUE(adjacent->Contains(9));
  // A bitmap container whose population count differs from its header (4097 claimed).
  std::string bitmap_hex = "3a30000001000000000000101000000001" + std::string(16382, '0');
  ExpectCorrupt(Frame(Cat({"0100000000000000", "00000000", bitmap_hex})));
}

}  // namespace
}  // namespace floe::format::puffin
