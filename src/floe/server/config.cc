#include "floe/server/config.h"

#include <charconv>
#include <fstream>
#include <optional>
#include <sstream>
#include <tuple>

#include <yaml-cpp/yaml.h>

#include "floe/auth/crypto.h"
#include "floe/auth/sasl.h"
#include "floe/base/macros.h"

namespace floe::server {

namespace {

Status CheckKeys(const YAML::Node& map, std::string_view where,
                 std::initializer_list<std::string_view> known) {
  if (!map.IsMap()) return Status::InvalidArgument("{} must be a mapping", where);
  for (const auto& entry : map) {
    std::string key = entry.first.as<std::string>();
    bool ok = false;
    for (std::string_view k : known) ok |= key == k;
    if (!ok) return Status::InvalidArgument("unknown key '{}' in {}", key, where);
  }
  return Status::OK();
}

Result<std::string> Scalar(const YAML::Node& node, std::string_view key) {
  if (!node.IsScalar()) return Status::InvalidArgument("'{}' must be a scalar value", key);
  return node.as<std::string>();
}

Result<int64_t> Integer(const YAML::Node& node, std::string_view key, int64_t min, int64_t max) {
  FLOE_ASSIGN_OR_RETURN(std::string text, Scalar(node, key));
  int64_t value = 0;
  auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || ptr != text.data() + text.size() || value < min || value > max) {
    return Status::InvalidArgument("'{}' must be an integer in [{}, {}], not '{}'", key, min, max,
                                   text);
  }
  return value;
}

// YAML's and the environment's spellings of a boolean.
std::optional<bool> ParseBool(std::string_view text) {
  for (std::string_view yes : {"true", "True", "TRUE", "yes", "on", "1"}) {
    if (text == yes) return true;
  }
  for (std::string_view no : {"false", "False", "FALSE", "no", "off", "0"}) {
    if (text == no) return false;
  }
  return std::nullopt;
}

Result<bool> Boolean(const YAML::Node& node, std::string_view key) {
  FLOE_ASSIGN_OR_RETURN(std::string text, Scalar(node, key));
  std::optional<bool> value = ParseBool(text);
  if (!value) return Status::InvalidArgument("'{}' must be true or false, not '{}'", key, text);
  return *value;
}

// A SHA-256 hash as 64 hex digits (what `sha256sum` prints), stored as its 32 bytes. The
// error never repeats the value: someone may have pasted the secret itself.
Result<std::string> Sha256Hex(const YAML::Node& node, const std::string& key) {
  FLOE_ASSIGN_OR_RETURN(std::string text, Scalar(node, key));
  auto bytes = auth::HexDecode(text);
  if (!bytes.ok() || bytes->size() != auth::kSha256Bytes) {
    return Status::InvalidArgument("'{}' must be a SHA-256 hash: 64 hex digits", key);
  }
  return std::move(*bytes);
}

// A SCRAM credential as `floe auth scram-credential` prints it: {salt, iterations,
// stored-key, server-key}, the byte strings in base64. Errors never repeat a value.
Result<auth::ScramCredential> ScramCredentialOf(const YAML::Node& node, const std::string& key,
                                                size_t digest_bytes) {
  if (!node.IsMap()) {
    return Status::InvalidArgument(
        "'{}' must map salt, iterations, stored-key and server-key (floe auth "
        "scram-credential prints one)",
        key);
  }
  FLOE_RETURN_IF_ERROR(CheckKeys(node, key, {"salt", "iterations", "stored-key", "server-key"}));
  auth::ScramCredential credential;
  auto bytes = [&](const char* field, std::string* out, size_t want) -> Status {
    FLOE_ASSIGN_OR_RETURN(std::string text, Scalar(node[field], key + "." + field));
    auto decoded = auth::Base64Decode(text);
    if (!decoded.ok() || decoded->empty() || (want != 0 && decoded->size() != want)) {
      return Status::InvalidArgument("'{}.{}' must be base64 of {}", key, field,
                                     want != 0 ? fmt::format("{} bytes", want) : "the salt");
    }
    *out = std::move(*decoded);
    return Status::OK();
  };
  FLOE_RETURN_IF_ERROR(bytes("salt", &credential.salt, 0));
  FLOE_RETURN_IF_ERROR(bytes("stored-key", &credential.stored_key, digest_bytes));
  FLOE_RETURN_IF_ERROR(bytes("server-key", &credential.server_key, digest_bytes));
  FLOE_ASSIGN_OR_RETURN(int64_t iterations,
                        Integer(node["iterations"], key + ".iterations", auth::kScramMinIterations,
                                auth::kScramMaxIterations));
  credential.iterations = static_cast<int32_t>(iterations);
  return credential;
}

Status ParsePrincipals(const YAML::Node& node, auth::AuthConfig* auth) {
  if (!node.IsMap()) {
    return Status::InvalidArgument("'auth.principals' must map names to principals");
  }
  for (const auto& entry : node) {
    auth::Principal principal;
    principal.name = entry.first.as<std::string>();
    const YAML::Node& p = entry.second;
    std::string where = "auth.principals." + principal.name;
    FLOE_RETURN_IF_ERROR(CheckKeys(
        p, where,
        {"secret-sha256", "tokens-sha256", "scram-sha-256", "scram-sha-512", "catalogs"}));
    if (p["scram-sha-256"]) {
      FLOE_ASSIGN_OR_RETURN(principal.scram_sha256,
                            ScramCredentialOf(p["scram-sha-256"], where + ".scram-sha-256", 32));
    }
    if (p["scram-sha-512"]) {
      FLOE_ASSIGN_OR_RETURN(principal.scram_sha512,
                            ScramCredentialOf(p["scram-sha-512"], where + ".scram-sha-512", 64));
    }
    if (p["secret-sha256"]) {
      FLOE_ASSIGN_OR_RETURN(principal.secret_sha256,
                            Sha256Hex(p["secret-sha256"], where + ".secret-sha256"));
    }
    if (const YAML::Node& tokens = p["tokens-sha256"]; tokens) {
      if (!tokens.IsSequence()) {
        return Status::InvalidArgument("{}.tokens-sha256 must be a list", where);
      }
      for (const auto& token : tokens) {
        FLOE_ASSIGN_OR_RETURN(principal.token_sha256s.emplace_back(),
                              Sha256Hex(token, where + ".tokens-sha256"));
      }
    }
    if (principal.secret_sha256.empty() && principal.token_sha256s.empty() &&
        !principal.scram_sha256 && !principal.scram_sha512) {
      return Status::InvalidArgument(
          "{} needs secret-sha256, tokens-sha256, scram-sha-256 or scram-sha-512", where);
    }
    const YAML::Node& catalogs = p["catalogs"];
    if (!catalogs || !catalogs.IsMap()) {
      return Status::InvalidArgument(
          "{}.catalogs must map catalog names (or \"*\") to read, write or none", where);
    }
    for (const auto& c : catalogs) {
      std::string key = where + ".catalogs." + c.first.as<std::string>();
      FLOE_ASSIGN_OR_RETURN(std::string access, Scalar(c.second, key));
      auto parsed = auth::ParseAccess(access);
      if (!parsed.ok()) return Status::InvalidArgument("{}: {}", key, parsed.status().message());
      principal.catalogs[c.first.as<std::string>()] = *parsed;
    }
    auth->principals.push_back(std::move(principal));
  }
  return Status::OK();
}

Status ParseAuth(const YAML::Node& node, auth::AuthConfig* auth) {
  FLOE_RETURN_IF_ERROR(
      CheckKeys(node, "auth",
                {"enabled", "token-lifetime-seconds", "token-key-file", "principals", "throttle"}));
  if (const YAML::Node& t = node["throttle"]; t) {
    FLOE_RETURN_IF_ERROR(
        CheckKeys(t, "auth.throttle", {"client-burst", "peer-burst", "refill-ms"}));
    if (t["client-burst"]) {
      FLOE_ASSIGN_OR_RETURN(int64_t v,
                            Integer(t["client-burst"], "auth.throttle.client-burst", 1, 1000000));
      auth->throttle.client_burst = static_cast<int32_t>(v);
    }
    if (t["peer-burst"]) {
      FLOE_ASSIGN_OR_RETURN(int64_t v,
                            Integer(t["peer-burst"], "auth.throttle.peer-burst", 1, 1000000));
      auth->throttle.peer_burst = static_cast<int32_t>(v);
    }
    if (t["refill-ms"]) {
      FLOE_ASSIGN_OR_RETURN(auth->throttle.refill_ms,
                            Integer(t["refill-ms"], "auth.throttle.refill-ms", 1, 3600'000));
    }
  }
  if (node["enabled"]) {
    FLOE_ASSIGN_OR_RETURN(auth->enabled, Boolean(node["enabled"], "auth.enabled"));
  }
  if (node["token-lifetime-seconds"]) {
    FLOE_ASSIGN_OR_RETURN(
        auth->token_lifetime_seconds,
        Integer(node["token-lifetime-seconds"], "auth.token-lifetime-seconds", 1, 30 * 24 * 3600));
  }
  if (node["token-key-file"]) {
    FLOE_ASSIGN_OR_RETURN(auth->token_key_file,
                          Scalar(node["token-key-file"], "auth.token-key-file"));
  }
  if (node["principals"]) FLOE_RETURN_IF_ERROR(ParsePrincipals(node["principals"], auth));
  return Status::OK();
}

Status ParseCatalogs(const YAML::Node& node, ServerConfig* config) {
  if (!node.IsMap()) return Status::InvalidArgument("'catalogs' must map names to catalogs");
  for (const auto& entry : node) {
    metastore::CatalogRecord record;
    record.name = entry.first.as<std::string>();
    const YAML::Node& c = entry.second;
    std::string where = "catalogs." + record.name;
    if (c.IsNull()) return Status::InvalidArgument("{} needs at least a warehouse", where);
    FLOE_RETURN_IF_ERROR(CheckKeys(c, where, {"kind", "uri", "warehouse", "properties"}));
    if (c["kind"]) {
      FLOE_ASSIGN_OR_RETURN(std::string kind, Scalar(c["kind"], where + ".kind"));
      FLOE_ASSIGN_OR_RETURN(record.kind, metastore::ParseCatalogKind(kind));
    }
    if (c["uri"]) {
      FLOE_ASSIGN_OR_RETURN(record.uri, Scalar(c["uri"], where + ".uri"));
    }
    if (c["warehouse"]) {
      FLOE_ASSIGN_OR_RETURN(record.warehouse, Scalar(c["warehouse"], where + ".warehouse"));
    }
    if (const YAML::Node& props = c["properties"]; props) {
      if (!props.IsMap()) return Status::InvalidArgument("{}.properties must be a mapping", where);
      for (const auto& p : props) {
        FLOE_ASSIGN_OR_RETURN(record.properties[p.first.as<std::string>()],
                              Scalar(p.second, where + ".properties"));
      }
    }
    bool needs_uri =
        record.kind == metastore::CatalogKind::kSql || record.kind == metastore::CatalogKind::kRest;
    if (needs_uri && record.uri.empty()) return Status::InvalidArgument("{} needs a uri", where);
    if (!needs_uri && record.warehouse.empty()) {
      return Status::InvalidArgument("{} needs a warehouse", where);
    }
    config->catalogs.push_back(std::move(record));
  }
  return Status::OK();
}

// A listener's `tls` block (http/tls.h). `where` is its key ("kafka.tls") for errors; the
// key password is never repeated in one.
Status ParseTls(const YAML::Node& node, const std::string& where, http::TlsSettings* tls) {
  FLOE_RETURN_IF_ERROR(
      CheckKeys(node, where, {"cert-file", "key-file", "key-password", "ca-file", "client-auth"}));
  for (auto [key, field] : {std::pair{"cert-file", &tls->cert_file},
                            {"key-file", &tls->key_file},
                            {"ca-file", &tls->ca_file}}) {
    if (node[key]) {
      FLOE_ASSIGN_OR_RETURN(*field, Scalar(node[key], where + "." + key));
    }
  }
  if (node["key-password"]) {
    if (!node["key-password"].IsScalar()) {
      return Status::InvalidArgument("'{}.key-password' must be a string", where);
    }
    tls->key_password = node["key-password"].as<std::string>();
  }
  if (node["client-auth"]) {
    FLOE_ASSIGN_OR_RETURN(std::string mode, Scalar(node["client-auth"], where + ".client-auth"));
    auto parsed = http::ParseClientAuth(mode);
    if (!parsed.ok()) return Status::InvalidArgument("{}: {}", where, parsed.status().message());
    tls->client_auth = *parsed;
  }
  if (tls->cert_file.empty() != tls->key_file.empty()) {
    return Status::InvalidArgument("{} needs both cert-file and key-file", where);
  }
  if (!tls->enabled() && (!tls->ca_file.empty() || tls->client_auth != http::ClientAuth::kNone)) {
    return Status::InvalidArgument("{}: ca-file and client-auth need cert-file and key-file",
                                   where);
  }
  if (tls->client_auth != http::ClientAuth::kNone && tls->ca_file.empty()) {
    return Status::InvalidArgument("{}.client-auth {} needs a ca-file", where,
                                   http::ClientAuthName(tls->client_auth));
  }
  return Status::OK();
}

Status ParseKafka(const YAML::Node& node, ServerConfig::Kafka* kafka) {
  FLOE_RETURN_IF_ERROR(CheckKeys(node, "kafka",
                                 {"enabled",
                                  "host",
                                  "port",
                                  "advertised-host",
                                  "node-id",
                                  "fsync",
                                  "flush-interval-ms",
                                  "num-partitions",
                                  "auto-create-topics",
                                  "retention-ms",
                                  "retention-bytes",
                                  "segment-bytes",
                                  "max-request-bytes",
                                  "table-catalog",
                                  "table-namespace",
                                  "lag-throttle-bytes",
                                  "lag-limit-bytes",
                                  "max-throttle-ms",
                                  "translator-threads",
                                  "key-index",
                                  "schema-registry",
                                  "tls"}));
  if (node["enabled"]) {
    FLOE_ASSIGN_OR_RETURN(kafka->enabled, Boolean(node["enabled"], "kafka.enabled"));
  }
  if (node["host"]) {
    FLOE_ASSIGN_OR_RETURN(kafka->host, Scalar(node["host"], "kafka.host"));
  }
  if (node["port"]) {
    FLOE_ASSIGN_OR_RETURN(int64_t port, Integer(node["port"], "kafka.port", 0, 65535));
    kafka->port = static_cast<uint16_t>(port);
  }
  if (node["advertised-host"]) {
    FLOE_ASSIGN_OR_RETURN(kafka->advertised_host,
                          Scalar(node["advertised-host"], "kafka.advertised-host"));
  }
  if (node["node-id"]) {
    FLOE_ASSIGN_OR_RETURN(int64_t id, Integer(node["node-id"], "kafka.node-id", 0, INT32_MAX));
    kafka->node_id = static_cast<int32_t>(id);
  }
  if (node["fsync"]) {
    FLOE_ASSIGN_OR_RETURN(std::string fsync, Scalar(node["fsync"], "kafka.fsync"));
    if (fsync != "batch" && fsync != "interval") {
      return Status::InvalidArgument("kafka.fsync must be batch or interval, not '{}'", fsync);
    }
    kafka->fsync_every_batch = fsync == "batch";
  }
  if (node["flush-interval-ms"]) {
    FLOE_ASSIGN_OR_RETURN(kafka->flush_interval_ms, Integer(node["flush-interval-ms"],
                                                            "kafka.flush-interval-ms", 1, 3600000));
  }
  if (node["num-partitions"]) {
    FLOE_ASSIGN_OR_RETURN(int64_t n,
                          Integer(node["num-partitions"], "kafka.num-partitions", 1, 10000));
    kafka->default_partitions = static_cast<int32_t>(n);
  }
  if (node["auto-create-topics"]) {
    FLOE_ASSIGN_OR_RETURN(kafka->auto_create_topics,
                          Boolean(node["auto-create-topics"], "kafka.auto-create-topics"));
  }
  if (node["retention-ms"]) {
    FLOE_ASSIGN_OR_RETURN(kafka->retention_ms,
                          Integer(node["retention-ms"], "kafka.retention-ms", -1, INT64_MAX));
  }
  if (node["retention-bytes"]) {
    FLOE_ASSIGN_OR_RETURN(kafka->retention_bytes,
                          Integer(node["retention-bytes"], "kafka.retention-bytes", -1, INT64_MAX));
  }
  if (node["segment-bytes"]) {
    FLOE_ASSIGN_OR_RETURN(kafka->segment_bytes,
                          Integer(node["segment-bytes"], "kafka.segment-bytes", 1024, INT32_MAX));
  }
  if (node["max-request-bytes"]) {
    FLOE_ASSIGN_OR_RETURN(int64_t n, Integer(node["max-request-bytes"], "kafka.max-request-bytes",
                                             1024, int64_t{1} << 31));
    kafka->max_request_bytes = static_cast<size_t>(n);
  }
  if (node["lag-throttle-bytes"]) {
    FLOE_ASSIGN_OR_RETURN(
        kafka->lag_throttle_bytes,
        Integer(node["lag-throttle-bytes"], "kafka.lag-throttle-bytes", -1, INT64_MAX));
  }
  if (node["lag-limit-bytes"]) {
    FLOE_ASSIGN_OR_RETURN(kafka->lag_limit_bytes,
                          Integer(node["lag-limit-bytes"], "kafka.lag-limit-bytes", -1, INT64_MAX));
  }
  if (node["max-throttle-ms"]) {
    FLOE_ASSIGN_OR_RETURN(int64_t ms,
                          Integer(node["max-throttle-ms"], "kafka.max-throttle-ms", 0, 60000));
    kafka->max_throttle_ms = static_cast<int32_t>(ms);
  }
  if (node["translator-threads"]) {
    FLOE_ASSIGN_OR_RETURN(int64_t threads,
                          Integer(node["translator-threads"], "kafka.translator-threads", 0, 1024));
    kafka->translator_threads = static_cast<int>(threads);
  }
  if (const YAML::Node index = node["key-index"]) {
    FLOE_RETURN_IF_ERROR(CheckKeys(index, "kafka.key-index", {"dir", "memory-bytes"}));
    if (index["dir"]) {
      FLOE_ASSIGN_OR_RETURN(kafka->key_index.dir, Scalar(index["dir"], "kafka.key-index.dir"));
    }
    if (index["memory-bytes"]) {
      FLOE_ASSIGN_OR_RETURN(kafka->key_index.memory_bytes,
                            Integer(index["memory-bytes"], "kafka.key-index.memory-bytes",
                                    int64_t{8} << 20, int64_t{1} << 40));
    }
  }
  if (node["table-catalog"]) {
    FLOE_ASSIGN_OR_RETURN(kafka->table_catalog,
                          Scalar(node["table-catalog"], "kafka.table-catalog"));
  }
  if (node["table-namespace"]) {
    FLOE_ASSIGN_OR_RETURN(kafka->table_namespace,
                          Scalar(node["table-namespace"], "kafka.table-namespace"));
    if (kafka->table_namespace.empty()) {
      return Status::InvalidArgument("kafka.table-namespace must not be empty");
    }
  }
  if (const YAML::Node& tls = node["tls"]; tls) {
    FLOE_RETURN_IF_ERROR(ParseTls(tls, "kafka.tls", &kafka->tls));
  }
  if (const YAML::Node& sr = node["schema-registry"]; sr) {
    FLOE_RETURN_IF_ERROR(
        CheckKeys(sr, "kafka.schema-registry", {"enabled", "host", "port", "tls"}));
    if (const YAML::Node& tls = sr["tls"]; tls) {
      FLOE_RETURN_IF_ERROR(ParseTls(tls, "kafka.schema-registry.tls", &kafka->schema_registry.tls));
    }
    if (sr["enabled"]) {
      FLOE_ASSIGN_OR_RETURN(kafka->schema_registry.enabled,
                            Boolean(sr["enabled"], "kafka.schema-registry.enabled"));
    }
    if (sr["host"]) {
      FLOE_ASSIGN_OR_RETURN(kafka->schema_registry.host,
                            Scalar(sr["host"], "kafka.schema-registry.host"));
    }
    if (sr["port"]) {
      FLOE_ASSIGN_OR_RETURN(int64_t port,
                            Integer(sr["port"], "kafka.schema-registry.port", 0, 65535));
      kafka->schema_registry.port = static_cast<uint16_t>(port);
    }
  }
  return Status::OK();
}

Status ParseNode(const YAML::Node& root, ServerConfig* config) {
  if (root.IsNull()) return Status::OK();  // an empty file: every default
  FLOE_RETURN_IF_ERROR(CheckKeys(root, "floe.yaml",
                                 {"data-dir", "metastore", "default-catalog", "warehouse", "http",
                                  "optimizer", "catalogs", "auth", "kafka", "web-dir", "history"}));
  if (root["data-dir"]) {
    FLOE_ASSIGN_OR_RETURN(config->data_dir, Scalar(root["data-dir"], "data-dir"));
  }
  if (root["metastore"]) {
    FLOE_ASSIGN_OR_RETURN(config->metastore_uri, Scalar(root["metastore"], "metastore"));
  }
  if (root["default-catalog"]) {
    FLOE_ASSIGN_OR_RETURN(config->default_catalog,
                          Scalar(root["default-catalog"], "default-catalog"));
  }
  if (root["web-dir"]) {
    FLOE_ASSIGN_OR_RETURN(config->web_dir, Scalar(root["web-dir"], "web-dir"));
  }
  if (root["warehouse"]) {
    FLOE_ASSIGN_OR_RETURN(config->default_warehouse, Scalar(root["warehouse"], "warehouse"));
  }
  if (const YAML::Node& optimizer = root["optimizer"]; optimizer) {
    FLOE_RETURN_IF_ERROR(CheckKeys(
        optimizer, "optimizer",
        {"enabled", "threads", "memory-mb", "refresh-interval-ms", "maintenance-interval-ms",
         "heartbeat-timeout-ms", "ack-timeout-ms", "execute-timeout-ms"}));
    if (optimizer["enabled"]) {
      FLOE_ASSIGN_OR_RETURN(config->optimizer_enabled,
                            Boolean(optimizer["enabled"], "optimizer.enabled"));
    }
    for (auto [key, field] :
         {std::pair{"heartbeat-timeout-ms", &config->optimizer_heartbeat_timeout_ms},
          {"ack-timeout-ms", &config->optimizer_ack_timeout_ms},
          {"execute-timeout-ms", &config->optimizer_execute_timeout_ms}}) {
      if (optimizer[key]) {
        FLOE_ASSIGN_OR_RETURN(*field, Integer(optimizer[key], fmt::format("optimizer.{}", key),
                                              1000, int64_t{1} << 40));
      }
    }
    if (optimizer["threads"]) {
      FLOE_ASSIGN_OR_RETURN(int64_t threads,
                            Integer(optimizer["threads"], "optimizer.threads", 0, 1024));
      config->optimizer_threads = static_cast<int>(threads);
    }
    if (optimizer["memory-mb"]) {
      FLOE_ASSIGN_OR_RETURN(
          config->optimizer_memory_mb,
          Integer(optimizer["memory-mb"], "optimizer.memory-mb", 0, int64_t{1} << 30));
    }
    if (optimizer["refresh-interval-ms"]) {
      FLOE_ASSIGN_OR_RETURN(config->optimizer_refresh_interval_ms,
                            Integer(optimizer["refresh-interval-ms"],
                                    "optimizer.refresh-interval-ms", 100, int64_t{1} << 40));
    }
    if (optimizer["maintenance-interval-ms"]) {
      FLOE_ASSIGN_OR_RETURN(config->maintenance_interval_ms,
                            Integer(optimizer["maintenance-interval-ms"],
                                    "optimizer.maintenance-interval-ms", 0, int64_t{1} << 40));
    }
  }
  if (const YAML::Node& http = root["http"]; http) {
    FLOE_RETURN_IF_ERROR(CheckKeys(
        http, "http", {"host", "port", "workers", "max-request-bytes", "access-log", "tls"}));
    if (const YAML::Node& tls = http["tls"]; tls) {
      FLOE_RETURN_IF_ERROR(ParseTls(tls, "http.tls", &config->http_tls));
    }
    if (http["host"]) {
      FLOE_ASSIGN_OR_RETURN(config->http_host, Scalar(http["host"], "http.host"));
    }
    if (http["port"]) {
      FLOE_ASSIGN_OR_RETURN(int64_t port, Integer(http["port"], "http.port", 0, 65535));
      config->http_port = static_cast<uint16_t>(port);
    }
    if (http["workers"]) {
      FLOE_ASSIGN_OR_RETURN(int64_t workers, Integer(http["workers"], "http.workers", 0, 4096));
      config->http_worker_threads = static_cast<int>(workers);
    }
    if (http["max-request-bytes"]) {
      FLOE_ASSIGN_OR_RETURN(
          int64_t bytes,
          Integer(http["max-request-bytes"], "http.max-request-bytes", 1024, int64_t{1} << 32));
      config->max_request_body_bytes = static_cast<size_t>(bytes);
    }
    if (http["access-log"]) {
      FLOE_ASSIGN_OR_RETURN(config->access_log_path, Scalar(http["access-log"], "http.access-log"));
    }
  }
  if (const YAML::Node& catalogs = root["catalogs"]; catalogs) {
    FLOE_RETURN_IF_ERROR(ParseCatalogs(catalogs, config));
  }
  if (const YAML::Node& auth = root["auth"]; auth) {
    FLOE_RETURN_IF_ERROR(ParseAuth(auth, &config->auth));
  }
  if (const YAML::Node& kafka = root["kafka"]; kafka) {
    FLOE_RETURN_IF_ERROR(ParseKafka(kafka, &config->kafka));
  }
  if (const YAML::Node& history = root["history"]; history) {
    FLOE_RETURN_IF_ERROR(
        CheckKeys(history, "history", {"server-id", "interval-ms", "retention-ms", "max-samples"}));
    if (history["server-id"]) {
      FLOE_ASSIGN_OR_RETURN(config->history.server_id,
                            Scalar(history["server-id"], "history.server-id"));
      if (config->history.server_id.size() > 255) {
        return Status::InvalidArgument("floe.yaml: history.server-id is longer than 255 bytes");
      }
    }
    for (auto [key, field, lowest] :
         {std::tuple{"interval-ms", &config->history.interval_ms, int64_t{100}},
          {"retention-ms", &config->history.retention_ms, int64_t{1000}},
          {"max-samples", &config->history.max_samples, int64_t{10}}}) {
      if (history[key]) {
        FLOE_ASSIGN_OR_RETURN(*field, Integer(history[key], fmt::format("history.{}", key), lowest,
                                              int64_t{1} << 40));
      }
    }
  }
  return Status::OK();
}

}  // namespace

Status ParseServerConfig(std::string_view yaml_text, ServerConfig* config) {
  try {
    YAML::Node root = YAML::Load(std::string(yaml_text));
    return ParseNode(root, config);
  } catch (const YAML::Exception& e) {
    return Status::InvalidArgument("floe.yaml: {}", e.what());
  }
}

Status LoadServerConfig(const std::string& path, ServerConfig* config) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return Status::NotFound("cannot open config file {}", path);
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad()) return Status::IOError("cannot read config file {}", path);
  Status parsed = ParseServerConfig(text.str(), config);
  if (!parsed.ok()) return Status(parsed.code(), fmt::format("{}: {}", path, parsed.message()));
  return parsed;
}

