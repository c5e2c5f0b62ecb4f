#include "floe/iceberg/view_metadata.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <set>
#include <type_traits>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include "floe/base/json.h"
#include "floe/base/macros.h"
#include "floe/iceberg/java_json.h"
#include "floe/iceberg/metadata_json.h"
#include "floe/iceberg/ojson_util.h"

namespace floe::iceberg {

using ojson::OJson;

namespace {

template <class... Ts>
struct Overloaded : Ts... {
  using Ts::operator()...;
};
template <class... Ts>
Overloaded(Ts...) -> Overloaded<Ts...>;

std::string Lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return s;
}

// The SQL dialects of a version, lower case (Java sqlDialectsFor).
std::set<std::string> SqlDialects(const ViewVersion& version) {
  std::set<std::string> dialects;
  for (const ViewRepresentation& r : version.representations) {
    if (r.is_sql()) dialects.insert(Lower(r.dialect));
  }
  return dialects;
}

Status CorruptView(const Status& s) {
  if (s.code() == StatusCode::kUnimplemented) return s;
  return Status(StatusCode::kCorrupt, fmt::format("view metadata: {}", s.message()));
}

}  // namespace

bool ViewVersion::SameAs(const ViewVersion& other) const {
  return summary == other.summary && representations == other.representations &&
         default_catalog == other.default_catalog && default_namespace == other.default_namespace &&
         schema_id == other.schema_id;
}

const ViewVersion* ViewMetadata::version_by_id(int32_t id) const {
  for (const ViewVersion& v : versions) {
    if (v.version_id == id) return &v;
  }
  return nullptr;
}

const Schema* ViewMetadata::schema_by_id(int32_t id) const {
  for (const Schema& s : schemas) {
    if (s.schema_id() == id) return &s;
  }
  return nullptr;
}

const Schema* ViewMetadata::current_schema() const {
  const ViewVersion* v = current_version();
  return v == nullptr ? nullptr : schema_by_id(v->schema_id);
}

// ---- JSON (Java ViewRepresentationParser, ViewVersionParser, ViewMetadataParser)

Result<ViewRepresentation> ViewRepresentationFromJson(const OJson& json) {
  if (!json.is_object()) {
    return Status::InvalidArgument("Cannot parse view representation from non-object");
  }
  ViewRepresentation r;
  FLOE_ASSIGN_OR_RETURN(std::string type, ojson::GetString(json, "type"));
  r.type = Lower(std::move(type));
  if (r.is_sql()) {
    FLOE_ASSIGN_OR_RETURN(r.sql, ojson::GetString(json, "sql"));
    FLOE_ASSIGN_OR_RETURN(r.dialect, ojson::GetString(json, "dialect"));
  }
  return r;
}

OJson ViewRepresentationToJson(const ViewRepresentation& r) {
  OJson j = OJson::object();
  j["type"] = r.type;
  if (r.is_sql()) {
    j["sql"] = r.sql;
    j["dialect"] = r.dialect;
  }
  return j;
}

Result<ViewVersion> ViewVersionFromJson(const OJson& json) {
  if (!json.is_object()) {
    return Status::InvalidArgument("Cannot parse view version from a non-object");
  }
  ViewVersion v;
  FLOE_ASSIGN_OR_RETURN(v.version_id, ojson::GetInt(json, "version-id"));
  FLOE_ASSIGN_OR_RETURN(v.schema_id, ojson::GetInt(json, "schema-id"));
  FLOE_ASSIGN_OR_RETURN(v.timestamp_ms, ojson::GetLong(json, "timestamp-ms"));
  FLOE_RETURN_IF_ERROR(ojson::Get(json, "summary"));
  FLOE_ASSIGN_OR_RETURN(v.summary, ojson::GetStringMap(json, "summary"));
  FLOE_ASSIGN_OR_RETURN(const OJson* reprs, ojson::Get(json, "representations"));
  FLOE_RETURN_IF_ERROR(ojson::AsArray(*reprs, "representations"));
  for (const OJson& r : *reprs) {
    FLOE_ASSIGN_OR_RETURN(ViewRepresentation parsed, ViewRepresentationFromJson(r));
    v.representations.push_back(std::move(parsed));
  }
  FLOE_ASSIGN_OR_RETURN(v.default_catalog, ojson::OptString(json, "default-catalog"));
  FLOE_RETURN_IF_ERROR(ojson::Get(json, "default-namespace"));
  FLOE_ASSIGN_OR_RETURN(v.default_namespace, ojson::GetStringList(json, "default-namespace"));
  return v;
}

