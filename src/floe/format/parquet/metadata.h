// Parquet metadata: plain structs mirroring the structs of parquet-format's parquet.thrift
// that a reader or writer needs, and their Thrift compact (de)serialization.
//
// Conventions (shared/reference/parquet.md §2-§3):
// - Member names are the IDL names in snake_case; each member's comment gives its field id.
// - Optional IDL fields are std::optional, optional lists included (absent is not empty:
//   "null_counts absent" differs from "all zero").
// - Enums are `enum class X : int32_t` and parsing never rejects a value: an unknown codec or
//   encoding must only fail when that column is read, not when the footer is parsed.
// - Union members this code does not know are kept, so a footer read and written back loses
//   no annotation (LogicalType, ColumnOrder). Encryption structs are kept opaque: floe does
//   not implement Parquet modular encryption, but must see that a file uses it.
// - Fields not modelled here are skipped like any unknown field: ColumnMetaData's
//   geospatial_statistics, and fields newer than parquet-format 2.13 (SchemaElement's
//   vector_length, ...).
//
// Deserialize() reads one bare struct (no envelope) from untrusted bytes; required fields
// missing or malformed input give kCorrupt. Serialize() writes every required field.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "floe/base/buffer.h"
#include "floe/base/status.h"
#include "floe/format/thrift/compact.h"

namespace floe::format::parquet {

// ---- Enums (parquet.md §3.1). Values are the Thrift enum values.

enum class Type : int32_t {
  kBoolean = 0,
  kInt32 = 1,
  kInt64 = 2,
  kInt96 = 3,  // deprecated
  kFloat = 4,
  kDouble = 5,
  kByteArray = 6,
  kFixedLenByteArray = 7,
};

// Legacy annotations, superseded by LogicalType but still written for old readers.
enum class ConvertedType : int32_t {
  kUtf8 = 0,
  kMap = 1,
  kMapKeyValue = 2,
  kList = 3,
  kEnum = 4,
  kDecimal = 5,
  kDate = 6,
  kTimeMillis = 7,
  kTimeMicros = 8,
  kTimestampMillis = 9,
  kTimestampMicros = 10,
  kUint8 = 11,
  kUint16 = 12,
  kUint32 = 13,
  kUint64 = 14,
  kInt8 = 15,
  kInt16 = 16,
  kInt32 = 17,
  kInt64 = 18,
  kJson = 19,
  kBson = 20,
  kInterval = 21,
};

enum class FieldRepetitionType : int32_t {
  kRequired = 0,
  kOptional = 1,
  kRepeated = 2,
};

enum class Encoding : int32_t {
  kPlain = 0,
  kPlainDictionary = 2,  // deprecated: PLAIN on dictionary pages, RLE_DICTIONARY on data pages
  kRle = 3,
  kBitPacked = 4,  // deprecated, levels only
  kDeltaBinaryPacked = 5,
  kDeltaLengthByteArray = 6,
  kDeltaByteArray = 7,
  kRleDictionary = 8,
  kByteStreamSplit = 9,
};

enum class CompressionCodec : int32_t {
  kUncompressed = 0,
  kSnappy = 1,
  kGzip = 2,
  kLzo = 3,
  kBrotli = 4,
  kLz4 = 5,  // deprecated Hadoop-framed LZ4
  kZstd = 6,
  kLz4Raw = 7,
};

enum class PageType : int32_t {
  kDataPage = 0,
  kIndexPage = 1,
  kDictionaryPage = 2,
  kDataPageV2 = 3,
};

enum class BoundaryOrder : int32_t {
  kUnordered = 0,
  kAscending = 1,
  kDescending = 2,
};

enum class EdgeInterpolationAlgorithm : int32_t {
  kSpherical = 0,
  kVincenty = 1,
  kThomas = 2,
  kAndoyer = 3,
  kKarney = 4,
};

// Unions whose members are all empty structs are kept as the member's field id; 0 means
// the union had no member, and an unknown member keeps its id.
enum class TimeUnit : int16_t { kMillis = 1, kMicros = 2, kNanos = 3 };
enum class BloomFilterAlgorithm : int16_t { kBlock = 1 };
enum class BloomFilterHash : int16_t { kXxHash = 1 };
enum class BloomFilterCompression : int16_t { kUncompressed = 1 };

// The Parquet spelling of an enum value ("INT32", "RLE_DICTIONARY", "SNAPPY", "MICROS"),
// or an empty view for a value this code does not know.
std::string_view EnumName(Type v);
std::string_view EnumName(ConvertedType v);
std::string_view EnumName(FieldRepetitionType v);
std::string_view EnumName(Encoding v);
std::string_view EnumName(CompressionCodec v);
std::string_view EnumName(PageType v);
std::string_view EnumName(BoundaryOrder v);
std::string_view EnumName(EdgeInterpolationAlgorithm v);
std::string_view EnumName(TimeUnit v);
std::string_view EnumName(BloomFilterAlgorithm v);
std::string_view EnumName(BloomFilterHash v);
std::string_view EnumName(BloomFilterCompression v);

// EnumName(v), or the value as a decimal integer when it has no name.
template <typename E>
std::string EnumToString(E v) {
  std::string_view name = EnumName(v);
  return name.empty() ? std::to_string(static_cast<int64_t>(v)) : std::string(name);
}

// ---- Small structs (parquet.md §3.8, §3.9).

// A union member this code does not know, kept encoded so that it is written back unchanged.
// type kStop means the union had no member at all.
struct RawUnionMember {
  int16_t field_id = 0;
  thrift::WireType type = thrift::WireType::kStop;
  std::string value;  // the member's encoded value (a struct: its fields and STOP)

