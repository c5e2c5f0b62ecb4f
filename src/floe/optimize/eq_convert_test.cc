// Equality-delete conversion (self-optimizing.eq-delete.max-age-ms) on real Parquet files in
// memory, for v2 (file-scoped position deletes) and v3 (deletion vectors), unpartitioned and
// partitioned: after PlanConversionSnapshot, ExecuteRewriteTask and CommitRewrite the table
// has no live equality-delete file, keeps every data file it had, and reads as the model of
// the upserts (the Iceberg spec's sequence-number rules), also when writers commit while
// the conversion runs (DESIGN.md §4 rules 1 and 2).
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <atomic>
#include <map>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "floe/base/testing.h"
#include "floe/columnar/builder.h"
#include "floe/iceberg/data_writer.h"
#include "floe/iceberg/delete_writer.h"
#include "floe/iceberg/in_memory_table_operations.h"
#include "floe/iceberg/manifest.h"
#include "floe/iceberg/partition_spec.h"
#include "floe/iceberg/scan.h"
#include "floe/iceberg/snapshot_producer.h"
#include "floe/iceberg/table_metadata_builder.h"
#include "floe/io/memory_file_io.h"
#include "floe/optimize/rewrite.h"
#include "floe/optimize/task_codec.h"

namespace floe::optimize {
namespace {

namespace col = floe::columnar;
using iceberg::DataFile;
using iceberg::FileContent;
using iceberg::testing::FixedCommitEnvironment;
using iceberg::testing::InMemoryTableOperations;

// id -> v; a row's partition is id % 3.
using Model = std::map<int64_t, std::string>;

constexpr int64_t kStartMs = 1700000000000;

// Counts the bytes read from files whose path contains `watch` (a FileIO around another).
class CountingFileIO final : public io::FileIO {
 public:
  CountingFileIO(io::FileIO& base, std::string watch) : base_(base), watch_(std::move(watch)) {}
  Result<std::unique_ptr<io::InputFile>> OpenInput(std::string_view location) override {
    FLOE_ASSIGN_OR_RETURN(std::unique_ptr<io::InputFile> f, base_.OpenInput(location));
    if (location.find(watch_) == std::string_view::npos) return f;
    return std::unique_ptr<io::InputFile>(std::make_unique<Counted>(std::move(f), &bytes_read_));
  }
  Result<std::unique_ptr<io::OutputStream>> CreateOutput(std::string_view location,
                                                         bool overwrite) override {
    return base_.CreateOutput(location, overwrite);
  }
  Status Delete(std::string_view location) override { return base_.Delete(location); }
  Result<bool> Exists(std::string_view location) override { return base_.Exists(location); }
  Result<std::vector<io::FileInfo>> List(std::string_view prefix) override {
    return base_.List(prefix);
  }
  int64_t bytes_read() const { return bytes_read_; }

 private:
  class Counted final : public io::InputFile {
   public:
    Counted(std::unique_ptr<io::InputFile> f, std::atomic<int64_t>* n) : f_(std::move(f)), n_(n) {}
    const std::string& location() const override { return f_->location(); }
    uint64_t size() const override { return f_->size(); }
    Status ReadAt(uint64_t offset, size_t n, uint8_t* out) const override {
      *n_ += static_cast<int64_t>(n);
      return f_->ReadAt(offset, n, out);
    }

   private:
    std::unique_ptr<io::InputFile> f_;
    std::atomic<int64_t>* n_;
  };
  io::FileIO& base_;
  std::string watch_;
  std::atomic<int64_t> bytes_read_{0};
};

// (format version, partitioned)
class EqConvertTest : public ::testing::TestWithParam<std::tuple<int, bool>> {
 protected:
  int version() const { return std::get<0>(GetParam()); }
  bool partitioned() const { return std::get<1>(GetParam()); }

