#include "floe/optimize/planner.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <unordered_map>
#include <unordered_set>
#include <utility>

#include <fmt/format.h>

#include "floe/iceberg/manifest.h"

namespace floe::optimize {

using iceberg::DataFile;
using iceberg::FileContent;
using FilePtr = std::shared_ptr<const iceberg::ScanFile>;

std::string_view OptimizingTypeName(OptimizingType type) {
  switch (type) {
    case OptimizingType::kMinor: return "minor";
    case OptimizingType::kMajor: return "major";
    case OptimizingType::kFull: return "full";
    case OptimizingType::kConvert: return "convert";
  }
  return "minor";
}

namespace {

// Amoro keeps the two smallest undersized sizes starting from Integer.MAX_VALUE, so one
// undersized file alone never looks mergeable.
constexpr int64_t kNoSegment = 2147483647;

struct Entry {
  iceberg::FileScanTask task;
  FilePtr data;                  // task.data
  std::vector<FilePtr> deletes;  // the task's position deletes (or DV), then equality deletes
};

std::string_view FileName(std::string_view path) {
  size_t slash = path.find_last_of('/');
  return slash == std::string_view::npos ? path : path.substr(slash + 1);
}

// A position delete file made by converting a data file's deletes is named
// "<data file name without extension>-delete-..." next to it (Amoro's naming, which floe
// keeps, so either's output is recognised).
bool IsConvertedPositionDelete(const DataFile& data, const DataFile& deletes) {
  std::string_view name = FileName(data.file_path);
  if (size_t dot = name.find('.'); dot != std::string_view::npos) name = name.substr(0, dot);
  std::string_view del = FileName(deletes.file_path);
  return del.size() > name.size() + 7 && del.substr(0, name.size()) == name &&
         del.substr(name.size(), 7) == "-delete";
}

bool IsDeletionVector(const DataFile& file) {
  return file.content == FileContent::kPositionDeletes &&
         file.file_format == iceberg::FileFormat::kPuffin;
}

double NormalizedRatio(double numerator, double denominator) {
  if (denominator <= 0) return 0;
  return std::min(numerator, denominator) / denominator;
}

// First-fit decreasing into bins of at most `limit` weight (a heavier file gets a bin of
// its own), ties broken by path so that a plan is deterministic.
template <typename WeightFn>
std::vector<std::vector<const Entry*>> PackByWeight(std::vector<const Entry*> items,
                                                    const WeightFn& weight, int64_t limit) {
  std::vector<std::pair<int64_t, const Entry*>> weighted;
  weighted.reserve(items.size());
  for (const Entry* e : items) weighted.emplace_back(weight(*e), e);
  std::sort(weighted.begin(), weighted.end(), [](const auto& a, const auto& b) {
    if (a.first != b.first) return a.first > b.first;
    return a.second->data->file.file_path < b.second->data->file.file_path;
  });
  std::vector<std::vector<const Entry*>> bins;
  std::vector<int64_t> loads;
  for (const auto& [w, e] : weighted) {
    size_t b = 0;
    while (b < bins.size() && loads[b] + w > limit) ++b;
    if (b == bins.size()) {
      bins.emplace_back();
      loads.push_back(0);
    }
    bins[b].push_back(e);
    loads[b] += w;
  }
  return bins;
}

// How many data files each delete file applies to, across the whole snapshot: by
// DeleteFileKey (one Puffin file holds the deletion vectors of several data files, each of
// which leaves the table on its own), or by path (what a task reads, for sizing).
std::unordered_map<std::string, int64_t> DeleteRefs(const std::vector<iceberg::FileScanTask>& files,
                                                    bool by_path) {
  std::unordered_map<std::string, int64_t> refs;
  for (const iceberg::FileScanTask& t : files) {
    for (const auto* list : {&t.position_deletes, &t.equality_deletes}) {
      for (const FilePtr& d : *list) ++refs[by_path ? d->file.file_path : DeleteFileKey(d->file)];
    }
  }
  return refs;
}

// A data file's sizing weight: its bytes plus its share of each delete file it needs (a
// delete file's bytes split evenly among the data files it applies to).
int64_t EntryWeight(const Entry& e, std::unordered_map<std::string, int64_t>& path_refs) {
  int64_t w = e.data->file.file_size_in_bytes;
  for (const FilePtr& d : e.deletes) {
    w += d->file.file_size_in_bytes / std::max<int64_t>(1, path_refs[d->file.file_path]);
  }
  return w;
}

// Sorts each task's delete files into the ones the commit removes and the ones it only
// reads: a delete file leaves the table only when every data file it applies to (in
// `delete_refs`, over the whole snapshot) is in the plan (DESIGN.md §4 rule 2).
void SplitRemovedDeletes(OptimizingPlan* plan, const std::vector<iceberg::FileScanTask>& files,
                         std::unordered_map<std::string, int64_t>& delete_refs) {
  std::unordered_map<std::string, int64_t> planned_refs;  // by DeleteFileKey
  std::unordered_set<std::string> planned_data;
  for (const RewriteTask& t : plan->tasks) {
    for (const auto& f : t.rewrite_data) planned_data.insert(f.data->file.file_path);
    for (const auto& f : t.rewrite_pos_data) planned_data.insert(f.data->file.file_path);
  }
  for (const iceberg::FileScanTask& t : files) {
    if (!planned_data.contains(t.data->file.file_path)) continue;
    for (const FilePtr& d : t.position_deletes) ++planned_refs[DeleteFileKey(d->file)];
    for (const FilePtr& d : t.equality_deletes) ++planned_refs[DeleteFileKey(d->file)];
  }
  for (RewriteTask& t : plan->tasks) {
    std::vector<FilePtr> all = std::move(t.rewritten_deletes);
    t.rewritten_deletes.clear();
    for (FilePtr& d : all) {
      const std::string key = DeleteFileKey(d->file);
      (planned_refs[key] == delete_refs[key] ? t.rewritten_deletes : t.read_only_deletes)
          .push_back(std::move(d));
    }
  }
}

// One partition: Amoro's CommonPartitionEvaluator (counts and triggers) and
// AbstractPartitionPlan (which files go where).
class PartitionPlan {
 public:
  PartitionPlan(const OptimizingConfig& config, const PlanOptions& options, bool reach_full)
      : config_(config), options_(options), reach_full_(reach_full) {}

