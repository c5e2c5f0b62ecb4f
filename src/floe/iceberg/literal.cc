#include "floe/iceberg/literal.h"

#include <algorithm>
#include <bit>
#include <charconv>
#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

#include <fmt/format.h>

#include "floe/base/bytes.h"
#include "floe/base/macros.h"
#include "floe/columnar/value_format.h"
#include "floe/iceberg/json_util.h"
#include "floe/iceberg/temporal.h"

namespace floe::iceberg {

using internal::Json;

namespace {

enum Repr : size_t {
  kNullRepr = 0,
  kBoolRepr,
  kInt32Repr,
  kInt64Repr,
  kFloatRepr,
  kDoubleRepr,
  kDecimalRepr,
  kStringRepr,
  kUuidRepr,
};

// The variant alternative that holds values of `kind`; kNullRepr for nested and unknown.
Repr ReprOf(TypeKind kind) {
  switch (kind) {
    case TypeKind::kBoolean: return kBoolRepr;
    case TypeKind::kInt:
    case TypeKind::kDate: return kInt32Repr;
    case TypeKind::kLong:
    case TypeKind::kTime:
    case TypeKind::kTimestamp:
    case TypeKind::kTimestampTz:
    case TypeKind::kTimestampNs:
    case TypeKind::kTimestampTzNs: return kInt64Repr;
    case TypeKind::kFloat: return kFloatRepr;
    case TypeKind::kDouble: return kDoubleRepr;
    case TypeKind::kDecimal: return kDecimalRepr;
    case TypeKind::kString:
    case TypeKind::kFixed:
    case TypeKind::kBinary: return kStringRepr;
    case TypeKind::kUuid: return kUuidRepr;
    default: return kNullRepr;
  }
}

constexpr __int128 kPow10_38 =
    static_cast<__int128>(10000000000000000000ULL) * static_cast<__int128>(10000000000000000000ULL);

__int128 Pow10(int n) {
  __int128 v = 1;
  for (int i = 0; i < n; ++i) v *= 10;
  return v;
}

// True when |v| has at most `precision` digits.
bool FitsPrecision(__int128 v, int32_t precision) {
  __int128 bound = precision >= 38 ? kPow10_38 : Pow10(precision);
  return v < bound && v > -bound;
}

// Minimal two's complement big-endian bytes of v (at least 1 byte).
std::string DecimalToBytes(__int128 v) {
  unsigned char be[16];
  unsigned __int128 swapped = ByteSwap128(static_cast<unsigned __int128>(v));
  std::memcpy(be, &swapped, 16);
  size_t start = 0;
  // Drop leading bytes that are pure sign extension of the next byte.
  while (start < 15) {
    bool redundant = (be[start] == 0x00 && (be[start + 1] & 0x80) == 0) ||
                     (be[start] == 0xFF && (be[start + 1] & 0x80) != 0);
    if (!redundant) break;
    ++start;
  }
  return std::string(reinterpret_cast<const char*>(be) + start, 16 - start);
}

Result<__int128> DecimalFromBytes(std::string_view b) {
  if (b.empty() || b.size() > 16) {
    return Status::Corrupt("decimal bound of {} bytes (need 1..16)", b.size());
  }
  unsigned char be[16];
  unsigned char fill = (static_cast<unsigned char>(b[0]) & 0x80) ? 0xFF : 0x00;
  std::memset(be, fill, 16 - b.size());
  std::memcpy(be + 16 - b.size(), b.data(), b.size());
  unsigned __int128 raw;
  std::memcpy(&raw, be, 16);
  return static_cast<__int128>(ByteSwap128(raw));
}

std::string HexUpper(std::string_view bytes) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string out;
  out.reserve(bytes.size() * 2);
  for (char c : bytes) {
    auto b = static_cast<unsigned char>(c);
    out.push_back(kHex[b >> 4]);
    out.push_back(kHex[b & 15]);
  }
  return out;
}

int HexDigit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

Result<std::string> HexDecode(std::string_view s) {
  if (s.size() % 2 != 0) return Status::InvalidArgument("hex string of odd length");
  std::string out;
  out.reserve(s.size() / 2);
  for (size_t i = 0; i < s.size(); i += 2) {
    int hi = HexDigit(s[i]), lo = HexDigit(s[i + 1]);
    if (hi < 0 || lo < 0) return Status::InvalidArgument("malformed hex string '{}'", s);
    out.push_back(static_cast<char>(hi << 4 | lo));
  }
  return out;
}

Result<Literal::UuidBytes> ParseUuid(std::string_view s) {
  Literal::UuidBytes out{};
  if (s.size() != 36 || s[8] != '-' || s[13] != '-' || s[18] != '-' || s[23] != '-') {
    return Status::InvalidArgument("malformed uuid '{}'", s);
  }
  size_t n = 0;
  for (size_t i = 0; i < s.size();) {
    if (s[i] == '-') {
      ++i;
      continue;
    }
    int hi = HexDigit(s[i]), lo = i + 1 < s.size() ? HexDigit(s[i + 1]) : -1;
    if (hi < 0 || lo < 0 || n >= 16) return Status::InvalidArgument("malformed uuid '{}'", s);
    out[n++] = static_cast<uint8_t>(hi << 4 | lo);
    i += 2;
  }
  if (n != 16) return Status::InvalidArgument("malformed uuid '{}'", s);
  return out;
}

// Parses a decimal number ("-14.20", "1E+3", "0.5") into an unscaled value at `scale`;
// fails when digits would be lost or the value exceeds `precision` digits.
Result<__int128> ParseDecimal(std::string_view text, int32_t precision, int32_t scale) {
  std::string_view s = text;
  bool neg = false;
  if (!s.empty() && (s.front() == '-' || s.front() == '+')) {
    neg = s.front() == '-';
    s.remove_prefix(1);
  }
  __int128 unscaled = 0;
  int digits_after_point = 0;
  bool seen_point = false, any_digit = false;
  int significant = 0;
  size_t i = 0;
  for (; i < s.size(); ++i) {
    char c = s[i];
    if (c == '.') {
      if (seen_point) return Status::InvalidArgument("malformed decimal '{}'", text);
      seen_point = true;
      continue;
    }
    if (c < '0' || c > '9') break;
    any_digit = true;
    if (unscaled != 0 || c != '0') ++significant;
    if (significant > 38) return Status::InvalidArgument("decimal '{}' has too many digits", text);
    unscaled = unscaled * 10 + (c - '0');
    if (seen_point) ++digits_after_point;
  }
  if (!any_digit) return Status::InvalidArgument("malformed decimal '{}'", text);
  int64_t exponent = 0;
  if (i < s.size()) {
    if (s[i] != 'e' && s[i] != 'E') return Status::InvalidArgument("malformed decimal '{}'", text);
    std::string_view e = s.substr(i + 1);
    if (!e.empty() && e.front() == '+') e.remove_prefix(1);
    auto [p, ec] = std::from_chars(e.data(), e.data() + e.size(), exponent);
    if (ec != std::errc() || p != e.data() + e.size() || exponent > 100 || exponent < -100) {
      return Status::InvalidArgument("malformed decimal '{}'", text);
    }
  }
  // value = unscaled * 10^(exponent - digits_after_point); rescale to `scale`.
  int64_t shift = scale - (static_cast<int64_t>(digits_after_point) - exponent);
  if (shift < 0) {
    __int128 div = Pow10(static_cast<int>(std::min<int64_t>(-shift, 38)));
    if (-shift > 38 ? unscaled != 0 : unscaled % div != 0) {
      return Status::InvalidArgument("decimal '{}' has more than {} digits after the point", text,
                                     scale);
    }
    unscaled = -shift > 38 ? 0 : unscaled / div;
  } else {
    for (int64_t k = 0; k < shift; ++k) {
      if (unscaled > kPow10_38) {
        return Status::InvalidArgument("decimal '{}' exceeds precision {}", text, precision);
      }
      unscaled *= 10;
    }
  }
  if (!FitsPrecision(unscaled, precision)) {
    return Status::InvalidArgument("decimal '{}' exceeds precision {}", text, precision);
  }
  return neg ? -unscaled : unscaled;
}

std::string FloatText(double v, bool is_float) {
  if (std::isnan(v)) return "NaN";
  if (std::isinf(v)) return v > 0 ? "Infinity" : "-Infinity";
  char buf[64];
  std::to_chars_result r = is_float ? std::to_chars(buf, buf + sizeof buf, static_cast<float>(v))
                                    : std::to_chars(buf, buf + sizeof buf, v);
  return std::string(buf, r.ptr);
}

Result<double> ParseFloating(std::string_view s) {
  if (s == "NaN") return std::numeric_limits<double>::quiet_NaN();
  if (s == "Infinity" || s == "+Infinity") return std::numeric_limits<double>::infinity();
  if (s == "-Infinity") return -std::numeric_limits<double>::infinity();
  if (!s.empty() && s.front() == '+') s.remove_prefix(1);
  double v = 0;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || p != s.data() + s.size() || s.empty()) {
    return Status::InvalidArgument("malformed floating-point number '{}'", s);
  }
  return v;
}

