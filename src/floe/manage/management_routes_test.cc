// The management API's routes: the catalog each request is authorized against and whether it
// writes (ManagementApi::Target, what server/server.cc checks), and the 404 / 405 (with its
// Allow header, RFC 9110 §15.5.6) of wrong methods and unknown paths. The routes are
// openapi.json's operations; the expected access is written out from the API's rules
// (docs/management-api.md: reads need read access to the catalog, server-wide changes write
// access to every catalog), not taken from the code.
#include <gtest/gtest.h>

#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "floe/base/testing.h"
#include "floe/manage/api_util.h"
#include "floe/manage/management_api.h"
#include "floe/rest/errors.h"

namespace floe::manage {
namespace {

struct Expected {
  const char* method;
  const char* path;     // openapi.json's, parameters filled in below
  const char* catalog;  // nullptr: server-wide, no catalog checked
  bool writes;
};

// Every operation of openapi.json, in its order.
constexpr Expected kOperations[] = {
    {"GET", "/api/v1/openapi.json", nullptr, false},
    {"GET", "/api/v1/overview", nullptr, false},
    {"GET", "/api/v1/overview/history", nullptr, false},
    {"GET", "/api/v1/settings", nullptr, false},
    {"GET", "/api/v1/optimizer-groups", nullptr, false},
    {"POST", "/api/v1/optimizer-groups", "*", true},
    {"GET", "/api/v1/tables", nullptr, false},
    {"GET", "/api/v1/table-stats", nullptr, false},
    {"GET", "/api/v1/storage", nullptr, false},
    {"GET", "/api/v1/catalogs", nullptr, false},
    {"POST", "/api/v1/catalogs", "new-catalog", true},
    {"GET", "/api/v1/catalogs/{catalog}", "c1", false},
    {"PUT", "/api/v1/catalogs/{catalog}", "c1", true},
    {"DELETE", "/api/v1/catalogs/{catalog}", "c1", true},
    {"GET", "/api/v1/catalogs/{catalog}/namespaces", "c1", false},
    {"GET", "/api/v1/catalogs/{catalog}/namespaces/{namespace}/tables", "c1", false},
    {"GET", "/api/v1/catalogs/{catalog}/namespaces/{namespace}/tables/{table}", "c1", false},
    {"GET", "/api/v1/catalogs/{catalog}/namespaces/{namespace}/tables/{table}/partitions", "c1",
     false},
    {"GET", "/api/v1/catalogs/{catalog}/namespaces/{namespace}/tables/{table}/snapshots", "c1",
     false},
    {"GET", "/api/v1/catalogs/{catalog}/namespaces/{namespace}/tables/{table}/files", "c1", false},
    {"GET", "/api/v1/catalogs/{catalog}/namespaces/{namespace}/tables/{table}/file-sizes", "c1",
     false},
    {"GET", "/api/v1/catalogs/{catalog}/namespaces/{namespace}/tables/{table}/optimizing-processes",
     "c1", false},
    {"POST", "/api/v1/catalogs/{catalog}/namespaces/{namespace}/tables/{table}/properties", "c1",
     true},
    {"POST", "/api/v1/catalogs/{catalog}/namespaces/{namespace}/tables/{table}/optimize", "c1",
     true},
    {"GET", "/api/v1/optimizer-groups/{group}", nullptr, false},
    {"DELETE", "/api/v1/optimizer-groups/{group}", "*", true},
    {"GET", "/api/v1/optimizers", nullptr, false},
    {"POST", "/api/v1/optimizers", "*", true},
    {"DELETE", "/api/v1/optimizers/{optimizer}", "*", true},
    {"POST", "/api/v1/optimizers/{optimizer}/drain", "*", true},
    {"POST", "/api/v1/optimizers/{optimizer}/heartbeat", "*", true},
    {"POST", "/api/v1/optimizers/{optimizer}/poll", "*", true},
    {"POST", "/api/v1/optimizers/{optimizer}/ack", "*", true},
    {"POST", "/api/v1/optimizers/{optimizer}/complete", "*", true},
    {"POST", "/api/v1/catalogs/{catalog}/namespaces/{namespace}/tables/{table}/pause", "c1", true},
    {"POST", "/api/v1/catalogs/{catalog}/namespaces/{namespace}/tables/{table}/resume", "c1", true},
    {"POST",
     "/api/v1/catalogs/{catalog}/namespaces/{namespace}/tables/{table}/optimizing-processes/"
     "{process}/cancel",
     "c1", true},
    {"GET",
     "/api/v1/catalogs/{catalog}/namespaces/{namespace}/tables/{table}/optimizing-processes/"
     "{process}/tasks",
     "c1", false},
    {"GET", "/api/v1/catalogs/{catalog}/namespaces/{namespace}/tables/{table}/maintenance-runs",
     "c1", false},
    {"GET", "/api/v1/topics", "topics-catalog", false},
    {"GET", "/api/v1/topics/{topic}", "topics-catalog", false},
    {"GET", "/api/v1/topics/{topic}/records", "topics-catalog", false},
};

std::string Fill(std::string path) {
  for (auto [param, value] : {std::pair{"{catalog}", "c1"},
                              {"{namespace}", "db"},
                              {"{table}", "t"},
                              {"{group}", "g"},
                              {"{optimizer}", "o1"},
                              {"{process}", "7"},
                              {"{topic}", "tp"}}) {
    if (size_t at = path.find(param); at != std::string::npos) {
      path.replace(at, std::string_view(param).size(), value);
    }
  }
  return path;
}

class ManagementRoutesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::path(::testing::TempDir()) /
           ("floe-management-routes-" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir_);
    ManagementOptions options;
    options.metastore_uri = "sqlite:" + (dir_ / "metastore.db").string();
    options.open_catalog =
        [](const metastore::CatalogRecord&) -> Result<std::unique_ptr<catalog::Catalog>> {
      return Status::Unimplemented("no catalogs in this test");
    };
    options.topics_catalog = "topics-catalog";
    auto api = ManagementApi::Make(std::make_shared<catalog::CatalogRegistry>(), options);
    FLOE_ASSERT_OK(api);
    api_ = std::move(*api);
  }
  void TearDown() override {
    api_.reset();
    std::error_code ec;
    std::filesystem::remove_all(dir_, ec);
  }

