// Optimizing runs on real Parquet files in memory: the planned, executed and committed
// rewrite keeps every row's latest value (the model), also when a writer commits between
// planning and commit (DESIGN.md §4 rules 1 and 2), and refuses to commit when the
// concurrent commit makes it unsafe.
#include "floe/optimize/rewrite.h"
#include "floe/optimize/task_codec.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "floe/base/executor.h"
#include "floe/base/json.h"
#include "floe/base/testing.h"
#include "floe/columnar/builder.h"
#include "floe/iceberg/data_writer.h"
#include "floe/iceberg/delete_writer.h"
#include "floe/iceberg/in_memory_table_operations.h"
#include "floe/iceberg/manifest_cache.h"
#include "floe/iceberg/metadata_updates.h"
#include "floe/iceberg/scan.h"
#include "floe/iceberg/snapshot_producer.h"
#include "floe/iceberg/table_metadata_builder.h"
#include "floe/io/memory_file_io.h"
#include "floe/optimize/cleanup.h"

namespace floe::optimize {
namespace {

namespace col = floe::columnar;
using iceberg::DataFile;
using iceberg::testing::FixedCommitEnvironment;
using iceberg::testing::InMemoryTableOperations;

using Model = std::map<int64_t, std::string>;

class RewriteTest : public ::testing::TestWithParam<int> {
 protected:
  void SetUp() override {
    schema_ =
        *iceberg::Schema::Make({iceberg::NestedField::Required(1, "id", iceberg::LongType()),
                                iceberg::NestedField::Optional(2, "v", iceberg::StringType())});
    auto md = iceberg::TableMetadataBuilder::NewTable(
        schema_, iceberg::PartitionSpec::Unpartitioned(), iceberg::SortOrder::Unsorted(),
        "mem://wh/db/t",
        {{"format-version", std::to_string(GetParam())},
         // The base file (~10 KB) is a target-size segment, upserts' files are fragments.
         {"self-optimizing.target-size", "8192"},
         {"self-optimizing.max-task-size-bytes", "8192"}},
        "9c12d441-03fe-4693-9a96-a0705ddf69c1", 1700000000000);
    FLOE_ASSERT_OK(md);
    auto ops = InMemoryTableOperations::Create("db.t", io_, env_, *md);
    FLOE_ASSERT_OK(ops);
    ops_ = std::move(*ops);
    table_ = Load();
  }

  std::unique_ptr<iceberg::Table> Load() {
    auto t = iceberg::Table::Load(*ops_);
    FLOE_EXPECT_OK(t);
    return std::move(*t);
  }

  col::RecordBatch Batch(const Model& rows) {
    col::SchemaPtr cs = std::make_shared<col::Schema>(schema_.ToColumnar());
    col::FixedWidthBuilder<int64_t> id(cs->field(0).type);
    col::BinaryBuilder v(cs->field(1).type);
    for (const auto& [k, value] : rows) {
      id.Append(k);
      v.Append(value);
    }
    std::vector<col::Array> cols;
    cols.push_back(id.Finish());
    cols.push_back(v.Finish());
    return col::RecordBatch(cs, static_cast<int64_t>(rows.size()), std::move(cols));
  }

  iceberg::FileWriterOptions Options(iceberg::Table& t) {
    iceberg::FileWriterOptions o;
    o.table_location = t.metadata()->location;
    o.properties = t.metadata()->properties;
    o.operation_id = env_.NewUuid();
    return o;
  }

  std::vector<DataFile> WriteData(iceberg::Table& t, const Model& rows) {
    auto w = iceberg::DataWriter::Make(&io_, schema_, iceberg::PartitionSpec::Unpartitioned(),
                                       iceberg::SortOrder::Unsorted(), false, Options(t));
    FLOE_EXPECT_OK(w);
    FLOE_EXPECT_OK((*w)->Write(Batch(rows)));
    auto files = (*w)->Close();
    FLOE_EXPECT_OK(files);
    return *files;
  }

