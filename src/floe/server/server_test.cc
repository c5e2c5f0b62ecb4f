#include "floe/server/server.h"

#include <filesystem>
#include <fstream>
#include <initializer_list>
#include <map>
#include <mutex>
#include <span>
#include <string>
#include <string_view>
#include <utility>

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "floe/auth/crypto.h"
#include "floe/base/testing.h"
#include "floe/http/http_client.h"
#include "floe/manage/management_api.h"
#include "floe/metastore/metastore.h"
#include "floe/rest/rest_catalog_service.h"

namespace floe::server {
namespace {

class ServerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("floe-server-test-" + std::to_string(::getpid()) + "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::remove_all(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  ServerConfig Config() {
    ServerConfig config;
    config.data_dir = dir_.string();
    config.http_port = 0;
    config.kafka.port = 0;  // never the shared default 9092
    return config;
  }

  std::filesystem::path dir_;
};

TEST_F(ServerTest, FirstStartCreatesTheDefaultCatalogAndMigratesTheMetastore) {
  auto server = Server::Start(Config());
  FLOE_ASSERT_OK(server);
  EXPECT_GT((*server)->http_port(), 0);
  EXPECT_GT((*server)->kafka_port(), 0);
  EXPECT_TRUE(std::filesystem::exists(dir_ / "kafka" / "cluster.id"));
  EXPECT_EQ((*server)->catalog_names(), std::vector<std::string>{"default"});
  (*server)->Stop();
  auto store = metastore::Metastore::Open("sqlite:" + (dir_ / "floe.db").string());
  FLOE_ASSERT_OK(store);
  EXPECT_EQ(*(*store)->SchemaVersion(), metastore::Metastore::kSchemaVersion);
  auto record = (*store)->LoadCatalog("default");
  FLOE_ASSERT_OK(record);
  EXPECT_EQ(record->kind, metastore::CatalogKind::kInternal);
  EXPECT_EQ(record->warehouse, (std::filesystem::absolute(dir_) / "warehouse").string());
}

TEST_F(ServerTest, ConfiguredCatalogsAreCreatedThenUpdated) {
  ServerConfig config = Config();
  metastore::CatalogRecord lake;
  lake.name = "lake";
  lake.warehouse = (dir_ / "lake1").string();
  config.catalogs.push_back(lake);
  {
    auto server = Server::Start(config);
    FLOE_ASSERT_OK(server);
    EXPECT_EQ((*server)->catalog_names(), (std::vector<std::string>{"default", "lake"}));
  }
  config.catalogs[0].warehouse = (dir_ / "lake2").string();
  {
    auto server = Server::Start(config);
    FLOE_ASSERT_OK(server);
  }
  auto store = metastore::Metastore::Open("sqlite:" + (dir_ / "floe.db").string());
  FLOE_ASSERT_OK(store);
  EXPECT_EQ((*store)->LoadCatalog("lake")->warehouse, (dir_ / "lake2").string());
}

TEST_F(ServerTest, BadCatalogFailsTheStart) {
  ServerConfig config = Config();
  metastore::CatalogRecord broken;
  broken.name = "broken";
  broken.kind = metastore::CatalogKind::kSql;
  broken.uri = "nosuchscheme:x";
  config.catalogs.push_back(broken);
  auto server = Server::Start(config);
  ASSERT_THAT(server, IsError(StatusCode::kInvalidArgument));
}

TEST_F(ServerTest, ReservedCatalogNamesAreRefused) {
  auto store = metastore::Metastore::Open("sqlite:" + (dir_.string() + ".db"));
  FLOE_ASSERT_OK(store);
  metastore::CatalogRecord record;
  record.warehouse = "/w";
  for (const char* name : {"namespaces", "views", "", "a/b", "a b"}) {
    record.name = name;
    EXPECT_EQ((*store)->CreateCatalog(record).code(), StatusCode::kInvalidArgument) << name;
  }
  record.name = "ok-name_1.x";
  FLOE_EXPECT_OK((*store)->CreateCatalog(record));
  EXPECT_EQ((*store)->CreateCatalog(record).code(), StatusCode::kAlreadyExists);
  std::filesystem::remove(dir_.string() + ".db");
}

TEST(ManagementMasking, SecretsAndUriPasswordsAreMasked) {
  EXPECT_EQ(manage::MaskUri("postgresql://floe:pa55@db:5432/meta"),
            "postgresql://floe:****@db:5432/meta");
  EXPECT_EQ(manage::MaskUri("postgresql://floe@db/meta"), "postgresql://floe@db/meta");
  EXPECT_EQ(manage::MaskUri("postgresql://db/meta?user=u&password=p&sslmode=require"),
            "postgresql://db/meta?user=u&password=****&sslmode=require");
  EXPECT_EQ(manage::MaskUri("sqlite:/var/floe.db"), "sqlite:/var/floe.db");
  EXPECT_EQ(manage::MaskUri("http://h:1/x@y"), "http://h:1/x@y");
  EXPECT_EQ(manage::MaskSecret("s3.secret-access-key", "abc"), "****");
  EXPECT_EQ(manage::MaskSecret("credential", "id:secret"), "****");
  EXPECT_EQ(manage::MaskSecret("S3.Session-Token", "t"), "****");
  EXPECT_EQ(manage::MaskSecret("catalog-name", "lake"), "lake");
}

TEST_F(ServerTest, SettingsShowTheConfigurationWithoutSecrets) {
  ServerConfig config = Config();
  config.metastore_uri = "postgresql://floe:hunter2@db/meta";
  auth::Principal etl;
  etl.name = "etl";
  etl.secret_sha256 = auth::Sha256("etl-secret");
  etl.token_sha256s = {auth::Sha256("etl-token")};
  etl.catalogs = {{"default", auth::Access::kWrite}, {"*", auth::Access::kRead}};
  config.auth.principals = {etl};
  auto settings = nlohmann::json::parse(SettingsJson(config));
  EXPECT_EQ(settings["metastore"], "postgresql://floe:****@db/meta");
  EXPECT_EQ(settings["auth"]["principals"][0]["name"], "etl");
  EXPECT_EQ(settings["auth"]["principals"][0]["catalogs"]["default"], "write");
  EXPECT_EQ(settings["auth"]["principals"][0]["static-tokens"], 1);
  const std::string text = settings.dump();
  for (const std::string& secret :
       {std::string("hunter2"), auth::HexEncode(auth::Sha256("etl-secret")),
        auth::HexEncode(auth::Sha256("etl-token"))}) {
    EXPECT_EQ(text.find(secret), std::string::npos) << secret;
  }
}

// Iceberg Java's S3FileIO reads client.region and defaults to virtual-hosted addressing
// (Iceberg's AwsClientProperties / S3FileIOProperties), so the config states both.
TEST(ClientStorageSettings, StatesRegionAndAddressingUnderIcebergJavasNames) {
  ClientStorageSettings storage;
  metastore::CatalogRecord record;
  record.name = "lake";
  record.properties = {{"s3.endpoint", "http://minio:9000"},
                       {"s3.region", "eu-west-1"},
                       {"s3.access-key-id", "AKIA-not-served"},
                       {"s3.secret-access-key", "not-served"}};
  storage.Put(record);
  EXPECT_EQ(storage.Get("lake"),
            (std::map<std::string, std::string>{{"client.region", "eu-west-1"},
                                                {"s3.endpoint", "http://minio:9000"},
                                                {"s3.path-style-access", "true"},
                                                {"s3.region", "eu-west-1"}}));
  // An explicit choice is kept (OSS needs virtual-hosted addressing); no endpoint, no
  // addressing stated (AWS: virtual-hosted, every client's default).
  record.properties = {{"s3.endpoint", "https://oss-cn-hangzhou.aliyuncs.com"},
                       {"s3.path-style-access", "false"}};
  storage.Put(record);
  EXPECT_EQ(storage.Get("lake").at("s3.path-style-access"), "false");
  record.properties = {{"s3.region", "eu-central-1"}};
  storage.Put(record);
  EXPECT_FALSE(storage.Get("lake").contains("s3.path-style-access"));
  storage.Remove("lake");
  EXPECT_TRUE(storage.Get("lake").empty());
}

TEST(IsLoopbackHost, Hosts) {
  for (const char* host : {"127.0.0.1", "127.1.2.3", "localhost", "::1", "[::1]"}) {
    EXPECT_TRUE(IsLoopbackHost(host)) << host;
  }
  for (const char* host : {"0.0.0.0", "::", "10.0.0.1", "example.com", "", "128.0.0.1"}) {
    EXPECT_FALSE(IsLoopbackHost(host)) << host;
  }
}

TEST_F(ServerTest, AuthenticationAndPerCatalogAccess) {
  ServerConfig config = Config();
  config.auth.enabled = true;
  auth::Principal etl;
  etl.name = "etl";
  etl.secret_sha256 = auth::Sha256("etl-secret");
  etl.catalogs = {{"default", auth::Access::kWrite}};
  auth::Principal reader;
  reader.name = "reader";
  reader.token_sha256s = {auth::Sha256("reader-token")};
  reader.catalogs = {{"default", auth::Access::kRead}};
  config.auth.principals = {etl, reader};
  std::mutex mu;
  std::string log;
  config.access_log = [&](std::string_view line) {
    std::lock_guard lock(mu);
    log.append(line).push_back('\n');
  };
  auto server = Server::Start(config);
  FLOE_ASSERT_OK(server);
  auto client = http::HttpClient::Make();
  FLOE_ASSERT_OK(client);
  std::string base = "http://127.0.0.1:" + std::to_string((*server)->http_port());
  auto send = [&](std::string method, std::string path, std::string token = {},
                  std::string body = {}) {
    http::ClientRequest request;
    request.method = std::move(method);
    request.url = base + path;
    if (!token.empty()) request.headers.emplace_back("Authorization", "Bearer " + token);
    request.body = std::move(body);
    auto response = (*client)->Send(request);
    FLOE_EXPECT_OK(response);
    return response.ok() ? *response : http::ClientResponse{};
  };
  auto error_type = [](const http::ClientResponse& response) {
    return nlohmann::json::parse(response.body)["error"].value("type", "");
  };

  http::ClientResponse anonymous = send("GET", "/v1/config");
  EXPECT_EQ(anonymous.status, 401);
  EXPECT_EQ(error_type(anonymous), "NotAuthorizedException");
  EXPECT_EQ(anonymous.Header("www-authenticate").value_or(""), "Bearer realm=\"floe\"");
  EXPECT_EQ(send("GET", "/v1/no/such/route").status, 401);
  EXPECT_EQ(send("GET", "/v1/config", "forged").status, 401);
  EXPECT_EQ(send("GET", "/health").status, 200);

  http::ClientRequest token_request;
  token_request.method = "POST";
  token_request.url = base + "/v1/oauth/tokens";
  token_request.headers.emplace_back("Content-Type", "application/x-www-form-urlencoded");
  token_request.body = http::FormEncode({{"grant_type", "client_credentials"},
                                         {"client_id", "etl"},
                                         {"client_secret", "etl-secret"}});
  auto issued = (*client)->Send(token_request);
  FLOE_ASSERT_OK(issued);
  ASSERT_EQ(issued->status, 200) << issued->body;
  std::string token = nlohmann::json::parse(issued->body)["access_token"];

  EXPECT_EQ(send("GET", "/v1/config?warehouse=default", token).status, 200);
  EXPECT_EQ(send("POST", "/v1/namespaces", token, R"({"namespace":["ns"]})").status, 200);
  EXPECT_EQ(send("GET", "/v1/default/namespaces", "reader-token").status, 200);
  http::ClientResponse denied =
      send("POST", "/v1/default/namespaces", "reader-token", R"({"namespace":["x"]})");
  EXPECT_EQ(denied.status, 403);
  EXPECT_EQ(error_type(denied), "ForbiddenException");
  EXPECT_EQ(send("DELETE", "/v1/namespaces/ns", "reader-token").status, 403);
  // A scan's metrics report is a read (the REST service accepts reports with 204).
  EXPECT_EQ(send("POST", "/v1/namespaces/ns/tables/t/metrics", "reader-token", "{}").status, 204);
  // Other catalogs, existing or not, are out of reach for both.
  EXPECT_EQ(send("GET", "/v1/config?warehouse=other", token).status, 403);
  EXPECT_EQ(send("GET", "/v1/other/namespaces", "reader-token").status, 403);
  (*server)->Stop();

  EXPECT_NE(log.find("\"principal\":\"etl\""), std::string::npos) << log;
  EXPECT_NE(log.find("\"principal\":\"reader\""), std::string::npos) << log;
  for (const std::string& secret :
       {std::string("etl-secret"), std::string("reader-token"), token}) {
    EXPECT_EQ(log.find(secret), std::string::npos) << log;
  }
  EXPECT_TRUE(std::filesystem::exists(dir_ / "auth-token.key"));
}

// `path` with each `{param}` of `values` replaced by its value.
std::string FillTemplate(
    std::string_view path,
    std::initializer_list<std::pair<std::string_view, std::string_view>> values) {
  std::string out(path);
  for (auto [param, value] : values) {
    if (size_t at = out.find(param); at != std::string::npos) out.replace(at, param.size(), value);
  }
  return out;
}

// Calls every row of `routes` on a server with auth on, as a principal "reader" with read
// access to the default catalog, and hands each row, its filled path and the response to
// `check`. `body` gives a request's body by method.
template <typename Check>
void CallEveryRouteAsReader(
    const ServerConfig& base_config, std::span<const http::RouteInfo> routes,
    std::initializer_list<std::pair<std::string_view, std::string_view>> values,
    std::string (*body)(std::string_view method), Check check) {
  ServerConfig config = base_config;
  config.auth.enabled = true;
  auth::Principal reader;
  reader.name = "reader";
  reader.token_sha256s = {auth::Sha256("reader-token")};
  reader.catalogs = {{"default", auth::Access::kRead}};
  config.auth.principals = {reader};
  auto server = Server::Start(config);
  FLOE_ASSERT_OK(server);
  auto client = http::HttpClient::Make();
  FLOE_ASSERT_OK(client);
  const std::string base = "http://127.0.0.1:" + std::to_string((*server)->http_port());
  for (const http::RouteInfo& route : routes) {
    std::string path = FillTemplate(route.path, values);
    http::ClientRequest request;
    request.method = std::string(route.method);
    request.url = base + path;
    request.headers.emplace_back("Authorization", "Bearer reader-token");
    request.body = body(route.method);
    auto response = (*client)->Send(request);
    FLOE_ASSERT_OK(response);
    check(route, path, *response);
  }
  (*server)->Stop();
}

// Every route of the REST catalog's table, called by a reader: each write route is refused
// with 403 before it runs, and no read route is.
TEST_F(ServerTest, EveryRestWriteRouteIsRefusedToAReader) {
  size_t writes = 0;
  CallEveryRouteAsReader(
      Config(), rest::RestCatalogService::Routes(),
      {{"{prefix}", "default"},
       {"{namespace}", "db"},
       {"{table}", "t"},
       {"{view}", "v"},
       {"{plan-id}", "p1"}},
      [](std::string_view method) { return std::string(method == "POST" ? "{}" : ""); },
      [&](const http::RouteInfo& route, const std::string& path,
          const http::ClientResponse& response) {
        if (route.access == http::Access::kWrite) {
          ++writes;
          EXPECT_EQ(response.status, 403) << route.method << " " << path << ": " << response.body;
        } else {
          EXPECT_NE(response.status, 403) << route.method << " " << path << ": " << response.body;
          EXPECT_NE(response.status, 401) << route.method << " " << path;
        }
      });
  EXPECT_EQ(writes, 14u);
}

// Every route of the management API's table, called by a reader of the default catalog:
// each write route is refused with 403 before it runs (server-wide ones need write access to
// every catalog), and no read of the catalog is.
TEST_F(ServerTest, EveryManagementWriteRouteIsRefusedToAReader) {
  size_t writes = 0;
  CallEveryRouteAsReader(
      Config(), manage::ManagementApi::Routes(),
      {{"{catalog}", "default"},
       {"{namespace}", "db"},
       {"{table}", "t"},
       {"{group}", "g"},
       {"{optimizer}", "o1"},
       {"{process}", "7"},
       {"{topic}", "tp"}},
      [](std::string_view method) {
        return std::string(method != "GET" ? R"({"name":"default","type":"internal"})" : "");
      },
      [&](const http::RouteInfo& route, const std::string& path,
          const http::ClientResponse& response) {
        if (route.access == http::Access::kWrite) {
          ++writes;
          EXPECT_EQ(response.status, 403) << route.method << " " << path << ": " << response.body;
        } else if (route.path.find("{catalog}") != std::string_view::npos) {
          EXPECT_NE(response.status, 403) << route.method << " " << path << ": " << response.body;
        }
      });
  EXPECT_EQ(writes, 17u);  // openapi.json: every POST, PUT and DELETE
}

TEST_F(ServerTest, AuthWithoutPrincipalsIsRefused) {
  ServerConfig config = Config();
  config.auth.enabled = true;
  EXPECT_EQ(Server::Start(config).status().code(), StatusCode::kInvalidArgument);
}

TEST_F(ServerTest, ServesTheDashboardBesideTheApis) {
  std::filesystem::create_directories(dir_ / "web" / "assets");
  { std::ofstream(dir_ / "web" / "index.html") << "<!doctype html><title>dash</title>"; }
  { std::ofstream(dir_ / "web" / "assets" / "app-1a2b.js") << "export {}"; }
  ServerConfig config = Config();
  config.web_dir = (dir_ / "web").string();
  auto server = Server::Start(config);
  FLOE_ASSERT_OK(server);
  EXPECT_EQ((*server)->web_file_count(), 2u);
  auto client = http::HttpClient::Make();
  FLOE_ASSERT_OK(client);
  auto get = [&](const std::string& path) {
    http::ClientRequest request;
    request.method = "GET";
    request.url = "http://127.0.0.1:" + std::to_string((*server)->http_port()) + path;
    auto response = (*client)->Send(request);
    FLOE_EXPECT_OK(response);
    return response.ok() ? *response : http::ClientResponse{};
  };
  auto index = get("/");
  EXPECT_EQ(index.status, 200);
  EXPECT_EQ(index.body, "<!doctype html><title>dash</title>");
  EXPECT_EQ(get("/catalogs/default").body, index.body);  // a client route
  auto js = get("/assets/app-1a2b.js");
  EXPECT_EQ(js.Header("content-type").value_or(""), "text/javascript; charset=utf-8");
  // The APIs keep their routes: a JSON error, not the app, for what they do not have.
  auto api = get("/api/v1/no-such-route");
  EXPECT_EQ(api.status, 404);
  EXPECT_EQ(nlohmann::json::parse(api.body)["error"].value("type", ""), "NotFoundException");
  EXPECT_EQ(get("/v1/config").status, 200);
  EXPECT_EQ(get("/health").body, "{\"status\":\"ok\"}");
  (*server)->Stop();

  // A web dir that was asked for but holds no dashboard fails the start.
  config.web_dir = (dir_ / "nowhere").string();
  EXPECT_EQ(Server::Start(config).status().code(), StatusCode::kNotFound);
}

// The table topics' rounds run on the server's `ingest` executor (kafka.translator-threads),
// whose figures /metrics shows with the executor's name.
TEST_F(ServerTest, MetricsShowTheIngestExecutor) {
  ServerConfig config = Config();
  config.kafka.translator_threads = 3;
  config.kafka.schema_registry.port = 0;
  auto server = Server::Start(config);
  ASSERT_TRUE(server.ok()) << server.status().ToString();
  auto client = http::HttpClient::Make();
  ASSERT_TRUE(client.ok());
  http::ClientRequest request;
  request.method = "GET";
  request.url = "http://127.0.0.1:" + std::to_string((*server)->http_port()) + "/metrics";
  auto response = (*client)->Send(request);
  ASSERT_TRUE(response.ok()) << response.status().ToString();
  ASSERT_EQ(response->status, 200);
  const std::string& body = response->body;
  EXPECT_NE(body.find("floe_executor_threads{executor=\"ingest\"} 3\n"), std::string::npos) << body;
  for (std::string_view family :
       {"floe_executor_queued_tasks", "floe_executor_running_tasks", "floe_executor_delayed_tasks",
        "floe_executor_submitted_tasks_total", "floe_executor_completed_tasks_total",
        "floe_executor_rejected_tasks_total", "floe_executor_queue_wait_seconds_total",
        "floe_executor_busy_seconds_total"}) {
    EXPECT_NE(body.find(fmt::format("# TYPE {} ", family)), std::string::npos) << family;
    EXPECT_NE(body.find(fmt::format("{}{{executor=\"ingest\"}} ", family)), std::string::npos)
        << family;
  }
  EXPECT_NE(body.find("floe_table_topic_deferred_rounds_total 0\n"), std::string::npos);
  (*server)->Stop();
}

TEST_F(ServerTest, RequestBodiesNestAtMostTheJsonDepthLimit) {
  auto server = Server::Start(Config());
  FLOE_ASSERT_OK(server);
  auto client = http::HttpClient::Make();
  FLOE_ASSERT_OK(client);
  auto post = [&](const std::string& path, const std::string& body) {
    http::ClientRequest request;
    request.method = "POST";
    request.url = "http://127.0.0.1:" + std::to_string((*server)->http_port()) + path;
    request.headers.emplace_back("Content-Type", "application/json");
    request.body = body;
    auto response = (*client)->Send(request);
    FLOE_EXPECT_OK(response);
    return response.ok() ? *response : http::ClientResponse{};
  };
  // An object holding `levels` nested arrays: levels + 1 JSON levels.
  auto nested = [](std::string_view prefix, int levels) {
    return std::string(prefix) + R"("x":)" + std::string(static_cast<size_t>(levels), '[') +
           std::string(static_cast<size_t>(levels), ']') + "}";
  };
  auto message = [](const http::ClientResponse& r) {
    return nlohmann::json::parse(r.body)["error"].value("message", "");
  };
  // Iceberg REST: 256 levels create the namespace, 257 are a 400 naming the limit.
  EXPECT_EQ(post("/v1/namespaces", nested(R"({"namespace":["a"],)", 255)).status, 200);
  http::ClientResponse refused = post("/v1/namespaces", nested(R"({"namespace":["b"],)", 256));
  EXPECT_EQ(refused.status, 400);
  EXPECT_NE(message(refused).find("nested deeper than 256 levels"), std::string::npos)
      << refused.body;
  // 10 MB of '[' is refused as quickly, without building anything.
  refused = post("/v1/namespaces", std::string(10 << 20, '['));
  EXPECT_TRUE(refused.status == 400 || refused.status == 413) << refused.status;
  // The management API: at the limit the body parses (and its unknown field is named).
  http::ClientResponse at_limit = post("/api/v1/catalogs", nested(R"({"name":"c",)", 255));
  EXPECT_EQ(at_limit.status, 400);
  EXPECT_NE(message(at_limit).find("unknown field 'x'"), std::string::npos) << at_limit.body;
  refused = post("/api/v1/catalogs", nested(R"({"name":"c",)", 256));
  EXPECT_EQ(refused.status, 400);
  EXPECT_NE(message(refused).find("nested deeper than 256 levels"), std::string::npos)
      << refused.body;
  (*server)->Stop();
}

}  // namespace
}  // namespace floe::server
