// `floe status`, `floe optimizer list` and `floe table health`: a running server's state
// through its management API (/api/v1, docs/management-api.md), for scripts. They use only
// that API, as the dashboard does.
#include <algorithm>
#include <cstdio>
#include <memory>
#include <string>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "floe/base/json.h"
#include "floe/catalog/catalog.h"
#include "floe/exe/api_client.h"
#include "floe/exe/command.h"
#include "floe/http/http.h"
#include "floe/http/http_client.h"

namespace floe::exe {

namespace {

using OJson = nlohmann::ordered_json;

struct ServerArgs {
  std::string server = "http://127.0.0.1:8181";
  std::string token;
  bool json = false;
};

void AddServerFlags(CLI::App* c, ServerArgs* a) {
  c->add_option("--server", a->server, "The floe server's base URL")
      ->envname("FLOE_SERVER")
      ->capture_default_str();
  c->add_option("--token", a->token, "Bearer token when the server has auth enabled")
      ->envname("FLOE_TOKEN");
  c->add_flag("--json", a->json, "Print the API's JSON");
}

// GETs `path` (under the server's /api/v1) and parses the JSON answer; the API's error body
// becomes the Status (404 -> kNotFound, 401/403 -> kPermissionDenied, ...).
Result<OJson> Get(const ServerArgs& a, const std::string& path) {
  FLOE_ASSIGN_OR_RETURN(auto client, http::HttpClient::Make());
  FLOE_ASSIGN_OR_RETURN(http::ClientResponse response,
                        SendApiRequest(*client, a.server, a.token, "GET", path));
  // Replies hold schemas and metadata a few levels down: the stored-document limit.
  Result<OJson> body = ParseOrderedJson(response.body, kMaxStoredJsonDepth);
  if (response.status == 200 && body.ok()) return body;
  return ApiError(response, fmt::format("GET {}", path));
}

Status Print(const std::string& text) {
  if (std::fwrite(text.data(), 1, text.size(), stdout) != text.size()) {
    return Status::IOError("cannot write to standard output");
  }
  return Status::OK();
}

Status ServerStatus(const ServerArgs& a) {
  FLOE_ASSIGN_OR_RETURN(OJson overview, Get(a, "/overview"));
  if (a.json) return Print(overview.dump(2) + "\n");
  std::string text = fmt::format("catalogs: {}", overview["catalogs"].get<int64_t>());
  for (const auto& [type, n] : overview["catalogs-by-type"].items()) {
    text += fmt::format(" {}={}", type, n.get<int64_t>());
  }
  text += fmt::format("\ntables: {}", overview["tables"].get<int64_t>());
  for (const auto& [status, n] : overview["tables-by-status"].items()) {
    if (n.get<int64_t>() > 0) text += fmt::format(" {}={}", status, n.get<int64_t>());
  }
  const OJson& optimizer = overview["optimizer"];
  if (optimizer.value("enabled", false)) {
    text +=
        fmt::format("\noptimizer: {} threads, {} tables queued, {} running\n",
                    optimizer["threads"].get<int64_t>(), optimizer["queued-tables"].get<int64_t>(),
                    optimizer["running-tables"].get<int64_t>());
  } else {
    text += "\noptimizer: off\n";
  }
  return Print(text);
}

Status OptimizerList(const ServerArgs& a) {
  FLOE_ASSIGN_OR_RETURN(OJson groups, Get(a, "/optimizer-groups?page-size=1000"));
  if (a.json) return Print(groups.dump(2) + "\n");
  std::string text =
      fmt::format("{:<20} {:>8} {:>8} {:>8}\n", "GROUP", "THREADS", "QUEUED", "RUNNING");
  for (const OJson& g : groups["items"]) {
    text += fmt::format("{:<20} {:>8} {:>8} {:>8}\n", g["name"].get<std::string>(),
                        g["threads"].get<int64_t>(), g.value("queued-tables", int64_t{0}),
                        g.value("running-tables", int64_t{0}));
  }
  return Print(text);
}

struct HealthArgs {
  ServerArgs server;
  std::string table;
  std::string catalog = "default";
  int64_t partitions = 10;
};

Status TableHealth(const HealthArgs& a) {
  FLOE_ASSIGN_OR_RETURN(catalog::TableIdentifier id, catalog::TableIdentifier::Parse(a.table));
  const std::string path =
      fmt::format("/catalogs/{}/namespaces/{}/tables/{}", http::PercentEncode(a.catalog),
                  http::PercentEncode(id.ns.ToString()), http::PercentEncode(id.name));
  FLOE_ASSIGN_OR_RETURN(OJson details, Get(a.server, path));
  FLOE_ASSIGN_OR_RETURN(
      OJson partitions,
      Get(a.server, fmt::format("{}/partitions?sort=health-score&page-size={}", path,
                                std::max<int64_t>(1, std::min<int64_t>(a.partitions, 1000)))));
  if (a.server.json) {
    OJson out = OJson::object();
    out["table"] = details["identifier"];
    out["health"] = details["health"];
    out["optimizing"] = details["optimizing"];
    out["partitions"] = partitions["items"];
    return Print(out.dump(2) + "\n");
  }
  const OJson& h = details["health"];
  const OJson& o = details["optimizing"];
  std::string text = fmt::format(
      "table: {}.{}\nhealth: {} (file sizes {}/40, equality deletes {}/40, position deletes "
      "{}/20); lowest partition score {} ({} partitions)\n",
      a.catalog, details["identifier"].get<std::string>(), h["score"].get<int64_t>(),
      h["small-files"].get<int64_t>(), h["equality-deletes"].get<int64_t>(),
      h["position-deletes"].get<int64_t>(), h["lowest-partition-score"].get<int64_t>(),
      h["partitions"].get<int64_t>());
  text += fmt::format("delete files: {} equality, {} position\n",
                      h.value("equality-delete-files", int64_t{0}),
                      h.value("position-delete-files", int64_t{0}));
  text += fmt::format("optimizing: {}{}{}\n", o.value("status", std::string("idle")),
                      o.value("status-reason", std::string()).empty() ? "" : ": ",
                      o.value("status-reason", std::string()));
  if (h.contains("pending-optimizing-type")) {
    text += fmt::format("pending: {}\n", h["pending-optimizing-type"].get<std::string>());
  }
  for (const OJson& p : partitions["items"]) {
    text += fmt::format(
        "partition {}: health {}, {} fragments, {} equality delete files{}{}\n",
        p["key"].get<std::string>(), p["health-score"].get<int64_t>(),
        p["fragments"]["count"].get<int64_t>(), p["equality-deletes"]["count"].get<int64_t>(),
        p["reason"].get<std::string>().empty() ? "" : "; ", p["reason"].get<std::string>());
  }
  return Print(text);
}

}  // namespace

void AddManageCommands(CLI::App& app, int* exit_code) {
  auto status = std::make_shared<ServerArgs>();
  auto* s = app.add_subcommand("status", "A running server's catalogs, tables and optimizer");
  AddServerFlags(s, status.get());
  SetCommand(s, exit_code, [status] { return ServerStatus(*status); });

  auto* optimizer = app.add_subcommand("optimizer", "A running server's optimizers");
  optimizer->require_subcommand(1);
  auto list = std::make_shared<ServerArgs>();
  auto* l = optimizer->add_subcommand("list", "Optimizer groups: threads, queued and running");
  AddServerFlags(l, list.get());
  SetCommand(l, exit_code, [list] { return OptimizerList(*list); });

  // `floe table health` joins the `floe table` group of table_command.cc.
  CLI::App* table = app.get_subcommand("table");
  auto health = std::make_shared<HealthArgs>();
  auto* h = table->add_subcommand(
      "health",
      "A table's health score, optimizing state and least healthy partitions, "
      "from a running server");
  AddServerFlags(h, &health->server);
  h->add_option("table", health->table, "NS.TABLE")->required();
  h->add_option("--catalog-name", health->catalog, "The server's catalog")->capture_default_str();
  h->add_option("--partitions", health->partitions, "Partitions to list, least healthy first")
      ->capture_default_str();
  SetCommand(h, exit_code, [health] { return TableHealth(*health); });
}

}  // namespace floe::exe