OJson ViewVersionToJson(const ViewVersion& v) {
  OJson j = OJson::object();
  j["version-id"] = v.version_id;
  j["timestamp-ms"] = v.timestamp_ms;
  j["schema-id"] = v.schema_id;
  j["summary"] = ojson::StringMapToJson(v.summary);
  if (v.default_catalog) j["default-catalog"] = *v.default_catalog;
  j["default-namespace"] = v.default_namespace;
  OJson reprs = OJson::array();
  for (const ViewRepresentation& r : v.representations) {
    reprs.push_back(ViewRepresentationToJson(r));
  }
  j["representations"] = std::move(reprs);
  return j;
}

namespace {

Result<ViewMetadata> ParseViewMetadata(const OJson& json) {
  if (!json.is_object()) return Status::InvalidArgument("view metadata must be a JSON object");
  ViewMetadata md;
  FLOE_ASSIGN_OR_RETURN(md.view_uuid, ojson::GetString(json, "view-uuid"));
  FLOE_ASSIGN_OR_RETURN(md.format_version, ojson::GetInt(json, "format-version"));
  if (md.format_version > kViewFormatVersion) {
    return Status::Unimplemented("unsupported view format version {}", md.format_version);
  }
  if (md.format_version < 1) {
    return Status::InvalidArgument("Unsupported format version: {}", md.format_version);
  }
  FLOE_ASSIGN_OR_RETURN(md.location, ojson::GetString(json, "location"));
  FLOE_ASSIGN_OR_RETURN(md.properties, ojson::GetStringMap(json, "properties"));
  FLOE_ASSIGN_OR_RETURN(const OJson* schemas, ojson::Get(json, "schemas"));
  FLOE_RETURN_IF_ERROR(ojson::AsArray(*schemas, "schemas"));
  for (const OJson& s : *schemas) {
    FLOE_ASSIGN_OR_RETURN(Schema schema, ParseSchema(s));
    md.schemas.push_back(std::move(schema));
  }
  FLOE_ASSIGN_OR_RETURN(md.current_version_id, ojson::GetInt(json, "current-version-id"));
  FLOE_ASSIGN_OR_RETURN(const OJson* versions, ojson::Get(json, "versions"));
  FLOE_RETURN_IF_ERROR(ojson::AsArray(*versions, "versions"));
  for (const OJson& v : *versions) {
    FLOE_ASSIGN_OR_RETURN(ViewVersion version, ViewVersionFromJson(v));
    md.versions.push_back(std::move(version));
  }
  FLOE_ASSIGN_OR_RETURN(const OJson* log, ojson::Get(json, "version-log"));
  FLOE_RETURN_IF_ERROR(ojson::AsArray(*log, "version-log"));
  for (const OJson& e : *log) {
    if (!e.is_object()) return Status::InvalidArgument("version-log entry must be an object");
    ViewHistoryEntry entry;
    FLOE_ASSIGN_OR_RETURN(entry.version_id, ojson::GetInt(e, "version-id"));
    FLOE_ASSIGN_OR_RETURN(entry.timestamp_ms, ojson::GetLong(e, "timestamp-ms"));
    md.version_log.push_back(entry);
  }
  // Java checks these lazily (currentVersion(), currentSchemaId()); a server must not hand
  // out metadata that fails there.
  const ViewVersion* current = md.current_version();
  if (current == nullptr) {
    return Status::InvalidArgument("Cannot find current version {} in view versions",
                                   md.current_version_id);
  }
  if (md.schema_by_id(current->schema_id) == nullptr) {
    return Status::InvalidArgument("Cannot find current schema with id {} in schemas",
                                   current->schema_id);
  }
  return md;
}

}  // namespace

Result<ViewMetadata> ViewMetadataFromJsonValue(const OJson& json) {
  auto md = ParseViewMetadata(json);
  if (!md.ok()) return CorruptView(md.status());
  return md;
}

Result<ViewMetadata> ViewMetadataFromJson(std::string_view json_text) {
  auto parsed = ojson::Parse(json_text, "view metadata");
  if (!parsed.ok()) return CorruptView(parsed.status());
  return ViewMetadataFromJsonValue(*parsed);
}