  void SetUp() override {
    schema_ =
        *iceberg::Schema::Make({iceberg::NestedField::Required(1, "id", iceberg::LongType()),
                                iceberg::NestedField::Required(2, "part", iceberg::LongType()),
                                iceberg::NestedField::Optional(3, "v", iceberg::StringType())});
    if (partitioned()) {
      auto spec = iceberg::PartitionSpecBuilder(schema_).Identity("part").Build();
      FLOE_ASSERT_OK(spec);
      spec_ = *spec;
      // Flink's rule: the partition source is part of the upsert key.
      equality_ids_ = {1, 2};
    }
    auto md = iceberg::TableMetadataBuilder::NewTable(
        schema_, spec_, iceberg::SortOrder::Unsorted(), "mem://wh/db/t",
        {{"format-version", std::to_string(version())},
         {"self-optimizing.eq-delete.max-age-ms", "10000"}},
        "9c12d441-03fe-4693-9a96-a0705ddf69c1", kStartMs);
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
    col::FixedWidthBuilder<int64_t> part(cs->field(1).type);
    col::BinaryBuilder v(cs->field(2).type);
    for (const auto& [k, value] : rows) {
      id.Append(k);
      part.Append(k % 3);
      v.Append(value);
    }
    std::vector<col::Array> cols;
    cols.push_back(id.Finish());
    cols.push_back(part.Finish());
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
    auto w = iceberg::DataWriter::Make(&io_, schema_, spec_, iceberg::SortOrder::Unsorted(), false,
                                       Options(t));
    FLOE_EXPECT_OK(w);
    FLOE_EXPECT_OK((*w)->Write(Batch(rows)));
    auto files = (*w)->Close();
    FLOE_EXPECT_OK(files);
    return *files;
  }

  std::vector<DataFile> WriteEqualityDeletes(iceberg::Table& t, const Model& keys) {
    auto eq = iceberg::EqualityDeleteWriter::Make(&io_, schema_, equality_ids_, spec_, Options(t));
    FLOE_EXPECT_OK(eq);
    FLOE_EXPECT_OK((*eq)->Write(Batch(keys)));
    auto deletes = (*eq)->Close();
    FLOE_EXPECT_OK(deletes);
    return deletes->delete_files;
  }

  // Each commit one second after the last: commit times are what the schedule reads.
  void Append(iceberg::Table& t, const Model& rows) {
    env_.Advance(1000);
    auto op = t.NewAppend();
    for (const DataFile& f : WriteData(t, rows)) op->AppendFile(f);
    FLOE_ASSERT_OK(op->Commit());
    for (const auto& [k, v] : rows) model_[k] = v;
  }

  // Equality deletes of the keys plus the new rows, in one commit (a Flink upsert).
  void Upsert(iceberg::Table& t, const Model& rows) {
    env_.Advance(1000);
    auto delta = t.NewRowDelta();
    for (const DataFile& f : WriteEqualityDeletes(t, rows)) delta->AddDeletes(f);
    for (const DataFile& f : WriteData(t, rows)) delta->AddRows(f);
    FLOE_ASSERT_OK(delta->Commit());
    for (const auto& [k, v] : rows) model_[k] = v;
  }

  // Equality deletes alone (a Flink delete).
  void DeleteKeys(iceberg::Table& t, const std::set<int64_t>& ids) {
    env_.Advance(1000);
    Model keys;
    for (int64_t id : ids) keys[id] = "";
    auto delta = t.NewRowDelta();
    for (const DataFile& f : WriteEqualityDeletes(t, keys)) delta->AddDeletes(f);
    FLOE_ASSERT_OK(delta->Commit());
    for (int64_t id : ids) model_.erase(id);
  }

