// JSON text laid out the way Iceberg Java writes it (Jackson's JsonGenerator).
//
// Metadata files are written by TableMetadataParser with Jackson's DefaultPrettyPrinter:
// objects one member per line indented by two spaces, `"key" : value`, arrays inline
// (`[ 1, 2 ]`, `[ {` ... `} ]`), empty containers as `{ }` and `[ ]`, no trailing newline.
// REST payloads use the compact form. Strings escape `"`, `\` and control characters
// (`\n`-style where JSON has one, else `\u00XX` with upper-case hex); other characters
// are written as UTF-8. Doubles follow Java's Double.toString (`1.0`, `1.0E10`).
#pragma once

#include <string>

#include <nlohmann/json_fwd.hpp>

namespace floe::iceberg {

// Renders `value` (keys in the order they were inserted) like Jackson.
std::string ToJavaJson(const nlohmann::ordered_json& value, bool pretty);

}  // namespace floe::iceberg