  PartitionEvaluation eval;
  std::vector<Entry> rewrite_data;
  std::vector<Entry> undersized;
  std::vector<Entry> rewrite_pos;

  void AddFile(Entry entry) {
    const DataFile& data = entry.data->file;
    bool added = true;
    if (IsFragment(data)) {
      Count(&eval.fragments, data);
      AddDeletes(entry.deletes);
    } else if (IsUndersized(data)) {
      // Counted now; whether its deletes are converted is settled when packing.
      AddDeletes(entry.deletes);
      if (ShouldRewrite(entry)) {
        Count(&eval.rewrite_segments, data);
      } else {
        int64_t size = data.file_size_in_bytes;
        if (size < min1_) {
          min2_ = min1_;
          min1_ = size;
        } else if (size < min2_) {
          min2_ = size;
        }
        Count(&eval.undersized_segments, data);
      }
    } else if (ShouldRewrite(entry)) {
      Count(&eval.rewrite_segments, data);
      AddDeletes(entry.deletes);
    } else if (ShouldRewritePos(entry, /*count_combine=*/true)) {
      Count(&eval.rewrite_pos_segments, data);
      AddDeletes(entry.deletes);
    } else {
      added = false;
    }
    if (!added) return;
    if (ShouldRewrite(entry)) {
      rewrite_data.push_back(std::move(entry));
    } else if (IsUndersized(data)) {
      undersized.push_back(std::move(entry));
    } else {
      rewrite_pos.push_back(std::move(entry));
    }
  }

