#include "floe/server/config.h"

#include <map>
#include <string>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "floe/base/testing.h"

#include "floe/auth/crypto.h"
#include "floe/auth/sasl.h"

namespace floe::server {
namespace {

TEST(ServerConfig, EmptyFileKeepsDefaults) {
  ServerConfig config;
  FLOE_ASSERT_OK(ParseServerConfig("", &config));
  EXPECT_EQ(config.data_dir, "floe-data");
  EXPECT_EQ(config.http_port, 8181);
  EXPECT_TRUE(config.catalogs.empty());
}

TEST(ServerConfig, EveryKey) {
  ServerConfig config;
  Status s = ParseServerConfig(R"(
data-dir: /srv/floe
metastore: postgresql://u:p@db:5432/floe
default-catalog: lake
warehouse: /data/lake
http:
  host: 0.0.0.0
  port: 9000
  workers: 12
  max-request-bytes: 1048576
  access-log: none
catalogs:
  lake:
    warehouse: /data/lake
  legacy:
    kind: sql
    uri: sqlite:/data/legacy.db
    warehouse: /data/legacy
    properties: {catalog-name: prod}
)",
                               &config);
  FLOE_ASSERT_OK(s);
  EXPECT_EQ(config.data_dir, "/srv/floe");
  EXPECT_EQ(config.metastore_uri, "postgresql://u:p@db:5432/floe");
  EXPECT_EQ(config.default_catalog, "lake");
  EXPECT_EQ(config.default_warehouse, "/data/lake");
  EXPECT_EQ(config.http_host, "0.0.0.0");
  EXPECT_EQ(config.http_port, 9000);
  EXPECT_EQ(config.http_worker_threads, 12);
  EXPECT_EQ(config.max_request_body_bytes, 1048576u);
  EXPECT_EQ(config.access_log_path, "none");
  ASSERT_EQ(config.catalogs.size(), 2u);
  EXPECT_EQ(config.catalogs[0].name, "lake");
  EXPECT_EQ(config.catalogs[0].kind, metastore::CatalogKind::kInternal);
  EXPECT_EQ(config.catalogs[1].kind, metastore::CatalogKind::kSql);
  EXPECT_EQ(config.catalogs[1].properties.at("catalog-name"), "prod");
}

// sha256("a") and sha256("b"), as `printf %s a | sha256sum` prints them.
#define HASH_A "ca978112ca1bbdcafac231b39a23dc4da786eff8147c4e72b9807785afee48bb"
#define HASH_B "3e23e8160039594a33894f6564e1b1348bbd7a0088d42c4acb73eeaed59c009d"

TEST(ServerConfig, KafkaSection) {
  ServerConfig config;
  Status s = ParseServerConfig(R"(
kafka:
  host: 0.0.0.0
  port: 19092
  advertised-host: broker.example.com
  fsync: interval
  flush-interval-ms: 250
  num-partitions: 3
  auto-create-topics: false
  retention-ms: 1000
  table-catalog: lake
  table-namespace: streams
  lag-throttle-bytes: 1048576
  lag-limit-bytes: -1
  max-throttle-ms: 250
  translator-threads: 3
  schema-registry: {host: 0.0.0.0, port: 18081}
)",
                               &config);
  FLOE_ASSERT_OK(s);
  EXPECT_TRUE(config.kafka.schema_registry.enabled);
  EXPECT_EQ(config.kafka.schema_registry.host, "0.0.0.0");
  EXPECT_EQ(config.kafka.schema_registry.port, 18081);
  EXPECT_FALSE(ParseServerConfig("kafka: {schema-registry: {prot: 1}}", &config).ok());
  FLOE_EXPECT_OK(ParseServerConfig("kafka: {schema-registry: {enabled: false}}", &config));
  EXPECT_FALSE(config.kafka.schema_registry.enabled);
  EXPECT_TRUE(config.kafka.enabled);
  EXPECT_EQ(config.kafka.host, "0.0.0.0");
  EXPECT_EQ(config.kafka.port, 19092);
  EXPECT_EQ(config.kafka.advertised_host, "broker.example.com");
  EXPECT_FALSE(config.kafka.fsync_every_batch);
  EXPECT_EQ(config.kafka.flush_interval_ms, 250);
  EXPECT_EQ(config.kafka.default_partitions, 3);
  EXPECT_FALSE(config.kafka.auto_create_topics);
  EXPECT_EQ(config.kafka.retention_ms, 1000);
  EXPECT_EQ(config.kafka.table_catalog, "lake");
  EXPECT_EQ(config.kafka.table_namespace, "streams");
  EXPECT_EQ(config.kafka.lag_throttle_bytes, 1048576);
  EXPECT_EQ(config.kafka.lag_limit_bytes, -1);
  EXPECT_EQ(config.kafka.max_throttle_ms, 250);
  EXPECT_EQ(config.kafka.translator_threads, 3);
  EXPECT_FALSE(ParseServerConfig("kafka: {max-throttle-ms: 100000}", &config).ok());
  EXPECT_FALSE(ParseServerConfig("kafka: {translator-threads: -1}", &config).ok());
  EXPECT_FALSE(ParseServerConfig("kafka: {translator-threads: many}", &config).ok());
  EXPECT_FALSE(ParseServerConfig("kafka: {table-namespace: ''}", &config).ok());
  EXPECT_FALSE(ParseServerConfig("kafka: {fsync: sometimes}", &config).ok());
  EXPECT_FALSE(ParseServerConfig("kafka: {prot: 1}", &config).ok());
  ServerConfig defaults;
  EXPECT_EQ(defaults.kafka.port, 9092);
  EXPECT_EQ(defaults.kafka.table_catalog, "");  // the default catalog
  EXPECT_EQ(defaults.kafka.table_namespace, "kafka");
  EXPECT_EQ(defaults.kafka.translator_threads, 0);       // one per core
  EXPECT_EQ(defaults.kafka.schema_registry.port, 8081);  // Confluent's default port
}

