// Data expiration (Amoro's "expire-data" action): data files whose rows are all older than a
// retention time are removed from the table with a real Iceberg delete commit, with the
// table's DataExpirationConfig (optimizing_config.h).
//
// A data file's age is the upper bound of `data-expire.field` in its manifest metrics: the
// file expires when that bound is at or before base time - retention, where the base time is
// the newest snapshot that changed data (LAST_COMMIT_TIME; the optimizer's and data
// expiration's own commits do not count) or now (CURRENT_TIME). A file without that bound,
// or with one that does not parse, never expires. At `partition` level a partition's files
// go only when all of its data files expired; at `file` level each expired file goes.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "floe/base/status.h"
#include "floe/iceberg/manifest.h"
#include "floe/iceberg/schema.h"
#include "floe/iceberg/table.h"
#include "floe/optimize/datetime_pattern.h"
#include "floe/optimize/optimizing_config.h"

namespace floe::optimize {

struct DataExpirationResult {
  int64_t threshold_ms = 0;  // files with the field's upper bound at or before this expire
  int64_t data_files_removed = 0;
  int64_t records_removed = 0;  // record counts of the removed data files
  int64_t delete_files_removed = 0;
  std::optional<int64_t> snapshot_id;  // the delete commit, if any
  // Removing the delete files that applied only to removed data files failed (the data
  // commit stands; the next run or dangling-delete cleaning removes them).
  std::string delete_cleanup_error;
};

// The time, in epoch milliseconds, of `file`'s upper bound on `field` as `config` reads it
// (timestamps, dates, longs per datetime-number-format, strings per the pattern). nullopt when
// the bound is missing or unreadable.
std::optional<int64_t> UpperBoundMs(const iceberg::DataFile& file,
                                    const iceberg::NestedField& field,
                                    const DataExpirationConfig& config,
                                    const DateTimePattern& pattern);

// Removes the expired data files of `table`'s current snapshot in one delete commit
// (snapshot-producer DATA_EXPIRATION) that fails if any of them is gone meanwhile, then the
// delete files that applied only to them (a CLEAN_DANGLING_DELETE rewrite). nullopt when
// expiry is off or the table has no snapshot. Errors: kInvalidArgument for a field that is
// missing or of another type; reading manifests; the commit (nothing removed).
Result<std::optional<DataExpirationResult>> ExpireData(iceberg::Table& table,
                                                       const DataExpirationConfig& config,
                                                       int64_t now_ms);

}  // namespace floe::optimize
