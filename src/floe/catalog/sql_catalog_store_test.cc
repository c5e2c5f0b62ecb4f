// SqlCatalogStore on both backends. Expected behaviour is the peers' (Iceberg Java JdbcCatalog,
// pyiceberg SqlCatalog); tests/interop/test_sql_catalog.py checks it against pyiceberg itself.
#include "floe/catalog/sql_catalog_store.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <thread>

#include "floe/base/testing.h"
#include "floe/catalog/test_util.h"

namespace floe::catalog {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;
using testing::TestDatabase;

Namespace Ns(std::string_view dotted) { return Namespace::FromString(dotted); }

class SqlCatalogStoreTest : public ::testing::TestWithParam<SqlDialect> {
 protected:
  void SetUp() override {
    ASSERT_NO_FATAL_FAILURE(db_.SetUp(GetParam()));
    store_ = Open("cat");
    ASSERT_NE(store_, nullptr);
  }

  std::unique_ptr<SqlCatalogStore> Open(const std::string& catalog) {
    auto store = SqlCatalogStore::Open(db_.uri(), catalog);
    FLOE_EXPECT_OK(store);
    return store.ok() ? std::move(*store) : nullptr;
  }

  // Runs raw SQL on the store's connection: rows as a peer would have written them.
  void Sql(std::string_view sql, std::initializer_list<SqlParam> params = {}) {
    FLOE_ASSERT_OK(store_->connection()->Execute(sql, params));
  }
  std::vector<SqlRow> Query(std::string_view sql, std::initializer_list<SqlParam> params = {}) {
    auto result = store_->connection()->Execute(sql, params);
    FLOE_EXPECT_OK(result);
    return result.ok() ? result->rows : std::vector<SqlRow>{};
  }
  void InsertRow(std::string_view ns, std::string_view name, std::optional<std::string> type,
                 std::string_view location = "s3://b/m.json") {
    Sql("INSERT INTO iceberg_tables (catalog_name, table_namespace, table_name, "
        "metadata_location, previous_metadata_location, iceberg_type) VALUES (?, ?, ?, ?, NULL, ?)",
        {"cat", ns, name, location, type});
  }

