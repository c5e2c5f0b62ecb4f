#include "floe/ingest/schema_registry.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include "floe/base/json.h"
#include "floe/base/macros.h"
#include "floe/ingest/proto_descriptor.h"
#include "floe/ingest/schema_compatibility.h"

namespace floe::ingest {

std::string_view SchemaTypeName(SchemaType type) {
  switch (type) {
    case SchemaType::kAvro: return "AVRO";
    case SchemaType::kProtobuf: return "PROTOBUF";
    case SchemaType::kJson: return "JSON";
  }
  return "AVRO";
}

Result<SchemaType> ParseSchemaType(std::string_view name) {
  if (name == "AVRO") return SchemaType::kAvro;
  if (name == "PROTOBUF") return SchemaType::kProtobuf;
  if (name == "JSON") return SchemaType::kJson;
  return Status::InvalidArgument("unknown schema type '{}' (AVRO, PROTOBUF, JSON)", name);
}

std::string_view CompatibilityName(Compatibility c) {
  switch (c) {
    case Compatibility::kNone: return "NONE";
    case Compatibility::kBackward: return "BACKWARD";
    case Compatibility::kBackwardTransitive: return "BACKWARD_TRANSITIVE";
    case Compatibility::kForward: return "FORWARD";
    case Compatibility::kForwardTransitive: return "FORWARD_TRANSITIVE";
    case Compatibility::kFull: return "FULL";
    case Compatibility::kFullTransitive: return "FULL_TRANSITIVE";
  }
  return "NONE";
}

Result<Compatibility> ParseCompatibility(std::string_view name) {
  for (Compatibility c :
       {Compatibility::kNone, Compatibility::kBackward, Compatibility::kBackwardTransitive,
        Compatibility::kForward, Compatibility::kForwardTransitive, Compatibility::kFull,
        Compatibility::kFullTransitive}) {
    if (CompatibilityName(c) == name) return c;
  }
  return Status::InvalidArgument("invalid compatibility level '{}'", name);
}

namespace {

nlohmann::json ReferencesJson(const std::vector<SchemaReference>& refs) {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& r : refs) {
    out.push_back({{"name", r.name}, {"subject", r.subject}, {"version", r.version}});
  }
  return out;
}

std::vector<SchemaReference> ReferencesFrom(const nlohmann::json& j) {
  std::vector<SchemaReference> out;
  if (!j.is_array()) return out;
  for (const auto& r : j) {
    if (!r.is_object()) continue;
    out.push_back({r.value("name", ""), r.value("subject", ""), r.value("version", 0)});
  }
  return out;
}

}  // namespace

struct SchemaRegistry::State {
  struct Entry {
    StoredSchema schema;
    std::string identity;  // type + normalized text + references
  };
  std::map<int32_t, Entry> by_id;
  std::map<std::string, int32_t> id_by_identity;
  struct Version {
    int32_t version;
    int32_t id;
    bool deleted;
  };
  std::map<std::string, std::vector<Version>> subjects;  // versions ascending
  std::map<std::string, Compatibility> compatibility;    // "" = global
  int32_t next_id = 1;

  Compatibility Global() const {
    auto it = compatibility.find("");
    return it == compatibility.end() ? Compatibility::kBackward : it->second;
  }

  const Version* FindVersion(const std::string& subject, int32_t version,
                             bool include_deleted) const {
    auto it = subjects.find(subject);
    if (it == subjects.end()) return nullptr;
    if (version < 0) {
      for (auto v = it->second.rbegin(); v != it->second.rend(); ++v) {
        if (!v->deleted) return &*v;
      }
      return nullptr;
    }
    for (const Version& v : it->second) {
      if (v.version == version && (include_deleted || !v.deleted)) return &v;
    }
    return nullptr;
  }

  bool Live(const std::string& subject) const {
    auto it = subjects.find(subject);
    if (it == subjects.end()) return false;
    for (const Version& v : it->second) {
      if (!v.deleted) return true;
    }
    return false;
  }