OJson ViewMetadataToJsonValue(const ViewMetadata& md) {
  OJson j = OJson::object();
  j["view-uuid"] = md.view_uuid;
  j["format-version"] = md.format_version;
  j["location"] = md.location;
  if (!md.properties.empty()) j["properties"] = ojson::StringMapToJson(md.properties);
  OJson schemas = OJson::array();
  for (const Schema& s : md.schemas) schemas.push_back(SchemaJson(s));
  j["schemas"] = std::move(schemas);
  j["current-version-id"] = md.current_version_id;
  OJson versions = OJson::array();
  for (const ViewVersion& v : md.versions) versions.push_back(ViewVersionToJson(v));
  j["versions"] = std::move(versions);
  OJson log = OJson::array();
  for (const ViewHistoryEntry& e : md.version_log) {
    OJson entry = OJson::object();
    entry["timestamp-ms"] = e.timestamp_ms;
    entry["version-id"] = e.version_id;
    log.push_back(std::move(entry));
  }
  j["version-log"] = std::move(log);
  return j;
}

std::string ViewMetadataToJson(const ViewMetadata& metadata, bool pretty) {
  return ToJavaJson(ViewMetadataToJsonValue(metadata), pretty);
}

Result<ViewMetadata> ReadViewMetadata(io::FileIO& io, std::string_view location) {
  FLOE_ASSIGN_OR_RETURN(std::string text, ReadMetadataText(io, location));
  auto md = ViewMetadataFromJson(text);
  if (!md.ok()) return md.status().WithContext("{}", location);
  md->metadata_file_location = std::string(location);
  return md;
}

Status WriteViewMetadata(io::FileIO& io, std::string_view location, const ViewMetadata& metadata) {
  return WriteMetadataText(io, location, ViewMetadataToJson(metadata));
}

std::string NewViewMetadataLocation(const ViewMetadata& md, int32_t version,
                                    std::string_view uuid) {
  std::string codec(kViewMetadataCompressionDefault);
  if (auto it = md.properties.find(std::string(kPropertyMetadataCompression));
      it != md.properties.end()) {
    codec = Lower(it->second);
  }
  // Java TableMetadataParser.getFileExtension: gzip -> ".gz.metadata.json", else plain.
  std::string name = fmt::format("{:05d}-{}{}", version, uuid,
                                 codec == "gzip" ? ".gz.metadata.json" : ".metadata.json");
  auto strip = [](std::string dir) {
    while (dir.size() > 1 && dir.back() == '/') dir.pop_back();
    return dir;
  };
  if (auto it = md.properties.find(std::string(kPropertyMetadataPath)); it != md.properties.end()) {
    return strip(it->second) + "/" + name;
  }
  return strip(md.location) + "/metadata/" + name;
}

// ---- REST requirements and updates

std::string_view ViewUpdateAction(const ViewUpdate& u) {
  return std::visit(
      Overloaded{
          [](const update::AddViewVersion&) -> std::string_view { return "add-view-version"; },
          [](const update::SetCurrentViewVersion&) -> std::string_view {
            return "set-current-view-version";
          },
          [](const auto& x) -> std::string_view { return UpdateAction(TableUpdate(x)); },
      },
      u);
}

Result<ViewRequirement> ViewRequirementFromJson(const OJson& json) {
  if (!json.is_object()) return Status::InvalidArgument("requirement must be a JSON object");
  FLOE_ASSIGN_OR_RETURN(std::string type, ojson::GetString(json, "type"));
  if (Lower(type) == "assert-view-uuid") {
    FLOE_ASSIGN_OR_RETURN(std::string uuid, ojson::GetString(json, "uuid"));
    return requirement::AssertViewUuid{std::move(uuid)};
  }
  FLOE_ASSIGN_OR_RETURN(TableRequirement table_requirement, TableRequirementFromJson(json));
  return Status::InvalidArgument("Cannot validate {} against a view",
                                 RequirementType(table_requirement));
}

OJson ViewRequirementToJson(const ViewRequirement& r) {
  OJson j = OJson::object();
  j["type"] = "assert-view-uuid";
  j["uuid"] = std::get<requirement::AssertViewUuid>(r).uuid;
  return j;
}

Status Validate(const ViewRequirement& r, const ViewMetadata& base) {
  const auto& x = std::get<requirement::AssertViewUuid>(r);
  if (Lower(x.uuid) != Lower(base.view_uuid)) {
    return Status::Conflict("Requirement failed: view UUID does not match: expected {} != {}",
                            base.view_uuid, x.uuid);
  }
  return Status::OK();
}