  void Append(const Model& rows) {
    auto op = table_->NewAppend();
    for (const DataFile& f : WriteData(*table_, rows)) op->AppendFile(f);
    FLOE_ASSERT_OK(op->Commit());
    for (const auto& [k, v] : rows) model_[k] = v;
  }

  // Equality deletes of the keys plus the new rows, in one commit (a Flink upsert).
  void Upsert(iceberg::Table& t, const Model& rows) {
    auto eq = iceberg::EqualityDeleteWriter::Make(
        &io_, schema_, {1}, iceberg::PartitionSpec::Unpartitioned(), Options(t));
    FLOE_ASSERT_OK(eq);
    FLOE_ASSERT_OK((*eq)->Write(Batch(rows)));
    auto deletes = (*eq)->Close();
    FLOE_ASSERT_OK(deletes);
    auto delta = t.NewRowDelta();
    for (const DataFile& f : deletes->delete_files) delta->AddDeletes(f);
    for (const DataFile& f : WriteData(t, rows)) delta->AddRows(f);
    Status st = delta->Commit();
    FLOE_ASSERT_OK(st);
    for (const auto& [k, v] : rows) model_[k] = v;
  }

  Model Scan() {
    Model out;
    FLOE_EXPECT_OK(table_->Refresh());
    auto scan = iceberg::TableScan::Make(table_->metadata(), io_, {});
    FLOE_EXPECT_OK(scan);
    auto tasks = (*scan)->PlanFiles();
    FLOE_EXPECT_OK(tasks);
    auto reader = (*scan)->Open(*tasks);
    FLOE_EXPECT_OK(reader);
    while (true) {
      auto b = (*reader)->Next();
      FLOE_EXPECT_OK(b);
      if (!b.ok() || !b->has_value()) break;
      const col::RecordBatch& batch = **b;
      for (int64_t i = 0; i < batch.num_rows(); ++i) {
        int64_t id = batch.column(0).Value<int64_t>(i);
        EXPECT_FALSE(out.contains(id)) << "duplicate key " << id;
        out[id] = std::string(batch.column(1).BinaryValue(i));
      }
    }
    return out;
  }

  int CountContent(iceberg::FileContent content) {
    auto scan = iceberg::TableScan::Make(table_->metadata(), io_, {});
    auto tasks = (*scan)->PlanFiles();
    std::set<std::string> paths;
    for (const auto& t : *tasks) {
      if (content == iceberg::FileContent::kData) paths.insert(t.data->file.file_path);
      for (const auto* list : {&t.position_deletes, &t.equality_deletes}) {
        for (const auto& d : *list) {
          if (d->file.content == content) paths.insert(d->file.file_path);
        }
      }
    }
    return static_cast<int>(paths.size());
  }

  // The base file and three upserts touching it and each other.
  void Populate() {
    Model base;
    for (int64_t k = 0; k < 1000; ++k) base[k] = "base-" + std::to_string(k * 7919 % 100003);
    Append(base);
    Upsert(*table_, {{3, "u1"}, {400, "u1"}, {1001, "u1"}});
    Upsert(*table_, {{3, "u2"}, {401, "u2"}});
    Upsert(*table_, {{1001, "u3"}, {999, "u3"}});
  }

  struct Executed {
    OptimizingPlan plan;
    int64_t snapshot_id = 0;
    std::vector<TaskOutput> outputs;
  };

  Executed PlanAndExecute() {
    Executed e;
    FLOE_EXPECT_OK(table_->Refresh());
    auto md = table_->metadata();
    e.snapshot_id = md->current_snapshot()->snapshot_id;
    auto config = OptimizingConfig::FromProperties(md->properties);
    FLOE_EXPECT_OK(config);
    auto scan = iceberg::TableScan::Make(md, io_, {});
    auto files = (*scan)->PlanFiles();
    FLOE_EXPECT_OK(files);
    PlanOptions options;
    options.forced = OptimizingType::kMinor;
    e.plan = PlanOptimizing(*files, *config, options);
    ExecuteOptions exec;
    exec.operation_id = env_.NewUuid();
    for (const RewriteTask& task : e.plan.tasks) {
      auto out = ExecuteRewriteTask(md, e.snapshot_id, io_, task, *config, exec);
      FLOE_EXPECT_OK(out);
      e.outputs.push_back(*out);
      ++exec.task_id;
    }
    return e;
  }

