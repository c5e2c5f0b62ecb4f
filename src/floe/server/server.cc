#include "floe/server/server.h"

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <system_error>
#include <utility>

#include <fmt/format.h>
#include <unistd.h>
#include <nlohmann/json.hpp>

#include "floe/base/macros.h"
#include "floe/catalog/sql_catalog.h"
#include "floe/ingest/registry_errors.h"
#include "floe/ingest/schema_validation.h"
#include "floe/io/local_file_io.h"
#include "floe/io/s3/make_file_io.h"

namespace floe::server {

namespace {

constexpr std::string_view kLandingPage =
    "<!doctype html><html><head><meta charset=\"utf-8\"><title>floe</title></head><body>"
    "<h1>floe</h1><p>The Iceberg REST catalog is served under <code>/v1/</code> "
    "(<a href=\"/v1/config\">/v1/config</a>); the management API under <code>/api/v1/</code> "
    "(<a href=\"/api/v1/openapi.json\">OpenAPI document</a>). This server has no dashboard "
    "files: build them with <code>make build</code> (needs npm) and restart, or pass "
    "<code>--web-dir</code> (docs/dashboard.md).</p>"
    "</body></html>";

// The machine's host name ("localhost" when it has none).
std::string HostName() {
  char name[256] = {};
  if (gethostname(name, sizeof(name) - 1) != 0 || name[0] == '\0') return "localhost";
  return name;
}

// The TLS context of a listener whose settings enable it (null when they do not), added to
// `listeners` for reloads. Errors name the listener's floe.yaml key.
Result<std::shared_ptr<http::TlsContext>> ListenerTls(const http::TlsSettings& settings,
                                                      std::string_view name,
                                                      std::vector<Server::TlsListener>* listeners) {
  if (!settings.enabled()) return std::shared_ptr<http::TlsContext>();
  auto context = http::TlsContext::Make(settings);
  if (!context.ok()) {
    return Status(context.status().code(),
                  fmt::format("{} listener: {}", name, context.status().message()));
  }
  listeners->push_back({std::string(name), *context});
  return std::move(*context);
}

}  // namespace

void ClientStorageSettings::Put(const metastore::CatalogRecord& record) {
  // Clients write data files themselves: they get the catalog's storage location settings,
  // never its credentials (credential vending is a separate, scoped mechanism).
  std::map<std::string, std::string> settings;
  for (const char* key : {"s3.endpoint", "s3.region", "s3.path-style-access"}) {
    if (auto it = record.properties.find(key); it != record.properties.end()) {
      settings[key] = it->second;
    }
  }
  // floe addresses a custom endpoint path-style unless told otherwise (io/s3), but Iceberg
  // Java's S3FileIO defaults to virtual-hosted: say which, so both reach the same objects.
  if (settings.contains("s3.endpoint") && !settings.contains("s3.path-style-access")) {
    settings["s3.path-style-access"] = "true";
  }
  // Iceberg Java reads the region as client.region (pyiceberg and floe as s3.region).
  if (auto it = settings.find("s3.region"); it != settings.end()) {
    settings.try_emplace("client.region", it->second);
  }
  std::lock_guard lock(mu_);
  by_catalog_[record.name] = std::move(settings);
  properties_[record.name] = record.properties;
  warehouses_[record.name] = record.warehouse;
}

void ClientStorageSettings::Remove(const std::string& name) {
  std::lock_guard lock(mu_);
  by_catalog_.erase(name);
  properties_.erase(name);
  warehouses_.erase(name);
}

std::string ClientStorageSettings::Warehouse(const std::string& name) const {
  std::lock_guard lock(mu_);
  auto it = warehouses_.find(name);
  return it == warehouses_.end() ? std::string() : it->second;
}

std::map<std::string, std::string> ClientStorageSettings::Get(const std::string& name) const {
  std::lock_guard lock(mu_);
  auto it = by_catalog_.find(name);
  return it == by_catalog_.end() ? std::map<std::string, std::string>{} : it->second;
}

std::optional<std::map<std::string, std::string>> ClientStorageSettings::Properties(
    const std::string& name) const {
  std::lock_guard lock(mu_);
  auto it = properties_.find(name);
  if (it == properties_.end()) return std::nullopt;
  return it->second;
}

bool IsLoopbackHost(std::string_view host) {
  if (host.size() >= 2 && host.front() == '[' && host.back() == ']') {
    host = host.substr(1, host.size() - 2);
  }
  return host == "localhost" || host == "::1" || host.starts_with("127.");
}

Result<std::unique_ptr<catalog::Catalog>> OpenCatalogFor(
    const metastore::CatalogRecord& record, std::string_view metastore_uri,
    const std::function<const char*(const char*)>& getenv,
    std::shared_ptr<io::s3::S3Metrics> s3_metrics) {
  catalog::CatalogOptions options;
  options.name = record.name;
  options.warehouse = record.warehouse;
  if (auto it = record.properties.find(std::string(catalog::kAllowedLocationsProperty));
      it != record.properties.end()) {
    options.allowed_locations = catalog::LocationPolicy::ParseAllowedLocations(it->second);
  }
  // The catalog's s3.* properties configure its FileIO (docs/storage.md).
  FLOE_ASSIGN_OR_RETURN(options.io, io::s3::MakeFileIO(record.properties, getenv,
                                                       std::move(s3_metrics), record.name));
  switch (record.kind) {
    case metastore::CatalogKind::kInternal: {
      FLOE_ASSIGN_OR_RETURN(auto cat, catalog::SqlCatalog::Open(metastore_uri, std::move(options)));
      return std::unique_ptr<catalog::Catalog>(std::move(cat));
    }
    case metastore::CatalogKind::kSql: {
      // The external catalog's own name in its database (catalog_name column).
      if (auto it = record.properties.find("catalog-name"); it != record.properties.end()) {
        options.name = it->second;
      }
      return catalog::OpenCatalog(record.uri, std::move(options));
    }
    case metastore::CatalogKind::kFilesystem:
      return catalog::OpenCatalog("file:" + record.warehouse, std::move(options));
    case metastore::CatalogKind::kRest: return catalog::OpenCatalog(record.uri, std::move(options));
  }
  return Status::Internal("unknown catalog kind");
}

Result<std::unique_ptr<Server>> Server::Start(ServerConfig config) {
  std::error_code ec;
  std::filesystem::create_directories(config.data_dir, ec);
  if (ec) {
    return Status::IOError("cannot create data dir {}: {}", config.data_dir, ec.message());
  }
  std::filesystem::path data_dir = std::filesystem::absolute(config.data_dir, ec);
  if (config.metastore_uri.empty()) {
    config.metastore_uri = "sqlite:" + (data_dir / "floe.db").string();
  }
  if (config.default_warehouse.empty()) {
    config.default_warehouse = (data_dir / "warehouse").string();
  }
  if (!config.now_ms) {
    config.now_ms = [] {
      return std::chrono::duration_cast<std::chrono::milliseconds>(
                 std::chrono::system_clock::now().time_since_epoch())
          .count();
    };
  }
  std::unique_ptr<auth::Authenticator> authenticator;
  if (config.auth.enabled) {
    if (config.auth.principals.empty()) {
      return Status::InvalidArgument("auth is enabled but auth.principals is empty");
    }
    if (config.auth.token_key_file.empty()) {
      config.auth.token_key_file = (data_dir / "auth-token.key").string();
    }
    FLOE_ASSIGN_OR_RETURN(std::string key, auth::LoadOrCreateTokenKey(config.auth.token_key_file));
    FLOE_ASSIGN_OR_RETURN(authenticator,
                          auth::Authenticator::Make(config.auth, std::move(key), config.now_ms));
  }

  FLOE_ASSIGN_OR_RETURN(auto metastore, metastore::Metastore::Open(config.metastore_uri));
  for (const metastore::CatalogRecord& wanted : config.catalogs) {
    auto existing = metastore->LoadCatalog(wanted.name);
    if (existing.ok()) {
      if (existing->kind == wanted.kind && existing->uri == wanted.uri &&
          existing->warehouse == wanted.warehouse && existing->properties == wanted.properties) {
        continue;
      }
      FLOE_RETURN_IF_ERROR(metastore->UpdateCatalog(wanted));
      continue;
    }
    if (existing.status().code() != StatusCode::kNotFound) return existing.status();
    Status created = metastore->CreateCatalog(wanted);
    if (!created.ok() && created.code() != StatusCode::kAlreadyExists) return created;
  }
  FLOE_ASSIGN_OR_RETURN(auto records, metastore->ListCatalogs());
  bool has_default = false;
  for (const auto& record : records) has_default |= record.name == config.default_catalog;
  if (!has_default) {
    metastore::CatalogRecord record;
    record.name = config.default_catalog;
    record.kind = metastore::CatalogKind::kInternal;
    record.warehouse = config.default_warehouse;
    Status created = metastore->CreateCatalog(record);
    // Another server sharing the metastore may have created it first.
    if (!created.ok() && created.code() != StatusCode::kAlreadyExists) return created;
    FLOE_ASSIGN_OR_RETURN(records, metastore->ListCatalogs());
  }

  std::unique_ptr<Server> server(new Server());
  server->start_time_ms_ = config.now_ms();
  if (!config.web_dir.empty()) {
    io::LocalFileIO local;
    FLOE_ASSIGN_OR_RETURN(server->web_, WebAssets::Load(local, config.web_dir));
  }
  server->auth_ = std::move(authenticator);
  server->registry_ = std::make_shared<catalog::CatalogRegistry>();
  server->client_storage_ = std::make_shared<ClientStorageSettings>();
  server->s3_metrics_ = std::make_shared<io::s3::S3Metrics>();
  for (const auto& record : records) {
    // Open one catalog now so that a bad record fails the start, not the first request.
    FLOE_ASSIGN_OR_RETURN(auto first, OpenCatalogFor(record, config.metastore_uri, config.getenv,
                                                     server->s3_metrics_));
    auto pool = std::make_shared<catalog::CatalogPool>(
        record.name,
        [record, uri = config.metastore_uri, getenv = config.getenv,
         metrics = server->s3_metrics_] { return OpenCatalogFor(record, uri, getenv, metrics); });
    { auto lease = catalog::CatalogLease(pool.get(), std::move(first)); }
    server->registry_->Put(std::move(pool));
  }

  if (config.optimizer_enabled) {
    optimize::OptimizingServiceOptions optimizer_options;
    optimizer_options.threads = config.optimizer_threads;
    optimizer_options.memory_mb = config.optimizer_memory_mb;
    optimizer_options.refresh_interval =
        std::chrono::milliseconds(config.optimizer_refresh_interval_ms);
    optimizer_options.metastore_uri = config.metastore_uri;
    optimizer_options.maintenance_interval_ms = config.maintenance_interval_ms;
    optimizer_options.log = config.optimizer_log;
    optimizer_options.heartbeat_timeout_ms = config.optimizer_heartbeat_timeout_ms;
    optimizer_options.ack_timeout_ms = config.optimizer_ack_timeout_ms;
    optimizer_options.execute_timeout_ms = config.optimizer_execute_timeout_ms;
    // A task names no catalog: the local threads' requests carry an empty catalog label.
    optimizer_options.make_io = [getenv = config.getenv, metrics = server->s3_metrics_](
                                    const std::map<std::string, std::string>& properties) {
      return io::s3::MakeFileIO(properties, getenv, metrics);
    };
    FLOE_ASSIGN_OR_RETURN(server->optimizer_, optimize::OptimizingService::Start(
                                                  server->registry_, std::move(optimizer_options)));
  }

  if (config.kafka.enabled) {
    kafka::BrokerOptions broker_options;
    broker_options.data_dir = (data_dir / "kafka").string();
    broker_options.node_id = config.kafka.node_id;
    broker_options.advertised_host = config.kafka.advertised_host;
    if (broker_options.advertised_host.empty()) {
      broker_options.advertised_host = config.kafka.host == "0.0.0.0" || config.kafka.host == "::"
                                           ? "127.0.0.1"
                                           : config.kafka.host;
    }
    broker_options.advertised_port = config.kafka.port;
    broker_options.fsync_every_batch = config.kafka.fsync_every_batch;
    broker_options.flush_interval_ms = config.kafka.flush_interval_ms;
    broker_options.default_partitions = config.kafka.default_partitions;
    broker_options.auto_create_topics = config.kafka.auto_create_topics;
    broker_options.retention_ms = config.kafka.retention_ms;
    broker_options.retention_bytes = config.kafka.retention_bytes;
    broker_options.segment_bytes = config.kafka.segment_bytes;
    broker_options.lag_throttle_bytes = config.kafka.lag_throttle_bytes;
    broker_options.lag_limit_bytes = config.kafka.lag_limit_bytes;
    broker_options.max_throttle_ms = config.kafka.max_throttle_ms;
    broker_options.validate_topic_configs = [](const std::map<std::string, std::string>& c) {
      if (auto error = ingest::ValidateTableTopicConfigs(c)) return error;
      return ingest::ValidateSchemaValidationConfigs(c);
    };
    // The registry first: the broker builds each topic's produce-time validator over it
    // as it loads the topics (ingest/schema_validation.h).
    if (config.kafka.schema_registry.enabled) {
      FLOE_ASSIGN_OR_RETURN(server->schema_registry_,
                            ingest::SchemaRegistry::Open((data_dir / "schema-registry").string()));
    }
    broker_options.make_record_validator =
        ingest::MakeSchemaValidatorFactory(server->schema_registry_.get());
    // Topics and schemas belong to the table topics: the table-topic catalog's roles
    // govern the Kafka listener and the schema registry.
    server->registry_catalog_ =
        config.kafka.table_catalog.empty() ? config.default_catalog : config.kafka.table_catalog;
    broker_options.authenticator = server->auth_.get();
    broker_options.auth_catalog = server->registry_catalog_;
    FLOE_ASSIGN_OR_RETURN(std::unique_ptr<kafka::Broker> broker,
                          kafka::Broker::Open(std::move(broker_options)));
    kafka::KafkaServerOptions kafka_options;
    kafka_options.host = config.kafka.host;
    kafka_options.port = config.kafka.port;
    kafka_options.max_frame_bytes = config.kafka.max_request_bytes;
    kafka_options.advertise_bound_port = config.kafka.port == 0;
    FLOE_ASSIGN_OR_RETURN(kafka_options.tls, ListenerTls(config.kafka.tls, "kafka", &server->tls_));
    FLOE_ASSIGN_OR_RETURN(server->kafka_,
                          kafka::KafkaServer::Start(std::move(kafka_options), std::move(broker)));
    if (config.kafka.schema_registry.enabled) {
      server->registry_api_ =
          std::make_unique<ingest::SchemaRegistryApi>(server->schema_registry_.get());
      http::HttpServerOptions registry_options;
      registry_options.host = config.kafka.schema_registry.host;
      registry_options.port = config.kafka.schema_registry.port;
      registry_options.max_body_bytes = config.max_request_body_bytes;
      registry_options.worker_threads = 2;  // in-memory lookups and one fdatasync per change
      registry_options.access_log = config.access_log;
      FLOE_ASSIGN_OR_RETURN(registry_options.tls, ListenerTls(config.kafka.schema_registry.tls,
                                                              "schema-registry", &server->tls_));
      FLOE_ASSIGN_OR_RETURN(
          server->registry_http_,
          http::HttpServer::Start(std::move(registry_options),
                                  [raw = server.get()](const http::HttpRequest& request) {
                                    return raw->HandleRegistryRequest(request);
                                  }));
    }
    FLOE_ASSIGN_OR_RETURN(
        server->ingest_executor_,
        Executor::Make({.name = "ingest", .threads = config.kafka.translator_threads}));
    ingest::KeyIndexOptions key_index_options;
    key_index_options.dir = config.kafka.key_index.dir.empty() ? (data_dir / "key-index").string()
                                                               : config.kafka.key_index.dir;
    key_index_options.memory_bytes = config.kafka.key_index.memory_bytes;
    FLOE_ASSIGN_OR_RETURN(server->key_index_, ingest::KeyIndexStore::Open(key_index_options));
    FLOE_ASSIGN_OR_RETURN(server->ingest_,
                          StartIngest(config, server->registry_, server->kafka_.get(),
                                      server->optimizer_.get(), server->schema_registry_.get(),
                                      server->key_index_.get(), server->ingest_executor_.get()));
  }

  rest::RestCatalogOptions rest_options;
  rest_options.default_catalog = config.default_catalog;
  for (const auto& record : records) server->client_storage_->Put(record);
  rest::CredentialVendorOptions vendor_options;
  vendor_options.catalog_properties = [storage = server->client_storage_](const std::string& name) {
    return storage->Properties(name);
  };
  vendor_options.catalog_warehouse = [storage = server->client_storage_](const std::string& name) {
    return storage->Warehouse(name);
  };
  vendor_options.client_settings = [storage = server->client_storage_](const std::string& name) {
    return storage->Get(name);
  };
  vendor_options.getenv = config.getenv;
  auto vendor = std::make_shared<rest::CredentialVendor>(std::move(vendor_options));
  rest_options.catalog_config_defaults = [vendor](const std::string& name) {
    return vendor->ClientConfig(name);
  };
  rest_options.credential_vendor = vendor;
  if (server->optimizer_) {
    rest_options.on_table_changed = [optimizer = server->optimizer_.get()](
                                        const std::string& catalog,
                                        const catalog::TableIdentifier& id) {
      optimizer->NotifyTableChanged(catalog, id);
    };
  }
  rest_options.now_ms = config.now_ms;
  server->rest_ = std::make_unique<rest::RestCatalogService>(server->registry_, rest_options);

  manage::ManagementOptions manage_options;
  manage_options.metastore_uri = config.metastore_uri;
  manage_options.default_catalog = config.default_catalog;
  manage_options.open_catalog = [uri = config.metastore_uri, getenv = config.getenv,
                                 metrics =
                                     server->s3_metrics_](const metastore::CatalogRecord& record) {
    return OpenCatalogFor(record, uri, getenv, metrics);
  };
  manage_options.on_catalog_saved =
      [storage = server->client_storage_](const metastore::CatalogRecord& record) {
        storage->Put(record);
      };
  manage_options.on_catalog_removed = [storage = server->client_storage_](const std::string& name) {
    storage->Remove(name);
  };
  manage_options.optimizer = server->optimizer_.get();
  manage_options.settings_json = SettingsJson(config);
  manage_options.on_table_changed = rest_options.on_table_changed;
  manage_options.ingest = server->ingest_.get();
  manage_options.key_index = server->key_index_.get();
  manage_options.topics_catalog =
      config.kafka.table_catalog.empty() ? config.default_catalog : config.kafka.table_catalog;
  manage_options.now_ms = config.now_ms;
  manage_options.history_interval_ms = config.history.interval_ms;
  FLOE_ASSIGN_OR_RETURN(server->manage_,
                        manage::ManagementApi::Make(server->registry_, std::move(manage_options)));

  http::HttpServerOptions http_options;
  http_options.host = config.http_host;
  http_options.port = config.http_port;
  http_options.worker_threads = config.http_worker_threads;
  http_options.max_body_bytes = config.max_request_body_bytes;
  http_options.access_log = config.access_log;
  FLOE_ASSIGN_OR_RETURN(http_options.tls, ListenerTls(config.http_tls, "http", &server->tls_));
  server->config_ = std::move(config);
  Server* raw = server.get();
  http_options.inline_handler = [raw](const http::HttpRequest& request) {
    return raw->HandleInline(request);
  };
  FLOE_ASSIGN_OR_RETURN(
      server->http_,
      http::HttpServer::Start(std::move(http_options), [raw](const http::HttpRequest& request) {
        return raw->Handle(request);
      }));
  // After the listener, whose bound port names this server's history series by default.
  manage::HistoryOptions history_options;
  const ServerConfig& cfg = server->config_;
  history_options.metastore_uri = cfg.metastore_uri;
  history_options.server_id = cfg.history.server_id.empty()
                                  ? fmt::format("{}:{}", HostName(), server->http_->port())
                                  : cfg.history.server_id;
  history_options.interval_ms = cfg.history.interval_ms;
  history_options.retention_ms = cfg.history.retention_ms;
  history_options.max_samples = cfg.history.max_samples;
  history_options.now_ms = cfg.now_ms;
  history_options.optimizer = server->optimizer_.get();
  history_options.ingest = server->ingest_.get();
  FLOE_ASSIGN_OR_RETURN(server->history_,
                        manage::HistoryRecorder::Start(std::move(history_options)));
  return server;
}

Server::~Server() { Stop(); }

std::vector<Status> Server::ReloadTls() {
  std::vector<Status> results;
  for (const TlsListener& listener : tls_) {
    Status s = listener.context->Reload();
    results.push_back(s.ok() ? s
                             : Status(s.code(), fmt::format("{}: {}", listener.name, s.message())));
  }
  return results;
}

void Server::Stop() {
  // First: it reads the optimizer and the table topics.
  if (history_) history_->Stop();
  // Before the listener: the translators read the broker through it. Then its executor,
  // whose leftover rounds find their workers stopped.
  if (ingest_) ingest_->Stop();
  if (ingest_executor_) ingest_executor_->Stop();
  if (registry_http_) registry_http_->Stop();
  if (kafka_) kafka_->Stop();
  if (http_) http_->Stop();
  // After the HTTP server: no request can report a commit to a stopped optimizer.
  if (optimizer_) optimizer_->Stop();
}

namespace {

// The route class of the HTTP metrics (the names are in metrics.cc): few, so the label
// stays small.
size_t RouteClass(std::string_view path) {
  if (path.starts_with("/v1/")) return 0;
  if (path == "/api/v1" || path.starts_with("/api/v1/")) return 1;
  if (path == "/metrics") return 2;
  if (path == "/health" || path == "/healthz") return 3;
  return 4;
}

}  // namespace

http::HttpResponse Server::Handle(const http::HttpRequest& request) {
  const auto start = std::chrono::steady_clock::now();
  http::HttpResponse response = Route(request);
  CountRequest(request.path, start, response.status);
  return response;
}

std::optional<http::HttpResponse> Server::HandleInline(const http::HttpRequest& request) {
  const auto start = std::chrono::steady_clock::now();
  std::optional<http::HttpResponse> response;
  if (request.path == "/health" || request.path == "/healthz") {
    response = Route(request);
  } else if (request.method == "GET" && request.path.starts_with("/v1/")) {
    response = CachedCatalogRequest(request);
  }
  if (response) CountRequest(request.path, start, response->status);
  return response;
}

// HandleCatalogRequest's checks, for a GET: anything but a cached answer that the principal
// may read goes on to the worker, which also answers the refusals.
std::optional<http::HttpResponse> Server::CachedCatalogRequest(const http::HttpRequest& request) {
  if (!auth_) return rest_->TryCachedListing(request);
  auto principal = auth_->Authenticate(request);
  if (!principal.ok()) return std::nullopt;
  std::optional<rest::RouteTarget> target = rest_->Target(request);
  if (!target || target->writes ||
      !auth::Authenticator::Authorize(**principal, target->catalog, auth::Access::kRead).ok()) {
    return std::nullopt;
  }
  std::optional<http::HttpResponse> response = rest_->TryCachedListing(request);
  if (response) response->principal = (*principal)->name;
  return response;
}

void Server::CountRequest(std::string_view path, std::chrono::steady_clock::time_point start,
                          int status) {
  const size_t route = RouteClass(path);
  http_metrics_.latency[route].Observe(
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  const int status_class = std::clamp(status / 100, 1, 5) - 1;
  http_metrics_.responses[route][static_cast<size_t>(status_class)].fetch_add(
      1, std::memory_order_relaxed);
}

http::HttpResponse Server::Route(const http::HttpRequest& request) {
  std::string_view path = request.path;
  if (path == "/metrics") return HandleMetrics(request);
  if (path.starts_with("/v1/")) return HandleCatalogRequest(request);
  if (path == "/api/v1" || path.starts_with("/api/v1/")) return HandleManagementRequest(request);
  if (path == "/health" || path == "/healthz") {
    return http::HttpResponse::Json(200, "{\"status\":\"ok\"}");
  }
  if (web_) return web_->Serve(request);
  if (path == "/" || path == "/index.html") {
    http::HttpResponse page;
    page.content_type = "text/html; charset=utf-8";
    page.body = std::string(kLandingPage);
    return page;
  }
  return rest::ErrorResponse(404, "NotFoundException", "no such route");
}

http::HttpResponse Server::HandleCatalogRequest(const http::HttpRequest& request) {
  if (!auth_) return rest_->Handle(request);
  if (request.path == "/v1/oauth/tokens") return auth_->HandleTokenRequest(request);
  // Authentication comes first, so that without a token nothing is learnt (not even which
  // catalogs or routes exist).
  auto principal = auth_->Authenticate(request);
  if (!principal.ok()) return Unauthorized(request, principal.status());
  http::HttpResponse response;
  std::optional<rest::RouteTarget> target = rest_->Target(request);
  Status allowed = target ? auth::Authenticator::Authorize(
                                **principal, target->catalog,
                                target->writes ? auth::Access::kWrite : auth::Access::kRead)
                          : Status::OK();
  if (allowed.ok()) {
    // Vended credentials carry the principal's access: read-only for readers.
    rest::CallerContext caller;
    caller.principal = (*principal)->name;
    caller.may_write =
        target &&
        auth::Authenticator::Authorize(**principal, target->catalog, auth::Access::kWrite).ok();
    response = rest_->Handle(request, caller);
  } else {
    response = rest::ErrorResponse(403, "ForbiddenException", allowed.message());
  }
  response.principal = (*principal)->name;
  return response;
}

http::HttpResponse Server::HandleRegistryRequest(const http::HttpRequest& request) {
  if (!auth_) return registry_api_->Handle(request);
  // Authentication first: without credentials nothing is learnt, not even which subjects
  // exist. Schemas belong to the table topics, so access is the table-topic catalog's.
  auto principal = auth_->AuthenticateBasicOrBearer(request);
  if (!principal.ok()) {
    if (principal.status().code() == StatusCode::kResourceExhausted) {
      return ingest::SchemaRegistryApi::ErrorResponse(ingest::registry_error::kTooManyRequests,
                                                      principal.status().message());
    }
    http::HttpResponse response = ingest::SchemaRegistryApi::ErrorResponse(
        ingest::registry_error::kUnauthorized, principal.status().message());
    response.headers.emplace_back("WWW-Authenticate", "Basic realm=\"floe\"");
    return response;
  }
  const auth::Access needed =
      ingest::SchemaRegistryApi::Writes(request) ? auth::Access::kWrite : auth::Access::kRead;
  Status allowed = auth::Authenticator::Authorize(**principal, registry_catalog_, needed);
  http::HttpResponse response = allowed.ok()
                                    ? registry_api_->Handle(request)
                                    : ingest::SchemaRegistryApi::ErrorResponse(
                                          ingest::registry_error::kForbidden, allowed.message());
  response.principal = (*principal)->name;
  return response;
}

http::HttpResponse Server::Unauthorized(const http::HttpRequest& request, const Status& why) {
  http::HttpResponse response = rest::ErrorResponse(401, "NotAuthorizedException", why.message());
  // RFC 6750 §3: the challenge; "invalid_token" when a token was sent but refused.
  response.headers.emplace_back("WWW-Authenticate",
                                request.Header("authorization") == nullptr
                                    ? "Bearer realm=\"floe\""
                                    : "Bearer realm=\"floe\", error=\"invalid_token\"");
  return response;
}

http::HttpResponse Server::HandleManagementRequest(const http::HttpRequest& request) {
  const bool is_document = request.path == "/api/v1/openapi.json" || request.path == "/api/v1" ||
                           request.path == "/api/v1/";
  if (!auth_ || is_document) return manage_->Handle(request, {});
  auto principal = auth_->Authenticate(request);
  if (!principal.ok()) return Unauthorized(request, principal.status());
  const auth::Principal& who = **principal;
  http::HttpResponse response;
  std::optional<rest::RouteTarget> target = manage_->Target(request);
  const auth::Access needed = target && target->writes ? auth::Access::kWrite : auth::Access::kRead;
  Status allowed =
      target ? auth::Authenticator::Authorize(who, target->catalog, needed) : Status::OK();
  if (allowed.ok()) {
    response = manage_->Handle(request, [&who](std::string_view catalog, bool write) {
      return auth::Authenticator::Authorize(who, catalog,
                                            write ? auth::Access::kWrite : auth::Access::kRead)
          .ok();
    });
  } else {
    response = rest::ErrorResponse(403, "ForbiddenException", allowed.message());
  }
  response.principal = who.name;
  return response;
}

std::string SettingsJson(const ServerConfig& config) {
  using OJson = nlohmann::ordered_json;
  // File paths only: the key password is shown as whether one is set.
  auto tls_json = [](const http::TlsSettings& tls) {
    return OJson{
        {"enabled", tls.enabled()}, {"cert-file", tls.cert_file},
        {"key-file", tls.key_file}, {"has-key-password", !tls.key_password.empty()},
        {"ca-file", tls.ca_file},   {"client-auth", http::ClientAuthName(tls.client_auth)}};
  };
  OJson principals = OJson::array();
  for (const auth::Principal& p : config.auth.principals) {
    OJson roles = OJson::object();
    for (const auto& [catalog, access] : p.catalogs) {
      roles[catalog] = access == auth::Access::kWrite  ? "write"
                       : access == auth::Access::kRead ? "read"
                                                       : "none";
    }
    principals.push_back({{"name", p.name},
                          {"has-secret", !p.secret_sha256.empty()},
                          {"static-tokens", p.token_sha256s.size()},
                          {"catalogs", std::move(roles)}});
  }
  const ServerConfig::Kafka& k = config.kafka;
  OJson settings = {
      {"data-dir", config.data_dir},
      {"metastore", manage::MaskUri(config.metastore_uri)},
      {"default-catalog", config.default_catalog},
      {"default-warehouse", config.default_warehouse},
      {"http",
       {{"host", config.http_host},
        {"port", config.http_port},
        {"worker-threads", config.http_worker_threads},
        {"max-request-body-bytes", config.max_request_body_bytes},
        {"access-log", config.access_log_path},
        {"tls", tls_json(config.http_tls)}}},
      {"optimizer",
       {{"enabled", config.optimizer_enabled},
        {"threads", config.optimizer_threads},
        {"refresh-interval-ms", config.optimizer_refresh_interval_ms},
        {"maintenance-interval-ms", config.maintenance_interval_ms},
        {"heartbeat-timeout-ms", config.optimizer_heartbeat_timeout_ms},
        {"ack-timeout-ms", config.optimizer_ack_timeout_ms},
        {"execute-timeout-ms", config.optimizer_execute_timeout_ms}}},
      {"history",
       {{"server-id", config.history.server_id},
        {"interval-ms", config.history.interval_ms},
        {"retention-ms", config.history.retention_ms},
        {"max-samples", config.history.max_samples}}},
      {"kafka",
       {{"enabled", k.enabled},
        {"host", k.host},
        {"port", k.port},
        {"advertised-host", k.advertised_host},
        {"node-id", k.node_id},
        {"fsync", k.fsync_every_batch ? "batch" : "interval"},
        {"flush-interval-ms", k.flush_interval_ms},
        {"num-partitions", k.default_partitions},
        {"auto-create-topics", k.auto_create_topics},
        {"retention-ms", k.retention_ms},
        {"retention-bytes", k.retention_bytes},
        {"segment-bytes", k.segment_bytes},
        {"max-request-bytes", k.max_request_bytes},
        {"lag-throttle-bytes", k.lag_throttle_bytes},
        {"lag-limit-bytes", k.lag_limit_bytes},
        {"max-throttle-ms", k.max_throttle_ms},
        {"translator-threads", k.translator_threads},
        {"key-index", {{"dir", k.key_index.dir}, {"memory-bytes", k.key_index.memory_bytes}}},
        {"schema-registry",
         {{"enabled", k.schema_registry.enabled},
          {"host", k.schema_registry.host},
          {"port", k.schema_registry.port},
          {"tls", tls_json(k.schema_registry.tls)}}},
        {"tls", tls_json(k.tls)},
        {"table-catalog", k.table_catalog.empty() ? config.default_catalog : k.table_catalog},
        {"table-namespace", k.table_namespace}}},
      {"auth",
       {{"enabled", config.auth.enabled},
        {"token-lifetime-seconds", config.auth.token_lifetime_seconds},
        {"token-key-file", config.auth.token_key_file},
        {"principals", std::move(principals)}}},
  };
  return settings.dump();
}

}  // namespace floe::server
