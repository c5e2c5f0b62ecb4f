#include "floe/catalog/sql_catalog.h"

#include <charconv>
#include <functional>
#include <mutex>
#include <optional>
#include <set>
#include <utility>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "floe/base/macros.h"
#include "floe/catalog/catalog_internal.h"
#include "floe/iceberg/table_metadata_builder.h"
#include "floe/io/local_file_io.h"

namespace floe::catalog {

namespace {

bool CommitOutcomeKnown(StatusCode code) {
  // The swap statement ran and reported: nobody moved the pointer to our file.
  return code == StatusCode::kConflict || code == StatusCode::kNotFound;
}

class SqlTableOperations final : public iceberg::TableOperations {
 public:
  SqlTableOperations(SqlCatalog* catalog, TableIdentifier id)
      : catalog_(catalog), id_(std::move(id)), name_(id_.ToString()) {}

  const std::string& name() const override { return name_; }
  io::FileIO& io() override { return catalog_->io(); }
  iceberg::CommitEnvironment& env() override { return catalog_->env(); }

  Result<iceberg::TableMetadataPtr> Refresh() override {
    FLOE_ASSIGN_OR_RETURN(TablePointer pointer, catalog_->store().LoadTable(id_.ns, id_.name));
    if (current_ && current_->metadata_file_location == pointer.metadata_location) {
      return current_;
    }
    FLOE_ASSIGN_OR_RETURN(iceberg::TableMetadata metadata,
                          iceberg::ReadTableMetadata(io(), pointer.metadata_location));
    current_ = std::make_shared<const iceberg::TableMetadata>(std::move(metadata));
    return current_;
  }

  // The reference server's commit (Java CatalogHandlers.commit): each attempt re-reads the
  // base and re-validates the requirements; only a lost pointer swap is retried here.
  Result<iceberg::TableMetadataPtr> Commit(
      const std::vector<iceberg::TableRequirement>& requirements,
      const std::vector<iceberg::TableUpdate>& updates) override {
    FLOE_RETURN_IF_ERROR(catalog_->location_policy().CheckTableUpdates(updates));
    for (int attempt = 0;; ++attempt) {
      FLOE_ASSIGN_OR_RETURN(iceberg::TableMetadataPtr base, Refresh());
      FLOE_ASSIGN_OR_RETURN(iceberg::TableMetadataPtr updated,
                            internal::ApplyCommit(base, requirements, updates, env().NowMillis()));
      if (updated == base) return base;

      int32_t version = iceberg::NextMetadataVersion(base->metadata_file_location);
      std::string location = iceberg::NewMetadataLocation(*updated, version, env().NewUuid());
      auto committed = std::make_shared<iceberg::TableMetadata>(*updated);
      committed->metadata_file_location = location;
      FLOE_RETURN_IF_ERROR(iceberg::WriteTableMetadata(io(), location, *committed));

      Status swapped = catalog_->store().CompareAndSwap(id_.ns, id_.name,
                                                        base->metadata_file_location, location);
      if (swapped.ok()) {
        internal::DeleteRemovedMetadataFiles(io(), *base, *committed);
        current_ = committed;
        return current_;
      }
      // Unknown outcome (the swap may have happened): keep the file the table may now
      // point at, and report the error as is.
      if (!CommitOutcomeKnown(swapped.code())) return swapped;
      (void)io().Delete(location);
      if (swapped.code() == StatusCode::kNotFound) return swapped;
      internal::RetryPolicy policy = internal::RetryPolicy::For(*base);
      if (attempt >= policy.num_retries) {
        return Status::Conflict("commit of {} failed after {} attempts: {}", name_, attempt + 1,
                                swapped.message());
      }
      policy.Wait(attempt + 1, std::hash<std::string>{}(location));
    }
  }

