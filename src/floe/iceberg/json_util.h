// Private helpers for reading untrusted JSON with nlohmann::json without exceptions.
// Not installed as part of the public API; only included by floe/iceberg .cc files.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "floe/base/status.h"

namespace floe::iceberg::internal {

using Json = nlohmann::json;

// Parses JSON text; malformed text or nesting deeper than kMaxStoredJsonDepth (floe/base/json.h)
// is kInvalidArgument naming `what`.
Result<Json> ParseJson(std::string_view text, std::string_view what);

// Member lookups on an object. `Get*` fail when the member is absent or has the wrong JSON
// type; `GetOptional*` return nullopt when absent or null. Messages name `key`.
Result<const Json*> GetMember(const Json& obj, std::string_view key);
Result<std::string> GetString(const Json& obj, std::string_view key);
Result<int64_t> GetInt64(const Json& obj, std::string_view key);
Result<int32_t> GetInt32(const Json& obj, std::string_view key);
Result<bool> GetBool(const Json& obj, std::string_view key);
Result<std::optional<std::string>> GetOptionalString(const Json& obj, std::string_view key);
Result<std::optional<int32_t>> GetOptionalInt32(const Json& obj, std::string_view key);
Result<std::optional<bool>> GetOptionalBool(const Json& obj, std::string_view key);

// A JSON value as int32 / int64 (integral JSON numbers only).
Result<int32_t> AsInt32(const Json& v, std::string_view what);
Result<int64_t> AsInt64(const Json& v, std::string_view what);

// Serializes without throwing (invalid UTF-8 in strings is replaced).
std::string Dump(const Json& v);

}  // namespace floe::iceberg::internal
