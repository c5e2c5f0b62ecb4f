#include "floe/catalog/filesystem_catalog.h"

#include <algorithm>
#include <charconv>
#include <filesystem>
#include <functional>
#include <optional>
#include <system_error>

#include "floe/base/macros.h"
#include "floe/catalog/catalog_internal.h"
#include "floe/io/local_file_io.h"

namespace floe::catalog {

namespace fs = std::filesystem;

namespace {

constexpr std::string_view kVersionHint = "version-hint.text";

std::optional<int32_t> ParseInt(std::string_view text) {
  while (!text.empty() && (text.back() == '\n' || text.back() == '\r' || text.back() == ' ')) {
    text.remove_suffix(1);
  }
  int32_t value = 0;
  auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || ptr != text.data() + text.size() || value < 0) return std::nullopt;
  return value;
}

// Java HadoopTableOperations: "v<N>" + the codec's extension.
std::string VersionFile(const std::string& metadata_dir, int32_t version, bool gzip) {
  return metadata_dir + "/v" + std::to_string(version) +
         (gzip ? ".gz.metadata.json" : ".metadata.json");
}

bool WantsGzip(const iceberg::TableMetadata& metadata) {
  auto it = metadata.properties.find(std::string(iceberg::kPropertyMetadataCompression));
  if (it == metadata.properties.end()) return false;
  std::string codec = it->second;
  std::transform(codec.begin(), codec.end(), codec.begin(), ::tolower);
  return codec == "gzip";
}

// The version of "v<N>.metadata.json" / "v<N>.gz.metadata.json", else nullopt.
std::optional<int32_t> VersionOfName(std::string_view name) {
  if (!name.starts_with("v")) return std::nullopt;
  size_t dot = name.find('.');
  if (dot == std::string_view::npos) return std::nullopt;
  std::string_view rest = name.substr(dot);
  if (rest != ".metadata.json" && rest != ".gz.metadata.json") return std::nullopt;
  return ParseInt(name.substr(1, dot - 1));
}

class FileSystemTableOperations final : public iceberg::TableOperations {
 public:
  FileSystemTableOperations(FileSystemCatalog* catalog, std::string name, std::string table_dir)
      : catalog_(catalog),
        name_(std::move(name)),
        table_dir_(std::move(table_dir)),
        metadata_dir_(table_dir_ + "/metadata") {}

  const std::string& name() const override { return name_; }
  io::FileIO& io() override { return catalog_->io(); }
  iceberg::CommitEnvironment& env() override { return catalog_->env(); }

  // The current version: the hint, then any later versions that exist (a writer may have
  // died between the rename and the hint, or the hint may be mid-rewrite).
  Result<std::optional<int32_t>> FindVersion() {
    std::optional<int32_t> version;
    auto hint = io().ReadFile(metadata_dir_ + "/" + std::string(kVersionHint));
    if (hint.ok()) {
      version =
          ParseInt(std::string_view(reinterpret_cast<const char*>(hint->data()), hint->size()));
    }
    if (!version) {
      std::error_code ec;
      for (const auto& entry : fs::directory_iterator(metadata_dir_, ec)) {
        auto v = VersionOfName(entry.path().filename().string());
        if (v && (!version || *v > *version)) version = v;
      }
      if (!version) return std::optional<int32_t>();
    }
    while (true) {
      FLOE_ASSIGN_OR_RETURN(auto next, ExistingFile(*version + 1));
      if (!next) break;
      ++*version;
    }
    return version;
  }

  // The metadata file of `version`, plain or gzipped, if it exists.
  Result<std::optional<std::string>> ExistingFile(int32_t version) {
    for (bool gzip : {false, true}) {
      std::string location = VersionFile(metadata_dir_, version, gzip);
      FLOE_ASSIGN_OR_RETURN(bool exists, io().Exists(location));
      if (exists) return std::optional<std::string>(location);
    }
    return std::optional<std::string>();
  }

  Result<iceberg::TableMetadataPtr> Refresh() override {
    FLOE_ASSIGN_OR_RETURN(std::optional<int32_t> version, FindVersion());
    if (!version) return Status::NotFound("table {} does not exist", name_);
    FLOE_ASSIGN_OR_RETURN(std::optional<std::string> location, ExistingFile(*version));
    if (!location) return Status::NotFound("table {} does not exist", name_);
    if (current_ && current_->metadata_file_location == *location) return current_;
    FLOE_ASSIGN_OR_RETURN(iceberg::TableMetadata metadata,
                          iceberg::ReadTableMetadata(io(), *location));
    current_ = std::make_shared<const iceberg::TableMetadata>(std::move(metadata));
    version_ = *version;
    return current_;
  }

