// ViewMetadata: the content of an Iceberg view metadata file (view spec, format version 1),
// its JSON form (Java ViewMetadataParser), the REST commit model for views (the
// `assert-view-uuid` requirement and the updates a view accepts) and ViewMetadataBuilder,
// which applies them with the semantics of Java's ViewMetadata.Builder.
//
// ViewMetadata is an immutable value once built: the parser and ViewMetadataBuilder produce
// it, everyone else shares it as std::shared_ptr<const ViewMetadata>.
// Parsing untrusted JSON never throws.
// Thread-safety: const methods may be called concurrently; the builder is not thread-safe.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "floe/base/status.h"
#include "floe/iceberg/schema.h"
#include "floe/iceberg/table_update.h"

namespace floe::io {
class FileIO;
}

namespace floe::iceberg {

// The only view format version (view spec).
inline constexpr int32_t kViewFormatVersion = 1;

// View properties with a meaning to metadata handling (Java ViewProperties).
inline constexpr std::string_view kViewPropertyHistorySize = "version.history.num-entries";
inline constexpr int32_t kViewHistorySizeDefault = 10;
inline constexpr std::string_view kViewPropertyReplaceDropDialectAllowed =
    "replace.drop-dialect.allowed";
// View metadata files are gzipped unless write.metadata.compression-codec says otherwise
// (Java ViewProperties.METADATA_COMPRESSION_DEFAULT), unlike table metadata.
inline constexpr std::string_view kViewMetadataCompressionDefault = "gzip";

// A view representation. Only "sql" has content; other types are kept by type alone, as
// Java's UnknownViewRepresentation (floe writes them back as {"type": ...}).
struct ViewRepresentation {
  std::string type = "sql";  // lower case
  std::string sql;
  std::string dialect;

  bool is_sql() const { return type == "sql"; }
  bool operator==(const ViewRepresentation&) const = default;
};

struct ViewVersion {
  int32_t version_id = 0;
  int64_t timestamp_ms = 0;
  int32_t schema_id = 0;  // -1 in an add-view-version update: the schema added last
  // Sorted by key (Java keeps the parsed order; equality ignores it either way).
  std::map<std::string, std::string> summary;
  std::vector<ViewRepresentation> representations;
  std::optional<std::string> default_catalog;
  std::vector<std::string> default_namespace;  // levels; may be empty

  // Java ViewVersion.operation(): "create" for version 1, else "replace".
  std::string_view operation() const { return version_id == 1 ? "create" : "replace"; }
  // Whether the versions behave the same: equal but for version id and timestamp (Java
  // ViewMetadata.Builder.sameViewVersion).
  bool SameAs(const ViewVersion& other) const;
  bool operator==(const ViewVersion&) const = default;
};

struct ViewHistoryEntry {
  int64_t timestamp_ms = 0;
  int32_t version_id = 0;
  bool operator==(const ViewHistoryEntry&) const = default;
};

struct ViewMetadata {
  std::string view_uuid;
  int32_t format_version = kViewFormatVersion;
  std::string location;
  std::vector<Schema> schemas;
  int32_t current_version_id = 0;
  std::vector<ViewVersion> versions;
  std::vector<ViewHistoryEntry> version_log;
  std::map<std::string, std::string> properties;

  // Not part of the JSON: the file this metadata was read from or written to.
  std::string metadata_file_location;