  TestDatabase db_;
  std::unique_ptr<SqlCatalogStore> store_;
};

TEST_P(SqlCatalogStoreTest, CreatesTheJdbcSchemaOnceAndReopens) {
  // All six columns of the V1 schema are there, and a second open is harmless.
  Sql("INSERT INTO iceberg_tables (catalog_name, table_namespace, table_name, metadata_location, "
      "previous_metadata_location, iceberg_type) VALUES ('x', 'n', 't', 'l', 'p', 'TABLE')");
  Sql("INSERT INTO iceberg_namespace_properties (catalog_name, namespace, property_key, "
      "property_value) VALUES ('x', 'n', 'k', NULL)");
  auto again = Open("cat");
  ASSERT_NE(again, nullptr);
  EXPECT_EQ(Query("SELECT COUNT(*) FROM iceberg_tables")[0][0], "1");
  // Primary keys as Java declares them.
  FLOE_EXPECT_CODE(store_->connection()->Execute(
                       "INSERT INTO iceberg_tables (catalog_name, table_namespace, table_name) "
                       "VALUES ('x', 'n', 't')"),
                   kAlreadyExists);
  FLOE_EXPECT_CODE(store_->connection()->Execute(
                       "INSERT INTO iceberg_namespace_properties (catalog_name, namespace, "
                       "property_key, property_value) VALUES ('x', 'n', 'k', 'v')"),
                   kAlreadyExists);
}

TEST_P(SqlCatalogStoreTest, UpgradesAJavaV0Schema) {
  // Java's V0 DDL (JdbcUtil.V0_CREATE_CATALOG_SQL), as a Java catalog left it.
  Sql("DROP TABLE iceberg_tables");
  Sql("CREATE TABLE iceberg_tables(catalog_name VARCHAR(255) NOT NULL,table_namespace "
      "VARCHAR(255) NOT NULL,table_name VARCHAR(255) NOT NULL,metadata_location VARCHAR(1000),"
      "previous_metadata_location VARCHAR(1000),PRIMARY KEY (catalog_name, table_namespace, "
      "table_name))");
  Sql("INSERT INTO iceberg_tables VALUES ('cat', 'db', 'old', 's3://b/v1.json', NULL)");

  SqlCatalogStoreOptions no_create;
  no_create.create_tables = false;
  auto conn = SqlConnection::Open(db_.uri());
  FLOE_ASSERT_OK(conn);
  FLOE_EXPECT_CODE(SqlCatalogStore::Open(std::move(*conn), "cat", no_create), kFailedPrecondition);

  store_ = Open("cat");
  ASSERT_NE(store_, nullptr);
  // The old row has iceberg_type NULL: a table.
  EXPECT_THAT(*store_->ListTables(Ns("db")), ElementsAre("old"));
  FLOE_EXPECT_OK(store_->CompareAndSwap(Ns("db"), "old", "s3://b/v1.json", "s3://b/v2.json"));
  FLOE_ASSERT_OK(store_->CreateTable(Ns("db"), "new", "s3://b/n.json"));
  auto types = Query("SELECT table_name, iceberg_type FROM iceberg_tables ORDER BY table_name");
  ASSERT_EQ(types.size(), 2u);
  EXPECT_EQ(types[0][1], "TABLE");       // "new"
  EXPECT_EQ(types[1][1], std::nullopt);  // "old"
}

TEST_P(SqlCatalogStoreTest, CreateNamespaceWritesMarkerAndProperties) {
  EXPECT_FALSE(*store_->NamespaceExists(Ns("db")));
  FLOE_ASSERT_OK(store_->CreateNamespace(Ns("db"), {{"owner", "ana"}, {"comment", "x'y"}}));
  EXPECT_TRUE(*store_->NamespaceExists(Ns("db")));
  auto props = store_->LoadNamespaceProperties(Ns("db"));
  FLOE_ASSERT_OK(props);
  EXPECT_EQ(*props,
            (NamespaceProperties{{"comment", "x'y"}, {"owner", "ana"}, {"exists", "true"}}));
  FLOE_EXPECT_CODE(store_->CreateNamespace(Ns("db")), kAlreadyExists);
  FLOE_EXPECT_CODE(store_->CreateNamespace(Ns("other"), {{"exists", "false"}}), kInvalidArgument);
  EXPECT_FALSE(*store_->NamespaceExists(Ns("other")));

  FLOE_ASSERT_OK(store_->CreateNamespace(Ns("a.b.c")));
  EXPECT_EQ(*store_->LoadNamespaceProperties(Ns("a.b.c")),
            (NamespaceProperties{{"exists", "true"}}));
  EXPECT_EQ(Query("SELECT namespace FROM iceberg_namespace_properties WHERE property_key = "
                  "'exists' AND namespace LIKE 'a%'")[0][0],
            "a.b.c");
}

TEST_P(SqlCatalogStoreTest, NamespaceExistsThroughTablesAndChildren) {
  // A namespace with only a table row (Java without strict mode creates those) exists, and so
  // does every ancestor of an existing namespace; a sibling with a common prefix does not.
  InsertRow("x.y", "t", "TABLE");
  FLOE_ASSERT_OK(store_->CreateNamespace(Ns("p.q")));
  for (std::string_view ns : {"x", "x.y", "p", "p.q"}) {
    EXPECT_TRUE(*store_->NamespaceExists(Ns(ns))) << ns;
  }
  for (std::string_view ns : {"x.y.z", "xx", "p.q.r", "q"}) {
    EXPECT_FALSE(*store_->NamespaceExists(Ns(ns))) << ns;
  }
  // Parents are reported, but hold no properties of their own.
  EXPECT_THAT(*store_->LoadNamespaceProperties(Ns("p")), IsEmpty());
  FLOE_EXPECT_CODE(store_->CreateNamespace(Ns("p")), kAlreadyExists);
  // LIKE wildcards in names are escaped, as in the peers.
  FLOE_ASSERT_OK(store_->CreateNamespace(Ns("a_b.c")));
  EXPECT_FALSE(*store_->NamespaceExists(Ns("a%")));
  EXPECT_FALSE(*store_->NamespaceExists(Ns("aXb")));
  EXPECT_TRUE(*store_->NamespaceExists(Ns("a_b")));
}

TEST_P(SqlCatalogStoreTest, ListNamespaces) {
  FLOE_ASSERT_OK(store_->CreateNamespace(Ns("b")));
  FLOE_ASSERT_OK(store_->CreateNamespace(Ns("a.one")));
  FLOE_ASSERT_OK(store_->CreateNamespace(Ns("a.two.deep")));
  FLOE_ASSERT_OK(store_->CreateNamespace(Ns("a_x.y")));
  FLOE_ASSERT_OK(store_->CreateNamespace(Ns("ab.z")));
  InsertRow("c.d", "t", "VIEW");  // views make namespaces too (in both peers)
  EXPECT_THAT(*store_->ListNamespaces(),
              ElementsAre(Ns("a"), Ns("a_x"), Ns("ab"), Ns("b"), Ns("c")));
  EXPECT_THAT(*store_->ListNamespaces(Ns("a")), ElementsAre(Ns("a.one"), Ns("a.two")));
  EXPECT_THAT(*store_->ListNamespaces(Ns("a.two")), ElementsAre(Ns("a.two.deep")));
  EXPECT_THAT(*store_->ListNamespaces(Ns("a.two.deep")), IsEmpty());
  EXPECT_THAT(*store_->ListNamespaces(Ns("a_x")), ElementsAre(Ns("a_x.y")));
  EXPECT_THAT(*store_->ListNamespaces(Ns("c")), ElementsAre(Ns("c.d")));
  FLOE_EXPECT_CODE(store_->ListNamespaces(Ns("nope")), kNotFound);
}

TEST_P(SqlCatalogStoreTest, UpdateNamespaceProperties) {
  FLOE_ASSERT_OK(store_->CreateNamespace(Ns("db"), {{"a", "1"}, {"b", "2"}}));
  auto change = store_->UpdateNamespaceProperties(Ns("db"), {"a", "zz"}, {{"b", "3"}, {"c", "4"}});
  FLOE_ASSERT_OK(change);
  EXPECT_THAT(change->removed, ElementsAre("a"));
  EXPECT_THAT(change->missing, ElementsAre("zz"));
  EXPECT_THAT(change->updated, ElementsAre("b", "c"));
  EXPECT_EQ(*store_->LoadNamespaceProperties(Ns("db")),
            (NamespaceProperties{{"b", "3"}, {"c", "4"}, {"exists", "true"}}));
  FLOE_EXPECT_OK(store_->SetNamespaceProperties(Ns("db"), {{"c", ""}}));
  FLOE_EXPECT_OK(store_->RemoveNamespaceProperties(Ns("db"), {"b"}));
  EXPECT_EQ(*store_->LoadNamespaceProperties(Ns("db")),
            (NamespaceProperties{{"c", ""}, {"exists", "true"}}));

  FLOE_EXPECT_CODE(store_->UpdateNamespaceProperties(Ns("db"), {"c"}, {{"c", "1"}}),
                   kInvalidArgument);
  FLOE_EXPECT_CODE(store_->SetNamespaceProperties(Ns("db"), {{"exists", "x"}}), kInvalidArgument);
  FLOE_EXPECT_CODE(store_->RemoveNamespaceProperties(Ns("db"), {"exists"}), kInvalidArgument);
  FLOE_EXPECT_CODE(store_->SetNamespaceProperties(Ns("nope"), {{"a", "1"}}), kNotFound);
  FLOE_EXPECT_CODE(store_->LoadNamespaceProperties(Ns("nope")), kNotFound);
}

TEST_P(SqlCatalogStoreTest, DropNamespace) {
  FLOE_EXPECT_CODE(store_->DropNamespace(Ns("nope")), kNotFound);
  FLOE_ASSERT_OK(store_->CreateNamespace(Ns("db"), {{"k", "v"}}));
  FLOE_ASSERT_OK(store_->CreateNamespace(Ns("db.child")));
  FLOE_EXPECT_CODE(store_->DropNamespace(Ns("db")), kFailedPrecondition);
  FLOE_ASSERT_OK(store_->DropNamespace(Ns("db.child")));
  FLOE_ASSERT_OK(store_->CreateTable(Ns("db"), "t", "s3://b/t.json"));
  Status not_empty = store_->DropNamespace(Ns("db"));
  EXPECT_EQ(not_empty.code(), StatusCode::kFailedPrecondition);
  EXPECT_THAT(std::string(not_empty.message()), ::testing::HasSubstr("not empty"));
  FLOE_ASSERT_OK(store_->DropTable(Ns("db"), "t"));
  InsertRow("db", "v", "VIEW");
  FLOE_EXPECT_CODE(store_->DropNamespace(Ns("db")), kFailedPrecondition);
  Sql("DELETE FROM iceberg_tables");
  FLOE_ASSERT_OK(store_->DropNamespace(Ns("db")));
  EXPECT_FALSE(*store_->NamespaceExists(Ns("db")));
  EXPECT_EQ(Query("SELECT COUNT(*) FROM iceberg_namespace_properties")[0][0], "0");
}

TEST_P(SqlCatalogStoreTest, CreateAndLoadTable) {
  FLOE_EXPECT_CODE(store_->CreateTable(Ns("db"), "t", "s3://b/1.json"), kNotFound);
  FLOE_ASSERT_OK(store_->CreateNamespace(Ns("db")));
  FLOE_ASSERT_OK(store_->CreateTable(Ns("db"), "t", "s3://b/1.json"));
  auto pointer = store_->LoadTable(Ns("db"), "t");
  FLOE_ASSERT_OK(pointer);
  EXPECT_EQ(pointer->metadata_location, "s3://b/1.json");
  EXPECT_EQ(pointer->previous_metadata_location, std::nullopt);
  auto rows = Query(
      "SELECT catalog_name, table_namespace, table_name, iceberg_type, "
      "previous_metadata_location FROM iceberg_tables");
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0], (SqlRow{"cat", "db", "t", "TABLE", std::nullopt}));

  FLOE_EXPECT_CODE(store_->CreateTable(Ns("db"), "t", "s3://b/2.json"), kAlreadyExists);
  InsertRow("db", "v", "VIEW");
  FLOE_EXPECT_CODE(store_->CreateTable(Ns("db"), "v", "s3://b/2.json"), kAlreadyExists);
  FLOE_EXPECT_CODE(store_->LoadTable(Ns("db"), "v"), kNotFound);  // a view is not a table
  FLOE_EXPECT_CODE(store_->LoadTable(Ns("db"), "nope"), kNotFound);
  InsertRow("db", "nolocation", std::nullopt, "x");
  Sql("UPDATE iceberg_tables SET metadata_location = NULL WHERE table_name = 'nolocation'");
  FLOE_EXPECT_CODE(store_->LoadTable(Ns("db"), "nolocation"), kCorrupt);
}

