#include "floe/http/route_table.h"

#include "floe/base/macros.h"

namespace floe::http {

namespace {

bool IsGetOrHead(std::string_view method) { return method == "GET" || method == "HEAD"; }

}  // namespace

const std::string& PathParams::Get(std::string_view name) const {
  for (const auto& [key, value] : values_) {
    if (key == name) return value;
  }
  // A handler asked for a parameter its own template does not have: our bug.
  FLOE_DCHECK(false);
  static const std::string kNone;
  return kNone;
}

void PathParams::Add(std::string_view name, std::string value) {
  values_.emplace_back(name, std::move(value));
}

RouteMatcher::RouteMatcher(std::span<const RouteInfo> routes, RouteTableOptions options)
    : routes_(routes), options_(options) {
  templates_.reserve(routes.size());
  for (const RouteInfo& route : routes) {
    std::vector<Segment> segments;
    std::string_view rest = route.path;
    FLOE_CHECK(rest.starts_with('/'));
    while (!rest.empty()) {
      rest.remove_prefix(1);  // the '/'
      size_t slash = rest.find('/');
      std::string_view part = rest.substr(0, slash);
      rest = slash == std::string_view::npos ? std::string_view() : rest.substr(slash);
      FLOE_CHECK(!part.empty());
      if (part.size() >= 2 && part.front() == '{' && part.back() == '}') {
        segments.push_back({part.substr(1, part.size() - 2), true});
      } else {
        FLOE_CHECK(part.find_first_of("{}") == std::string_view::npos);
        segments.push_back({part, false});
      }
    }
    templates_.push_back(std::move(segments));
  }
}

bool RouteMatcher::MethodMatches(std::string_view row_method, std::string_view method) const {
  return row_method == method || (options_.head_as_get && method == "HEAD" && row_method == "GET");
}

bool RouteMatcher::PathMatches(size_t row, std::span<const std::string> segments,
                               PathParams* params) const {
  const std::vector<Segment>& tmpl = templates_[row];
  if (tmpl.size() != segments.size()) return false;
  for (size_t i = 0; i < tmpl.size(); ++i) {
    if (!tmpl[i].param && tmpl[i].text != segments[i]) return false;
  }
  if (params != nullptr) {
    for (size_t i = 0; i < tmpl.size(); ++i) {
      if (tmpl[i].param) params->Add(tmpl[i].text, segments[i]);
    }
  }
  return true;
}

RouteMatcher::Match RouteMatcher::Find(std::string_view method,
                                       std::span<const std::string> segments) const {
  Match match;
  for (size_t row = 0; row < routes_.size(); ++row) {
    if (!PathMatches(row, segments, nullptr)) continue;
    match.path_known = true;
    if (!MethodMatches(routes_[row].method, method)) continue;
    match.row = row;
    PathMatches(row, segments, &match.params);
    break;
  }
  return match;
}

std::string RouteMatcher::AllowedMethods(std::span<const std::string> segments) const {
  std::string out;
  auto add = [&out](std::string_view method) {
    if (!out.empty()) out += ", ";
    out += method;
  };
  for (size_t row = 0; row < routes_.size(); ++row) {
    if (!PathMatches(row, segments, nullptr)) continue;
    add(routes_[row].method);
    if (options_.head_as_get && routes_[row].method == "GET") add("HEAD");
  }
  return out;
}

Access RouteMatcher::RequiredAccess(std::string_view method,
                                    std::span<const std::string> segments) const {
  Match match = Find(method, segments);
  if (match.row) return routes_[*match.row].access;
  if (IsGetOrHead(method)) return Access::kRead;
  for (size_t depth = segments.size(); depth > 0; --depth) {
    std::span<const std::string> prefix = segments.first(depth);
    bool any = false;
    bool writes = false;
    for (size_t row = 0; row < routes_.size(); ++row) {
      if (IsGetOrHead(routes_[row].method) || !PathMatches(row, prefix, nullptr)) continue;
      any = true;
      writes = writes || routes_[row].access == Access::kWrite;
    }
    if (any) return writes ? Access::kWrite : Access::kRead;
  }
  return Access::kWrite;
}

}  // namespace floe::http