TEST(ServerConfig, HistorySection) {
  ServerConfig config;
  Status s = ParseServerConfig(R"(
history:
  server-id: floe-eu-1
  interval-ms: 250
  retention-ms: 3600000
  max-samples: 100
)",
                               &config);
  FLOE_ASSERT_OK(s);
  EXPECT_EQ(config.history.server_id, "floe-eu-1");
  EXPECT_EQ(config.history.interval_ms, 250);
  EXPECT_EQ(config.history.retention_ms, 3'600'000);
  EXPECT_EQ(config.history.max_samples, 100);
  EXPECT_FALSE(ParseServerConfig("history: {interval-ms: 5}", &config).ok());
  EXPECT_FALSE(ParseServerConfig("history: {every: 5}", &config).ok());
  EXPECT_FALSE(ParseServerConfig("history: {server-id: [a]}", &config).ok());
  EXPECT_FALSE(
      ParseServerConfig("history: {server-id: " + std::string(256, 'x') + "}", &config).ok());
  ServerConfig defaults;
  EXPECT_EQ(defaults.history.server_id, "");  // the host name and HTTP port at start
  EXPECT_EQ(defaults.history.interval_ms, 60'000);
  EXPECT_EQ(defaults.history.retention_ms, int64_t{7} * 24 * 3600 * 1000);
}