template <typename T>
Result<T> ParseInteger(std::string_view s) {
  if (!s.empty() && s.front() == '+') s.remove_prefix(1);
  T v = 0;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec == std::errc::result_out_of_range) {
    return Status::InvalidArgument("integer '{}' is out of range", s);
  }
  if (ec != std::errc() || p != s.data() + s.size() || s.empty()) {
    return Status::InvalidArgument("malformed integer '{}'", s);
  }
  return v;
}

int DigitsOf(TypeKind k) {
  return (k == TypeKind::kTimestampNs || k == TypeKind::kTimestampTzNs) ? 9 : 6;
}

// Parses `text` as a value of `type`; `strict_json` selects the JSON rules (timestamptz needs
// an offset, timestamps need a time of day).
Result<Literal> ParseText(const TypePtr& type, std::string_view text, bool strict_json) {
  using internal::OffsetRule;
  switch (type->kind()) {
    case TypeKind::kBoolean: {
      if (text == "true" || text == "TRUE" || text == "True") return Literal::Boolean(true);
      if (text == "false" || text == "FALSE" || text == "False") return Literal::Boolean(false);
      return Status::InvalidArgument("malformed boolean '{}'", text);
    }
    case TypeKind::kInt: {
      FLOE_ASSIGN_OR_RETURN(int32_t v, ParseInteger<int32_t>(text));
      return Literal::Int(v);
    }
    case TypeKind::kLong: {
      FLOE_ASSIGN_OR_RETURN(int64_t v, ParseInteger<int64_t>(text));
      return Literal::Long(v);
    }
    case TypeKind::kFloat: {
      FLOE_ASSIGN_OR_RETURN(double v, ParseFloating(text));
      return Literal::Float(static_cast<float>(v));
    }
    case TypeKind::kDouble: {
      FLOE_ASSIGN_OR_RETURN(double v, ParseFloating(text));
      return Literal::Double(v);
    }
    case TypeKind::kDecimal: {
      FLOE_ASSIGN_OR_RETURN(__int128 v, ParseDecimal(text, type->precision(), type->scale()));
      return Literal::Decimal(v, type->precision(), type->scale());
    }
    case TypeKind::kDate: {
      FLOE_ASSIGN_OR_RETURN(int32_t v, internal::ParseIsoDate(text));
      return Literal::Date(v);
    }
    case TypeKind::kTime: {
      FLOE_ASSIGN_OR_RETURN(int64_t v, internal::ParseIsoTime(text, 6));
      return Literal::Time(v);
    }
    case TypeKind::kTimestamp:
    case TypeKind::kTimestampNs:
    case TypeKind::kTimestampTz:
    case TypeKind::kTimestampTzNs: {
      bool tz = type->kind() == TypeKind::kTimestampTz || type->kind() == TypeKind::kTimestampTzNs;
      OffsetRule rule = !tz ? OffsetRule::kForbidden
                            : (strict_json ? OffsetRule::kRequired : OffsetRule::kOptional);
      FLOE_ASSIGN_OR_RETURN(
          int64_t v, internal::ParseIsoTimestamp(text, DigitsOf(type->kind()), rule, !strict_json));
      return Literal::Make(type, v);
    }
    case TypeKind::kString: return Literal::String(std::string(text));
    case TypeKind::kUuid: {
      FLOE_ASSIGN_OR_RETURN(auto v, ParseUuid(text));
      return Literal::Uuid(v);
    }
    case TypeKind::kFixed:
    case TypeKind::kBinary: {
      FLOE_ASSIGN_OR_RETURN(std::string bytes, HexDecode(text));
      return Literal::Make(type, std::move(bytes));
    }
    default: return Status::InvalidArgument("no literal form for type {}", type->ToString());
  }
}

}  // namespace

