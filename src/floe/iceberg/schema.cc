#include "floe/iceberg/schema.h"

#include <algorithm>
#include <cctype>
#include <unordered_map>

#include <fmt/format.h>

#include "floe/base/macros.h"
#include "floe/iceberg/json_util.h"

namespace floe::iceberg {

using internal::Json;
namespace col = floe::columnar;

struct Schema::Index {
  struct Entry {
    const NestedField* field = nullptr;
    std::optional<int32_t> parent;
    std::string full_name;
  };
  std::unordered_map<int32_t, Entry> by_id;
  std::vector<int32_t> order;  // depth-first
  std::unordered_map<std::string, int32_t> by_name;
  std::unordered_map<std::string, int32_t> by_lower_name;
  int32_t highest_id = 0;
};

namespace {

std::string Lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

struct IndexBuilder {
  Schema::Index* index;
  Status status;
  // Added after all full names, which win over a short name that collides with them.
  std::vector<std::pair<std::string, int32_t>> short_names;

  void AddShortNames() {
    for (const auto& [name, id] : short_names) AddName(name, id);
  }

  void AddName(const std::string& name, int32_t id) {
    index->by_name.emplace(name, id);
    index->by_lower_name.emplace(Lower(name), id);
  }

  // Visits the children of `type`; `full` / `short_prefix` are the names of the container.
  void Visit(const Type& type, std::optional<int32_t> parent, const std::string& full,
             const std::string& short_prefix, int depth) {
    if (!status.ok()) return;
    if (depth > 100) {
      status = Status::InvalidArgument("schema nested too deeply");
      return;
    }
    if (type.kind() == TypeKind::kStruct) {
      for (size_t i = 0; i < type.fields().size(); ++i) {
        for (size_t j = 0; j < i; ++j) {
          if (type.fields()[j].name == type.fields()[i].name) {
            status = Status::InvalidArgument(
                "duplicate field name '{}'",
                full.empty() ? type.fields()[i].name : full + "." + type.fields()[i].name);
            return;
          }
        }
      }
    }
    for (const NestedField& f : type.fields()) {
      if (f.type == nullptr) {
        status = Status::InvalidArgument("field '{}' has no type", f.name);
        return;
      }
      std::string name = full.empty() ? f.name : full + "." + f.name;
      std::string short_name = short_prefix.empty() ? f.name : short_prefix + "." + f.name;
      auto [it, inserted] = index->by_id.emplace(f.id, Schema::Index::Entry{&f, parent, name});
      if (!inserted) {
        status = Status::InvalidArgument("duplicate field id {} ('{}' and '{}')", f.id,
                                         it->second.full_name, name);
        return;
      }
      index->order.push_back(f.id);
      index->highest_id = std::max(index->highest_id, f.id);
      AddName(name, f.id);
      // A list element / map value that is a struct may be skipped in short names.
      bool skippable = (type.kind() == TypeKind::kList ||
                        (type.kind() == TypeKind::kMap && f.name == "value")) &&
                       f.type->kind() == TypeKind::kStruct;
      std::string child_short = skippable ? short_prefix : short_name;
      if (short_name != name) short_names.emplace_back(short_name, f.id);
      if (f.type->is_nested()) Visit(*f.type, f.id, name, child_short, depth + 1);
    }
  }
};

using Index = Schema::Index;

}  // namespace

Schema::Schema() : struct_(StructType({})), index_(std::make_shared<Index>()) {}

Schema::Schema(TypePtr st, int32_t schema_id, std::vector<int32_t> identifier_field_ids,
               std::shared_ptr<const Index> index)
    : struct_(std::move(st)),
      schema_id_(schema_id),
      identifier_field_ids_(std::move(identifier_field_ids)),
      index_(std::move(index)) {}

Result<Schema> Schema::Make(std::vector<NestedField> fields, int32_t schema_id,
                            std::vector<int32_t> identifier_field_ids) {
  TypePtr st = StructType(std::move(fields));
  auto index = std::make_shared<Index>();
  IndexBuilder b{index.get(), Status::OK(), {}};
  b.Visit(*st, std::nullopt, "", "", 0);
  FLOE_RETURN_IF_ERROR(b.status);
  b.AddShortNames();
  for (int32_t id : identifier_field_ids) {
    if (!index->by_id.contains(id)) {
      return Status::InvalidArgument("identifier field id {} is not in the schema", id);
    }
  }
  return Schema(std::move(st), schema_id, std::move(identifier_field_ids), std::move(index));
}

const NestedField* Schema::FindField(int32_t id) const {
  auto it = index_->by_id.find(id);
  return it == index_->by_id.end() ? nullptr : it->second.field;
}

const NestedField* Schema::FindFieldByName(std::string_view name, bool case_sensitive) const {
  const auto& map = case_sensitive ? index_->by_name : index_->by_lower_name;
  auto it = map.find(case_sensitive ? std::string(name) : Lower(name));
  return it == map.end() ? nullptr : FindField(it->second);
}

std::optional<std::string> Schema::FindColumnName(int32_t id) const {
  auto it = index_->by_id.find(id);
  if (it == index_->by_id.end()) return std::nullopt;
  return it->second.full_name;
}

std::optional<int32_t> Schema::FindParentId(int32_t id) const {
  auto it = index_->by_id.find(id);
  if (it == index_->by_id.end()) return std::nullopt;
  return it->second.parent;
}

int32_t Schema::highest_field_id() const { return index_->highest_id; }

std::vector<int32_t> Schema::AllFieldIds() const { return index_->order; }

Schema Schema::WithSchemaId(int32_t schema_id) const {
  return Schema(struct_, schema_id, identifier_field_ids_, index_);
}

bool Schema::SameSchema(const Schema& other) const {
  return struct_->Equals(*other.struct_) && identifier_field_ids_ == other.identifier_field_ids_;
}

bool Schema::Equals(const Schema& other) const {
  return schema_id_ == other.schema_id_ && SameSchema(other);
}

std::string Schema::ToString() const {
  std::string s = "table {";
  for (const auto& f : fields()) s += "\n  " + f.ToString();
  return s + "\n}";
}

namespace {

col::DataTypePtr ToColumnarType(const Type& t);

col::Field ToColumnarField(const NestedField& f) {
  return col::Field(f.name, ToColumnarType(*f.type), !f.required, f.id);
}

col::DataTypePtr ToColumnarType(const Type& t) {
  switch (t.kind()) {
    case TypeKind::kBoolean: return col::Bool();
    case TypeKind::kInt: return col::Int32();
    case TypeKind::kLong: return col::Int64();
    case TypeKind::kFloat: return col::Float32();
    case TypeKind::kDouble: return col::Float64();
    case TypeKind::kDecimal: return col::Decimal128(t.precision(), t.scale());
    case TypeKind::kDate: return col::Date32();
    case TypeKind::kTime: return col::Time(col::TimeUnit::kMicro);
    case TypeKind::kTimestamp: return col::Timestamp(col::TimeUnit::kMicro, false);
    case TypeKind::kTimestampTz: return col::Timestamp(col::TimeUnit::kMicro, true);
    case TypeKind::kTimestampNs: return col::Timestamp(col::TimeUnit::kNano, false);
    case TypeKind::kTimestampTzNs: return col::Timestamp(col::TimeUnit::kNano, true);
    case TypeKind::kString: return col::String();
    case TypeKind::kUuid: return col::Uuid();
    case TypeKind::kFixed: return col::FixedBinary(t.length());
    case TypeKind::kBinary: return col::Binary();
    case TypeKind::kUnknown: return col::Null();
    case TypeKind::kStruct: {
      std::vector<col::Field> fields;
      fields.reserve(t.fields().size());
      for (const auto& f : t.fields()) fields.push_back(ToColumnarField(f));
      return col::Struct(std::move(fields));
    }
    case TypeKind::kList: return col::List(ToColumnarField(t.element()));
    case TypeKind::kMap: return col::Map(ToColumnarField(t.key()), ToColumnarField(t.value()));
  }
  return col::Null();
}

Result<NestedField> FromColumnarField(const col::Field& f, int depth);

Result<TypePtr> FromColumnarType(const col::DataType& t, int depth) {
  if (depth > 100) return Status::InvalidArgument("schema nested too deeply");
  switch (t.id()) {
    case col::TypeId::kNull: return UnknownType();
    case col::TypeId::kBool: return BooleanType();
    case col::TypeId::kInt8:
    case col::TypeId::kInt16:
    case col::TypeId::kUInt8:
    case col::TypeId::kUInt16:
    case col::TypeId::kInt32: return IntType();
    case col::TypeId::kUInt32:
    case col::TypeId::kInt64: return LongType();
    case col::TypeId::kFloat16:
    case col::TypeId::kFloat32: return FloatType();
    case col::TypeId::kFloat64: return DoubleType();
    case col::TypeId::kDecimal128:
      if (t.precision() < 1 || t.precision() > 38 || t.scale() < 0 || t.scale() > t.precision()) {
        return Status::InvalidArgument("decimal({}, {}) has no Iceberg type", t.precision(),
                                       t.scale());
      }
      return DecimalType(t.precision(), t.scale());
    case col::TypeId::kDate32: return DateType();
    case col::TypeId::kTime32:
    case col::TypeId::kTime64:
      if (t.unit() == col::TimeUnit::kNano) {
        return Status::InvalidArgument("time with nanosecond unit has no Iceberg type");
      }
      return TimeType();
    case col::TypeId::kTimestamp:
      switch (t.unit()) {
        case col::TimeUnit::kNano:
          return t.utc_adjusted() ? TimestampTzNsType() : TimestampNsType();
        case col::TimeUnit::kMicro:
        case col::TimeUnit::kMilli: return t.utc_adjusted() ? TimestampTzType() : TimestampType();
        case col::TimeUnit::kSecond:
          return Status::InvalidArgument("timestamp with second unit has no Iceberg type");
      }
      break;
    case col::TypeId::kString: return StringType();
    case col::TypeId::kBinary: return BinaryType();
    case col::TypeId::kFixedBinary:
      if (t.byte_width() < 1) return Status::InvalidArgument("fixed binary of width < 1");
      return FixedType(t.byte_width());
    case col::TypeId::kUuid: return UuidType();
    case col::TypeId::kStruct: {
      std::vector<NestedField> fields;
      for (const auto& c : t.children()) {
        FLOE_ASSIGN_OR_RETURN(auto f, FromColumnarField(c, depth + 1));
        fields.push_back(std::move(f));
      }
      return StructType(std::move(fields));
    }
    case col::TypeId::kList: {
      if (t.children().size() != 1) return Status::InvalidArgument("list without an element");
      FLOE_ASSIGN_OR_RETURN(auto e, FromColumnarField(t.child(0), depth + 1));
      return ListType(std::move(e));
    }
    case col::TypeId::kMap: {
      if (t.children().size() != 1 || t.child(0).type == nullptr ||
          t.child(0).type->children().size() != 2) {
        return Status::InvalidArgument("map without key and value");
      }
      const auto& entries = *t.child(0).type;
      FLOE_ASSIGN_OR_RETURN(auto k, FromColumnarField(entries.child(0), depth + 1));
      FLOE_ASSIGN_OR_RETURN(auto v, FromColumnarField(entries.child(1), depth + 1));
      return MapType(std::move(k), std::move(v));
    }
    default: break;
  }
  return Status::InvalidArgument("columnar type {} has no Iceberg type", t.ToString());
}

Result<NestedField> FromColumnarField(const col::Field& f, int depth) {
  if (!f.field_id) return Status::InvalidArgument("column '{}' has no field id", f.name);
  if (f.type == nullptr) return Status::InvalidArgument("column '{}' has no type", f.name);
  auto t = FromColumnarType(*f.type, depth);
  if (!t.ok()) return t.status().WithContext("column '{}'", f.name);
  NestedField out;
  out.id = *f.field_id;
  out.name = f.name;
  out.type = std::move(*t);
  out.required = !f.nullable;
  return out;
}

}  // namespace

col::DataTypePtr ColumnarTypeOf(const Type& type) { return ToColumnarType(type); }
col::Field ColumnarFieldOf(const NestedField& field) { return ToColumnarField(field); }

col::Schema Schema::ToColumnar() const {
  std::vector<col::Field> fields;
  fields.reserve(this->fields().size());
  for (const auto& f : this->fields()) fields.push_back(ToColumnarField(f));
  return col::Schema(std::move(fields));
}

Result<Schema> Schema::FromColumnar(const col::Schema& schema, int32_t schema_id) {
  std::vector<NestedField> fields;
  for (const auto& c : schema.fields()) {
    FLOE_ASSIGN_OR_RETURN(auto f, FromColumnarField(c, 0));
    fields.push_back(std::move(f));
  }
  return Make(std::move(fields), schema_id);
}

namespace {

Status CheckProposedType(const Type& type, const std::string& path);

Status CheckProposedField(const NestedField& f, const std::string& path, bool named) {
  if (named && f.name.empty()) {
    return Status::InvalidArgument("field {} of {} has an empty name", f.id,
                                   path.empty() ? "the schema" : "'" + path + "'");
  }
  // A list element or map key / value has no name of its own: `path` already says which.
  const std::string where = !named ? path : path.empty() ? f.name : path + "." + f.name;
  if (f.id <= 0) {
    return Status::InvalidArgument("field '{}' has id {}: field ids start at 1", where, f.id);
  }
  return f.type ? CheckProposedType(*f.type, where) : Status::OK();
}

Status CheckProposedType(const Type& type, const std::string& path) {
  switch (type.kind()) {
    case TypeKind::kStruct:
      for (const NestedField& f : type.fields()) {
        FLOE_RETURN_IF_ERROR(CheckProposedField(f, path, true));
      }
      return Status::OK();
    case TypeKind::kList: return CheckProposedField(type.element(), path + ".element", false);
    case TypeKind::kMap:
      FLOE_RETURN_IF_ERROR(CheckProposedField(type.key(), path + ".key", false));
      return CheckProposedField(type.value(), path + ".value", false);
    default: return Status::OK();
  }
}

}  // namespace

Status CheckProposedSchema(const Schema& schema) {
  for (const NestedField& f : schema.fields()) {
    FLOE_RETURN_IF_ERROR(CheckProposedField(f, "", true));
  }
  return Status::OK();
}

Result<Schema> SchemaFromJsonValue(const Json& json) {
  if (!json.is_object()) return Status::InvalidArgument("a schema must be a JSON object");
  FLOE_ASSIGN_OR_RETURN(auto st, TypeFromJsonValue(json));
  if (st->kind() != TypeKind::kStruct) return Status::InvalidArgument("a schema must be a struct");
  FLOE_ASSIGN_OR_RETURN(auto id, internal::GetOptionalInt32(json, "schema-id"));
  std::vector<int32_t> ids;
  auto it = json.find("identifier-field-ids");
  if (it != json.end() && !it->is_null()) {
    if (!it->is_array()) {
      return Status::InvalidArgument("'identifier-field-ids' must be an array");
    }
    for (const Json& v : *it) {
      FLOE_ASSIGN_OR_RETURN(int32_t x, internal::AsInt32(v, "identifier-field-ids"));
      ids.push_back(x);
    }
  }
  return Schema::Make(st->fields(), id.value_or(0), std::move(ids));
}

Result<Schema> SchemaFromJson(std::string_view json_text) {
  FLOE_ASSIGN_OR_RETURN(Json j, internal::ParseJson(json_text, "schema"));
  return SchemaFromJsonValue(j);
}

Json SchemaToJsonValue(const Schema& schema) {
  Json j = TypeToJsonValue(*schema.as_struct());
  j["schema-id"] = schema.schema_id();
  if (!schema.identifier_field_ids().empty()) {
    j["identifier-field-ids"] = schema.identifier_field_ids();
  }
  return j;
}

std::string SchemaToJson(const Schema& schema) { return internal::Dump(SchemaToJsonValue(schema)); }

TypePtr AssignFreshIds(const Type& type, const std::function<int32_t()>& next_id) {
  switch (type.kind()) {
    case TypeKind::kStruct: {
      std::vector<NestedField> fields = type.fields();
      for (auto& f : fields) f.id = next_id();  // this struct's fields first
      for (auto& f : fields) f.type = AssignFreshIds(*f.type, next_id);
      return StructType(std::move(fields));
    }
    case TypeKind::kList: {
      NestedField e = type.element();
      e.id = next_id();
      e.type = AssignFreshIds(*e.type, next_id);
      return ListType(std::move(e));
    }
    case TypeKind::kMap: {
      NestedField k = type.key(), v = type.value();
      k.id = next_id();
      v.id = next_id();
      k.type = AssignFreshIds(*k.type, next_id);
      v.type = AssignFreshIds(*v.type, next_id);
      return MapType(std::move(k), std::move(v));
    }
    default: return std::make_shared<const Type>(type);
  }
}

Result<Schema> AssignFreshIds(const Schema& schema, const std::function<int32_t()>& next_id,
                              int32_t schema_id) {
  TypePtr st = AssignFreshIds(*schema.as_struct(), next_id);
  FLOE_ASSIGN_OR_RETURN(auto fresh, Schema::Make(st->fields(), schema_id));
  std::vector<int32_t> ids;
  for (int32_t old_id : schema.identifier_field_ids()) {
    auto name = schema.FindColumnName(old_id);
    const NestedField* f = name ? fresh.FindFieldByName(*name) : nullptr;
    if (f == nullptr) return Status::Internal("identifier field {} lost its name", old_id);
    ids.push_back(f->id);
  }
  return Schema::Make(st->fields(), schema_id, std::move(ids));
}

namespace {

// Recursive-descent parser for the CLI schema text. Ids are placeholders (0) until
// AssignFreshIds runs over the result.
class TextParser {
 public:
  explicit TextParser(std::string_view text) : text_(text) {}