 private:
  SqlCatalog* catalog_;
  TableIdentifier id_;
  std::string name_;
  iceberg::TableMetadataPtr current_;
};

}  // namespace

SqlCatalog::SqlCatalog(std::unique_ptr<SqlCatalogStore> store, CatalogOptions options,
                       LocationPolicy policy)
    : store_(std::move(store)),
      warehouse_(internal::StripTrailingSlash(std::move(options.warehouse))),
      io_(options.io ? std::move(options.io) : std::make_unique<io::LocalFileIO>()),
      env_(options.env ? std::move(options.env) : iceberg::MakeSystemCommitEnvironment()),
      policy_(std::move(policy)) {}

Result<std::unique_ptr<SqlCatalog>> SqlCatalog::Open(std::string_view uri, CatalogOptions options) {
  FLOE_ASSIGN_OR_RETURN(auto store, SqlCatalogStore::Open(uri, options.name));
  FLOE_ASSIGN_OR_RETURN(auto catalog, Open(std::move(store), std::move(options)));
  catalog->uri_ = std::string(uri);
  return catalog;
}

namespace {

// SQLite's data_version changes whenever another connection commits; the probe's connection
// never writes, so every commit counts. In WAL mode the pragma reads the shared-memory index
// only: microseconds, no disk I/O.
class SqliteChangeProbe final : public ChangeProbe {
 public:
  explicit SqliteChangeProbe(std::unique_ptr<SqlConnection> conn) : conn_(std::move(conn)) {}

  Result<uint64_t> Version() override {
    std::lock_guard lock(mu_);
    FLOE_ASSIGN_OR_RETURN(SqlResult result, conn_->Execute("PRAGMA data_version"));
    if (result.rows.size() != 1 || result.rows[0].empty() || !result.rows[0][0]) {
      return Status::Internal("PRAGMA data_version returned no value");
    }
    const std::string& text = *result.rows[0][0];
    uint64_t version = 0;
    auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), version);
    if (ec != std::errc() || end != text.data() + text.size()) {
      return Status::Internal("PRAGMA data_version returned '{}'", text);
    }
    return version;
  }

 private:
  std::mutex mu_;
  std::unique_ptr<SqlConnection> conn_;
};

}  // namespace

Result<std::unique_ptr<ChangeProbe>> SqlCatalog::OpenChangeProbe() {
  if (uri_.empty() || store_->connection()->dialect() != SqlDialect::kSqlite) {
    return std::unique_ptr<ChangeProbe>();
  }
  FLOE_ASSIGN_OR_RETURN(SqlTarget target, ParseSqlUri(uri_));
  // An in-memory database is private to its connection: a probe would watch another one.
  if (target.location == ":memory:") return std::unique_ptr<ChangeProbe>();
  // The probe runs on a server's io thread: it must not wait long for a lock (only a database
  // left in rollback-journal mode takes one for reading). Busy means "unknown": no cache hit.
  SqlConnectionOptions options;
  options.busy_timeout_ms = 20;
  FLOE_ASSIGN_OR_RETURN(auto conn, SqlConnection::Open(target, options));
  return std::unique_ptr<ChangeProbe>(new SqliteChangeProbe(std::move(conn)));
}

Result<std::unique_ptr<SqlCatalog>> SqlCatalog::Open(std::unique_ptr<SqlCatalogStore> store,
                                                     CatalogOptions options) {
  FLOE_ASSIGN_OR_RETURN(
      LocationPolicy policy,
      LocationPolicy::Make(store->catalog_name(), options.warehouse, options.allowed_locations));
  return std::unique_ptr<SqlCatalog>(
      new SqlCatalog(std::move(store), std::move(options), std::move(policy)));
}

Result<std::vector<Namespace>> SqlCatalog::ListNamespaces(const Namespace& parent) {
  return store_->ListNamespaces(parent);
}

Status SqlCatalog::CreateNamespace(const Namespace& ns, const Properties& properties) {
  // Levels become folders of the default table locations.
  FLOE_RETURN_IF_ERROR(CheckNamespaceSegments(ns));
  FLOE_RETURN_IF_ERROR(policy_.CheckNamespaceProperties(properties));
  return store_->CreateNamespace(ns, properties);
}

Result<bool> SqlCatalog::NamespaceExists(const Namespace& ns) {
  return store_->NamespaceExists(ns);
}

Result<Properties> SqlCatalog::LoadNamespaceProperties(const Namespace& ns) {
  FLOE_ASSIGN_OR_RETURN(Properties properties, store_->LoadNamespaceProperties(ns));
  properties.erase(std::string(SqlCatalogStore::kExistsProperty));
  if (!properties.contains("location") && !warehouse_.empty()) {
    std::string location = warehouse_;
    for (const std::string& level : ns.levels) location += "/" + level;
    properties.emplace("location", std::move(location));
  }
  return properties;
}

