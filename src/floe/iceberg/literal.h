// Literal: one typed primitive Iceberg value, or a typed null.
//
// Literals are bounds in manifests (Appendix D binary form), defaults in schemas (JSON
// single-value form), partition values and predicate operands. A Literal always carries its
// Iceberg type; the value is stored in the representation the type implies:
//
//   boolean -> bool            int, date -> int32_t        long, time, timestamp* -> int64_t
//   float -> float             double -> double            decimal -> __int128 (unscaled,
//   string, binary, fixed -> std::string (bytes)           as columnar Decimal128)
//   uuid -> std::array<uint8_t, 16> (big-endian, RFC 4122 byte order)
//
// time and timestamp/timestamptz hold microseconds; timestamp_ns/timestamptz_ns nanoseconds.
// Literals are immutable values; copies are cheap except for long strings.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <variant>

#include <nlohmann/json_fwd.hpp>

#include "floe/base/status.h"

namespace floe::iceberg {

class Type;
using TypePtr = std::shared_ptr<const Type>;

class Literal {
 public:
  using UuidBytes = std::array<uint8_t, 16>;
  // monostate is the null of the literal's type.
  using Value = std::variant<std::monostate, bool, int32_t, int64_t, float, double, __int128,
                             std::string, UuidBytes>;

  // A null of `type` (any type, nested ones included).
  static Literal Null(TypePtr type);
  static Literal Boolean(bool v);
  static Literal Int(int32_t v);
  static Literal Long(int64_t v);
  static Literal Float(float v);
  static Literal Double(double v);
  // REQUIRES: 1 <= precision <= 38, 0 <= scale <= precision (checked by Make, not here).
  static Literal Decimal(__int128 unscaled, int32_t precision, int32_t scale);
  static Literal Date(int32_t days);
  static Literal Time(int64_t micros);
  static Literal Timestamp(int64_t micros);
  static Literal TimestampTz(int64_t micros);
  static Literal TimestampNs(int64_t nanos);
  static Literal TimestampTzNs(int64_t nanos);
  static Literal String(std::string v);
  static Literal Uuid(UuidBytes v);
  // A fixed[bytes.size()] value.
  static Literal Fixed(std::string bytes);
  static Literal Binary(std::string bytes);

  // Builds a literal of `type` from a value, checking that the value's representation fits
  // the type (see the table above) and, for fixed, the length. kInvalidArgument otherwise.
  static Result<Literal> Make(TypePtr type, Value value);

  const TypePtr& type() const { return type_; }
  bool is_null() const { return std::holds_alternative<std::monostate>(value_); }
  const Value& value() const { return value_; }

  // Accessors. REQUIRES: !is_null() and the representation named.
  bool bool_value() const { return std::get<bool>(value_); }
  int32_t int_value() const { return std::get<int32_t>(value_); }   // int, date
  int64_t long_value() const { return std::get<int64_t>(value_); }  // long, time, ts*
  float float_value() const { return std::get<float>(value_); }
  double double_value() const { return std::get<double>(value_); }
  __int128 decimal_value() const { return std::get<__int128>(value_); }
  const std::string& string_value() const { return std::get<std::string>(value_); }
  const UuidBytes& uuid_value() const { return std::get<UuidBytes>(value_); }

  // Iceberg single-value binary serialization (Appendix D). kInvalidArgument for nulls and
  // for types without a binary form (struct, list, map, unknown).
  Result<std::string> ToBytes() const;
  // Decodes Appendix D bytes as `type`. Applies the promotion rules for bounds written
  // before a type promotion: long/timestamp(_ns)/double read from 4 bytes (as int/date/
  // float), decimals of any length. kCorrupt for bytes of the wrong length.
  static Result<Literal> FromBytes(TypePtr type, std::string_view bytes);

  // Iceberg JSON single-value form (Appendix D, "JSON single-value serialization"):
  // numbers, ISO dates/times (timestamptz with "+00:00"), decimals and uuids as strings,
  // fixed/binary as uppercase hex (as Java writes; both cases are read). Null -> JSON null.
  nlohmann::json ToJsonValue() const;
  std::string ToJson() const;
  // kInvalidArgument when `json` does not hold a value of `type`.
  static Result<Literal> FromJsonValue(const TypePtr& type, const nlohmann::json& json);
  static Result<Literal> FromJson(const TypePtr& type, std::string_view json_text);

  // Human text: the JSON form without quotes ("null" for nulls, "true", "14.20",
  // "2017-11-16T22:31:08.000001+00:00"); floats in shortest round-trip form.
  std::string ToString() const;

  // Parses user text (CLI arguments, predicate literals) as `type`: the JSON forms; for
  // timestamptz any UTC offset ("Z", "+02:00"), converted to UTC; for timestamps a date-only
  // form ("2020-01-01" = midnight); for timestamp (no zone) a trailing offset is rejected.
  static Result<Literal> Parse(const TypePtr& type, std::string_view text);

  // Converts to `type` for predicate binding: int<->long (in range), float->double,
  // double->float, int/long->float/double, int/long/decimal->decimal(P,S) (exact), date->
  // timestamp*, timestamp<->timestamp_ns, timestamp->date (only at midnight), string->any
  // type Parse accepts, same type -> itself. kInvalidArgument when not convertible or out
  // of range. Nulls convert to a null of `type`.
  Result<Literal> CastTo(const TypePtr& type) const;

  // Literal equality: same type and same value (floats compared as Compare does, so
  // NaN == NaN and -0.0 != +0.0).
  bool operator==(const Literal& other) const;

 private:
  Literal(TypePtr type, Value value) : type_(std::move(type)), value_(std::move(value)) {}
  // A null (value_ default-constructs to monostate).
  explicit Literal(TypePtr type) : type_(std::move(type)) {}

  TypePtr type_;
  Value value_;
};

// Orders two literals of the same type kind the way Iceberg does: nulls first; numbers
// numerically; float/double with -0.0 < +0.0 and NaN greatest; strings by UTF-8 bytes
// (= code point order); binary/fixed unsigned lexicographic; uuid unsigned bytes (RFC 4122,
// as Java since apache/iceberg#14500; CompareUuidSigned gives the older Java order);
// decimals by value (scales may differ). Literals of different kinds are ordered by kind,
// so the result is always a total order (callers bind predicates first).
// Returns <0, 0 or >0.
int Compare(const Literal& a, const Literal& b);

// Java's java.util.UUID.compareTo order (signed compare of the most then least significant
// 64 bits): the order of uuid bounds written by Iceberg Java before apache/iceberg#14500.
int CompareUuidSigned(const Literal::UuidBytes& a, const Literal::UuidBytes& b);

// Metrics bound truncation (Iceberg Java UnicodeUtil / BinaryUtil). Strings truncate to
// `width` code points, binary to `width` bytes; other types and shorter values are
// returned unchanged. The upper bound increments the last code point (byte) of the
// prefix, dropping trailing code points that cannot be incremented (skipping the
// surrogate range); std::nullopt when no upper bound of that width exists.
// REQUIRES: width > 0.
Literal TruncateLowerBound(const Literal& value, int width);
std::optional<Literal> TruncateUpperBound(const Literal& value, int width);

}  // namespace floe::iceberg

// Type is defined in type.h, which includes this header; include it here too so that users
// of Literal get the type factories.
#include "floe/iceberg/type.h"  // IWYU pragma: export
