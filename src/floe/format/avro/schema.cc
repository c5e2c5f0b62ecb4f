#include "floe/format/avro/schema.h"

#include <array>
#include <cctype>
#include <cmath>
#include <exception>
#include <limits>
#include <set>
#include <unordered_set>

#include <nlohmann/json.hpp>

#include "floe/base/buffer.h"
#include "floe/base/json.h"
#include "floe/base/json_writer.h"
#include "floe/base/macros.h"
#include "floe/format/avro/json_encoding.h"

namespace floe::format::avro {

using Json = nlohmann::ordered_json;

std::string_view AvroTypeName(AvroType type) {
  switch (type) {
    case AvroType::kNull: return "null";
    case AvroType::kBoolean: return "boolean";
    case AvroType::kInt: return "int";
    case AvroType::kLong: return "long";
    case AvroType::kFloat: return "float";
    case AvroType::kDouble: return "double";
    case AvroType::kBytes: return "bytes";
    case AvroType::kString: return "string";
    case AvroType::kRecord: return "record";
    case AvroType::kEnum: return "enum";
    case AvroType::kArray: return "array";
    case AvroType::kMap: return "map";
    case AvroType::kUnion: return "union";
    case AvroType::kFixed: return "fixed";
  }
  return "unknown";
}

std::string_view LogicalTypeName(LogicalType type) {
  switch (type) {
    case LogicalType::kNone: return "";
    case LogicalType::kDecimal: return "decimal";
    case LogicalType::kUuid: return "uuid";
    case LogicalType::kDate: return "date";
    case LogicalType::kTimeMillis: return "time-millis";
    case LogicalType::kTimeMicros: return "time-micros";
    case LogicalType::kTimestampMillis: return "timestamp-millis";
    case LogicalType::kTimestampMicros: return "timestamp-micros";
    case LogicalType::kTimestampNanos: return "timestamp-nanos";
    case LogicalType::kLocalTimestampMillis: return "local-timestamp-millis";
    case LogicalType::kLocalTimestampMicros: return "local-timestamp-micros";
    case LogicalType::kLocalTimestampNanos: return "local-timestamp-nanos";
    case LogicalType::kDuration: return "duration";
  }
  return "";
}

namespace {

// Schema JSON nests a few levels per Avro level (field object, type object, union array);
// this bounds the parser's recursion on hostile input far above any real schema.
constexpr int kMaxJsonDepth = 512;

std::optional<AvroType> PrimitiveType(std::string_view s) {
  if (s == "null") return AvroType::kNull;
  if (s == "boolean") return AvroType::kBoolean;
  if (s == "int") return AvroType::kInt;
  if (s == "long") return AvroType::kLong;
  if (s == "float") return AvroType::kFloat;
  if (s == "double") return AvroType::kDouble;
  if (s == "bytes") return AvroType::kBytes;
  if (s == "string") return AvroType::kString;
  return std::nullopt;
}

// Spec, "Names": [A-Za-z_][A-Za-z0-9_]*.
bool IsValidName(std::string_view s) {
  if (s.empty()) return false;
  auto first = static_cast<unsigned char>(s[0]);
  if (!(std::isalpha(first) || first == '_')) return false;
  for (char c : s.substr(1)) {
    auto u = static_cast<unsigned char>(c);
    if (!(std::isalnum(u) || u == '_')) return false;
  }
  return true;
}

// Empty (the null namespace) or dot-separated names.
bool IsValidNamespace(std::string_view s) {
  if (s.empty()) return true;
  size_t start = 0;
  for (;;) {
    size_t dot = s.find('.', start);
    std::string_view part = s.substr(start, dot == std::string_view::npos ? dot : dot - start);
    if (!IsValidName(part)) return false;
    if (dot == std::string_view::npos) return true;
    start = dot + 1;
  }
}

std::string Qualify(std::string_view name, std::string_view ns) {
  if (name.find('.') != std::string_view::npos || ns.empty()) return std::string(name);
  std::string full(ns);
  full += '.';
  full += name;
  return full;
}

std::optional<int64_t> JsonInt(const Json& j) {
  if (j.is_number_integer()) {
    if (j.is_number_unsigned()) {
      auto u = j.get<uint64_t>();
      if (u > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) return std::nullopt;
      return static_cast<int64_t>(u);
    }
    return j.get<int64_t>();
  }
  return std::nullopt;
}

std::string Dump(const Json& j) { return j.dump(-1, ' ', false, Json::error_handler_t::replace); }

// Largest decimal precision a fixed of `size` bytes holds: floor(log10(2^(8n-1) - 1)).
int64_t MaxFixedDecimalPrecision(int64_t size) {
  if (size <= 0) return 0;
  return static_cast<int64_t>(std::floor(static_cast<double>(8 * size - 1) * std::log10(2.0)));
}

const Property* FindIn(const std::vector<Property>& props, std::string_view key) {
  for (const auto& p : props) {
    if (p.key == key) return &p;
  }
  return nullptr;
}

}  // namespace

const Property* RecordField::FindProperty(std::string_view key) const {
  return FindIn(properties_, key);
}

const Property* Node::FindProperty(std::string_view key) const { return FindIn(properties_, key); }

std::optional<int64_t> Node::IntProperty(std::string_view key) const {
  const Property* p = FindProperty(key);
  if (p == nullptr) return std::nullopt;
  Json j = Json::parse(p->json, nullptr, /*allow_exceptions=*/false);
  return JsonInt(j);
}

std::optional<std::string> Node::StringProperty(std::string_view key) const {
  const Property* p = FindProperty(key);
  if (p == nullptr) return std::nullopt;
  Json j = Json::parse(p->json, nullptr, /*allow_exceptions=*/false);
  if (!j.is_string()) return std::nullopt;
  return j.get<std::string>();
}

namespace internal {

class SchemaParser {
 public:
  SchemaParser(Schema* schema, const ParseOptions& options) : schema_(schema), options_(options) {}

