#include "floe/format/text/scalar.h"

#include <charconv>
#include <cmath>
#include <cstring>
#include <limits>

#include <fmt/format.h>

#include "floe/columnar/value_format.h"

namespace floe::format::text {

using columnar::TimeUnit;
using columnar::TypeId;

namespace {

bool IsDigit(char c) { return c >= '0' && c <= '9'; }

char Lower(char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c + 32) : c; }

bool EqualsNoCase(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (Lower(a[i]) != Lower(b[i])) return false;
  }
  return true;
}

int HexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// Exactly `n` digits at s[*pos], advancing *pos.
bool Digits(std::string_view s, size_t* pos, int n, int64_t* out) {
  if (s.size() - *pos < static_cast<size_t>(n)) return false;
  int64_t v = 0;
  for (int k = 0; k < n; ++k) {
    char c = s[*pos + static_cast<size_t>(k)];
    if (!IsDigit(c)) return false;
    v = v * 10 + (c - '0');
  }
  *pos += static_cast<size_t>(n);
  *out = v;
  return true;
}

int64_t UnitsPerSecond(TimeUnit unit) {
  switch (unit) {
    case TimeUnit::kSecond: return 1;
    case TimeUnit::kMilli: return 1000;
    case TimeUnit::kMicro: return 1000000;
    case TimeUnit::kNano: return 1000000000;
  }
  return 1;
}

int UnitDigits(TimeUnit unit) {
  switch (unit) {
    case TimeUnit::kSecond: return 0;
    case TimeUnit::kMilli: return 3;
    case TimeUnit::kMicro: return 6;
    case TimeUnit::kNano: return 9;
  }
  return 0;
}

bool IsLeap(int64_t y) { return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0; }

unsigned DaysInMonth(int64_t y, unsigned m) {
  static constexpr unsigned kDays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  return m == 2 && IsLeap(y) ? 29 : kDays[m - 1];
}

// [+-]YYYY[Y..]-MM-DD at s[*pos]: days since the epoch.
bool DatePart(std::string_view s, size_t* pos, int64_t* days) {
  size_t p = *pos;
  bool negative = false;
  bool signed_year = false;
  if (p < s.size() && (s[p] == '+' || s[p] == '-')) {
    negative = s[p] == '-';
    signed_year = true;
    ++p;
  }
  size_t start = p;
  int64_t year = 0;
  while (p < s.size() && IsDigit(s[p]) && p - start < 7) year = year * 10 + (s[p++] - '0');
  size_t n = p - start;
  if (n < 4 || (n > 4 && !signed_year)) return false;
  if (negative) year = -year;
  int64_t month, day;
  if (p >= s.size() || s[p++] != '-' || !Digits(s, &p, 2, &month)) return false;
  if (p >= s.size() || s[p++] != '-' || !Digits(s, &p, 2, &day)) return false;
  if (month < 1 || month > 12 || day < 1 || day > DaysInMonth(year, static_cast<unsigned>(month))) {
    return false;
  }
  *days = columnar::DaysFromCivil(year, static_cast<unsigned>(month), static_cast<unsigned>(day));
  *pos = p;
  return true;
}

// HH:MM[:SS[.fraction]] at s[*pos]: seconds of the day and the fraction in `unit`s.
// Returns nullptr or the failure phrase.
const char* TimePart(std::string_view s, size_t* pos, TimeUnit unit, int64_t* seconds,
                     int64_t* fraction, const char* form) {
  size_t p = *pos;
  int64_t h, m, sec = 0;
  if (!Digits(s, &p, 2, &h) || p >= s.size() || s[p++] != ':' || !Digits(s, &p, 2, &m)) {
    return form;
  }
  int64_t frac = 0;
  if (p < s.size() && s[p] == ':') {
    ++p;
    if (!Digits(s, &p, 2, &sec)) return form;
    if (p < s.size() && s[p] == '.') {
      ++p;
      size_t start = p;
      const int keep = UnitDigits(unit);
      while (p < s.size() && IsDigit(s[p])) {
        const int k = static_cast<int>(p - start);
        if (k >= 9) return form;
        if (k < keep) {
          frac = frac * 10 + (s[p] - '0');
        } else if (s[p] != '0') {
          return "a value with no more fractional second digits than the type's unit";
        }
        ++p;
      }
      if (p == start) return form;
      for (int k = static_cast<int>(p - start); k < keep; ++k) frac *= 10;
    }
  }
  if (h > 23 || m > 59 || sec > 59) return form;
  *seconds = h * 3600 + m * 60 + sec;
  *fraction = frac;
  *pos = p;
  return nullptr;
}

