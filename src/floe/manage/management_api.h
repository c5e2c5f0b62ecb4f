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
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "floe/base/status.h"
#include "floe/catalog/catalog_pool.h"
#include "floe/http/http.h"
#include "floe/http/route_table.h"
#include "floe/ingest/ingest_service.h"
#include "floe/ingest/key_index.h"
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
  // The keyed topics' key index, for the overview; null when the Kafka endpoint is off.
  const ingest::KeyIndexStore* key_index = nullptr;
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

  // The routes: openapi.json's paths and operationIds (and /api/v1 itself, the document
  // too), each with the access it needs; reads are the GETs.
  static std::span<const http::RouteInfo> Routes();

  struct Call;

 private:
  ManagementApi(std::shared_ptr<catalog::CatalogRegistry> registry, ManagementOptions options)
      : registry_(std::move(registry)), options_(std::move(options)) {}

  // A route's handler: its parameters are in `call.params`.
  using RouteHandler = Result<http::HttpResponse> (ManagementApi::*)(Call&);
  // openapi.json's operations with their access (reads are the GETs); HEAD is answered as
  // GET.
  static const http::RouteTable<RouteHandler>& Table();
  Result<http::HttpResponse> Dispatch(Call& call);
  // A request no route answers: 405 with the path's methods, or 404 (`seg`: the whole path).
  Result<http::HttpResponse> Unrouted(Call& call, const std::vector<std::string>& seg,
                                      bool path_known);
  // A table route's handler called with its catalog and table.
  template <Result<http::HttpResponse> (ManagementApi::*F)(Call&, const std::string&,
                                                           const catalog::TableIdentifier&)>
  Result<http::HttpResponse> OnTable(Call& call);

  Result<http::HttpResponse> OpenApi(Call& call);
  Result<http::HttpResponse> Settings(Call& call);
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
  Result<http::HttpResponse> GetCatalog(Call& call);
  Result<http::HttpResponse> AttachCatalog(Call& call);
  Result<http::HttpResponse> UpdateCatalog(Call& call);
  Result<http::HttpResponse> PutCatalog(Call& call, const std::optional<std::string>& name);
  Result<http::HttpResponse> DeleteCatalog(Call& call);
  Result<http::HttpResponse> ListNamespaces(Call& call);
  Result<http::HttpResponse> ListTables(Call& call);
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
  // topics_api.cc's routes.
  Result<http::HttpResponse> ListTopics(Call& call);
  Result<http::HttpResponse> GetTopic(Call& call);
  Result<http::HttpResponse> TopicRecords(Call& call);
  // optimizer_api.cc: optimizer groups, optimizers and their task protocol
  // (/api/v1/optimizer-groups..., /api/v1/optimizers...), and a table's optimizing control
  // (pause, resume, process cancel and tasks, maintenance runs).
  Result<http::HttpResponse> ListGroups(Call& call);
  Result<http::HttpResponse> CreateGroup(Call& call);
  Result<http::HttpResponse> GetGroup(Call& call);
  Result<http::HttpResponse> DropGroup(Call& call);
  Result<http::HttpResponse> ListOptimizers(Call& call);
  Result<http::HttpResponse> RegisterOptimizer(Call& call);
  Result<http::HttpResponse> UnregisterOptimizer(Call& call);
  Result<http::HttpResponse> DrainOptimizer(Call& call);
  Result<http::HttpResponse> Heartbeat(Call& call);
  Result<http::HttpResponse> PollTask(Call& call);
  Result<http::HttpResponse> AckTask(Call& call);
  Result<http::HttpResponse> CompleteTask(Call& call);
  // POST /api/v1/optimizers/{optimizer}/{action} of no route: the task protocol's checks
  // come first, then 404.
  Result<http::HttpResponse> UnknownOptimizerAction(Call& call);
  Result<http::HttpResponse> PauseTable(Call& call, const std::string& catalog,
                                        const catalog::TableIdentifier& id);
  Result<http::HttpResponse> ResumeTable(Call& call, const std::string& catalog,
                                         const catalog::TableIdentifier& id);
  Result<http::HttpResponse> CancelProcess(Call& call, const std::string& catalog,
                                           const catalog::TableIdentifier& id);
  Result<http::HttpResponse> ProcessTasks(Call& call, const std::string& catalog,
                                          const catalog::TableIdentifier& id);
  Result<http::HttpResponse> MaintenanceRuns(Call& call, const std::string& catalog,
                                             const catalog::TableIdentifier& id);

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