  Result<Slot> Parse(const Json& j, const std::string& ns, int depth) {
    if (depth > kMaxJsonDepth) return Status::InvalidArgument("schema nests too deeply");
    if (j.is_string()) return ParseTypeName(j.get<std::string>(), ns, Dump(j));
    if (j.is_array()) return ParseUnion(j, ns, depth);
    if (j.is_object()) return ParseObject(j, ns, depth);
    return Status::InvalidArgument("a schema must be a string, an object or an array, not {}",
                                   Dump(j));
  }

  // Strict mode: every field default must fit its type (checked once the graph is whole).
  Status CheckDefaults() {
    for (const auto& node : schema_->nodes_) {
      if (node->type_ != AvroType::kRecord) continue;
      for (const auto& f : node->fields_) {
        if (!f.default_json_) continue;
        Buffer scratch;
        Status s = EncodeDefaultValue(*f.type_.node, *f.default_json_, &scratch);
        if (!s.ok()) {
          return Status::InvalidArgument("invalid default for field '{}' of '{}': {}", f.name_,
                                         node->full_name_, s.message());
        }
      }
    }
    return Status::OK();
  }

  // Every record type must have a finite value: a least fixed point over the records
  // (primitives, enums, fixed, arrays and maps always do; a union when one branch does; a
  // record when all its fields do).
  Status CheckTermination() {
    std::set<const Node*> finite;
    auto has_finite = [&](const Node& n) {
      switch (n.type_) {
        case AvroType::kRecord: return finite.contains(&n);
        case AvroType::kUnion:
          for (const auto& b : n.branches_) {
            const Node& branch = *b.node;
            if (branch.type_ != AvroType::kRecord || finite.contains(&branch)) return true;
          }
          return false;
        default: return true;
      }
    };
    for (bool changed = true; changed;) {
      changed = false;
      for (const auto& node : schema_->nodes_) {
        if (node->type_ != AvroType::kRecord || finite.contains(node.get())) continue;
        bool all = true;
        for (const auto& f : node->fields_) all = all && has_finite(*f.type_.node);
        if (all) {
          finite.insert(node.get());
          changed = true;
        }
      }
    }
    for (const auto& node : schema_->nodes_) {
      if (node->type_ == AvroType::kRecord && !finite.contains(node.get())) {
        return Status::InvalidArgument(
            "record '{}' can never end: every value of it holds another (make a field on the "
            "way optional, a union with null, an array or a map)",
            node->full_name_);
      }
    }
    return Status::OK();
  }

