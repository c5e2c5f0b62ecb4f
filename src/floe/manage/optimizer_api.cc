// The management API's optimizer routes (docs/optimizer-groups.md, docs/management-api.md):
//
//   GET    /api/v1/optimizer-groups                 groups with threads, queue, throughput
//   POST   /api/v1/optimizer-groups                 create {name, scheduling-policy, properties}
//   GET    /api/v1/optimizer-groups/{group}
//   DELETE /api/v1/optimizer-groups/{group}         409 while tables or optimizers use it
//   GET    /api/v1/optimizers                       registered optimizers
//   POST   /api/v1/optimizers/{id}/drain            no new tasks for it
//   task protocol (DESIGN.md §6), the optimizer's token in X-Floe-Optimizer-Token:
//   POST   /api/v1/optimizers                       register {group, threads, memory-mb}
//   POST   /api/v1/optimizers/{id}/heartbeat        -> {draining}
//   POST   /api/v1/optimizers/{id}/poll             {thread} -> 200 task | 204
//   POST   /api/v1/optimizers/{id}/ack              {process-id, task-id, attempt}
//   POST   /api/v1/optimizers/{id}/complete         {..., output | error}; 409 when stale
//   DELETE /api/v1/optimizers/{id}                  unregister
//   and per table (under /api/v1/catalogs/{c}/namespaces/{ns}/tables/{t}):
//   POST   .../pause, .../resume
//   POST   .../optimizing-processes/{process-id}/cancel
//   GET    .../optimizing-processes/{process-id}/tasks
//   GET    .../maintenance-runs
#include <charconv>

#include <fmt/format.h>

#include "floe/manage/api_util.h"
#include "floe/manage/management_api.h"

namespace floe::manage {

using http::HttpResponse;
using internal::OJson;

namespace {

constexpr std::string_view kTokenHeader = "x-floe-optimizer-token";

Result<int64_t> PathInt(std::string_view text, std::string_view what) {
  int64_t v = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || end != text.data() + text.size()) {
    return Status::InvalidArgument("{} must be an integer, not '{}'", what, text);
  }
  return v;
}

Result<int64_t> BodyInt(const OJson& body, std::string_view key) {
  auto it = body.find(key);
  if (it == body.end() || !it->is_number_integer()) {
    return Status::InvalidArgument("'{}' must be an integer", key);
  }
  return it->get<int64_t>();
}

OJson GroupJson(const optimize::OptimizingService::GroupView& g) {
  OJson j = OJson::object();
  j["name"] = g.record.name;
  j["kind"] = g.record.name == "local" ? "local" : "external";
  j["scheduling-policy"] = g.record.scheduling_policy;
  OJson props = OJson::object();
  for (const auto& [k, v] : g.record.properties) props[k] = v;
  j["properties"] = std::move(props);
  j["created-at-ms"] = g.record.created_at_ms;
  j["optimizers"] = g.stats.optimizers;
  j["threads"] = g.stats.threads;
  j["tables"] = g.tables;
  j["processes"] = g.stats.processes;
  j["queued-tasks"] = g.stats.queued_tasks;
  j["running-tasks"] = g.stats.running_tasks;
  j["completed-tasks"] = g.stats.completed_tasks;
  j["failed-tasks"] = g.stats.failed_tasks;
  // Throughput of a busy thread: input bytes of successful tasks per second of their
  // execution.
  j["completed-bytes"] = g.stats.completed_bytes;
  j["busy-ms"] = g.stats.busy_ms;
  // Thread CPU time of evaluation, tasks and commits (busy-ms is tasks' wall time).
  j["cpu-seconds"] = g.cpu_seconds;
  j["throughput-bytes-per-second"] = g.stats.busy_ms > 0
                                         ? static_cast<double>(g.stats.completed_bytes) * 1000.0 /
                                               static_cast<double>(g.stats.busy_ms)
                                         : 0.0;
  return j;
}

OJson OptimizerJson(const optimize::OptimizerInfo& o) {
  return OJson{{"id", o.id},
               {"group", o.group},
               {"kind", o.local ? "local" : "standalone"},
               {"threads", o.threads},
               {"memory-mb", o.memory_mb},
               {"draining", o.draining},
               {"registered-at-ms", o.registered_ms},
               {"heartbeat-at-ms", o.heartbeat_ms},
               {"running-tasks", o.running_tasks},
               {"completed-tasks", o.completed_tasks},
               {"failed-tasks", o.failed_tasks},
               {"cpu-seconds", o.cpu_seconds}};
}

OJson TaskJson(const metastore::OptimizingTaskRecord& t) {
  OJson j = OJson::object();
  j["task-id"] = t.task_id;
  j["status"] = t.status;
  j["attempt"] = t.attempt;
  j["retries"] = t.retries;
  j["optimizer"] = t.optimizer;
  j["partition"] = t.partition_key;
  j["input-files"] = t.input_files;
  j["input-bytes"] = t.input_bytes;
  j["output-files"] = t.output_files;
  j["output-bytes"] = t.output_bytes;
  j["rows"] = t.rows_read;
  j["start-time-ms"] = t.start_ms;
  j["end-time-ms"] = t.end_ms;
  j["duration-ms"] = t.end_ms > 0 && t.start_ms > 0 ? t.end_ms - t.start_ms : 0;
  if (!t.error.empty()) j["error"] = t.error;
  return j;
}

OJson RunJson(const metastore::MaintenanceRunRecord& r) {
  OJson j = OJson{{"run-id", r.run_id},
                  {"kind", r.kind},
                  {"status", r.status},
                  {"start-time-ms", r.start_ms},
                  {"end-time-ms", r.end_ms},
                  {"duration-ms", r.end_ms - r.start_ms},
                  {"expired-snapshots", r.expired_snapshots},
                  {"deleted-files", r.deleted_files}};
  if (!r.error.empty()) j["error"] = r.error;
  return j;
}

}  // namespace

