#include "floe/format/text/decoder.h"

#include <algorithm>
#include <cstring>
#include <limits>

#include "floe/base/macros.h"
#include "floe/format/text/scalar.h"

namespace floe::format::text::internal {

using columnar::ArrayBuilder;
using columnar::BinaryBuilder;
using columnar::BoolBuilder;
using columnar::FixedBinaryBuilder;
using columnar::FixedWidthBuilder;
using columnar::ListBuilder;
using columnar::StructBuilder;
using columnar::TypeId;

namespace {

char Lower(char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c + 32) : c; }

bool EqualsNoCase(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (Lower(a[i]) != Lower(b[i])) return false;
  }
  return true;
}

// A short printable excerpt of untrusted bytes for a message.
std::string Excerpt(std::string_view s) {
  constexpr size_t kMax = 60;
  std::string out;
  for (size_t i = 0; i < s.size() && i < kMax; ++i) {
    auto c = static_cast<unsigned char>(s[i]);
    if (c < 0x20 || c >= 0x7f) {
      out += fmt::format("\\x{:02x}", c);
    } else {
      out.push_back(static_cast<char>(c));
    }
  }
  if (s.size() > kMax) out += "...";
  return out;
}

void AppendUtf8(uint32_t cp, std::string* out) {
  if (cp < 0x80) {
    out->push_back(static_cast<char>(cp));
  } else if (cp < 0x800) {
    out->push_back(static_cast<char>(0xC0 | cp >> 6));
    out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else if (cp < 0x10000) {
    out->push_back(static_cast<char>(0xE0 | cp >> 12));
    out->push_back(static_cast<char>(0x80 | (cp >> 6 & 0x3F)));
    out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else {
    out->push_back(static_cast<char>(0xF0 | cp >> 18));
    out->push_back(static_cast<char>(0x80 | (cp >> 12 & 0x3F)));
    out->push_back(static_cast<char>(0x80 | (cp >> 6 & 0x3F)));
    out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  }
}

int Hex(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

bool IsNumberStart(char c) { return c == '-' || (c >= '0' && c <= '9'); }

const char* Expected(TypeId id) {
  switch (id) {
    case TypeId::kBool: return "a boolean";
    case TypeId::kInt32:
    case TypeId::kInt64: return "an integer";
    case TypeId::kFloat32:
    case TypeId::kFloat64: return "a number";
    case TypeId::kDecimal128: return "a decimal (number or string)";
    case TypeId::kStruct: return "an object";
    case TypeId::kList: return "an array";
    case TypeId::kMap: return "an object or an array of [key, value] pairs";
    case TypeId::kNull: return "null";
    default: return "a string";
  }
}

}  // namespace

RowDecoder::RowDecoder(columnar::SchemaPtr schema, const ReadOptions& options)
    : schema_(std::move(schema)), options_(options) {}

Result<std::unique_ptr<RowDecoder>> RowDecoder::Make(columnar::SchemaPtr schema,
                                                     const ReadOptions& options) {
  std::unique_ptr<RowDecoder> d(new RowDecoder(std::move(schema), options));
  const auto& fields = d->schema_->fields();
  d->root_.id = TypeId::kStruct;
  d->root_.children.resize(fields.size());
  d->root_.seen.resize(fields.size());
  for (size_t i = 0; i < fields.size(); ++i) {
    d->builders_.push_back(columnar::MakeBuilder(fields[i].type));
    FLOE_RETURN_IF_ERROR(d->Build(&d->root_.children[i], fields[i], d->builders_.back().get()));
  }
  return d;
}

Status RowDecoder::Build(Node* node, const columnar::Field& field, ArrayBuilder* builder) {
  node->field = &field;
  node->id = field.type->id();
  node->builder = builder;
  switch (node->id) {
    case TypeId::kNull:
    case TypeId::kBool:
    case TypeId::kInt32:
    case TypeId::kInt64:
    case TypeId::kFloat32:
    case TypeId::kFloat64:
    case TypeId::kDecimal128:
    case TypeId::kDate32:
    case TypeId::kTime64:
    case TypeId::kTimestamp:
    case TypeId::kString:
    case TypeId::kBinary:
    case TypeId::kFixedBinary:
    case TypeId::kUuid: return Status::OK();
    case TypeId::kStruct: {
      auto* sb = static_cast<StructBuilder*>(builder);
      const auto& children = field.type->children();
      node->children.resize(children.size());
      node->seen.resize(children.size());
      for (size_t i = 0; i < children.size(); ++i) {
        FLOE_RETURN_IF_ERROR(Build(&node->children[i], children[i], sb->child(i)));
      }
      return Status::OK();
    }
    case TypeId::kList: {
      auto* lb = static_cast<ListBuilder*>(builder);
      node->children.resize(1);
      return Build(&node->children[0], field.type->child(0), lb->child());
    }
    case TypeId::kMap: {
      auto* lb = static_cast<ListBuilder*>(builder);
      const auto& entries = field.type->child(0);
      node->children.resize(2);
      FLOE_RETURN_IF_ERROR(Build(&node->children[0], entries.type->child(0), lb->key_builder()));
      return Build(&node->children[1], entries.type->child(1), lb->item_builder());
    }
    default:
      return Status::Unimplemented("field \"{}\": type {} has no text form", field.name,
                                   field.type->ToString());
  }
}

columnar::RecordBatch RowDecoder::Finish() {
  std::vector<columnar::Array> columns;
  columns.reserve(builders_.size());
  for (auto& b : builders_) columns.push_back(b->Finish());
  int64_t rows = rows_;
  rows_ = 0;
  return columnar::RecordBatch(schema_, rows, std::move(columns));
}

Status RowDecoder::ValueError(const Path& path, std::string_view expected, std::string_view found) {
  std::vector<const Path*> frames;
  for (const Path* f = &path; f != nullptr; f = f->parent) frames.push_back(f);
  std::string name;
  for (auto it = frames.rbegin(); it != frames.rend(); ++it) {
    if ((*it)->index >= 0) {
      name += fmt::format("[{}]", (*it)->index);
    } else {
      if (!name.empty()) name.push_back('.');
      name += Excerpt((*it)->name);
    }
  }
  return Status::InvalidArgument("line {}, field \"{}\": expected {}, found {}", line_, name,
                                 expected, found);
}

Status RowDecoder::SyntaxError(const Path* path, std::string_view what) {
  std::string found = p_ < end_ ? "\"" + Excerpt(std::string_view(p_, end_ - p_)) + "\""
                                : std::string("the end of the line");
  if (path == nullptr) {
    return Status::InvalidArgument("line {}: malformed JSON: expected {}, found {}", line_, what,
                                   found);
  }
  return ValueError(*path, what, found);
}

Status RowDecoder::AppendNullAt(Node& n, const Path& path, bool missing) {
  if (FLOE_PREDICT_FALSE(!n.field->nullable)) {
    return ValueError(path, "a value (the field is required)", missing ? "none" : "null");
  }
  n.builder->AppendNull();
  return Status::OK();
}

int RowDecoder::FindColumn(std::string_view name) { return Lookup(root_, name); }

int RowDecoder::Lookup(Node& n, std::string_view key) {
  const size_t count = n.children.size();
  if (n.next < count && n.children[n.next].field->name == key) return static_cast<int>(n.next++);
  for (size_t i = 0; i < count; ++i) {
    if (n.children[i].field->name == key) {
      n.next = i + 1;
      return static_cast<int>(i);
    }
  }
  if (options_.case_insensitive) {
    for (size_t i = 0; i < count; ++i) {
      if (EqualsNoCase(n.children[i].field->name, key)) return static_cast<int>(i);
    }
  }
  return -1;
}

Status RowDecoder::AppendNull(size_t c, bool missing) {
  return AppendNullAt(root_.children[c], Path{nullptr, root_.children[c].field->name, -1}, missing);
}

Status RowDecoder::AppendText(size_t c, std::string_view text) {
  return AppendTextAt(root_.children[c], Path{nullptr, root_.children[c].field->name, -1}, text);
}

Status RowDecoder::AppendTextAt(Node& n, const Path& path, std::string_view text) {
  const char* err = nullptr;
  const auto& type = *n.field->type;
  switch (n.id) {
    case TypeId::kBool: {
      bool v;
      if (!(err = ParseBool(text, &v))) static_cast<BoolBuilder*>(n.builder)->Append(v);
      break;
    }
    case TypeId::kInt32: {
      int32_t v;
      if (!(err = ParseInt32(text, &v)))
        static_cast<FixedWidthBuilder<int32_t>*>(n.builder)->Append(v);
      break;
    }
    case TypeId::kInt64: {
      int64_t v;
      if (!(err = ParseInt64(text, &v)))
        static_cast<FixedWidthBuilder<int64_t>*>(n.builder)->Append(v);
      break;
    }
    case TypeId::kFloat32: {
      float v;
      if (!(err = ParseFloat32(text, &v)))
        static_cast<FixedWidthBuilder<float>*>(n.builder)->Append(v);
      break;
    }
    case TypeId::kFloat64: {
      double v;
      if (!(err = ParseFloat64(text, &v)))
        static_cast<FixedWidthBuilder<double>*>(n.builder)->Append(v);
      break;
    }
    case TypeId::kDecimal128: {
      __int128 v;
      if (!(err = ParseDecimal(text, type.precision(), type.scale(), &v))) {
        static_cast<FixedWidthBuilder<__int128>*>(n.builder)->Append(v);
      }
      break;
    }
    case TypeId::kDate32: {
      int32_t v;
      if (!(err = ParseDate(text, &v)))
        static_cast<FixedWidthBuilder<int32_t>*>(n.builder)->Append(v);
      break;
    }
    case TypeId::kTime64: {
      int64_t v;
      if (!(err = ParseTime(text, type.unit(), &v))) {
        static_cast<FixedWidthBuilder<int64_t>*>(n.builder)->Append(v);
      }
      break;
    }
    case TypeId::kTimestamp: {
      int64_t v;
      if (!(err = ParseTimestamp(text, type.unit(), type.utc_adjusted(), &v))) {
        static_cast<FixedWidthBuilder<int64_t>*>(n.builder)->Append(v);
      }
      break;
    }
    case TypeId::kString:
      if (!ValidUtf8(text)) {
        err = "valid UTF-8";
        break;
      }
      static_cast<BinaryBuilder*>(n.builder)->Append(text);
      break;
    case TypeId::kBinary:
      bytes_.clear();
      if (!(err = ParseHex(text, &bytes_))) static_cast<BinaryBuilder*>(n.builder)->Append(bytes_);
      break;
    case TypeId::kFixedBinary:
      bytes_.clear();
      if (!(err = ParseHex(text, &bytes_))) {
        if (bytes_.size() != static_cast<size_t>(type.byte_width())) {
          return ValueError(path, fmt::format("{} bytes as hex", type.byte_width()),
                            fmt::format("{} bytes", bytes_.size()));
        }
        static_cast<FixedBinaryBuilder*>(n.builder)->Append(bytes_);
      }
      break;
    case TypeId::kUuid: {
      char v[16];
      if (!(err = ParseUuid(text, v))) {
        static_cast<FixedBinaryBuilder*>(n.builder)->Append(std::string_view(v, 16));
      }
      break;
    }
    case TypeId::kNull:
    case TypeId::kStruct:
    case TypeId::kList:
    case TypeId::kMap: {
      // A CSV cell of a nested column: JSON text.
      const char* saved_p = p_;
      const char* saved_end = end_;
      p_ = text.data();
      end_ = text.data() + text.size();
      Status st = ParseValue(n, path, 0);
      if (st.ok()) {
        SkipWs();
        if (p_ != end_) st = SyntaxError(&path, "the end of the JSON value");
      }
      p_ = saved_p;
      end_ = saved_end;
      return st;
    }
    default: err = "a supported type"; break;
  }
  if (FLOE_PREDICT_FALSE(err != nullptr)) return ValueError(path, err, "\"" + Excerpt(text) + "\"");
  return Status::OK();
}

Status RowDecoder::DecodeJsonRow(std::string_view text) {
  p_ = text.data();
  end_ = text.data() + text.size();
  SkipWs();
  if (p_ == end_ || *p_ != '{') return SyntaxError(nullptr, "a JSON object");
  FLOE_RETURN_IF_ERROR(ParseObject(root_, nullptr, 0));
  SkipWs();
  if (p_ != end_) return SyntaxError(nullptr, "the end of the line after the object");
  ++rows_;
  return Status::OK();
}

bool RowDecoder::Literal(std::string_view word) {
  if (static_cast<size_t>(end_ - p_) < word.size() ||
      std::memcmp(p_, word.data(), word.size()) != 0) {
    return false;
  }
  p_ += word.size();
  return true;
}

std::string_view RowDecoder::NumberToken() {
  const char* start = p_;
  while (p_ < end_ && ((*p_ >= '0' && *p_ <= '9') || *p_ == '-' || *p_ == '+' || *p_ == '.' ||
                       *p_ == 'e' || *p_ == 'E')) {
    ++p_;
  }
  return {start, static_cast<size_t>(p_ - start)};
}

bool RowDecoder::ParseString(std::string_view* out) {
  const char* start = ++p_;  // past the opening quote
  const char* q = start;
  while (q < end_ && *q != '"' && *q != '\\') ++q;
  if (q == end_) return false;
  if (*q == '"') {
    *out = {start, static_cast<size_t>(q - start)};
    p_ = q + 1;
    return true;
  }
  scratch_.assign(start, q);
  while (q < end_) {
    char c = *q;
    if (c == '"') {
      p_ = q + 1;
      *out = scratch_;
      return true;
    }
    if (c != '\\') {
      const char* run = q;
      while (q < end_ && *q != '"' && *q != '\\') ++q;
      scratch_.append(run, q);
      continue;
    }
    if (++q == end_) return false;
    switch (*q++) {
      case '"': scratch_.push_back('"'); break;
      case '\\': scratch_.push_back('\\'); break;
      case '/': scratch_.push_back('/'); break;
      case 'b': scratch_.push_back('\b'); break;
      case 'f': scratch_.push_back('\f'); break;
      case 'n': scratch_.push_back('\n'); break;
      case 'r': scratch_.push_back('\r'); break;
      case 't': scratch_.push_back('\t'); break;
      case 'u': {
        auto hex4 = [&](uint32_t* v) {
          if (end_ - q < 4) return false;
          *v = 0;
          for (int k = 0; k < 4; ++k) {
            int h = Hex(q[k]);
            if (h < 0) return false;
            *v = *v << 4 | static_cast<uint32_t>(h);
          }
          q += 4;
          return true;
        };
        uint32_t cp;
        if (!hex4(&cp)) return false;
        if (cp >= 0xD800 && cp <= 0xDBFF) {
          uint32_t lo;
          if (end_ - q < 2 || q[0] != '\\' || q[1] != 'u') return false;
          q += 2;
          if (!hex4(&lo) || lo < 0xDC00 || lo > 0xDFFF) return false;
          cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
        } else if (cp >= 0xDC00 && cp <= 0xDFFF) {
          return false;
        }
        AppendUtf8(cp, &scratch_);
        break;
      }
      default: return false;
    }
  }
  return false;
}

bool RowDecoder::SkipValue(int depth) {
  SkipWs();
  if (p_ == end_) return false;
  char c = *p_;
  if (c == '"') {
    std::string_view s;
    return ParseString(&s);
  }
  if (c == '{' || c == '[') {
    if (depth >= options_.max_depth) return false;
    const char close = c == '{' ? '}' : ']';
    ++p_;
    SkipWs();
    if (p_ < end_ && *p_ == close) {
      ++p_;
      return true;
    }
    while (true) {
      if (c == '{') {
        SkipWs();
        std::string_view key;
        if (p_ == end_ || *p_ != '"' || !ParseString(&key)) return false;
        SkipWs();
        if (p_ == end_ || *p_++ != ':') return false;
      }
      if (!SkipValue(depth + 1)) return false;
      SkipWs();
      if (p_ == end_) return false;
      if (*p_ == ',') {
        ++p_;
        continue;
      }
      if (*p_ == close) {
        ++p_;
        return true;
      }
      return false;
    }
  }
  if (IsNumberStart(c)) return !NumberToken().empty();
  return Literal("true") || Literal("false") || Literal("null");
}

Status RowDecoder::TypeMismatch(Node& n, const Path& path, int depth, std::string_view expected) {
  const char* start = p_;
  if (!SkipValue(depth)) {
    p_ = start;
    return SyntaxError(&path, "a JSON value");
  }
  return ValueError(path, expected, Excerpt(std::string_view(start, p_ - start)));
}

Status RowDecoder::ParseValue(Node& n, const Path& path, int depth) {
  SkipWs();
  if (FLOE_PREDICT_FALSE(p_ == end_)) return SyntaxError(&path, "a value");
  const char c = *p_;
  if (c == 'n' && Literal("null")) return AppendNullAt(n, path, false);
  switch (n.id) {
    case TypeId::kBool:
      if (Literal("true")) {
        static_cast<BoolBuilder*>(n.builder)->Append(true);
        return Status::OK();
      }
      if (Literal("false")) {
        static_cast<BoolBuilder*>(n.builder)->Append(false);
        return Status::OK();
      }
      break;
    case TypeId::kInt32:
    case TypeId::kInt64:
      if (IsNumberStart(c)) return AppendTextAt(n, path, NumberToken());
      break;
    case TypeId::kFloat32:
    case TypeId::kFloat64:
      if (IsNumberStart(c)) return AppendTextAt(n, path, NumberToken());
      if (c == '"') {
        const char* start = p_;
        std::string_view s;
        if (!ParseString(&s)) return SyntaxError(&path, "a JSON string");
        if (s == "NaN" || s == "Infinity" || s == "-Infinity") return AppendTextAt(n, path, s);
        p_ = start;
      }
      break;
    case TypeId::kDecimal128:
      if (IsNumberStart(c)) return AppendTextAt(n, path, NumberToken());
      [[fallthrough]];
    case TypeId::kDate32:
    case TypeId::kTime64:
    case TypeId::kTimestamp:
    case TypeId::kString:
    case TypeId::kBinary:
    case TypeId::kFixedBinary:
    case TypeId::kUuid:
      if (c == '"') {
        std::string_view s;
        if (!ParseString(&s)) return SyntaxError(&path, "a JSON string");
        return AppendTextAt(n, path, s);
      }
      break;
    case TypeId::kStruct:
      if (c == '{') return ParseObject(n, &path, depth);
      break;
    case TypeId::kList:
      if (c == '[') return ParseList(n, path, depth);
      break;
    case TypeId::kMap:
      if (c == '{' || c == '[') return ParseMap(n, path, depth);
      break;
    default: break;
  }
  return TypeMismatch(n, path, depth, Expected(n.id));
}

Status RowDecoder::ParseObject(Node& n, const Path* path, int depth) {
  if (FLOE_PREDICT_FALSE(depth >= options_.max_depth)) {
    return SyntaxError(path, fmt::format("nesting at most {} deep", options_.max_depth));
  }
  ++p_;  // '{'
  if (n.builder != nullptr) static_cast<StructBuilder*>(n.builder)->Append();
  std::fill(n.seen.begin(), n.seen.end(), 0);
  n.next = 0;
  SkipWs();
  if (p_ < end_ && *p_ == '}') {
    ++p_;
  } else {
    while (true) {
      SkipWs();
      std::string_view key;
      if (p_ == end_ || *p_ != '"' || !ParseString(&key)) return SyntaxError(path, "a field name");
      SkipWs();
      if (p_ == end_ || *p_ != ':') return SyntaxError(path, "':'");
      ++p_;
      int i = Lookup(n, key);
      if (i < 0) {
        if (!options_.ignore_unknown_fields) {
          std::string name(key);
          return ValueError(Path{path, name, -1}, "a field of the schema", "an unknown field");
        }
        if (!SkipValue(depth + 1)) return SyntaxError(path, "a JSON value");
      } else {
        Node& child = n.children[static_cast<size_t>(i)];
        if (FLOE_PREDICT_FALSE(n.seen[static_cast<size_t>(i)] != 0)) {
          return ValueError(Path{path, child.field->name, -1}, "one value",
                            "the field twice in one object");
        }
        n.seen[static_cast<size_t>(i)] = 1;
        FLOE_RETURN_IF_ERROR(ParseValue(child, Path{path, child.field->name, -1}, depth + 1));
      }
      SkipWs();
      if (p_ < end_ && *p_ == ',') {
        ++p_;
        continue;
      }
      if (p_ < end_ && *p_ == '}') {
        ++p_;
        break;
      }
      return SyntaxError(path, "',' or '}'");
    }
  }
  for (size_t i = 0; i < n.children.size(); ++i) {
    if (n.seen[i] == 0) {
      Node& child = n.children[i];
      FLOE_RETURN_IF_ERROR(AppendNullAt(child, Path{path, child.field->name, -1}, true));
    }
  }
  return Status::OK();
}

Status RowDecoder::ParseList(Node& n, const Path& path, int depth) {
  if (FLOE_PREDICT_FALSE(depth >= options_.max_depth)) {
    return SyntaxError(&path, fmt::format("nesting at most {} deep", options_.max_depth));
  }
  ++p_;  // '['
  auto* lb = static_cast<ListBuilder*>(n.builder);
  lb->Append();
  Node& element = n.children[0];
  SkipWs();
  if (p_ < end_ && *p_ == ']') {
    ++p_;
  } else {
    for (int64_t k = 0;; ++k) {
      if (FLOE_PREDICT_FALSE(lb->child()->length() >= std::numeric_limits<int32_t>::max())) {
        return ValueError(path, "fewer list elements in one batch", "more than 2^31");
      }
      FLOE_RETURN_IF_ERROR(ParseValue(element, Path{&path, {}, k}, depth + 1));
      SkipWs();
      if (p_ < end_ && *p_ == ',') {
        ++p_;
        continue;
      }
      if (p_ < end_ && *p_ == ']') {
        ++p_;
        break;
      }
      return SyntaxError(&path, "',' or ']'");
    }
  }
  lb->Close();
  return Status::OK();
}

Status RowDecoder::ParseMap(Node& n, const Path& path, int depth) {
  if (FLOE_PREDICT_FALSE(depth >= options_.max_depth)) {
    return SyntaxError(&path, fmt::format("nesting at most {} deep", options_.max_depth));
  }
  const bool object = *p_ == '{';
  const char close = object ? '}' : ']';
  ++p_;
  auto* lb = static_cast<ListBuilder*>(n.builder);
  auto* entries = static_cast<StructBuilder*>(lb->child());
  lb->Append();
  Node& key_node = n.children[0];
  Node& value_node = n.children[1];
  SkipWs();
  if (p_ < end_ && *p_ == close) {
    ++p_;
  } else {
    for (int64_t k = 0;; ++k) {
      if (FLOE_PREDICT_FALSE(entries->length() >= std::numeric_limits<int32_t>::max())) {
        return ValueError(path, "fewer map entries in one batch", "more than 2^31");
      }
      const Path entry{&path, {}, k};
      entries->Append();
      SkipWs();
      if (object) {
        std::string_view key;
        if (p_ == end_ || *p_ != '"' || !ParseString(&key)) return SyntaxError(&path, "a key");
        // Keys of other types than string use their text forms.
        FLOE_RETURN_IF_ERROR(AppendTextAt(key_node, Path{&entry, "key", -1}, key));
        SkipWs();
        if (p_ == end_ || *p_ != ':') return SyntaxError(&path, "':'");
        ++p_;
        FLOE_RETURN_IF_ERROR(ParseValue(value_node, Path{&entry, "value", -1}, depth + 1));
      } else {
        if (p_ == end_ || *p_ != '[') return SyntaxError(&entry, "a [key, value] pair");
        ++p_;
        FLOE_RETURN_IF_ERROR(ParseValue(key_node, Path{&entry, "key", -1}, depth + 2));
        SkipWs();
        if (p_ == end_ || *p_ != ',') return SyntaxError(&entry, "',' in a [key, value] pair");
        ++p_;
        FLOE_RETURN_IF_ERROR(ParseValue(value_node, Path{&entry, "value", -1}, depth + 2));
        SkipWs();
        if (p_ == end_ || *p_ != ']') return SyntaxError(&entry, "']' closing a [key, value] pair");
        ++p_;
      }
      SkipWs();
      if (p_ < end_ && *p_ == ',') {
        ++p_;
        continue;
      }
      if (p_ < end_ && *p_ == close) {
        ++p_;
        break;
      }
      return SyntaxError(&path, object ? "',' or '}'" : "',' or ']'");
    }
  }
  lb->Close();
  return Status::OK();
}

}  // namespace floe::format::text::internal