 private:
  Node* NewNode(AvroType type) {
    schema_->nodes_.push_back(std::make_unique<Node>());
    Node* n = schema_->nodes_.back().get();
    n->type_ = type;
    return n;
  }

  const Node* Lookup(const std::string& name, const std::string& ns) const {
    const auto& named = schema_->named_;
    if (name.find('.') == std::string::npos && !ns.empty()) {
      auto it = named.find(Qualify(name, ns));
      if (it != named.end()) return it->second;
    }
    auto it = named.find(name);
    return it == named.end() ? nullptr : it->second;
  }

  Result<Slot> ParseTypeName(const std::string& name, const std::string& ns,
                             std::string reference) {
    if (auto prim = PrimitiveType(name)) {
      Node* n = NewNode(*prim);
      n->bare_ = true;
      return Slot{n, ""};
    }
    const Node* target = Lookup(name, ns);
    if (target == nullptr) return Status::InvalidArgument("undefined type name '{}'", name);
    return Slot{target, std::move(reference)};
  }

  Result<Slot> ParseUnion(const Json& j, const std::string& ns, int depth) {
    Node* n = NewNode(AvroType::kUnion);
    std::unordered_set<std::string> seen;
    for (const auto& b : j) {
      FLOE_ASSIGN_OR_RETURN(Slot slot, Parse(b, ns, depth + 1));
      const Node& branch = *slot.node;
      if (branch.type_ == AvroType::kUnion) {
        return Status::InvalidArgument("a union may not immediately contain another union");
      }
      // Spec, "Unions": at most one branch per unnamed type, named types by fullname.
      std::string key = branch.is_named() ? "named:" + branch.full_name_
                                          : std::string(AvroTypeName(branch.type_));
      if (!seen.insert(key).second) {
        return Status::InvalidArgument("union has two branches of type '{}'",
                                       branch.branch_label());
      }
      n->branches_.push_back(std::move(slot));
    }
    return Slot{n, ""};
  }

  // Copies every member of `j` into `members`, and those outside `reserved` into
  // `properties`. Members in `structural` hold schemas or fields and are written from the
  // tree, so their text is not kept.
  static void CollectMembers(const Json& j, std::initializer_list<std::string_view> reserved,
                             std::initializer_list<std::string_view> structural,
                             std::vector<Member>* members, std::vector<Property>* properties) {
    for (const auto& [key, value] : j.items()) {
      bool is_structural = false;
      for (auto s : structural) is_structural |= (key == s);
      members->push_back(Member{key, is_structural ? std::string() : Dump(value)});
      bool is_reserved = is_structural;
      for (auto r : reserved) is_reserved |= (key == r);
      if (!is_reserved) properties->push_back(Property{key, Dump(value)});
    }
  }

