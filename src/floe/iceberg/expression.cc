#include "floe/iceberg/expression.h"

#include <cctype>
#include <utility>

#include "floe/base/macros.h"

namespace floe::iceberg {

std::string_view OperationName(Operation op) {
  switch (op) {
    case Operation::kTrue: return "true";
    case Operation::kFalse: return "false";
    case Operation::kAnd: return "and";
    case Operation::kOr: return "or";
    case Operation::kNot: return "not";
    case Operation::kIsNull: return "is-null";
    case Operation::kNotNull: return "not-null";
    case Operation::kIsNan: return "is-nan";
    case Operation::kNotNan: return "not-nan";
    case Operation::kLt: return "lt";
    case Operation::kLtEq: return "lt-eq";
    case Operation::kGt: return "gt";
    case Operation::kGtEq: return "gt-eq";
    case Operation::kEq: return "eq";
    case Operation::kNotEq: return "not-eq";
    case Operation::kStartsWith: return "starts-with";
    case Operation::kNotStartsWith: return "not-starts-with";
    case Operation::kIn: return "in";
    case Operation::kNotIn: return "not-in";
  }
  return "?";
}

bool IsUnaryPredicate(Operation op) {
  return op == Operation::kIsNull || op == Operation::kNotNull || op == Operation::kIsNan ||
         op == Operation::kNotNan;
}

bool IsLiteralPredicate(Operation op) {
  switch (op) {
    case Operation::kLt:
    case Operation::kLtEq:
    case Operation::kGt:
    case Operation::kGtEq:
    case Operation::kEq:
    case Operation::kNotEq:
    case Operation::kStartsWith:
    case Operation::kNotStartsWith: return true;
    default: return false;
  }
}

bool IsSetPredicate(Operation op) { return op == Operation::kIn || op == Operation::kNotIn; }

Operation Negate(Operation op) {
  switch (op) {
    case Operation::kTrue: return Operation::kFalse;
    case Operation::kFalse: return Operation::kTrue;
    case Operation::kAnd: return Operation::kOr;
    case Operation::kOr: return Operation::kAnd;
    case Operation::kNot: return Operation::kNot;
    case Operation::kIsNull: return Operation::kNotNull;
    case Operation::kNotNull: return Operation::kIsNull;
    case Operation::kIsNan: return Operation::kNotNan;
    case Operation::kNotNan: return Operation::kIsNan;
    case Operation::kLt: return Operation::kGtEq;
    case Operation::kLtEq: return Operation::kGt;
    case Operation::kGt: return Operation::kLtEq;
    case Operation::kGtEq: return Operation::kLt;
    case Operation::kEq: return Operation::kNotEq;
    case Operation::kNotEq: return Operation::kEq;
    case Operation::kStartsWith: return Operation::kNotStartsWith;
    case Operation::kNotStartsWith: return Operation::kStartsWith;
    case Operation::kIn: return Operation::kNotIn;
    case Operation::kNotIn: return Operation::kIn;
  }
  return op;
}

Operation FlipComparison(Operation op) {
  switch (op) {
    case Operation::kLt: return Operation::kGt;
    case Operation::kLtEq: return Operation::kGtEq;
    case Operation::kGt: return Operation::kLt;
    case Operation::kGtEq: return Operation::kLtEq;
    default: return op;
  }
}

namespace {

std::string QuoteString(std::string_view s) {
  std::string out = "'";
  for (char c : s) {
    if (c == '\'') out += '\'';
    out += c;
  }
  out += '\'';
  return out;
}

bool IsPlainIdentifier(std::string_view name) {
  if (name.empty()) return false;
  if (!(std::isalpha(static_cast<unsigned char>(name[0])) || name[0] == '_')) return false;
  for (char c : name) {
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.')) return false;
  }
  return true;
}

std::string QuoteColumn(std::string_view name) {
  if (IsPlainIdentifier(name)) return std::string(name);
  std::string out = "\"";
  for (char c : name) {
    if (c == '"') out += '"';
    out += c;
  }
  out += '"';
  return out;
}

}  // namespace

std::string UnboundLiteral::ToString() const {
  switch (kind) {
    case Kind::kNumber:
    case Kind::kBoolean: return text;
    case Kind::kString: return QuoteString(text);
    case Kind::kTyped:
      if (type_name == "binary") return "x" + QuoteString(text);
      return type_name + " " + QuoteString(text);
  }
  return text;
}

Expression::Expression(Operation op, ExpressionPtr left, ExpressionPtr right, std::string column,
                       std::vector<UnboundLiteral> literals)
    : op_(op),
      left_(std::move(left)),
      right_(std::move(right)),
      column_(std::move(column)),
      literals_(std::move(literals)) {}

ExpressionPtr Expression::True() {
  static const ExpressionPtr kTrueExpr = std::make_shared<Expression>(
      Operation::kTrue, nullptr, nullptr, "", std::vector<UnboundLiteral>{});
  return kTrueExpr;
}

ExpressionPtr Expression::False() {
  static const ExpressionPtr kFalseExpr = std::make_shared<Expression>(
      Operation::kFalse, nullptr, nullptr, "", std::vector<UnboundLiteral>{});
  return kFalseExpr;
}

ExpressionPtr Expression::And(ExpressionPtr left, ExpressionPtr right) {
  if (left->op() == Operation::kFalse || right->op() == Operation::kFalse) return False();
  if (left->op() == Operation::kTrue) return right;
  if (right->op() == Operation::kTrue) return left;
  return std::make_shared<Expression>(Operation::kAnd, std::move(left), std::move(right), "",
                                      std::vector<UnboundLiteral>{});
}

ExpressionPtr Expression::Or(ExpressionPtr left, ExpressionPtr right) {
  if (left->op() == Operation::kTrue || right->op() == Operation::kTrue) return True();
  if (left->op() == Operation::kFalse) return right;
  if (right->op() == Operation::kFalse) return left;
  return std::make_shared<Expression>(Operation::kOr, std::move(left), std::move(right), "",
                                      std::vector<UnboundLiteral>{});
}

ExpressionPtr Expression::Not(ExpressionPtr child) {
  if (child->op() == Operation::kTrue) return False();
  if (child->op() == Operation::kFalse) return True();
  if (child->op() == Operation::kNot) return child->child();
  return std::make_shared<Expression>(Operation::kNot, std::move(child), nullptr, "",
                                      std::vector<UnboundLiteral>{});
}

ExpressionPtr Expression::Predicate(Operation op, std::string column,
                                    std::vector<UnboundLiteral> literals) {
  return std::make_shared<Expression>(op, nullptr, nullptr, std::move(column), std::move(literals));
}

std::string Expression::ToString() const {
  switch (op_) {
    case Operation::kTrue: return "true";
    case Operation::kFalse: return "false";
    case Operation::kAnd: return "(" + left_->ToString() + " AND " + right_->ToString() + ")";
    case Operation::kOr: return "(" + left_->ToString() + " OR " + right_->ToString() + ")";
    case Operation::kNot: return "NOT " + left_->ToString();
    default: break;
  }
  std::string col = QuoteColumn(column_);
  auto lit = [&]() { return literals_.empty() ? std::string("?") : literals_[0].ToString(); };
  switch (op_) {
    case Operation::kIsNull: return col + " IS NULL";
    case Operation::kNotNull: return col + " IS NOT NULL";
    case Operation::kIsNan: return col + " IS NAN";
    case Operation::kNotNan: return col + " IS NOT NAN";
    case Operation::kLt: return col + " < " + lit();
    case Operation::kLtEq: return col + " <= " + lit();
    case Operation::kGt: return col + " > " + lit();
    case Operation::kGtEq: return col + " >= " + lit();
    case Operation::kEq: return col + " = " + lit();
    case Operation::kNotEq: return col + " != " + lit();
    case Operation::kStartsWith: return col + " STARTS WITH " + lit();
    case Operation::kNotStartsWith: return col + " NOT STARTS WITH " + lit();
    case Operation::kIn:
    case Operation::kNotIn: {
      std::string out = col + (op_ == Operation::kIn ? " IN (" : " NOT IN (");
      for (size_t i = 0; i < literals_.size(); ++i) {
        if (i) out += ", ";
        out += literals_[i].ToString();
      }
      return out + ")";
    }
    default: return "?";
  }
}

bool Expression::Equals(const Expression& other) const {
  if (op_ != other.op_ || column_ != other.column_ || literals_ != other.literals_) return false;
  auto same = [](const ExpressionPtr& a, const ExpressionPtr& b) {
    if (!a || !b) return !a && !b;
    return a->Equals(*b);
  };
  return same(left_, other.left_) && same(right_, other.right_);
}

ExpressionPtr RewriteNot(const ExpressionPtr& expr) {
  switch (expr->op()) {
    case Operation::kAnd:
      return Expression::And(RewriteNot(expr->left()), RewriteNot(expr->right()));
    case Operation::kOr: return Expression::Or(RewriteNot(expr->left()), RewriteNot(expr->right()));
    case Operation::kNot: {
      const ExpressionPtr& c = expr->child();
      switch (c->op()) {
        case Operation::kTrue: return Expression::False();
        case Operation::kFalse: return Expression::True();
        case Operation::kNot: return RewriteNot(c->child());
        case Operation::kAnd:
          return Expression::Or(RewriteNot(Expression::Not(c->left())),
                                RewriteNot(Expression::Not(c->right())));
        case Operation::kOr:
          return Expression::And(RewriteNot(Expression::Not(c->left())),
                                 RewriteNot(Expression::Not(c->right())));
        default: return Expression::Predicate(Negate(c->op()), c->column(), c->literals());
      }
    }
    default: return expr;
  }
}

// ---------------------------------------------------------------------------------------
// Parser: recursive descent over a hand-written lexer. Keywords are case-insensitive.

namespace {

enum class Tok : uint8_t { kEnd, kIdent, kQuotedIdent, kNumber, kString, kHexString, kSymbol };

struct Token {
  Tok kind = Tok::kEnd;
  std::string text;  // identifier / unescaped string / number / symbol
  size_t pos = 0;
};

bool IEquals(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (std::tolower(static_cast<unsigned char>(a[i])) !=
        std::tolower(static_cast<unsigned char>(b[i])))
      return false;
  }
  return true;
}

class Lexer {
 public:
  explicit Lexer(std::string_view s) : s_(s) {}

