#include "floe/ingest/json_schema.h"

#include <limits>

#include "floe/base/macros.h"

namespace floe::ingest {

namespace {

using iceberg::TypeKind;
using iceberg::TypePtr;

// The deepest nesting of structs and lists inferred for a column, counted from the record:
// as deep as registry schemas map (registry_codec.cc), within Iceberg's type nesting limit
// and the metadata JSON depth (three JSON levels per struct), so that the evolved table's
// metadata still reads back. Values arrive bounded by kDefaultMaxJsonDepth (floe/base/json.h).
constexpr int kMaxInferredDepth = 64;

std::string FullName(const std::string& parent, const std::string& name) {
  return parent.empty() ? name : parent + "." + name;
}

// The common type of two inferred types (array elements): long and double meet in double;
// structs merge their fields; anything else must be equal. nullptr for a conflict.
TypePtr Unify(const TypePtr& a, const TypePtr& b) {
  if (a == nullptr) return b;
  if (b == nullptr) return a;
  if (a->kind() == b->kind()) {
    if (a->kind() == TypeKind::kStruct) {
      std::vector<iceberg::NestedField> fields = a->fields();
      for (const iceberg::NestedField& f : b->fields()) {
        bool merged = false;
        for (iceberg::NestedField& g : fields) {
          if (g.name != f.name) continue;
          g.type = Unify(g.type, f.type);
          if (g.type == nullptr) return nullptr;
          merged = true;
        }
        if (!merged) fields.push_back(f);
      }
      return iceberg::StructType(std::move(fields));
    }
    if (a->kind() == TypeKind::kList) {
      TypePtr e = Unify(a->element().type, b->element().type);
      return e ? iceberg::ListType(0, e, false) : nullptr;
    }
    return a;
  }
  auto numeric = [](const TypePtr& t) {
    return t->kind() == TypeKind::kLong || t->kind() == TypeKind::kDouble;
  };
  if (numeric(a) && numeric(b)) return iceberg::DoubleType();
  return nullptr;
}

bool IsIntegral(const nlohmann::json& v) { return v.is_number_integer() || v.is_number_unsigned(); }

std::string_view JsonKind(const nlohmann::json& v) {
  if (v.is_boolean()) return "a boolean";
  if (IsIntegral(v)) return "an integer";
  if (v.is_number()) return "a number with a fraction";
  if (v.is_string()) return "a string";
  if (v.is_object()) return "an object";
  if (v.is_array()) return "an array";
  return "null";
}

// The type of `value`, `depth` containers below the record; nullptr with *too_deep set
// when containers nest kMaxInferredDepth deep there.
TypePtr Infer(const nlohmann::json& value, int depth, bool* too_deep) {
  if ((value.is_object() || value.is_array()) && depth >= kMaxInferredDepth) {
    *too_deep = true;
    return nullptr;
  }
  switch (value.type()) {
    case nlohmann::json::value_t::boolean: return iceberg::BooleanType();
    case nlohmann::json::value_t::number_integer: return iceberg::LongType();
    case nlohmann::json::value_t::number_unsigned:
      // Beyond a long: only a double holds it (approximately).
      return value.get<uint64_t>() > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())
                 ? iceberg::DoubleType()
                 : iceberg::LongType();
    case nlohmann::json::value_t::number_float: return iceberg::DoubleType();
    case nlohmann::json::value_t::string: return iceberg::StringType();
    case nlohmann::json::value_t::object: {
      std::vector<iceberg::NestedField> fields;
      for (const auto& [k, v] : value.items()) {
        TypePtr t = Infer(v, depth + 1, too_deep);
        if (*too_deep) return nullptr;
        if (t != nullptr) fields.push_back(iceberg::NestedField::Optional(0, k, std::move(t)));
      }
      if (fields.empty()) return nullptr;
      return iceberg::StructType(std::move(fields));
    }
    case nlohmann::json::value_t::array: {
      TypePtr element;
      for (const auto& v : value) {
        TypePtr t = Infer(v, depth + 1, too_deep);
        if (*too_deep) return nullptr;
        if (t == nullptr) continue;
        element = Unify(element, t);
        if (element == nullptr) return nullptr;  // mixed element kinds: no list type fits
      }
      if (element == nullptr) return nullptr;
      return iceberg::ListType(0, element, false);
    }
    default: return nullptr;
  }
}

// InferChanges for the fields of a struct `depth` levels below the record.
Status InferChangesAt(const std::vector<iceberg::NestedField>& fields, const nlohmann::json& object,
                      const std::string& parent, int depth, std::vector<SchemaChange>* changes) {
  for (const iceberg::NestedField& f : fields) {
    auto it = object.find(f.name);
    if (f.required && (it == object.end() || it->is_null())) {
      changes->push_back(
          {SchemaChange::Kind::kMakeOptional, "", FullName(parent, f.name), nullptr});
    }
  }
  for (const auto& [key, value] : object.items()) {
    if (value.is_null()) continue;
    const iceberg::NestedField* field = nullptr;
    for (const iceberg::NestedField& f : fields) {
      if (f.name == key) field = &f;
    }
    const std::string full = FullName(parent, key);
    if (field == nullptr) {
      if (key.find('.') != std::string::npos) {
        return Status::InvalidArgument("field \"{}\": a '.' in a new column name is not allowed",
                                       full);
      }
      bool too_deep = false;
      TypePtr t = Infer(value, depth, &too_deep);
      if (too_deep) {
        return Status::InvalidArgument("field \"{}\": the value nests deeper than {} levels", full,
                                       kMaxInferredDepth);
      }
      if (t != nullptr) changes->push_back({SchemaChange::Kind::kAddColumn, parent, key, t});
      continue;
    }
    auto conflict = [&] {
      return Status::InvalidArgument("field \"{}\": {} does not fit column type {}", full,
                                     JsonKind(value), field->type->ToString());
    };
    switch (field->type->kind()) {
      case TypeKind::kInt:
        if (!IsIntegral(value)) return conflict();
        if (value.is_number_unsigned()
                ? value.get<uint64_t>() > INT32_MAX
                : (value.get<int64_t>() > INT32_MAX || value.get<int64_t>() < INT32_MIN)) {
          changes->push_back({SchemaChange::Kind::kWiden, "", full, iceberg::LongType()});
        }
        break;
      case TypeKind::kLong:
        if (!IsIntegral(value)) return conflict();
        break;
      case TypeKind::kFloat:
        if (!value.is_number()) return conflict();
        // A float column holding any number it cannot represent exactly widens; doubles
        // hold every float.
        if (static_cast<double>(static_cast<float>(value.get<double>())) != value.get<double>()) {
          changes->push_back({SchemaChange::Kind::kWiden, "", full, iceberg::DoubleType()});
        }
        break;
      case TypeKind::kDouble:
        if (!value.is_number()) return conflict();
        break;
      case TypeKind::kBoolean:
        if (!value.is_boolean()) return conflict();
        break;
      case TypeKind::kString:
        if (!value.is_string()) return conflict();
        break;
      case TypeKind::kStruct:
        if (!value.is_object()) return conflict();
        FLOE_RETURN_IF_ERROR(
            InferChangesAt(field->type->fields(), value, full, depth + 1, changes));
        break;
      case TypeKind::kList: {
        if (!value.is_array()) return conflict();
        // New fields inside list elements are not added (the element struct's name in a
        // schema update is not portable); the record then goes to the dead-letter table.
        break;
      }
      default:
        // Other column types (dates, timestamps, decimals, ... of a table created outside
        // floe) parse from their text forms; nothing to change.
        break;
    }
  }
  return Status::OK();
}

}  // namespace

TypePtr InferJsonType(const nlohmann::json& value) {
  bool too_deep = false;
  return Infer(value, 0, &too_deep);
}

Status InferChanges(const std::vector<iceberg::NestedField>& fields, const nlohmann::json& object,
                    const std::string& parent, std::vector<SchemaChange>* changes) {
  return InferChangesAt(fields, object, parent, 0, changes);
}

}  // namespace floe::ingest