  Result<Slot> ParseObject(const Json& j, const std::string& ns, int depth) {
    auto type_it = j.find("type");
    if (type_it == j.end()) return Status::InvalidArgument("schema object has no \"type\"");
    if (!type_it->is_string()) {
      return Status::InvalidArgument("\"type\" of a schema object must be a string, not {}",
                                     Dump(*type_it));
    }
    const std::string& type = type_it->get_ref<const std::string&>();
    if (auto prim = PrimitiveType(type)) {
      Node* n = NewNode(*prim);
      CollectMembers(j, {"type"}, {}, &n->members_, &n->properties_);
      FLOE_RETURN_IF_ERROR(ResolveLogicalType(n, j));
      return Slot{n, ""};
    }
    if (type == "record" || type == "error") return ParseRecord(j, ns, depth);
    if (type == "enum") return ParseEnum(j, ns);
    if (type == "fixed") return ParseFixed(j, ns);
    if (type == "array" || type == "map") {
      bool is_array = type == "array";
      const char* child_key = is_array ? "items" : "values";
      auto it = j.find(child_key);
      if (it == j.end()) return Status::InvalidArgument("{} schema has no \"{}\"", type, child_key);
      Node* n = NewNode(is_array ? AvroType::kArray : AvroType::kMap);
      CollectMembers(j, {"type"}, {child_key}, &n->members_, &n->properties_);
      FLOE_ASSIGN_OR_RETURN(Slot child, Parse(*it, ns, depth + 1));
      (is_array ? n->items_ : n->values_) = std::move(child);
      FLOE_RETURN_IF_ERROR(ResolveLogicalType(n, j));
      return Slot{n, ""};
    }
    // {"type": "Foo"}: a reference to a named type, written back as it was.
    return ParseTypeName(type, ns, Dump(j));
  }

  // Sets the name members of a named type and registers it, before its children are parsed
  // so that they may refer to it.
  Status DefineName(Node* n, const Json& j, const std::string& enclosing_ns) {
    auto name_it = j.find("name");
    if (name_it == j.end() || !name_it->is_string()) {
      return Status::InvalidArgument("{} schema has no \"name\" string", AvroTypeName(n->type_));
    }
    const std::string& name = name_it->get_ref<const std::string&>();
    // Spec, "Names": a dotted name is a fullname and any namespace is ignored; otherwise
    // the namespace attribute, else the enclosing one.
    size_t dot = name.rfind('.');
    if (dot != std::string::npos) {
      n->namespace_ = name.substr(0, dot);
      n->name_ = name.substr(dot + 1);
    } else {
      n->name_ = name;
      auto ns_it = j.find("namespace");
      if (ns_it != j.end() && ns_it->is_string()) {
        n->namespace_ = ns_it->get<std::string>();
      } else if (ns_it != j.end() && !ns_it->is_null()) {
        return Status::InvalidArgument("\"namespace\" of '{}' must be a string", name);
      } else {
        n->namespace_ = enclosing_ns;
      }
    }
    n->full_name_ = Qualify(n->name_, n->namespace_);
    if (options_.validate_names) {
      if (!IsValidName(n->name_)) return Status::InvalidArgument("invalid name '{}'", name);
      if (!IsValidNamespace(n->namespace_)) {
        return Status::InvalidArgument("invalid namespace '{}' of '{}'", n->namespace_, name);
      }
    }
    if (n->name_.empty()) return Status::InvalidArgument("empty name");
    if (PrimitiveType(n->name_)) {
      return Status::InvalidArgument("'{}' redefines a primitive type name", n->full_name_);
    }
    if (auto it = j.find("aliases"); it != j.end()) {
      if (!it->is_array()) return Status::InvalidArgument("aliases of '{}' must be an array", name);
      for (const auto& a : *it) {
        if (!a.is_string()) {
          return Status::InvalidArgument("aliases of '{}' must be strings", name);
        }
        n->aliases_.push_back(Qualify(a.get<std::string>(), n->namespace_));
      }
    }
    if (auto it = j.find("doc"); it != j.end() && it->is_string()) n->doc_ = it->get<std::string>();
    if (!schema_->named_.emplace(n->full_name_, n).second) {
      return Status::InvalidArgument("type '{}' is defined twice", n->full_name_);
    }
    return Status::OK();
  }

