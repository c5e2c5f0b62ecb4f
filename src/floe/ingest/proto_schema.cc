#include "floe/ingest/proto_schema.h"

#include <cctype>
#include <charconv>
#include <set>

#include "floe/base/macros.h"

namespace floe::ingest::proto {

int WireTypeOf(FieldType type) {
  switch (type) {
    case FieldType::kDouble:
    case FieldType::kFixed64:
    case FieldType::kSFixed64: return 1;
    case FieldType::kFloat:
    case FieldType::kFixed32:
    case FieldType::kSFixed32: return 5;
    case FieldType::kString:
    case FieldType::kBytes:
    case FieldType::kMessage: return 2;
    default: return 0;
  }
}

std::string_view FieldTypeName(FieldType type) {
  static constexpr std::string_view kNames[] = {
      "double",   "float",  "int64",  "uint64", "int32",  "fixed64",
      "fixed32",  "bool",   "string", "bytes",  "uint32", "sfixed32",
      "sfixed64", "sint32", "sint64", "enum",   "message"};
  return kNames[static_cast<size_t>(type)];
}

const std::string* Enum::NameOf(int32_t number) const {
  for (const auto& [name, n] : values) {
    if (n == number) return &name;
  }
  return nullptr;
}

namespace {

constexpr std::string_view kTimestampProto =
    "syntax = \"proto3\"; package google.protobuf; "
    "message Timestamp { int64 seconds = 1; int32 nanos = 2; }";

// The well-known files producers import without registering them as references.
std::string_view BuiltinImport(std::string_view path) {
  if (path == "google/protobuf/timestamp.proto") return kTimestampProto;
  return {};
}

struct Token {
  enum Kind { kIdent, kInt, kFloat, kString, kSymbol, kEnd } kind = kEnd;
  std::string text;
  int line = 0;
};

class Lexer {
 public:
  explicit Lexer(std::string_view text) : text_(text) {}

  Status Next(Token* t) {
    SkipSpaceAndComments();
    t->line = line_;
    t->text.clear();
    if (pos_ >= text_.size()) {
      t->kind = Token::kEnd;
      return Status::OK();
    }
    char c = text_[pos_];
    if (std::isalpha(static_cast<unsigned char>(c)) || c == '_') {
      size_t start = pos_;
      while (pos_ < text_.size() && (std::isalnum(static_cast<unsigned char>(text_[pos_])) ||
                                     text_[pos_] == '_' || text_[pos_] == '.')) {
        ++pos_;
      }
      t->kind = Token::kIdent;
      t->text = std::string(text_.substr(start, pos_ - start));
      return Status::OK();
    }
    if (c == '.' && pos_ + 1 < text_.size() &&
        (std::isalpha(static_cast<unsigned char>(text_[pos_ + 1])) || text_[pos_ + 1] == '_')) {
      // A fully qualified type name.
      size_t start = pos_++;
      while (pos_ < text_.size() && (std::isalnum(static_cast<unsigned char>(text_[pos_])) ||
                                     text_[pos_] == '_' || text_[pos_] == '.')) {
        ++pos_;
      }
      t->kind = Token::kIdent;
      t->text = std::string(text_.substr(start, pos_ - start));
      return Status::OK();
    }
    if (std::isdigit(static_cast<unsigned char>(c)) ||
        ((c == '-' || c == '+' || c == '.') && pos_ + 1 < text_.size() &&
         std::isdigit(static_cast<unsigned char>(text_[pos_ + 1])))) {
      size_t start = pos_++;
      bool is_float = c == '.';
      while (pos_ < text_.size()) {
        char d = text_[pos_];
        if (std::isalnum(static_cast<unsigned char>(d)) || d == '.' ||
            ((d == '-' || d == '+') && (text_[pos_ - 1] == 'e' || text_[pos_ - 1] == 'E'))) {
          is_float |= d == '.' || ((d == 'e' || d == 'E') && !(text_.substr(start, 2) == "0x"));
          ++pos_;
        } else {
          break;
        }
      }
      t->kind = is_float ? Token::kFloat : Token::kInt;
      t->text = std::string(text_.substr(start, pos_ - start));
      return Status::OK();
    }
    if (c == '"' || c == '\'') {
      const char quote = c;
      ++pos_;
      while (true) {
        if (pos_ >= text_.size() || text_[pos_] == '\n') {
          return Status::InvalidArgument("line {}: unterminated string", line_);
        }
        char d = text_[pos_++];
        if (d == quote) break;
        if (d == '\\') {
          if (pos_ >= text_.size()) return Status::InvalidArgument("line {}: bad escape", line_);
          char e = text_[pos_++];
          switch (e) {
            case 'n': t->text += '\n'; break;
            case 't': t->text += '\t'; break;
            case 'r': t->text += '\r'; break;
            case '0': t->text += '\0'; break;
            default: t->text += e; break;
          }
        } else {
          t->text += d;
        }
      }
      t->kind = Token::kString;
      return Status::OK();
    }
    t->kind = Token::kSymbol;
    t->text = std::string(1, c);
    ++pos_;
    return Status::OK();
  }

