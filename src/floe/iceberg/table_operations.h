// TableOperations: what the table layer needs from a catalog — the current metadata and an
// atomic commit of REST-style requirements + updates. Catalogs (src/floe/catalog: SQL,
// filesystem, REST) implement it; transactions (table.h) and scans use it, so the
// iceberg layer never depends on a particular catalog.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "floe/base/status.h"
#include "floe/iceberg/table_metadata.h"
#include "floe/iceberg/table_update.h"
#include "floe/io/file_io.h"

namespace floe::iceberg {

// A source of time for commits (snapshot timestamps, last-updated-ms) and of randomness
// for snapshot ids and file names; tests inject fixed ones.
class CommitEnvironment {
 public:
  virtual ~CommitEnvironment() = default;
  virtual int64_t NowMillis() = 0;
  // A random version-4 UUID, lowercase with dashes.
  virtual std::string NewUuid() = 0;
};

// The real clock and a random UUID source (std::random_device seeded).
// Thread-safety: not thread-safe; use one per thread.
std::unique_ptr<CommitEnvironment> MakeSystemCommitEnvironment();

class TableOperations {
 public:
  virtual ~TableOperations() = default;

  // "ns.table", for messages.
  virtual const std::string& name() const = 0;
  virtual io::FileIO& io() = 0;
  virtual CommitEnvironment& env() = 0;

  // Reads the table's current metadata from the catalog. kNotFound when the table no
  // longer exists.
  virtual Result<TableMetadataPtr> Refresh() = 0;

  // Validates `requirements` against the catalog's current metadata, applies `updates`
  // (TableMetadataBuilder), writes the new metadata file and swaps the catalog's pointer
  // atomically; returns the committed metadata. Errors:
  //   kConflict     a requirement failed or a concurrent commit won: nothing was
  //                 committed; refresh and retry the operation;
  //   kInvalidArgument / kFailedPrecondition  the updates are invalid for the table;
  //   others (kIOError, kUnavailable, kDeadlineExceeded): the outcome may be unknown —
  //                 callers must not delete files the commit may reference.
  virtual Result<TableMetadataPtr> Commit(const std::vector<TableRequirement>& requirements,
                                          const std::vector<TableUpdate>& updates) = 0;
};

}  // namespace floe::iceberg