  Result<std::vector<NestedField>> Columns(char terminator) {
    std::vector<NestedField> out;
    while (true) {
      FLOE_ASSIGN_OR_RETURN(auto f, Column());
      out.push_back(std::move(f));
      SkipSpace();
      if (Peek() == ',') {
        ++pos_;
        continue;
      }
      if (Peek() == terminator) return out;
      return Error(terminator == '\0' ? "expected ',' or the end" : "expected ',' or '>'");
    }
  }

  Result<TypePtr> TypeSpec() {
    struct DepthGuard {
      int* d;
      ~DepthGuard() { --*d; }
    } guard{&depth_};
    if (++depth_ > 50) return Error("types nested too deeply");
    SkipSpace();
    size_t start = pos_;
    std::string word = Lower(Word());
    if (word.empty()) return Error("expected a type");
    if (word == "struct") {
      FLOE_RETURN_IF_ERROR(Expect('<'));
      SkipSpace();
      std::vector<NestedField> fields;
      if (Peek() != '>') {
        FLOE_ASSIGN_OR_RETURN(fields, Columns('>'));
      }
      FLOE_RETURN_IF_ERROR(Expect('>'));
      return StructType(std::move(fields));
    }
    if (word == "list" || word == "array") {
      FLOE_RETURN_IF_ERROR(Expect('<'));
      FLOE_ASSIGN_OR_RETURN(auto e, TypeSpec());
      bool required = NotNull();
      FLOE_RETURN_IF_ERROR(Expect('>'));
      return ListType(0, std::move(e), required);
    }
    if (word == "map") {
      FLOE_RETURN_IF_ERROR(Expect('<'));
      FLOE_ASSIGN_OR_RETURN(auto k, TypeSpec());
      NotNull();  // keys are always required
      FLOE_RETURN_IF_ERROR(Expect(','));
      FLOE_ASSIGN_OR_RETURN(auto v, TypeSpec());
      bool required = NotNull();
      FLOE_RETURN_IF_ERROR(Expect('>'));
      return MapType(0, std::move(k), 0, std::move(v), required);
    }
    if (word == "integer") return IntType();
    if (word == "bigint") return LongType();
    if (word == "decimal" || word == "fixed") {
      SkipSpace();
      char open = word == "decimal" ? '(' : '[';
      char close = word == "decimal" ? ')' : ']';
      if (Peek() != open) return Error(word == "decimal" ? "expected '('" : "expected '['");
      size_t end = text_.find(close, pos_);
      if (end == std::string_view::npos) return Error("unterminated type parameters");
      pos_ = end + 1;
    }
    auto t = PrimitiveTypeFromString(text_.substr(start, pos_ - start));
    if (!t.ok()) return t.status().WithContext("at offset {}", start);
    return t;
  }