  // Applies one log record; false when it is not a record this version understands.
  bool Apply(const nlohmann::json& r) {
    const std::string op = r.value("op", "");
    if (op == "schema") {
      Entry e;
      e.schema.id = r.value("id", 0);
      auto type = ParseSchemaType(r.value("type", "AVRO"));
      if (!type.ok() || e.schema.id <= 0) return false;
      e.schema.type = *type;
      e.schema.schema = r.value("schema", "");
      e.schema.references = ReferencesFrom(r.value("references", nlohmann::json::array()));
      e.identity = r.value("identity", "");
      id_by_identity[e.identity] = e.schema.id;
      next_id = std::max(next_id, e.schema.id + 1);
      by_id[e.schema.id] = std::move(e);
      return true;
    }
    if (op == "version") {
      std::vector<Version>& vs = subjects[r.value("subject", "")];
      vs.push_back({r.value("version", 0), r.value("id", 0), false});
      return true;
    }
    if (op == "delete") {
      auto it = subjects.find(r.value("subject", ""));
      if (it == subjects.end()) return true;
      const int32_t version = r.value("version", -1);  // -1: every version
      const bool permanent = r.value("permanent", false);
      auto& vs = it->second;
      for (Version& v : vs) {
        if (version < 0 || v.version == version) v.deleted = true;
      }
      if (permanent) {
        std::erase_if(vs, [&](const Version& v) { return version < 0 || v.version == version; });
        if (vs.empty()) subjects.erase(it);
      }
      return true;
    }
    if (op == "config") {
      const std::string subject = r.value("subject", "");
      const std::string level = r.value("compatibility", "");
      if (level.empty()) {
        compatibility.erase(subject);
      } else {
        auto c = ParseCompatibility(level);
        if (!c.ok()) return false;
        compatibility[subject] = *c;
      }
      return true;
    }
    return false;
  }
};

SchemaRegistry::SchemaRegistry(std::string dir)
    : dir_(std::move(dir)), state_(std::make_unique<State>()) {}

SchemaRegistry::~SchemaRegistry() = default;

Result<std::unique_ptr<SchemaRegistry>> SchemaRegistry::Open(std::string dir,
                                                             io::FileFaults* faults) {
  std::unique_ptr<SchemaRegistry> r(new SchemaRegistry(std::move(dir)));
  if (!r->dir_.empty()) FLOE_RETURN_IF_ERROR(r->Replay(faults));
  return r;
}

Status SchemaRegistry::Replay(io::FileFaults* faults) {
  std::error_code ec;
  std::filesystem::create_directories(dir_, ec);
  if (ec) return io::ErrnoStatus(ec.value(), "create directory", dir_);
  const std::string path = dir_ + "/schemas.log";
  FLOE_ASSIGN_OR_RETURN(log_, io::AppendFile::Open(path, faults));
  std::string text(static_cast<size_t>(log_->size()), '\0');
  FLOE_ASSIGN_OR_RETURN(size_t got,
                        log_->ReadAt(0, text.size(), reinterpret_cast<uint8_t*>(text.data())));
  text.resize(got);
  size_t start = 0;
  size_t good_end = 0;
  while (start < text.size()) {
    size_t nl = text.find('\n', start);
    if (nl == std::string::npos) break;  // a torn last line: its append never returned
    // A record holds its schema as a string: it nests a few levels, whatever the schema does.
    Result<nlohmann::json> record = ParseJson(std::string_view(text).substr(start, nl - start));
    bool applied = false;
    if (record.ok() && record->is_object()) {
      try {
        applied = state_->Apply(*record);
      } catch (const nlohmann::json::exception&) {
        applied = false;  // a member of the wrong type: reported below
      }
    }
    if (!applied) {
      return Status::Corrupt("{}: bad record at byte {}", path, start);
    }
    start = nl + 1;
    good_end = start;
  }
  // Cut a torn tail so the next record starts on its own line.
  if (good_end < text.size()) FLOE_RETURN_IF_ERROR(log_->Truncate(static_cast<int64_t>(good_end)));
  return Status::OK();
}

Status SchemaRegistry::Append(const std::string& line) {
  // Every change appends first (also in memory, where nothing is written).
  generation_.fetch_add(1, std::memory_order_acq_rel);
  if (log_ == nullptr) return Status::OK();
  // Durable before the caller learns the id: a producer may write records with it at once.
  // All or nothing: a line torn by a full disk would make the next start refuse the log.
  return log_->Append(line + "\n", true);
}

