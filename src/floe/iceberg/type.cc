#include "floe/iceberg/type.h"

#include <cctype>
#include <charconv>

#include <fmt/format.h>

#include "floe/base/macros.h"
#include "floe/iceberg/json_util.h"

namespace floe::iceberg {

using internal::Json;

std::string_view TypeKindName(TypeKind kind) {
  switch (kind) {
    case TypeKind::kBoolean: return "boolean";
    case TypeKind::kInt: return "int";
    case TypeKind::kLong: return "long";
    case TypeKind::kFloat: return "float";
    case TypeKind::kDouble: return "double";
    case TypeKind::kDecimal: return "decimal";
    case TypeKind::kDate: return "date";
    case TypeKind::kTime: return "time";
    case TypeKind::kTimestamp: return "timestamp";
    case TypeKind::kTimestampTz: return "timestamptz";
    case TypeKind::kTimestampNs: return "timestamp_ns";
    case TypeKind::kTimestampTzNs: return "timestamptz_ns";
    case TypeKind::kString: return "string";
    case TypeKind::kUuid: return "uuid";
    case TypeKind::kFixed: return "fixed";
    case TypeKind::kBinary: return "binary";
    case TypeKind::kUnknown: return "unknown";
    case TypeKind::kStruct: return "struct";
    case TypeKind::kList: return "list";
    case TypeKind::kMap: return "map";
  }
  return "?";
}

NestedField NestedField::Optional(int32_t id, std::string name, TypePtr type, std::string doc) {
  NestedField f;
  f.id = id;
  f.name = std::move(name);
  f.type = std::move(type);
  f.required = false;
  f.doc = std::move(doc);
  return f;
}

NestedField NestedField::Required(int32_t id, std::string name, TypePtr type, std::string doc) {
  NestedField f = Optional(id, std::move(name), std::move(type), std::move(doc));
  f.required = true;
  return f;
}

namespace {
bool OptionalLiteralEquals(const std::optional<Literal>& a, const std::optional<Literal>& b) {
  if (a.has_value() != b.has_value()) return false;
  return !a || *a == *b;
}
}  // namespace

bool NestedField::Equals(const NestedField& other) const {
  if (id != other.id || name != other.name || required != other.required || doc != other.doc) {
    return false;
  }
  if ((type == nullptr) != (other.type == nullptr)) return false;
  if (type && !type->Equals(*other.type)) return false;
  return OptionalLiteralEquals(initial_default, other.initial_default) &&
         OptionalLiteralEquals(write_default, other.write_default);
}

std::string NestedField::ToString() const {
  std::string s = fmt::format("{}: {}: {} {}", id, name, required ? "required" : "optional",
                              type ? type->ToString() : "null");
  if (!doc.empty()) s += fmt::format(" ({})", doc);
  return s;
}

Type::Type(TypeKind kind, int32_t precision, int32_t scale, int32_t length,
           std::vector<NestedField> fields)
    : kind_(kind),
      precision_(precision),
      scale_(scale),
      length_(length),
      fields_(std::move(fields)) {}

const NestedField* Type::FieldByName(std::string_view name) const {
  if (kind_ != TypeKind::kStruct) return nullptr;
  for (const auto& f : fields_) {
    if (f.name == name) return &f;
  }
  return nullptr;
}

const NestedField* Type::FieldById(int32_t id) const {
  for (const auto& f : fields_) {
    if (f.id == id) return &f;
  }
  return nullptr;
}

std::string Type::ToString() const {
  switch (kind_) {
    case TypeKind::kDecimal:
      // Java Types.DecimalType.toString: "decimal(%d, %d)".
      return fmt::format("decimal({}, {})", precision_, scale_);
    case TypeKind::kFixed: return fmt::format("fixed[{}]", length_);
    case TypeKind::kStruct: {
      std::string s = "struct<";
      for (size_t i = 0; i < fields_.size(); ++i) {
        if (i > 0) s += ", ";
        s += fields_[i].ToString();
      }
      return s + ">";
    }
    case TypeKind::kList: return "list<" + element().ToString() + ">";
    case TypeKind::kMap: return "map<" + key().ToString() + ", " + value().ToString() + ">";
    default: return std::string(TypeKindName(kind_));
  }
}

bool Type::Equals(const Type& other) const {
  if (this == &other) return true;
  if (kind_ != other.kind_ || precision_ != other.precision_ || scale_ != other.scale_ ||
      length_ != other.length_ || fields_.size() != other.fields_.size()) {
    return false;
  }
  for (size_t i = 0; i < fields_.size(); ++i) {
    if (!fields_[i].Equals(other.fields_[i])) return false;
  }
  return true;
}

namespace {
TypePtr Singleton(TypeKind kind) {
  return std::make_shared<const Type>(kind, 0, 0, 0, std::vector<NestedField>{});
}
}  // namespace

#define FLOE_ICEBERG_SINGLETON(Name, Kind)        \
  TypePtr Name() {                                \
    static const TypePtr kType = Singleton(Kind); \
    return kType;                                 \
  }
FLOE_ICEBERG_SINGLETON(BooleanType, TypeKind::kBoolean)
FLOE_ICEBERG_SINGLETON(IntType, TypeKind::kInt)
FLOE_ICEBERG_SINGLETON(LongType, TypeKind::kLong)
FLOE_ICEBERG_SINGLETON(FloatType, TypeKind::kFloat)
FLOE_ICEBERG_SINGLETON(DoubleType, TypeKind::kDouble)
FLOE_ICEBERG_SINGLETON(DateType, TypeKind::kDate)
FLOE_ICEBERG_SINGLETON(TimeType, TypeKind::kTime)
FLOE_ICEBERG_SINGLETON(TimestampType, TypeKind::kTimestamp)
FLOE_ICEBERG_SINGLETON(TimestampTzType, TypeKind::kTimestampTz)
FLOE_ICEBERG_SINGLETON(TimestampNsType, TypeKind::kTimestampNs)
FLOE_ICEBERG_SINGLETON(TimestampTzNsType, TypeKind::kTimestampTzNs)
FLOE_ICEBERG_SINGLETON(StringType, TypeKind::kString)
FLOE_ICEBERG_SINGLETON(UuidType, TypeKind::kUuid)
FLOE_ICEBERG_SINGLETON(BinaryType, TypeKind::kBinary)
FLOE_ICEBERG_SINGLETON(UnknownType, TypeKind::kUnknown)
#undef FLOE_ICEBERG_SINGLETON

TypePtr DecimalType(int32_t precision, int32_t scale) {
  return std::make_shared<const Type>(TypeKind::kDecimal, precision, scale, 0,
                                      std::vector<NestedField>{});
}

TypePtr FixedType(int32_t length) {
  return std::make_shared<const Type>(TypeKind::kFixed, 0, 0, length, std::vector<NestedField>{});
}

TypePtr StructType(std::vector<NestedField> fields) {
  return std::make_shared<const Type>(TypeKind::kStruct, 0, 0, 0, std::move(fields));
}

TypePtr ListType(NestedField element) {
  element.name = "element";
  std::vector<NestedField> f;
  f.push_back(std::move(element));
  return std::make_shared<const Type>(TypeKind::kList, 0, 0, 0, std::move(f));
}

TypePtr MapType(NestedField key, NestedField value) {
  key.name = "key";
  key.required = true;
  value.name = "value";
  std::vector<NestedField> f;
  f.push_back(std::move(key));
  f.push_back(std::move(value));
  return std::make_shared<const Type>(TypeKind::kMap, 0, 0, 0, std::move(f));
}

TypePtr ListType(int32_t element_id, TypePtr element, bool element_required) {
  NestedField f;
  f.id = element_id;
  f.type = std::move(element);
  f.required = element_required;
  return ListType(std::move(f));
}

TypePtr MapType(int32_t key_id, TypePtr key, int32_t value_id, TypePtr value, bool value_required) {
  NestedField k;
  k.id = key_id;
  k.type = std::move(key);
  NestedField v;
  v.id = value_id;
  v.type = std::move(value);
  v.required = value_required;
  return MapType(std::move(k), std::move(v));
}

namespace {

std::string_view Trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

bool ParseInt32(std::string_view s, int32_t* out) {
  s = Trim(s);
  if (s.empty()) return false;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), *out);
  return ec == std::errc() && p == s.data() + s.size();
}

