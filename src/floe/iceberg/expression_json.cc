#include "floe/iceberg/expression_json.h"

#include <array>
#include <string_view>
#include <utility>

#include "floe/base/macros.h"
#include "floe/iceberg/literal.h"

namespace floe::iceberg {

namespace {

// Deep enough for any filter a query engine sends; bounds the recursion on untrusted JSON.
constexpr int kMaxDepth = 256;

constexpr std::array kOperations = {
    Operation::kAnd,     Operation::kOr,         Operation::kNot,           Operation::kIsNull,
    Operation::kNotNull, Operation::kIsNan,      Operation::kNotNan,        Operation::kLt,
    Operation::kLtEq,    Operation::kGt,         Operation::kGtEq,          Operation::kEq,
    Operation::kNotEq,   Operation::kStartsWith, Operation::kNotStartsWith, Operation::kIn,
    Operation::kNotIn,
};

template <typename J>
const J* Member(const J& obj, std::string_view key) {
  auto it = obj.find(key);
  return it == obj.end() ? nullptr : &*it;
}

template <typename J>
Result<UnboundLiteral> LiteralFromJson(const J& node) {
  const J* value = &node;
  if (node.is_object()) {
    const J* type = Member(node, "type");
    const J* inner = Member(node, "value");
    if (type == nullptr || !type->is_string() || type->template get<std::string>() != "literal" ||
        inner == nullptr) {
      return Status::InvalidArgument("a literal object needs \"type\":\"literal\" and a value");
    }
    value = inner;
  }
  UnboundLiteral out;
  if (value->is_boolean()) {
    out.kind = UnboundLiteral::Kind::kBoolean;
    out.text = value->template get<bool>() ? "true" : "false";
  } else if (value->is_number()) {
    // The number as written (dump is the shortest round-trip text): Bind types it.
    out.kind = UnboundLiteral::Kind::kNumber;
    out.text = value->dump();
  } else if (value->is_string()) {
    out.kind = UnboundLiteral::Kind::kString;
    out.text = value->template get<std::string>();
  } else {
    return Status::InvalidArgument("cannot use JSON {} as a literal",
                                   value->is_null() ? "null" : value->type_name());
  }
  return out;
}

template <typename J>
Result<std::string> TermFromJson(const J& node) {
  if (node.is_string()) return node.template get<std::string>();
  if (node.is_object()) {
    const J* type = Member(node, "type");
    const J* term = Member(node, "term");
    if (type != nullptr && type->is_string()) {
      const std::string& t = type->template get_ref<const std::string&>();
      if (t == "reference" && term != nullptr && term->is_string()) {
        return term->template get<std::string>();
      }
      if (t == "transform") {
        return Status::InvalidArgument("transform terms are not supported in filters");
      }
    }
  }
  return Status::InvalidArgument("a term must be a column name or a reference object");
}

template <typename J>
Result<ExpressionPtr> Parse(const J& node, int depth) {
  if (depth > kMaxDepth) return Status::InvalidArgument("expression nested too deeply");
  if (node.is_boolean())
    return node.template get<bool>() ? Expression::True() : Expression::False();
  if (!node.is_object())
    return Status::InvalidArgument("an expression must be a boolean or an object");
  const J* type_node = Member(node, "type");
  if (type_node == nullptr || !type_node->is_string()) {
    return Status::InvalidArgument("an expression object needs a string 'type'");
  }
  const std::string& type = type_node->template get_ref<const std::string&>();
  if (type == "literal") {
    const J* value = Member(node, "value");
    if (value == nullptr || !value->is_boolean()) {
      return Status::InvalidArgument("a literal expression needs a boolean value");
    }
    return value->template get<bool>() ? Expression::True() : Expression::False();
  }
  if (type == "true") return Expression::True();
  if (type == "false") return Expression::False();
  const Operation* op = nullptr;
  for (const Operation& candidate : kOperations) {
    if (OperationName(candidate) == type) op = &candidate;
  }
  if (op == nullptr) return Status::InvalidArgument("unknown expression type '{}'", type);
  auto child = [&](std::string_view key) -> Result<ExpressionPtr> {
    const J* c = Member(node, key);
    if (c == nullptr) return Status::InvalidArgument("'{}' expression without '{}'", type, key);
    return Parse(*c, depth + 1);
  };
  if (*op == Operation::kAnd || *op == Operation::kOr) {
    FLOE_ASSIGN_OR_RETURN(ExpressionPtr left, child("left"));
    FLOE_ASSIGN_OR_RETURN(ExpressionPtr right, child("right"));
    return *op == Operation::kAnd ? Expression::And(std::move(left), std::move(right))
                                  : Expression::Or(std::move(left), std::move(right));
  }
  if (*op == Operation::kNot) {
    FLOE_ASSIGN_OR_RETURN(ExpressionPtr c, child("child"));
    return Expression::Not(std::move(c));
  }
  const J* term_node = Member(node, "term");
  if (term_node == nullptr) return Status::InvalidArgument("'{}' predicate without a term", type);
  FLOE_ASSIGN_OR_RETURN(std::string column, TermFromJson(*term_node));
  const J* value = Member(node, "value");
  const J* values = Member(node, "values");
  std::vector<UnboundLiteral> literals;
  if (IsUnaryPredicate(*op)) {
    if (value != nullptr || values != nullptr) {
      return Status::InvalidArgument("'{}' predicate takes no value", type);
    }
  } else if (IsLiteralPredicate(*op)) {
    if (value == nullptr || values != nullptr) {
      return Status::InvalidArgument("'{}' predicate needs one 'value'", type);
    }
    FLOE_ASSIGN_OR_RETURN(UnboundLiteral lit, LiteralFromJson(*value));
    literals.push_back(std::move(lit));
  } else {
    if (values == nullptr || !values->is_array() || value != nullptr) {
      return Status::InvalidArgument("'{}' predicate needs a 'values' array", type);
    }
    literals.reserve(values->size());
    for (const J& v : *values) {
      FLOE_ASSIGN_OR_RETURN(UnboundLiteral lit, LiteralFromJson(v));
      literals.push_back(std::move(lit));
    }
  }
  return Expression::Predicate(*op, std::move(column), std::move(literals));
}

}  // namespace

Result<ExpressionPtr> ExpressionFromJson(const nlohmann::json& json) { return Parse(json, 0); }
Result<ExpressionPtr> ExpressionFromJson(const nlohmann::ordered_json& json) {
  return Parse(json, 0);
}

void WriteExpressionJson(const BoundExpression& expr, JsonWriter& w) {
  switch (expr.op()) {
    case Operation::kTrue: w.Bool(true); return;
    case Operation::kFalse: w.Bool(false); return;
    case Operation::kAnd:
    case Operation::kOr:
      w.BeginObject();
      w.Key("type");
      w.String(OperationName(expr.op()));
      w.Key("left");
      WriteExpressionJson(*expr.left(), w);
      w.Key("right");
      WriteExpressionJson(*expr.right(), w);
      w.EndObject();
      return;
    default: break;
  }
  w.BeginObject();
  w.Key("type");
  w.String(OperationName(expr.op()));
  w.Key("term");
  w.String(expr.term().name);
  if (IsLiteralPredicate(expr.op()) && !expr.literals().empty()) {
    w.Key("value");
    w.Raw(expr.literals().front().ToJson());
  } else if (IsSetPredicate(expr.op())) {
    w.Key("values");
    w.BeginArray();
    for (const Literal& v : expr.literals()) w.Raw(v.ToJson());
    w.EndArray();
  }
  w.EndObject();
}

}  // namespace floe::iceberg
