// Server: the wiring of `floe server`. Opens the metastore (running its migrations),
// registers every catalog it lists (creating the internal catalog `default` on first
// start), and serves them over HTTP: the Iceberg REST catalog under /v1/, a health check at
// /health, and the dashboard (web_assets.h) at /; and it runs the
// self-optimizing of every table on the local optimizer group (optimize/service.h).
//
// With authentication enabled (auth/authenticator.h) every /v1/ request but the token
// endpoint needs a bearer token (401 NotAuthorizedException otherwise) of a principal with
// access to the catalog the route addresses (403 ForbiddenException otherwise); the access
// log names the principal.
//
// The Kafka endpoint (kafka/kafka_server.h) serves table topics' producers and consumers
// with its data under <data-dir>/kafka; `kafka.enabled: false` turns it off.
//
// Thread-safety: Start/Stop from one thread.
#pragma once

#include <array>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "floe/auth/authenticator.h"
#include "floe/base/executor.h"
#include "floe/base/prometheus.h"
#include "floe/base/status.h"
#include "floe/catalog/catalog_pool.h"
#include "floe/http/http_server.h"
#include "floe/http/tls.h"
#include "floe/ingest/ingest_service.h"
#include "floe/ingest/key_index.h"
#include "floe/ingest/schema_registry.h"
#include "floe/ingest/schema_registry_api.h"
#include "floe/io/s3/s3_metrics.h"
#include "floe/kafka/kafka_server.h"
#include "floe/manage/history_recorder.h"
#include "floe/manage/management_api.h"
#include "floe/metastore/metastore.h"
#include "floe/optimize/service.h"
#include "floe/rest/rest_catalog_service.h"
#include "floe/server/web_assets.h"

namespace floe::server {

struct ServerConfig {
  // Where the embedded metastore and the default warehouse live.
  std::string data_dir = "floe-data";
  // Default: sqlite:<data_dir>/floe.db.
  std::string metastore_uri;
  // Warehouse of the internal catalog created on first start.
  // Default: <absolute data_dir>/warehouse.
  std::string default_warehouse;
  std::string default_catalog = "default";
  std::string http_host = "127.0.0.1";
  uint16_t http_port = 8181;
  int http_worker_threads = 0;
  size_t max_request_body_bytes = 16 * 1024 * 1024;
  // "-" (stderr), a file path, or "none"; the exe turns it into `access_log`.
  std::string access_log_path = "-";
  // floe.yaml `http.tls`: HTTPS for the REST catalog, management API, dashboard and /metrics.
  http::TlsSettings http_tls;
  // Access-log lines (JSON); none when empty.
  std::function<void(std::string_view)> access_log;
  // The dashboard's built files (web/ built by Vite), served at /. Empty: no dashboard,
  // / answers a page saying how to build it. Set but unreadable: the start fails.
  std::string web_dir;
  // The local optimizer group's threads (0: no self-optimizing) and its refresh period.
  int optimizer_threads = 1;
  int64_t optimizer_memory_mb = 0;  // optimizer.memory-mb
  // Self-optimizing (evaluation, groups, the task protocol) on or off.
  bool optimizer_enabled = true;
  int64_t optimizer_refresh_interval_ms = 60'000;
  // The task protocol's timeouts (optimize/task_queue.h).
  int64_t optimizer_heartbeat_timeout_ms = 60'000;
  int64_t optimizer_ack_timeout_ms = 30'000;
  int64_t optimizer_execute_timeout_ms = 3'600'000;
  // How often each table's maintenance (snapshot expiry) runs, at most; Amoro's 1 h.
  int64_t maintenance_interval_ms = 3'600'000;
  // The overview's history (manage/history_recorder.h): a sample of the totals every
  // interval, kept for the retention, at most max-samples rows.
  struct History {
    // This server's name in the samples; empty: host name and HTTP port.
    std::string server_id;
    int64_t interval_ms = 60'000;
    int64_t retention_ms = int64_t{7} * 24 * 3600 * 1000;
    int64_t max_samples = 20'000;
  } history;
  // The optimizer's log lines (JSON); none when empty.
  std::function<void(std::string_view)> optimizer_log;
  // Catalogs to create in the metastore at start, or to update when their definition
  // changed (floe.yaml `catalogs`).
  std::vector<metastore::CatalogRecord> catalogs;
  // floe.yaml `auth`; off by default, for a server on loopback.
  auth::AuthConfig auth;
  // floe.yaml `kafka`: the Kafka protocol listener (docs/kafka.md).
  struct Kafka {
    bool enabled = true;
    std::string host = "127.0.0.1";
    uint16_t port = 9092;  // 0: a free port, advertised as bound
    // What Metadata tells clients to connect to; default: `host` (or 127.0.0.1 for a
    // wildcard host).
    std::string advertised_host;
    int32_t node_id = 0;
    // "batch": fdatasync before every ack; "interval": every flush-interval-ms.
    bool fsync_every_batch = true;
    int64_t flush_interval_ms = 1000;
    int32_t default_partitions = 1;
    bool auto_create_topics = true;
    int64_t retention_ms = 7 * 24 * 3600 * 1000LL;
    int64_t retention_bytes = -1;
    int64_t segment_bytes = 1 << 30;
    size_t max_request_bytes = 100 << 20;
    // Produce throttling on table topics' translation lag (docs/kafka.md, "Throttling"):
    // bytes per partition not yet committed to the table; <= 0 turns a bound off.
    int64_t lag_throttle_bytes = int64_t{256} << 20;
    int64_t lag_limit_bytes = int64_t{1} << 30;
    int32_t max_throttle_ms = 1000;
    // The catalog receiving table topics' tables (docs/table-topics.md); empty: the
    // default catalog.
    std::string table_catalog;
    std::string table_namespace = "kafka";
    // Threads of the `ingest` executor running every table topic's translation rounds
    // (docs/table-topics.md, "Threads"); 0: one per core.
    int translator_threads = 0;
    // The key index of keyed table topics in position mode (ingest/key_index.h): its
    // directory (empty: <data-dir>/key-index) and memory bound.
    struct KeyIndex {
      std::string dir;
      int64_t memory_bytes = int64_t{256} << 20;
    } key_index;
    // The built-in schema registry's listener (its schemas under <data-dir>/schema-registry).
    struct SchemaRegistry {
      bool enabled = true;
      std::string host = "127.0.0.1";
      uint16_t port = 8081;   // 0: a free port
      http::TlsSettings tls;  // kafka.schema-registry.tls
    } schema_registry;
    // kafka.tls: the listener speaks SSL (SASL_SSL with SASL) instead of PLAINTEXT.
    http::TlsSettings tls;
  } kafka;
  // Milliseconds since the epoch, for token expiry (injected for tests; default: the system
  // clock).
  std::function<int64_t()> now_ms;
  // Environment lookups for object storage settings (AWS_ACCESS_KEY_ID, AWS_REGION, ...),
  // used by every catalog's FileIO after its s3.* properties; none when empty.
  std::function<const char*(const char*)> getenv;
};

// The storage settings of each catalog that REST clients get from /v1/config (s3.endpoint,
// s3.region and client.region, s3.path-style-access, explicit or implied by an endpoint;
// never credentials), and its properties for rest::CredentialVendor (vended credentials).
// Thread-safe: updated when the management API attaches or edits a catalog.
class ClientStorageSettings {
 public:
  void Put(const metastore::CatalogRecord& record);
  void Remove(const std::string& name);
  std::map<std::string, std::string> Get(const std::string& name) const;
  // All of the catalog's properties; nullopt for an unknown catalog.
  std::optional<std::map<std::string, std::string>> Properties(const std::string& name) const;
  std::string Warehouse(const std::string& name) const;

