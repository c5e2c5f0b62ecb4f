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

}  // namespace floe::catalog::internal
