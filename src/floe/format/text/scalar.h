// Scalar values from and to text: the one parser per type that both the JSON Lines and the
// CSV readers use (a JSON string's contents and a CSV cell go through the same function),
// and the text forms the writers produce. The forms are the Iceberg single-value JSON forms
// (columnar/value_format.h): see README.md for the full list.
//
// Each Parse* function returns nullptr on success, or on failure a static phrase naming the
// expected form ("a date (YYYY-MM-DD)"), which callers put into their error messages.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "floe/columnar/array.h"
#include "floe/columnar/type.h"

namespace floe::format::text {

// "true"/"false" (any case), "1"/"0".
const char* ParseBool(std::string_view s, bool* out);
// A decimal integer literal ("-12"; no '+', no fraction), range-checked.
const char* ParseInt32(std::string_view s, int32_t* out);
const char* ParseInt64(std::string_view s, int64_t* out);
// A decimal floating-point literal, or NaN/Infinity/-Infinity (also "nan", "inf", any case).
// Out-of-range literals are errors, not infinities.
const char* ParseFloat32(std::string_view s, float* out);
const char* ParseFloat64(std::string_view s, double* out);
// Exact decimal text ("-14.20", "1e3", "0.5E-1") to the unscaled value at `scale`. More
// fractional digits than `scale` are an error unless the extra digits are zeros (as Iceberg
// Java refuses to round); more than `precision` digits are an error.
const char* ParseDecimal(std::string_view s, int32_t precision, int32_t scale, __int128* out);
// "2017-11-16"; years outside 0..9999 as "+10000-01-01" / "-0001-01-01".
const char* ParseDate(std::string_view s, int32_t* out);
// "22:31", "22:31:08", "22:31:08.123456789" in `unit`s since midnight. Fraction digits
// beyond the unit must be zeros.
const char* ParseTime(std::string_view s, columnar::TimeUnit unit, int64_t* out);
// Date, 'T' or ' ', time, then for `utc_adjusted` an offset ("Z", "+02:00", "-0530",
// "+02") which is required and applied (the value is UTC); a local timestamp takes no offset.
const char* ParseTimestamp(std::string_view s, columnar::TimeUnit unit, bool utc_adjusted,
                           int64_t* out);
// "f79c3e09-677c-4bbd-a479-3f349cb785e7" (or the 32 hex digits alone) to 16 big-endian bytes.
const char* ParseUuid(std::string_view s, char out[16]);
// Hex digits (any case, even count) appended as bytes to `out`.
const char* ParseHex(std::string_view s, std::string* out);

// Appends the text form of row `i` of scalar array `a` to `out` (what CSV cells hold and
// what the JSON writer puts inside strings): booleans true/false, shortest round-trip
// floats, NaN/Infinity/-Infinity, Iceberg forms for the rest, binary as lowercase hex.
// REQUIRES: a.IsValid(i) and a's type is not nested.
void AppendScalarText(const columnar::Array& a, int64_t i, std::string* out);

// Whether `s` is well-formed UTF-8 (no overlong forms, surrogates or code points past
// U+10FFFF). Eight ASCII bytes at a time.
bool ValidUtf8(std::string_view s);

}  // namespace floe::format::text