  Result<std::vector<Token>> Run() {
    std::vector<Token> out;
    while (true) {
      while (i_ < s_.size() && std::isspace(static_cast<unsigned char>(s_[i_]))) ++i_;
      Token t;
      t.pos = i_;
      if (i_ >= s_.size()) {
        out.push_back(t);
        return out;
      }
      char c = s_[i_];
      if ((c == 'x' || c == 'X') && i_ + 1 < s_.size() && s_[i_ + 1] == '\'') {
        ++i_;
        FLOE_ASSIGN_OR_RETURN(t.text, Quoted('\''));
        t.kind = Tok::kHexString;
      } else if (std::isalpha(static_cast<unsigned char>(c)) || c == '_') {
        size_t start = i_;
        while (i_ < s_.size() && (std::isalnum(static_cast<unsigned char>(s_[i_])) ||
                                  s_[i_] == '_' || s_[i_] == '.')) {
          ++i_;
        }
        t.kind = Tok::kIdent;
        t.text = std::string(s_.substr(start, i_ - start));
      } else if (std::isdigit(static_cast<unsigned char>(c)) ||
                 ((c == '-' || c == '+' || c == '.') && i_ + 1 < s_.size() &&
                  (std::isdigit(static_cast<unsigned char>(s_[i_ + 1])) || s_[i_ + 1] == '.'))) {
        size_t start = i_;
        if (c == '-' || c == '+') ++i_;
        while (i_ < s_.size() &&
               (std::isdigit(static_cast<unsigned char>(s_[i_])) || s_[i_] == '.')) {
          ++i_;
        }
        if (i_ < s_.size() && (s_[i_] == 'e' || s_[i_] == 'E')) {
          ++i_;
          if (i_ < s_.size() && (s_[i_] == '-' || s_[i_] == '+')) ++i_;
          while (i_ < s_.size() && std::isdigit(static_cast<unsigned char>(s_[i_]))) ++i_;
        }
        t.kind = Tok::kNumber;
        t.text = std::string(s_.substr(start, i_ - start));
      } else if (c == '\'') {
        FLOE_ASSIGN_OR_RETURN(t.text, Quoted('\''));
        t.kind = Tok::kString;
      } else if (c == '"' || c == '`') {
        FLOE_ASSIGN_OR_RETURN(t.text, Quoted(c));
        t.kind = Tok::kQuotedIdent;
      } else {
        static constexpr std::string_view kTwo[] = {"<=", ">=", "!=", "<>", "=="};
        t.kind = Tok::kSymbol;
        bool two = false;
        for (std::string_view sym : kTwo) {
          if (s_.substr(i_, 2) == sym) {
            t.text = std::string(sym);
            i_ += 2;
            two = true;
            break;
          }
        }
        if (!two) {
          if (std::string_view("()=<>,").find(c) == std::string_view::npos) {
            return Status::InvalidArgument("predicate: unexpected character '{}' at position {}", c,
                                           i_ + 1);
          }
          t.text = std::string(1, c);
          ++i_;
        }
      }
      out.push_back(std::move(t));
    }
  }

