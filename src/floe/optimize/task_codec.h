// The JSON payloads of the task protocol (DESIGN.md §6, docs/optimizer-groups.md).
//
// A task input is self-contained, so an optimizer needs nothing but the warehouse: the
// table's metadata cut down to the planned snapshot (schemas, specs, sort orders,
// properties, format version and location), the FileIO properties of its catalog, the
// task's data files with the delete files that apply to them (full Iceberg metadata with
// data and file sequence numbers), which delete files the commit removes, and the names of
// the output files (operation id, task number). The output carries the new data and delete
// files with all their metadata and metrics, as the committer adds them to the table.
//
// Decoding never trusts the bytes: malformed JSON, wrong types or values that do not fit
// the table (unknown spec, partition values of the wrong type) are kInvalidArgument.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>

#include "floe/base/status.h"
#include "floe/iceberg/table_metadata.h"
#include "floe/io/file_io.h"
#include "floe/optimize/planner.h"
#include "floe/optimize/rewrite.h"

namespace floe::optimize {

struct TaskInput {
  std::string table;  // catalog.namespace.name, for messages
  iceberg::TableMetadataPtr metadata;
  int64_t snapshot_id = 0;
  std::map<std::string, std::string> io_properties;
  RewriteTask task;
  ExecuteOptions execute;
};

// `input.metadata` is cut down to `input.snapshot_id` (which it must hold).
Result<std::string> EncodeTaskInput(const TaskInput& input);
Result<TaskInput> DecodeTaskInput(std::string_view json);

std::string EncodeTaskOutput(const TaskOutput& output);

// Runs hand-out `attempt` of a decoded task with `io` (the FileIO of its table's
// warehouse): the rewrite of rewrite.h with the table's self-optimizing properties. The
// output files are named by the attempt too, so a retry never collides with the files a
// lost attempt left. On error nothing it wrote is left.
// `local` carries the running process's budget, spill directory and delete-key cache.
// The output's cpu_nanos is the calling thread's CPU time for the task.
Result<TaskOutput> RunTask(const TaskInput& input, io::FileIO& io, int64_t attempt,
                           const ExecuteOptions& local = {});
// Deletes the files of an output the server refused (a stale or canceled attempt). Best
// effort: orphan cleanup finds what is left.
void DeleteTaskOutput(const TaskOutput& output, io::FileIO& io);
// Partition values are typed with `metadata`'s specs.
Result<TaskOutput> DecodeTaskOutput(std::string_view json, const iceberg::TableMetadata& metadata);

}  // namespace floe::optimize
