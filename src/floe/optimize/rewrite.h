// Executing and committing optimizing plans (planner.h):
//
//   ExecuteRewriteTask  runs one task against the planned snapshot: the live rows of its
//                       rewrite_data files (every delete applied) are written to new data
//                       files of the same partition at the target size; for each of its
//                       rewrite_pos_data files, the positions its deletes remove (equality
//                       deletes included) become one file-scoped position delete file (v2)
//                       or one deletion vector (v3).
//   CommitRewrite       commits the outputs of a plan's tasks as one rewrite snapshot,
//                       validated from the planned snapshot: new data files take that
//                       snapshot's data sequence number, so equality deletes committed
//                       meanwhile still apply to them (DESIGN.md §4 rule 1); removed delete
//                       files must apply to no remaining data file that did not get a new
//                       file-scoped delete (rule 2). A conflict leaves the table unchanged
//                       and deletes the outputs.
//   OptimizeTable       plan, execute (on a passed executor and this thread) and commit:
//                       `floe optimize` run in-process against a catalog.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "floe/base/executor.h"
#include "floe/base/status.h"
#include "floe/iceberg/equality_deletes.h"
#include "floe/iceberg/manifest.h"
#include "floe/iceberg/table.h"
#include "floe/iceberg/table_metadata.h"
#include "floe/io/file_io.h"
#include "floe/optimize/optimizing_config.h"
#include "floe/optimize/planner.h"