Literal Literal::Null(TypePtr type) { return Literal(std::move(type)); }
Literal Literal::Boolean(bool v) { return Literal(BooleanType(), v); }
Literal Literal::Int(int32_t v) { return Literal(IntType(), v); }
Literal Literal::Long(int64_t v) { return Literal(LongType(), v); }
Literal Literal::Float(float v) { return Literal(FloatType(), v); }
Literal Literal::Double(double v) { return Literal(DoubleType(), v); }
Literal Literal::Decimal(__int128 unscaled, int32_t precision, int32_t scale) {
  return Literal(DecimalType(precision, scale), unscaled);
}
Literal Literal::Date(int32_t days) { return Literal(DateType(), days); }
Literal Literal::Time(int64_t micros) { return Literal(TimeType(), micros); }
Literal Literal::Timestamp(int64_t micros) { return Literal(TimestampType(), micros); }
Literal Literal::TimestampTz(int64_t micros) { return Literal(TimestampTzType(), micros); }
Literal Literal::TimestampNs(int64_t nanos) { return Literal(TimestampNsType(), nanos); }
Literal Literal::TimestampTzNs(int64_t nanos) { return Literal(TimestampTzNsType(), nanos); }
Literal Literal::String(std::string v) { return Literal(StringType(), std::move(v)); }
Literal Literal::Uuid(UuidBytes v) { return Literal(UuidType(), v); }
Literal Literal::Fixed(std::string bytes) {
  auto len = static_cast<int32_t>(bytes.size());
  return Literal(FixedType(len), std::move(bytes));
}
Literal Literal::Binary(std::string bytes) { return Literal(BinaryType(), std::move(bytes)); }