TEST(ServerConfig, AuthSection) {
  ServerConfig config;
  EXPECT_FALSE(config.auth.enabled);
  Status s = ParseServerConfig(R"(
auth:
  enabled: true
  token-lifetime-seconds: 600
  token-key-file: /etc/floe/token.key
  principals:
    etl:
      secret-sha256: )" HASH_A R"(
      catalogs: {default: write, lake: read}
    dashboards:
      tokens-sha256: [)" HASH_B R"(]
      catalogs: {"*": read, private: none}
)",
                               &config);
  FLOE_ASSERT_OK(s);
  EXPECT_TRUE(config.auth.enabled);
  EXPECT_EQ(config.auth.token_lifetime_seconds, 600);
  EXPECT_EQ(config.auth.token_key_file, "/etc/floe/token.key");
  ASSERT_EQ(config.auth.principals.size(), 2u);
  const auth::Principal& etl = config.auth.principals[0];
  EXPECT_EQ(etl.name, "etl");
  EXPECT_EQ(etl.secret_sha256, auth::Sha256("a"));
  EXPECT_EQ(etl.catalogs.at("default"), auth::Access::kWrite);
  EXPECT_EQ(etl.catalogs.at("lake"), auth::Access::kRead);
  const auth::Principal& dashboards = config.auth.principals[1];
  EXPECT_TRUE(dashboards.secret_sha256.empty());
  EXPECT_EQ(dashboards.token_sha256s, std::vector<std::string>{auth::Sha256("b")});
  EXPECT_EQ(dashboards.catalogs.at("*"), auth::Access::kRead);
  EXPECT_EQ(dashboards.catalogs.at("private"), auth::Access::kNone);
}

TEST(ServerConfig, ScramCredentialsAndThrottle) {
  // RFC 7677 §3's credential for "pencil" (salt W22ZaJ0SNY7soEsUEjb6gQ==, 4096 iterations).
  FLOE_ASSERT_OK_AND_ASSIGN(std::string salt, auth::Base64Decode("W22ZaJ0SNY7soEsUEjb6gQ=="));
  FLOE_ASSERT_OK_AND_ASSIGN(
      auth::ScramCredential expected,
      auth::ComputeScramCredential(auth::HashAlgorithm::kSha256, "pencil", salt, 4096));
  ServerConfig config;
  const std::string yaml =
      fmt::format(R"(
auth:
  throttle: {{client-burst: 3, peer-burst: 40, refill-ms: 500}}
  principals:
    kafka-etl:
      scram-sha-256:
        salt: W22ZaJ0SNY7soEsUEjb6gQ==
        iterations: 4096
        stored-key: {}
        server-key: {}
      catalogs: {{default: write}}
)",
                  auth::Base64Encode(expected.stored_key), auth::Base64Encode(expected.server_key));
  FLOE_ASSERT_OK(ParseServerConfig(yaml, &config));
  EXPECT_EQ(config.auth.throttle.client_burst, 3);
  EXPECT_EQ(config.auth.throttle.peer_burst, 40);
  EXPECT_EQ(config.auth.throttle.refill_ms, 500);
  ASSERT_EQ(config.auth.principals.size(), 1u);
  const auth::Principal& p = config.auth.principals[0];
  ASSERT_TRUE(p.scram_sha256.has_value());
  EXPECT_FALSE(p.scram_sha512.has_value());
  EXPECT_EQ(p.scram_sha256->salt, salt);
  EXPECT_EQ(p.scram_sha256->iterations, 4096);
  EXPECT_EQ(p.scram_sha256->stored_key, expected.stored_key);
  EXPECT_EQ(p.scram_sha256->server_key, expected.server_key);
  // A SHA-256 key where SHA-512 needs 64 bytes, too few iterations, a stray key.
  for (const char* bad : {"scram-sha-512", "iterations: 100", "pepper: x"}) {
    std::string text = yaml;
    if (std::string_view(bad) == "scram-sha-512") {
      text.replace(text.find("scram-sha-256"), 13, "scram-sha-512");
    } else if (std::string_view(bad) == "iterations: 100") {
      text.replace(text.find("iterations: 4096"), 16, "iterations: 100");
    } else {
      text.replace(text.find("        iterations"), 0, "        pepper: x\n");
    }
    ServerConfig c;
    Status st = ParseServerConfig(text, &c);
    EXPECT_EQ(st.code(), StatusCode::kInvalidArgument) << bad;
    EXPECT_NE(st.message().find("auth.principals.kafka-etl.scram-sha-"), std::string::npos)
        << st.message();
  }
}

