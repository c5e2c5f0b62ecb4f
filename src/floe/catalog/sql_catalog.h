// SqlCatalog: the Catalog on SqlCatalogStore (the JDBC catalog schema on SQLite or
// PostgreSQL), sharing its tables with Iceberg Java's JdbcCatalog and pyiceberg's SqlCatalog
// of the same catalog name.
//
// Tables (and views, below): metadata files `<NNNNN>-<uuid>.metadata.json` (Java's naming,
// honouring write.metadata.path and write.metadata.compression-codec), the pointer swapped by
// compare-and-swap. Commit is the reference REST server's algorithm (Java
// CatalogHandlers.commit): re-read the base, validate the requirements, apply the updates,
// write the file, swap; when the swap loses, delete the file and retry on the new base
// (table properties commit.retry.num-retries / min-wait-ms / max-wait-ms, defaults 4 / 100 /
// 60000), so a commit whose requirements still hold succeeds ("server-side retry").
//
// Default table location: the namespace's `location` property + "/<table>" when set
// (pyiceberg, REST), else `<warehouse>/<level1>/<level2>/<table>` (Java JdbcCatalog;
// pyiceberg joins nested levels with '.', the one place the peers differ).
#pragma once

#include <memory>
#include <string>

#include "floe/catalog/catalog.h"
#include "floe/catalog/sql_catalog_store.h"

namespace floe::catalog {

class SqlCatalog final : public Catalog {
 public:
  // Opens the catalog of options.name on `uri` (see ParseSqlUri), creating the schema if
  // needed. Errors: those of SqlCatalogStore::Open.
  static Result<std::unique_ptr<SqlCatalog>> Open(std::string_view uri, CatalogOptions options);
  static Result<std::unique_ptr<SqlCatalog>> Open(std::unique_ptr<SqlCatalogStore> store,
                                                  CatalogOptions options);

  const std::string& name() const override { return store_->catalog_name(); }
  io::FileIO& io() override { return *io_; }
  iceberg::CommitEnvironment& env() override { return *env_; }
  const LocationPolicy& location_policy() const override { return policy_; }
  SqlCatalogStore& store() { return *store_; }
  // SQLite: PRAGMA data_version on a connection of its own (opened with the catalog's URI).
  Result<std::unique_ptr<ChangeProbe>> OpenChangeProbe() override;

  Result<std::vector<Namespace>> ListNamespaces(const Namespace& parent) override;
  Status CreateNamespace(const Namespace& ns, const Properties& properties) override;
  Result<bool> NamespaceExists(const Namespace& ns) override;
  // Java's presentation: without `exists`, with a default `location`.
  Result<Properties> LoadNamespaceProperties(const Namespace& ns) override;
  Result<NamespacePropertiesUpdate> UpdateNamespaceProperties(
      const Namespace& ns, const std::vector<std::string>& removals,
      const Properties& updates) override;
  Status DropNamespace(const Namespace& ns) override;

  Result<std::vector<TableIdentifier>> ListTables(const Namespace& ns) override;
  Result<iceberg::TableMetadataPtr> CreateTable(const TableIdentifier& id,
                                                const CreateTableRequest& request) override;
  Result<std::unique_ptr<iceberg::TableOperations>> LoadTable(const TableIdentifier& id) override;
  Result<bool> TableExists(const TableIdentifier& id) override;
  Result<std::string> LoadTableMetadataLocation(const TableIdentifier& id) override;
  Status DropTable(const TableIdentifier& id, bool purge) override;
  Status RenameTable(const TableIdentifier& from, const TableIdentifier& to) override;
  // With `overwrite`: one compare-and-swap from the pointer read before the new file was
  // read and checked (kConflict when it moved meanwhile).
  Result<iceberg::TableMetadataPtr> RegisterTable(const TableIdentifier& id,
                                                  std::string_view metadata_location,
                                                  bool overwrite = false) override;
  Result<std::string> DefaultTableLocation(const TableIdentifier& id) override;
  Result<iceberg::TableMetadataPtr> CreateTableFromUpdates(
      const TableIdentifier& id, const std::vector<iceberg::TableUpdate>& updates) override;
  // Writes every table's new metadata file, then swaps all pointers in one database
  // transaction; a lost swap deletes the files and retries from fresh bases (the first
  // table's commit.retry.* properties), re-checking every requirement.
  Status CommitTransaction(const std::vector<TableCommit>& commits) override;

  // Views: 'VIEW' rows, the metadata files of Java's BaseViewOperations
  // (`<NNNNN>-<uuid>.gz.metadata.json`: views default to gzip), commits as for tables.
  Result<std::vector<TableIdentifier>> ListViews(const Namespace& ns) override;
  Result<LoadedView> LoadView(const TableIdentifier& id) override;
  Result<bool> ViewExists(const TableIdentifier& id) override;
  Result<LoadedView> CreateView(const TableIdentifier& id,
                                const CreateViewRequest& request) override;
  Result<LoadedView> CommitView(const TableIdentifier& id,
                                const std::vector<iceberg::ViewRequirement>& requirements,
                                const std::vector<iceberg::ViewUpdate>& updates) override;
  Status DropView(const TableIdentifier& id) override;
  Status RenameView(const TableIdentifier& from, const TableIdentifier& to) override;
  Result<LoadedView> RegisterView(const TableIdentifier& id,
                                  std::string_view metadata_location) override;

 private:
  // Fails with kAlreadyExists when a view or a table has the name (Java's messages).
  Status CheckViewNameFree(const TableIdentifier& id);

  SqlCatalog(std::unique_ptr<SqlCatalogStore> store, CatalogOptions options, LocationPolicy policy);
  // Writes `metadata` as the table's first metadata file and creates the pointer.
  Result<iceberg::TableMetadataPtr> CreateWithMetadata(const TableIdentifier& id,
                                                       iceberg::TableMetadata metadata);

  std::unique_ptr<SqlCatalogStore> store_;
  std::string uri_;        // empty when opened on a store
  std::string warehouse_;  // without a trailing '/'
  std::unique_ptr<io::FileIO> io_;
  std::unique_ptr<iceberg::CommitEnvironment> env_;
  LocationPolicy policy_;
};

}  // namespace floe::catalog
