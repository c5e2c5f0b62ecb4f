// The REST catalog's routes: the endpoints /v1/config advertises (the Iceberg REST spec's
// "<HTTP verb> <resource path>" strings, open-api/rest-catalog-open-api.yaml 1.11), the access
// each request needs (server/server.cc refuses a write to a reader with 403), and which answers
// the listing cache keeps. The expected values are written out from the spec and from the
// read/write rules the server had before its routes became a table, not taken from the table.
#include <gtest/gtest.h>

#include <filesystem>
#include <memory>
#include <set>
#include <span>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "floe/catalog/catalog_pool.h"
#include "floe/catalog/sql_catalog.h"
#include "floe/rest/rest_catalog_service.h"

namespace floe::rest {
namespace {

// Every endpoint the service implements, in the order /v1/config lists them.
const std::vector<std::string> kSpecEndpoints = {
    "GET /v1/{prefix}/namespaces",
    "POST /v1/{prefix}/namespaces",
    "GET /v1/{prefix}/namespaces/{namespace}",
    "HEAD /v1/{prefix}/namespaces/{namespace}",
    "DELETE /v1/{prefix}/namespaces/{namespace}",
    "POST /v1/{prefix}/namespaces/{namespace}/properties",
    "GET /v1/{prefix}/namespaces/{namespace}/tables",
    "POST /v1/{prefix}/namespaces/{namespace}/tables",
    "GET /v1/{prefix}/namespaces/{namespace}/tables/{table}",
    "HEAD /v1/{prefix}/namespaces/{namespace}/tables/{table}",
    "POST /v1/{prefix}/namespaces/{namespace}/tables/{table}",
    "DELETE /v1/{prefix}/namespaces/{namespace}/tables/{table}",
    "GET /v1/{prefix}/namespaces/{namespace}/tables/{table}/credentials",
    "POST /v1/{prefix}/namespaces/{namespace}/register",
    "POST /v1/{prefix}/namespaces/{namespace}/tables/{table}/metrics",
    "POST /v1/{prefix}/namespaces/{namespace}/tables/{table}/plan",
    "GET /v1/{prefix}/namespaces/{namespace}/tables/{table}/plan/{plan-id}",
    "DELETE /v1/{prefix}/namespaces/{namespace}/tables/{table}/plan/{plan-id}",
    "POST /v1/{prefix}/namespaces/{namespace}/tables/{table}/tasks",
    "POST /v1/{prefix}/tables/rename",
    "POST /v1/{prefix}/transactions/commit",
    "GET /v1/{prefix}/namespaces/{namespace}/views",
    "POST /v1/{prefix}/namespaces/{namespace}/views",
    "GET /v1/{prefix}/namespaces/{namespace}/views/{view}",
    "HEAD /v1/{prefix}/namespaces/{namespace}/views/{view}",
    "POST /v1/{prefix}/namespaces/{namespace}/views/{view}",
    "DELETE /v1/{prefix}/namespaces/{namespace}/views/{view}",
    "POST /v1/{prefix}/namespaces/{namespace}/register-view",
    "POST /v1/{prefix}/views/rename",
};

// The spec's operationId of each, in the same order.
const std::vector<std::string> kSpecOperationIds = {
    "listNamespaces",  "createNamespace",     "loadNamespaceMetadata",
    "namespaceExists", "dropNamespace",       "updateProperties",
    "listTables",      "createTable",         "loadTable",
    "tableExists",     "updateTable",         "dropTable",
    "loadCredentials", "registerTable",       "reportMetrics",
    "planTableScan",   "fetchPlanningResult", "cancelPlanning",
    "fetchScanTasks",  "renameTable",         "commitTransaction",
    "listViews",       "createView",          "loadView",
    "viewExists",      "replaceView",         "dropView",
    "registerView",    "renameView",
};

// The endpoints a reader may call: reads, and the POSTs of a reader's scan (reportMetrics,
// planTableScan, fetchScanTasks; DELETE of a plan is cancelPlanning). Everything else writes.
const std::set<std::string> kReaderEndpoints = {
    "GET /v1/{prefix}/namespaces",
    "GET /v1/{prefix}/namespaces/{namespace}",
    "HEAD /v1/{prefix}/namespaces/{namespace}",
    "GET /v1/{prefix}/namespaces/{namespace}/tables",
    "GET /v1/{prefix}/namespaces/{namespace}/tables/{table}",
    "HEAD /v1/{prefix}/namespaces/{namespace}/tables/{table}",
    "GET /v1/{prefix}/namespaces/{namespace}/tables/{table}/credentials",
    "POST /v1/{prefix}/namespaces/{namespace}/tables/{table}/metrics",
    "POST /v1/{prefix}/namespaces/{namespace}/tables/{table}/plan",
    "GET /v1/{prefix}/namespaces/{namespace}/tables/{table}/plan/{plan-id}",
    "DELETE /v1/{prefix}/namespaces/{namespace}/tables/{table}/plan/{plan-id}",
    "POST /v1/{prefix}/namespaces/{namespace}/tables/{table}/tasks",
    "GET /v1/{prefix}/namespaces/{namespace}/views",
    "GET /v1/{prefix}/namespaces/{namespace}/views/{view}",
    "HEAD /v1/{prefix}/namespaces/{namespace}/views/{view}",
};

// The listings whose answers depend on the catalog's database only (namespaces, tables,
// views): what a change probe can validate.
const std::set<std::string> kListingEndpoints = {
    "GET /v1/{prefix}/namespaces",
    "GET /v1/{prefix}/namespaces/{namespace}/tables",
    "GET /v1/{prefix}/namespaces/{namespace}/views",
};

// `endpoint` ("POST /v1/{prefix}/...") as a request, its parameters filled in.
http::HttpRequest RequestFor(const std::string& endpoint, const std::string& prefix) {
  http::HttpRequest request;
  size_t space = endpoint.find(' ');
  request.method = endpoint.substr(0, space);
  std::string path = endpoint.substr(space + 1);
  auto replace = [&](const std::string& param, const std::string& value) {
    if (size_t at = path.find(param); at != std::string::npos)
      path.replace(at, param.size(), value);
  };
  replace("{prefix}", prefix);
  replace("{namespace}", "db");
  replace("{table}", "t");
  replace("{view}", "v");
  replace("{plan-id}", "p1");
  request.path = path;
  return request;
}

class RestRoutesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    warehouse_ = std::filesystem::path(::testing::TempDir()) /
                 ("floe-rest-routes-" + std::to_string(::getpid()));
    std::filesystem::create_directories(warehouse_);
    std::string warehouse = warehouse_.string();
    auto open = [warehouse]() -> Result<std::unique_ptr<catalog::Catalog>> {
      catalog::CatalogOptions options;
      options.name = "default";
      options.warehouse = warehouse;
      // A file, not :memory:, so that the catalog has a change probe (the listing cache's).
      auto cat =
          catalog::SqlCatalog::Open("sqlite:" + warehouse + "/catalog.db", std::move(options));
      if (!cat.ok()) return cat.status();
      return std::unique_ptr<catalog::Catalog>(std::move(*cat));
    };
    registry_ = std::make_shared<catalog::CatalogRegistry>();
    registry_->Put(std::make_shared<catalog::CatalogPool>("default", open, 1));
    service_ = std::make_unique<RestCatalogService>(registry_, RestCatalogOptions{});
  }
  void TearDown() override {
    std::error_code ec;
    std::filesystem::remove_all(warehouse_, ec);
  }

