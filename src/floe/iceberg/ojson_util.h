// Private helpers for reading untrusted insertion-ordered JSON (nlohmann::ordered_json)
// without exceptions: metadata files keep summary order, so they are parsed ordered.
// Only included by floe/iceberg .cc files.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "floe/base/json.h"
#include "floe/base/status.h"

namespace floe::iceberg::ojson {

using OJson = nlohmann::ordered_json;

// Parses text; malformed text (or trailing bytes) or nesting deeper than `max_depth` is
// kInvalidArgument naming `what`. Request bodies pass kDefaultMaxJsonDepth (floe/base/json.h).
Result<OJson> Parse(std::string_view text, std::string_view what,
                    int max_depth = kMaxStoredJsonDepth);

// Member lookups. `Get*` fail when the member is absent, null or of the wrong type;
// `Opt*` return nullopt when absent or null. Messages name the key.
const OJson* Find(const OJson& obj, std::string_view key);  // nullptr if absent or null
Result<const OJson*> Get(const OJson& obj, std::string_view key);
Result<std::string> GetString(const OJson& obj, std::string_view key);
Result<int64_t> GetLong(const OJson& obj, std::string_view key);
Result<int32_t> GetInt(const OJson& obj, std::string_view key);
Result<std::optional<std::string>> OptString(const OJson& obj, std::string_view key);
Result<std::optional<int64_t>> OptLong(const OJson& obj, std::string_view key);
Result<std::optional<int32_t>> OptInt(const OJson& obj, std::string_view key);
Result<int64_t> AsLong(const OJson& v, std::string_view what);
Result<int32_t> AsInt(const OJson& v, std::string_view what);
// {"k": "v", ...}; an absent or null member is an empty map.
Result<std::map<std::string, std::string>> GetStringMap(const OJson& obj, std::string_view key);
Result<std::vector<std::string>> GetStringList(const OJson& obj, std::string_view key);
Result<std::vector<int64_t>> GetLongList(const OJson& obj, std::string_view key);
Result<std::vector<int32_t>> GetIntList(const OJson& obj, std::string_view key);
// Requires `v` to be an array (for error messages: `what`).
Result<const OJson*> AsArray(const OJson& v, std::string_view what);

OJson StringMapToJson(const std::map<std::string, std::string>& m);

}  // namespace floe::iceberg::ojson
