// FileSystemCatalog: a catalog that is a directory tree, in Iceberg Java's HadoopCatalog
// layout so Java (and pyiceberg's readers of `version-hint.text`) see the same tables:
//
//   <warehouse>/<level1>/<level2>/<table>/metadata/v<N>.metadata.json   (v<N>.gz.metadata.json
//                                                                         when gzipped)
//   <warehouse>/<level1>/<level2>/<table>/metadata/version-hint.text     "<N>"
//
// Namespaces are directories (no properties: kUnimplemented, as Java's
// UnsupportedOperationException); a directory is a table when its metadata/ holds a
// *.metadata.json file. Tables live at their default location only (kInvalidArgument for
// another) and cannot be renamed (kUnimplemented). A commit writes a temporary file and
// renames it to v<N+1>.metadata.json without replacing (FileIO::RenameNoReplace): exactly
// one of two racing writers gets the version, the other retries on the new base like the
// SQL catalog (commit.retry.*) and reports kConflict when its requirements no longer hold.
// version-hint.text is then rewritten; readers treat it as a hint and probe later versions.
//
// Needs a local (POSIX) filesystem: directories are namespaces, and the commit needs an
// exclusive rename, which object stores do not have.
#pragma once

#include <memory>
#include <string>

#include "floe/catalog/catalog.h"

namespace floe::catalog {

class FileSystemCatalog final : public Catalog {
 public:
  // `uri`: file:PATH, file:///abs or a plain path; the directory is created if missing.
  // options.warehouse is ignored. Errors: kIOError when the directory cannot be created.
  static Result<std::unique_ptr<FileSystemCatalog>> Open(std::string_view uri,
                                                         CatalogOptions options);

  const std::string& name() const override { return name_; }
  io::FileIO& io() override { return *io_; }
  iceberg::CommitEnvironment& env() override { return *env_; }
  // The root and CatalogOptions::allowed_locations.
  const LocationPolicy& location_policy() const override { return policy_; }
  const std::string& warehouse() const { return root_; }

  Result<std::vector<Namespace>> ListNamespaces(const Namespace& parent) override;
  Status CreateNamespace(const Namespace& ns, const Properties& properties) override;
  Result<bool> NamespaceExists(const Namespace& ns) override;
  // {"location": the directory}.
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
  // Deletes the table's directory (Java does so with or without purge); with `purge` first
  // every reachable file under the table's directory (DeleteTableFiles).
  Status DropTable(const TableIdentifier& id, bool purge) override;
  Status RenameTable(const TableIdentifier& from, const TableIdentifier& to) override;
  // Copies the metadata into v1.metadata.json at the default location; with `overwrite`, an
  // existing table gets it as its next version (one exclusive rename).
  Result<iceberg::TableMetadataPtr> RegisterTable(const TableIdentifier& id,
                                                  std::string_view metadata_location,
                                                  bool overwrite = false) override;
  Result<std::string> DefaultTableLocation(const TableIdentifier& id) override;

 private:
  FileSystemCatalog(std::string root, CatalogOptions options, LocationPolicy policy);
  std::string NamespacePath(const Namespace& ns) const;
  bool IsTableDir(const std::string& path) const;
  bool IsNamespaceDir(const std::string& path) const;
  Status CheckNames(const Namespace& ns) const;

  std::string name_;
  std::string root_;  // a local path without trailing '/'
  std::unique_ptr<io::FileIO> io_;
  std::unique_ptr<iceberg::CommitEnvironment> env_;
  LocationPolicy policy_;
};

}  // namespace floe::catalog
