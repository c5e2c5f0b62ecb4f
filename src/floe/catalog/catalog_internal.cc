#include "floe/catalog/catalog_internal.h"

#include <algorithm>
#include <chrono>
#include <set>
#include <thread>

#include "floe/base/macros.h"
#include "floe/iceberg/table_metadata_builder.h"

namespace floe::catalog::internal {

Result<iceberg::TableMetadata> NewTableMetadata(const CreateTableRequest& request,
                                                std::string location,
                                                iceberg::CommitEnvironment& env) {
  std::map<std::string, std::string> properties = request.properties;
  properties.try_emplace(std::string(iceberg::kPropertyFormatVersion),
                         std::to_string(request.format_version));
  return iceberg::TableMetadataBuilder::NewTable(request.schema, request.spec, request.sort_order,
                                                 std::move(location), std::move(properties),
                                                 env.NewUuid(), env.NowMillis());
}

Result<iceberg::TableMetadataPtr> ApplyCommit(
    const iceberg::TableMetadataPtr& base,
    const std::vector<iceberg::TableRequirement>& requirements,
    const std::vector<iceberg::TableUpdate>& updates, int64_t now_ms) {
  for (const iceberg::TableRequirement& requirement : requirements) {
    FLOE_RETURN_IF_ERROR(iceberg::Validate(requirement, base.get()));
  }
  iceberg::TableMetadataBuilder builder = iceberg::TableMetadataBuilder::From(base);
  FLOE_RETURN_IF_ERROR(builder.ApplyAll(updates));
  if (!builder.has_changes()) return base;
  return builder.Build(now_ms);
}

RetryPolicy RetryPolicy::For(const iceberg::TableMetadata& metadata) {
  RetryPolicy p;
  p.num_retries = static_cast<int>(
      std::clamp<int64_t>(metadata.PropertyAsInt("commit.retry.num-retries", 4), 0, 1000));
  p.min_wait_ms = std::max<int64_t>(0, metadata.PropertyAsInt("commit.retry.min-wait-ms", 100));
  p.max_wait_ms =
      std::max<int64_t>(p.min_wait_ms, metadata.PropertyAsInt("commit.retry.max-wait-ms", 60'000));
  return p;
}

void RetryPolicy::Wait(int attempt, uint64_t jitter_seed) const {
  int64_t wait = min_wait_ms;
  for (int i = 1; i < attempt && wait < max_wait_ms; ++i) wait *= 2;
  wait = std::min(wait, max_wait_ms);
  if (wait <= 0) return;
  int64_t jitter = static_cast<int64_t>(jitter_seed % static_cast<uint64_t>(wait / 10 + 1));
  std::this_thread::sleep_for(std::chrono::milliseconds(wait + jitter));
}

void DeleteRemovedMetadataFiles(io::FileIO& io, const iceberg::TableMetadata& base,
                                const iceberg::TableMetadata& committed) {
  auto it = committed.properties.find("write.metadata.delete-after-commit.enabled");
  if (it == committed.properties.end() ||
      (it->second != "true" && it->second != "TRUE" && it->second != "True")) {
    return;
  }
  std::set<std::string> kept;
  for (const auto& entry : committed.metadata_log) kept.insert(entry.metadata_file);
  for (const auto& entry : base.metadata_log) {
    if (!kept.contains(entry.metadata_file)) (void)io.Delete(entry.metadata_file);
  }
}

std::string StripTrailingSlash(std::string location) {
  while (location.size() > 1 && location.back() == '/') location.pop_back();
  return location;
}

Result<std::string> CheckedCreateLocation(Catalog& catalog, const TableIdentifier& id,
                                          const CreateTableRequest& request) {
  std::string location;
  if (request.location && !request.location->empty()) {
    location = StripTrailingSlash(*request.location);
  } else {
    FLOE_ASSIGN_OR_RETURN(location, catalog.DefaultTableLocation(id));
  }
  const LocationPolicy& policy = catalog.location_policy();
  FLOE_RETURN_IF_ERROR(policy.Check(location, "table location"));
  FLOE_RETURN_IF_ERROR(policy.CheckTableProperties(request.properties));
  return location;
}

Result<NormalizedLocation> PurgeRoot(const iceberg::TableMetadata& metadata,
                                     const LocationPolicy& policy) {
  FLOE_RETURN_IF_ERROR(policy.Check(metadata.location, "purged table location"));
  FLOE_ASSIGN_OR_RETURN(NormalizedLocation root, NormalizeLocation(metadata.location));
  for (const NormalizedLocation& allowed : policy.roots()) {
    if (root == allowed) {
      return Status::PermissionDenied(
          "cannot purge a table whose location '{}' is an allowed root of the catalog",
          metadata.location);
    }
  }
  return root;
}

Status AsClientFileError(Status status, std::string_view location) {
  switch (status.code()) {
    case StatusCode::kCorrupt:
    case StatusCode::kInvalidArgument:
    case StatusCode::kUnimplemented:
      return Status::InvalidArgument("'{}' is not a valid metadata file: {}", location,
                                     status.message());
    default: return status;
  }
}

}  // namespace floe::catalog::internal
