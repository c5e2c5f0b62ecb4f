#include "floe/iceberg/expression_eval.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstring>
#include <limits>
#include <utility>

#include "floe/base/macros.h"
#include "floe/columnar/bitmap.h"
#include "floe/iceberg/partition_spec.h"
#include "floe/iceberg/schema.h"
#include "floe/iceberg/transform.h"

namespace floe::iceberg {

// ---------------------------------------------------------------------------------------
// BoundExpression

BoundExpression::BoundExpression(Operation op, BoundExpressionPtr left, BoundExpressionPtr right,
                                 BoundTerm term, std::vector<Literal> literals)
    : op_(op),
      left_(std::move(left)),
      right_(std::move(right)),
      term_(std::move(term)),
      literals_(std::move(literals)) {}

BoundExpressionPtr BoundExpression::True() {
  static const BoundExpressionPtr kTrueExpr = std::make_shared<BoundExpression>(
      Operation::kTrue, nullptr, nullptr, BoundTerm{}, std::vector<Literal>{});
  return kTrueExpr;
}

BoundExpressionPtr BoundExpression::False() {
  static const BoundExpressionPtr kFalseExpr = std::make_shared<BoundExpression>(
      Operation::kFalse, nullptr, nullptr, BoundTerm{}, std::vector<Literal>{});
  return kFalseExpr;
}

BoundExpressionPtr BoundExpression::And(BoundExpressionPtr left, BoundExpressionPtr right) {
  if (left->op() == Operation::kFalse || right->op() == Operation::kFalse) return False();
  if (left->op() == Operation::kTrue) return right;
  if (right->op() == Operation::kTrue) return left;
  return std::make_shared<BoundExpression>(Operation::kAnd, std::move(left), std::move(right),
                                           BoundTerm{}, std::vector<Literal>{});
}

BoundExpressionPtr BoundExpression::Or(BoundExpressionPtr left, BoundExpressionPtr right) {
  if (left->op() == Operation::kTrue || right->op() == Operation::kTrue) return True();
  if (left->op() == Operation::kFalse) return right;
  if (right->op() == Operation::kFalse) return left;
  return std::make_shared<BoundExpression>(Operation::kOr, std::move(left), std::move(right),
                                           BoundTerm{}, std::vector<Literal>{});
}

BoundExpressionPtr BoundExpression::Predicate(Operation op, BoundTerm term,
                                              std::vector<Literal> literals) {
  return std::make_shared<BoundExpression>(op, nullptr, nullptr, std::move(term),
                                           std::move(literals));
}

std::string BoundExpression::ToString() const {
  switch (op_) {
    case Operation::kTrue: return "true";
    case Operation::kFalse: return "false";
    case Operation::kAnd: return "(" + left_->ToString() + " AND " + right_->ToString() + ")";
    case Operation::kOr: return "(" + left_->ToString() + " OR " + right_->ToString() + ")";
    default: break;
  }
  std::string out = term_.name + " " + std::string(OperationName(op_));
  for (size_t i = 0; i < literals_.size(); ++i) {
    out += i ? ", " : " ";
    out += literals_[i].ToString();
  }
  return out;
}

std::vector<int32_t> BoundExpression::ReferencedFieldIds() const {
  std::vector<int32_t> ids;
  std::vector<const BoundExpression*> stack{this};
  while (!stack.empty()) {
    const BoundExpression* e = stack.back();
    stack.pop_back();
    if (e->is_predicate()) {
      ids.push_back(e->term_.field_id);
    } else if (e->op_ == Operation::kAnd || e->op_ == Operation::kOr) {
      stack.push_back(e->left_.get());
      stack.push_back(e->right_.get());
    }
  }
  std::sort(ids.begin(), ids.end());
  ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
  return ids;
}

// ---------------------------------------------------------------------------------------
// Binding

namespace {

bool NameEquals(std::string_view a, std::string_view b, bool case_sensitive) {
  if (case_sensitive) return a == b;
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (std::tolower(static_cast<unsigned char>(a[i])) !=
        std::tolower(static_cast<unsigned char>(b[i])))
      return false;
  }
  return true;
}

// Resolves a dotted name through nested structs; a field whose own name contains dots is
// found too (the longest matching name wins at each level).
const NestedField* ResolveField(const Type& struct_type, std::string_view name, bool case_sensitive,
                                std::string* full_name, bool* required) {
  for (const NestedField& f : struct_type.fields()) {
    if (NameEquals(f.name, name, case_sensitive)) {
      *full_name += f.name;
      *required = *required && f.required;
      return &f;
    }
  }
  for (size_t dot = name.rfind('.'); dot != std::string_view::npos && dot > 0;
       dot = name.rfind('.', dot - 1)) {
    std::string_view head = name.substr(0, dot);
    for (const NestedField& f : struct_type.fields()) {
      if (!NameEquals(f.name, head, case_sensitive)) continue;
      if (f.type->kind() != TypeKind::kStruct) return nullptr;
      *full_name += f.name + ".";
      *required = *required && f.required;
      return ResolveField(*f.type, name.substr(dot + 1), case_sensitive, full_name, required);
    }
    if (dot == 0) break;
  }
  return nullptr;
}

bool IsFloating(TypeKind k) { return k == TypeKind::kFloat || k == TypeKind::kDouble; }
bool IsStringLike(TypeKind k) { return k == TypeKind::kString; }

bool IsNanLiteral(const Literal& l) {
  if (l.is_null()) return false;
  if (l.type()->kind() == TypeKind::kFloat) return std::isnan(l.float_value());
  if (l.type()->kind() == TypeKind::kDouble) return std::isnan(l.double_value());
  return false;
}

Result<TypePtr> TypedLiteralType(const UnboundLiteral& lit, const TypePtr& column_type) {
  const std::string& n = lit.type_name;
  if (n == "date") return DateType();
  if (n == "time") return TimeType();
  if (n == "timestamp") return TimestampType();
  if (n == "timestamptz") return TimestampTzType();
  if (n == "timestamp_ns") return TimestampNsType();
  if (n == "timestamptz_ns") return TimestampTzNsType();
  if (n == "uuid") return UuidType();
  if (n == "decimal") {
    if (column_type->kind() == TypeKind::kDecimal) return column_type;
    return Status::InvalidArgument("decimal literal {} compared with a {} column", lit.ToString(),
                                   column_type->ToString());
  }
  return Status::InvalidArgument("unknown literal type '{}'", n);
}

Result<std::string> DecodeHex(std::string_view hex) {
  if (hex.size() % 2 != 0) return Status::InvalidArgument("hex literal of odd length");
  std::string out;
  out.reserve(hex.size() / 2);
  auto nibble = [](char c) -> int {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
  };
  for (size_t i = 0; i < hex.size(); i += 2) {
    int hi = nibble(hex[i]), lo = nibble(hex[i + 1]);
    if (hi < 0 || lo < 0) return Status::InvalidArgument("invalid hex literal x'{}'", hex);
    out += static_cast<char>(hi * 16 + lo);
  }
  return out;
}

// A numeric literal for an int column may lie outside int32: the predicate then has a
// constant answer (Iceberg Java's AboveMax / BelowMin literals).
enum class Range : uint8_t { kIn, kAboveMax, kBelowMin };

struct ConvertedLiteral {
  Literal value = Literal::Null(UnknownType());
  Range range = Range::kIn;
};

Result<ConvertedLiteral> ConvertLiteral(const UnboundLiteral& lit, const TypePtr& type) {
  ConvertedLiteral out;
  TypeKind kind = type->kind();
  switch (lit.kind) {
    case UnboundLiteral::Kind::kBoolean:
      if (kind != TypeKind::kBoolean) break;
      out.value = Literal::Boolean(lit.text == "true");
      return out;
    case UnboundLiteral::Kind::kNumber: {
      const char* b = lit.text.data();
      const char* e = b + lit.text.size();
      if (*b == '+') ++b;
      if (kind == TypeKind::kInt || kind == TypeKind::kLong) {
        int64_t v = 0;
        auto [p, ec] = std::from_chars(b, e, v);
        if (ec == std::errc::result_out_of_range) {
          if (kind == TypeKind::kLong) {
            return Status::InvalidArgument("{} is out of range for a long column", lit.text);
          }
          out.range = lit.text[0] == '-' ? Range::kBelowMin : Range::kAboveMax;
          return out;
        }
        if (ec != std::errc() || p != e) break;
        if (kind == TypeKind::kInt) {
          if (v > std::numeric_limits<int32_t>::max()) {
            out.range = Range::kAboveMax;
          } else if (v < std::numeric_limits<int32_t>::min()) {
            out.range = Range::kBelowMin;
          } else {
            out.value = Literal::Int(static_cast<int32_t>(v));
          }
          return out;
        }
        out.value = Literal::Long(v);
        return out;
      }
      if (kind == TypeKind::kFloat || kind == TypeKind::kDouble || kind == TypeKind::kDecimal) {
        FLOE_ASSIGN_OR_RETURN(out.value, Literal::Parse(type, lit.text));
        return out;
      }
      break;
    }
    case UnboundLiteral::Kind::kString: {
      Result<Literal> parsed = Literal::Parse(type, lit.text);
      if (!parsed.ok()) {
        return Status::InvalidArgument("cannot compare {} column with {}: {}", type->ToString(),
                                       lit.ToString(), parsed.status().message());
      }
      out.value = std::move(*parsed);
      return out;
    }
    case UnboundLiteral::Kind::kTyped: {
      if (lit.type_name == "binary") {
        if (kind != TypeKind::kBinary && kind != TypeKind::kFixed) break;
        FLOE_ASSIGN_OR_RETURN(std::string bytes, DecodeHex(lit.text));
        if (kind == TypeKind::kFixed && static_cast<int32_t>(bytes.size()) != type->length()) {
          return Status::InvalidArgument("{} has {} bytes; the column is {}", lit.ToString(),
                                         bytes.size(), type->ToString());
        }
        out.value = kind == TypeKind::kFixed ? Literal::Fixed(std::move(bytes))
                                             : Literal::Binary(std::move(bytes));
        return out;
      }
      FLOE_ASSIGN_OR_RETURN(TypePtr literal_type, TypedLiteralType(lit, type));
      Result<Literal> parsed = Literal::Parse(literal_type, lit.text);
      if (!parsed.ok()) {
        return Status::InvalidArgument("invalid literal {}: {}", lit.ToString(),
                                       parsed.status().message());
      }
      Result<Literal> cast = parsed->CastTo(type);
      if (!cast.ok()) {
        return Status::InvalidArgument("cannot compare {} column with {}: {}", type->ToString(),
                                       lit.ToString(), cast.status().message());
      }
      out.value = std::move(*cast);
      return out;
    }
  }
  return Status::InvalidArgument("cannot compare {} column with {}", type->ToString(),
                                 lit.ToString());
}

Result<BoundExpressionPtr> BindNode(const Type& struct_type, const ExpressionPtr& expr,
                                    bool case_sensitive) {
  switch (expr->op()) {
    case Operation::kTrue: return BoundExpression::True();
    case Operation::kFalse: return BoundExpression::False();
    case Operation::kAnd:
    case Operation::kOr: {
      FLOE_ASSIGN_OR_RETURN(BoundExpressionPtr l,
                            BindNode(struct_type, expr->left(), case_sensitive));
      FLOE_ASSIGN_OR_RETURN(BoundExpressionPtr r,
                            BindNode(struct_type, expr->right(), case_sensitive));
      return expr->op() == Operation::kAnd ? BoundExpression::And(std::move(l), std::move(r))
                                           : BoundExpression::Or(std::move(l), std::move(r));
    }
    case Operation::kNot: return Status::Internal("NOT must be rewritten before binding");
    default: break;
  }
  BoundTerm term;
  bool required = true;
  const NestedField* field =
      ResolveField(struct_type, expr->column(), case_sensitive, &term.name, &required);
  if (field == nullptr) {
    return Status::InvalidArgument("cannot find column '{}' in {}", expr->column(),
                                   struct_type.ToString());
  }
  if (!field->type->is_primitive()) {
    return Status::InvalidArgument("cannot filter on column '{}' of type {}", term.name,
                                   field->type->ToString());
  }
  term.field_id = field->id;
  term.type = field->type;
  term.required = required;
  Operation op = expr->op();
  TypeKind kind = term.type->kind();

  if (IsUnaryPredicate(op)) {
    if ((op == Operation::kIsNan || op == Operation::kNotNan) && !IsFloating(kind)) {
      return Status::InvalidArgument("IS NAN needs a float or double column; '{}' is {}", term.name,
                                     term.type->ToString());
    }
    if (op == Operation::kIsNull && term.required) return BoundExpression::False();
    if (op == Operation::kNotNull && term.required) return BoundExpression::True();
    return BoundExpression::Predicate(op, std::move(term));
  }
  if ((op == Operation::kStartsWith || op == Operation::kNotStartsWith) && !IsStringLike(kind)) {
    return Status::InvalidArgument("STARTS WITH needs a string column; '{}' is {}", term.name,
                                   term.type->ToString());
  }

  std::vector<Literal> values;
  bool any_above = false, any_below = false;
  for (const UnboundLiteral& lit : expr->literals()) {
    FLOE_ASSIGN_OR_RETURN(ConvertedLiteral c, ConvertLiteral(lit, term.type));
    if (c.range == Range::kAboveMax) {
      any_above = true;
      continue;
    }
    if (c.range == Range::kBelowMin) {
      any_below = true;
      continue;
    }
    if (IsNanLiteral(c.value)) {
      return Status::InvalidArgument("NaN is not a comparable value; use IS NAN on '{}'",
                                     term.name);
    }
    values.push_back(std::move(c.value));
  }

  if (IsSetPredicate(op)) {
    std::sort(values.begin(), values.end(),
              [](const Literal& a, const Literal& b) { return Compare(a, b) < 0; });
    values.erase(std::unique(values.begin(), values.end(),
                             [](const Literal& a, const Literal& b) { return Compare(a, b) == 0; }),
                 values.end());
    if (values.empty()) {
      return op == Operation::kIn ? BoundExpression::False() : BoundExpression::True();
    }
    if (values.size() == 1) {
      return BoundExpression::Predicate(op == Operation::kIn ? Operation::kEq : Operation::kNotEq,
                                        std::move(term), std::move(values));
    }
    return BoundExpression::Predicate(op, std::move(term), std::move(values));
  }

  if (any_above || any_below) {
    // Every int value is below an above-max literal and above a below-min one.
    bool column_is_less = any_above;
    switch (op) {
      case Operation::kLt:
      case Operation::kLtEq:
        return column_is_less ? BoundExpression::True() : BoundExpression::False();
      case Operation::kGt:
      case Operation::kGtEq:
        return column_is_less ? BoundExpression::False() : BoundExpression::True();
      case Operation::kEq: return BoundExpression::False();
      case Operation::kNotEq: return BoundExpression::True();
      default: break;
    }
  }
  if (values.size() != 1) {
    return Status::InvalidArgument("{} needs one value", OperationName(op));
  }
  return BoundExpression::Predicate(op, std::move(term), std::move(values));
}

}  // namespace

