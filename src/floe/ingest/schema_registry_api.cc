#include "floe/ingest/schema_registry_api.h"

#include <charconv>
#include <span>
#include <string>
#include <variant>
#include <vector>

#include <nlohmann/json.hpp>

#include "floe/base/json.h"
#include "floe/http/route_table.h"
#include "floe/ingest/registry_errors.h"

namespace floe::ingest {

namespace {

constexpr std::string_view kContentType = "application/vnd.schemaregistry.v1+json";

using registry_error::kCompatibilityNotFound;
using registry_error::kInvalidCompatibility;
using registry_error::kInvalidMode;
using registry_error::kInvalidSchema;
using registry_error::kInvalidVersion;
using registry_error::kSchemaNotFound;
using registry_error::kStoreError;
using registry_error::kSubjectNotFound;
using registry_error::kSubjectNotSoftDeleted;
using registry_error::kSubjectSoftDeleted;
using registry_error::kVersionNotFound;
using registry_error::kVersionNotSoftDeleted;

http::HttpResponse Reply(int status, const nlohmann::json& body) {
  http::HttpResponse r = http::HttpResponse::Json(status, body.dump());
  r.content_type = std::string(kContentType);
  return r;
}

http::HttpResponse Error(int code, std::string_view message) {
  return Reply(RegistryHttpStatus(code), {{"error_code", code}, {"message", message}});
}

http::HttpResponse FromStatus(const Status& st, int not_found_code) {
  return Error(RegistryErrorFor(st.code(), not_found_code), st.message());
}

struct Query {
  bool deleted = false;
  bool permanent = false;
  bool verbose = false;
  bool default_to_global = false;
};

Query ParseQueryFlags(std::string_view query) {
  Query q;
  auto pairs = http::ParseQuery(query);
  if (!pairs.ok()) return q;
  for (const auto& [k, v] : *pairs) {
    const bool on = v == "true";
    if (k == "deleted" || k == "lookupDeletedSchema") q.deleted = on;
    if (k == "permanent") q.permanent = on;
    if (k == "verbose") q.verbose = on;
    if (k == "defaultToGlobal") q.default_to_global = on;
  }
  return q;
}

// A version path segment: a positive number or "latest" (-1). nullopt when invalid.
std::optional<int32_t> ParseVersion(std::string_view s) {
  if (s == "latest" || s == "-1") return -1;
  int32_t v = 0;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || p != s.data() + s.size() || v < 1) return std::nullopt;
  return v;
}

struct SchemaRequest {
  SchemaType type = SchemaType::kAvro;
  std::string schema;
  std::vector<SchemaReference> references;
};

Result<SchemaRequest> ParseSchemaRequest(const std::string& body) {
  Result<nlohmann::json> parsed = ParseJson(body);
  if (!parsed.ok()) return parsed.status().WithContext("the request body is not a JSON object");
  nlohmann::json& j = *parsed;
  if (!j.is_object()) return Status::InvalidArgument("the request body is not a JSON object");
  SchemaRequest r;
  if (!j.contains("schema") || !j["schema"].is_string()) {
    return Status::InvalidArgument("Empty schema");
  }
  r.schema = j["schema"].get<std::string>();
  if (j.contains("schemaType") && !j["schemaType"].is_null()) {
    if (!j["schemaType"].is_string()) return Status::InvalidArgument("schemaType is not a string");
    auto t = ParseSchemaType(j["schemaType"].get<std::string>());
    if (!t.ok()) return t.status();
    r.type = *t;
  }
  if (j.contains("references") && j["references"].is_array()) {
    for (const auto& ref : j["references"]) {
      if (!ref.is_object() || !ref.contains("name") || !ref["name"].is_string() ||
          !ref.contains("subject") || !ref["subject"].is_string() || !ref.contains("version") ||
          !ref["version"].is_number_integer()) {
        return Status::InvalidArgument("a reference needs name, subject and version");
      }
      r.references.push_back({ref["name"].get<std::string>(), ref["subject"].get<std::string>(),
                              ref["version"].get<int32_t>()});
    }
  }
  return r;
}

nlohmann::json SchemaJson(const StoredSchema& s) {
  nlohmann::json j = {{"schema", s.schema}};
  // Confluent leaves schemaType out for Avro, and clients treat a missing one as AVRO.
  if (s.type != SchemaType::kAvro) j["schemaType"] = SchemaTypeName(s.type);
  if (!s.references.empty()) {
    nlohmann::json refs = nlohmann::json::array();
    for (const auto& r : s.references) {
      refs.push_back({{"name", r.name}, {"subject", r.subject}, {"version", r.version}});
    }
    j["references"] = refs;
  }
  return j;
}

// A request being answered: its path segments, query flags and the route's parameters.
struct Call {
  const http::HttpRequest& request;
  const std::vector<std::string>& seg;
  Query q;
  http::PathParams params;
  SchemaRegistry& reg;

