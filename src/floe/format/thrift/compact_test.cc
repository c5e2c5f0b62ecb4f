#include "floe/format/thrift/compact.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "floe/base/testing.h"

namespace floe::format::thrift {
namespace {

using Bytes = std::vector<uint8_t>;

Bytes ToBytes(const Buffer& b) { return Bytes(b.data(), b.data() + b.size()); }

std::span<const uint8_t> Span(const Bytes& b) { return {b.data(), b.size()}; }

// The PageHeader of parquet.md §2.6, re-derived from the compact protocol spec:
// 15 00        field 1 (delta 1, i32) type = DATA_PAGE: zigzag(0) = 00
// 15 C8 01     field 2 uncompressed_page_size: zigzag(100) = 200 = varint C8 01
// 15 A0 01     field 3 compressed_page_size: zigzag(80) = 160 = varint A0 01
// 2C           field 5 (delta 2, struct) data_page_header
//   15 14      num_values: zigzag(10) = 20
//   15 00      encoding PLAIN
//   15 06      definition_level_encoding RLE (3): zigzag 6
//   15 06      repetition_level_encoding RLE
//   00         STOP
// 00           STOP
const Bytes kPageHeaderBytes = {0x15, 0x00, 0x15, 0xC8, 0x01, 0x15, 0xA0, 0x01, 0x2C, 0x15,
                                0x14, 0x15, 0x00, 0x15, 0x06, 0x15, 0x06, 0x00, 0x00};

// The BloomFilterHeader of parquet.md §2.6: numBytes = 1024 (zigzag 2048 = varint 80 10), then
// three union fields each holding member 1 with an empty struct (1C 1C 00 00).
const Bytes kBloomHeaderBytes = {0x15, 0x80, 0x10, 0x1C, 0x1C, 0x00, 0x00, 0x1C,
                                 0x1C, 0x00, 0x00, 0x1C, 0x1C, 0x00, 0x00, 0x00};

TEST(CompactWriterTest, PageHeaderMatchesSpecBytes) {
  Buffer buf;
  CompactWriter w(&buf);
  w.BeginStruct();
  w.WriteFieldI32(1, 0);
  w.WriteFieldI32(2, 100);
  w.WriteFieldI32(3, 80);
  w.WriteFieldHeader(5, WireType::kStruct);
  w.BeginStruct();
  w.WriteFieldI32(1, 10);
  w.WriteFieldI32(2, 0);
  w.WriteFieldI32(3, 3);
  w.WriteFieldI32(4, 3);
  w.EndStruct();
  w.EndStruct();
  EXPECT_EQ(ToBytes(buf), kPageHeaderBytes);
}

TEST(CompactWriterTest, BloomFilterHeaderMatchesSpecBytes) {
  Buffer buf;
  CompactWriter w(&buf);
  w.BeginStruct();
  w.WriteFieldI32(1, 1024);
  for (int16_t id = 2; id <= 4; ++id) {
    w.WriteFieldHeader(id, WireType::kStruct);
    w.BeginStruct();
    w.WriteFieldHeader(1, WireType::kStruct);
    w.BeginStruct();
    w.EndStruct();
    w.EndStruct();
  }
  w.EndStruct();
  EXPECT_EQ(ToBytes(buf), kBloomHeaderBytes);
}

TEST(CompactReaderTest, ReadsPageHeaderSpecBytes) {
  CompactReader r(Span(kPageHeaderBytes));
  std::vector<std::pair<int, int32_t>> outer;
  std::vector<std::pair<int, int32_t>> inner;
  Status st = r.ReadStruct([&](const FieldHeader& h) -> Status {
    if (h.type == WireType::kStruct) {
      EXPECT_EQ(h.id, 5);
      return r.ReadStruct([&](const FieldHeader& f) -> Status {
        EXPECT_EQ(f.type, WireType::kI32);
        FLOE_ASSIGN_OR_RETURN(int32_t v, r.ReadI32());
        inner.emplace_back(f.id, v);
        return Status::OK();
      });
    }
    EXPECT_EQ(h.type, WireType::kI32);
    FLOE_ASSIGN_OR_RETURN(int32_t v, r.ReadI32());
    outer.emplace_back(h.id, v);
    return Status::OK();
  });
  FLOE_ASSERT_OK(st);
  EXPECT_EQ(outer, (std::vector<std::pair<int, int32_t>>{{1, 0}, {2, 100}, {3, 80}}));
  EXPECT_EQ(inner, (std::vector<std::pair<int, int32_t>>{{1, 10}, {2, 0}, {3, 3}, {4, 3}}));
  EXPECT_EQ(r.position(), kPageHeaderBytes.size());
}

TEST(CompactWriterTest, BoolFieldsLiveInTheHeaderNibble) {
  // is_compressed = false as field 7 after field 6: (1 << 4) | 2 = 0x12 (parquet.md §2.6).
  Buffer buf;
  CompactWriter w(&buf);
  w.BeginStruct();
  w.WriteFieldI32(6, 0);
  w.WriteFieldBool(7, false);
  w.WriteFieldBool(8, true);
  w.EndStruct();
  EXPECT_EQ(ToBytes(buf), (Bytes{0x65, 0x00, 0x12, 0x11, 0x00}));

  CompactReader r(buf.span());
  std::vector<std::pair<int, bool>> bools;
  FLOE_ASSERT_OK(r.ReadStruct([&](const FieldHeader& h) -> Status {
    if (h.is_bool()) {
      bools.emplace_back(h.id, h.bool_value());
      return Status::OK();
    }
    return r.Skip(h.type);
  }));
  EXPECT_EQ(bools, (std::vector<std::pair<int, bool>>{{7, false}, {8, true}}));
}

TEST(CompactWriterTest, LongFormFieldHeaders) {
  Buffer buf;
  CompactWriter w(&buf);
  w.BeginStruct();
  w.WriteFieldI32(1, 1);          // short: 0x15
  w.WriteFieldI32(17, 1);         // delta 16: long form 05, zigzag(17) = 34 = 0x22
  w.WriteFieldI32(3, 1);          // going back: long form 05 06
  w.WriteFieldI32(4, 1);          // delta 1 from 3: short 0x15
  w.WriteFieldBinary(32767, "");  // parquet.md §2.5: zigzag(32767) = 65534 = FE FF 03
  w.EndStruct();
  EXPECT_EQ(ToBytes(buf), (Bytes{0x15, 0x02, 0x05, 0x22, 0x02, 0x05, 0x06, 0x02, 0x15, 0x02, 0x08,
                                 0xFE, 0xFF, 0x03, 0x00, 0x00}));

  CompactReader r(buf.span());
  std::vector<int> ids;
  FLOE_ASSERT_OK(r.ReadStruct([&](const FieldHeader& h) -> Status {
    ids.push_back(h.id);
    return r.Skip(h.type);
  }));
  EXPECT_EQ(ids, (std::vector<int>{1, 17, 3, 4, 32767}));
}

TEST(CompactReaderTest, FieldIdsRestartInNestedStructs) {
  // Field 10 (long form 0C 14), inside it field 1 (short 15 02); then back outside, a short
  // header with delta 1 must give 11, not 2.
  Bytes in = {0x0C, 0x14, 0x15, 0x02, 0x00, 0x15, 0x04, 0x00};
  CompactReader r(Span(in));
  std::vector<int> ids;
  Status st = r.ReadStruct([&](const FieldHeader& h) -> Status {
    ids.push_back(h.id);
    if (h.type == WireType::kStruct) {
      return r.ReadStruct([&](const FieldHeader& f) -> Status {
        ids.push_back(f.id);
        return r.Skip(f.type);
      });
    }
    return r.Skip(h.type);
  });
  FLOE_ASSERT_OK(st);
  EXPECT_EQ(ids, (std::vector<int>{10, 1, 11}));
}

TEST(CompactWriterTest, PrimitiveEncodingsFromTheSpec) {
  Buffer buf;
  CompactWriter w(&buf);
  // The spec's varint example: 50399 = DF 89 03; it is zigzag(-25200).
  w.WriteI32(-25200);
  w.WriteI8(-1);                                    // raw byte FF
  w.WriteI16(-1);                                   // zigzag 1
  w.WriteI64(std::numeric_limits<int64_t>::min());  // zigzag 2^64-1: ten bytes
  w.WriteDouble(1.5);                               // 0x3FF8000000000000 little-endian
  w.WriteBinary(std::string_view("abc"));
  EXPECT_EQ(ToBytes(buf), (Bytes{0xDF, 0x89, 0x03, 0xFF, 0x01, 0xFF, 0xFF, 0xFF, 0xFF,
                                 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x01, 0x00, 0x00, 0x00,
                                 0x00, 0x00, 0x00, 0xF8, 0x3F, 0x03, 'a',  'b',  'c'}));

  CompactReader r(buf.span());
  EXPECT_EQ(*r.ReadI32(), -25200);
  EXPECT_EQ(*r.ReadI8(), -1);
  EXPECT_EQ(*r.ReadI16(), -1);
  EXPECT_EQ(*r.ReadI64(), std::numeric_limits<int64_t>::min());
  EXPECT_EQ(*r.ReadDouble(), 1.5);
  std::string s;
  FLOE_ASSERT_OK(r.ReadString(&s));
  EXPECT_EQ(s, "abc");
  EXPECT_EQ(r.remaining(), 0u);
}

TEST(CompactRoundTripTest, ExtremeValues) {
  Buffer buf;
  CompactWriter w(&buf);
  const int8_t i8s[] = {INT8_MIN, -1, 0, 1, INT8_MAX};
  const int16_t i16s[] = {INT16_MIN, -300, 0, 300, INT16_MAX};
  const int32_t i32s[] = {INT32_MIN, -64, -63, 0, 63, 64, INT32_MAX};
  const int64_t i64s[] = {INT64_MIN, -(int64_t{1} << 40), 0, int64_t{1} << 40, INT64_MAX};
  const double doubles[] = {0.0, -0.0, 3.25, -1e300, std::numeric_limits<double>::infinity()};
  for (auto v : i8s) w.WriteI8(v);
  for (auto v : i16s) w.WriteI16(v);
  for (auto v : i32s) w.WriteI32(v);
  for (auto v : i64s) w.WriteI64(v);
  for (auto v : doubles) w.WriteDouble(v);
  std::string big(300, 'x');
  w.WriteBinary(std::string_view(big));
  w.WriteDouble(std::nan(""));

  CompactReader r(buf.span());
  for (auto v : i8s) EXPECT_EQ(*r.ReadI8(), v);
  for (auto v : i16s) EXPECT_EQ(*r.ReadI16(), v);
  for (auto v : i32s) EXPECT_EQ(*r.ReadI32(), v);
  for (auto v : i64s) EXPECT_EQ(*r.ReadI64(), v);
  for (auto v : doubles) {
    double got = *r.ReadDouble();
    EXPECT_EQ(std::memcmp(&got, &v, 8), 0);
  }
  auto bin = r.ReadBinary();
  FLOE_ASSERT_OK(bin);
  EXPECT_EQ(std::string(bin->begin(), bin->end()), big);
  EXPECT_TRUE(std::isnan(*r.ReadDouble()));
  EXPECT_EQ(r.remaining(), 0u);
}

TEST(CompactWriterTest, ListAndMapHeaders) {
  Buffer buf;
  CompactWriter w(&buf);
  w.WriteListHeader(WireType::kI32, 3);                    // 0x35
  w.WriteListHeader(WireType::kI64, 14);                   // last short form: 0xE6
  w.WriteListHeader(WireType::kBinary, 15);                // long form: F8 0F
  w.WriteListHeader(WireType::kStruct, 300);               // F C, varint 300 = AC 02
  w.WriteMapHeader(WireType::kBinary, WireType::kI32, 0);  // 00
  w.WriteMapHeader(WireType::kBinary, WireType::kI32, 2);  // 02 85
  EXPECT_EQ(ToBytes(buf), (Bytes{0x35, 0xE6, 0xF8, 0x0F, 0xFC, 0xAC, 0x02, 0x00, 0x02, 0x85}));
}

TEST(CompactWriterTest, BoolListElementsLikeCppAndJavaThrift) {
  Buffer buf;
  CompactWriter w(&buf);
  w.WriteListHeader(WireType::kBoolFalse, 3);  // element type is always written as 1
  w.WriteBoolElement(true);
  w.WriteBoolElement(false);
  w.WriteBoolElement(true);
  EXPECT_EQ(ToBytes(buf), (Bytes{0x31, 0x01, 0x02, 0x01}));
}

TEST(CompactReaderTest, BoolListsOfEitherElementTypeAndEncoding) {
  // Element type 1 with 1/2 (C++, Java) and element type 2 with 1/0 (spec text, some Go).
  for (const Bytes& in : {Bytes{0x31, 0x01, 0x02, 0x01}, Bytes{0x32, 0x01, 0x00, 0x01}}) {
    CompactReader r(Span(in));
    auto h = r.ReadListHeader();
    FLOE_ASSERT_OK(h);
    EXPECT_EQ(h->element_type, WireType::kBoolTrue);
    ASSERT_EQ(h->size, 3u);
    EXPECT_TRUE(*r.ReadBoolElement());
    EXPECT_FALSE(*r.ReadBoolElement());
    EXPECT_TRUE(*r.ReadBoolElement());
  }
  Bytes bad = {0x03};
  EXPECT_TRUE(CompactReader(Span(bad)).ReadBoolElement().status().IsCorrupt());
}

TEST(CompactReaderTest, ReadsListAndMapHeaders) {
  Bytes in = {0x35, 1, 2, 3, 0xF8, 0x0F};
  in.insert(in.end(), 15, 0x00);  // 15 empty strings
  in.insert(in.end(), {0x00, 0x02, 0x85, 0x00, 0x02, 0x00, 0x04});
  CompactReader r(Span(in));
  auto l1 = r.ReadListHeader();
  FLOE_ASSERT_OK(l1);
  EXPECT_EQ(l1->element_type, WireType::kI32);
  EXPECT_EQ(l1->size, 3u);
  FLOE_ASSERT_OK(r.Skip(WireType::kI8));
  FLOE_ASSERT_OK(r.Skip(WireType::kI8));
  FLOE_ASSERT_OK(r.Skip(WireType::kI8));
  auto l2 = r.ReadListHeader();
  FLOE_ASSERT_OK(l2);
  EXPECT_EQ(l2->element_type, WireType::kBinary);
  EXPECT_EQ(l2->size, 15u);
  for (int i = 0; i < 15; ++i) FLOE_ASSERT_OK(r.Skip(WireType::kBinary));
  auto m0 = r.ReadMapHeader();
  FLOE_ASSERT_OK(m0);
  EXPECT_EQ(m0->size, 0u);
  auto m1 = r.ReadMapHeader();
  FLOE_ASSERT_OK(m1);
  EXPECT_EQ(m1->size, 2u);
  EXPECT_EQ(m1->key_type, WireType::kBinary);
  EXPECT_EQ(m1->value_type, WireType::kI32);
  EXPECT_EQ(r.remaining(), 4u);
}

// A struct with one field of every wire type (ids 1..), plus nested containers, followed by
// field 100 = 42. Readers that know only field 100 must skip everything else.
Bytes EveryTypeStruct() {
  Buffer buf;
  CompactWriter w(&buf);
  w.BeginStruct();
  w.WriteFieldBool(1, true);
  w.WriteFieldBool(2, false);
  w.WriteFieldI8(3, -5);
  w.WriteFieldI16(4, -1234);
  w.WriteFieldI32(5, 1 << 30);
  w.WriteFieldI64(6, -(int64_t{1} << 60));
  w.WriteFieldDouble(7, 2.5);
  w.WriteFieldBinary(8, "hello");
  w.WriteFieldHeader(9, WireType::kList);
  w.WriteListHeader(WireType::kI64, 20);
  for (int i = 0; i < 20; ++i) w.WriteI64(i * 1000003);
  w.WriteFieldHeader(10, WireType::kSet);
  w.WriteListHeader(WireType::kBinary, 2);
  w.WriteBinary(std::string_view("a"));
  w.WriteBinary(std::string_view("bc"));
  w.WriteFieldHeader(11, WireType::kMap);
  w.WriteMapHeader(WireType::kBinary, WireType::kList, 2);
  for (int i = 0; i < 2; ++i) {
    w.WriteBinary(std::string_view("k"));
    w.WriteListHeader(WireType::kDouble, 2);
    w.WriteDouble(1.0);
    w.WriteDouble(2.0);
  }
  w.WriteFieldHeader(12, WireType::kStruct);
  w.BeginStruct();
  w.WriteFieldHeader(1, WireType::kList);
  w.WriteListHeader(WireType::kStruct, 2);
  for (int i = 0; i < 2; ++i) {
    w.BeginStruct();
    w.WriteFieldBool(1, i == 0);
    w.WriteFieldHeader(40, WireType::kUuid);
    for (int b = 0; b < 16; ++b) buf.PushBack(static_cast<uint8_t>(b));
    w.EndStruct();
  }
  w.WriteFieldHeader(2, WireType::kMap);
  w.WriteMapHeader(WireType::kI32, WireType::kI32, 0);
  w.EndStruct();
  w.WriteFieldHeader(13, WireType::kUuid);
  for (int b = 0; b < 16; ++b) buf.PushBack(0xAB);
  w.WriteFieldHeader(14, WireType::kList);
  w.WriteListHeader(WireType::kBoolTrue, 3);
  w.WriteBoolElement(true);
  w.WriteBoolElement(false);
  w.WriteBoolElement(false);
  w.WriteFieldHeader(15, WireType::kList);
  w.WriteListHeader(WireType::kI8, 2);
  w.WriteI8(1);
  w.WriteI8(2);
  w.WriteFieldHeader(16, WireType::kList);
  w.WriteListHeader(WireType::kUuid, 1);
  for (int b = 0; b < 16; ++b) buf.PushBack(0xCD);
  w.WriteFieldHeader(17, WireType::kMap);
  w.WriteMapHeader(WireType::kBoolTrue, WireType::kStruct, 1);
  w.WriteBoolElement(true);
  w.BeginStruct();
  w.EndStruct();
  w.WriteFieldI32(100, 42);
  w.EndStruct();
  return ToBytes(buf);
}

TEST(CompactReaderTest, SkipsUnknownFieldsOfEveryType) {
  Bytes in = EveryTypeStruct();
  CompactReader r(Span(in));
  std::vector<int> skipped;
  int32_t known = 0;
  Status st = r.ReadStruct([&](const FieldHeader& h) -> Status {
    if (h.id == 100 && h.type == WireType::kI32) {
      FLOE_ASSIGN_OR_RETURN(known, r.ReadI32());
      return Status::OK();
    }
    skipped.push_back(h.id);
    return r.Skip(h.type);
  });
  FLOE_ASSERT_OK(st);
  EXPECT_EQ(known, 42);
  EXPECT_EQ(skipped.size(), 17u);
  EXPECT_EQ(r.position(), in.size());

  // Skipping the whole value in one call consumes exactly the same bytes.
  CompactReader whole(Span(in));
  FLOE_ASSERT_OK(whole.Skip(WireType::kStruct));
  EXPECT_EQ(whole.remaining(), 0u);
}

TEST(CompactReaderTest, SkipAndCaptureRoundTripsUnknownValues) {
  Bytes in = EveryTypeStruct();
  CompactReader r(Span(in));
  Buffer copy;
  CompactWriter w(&copy);
  w.BeginStruct();
  FLOE_ASSERT_OK(r.ReadStruct([&](const FieldHeader& h) -> Status {
    FLOE_ASSIGN_OR_RETURN(auto raw, r.SkipAndCapture(h.type));
    if (h.is_bool()) {
      w.WriteFieldBool(h.id, h.bool_value());
    } else {
      w.WriteFieldHeader(h.id, h.type);
      w.WriteRaw(std::string_view(reinterpret_cast<const char*>(raw.data()), raw.size()));
    }
    return Status::OK();
  }));
  w.EndStruct();
  EXPECT_EQ(ToBytes(copy), in);
}

TEST(CompactReaderTest, EveryTruncationIsCorrupt) {
  Bytes in = EveryTypeStruct();
  for (size_t n = 0; n < in.size(); ++n) {
    CompactReader r(std::span<const uint8_t>(in.data(), n));
    Status st = r.Skip(WireType::kStruct);
    ASSERT_THAT(st, IsError(StatusCode::kCorrupt)) << "prefix of " << n << " bytes parsed";
  }
}

Bytes NestedStructs(int levels) {
  // Each level but the innermost holds field 1 of type struct (0x1C); then every level
  // ends with STOP.
  Bytes in(static_cast<size_t>(levels - 1), 0x1C);
  in.insert(in.end(), static_cast<size_t>(levels), 0x00);
  return in;
}

TEST(CompactReaderTest, NestingDepthIsLimited) {
  Bytes ok = NestedStructs(64);
  CompactReader r1(Span(ok));
  FLOE_EXPECT_OK(r1.Skip(WireType::kStruct));
  EXPECT_EQ(r1.remaining(), 0u);

  Bytes deep = NestedStructs(65);
  Status st = CompactReader(Span(deep)).Skip(WireType::kStruct);
  EXPECT_TRUE(st.IsCorrupt());
  EXPECT_NE(st.message().find("nesting deeper than 64"), std::string_view::npos) << st.ToString();

  // Lists of lists count too: 0x19 = one element of type list; innermost 0x09 is empty.
  Bytes lists(100, 0x19);
  lists.push_back(0x09);
  EXPECT_TRUE(CompactReader(Span(lists)).Skip(WireType::kList).IsCorrupt());

  ReaderLimits shallow;
  shallow.max_depth = 3;
  Bytes three = NestedStructs(3);
  Bytes four = NestedStructs(4);
  FLOE_EXPECT_OK(CompactReader(Span(three), shallow).Skip(WireType::kStruct));
  EXPECT_TRUE(CompactReader(Span(four), shallow).Skip(WireType::kStruct).IsCorrupt());
}

TEST(CompactReaderTest, ContainerSizesAreBoundedByInputAndLimits) {
  // A list claiming 10^9 i32 elements in a few bytes: corrupt before anything is allocated,
  // both by the default limit of 10M elements and by the bytes left.
  Buffer buf;
  CompactWriter w(&buf);
  w.WriteListHeader(WireType::kI32, 1'000'000'000);
  w.WriteI32(1);
  Status st = CompactReader(buf.span()).ReadListHeader().status();
  EXPECT_TRUE(st.IsCorrupt());
  EXPECT_NE(st.message().find("exceeds the limit of 10000000"), std::string_view::npos)
      << st.ToString();
  ReaderLimits unlimited;
  unlimited.max_container_elements = SIZE_MAX;
  st = CompactReader(buf.span(), unlimited).ReadListHeader().status();
  EXPECT_TRUE(st.IsCorrupt());
  EXPECT_NE(st.message().find("cannot fit"), std::string_view::npos) << st.ToString();

  // 3 doubles need 24 bytes; 23 are there.
  Bytes doubles = {0x37};
  doubles.insert(doubles.end(), 23, 0);
  EXPECT_TRUE(CompactReader(Span(doubles)).ReadListHeader().status().IsCorrupt());
  doubles.push_back(0);
  FLOE_EXPECT_OK(CompactReader(Span(doubles)).ReadListHeader());

  // Over the configured element limit.
  ReaderLimits limits;
  limits.max_container_elements = 10;
  Bytes eleven = {0xF3, 0x0B};
  eleven.insert(eleven.end(), 11, 0);
  st = CompactReader(Span(eleven), limits).ReadListHeader().status();
  EXPECT_TRUE(st.IsCorrupt());
  EXPECT_NE(st.message().find("exceeds the limit of 10"), std::string_view::npos) << st.ToString();
  FLOE_EXPECT_OK(CompactReader(Span(eleven)).ReadListHeader());

  // A size that is negative as an i32 (2^31) is corrupt even without a limit.
  limits.max_container_elements = SIZE_MAX;
  Bytes negative = {0xF3, 0x80, 0x80, 0x80, 0x80, 0x08};
  EXPECT_TRUE(CompactReader(Span(negative), limits).ReadListHeader().status().IsCorrupt());

  // Maps: 5 pairs of (i32, double) need at least 45 bytes.
  Bytes map = {0x05, 0x57};
  map.insert(map.end(), 44, 0);
  EXPECT_TRUE(CompactReader(Span(map)).ReadMapHeader().status().IsCorrupt());
}

TEST(CompactReaderTest, StringSizesAreBounded) {
  Bytes in = {0x05, 'a', 'b', 'c', 'd'};  // claims 5, has 4
  std::string s;
  EXPECT_TRUE(CompactReader(Span(in)).ReadString(&s).IsCorrupt());

  Bytes ok = {0x04, 'a', 'b', 'c', 'd'};
  ReaderLimits limits;
  limits.max_string_bytes = 3;
  Status st = CompactReader(Span(ok), limits).ReadString(&s);
  EXPECT_TRUE(st.IsCorrupt());
  EXPECT_NE(st.message().find("exceeds the limit of 3"), std::string_view::npos) << st.ToString();
  FLOE_ASSERT_OK(CompactReader(Span(ok)).ReadString(&s));
  EXPECT_EQ(s, "abcd");

  // A length of 4 GiB - 1 in a tiny input.
  Bytes huge = {0xFF, 0xFF, 0xFF, 0xFF, 0x0F, 'x'};
  EXPECT_TRUE(CompactReader(Span(huge)).ReadBinary().status().IsCorrupt());
}

TEST(CompactReaderTest, MalformedValuesAreCorrupt) {
  auto corrupt_struct = [](Bytes in) {
    Status st = CompactReader(Span(in)).Skip(WireType::kStruct);
    return st.IsCorrupt();
  };
  EXPECT_TRUE(corrupt_struct({0x1E, 0x00}));              // field type 14
  EXPECT_TRUE(corrupt_struct({0x1F, 0x00}));              // field type 15
  EXPECT_TRUE(corrupt_struct({0x10, 0x00}));              // delta 1 with type STOP
  EXPECT_TRUE(corrupt_struct({0x19, 0x30, 0x00}));        // list element type 0
  EXPECT_TRUE(corrupt_struct({0x19, 0x3E, 0x00}));        // list element type 14
  EXPECT_TRUE(corrupt_struct({0x1B, 0x01, 0xF5, 0x00}));  // map key type 15
  // i16 field with a value outside the i16 range (zigzag 65536 -> 32768).
  EXPECT_TRUE(corrupt_struct({0x14, 0x80, 0x80, 0x04, 0x00}));
  // i32 varint overflowing 32 bits.
  EXPECT_TRUE(corrupt_struct({0x15, 0xFF, 0xFF, 0xFF, 0xFF, 0x1F, 0x00}));
  // i64 varint longer than 10 bytes.
  EXPECT_TRUE(corrupt_struct(
      {0x16, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x01, 0x00}));
  // Long-form field id that does not fit i16.
  EXPECT_TRUE(corrupt_struct({0x05, 0x80, 0x80, 0x04, 0x02, 0x00}));
  // Bool list element byte 7.
  EXPECT_TRUE(corrupt_struct({0x19, 0x11, 0x07, 0x00}));
  // Missing STOP.
  EXPECT_TRUE(corrupt_struct({0x15, 0x02}));

  EXPECT_TRUE(CompactReader(std::span<const uint8_t>()).Skip(WireType::kStop).IsCorrupt());
  EXPECT_TRUE(
      CompactReader(std::span<const uint8_t>()).Skip(static_cast<WireType>(14)).IsCorrupt());
}

TEST(CompactReaderTest, EmptyStructAndBoolFieldSkipConsumeNothingExtra) {
  Bytes in = {0x00, 0x7F};
  CompactReader r(Span(in));
  FLOE_EXPECT_OK(r.Skip(WireType::kStruct));
  EXPECT_EQ(r.position(), 1u);
  FLOE_EXPECT_OK(r.Skip(WireType::kBoolTrue));
  FLOE_EXPECT_OK(r.Skip(WireType::kBoolFalse));
  EXPECT_EQ(r.position(), 1u);
}

TEST(WireTypeTest, Names) {
  EXPECT_EQ(WireTypeName(WireType::kI32), "i32");
  EXPECT_EQ(WireTypeName(WireType::kBoolFalse), "bool");
  EXPECT_EQ(WireTypeName(static_cast<WireType>(14)), "type(14)");
}

}  // namespace
}  // namespace floe::format::thrift