TEST_P(SqlCatalogStoreTest, CompareAndSwap) {
  FLOE_ASSERT_OK(store_->CreateNamespace(Ns("db")));
  FLOE_ASSERT_OK(store_->CreateTable(Ns("db"), "t", "s3://b/1.json"));
  FLOE_ASSERT_OK(store_->CompareAndSwap(Ns("db"), "t", "s3://b/1.json", "s3://b/2.json"));
  auto pointer = store_->LoadTable(Ns("db"), "t");
  EXPECT_EQ(pointer->metadata_location, "s3://b/2.json");
  EXPECT_EQ(pointer->previous_metadata_location, "s3://b/1.json");

  Status stale = store_->CompareAndSwap(Ns("db"), "t", "s3://b/1.json", "s3://b/3.json");
  EXPECT_EQ(stale.code(), StatusCode::kConflict) << stale.ToString();
  EXPECT_THAT(std::string(stale.message()), ::testing::HasSubstr("s3://b/2.json"));
  EXPECT_EQ(store_->LoadTable(Ns("db"), "t")->metadata_location, "s3://b/2.json");
  FLOE_EXPECT_CODE(store_->CompareAndSwap(Ns("db"), "nope", "a", "b"), kNotFound);

  // A view's pointer is not a table's to swap.
  InsertRow("db", "v", "VIEW", "s3://b/v.json");
  FLOE_EXPECT_CODE(store_->CompareAndSwap(Ns("db"), "v", "s3://b/v.json", "s3://b/x.json"),
                   kNotFound);
  EXPECT_EQ(Query("SELECT metadata_location FROM iceberg_tables WHERE table_name = 'v'")[0][0],
            "s3://b/v.json");
}

