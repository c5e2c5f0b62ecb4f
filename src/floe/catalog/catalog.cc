#include "floe/catalog/catalog.h"

#include <set>
#include <vector>

#include "floe/base/macros.h"
#include "floe/catalog/catalog_internal.h"
#include "floe/catalog/filesystem_catalog.h"
#include "floe/catalog/rest_catalog.h"
#include "floe/catalog/sql_catalog.h"
#include "floe/iceberg/manifest_list.h"
#include "floe/iceberg/manifest_reader.h"

namespace floe::catalog {

Result<Namespace> ParseNamespace(std::string_view dotted) {
  Namespace ns = Namespace::FromString(dotted);
  for (const std::string& level : ns.levels) {
    if (level.empty()) return Status::InvalidArgument("invalid namespace '{}'", dotted);
  }
  return ns;
}

Result<TableIdentifier> TableIdentifier::Parse(std::string_view dotted) {
  size_t dot = dotted.rfind('.');
  if (dot == std::string_view::npos) {
    return Status::InvalidArgument("table name '{}' has no namespace (expected ns.table)", dotted);
  }
  TableIdentifier id;
  FLOE_ASSIGN_OR_RETURN(id.ns, ParseNamespace(dotted.substr(0, dot)));
  id.name = std::string(dotted.substr(dot + 1));
  if (id.name.empty() || id.ns.empty()) {
    return Status::InvalidArgument("invalid table name '{}'", dotted);
  }
  return id;
}

std::string TableIdentifier::ToString() const {
  std::string out = ns.ToString();
  if (!out.empty()) out += '.';
  out += name;
  return out;
}

namespace {

// Deletes `locations` in one batch (object stores send one request per 1000 keys), keeping
// the first real error in *first (a missing file is fine: the purge may be re-run, and files
// of expired snapshots may be gone already). Only files under `root` are deleted.
class ConfinedDeleter {
 public:
  ConfinedDeleter(io::FileIO& io, NormalizedLocation root, Status* first, int64_t* skipped)
      : io_(io), root_(std::move(root)), first_(first), skipped_(skipped) {}

  template <typename Locations>
  void DeleteAll(const Locations& locations) {
    std::vector<std::string> batch;
    for (const std::string& location : locations) {
      auto normalized = NormalizeLocation(location);
      if (normalized.ok() && normalized->IsUnder(root_) && !(*normalized == root_)) {
        batch.push_back(location);
      } else {
        ++*skipped_;
      }
    }
    if (batch.empty()) return;
    Status s = io_.DeleteFiles(batch);
    if (!s.ok() && first_->ok()) *first_ = std::move(s);
  }