 private:
  void SkipSpaceAndComments() {
    while (pos_ < text_.size()) {
      char c = text_[pos_];
      if (c == '\n') {
        ++line_;
        ++pos_;
      } else if (std::isspace(static_cast<unsigned char>(c))) {
        ++pos_;
      } else if (c == '/' && pos_ + 1 < text_.size() && text_[pos_ + 1] == '/') {
        while (pos_ < text_.size() && text_[pos_] != '\n') ++pos_;
      } else if (c == '/' && pos_ + 1 < text_.size() && text_[pos_ + 1] == '*') {
        pos_ += 2;
        while (pos_ + 1 < text_.size() && !(text_[pos_] == '*' && text_[pos_ + 1] == '/')) {
          if (text_[pos_] == '\n') ++line_;
          ++pos_;
        }
        pos_ = std::min(text_.size(), pos_ + 2);
      } else {
        break;
      }
    }
  }

  std::string_view text_;
  size_t pos_ = 0;
  int line_ = 1;
};

bool ScalarType(std::string_view name, FieldType* type) {
  static const std::pair<std::string_view, FieldType> kScalars[] = {
      {"double", FieldType::kDouble},     {"float", FieldType::kFloat},
      {"int64", FieldType::kInt64},       {"uint64", FieldType::kUInt64},
      {"int32", FieldType::kInt32},       {"fixed64", FieldType::kFixed64},
      {"fixed32", FieldType::kFixed32},   {"bool", FieldType::kBool},
      {"string", FieldType::kString},     {"bytes", FieldType::kBytes},
      {"uint32", FieldType::kUInt32},     {"sfixed32", FieldType::kSFixed32},
      {"sfixed64", FieldType::kSFixed64}, {"sint32", FieldType::kSInt32},
      {"sint64", FieldType::kSInt64}};
  for (const auto& [n, t] : kScalars) {
    if (n == name) {
      *type = t;
      return true;
    }
  }
  return false;
}

}  // namespace

// Parses one file into messages and enums with unresolved type names, then resolves.
struct ProtoSchema::Builder {
  ProtoSchema* out;
  const std::map<std::string, std::string>* imports;
  std::set<std::string> seen_files;

  struct Pending {
    Message* message;
    size_t field;
    std::string scope;      // the message's full name
    std::string type_name;  // as written
    int line;
  };
  std::vector<Pending> pending;

  Lexer* lex = nullptr;
  Token tok;
  std::string package;