namespace {

// The schema as the registry keeps it: a Protobuf schema sent as a base64 descriptor
// (confluent-kafka's Python serializer) becomes `.proto` text, as Confluent's registry does.
Result<std::string> SchemaText(SchemaType type, std::string_view schema) {
  if (type == SchemaType::kProtobuf && proto::LooksLikeBase64Descriptor(schema)) {
    return proto::ProtoTextFromBase64Descriptor(schema);
  }
  return std::string(schema);
}

std::string Identity(SchemaType type, const std::string& normalized,
                     const std::vector<SchemaReference>& refs) {
  nlohmann::json j = {{"t", SchemaTypeName(type)}, {"s", normalized}, {"r", ReferencesJson(refs)}};
  return j.dump();
}

}  // namespace

Result<std::map<std::string, std::string>> SchemaRegistry::ResolveReferences(
    const std::vector<SchemaReference>& references) const {
  std::lock_guard lock(mu_);
  std::map<std::string, std::string> out;
  std::vector<SchemaReference> todo = references;
  int guard = 0;
  while (!todo.empty()) {
    if (++guard > 1000) return Status::InvalidArgument("too many schema references");
    SchemaReference r = todo.back();
    todo.pop_back();
    if (out.contains(r.name)) continue;
    const State::Version* v = state_->FindVersion(r.subject, r.version, true);
    if (v == nullptr) {
      return Status::NotFound("reference '{}': subject '{}' version {} not found", r.name,
                              r.subject, r.version);
    }
    const auto& e = state_->by_id.at(v->id);
    out[r.name] = e.schema.schema;
    for (const auto& nested : e.schema.references) todo.push_back(nested);
  }
  return out;
}

Result<int32_t> SchemaRegistry::Register(const std::string& subject, SchemaType type,
                                         std::string_view input,
                                         const std::vector<SchemaReference>& references) {
  FLOE_ASSIGN_OR_RETURN(std::string schema, SchemaText(type, input));
  FLOE_ASSIGN_OR_RETURN(auto imports, ResolveReferences(references));
  FLOE_ASSIGN_OR_RETURN(std::string normalized, NormalizeSchema(type, schema, imports));
  const std::string identity = Identity(type, normalized, references);
  // Compatibility runs outside the lock-held section below only for reading; a racing
  // registration on the same subject is re-checked under the lock by version count.
  std::vector<std::string> messages;
  FLOE_ASSIGN_OR_RETURN(bool compatible,
                        TestCompatibility(subject, -1, type, schema, references, &messages));
  std::lock_guard lock(mu_);
  State& s = *state_;
  int32_t id = 0;
  if (auto it = s.id_by_identity.find(identity); it != s.id_by_identity.end()) id = it->second;
  if (id != 0) {
    if (auto it = s.subjects.find(subject); it != s.subjects.end()) {
      for (const auto& v : it->second) {
        if (v.id == id && !v.deleted) return id;
      }
    }
  }
  if (!compatible) {
    return Status::Conflict(
        "Schema being registered is incompatible with an earlier schema for "
        "subject \"{}\": {}",
        subject, fmt::join(messages, "; "));
  }
  if (id == 0) {
    id = s.next_id;
    nlohmann::json record = {{"op", "schema"},
                             {"id", id},
                             {"type", SchemaTypeName(type)},
                             {"schema", type == SchemaType::kAvro ? normalized : schema},
                             {"references", ReferencesJson(references)},
                             {"identity", identity}};
    FLOE_RETURN_IF_ERROR(Append(record.dump()));
    s.Apply(record);
  }
  int32_t version = 1;
  if (auto it = s.subjects.find(subject); it != s.subjects.end() && !it->second.empty()) {
    version = it->second.back().version + 1;
  }
  nlohmann::json record = {
      {"op", "version"}, {"subject", subject}, {"version", version}, {"id", id}};
  FLOE_RETURN_IF_ERROR(Append(record.dump()));
  s.Apply(record);
  return id;
}

Result<SubjectVersion> SchemaRegistry::Lookup(const std::string& subject, SchemaType type,
                                              std::string_view input,
                                              const std::vector<SchemaReference>& references,
                                              bool include_deleted) const {
  FLOE_ASSIGN_OR_RETURN(std::string schema, SchemaText(type, input));
  FLOE_ASSIGN_OR_RETURN(auto imports, ResolveReferences(references));
  FLOE_ASSIGN_OR_RETURN(std::string normalized, NormalizeSchema(type, schema, imports));
  const std::string identity = Identity(type, normalized, references);
  std::lock_guard lock(mu_);
  const State& s = *state_;
  auto sub = s.subjects.find(subject);
  if (sub == s.subjects.end() || (!include_deleted && !s.Live(subject))) {
    return Status::NotFound("Subject '{}' not found.", subject);
  }
  auto it = s.id_by_identity.find(identity);
  if (it != s.id_by_identity.end()) {
    for (auto v = sub->second.rbegin(); v != sub->second.rend(); ++v) {
      if (v->id == it->second && (include_deleted || !v->deleted)) {
        return SubjectVersion{subject, v->version, v->id, v->deleted};
      }
    }
  }
  return Status::NotFound("Schema not found");
}