Result<Literal> BindLiteral(const UnboundLiteral& literal, const TypePtr& type) {
  FLOE_ASSIGN_OR_RETURN(ConvertedLiteral c, ConvertLiteral(literal, type));
  if (c.range != Range::kIn) {
    return Status::InvalidArgument("{} is out of range for {}", literal.ToString(),
                                   type->ToString());
  }
  return std::move(c.value);
}

Result<BoundExpressionPtr> Bind(const Type& struct_type, const ExpressionPtr& expr,
                                bool case_sensitive) {
  if (struct_type.kind() != TypeKind::kStruct) {
    return Status::InvalidArgument("expressions bind to a struct, not {}", struct_type.ToString());
  }
  return BindNode(struct_type, RewriteNot(expr), case_sensitive);
}

Result<BoundExpressionPtr> Bind(const Schema& schema, const ExpressionPtr& expr,
                                bool case_sensitive) {
  return Bind(*schema.as_struct(), expr, case_sensitive);
}

// ---------------------------------------------------------------------------------------
// Row evaluation over column batches

namespace {

// A column found by field id, with the validity of the structs above it.
struct ColumnRef {
  const columnar::Array* array = nullptr;
  std::vector<const columnar::Array*> parents;
};

bool FindColumn(const std::vector<columnar::Field>& fields,
                const std::vector<const columnar::Array*>& arrays, int32_t field_id,
                ColumnRef* out) {
  for (size_t i = 0; i < fields.size(); ++i) {
    if (fields[i].field_id == field_id) {
      out->array = arrays[i];
      return true;
    }
  }
  for (size_t i = 0; i < fields.size(); ++i) {
    if (fields[i].type->id() != columnar::TypeId::kStruct) continue;
    std::vector<const columnar::Array*> children;
    for (const columnar::Array& c : arrays[i]->children()) children.push_back(&c);
    out->parents.push_back(arrays[i]);
    if (FindColumn(fields[i].type->children(), children, field_id, out)) return true;
    out->parents.pop_back();
  }
  return false;
}

// valid[i] = 1 when the column's value at row i is not null (parents included).
void ComputeValidity(const ColumnRef& col, int64_t n, std::vector<uint8_t>* valid) {
  valid->assign(static_cast<size_t>(n), 1);
  auto apply = [&](const columnar::Array* a) {
    if (a->type_id() == columnar::TypeId::kNull) {
      std::fill(valid->begin(), valid->end(), 0);
      return;
    }
    if (a->null_count() == 0 || a->validity().empty()) return;
    const uint8_t* bits = a->validity().data();
    for (int64_t i = 0; i < n; ++i) (*valid)[i] &= columnar::GetBit(bits, i) ? 1 : 0;
  };
  for (const columnar::Array* p : col.parents) apply(p);
  apply(col.array);
}

template <typename T>
inline bool CompareOp(Operation op, T v, T lit) {
  switch (op) {
    case Operation::kLt: return v < lit;
    case Operation::kLtEq: return v <= lit;
    case Operation::kGt: return v > lit;
    case Operation::kGtEq: return v >= lit;
    case Operation::kEq: return v == lit;
    case Operation::kNotEq: return v != lit;
    default: return false;
  }
}

// Applies `op` against one literal or a sorted set to each valid row, reading values
// through `get(i)`. The switch on `op` is hoisted out of the row loop.
template <typename T, typename Get>
void EvalValues(Operation op, const std::vector<T>& lits, int64_t n, const uint8_t* valid,
                const Get& get, uint8_t* out) {
  auto loop = [&](auto pred) {
    for (int64_t i = 0; i < n; ++i) out[i] = valid[i] && pred(get(i));
  };
  switch (op) {
    case Operation::kLt: loop([&](const T& v) { return v < lits[0]; }); break;
    case Operation::kLtEq: loop([&](const T& v) { return v <= lits[0]; }); break;
    case Operation::kGt: loop([&](const T& v) { return v > lits[0]; }); break;
    case Operation::kGtEq: loop([&](const T& v) { return v >= lits[0]; }); break;
    case Operation::kEq: loop([&](const T& v) { return v == lits[0]; }); break;
    case Operation::kNotEq: loop([&](const T& v) { return v != lits[0]; }); break;
    case Operation::kIn:
      loop([&](const T& v) { return std::binary_search(lits.begin(), lits.end(), v); });
      break;
    case Operation::kNotIn:
      loop([&](const T& v) { return !std::binary_search(lits.begin(), lits.end(), v); });
      break;
    default: std::fill(out, out + n, 0); break;
  }
}

// Floating-point IN uses ==, so -0.0 and +0.0 match each other as in IEEE comparison.
template <typename T, typename Get>
void EvalFloat(Operation op, const std::vector<T>& lits, int64_t n, const uint8_t* valid,
               const Get& get, uint8_t* out) {
  if (op == Operation::kIn || op == Operation::kNotIn) {
    bool in = op == Operation::kIn;
    for (int64_t i = 0; i < n; ++i) {
      T v = get(i);
      bool found = false;
      for (T l : lits) found |= (v == l);
      out[i] = valid[i] && (found == in) && !std::isnan(v);
    }
    return;
  }
  EvalValues<T>(op, lits, n, valid, get, out);
}

template <typename T>
std::vector<T> LiteralValues(const std::vector<Literal>& lits) {
  std::vector<T> out;
  out.reserve(lits.size());
  for (const Literal& l : lits) {
    const Literal::Value& v = l.value();
    if constexpr (std::is_same_v<T, std::string_view>) {
      if (std::holds_alternative<std::string>(v)) {
        out.emplace_back(std::get<std::string>(v));
      } else {
        const auto& u = std::get<Literal::UuidBytes>(v);
        out.emplace_back(reinterpret_cast<const char*>(u.data()), u.size());
      }
    } else {
      out.push_back(std::get<T>(v));
    }
  }
  return out;
}

Status EvalPredicate(const BoundExpression& e, const columnar::RecordBatch& batch, uint8_t* out) {
  const int64_t n = batch.num_rows();
  std::vector<const columnar::Array*> arrays;
  for (const columnar::Array& a : batch.columns()) arrays.push_back(&a);
  ColumnRef col;
  if (!FindColumn(batch.schema()->fields(), arrays, e.term().field_id, &col)) {
    return Status::InvalidArgument("column '{}' (field id {}) is not in the batch", e.term().name,
                                   e.term().field_id);
  }
  std::vector<uint8_t> valid;
  ComputeValidity(col, n, &valid);
  const uint8_t* v = valid.data();
  const columnar::Array& a = *col.array;
  Operation op = e.op();

  switch (op) {
    case Operation::kIsNull:
      for (int64_t i = 0; i < n; ++i) out[i] = !v[i];
      return Status::OK();
    case Operation::kNotNull:
      for (int64_t i = 0; i < n; ++i) out[i] = v[i];
      return Status::OK();
    default: break;
  }
  if (a.type_id() == columnar::TypeId::kNull) {
    // Every value is null: only the "not" forms hold... and with SQL semantics none do.
    std::fill(out, out + n, 0);
    return Status::OK();
  }

  TypeKind kind = e.term().type->kind();
  auto expect = [&](columnar::TypeId id) -> Status {
    if (a.type_id() != id) {
      return Status::InvalidArgument("column '{}' is {} in the batch, not {}", e.term().name,
                                     columnar::TypeIdName(a.type_id()), e.term().type->ToString());
    }
    return Status::OK();
  };
  switch (kind) {
    case TypeKind::kFloat:
    case TypeKind::kDouble: {
      bool is_float = kind == TypeKind::kFloat;
      FLOE_RETURN_IF_ERROR(
          expect(is_float ? columnar::TypeId::kFloat32 : columnar::TypeId::kFloat64));
      if (op == Operation::kIsNan || op == Operation::kNotNan) {
        bool want_nan = op == Operation::kIsNan;
        for (int64_t i = 0; i < n; ++i) {
          bool nan = is_float ? std::isnan(a.Value<float>(i)) : std::isnan(a.Value<double>(i));
          out[i] = v[i] && nan == want_nan;
        }
        return Status::OK();
      }
      if (is_float) {
        const float* d = a.data<float>();
        EvalFloat<float>(
            op, LiteralValues<float>(e.literals()), n, v, [d](int64_t i) { return d[i]; }, out);
      } else {
        const double* d = a.data<double>();
        EvalFloat<double>(
            op, LiteralValues<double>(e.literals()), n, v, [d](int64_t i) { return d[i]; }, out);
      }
      return Status::OK();
    }
    case TypeKind::kBoolean: {
      FLOE_RETURN_IF_ERROR(expect(columnar::TypeId::kBool));
      std::vector<int32_t> lits;
      for (const Literal& l : e.literals()) lits.push_back(l.bool_value() ? 1 : 0);
      const uint8_t* bits = a.values().data();
      EvalValues<int32_t>(
          op, lits, n, v, [bits](int64_t i) { return columnar::GetBit(bits, i) ? 1 : 0; }, out);
      return Status::OK();
    }
    case TypeKind::kInt:
    case TypeKind::kDate: {
      FLOE_RETURN_IF_ERROR(
          expect(kind == TypeKind::kInt ? columnar::TypeId::kInt32 : columnar::TypeId::kDate32));
      const int32_t* d = a.data<int32_t>();
      EvalValues<int32_t>(
          op, LiteralValues<int32_t>(e.literals()), n, v, [d](int64_t i) { return d[i]; }, out);
      return Status::OK();
    }
    case TypeKind::kLong:
    case TypeKind::kTime:
    case TypeKind::kTimestamp:
    case TypeKind::kTimestampTz:
    case TypeKind::kTimestampNs:
    case TypeKind::kTimestampTzNs: {
      if (a.type_id() != columnar::TypeId::kInt64 && a.type_id() != columnar::TypeId::kTime64 &&
          a.type_id() != columnar::TypeId::kTimestamp) {
        return expect(columnar::TypeId::kInt64);
      }
      const int64_t* d = a.data<int64_t>();
      EvalValues<int64_t>(
          op, LiteralValues<int64_t>(e.literals()), n, v, [d](int64_t i) { return d[i]; }, out);
      return Status::OK();
    }
    case TypeKind::kDecimal: {
      FLOE_RETURN_IF_ERROR(expect(columnar::TypeId::kDecimal128));
      if (a.type()->scale() != e.term().type->scale()) {
        return Status::InvalidArgument("column '{}' has scale {} in the batch, not {}",
                                       e.term().name, a.type()->scale(), e.term().type->scale());
      }
      const uint8_t* d = a.values().data();
      EvalValues<__int128>(
          op, LiteralValues<__int128>(e.literals()), n, v,
          [d](int64_t i) {
            __int128 x;
            std::memcpy(&x, d + 16 * i, 16);
            return x;
          },
          out);
      return Status::OK();
    }
    case TypeKind::kString:
    case TypeKind::kBinary:
    case TypeKind::kFixed:
    case TypeKind::kUuid: {
      bool var = a.type()->is_binary_like();
      if (!var && a.type_id() != columnar::TypeId::kFixedBinary &&
          a.type_id() != columnar::TypeId::kUuid) {
        return expect(columnar::TypeId::kBinary);
      }
      auto get = [&a, var](int64_t i) { return var ? a.BinaryValue(i) : a.FixedValue(i); };
      if (op == Operation::kStartsWith || op == Operation::kNotStartsWith) {
        std::string_view prefix = e.literals()[0].string_value();
        bool want = op == Operation::kStartsWith;
        for (int64_t i = 0; i < n; ++i) {
          out[i] = v[i] && (get(i).substr(0, prefix.size()) == prefix) == want;
        }
        return Status::OK();
      }
      EvalValues<std::string_view>(op, LiteralValues<std::string_view>(e.literals()), n, v, get,
                                   out);
      return Status::OK();
    }
    default:
      return Status::InvalidArgument("cannot evaluate {} on a {} column", OperationName(op),
                                     e.term().type->ToString());
  }
}

Status EvalNode(const BoundExpression& e, const columnar::RecordBatch& batch, uint8_t* out) {
  const int64_t n = batch.num_rows();
  switch (e.op()) {
    case Operation::kTrue: std::fill(out, out + n, 1); return Status::OK();
    case Operation::kFalse: std::fill(out, out + n, 0); return Status::OK();
    case Operation::kAnd:
    case Operation::kOr: {
      FLOE_RETURN_IF_ERROR(EvalNode(*e.left(), batch, out));
      std::vector<uint8_t> right(static_cast<size_t>(n));
      FLOE_RETURN_IF_ERROR(EvalNode(*e.right(), batch, right.data()));
      if (e.op() == Operation::kAnd) {
        for (int64_t i = 0; i < n; ++i) out[i] &= right[i];
      } else {
        for (int64_t i = 0; i < n; ++i) out[i] |= right[i];
      }
      return Status::OK();
    }
    default: return EvalPredicate(e, batch, out);
  }
}

}  // namespace

