// The metastore's optimizing state and history on SQLite and PostgreSQL: what is saved is
// what is read back, saving again replaces, and the newest processes come first.
#include "floe/metastore/metastore.h"

#include <gtest/gtest.h>

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
    ASSERT_TRUE(store.ok()) << store.status().ToString();
    store_ = std::move(*store);
  }

  catalog::testing::TestDatabase db_;
  std::unique_ptr<Metastore> store_;
};

TEST_P(MetastoreTest, MigratesToTheNewestVersion) {
  EXPECT_EQ(*store_->SchemaVersion(), Metastore::kSchemaVersion);
  // Opening again applies nothing twice.
  auto again = Metastore::Open(db_.uri());
  ASSERT_TRUE(again.ok()) << again.status().ToString();
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
  ASSERT_TRUE(store_->SaveTableRuntime(a).ok());
  TableRuntimeRecord b = a;
  b.table_name = "customers";
  b.status = "pending";
  b.status_reason = "plan failed: 'x' is not a number";
  b.last_optimized_snapshot_id.reset();
  ASSERT_TRUE(store_->SaveTableRuntime(b).ok());

  auto all = store_->ListTableRuntimes();
  ASSERT_TRUE(all.ok()) << all.status().ToString();
  ASSERT_EQ(all->size(), 2u);
  EXPECT_EQ((*all)[0].table_name, "customers");
  EXPECT_EQ((*all)[0].status_reason, b.status_reason);
  EXPECT_FALSE((*all)[0].last_optimized_snapshot_id.has_value());
  EXPECT_EQ((*all)[1].last_optimized_snapshot_id, a.last_optimized_snapshot_id);
  EXPECT_EQ((*all)[1].last_minor_ms, a.last_minor_ms);
  EXPECT_EQ((*all)[1].status, "minor");

  a.status = "idle";
  a.last_major_ms = 1700000009999;
  ASSERT_TRUE(store_->SaveTableRuntime(a).ok());
  all = store_->ListTableRuntimes();
  ASSERT_EQ(all->size(), 2u);
  EXPECT_EQ((*all)[1].status, "idle");
  EXPECT_EQ((*all)[1].last_major_ms, 1700000009999);
}

TEST_P(MetastoreTest, UpdateCatalogReplacesTheDefinitionAndKeepsTheCreationTime) {
  CatalogRecord record;
  record.name = "lake";
  record.kind = CatalogKind::kSql;
  record.uri = "sqlite:/tmp/a.db";
  record.warehouse = "/tmp/a";
  record.properties = {{"catalog-name", "a"}};
  record.created_at_ms = 1700000000000;
  ASSERT_TRUE(store_->CreateCatalog(record).ok());
  CatalogRecord changed = record;
  changed.kind = CatalogKind::kFilesystem;
  changed.uri.clear();
  changed.warehouse = "/tmp/b";
  changed.properties = {{"owner", "ops"}};
  changed.created_at_ms = 1;
  ASSERT_TRUE(store_->UpdateCatalog(changed).ok());
  auto loaded = store_->LoadCatalog("lake");
  ASSERT_TRUE(loaded.ok()) << loaded.status().ToString();
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
    ASSERT_TRUE(store_->SaveProcess(p).ok());
  }
  OptimizingProcessRecord other;
  other.process_id = 42;
  other.catalog = "lake";
  other.table_namespace = "db";
  other.table_name = "u";
  other.optimizing_type = "full";
  other.status = "failed";
  other.error = "Conflict: Found concurrently added DV";
  ASSERT_TRUE(store_->SaveProcess(other).ok());

  auto list = store_->ListProcesses("lake", "db", "t", 2);
  ASSERT_TRUE(list.ok()) << list.status().ToString();
  ASSERT_EQ(list->size(), 2u);
  EXPECT_EQ((*list)[0].process_id, 1700000000000003);
  EXPECT_EQ((*list)[1].optimizing_type, "major");
  EXPECT_FALSE((*list)[0].committed_snapshot_id.has_value());

  OptimizingProcessRecord done = (*list)[0];
  done.status = "success";
  done.committed_snapshot_id = 777;
  done.rows_rewritten = 123456789012;
  done.end_time_ms = done.plan_time_ms + 1500;
  ASSERT_TRUE(store_->SaveProcess(done).ok());
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

INSTANTIATE_TEST_SUITE_P(Dialects, MetastoreTest,
                         ::testing::Values(SqlDialect::kSqlite, SqlDialect::kPostgres),
                         [](const auto& info) {
                           return info.param == SqlDialect::kSqlite ? "Sqlite" : "Postgres";
                         });

}  // namespace
}  // namespace floe::metastore