Result<StoredSchema> SchemaRegistry::GetById(int32_t id) const {
  std::lock_guard lock(mu_);
  auto it = state_->by_id.find(id);
  if (it == state_->by_id.end()) return Status::NotFound("Schema {} not found", id);
  return it->second.schema;
}

std::vector<SubjectVersion> SchemaRegistry::VersionsOfId(int32_t id) const {
  std::lock_guard lock(mu_);
  std::vector<SubjectVersion> out;
  for (const auto& [subject, versions] : state_->subjects) {
    for (const auto& v : versions) {
      if (v.id == id && !v.deleted) out.push_back({subject, v.version, v.id, false});
    }
  }
  return out;
}

std::vector<std::string> SchemaRegistry::Subjects(bool include_deleted) const {
  std::lock_guard lock(mu_);
  std::vector<std::string> out;
  for (const auto& [subject, versions] : state_->subjects) {
    if (include_deleted || state_->Live(subject)) out.push_back(subject);
  }
  return out;
}

bool SchemaRegistry::HasSubject(const std::string& subject, bool include_deleted) const {
  std::lock_guard lock(mu_);
  return include_deleted ? state_->subjects.contains(subject) : state_->Live(subject);
}

Result<std::vector<int32_t>> SchemaRegistry::Versions(const std::string& subject,
                                                      bool include_deleted) const {
  std::lock_guard lock(mu_);
  std::vector<int32_t> out;
  if (auto it = state_->subjects.find(subject); it != state_->subjects.end()) {
    for (const auto& v : it->second) {
      if (include_deleted || !v.deleted) out.push_back(v.version);
    }
  }
  if (out.empty()) return Status::NotFound("Subject '{}' not found.", subject);
  return out;
}

Result<SubjectVersion> SchemaRegistry::GetVersion(const std::string& subject, int32_t version,
                                                  bool include_deleted) const {
  std::lock_guard lock(mu_);
  const State::Version* v = state_->FindVersion(subject, version, include_deleted);
  if (v == nullptr) {
    return Status::NotFound("Version {} not found.",
                            version < 0 ? "latest" : std::to_string(version));
  }
  return SubjectVersion{subject, v->version, v->id, v->deleted};
}

Result<std::vector<int32_t>> SchemaRegistry::DeleteSubject(const std::string& subject,
                                                           bool permanent) {
  std::lock_guard lock(mu_);
  State& s = *state_;
  auto it = s.subjects.find(subject);
  if (it == s.subjects.end()) return Status::NotFound("Subject '{}' not found.", subject);
  std::vector<int32_t> versions;
  for (const auto& v : it->second) {
    if (permanent ? v.deleted : !v.deleted) versions.push_back(v.version);
  }
  if (permanent && s.Live(subject)) {
    return Status::FailedPrecondition(
        "Subject '{}' was not deleted first before being permanently deleted", subject);
  }
  if (!permanent && versions.empty()) {
    return Status::NotFound("Subject '{}' was soft deleted.", subject);
  }
  nlohmann::json record = {
      {"op", "delete"}, {"subject", subject}, {"version", -1}, {"permanent", permanent}};
  FLOE_RETURN_IF_ERROR(Append(record.dump()));
  s.Apply(record);
  return versions;
}

Result<int32_t> SchemaRegistry::DeleteVersion(const std::string& subject, int32_t version,
                                              bool permanent) {
  std::lock_guard lock(mu_);
  State& s = *state_;
  if (!s.subjects.contains(subject)) return Status::NotFound("Subject '{}' not found.", subject);
  const State::Version* v = s.FindVersion(subject, version, permanent);
  if (v == nullptr) return Status::NotFound("Version {} not found.", version);
  if (permanent && !v->deleted) {
    return Status::FailedPrecondition(
        "Subject '{}' Version {} was not deleted first before being permanently deleted", subject,
        v->version);
  }
  const int32_t number = v->version;
  nlohmann::json record = {
      {"op", "delete"}, {"subject", subject}, {"version", number}, {"permanent", permanent}};
  FLOE_RETURN_IF_ERROR(Append(record.dump()));
  s.Apply(record);
  return number;
}

