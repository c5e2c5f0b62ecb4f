#include "floe/optimize/rewrite.h"

#include <map>
#include <memory>
#include <set>
#include <utility>

#include "floe/iceberg/data_writer.h"
#include "floe/iceberg/delete_writer.h"
#include "floe/iceberg/expression.h"
#include "floe/iceberg/scan.h"
#include "floe/iceberg/snapshot_producer.h"

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

Status RewriteData(const iceberg::TableMetadata& metadata, iceberg::TableScan& scan,
                   io::FileIO& io, const RewriteTask& task, const OptimizingConfig& config,
                   const ExecuteOptions& options, TaskOutput* out) {
  const iceberg::PartitionSpec* spec = metadata.spec_by_id(task.spec_id);
  if (spec == nullptr) {
    return Status::Corrupt("task partition {} has unknown spec {}", task.partition_key,
                           task.spec_id);
  }
  const iceberg::SortOrder* order = metadata.default_sort_order();
  iceberg::FileWriterOptions writer_options = WriterOptions(metadata, options, 0);
  writer_options.target_file_size_bytes = config.target_size;
  FLOE_ASSIGN_OR_RETURN(auto writer,
                        iceberg::DataWriter::Make(&io, scan.scan_schema(), *spec,
                                                  order ? *order : iceberg::SortOrder(), false,
                                                  std::move(writer_options)));
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
    status = writer->Write(**batch);
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

Status ConvertDeletes(const iceberg::TableMetadata& metadata, iceberg::TableScan& scan,
                      io::FileIO& io, const RewriteTask& task, const ExecuteOptions& options,
                      TaskOutput* out) {
  const iceberg::PartitionSpec* spec = metadata.spec_by_id(task.spec_id);
  if (spec == nullptr) {
    return Status::Corrupt("task partition {} has unknown spec {}", task.partition_key,
                           task.spec_id);
  }
  std::map<std::string, RemovedPositions> files;
  FLOE_ASSIGN_OR_RETURN(auto reader, scan.Open(task.rewrite_pos_data));
  while (true) {
    FLOE_ASSIGN_OR_RETURN(std::optional<iceberg::TableScan::Reader::Matches> m,
                          reader->NextMatches());
    if (!m) break;
    RemovedPositions& f = files[m->task->data->file.file_path];
    for (int64_t p : m->positions) f.Live(p);
  }
  const bool vectors = metadata.format_version >= 3;
  std::unique_ptr<iceberg::DeletionVectorWriter> dv_writer;
  if (vectors) {
    FLOE_ASSIGN_OR_RETURN(dv_writer, iceberg::DeletionVectorWriter::Make(
                                         &io, WriterOptions(metadata, options, 1)));
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
    auto writer = iceberg::PositionDeleteWriter::Make(
        &io, WriterOptions(metadata, options, ++next_writer));
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

Result<TaskOutput> ExecuteRewriteTask(const iceberg::TableMetadataPtr& metadata,
                                      int64_t snapshot_id, io::FileIO& io,
                                      const RewriteTask& task, const OptimizingConfig& config,
                                      const ExecuteOptions& options) {
  if (options.operation_id.empty()) {
    return Status::InvalidArgument("an optimizing task needs an operation id");
  }
  iceberg::ScanOptions scan_options;
  scan_options.snapshot_id = snapshot_id;
  FLOE_ASSIGN_OR_RETURN(auto scan, iceberg::TableScan::Make(metadata, io, scan_options));
  TaskOutput out;
  Status status = Status::OK();
  if (!task.rewrite_data.empty()) {
    status = RewriteData(*metadata, *scan, io, task, config, options, &out);
  }
  if (status.ok() && !task.rewrite_pos_data.empty()) {
    status = ConvertDeletes(*metadata, *scan, io, task, options, &out);
  }
  if (!status.ok()) {
    DeleteOutputs(io, out);
    return status;
  }
  for (const DataFile& f : out.data_files) out.bytes_written += f.file_size_in_bytes;
  for (const DataFile& f : out.delete_files) out.bytes_written += f.file_size_in_bytes;
  return out;
}

Result<std::optional<int64_t>> CommitRewrite(
    iceberg::Table& table, int64_t planned_snapshot_id, const OptimizingPlan& plan,
    std::vector<TaskOutput> outputs, const std::map<std::string, std::string>& summary) {
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

Result<OptimizingPlan> PlanSnapshot(const iceberg::TableMetadataPtr& metadata, io::FileIO& io,
                                    int64_t snapshot_id, const OptimizingConfig& config,
                                    const PlanOptions& options) {
  iceberg::ScanOptions scan_options;
  scan_options.snapshot_id = snapshot_id;
  FLOE_ASSIGN_OR_RETURN(auto scan, iceberg::TableScan::Make(metadata, io, scan_options));
  FLOE_ASSIGN_OR_RETURN(std::vector<iceberg::FileScanTask> all_files, scan->PlanFiles());
  if (config.filter.empty()) return PlanOptimizing(all_files, config, options);
  // Only the matching files are optimized, but every file decides which deletes can go.
  FLOE_ASSIGN_OR_RETURN(scan_options.filter, iceberg::ParseExpression(config.filter));
  FLOE_ASSIGN_OR_RETURN(auto filtered, iceberg::TableScan::Make(metadata, io, scan_options));
  FLOE_ASSIGN_OR_RETURN(std::vector<iceberg::FileScanTask> files, filtered->PlanFiles());
  return PlanOptimizing(files, config, options, &all_files);
}

Result<OptimizeResult> OptimizeTable(iceberg::Table& table, const PlanOptions& options) {
  OptimizeResult result;
  iceberg::TableMetadataPtr metadata = table.metadata();
  FLOE_ASSIGN_OR_RETURN(OptimizingConfig config,
                        OptimizingConfig::FromProperties(metadata->properties));
  const iceberg::Snapshot* current = metadata->current_snapshot();
  if (current == nullptr) return result;
  result.planned_snapshot_id = current->snapshot_id;
  FLOE_ASSIGN_OR_RETURN(result.plan, PlanSnapshot(metadata, table.io(), current->snapshot_id,
                                                  config, options));
  if (result.plan.tasks.empty()) return result;

  ExecuteOptions execute;
  execute.operation_id = table.operations().env().NewUuid();
  std::vector<TaskOutput> outputs;
  outputs.reserve(result.plan.tasks.size());
  for (size_t i = 0; i < result.plan.tasks.size(); ++i) {
    execute.task_id = static_cast<int64_t>(i);
    auto output = ExecuteRewriteTask(metadata, current->snapshot_id, table.io(),
                                     result.plan.tasks[i], config, execute);
    if (!output.ok()) {
      for (const TaskOutput& o : outputs) DeleteOutputs(table.io(), o);
      return output.status();
    }
    result.totals.rows_read += output->rows_read;
    result.totals.deleted_positions += output->deleted_positions;
    result.totals.bytes_written += output->bytes_written;
    for (const DataFile& f : output->data_files) result.totals.data_files.push_back(f);
    for (const DataFile& f : output->delete_files) result.totals.delete_files.push_back(f);
    outputs.push_back(std::move(*output));
  }
  FLOE_ASSIGN_OR_RETURN(result.committed_snapshot_id,
                        CommitRewrite(table, current->snapshot_id, result.plan, std::move(outputs)));
  return result;
}

}  // namespace floe::optimize
