// The metastore's optimizing state and history on SQLite and PostgreSQL: what is saved is
// what is read back, saving again replaces, and the newest processes come first.
#include "floe/metastore/metastore.h"

#include <gtest/gtest.h>

#include "floe/base/testing.h"
#include "floe/catalog/test_util.h"

namespace floe::metastore {
namespace {

using catalog::SqlDialect;

class MetastoreTest : public ::testing::TestWithParam<SqlDialect> {
 protected:
  void SetUp() override {
    db_.SetUp(GetParam());
    if (HasFatalFailure()) return;
    auto store = Metastore::Open(db_.uri());
    FLOE_ASSERT_OK(store);
    store_ = std::move(*store);
  }

  catalog::testing::TestDatabase db_;
  std::unique_ptr<Metastore> store_;
};

TEST_P(MetastoreTest, MigratesToTheNewestVersion) {
  EXPECT_EQ(*store_->SchemaVersion(), Metastore::kSchemaVersion);
  // Opening again applies nothing twice.
  auto again = Metastore::Open(db_.uri());
  FLOE_ASSERT_OK(again);
  EXPECT_EQ(*(*again)->SchemaVersion(), Metastore::kSchemaVersion);
}

TEST_P(MetastoreTest, TableRuntimesRoundTripAndReplace) {
  TableRuntimeRecord a;
  a.catalog = "lake";
  a.table_namespace = "sales.eu";
  a.table_name = "orders";
  a.status = "minor";
  a.status_reason = "";
  a.last_optimized_snapshot_id = 9005308722155617000;
  a.last_minor_ms = 1700000000123;
  a.last_plan_ms = 1700000000100;
  a.updated_at_ms = 1700000000200;
  FLOE_ASSERT_OK(store_->SaveTableRuntime(a));
  TableRuntimeRecord b = a;
  b.table_name = "customers";
  b.status = "pending";
  b.status_reason = "plan failed: 'x' is not a number";
  b.last_optimized_snapshot_id.reset();
  FLOE_ASSERT_OK(store_->SaveTableRuntime(b));

  auto all = store_->ListTableRuntimes();
  FLOE_ASSERT_OK(all);
  ASSERT_EQ(all->size(), 2u);
  EXPECT_EQ((*all)[0].table_name, "customers");
  EXPECT_EQ((*all)[0].status_reason, b.status_reason);
  EXPECT_FALSE((*all)[0].last_optimized_snapshot_id.has_value());
  EXPECT_EQ((*all)[1].last_optimized_snapshot_id, a.last_optimized_snapshot_id);
  EXPECT_EQ((*all)[1].last_minor_ms, a.last_minor_ms);
  EXPECT_EQ((*all)[1].status, "minor");

  a.status = "idle";
  a.last_major_ms = 1700000009999;
  FLOE_ASSERT_OK(store_->SaveTableRuntime(a));
  all = store_->ListTableRuntimes();
  ASSERT_EQ(all->size(), 2u);
  EXPECT_EQ((*all)[1].status, "idle");
  EXPECT_EQ((*all)[1].last_major_ms, 1700000009999);

  // A dropped table's record goes; deleting one that is not there changes nothing.
  FLOE_ASSERT_OK(store_->DeleteTableRuntime("lake", a.table_namespace, "orders"));
  FLOE_ASSERT_OK(store_->DeleteTableRuntime("lake", a.table_namespace, "orders"));
  FLOE_ASSERT_OK(store_->DeleteTableRuntime("other", b.table_namespace, "customers"));
  all = store_->ListTableRuntimes();
  FLOE_ASSERT_OK(all);
  ASSERT_EQ(all->size(), 1u);
  EXPECT_EQ((*all)[0].table_name, "customers");
}

TEST_P(MetastoreTest, UpdateCatalogReplacesTheDefinitionAndKeepsTheCreationTime) {
  CatalogRecord record;
  record.name = "lake";
  record.kind = CatalogKind::kSql;
  record.uri = "sqlite:/tmp/a.db";
  record.warehouse = "/tmp/a";
  record.properties = {{"catalog-name", "a"}};
  record.created_at_ms = 1700000000000;
  FLOE_ASSERT_OK(store_->CreateCatalog(record));
  CatalogRecord changed = record;
  changed.kind = CatalogKind::kFilesystem;
  changed.uri.clear();
  changed.warehouse = "/tmp/b";
  changed.properties = {{"owner", "ops"}};
  changed.created_at_ms = 1;
  FLOE_ASSERT_OK(store_->UpdateCatalog(changed));
  auto loaded = store_->LoadCatalog("lake");
  FLOE_ASSERT_OK(loaded);
  EXPECT_EQ(loaded->kind, CatalogKind::kFilesystem);
  EXPECT_EQ(loaded->uri, "");
  EXPECT_EQ(loaded->warehouse, "/tmp/b");
  EXPECT_EQ(loaded->properties, changed.properties);
  EXPECT_EQ(loaded->created_at_ms, 1700000000000);

  changed.name = "missing";
  EXPECT_EQ(store_->UpdateCatalog(changed).code(), StatusCode::kNotFound);
}

TEST_P(MetastoreTest, ProcessesNewestFirstAndReplacedById) {
  for (int64_t id = 1; id <= 3; ++id) {
    OptimizingProcessRecord p;
    p.process_id = 1700000000000000 + id;
    p.catalog = "lake";
    p.table_namespace = "db";
    p.table_name = "t";
    p.optimizing_type = id == 2 ? "major" : "minor";
    p.status = "running";
    p.planned_snapshot_id = 100 + id;
    p.plan_time_ms = 1700000000000 + id;
    p.task_count = id;
    p.reason = "minor: 12 fragment and equality-delete files >= 12";
    FLOE_ASSERT_OK(store_->SaveProcess(p));
  }
  OptimizingProcessRecord other;
  other.process_id = 42;
  other.catalog = "lake";
  other.table_namespace = "db";
  other.table_name = "u";
  other.optimizing_type = "full";
  other.status = "failed";
  other.error = "Conflict: Found concurrently added DV";
  FLOE_ASSERT_OK(store_->SaveProcess(other));

  auto list = store_->ListProcesses("lake", "db", "t", 2);
  FLOE_ASSERT_OK(list);
  ASSERT_EQ(list->size(), 2u);
  EXPECT_EQ((*list)[0].process_id, 1700000000000003);
  EXPECT_EQ((*list)[1].optimizing_type, "major");
  EXPECT_FALSE((*list)[0].committed_snapshot_id.has_value());

  OptimizingProcessRecord done = (*list)[0];
  done.status = "success";
  done.committed_snapshot_id = 777;
  done.rows_rewritten = 123456789012;
  done.end_time_ms = done.plan_time_ms + 1500;
  FLOE_ASSERT_OK(store_->SaveProcess(done));
  list = store_->ListProcesses("lake", "db", "t", 10);
  ASSERT_EQ(list->size(), 3u);
  EXPECT_EQ((*list)[0].status, "success");
  EXPECT_EQ((*list)[0].committed_snapshot_id, 777);
  EXPECT_EQ((*list)[0].rows_rewritten, 123456789012);
  EXPECT_EQ((*list)[0].reason, "minor: 12 fragment and equality-delete files >= 12");

  auto u = store_->ListProcesses("lake", "db", "u", 10);
  ASSERT_EQ(u->size(), 1u);
  EXPECT_EQ((*u)[0].error, other.error);
}

TEST_P(MetastoreTest, PausedFlagAndGroupOfARuntime) {
  TableRuntimeRecord a;
  a.catalog = "lake";
  a.table_namespace = "db";
  a.table_name = "t";
  a.paused = true;
  a.optimizer_group = "remote";
  FLOE_ASSERT_OK(store_->SaveTableRuntime(a));
  auto all = store_->ListTableRuntimes();
  FLOE_ASSERT_OK(all);
  ASSERT_EQ(all->size(), 1u);
  EXPECT_TRUE((*all)[0].paused);
  EXPECT_EQ((*all)[0].optimizer_group, "remote");
  a.paused = false;
  FLOE_ASSERT_OK(store_->SaveTableRuntime(a));
  EXPECT_FALSE((*store_->ListTableRuntimes())[0].paused);
}

TEST_P(MetastoreTest, OptimizerGroups) {
  OptimizerGroupRecord g;
  g.name = "remote";
  g.scheduling_policy = "balanced";
  g.properties = {{"memory", "4096"}};
  FLOE_ASSERT_OK(store_->CreateGroup(g));
  EXPECT_EQ(store_->CreateGroup(g).code(), StatusCode::kAlreadyExists);
  g.name = "bad name";
  EXPECT_EQ(store_->CreateGroup(g).code(), StatusCode::kInvalidArgument);
  g.name = "other";
  g.scheduling_policy = "fifo";
  EXPECT_EQ(store_->CreateGroup(g).code(), StatusCode::kInvalidArgument);
  auto groups = store_->ListGroups();
  FLOE_ASSERT_OK(groups);
  ASSERT_EQ(groups->size(), 1u);
  EXPECT_EQ((*groups)[0].scheduling_policy, "balanced");
  EXPECT_EQ((*groups)[0].properties.at("memory"), "4096");
  EXPECT_GT((*groups)[0].created_at_ms, 0);
  FLOE_ASSERT_OK(store_->DropGroup("remote"));
  EXPECT_EQ(store_->DropGroup("remote").code(), StatusCode::kNotFound);
  EXPECT_TRUE(store_->ListGroups()->empty());
}

TEST_P(MetastoreTest, TasksAndMaintenanceRuns) {
  OptimizingTaskRecord t;
  t.process_id = 7;
  t.task_id = 1;
  t.status = "acked";
  t.attempt = 2;
  t.optimizer = "optimizer-3";
  t.partition_key = "0/[]";
  t.input_files = 4;
  t.input_bytes = 4096;
  t.start_ms = 1700000000000;
  FLOE_ASSERT_OK(store_->SaveTask(t));
  t.status = "success";
  t.output_files = 1;
  t.output_bytes = 2048;
  t.rows_read = 100;
  t.end_ms = 1700000001500;
  FLOE_ASSERT_OK(store_->SaveTask(t));  // replaces
  OptimizingTaskRecord other = t;
  other.task_id = 0;
  other.status = "failed";
  other.error = "disk full";
  other.optimizer.clear();
  FLOE_ASSERT_OK(store_->SaveTask(other));
  auto tasks = store_->ListTasks(7);
  FLOE_ASSERT_OK(tasks);
  ASSERT_EQ(tasks->size(), 2u);
  EXPECT_EQ((*tasks)[0].task_id, 0);
  EXPECT_EQ((*tasks)[0].error, "disk full");
  EXPECT_EQ((*tasks)[0].optimizer, "");
  EXPECT_EQ((*tasks)[1].status, "success");
  EXPECT_EQ((*tasks)[1].attempt, 2);
  EXPECT_EQ((*tasks)[1].rows_read, 100);
  EXPECT_EQ((*tasks)[1].end_ms, 1700000001500);
  EXPECT_TRUE(store_->ListTasks(8)->empty());

  for (int64_t id : {1, 2, 3}) {
    MaintenanceRunRecord r;
    r.run_id = id;
    r.catalog = "lake";
    r.table_namespace = "db";
    r.table_name = id == 3 ? "other" : "t";
    r.kind = "expire-snapshots";
    r.status = id == 2 ? "failed" : "success";
    r.expired_snapshots = id;
    if (id == 2) r.error = "boom";
    FLOE_ASSERT_OK(store_->SaveMaintenanceRun(r));
  }
  auto runs = store_->ListMaintenanceRuns("lake", "db", "t", 10);
  FLOE_ASSERT_OK(runs);
  ASSERT_EQ(runs->size(), 2u);
  EXPECT_EQ((*runs)[0].run_id, 2);
  EXPECT_EQ((*runs)[0].error, "boom");
  EXPECT_EQ((*runs)[1].expired_snapshots, 1);
}

TEST_P(MetastoreTest, HistorySamplesRangeReplaceAndTrim) {
  for (int64_t t : {1000, 2000, 3000, 4000, 5000}) {
    HistorySample s;
    s.sample_ms = t;
    s.interval_ms = 1000;
    s.tables = t / 1000;
    s.data_bytes = int64_t{1} << 40;  // beyond 32 bits
    s.cpu_ms_during = 7;
    FLOE_ASSERT_OK(store_->SaveHistorySample(s));
  }
  // Saving the same instant again replaces it.
  HistorySample again;
  again.sample_ms = 3000;
  again.tables = 33;
  FLOE_ASSERT_OK(store_->SaveHistorySample(again));

  auto range = store_->ListHistorySamples(2000, 4000, 100);
  FLOE_ASSERT_OK(range);
  ASSERT_EQ(range->size(), 3u);
  EXPECT_EQ((*range)[0].sample_ms, 2000);
  EXPECT_EQ((*range)[0].data_bytes, int64_t{1} << 40);
  EXPECT_EQ((*range)[0].cpu_ms_during, 7);
  EXPECT_EQ((*range)[1].tables, 33);
  EXPECT_EQ((*range)[2].sample_ms, 4000);
  auto limited = store_->ListHistorySamples(0, 10000, 2);
  FLOE_ASSERT_OK(limited);
  EXPECT_EQ(limited->size(), 2u);

  // Older than 2000 goes by age; then only the newest two stay.
  FLOE_ASSERT_OK(store_->TrimHistory("", 2000, 100));
  EXPECT_EQ(store_->ListHistorySamples(0, 10000, 100)->size(), 4u);
  FLOE_ASSERT_OK(store_->TrimHistory("", 0, 2));
  auto left = store_->ListHistorySamples(0, 10000, 100);
  FLOE_ASSERT_OK(left);
  ASSERT_EQ(left->size(), 2u);
  EXPECT_EQ((*left)[0].sample_ms, 4000);
  EXPECT_EQ((*left)[1].sample_ms, 5000);
}

TEST_P(MetastoreTest, HistorySamplesPerServer) {
  // Two servers sampling at the same instants keep two series.
  for (const char* server : {"a:8181", "b:8181"}) {
    for (int64_t t : {1000, 2000, 3000}) {
      HistorySample s;
      s.server_id = server;
      s.sample_ms = t;
      s.rss_bytes = server[0] == 'a' ? 100 : 200;
      FLOE_ASSERT_OK(store_->SaveHistorySample(s));
    }
  }
  auto all = store_->ListHistorySamples(0, 10000, 100);
  FLOE_ASSERT_OK(all);
  ASSERT_EQ(all->size(), 6u);
  EXPECT_EQ((*all)[0].server_id, "a:8181");
  EXPECT_EQ((*all)[1].server_id, "b:8181");
  EXPECT_EQ((*all)[1].sample_ms, 1000);
  EXPECT_EQ((*all)[1].rss_bytes, 200);
  auto only_b = store_->ListHistorySamples(0, 10000, 100, std::string("b:8181"));
  FLOE_ASSERT_OK(only_b);
  ASSERT_EQ(only_b->size(), 3u);
  for (const HistorySample& s : *only_b) EXPECT_EQ(s.server_id, "b:8181");

  // Replacing an instant touches only that server's sample.
  HistorySample again;
  again.server_id = "a:8181";
  again.sample_ms = 2000;
  again.rss_bytes = 111;
  FLOE_ASSERT_OK(store_->SaveHistorySample(again));
  auto at_2000 = store_->ListHistorySamples(2000, 2000, 100);
  ASSERT_EQ(at_2000->size(), 2u);
  EXPECT_EQ((*at_2000)[0].rss_bytes, 111);
  EXPECT_EQ((*at_2000)[1].rss_bytes, 200);

  // The row bound is per server; the age bound applies to every server.
  FLOE_ASSERT_OK(store_->TrimHistory("a:8181", 0, 1));
  EXPECT_EQ(store_->ListHistorySamples(0, 10000, 100, std::string("a:8181"))->size(), 1u);
  EXPECT_EQ(store_->ListHistorySamples(0, 10000, 100, std::string("b:8181"))->size(), 3u);
  FLOE_ASSERT_OK(store_->TrimHistory("a:8181", 3000, 100));
  auto left = store_->ListHistorySamples(0, 10000, 100);
  ASSERT_EQ(left->size(), 2u);
  EXPECT_EQ((*left)[0].sample_ms, 3000);
  EXPECT_EQ((*left)[1].sample_ms, 3000);
}

TEST_P(MetastoreTest, HistoryOfAVersion4MetastoreMovesToServerIdEmpty) {
  // Back to the version 4 layout, with one sample in it, as an older floe left it.
  auto conn = catalog::SqlConnection::Open(db_.uri());
  FLOE_ASSERT_OK(conn);
  for (const char* sql :
       {"DROP TABLE floe_overview_history", "DELETE FROM floe_schema_version WHERE version = 5",
        "CREATE TABLE floe_overview_history (sample_ms BIGINT NOT NULL PRIMARY KEY, "
        "interval_ms BIGINT NOT NULL, tables BIGINT NOT NULL, data_files BIGINT NOT NULL, "
        "delete_files BIGINT NOT NULL, records BIGINT NOT NULL, data_bytes BIGINT NOT NULL, "
        "optimizer_threads BIGINT NOT NULL, tasks_running BIGINT NOT NULL, "
        "tasks_queued BIGINT NOT NULL, bytes_optimized BIGINT NOT NULL, "
        "rss_bytes BIGINT NOT NULL, cpu_ms BIGINT NOT NULL, records_produced BIGINT NOT NULL, "
        "rows_ingested BIGINT NOT NULL)",
        "INSERT INTO floe_overview_history VALUES "
        "(1000, 60000, 7, 8, 9, 10, 11, 2, 1, 3, 12, 13, 14, 15, 16)"}) {
    auto done = (*conn)->Execute(sql);
    FLOE_ASSERT_OK(done) << sql;
  }
  conn->reset();
  store_.reset();
  auto reopened = Metastore::Open(db_.uri());
  FLOE_ASSERT_OK(reopened);
  EXPECT_EQ(*(*reopened)->SchemaVersion(), 5);
  auto samples = (*reopened)->ListHistorySamples(0, 10000, 100);
  FLOE_ASSERT_OK(samples);
  ASSERT_EQ(samples->size(), 1u);
  const HistorySample& s = (*samples)[0];
  EXPECT_EQ(s.server_id, "");
  EXPECT_EQ(s.sample_ms, 1000);
  EXPECT_EQ(s.tables, 7);
  EXPECT_EQ(s.data_bytes, 11);
  EXPECT_EQ(s.rss_bytes, 13);
  EXPECT_EQ(s.rows_ingested_during, 16);
  // The new key holds: a second server's sample at the same instant is its own row.
  HistorySample other;
  other.server_id = "b";
  other.sample_ms = 1000;
  FLOE_ASSERT_OK((*reopened)->SaveHistorySample(other));
  EXPECT_EQ((*reopened)->ListHistorySamples(0, 10000, 100)->size(), 2u);
}

INSTANTIATE_TEST_SUITE_P(Dialects, MetastoreTest,
                         ::testing::Values(SqlDialect::kSqlite, SqlDialect::kPostgres),
                         [](const auto& info) {
                           return info.param == SqlDialect::kSqlite ? "Sqlite" : "Postgres";
                         });

}  // namespace
}  // namespace floe::metastore