Status EvaluateBatch(const BoundExpression& expr, const columnar::RecordBatch& batch,
                     std::vector<uint8_t>* out) {
  out->assign(static_cast<size_t>(batch.num_rows()), 0);
  if (batch.num_rows() == 0) return Status::OK();
  return EvalNode(expr, batch, out->data());
}

// ---------------------------------------------------------------------------------------
// Evaluation on literal structs

bool EvaluateStruct(const BoundExpression& e,
                    const std::function<const Literal*(int32_t field_id)>& value_of) {
  switch (e.op()) {
    case Operation::kTrue: return true;
    case Operation::kFalse: return false;
    case Operation::kAnd:
      return EvaluateStruct(*e.left(), value_of) && EvaluateStruct(*e.right(), value_of);
    case Operation::kOr:
      return EvaluateStruct(*e.left(), value_of) || EvaluateStruct(*e.right(), value_of);
    default: break;
  }
  const Literal* v = value_of(e.term().field_id);
  bool is_null = v == nullptr || v->is_null();
  Operation op = e.op();
  switch (op) {
    case Operation::kIsNull: return is_null;
    case Operation::kNotNull: return !is_null;
    case Operation::kIsNan: return !is_null && IsNanLiteral(*v);
    case Operation::kNotNan: return is_null || !IsNanLiteral(*v);
    case Operation::kNotEq:
    case Operation::kNotIn:
    case Operation::kNotStartsWith:
      if (is_null) return true;
      break;
    default:
      if (is_null) return false;
      break;
  }
  const std::vector<Literal>& lits = e.literals();
  switch (op) {
    case Operation::kIn:
    case Operation::kNotIn: {
      bool found =
          std::binary_search(lits.begin(), lits.end(), *v,
                             [](const Literal& a, const Literal& b) { return Compare(a, b) < 0; });
      return found == (op == Operation::kIn);
    }
    case Operation::kStartsWith:
    case Operation::kNotStartsWith: {
      const std::string& s = v->string_value();
      const std::string& p = lits[0].string_value();
      bool starts = s.compare(0, p.size(), p) == 0 && s.size() >= p.size();
      return starts == (op == Operation::kStartsWith);
    }
    default: return CompareOp(op, Compare(*v, lits[0]), 0);
  }
}

