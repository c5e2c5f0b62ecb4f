#include "floe/optimize/rewrite.h"

#include <algorithm>
#include <map>
#include <memory>
#include <set>
#include <utility>

#include "floe/iceberg/data_writer.h"
#include "floe/iceberg/delete_writer.h"
#include "floe/iceberg/expression.h"
#include "floe/iceberg/scan.h"
#include "floe/iceberg/snapshot_producer.h"
#include "floe/optimize/sorter.h"

namespace floe::optimize {

namespace {

using iceberg::DataFile;

// Deletes the files a failed task or a refused commit wrote. Best effort: the first error
// is dropped, since the caller is already returning one; orphan cleanup finds leftovers.
void DeleteOutputs(io::FileIO& io, const TaskOutput& output) {
  for (const DataFile& f : output.data_files) (void)io.Delete(f.file_path);
  for (const DataFile& f : output.delete_files) (void)io.Delete(f.file_path);
}

iceberg::FileWriterOptions WriterOptions(const iceberg::TableMetadata& metadata,
                                         const ExecuteOptions& options, int32_t partition_id) {
  iceberg::FileWriterOptions o;
  o.table_location = metadata.location;
  o.properties = metadata.properties;
  o.operation_id = options.operation_id;
  o.task_id = options.task_id;
  o.partition_id = partition_id;
  return o;
}

Status RewriteData(const iceberg::TableMetadata& metadata, iceberg::TableScan& scan, io::FileIO& io,
                   const RewriteTask& task, const OptimizingConfig& config,
                   const ExecuteOptions& options, TaskOutput* out) {
  const int32_t spec_id = task.output_spec_id.value_or(task.spec_id);
  const iceberg::PartitionSpec* spec = metadata.spec_by_id(spec_id);
  if (spec == nullptr) {
    return Status::Corrupt("task partition {} has unknown spec {}", task.partition_key, spec_id);
  }
  // A sorted table's files are written in its order: rows go through the sorter, and the
  // writer records the order id (input_sorted).
  const iceberg::SortOrder* order = metadata.default_sort_order();
  const bool sorted = order != nullptr && !order->is_unsorted();
  iceberg::FileWriterOptions writer_options = WriterOptions(metadata, options, 0);
  writer_options.target_file_size_bytes = config.target_size;
  FLOE_ASSIGN_OR_RETURN(auto writer,
                        iceberg::DataWriter::Make(&io, scan.scan_schema(), *spec,
                                                  sorted ? *order : iceberg::SortOrder(), sorted,
                                                  std::move(writer_options)));
  std::unique_ptr<ExternalSorter> sorter;
  if (sorted) {
    // A third of the task's budget: the rest is the equality-delete keys and the reader.
    auto made = ExternalSorter::Make(scan.scan_schema(), *order,
                                     TaskMemoryBudget(config, options) / 3, options.spill_dir);
    if (!made.ok()) {
      (void)writer->Abort();
      return made.status();
    }
    sorter = std::move(*made);
  }
  FLOE_ASSIGN_OR_RETURN(auto reader, scan.Open(task.rewrite_data));
  Status status = Status::OK();
  while (status.ok()) {
    auto batch = reader->Next();
    if (!batch.ok()) {
      status = batch.status();
      break;
    }
    if (!batch->has_value()) break;
    if ((*batch)->num_rows() == 0) continue;
    out->rows_read += (*batch)->num_rows();
    status = sorter ? sorter->Add(std::move(**batch)) : writer->Write(**batch);
  }
  out->AddStats(reader->equality_stats());
  if (status.ok() && sorter) {
    status = sorter->Finish([&](const columnar::RecordBatch& b) { return writer->Write(b); });
    out->sort_runs += sorter->runs_spilled();
  }
  if (!status.ok()) {
    (void)writer->Abort();
    return status;
  }
  FLOE_ASSIGN_OR_RETURN(out->data_files, writer->Close());
  return Status::OK();
}

// The positions of a data file that its deletes remove: the gaps between the live
// positions the reader reports (ascending within a file), then the tail.
struct RemovedPositions {
  int64_t next = 0;
  std::vector<int64_t> removed;
  void Live(int64_t position) {
    while (next < position) removed.push_back(next++);
    next = position + 1;
  }
  void Finish(int64_t record_count) {
    while (next < record_count) removed.push_back(next++);
  }
};

// The columns a conversion reads: the equality-delete keys of its files. The reader adds
// what the deletes need to what it is asked for, so asking for the key columns alone reads
// nothing else; the first column stands in when no key column is in the scan schema (the
// reader still finds dropped key columns in older schemas).
std::vector<std::string> ConversionColumns(const iceberg::Schema& schema, const RewriteTask& task) {
  std::set<std::string> names;
  for (const iceberg::FileScanTask& t : task.rewrite_pos_data) {
    for (const auto& d : t.equality_deletes) {
      for (int32_t id : d->file.equality_ids.value_or(std::vector<int32_t>{})) {
        if (std::optional<std::string> name = schema.FindColumnName(id)) names.insert(*name);
      }
    }
  }
  if (names.empty() && !schema.fields().empty()) names.insert(schema.fields()[0].name);
  return {names.begin(), names.end()};
}

Status ConvertDeletes(const iceberg::TableMetadataPtr& metadata, iceberg::ScanOptions scan_options,
                      const iceberg::Schema& scan_schema, io::FileIO& io, const RewriteTask& task,
                      const ExecuteOptions& options, TaskOutput* out) {
  const iceberg::PartitionSpec* spec = metadata->spec_by_id(task.spec_id);
  if (spec == nullptr) {
    return Status::Corrupt("task partition {} has unknown spec {}", task.partition_key,
                           task.spec_id);
  }
  scan_options.columns = ConversionColumns(scan_schema, task);
  FLOE_ASSIGN_OR_RETURN(auto scan, iceberg::TableScan::Make(metadata, io, scan_options));
  std::map<std::string, RemovedPositions> files;
  FLOE_ASSIGN_OR_RETURN(auto reader, scan->Open(task.rewrite_pos_data));
  while (true) {
    FLOE_ASSIGN_OR_RETURN(std::optional<iceberg::TableScan::Reader::Matches> m,
                          reader->NextMatches());
    if (!m) break;
    RemovedPositions& f = files[m->task->data->file.file_path];
    for (int64_t p : m->positions) f.Live(p);
  }
  out->AddStats(reader->equality_stats());
  const bool vectors = metadata->format_version >= 3;
  std::unique_ptr<iceberg::DeletionVectorWriter> dv_writer;
  if (vectors) {
    FLOE_ASSIGN_OR_RETURN(
        dv_writer, iceberg::DeletionVectorWriter::Make(&io, WriterOptions(*metadata, options, 1)));
  }
  int32_t next_writer = 1;
  auto fail = [&](Status status) {
    if (dv_writer) (void)dv_writer->Abort();
    return status;
  };
  for (const iceberg::FileScanTask& t : task.rewrite_pos_data) {
    const DataFile& data = t.data->file;
    RemovedPositions& f = files[data.file_path];
    f.Finish(data.record_count);
    if (f.removed.empty()) continue;
    out->deleted_positions += static_cast<int64_t>(f.removed.size());
    if (vectors) {
      Status s = dv_writer->Delete(data.file_path, f.removed, *spec, data.partition);
      if (!s.ok()) return fail(s);
      continue;
    }
    // One position delete file per data file: it names only that file
    // (referenced_data_file), which is how the planner recognises converted deletes.
    auto writer =
        iceberg::PositionDeleteWriter::Make(&io, WriterOptions(*metadata, options, ++next_writer));
    if (!writer.ok()) return fail(writer.status());
    Status s = (*writer)->Delete(data.file_path, f.removed, *spec, data.partition);
    if (!s.ok()) {
      (void)(*writer)->Abort();
      return fail(s);
    }
    auto written = (*writer)->Close();
    if (!written.ok()) return fail(written.status());
    for (DataFile& d : written->delete_files) out->delete_files.push_back(std::move(d));
    std::vector<int64_t>().swap(f.removed);
  }
  if (vectors) {
    FLOE_ASSIGN_OR_RETURN(iceberg::DeleteWriteResult written, dv_writer->Close());
    for (DataFile& d : written.delete_files) out->delete_files.push_back(std::move(d));
  }
  return Status::OK();
}

}  // namespace

int64_t TaskMemoryBudget(const OptimizingConfig& config, const ExecuteOptions& options) {
  const int64_t table = config.memory_budget_mb > 0 ? config.memory_budget_mb << 20 : 0;
  if (table > 0 && options.memory_budget_bytes > 0) {
    return std::min(table, options.memory_budget_bytes);
  }
  if (table > 0) return table;
  if (options.memory_budget_bytes > 0) return options.memory_budget_bytes;
  return kDefaultTaskMemoryBytes;
}

Result<TaskOutput> ExecuteRewriteTask(const iceberg::TableMetadataPtr& metadata,
                                      int64_t snapshot_id, io::FileIO& io, const RewriteTask& task,
                                      const OptimizingConfig& config,
                                      const ExecuteOptions& options) {
  if (options.operation_id.empty()) {
    return Status::InvalidArgument("an optimizing task needs an operation id");
  }
  iceberg::ScanOptions scan_options;
  scan_options.snapshot_id = snapshot_id;
  scan_options.equality_deletes.max_memory_bytes = TaskMemoryBudget(config, options);
  scan_options.equality_deletes.spill_dir = options.spill_dir;
  scan_options.equality_deletes.cache = options.delete_cache;
  FLOE_ASSIGN_OR_RETURN(auto scan, iceberg::TableScan::Make(metadata, io, scan_options));
  TaskOutput out;
  Status status = Status::OK();
  if (!task.rewrite_data.empty()) {
    status = RewriteData(*metadata, *scan, io, task, config, options, &out);
  }
  if (status.ok() && !task.rewrite_pos_data.empty()) {
    status = ConvertDeletes(metadata, scan_options, scan->scan_schema(), io, task, options, &out);
  }
  if (!status.ok()) {
    DeleteOutputs(io, out);
    return status;
  }
  for (const DataFile& f : out.data_files) out.bytes_written += f.file_size_in_bytes;
  for (const DataFile& f : out.delete_files) out.bytes_written += f.file_size_in_bytes;
  return out;
}

Result<std::optional<int64_t>> CommitRewrite(iceberg::Table& table, int64_t planned_snapshot_id,
                                             const OptimizingPlan& plan,
                                             std::vector<TaskOutput> outputs,
                                             const std::map<std::string, std::string>& summary) {
  if (outputs.size() != plan.tasks.size()) {
    return Status::InvalidArgument("{} task outputs for {} tasks", outputs.size(),
                                   plan.tasks.size());
  }
  const iceberg::Snapshot* planned = table.metadata()->snapshot_by_id(planned_snapshot_id);
  if (planned == nullptr) {
    return Status::Conflict("the planned snapshot {} no longer exists", planned_snapshot_id);
  }
  std::unique_ptr<iceberg::RewriteFiles> rewrite = table.NewRewrite();
  const PlanCounts counts = CountPlan(plan);
  if (counts.removed_delete_files == 0) {
    // The converted deletes only restate delete files that all stay (other data files need
    // them): they change nothing, so they are not committed.
    for (TaskOutput& o : outputs) {
      for (const DataFile& f : o.delete_files) (void)table.io().Delete(f.file_path);
      o.delete_files.clear();
    }
    if (counts.rewritten_data_files == 0) return std::optional<int64_t>();
  }
  std::set<std::string> removed_deletes;
  for (size_t i = 0; i < plan.tasks.size(); ++i) {
    const RewriteTask& task = plan.tasks[i];
    for (const iceberg::FileScanTask& t : task.rewrite_data) rewrite->DeleteFile(t.data->file);
    // The task applied every delete of the planned snapshot to these files; one whose
    // deletes removed none of its rows gets no new delete file, and needs none.
    for (const iceberg::FileScanTask& t : task.rewrite_pos_data) {
      rewrite->DeletesRestated(t.data->file.file_path);
    }
    for (const auto& d : task.rewritten_deletes) {
      // Tasks of one partition may share a delete file.
      if (removed_deletes.insert(DeleteFileKey(d->file)).second) {
        rewrite->DeleteDeleteFile(d->file);
      }
    }
    for (const DataFile& f : outputs[i].data_files) rewrite->AddFile(f);
    for (const DataFile& f : outputs[i].delete_files) rewrite->AddDeleteFile(f);
  }
  rewrite->ValidateFromSnapshot(planned_snapshot_id);
  rewrite->DataSequenceNumber(planned->sequence_number);
  rewrite->Set("snapshot-producer", "OPTIMIZE");
  if (plan.type) rewrite->Set("floe.optimizing.type", std::string(OptimizingTypeName(*plan.type)));
  for (const auto& [key, value] : summary) rewrite->Set(key, value);
  Status status = rewrite->Commit();
  if (!status.ok()) {
    if (status.code() == StatusCode::kConflict || status.code() == StatusCode::kInvalidArgument) {
      for (const TaskOutput& o : outputs) DeleteOutputs(table.io(), o);
    }
    return status;
  }
  return rewrite->snapshot_id();
}

PartialPlan CommittablePart(const OptimizingPlan& plan, const std::vector<bool>& succeeded) {
  std::set<std::string> failed_partitions;
  for (size_t i = 0; i < plan.tasks.size(); ++i) {
    if (i >= succeeded.size() || !succeeded[i]) {
      failed_partitions.insert(plan.tasks[i].partition_key);
    }
  }
  // Every delete file a left-out task reads, whether it applies to its rewritten or to its
  // converted files.
  std::set<std::string> still_needed;
  for (size_t i = 0; i < plan.tasks.size(); ++i) {
    const RewriteTask& t = plan.tasks[i];
    if (!failed_partitions.contains(t.partition_key)) continue;
    for (const auto* files : {&t.rewrite_data, &t.rewrite_pos_data}) {
      for (const iceberg::FileScanTask& f : *files) {
        for (const auto& d : f.position_deletes) still_needed.insert(DeleteFileKey(d->file));
        for (const auto& d : f.equality_deletes) still_needed.insert(DeleteFileKey(d->file));
      }
    }
  }
  PartialPlan part;
  part.plan.type = plan.type;
  part.plan.partitions = plan.partitions;
  for (size_t i = 0; i < plan.tasks.size(); ++i) {
    const RewriteTask& t = plan.tasks[i];
    if (failed_partitions.contains(t.partition_key)) continue;
    RewriteTask kept = t;
    kept.rewritten_deletes.clear();
    for (const auto& d : t.rewritten_deletes) {
      (still_needed.contains(DeleteFileKey(d->file)) ? kept.read_only_deletes
                                                     : kept.rewritten_deletes)
          .push_back(d);
    }
    part.plan.tasks.push_back(std::move(kept));
    part.tasks.push_back(i);
  }
  if (part.plan.tasks.empty()) part.plan.type.reset();
  return part;
}

namespace {

// The files of `snapshot_id` (matching `filter` when set), through the plan's manifest cache.
Result<std::vector<iceberg::FileScanTask>> PlanSnapshotFiles(
    const iceberg::TableMetadataPtr& metadata, io::FileIO& io, int64_t snapshot_id,
    const PlanOptions& plan_options, iceberg::ExpressionPtr filter) {
  iceberg::ScanOptions scan_options;
  scan_options.snapshot_id = snapshot_id;
  scan_options.manifest_cache = plan_options.manifest_cache;
  scan_options.filter = std::move(filter);
  FLOE_ASSIGN_OR_RETURN(auto scan, iceberg::TableScan::Make(metadata, io, scan_options));
  return scan->PlanFiles();
}

}  // namespace

Result<OptimizingPlan> PlanSnapshot(const iceberg::TableMetadataPtr& metadata, io::FileIO& io,
                                    int64_t snapshot_id, const OptimizingConfig& config,
                                    const PlanOptions& plan_options) {
  PlanOptions options = plan_options;
  options.current_spec_id = metadata->default_spec_id;
  FLOE_ASSIGN_OR_RETURN(std::vector<iceberg::FileScanTask> all_files,
                        PlanSnapshotFiles(metadata, io, snapshot_id, plan_options, nullptr));
  if (config.filter.empty()) return PlanOptimizing(all_files, config, options);
  // Only the matching files are optimized, but every file decides which deletes can go.
  FLOE_ASSIGN_OR_RETURN(iceberg::ExpressionPtr filter, iceberg::ParseExpression(config.filter));
  FLOE_ASSIGN_OR_RETURN(std::vector<iceberg::FileScanTask> files,
                        PlanSnapshotFiles(metadata, io, snapshot_id, plan_options, filter));
  return PlanOptimizing(files, config, options, &all_files);
}

Result<ConversionPlan> PlanConversionSnapshot(const iceberg::TableMetadataPtr& metadata,
                                              io::FileIO& io, int64_t snapshot_id,
                                              const OptimizingConfig& config,
                                              const PlanOptions& plan_options) {
  ConversionPlan out;
  const iceberg::Snapshot* snapshot = metadata->snapshot_by_id(snapshot_id);
  if (snapshot == nullptr) return Status::NotFound("snapshot {} does not exist", snapshot_id);
  // Iceberg's summary totals say when there is nothing to look for (the common case of a
  // table written without equality deletes): no manifest is read.
  if (const std::string* total = snapshot->SummaryValue("total-equality-deletes");
      total != nullptr && *total == "0") {
    return out;
  }
  FLOE_ASSIGN_OR_RETURN(std::vector<iceberg::ManifestFile> manifests,
                        iceberg::ReadSnapshotManifests(*snapshot, io));
  std::vector<iceberg::ManifestEntry> equality;
  for (const iceberg::ManifestFile& manifest : manifests) {
    if (manifest.content != iceberg::ManifestContent::kDeletes) continue;
    FLOE_ASSIGN_OR_RETURN(
        std::vector<iceberg::ManifestEntry> entries,
        iceberg::ReadManifestEntries(*metadata, manifest, io, iceberg::ManifestEntryFilter::kLive,
                                     /*read_stats=*/false));
    for (iceberg::ManifestEntry& e : entries) {
      if (e.data_file.content == iceberg::FileContent::kEqualityDeletes) {
        equality.push_back(std::move(e));
      }
    }
  }
  if (equality.empty()) return out;
  out.equality_delete_files = static_cast<int64_t>(equality.size());
  for (const iceberg::ManifestEntry& e : equality) {
    const iceberg::Snapshot* added =
        e.snapshot_id ? metadata->snapshot_by_id(*e.snapshot_id) : nullptr;
    const int64_t committed = added != nullptr ? added->timestamp_ms : 0;
    out.oldest_commit_ms = std::min(out.oldest_commit_ms.value_or(committed), committed);
  }

  PlanOptions options = plan_options;
  options.current_spec_id = metadata->default_spec_id;
  FLOE_ASSIGN_OR_RETURN(std::vector<iceberg::FileScanTask> files,
                        PlanSnapshotFiles(metadata, io, snapshot_id, plan_options, nullptr));
  std::set<std::string> applied;
  for (const iceberg::FileScanTask& t : files) {
    for (const auto& d : t.equality_deletes) applied.insert(d->file.file_path);
  }
  std::vector<std::shared_ptr<const iceberg::ScanFile>> unapplied;
  for (iceberg::ManifestEntry& e : equality) {
    if (applied.contains(e.data_file.file_path)) continue;
    auto f = std::make_shared<iceberg::ScanFile>();
    f->data_sequence_number = e.data_sequence_number.value_or(0);
    f->file_sequence_number = e.file_sequence_number.value_or(0);
    f->file = std::move(e.data_file);
    unapplied.push_back(std::move(f));
  }
  out.plan = PlanEqualityDeleteConversion(files, unapplied, config, options);
  return out;
}

Result<OptimizeResult> OptimizeTable(iceberg::Table& table, const PlanOptions& options,
                                     const ExecuteOptions& execute_options) {
  OptimizeResult result;
  iceberg::TableMetadataPtr metadata = table.metadata();
  FLOE_ASSIGN_OR_RETURN(OptimizingConfig config,
                        OptimizingConfig::FromProperties(metadata->properties));
  const iceberg::Snapshot* current = metadata->current_snapshot();
  if (current == nullptr) return result;
  result.planned_snapshot_id = current->snapshot_id;
  FLOE_ASSIGN_OR_RETURN(result.plan,
                        PlanSnapshot(metadata, table.io(), current->snapshot_id, config, options));
  if (result.plan.tasks.empty()) return result;

  ExecuteOptions execute = execute_options;
  execute.operation_id = table.operations().env().NewUuid();
  // Tasks of one partition read the same delete files: decode each once.
  std::unique_ptr<iceberg::DeleteKeyCache> cache;
  if (execute.delete_cache == nullptr) {
    cache = std::make_unique<iceberg::DeleteKeyCache>(TaskMemoryBudget(config, execute) / 4);
    execute.delete_cache = cache.get();
  }
  // Each task runs on one thread: an executor thread, or this one while it waits.
  const size_t n = result.plan.tasks.size();
  std::vector<Result<TaskOutput>> ran(n, Status::Internal("not run"));
  {
    TaskGroup group(execute.executor);
    for (size_t i = 0; i < n; ++i) {
      group.Run([&, i]() -> Status {
        ExecuteOptions task_options = execute;
        task_options.task_id = static_cast<int64_t>(i);
        ran[i] = ExecuteRewriteTask(metadata, current->snapshot_id, table.io(),
                                    result.plan.tasks[i], config, task_options);
        return Status::OK();  // each task's outcome is in ran[i]
      });
    }
    FLOE_RETURN_IF_ERROR(group.Wait());
  }
  std::vector<TaskOutput> outputs;
  outputs.reserve(n);
  std::vector<bool> succeeded;
  Status first_error = Status::OK();
  for (size_t i = 0; i < n; ++i) {
    Result<TaskOutput>& output = ran[i];
    if (!output.ok()) {
      if (first_error.ok()) first_error = output.status().WithContext("task {}", i);
      outputs.emplace_back();
      succeeded.push_back(false);
      continue;
    }
    succeeded.push_back(true);
    result.totals.rows_read += output->rows_read;
    result.totals.deleted_positions += output->deleted_positions;
    result.totals.bytes_written += output->bytes_written;
    result.totals.delete_keys_read += output->delete_keys_read;
    result.totals.delete_keys_kept += output->delete_keys_kept;
    result.totals.spilled_bytes += output->spilled_bytes;
    result.totals.sort_runs += output->sort_runs;
    for (const DataFile& f : output->data_files) result.totals.data_files.push_back(f);
    for (const DataFile& f : output->delete_files) result.totals.delete_files.push_back(f);
    outputs.push_back(std::move(*output));
  }
  // Without partial commit one failed task fails the run.
  if (!first_error.ok() && !config.allow_partial_commit) {
    for (const TaskOutput& o : outputs) DeleteOutputs(table.io(), o);
    return first_error;
  }
  if (!first_error.ok()) {
    PartialPlan part = CommittablePart(result.plan, succeeded);
    std::vector<TaskOutput> kept;
    std::set<size_t> kept_tasks(part.tasks.begin(), part.tasks.end());
    for (size_t i = 0; i < outputs.size(); ++i) {
      if (kept_tasks.contains(i)) {
        kept.push_back(std::move(outputs[i]));
      } else {
        DeleteOutputs(table.io(), outputs[i]);
      }
    }
    if (!part.plan.tasks.empty()) {
      FLOE_ASSIGN_OR_RETURN(result.committed_snapshot_id,
                            CommitRewrite(table, current->snapshot_id, part.plan, std::move(kept)));
    }
    result.plan = std::move(part.plan);
    result.partial_error = first_error.ToString();
    return result;
  }
  FLOE_ASSIGN_OR_RETURN(
      result.committed_snapshot_id,
      CommitRewrite(table, current->snapshot_id, result.plan, std::move(outputs)));
  return result;
}

}  // namespace floe::optimize