  // What a reader of the current snapshot sees, every delete applied.
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
        EXPECT_EQ(batch.column(1).Value<int64_t>(i), id % 3);
        out[id] = std::string(batch.column(2).BinaryValue(i));
      }
    }
    return out;
  }

  // The live files of the current snapshot's manifests (not only those a scan applies).
  std::vector<DataFile> LiveFiles(FileContent content) {
    FLOE_EXPECT_OK(table_->Refresh());
    const iceberg::TableMetadata& md = *table_->metadata();
    std::vector<DataFile> out;
    auto manifests = iceberg::ReadSnapshotManifests(*md.current_snapshot(), io_);
    FLOE_EXPECT_OK(manifests);
    for (const iceberg::ManifestFile& m : *manifests) {
      auto entries = iceberg::ReadManifestEntries(md, m, io_, iceberg::ManifestEntryFilter::kLive);
      FLOE_EXPECT_OK(entries);
      for (iceberg::ManifestEntry& e : *entries) {
        if (e.data_file.content == content) out.push_back(std::move(e.data_file));
      }
    }
    return out;
  }
  std::set<std::string> LiveDataPaths() {
    std::set<std::string> out;
    for (const DataFile& f : LiveFiles(FileContent::kData)) out.insert(f.file_path);
    return out;
  }

  // Deletes `positions` of `file` by position: a deletion vector (v3) or a file-scoped
  // position delete file (v2), in one commit of `t`.
  void DeletePositions(iceberg::Table& t, const DataFile& file, std::vector<int64_t> positions) {
    env_.Advance(1000);
    std::vector<DataFile> deletes;
    if (version() >= 3) {
      auto w = iceberg::DeletionVectorWriter::Make(&io_, Options(t));
      FLOE_ASSERT_OK(w);
      FLOE_ASSERT_OK((*w)->Delete(file.file_path, positions, spec_, file.partition));
      auto written = (*w)->Close();
      FLOE_ASSERT_OK(written);
      deletes = written->delete_files;
    } else {
      auto w = iceberg::PositionDeleteWriter::Make(&io_, Options(t));
      FLOE_ASSERT_OK(w);
      FLOE_ASSERT_OK((*w)->Delete(file.file_path, positions, spec_, file.partition));
      auto written = (*w)->Close();
      FLOE_ASSERT_OK(written);
      deletes = written->delete_files;
    }
    auto delta = t.NewRowDelta();
    for (const DataFile& f : deletes) delta->AddDeletes(f);
    FLOE_ASSERT_OK(delta->Commit());
  }

  // The ids at the first `n` positions of data file `file`, read from it alone.
  std::vector<int64_t> IdsAt(const DataFile& file, int64_t n) {
    std::vector<int64_t> out;
    auto scan = iceberg::TableScan::Make(table_->metadata(), io_, {});
    FLOE_EXPECT_OK(scan);
    auto tasks = (*scan)->PlanFiles();
    FLOE_EXPECT_OK(tasks);
    std::vector<iceberg::FileScanTask> one;
    for (const auto& t : *tasks) {
      if (t.data->file.file_path == file.file_path) one.push_back(t);
    }
    EXPECT_EQ(one.size(), 1u);
    auto reader = (*scan)->Open(one);
    FLOE_EXPECT_OK(reader);
    while (static_cast<int64_t>(out.size()) < n) {
      auto b = (*reader)->Next();
      FLOE_EXPECT_OK(b);
      if (!b.ok() || !b->has_value()) break;
      for (int64_t i = 0; i < (**b).num_rows() && static_cast<int64_t>(out.size()) < n; ++i) {
        out.push_back((**b).column(0).Value<int64_t>(i));
      }
    }
    return out;
  }

  struct Executed {
    ConversionPlan conversion;
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
    PlanOptions options;
    options.now_ms = env_.NowMillis();
    auto planned = PlanConversionSnapshot(md, io_, e.snapshot_id, *config, options);
    FLOE_EXPECT_OK(planned);
    e.conversion = std::move(*planned);
    // Every task through its protocol payload, as the service hands it to an optimizer.
    const std::string operation_id = env_.NewUuid();
    for (size_t i = 0; i < e.conversion.plan.tasks.size(); ++i) {
      const RewriteTask& task = e.conversion.plan.tasks[i];
      EXPECT_TRUE(task.rewrite_data.empty()) << "a conversion rewrote data";
      TaskInput input;
      input.table = "db.t";
      input.metadata = md;
      input.snapshot_id = e.snapshot_id;
      input.task = task;
      input.execute.operation_id = operation_id;
      input.execute.task_id = static_cast<int64_t>(i);
      auto payload = EncodeTaskInput(input);
      FLOE_EXPECT_OK(payload);
      auto decoded = DecodeTaskInput(*payload);
      FLOE_EXPECT_OK(decoded);
      if (!decoded.ok()) continue;
      auto out = RunTask(*decoded, io_, 1);
      FLOE_EXPECT_OK(out);
      if (!out.ok()) continue;
      auto back = DecodeTaskOutput(EncodeTaskOutput(*out), *md);
      FLOE_EXPECT_OK(back);
      if (back.ok()) e.outputs.push_back(std::move(*back));
    }
    return e;
  }

  Result<std::optional<int64_t>> Commit(Executed e) {
    return CommitRewrite(*table_, e.snapshot_id, e.conversion.plan, std::move(e.outputs));
  }

  // One per-file delete per data file at most, in the per-file form: a DV (v3) or a position
  // delete file naming only that data file (v2).
  void ExpectPerFileDeletes() {
    std::map<std::string, int> per_file;
    for (const DataFile& d : LiveFiles(FileContent::kPositionDeletes)) {
      ASSERT_TRUE(d.referenced_data_file.has_value()) << d.file_path;
      EXPECT_EQ(d.file_format == iceberg::FileFormat::kPuffin, version() >= 3) << d.file_path;
      ++per_file[*d.referenced_data_file];
    }
    for (const auto& [data, n] : per_file) EXPECT_EQ(n, 1) << data;
  }

  // A base of 60 rows, then upserts and deletes over three commits with different sequence
  // numbers, a reinsert after a delete, and an append after the last equality delete.
  void Populate() {
    Model base;
    for (int64_t k = 0; k < 60; ++k) base[k] = "base-" + std::to_string(k);
    Append(*table_, base);
    Upsert(*table_, {{3, "u1"}, {40, "u1"}, {61, "u1"}});
    Upsert(*table_, {{3, "u2"}, {41, "u2"}, {61, "u2"}});
    DeleteKeys(*table_, {5, 7, 40});
    // A data file committed after the deletes of 5 and 7: their deletes (lower sequence
    // numbers) do not apply to it, so the reinserted rows stay.
    Append(*table_, {{5, "again"}, {70, "new"}});
  }

  iceberg::Schema schema_;
  iceberg::PartitionSpec spec_ = iceberg::PartitionSpec::Unpartitioned();
  std::vector<int32_t> equality_ids_ = {1};
  io::MemoryFileIO io_;
  FixedCommitEnvironment env_{kStartMs};
  std::unique_ptr<InMemoryTableOperations> ops_;
  std::unique_ptr<iceberg::Table> table_;
  Model model_;
};