Status ApplyServerEnvironment(const std::function<const char*(const char*)>& getenv,
                              ServerConfig* config) {
  auto value = [&](const char* name) -> const char* {
    const char* v = getenv(name);
    return v != nullptr && *v != '\0' ? v : nullptr;
  };
  if (const char* v = value("FLOE_DATA_DIR")) config->data_dir = v;
  if (const char* v = value("FLOE_METASTORE")) config->metastore_uri = v;
  if (const char* v = value("FLOE_HTTP_HOST")) config->http_host = v;
  if (const char* v = value("FLOE_ACCESS_LOG")) config->access_log_path = v;
  if (const char* v = value("FLOE_WEB_DIR")) config->web_dir = v;
  if (const char* v = value("FLOE_HTTP_PORT")) {
    std::string_view text(v);
    int port = -1;
    auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), port);
    if (ec != std::errc() || ptr != text.data() + text.size() || port < 0 || port > 65535) {
      return Status::InvalidArgument("FLOE_HTTP_PORT '{}' is not a port", text);
    }
    config->http_port = static_cast<uint16_t>(port);
  }
  if (const char* v = value("FLOE_KAFKA_PORT")) {
    std::string_view text(v);
    int port = -1;
    auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), port);
    if (ec != std::errc() || ptr != text.data() + text.size() || port < 0 || port > 65535) {
      return Status::InvalidArgument("FLOE_KAFKA_PORT '{}' is not a port", text);
    }
    config->kafka.port = static_cast<uint16_t>(port);
  }
  if (const char* v = value("FLOE_SCHEMA_REGISTRY_PORT")) {
    std::string_view text(v);
    int port = -1;
    auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), port);
    if (ec != std::errc() || ptr != text.data() + text.size() || port < 0 || port > 65535) {
      return Status::InvalidArgument("FLOE_SCHEMA_REGISTRY_PORT '{}' is not a port", text);
    }
    config->kafka.schema_registry.port = static_cast<uint16_t>(port);
  }
  if (const char* v = value("FLOE_AUTH_ENABLED")) {
    std::optional<bool> enabled = ParseBool(v);
    if (!enabled) return Status::InvalidArgument("FLOE_AUTH_ENABLED '{}' is not true or false", v);
    config->auth.enabled = *enabled;
  }
  return Status::OK();
}

}  // namespace floe::server
