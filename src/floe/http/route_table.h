// RouteTable: an HTTP API's routes as data. A row names a method, a path template (literal
// segments and `{name}` parameters: "/v1/{prefix}/namespaces/{namespace}"), the access the
// call needs, whether its answer may be cached, the API's id for the operation and the
// handler. The one table answers what an API's router, its authorization check and its
// advertised endpoint list would otherwise each describe by hand: which row a request is,
// which methods a path has (a 405's Allow), and what access a request needs.
//
// Thread-safety: a table is immutable after construction; any thread may look up.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace floe::http {

enum class Access : uint8_t { kRead, kWrite };

// A row of a route table without its handler.
struct RouteInfo {
  std::string_view method;  // "GET", "POST", ...
  std::string_view path;    // the path template
  Access access = Access::kWrite;
  bool cacheable = false;        // what may be cached is each API's (its header says)
  std::string_view endpoint_id;  // the operation's name in the API's spec (operationId)
};

// The parameters a path template bound, decoded.
class PathParams {
 public:
  // The segment bound to `{name}`. REQUIRES: the matched template has the parameter.
  const std::string& Get(std::string_view name) const;
  void Add(std::string_view name, std::string value);

 private:
  std::vector<std::pair<std::string_view, std::string>> values_;
};

struct RouteTableOptions {
  // A GET row also answers HEAD (RFC 9110 §9.3.2), as it does for APIs without HEAD rows of
  // their own.
  bool head_as_get = false;
};

// The matcher over the rows' methods and templates, without handlers.
class RouteMatcher {
 public:
  // REQUIRES: every path is a template: '/'-separated non-empty segments, a parameter being a
  // whole segment `{name}`. `routes` must outlive the matcher.
  RouteMatcher(std::span<const RouteInfo> routes, RouteTableOptions options);

  struct Match {
    // The row, or nullopt when none has the method and path.
    std::optional<size_t> row;
    // Some row has the path (a wrong method: 405 rather than 404).
    bool path_known = false;
    PathParams params;
  };
  // The row answering `method` on `segments` (decoded path segments, http::SplitPath); the
  // first in table order when several would.
  Match Find(std::string_view method, std::span<const std::string> segments) const;

  // The methods of the rows whose template matches `segments`, in table order and
  // ", "-separated, HEAD after GET with head_as_get: a 405's Allow header.
  std::string AllowedMethods(std::span<const std::string> segments) const;

  // The access a request needs: its row's. A request no row answers (which the API refuses
  // with 404 or 405) needs read for GET and HEAD; for another method, what the other-than-
  // GET/HEAD rows of the nearest template at or above its path need (write when any of them
  // writes), and write when no such template exists: a mistake under read-only POST routes
  // is answered as any read, and everything else unknown fails closed.
  Access RequiredAccess(std::string_view method, std::span<const std::string> segments) const;

 private:
  struct Segment {
    std::string_view text;  // a literal, or the parameter's name
    bool param = false;
  };
  bool MethodMatches(std::string_view row_method, std::string_view method) const;
  // Whether `segments` starts with (prefix) or is (whole) the template of `row`.
  bool PathMatches(size_t row, std::span<const std::string> segments, PathParams* params) const;

  std::span<const RouteInfo> routes_;
  RouteTableOptions options_;
  std::vector<std::vector<Segment>> templates_;  // per row
};

// One row: its description and its handler.
template <typename Handler>
struct Route {
  RouteInfo info;
  Handler handler;
};

// Rows with handlers and the matcher over them.
template <typename Handler>
class RouteTable {
 public:
  explicit RouteTable(std::vector<Route<Handler>> routes, RouteTableOptions options = {})
      : routes_(std::move(routes)), infos_(InfosOf(routes_)), matcher_(infos_, options) {}
  RouteTable(const RouteTable&) = delete;
  RouteTable& operator=(const RouteTable&) = delete;

  struct Lookup {
    const Route<Handler>* route = nullptr;  // null: no row answers
    bool path_known = false;                // see RouteMatcher::Match
    PathParams params;
  };
  Lookup Find(std::string_view method, std::span<const std::string> segments) const {
    RouteMatcher::Match match = matcher_.Find(method, segments);
    return Lookup{match.row ? &routes_[*match.row] : nullptr, match.path_known,
                  std::move(match.params)};
  }

  std::span<const RouteInfo> infos() const { return infos_; }
  const RouteMatcher& matcher() const { return matcher_; }

 private:
  static std::vector<RouteInfo> InfosOf(const std::vector<Route<Handler>>& routes) {
    std::vector<RouteInfo> out;
    out.reserve(routes.size());
    for (const Route<Handler>& route : routes) out.push_back(route.info);
    return out;
  }

  std::vector<Route<Handler>> routes_;
  std::vector<RouteInfo> infos_;
  RouteMatcher matcher_;
};

}  // namespace floe::http
