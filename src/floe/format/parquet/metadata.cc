#include "floe/format/parquet/metadata.h"

#include <algorithm>
#include <initializer_list>
#include <type_traits>

#include "floe/base/macros.h"

namespace floe::format::parquet {

std::string_view EnumName(Type v) {
  switch (v) {
    case Type::kBoolean: return "BOOLEAN";
    case Type::kInt32: return "INT32";
    case Type::kInt64: return "INT64";
    case Type::kInt96: return "INT96";
    case Type::kFloat: return "FLOAT";
    case Type::kDouble: return "DOUBLE";
    case Type::kByteArray: return "BYTE_ARRAY";
    case Type::kFixedLenByteArray: return "FIXED_LEN_BYTE_ARRAY";
  }
  return {};
}

std::string_view EnumName(ConvertedType v) {
  switch (v) {
    case ConvertedType::kUtf8: return "UTF8";
    case ConvertedType::kMap: return "MAP";
    case ConvertedType::kMapKeyValue: return "MAP_KEY_VALUE";
    case ConvertedType::kList: return "LIST";
    case ConvertedType::kEnum: return "ENUM";
    case ConvertedType::kDecimal: return "DECIMAL";
    case ConvertedType::kDate: return "DATE";
    case ConvertedType::kTimeMillis: return "TIME_MILLIS";
    case ConvertedType::kTimeMicros: return "TIME_MICROS";
    case ConvertedType::kTimestampMillis: return "TIMESTAMP_MILLIS";
    case ConvertedType::kTimestampMicros: return "TIMESTAMP_MICROS";
    case ConvertedType::kUint8: return "UINT_8";
    case ConvertedType::kUint16: return "UINT_16";
    case ConvertedType::kUint32: return "UINT_32";
    case ConvertedType::kUint64: return "UINT_64";
    case ConvertedType::kInt8: return "INT_8";
    case ConvertedType::kInt16: return "INT_16";
    case ConvertedType::kInt32: return "INT_32";
    case ConvertedType::kInt64: return "INT_64";
    case ConvertedType::kJson: return "JSON";
    case ConvertedType::kBson: return "BSON";
    case ConvertedType::kInterval: return "INTERVAL";
  }
  return {};
}

std::string_view EnumName(FieldRepetitionType v) {
  switch (v) {
    case FieldRepetitionType::kRequired: return "REQUIRED";
    case FieldRepetitionType::kOptional: return "OPTIONAL";
    case FieldRepetitionType::kRepeated: return "REPEATED";
  }
  return {};
}

std::string_view EnumName(Encoding v) {
  switch (v) {
    case Encoding::kPlain: return "PLAIN";
    case Encoding::kPlainDictionary: return "PLAIN_DICTIONARY";
    case Encoding::kRle: return "RLE";
    case Encoding::kBitPacked: return "BIT_PACKED";
    case Encoding::kDeltaBinaryPacked: return "DELTA_BINARY_PACKED";
    case Encoding::kDeltaLengthByteArray: return "DELTA_LENGTH_BYTE_ARRAY";
    case Encoding::kDeltaByteArray: return "DELTA_BYTE_ARRAY";
    case Encoding::kRleDictionary: return "RLE_DICTIONARY";
    case Encoding::kByteStreamSplit: return "BYTE_STREAM_SPLIT";
  }
  return {};
}

std::string_view EnumName(CompressionCodec v) {
  switch (v) {
    case CompressionCodec::kUncompressed: return "UNCOMPRESSED";
    case CompressionCodec::kSnappy: return "SNAPPY";
    case CompressionCodec::kGzip: return "GZIP";
    case CompressionCodec::kLzo: return "LZO";
    case CompressionCodec::kBrotli: return "BROTLI";
    case CompressionCodec::kLz4: return "LZ4";
    case CompressionCodec::kZstd: return "ZSTD";
    case CompressionCodec::kLz4Raw: return "LZ4_RAW";
  }
  return {};
}

std::string_view EnumName(PageType v) {
  switch (v) {
    case PageType::kDataPage: return "DATA_PAGE";
    case PageType::kIndexPage: return "INDEX_PAGE";
    case PageType::kDictionaryPage: return "DICTIONARY_PAGE";
    case PageType::kDataPageV2: return "DATA_PAGE_V2";
  }
  return {};
}

std::string_view EnumName(BoundaryOrder v) {
  switch (v) {
    case BoundaryOrder::kUnordered: return "UNORDERED";
    case BoundaryOrder::kAscending: return "ASCENDING";
    case BoundaryOrder::kDescending: return "DESCENDING";
  }
  return {};
}

std::string_view EnumName(EdgeInterpolationAlgorithm v) {
  switch (v) {
    case EdgeInterpolationAlgorithm::kSpherical: return "SPHERICAL";
    case EdgeInterpolationAlgorithm::kVincenty: return "VINCENTY";
    case EdgeInterpolationAlgorithm::kThomas: return "THOMAS";
    case EdgeInterpolationAlgorithm::kAndoyer: return "ANDOYER";
    case EdgeInterpolationAlgorithm::kKarney: return "KARNEY";
  }
  return {};
}

std::string_view EnumName(TimeUnit v) {
  switch (v) {
    case TimeUnit::kMillis: return "MILLIS";
    case TimeUnit::kMicros: return "MICROS";
    case TimeUnit::kNanos: return "NANOS";
  }
  return {};
}

std::string_view EnumName(BloomFilterAlgorithm v) {
  return v == BloomFilterAlgorithm::kBlock ? "BLOCK" : std::string_view();
}

std::string_view EnumName(BloomFilterHash v) {
  return v == BloomFilterHash::kXxHash ? "XXHASH" : std::string_view();
}

std::string_view EnumName(BloomFilterCompression v) {
  return v == BloomFilterCompression::kUncompressed ? "UNCOMPRESSED" : std::string_view();
}

std::string_view LogicalTypeKindName(LogicalType::Kind kind) {
  using K = LogicalType::Kind;
  switch (kind) {
    case K::kString: return "STRING";
    case K::kMap: return "MAP";
    case K::kList: return "LIST";
    case K::kEnum: return "ENUM";
    case K::kDecimal: return "DECIMAL";
    case K::kDate: return "DATE";
    case K::kTime: return "TIME";
    case K::kTimestamp: return "TIMESTAMP";
    case K::kInteger: return "INTEGER";
    case K::kUnknown: return "UNKNOWN";
    case K::kJson: return "JSON";
    case K::kBson: return "BSON";
    case K::kUuid: return "UUID";
    case K::kFloat16: return "FLOAT16";
    case K::kVariant: return "VARIANT";
    case K::kGeometry: return "GEOMETRY";
    case K::kGeography: return "GEOGRAPHY";
    case K::kUnrecognized: return "unrecognized";
  }
  return "unrecognized";
}

std::string_view ColumnOrderKindName(ColumnOrder::Kind kind) {
  switch (kind) {
    case ColumnOrder::Kind::kTypeOrder: return "TYPE_ORDER";
    case ColumnOrder::Kind::kIeee754TotalOrder: return "IEEE_754_TOTAL_ORDER";
    case ColumnOrder::Kind::kInt96TimestampOrder: return "INT96_TIMESTAMP_ORDER";
    case ColumnOrder::Kind::kUnrecognized: return "unrecognized";
  }
  return "unrecognized";
}

std::optional<LogicalType> EffectiveLogicalType(const SchemaElement& e) {
  using K = LogicalType::Kind;
  if (e.logical_type) return e.logical_type;
  if (!e.converted_type) return std::nullopt;
  switch (*e.converted_type) {
    case ConvertedType::kUtf8: return LogicalType::Of(K::kString);
    case ConvertedType::kMap:
    case ConvertedType::kMapKeyValue: return LogicalType::Of(K::kMap);
    case ConvertedType::kList: return LogicalType::Of(K::kList);
    case ConvertedType::kEnum: return LogicalType::Of(K::kEnum);
    case ConvertedType::kDecimal:
      return LogicalType::Decimal(e.precision.value_or(0), e.scale.value_or(0));
    case ConvertedType::kDate: return LogicalType::Of(K::kDate);
    case ConvertedType::kTimeMillis: return LogicalType::Time(true, TimeUnit::kMillis);
    case ConvertedType::kTimeMicros: return LogicalType::Time(true, TimeUnit::kMicros);
    case ConvertedType::kTimestampMillis: return LogicalType::Timestamp(true, TimeUnit::kMillis);
    case ConvertedType::kTimestampMicros: return LogicalType::Timestamp(true, TimeUnit::kMicros);
    case ConvertedType::kUint8: return LogicalType::Integer(8, false);
    case ConvertedType::kUint16: return LogicalType::Integer(16, false);
    case ConvertedType::kUint32: return LogicalType::Integer(32, false);
    case ConvertedType::kUint64: return LogicalType::Integer(64, false);
    case ConvertedType::kInt8: return LogicalType::Integer(8, true);
    case ConvertedType::kInt16: return LogicalType::Integer(16, true);
    case ConvertedType::kInt32: return LogicalType::Integer(32, true);
    case ConvertedType::kInt64: return LogicalType::Integer(64, true);
    case ConvertedType::kJson: return LogicalType::Of(K::kJson);
    case ConvertedType::kBson: return LogicalType::Of(K::kBson);
    case ConvertedType::kInterval: return std::nullopt;
  }
  return std::nullopt;
}

namespace {

using thrift::CompactReader;
using thrift::CompactWriter;
using thrift::FieldHeader;
using thrift::ListHeader;
using thrift::WireType;

// ---- Mapping C++ member types to wire types.

template <typename T>
struct IsVector : std::false_type {};
template <typename T>
struct IsVector<std::vector<T>> : std::true_type {};

// Enums with an int32 underlying type are Thrift enums (i32 on the wire); the int16 ones are
// unions of empty structs stored as the member id (see metadata.h).
template <typename T, bool = std::is_enum_v<T>>
struct EnumBase {
  using type = void;
};
template <typename T>
struct EnumBase<T, true> {
  using type = std::underlying_type_t<T>;
};
template <typename T>
constexpr bool kIsThriftEnum = std::is_same_v<typename EnumBase<T>::type, int32_t>;
template <typename T>
constexpr bool kIsMemberIdUnion = std::is_same_v<typename EnumBase<T>::type, int16_t>;

template <typename T>
constexpr WireType WireTypeOf() {
  if constexpr (std::is_same_v<T, bool>) {
    return WireType::kBoolTrue;
  } else if constexpr (std::is_same_v<T, int8_t>) {
    return WireType::kI8;
  } else if constexpr (std::is_same_v<T, int16_t>) {
    return WireType::kI16;
  } else if constexpr (std::is_same_v<T, int32_t> || kIsThriftEnum<T>) {
    return WireType::kI32;
  } else if constexpr (std::is_same_v<T, int64_t>) {
    return WireType::kI64;
  } else if constexpr (std::is_same_v<T, std::string>) {
    return WireType::kBinary;
  } else if constexpr (IsVector<T>::value) {
    return WireType::kList;
  } else {
    return WireType::kStruct;
  }
}

bool TypeMatches(WireType expected, WireType actual) {
  return expected == actual || (thrift::IsBool(expected) && thrift::IsBool(actual));
}

// ---- Reading.

// Struct readers. Each fills a default-constructed `out`; the templates below reach them
// through these declarations.
Status ReadValue(CompactReader& r, Statistics* out);
Status ReadValue(CompactReader& r, SizeStatistics* out);
Status ReadValue(CompactReader& r, PageEncodingStats* out);
Status ReadValue(CompactReader& r, KeyValue* out);
Status ReadValue(CompactReader& r, SortingColumn* out);
Status ReadValue(CompactReader& r, DecimalType* out);
Status ReadValue(CompactReader& r, TemporalType* out);
Status ReadValue(CompactReader& r, IntType* out);
Status ReadValue(CompactReader& r, LogicalType* out);
Status ReadValue(CompactReader& r, SchemaElement* out);
Status ReadValue(CompactReader& r, ColumnMetaData* out);
Status ReadValue(CompactReader& r, ColumnChunk* out);
Status ReadValue(CompactReader& r, RowGroup* out);
Status ReadValue(CompactReader& r, ColumnOrder* out);
Status ReadValue(CompactReader& r, FileMetaData* out);
Status ReadValue(CompactReader& r, DataPageHeader* out);
Status ReadValue(CompactReader& r, IndexPageHeader* out);
Status ReadValue(CompactReader& r, DictionaryPageHeader* out);
Status ReadValue(CompactReader& r, DataPageHeaderV2* out);
Status ReadValue(CompactReader& r, PageHeader* out);
Status ReadValue(CompactReader& r, BloomFilterHeader* out);
Status ReadValue(CompactReader& r, PageLocation* out);
Status ReadValue(CompactReader& r, OffsetIndex* out);
Status ReadValue(CompactReader& r, ColumnIndex* out);

// Reads a union of empty structs as its member's field id (0 if it has none).
template <typename E>
Status ReadMemberIdUnion(CompactReader& r, E* out) {
  int16_t member = 0;
  FLOE_RETURN_IF_ERROR(r.ReadStruct([&](const FieldHeader& h) -> Status {
    if (h.type == WireType::kStruct) member = h.id;
    return r.Skip(h.type);
  }));
  *out = static_cast<E>(member);
  return Status::OK();
}

template <typename T>
Status ReadList(CompactReader& r, std::vector<T>* out);

// Reads one value of type T; the caller has checked the wire type. (Bools are read where
// they occur: in the field header, or as list elements in ReadList.)
template <typename T>
Status ReadElement(CompactReader& r, T* out) {
  if constexpr (std::is_same_v<T, int8_t>) {
    FLOE_ASSIGN_OR_RETURN(*out, r.ReadI8());
  } else if constexpr (std::is_same_v<T, int16_t>) {
    FLOE_ASSIGN_OR_RETURN(*out, r.ReadI16());
  } else if constexpr (std::is_same_v<T, int32_t>) {
    FLOE_ASSIGN_OR_RETURN(*out, r.ReadI32());
  } else if constexpr (std::is_same_v<T, int64_t>) {
    FLOE_ASSIGN_OR_RETURN(*out, r.ReadI64());
  } else if constexpr (std::is_same_v<T, std::string>) {
    return r.ReadString(out);
  } else if constexpr (kIsThriftEnum<T>) {
    // Any i32 is kept: unknown values fail only where they are used (parquet.md §2.5).
    FLOE_ASSIGN_OR_RETURN(int32_t v, r.ReadI32());
    *out = static_cast<T>(v);
  } else if constexpr (kIsMemberIdUnion<T>) {
    return ReadMemberIdUnion(r, out);
  } else if constexpr (IsVector<T>::value) {
    return ReadList(r, out);
  } else {
    return ReadValue(r, out);
  }
  return Status::OK();
}

template <typename T>
Status ReadList(CompactReader& r, std::vector<T>* out) {
  FLOE_ASSIGN_OR_RETURN(ListHeader h, r.ReadListHeader());
  constexpr WireType kExpected = WireTypeOf<T>();
  if (FLOE_PREDICT_FALSE(!TypeMatches(kExpected, h.element_type))) {
    return Status::Corrupt("parquet: list of {} where {} elements belong",
                           thrift::WireTypeName(h.element_type), thrift::WireTypeName(kExpected));
  }
  out->clear();
  // ReadListHeader checked that the elements could fit in the input. Struct elements can be
  // far larger in memory than their minimal encoding, so those vectors grow as they parse.
  constexpr size_t kMaxStructReserve = 1024;
  out->reserve(kExpected == WireType::kStruct ? std::min<size_t>(h.size, kMaxStructReserve)
                                              : h.size);
  for (uint32_t i = 0; i < h.size; ++i) {
    if constexpr (std::is_same_v<T, bool>) {  // no references into a vector<bool>
      FLOE_ASSIGN_OR_RETURN(bool b, r.ReadBoolElement());
      out->push_back(b);
    } else {
      FLOE_RETURN_IF_ERROR(ReadElement(r, &out->emplace_back()));
    }
  }
  return Status::OK();
}

// Reads field `h` into `*out` and marks it in `*seen` when its wire type is the one the IDL
// declares; a field of another type is skipped, as Thrift-generated readers do (a required
// field then reports as missing). REQUIRES: 0 < h.id < 32.
template <typename T>
Status ReadField(CompactReader& r, const FieldHeader& h, T* out, uint32_t* seen) {
  if (!TypeMatches(WireTypeOf<T>(), h.type)) return r.Skip(h.type);
  if constexpr (std::is_same_v<T, bool>) {
    *out = h.bool_value();
  } else {
    FLOE_RETURN_IF_ERROR(ReadElement(r, out));
  }
  *seen |= 1u << h.id;
  return Status::OK();
}

template <typename T>
Status ReadField(CompactReader& r, const FieldHeader& h, std::optional<T>* out, uint32_t* seen) {
  if (!TypeMatches(WireTypeOf<T>(), h.type)) return r.Skip(h.type);
  return ReadField(r, h, &out->emplace(), seen);
}

// Keeps a struct-typed field as its encoded bytes (encryption metadata floe does not parse).
Status ReadOpaqueStruct(CompactReader& r, const FieldHeader& h, std::optional<std::string>* out) {
  if (h.type != WireType::kStruct) return r.Skip(h.type);
  FLOE_ASSIGN_OR_RETURN(std::span<const uint8_t> raw, r.SkipAndCapture(h.type));
  out->emplace(reinterpret_cast<const char*>(raw.data()), raw.size());
  return Status::OK();
}

struct RequiredField {
  int id;
  std::string_view name;
};

Status CheckRequired(uint32_t seen, std::string_view struct_name,
                     std::initializer_list<RequiredField> fields) {
  for (const RequiredField& f : fields) {
    if (FLOE_PREDICT_FALSE((seen & (1u << f.id)) == 0)) {
      return Status::Corrupt("parquet {}: required field '{}' ({}) is missing", struct_name, f.name,
                             f.id);
    }
  }
  return Status::OK();
}

Status ReadValue(CompactReader& r, Statistics* out) {
  uint32_t seen = 0;
  return r.ReadStruct([&](const FieldHeader& h) -> Status {
    switch (h.id) {
      case 1: return ReadField(r, h, &out->max, &seen);
      case 2: return ReadField(r, h, &out->min, &seen);
      case 3: return ReadField(r, h, &out->null_count, &seen);
      case 4: return ReadField(r, h, &out->distinct_count, &seen);
      case 5: return ReadField(r, h, &out->max_value, &seen);
      case 6: return ReadField(r, h, &out->min_value, &seen);
      case 7: return ReadField(r, h, &out->is_max_value_exact, &seen);
      case 8: return ReadField(r, h, &out->is_min_value_exact, &seen);
      case 9: return ReadField(r, h, &out->nan_count, &seen);
      default: return r.Skip(h.type);
    }
  });
}

Status ReadValue(CompactReader& r, SizeStatistics* out) {
  uint32_t seen = 0;
  return r.ReadStruct([&](const FieldHeader& h) -> Status {
    switch (h.id) {
      case 1: return ReadField(r, h, &out->unencoded_byte_array_data_bytes, &seen);
      case 2: return ReadField(r, h, &out->repetition_level_histogram, &seen);
      case 3: return ReadField(r, h, &out->definition_level_histogram, &seen);
      default: return r.Skip(h.type);
    }
  });
}

Status ReadValue(CompactReader& r, PageEncodingStats* out) {
  uint32_t seen = 0;
  FLOE_RETURN_IF_ERROR(r.ReadStruct([&](const FieldHeader& h) -> Status {
    switch (h.id) {
      case 1: return ReadField(r, h, &out->page_type, &seen);
      case 2: return ReadField(r, h, &out->encoding, &seen);
      case 3: return ReadField(r, h, &out->count, &seen);
      default: return r.Skip(h.type);
    }
  }));
  return CheckRequired(seen, "PageEncodingStats",
                       {{1, "page_type"}, {2, "encoding"}, {3, "count"}});
}

Status ReadValue(CompactReader& r, KeyValue* out) {
  uint32_t seen = 0;
  FLOE_RETURN_IF_ERROR(r.ReadStruct([&](const FieldHeader& h) -> Status {
    switch (h.id) {
      case 1: return ReadField(r, h, &out->key, &seen);
      case 2: return ReadField(r, h, &out->value, &seen);
      default: return r.Skip(h.type);
    }
  }));
  return CheckRequired(seen, "KeyValue", {{1, "key"}});
}

Status ReadValue(CompactReader& r, SortingColumn* out) {
  uint32_t seen = 0;
  FLOE_RETURN_IF_ERROR(r.ReadStruct([&](const FieldHeader& h) -> Status {
    switch (h.id) {
      case 1: return ReadField(r, h, &out->column_idx, &seen);
      case 2: return ReadField(r, h, &out->descending, &seen);
      case 3: return ReadField(r, h, &out->nulls_first, &seen);
      default: return r.Skip(h.type);
    }
  }));
  return CheckRequired(seen, "SortingColumn",
                       {{1, "column_idx"}, {2, "descending"}, {3, "nulls_first"}});
}

Status ReadValue(CompactReader& r, DecimalType* out) {
  uint32_t seen = 0;
  FLOE_RETURN_IF_ERROR(r.ReadStruct([&](const FieldHeader& h) -> Status {
    switch (h.id) {
      case 1: return ReadField(r, h, &out->scale, &seen);
      case 2: return ReadField(r, h, &out->precision, &seen);
      default: return r.Skip(h.type);
    }
  }));
  return CheckRequired(seen, "DecimalType", {{1, "scale"}, {2, "precision"}});
}

Status ReadValue(CompactReader& r, TemporalType* out) {
  uint32_t seen = 0;
  FLOE_RETURN_IF_ERROR(r.ReadStruct([&](const FieldHeader& h) -> Status {
    switch (h.id) {
      case 1: return ReadField(r, h, &out->is_adjusted_to_utc, &seen);
      case 2: return ReadField(r, h, &out->unit, &seen);
      default: return r.Skip(h.type);
    }
  }));
  return CheckRequired(seen, "TimeType/TimestampType", {{1, "isAdjustedToUTC"}, {2, "unit"}});
}

Status ReadValue(CompactReader& r, IntType* out) {
  uint32_t seen = 0;
  FLOE_RETURN_IF_ERROR(r.ReadStruct([&](const FieldHeader& h) -> Status {
    switch (h.id) {
      case 1: return ReadField(r, h, &out->bit_width, &seen);
      case 2: return ReadField(r, h, &out->is_signed, &seen);
      default: return r.Skip(h.type);
    }
  }));
  return CheckRequired(seen, "IntType", {{1, "bitWidth"}, {2, "isSigned"}});
}

Status ReadValue(CompactReader& r, LogicalType* out) {
  using K = LogicalType::Kind;
  // A union: the last member present wins, replacing whatever an earlier one set. Members
  // with empty payloads skip theirs, so fields added to them later are ignored.
  return r.ReadStruct([&](const FieldHeader& h) -> Status {
    uint32_t seen = 0;
    *out = LogicalType{};
    if (h.type == WireType::kStruct) {
      switch (h.id) {
        case 1: out->kind = K::kString; return r.Skip(h.type);
        case 2: out->kind = K::kMap; return r.Skip(h.type);
        case 3: out->kind = K::kList; return r.Skip(h.type);
        case 4: out->kind = K::kEnum; return r.Skip(h.type);
        case 5: out->kind = K::kDecimal; return ReadValue(r, &out->decimal);
        case 6: out->kind = K::kDate; return r.Skip(h.type);
        case 7:
        case 8:
          out->kind = h.id == 7 ? K::kTime : K::kTimestamp;
          return ReadValue(r, &out->temporal);
        case 10: out->kind = K::kInteger; return ReadValue(r, &out->integer);
        case 11: out->kind = K::kUnknown; return r.Skip(h.type);
        case 12: out->kind = K::kJson; return r.Skip(h.type);
        case 13: out->kind = K::kBson; return r.Skip(h.type);
        case 14: out->kind = K::kUuid; return r.Skip(h.type);
        case 15: out->kind = K::kFloat16; return r.Skip(h.type);
        case 16:
          out->kind = K::kVariant;
          return r.ReadStruct([&](const FieldHeader& f) -> Status {
            if (f.id == 1) return ReadField(r, f, &out->variant_specification_version, &seen);
            return r.Skip(f.type);
          });
        case 17:
        case 18:
          out->kind = h.id == 17 ? K::kGeometry : K::kGeography;
          return r.ReadStruct([&](const FieldHeader& f) -> Status {
            if (f.id == 1) return ReadField(r, f, &out->crs, &seen);
            if (f.id == 2 && h.id == 18) return ReadField(r, f, &out->edge_algorithm, &seen);
            return r.Skip(f.type);
          });
        default: break;
      }
    }
    FLOE_ASSIGN_OR_RETURN(std::span<const uint8_t> raw, r.SkipAndCapture(h.type));
    out->kind = K::kUnrecognized;
    out->unrecognized.field_id = h.id;
    out->unrecognized.type = h.type;
    out->unrecognized.value.assign(reinterpret_cast<const char*>(raw.data()), raw.size());
    return Status::OK();
  });
}

Status ReadValue(CompactReader& r, SchemaElement* out) {
  uint32_t seen = 0;
  FLOE_RETURN_IF_ERROR(r.ReadStruct([&](const FieldHeader& h) -> Status {
    switch (h.id) {
      case 1: return ReadField(r, h, &out->type, &seen);
      case 2: return ReadField(r, h, &out->type_length, &seen);
      case 3: return ReadField(r, h, &out->repetition_type, &seen);
      case 4: return ReadField(r, h, &out->name, &seen);
      case 5: return ReadField(r, h, &out->num_children, &seen);
      case 6: return ReadField(r, h, &out->converted_type, &seen);
      case 7: return ReadField(r, h, &out->scale, &seen);
      case 8: return ReadField(r, h, &out->precision, &seen);
      case 9: return ReadField(r, h, &out->field_id, &seen);
      case 10: return ReadField(r, h, &out->logical_type, &seen);
      default: return r.Skip(h.type);
    }
  }));
  return CheckRequired(seen, "SchemaElement", {{4, "name"}});
}

Status ReadValue(CompactReader& r, ColumnMetaData* out) {
  uint32_t seen = 0;
  FLOE_RETURN_IF_ERROR(r.ReadStruct([&](const FieldHeader& h) -> Status {
    switch (h.id) {
      case 1: return ReadField(r, h, &out->type, &seen);
      case 2: return ReadField(r, h, &out->encodings, &seen);
      case 3: return ReadField(r, h, &out->path_in_schema, &seen);
      case 4: return ReadField(r, h, &out->codec, &seen);
      case 5: return ReadField(r, h, &out->num_values, &seen);
      case 6: return ReadField(r, h, &out->total_uncompressed_size, &seen);
      case 7: return ReadField(r, h, &out->total_compressed_size, &seen);
      case 8: return ReadField(r, h, &out->key_value_metadata, &seen);
      case 9: return ReadField(r, h, &out->data_page_offset, &seen);
      case 10: return ReadField(r, h, &out->index_page_offset, &seen);
      case 11: return ReadField(r, h, &out->dictionary_page_offset, &seen);
      case 12: return ReadField(r, h, &out->statistics, &seen);
      case 13: return ReadField(r, h, &out->encoding_stats, &seen);
      case 14: return ReadField(r, h, &out->bloom_filter_offset, &seen);
      case 15: return ReadField(r, h, &out->bloom_filter_length, &seen);
      case 16: return ReadField(r, h, &out->size_statistics, &seen);
      default: return r.Skip(h.type);  // 17 geospatial_statistics included
    }
  }));
  return CheckRequired(seen, "ColumnMetaData",
                       {{1, "type"},
                        {2, "encodings"},
                        {3, "path_in_schema"},
                        {4, "codec"},
                        {5, "num_values"},
                        {6, "total_uncompressed_size"},
                        {7, "total_compressed_size"},
                        {9, "data_page_offset"}});
}

Status ReadValue(CompactReader& r, ColumnChunk* out) {
  uint32_t seen = 0;
  FLOE_RETURN_IF_ERROR(r.ReadStruct([&](const FieldHeader& h) -> Status {
    switch (h.id) {
      case 1: return ReadField(r, h, &out->file_path, &seen);
      case 2: return ReadField(r, h, &out->file_offset, &seen);
      case 3: return ReadField(r, h, &out->meta_data, &seen);
      case 4: return ReadField(r, h, &out->offset_index_offset, &seen);
      case 5: return ReadField(r, h, &out->offset_index_length, &seen);
      case 6: return ReadField(r, h, &out->column_index_offset, &seen);
      case 7: return ReadField(r, h, &out->column_index_length, &seen);
      case 8: return ReadOpaqueStruct(r, h, &out->crypto_metadata);
      case 9: return ReadField(r, h, &out->encrypted_column_metadata, &seen);
      default: return r.Skip(h.type);
    }
  }));
  return CheckRequired(seen, "ColumnChunk", {{2, "file_offset"}});
}

Status ReadValue(CompactReader& r, RowGroup* out) {
  uint32_t seen = 0;
  FLOE_RETURN_IF_ERROR(r.ReadStruct([&](const FieldHeader& h) -> Status {
    switch (h.id) {
      case 1: return ReadField(r, h, &out->columns, &seen);
      case 2: return ReadField(r, h, &out->total_byte_size, &seen);
      case 3: return ReadField(r, h, &out->num_rows, &seen);
      case 4: return ReadField(r, h, &out->sorting_columns, &seen);
      case 5: return ReadField(r, h, &out->file_offset, &seen);
      case 6: return ReadField(r, h, &out->total_compressed_size, &seen);
      case 7: return ReadField(r, h, &out->ordinal, &seen);
      default: return r.Skip(h.type);
    }
  }));
  return CheckRequired(seen, "RowGroup", {{1, "columns"}, {2, "total_byte_size"}, {3, "num_rows"}});
}

Status ReadValue(CompactReader& r, ColumnOrder* out) {
  using K = ColumnOrder::Kind;
  return r.ReadStruct([&](const FieldHeader& h) -> Status {
    *out = ColumnOrder{};  // the last member present wins
    if (h.type == WireType::kStruct && h.id >= 1 && h.id <= 3) {
      out->kind = h.id == 1   ? K::kTypeOrder
                  : h.id == 2 ? K::kIeee754TotalOrder
                              : K::kInt96TimestampOrder;
      return r.Skip(h.type);
    }
    FLOE_ASSIGN_OR_RETURN(std::span<const uint8_t> raw, r.SkipAndCapture(h.type));
    out->kind = K::kUnrecognized;
    out->unrecognized.field_id = h.id;
    out->unrecognized.type = h.type;
    out->unrecognized.value.assign(reinterpret_cast<const char*>(raw.data()), raw.size());
    return Status::OK();
  });
}

Status ReadValue(CompactReader& r, FileMetaData* out) {
  uint32_t seen = 0;
  FLOE_RETURN_IF_ERROR(r.ReadStruct([&](const FieldHeader& h) -> Status {
    switch (h.id) {
      case 1: return ReadField(r, h, &out->version, &seen);
      case 2: return ReadField(r, h, &out->schema, &seen);
      case 3: return ReadField(r, h, &out->num_rows, &seen);
      case 4: return ReadField(r, h, &out->row_groups, &seen);
      case 5: return ReadField(r, h, &out->key_value_metadata, &seen);
      case 6: return ReadField(r, h, &out->created_by, &seen);
      case 7: return ReadField(r, h, &out->column_orders, &seen);
      case 8: return ReadOpaqueStruct(r, h, &out->encryption_algorithm);
      case 9: return ReadField(r, h, &out->footer_signing_key_metadata, &seen);
      default: return r.Skip(h.type);
    }
  }));
  return CheckRequired(seen, "FileMetaData",
                       {{1, "version"}, {2, "schema"}, {3, "num_rows"}, {4, "row_groups"}});
}

Status ReadValue(CompactReader& r, DataPageHeader* out) {
  uint32_t seen = 0;
  FLOE_RETURN_IF_ERROR(r.ReadStruct([&](const FieldHeader& h) -> Status {
    switch (h.id) {
      case 1: return ReadField(r, h, &out->num_values, &seen);
      case 2: return ReadField(r, h, &out->encoding, &seen);
      case 3: return ReadField(r, h, &out->definition_level_encoding, &seen);
      case 4: return ReadField(r, h, &out->repetition_level_encoding, &seen);
      case 5: return ReadField(r, h, &out->statistics, &seen);
      default: return r.Skip(h.type);
    }
  }));
  return CheckRequired(seen, "DataPageHeader",
                       {{1, "num_values"},
                        {2, "encoding"},
                        {3, "definition_level_encoding"},
                        {4, "repetition_level_encoding"}});
}

Status ReadValue(CompactReader& r, IndexPageHeader* /*out*/) { return r.Skip(WireType::kStruct); }

Status ReadValue(CompactReader& r, DictionaryPageHeader* out) {
  uint32_t seen = 0;
  FLOE_RETURN_IF_ERROR(r.ReadStruct([&](const FieldHeader& h) -> Status {
    switch (h.id) {
      case 1: return ReadField(r, h, &out->num_values, &seen);
      case 2: return ReadField(r, h, &out->encoding, &seen);
      case 3: return ReadField(r, h, &out->is_sorted, &seen);
      default: return r.Skip(h.type);
    }
  }));
  return CheckRequired(seen, "DictionaryPageHeader", {{1, "num_values"}, {2, "encoding"}});
}

Status ReadValue(CompactReader& r, DataPageHeaderV2* out) {
  uint32_t seen = 0;
  FLOE_RETURN_IF_ERROR(r.ReadStruct([&](const FieldHeader& h) -> Status {
    switch (h.id) {
      case 1: return ReadField(r, h, &out->num_values, &seen);
      case 2: return ReadField(r, h, &out->num_nulls, &seen);
      case 3: return ReadField(r, h, &out->num_rows, &seen);
      case 4: return ReadField(r, h, &out->encoding, &seen);
      case 5: return ReadField(r, h, &out->definition_levels_byte_length, &seen);
      case 6: return ReadField(r, h, &out->repetition_levels_byte_length, &seen);
      case 7: return ReadField(r, h, &out->is_compressed, &seen);
      case 8: return ReadField(r, h, &out->statistics, &seen);
      default: return r.Skip(h.type);
    }
  }));
  return CheckRequired(seen, "DataPageHeaderV2",
                       {{1, "num_values"},
                        {2, "num_nulls"},
                        {3, "num_rows"},
                        {4, "encoding"},
                        {5, "definition_levels_byte_length"},
                        {6, "repetition_levels_byte_length"}});
}

Status ReadValue(CompactReader& r, PageHeader* out) {
  uint32_t seen = 0;
  FLOE_RETURN_IF_ERROR(r.ReadStruct([&](const FieldHeader& h) -> Status {
    switch (h.id) {
      case 1: return ReadField(r, h, &out->type, &seen);
      case 2: return ReadField(r, h, &out->uncompressed_page_size, &seen);
      case 3: return ReadField(r, h, &out->compressed_page_size, &seen);
      case 4: return ReadField(r, h, &out->crc, &seen);
      case 5: return ReadField(r, h, &out->data_page_header, &seen);
      case 6: return ReadField(r, h, &out->index_page_header, &seen);
      case 7: return ReadField(r, h, &out->dictionary_page_header, &seen);
      case 8: return ReadField(r, h, &out->data_page_header_v2, &seen);
      default: return r.Skip(h.type);
    }
  }));
  return CheckRequired(seen, "PageHeader",
                       {{1, "type"}, {2, "uncompressed_page_size"}, {3, "compressed_page_size"}});
}

Status ReadValue(CompactReader& r, BloomFilterHeader* out) {
  uint32_t seen = 0;
  FLOE_RETURN_IF_ERROR(r.ReadStruct([&](const FieldHeader& h) -> Status {
    switch (h.id) {
      case 1: return ReadField(r, h, &out->num_bytes, &seen);
      case 2: return ReadField(r, h, &out->algorithm, &seen);
      case 3: return ReadField(r, h, &out->hash, &seen);
      case 4: return ReadField(r, h, &out->compression, &seen);
      default: return r.Skip(h.type);
    }
  }));
  return CheckRequired(seen, "BloomFilterHeader",
                       {{1, "numBytes"}, {2, "algorithm"}, {3, "hash"}, {4, "compression"}});
}

Status ReadValue(CompactReader& r, PageLocation* out) {
  uint32_t seen = 0;
  FLOE_RETURN_IF_ERROR(r.ReadStruct([&](const FieldHeader& h) -> Status {
    switch (h.id) {
      case 1: return ReadField(r, h, &out->offset, &seen);
      case 2: return ReadField(r, h, &out->compressed_page_size, &seen);
      case 3: return ReadField(r, h, &out->first_row_index, &seen);
      default: return r.Skip(h.type);
    }
  }));
  return CheckRequired(seen, "PageLocation",
                       {{1, "offset"}, {2, "compressed_page_size"}, {3, "first_row_index"}});
}

Status ReadValue(CompactReader& r, OffsetIndex* out) {
  uint32_t seen = 0;
  FLOE_RETURN_IF_ERROR(r.ReadStruct([&](const FieldHeader& h) -> Status {
    switch (h.id) {
      case 1: return ReadField(r, h, &out->page_locations, &seen);
      case 2: return ReadField(r, h, &out->unencoded_byte_array_data_bytes, &seen);
      default: return r.Skip(h.type);
    }
  }));
  return CheckRequired(seen, "OffsetIndex", {{1, "page_locations"}});
}

Status ReadValue(CompactReader& r, ColumnIndex* out) {
  uint32_t seen = 0;
  FLOE_RETURN_IF_ERROR(r.ReadStruct([&](const FieldHeader& h) -> Status {
    switch (h.id) {
      case 1: return ReadField(r, h, &out->null_pages, &seen);
      case 2: return ReadField(r, h, &out->min_values, &seen);
      case 3: return ReadField(r, h, &out->max_values, &seen);
      case 4: return ReadField(r, h, &out->boundary_order, &seen);
      case 5: return ReadField(r, h, &out->null_counts, &seen);
      case 6: return ReadField(r, h, &out->repetition_level_histograms, &seen);
      case 7: return ReadField(r, h, &out->definition_level_histograms, &seen);
      case 8: return ReadField(r, h, &out->nan_counts, &seen);
      default: return r.Skip(h.type);
    }
  }));
  return CheckRequired(
      seen, "ColumnIndex",
      {{1, "null_pages"}, {2, "min_values"}, {3, "max_values"}, {4, "boundary_order"}});
}

template <typename T>
Status DeserializeStruct(std::span<const uint8_t> bytes, T* out, size_t* consumed,
                         const thrift::ReaderLimits& limits) {
  *out = T{};
  CompactReader r(bytes, limits);
  FLOE_RETURN_IF_ERROR(ReadValue(r, out));
  if (consumed != nullptr) *consumed = r.position();
  return Status::OK();
}

// ---- Writing.

void WriteValue(CompactWriter& w, const Statistics& v);
void WriteValue(CompactWriter& w, const SizeStatistics& v);
void WriteValue(CompactWriter& w, const PageEncodingStats& v);
void WriteValue(CompactWriter& w, const KeyValue& v);
void WriteValue(CompactWriter& w, const SortingColumn& v);
void WriteValue(CompactWriter& w, const DecimalType& v);
void WriteValue(CompactWriter& w, const TemporalType& v);
void WriteValue(CompactWriter& w, const IntType& v);
void WriteValue(CompactWriter& w, const LogicalType& v);
void WriteValue(CompactWriter& w, const SchemaElement& v);
void WriteValue(CompactWriter& w, const ColumnMetaData& v);
void WriteValue(CompactWriter& w, const ColumnChunk& v);
void WriteValue(CompactWriter& w, const RowGroup& v);
void WriteValue(CompactWriter& w, const ColumnOrder& v);
void WriteValue(CompactWriter& w, const FileMetaData& v);
void WriteValue(CompactWriter& w, const DataPageHeader& v);
void WriteValue(CompactWriter& w, const IndexPageHeader& v);
void WriteValue(CompactWriter& w, const DictionaryPageHeader& v);
void WriteValue(CompactWriter& w, const DataPageHeaderV2& v);
void WriteValue(CompactWriter& w, const PageHeader& v);
void WriteValue(CompactWriter& w, const BloomFilterHeader& v);
void WriteValue(CompactWriter& w, const PageLocation& v);
void WriteValue(CompactWriter& w, const OffsetIndex& v);
void WriteValue(CompactWriter& w, const ColumnIndex& v);

void WriteEmptyStruct(CompactWriter& w) {
  w.BeginStruct();
  w.EndStruct();
}

// Writes member `id` of a union of empty structs; 0 writes an empty union.
void WriteMemberIdUnion(CompactWriter& w, int16_t id) {
  w.BeginStruct();
  if (id != 0) {
    w.WriteFieldHeader(id, WireType::kStruct);
    WriteEmptyStruct(w);
  }
  w.EndStruct();
}

void WriteRawMember(CompactWriter& w, const RawUnionMember& m) {
  if (m.type == WireType::kStop) return;
  if (thrift::IsBool(m.type)) {
    w.WriteFieldBool(m.field_id, m.type == WireType::kBoolTrue);
    return;
  }
  w.WriteFieldHeader(m.field_id, m.type);
  // An empty struct payload set by hand still needs its STOP.
  if (m.type == WireType::kStruct && m.value.empty()) {
    WriteEmptyStruct(w);
  } else {
    w.WriteRaw(m.value);
  }
}

template <typename T>
void WriteElement(CompactWriter& w, const T& v) {
  if constexpr (std::is_same_v<T, bool>) {
    w.WriteBoolElement(v);
  } else if constexpr (std::is_same_v<T, int8_t>) {
    w.WriteI8(v);
  } else if constexpr (std::is_same_v<T, int16_t>) {
    w.WriteI16(v);
  } else if constexpr (std::is_same_v<T, int32_t>) {
    w.WriteI32(v);
  } else if constexpr (std::is_same_v<T, int64_t>) {
    w.WriteI64(v);
  } else if constexpr (std::is_same_v<T, std::string>) {
    w.WriteBinary(std::string_view(v));
  } else if constexpr (kIsThriftEnum<T>) {
    w.WriteI32(static_cast<int32_t>(v));
  } else if constexpr (kIsMemberIdUnion<T>) {
    WriteMemberIdUnion(w, static_cast<int16_t>(v));
  } else if constexpr (IsVector<T>::value) {
    using E = typename T::value_type;
    w.WriteListHeader(WireTypeOf<E>(), v.size());
    for (const E& e : v) WriteElement<E>(w, e);
  } else {
    WriteValue(w, v);
  }
}

template <typename T>
void WriteField(CompactWriter& w, int16_t id, const T& v) {
  if constexpr (std::is_same_v<T, bool>) {
    w.WriteFieldBool(id, v);
  } else {
    w.WriteFieldHeader(id, WireTypeOf<T>());
    WriteElement(w, v);
  }
}

template <typename T>
void WriteField(CompactWriter& w, int16_t id, const std::optional<T>& v) {
  if (v) WriteField(w, id, *v);
}

void WriteOpaqueStruct(CompactWriter& w, int16_t id, const std::optional<std::string>& v) {
  if (!v) return;
  w.WriteFieldHeader(id, WireType::kStruct);
  if (v->empty()) {
    WriteEmptyStruct(w);
  } else {
    w.WriteRaw(*v);
  }
}

void WriteValue(CompactWriter& w, const Statistics& v) {
  w.BeginStruct();
  WriteField(w, 1, v.max);
  WriteField(w, 2, v.min);
  WriteField(w, 3, v.null_count);
  WriteField(w, 4, v.distinct_count);
  WriteField(w, 5, v.max_value);
  WriteField(w, 6, v.min_value);
  WriteField(w, 7, v.is_max_value_exact);
  WriteField(w, 8, v.is_min_value_exact);
  WriteField(w, 9, v.nan_count);
  w.EndStruct();
}

void WriteValue(CompactWriter& w, const SizeStatistics& v) {
  w.BeginStruct();
  WriteField(w, 1, v.unencoded_byte_array_data_bytes);
  WriteField(w, 2, v.repetition_level_histogram);
  WriteField(w, 3, v.definition_level_histogram);
  w.EndStruct();
}

void WriteValue(CompactWriter& w, const PageEncodingStats& v) {
  w.BeginStruct();
  WriteField(w, 1, v.page_type);
  WriteField(w, 2, v.encoding);
  WriteField(w, 3, v.count);
  w.EndStruct();
}

void WriteValue(CompactWriter& w, const KeyValue& v) {
  w.BeginStruct();
  WriteField(w, 1, v.key);
  WriteField(w, 2, v.value);
  w.EndStruct();
}

void WriteValue(CompactWriter& w, const SortingColumn& v) {
  w.BeginStruct();
  WriteField(w, 1, v.column_idx);
  WriteField(w, 2, v.descending);
  WriteField(w, 3, v.nulls_first);
  w.EndStruct();
}

void WriteValue(CompactWriter& w, const DecimalType& v) {
  w.BeginStruct();
  WriteField(w, 1, v.scale);
  WriteField(w, 2, v.precision);
  w.EndStruct();
}

void WriteValue(CompactWriter& w, const TemporalType& v) {
  w.BeginStruct();
  WriteField(w, 1, v.is_adjusted_to_utc);
  WriteField(w, 2, v.unit);
  w.EndStruct();
}

void WriteValue(CompactWriter& w, const IntType& v) {
  w.BeginStruct();
  WriteField(w, 1, v.bit_width);
  WriteField(w, 2, v.is_signed);
  w.EndStruct();
}

void WriteValue(CompactWriter& w, const LogicalType& v) {
  using K = LogicalType::Kind;
  w.BeginStruct();
  auto empty_member = [&w](int16_t id) {
    w.WriteFieldHeader(id, WireType::kStruct);
    WriteEmptyStruct(w);
  };
  switch (v.kind) {
    case K::kString: empty_member(1); break;
    case K::kMap: empty_member(2); break;
    case K::kList: empty_member(3); break;
    case K::kEnum: empty_member(4); break;
    case K::kDecimal: WriteField(w, 5, v.decimal); break;
    case K::kDate: empty_member(6); break;
    case K::kTime: WriteField(w, 7, v.temporal); break;
    case K::kTimestamp: WriteField(w, 8, v.temporal); break;
    case K::kInteger: WriteField(w, 10, v.integer); break;
    case K::kUnknown: empty_member(11); break;
    case K::kJson: empty_member(12); break;
    case K::kBson: empty_member(13); break;
    case K::kUuid: empty_member(14); break;
    case K::kFloat16: empty_member(15); break;
    case K::kVariant:
      w.WriteFieldHeader(16, WireType::kStruct);
      w.BeginStruct();
      WriteField(w, 1, v.variant_specification_version);
      w.EndStruct();
      break;
    case K::kGeometry:
    case K::kGeography:
      w.WriteFieldHeader(v.kind == K::kGeometry ? 17 : 18, WireType::kStruct);
      w.BeginStruct();
      WriteField(w, 1, v.crs);
      if (v.kind == K::kGeography) WriteField(w, 2, v.edge_algorithm);
      w.EndStruct();
      break;
    case K::kUnrecognized: WriteRawMember(w, v.unrecognized); break;
  }
  w.EndStruct();
}

void WriteValue(CompactWriter& w, const SchemaElement& v) {
  w.BeginStruct();
  WriteField(w, 1, v.type);
  WriteField(w, 2, v.type_length);
  WriteField(w, 3, v.repetition_type);
  WriteField(w, 4, v.name);
  WriteField(w, 5, v.num_children);
  WriteField(w, 6, v.converted_type);
  WriteField(w, 7, v.scale);
  WriteField(w, 8, v.precision);
  WriteField(w, 9, v.field_id);
  WriteField(w, 10, v.logical_type);
  w.EndStruct();
}

void WriteValue(CompactWriter& w, const ColumnMetaData& v) {
  w.BeginStruct();
  WriteField(w, 1, v.type);
  WriteField(w, 2, v.encodings);
  WriteField(w, 3, v.path_in_schema);
  WriteField(w, 4, v.codec);
  WriteField(w, 5, v.num_values);
  WriteField(w, 6, v.total_uncompressed_size);
  WriteField(w, 7, v.total_compressed_size);
  WriteField(w, 8, v.key_value_metadata);
  WriteField(w, 9, v.data_page_offset);
  WriteField(w, 10, v.index_page_offset);
  WriteField(w, 11, v.dictionary_page_offset);
  WriteField(w, 12, v.statistics);
  WriteField(w, 13, v.encoding_stats);
  WriteField(w, 14, v.bloom_filter_offset);
  WriteField(w, 15, v.bloom_filter_length);
  WriteField(w, 16, v.size_statistics);
  w.EndStruct();
}

void WriteValue(CompactWriter& w, const ColumnChunk& v) {
  w.BeginStruct();
  WriteField(w, 1, v.file_path);
  WriteField(w, 2, v.file_offset);
  WriteField(w, 3, v.meta_data);
  WriteField(w, 4, v.offset_index_offset);
  WriteField(w, 5, v.offset_index_length);
  WriteField(w, 6, v.column_index_offset);
  WriteField(w, 7, v.column_index_length);
  WriteOpaqueStruct(w, 8, v.crypto_metadata);
  WriteField(w, 9, v.encrypted_column_metadata);
  w.EndStruct();
}

void WriteValue(CompactWriter& w, const RowGroup& v) {
  w.BeginStruct();
  WriteField(w, 1, v.columns);
  WriteField(w, 2, v.total_byte_size);
  WriteField(w, 3, v.num_rows);
  WriteField(w, 4, v.sorting_columns);
  WriteField(w, 5, v.file_offset);
  WriteField(w, 6, v.total_compressed_size);
  WriteField(w, 7, v.ordinal);
  w.EndStruct();
}

void WriteValue(CompactWriter& w, const ColumnOrder& v) {
  using K = ColumnOrder::Kind;
  w.BeginStruct();
  switch (v.kind) {
    case K::kTypeOrder:
    case K::kIeee754TotalOrder:
    case K::kInt96TimestampOrder:
      w.WriteFieldHeader(v.kind == K::kTypeOrder           ? 1
                         : v.kind == K::kIeee754TotalOrder ? 2
                                                           : 3,
                         WireType::kStruct);
      WriteEmptyStruct(w);
      break;
    case K::kUnrecognized: WriteRawMember(w, v.unrecognized); break;
  }
  w.EndStruct();
}

void WriteValue(CompactWriter& w, const FileMetaData& v) {
  w.BeginStruct();
  WriteField(w, 1, v.version);
  WriteField(w, 2, v.schema);
  WriteField(w, 3, v.num_rows);
  WriteField(w, 4, v.row_groups);
  WriteField(w, 5, v.key_value_metadata);
  WriteField(w, 6, v.created_by);
  WriteField(w, 7, v.column_orders);
  WriteOpaqueStruct(w, 8, v.encryption_algorithm);
  WriteField(w, 9, v.footer_signing_key_metadata);
  w.EndStruct();
}

void WriteValue(CompactWriter& w, const DataPageHeader& v) {
  w.BeginStruct();
  WriteField(w, 1, v.num_values);
  WriteField(w, 2, v.encoding);
  WriteField(w, 3, v.definition_level_encoding);
  WriteField(w, 4, v.repetition_level_encoding);
  WriteField(w, 5, v.statistics);
  w.EndStruct();
}

void WriteValue(CompactWriter& w, const IndexPageHeader& /*v*/) { WriteEmptyStruct(w); }

void WriteValue(CompactWriter& w, const DictionaryPageHeader& v) {
  w.BeginStruct();
  WriteField(w, 1, v.num_values);
  WriteField(w, 2, v.encoding);
  WriteField(w, 3, v.is_sorted);
  w.EndStruct();
}

void WriteValue(CompactWriter& w, const DataPageHeaderV2& v) {
  w.BeginStruct();
  WriteField(w, 1, v.num_values);
  WriteField(w, 2, v.num_nulls);
  WriteField(w, 3, v.num_rows);
  WriteField(w, 4, v.encoding);
  WriteField(w, 5, v.definition_levels_byte_length);
  WriteField(w, 6, v.repetition_levels_byte_length);
  WriteField(w, 7, v.is_compressed);
  WriteField(w, 8, v.statistics);
  w.EndStruct();
}

void WriteValue(CompactWriter& w, const PageHeader& v) {
  w.BeginStruct();
  WriteField(w, 1, v.type);
  WriteField(w, 2, v.uncompressed_page_size);
  WriteField(w, 3, v.compressed_page_size);
  WriteField(w, 4, v.crc);
  WriteField(w, 5, v.data_page_header);
  WriteField(w, 6, v.index_page_header);
  WriteField(w, 7, v.dictionary_page_header);
  WriteField(w, 8, v.data_page_header_v2);
  w.EndStruct();
}

void WriteValue(CompactWriter& w, const BloomFilterHeader& v) {
  w.BeginStruct();
  WriteField(w, 1, v.num_bytes);
  WriteField(w, 2, v.algorithm);
  WriteField(w, 3, v.hash);
  WriteField(w, 4, v.compression);
  w.EndStruct();
}

void WriteValue(CompactWriter& w, const PageLocation& v) {
  w.BeginStruct();
  WriteField(w, 1, v.offset);
  WriteField(w, 2, v.compressed_page_size);
  WriteField(w, 3, v.first_row_index);
  w.EndStruct();
}

void WriteValue(CompactWriter& w, const OffsetIndex& v) {
  w.BeginStruct();
  WriteField(w, 1, v.page_locations);
  WriteField(w, 2, v.unencoded_byte_array_data_bytes);
  w.EndStruct();
}

void WriteValue(CompactWriter& w, const ColumnIndex& v) {
  w.BeginStruct();
  WriteField(w, 1, v.null_pages);
  WriteField(w, 2, v.min_values);
  WriteField(w, 3, v.max_values);
  WriteField(w, 4, v.boundary_order);
  WriteField(w, 5, v.null_counts);
  WriteField(w, 6, v.repetition_level_histograms);
  WriteField(w, 7, v.definition_level_histograms);
  WriteField(w, 8, v.nan_counts);
  w.EndStruct();
}

template <typename T>
void SerializeStruct(const T& v, Buffer* out) {
  CompactWriter w(out);
  WriteValue(w, v);
}

}  // namespace

Status Deserialize(std::span<const uint8_t> bytes, FileMetaData* out, size_t* consumed,
                   const thrift::ReaderLimits& limits) {
  return DeserializeStruct(bytes, out, consumed, limits);
}
Status Deserialize(std::span<const uint8_t> bytes, PageHeader* out, size_t* consumed,
                   const thrift::ReaderLimits& limits) {
  return DeserializeStruct(bytes, out, consumed, limits);
}
Status Deserialize(std::span<const uint8_t> bytes, BloomFilterHeader* out, size_t* consumed,
                   const thrift::ReaderLimits& limits) {
  return DeserializeStruct(bytes, out, consumed, limits);
}
Status Deserialize(std::span<const uint8_t> bytes, ColumnIndex* out, size_t* consumed,
                   const thrift::ReaderLimits& limits) {
  return DeserializeStruct(bytes, out, consumed, limits);
}
Status Deserialize(std::span<const uint8_t> bytes, OffsetIndex* out, size_t* consumed,
                   const thrift::ReaderLimits& limits) {
  return DeserializeStruct(bytes, out, consumed, limits);
}

void Serialize(const FileMetaData& v, Buffer* out) { SerializeStruct(v, out); }
void Serialize(const PageHeader& v, Buffer* out) { SerializeStruct(v, out); }
void Serialize(const BloomFilterHeader& v, Buffer* out) { SerializeStruct(v, out); }
void Serialize(const ColumnIndex& v, Buffer* out) { SerializeStruct(v, out); }
void Serialize(const OffsetIndex& v, Buffer* out) { SerializeStruct(v, out); }

}  // namespace floe::format::parquet