template <typename Int>
const char* ParseInteger(std::string_view s, Int* out) {
  if (s.empty() || s[0] == '+') return "an integer";
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), *out);
  if (ec == std::errc::result_out_of_range) {
    return sizeof(Int) == 4 ? "an integer in the int range" : "an integer in the long range";
  }
  if (ec != std::errc() || end != s.data() + s.size()) return "an integer";
  return nullptr;
}

template <typename Float>
const char* ParseFloating(std::string_view s, Float* out) {
  constexpr const char* kForm = "a number (or NaN, Infinity, -Infinity)";
  if (s.empty() || s[0] == '+') return kForm;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), *out);
  if (ec == std::errc::result_out_of_range) {
    // Overflow and underflow alike: the literal has no close value of the type.
    return "a number in the type's range";
  }
  if (ec != std::errc() || end != s.data() + s.size()) return kForm;
  return nullptr;
}

}  // namespace

const char* ParseBool(std::string_view s, bool* out) {
  if (EqualsNoCase(s, "true") || s == "1") {
    *out = true;
    return nullptr;
  }
  if (EqualsNoCase(s, "false") || s == "0") {
    *out = false;
    return nullptr;
  }
  return "a boolean (true or false)";
}

const char* ParseInt32(std::string_view s, int32_t* out) { return ParseInteger(s, out); }
const char* ParseInt64(std::string_view s, int64_t* out) { return ParseInteger(s, out); }
const char* ParseFloat32(std::string_view s, float* out) { return ParseFloating(s, out); }
const char* ParseFloat64(std::string_view s, double* out) { return ParseFloating(s, out); }

const char* ParseDecimal(std::string_view s, int32_t precision, int32_t scale, __int128* out) {
  constexpr const char* kForm = "a decimal number";
  size_t p = 0;
  bool negative = false;
  if (p < s.size() && (s[p] == '-' || s[p] == '+')) negative = s[p++] == '-';
  // The significant digits (integer then fraction part, leading zeros dropped), at most
  // 38 of them, and the power of ten they are scaled by.
  char digits[40];
  int n = 0;
  int64_t exponent = 0;
  bool any = false;
  bool overflow = false;
  auto take = [&](char c) {
    any = true;
    if (n == 0 && c == '0') return;
    if (n < 39) {
      digits[n++] = c;
    } else {
      overflow = true;
    }
  };
  while (p < s.size() && IsDigit(s[p])) take(s[p++]);
  if (p < s.size() && s[p] == '.') {
    ++p;
    while (p < s.size() && IsDigit(s[p])) {
      take(s[p++]);
      --exponent;
    }
  }
  if (!any) return kForm;
  if (p < s.size() && (s[p] == 'e' || s[p] == 'E')) {
    ++p;
    bool exp_negative = false;
    if (p < s.size() && (s[p] == '-' || s[p] == '+')) exp_negative = s[p++] == '-';
    size_t start = p;
    int64_t e = 0;
    while (p < s.size() && IsDigit(s[p])) {
      if (e < 100000) e = e * 10 + (s[p] - '0');
      ++p;
    }
    if (p == start) return kForm;
    exponent += exp_negative ? -e : e;
  }
  if (p != s.size()) return kForm;
  // Trailing zeros of the digits beyond the scale can be dropped exactly.
  int64_t shift = exponent + scale;  // unscaled = digits * 10^shift
  while (shift < 0 && n > 0 && digits[n - 1] == '0') {
    --n;
    ++shift;
  }
  if (n == 0) {
    *out = 0;
    return nullptr;
  }
  if (shift < 0) return "a decimal with no more fractional digits than the type's scale";
  if (overflow || n + shift > precision) {
    return "a decimal with no more digits than the type's precision";
  }
  unsigned __int128 v = 0;
  for (int k = 0; k < n; ++k) v = v * 10 + static_cast<unsigned>(digits[k] - '0');
  for (int64_t k = 0; k < shift; ++k) v *= 10;
  *out = negative ? -static_cast<__int128>(v) : static_cast<__int128>(v);
  return nullptr;
}

const char* ParseDate(std::string_view s, int32_t* out) {
  constexpr const char* kForm = "a date (YYYY-MM-DD)";
  size_t p = 0;
  int64_t days;
  if (!DatePart(s, &p, &days) || p != s.size()) return kForm;
  if (days < std::numeric_limits<int32_t>::min() || days > std::numeric_limits<int32_t>::max()) {
    return kForm;
  }
  *out = static_cast<int32_t>(days);
  return nullptr;
}

