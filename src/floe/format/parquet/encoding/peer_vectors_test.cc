// Pages written by a peer: pyarrow 26.0.1 (Arrow C++ parquet writer). Each constant below is
// the values section of a data page (or a dictionary page) copied from a file written with
//
//   pq.write_table(table, path, compression='NONE', use_dictionary=False,
//                  column_encoding={col: ENCODING})           # or the options named below
//
// where `table` has one column (REQUIRED unless said otherwise, so the page body is the values
// alone) holding the values listed next to the constant, one row group and one data page. The
// page body was cut out by walking the column chunk from data_page_offset (or
// dictionary_page_offset): PageHeader (Thrift compact) then compressed_page_size bytes. The
// decoders must reproduce the inputs; our encoders' output must decode to the same values.
#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "floe/base/testing.h"
#include "floe/format/parquet/encoding/bloom_filter.h"
#include "floe/format/parquet/encoding/byte_stream_split.h"
#include "floe/format/parquet/encoding/delta.h"
#include "floe/format/parquet/encoding/dictionary.h"
#include "floe/format/parquet/encoding/levels.h"
#include "floe/format/parquet/encoding/plain.h"
#include "floe/format/parquet/encoding/test_util.h"

namespace floe::format::parquet {
namespace {

using testing::ExactBytes;
using testing::Hex;
using testing::ToHex;

// int32, DELTA_BINARY_PACKED:
//   v = [(i * i * 7919) % 100003 - 50000 for i in range(300)]
//   v[10] = -2**31; v[11] = 2**31 - 1; v[200] = 2**31 - 1; v[201] = -2**31
// int64, DELTA_BINARY_PACKED (Arrow uses 256-value blocks for INT64):
//   [-2**63, 2**63 - 1, 0, -1, 1, 2**63 - 1, -2**63] + [1000 * i - 3 * i * i for i in range(190)]
// binary, DELTA_LENGTH_BYTE_ARRAY:
//   ['Hello', 'World', 'Foobar', 'ABCDEF', '', 'a', 'ab', 'abc', 'abd', 'x' * 40, 'y']
// binary, DELTA_BYTE_ARRAY:
//   ['axis', 'axle', 'babble', 'babyhood', 'baby', '', 'zebra', 'zebras', 'zeal', 'zeal']
// binary(4), DELTA_BYTE_ARRAY:
//   [b'abcd', b'abce', b'abce', b'zzzz', b'zzaa', b'\x00\x01\x02\x03']
// float32 and float64, BYTE_STREAM_SPLIT:
//   [1.5, -2.25, 0.0, -0.0, 3.0e38, 1.0e-40, inf]
// binary(3), BYTE_STREAM_SPLIT: [b'abc', b'def', b'\x00\xff\x10']
// bool, RLE (kRleBool) and PLAIN (kPlainBool):
//   [True] * 20 + [False, True, False, False, True, True, True, False, True] + [False] * 9
// string, use_dictionary=True: the PLAIN dictionary page, then the RLE_DICTIONARY page of
//   ['red', 'green', 'blue', 'red' x 9, 'green', 'blue', 'violet', 'red']
// OPTIONAL int32 (def levels, max 1), data page v1 and data_page_version='2.0':
//   [1, None, 2, None, None, 3] + [4] * 12 + [None] * 3
// OPTIONAL list<OPTIONAL int32> (rep max 1, def max 3), data page v1:
//   [[1, 2], [], None, [3], [None, 4, 5]]
constexpr std::string_view kDbp32 =
    "800104ac029f8d06f9f9feff0f202020206cfdff7f4a3b0080287900806330ff7fe4f400801facff7ffde9ff7f38a1"
    "fe"
    "7fb9650080000000007cdeff7f9db8ffff8ed6ff7f6c1400804a5200808509ff7f06ce00804185ff7f1fc3ff7ffd00"
    "00"
    "80db3e008016f6fe7f97ba0080d271ff7fb0afff7f8eedff7f6c2b0080a7e2fe7f28a70080635eff7f419cff7f1fda"
    "ff"
    "7ffd170080db550080160dff7f97d10080d288ff7fb0c6ff7f8e0400806c420080a7f9fe7f28be00806375ff7f41b3"
    "ff"
    "7f1ff1ff7ffd2e0080db6c00801624ff7ff461ff7f75260180b0ddff7feb94fe7f6c5900804a970080854eff7f638c"
    "ff"
    "7f41caff7f1f080080fd45008038fdfe7fb9c10080f478ff7fd2b6ff7fb0f4ff7f8e3200806c700080a727ff7f8565"
    "ff"
    "7f63a3ff7f41e1ff7f1f1f0080fd5c0080db9a00801652ff7ff48fff7fd2cdff7fb00b00808e490080c900ff7f4ac5"
    "00"
    "80857cff7f63baff7f41f8ff7f1f3600805aedfe7fdbb100801669ff7ff4a6ff7fd2e4ff7fb02200808e600080c917"
    "ff"
    "7f4adc00808593ff7f63d1ff7f410f00807cc6fe7ffd8a00803842ff7fb9060180f4bdff7fd2fbff7f0db3fe7f8e77"
    "00"
    "80c92eff7f4af3008085aaff7f63e8ff7f412600807cddfe7ffda100803859ff7f1697ff7ff4d4ff7fd2120080b050"
    "00"
    "808e8e0080c945ff7fa783ff7f85c1ff7f63ffff7f413d00807cf4fe7ffdb800803870ff7f16aeff7ff4ebff7fd229"
    "00"
    "80d7880b121220125feb698ab271a69547345c4968d61485738509cd9c2b84f62c000081c47d09a8990bde3df9bbd2"
    "cc"
    "f5a602bc7b2ba6b0aa791e52f157a39d7953f195a126341b955a3145a3d85b10f005aef4c21ae8394ec57601b81028"
    "df"
    "178c9ae7e0956435164d686f58c073b8420d2ba6e74f15370650446082bcc068fab331ac955e913148d8d7d48a739c"
    "09"
    "299d9b554c1a001781200200bcd700009a150100785301005691010034cf0100120d020059c200802d620100fbe100"
    "80"
    "e77d0100c5bb0100a3f90100deb00000bcee00003db30200786a0100b321000034e601006f9d0000f06102002b1901"
    "00"
    "09570100e7940100c5d20100008a0000814e0200bc0501009a4301007881010056bf010091760000123b36c9b30253"
    "82"
    "5be7ab898c317aa2b737bc1cf5845b1d8195753414be2dd394d0ca5109859d0b570c20002edef5f0cea41917de6b56"
    "ed"
    "459222916613482b5e2570463445f185a5c00b12120000e7dc146b64f4adf7035fd4f54888978cd541d7cb4a0cd6a4"
    "83"
    "b37f09b628ea591cd3e85b81adf192d193221e38f9a4d270f53601fc75ce15263473ae10dab300000412f725a0662e"
    "1b"
    "7e5ad5443397446c4d6838b39840ce7948c55f8d7616b81d0000000000000000000000000000000000000000000000"
    "00"
    "0000000000000000000000000000000000000000000000";

constexpr std::string_view kDbp64 =
    "800204c501ffffffffffffffffff01ffffffffffffffffff014040403fffffffffffffff7f0100000000000000ffff"
    "ff"
    "ffffffff7f0200000000000080feffffffffffffff01000000000000800000000000000000e503000000000080df03"
    "00"
    "0000000080d903000000000080d303000000000080cd03000000000080c703000000000080c103000000000080bb03"
    "00"
    "0000000080b503000000000080af03000000000080a903000000000080a3030000000000809d030000000000809703"
    "00"
    "000000008091030000000000808b0300000000008085030000000000807f0300000000008079030000000000807303"
    "00"
    "00000000806d03000000000080670300000000008061030000000000805b0300000000008055030000000000804f03"
    "00"
    "0000000080490300000000008043030000000000803d03000000000080370300000000008031030000000000802b03"
    "00"
    "000000008025030000000000801f03000000000080190300000000008013030000000000800d030000000000800703"
    "00"
    "00000000800103000000000080fb02000000000080f502000000000080ef02000000000080e902000000000080e302"
    "00"
    "0000000080dd02000000000080d702000000000080d102000000000080cb02000000000080c502000000000080bf02"
    "00"
    "0000000080b902000000000080b302000000000080ad02000000000080a702000000000080a1020000000000809b02"
    "00"
    "000000008095020000000000808f02000000000080890200000000008083020000000000807d020000000000807702"
    "00"
    "000000008071020000000000806b0200000000008065020000000000805f0200000000008059020000000000805302"
    "00"
    "00000000804d02000000000080470200000000008041020000000000803b0200000000008035020000000000802f02"
    "00"
    "0000000080290200000000008023020000000000801d02000000000080170200000000008011020000000000800b02"
    "00"
    "00000000800502000000000080ff01000000000080f901000000000080f301000000000080ed01000000000080e701"
    "00"
    "0000000080e101000000000080db01000000000080d501000000000080cf01000000000080c901000000000080c301"
    "00"
    "0000000080bd01000000000080b701000000000080b101000000000080ab01000000000080a5010000000000809f01"
    "00"
    "0000000080990100000000008093010000000000808d01000000000080870100000000008081010000000000807b01"
    "00"
    "000000008075010000000000806f01000000000080690100000000008063010000000000805d010000000000805701"
    "00"
    "000000008051010000000000804b0100000000008045010000000000803f0100000000008039010000000000803301"
    "00"
    "00000000802d01000000000080270100000000008021010000000000801b0100000000008015010000000000800f01"
    "00"
    "000000008009010000000000800301000000000080fd00000000000080f700000000000080f100000000000080eb00"
    "00"
    "0000000080e500000000000080df00000000000080d900000000000080d300000000000080cd00000000000080c700"
    "00"
    "0000000080c100000000000080bb00000000000080b500000000000080af00000000000080a900000000000080a300"
    "00"
    "00000000809d00000000000080970000000000008091000000000000808b0000000000008085000000000000807f00"
    "00"
    "0000000080790000000000008073000000000000806d00000000000080670000000000008061000000000000805b00"
    "00"
    "000000008055000000000000804f00000000000080490000000000008043000000000000803d000000000000803700"
    "00"
    "000000008031000000000000802b0000000000008025000000000000801f0000000000008019000000000000801300"
    "00"
    "00000000800d0000000000008007000000000000800100000000000080fbffffffffffff7ff5ffffffffffff7fefff"
    "ff"
    "ffffffff7fe9ffffffffffff7fe3ffffffffffff7fddffffffffffff7fd7ffffffffffff7fd1ffffffffffff7fcbff"
    "ff"
    "ffffffff7fc5ffffffffffff7fbfffffffffffff7fb9ffffffffffff7fb3ffffffffffff7fadffffffffffff7fa7ff"
    "ff"
    "ffffffff7fa1ffffffffffff7f9bffffffffffff7f95ffffffffffff7f8fffffffffffffffc4ffffffffffffffe0ff"
    "ff"
    "ffffffffbfefffffffffffff0f00000000000000000000000000000000000000000000000000000000000000000000"
    "00"
    "0000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
    "00"
    "0000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
    "00"
    "0000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
    "00"
    "0000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
    "00"
    "0000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
    "00"
    "0000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
    "00"
    "0000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
    "00"
    "0000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
    "00"
    "0000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
    "00"
    "0000000000";

constexpr std::string_view kDlba =
    "8001040b0a4d0700000027d4298442a14e4c000000000000000000000000000000000000000048656c6c6f576f726c"
    "64"
    "466f6f6261724142434445466161626162636162647878787878787878787878787878787878787878787878787878"
    "78"
    "7878787878787878787878787879";

constexpr std::string_view kDba =
    "8001040a000704000000265740190600000000000000000000008001040a0809040000009304a56103000000000000"
    "00"
    "00000000617869736c65626162626c6579686f6f647a6562726173616c";

constexpr std::string_view kDbaFlba =
    "800104060007030000002f2c0000000000000000000080010406080503000000d05300000000000000000000616263"
    "64"
    "657a7a7a7a616100010203";

constexpr std::string_view kBssFloat = "00000000e6c20000000000b11600c01000006101803fc000807f007f";

constexpr std::string_view kBssDouble =
    "000000008a9c0000000000f257000000000021770000000000bf2700000000003c260000000000366c00f8020000ec"
    "a1"
    "f03fc0008047377f";

constexpr std::string_view kBssFlba3 = "6164006265ff636610";

constexpr std::string_view kRleBool = "06000000280107720100";

constexpr std::string_view kPlainBool = "ffff2f1700";

constexpr std::string_view kDictPage =
    "0300000072656405000000677265656e04000000626c75650600000076696f6c6574";

constexpr std::string_view kDictIndices = "020524000039";

constexpr std::string_view kOptionalV1 =
    "0600000003e51401060001000000020000000300000004000000040000000400000004000000040000000400000004"
    "00"
    "00000400000004000000040000000400000004000000";

constexpr std::string_view kOptionalV2 =
    "03e5140106000100000002000000030000000400000004000000040000000400000004000000040000000400000004"
    "00"
    "000004000000040000000400000004000000";

constexpr std::string_view kListV1 =
    "0200000003c203000000031ffb0100000002000000030000000400000005000000";

std::vector<int32_t> Dbp32Values() {
  std::vector<int32_t> v;
  for (int64_t i = 0; i < 300; ++i)
    v.push_back(static_cast<int32_t>((i * i * 7919) % 100003 - 50000));
  v[10] = std::numeric_limits<int32_t>::min();
  v[11] = std::numeric_limits<int32_t>::max();
  v[200] = std::numeric_limits<int32_t>::max();
  v[201] = std::numeric_limits<int32_t>::min();
  return v;
}

std::vector<int64_t> Dbp64Values() {
  constexpr int64_t kMin = std::numeric_limits<int64_t>::min();
  constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
  std::vector<int64_t> v = {kMin, kMax, 0, -1, 1, kMax, kMin};
  for (int64_t i = 0; i < 190; ++i) v.push_back(1000 * i - 3 * i * i);
  return v;
}

template <typename T>
std::vector<T> DecodeDbp(std::span<const uint8_t> page, size_t n, size_t batch) {
  DeltaBinaryPackedDecoder<T> decoder;
  FLOE_EXPECT_OK(decoder.Reset(page));
  EXPECT_EQ(decoder.total_count(), n);
  EXPECT_EQ(*decoder.EncodedSize(), page.size());
  std::vector<T> out(n);
  for (size_t done = 0; done < n;) {
    const size_t k = std::min(batch, n - done);
    FLOE_EXPECT_OK(decoder.Decode(out.data() + done, k));
    done += k;
  }
  return out;
}

TEST(PeerVectorsTest, DeltaBinaryPacked) {
  ExactBytes p32(Hex(kDbp32));
  const auto v32 = Dbp32Values();
  for (size_t batch : {1, 31, 32, 300}) EXPECT_EQ(DecodeDbp<int32_t>(p32.span(), 300, batch), v32);
  Buffer ours32;
  EncodeDeltaBinaryPacked(v32.data(), v32.size(), &ours32);
  // Same block layout as Arrow for INT32 (128 / 4), so the bytes are the same.
  EXPECT_EQ(ToHex(ours32.span()), ToHex(p32.span()));

  ExactBytes p64(Hex(kDbp64));
  const auto v64 = Dbp64Values();
  for (size_t batch : {1, 64, 197}) EXPECT_EQ(DecodeDbp<int64_t>(p64.span(), 197, batch), v64);
  Buffer ours64;
  EncodeDeltaBinaryPacked(v64.data(), v64.size(), &ours64);
  EXPECT_EQ(DecodeDbp<int64_t>(ours64.span(), 197, 197), v64);
}

struct Strings {
  std::string text;
  std::vector<int64_t> offsets = {0};
  explicit Strings(const std::vector<std::string>& values) {
    for (const auto& v : values) {
      text += v;
      offsets.push_back(static_cast<int64_t>(text.size()));
    }
  }
  const uint8_t* data() const { return reinterpret_cast<const uint8_t*>(text.data()); }
  size_t size() const { return offsets.size() - 1; }
};

const std::vector<std::string> kDlbaValues = {
    "Hello", "World", "Foobar", "ABCDEF", "", "a", "ab", "abc", "abd", std::string(40, 'x'), "y"};
const std::vector<std::string> kDbaValues = {"axis", "axle",  "babble", "babyhood", "baby",
                                             "",     "zebra", "zebras", "zeal",     "zeal"};

TEST(PeerVectorsTest, DeltaLengthByteArray) {
  const Strings expected(kDlbaValues);
  ExactBytes page(Hex(kDlba));
  DeltaLengthByteArrayDecoder decoder;
  FLOE_ASSERT_OK(decoder.Reset(page.span()));
  Buffer data;
  std::vector<int64_t> ends(expected.size());
  FLOE_ASSERT_OK(decoder.Decode(4, ends.data(), &data));
  FLOE_ASSERT_OK(decoder.Decode(7, ends.data() + 4, &data));
  EXPECT_EQ(data.view(), expected.text);
  EXPECT_EQ(ends, std::vector<int64_t>(expected.offsets.begin() + 1, expected.offsets.end()));
  Buffer ours;
  FLOE_ASSERT_OK(
      EncodeDeltaLengthByteArray(expected.offsets.data(), expected.data(), expected.size(), &ours));
  EXPECT_EQ(ToHex(ours.span()), ToHex(page.span()));
}

TEST(PeerVectorsTest, DeltaByteArray) {
  const Strings expected(kDbaValues);
  ExactBytes page(Hex(kDba));
  DeltaByteArrayDecoder decoder;
  FLOE_ASSERT_OK(decoder.Reset(page.span()));
  Buffer data;
  std::vector<int64_t> ends(expected.size());
  FLOE_ASSERT_OK(decoder.Decode(3, ends.data(), &data));
  FLOE_ASSERT_OK(decoder.Decode(7, ends.data() + 3, &data));
  EXPECT_EQ(data.view(), expected.text);
  EXPECT_EQ(ends, std::vector<int64_t>(expected.offsets.begin() + 1, expected.offsets.end()));
  Buffer ours;
  FLOE_ASSERT_OK(
      EncodeDeltaByteArray(expected.offsets.data(), expected.data(), expected.size(), &ours));
  EXPECT_EQ(ToHex(ours.span()), ToHex(page.span()));

  const std::string fixed("abcdabceabcezzzzzzaa\x00\x01\x02\x03", 24);
  ExactBytes flba(Hex(kDbaFlba));
  FLOE_ASSERT_OK(decoder.Reset(flba.span()));
  uint8_t out[24];
  FLOE_ASSERT_OK(decoder.DecodeFixed(6, 4, out));
  EXPECT_EQ(std::string(reinterpret_cast<char*>(out), 24), fixed);
  Buffer ours_fixed;
  EncodeDeltaByteArrayFixed(reinterpret_cast<const uint8_t*>(fixed.data()), 6, 4, &ours_fixed);
  EXPECT_EQ(ToHex(ours_fixed.span()), ToHex(flba.span()));
}

TEST(PeerVectorsTest, ByteStreamSplit) {
  const std::vector<double> values = {
      1.5, -2.25, 0.0, -0.0, 3.0e38, 1.0e-40, std::numeric_limits<double>::infinity()};
  ExactBytes f32(Hex(kBssFloat));
  ByteStreamSplitDecoder decoder;
  FLOE_ASSERT_OK(decoder.Reset(f32.span(), 4));
  ASSERT_EQ(decoder.num_values(), values.size());
  std::vector<float> floats(values.size());
  FLOE_ASSERT_OK(decoder.Decode(reinterpret_cast<uint8_t*>(floats.data()), floats.size()));
  for (size_t i = 0; i < values.size(); ++i) {
    EXPECT_EQ(std::bit_cast<uint32_t>(floats[i]),
              std::bit_cast<uint32_t>(static_cast<float>(values[i])))
        << i;
  }
  Buffer ours;
  EncodeByteStreamSplit(reinterpret_cast<const uint8_t*>(floats.data()), floats.size(), 4, &ours);
  EXPECT_EQ(ToHex(ours.span()), ToHex(f32.span()));

  ExactBytes f64(Hex(kBssDouble));
  FLOE_ASSERT_OK(decoder.Reset(f64.span(), 8));
  std::vector<double> doubles(values.size());
  FLOE_ASSERT_OK(decoder.Decode(reinterpret_cast<uint8_t*>(doubles.data()), 3));
  FLOE_ASSERT_OK(decoder.Decode(reinterpret_cast<uint8_t*>(doubles.data() + 3), 4));
  for (size_t i = 0; i < values.size(); ++i) {
    EXPECT_EQ(std::bit_cast<uint64_t>(doubles[i]), std::bit_cast<uint64_t>(values[i])) << i;
  }

  ExactBytes flba(Hex(kBssFlba3));
  FLOE_ASSERT_OK(decoder.Reset(flba.span(), 3));
  uint8_t out[9];
  FLOE_ASSERT_OK(decoder.Decode(out, 3));
  EXPECT_EQ(ToHex(out), "61 62 63 64 65 66 00 ff 10");
}

std::vector<uint8_t> Bools() {
  std::vector<uint8_t> v(20, 1);
  for (int b : {0, 1, 0, 0, 1, 1, 1, 0, 1}) v.push_back(static_cast<uint8_t>(b));
  v.insert(v.end(), 9, 0);
  return v;
}

TEST(PeerVectorsTest, Booleans) {
  const auto expected = Bools();
  ExactBytes rle(Hex(kRleBool));
  auto decoder = MakeRleBooleanDecoder(rle.span());
  FLOE_ASSERT_OK(decoder);
  std::vector<uint8_t> out(expected.size());
  ASSERT_EQ(*decoder->GetBatch(out.data(), out.size()), out.size());
  EXPECT_EQ(out, expected);
  Buffer ours_rle;
  EncodeRleBooleans(expected.data(), expected.size(), &ours_rle);
  EXPECT_EQ(ToHex(ours_rle.span()), ToHex(rle.span()));

  ExactBytes plain(Hex(kPlainBool));
  PlainBooleanDecoder plain_decoder;
  plain_decoder.Reset(plain.span());
  FLOE_ASSERT_OK(plain_decoder.Decode(out.data(), out.size()));
  EXPECT_EQ(out, expected);
  Buffer ours_plain;
  EncodePlainBooleans(expected.data(), expected.size(), &ours_plain);
  EXPECT_EQ(ToHex(ours_plain.span()), ToHex(plain.span()));
}

TEST(PeerVectorsTest, Dictionary) {
  ExactBytes dict_page(Hex(kDictPage));
  PlainByteArrayDecoder dict_decoder;
  dict_decoder.Reset(dict_page.span());
  Buffer dict_data;
  int64_t dict_offsets[5] = {0};
  FLOE_ASSERT_OK(dict_decoder.Decode(4, dict_offsets + 1, &dict_data));
  EXPECT_EQ(dict_data.view(), "redgreenblueviolet");

  ExactBytes index_page(Hex(kDictIndices));
  DictionaryIndexDecoder decoder;
  FLOE_ASSERT_OK(decoder.Reset(index_page.span(), 4));
  Buffer data;
  int64_t ends[16];
  FLOE_ASSERT_OK(decoder.DecodeByteArrays(dict_offsets, dict_data.data(), 16, ends, &data));
  std::string expected = "redgreenblue";
  for (int i = 0; i < 9; ++i) expected += "red";
  expected += "greenblueviolet";
  expected += "red";
  EXPECT_EQ(data.view(), expected);

  const uint32_t indices[16] = {0, 1, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 2, 3, 0};
  Buffer ours;
  EncodeDictionaryIndices(indices, 16, 2, &ours);
  EXPECT_EQ(ToHex(ours.span()), ToHex(index_page.span()));
}

TEST(PeerVectorsTest, OptionalColumnLevels) {
  const std::vector<int16_t> def = {1, 0, 1, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0};
  std::vector<int32_t> values = {1, 2, 3};
  values.insert(values.end(), 12, 4);

  ExactBytes v1(Hex(kOptionalV1));
  LevelDecoder levels;
  size_t consumed = 0;
  FLOE_ASSERT_OK(levels.ResetV1(LevelEncoding::kRle, 1, 21, v1.span(), &consumed));
  std::vector<int16_t> out(def.size());
  FLOE_ASSERT_OK(levels.Decode(out.data(), out.size()));
  EXPECT_EQ(out, def);
  PlainFixedDecoder plain;
  FLOE_ASSERT_OK(plain.Reset(v1.span().subspan(consumed), 4));
  std::vector<int32_t> got(values.size());
  FLOE_ASSERT_OK(plain.Decode(got.data(), got.size()));
  EXPECT_EQ(got, values);
  EXPECT_EQ(plain.values_left(), 0u);
  Buffer ours;
  EncodeLevelsV1(def.data(), def.size(), 1, &ours);
  EXPECT_EQ(ToHex(ours.span()), ToHex(v1.span().first(consumed)));

  // v2: definition_levels_byte_length = 6 in the DataPageHeaderV2.
  ExactBytes v2(Hex(kOptionalV2));
  FLOE_ASSERT_OK(levels.ResetV2(1, v2.span().first(6)));
  FLOE_ASSERT_OK(levels.Decode(out.data(), out.size()));
  EXPECT_EQ(out, def);
  Buffer ours_v2;
  EXPECT_EQ(EncodeLevelsV2(def.data(), def.size(), 1, &ours_v2), 6u);
  EXPECT_EQ(ToHex(ours_v2.span()), ToHex(v2.span().first(6)));
}

TEST(PeerVectorsTest, ListLevels) {
  ExactBytes page(Hex(kListV1));
  LevelDecoder rep;
  LevelDecoder def;
  size_t rep_size = 0;
  size_t def_size = 0;
  FLOE_ASSERT_OK(rep.ResetV1(LevelEncoding::kRle, 1, 8, page.span(), &rep_size));
  FLOE_ASSERT_OK(def.ResetV1(LevelEncoding::kRle, 3, 8, page.span().subspan(rep_size), &def_size));
  int16_t r[8];
  int16_t d[8];
  FLOE_ASSERT_OK(rep.Decode(r, 8));
  FLOE_ASSERT_OK(def.Decode(d, 8));
  EXPECT_EQ(std::vector<int16_t>(r, r + 8), (std::vector<int16_t>{0, 1, 0, 0, 0, 0, 1, 1}));
  EXPECT_EQ(std::vector<int16_t>(d, d + 8), (std::vector<int16_t>{3, 3, 1, 0, 3, 2, 3, 3}));
  PlainFixedDecoder plain;
  FLOE_ASSERT_OK(plain.Reset(page.span().subspan(rep_size + def_size), 4));
  int32_t values[5];
  FLOE_ASSERT_OK(plain.Decode(values, 5));
  EXPECT_EQ(std::vector<int32_t>(values, values + 5), (std::vector<int32_t>{1, 2, 3, 4, 5}));
}

// Bloom filters written by pyarrow for
//   pa.table({'i': pa.array([1, 2, 3, 42, -7], pa.int64()),
//             's': pa.array(['apple', 'banana', 'cherry', '', 'date'], pa.binary())})
// with bloom_filter_options={'i': {'ndv': 5, 'fpp': 0.05}, 's': {'ndv': 300, 'fpp': 0.05}}:
// both 32-byte bitsets (BloomFilterHeader 15 40 1c 1c 00 00 1c 1c 00 00 1c 1c 00 00 00).
TEST(PeerVectorsTest, BloomFilterBitsets) {
  auto ints = *BloomFilter::Make(32);
  for (int64_t v : {1, 2, 3, 42, -7}) ints.Insert(BloomHash(v));
  EXPECT_EQ(ToHex(ints.bitset()),
            ToHex(Hex("0009180884000442020410420040660040044104048002884020002870090000")));
  auto strings = *BloomFilter::Make(32);
  for (std::string_view v : {"apple", "banana", "cherry", "", "date"}) strings.Insert(BloomHash(v));
  EXPECT_EQ(ToHex(strings.bitset()),
            ToHex(Hex("242001200112022000208026004005100150020280086004000100a0400400e0")));
  auto read = *BloomFilter::FromBitset(strings.bitset());
  EXPECT_TRUE(read.Check(BloomHash(std::string_view("cherry"))));
}

}  // namespace
}  // namespace floe::format::parquet