  Status Finish() {
    SkipSpace();
    if (pos_ != text_.size()) return Error("unexpected text");
    return Status::OK();
  }

 private:
  Result<NestedField> Column() {
    SkipSpace();
    std::string name;
    if (Peek() == '`') {
      size_t end = text_.find('`', pos_ + 1);
      if (end == std::string_view::npos) return Error("unterminated quoted name");
      name = std::string(text_.substr(pos_ + 1, end - pos_ - 1));
      pos_ = end + 1;
    } else {
      name = Word();
    }
    if (name.empty()) return Error("expected a column name");
    FLOE_ASSIGN_OR_RETURN(auto type, TypeSpec());
    NestedField f;
    f.name = std::move(name);
    f.type = std::move(type);
    f.required = NotNull();
    SkipSpace();
    size_t save = pos_;
    if (Lower(Word()) == "comment") {
      SkipSpace();
      if (Peek() != '\'') return Error("expected a quoted comment");
      size_t end = text_.find('\'', pos_ + 1);
      if (end == std::string_view::npos) return Error("unterminated comment");
      f.doc = std::string(text_.substr(pos_ + 1, end - pos_ - 1));
      pos_ = end + 1;
    } else {
      pos_ = save;
    }
    return f;
  }

  // Consumes "not null" or "required"; returns whether it was there.
  bool NotNull() {
    SkipSpace();
    size_t save = pos_;
    std::string w = Lower(Word());
    if (w == "required") return true;
    if (w == "not") {
      SkipSpace();
      if (Lower(Word()) == "null") return true;
    }
    pos_ = save;
    return false;
  }