std::optional<Result<HttpResponse>> ManagementApi::DispatchOptimizer(
    Call& call, const std::vector<std::string>& seg) {
  if (seg.empty() || (seg[0] != "optimizer-groups" && seg[0] != "optimizers")) {
    return std::nullopt;
  }
  const std::string& method = call.request.method;
  const bool get = method == "GET" || method == "HEAD";
  auto not_allowed = [&](std::string_view allow) -> Result<HttpResponse> {
    HttpResponse r = rest::ErrorResponse(405, "MethodNotAllowedException",
                                         fmt::format("{} is not allowed here", method));
    r.headers.emplace_back("Allow", std::string(allow));
    return r;
  };
  // The methods of the route come first: a wrong one is a 405 whatever the server's state.
  std::string_view allow;
  if (seg.size() == 1) {
    allow = "GET, HEAD, POST";
  } else if (seg.size() == 2) {
    allow = seg[0] == "optimizer-groups" ? "GET, HEAD, DELETE" : "DELETE";
  } else if (seg.size() == 3 && seg[0] == "optimizers") {
    allow = "POST";
  } else {
    return Result<HttpResponse>(Status::NotFound("no such route"));
  }
  const bool allowed =
      (get && allow.starts_with("GET")) ||
      (method != "GET" && method != "HEAD" && allow.find(method) != std::string_view::npos);
  if (!allowed) return not_allowed(allow);
  // The task protocol: the optimizer proves who it is with its registration token.
  const std::string* token_header = nullptr;
  for (const auto& [name, value] : call.request.headers) {
    if (name == kTokenHeader) token_header = &value;
  }
  const bool protocol =
      seg[0] == "optimizers" && seg.size() >= 2 && !(seg.size() == 3 && seg[2] == "drain");
  if (protocol && (token_header == nullptr || token_header->empty())) {
    return Result<HttpResponse>(
        Status::Unauthenticated("the task protocol needs the {} header", kTokenHeader));
  }
  optimize::OptimizingService* service = options_.optimizer;
  if (service == nullptr) {
    if (seg[0] == "optimizer-groups" && seg.size() == 1 && get) {
      // Self-optimizing is off: no groups.
      auto params =
          internal::ParseListParams(call, {"name", "threads", "queued-tasks", "tables"}, "name");
      if (!params.ok()) return Result<HttpResponse>(params.status());
      return internal::Page({}, *params);
    }
    return Result<HttpResponse>(Status::FailedPrecondition(
        "self-optimizing is off on this server (optimizer.enabled false)"));
  }
  auto run = [&]() -> Result<HttpResponse> {
    if (seg[0] == "optimizer-groups") {
      if (seg.size() == 1) {
        if (get) {
          FLOE_ASSIGN_OR_RETURN(internal::ListParams params,
                                internal::ParseListParams(
                                    call, {"name", "threads", "queued-tasks", "tables"}, "name"));
          std::vector<OJson> items;
          for (const auto& g : service->Groups()) {
            if (!internal::MatchesQuery(params, g.record.name)) continue;
            items.push_back(GroupJson(g));
          }
          return internal::Page(std::move(items), params);
        }
        if (method != "POST") return not_allowed("GET, HEAD, POST");
        FLOE_ASSIGN_OR_RETURN(OJson body, internal::ParseObjectBody(call.request, false));
        FLOE_RETURN_IF_ERROR(
            internal::CheckKnownFields(body, {"name", "scheduling-policy", "properties"}));
        FLOE_ASSIGN_OR_RETURN(auto name, internal::OptionalString(body, "name"));
        FLOE_ASSIGN_OR_RETURN(auto policy, internal::OptionalString(body, "scheduling-policy"));
        FLOE_ASSIGN_OR_RETURN(auto properties, internal::StringMap(body, "properties"));
        if (!name) return Status::InvalidArgument("'name' is required");
        metastore::OptimizerGroupRecord record;
        record.name = *name;
        record.scheduling_policy = policy.value_or("quota");
        record.properties = std::move(properties);
        FLOE_RETURN_IF_ERROR(service->CreateGroup(record));
        for (const auto& g : service->Groups()) {
          if (g.record.name == record.name) return internal::JsonResponse(201, GroupJson(g));
        }
        return Status::Internal("group {} vanished", record.name);
      }
      if (seg.size() != 2) return Status::NotFound("no such route");
      if (get) {
        for (const auto& g : service->Groups()) {
          if (g.record.name == seg[1]) return internal::JsonResponse(200, GroupJson(g));
        }
        return Status::NotFound("no optimizer group named '{}'", seg[1]);
      }
      if (method != "DELETE") return not_allowed("GET, HEAD, DELETE");
      FLOE_RETURN_IF_ERROR(service->DropGroup(seg[1]));
      return HttpResponse::NoContent();
    }

    // /optimizers...
    if (seg.size() == 1) {
      if (get) {
        FLOE_ASSIGN_OR_RETURN(internal::ListParams params,
                              internal::ParseListParams(call, {"id", "group"}, "id"));
        std::optional<std::string> group = call.Query("group");
        std::vector<OJson> items;
        for (const auto& o : service->Optimizers()) {
          if (group && *group != o.group) continue;
          if (!internal::MatchesQuery(params, o.id)) continue;
          items.push_back(OptimizerJson(o));
        }
        return internal::Page(std::move(items), params);
      }
      if (method != "POST") return not_allowed("GET, HEAD, POST");
      FLOE_ASSIGN_OR_RETURN(OJson body, internal::ParseObjectBody(call.request, false));
      FLOE_RETURN_IF_ERROR(internal::CheckKnownFields(body, {"group", "threads", "memory-mb"}));
      FLOE_ASSIGN_OR_RETURN(auto group, internal::OptionalString(body, "group"));
      FLOE_ASSIGN_OR_RETURN(int64_t threads, BodyInt(body, "threads"));
      int64_t memory_mb = 0;
      if (body.contains("memory-mb")) {
        FLOE_ASSIGN_OR_RETURN(memory_mb, BodyInt(body, "memory-mb"));
      }
      if (!group) return Status::InvalidArgument("'group' is required");
      if (threads < 1 || threads > 1024) {
        return Status::InvalidArgument("'threads' must be 1 to 1024");
      }
      FLOE_ASSIGN_OR_RETURN(
          optimize::OptimizerInfo info,
          service->RegisterOptimizer(*group, static_cast<int32_t>(threads), memory_mb));
      OJson j = OptimizerJson(info);
      j["token"] = info.token;
      return internal::JsonResponse(201, j);
    }
    if (seg.size() > 3) return Status::NotFound("no such route");
    const std::string& id = seg[1];
    if (seg.size() == 3 && seg[2] == "drain") {
      if (method != "POST") return not_allowed("POST");
      FLOE_RETURN_IF_ERROR(service->DrainOptimizer(id));
      return internal::JsonResponse(202, OJson{{"id", id}, {"draining", true}});
    }
    const std::string& token = *token_header;
    bool owns = false;
    for (const auto& o : service->tasks().Optimizers()) {
      if (o.id == id) owns = o.token == token;
    }
    if (!owns) return Status::Unauthenticated("unknown optimizer or token: register again");
    optimize::TaskQueue& queue = service->tasks();
    if (seg.size() == 2) {
      if (method != "DELETE") return not_allowed("DELETE");
      FLOE_RETURN_IF_ERROR(queue.Unregister(token));
      return HttpResponse::NoContent();
    }
    if (method != "POST") return not_allowed("POST");
    const std::string& action = seg[2];
    FLOE_ASSIGN_OR_RETURN(OJson body, internal::ParseObjectBody(call.request, true));
    if (action == "heartbeat") {
      FLOE_RETURN_IF_ERROR(queue.Heartbeat(token));
      FLOE_ASSIGN_OR_RETURN(bool draining, queue.Draining(token));
      return internal::JsonResponse(200, OJson{{"draining", draining}});
    }
    if (action == "poll") {
      FLOE_RETURN_IF_ERROR(internal::CheckKnownFields(body, {"thread"}));
      FLOE_ASSIGN_OR_RETURN(int64_t thread, BodyInt(body, "thread"));
      if (thread < 0 || thread > 1024) return Status::InvalidArgument("bad 'thread'");
      FLOE_ASSIGN_OR_RETURN(std::optional<optimize::Handout> h,
                            queue.Poll(token, static_cast<int32_t>(thread)));
      if (!h) return HttpResponse::NoContent();
      // The payload is JSON already: spliced in, not parsed again.
      std::string out = fmt::format(R"({{"process-id":{},"task-id":{},"attempt":{},"task":)",
                                    h->process_id, h->task_id, h->attempt);
      out += h->payload;
      out += '}';
      return HttpResponse::Json(200, std::move(out));
    }
    FLOE_ASSIGN_OR_RETURN(int64_t process_id, BodyInt(body, "process-id"));
    FLOE_ASSIGN_OR_RETURN(int64_t task_id, BodyInt(body, "task-id"));
    FLOE_ASSIGN_OR_RETURN(int64_t attempt, BodyInt(body, "attempt"));
    if (action == "ack") {
      FLOE_RETURN_IF_ERROR(internal::CheckKnownFields(body, {"process-id", "task-id", "attempt"}));
      FLOE_RETURN_IF_ERROR(queue.Ack(token, process_id, task_id, attempt));
      return HttpResponse::NoContent();
    }
    if (action == "complete") {
      FLOE_RETURN_IF_ERROR(internal::CheckKnownFields(
          body, {"process-id", "task-id", "attempt", "output", "error"}));
      auto output = body.find("output");
      auto error = body.find("error");
      if ((output == body.end()) == (error == body.end())) {
        return Status::InvalidArgument("a completion has either 'output' or 'error'");
      }
      Result<std::string> result = Status::Internal("unset");
      if (output != body.end()) {
        if (!output->is_object()) return Status::InvalidArgument("'output' must be an object");
        // Checked against the table's metadata when the process commits.
        result = output->dump();
      } else {
        if (!error->is_string()) return Status::InvalidArgument("'error' must be a string");
        result = Status::Internal("optimizer {}: {}", id, error->get<std::string>());
      }
      FLOE_RETURN_IF_ERROR(queue.Complete(token, process_id, task_id, attempt, result));
      return HttpResponse::NoContent();
    }
    return Status::NotFound("no such route");
  };
  return run();
}