  // Necessity, type, cost, reason and health, once every file is added.
  void Finish() {
    eval.type = FullNecessary()    ? OptimizingType::kFull
                : MajorNecessary() ? OptimizingType::kMajor
                                   : OptimizingType::kMinor;
    if (!config_.enabled) {
      eval.necessary = false;
    } else if (reach_full_) {
      eval.necessary = FullNecessary();
    } else {
      eval.necessary = MajorNecessary() || MinorNecessary();
    }
    const PartitionEvaluation& e = eval;
    eval.cost =
        (e.fragments.bytes + e.rewrite_segments.bytes + e.undersized_segments.bytes) * 2 +
        e.rewrite_pos_segments.bytes / 10 + e.position_deletes.bytes + e.equality_deletes.bytes +
        (e.fragments.count + e.rewrite_segments.count + e.undersized_segments.count +
         e.rewrite_pos_segments.count + e.position_deletes.count + e.equality_deletes.count) *
            config_.open_file_cost;
    eval.health = Health();
  }

  // Packs the partition's files into tasks (Amoro's BinPackingTaskSplitter and
  // IcebergPartitionPlan's filter). `weight` is a data file's sizing weight.
  template <typename WeightFn>
  std::vector<RewriteTask> Split(const WeightFn& weight) {
    std::vector<RewriteTask> tasks;
    // Pass 1: undersized segments with each other; a bin of one is no merge.
    for (std::vector<const Entry*>& bin : Pack(Pointers(undersized), weight)) {
      if (bin.size() > 1) {
        tasks.push_back(MakeTask(bin, {}));
      } else if (ShouldRewritePos(*bin[0], /*count_combine=*/false)) {
        rewrite_pos.push_back(*bin[0]);
      }
    }
    // Pass 2: files to rewrite together with files whose deletes are converted.
    std::vector<const Entry*> items = Pointers(rewrite_data);
    std::vector<const Entry*> pos = Pointers(rewrite_pos);
    items.insert(items.end(), pos.begin(), pos.end());
    std::set<const Entry*> pos_set(pos.begin(), pos.end());
    for (std::vector<const Entry*>& bin : Pack(items, weight)) {
      std::vector<const Entry*> rewrite;
      std::vector<const Entry*> convert;
      for (const Entry* e : bin) (pos_set.contains(e) ? convert : rewrite).push_back(e);
      RewriteTask task = MakeTask(rewrite, convert);
      // One data file without deletes rewritten alone gains nothing, unless it moves to
      // the current spec.
      bool only_one_file = task.rewrite_data.size() == 1 && task.rewrite_pos_data.empty() &&
                           task.rewritten_deletes.empty() &&
                           !(reach_full_ && OldSpec(task.rewrite_data[0].data->file));
      if (!only_one_file) tasks.push_back(std::move(task));
    }
    return tasks;
  }

 private:
  bool IsFragment(const DataFile& f) const {
    return f.file_size_in_bytes <= config_.fragment_size();
  }
  bool IsUndersized(const DataFile& f) const {
    return f.file_size_in_bytes > config_.fragment_size() &&
           f.file_size_in_bytes <= config_.min_target_size();
  }

  static void Count(FileStats* stats, const DataFile& f) {
    ++stats->count;
    stats->bytes += f.file_size_in_bytes;
    stats->records += f.record_count;
  }

  void AddDeletes(const std::vector<FilePtr>& deletes) {
    for (const FilePtr& d : deletes) {
      if (!seen_deletes_.insert(d->file.file_path).second) continue;
      Count(d->file.content == FileContent::kEqualityDeletes ? &eval.equality_deletes
                                                             : &eval.position_deletes,
            d->file);
    }
  }

  // Amoro's fileShouldRewrite.
  bool ShouldRewrite(const Entry& entry) const {
    const DataFile& data = entry.data->file;
    if (reach_full_) {
      return config_.full_rewrite_all_files || !entry.deletes.empty() || IsFragment(data) ||
             IsUndersized(data) || OldSpec(data);
    }
    if (IsFragment(data)) return true;
    // Equality deletes are left out: minor optimizing converts them to position deletes,
    // and an upsert stream's equality deletes say little about how much of a file is dead.
    int64_t position_deleted = 0;
    for (const FilePtr& d : entry.deletes) {
      if (d->file.content == FileContent::kPositionDeletes)
        position_deleted += d->file.record_count;
    }
    return static_cast<double>(position_deleted) >
           static_cast<double>(data.record_count) * config_.major_duplicate_ratio;
  }