  Status Advance() { return lex->Next(&tok); }
  Status Error(std::string_view what) const {
    return Status::InvalidArgument("line {}: {} (at '{}')", tok.line, what, tok.text);
  }
  bool Is(std::string_view s) const {
    return (tok.kind == Token::kSymbol || tok.kind == Token::kIdent) && tok.text == s;
  }
  Status Expect(std::string_view s) {
    if (!Is(s)) return Error(fmt::format("expected '{}'", s));
    return Advance();
  }
  Result<std::string> Ident() {
    if (tok.kind != Token::kIdent) return Error("expected a name");
    std::string s = tok.text;
    FLOE_RETURN_IF_ERROR(Advance());
    return s;
  }
  Result<int64_t> Integer() {
    if (tok.kind != Token::kInt) return Error("expected an integer");
    std::string_view s = tok.text;
    bool negative = false;
    if (!s.empty() && (s[0] == '-' || s[0] == '+')) {
      negative = s[0] == '-';
      s.remove_prefix(1);
    }
    int base = 10;
    if (s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
      base = 16;
      s.remove_prefix(2);
    } else if (s.size() > 1 && s[0] == '0') {
      base = 8;
      s.remove_prefix(1);
    }
    int64_t v = 0;
    auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v, base);
    if (ec != std::errc() || p != s.data() + s.size()) return Error("bad integer");
    FLOE_RETURN_IF_ERROR(Advance());
    return negative ? -v : v;
  }

  // Skips a statement up to its ';' or a balanced { } block.
  Status SkipStatement() {
    int depth = 0;
    while (tok.kind != Token::kEnd) {
      if (Is("{")) ++depth;
      if (Is("}")) {
        if (--depth <= 0) return Advance();
      }
      if (Is(";") && depth == 0) return Advance();
      FLOE_RETURN_IF_ERROR(Advance());
    }
    return Error("unexpected end of file");
  }

  // Skips `[ ... ]` field options, noting `packed`.
  Status FieldOptions() {
    if (!Is("[")) return Status::OK();
    int depth = 0;
    while (tok.kind != Token::kEnd) {
      if (Is("[")) ++depth;
      if (Is("]") && --depth == 0) return Advance();
      FLOE_RETURN_IF_ERROR(Advance());
    }
    return Error("unterminated field options");
  }

  Message* NewMessage(std::string full_name) {
    out->messages_.push_back(std::make_unique<Message>());
    Message* m = out->messages_.back().get();
    m->full_name = std::move(full_name);
    return m;
  }

  Status ParseFile(std::string_view text, bool top) {
    Lexer file_lexer(text);
    Lexer* saved_lex = lex;
    Token saved_tok = tok;
    std::string saved_package = package;
    lex = &file_lexer;
    package.clear();
    FLOE_RETURN_IF_ERROR(Advance());
    while (tok.kind != Token::kEnd) {
      if (Is(";")) {
        FLOE_RETURN_IF_ERROR(Advance());
      } else if (Is("syntax") || Is("edition")) {
        FLOE_RETURN_IF_ERROR(Advance());
        FLOE_RETURN_IF_ERROR(Expect("="));
        if (tok.kind != Token::kString) return Error("expected a string");
        if (tok.text != "proto3" && tok.text != "proto2") {
          return Error("only proto2 and proto3 syntax are supported");
        }
        FLOE_RETURN_IF_ERROR(Advance());
        FLOE_RETURN_IF_ERROR(Expect(";"));
      } else if (Is("package")) {
        FLOE_RETURN_IF_ERROR(Advance());
        FLOE_ASSIGN_OR_RETURN(package, Ident());
        if (top) out->package_ = package;
        FLOE_RETURN_IF_ERROR(Expect(";"));
      } else if (Is("import")) {
        FLOE_RETURN_IF_ERROR(Advance());
        if (Is("public") || Is("weak")) FLOE_RETURN_IF_ERROR(Advance());
        if (tok.kind != Token::kString) return Error("expected an import path");
        std::string path = tok.text;
        FLOE_RETURN_IF_ERROR(Advance());
        FLOE_RETURN_IF_ERROR(Expect(";"));
        if (seen_files.insert(path).second) {
          std::string_view imported;
          if (auto it = imports->find(path); it != imports->end()) {
            imported = it->second;
          } else {
            imported = BuiltinImport(path);
          }
          if (imported.empty()) {
            return Status::InvalidArgument("import \"{}\" is not among the schema's references",
                                           path);
          }
          std::string copy(imported);  // the lexer points into it while parsing
          FLOE_RETURN_IF_ERROR(ParseFile(copy, false));
        }
      } else if (Is("option")) {
        FLOE_RETURN_IF_ERROR(SkipStatement());
      } else if (Is("message")) {
        FLOE_RETURN_IF_ERROR(Advance());
        FLOE_ASSIGN_OR_RETURN(const Message* m, ParseMessage(package, 0));
        if (top) out->top_level_.push_back(m);
      } else if (Is("enum")) {
        FLOE_RETURN_IF_ERROR(Advance());
        FLOE_RETURN_IF_ERROR(ParseEnum(package));
      } else if (Is("service") || Is("extend")) {
        FLOE_RETURN_IF_ERROR(SkipStatement());
      } else {
        return Error("unexpected token");
      }
    }
    lex = saved_lex;
    tok = saved_tok;
    package = saved_package;
    return Status::OK();
  }