 private:
  mutable std::mutex mu_;
  std::map<std::string, std::map<std::string, std::string>> by_catalog_;
  std::map<std::string, std::map<std::string, std::string>> properties_;
  std::map<std::string, std::string> warehouses_;
};

class Server {
 public:
  // Errors: the metastore's (connection, migrations), a catalog that cannot be opened,
  // the HTTP listener's.
  static Result<std::unique_ptr<Server>> Start(ServerConfig config);
  ~Server();

  uint16_t http_port() const { return http_->port(); }
  // The Kafka listener's bound port; 0 when it is off.
  uint16_t kafka_port() const { return kafka_ ? kafka_->port() : 0; }
  // The schema registry's bound port; 0 when it is off.
  uint16_t schema_registry_port() const { return registry_http_ ? registry_http_->port() : 0; }
  const ServerConfig& config() const { return config_; }
  // The number of dashboard files served at /; 0 without a dashboard.
  size_t web_file_count() const { return web_ ? web_->file_count() : 0; }
  std::vector<std::string> catalog_names() const { return registry_->Names(); }

  // Graceful: stops accepting, finishes requests in flight, closes.
  void Stop();

  // The listeners serving TLS: "http", "kafka", "schema-registry", with their contexts.
  struct TlsListener {
    std::string name;
    std::shared_ptr<http::TlsContext> context;
  };
  const std::vector<TlsListener>& tls_listeners() const { return tls_; }
  // Re-reads every TLS listener's certificate, key and CA files (SIGHUP): new connections
  // use the new files, open ones keep theirs; a listener whose files fail keeps its current
  // context. One status per listener, in tls_listeners() order. Thread-safe.
  std::vector<Status> ReloadTls();

