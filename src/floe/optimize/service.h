// OptimizingService: the resident self-optimizing of `floe server`: evaluation, the
// optimizer groups with their task queues (task_queue.h), the server's own `local` group of
// in-process threads, and the committer.
//
// Every table of every catalog is evaluated when it changes (the REST service reports each
// commit: NotifyTableChanged) and on a periodic refresh (tables changed by other writers,
// external catalogs). A table whose current snapshot was already evaluated is skipped. An
// evaluation plans the current snapshot with the table's properties and its optimizing
// history (planner.h); when there are tasks, the process is submitted to the table's group
// (self-optimizing.group, `local` when unset), whose optimizers — the local threads or
// `floe optimizer` processes over the task protocol — run them. When every task succeeded
// the committer commits the outputs as one rewrite (rewrite.h); a task that fails beyond
// self-optimizing.execute.num-retries fails the process and its outputs are deleted. A table
// has one process at a time and is not planned again within self-optimizing.min-plan-interval.
// A table with self-optimizing.eq-delete.max-age-ms gets its live equality deletes converted
// first ("convert" processes, PlanEqualityDeleteConversion), scheduled by the age of the
// oldest one and not held by min-plan-interval.
//
// Operators pause and resume tables (persisted), cancel a running process, create and drop
// groups and drain optimizers. State per table (idle, pending, planning, minor / major / full,
// committing, with a reason when something is wrong), every process, its tasks, the groups
// and every maintenance run are kept in the metastore.
//
// Thread-safety: every method may be called from any thread.
#pragma once

#include <chrono>
#include <condition_variable>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <thread>
#include <tuple>
#include <vector>

#include "floe/base/status.h"
#include "floe/catalog/catalog.h"
#include "floe/catalog/catalog_pool.h"
#include "floe/iceberg/manifest_cache.h"
#include "floe/iceberg/table.h"
#include "floe/io/file_io.h"
#include "floe/metastore/metastore.h"
#include "floe/optimize/planner.h"
#include "floe/optimize/rewrite.h"
#include "floe/optimize/task_queue.h"

namespace floe::optimize {

struct OptimizingServiceOptions {
  // Threads of the local optimizer group (in this process); 0: the group exists but only
  // standalone optimizers registered with it run its tasks.
  int threads = 1;
  // Memory of the local group: each local thread's task gets memory_mb * 3/4 / threads
  // (equality-delete keys, sorting), a quarter goes to the delete-key cache the threads
  // share; 0: the tables' self-optimizing.memory-budget-mb, else 1 GiB per task.
  int64_t memory_mb = 0;
  // Where the local threads' spill runs go (empty: the system's temporary directory).
  std::string spill_dir;
  // Threads that evaluate and plan tables.
  int evaluator_threads = 1;
  // Task protocol timeouts (Amoro's optimizer.heart-beat-timeout, task-ack-timeout,
  // task-execute-timeout).
  int64_t heartbeat_timeout_ms = 60'000;
  int64_t ack_timeout_ms = 30'000;
  int64_t execute_timeout_ms = 3'600'000;
  // The FileIO for a table's files from its catalog's properties (the local threads run
  // tasks with it, as a standalone optimizer does).
  std::function<Result<std::unique_ptr<io::FileIO>>(const std::map<std::string, std::string>&)>
      make_io;
  // How often every table is looked at, besides the commit events.
  std::chrono::milliseconds refresh_interval{60'000};
  // Each table's snapshot expiry (maintenance.h) runs at most this often, when the table is
  // evaluated; its orphan and dangling-delete cleaning (cleanup.h) at most every 24 intervals
  // (Amoro: expiry hourly, cleaning daily).
  int64_t maintenance_interval_ms = 3'600'000;
  // The metastore holding the optimizing state (its own connection).
  std::string metastore_uri;
  // Milliseconds since the epoch; the system clock when empty.
  std::function<int64_t()> now_ms;
  // One JSON line per optimizing process that ends, and per evaluation error.
  std::function<void(std::string_view)> log;
};

// What the last evaluation saw of a table, for metrics (kept in memory only).
struct TableStats {
  std::string catalog;
  std::string table_namespace;
  std::string table_name;
  // From the current snapshot's summary (Iceberg's totals).
  int64_t data_files = 0;
  int64_t delete_files = 0;
  int64_t records = 0;
  int64_t files_bytes = 0;
  int64_t equality_delete_records = 0;
  int64_t position_delete_records = 0;
  int64_t snapshots = 0;
  // From the last plan (-1: not planned yet).
  int64_t equality_delete_files = -1;
  int64_t position_delete_files = -1;
  int health_score = -1;
};

// Counts of the group's work since the server started, for metrics.
struct OptimizerCounters {
  // By catalog, namespace, table, type (minor, major, full), status (success, failed).
  std::map<std::tuple<std::string, std::string, std::string, std::string, std::string>, int64_t>
      processes;
  int64_t bytes_written = 0;
  int64_t rows_rewritten = 0;
  int64_t files_rewritten = 0;
  // Thread CPU time (not wall time, which counted queueing and waiting for storage) of
  // evaluating and planning tables, of the tasks (as the optimizer that ran each reports it:
  // TaskOutput::cpu_nanos) and of committing, over all threads.
  double busy_seconds = 0;
  // The same by table (catalog, namespace, name), by optimizer group (evaluation counts for
  // the table's group) and by optimizer id (tasks only).
  std::map<std::tuple<std::string, std::string, std::string>, double> cpu_seconds_by_table;
  std::map<std::string, double> cpu_seconds_by_group;
  std::map<std::string, double> cpu_seconds_by_optimizer;
  // Maintenance: snapshots expired and files deleted with them.
  int64_t expired_snapshots = 0;
  int64_t expired_files_deleted = 0;
  // Maintenance: orphan files deleted, dangling delete files removed from tables.
  int64_t orphan_files_deleted = 0;
  int64_t dangling_delete_files_removed = 0;
  // Maintenance: data expiration (files removed from tables, and their records), tags made
  // by automatic tagging.
  int64_t expired_data_files = 0;
  int64_t expired_records = 0;
  int64_t tags_created = 0;
  // Maintenance: manifests rewritten into target-size ones, and old metadata files deleted.
  int64_t manifests_rewritten = 0;
  int64_t metadata_files_deleted = 0;
};

class OptimizingService {
 public:
  // Opens the metastore, loads the tables' saved state and starts the threads.
  static Result<std::unique_ptr<OptimizingService>> Start(
      std::shared_ptr<catalog::CatalogRegistry> registry, OptimizingServiceOptions options);
  ~OptimizingService();