  static std::string Join(const std::string& scope, const std::string& name) {
    return scope.empty() ? name : scope + "." + name;
  }

  Status ParseEnum(const std::string& scope) {
    auto e = std::make_unique<Enum>();
    FLOE_ASSIGN_OR_RETURN(std::string name, Ident());
    e->full_name = Join(scope, name);
    FLOE_RETURN_IF_ERROR(Expect("{"));
    while (!Is("}")) {
      if (tok.kind == Token::kEnd) return Error("unterminated enum");
      if (Is(";")) {
        FLOE_RETURN_IF_ERROR(Advance());
      } else if (Is("option") || Is("reserved")) {
        FLOE_RETURN_IF_ERROR(SkipStatement());
      } else {
        FLOE_ASSIGN_OR_RETURN(std::string symbol, Ident());
        FLOE_RETURN_IF_ERROR(Expect("="));
        FLOE_ASSIGN_OR_RETURN(int64_t number, Integer());
        FLOE_RETURN_IF_ERROR(FieldOptions());
        FLOE_RETURN_IF_ERROR(Expect(";"));
        e->values.emplace_back(std::move(symbol), static_cast<int32_t>(number));
      }
    }
    FLOE_RETURN_IF_ERROR(Advance());
    if (out->enum_by_name_.contains(e->full_name) || out->message_by_name_.contains(e->full_name)) {
      return Status::InvalidArgument("\"{}\" is defined twice", e->full_name);
    }
    out->enum_by_name_[e->full_name] = e.get();
    out->enums_.push_back(std::move(e));
    return Status::OK();
  }

