// Column statistics: the sort order of each column type (parquet.md §7.2), which footer
// statistics a reader may trust (§7.1, §7.4), comparison of PLAIN-encoded bound values,
// bound truncation for long binary values (§7.5), and row-group pruning predicates.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "floe/format/parquet/metadata.h"
#include "floe/format/parquet/schema.h"

namespace floe::format::parquet {

enum class SortOrder : uint8_t { kSigned, kUnsigned, kUndefined };

// The order min/max statistics of the column follow under TYPE_ORDER.
SortOrder SortOrderOf(const ColumnDescriptor& column);

// Compares two PLAIN-encoded values (no length prefix) of the column: <0, 0, >0.
// REQUIRES: SortOrderOf(column) != kUndefined and both values well-formed for the type
// (callers check sizes with ValidStatValue).
int CompareStatValues(const ColumnDescriptor& column, std::string_view a, std::string_view b);

// Whether `v` has the size the column's physical type requires (fixed-width types).
bool ValidStatValue(const ColumnDescriptor& column, std::string_view v);

// Statistics of one column chunk that a reader may rely on.
struct ChunkStatistics {
  std::optional<std::string> min;  // a lower bound of every non-null value
  std::optional<std::string> max;  // an upper bound
  std::optional<int64_t> null_count;
  std::optional<int64_t> nan_count;
  int64_t num_values = 0;  // level entries, nulls included
};

// Applies the reader rules: TYPE_ORDER min_value/max_value; legacy min/max only for
// signed orders from writers without column orders; drops bounds known to be wrong
// (PARQUET-251 binary stats of old parquet-mr, signed-order stats for unsigned types,
// INT96, NaN bounds of floats).
ChunkStatistics TrustedStatistics(const ColumnDescriptor& column, const ColumnMetaData& meta,
                                  const FileMetaData& file);

// Truncates a lower bound to at most `length` bytes (UTF-8 aware when `utf8`): the
// result is <= value. Returns the value unchanged when short enough.
std::string TruncateLowerBound(std::string_view value, size_t length, bool utf8);
// Truncates an upper bound to at most `length` bytes and increments it so that it stays
// >= value; nullopt when no such bound exists (e.g. all 0xFF bytes).
std::optional<std::string> TruncateUpperBound(std::string_view value, size_t length, bool utf8);

// A predicate on one leaf column for row-group pruning. `value` is the PLAIN encoding of
// the literal in the column's physical type (as in statistics).
struct ColumnPredicate {
  enum class Op : uint8_t { kEq, kNotEq, kLt, kLtEq, kGt, kGtEq, kIsNull, kNotNull };
  int leaf = 0;
  Op op = Op::kEq;
  std::string value;
};

// False only when the statistics prove that no row of the chunk satisfies `p`.
bool ChunkMayMatch(const ColumnDescriptor& column, const ChunkStatistics& stats,
                   const ColumnPredicate& p);

}  // namespace floe::format::parquet