  // Writes `metadata` as version `version`: a temporary file renamed without replacing.
  // kConflict when the version exists (someone else committed it).
  Result<iceberg::TableMetadataPtr> WriteVersion(const iceberg::TableMetadata& metadata,
                                                 int32_t version) {
    bool gzip = WantsGzip(metadata);
    std::string temp =
        metadata_dir_ + "/" + env().NewUuid() + (gzip ? ".gz.metadata.json" : ".metadata.json");
    std::string final_location = VersionFile(metadata_dir_, version, gzip);
    auto committed = std::make_shared<iceberg::TableMetadata>(metadata);
    committed->metadata_file_location = final_location;
    FLOE_RETURN_IF_ERROR(iceberg::WriteTableMetadata(io(), temp, *committed));
    // The other codec's name for this version would also claim it.
    FLOE_ASSIGN_OR_RETURN(auto taken, ExistingFile(version));
    Status renamed = taken ? Status::AlreadyExists("{} exists", *taken)
                           : io().RenameNoReplace(temp, final_location);
    if (!renamed.ok()) {
      (void)io().Delete(temp);
      if (renamed.code() == StatusCode::kAlreadyExists) {
        return Status::Conflict("version {} of {} was committed concurrently", version, name_);
      }
      return renamed;
    }
    // Only a hint: a failure here leaves readers probing forward from the old value.
    (void)io().WriteFile(metadata_dir_ + "/" + std::string(kVersionHint), std::to_string(version),
                         /*overwrite=*/true);
    version_ = version;
    current_ = committed;
    return current_;
  }

  Result<iceberg::TableMetadataPtr> Commit(
      const std::vector<iceberg::TableRequirement>& requirements,
      const std::vector<iceberg::TableUpdate>& updates) override {
    FLOE_RETURN_IF_ERROR(catalog_->location_policy().CheckTableUpdates(updates));
    for (int attempt = 0;; ++attempt) {
      FLOE_ASSIGN_OR_RETURN(iceberg::TableMetadataPtr base, Refresh());
      FLOE_ASSIGN_OR_RETURN(iceberg::TableMetadataPtr updated,
                            internal::ApplyCommit(base, requirements, updates, env().NowMillis()));
      if (updated == base) return base;
      auto committed = WriteVersion(*updated, version_ + 1);
      if (committed.ok()) {
        internal::DeleteRemovedMetadataFiles(io(), *base, **committed);
        return committed;
      }
      if (committed.status().code() != StatusCode::kConflict) return committed.status();
      internal::RetryPolicy policy = internal::RetryPolicy::For(*base);
      if (attempt >= policy.num_retries) return committed.status();
      policy.Wait(attempt + 1, std::hash<std::string>{}(base->metadata_file_location) + attempt);
    }
  }

 private:
  FileSystemCatalog* catalog_;
  std::string name_;
  std::string table_dir_;
  std::string metadata_dir_;
  iceberg::TableMetadataPtr current_;
  int32_t version_ = 0;
};

bool IsDirectory(const std::string& path) {
  std::error_code ec;
  return fs::is_directory(path, ec);
}

}  // namespace

FileSystemCatalog::FileSystemCatalog(std::string root, CatalogOptions options,
                                     LocationPolicy policy)
    : name_(std::move(options.name)),
      root_(std::move(root)),
      io_(options.io ? std::move(options.io) : std::make_unique<io::LocalFileIO>()),
      env_(options.env ? std::move(options.env) : iceberg::MakeSystemCommitEnvironment()),
      policy_(std::move(policy)) {}

Result<std::unique_ptr<FileSystemCatalog>> FileSystemCatalog::Open(std::string_view uri,
                                                                   CatalogOptions options) {
  std::string root = internal::StripTrailingSlash(io::LocalFileIO::ToPath(uri));
  if (root.empty()) return Status::InvalidArgument("filesystem catalog '{}' has no path", uri);
  // Commits here are an exclusive rename of the next version file (Java HadoopCatalog); an
  // object store has no such rename, so two writers could both "win".
  if (root.find("://") != std::string::npos) {
    return Status::InvalidArgument(
        "filesystem catalog '{}': commits need an atomic rename, which object storage "
        "does not offer; use a SQL or internal catalog with an s3:// warehouse",
        uri);
  }
  FLOE_ASSIGN_OR_RETURN(LocationPolicy policy,
                        LocationPolicy::Make(options.name, root, options.allowed_locations));
  std::error_code ec;
  fs::create_directories(root, ec);
  if (ec) return Status::IOError("create warehouse {}: {}", root, ec.message());
  return std::unique_ptr<FileSystemCatalog>(
      new FileSystemCatalog(std::move(root), std::move(options), std::move(policy)));
}