TEST_P(SqlCatalogStoreTest, RenameTable) {
  FLOE_ASSERT_OK(store_->CreateNamespace(Ns("a")));
  FLOE_ASSERT_OK(store_->CreateNamespace(Ns("b")));
  FLOE_ASSERT_OK(store_->CreateTable(Ns("a"), "t", "s3://b/t.json"));
  FLOE_ASSERT_OK(store_->CreateTable(Ns("a"), "u", "s3://b/u.json"));
  InsertRow("b", "view", "VIEW");

  FLOE_ASSERT_OK(store_->RenameTable(Ns("a"), "t", Ns("a"), "t"));  // no-op
  FLOE_ASSERT_OK(store_->RenameTable(Ns("a"), "t", Ns("a"), "t2"));
  FLOE_EXPECT_CODE(store_->LoadTable(Ns("a"), "t"), kNotFound);
  FLOE_ASSERT_OK(store_->RenameTable(Ns("a"), "t2", Ns("b"), "moved"));
  EXPECT_EQ(store_->LoadTable(Ns("b"), "moved")->metadata_location, "s3://b/t.json");

  FLOE_EXPECT_CODE(store_->RenameTable(Ns("a"), "nope", Ns("b"), "x"), kNotFound);
  FLOE_EXPECT_CODE(store_->RenameTable(Ns("a"), "u", Ns("nope"), "x"), kNotFound);
  FLOE_EXPECT_CODE(store_->RenameTable(Ns("a"), "u", Ns("b"), "moved"), kAlreadyExists);
  FLOE_EXPECT_CODE(store_->RenameTable(Ns("a"), "u", Ns("b"), "view"), kAlreadyExists);
  FLOE_EXPECT_CODE(store_->RenameTable(Ns("b"), "view", Ns("a"), "x"), kNotFound);
  EXPECT_THAT(*store_->ListTables(Ns("a")), ElementsAre("u"));
}

