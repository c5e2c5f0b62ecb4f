// Catalog: namespaces and tables of one Iceberg catalog, whatever keeps the pointers — the
// SQL catalog (sql_catalog.h: the JDBC catalog schema shared with Iceberg Java's JdbcCatalog
// and pyiceberg's SqlCatalog), the filesystem catalog (filesystem_catalog.h: Java's
// HadoopCatalog layout), a REST catalog server (rest_catalog.h), later floe's internal
// catalog. A table is handed out as an iceberg::TableOperations, so the table layer never
// knows which catalog it is in.
//
// Errors, the same on every catalog: kNotFound (namespace or table), kAlreadyExists,
// kFailedPrecondition (namespace not empty), kInvalidArgument (bad names, properties,
// schemas), kUnimplemented (what a catalog cannot do, e.g. renames in the filesystem
// catalog), kConflict (commits: nothing was committed, refresh and retry), and the storage's
// own (kUnavailable, kIOError, ...).
//
// Thread-safety: a Catalog and the TableOperations it hands out are not thread-safe and
// share its connection; use one catalog per thread. REQUIRES: the catalog outlives them.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "floe/base/status.h"
#include "floe/catalog/location_policy.h"
#include "floe/catalog/namespace.h"
#include "floe/iceberg/partition_spec.h"
#include "floe/iceberg/schema.h"
#include "floe/iceberg/sort_order.h"
#include "floe/iceberg/table_metadata.h"
#include "floe/iceberg/table_operations.h"
#include "floe/iceberg/view_metadata.h"
#include "floe/io/file_io.h"

namespace floe::catalog {

using Properties = std::map<std::string, std::string>;

// A table's name: its namespace and its own name, "sales.eu.orders".
struct TableIdentifier {
  Namespace ns;
  std::string name;

  // Splits on '.'; the last part is the table. kInvalidArgument for an empty part or a name
  // without a namespace ("orders").
  static Result<TableIdentifier> Parse(std::string_view dotted);
  std::string ToString() const;

  friend auto operator<=>(const TableIdentifier&, const TableIdentifier&) = default;
  friend bool operator==(const TableIdentifier&, const TableIdentifier&) = default;
};

// Parses "a.b" (kInvalidArgument for empty levels; "" is the root).
Result<Namespace> ParseNamespace(std::string_view dotted);

// What UpdateNamespaceProperties did, in the REST catalog's terms.
struct NamespacePropertiesUpdate {
  std::vector<std::string> updated;
  std::vector<std::string> removed;
  std::vector<std::string> missing;
};

struct CreateTableRequest {
  // Field ids are reassigned (1..n) like Java's newTableMetadata; spec and sort order are
  // rebound by column name.
  iceberg::Schema schema;
  iceberg::PartitionSpec spec = iceberg::PartitionSpec::Unpartitioned();
  iceberg::SortOrder sort_order = iceberg::SortOrder::Unsorted();
  // Default: the catalog's default location for the identifier.
  std::optional<std::string> location;
  Properties properties;
  int32_t format_version = iceberg::kDefaultFormatVersion;
};

// One table's part of a multi-table commit (REST POST /transactions/commit).
struct TableCommit {
  TableIdentifier id;
  std::vector<iceberg::TableRequirement> requirements;
  std::vector<iceberg::TableUpdate> updates;
};

// A REST CreateViewRequest: the first version's content. The catalog assigns version id 1,
// the timestamp and the schema id (0), as Java's BaseMetastoreViewCatalog does.
struct CreateViewRequest {
  iceberg::Schema schema;
  // Only SQL representations (kInvalidArgument otherwise); at least one.
  std::vector<iceberg::ViewRepresentation> representations;
  std::optional<std::string> default_catalog;
  Namespace default_namespace;
  // The version summary, kept as given (Java's server replaces it by its own
  // EnvironmentContext).
  std::map<std::string, std::string> summary;
  // Default: the catalog's default location for the identifier (as for tables).
  std::optional<std::string> location;
  Properties properties;
};

// A view as the REST LoadViewResult carries it.
struct LoadedView {
  std::string metadata_location;
  iceberg::ViewMetadataPtr metadata;  // metadata_file_location == metadata_location
};

// A cheap test of whether a catalog's database changed: Version() answers a different number
// after any commit by any other connection or process since its previous answer. What a server
// validates cached listings with, so that serving one never needs a query.
//
// Thread-safety: implementations are thread-safe.
class ChangeProbe {
 public:
  virtual ~ChangeProbe() = default;
  virtual Result<uint64_t> Version() = 0;
};

class Catalog {
 public:
  virtual ~Catalog() = default;