  bool operator==(const RawUnionMember&) const = default;
};

// Min/max values are PLAIN-encoded without the BYTE_ARRAY length prefix. Note the IDL order:
// max before min in both pairs.
struct Statistics {
  std::optional<std::string> max;          // 1, deprecated: signed order
  std::optional<std::string> min;          // 2, deprecated: signed order
  std::optional<int64_t> null_count;       // 3
  std::optional<int64_t> distinct_count;   // 4
  std::optional<std::string> max_value;    // 5
  std::optional<std::string> min_value;    // 6
  std::optional<bool> is_max_value_exact;  // 7
  std::optional<bool> is_min_value_exact;  // 8
  std::optional<int64_t> nan_count;        // 9

  bool operator==(const Statistics&) const = default;
};

struct SizeStatistics {
  std::optional<int64_t> unencoded_byte_array_data_bytes;          // 1
  std::optional<std::vector<int64_t>> repetition_level_histogram;  // 2
  std::optional<std::vector<int64_t>> definition_level_histogram;  // 3

  bool operator==(const SizeStatistics&) const = default;
};

struct PageEncodingStats {
  PageType page_type = PageType::kDataPage;  // 1
  Encoding encoding = Encoding::kPlain;      // 2
  int32_t count = 0;                         // 3

  bool operator==(const PageEncodingStats&) const = default;
};

struct KeyValue {
  std::string key;                   // 1
  std::optional<std::string> value;  // 2

  bool operator==(const KeyValue&) const = default;
};

struct SortingColumn {
  int32_t column_idx = 0;    // 1
  bool descending = false;   // 2
  bool nulls_first = false;  // 3

  bool operator==(const SortingColumn&) const = default;
};

// ---- LogicalType (parquet.md §3.10): a union, kept as a kind plus the payload of that kind.

struct DecimalType {
  int32_t scale = 0;      // 1
  int32_t precision = 0;  // 2

  bool operator==(const DecimalType&) const = default;
};

// The payload of both TIME and TIMESTAMP.
struct TemporalType {
  bool is_adjusted_to_utc = false;    // 1
  TimeUnit unit = TimeUnit::kMicros;  // 2

  bool operator==(const TemporalType&) const = default;
};

struct IntType {
  int8_t bit_width = 0;    // 1, i8 on the wire
  bool is_signed = false;  // 2