  const std::string& Subject() const { return params.Get("subject"); }
  // The subject of a /config or /mode route: none (the global level) without one.
  std::string SubjectOrGlobal() const { return seg.size() == 2 ? seg[1] : std::string(); }
};

using Handler = http::HttpResponse (*)(const Call&);

http::HttpResponse NotFound() { return Error(404, "Not found"); }
http::HttpResponse MethodNotAllowed() { return Error(405, "Method not allowed"); }

http::HttpResponse SchemaText(const StoredSchema& s) {
  http::HttpResponse r = http::HttpResponse::Json(200, s.schema);
  r.content_type = std::string(kContentType);
  return r;
}

// /schemas/ids/{id}...: the schema, or the 40403 to answer.
Result<StoredSchema> SchemaById(const Call& call, int32_t* id) {
  const std::string& text = call.seg[2];
  auto [p, ec] = std::from_chars(text.data(), text.data() + text.size(), *id);
  if (ec != std::errc() || p != text.data() + text.size()) {
    return Status::NotFound("Schema {} not found", text);
  }
  auto s = call.reg.GetById(*id);
  if (!s.ok()) return Status::NotFound("Schema {} not found", *id);
  return s;
}

http::HttpResponse SchemaTypes(const Call&) {
  return Reply(200, nlohmann::json::array({"JSON", "PROTOBUF", "AVRO"}));
}

http::HttpResponse GetSchemaById(const Call& call) {
  int32_t id = 0;
  auto s = SchemaById(call, &id);
  if (!s.ok()) return Error(kSchemaNotFound, s.status().message());
  return Reply(200, SchemaJson(*s));
}

http::HttpResponse GetSchemaTextById(const Call& call) {
  int32_t id = 0;
  auto s = SchemaById(call, &id);
  if (!s.ok()) return Error(kSchemaNotFound, s.status().message());
  return SchemaText(*s);
}

// /schemas/ids/{id}/versions and /subjects: where the schema is registered.
http::HttpResponse UsesOfId(const Call& call) {
  int32_t id = 0;
  auto s = SchemaById(call, &id);
  if (!s.ok()) return Error(kSchemaNotFound, s.status().message());
  const bool versions = call.seg[3] == "versions";
  nlohmann::json out = nlohmann::json::array();
  for (const SubjectVersion& v : call.reg.VersionsOfId(id)) {
    if (versions) {
      out.push_back({{"subject", v.subject}, {"version", v.version}});
    } else {
      out.push_back(v.subject);
    }
  }
  return Reply(200, out);
}

http::HttpResponse ListSubjects(const Call& call) {
  return Reply(200, call.reg.Subjects(call.q.deleted));
}

http::HttpResponse LookUpSchema(const Call& call) {
  const std::string& subject = call.Subject();
  auto req = ParseSchemaRequest(call.request.body);
  if (!req.ok()) return Error(kInvalidSchema, req.status().message());
  if (!call.reg.HasSubject(subject, call.q.deleted)) {
    return Error(kSubjectNotFound, fmt::format("Subject '{}' not found.", subject));
  }
  auto found = call.reg.Lookup(subject, req->type, req->schema, req->references, call.q.deleted);
  if (!found.ok()) {
    if (found.status().code() == StatusCode::kInvalidArgument) {
      return Error(kInvalidSchema, found.status().message());
    }
    return Error(kSchemaNotFound, "Schema not found");
  }
  auto stored = call.reg.GetById(found->id);
  if (!stored.ok()) return Error(kStoreError, stored.status().message());
  nlohmann::json j = SchemaJson(*stored);
  j["subject"] = subject;
  j["version"] = found->version;
  j["id"] = found->id;
  return Reply(200, j);
}

http::HttpResponse DeleteSubject(const Call& call) {
  const std::string& subject = call.Subject();
  auto deleted = call.reg.DeleteSubject(subject, call.q.permanent);
  if (!deleted.ok()) {
    if (deleted.status().code() == StatusCode::kFailedPrecondition) {
      return Error(kSubjectNotSoftDeleted, deleted.status().message());
    }
    if (call.reg.HasSubject(subject, true) && !call.q.permanent) {
      return Error(kSubjectSoftDeleted, deleted.status().message());
    }
    return Error(kSubjectNotFound, deleted.status().message());
  }
  return Reply(200, *deleted);
}

http::HttpResponse ListVersions(const Call& call) {
  auto versions = call.reg.Versions(call.Subject(), call.q.deleted);
  if (!versions.ok()) {
    return Error(kSubjectNotFound, fmt::format("Subject '{}' not found.", call.Subject()));
  }
  return Reply(200, *versions);
}

http::HttpResponse RegisterSchema(const Call& call) {
  auto req = ParseSchemaRequest(call.request.body);
  if (!req.ok()) return Error(kInvalidSchema, req.status().message());
  auto id = call.reg.Register(call.Subject(), req->type, req->schema, req->references);
  if (!id.ok()) return FromStatus(id.status(), kSubjectNotFound);
  return Reply(200, {{"id", *id}});
}

// /subjects/{subject}/versions/{version}[/...]: the version, or the answer when it is not a
// version (42202) or the subject does not exist (40401). Every method's first checks.
std::variant<int32_t, http::HttpResponse> VersionOf(const Call& call) {
  const std::string& text = call.seg[3];
  auto version = ParseVersion(text);
  if (!version) {
    return Error(kInvalidVersion,
                 fmt::format("The specified version '{}' is not a valid version id. Allowed "
                             "values are between [1, 2^31-1] and the string \"latest\"",
                             text));
  }
  if (!call.reg.HasSubject(call.seg[1], true)) {
    return Error(kSubjectNotFound, fmt::format("Subject '{}' not found.", call.seg[1]));
  }
  return *version;
}

// A version's record and schema, for the GETs of a version path.
struct FoundVersion {
  SubjectVersion version;
  StoredSchema schema;
};
std::variant<FoundVersion, http::HttpResponse> GetVersion(const Call& call) {
  auto version = VersionOf(call);
  if (auto* error = std::get_if<http::HttpResponse>(&version)) return std::move(*error);
  const std::string& subject = call.seg[1];
  auto v = call.reg.GetVersion(subject, std::get<int32_t>(version), call.q.deleted);
  if (!v.ok()) {
    if (!call.reg.HasSubject(subject, call.q.deleted)) {
      return Error(kSubjectNotFound, fmt::format("Subject '{}' not found.", subject));
    }
    return Error(kVersionNotFound, v.status().message());
  }
  auto stored = call.reg.GetById(v->id);
  if (!stored.ok()) return Error(kStoreError, stored.status().message());
  return FoundVersion{*v, std::move(*stored)};
}

http::HttpResponse GetSchemaByVersion(const Call& call) {
  auto found = GetVersion(call);
  if (auto* error = std::get_if<http::HttpResponse>(&found)) return std::move(*error);
  const FoundVersion& f = std::get<FoundVersion>(found);
  nlohmann::json j = SchemaJson(f.schema);
  j["subject"] = call.Subject();
  j["version"] = f.version.version;
  j["id"] = f.version.id;
  return Reply(200, j);
}

http::HttpResponse GetSchemaTextByVersion(const Call& call) {
  auto found = GetVersion(call);
  if (auto* error = std::get_if<http::HttpResponse>(&found)) return std::move(*error);
  return SchemaText(std::get<FoundVersion>(found).schema);
}

http::HttpResponse GetReferencedBy(const Call& call) {
  auto found = GetVersion(call);
  if (auto* error = std::get_if<http::HttpResponse>(&found)) return std::move(*error);
  return Reply(200, nlohmann::json::array());
}

http::HttpResponse DeleteVersion(const Call& call) {
  auto version = VersionOf(call);
  if (auto* error = std::get_if<http::HttpResponse>(&version)) return std::move(*error);
  auto deleted =
      call.reg.DeleteVersion(call.Subject(), std::get<int32_t>(version), call.q.permanent);
  if (!deleted.ok()) {
    if (deleted.status().code() == StatusCode::kFailedPrecondition) {
      return Error(kVersionNotSoftDeleted, deleted.status().message());
    }
    return Error(kVersionNotFound, deleted.status().message());
  }
  return Reply(200, *deleted);
}

http::HttpResponse GetConfig(const Call& call) {
  const std::string subject = call.SubjectOrGlobal();
  std::optional<Compatibility> level = call.reg.GetCompatibility(subject);
  if (!level && call.q.default_to_global) level = call.reg.GetCompatibility("");
  if (!level) {
    return Error(
        kCompatibilityNotFound,
        fmt::format("Subject '{}' does not have subject-level compatibility configured", subject));
  }
  return Reply(200, {{"compatibilityLevel", CompatibilityName(*level)}});
}

http::HttpResponse UpdateConfig(const Call& call) {
  nlohmann::json j = ParseJson(call.request.body).value_or(nlohmann::json::value_t::discarded);
  if (j.is_discarded() || !j.is_object() || !j.contains("compatibility") ||
      !j["compatibility"].is_string()) {
    return Error(kInvalidCompatibility, "Invalid compatibility level");
  }
  auto level = ParseCompatibility(j["compatibility"].get<std::string>());
  if (!level.ok()) return Error(kInvalidCompatibility, level.status().message());
  Status st = call.reg.SetCompatibility(call.SubjectOrGlobal(), *level);
  if (!st.ok()) return Error(kStoreError, st.message());
  return Reply(200, {{"compatibility", CompatibilityName(*level)}});
}

http::HttpResponse DeleteConfig(const Call& call) {
  const std::string& subject = call.Subject();
  std::optional<Compatibility> level = call.reg.GetCompatibility(subject);
  Status st = call.reg.DeleteCompatibility(subject);
  if (!st.ok()) return Error(kCompatibilityNotFound, st.message());
  return Reply(200, {{"compatibilityLevel", CompatibilityName(*level)}});
}

http::HttpResponse GetMode(const Call&) { return Reply(200, {{"mode", "READWRITE"}}); }

http::HttpResponse UpdateMode(const Call& call) {
  nlohmann::json j = ParseJson(call.request.body).value_or(nlohmann::json::value_t::discarded);
  if (!j.is_discarded() && j.is_object() && j.contains("mode") && j["mode"] == "READWRITE") {
    return Reply(200, {{"mode", "READWRITE"}});
  }
  return Error(kInvalidMode, "Only the READWRITE mode is supported");
}

// POST /compatibility/subjects/{subject}/versions[/{version}]: without a version, against
// the subject's versions its compatibility level names.
http::HttpResponse TestCompatibility(const Call& call) {
  const std::string& subject = call.Subject();
  int32_t version = -1;
  if (call.seg.size() == 5) {
    auto v = ParseVersion(call.seg[4]);
    if (!v) return Error(kInvalidVersion, fmt::format("Invalid version {}", call.seg[4]));
    version = *v;
    if (version > 0 && !call.reg.HasSubject(subject, false)) {
      return Error(kSubjectNotFound, fmt::format("Subject '{}' not found.", subject));
    }
  }
  auto req = ParseSchemaRequest(call.request.body);
  if (!req.ok()) return Error(kInvalidSchema, req.status().message());
  std::vector<std::string> messages;
  auto ok = call.reg.TestCompatibility(subject, version, req->type, req->schema, req->references,
                                       &messages);
  if (!ok.ok()) return FromStatus(ok.status(), kVersionNotFound);
  nlohmann::json j = {{"is_compatible", *ok}};
  if (call.q.verbose) j["messages"] = messages;
  return Reply(200, j);
}

// The Confluent Schema Registry API's routes that floe answers. Reads are the GETs and the
// two POSTs that only read, a schema lookup and a compatibility test. Nothing is cacheable.
const http::RouteTable<Handler>& Table() {
  using http::Access;
  constexpr Access kRead = Access::kRead;
  constexpr Access kWrite = Access::kWrite;
  static const http::RouteTable<Handler> kTable({
      {{"GET", "/schemas/types", kRead, false, "getSchemaTypes"}, &SchemaTypes},
      {{"GET", "/schemas/ids/{id}", kRead, false, "getSchemaById"}, &GetSchemaById},
      {{"GET", "/schemas/ids/{id}/schema", kRead, false, "getSchemaTextById"}, &GetSchemaTextById},
      {{"GET", "/schemas/ids/{id}/versions", kRead, false, "getVersionsById"}, &UsesOfId},
      {{"GET", "/schemas/ids/{id}/subjects", kRead, false, "getSubjectsById"}, &UsesOfId},
      {{"GET", "/subjects", kRead, false, "listSubjects"}, &ListSubjects},
      {{"POST", "/subjects/{subject}", kRead, false, "lookUpSchemaUnderSubject"}, &LookUpSchema},
      {{"DELETE", "/subjects/{subject}", kWrite, false, "deleteSubject"}, &DeleteSubject},
      {{"GET", "/subjects/{subject}/versions", kRead, false, "listVersions"}, &ListVersions},
      {{"POST", "/subjects/{subject}/versions", kWrite, false, "register"}, &RegisterSchema},
      {{"GET", "/subjects/{subject}/versions/{version}", kRead, false, "getSchemaByVersion"},
       &GetSchemaByVersion},
      {{"DELETE", "/subjects/{subject}/versions/{version}", kWrite, false, "deleteSchemaVersion"},
       &DeleteVersion},
      {{"GET", "/subjects/{subject}/versions/{version}/schema", kRead, false,
        "getSchemaTextByVersion"},
       &GetSchemaTextByVersion},
      {{"GET", "/subjects/{subject}/versions/{version}/referencedby", kRead, false,
        "getReferencedBy"},
       &GetReferencedBy},
      {{"GET", "/config", kRead, false, "getTopLevelConfig"}, &GetConfig},
      {{"PUT", "/config", kWrite, false, "updateTopLevelConfig"}, &UpdateConfig},
      {{"GET", "/config/{subject}", kRead, false, "getSubjectLevelConfig"}, &GetConfig},
      {{"PUT", "/config/{subject}", kWrite, false, "updateSubjectLevelConfig"}, &UpdateConfig},
      {{"DELETE", "/config/{subject}", kWrite, false, "deleteSubjectConfig"}, &DeleteConfig},
      {{"GET", "/mode", kRead, false, "getTopLevelMode"}, &GetMode},
      {{"PUT", "/mode", kWrite, false, "updateTopLevelMode"}, &UpdateMode},
      {{"GET", "/mode/{subject}", kRead, false, "getMode"}, &GetMode},
      {{"PUT", "/mode/{subject}", kWrite, false, "updateMode"}, &UpdateMode},
      {{"POST", "/compatibility/subjects/{subject}/versions", kRead, false,
        "testCompatibilityForSubject"},
       &TestCompatibility},
      {{"POST", "/compatibility/subjects/{subject}/versions/{version}", kRead, false,
        "testCompatibilityBySubjectName"},
       &TestCompatibility},
  });
  return kTable;
}

// A request no route answers, as Confluent's registry answers it: 405 on the paths of the
// subjects, config and mode routes, 404 elsewhere; a version path's own checks (the version,
// the subject, for a GET the version's lookup) come first, as they do for its routes.
http::HttpResponse Unrouted(const Call& call) {
  const std::vector<std::string>& seg = call.seg;
  const std::string& method = call.request.method;
  if (seg[0] == "schemas") {
    if (method == "GET" && seg.size() == 4 && seg[1] == "ids") {
      int32_t id = 0;
      if (auto s = SchemaById(call, &id); !s.ok()) {
        return Error(kSchemaNotFound, s.status().message());
      }
    }
    return NotFound();
  }
  if (seg[0] == "subjects") {
    if (seg.size() <= 2) return MethodNotAllowed();
    if (seg[2] != "versions" || seg.size() > 5) return NotFound();
    if (seg.size() == 3) return MethodNotAllowed();
    if (method != "GET") {
      auto version = VersionOf(call);
      if (auto* error = std::get_if<http::HttpResponse>(&version)) return std::move(*error);
      return MethodNotAllowed();
    }
    auto found = GetVersion(call);
    if (auto* error = std::get_if<http::HttpResponse>(&found)) return std::move(*error);
    return NotFound();
  }
  if ((seg[0] == "config" || seg[0] == "mode") && seg.size() <= 2) return MethodNotAllowed();
  return NotFound();
}

}  // namespace

