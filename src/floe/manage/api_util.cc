#include "floe/manage/api_util.h"

#include <algorithm>
#include <cctype>
#include <charconv>

#include <fmt/format.h>

#include "floe/base/macros.h"

namespace floe::manage::api {

using http::HttpResponse;

HttpResponse JsonResponse(int status, const OJson& body) {
  return HttpResponse::Json(status, body.dump());
}

std::string Lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

Result<ListParams> ParseListParams(const ManagementApi::Call& call,
                                   std::initializer_list<std::string_view> sort_keys,
                                   std::string_view default_sort) {
  ListParams p;
  if (auto size = call.Query("page-size")) {
    int64_t n = 0;
    auto [end, ec] = std::from_chars(size->data(), size->data() + size->size(), n);
    if (ec != std::errc() || end != size->data() + size->size() || n < 1 ||
        n > static_cast<int64_t>(kMaxPageSize)) {
      return Status::InvalidArgument("page-size must be an integer from 1 to {}", kMaxPageSize);
    }
    p.size = static_cast<size_t>(n);
  }
  if (auto token = call.Query("page-token"); token && !token->empty()) {
    // The token is the offset of the page's first item, prefixed so that it reads as
    // opaque and so that a stray number is refused.
    uint64_t n = 0;
    const char* begin = token->data() + 1;
    const char* stop = token->data() + token->size();
    auto [end, ec] = std::from_chars(begin, stop, n);
    if ((*token)[0] != 'o' || ec != std::errc() || end != stop || n > (1ULL << 40)) {
      return Status::InvalidArgument("page-token is not a token of this list");
    }
    p.offset = static_cast<size_t>(n);
  }
  std::string sort(call.Query("sort").value_or(std::string(default_sort)));
  if (sort.starts_with('-')) {
    p.descending = true;
    sort.erase(0, 1);
  }
  if (std::find(sort_keys.begin(), sort_keys.end(), sort) == sort_keys.end()) {
    std::string allowed;
    for (std::string_view k : sort_keys) {
      if (!allowed.empty()) allowed += ", ";
      allowed += k;
    }
    return Status::InvalidArgument("sort must be one of {} (with '-' for descending)", allowed);
  }
  p.sort_key = std::move(sort);
  p.q = Lower(call.Query("q").value_or(""));
  return p;
}

bool MatchesQuery(const ListParams& p, std::string_view name) {
  return p.q.empty() || Lower(name).find(p.q) != std::string::npos;
}

HttpResponse Page(std::vector<OJson> items, const ListParams& p) {
  std::stable_sort(items.begin(), items.end(), [&](const OJson& a, const OJson& b) {
    const OJson& x = a.contains(p.sort_key) ? a[p.sort_key] : OJson();
    const OJson& y = b.contains(p.sort_key) ? b[p.sort_key] : OJson();
    return p.descending ? y < x : x < y;
  });
  OJson body = OJson::object();
  OJson page = OJson::array();
  for (size_t i = p.offset; i < items.size() && i < p.offset + p.size; ++i) {
    page.push_back(std::move(items[i]));
  }
  body["items"] = std::move(page);
  body["total"] = items.size();
  if (p.offset + p.size < items.size()) {
    body["next-page-token"] = fmt::format("o{}", p.offset + p.size);
  }
  return JsonResponse(200, body);
}

Result<LoadedTable> LoadTableFrom(catalog::CatalogRegistry& registry,
                                  const std::string& catalog_name,
                                  const catalog::TableIdentifier& id) {
  FLOE_ASSIGN_OR_RETURN(auto pool, registry.Get(catalog_name));
  FLOE_ASSIGN_OR_RETURN(catalog::CatalogLease lease, pool->Acquire());
  FLOE_ASSIGN_OR_RETURN(auto ops, lease->LoadTable(id));
  FLOE_ASSIGN_OR_RETURN(auto table, iceberg::Table::Load(*ops));
  return LoadedTable{std::move(lease), std::move(ops), std::move(table)};
}

}  // namespace floe::manage::api