std::optional<Compatibility> SchemaRegistry::GetCompatibility(const std::string& subject) const {
  std::lock_guard lock(mu_);
  if (subject.empty()) return state_->Global();
  auto it = state_->compatibility.find(subject);
  if (it == state_->compatibility.end()) return std::nullopt;
  return it->second;
}

Compatibility SchemaRegistry::EffectiveCompatibility(const std::string& subject) const {
  std::lock_guard lock(mu_);
  auto it = state_->compatibility.find(subject);
  return it == state_->compatibility.end() ? state_->Global() : it->second;
}

Status SchemaRegistry::SetCompatibility(const std::string& subject, Compatibility level) {
  std::lock_guard lock(mu_);
  nlohmann::json record = {
      {"op", "config"}, {"subject", subject}, {"compatibility", CompatibilityName(level)}};
  FLOE_RETURN_IF_ERROR(Append(record.dump()));
  state_->Apply(record);
  return Status::OK();
}

Status SchemaRegistry::DeleteCompatibility(const std::string& subject) {
  std::lock_guard lock(mu_);
  if (!state_->compatibility.contains(subject)) {
    return Status::NotFound("Subject '{}' does not have subject-level compatibility configured",
                            subject);
  }
  nlohmann::json record = {{"op", "config"}, {"subject", subject}, {"compatibility", ""}};
  FLOE_RETURN_IF_ERROR(Append(record.dump()));
  state_->Apply(record);
  return Status::OK();
}

Result<bool> SchemaRegistry::TestCompatibility(const std::string& subject, int32_t version,
                                               SchemaType type, std::string_view input,
                                               const std::vector<SchemaReference>& references,
                                               std::vector<std::string>* messages) const {
  FLOE_ASSIGN_OR_RETURN(std::string schema, SchemaText(type, input));
  FLOE_ASSIGN_OR_RETURN(auto imports, ResolveReferences(references));
  FLOE_RETURN_IF_ERROR(NormalizeSchema(type, schema, imports).status());
  Compatibility level = EffectiveCompatibility(subject);
  std::vector<StoredSchema> against;
  {
    std::lock_guard lock(mu_);
    const State& s = *state_;
    auto it = s.subjects.find(subject);
    if (it != s.subjects.end()) {
      const bool transitive = level == Compatibility::kBackwardTransitive ||
                              level == Compatibility::kForwardTransitive ||
                              level == Compatibility::kFullTransitive;
      if (transitive && version < 0) {
        for (const auto& v : it->second) {
          if (!v.deleted) against.push_back(s.by_id.at(v.id).schema);
        }
      } else if (const State::Version* v = s.FindVersion(subject, version, false)) {
        against.push_back(s.by_id.at(v->id).schema);
      } else if (version >= 0) {
        return Status::NotFound("Version {} not found.", version);
      }
    }
  }
  if (level == Compatibility::kNone) return true;
  const bool backward =
      level != Compatibility::kForward && level != Compatibility::kForwardTransitive;
  const bool forward =
      level != Compatibility::kBackward && level != Compatibility::kBackwardTransitive;
  bool ok = true;
  for (const StoredSchema& old : against) {
    if (old.type != type) {
      messages->push_back(fmt::format("schema type {} differs from version's {}",
                                      SchemaTypeName(type), SchemaTypeName(old.type)));
      ok = false;
      continue;
    }
    std::map<std::string, std::string> all_imports = imports;
    FLOE_ASSIGN_OR_RETURN(auto old_imports, ResolveReferences(old.references));
    all_imports.insert(old_imports.begin(), old_imports.end());
    if (backward) {
      FLOE_ASSIGN_OR_RETURN(bool b, CanRead(type, schema, old.schema, all_imports, messages));
      ok &= b;
    }
    if (forward) {
      FLOE_ASSIGN_OR_RETURN(bool f, CanRead(type, old.schema, schema, all_imports, messages));
      ok &= f;
    }
  }
  return ok;
}

}  // namespace floe::ingest
