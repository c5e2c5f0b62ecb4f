#include "floe/catalog/sql_catalog_store.h"

#include <algorithm>
#include <set>
#include <utility>

#include "floe/base/macros.h"

namespace floe::catalog {
namespace {

// The DDL of Iceberg Java's JdbcUtil (V0_CREATE_CATALOG_SQL plus V1_UPDATE_CATALOG_SQL's
// column, and CREATE_NAMESPACE_PROPERTIES_TABLE_SQL): same column types, nullability and
// primary keys. pyiceberg creates the same tables, but with property_value NOT NULL.
constexpr std::string_view kCreateTablesSql =
    "CREATE TABLE IF NOT EXISTS iceberg_tables ("
    "catalog_name VARCHAR(255) NOT NULL, "
    "table_namespace VARCHAR(255) NOT NULL, "
    "table_name VARCHAR(255) NOT NULL, "
    "metadata_location VARCHAR(1000), "
    "previous_metadata_location VARCHAR(1000), "
    "iceberg_type VARCHAR(5), "
    "PRIMARY KEY (catalog_name, table_namespace, table_name))";
constexpr std::string_view kCreatePropertiesSql =
    "CREATE TABLE IF NOT EXISTS iceberg_namespace_properties ("
    "catalog_name VARCHAR(255) NOT NULL, "
    "namespace VARCHAR(255) NOT NULL, "
    "property_key VARCHAR(255), "
    "property_value VARCHAR(1000), "
    "PRIMARY KEY (catalog_name, namespace, property_key))";
// Java's V1 migration (JdbcUtil.V1_UPDATE_CATALOG_SQL).
constexpr std::string_view kAddTypeColumnSql =
    "ALTER TABLE iceberg_tables ADD COLUMN iceberg_type VARCHAR(5)";
constexpr std::string_view kSqliteHasTableSql =
    "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?";
constexpr std::string_view kSqliteHasColumnSql =
    "SELECT 1 FROM pragma_table_info('iceberg_tables') WHERE name = 'iceberg_type'";
// CREATE TABLE IF NOT EXISTS looks in (and creates in) current_schema(); so do we.
constexpr std::string_view kPostgresHasTableSql =
    "SELECT 1 FROM information_schema.tables "
    "WHERE table_schema = current_schema() AND table_name = ?";
constexpr std::string_view kPostgresHasColumnSql =
    "SELECT 1 FROM information_schema.columns WHERE table_schema = current_schema() "
    "AND table_name = 'iceberg_tables' AND column_name = 'iceberg_type'";

// A namespace exists if a row has it or a child of it as its namespace (Java
// JdbcUtil.namespaceExists, pyiceberg SqlCatalog.namespace_exists), tables and views alike.
constexpr std::string_view kNamespaceExistsSql =
    "SELECT 1 FROM iceberg_tables WHERE catalog_name = ? "
    "AND (table_namespace = ? OR substr(table_namespace, 1, CAST(? AS INTEGER)) = ?) "
    "UNION ALL "
    "SELECT 1 FROM iceberg_namespace_properties WHERE catalog_name = ? "
    "AND (namespace = ? OR substr(namespace, 1, CAST(? AS INTEGER)) = ?) "
    "LIMIT 1";
// SQLite's LIKE, which the peers use, ignores ASCII case (and so does SQLite's lower()):
// the same prefix test, case-folded, keeps their answers.
constexpr std::string_view kSqliteNamespaceExistsSql =
    "SELECT 1 FROM iceberg_tables WHERE catalog_name = ? "
    "AND (table_namespace = ? OR lower(substr(table_namespace, 1, CAST(? AS INTEGER))) = "
    "lower(?)) "
    "UNION ALL "
    "SELECT 1 FROM iceberg_namespace_properties WHERE catalog_name = ? "
    "AND (namespace = ? OR lower(substr(namespace, 1, CAST(? AS INTEGER))) = lower(?)) "
    "LIMIT 1";
constexpr std::string_view kAllNamespacesSql =
    "SELECT table_namespace FROM iceberg_tables WHERE catalog_name = ? "
    "UNION "
    "SELECT namespace FROM iceberg_namespace_properties WHERE catalog_name = ?";
constexpr std::string_view kNamespacesLikeSql =
    "SELECT table_namespace FROM iceberg_tables WHERE catalog_name = ? "
    "AND table_namespace LIKE ? ESCAPE '!' "
    "UNION "
    "SELECT namespace FROM iceberg_namespace_properties WHERE catalog_name = ? "
    "AND namespace LIKE ? ESCAPE '!'";
constexpr std::string_view kInsertPropertySql =
    "INSERT INTO iceberg_namespace_properties "
    "(catalog_name, namespace, property_key, property_value) VALUES (?, ?, ?, ?)";
constexpr std::string_view kLoadPropertiesSql =
    "SELECT property_key, property_value FROM iceberg_namespace_properties "
    "WHERE catalog_name = ? AND namespace = ?";
constexpr std::string_view kUpsertPropertySql =
    "INSERT INTO iceberg_namespace_properties "
    "(catalog_name, namespace, property_key, property_value) VALUES (?, ?, ?, ?) "
    "ON CONFLICT (catalog_name, namespace, property_key) "
    "DO UPDATE SET property_value = excluded.property_value";
constexpr std::string_view kDeletePropertySql =
    "DELETE FROM iceberg_namespace_properties "
    "WHERE catalog_name = ? AND namespace = ? AND property_key = ?";
constexpr std::string_view kDeleteNamespaceSql =
    "DELETE FROM iceberg_namespace_properties WHERE catalog_name = ? AND namespace = ?";
constexpr std::string_view kTypesInNamespaceSql =
    "SELECT iceberg_type FROM iceberg_tables WHERE catalog_name = ? AND table_namespace = ?";

constexpr std::string_view kRowTypeSql =
    "SELECT iceberg_type FROM iceberg_tables "
    "WHERE catalog_name = ? AND table_namespace = ? AND table_name = ?";
// The rest of the table statements are Java's V1 statements (JdbcUtil V1_*_TABLE_SQL):
// 'TABLE' and NULL rows are tables.
constexpr std::string_view kInsertTableSql =
    "INSERT INTO iceberg_tables (catalog_name, table_namespace, table_name, metadata_location, "
    "previous_metadata_location, iceberg_type) VALUES (?, ?, ?, ?, NULL, 'TABLE')";
constexpr std::string_view kLoadTableSql =
    "SELECT metadata_location, previous_metadata_location FROM iceberg_tables "
    "WHERE catalog_name = ? AND table_namespace = ? AND table_name = ? "
    "AND (iceberg_type = 'TABLE' OR iceberg_type IS NULL)";
constexpr std::string_view kCompareAndSwapSql =
    "UPDATE iceberg_tables SET metadata_location = ?, previous_metadata_location = ? "
    "WHERE catalog_name = ? AND table_namespace = ? AND table_name = ? "
    "AND metadata_location = ? AND (iceberg_type = 'TABLE' OR iceberg_type IS NULL)";
constexpr std::string_view kRenameTableSql =
    "UPDATE iceberg_tables SET table_namespace = ?, table_name = ? "
    "WHERE catalog_name = ? AND table_namespace = ? AND table_name = ? "
    "AND (iceberg_type = 'TABLE' OR iceberg_type IS NULL)";
constexpr std::string_view kDropTableSql =
    "DELETE FROM iceberg_tables WHERE catalog_name = ? AND table_namespace = ? "
    "AND table_name = ? AND (iceberg_type = 'TABLE' OR iceberg_type IS NULL)";
constexpr std::string_view kListTablesSql =
    "SELECT table_name FROM iceberg_tables WHERE catalog_name = ? AND table_namespace = ? "
    "AND (iceberg_type = 'TABLE' OR iceberg_type IS NULL)";

// Java's view statements (JdbcUtil *_VIEW_SQL): only 'VIEW' rows are views.
constexpr std::string_view kInsertViewSql =
    "INSERT INTO iceberg_tables (catalog_name, table_namespace, table_name, metadata_location, "
    "previous_metadata_location, iceberg_type) VALUES (?, ?, ?, ?, NULL, 'VIEW')";
constexpr std::string_view kLoadViewSql =
    "SELECT metadata_location, previous_metadata_location FROM iceberg_tables "
    "WHERE catalog_name = ? AND table_namespace = ? AND table_name = ? AND iceberg_type = 'VIEW'";
constexpr std::string_view kCompareAndSwapViewSql =
    "UPDATE iceberg_tables SET metadata_location = ?, previous_metadata_location = ? "
    "WHERE catalog_name = ? AND table_namespace = ? AND table_name = ? "
    "AND metadata_location = ? AND iceberg_type = 'VIEW'";
constexpr std::string_view kRenameViewSql =
    "UPDATE iceberg_tables SET table_namespace = ?, table_name = ? "
    "WHERE catalog_name = ? AND table_namespace = ? AND table_name = ? AND iceberg_type = 'VIEW'";
constexpr std::string_view kDropViewSql =
    "DELETE FROM iceberg_tables WHERE catalog_name = ? AND table_namespace = ? "
    "AND table_name = ? AND iceberg_type = 'VIEW'";
constexpr std::string_view kListViewsSql =
    "SELECT table_name FROM iceberg_tables WHERE catalog_name = ? AND table_namespace = ? "
    "AND iceberg_type = 'VIEW'";

constexpr std::string_view kViewType = "VIEW";
constexpr size_t kMaxNameChars = 255;       // VARCHAR(255) columns
constexpr size_t kMaxLocationChars = 1000;  // VARCHAR(1000) columns

// Characters as PostgreSQL's VARCHAR(n) counts them: UTF-8 code points.
size_t CharCount(std::string_view s) {
  return static_cast<size_t>(
      std::count_if(s.begin(), s.end(), [](char c) { return (c & 0xC0) != 0x80; }));
}

Status CheckText(std::string_view what, std::string_view value, size_t max_chars,
                 bool allow_empty = false) {
  if (!allow_empty && value.empty()) return Status::InvalidArgument("empty {}", what);
  if (value.find('\0') != std::string_view::npos) {
    return Status::InvalidArgument("{} contains a NUL byte", what);
  }
  if (CharCount(value) > max_chars) {
    return Status::InvalidArgument("{} is longer than {} characters", what, max_chars);
  }
  return Status::OK();
}

// Validates `ns` and returns its stored form.
Result<std::string> NamespaceString(const Namespace& ns) {
  if (ns.empty()) return Status::InvalidArgument("empty namespace");
  for (const std::string& level : ns.levels) {
    if (level.empty()) return Status::InvalidArgument("namespace has an empty level");
    if (level.find('.') != std::string::npos) {
      return Status::InvalidArgument("namespace level contains '.': {}", level);
    }
  }
  std::string s = ns.ToString();
  FLOE_RETURN_IF_ERROR(CheckText("namespace", s, kMaxNameChars));
  return s;
}

Status CheckTableName(std::string_view name) {
  return CheckText("table name", name, kMaxNameChars);
}

// A LIKE pattern (ESCAPE '!') matching every namespace strictly below `ns`.
std::string ChildrenPattern(std::string_view ns) {
  std::string out;
  for (char c : ns) {
    if (c == '!' || c == '_' || c == '%') out += '!';
    out += c;
  }
  out += ".%";
  return out;
}

std::string TableId(std::string_view ns, std::string_view name) {
  return fmt::format("{}.{}", ns, name);
}

}  // namespace

Result<std::unique_ptr<SqlCatalogStore>> SqlCatalogStore::Open(
    std::unique_ptr<SqlConnection> connection, std::string catalog_name,
    const SqlCatalogStoreOptions& options) {
  FLOE_RETURN_IF_ERROR(CheckText("catalog name", catalog_name, kMaxNameChars));
  std::unique_ptr<SqlCatalogStore> store(
      new SqlCatalogStore(std::move(connection), std::move(catalog_name)));
  FLOE_RETURN_IF_ERROR(store->EnsureSchema(options));
  return store;
}

Result<std::unique_ptr<SqlCatalogStore>> SqlCatalogStore::Open(
    std::string_view uri, std::string catalog_name, const SqlCatalogStoreOptions& options) {
  FLOE_ASSIGN_OR_RETURN(auto conn, SqlConnection::Open(uri));
  return Open(std::move(conn), std::move(catalog_name), options);
}

Status SqlCatalogStore::EnsureSchema(const SqlCatalogStoreOptions& options) {
  // Two processes creating the tables or adding the column at once can collide (PostgreSQL's
  // CREATE TABLE IF NOT EXISTS is not race-free; the second ALTER fails): the loser retries
  // and then finds the work done.
  Status status;
  for (int attempt = 0; attempt < 3; ++attempt) {
    status = EnsureSchemaOnce(options);
    if (status.ok() || status.code() == StatusCode::kFailedPrecondition) break;
  }
  return status;
}

Status SqlCatalogStore::EnsureSchemaOnce(const SqlCatalogStoreOptions& options) {
  const bool sqlite = conn_->dialect() == SqlDialect::kSqlite;
  FLOE_ASSIGN_OR_RETURN(auto txn, SqlTransaction::Begin(conn_.get(), SqlTransactionMode::kWrite));
  if (options.create_tables) {
    FLOE_RETURN_IF_ERROR(conn_->Execute(kCreateTablesSql));
    FLOE_RETURN_IF_ERROR(conn_->Execute(kCreatePropertiesSql));
  } else {
    for (std::string_view table : {"iceberg_tables", "iceberg_namespace_properties"}) {
      FLOE_ASSIGN_OR_RETURN(
          auto found, conn_->Execute(sqlite ? kSqliteHasTableSql : kPostgresHasTableSql, {table}));
      if (found.rows.empty()) {
        return Status::FailedPrecondition("catalog table {} does not exist", table);
      }
    }
  }
  FLOE_ASSIGN_OR_RETURN(auto column,
                        conn_->Execute(sqlite ? kSqliteHasColumnSql : kPostgresHasColumnSql));
  if (column.rows.empty()) {
    // A table from a Java catalog that runs with the V0 schema (its default): add the column
    // as Java's V1 migration does. Java and pyiceberg detect the column and switch to V1.
    if (!options.create_tables) {
      return Status::FailedPrecondition("iceberg_tables has no iceberg_type column (schema V0)");
    }
    FLOE_RETURN_IF_ERROR(conn_->Execute(kAddTypeColumnSql));
  }
  return txn.Commit();
}

// The hottest statement of a server (every table list checks its namespace): a prefix test
// with substr rather than the peers' LIKE, because SQLite re-prepares a statement whose LIKE
// pattern is a bound parameter each time the binding changes. The answers stay the peers'
// (case-folded on SQLite, where their LIKE ignores ASCII case).
Result<bool> SqlCatalogStore::Exists(const std::string& ns) {
  std::string prefix = ns + ".";
  auto prefix_chars = static_cast<int64_t>(CharCount(prefix));
  FLOE_ASSIGN_OR_RETURN(
      auto result,
      conn_->Execute(
          conn_->dialect() == SqlDialect::kSqlite ? kSqliteNamespaceExistsSql : kNamespaceExistsSql,
          {catalog_name_, ns, prefix_chars, prefix, catalog_name_, ns, prefix_chars, prefix}));
  return !result.rows.empty();
}

Result<bool> SqlCatalogStore::NamespaceExists(const Namespace& ns) {
  FLOE_ASSIGN_OR_RETURN(std::string name, NamespaceString(ns));
  return Exists(name);
}

Status SqlCatalogStore::CreateNamespace(const Namespace& ns,
                                        const NamespaceProperties& properties) {
  FLOE_ASSIGN_OR_RETURN(std::string name, NamespaceString(ns));
  if (properties.contains(std::string(kExistsProperty))) {
    // Java's createNamespace builds the map with putAll(metadata).put("exists", "true") and
    // buildOrThrow(), which rejects the duplicate key.
    return Status::InvalidArgument("cannot set reserved property: {}", kExistsProperty);
  }
  for (const auto& [key, value] : properties) {
    FLOE_RETURN_IF_ERROR(CheckText("property key", key, kMaxNameChars));
    FLOE_RETURN_IF_ERROR(CheckText("property value", value, kMaxLocationChars, true));
  }
  FLOE_ASSIGN_OR_RETURN(auto txn, SqlTransaction::Begin(conn_.get(), SqlTransactionMode::kWrite));
  FLOE_ASSIGN_OR_RETURN(bool exists, Exists(name));
  if (exists) return Status::AlreadyExists("namespace already exists: {}", name);
  // Java's order: the given properties, then the marker.
  auto insert = [&](std::string_view key, std::string_view value) -> Status {
    Status status = conn_->Execute(kInsertPropertySql, {catalog_name_, name, key, value}).status();
    // A concurrent creator (PostgreSQL, READ COMMITTED) surfaces as a duplicate key.
    if (status.code() == StatusCode::kAlreadyExists) {
      return Status::AlreadyExists("namespace already exists: {}", name);
    }
    return status;
  };
  for (const auto& [key, value] : properties) FLOE_RETURN_IF_ERROR(insert(key, value));
  FLOE_RETURN_IF_ERROR(insert(kExistsProperty, "true"));
  return txn.Commit();
}

Result<std::vector<Namespace>> SqlCatalogStore::ListNamespaces(const Namespace& parent) {
  std::string parent_name;
  if (!parent.empty()) {
    FLOE_ASSIGN_OR_RETURN(parent_name, NamespaceString(parent));
  }
  FLOE_ASSIGN_OR_RETURN(auto txn, SqlTransaction::Begin(conn_.get(), SqlTransactionMode::kRead));
  SqlResult result;
  if (parent.empty()) {
    FLOE_ASSIGN_OR_RETURN(result,
                          conn_->Execute(kAllNamespacesSql, {catalog_name_, catalog_name_}));
  } else {
    FLOE_ASSIGN_OR_RETURN(bool exists, Exists(parent_name));
    if (!exists) return Status::NotFound("namespace does not exist: {}", parent_name);
    std::string pattern = ChildrenPattern(parent_name);
    FLOE_ASSIGN_OR_RETURN(result, conn_->Execute(kNamespacesLikeSql,
                                                 {catalog_name_, pattern, catalog_name_, pattern}));
  }
  FLOE_RETURN_IF_ERROR(txn.Commit());
  // As both peers: keep rows strictly below `parent` whose leading levels equal it exactly
  // (SQLite's LIKE ignores ASCII case), cut them to one level below `parent`, dedupe.
  const size_t depth = parent.levels.size() + 1;
  std::set<Namespace> children;
  for (const SqlRow& row : result.rows) {
    if (!row.empty() && row[0].has_value()) {
      Namespace ns = Namespace::FromString(*row[0]);
      if (ns.levels.size() < depth) continue;
      if (!std::equal(parent.levels.begin(), parent.levels.end(), ns.levels.begin())) continue;
      ns.levels.resize(depth);
      children.insert(std::move(ns));
    }
  }
  return std::vector<Namespace>(children.begin(), children.end());
}

Result<NamespaceProperties> SqlCatalogStore::LoadNamespaceProperties(const Namespace& ns) {
  FLOE_ASSIGN_OR_RETURN(std::string name, NamespaceString(ns));
  FLOE_ASSIGN_OR_RETURN(auto txn, SqlTransaction::Begin(conn_.get(), SqlTransactionMode::kRead));
  FLOE_ASSIGN_OR_RETURN(bool exists, Exists(name));
  if (!exists) return Status::NotFound("namespace does not exist: {}", name);
  FLOE_ASSIGN_OR_RETURN(auto result, conn_->Execute(kLoadPropertiesSql, {catalog_name_, name}));
  FLOE_RETURN_IF_ERROR(txn.Commit());
  NamespaceProperties properties;
  for (const SqlRow& row : result.rows) {
    // Java's schema lets property_value be NULL; read it as empty.
    if (row.size() == 2 && row[0].has_value()) properties[*row[0]] = row[1].value_or("");
  }
  return properties;
}

Result<NamespacePropertiesChange> SqlCatalogStore::UpdateNamespaceProperties(
    const Namespace& ns, const std::vector<std::string>& removals,
    const NamespaceProperties& updates) {
  FLOE_ASSIGN_OR_RETURN(std::string name, NamespaceString(ns));
  for (const std::string& key : removals) {
    if (updates.contains(key)) {
      return Status::InvalidArgument("property both updated and removed: {}", key);
    }
    if (key == kExistsProperty) {
      return Status::InvalidArgument("cannot remove reserved property: {}", kExistsProperty);
    }
  }
  for (const auto& [key, value] : updates) {
    if (key == kExistsProperty) {
      // Java's setProperties: "Cannot set reserved property: exists".
      return Status::InvalidArgument("cannot set reserved property: {}", kExistsProperty);
    }
    FLOE_RETURN_IF_ERROR(CheckText("property key", key, kMaxNameChars));
    FLOE_RETURN_IF_ERROR(CheckText("property value", value, kMaxLocationChars, true));
  }
  FLOE_ASSIGN_OR_RETURN(auto txn, SqlTransaction::Begin(conn_.get(), SqlTransactionMode::kWrite));
  FLOE_ASSIGN_OR_RETURN(bool exists, Exists(name));
  if (!exists) return Status::NotFound("namespace does not exist: {}", name);
  NamespacePropertiesChange change;
  std::set<std::string> seen;
  for (const std::string& key : removals) {
    if (!seen.insert(key).second) continue;
    FLOE_ASSIGN_OR_RETURN(auto result,
                          conn_->Execute(kDeletePropertySql, {catalog_name_, name, key}));
    (result.affected_rows > 0 ? change.removed : change.missing).push_back(key);
  }
  for (const auto& [key, value] : updates) {
    FLOE_RETURN_IF_ERROR(conn_->Execute(kUpsertPropertySql, {catalog_name_, name, key, value}));
    change.updated.push_back(key);
  }
  FLOE_RETURN_IF_ERROR(txn.Commit());
  return change;
}

Status SqlCatalogStore::DropNamespace(const Namespace& ns) {
  FLOE_ASSIGN_OR_RETURN(std::string name, NamespaceString(ns));
  FLOE_ASSIGN_OR_RETURN(auto txn, SqlTransaction::Begin(conn_.get(), SqlTransactionMode::kWrite));
  FLOE_ASSIGN_OR_RETURN(bool exists, Exists(name));
  if (!exists) return Status::NotFound("namespace does not exist: {}", name);
  // Java's dropNamespace refuses child namespaces, tables and views; pyiceberg checks only
  // tables. Refusing more is the choice that never orphans a peer's objects.
  std::string pattern = ChildrenPattern(name);
  FLOE_ASSIGN_OR_RETURN(
      auto children,
      conn_->Execute(kNamespacesLikeSql, {catalog_name_, pattern, catalog_name_, pattern}));
  for (const SqlRow& row : children.rows) {
    // LIKE ignores ASCII case on SQLite: count only exact children, as Java does.
    if (!row.empty() && row[0].has_value() && row[0]->starts_with(name + ".")) {
      // Java's "Namespace %s is not empty", which REST clients check for.
      return Status::FailedPrecondition("Namespace {} is not empty: child namespace {}", name,
                                        *row[0]);
    }
  }
  FLOE_ASSIGN_OR_RETURN(auto rows, conn_->Execute(kTypesInNamespaceSql, {catalog_name_, name}));
  if (!rows.rows.empty()) {
    size_t views = std::count_if(rows.rows.begin(), rows.rows.end(), [](const SqlRow& row) {
      return !row.empty() && row[0].has_value() && *row[0] == kViewType;
    });
    return Status::FailedPrecondition("Namespace {} is not empty: {} table(s) and {} view(s)", name,
                                      rows.rows.size() - views, views);
  }
  FLOE_RETURN_IF_ERROR(conn_->Execute(kDeleteNamespaceSql, {catalog_name_, name}));
  return txn.Commit();
}

// The iceberg_type of the row named (ns, name): nullopt if there is no row, else the
// (nullable) type.
Result<std::optional<std::optional<std::string>>> SqlCatalogStore::RowType(const std::string& ns,
                                                                           std::string_view name) {
  FLOE_ASSIGN_OR_RETURN(auto result, conn_->Execute(kRowTypeSql, {catalog_name_, ns, name}));
  if (result.rows.empty()) return std::optional<std::optional<std::string>>();
  return std::optional<std::optional<std::string>>(result.rows[0].at(0));
}

Status SqlCatalogStore::CreateTable(const Namespace& ns, std::string_view name,
                                    std::string_view metadata_location) {
  FLOE_ASSIGN_OR_RETURN(std::string ns_name, NamespaceString(ns));
  FLOE_RETURN_IF_ERROR(CheckTableName(name));
  FLOE_RETURN_IF_ERROR(CheckText("metadata location", metadata_location, kMaxLocationChars));
  FLOE_ASSIGN_OR_RETURN(auto txn, SqlTransaction::Begin(conn_.get(), SqlTransactionMode::kWrite));
  // pyiceberg always requires the namespace; Java only in strict mode (jdbc.strict-mode).
  FLOE_ASSIGN_OR_RETURN(bool exists, Exists(ns_name));
  if (!exists) return Status::NotFound("namespace does not exist: {}", ns_name);
  FLOE_ASSIGN_OR_RETURN(auto type, RowType(ns_name, name));
  if (type.has_value()) {
    if (*type == kViewType) {
      // Java's wording (BaseMetastoreViewCatalog), which REST clients test for.
      return Status::AlreadyExists("View with same name already exists: {}",
                                   TableId(ns_name, name));
    }
    return Status::AlreadyExists("table already exists: {}", TableId(ns_name, name));
  }
  Status status =
      conn_->Execute(kInsertTableSql, {catalog_name_, ns_name, name, metadata_location}).status();
  if (status.code() == StatusCode::kAlreadyExists) {
    return Status::AlreadyExists("table already exists: {}", TableId(ns_name, name));
  }
  FLOE_RETURN_IF_ERROR(status);
  return txn.Commit();
}

Result<TablePointer> SqlCatalogStore::LoadTable(const Namespace& ns, std::string_view name) {
  FLOE_ASSIGN_OR_RETURN(std::string ns_name, NamespaceString(ns));
  FLOE_RETURN_IF_ERROR(CheckTableName(name));
  FLOE_ASSIGN_OR_RETURN(auto result, conn_->Execute(kLoadTableSql, {catalog_name_, ns_name, name}));
  if (result.rows.empty()) {
    return Status::NotFound("table does not exist: {}", TableId(ns_name, name));
  }
  SqlRow& row = result.rows[0];
  if (row.size() != 2 || !row[0].has_value()) {
    return Status::Corrupt("table {} has no metadata location", TableId(ns_name, name));
  }
  return TablePointer{std::move(*row[0]), std::move(row[1])};
}

Status SqlCatalogStore::CompareAndSwap(const Namespace& ns, std::string_view name,
                                       std::string_view expected_location,
                                       std::string_view new_location) {
  FLOE_ASSIGN_OR_RETURN(std::string ns_name, NamespaceString(ns));
  FLOE_RETURN_IF_ERROR(CheckTableName(name));
  FLOE_RETURN_IF_ERROR(CheckText("metadata location", expected_location, kMaxLocationChars));
  FLOE_RETURN_IF_ERROR(CheckText("metadata location", new_location, kMaxLocationChars));
  // One statement: atomic on its own, on both backends.
  FLOE_ASSIGN_OR_RETURN(auto result, conn_->Execute(kCompareAndSwapSql,
                                                    {new_location, expected_location, catalog_name_,
                                                     ns_name, name, expected_location}));
  if (result.affected_rows == 1) return Status::OK();
  if (result.affected_rows > 1) {
    return Status::Internal("compare-and-swap changed {} rows of {}", result.affected_rows,
                            TableId(ns_name, name));
  }
  // Lost: say why. This second read is only for the message.
  auto current = LoadTable(ns, name);
  if (!current.ok()) return current.status();
  return Status::Conflict("table {} was updated concurrently: metadata location is {}, not {}",
                          TableId(ns_name, name), current->metadata_location, expected_location);
}

Status SqlCatalogStore::CompareAndSwapAll(const std::vector<PointerSwap>& swaps) {
  std::vector<std::string> ns_names;
  ns_names.reserve(swaps.size());
  for (const PointerSwap& swap : swaps) {
    FLOE_ASSIGN_OR_RETURN(std::string ns_name, NamespaceString(swap.ns));
    FLOE_RETURN_IF_ERROR(CheckTableName(swap.name));
    FLOE_RETURN_IF_ERROR(CheckText("metadata location", swap.expected_location, kMaxLocationChars));
    FLOE_RETURN_IF_ERROR(CheckText("metadata location", swap.new_location, kMaxLocationChars));
    ns_names.push_back(std::move(ns_name));
  }
  FLOE_ASSIGN_OR_RETURN(auto txn, SqlTransaction::Begin(conn_.get(), SqlTransactionMode::kWrite));
  for (size_t i = 0; i < swaps.size(); ++i) {
    const PointerSwap& swap = swaps[i];
    FLOE_ASSIGN_OR_RETURN(auto result,
                          conn_->Execute(kCompareAndSwapSql,
                                         {swap.new_location, swap.expected_location, catalog_name_,
                                          ns_names[i], swap.name, swap.expected_location}));
    if (result.affected_rows == 1) continue;
    if (result.affected_rows > 1) {
      return Status::Internal("compare-and-swap changed {} rows of {}", result.affected_rows,
                              TableId(ns_names[i], swap.name));
    }
    auto current = LoadTable(swap.ns, swap.name);
    if (!current.ok()) return current.status();
    return Status::Conflict("table {} was updated concurrently: metadata location is {}, not {}",
                            TableId(ns_names[i], swap.name), current->metadata_location,
                            swap.expected_location);
  }
  return txn.Commit();
}

Status SqlCatalogStore::RenameTable(const Namespace& from_ns, std::string_view from_name,
                                    const Namespace& to_ns, std::string_view to_name) {
  FLOE_ASSIGN_OR_RETURN(std::string from, NamespaceString(from_ns));
  FLOE_ASSIGN_OR_RETURN(std::string to, NamespaceString(to_ns));
  FLOE_RETURN_IF_ERROR(CheckTableName(from_name));
  FLOE_RETURN_IF_ERROR(CheckTableName(to_name));
  FLOE_ASSIGN_OR_RETURN(auto txn, SqlTransaction::Begin(conn_.get(), SqlTransactionMode::kWrite));
  // Java's renameTable order: source table, destination namespace, destination view, table.
  FLOE_ASSIGN_OR_RETURN(auto source,
                        conn_->Execute(kLoadTableSql, {catalog_name_, from, from_name}));
  if (source.rows.empty()) {
    return Status::NotFound("table does not exist: {}", TableId(from, from_name));
  }
  if (from == to && from_name == to_name) return txn.Commit();
  FLOE_ASSIGN_OR_RETURN(bool exists, Exists(to));
  if (!exists) return Status::NotFound("namespace does not exist: {}", to);
  FLOE_ASSIGN_OR_RETURN(auto type, RowType(to, to_name));
  if (type.has_value()) {
    // Java's wording (JdbcCatalog.renameTable / renameView).
    return Status::AlreadyExists("Cannot rename {} to {}. {} already exists",
                                 TableId(from, from_name), TableId(to, to_name),
                                 *type == kViewType ? "View" : "Table");
  }
  auto result = conn_->Execute(kRenameTableSql, {to, to_name, catalog_name_, from, from_name});
  if (!result.ok()) {
    if (result.status().code() == StatusCode::kAlreadyExists) {
      return Status::AlreadyExists("table already exists: {}", TableId(to, to_name));
    }
    return result.status();
  }
  if (result->affected_rows != 1) {
    return Status::NotFound("table does not exist: {}", TableId(from, from_name));
  }
  return txn.Commit();
}

Status SqlCatalogStore::DropTable(const Namespace& ns, std::string_view name) {
  FLOE_ASSIGN_OR_RETURN(std::string ns_name, NamespaceString(ns));
  FLOE_RETURN_IF_ERROR(CheckTableName(name));
  FLOE_ASSIGN_OR_RETURN(auto result, conn_->Execute(kDropTableSql, {catalog_name_, ns_name, name}));
  if (result.affected_rows == 0) {
    return Status::NotFound("table does not exist: {}", TableId(ns_name, name));
  }
  return Status::OK();
}

Result<std::vector<std::string>> SqlCatalogStore::ListTables(const Namespace& ns) {
  return ListNames(ns, kListTablesSql, "namespace does not exist: {}");
}

// The names `list_sql` selects in `ns`, sorted. A row in the namespace is one of the things
// that make it exist (Exists), so only an empty listing needs the separate check.
Result<std::vector<std::string>> SqlCatalogStore::ListNames(
    const Namespace& ns, std::string_view list_sql,
    fmt::format_string<const std::string&> missing_namespace) {
  FLOE_ASSIGN_OR_RETURN(std::string ns_name, NamespaceString(ns));
  FLOE_ASSIGN_OR_RETURN(auto txn, SqlTransaction::Begin(conn_.get(), SqlTransactionMode::kRead));
  FLOE_ASSIGN_OR_RETURN(auto result, conn_->Execute(list_sql, {catalog_name_, ns_name}));
  if (result.rows.empty()) {
    FLOE_ASSIGN_OR_RETURN(bool exists, Exists(ns_name));
    if (!exists) return Status::NotFound(missing_namespace, std::as_const(ns_name));
  }
  FLOE_RETURN_IF_ERROR(txn.Commit());
  std::vector<std::string> names;
  names.reserve(result.rows.size());
  for (SqlRow& row : result.rows) {
    if (!row.empty() && row[0].has_value()) names.push_back(std::move(*row[0]));
  }
  std::sort(names.begin(), names.end());
  return names;
}

// Views: Java JdbcViewOperations / JdbcCatalog view methods, with the same checks as tables.

Status SqlCatalogStore::CreateView(const Namespace& ns, std::string_view name,
                                   std::string_view metadata_location) {
  FLOE_ASSIGN_OR_RETURN(std::string ns_name, NamespaceString(ns));
  FLOE_RETURN_IF_ERROR(CheckTableName(name));
  FLOE_RETURN_IF_ERROR(CheckText("metadata location", metadata_location, kMaxLocationChars));
  FLOE_ASSIGN_OR_RETURN(auto txn, SqlTransaction::Begin(conn_.get(), SqlTransactionMode::kWrite));
  FLOE_ASSIGN_OR_RETURN(bool exists, Exists(ns_name));
  if (!exists) return Status::NotFound("Namespace does not exist: {}", ns_name);
  FLOE_ASSIGN_OR_RETURN(auto type, RowType(ns_name, name));
  if (type.has_value()) {
    if (*type == kViewType) {
      return Status::AlreadyExists("View already exists: {}", TableId(ns_name, name));
    }
    return Status::AlreadyExists("Table with same name already exists: {}", TableId(ns_name, name));
  }
  Status status =
      conn_->Execute(kInsertViewSql, {catalog_name_, ns_name, name, metadata_location}).status();
  if (status.code() == StatusCode::kAlreadyExists) {
    return Status::AlreadyExists("View already exists: {}", TableId(ns_name, name));
  }
  FLOE_RETURN_IF_ERROR(status);
  return txn.Commit();
}

Result<TablePointer> SqlCatalogStore::LoadView(const Namespace& ns, std::string_view name) {
  FLOE_ASSIGN_OR_RETURN(std::string ns_name, NamespaceString(ns));
  FLOE_RETURN_IF_ERROR(CheckTableName(name));
  FLOE_ASSIGN_OR_RETURN(auto result, conn_->Execute(kLoadViewSql, {catalog_name_, ns_name, name}));
  if (result.rows.empty()) {
    return Status::NotFound("View does not exist: {}", TableId(ns_name, name));
  }
  SqlRow& row = result.rows[0];
  if (row.size() != 2 || !row[0].has_value()) {
    return Status::Corrupt("view {} has no metadata location", TableId(ns_name, name));
  }
  return TablePointer{std::move(*row[0]), std::move(row[1])};
}

Status SqlCatalogStore::CompareAndSwapView(const Namespace& ns, std::string_view name,
                                           std::string_view expected_location,
                                           std::string_view new_location) {
  FLOE_ASSIGN_OR_RETURN(std::string ns_name, NamespaceString(ns));
  FLOE_RETURN_IF_ERROR(CheckTableName(name));
  FLOE_RETURN_IF_ERROR(CheckText("metadata location", expected_location, kMaxLocationChars));
  FLOE_RETURN_IF_ERROR(CheckText("metadata location", new_location, kMaxLocationChars));
  FLOE_ASSIGN_OR_RETURN(auto result, conn_->Execute(kCompareAndSwapViewSql,
                                                    {new_location, expected_location, catalog_name_,
                                                     ns_name, name, expected_location}));
  if (result.affected_rows == 1) return Status::OK();
  if (result.affected_rows > 1) {
    return Status::Internal("compare-and-swap changed {} rows of {}", result.affected_rows,
                            TableId(ns_name, name));
  }
  auto current = LoadView(ns, name);
  if (!current.ok()) return current.status();
  return Status::Conflict("Cannot commit {}: metadata location {} has changed from {}",
                          TableId(ns_name, name), expected_location, current->metadata_location);
}

Status SqlCatalogStore::RenameView(const Namespace& from_ns, std::string_view from_name,
                                   const Namespace& to_ns, std::string_view to_name) {
  FLOE_ASSIGN_OR_RETURN(std::string from, NamespaceString(from_ns));
  FLOE_ASSIGN_OR_RETURN(std::string to, NamespaceString(to_ns));
  FLOE_RETURN_IF_ERROR(CheckTableName(from_name));
  FLOE_RETURN_IF_ERROR(CheckTableName(to_name));
  if (from == to && from_name == to_name) return Status::OK();
  FLOE_ASSIGN_OR_RETURN(auto txn, SqlTransaction::Begin(conn_.get(), SqlTransactionMode::kWrite));
  // Java's renameView order: destination namespace, source view, destination table or view.
  FLOE_ASSIGN_OR_RETURN(bool exists, Exists(to));
  if (!exists) return Status::NotFound("Namespace does not exist: {}", to);
  FLOE_ASSIGN_OR_RETURN(auto source,
                        conn_->Execute(kLoadViewSql, {catalog_name_, from, from_name}));
  if (source.rows.empty()) {
    return Status::NotFound("View does not exist: {}", TableId(from, from_name));
  }
  FLOE_ASSIGN_OR_RETURN(auto type, RowType(to, to_name));
  if (type.has_value()) {
    return Status::AlreadyExists("Cannot rename {} to {}. {} already exists",
                                 TableId(from, from_name), TableId(to, to_name),
                                 *type == kViewType ? "View" : "Table");
  }
  auto result = conn_->Execute(kRenameViewSql, {to, to_name, catalog_name_, from, from_name});
  if (!result.ok()) {
    if (result.status().code() == StatusCode::kAlreadyExists) {
      return Status::AlreadyExists("Cannot rename {} to {}. View already exists",
                                   TableId(from, from_name), TableId(to, to_name));
    }
    return result.status();
  }
  if (result->affected_rows != 1) {
    return Status::NotFound("View does not exist: {}", TableId(from, from_name));
  }
  return txn.Commit();
}

Status SqlCatalogStore::DropView(const Namespace& ns, std::string_view name) {
  FLOE_ASSIGN_OR_RETURN(std::string ns_name, NamespaceString(ns));
  FLOE_RETURN_IF_ERROR(CheckTableName(name));
  FLOE_ASSIGN_OR_RETURN(auto result, conn_->Execute(kDropViewSql, {catalog_name_, ns_name, name}));
  if (result.affected_rows == 0) {
    return Status::NotFound("View does not exist: {}", TableId(ns_name, name));
  }
  return Status::OK();
}

Result<std::vector<std::string>> SqlCatalogStore::ListViews(const Namespace& ns) {
  return ListNames(ns, kListViewsSql, "Namespace does not exist: {}");
}

}  // namespace floe::catalog