const char* ParseTime(std::string_view s, TimeUnit unit, int64_t* out) {
  constexpr const char* kForm = "a time (HH:MM:SS[.ffffff])";
  size_t p = 0;
  int64_t seconds, fraction;
  if (const char* e = TimePart(s, &p, unit, &seconds, &fraction, kForm)) return e;
  if (p != s.size()) return kForm;
  *out = seconds * UnitsPerSecond(unit) + fraction;
  return nullptr;
}

const char* ParseTimestamp(std::string_view s, TimeUnit unit, bool utc_adjusted, int64_t* out) {
  const char* form = utc_adjusted
                         ? "a timestamp with an offset (YYYY-MM-DDTHH:MM:SS[.ffffff]+HH:MM)"
                         : "a timestamp without offset (YYYY-MM-DDTHH:MM:SS[.ffffff])";
  size_t p = 0;
  int64_t days, seconds, fraction;
  if (!DatePart(s, &p, &days)) return form;
  if (p >= s.size() || (s[p] != 'T' && s[p] != 't' && s[p] != ' ')) return form;
  ++p;
  if (const char* e = TimePart(s, &p, unit, &seconds, &fraction, form)) return e;
  int64_t offset = 0;
  if (p < s.size()) {
    if (!utc_adjusted) return form;
    if (s[p] == 'Z' || s[p] == 'z') {
      ++p;
    } else if (s[p] == '+' || s[p] == '-') {
      bool negative = s[p++] == '-';
      int64_t oh, om = 0;
      if (!Digits(s, &p, 2, &oh)) return form;
      if (p < s.size()) {
        if (s[p] == ':') ++p;
        if (!Digits(s, &p, 2, &om)) return form;
      }
      if (oh > 18 || om > 59) return form;
      offset = (oh * 3600 + om * 60) * (negative ? -1 : 1);
    }
    if (p != s.size()) return form;
  } else if (utc_adjusted) {
    return form;
  }
  int64_t secs = days * 86400 + seconds - offset;
  const int64_t per = UnitsPerSecond(unit);
  if (secs < 0 && fraction > 0) {  // keeps the product in range near the type's minimum
    secs += 1;
    fraction -= per;
  }
  int64_t v;
  if (__builtin_mul_overflow(secs, per, &v) || __builtin_add_overflow(v, fraction, &v)) {
    return "a timestamp within the type's range";
  }
  *out = v;
  return nullptr;
}

const char* ParseUuid(std::string_view s, char out[16]) {
  constexpr const char* kForm = "a UUID (8-4-4-4-12 hex digits)";
  const bool dashed = s.size() == 36;
  if (!dashed && s.size() != 32) return kForm;
  size_t p = 0;
  for (int b = 0; b < 16; ++b) {
    if (dashed && (p == 8 || p == 13 || p == 18 || p == 23)) {
      if (s[p] != '-') return kForm;
      ++p;
    }
    int hi = HexValue(s[p]), lo = HexValue(s[p + 1]);
    if (hi < 0 || lo < 0) return kForm;
    out[b] = static_cast<char>(hi << 4 | lo);
    p += 2;
  }
  return nullptr;
}

const char* ParseHex(std::string_view s, std::string* out) {
  constexpr const char* kForm = "hex digits";
  if (s.size() % 2 != 0) return kForm;
  size_t base = out->size();
  out->resize(base + s.size() / 2);
  char* dst = out->data() + base;
  for (size_t i = 0; i < s.size(); i += 2) {
    int hi = HexValue(s[i]), lo = HexValue(s[i + 1]);
    if (hi < 0 || lo < 0) {
      out->resize(base);
      return kForm;
    }
    *dst++ = static_cast<char>(hi << 4 | lo);
  }
  return nullptr;
}

namespace {

void AppendHex(std::string_view bytes, std::string* out) {
  static constexpr char kHex[] = "0123456789abcdef";
  size_t base = out->size();
  out->resize(base + bytes.size() * 2);
  char* dst = out->data() + base;
  for (unsigned char c : bytes) {
    *dst++ = kHex[c >> 4];
    *dst++ = kHex[c & 15];
  }
}

template <typename Float>
void AppendFloat(Float v, std::string* out) {
  if (std::isnan(v)) {
    out->append("NaN");
  } else if (std::isinf(v)) {
    out->append(v > 0 ? "Infinity" : "-Infinity");
  } else {
    // The same formatting as JsonWriter::Double / Float.
    fmt::format_to(std::back_inserter(*out), "{}", v);
  }
}

}  // namespace