  // The catalog's name (the SQL catalog's catalog_name).
  virtual const std::string& name() const = 0;
  virtual io::FileIO& io() = 0;
  virtual iceberg::CommitEnvironment& env() = 0;
  // Where this catalog may read, write and delete (location_policy.h): its warehouse and
  // `allowed-locations`. The default allows nothing.
  virtual const LocationPolicy& location_policy() const;
  // A probe of this catalog's database, or nullptr when the backend has no cheap change signal
  // (PostgreSQL, REST and filesystem catalogs: their listings are always read afresh).
  virtual Result<std::unique_ptr<ChangeProbe>> OpenChangeProbe() {
    return std::unique_ptr<ChangeProbe>();
  }

  // Namespaces.
  // The namespaces directly below `parent` (top level for the root), sorted.
  virtual Result<std::vector<Namespace>> ListNamespaces(const Namespace& parent) = 0;
  virtual Status CreateNamespace(const Namespace& ns, const Properties& properties) = 0;
  virtual Result<bool> NamespaceExists(const Namespace& ns) = 0;
  // The properties as the REST API presents them (no reserved markers; a `location`).
  virtual Result<Properties> LoadNamespaceProperties(const Namespace& ns) = 0;
  virtual Result<NamespacePropertiesUpdate> UpdateNamespaceProperties(
      const Namespace& ns, const std::vector<std::string>& removals, const Properties& updates) = 0;
  // kFailedPrecondition when it holds tables, views or namespaces.
  virtual Status DropNamespace(const Namespace& ns) = 0;

  // Tables.
  virtual Result<std::vector<TableIdentifier>> ListTables(const Namespace& ns) = 0;
  // Creates the table: metadata by TableMetadataBuilder::NewTable, written as the first
  // metadata file, then the pointer. Returns the committed metadata (metadata_file_location
  // set). Errors: kNotFound (namespace, where the catalog requires one), kAlreadyExists.
  virtual Result<iceberg::TableMetadataPtr> CreateTable(const TableIdentifier& id,
                                                        const CreateTableRequest& request) = 0;
  // The table's operations, refreshed once (kNotFound when there is no such table).
  virtual Result<std::unique_ptr<iceberg::TableOperations>> LoadTable(
      const TableIdentifier& id) = 0;
  virtual Result<bool> TableExists(const TableIdentifier& id) = 0;
  // Drops the table; with `purge`, then deletes every file its last metadata reaches (data
  // and delete files, manifests, manifest lists, statistics, metadata files).
  virtual Status DropTable(const TableIdentifier& id, bool purge) = 0;
  virtual Status RenameTable(const TableIdentifier& from, const TableIdentifier& to) = 0;
  // Adds a table whose metadata file exists already. Returns its metadata. The file's
  // location is checked against location_policy() before it is read, and the metadata's
  // locations after (kPermissionDenied); a file that is not table metadata is
  // kInvalidArgument. With `overwrite`, an existing table's pointer is replaced, in one
  // swap, only after the new file was read and checked: on any error the old table stays.
  virtual Result<iceberg::TableMetadataPtr> RegisterTable(const TableIdentifier& id,
                                                          std::string_view metadata_location,
                                                          bool overwrite = false) = 0;

  // The table's current metadata file location, without reading the file. kNotFound when
  // there is no such table. The default loads the table.
  virtual Result<std::string> LoadTableMetadataLocation(const TableIdentifier& id);

  // The location a new table gets without an explicit one.
  virtual Result<std::string> DefaultTableLocation(const TableIdentifier& id) = 0;

  // Creates a table from REST create updates (the commit of a staged create, requirement
  // assert-create): TableMetadataBuilder::ApplyCreate, at the default location unless the
  // updates set one. Errors as CreateTable; kUnimplemented where the catalog cannot.
  virtual Result<iceberg::TableMetadataPtr> CreateTableFromUpdates(
      const TableIdentifier& id, const std::vector<iceberg::TableUpdate>& updates) {
    return Status::Unimplemented("catalog {} cannot create tables from updates", name());
  }

  // Commits changes to several tables atomically: all or none. Each table's requirements
  // are checked and its updates applied as in TableOperations::Commit; kConflict when any
  // requirement fails or a concurrent commit wins (nothing committed), kNotFound for a
  // missing table, kInvalidArgument for a table named twice; other errors may leave the
  // outcome unknown. The default handles one table; catalogs that can swap several
  // pointers at once override it.
  virtual Status CommitTransaction(const std::vector<TableCommit>& commits);

  // Views (Iceberg view spec; Java ViewCatalog). Tables and views share one name space:
  // creating, renaming or registering onto a name a table has is kAlreadyExists, and the
  // table methods do not see views. Catalogs without views return kUnimplemented.
  // Messages follow Java's ("View does not exist: ns.v", "View already exists: ns.v",
  // "Table with same name already exists: ns.t"), which REST clients check.