  // Queues the table for evaluation (a commit changed it).
  void NotifyTableChanged(const std::string& catalog, const catalog::TableIdentifier& id);
  // Queues every table of every catalog (what the periodic refresh does).
  void RefreshAll();
  // Queues the table for a manual run (the management API's trigger): it is planned even
  // when its current snapshot was evaluated already or its last plan is within
  // self-optimizing.min-plan-interval. `forced` plans like `floe optimize --mode` (every
  // partition that yields a task); nullopt applies the usual triggers. A table that is
  // disabled (self-optimizing.enabled=false) still is not optimized.
  void Trigger(const std::string& catalog, const catalog::TableIdentifier& id,
               std::optional<OptimizingType> forced);
  int threads() const { return options_.threads; }
  // Tables waiting for evaluation and tables being evaluated or optimized now.
  size_t QueuedCount() const;
  size_t RunningCount() const;

  // Optimizer groups (the metastore's, with their live figures).
  struct GroupView {
    metastore::OptimizerGroupRecord record;
    GroupStats stats;
    int64_t tables = 0;      // tables last evaluated for the group
    double cpu_seconds = 0;  // OptimizerCounters::cpu_seconds_by_group
  };
  std::vector<GroupView> Groups() const;
  // kAlreadyExists, kInvalidArgument (name, policy).
  Status CreateGroup(metastore::OptimizerGroupRecord record);
  // kNotFound; kFailedPrecondition while tables or optimizers use it, and for `local`.
  Status DropGroup(const std::string& name);
  // With each optimizer's cpu_seconds (OptimizerCounters::cpu_seconds_by_optimizer).
  std::vector<OptimizerInfo> Optimizers() const;
  Status DrainOptimizer(const std::string& optimizer_id) { return tasks_->Drain(optimizer_id); }

  // The task protocol (task_queue.h), for the management API's optimizer endpoints.
  Result<OptimizerInfo> RegisterOptimizer(const std::string& group, int32_t threads,
                                          int64_t memory_mb);
  TaskQueue& tasks() { return *tasks_; }

  // Cancels the table's running process `process_id`: kNotFound when it is not running.
  Status CancelProcess(const std::string& catalog, const catalog::TableIdentifier& id,
                       int64_t process_id);
  // Pauses (no new processes; a running one finishes) or resumes the table.
  Status SetPaused(const std::string& catalog, const catalog::TableIdentifier& id, bool paused);
  // A table's maintenance runs, newest first.
  Result<std::vector<metastore::MaintenanceRunRecord>> MaintenanceRuns(
      const std::string& catalog, const catalog::TableIdentifier& id, int64_t limit);
  // A process's tasks (saved on every change).
  Result<std::vector<metastore::OptimizingTaskRecord>> ProcessTasks(int64_t process_id);

