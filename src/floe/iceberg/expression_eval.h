// Bound expressions and their evaluators.
//
// Bind() resolves an unbound Expression against a struct type (a table schema or a
// partition type): columns become field ids with types, literals are converted to the
// column's type, NOT is pushed down to the predicates (RewriteNot), and predicates that a
// column's type decides alone are folded (IS NULL on a required column is false, an int
// compared with a value past its range is constant).
//
// Evaluators answer three questions Iceberg scan planning asks:
//   EvaluateBatch       which rows of a column batch match (the row filter, SQL semantics:
//                       a comparison with null is false, NaN compares as IEEE does);
//   EvaluatePartition   can a partition tuple hold matching rows (used on the projection
//                       of a row filter onto a partition spec, see ProjectInclusive);
//   ManifestMayMatch /  can a manifest (partition field summaries) or a data file (column
//   FileMayMatch        metrics) hold matching rows; "true" when unsure.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "floe/base/status.h"
#include "floe/columnar/array.h"
#include "floe/iceberg/expression.h"
#include "floe/iceberg/literal.h"

namespace floe::iceberg {

class Schema;
class PartitionSpec;

// A column reference resolved to a field.
struct BoundTerm {
  int32_t field_id = 0;
  std::string name;  // full dotted name, for messages
  TypePtr type;
  bool required = false;
};

class BoundExpression;
using BoundExpressionPtr = std::shared_ptr<const BoundExpression>;

// An immutable bound node: kTrue, kFalse, kAnd, kOr, or a predicate (never kNot).
class BoundExpression {
 public:
  Operation op() const { return op_; }
  const BoundExpressionPtr& left() const { return left_; }
  const BoundExpressionPtr& right() const { return right_; }
  const BoundTerm& term() const { return term_; }
  // Comparisons and starts-with: one literal of the term's type. In/not-in: the distinct
  // values, sorted by Compare().
  const std::vector<Literal>& literals() const { return literals_; }
  bool is_predicate() const { return op_ >= Operation::kIsNull; }

  std::string ToString() const;
  // Field ids referenced by predicates, ascending, without duplicates.
  std::vector<int32_t> ReferencedFieldIds() const;

  static BoundExpressionPtr True();
  static BoundExpressionPtr False();
  static BoundExpressionPtr And(BoundExpressionPtr left, BoundExpressionPtr right);
  static BoundExpressionPtr Or(BoundExpressionPtr left, BoundExpressionPtr right);
  static BoundExpressionPtr Predicate(Operation op, BoundTerm term,
                                      std::vector<Literal> literals = {});

  BoundExpression(Operation op, BoundExpressionPtr left, BoundExpressionPtr right, BoundTerm term,
                  std::vector<Literal> literals);

 private:
  Operation op_;
  BoundExpressionPtr left_;
  BoundExpressionPtr right_;
  BoundTerm term_;
  std::vector<Literal> literals_;
};

// Binds `expr` to the fields of `struct_type` (top-level names, or dotted paths through
// nested structs). Errors (kInvalidArgument): unknown column, a column inside a list or
// map, a non-primitive column, a literal that does not convert to the column's type,
// starts-with on a non-string column, IS NAN on a non-floating-point column, a NaN
// literal in a comparison.
Result<BoundExpressionPtr> Bind(const Type& struct_type, const ExpressionPtr& expr,
                                bool case_sensitive = true);
Result<BoundExpressionPtr> Bind(const Schema& schema, const ExpressionPtr& expr,
                                bool case_sensitive = true);

// Converts a literal as written to a value of `type`.
Result<Literal> BindLiteral(const UnboundLiteral& literal, const TypePtr& type);

// Sets out[i] = 1 for each row of `batch` that matches, 0 otherwise (out is resized to
// num_rows). Columns are found by field id anywhere in the batch's struct nesting; a
// null parent struct makes its children null. kInvalidArgument when a referenced field is
// not in the batch. Cost: one pass per predicate over the referenced column, no per-row
// allocation.
Status EvaluateBatch(const BoundExpression& expr, const columnar::RecordBatch& batch,
                     std::vector<uint8_t>* out);

// Evaluates a bound expression on one struct of literal values; `value_of(field_id)`
// returns the value of a field (nullptr = null). Comparisons with a null are false,
// except not-eq / not-in / not-starts-with, which are true (so pruning stays inclusive).
bool EvaluateStruct(const BoundExpression& expr,
                    const std::function<const Literal*(int32_t field_id)>& value_of);

// The inclusive projection of a row filter onto a partition spec: an expression over the
// partition type (bound to spec.PartitionType(schema)) that is true for every partition
// that may hold a matching row. `row_filter` must be bound to `schema`. Transforms that
// cannot project a predicate (and unknown transforms) give true.
Result<BoundExpressionPtr> ProjectInclusive(const BoundExpression& row_filter, const Schema& schema,
                                            const PartitionSpec& spec);

// Evaluates a partition expression (from ProjectInclusive) on a partition tuple whose
// values are in spec field order.
bool EvaluatePartition(const BoundExpression& partition_expr, const PartitionSpec& spec,
                       const std::vector<Literal>& partition);

// A manifest list's summary of one partition field (Appendix D binary bounds).
struct FieldSummaryRef {
  bool contains_null = true;
  std::optional<bool> contains_nan;
  std::optional<std::string_view> lower_bound;
  std::optional<std::string_view> upper_bound;
};

// Can a manifest whose partition summaries (in spec field order) are `summaries` hold
// rows matching `partition_expr` (from ProjectInclusive for the manifest's spec)?
// An empty `summaries` (not written) gives true.
bool ManifestMayMatch(const BoundExpression& partition_expr, const PartitionSpec& spec,
                      const std::vector<FieldSummaryRef>& summaries);

// A data file's column metrics, looked up by field id (std::nullopt = not recorded).
struct FileMetricsRef {
  int64_t record_count = -1;
  std::function<std::optional<int64_t>(int32_t)> value_count;
  std::function<std::optional<int64_t>(int32_t)> null_count;
  std::function<std::optional<int64_t>(int32_t)> nan_count;
  std::function<std::optional<std::string_view>(int32_t)> lower_bound;
  std::function<std::optional<std::string_view>(int32_t)> upper_bound;
};

// Can a data file with these metrics hold rows matching `row_filter` (bound to the table
// schema)? Follows Iceberg Java's InclusiveMetricsEvaluator: bounds decide ranges, null
// and NaN counts decide IS NULL / IS NAN, and anything unknown may match.
bool FileMayMatch(const BoundExpression& row_filter, const FileMetricsRef& metrics);

}  // namespace floe::iceberg