  Result<Slot> ParseRecord(const Json& j, const std::string& ns, int depth) {
    Node* n = NewNode(AvroType::kRecord);
    FLOE_RETURN_IF_ERROR(DefineName(n, j, ns));
    auto fields_it = j.find("fields");
    if (fields_it == j.end() || !fields_it->is_array()) {
      return Status::InvalidArgument("record '{}' has no \"fields\" array", n->full_name_);
    }
    CollectMembers(j, {"type", "name", "namespace", "doc", "aliases"}, {"fields"}, &n->members_,
                   &n->properties_);
    std::unordered_set<std::string> names;
    n->fields_.reserve(fields_it->size());
    for (const auto& fj : *fields_it) {
      if (!fj.is_object()) {
        return Status::InvalidArgument("a field of '{}' is not an object", n->full_name_);
      }
      RecordField f;
      auto name_it = fj.find("name");
      if (name_it == fj.end() || !name_it->is_string()) {
        return Status::InvalidArgument("a field of '{}' has no \"name\" string", n->full_name_);
      }
      f.name_ = name_it->get<std::string>();
      if (options_.validate_names && !IsValidName(f.name_)) {
        return Status::InvalidArgument("invalid field name '{}' in '{}'", f.name_, n->full_name_);
      }
      if (!names.insert(f.name_).second) {
        return Status::InvalidArgument("field '{}' appears twice in '{}'", f.name_, n->full_name_);
      }
      auto type_it = fj.find("type");
      if (type_it == fj.end()) {
        return Status::InvalidArgument("field '{}' of '{}' has no \"type\"", f.name_,
                                       n->full_name_);
      }
      Result<Slot> type = Parse(*type_it, n->namespace_, depth + 2);
      if (!type.ok()) {
        return type.status().WithContext("field '{}' of '{}'", f.name_, n->full_name_);
      }
      f.type_ = std::move(*type);
      CollectMembers(fj, {"name", "doc", "default", "order", "aliases"}, {"type"}, &f.members_,
                     &f.properties_);
      if (auto it = fj.find("default"); it != fj.end()) f.default_json_ = Dump(*it);
      if (auto it = fj.find("doc"); it != fj.end() && it->is_string()) {
        f.doc_ = it->get<std::string>();
      }
      if (auto it = fj.find("aliases"); it != fj.end()) {
        if (!it->is_array()) {
          return Status::InvalidArgument("aliases of field '{}' must be an array", f.name_);
        }
        for (const auto& a : *it) {
          if (!a.is_string()) {
            return Status::InvalidArgument("aliases of field '{}' must be strings", f.name_);
          }
          f.aliases_.push_back(a.get<std::string>());
        }
      }
      if (auto it = fj.find("field-id"); it != fj.end()) {
        std::optional<int64_t> id = JsonInt(*it);
        if (id && *id >= std::numeric_limits<int32_t>::min() &&
            *id <= std::numeric_limits<int32_t>::max()) {
          f.field_id_ = static_cast<int32_t>(*id);
        }
      }
      n->fields_.push_back(std::move(f));
    }
    return Slot{n, ""};
  }

  Result<Slot> ParseEnum(const Json& j, const std::string& ns) {
    Node* n = NewNode(AvroType::kEnum);
    FLOE_RETURN_IF_ERROR(DefineName(n, j, ns));
    auto it = j.find("symbols");
    if (it == j.end() || !it->is_array()) {
      return Status::InvalidArgument("enum '{}' has no \"symbols\" array", n->full_name_);
    }
    std::unordered_set<std::string> seen;
    for (const auto& s : *it) {
      if (!s.is_string()) {
        return Status::InvalidArgument("symbols of enum '{}' must be strings", n->full_name_);
      }
      std::string sym = s.get<std::string>();
      if (options_.validate_names && !IsValidName(sym)) {
        return Status::InvalidArgument("invalid symbol '{}' in enum '{}'", sym, n->full_name_);
      }
      if (!seen.insert(sym).second) {
        return Status::InvalidArgument("symbol '{}' appears twice in enum '{}'", sym,
                                       n->full_name_);
      }
      n->symbols_.push_back(std::move(sym));
    }
    if (auto d = j.find("default"); d != j.end()) {
      if (d->is_string() && seen.count(d->get<std::string>())) {
        n->enum_default_ = d->get<std::string>();
      } else if (options_.strict) {
        return Status::InvalidArgument("default {} of enum '{}' is not one of its symbols",
                                       Dump(*d), n->full_name_);
      }
    }
    CollectMembers(j, {"type", "name", "namespace", "doc", "aliases", "symbols", "default"}, {},
                   &n->members_, &n->properties_);
    return Slot{n, ""};
  }

