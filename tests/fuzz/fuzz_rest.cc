// Fuzzes the REST catalog's request handling: the input is one HTTP request for
// RestCatalogService (first byte: the method; then the target up to '\n'; then headers up to
// an empty line as "name: value" lines; the rest is the body), served by a SQL catalog on an
// in-memory SQLite database with a namespace and a table in it. Every answer must be a
// status in [200, 600) with a JSON error body for 4xx/5xx; a crash, a sanitizer report or
// a hang is a bug.
//
// Seeds: tests/fuzz/corpus/fuzz_rest/ (one request per file: namespace and table CRUD,
// commits, transactions, views, malformed JSON and paths).
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <string>
#include <string_view>

#include "floe/catalog/catalog_pool.h"
#include "floe/catalog/sql_catalog.h"
#include "floe/rest/rest_catalog_service.h"

namespace {

struct Fixture {
  std::filesystem::path warehouse;
  std::shared_ptr<floe::catalog::CatalogRegistry> registry;
  std::unique_ptr<floe::rest::RestCatalogService> service;
};

Fixture* MakeFixture() {
  auto* f = new Fixture();
  f->warehouse =
      std::filesystem::temp_directory_path() / ("floe-fuzz-rest-" + std::to_string(::getpid()));
  std::filesystem::create_directories(f->warehouse);
  std::string warehouse = f->warehouse.string();
  auto open = [warehouse]() -> floe::Result<std::unique_ptr<floe::catalog::Catalog>> {
    floe::catalog::CatalogOptions options;
    options.name = "default";
    options.warehouse = warehouse;
    auto cat = floe::catalog::SqlCatalog::Open("sqlite::memory:", std::move(options));
    if (!cat.ok()) return cat.status();
    return std::unique_ptr<floe::catalog::Catalog>(std::move(*cat));
  };
  // One connection for the whole run (the fuzzer is single-threaded, so the pool hands the
  // same catalog back every time): the in-memory database persists across inputs.
  auto pool = std::make_shared<floe::catalog::CatalogPool>("default", open, 1);
  f->registry = std::make_shared<floe::catalog::CatalogRegistry>();
  f->registry->Put(pool);
  f->service = std::make_unique<floe::rest::RestCatalogService>(f->registry,
                                                                floe::rest::RestCatalogOptions{});
  auto seed = [&](const char* method, const char* path, const char* body) {
    floe::http::HttpRequest request;
    request.method = method;
    request.path = path;
    request.body = body;
    (void)f->service->Handle(request);
  };
  seed("POST", "/v1/default/namespaces", R"({"namespace":["db"]})");
  seed("POST", "/v1/default/namespaces/db/tables",
       R"({"name":"t","schema":{"type":"struct","schema-id":0,"fields":[)"
       R"({"id":1,"name":"id","required":true,"type":"long"},)"
       R"({"id":2,"name":"s","required":false,"type":"string"}]}})");
  return f;
}

void Cleanup() {
  std::error_code ec;
  std::filesystem::remove_all(
      std::filesystem::temp_directory_path() / ("floe-fuzz-rest-" + std::to_string(::getpid())),
      ec);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static Fixture* fixture = [] {
    std::atexit(Cleanup);
    return MakeFixture();
  }();
  if (size == 0) return 0;
  static constexpr const char* kMethods[] = {"GET", "POST", "DELETE", "HEAD", "PUT"};
  std::string_view input(reinterpret_cast<const char*>(data) + 1, size - 1);
  floe::http::HttpRequest request;
  request.method = kMethods[data[0] % 5];
  size_t line = input.find('\n');
  std::string_view target = input.substr(0, line);
  input = line == std::string_view::npos ? std::string_view() : input.substr(line + 1);
  size_t q = target.find('?');
  request.path = std::string(target.substr(0, q));
  if (q != std::string_view::npos) request.query = std::string(target.substr(q + 1));
  while (!input.empty()) {
    size_t end = input.find('\n');
    std::string_view header = input.substr(0, end);
    input = end == std::string_view::npos ? std::string_view() : input.substr(end + 1);
    if (header.empty()) break;
    size_t colon = header.find(": ");
    if (colon == std::string_view::npos) continue;
    request.headers.emplace_back(std::string(header.substr(0, colon)),
                                 std::string(header.substr(colon + 2)));
  }
  request.body = std::string(input);
  floe::http::HttpResponse response = fixture->service->Handle(request);
  if (response.status < 200 || response.status >= 600) __builtin_trap();
  if (response.status >= 400 && response.body.find("\"error\"") == std::string::npos) {
    __builtin_trap();
  }
  return 0;
}