Status FileSystemCatalog::CheckNames(const Namespace& ns) const {
  return CheckNamespaceSegments(ns);
}

std::string FileSystemCatalog::NamespacePath(const Namespace& ns) const {
  std::string path = root_;
  for (const std::string& level : ns.levels) path += "/" + level;
  return path;
}

bool FileSystemCatalog::IsTableDir(const std::string& path) const {
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(path + "/metadata", ec)) {
    if (entry.path().filename().string().ends_with(".metadata.json")) return true;
  }
  return false;
}

bool FileSystemCatalog::IsNamespaceDir(const std::string& path) const {
  return IsDirectory(path) && !IsTableDir(path);
}

Result<std::vector<Namespace>> FileSystemCatalog::ListNamespaces(const Namespace& parent) {
  FLOE_RETURN_IF_ERROR(CheckNames(parent));
  std::string path = NamespacePath(parent);
  if (!IsNamespaceDir(path)) {
    return Status::NotFound("namespace {} does not exist", parent.ToString());
  }
  std::vector<Namespace> out;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(path, ec)) {
    if (!IsNamespaceDir(entry.path().string())) continue;
    Namespace child = parent;
    child.levels.push_back(entry.path().filename().string());
    out.push_back(std::move(child));
  }
  if (ec) return Status::IOError("list {}: {}", path, ec.message());
  std::sort(out.begin(), out.end());
  return out;
}

Status FileSystemCatalog::CreateNamespace(const Namespace& ns, const Properties& properties) {
  if (ns.empty()) return Status::InvalidArgument("cannot create the root namespace");
  FLOE_RETURN_IF_ERROR(CheckNames(ns));
  if (!properties.empty()) {
    return Status::Unimplemented(
        "cannot create namespace {}: the filesystem catalog has no namespace properties",
        ns.ToString());
  }
  std::string path = NamespacePath(ns);
  if (IsDirectory(path)) {
    return Status::AlreadyExists("namespace {} already exists", ns.ToString());
  }
  std::error_code ec;
  fs::create_directories(path, ec);
  if (ec) return Status::IOError("create namespace {}: {}", path, ec.message());
  return Status::OK();
}

Result<bool> FileSystemCatalog::NamespaceExists(const Namespace& ns) {
  FLOE_RETURN_IF_ERROR(CheckNames(ns));
  return IsNamespaceDir(NamespacePath(ns));
}

Result<Properties> FileSystemCatalog::LoadNamespaceProperties(const Namespace& ns) {
  FLOE_ASSIGN_OR_RETURN(bool exists, NamespaceExists(ns));
  if (!exists || ns.empty()) {
    return Status::NotFound("namespace {} does not exist", ns.ToString());
  }
  return Properties{{"location", NamespacePath(ns)}};
}

Result<NamespacePropertiesUpdate> FileSystemCatalog::UpdateNamespaceProperties(
    const Namespace& ns, const std::vector<std::string>&, const Properties&) {
  return Status::Unimplemented(
      "cannot change the properties of namespace {}: the filesystem catalog has none",
      ns.ToString());
}

Status FileSystemCatalog::DropNamespace(const Namespace& ns) {
  FLOE_ASSIGN_OR_RETURN(bool exists, NamespaceExists(ns));
  if (!exists || ns.empty()) {
    return Status::NotFound("namespace {} does not exist", ns.ToString());
  }
  std::string path = NamespacePath(ns);
  std::error_code ec;
  if (!fs::is_empty(path, ec)) {
    return Status::FailedPrecondition("namespace {} is not empty", ns.ToString());
  }
  if (!fs::remove(path, ec) || ec) {
    return Status::IOError("drop namespace {}: {}", path, ec.message());
  }
  return Status::OK();
}

Result<std::vector<TableIdentifier>> FileSystemCatalog::ListTables(const Namespace& ns) {
  FLOE_RETURN_IF_ERROR(CheckNames(ns));
  std::string path = NamespacePath(ns);
  if (ns.empty() || !IsNamespaceDir(path)) {
    return Status::NotFound("namespace {} does not exist", ns.ToString());
  }
  std::vector<TableIdentifier> out;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(path, ec)) {
    if (IsTableDir(entry.path().string())) {
      out.push_back(TableIdentifier{ns, entry.path().filename().string()});
    }
  }
  std::sort(out.begin(), out.end());
  return out;
}

