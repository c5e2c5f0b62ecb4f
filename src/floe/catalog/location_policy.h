// LocationPolicy: where a catalog may read, write and delete (DESIGN.md §4 rule 8). The
// allowed prefixes are the catalog's warehouse plus its `allowed-locations` property (a
// comma-separated list, as Apache Polaris names it). Every location a client or a table
// property names is normalized and checked against them before anything touches storage.
//
// Normalization (NormalizeLocation), purely lexical — the file system is never asked, so an
// answer cannot reveal what exists:
//   - accepted forms: an absolute path (`/p`), `file:/p`, `file:///p`, `file://localhost/p`,
//     `s3://bucket/key`, `s3a://bucket/key` (s3a is s3: the same store);
//   - refused: relative paths (never resolved against the server's working directory), any
//     other scheme (floe's FileIO cannot serve it, and it must not become a local folder
//     named `hdfs:`), `..` segments (a lexical answer would be wrong behind symlinks),
//     control characters and NUL, an empty bucket;
//   - `.` segments and duplicate slashes are dropped; percent-escapes are decoded for the
//     comparison, and a location whose decoded form differs must pass in both forms (so
//     `%2e%2e` is a `..` and `%2f` a slash to whoever decodes it later).
// Prefixes compare by scheme, bucket and whole path segments (`/wh` does not contain
// `/wh-old`).
//
// Refusals are kPermissionDenied (REST 403 ForbiddenException) with a message naming the
// location and the rule, never anything read from storage.
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "floe/base/status.h"
#include "floe/catalog/namespace.h"
#include "floe/iceberg/table_metadata.h"
#include "floe/iceberg/table_update.h"

namespace floe::catalog {

// The catalog property that widens the allowed locations.
inline constexpr std::string_view kAllowedLocationsProperty = "allowed-locations";

// A location in one spelling: scheme "file" (bucket empty) or "s3", and path segments.
struct NormalizedLocation {
  std::string scheme;
  std::string bucket;
  std::vector<std::string> segments;

  // `/a/b` or `s3://bucket/a/b`.
  std::string ToString() const;
  // Equal to `prefix` or below it.
  bool IsUnder(const NormalizedLocation& prefix) const;
  // One is under the other.
  bool Overlaps(const NormalizedLocation& other) const {
    return IsUnder(other) || other.IsUnder(*this);
  }
  friend bool operator==(const NormalizedLocation&, const NormalizedLocation&) = default;
};

// Errors: kPermissionDenied naming the rule the location breaks (see the header comment).
Result<NormalizedLocation> NormalizeLocation(std::string_view location);

// The table properties that name where a table writes (Java TableProperties): data files,
// metadata files, object-storage data, and the deprecated folder-storage path.
const std::vector<std::string_view>& TableLocationProperties();

class LocationPolicy {
 public:
  // A policy allowing nothing (a catalog without warehouse or allowed locations).
  LocationPolicy() = default;

  // `catalog` names the catalog in messages. `warehouse` may be empty; `allowed` are further
  // prefixes. Errors: kInvalidArgument when one of them does not normalize (a catalog must
  // not start with a relative or unservable root).
  static Result<LocationPolicy> Make(std::string catalog, std::string_view warehouse,
                                     const std::vector<std::string>& allowed);

  // Splits the `allowed-locations` value on commas, trimming blanks and dropping empties.
  static std::vector<std::string> ParseAllowedLocations(std::string_view value);

  // OK when `location` normalizes and lies under an allowed prefix. `what` says what the
  // location is for ("table location", "write.data.path"). Errors: kPermissionDenied.
  Status Check(std::string_view location, std::string_view what) const;
  // The location-naming properties among `properties` (TableLocationProperties).
  Status CheckTableProperties(const std::map<std::string, std::string>& properties) const;
  // Everything a table's metadata makes floe write or read beside its files: its location,
  // its location properties, statistics and partition statistics files. For register, before
  // the pointer is created.
  Status CheckTableMetadata(const iceberg::TableMetadata& metadata) const;
  // What `updates` would make the table name: set-location, set-properties of the location
  // properties, set-statistics, set-partition-statistics, and an added snapshot's manifest
  // list (floe reads it to plan, expire and optimize).
  Status CheckTableUpdates(const std::vector<iceberg::TableUpdate>& updates) const;
  // A namespace's `location` property, when set.
  Status CheckNamespaceProperties(const std::map<std::string, std::string>& properties) const;

  // Whether orphan-file cleanup may list and delete under `directories` (a table's data and
  // metadata directories, and its location): each must lie under an allowed prefix (Check), must
  // not be an allowed root nor contain one (the warehouse root, an allowed-locations prefix:
  // cleaning there would reach every table), and must not overlap any of `other_tables` (the
  // locations and directories of the catalog's other tables). Errors: kPermissionDenied
  // naming the directory and the rule.
  Status CheckCleanupScope(const std::vector<std::string>& directories,
                           const std::vector<NormalizedLocation>& other_tables) const;

  const std::vector<NormalizedLocation>& roots() const { return roots_; }
  // The warehouse, when the catalog has one.
  const std::vector<NormalizedLocation>& warehouse() const { return warehouse_; }
  bool empty() const { return roots_.empty(); }

 private:
  std::string catalog_;
  std::vector<NormalizedLocation> roots_;
  std::vector<NormalizedLocation> warehouse_;  // zero or one
};

// Whether `name` can be a path segment of a derived location: not empty, not `.` or `..`,
// no `/`, `\`, NUL or control characters. `what` is "table", "view" or "namespace level".
// Errors: kInvalidArgument.
Status CheckPathSegment(std::string_view name, std::string_view what);
// Every level of `ns`.
Status CheckNamespaceSegments(const Namespace& ns);

}  // namespace floe::catalog