TEST_P(EqConvertTest, ConvertsEveryEqualityDeleteWithoutRewritingData) {
  Populate();
  ASSERT_EQ(Scan(), model_);
  const int64_t first_eq_commit_ms = kStartMs + 2000;  // the first upsert
  ASSERT_FALSE(LiveFiles(FileContent::kEqualityDeletes).empty());
  const std::set<std::string> data_before = LiveDataPaths();

  Executed e = PlanAndExecute();
  ASSERT_EQ(e.conversion.plan.type, OptimizingType::kConvert);
  EXPECT_EQ(e.conversion.oldest_commit_ms, first_eq_commit_ms);
  EXPECT_EQ(e.conversion.equality_delete_files,
            static_cast<int64_t>(LiveFiles(FileContent::kEqualityDeletes).size()));
  auto committed = Commit(std::move(e));
  FLOE_ASSERT_OK(committed);
  ASSERT_TRUE(committed->has_value());

  EXPECT_EQ(Scan(), model_);
  EXPECT_EQ(model_.at(5), "again");
  EXPECT_FALSE(model_.contains(7));
  EXPECT_EQ(model_.at(3), "u2");
  EXPECT_TRUE(LiveFiles(FileContent::kEqualityDeletes).empty());
  EXPECT_EQ(LiveDataPaths(), data_before) << "data files were rewritten";
  ExpectPerFileDeletes();
  const iceberg::Snapshot* s = table_->metadata()->current_snapshot();
  EXPECT_EQ(s->operation, "replace");
  EXPECT_EQ(*s->SummaryValue("floe.optimizing.type"), "convert");

  // Nothing left to convert.
  Executed again = PlanAndExecute();
  EXPECT_TRUE(again.conversion.plan.tasks.empty());
  EXPECT_FALSE(again.conversion.oldest_commit_ms.has_value());
}

