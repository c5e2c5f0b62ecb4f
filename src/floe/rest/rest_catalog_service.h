// RestCatalogService: the Iceberg REST Catalog API (open-api/rest-catalog-open-api.yaml,
// Iceberg 1.11) over floe's catalogs. Every `{prefix}` is a catalog name of the registry
// (GET /v1/config?warehouse=NAME returns it as the `prefix` override); routes without a
// prefix go to the default catalog.
//
// Errors follow the REST error model with the Java exception names clients branch on
// (NoSuchNamespaceException, NoSuchTableException, AlreadyExistsException,
// NamespaceNotEmptyException, CommitFailedException, ...). A commit answers 409 only when
// nothing was committed and 500 (CommitStateUnknownException) when the outcome is unknown.
// Mutations carrying an Idempotency-Key replay their first 2xx/4xx answer for
// `idempotency_lifetime_ms`.
//
// Thread-safety: Handle may be called concurrently.
#pragma once

#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "floe/catalog/catalog_pool.h"
#include "floe/http/http.h"
#include "floe/http/route_table.h"
#include "floe/iceberg/table_metadata.h"
#include "floe/rest/credential_vendor.h"
#include "floe/rest/scan_planning.h"

namespace floe::rest {

struct RestCatalogOptions {
  // The catalog of unprefixed routes and of /v1/config without `warehouse`.
  std::string default_catalog = "default";
  // Returned by /v1/config as `defaults` (merged under the client's own properties).
  std::map<std::string, std::string> config_defaults;
  // Returned by /v1/config as `overrides` besides `prefix`.
  std::map<std::string, std::string> config_overrides;
  // More `defaults` for clients of the named catalog (its storage settings, such as
  // s3.endpoint, so that clients reach the same warehouse); none when empty. A function,
  // since catalogs are attached and edited while the server runs.
  std::function<std::map<std::string, std::string>(const std::string&)> catalog_config_defaults;
  // The `config` and vended `storage-credentials` of load / create / register answers and
  // the /credentials route (credential_vendor.h); null: an empty `config`, no credentials.
  std::shared_ptr<CredentialVendor> credential_vendor;
  int64_t idempotency_lifetime_ms = 30 * 60 * 1000;
  size_t idempotency_max_entries = 100'000;
  // Bytes of LoadTableResult bodies kept for repeated loads.
  size_t load_cache_bytes = 256 << 20;
  // Server-side scan planning thresholds (scan_planning.h).
  ScanPlanningOptions scan_planning;
  // Milliseconds since the epoch (injected for tests).
  std::function<int64_t()> now_ms;
  // Called after each successful table create, register, commit, rename (for both names)
  // and drop (catalog name, table): the optimizer's event.
  std::function<void(const std::string&, const catalog::TableIdentifier&)> on_table_changed;
};

// The catalog a request addresses and whether it may change anything there: what a
// principal's access is checked against (server/server.h).
struct RouteTarget {
  std::string catalog;
  bool writes = false;
};

// Who is calling, as far as the catalog's answers depend on it.
struct CallerContext {
  // The principal may write to the addressed catalog: vended credentials allow writes
  // (otherwise they are read-only).
  bool may_write = true;
  // The authenticated principal's name (empty without auth): Idempotency-Keys are kept per
  // principal.
  std::string principal;
};

// A response with the REST error body ({"error": {"message", "type", "code"}}).
http::HttpResponse ErrorResponse(int code, std::string_view type, std::string_view message);

class RestCatalogService {
 public:
  RestCatalogService(std::shared_ptr<catalog::CatalogRegistry> registry,
                     RestCatalogOptions options);

  // Answers a request whose path starts with /v1/.
  http::HttpResponse Handle(const http::HttpRequest& request, const CallerContext& caller = {});

  // Answers a GET listing (namespaces, tables, views) from the listing cache when the
  // catalog's change probe (catalog::ChangeProbe) shows no commit since Handle filled it, and
  // nullopt otherwise. Runs no catalog query and no file I/O: what a server's io thread may
  // try before handing the request to the worker pool. Access checks are the caller's, as
  // for Handle.
  std::optional<http::HttpResponse> TryCachedListing(const http::HttpRequest& request);

