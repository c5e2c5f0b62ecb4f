// The self-optimizing evaluator and planner: from a snapshot's files (every data file with
// the delete files that apply to it, as scan planning returns them) to the partitions that
// need optimizing and the rewrite tasks that fix them.
//
// The rules are Apache Amoro's (CommonPartitionEvaluator, AbstractPartitionPlan,
// AbstractOptimizingPlanner), so a table behaves as under Amoro with the same properties.
// Per partition (spec id + partition tuple), with fragment = target / fragment-ratio and
// min-target = target * min-target-size-ratio:
//   - a data file of size <= fragment is a fragment: always rewritten;
//   - a file in (fragment, min-target] is an undersized segment: rewritten when it has more
//     position-deleted rows than duplicate-ratio * its rows, else packed with other
//     undersized segments (a bin of two or more is rewritten; a lone one only gets its
//     deletes converted if needed);
//   - a larger file is a target-size segment: rewritten when its position-deleted rows
//     exceed duplicate-ratio * its rows; kept but its deletes converted to one position
//     delete file (v2) or deletion vector (v3) when it has equality deletes or more than one
//     position delete file, or one that is not already the converted per-file form;
//   - in full optimizing (full.trigger.interval reached) every file is rewritten when
//     full.rewrite-all-files, else every file with deletes, fragments and undersized ones.
// Triggers: minor when fragments + equality-delete files >= minor.trigger.file-count, or
// more than one of them and minor.trigger.interval has passed since the last minor run, or
// a segment has several position delete files; major when undersized segments add up to a
// target file and the two smallest fit in one, or a segment must be rewritten; full when
// the interval has passed and there is anything to improve. The process type is the
// highest of its partitions' (full > major > minor).
//
// floe's departures, each because Amoro's behaviour hurts its users:
//   - Tasks are sized by data bytes plus the bytes of the distinct delete files the task
//     must read (Amoro weighs data only, so a 128 MB task could carry gigabytes of equality
//     deletes and run out of memory). Files are packed largest first (first-fit
//     decreasing), deterministically, where Amoro packs in hash-map order.
//   - A delete file is removed by the commit only when every data file of the snapshot it
//     applies to is in the plan, across partitions (an unpartitioned equality delete
//     applies to every partition); Amoro decides per partition (DESIGN.md §4 rule 2).
//   - A lone deletion vector is already the per-file form: it needs no conversion.
//   - Full optimizing moves data to the current partition spec: a data file of an older
//     spec is always rewritten, with the current spec (Amoro keeps each file's spec).
//
// Pure computation: no I/O, no clock (the plan time comes in).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "floe/iceberg/literal.h"
#include "floe/iceberg/scan.h"
#include "floe/optimize/optimizing_config.h"

namespace floe::iceberg {
class ManifestEntryCache;
}  // namespace floe::iceberg

namespace floe::optimize {

// kConvert is floe's equality-delete conversion (PlanEqualityDeleteConversion): no data
// file is rewritten and the optimizing history is left alone.
enum class OptimizingType { kMinor, kMajor, kFull, kConvert };
// "minor", "major", "full", "convert".
std::string_view OptimizingTypeName(OptimizingType type);

// When the table was last optimized, per type (milliseconds since the epoch; 0 = never).
struct OptimizingHistory {
  int64_t last_minor_ms = 0;
  int64_t last_major_ms = 0;
  int64_t last_full_ms = 0;
};

// Amoro's health score: 40 for file sizes, 40 for equality deletes, 20 for position
// deletes; 100 is perfectly healthy.
struct HealthScore {
  int small_files = 40;
  int equality_deletes = 40;
  int position_deletes = 20;
  int total() const { return small_files + equality_deletes + position_deletes; }
};

struct FileStats {
  int64_t count = 0;
  int64_t bytes = 0;
  int64_t records = 0;
};

// What the evaluator found in one partition. The file counts cover the files that take
// part in optimizing (a target-size file without deletes does not).
// A file's partition as PartitionEvaluation::key names it: "<spec id>/[<values as JSON>]".
std::string PartitionKey(const iceberg::DataFile& file);

struct PartitionEvaluation {
  int32_t spec_id = 0;
  std::vector<iceberg::Literal> partition;
  std::string key;  // "<spec id>/<partition values as JSON>", unique per partition

  FileStats fragments;
  FileStats rewrite_segments;  // segments rewritten for their position deletes
  FileStats undersized_segments;
  FileStats rewrite_pos_segments;         // segments whose deletes are converted
  int64_t combine_pos_segment_count = 0;  // segments with several position delete files
  FileStats equality_deletes;             // distinct files
  FileStats position_deletes;             // distinct files (deletion vectors included)