TEST_P(SqlCatalogStoreTest, DropAndListTables) {
  FLOE_ASSERT_OK(store_->CreateNamespace(Ns("db")));
  FLOE_ASSERT_OK(store_->CreateNamespace(Ns("db.sub")));
  FLOE_ASSERT_OK(store_->CreateTable(Ns("db"), "zeta", "s3://b/z.json"));
  FLOE_ASSERT_OK(store_->CreateTable(Ns("db"), "alpha", "s3://b/a.json"));
  FLOE_ASSERT_OK(store_->CreateTable(Ns("db.sub"), "inner", "s3://b/i.json"));
  InsertRow("db", "view", "VIEW");
  InsertRow("db", "legacy", std::nullopt);
  EXPECT_THAT(*store_->ListTables(Ns("db")), ElementsAre("alpha", "legacy", "zeta"));
  FLOE_EXPECT_CODE(store_->ListTables(Ns("nope")), kNotFound);

  FLOE_ASSERT_OK(store_->DropTable(Ns("db"), "zeta"));
  FLOE_EXPECT_CODE(store_->DropTable(Ns("db"), "zeta"), kNotFound);
  FLOE_EXPECT_CODE(store_->DropTable(Ns("db"), "view"), kNotFound);
  EXPECT_THAT(*store_->ListTables(Ns("db")), ElementsAre("alpha", "legacy"));
}

