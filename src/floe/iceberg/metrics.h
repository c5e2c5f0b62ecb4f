// Iceberg column metrics (spec "Manifests": column_sizes, value_counts, null_value_counts,
// nan_value_counts, lower_bounds, upper_bounds) from what the Parquet writer reports, with
// Iceberg Java's metrics configuration (MetricsConfig / MetricsModes / ParquetMetrics):
//
//   write.metadata.metrics.default                 default mode, "truncate(16)"
//   write.metadata.metrics.column.<column name>    per-column mode
//   write.metadata.metrics.max-inferred-column-defaults   100: without an explicit default,
//       tables with more top-level columns keep the default mode only for the first 100
//       (and everything nested in them); the rest get "none"
//   columns of the sort order are raised from none/counts to truncate(16)
//
// Modes: none (nothing, not even column_sizes), counts (value/null/NaN counts), truncate(N)
// (counts and bounds, strings cut to N code points and binary to N bytes), full.
// Like Java's ParquetMetrics, fields inside lists and maps get no counts and no bounds (their
// column sizes are kept); struct fields get both. Bounds are the Iceberg single-value bytes
// of the field's type; NaN is never a bound; an inexact (truncated) Parquet bound is only
// ever used as a bound on the side it bounds, never as an exact value.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>

#include "floe/base/status.h"
#include "floe/format/parquet/file_writer.h"
#include "floe/format/parquet/schema.h"
#include "floe/iceberg/manifest.h"
#include "floe/iceberg/schema.h"
#include "floe/iceberg/sort_order.h"

namespace floe::iceberg {

inline constexpr std::string_view kMetricsDefaultProperty = "write.metadata.metrics.default";
inline constexpr std::string_view kMetricsColumnPrefix = "write.metadata.metrics.column.";
inline constexpr std::string_view kMetricsMaxInferredColumnsProperty =
    "write.metadata.metrics.max-inferred-column-defaults";
inline constexpr int kMetricsMaxInferredColumnsDefault = 100;

struct MetricsMode {
  enum class Kind : uint8_t { kNone, kCounts, kTruncate, kFull };
  Kind kind = Kind::kTruncate;
  int32_t length = 16;  // kTruncate only

  static MetricsMode None() { return {Kind::kNone, 0}; }
  static MetricsMode Counts() { return {Kind::kCounts, 0}; }
  static MetricsMode Full() { return {Kind::kFull, 0}; }
  static MetricsMode Truncate(int32_t n) { return {Kind::kTruncate, n}; }

  // "none", "counts", "full", "truncate(N)" with N > 0 (case-insensitive, as Java's
  // MetricsModes.fromString). kInvalidArgument otherwise.
  static Result<MetricsMode> Parse(std::string_view text);
  std::string ToString() const;
  bool operator==(const MetricsMode&) const = default;
};

class MetricsConfig {
 public:
  // Java's default config: truncate(16) for every column.
  MetricsConfig() = default;

  // Java MetricsConfig.forTable. Invalid modes are ignored (the default applies), as Java
  // does after logging a warning.
  static MetricsConfig ForTable(const std::map<std::string, std::string>& properties,
                                const Schema& schema, const SortOrder& sort_order);
  // Java MetricsConfig.forPositionDelete: full for file_path and pos.
  static MetricsConfig ForPositionDeletes();

  // The mode of a column by its full name.
  MetricsMode ColumnMode(std::string_view column_name) const;
  // The mode of field `field_id` of `schema` (none for unknown ids).
  MetricsMode FieldMode(const Schema& schema, int32_t field_id) const;

 private:
  std::map<std::string, MetricsMode, std::less<>> column_modes_;
  MetricsMode default_mode_;
};

// Converts a PLAIN-encoded Parquet statistics value of `column` into the Iceberg single-
// value bytes of `type` (Appendix D): INT32/INT64 decimals and FIXED/BYTE_ARRAY big-endian
// decimals become the minimal big-endian unscaled value; float/double keep their bits
// (NaN is nullopt: never a bound). kInvalidArgument when the physical type cannot hold
// `type`; kCorrupt for a value of the wrong size.
Result<std::optional<std::string>> ParquetBoundToIceberg(
    const format::parquet::ColumnDescriptor& column, const Type& type, std::string_view plain);

// Fills `file`'s record count, column sizes, counts and bounds from a closed Parquet file
// written with `schema`'s field ids. `file_schema` describes the written file (the
// writer's SchemaDescriptor). Leaves without a field id, or with ids `schema` does not
// know, are skipped.
Status ApplyParquetMetrics(const Schema& schema, const MetricsConfig& config,
                           const format::parquet::SchemaDescriptor& file_schema,
                           const format::parquet::WriteResult& result, DataFile* file);

}  // namespace floe::iceberg