TEST(ServerConfig, MistakesNameTheKey) {
  struct Case {
    const char* yaml;
    const char* expected;
  };
  for (const Case& c : {
           Case{"http-port: 80", "unknown key 'http-port'"},
           Case{"http:\n  port: 70000", "http.port"},
           Case{"http:\n  port: eighty", "http.port"},
           Case{"http:\n  prot: 80", "unknown key 'prot' in http"},
           Case{"catalogs:\n  x:\n    kind: sql", "catalogs.x needs a uri"},
           Case{"catalogs:\n  x:\n    kind: lake\n    warehouse: /w", "unknown catalog kind"},
           Case{"catalogs:\n  x:\n", "catalogs.x needs at least a warehouse"},
           Case{"data-dir: [a, b]", "data-dir"},
           Case{"a: b: c", "floe.yaml"},
           Case{"auth:\n  enable: true", "unknown key 'enable' in auth"},
           Case{"auth:\n  enabled: maybe", "auth.enabled"},
           Case{"auth:\n  token-lifetime-seconds: 0", "auth.token-lifetime-seconds"},
           Case{"auth:\n  principals: [a]", "auth.principals"},
           Case{"auth:\n  principals:\n    p:\n      catalogs: {x: read}",
                "auth.principals.p needs secret-sha256, tokens-sha256, scram-sha-256"},
           Case{"auth:\n  principals:\n    p:\n      secret-sha256: my-plain-secret\n"
                "      catalogs: {x: read}",
                "auth.principals.p.secret-sha256"},
           Case{"auth:\n  principals:\n    p:\n      tokens-sha256: abc\n",
                "auth.principals.p.tokens-sha256 must be a list"},
           Case{"auth:\n  principals:\n    p:\n      tokens-sha256: [" HASH_A "]\n",
                "auth.principals.p.catalogs must map"},
           Case{"auth:\n  principals:\n    p:\n      tokens-sha256: [" HASH_A "]\n"
                "      catalogs: {x: admin}",
                "auth.principals.p.catalogs.x"},
           Case{"auth:\n  principals:\n    p:\n      secret: x\n",
                "unknown key 'secret' in auth.principals.p"},
       }) {
    ServerConfig config;
    Status s = ParseServerConfig(c.yaml, &config);
    ASSERT_THAT(s, IsError(StatusCode::kInvalidArgument)) << c.yaml;
    EXPECT_NE(s.message().find(c.expected), std::string::npos) << c.yaml << " -> " << s.ToString();
  }
}

TEST(ServerConfig, EnvironmentOverridesTheFile) {
  ServerConfig config;
  FLOE_ASSERT_OK(ParseServerConfig("data-dir: /from/file\nhttp:\n port: 9000", &config));
  std::map<std::string, std::string> env = {
      {"FLOE_DATA_DIR", "/from/env"}, {"FLOE_HTTP_PORT", "9100"}, {"FLOE_METASTORE", ""}};
  auto getenv = [&](const char* name) -> const char* {
    auto it = env.find(name);
    return it == env.end() ? nullptr : it->second.c_str();
  };
  FLOE_ASSERT_OK(ApplyServerEnvironment(getenv, &config));
  EXPECT_EQ(config.data_dir, "/from/env");
  EXPECT_EQ(config.http_port, 9100);
  EXPECT_EQ(config.metastore_uri, "");  // empty variables are ignored
  env["FLOE_HTTP_PORT"] = "port";
  EXPECT_EQ(ApplyServerEnvironment(getenv, &config).code(), StatusCode::kInvalidArgument);
  env["FLOE_HTTP_PORT"] = "9100";
  env["FLOE_AUTH_ENABLED"] = "true";
  FLOE_ASSERT_OK(ApplyServerEnvironment(getenv, &config));
  EXPECT_TRUE(config.auth.enabled);
  env["FLOE_AUTH_ENABLED"] = "0";
  FLOE_ASSERT_OK(ApplyServerEnvironment(getenv, &config));
  EXPECT_FALSE(config.auth.enabled);
  env["FLOE_AUTH_ENABLED"] = "sometimes";
  EXPECT_EQ(ApplyServerEnvironment(getenv, &config).code(), StatusCode::kInvalidArgument);
}