namespace floe::optimize {

struct TaskOutput {
  std::vector<iceberg::DataFile> data_files;
  std::vector<iceberg::DataFile> delete_files;  // file-scoped position deletes or DVs
  int64_t rows_read = 0;                        // live rows of the rewritten files
  int64_t deleted_positions = 0;                // positions written to the new delete files
  int64_t bytes_written = 0;
  // How the task bounded its memory (not part of task payloads): equality-delete keys read
  // and held after the key filter, bytes spilled to equality-delete runs, sorted runs
  // spilled.
  int64_t delete_keys_read = 0;
  int64_t delete_keys_kept = 0;
  int64_t spilled_bytes = 0;
  int64_t sort_runs = 0;
  // Thread CPU time the task took where it ran (RunTask: ThreadCpuNanos around the
  // rewrite; 0 from an optimizer that does not report it). Part of task outputs.
  int64_t cpu_nanos = 0;
  void AddStats(const iceberg::EqualityDeleteStats& s) {
    delete_keys_read += s.delete_keys_read;
    delete_keys_kept += s.delete_keys_kept;
    spilled_bytes += s.spilled_bytes;
  }
};

// A task's memory budget when neither the table (self-optimizing.memory-budget-mb) nor the
// process running it (floe optimizer --memory-mb) sets one.
inline constexpr int64_t kDefaultTaskMemoryBytes = int64_t{1} << 30;

struct ExecuteOptions {
  // Names the output files (OutputFileFactory): a fresh UUID per process, and the task's
  // number within it.
  std::string operation_id;
  int64_t task_id = 0;
  // Set by the process that runs the task (not part of task payloads):
  // the bytes one task may use for equality-delete keys and sorting (0: the table's
  // self-optimizing.memory-budget-mb, else kDefaultTaskMemoryBytes; the table's setting
  // wins when both are set and it is smaller);
  int64_t memory_budget_bytes = 0;
  // where spilled runs go (empty: the system's temporary directory);
  std::string spill_dir;
  // decoded delete keys shared by the tasks this process runs (not owned; may be null).
  iceberg::DeleteKeyCache* delete_cache = nullptr;
  // Where OptimizeTable runs a plan's tasks besides the calling thread (not owned; null:
  // one after another on the caller). The caller's thread takes tasks too, so an executor
  // of N - 1 threads runs N at once.
  Executor* executor = nullptr;
};

// The memory budget of a task: see ExecuteOptions::memory_budget_bytes.
int64_t TaskMemoryBudget(const OptimizingConfig& config, const ExecuteOptions& options);

// Runs `task`, planned on snapshot `snapshot_id` of `metadata`. On error every file the task
// wrote is deleted (best effort) and the error returned.
Result<TaskOutput> ExecuteRewriteTask(const iceberg::TableMetadataPtr& metadata,
                                      int64_t snapshot_id, io::FileIO& io, const RewriteTask& task,
                                      const OptimizingConfig& config,
                                      const ExecuteOptions& options);

// Commits `outputs[i]` of `plan.tasks[i]` to `table` as one rewrite ("replace" operation,
// summary snapshot-producer=OPTIMIZE, floe.optimizing.type and `summary`). Returns the new snapshot
// id, or nullopt when the outputs change nothing (converted deletes whose sources all stay
// are dropped). kConflict (nothing committed, outputs deleted) when a concurrent commit
// makes the rewrite unsafe; other errors may leave the outcome unknown (outputs kept).
Result<std::optional<int64_t>> CommitRewrite(
    iceberg::Table& table, int64_t planned_snapshot_id, const OptimizingPlan& plan,
    std::vector<TaskOutput> outputs, const std::map<std::string, std::string>& summary = {});

// The snapshot summary key naming the `floe server` process that committed a rewrite: after a
// crash between the commit and the process record, a restarted server finds it there.
inline constexpr std::string_view kProcessIdSummaryKey = "floe.optimizing.process-id";

// The part of `plan` that self-optimizing.allow-partial-commit commits when some tasks
// failed: the tasks of the partitions whose tasks all succeeded (succeeded[i] for
// plan.tasks[i]). A delete file that a left-out task reads stays in the table (it moves to
// the kept tasks' read_only_deletes): its other data files are not rewritten (DESIGN.md §4
// rule 2). `tasks` holds the indexes in `plan` of the kept tasks.
struct PartialPlan {
  OptimizingPlan plan;
  std::vector<size_t> tasks;
};
PartialPlan CommittablePart(const OptimizingPlan& plan, const std::vector<bool>& succeeded);

// Plans snapshot `snapshot_id` of a table: its files (only those matching
// self-optimizing.filter when set) through PlanOptimizing. Errors: a bad filter, manifests
// that cannot be read.
Result<OptimizingPlan> PlanSnapshot(const iceberg::TableMetadataPtr& metadata, io::FileIO& io,
                                    int64_t snapshot_id, const OptimizingConfig& config,
                                    const PlanOptions& options);

// A snapshot's equality-delete conversion plan (PlanEqualityDeleteConversion) and when its
// oldest live equality-delete file was committed, which the service schedules it by.
struct ConversionPlan {
  OptimizingPlan plan;
  int64_t equality_delete_files = 0;  // live in the snapshot, applied or not
  // The commit time (ms since the epoch) of the snapshot that added the oldest live
  // equality-delete file; 0 when that snapshot is gone (expired: older than any kept one);
  // nullopt without equality deletes.
  std::optional<int64_t> oldest_commit_ms;
};

// Plans the conversion of snapshot `snapshot_id`'s equality deletes: its live delete
// manifests and its unfiltered scan plan (self-optimizing.filter does not apply: one
// equality-delete file left in the table stops readers that refuse them). Errors: manifests
// that cannot be read.
Result<ConversionPlan> PlanConversionSnapshot(const iceberg::TableMetadataPtr& metadata,
                                              io::FileIO& io, int64_t snapshot_id,
                                              const OptimizingConfig& config,
                                              const PlanOptions& options);

struct OptimizeResult {
  OptimizingPlan plan;
  std::optional<int64_t> planned_snapshot_id;
  std::optional<int64_t> committed_snapshot_id;  // none when there was nothing to do
  TaskOutput totals;                             // summed over the tasks
  // With self-optimizing.allow-partial-commit: the first failed task's error; `plan` then
  // holds only the committed part (CommittablePart).
  std::string partial_error;
};

// Plans `table`'s current snapshot with its properties and `options` (available_threads
// sizes the plan's tasks), runs every task in a TaskGroup on execute.executor and the calling
// thread (with `execute`'s budget, spill directory and cache; a cache is made when it has
// none) and commits. kInvalidArgument for bad self-optimizing properties.
Result<OptimizeResult> OptimizeTable(iceberg::Table& table, const PlanOptions& options,
                                     const ExecuteOptions& execute = {});

}  // namespace floe::optimize