  Status ParseField(Message* m, int32_t oneof_index) {
    Field f;
    f.oneof_index = oneof_index;
    f.has_presence = oneof_index >= 0;
    if (oneof_index < 0) {
      if (Is("repeated")) {
        f.repeated = true;
        FLOE_RETURN_IF_ERROR(Advance());
      } else if (Is("optional") || Is("required")) {
        f.has_presence = true;
        FLOE_RETURN_IF_ERROR(Advance());
      }
    }
    if (Is("group")) return Status::Unimplemented("line {}: groups are not supported", tok.line);
    std::string type_name;
    std::string key_type_name;
    if (Is("map")) {
      FLOE_RETURN_IF_ERROR(Advance());
      FLOE_RETURN_IF_ERROR(Expect("<"));
      FLOE_ASSIGN_OR_RETURN(key_type_name, Ident());
      FLOE_RETURN_IF_ERROR(Expect(","));
      FLOE_ASSIGN_OR_RETURN(type_name, Ident());
      FLOE_RETURN_IF_ERROR(Expect(">"));
      f.is_map = true;
      f.repeated = true;
    } else {
      FLOE_ASSIGN_OR_RETURN(type_name, Ident());
    }
    FLOE_ASSIGN_OR_RETURN(f.name, Ident());
    FLOE_RETURN_IF_ERROR(Expect("="));
    FLOE_ASSIGN_OR_RETURN(int64_t number, Integer());
    if (number < 1 || number > 536870911) return Error("field number out of range");
    f.number = static_cast<int32_t>(number);
    FLOE_RETURN_IF_ERROR(FieldOptions());
    FLOE_RETURN_IF_ERROR(Expect(";"));
    if (f.is_map) {
      // The wire form of a map: repeated <Name>Entry { key = 1; value = 2; }.
      std::string entry_name;
      bool upper = true;
      for (char c : f.name) {
        if (c == '_') {
          upper = true;
          continue;
        }
        entry_name += upper ? static_cast<char>(std::toupper(static_cast<unsigned char>(c))) : c;
        upper = false;
      }
      entry_name += "Entry";
      Message* entry = NewMessage(Join(m->full_name, entry_name));
      entry->map_entry = true;
      // protoc adds the entry as a nested type where the field is declared, so it counts in
      // Confluent's message indexes.
      m->nested.push_back(entry);
      Field key;
      key.name = "key";
      key.number = 1;
      if (!ScalarType(key_type_name, &key.type) || key.type == FieldType::kFloat ||
          key.type == FieldType::kDouble || key.type == FieldType::kBytes) {
        return Status::InvalidArgument("field {}: invalid map key type {}", f.name, key_type_name);
      }
      entry->fields.push_back(key);
      Field value;
      value.name = "value";
      value.number = 2;
      if (!ScalarType(type_name, &value.type)) {
        pending.push_back({entry, 1, m->full_name, type_name, tok.line});
      }
      entry->fields.push_back(value);
      f.type = FieldType::kMessage;
      f.type_name = entry->full_name;
      f.message = entry;
      m->fields.push_back(std::move(f));
      return Status::OK();
    }
    if (!ScalarType(type_name, &f.type)) {
      pending.push_back({m, m->fields.size(), m->full_name, type_name, tok.line});
    }
    m->fields.push_back(std::move(f));
    return Status::OK();
  }

  Result<const Message*> ParseMessage(const std::string& scope, int depth) {
    if (depth >= kMaxMessageDepth) {
      return Error(fmt::format("messages nest deeper than {} levels", kMaxMessageDepth));
    }
    FLOE_ASSIGN_OR_RETURN(std::string name, Ident());
    Message* m = NewMessage(Join(scope, name));
    if (out->message_by_name_.contains(m->full_name) || out->enum_by_name_.contains(m->full_name)) {
      return Status::InvalidArgument("\"{}\" is defined twice", m->full_name);
    }
    out->message_by_name_[m->full_name] = m;
    FLOE_RETURN_IF_ERROR(Expect("{"));
    while (!Is("}")) {
      if (tok.kind == Token::kEnd) return Error("unterminated message");
      if (Is(";")) {
        FLOE_RETURN_IF_ERROR(Advance());
      } else if (Is("option") || Is("reserved") || Is("extensions") || Is("extend")) {
        FLOE_RETURN_IF_ERROR(SkipStatement());
      } else if (Is("message")) {
        FLOE_RETURN_IF_ERROR(Advance());
        FLOE_ASSIGN_OR_RETURN(const Message* nested, ParseMessage(m->full_name, depth + 1));
        m->nested.push_back(nested);
      } else if (Is("enum")) {
        FLOE_RETURN_IF_ERROR(Advance());
        FLOE_RETURN_IF_ERROR(ParseEnum(m->full_name));
      } else if (Is("oneof")) {
        FLOE_RETURN_IF_ERROR(Advance());
        FLOE_ASSIGN_OR_RETURN(std::string oneof, Ident());
        const int32_t index = static_cast<int32_t>(m->oneofs.size());
        m->oneofs.push_back(std::move(oneof));
        FLOE_RETURN_IF_ERROR(Expect("{"));
        while (!Is("}")) {
          if (tok.kind == Token::kEnd) return Error("unterminated oneof");
          if (Is(";")) {
            FLOE_RETURN_IF_ERROR(Advance());
          } else if (Is("option")) {
            FLOE_RETURN_IF_ERROR(SkipStatement());
          } else {
            FLOE_RETURN_IF_ERROR(ParseField(m, index));
          }
        }
        FLOE_RETURN_IF_ERROR(Advance());
      } else {
        FLOE_RETURN_IF_ERROR(ParseField(m, -1));
      }
    }
    FLOE_RETURN_IF_ERROR(Advance());
    return m;
  }

