// Partition transforms (spec "Partition Transforms", "Bucket Transform Details",
// "Truncate Transform Details", Appendix B) and their JSON strings.
//
// Transform is a small value type. Unknown transform strings parse to kind kUnknown and keep
// their text: readers must tolerate them, writers must check is_known() before writing data
// with a spec that contains one.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "floe/base/status.h"
#include "floe/columnar/array.h"
#include "floe/iceberg/literal.h"
#include "floe/iceberg/type.h"

namespace floe::iceberg {

enum class TransformKind : uint8_t {
  kIdentity,
  kBucket,
  kTruncate,
  kYear,
  kMonth,
  kDay,
  kHour,
  kVoid,
  kUnknown,
};

class Transform {
 public:
  Transform() = default;  // identity
  static Transform Identity() { return Transform(TransformKind::kIdentity, 0); }
  // REQUIRES: n > 0 (Parse validates untrusted text).
  static Transform Bucket(int32_t n) { return Transform(TransformKind::kBucket, n); }
  static Transform Truncate(int32_t width) { return Transform(TransformKind::kTruncate, width); }
  static Transform Year() { return Transform(TransformKind::kYear, 0); }
  static Transform Month() { return Transform(TransformKind::kMonth, 0); }
  static Transform Day() { return Transform(TransformKind::kDay, 0); }
  static Transform Hour() { return Transform(TransformKind::kHour, 0); }
  static Transform Void() { return Transform(TransformKind::kVoid, 0); }

  // Parses "identity", "bucket[16]", "truncate[ 4 ]", "year", ... (case-insensitive,
  // whitespace tolerated). Never fails: anything else, including "bucket[0]", is kUnknown
  // with the original text.
  static Transform Parse(std::string_view text);
  // A transform floe does not apply, keeping its text: what Parse gives for unknown names,
  // and what a field over several source columns (v3 "source-ids") is, since the spec
  // defines no multi-argument transform yet (Java reads such fields as UnknownTransform).
  static Transform Unknown(std::string text);

  TransformKind kind() const { return kind_; }
  // bucket: the number of buckets N; truncate: the width W; 0 otherwise.
  int32_t param() const { return param_; }
  bool is_known() const { return kind_ != TransformKind::kUnknown; }
  bool is_void() const { return kind_ == TransformKind::kVoid; }
  bool is_time() const {
    return kind_ == TransformKind::kYear || kind_ == TransformKind::kMonth ||
           kind_ == TransformKind::kDay || kind_ == TransformKind::kHour;
  }

  // The JSON string: "bucket[16]", "day"; unknown transforms their original text.
  std::string ToString() const;
  // Java's dedupName: "time" for year/month/day/hour (one time partition per column),
  // otherwise ToString(). Two fields of a spec on one source must not share a dedup name.
  std::string DedupName() const;

  // Whether values of `source` can be transformed (spec table; identity: any primitive;
  // void: any type; unknown: never).
  bool CanTransform(const Type& source) const;
  // The partition value type for `source`: identity/truncate -> source, bucket/year/month/
  // hour -> int, day -> date (Java's Days.getResultType and pyiceberg: a date shows as one;
  // the spec's table says int, the same 4-byte value), void -> source, unknown -> string.
  // kInvalidArgument when !CanTransform(source) (except unknown).
  Result<TypePtr> ResultType(const Type& source) const;

  // Transforms one value (its type must satisfy CanTransform). Nulls give a null of the
  // result type; void gives null. kInvalidArgument for unsupported types, kUnimplemented
  // for unknown transforms.
  Result<Literal> Apply(const Literal& value) const;

  // Transforms a column of `source_type` values (Iceberg -> columnar mapping of
  // Schema::ToColumnar) into a new array of the result type's columnar form, without
  // per-row allocations. kInvalidArgument when the array's type does not match.
  Result<columnar::Array> ApplyToArray(const columnar::Array& source,
                                       const Type& source_type) const;

  // Java Transform.toHumanString of a partition value (a value of the result type):
  // "null" for nulls; identity: date "2017-11-16", time/timestamps as java.time prints them
  // ("2017-11-16T22:31:08", timestamptz with "Z"), binary/fixed base64, others their text;
  // year "2017", month "2017-11", day "2017-11-16", hour "2017-11-16-22"; bucket and
  // truncate the value's text (binary base64).
  std::string ToHumanString(const Literal& partition_value) const;

  // Whether the transform is monotonic (identity, truncate, year, month, day, hour).
  bool PreservesOrder() const;
  // Whether data ordered by this transform is also ordered by `other` (Java
  // satisfiesOrderOf): identity satisfies any order-preserving transform; hour satisfies
  // day/month/year, day satisfies month/year, month satisfies year; any transform satisfies
  // itself. Truncates of different widths are conservatively not ordered (which widths
  // would be depends on the source type, unknown here).
  bool SatisfiesOrderOf(const Transform& other) const;

  bool operator==(const Transform& other) const {
    return kind_ == other.kind_ && param_ == other.param_ &&
           (kind_ != TransformKind::kUnknown || text_ == other.text_);
  }

 private:
  Transform(TransformKind kind, int32_t param) : kind_(kind), param_(param) {}

  TransformKind kind_ = TransformKind::kIdentity;
  int32_t param_ = 0;
  std::string text_;  // kUnknown only
};

// Whether two transforms produce the same partition values (same kind and parameter;
// unknown transforms by their text).
bool TransformsEquivalent(const Transform& a, const Transform& b);

// MurmurHash3_x86_32 of `len` bytes.
uint32_t Murmur3_32(const void* data, size_t len, uint32_t seed = 0);

// The spec's bucket hash of a non-null value (Appendix B): int, long, date, time and
// timestamps as 8-byte little-endian longs (timestamp_ns converted to micros with floor
// division first), decimals as the minimal big-endian two's complement unscaled bytes,
// strings as UTF-8, uuids as 16 big-endian bytes, fixed/binary raw.
// kInvalidArgument for nulls and other types (boolean, float, double, nested).
Result<int32_t> BucketHash(const Literal& value);

}  // namespace floe::iceberg