Result<NamespacePropertiesUpdate> SqlCatalog::UpdateNamespaceProperties(
    const Namespace& ns, const std::vector<std::string>& removals, const Properties& updates) {
  FLOE_RETURN_IF_ERROR(policy_.CheckNamespaceProperties(updates));
  FLOE_ASSIGN_OR_RETURN(NamespacePropertiesChange change,
                        store_->UpdateNamespaceProperties(ns, removals, updates));
  return NamespacePropertiesUpdate{std::move(change.updated), std::move(change.removed),
                                   std::move(change.missing)};
}

Status SqlCatalog::DropNamespace(const Namespace& ns) { return store_->DropNamespace(ns); }

Result<std::vector<TableIdentifier>> SqlCatalog::ListTables(const Namespace& ns) {
  FLOE_ASSIGN_OR_RETURN(std::vector<std::string> names, store_->ListTables(ns));
  std::vector<TableIdentifier> out;
  out.reserve(names.size());
  for (std::string& name : names) out.push_back(TableIdentifier{ns, std::move(name)});
  return out;
}

Result<std::string> SqlCatalog::DefaultTableLocation(const TableIdentifier& id) {
  // The name and levels are joined into the path: they must be plain segments.
  FLOE_RETURN_IF_ERROR(CheckNamespaceSegments(id.ns));
  FLOE_RETURN_IF_ERROR(CheckPathSegment(id.name, "table"));
  FLOE_ASSIGN_OR_RETURN(Properties properties, store_->LoadNamespaceProperties(id.ns));
  if (auto it = properties.find("location"); it != properties.end() && !it->second.empty()) {
    return internal::StripTrailingSlash(it->second) + "/" + id.name;
  }
  if (warehouse_.empty()) {
    return Status::InvalidArgument(
        "cannot place table {}: the catalog has no warehouse and the namespace no location",
        id.ToString());
  }
  std::string location = warehouse_;
  for (const std::string& level : id.ns.levels) location += "/" + level;
  return location + "/" + id.name;
}

Result<iceberg::TableMetadataPtr> SqlCatalog::CreateTable(const TableIdentifier& id,
                                                          const CreateTableRequest& request) {
  // Fail before writing anything when the name is taken or the namespace missing.
  FLOE_ASSIGN_OR_RETURN(bool exists, TableExists(id));
  if (exists) return Status::AlreadyExists("table {} already exists", id.ToString());
  FLOE_ASSIGN_OR_RETURN(std::string location, internal::CheckedCreateLocation(*this, id, request));
  FLOE_ASSIGN_OR_RETURN(iceberg::TableMetadata metadata,
                        internal::NewTableMetadata(request, std::move(location), *env_));
  return CreateWithMetadata(id, std::move(metadata));
}

Result<iceberg::TableMetadataPtr> SqlCatalog::CreateWithMetadata(const TableIdentifier& id,
                                                                 iceberg::TableMetadata metadata) {
  metadata.metadata_file_location = iceberg::NewMetadataLocation(metadata, 0, env_->NewUuid());
  FLOE_RETURN_IF_ERROR(
      iceberg::WriteTableMetadata(*io_, metadata.metadata_file_location, metadata));
  Status created = store_->CreateTable(id.ns, id.name, metadata.metadata_file_location);
  if (!created.ok()) {
    if (created.code() == StatusCode::kAlreadyExists || created.code() == StatusCode::kNotFound ||
        created.code() == StatusCode::kInvalidArgument) {
      (void)io_->Delete(metadata.metadata_file_location);
    }
    return created;
  }
  return std::make_shared<const iceberg::TableMetadata>(std::move(metadata));
}