// The data files of the last append carry no equality delete: they are not part of the
// plan (the conversion reads only what it must).
TEST_P(EqConvertTest, FilesNewerThanEveryDeleteAreNotRead) {
  Populate();
  FLOE_ASSERT_OK(table_->Refresh());
  const int64_t last_seq = table_->metadata()->last_sequence_number;
  Executed e = PlanAndExecute();
  ASSERT_FALSE(e.conversion.plan.tasks.empty());
  for (const RewriteTask& t : e.conversion.plan.tasks) {
    for (const auto& f : t.rewrite_pos_data) {
      EXPECT_LT(f.data->data_sequence_number, last_seq) << f.data->file.file_path;
      EXPECT_FALSE(f.equality_deletes.empty());
    }
  }
}

// A data file's existing position deletes or DV are merged into its one new per-file delete,
// and the old one leaves the table.
TEST_P(EqConvertTest, MergesWithTheExistingDeletionVector) {
  Model base;
  for (int64_t k = 0; k < 30; ++k) base[k] = "base-" + std::to_string(k);
  Append(*table_, base);
  const std::vector<DataFile> files = LiveFiles(FileContent::kData);
  ASSERT_FALSE(files.empty());
  // Rows 0 and 1 of every base file are deleted by position.
  std::vector<int64_t> deleted_ids;
  for (const DataFile& f : files) {
    for (int64_t id : IdsAt(f, 2)) deleted_ids.push_back(id);
    DeletePositions(*table_, f, {0, 1});
  }
  for (int64_t id : deleted_ids) model_.erase(id);
  ASSERT_EQ(Scan(), model_);
  const std::vector<DataFile> old_position = LiveFiles(FileContent::kPositionDeletes);
  ASSERT_EQ(old_position.size(), files.size());
  // Upserts of live rows, and of a row the DV already deleted (reinserted).
  Model upserts = {{deleted_ids[0], "back"}};
  for (int64_t k : {10, 20, 25}) {
    if (model_.contains(k)) upserts[k] = "u";
  }
  Upsert(*table_, upserts);
  ASSERT_EQ(Scan(), model_);

  Executed e = PlanAndExecute();
  int64_t removed_positions = 0;
  for (const TaskOutput& o : e.outputs) removed_positions += o.deleted_positions;
  // Every base file's two old positions plus the upserted live rows (the reinserted key's
  // old row was already deleted: counted once).
  EXPECT_EQ(removed_positions, static_cast<int64_t>(deleted_ids.size() + upserts.size() - 1));
  auto committed = Commit(std::move(e));
  FLOE_ASSERT_OK(committed);
  EXPECT_EQ(Scan(), model_);
  EXPECT_TRUE(LiveFiles(FileContent::kEqualityDeletes).empty());
  ExpectPerFileDeletes();
  // The old per-file deletes were replaced, not kept beside the new ones.
  std::set<std::string> now;
  for (const DataFile& d : LiveFiles(FileContent::kPositionDeletes)) now.insert(DeleteFileKey(d));
  for (const DataFile& d : old_position) {
    EXPECT_FALSE(now.contains(DeleteFileKey(d))) << d.file_path;
  }
}

