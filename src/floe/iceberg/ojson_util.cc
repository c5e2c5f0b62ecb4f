#include "floe/iceberg/ojson_util.h"

#include <limits>

#include "floe/base/macros.h"

namespace floe::iceberg::ojson {

Result<OJson> Parse(std::string_view text, std::string_view what, int max_depth) {
  // Depth-checked before the DOM is built: metadata files and requests come from outside.
  Result<OJson> j = ParseOrderedJson(text, max_depth);
  if (!j.ok()) return j.status().WithContext("{}", what);
  return j;
}

const OJson* Find(const OJson& obj, std::string_view key) {
  if (!obj.is_object()) return nullptr;
  auto it = obj.find(key);
  if (it == obj.end() || it->is_null()) return nullptr;
  return &*it;
}

Result<const OJson*> Get(const OJson& obj, std::string_view key) {
  if (!obj.is_object()) return Status::InvalidArgument("expected a JSON object holding '{}'", key);
  const OJson* v = Find(obj, key);
  if (v == nullptr) return Status::InvalidArgument("missing '{}'", key);
  return v;
}

Result<std::string> GetString(const OJson& obj, std::string_view key) {
  FLOE_ASSIGN_OR_RETURN(const OJson* v, Get(obj, key));
  if (!v->is_string()) return Status::InvalidArgument("'{}' must be a string", key);
  return v->get_ref<const std::string&>();
}

Result<int64_t> AsLong(const OJson& v, std::string_view what) {
  if (v.is_number_unsigned()) {
    auto u = v.get<uint64_t>();
    if (u > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) {
      return Status::InvalidArgument("'{}' is out of the long range", what);
    }
    return static_cast<int64_t>(u);
  }
  if (v.is_number_integer()) return v.get<int64_t>();
  return Status::InvalidArgument("'{}' must be an integer", what);
}

Result<int32_t> AsInt(const OJson& v, std::string_view what) {
  FLOE_ASSIGN_OR_RETURN(int64_t x, AsLong(v, what));
  if (x < std::numeric_limits<int32_t>::min() || x > std::numeric_limits<int32_t>::max()) {
    return Status::InvalidArgument("'{}' is out of the int range", what);
  }
  return static_cast<int32_t>(x);
}

Result<int64_t> GetLong(const OJson& obj, std::string_view key) {
  FLOE_ASSIGN_OR_RETURN(const OJson* v, Get(obj, key));
  return AsLong(*v, key);
}

Result<int32_t> GetInt(const OJson& obj, std::string_view key) {
  FLOE_ASSIGN_OR_RETURN(const OJson* v, Get(obj, key));
  return AsInt(*v, key);
}

Result<std::optional<std::string>> OptString(const OJson& obj, std::string_view key) {
  const OJson* v = Find(obj, key);
  if (v == nullptr) return std::optional<std::string>();
  if (!v->is_string()) return Status::InvalidArgument("'{}' must be a string", key);
  return std::optional<std::string>(v->get_ref<const std::string&>());
}

Result<std::optional<int64_t>> OptLong(const OJson& obj, std::string_view key) {
  const OJson* v = Find(obj, key);
  if (v == nullptr) return std::optional<int64_t>();
  FLOE_ASSIGN_OR_RETURN(int64_t x, AsLong(*v, key));
  return std::optional<int64_t>(x);
}

Result<std::optional<int32_t>> OptInt(const OJson& obj, std::string_view key) {
  const OJson* v = Find(obj, key);
  if (v == nullptr) return std::optional<int32_t>();
  FLOE_ASSIGN_OR_RETURN(int32_t x, AsInt(*v, key));
  return std::optional<int32_t>(x);
}

Result<const OJson*> AsArray(const OJson& v, std::string_view what) {
  if (!v.is_array()) return Status::InvalidArgument("'{}' must be an array", what);
  return &v;
}

Result<std::map<std::string, std::string>> GetStringMap(const OJson& obj, std::string_view key) {
  std::map<std::string, std::string> out;
  const OJson* v = Find(obj, key);
  if (v == nullptr) return out;
  if (!v->is_object()) return Status::InvalidArgument("'{}' must be an object", key);
  for (const auto& [k, value] : v->items()) {
    if (!value.is_string()) {
      return Status::InvalidArgument("'{}' value for '{}' must be a string", key, k);
    }
    out[k] = value.get_ref<const std::string&>();
  }
  return out;
}

Result<std::vector<std::string>> GetStringList(const OJson& obj, std::string_view key) {
  FLOE_ASSIGN_OR_RETURN(const OJson* v, Get(obj, key));
  FLOE_RETURN_IF_ERROR(AsArray(*v, key));
  std::vector<std::string> out;
  for (const auto& e : *v) {
    if (!e.is_string()) return Status::InvalidArgument("'{}' elements must be strings", key);
    out.push_back(e.get_ref<const std::string&>());
  }
  return out;
}

Result<std::vector<int64_t>> GetLongList(const OJson& obj, std::string_view key) {
  FLOE_ASSIGN_OR_RETURN(const OJson* v, Get(obj, key));
  FLOE_RETURN_IF_ERROR(AsArray(*v, key));
  std::vector<int64_t> out;
  for (const auto& e : *v) {
    FLOE_ASSIGN_OR_RETURN(int64_t x, AsLong(e, key));
    out.push_back(x);
  }
  return out;
}

Result<std::vector<int32_t>> GetIntList(const OJson& obj, std::string_view key) {
  FLOE_ASSIGN_OR_RETURN(const OJson* v, Get(obj, key));
  FLOE_RETURN_IF_ERROR(AsArray(*v, key));
  std::vector<int32_t> out;
  for (const auto& e : *v) {
    FLOE_ASSIGN_OR_RETURN(int32_t x, AsInt(e, key));
    out.push_back(x);
  }
  return out;
}

OJson StringMapToJson(const std::map<std::string, std::string>& m) {
  OJson out = OJson::object();
  for (const auto& [k, v] : m) out[k] = v;
  return out;
}

}  // namespace floe::iceberg::ojson