  // Amoro's segmentShouldRewritePos, plus: a lone deletion vector, or a lone position
  // delete file that names only this data file (what floe's conversion writes), is already
  // the per-file form.
  bool ShouldRewritePos(const Entry& entry, bool count_combine) {
    int equality = 0;
    int position = 0;
    for (const FilePtr& d : entry.deletes) {
      if (d->file.content == FileContent::kEqualityDeletes) {
        ++equality;
      } else {
        ++position;
      }
    }
    if (position > 1) {
      if (count_combine) ++eval.combine_pos_segment_count;
      return true;
    }
    if (equality > 0) return true;
    if (position == 1) {
      const DataFile& only = entry.deletes[0]->file;
      bool file_scoped =
          only.referenced_data_file && *only.referenced_data_file == entry.data->file.file_path;
      return !IsDeletionVector(only) && !file_scoped &&
             !IsConvertedPositionDelete(entry.data->file, only);
    }
    return false;
  }

  bool ReachMinorInterval() const {
    return config_.minor_trigger_interval_ms >= 0 &&
           options_.now_ms - options_.history.last_minor_ms > config_.minor_trigger_interval_ms;
  }
  bool EnoughContent() const {
    return eval.undersized_segments.bytes >= config_.target_size &&
           min1_ + min2_ <= config_.target_size;
  }
  bool MinorNecessary() {
    int64_t small = eval.fragments.count + eval.equality_deletes.count;
    if (small >= config_.minor_trigger_file_count) {
      return Because(fmt::format("minor: {} fragment and equality-delete files >= {}", small,
                                 config_.minor_trigger_file_count));
    }
    if (small > 1 && ReachMinorInterval()) {
      // Never optimized: Amoro's last time is 0, so the interval has always passed.
      if (options_.history.last_minor_ms <= 0) {
        return Because(fmt::format(
            "minor: {} fragment and equality-delete files and no minor optimizing yet", small));
      }
      return Because(
          fmt::format("minor: {} fragment and equality-delete files and {} ms since "
                      "the last minor optimizing",
                      small, options_.now_ms - options_.history.last_minor_ms));
    }
    if (eval.combine_pos_segment_count > 0) {
      return Because(fmt::format("minor: {} segments with several position delete files",
                                 eval.combine_pos_segment_count));
    }
    return false;
  }
  bool MajorNecessary() {
    if (EnoughContent()) {
      return Because(fmt::format("major: {} undersized segments of {} bytes",
                                 eval.undersized_segments.count, eval.undersized_segments.bytes));
    }
    if (eval.rewrite_segments.count > 0) {
      return Because(fmt::format("major: {} segments with position-deleted rows over {}",
                                 eval.rewrite_segments.count, config_.major_duplicate_ratio));
    }
    return false;
  }
  // A file of a spec other than the current one, which full optimizing moves.
  bool OldSpec(const DataFile& data) const {
    return options_.current_spec_id && data.spec_id != *options_.current_spec_id;
  }

  bool FullNecessary() {
    if (!reach_full_) return false;
    const PartitionEvaluation& e = eval;
    if (options_.current_spec_id && e.spec_id != *options_.current_spec_id &&
        (e.fragments.count + e.rewrite_segments.count + e.undersized_segments.count) > 0) {
      return Because(fmt::format("full: data of partition spec {} moves to the current spec {}",
                                 e.spec_id, *options_.current_spec_id));
    }
    if (e.equality_deletes.count > 0 || e.position_deletes.count > 0 || e.fragments.count >= 2 ||
        e.undersized_segments.count >= 2 || e.rewrite_segments.count > 0 ||
        e.rewrite_pos_segments.count > 0) {
      return Because("full: the full optimizing interval has passed");
    }
    return false;
  }
  bool Because(std::string reason) {
    if (eval.reason.empty()) eval.reason = std::move(reason);
    return true;
  }

