#include "floe/ingest/schema_registry_api.h"

#include <charconv>

#include <nlohmann/json.hpp>

#include "floe/base/json.h"

namespace floe::ingest {

namespace {

constexpr std::string_view kContentType = "application/vnd.schemaregistry.v1+json";

// Confluent's error codes (io.confluent.kafka.schemaregistry.rest.exceptions).
constexpr int kSubjectNotFound = 40401;
constexpr int kVersionNotFound = 40402;
constexpr int kSchemaNotFound = 40403;
constexpr int kSubjectSoftDeleted = 40404;
constexpr int kSubjectNotSoftDeleted = 40405;
constexpr int kVersionNotSoftDeleted = 40407;
constexpr int kCompatibilityNotFound = 40408;
constexpr int kIncompatible = 409;
constexpr int kInvalidSchema = 42201;
constexpr int kInvalidVersion = 42202;
constexpr int kInvalidCompatibility = 42203;
constexpr int kInternal = 50001;  // Confluent's store error
// Nothing was stored for want of space (HTTP 507, as the REST catalog answers).
constexpr int kInsufficientStorage = 50701;

http::HttpResponse Reply(int status, const nlohmann::json& body) {
  http::HttpResponse r = http::HttpResponse::Json(status, body.dump());
  r.content_type = std::string(kContentType);
  return r;
}

http::HttpResponse Error(int code, std::string_view message) {
  const int status = code < 1000 ? code : code / 100;
  return Reply(status, {{"error_code", code}, {"message", message}});
}

http::HttpResponse FromStatus(const Status& st, int not_found_code) {
  switch (st.code()) {
    case StatusCode::kNotFound: return Error(not_found_code, st.message());
    case StatusCode::kInvalidArgument: return Error(kInvalidSchema, st.message());
    case StatusCode::kConflict: return Error(kIncompatible, st.message());
    case StatusCode::kResourceExhausted: return Error(kInsufficientStorage, st.message());
    default: return Error(kInternal, st.message());
  }
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

}  // namespace

http::HttpResponse SchemaRegistryApi::ErrorResponse(int error_code, std::string_view message) {
  return Error(error_code, message);
}

bool SchemaRegistryApi::Writes(const http::HttpRequest& request) {
  const std::string& method = request.method;
  if (method == "GET" || method == "HEAD" || method == "OPTIONS") return false;
  if (method != "POST") return true;
  auto split = http::SplitPath(request.path);
  // An unparsable path is answered 404 without touching anything; counting it as a write
  // still refuses it to readers, which tells them nothing more.
  if (!split.ok() || split->empty()) return true;
  const std::vector<std::string>& seg = *split;
  if (seg[0] == "subjects" && seg.size() == 2) return false;  // lookup
  if (seg[0] == "compatibility") return false;                // compatibility test
  return true;
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
  const std::string& method = request.method;
  const Query q = ParseQueryFlags(request.query);
  SchemaRegistry& reg = *registry_;

  if (seg.empty()) return Reply(200, nlohmann::json::object());

  // /schemas/types, /schemas/ids/{id}[/schema|/versions|/subjects]
  if (seg[0] == "schemas" && method == "GET") {
    if (seg.size() == 2 && seg[1] == "types") {
      return Reply(200, nlohmann::json::array({"JSON", "PROTOBUF", "AVRO"}));
    }
    if (seg.size() >= 3 && seg.size() <= 4 && seg[1] == "ids") {
      int32_t id = 0;
      auto [p, ec] = std::from_chars(seg[2].data(), seg[2].data() + seg[2].size(), id);
      if (ec != std::errc() || p != seg[2].data() + seg[2].size()) {
        return Error(kSchemaNotFound, "Schema " + seg[2] + " not found");
      }
      auto s = reg.GetById(id);
      if (!s.ok()) return Error(kSchemaNotFound, fmt::format("Schema {} not found", id));
      if (seg.size() == 3) return Reply(200, SchemaJson(*s));
      if (seg[3] == "schema") {
        http::HttpResponse r = http::HttpResponse::Json(200, s->schema);
        r.content_type = std::string(kContentType);
        return r;
      }
      if (seg[3] == "versions" || seg[3] == "subjects") {
        nlohmann::json out = nlohmann::json::array();
        for (const SubjectVersion& v : reg.VersionsOfId(id)) {
          if (seg[3] == "versions") {
            out.push_back({{"subject", v.subject}, {"version", v.version}});
          } else {
            out.push_back(v.subject);
          }
        }
        return Reply(200, out);
      }
    }
    return Error(404, "Not found");
  }

  if (seg[0] == "subjects") {
    if (seg.size() == 1) {
      if (method != "GET") return Error(405, "Method not allowed");
      return Reply(200, reg.Subjects(q.deleted));
    }
    const std::string& subject = seg[1];
    if (seg.size() == 2) {
      if (method == "POST") {  // lookup
        auto req = ParseSchemaRequest(request.body);
        if (!req.ok()) return Error(kInvalidSchema, req.status().message());
        if (!reg.HasSubject(subject, q.deleted)) {
          return Error(kSubjectNotFound, fmt::format("Subject '{}' not found.", subject));
        }
        auto found = reg.Lookup(subject, req->type, req->schema, req->references, q.deleted);
        if (!found.ok()) {
          if (found.status().code() == StatusCode::kInvalidArgument) {
            return Error(kInvalidSchema, found.status().message());
          }
          return Error(kSchemaNotFound, "Schema not found");
        }
        auto stored = reg.GetById(found->id);
        if (!stored.ok()) return Error(kInternal, stored.status().message());
        nlohmann::json j = SchemaJson(*stored);
        j["subject"] = subject;
        j["version"] = found->version;
        j["id"] = found->id;
        return Reply(200, j);
      }
      if (method == "DELETE") {
        auto deleted = reg.DeleteSubject(subject, q.permanent);
        if (!deleted.ok()) {
          if (deleted.status().code() == StatusCode::kFailedPrecondition) {
            return Error(kSubjectNotSoftDeleted, deleted.status().message());
          }
          if (reg.HasSubject(subject, true) && !q.permanent) {
            return Error(kSubjectSoftDeleted, deleted.status().message());
          }
          return Error(kSubjectNotFound, deleted.status().message());
        }
        return Reply(200, *deleted);
      }
      return Error(405, "Method not allowed");
    }
    if (seg[2] != "versions" || seg.size() > 5) return Error(404, "Not found");
    if (seg.size() == 3) {
      if (method == "GET") {
        auto versions = reg.Versions(subject, q.deleted);
        if (!versions.ok()) {
          return Error(kSubjectNotFound, fmt::format("Subject '{}' not found.", subject));
        }
        return Reply(200, *versions);
      }
      if (method == "POST") {
        auto req = ParseSchemaRequest(request.body);
        if (!req.ok()) return Error(kInvalidSchema, req.status().message());
        auto id = reg.Register(subject, req->type, req->schema, req->references);
        if (!id.ok()) return FromStatus(id.status(), kSubjectNotFound);
        return Reply(200, {{"id", *id}});
      }
      return Error(405, "Method not allowed");
    }
    auto version = ParseVersion(seg[3]);
    if (!version) {
      return Error(kInvalidVersion,
                   fmt::format("The specified version '{}' is not a valid version id. Allowed "
                               "values are between [1, 2^31-1] and the string \"latest\"",
                               seg[3]));
    }
    if (!reg.HasSubject(subject, true)) {
      return Error(kSubjectNotFound, fmt::format("Subject '{}' not found.", subject));
    }
    if (method == "DELETE" && seg.size() == 4) {
      auto deleted = reg.DeleteVersion(subject, *version, q.permanent);
      if (!deleted.ok()) {
        if (deleted.status().code() == StatusCode::kFailedPrecondition) {
          return Error(kVersionNotSoftDeleted, deleted.status().message());
        }
        return Error(kVersionNotFound, deleted.status().message());
      }
      return Reply(200, *deleted);
    }
    if (method != "GET") return Error(405, "Method not allowed");
    auto v = reg.GetVersion(subject, *version, q.deleted);
    if (!v.ok()) {
      if (!reg.HasSubject(subject, q.deleted)) {
        return Error(kSubjectNotFound, fmt::format("Subject '{}' not found.", subject));
      }
      return Error(kVersionNotFound, v.status().message());
    }
    auto stored = reg.GetById(v->id);
    if (!stored.ok()) return Error(kInternal, stored.status().message());
    if (seg.size() == 5) {
      if (seg[4] == "schema") {
        http::HttpResponse r = http::HttpResponse::Json(200, stored->schema);
        r.content_type = std::string(kContentType);
        return r;
      }
      if (seg[4] == "referencedby") return Reply(200, nlohmann::json::array());
      return Error(404, "Not found");
    }
    nlohmann::json j = SchemaJson(*stored);
    j["subject"] = subject;
    j["version"] = v->version;
    j["id"] = v->id;
    return Reply(200, j);
  }

  if (seg[0] == "config" && seg.size() <= 2) {
    const std::string subject = seg.size() == 2 ? seg[1] : std::string();
    if (method == "GET") {
      std::optional<Compatibility> level = reg.GetCompatibility(subject);
      if (!level && q.default_to_global) level = reg.GetCompatibility("");
      if (!level) {
        return Error(kCompatibilityNotFound,
                     fmt::format("Subject '{}' does not have subject-level compatibility "
                                 "configured",
                                 subject));
      }
      return Reply(200, {{"compatibilityLevel", CompatibilityName(*level)}});
    }
    if (method == "PUT") {
      nlohmann::json j = ParseJson(request.body).value_or(nlohmann::json::value_t::discarded);
      if (j.is_discarded() || !j.is_object() || !j.contains("compatibility") ||
          !j["compatibility"].is_string()) {
        return Error(kInvalidCompatibility, "Invalid compatibility level");
      }
      auto level = ParseCompatibility(j["compatibility"].get<std::string>());
      if (!level.ok()) return Error(kInvalidCompatibility, level.status().message());
      Status st = reg.SetCompatibility(subject, *level);
      if (!st.ok()) return Error(kInternal, st.message());
      return Reply(200, {{"compatibility", CompatibilityName(*level)}});
    }
    if (method == "DELETE" && !subject.empty()) {
      std::optional<Compatibility> level = reg.GetCompatibility(subject);
      Status st = reg.DeleteCompatibility(subject);
      if (!st.ok()) return Error(kCompatibilityNotFound, st.message());
      return Reply(200, {{"compatibilityLevel", CompatibilityName(*level)}});
    }
    return Error(405, "Method not allowed");
  }

  if (seg[0] == "mode" && seg.size() <= 2) {
    if (method == "GET") return Reply(200, {{"mode", "READWRITE"}});
    if (method == "PUT") {
      nlohmann::json j = ParseJson(request.body).value_or(nlohmann::json::value_t::discarded);
      if (!j.is_discarded() && j.is_object() && j.contains("mode") && j["mode"] == "READWRITE") {
        return Reply(200, {{"mode", "READWRITE"}});
      }
      return Error(42204, "Only the READWRITE mode is supported");
    }
    return Error(405, "Method not allowed");
  }

  // POST /compatibility/subjects/{s}/versions[/{v}]
  if (seg[0] == "compatibility" && seg.size() >= 4 && seg.size() <= 5 && seg[1] == "subjects" &&
      seg[3] == "versions" && method == "POST") {
    const std::string& subject = seg[2];
    int32_t version = -1;
    if (seg.size() == 5) {
      auto v = ParseVersion(seg[4]);
      if (!v) return Error(kInvalidVersion, fmt::format("Invalid version {}", seg[4]));
      version = *v;
      if (version > 0 && !reg.HasSubject(subject, false)) {
        return Error(kSubjectNotFound, fmt::format("Subject '{}' not found.", subject));
      }
    }
    auto req = ParseSchemaRequest(request.body);
    if (!req.ok()) return Error(kInvalidSchema, req.status().message());
    std::vector<std::string> messages;
    auto ok =
        reg.TestCompatibility(subject, version, req->type, req->schema, req->references, &messages);
    if (!ok.ok()) return FromStatus(ok.status(), kVersionNotFound);
    nlohmann::json j = {{"is_compatible", *ok}};
    if (q.verbose) j["messages"] = messages;
    return Reply(200, j);
  }
  return Error(404, "Not found");
}

}  // namespace floe::ingest
