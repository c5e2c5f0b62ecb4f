// SqlCatalogStore: the storage half of floe's SQL catalog. Namespaces, their properties and
// table pointers (metadata-location strings) of one catalog, kept in the JDBC catalog schema
// that Iceberg Java's JdbcCatalog and pyiceberg's SqlCatalog share, so all three can work on
// one database at the same time:
//
//   iceberg_tables(catalog_name, table_namespace, table_name, metadata_location,
//                  previous_metadata_location, iceberg_type)        -- 'TABLE' | 'VIEW' | NULL
//   iceberg_namespace_properties(catalog_name, namespace, property_key, property_value)
//
// Semantics follow the peers (README.md in this folder lists where they differ and which
// one floe follows):
//  - A namespace exists when any row of either table has it, or a child of it, as its
//    namespace; creating one writes the marker property `exists` = `true`.
//  - Rows whose iceberg_type is 'TABLE' or NULL are tables; 'VIEW' rows are views (Java's
//    JdbcCatalog supports views only on this V1 schema). Tables and views share names; a
//    namespace holding a view is not empty.
//  - A table commit is a compare-and-swap of metadata_location.
//
// The store knows nothing of table or view metadata: the catalog reads and writes metadata
// files and uses this store for the pointers.
//
// Thread-safety: not thread-safe (it owns one SqlConnection). Use one store per thread; any
// number of stores, in any number of processes, and the peers may share one database.
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "floe/base/status.h"
#include "floe/catalog/namespace.h"
#include "floe/catalog/sql_connection.h"

namespace floe::catalog {

using NamespaceProperties = std::map<std::string, std::string>;

struct TablePointer {
  std::string metadata_location;
  std::optional<std::string> previous_metadata_location;
};

// What UpdateNamespaceProperties did, in the REST catalog's terms.
struct NamespacePropertiesChange {
  std::vector<std::string> updated;  // keys set
  std::vector<std::string> removed;  // keys removed that were present
  std::vector<std::string> missing;  // keys asked to be removed that were absent
};

struct SqlCatalogStoreOptions {
  // Create the two tables if missing, and add the iceberg_type column to a table created by
  // an older Java catalog (schema V0). When false, a missing table or column is
  // kFailedPrecondition.
  bool create_tables = true;
};

class SqlCatalogStore {
 public:
  // The reserved namespace property that marks a namespace as existing.
  static constexpr std::string_view kExistsProperty = "exists";

  // Opens the store of `catalog_name` on `connection`, creating or upgrading the schema as
  // `options` says. Errors: kInvalidArgument (bad catalog name), the connection's errors.
  static Result<std::unique_ptr<SqlCatalogStore>> Open(std::unique_ptr<SqlConnection> connection,
                                                       std::string catalog_name,
                                                       const SqlCatalogStoreOptions& options = {});
  // Connects to `uri` (see ParseSqlUri) and opens the store there.
  static Result<std::unique_ptr<SqlCatalogStore>> Open(std::string_view uri,
                                                       std::string catalog_name,
                                                       const SqlCatalogStoreOptions& options = {});

  const std::string& catalog_name() const { return catalog_name_; }
  SqlConnection* connection() { return conn_.get(); }

  // Namespaces. Every `ns` argument must have at least one level; no level may be empty or
  // contain '.' or a NUL byte; the joined name is at most 255 characters (kInvalidArgument).

  // Returns whether `ns` exists: a property row or a table/view row in it or below it.
  Result<bool> NamespaceExists(const Namespace& ns);

  // Creates `ns` with `properties` plus `exists`=`true`.
  // Errors: kAlreadyExists; kInvalidArgument if `properties` holds `exists`, or a key is longer
  // than 255 or a value longer than 1000 characters.
  Status CreateNamespace(const Namespace& ns, const NamespaceProperties& properties = {});

  // Lists the namespaces directly below `parent` (the top level for an empty `parent`),
  // sorted. Errors: kNotFound if a non-empty `parent` does not exist.
  Result<std::vector<Namespace>> ListNamespaces(const Namespace& parent = {});

  // Returns the stored properties of `ns`, including `exists` when it is stored (a namespace
  // that pyiceberg created with properties has no marker). Errors: kNotFound.
  Result<NamespaceProperties> LoadNamespaceProperties(const Namespace& ns);

  // Removes `removals` and sets `updates` in one transaction.
  // Errors: kNotFound; kInvalidArgument if a key is in both, or is `exists`.
  Result<NamespacePropertiesChange> UpdateNamespaceProperties(
      const Namespace& ns, const std::vector<std::string>& removals,
      const NamespaceProperties& updates);
  Status SetNamespaceProperties(const Namespace& ns, const NamespaceProperties& updates) {
    return UpdateNamespaceProperties(ns, {}, updates).status();
  }
  Status RemoveNamespaceProperties(const Namespace& ns, const std::vector<std::string>& keys) {
    return UpdateNamespaceProperties(ns, keys, {}).status();
  }