Result<Literal> Literal::Make(TypePtr type, Value value) {
  if (type == nullptr) return Status::InvalidArgument("literal without a type");
  if (std::holds_alternative<std::monostate>(value)) return Null(std::move(type));
  Repr want = ReprOf(type->kind());
  if (want == kNullRepr || value.index() != static_cast<size_t>(want)) {
    return Status::InvalidArgument("value does not match literal type {}", type->ToString());
  }
  if (type->kind() == TypeKind::kFixed &&
      std::get<std::string>(value).size() != static_cast<size_t>(type->length())) {
    return Status::InvalidArgument("{} value of {} bytes", type->ToString(),
                                   std::get<std::string>(value).size());
  }
  if (type->kind() == TypeKind::kDecimal &&
      !FitsPrecision(std::get<__int128>(value), type->precision())) {
    return Status::InvalidArgument("value exceeds the precision of {}", type->ToString());
  }
  return Literal(std::move(type), std::move(value));
}

Result<std::string> Literal::ToBytes() const {
  if (is_null()) return Status::InvalidArgument("a null has no single-value binary form");
  std::string out;
  switch (type_->kind()) {
    case TypeKind::kBoolean: return std::string(1, bool_value() ? '\x01' : '\x00');
    case TypeKind::kInt:
    case TypeKind::kDate: {
      out.resize(4);
      StoreLE<int32_t>(out.data(), int_value());
      return out;
    }
    case TypeKind::kLong:
    case TypeKind::kTime:
    case TypeKind::kTimestamp:
    case TypeKind::kTimestampTz:
    case TypeKind::kTimestampNs:
    case TypeKind::kTimestampTzNs: {
      out.resize(8);
      StoreLE<int64_t>(out.data(), long_value());
      return out;
    }
    case TypeKind::kFloat: {
      out.resize(4);
      StoreLE<uint32_t>(out.data(), std::bit_cast<uint32_t>(float_value()));
      return out;
    }
    case TypeKind::kDouble: {
      out.resize(8);
      StoreLE<uint64_t>(out.data(), std::bit_cast<uint64_t>(double_value()));
      return out;
    }
    case TypeKind::kDecimal: return DecimalToBytes(decimal_value());
    case TypeKind::kString:
    case TypeKind::kFixed:
    case TypeKind::kBinary: return string_value();
    case TypeKind::kUuid:
      return std::string(reinterpret_cast<const char*>(uuid_value().data()), 16);
    default:
      return Status::InvalidArgument("type {} has no single-value binary form", type_->ToString());
  }
}

Result<Literal> Literal::FromBytes(TypePtr type, std::string_view b) {
  if (type == nullptr) return Status::InvalidArgument("literal without a type");
  auto wrong_size = [&]() {
    return Status::Corrupt("{} bytes cannot hold a {} value", b.size(), type->ToString());
  };
  switch (type->kind()) {
    case TypeKind::kBoolean:
      if (b.size() != 1) return wrong_size();
      return Literal(type, b[0] != 0);
    case TypeKind::kInt:
    case TypeKind::kDate:
      if (b.size() != 4) return wrong_size();
      return Literal(type, LoadLE<int32_t>(b.data()));
    case TypeKind::kLong:
      // Promotion int -> long: bounds written as int keep their 4 bytes.
      if (b.size() == 4) return Literal(type, static_cast<int64_t>(LoadLE<int32_t>(b.data())));
      if (b.size() != 8) return wrong_size();
      return Literal(type, LoadLE<int64_t>(b.data()));
    case TypeKind::kTimestamp:
    case TypeKind::kTimestampTz:
    case TypeKind::kTimestampNs:
    case TypeKind::kTimestampTzNs:
      if (b.size() == 4) {
        // Promotion date -> timestamp (v3): 4 bytes are days.
        int64_t per_day = DigitsOf(type->kind()) == 9 ? 86400000000000LL : 86400000000LL;
        return Literal(type, static_cast<int64_t>(LoadLE<int32_t>(b.data())) * per_day);
      }
      [[fallthrough]];
    case TypeKind::kTime:
      if (b.size() != 8) return wrong_size();
      return Literal(type, LoadLE<int64_t>(b.data()));
    case TypeKind::kFloat:
      if (b.size() != 4) return wrong_size();
      return Literal(type, std::bit_cast<float>(LoadLE<uint32_t>(b.data())));
    case TypeKind::kDouble:
      if (b.size() == 4) {
        return Literal(type, static_cast<double>(std::bit_cast<float>(LoadLE<uint32_t>(b.data()))));
      }
      if (b.size() != 8) return wrong_size();
      return Literal(type, std::bit_cast<double>(LoadLE<uint64_t>(b.data())));
    case TypeKind::kDecimal: {
      FLOE_ASSIGN_OR_RETURN(__int128 v, DecimalFromBytes(b));
      if (!FitsPrecision(v, type->precision())) {
        return Status::Corrupt("decimal bound exceeds the precision of {}", type->ToString());
      }
      return Literal(type, v);
    }
    case TypeKind::kString:
    case TypeKind::kBinary: return Literal(type, std::string(b));
    case TypeKind::kFixed:
      if (b.size() != static_cast<size_t>(type->length())) return wrong_size();
      return Literal(type, std::string(b));
    case TypeKind::kUuid: {
      if (b.size() != 16) return wrong_size();
      UuidBytes u;
      std::memcpy(u.data(), b.data(), 16);
      return Literal(type, u);
    }
    default:
      return Status::InvalidArgument("type {} has no single-value binary form", type->ToString());
  }
}

