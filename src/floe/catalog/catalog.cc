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
// of expired snapshots may be gone already).
template <typename Locations>
void DeleteAll(io::FileIO& io, const Locations& locations, Status* first) {
  std::vector<std::string> batch(locations.begin(), locations.end());
  Status s = io.DeleteFiles(batch);
  if (!s.ok() && first->ok()) *first = std::move(s);
}

}  // namespace

Status DeleteTableFiles(io::FileIO& io, const iceberg::TableMetadata& metadata) {
  Status first;
  std::set<std::string> manifest_lists;
  std::map<std::string, iceberg::ManifestFile> manifests;
  for (const iceberg::Snapshot& snapshot : metadata.snapshots) {
    if (!snapshot.manifest_list.empty()) {
      manifest_lists.insert(snapshot.manifest_list);
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
    DeleteAll(io, content_files, &first);
  }
  // Referenced files before what references them, so a purge that stops half-way can be
  // re-run from the metadata that is left.
  std::vector<std::string> manifest_paths;
  for (const auto& [path, manifest] : manifests) manifest_paths.push_back(path);
  DeleteAll(io, manifest_paths, &first);
  DeleteAll(io, manifest_lists, &first);
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
  DeleteAll(io, metadata_files, &first);
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
  std::string location;
  if (request.location && !request.location->empty()) {
    location = internal::StripTrailingSlash(*request.location);
  } else {
    FLOE_ASSIGN_OR_RETURN(location, catalog.DefaultTableLocation(id));
  }
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
