// Text forms of column values, matching the Iceberg spec's JSON single-value
// serialization (Appendix D): ISO-8601 dates and times, decimals as plain numbers with
// the scale's digits, UUIDs in 8-4-4-4-12 form, binary as hex.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "floe/columnar/type.h"

namespace floe::columnar {

// Civil date (proleptic Gregorian) of `days` since 1970-01-01.
void CivilFromDays(int64_t days, int64_t* year, unsigned* month, unsigned* day);
// Days since 1970-01-01 of a civil date.
int64_t DaysFromCivil(int64_t year, unsigned month, unsigned day);

// "2017-11-16"; years outside 0..9999 get a sign and at least 4 digits.
std::string FormatDate(int32_t days);
// "22:31:08", with a fraction of the unit's digits: ".123", ".123456", ".123456789".
std::string FormatTime(int64_t value, TimeUnit unit);
// "2017-11-16T22:31:08.123456", followed by "+00:00" when utc_adjusted.
std::string FormatTimestamp(int64_t value, TimeUnit unit, bool utc_adjusted);
// Unscaled two's complement `value` with `scale` digits after the point: "-14.20".
std::string FormatDecimal(__int128 value, int32_t scale);
// 16 big-endian bytes as "f79c3e09-677c-4bbd-a479-3f349cb785e7".
std::string FormatUuid(std::string_view bytes16);
// Lowercase hex of the bytes.
std::string HexEncode(std::string_view bytes);
// IEEE half precision bits to float.
float HalfToFloat(uint16_t bits);

}  // namespace floe::columnar