 private:
  // A quoted token; the quote character doubled inside stands for itself.
  Result<std::string> Quoted(char quote) {
    size_t start = i_;
    ++i_;
    std::string out;
    while (true) {
      if (i_ >= s_.size()) {
        return Status::InvalidArgument("predicate: unterminated {} starting at position {}",
                                       quote == '\'' ? "string" : "quoted name", start + 1);
      }
      if (s_[i_] == quote) {
        if (i_ + 1 < s_.size() && s_[i_ + 1] == quote) {
          out += quote;
          i_ += 2;
          continue;
        }
        ++i_;
        return out;
      }
      out += s_[i_++];
    }
  }

  std::string_view s_;
  size_t i_ = 0;
};

constexpr std::string_view kTypedLiteralNames[] = {"date",        "time",         "timestamp",
                                                   "timestamptz", "timestamp_ns", "timestamptz_ns",
                                                   "uuid",        "decimal"};

class Parser {
 public:
  explicit Parser(std::vector<Token> tokens) : t_(std::move(tokens)) {}

  Result<ExpressionPtr> ParseAll() {
    FLOE_ASSIGN_OR_RETURN(ExpressionPtr e, ParseOr());
    if (Peek().kind != Tok::kEnd) return Unexpected("AND, OR or the end");
    return e;
  }

