#include "floe/iceberg/json_util.h"

#include <limits>

#include "floe/base/json.h"
#include "floe/base/macros.h"

namespace floe::iceberg::internal {

Result<Json> ParseJson(std::string_view text, std::string_view what) {
  // Depth-checked before the DOM is built: metadata files come from outside. The stored
  // limit: metadata nests deeper than the request that created it (floe/base/json.h).
  Result<Json> j = floe::ParseJson(text, kMaxStoredJsonDepth);
  if (!j.ok()) return j.status().WithContext("{}", what);
  return j;
}

Result<const Json*> GetMember(const Json& obj, std::string_view key) {
  if (!obj.is_object()) return Status::InvalidArgument("expected a JSON object for '{}'", key);
  auto it = obj.find(key);
  if (it == obj.end()) return Status::InvalidArgument("missing '{}'", key);
  return &*it;
}

Result<std::string> GetString(const Json& obj, std::string_view key) {
  FLOE_ASSIGN_OR_RETURN(const Json* v, GetMember(obj, key));
  if (!v->is_string()) return Status::InvalidArgument("'{}' must be a string", key);
  return v->get_ref<const std::string&>();
}

Result<int64_t> AsInt64(const Json& v, std::string_view what) {
  if (v.is_number_integer()) {
    if (v.is_number_unsigned()) {
      auto u = v.get<uint64_t>();
      if (u > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) {
        return Status::InvalidArgument("'{}' is out of range", what);
      }
      return static_cast<int64_t>(u);
    }
    return v.get<int64_t>();
  }
  return Status::InvalidArgument("'{}' must be an integer", what);
}

Result<int32_t> AsInt32(const Json& v, std::string_view what) {
  FLOE_ASSIGN_OR_RETURN(int64_t x, AsInt64(v, what));
  if (x < std::numeric_limits<int32_t>::min() || x > std::numeric_limits<int32_t>::max()) {
    return Status::InvalidArgument("'{}' is out of the int range", what);
  }
  return static_cast<int32_t>(x);
}

Result<int64_t> GetInt64(const Json& obj, std::string_view key) {
  FLOE_ASSIGN_OR_RETURN(const Json* v, GetMember(obj, key));
  return AsInt64(*v, key);
}

Result<int32_t> GetInt32(const Json& obj, std::string_view key) {
  FLOE_ASSIGN_OR_RETURN(const Json* v, GetMember(obj, key));
  return AsInt32(*v, key);
}

Result<bool> GetBool(const Json& obj, std::string_view key) {
  FLOE_ASSIGN_OR_RETURN(const Json* v, GetMember(obj, key));
  if (!v->is_boolean()) return Status::InvalidArgument("'{}' must be a boolean", key);
  return v->get<bool>();
}

Result<std::optional<std::string>> GetOptionalString(const Json& obj, std::string_view key) {
  if (!obj.is_object()) return Status::InvalidArgument("expected a JSON object for '{}'", key);
  auto it = obj.find(key);
  if (it == obj.end() || it->is_null()) return std::optional<std::string>();
  if (!it->is_string()) return Status::InvalidArgument("'{}' must be a string", key);
  return std::optional<std::string>(it->get_ref<const std::string&>());
}

Result<std::optional<int32_t>> GetOptionalInt32(const Json& obj, std::string_view key) {
  if (!obj.is_object()) return Status::InvalidArgument("expected a JSON object for '{}'", key);
  auto it = obj.find(key);
  if (it == obj.end() || it->is_null()) return std::optional<int32_t>();
  FLOE_ASSIGN_OR_RETURN(int32_t v, AsInt32(*it, key));
  return std::optional<int32_t>(v);
}

Result<std::optional<bool>> GetOptionalBool(const Json& obj, std::string_view key) {
  if (!obj.is_object()) return Status::InvalidArgument("expected a JSON object for '{}'", key);
  auto it = obj.find(key);
  if (it == obj.end() || it->is_null()) return std::optional<bool>();
  if (!it->is_boolean()) return Status::InvalidArgument("'{}' must be a boolean", key);
  return std::optional<bool>(it->get<bool>());
}

std::string Dump(const Json& v) { return v.dump(-1, ' ', false, Json::error_handler_t::replace); }

}  // namespace floe::iceberg::internal