  // Drops `ns` (deletes its property rows).
  // Errors: kNotFound; kFailedPrecondition "namespace not empty" if it holds a table or a
  // view, or has a child namespace.
  Status DropNamespace(const Namespace& ns);

  // Table pointers. `name` is 1 to 255 characters without NUL; locations at most 1000.

  // Creates the pointer of a new table (iceberg_type 'TABLE', no previous location).
  // Errors: kNotFound (namespace), kAlreadyExists (a table or a view has the name).
  Status CreateTable(const Namespace& ns, std::string_view name,
                     std::string_view metadata_location);

  // Errors: kNotFound (no such table; views are not tables), kCorrupt (row without location).
  Result<TablePointer> LoadTable(const Namespace& ns, std::string_view name);

  // Moves the pointer from `expected_location` to `new_location` (and the previous location
  // to `expected_location`) atomically. Errors: kConflict when the current location is not
  // `expected_location` (someone else committed: reload and retry), kNotFound.
  // A call that failed with kUnavailable may or may not have committed: a retry of the
  // same swap then reports kConflict, and a reload shows `new_location` if it had.
  Status CompareAndSwap(const Namespace& ns, std::string_view name,
                        std::string_view expected_location, std::string_view new_location);

  // One pointer move of CompareAndSwapAll.
  struct PointerSwap {
    Namespace ns;
    std::string name;
    std::string expected_location;
    std::string new_location;
  };
  // Moves every pointer in one database transaction: all or none. kConflict naming the
  // first table whose location is not the expected one; kNotFound for a missing table.
  // On kUnavailable or a failed commit the outcome may be unknown, as for CompareAndSwap.
  Status CompareAndSwapAll(const std::vector<PointerSwap>& swaps);

  // Renames a table, possibly into another namespace. Renaming a table to itself is a no-op.
  // Errors: kNotFound (source table or destination namespace), kAlreadyExists (a table or a
  // view has the destination name).
  Status RenameTable(const Namespace& from_ns, std::string_view from_name, const Namespace& to_ns,
                     std::string_view to_name);

  // Deletes the pointer (not the table's files). Errors: kNotFound.
  Status DropTable(const Namespace& ns, std::string_view name);

  // Lists the table names in `ns` (not views), sorted. Errors: kNotFound (namespace).
  Result<std::vector<std::string>> ListTables(const Namespace& ns);

  // View pointers: rows with iceberg_type 'VIEW', the same rules as tables. Messages are
  // Java's (JdbcCatalog, BaseMetastoreViewCatalog), which REST clients check.

  // Errors: kNotFound (namespace), kAlreadyExists (a view or a table has the name).
  Status CreateView(const Namespace& ns, std::string_view name, std::string_view metadata_location);
  // Errors: kNotFound (no such view; tables are not views), kCorrupt (row without location).
  Result<TablePointer> LoadView(const Namespace& ns, std::string_view name);
  // As CompareAndSwap, for a view.
  Status CompareAndSwapView(const Namespace& ns, std::string_view name,
                            std::string_view expected_location, std::string_view new_location);
  // Renaming a view to itself is a no-op. Errors: kNotFound (destination namespace, source
  // view), kAlreadyExists (a table or a view has the destination name).
  Status RenameView(const Namespace& from_ns, std::string_view from_name, const Namespace& to_ns,
                    std::string_view to_name);
  // Deletes the pointer. Errors: kNotFound.
  Status DropView(const Namespace& ns, std::string_view name);
  // Lists the view names in `ns`, sorted. Errors: kNotFound (namespace).
  Result<std::vector<std::string>> ListViews(const Namespace& ns);

 private:
  SqlCatalogStore(std::unique_ptr<SqlConnection> conn, std::string catalog_name)
      : conn_(std::move(conn)), catalog_name_(std::move(catalog_name)) {}

  Status EnsureSchema(const SqlCatalogStoreOptions& options);
  Status EnsureSchemaOnce(const SqlCatalogStoreOptions& options);
  Result<bool> Exists(const std::string& ns);
  Result<std::vector<std::string>> ListNames(
      const Namespace& ns, std::string_view list_sql,
      fmt::format_string<const std::string&> missing_namespace);
  Result<std::optional<std::optional<std::string>>> RowType(const std::string& ns,
                                                            std::string_view name);

  std::unique_ptr<SqlConnection> conn_;
  std::string catalog_name_;
};

}  // namespace floe::catalog