  // Lookups; nullptr when absent.
  const ViewVersion* version_by_id(int32_t id) const;
  const ViewVersion* current_version() const { return version_by_id(current_version_id); }
  const Schema* schema_by_id(int32_t id) const;
  const Schema* current_schema() const;
};

using ViewMetadataPtr = std::shared_ptr<const ViewMetadata>;

// JSON of the parts (Java ViewVersionParser, SQLViewRepresentationParser,
// ViewHistoryEntryParser), members in Java's order. Parse errors are kInvalidArgument.
Result<ViewRepresentation> ViewRepresentationFromJson(const nlohmann::ordered_json& json);
nlohmann::ordered_json ViewRepresentationToJson(const ViewRepresentation& representation);
Result<ViewVersion> ViewVersionFromJson(const nlohmann::ordered_json& json);
nlohmann::ordered_json ViewVersionToJson(const ViewVersion& version);

// Parses view metadata JSON (Java ViewMetadataParser.fromJson): `properties` optional,
// unknown members ignored. Errors: kUnimplemented for a format version other than 1,
// kCorrupt for anything malformed or inconsistent (current version or its schema missing).
Result<ViewMetadata> ViewMetadataFromJson(std::string_view json_text);
Result<ViewMetadata> ViewMetadataFromJsonValue(const nlohmann::ordered_json& json);
// Serializes like Java's ViewMetadataParser.toJson: view-uuid, format-version, location,
// properties (only when not empty), schemas, current-version-id, versions, version-log.
// The value form is for embedding (the REST LoadViewResult's `metadata`).
nlohmann::ordered_json ViewMetadataToJsonValue(const ViewMetadata& metadata);
std::string ViewMetadataToJson(const ViewMetadata& metadata, bool pretty = false);

// Reads a view metadata file (gunzipped when the name says so, like tables); sets
// metadata_file_location. Errors: the FileIO's, those of ViewMetadataFromJson.
Result<ViewMetadata> ReadViewMetadata(io::FileIO& io, std::string_view location);
// Writes a view metadata file (gzipped when the name says so). kAlreadyExists if it exists.
Status WriteViewMetadata(io::FileIO& io, std::string_view location, const ViewMetadata& metadata);
// The location of a view's next metadata file (Java BaseViewOperations.newMetadataFilePath):
// `<dir>/<NNNNN>-<uuid><ext>`, dir = write.metadata.path or `<location>/metadata`, ext
// `.gz.metadata.json` unless write.metadata.compression-codec is "none" (the view default is
// gzip) then `.metadata.json`.
std::string NewViewMetadataLocation(const ViewMetadata& metadata, int32_t version,
                                    std::string_view uuid);

// The REST commit model for views (CommitViewRequest: requirements and updates).
namespace requirement {
struct AssertViewUuid {
  std::string uuid;
  bool operator==(const AssertViewUuid&) const = default;
};
}  // namespace requirement

namespace update {
struct AddViewVersion {
  ViewVersion view_version;
};
// kLastAdded (-1): the version added last in this commit.
struct SetCurrentViewVersion {
  int32_t view_version_id = kLastAdded;
};
}  // namespace update

using ViewRequirement = std::variant<requirement::AssertViewUuid>;
using ViewUpdate =
    std::variant<update::AssignUuid, update::UpgradeFormatVersion, update::AddSchema,
                 update::SetLocation, update::SetProperties, update::RemoveProperties,
                 update::AddViewVersion, update::SetCurrentViewVersion>;

std::string_view ViewUpdateAction(const ViewUpdate& update);

// REST JSON. Requirement types and update actions that do not apply to views are
// kInvalidArgument (Java: "Cannot validate AssertTableUUID against a view", "Cannot apply
// update AddSnapshot to a view"), as is malformed input.
Result<ViewRequirement> ViewRequirementFromJson(const nlohmann::ordered_json& json);
nlohmann::ordered_json ViewRequirementToJson(const ViewRequirement& requirement);
Result<ViewUpdate> ViewUpdateFromJson(const nlohmann::ordered_json& json);
nlohmann::ordered_json ViewUpdateToJson(const ViewUpdate& update);

// A REST CommitViewRequest body (`identifier` ignored).
struct CommitViewRequest {
  std::vector<ViewRequirement> requirements;
  std::vector<ViewUpdate> updates;
};
Result<CommitViewRequest> CommitViewRequestFromJson(std::string_view json_text);
std::string CommitViewRequestToJson(const CommitViewRequest& request);

// Checks a requirement against the view's current metadata. kConflict with Java's message
// ("Requirement failed: view UUID does not match: expected <base> != <required>").
Status Validate(const ViewRequirement& requirement, const ViewMetadata& base);

class ViewMetadataBuilder {
 public:
  // Starts a new view with the given uuid (not recorded as a change, as Java's builder
  // generates the uuid of a new view in build()).
  static ViewMetadataBuilder New(std::string uuid);
  // Starts from existing metadata; its current version is the one the dialect check of
  // Build compares against.
  static ViewMetadataBuilder From(ViewMetadataPtr base);