std::string Literal::ToString() const {
  if (is_null()) return "null";
  switch (type_->kind()) {
    case TypeKind::kBoolean: return bool_value() ? "true" : "false";
    case TypeKind::kInt: return std::to_string(int_value());
    case TypeKind::kLong: return std::to_string(long_value());
    case TypeKind::kFloat: return FloatText(float_value(), true);
    case TypeKind::kDouble: return FloatText(double_value(), false);
    case TypeKind::kDecimal: return columnar::FormatDecimal(decimal_value(), type_->scale());
    case TypeKind::kDate: return columnar::FormatDate(int_value());
    case TypeKind::kTime: return columnar::FormatTime(long_value(), columnar::TimeUnit::kMicro);
    case TypeKind::kTimestamp:
      return columnar::FormatTimestamp(long_value(), columnar::TimeUnit::kMicro, false);
    case TypeKind::kTimestampTz:
      return columnar::FormatTimestamp(long_value(), columnar::TimeUnit::kMicro, true);
    case TypeKind::kTimestampNs:
      return columnar::FormatTimestamp(long_value(), columnar::TimeUnit::kNano, false);
    case TypeKind::kTimestampTzNs:
      return columnar::FormatTimestamp(long_value(), columnar::TimeUnit::kNano, true);
    case TypeKind::kString: return string_value();
    case TypeKind::kUuid:
      return columnar::FormatUuid(
          std::string_view(reinterpret_cast<const char*>(uuid_value().data()), 16));
    case TypeKind::kFixed:
    case TypeKind::kBinary: return HexUpper(string_value());
    default: return "null";
  }
}

Json Literal::ToJsonValue() const {
  if (is_null()) return Json(nullptr);
  switch (type_->kind()) {
    case TypeKind::kBoolean: return Json(bool_value());
    case TypeKind::kInt: return Json(int_value());
    case TypeKind::kLong: return Json(long_value());
    case TypeKind::kFloat:
    case TypeKind::kDouble: {
      double v = type_->kind() == TypeKind::kFloat ? float_value() : double_value();
      // JSON has no NaN/Infinity; write Jackson's tokens as strings (read back below).
      if (!std::isfinite(v)) return Json(ToString());
      if (type_->kind() == TypeKind::kFloat) {
        // Shortest float text re-read as double, so 1.1f is written 1.1 (as Java does).
        double d = 0;
        std::string s = FloatText(v, true);
        std::from_chars(s.data(), s.data() + s.size(), d);
        return Json(d);
      }
      return Json(v);
    }
    default: return Json(ToString());
  }
}

std::string Literal::ToJson() const { return internal::Dump(ToJsonValue()); }

Result<Literal> Literal::FromJsonValue(const TypePtr& type, const Json& json) {
  if (type == nullptr) return Status::InvalidArgument("literal without a type");
  if (json.is_null()) return Null(type);
  auto mismatch = [&]() {
    return Status::InvalidArgument("JSON {} is not a {} value", internal::Dump(json).substr(0, 64),
                                   type->ToString());
  };
  switch (type->kind()) {
    case TypeKind::kBoolean:
      if (!json.is_boolean()) return mismatch();
      return Boolean(json.get<bool>());
    case TypeKind::kInt: {
      if (!json.is_number_integer()) return mismatch();
      FLOE_ASSIGN_OR_RETURN(int32_t v, internal::AsInt32(json, "int value"));
      return Int(v);
    }
    case TypeKind::kLong: {
      if (!json.is_number_integer()) return mismatch();
      FLOE_ASSIGN_OR_RETURN(int64_t v, internal::AsInt64(json, "long value"));
      return Long(v);
    }
    case TypeKind::kFloat:
    case TypeKind::kDouble: {
      double v = 0;
      if (json.is_number()) {
        v = json.get<double>();
      } else if (json.is_string()) {
        const auto& s = json.get_ref<const std::string&>();
        if (s != "NaN" && s != "Infinity" && s != "-Infinity") return mismatch();
        FLOE_ASSIGN_OR_RETURN(v, ParseFloating(s));
      } else {
        return mismatch();
      }
      if (type->kind() == TypeKind::kFloat) return Float(static_cast<float>(v));
      return Double(v);
    }
    case TypeKind::kDecimal:
      // Java writes a string; a JSON number is accepted as well.
      if (json.is_number()) {
        return ParseText(type, internal::Dump(json), true);
      }
      [[fallthrough]];
    default:
      if (type->is_nested() || type->kind() == TypeKind::kUnknown) {
        return Status::InvalidArgument("type {} has only null literals", type->ToString());
      }
      if (!json.is_string()) return mismatch();
      return ParseText(type, json.get_ref<const std::string&>(), true);
  }
}