// ---------------------------------------------------------------------------------------
// Metrics evaluation (Iceberg Java InclusiveMetricsEvaluator)

namespace {

// Java stops checking IN values against bounds past this many values.
constexpr size_t kInPredicateLimit = 200;

struct MetricsEval {
  const FileMetricsRef& m;

  std::optional<int64_t> Get(const std::function<std::optional<int64_t>(int32_t)>& f,
                             int32_t id) const {
    return f ? f(id) : std::nullopt;
  }
  bool ContainsNullsOnly(int32_t id) const {
    std::optional<int64_t> values = Get(m.value_count, id);
    std::optional<int64_t> nulls = Get(m.null_count, id);
    return values && nulls && *values == *nulls;
  }
  bool ContainsNansOnly(int32_t id) const {
    std::optional<int64_t> values = Get(m.value_count, id);
    std::optional<int64_t> nans = Get(m.nan_count, id);
    return values && nans && *values == *nans;
  }
  std::optional<Literal> Bound(bool lower, const BoundTerm& t) const {
    const auto& f = lower ? m.lower_bound : m.upper_bound;
    if (!f) return std::nullopt;
    std::optional<std::string_view> bytes = f(t.field_id);
    if (!bytes) return std::nullopt;
    Result<Literal> lit = Literal::FromBytes(t.type, *bytes);
    if (!lit.ok() || lit->is_null()) return std::nullopt;  // unreadable bound: may match
    // Old writers stored NaN as a float bound; such a bound says nothing.
    if (IsNanLiteral(*lit)) return std::nullopt;
    return std::move(*lit);
  }