  HealthScore Health() const {
    const PartitionEvaluation& e = eval;
    int64_t files = e.fragments.count + e.rewrite_segments.count + e.undersized_segments.count +
                    e.rewrite_pos_segments.count;
    if (files == 0) return HealthScore{};
    int64_t bytes = e.fragments.bytes + e.rewrite_segments.bytes + e.undersized_segments.bytes +
                    e.rewrite_pos_segments.bytes;
    int64_t records = e.fragments.records + e.rewrite_segments.records +
                      e.undersized_segments.records + e.rewrite_pos_segments.records;
    // Amoro divides the sizes as integers.
    auto average_size = static_cast<double>(bytes / files);
    double min_target = static_cast<double>(config_.min_target_size());
    double table_penalty =
        files <= 1 ? 0
                   : NormalizedRatio(static_cast<double>(files), config_.minor_trigger_file_count) *
                         NormalizedRatio(static_cast<double>(bytes), min_target);
    double eq_ratio = NormalizedRatio(static_cast<double>(e.equality_deletes.records),
                                      static_cast<double>(records));
    double pos_ratio = NormalizedRatio(static_cast<double>(e.position_deletes.records),
                                       static_cast<double>(records));
    HealthScore h;
    h.small_files = static_cast<int>(
        std::ceil(40 - table_penalty * 40 * (1 - NormalizedRatio(average_size, min_target))));
    h.equality_deletes = static_cast<int>(std::ceil(
        40 - table_penalty * 40 * NormalizedRatio(eq_ratio, config_.major_duplicate_ratio)));
    h.position_deletes = static_cast<int>(std::ceil(
        20 - table_penalty * 20 * NormalizedRatio(pos_ratio, config_.major_duplicate_ratio * 2)));
    return h;
  }

  static std::vector<const Entry*> Pointers(const std::vector<Entry>& entries) {
    std::vector<const Entry*> out;
    out.reserve(entries.size());
    for (const Entry& e : entries) out.push_back(&e);
    return out;
  }

  template <typename WeightFn>
  std::vector<std::vector<const Entry*>> Pack(std::vector<const Entry*> items,
                                              const WeightFn& weight) const {
    return PackByWeight(std::move(items), weight, config_.task_size());
  }

  RewriteTask MakeTask(const std::vector<const Entry*>& rewrite,
                       const std::vector<const Entry*>& convert) const {
    RewriteTask task;
    task.spec_id = eval.spec_id;
    task.partition = eval.partition;
    task.partition_key = eval.key;
    std::set<std::string> seen;
    auto take = [&](const Entry* e, std::vector<iceberg::FileScanTask>* out) {
      out->push_back(e->task);
      task.input_bytes += e->data->file.file_size_in_bytes;
      for (const FilePtr& d : e->deletes) {
        if (!seen.insert(DeleteFileKey(d->file)).second) continue;
        // Sorted into read-only and rewritten once the whole plan is known.
        task.rewritten_deletes.push_back(d);
        task.input_bytes += d->file.file_size_in_bytes;
      }
    };
    for (const Entry* e : rewrite) take(e, &task.rewrite_data);
    for (const Entry* e : convert) take(e, &task.rewrite_pos_data);
    return task;
  }