  http::HttpResponse Send(const std::string& method, const std::string& path,
                          const std::string& body = {}) {
    http::HttpRequest request;
    request.method = method;
    size_t q = path.find('?');
    request.path = path.substr(0, q);
    if (q != std::string::npos) request.query = path.substr(q + 1);
    request.body = body;
    return service_->Handle(request);
  }

  std::filesystem::path warehouse_;
  std::shared_ptr<catalog::CatalogRegistry> registry_;
  std::unique_ptr<RestCatalogService> service_;
};

TEST_F(RestRoutesTest, ConfigAdvertisesEveryImplementedEndpoint) {
  http::HttpResponse config = Send("GET", "/v1/config");
  ASSERT_EQ(config.status, 200) << config.body;
  auto body = nlohmann::json::parse(config.body);
  EXPECT_EQ(body["endpoints"].get<std::vector<std::string>>(), kSpecEndpoints);
}

TEST_F(RestRoutesTest, EveryEndpointHasItsAccess) {
  for (const std::string& endpoint : kSpecEndpoints) {
    const bool writes = !kReaderEndpoints.contains(endpoint);
    for (const std::string& prefix : {std::string("default"), std::string("other")}) {
      http::HttpRequest request = RequestFor(endpoint, prefix);
      std::optional<RouteTarget> target = service_->Target(request);
      ASSERT_TRUE(target.has_value()) << endpoint;
      EXPECT_EQ(target->catalog, prefix) << endpoint;
      EXPECT_EQ(target->writes, writes) << endpoint;
    }
    // Without a prefix: the default catalog.
    http::HttpRequest unprefixed = RequestFor(endpoint, "");
    unprefixed.path.replace(0, 4, "/v1/");
    std::optional<RouteTarget> target = service_->Target(unprefixed);
    ASSERT_TRUE(target.has_value()) << unprefixed.path;
    EXPECT_EQ(target->catalog, "default") << unprefixed.path;
    EXPECT_EQ(target->writes, writes) << endpoint;
  }
}

