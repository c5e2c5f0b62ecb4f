// OptimizingService: the resident self-optimizing of `floe server`, running on the local
// optimizer group (threads in the server process).
//
// Every table of every catalog is evaluated when it changes (the REST service reports each
// commit: NotifyTableChanged) and on a periodic refresh (tables changed by other writers,
// external catalogs). A table whose current snapshot was already evaluated is skipped. An
// evaluation plans the current snapshot with the table's properties and its optimizing
// history (planner.h); when there are tasks, it runs them on the evaluating thread and
// commits (rewrite.h). A table is evaluated by one thread at a time, and not planned
// again within self-optimizing.min-plan-interval of its last plan.
//
// State per table (idle, pending, planning, minor / major / full, committing, with a
// reason when something is wrong) and every process (type, outcome, figures, error) are
// kept in the metastore (floe_table_runtime, floe_optimizing_processes).
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
#include "floe/iceberg/table.h"
#include "floe/metastore/metastore.h"
#include "floe/optimize/planner.h"

namespace floe::optimize {

struct OptimizingServiceOptions {
  // Threads of the local optimizer group: tables optimized at once.
  int threads = 1;
  // How often every table is looked at, besides the commit events.
  std::chrono::milliseconds refresh_interval{60'000};
  // Each table's maintenance (snapshot expiry, maintenance.h) runs at most this often, when
  // the table is evaluated.
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
  std::map<std::tuple<std::string, std::string, std::string, std::string, std::string>,
           int64_t>
      processes;
  int64_t bytes_written = 0;
  int64_t rows_rewritten = 0;
  int64_t files_rewritten = 0;
  // Time spent running and committing processes, over all threads.
  double busy_seconds = 0;
  // Maintenance: snapshots expired and files deleted with them.
  int64_t expired_snapshots = 0;
  int64_t expired_files_deleted = 0;
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
  // Tables waiting for evaluation and tables being evaluated now.
  size_t QueuedCount() const;
  size_t RunningCount() const;

  // Stops taking work; waits for the tables being optimized to finish (their commits
  // complete or fail cleanly), then returns. Idempotent.
  void Stop();

  // The state of every table seen so far.
  std::vector<metastore::TableRuntimeRecord> Tables() const;
  // One table's state (an idle record when the table was not seen yet).
  metastore::TableRuntimeRecord TableRuntime(const std::string& catalog,
                                             const catalog::TableIdentifier& id) const {
    return Runtime(Key{catalog, id.ns.ToString(), id.name});
  }
  // What the last evaluation of each table saw.
  std::vector<TableStats> Stats() const;
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
  Status ListAll(std::vector<Item>* out);
  Status Evaluate(const Item& item);
  // Expires the table's old snapshots when its maintenance is due (errors are logged).
  void MaybeExpireSnapshots(const Key& key, const std::string& name, iceberg::Table& table);
  int64_t Now() const;
  metastore::TableRuntimeRecord Runtime(const Key& key) const;
  // Saves `record` in memory and in the metastore (errors are logged: the state in memory
  // is what the service acts on).
  void Save(metastore::TableRuntimeRecord record);
  void SaveProcess(const metastore::OptimizingProcessRecord& record);
  void Log(std::string_view line) const;

  std::shared_ptr<catalog::CatalogRegistry> registry_;
  OptimizingServiceOptions options_;

  mutable std::mutex mu_;
  std::condition_variable work_cv_;
  std::condition_variable stop_cv_;
  bool stopping_ = false;
  std::deque<Item> queue_;
  std::set<Key> queued_;
  std::set<Key> running_;
  std::map<Key, metastore::TableRuntimeRecord> runtimes_;
  std::map<Key, TableStats> stats_;
  std::map<Key, int64_t> last_expire_ms_;
  OptimizerCounters counters_;
  int64_t next_process_ = 0;

  std::mutex store_mu_;  // the Metastore is not thread-safe
  std::unique_ptr<metastore::Metastore> store_;

  std::vector<std::thread> workers_;
  std::thread scheduler_;
};

}  // namespace floe::optimize