Result<iceberg::TableMetadataPtr> SqlCatalog::CreateTableFromUpdates(
    const TableIdentifier& id, const std::vector<iceberg::TableUpdate>& updates) {
  FLOE_ASSIGN_OR_RETURN(bool exists, TableExists(id));
  if (exists) return Status::AlreadyExists("table {} already exists", id.ToString());
  FLOE_RETURN_IF_ERROR(policy_.CheckTableUpdates(updates));
  FLOE_ASSIGN_OR_RETURN(
      iceberg::TableMetadata metadata,
      iceberg::TableMetadataBuilder::ApplyCreate(updates, env_->NewUuid(), env_->NowMillis()));
  if (metadata.location.empty()) {
    FLOE_ASSIGN_OR_RETURN(metadata.location, DefaultTableLocation(id));
  }
  FLOE_RETURN_IF_ERROR(policy_.CheckTableMetadata(metadata));
  return CreateWithMetadata(id, std::move(metadata));
}

Status SqlCatalog::CommitTransaction(const std::vector<TableCommit>& commits) {
  if (commits.empty()) return Status::OK();
  for (size_t i = 0; i < commits.size(); ++i) {
    for (size_t j = i + 1; j < commits.size(); ++j) {
      if (commits[i].id == commits[j].id) {
        return Status::InvalidArgument("table {} appears twice in one transaction",
                                       commits[i].id.ToString());
      }
    }
  }
  for (const TableCommit& commit : commits) {
    FLOE_RETURN_IF_ERROR(policy_.CheckTableUpdates(commit.updates));
  }
  for (int attempt = 0;; ++attempt) {
    std::vector<SqlCatalogStore::PointerSwap> swaps;
    std::vector<iceberg::TableMetadataPtr> bases;
    std::vector<iceberg::TableMetadataPtr> written;
    auto delete_written = [&] {
      for (const auto& m : written) (void)io_->Delete(m->metadata_file_location);
    };
    for (const TableCommit& commit : commits) {
      SqlTableOperations ops(this, commit.id);
      auto base = ops.Refresh();
      if (!base.ok()) {
        delete_written();
        return base.status();
      }
      auto updated =
          internal::ApplyCommit(*base, commit.requirements, commit.updates, env_->NowMillis());
      if (!updated.ok()) {
        delete_written();
        return updated.status();
      }
      if (*updated == *base) continue;
      int32_t version = iceberg::NextMetadataVersion((*base)->metadata_file_location);
      auto committed = std::make_shared<iceberg::TableMetadata>(**updated);
      committed->metadata_file_location =
          iceberg::NewMetadataLocation(*committed, version, env_->NewUuid());
      Status wrote =
          iceberg::WriteTableMetadata(*io_, committed->metadata_file_location, *committed);
      if (!wrote.ok()) {
        delete_written();
        return wrote;
      }
      swaps.push_back({commit.id.ns, commit.id.name, (*base)->metadata_file_location,
                       committed->metadata_file_location});
      bases.push_back(*base);
      written.push_back(committed);
    }
    if (swaps.empty()) return Status::OK();
    Status swapped = store_->CompareAndSwapAll(swaps);
    if (swapped.ok()) {
      for (size_t i = 0; i < bases.size(); ++i) {
        internal::DeleteRemovedMetadataFiles(*io_, *bases[i], *written[i]);
      }
      return Status::OK();
    }
    if (!CommitOutcomeKnown(swapped.code())) return swapped;
    delete_written();
    if (swapped.code() == StatusCode::kNotFound) return swapped;
    internal::RetryPolicy policy = internal::RetryPolicy::For(*bases[0]);
    if (attempt >= policy.num_retries) {
      return Status::Conflict("transaction failed after {} attempts: {}", attempt + 1,
                              swapped.message());
    }
    policy.Wait(attempt + 1, std::hash<std::string>{}(written[0]->metadata_file_location));
  }
}

Result<std::unique_ptr<iceberg::TableOperations>> SqlCatalog::LoadTable(const TableIdentifier& id) {
  auto ops = std::make_unique<SqlTableOperations>(this, id);
  FLOE_RETURN_IF_ERROR(ops->Refresh());
  return std::unique_ptr<iceberg::TableOperations>(std::move(ops));
}

Result<std::string> SqlCatalog::LoadTableMetadataLocation(const TableIdentifier& id) {
  FLOE_ASSIGN_OR_RETURN(TablePointer pointer, store_->LoadTable(id.ns, id.name));
  return std::move(pointer.metadata_location);
}