  bool necessary = false;
  OptimizingType type = OptimizingType::kMinor;
  // Amoro's cost: (fragment + rewrite + undersized bytes) * 2 + converted segment bytes / 10
  // + delete bytes + files * open-file-cost. Partitions are planned costliest first.
  int64_t cost = 0;
  // The trigger that made the partition necessary ("minor: 14 fragment and equality-delete
  // files >= 12", ...), empty when it is not.
  std::string reason;
  HealthScore health;
};

// One unit of work for an optimizer: files of one partition.
struct RewriteTask {
  int32_t spec_id = 0;
  // The spec the rewritten rows are written with: the input's (nullopt), or the table's
  // current spec in full optimizing, which moves data off older specs.
  std::optional<int32_t> output_spec_id;
  std::vector<iceberg::Literal> partition;
  std::string partition_key;
  // Read with their deletes applied; their live rows go to new data files.
  std::vector<iceberg::FileScanTask> rewrite_data;
  // Stay in the table; the rows their deletes remove become one position delete file (v2)
  // or deletion vector (v3) per data file.
  std::vector<iceberg::FileScanTask> rewrite_pos_data;
  // Delete files the task reads that stay in the table (other files still need them).
  std::vector<std::shared_ptr<const iceberg::ScanFile>> read_only_deletes;
  // Delete files the task reads that the commit removes.
  std::vector<std::shared_ptr<const iceberg::ScanFile>> rewritten_deletes;
  // Data bytes plus the bytes of the distinct delete files: what the task reads.
  int64_t input_bytes = 0;
};

struct PlanOptions {
  int64_t now_ms = 0;
  // Decoded manifests shared between evaluations (null: PlanSnapshot reads every manifest):
  // an evaluation after a commit then reads only the manifests the commit added.
  iceberg::ManifestEntryCache* manifest_cache = nullptr;
  OptimizingHistory history;
  // Optimizer threads registered in the table's group (at least 1 is assumed): the plan
  // takes partitions, costliest first, until their cost passes threads * per-thread input.
  int32_t available_threads = 1;
  int64_t max_input_size_per_thread = 512LL << 20;  // Amoro's max-input-file-size-per-thread
  // A manual run (`floe optimize --mode`): full treats the full interval as reached; any
  // forced run plans every partition that yields a task, triggers or not.
  std::optional<OptimizingType> forced;
  // The table's current (default) partition spec. In full optimizing, data files of other
  // specs are rewritten with it.
  std::optional<int32_t> current_spec_id;
};

struct OptimizingPlan {
  // nullopt: nothing to do.
  std::optional<OptimizingType> type;
  // Every partition that has data files, ordered by key.
  std::vector<PartitionEvaluation> partitions;
  std::vector<RewriteTask> tasks;
};

// File counts of a plan (tasks of one partition may share delete files: counted once).
struct PlanCounts {
  int64_t rewritten_data_files = 0;
  int64_t converted_data_files = 0;
  int64_t removed_delete_files = 0;
};
PlanCounts CountPlan(const OptimizingPlan& plan);

// A table's health from its partitions' evaluations: each part is the mean over the
// partitions (a table is as healthy as its typical partition), with the least healthy
// partition's total beside it. A table without data files is perfectly healthy.
struct TableHealth {
  HealthScore mean;
  int lowest_partition_score = 100;
  int64_t partitions = 0;
  // Distinct delete files the partitions hold.
  int64_t equality_delete_files = 0;
  int64_t position_delete_files = 0;
};
TableHealth SummarizeHealth(const OptimizingPlan& plan);

// Names one delete file of a plan: its path, and for a deletion vector its blob's offset
// (one Puffin file holds the vectors of several data files).
std::string DeleteFileKey(const iceberg::DataFile& file);

// Evaluates the partitions of `files` and plans the tasks of one optimizing process.
// `files` is one snapshot's scan plan (iceberg::TableScan::PlanFiles without a filter, or
// with the table's self-optimizing.filter). With a filter, `all_files` must be the same
// snapshot's unfiltered plan: a delete file is removed only when no data file of the whole
// snapshot still needs it, including the files the filter leaves out.
OptimizingPlan PlanOptimizing(const std::vector<iceberg::FileScanTask>& files,
                              const OptimizingConfig& config, const PlanOptions& options,
                              const std::vector<iceberg::FileScanTask>* all_files = nullptr);

// Plans floe's equality-delete conversion (self-optimizing.eq-delete.max-age-ms): every
// data file of `files` (one snapshot's unfiltered scan plan) that an equality delete applies
// to goes to a task's rewrite_pos_data (the rows its deletes remove become one file-scoped
// position delete file, v2, or one deletion vector merged with its existing one, v3), no
// data file is rewritten, and every equality-delete file leaves the table: each applies only
// to converted files. `unapplied_equality_deletes` are the snapshot's live equality-delete
// files that apply to no data file (scan planning leaves them out; readers that refuse
// equality deletes still see them): they are removed too. No trigger, threshold or input
// budget applies: the plan converts everything or there would be equality deletes left.
// The plan's type is kConvert when it has tasks; its partitions are PlanOptimizing's
// evaluations.
OptimizingPlan PlanEqualityDeleteConversion(
    const std::vector<iceberg::FileScanTask>& files,
    const std::vector<std::shared_ptr<const iceberg::ScanFile>>& unapplied_equality_deletes,
    const OptimizingConfig& config, const PlanOptions& options);

}  // namespace floe::optimize
