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
//   OptimizeTable       plan, execute (in this thread) and commit: `floe optimize` run
//                       in-process against a catalog.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "floe/base/status.h"
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
  int64_t rows_read = 0;         // live rows of the rewritten files
  int64_t deleted_positions = 0; // positions written to the new delete files
  int64_t bytes_written = 0;
};

struct ExecuteOptions {
  // Names the output files (OutputFileFactory): a fresh UUID per process, and the task's
  // number within it.
  std::string operation_id;
  int64_t task_id = 0;
};

// Runs `task`, planned on snapshot `snapshot_id` of `metadata`. On error every file the task
// wrote is deleted (best effort) and the error returned.
Result<TaskOutput> ExecuteRewriteTask(const iceberg::TableMetadataPtr& metadata,
                                      int64_t snapshot_id, io::FileIO& io,
                                      const RewriteTask& task, const OptimizingConfig& config,
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

// Plans snapshot `snapshot_id` of a table: its files (only those matching
// self-optimizing.filter when set) through PlanOptimizing. Errors: a bad filter, manifests
// that cannot be read.
Result<OptimizingPlan> PlanSnapshot(const iceberg::TableMetadataPtr& metadata, io::FileIO& io,
                                    int64_t snapshot_id, const OptimizingConfig& config,
                                    const PlanOptions& options);

struct OptimizeResult {
  OptimizingPlan plan;
  std::optional<int64_t> planned_snapshot_id;
  std::optional<int64_t> committed_snapshot_id;  // none when there was nothing to do
  TaskOutput totals;                               // summed over the tasks
};

// Plans `table`'s current snapshot with its properties and `options`, runs every task and
// commits. kInvalidArgument for bad self-optimizing properties.
Result<OptimizeResult> OptimizeTable(iceberg::Table& table, const PlanOptions& options);

}  // namespace floe::optimize