Result<ViewUpdate> ViewUpdateFromJson(const OJson& json) {
  if (!json.is_object()) return Status::InvalidArgument("update must be a JSON object");
  FLOE_ASSIGN_OR_RETURN(std::string action_raw, ojson::GetString(json, "action"));
  std::string action = Lower(action_raw);
  if (action == "add-view-version") {
    FLOE_ASSIGN_OR_RETURN(const OJson* v, ojson::Get(json, "view-version"));
    FLOE_ASSIGN_OR_RETURN(ViewVersion version, ViewVersionFromJson(*v));
    return update::AddViewVersion{std::move(version)};
  }
  if (action == "set-current-view-version") {
    FLOE_ASSIGN_OR_RETURN(int32_t id, ojson::GetInt(json, "view-version-id"));
    return update::SetCurrentViewVersion{id};
  }
  // The actions shared with tables parse as table updates.
  FLOE_ASSIGN_OR_RETURN(TableUpdate parsed, TableUpdateFromJson(json));
  return std::visit(
      Overloaded{
          [](update::AssignUuid&& x) -> Result<ViewUpdate> { return ViewUpdate(std::move(x)); },
          [](update::UpgradeFormatVersion&& x) -> Result<ViewUpdate> { return ViewUpdate(x); },
          [](update::AddSchema&& x) -> Result<ViewUpdate> { return ViewUpdate(std::move(x)); },
          [](update::SetLocation&& x) -> Result<ViewUpdate> { return ViewUpdate(std::move(x)); },
          [](update::SetProperties&& x) -> Result<ViewUpdate> { return ViewUpdate(std::move(x)); },
          [](update::RemoveProperties&& x) -> Result<ViewUpdate> {
            return ViewUpdate(std::move(x));
          },
          [&](auto&&) -> Result<ViewUpdate> {
            return Status::InvalidArgument("Cannot apply update {} to a view", action_raw);
          },
      },
      std::move(parsed));
}

OJson ViewUpdateToJson(const ViewUpdate& u) {
  return std::visit(Overloaded{
                        [](const update::AddViewVersion& x) {
                          OJson j = OJson::object();
                          j["action"] = "add-view-version";
                          j["view-version"] = ViewVersionToJson(x.view_version);
                          return j;
                        },
                        [](const update::SetCurrentViewVersion& x) {
                          OJson j = OJson::object();
                          j["action"] = "set-current-view-version";
                          j["view-version-id"] = x.view_version_id;
                          return j;
                        },
                        [](const auto& x) { return TableUpdateToJson(TableUpdate(x)); },
                    },
                    u);
}

Result<CommitViewRequest> CommitViewRequestFromJson(std::string_view json_text) {
  FLOE_ASSIGN_OR_RETURN(OJson json,
                        ojson::Parse(json_text, "commit view request", kDefaultMaxJsonDepth));
  if (!json.is_object()) return Status::InvalidArgument("commit request must be a JSON object");
  CommitViewRequest req;
  // Java's UpdateTableRequest: both lists optional (absent = empty).
  if (const OJson* requirements = ojson::Find(json, "requirements")) {
    FLOE_RETURN_IF_ERROR(ojson::AsArray(*requirements, "requirements"));
    for (const OJson& r : *requirements) {
      FLOE_ASSIGN_OR_RETURN(ViewRequirement parsed, ViewRequirementFromJson(r));
      req.requirements.push_back(std::move(parsed));
    }
  }
  if (const OJson* updates = ojson::Find(json, "updates")) {
    FLOE_RETURN_IF_ERROR(ojson::AsArray(*updates, "updates"));
    for (const OJson& u : *updates) {
      FLOE_ASSIGN_OR_RETURN(ViewUpdate parsed, ViewUpdateFromJson(u));
      req.updates.push_back(std::move(parsed));
    }
  }
  return req;
}

std::string CommitViewRequestToJson(const CommitViewRequest& request) {
  OJson j = OJson::object();
  OJson requirements = OJson::array();
  for (const auto& r : request.requirements) requirements.push_back(ViewRequirementToJson(r));
  j["requirements"] = std::move(requirements);
  OJson updates = OJson::array();
  for (const auto& u : request.updates) updates.push_back(ViewUpdateToJson(u));
  j["updates"] = std::move(updates);
  return ToJavaJson(j, /*pretty=*/false);
}