TEST(ServerConfig, HashErrorsDoNotRepeatTheValue) {
  ServerConfig config;
  Status s = ParseServerConfig(
      "auth:\n  principals:\n    p:\n      secret-sha256: hunter2\n      catalogs: {x: read}",
      &config);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.message().find("hunter2"), std::string::npos) << s.ToString();
}

TEST(ServerConfig, WebDirFromTheFileThenTheEnvironment) {
  ServerConfig config;
  FLOE_ASSERT_OK(ParseServerConfig("web-dir: /srv/floe/web", &config));
  EXPECT_EQ(config.web_dir, "/srv/floe/web");
  auto getenv = [](const char* name) -> const char* {
    return std::string_view(name) == "FLOE_WEB_DIR" ? "/from/env/web" : nullptr;
  };
  FLOE_ASSERT_OK(ApplyServerEnvironment(getenv, &config));
  EXPECT_EQ(config.web_dir, "/from/env/web");
  EXPECT_EQ(ParseServerConfig("web-dir: [a, b]", &config).code(), StatusCode::kInvalidArgument);
}

TEST(ServerConfig, TlsOnEachListener) {
  ServerConfig config;
  FLOE_ASSERT_OK(ParseServerConfig(R"(
http:
  tls: {cert-file: /etc/floe/http.pem, key-file: /etc/floe/http.key}
kafka:
  tls:
    cert-file: /etc/floe/kafka.pem
    key-file: /etc/floe/kafka.key
    key-password: hunter2-passphrase
    ca-file: /etc/floe/clients.pem
    client-auth: required
  schema-registry:
    tls: {cert-file: /etc/floe/sr.pem, key-file: /etc/floe/sr.key, ca-file: /etc/floe/ca.pem,
          client-auth: requested}
)",
                                   &config));
  EXPECT_TRUE(config.http_tls.enabled());
  EXPECT_EQ(config.http_tls.cert_file, "/etc/floe/http.pem");
  EXPECT_EQ(config.http_tls.client_auth, http::ClientAuth::kNone);
  EXPECT_EQ(config.kafka.tls.key_file, "/etc/floe/kafka.key");
  EXPECT_EQ(config.kafka.tls.key_password, "hunter2-passphrase");
  EXPECT_EQ(config.kafka.tls.ca_file, "/etc/floe/clients.pem");
  EXPECT_EQ(config.kafka.tls.client_auth, http::ClientAuth::kRequired);
  EXPECT_EQ(config.kafka.schema_registry.tls.client_auth, http::ClientAuth::kRequested);
  // The settings page shows the files and whether a password is set, never the password.
  std::string settings = SettingsJson(config);
  EXPECT_THAT(settings, ::testing::HasSubstr("/etc/floe/kafka.pem"));
  EXPECT_THAT(settings, ::testing::Not(::testing::HasSubstr("hunter2-passphrase")));
}

TEST(ServerConfig, TlsMistakesNameTheKey) {
  using ::testing::HasSubstr;
  ServerConfig config;
  EXPECT_THAT(ParseServerConfig("http: {tls: {cert-file: a.pem}}", &config),
              IsError(StatusCode::kInvalidArgument, HasSubstr("http.tls needs both")));
  EXPECT_THAT(ParseServerConfig("kafka: {tls: {cert-file: a, key-file: b, client-auth: required}}",
                                &config),
              IsError(StatusCode::kInvalidArgument, HasSubstr("kafka.tls.client-auth")));
  EXPECT_THAT(
      ParseServerConfig("kafka: {tls: {cert-file: a, key-file: b, client-auth: maybe}}", &config),
      IsError(StatusCode::kInvalidArgument, HasSubstr("kafka.tls")));
  EXPECT_THAT(ParseServerConfig("http: {tls: {cert-file: a, key-file: b, keyfile: c}}", &config),
              IsError(StatusCode::kInvalidArgument, HasSubstr("keyfile")));
  EXPECT_THAT(ParseServerConfig("kafka: {schema-registry: {tls: {ca-file: ca.pem}}}", &config),
              IsError(StatusCode::kInvalidArgument, HasSubstr("kafka.schema-registry.tls")));
}

}  // namespace
}  // namespace floe::server
