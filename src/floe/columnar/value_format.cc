#include "floe/columnar/value_format.h"

#include <cstring>

#include <fmt/format.h>

namespace floe::columnar {

// Civil-from-days and days-from-civil: era arithmetic on 400-year cycles (146097 days),
// with the year starting in March so that the leap day is last.
void CivilFromDays(int64_t z, int64_t* year, unsigned* month, unsigned* day) {
  z += 719468;
  const int64_t era = (z >= 0 ? z : z - 146096) / 146097;
  const auto doe = static_cast<unsigned>(z - era * 146097);
  const unsigned yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  const unsigned doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  const unsigned mp = (5 * doy + 2) / 153;
  *day = doy - (153 * mp + 2) / 5 + 1;
  *month = mp < 10 ? mp + 3 : mp - 9;
  *year = static_cast<int64_t>(yoe) + era * 400 + (*month <= 2 ? 1 : 0);
}

int64_t DaysFromCivil(int64_t y, unsigned m, unsigned d) {
  y -= m <= 2 ? 1 : 0;
  const int64_t era = (y >= 0 ? y : y - 399) / 400;
  const auto yoe = static_cast<unsigned>(y - era * 400);
  const unsigned doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + d - 1;
  const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + static_cast<int64_t>(doe) - 719468;
}

namespace {

std::string FormatYear(int64_t y) {
  if (y >= 0 && y <= 9999) return fmt::format("{:04d}", y);
  return y < 0 ? fmt::format("-{:04d}", -y) : fmt::format("+{:04d}", y);
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

int FractionDigits(TimeUnit unit) {
  switch (unit) {
    case TimeUnit::kSecond: return 0;
    case TimeUnit::kMilli: return 3;
    case TimeUnit::kMicro: return 6;
    case TimeUnit::kNano: return 9;
  }
  return 0;
}

// Whole seconds (floored) and the non-negative fraction in `unit`s.
void SplitSeconds(int64_t value, TimeUnit unit, int64_t* secs, int64_t* frac) {
  const int64_t per = UnitsPerSecond(unit);
  *secs = value / per;
  *frac = value % per;
  if (*frac < 0) {
    *frac += per;
    --*secs;
  }
}

void AppendTimeOfDay(std::string* out, int64_t seconds_of_day, int64_t fraction, TimeUnit unit) {
  fmt::format_to(std::back_inserter(*out), "{:02d}:{:02d}:{:02d}", seconds_of_day / 3600,
                 seconds_of_day / 60 % 60, seconds_of_day % 60);
  int digits = FractionDigits(unit);
  if (digits > 0) fmt::format_to(std::back_inserter(*out), ".{:0{}d}", fraction, digits);
}

}  // namespace

std::string FormatDate(int32_t days) {
  int64_t y;
  unsigned m, d;
  CivilFromDays(days, &y, &m, &d);
  return fmt::format("{}-{:02d}-{:02d}", FormatYear(y), m, d);
}

std::string FormatTime(int64_t value, TimeUnit unit) {
  int64_t secs, frac;
  SplitSeconds(value, unit, &secs, &frac);
  std::string out;
  AppendTimeOfDay(&out, ((secs % 86400) + 86400) % 86400, frac, unit);
  return out;
}

std::string FormatTimestamp(int64_t value, TimeUnit unit, bool utc_adjusted) {
  int64_t secs, frac;
  SplitSeconds(value, unit, &secs, &frac);
  int64_t days = secs / 86400;
  int64_t sod = secs % 86400;
  if (sod < 0) {
    sod += 86400;
    --days;
  }
  int64_t y;
  unsigned m, d;
  CivilFromDays(days, &y, &m, &d);
  std::string out = fmt::format("{}-{:02d}-{:02d}T", FormatYear(y), m, d);
  AppendTimeOfDay(&out, sod, frac, unit);
  if (utc_adjusted) out += "+00:00";
  return out;
}

std::string FormatDecimal(__int128 value, int32_t scale) {
  // Scales outside what any decimal type allows are printed in E notation rather than
  // padded with zeros (a scale can come from an untrusted file).
  if (scale > 100 || scale < -100) {
    return FormatDecimal(value, 0) + "E" + std::to_string(-static_cast<int64_t>(scale));
  }
  bool negative = value < 0;
  unsigned __int128 mag =
      negative ? -static_cast<unsigned __int128>(value) : static_cast<unsigned __int128>(value);
  char digits[64];
  int n = 0;
  do {
    digits[n++] = static_cast<char>('0' + static_cast<int>(mag % 10));
    mag /= 10;
  } while (mag != 0);
  std::string out;
  if (negative) out.push_back('-');
  if (scale <= 0) {
    for (int i = n - 1; i >= 0; --i) out.push_back(digits[i]);
    out.append(static_cast<size_t>(-scale), '0');
    return out;
  }
  if (n <= scale) {
    out += "0.";
    out.append(static_cast<size_t>(scale - n), '0');
    for (int i = n - 1; i >= 0; --i) out.push_back(digits[i]);
    return out;
  }
  for (int i = n - 1; i >= 0; --i) {
    out.push_back(digits[i]);
    if (i == scale) out.push_back('.');
  }
  return out;
}

std::string HexEncode(std::string_view bytes) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  out.reserve(bytes.size() * 2);
  for (unsigned char c : bytes) {
    out.push_back(kHex[c >> 4]);
    out.push_back(kHex[c & 15]);
  }
  return out;
}

std::string FormatUuid(std::string_view b) {
  if (b.size() != 16) return HexEncode(b);
  std::string hex = HexEncode(b);
  return hex.substr(0, 8) + "-" + hex.substr(8, 4) + "-" + hex.substr(12, 4) + "-" +
         hex.substr(16, 4) + "-" + hex.substr(20, 12);
}

float HalfToFloat(uint16_t h) {
  uint32_t sign = static_cast<uint32_t>(h & 0x8000) << 16;
  uint32_t exp = (h >> 10) & 0x1F;
  uint32_t mant = h & 0x3FF;
  uint32_t bits;
  if (exp == 0) {
    if (mant == 0) {
      bits = sign;
    } else {  // subnormal: normalize
      int e = -1;
      do {
        ++e;
        mant <<= 1;
      } while ((mant & 0x400) == 0);
      bits = sign | static_cast<uint32_t>(127 - 15 - e) << 23 | (mant & 0x3FF) << 13;
    }
  } else if (exp == 31) {
    bits = sign | 0x7F800000u | mant << 13;
  } else {
    bits = sign | (exp + 127 - 15) << 23 | mant << 13;
  }
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}

}  // namespace floe::columnar