  iceberg::Schema schema_;
  io::MemoryFileIO io_;
  FixedCommitEnvironment env_;
  std::unique_ptr<InMemoryTableOperations> ops_;
  std::unique_ptr<iceberg::Table> table_;
  Model model_;
};

TEST_P(RewriteTest, MinorRemovesEqualityDeletesAndKeepsRows) {
  Populate();
  ASSERT_EQ(CountContent(iceberg::FileContent::kEqualityDeletes), 3);
  Executed e = PlanAndExecute();
  ASSERT_EQ(e.plan.type, OptimizingType::kMinor);
  auto committed = CommitRewrite(*table_, e.snapshot_id, e.plan, e.outputs);
  FLOE_ASSERT_OK(committed);
  ASSERT_TRUE(committed->has_value());
  EXPECT_EQ(Scan(), model_);
  EXPECT_EQ(CountContent(iceberg::FileContent::kEqualityDeletes), 0);
  // The base file stays, with one per-file delete; the fragments became one file.
  EXPECT_EQ(CountContent(iceberg::FileContent::kPositionDeletes), 1);
  EXPECT_EQ(CountContent(iceberg::FileContent::kData), 2);
  const iceberg::Snapshot* s = table_->metadata()->current_snapshot();
  EXPECT_EQ(s->operation, "replace");
  EXPECT_EQ(*s->SummaryValue("snapshot-producer"), "OPTIMIZE");
}

// Evaluations share a manifest cache: after a commit only the manifests it added are read,
// and the plan equals the one read from the files.
TEST_P(RewriteTest, PlanWithTheManifestCacheReadsOnlyNewManifests) {
  Populate();
  FLOE_ASSERT_OK(table_->Refresh());
  auto config = OptimizingConfig::FromProperties(table_->metadata()->properties);
  FLOE_ASSERT_OK(config);
  iceberg::ManifestEntryCache cache(1'000'000);
  auto plan_with = [&](iceberg::ManifestEntryCache* c) {
    auto md = table_->metadata();
    PlanOptions options;
    options.manifest_cache = c;
    options.forced = OptimizingType::kMinor;
    auto plan = PlanSnapshot(md, io_, md->current_snapshot()->snapshot_id, *config, options);
    FLOE_EXPECT_OK(plan);
    std::vector<std::string> inputs;
    for (const RewriteTask& t : plan->tasks) {
      for (const auto& f : t.rewrite_data) inputs.push_back(f.data->file.file_path);
      for (const auto& f : t.rewrite_pos_data) inputs.push_back(f.data->file.file_path);
      for (const auto& f : t.rewritten_deletes) inputs.push_back(f->file.file_path);
    }
    std::sort(inputs.begin(), inputs.end());
    return inputs;
  };
  const size_t manifests = [&] {
    auto list = iceberg::ReadSnapshotManifests(*table_->metadata()->current_snapshot(), io_);
    FLOE_EXPECT_OK(list);
    return list->size();
  }();
  const auto uncached = plan_with(nullptr);
  EXPECT_EQ(plan_with(&cache), uncached);
  const int64_t first_misses = cache.misses();
  EXPECT_EQ(first_misses, static_cast<int64_t>(manifests));
  EXPECT_EQ(cache.hits(), 0);
  // One more commit: its manifests are the only ones read.
  Upsert(*table_, {{5, "u4"}});
  FLOE_ASSERT_OK(table_->Refresh());
  auto after = iceberg::ReadSnapshotManifests(*table_->metadata()->current_snapshot(), io_);
  FLOE_ASSERT_OK(after);
  const auto again = plan_with(&cache);
  EXPECT_EQ(again, plan_with(nullptr));
  EXPECT_EQ(cache.misses() - first_misses, static_cast<int64_t>(after->size() - manifests));
  EXPECT_EQ(cache.hits(), static_cast<int64_t>(manifests));
}

// The task protocol's payloads: every task goes through JSON (as to a standalone optimizer)
// and back; the committed result must still be the model.
TEST_P(RewriteTest, TasksRunFromTheirProtocolPayloads) {
  Populate();
  FLOE_ASSERT_OK(table_->Refresh());
  auto md = table_->metadata();
  const int64_t snapshot_id = md->current_snapshot()->snapshot_id;
  auto config = OptimizingConfig::FromProperties(md->properties);
  FLOE_ASSERT_OK(config);
  PlanOptions options;
  options.forced = OptimizingType::kMinor;
  auto plan = PlanSnapshot(md, io_, snapshot_id, *config, options);
  FLOE_ASSERT_OK(plan);
  ASSERT_FALSE(plan->tasks.empty());
  std::vector<TaskOutput> outputs;
  for (size_t i = 0; i < plan->tasks.size(); ++i) {
    TaskInput input;
    input.table = "db.t";
    input.metadata = md;
    input.snapshot_id = snapshot_id;
    input.io_properties = {{"s3.region", "x"}};
    input.task = plan->tasks[i];
    input.execute.operation_id = env_.NewUuid();
    input.execute.task_id = static_cast<int64_t>(i);
    auto payload = EncodeTaskInput(input);
    FLOE_ASSERT_OK(payload);
    auto decoded = DecodeTaskInput(*payload);
    FLOE_ASSERT_OK(decoded);
    EXPECT_EQ(decoded->io_properties, input.io_properties);
    EXPECT_EQ(decoded->metadata->snapshots.size(), 1u);
    ASSERT_EQ(decoded->task.rewrite_data.size(), plan->tasks[i].rewrite_data.size());
    for (size_t j = 0; j < decoded->task.rewrite_data.size(); ++j) {
      const auto& a = *decoded->task.rewrite_data[j].data;
      const auto& b = *plan->tasks[i].rewrite_data[j].data;
      EXPECT_EQ(a.file, b.file);
      EXPECT_EQ(a.data_sequence_number, b.data_sequence_number);
      EXPECT_EQ(decoded->task.rewrite_data[j].equality_deletes.size(),
                plan->tasks[i].rewrite_data[j].equality_deletes.size());
    }
    auto ran = RunTask(*decoded, io_, 1);
    FLOE_ASSERT_OK(ran);
    auto output = DecodeTaskOutput(EncodeTaskOutput(*ran), *md);
    FLOE_ASSERT_OK(output);
    EXPECT_EQ(output->data_files, ran->data_files);
    EXPECT_EQ(output->delete_files, ran->delete_files);
    // Decoding and encoding Parquet is CPU work on the calling thread; the output says how
    // much, and the figure survives the protocol.
    EXPECT_GT(ran->cpu_nanos, 0);
    EXPECT_EQ(output->cpu_nanos, ran->cpu_nanos);
    outputs.push_back(std::move(*output));
  }
  auto committed = CommitRewrite(*table_, snapshot_id, *plan, outputs);
  FLOE_ASSERT_OK(committed);
  EXPECT_EQ(Scan(), model_);
  EXPECT_EQ(CountContent(iceberg::FileContent::kEqualityDeletes), 0);
}

// Payloads come from the network: malformed ones are errors, never crashes.
TEST_P(RewriteTest, MalformedPayloadsAreRefused) {
  Populate();
  FLOE_ASSERT_OK(table_->Refresh());
  for (std::string_view bad :
       {"", "[]", "{\"version\":1}", "{\"version\":2}", "not json",
        "{\"version\":1,\"data-files\":[{\"content\":0}],\"delete-files\":[]}",
        "{\"version\":1,\"data-files\":[{\"content\":9,\"file-path\":\"x\"}],"
        "\"delete-files\":[]}"}) {
    EXPECT_EQ(DecodeTaskInput(bad).status().code(), StatusCode::kInvalidArgument) << bad;
    EXPECT_EQ(DecodeTaskOutput(bad, *table_->metadata()).status().code(),
              StatusCode::kInvalidArgument)
        << bad;
  }
  // Nesting: an input holds table metadata and may nest to kMaxStoredJsonDepth, an output
  // to kDefaultMaxJsonDepth; past those, refused before any DOM is built.
  auto nested = [](int levels) {  // an object holding `levels` arrays: levels + 1 deep
    return R"({"x":)" + std::string(static_cast<size_t>(levels), '[') +
           std::string(static_cast<size_t>(levels), ']') + "}";
  };
  EXPECT_THAT(DecodeTaskInput(nested(kMaxStoredJsonDepth - 1)),
              IsError(StatusCode::kInvalidArgument, ::testing::HasSubstr("version")));
  EXPECT_THAT(DecodeTaskInput(nested(kMaxStoredJsonDepth)),
              IsError(StatusCode::kInvalidArgument, ::testing::HasSubstr("nested deeper")));
  EXPECT_THAT(DecodeTaskOutput(nested(kDefaultMaxJsonDepth - 1), *table_->metadata()),
              IsError(StatusCode::kInvalidArgument, ::testing::HasSubstr("version")));
  EXPECT_THAT(DecodeTaskOutput(nested(kDefaultMaxJsonDepth), *table_->metadata()),
              IsError(StatusCode::kInvalidArgument, ::testing::HasSubstr("nested deeper")));
  EXPECT_THAT(DecodeTaskInput(std::string(10 << 20, '[')),
              IsError(StatusCode::kInvalidArgument, ::testing::HasSubstr("nested deeper")));
}

// An optimizer that does not report its CPU time (an older one) is accepted as 0; a negative
// figure from the network is refused.
TEST_P(RewriteTest, OutputCpuTimeIsOptionalAndNotNegative) {
  Populate();
  FLOE_ASSERT_OK(table_->Refresh());
  TaskOutput output;
  output.rows_read = 3;
  output.cpu_nanos = 1234;
  auto json = nlohmann::json::parse(EncodeTaskOutput(output));
  FLOE_ASSERT_OK_AND_ASSIGN(TaskOutput decoded, DecodeTaskOutput(json.dump(), *table_->metadata()));
  EXPECT_EQ(decoded.cpu_nanos, 1234);
  json.erase("cpu-nanos");
  FLOE_ASSERT_OK_AND_ASSIGN(decoded, DecodeTaskOutput(json.dump(), *table_->metadata()));
  EXPECT_EQ(decoded.cpu_nanos, 0);
  EXPECT_EQ(decoded.rows_read, 3);
  json["cpu-nanos"] = -1;
  FLOE_EXPECT_CODE(DecodeTaskOutput(json.dump(), *table_->metadata()), kInvalidArgument);
}

// OptimizeTable runs the plan's tasks as a TaskGroup on the executor it is given (one job
// submitted per task, no thread of its own) and the committed table is still the model.
TEST_P(RewriteTest, OptimizeTableRunsTasksOnThePassedExecutor) {
  Populate();
  FLOE_ASSERT_OK(table_->Refresh());
  FLOE_ASSERT_OK_AND_ASSIGN(auto executor, Executor::Make({.name = "rewrite-test", .threads = 2}));
  PlanOptions options;
  options.forced = OptimizingType::kMinor;
  options.available_threads = 3;
  ExecuteOptions execute;
  execute.executor = executor.get();
  FLOE_ASSERT_OK_AND_ASSIGN(OptimizeResult r, OptimizeTable(*table_, options, execute));
  ASSERT_FALSE(r.plan.tasks.empty());
  ASSERT_TRUE(r.committed_snapshot_id.has_value());
  EXPECT_EQ(executor->stats().submitted, r.plan.tasks.size());
  EXPECT_EQ(executor->stats().rejected, 0u);
  FLOE_ASSERT_OK(table_->Refresh());
  EXPECT_EQ(Scan(), model_);
  EXPECT_EQ(CountContent(iceberg::FileContent::kEqualityDeletes), 0);
}

// Rule 1: an upsert committed while the rewrite runs deletes rows the rewrite copied; the
// copies keep the planned snapshot's sequence number, so the upsert's deletes still apply.
TEST_P(RewriteTest, ConcurrentUpsertStillApplies) {
  Populate();
  Executed e = PlanAndExecute();
  auto writer = Load();
  Upsert(*writer, {{3, "late"}, {1001, "late"}, {500, "late"}, {401, "late"}});
  auto committed = CommitRewrite(*table_, e.snapshot_id, e.plan, e.outputs);
  FLOE_ASSERT_OK(committed);
  EXPECT_EQ(Scan(), model_);
  // Only the concurrent upsert's equality delete is left.
  EXPECT_EQ(CountContent(iceberg::FileContent::kEqualityDeletes), 1);
}

// A row deleted by position in a file the rewrite copies would come back: the commit is
// refused and its files are deleted; the table keeps the delete.
TEST_P(RewriteTest, ConcurrentPositionDeleteOnRewrittenFileConflicts) {
  Populate();
  Executed e = PlanAndExecute();
  ASSERT_FALSE(e.plan.tasks.empty());
  ASSERT_FALSE(e.plan.tasks[0].rewrite_data.empty());
  // The newest upsert's data file: its rows (999, 1001) are live.
  const iceberg::ScanFile* newest = nullptr;
  for (const auto& t : e.plan.tasks[0].rewrite_data) {
    if (newest == nullptr || t.data->data_sequence_number > newest->data_sequence_number) {
      newest = t.data.get();
    }
  }
  const DataFile& victim = newest->file;

  auto writer = Load();
  const bool dv = GetParam() >= 3;
  std::vector<DataFile> deletes;
  std::vector<int64_t> positions;  // every row of the file: some of them are live
  for (int64_t p = 0; p < victim.record_count; ++p) positions.push_back(p);
  if (dv) {
    auto w = iceberg::DeletionVectorWriter::Make(&io_, Options(*writer));
    FLOE_ASSERT_OK(
        (*w)->Delete(victim.file_path, positions, iceberg::PartitionSpec::Unpartitioned(), {}));
    deletes = (*w)->Close()->delete_files;
  } else {
    auto w = iceberg::PositionDeleteWriter::Make(&io_, Options(*writer));
    FLOE_ASSERT_OK(
        (*w)->Delete(victim.file_path, positions, iceberg::PartitionSpec::Unpartitioned(), {}));
    deletes = (*w)->Close()->delete_files;
  }
  auto delta = writer->NewRowDelta();
  for (const DataFile& f : deletes) delta->AddDeletes(f);
  FLOE_ASSERT_OK(delta->Commit());
  Model before = Scan();
  ASSERT_LT(before.size(), model_.size());

  auto committed = CommitRewrite(*table_, e.snapshot_id, e.plan, e.outputs);
  ASSERT_THAT(committed, IsError(StatusCode::kConflict));
  for (const TaskOutput& o : e.outputs) {
    for (const DataFile& f : o.data_files) EXPECT_FALSE(*io_.Exists(f.file_path)) << f.file_path;
  }
  EXPECT_EQ(Scan(), before);
}

// Live delete files in the current snapshot's manifests (not only those a scan applies).
int LiveDeleteFiles(const iceberg::TableMetadata& md, io::FileIO& io) {
  int count = 0;
  auto manifests = iceberg::ReadSnapshotManifests(*md.current_snapshot(), io);
  FLOE_EXPECT_OK(manifests);
  for (const iceberg::ManifestFile& m : *manifests) {
    if (m.content != iceberg::ManifestContent::kDeletes) continue;
    auto entries = iceberg::ReadManifestEntries(md, m, io, iceberg::ManifestEntryFilter::kLive);
    FLOE_EXPECT_OK(entries);
    count += static_cast<int>(entries->size());
  }
  return count;
}

// An upsert's equality deletes apply to older data only; once the older file is deleted
// they apply to nothing, yet every reader still opens them. Cleaning removes exactly those.
TEST_P(RewriteTest, DanglingDeleteFilesAreRemoved) {
  Append({{1, "a"}, {2, "b"}});
  std::vector<std::string> base_files;
  auto base_scan = iceberg::TableScan::Make(table_->metadata(), io_, {});
  FLOE_ASSERT_OK(base_scan);
  auto base_tasks = (*base_scan)->PlanFiles();
  FLOE_ASSERT_OK(base_tasks);
  for (const auto& t : *base_tasks) base_files.push_back(t.data->file.file_path);
  Upsert(*table_, {{2, "b2"}, {3, "c"}});
  auto del = table_->NewDelete();
  for (const std::string& path : base_files) del->DeleteFile(path);
  FLOE_ASSERT_OK(del->Commit());
  model_.erase(1);
  ASSERT_EQ(LiveDeleteFiles(*table_->metadata(), io_), 1);

  auto cleaned = CleanDanglingDeleteFiles(*table_);
  FLOE_ASSERT_OK(cleaned);
  EXPECT_EQ(cleaned->equality_delete_files_removed, 1);
  EXPECT_EQ(cleaned->position_delete_files_removed, 0);
  ASSERT_TRUE(cleaned->snapshot_id.has_value());
  EXPECT_EQ(LiveDeleteFiles(*table_->metadata(), io_), 0);
  EXPECT_EQ(*table_->metadata()->current_snapshot()->SummaryValue("snapshot-producer"),
            "CLEAN_DANGLING_DELETE");
  EXPECT_EQ(Scan(), model_);

  auto again = CleanDanglingDeleteFiles(*table_);
  FLOE_ASSERT_OK(again);
  EXPECT_FALSE(again->snapshot_id.has_value());
}

// Deletes that still apply are kept.
TEST_P(RewriteTest, LiveDeleteFilesAreKept) {
  Populate();
  const int before = LiveDeleteFiles(*table_->metadata(), io_);
  ASSERT_GT(before, 0);
  auto cleaned = CleanDanglingDeleteFiles(*table_);
  FLOE_ASSERT_OK(cleaned);
  EXPECT_FALSE(cleaned->snapshot_id.has_value());
  EXPECT_EQ(LiveDeleteFiles(*table_->metadata(), io_), before);
  EXPECT_EQ(Scan(), model_);
}

// Unreferenced files under data/ and metadata/ older than the bound go; referenced files,
// young files and files outside the two directories stay.
TEST_P(RewriteTest, OrphanFilesOlderThanTheBoundAreDeleted) {
  Populate();
  io_.Put("mem://wh/db/t/data/orphan-1.parquet", "left by a failed writer");
  io_.Put("mem://wh/db/t/metadata/orphan-m0.avro", "a manifest of a lost commit");
  io_.Put("mem://wh/db/t/data-old/kept.parquet", "outside the data directory");
  io_.Put("mem://wh/db/t/data/young.parquet", "a writer's file, not committed yet");
  auto young = io_.List("mem://wh/db/t/data/young.parquet");
  FLOE_ASSERT_OK(young);
  ASSERT_EQ(young->size(), 1u);
  const int64_t young_ms = (*young)[0].modified_ms;
  auto referenced = ReferencedFiles(*table_->metadata(), io_);
  FLOE_ASSERT_OK(referenced);
  ASSERT_GT(referenced->size(), 5u);

  auto cleaned = CleanOrphanFiles(*table_, young_ms, /*min_age_ms=*/0,
                                  OrphanCleaningDirectories(*table_->metadata()));
  FLOE_ASSERT_OK(cleaned);
  EXPECT_EQ(cleaned->content_files_deleted, 1);
  EXPECT_EQ(cleaned->metadata_files_deleted, 1);
  EXPECT_EQ(cleaned->too_young, 1);
  EXPECT_EQ(cleaned->failed_deletes, 0);
  EXPECT_FALSE(*io_.Exists("mem://wh/db/t/data/orphan-1.parquet"));
  EXPECT_FALSE(*io_.Exists("mem://wh/db/t/metadata/orphan-m0.avro"));
  EXPECT_TRUE(*io_.Exists("mem://wh/db/t/data-old/kept.parquet"));
  EXPECT_TRUE(*io_.Exists("mem://wh/db/t/data/young.parquet"));
  for (const std::string& path : *referenced) EXPECT_TRUE(*io_.Exists(path)) << path;
  EXPECT_EQ(Scan(), model_);
}

// A cleaner holding the table as it was before later commits (an evaluation that began
// earlier) keeps those commits' files, however old they look: it reads the references of
// the table as it is after listing. Here every file is older than the bound.
TEST_P(RewriteTest, OrphanCleaningWithAStaleTableKeepsLaterCommitsFiles) {
  Populate();
  std::unique_ptr<iceberg::Table> stale = Load();
  Append({{1000, "committed after the cleaner loaded the table"}});
  Upsert(*table_, {{1, "upserted later too"}});
  auto referenced = ReferencedFiles(*table_->metadata(), io_);
  FLOE_ASSERT_OK(referenced);
  io_.Put("mem://wh/db/t/data/orphan-2.parquet", "left by a failed writer");
  const int64_t far_future_ms = int64_t{1} << 50;

  auto cleaned = CleanOrphanFiles(*stale, far_future_ms, /*min_age_ms=*/0,
                                  OrphanCleaningDirectories(*stale->metadata()));
  FLOE_ASSERT_OK(cleaned);
  EXPECT_EQ(cleaned->content_files_deleted, 1);
  EXPECT_EQ(cleaned->metadata_files_deleted, 0);
  EXPECT_FALSE(*io_.Exists("mem://wh/db/t/data/orphan-2.parquet"));
  for (const std::string& path : *referenced) EXPECT_TRUE(*io_.Exists(path)) << path;
  EXPECT_EQ(stale->metadata()->metadata_file_location, table_->metadata()->metadata_file_location);
  EXPECT_EQ(Scan(), model_);
}

// gc.enabled=false set by a commit the cleaner had not seen: nothing is deleted.
TEST_P(RewriteTest, OrphanCleaningHonoursGcDisabledByALaterCommit) {
  Populate();
  std::unique_ptr<iceberg::Table> stale = Load();
  auto update = table_->NewUpdateProperties();
  update->Set("gc.enabled", "false");
  FLOE_ASSERT_OK(update->Commit());
  io_.Put("mem://wh/db/t/data/orphan-3.parquet", "left by a failed writer");

  auto cleaned = CleanOrphanFiles(*stale, int64_t{1} << 50, /*min_age_ms=*/0,
                                  OrphanCleaningDirectories(*stale->metadata()));
  FLOE_ASSERT_OK(cleaned);
  EXPECT_EQ(cleaned->content_files_deleted + cleaned->metadata_files_deleted, 0);
  EXPECT_TRUE(*io_.Exists("mem://wh/db/t/data/orphan-3.parquet"));
}

TEST(NormalizeLocationTest, EquivalentSpellings) {
  EXPECT_EQ(NormalizeLocation("file:/wh/t/data/a.parquet"), "/wh/t/data/a.parquet");
  EXPECT_EQ(NormalizeLocation("file:///wh/t/data/a.parquet"), "/wh/t/data/a.parquet");
  EXPECT_EQ(NormalizeLocation("file://localhost/wh/a"), "/wh/a");
  EXPECT_EQ(NormalizeLocation("/wh/a"), "/wh/a");
  EXPECT_EQ(NormalizeLocation("s3a://bucket/k"), "s3://bucket/k");
  EXPECT_EQ(NormalizeLocation("s3n://bucket/k"), "s3://bucket/k");
  EXPECT_EQ(NormalizeLocation("s3://bucket/k"), "s3://bucket/k");
  EXPECT_EQ(NormalizeLocation("gs://bucket/k"), "gs://bucket/k");
}

INSTANTIATE_TEST_SUITE_P(FormatVersions, RewriteTest, ::testing::Values(2, 3),
                         [](const auto& info) { return "v" + std::to_string(info.param); });

}  // namespace
}  // namespace floe::optimize
