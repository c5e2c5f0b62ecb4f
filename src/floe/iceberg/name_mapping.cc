#include "floe/iceberg/name_mapping.h"

#include <nlohmann/json.hpp>

#include "floe/base/json.h"
#include "floe/base/macros.h"
#include "floe/iceberg/schema.h"

namespace floe::iceberg {

namespace pq = format::parquet;
using json = nlohmann::json;

namespace {

constexpr int kMaxDepth = 64;

Result<MappedField> ParseField(const json& j, int depth) {
  if (depth > kMaxDepth) return Status::InvalidArgument("name mapping nested too deeply");
  if (!j.is_object()) return Status::InvalidArgument("name mapping: a field must be an object");
  MappedField f;
  if (auto it = j.find("field-id"); it != j.end() && !it->is_null()) {
    if (!it->is_number_integer()) {
      return Status::InvalidArgument("name mapping: field-id must be an integer");
    }
    f.field_id = it->get<int32_t>();
  }
  auto names = j.find("names");
  if (names == j.end() || !names->is_array()) {
    return Status::InvalidArgument("name mapping: a field needs a names array");
  }
  for (const json& n : *names) {
    if (!n.is_string()) return Status::InvalidArgument("name mapping: names must be strings");
    f.names.push_back(n.get<std::string>());
  }
  if (auto it = j.find("fields"); it != j.end() && !it->is_null()) {
    if (!it->is_array()) return Status::InvalidArgument("name mapping: fields must be an array");
    for (const json& c : *it) {
      FLOE_ASSIGN_OR_RETURN(MappedField child, ParseField(c, depth + 1));
      f.fields.push_back(std::move(child));
    }
  }
  return f;
}

json FieldToJson(const MappedField& f) {
  json j = json::object();
  if (f.field_id) j["field-id"] = *f.field_id;
  j["names"] = f.names;
  if (!f.fields.empty()) {
    json fields = json::array();
    for (const MappedField& c : f.fields) fields.push_back(FieldToJson(c));
    j["fields"] = std::move(fields);
  }
  return j;
}

MappedField FromNested(const NestedField& field);

std::vector<MappedField> FromType(const Type& type) {
  std::vector<MappedField> out;
  switch (type.kind()) {
    case TypeKind::kStruct:
      for (const NestedField& f : type.fields()) out.push_back(FromNested(f));
      break;
    case TypeKind::kList: out.push_back(FromNested(type.element())); break;
    case TypeKind::kMap:
      out.push_back(FromNested(type.key()));
      out.push_back(FromNested(type.value()));
      break;
    default: break;
  }
  return out;
}

MappedField FromNested(const NestedField& field) {
  return MappedField{field.id, {field.name}, FromType(*field.type)};
}

const MappedField* FindIn(const std::vector<MappedField>& fields, std::string_view name) {
  for (const MappedField& f : fields) {
    for (const std::string& n : f.names) {
      if (n == name) return &f;
    }
  }
  return nullptr;
}

// Sets the id of the element at `i` from `m` (nullptr: no id) and maps its subtree;
// returns the index after the subtree.
Result<size_t> MapNode(std::vector<pq::SchemaElement>* els, size_t i, const MappedField* m,
                       int depth) {
  if (i >= els->size()) return Status::Corrupt("Parquet schema: missing children");
  if (depth > kMaxDepth) return Status::Corrupt("Parquet schema nested too deeply");
  pq::SchemaElement& e = (*els)[i];
  e.field_id = m ? m->field_id : std::nullopt;
  int32_t children = e.num_children.value_or(0);
  if (children < 0) return Status::Corrupt("Parquet schema: negative child count");
  size_t next = i + 1;
  if (children == 0) return next;
  auto child = [&](std::string_view name) -> const MappedField* {
    return m ? FindIn(m->fields, name) : nullptr;
  };
  std::optional<pq::LogicalType> logical = pq::EffectiveLogicalType(e);
  bool is_list = logical && logical->kind == pq::LogicalType::Kind::kList;
  bool is_map = logical && logical->kind == pq::LogicalType::Kind::kMap;
  if ((is_list || is_map) && children == 1 && next < els->size()) {
    pq::SchemaElement& repeated = (*els)[next];
    int32_t grandchildren = repeated.num_children.value_or(0);
    if (is_list && grandchildren != 1) {
      // Legacy 2-level list: the repeated field itself is the element.
      return MapNode(els, next, child("element"), depth + 1);
    }
    repeated.field_id = std::nullopt;
    size_t at = next + 1;
    if (is_list) return MapNode(els, at, child("element"), depth + 2);
    for (int32_t c = 0; c < grandchildren; ++c) {
      FLOE_ASSIGN_OR_RETURN(at, MapNode(els, at, child(c == 0 ? "key" : "value"), depth + 2));
    }
    return at;
  }
  for (int32_t c = 0; c < children; ++c) {
    if (next >= els->size()) return Status::Corrupt("Parquet schema: missing children");
    FLOE_ASSIGN_OR_RETURN(next, MapNode(els, next, child((*els)[next].name), depth + 1));
  }
  return next;
}

}  // namespace

Result<NameMapping> NameMapping::FromJson(std::string_view json_text) {
  Result<json> parsed = ParseJson(json_text);
  if (!parsed.ok()) return parsed.status().WithContext("name mapping is not valid JSON");
  const json& j = *parsed;
  if (!j.is_array()) return Status::InvalidArgument("name mapping must be a JSON array");
  std::vector<MappedField> fields;
  for (const json& f : j) {
    FLOE_ASSIGN_OR_RETURN(MappedField m, ParseField(f, 0));
    fields.push_back(std::move(m));
  }
  return NameMapping(std::move(fields));
}

NameMapping NameMapping::FromSchema(const Schema& schema) {
  return NameMapping(FromType(*schema.as_struct()));
}

std::string NameMapping::ToJson() const {
  json j = json::array();
  for (const MappedField& f : fields_) j.push_back(FieldToJson(f));
  return j.dump();
}

const MappedField* NameMapping::Find(const std::vector<std::string>& path) const {
  const std::vector<MappedField>* scope = &fields_;
  const MappedField* found = nullptr;
  for (const std::string& name : path) {
    found = FindIn(*scope, name);
    if (found == nullptr) return nullptr;
    scope = &found->fields;
  }
  return found;
}

Result<std::vector<pq::SchemaElement>> ApplyNameMapping(
    const std::vector<pq::SchemaElement>& elements, const NameMapping& mapping) {
  std::vector<pq::SchemaElement> out = elements;
  if (out.empty()) return Status::Corrupt("Parquet schema is empty");
  int32_t children = out[0].num_children.value_or(0);
  size_t next = 1;
  for (int32_t c = 0; c < children; ++c) {
    if (next >= out.size()) return Status::Corrupt("Parquet schema: missing children");
    FLOE_ASSIGN_OR_RETURN(next, MapNode(&out, next, FindIn(mapping.fields(), out[next].name), 1));
  }
  return out;
}

bool HasNoFieldIds(const std::vector<pq::SchemaElement>& elements) {
  for (size_t i = 1; i < elements.size(); ++i) {
    if (elements[i].field_id) return false;
  }
  return true;
}

}  // namespace floe::iceberg