  Result<Slot> ParseFixed(const Json& j, const std::string& ns) {
    Node* n = NewNode(AvroType::kFixed);
    FLOE_RETURN_IF_ERROR(DefineName(n, j, ns));
    auto it = j.find("size");
    std::optional<int64_t> size = it == j.end() ? std::nullopt : JsonInt(*it);
    if (!size || *size < 0 || *size > std::numeric_limits<int32_t>::max()) {
      return Status::InvalidArgument("fixed '{}' needs a \"size\" between 0 and 2^31-1",
                                     n->full_name_);
    }
    n->fixed_size_ = static_cast<int32_t>(*size);
    CollectMembers(j, {"type", "name", "namespace", "doc", "aliases", "size"}, {}, &n->members_,
                   &n->properties_);
    FLOE_RETURN_IF_ERROR(ResolveLogicalType(n, j));
    return Slot{n, ""};
  }

  // Spec, "Logical Types": sets n->logical_ when "logicalType" names a type valid for the
  // node; unknown and invalid ones leave kNone (strict mode rejects invalid ones).
  Status ResolveLogicalType(Node* n, const Json& j) {
    auto it = j.find("logicalType");
    if (it == j.end() || !it->is_string()) return Status::OK();
    const std::string& lt = it->get_ref<const std::string&>();
    AvroType t = n->type_;
    auto invalid = [&](std::string_view why) -> Status {
      if (options_.strict) {
        return Status::InvalidArgument("invalid logical type '{}' on {}: {}", lt, AvroTypeName(t),
                                       why);
      }
      return Status::OK();
    };
    auto require = [&](bool ok, LogicalType result) -> Status {
      if (!ok) return invalid("wrong underlying type");
      n->logical_ = result;
      return Status::OK();
    };
    if (lt == "decimal") {
      if (t != AvroType::kBytes && t != AvroType::kFixed) {
        return invalid("decimal annotates bytes or fixed");
      }
      auto p_it = j.find("precision");
      std::optional<int64_t> precision = p_it == j.end() ? std::nullopt : JsonInt(*p_it);
      std::optional<int64_t> scale = int64_t{0};
      if (auto s_it = j.find("scale"); s_it != j.end()) scale = JsonInt(*s_it);
      if (!precision || *precision <= 0 || *precision > std::numeric_limits<int32_t>::max()) {
        return invalid("precision must be a positive integer");
      }
      if (!scale || *scale < 0 || *scale > *precision) {
        return invalid("scale must be an integer between 0 and the precision");
      }
      if (t == AvroType::kFixed && *precision > MaxFixedDecimalPrecision(n->fixed_size_)) {
        return invalid("precision exceeds what the fixed size holds");
      }
      n->logical_ = LogicalType::kDecimal;
      n->precision_ = static_cast<int32_t>(*precision);
      n->scale_ = static_cast<int32_t>(*scale);
      return Status::OK();
    }
    if (lt == "uuid") {
      return require(t == AvroType::kString || (t == AvroType::kFixed && n->fixed_size_ == 16),
                     LogicalType::kUuid);
    }
    if (lt == "date") return require(t == AvroType::kInt, LogicalType::kDate);
    if (lt == "time-millis") return require(t == AvroType::kInt, LogicalType::kTimeMillis);
    if (lt == "time-micros") return require(t == AvroType::kLong, LogicalType::kTimeMicros);
    if (lt == "timestamp-millis") {
      return require(t == AvroType::kLong, LogicalType::kTimestampMillis);
    }
    if (lt == "timestamp-micros") {
      return require(t == AvroType::kLong, LogicalType::kTimestampMicros);
    }
    if (lt == "timestamp-nanos") {
      return require(t == AvroType::kLong, LogicalType::kTimestampNanos);
    }
    if (lt == "local-timestamp-millis") {
      return require(t == AvroType::kLong, LogicalType::kLocalTimestampMillis);
    }
    if (lt == "local-timestamp-micros") {
      return require(t == AvroType::kLong, LogicalType::kLocalTimestampMicros);
    }
    if (lt == "local-timestamp-nanos") {
      return require(t == AvroType::kLong, LogicalType::kLocalTimestampNanos);
    }
    if (lt == "duration") {
      return require(t == AvroType::kFixed && n->fixed_size_ == 12, LogicalType::kDuration);
    }
    return Status::OK();  // unknown logical types are ignored (e.g. Iceberg's "map")
  }

