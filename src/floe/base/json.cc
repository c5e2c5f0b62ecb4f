#include "floe/base/json.h"

namespace floe {

Status CheckJsonDepth(std::string_view text, int max_depth) {
  int depth = 0;
  bool in_string = false;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (in_string) {
      if (c == '\\') {
        ++i;  // the escaped character, whatever it is
      } else if (c == '"') {
        in_string = false;
      }
      continue;
    }
    switch (c) {
      case '"': in_string = true; break;
      case '[':
      case '{':
        if (++depth > max_depth) {
          return Status::InvalidArgument("JSON nested deeper than {} levels (at byte {})",
                                         max_depth, i);
        }
        break;
      case ']':
      case '}':
        if (depth > 0) --depth;
        break;
      default: break;
    }
  }
  return Status::OK();
}

namespace {

template <typename Json>
Result<Json> Parse(std::string_view text, int max_depth) {
  if (Status depth = CheckJsonDepth(text, max_depth); !depth.ok()) return depth;
  try {
    return Json::parse(text.begin(), text.end());
  } catch (const nlohmann::json::parse_error& e) {
    return Status::InvalidArgument("malformed JSON at byte {}", e.byte);
  } catch (const std::exception&) {
    return Status::InvalidArgument("malformed JSON");
  }
}

}  // namespace

Result<nlohmann::json> ParseJson(std::string_view text, int max_depth) {
  return Parse<nlohmann::json>(text, max_depth);
}

Result<nlohmann::ordered_json> ParseOrderedJson(std::string_view text, int max_depth) {
  return Parse<nlohmann::ordered_json>(text, max_depth);
}

}  // namespace floe