// ---- ViewMetadataBuilder (Java ViewMetadata.Builder)

ViewMetadataBuilder ViewMetadataBuilder::New(std::string uuid) {
  ViewMetadataBuilder b;
  b.md_.view_uuid = std::move(uuid);
  return b;
}

ViewMetadataBuilder ViewMetadataBuilder::From(ViewMetadataPtr base) {
  ViewMetadataBuilder b;
  b.md_ = *base;
  b.md_.metadata_file_location.clear();
  b.base_ = std::move(base);
  return b;
}

Status ViewMetadataBuilder::Apply(const ViewUpdate& u) {
  return std::visit(
      Overloaded{
          [&](const update::AssignUuid& x) { return AssignUuid(x.uuid); },
          [&](const update::UpgradeFormatVersion& x) {
            return UpgradeFormatVersion(x.format_version);
          },
          [&](const update::AddSchema& x) { return AddSchema(x.schema); },
          [&](const update::SetLocation& x) { return SetLocation(x.location); },
          [&](const update::SetProperties& x) { return SetProperties(x.updates); },
          [&](const update::RemoveProperties& x) { return RemoveProperties(x.removals); },
          [&](const update::AddViewVersion& x) { return AddVersion(x.view_version); },
          [&](const update::SetCurrentViewVersion& x) {
            return SetCurrentVersionId(x.view_version_id);
          },
      },
      u);
}

Status ViewMetadataBuilder::ApplyAll(const std::vector<ViewUpdate>& updates) {
  for (const ViewUpdate& u : updates) FLOE_RETURN_IF_ERROR(Apply(u));
  return Status::OK();
}

Status ViewMetadataBuilder::AssignUuid(const std::string& uuid) {
  if (!md_.view_uuid.empty() && uuid != md_.view_uuid) {
    return Status::InvalidArgument("Cannot reassign uuid");
  }
  if (uuid != md_.view_uuid) {
    md_.view_uuid = uuid;
    changes_.push_back(update::AssignUuid{uuid});
  }
  return Status::OK();
}

Status ViewMetadataBuilder::UpgradeFormatVersion(int32_t format_version) {
  if (format_version < md_.format_version) {
    return Status::InvalidArgument("Cannot downgrade v{} view to v{}", md_.format_version,
                                   format_version);
  }
  if (format_version == md_.format_version) return Status::OK();
  md_.format_version = format_version;
  changes_.push_back(update::UpgradeFormatVersion{format_version});
  return Status::OK();
}

Status ViewMetadataBuilder::AddSchema(const Schema& schema) {
  return AddSchemaInternal(schema).status();
}

Result<int32_t> ViewMetadataBuilder::AddSchemaInternal(const Schema& schema) {
  // Java reuseOrCreateNewSchemaId: an equal schema's id, else the highest id + 1 (from 0).
  int32_t new_id = 0;
  for (const Schema& s : md_.schemas) {
    // Existing or added earlier in this builder: nothing to record.
    if (s.SameSchema(schema)) return s.schema_id();
    if (s.schema_id() >= new_id) new_id = s.schema_id() + 1;
  }
  Schema added = schema.schema_id() == new_id ? schema : schema.WithSchemaId(new_id);
  md_.schemas.push_back(added);
  changes_.push_back(update::AddSchema{std::move(added)});
  last_added_schema_id_ = new_id;
  return new_id;
}

Status ViewMetadataBuilder::SetLocation(const std::string& location) {
  if (location == md_.location && !md_.location.empty()) return Status::OK();
  md_.location = location;
  changes_.push_back(update::SetLocation{location});
  return Status::OK();
}

Status ViewMetadataBuilder::SetProperties(const std::map<std::string, std::string>& updates) {
  if (updates.empty()) return Status::OK();
  for (const auto& [k, v] : updates) md_.properties[k] = v;
  changes_.push_back(update::SetProperties{updates});
  return Status::OK();
}

Status ViewMetadataBuilder::RemoveProperties(const std::vector<std::string>& removals) {
  if (removals.empty()) return Status::OK();
  for (const std::string& k : removals) md_.properties.erase(k);
  changes_.push_back(update::RemoveProperties{removals});
  return Status::OK();
}

