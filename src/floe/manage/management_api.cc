#include "floe/manage/management_api.h"
#include "floe/manage/api_util.h"
#include "floe/rest/errors.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <charconv>
#include <map>
#include <span>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "floe/base/json.h"
#include "floe/iceberg/metadata_updates.h"
#include "floe/iceberg/partition_spec.h"
#include "floe/iceberg/schema.h"
#include "floe/iceberg/sort_order.h"
#include "floe/iceberg/table.h"
#include "floe/manage/topics_api.h"
#include "floe/optimize/maintenance.h"
#include "floe/optimize/optimizing_config.h"
#include "floe/optimize/rewrite.h"

namespace floe::manage {

using OJson = nlohmann::ordered_json;
using catalog::Namespace;
using catalog::TableIdentifier;
using http::HttpResponse;

namespace internal {

constexpr size_t kDefaultPageSize = 100;
constexpr size_t kMaxPageSize = 1000;

HttpResponse JsonResponse(int status, const OJson& body) {
  return HttpResponse::Json(status, body.dump());
}

// The error body for a failed call: the REST error model, with the codes a management
// client branches on.
HttpResponse FromStatus(const Status& status) { return rest::ErrorFromStatus(status); }

std::string Lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

Result<OJson> ParseObjectBody(const http::HttpRequest& request, bool allow_empty) {
  if (request.body.empty() && allow_empty) return OJson::object();
  Result<OJson> body = ParseOrderedJson(request.body);
  if (!body.ok()) return body.status().WithContext("the request body must be a JSON object");
  if (!body->is_object()) return Status::InvalidArgument("the request body must be a JSON object");
  return body;
}

// kInvalidArgument for a member of `body` outside `known`: a misspelt field fails loudly
// instead of being ignored.
Status CheckKnownFields(const OJson& body, std::initializer_list<std::string_view> known) {
  for (const auto& [key, value] : body.items()) {
    if (std::find(known.begin(), known.end(), key) == known.end()) {
      return Status::InvalidArgument("unknown field '{}'", key);
    }
  }
  return Status::OK();
}

Result<std::optional<std::string>> OptionalString(const OJson& body, std::string_view key) {
  auto it = body.find(key);
  if (it == body.end() || it->is_null()) return std::optional<std::string>{};
  if (!it->is_string()) return Status::InvalidArgument("'{}' must be a string", key);
  return std::optional<std::string>(it->get<std::string>());
}

Result<std::map<std::string, std::string>> StringMap(const OJson& body, std::string_view key) {
  std::map<std::string, std::string> out;
  auto it = body.find(key);
  if (it == body.end()) return out;
  if (!it->is_object()) return Status::InvalidArgument("'{}' must be an object", key);
  for (const auto& [k, v] : it->items()) {
    if (!v.is_string()) return Status::InvalidArgument("'{}.{}' must be a string", key, k);
    out[k] = v.get<std::string>();
  }
  return out;
}

Result<ListParams> ParseListParams(const ManagementApi::Call& call,
                                   std::initializer_list<std::string_view> sort_keys,
                                   std::string_view default_sort) {
  ListParams p;
  p.size = kDefaultPageSize;  // docs/management-api.md, whatever api_util.h's default
  if (auto size = call.Query("page-size")) {
    int64_t n = 0;
    auto [end, ec] = std::from_chars(size->data(), size->data() + size->size(), n);
    if (ec != std::errc() || end != size->data() + size->size() || n < 1 ||
        n > static_cast<int64_t>(kMaxPageSize)) {
      return Status::InvalidArgument("page-size must be an integer from 1 to {}", kMaxPageSize);
    }
    p.size = static_cast<size_t>(n);
  }
  if (auto token = call.Query("page-token"); token && !token->empty()) {
    // The token is the offset of the page's first item, prefixed so that it reads as
    // opaque and so that a stray number is refused.
    uint64_t n = 0;
    const char* begin = token->data() + 1;
    const char* stop = token->data() + token->size();
    auto [end, ec] = std::from_chars(begin, stop, n);
    if ((*token)[0] != 'o' || ec != std::errc() || end != stop || n > (1ULL << 40)) {
      return Status::InvalidArgument("page-token is not a token of this list");
    }
    p.offset = static_cast<size_t>(n);
  }
  std::string sort(call.Query("sort").value_or(std::string(default_sort)));
  if (sort.starts_with('-')) {
    p.descending = true;
    sort.erase(0, 1);
  }
  if (std::find(sort_keys.begin(), sort_keys.end(), sort) == sort_keys.end()) {
    std::string allowed;
    for (std::string_view k : sort_keys) {
      if (!allowed.empty()) allowed += ", ";
      allowed += k;
    }
    return Status::InvalidArgument("sort must be one of {} (with '-' for descending)", allowed);
  }
  p.sort_key = std::move(sort);
  p.q = Lower(call.Query("q").value_or(""));
  return p;
}

// The value of an enumerated filter parameter; kInvalidArgument for a value outside `allowed`.
Result<std::optional<std::string>> EnumFilter(const ManagementApi::Call& call,
                                              std::string_view name,
                                              std::span<const std::string_view> allowed) {
  std::optional<std::string> value = call.Query(name);
  if (!value) return value;
  if (std::find(allowed.begin(), allowed.end(), *value) == allowed.end()) {
    std::string list;
    for (std::string_view a : allowed) {
      if (!list.empty()) list += ", ";
      list += a;
    }
    return Status::InvalidArgument("{} must be one of {}", name, list);
  }
  return value;
}

constexpr std::array<std::string_view, 8> kTableStatuses = {
    "idle", "pending", "planning", "minor", "major", "full", "convert", "committing"};
constexpr std::array<std::string_view, 4> kCatalogTypes = {"internal", "sql", "filesystem", "rest"};
constexpr std::array<std::string_view, 4> kProducers = {"optimize", "maintenance", "ingest",
                                                        "external"};
constexpr std::array<std::string_view, 4> kProcessStatuses = {"running", "success", "failed",
                                                              "canceled"};

bool MatchesQuery(const ListParams& p, std::string_view name) {
  return p.q.empty() || Lower(name).find(p.q) != std::string::npos;
}

// Sorts `items` by the sort key (ties keep their order), then answers one page.
HttpResponse Page(std::vector<OJson> items, const ListParams& p) {
  std::stable_sort(items.begin(), items.end(), [&](const OJson& a, const OJson& b) {
    const OJson& x = a.contains(p.sort_key) ? a[p.sort_key] : OJson();
    const OJson& y = b.contains(p.sort_key) ? b[p.sort_key] : OJson();
    return p.descending ? y < x : x < y;
  });
  OJson body = OJson::object();
  OJson page = OJson::array();
  for (size_t i = p.offset; i < items.size() && i < p.offset + p.size; ++i) {
    page.push_back(std::move(items[i]));
  }
  body["items"] = std::move(page);
  body["total"] = items.size();
  if (p.offset + p.size < items.size()) body["next-page-token"] = NextPageToken(p);
  return JsonResponse(200, body);
}

std::string NextPageToken(const ListParams& p) { return fmt::format("o{}", p.offset + p.size); }

bool IsSecretKey(std::string_view key) {
  std::string k = Lower(key);
  for (std::string_view word : {"secret", "password", "token", "credential", "private-key"}) {
    if (k.find(word) != std::string::npos) return true;
  }
  return false;
}

constexpr std::string_view kMask = "****";

OJson CatalogJson(const metastore::CatalogRecord& r, std::string_view default_catalog) {
  OJson j = OJson::object();
  j["name"] = r.name;
  j["type"] = std::string(metastore::CatalogKindName(r.kind));
  if (!r.uri.empty()) j["uri"] = MaskUri(r.uri);
  if (!r.warehouse.empty()) j["warehouse"] = r.warehouse;
  OJson props = OJson::object();
  for (const auto& [k, v] : r.properties) props[k] = MaskSecret(k, v);
  j["properties"] = std::move(props);
  j["created-at-ms"] = r.created_at_ms;
  j["default"] = r.name == default_catalog;
  return j;
}

OJson RuntimeJson(const metastore::TableRuntimeRecord& r) {
  OJson j = OJson::object();
  j["catalog"] = r.catalog;
  j["namespace"] = r.table_namespace;
  j["name"] = r.table_name;
  j["identifier"] = r.table_namespace + "." + r.table_name;
  j["status"] = r.status;
  j["status-reason"] = r.status_reason;
  j["paused"] = r.paused;
  if (!r.optimizer_group.empty()) j["optimizer-group"] = r.optimizer_group;
  if (r.last_optimized_snapshot_id) {
    j["last-optimized-snapshot-id"] = *r.last_optimized_snapshot_id;
  }
  j["last-minor-ms"] = r.last_minor_ms;
  j["last-major-ms"] = r.last_major_ms;
  j["last-full-ms"] = r.last_full_ms;
  j["last-plan-ms"] = r.last_plan_ms;
  j["updated-at-ms"] = r.updated_at_ms;
  return j;
}

OJson ProcessJson(const metastore::OptimizingProcessRecord& p) {
  OJson j = OJson::object();
  j["process-id"] = p.process_id;
  j["type"] = p.optimizing_type;
  j["status"] = p.status;
  if (p.planned_snapshot_id) j["planned-snapshot-id"] = *p.planned_snapshot_id;
  if (p.committed_snapshot_id) j["committed-snapshot-id"] = *p.committed_snapshot_id;
  j["plan-time-ms"] = p.plan_time_ms;
  j["end-time-ms"] = p.end_time_ms;
  j["duration-ms"] = p.end_time_ms > 0 ? p.end_time_ms - p.plan_time_ms : 0;
  j["task-count"] = p.task_count;
  j["rewritten-data-files"] = p.rewritten_data_files;
  j["converted-data-files"] = p.converted_data_files;
  j["removed-delete-files"] = p.removed_delete_files;
  j["new-data-files"] = p.new_data_files;
  j["new-delete-files"] = p.new_delete_files;
  j["rows-rewritten"] = p.rows_rewritten;
  j["bytes-written"] = p.bytes_written;
  j["reason"] = p.reason;
  if (!p.error.empty()) j["error"] = p.error;
  return j;
}

OJson FileStatsJson(const optimize::FileStats& s) {
  return OJson{{"count", s.count}, {"bytes", s.bytes}, {"records", s.records}};
}

OJson HealthJson(const optimize::HealthScore& h) {
  return OJson{{"score", h.total()},
               {"small-files", h.small_files},
               {"equality-deletes", h.equality_deletes},
               {"position-deletes", h.position_deletes}};
}

OJson PartitionJson(const optimize::PartitionEvaluation& p) {
  OJson j = OJson::object();
  j["key"] = p.key;
  j["spec-id"] = p.spec_id;
  j["fragments"] = FileStatsJson(p.fragments);
  j["undersized-segments"] = FileStatsJson(p.undersized_segments);
  j["rewrite-segments"] = FileStatsJson(p.rewrite_segments);
  j["rewrite-pos-segments"] = FileStatsJson(p.rewrite_pos_segments);
  j["equality-deletes"] = FileStatsJson(p.equality_deletes);
  j["position-deletes"] = FileStatsJson(p.position_deletes);
  j["health"] = HealthJson(p.health);
  j["health-score"] = p.health.total();
  j["necessary"] = p.necessary;
  if (p.necessary) j["optimizing-type"] = std::string(optimize::OptimizingTypeName(p.type));
  j["reason"] = p.reason;
  j["cost"] = p.cost;
  return j;
}

// Where a snapshot came from, for the timeline: floe's optimizer and maintenance mark their
// commits with snapshot-producer (data expiration and dangling-delete cleanup are maintenance,
// as in Amoro's table settings, not optimizing).
std::string_view SnapshotProducer(const iceberg::Snapshot& s) {
  if (optimize::ProducedByMaintenance(s)) return "maintenance";
  if (optimize::ProducedByOptimizer(s)) return "optimize";
  if (s.SummaryValue("floe.ingest.topic") != nullptr) return "ingest";
  return "external";
}

OJson SnapshotJson(const iceberg::Snapshot& s) {
  OJson j = OJson::object();
  j["snapshot-id"] = s.snapshot_id;
  if (s.parent_snapshot_id) j["parent-snapshot-id"] = *s.parent_snapshot_id;
  j["sequence-number"] = s.sequence_number;
  j["timestamp-ms"] = s.timestamp_ms;
  j["operation"] = s.operation.empty() ? "overwrite" : s.operation;
  j["producer"] = std::string(SnapshotProducer(s));
  if (s.schema_id) j["schema-id"] = *s.schema_id;
  OJson summary = OJson::object();
  for (const auto& [k, v] : s.summary) summary[k] = v;
  j["summary"] = std::move(summary);
  return j;
}

OJson TableHealthJson(const optimize::OptimizingPlan& plan) {
  const optimize::TableHealth health = optimize::SummarizeHealth(plan);
  OJson j = HealthJson(health.mean);
  j["lowest-partition-score"] = health.lowest_partition_score;
  j["partitions"] = health.partitions;
  j["equality-delete-files"] = health.equality_delete_files;
  j["position-delete-files"] = health.position_delete_files;
  return j;
}

Result<Namespace> NamespaceFromPath(std::string_view text) {
  if (text.empty()) return Status::InvalidArgument("the namespace is empty");
  return catalog::ParseNamespace(text);
}

// The path of a table route: catalogs/{c}/namespaces/{ns}/tables/{t}[/...].
struct TableRoute {
  std::string catalog;
  TableIdentifier id;
  std::string action;  // "" for the table itself
};

}  // namespace internal

using namespace internal;  // NOLINT(google-build-using-namespace): this file's helpers

std::string MaskSecret(std::string_view key, std::string_view value) {
  return IsSecretKey(key) ? std::string(kMask) : std::string(value);
}

std::string MaskUri(std::string_view uri) {
  // scheme://user:password@host...: the password goes.
  size_t scheme = uri.find("://");
  if (scheme == std::string_view::npos) return std::string(uri);
  size_t authority = scheme + 3;
  size_t end = uri.find_first_of("/?#", authority);
  std::string_view auth = uri.substr(
      authority, end == std::string_view::npos ? std::string_view::npos : end - authority);
  size_t at = auth.rfind('@');
  if (at == std::string_view::npos) {
    // Query parameters such as ?password=... (libpq keywords).
    std::string out(uri);
    size_t q = out.find('?');
    if (q == std::string::npos) return out;
    std::string masked = out.substr(0, q + 1);
    std::string_view rest = std::string_view(out).substr(q + 1);
    while (!rest.empty()) {
      size_t amp = rest.find('&');
      std::string_view part = rest.substr(0, amp);
      size_t eq = part.find('=');
      if (eq != std::string_view::npos && IsSecretKey(part.substr(0, eq))) {
        masked += std::string(part.substr(0, eq + 1)) + std::string(kMask);
      } else {
        masked += part;
      }
      if (amp == std::string_view::npos) break;
      masked += '&';
      rest.remove_prefix(amp + 1);
    }
    return masked;
  }
  size_t colon = auth.find(':');
  if (colon == std::string_view::npos || colon > at) return std::string(uri);
  std::string out(uri.substr(0, authority + colon + 1));
  out += kMask;
  out += uri.substr(authority + at);
  return out;
}

Result<std::unique_ptr<ManagementApi>> ManagementApi::Make(
    std::shared_ptr<catalog::CatalogRegistry> registry, ManagementOptions options) {
  if (!options.open_catalog) return Status::InvalidArgument("open_catalog is required");
  std::unique_ptr<ManagementApi> api(new ManagementApi(std::move(registry), std::move(options)));
  FLOE_ASSIGN_OR_RETURN(api->store_, metastore::Metastore::Open(api->options_.metastore_uri));
  return api;
}

std::optional<rest::RouteTarget> ManagementApi::Target(const http::HttpRequest& request) const {
  auto segments = http::SplitPath(request.path);
  if (segments.ok() && segments->size() >= 3 && (*segments)[2] == "topics") {
    return rest::RouteTarget{options_.topics_catalog, false};
  }
  // A route's access; a request no route answers (404 or 405) writes unless GET or HEAD.
  bool writes = request.method != "GET" && request.method != "HEAD";
  if (segments.ok()) {
    auto found = Table().Find(request.method, *segments);
    if (found.route != nullptr) writes = found.route->info.access == http::Access::kWrite;
  }
  if (!segments.ok() || segments->size() < 3 || (*segments)[2] != "catalogs") {
    // Server-wide changes (optimizer groups, optimizers and their task protocol) need write
    // access to every catalog: an optimizer commits into any of them.
    if (writes && segments.ok() && segments->size() >= 3) return rest::RouteTarget{"*", true};
    return std::nullopt;
  }
  if (segments->size() >= 4) return rest::RouteTarget{(*segments)[3], writes};
  if (!writes) return std::nullopt;
  // POST /api/v1/catalogs: the catalog being created, named in the body.
  OJson body = ParseOrderedJson(request.body).value_or(OJson());
  if (body.is_object()) {
    auto name = body.find("name");
    if (name != body.end() && name->is_string()) {
      return rest::RouteTarget{name->get<std::string>(), true};
    }
  }
  return rest::RouteTarget{"*", true};
}

HttpResponse ManagementApi::Handle(const http::HttpRequest& request, const AccessCheck& access) {
  auto query = http::ParseQuery(request.query);
  if (!query.ok()) {
    return rest::ErrorResponse(400, "BadRequestException", query.status().message());
  }
  Call call{request, access, std::move(*query), {}};
  Result<HttpResponse> response = Status::Internal("unanswered");
  try {
    response = Dispatch(call);
  } catch (const nlohmann::json::exception&) {
    // A body field of the wrong type or missing, read with nlohmann's throwing accessors.
    return rest::BadJsonTypeResponse();
  }
  if (!response.ok()) return FromStatus(response.status());
  return std::move(*response);
}

const http::RouteTable<ManagementApi::RouteHandler>& ManagementApi::Table() {
  using http::Access;
  constexpr Access kRead = Access::kRead;
  constexpr Access kWrite = Access::kWrite;
  using M = ManagementApi;
  // openapi.json's paths and operationIds (and the document's own root). The routes of a
  // path are listed GET first, as a 405's Allow lists them.
  static const http::RouteTable<RouteHandler> kTable(
      {
          {{"GET", "/api/v1", kRead, false, "getOpenApi"}, &M::OpenApi},
          {{"GET", "/api/v1/openapi.json", kRead, false, "getOpenApi"}, &M::OpenApi},
          {{"GET", "/api/v1/overview", kRead, false, "getOverview"}, &M::Overview},
          {{"GET", "/api/v1/overview/history", kRead, false, "getOverviewHistory"},
           &M::OverviewHistory},
          {{"GET", "/api/v1/settings", kRead, false, "getSettings"}, &M::Settings},
          {{"GET", "/api/v1/optimizer-groups", kRead, false, "listOptimizerGroups"},
           &M::ListGroups},
          {{"POST", "/api/v1/optimizer-groups", kWrite, false, "createOptimizerGroup"},
           &M::CreateGroup},
          {{"GET", "/api/v1/tables", kRead, false, "listManagedTables"}, &M::ManagedTables},
          {{"GET", "/api/v1/table-stats", kRead, false, "listTableStats"}, &M::TableStats},
          {{"GET", "/api/v1/storage", kRead, false, "getStorageSummary"}, &M::StorageSummary},
          {{"GET", "/api/v1/catalogs", kRead, false, "listCatalogs"}, &M::ListCatalogs},
          {{"POST", "/api/v1/catalogs", kWrite, false, "attachCatalog"}, &M::AttachCatalog},
          {{"GET", "/api/v1/catalogs/{catalog}", kRead, false, "getCatalog"}, &M::GetCatalog},
          {{"PUT", "/api/v1/catalogs/{catalog}", kWrite, false, "updateCatalog"},
           &M::UpdateCatalog},
          {{"DELETE", "/api/v1/catalogs/{catalog}", kWrite, false, "detachCatalog"},
           &M::DeleteCatalog},
          {{"GET", "/api/v1/catalogs/{catalog}/namespaces", kRead, false, "listNamespaces"},
           &M::ListNamespaces},
          {{"GET", "/api/v1/catalogs/{catalog}/namespaces/{namespace}/tables", kRead, false,
            "listTables"},
           &M::ListTables},
          {{"GET", "/api/v1/catalogs/{catalog}/namespaces/{namespace}/tables/{table}", kRead, false,
            "getTable"},
           &M::OnTable<&M::TableDetails>},
          {{"GET", "/api/v1/catalogs/{catalog}/namespaces/{namespace}/tables/{table}/partitions",
            kRead, false, "listTablePartitions"},
           &M::OnTable<&M::TablePartitions>},
          {{"GET", "/api/v1/catalogs/{catalog}/namespaces/{namespace}/tables/{table}/snapshots",
            kRead, false, "listSnapshots"},
           &M::OnTable<&M::Snapshots>},
          {{"GET", "/api/v1/catalogs/{catalog}/namespaces/{namespace}/tables/{table}/files", kRead,
            false, "listTableFiles"},
           &M::OnTable<&M::TableFiles>},
          {{"GET", "/api/v1/catalogs/{catalog}/namespaces/{namespace}/tables/{table}/file-sizes",
            kRead, false, "getTableFileSizes"},
           &M::OnTable<&M::TableFileSizes>},
          {{"GET",
            "/api/v1/catalogs/{catalog}/namespaces/{namespace}/tables/{table}/"
            "optimizing-processes",
            kRead, false, "listOptimizingProcesses"},
           &M::OnTable<&M::Processes>},
          {{"POST", "/api/v1/catalogs/{catalog}/namespaces/{namespace}/tables/{table}/properties",
            kWrite, false, "updateTableProperties"},
           &M::OnTable<&M::UpdateProperties>},
          {{"POST", "/api/v1/catalogs/{catalog}/namespaces/{namespace}/tables/{table}/optimize",
            kWrite, false, "triggerOptimize"},
           &M::OnTable<&M::TriggerOptimize>},
          {{"GET", "/api/v1/optimizer-groups/{group}", kRead, false, "getOptimizerGroup"},
           &M::GetGroup},
          {{"DELETE", "/api/v1/optimizer-groups/{group}", kWrite, false, "dropOptimizerGroup"},
           &M::DropGroup},
          {{"GET", "/api/v1/optimizers", kRead, false, "listOptimizers"}, &M::ListOptimizers},
          {{"POST", "/api/v1/optimizers", kWrite, false, "registerOptimizer"},
           &M::RegisterOptimizer},
          {{"DELETE", "/api/v1/optimizers/{optimizer}", kWrite, false, "unregisterOptimizer"},
           &M::UnregisterOptimizer},
          {{"POST", "/api/v1/optimizers/{optimizer}/drain", kWrite, false, "drainOptimizer"},
           &M::DrainOptimizer},
          {{"POST", "/api/v1/optimizers/{optimizer}/heartbeat", kWrite, false,
            "optimizerHeartbeat"},
           &M::Heartbeat},
          {{"POST", "/api/v1/optimizers/{optimizer}/poll", kWrite, false, "pollTask"},
           &M::PollTask},
          {{"POST", "/api/v1/optimizers/{optimizer}/ack", kWrite, false, "ackTask"}, &M::AckTask},
          {{"POST", "/api/v1/optimizers/{optimizer}/complete", kWrite, false, "completeTask"},
           &M::CompleteTask},
          {{"POST", "/api/v1/catalogs/{catalog}/namespaces/{namespace}/tables/{table}/pause",
            kWrite, false, "pauseTable"},
           &M::OnTable<&M::PauseTable>},
          {{"POST", "/api/v1/catalogs/{catalog}/namespaces/{namespace}/tables/{table}/resume",
            kWrite, false, "resumeTable"},
           &M::OnTable<&M::ResumeTable>},
          {{"POST",
            "/api/v1/catalogs/{catalog}/namespaces/{namespace}/tables/{table}/"
            "optimizing-processes/{process}/cancel",
            kWrite, false, "cancelProcess"},
           &M::OnTable<&M::CancelProcess>},
          {{"GET",
            "/api/v1/catalogs/{catalog}/namespaces/{namespace}/tables/{table}/"
            "optimizing-processes/{process}/tasks",
            kRead, false, "listProcessTasks"},
           &M::OnTable<&M::ProcessTasks>},
          {{"GET",
            "/api/v1/catalogs/{catalog}/namespaces/{namespace}/tables/{table}/maintenance-runs",
            kRead, false, "listMaintenanceRuns"},
           &M::OnTable<&M::MaintenanceRuns>},
          {{"GET", "/api/v1/topics", kRead, false, "listTopics"}, &M::ListTopics},
          {{"GET", "/api/v1/topics/{topic}", kRead, false, "getTopic"}, &M::GetTopic},
          {{"GET", "/api/v1/topics/{topic}/records", kRead, false, "getTopicRecords"},
           &M::TopicRecords},
      },
      {.head_as_get = true});
  return kTable;
}

std::span<const http::RouteInfo> ManagementApi::Routes() { return Table().infos(); }

Result<HttpResponse> ManagementApi::Dispatch(Call& call) {
  FLOE_ASSIGN_OR_RETURN(std::vector<std::string> seg, http::SplitPath(call.request.path));
  if (seg.size() < 2 || seg[0] != "api" || seg[1] != "v1") {
    return Status::NotFound("no such route");
  }
  // A table's namespace is checked whatever follows it: a malformed one is refused (400)
  // before any 404 or 405 of the rest of the path.
  if (seg.size() >= 8 && seg[2] == "catalogs" && seg[4] == "namespaces" && seg[6] == "tables") {
    FLOE_RETURN_IF_ERROR(NamespaceFromPath(seg[5]).status());
  }
  auto found = Table().Find(call.request.method, seg);
  if (found.route == nullptr) return Unrouted(call, seg, found.path_known);
  call.params = std::move(found.params);
  return (this->*found.route->handler)(call);
}

Result<HttpResponse> ManagementApi::Unrouted(Call& call, const std::vector<std::string>& seg,
                                             bool path_known) {
  const std::string& method = call.request.method;
  const bool get = method == "GET" || method == "HEAD";
  // The topics answer a wrong method before looking at the path.
  if (seg.size() >= 3 && seg[2] == "topics" && !get) return TopicsMethodNotAllowed(method);
  // An optimizer's unknown action is a POST route of the task protocol until its checks
  // pass (RFC 9110 §15.5.6: a 405 lists the methods the route has).
  const bool optimizer_action = seg.size() == 5 && seg[2] == "optimizers";
  if (path_known || (optimizer_action && method != "POST")) {
    HttpResponse r = rest::ErrorResponse(405, "MethodNotAllowedException",
                                         fmt::format("{} is not allowed here", method));
    r.headers.emplace_back(
        "Allow", optimizer_action ? std::string("POST") : Table().matcher().AllowedMethods(seg));
    return r;
  }
  if (optimizer_action) {
    call.params.Add("optimizer", seg[3]);
    return UnknownOptimizerAction(call);
  }
  return Status::NotFound("no such route");
}

template <Result<HttpResponse> (ManagementApi::*F)(ManagementApi::Call&, const std::string&,
                                                   const TableIdentifier&)>
Result<HttpResponse> ManagementApi::OnTable(Call& call) {
  FLOE_ASSIGN_OR_RETURN(Namespace ns, NamespaceFromPath(call.params.Get("namespace")));
  TableIdentifier id{std::move(ns), call.params.Get("table")};
  return (this->*F)(call, call.params.Get("catalog"), id);
}

Result<HttpResponse> ManagementApi::OpenApi(Call&) {
  return HttpResponse::Json(200, std::string(OpenApiDocument()));
}

Result<HttpResponse> ManagementApi::Settings(Call&) {
  return HttpResponse::Json(200, options_.settings_json);
}

Result<HttpResponse> ManagementApi::AttachCatalog(Call& call) {
  return PutCatalog(call, std::nullopt);
}

Result<HttpResponse> ManagementApi::UpdateCatalog(Call& call) {
  return PutCatalog(call, call.params.Get("catalog"));
}

Result<HttpResponse> ManagementApi::ListTopics(Call& call) {
  return TopicList(options_.ingest, call.query, options_.now_ms ? options_.now_ms() : 0);
}

Result<HttpResponse> ManagementApi::GetTopic(Call& call) {
  return TopicDetails(options_.ingest, call.params.Get("topic"),
                      options_.now_ms ? options_.now_ms() : 0);
}

Result<HttpResponse> ManagementApi::TopicRecords(Call& call) {
  return ::floe::manage::TopicRecords(options_.ingest, call.params.Get("topic"), call.query);
}

Result<HttpResponse> ManagementApi::ListCatalogs(Call& call) {
  FLOE_ASSIGN_OR_RETURN(ListParams params,
                        ParseListParams(call, {"name", "type", "created-at-ms"}, "name"));
  FLOE_ASSIGN_OR_RETURN(std::optional<std::string> type, EnumFilter(call, "type", kCatalogTypes));
  std::vector<metastore::CatalogRecord> records;
  {
    std::lock_guard lock(store_mu_);
    FLOE_ASSIGN_OR_RETURN(records, store_->ListCatalogs());
  }
  std::vector<OJson> items;
  for (const metastore::CatalogRecord& r : records) {
    if (!call.CanRead(r.name) || !MatchesQuery(params, r.name)) continue;
    if (type && *type != metastore::CatalogKindName(r.kind)) continue;
    items.push_back(CatalogJson(r, options_.default_catalog));
  }
  return Page(std::move(items), params);
}

Result<HttpResponse> ManagementApi::GetCatalog(Call& call) {
  const std::string& name = call.params.Get("catalog");
  metastore::CatalogRecord record;
  {
    std::lock_guard lock(store_mu_);
    FLOE_ASSIGN_OR_RETURN(record, store_->LoadCatalog(name));
  }
  return JsonResponse(200, CatalogJson(record, options_.default_catalog));
}

Result<HttpResponse> ManagementApi::PutCatalog(Call& call,
                                               const std::optional<std::string>& path_name) {
  FLOE_ASSIGN_OR_RETURN(OJson body, ParseObjectBody(call.request, /*allow_empty=*/false));
  FLOE_RETURN_IF_ERROR(CheckKnownFields(body, {"name", "type", "uri", "warehouse", "properties"}));
  for (const auto& [key, value] : body.items()) {
    if (value.is_null() || (value.is_string() && value.get_ref<const std::string&>().empty())) {
      return Status::InvalidArgument("'{}' must not be empty", key);
    }
  }
  FLOE_ASSIGN_OR_RETURN(auto name, OptionalString(body, "name"));
  FLOE_ASSIGN_OR_RETURN(auto type, OptionalString(body, "type"));
  FLOE_ASSIGN_OR_RETURN(auto uri, OptionalString(body, "uri"));
  FLOE_ASSIGN_OR_RETURN(auto warehouse, OptionalString(body, "warehouse"));
  FLOE_ASSIGN_OR_RETURN(auto properties, StringMap(body, "properties"));
  if (path_name) {
    if (!name) return Status::InvalidArgument("'name' is required");
    if (*name != *path_name) {
      return Status::InvalidArgument("the body names catalog '{}' but the path '{}'", *name,
                                     *path_name);
    }
    name = path_name;
  }
  if (!name || name->empty()) return Status::InvalidArgument("'name' is required");
  if (!type) return Status::InvalidArgument("'type' is required (internal, sql, filesystem, rest)");

  metastore::CatalogRecord record;
  record.name = *name;
  FLOE_ASSIGN_OR_RETURN(record.kind, metastore::ParseCatalogKind(*type));
  record.uri = uri.value_or("");
  record.warehouse = warehouse.value_or("");
  record.properties = std::move(properties);
  switch (record.kind) {
    case metastore::CatalogKind::kInternal:
    case metastore::CatalogKind::kFilesystem:
      if (record.warehouse.empty()) {
        return Status::InvalidArgument("a {} catalog needs 'warehouse'", *type);
      }
      // A relative path would depend on the server's working directory.
      if (!record.warehouse.starts_with('/') && !record.warehouse.starts_with("file:/") &&
          (record.kind == metastore::CatalogKind::kFilesystem ||
           record.warehouse.find("://") == std::string::npos)) {
        return Status::InvalidArgument("'warehouse' must be an absolute path or URI");
      }
      if (!record.uri.empty()) return Status::InvalidArgument("a {} catalog has no 'uri'", *type);
      break;
    case metastore::CatalogKind::kSql:
    case metastore::CatalogKind::kRest:
      if (record.uri.empty()) return Status::InvalidArgument("a {} catalog needs 'uri'", *type);
      // SQLite creates a missing file: a relative one would land in the server's working
      // directory.
      if (record.uri.starts_with("sqlite:") && !record.uri.starts_with("sqlite:/")) {
        return Status::InvalidArgument("a sqlite: uri needs an absolute path");
      }
      break;
  }
  if (path_name) {
    metastore::CatalogRecord old;
    {
      std::lock_guard lock(store_mu_);
      FLOE_ASSIGN_OR_RETURN(old, store_->LoadCatalog(*name));
    }
    if (*name == options_.default_catalog && record.kind != metastore::CatalogKind::kInternal) {
      return Status::InvalidArgument("the default catalog stays internal");
    }
    // A masked value sent back unchanged (the client edited what GET showed) keeps the
    // stored secret.
    for (auto& [k, v] : record.properties) {
      auto it = old.properties.find(k);
      if (v == kMask && it != old.properties.end()) v = it->second;
    }
    if (record.uri == MaskUri(old.uri)) record.uri = old.uri;
  }

  // The definition must open and answer before it is saved: an attach fails now, with the
  // reason, rather than on the first request.
  auto opened = options_.open_catalog(record);
  if (!opened.ok()) {
    return Status::InvalidArgument("catalog '{}' cannot be opened: {}", record.name,
                                   opened.status().ToString());
  }
  std::unique_ptr<catalog::Catalog> probe = std::move(*opened);
  Status listed = probe->ListNamespaces(Namespace{}).status();
  if (!listed.ok()) {
    return Status::InvalidArgument("catalog '{}' does not answer: {}", record.name,
                                   listed.ToString());
  }
  {
    std::lock_guard lock(store_mu_);
    if (path_name) {
      FLOE_RETURN_IF_ERROR(store_->UpdateCatalog(record));
    } else {
      FLOE_RETURN_IF_ERROR(store_->CreateCatalog(record));
    }
    FLOE_ASSIGN_OR_RETURN(record, store_->LoadCatalog(record.name));
  }
  auto pool = std::make_shared<catalog::CatalogPool>(
      record.name, [record, open = options_.open_catalog] { return open(record); });
  { catalog::CatalogLease lease(pool.get(), std::move(probe)); }
  registry_->Put(std::move(pool));
  if (options_.on_catalog_saved) options_.on_catalog_saved(record);
  return JsonResponse(path_name ? 200 : 201, CatalogJson(record, options_.default_catalog));
}

Result<HttpResponse> ManagementApi::DeleteCatalog(Call& call) {
  const std::string& name = call.params.Get("catalog");
  if (name == options_.default_catalog) {
    return Status::FailedPrecondition("the default catalog '{}' cannot be detached", name);
  }
  metastore::CatalogRecord record;
  {
    std::lock_guard lock(store_mu_);
    FLOE_ASSIGN_OR_RETURN(record, store_->LoadCatalog(name));
  }
  if (record.kind == metastore::CatalogKind::kInternal) {
    // Its tables exist only through this metastore: detaching would lose them.
    FLOE_ASSIGN_OR_RETURN(auto pool, registry_->Get(name));
    FLOE_ASSIGN_OR_RETURN(catalog::CatalogLease lease, pool->Acquire());
    FLOE_ASSIGN_OR_RETURN(auto namespaces, lease->ListNamespaces(Namespace{}));
    if (!namespaces.empty()) {
      return Status::FailedPrecondition(
          "internal catalog '{}' still has {} namespaces: drop them first", name,
          namespaces.size());
    }
  }
  {
    std::lock_guard lock(store_mu_);
    FLOE_RETURN_IF_ERROR(store_->DropCatalog(name));
  }
  registry_->Remove(name);
  if (options_.on_catalog_removed) options_.on_catalog_removed(name);
  return HttpResponse::NoContent();
}

Result<HttpResponse> ManagementApi::ListNamespaces(Call& call) {
  const std::string& catalog_name = call.params.Get("catalog");
  FLOE_ASSIGN_OR_RETURN(ListParams params, ParseListParams(call, {"name"}, "name"));
  Namespace parent;
  if (auto p = call.Query("parent"); p && !p->empty()) {
    FLOE_ASSIGN_OR_RETURN(parent, catalog::ParseNamespace(*p));
  }
  FLOE_ASSIGN_OR_RETURN(auto pool, registry_->Get(catalog_name));
  FLOE_ASSIGN_OR_RETURN(catalog::CatalogLease lease, pool->Acquire());
  FLOE_ASSIGN_OR_RETURN(std::vector<Namespace> namespaces, lease->ListNamespaces(parent));
  std::vector<OJson> items;
  for (const Namespace& ns : namespaces) {
    std::string name = ns.ToString();
    if (!MatchesQuery(params, name)) continue;
    items.push_back(OJson{{"name", name}, {"levels", ns.levels}});
  }
  return Page(std::move(items), params);
}

Result<HttpResponse> ManagementApi::ListTables(Call& call) {
  const std::string& catalog_name = call.params.Get("catalog");
  const std::string& ns_text = call.params.Get("namespace");
  FLOE_ASSIGN_OR_RETURN(ListParams params, ParseListParams(call, {"name", "status"}, "name"));
  FLOE_ASSIGN_OR_RETURN(Namespace ns, NamespaceFromPath(ns_text));
  FLOE_ASSIGN_OR_RETURN(auto pool, registry_->Get(catalog_name));
  FLOE_ASSIGN_OR_RETURN(catalog::CatalogLease lease, pool->Acquire());
  FLOE_ASSIGN_OR_RETURN(std::vector<TableIdentifier> ids, lease->ListTables(ns));
  // The namespace's tables with their optimizing state (idle when the optimizer has not
  // seen them): the states are ordered by catalog, namespace and name, so the namespace's
  // are one run of them, searched by name.
  FLOE_ASSIGN_OR_RETURN(RuntimesView all, AllRuntimes());
  const std::string dotted = ns.ToString();
  using Runtime = metastore::TableRuntimeRecord;
  auto [first, last] = std::equal_range(
      all->begin(), all->end(), std::pair<std::string_view, std::string_view>(catalog_name, dotted),
      [](const auto& a, const auto& b) {
        if constexpr (std::is_same_v<std::decay_t<decltype(a)>, Runtime>) {
          return std::tie(a.catalog, a.table_namespace) < std::tie(b.first, b.second);
        } else {
          return std::tie(a.first, a.second) < std::tie(b.catalog, b.table_namespace);
        }
      });
  struct Row {
    const TableIdentifier* id;
    const Runtime* runtime;  // null: not seen yet (idle)
  };
  std::vector<Row> rows;
  rows.reserve(ids.size());
  for (const TableIdentifier& id : ids) {
    if (!MatchesQuery(params, id.name)) continue;
    auto it = std::lower_bound(first, last, id.name, [](const Runtime& r, const std::string& n) {
      return r.table_name < n;
    });
    rows.push_back(Row{&id, it != last && it->table_name == id.name ? &*it : nullptr});
  }
  static const std::string kIdle = "idle";
  static const std::string kNoReason;
  const bool by_status = params.sort_key == "status";
  return PageBy(
      rows, params,
      [by_status](const Row& r) -> SortValue {
        if (by_status) return r.runtime ? r.runtime->status : kIdle;
        return r.id->name;
      },
      [](const Row& r) {
        OJson j = OJson::object();
        j["name"] = r.id->name;
        j["namespace"] = r.id->ns.ToString();
        j["identifier"] = r.id->ToString();
        j["status"] = r.runtime ? r.runtime->status : kIdle;
        j["status-reason"] = r.runtime ? r.runtime->status_reason : kNoReason;
        return j;
      });
}

namespace {

// A table loaded for the API: the catalog lease, its operations and the table.
struct LoadedTable {
  catalog::CatalogLease lease;
  std::unique_ptr<iceberg::TableOperations> ops;
  std::unique_ptr<iceberg::Table> table;
};

Result<LoadedTable> LoadTableFrom(catalog::CatalogRegistry& registry,
                                  const std::string& catalog_name, const TableIdentifier& id) {
  FLOE_ASSIGN_OR_RETURN(auto pool, registry.Get(catalog_name));
  FLOE_ASSIGN_OR_RETURN(catalog::CatalogLease lease, pool->Acquire());
  FLOE_ASSIGN_OR_RETURN(auto ops, lease->LoadTable(id));
  FLOE_ASSIGN_OR_RETURN(auto table, iceberg::Table::Load(*ops));
  return LoadedTable{std::move(lease), std::move(ops), std::move(table)};
}

// The optimizer's view of the table's current snapshot (its partitions' evaluations and
// health) with the table's optimizing history; the table's own self-optimizing properties,
// or the defaults when they are invalid.
Result<optimize::OptimizingPlan> EvaluateTable(iceberg::Table& table, int64_t now_ms,
                                               const metastore::TableRuntimeRecord& runtime) {
  const iceberg::TableMetadataPtr& metadata = table.metadata();
  const iceberg::Snapshot* current = metadata->current_snapshot();
  if (current == nullptr) return optimize::OptimizingPlan{};
  auto config = optimize::OptimizingConfig::FromProperties(metadata->properties);
  optimize::OptimizingConfig effective = config.ok() ? *config : optimize::OptimizingConfig{};
  optimize::PlanOptions options;
  options.now_ms = now_ms;
  options.history = {runtime.last_minor_ms, runtime.last_major_ms, runtime.last_full_ms};
  return optimize::PlanSnapshot(metadata, table.io(), current->snapshot_id, effective, options);
}

int64_t WallClockMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

}  // namespace

Result<metastore::TableRuntimeRecord> ManagementApi::Runtime(const std::string& catalog_name,
                                                             const TableIdentifier& id) {
  if (options_.optimizer) return options_.optimizer->TableRuntime(catalog_name, id);
  metastore::TableRuntimeRecord runtime;
  runtime.catalog = catalog_name;
  runtime.table_namespace = id.ns.ToString();
  runtime.table_name = id.name;
  std::vector<metastore::TableRuntimeRecord> all;
  {
    std::lock_guard lock(store_mu_);
    FLOE_ASSIGN_OR_RETURN(all, store_->ListTableRuntimes());
  }
  for (auto& r : all) {
    if (r.catalog == runtime.catalog && r.table_namespace == runtime.table_namespace &&
        r.table_name == runtime.table_name) {
      return std::move(r);
    }
  }
  return runtime;
}

Result<HttpResponse> ManagementApi::TableDetails(Call& call, const std::string& catalog_name,
                                                 const TableIdentifier& id) {
  FLOE_ASSIGN_OR_RETURN(LoadedTable loaded, LoadTableFrom(*registry_, catalog_name, id));
  const iceberg::TableMetadata& m = *loaded.table->metadata();
  OJson j = OJson::object();
  j["catalog"] = catalog_name;
  j["namespace"] = id.ns.ToString();
  j["name"] = id.name;
  j["identifier"] = id.ToString();
  j["format-version"] = m.format_version;
  if (m.table_uuid) j["table-uuid"] = *m.table_uuid;
  j["location"] = m.location;
  j["metadata-location"] = m.metadata_file_location;
  j["last-updated-ms"] = m.last_updated_ms;
  if (m.current_snapshot_id) j["current-snapshot-id"] = *m.current_snapshot_id;
  j["snapshot-count"] = m.snapshots.size();
  if (const iceberg::Schema* schema = m.current_schema()) {
    j["schema"] = OJson::parse(iceberg::SchemaToJsonValue(*schema).dump());
  }
  if (const iceberg::PartitionSpec* spec = m.default_spec()) {
    j["partition-spec"] = OJson::parse(iceberg::PartitionSpecToJsonValue(*spec).dump());
  }
  if (const iceberg::SortOrder* order = m.default_sort_order()) {
    j["sort-order"] = OJson::parse(iceberg::SortOrderToJsonValue(*order).dump());
  }
  OJson props = OJson::object();
  for (const auto& [k, v] : m.properties) props[k] = v;
  j["properties"] = std::move(props);
  OJson refs = OJson::object();
  for (const auto& [name, ref] : m.refs) {
    refs[name] = OJson{{"type", ref.type == iceberg::SnapshotRefType::kTag ? "tag" : "branch"},
                       {"snapshot-id", ref.snapshot_id}};
  }
  j["refs"] = std::move(refs);
  if (const iceberg::Snapshot* current = m.current_snapshot()) {
    j["current-snapshot"] = SnapshotJson(*current);
  }

  auto config = optimize::OptimizingConfig::FromProperties(m.properties);
  OJson optimizing = OJson::object();
  optimizing["enabled"] = config.ok() && config->enabled;
  if (!config.ok()) optimizing["config-error"] = config.status().message();
  FLOE_ASSIGN_OR_RETURN(metastore::TableRuntimeRecord runtime, Runtime(catalog_name, id));
  OJson rt = RuntimeJson(runtime);
  for (auto& [k, v] : rt.items()) optimizing[k] = v;
  j["optimizing"] = std::move(optimizing);

  const std::string health_param = call.Query("health").value_or("true");
  if (health_param != "true" && health_param != "false") {
    return Status::InvalidArgument("health must be true or false");
  }
  if (health_param == "true") {
    FLOE_ASSIGN_OR_RETURN(optimize::OptimizingPlan plan,
                          EvaluateTable(*loaded.table, WallClockMs(), runtime));
    OJson health = TableHealthJson(plan);
    if (plan.type) {
      health["pending-optimizing-type"] = std::string(optimize::OptimizingTypeName(*plan.type));
    }
    // Orphan cleaning refused for confinement (the table's directories are outside the
    // allowed locations, a root, or another table's): shown until a run succeeds.
    Result<std::vector<metastore::MaintenanceRunRecord>> listed = [&] {
      std::lock_guard lock(store_mu_);
      return store_->ListMaintenanceRuns(catalog_name, id.ns.ToString(), id.name, 50);
    }();
    FLOE_ASSIGN_OR_RETURN(std::vector<metastore::MaintenanceRunRecord> runs, std::move(listed));
    for (const metastore::MaintenanceRunRecord& run : runs) {
      if (run.kind != "clean-orphan-files") continue;
      if (run.status == "refused") {
        health["orphan-cleaning-refused"] = {{"at-ms", run.end_ms}, {"reason", run.error}};
      }
      break;
    }
    j["health"] = std::move(health);
  }
  return JsonResponse(200, j);
}

Result<HttpResponse> ManagementApi::TablePartitions(Call& call, const std::string& catalog_name,
                                                    const TableIdentifier& id) {
  FLOE_ASSIGN_OR_RETURN(ListParams params,
                        ParseListParams(call, {"key", "health-score", "cost"}, "key"));
  FLOE_ASSIGN_OR_RETURN(LoadedTable loaded, LoadTableFrom(*registry_, catalog_name, id));
  FLOE_ASSIGN_OR_RETURN(metastore::TableRuntimeRecord runtime, Runtime(catalog_name, id));
  FLOE_ASSIGN_OR_RETURN(optimize::OptimizingPlan plan,
                        EvaluateTable(*loaded.table, WallClockMs(), runtime));
  std::vector<OJson> items;
  for (const optimize::PartitionEvaluation& p : plan.partitions) {
    if (!MatchesQuery(params, p.key)) continue;
    items.push_back(PartitionJson(p));
  }
  return Page(std::move(items), params);
}

Result<HttpResponse> ManagementApi::UpdateProperties(Call& call, const std::string& catalog_name,
                                                     const TableIdentifier& id) {
  FLOE_ASSIGN_OR_RETURN(OJson body, ParseObjectBody(call.request, /*allow_empty=*/false));
  FLOE_RETURN_IF_ERROR(CheckKnownFields(body, {"updates", "removals"}));
  FLOE_ASSIGN_OR_RETURN(auto updates, StringMap(body, "updates"));
  std::vector<std::string> removals;
  if (auto it = body.find("removals"); it != body.end()) {
    if (!it->is_array()) return Status::InvalidArgument("'removals' must be an array");
    for (const auto& key : *it) {
      if (!key.is_string()) return Status::InvalidArgument("'removals' must hold strings");
      removals.push_back(key.get<std::string>());
    }
  }
  for (const std::string& key : removals) {
    if (updates.contains(key)) {
      return Status::InvalidArgument("'{}' is both updated and removed", key);
    }
  }
  FLOE_ASSIGN_OR_RETURN(LoadedTable loaded, LoadTableFrom(*registry_, catalog_name, id));
  // The optimizer's properties are checked before they are committed: a typo would
  // otherwise stop the table's optimizing with a config error.
  std::map<std::string, std::string> merged = loaded.table->metadata()->properties;
  for (const std::string& key : removals) merged.erase(key);
  for (const auto& [k, v] : updates) merged[k] = v;
  FLOE_RETURN_IF_ERROR(optimize::OptimizingConfig::FromProperties(merged).status());
  FLOE_RETURN_IF_ERROR(optimize::MaintenanceConfig::FromProperties(merged).status());
  FLOE_RETURN_IF_ERROR(optimize::DataExpirationConfig::FromProperties(merged).status());
  FLOE_RETURN_IF_ERROR(optimize::AutoTagConfig::FromProperties(merged).status());

  auto update = loaded.table->NewUpdateProperties();
  for (const auto& [k, v] : updates) update->Set(k, v);
  for (const std::string& key : removals) update->Remove(key);
  FLOE_RETURN_IF_ERROR(update->Commit());
  FLOE_RETURN_IF_ERROR(loaded.table->Refresh());
  if (options_.on_table_changed) options_.on_table_changed(catalog_name, id);
  OJson props = OJson::object();
  for (const auto& [k, v] : loaded.table->metadata()->properties) props[k] = v;
  return JsonResponse(200, OJson{{"properties", std::move(props)}});
}

Result<HttpResponse> ManagementApi::Snapshots(Call& call, const std::string& catalog_name,
                                              const TableIdentifier& id) {
  FLOE_ASSIGN_OR_RETURN(
      ListParams params,
      ParseListParams(call, {"timestamp-ms", "sequence-number", "snapshot-id"}, "-timestamp-ms"));
  FLOE_ASSIGN_OR_RETURN(std::optional<std::string> producer,
                        EnumFilter(call, "producer", kProducers));
  FLOE_ASSIGN_OR_RETURN(LoadedTable loaded, LoadTableFrom(*registry_, catalog_name, id));
  std::vector<OJson> items;
  for (const iceberg::Snapshot& s : loaded.table->metadata()->snapshots) {
    if (producer && *producer != SnapshotProducer(s)) continue;
    items.push_back(SnapshotJson(s));
  }
  return Page(std::move(items), params);
}

Result<HttpResponse> ManagementApi::Processes(Call& call, const std::string& catalog_name,
                                              const TableIdentifier& id) {
  FLOE_ASSIGN_OR_RETURN(
      ListParams params,
      ParseListParams(call, {"process-id", "plan-time-ms", "duration-ms"}, "-process-id"));
  FLOE_ASSIGN_OR_RETURN(std::optional<std::string> status,
                        EnumFilter(call, "status", kProcessStatuses));
  if (!registry_->Contains(catalog_name)) {
    return Status::NotFound("no catalog named '{}'", catalog_name);
  }
  std::vector<metastore::OptimizingProcessRecord> processes;
  {
    std::lock_guard lock(store_mu_);
    FLOE_ASSIGN_OR_RETURN(processes,
                          store_->ListProcesses(catalog_name, id.ns.ToString(), id.name, 10'000));
  }
  std::vector<OJson> items;
  for (const auto& p : processes) {
    if (status && *status != p.status) continue;
    items.push_back(ProcessJson(p));
  }
  return Page(std::move(items), params);
}

Result<HttpResponse> ManagementApi::TriggerOptimize(Call& call, const std::string& catalog_name,
                                                    const TableIdentifier& id) {
  FLOE_ASSIGN_OR_RETURN(OJson body, ParseObjectBody(call.request, /*allow_empty=*/true));
  FLOE_RETURN_IF_ERROR(CheckKnownFields(body, {"mode"}));
  FLOE_ASSIGN_OR_RETURN(auto mode, OptionalString(body, "mode"));
  std::optional<optimize::OptimizingType> forced;
  if (mode && *mode != "auto") {
    if (*mode == "minor") {
      forced = optimize::OptimizingType::kMinor;
    } else if (*mode == "major") {
      forced = optimize::OptimizingType::kMajor;
    } else if (*mode == "full") {
      forced = optimize::OptimizingType::kFull;
    } else {
      return Status::InvalidArgument("mode must be auto, minor, major or full");
    }
  }
  if (options_.optimizer == nullptr) {
    return Status::FailedPrecondition(
        "self-optimizing is off on this server (optimizer.enabled false); run `floe optimize`");
  }
  FLOE_ASSIGN_OR_RETURN(auto pool, registry_->Get(catalog_name));
  {
    FLOE_ASSIGN_OR_RETURN(catalog::CatalogLease lease, pool->Acquire());
    FLOE_ASSIGN_OR_RETURN(bool exists, lease->TableExists(id));
    if (!exists) return Status::NotFound("Table does not exist: {}", id.ToString());
  }
  const int64_t queued_at = WallClockMs();
  options_.optimizer->Trigger(catalog_name, id, forced);
  return JsonResponse(202, OJson{{"catalog", catalog_name},
                                 {"identifier", id.ToString()},
                                 {"mode", mode.value_or("auto")},
                                 {"queued", true},
                                 {"queued-at-ms", queued_at}});
}

Result<HttpResponse> ManagementApi::ManagedTables(Call& call) {
  FLOE_ASSIGN_OR_RETURN(
      ListParams params,
      ParseListParams(call,
                      {"identifier", "catalog", "status", "last-plan-ms", "last-minor-ms",
                       "last-major-ms", "last-full-ms", "updated-at-ms", "data-files",
                       "delete-files", "total-bytes", "health-score"},
                      "identifier"));
  std::optional<std::string> catalog_filter = call.Query("catalog");
  FLOE_ASSIGN_OR_RETURN(std::optional<std::string> status_filter,
                        EnumFilter(call, "status", kTableStatuses));
  FLOE_ASSIGN_OR_RETURN(RuntimesView all, AllRuntimes());
  // Each table's statistics beside its state, so that one page sorts by either: both
  // views are in (catalog, namespace, name) order, joined in one pass.
  std::shared_ptr<const std::vector<optimize::TableStats>> stats =
      options_.optimizer != nullptr ? options_.optimizer->StatsView() : nullptr;
  using Row = std::pair<const metastore::TableRuntimeRecord*, const optimize::TableStats*>;
  std::vector<Row> items;
  items.reserve(all->size());
  size_t next_stats = 0;
  for (const metastore::TableRuntimeRecord& r : *all) {
    const optimize::TableStats* s = nullptr;
    if (stats != nullptr) {
      auto key = std::tie(r.catalog, r.table_namespace, r.table_name);
      while (next_stats < stats->size()) {
        const optimize::TableStats& candidate = (*stats)[next_stats];
        auto candidate_key =
            std::tie(candidate.catalog, candidate.table_namespace, candidate.table_name);
        if (candidate_key > key) break;
        ++next_stats;
        if (candidate_key == key) {
          s = &candidate;
          break;
        }
      }
    }
    if (catalog_filter && *catalog_filter != r.catalog) continue;
    if (status_filter && *status_filter != r.status) continue;
    if (!call.CanRead(r.catalog)) continue;
    if (!params.q.empty() && !MatchesQuery(params, r.table_namespace + "." + r.table_name)) {
      continue;
    }
    items.emplace_back(&r, s);
  }
  const std::string& key = params.sort_key;
  return PageBy(
      items, params,
      [&key](const Row& row) -> SortValue {
        const metastore::TableRuntimeRecord* r = row.first;
        const optimize::TableStats* s = row.second;
        if (key == "catalog") return r->catalog;
        if (key == "status") return r->status;
        if (key == "last-plan-ms") return r->last_plan_ms;
        if (key == "last-minor-ms") return r->last_minor_ms;
        if (key == "last-major-ms") return r->last_major_ms;
        if (key == "last-full-ms") return r->last_full_ms;
        if (key == "updated-at-ms") return r->updated_at_ms;
        // Tables without statistics (not evaluated yet) sort first, as null does.
        if (key == "data-files") return s ? SortValue(s->data_files) : SortValue();
        if (key == "delete-files") return s ? SortValue(s->delete_files) : SortValue();
        if (key == "total-bytes") return s ? SortValue(s->files_bytes) : SortValue();
        if (key == "health-score") {
          return s && s->health_score >= 0 ? SortValue(int64_t{s->health_score}) : SortValue();
        }
        return r->table_namespace + "." + r->table_name;  // identifier
      },
      [](const Row& row) {
        OJson j = RuntimeJson(*row.first);
        const optimize::TableStats* s = row.second;
        j["data-files"] = s ? OJson(s->data_files) : OJson(nullptr);
        j["delete-files"] = s ? OJson(s->delete_files) : OJson(nullptr);
        j["total-bytes"] = s ? OJson(s->files_bytes) : OJson(nullptr);
        j["health-score"] = s && s->health_score >= 0 ? OJson(s->health_score) : OJson(nullptr);
        return j;
      });
}

Result<ManagementApi::RuntimesView> ManagementApi::AllRuntimes() {
  // The optimizer's copy in memory is the one it saves to the metastore; reading it keeps a
  // list request off the metastore connection the API's requests share.
  if (options_.optimizer != nullptr) return options_.optimizer->TablesView();
  std::lock_guard lock(store_mu_);
  FLOE_ASSIGN_OR_RETURN(std::vector<metastore::TableRuntimeRecord> saved,
                        store_->ListTableRuntimes());
  // In byte order, as the optimizer's (the database's collation may differ).
  std::sort(saved.begin(), saved.end(), [](const auto& a, const auto& b) {
    return std::tie(a.catalog, a.table_namespace, a.table_name) <
           std::tie(b.catalog, b.table_namespace, b.table_name);
  });
  return std::make_shared<const std::vector<metastore::TableRuntimeRecord>>(std::move(saved));
}

Result<HttpResponse> ManagementApi::Overview(Call& call) {
  std::vector<metastore::CatalogRecord> catalogs;
  {
    std::lock_guard lock(store_mu_);
    FLOE_ASSIGN_OR_RETURN(catalogs, store_->ListCatalogs());
  }
  FLOE_ASSIGN_OR_RETURN(RuntimesView tables, AllRuntimes());
  OJson by_type = OJson::object();
  int64_t catalog_count = 0;
  for (const auto& c : catalogs) {
    if (!call.CanRead(c.name)) continue;
    ++catalog_count;
    std::string type(metastore::CatalogKindName(c.kind));
    by_type[type] = by_type.value(type, 0) + 1;
  }
  OJson by_status = OJson::object();
  for (std::string_view s : kTableStatuses) {
    by_status[std::string(s)] = 0;
  }
  int64_t table_count = 0;
  for (const auto& t : *tables) {
    if (!call.CanRead(t.catalog)) continue;
    ++table_count;
    by_status[t.status] = by_status.value(t.status, 0) + 1;
  }
  OJson j = OJson::object();
  j["catalogs"] = catalog_count;
  j["catalogs-by-type"] = std::move(by_type);
  j["tables"] = table_count;
  j["tables-by-status"] = std::move(by_status);
  OJson optimizer = OJson::object();
  optimizer["enabled"] = options_.optimizer != nullptr;
  optimizer["threads"] = options_.optimizer ? options_.optimizer->threads() : 0;
  optimizer["queued-tables"] = options_.optimizer ? options_.optimizer->QueuedCount() : 0;
  optimizer["running-tables"] = options_.optimizer ? options_.optimizer->RunningCount() : 0;
  j["optimizer"] = std::move(optimizer);
  if (options_.key_index != nullptr) {
    const ingest::KeyIndexStats k = options_.key_index->stats();
    OJson index = OJson::object();
    index["memory-bytes"] = k.memory_bytes;
    index["memory-limit-bytes"] = k.memory_limit_bytes;
    index["disk-bytes"] = k.disk_bytes;
    index["entries"] = k.keys;
    index["rebuilds"] = k.rebuilds;
    index["catch-ups"] = k.catch_ups;
    j["key-index"] = std::move(index);
  } else {
    j["key-index"] = OJson();
  }
  return JsonResponse(200, j);
}

}  // namespace floe::manage
