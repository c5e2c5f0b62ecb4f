// Iceberg's Expression JSON (REST spec, schema `Expression`; Java ExpressionParser): the
// filters of PlanTableScanRequest and the residual filters of FileScanTask.
//
//   true | false | {"type":"literal","value":bool}
//   {"type":"and"|"or","left":E,"right":E}   {"type":"not","child":E}
//   {"type":"lt"|...|"not-starts-with","term":T,"value":V}
//   {"type":"in"|"not-in","term":T,"values":[V...]}
//   {"type":"is-null"|"not-null"|"is-nan"|"not-nan","term":T}
// A term T is a column name or {"type":"reference","term":name}; a value V is a JSON
// single value (Appendix D), optionally wrapped as {"type":"literal","value":V}.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "floe/base/json_writer.h"
#include "floe/base/status.h"
#include "floe/iceberg/expression.h"
#include "floe/iceberg/expression_eval.h"

namespace floe::iceberg {

// Parses Expression JSON into an unbound expression (values typed later by Bind, as Java
// does without a schema). Errors: kInvalidArgument naming what is wrong (unknown type,
// missing or extra value, a transform term, which floe's filters cannot express, nesting
// deeper than 256). Never throws.
Result<ExpressionPtr> ExpressionFromJson(const nlohmann::json& json);
Result<ExpressionPtr> ExpressionFromJson(const nlohmann::ordered_json& json);

// Writes a bound expression as Expression JSON: columns by their full name, literals in
// the JSON single-value form of the column's type (as Java writes bound predicates).
void WriteExpressionJson(const BoundExpression& expr, JsonWriter& w);

}  // namespace floe::iceberg