  bool MayMatch(const BoundExpression& e) const {
    switch (e.op()) {
      case Operation::kTrue: return true;
      case Operation::kFalse: return false;
      case Operation::kAnd: return MayMatch(*e.left()) && MayMatch(*e.right());
      case Operation::kOr: return MayMatch(*e.left()) || MayMatch(*e.right());
      default: break;
    }
    const BoundTerm& t = e.term();
    int32_t id = t.field_id;
    switch (e.op()) {
      case Operation::kIsNull: {
        std::optional<int64_t> nulls = Get(m.null_count, id);
        return !(nulls && *nulls == 0);
      }
      case Operation::kNotNull: return !ContainsNullsOnly(id);
      case Operation::kIsNan: {
        std::optional<int64_t> nans = Get(m.nan_count, id);
        if (nans && *nans == 0) return false;
        return !ContainsNullsOnly(id);
      }
      case Operation::kNotNan: return !ContainsNansOnly(id);
      case Operation::kNotEq:
      case Operation::kNotIn:
      case Operation::kNotStartsWith: return true;
      default: break;
    }
    if (ContainsNullsOnly(id) || ContainsNansOnly(id)) return false;
    const std::vector<Literal>& lits = e.literals();
    switch (e.op()) {
      case Operation::kLt: {
        std::optional<Literal> lo = Bound(true, t);
        return !(lo && Compare(*lo, lits[0]) >= 0);
      }
      case Operation::kLtEq: {
        std::optional<Literal> lo = Bound(true, t);
        return !(lo && Compare(*lo, lits[0]) > 0);
      }
      case Operation::kGt: {
        std::optional<Literal> hi = Bound(false, t);
        return !(hi && Compare(*hi, lits[0]) <= 0);
      }
      case Operation::kGtEq: {
        std::optional<Literal> hi = Bound(false, t);
        return !(hi && Compare(*hi, lits[0]) < 0);
      }
      case Operation::kEq: {
        std::optional<Literal> lo = Bound(true, t);
        if (lo && Compare(*lo, lits[0]) > 0) return false;
        std::optional<Literal> hi = Bound(false, t);
        return !(hi && Compare(*hi, lits[0]) < 0);
      }
      case Operation::kIn: {
        if (lits.size() > kInPredicateLimit) return true;
        std::optional<Literal> lo = Bound(true, t);
        std::optional<Literal> hi = Bound(false, t);
        for (const Literal& l : lits) {
          if ((!lo || Compare(*lo, l) <= 0) && (!hi || Compare(*hi, l) >= 0)) return true;
        }
        return false;
      }
      case Operation::kStartsWith: {
        const std::string& prefix = lits[0].string_value();
        std::optional<Literal> lo = Bound(true, t);
        if (lo) {
          const std::string& s = lo->string_value();
          // The lower bound's prefix sorts after the prefix: no value can start with it.
          if (s.compare(0, std::min(s.size(), prefix.size()), prefix) > 0) return false;
        }
        std::optional<Literal> hi = Bound(false, t);
        if (hi) {
          const std::string& s = hi->string_value();
          if (s.compare(0, std::min(s.size(), prefix.size()), prefix) < 0) return false;
        }
        return true;
      }
      default: return true;
    }
  }
};

}  // namespace