std::string Lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

// "name(args)" or "name[args]": returns the args between the brackets, or nullopt.
std::optional<std::string_view> Args(std::string_view s, std::string_view name, char open,
                                     char close) {
  if (s.size() < name.size() || s.substr(0, name.size()) != name) return std::nullopt;
  std::string_view rest = Trim(s.substr(name.size()));
  if (rest.size() < 2 || rest.front() != open || rest.back() != close) return std::nullopt;
  return rest.substr(1, rest.size() - 2);
}

constexpr int kMaxNestingDepth = 100;

Result<TypePtr> TypeFromJsonDepth(const Json& json, int depth);

Status DefaultsFromJson(const Json& obj, NestedField* field) {
  for (const char* key : {"initial-default", "write-default"}) {
    auto it = obj.find(key);
    if (it == obj.end() || it->is_null()) continue;
    if (field->type->is_nested()) {
      // Spec: struct defaults are null or {}; nested defaults are kept on the sub-fields.
      bool empty = (it->is_object() || it->is_array()) && it->empty();
      if (!empty) {
        return Status::InvalidArgument("field '{}': a {} default must be null or empty",
                                       field->name, TypeKindName(field->type->kind()));
      }
      continue;
    }
    auto lit = Literal::FromJsonValue(field->type, *it);
    if (!lit.ok()) return lit.status().WithContext("field '{}' {}", field->name, key);
    if (std::string_view(key) == "initial-default") {
      field->initial_default = std::move(*lit);
    } else {
      field->write_default = std::move(*lit);
    }
  }
  return Status::OK();
}