  Schema* schema_;
  ParseOptions options_;
};

}  // namespace internal

namespace {

void AppendQuoted(std::string* out, std::string_view s) {
  out->push_back('"');
  JsonWriter::AppendEscaped(out, s);
  out->push_back('"');
}

void AppendMemberKey(std::string* out, bool* first, std::string_view key) {
  if (!*first) out->push_back(',');
  *first = false;
  AppendQuoted(out, key);
  out->push_back(':');
}

}  // namespace

void Schema::WriteSlot(const internal::Slot& slot, std::string* out) {
  if (!slot.reference.empty()) {
    out->append(slot.reference);
    return;
  }
  const Node& n = *slot.node;
  if (n.type_ == AvroType::kUnion) {
    out->push_back('[');
    for (size_t i = 0; i < n.branches_.size(); ++i) {
      if (i) out->push_back(',');
      WriteSlot(n.branches_[i], out);
    }
    out->push_back(']');
    return;
  }
  if (n.bare_) {
    AppendQuoted(out, AvroTypeName(n.type_));
    return;
  }
  out->push_back('{');
  bool first = true;
  for (const auto& m : n.members_) {
    AppendMemberKey(out, &first, m.key);
    if (m.key == "items") {
      WriteSlot(n.items_, out);
    } else if (m.key == "values") {
      WriteSlot(n.values_, out);
    } else if (m.key == "fields") {
      out->push_back('[');
      for (size_t i = 0; i < n.fields_.size(); ++i) {
        if (i) out->push_back(',');
        const RecordField& f = n.fields_[i];
        out->push_back('{');
        bool first_member = true;
        for (const auto& fm : f.members_) {
          AppendMemberKey(out, &first_member, fm.key);
          if (fm.key == "type") {
            WriteSlot(f.type_, out);
          } else {
            out->append(fm.json);
          }
        }
        out->push_back('}');
      }
      out->push_back(']');
    } else {
      out->append(m.json);
    }
  }
  out->push_back('}');
}

// Spec, "Transforming into Parsing Canonical Form": primitives as bare names, fullnames
// without namespaces, only type/name/fields/symbols/items/values/size, in that order, no
// whitespace, strings unescaped except where JSON requires it.
void Schema::WriteCanonical(const internal::Slot& slot, std::string* out) {
  const Node& n = *slot.node;
  if (!slot.reference.empty()) {
    AppendQuoted(out, n.full_name_);
    return;
  }
  switch (n.type_) {
    case AvroType::kUnion:
      out->push_back('[');
      for (size_t i = 0; i < n.branches_.size(); ++i) {
        if (i) out->push_back(',');
        WriteCanonical(n.branches_[i], out);
      }
      out->push_back(']');
      return;
    case AvroType::kRecord:
      out->append("{\"name\":");
      AppendQuoted(out, n.full_name_);
      out->append(",\"type\":\"record\",\"fields\":[");
      for (size_t i = 0; i < n.fields_.size(); ++i) {
        if (i) out->push_back(',');
        out->append("{\"name\":");
        AppendQuoted(out, n.fields_[i].name_);
        out->append(",\"type\":");
        WriteCanonical(n.fields_[i].type_, out);
        out->push_back('}');
      }
      out->append("]}");
      return;
    case AvroType::kEnum:
      out->append("{\"name\":");
      AppendQuoted(out, n.full_name_);
      out->append(",\"type\":\"enum\",\"symbols\":[");
      for (size_t i = 0; i < n.symbols_.size(); ++i) {
        if (i) out->push_back(',');
        AppendQuoted(out, n.symbols_[i]);
      }
      out->append("]}");
      return;
    case AvroType::kFixed:
      out->append("{\"name\":");
      AppendQuoted(out, n.full_name_);
      out->append(",\"type\":\"fixed\",\"size\":");
      out->append(std::to_string(n.fixed_size_));
      out->push_back('}');
      return;
    case AvroType::kArray:
      out->append("{\"type\":\"array\",\"items\":");
      WriteCanonical(n.items_, out);
      out->push_back('}');
      return;
    case AvroType::kMap:
      out->append("{\"type\":\"map\",\"values\":");
      WriteCanonical(n.values_, out);
      out->push_back('}');
      return;
    default: AppendQuoted(out, AvroTypeName(n.type_)); return;
  }
}

Result<std::shared_ptr<const Schema>> Schema::Parse(std::string_view json,
                                                    const ParseOptions& options) {
  // nlohmann's own errors are exceptions; they are turned into a Status here, at the edge.
  try {
    Result<Json> j = ParseOrderedJson(json);
    if (!j.ok()) return j.status().WithContext("schema is not valid JSON");
    std::shared_ptr<Schema> schema(new Schema());
    internal::SchemaParser parser(schema.get(), options);
    FLOE_ASSIGN_OR_RETURN(schema->root_, parser.Parse(*j, "", 0));
    if (options.strict || options.validate_defaults) {
      FLOE_RETURN_IF_ERROR(parser.CheckDefaults());
    }
    if (options.reject_unterminated_records) FLOE_RETURN_IF_ERROR(parser.CheckTermination());
    return std::shared_ptr<const Schema>(std::move(schema));
  } catch (const std::exception& e) {
    return Status::InvalidArgument("cannot parse schema: {}", e.what());
  }
}

std::string Schema::ToJson() const {
  std::string out;
  WriteSlot(root_, &out);
  return out;
}

std::string Schema::CanonicalForm() const {
  std::string out;
  WriteCanonical(root_, &out);
  return out;
}

uint64_t Schema::Fingerprint64() const { return Crc64Avro(CanonicalForm()); }

const Node* Schema::FindNamed(std::string_view full_name) const {
  auto it = named_.find(std::string(full_name));
  return it == named_.end() ? nullptr : it->second;
}

namespace {

// Spec, "Schema Fingerprints": the table for the polynomial whose reflected form is EMPTY.
constexpr uint64_t kRabinEmpty = 0xc15d213aa4d7a795ULL;

constexpr std::array<uint64_t, 256> MakeRabinTable() {
  std::array<uint64_t, 256> table{};
  for (uint64_t i = 0; i < 256; ++i) {
    uint64_t fp = i;
    for (int j = 0; j < 8; ++j) fp = (fp >> 1) ^ (kRabinEmpty & (0 - (fp & 1)));
    table[i] = fp;
  }
  return table;
}

constexpr std::array<uint64_t, 256> kRabinTable = MakeRabinTable();

}  // namespace

uint64_t Crc64Avro(std::string_view bytes) {
  uint64_t fp = kRabinEmpty;
  for (char c : bytes) {
    fp = (fp >> 8) ^ kRabinTable[(fp ^ static_cast<uint8_t>(c)) & 0xff];
  }
  return fp;
}

}  // namespace floe::format::avro