Result<Literal> Literal::FromJson(const TypePtr& type, std::string_view json_text) {
  FLOE_ASSIGN_OR_RETURN(Json j, internal::ParseJson(json_text, "literal"));
  return FromJsonValue(type, j);
}

Result<Literal> Literal::Parse(const TypePtr& type, std::string_view text) {
  if (type == nullptr) return Status::InvalidArgument("literal without a type");
  if (type->is_nested() || type->kind() == TypeKind::kUnknown) {
    return Status::InvalidArgument("type {} has only null literals", type->ToString());
  }
  return ParseText(type, text, false);
}

namespace {

int Sign(int64_t a, int64_t b) { return a < b ? -1 : (a > b ? 1 : 0); }

// Total order of floating values: -NaN... NaN greatest, -0.0 < +0.0 (Java Double.compare).
template <typename F>
int CompareFloating(F a, F b) {
  bool an = std::isnan(a), bn = std::isnan(b);
  if (an || bn) return an == bn ? 0 : (an ? 1 : -1);
  if (a < b) return -1;
  if (a > b) return 1;
  bool as = std::signbit(a), bs = std::signbit(b);
  return as == bs ? 0 : (as ? -1 : 1);
}

int CompareBytes(std::string_view a, std::string_view b) {
  int c = std::memcmp(a.data(), b.data(), std::min(a.size(), b.size()));
  if (c != 0) return c < 0 ? -1 : 1;
  return Sign(static_cast<int64_t>(a.size()), static_cast<int64_t>(b.size()));
}

// Compares a*10^-sa with b*10^-sb exactly.
int CompareDecimal(__int128 a, int32_t sa, __int128 b, int32_t sb) {
  if (sa == sb) return a < b ? -1 : (a > b ? 1 : 0);
  if ((a < 0) != (b < 0)) return a < 0 ? -1 : 1;
  // Scale the one with the smaller scale up; on overflow its magnitude is larger.
  bool swap = sa > sb;
  __int128 x = swap ? b : a, y = swap ? a : b;
  int d = swap ? sa - sb : sb - sa;
  for (int i = 0; i < d; ++i) {
    if (x > kPow10_38 || x < -kPow10_38) {
      int r = x < 0 ? -1 : 1;
      return swap ? -r : r;
    }
    x *= 10;
  }
  int r = x < y ? -1 : (x > y ? 1 : 0);
  return swap ? -r : r;
}

}  // namespace

int CompareUuidSigned(const Literal::UuidBytes& a, const Literal::UuidBytes& b) {
  auto hi_a = LoadBE<int64_t>(a.data()), hi_b = LoadBE<int64_t>(b.data());
  if (hi_a != hi_b) return hi_a < hi_b ? -1 : 1;
  auto lo_a = LoadBE<int64_t>(a.data() + 8), lo_b = LoadBE<int64_t>(b.data() + 8);
  return Sign(lo_a, lo_b);
}

int Compare(const Literal& a, const Literal& b) {
  if (a.is_null() || b.is_null()) return a.is_null() == b.is_null() ? 0 : (a.is_null() ? -1 : 1);
  TypeKind ka = a.type()->kind(), kb = b.type()->kind();
  if (ka != kb) return static_cast<int>(ka) < static_cast<int>(kb) ? -1 : 1;
  switch (ReprOf(ka)) {
    case kBoolRepr: return Sign(a.bool_value(), b.bool_value());
    case kInt32Repr: return Sign(a.int_value(), b.int_value());
    case kInt64Repr: return Sign(a.long_value(), b.long_value());
    case kFloatRepr: return CompareFloating(a.float_value(), b.float_value());
    case kDoubleRepr: return CompareFloating(a.double_value(), b.double_value());
    case kDecimalRepr:
      return CompareDecimal(a.decimal_value(), a.type()->scale(), b.decimal_value(),
                            b.type()->scale());
    case kStringRepr: return CompareBytes(a.string_value(), b.string_value());
    case kUuidRepr: {
      int c = std::memcmp(a.uuid_value().data(), b.uuid_value().data(), 16);
      return c < 0 ? -1 : (c > 0 ? 1 : 0);
    }
    default: return 0;
  }
}

