#include "floe/format/parquet/statistics.h"

#include <cmath>
#include <cstring>

#include "floe/base/bytes.h"
#include "floe/columnar/value_format.h"
#include "floe/format/parquet/writer_version.h"

namespace floe::format::parquet {

namespace col = floe::columnar;

SortOrder SortOrderOf(const ColumnDescriptor& c) {
  using LK = LogicalType::Kind;
  const std::optional<LogicalType>& lt = c.logical_type;
  if (c.element && c.element->converted_type == ConvertedType::kInterval) {
    return SortOrder::kUndefined;
  }
  if (lt) {
    switch (lt->kind) {
      case LK::kDecimal:
      case LK::kDate:
      case LK::kTime:
      case LK::kTimestamp: return SortOrder::kSigned;
      case LK::kInteger: return lt->integer.is_signed ? SortOrder::kSigned : SortOrder::kUnsigned;
      case LK::kString:
      case LK::kEnum:
      case LK::kJson:
      case LK::kBson:
      case LK::kUuid: return SortOrder::kUnsigned;
      case LK::kFloat16: return SortOrder::kSigned;
      case LK::kMap:
      case LK::kList:
      case LK::kVariant:
      case LK::kGeometry:
      case LK::kGeography:
      case LK::kUnknown:
      case LK::kUnrecognized: return SortOrder::kUndefined;
    }
  }
  switch (c.physical_type) {
    case Type::kBoolean:
    case Type::kInt32:
    case Type::kInt64:
    case Type::kFloat:
    case Type::kDouble: return SortOrder::kSigned;
    case Type::kByteArray:
    case Type::kFixedLenByteArray: return SortOrder::kUnsigned;
    case Type::kInt96: return SortOrder::kUndefined;
  }
  return SortOrder::kUndefined;
}

bool ValidStatValue(const ColumnDescriptor& c, std::string_view v) {
  switch (c.physical_type) {
    case Type::kBoolean: return v.size() == 1;
    case Type::kInt32:
    case Type::kFloat: return v.size() == 4;
    case Type::kInt64:
    case Type::kDouble: return v.size() == 8;
    case Type::kInt96: return v.size() == 12;
    case Type::kFixedLenByteArray:
      // Decimal FLBA bounds must keep the full width to compare numerically; other FLBA
      // bounds may be truncated prefixes.
      if (c.logical_type && c.logical_type->kind == LogicalType::Kind::kDecimal) {
        return v.size() == static_cast<size_t>(c.type_length);
      }
      return v.size() <= static_cast<size_t>(c.type_length);
    case Type::kByteArray: return true;
  }
  return false;
}

namespace {

int Sign(int64_t x) { return (x > 0) - (x < 0); }

template <typename T>
int Cmp(T a, T b) {
  return (a > b) - (a < b);
}

int CompareBytes(std::string_view a, std::string_view b) {
  const size_t n = std::min(a.size(), b.size());
  int r = n ? std::memcmp(a.data(), b.data(), n) : 0;
  if (r != 0) return r < 0 ? -1 : 1;
  return Cmp(a.size(), b.size());
}

// Big-endian two's complement of any length, compared numerically (decimals).
int CompareSignedBigEndian(std::string_view a, std::string_view b) {
  const bool na = !a.empty() && (static_cast<uint8_t>(a[0]) & 0x80);
  const bool nb = !b.empty() && (static_cast<uint8_t>(b[0]) & 0x80);
  if (na != nb) return na ? -1 : 1;
  // Same sign: sign-extend the shorter one and compare bytes unsigned.
  const size_t n = std::max(a.size(), b.size());
  const char pad = na ? '\xFF' : '\0';
  for (size_t i = 0; i < n; ++i) {
    const auto ca = static_cast<uint8_t>(i + a.size() >= n ? a[i + a.size() - n] : pad);
    const auto cb = static_cast<uint8_t>(i + b.size() >= n ? b[i + b.size() - n] : pad);
    if (ca != cb) return ca < cb ? -1 : 1;
  }
  return 0;
}

bool IsDecimal(const ColumnDescriptor& c) {
  return c.logical_type && c.logical_type->kind == LogicalType::Kind::kDecimal;
}

bool IsFloat16(const ColumnDescriptor& c) {
  return c.logical_type && c.logical_type->kind == LogicalType::Kind::kFloat16;
}

bool IsNaNValue(const ColumnDescriptor& c, std::string_view v) {
  if (c.physical_type == Type::kFloat && v.size() == 4) return std::isnan(LoadLE<float>(v.data()));
  if (c.physical_type == Type::kDouble && v.size() == 8) {
    return std::isnan(LoadLE<double>(v.data()));
  }
  if (IsFloat16(c) && v.size() == 2)
    return std::isnan(col::HalfToFloat(LoadLE<uint16_t>(v.data())));
  return false;
}

}  // namespace

int CompareStatValues(const ColumnDescriptor& c, std::string_view a, std::string_view b) {
  const SortOrder order = SortOrderOf(c);
  switch (c.physical_type) {
    case Type::kBoolean: return Cmp<uint8_t>(a[0] != 0, b[0] != 0);
    case Type::kInt32:
      return order == SortOrder::kUnsigned
                 ? Cmp(LoadLE<uint32_t>(a.data()), LoadLE<uint32_t>(b.data()))
                 : Cmp(LoadLE<int32_t>(a.data()), LoadLE<int32_t>(b.data()));
    case Type::kInt64:
      return order == SortOrder::kUnsigned
                 ? Cmp(LoadLE<uint64_t>(a.data()), LoadLE<uint64_t>(b.data()))
                 : Cmp(LoadLE<int64_t>(a.data()), LoadLE<int64_t>(b.data()));
    case Type::kFloat: return Cmp(LoadLE<float>(a.data()), LoadLE<float>(b.data()));
    case Type::kDouble: return Cmp(LoadLE<double>(a.data()), LoadLE<double>(b.data()));
    case Type::kFixedLenByteArray:
    case Type::kByteArray:
      if (IsDecimal(c)) return CompareSignedBigEndian(a, b);
      if (IsFloat16(c)) {
        return Cmp(col::HalfToFloat(LoadLE<uint16_t>(a.data())),
                   col::HalfToFloat(LoadLE<uint16_t>(b.data())));
      }
      return CompareBytes(a, b);
    case Type::kInt96: return Sign(0);
  }
  return 0;
}

namespace {}  // namespace

ChunkStatistics TrustedStatistics(const ColumnDescriptor& c, const ColumnMetaData& meta,
                                  const FileMetaData& file) {
  ChunkStatistics out;
  out.num_values = meta.num_values;
  if (!meta.statistics) return out;
  const Statistics& s = *meta.statistics;
  if (s.null_count && *s.null_count >= 0) out.null_count = s.null_count;
  if (s.nan_count && *s.nan_count >= 0) out.nan_count = s.nan_count;
  const SortOrder order = SortOrderOf(c);
  if (order == SortOrder::kUndefined) return out;

  // The leaf's column order (one per leaf, in leaf order).
  bool type_order = false;
  bool unknown_order = false;
  if (file.column_orders && static_cast<size_t>(c.index) < file.column_orders->size()) {
    auto kind = (*file.column_orders)[static_cast<size_t>(c.index)].kind;
    type_order = kind == ColumnOrder::Kind::kTypeOrder;
    unknown_order = !type_order;
  }
  if (unknown_order) return out;

  std::optional<std::string> min, max;
  if (type_order && (s.min_value || s.max_value)) {
    min = s.min_value;
    max = s.max_value;
  } else if (order == SortOrder::kSigned) {
    // Legacy fields were computed with signed comparisons: right only for signed orders.
    min = s.min_value ? s.min_value : s.min;
    max = s.max_value ? s.max_value : s.max;
  }
  const WriterVersion writer = WriterVersion::Parse(file.created_by.value_or(""));
  const bool binary =
      c.physical_type == Type::kByteArray || c.physical_type == Type::kFixedLenByteArray;
  if (binary) {
    // PARQUET-251: parquet-mr before 1.8.0 (and writers that leave created_by empty, as
    // parquet-java assumes) could corrupt binary min/max.
    if (!writer.parsed || writer.IsBefore("parquet-mr", 1, 8, 0)) {
      if (!(type_order && s.min_value)) return out;
    }
  }
  if (order == SortOrder::kUnsigned && !type_order) {
    // Old writers used signed comparison for every type; only min == max is safe.
    if (!(min && max && *min == *max)) return out;
  }
  if (min && (!ValidStatValue(c, *min) || IsNaNValue(c, *min))) min.reset();
  if (max && (!ValidStatValue(c, *max) || IsNaNValue(c, *max))) max.reset();
  if (min && max && CompareStatValues(c, *min, *max) > 0) return out;  // nonsense: ignore
  out.min = std::move(min);
  out.max = std::move(max);
  // Float zeros: a min of +0 may hide -0 values and a max of -0 may hide +0 (§7.3).
  if (c.physical_type == Type::kFloat || c.physical_type == Type::kDouble) {
    auto fix_zero = [&](std::optional<std::string>& v, bool negative) {
      if (!v) return;
      if (c.physical_type == Type::kFloat) {
        float f = LoadLE<float>(v->data());
        if (f == 0) StoreLE<float>(v->data(), negative ? -0.0f : 0.0f);
      } else {
        double d = LoadLE<double>(v->data());
        if (d == 0) StoreLE<double>(v->data(), negative ? -0.0 : 0.0);
      }
    };
    fix_zero(out.min, true);
    fix_zero(out.max, false);
  }
  return out;
}

namespace {

// Length of the UTF-8 sequence whose lead byte is `b` (1 for invalid bytes).
size_t Utf8Len(uint8_t b) {
  if (b < 0x80) return 1;
  if ((b & 0xE0) == 0xC0) return 2;
  if ((b & 0xF0) == 0xE0) return 3;
  if ((b & 0xF8) == 0xF0) return 4;
  return 1;
}

// The longest prefix of at most `length` bytes that ends on a character boundary.
size_t Utf8Prefix(std::string_view v, size_t length) {
  size_t pos = 0;
  while (pos < v.size()) {
    size_t n = Utf8Len(static_cast<uint8_t>(v[pos]));
    if (pos + n > length) break;
    pos += n;
  }
  return pos;
}

void AppendUtf8(std::string* out, uint32_t cp) {
  if (cp < 0x80) {
    out->push_back(static_cast<char>(cp));
  } else if (cp < 0x800) {
    out->push_back(static_cast<char>(0xC0 | (cp >> 6)));
    out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else if (cp < 0x10000) {
    out->push_back(static_cast<char>(0xE0 | (cp >> 12)));
    out->push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else {
    out->push_back(static_cast<char>(0xF0 | (cp >> 18)));
    out->push_back(static_cast<char>(0x80 | ((cp >> 12) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  }
}

}  // namespace

std::string TruncateLowerBound(std::string_view value, size_t length, bool utf8) {
  if (value.size() <= length) return std::string(value);
  return std::string(value.substr(0, utf8 ? Utf8Prefix(value, length) : length));
}

std::optional<std::string> TruncateUpperBound(std::string_view value, size_t length, bool utf8) {
  if (value.size() <= length) return std::string(value);
  if (!utf8) {
    std::string out(value.substr(0, length));
    while (!out.empty()) {
      auto last = static_cast<uint8_t>(out.back());
      if (last != 0xFF) {
        out.back() = static_cast<char>(last + 1);
        return out;
      }
      out.pop_back();
    }
    return std::nullopt;
  }
  // Increment the last code point of the prefix; drop it when it cannot grow.
  std::string prefix(value.substr(0, Utf8Prefix(value, length)));
  while (!prefix.empty()) {
    size_t start = prefix.size() - 1;
    while (start > 0 && (static_cast<uint8_t>(prefix[start]) & 0xC0) == 0x80) --start;
    std::string_view ch(prefix.data() + start, prefix.size() - start);
    uint32_t cp = static_cast<uint8_t>(ch[0]);
    size_t n = Utf8Len(static_cast<uint8_t>(ch[0]));
    if (n == ch.size() && n > 1) {
      cp &= (0x7Fu >> n);
      for (size_t k = 1; k < n; ++k) cp = (cp << 6) | (static_cast<uint8_t>(ch[k]) & 0x3F);
    }
    prefix.resize(start);
    uint32_t next = cp + 1;
    if (next >= 0xD800 && next <= 0xDFFF) next = 0xE000;
    if (next <= 0x10FFFF) {
      AppendUtf8(&prefix, next);
      return prefix;
    }
  }
  return std::nullopt;
}

bool ChunkMayMatch(const ColumnDescriptor& c, const ChunkStatistics& s, const ColumnPredicate& p) {
  using Op = ColumnPredicate::Op;
  const bool all_null = s.null_count && *s.null_count == s.num_values;
  switch (p.op) {
    case Op::kIsNull: return !s.null_count || *s.null_count > 0;
    case Op::kNotNull: return !all_null;
    default: break;
  }
  if (all_null) return false;  // comparisons are never true for nulls
  if (!ValidStatValue(c, p.value) || SortOrderOf(c) == SortOrder::kUndefined) return true;
  if (IsNaNValue(c, p.value)) return true;
  const bool has_min = s.min.has_value();
  const bool has_max = s.max.has_value();
  // NaNs are outside min/max: a chunk with NaNs may still match != and comparisons that
  // IEEE makes false... only equality and ranges on non-NaN literals are pruned here.
  switch (p.op) {
    case Op::kEq:
      if (has_min && CompareStatValues(c, p.value, *s.min) < 0) return false;
      if (has_max && CompareStatValues(c, p.value, *s.max) > 0) return false;
      return true;
    case Op::kNotEq:
      // Prunable only when every value equals the literal and there are no nulls.
      if (has_min && has_max && s.null_count && *s.null_count == 0 &&
          (!s.nan_count || *s.nan_count == 0) && CompareStatValues(c, *s.min, *s.max) == 0 &&
          CompareStatValues(c, p.value, *s.min) == 0) {
        return false;
      }
      return true;
    case Op::kLt: return !has_min || CompareStatValues(c, *s.min, p.value) < 0;
    case Op::kLtEq: return !has_min || CompareStatValues(c, *s.min, p.value) <= 0;
    case Op::kGt: return !has_max || CompareStatValues(c, *s.max, p.value) > 0;
    case Op::kGtEq: return !has_max || CompareStatValues(c, *s.max, p.value) >= 0;
    default: return true;
  }
}

WriterVersion WriterVersion::Parse(std::string_view s) {
  WriterVersion w;
  const size_t v = s.find(" version ");
  if (v == std::string_view::npos) return w;
  w.app = std::string(s.substr(0, v));
  int parts[3] = {0, 0, 0};
  size_t i = v + 9;
  for (int k = 0; k < 3; ++k) {
    const size_t start = i;
    while (i < s.size() && s[i] >= '0' && s[i] <= '9') {
      parts[k] = parts[k] * 10 + (s[i] - '0');
      if (parts[k] > 100000) return WriterVersion();
      ++i;
    }
    if (i == start) break;
    if (i < s.size() && s[i] == '.') ++i;
  }
  w.major = parts[0];
  w.minor = parts[1];
  w.patch = parts[2];
  w.parsed = true;
  return w;
}

}  // namespace floe::format::parquet