bool ViewMetadataBuilder::AddedInThisBuilder(int32_t version_id) const {
  return std::any_of(changes_.begin(), changes_.end(), [&](const ViewUpdate& u) {
    const auto* added = std::get_if<update::AddViewVersion>(&u);
    return added != nullptr && added->view_version.version_id == version_id;
  });
}

Status ViewMetadataBuilder::AddVersion(const ViewVersion& version) {
  return AddVersionInternal(version).status();
}

Result<int32_t> ViewMetadataBuilder::AddVersionInternal(const ViewVersion& new_version) {
  // Java reuseOrCreateNewViewVersionId: the id of a version that behaves the same, else
  // at least the highest id + 1.
  int32_t new_id = new_version.version_id;
  bool reused = false;
  for (const ViewVersion& v : md_.versions) {
    if (v.SameAs(new_version)) {
      new_id = v.version_id;
      reused = true;
      break;
    }
    if (v.version_id >= new_id) new_id = v.version_id + 1;
  }
  if (reused || md_.version_by_id(new_id) != nullptr) {
    if (AddedInThisBuilder(new_id)) {
      last_added_version_id_ = new_id;
    } else {
      last_added_version_id_.reset();
    }
    return new_id;
  }
  ViewVersion version = new_version;
  version.version_id = new_id;
  if (version.schema_id == update::kLastAdded) {
    if (!last_added_schema_id_) {
      return Status::InvalidArgument("Cannot set last added schema: no schema has been added");
    }
    version.schema_id = *last_added_schema_id_;
  }
  if (md_.schema_by_id(version.schema_id) == nullptr) {
    return Status::InvalidArgument("Cannot add version with unknown schema: {}", version.schema_id);
  }
  std::set<std::string> dialects;
  for (const ViewRepresentation& r : version.representations) {
    if (r.is_sql() && !dialects.insert(Lower(r.dialect)).second) {
      return Status::InvalidArgument(
          "Invalid view version: Cannot add multiple queries for dialect {}", Lower(r.dialect));
    }
  }
  md_.versions.push_back(version);
  if (last_added_schema_id_ && version.schema_id == *last_added_schema_id_) {
    ViewVersion change = version;
    change.schema_id = update::kLastAdded;
    changes_.push_back(update::AddViewVersion{std::move(change)});
  } else {
    changes_.push_back(update::AddViewVersion{version});
  }
  last_added_version_id_ = new_id;
  return new_id;
}

Status ViewMetadataBuilder::SetCurrentVersionId(int32_t version_id) {
  if (version_id == update::kLastAdded) {
    if (!last_added_version_id_) {
      return Status::InvalidArgument(
          "Cannot set last version id: no current version id has been set");
    }
    return SetCurrentVersionId(*last_added_version_id_);
  }
  if (version_id == md_.current_version_id) return Status::OK();
  const ViewVersion* version = md_.version_by_id(version_id);
  if (version == nullptr) {
    return Status::InvalidArgument("Cannot set current version to unknown version: {}", version_id);
  }
  md_.current_version_id = version_id;
  changes_.push_back(update::SetCurrentViewVersion{
      last_added_version_id_ == version_id ? update::kLastAdded : version_id});
  // A version added here is logged at its own time; one made current again at commit time.
  history_version_id_ = version_id;
  if (AddedInThisBuilder(version_id)) {
    history_timestamp_ms_ = version->timestamp_ms;
  } else {
    history_timestamp_ms_.reset();
  }
  return Status::OK();
}

Status ViewMetadataBuilder::SetCurrentVersion(const ViewVersion& version, const Schema& schema) {
  FLOE_ASSIGN_OR_RETURN(int32_t schema_id, AddSchemaInternal(schema));
  ViewVersion with_schema = version;
  with_schema.schema_id = schema_id;
  FLOE_ASSIGN_OR_RETURN(int32_t version_id, AddVersionInternal(with_schema));
  return SetCurrentVersionId(version_id);
}

