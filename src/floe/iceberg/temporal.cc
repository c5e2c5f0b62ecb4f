#include "floe/iceberg/temporal.h"

#include <cctype>
#include <limits>

#include <fmt/format.h>

#include "floe/base/macros.h"
#include "floe/columnar/value_format.h"

namespace floe::iceberg::internal {
namespace {

bool IsDigit(char c) { return c >= '0' && c <= '9'; }

// Reads exactly `n` digits.
bool ReadDigits(std::string_view* s, size_t n, int64_t* out) {
  if (s->size() < n) return false;
  int64_t v = 0;
  for (size_t i = 0; i < n; ++i) {
    if (!IsDigit((*s)[i])) return false;
    v = v * 10 + ((*s)[i] - '0');
  }
  *out = v;
  s->remove_prefix(n);
  return true;
}

constexpr int64_t kPow10[] = {1,      10,      100,      1000,      10000,
                              100000, 1000000, 10000000, 100000000, 1000000000};

Result<int32_t> DateFrom(std::string_view* s, std::string_view text) {
  bool neg = false;
  if (!s->empty() && (s->front() == '-' || s->front() == '+')) {
    neg = s->front() == '-';
    s->remove_prefix(1);
  }
  size_t ylen = 0;
  while (ylen < s->size() && IsDigit((*s)[ylen])) ++ylen;
  int64_t year = 0, month = 0, day = 0;
  if (ylen < 4 || ylen > 9 || !ReadDigits(s, ylen, &year) || s->empty() || s->front() != '-') {
    return Status::InvalidArgument("malformed date '{}'", text);
  }
  s->remove_prefix(1);
  if (!ReadDigits(s, 2, &month) || s->empty() || s->front() != '-') {
    return Status::InvalidArgument("malformed date '{}'", text);
  }
  s->remove_prefix(1);
  if (!ReadDigits(s, 2, &day)) return Status::InvalidArgument("malformed date '{}'", text);
  if (neg) year = -year;
  static constexpr int kDays[] = {31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  bool leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0;
  if (month < 1 || month > 12 || day < 1 || day > kDays[month - 1] ||
      (month == 2 && day == 29 && !leap)) {
    return Status::InvalidArgument("invalid date '{}'", text);
  }
  int64_t days =
      columnar::DaysFromCivil(year, static_cast<unsigned>(month), static_cast<unsigned>(day));
  if (days < std::numeric_limits<int32_t>::min() || days > std::numeric_limits<int32_t>::max()) {
    return Status::InvalidArgument("date '{}' is out of range", text);
  }
  return static_cast<int32_t>(days);
}

Result<int64_t> TimeFrom(std::string_view* s, int digits, std::string_view text) {
  int64_t h = 0, m = 0, sec = 0, frac = 0;
  if (!ReadDigits(s, 2, &h) || s->empty() || s->front() != ':') {
    return Status::InvalidArgument("malformed time '{}'", text);
  }
  s->remove_prefix(1);
  if (!ReadDigits(s, 2, &m)) return Status::InvalidArgument("malformed time '{}'", text);
  if (!s->empty() && s->front() == ':') {
    s->remove_prefix(1);
    if (!ReadDigits(s, 2, &sec)) return Status::InvalidArgument("malformed time '{}'", text);
    if (!s->empty() && s->front() == '.') {
      s->remove_prefix(1);
      size_t n = 0;
      while (n < s->size() && IsDigit((*s)[n])) ++n;
      if (n == 0 || n > 9) return Status::InvalidArgument("malformed time fraction '{}'", text);
      int64_t f = 0;
      ReadDigits(s, n, &f);
      int64_t nanos = f * kPow10[9 - n];
      int64_t per_unit = kPow10[9 - digits];
      if (nanos % per_unit != 0) {
        return Status::InvalidArgument("'{}' has more fractional digits than the type holds", text);
      }
      frac = nanos / per_unit;
    }
  }
  if (h > 23 || m > 59 || sec > 59) return Status::InvalidArgument("invalid time '{}'", text);
  return ((h * 60 + m) * 60 + sec) * kPow10[digits] + frac;
}

// "Z", "+HH:MM", "-HH:MM", "+HHMM", "+HH" -> offset in seconds.
Result<int64_t> OffsetFrom(std::string_view s, std::string_view text) {
  if (s == "Z" || s == "z") return 0;
  if (s.empty() || (s.front() != '+' && s.front() != '-')) {
    return Status::InvalidArgument("malformed UTC offset in '{}'", text);
  }
  bool neg = s.front() == '-';
  s.remove_prefix(1);
  int64_t h = 0, m = 0;
  if (!ReadDigits(&s, 2, &h)) return Status::InvalidArgument("malformed UTC offset in '{}'", text);
  if (!s.empty() && s.front() == ':') s.remove_prefix(1);
  if (!s.empty() && !ReadDigits(&s, 2, &m)) {
    return Status::InvalidArgument("malformed UTC offset in '{}'", text);
  }
  if (!s.empty() || h > 18 || m > 59) {
    return Status::InvalidArgument("malformed UTC offset in '{}'", text);
  }
  int64_t secs = h * 3600 + m * 60;
  return neg ? -secs : secs;
}

void AppendJavaTime(std::string* out, int64_t secs_of_day, int64_t nanos) {
  int64_t h = secs_of_day / 3600, m = secs_of_day / 60 % 60, sec = secs_of_day % 60;
  fmt::format_to(std::back_inserter(*out), "{:02d}:{:02d}", h, m);
  if (sec == 0 && nanos == 0) return;
  fmt::format_to(std::back_inserter(*out), ":{:02d}", sec);
  if (nanos == 0) return;
  if (nanos % 1000000 == 0) {
    fmt::format_to(std::back_inserter(*out), ".{:03d}", nanos / 1000000);
  } else if (nanos % 1000 == 0) {
    fmt::format_to(std::back_inserter(*out), ".{:06d}", nanos / 1000);
  } else {
    fmt::format_to(std::back_inserter(*out), ".{:09d}", nanos);
  }
}

}  // namespace

Result<int32_t> ParseIsoDate(std::string_view text) {
  std::string_view s = text;
  FLOE_ASSIGN_OR_RETURN(int32_t d, DateFrom(&s, text));
  if (!s.empty()) return Status::InvalidArgument("malformed date '{}'", text);
  return d;
}

Result<int64_t> ParseIsoTime(std::string_view text, int digits) {
  std::string_view s = text;
  FLOE_ASSIGN_OR_RETURN(int64_t t, TimeFrom(&s, digits, text));
  if (!s.empty()) return Status::InvalidArgument("malformed time '{}'", text);
  return t;
}

Result<int64_t> ParseIsoTimestamp(std::string_view text, int digits, OffsetRule offset,
                                  bool allow_date_only) {
  std::string_view s = text;
  FLOE_ASSIGN_OR_RETURN(int32_t days, DateFrom(&s, text));
  int64_t tod = 0;
  if (s.empty()) {
    if (!allow_date_only) return Status::InvalidArgument("'{}' has no time of day", text);
  } else {
    if (s.front() != 'T' && s.front() != 't' && s.front() != ' ') {
      return Status::InvalidArgument("malformed timestamp '{}'", text);
    }
    s.remove_prefix(1);
    FLOE_ASSIGN_OR_RETURN(tod, TimeFrom(&s, digits, text));
  }
  int64_t offset_secs = 0;
  if (!s.empty()) {
    if (offset == OffsetRule::kForbidden) {
      return Status::InvalidArgument("timestamp without zone '{}' must not have a UTC offset",
                                     text);
    }
    FLOE_ASSIGN_OR_RETURN(offset_secs, OffsetFrom(s, text));
  } else if (offset == OffsetRule::kRequired) {
    return Status::InvalidArgument("timestamp with zone '{}' needs a UTC offset", text);
  }
  // |days| < 2^31 and units per day <= 8.64e13: the product stays within int64 for micros;
  // for nanos check explicitly.
  __int128 v = static_cast<__int128>(days) * 86400 * kPow10[digits] + tod -
               static_cast<__int128>(offset_secs) * kPow10[digits];
  if (v < std::numeric_limits<int64_t>::min() || v > std::numeric_limits<int64_t>::max()) {
    return Status::InvalidArgument("timestamp '{}' is out of range", text);
  }
  return static_cast<int64_t>(v);
}

std::string JavaTimeString(int64_t units_of_day, int digits) {
  int64_t per_sec = kPow10[digits];
  std::string out;
  AppendJavaTime(&out, units_of_day / per_sec, (units_of_day % per_sec) * kPow10[9 - digits]);
  return out;
}

std::string JavaTimestampString(int64_t units, int digits, bool utc) {
  int64_t per_sec = kPow10[digits];
  int64_t secs = FloorDiv(units, per_sec);
  int64_t frac = FloorMod(units, per_sec);
  int64_t days = FloorDiv(secs, 86400);
  std::string out = columnar::FormatDate(static_cast<int32_t>(days));
  out.push_back('T');
  AppendJavaTime(&out, FloorMod(secs, 86400), frac * kPow10[9 - digits]);
  if (utc) out.push_back('Z');
  return out;
}

}  // namespace floe::iceberg::internal