  bool operator==(const IntType&) const = default;
};

struct LogicalType {
  // The union members, in field id order (9 is reserved for INTERVAL).
  enum class Kind : uint8_t {
    kString,        // 1
    kMap,           // 2
    kList,          // 3
    kEnum,          // 4
    kDecimal,       // 5
    kDate,          // 6
    kTime,          // 7
    kTimestamp,     // 8
    kInteger,       // 10
    kUnknown,       // 11: every value is null
    kJson,          // 12
    kBson,          // 13
    kUuid,          // 14
    kFloat16,       // 15
    kVariant,       // 16
    kGeometry,      // 17
    kGeography,     // 18
    kUnrecognized,  // a member this code does not know, kept in `unrecognized`
  };

  Kind kind = Kind::kUnrecognized;
  DecimalType decimal;                                       // kDecimal
  TemporalType temporal;                                     // kTime, kTimestamp
  IntType integer;                                           // kInteger
  std::optional<int8_t> variant_specification_version;       // kVariant
  std::optional<std::string> crs;                            // kGeometry, kGeography
  std::optional<EdgeInterpolationAlgorithm> edge_algorithm;  // kGeography
  RawUnionMember unrecognized;                               // kUnrecognized

  static LogicalType Of(Kind kind) {
    LogicalType t;
    t.kind = kind;
    return t;
  }
  static LogicalType Decimal(int32_t precision, int32_t scale) {
    LogicalType t = Of(Kind::kDecimal);
    t.decimal = {scale, precision};
    return t;
  }
  static LogicalType Time(bool is_adjusted_to_utc, TimeUnit unit) {
    LogicalType t = Of(Kind::kTime);
    t.temporal = {is_adjusted_to_utc, unit};
    return t;
  }
  static LogicalType Timestamp(bool is_adjusted_to_utc, TimeUnit unit) {
    LogicalType t = Of(Kind::kTimestamp);
    t.temporal = {is_adjusted_to_utc, unit};
    return t;
  }
  static LogicalType Integer(int8_t bit_width, bool is_signed) {
    LogicalType t = Of(Kind::kInteger);
    t.integer = {bit_width, is_signed};
    return t;
  }

  bool operator==(const LogicalType&) const = default;
};

// "STRING", "DECIMAL", ...; "unrecognized" for kUnrecognized.
std::string_view LogicalTypeKindName(LogicalType::Kind kind);

// ---- Schema (parquet.md §3.3).

struct SchemaElement {
  std::optional<Type> type;                            // 1, leaves only
  std::optional<int32_t> type_length;                  // 2
  std::optional<FieldRepetitionType> repetition_type;  // 3, absent on the root
  std::string name;                                    // 4, required
  std::optional<int32_t> num_children;                 // 5, groups only
  std::optional<ConvertedType> converted_type;         // 6
  std::optional<int32_t> scale;                        // 7
  std::optional<int32_t> precision;                    // 8
  std::optional<int32_t> field_id;                     // 9
  std::optional<LogicalType> logical_type;             // 10

  bool operator==(const SchemaElement&) const = default;
};

// The element's logical type, or the one its legacy converted_type implies when it has none
// (parquet.md §3.10: legacy TIME and TIMESTAMP are UTC-adjusted; DECIMAL takes scale and
// precision from the element, scale defaulting to 0). nullopt when neither says anything.
std::optional<LogicalType> EffectiveLogicalType(const SchemaElement& element);

// ---- Column chunks and row groups (parquet.md §3.4-§3.6).

struct ColumnMetaData {
  Type type = Type::kBoolean;                                    // 1
  std::vector<Encoding> encodings;                               // 2
  std::vector<std::string> path_in_schema;                       // 3
  CompressionCodec codec = CompressionCodec::kUncompressed;      // 4
  int64_t num_values = 0;                                        // 5
  int64_t total_uncompressed_size = 0;                           // 6
  int64_t total_compressed_size = 0;                             // 7
  std::optional<std::vector<KeyValue>> key_value_metadata;       // 8
  int64_t data_page_offset = 0;                                  // 9
  std::optional<int64_t> index_page_offset;                      // 10
  std::optional<int64_t> dictionary_page_offset;                 // 11
  std::optional<Statistics> statistics;                          // 12
  std::optional<std::vector<PageEncodingStats>> encoding_stats;  // 13
  std::optional<int64_t> bloom_filter_offset;                    // 14
  std::optional<int32_t> bloom_filter_length;                    // 15
  std::optional<SizeStatistics> size_statistics;                 // 16
  // 17 geospatial_statistics is skipped.