std::set<std::string> Paths(const std::vector<DataFile>& files) {
  std::set<std::string> out;
  for (const DataFile& f : files) out.insert(f.file_path);
  return out;
}

// Equality deletes that apply to no data file (an upsert into an empty table or partition)
// still make pyiceberg refuse the table: they leave too.
TEST_P(EqConvertTest, RemovesEqualityDeletesThatApplyToNothing) {
  Upsert(*table_, {{1, "a"}, {2, "b"}, {3, "c"}});
  DeleteKeys(*table_, {100, 101});
  ASSERT_FALSE(LiveFiles(FileContent::kEqualityDeletes).empty());
  const std::set<std::string> data_before = LiveDataPaths();
  auto committed = Commit(PlanAndExecute());
  FLOE_ASSERT_OK(committed);
  ASSERT_TRUE(committed->has_value());
  EXPECT_TRUE(LiveFiles(FileContent::kEqualityDeletes).empty());
  EXPECT_TRUE(LiveFiles(FileContent::kPositionDeletes).empty());
  EXPECT_EQ(LiveDataPaths(), data_before);
  EXPECT_EQ(Scan(), model_);
}

// Writers commit upserts and deletes while conversions run (between the plan and the
// commit of each): the writers' deletes carry higher sequence numbers and still apply to
// the converted files (rule 1), their new data files are subject to none of the removed
// deletes (rule 2), so no row is lost or comes back; their equality-delete files stay for
// the next conversion.
TEST_P(EqConvertTest, ConcurrentEqualityDeletesAreNeverLost) {
  Populate();
  for (int round = 0; round < 4; ++round) {
    Executed e = PlanAndExecute();
    ASSERT_FALSE(e.conversion.plan.tasks.empty()) << round;
    const std::set<std::string> planned_eq = Paths(LiveFiles(FileContent::kEqualityDeletes));
    auto writer = Load();
    const std::string late = "late" + std::to_string(round);
    Upsert(*writer, {{3, late}, {int64_t{1} + round, late}, {int64_t{80} + round, late}});
    DeleteKeys(*writer, {int64_t{10} + round, int64_t{61} - round});
    std::set<std::string> concurrent_eq;
    for (const std::string& p : Paths(LiveFiles(FileContent::kEqualityDeletes))) {
      if (!planned_eq.contains(p)) concurrent_eq.insert(p);
    }
    ASSERT_FALSE(concurrent_eq.empty());
    auto committed = Commit(std::move(e));
    FLOE_ASSERT_OK(committed) << round;
    EXPECT_EQ(Scan(), model_) << round;
    EXPECT_EQ(Paths(LiveFiles(FileContent::kEqualityDeletes)), concurrent_eq) << round;
    ExpectPerFileDeletes();
  }
  auto committed = Commit(PlanAndExecute());
  FLOE_ASSERT_OK(committed);
  EXPECT_EQ(Scan(), model_);
  EXPECT_TRUE(LiveFiles(FileContent::kEqualityDeletes).empty());
}