 private:
  const Token& Peek(size_t ahead = 0) const {
    size_t i = std::min(p_ + ahead, t_.size() - 1);
    return t_[i];
  }
  bool IsKeyword(const Token& t, std::string_view kw) const {
    return t.kind == Tok::kIdent && IEquals(t.text, kw);
  }
  bool AcceptKeyword(std::string_view kw) {
    if (IsKeyword(Peek(), kw)) {
      ++p_;
      return true;
    }
    return false;
  }
  bool AcceptSymbol(std::string_view sym) {
    if (Peek().kind == Tok::kSymbol && Peek().text == sym) {
      ++p_;
      return true;
    }
    return false;
  }
  Status Unexpected(std::string_view expected) const {
    const Token& t = Peek();
    if (t.kind == Tok::kEnd) {
      return Status::InvalidArgument("predicate: expected {} at the end", expected);
    }
    return Status::InvalidArgument("predicate: expected {} at position {}, found '{}'", expected,
                                   t.pos + 1, t.text);
  }

  Result<ExpressionPtr> ParseOr() {
    FLOE_ASSIGN_OR_RETURN(ExpressionPtr left, ParseAnd());
    while (AcceptKeyword("or")) {
      FLOE_ASSIGN_OR_RETURN(ExpressionPtr right, ParseAnd());
      left = Expression::Or(std::move(left), std::move(right));
    }
    return left;
  }

  Result<ExpressionPtr> ParseAnd() {
    FLOE_ASSIGN_OR_RETURN(ExpressionPtr left, ParseNot());
    while (AcceptKeyword("and")) {
      FLOE_ASSIGN_OR_RETURN(ExpressionPtr right, ParseNot());
      left = Expression::And(std::move(left), std::move(right));
    }
    return left;
  }

  Result<ExpressionPtr> ParseNot() {
    if (++depth_ > kMaxDepth) return Status::InvalidArgument("predicate: nested too deeply");
    Result<ExpressionPtr> out = [&]() -> Result<ExpressionPtr> {
      if (AcceptKeyword("not")) {
        FLOE_ASSIGN_OR_RETURN(ExpressionPtr child, ParseNot());
        return Expression::Not(std::move(child));
      }
      return ParsePrimary();
    }();
    --depth_;
    return out;
  }