Result<bool> SqlCatalog::TableExists(const TableIdentifier& id) {
  auto pointer = store_->LoadTable(id.ns, id.name);
  if (pointer.ok()) return true;
  if (pointer.status().code() == StatusCode::kNotFound) {
    // A missing namespace is its own error (callers creating a table want to know).
    FLOE_ASSIGN_OR_RETURN(bool ns_exists, store_->NamespaceExists(id.ns));
    if (!ns_exists) return Status::NotFound("namespace {} does not exist", id.ns.ToString());
    return false;
  }
  return pointer.status();
}

Status SqlCatalog::DropTable(const TableIdentifier& id, bool purge) {
  iceberg::TableMetadataPtr last;
  if (purge) {
    SqlTableOperations ops(this, id);
    auto refreshed = ops.Refresh();
    if (refreshed.ok()) {
      last = *refreshed;
    } else if (refreshed.status().code() == StatusCode::kNotFound) {
      // Either no table (reported by the drop below) or a missing metadata file: Java then
      // drops without purging.
    } else if (refreshed.status().code() != StatusCode::kCorrupt) {
      return refreshed.status();
    }
  }
  // A purge that may not run is refused before the pointer goes: the table stays as it was.
  if (last) FLOE_RETURN_IF_ERROR(internal::PurgeRoot(*last, policy_).status());
  FLOE_RETURN_IF_ERROR(store_->DropTable(id.ns, id.name));
  if (last) return DeleteTableFiles(*io_, *last, policy_);
  return Status::OK();
}

Status SqlCatalog::RenameTable(const TableIdentifier& from, const TableIdentifier& to) {
  return store_->RenameTable(from.ns, from.name, to.ns, to.name);
}

Result<iceberg::TableMetadataPtr> SqlCatalog::RegisterTable(const TableIdentifier& id,
                                                            std::string_view metadata_location,
                                                            bool overwrite) {
  if (metadata_location.empty()) {
    return Status::InvalidArgument("Cannot register an empty metadata file location");
  }
  // Where the file is decides whether it is read at all.
  FLOE_RETURN_IF_ERROR(policy_.Check(metadata_location, "metadata file"));
  std::optional<std::string> replaced;
  auto pointer = store_->LoadTable(id.ns, id.name);
  if (pointer.ok()) {
    if (!overwrite) return Status::AlreadyExists("table {} already exists", id.ToString());
    replaced = pointer->metadata_location;
  } else if (pointer.status().code() != StatusCode::kNotFound) {
    return pointer.status();
  } else {
    FLOE_ASSIGN_OR_RETURN(bool exists, TableExists(id));  // kNotFound for the namespace
    if (exists) return Status::AlreadyExists("table {} already exists", id.ToString());
  }
  auto read = iceberg::ReadTableMetadata(*io_, metadata_location);
  if (!read.ok()) return internal::AsClientFileError(read.status(), metadata_location);
  iceberg::TableMetadata metadata = std::move(*read);
  FLOE_RETURN_IF_ERROR(policy_.CheckTableMetadata(metadata));
  metadata.metadata_file_location = std::string(metadata_location);
  if (replaced) {
    // One swap from the pointer seen above: the old table stays whole until it happens, and
    // a concurrent commit makes this a conflict instead of being lost.
    FLOE_RETURN_IF_ERROR(
        store_->CompareAndSwap(id.ns, id.name, *replaced, std::string(metadata_location)));
  } else {
    FLOE_RETURN_IF_ERROR(store_->CreateTable(id.ns, id.name, metadata_location));
  }
  return std::make_shared<const iceberg::TableMetadata>(std::move(metadata));
}

// ---- Views (Java JdbcCatalog, JdbcViewOperations, BaseMetastoreViewCatalog)

Result<std::vector<TableIdentifier>> SqlCatalog::ListViews(const Namespace& ns) {
  FLOE_ASSIGN_OR_RETURN(std::vector<std::string> names, store_->ListViews(ns));
  std::vector<TableIdentifier> out;
  out.reserve(names.size());
  for (std::string& name : names) out.push_back(TableIdentifier{ns, std::move(name)});
  return out;
}