void AppendScalarText(const columnar::Array& a, int64_t i, std::string* out) {
  const auto& type = *a.type();
  switch (type.id()) {
    case TypeId::kBool: out->append(a.BoolValue(i) ? "true" : "false"); return;
    case TypeId::kInt8: fmt::format_to(std::back_inserter(*out), "{}", a.Value<int8_t>(i)); return;
    case TypeId::kInt16:
      fmt::format_to(std::back_inserter(*out), "{}", a.Value<int16_t>(i));
      return;
    case TypeId::kInt32: {
      char buf[16];
      auto r = std::to_chars(buf, buf + sizeof(buf), a.Value<int32_t>(i));
      out->append(buf, r.ptr);
      return;
    }
    case TypeId::kInt64: {
      char buf[24];
      auto r = std::to_chars(buf, buf + sizeof(buf), a.Value<int64_t>(i));
      out->append(buf, r.ptr);
      return;
    }
    case TypeId::kUInt8:
      fmt::format_to(std::back_inserter(*out), "{}", a.Value<uint8_t>(i));
      return;
    case TypeId::kUInt16:
      fmt::format_to(std::back_inserter(*out), "{}", a.Value<uint16_t>(i));
      return;
    case TypeId::kUInt32:
      fmt::format_to(std::back_inserter(*out), "{}", a.Value<uint32_t>(i));
      return;
    case TypeId::kUInt64:
      fmt::format_to(std::back_inserter(*out), "{}", a.Value<uint64_t>(i));
      return;
    case TypeId::kFloat16: AppendFloat(columnar::HalfToFloat(a.Value<uint16_t>(i)), out); return;
    case TypeId::kFloat32: AppendFloat(a.Value<float>(i), out); return;
    case TypeId::kFloat64: AppendFloat(a.Value<double>(i), out); return;
    case TypeId::kDecimal128:
      out->append(columnar::FormatDecimal(a.Value<__int128>(i), type.scale()));
      return;
    case TypeId::kDate32: out->append(columnar::FormatDate(a.Value<int32_t>(i))); return;
    case TypeId::kTime32:
      out->append(columnar::FormatTime(a.Value<int32_t>(i), type.unit()));
      return;
    case TypeId::kTime64:
      out->append(columnar::FormatTime(a.Value<int64_t>(i), type.unit()));
      return;
    case TypeId::kTimestamp:
      out->append(columnar::FormatTimestamp(a.Value<int64_t>(i), type.unit(), type.utc_adjusted()));
      return;
    case TypeId::kString: out->append(a.BinaryValue(i)); return;
    case TypeId::kBinary: AppendHex(a.BinaryValue(i), out); return;
    case TypeId::kFixedBinary: AppendHex(a.FixedValue(i), out); return;
    case TypeId::kUuid: out->append(columnar::FormatUuid(a.FixedValue(i))); return;
    case TypeId::kNull:
    case TypeId::kStruct:
    case TypeId::kList:
    case TypeId::kMap:
    case TypeId::kUnion: return;
  }
}

bool ValidUtf8(std::string_view s) {
  const auto* p = reinterpret_cast<const unsigned char*>(s.data());
  const auto* end = p + s.size();
  while (p < end) {
    if (end - p >= 8) {
      uint64_t w;
      std::memcpy(&w, p, 8);
      if ((w & 0x8080808080808080ULL) == 0) {
        p += 8;
        continue;
      }
    }
    unsigned char c = *p;
    if (c < 0x80) {
      ++p;
      continue;
    }
    int n;
    uint32_t cp;
    if ((c & 0xE0) == 0xC0) {
      n = 1, cp = c & 0x1F;
    } else if ((c & 0xF0) == 0xE0) {
      n = 2, cp = c & 0x0F;
    } else if ((c & 0xF8) == 0xF0) {
      n = 3, cp = c & 0x07;
    } else {
      return false;
    }
    if (end - p <= n) return false;
    for (int k = 1; k <= n; ++k) {
      if ((p[k] & 0xC0) != 0x80) return false;
      cp = cp << 6 | (p[k] & 0x3F);
    }
    if ((n == 1 && cp < 0x80) || (n == 2 && cp < 0x800) || (n == 3 && cp < 0x10000) ||
        cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) {
      return false;
    }
    p += n + 1;
  }
  return true;
}

}  // namespace floe::format::text