  const OptimizingConfig& config_;
  const PlanOptions& options_;
  bool reach_full_;
  std::unordered_set<std::string> seen_deletes_;
  int64_t min1_ = kNoSegment;
  int64_t min2_ = kNoSegment;
};

}  // namespace

std::string PartitionKey(const iceberg::DataFile& file) {
  std::string key = fmt::format("{}/[", file.spec_id);
  for (size_t i = 0; i < file.partition.size(); ++i) {
    if (i > 0) key += ',';
    key += file.partition[i].ToJson();
  }
  key += ']';
  return key;
}

OptimizingPlan PlanOptimizing(const std::vector<iceberg::FileScanTask>& files,
                              const OptimizingConfig& config, const PlanOptions& options,
                              const std::vector<iceberg::FileScanTask>* all_files) {
  const bool forced_full = options.forced == OptimizingType::kFull;
  const bool reach_full = forced_full || (config.full_trigger_interval_ms >= 0 &&
                                          options.now_ms - options.history.last_full_ms >
                                              config.full_trigger_interval_ms);

  const std::vector<iceberg::FileScanTask>& snapshot_files =
      all_files != nullptr ? *all_files : files;
  std::unordered_map<std::string, int64_t> delete_refs = DeleteRefs(snapshot_files, false);
  std::unordered_map<std::string, int64_t> path_refs = DeleteRefs(snapshot_files, true);

  std::map<std::string, PartitionPlan> partitions;
  for (const iceberg::FileScanTask& t : files) {
    std::string key = PartitionKey(t.data->file);
    auto it = partitions.find(key);
    if (it == partitions.end()) {
      it = partitions.try_emplace(key, config, options, reach_full).first;
      it->second.eval.spec_id = t.data->file.spec_id;
      it->second.eval.partition = t.data->file.partition;
      it->second.eval.key = key;
    }
    Entry entry{t, t.data, t.position_deletes};
    entry.deletes.insert(entry.deletes.end(), t.equality_deletes.begin(), t.equality_deletes.end());
    it->second.AddFile(std::move(entry));
  }
  for (auto& [key, p] : partitions) p.Finish();

  // Costliest first (Amoro: so that big partitions do not starve), up to the input budget;
  // more partitions are taken while the chosen ones yield no task.
  std::vector<PartitionPlan*> candidates;
  for (auto& [key, p] : partitions) {
    if (p.eval.necessary || options.forced.has_value()) candidates.push_back(&p);
  }
  std::stable_sort(
      candidates.begin(), candidates.end(),
      [](const PartitionPlan* a, const PartitionPlan* b) { return a->eval.cost > b->eval.cost; });
  // A data file's sizing weight: its bytes plus its share of each delete file it needs
  // (a delete file's bytes split evenly among the data files it applies to).
  auto weight = [&path_refs](const Entry& e) { return EntryWeight(e, path_refs); };
  const double budget = static_cast<double>(options.max_input_size_per_thread) *
                        std::max(1, options.available_threads);
  OptimizingPlan plan;
  double planned_cost = 0;
  std::optional<OptimizingType> type;
  for (PartitionPlan* p : candidates) {
    if (!plan.tasks.empty() && planned_cost > budget) break;
    std::vector<RewriteTask> tasks = p->Split(weight);
    planned_cost += static_cast<double>(p->eval.cost);
    if (tasks.empty()) continue;
    if (!type || static_cast<int>(p->eval.type) > static_cast<int>(*type)) type = p->eval.type;
    for (RewriteTask& t : tasks) {
      if (reach_full && options.current_spec_id) t.output_spec_id = options.current_spec_id;
      plan.tasks.push_back(std::move(t));
    }
  }
  if (!plan.tasks.empty()) plan.type = type;

  SplitRemovedDeletes(&plan, files, delete_refs);

  plan.partitions.reserve(partitions.size());
  for (auto& [key, p] : partitions) plan.partitions.push_back(std::move(p.eval));
  return plan;
}

std::string DeleteFileKey(const DataFile& file) {
  return fmt::format("{}#{}", file.file_path, file.content_offset.value_or(-1));
}

TableHealth SummarizeHealth(const OptimizingPlan& plan) {
  TableHealth out;
  out.partitions = static_cast<int64_t>(plan.partitions.size());
  if (plan.partitions.empty()) return out;
  int64_t small = 0, eq = 0, pos = 0;
  for (const PartitionEvaluation& p : plan.partitions) {
    small += p.health.small_files;
    eq += p.health.equality_deletes;
    pos += p.health.position_deletes;
    out.lowest_partition_score = std::min(out.lowest_partition_score, p.health.total());
    out.equality_delete_files += p.equality_deletes.count;
    out.position_delete_files += p.position_deletes.count;
  }
  out.mean.small_files = static_cast<int>(small / out.partitions);
  out.mean.equality_deletes = static_cast<int>(eq / out.partitions);
  out.mean.position_deletes = static_cast<int>(pos / out.partitions);
  return out;
}

PlanCounts CountPlan(const OptimizingPlan& plan) {
  PlanCounts counts;
  std::set<std::string> removed;
  for (const RewriteTask& t : plan.tasks) {
    counts.rewritten_data_files += static_cast<int64_t>(t.rewrite_data.size());
    counts.converted_data_files += static_cast<int64_t>(t.rewrite_pos_data.size());
    for (const FilePtr& d : t.rewritten_deletes) removed.insert(DeleteFileKey(d->file));
  }
  counts.removed_delete_files = static_cast<int64_t>(removed.size());
  return counts;
}

OptimizingPlan PlanEqualityDeleteConversion(
    const std::vector<iceberg::FileScanTask>& files,
    const std::vector<std::shared_ptr<const iceberg::ScanFile>>& unapplied_equality_deletes,
    const OptimizingConfig& config, const PlanOptions& options) {
  // The partitions' evaluations are the regular planner's: the table's health and trigger
  // reasons stay what they are; only the tasks differ.
  OptimizingPlan plan = PlanOptimizing(files, config, options);
  plan.tasks.clear();
  plan.type.reset();

  std::unordered_map<std::string, int64_t> delete_refs = DeleteRefs(files, false);
  std::unordered_map<std::string, int64_t> path_refs = DeleteRefs(files, true);
  // Every data file that any equality delete applies to, by partition: all of them are
  // converted, so that every equality-delete file can leave the table.
  std::map<std::string, std::vector<Entry>> by_partition;
  for (const iceberg::FileScanTask& t : files) {
    if (t.equality_deletes.empty()) continue;
    // The position deletes too: the new file-scoped delete or DV restates them (a data file
    // has one DV), and the ones no other data file needs leave the table.
    Entry entry{t, t.data, t.position_deletes};
    entry.deletes.insert(entry.deletes.end(), t.equality_deletes.begin(), t.equality_deletes.end());
    by_partition[PartitionKey(t.data->file)].push_back(std::move(entry));
  }
  auto weight = [&path_refs](const Entry& e) { return EntryWeight(e, path_refs); };
  for (auto& [key, entries] : by_partition) {
    std::vector<const Entry*> items;
    items.reserve(entries.size());
    for (const Entry& e : entries) items.push_back(&e);
    for (const std::vector<const Entry*>& bin : PackByWeight(items, weight, config.task_size())) {
      RewriteTask task;
      task.spec_id = bin[0]->data->file.spec_id;
      task.partition = bin[0]->data->file.partition;
      task.partition_key = key;
      std::set<std::string> seen;
      for (const Entry* e : bin) {
        task.rewrite_pos_data.push_back(e->task);
        task.input_bytes += e->data->file.file_size_in_bytes;
        for (const FilePtr& d : e->deletes) {
          if (!seen.insert(DeleteFileKey(d->file)).second) continue;
          task.rewritten_deletes.push_back(d);
          task.input_bytes += d->file.file_size_in_bytes;
        }
      }
      plan.tasks.push_back(std::move(task));
    }
  }
  // Equality-delete files that apply to no data file still stop readers that refuse
  // equality deletes (pyiceberg fails on any live one): they go with a task of their
  // partition, else with any task (a task reads nothing of them), else with a task of their
  // own that reads nothing.
  for (const FilePtr& d : unapplied_equality_deletes) {
    const std::string key = PartitionKey(d->file);
    auto it = std::find_if(plan.tasks.begin(), plan.tasks.end(),
                           [&](const RewriteTask& t) { return t.partition_key == key; });
    if (it == plan.tasks.end()) it = plan.tasks.begin();
    if (it == plan.tasks.end()) {
      RewriteTask task;
      task.spec_id = d->file.spec_id;
      task.partition = d->file.partition;
      task.partition_key = key;
      plan.tasks.push_back(std::move(task));
      it = plan.tasks.end() - 1;
    }
    it->rewritten_deletes.push_back(d);
    it->input_bytes += d->file.file_size_in_bytes;
  }
  SplitRemovedDeletes(&plan, files, delete_refs);
  if (!plan.tasks.empty()) plan.type = OptimizingType::kConvert;
  return plan;
}

}  // namespace floe::optimize