// A writer deletes by position in a data file the conversion gives a new per-file delete.
// v3: two DVs for one data file are not allowed, so the commit is refused and the table
// keeps the writer's DV (nothing lost); the next conversion merges it. v2: the writer's
// position delete file stays beside the new one and still applies.
TEST_P(EqConvertTest, ConcurrentPositionDeleteOnAConvertedFile) {
  Populate();
  Executed e = PlanAndExecute();
  ASSERT_FALSE(e.conversion.plan.tasks.empty());
  const DataFile victim = e.conversion.plan.tasks[0].rewrite_pos_data[0].data->file;
  const std::vector<int64_t> ids = IdsAt(victim, 1);
  ASSERT_EQ(ids.size(), 1u);
  auto writer = Load();
  DeletePositions(*writer, victim, {0});
  model_.erase(ids[0]);
  ASSERT_EQ(Scan(), model_);
  std::vector<DataFile> outputs;
  for (const TaskOutput& o : e.outputs) {
    for (const DataFile& f : o.delete_files) outputs.push_back(f);
  }
  auto committed = Commit(std::move(e));
  if (version() >= 3) {
    ASSERT_THAT(committed, IsError(StatusCode::kConflict));
    for (const DataFile& f : outputs) EXPECT_FALSE(*io_.Exists(f.file_path)) << f.file_path;
    EXPECT_EQ(Scan(), model_);
    committed = Commit(PlanAndExecute());
  }
  FLOE_ASSERT_OK(committed);
  EXPECT_EQ(Scan(), model_);
  EXPECT_TRUE(LiveFiles(FileContent::kEqualityDeletes).empty());
}

// "Low cost": a conversion reads the key columns of the data files, not their rows. The
// base file's wide value column (incompressible) is most of its bytes; the conversion must
// read well under half of the file.
TEST_P(EqConvertTest, ReadsOnlyTheKeyColumnsOfDataFiles) {
  Model base;
  uint64_t x = 88172645463325252ULL;
  for (int64_t k = 0; k < 3000; ++k) {
    std::string v;
    for (int i = 0; i < 25; ++i) {
      x ^= x << 13;
      x ^= x >> 7;
      x ^= x << 17;
      v += fmt::format("{:016x}", x).substr(0, 8);
    }
    base[k] = std::move(v);
  }
  Append(*table_, base);
  const std::vector<DataFile> files = LiveFiles(FileContent::kData);
  int64_t base_bytes = 0;
  for (const DataFile& f : files) base_bytes += f.file_size_in_bytes;
  Upsert(*table_, {{10, "u"}, {2000, "u"}});
  FLOE_ASSERT_OK(table_->Refresh());
  auto md = table_->metadata();
  const int64_t snapshot_id = md->current_snapshot()->snapshot_id;
  auto config = OptimizingConfig::FromProperties(md->properties);
  FLOE_ASSERT_OK(config);
  auto planned = PlanConversionSnapshot(md, io_, snapshot_id, *config, {});
  FLOE_ASSERT_OK(planned);
  // Only the base files' reads count (their names carry the first writer's operation id).
  const std::string base_name = files[0].file_path.substr(files[0].file_path.rfind('/') + 1, 20);
  CountingFileIO counting(io_, base_name);
  std::vector<TaskOutput> outputs;
  ExecuteOptions exec;
  exec.operation_id = env_.NewUuid();
  for (const RewriteTask& task : planned->plan.tasks) {
    auto out = ExecuteRewriteTask(md, snapshot_id, counting, task, *config, exec);
    FLOE_ASSERT_OK(out);
    outputs.push_back(std::move(*out));
    ++exec.task_id;
  }
  EXPECT_GT(counting.bytes_read(), 0);
  EXPECT_LT(counting.bytes_read(), base_bytes / 2)
      << counting.bytes_read() << " of " << base_bytes << " bytes read";
  FLOE_ASSERT_OK(CommitRewrite(*table_, snapshot_id, planned->plan, std::move(outputs)));
  EXPECT_EQ(Scan(), model_);
}

INSTANTIATE_TEST_SUITE_P(Tables, EqConvertTest,
                         ::testing::Combine(::testing::Values(2, 3), ::testing::Bool()),
                         [](const auto& info) {
                           return "v" + std::to_string(std::get<0>(info.param)) +
                                  (std::get<1>(info.param) ? "_partitioned" : "_unpartitioned");
                         });

}  // namespace
}  // namespace floe::optimize