bool FileMayMatch(const BoundExpression& row_filter, const FileMetricsRef& metrics) {
  if (metrics.record_count == 0) return false;
  if (metrics.record_count < 0) return true;  // unknown (imported v1 files write -1)
  return MetricsEval{metrics}.MayMatch(row_filter);
}

// ---------------------------------------------------------------------------------------
// Inclusive projection onto partition specs (Iceberg Java's ProjectionUtil, inclusive).

namespace {

// value + delta for the integer-like representations (int, date, long, time, timestamps,
// decimal unscaled); std::nullopt on overflow or for other types.
std::optional<Literal> Step(const Literal& v, int delta) {
  const Literal::Value& x = v.value();
  if (std::holds_alternative<int32_t>(x)) {
    int64_t r = int64_t{std::get<int32_t>(x)} + delta;
    if (r < std::numeric_limits<int32_t>::min() || r > std::numeric_limits<int32_t>::max()) {
      return std::nullopt;
    }
    Result<Literal> l = Literal::Make(v.type(), static_cast<int32_t>(r));
    return l.ok() ? std::optional<Literal>(std::move(*l)) : std::nullopt;
  }
  if (std::holds_alternative<int64_t>(x)) {
    int64_t r;
    if (__builtin_add_overflow(std::get<int64_t>(x), int64_t{delta}, &r)) return std::nullopt;
    Result<Literal> l = Literal::Make(v.type(), r);
    return l.ok() ? std::optional<Literal>(std::move(*l)) : std::nullopt;
  }
  if (std::holds_alternative<__int128>(x)) {
    Result<Literal> l = Literal::Make(v.type(), std::get<__int128>(x) + delta);
    return l.ok() ? std::optional<Literal>(std::move(*l)) : std::nullopt;
  }
  return std::nullopt;
}

// Applies the transform to each value; duplicates removed and sorted for set predicates.
std::optional<std::vector<Literal>> ApplyAll(const Transform& t, const std::vector<Literal>& in) {
  std::vector<Literal> out;
  for (const Literal& v : in) {
    Result<Literal> r = t.Apply(v);
    if (!r.ok()) return std::nullopt;
    out.push_back(std::move(*r));
  }
  std::sort(out.begin(), out.end(),
            [](const Literal& a, const Literal& b) { return Compare(a, b) < 0; });
  out.erase(std::unique(out.begin(), out.end(),
                        [](const Literal& a, const Literal& b) { return Compare(a, b) == 0; }),
            out.end());
  return out;
}

size_t CodePoints(std::string_view s) {
  size_t n = 0;
  for (unsigned char c : s) n += (c & 0xC0) != 0x80;
  return n;
}

// The projection of one predicate through one partition field; True when the transform
// cannot narrow it.
BoundExpressionPtr ProjectPredicate(const BoundExpression& pred, const Transform& t,
                                    BoundTerm partition_term) {
  using BE = BoundExpression;
  Operation op = pred.op();
  if (!t.is_known() || t.is_void()) return BE::True();
  if (op == Operation::kIsNull || op == Operation::kNotNull) {
    return BE::Predicate(op, std::move(partition_term));
  }
  if (t.kind() == TransformKind::kIdentity) {
    return BE::Predicate(op, std::move(partition_term), pred.literals());
  }
  if (op == Operation::kIsNan || op == Operation::kNotNan) return BE::True();
  const std::vector<Literal>& lits = pred.literals();
  auto apply_one = [&](const Literal& v) -> std::optional<Literal> {
    Result<Literal> r = t.Apply(v);
    return r.ok() ? std::optional<Literal>(std::move(*r)) : std::nullopt;
  };
  auto make = [&](Operation new_op, std::optional<Literal> v) -> BoundExpressionPtr {
    if (!v) return BE::True();
    return BE::Predicate(new_op, partition_term, {std::move(*v)});
  };
  if (op == Operation::kIn) {
    std::optional<std::vector<Literal>> values = ApplyAll(t, lits);
    if (!values) return BE::True();
    if (values->size() == 1) return BE::Predicate(Operation::kEq, partition_term, *values);
    return BE::Predicate(Operation::kIn, partition_term, std::move(*values));
  }
  if (op == Operation::kEq) return make(Operation::kEq, apply_one(lits[0]));
  if (t.kind() == TransformKind::kBucket) return BE::True();

  TypeKind source = pred.term().type->kind();
  bool array_like = source == TypeKind::kString || source == TypeKind::kBinary;
  if (t.kind() == TransformKind::kTruncate && array_like) {
    switch (op) {
      case Operation::kLt:
      case Operation::kLtEq: return make(Operation::kLtEq, apply_one(lits[0]));
      case Operation::kGt:
      case Operation::kGtEq: return make(Operation::kGtEq, apply_one(lits[0]));
      case Operation::kStartsWith: return make(Operation::kStartsWith, apply_one(lits[0]));
      case Operation::kNotStartsWith: {
        // A value starts with a prefix shorter than the width exactly when its truncation
        // does; longer prefixes say nothing about the truncated value.
        const std::string& prefix = lits[0].string_value();
        size_t len = source == TypeKind::kString ? CodePoints(prefix) : prefix.size();
        if (len < static_cast<size_t>(t.param())) {
          return BE::Predicate(Operation::kNotStartsWith, partition_term, lits);
        }
        return BE::True();
      }
      default: return BE::True();
    }
  }
  // Order-preserving transforms over integer-like values (truncate of numbers, and the
  // time transforms): a strict bound moves one unit inward before the transform.
  if (t.kind() == TransformKind::kTruncate || t.is_time()) {
    switch (op) {
      case Operation::kLt: {
        std::optional<Literal> v = Step(lits[0], -1);
        return make(Operation::kLtEq, v ? apply_one(*v) : std::nullopt);
      }
      case Operation::kLtEq: return make(Operation::kLtEq, apply_one(lits[0]));
      case Operation::kGt: {
        std::optional<Literal> v = Step(lits[0], 1);
        return make(Operation::kGtEq, v ? apply_one(*v) : std::nullopt);
      }
      case Operation::kGtEq: return make(Operation::kGtEq, apply_one(lits[0]));
      default: return BE::True();
    }
  }
  return BE::True();
}

Result<BoundExpressionPtr> ProjectNode(const BoundExpression& e, const PartitionSpec& spec,
                                       const Type& partition_type) {
  switch (e.op()) {
    case Operation::kTrue:
    case Operation::kFalse:
      return e.op() == Operation::kTrue ? BoundExpression::True() : BoundExpression::False();
    case Operation::kAnd:
    case Operation::kOr: {
      FLOE_ASSIGN_OR_RETURN(BoundExpressionPtr l, ProjectNode(*e.left(), spec, partition_type));
      FLOE_ASSIGN_OR_RETURN(BoundExpressionPtr r, ProjectNode(*e.right(), spec, partition_type));
      return e.op() == Operation::kAnd ? BoundExpression::And(std::move(l), std::move(r))
                                       : BoundExpression::Or(std::move(l), std::move(r));
    }
    default: break;
  }
  BoundExpressionPtr result = BoundExpression::True();
  const std::vector<PartitionField>& fields = spec.fields();
  for (size_t i = 0; i < fields.size(); ++i) {
    if (fields[i].source_id != e.term().field_id) continue;
    const NestedField& pf = partition_type.fields()[i];
    BoundTerm term{pf.id, pf.name, pf.type, false};
    result = BoundExpression::And(std::move(result),
                                  ProjectPredicate(e, fields[i].transform, std::move(term)));
  }
  return result;
}

}  // namespace