  http::HttpResponse Send(const std::string& method, const std::string& path) {
    http::HttpRequest request;
    request.method = method;
    request.path = path;
    return api_->Handle(request, {});
  }

  std::filesystem::path dir_;
  std::unique_ptr<ManagementApi> api_;
};

TEST_F(ManagementRoutesTest, EveryOperationIsAuthorizedAsTheApiSays) {
  for (const Expected& e : kOperations) {
    http::HttpRequest request;
    request.method = e.method;
    request.path = Fill(e.path);
    if (e.method == std::string_view("POST") && request.path == "/api/v1/catalogs") {
      request.body = R"({"name":"new-catalog","type":"internal"})";
    }
    std::optional<rest::RouteTarget> target = api_->Target(request);
    if (e.catalog == nullptr) {
      EXPECT_FALSE(target.has_value()) << e.method << " " << e.path;
      continue;
    }
    ASSERT_TRUE(target.has_value()) << e.method << " " << e.path;
    EXPECT_EQ(target->catalog, e.catalog) << e.method << " " << e.path;
    EXPECT_EQ(target->writes, e.writes) << e.method << " " << e.path;
  }
}

TEST_F(ManagementRoutesTest, UnknownRequestsAreAuthorizedAsBefore) {
  struct Case {
    const char* method;
    const char* path;
    const char* body;
    const char* catalog;  // nullptr: none
    bool writes;
  };
  const Case cases[] = {
      {"GET", "/api/v1/nothing", "", nullptr, false},
      {"POST", "/api/v1/nothing", "", "*", true},
      {"HEAD", "/api/v1/optimizers/o1", "", nullptr, false},
      {"POST", "/api/v1", "", nullptr, false},
      {"POST", "/api/v1/openapi.json", "", "*", true},
      {"POST", "/api/v1/topics", "", "topics-catalog", false},
      {"DELETE", "/api/v1/topics/tp/records/x", "", "topics-catalog", false},
      {"GET", "/api/v1/catalogs/c1/nothing", "", "c1", false},
      {"PATCH", "/api/v1/catalogs/c1/nothing", "", "c1", true},
      {"POST", "/api/v1/catalogs", "not json", "*", true},
      {"POST", "/api/v1/catalogs", R"({"name":7})", "*", true},
  };
  for (const Case& c : cases) {
    http::HttpRequest request;
    request.method = c.method;
    request.path = c.path;
    request.body = c.body;
    std::optional<rest::RouteTarget> target = api_->Target(request);
    if (c.catalog == nullptr) {
      EXPECT_FALSE(target.has_value()) << c.method << " " << c.path;
      continue;
    }
    ASSERT_TRUE(target.has_value()) << c.method << " " << c.path;
    EXPECT_EQ(target->catalog, c.catalog) << c.method << " " << c.path;
    EXPECT_EQ(target->writes, c.writes) << c.method << " " << c.path;
  }
}