bool Literal::operator==(const Literal& other) const {
  if (!type_ || !other.type_) return type_ == other.type_;
  if (!type_->Equals(*other.type_)) return false;
  return Compare(*this, other) == 0;
}

Result<Literal> Literal::CastTo(const TypePtr& type) const {
  if (type == nullptr) return Status::InvalidArgument("cast to a null type");
  if (type_->Equals(*type)) return *this;
  if (is_null()) return Null(type);
  TypeKind from = type_->kind(), to = type->kind();
  auto fail = [&]() {
    return Status::InvalidArgument("cannot convert {} value {} to {}", type_->ToString(),
                                   ToString(), type->ToString());
  };
  auto out_of_range = [&]() {
    return Status::InvalidArgument("{} value {} is out of range for {}", type_->ToString(),
                                   ToString(), type->ToString());
  };
  if (from == TypeKind::kString) {
    if (to == TypeKind::kString) return *this;
    return Parse(type, string_value());
  }
  bool from_integer = from == TypeKind::kInt || from == TypeKind::kLong;
  int64_t iv = 0;
  if (ReprOf(from) == kInt32Repr) iv = int_value();
  if (ReprOf(from) == kInt64Repr) iv = long_value();
  switch (to) {
    case TypeKind::kInt:
      if (from != TypeKind::kLong) return fail();
      if (iv < std::numeric_limits<int32_t>::min() || iv > std::numeric_limits<int32_t>::max()) {
        return out_of_range();
      }
      return Int(static_cast<int32_t>(iv));
    case TypeKind::kLong:
      if (from != TypeKind::kInt) return fail();
      return Long(iv);
    case TypeKind::kFloat:
      if (from_integer) return Float(static_cast<float>(iv));
      if (from == TypeKind::kDouble) return Float(static_cast<float>(double_value()));
      return fail();
    case TypeKind::kDouble:
      if (from_integer) return Double(static_cast<double>(iv));
      if (from == TypeKind::kFloat) return Double(float_value());
      return fail();
    case TypeKind::kDecimal: {
      __int128 unscaled;
      int32_t scale;
      if (from_integer) {
        unscaled = iv;
        scale = 0;
      } else if (from == TypeKind::kDecimal) {
        unscaled = decimal_value();
        scale = type_->scale();
      } else {
        return fail();
      }
      if (scale > type->scale()) {
        __int128 div = Pow10(scale - type->scale());
        if (unscaled % div != 0) return out_of_range();
        unscaled /= div;
      } else {
        for (int i = scale; i < type->scale(); ++i) {
          if (unscaled > kPow10_38 || unscaled < -kPow10_38) return out_of_range();
          unscaled *= 10;
        }
      }
      if (!FitsPrecision(unscaled, type->precision())) return out_of_range();
      return Decimal(unscaled, type->precision(), type->scale());
    }
    case TypeKind::kDate: {
      if (from == TypeKind::kTimestamp || from == TypeKind::kTimestampTz ||
          from == TypeKind::kTimestampNs || from == TypeKind::kTimestampTzNs) {
        int64_t per_day = DigitsOf(from) == 9 ? 86400000000000LL : 86400000000LL;
        if (internal::FloorMod(iv, per_day) != 0) return out_of_range();
        return Date(static_cast<int32_t>(internal::FloorDiv(iv, per_day)));
      }
      return fail();
    }
    case TypeKind::kTimestamp:
    case TypeKind::kTimestampTz:
    case TypeKind::kTimestampNs:
    case TypeKind::kTimestampTzNs: {
      bool to_tz = to == TypeKind::kTimestampTz || to == TypeKind::kTimestampTzNs;
      int64_t to_per_sec = DigitsOf(to) == 9 ? 1000000000 : 1000000;
      if (from == TypeKind::kDate) {
        __int128 v = static_cast<__int128>(int_value()) * 86400 * to_per_sec;
        if (v < std::numeric_limits<int64_t>::min() || v > std::numeric_limits<int64_t>::max()) {
          return out_of_range();
        }
        return Literal(type, static_cast<int64_t>(v));
      }
      bool from_ts = from == TypeKind::kTimestamp || from == TypeKind::kTimestampNs;
      bool from_tz = from == TypeKind::kTimestampTz || from == TypeKind::kTimestampTzNs;
      if (!(from_ts || from_tz) || from_tz != to_tz) return fail();
      int64_t from_per_sec = DigitsOf(from) == 9 ? 1000000000 : 1000000;
      if (from_per_sec == to_per_sec) return Literal(type, iv);
      if (from_per_sec > to_per_sec) return Literal(type, internal::FloorDiv(iv, 1000));
      if (iv > std::numeric_limits<int64_t>::max() / 1000 ||
          iv < std::numeric_limits<int64_t>::min() / 1000) {
        return out_of_range();
      }
      return Literal(type, iv * 1000);
    }
    case TypeKind::kBinary:
      if (from == TypeKind::kFixed) return Binary(string_value());
      return fail();
    case TypeKind::kFixed:
      if ((from == TypeKind::kBinary) &&
          string_value().size() == static_cast<size_t>(type->length())) {
        return Literal(type, string_value());
      }
      return fail();
    default: return fail();
  }
}

