// `floe server`: the lakehouse service (server/server.h) in the foreground until SIGTERM or
// SIGINT, which stop it gracefully (requests in flight, commits included, finish first).
// SIGHUP re-reads the TLS listeners' certificate and key files (docs/server.md, "TLS").
// `floe catalog list|create|drop`: the catalogs a server's metastore lists (a running server
// sees changes at its next start).
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <mutex>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "floe/base/macros.h"
#include "floe/exe/command.h"
#include "floe/http/tls.h"
#include "floe/manage/management_api.h"
#include "floe/metastore/metastore.h"
#include "floe/server/config.h"
#include "floe/server/server.h"

namespace floe::exe {

namespace {

struct ServerFlags {
  std::string config_file;
  std::string data_dir;
  std::string metastore;
  std::string warehouse;
  std::string host;
  int port = 0;
  int workers = 0;
  std::string access_log;
  int optimizer_threads = 1;
  bool no_self_optimizing = false;
  int64_t optimizer_refresh_ms = 0;
  int kafka_port = 0;
  std::string kafka_host;
  std::string kafka_advertised_host;
  std::string web_dir;
  // Set only for flags given on the command line (they override floe.yaml and env).
  CLI::Option* data_dir_opt = nullptr;
  CLI::Option* metastore_opt = nullptr;
  CLI::Option* warehouse_opt = nullptr;
  CLI::Option* host_opt = nullptr;
  CLI::Option* port_opt = nullptr;
  CLI::Option* workers_opt = nullptr;
  CLI::Option* access_log_opt = nullptr;
  CLI::Option* optimizer_threads_opt = nullptr;
  CLI::Option* optimizer_refresh_opt = nullptr;
  CLI::Option* kafka_port_opt = nullptr;
  int schema_registry_port = 0;
  CLI::Option* schema_registry_port_opt = nullptr;
  CLI::Option* kafka_host_opt = nullptr;
  CLI::Option* kafka_advertised_host_opt = nullptr;
  CLI::Option* web_dir_opt = nullptr;
  bool no_kafka = false;
};

std::string EnvOr(const char* name, std::string fallback) {
  const char* value = std::getenv(name);
  return value != nullptr && *value != '\0' ? std::string(value) : std::move(fallback);
}

// Where the dashboard's files are when neither floe.yaml, FLOE_WEB_DIR nor --web-dir says:
// beside the binary, as installed (<prefix>/bin/floe -> <prefix>/share/floe/web) or as
// built (build/<preset>/src/floe/exe/floe -> build/<preset>/web, written by the floe_web
// CMake target). Empty when neither holds an index.html: the server then runs without a
// dashboard.
std::string DefaultWebDir() {
  std::error_code ec;
  std::filesystem::path exe = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (ec) return "";
  const std::filesystem::path bin = exe.parent_path();
  for (const std::filesystem::path& candidate :
       {bin / ".." / "share" / "floe" / "web", bin / ".." / ".." / ".." / "web"}) {
    if (std::filesystem::is_regular_file(candidate / "index.html", ec)) {
      return std::filesystem::weakly_canonical(candidate, ec).string();
    }
  }
  return "";
}

// Defaults, then floe.yaml, then the environment, then the flags given.
Result<server::ServerConfig> ConfigFrom(const ServerFlags& flags) {
  server::ServerConfig config;
  std::string file = flags.config_file.empty() ? EnvOr("FLOE_CONFIG", "") : flags.config_file;
  if (!file.empty()) FLOE_RETURN_IF_ERROR(server::LoadServerConfig(file, &config));
  FLOE_RETURN_IF_ERROR(
      server::ApplyServerEnvironment([](const char* name) { return std::getenv(name); }, &config));
  config.getenv = [](const char* name) { return std::getenv(name); };
  if (flags.data_dir_opt->count() > 0) config.data_dir = flags.data_dir;
  if (flags.metastore_opt->count() > 0) config.metastore_uri = flags.metastore;
  if (flags.warehouse_opt->count() > 0) config.default_warehouse = flags.warehouse;
  if (flags.host_opt->count() > 0) config.http_host = flags.host;
  if (flags.port_opt->count() > 0) {
    if (flags.port < 0 || flags.port > 65535) {
      return Status::InvalidArgument("--http-port {} is not a port", flags.port);
    }
    config.http_port = static_cast<uint16_t>(flags.port);
  }
  if (flags.workers_opt->count() > 0) config.http_worker_threads = flags.workers;
  if (flags.access_log_opt->count() > 0) config.access_log_path = flags.access_log;
  if (flags.optimizer_threads_opt->count() > 0) {
    if (flags.optimizer_threads < 0) return Status::InvalidArgument("--optimizer-threads < 0");
    config.optimizer_threads = flags.optimizer_threads;
  }
  if (flags.no_self_optimizing) config.optimizer_enabled = false;
  if (flags.kafka_port_opt->count() > 0) {
    if (flags.kafka_port < 0 || flags.kafka_port > 65535) {
      return Status::InvalidArgument("--kafka-port {} is not a port", flags.kafka_port);
    }
    config.kafka.port = static_cast<uint16_t>(flags.kafka_port);
  }
  if (flags.schema_registry_port_opt->count() > 0) {
    if (flags.schema_registry_port < 0 || flags.schema_registry_port > 65535) {
      return Status::InvalidArgument("--schema-registry-port {} is not a port",
                                     flags.schema_registry_port);
    }
    config.kafka.schema_registry.port = static_cast<uint16_t>(flags.schema_registry_port);
  }
  if (flags.kafka_host_opt->count() > 0) config.kafka.host = flags.kafka_host;
  if (flags.kafka_advertised_host_opt->count() > 0) {
    config.kafka.advertised_host = flags.kafka_advertised_host;
  }
  if (flags.no_kafka) config.kafka.enabled = false;
  if (flags.web_dir_opt->count() > 0) config.web_dir = flags.web_dir;
  if (config.web_dir.empty()) config.web_dir = DefaultWebDir();
  if (flags.optimizer_refresh_opt->count() > 0) {
    if (flags.optimizer_refresh_ms < 100) {
      return Status::InvalidArgument("--optimizer-refresh-ms must be >= 100");
    }
    config.optimizer_refresh_interval_ms = flags.optimizer_refresh_ms;
  }
  return config;
}

void ReloadTls(server::Server& server);

Status RunServer(const ServerFlags& flags) {
  FLOE_ASSIGN_OR_RETURN(server::ServerConfig config, ConfigFrom(flags));
  // Block the stop signals before any thread starts, so every thread inherits the mask and
  // only sigwait below sees them.
  sigset_t stop_signals;
  sigemptyset(&stop_signals);
  sigaddset(&stop_signals, SIGTERM);
  sigaddset(&stop_signals, SIGINT);
  sigaddset(&stop_signals, SIGHUP);
  pthread_sigmask(SIG_BLOCK, &stop_signals, nullptr);

  FILE* log = nullptr;
  if (config.access_log_path == "-") {
    log = stderr;
  } else if (config.access_log_path != "none" && !config.access_log_path.empty()) {
    log = std::fopen(config.access_log_path.c_str(), "a");
    if (log == nullptr) {
      return Status::IOError("cannot open access log {}", config.access_log_path);
    }
  }
  auto log_mu = std::make_shared<std::mutex>();
  if (log != nullptr) {
    config.access_log = [log, log_mu](std::string_view line) {
      std::lock_guard lock(*log_mu);
      std::fwrite(line.data(), 1, line.size(), log);
      std::fputc('\n', log);
      std::fflush(log);
    };
  }
  // The optimizer's events (one JSON line per process) go to stderr.
  config.optimizer_log = [log_mu](std::string_view line) {
    std::lock_guard lock(*log_mu);
    std::fwrite(line.data(), 1, line.size(), stderr);
    std::fputc('\n', stderr);
    std::fflush(stderr);
  };
  FLOE_ASSIGN_OR_RETURN(auto server, server::Server::Start(std::move(config)));
  const server::ServerConfig& c = server->config();
  std::string catalogs;
  for (const std::string& name : server->catalog_names()) {
    if (!catalogs.empty()) catalogs += ", ";
    catalogs += name;
  }
  const char* http_scheme = c.http_tls.enabled() ? "https" : "http";
  std::printf(
      "floe server is running\n"
      "  REST catalog:  %s://%s:%u/v1  (catalogs: %s; default: %s)\n"
      "  management:    %s://%s:%u/api/v1  (OpenAPI: /api/v1/openapi.json; metrics: /metrics)\n"
      "  dashboard:     %s://%s:%u/  (%s)\n"
      "  data dir:      %s\n"
      "  metastore:     %s\n"
      "  warehouse:     %s\n"
      "  optimizer:     %s%d local thread(s)%s\n"
      "  kafka:         %s\n"
      "Stop with Ctrl-C or SIGTERM.\n",
      http_scheme, c.http_host.c_str(), server->http_port(), catalogs.c_str(),
      c.default_catalog.c_str(), http_scheme, c.http_host.c_str(), server->http_port(), http_scheme,
      c.http_host.c_str(), server->http_port(),
      c.web_dir.empty() ? "not built: make build needs npm; or --web-dir" : c.web_dir.c_str(),
      c.data_dir.c_str(), manage::MaskUri(c.metastore_uri).c_str(), c.default_warehouse.c_str(),
      c.optimizer_enabled ? "" : "off; ", c.optimizer_threads,
      c.optimizer_enabled && c.optimizer_threads == 0 ? " (standalone optimizers only)" : "",
      server->kafka_port() > 0 ? fmt::format("{}:{}{}", c.kafka.host, server->kafka_port(),
                                             c.kafka.tls.enabled() ? " (SSL)" : "")
                                     .c_str()
                               : "off");
  if (server->schema_registry_port() > 0) {
    std::printf("  schema registry: %s://%s:%u\n",
                c.kafka.schema_registry.tls.enabled() ? "https" : "http",
                c.kafka.schema_registry.host.c_str(), server->schema_registry_port());
  }
  for (const server::Server::TlsListener& listener : server->tls_listeners()) {
    http::CertificateInfo cert = listener.context->certificate();
    std::printf(
        "  tls %-12s %s, serial %s, expires %s; client-auth %s\n", (listener.name + ":").c_str(),
        cert.subject.c_str(), cert.serial_hex.c_str(), cert.not_after.c_str(),
        std::string(http::ClientAuthName(listener.context->settings().client_auth)).c_str());
  }
  if (c.auth.enabled) {
    std::printf("  auth:          on (%zu principals; tokens at http://%s:%u/v1/oauth/tokens)\n",
                c.auth.principals.size(), c.http_host.c_str(), server->http_port());
  } else if (!server::IsLoopbackHost(c.http_host)) {
    // Not refused: a proxy in front may authenticate. But say it where operators look.
    std::fprintf(stderr,
                 "floe server: WARNING: listening on %s with authentication off: anyone who "
                 "can reach this port can read and change every catalog. Enable auth in "
                 "floe.yaml (docs/server.md) unless a proxy in front authenticates.\n",
                 c.http_host.c_str());
  }
  std::fflush(stdout);

  int signal = 0;
  for (;;) {
    sigwait(&stop_signals, &signal);
    if (signal != SIGHUP) break;
    ReloadTls(*server);
  }
  std::fprintf(stderr, "floe server: %s received, stopping after requests in flight\n",
               signal == SIGTERM ? "SIGTERM" : "SIGINT");
  server->Stop();
  if (log != nullptr && log != stderr) std::fclose(log);
  return Status::OK();
}

// SIGHUP: every TLS listener re-reads its files. One line per listener on stderr: the new
// certificate, or the error and that the old one stays (never key material).
void ReloadTls(server::Server& server) {
  const auto& listeners = server.tls_listeners();
  if (listeners.empty()) {
    std::fprintf(stderr, "floe server: SIGHUP: no TLS listener to reload\n");
    return;
  }
  std::vector<Status> results = server.ReloadTls();
  for (size_t i = 0; i < listeners.size() && i < results.size(); ++i) {
    if (results[i].ok()) {
      http::CertificateInfo cert = listeners[i].context->certificate();
      std::fprintf(stderr,
                   "floe server: SIGHUP: %s TLS reloaded: %s, serial %s, expires %s; new "
                   "connections use it\n",
                   listeners[i].name.c_str(), cert.subject.c_str(), cert.serial_hex.c_str(),
                   cert.not_after.c_str());
    } else {
      std::fprintf(stderr,
                   "floe server: SIGHUP: ERROR: %s TLS not reloaded, keeping the current "
                   "certificate: %s\n",
                   listeners[i].name.c_str(), results[i].ToString().c_str());
    }
  }
  std::fflush(stderr);
}

std::string MetastoreUri(const std::string& flag, const std::string& data_dir) {
  if (!flag.empty()) return flag;
  return "sqlite:" + data_dir + "/floe.db";
}

}  // namespace

void AddServerCommands(CLI::App& app, int* exit_code) {
  auto flags = std::make_shared<ServerFlags>();
  CLI::App* server = app.add_subcommand("server", "Run the floe service (Iceberg REST catalog)");
  server->add_option("--config", flags->config_file, "floe.yaml (docs/server.md; env FLOE_CONFIG)");
  flags->data_dir_opt = server->add_option(
      "--data-dir", flags->data_dir,
      "Embedded metastore and default warehouse (default ./floe-data; env FLOE_DATA_DIR)");
  flags->metastore_opt = server->add_option(
      "--metastore", flags->metastore,
      "sqlite:PATH or postgresql://... (default sqlite:<data-dir>/floe.db; env FLOE_METASTORE)");
  flags->warehouse_opt = server->add_option(
      "--warehouse", flags->warehouse,
      "Warehouse of the default catalog on first start (default <data-dir>/warehouse)");
  flags->host_opt = server->add_option("--http-host", flags->host,
                                       "Listen address (default 127.0.0.1; env FLOE_HTTP_HOST)");
  flags->port_opt = server->add_option("--http-port", flags->port,
                                       "HTTP port (default 8181; env FLOE_HTTP_PORT)");
  flags->workers_opt = server->add_option("--http-workers", flags->workers,
                                          "Request worker threads (default 4 per core)");
  flags->access_log_opt = server->add_option(
      "--access-log", flags->access_log,
      "Access log: '-' for stderr (default), a file path, or 'none' (env FLOE_ACCESS_LOG)");
  flags->optimizer_threads_opt = server->add_option(
      "--optimizer-threads", flags->optimizer_threads,
      "Threads of the local optimizer group (default 1; 0: only standalone `floe optimizer` "
      "processes run tasks)");
  server->add_flag("--no-self-optimizing", flags->no_self_optimizing,
                   "Turn self-optimizing off (no evaluation, groups or optimizers)");
  flags->optimizer_refresh_opt = server->add_option(
      "--optimizer-refresh-ms", flags->optimizer_refresh_ms,
      "How often every table is evaluated besides commit events (default 60000)");
  flags->kafka_port_opt = server->add_option(
      "--kafka-port", flags->kafka_port,
      "Kafka protocol port (default 9092; 0 = any free port; env FLOE_KAFKA_PORT)");
  flags->kafka_host_opt = server->add_option("--kafka-host", flags->kafka_host,
                                             "Kafka listen address (default 127.0.0.1)");
  flags->kafka_advertised_host_opt = server->add_option(
      "--kafka-advertised-host", flags->kafka_advertised_host,
      "Host name Kafka clients are told to connect to (default: the listen address)");
  server->add_flag("--no-kafka", flags->no_kafka, "Do not start the Kafka listener");
  flags->schema_registry_port_opt = server->add_option(
      "--schema-registry-port", flags->schema_registry_port,
      "Schema registry port (default 8081; 0 = any free port; env FLOE_SCHEMA_REGISTRY_PORT)");
  flags->web_dir_opt = server->add_option(
      "--web-dir", flags->web_dir,
      "The dashboard's built files (default: build/<preset>/web or <prefix>/share/floe/web "
      "beside the binary; env FLOE_WEB_DIR)");
  SetCommand(server, exit_code, [flags] { return RunServer(*flags); });

  auto cat_flags = std::make_shared<std::pair<std::string, std::string>>("", "floe-data");
  CLI::App* cat = app.add_subcommand("catalog", "Catalogs a floe server serves (its metastore)");
  cat->require_subcommand(1);
  auto add_metastore_flags = [cat_flags](CLI::App* c) {
    c->add_option("--metastore", cat_flags->first,
                  "Metastore URI (default sqlite:<data-dir>/floe.db; env FLOE_METASTORE)");
    c->add_option("--data-dir", cat_flags->second, "The server's data dir")->capture_default_str();
  };
  auto open = [cat_flags]() {
    return metastore::Metastore::Open(
        MetastoreUri(EnvOr("FLOE_METASTORE", cat_flags->first), cat_flags->second));
  };

  CLI::App* list = cat->add_subcommand("list", "List catalogs (JSON)");
  add_metastore_flags(list);
  SetCommand(list, exit_code, [open]() -> Status {
    FLOE_ASSIGN_OR_RETURN(auto store, open());
    FLOE_ASSIGN_OR_RETURN(auto records, store->ListCatalogs());
    nlohmann::json out = nlohmann::json::array();
    for (const auto& r : records) {
      out.push_back({{"name", r.name},
                     {"kind", metastore::CatalogKindName(r.kind)},
                     {"uri", r.uri},
                     {"warehouse", r.warehouse},
                     {"properties", r.properties}});
    }
    std::string text = out.dump(2) + "\n";
    std::fwrite(text.data(), 1, text.size(), stdout);
    return Status::OK();
  });

  auto record = std::make_shared<metastore::CatalogRecord>();
  auto kind = std::make_shared<std::string>("internal");
  auto props = std::make_shared<std::vector<std::string>>();
  CLI::App* create = cat->add_subcommand(
      "create", "Create an internal catalog or attach an external one (sql, filesystem, rest)");
  add_metastore_flags(create);
  create->add_option("name", record->name, "Catalog name (the REST prefix)")->required();
  create->add_option("--kind", *kind, "internal, sql, filesystem or rest")->capture_default_str();
  create->add_option("--uri", record->uri, "sql: the catalog database URI; rest: rest:http://...");
  create->add_option("--warehouse", record->warehouse, "Where new tables go / filesystem root");
  create->add_option("--property", *props, "KEY=VALUE (sql: catalog-name=NAME in its database)");
  SetCommand(create, exit_code, [open, record, kind, props]() -> Status {
    FLOE_ASSIGN_OR_RETURN(record->kind, metastore::ParseCatalogKind(*kind));
    for (const std::string& p : *props) {
      size_t eq = p.find('=');
      if (eq == std::string::npos || eq == 0) {
        return Status::InvalidArgument("property '{}' is not KEY=VALUE", p);
      }
      record->properties[p.substr(0, eq)] = p.substr(eq + 1);
    }
    if ((record->kind == metastore::CatalogKind::kSql ||
         record->kind == metastore::CatalogKind::kRest) &&
        record->uri.empty()) {
      return Status::InvalidArgument("a {} catalog needs --uri", *kind);
    }
    if ((record->kind == metastore::CatalogKind::kInternal ||
         record->kind == metastore::CatalogKind::kFilesystem) &&
        record->warehouse.empty()) {
      return Status::InvalidArgument("a {} catalog needs --warehouse", *kind);
    }
    FLOE_ASSIGN_OR_RETURN(auto store, open());
    return store->CreateCatalog(*record);
  });

  auto drop_name = std::make_shared<std::string>();
  CLI::App* drop = cat->add_subcommand("drop", "Forget a catalog (its tables stay where they are)");
  add_metastore_flags(drop);
  drop->add_option("name", *drop_name, "Catalog name")->required();
  SetCommand(drop, exit_code, [open, drop_name]() -> Status {
    FLOE_ASSIGN_OR_RETURN(auto store, open());
    return store->DropCatalog(*drop_name);
  });
}

}  // namespace floe::exe
