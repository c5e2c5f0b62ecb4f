// Private date/time text helpers shared by literal.cc and transform.cc.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "floe/base/status.h"

namespace floe::iceberg::internal {

// "2017-11-16" (optional sign and more than 4 year digits) -> days since 1970-01-01.
Result<int32_t> ParseIsoDate(std::string_view s);
// "22:31:08", "22:31", "22:31:08.123456789" -> units since midnight. `digits` is 6 (micros)
// or 9 (nanos); extra non-zero fraction digits are an error.
Result<int64_t> ParseIsoTime(std::string_view s, int digits);

enum class OffsetRule { kForbidden, kRequired, kOptional };
// "2017-11-16T22:31:08.000001[+02:00|Z]" or (with allow_date_only) "2017-11-16" -> units
// since the epoch (UTC when an offset is present). A space may separate date and time.
Result<int64_t> ParseIsoTimestamp(std::string_view s, int digits, OffsetRule offset,
                                  bool allow_date_only);

// Java LocalTime/LocalDateTime/OffsetDateTime.toString forms (seconds and fractions only
// when non-zero, fraction in groups of 3 digits, "Z" for UTC), used for human strings.
std::string JavaTimeString(int64_t units_of_day, int digits);
std::string JavaTimestampString(int64_t units, int digits, bool utc);

// Byte length of the first `n` UTF-8 code points of `s` (all of `s` when shorter);
// invalid lead bytes count as one code point. Defined in literal.cc.
size_t Utf8PrefixBytes(std::string_view s, size_t n);

// Floor division and modulo.
inline int64_t FloorDiv(int64_t a, int64_t b) {
  int64_t q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0))) --q;
  return q;
}
inline int64_t FloorMod(int64_t a, int64_t b) { return a - FloorDiv(a, b) * b; }

}  // namespace floe::iceberg::internal
