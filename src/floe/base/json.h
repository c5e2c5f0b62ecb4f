// Bounded JSON parsing for bytes from outside (request bodies, metadata files, schemas).
//
// nlohmann/json builds a DOM of any depth: a body of a few MB nested tens of thousands of
// levels costs hundreds of MB and recursion in the code that walks it. ParseJson first checks
// the nesting depth with one pass over the bytes (no allocation), then parses, and turns the
// library's exceptions into Status: floe code calls these instead of nlohmann::json::parse.
//
// Thread-safety: pure functions.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "floe/base/status.h"

namespace floe {

// Deep enough for every document floe reads (Iceberg metadata nests types a few levels per
// struct; Jackson, which Iceberg Java parses with, stops at 1000 by default).
inline constexpr int kDefaultMaxJsonDepth = 256;

// For documents floe wrote from accepted input and reads back (table metadata, task payloads,
// plan tokens): they nest a few levels deeper than the request that created them (metadata
// holds a created table's schema one level further down than the request did), so reading
// them with kDefaultMaxJsonDepth could refuse a table created at the request limit. Iceberg
// types nest at most 100 levels (iceberg/type.cc), three JSON levels per struct.
inline constexpr int kMaxStoredJsonDepth = 2 * kDefaultMaxJsonDepth;

// InvalidArgument when arrays and objects in `text` nest deeper than `max_depth` (strings
// are skipped, escapes honoured). Says nothing about whether `text` is valid JSON.
Status CheckJsonDepth(std::string_view text, int max_depth = kDefaultMaxJsonDepth);

// Parses `text` after CheckJsonDepth. InvalidArgument for JSON nested too deep or malformed;
// the message names the byte offset, never the library's exception text.
Result<nlohmann::json> ParseJson(std::string_view text, int max_depth = kDefaultMaxJsonDepth);
Result<nlohmann::ordered_json> ParseOrderedJson(std::string_view text,
                                                int max_depth = kDefaultMaxJsonDepth);

}  // namespace floe