namespace {

// Length of the UTF-8 sequence starting with byte `c` (1 for invalid lead bytes).
size_t Utf8Length(unsigned char c) {
  if (c < 0x80) return 1;
  if ((c >> 5) == 0x6) return 2;
  if ((c >> 4) == 0xE) return 3;
  if ((c >> 3) == 0x1E) return 4;
  return 1;
}

uint32_t DecodeCodePoint(std::string_view s) {
  auto b = [&](size_t i) { return static_cast<uint32_t>(static_cast<unsigned char>(s[i])); };
  switch (s.size()) {
    case 1: return b(0);
    case 2: return (b(0) & 0x1F) << 6 | (b(1) & 0x3F);
    case 3: return (b(0) & 0x0F) << 12 | (b(1) & 0x3F) << 6 | (b(2) & 0x3F);
    case 4: return (b(0) & 0x07) << 18 | (b(1) & 0x3F) << 12 | (b(2) & 0x3F) << 6 | (b(3) & 0x3F);
    default: return 0;
  }
}

void AppendCodePoint(std::string* out, uint32_t cp) {
  if (cp < 0x80) {
    out->push_back(static_cast<char>(cp));
  } else if (cp < 0x800) {
    out->push_back(static_cast<char>(0xC0 | cp >> 6));
    out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else if (cp < 0x10000) {
    out->push_back(static_cast<char>(0xE0 | cp >> 12));
    out->push_back(static_cast<char>(0x80 | (cp >> 6 & 0x3F)));
    out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else {
    out->push_back(static_cast<char>(0xF0 | cp >> 18));
    out->push_back(static_cast<char>(0x80 | (cp >> 12 & 0x3F)));
    out->push_back(static_cast<char>(0x80 | (cp >> 6 & 0x3F)));
    out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  }
}

}  // namespace

namespace internal {
// Byte length of the first `n` code points of `s` (all of `s` when shorter).
size_t Utf8PrefixBytes(std::string_view s, size_t n) {
  size_t i = 0;
  for (size_t k = 0; k < n && i < s.size(); ++k) {
    i += std::min(Utf8Length(static_cast<unsigned char>(s[i])), s.size() - i);
  }
  return i;
}
}  // namespace internal

Literal TruncateLowerBound(const Literal& value, int width) {
  if (value.is_null() || width <= 0) return value;
  TypeKind k = value.type()->kind();
  if (k == TypeKind::kString) {
    size_t n = internal::Utf8PrefixBytes(value.string_value(), static_cast<size_t>(width));
    if (n == value.string_value().size()) return value;
    return Literal::String(value.string_value().substr(0, n));
  }
  if (k == TypeKind::kBinary && value.string_value().size() > static_cast<size_t>(width)) {
    return Literal::Binary(value.string_value().substr(0, static_cast<size_t>(width)));
  }
  return value;
}

std::optional<Literal> TruncateUpperBound(const Literal& value, int width) {
  if (value.is_null() || width <= 0) return value;
  TypeKind k = value.type()->kind();
  const auto w = static_cast<size_t>(width);
  if (k == TypeKind::kString) {
    const std::string& s = value.string_value();
    size_t prefix = internal::Utf8PrefixBytes(s, w);
    if (prefix == s.size()) return value;
    std::vector<size_t> starts;  // code point i spans [starts[i], starts[i + 1])
    for (size_t i = 0; i < prefix;) {
      starts.push_back(i);
      i += std::min(Utf8Length(static_cast<unsigned char>(s[i])), prefix - i);
    }
    starts.push_back(prefix);
    for (size_t i = starts.size() - 1; i-- > 0;) {
      uint32_t cp =
          DecodeCodePoint(std::string_view(s).substr(starts[i], starts[i + 1] - starts[i]));
      uint32_t next = cp + 1;
      if (next >= 0xD800 && next <= 0xDFFF) next = 0xE000;  // skip the surrogate range
      if (next <= 0x10FFFF) {
        std::string out = s.substr(0, starts[i]);
        AppendCodePoint(&out, next);
        return Literal::String(std::move(out));
      }
    }
    return std::nullopt;
  }
  if (k == TypeKind::kBinary) {
    const std::string& s = value.string_value();
    if (s.size() <= w) return value;
    for (size_t i = w; i-- > 0;) {
      auto b = static_cast<unsigned char>(s[i]);
      if (b != 0xFF) {
        std::string out = s.substr(0, i + 1);
        out[i] = static_cast<char>(b + 1);
        return Literal::Binary(std::move(out));
      }
    }
    return std::nullopt;
  }
  return value;
}

}  // namespace floe::iceberg
