// FileFilter: may / must a content file's rows match a row filter? Used by deletes by row
// filter (Java ManifestFilterManager.PartitionAndMetricsEvaluator) and by commit conflict
// detection.
//
//   MayMatch   the inclusive projection onto the file's spec accepts its partition and the
//              column metrics allow a match (InclusiveMetricsEvaluator).
//   MustMatch  every row matches: predicates on identity-partitioned columns are decided by
//              the partition value, the rest by a strict metrics evaluation (Java
//              StrictMetricsEvaluator, conservative: anything unknown -> false).
//
// Not thread-safe (caches per spec).
#pragma once

#include <cstdint>
#include <map>
#include <memory>

#include "floe/base/status.h"
#include "floe/iceberg/expression.h"
#include "floe/iceberg/expression_eval.h"
#include "floe/iceberg/manifest.h"
#include "floe/iceberg/table_metadata.h"

namespace floe::iceberg {

class FileFilter {
 public:
  // `expr` null or true matches everything. kInvalidArgument when `expr` does not bind to
  // the current schema of `metadata`.
  static Result<FileFilter> Make(const TableMetadata& metadata, const ExpressionPtr& expr,
                                 bool case_sensitive = true);

  bool matches_all() const { return bound_ == nullptr; }
  Result<bool> ManifestMayMatch(const ManifestFile& manifest);
  Result<bool> MayMatch(const DataFile& file);
  Result<bool> MustMatch(const DataFile& file);

  std::string ToString() const;

 private:
  FileFilter() = default;
  struct SpecState {
    const PartitionSpec* spec = nullptr;
    BoundExpressionPtr projection;  // inclusive, over the partition type
  };
  Result<SpecState*> StateFor(int32_t spec_id);

  const TableMetadata* metadata_ = nullptr;
  const Schema* schema_ = nullptr;
  BoundExpressionPtr bound_;
  std::map<int32_t, SpecState> specs_;
};

// What rows of a file in `partition` (values in the order of `spec`'s fields) must still
// pass of `filter` (bound to the table schema): Java's ResidualEvaluator for identity
// partition fields, whose value decides a predicate outright; predicates on other
// transforms stay in (a larger residual is conservative, readers apply it to every row).
BoundExpressionPtr Residual(const BoundExpressionPtr& filter, const PartitionSpec& spec,
                            const std::vector<Literal>& partition);

// Metrics of a content file for the expression evaluators.
FileMetricsRef MetricsOf(const DataFile& file);

// Whether the equality delete file `deletes` may delete rows of the data file `data`, judged
// from both files' column metrics on the equality fields as Java's DeleteFileIndex does
// (canContainEqDeletesForFile), so that a scan attaches the same equality deletes as Java's
// planning: false when, on some equality field, the value ranges do not overlap, or one
// file holds only nulls where the other holds none. Missing metrics, nested fields and
// undecodable bounds assume a match. Sequence numbers and partitions are the caller's.
bool EqualityDeletesMayApply(const TableMetadata& metadata, const DataFile& data,
                             const DataFile& deletes);

}  // namespace floe::iceberg
