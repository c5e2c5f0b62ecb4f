#include "floe/server/config.h"

#include <map>
#include <string>

#include <gtest/gtest.h>

namespace floe::server {
namespace {

TEST(ServerConfig, EmptyFileKeepsDefaults) {
  ServerConfig config;
  ASSERT_TRUE(ParseServerConfig("", &config).ok());
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
)", &config);
  ASSERT_TRUE(s.ok()) << s.ToString();
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
       }) {
    ServerConfig config;
    Status s = ParseServerConfig(c.yaml, &config);
    ASSERT_FALSE(s.ok()) << c.yaml;
    EXPECT_EQ(s.code(), StatusCode::kInvalidArgument) << c.yaml;
    EXPECT_NE(s.message().find(c.expected), std::string::npos) << c.yaml << " -> " << s.ToString();
  }
}

TEST(ServerConfig, EnvironmentOverridesTheFile) {
  ServerConfig config;
  ASSERT_TRUE(ParseServerConfig("data-dir: /from/file\nhttp:\n  port: 9000", &config).ok());
  std::map<std::string, std::string> env = {{"FLOE_DATA_DIR", "/from/env"},
                                            {"FLOE_HTTP_PORT", "9100"},
                                            {"FLOE_METASTORE", ""}};
  auto getenv = [&](const char* name) -> const char* {
    auto it = env.find(name);
    return it == env.end() ? nullptr : it->second.c_str();
  };
  ASSERT_TRUE(ApplyServerEnvironment(getenv, &config).ok());
  EXPECT_EQ(config.data_dir, "/from/env");
  EXPECT_EQ(config.http_port, 9100);
  EXPECT_EQ(config.metastore_uri, "");  // empty variables are ignored
  env["FLOE_HTTP_PORT"] = "port";
  EXPECT_EQ(ApplyServerEnvironment(getenv, &config).code(), StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace floe::server
