#include "floe/ingest/avro_references.h"

#include <set>

#include <nlohmann/json.hpp>

#include "floe/base/json.h"
#include "floe/base/macros.h"

namespace floe::ingest {

namespace {

using Json = nlohmann::ordered_json;

constexpr int kMaxDepth = 64;

bool IsPrimitive(std::string_view name) {
  return name == "null" || name == "boolean" || name == "int" || name == "long" ||
         name == "float" || name == "double" || name == "bytes" || name == "string";
}

bool IsNamedDefinition(const Json& j) {
  if (!j.is_object() || !j.contains("type") || !j["type"].is_string() || !j.contains("name") ||
      !j["name"].is_string()) {
    return false;
  }
  const std::string& t = j["type"].get_ref<const std::string&>();
  return t == "record" || t == "error" || t == "enum" || t == "fixed";
}

// Spec, "Names": a dotted name is a fullname; otherwise the namespace attribute, else the
// enclosing one, qualifies it. Sets `ns` to the definition's namespace.
std::string FullName(const Json& definition, const std::string& enclosing, std::string* ns) {
  const std::string& name = definition["name"].get_ref<const std::string&>();
  if (size_t dot = name.rfind('.'); dot != std::string::npos) {
    *ns = name.substr(0, dot);
    return name;
  }
  *ns = enclosing;
  if (definition.contains("namespace") && definition["namespace"].is_string()) {
    *ns = definition["namespace"].get<std::string>();
  }
  return ns->empty() ? name : *ns + "." + name;
}

// Every named definition in a referenced schema, by full name, with its namespace made
// explicit so that it keeps its full name wherever it is written.
void CollectDefinitions(const Json& j, const std::string& ns, int depth,
                        std::map<std::string, Json>* out) {
  if (depth > kMaxDepth) return;
  if (j.is_array()) {
    for (const Json& member : j) CollectDefinitions(member, ns, depth + 1, out);
    return;
  }
  if (!j.is_object()) return;
  std::string inner = ns;
  if (IsNamedDefinition(j)) {
    const std::string full = FullName(j, ns, &inner);
    Json copy = j;
    if (j["name"].get_ref<const std::string&>().find('.') == std::string::npos) {
      copy["namespace"] = inner;
    }
    out->emplace(full, std::move(copy));
  }
  if (j.contains("fields") && j["fields"].is_array()) {
    for (const Json& f : j["fields"]) {
      if (f.is_object() && f.contains("type")) CollectDefinitions(f["type"], inner, depth + 1, out);
    }
  }
  for (const char* key : {"type", "items", "values"}) {
    if (j.contains(key) && !j[key].is_string()) CollectDefinitions(j[key], inner, depth + 1, out);
  }
}

struct Expander {
  const std::map<std::string, Json>& definitions;
  std::set<std::string> defined;

  // Walks the schema at `j` (namespace `ns`), writing in referenced definitions.
  Status Walk(Json& j, const std::string& ns, int depth) {
    if (depth > kMaxDepth) return Status::InvalidArgument("the Avro schema nests too deeply");
    if (j.is_string()) return Reference(j, ns, depth);
    if (j.is_array()) {
      for (Json& member : j) FLOE_RETURN_IF_ERROR(Walk(member, ns, depth + 1));
      return Status::OK();
    }
    if (!j.is_object() || !j.contains("type")) return Status::OK();
    std::string inner = ns;
    if (IsNamedDefinition(j)) {
      const std::string full = FullName(j, ns, &inner);
      if (!defined.insert(full).second) {
        // Already written in with an earlier definition: a second one would be a
        // redefinition, so this one becomes a use of the name.
        j = full;
        return Status::OK();
      }
    }
    if (j.contains("fields") && j["fields"].is_array()) {
      for (Json& f : j["fields"]) {
        if (f.is_object() && f.contains("type")) {
          FLOE_RETURN_IF_ERROR(Walk(f["type"], inner, depth + 1));
        }
      }
    }
    for (const char* key : {"items", "values"}) {
      if (j.contains(key)) FLOE_RETURN_IF_ERROR(Walk(j[key], inner, depth + 1));
    }
    // {"type": "Name"} or {"type": {...}}: a schema in the type position.
    if (!IsNamedDefinition(j)) {
      Json& type = j["type"];
      if (!type.is_string() || !IsPrimitive(type.get_ref<const std::string&>())) {
        FLOE_RETURN_IF_ERROR(Walk(type, inner, depth + 1));
      }
    }
    return Status::OK();
  }

  // A name in a schema position: the first use of a referenced type gets its definition.
  Status Reference(Json& j, const std::string& ns, int depth) {
    const std::string name = j.get<std::string>();
    if (IsPrimitive(name) || name == "record" || name == "enum" || name == "fixed" ||
        name == "array" || name == "map" || name == "error") {
      return Status::OK();
    }
    std::string candidates[2] = {name, std::string()};
    if (name.find('.') == std::string::npos && !ns.empty()) candidates[0] = ns + "." + name;
    if (candidates[0] != name) candidates[1] = name;
    for (const std::string& full : candidates) {
      if (full.empty()) continue;
      if (defined.contains(full)) return Status::OK();
      auto it = definitions.find(full);
      if (it == definitions.end()) continue;
      j = it->second;
      return Walk(j, ns, depth + 1);
    }
    return Status::OK();
  }
};

}  // namespace

Result<std::string> ExpandAvroReferences(std::string_view schema,
                                         const std::map<std::string, std::string>& referenced) {
  std::map<std::string, Json> definitions;
  for (const auto& [name, text] : referenced) {
    Result<Json> j = ParseOrderedJson(text);
    if (!j.ok()) return j.status().WithContext("referenced schema '{}' is not JSON", name);
    CollectDefinitions(*j, "", 0, &definitions);
  }
  Result<Json> parsed = ParseOrderedJson(schema);
  if (!parsed.ok()) return parsed.status().WithContext("the Avro schema is not JSON");
  Json& root = *parsed;
  if (definitions.empty()) return std::string(schema);
  Expander expander{definitions, {}};
  FLOE_RETURN_IF_ERROR(expander.Walk(root, "", 0));
  return root.dump();
}

}  // namespace floe::ingest
