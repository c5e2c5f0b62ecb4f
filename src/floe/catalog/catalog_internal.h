// Pieces the catalogs share: creating a table's first metadata, the commit's
// validate-and-apply step, retry waits and metadata-file cleanup. Internal to catalog/.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "floe/base/status.h"
#include "floe/catalog/catalog.h"
#include "floe/iceberg/table_metadata.h"
#include "floe/iceberg/table_update.h"

namespace floe::catalog::internal {

// The metadata of a new table at `location` (TableMetadataBuilder::NewTable with the
// request's format version unless its properties name one).
Result<iceberg::TableMetadata> NewTableMetadata(const CreateTableRequest& request,
                                                std::string location,
                                                iceberg::CommitEnvironment& env);

// Validates `requirements` against `base` (kConflict when one fails) and applies `updates`.
// Returns `base` itself when nothing changes (the caller then commits nothing).
Result<iceberg::TableMetadataPtr> ApplyCommit(
    const iceberg::TableMetadataPtr& base,
    const std::vector<iceberg::TableRequirement>& requirements,
    const std::vector<iceberg::TableUpdate>& updates, int64_t now_ms);

// Java TableProperties commit.retry.*: how often and how long a losing swap is retried.
struct RetryPolicy {
  int num_retries = 4;
  int64_t min_wait_ms = 100;
  int64_t max_wait_ms = 60'000;

  static RetryPolicy For(const iceberg::TableMetadata& metadata);
  // Sleeps before retry number `attempt` (1-based): min_wait * 2^(attempt-1), capped, with
  // up to 10% jitter taken from `jitter_seed`.
  void Wait(int attempt, uint64_t jitter_seed) const;
};

// After a commit from `base` to `committed`: with write.metadata.delete-after-commit.enabled,
// deletes the metadata files that `committed`'s metadata-log no longer lists (Java
// BaseMetastoreTableOperations.deleteRemovedMetadataFiles). Failures are ignored: the
// commit has happened.
void DeleteRemovedMetadataFiles(io::FileIO& io, const iceberg::TableMetadata& base,
                                const iceberg::TableMetadata& committed);

// `location` without trailing '/'.
std::string StripTrailingSlash(std::string location);

// The location a table created by `request` gets (its own, else the catalog's default),
// checked with the catalog's LocationPolicy, and the request's location properties too.
// Errors: kPermissionDenied, kInvalidArgument (names that cannot be path segments).
Result<std::string> CheckedCreateLocation(Catalog& catalog, const TableIdentifier& id,
                                          const CreateTableRequest& request);

// The folder a purge of `metadata` may delete under: its normalized location, which must be
// inside `policy` and not one of its roots. Errors: kPermissionDenied.
Result<NormalizedLocation> PurgeRoot(const iceberg::TableMetadata& metadata,
                                     const LocationPolicy& policy);

// `status` of reading a metadata file a client named: a file that is not metadata is the
// client's mistake (kInvalidArgument, REST 400), not the server's.
Status AsClientFileError(Status status, std::string_view location);

}  // namespace floe::catalog::internal
