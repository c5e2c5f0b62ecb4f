#include "floe/optimize/service.h"

#include <charconv>
#include <set>
#include <utility>

#include <fmt/format.h>

#include "floe/base/json_writer.h"
#include "floe/iceberg/expression.h"
#include "floe/iceberg/scan.h"
#include "floe/iceberg/table.h"
#include "floe/optimize/maintenance.h"
#include "floe/optimize/rewrite.h"

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
  if (options.threads < 1) return Status::InvalidArgument("the optimizer needs >= 1 thread");
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
  }
  service->next_process_ = service->Now() * 1000;
  for (int i = 0; i < service->options_.threads; ++i) {
    service->workers_.emplace_back([s = service.get()] { s->Worker(); });
  }
  service->scheduler_ = std::thread([s = service.get()] { s->Scheduler(); });
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
  stop_cv_.notify_all();
  if (scheduler_.joinable()) scheduler_.join();
  for (std::thread& t : workers_) t.join();
  workers_.clear();
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
  return running_.size();
}

void OptimizingService::Enqueue(Item item) {
  {
    std::lock_guard lock(mu_);
    if (stopping_) return;
    Key key{item.catalog, item.id.ns.ToString(), item.id.name};
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

Status OptimizingService::ListAll(std::vector<Item>* out) {
  for (const std::string& name : registry_->Names()) {
    auto pool = registry_->Get(name);
    if (!pool.ok()) continue;  // removed meanwhile
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
  Status st = ListAll(&items);
  if (!st.ok()) Log(EventLine("optimizer-refresh-failed", {{"error", st.ToString()}}));
  for (Item& item : items) Enqueue(std::move(item));
}

void OptimizingService::Scheduler() {
  while (true) {
    RefreshAll();
    std::unique_lock lock(mu_);
    if (stop_cv_.wait_for(lock, options_.refresh_interval, [this] { return stopping_; })) return;
  }
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
    Status st = Evaluate(item);
    if (!st.ok()) {
      Log(EventLine("optimizer-evaluation-failed", {{"catalog", item.catalog},
                                                    {"table", item.id.ToString()},
                                                    {"error", st.ToString()}}));
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
  }
  std::lock_guard lock(store_mu_);
  Status st = store_->SaveTableRuntime(record);
  if (!st.ok()) Log(EventLine("optimizer-state-not-saved", {{"error", st.ToString()}}));
}

void OptimizingService::SaveProcess(const metastore::OptimizingProcessRecord& record) {
  std::lock_guard lock(store_mu_);
  Status st = store_->SaveProcess(record);
  if (!st.ok()) Log(EventLine("optimizer-process-not-saved", {{"error", st.ToString()}}));
}

std::vector<TableStats> OptimizingService::Stats() const {
  std::lock_guard lock(mu_);
  std::vector<TableStats> out;
  out.reserve(stats_.size());
  for (const auto& [key, s] : stats_) out.push_back(s);
  return out;
}

OptimizerCounters OptimizingService::Counters() const {
  std::lock_guard lock(mu_);
  return counters_;
}

std::vector<metastore::TableRuntimeRecord> OptimizingService::Tables() const {
  std::lock_guard lock(mu_);
  std::vector<metastore::TableRuntimeRecord> out;
  out.reserve(runtimes_.size());
  for (const auto& [key, r] : runtimes_) out.push_back(r);
  return out;
}

void OptimizingService::MaybeExpireSnapshots(const Key& key, const std::string& name,
                                             iceberg::Table& table) {
  const int64_t now = Now();
  {
    std::lock_guard lock(mu_);
    auto it = last_expire_ms_.find(key);
    if (it != last_expire_ms_.end() && now - it->second < options_.maintenance_interval_ms) {
      return;
    }
    last_expire_ms_[key] = now;
  }
  auto config = MaintenanceConfig::FromProperties(table.metadata()->properties);
  if (!config.ok()) {
    Log(EventLine("maintenance-config-invalid", {{"catalog", std::get<0>(key)},
                                                 {"table", name},
                                                 {"error", config.status().ToString()}}));
    return;
  }
  // Nothing of this table is being optimized: its evaluation runs on this thread alone.
  auto expired = ExpireTableSnapshots(table, *config, now, /*protected_ids=*/{});
  if (!expired.ok()) {
    Log(EventLine("snapshot-expiry-failed", {{"catalog", std::get<0>(key)},
                                             {"table", name},
                                             {"error", expired.status().ToString()}}));
    return;
  }
  if (!expired->has_value()) return;
  const iceberg::ExpireSnapshotsResult& r = **expired;
  const int64_t files = r.deleted_data_files + r.deleted_position_delete_files +
                        r.deleted_equality_delete_files + r.deleted_manifests +
                        r.deleted_manifest_lists + r.deleted_statistics_files;
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

Status OptimizingService::Evaluate(const Item& item) {
  const Key key{item.catalog, item.id.ns.ToString(), item.id.name};
  metastore::TableRuntimeRecord rt = Runtime(key);
  FLOE_ASSIGN_OR_RETURN(auto pool, registry_->Get(item.catalog));
  FLOE_ASSIGN_OR_RETURN(catalog::CatalogLease lease, pool->Acquire());
  auto ops = lease->LoadTable(item.id);
  if (!ops.ok()) {
    if (ops.status().code() == StatusCode::kNotFound) return Status::OK();  // dropped
    return ops.status();
  }
  FLOE_ASSIGN_OR_RETURN(auto table, iceberg::Table::Load(**ops));
  MaybeExpireSnapshots(key, item.id.ToString(), *table);
  iceberg::TableMetadataPtr metadata = table->metadata();
  const iceberg::Snapshot* current = metadata->current_snapshot();
  {
    std::lock_guard lock(mu_);
    TableStats& stats = stats_[key];
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
  plan_options.available_threads = options_.threads;
  plan_options.forced = item.forced;
  auto planned = PlanSnapshot(metadata, table->io(), current->snapshot_id, *config, plan_options);
  if (!planned.ok()) {
    rt.status = "pending";
    rt.status_reason = fmt::format("plan failed: {}", planned.status().message());
    Save(rt);
    return planned.status();
  }
  OptimizingPlan plan = std::move(*planned);
  {
    const TableHealth health = SummarizeHealth(plan);
    std::lock_guard lock(mu_);
    TableStats& stats = stats_[key];
    stats.health_score = health.mean.total();
    stats.equality_delete_files = health.equality_delete_files;
    stats.position_delete_files = health.position_delete_files;
  }
  if (plan.tasks.empty()) {
    rt.status = "idle";
    rt.status_reason.clear();
    rt.last_optimized_snapshot_id = current->snapshot_id;
    Save(rt);
    return Status::OK();
  }
  if (!item.manual && rt.last_plan_ms > 0 &&
      now - rt.last_plan_ms < config->min_plan_interval_ms) {
    // Work to do, but the last process started too recently: a later refresh starts it.
    rt.status = "pending";
    rt.status_reason = "waiting for self-optimizing.min-plan-interval";
    Save(rt);
    return Status::OK();
  }
  rt.last_plan_ms = now;

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
  for (const PartitionEvaluation& p : plan.partitions) {
    if (p.necessary && reasons.size() < 8) reasons.insert(p.reason);
  }
  for (const std::string& r : reasons) {
    if (!process.reason.empty()) process.reason += "; ";
    process.reason += r;
  }
  SaveProcess(process);
  rt.status = process.optimizing_type;
  Save(rt);

  ExecuteOptions execute;
  execute.operation_id = table->operations().env().NewUuid();
  std::vector<TaskOutput> outputs;
  Status outcome = Status::OK();
  for (size_t i = 0; i < plan.tasks.size() && outcome.ok(); ++i) {
    execute.task_id = static_cast<int64_t>(i);
    auto out = ExecuteRewriteTask(metadata, current->snapshot_id, table->io(), plan.tasks[i],
                                  *config, execute);
    if (!out.ok()) {
      outcome = out.status();
      break;
    }
    process.new_data_files += static_cast<int64_t>(out->data_files.size());
    process.new_delete_files += static_cast<int64_t>(out->delete_files.size());
    process.rows_rewritten += out->rows_read;
    process.bytes_written += out->bytes_written;
    outputs.push_back(std::move(*out));
  }
  if (outcome.ok()) {
    rt.status = "committing";
    Save(rt);
    auto committed = CommitRewrite(*table, current->snapshot_id, plan, outputs);
    if (committed.ok()) {
      process.committed_snapshot_id = *committed;
    } else {
      outcome = committed.status();
    }
  } else {
    for (const TaskOutput& o : outputs) {
      for (const auto& f : o.data_files) (void)table->io().Delete(f.file_path);
      for (const auto& f : o.delete_files) (void)table->io().Delete(f.file_path);
    }
  }

  process.end_time_ms = Now();
  process.status = outcome.ok() ? "success" : "failed";
  {
    std::lock_guard lock(mu_);
    ++counters_.processes[{item.catalog, process.table_namespace, process.table_name,
                           process.optimizing_type, process.status}];
    counters_.bytes_written += process.bytes_written;
    counters_.rows_rewritten += process.rows_rewritten;
    counters_.files_rewritten += process.rewritten_data_files;
    counters_.busy_seconds += static_cast<double>(process.end_time_ms - now) / 1000.0;
  }
  if (!outcome.ok()) process.error = outcome.ToString();
  SaveProcess(process);
  rt.status = "idle";
  if (outcome.ok()) {
    rt.status_reason.clear();
    // The planned snapshot: commits that raced the process are looked at again.
    rt.last_optimized_snapshot_id = current->snapshot_id;
    int64_t* last = plan.type == OptimizingType::kFull    ? &rt.last_full_ms
                    : plan.type == OptimizingType::kMajor ? &rt.last_major_ms
                                                          : &rt.last_minor_ms;
    *last = now;
  } else {
    rt.status_reason = fmt::format("last process failed: {}", outcome.message());
  }
  Save(rt);

  std::string line;
  JsonWriter w(&line);
  w.BeginObject();
  w.Key("event");
  w.String("optimizing-process");
  w.Key("catalog");
  w.String(item.catalog);
  w.Key("table");
  w.String(item.id.ToString());
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
  return Status::OK();
}

}  // namespace floe::optimize