Result<ViewMetadataPtr> ViewMetadataBuilder::Build(int64_t now_ms) {
  if (base_ && changes_.empty()) return base_;
  if (md_.location.empty()) return Status::InvalidArgument("Invalid location: null");
  if (md_.versions.empty()) return Status::InvalidArgument("Invalid view: no versions were added");
  if (md_.format_version < 1 || md_.format_version > kViewFormatVersion) {
    return Status::InvalidArgument("Unsupported format version: {}", md_.format_version);
  }
  if (md_.view_uuid.empty()) return Status::InvalidArgument("Invalid view: no uuid");
  const ViewVersion* current = md_.current_version();
  if (current == nullptr) {
    return Status::InvalidArgument("Cannot find current version {} in view versions",
                                   md_.current_version_id);
  }
  if (history_version_id_) {
    md_.version_log.push_back(
        ViewHistoryEntry{history_timestamp_ms_.value_or(now_ms), *history_version_id_});
  }

  auto property = [&](std::string_view key) -> const std::string* {
    auto it = md_.properties.find(std::string(key));
    return it == md_.properties.end() ? nullptr : &it->second;
  };
  if (base_) {
    // Java PropertyUtil.propertyAsBoolean: Boolean.parseBoolean (case-insensitive "true").
    const std::string* allowed = property(kViewPropertyReplaceDropDialectAllowed);
    if (allowed == nullptr || Lower(*allowed) != "true") {
      const ViewVersion* previous = base_->current_version();
      if (previous != nullptr) {
        std::set<std::string> before = SqlDialects(*previous);
        std::set<std::string> after = SqlDialects(*current);
        if (!std::includes(after.begin(), after.end(), before.begin(), before.end())) {
          return Status::FailedPrecondition(
              "Cannot replace view due to loss of view dialects ({}=false):\n"
              "Previous dialects: [{}]\nNew dialects: [{}]",
              kViewPropertyReplaceDropDialectAllowed, fmt::join(before, ", "),
              fmt::join(after, ", "));
        }
      }
    }
  }

  int64_t history_size = kViewHistorySizeDefault;
  if (const std::string* v = property(kViewPropertyHistorySize)) {
    // Java Integer.parseInt: a malformed value fails the commit.
    int32_t parsed = 0;
    auto [ptr, ec] = std::from_chars(v->data(), v->data() + v->size(), parsed);
    if (ec != std::errc() || ptr != v->data() + v->size()) {
      return Status::InvalidArgument("{} is not an integer: {}", kViewPropertyHistorySize, *v);
    }
    history_size = parsed;
  }
  if (history_size <= 0) {
    return Status::InvalidArgument("{} must be positive but was {}", kViewPropertyHistorySize,
                                   history_size);
  }

  // Keep at least the versions added here and the current one.
  std::set<int32_t> must_keep{md_.current_version_id};
  for (const ViewUpdate& u : changes_) {
    if (const auto* added = std::get_if<update::AddViewVersion>(&u)) {
      must_keep.insert(added->view_version.version_id);
    }
  }
  size_t keep = std::max(must_keep.size(), static_cast<size_t>(history_size));
  if (md_.versions.size() > keep) {
    // Java expireVersions: the current version, then the highest ids (ids are sequential).
    std::vector<int32_t> ids;
    for (const ViewVersion& v : md_.versions) ids.push_back(v.version_id);
    std::sort(ids.rbegin(), ids.rend());
    std::vector<ViewVersion> retained{*current};
    for (size_t i = 0; i < keep && retained.size() < keep; ++i) {
      if (ids[i] != md_.current_version_id) retained.push_back(*md_.version_by_id(ids[i]));
    }
    std::set<int32_t> retained_ids;
    for (const ViewVersion& v : retained) retained_ids.insert(v.version_id);
    // Java updateHistory: history restarts after any entry of an expired version.
    std::vector<ViewHistoryEntry> history;
    for (const ViewHistoryEntry& e : md_.version_log) {
      if (retained_ids.contains(e.version_id)) {
        history.push_back(e);
      } else {
        history.clear();
      }
    }
    md_.versions = std::move(retained);
    md_.version_log = std::move(history);
  }
  return std::make_shared<const ViewMetadata>(std::move(md_));
}

Result<ViewMetadataPtr> ApplyViewCommit(const ViewMetadataPtr& base,
                                        const std::vector<ViewRequirement>& requirements,
                                        const std::vector<ViewUpdate>& updates, int64_t now_ms) {
  for (const ViewRequirement& r : requirements) FLOE_RETURN_IF_ERROR(Validate(r, *base));
  ViewMetadataBuilder builder = ViewMetadataBuilder::From(base);
  FLOE_RETURN_IF_ERROR(builder.ApplyAll(updates));
  if (!builder.has_changes()) return base;
  return builder.Build(now_ms);
}

}  // namespace floe::iceberg