  bool operator==(const ColumnMetaData&) const = default;
};

struct ColumnChunk {
  std::optional<std::string> file_path;        // 1, summary files only
  int64_t file_offset = 0;                     // 2, required, deprecated: write 0
  std::optional<ColumnMetaData> meta_data;     // 3, effectively required
  std::optional<int64_t> offset_index_offset;  // 4
  std::optional<int32_t> offset_index_length;  // 5
  std::optional<int64_t> column_index_offset;  // 6
  std::optional<int32_t> column_index_length;  // 7
  // 8 ColumnCryptoMetaData, kept as its encoded struct: present means the column is
  // encrypted.
  std::optional<std::string> crypto_metadata;
  std::optional<std::string> encrypted_column_metadata;  // 9

  bool operator==(const ColumnChunk&) const = default;
};

struct RowGroup {
  std::vector<ColumnChunk> columns;                           // 1, one per leaf
  int64_t total_byte_size = 0;                                // 2
  int64_t num_rows = 0;                                       // 3
  std::optional<std::vector<SortingColumn>> sorting_columns;  // 4
  std::optional<int64_t> file_offset;                         // 5, unreliable in old files
  std::optional<int64_t> total_compressed_size;               // 6
  std::optional<int16_t> ordinal;                             // 7

  bool operator==(const RowGroup&) const = default;
};

// The sort order of a leaf's min/max statistics (a union).
struct ColumnOrder {
  enum class Kind : uint8_t {
    kTypeOrder,            // 1
    kIeee754TotalOrder,    // 2
    kInt96TimestampOrder,  // 3 (newer than parquet-format 2.13)
    kUnrecognized,         // readers must ignore min/max under an order they do not know
  };
  Kind kind = Kind::kTypeOrder;
  RawUnionMember unrecognized;  // kUnrecognized

  bool operator==(const ColumnOrder&) const = default;
};

// "TYPE_ORDER", "IEEE_754_TOTAL_ORDER", "INT96_TIMESTAMP_ORDER", "unrecognized".
std::string_view ColumnOrderKindName(ColumnOrder::Kind kind);

struct FileMetaData {
  int32_t version = 1;                                      // 1
  std::vector<SchemaElement> schema;                        // 2, depth-first, root first
  int64_t num_rows = 0;                                     // 3
  std::vector<RowGroup> row_groups;                         // 4
  std::optional<std::vector<KeyValue>> key_value_metadata;  // 5
  std::optional<std::string> created_by;                    // 6
  std::optional<std::vector<ColumnOrder>> column_orders;    // 7, one per leaf
  // 8 EncryptionAlgorithm, kept as its encoded struct: present only in encrypted files with
  // a plaintext footer.
  std::optional<std::string> encryption_algorithm;
  std::optional<std::string> footer_signing_key_metadata;  // 9

  bool operator==(const FileMetaData&) const = default;
};

// ---- Pages (parquet.md §3.7).

struct DataPageHeader {
  int32_t num_values = 0;                               // 1, level entries incl. nulls
  Encoding encoding = Encoding::kPlain;                 // 2
  Encoding definition_level_encoding = Encoding::kRle;  // 3
  Encoding repetition_level_encoding = Encoding::kRle;  // 4
  std::optional<Statistics> statistics;                 // 5

  bool operator==(const DataPageHeader&) const = default;
};

struct IndexPageHeader {
  bool operator==(const IndexPageHeader&) const = default;
};

struct DictionaryPageHeader {
  int32_t num_values = 0;                // 1
  Encoding encoding = Encoding::kPlain;  // 2
  std::optional<bool> is_sorted;         // 3

  bool operator==(const DictionaryPageHeader&) const = default;
};

struct DataPageHeaderV2 {
  int32_t num_values = 0;                     // 1
  int32_t num_nulls = 0;                      // 2
  int32_t num_rows = 0;                       // 3
  Encoding encoding = Encoding::kPlain;       // 4
  int32_t definition_levels_byte_length = 0;  // 5
  int32_t repetition_levels_byte_length = 0;  // 6
  bool is_compressed = true;                  // 7, optional: absent means true
  std::optional<Statistics> statistics;       // 8