// Requests no route answers (a 404 or 405 from the service) need the access the server
// decided for them before the table: reads for GET and HEAD; for other methods reads only
// under the read-only POST routes of a reader's scan, so that a reader's mistake there gets
// its 404 or 405, and writes everywhere else, so that nothing unknown opens to readers.
TEST_F(RestRoutesTest, UnknownRequestsNeedTheAccessTheyHad) {
  struct Case {
    const char* method;
    const char* path;
    bool writes;
  };
  const Case cases[] = {
      {"GET", "/v1/default/nothing/here", false},
      {"HEAD", "/v1/default/namespaces/db/tables/t/nothing", false},
      {"GET", "/v1/default/tables/rename", false},
      {"DELETE", "/v1/default/nothing/here", true},
      {"PUT", "/v1/default/namespaces", true},
      {"PATCH", "/v1/default/namespaces/db", true},
      {"POST", "/v1/default/namespaces/db/nothing", true},
      {"POST", "/v1/default/namespaces/db/tables/t/nothing", true},
      {"POST", "/v1/default/namespaces/db/tables/t/credentials", true},
      {"POST", "/v1/default/namespaces/db/tables/t/credentials/x", true},
      {"PUT", "/v1/default/namespaces/db/tables/t/metrics", false},
      {"POST", "/v1/default/namespaces/db/tables/t/metrics/x", false},
      {"PUT", "/v1/default/namespaces/db/tables/t/plan", false},
      {"POST", "/v1/default/namespaces/db/tables/t/plan/p1", false},
      {"POST", "/v1/default/namespaces/db/tables/t/plan/p1/x", false},
      {"DELETE", "/v1/default/namespaces/db/tables/t/tasks", false},
      {"POST", "/v1/namespaces/db/tables/t/tasks/x", false},
      {"DELETE", "/v1/default/tables/rename", true},
      {"POST", "/v1/default/views/nothing", true},
  };
  for (const Case& c : cases) {
    http::HttpRequest request;
    request.method = c.method;
    request.path = c.path;
    std::optional<RouteTarget> target = service_->Target(request);
    ASSERT_TRUE(target.has_value()) << c.method << " " << c.path;
    EXPECT_EQ(target->catalog, "default") << c.method << " " << c.path;
    EXPECT_EQ(target->writes, c.writes) << c.method << " " << c.path;
  }
}

TEST_F(RestRoutesTest, RoutesOutsideTheCatalogs) {
  http::HttpRequest config;
  config.method = "GET";
  config.path = "/v1/config";
  config.query = "warehouse=w1";
  std::optional<RouteTarget> target = service_->Target(config);
  ASSERT_TRUE(target.has_value());
  EXPECT_EQ(target->catalog, "w1");
  EXPECT_FALSE(target->writes);
  config.query.clear();
  EXPECT_EQ(service_->Target(config)->catalog, "default");
  for (const char* path : {"/v1/oauth/tokens", "/v1/other", "/v2/default/namespaces", "/"}) {
    http::HttpRequest request;
    request.method = "POST";
    request.path = path;
    EXPECT_FALSE(service_->Target(request).has_value()) << path;
  }
}