// View pointers: Java JdbcUtil's view statements ('VIEW' rows only); tables' rows (including
// NULL-typed ones from older peers) are never touched by them.
TEST_P(SqlCatalogStoreTest, ViewPointers) {
  FLOE_EXPECT_CODE(store_->CreateView(Ns("db"), "v", "s3://b/v1.json"), kNotFound);
  FLOE_ASSERT_OK(store_->CreateNamespace(Ns("db")));
  FLOE_ASSERT_OK(store_->CreateNamespace(Ns("other")));
  FLOE_ASSERT_OK(store_->CreateView(Ns("db"), "v", "s3://b/v1.json"));
  auto rows = Query(
      "SELECT catalog_name, table_namespace, table_name, iceberg_type, "
      "previous_metadata_location FROM iceberg_tables");
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0], (SqlRow{"cat", "db", "v", "VIEW", std::nullopt}));
  EXPECT_EQ(store_->LoadView(Ns("db"), "v")->metadata_location, "s3://b/v1.json");
  FLOE_EXPECT_CODE(store_->LoadTable(Ns("db"), "v"), kNotFound);

  FLOE_EXPECT_CODE(store_->CreateView(Ns("db"), "v", "s3://b/x.json"), kAlreadyExists);
  FLOE_ASSERT_OK(store_->CreateTable(Ns("db"), "t", "s3://b/t.json"));
  InsertRow("db", "legacy", std::nullopt);
  FLOE_EXPECT_CODE(store_->CreateView(Ns("db"), "t", "s3://b/x.json"), kAlreadyExists);
  FLOE_EXPECT_CODE(store_->CreateView(Ns("db"), "legacy", "s3://b/x.json"), kAlreadyExists);
  FLOE_EXPECT_CODE(store_->LoadView(Ns("db"), "t"), kNotFound);
  EXPECT_THAT(*store_->ListViews(Ns("db")), ElementsAre("v"));
  EXPECT_THAT(*store_->ListTables(Ns("db")), ElementsAre("legacy", "t"));
  FLOE_EXPECT_CODE(store_->ListViews(Ns("nope")), kNotFound);

  FLOE_ASSERT_OK(store_->CompareAndSwapView(Ns("db"), "v", "s3://b/v1.json", "s3://b/v2.json"));
  auto pointer = store_->LoadView(Ns("db"), "v");
  EXPECT_EQ(pointer->metadata_location, "s3://b/v2.json");
  EXPECT_EQ(pointer->previous_metadata_location, "s3://b/v1.json");
  FLOE_EXPECT_CODE(store_->CompareAndSwapView(Ns("db"), "v", "s3://b/v1.json", "s3://b/v3.json"),
                   kConflict);
  FLOE_EXPECT_CODE(store_->CompareAndSwapView(Ns("db"), "t", "s3://b/t.json", "s3://b/v3.json"),
                   kNotFound);
  EXPECT_EQ(store_->LoadTable(Ns("db"), "t")->metadata_location, "s3://b/t.json");

  FLOE_EXPECT_CODE(store_->RenameView(Ns("db"), "v", Ns("db"), "t"), kAlreadyExists);
  FLOE_EXPECT_CODE(store_->RenameView(Ns("db"), "v", Ns("nope"), "v"), kNotFound);
  FLOE_EXPECT_CODE(store_->RenameView(Ns("db"), "t", Ns("other"), "t"), kNotFound);
  FLOE_ASSERT_OK(store_->RenameView(Ns("db"), "v", Ns("other"), "w"));
  EXPECT_THAT(*store_->ListViews(Ns("db")), ::testing::IsEmpty());
  EXPECT_THAT(*store_->ListViews(Ns("other")), ElementsAre("w"));

  FLOE_EXPECT_CODE(store_->DropView(Ns("db"), "t"), kNotFound);
  FLOE_ASSERT_OK(store_->DropView(Ns("other"), "w"));
  FLOE_EXPECT_CODE(store_->DropView(Ns("other"), "w"), kNotFound);
  EXPECT_EQ(Query("SELECT COUNT(*) FROM iceberg_tables")[0][0], "2");
}

TEST_P(SqlCatalogStoreTest, CatalogsShareTablesButNotRows) {
  auto other = Open("other");
  ASSERT_NE(other, nullptr);
  FLOE_ASSERT_OK(store_->CreateNamespace(Ns("db")));
  FLOE_ASSERT_OK(store_->CreateTable(Ns("db"), "t", "s3://b/t.json"));
  EXPECT_FALSE(*other->NamespaceExists(Ns("db")));
  EXPECT_THAT(*other->ListNamespaces(), IsEmpty());
  FLOE_ASSERT_OK(other->CreateNamespace(Ns("db")));
  FLOE_ASSERT_OK(other->CreateTable(Ns("db"), "t", "s3://other/t.json"));
  EXPECT_EQ(store_->LoadTable(Ns("db"), "t")->metadata_location, "s3://b/t.json");
  EXPECT_EQ(other->LoadTable(Ns("db"), "t")->metadata_location, "s3://other/t.json");
}