  Status Apply(const ViewUpdate& update);
  Status ApplyAll(const std::vector<ViewUpdate>& updates);

  // kInvalidArgument: "Cannot reassign uuid".
  Status AssignUuid(const std::string& uuid);
  // kInvalidArgument for a downgrade; an unsupported version fails in Build.
  Status UpgradeFormatVersion(int32_t format_version);
  // Adds `schema` unless an equal one (ignoring ids) exists; a new schema gets the highest id
  // + 1 (0 for the first).
  Status AddSchema(const Schema& schema);
  Status SetLocation(const std::string& location);
  Status SetProperties(const std::map<std::string, std::string>& updates);
  Status RemoveProperties(const std::vector<std::string>& removals);
  // Adds a version unless one that is SameAs it exists (then that id is reused). New ids are
  // the highest + 1 unless the given id is higher. schema_id -1 is the schema added last.
  // kInvalidArgument: unknown schema, two SQL representations of one dialect (any case).
  Status AddVersion(const ViewVersion& version);
  // kLastAdded: the version added last. kInvalidArgument: unknown version or none added.
  Status SetCurrentVersionId(int32_t version_id);
  // Adds `schema` and `version` (with the schema's id) and makes the version current (Java
  // setCurrentVersion, used by create and replace).
  Status SetCurrentVersion(const ViewVersion& version, const Schema& schema);

  // The effective changes so far (no-ops left out; just-added ids as -1 where Java does).
  const std::vector<ViewUpdate>& changes() const { return changes_; }
  bool has_changes() const { return !changes_.empty(); }

  // Produces the metadata. A version made current that was not added in this builder gets a
  // version-log entry at `now_ms`. Versions beyond version.history.num-entries (default 10)
  // are expired, keeping the current one and those added here; the version-log is cut after
  // the last entry of an expired version. Without changes the base is returned unchanged.
  // Errors: kInvalidArgument (no location, no versions, bad format version or history size),
  // kFailedPrecondition (the new current version drops a dialect of the previous one and
  // replace.drop-dialect.allowed is not true).
  Result<ViewMetadataPtr> Build(int64_t now_ms);

 private:
  ViewMetadataBuilder() = default;
  bool AddedInThisBuilder(int32_t version_id) const;
  // The id the schema / version has after adding (reused or new).
  Result<int32_t> AddSchemaInternal(const Schema& schema);
  Result<int32_t> AddVersionInternal(const ViewVersion& version);

  ViewMetadataPtr base_;
  ViewMetadata md_;
  std::vector<ViewUpdate> changes_;
  std::optional<int32_t> last_added_version_id_;
  std::optional<int32_t> last_added_schema_id_;
  // The version-log entry of a current-version change; nullopt time: the commit time.
  std::optional<int32_t> history_version_id_;
  std::optional<int64_t> history_timestamp_ms_;
};

// The reference server's commit step for views (Java CatalogHandlers.commit): validates
// `requirements` against `base` (kConflict), applies `updates` and builds. Returns `base`
// itself when nothing changes.
Result<ViewMetadataPtr> ApplyViewCommit(const ViewMetadataPtr& base,
                                        const std::vector<ViewRequirement>& requirements,
                                        const std::vector<ViewUpdate>& updates, int64_t now_ms);

}  // namespace floe::iceberg
