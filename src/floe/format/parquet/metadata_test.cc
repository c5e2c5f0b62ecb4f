#include "floe/format/parquet/metadata.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <set>
#include <string>
#include <vector>

#include "floe/base/testing.h"
#include "floe/format/parquet/metadata_json.h"
#include "floe/format/thrift/compact.h"

namespace floe::format::parquet {
namespace {

using thrift::CompactWriter;
using thrift::WireType;
using Bytes = std::vector<uint8_t>;
using Json = nlohmann::json;

std::span<const uint8_t> Span(const Bytes& b) { return {b.data(), b.size()}; }
Bytes ToBytes(const Buffer& b) { return Bytes(b.data(), b.data() + b.size()); }

std::string LE32(int32_t v) {
  std::string s(4, '\0');
  std::memcpy(s.data(), &v, 4);
  return s;
}
std::string LE64(int64_t v) {
  std::string s(8, '\0');
  std::memcpy(s.data(), &v, 8);
  return s;
}
std::string LEFloat(float v) {
  std::string s(4, '\0');
  std::memcpy(s.data(), &v, 4);
  return s;
}
std::string LEDouble(double v) {
  std::string s(8, '\0');
  std::memcpy(s.data(), &v, 8);
  return s;
}

// ---- Byte vectors from the spec (parquet.md §2.6, re-derived in compact_test.cc).

const Bytes kPageHeaderBytes = {0x15, 0x00, 0x15, 0xC8, 0x01, 0x15, 0xA0, 0x01, 0x2C, 0x15,
                                0x14, 0x15, 0x00, 0x15, 0x06, 0x15, 0x06, 0x00, 0x00};
const Bytes kBloomHeaderBytes = {0x15, 0x80, 0x10, 0x1C, 0x1C, 0x00, 0x00, 0x1C,
                                 0x1C, 0x00, 0x00, 0x1C, 0x1C, 0x00, 0x00, 0x00};

TEST(MetadataSpecBytesTest, PageHeader) {
  PageHeader h;
  h.type = PageType::kDataPage;
  h.uncompressed_page_size = 100;
  h.compressed_page_size = 80;
  h.data_page_header.emplace();
  h.data_page_header->num_values = 10;
  h.data_page_header->encoding = Encoding::kPlain;
  h.data_page_header->definition_level_encoding = Encoding::kRle;
  h.data_page_header->repetition_level_encoding = Encoding::kRle;
  Buffer buf;
  Serialize(h, &buf);
  EXPECT_EQ(ToBytes(buf), kPageHeaderBytes);

  // The page body follows the header: Deserialize reports where the header ends.
  Bytes with_body = kPageHeaderBytes;
  with_body.insert(with_body.end(), {0xDE, 0xAD, 0xBE, 0xEF});
  PageHeader got;
  size_t consumed = 0;
  Status st = Deserialize(Span(with_body), &got, &consumed);
  FLOE_ASSERT_OK(st);
  EXPECT_EQ(consumed, kPageHeaderBytes.size());
  EXPECT_EQ(got, h);
}

TEST(MetadataSpecBytesTest, BloomFilterHeader) {
  BloomFilterHeader h;
  h.num_bytes = 1024;
  Buffer buf;
  Serialize(h, &buf);
  EXPECT_EQ(ToBytes(buf), kBloomHeaderBytes);

  BloomFilterHeader got;
  size_t consumed = 0;
  FLOE_ASSERT_OK(Deserialize(Span(kBloomHeaderBytes), &got, &consumed));
  EXPECT_EQ(consumed, 16u);
  EXPECT_EQ(got.num_bytes, 1024);
  EXPECT_EQ(got.algorithm, BloomFilterAlgorithm::kBlock);
  EXPECT_EQ(got.hash, BloomFilterHash::kXxHash);
  EXPECT_EQ(got.compression, BloomFilterCompression::kUncompressed);
}

TEST(MetadataSpecBytesTest, V2IsCompressedFalseIsHeaderNibble2) {
  // parquet.md §2.6: is_compressed = false as field 7 after field 6 is the byte 0x12.
  PageHeader h;
  h.type = PageType::kDataPageV2;
  h.data_page_header_v2.emplace();
  h.data_page_header_v2->is_compressed = false;
  Buffer buf;
  Serialize(h, &buf);
  // PageHeader: 15 06 (type 3), 15 00, 15 00, 8 is delta 5 from 3: 5C, then the v2 header:
  // 15 00 15 00 15 00 15 00 15 00 15 00 12 00, then STOP.
  EXPECT_EQ(ToBytes(buf),
            (Bytes{0x15, 0x06, 0x15, 0x00, 0x15, 0x00, 0x5C, 0x15, 0x00, 0x15, 0x00,
                   0x15, 0x00, 0x15, 0x00, 0x15, 0x00, 0x15, 0x00, 0x12, 0x00, 0x00}));
}

// ---- Fully populated round trips.

Statistics FullStatistics() {
  Statistics s;
  s.max = "max";
  s.min = std::string("\0min", 4);
  s.null_count = 7;
  s.distinct_count = 99;
  s.max_value = "zz";
  s.min_value = "";
  s.is_max_value_exact = false;
  s.is_min_value_exact = true;
  s.nan_count = 0;
  return s;
}

FileMetaData FullFileMetaData() {
  FileMetaData md;
  md.version = 2;
  SchemaElement root;
  root.name = "schema";
  root.num_children = 3;
  md.schema.push_back(root);

  SchemaElement a;
  a.type = Type::kFixedLenByteArray;
  a.type_length = 16;
  a.repetition_type = FieldRepetitionType::kOptional;
  a.name = "a";
  a.converted_type = ConvertedType::kDecimal;
  a.scale = 4;
  a.precision = 30;
  a.field_id = 1;
  a.logical_type = LogicalType::Decimal(30, 4);
  md.schema.push_back(a);

  SchemaElement b;
  b.type = Type::kInt64;
  b.repetition_type = FieldRepetitionType::kRequired;
  b.name = "b";
  b.field_id = -5;
  b.logical_type = LogicalType::Timestamp(true, TimeUnit::kNanos);
  md.schema.push_back(b);

  SchemaElement c;
  c.type = Type::kByteArray;
  c.repetition_type = FieldRepetitionType::kRepeated;
  c.name = "c";
  // A member a later format version may add, with a payload: it must survive unchanged.
  LogicalType future;
  future.kind = LogicalType::Kind::kUnrecognized;
  future.unrecognized.field_id = 19;
  future.unrecognized.type = WireType::kStruct;
  future.unrecognized.value = std::string("\x15\x04\x00", 3);  // {1: i32 2}
  c.logical_type = future;
  md.schema.push_back(c);

  md.num_rows = 1234567890123;
  for (int g = 0; g < 2; ++g) {
    RowGroup rg;
    rg.total_byte_size = 1000 + g;
    rg.num_rows = 10;
    rg.sorting_columns = std::vector<SortingColumn>{{0, true, false}, {2, false, true}};
    rg.file_offset = 4;
    rg.total_compressed_size = 900;
    rg.ordinal = static_cast<int16_t>(g);
    for (int i = 0; i < 3; ++i) {
      ColumnChunk cc;
      cc.file_path = "other.parquet";
      cc.file_offset = 0;
      cc.offset_index_offset = 5000;
      cc.offset_index_length = 20;
      cc.column_index_offset = 6000;
      cc.column_index_length = 30;
      cc.crypto_metadata = std::string("\x1C\x00\x00", 3);  // ENCRYPTION_WITH_FOOTER_KEY{}
      cc.encrypted_column_metadata = "secret";
      ColumnMetaData& m = cc.meta_data.emplace();
      m.type = i == 0 ? Type::kFixedLenByteArray : i == 1 ? Type::kInt64 : Type::kByteArray;
      m.encodings = {Encoding::kPlain, Encoding::kRle, Encoding::kRleDictionary,
                     static_cast<Encoding>(77)};
      m.path_in_schema = {std::string(1, static_cast<char>('a' + i))};
      m.codec = CompressionCodec::kZstd;
      m.num_values = 10;
      m.total_uncompressed_size = 300;
      m.total_compressed_size = 200;
      m.key_value_metadata = std::vector<KeyValue>{{"k", "v"}, {"novalue", std::nullopt}};
      m.data_page_offset = 100;
      m.index_page_offset = 90;
      m.dictionary_page_offset = 50;
      m.statistics = FullStatistics();
      m.encoding_stats =
          std::vector<PageEncodingStats>{{PageType::kDictionaryPage, Encoding::kPlain, 1},
                                         {PageType::kDataPage, Encoding::kRleDictionary, 3}};
      m.bloom_filter_offset = 7000;
      m.bloom_filter_length = 47;
      SizeStatistics ss;
      ss.unencoded_byte_array_data_bytes = 77;
      ss.repetition_level_histogram = std::vector<int64_t>{1, 2};
      ss.definition_level_histogram = std::vector<int64_t>{};
      m.size_statistics = ss;
      rg.columns.push_back(cc);
    }
    md.row_groups.push_back(rg);
  }
  md.key_value_metadata = std::vector<KeyValue>{{"ARROW:schema", "xyz"}};
  md.created_by = "floe version 0.1.0 (build test)";
  ColumnOrder unknown_order;
  unknown_order.kind = ColumnOrder::Kind::kUnrecognized;
  unknown_order.unrecognized.field_id = 4;
  unknown_order.unrecognized.type = WireType::kStruct;
  unknown_order.unrecognized.value = std::string("\x18\x02hi\x00", 5);  // {1: "hi"}
  md.column_orders = std::vector<ColumnOrder>{{ColumnOrder::Kind::kTypeOrder, {}},
                                              {ColumnOrder::Kind::kIeee754TotalOrder, {}},
                                              unknown_order};
  md.encryption_algorithm = std::string("\x1C\x00\x00", 3);  // AES_GCM_V1{}
  md.footer_signing_key_metadata = "key";
  return md;
}

template <typename T>
T RoundTrip(const T& v) {
  Buffer buf;
  Serialize(v, &buf);
  T got;
  size_t consumed = 0;
  Status st = Deserialize(buf.span(), &got, &consumed);
  FLOE_EXPECT_OK(st);
  EXPECT_EQ(consumed, buf.size());
  return got;
}

TEST(MetadataRoundTripTest, FileMetaDataEveryField) {
  FileMetaData md = FullFileMetaData();
  EXPECT_EQ(RoundTrip(md), md);
}

TEST(MetadataRoundTripTest, EveryLogicalType) {
  using K = LogicalType::Kind;
  std::vector<LogicalType> types;
  for (K k : {K::kString, K::kMap, K::kList, K::kEnum, K::kDate, K::kUnknown, K::kJson, K::kBson,
              K::kUuid, K::kFloat16}) {
    types.push_back(LogicalType::Of(k));
  }
  types.push_back(LogicalType::Decimal(38, 38));
  types.push_back(LogicalType::Time(false, TimeUnit::kMillis));
  types.push_back(LogicalType::Time(true, TimeUnit::kNanos));
  types.push_back(LogicalType::Timestamp(false, TimeUnit::kMicros));
  types.push_back(LogicalType::Integer(8, false));
  types.push_back(LogicalType::Integer(64, true));
  LogicalType variant = LogicalType::Of(K::kVariant);
  types.push_back(variant);
  variant.variant_specification_version = 1;
  types.push_back(variant);
  LogicalType geometry = LogicalType::Of(K::kGeometry);
  types.push_back(geometry);
  geometry.crs = "OGC:CRS84";
  types.push_back(geometry);
  LogicalType geography = LogicalType::Of(K::kGeography);
  geography.crs = "srid:4326";
  geography.edge_algorithm = EdgeInterpolationAlgorithm::kKarney;
  types.push_back(geography);
  LogicalType empty_union;  // kUnrecognized with no member at all
  types.push_back(empty_union);

  FileMetaData md;
  md.schema.push_back(SchemaElement{});
  md.schema[0].name = "root";
  for (const LogicalType& t : types) {
    SchemaElement e;
    e.name = std::string(LogicalTypeKindName(t.kind));
    e.logical_type = t;
    md.schema.push_back(e);
  }
  FileMetaData got = RoundTrip(md);
  ASSERT_EQ(got.schema.size(), md.schema.size());
  for (size_t i = 0; i < md.schema.size(); ++i) {
    EXPECT_EQ(got.schema[i], md.schema[i]) << md.schema[i].name;
  }
}

TEST(MetadataRoundTripTest, PageHeaders) {
  PageHeader v1;
  v1.type = PageType::kDataPage;
  v1.uncompressed_page_size = 1 << 20;
  v1.compressed_page_size = 12345;
  v1.crc = -1;
  v1.data_page_header = DataPageHeader{20000, Encoding::kRleDictionary, Encoding::kRle,
                                       Encoding::kBitPacked, FullStatistics()};
  EXPECT_EQ(RoundTrip(v1), v1);

  PageHeader dict;
  dict.type = PageType::kDictionaryPage;
  dict.uncompressed_page_size = 10;
  dict.compressed_page_size = 8;
  dict.dictionary_page_header = DictionaryPageHeader{3, Encoding::kPlainDictionary, true};
  EXPECT_EQ(RoundTrip(dict), dict);

  PageHeader v2;
  v2.type = PageType::kDataPageV2;
  v2.uncompressed_page_size = 64;
  v2.compressed_page_size = 40;
  v2.data_page_header_v2 =
      DataPageHeaderV2{100, 5, 90, Encoding::kDeltaBinaryPacked, 12, 7, false, FullStatistics()};
  EXPECT_EQ(RoundTrip(v2), v2);

  PageHeader index;
  index.type = PageType::kIndexPage;
  index.index_page_header.emplace();
  EXPECT_EQ(RoundTrip(index), index);
}

TEST(MetadataRoundTripTest, PageIndexAndBloomFilter) {
  ColumnIndex ci;
  ci.null_pages = {false, true,  false, false, false, false, false, false,
                   false, false, false, false, false, false, false, true};  // long list form
  ci.min_values.assign(16, "a");
  ci.min_values[1] = "";
  ci.max_values.assign(16, "z");
  ci.max_values[1] = "";
  ci.boundary_order = BoundaryOrder::kAscending;
  ci.null_counts = std::vector<int64_t>(16, 0);
  ci.repetition_level_histograms = std::vector<int64_t>{1, 2, 3};
  ci.definition_level_histograms = std::vector<int64_t>{4, 5, 6};
  ci.nan_counts = std::vector<int64_t>(16, 1);
  EXPECT_EQ(RoundTrip(ci), ci);

  OffsetIndex oi;
  oi.page_locations = {{4, 100, 0}, {104, 90, 20000}, {194, 10, 40000}};
  oi.unencoded_byte_array_data_bytes = std::vector<int64_t>{10, 20, 30};
  EXPECT_EQ(RoundTrip(oi), oi);

  BloomFilterHeader bf;
  bf.num_bytes = 1 << 20;
  EXPECT_EQ(RoundTrip(bf), bf);
}

// ---- Forward compatibility and corrupt input.

TEST(MetadataReadTest, UnknownEnumValuesSurvive) {
  PageHeader h;
  h.type = static_cast<PageType>(42);
  h.data_page_header =
      DataPageHeader{1, static_cast<Encoding>(99), Encoding::kRle, Encoding::kRle, std::nullopt};
  PageHeader got = RoundTrip(h);
  EXPECT_EQ(static_cast<int32_t>(got.type), 42);
  EXPECT_EQ(static_cast<int32_t>(got.data_page_header->encoding), 99);
  EXPECT_EQ(EnumToString(got.type), "42");
  EXPECT_EQ(EnumToString(got.data_page_header->encoding), "99");
  EXPECT_EQ(EnumToString(Encoding::kRleDictionary), "RLE_DICTIONARY");
  EXPECT_EQ(EnumToString(CompressionCodec::kLz4Raw), "LZ4_RAW");
}

TEST(MetadataReadTest, SkipsUnknownFields) {
  // A PageHeader with extra fields of several types between and after the known ones,
  // including the vendor extension id 32767 (parquet.md §2.5).
  Buffer buf;
  CompactWriter w(&buf);
  w.BeginStruct();
  w.WriteFieldI32(1, 0);
  w.WriteFieldI32(2, 10);
  w.WriteFieldI32(3, 8);
  w.WriteFieldHeader(9, WireType::kStruct);  // a future page header kind
  w.BeginStruct();
  w.WriteFieldHeader(1, WireType::kList);
  w.WriteListHeader(WireType::kStruct, 1);
  w.BeginStruct();
  w.WriteFieldDouble(3, 1.0);
  w.EndStruct();
  w.EndStruct();
  w.WriteFieldBool(10, true);
  w.WriteFieldHeader(11, WireType::kMap);
  w.WriteMapHeader(WireType::kBinary, WireType::kI64, 1);
  w.WriteBinary(std::string_view("k"));
  w.WriteI64(5);
  w.WriteFieldBinary(32767, "vendor");
  w.EndStruct();
  PageHeader got;
  Status st = Deserialize(buf.span(), &got);
  FLOE_ASSERT_OK(st);
  EXPECT_EQ(got.uncompressed_page_size, 10);
  EXPECT_EQ(got.compressed_page_size, 8);
}

TEST(MetadataReadTest, MissingRequiredFieldsNameStructAndField) {
  Buffer buf;
  CompactWriter w(&buf);
  w.BeginStruct();
  w.WriteFieldI32(1, 0);
  w.WriteFieldI32(2, 10);
  w.EndStruct();
  PageHeader h;
  Status st = Deserialize(buf.span(), &h);
  EXPECT_TRUE(st.IsCorrupt());
  EXPECT_EQ(st.message(),
            "parquet PageHeader: required field 'compressed_page_size' (3) is missing");

  // Deep inside a footer: a minimal FileMetaData whose only ColumnMetaData lacks its codec.
  Buffer bad;
  CompactWriter f(&bad);
  f.BeginStruct();
  f.WriteFieldI32(1, 1);
  f.WriteFieldHeader(2, WireType::kList);
  f.WriteListHeader(WireType::kStruct, 0);
  f.WriteFieldI64(3, 0);
  f.WriteFieldHeader(4, WireType::kList);
  f.WriteListHeader(WireType::kStruct, 1);
  f.BeginStruct();  // RowGroup
  f.WriteFieldHeader(1, WireType::kList);
  f.WriteListHeader(WireType::kStruct, 1);
  f.BeginStruct();  // ColumnChunk
  f.WriteFieldI64(2, 0);
  f.WriteFieldHeader(3, WireType::kStruct);
  f.BeginStruct();  // ColumnMetaData without field 4
  f.WriteFieldI32(1, 1);
  f.WriteFieldHeader(2, WireType::kList);
  f.WriteListHeader(WireType::kI32, 0);
  f.WriteFieldHeader(3, WireType::kList);
  f.WriteListHeader(WireType::kBinary, 0);
  f.WriteFieldI64(5, 0);
  f.WriteFieldI64(6, 0);
  f.WriteFieldI64(7, 0);
  f.WriteFieldI64(9, 4);
  f.EndStruct();
  f.EndStruct();
  f.WriteFieldI64(2, 0);
  f.WriteFieldI64(3, 0);
  f.EndStruct();
  f.EndStruct();
  FileMetaData got;
  st = Deserialize(bad.span(), &got);
  EXPECT_TRUE(st.IsCorrupt());
  EXPECT_EQ(st.message(), "parquet ColumnMetaData: required field 'codec' (4) is missing");

  // Each required FileMetaData field.
  for (int16_t missing = 1; missing <= 4; ++missing) {
    Buffer b;
    CompactWriter fw(&b);
    fw.BeginStruct();
    if (missing != 1) fw.WriteFieldI32(1, 1);
    if (missing != 2) {
      fw.WriteFieldHeader(2, WireType::kList);
      fw.WriteListHeader(WireType::kStruct, 0);
    }
    if (missing != 3) fw.WriteFieldI64(3, 0);
    if (missing != 4) {
      fw.WriteFieldHeader(4, WireType::kList);
      fw.WriteListHeader(WireType::kStruct, 0);
    }
    fw.EndStruct();
    st = Deserialize(b.span(), &got);
    EXPECT_TRUE(st.IsCorrupt()) << missing;
    EXPECT_NE(st.message().find("parquet FileMetaData: required field '"), std::string_view::npos);
    EXPECT_NE(st.message().find(fmt::format("({})", missing)), std::string_view::npos)
        << st.ToString();
  }
}

TEST(MetadataReadTest, FieldOfTheWrongTypeIsSkipped) {
  // compressed_page_size sent as a string: skipped like Thrift-generated readers do, so the
  // required field is then missing.
  Buffer buf;
  CompactWriter w(&buf);
  w.BeginStruct();
  w.WriteFieldI32(1, 0);
  w.WriteFieldI32(2, 10);
  w.WriteFieldBinary(3, "eight");
  w.EndStruct();
  PageHeader h;
  Status st = Deserialize(buf.span(), &h);
  EXPECT_TRUE(st.IsCorrupt());
  EXPECT_NE(st.message().find("compressed_page_size"), std::string_view::npos);

  // A list whose element type contradicts the IDL is corrupt.
  Buffer list;
  CompactWriter lw(&list);
  lw.BeginStruct();
  lw.WriteFieldHeader(1, WireType::kList);
  lw.WriteListHeader(WireType::kI32, 1);  // page_locations must hold structs
  lw.WriteI32(1);
  lw.EndStruct();
  OffsetIndex oi;
  EXPECT_TRUE(Deserialize(list.span(), &oi).IsCorrupt());
}

TEST(MetadataReadTest, V2IsCompressedDefaultsToTrue) {
  Buffer buf;
  CompactWriter w(&buf);
  w.BeginStruct();
  w.WriteFieldI32(1, 3);  // DATA_PAGE_V2
  w.WriteFieldI32(2, 10);
  w.WriteFieldI32(3, 10);
  w.WriteFieldHeader(8, WireType::kStruct);
  w.BeginStruct();
  for (int16_t id = 1; id <= 6; ++id) w.WriteFieldI32(id, 0);
  w.EndStruct();
  w.EndStruct();
  PageHeader h;
  FLOE_ASSERT_OK(Deserialize(buf.span(), &h));
  ASSERT_TRUE(h.data_page_header_v2.has_value());
  EXPECT_TRUE(h.data_page_header_v2->is_compressed);
}

TEST(MetadataReadTest, BoolListsFromEitherWriterConvention) {
  // null_pages as some Go writers emit it: element type 2, false = 0 (parquet.md §2.4).
  Buffer buf;
  CompactWriter w(&buf);
  w.BeginStruct();
  w.WriteFieldHeader(1, WireType::kList);
  buf.PushBack(0x32);  // 3 elements of type 2
  buf.PushBack(1);
  buf.PushBack(0);
  buf.PushBack(2);
  for (int16_t id : {2, 3}) {
    w.WriteFieldHeader(id, WireType::kList);
    w.WriteListHeader(WireType::kBinary, 3);
    for (int i = 0; i < 3; ++i) w.WriteBinary(std::string_view(""));
  }
  w.WriteFieldI32(4, 0);
  w.EndStruct();
  ColumnIndex ci;
  Status st = Deserialize(buf.span(), &ci);
  FLOE_ASSERT_OK(st);
  EXPECT_EQ(ci.null_pages, (std::vector<bool>{true, false, false}));
}

TEST(MetadataReadTest, UnknownUnionMembersAreKept) {
  // ColumnOrder member 3 (INT96_TIMESTAMP_ORDER) is known; member 9 is not.
  Buffer buf;
  CompactWriter w(&buf);
  w.BeginStruct();
  w.WriteFieldI32(1, 1);
  w.WriteFieldHeader(2, WireType::kList);
  w.WriteListHeader(WireType::kStruct, 0);
  w.WriteFieldI64(3, 0);
  w.WriteFieldHeader(4, WireType::kList);
  w.WriteListHeader(WireType::kStruct, 0);
  w.WriteFieldHeader(7, WireType::kList);
  w.WriteListHeader(WireType::kStruct, 2);
  w.BeginStruct();
  w.WriteFieldHeader(3, WireType::kStruct);
  w.BeginStruct();
  w.EndStruct();
  w.EndStruct();
  w.BeginStruct();
  w.WriteFieldHeader(9, WireType::kStruct);
  w.BeginStruct();
  w.WriteFieldI64(1, 77);
  w.EndStruct();
  w.EndStruct();
  w.EndStruct();
  FileMetaData md;
  Status st = Deserialize(buf.span(), &md);
  FLOE_ASSERT_OK(st);
  ASSERT_EQ(md.column_orders->size(), 2u);
  EXPECT_EQ((*md.column_orders)[0].kind, ColumnOrder::Kind::kInt96TimestampOrder);
  EXPECT_EQ((*md.column_orders)[1].kind, ColumnOrder::Kind::kUnrecognized);
  EXPECT_EQ((*md.column_orders)[1].unrecognized.field_id, 9);
  // Written back, the footer is byte-identical.
  Buffer again;
  Serialize(md, &again);
  EXPECT_EQ(ToBytes(again), ToBytes(buf));
}

TEST(MetadataReadTest, LastUnionMemberWins) {
  // A LogicalType carrying DECIMAL{scale 2, precision 9} and then STRING: a union may hold
  // one member, so the later one replaces the earlier, payload included.
  Buffer buf;
  CompactWriter w(&buf);
  w.BeginStruct();
  w.WriteFieldHeader(5, WireType::kStruct);
  w.BeginStruct();
  w.WriteFieldI32(1, 2);
  w.WriteFieldI32(2, 9);
  w.EndStruct();
  w.WriteFieldHeader(1, WireType::kStruct);
  w.BeginStruct();
  w.EndStruct();
  w.EndStruct();
  Buffer footer;
  CompactWriter f(&footer);
  f.BeginStruct();
  f.WriteFieldI32(1, 1);
  f.WriteFieldHeader(2, WireType::kList);
  f.WriteListHeader(WireType::kStruct, 1);
  f.BeginStruct();
  f.WriteFieldBinary(4, "x");
  f.WriteFieldHeader(10, WireType::kStruct);
  f.WriteRaw(buf.view());
  f.EndStruct();
  f.WriteFieldI64(3, 0);
  f.WriteFieldHeader(4, WireType::kList);
  f.WriteListHeader(WireType::kStruct, 0);
  f.EndStruct();
  FileMetaData md;
  Status st = Deserialize(footer.span(), &md);
  FLOE_ASSERT_OK(st);
  EXPECT_EQ(md.schema[0].logical_type, LogicalType::Of(LogicalType::Kind::kString));
}

TEST(MetadataReadTest, EveryTruncationOfAFooterIsCorrupt) {
  Buffer buf;
  Serialize(FullFileMetaData(), &buf);
  for (size_t n = 0; n < buf.size(); ++n) {
    FileMetaData md;
    Status st = Deserialize(std::span<const uint8_t>(buf.data(), n), &md);
    ASSERT_TRUE(st.IsCorrupt()) << n << ": " << st.ToString();
  }
}

TEST(MetadataReadTest, HugeListClaimsFailBeforeAllocating) {
  // FileMetaData whose schema list claims 2^31 - 1 elements.
  Bytes in = {0x15, 0x02, 0x19, 0xFC, 0xFF, 0xFF, 0xFF, 0xFF, 0x07, 0x00};
  FileMetaData md;
  EXPECT_TRUE(Deserialize(Span(in), &md).IsCorrupt());
  // 5000 elements claimed where 10 bytes remain, under a generous element limit.
  thrift::ReaderLimits limits;
  Bytes in2 = {0x15, 0x02, 0x19, 0xFC, 0x88, 0x27};
  in2.insert(in2.end(), 10, 0);
  EXPECT_TRUE(Deserialize(Span(in2), &md, nullptr, limits).IsCorrupt());
}

TEST(MetadataTest, EffectiveLogicalTypeFromLegacyAnnotations) {
  // parquet.md §3.10: legacy TIME/TIMESTAMP are UTC-adjusted; DECIMAL scale defaults to 0.
  SchemaElement e;
  e.converted_type = ConvertedType::kTimestampMillis;
  EXPECT_EQ(EffectiveLogicalType(e), LogicalType::Timestamp(true, TimeUnit::kMillis));
  e.converted_type = ConvertedType::kTimeMicros;
  EXPECT_EQ(EffectiveLogicalType(e), LogicalType::Time(true, TimeUnit::kMicros));
  e.converted_type = ConvertedType::kDecimal;
  e.precision = 5;
  EXPECT_EQ(EffectiveLogicalType(e), LogicalType::Decimal(5, 0));
  e.converted_type = ConvertedType::kUint16;
  EXPECT_EQ(EffectiveLogicalType(e), LogicalType::Integer(16, false));
  e.converted_type = ConvertedType::kMapKeyValue;
  EXPECT_EQ(EffectiveLogicalType(e)->kind, LogicalType::Kind::kMap);
  e.converted_type = ConvertedType::kInterval;
  EXPECT_FALSE(EffectiveLogicalType(e).has_value());
  // logicalType wins over the legacy annotation (parquet.md §10 item 16).
  e.converted_type = ConvertedType::kTimestampMicros;
  e.logical_type = LogicalType::Timestamp(false, TimeUnit::kMicros);
  EXPECT_EQ(EffectiveLogicalType(e), LogicalType::Timestamp(false, TimeUnit::kMicros));
}

// ---- Files written by pyarrow 26.0.1 (tests/data/parquet/README.md). Every expected value
// below was read from pyarrow's metadata API (pq.ParquetFile(f).metadata / .schema /
// .schema_arrow), not from this code.

std::string DataPath(const std::string& name) {
  const char* dir = std::getenv("FLOE_TEST_DATA");
  return std::string(dir != nullptr ? dir : "tests/data") + "/parquet/" + name;
}

Bytes ReadFile(const std::string& name) {
  std::ifstream f(DataPath(name), std::ios::binary);
  return Bytes(std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>());
}

struct Footer {
  Bytes file;
  FileMetaData md;
  size_t footer_length = 0;
};

// Reads the footer per parquet.md §1: u32 length and "PAR1" at the end.
Footer ParseFile(const std::string& name) {
  Footer f;
  f.file = ReadFile(name);
  EXPECT_GT(f.file.size(), 12u) << DataPath(name);
  if (f.file.size() <= 12) return f;
  EXPECT_EQ(std::memcmp(f.file.data() + f.file.size() - 4, "PAR1", 4), 0);
  uint32_t len = LoadLE<uint32_t>(f.file.data() + f.file.size() - 8);
  f.footer_length = len;
  std::span<const uint8_t> footer(f.file.data() + f.file.size() - 8 - len, len);
  size_t consumed = 0;
  Status st = Deserialize(footer, &f.md, &consumed);
  FLOE_EXPECT_OK(st) << name;
  EXPECT_EQ(consumed, len);
  return f;
}

std::span<const uint8_t> FooterBytes(const Footer& f) {
  return {f.file.data() + f.file.size() - 8 - f.footer_length, f.footer_length};
}

std::set<std::string> EncodingNames(const ColumnMetaData& m) {
  std::set<std::string> out;
  for (Encoding e : m.encodings) out.insert(EnumToString(e));
  return out;
}

constexpr char kCreatedBy[] = "parquet-cpp-arrow version 26.0.1";

TEST(PyarrowFooterTest, TypesSnappy) {
  Footer f = ParseFile("pyarrow_types_snappy.parquet");
  const FileMetaData& md = f.md;
  EXPECT_EQ(f.footer_length, 3901u);  // metadata.serialized_size
  EXPECT_EQ(md.num_rows, 3);
  EXPECT_EQ(md.created_by, kCreatedBy);
  ASSERT_TRUE(md.key_value_metadata.has_value());
  ASSERT_EQ(md.key_value_metadata->size(), 1u);
  EXPECT_EQ((*md.key_value_metadata)[0].key, "ARROW:schema");

  // Schema: names, physical types, field ids (PARQUET:field_id), annotations.
  struct Leaf {
    const char* name;
    Type type;
    int32_t field_id;
    std::optional<ConvertedType> converted;
  };
  const Leaf leaves[] = {
      {"id", Type::kInt32, 1, std::nullopt},
      {"big", Type::kInt64, 2, std::nullopt},
      {"name", Type::kByteArray, 3, ConvertedType::kUtf8},
      {"score", Type::kDouble, 4, std::nullopt},
      {"flag", Type::kBoolean, 5, std::nullopt},
      {"day", Type::kInt32, 6, ConvertedType::kDate},
      {"ts", Type::kInt64, 7, ConvertedType::kTimestampMicros},
      {"price", Type::kFixedLenByteArray, 8, ConvertedType::kDecimal},
      {"u", Type::kFixedLenByteArray, 9, std::nullopt},
      {"half", Type::kFixedLenByteArray, 10, std::nullopt},
      {"tiny", Type::kInt32, 11, ConvertedType::kInt8},
      {"count", Type::kInt32, 12, ConvertedType::kUint32},
      {"t", Type::kInt64, 13, std::nullopt},
      {"blob", Type::kByteArray, 14, std::nullopt},
  };
  ASSERT_EQ(md.schema.size(), 15u);
  EXPECT_EQ(md.schema[0].name, "schema");
  EXPECT_EQ(md.schema[0].num_children, 14);
  EXPECT_FALSE(md.schema[0].field_id.has_value());
  for (size_t i = 0; i < std::size(leaves); ++i) {
    const SchemaElement& e = md.schema[i + 1];
    EXPECT_EQ(e.name, leaves[i].name);
    EXPECT_EQ(e.type, leaves[i].type) << e.name;
    EXPECT_EQ(e.field_id, leaves[i].field_id) << e.name;
    EXPECT_EQ(e.converted_type, leaves[i].converted) << e.name;
    EXPECT_EQ(e.repetition_type,
              i == 0 ? FieldRepetitionType::kRequired : FieldRepetitionType::kOptional);
  }
  using K = LogicalType::Kind;
  EXPECT_FALSE(md.schema[1].logical_type.has_value());
  EXPECT_EQ(md.schema[3].logical_type, LogicalType::Of(K::kString));
  EXPECT_EQ(md.schema[6].logical_type, LogicalType::Of(K::kDate));
  EXPECT_EQ(md.schema[7].logical_type, LogicalType::Timestamp(true, TimeUnit::kMicros));
  EXPECT_EQ(md.schema[8].logical_type, LogicalType::Decimal(9, 2));
  EXPECT_EQ(md.schema[8].type_length, 4);
  EXPECT_EQ(md.schema[8].precision, 9);
  EXPECT_EQ(md.schema[8].scale, 2);
  EXPECT_EQ(md.schema[9].logical_type, LogicalType::Of(K::kUuid));
  EXPECT_EQ(md.schema[9].type_length, 16);
  EXPECT_EQ(md.schema[10].logical_type, LogicalType::Of(K::kFloat16));
  EXPECT_EQ(md.schema[10].type_length, 2);
  EXPECT_EQ(md.schema[11].logical_type, LogicalType::Integer(8, true));
  EXPECT_EQ(md.schema[12].logical_type, LogicalType::Integer(32, false));
  EXPECT_EQ(md.schema[13].logical_type, LogicalType::Time(false, TimeUnit::kMicros));

  // Arrow writes TYPE_ORDER for every leaf (parquet.md §7.5).
  ASSERT_TRUE(md.column_orders.has_value());
  ASSERT_EQ(md.column_orders->size(), 14u);
  for (const ColumnOrder& o : *md.column_orders) EXPECT_EQ(o.kind, ColumnOrder::Kind::kTypeOrder);

  ASSERT_EQ(md.row_groups.size(), 1u);
  const RowGroup& rg = md.row_groups[0];
  EXPECT_EQ(rg.num_rows, 3);
  EXPECT_EQ(rg.total_byte_size, 1148);
  ASSERT_EQ(rg.columns.size(), 14u);

  const ColumnMetaData& id = *rg.columns[0].meta_data;
  EXPECT_EQ(id.codec, CompressionCodec::kSnappy);
  EXPECT_EQ(EncodingNames(id), (std::set<std::string>{"PLAIN", "RLE", "RLE_DICTIONARY"}));
  EXPECT_EQ(id.num_values, 3);
  EXPECT_EQ(id.data_page_offset, 32);
  EXPECT_EQ(id.dictionary_page_offset, 4);
  EXPECT_EQ(id.total_compressed_size, 81);
  EXPECT_EQ(id.total_uncompressed_size, 77);
  EXPECT_EQ(rg.columns[0].file_offset, 0);
  EXPECT_EQ(id.path_in_schema, std::vector<std::string>{"id"});

  const ColumnMetaData& flag = *rg.columns[4].meta_data;
  EXPECT_EQ(EncodingNames(flag), (std::set<std::string>{"PLAIN", "RLE"}));
  EXPECT_FALSE(flag.dictionary_page_offset.has_value());
  EXPECT_EQ(flag.data_page_offset, 377);

  // Statistics: min_raw / max_raw / null_count per column, as PLAIN bytes.
  struct Stat {
    std::string min, max;
    int64_t nulls;
  };
  const Stat stats[] = {
      {LE32(1), LE32(3), 0},
      {LE64(-5), LE64(1099511627776), 1},
      {"alpha", "beta", 1},
      {LEDouble(-2.25), LEDouble(1.5), 1},
      {std::string(1, '\0'), std::string(1, '\1'), 1},
      {LE32(-1), LE32(19753), 1},
      {LE64(0), LE64(1714979289123456), 1},
      {"\xff\xff\xff\xfb", std::string("\x00\x00\x04\xd2", 4), 1},
      {std::string(15, '\0') + "\x01", "\xf7\x9c>\tg|K\xbd\xa4y?4\x9c\xb7\x85\xe7", 1},
      {std::string("\x00\xbc", 2), std::string("\x00@", 2), 0},
      {LE32(-128), LE32(7), 1},
      {LE32(0), LE32(-294967296), 1},
      {LE64(0), LE64(3723000001), 1},
      {"", std::string("\x00\xff", 2), 1},
  };
  for (size_t i = 0; i < std::size(stats); ++i) {
    const ColumnMetaData& m = *rg.columns[i].meta_data;
    ASSERT_TRUE(m.statistics.has_value()) << i;
    EXPECT_EQ(m.statistics->min_value, stats[i].min) << m.path_in_schema[0];
    EXPECT_EQ(m.statistics->max_value, stats[i].max) << m.path_in_schema[0];
    EXPECT_EQ(m.statistics->null_count, stats[i].nulls) << m.path_in_schema[0];
    EXPECT_EQ(m.codec, CompressionCodec::kSnappy);
    EXPECT_EQ(m.type, leaves[i].type);
  }
}

TEST(PyarrowFooterTest, NestedZstdWithPageIndexAndBloomFilter) {
  Footer f = ParseFile("pyarrow_nested_zstd.parquet");
  const FileMetaData& md = f.md;
  EXPECT_EQ(f.footer_length, 2989u);
  EXPECT_EQ(md.num_rows, 4);
  EXPECT_EQ(md.created_by, kCreatedBy);

  // required group schema { required int64 id = 1; optional group point = 2 { x = 3; y = 4 }
  // optional group tags (List) = 5 { repeated group list { element (String) = 6 } }
  // optional group attrs (Map) = 7 { repeated group key_value { key = 8; value = 9 } } }
  struct Node {
    const char* name;
    std::optional<int32_t> field_id;
    std::optional<int32_t> num_children;
  };
  const Node nodes[] = {
      {"schema", std::nullopt, 4},    {"id", 1, std::nullopt},      {"point", 2, 2},
      {"x", 3, std::nullopt},         {"y", 4, std::nullopt},       {"tags", 5, 1},
      {"list", std::nullopt, 1},      {"element", 6, std::nullopt}, {"attrs", 7, 1},
      {"key_value", std::nullopt, 2}, {"key", 8, std::nullopt},     {"value", 9, std::nullopt}};
  ASSERT_EQ(md.schema.size(), std::size(nodes));
  for (size_t i = 0; i < std::size(nodes); ++i) {
    EXPECT_EQ(md.schema[i].name, nodes[i].name);
    EXPECT_EQ(md.schema[i].field_id, nodes[i].field_id) << nodes[i].name;
    EXPECT_EQ(md.schema[i].num_children, nodes[i].num_children) << nodes[i].name;
  }
  EXPECT_EQ(md.schema[5].logical_type->kind, LogicalType::Kind::kList);
  EXPECT_EQ(md.schema[6].repetition_type, FieldRepetitionType::kRepeated);
  EXPECT_EQ(md.schema[8].logical_type->kind, LogicalType::Kind::kMap);
  EXPECT_EQ(md.schema[10].repetition_type, FieldRepetitionType::kRequired);

  ASSERT_EQ(md.row_groups.size(), 2u);
  EXPECT_EQ(md.row_groups[0].num_rows, 2);
  EXPECT_EQ(md.row_groups[0].total_byte_size, 301);
  EXPECT_EQ(md.row_groups[1].num_rows, 2);
  EXPECT_EQ(md.row_groups[1].total_byte_size, 305);

  const std::vector<std::vector<std::string>> paths = {{"id"},
                                                       {"point", "x"},
                                                       {"point", "y"},
                                                       {"tags", "list", "element"},
                                                       {"attrs", "key_value", "key"},
                                                       {"attrs", "key_value", "value"}};
  for (const RowGroup& rg : md.row_groups) {
    ASSERT_EQ(rg.columns.size(), 6u);
    for (size_t i = 0; i < 6; ++i) {
      const ColumnChunk& c = rg.columns[i];
      EXPECT_EQ(c.meta_data->path_in_schema, paths[i]);
      EXPECT_EQ(c.meta_data->codec, CompressionCodec::kZstd);
      // has_column_index / has_offset_index are true for every chunk.
      EXPECT_TRUE(c.column_index_offset.has_value() && c.column_index_length.has_value());
      EXPECT_TRUE(c.offset_index_offset.has_value() && c.offset_index_length.has_value());
      EXPECT_EQ(c.meta_data->bloom_filter_offset.has_value(), i == 0);
    }
  }
  const ColumnMetaData& id0 = *md.row_groups[0].columns[0].meta_data;
  EXPECT_EQ(id0.bloom_filter_offset, 826);
  EXPECT_EQ(id0.bloom_filter_length, 47);
  EXPECT_EQ(md.row_groups[1].columns[0].meta_data->bloom_filter_offset, 873);
  EXPECT_EQ(id0.statistics->min_value, LE64(10));
  EXPECT_EQ(id0.statistics->max_value, LE64(20));
  // Row group 1, point.y: min -0.0, max 0.0, one null.
  const Statistics& y1 = *md.row_groups[1].columns[2].meta_data->statistics;
  EXPECT_EQ(y1.min_value, LEFloat(-0.0f));
  EXPECT_EQ(y1.max_value, LEFloat(0.0f));
  EXPECT_EQ(y1.null_count, 1);
  const ColumnMetaData& key1 = *md.row_groups[1].columns[4].meta_data;
  EXPECT_EQ(key1.num_values, 3);
  EXPECT_EQ(key1.statistics->min_value, "k2");
  EXPECT_EQ(key1.statistics->max_value, "k3");

  // The Bloom filter: header then numBytes of bitset, bloom_filter_length in total.
  for (const RowGroup& rg : md.row_groups) {
    const ColumnMetaData& m = *rg.columns[0].meta_data;
    BloomFilterHeader bf;
    size_t consumed = 0;
    FLOE_ASSERT_OK(Deserialize(std::span<const uint8_t>(f.file).subspan(*m.bloom_filter_offset),
                               &bf, &consumed));
    EXPECT_EQ(consumed + static_cast<size_t>(bf.num_bytes),
              static_cast<size_t>(*m.bloom_filter_length));
    EXPECT_EQ(bf.algorithm, BloomFilterAlgorithm::kBlock);
    EXPECT_EQ(bf.hash, BloomFilterHash::kXxHash);
    EXPECT_EQ(bf.compression, BloomFilterCompression::kUncompressed);
  }

  // Page index of the first chunk: one data page holding every value; its location is the
  // data page offset, and its size (header included) runs to the end of the chunk.
  const ColumnChunk& c0 = md.row_groups[0].columns[0];
  ColumnIndex ci;
  size_t consumed = 0;
  FLOE_ASSERT_OK(Deserialize(std::span<const uint8_t>(f.file).subspan(*c0.column_index_offset), &ci,
                             &consumed));
  EXPECT_EQ(consumed, static_cast<size_t>(*c0.column_index_length));
  EXPECT_EQ(ci.null_pages, std::vector<bool>{false});
  EXPECT_EQ(ci.min_values, std::vector<std::string>{LE64(10)});
  EXPECT_EQ(ci.max_values, std::vector<std::string>{LE64(20)});
  EXPECT_EQ(ci.null_counts, std::vector<int64_t>{0});
  OffsetIndex oi;
  FLOE_ASSERT_OK(Deserialize(std::span<const uint8_t>(f.file).subspan(*c0.offset_index_offset), &oi,
                             &consumed));
  EXPECT_EQ(consumed, static_cast<size_t>(*c0.offset_index_length));
  ASSERT_EQ(oi.page_locations.size(), 1u);
  EXPECT_EQ(oi.page_locations[0].offset, 43);                         // data_page_offset
  EXPECT_EQ(oi.page_locations[0].compressed_page_size, 4 + 68 - 43);  // dict 4, size 68
  EXPECT_EQ(oi.page_locations[0].first_row_index, 0);

  // Every column index and offset index in the file parses and re-serializes identically.
  for (const RowGroup& rg : md.row_groups) {
    for (const ColumnChunk& c : rg.columns) {
      auto ci_bytes =
          std::span<const uint8_t>(f.file).subspan(*c.column_index_offset, *c.column_index_length);
      ColumnIndex index;
      FLOE_ASSERT_OK(Deserialize(ci_bytes, &index));
      Buffer again;
      Serialize(index, &again);
      EXPECT_EQ(ToBytes(again), Bytes(ci_bytes.begin(), ci_bytes.end()));
      auto oi_bytes =
          std::span<const uint8_t>(f.file).subspan(*c.offset_index_offset, *c.offset_index_length);
      OffsetIndex offsets;
      FLOE_ASSERT_OK(Deserialize(oi_bytes, &offsets));
      again.Clear();
      Serialize(offsets, &again);
      EXPECT_EQ(ToBytes(again), Bytes(oi_bytes.begin(), oi_bytes.end()));
    }
  }
}

TEST(PyarrowFooterTest, V2PagesGzipSorted) {
  Footer f = ParseFile("pyarrow_v2pages_gzip_sorted.parquet");
  const FileMetaData& md = f.md;
  EXPECT_EQ(f.footer_length, 632u);
  EXPECT_EQ(md.num_rows, 6);
  ASSERT_TRUE(md.key_value_metadata.has_value());
  bool found = false;
  for (const KeyValue& kv : *md.key_value_metadata) {
    if (kv.key == "floe.test") {
      found = true;
      EXPECT_EQ(kv.value, "v2 pages");
    }
  }
  EXPECT_TRUE(found);
  for (size_t i = 1; i < md.schema.size(); ++i) EXPECT_FALSE(md.schema[i].field_id.has_value());
  ASSERT_EQ(md.row_groups.size(), 1u);
  const RowGroup& rg = md.row_groups[0];
  EXPECT_EQ(rg.total_byte_size, 187);
  EXPECT_EQ(rg.sorting_columns, (std::vector<SortingColumn>{{0, false, false}, {1, true, false}}));
  const ColumnMetaData& k = *rg.columns[0].meta_data;
  EXPECT_EQ(k.codec, CompressionCodec::kGzip);
  EXPECT_EQ(k.dictionary_page_offset, 4);
  EXPECT_EQ(k.data_page_offset, 49);
  EXPECT_EQ(k.total_compressed_size, 85);
  EXPECT_EQ(k.total_uncompressed_size, 69);
  EXPECT_EQ(k.statistics->min_value, "a");
  EXPECT_EQ(k.statistics->max_value, "c");
  const ColumnMetaData& v = *rg.columns[1].meta_data;
  EXPECT_EQ(EncodingNames(v), (std::set<std::string>{"PLAIN", "RLE"}));
  EXPECT_EQ(v.data_page_offset, 89);
  EXPECT_EQ(v.total_compressed_size, 106);
  EXPECT_EQ(v.num_values, 6);
  EXPECT_EQ(v.statistics->min_value, LE64(1));
  EXPECT_EQ(v.statistics->max_value, LE64(6));
}

TEST(PyarrowFooterTest, FootersReserializeByteForByte) {
  // Arrow's Thrift writer emits fields in id order with short-form headers, as ours does, so
  // a parsed footer written back must equal the original bytes.
  for (const char* name : {"pyarrow_types_snappy.parquet", "pyarrow_nested_zstd.parquet",
                           "pyarrow_v2pages_gzip_sorted.parquet"}) {
    Footer f = ParseFile(name);
    Buffer again;
    Serialize(f.md, &again);
    std::span<const uint8_t> original = FooterBytes(f);
    EXPECT_EQ(ToBytes(again), Bytes(original.begin(), original.end())) << name;
  }
}

TEST(PyarrowFooterTest, EveryPageHeaderOfEveryChunk) {
  // Walks each column chunk from its first page (dictionary if any) to
  // start + total_compressed_size (parquet.md §1), decoding each PageHeader and skipping
  // compressed_page_size bytes of body.
  for (const char* name : {"pyarrow_types_snappy.parquet", "pyarrow_nested_zstd.parquet",
                           "pyarrow_v2pages_gzip_sorted.parquet"}) {
    Footer f = ParseFile(name);
    const bool v2 = std::string(name).find("v2pages") != std::string::npos;
    int pages = 0;
    for (const RowGroup& rg : f.md.row_groups) {
      int64_t rows_in_v2_pages = 0;
      for (const ColumnChunk& c : rg.columns) {
        const ColumnMetaData& m = *c.meta_data;
        const bool has_dict = m.dictionary_page_offset.has_value();
        const int64_t start = has_dict ? *m.dictionary_page_offset : m.data_page_offset;
        const int64_t end = start + m.total_compressed_size;
        int64_t pos = start;
        int64_t values = 0;
        bool first = true;
        bool seen_data_page = false;
        while (pos < end) {
          PageHeader h;
          size_t consumed = 0;
          Status st = Deserialize(std::span<const uint8_t>(f.file).subspan(pos), &h, &consumed);
          FLOE_ASSERT_OK(st) << name << " @" << pos;
          ++pages;
          if (first) {
            EXPECT_EQ(h.type == PageType::kDictionaryPage, has_dict) << name;
            if (has_dict) {
              ASSERT_TRUE(h.dictionary_page_header.has_value());
              EXPECT_GT(h.dictionary_page_header->num_values, 0);
            }
          }
          if (h.type != PageType::kDictionaryPage) {
            if (!seen_data_page) {
              EXPECT_EQ(pos, m.data_page_offset) << name;
            }
            seen_data_page = true;
            EXPECT_EQ(h.type, v2 ? PageType::kDataPageV2 : PageType::kDataPage);
            if (v2) {
              ASSERT_TRUE(h.data_page_header_v2.has_value());
              values += h.data_page_header_v2->num_values;
              rows_in_v2_pages += h.data_page_header_v2->num_rows;
              // Levels are never compressed; an uncompressed values section makes the page
              // the same size on disk as in memory.
              if (!h.data_page_header_v2->is_compressed) {
                EXPECT_EQ(h.compressed_page_size, h.uncompressed_page_size);
              }
            } else {
              ASSERT_TRUE(h.data_page_header.has_value());
              values += h.data_page_header->num_values;
            }
          }
          // Written back, each header is byte-identical to Arrow's.
          Buffer again;
          Serialize(h, &again);
          EXPECT_EQ(ToBytes(again), Bytes(f.file.begin() + pos,
                                          f.file.begin() + pos + static_cast<int64_t>(consumed)));
          pos += static_cast<int64_t>(consumed) + h.compressed_page_size;
          first = false;
        }
        EXPECT_EQ(pos, end) << name;
        EXPECT_EQ(values, m.num_values) << name;
      }
      if (v2) {
        EXPECT_EQ(rows_in_v2_pages, rg.num_rows * static_cast<int64_t>(rg.columns.size()));
      }
    }
    EXPECT_GT(pages, 0);
  }
}

// ---- JSON and schema text.

TEST(MetadataJsonTest, TypesFileRendersValuesByType) {
  Footer f = ParseFile("pyarrow_types_snappy.parquet");
  Json doc = Json::parse(FileMetaDataToJson(f.md, false), nullptr, false);
  ASSERT_FALSE(doc.is_discarded());
  EXPECT_EQ(doc["version"], 2);  // pyarrow format_version 2.6 writes FileMetaData.version 2
  EXPECT_EQ(doc["num_rows"], 3);
  EXPECT_EQ(doc["created_by"], kCreatedBy);
  EXPECT_EQ(doc["schema"][8]["logical_type"],
            Json::parse(R"({"type":"DECIMAL","scale":2,"precision":9})"));
  EXPECT_EQ(doc["schema"][7]["logical_type"],
            Json::parse(R"({"type":"TIMESTAMP","is_adjusted_to_utc":true,"unit":"MICROS"})"));
  EXPECT_EQ(doc["schema"][1]["field_id"], 1);
  EXPECT_EQ(doc["schema"][8]["type"], "FIXED_LEN_BYTE_ARRAY");
  EXPECT_EQ(doc["column_orders"][0], "TYPE_ORDER");
  const Json& cols = doc["row_groups"][0]["columns"];
  EXPECT_EQ(cols[0]["codec"], "SNAPPY");
  EXPECT_EQ(cols[0]["dictionary_page_offset"], 4);
  EXPECT_EQ(cols[0]["path"], Json::parse(R"(["id"])"));
  // min/max as pyarrow's Statistics.min / .max render them.
  auto stat = [&](int col, const char* which) { return cols[col]["statistics"][which]; };
  EXPECT_EQ(stat(0, "min_value"), 1);
  EXPECT_EQ(stat(0, "max_value"), 3);
  EXPECT_EQ(stat(1, "max_value"), 1099511627776);
  EXPECT_EQ(stat(2, "min_value"), "alpha");
  EXPECT_EQ(stat(3, "min_value"), -2.25);
  EXPECT_EQ(stat(4, "min_value"), false);
  EXPECT_EQ(stat(4, "max_value"), true);
  EXPECT_EQ(stat(5, "min_value"), "1969-12-31");
  EXPECT_EQ(stat(5, "max_value"), "2024-01-31");
  EXPECT_EQ(stat(6, "min_value"), "1970-01-01T00:00:00.000000+00:00");
  EXPECT_EQ(stat(6, "max_value"), "2024-05-06T07:08:09.123456+00:00");
  EXPECT_EQ(stat(7, "min_value"), "-0.05");
  EXPECT_EQ(stat(7, "max_value"), "12.34");
  EXPECT_EQ(stat(8, "max_value"), "f79c3e09-677c-4bbd-a479-3f349cb785e7");
  EXPECT_EQ(stat(9, "min_value"), -1.0);
  EXPECT_EQ(stat(9, "max_value"), 2.0);
  EXPECT_EQ(stat(10, "min_value"), -128);
  EXPECT_EQ(stat(11, "max_value"), 4000000000u);
  EXPECT_EQ(stat(12, "max_value"), "01:02:03.000001");
  EXPECT_EQ(stat(13, "min_value"), "");
  EXPECT_EQ(stat(13, "max_value"), "00ff");
  EXPECT_EQ(stat(1, "null_count"), 1);

  // Pretty output is the same document.
  std::string pretty = FileMetaDataToJson(f.md, true);
  EXPECT_NE(pretty.find("\n  \"version\": 2"), std::string::npos);
  EXPECT_EQ(Json::parse(pretty, nullptr, false), doc);
}

TEST(MetadataJsonTest, NestedAndSortedFiles) {
  Footer nested = ParseFile("pyarrow_nested_zstd.parquet");
  Json doc = Json::parse(FileMetaDataToJson(nested.md, true), nullptr, false);
  ASSERT_FALSE(doc.is_discarded());
  const Json& c0 = doc["row_groups"][0]["columns"][0];
  EXPECT_EQ(c0["bloom_filter_offset"], 826);
  EXPECT_EQ(c0["bloom_filter_length"], 47);
  EXPECT_TRUE(c0.contains("column_index_offset"));
  EXPECT_EQ(doc["row_groups"][0]["columns"][3]["path"],
            Json::parse(R"(["tags","list","element"])"));
  EXPECT_EQ(doc["row_groups"][0]["columns"][3]["statistics"]["min_value"], "a");
  EXPECT_EQ(doc["row_groups"][1]["columns"][1]["statistics"]["min_value"], -3.5);

  Footer sorted = ParseFile("pyarrow_v2pages_gzip_sorted.parquet");
  doc = Json::parse(FileMetaDataToJson(sorted.md, false), nullptr, false);
  ASSERT_FALSE(doc.is_discarded());
  EXPECT_EQ(doc["row_groups"][0]["sorting_columns"][1],
            Json::parse(R"({"column_idx":1,"descending":true,"nulls_first":false})"));
  EXPECT_EQ(doc["row_groups"][0]["columns"][0]["codec"], "GZIP");
  bool found = false;
  for (const Json& kv : doc["key_value_metadata"]) {
    if (kv["key"] == "floe.test") found = kv["value"] == "v2 pages";
  }
  EXPECT_TRUE(found);
}

TEST(MetadataJsonTest, UnknownEnumsAndBadValuesRenderSafely) {
  FileMetaData md = FullFileMetaData();
  ColumnMetaData& m = *md.row_groups[0].columns[0].meta_data;
  m.codec = static_cast<CompressionCodec>(42);
  m.type = Type::kFixedLenByteArray;
  m.statistics->min_value = "\x01\x02";  // decimal(30,4) in two bytes: 258 -> 0.0258
  md.schema[1].logical_type = LogicalType::Decimal(30, -7);  // unusable scale: hex instead
  Json doc = Json::parse(FileMetaDataToJson(md, false), nullptr, false);
  ASSERT_FALSE(doc.is_discarded());
  const Json& c = doc["row_groups"][0]["columns"][0];
  EXPECT_EQ(c["codec"], 42);
  EXPECT_EQ(c["encodings"][3], 77);
  EXPECT_EQ(c["statistics"]["min_value"], "0102");
  EXPECT_EQ(c["encrypted"], true);
  EXPECT_EQ(doc["column_orders"][2], "unrecognized");
  EXPECT_EQ(doc["schema"][3]["logical_type"]["type"], "unrecognized");

  md.schema[1].logical_type = LogicalType::Decimal(30, 4);
  doc = Json::parse(FileMetaDataToJson(md, false), nullptr, false);
  EXPECT_EQ(doc["row_groups"][0]["columns"][0]["statistics"]["min_value"], "0.0258");
}

TEST(SchemaTextTest, NestedFile) {
  Footer f = ParseFile("pyarrow_nested_zstd.parquet");
  // The tree pyarrow prints for this file, in Parquet message syntax.
  EXPECT_EQ(SchemaToText(f.md),
            "message schema {\n"
            "  required int64 id = 1;\n"
            "  optional group point = 2 {\n"
            "    optional float x = 3;\n"
            "    optional float y = 4;\n"
            "  }\n"
            "  optional group tags (LIST) = 5 {\n"
            "    repeated group list {\n"
            "      optional binary element (STRING) = 6;\n"
            "    }\n"
            "  }\n"
            "  optional group attrs (MAP) = 7 {\n"
            "    repeated group key_value {\n"
            "      required binary key (STRING) = 8;\n"
            "      optional int32 value = 9;\n"
            "    }\n"
            "  }\n"
            "}\n");
}

TEST(SchemaTextTest, TypesFileAnnotations) {
  Footer f = ParseFile("pyarrow_types_snappy.parquet");
  std::string text = SchemaToText(f.md);
  for (const char* line : {
           "  required int32 id = 1;\n",
           "  optional boolean flag = 5;\n",
           "  optional int32 day (DATE) = 6;\n",
           "  optional int64 ts (TIMESTAMP(MICROS,true)) = 7;\n",
           "  optional fixed_len_byte_array(4) price (DECIMAL(9,2)) = 8;\n",
           "  optional fixed_len_byte_array(16) u (UUID) = 9;\n",
           "  optional fixed_len_byte_array(2) half (FLOAT16) = 10;\n",
           "  optional int32 tiny (INTEGER(8,true)) = 11;\n",
           "  optional int32 count (INTEGER(32,false)) = 12;\n",
           "  optional int64 t (TIME(MICROS,false)) = 13;\n",
           "  optional binary blob = 14;\n",
       }) {
    EXPECT_NE(text.find(line), std::string::npos) << line << "in\n" << text;
  }
}

TEST(SchemaTextTest, MalformedTreesStillRender) {
  FileMetaData md;
  SchemaElement root;
  root.name = "m";
  root.num_children = 1000;  // more children than elements
  md.schema.push_back(root);
  SchemaElement g;
  g.name = "g\nx";
  g.num_children = -3;  // negative: an empty group
  md.schema.push_back(g);
  SchemaElement leaf;
  leaf.name = "leaf";
  leaf.type = static_cast<Type>(99);
  leaf.repetition_type = static_cast<FieldRepetitionType>(7);
  md.schema.push_back(leaf);
  EXPECT_EQ(SchemaToText(md),
            "message m {\n"
            "  required group g?x {\n"
            "  }\n"
            "  repetition(7) type(99) leaf;\n"
            "}\n");
  EXPECT_EQ(SchemaToText(FileMetaData{}), "");
  Json doc = Json::parse(FileMetaDataToJson(md, true), nullptr, false);
  ASSERT_FALSE(doc.is_discarded());
  EXPECT_EQ(doc["schema"][2]["type"], 99);
}

}  // namespace
}  // namespace floe::format::parquet