TEST_P(SqlCatalogStoreTest, ValidatesNamesAndLengths) {
  FLOE_EXPECT_CODE(store_->CreateNamespace(Namespace{}), kInvalidArgument);
  FLOE_EXPECT_CODE(store_->CreateNamespace(Namespace{{"a.b"}}), kInvalidArgument);
  FLOE_EXPECT_CODE(store_->CreateNamespace(Namespace{{"a", ""}}), kInvalidArgument);
  FLOE_EXPECT_CODE(store_->CreateNamespace(Namespace{{std::string("a\0b", 3)}}), kInvalidArgument);
  FLOE_EXPECT_CODE(store_->CreateNamespace(Namespace{{std::string(256, 'n')}}), kInvalidArgument);
  // 255 characters of two bytes each fit a VARCHAR(255).
  std::string wide;
  for (int i = 0; i < 255; ++i) wide += "\xc3\xa9";
  FLOE_ASSERT_OK(store_->CreateNamespace(Namespace{{wide}}, {{"k", std::string(1000, 'v')}}));
  FLOE_EXPECT_CODE(
      store_->SetNamespaceProperties(Namespace{{wide}}, {{"k", std::string(1001, 'v')}}),
      kInvalidArgument);
  FLOE_EXPECT_CODE(store_->CreateTable(Namespace{{wide}}, "", "l"), kInvalidArgument);
  FLOE_EXPECT_CODE(store_->CreateTable(Namespace{{wide}}, "t", std::string(1001, 'l')),
                   kInvalidArgument);
  FLOE_ASSERT_OK(store_->CreateTable(Namespace{{wide}}, "t.with.dots", std::string(1000, 'l')));
  EXPECT_THAT(*store_->ListTables(Namespace{{wide}}), ElementsAre("t.with.dots"));
  FLOE_EXPECT_CODE(SqlCatalogStore::Open(db_.uri(), ""), kInvalidArgument);
}

TEST_P(SqlCatalogStoreTest, QuotesInNamesAreData) {
  std::string evil = "x'); DELETE FROM iceberg_tables; --";
  FLOE_ASSERT_OK(store_->CreateNamespace(Namespace{{evil}}, {{evil, evil}}));
  FLOE_ASSERT_OK(store_->CreateTable(Namespace{{evil}}, evil, evil));
  EXPECT_EQ(store_->LoadTable(Namespace{{evil}}, evil)->metadata_location, evil);
  EXPECT_EQ(store_->LoadNamespaceProperties(Namespace{{evil}})->at(evil), evil);
}

// Every successful swap must be in the final chain: workers with their own connections each
// bump a counter held in the location ("v<n>") until they have made `kPerWorker` bumps.
TEST_P(SqlCatalogStoreTest, ConcurrentCompareAndSwapLosesNoUpdate) {
  constexpr int kWorkers = 4;
  constexpr int kPerWorker = 25;
  FLOE_ASSERT_OK(store_->CreateNamespace(Ns("db")));
  FLOE_ASSERT_OK(store_->CreateTable(Ns("db"), "counter", "v0"));
  std::vector<std::unique_ptr<SqlCatalogStore>> stores;
  for (int i = 0; i < kWorkers; ++i) {
    stores.push_back(Open("cat"));
    ASSERT_NE(stores.back(), nullptr);
  }
  std::atomic<int> successes{0};
  std::atomic<int> conflicts{0};
  std::atomic<int> failures{0};
  std::vector<std::thread> threads;
  for (int i = 0; i < kWorkers; ++i) {
    threads.emplace_back([&, store = stores[i].get()] {
      int mine = 0;
      while (mine < kPerWorker && failures.load() == 0) {
        auto current = store->LoadTable(Ns("db"), "counter");
        if (!current.ok()) {
          if (current.status().code() != StatusCode::kUnavailable) failures++;
          continue;
        }
        int n = std::stoi(current->metadata_location.substr(1));
        Status status = store->CompareAndSwap(Ns("db"), "counter", current->metadata_location,
                                              "v" + std::to_string(n + 1));
        if (status.ok()) {
          ++mine;
          ++successes;
        } else if (status.code() == StatusCode::kConflict) {
          ++conflicts;
        } else if (status.code() != StatusCode::kUnavailable) {
          ADD_FAILURE() << status.ToString();
          failures++;
        }
      }
    });
  }
  for (auto& t : threads) t.join();
  ASSERT_EQ(failures.load(), 0);
  EXPECT_EQ(successes.load(), kWorkers * kPerWorker);
  EXPECT_EQ(store_->LoadTable(Ns("db"), "counter")->metadata_location,
            "v" + std::to_string(kWorkers * kPerWorker));
  ::testing::Test::RecordProperty("conflicts", conflicts.load());
}

INSTANTIATE_TEST_SUITE_P(Sqlite, SqlCatalogStoreTest, ::testing::Values(SqlDialect::kSqlite),
                         testing::DialectName);
INSTANTIATE_TEST_SUITE_P(Postgres, SqlCatalogStoreTest, ::testing::Values(SqlDialect::kPostgres),
                         testing::DialectName);

}  // namespace
}  // namespace floe::catalog