  Status Resolve() {
    for (const Pending& p : pending) {
      Field& f = p.message->fields[p.field];
      std::string name = p.type_name;
      const Message* msg = nullptr;
      const Enum* en = nullptr;
      auto find = [&](const std::string& full) {
        if (auto it = out->message_by_name_.find(full); it != out->message_by_name_.end()) {
          msg = it->second;
          return true;
        }
        if (auto it = out->enum_by_name_.find(full); it != out->enum_by_name_.end()) {
          en = it->second;
          return true;
        }
        return false;
      };
      if (name.starts_with('.')) {
        find(name.substr(1));
      } else {
        // Innermost scope first (Protocol Buffers Language Specification, name resolution).
        std::string scope = p.scope;
        while (true) {
          if (find(Join(scope, name))) break;
          if (scope.empty()) break;
          size_t dot = scope.rfind('.');
          scope = dot == std::string::npos ? std::string() : scope.substr(0, dot);
        }
      }
      if (msg != nullptr) {
        f.type = FieldType::kMessage;
        f.type_name = msg->full_name;
        f.message = msg;
        if (!f.repeated) f.has_presence = true;
      } else if (en != nullptr) {
        f.type = FieldType::kEnum;
        f.type_name = en->full_name;
        f.enumeration = en;
      } else {
        return Status::InvalidArgument("line {}: unknown type \"{}\" of field {}", p.line,
                                       p.type_name, f.name);
      }
    }
    for (auto& m : out->messages_) {
      m->dense_index.clear();
      for (size_t i = 0; i < m->fields.size(); ++i) {
        const int32_t number = m->fields[i].number;
        if (number < 1024) {
          if (m->dense_index.size() <= static_cast<size_t>(number)) {
            m->dense_index.resize(static_cast<size_t>(number) + 1, -1);
          }
          if (m->dense_index[static_cast<size_t>(number)] >= 0) {
            return Status::InvalidArgument("message {}: field number {} is used twice",
                                           m->full_name, number);
          }
          m->dense_index[static_cast<size_t>(number)] = static_cast<int>(i);
        } else if (!m->sparse_index.emplace(number, static_cast<int>(i)).second) {
          return Status::InvalidArgument("message {}: field number {} is used twice", m->full_name,
                                         number);
        }
      }
    }
    return Status::OK();
  }
};

Result<std::unique_ptr<ProtoSchema>> ProtoSchema::Parse(
    std::string_view text, const std::map<std::string, std::string>& imports) {
  std::unique_ptr<ProtoSchema> schema(new ProtoSchema());
  Builder b{schema.get(), &imports, {}, {}, nullptr, {}, {}};
  FLOE_RETURN_IF_ERROR(b.ParseFile(text, true));
  FLOE_RETURN_IF_ERROR(b.Resolve());
  return schema;
}

const Message* ProtoSchema::FindMessage(std::string_view full_name) const {
  auto it = message_by_name_.find(std::string(full_name));
  return it == message_by_name_.end() ? nullptr : it->second;
}

Result<const Message*> ProtoSchema::MessageAt(const std::vector<int32_t>& indexes) const {
  if (indexes.empty()) return Status::InvalidArgument("empty message index path");
  const std::vector<const Message*>* level = &top_level_;
  const Message* m = nullptr;
  for (int32_t i : indexes) {
    if (i < 0 || static_cast<size_t>(i) >= level->size()) {
      return Status::InvalidArgument("message index {} out of range", i);
    }
    m = (*level)[static_cast<size_t>(i)];
    level = &m->nested;
  }
  return m;
}

}  // namespace floe::ingest::proto
