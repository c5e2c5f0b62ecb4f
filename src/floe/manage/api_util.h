// Helpers the management API's handler files share (management_api.cc defines them):
// the request being answered, JSON bodies, errors, and list paging / sorting / filtering.
// Internal to floe_manage.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include <nlohmann/json.hpp>

#include "floe/base/status.h"
#include "floe/http/http.h"
#include "floe/http/route_table.h"
#include "floe/manage/management_api.h"

namespace floe::manage {

struct ManagementApi::Call {
  const http::HttpRequest& request;
  const AccessCheck& access;
  std::vector<std::pair<std::string, std::string>> query;
  // The route's path parameters (openapi.json's names: {catalog}, {namespace}, ...).
  http::PathParams params;

  std::optional<std::string> Query(std::string_view name) const {
    for (const auto& [k, v] : query) {
      if (k == name) return v;
    }
    return std::nullopt;
  }
  bool CanRead(std::string_view catalog) const { return !access || access(catalog, false); }
};

namespace internal {

using OJson = nlohmann::ordered_json;

http::HttpResponse JsonResponse(int status, const OJson& body);
struct ListParams;
// The page token of the page after the one `p` asks for.
std::string NextPageToken(const ListParams& p);
// The REST error body for a failed call (404, 409, 400, 401, 503, 500, ...).
http::HttpResponse FromStatus(const Status& status);
Result<OJson> ParseObjectBody(const http::HttpRequest& request, bool allow_empty);
// kInvalidArgument for a member of `body` outside `known`.
Status CheckKnownFields(const OJson& body, std::initializer_list<std::string_view> known);
Result<std::optional<std::string>> OptionalString(const OJson& body, std::string_view key);
Result<std::map<std::string, std::string>> StringMap(const OJson& body, std::string_view key);

// List parameters: page, sort and the name filter.
struct ListParams {
  size_t offset = 0;
  size_t size = 100;
  std::string sort_key;
  bool descending = false;
  std::string q;  // lowercase
};
Result<ListParams> ParseListParams(const ManagementApi::Call& call,
                                   std::initializer_list<std::string_view> sort_keys,
                                   std::string_view default_sort);
Result<std::optional<std::string>> EnumFilter(const ManagementApi::Call& call,
                                              std::string_view name,
                                              std::span<const std::string_view> allowed);
bool MatchesQuery(const ListParams& p, std::string_view name);
// Sorts `items` by the sort key, then answers one page.
http::HttpResponse Page(std::vector<OJson> items, const ListParams& p);

// A list item's value for sorting: none (sorts first, as JSON null does in Page), a number
// or a string.
using SortValue = std::variant<std::monostate, int64_t, std::string>;

// One page of `items` in the order of `sort_value(item)` (ties keep their order), with only
// the page's items rendered by `to_json`: for long lists (10,000 tables), where building
// every item's JSON to show a hundred would dominate the request. Only the items up to the
// page's end are put in order (a partial sort, O(n log(offset + size))).
template <typename T, typename SortFn, typename JsonFn>
http::HttpResponse PageBy(const std::vector<T>& items, const ListParams& p, SortFn sort_value,
                          JsonFn to_json) {
  std::vector<std::pair<SortValue, size_t>> order;
  order.reserve(items.size());
  for (size_t i = 0; i < items.size(); ++i) order.emplace_back(sort_value(items[i]), i);
  // The index breaks ties, which keeps the input order without a stable sort.
  auto before = [&](const std::pair<SortValue, size_t>& a, const std::pair<SortValue, size_t>& b) {
    if (a.first != b.first) return p.descending ? b.first < a.first : a.first < b.first;
    return a.second < b.second;
  };
  const size_t end = p.offset >= order.size()
                         ? order.size()
                         : p.offset + std::min(p.size, order.size() - p.offset);
  std::partial_sort(order.begin(), order.begin() + static_cast<std::ptrdiff_t>(end), order.end(),
                    before);
  OJson body = OJson::object();
  OJson page = OJson::array();
  for (size_t i = p.offset; i < end; ++i) page.push_back(to_json(items[order[i].second]));
  body["items"] = std::move(page);
  body["total"] = items.size();
  if (p.offset + p.size < items.size()) body["next-page-token"] = NextPageToken(p);
  return JsonResponse(200, body);
}

}  // namespace internal
}  // namespace floe::manage