// Wrong methods are 405 with the route's methods in Allow, before anything else is looked
// at; unknown paths are 404. Self-optimizing and the Kafka endpoint are off here.
TEST_F(ManagementRoutesTest, WrongMethodsAndUnknownPaths) {
  struct Case {
    const char* method;
    const char* path;
    int status;
    const char* allow;  // nullptr: no Allow header
  };
  const char* table = "/api/v1/catalogs/c1/namespaces/db/tables/t";
  const std::string t(table);
  const Case cases[] = {
      {"POST", "/api/v1", 405, "GET, HEAD"},
      {"PUT", "/api/v1/openapi.json", 405, "GET, HEAD"},
      {"PUT", "/api/v1/overview", 405, "GET, HEAD"},
      {"POST", "/api/v1/overview/history", 405, "GET, HEAD"},
      {"DELETE", "/api/v1/settings", 405, "GET, HEAD"},
      {"POST", "/api/v1/tables", 405, "GET, HEAD"},
      {"POST", "/api/v1/table-stats", 405, "GET, HEAD"},
      {"POST", "/api/v1/storage", 405, "GET, HEAD"},
      {"DELETE", "/api/v1/catalogs", 405, "GET, HEAD, POST"},
      {"POST", "/api/v1/catalogs/c1", 405, "GET, HEAD, PUT, DELETE"},
      {"POST", "/api/v1/catalogs/c1/namespaces", 405, "GET, HEAD"},
      {"POST", "/api/v1/catalogs/c1/namespaces/db/tables", 405, "GET, HEAD"},
      {"DELETE", table, 405, "GET, HEAD"},
      {"PUT", "/api/v1/optimizer-groups", 405, "GET, HEAD, POST"},
      {"POST", "/api/v1/optimizer-groups/g", 405, "GET, HEAD, DELETE"},
      {"PUT", "/api/v1/optimizers", 405, "GET, HEAD, POST"},
      {"GET", "/api/v1/optimizers/o1", 405, "DELETE"},
      {"GET", "/api/v1/optimizers/o1/poll", 405, "POST"},
      {"GET", "/api/v1/optimizers/o1/drain", 405, "POST"},
      {"POST", "/api/v1/topics", 405, "GET, HEAD"},
      {"PUT", "/api/v1/topics/tp/records/x", 405, "GET, HEAD"},
      {"GET", "/api/v1/nothing", 404, nullptr},
      {"GET", "/api/v1/overview/nothing", 404, nullptr},
      {"GET", "/api/v1/catalogs/c1/nothing", 404, nullptr},
      {"GET", "/api/v1/catalogs/c1/namespaces/db", 404, nullptr},
      {"GET", "/api/v1/catalogs/c1/namespaces/db/nothing", 404, nullptr},
      {"GET", "/api/v1/optimizer-groups/g/x", 404, nullptr},
      {"GET", "/api/v1/optimizers/o1/poll/x", 404, nullptr},
      // The task protocol asks for the optimizer's token first, whatever the action.
      {"POST", "/api/v1/optimizers/o1/nothing", 401, nullptr},
      {"DELETE", "/api/v1/optimizers/o1", 401, nullptr},
  };
  for (const Case& c : cases) {
    http::HttpResponse response = Send(c.method, c.path);
    EXPECT_EQ(response.status, c.status) << c.method << " " << c.path << ": " << response.body;
    std::optional<std::string> allow;
    for (const auto& [name, value] : response.headers) {
      if (name == "Allow") allow = value;
    }
    if (c.allow == nullptr) {
      EXPECT_FALSE(allow.has_value()) << c.method << " " << c.path;
    } else {
      EXPECT_EQ(allow.value_or(""), c.allow) << c.method << " " << c.path;
    }
  }
  // Table routes: wrong methods first, then (here) the missing optimizer or catalog.
  const std::pair<std::string, std::string> table_routes[] = {
      {"GET", t + "/properties"},
      {"GET", t + "/optimize"},
      {"GET", t + "/pause"},
      {"GET", t + "/resume"},
      {"POST", t + "/partitions"},
      {"POST", t + "/snapshots"},
      {"POST", t + "/files"},
      {"POST", t + "/file-sizes"},
      {"POST", t + "/maintenance-runs"},
      {"POST", t + "/optimizing-processes"},
      {"GET", t + "/optimizing-processes/7/cancel"},
      {"POST", t + "/optimizing-processes/7/tasks"},
  };
  for (const auto& [method, path] : table_routes) {
    http::HttpResponse response = Send(method, path);
    EXPECT_EQ(response.status, 405) << method << " " << path << ": " << response.body;
  }
  EXPECT_EQ(Send("GET", t + "/nothing").status, 404);
  EXPECT_EQ(Send("GET", t + "/snapshots/x").status, 404);
}