  // The catalog a /v1/ request addresses (the `{prefix}`, the default catalog for routes
  // without one, the `warehouse` of /v1/config) and whether it writes: its route's access
  // (Routes), for requests no route answers http::RouteMatcher::RequiredAccess's.
  // nullopt outside the catalogs: /v1/oauth/tokens, unknown routes, malformed paths.
  std::optional<RouteTarget> Target(const http::HttpRequest& request) const;

  // The routes under /v1/{prefix}/ (/v1/config and /v1/oauth/tokens aside), in the order
  // /v1/config advertises them: the Iceberg REST spec's paths and operationIds, each with the
  // access it needs and whether the listing cache keeps its answers.
  static std::span<const http::RouteInfo> Routes();

  struct Call;

 private:
  struct Handlers;

  http::HttpResponse Dispatch(const http::HttpRequest& request, const CallerContext& caller);
  // Dispatch without its guard against nlohmann exceptions.
  http::HttpResponse Route(const http::HttpRequest& request, const CallerContext& caller);
  // Runs the call's route with the catalog leased (or answers 404 / 405).
  http::HttpResponse Route(Call& call);
  http::HttpResponse Config(const std::vector<std::pair<std::string, std::string>>& query) const;
  static std::vector<std::string> AdvertisedEndpoints();
  // A LoadTableResult body (without `config`) completed with the table's storage settings
  // and, when asked for, vended credentials. `path_to_table` is the request path up to the
  // table's segment (what its /credentials route extends).
  http::HttpResponse LoadResponse(const Call& call, std::string body,
                                  const std::vector<std::string>& locations,
                                  const std::string& path_to_table);
  // Tells options_.on_table_changed that the call changed `id`.
  void TableChanged(const Call& call, const catalog::TableIdentifier& id) const;

  std::shared_ptr<catalog::CatalogRegistry> registry_;
  RestCatalogOptions options_;
  std::unique_ptr<ScanPlanner> scan_planner_;

  struct StoredResponse {
    int64_t expires_ms;
    std::string fingerprint;  // method + path + body: a reused key must name the same call
    http::HttpResponse response;
  };
  // LoadTableResult bodies by metadata file location (files are immutable, so a location
  // names one content forever): a load is then one pointer lookup and a stat. Bounded by
  // bytes, oldest out first.
  struct CachedLoad {
    // Bodies without their closing `config`, which depends on the caller.
    std::string all;                     // snapshots=all
    std::string refs;                    // snapshots=refs
    std::vector<std::string> locations;  // StorageLocations of the metadata
    size_t bytes = 0;
  };
  std::shared_ptr<const CachedLoad> CachedLoadFor(const std::string& location);
  std::shared_ptr<const CachedLoad> CacheLoad(const iceberg::TableMetadataPtr& metadata);
  // Listing answers by request target (path and query), each with the change version of its
  // catalog's database read before the listing query ran: a commit that raced with the query
  // changes the version, so an entry is never newer-labelled than its content. Bounded by
  // entries and bytes (cleared whole when full: listings are cheap to refill).
  struct CachedListing {
    std::weak_ptr<catalog::CatalogPool> pool;
    uint64_t version = 0;
    std::shared_ptr<const http::HttpResponse> response;
  };
  void StoreListing(const http::HttpRequest& request,
                    const std::shared_ptr<catalog::CatalogPool>& pool, uint64_t version,
                    const http::HttpResponse& response);
  std::mutex listing_mu_;
  std::unordered_map<std::string, CachedListing> listings_;
  size_t listing_bytes_ = 0;

  std::mutex load_cache_mu_;
  std::map<std::string, std::shared_ptr<const CachedLoad>> load_cache_;
  std::deque<std::string> load_cache_order_;
  size_t load_cache_bytes_ = 0;

  // Commits to one table are serialized inside the server (DESIGN §5): concurrent
  // committers queue instead of losing the pointer swap and sleeping through retries.
  // Across servers sharing a metastore the swap stays optimistic.
  std::shared_ptr<std::mutex> TableCommitLock(const std::string& catalog, const std::string& table);
  std::mutex commit_locks_mu_;
  std::map<std::string, std::weak_ptr<std::mutex>> commit_locks_;

  std::mutex idempotency_mu_;
  std::map<std::string, StoredResponse> idempotent_;
  std::map<std::string, std::string> in_progress_;  // key -> fingerprint
};

}  // namespace floe::rest