Result<NestedField> FieldFromJsonDepth(const Json& json, int depth) {
  if (!json.is_object()) return Status::InvalidArgument("a struct field must be a JSON object");
  NestedField f;
  FLOE_ASSIGN_OR_RETURN(f.id, internal::GetInt32(json, "id"));
  FLOE_ASSIGN_OR_RETURN(f.name, internal::GetString(json, "name"));
  FLOE_ASSIGN_OR_RETURN(f.required, internal::GetBool(json, "required"));
  FLOE_ASSIGN_OR_RETURN(const Json* type, internal::GetMember(json, "type"));
  auto t = TypeFromJsonDepth(*type, depth + 1);
  if (!t.ok()) return t.status().WithContext("field '{}'", f.name);
  f.type = std::move(*t);
  FLOE_ASSIGN_OR_RETURN(auto doc, internal::GetOptionalString(json, "doc"));
  if (doc) f.doc = std::move(*doc);
  FLOE_RETURN_IF_ERROR(DefaultsFromJson(json, &f));
  return f;
}

Result<TypePtr> TypeFromJsonDepth(const Json& json, int depth) {
  if (depth > kMaxNestingDepth) return Status::InvalidArgument("type nested too deeply");
  if (json.is_string()) return PrimitiveTypeFromString(json.get_ref<const std::string&>());
  if (!json.is_object()) return Status::InvalidArgument("a type must be a string or an object");
  FLOE_ASSIGN_OR_RETURN(std::string kind, internal::GetString(json, "type"));
  if (kind == "struct") {
    FLOE_ASSIGN_OR_RETURN(const Json* fields, internal::GetMember(json, "fields"));
    if (!fields->is_array()) return Status::InvalidArgument("struct 'fields' must be an array");
    std::vector<NestedField> out;
    out.reserve(fields->size());
    for (const Json& f : *fields) {
      FLOE_ASSIGN_OR_RETURN(auto field, FieldFromJsonDepth(f, depth));
      out.push_back(std::move(field));
    }
    return StructType(std::move(out));
  }
  if (kind == "list") {
    NestedField e;
    FLOE_ASSIGN_OR_RETURN(e.id, internal::GetInt32(json, "element-id"));
    FLOE_ASSIGN_OR_RETURN(e.required, internal::GetBool(json, "element-required"));
    FLOE_ASSIGN_OR_RETURN(const Json* et, internal::GetMember(json, "element"));
    auto t = TypeFromJsonDepth(*et, depth + 1);
    if (!t.ok()) return t.status().WithContext("list element");
    e.type = std::move(*t);
    return ListType(std::move(e));
  }
  if (kind == "map") {
    NestedField k, v;
    FLOE_ASSIGN_OR_RETURN(k.id, internal::GetInt32(json, "key-id"));
    FLOE_ASSIGN_OR_RETURN(v.id, internal::GetInt32(json, "value-id"));
    FLOE_ASSIGN_OR_RETURN(v.required, internal::GetBool(json, "value-required"));
    FLOE_ASSIGN_OR_RETURN(const Json* kt, internal::GetMember(json, "key"));
    FLOE_ASSIGN_OR_RETURN(const Json* vt, internal::GetMember(json, "value"));
    auto kr = TypeFromJsonDepth(*kt, depth + 1);
    if (!kr.ok()) return kr.status().WithContext("map key");
    auto vr = TypeFromJsonDepth(*vt, depth + 1);
    if (!vr.ok()) return vr.status().WithContext("map value");
    k.type = std::move(*kr);
    v.type = std::move(*vr);
    return MapType(std::move(k), std::move(v));
  }
  return Status::InvalidArgument("unknown nested type '{}'", kind);
}

}  // namespace

