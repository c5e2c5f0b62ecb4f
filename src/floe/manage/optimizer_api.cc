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

namespace {

Result<optimize::OptimizingService*> Enabled(optimize::OptimizingService* service) {
  if (service == nullptr) {
    return Status::FailedPrecondition(
        "self-optimizing is off on this server (optimizer.enabled false)");
  }
  return service;
}

// What every call of the task protocol checks first, in this order: the optimizer's token
// (it proves who it is with its registration token), that self-optimizing is on, that the
// token is the optimizer's; and for the POSTs the JSON body (empty is `{}`).
struct ProtocolCall {
  optimize::TaskQueue* queue = nullptr;
  std::string id;
  std::string token;
  OJson body;
};
Result<ProtocolCall> StartProtocol(optimize::OptimizingService* service,
                                   const ManagementApi::Call& call, bool with_body) {
  const std::string* token_header = nullptr;
  for (const auto& [name, value] : call.request.headers) {
    if (name == kTokenHeader) token_header = &value;
  }
  if (token_header == nullptr || token_header->empty()) {
    return Status::Unauthenticated("the task protocol needs the {} header", kTokenHeader);
  }
  FLOE_ASSIGN_OR_RETURN(optimize::OptimizingService * enabled, Enabled(service));
  ProtocolCall out;
  out.id = call.params.Get("optimizer");
  out.token = *token_header;
  bool owns = false;
  for (const auto& o : enabled->tasks().Optimizers()) {
    if (o.id == out.id) owns = o.token == out.token;
  }
  if (!owns) return Status::Unauthenticated("unknown optimizer or token: register again");
  out.queue = &enabled->tasks();
  if (with_body) {
    FLOE_ASSIGN_OR_RETURN(out.body, internal::ParseObjectBody(call.request, true));
  }
  return out;
}

// The task a call of ack or complete names.
struct TaskRef {
  int64_t process_id = 0;
  int64_t task_id = 0;
  int64_t attempt = 0;
};
Result<TaskRef> TaskRefOf(const OJson& body) {
  TaskRef ref;
  FLOE_ASSIGN_OR_RETURN(ref.process_id, BodyInt(body, "process-id"));
  FLOE_ASSIGN_OR_RETURN(ref.task_id, BodyInt(body, "task-id"));
  FLOE_ASSIGN_OR_RETURN(ref.attempt, BodyInt(body, "attempt"));
  return ref;
}

}  // namespace

Result<HttpResponse> ManagementApi::ListGroups(Call& call) {
  FLOE_ASSIGN_OR_RETURN(
      internal::ListParams params,
      internal::ParseListParams(call, {"name", "threads", "queued-tasks", "tables"}, "name"));
  std::vector<OJson> items;
  // Self-optimizing off: no groups.
  if (options_.optimizer == nullptr) return internal::Page({}, params);
  for (const auto& g : options_.optimizer->Groups()) {
    if (!internal::MatchesQuery(params, g.record.name)) continue;
    items.push_back(GroupJson(g));
  }
  return internal::Page(std::move(items), params);
}