  // Stops taking work; waits for the tables being optimized to finish (their commits
  // complete or fail cleanly), then returns. Idempotent.
  void Stop();

  // The state of every table seen so far, by catalog, namespace and name.
  std::vector<metastore::TableRuntimeRecord> Tables() const { return *TablesView(); }
  // The same as an immutable snapshot that every reader shares until the next change: the
  // dashboard's lists read 10,000 tables without copying them, or holding the service's
  // lock, per request.
  std::shared_ptr<const std::vector<metastore::TableRuntimeRecord>> TablesView() const;
  // One table's state (an idle record when the table was not seen yet).
  metastore::TableRuntimeRecord TableRuntime(const std::string& catalog,
                                             const catalog::TableIdentifier& id) const {
    return Runtime(Key{catalog, id.ns.ToString(), id.name});
  }
  // What the last evaluation of each table saw, by catalog, namespace and name.
  std::vector<TableStats> Stats() const { return *StatsView(); }
  // The same as a shared snapshot (see TablesView).
  std::shared_ptr<const std::vector<TableStats>> StatsView() const;
  OptimizerCounters Counters() const;

 private:
  using Key = std::tuple<std::string, std::string, std::string>;  // catalog, ns, name
  struct Item {
    std::string catalog;
    catalog::TableIdentifier id;
    bool manual = false;
    std::optional<OptimizingType> forced;
  };

  OptimizingService(std::shared_ptr<catalog::CatalogRegistry> registry,
                    OptimizingServiceOptions options);
  void Enqueue(Item item);
  void Worker();
  void Scheduler();
  // Every table of every catalog into *out, and the catalogs listed into *catalogs.
  Status ListAll(std::vector<Item>* out, std::set<std::string>* catalogs);
  // Drops a table's state in memory and in the metastore: it was dropped, or its catalog.
  void ForgetTable(const Key& key);
  Status Evaluate(const Item& item);
  // Records interrupted processes of `key` whose rewrite `metadata` holds as successes.
  void ResolveInterrupted(const Key& key, const iceberg::TableMetadata& metadata);
  // A process submitted to a group: what the committer needs.
  struct ActiveProcess {
    Key key;
    catalog::TableIdentifier id;
    OptimizingPlan plan;
    OptimizingType type = OptimizingType::kMinor;
    std::string group;  // self-optimizing.group when planned
    metastore::OptimizingProcessRecord record;
    std::string table_location;
    int64_t started_ms = 0;
    bool allow_partial_commit = false;  // self-optimizing.allow-partial-commit
    // self-optimizing.eq-delete.max-age-ms is set: the table is evaluated again at the end.
    bool converts_equality_deletes = false;
    int64_t eq_delete_max_age_ms = -1;
  };
  void LocalWorker(int32_t thread);
  // The budget, spill directory and cache of a task run by a local thread.
  ExecuteOptions LocalExecuteOptions();
  void Committer();
  // Commits or discards a finished process and records its outcome.
  void Conclude(FinishedProcess finished);
  void SaveTask(const QueuedTask& task);
  // Adds `nanos` of thread CPU time to the counters of the table, its group and (when not
  // empty) the optimizer that spent it.
  void AddCpu(const Key& key, const std::string& group, const std::string& optimizer,
              int64_t nanos);
  std::map<std::string, std::string> IoProperties(const std::string& catalog);
  // Expires the table's old snapshots when its maintenance is due (errors are logged).
  void MaybeExpireSnapshots(const Key& key, const std::string& name, iceberg::Table& table);
  // Orphan file and dangling delete file cleaning (cleanup.h), when due and enabled and no
  // process of the table is running.
  void MaybeCleanTable(const Key& key, const std::string& name, iceberg::Table& table,
                       catalog::Catalog& catalog);
  // Remembers where the table lives (its location and cleaning directories), for the
  // overlap check of other tables' orphan cleaning.
  void NoteTableLocations(const Key& key, const iceberg::TableMetadata& metadata);
  // The known locations of the catalog's tables other than `key`; tables listed by the last
  // refresh whose locations are not known yet are loaded from `catalog` first. Errors: a
  // table that cannot be loaded (then nothing may be cleaned: its location is unknown).
  Result<std::vector<catalog::NormalizedLocation>> OtherTableLocations(const Key& key,
                                                                       catalog::Catalog& catalog);
  // Data expiration (data_expiration.h), when due (every 24 intervals, as cleaning) and
  // enabled and no process of the table is running; automatic tags (auto_tag.h), checked at
  // most every maintenance interval / 60 (Amoro: every minute). service_maintenance.cc.
  void MaybeExpireData(const Key& key, const std::string& name, iceberg::Table& table);
  // Bounded metadata (maintenance.h): small manifests rewritten (checked at most every
  // maintenance interval / 60, no process of the table running) and metadata files the
  // metadata log no longer lists deleted (every maintenance interval, within the cleanup
  // scope). service_maintenance.cc.
  void MaybeBoundMetadata(const Key& key, const std::string& name, iceberg::Table& table,
                          catalog::Catalog& catalog);
  void MaybeCreateTag(const Key& key, const std::string& name, iceberg::Table& table);
  metastore::MaintenanceRunRecord NewMaintenanceRun(const Key& key, std::string kind,
                                                    int64_t start_ms);
  int64_t Now() const;
  metastore::TableRuntimeRecord Runtime(const Key& key) const;
  // Saves `record` in memory and in the metastore (errors are logged: the state in memory
  // is what the service acts on).
  void Save(metastore::TableRuntimeRecord record);
  void SaveProcess(const metastore::OptimizingProcessRecord& record);
  void SaveMaintenanceRun(const metastore::MaintenanceRunRecord& record);
  void Log(std::string_view line) const;