std::optional<Result<HttpResponse>> ManagementApi::DispatchOptimizerTable(
    Call& call, const std::string& catalog_name, const catalog::TableIdentifier& id,
    const std::vector<std::string>& seg) {
  // seg: catalogs {c} namespaces {ns} tables {t} action [...]
  if (seg.size() < 7) return std::nullopt;
  const std::string& action = seg[6];
  const std::string& method = call.request.method;
  const bool get = method == "GET" || method == "HEAD";
  const bool pause = action == "pause" || action == "resume";
  const bool process_route = action == "optimizing-processes" && seg.size() == 9 &&
                             (seg[8] == "cancel" || seg[8] == "tasks");
  const bool runs = action == "maintenance-runs" && seg.size() == 7;
  if (!(pause && seg.size() == 7) && !process_route && !runs) return std::nullopt;
  auto not_allowed = [&](std::string_view allow) -> Result<HttpResponse> {
    HttpResponse r = rest::ErrorResponse(405, "MethodNotAllowedException",
                                         fmt::format("{} is not allowed here", method));
    r.headers.emplace_back("Allow", std::string(allow));
    return r;
  };
  const std::string_view allow =
      pause || (process_route && seg[8] == "cancel") ? "POST" : "GET, HEAD";
  if ((allow == "POST") != (method == "POST") || (allow != "POST" && !get)) {
    return not_allowed(allow);
  }
  optimize::OptimizingService* service = options_.optimizer;
  auto run = [&]() -> Result<HttpResponse> {
    if (service == nullptr) {
      return Status::FailedPrecondition(
          "self-optimizing is off on this server (optimizer.enabled false)");
    }
    FLOE_ASSIGN_OR_RETURN(auto pool, registry_->Get(catalog_name));
    {
      FLOE_ASSIGN_OR_RETURN(catalog::CatalogLease lease, pool->Acquire());
      FLOE_ASSIGN_OR_RETURN(bool exists, lease->TableExists(id));
      if (!exists) return Status::NotFound("Table does not exist: {}", id.ToString());
    }
    if (pause) {
      if (method != "POST") return not_allowed("POST");
      FLOE_RETURN_IF_ERROR(service->SetPaused(catalog_name, id, action == "pause"));
      const metastore::TableRuntimeRecord rt = service->TableRuntime(catalog_name, id);
      return internal::JsonResponse(200, OJson{{"catalog", catalog_name},
                                               {"identifier", id.ToString()},
                                               {"paused", rt.paused},
                                               {"status", rt.status},
                                               {"status-reason", rt.status_reason}});
    }
    if (runs) {
      if (!get) return not_allowed("GET, HEAD");
      FLOE_ASSIGN_OR_RETURN(
          internal::ListParams params,
          internal::ParseListParams(call, {"run-id", "start-time-ms", "duration-ms"}, "-run-id"));
      FLOE_ASSIGN_OR_RETURN(auto records, service->MaintenanceRuns(catalog_name, id, 10'000));
      std::vector<OJson> items;
      for (const auto& r : records) items.push_back(RunJson(r));
      return internal::Page(std::move(items), params);
    }
    FLOE_ASSIGN_OR_RETURN(int64_t process_id, PathInt(seg[7], "process-id"));
    if (seg[8] == "cancel") {
      if (method != "POST") return not_allowed("POST");
      FLOE_RETURN_IF_ERROR(service->CancelProcess(catalog_name, id, process_id));
      return internal::JsonResponse(
          202,
          OJson{{"process-id", process_id}, {"identifier", id.ToString()}, {"canceled", true}});
    }
    if (seg[8] == "tasks") {
      if (!get) return not_allowed("GET, HEAD");
      FLOE_ASSIGN_OR_RETURN(
          internal::ListParams params,
          internal::ParseListParams(call, {"task-id", "status", "duration-ms"}, "task-id"));
      // The process must be this table's: task ids are only unique within a process.
      std::vector<metastore::OptimizingProcessRecord> processes;
      {
        std::lock_guard lock(store_mu_);
        FLOE_ASSIGN_OR_RETURN(
            processes, store_->ListProcesses(catalog_name, id.ns.ToString(), id.name, 100'000));
      }
      bool found = false;
      for (const auto& p : processes) found |= p.process_id == process_id;
      if (!found) {
        return Status::NotFound("table {} has no optimizing process {}", id.ToString(), process_id);
      }
      FLOE_ASSIGN_OR_RETURN(auto tasks, service->ProcessTasks(process_id));
      std::vector<OJson> items;
      for (const auto& t : tasks) items.push_back(TaskJson(t));
      return internal::Page(std::move(items), params);
    }
    return Status::NotFound("no such route");
  };
  return run();
}

}  // namespace floe::manage