Result<std::string> FileSystemCatalog::DefaultTableLocation(const TableIdentifier& id) {
  FLOE_RETURN_IF_ERROR(CheckNames(id.ns));
  FLOE_RETURN_IF_ERROR(CheckPathSegment(id.name, "table"));
  return NamespacePath(id.ns) + "/" + id.name;
}

Result<iceberg::TableMetadataPtr> FileSystemCatalog::CreateTable(
    const TableIdentifier& id, const CreateTableRequest& request) {
  FLOE_ASSIGN_OR_RETURN(std::string location, DefaultTableLocation(id));
  if (request.location && !request.location->empty() &&
      internal::StripTrailingSlash(io::LocalFileIO::ToPath(*request.location)) != location) {
    return Status::InvalidArgument(
        "cannot put table {} at {}: filesystem catalog tables live at {}", id.ToString(),
        *request.location, location);
  }
  FLOE_RETURN_IF_ERROR(policy_.CheckTableProperties(request.properties));
  FileSystemTableOperations ops(this, id.ToString(), location);
  FLOE_ASSIGN_OR_RETURN(std::optional<int32_t> version, ops.FindVersion());
  if (version) return Status::AlreadyExists("table {} already exists", id.ToString());
  FLOE_ASSIGN_OR_RETURN(iceberg::TableMetadata metadata,
                        internal::NewTableMetadata(request, location, *env_));
  auto created = ops.WriteVersion(metadata, 1);
  if (!created.ok() && created.status().code() == StatusCode::kConflict) {
    return Status::AlreadyExists("table {} already exists", id.ToString());
  }
  return created;
}

Result<std::unique_ptr<iceberg::TableOperations>> FileSystemCatalog::LoadTable(
    const TableIdentifier& id) {
  FLOE_ASSIGN_OR_RETURN(std::string location, DefaultTableLocation(id));
  auto ops = std::make_unique<FileSystemTableOperations>(this, id.ToString(), location);
  FLOE_RETURN_IF_ERROR(ops->Refresh());
  return std::unique_ptr<iceberg::TableOperations>(std::move(ops));
}

Result<bool> FileSystemCatalog::TableExists(const TableIdentifier& id) {
  FLOE_ASSIGN_OR_RETURN(std::string location, DefaultTableLocation(id));
  return IsTableDir(location);
}

Status FileSystemCatalog::DropTable(const TableIdentifier& id, bool purge) {
  FLOE_ASSIGN_OR_RETURN(std::string location, DefaultTableLocation(id));
  FileSystemTableOperations ops(this, id.ToString(), location);
  FLOE_ASSIGN_OR_RETURN(iceberg::TableMetadataPtr last, ops.Refresh());
  Status purged;
  if (purge) {
    FLOE_RETURN_IF_ERROR(internal::PurgeRoot(*last, policy_).status());
    purged = DeleteTableFiles(*io_, *last, policy_);
  }
  std::error_code ec;
  fs::remove_all(location, ec);
  if (ec) return Status::IOError("drop table {}: {}", location, ec.message());
  return purged;
}

Status FileSystemCatalog::RenameTable(const TableIdentifier& from, const TableIdentifier&) {
  return Status::Unimplemented("cannot rename {}: filesystem catalog tables cannot be renamed",
                               from.ToString());
}

Result<iceberg::TableMetadataPtr> FileSystemCatalog::RegisterTable(
    const TableIdentifier& id, std::string_view metadata_location, bool overwrite) {
  FLOE_ASSIGN_OR_RETURN(std::string location, DefaultTableLocation(id));
  FLOE_RETURN_IF_ERROR(policy_.Check(metadata_location, "metadata file"));
  FileSystemTableOperations ops(this, id.ToString(), location);
  FLOE_ASSIGN_OR_RETURN(std::optional<int32_t> version, ops.FindVersion());
  if (version && !overwrite) {
    return Status::AlreadyExists("table {} already exists", id.ToString());
  }
  auto read = iceberg::ReadTableMetadata(*io_, metadata_location);
  if (!read.ok()) return internal::AsClientFileError(read.status(), metadata_location);
  FLOE_RETURN_IF_ERROR(policy_.CheckTableMetadata(*read));
  auto registered = ops.WriteVersion(*read, version ? *version + 1 : 1);
  if (!registered.ok() && registered.status().code() == StatusCode::kConflict) {
    return Status::AlreadyExists("table {} already exists", id.ToString());
  }
  return registered;
}

}  // namespace floe::catalog
