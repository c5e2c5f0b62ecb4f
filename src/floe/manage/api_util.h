// What the management API's handler files share (management_api.cc, dashboard_api.cc): the
// call being answered, list parameters (page, sort, name filter) and the one-page answer
// of a list. Internal to manage/.
#pragma once

#include <cstddef>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "floe/base/status.h"
#include "floe/catalog/catalog_pool.h"
#include "floe/http/http.h"
#include "floe/iceberg/table.h"
#include "floe/manage/management_api.h"

namespace floe::manage {

struct ManagementApi::Call {
  const http::HttpRequest& request;
  const AccessCheck& access;
  std::vector<std::pair<std::string, std::string>> query;

  std::optional<std::string> Query(std::string_view name) const {
    for (const auto& [k, v] : query) {
      if (k == name) return v;
    }
    return std::nullopt;
  }
  bool CanRead(std::string_view catalog) const { return !access || access(catalog, false); }
};

namespace api {

using OJson = nlohmann::ordered_json;

constexpr size_t kDefaultPageSize = 100;
constexpr size_t kMaxPageSize = 1000;

http::HttpResponse JsonResponse(int status, const OJson& body);
std::string Lower(std::string_view s);

// List parameters: page, sort and the name filter.
struct ListParams {
  size_t offset = 0;
  size_t size = kDefaultPageSize;
  std::string sort_key;
  bool descending = false;
  std::string q;  // lowercase
};

// A table loaded for the API: the catalog lease, its operations and the table.
struct LoadedTable {
  catalog::CatalogLease lease;
  std::unique_ptr<iceberg::TableOperations> ops;
  std::unique_ptr<iceberg::Table> table;
};

// kNotFound for an unknown catalog or table; the catalog's errors.
Result<LoadedTable> LoadTableFrom(catalog::CatalogRegistry& registry,
                                  const std::string& catalog_name,
                                  const catalog::TableIdentifier& id);

// `page-size`, `page-token`, `sort` (one of `sort_keys`, '-' in front for descending) and
// `q`; kInvalidArgument for a bad value.
Result<ListParams> ParseListParams(const ManagementApi::Call& call,
                                   std::initializer_list<std::string_view> sort_keys,
                                   std::string_view default_sort);

// Whether `name` holds the `q` filter (case-insensitive); true without one.
bool MatchesQuery(const ListParams& p, std::string_view name);

// Sorts `items` by the sort key (ties keep their order), then answers one page.
http::HttpResponse Page(std::vector<OJson> items, const ListParams& p);

}  // namespace api
}  // namespace floe::manage