http::HttpResponse SchemaRegistryApi::ErrorResponse(int error_code, std::string_view message) {
  return Error(error_code, message);
}

std::span<const http::RouteInfo> SchemaRegistryApi::Routes() { return Table().infos(); }

bool SchemaRegistryApi::Writes(const http::HttpRequest& request) {
  const std::string& method = request.method;
  auto split = http::SplitPath(request.path);
  // An unparsable path is answered 404 without touching anything; counting it as a write
  // still refuses it to readers, which tells them nothing more.
  if (!split.ok()) return method != "GET" && method != "HEAD" && method != "OPTIONS";
  const std::vector<std::string>& seg = *split;
  auto found = Table().Find(method, seg);
  if (found.route != nullptr) return found.route->info.access == http::Access::kWrite;
  // Requests no route answers (404 or 405, nothing touched) need what they needed before
  // the table: reads for GET, HEAD and OPTIONS and for POSTs under /compatibility.
  if (method == "GET" || method == "HEAD" || method == "OPTIONS") return false;
  return !(method == "POST" && !seg.empty() && seg[0] == "compatibility");
}

http::HttpResponse SchemaRegistryApi::Handle(const http::HttpRequest& request) const {
  try {
    return Route(request);
  } catch (const nlohmann::json::exception&) {
    // A body field of the wrong type or missing, read with nlohmann's throwing accessors.
    return Error(kInvalidSchema,
                 "malformed request: a field has the wrong JSON type or is missing");
  }
}

http::HttpResponse SchemaRegistryApi::Route(const http::HttpRequest& request) const {
  auto split = http::SplitPath(request.path);
  if (!split.ok()) return Error(404, "bad path");
  const std::vector<std::string>& seg = *split;
  // The root answers any method: clients probe it.
  if (seg.empty()) return Reply(200, nlohmann::json::object());
  auto found = Table().Find(request.method, seg);
  Call call{request, seg, ParseQueryFlags(request.query), std::move(found.params), *registry_};
  if (found.route == nullptr) return Unrouted(call);
  return found.route->handler(call);
}

}  // namespace floe::ingest