Result<TypePtr> PrimitiveTypeFromString(std::string_view text) {
  std::string s = Lower(Trim(text));
  static const std::pair<std::string_view, TypePtr (*)()> kSimple[] = {
      {"boolean", BooleanType},
      {"int", IntType},
      {"long", LongType},
      {"float", FloatType},
      {"double", DoubleType},
      {"date", DateType},
      {"time", TimeType},
      {"timestamp", TimestampType},
      {"timestamptz", TimestampTzType},
      {"timestamp_ns", TimestampNsType},
      {"timestamptz_ns", TimestampTzNsType},
      {"string", StringType},
      {"uuid", UuidType},
      {"binary", BinaryType},
      {"unknown", UnknownType},
  };
  for (const auto& [name, make] : kSimple) {
    if (s == name) return make();
  }
  if (auto args = Args(s, "decimal", '(', ')')) {
    auto comma = args->find(',');
    int32_t p = 0, sc = 0;
    if (comma == std::string_view::npos || !ParseInt32(args->substr(0, comma), &p) ||
        !ParseInt32(args->substr(comma + 1), &sc)) {
      return Status::InvalidArgument("malformed decimal type '{}'", text);
    }
    if (p < 1 || p > 38 || sc < 0 || sc > p) {
      return Status::InvalidArgument("invalid decimal type '{}': need 1 <= P <= 38, 0 <= S <= P",
                                     text);
    }
    return DecimalType(p, sc);
  }
  if (auto args = Args(s, "fixed", '[', ']')) {
    int32_t len = 0;
    if (!ParseInt32(*args, &len) || len < 1) {
      return Status::InvalidArgument("malformed fixed type '{}'", text);
    }
    return FixedType(len);
  }
  if (s == "variant" || s.starts_with("geometry") || s.starts_with("geography")) {
    return Status::Unimplemented("Iceberg type '{}' is not supported", text);
  }
  return Status::InvalidArgument("unknown Iceberg type '{}'", text);
}

Result<TypePtr> TypeFromJsonValue(const Json& json) { return TypeFromJsonDepth(json, 0); }

Result<TypePtr> TypeFromJson(std::string_view json_text) {
  FLOE_ASSIGN_OR_RETURN(Json j, internal::ParseJson(json_text, "type"));
  return TypeFromJsonValue(j);
}

Result<NestedField> NestedFieldFromJsonValue(const Json& json) {
  return FieldFromJsonDepth(json, 0);
}

Json NestedFieldToJsonValue(const NestedField& f) {
  Json j = Json::object();
  j["id"] = f.id;
  j["name"] = f.name;
  j["required"] = f.required;
  j["type"] = TypeToJsonValue(*f.type);
  if (!f.doc.empty()) j["doc"] = f.doc;
  if (f.initial_default) j["initial-default"] = f.initial_default->ToJsonValue();
  if (f.write_default) j["write-default"] = f.write_default->ToJsonValue();
  return j;
}

Json TypeToJsonValue(const Type& type) {
  switch (type.kind()) {
    case TypeKind::kStruct: {
      Json fields = Json::array();
      for (const auto& f : type.fields()) fields.push_back(NestedFieldToJsonValue(f));
      Json j = Json::object();
      j["type"] = "struct";
      j["fields"] = std::move(fields);
      return j;
    }
    case TypeKind::kList: {
      Json j = Json::object();
      j["type"] = "list";
      j["element-id"] = type.element().id;
      j["element"] = TypeToJsonValue(*type.element().type);
      j["element-required"] = type.element().required;
      return j;
    }
    case TypeKind::kMap: {
      Json j = Json::object();
      j["type"] = "map";
      j["key-id"] = type.key().id;
      j["key"] = TypeToJsonValue(*type.key().type);
      j["value-id"] = type.value().id;
      j["value"] = TypeToJsonValue(*type.value().type);
      j["value-required"] = type.value().required;
      return j;
    }
    default: return type.ToString();
  }
}

std::string TypeToJson(const Type& type) { return internal::Dump(TypeToJsonValue(type)); }

}  // namespace floe::iceberg