// The route table is the served OpenAPI document's operations, in its order, with the
// expected access; each row's access is what Target decides for a request of it.
TEST_F(ManagementRoutesTest, TheRouteTableIsTheOpenApiDocument) {
  auto document = nlohmann::ordered_json::parse(OpenApiDocument());
  std::vector<std::string> documented;
  for (const auto& [path, item] : document["paths"].items()) {
    for (const auto& [method, operation] : item.items()) {
      std::string upper = method;
      for (char& c : upper) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
      if (upper != "GET" && upper != "POST" && upper != "PUT" && upper != "DELETE") continue;
      documented.push_back(upper + " " + path + " " + operation["operationId"].get<std::string>());
    }
  }
  std::vector<std::string> routed;
  std::span<const http::RouteInfo> routes = ManagementApi::Routes();
  ASSERT_FALSE(routes.empty());
  // The first row is /api/v1 itself: the document too, and not a path of its own there.
  EXPECT_EQ(routes[0].path, "/api/v1");
  EXPECT_EQ(routes[0].endpoint_id, "getOpenApi");
  for (const http::RouteInfo& route : routes.subspan(1)) {
    routed.push_back(std::string(route.method) + " " + std::string(route.path) + " " +
                     std::string(route.endpoint_id));
  }
  std::sort(documented.begin(), documented.end());
  std::sort(routed.begin(), routed.end());
  EXPECT_EQ(routed, documented);
  ASSERT_EQ(routes.size(), std::size(kOperations) + 1);
  for (size_t i = 1; i < routes.size(); ++i) {
    const http::RouteInfo& route = routes[i];
    const std::string name = std::string(route.method) + " " + std::string(route.path);
    const Expected* expected = nullptr;
    for (const Expected& e : kOperations) {
      if (route.method == e.method && route.path == e.path) expected = &e;
    }
    ASSERT_NE(expected, nullptr) << name;
    EXPECT_EQ(route.access, expected->writes ? http::Access::kWrite : http::Access::kRead) << name;
    EXPECT_EQ(route.access == http::Access::kRead, route.method == "GET") << name;
  }
}

// The management API answers a failed call as the REST catalog does, from rest/errors.h's
// one table: the same HTTP status and type for every StatusCode, in the REST error body
// docs/management-api.md documents.
TEST(ManagementApiErrors, EveryStatusCodeAnswersAsTheRestCatalog) {
  for (StatusCode code : kAllStatusCodes) {
    if (code == StatusCode::kOk) continue;
    const rest::HttpError expected = rest::HttpErrorFor(code);
    http::HttpResponse response = internal::FromStatus(Status(code, "what happened"));
    EXPECT_EQ(response.status, expected.status) << StatusCodeName(code);
    nlohmann::json body = nlohmann::json::parse(response.body);
    EXPECT_EQ(body["error"]["code"], expected.status) << StatusCodeName(code);
    EXPECT_EQ(body["error"]["type"], expected.type) << StatusCodeName(code);
    EXPECT_EQ(body["error"]["message"], "what happened") << StatusCodeName(code);
  }
}

}  // namespace
}  // namespace floe::manage