  // The views in `ns`, sorted. Errors: kNotFound (namespace).
  virtual Result<std::vector<TableIdentifier>> ListViews(const Namespace& ns);
  // Errors: kNotFound (no such view), the metadata file's read errors.
  virtual Result<LoadedView> LoadView(const TableIdentifier& id);
  // False for a missing view or namespace.
  virtual Result<bool> ViewExists(const TableIdentifier& id);
  // Creates the view: version 1 from `request`, the first metadata file, then the pointer.
  // Errors: kNotFound (namespace), kAlreadyExists (a view or table has the name),
  // kInvalidArgument (no or non-SQL representations, one dialect twice, bad properties).
  virtual Result<LoadedView> CreateView(const TableIdentifier& id,
                                        const CreateViewRequest& request);
  // The REST replaceView / commit: validates `requirements` on the current metadata, applies
  // `updates` (ViewMetadataBuilder), writes the next metadata file and swaps the pointer,
  // retrying a lost swap on the new base like table commits. Returns the committed view (the
  // current one when nothing changed). Errors: kNotFound (view), kConflict (a requirement
  // failed, or retries ran out), kInvalidArgument / kFailedPrecondition (invalid updates).
  virtual Result<LoadedView> CommitView(const TableIdentifier& id,
                                        const std::vector<iceberg::ViewRequirement>& requirements,
                                        const std::vector<iceberg::ViewUpdate>& updates);
  // Deletes the pointer and, unless gc.enabled is false, the current metadata file (Java
  // CatalogUtil.dropViewMetadata). Errors: kNotFound.
  virtual Status DropView(const TableIdentifier& id);
  // Errors: kNotFound (destination namespace, source view), kAlreadyExists.
  virtual Status RenameView(const TableIdentifier& from, const TableIdentifier& to);
  // Adds a view whose metadata file exists. Errors: kAlreadyExists (view or table),
  // kNotFound (namespace), the file's read errors.
  virtual Result<LoadedView> RegisterView(const TableIdentifier& id,
                                          std::string_view metadata_location);
};

// The metadata a new table would get, written nowhere (REST staged create: the client
// commits it later with CreateTableFromUpdates). Errors: kAlreadyExists, kNotFound (the
// namespace), kInvalidArgument.
Result<iceberg::TableMetadataPtr> StageCreateTable(Catalog& catalog, const TableIdentifier& id,
                                                   const CreateTableRequest& request);

struct CatalogOptions {
  // The SQL catalog's catalog_name. floe's CLI uses "default", the name pyiceberg gives
  // `load_catalog()` without a name; a Java JdbcCatalog must be initialised with the same
  // name to see the same tables (it uses "jdbc" when given none).
  std::string name = "default";
  // Where tables go by default (SQL catalogs); the filesystem catalog's root.
  std::string warehouse;
  // Default: LocalFileIO.
  std::unique_ptr<io::FileIO> io;
  // Default: MakeSystemCommitEnvironment().
  std::unique_ptr<iceberg::CommitEnvironment> env;
  // Prefixes allowed besides the warehouse (the catalog property `allowed-locations`,
  // LocationPolicy::ParseAllowedLocations). Errors at open when one does not normalize.
  std::vector<std::string> allowed_locations;
};

// Opens a catalog from a URI:
//   sqlite:PATH, sqlite:///abs/path, jdbc:sqlite:PATH    SQL catalog on SQLite
//   postgresql://user:pass@host:port/db, postgres://...  SQL catalog on PostgreSQL
//   file:PATH, file:///abs/path                          filesystem catalog rooted at PATH
//                                                        (options.warehouse ignored)
//   rest:http://host:port[/base][?k=v&...], rest:https:  REST catalog client (rest_catalog.h;
//                                                        options.name is the `warehouse`,
//                                                        options.warehouse ignored)
// Errors: kInvalidArgument (unknown scheme, missing warehouse for a SQL catalog is allowed
// but tables then need explicit locations), the backend's connection errors.
Result<std::unique_ptr<Catalog>> OpenCatalog(std::string_view uri, CatalogOptions options);

// Deletes every file reachable from `metadata` (Java CatalogUtil.dropTableData): the data
// and delete files of every manifest of every snapshot, the manifests, the manifest lists,
// statistics files, then the metadata-log files and the current metadata file — but only
// those under the table's own location: a file the metadata names elsewhere (another
// table's, a victim's outside the warehouse) stays, and is counted in *skipped when given.
// Nothing is deleted when the table's location is not inside `policy` or is one of its
// roots (kPermissionDenied). Files already gone are skipped. Returns the first error after
// trying every file.
Status DeleteTableFiles(io::FileIO& io, const iceberg::TableMetadata& metadata,
                        const LocationPolicy& policy, int64_t* skipped = nullptr);

}  // namespace floe::catalog