  std::string Word() {
    size_t start = pos_;
    while (pos_ < text_.size() &&
           (std::isalnum(static_cast<unsigned char>(text_[pos_])) || text_[pos_] == '_')) {
      ++pos_;
    }
    return std::string(text_.substr(start, pos_ - start));
  }

  void SkipSpace() {
    while (pos_ < text_.size() && std::isspace(static_cast<unsigned char>(text_[pos_]))) ++pos_;
  }
  char Peek() const { return pos_ < text_.size() ? text_[pos_] : '\0'; }
  Status Expect(char c) {
    SkipSpace();
    if (Peek() != c) return Error(fmt::format("expected '{}'", c));
    ++pos_;
    return Status::OK();
  }
  Status Error(std::string_view what) const {
    return Status::InvalidArgument("schema text, offset {}: {}", pos_, what);
  }

  std::string_view text_;
  size_t pos_ = 0;
  int depth_ = 0;
};

std::function<int32_t()> Counter(int32_t* next) {
  return [next]() { return (*next)++; };
}

}  // namespace

Result<Schema> ParseSchemaText(std::string_view text) {
  TextParser p(text);
  FLOE_ASSIGN_OR_RETURN(auto fields, p.Columns('\0'));
  FLOE_RETURN_IF_ERROR(p.Finish());
  int32_t next = 1;
  TypePtr st = AssignFreshIds(*StructType(std::move(fields)), Counter(&next));
  return Schema::Make(st->fields());
}

Result<TypePtr> ParseTypeText(std::string_view text) {
  TextParser p(text);
  FLOE_ASSIGN_OR_RETURN(auto t, p.TypeSpec());
  FLOE_RETURN_IF_ERROR(p.Finish());
  int32_t next = 1;
  return AssignFreshIds(*t, Counter(&next));
}

}  // namespace floe::iceberg