Result<HttpResponse> ManagementApi::CreateGroup(Call& call) {
  FLOE_ASSIGN_OR_RETURN(optimize::OptimizingService * service, Enabled(options_.optimizer));
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

Result<HttpResponse> ManagementApi::GetGroup(Call& call) {
  FLOE_ASSIGN_OR_RETURN(optimize::OptimizingService * service, Enabled(options_.optimizer));
  const std::string& name = call.params.Get("group");
  for (const auto& g : service->Groups()) {
    if (g.record.name == name) return internal::JsonResponse(200, GroupJson(g));
  }
  return Status::NotFound("no optimizer group named '{}'", name);
}

Result<HttpResponse> ManagementApi::DropGroup(Call& call) {
  FLOE_ASSIGN_OR_RETURN(optimize::OptimizingService * service, Enabled(options_.optimizer));
  FLOE_RETURN_IF_ERROR(service->DropGroup(call.params.Get("group")));
  return HttpResponse::NoContent();
}

Result<HttpResponse> ManagementApi::ListOptimizers(Call& call) {
  FLOE_ASSIGN_OR_RETURN(optimize::OptimizingService * service, Enabled(options_.optimizer));
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

Result<HttpResponse> ManagementApi::RegisterOptimizer(Call& call) {
  FLOE_ASSIGN_OR_RETURN(optimize::OptimizingService * service, Enabled(options_.optimizer));
  FLOE_ASSIGN_OR_RETURN(OJson body, internal::ParseObjectBody(call.request, false));
  FLOE_RETURN_IF_ERROR(internal::CheckKnownFields(body, {"group", "threads", "memory-mb"}));
  FLOE_ASSIGN_OR_RETURN(auto group, internal::OptionalString(body, "group"));
  FLOE_ASSIGN_OR_RETURN(int64_t threads, BodyInt(body, "threads"));
  int64_t memory_mb = 0;
  if (body.contains("memory-mb")) {
    FLOE_ASSIGN_OR_RETURN(memory_mb, BodyInt(body, "memory-mb"));
  }
  if (!group) return Status::InvalidArgument("'group' is required");
  if (threads < 1 || threads > 1024) return Status::InvalidArgument("'threads' must be 1 to 1024");
  FLOE_ASSIGN_OR_RETURN(
      optimize::OptimizerInfo info,
      service->RegisterOptimizer(*group, static_cast<int32_t>(threads), memory_mb));
  OJson j = OptimizerJson(info);
  j["token"] = info.token;
  return internal::JsonResponse(201, j);
}

Result<HttpResponse> ManagementApi::UnregisterOptimizer(Call& call) {
  FLOE_ASSIGN_OR_RETURN(ProtocolCall p, StartProtocol(options_.optimizer, call, false));
  FLOE_RETURN_IF_ERROR(p.queue->Unregister(p.token));
  return HttpResponse::NoContent();
}

// Not part of the task protocol: an operator drains an optimizer, without its token.
Result<HttpResponse> ManagementApi::DrainOptimizer(Call& call) {
  FLOE_ASSIGN_OR_RETURN(optimize::OptimizingService * service, Enabled(options_.optimizer));
  const std::string& id = call.params.Get("optimizer");
  FLOE_RETURN_IF_ERROR(service->DrainOptimizer(id));
  return internal::JsonResponse(202, OJson{{"id", id}, {"draining", true}});
}

Result<HttpResponse> ManagementApi::Heartbeat(Call& call) {
  FLOE_ASSIGN_OR_RETURN(ProtocolCall p, StartProtocol(options_.optimizer, call, true));
  FLOE_RETURN_IF_ERROR(p.queue->Heartbeat(p.token));
  FLOE_ASSIGN_OR_RETURN(bool draining, p.queue->Draining(p.token));
  return internal::JsonResponse(200, OJson{{"draining", draining}});
}

Result<HttpResponse> ManagementApi::PollTask(Call& call) {
  FLOE_ASSIGN_OR_RETURN(ProtocolCall p, StartProtocol(options_.optimizer, call, true));
  FLOE_RETURN_IF_ERROR(internal::CheckKnownFields(p.body, {"thread"}));
  FLOE_ASSIGN_OR_RETURN(int64_t thread, BodyInt(p.body, "thread"));
  if (thread < 0 || thread > 1024) return Status::InvalidArgument("bad 'thread'");
  FLOE_ASSIGN_OR_RETURN(std::optional<optimize::Handout> h,
                        p.queue->Poll(p.token, static_cast<int32_t>(thread)));
  if (!h) return HttpResponse::NoContent();
  // The payload is JSON already: spliced in, not parsed again.
  std::string out = fmt::format(R"({{"process-id":{},"task-id":{},"attempt":{},"task":)",
                                h->process_id, h->task_id, h->attempt);
  out += h->payload;
  out += '}';
  return HttpResponse::Json(200, std::move(out));
}

Result<HttpResponse> ManagementApi::AckTask(Call& call) {
  FLOE_ASSIGN_OR_RETURN(ProtocolCall p, StartProtocol(options_.optimizer, call, true));
  FLOE_ASSIGN_OR_RETURN(TaskRef t, TaskRefOf(p.body));
  FLOE_RETURN_IF_ERROR(internal::CheckKnownFields(p.body, {"process-id", "task-id", "attempt"}));
  FLOE_RETURN_IF_ERROR(p.queue->Ack(p.token, t.process_id, t.task_id, t.attempt));
  return HttpResponse::NoContent();
}

Result<HttpResponse> ManagementApi::CompleteTask(Call& call) {
  FLOE_ASSIGN_OR_RETURN(ProtocolCall p, StartProtocol(options_.optimizer, call, true));
  FLOE_ASSIGN_OR_RETURN(TaskRef t, TaskRefOf(p.body));
  FLOE_RETURN_IF_ERROR(
      internal::CheckKnownFields(p.body, {"process-id", "task-id", "attempt", "output", "error"}));
  auto output = p.body.find("output");
  auto error = p.body.find("error");
  if ((output == p.body.end()) == (error == p.body.end())) {
    return Status::InvalidArgument("a completion has either 'output' or 'error'");
  }
  Result<std::string> result = Status::Internal("unset");
  if (output != p.body.end()) {
    if (!output->is_object()) return Status::InvalidArgument("'output' must be an object");
    // Checked against the table's metadata when the process commits.
    result = output->dump();
  } else {
    if (!error->is_string()) return Status::InvalidArgument("'error' must be a string");
    result = Status::Internal("optimizer {}: {}", p.id, error->get<std::string>());
  }
  FLOE_RETURN_IF_ERROR(p.queue->Complete(p.token, t.process_id, t.task_id, t.attempt, result));
  return HttpResponse::NoContent();
}

Result<HttpResponse> ManagementApi::UnknownOptimizerAction(Call& call) {
  FLOE_ASSIGN_OR_RETURN(ProtocolCall p, StartProtocol(options_.optimizer, call, true));
  FLOE_RETURN_IF_ERROR(TaskRefOf(p.body).status());
  return Status::NotFound("no such route");
}

namespace {

// What a table's optimizing control checks first: that self-optimizing is on and that the
// table exists.
Result<optimize::OptimizingService*> TableControl(optimize::OptimizingService* service,
                                                  catalog::CatalogRegistry& registry,
                                                  const std::string& catalog_name,
                                                  const catalog::TableIdentifier& id) {
  FLOE_ASSIGN_OR_RETURN(optimize::OptimizingService * enabled, Enabled(service));
  FLOE_ASSIGN_OR_RETURN(auto pool, registry.Get(catalog_name));
  FLOE_ASSIGN_OR_RETURN(catalog::CatalogLease lease, pool->Acquire());
  FLOE_ASSIGN_OR_RETURN(bool exists, lease->TableExists(id));
  if (!exists) return Status::NotFound("Table does not exist: {}", id.ToString());
  return enabled;
}

Result<HttpResponse> SetPaused(optimize::OptimizingService* service,
                               catalog::CatalogRegistry& registry, const std::string& catalog_name,
                               const catalog::TableIdentifier& id, bool paused) {
  FLOE_ASSIGN_OR_RETURN(optimize::OptimizingService * enabled,
                        TableControl(service, registry, catalog_name, id));
  FLOE_RETURN_IF_ERROR(enabled->SetPaused(catalog_name, id, paused));
  const metastore::TableRuntimeRecord rt = enabled->TableRuntime(catalog_name, id);
  return internal::JsonResponse(200, OJson{{"catalog", catalog_name},
                                           {"identifier", id.ToString()},
                                           {"paused", rt.paused},
                                           {"status", rt.status},
                                           {"status-reason", rt.status_reason}});
}

}  // namespace

Result<HttpResponse> ManagementApi::PauseTable(Call&, const std::string& catalog_name,
                                               const catalog::TableIdentifier& id) {
  return SetPaused(options_.optimizer, *registry_, catalog_name, id, true);
}

Result<HttpResponse> ManagementApi::ResumeTable(Call&, const std::string& catalog_name,
                                                const catalog::TableIdentifier& id) {
  return SetPaused(options_.optimizer, *registry_, catalog_name, id, false);
}

Result<HttpResponse> ManagementApi::MaintenanceRuns(Call& call, const std::string& catalog_name,
                                                    const catalog::TableIdentifier& id) {
  FLOE_ASSIGN_OR_RETURN(optimize::OptimizingService * service,
                        TableControl(options_.optimizer, *registry_, catalog_name, id));
  FLOE_ASSIGN_OR_RETURN(
      internal::ListParams params,
      internal::ParseListParams(call, {"run-id", "start-time-ms", "duration-ms"}, "-run-id"));
  FLOE_ASSIGN_OR_RETURN(auto records, service->MaintenanceRuns(catalog_name, id, 10'000));
  std::vector<OJson> items;
  for (const auto& r : records) items.push_back(RunJson(r));
  return internal::Page(std::move(items), params);
}

Result<HttpResponse> ManagementApi::CancelProcess(Call& call, const std::string& catalog_name,
                                                  const catalog::TableIdentifier& id) {
  FLOE_ASSIGN_OR_RETURN(optimize::OptimizingService * service,
                        TableControl(options_.optimizer, *registry_, catalog_name, id));
  FLOE_ASSIGN_OR_RETURN(int64_t process_id, PathInt(call.params.Get("process"), "process-id"));
  FLOE_RETURN_IF_ERROR(service->CancelProcess(catalog_name, id, process_id));
  return internal::JsonResponse(
      202, OJson{{"process-id", process_id}, {"identifier", id.ToString()}, {"canceled", true}});
}

Result<HttpResponse> ManagementApi::ProcessTasks(Call& call, const std::string& catalog_name,
                                                 const catalog::TableIdentifier& id) {
  FLOE_ASSIGN_OR_RETURN(optimize::OptimizingService * service,
                        TableControl(options_.optimizer, *registry_, catalog_name, id));
  FLOE_ASSIGN_OR_RETURN(int64_t process_id, PathInt(call.params.Get("process"), "process-id"));
  FLOE_ASSIGN_OR_RETURN(
      internal::ListParams params,
      internal::ParseListParams(call, {"task-id", "status", "duration-ms"}, "task-id"));
  // The process must be this table's: task ids are only unique within a process.
  std::vector<metastore::OptimizingProcessRecord> processes;
  {
    std::lock_guard lock(store_mu_);
    FLOE_ASSIGN_OR_RETURN(processes,
                          store_->ListProcesses(catalog_name, id.ns.ToString(), id.name, 100'000));
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

}  // namespace floe::manage