 private:
  io::FileIO& io_;
  NormalizedLocation root_;
  Status* first_;
  int64_t* skipped_;
};

}  // namespace

const LocationPolicy& Catalog::location_policy() const {
  static const LocationPolicy kNothing;
  return kNothing;
}

Status DeleteTableFiles(io::FileIO& io, const iceberg::TableMetadata& metadata,
                        const LocationPolicy& policy, int64_t* skipped) {
  int64_t skipped_here = 0;
  if (skipped == nullptr) skipped = &skipped_here;
  // The table's own location bounds the purge; it must be an allowed place, and not an
  // allowed root itself (that would reach every table below it).
  FLOE_ASSIGN_OR_RETURN(NormalizedLocation root, internal::PurgeRoot(metadata, policy));
  Status first;
  ConfinedDeleter deleter(io, root, &first, skipped);
  std::set<std::string> manifest_lists;
  std::map<std::string, iceberg::ManifestFile> manifests;
  for (const iceberg::Snapshot& snapshot : metadata.snapshots) {
    if (!snapshot.manifest_list.empty()) {
      manifest_lists.insert(snapshot.manifest_list);
      // Not even read when it lies elsewhere: its content is not this table's to trust.
      if (!policy.Check(snapshot.manifest_list, "manifest list").ok()) continue;
      auto file = io.OpenInput(snapshot.manifest_list);
      if (!file.ok()) {
        if (file.status().code() != StatusCode::kNotFound && first.ok()) first = file.status();
        continue;
      }
      auto list = iceberg::ReadManifestList(**file);
      if (!list.ok()) {
        if (first.ok()) first = list.status();
        continue;
      }
      for (iceberg::ManifestFile& m : *list) manifests.emplace(m.manifest_path, std::move(m));
    }
    for (const std::string& path : snapshot.v1_manifests) {
      iceberg::ManifestFile m;
      m.manifest_path = path;
      manifests.emplace(path, std::move(m));
    }
  }
  // Data and delete files only when no other table may share them (Java: gc.enabled).
  bool gc_enabled = true;
  if (auto it = metadata.properties.find("gc.enabled"); it != metadata.properties.end()) {
    gc_enabled = it->second != "false" && it->second != "FALSE" && it->second != "False";
  }
  if (gc_enabled) {
    std::set<std::string> content_files;  // deletion vectors share Puffin files
    iceberg::ManifestReaderOptions options;
    options.read_stats = false;
    for (const auto& [path, manifest] : manifests) {
      if (!policy.Check(path, "manifest").ok()) continue;
      auto file = io.OpenInput(path);
      if (!file.ok()) {
        if (file.status().code() != StatusCode::kNotFound && first.ok()) first = file.status();
        continue;
      }
      auto entries = iceberg::ReadManifest(**file, manifest, options);
      if (!entries.ok()) {
        if (first.ok()) first = entries.status();
        continue;
      }
      for (const iceberg::ManifestEntry& entry : *entries) {
        content_files.insert(entry.data_file.file_path);
      }
    }
    deleter.DeleteAll(content_files);
  }
  // Referenced files before what references them, so a purge that stops half-way can be
  // re-run from the metadata that is left.
  std::vector<std::string> manifest_paths;
  for (const auto& [path, manifest] : manifests) manifest_paths.push_back(path);
  deleter.DeleteAll(manifest_paths);
  deleter.DeleteAll(manifest_lists);
  std::vector<std::string> metadata_files;
  for (const iceberg::StatisticsFile& f : metadata.statistics) metadata_files.push_back(f.path);
  for (const iceberg::PartitionStatisticsFile& f : metadata.partition_statistics) {
    metadata_files.push_back(f.path);
  }
  for (const iceberg::MetadataLogEntry& entry : metadata.metadata_log) {
    metadata_files.push_back(entry.metadata_file);
  }
  if (!metadata.metadata_file_location.empty()) {
    metadata_files.push_back(metadata.metadata_file_location);
  }
  deleter.DeleteAll(metadata_files);
  return first;
}

Result<std::unique_ptr<Catalog>> OpenCatalog(std::string_view uri, CatalogOptions options) {
  if (uri.starts_with("rest:")) {
    FLOE_ASSIGN_OR_RETURN(auto catalog, RestCatalog::Open(uri, std::move(options)));
    return std::unique_ptr<Catalog>(std::move(catalog));
  }
  if (uri.starts_with("s3://") || uri.starts_with("s3a://")) {
    return Status::InvalidArgument(
        "catalog '{}': an object store cannot be a catalog (no atomic rename); open a SQL "
        "catalog with --warehouse {}",
        uri, uri);
  }
  if (uri.starts_with("file:")) {
    FLOE_ASSIGN_OR_RETURN(auto catalog, FileSystemCatalog::Open(uri, std::move(options)));
    return std::unique_ptr<Catalog>(std::move(catalog));
  }
  FLOE_ASSIGN_OR_RETURN(auto catalog, SqlCatalog::Open(uri, std::move(options)));
  return std::unique_ptr<Catalog>(std::move(catalog));
}

Result<std::string> Catalog::LoadTableMetadataLocation(const TableIdentifier& id) {
  FLOE_ASSIGN_OR_RETURN(auto ops, LoadTable(id));
  FLOE_ASSIGN_OR_RETURN(iceberg::TableMetadataPtr metadata, ops->Refresh());
  return metadata->metadata_file_location;
}

Status Catalog::CommitTransaction(const std::vector<TableCommit>& commits) {
  if (commits.empty()) return Status::OK();
  if (commits.size() > 1) {
    return Status::Unimplemented("catalog {} cannot commit several tables atomically", name());
  }
  FLOE_ASSIGN_OR_RETURN(auto ops, LoadTable(commits[0].id));
  return ops->Commit(commits[0].requirements, commits[0].updates).status();
}

Result<iceberg::TableMetadataPtr> StageCreateTable(Catalog& catalog, const TableIdentifier& id,
                                                   const CreateTableRequest& request) {
  FLOE_ASSIGN_OR_RETURN(bool exists, catalog.TableExists(id));
  if (exists) return Status::AlreadyExists("table {} already exists", id.ToString());
  FLOE_ASSIGN_OR_RETURN(std::string location,
                        internal::CheckedCreateLocation(catalog, id, request));
  FLOE_ASSIGN_OR_RETURN(iceberg::TableMetadata metadata,
                        internal::NewTableMetadata(request, std::move(location), catalog.env()));
  return std::make_shared<const iceberg::TableMetadata>(std::move(metadata));
}

namespace {
Status NoViews(const Catalog& catalog) {
  return Status::Unimplemented("catalog {} does not support views", catalog.name());
}
}  // namespace

Result<std::vector<TableIdentifier>> Catalog::ListViews(const Namespace&) { return NoViews(*this); }
Result<LoadedView> Catalog::LoadView(const TableIdentifier&) { return NoViews(*this); }
Result<bool> Catalog::ViewExists(const TableIdentifier&) { return NoViews(*this); }
Result<LoadedView> Catalog::CreateView(const TableIdentifier&, const CreateViewRequest&) {
  return NoViews(*this);
}
Result<LoadedView> Catalog::CommitView(const TableIdentifier&,
                                       const std::vector<iceberg::ViewRequirement>&,
                                       const std::vector<iceberg::ViewUpdate>&) {
  return NoViews(*this);
}
Status Catalog::DropView(const TableIdentifier&) { return NoViews(*this); }
Status Catalog::RenameView(const TableIdentifier&, const TableIdentifier&) {
  return NoViews(*this);
}
Result<LoadedView> Catalog::RegisterView(const TableIdentifier&, std::string_view) {
  return NoViews(*this);
}

}  // namespace floe::catalog
