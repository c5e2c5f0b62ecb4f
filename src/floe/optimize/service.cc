#include "floe/optimize/service.h"

#include <algorithm>
#include <charconv>
#include <set>
#include <utility>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "floe/base/executor.h"
#include "floe/base/json.h"
#include "floe/base/json_writer.h"
#include "floe/iceberg/expression.h"
#include "floe/iceberg/scan.h"
#include "floe/iceberg/table.h"
#include "floe/optimize/cleanup.h"
#include "floe/optimize/maintenance.h"
#include "floe/optimize/rewrite.h"
#include "floe/optimize/task_codec.h"

namespace floe::optimize {

namespace {

// {"event": event, k1: v1, ...}: the service's log lines.
std::string EventLine(std::string_view event,
                      std::initializer_list<std::pair<std::string_view, std::string_view>> fields) {
  std::string line;
  JsonWriter w(&line);
  w.BeginObject();
  w.Key("event");
  w.String(event);
  for (const auto& [k, v] : fields) {
    w.Key(k);
    w.String(v);
  }
  w.EndObject();
  return line;
}

constexpr std::string_view kLocalGroup = "local";
// How often the keeper applies the protocol timeouts, and how long an idle local thread
// waits before it polls again (a submit wakes it at once).
constexpr std::chrono::milliseconds kKeeperInterval{1000};
constexpr std::chrono::milliseconds kLocalPollInterval{500};

template <typename K>
const std::string& key_catalog(const K& key) {
  return std::get<0>(key);
}

std::string TableKey(const std::string& catalog, const std::string& ns, const std::string& name) {
  return catalog + "." + ns + "." + name;
}

int64_t SystemNowMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

}  // namespace

OptimizingService::OptimizingService(std::shared_ptr<catalog::CatalogRegistry> registry,
                                     OptimizingServiceOptions options)
    : registry_(std::move(registry)), options_(std::move(options)) {}

Result<std::unique_ptr<OptimizingService>> OptimizingService::Start(
    std::shared_ptr<catalog::CatalogRegistry> registry, OptimizingServiceOptions options) {
  if (options.threads < 0) return Status::InvalidArgument("optimizer threads must be >= 0");
  std::unique_ptr<OptimizingService> service(
      new OptimizingService(std::move(registry), std::move(options)));
  FLOE_ASSIGN_OR_RETURN(service->store_,
                        metastore::Metastore::Open(service->options_.metastore_uri));
  FLOE_ASSIGN_OR_RETURN(auto saved, service->store_->ListTableRuntimes());
  for (metastore::TableRuntimeRecord& r : saved) {
    // A process cut short by a stop or crash left nothing committed (commits are atomic):
    // the table is evaluated afresh.
    if (r.status != "idle") {
      r.status = "pending";
      r.status_reason = "the server restarted during optimizing";
    }
    Key key{r.catalog, r.table_namespace, r.table_name};
    service->runtimes_[key] = std::move(r);
    ++service->runtimes_version_;
  }
  service->next_process_ = service->Now() * 1000;
  service->next_maintenance_run_ = service->Now() * 1000;
  // Processes of a previous run were in memory only: their tasks are gone with them. They
  // are recorded as failed until their table's first evaluation finds whether the crash
  // came after their commit.
  for (auto& [key, r] : service->runtimes_) {
    auto processes = service->store_->ListProcesses(r.catalog, r.table_namespace, r.table_name, 5);
    if (!processes.ok()) continue;
    for (metastore::OptimizingProcessRecord& p : *processes) {
      if (p.status != "running") continue;
      p.status = "failed";
      p.error = "the server restarted during the process";
      p.end_time_ms = service->Now();
      (void)service->store_->SaveProcess(p);
      service->interrupted_[key].push_back(p);
    }
  }

  OptimizingService* raw = service.get();
  TaskQueueOptions queue_options;
  queue_options.now_ms = [raw] { return raw->Now(); };
  queue_options.heartbeat_timeout_ms = service->options_.heartbeat_timeout_ms;
  queue_options.ack_timeout_ms = service->options_.ack_timeout_ms;
  queue_options.execute_timeout_ms = service->options_.execute_timeout_ms;
  queue_options.on_finished = [raw] {
    {
      std::lock_guard lock(raw->mu_);
      raw->finished_pending_ = true;
    }
    raw->commit_cv_.notify_all();
  };
  queue_options.on_task_changed = [raw](int64_t process_id, int64_t task_id) {
    for (const QueuedTask& t : raw->tasks_->ProcessTasks(process_id)) {
      if (t.task_id == task_id) raw->SaveTask(t);
    }
    raw->task_cv_.notify_all();
  };
  service->tasks_ = std::make_unique<TaskQueue>(std::move(queue_options));
  FLOE_ASSIGN_OR_RETURN(auto groups, service->store_->ListGroups());
  bool has_local = false;
  for (const auto& g : groups) has_local |= g.name == kLocalGroup;
  if (!has_local) {
    metastore::OptimizerGroupRecord local;
    local.name = std::string(kLocalGroup);
    local.properties["description"] = "threads inside floe server";
    Status created = service->store_->CreateGroup(local);
    // Another server sharing the metastore may have created it first.
    if (!created.ok() && created.code() != StatusCode::kAlreadyExists) return created;
    FLOE_ASSIGN_OR_RETURN(groups, service->store_->ListGroups());
  }
  for (auto& g : groups) {
    FLOE_ASSIGN_OR_RETURN(SchedulingPolicy policy, ParseSchedulingPolicy(g.scheduling_policy));
    service->tasks_->PutGroup(g.name, policy);
    service->groups_[g.name] = std::move(g);
  }
  if (service->options_.threads > 0) {
    if (!service->options_.make_io) {
      return Status::InvalidArgument("the local optimizer threads need make_io");
    }
    FLOE_ASSIGN_OR_RETURN(
        OptimizerInfo local,
        service->tasks_->Register(std::string(kLocalGroup), service->options_.threads, 0, true));
    service->local_token_ = local.token;
  }
  for (int i = 0; i < std::max(1, service->options_.evaluator_threads); ++i) {
    service->workers_.emplace_back([raw] { raw->Worker(); });
  }
  for (int i = 0; i < service->options_.threads; ++i) {
    service->local_workers_.emplace_back([raw, i] { raw->LocalWorker(i); });
  }
  service->committer_ = std::thread([raw] { raw->Committer(); });
  service->scheduler_ = std::thread([raw] { raw->Scheduler(); });
  return service;
}

OptimizingService::~OptimizingService() { Stop(); }

void OptimizingService::Stop() {
  {
    std::lock_guard lock(mu_);
    if (stopping_) return;
    stopping_ = true;
  }
  work_cv_.notify_all();
  task_cv_.notify_all();
  stop_cv_.notify_all();
  commit_cv_.notify_all();
  if (scheduler_.joinable()) scheduler_.join();
  for (std::thread& t : workers_) t.join();
  workers_.clear();
  // The local threads finish the task they run; the committer then concludes what finished.
  for (std::thread& t : local_workers_) t.join();
  local_workers_.clear();
  if (committer_.joinable()) committer_.join();
}

int64_t OptimizingService::Now() const {
  return options_.now_ms ? options_.now_ms() : SystemNowMs();
}

void OptimizingService::Log(std::string_view line) const {
  if (options_.log) options_.log(line);
}

void OptimizingService::NotifyTableChanged(const std::string& catalog,
                                           const catalog::TableIdentifier& id) {
  Enqueue(Item{catalog, id, false, std::nullopt});
}

void OptimizingService::Trigger(const std::string& catalog, const catalog::TableIdentifier& id,
                                std::optional<OptimizingType> forced) {
  Enqueue(Item{catalog, id, /*manual=*/true, forced});
}

size_t OptimizingService::QueuedCount() const {
  std::lock_guard lock(mu_);
  return queue_.size();
}

size_t OptimizingService::RunningCount() const {
  std::lock_guard lock(mu_);
  return running_.size() + active_.size();
}

void OptimizingService::Enqueue(Item item) {
  {
    std::lock_guard lock(mu_);
    if (stopping_) return;
    Key key{item.catalog, item.id.ns.ToString(), item.id.name};
    if (!runtimes_.contains(key)) {
      // Listed from the moment it is known (a create, a commit, a refresh), not from its
      // first evaluation: at thousands of tables that can be minutes later. Saved to the
      // metastore once evaluated.
      metastore::TableRuntimeRecord r;
      r.catalog = std::get<0>(key);
      r.table_namespace = std::get<1>(key);
      r.table_name = std::get<2>(key);
      r.status = "idle";
      r.status_reason = "not evaluated yet";
      runtimes_.emplace(key, std::move(r));
      ++runtimes_version_;
    }
    if (!queued_.insert(key).second) {
      // Already waiting: a manual request upgrades the queued evaluation.
      if (item.manual) {
        for (Item& queued : queue_) {
          if (queued.catalog == item.catalog && queued.id == item.id) {
            queued.manual = true;
            if (item.forced) queued.forced = item.forced;
          }
        }
      }
      return;
    }
    queue_.push_back(std::move(item));
  }
  work_cv_.notify_one();
}

Status OptimizingService::ListAll(std::vector<Item>* out, std::set<std::string>* catalogs) {
  for (const std::string& name : registry_->Names()) {
    auto pool = registry_->Get(name);
    if (!pool.ok()) continue;  // removed meanwhile
    catalogs->insert(name);
    FLOE_ASSIGN_OR_RETURN(catalog::CatalogLease lease, (*pool)->Acquire());
    std::vector<catalog::Namespace> pending = {catalog::Namespace{}};
    while (!pending.empty()) {
      catalog::Namespace ns = std::move(pending.back());
      pending.pop_back();
      FLOE_ASSIGN_OR_RETURN(std::vector<catalog::Namespace> children, lease->ListNamespaces(ns));
      for (catalog::Namespace& child : children) pending.push_back(std::move(child));
      if (ns.empty()) continue;
      auto tables = lease->ListTables(ns);
      if (!tables.ok()) {
        if (tables.status().code() == StatusCode::kNotFound) continue;  // dropped meanwhile
        return tables.status();
      }
      for (catalog::TableIdentifier& id : *tables) {
        out->push_back(Item{name, std::move(id), false, std::nullopt});
      }
    }
  }
  return Status::OK();
}

void OptimizingService::RefreshAll() {
  std::vector<Item> items;
  std::set<std::string> catalogs;
  Status st = ListAll(&items, &catalogs);
  if (!st.ok()) Log(EventLine("optimizer-refresh-failed", {{"error", st.ToString()}}));
  std::vector<Key> gone;
  if (st.ok()) {
    std::map<std::string, std::map<Key, catalog::TableIdentifier>> listed;
    for (const Item& item : items) {
      listed[item.catalog].emplace(Key{item.catalog, item.id.ns.ToString(), item.id.name}, item.id);
    }
    std::lock_guard lock(mu_);
    // Dropped tables no longer constrain anyone's cleaning.
    std::erase_if(table_locations_, [&](const auto& entry) {
      auto it = listed.find(std::get<0>(entry.first));
      return it == listed.end() || !it->second.contains(entry.first);
    });
    // Tables dropped by another engine, or whose catalog was removed: their state goes. A
    // table its catalog no longer lists is evaluated, and forgotten only when that finds it
    // gone (one created after the listing is evaluated like any other).
    for (const auto& [key, r] : runtimes_) {
      const std::string& catalog = std::get<0>(key);
      if (!catalogs.contains(catalog)) {
        if (!registry_->Contains(catalog)) gone.push_back(key);
        continue;
      }
      auto it = listed.find(catalog);
      if (it != listed.end() && it->second.contains(key)) continue;
      auto ns = catalog::ParseNamespace(std::get<1>(key));
      if (ns.ok()) {
        items.push_back(Item{catalog, catalog::TableIdentifier{std::move(*ns), std::get<2>(key)},
                             false, std::nullopt});
      }
    }
    listed_tables_ = std::move(listed);
  }
  for (const Key& key : gone) ForgetTable(key);
  for (Item& item : items) Enqueue(std::move(item));
}

void OptimizingService::ForgetTable(const Key& key) {
  {
    std::lock_guard lock(mu_);
    if (runtimes_.erase(key) > 0) ++runtimes_version_;
    if (stats_.erase(key) > 0) ++stats_version_;
    last_expire_ms_.erase(key);
    last_clean_ms_.erase(key);
    last_manifest_check_ms_.erase(key);
    last_metadata_clean_.erase(key);
    table_locations_.erase(key);
    last_data_expire_ms_.erase(key);
    last_tag_check_ms_.erase(key);
    conversion_due_ms_.erase(key);
    interrupted_.erase(key);
  }
  std::lock_guard lock(store_mu_);
  Status st = store_->DeleteTableRuntime(std::get<0>(key), std::get<1>(key), std::get<2>(key));
  if (!st.ok()) Log(EventLine("optimizer-state-not-saved", {{"error", st.ToString()}}));
}

void OptimizingService::Scheduler() {
  auto next_refresh = std::chrono::steady_clock::now();
  while (true) {
    if (std::chrono::steady_clock::now() >= next_refresh) {
      RefreshAll();
      next_refresh = std::chrono::steady_clock::now() + options_.refresh_interval;
    }
    tasks_->Expire();
    // Tables whose equality-delete conversion is due (Evaluate set the time).
    std::vector<Key> due;
    {
      std::lock_guard lock(mu_);
      const int64_t now = Now();
      for (auto it = conversion_due_ms_.begin(); it != conversion_due_ms_.end();) {
        if (it->second > now) {
          ++it;
          continue;
        }
        due.push_back(it->first);
        it = conversion_due_ms_.erase(it);
      }
    }
    for (const Key& k : due) {
      auto ns = catalog::ParseNamespace(std::get<1>(k));
      if (ns.ok()) {
        Enqueue(Item{std::get<0>(k), catalog::TableIdentifier{std::move(*ns), std::get<2>(k)},
                     false, std::nullopt});
      }
    }
    std::unique_lock lock(mu_);
    auto wait = std::min<std::chrono::milliseconds>(kKeeperInterval, options_.refresh_interval);
    // A conversion due before the next tick wakes the scheduler at its time (a 1 s tick
    // would eat most of a short max age); Evaluate and Conclude wake it when they add one.
    const int64_t now = Now();
    for (const auto& [k, due_ms] : conversion_due_ms_) {
      wait = std::min(wait, std::chrono::milliseconds(std::max<int64_t>(0, due_ms - now)));
    }
    stop_cv_.wait_for(lock, wait, [this] { return stopping_ || conversion_due_changed_; });
    if (stopping_) return;
    conversion_due_changed_ = false;
  }
}

void OptimizingService::LocalWorker(int32_t thread) {
  while (true) {
    {
      std::lock_guard lock(mu_);
      if (stopping_) return;
    }
    auto handout = tasks_->Poll(local_token_, thread);
    if (!handout.ok() || !handout->has_value()) {
      std::unique_lock lock(mu_);
      task_cv_.wait_for(lock, kLocalPollInterval, [this] { return stopping_; });
      continue;
    }
    const Handout h = std::move(**handout);
    if (!tasks_->Ack(local_token_, h.process_id, h.task_id, h.attempt).ok()) continue;
    Result<std::string> output = Status::Internal("not run");
    std::unique_ptr<io::FileIO> io;
    std::optional<TaskOutput> written;
    auto input = DecodeTaskInput(h.payload);
    if (!input.ok()) {
      output = input.status();
    } else {
      auto made = options_.make_io(input->io_properties);
      if (!made.ok()) {
        output = made.status();
      } else {
        io = std::move(*made);
        auto ran = RunTask(*input, *io, h.attempt, LocalExecuteOptions());
        if (ran.ok()) {
          output = EncodeTaskOutput(*ran);
          written = std::move(*ran);
        } else {
          output = ran.status();
        }
      }
    }
    Status completed = tasks_->Complete(local_token_, h.process_id, h.task_id, h.attempt, output);
    // Refused (the process was canceled or the attempt timed out): the files are nobody's.
    if (!completed.ok() && written && io) DeleteTaskOutput(*written, *io);
  }
}

ExecuteOptions OptimizingService::LocalExecuteOptions() {
  ExecuteOptions local;
  if (options_.memory_mb > 0) {
    local.memory_budget_bytes = (options_.memory_mb << 20) * 3 / 4 / std::max(options_.threads, 1);
  }
  local.spill_dir = options_.spill_dir;
  local.delete_cache = &delete_cache_;
  return local;
}

void OptimizingService::Committer() {
  while (true) {
    bool stop = false;
    {
      std::unique_lock lock(mu_);
      commit_cv_.wait(lock, [this] { return stopping_ || finished_pending_; });
      finished_pending_ = false;
      stop = stopping_;
    }
    for (FinishedProcess& f : tasks_->TakeFinished()) Conclude(std::move(f));
    if (stop) return;
  }
}

void OptimizingService::AddCpu(const Key& key, const std::string& group,
                               const std::string& optimizer, int64_t nanos) {
  if (nanos <= 0) return;
  const double seconds = static_cast<double>(nanos) / 1e9;
  std::lock_guard lock(mu_);
  counters_.busy_seconds += seconds;
  counters_.cpu_seconds_by_table[key] += seconds;
  // A table not planned yet has no group: its evaluation is the server's own work.
  counters_.cpu_seconds_by_group[group.empty() ? std::string(kLocalGroup) : group] += seconds;
  if (!optimizer.empty()) counters_.cpu_seconds_by_optimizer[optimizer] += seconds;
}

void OptimizingService::SaveTask(const QueuedTask& t) {
  metastore::OptimizingTaskRecord r;
  r.process_id = t.process_id;
  r.task_id = t.task_id;
  r.status = std::string(TaskStatusName(t.status));
  r.attempt = t.attempt;
  r.retries = t.retries;
  r.optimizer = t.optimizer_id;
  r.partition_key = t.partition_key;
  r.input_files = t.input_files;
  r.input_bytes = t.input_bytes;
  r.start_ms = t.scheduled_ms;
  r.end_ms = t.end_ms;
  r.error = t.error;
  if (t.status == TaskStatus::kSuccess) {
    // The figures of the output, without decoding its files.
    nlohmann::json out = ParseJson(t.output).value_or(nlohmann::json());
    if (out.is_object()) {
      r.rows_read = out.value("rows-read", int64_t{0});
      r.output_bytes = out.value("bytes-written", int64_t{0});
      for (const char* k : {"data-files", "delete-files"}) {
        if (out.contains(k) && out[k].is_array()) r.output_files += out[k].size();
      }
    }
  }
  std::lock_guard lock(store_mu_);
  Status st = store_->SaveTask(r);
  if (!st.ok()) Log(EventLine("optimizer-task-not-saved", {{"error", st.ToString()}}));
}

Result<std::vector<metastore::OptimizingTaskRecord>> OptimizingService::ProcessTasks(
    int64_t process_id) {
  std::lock_guard lock(store_mu_);
  return store_->ListTasks(process_id);
}

std::map<std::string, std::string> OptimizingService::IoProperties(const std::string& catalog) {
  std::lock_guard lock(store_mu_);
  auto record = store_->LoadCatalog(catalog);
  std::map<std::string, std::string> out;
  if (!record.ok()) return out;
  for (const auto& [k, v] : record->properties) {
    if (k.starts_with("s3.")) out[k] = v;
  }
  return out;
}

std::vector<OptimizingService::GroupView> OptimizingService::Groups() const {
  std::vector<GroupStats> stats = tasks_->Groups();
  std::lock_guard lock(mu_);
  std::vector<GroupView> out;
  for (const auto& [name, record] : groups_) {
    GroupView v;
    v.record = record;
    v.stats.name = name;
    for (const GroupStats& s : stats) {
      if (s.name == name) v.stats = s;
    }
    for (const auto& [key, r] : runtimes_) v.tables += r.optimizer_group == name ? 1 : 0;
    auto cpu = counters_.cpu_seconds_by_group.find(name);
    if (cpu != counters_.cpu_seconds_by_group.end()) v.cpu_seconds = cpu->second;
    out.push_back(std::move(v));
  }
  return out;
}

Status OptimizingService::CreateGroup(metastore::OptimizerGroupRecord record) {
  FLOE_ASSIGN_OR_RETURN(SchedulingPolicy policy, ParseSchedulingPolicy(record.scheduling_policy));
  record.created_at_ms = Now();
  {
    std::lock_guard lock(store_mu_);
    FLOE_RETURN_IF_ERROR(store_->CreateGroup(record));
  }
  tasks_->PutGroup(record.name, policy);
  std::vector<Item> waiting;
  {
    std::lock_guard lock(mu_);
    groups_[record.name] = record;
    // Tables that waited for this group get evaluated now.
    for (const auto& [key, r] : runtimes_) {
      if (r.optimizer_group == record.name && r.status == "pending") {
        auto ns = catalog::ParseNamespace(r.table_namespace);
        if (ns.ok()) {
          waiting.push_back(Item{r.catalog, catalog::TableIdentifier{std::move(*ns), r.table_name},
                                 false, std::nullopt});
        }
      }
    }
  }
  for (Item& item : waiting) Enqueue(std::move(item));
  return Status::OK();
}

Status OptimizingService::DropGroup(const std::string& name) {
  if (name == kLocalGroup) {
    return Status::FailedPrecondition("the local group is the server's own and cannot be dropped");
  }
  {
    std::lock_guard lock(mu_);
    if (!groups_.contains(name)) return Status::NotFound("no optimizer group named '{}'", name);
    for (const auto& [key, r] : runtimes_) {
      if (r.optimizer_group == name) {
        return Status::FailedPrecondition(
            "optimizer group '{}' is used by table {}.{}.{} (self-optimizing.group)", name,
            r.catalog, r.table_namespace, r.table_name);
      }
    }
  }
  FLOE_RETURN_IF_ERROR(tasks_->RemoveGroup(name));
  {
    std::lock_guard lock(store_mu_);
    FLOE_RETURN_IF_ERROR(store_->DropGroup(name));
  }
  std::lock_guard lock(mu_);
  groups_.erase(name);
  return Status::OK();
}

std::vector<OptimizerInfo> OptimizingService::Optimizers() const {
  std::vector<OptimizerInfo> out = tasks_->Optimizers();
  std::lock_guard lock(mu_);
  for (OptimizerInfo& o : out) {
    o.token.clear();  // a secret: never shown
    auto it = counters_.cpu_seconds_by_optimizer.find(o.id);
    if (it != counters_.cpu_seconds_by_optimizer.end()) o.cpu_seconds = it->second;
  }
  return out;
}

Result<OptimizerInfo> OptimizingService::RegisterOptimizer(const std::string& group,
                                                           int32_t threads, int64_t memory_mb) {
  FLOE_ASSIGN_OR_RETURN(OptimizerInfo info, tasks_->Register(group, threads, memory_mb, false));
  // Tables that waited for an optimizer in this group get evaluated now.
  std::vector<Item> waiting;
  {
    std::lock_guard lock(mu_);
    for (const auto& [key, r] : runtimes_) {
      if (r.optimizer_group == group && r.status == "pending") {
        auto ns = catalog::ParseNamespace(r.table_namespace);
        if (ns.ok()) {
          waiting.push_back(Item{r.catalog, catalog::TableIdentifier{std::move(*ns), r.table_name},
                                 false, std::nullopt});
        }
      }
    }
  }
  for (Item& item : waiting) Enqueue(std::move(item));
  return info;
}

Status OptimizingService::CancelProcess(const std::string& catalog,
                                        const catalog::TableIdentifier& id, int64_t process_id) {
  {
    std::lock_guard lock(mu_);
    auto it = active_.find(process_id);
    if (it == active_.end() || it->second.key != Key{catalog, id.ns.ToString(), id.name}) {
      return Status::NotFound("process {} of {} is not running", process_id, id.ToString());
    }
  }
  return tasks_->Cancel(process_id);
}

Status OptimizingService::SetPaused(const std::string& catalog, const catalog::TableIdentifier& id,
                                    bool paused) {
  metastore::TableRuntimeRecord rt = Runtime(Key{catalog, id.ns.ToString(), id.name});
  rt.paused = paused;
  if (paused && (rt.status == "idle" || rt.status == "pending")) {
    rt.status = "idle";
    rt.status_reason = "paused";
  } else if (!paused && rt.status_reason == "paused") {
    rt.status_reason.clear();
  }
  Save(rt);
  if (!paused) Trigger(catalog, id, std::nullopt);
  return Status::OK();
}

void OptimizingService::Worker() {
  while (true) {
    Item item;
    Key key;
    {
      std::unique_lock lock(mu_);
      work_cv_.wait(lock, [this] {
        if (stopping_) return true;
        for (const Item& i : queue_) {
          if (!running_.contains(Key{i.catalog, i.id.ns.ToString(), i.id.name})) return true;
        }
        return false;
      });
      if (stopping_) return;
      // The first queued table nobody is optimizing.
      auto it = queue_.begin();
      for (; it != queue_.end(); ++it) {
        key = Key{it->catalog, it->id.ns.ToString(), it->id.name};
        if (!running_.contains(key)) break;
      }
      item = std::move(*it);
      queue_.erase(it);
      queued_.erase(key);
      running_.insert(key);
    }
    const int64_t cpu_before = ThreadCpuNanos();
    Status st = Evaluate(item);
    AddCpu(key, Runtime(key).optimizer_group, "", ThreadCpuNanos() - cpu_before);
    if (!st.ok()) {
      Log(EventLine(
          "optimizer-evaluation-failed",
          {{"catalog", item.catalog}, {"table", item.id.ToString()}, {"error", st.ToString()}}));
    }
    {
      std::lock_guard lock(mu_);
      running_.erase(key);
    }
    work_cv_.notify_all();
  }
}

metastore::TableRuntimeRecord OptimizingService::Runtime(const Key& key) const {
  std::lock_guard lock(mu_);
  auto it = runtimes_.find(key);
  if (it != runtimes_.end()) return it->second;
  metastore::TableRuntimeRecord r;
  r.catalog = std::get<0>(key);
  r.table_namespace = std::get<1>(key);
  r.table_name = std::get<2>(key);
  return r;
}

void OptimizingService::Save(metastore::TableRuntimeRecord record) {
  record.updated_at_ms = Now();
  {
    std::lock_guard lock(mu_);
    runtimes_[Key{record.catalog, record.table_namespace, record.table_name}] = record;
    ++runtimes_version_;
  }
  std::lock_guard lock(store_mu_);
  Status st = store_->SaveTableRuntime(record);
  if (!st.ok()) Log(EventLine("optimizer-state-not-saved", {{"error", st.ToString()}}));
}

void OptimizingService::SaveMaintenanceRun(const metastore::MaintenanceRunRecord& record) {
  std::lock_guard lock(store_mu_);
  Status st = store_->SaveMaintenanceRun(record);
  if (!st.ok()) Log(EventLine("maintenance-run-not-saved", {{"error", st.ToString()}}));
}

Result<std::vector<metastore::MaintenanceRunRecord>> OptimizingService::MaintenanceRuns(
    const std::string& catalog, const catalog::TableIdentifier& id, int64_t limit) {
  std::lock_guard lock(store_mu_);
  return store_->ListMaintenanceRuns(catalog, id.ns.ToString(), id.name, limit);
}

void OptimizingService::SaveProcess(const metastore::OptimizingProcessRecord& record) {
  std::lock_guard lock(store_mu_);
  Status st = store_->SaveProcess(record);
  if (!st.ok()) Log(EventLine("optimizer-process-not-saved", {{"error", st.ToString()}}));
}

std::shared_ptr<const std::vector<TableStats>> OptimizingService::StatsView() const {
  std::lock_guard lock(mu_);
  if (!stats_view_ || stats_view_version_ != stats_version_) {
    auto view = std::make_shared<std::vector<TableStats>>();
    view->reserve(stats_.size());
    for (const auto& [key, s] : stats_) view->push_back(s);
    stats_view_ = std::move(view);
    stats_view_version_ = stats_version_;
  }
  return stats_view_;
}

OptimizerCounters OptimizingService::Counters() const {
  std::lock_guard lock(mu_);
  return counters_;
}

std::shared_ptr<const std::vector<metastore::TableRuntimeRecord>> OptimizingService::TablesView()
    const {
  std::lock_guard lock(mu_);
  if (!tables_view_ || tables_view_version_ != runtimes_version_) {
    auto view = std::make_shared<std::vector<metastore::TableRuntimeRecord>>();
    view->reserve(runtimes_.size());
    for (const auto& [key, r] : runtimes_) view->push_back(r);
    tables_view_ = std::move(view);
    tables_view_version_ = runtimes_version_;
  }
  return tables_view_;
}

void OptimizingService::MaybeExpireSnapshots(const Key& key, const std::string& name,
                                             iceberg::Table& table) {
  const int64_t now = Now();
  {
    std::lock_guard lock(mu_);
    auto it = last_expire_ms_.find(key);
    if (it != last_expire_ms_.end() && now - it->second < options_.maintenance_interval_ms) {
      // A table over snapshot.keep.max-count expires sooner, at most every interval / 60.
      auto over = MaintenanceConfig::FromProperties(table.metadata()->properties);
      if (!over.ok() || !OverSnapshotCount(*table.metadata(), *over) ||
          now - it->second < options_.maintenance_interval_ms / 60) {
        return;
      }
    }
    last_expire_ms_[key] = now;
  }
  auto config = MaintenanceConfig::FromProperties(table.metadata()->properties);
  if (!config.ok()) {
    Log(EventLine(
        "maintenance-config-invalid",
        {{"catalog", std::get<0>(key)}, {"table", name}, {"error", config.status().ToString()}}));
    return;
  }
  // The snapshot a running process is based on stays (DESIGN.md §4 rule 5).
  std::set<int64_t> protected_ids;
  {
    std::lock_guard lock(mu_);
    for (const auto& [pid, a] : active_) {
      if (a.key == key && a.record.planned_snapshot_id) {
        protected_ids.insert(*a.record.planned_snapshot_id);
      }
    }
  }
  metastore::MaintenanceRunRecord run = NewMaintenanceRun(key, "expire-snapshots", now);
  auto expired = ExpireTableSnapshots(table, *config, now, protected_ids);
  run.end_ms = Now();
  if (!expired.ok()) {
    run.status = "failed";
    run.error = expired.status().ToString();
    SaveMaintenanceRun(run);
    Log(EventLine(
        "snapshot-expiry-failed",
        {{"catalog", std::get<0>(key)}, {"table", name}, {"error", expired.status().ToString()}}));
    return;
  }
  // Disabled (table-expire.enabled=false) or nothing old enough: no run to record.
  if (!expired->has_value()) return;
  const iceberg::ExpireSnapshotsResult& r = **expired;
  const int64_t files = r.deleted_data_files + r.deleted_position_delete_files +
                        r.deleted_equality_delete_files + r.deleted_manifests +
                        r.deleted_manifest_lists + r.deleted_statistics_files;
  run.status = "success";
  run.expired_snapshots = static_cast<int64_t>(r.expired_snapshot_ids.size());
  run.deleted_files = files;
  if (r.failed_deletes > 0)
    run.error = fmt::format("{} files could not be deleted", r.failed_deletes);
  SaveMaintenanceRun(run);
  {
    std::lock_guard lock(mu_);
    counters_.expired_snapshots += static_cast<int64_t>(r.expired_snapshot_ids.size());
    counters_.expired_files_deleted += files;
  }
  std::string line;
  JsonWriter w(&line);
  w.BeginObject();
  w.Key("event");
  w.String("snapshots-expired");
  w.Key("catalog");
  w.String(std::get<0>(key));
  w.Key("table");
  w.String(name);
  w.Key("snapshots");
  w.Int(static_cast<int64_t>(r.expired_snapshot_ids.size()));
  w.Key("data_files");
  w.Int(r.deleted_data_files);
  w.Key("delete_files");
  w.Int(r.deleted_position_delete_files + r.deleted_equality_delete_files);
  w.Key("files");
  w.Int(files);
  w.Key("failed_deletes");
  w.Int(r.failed_deletes);
  w.EndObject();
  Log(line);
}

metastore::MaintenanceRunRecord OptimizingService::NewMaintenanceRun(const Key& key,
                                                                     std::string kind,
                                                                     int64_t start_ms) {
  metastore::MaintenanceRunRecord run;
  {
    std::lock_guard lock(mu_);
    run.run_id = ++next_maintenance_run_;
  }
  run.catalog = std::get<0>(key);
  run.table_namespace = std::get<1>(key);
  run.table_name = std::get<2>(key);
  run.kind = std::move(kind);
  run.start_ms = start_ms;
  return run;
}

void OptimizingService::NoteTableLocations(const Key& key, const iceberg::TableMetadata& metadata) {
  std::vector<catalog::NormalizedLocation> locations;
  std::vector<std::string> names = OrphanCleaningDirectories(metadata);
  names.push_back(metadata.location);
  for (const std::string& name : names) {
    // A location that does not normalize is refused wherever it would be used; it
    // constrains nothing here.
    if (auto normalized = catalog::NormalizeLocation(name); normalized.ok()) {
      locations.push_back(std::move(*normalized));
    }
  }
  std::lock_guard lock(mu_);
  table_locations_[key] = std::move(locations);
}

Result<std::vector<catalog::NormalizedLocation>> OptimizingService::OtherTableLocations(
    const Key& key, catalog::Catalog& catalog) {
  std::vector<std::pair<Key, catalog::TableIdentifier>> unknown;
  {
    std::lock_guard lock(mu_);
    auto listed = listed_tables_.find(std::get<0>(key));
    if (listed != listed_tables_.end()) {
      for (const auto& [other, id] : listed->second) {
        if (other != key && !table_locations_.contains(other)) unknown.emplace_back(other, id);
      }
    }
  }
  for (const auto& [other, id] : unknown) {
    auto ops = catalog.LoadTable(id);
    if (!ops.ok() && ops.status().code() == StatusCode::kNotFound) continue;  // dropped
    if (!ops.ok()) return ops.status();
    FLOE_ASSIGN_OR_RETURN(auto loaded, iceberg::Table::Load(**ops));
    NoteTableLocations(other, *loaded->metadata());
  }
  std::vector<catalog::NormalizedLocation> out;
  std::lock_guard lock(mu_);
  for (const auto& [other, locations] : table_locations_) {
    if (other == key || std::get<0>(other) != std::get<0>(key)) continue;
    out.insert(out.end(), locations.begin(), locations.end());
  }
  return out;
}

void OptimizingService::MaybeCleanTable(const Key& key, const std::string& name,
                                        iceberg::Table& table, catalog::Catalog& catalog_of) {
  const int64_t now = Now();
  {
    std::lock_guard lock(mu_);
    // A running process reads the table's files and will commit against its snapshot:
    // cleaning waits for the next evaluation after it.
    if (active_by_table_.contains(key)) return;
    auto it = last_clean_ms_.find(key);
    if (it != last_clean_ms_.end() && now - it->second < 24 * options_.maintenance_interval_ms) {
      return;
    }
    last_clean_ms_[key] = now;
  }
  auto config = MaintenanceConfig::FromProperties(table.metadata()->properties);
  if (!config.ok()) return;  // MaybeExpireSnapshots logged it
  const std::string& catalog = std::get<0>(key);

  if (config->dangling_delete_cleaning_enabled) {
    metastore::MaintenanceRunRecord run =
        NewMaintenanceRun(key, "clean-dangling-delete-files", now);
    auto cleaned = CleanDanglingDeleteFiles(table);
    run.end_ms = Now();
    if (!cleaned.ok()) {
      run.status = "failed";
      run.error = cleaned.status().ToString();
      SaveMaintenanceRun(run);
      Log(EventLine("dangling-delete-cleaning-failed",
                    {{"catalog", catalog}, {"table", name}, {"error", run.error}}));
    } else if (cleaned->snapshot_id) {
      const int64_t removed =
          cleaned->position_delete_files_removed + cleaned->equality_delete_files_removed;
      run.status = "success";
      run.deleted_files = removed;
      SaveMaintenanceRun(run);
      {
        std::lock_guard lock(mu_);
        counters_.dangling_delete_files_removed += removed;
      }
      Log(EventLine("dangling-delete-files-removed",
                    {{"catalog", catalog},
                     {"table", name},
                     {"files", std::to_string(removed)},
                     {"snapshot_id", std::to_string(*cleaned->snapshot_id)}}));
    }
  }

  // gc.enabled=false: the table's files may be shared with other tables; never delete.
  if (config->orphan_cleaning_enabled && config->gc_enabled) {
    metastore::MaintenanceRunRecord run = NewMaintenanceRun(key, "clean-orphan-files", Now());
    // Confinement (location_policy.h): the directories must be the table's own, inside the
    // catalog's allowed locations, neither a root nor another table's. A refusal is kept as
    // the run's outcome, which the table's health shows, and logged.
    const std::vector<std::string> directories = OrphanCleaningDirectories(*table.metadata());
    Status scope = table.metadata()->location.empty()
                       ? Status::InvalidArgument("the table has no location: no directory to clean")
                       : Status::OK();
    if (scope.ok()) {
      auto others = OtherTableLocations(key, catalog_of);
      // The table's location too: one at a root, or around another table, is refused even
      // when its directories alone would not be.
      std::vector<std::string> checked = directories;
      checked.push_back(table.metadata()->location);
      scope =
          others.ok()
              ? catalog_of.location_policy().CheckCleanupScope(checked, *others)
              : Status(others.status().code(),
                       fmt::format("the locations of the catalog's other tables are unknown: {}",
                                   others.status().message()));
    }
    if (!scope.ok()) {
      run.end_ms = Now();
      run.status = "refused";
      run.error = std::string(scope.message());
      SaveMaintenanceRun(run);
      Log(EventLine("orphan-cleaning-refused",
                    {{"catalog", catalog}, {"table", name}, {"error", run.error}}));
      return;
    }
    auto cleaned = CleanOrphanFiles(table, run.start_ms, config->orphan_min_age_ms, directories);
    run.end_ms = Now();
    if (!cleaned.ok()) {
      run.status = "failed";
      run.error = cleaned.status().ToString();
      SaveMaintenanceRun(run);
      Log(EventLine("orphan-cleaning-failed",
                    {{"catalog", catalog}, {"table", name}, {"error", run.error}}));
      return;
    }
    const int64_t deleted = cleaned->content_files_deleted + cleaned->metadata_files_deleted;
    run.status = "success";
    run.deleted_files = deleted;
    if (cleaned->failed_deletes > 0) {
      run.error = fmt::format("{} files could not be deleted", cleaned->failed_deletes);
    }
    SaveMaintenanceRun(run);
    {
      std::lock_guard lock(mu_);
      counters_.orphan_files_deleted += deleted;
    }
    if (deleted > 0 || cleaned->failed_deletes > 0) {
      Log(EventLine("orphan-files-cleaned",
                    {{"catalog", catalog},
                     {"table", name},
                     {"content_files", std::to_string(cleaned->content_files_deleted)},
                     {"metadata_files", std::to_string(cleaned->metadata_files_deleted)},
                     {"bytes", std::to_string(cleaned->bytes_deleted)},
                     {"failed_deletes", std::to_string(cleaned->failed_deletes)}}));
    }
  }
}

void OptimizingService::ResolveInterrupted(const Key& key, const iceberg::TableMetadata& metadata) {
  std::vector<metastore::OptimizingProcessRecord> processes;
  {
    std::lock_guard lock(mu_);
    auto it = interrupted_.find(key);
    if (it == interrupted_.end()) return;
    processes = std::move(it->second);
    interrupted_.erase(it);
  }
  for (metastore::OptimizingProcessRecord& p : processes) {
    const std::string id = std::to_string(p.process_id);
    for (const iceberg::Snapshot& s : metadata.snapshots) {
      const std::string* committed_by = s.SummaryValue(kProcessIdSummaryKey);
      if (committed_by == nullptr || *committed_by != id) continue;
      p.status = "success";
      p.committed_snapshot_id = s.snapshot_id;
      p.error.clear();
      SaveProcess(p);
      Log(EventLine("optimizing-process-recovered",
                    {{"process_id", id}, {"snapshot_id", std::to_string(s.snapshot_id)}}));
      break;
    }
  }
}

Status OptimizingService::Evaluate(const Item& item) {
  const Key key{item.catalog, item.id.ns.ToString(), item.id.name};
  metastore::TableRuntimeRecord rt = Runtime(key);
  FLOE_ASSIGN_OR_RETURN(auto pool, registry_->Get(item.catalog));
  FLOE_ASSIGN_OR_RETURN(catalog::CatalogLease lease, pool->Acquire());
  auto ops = lease->LoadTable(item.id);
  if (!ops.ok()) {
    if (ops.status().code() != StatusCode::kNotFound) return ops.status();
    ForgetTable(key);  // dropped
    return Status::OK();
  }
  FLOE_ASSIGN_OR_RETURN(auto table, iceberg::Table::Load(**ops));
  NoteTableLocations(key, *table->metadata());
  ResolveInterrupted(key, *table->metadata());
  MaybeExpireSnapshots(key, item.id.ToString(), *table);
  MaybeCleanTable(key, item.id.ToString(), *table, *lease);
  MaybeExpireData(key, item.id.ToString(), *table);
  MaybeBoundMetadata(key, item.id.ToString(), *table, *lease);
  MaybeCreateTag(key, item.id.ToString(), *table);
  {
    // One process per table: a later commit or refresh looks at it again.
    std::lock_guard lock(mu_);
    if (active_by_table_.contains(key)) return Status::OK();
  }
  iceberg::TableMetadataPtr metadata = table->metadata();
  const iceberg::Snapshot* current = metadata->current_snapshot();
  {
    std::lock_guard lock(mu_);
    TableStats& stats = stats_[key];
    ++stats_version_;
    stats.catalog = item.catalog;
    stats.table_namespace = std::get<1>(key);
    stats.table_name = item.id.name;
    stats.snapshots = static_cast<int64_t>(metadata->snapshots.size());
    auto total = [current](std::string_view name) -> int64_t {
      const std::string* v = current ? current->SummaryValue(name) : nullptr;
      if (v == nullptr) return 0;
      int64_t n = 0;
      auto [end, ec] = std::from_chars(v->data(), v->data() + v->size(), n);
      return ec == std::errc() && end == v->data() + v->size() ? n : 0;
    };
    stats.data_files = total("total-data-files");
    stats.delete_files = total("total-delete-files");
    stats.records = total("total-records");
    stats.files_bytes = total("total-files-size");
    stats.equality_delete_records = total("total-equality-deletes");
    stats.position_delete_records = total("total-position-deletes");
  }

  auto config = OptimizingConfig::FromProperties(metadata->properties);
  if (!config.ok()) {
    rt.status = "idle";
    rt.status_reason = config.status().message();
    Save(rt);
    return Status::OK();
  }
  rt.optimizer_group = config->group;
  if (rt.paused) {
    if (rt.status != "idle" || rt.status_reason != "paused") {
      rt.status = "idle";
      rt.status_reason = "paused";
      Save(rt);
    }
    return Status::OK();
  }
  if (!config->enabled) {
    if (rt.status != "idle" || rt.status_reason != "self-optimizing.enabled is false") {
      rt.status = "idle";
      rt.status_reason = "self-optimizing.enabled is false";
      Save(rt);
    }
    return Status::OK();
  }
  if (current == nullptr ||
      (!item.manual && rt.last_optimized_snapshot_id == current->snapshot_id)) {
    return Status::OK();
  }
  const int64_t now = Now();
  rt.status = "planning";
  Save(rt);
  PlanOptions plan_options;
  plan_options.now_ms = now;
  plan_options.history = {rt.last_minor_ms, rt.last_major_ms, rt.last_full_ms};
  plan_options.available_threads =
      static_cast<int32_t>(std::max<int64_t>(1, tasks_->GroupThreads(config->group)));
  plan_options.forced = item.forced;
  plan_options.manifest_cache = &manifest_cache_;
  // self-optimizing.eq-delete.max-age-ms: live equality deletes are converted first, by a
  // plan of their own that neither waits for the triggers nor for min-plan-interval.
  std::optional<OptimizingPlan> conversion;
  std::string conversion_reason;
  bool conversion_pending = false;  // due later: this snapshot is not done with
  if (config->converts_equality_deletes() && !item.forced) {
    auto planned =
        PlanConversionSnapshot(metadata, table->io(), current->snapshot_id, *config, plan_options);
    if (!planned.ok()) {
      rt.status = "pending";
      rt.status_reason = fmt::format("plan failed: {}", planned.status().message());
      Save(rt);
      return planned.status();
    }
    if (!planned->plan.tasks.empty()) {
      const int64_t oldest = planned->oldest_commit_ms.value_or(0);
      // Half the age waits, so that the commits of a busy writer share one conversion; the
      // other half is the conversion's own time (queueing, reading keys, committing).
      const int64_t start_ms = oldest + config->eq_delete_max_age_ms / 2;
      if (!item.manual && now < start_ms) {
        {
          std::lock_guard lock(mu_);
          conversion_due_ms_[key] = start_ms;
          conversion_due_changed_ = true;
        }
        stop_cv_.notify_all();
        conversion_pending = true;
        // Not due yet: the scheduler queues the table then. The regular plan still goes
        // ahead, or a writer committing more often than max-age / 2 would keep the table's
        // compaction off for good.
      } else {
        conversion_reason =
            fmt::format("convert: {} equality-delete files, the oldest committed {} ms ago",
                        planned->equality_delete_files, now - oldest);
        conversion = std::move(planned->plan);
      }
    }
  }
  OptimizingPlan plan;
  if (conversion) {
    plan = std::move(*conversion);
  } else {
    auto planned = PlanSnapshot(metadata, table->io(), current->snapshot_id, *config, plan_options);
    if (!planned.ok()) {
      rt.status = "pending";
      rt.status_reason = fmt::format("plan failed: {}", planned.status().message());
      Save(rt);
      return planned.status();
    }
    plan = std::move(*planned);
  }
  const bool converting = plan.type == OptimizingType::kConvert;
  {
    const TableHealth health = SummarizeHealth(plan);
    std::lock_guard lock(mu_);
    TableStats& stats = stats_[key];
    ++stats_version_;
    stats.health_score = health.mean.total();
    stats.equality_delete_files = health.equality_delete_files;
    stats.position_delete_files = health.position_delete_files;
  }
  if (plan.tasks.empty()) {
    rt.status = "idle";
    rt.status_reason.clear();
    // A pending conversion must find the snapshot not evaluated yet when it is due.
    if (!conversion_pending) rt.last_optimized_snapshot_id = current->snapshot_id;
    Save(rt);
    return Status::OK();
  }
  if (!converting && !item.manual && rt.last_plan_ms > 0 &&
      now - rt.last_plan_ms < config->min_plan_interval_ms) {
    // Work to do, but the last process started too recently: a later refresh starts it.
    rt.status = "pending";
    rt.status_reason = "waiting for self-optimizing.min-plan-interval";
    Save(rt);
    return Status::OK();
  }
  bool group_exists = false;
  {
    std::lock_guard lock(mu_);
    group_exists = groups_.contains(config->group);
  }
  if (!group_exists) {
    rt.status = "pending";
    rt.status_reason = fmt::format("optimizer group {} does not exist", config->group);
    Save(rt);
    return Status::OK();
  }
  if (tasks_->GroupThreads(config->group) == 0) {
    // Registering an optimizer with the group queues the table again.
    rt.status = "pending";
    rt.status_reason = fmt::format("no optimizer in group {}", config->group);
    Save(rt);
    return Status::OK();
  }
  // A conversion does not count as a plan: conversions seconds apart must not hold the
  // table's regular optimizing off for good.
  if (!converting) rt.last_plan_ms = now;

  metastore::OptimizingProcessRecord process;
  {
    std::lock_guard lock(mu_);
    process.process_id = ++next_process_;
  }
  process.catalog = item.catalog;
  process.table_namespace = std::get<1>(key);
  process.table_name = item.id.name;
  process.optimizing_type = std::string(OptimizingTypeName(*plan.type));
  process.status = "running";
  process.planned_snapshot_id = current->snapshot_id;
  process.plan_time_ms = now;
  process.task_count = static_cast<int64_t>(plan.tasks.size());
  const PlanCounts counts = CountPlan(plan);
  process.rewritten_data_files = counts.rewritten_data_files;
  process.converted_data_files = counts.converted_data_files;
  process.removed_delete_files = counts.removed_delete_files;
  std::set<std::string> reasons;
  if (converting) {
    reasons.insert(conversion_reason);
  } else {
    for (const PartitionEvaluation& p : plan.partitions) {
      if (p.necessary && reasons.size() < 8) reasons.insert(p.reason);
    }
  }
  for (const std::string& r : reasons) {
    if (!process.reason.empty()) process.reason += "; ";
    process.reason += r;
  }
  // Every task is self-contained (task_codec.h): the same payload runs on a local thread
  // or a standalone optimizer.
  ProcessSubmission submission;
  submission.process_id = process.process_id;
  submission.group = config->group;
  submission.table = TableKey(item.catalog, process.table_namespace, process.table_name);
  submission.quota = config->quota;
  submission.max_retries = config->execute_num_retries;
  submission.allow_partial_commit = config->allow_partial_commit;
  submission.last_optimized_ms = std::max({rt.last_minor_ms, rt.last_major_ms, rt.last_full_ms});
  TaskInput input;
  input.table = submission.table;
  input.metadata = metadata;
  input.snapshot_id = current->snapshot_id;
  input.io_properties = IoProperties(item.catalog);
  input.execute.operation_id = table->operations().env().NewUuid();
  for (size_t i = 0; i < plan.tasks.size(); ++i) {
    input.task = plan.tasks[i];
    input.execute.task_id = static_cast<int64_t>(i);
    FLOE_ASSIGN_OR_RETURN(std::string payload, EncodeTaskInput(input));
    TaskSpec spec;
    spec.payload = std::move(payload);
    spec.partition_key = plan.tasks[i].partition_key;
    spec.input_files = static_cast<int64_t>(plan.tasks[i].rewrite_data.size() +
                                            plan.tasks[i].rewrite_pos_data.size());
    spec.input_bytes = plan.tasks[i].input_bytes;
    submission.tasks.push_back(std::move(spec));
  }
  SaveProcess(process);
  rt.status = process.optimizing_type;
  rt.status_reason.clear();
  Save(rt);
  {
    std::lock_guard lock(mu_);
    ActiveProcess active;
    active.key = key;
    active.id = item.id;
    active.type = *plan.type;
    active.group = config->group;
    active.plan = std::move(plan);
    active.record = process;
    active.table_location = metadata->location;
    active.started_ms = now;
    active.allow_partial_commit = config->allow_partial_commit;
    active.converts_equality_deletes = config->converts_equality_deletes();
    active.eq_delete_max_age_ms = config->eq_delete_max_age_ms;
    active_by_table_[key] = process.process_id;
    active_.emplace(process.process_id, std::move(active));
  }
  Status submitted = tasks_->Submit(std::move(submission));
  if (!submitted.ok()) {
    {
      std::lock_guard lock(mu_);
      active_.erase(process.process_id);
      active_by_table_.erase(key);
    }
    process.status = "failed";
    process.error = submitted.ToString();
    process.end_time_ms = Now();
    SaveProcess(process);
    rt.status = "pending";
    rt.status_reason = fmt::format("submit failed: {}", submitted.message());
    Save(rt);
    return submitted;
  }
  task_cv_.notify_all();
  return Status::OK();
}

void OptimizingService::Conclude(FinishedProcess finished) {
  ActiveProcess active;
  {
    std::lock_guard lock(mu_);
    auto it = active_.find(finished.process_id);
    if (it == active_.end()) return;
    active = std::move(it->second);
    active_.erase(it);
  }
  const int64_t cpu_before = ThreadCpuNanos();
  const Key& key = active.key;
  metastore::OptimizingProcessRecord& process = active.record;
  metastore::TableRuntimeRecord rt = Runtime(key);
  for (const QueuedTask& t : finished.tasks) SaveTask(t);

  Status outcome = Status::OK();
  std::unique_ptr<iceberg::Table> table;
  std::unique_ptr<iceberg::TableOperations> ops;
  std::optional<catalog::CatalogLease> lease;
  auto load = [&]() -> Status {
    FLOE_ASSIGN_OR_RETURN(auto pool, registry_->Get(key_catalog(key)));
    FLOE_ASSIGN_OR_RETURN(catalog::CatalogLease l, pool->Acquire());
    lease.emplace(std::move(l));
    FLOE_ASSIGN_OR_RETURN(ops, (*lease)->LoadTable(active.id));
    FLOE_ASSIGN_OR_RETURN(table, iceberg::Table::Load(*ops));
    return Status::OK();
  };
  Status loaded = load();
  std::vector<TaskOutput> outputs;
  std::vector<int64_t> output_tasks;  // the task id of each output
  // Outputs are decoded even when the process did not succeed, so that their files go.
  for (const QueuedTask& t : finished.tasks) {
    if (t.status != TaskStatus::kSuccess || !table) continue;
    auto out = DecodeTaskOutput(t.output, *table->metadata());
    if (!out.ok()) {
      if (outcome.ok()) outcome = out.status().WithContext("task {} output", t.task_id);
      continue;
    }
    // An optimizer names the files it wrote: only files of this table are accepted.
    for (const auto* list : {&out->data_files, &out->delete_files}) {
      for (const iceberg::DataFile& f : *list) {
        if (!f.file_path.starts_with(active.table_location + "/") && outcome.ok()) {
          outcome = Status::InvalidArgument("task {} wrote {} outside the table location {}",
                                            t.task_id, f.file_path, active.table_location);
        }
      }
    }
    process.new_data_files += static_cast<int64_t>(out->data_files.size());
    process.new_delete_files += static_cast<int64_t>(out->delete_files.size());
    process.rows_rewritten += out->rows_read;
    process.bytes_written += out->bytes_written;
    AddCpu(key, active.group, t.optimizer_id, out->cpu_nanos);
    outputs.push_back(std::move(*out));
    output_tasks.push_back(t.task_id);
  }
  // self-optimizing.allow-partial-commit: the queue let every task run; the partitions
  // whose tasks all succeeded are committed, the others' outputs deleted.
  std::optional<Status> partial;
  if (loaded.ok() && outcome.ok() && finished.outcome == ProcessOutcome::kFailed &&
      active.allow_partial_commit) {
    std::vector<bool> succeeded(active.plan.tasks.size(), false);
    for (int64_t id : output_tasks) {
      if (id >= 0 && static_cast<size_t>(id) < succeeded.size()) {
        succeeded[static_cast<size_t>(id)] = true;
      }
    }
    PartialPlan part = CommittablePart(active.plan, succeeded);
    std::vector<TaskOutput> kept;
    for (size_t k : part.tasks) {
      for (size_t i = 0; i < outputs.size(); ++i) {
        if (output_tasks[i] == static_cast<int64_t>(k)) kept.push_back(std::move(outputs[i]));
      }
    }
    for (size_t i = 0; i < outputs.size(); ++i) {
      if (std::find(part.tasks.begin(), part.tasks.end(), static_cast<size_t>(output_tasks[i])) ==
          part.tasks.end()) {
        DeleteTaskOutput(outputs[i], table->io());
      }
    }
    outputs.clear();
    if (!part.plan.tasks.empty()) {
      rt.status = "committing";
      Save(rt);
      auto committed =
          CommitRewrite(*table, *process.planned_snapshot_id, part.plan, std::move(kept));
      if (committed.ok()) {
        process.committed_snapshot_id = *committed;
        partial = Status::Internal("partially committed ({} of {} tasks): {}", part.tasks.size(),
                                   active.plan.tasks.size(), finished.error);
      } else {
        partial = committed.status().WithContext("partial commit after: {}", finished.error);
      }
    }
  }
  if (!loaded.ok()) {
    outcome = loaded;
  } else if (partial) {
    outcome = *partial;
  } else if (finished.outcome == ProcessOutcome::kFailed) {
    outcome = Status::Internal("{}", finished.error);
  } else if (finished.outcome == ProcessOutcome::kCanceled) {
    outcome = Status::FailedPrecondition("canceled");
  }
  if (outcome.ok() && outputs.size() == active.plan.tasks.size()) {
    rt.status = "committing";
    Save(rt);
    auto committed =
        CommitRewrite(*table, *process.planned_snapshot_id, active.plan, outputs,
                      {{std::string(kProcessIdSummaryKey), std::to_string(process.process_id)}});
    if (committed.ok()) {
      process.committed_snapshot_id = *committed;
    } else {
      outcome = committed.status();
    }
  } else {
    if (outcome.ok()) outcome = Status::Internal("missing task outputs");
    if (table) {
      for (const TaskOutput& o : outputs) DeleteTaskOutput(o, table->io());
    }
  }

  const int64_t now = active.started_ms;
  process.end_time_ms = Now();
  process.status = outcome.ok()                                    ? "success"
                   : finished.outcome == ProcessOutcome::kCanceled ? "canceled"
                                                                   : "failed";
  {
    std::lock_guard lock(mu_);
    ++counters_.processes[{key_catalog(key), process.table_namespace, process.table_name,
                           process.optimizing_type, process.status}];
    counters_.bytes_written += process.bytes_written;
    counters_.rows_rewritten += process.rows_rewritten;
    counters_.files_rewritten += process.rewritten_data_files;
  }
  // The committer's own work: decoding outputs, committing (or deleting) them.
  AddCpu(key, active.group, "", ThreadCpuNanos() - cpu_before);
  if (!outcome.ok()) process.error = outcome.ToString();
  SaveProcess(process);
  rt.status = "idle";
  if (outcome.ok()) {
    rt.status_reason.clear();
    // The planned snapshot: commits that raced the process are looked at again.
    rt.last_optimized_snapshot_id = *process.planned_snapshot_id;
    // A conversion is no minor optimizing: the minor interval trigger still counts from
    // the last real one.
    if (active.type != OptimizingType::kConvert) {
      int64_t* last = active.type == OptimizingType::kFull    ? &rt.last_full_ms
                      : active.type == OptimizingType::kMajor ? &rt.last_major_ms
                                                              : &rt.last_minor_ms;
      *last = now;
    }
  } else if (finished.outcome == ProcessOutcome::kCanceled) {
    rt.status_reason = fmt::format("process {} was canceled", process.process_id);
  } else {
    rt.status_reason = fmt::format("last process failed: {}", outcome.message());
  }
  // Paused while the process ran: the reason says so from now on.
  if (rt.paused) rt.status_reason = "paused";
  Save(rt);
  {
    std::lock_guard lock(mu_);
    active_by_table_.erase(key);
  }
  // Commits that came while the process ran were not evaluated (one process per table):
  // a table whose equality deletes must be converted within an age cannot wait for the
  // refresh to see them.
  if (active.converts_equality_deletes && outcome.ok()) {
    Enqueue(Item{key_catalog(key), active.id, false, std::nullopt});
  } else if (active.converts_equality_deletes) {
    // A failed process is retried when the commit events or the refresh bring the table
    // back, or after a pause of the table's max age: never in a loop.
    {
      std::lock_guard lock(mu_);
      conversion_due_ms_[key] = Now() + std::max<int64_t>(1000, active.eq_delete_max_age_ms);
      conversion_due_changed_ = true;
    }
    stop_cv_.notify_all();
  }
  table.reset();
  ops.reset();
  lease.reset();

  std::string line;
  JsonWriter w(&line);
  w.BeginObject();
  w.Key("event");
  w.String("optimizing-process");
  w.Key("catalog");
  w.String(key_catalog(key));
  w.Key("table");
  w.String(active.id.ToString());
  w.Key("type");
  w.String(process.optimizing_type);
  w.Key("status");
  w.String(process.status);
  w.Key("tasks");
  w.Int(process.task_count);
  w.Key("rows_rewritten");
  w.Int(process.rows_rewritten);
  w.Key("bytes_written");
  w.Int(process.bytes_written);
  w.Key("millis");
  w.Int(process.end_time_ms - process.plan_time_ms);
  if (!process.error.empty()) {
    w.Key("error");
    w.String(process.error);
  }
  w.EndObject();
  Log(line);
}

}  // namespace floe::optimize