 private:
  Server() = default;
  http::HttpResponse Handle(const http::HttpRequest& request);
  // The io thread's try (HttpServerOptions::inline_handler): health checks and cached catalog
  // listings; nullopt sends the request on to Handle.
  std::optional<http::HttpResponse> HandleInline(const http::HttpRequest& request);
  std::optional<http::HttpResponse> CachedCatalogRequest(const http::HttpRequest& request);
  void CountRequest(std::string_view path, std::chrono::steady_clock::time_point start, int status);
  http::HttpResponse Route(const http::HttpRequest& request);

  http::HttpResponse HandleCatalogRequest(const http::HttpRequest& request);
  http::HttpResponse HandleManagementRequest(const http::HttpRequest& request);
  // The 401 answer (with its challenge) for a request whose token was refused.
  static http::HttpResponse Unauthorized(const http::HttpRequest& request, const Status& why);

  // /metrics in the Prometheus text format (docs/metrics.md).
  http::HttpResponse HandleMetrics(const http::HttpRequest& request);
  // The schema registry listener: with auth on, HTTP Basic or a bearer token, then read or
  // write (SchemaRegistryApi::Writes) on the table-topic catalog.
  http::HttpResponse HandleRegistryRequest(const http::HttpRequest& request);
  void WriteTopicMetrics(PrometheusWriter& w);
  // The floe_executor_* families of every executor the server built (label `executor`).
  void WriteExecutorMetrics(PrometheusWriter& w);

  // Request counts and latencies per route class (RouteClass in server.cc).
  static constexpr size_t kRouteClasses = 5;
  struct HttpMetrics {
    std::array<LatencyHistogram, kRouteClasses> latency;
    // By route class and status class (1xx..5xx).
    std::array<std::array<std::atomic<uint64_t>, 5>, kRouteClasses> responses{};
  };

  ServerConfig config_;
  std::vector<TlsListener> tls_;
  int64_t start_time_ms_ = 0;
  HttpMetrics http_metrics_;
  // S3 requests of every catalog's FileIOs and the local optimizer threads' (/metrics).
  std::shared_ptr<io::s3::S3Metrics> s3_metrics_;
  std::shared_ptr<catalog::CatalogRegistry> registry_;
  std::shared_ptr<ClientStorageSettings> client_storage_;
  std::unique_ptr<WebAssets> web_;  // the dashboard; null without one
  std::unique_ptr<optimize::OptimizingService> optimizer_;
  std::unique_ptr<rest::RestCatalogService> rest_;
  std::unique_ptr<manage::ManagementApi> manage_;
  std::unique_ptr<auth::Authenticator> auth_;  // null when authentication is off
  std::unique_ptr<http::HttpServer> http_;
  // The schema registry (with kafka_ unless disabled), declared before kafka_ (whose
  // topics' validators read it) and ingest_ (whose translators do), so that it outlives them.
  std::unique_ptr<ingest::SchemaRegistry> schema_registry_;
  std::unique_ptr<kafka::KafkaServer> kafka_;
  std::unique_ptr<ingest::SchemaRegistryApi> registry_api_;
  std::unique_ptr<http::HttpServer> registry_http_;
  std::string registry_catalog_;  // whose roles govern Kafka and the registry (kafka.table-catalog)
  // Runs the table topics' rounds; declared before ingest_, which uses it, so that it
  // outlives it.
  std::unique_ptr<Executor> ingest_executor_;  // with kafka_
  // Where keyed topics' keys live; declared before ingest_, whose translators use it.
  std::unique_ptr<ingest::KeyIndexStore> key_index_;  // with kafka_
  std::unique_ptr<ingest::IngestService> ingest_;     // with kafka_
  std::unique_ptr<manage::HistoryRecorder> history_;
};

// Starts the table topics' service over the running Kafka listener (ingest_wiring.cc).
Result<std::unique_ptr<ingest::IngestService>> StartIngest(
    const ServerConfig& config, std::shared_ptr<catalog::CatalogRegistry> registry,
    kafka::KafkaServer* kafka, optimize::OptimizingService* optimizer,
    const ingest::SchemaRegistry* schemas, ingest::KeyIndexStore* key_index, Executor* executor);

// Whether `host` (http.host) only accepts connections from this machine: localhost,
// 127.0.0.0/8 or ::1.
bool IsLoopbackHost(std::string_view host);

// The effective configuration as a JSON object for the management API's settings:
// credentials and secrets are masked, principals are listed with their roles only.
std::string SettingsJson(const ServerConfig& config);

// Opens the catalog a metastore record describes (a factory for the record's pool); its S3
// requests are counted in `s3_metrics` (when not null) under the record's name.
Result<std::unique_ptr<catalog::Catalog>> OpenCatalogFor(
    const metastore::CatalogRecord& record, std::string_view metastore_uri,
    const std::function<const char*(const char*)>& getenv = nullptr,
    std::shared_ptr<io::s3::S3Metrics> s3_metrics = nullptr);

}  // namespace floe::server