// What the service answers a wrong method or an unknown path, whichever route was near.
TEST_F(RestRoutesTest, WrongMethodsAndUnknownPaths) {
  ASSERT_EQ(Send("POST", "/v1/default/namespaces", R"({"namespace":["db"]})").status, 200);
  struct Case {
    const char* method;
    const char* path;
    int status;
    const char* message;
  };
  const Case cases[] = {
      {"PUT", "/v1/default/namespaces", 405, "method PUT is not allowed on /v1/default/namespaces"},
      {"HEAD", "/v1/namespaces", 405, "method HEAD is not allowed on /v1/namespaces"},
      {"GET", "/v1/default/namespaces/db/properties", 405,
       "method GET is not allowed on /v1/default/namespaces/db/properties"},
      {"POST", "/v1/default/namespaces/db/tables/t/credentials", 405,
       "method POST is not allowed on /v1/default/namespaces/db/tables/t/credentials"},
      {"GET", "/v1/default/namespaces/db/tables/t/plan", 405,
       "method GET is not allowed on /v1/default/namespaces/db/tables/t/plan"},
      {"POST", "/v1/default/namespaces/db/tables/t/plan/p1", 405,
       "method POST is not allowed on /v1/default/namespaces/db/tables/t/plan/p1"},
      {"GET", "/v1/default/tables/rename", 405,
       "method GET is not allowed on /v1/default/tables/rename"},
      {"GET", "/v1/default/nothing", 404, "no route for /v1/default/nothing"},
      {"GET", "/v1/default/namespaces/db/nothing", 404,
       "no route for /v1/default/namespaces/db/nothing"},
      {"POST", "/v1/default/namespaces/db/tables/t/metrics/x", 404,
       "no route for /v1/default/namespaces/db/tables/t/metrics/x"},
      {"GET", "/v1/default/namespaces/db/tables/t/plan/p1/x", 404,
       "no route for /v1/default/namespaces/db/tables/t/plan/p1/x"},
      // A malformed namespace is refused before the rest of the path is looked at.
      {"GET", "/v1/default/namespaces/a%1F/nothing", 400, "namespace 'a.' has an empty level"},
      {"PUT", "/v1/default/namespaces/a%1F", 400, "namespace 'a.' has an empty level"},
      {"GET", "/v1/default/tables", 404, "no route for /v1/default/tables"},
  };
  for (const Case& c : cases) {
    http::HttpResponse response = Send(c.method, c.path);
    EXPECT_EQ(response.status, c.status) << c.method << " " << c.path << ": " << response.body;
    auto body = nlohmann::json::parse(response.body, nullptr, false);
    ASSERT_TRUE(body.is_object()) << c.method << " " << c.path;
    EXPECT_EQ(body["error"]["message"], c.message) << c.method << " " << c.path;
  }
  EXPECT_EQ(Send("GET", "/v1/nothing/namespaces").status, 404);
}

// Only the listings are kept by the listing cache: TryCachedListing answers them after one
// GET, and nothing else, however often it was read.
TEST_F(RestRoutesTest, OnlyListingsAreCached) {
  ASSERT_EQ(Send("POST", "/v1/default/namespaces", R"({"namespace":["db"]})").status, 200);
  http::HttpResponse created =
      Send("POST", "/v1/default/namespaces/db/tables",
           R"({"name":"t","schema":{"type":"struct","schema-id":0,"fields":[)"
           R"({"id":1,"name":"id","required":true,"type":"long"}]}})");
  ASSERT_EQ(created.status, 200) << created.body;
  for (const std::string& endpoint : kSpecEndpoints) {
    http::HttpRequest request = RequestFor(endpoint, "default");
    if (request.method != "GET") continue;
    http::HttpResponse answered = service_->Handle(request);
    std::optional<http::HttpResponse> cached = service_->TryCachedListing(request);
    if (kListingEndpoints.contains(endpoint)) {
      ASSERT_EQ(answered.status, 200) << endpoint << ": " << answered.body;
      ASSERT_TRUE(cached.has_value()) << endpoint;
      EXPECT_EQ(cached->body, answered.body) << endpoint;
    } else {
      EXPECT_FALSE(cached.has_value()) << endpoint << " (" << answered.status << ")";
    }
  }
}

// The table itself: one row per spec endpoint with the spec's operationId, an access class
// that is the expected one, reads for every GET and HEAD, the listings cacheable and nothing
// else, and each row's access what Target decides for a request of it.
TEST_F(RestRoutesTest, TheRouteTableIsTheSpecsEndpoints) {
  std::span<const http::RouteInfo> routes = RestCatalogService::Routes();
  ASSERT_EQ(routes.size(), kSpecEndpoints.size());
  std::set<std::string> ids;
  for (size_t i = 0; i < routes.size(); ++i) {
    const http::RouteInfo& route = routes[i];
    const std::string endpoint = std::string(route.method) + " " + std::string(route.path);
    EXPECT_EQ(endpoint, kSpecEndpoints[i]);
    EXPECT_EQ(route.endpoint_id, kSpecOperationIds[i]) << endpoint;
    EXPECT_TRUE(ids.emplace(route.endpoint_id).second) << endpoint;
    const http::Access expected =
        kReaderEndpoints.contains(endpoint) ? http::Access::kRead : http::Access::kWrite;
    EXPECT_EQ(route.access, expected) << endpoint;
    if (route.method == "GET" || route.method == "HEAD") {
      EXPECT_EQ(route.access, http::Access::kRead) << endpoint;
    }
    EXPECT_EQ(route.cacheable, kListingEndpoints.contains(endpoint)) << endpoint;
    std::optional<RouteTarget> target = service_->Target(RequestFor(endpoint, "default"));
    ASSERT_TRUE(target.has_value()) << endpoint;
    EXPECT_EQ(target->writes, route.access == http::Access::kWrite) << endpoint;
  }
}

}  // namespace
}  // namespace floe::rest