Result<LoadedView> SqlCatalog::LoadView(const TableIdentifier& id) {
  FLOE_ASSIGN_OR_RETURN(TablePointer pointer, store_->LoadView(id.ns, id.name));
  FLOE_ASSIGN_OR_RETURN(iceberg::ViewMetadata metadata,
                        iceberg::ReadViewMetadata(*io_, pointer.metadata_location));
  return LoadedView{pointer.metadata_location,
                    std::make_shared<const iceberg::ViewMetadata>(std::move(metadata))};
}

Result<bool> SqlCatalog::ViewExists(const TableIdentifier& id) {
  auto pointer = store_->LoadView(id.ns, id.name);
  if (pointer.ok()) return true;
  if (pointer.status().code() == StatusCode::kNotFound) return false;
  return pointer.status();
}

Status SqlCatalog::CheckViewNameFree(const TableIdentifier& id) {
  FLOE_ASSIGN_OR_RETURN(bool view, ViewExists(id));
  if (view) return Status::AlreadyExists("View already exists: {}", id.ToString());
  // TableExists reports a missing namespace as kNotFound.
  FLOE_ASSIGN_OR_RETURN(bool table, TableExists(id));
  if (table) return Status::AlreadyExists("Table with same name already exists: {}", id.ToString());
  return Status::OK();
}

Result<LoadedView> SqlCatalog::CreateView(const TableIdentifier& id,
                                          const CreateViewRequest& request) {
  // Java checks the name before the request (BaseViewBuilder.create).
  FLOE_RETURN_IF_ERROR(CheckViewNameFree(id));
  if (request.representations.empty()) {
    return Status::InvalidArgument("Cannot create view without specifying a query");
  }
  std::set<std::string> unsupported;
  for (const iceberg::ViewRepresentation& r : request.representations) {
    if (!r.is_sql()) unsupported.insert(r.type);
  }
  if (!unsupported.empty()) {
    return Status::InvalidArgument("Found unsupported view representations: [{}]",
                                   fmt::join(unsupported, ", "));
  }
  std::string location;
  if (request.location && !request.location->empty()) {
    location = *request.location;
  } else {
    FLOE_ASSIGN_OR_RETURN(location, DefaultTableLocation(id));
  }
  FLOE_RETURN_IF_ERROR(policy_.Check(location, "view location"));
  FLOE_RETURN_IF_ERROR(policy_.CheckTableProperties(request.properties));
  const int64_t now_ms = env_->NowMillis();
  iceberg::ViewVersion version;
  version.version_id = 1;
  version.timestamp_ms = now_ms;
  version.schema_id = request.schema.schema_id();
  version.summary = request.summary;
  version.representations = request.representations;
  version.default_catalog = request.default_catalog;
  version.default_namespace = request.default_namespace.levels;

  iceberg::ViewMetadataBuilder builder = iceberg::ViewMetadataBuilder::New(env_->NewUuid());
  FLOE_RETURN_IF_ERROR(builder.SetProperties(request.properties));
  FLOE_RETURN_IF_ERROR(builder.SetLocation(location));
  FLOE_RETURN_IF_ERROR(builder.SetCurrentVersion(version, request.schema));
  FLOE_ASSIGN_OR_RETURN(iceberg::ViewMetadataPtr built, builder.Build(now_ms));

  auto metadata = std::make_shared<iceberg::ViewMetadata>(*built);
  metadata->metadata_file_location =
      iceberg::NewViewMetadataLocation(*metadata, 0, env_->NewUuid());
  FLOE_RETURN_IF_ERROR(
      iceberg::WriteViewMetadata(*io_, metadata->metadata_file_location, *metadata));
  Status created = store_->CreateView(id.ns, id.name, metadata->metadata_file_location);
  if (!created.ok()) {
    if (created.code() == StatusCode::kAlreadyExists || created.code() == StatusCode::kNotFound ||
        created.code() == StatusCode::kInvalidArgument) {
      (void)io_->Delete(metadata->metadata_file_location);
    }
    return created;
  }
  return LoadedView{metadata->metadata_file_location, std::move(metadata)};
}