Result<BoundExpressionPtr> ProjectInclusive(const BoundExpression& row_filter, const Schema& schema,
                                            const PartitionSpec& spec) {
  FLOE_ASSIGN_OR_RETURN(TypePtr partition_type, spec.PartitionType(schema));
  if (partition_type->fields().size() != spec.fields().size()) {
    return Status::Internal("partition type of spec {} has {} fields, the spec {}", spec.spec_id(),
                            partition_type->fields().size(), spec.fields().size());
  }
  return ProjectNode(row_filter, spec, *partition_type);
}

bool EvaluatePartition(const BoundExpression& partition_expr, const PartitionSpec& spec,
                       const std::vector<Literal>& partition) {
  const std::vector<PartitionField>& fields = spec.fields();
  return EvaluateStruct(partition_expr, [&](int32_t field_id) -> const Literal* {
    for (size_t i = 0; i < fields.size() && i < partition.size(); ++i) {
      if (fields[i].field_id == field_id) return &partition[i];
    }
    return nullptr;
  });
}

// ---------------------------------------------------------------------------------------
// Manifest pruning from partition field summaries (Iceberg Java's ManifestEvaluator).

namespace {

struct SummaryEval {
  const PartitionSpec& spec;
  const std::vector<FieldSummaryRef>& summaries;