  Result<ExpressionPtr> ParsePrimary() {
    if (AcceptSymbol("(")) {
      FLOE_ASSIGN_OR_RETURN(ExpressionPtr e, ParseOr());
      if (!AcceptSymbol(")")) return Unexpected("')'");
      return e;
    }
    // true / false alone (not followed by an operator, which would make them literals).
    const Token& t = Peek();
    if ((IsKeyword(t, "true") || IsKeyword(t, "false")) && !StartsOperator(Peek(1))) {
      ++p_;
      return IEquals(t.text, "true") ? Expression::True() : Expression::False();
    }
    return ParsePredicate();
  }

  bool StartsOperator(const Token& t) const {
    if (t.kind == Tok::kSymbol) return t.text != "(" && t.text != ")" && t.text != ",";
    return IsKeyword(t, "is") || IsKeyword(t, "in") || IsKeyword(t, "like") ||
           IsKeyword(t, "between") || IsKeyword(t, "starts") ||
           (IsKeyword(t, "not") && t.kind == Tok::kIdent);
  }

  bool AtColumn() const {
    const Token& t = Peek();
    if (t.kind == Tok::kQuotedIdent) return true;
    if (t.kind != Tok::kIdent) return false;
    if (IsKeyword(t, "true") || IsKeyword(t, "false") || IsKeyword(t, "null")) return false;
    // `date '...'` is a literal, not a column named date.
    if (Peek(1).kind == Tok::kString) {
      for (std::string_view name : kTypedLiteralNames) {
        if (IEquals(t.text, name)) return false;
      }
    }
    return true;
  }

  Result<std::string> ParseColumn() {
    const Token& t = Peek();
    if (t.kind == Tok::kIdent || t.kind == Tok::kQuotedIdent) {
      ++p_;
      return t.text;
    }
    return Unexpected("a column name");
  }

  Result<UnboundLiteral> ParseLiteral() {
    const Token& t = Peek();
    UnboundLiteral lit;
    switch (t.kind) {
      case Tok::kNumber:
        lit.kind = UnboundLiteral::Kind::kNumber;
        lit.text = t.text;
        ++p_;
        return lit;
      case Tok::kString:
        lit.kind = UnboundLiteral::Kind::kString;
        lit.text = t.text;
        ++p_;
        return lit;
      case Tok::kHexString:
        lit.kind = UnboundLiteral::Kind::kTyped;
        lit.type_name = "binary";
        lit.text = t.text;
        ++p_;
        return lit;
      case Tok::kIdent: {
        if (IsKeyword(t, "true") || IsKeyword(t, "false")) {
          lit.kind = UnboundLiteral::Kind::kBoolean;
          lit.text = IEquals(t.text, "true") ? "true" : "false";
          ++p_;
          return lit;
        }
        if (IsKeyword(t, "null")) {
          return Status::InvalidArgument(
              "predicate: NULL is not a value at position {}; use IS NULL or IS NOT NULL",
              t.pos + 1);
        }
        for (std::string_view name : kTypedLiteralNames) {
          if (IEquals(t.text, name) && Peek(1).kind == Tok::kString) {
            lit.kind = UnboundLiteral::Kind::kTyped;
            lit.type_name = std::string(name);
            lit.text = Peek(1).text;
            p_ += 2;
            return lit;
          }
        }
        return Unexpected("a literal");
      }
      default: return Unexpected("a literal");
    }
  }

