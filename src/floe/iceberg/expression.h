// Iceberg row filters: the expression tree, as written by users (unbound: columns by name,
// literals as written) and after binding to a schema (columns by field id, literals typed).
//
// The operations are those of the Iceberg expression API and the REST spec's Expression
// JSON (and/or/not, comparisons, in/not-in, starts-with, null and NaN tests, true/false).
// Unbound trees come from the CLI predicate language (ParseExpression, below) and from REST
// JSON; Bind() resolves them against a Schema; evaluators (expression_eval.h) run bound
// trees over column batches, partition tuples and file metrics.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "floe/base/status.h"

namespace floe::iceberg {

enum class Operation : uint8_t {
  kTrue,
  kFalse,
  kAnd,
  kOr,
  kNot,
  kIsNull,
  kNotNull,
  kIsNan,
  kNotNan,
  kLt,
  kLtEq,
  kGt,
  kGtEq,
  kEq,
  kNotEq,
  kStartsWith,
  kNotStartsWith,
  kIn,
  kNotIn,
};

// REST JSON name: "lt-eq", "not-in", ...
std::string_view OperationName(Operation op);
bool IsUnaryPredicate(Operation op);    // is-null, not-null, is-nan, not-nan
bool IsLiteralPredicate(Operation op);  // comparisons and starts-with
bool IsSetPredicate(Operation op);      // in, not-in
// The operation that holds exactly when `op` does not (lt <-> gt-eq, in <-> not-in, ...).
Operation Negate(Operation op);
// The operation with the operands swapped: `5 < x` is `x > 5`.
Operation FlipComparison(Operation op);

// A literal as the user wrote it, before it has a type: the type comes from the column it
// is compared with (Bind parses `text` as that type).
struct UnboundLiteral {
  enum class Kind : uint8_t {
    kNumber,   // 42, -1.5, 1e10: text is the number as written
    kString,   // 'abc': text is the unescaped string
    kBoolean,  // true / false: text is "true" or "false"
    kTyped,    // date '2020-01-01', uuid '...', x'0A0B': type_name says which
  };
  Kind kind = Kind::kString;
  std::string text;
  std::string type_name;  // kTyped only: "date", "time", "timestamp", "timestamptz",
                          // "timestamp_ns", "timestamptz_ns", "uuid", "decimal", "binary"

  bool operator==(const UnboundLiteral&) const = default;
  // SQL-like text: 42, 'it''s', true, date '2020-01-01', x'0a0b'.
  std::string ToString() const;
};

class Expression;
using ExpressionPtr = std::shared_ptr<const Expression>;

// An immutable node. Predicates hold a column reference by name (unbound); Bind() returns
// a tree of BoundExpression nodes (expression_bind.h).
class Expression {
 public:
  Operation op() const { return op_; }
  // kAnd/kOr: left and right; kNot: left is the child.
  const ExpressionPtr& left() const { return left_; }
  const ExpressionPtr& right() const { return right_; }
  const ExpressionPtr& child() const { return left_; }
  // Predicates: the column name (dotted for nested fields) and the literals (one for
  // comparisons and starts-with, any number for in/not-in, none for unary predicates).
  const std::string& column() const { return column_; }
  const std::vector<UnboundLiteral>& literals() const { return literals_; }

  bool is_predicate() const { return op_ >= Operation::kIsNull; }

  // SQL-like text in the predicate language, parseable by ParseExpression.
  std::string ToString() const;
  bool Equals(const Expression& other) const;

  static ExpressionPtr True();
  static ExpressionPtr False();
  // And/Or simplify constants: And(true, x) = x, And(false, x) = false, ...
  static ExpressionPtr And(ExpressionPtr left, ExpressionPtr right);
  static ExpressionPtr Or(ExpressionPtr left, ExpressionPtr right);
  // Not(Not(x)) = x; Not(true) = false.
  static ExpressionPtr Not(ExpressionPtr child);
  static ExpressionPtr Predicate(Operation op, std::string column,
                                 std::vector<UnboundLiteral> literals = {});

  Expression(Operation op, ExpressionPtr left, ExpressionPtr right, std::string column,
             std::vector<UnboundLiteral> literals);

 private:
  Operation op_;
  ExpressionPtr left_;
  ExpressionPtr right_;
  std::string column_;
  std::vector<UnboundLiteral> literals_;
};

// Pushes NOT down to the predicates (De Morgan; predicates negated with Negate()), so
// evaluators that are only inclusive (metrics, partitions) see no NOT nodes.
ExpressionPtr RewriteNot(const ExpressionPtr& expr);

// The predicate language of the CLI's --where (documented in docs/predicates.md):
//   a = 1 AND (b < 'x' OR c IS NULL) AND NOT d IN (1, 2) AND ts >= timestamp '2020-01-01'
// Errors: kInvalidArgument naming the position and what was expected.
Result<ExpressionPtr> ParseExpression(std::string_view text);

}  // namespace floe::iceberg
