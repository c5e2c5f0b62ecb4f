// ManagementApi: floe's management REST API under /api/v1 (docs/management-api.md; the
// OpenAPI document is served at /api/v1/openapi.json). The dashboard and the CLI use only
// this API. It covers what the Iceberg REST API does not: the catalogs a server serves
// (attach, edit and detach external catalogs), browsing them, a table's details with its
// health and self-optimizing state, editing its properties, its snapshots and optimizing
// processes, a manual optimize trigger, the optimizer group, and the effective settings.
//
// Lists answer {"items": [...], "total": N, "next-page-token": "..."} and take `page-size`
// (1..1000, default 100), `page-token` (opaque, from the previous page), `sort` (a field
// name, '-' in front for descending) and filters (`q`: a name substring; per list more).
// Errors use the REST error body ({"error": {"message", "type", "code"}}).
//
// Thread-safety: Handle may be called concurrently.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "floe/base/status.h"
#include "floe/catalog/catalog_pool.h"
#include "floe/http/http.h"
#include "floe/ingest/ingest_service.h"
#include "floe/metastore/metastore.h"
#include "floe/optimize/service.h"
#include "floe/rest/rest_catalog_service.h"

namespace floe::manage {

struct ManagementOptions {
  // floe's metastore (the API keeps its own connection).
  std::string metastore_uri;
  // The internal catalog created at start; it cannot be detached.
  std::string default_catalog = "default";
  // Opens a catalog from its definition: used to check a definition before it is saved and
  // as the factory of its pool.
  std::function<Result<std::unique_ptr<catalog::Catalog>>(const metastore::CatalogRecord&)>
      open_catalog;
  // The local optimizer group; null when self-optimizing is off.
  optimize::OptimizingService* optimizer = nullptr;
  // The server's effective configuration as a JSON object, secrets already masked.
  std::string settings_json = "{}";
  // Called after a catalog definition was saved (attached or edited) / detached.
  std::function<void(const metastore::CatalogRecord&)> on_catalog_saved;
  std::function<void(const std::string&)> on_catalog_removed;
  // Called after a table's properties changed through the API (the optimizer re-reads them).
  std::function<void(const std::string&, const catalog::TableIdentifier&)> on_table_changed;
  // Table topics (topics_api.h); null when the Kafka endpoint is off.
  ingest::IngestService* ingest = nullptr;
  // The catalog table topics write to: reading /api/v1/topics needs read access to it.
  std::string topics_catalog;
  std::function<int64_t()> now_ms;
  // How often the server samples the overview's history (HistoryRecorder); 0: it does not.
  int64_t history_interval_ms = 0;
};

// Which catalogs a caller may see and change; empty: everything (authentication off).
using AccessCheck = std::function<bool(std::string_view catalog, bool write)>;

class ManagementApi {
 public:
  // Errors: the metastore's.
  static Result<std::unique_ptr<ManagementApi>> Make(
      std::shared_ptr<catalog::CatalogRegistry> registry, ManagementOptions options);

  // Answers a request whose path starts with /api/v1/ (or is /api/v1). Lists only show
  // catalogs `access` allows reading.
  http::HttpResponse Handle(const http::HttpRequest& request, const AccessCheck& access);

  // The catalog a request addresses and whether it writes (the authorization check of
  // server/server.h); nullopt for server-wide routes, which any authenticated principal
  // may read, and for the OpenAPI document.
  std::optional<rest::RouteTarget> Target(const http::HttpRequest& request) const;

  struct Call;

 private:
  ManagementApi(std::shared_ptr<catalog::CatalogRegistry> registry, ManagementOptions options)
      : registry_(std::move(registry)), options_(std::move(options)) {}

  Result<http::HttpResponse> Dispatch(Call& call);
  // dashboard_api.cc: what the dashboard's pages read beyond the routes below.
  Result<http::HttpResponse> TableStats(Call& call);
  Result<http::HttpResponse> StorageSummary(Call& call);
  Result<http::HttpResponse> TableFiles(Call& call, const std::string& catalog,
                                        const catalog::TableIdentifier& id);
  Result<http::HttpResponse> TableFileSizes(Call& call, const std::string& catalog,
                                            const catalog::TableIdentifier& id);
  // The optimizer's state of a table (a fresh idle record when it has none).
  Result<metastore::TableRuntimeRecord> Runtime(const std::string& catalog_name,
                                                const catalog::TableIdentifier& id);
  Result<http::HttpResponse> ListCatalogs(Call& call);
  Result<http::HttpResponse> GetCatalog(Call& call, const std::string& name);
  Result<http::HttpResponse> PutCatalog(Call& call, const std::optional<std::string>& name);
  Result<http::HttpResponse> DeleteCatalog(Call& call, const std::string& name);
  Result<http::HttpResponse> ListNamespaces(Call& call, const std::string& catalog);
  Result<http::HttpResponse> ListTables(Call& call, const std::string& catalog,
                                        const std::string& ns);
  Result<http::HttpResponse> TableDetails(Call& call, const std::string& catalog,
                                          const catalog::TableIdentifier& id);
  Result<http::HttpResponse> TablePartitions(Call& call, const std::string& catalog,
                                             const catalog::TableIdentifier& id);
  Result<http::HttpResponse> UpdateProperties(Call& call, const std::string& catalog,
                                              const catalog::TableIdentifier& id);
  Result<http::HttpResponse> Snapshots(Call& call, const std::string& catalog,
                                       const catalog::TableIdentifier& id);
  Result<http::HttpResponse> Processes(Call& call, const std::string& catalog,
                                       const catalog::TableIdentifier& id);
  Result<http::HttpResponse> TriggerOptimize(Call& call, const std::string& catalog,
                                             const catalog::TableIdentifier& id);
  Result<http::HttpResponse> ManagedTables(Call& call);
  // Every table's optimizing state: the optimizer's when it runs, else the metastore's.
  using RuntimesView = std::shared_ptr<const std::vector<metastore::TableRuntimeRecord>>;
  Result<RuntimesView> AllRuntimes();
  Result<http::HttpResponse> Overview(Call& call);
  // history_api.cc: the overview's samples over time.
  Result<http::HttpResponse> OverviewHistory(Call& call);
  // optimizer_api.cc: optimizer groups, optimizers and their task protocol
  // (/api/v1/optimizer-groups..., /api/v1/optimizers...), and a table's optimizing control
  // (pause, resume, process cancel and tasks, maintenance runs). nullopt when `seg` (the
  // path after /api/v1) is none of those routes.
  std::optional<Result<http::HttpResponse>> DispatchOptimizer(Call& call,
                                                              const std::vector<std::string>& seg);
  std::optional<Result<http::HttpResponse>> DispatchOptimizerTable(
      Call& call, const std::string& catalog, const catalog::TableIdentifier& id,
      const std::vector<std::string>& seg);

  std::shared_ptr<catalog::CatalogRegistry> registry_;
  ManagementOptions options_;
  std::mutex store_mu_;  // the Metastore is not thread-safe
  std::unique_ptr<metastore::Metastore> store_;
};

// The OpenAPI 3.0 document of the API.
std::string_view OpenApiDocument();

// `properties` with the values of secret-looking keys (secret, password, token, credential,
// key) replaced by "****"; a URI's user-info password likewise.
std::string MaskSecret(std::string_view key, std::string_view value);
std::string MaskUri(std::string_view uri);

}  // namespace floe::manage