  Result<ExpressionPtr> ParsePredicate() {
    // Long AND/OR chains build deep trees that later passes walk recursively.
    if (++predicates_ > kMaxPredicates) {
      return Status::InvalidArgument("predicate: more than {} comparisons", kMaxPredicates);
    }
    if (!AtColumn()) {
      // literal op column: `5 < x`.
      FLOE_ASSIGN_OR_RETURN(UnboundLiteral lit, ParseLiteral());
      FLOE_ASSIGN_OR_RETURN(Operation op, ParseComparison());
      FLOE_ASSIGN_OR_RETURN(std::string col, ParseColumn());
      return Expression::Predicate(FlipComparison(op), std::move(col), {std::move(lit)});
    }
    FLOE_ASSIGN_OR_RETURN(std::string col, ParseColumn());
    if (AcceptKeyword("is")) {
      bool negated = AcceptKeyword("not");
      if (AcceptKeyword("null")) {
        return Expression::Predicate(negated ? Operation::kNotNull : Operation::kIsNull, col);
      }
      if (AcceptKeyword("nan")) {
        return Expression::Predicate(negated ? Operation::kNotNan : Operation::kIsNan, col);
      }
      return Unexpected("NULL or NAN");
    }
    bool negated = false;
    if (IsKeyword(Peek(), "not")) {
      ++p_;
      negated = true;
    }
    if (AcceptKeyword("in")) {
      if (!AcceptSymbol("(")) return Unexpected("'('");
      std::vector<UnboundLiteral> values;
      do {
        FLOE_ASSIGN_OR_RETURN(UnboundLiteral v, ParseLiteral());
        values.push_back(std::move(v));
      } while (AcceptSymbol(","));
      if (!AcceptSymbol(")")) return Unexpected("',' or ')'");
      return Expression::Predicate(negated ? Operation::kNotIn : Operation::kIn, col,
                                   std::move(values));
    }
    if (AcceptKeyword("starts")) {
      if (!AcceptKeyword("with")) return Unexpected("WITH");
      FLOE_ASSIGN_OR_RETURN(UnboundLiteral v, ParseLiteral());
      return Expression::Predicate(negated ? Operation::kNotStartsWith : Operation::kStartsWith,
                                   col, {std::move(v)});
    }
    if (AcceptKeyword("like")) {
      // Only prefix patterns map onto Iceberg's starts-with.
      const Token& t = Peek();
      if (t.kind != Tok::kString) return Unexpected("a 'prefix%' pattern");
      std::string_view pattern = t.text;
      if (pattern.empty() || pattern.back() != '%' ||
          pattern.substr(0, pattern.size() - 1).find_first_of("%_") != std::string_view::npos) {
        return Status::InvalidArgument(
            "predicate: LIKE supports only prefix patterns such as 'abc%' (position {})",
            t.pos + 1);
      }
      UnboundLiteral v{UnboundLiteral::Kind::kString,
                       std::string(pattern.substr(0, pattern.size() - 1)), ""};
      ++p_;
      return Expression::Predicate(negated ? Operation::kNotStartsWith : Operation::kStartsWith,
                                   col, {std::move(v)});
    }
    if (AcceptKeyword("between")) {
      FLOE_ASSIGN_OR_RETURN(UnboundLiteral lo, ParseLiteral());
      if (!AcceptKeyword("and")) return Unexpected("AND");
      FLOE_ASSIGN_OR_RETURN(UnboundLiteral hi, ParseLiteral());
      ExpressionPtr range =
          Expression::And(Expression::Predicate(Operation::kGtEq, col, {std::move(lo)}),
                          Expression::Predicate(Operation::kLtEq, col, {std::move(hi)}));
      return negated ? Expression::Not(std::move(range)) : range;
    }
    if (negated) return Unexpected("IN, LIKE, BETWEEN or STARTS WITH after NOT");
    FLOE_ASSIGN_OR_RETURN(Operation op, ParseComparison());
    FLOE_ASSIGN_OR_RETURN(UnboundLiteral v, ParseLiteral());
    return Expression::Predicate(op, std::move(col), {std::move(v)});
  }

  Result<Operation> ParseComparison() {
    const Token& t = Peek();
    if (t.kind == Tok::kSymbol) {
      static const std::pair<std::string_view, Operation> kOps[] = {
          {"=", Operation::kEq},     {"==", Operation::kEq},  {"!=", Operation::kNotEq},
          {"<>", Operation::kNotEq}, {"<", Operation::kLt},   {"<=", Operation::kLtEq},
          {">", Operation::kGt},     {">=", Operation::kGtEq}};
      for (const auto& [sym, op] : kOps) {
        if (t.text == sym) {
          ++p_;
          return op;
        }
      }
    }
    return Unexpected("a comparison (=, !=, <, <=, >, >=), IS, IN, LIKE or BETWEEN");
  }

  static constexpr int kMaxDepth = 256;
  static constexpr int kMaxPredicates = 4096;
  std::vector<Token> t_;
  int predicates_ = 0;
  size_t p_ = 0;
  int depth_ = 0;
};

}  // namespace

Result<ExpressionPtr> ParseExpression(std::string_view text) {
  FLOE_ASSIGN_OR_RETURN(std::vector<Token> tokens, Lexer(text).Run());
  if (tokens.size() == 1) return Status::InvalidArgument("predicate: empty expression");
  return Parser(std::move(tokens)).ParseAll();
}

}  // namespace floe::iceberg