  bool operator==(const DataPageHeaderV2&) const = default;
};

struct PageHeader {
  PageType type = PageType::kDataPage;                         // 1
  int32_t uncompressed_page_size = 0;                          // 2
  int32_t compressed_page_size = 0;                            // 3
  std::optional<int32_t> crc;                                  // 4
  std::optional<DataPageHeader> data_page_header;              // 5
  std::optional<IndexPageHeader> index_page_header;            // 6
  std::optional<DictionaryPageHeader> dictionary_page_header;  // 7
  std::optional<DataPageHeaderV2> data_page_header_v2;         // 8

  bool operator==(const PageHeader&) const = default;
};

// ---- Bloom filter and page index (parquet.md §3.11, §3.12).

struct BloomFilterHeader {
  int32_t num_bytes = 0;                                                       // 1
  BloomFilterAlgorithm algorithm = BloomFilterAlgorithm::kBlock;               // 2
  BloomFilterHash hash = BloomFilterHash::kXxHash;                             // 3
  BloomFilterCompression compression = BloomFilterCompression::kUncompressed;  // 4

  bool operator==(const BloomFilterHeader&) const = default;
};

struct PageLocation {
  int64_t offset = 0;                // 1, of the page header
  int32_t compressed_page_size = 0;  // 2, header included
  int64_t first_row_index = 0;       // 3, within the row group

  bool operator==(const PageLocation&) const = default;
};

struct OffsetIndex {
  std::vector<PageLocation> page_locations;                             // 1
  std::optional<std::vector<int64_t>> unencoded_byte_array_data_bytes;  // 2

  bool operator==(const OffsetIndex&) const = default;
};

struct ColumnIndex {
  std::vector<bool> null_pages;                                     // 1
  std::vector<std::string> min_values;                              // 2
  std::vector<std::string> max_values;                              // 3
  BoundaryOrder boundary_order = BoundaryOrder::kUnordered;         // 4
  std::optional<std::vector<int64_t>> null_counts;                  // 5
  std::optional<std::vector<int64_t>> repetition_level_histograms;  // 6
  std::optional<std::vector<int64_t>> definition_level_histograms;  // 7
  std::optional<std::vector<int64_t>> nan_counts;                   // 8

  bool operator==(const ColumnIndex&) const = default;
};

// ---- Serialization.
//
// Deserialize parses one struct from the start of `bytes` into `*out` (which is reset first)
// and sets `*consumed` (if not null) to the bytes it used; bytes after the struct, such as
// a page body after its PageHeader, are not looked at. Returns kCorrupt for malformed or
// truncated input, limits exceeded, or a required field missing.
//
// Serialize appends the struct's compact encoding to `out`.

Status Deserialize(std::span<const uint8_t> bytes, FileMetaData* out, size_t* consumed = nullptr,
                   const thrift::ReaderLimits& limits = {});
Status Deserialize(std::span<const uint8_t> bytes, PageHeader* out, size_t* consumed = nullptr,
                   const thrift::ReaderLimits& limits = {});
Status Deserialize(std::span<const uint8_t> bytes, BloomFilterHeader* out,
                   size_t* consumed = nullptr, const thrift::ReaderLimits& limits = {});
Status Deserialize(std::span<const uint8_t> bytes, ColumnIndex* out, size_t* consumed = nullptr,
                   const thrift::ReaderLimits& limits = {});
Status Deserialize(std::span<const uint8_t> bytes, OffsetIndex* out, size_t* consumed = nullptr,
                   const thrift::ReaderLimits& limits = {});

void Serialize(const FileMetaData& v, Buffer* out);
void Serialize(const PageHeader& v, Buffer* out);
void Serialize(const BloomFilterHeader& v, Buffer* out);
void Serialize(const ColumnIndex& v, Buffer* out);
void Serialize(const OffsetIndex& v, Buffer* out);

}  // namespace floe::format::parquet