  std::shared_ptr<catalog::CatalogRegistry> registry_;
  OptimizingServiceOptions options_;
  // Decoded manifests of the tables evaluated (thread-safe): an evaluation after a commit
  // reads only the manifests the commit added. At most 200,000 entries (tens of MB).
  iceberg::ManifestEntryCache manifest_cache_{200'000};
  // Decoded equality-delete keys shared by the local threads (thread-safe).
  iceberg::DeleteKeyCache delete_cache_{
      (options_.memory_mb > 0 ? options_.memory_mb << 20 : kDefaultTaskMemoryBytes) / 4};

  mutable std::mutex mu_;
  std::condition_variable work_cv_;
  std::condition_variable stop_cv_;
  bool stopping_ = false;
  std::deque<Item> queue_;
  std::set<Key> queued_;
  std::set<Key> running_;
  std::map<Key, metastore::TableRuntimeRecord> runtimes_;
  std::map<Key, TableStats> stats_;
  // Bumped by every change of runtimes_ / stats_; the views are rebuilt when stale.
  uint64_t runtimes_version_ = 0;
  uint64_t stats_version_ = 0;
  mutable std::shared_ptr<const std::vector<metastore::TableRuntimeRecord>> tables_view_;
  mutable uint64_t tables_view_version_ = 0;
  mutable std::shared_ptr<const std::vector<TableStats>> stats_view_;
  mutable uint64_t stats_view_version_ = 0;
  std::map<Key, int64_t> last_expire_ms_;
  std::map<Key, int64_t> last_clean_ms_;
  std::map<Key, int64_t> last_manifest_check_ms_;
  // The time and metadata version of each table's last metadata-file cleaning.
  std::map<Key, std::pair<int64_t, int64_t>> last_metadata_clean_;
  // Every table's location and cleaning directories, normalized (NoteTableLocations), and
  // the tables each catalog listed at the last refresh.
  std::map<Key, std::vector<catalog::NormalizedLocation>> table_locations_;
  std::map<std::string, std::map<Key, catalog::TableIdentifier>> listed_tables_;
  std::map<Key, int64_t> last_data_expire_ms_;
  std::map<Key, int64_t> last_tag_check_ms_;
  // When each table's equality-delete conversion is due (ms, Now()): the scheduler queues
  // the table then (self-optimizing.eq-delete.max-age-ms).
  std::map<Key, int64_t> conversion_due_ms_;
  bool conversion_due_changed_ = false;  // guarded by mu_: the scheduler recomputes its wait
  OptimizerCounters counters_;
  int64_t next_process_ = 0;
  int64_t next_maintenance_run_ = 0;
  std::map<int64_t, ActiveProcess> active_;  // by process id
  std::map<Key, int64_t> active_by_table_;
  // Processes a previous run left "running" (recorded as failed at start): the first
  // evaluation of their table looks for their commit (kProcessIdSummaryKey) and, when the
  // crash came after it, records them as the success they were.
  std::map<Key, std::vector<metastore::OptimizingProcessRecord>> interrupted_;
  std::map<std::string, metastore::OptimizerGroupRecord> groups_;
  std::condition_variable commit_cv_;
  // Local optimizer threads wait here for tasks (apart from work_cv_, whose waiters are the
  // evaluators: a notify_one must reach one of them).
  std::condition_variable task_cv_;
  bool finished_pending_ = false;

  std::unique_ptr<TaskQueue> tasks_;
  std::string local_token_;

  std::mutex store_mu_;  // the Metastore is not thread-safe
  std::unique_ptr<metastore::Metastore> store_;

  std::vector<std::thread> workers_;
  std::vector<std::thread> local_workers_;
  std::thread committer_;
  std::thread scheduler_;
};

}  // namespace floe::optimize