  const FieldSummaryRef* Find(int32_t field_id) const {
    const std::vector<PartitionField>& fields = spec.fields();
    for (size_t i = 0; i < fields.size() && i < summaries.size(); ++i) {
      if (fields[i].field_id == field_id) return &summaries[i];
    }
    return nullptr;
  }
  static std::optional<Literal> Decode(const BoundTerm& t, std::optional<std::string_view> b) {
    if (!b) return std::nullopt;
    Result<Literal> l = Literal::FromBytes(t.type, *b);
    if (!l.ok() || l->is_null() || IsNanLiteral(*l)) return std::nullopt;
    return std::move(*l);
  }

  bool MayMatch(const BoundExpression& e) const {
    switch (e.op()) {
      case Operation::kTrue: return true;
      case Operation::kFalse: return false;
      case Operation::kAnd: return MayMatch(*e.left()) && MayMatch(*e.right());
      case Operation::kOr: return MayMatch(*e.left()) || MayMatch(*e.right());
      default: break;
    }
    const FieldSummaryRef* s = Find(e.term().field_id);
    if (s == nullptr) return true;
    // No lower bound although values exist: every value is null (or NaN).
    bool all_null = s->contains_null && !s->lower_bound &&
                    !(IsFloating(e.term().type->kind()) && s->contains_nan.value_or(true));
    switch (e.op()) {
      case Operation::kIsNull: return s->contains_null;
      case Operation::kNotNull: return !all_null;
      case Operation::kIsNan:
        if (s->contains_nan.has_value() && !*s->contains_nan) return false;
        return !all_null;
      case Operation::kNotNan:
      case Operation::kNotEq:
      case Operation::kNotIn:
      case Operation::kNotStartsWith: return true;
      default: break;
    }
    std::optional<Literal> lo = Decode(e.term(), s->lower_bound);
    std::optional<Literal> hi = Decode(e.term(), s->upper_bound);
    if (!s->lower_bound && !s->upper_bound) return !all_null;
    const std::vector<Literal>& lits = e.literals();
    switch (e.op()) {
      case Operation::kLt: return !(lo && Compare(*lo, lits[0]) >= 0);
      case Operation::kLtEq: return !(lo && Compare(*lo, lits[0]) > 0);
      case Operation::kGt: return !(hi && Compare(*hi, lits[0]) <= 0);
      case Operation::kGtEq: return !(hi && Compare(*hi, lits[0]) < 0);
      case Operation::kEq:
        return !((lo && Compare(*lo, lits[0]) > 0) || (hi && Compare(*hi, lits[0]) < 0));
      case Operation::kIn: {
        if (lits.size() > kInPredicateLimit) return true;
        for (const Literal& l : lits) {
          if ((!lo || Compare(*lo, l) <= 0) && (!hi || Compare(*hi, l) >= 0)) return true;
        }
        return false;
      }
      case Operation::kStartsWith: {
        const std::string& prefix = lits[0].string_value();
        if (lo) {
          const std::string& v = lo->string_value();
          if (v.compare(0, std::min(v.size(), prefix.size()), prefix) > 0) return false;
        }
        if (hi) {
          const std::string& v = hi->string_value();
          if (v.compare(0, std::min(v.size(), prefix.size()), prefix) < 0) return false;
        }
        return true;
      }
      default: return true;
    }
  }
};

}  // namespace

bool ManifestMayMatch(const BoundExpression& partition_expr, const PartitionSpec& spec,
                      const std::vector<FieldSummaryRef>& summaries) {
  if (summaries.empty()) return true;
  return SummaryEval{spec, summaries}.MayMatch(partition_expr);
}

}  // namespace floe::iceberg
