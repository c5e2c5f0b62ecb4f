// Private helpers for the CLI text forms of partition specs and sort orders.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "floe/base/status.h"
#include "floe/iceberg/transform.h"

namespace floe::iceberg::internal {

std::string_view TrimSpace(std::string_view s);
// Splits on commas outside parentheses and brackets; parts are trimmed.
std::vector<std::string_view> SplitTopLevel(std::string_view s);
// Splits off whitespace-separated words after a leading term: "bucket(16, id) as x" ->
// term "bucket(16, id)", rest {"as", "x"}.
std::pair<std::string_view, std::vector<std::string>> SplitTerm(std::string_view s);
// "day(ts)" -> (day, "ts"); "bucket(16, id)" -> (bucket[16], "id"); "x" -> (identity, "x").
Result<std::pair<Transform, std::string>> ParseTransformTerm(std::string_view term);

}  // namespace floe::iceberg::internal