// Java CatalogHandlers.commit for views: each attempt re-reads the base and re-validates the
// requirements; a lost pointer swap is retried with the commit.retry defaults.
Result<LoadedView> SqlCatalog::CommitView(const TableIdentifier& id,
                                          const std::vector<iceberg::ViewRequirement>& requirements,
                                          const std::vector<iceberg::ViewUpdate>& updates) {
  for (const iceberg::ViewUpdate& update : updates) {
    if (const auto* set = std::get_if<iceberg::update::SetLocation>(&update)) {
      FLOE_RETURN_IF_ERROR(policy_.Check(set->location, "view location"));
    } else if (const auto* props = std::get_if<iceberg::update::SetProperties>(&update)) {
      FLOE_RETURN_IF_ERROR(policy_.CheckTableProperties(props->updates));
    }
  }
  const internal::RetryPolicy policy;
  for (int attempt = 0;; ++attempt) {
    FLOE_ASSIGN_OR_RETURN(LoadedView base, LoadView(id));
    FLOE_ASSIGN_OR_RETURN(
        iceberg::ViewMetadataPtr updated,
        iceberg::ApplyViewCommit(base.metadata, requirements, updates, env_->NowMillis()));
    if (updated == base.metadata) return base;

    int32_t version = iceberg::NextMetadataVersion(base.metadata_location);
    auto committed = std::make_shared<iceberg::ViewMetadata>(*updated);
    committed->metadata_file_location =
        iceberg::NewViewMetadataLocation(*committed, version, env_->NewUuid());
    const std::string& location = committed->metadata_file_location;
    FLOE_RETURN_IF_ERROR(iceberg::WriteViewMetadata(*io_, location, *committed));

    Status swapped = store_->CompareAndSwapView(id.ns, id.name, base.metadata_location, location);
    if (swapped.ok()) return LoadedView{location, std::move(committed)};
    // Unknown outcome (the swap may have happened): keep the file, report the error.
    if (!CommitOutcomeKnown(swapped.code())) return swapped;
    (void)io_->Delete(location);
    if (swapped.code() == StatusCode::kNotFound) return swapped;
    if (attempt >= policy.num_retries) {
      return Status::Conflict("commit of view {} failed after {} attempts: {}", id.ToString(),
                              attempt + 1, swapped.message());
    }
    policy.Wait(attempt + 1, std::hash<std::string>{}(location));
  }
}

Status SqlCatalog::DropView(const TableIdentifier& id) {
  // Java reads the last metadata first and drops without it if it cannot be read.
  iceberg::ViewMetadataPtr last;
  if (auto loaded = LoadView(id); loaded.ok()) last = loaded->metadata;
  FLOE_RETURN_IF_ERROR(store_->DropView(id.ns, id.name));
  if (last) {
    auto gc = last->properties.find("gc.enabled");
    if (gc == last->properties.end() || gc->second != "false") {
      (void)io_->Delete(last->metadata_file_location);
    }
  }
  return Status::OK();
}

Status SqlCatalog::RenameView(const TableIdentifier& from, const TableIdentifier& to) {
  return store_->RenameView(from.ns, from.name, to.ns, to.name);
}

Result<LoadedView> SqlCatalog::RegisterView(const TableIdentifier& id,
                                            std::string_view metadata_location) {
  if (metadata_location.empty()) {
    return Status::InvalidArgument("Cannot register an empty metadata file location as a view");
  }
  FLOE_RETURN_IF_ERROR(policy_.Check(metadata_location, "view metadata file"));
  FLOE_RETURN_IF_ERROR(CheckViewNameFree(id));
  auto read = iceberg::ReadViewMetadata(*io_, metadata_location);
  if (!read.ok()) return internal::AsClientFileError(read.status(), metadata_location);
  iceberg::ViewMetadata metadata = std::move(*read);
  FLOE_RETURN_IF_ERROR(policy_.Check(metadata.location, "view location"));
  FLOE_RETURN_IF_ERROR(policy_.CheckTableProperties(metadata.properties));
  FLOE_RETURN_IF_ERROR(store_->CreateView(id.ns, id.name, metadata_location));
  return LoadedView{std::string(metadata_location),
                    std::make_shared<const iceberg::ViewMetadata>(std::move(metadata))};
}

}  // namespace floe::catalog
