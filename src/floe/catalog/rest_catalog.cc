#include "floe/catalog/rest_catalog.h"

#include <algorithm>
#include <cstdlib>
#include <utility>

#include <nlohmann/json.hpp>

#include "floe/base/json.h"
#include "floe/base/macros.h"
#include "floe/io/local_file_io.h"

namespace floe::catalog {

namespace {

using Json = nlohmann::ordered_json;
using ErrorContext = RestCatalog::ErrorContext;

// Routes below /v1/{prefix}/, as the server's `endpoints` name them.
constexpr std::string_view kNamespaces = "namespaces";
constexpr std::string_view kNamespace = "namespaces/{namespace}";
constexpr std::string_view kNamespaceProperties = "namespaces/{namespace}/properties";
constexpr std::string_view kTables = "namespaces/{namespace}/tables";
constexpr std::string_view kTable = "namespaces/{namespace}/tables/{table}";
constexpr std::string_view kRegister = "namespaces/{namespace}/register";
constexpr std::string_view kRename = "tables/rename";

// What a client may assume when /v1/config lists no endpoints (Java Endpoint defaults;
// iceberg.md §2.2): no HEAD routes.
bool DefaultEndpoint(std::string_view method, std::string_view route) {
  if (method == "HEAD") return false;
  if (route == kNamespaces) return method == "GET" || method == "POST";
  if (route == kNamespace) return method == "GET" || method == "DELETE";
  if (route == kNamespaceProperties || route == kRegister || route == kRename) {
    return method == "POST";
  }
  if (route == kTables) return method == "GET" || method == "POST";
  if (route == kTable) return method == "GET" || method == "POST" || method == "DELETE";
  return false;
}

// Compact JSON text; invalid UTF-8 (from a user's argument) is replaced, never thrown on.
std::string Dump(const Json& json) {
  return json.dump(-1, ' ', false, nlohmann::detail::error_handler_t::replace);
}

const Json* Member(const Json& obj, const std::string& key) {
  if (!obj.is_object()) return nullptr;
  auto it = obj.find(key);
  if (it == obj.end() || it->is_null()) return nullptr;
  return &*it;
}

Result<Json> ParseObject(std::string_view text, std::string_view what) {
  // The stored-document limit: a response holds table metadata one level down.
  Result<Json> json = ParseOrderedJson(text, kMaxStoredJsonDepth);
  if (!json.ok()) {
    return Status::Corrupt("REST {}: the response is not a JSON object: {}", what,
                           json.status().message());
  }
  if (!json->is_object()) {
    return Status::Corrupt("REST {}: the response is not a JSON object", what);
  }
  return json;
}

Result<std::string> StringMember(const Json& obj, const std::string& key, std::string_view what) {
  const Json* v = Member(obj, key);
  if (v == nullptr || !v->is_string()) {
    return Status::Corrupt("REST {}: missing string '{}'", what, key);
  }
  return v->get<std::string>();
}

// An absent or null member is an empty list.
Result<std::vector<std::string>> StringList(const Json& obj, const std::string& key,
                                            std::string_view what) {
  std::vector<std::string> out;
  const Json* v = Member(obj, key);
  if (v == nullptr) return out;
  if (!v->is_array()) return Status::Corrupt("REST {}: '{}' is not a list", what, key);
  for (const Json& item : *v) {
    if (!item.is_string()) return Status::Corrupt("REST {}: '{}' holds a non-string", what, key);
    out.push_back(item.get<std::string>());
  }
  return out;
}

// An absent or null member is an empty map.
Result<Properties> StringMap(const Json& obj, const std::string& key, std::string_view what) {
  Properties out;
  const Json* v = Member(obj, key);
  if (v == nullptr) return out;
  if (!v->is_object()) return Status::Corrupt("REST {}: '{}' is not an object", what, key);
  for (const auto& [k, value] : v->items()) {
    if (value.is_string()) {
      out[k] = value.get<std::string>();
    } else if (!value.is_null()) {
      return Status::Corrupt("REST {}: '{}' of '{}' is not a string", what, k, key);
    }
  }
  return out;
}

Result<Namespace> NamespaceFromJson(const Json& v, std::string_view what) {
  if (!v.is_array()) return Status::Corrupt("REST {}: a namespace is not a list", what);
  Namespace ns;
  for (const Json& level : v) {
    if (!level.is_string()) {
      return Status::Corrupt("REST {}: a namespace level is not a string", what);
    }
    ns.levels.push_back(level.get<std::string>());
  }
  return ns;
}

Json IdentifierJson(const TableIdentifier& id) {
  Json j = Json::object();
  j["namespace"] = id.ns.levels;
  j["name"] = id.name;
  return j;
}

// The metadata of a LoadTableResult ({metadata-location, metadata, config?}).
Result<iceberg::TableMetadataPtr> MetadataFromLoadResult(const http::ClientResponse& response,
                                                         std::string_view what) {
  FLOE_ASSIGN_OR_RETURN(Json json, ParseObject(response.body, what));
  const Json* metadata = Member(json, "metadata");
  if (metadata == nullptr || !metadata->is_object()) {
    return Status::Corrupt("REST {}: the response has no table metadata", what);
  }
  auto parsed = iceberg::TableMetadataFromJson(Dump(*metadata));
  if (!parsed.ok()) return parsed.status().WithContext("REST {}", what);
  if (const Json* location = Member(json, "metadata-location"); location && location->is_string()) {
    parsed->metadata_file_location = location->get<std::string>();
  }
  return std::make_shared<const iceberg::TableMetadata>(std::move(*parsed));
}

void AppendQuery(std::string& url, std::string_view key, std::string_view encoded_value) {
  url += url.find('?') == std::string::npos ? '?' : '&';
  url += key;
  url += '=';
  url += encoded_value;
}

std::optional<std::string> Find(const Properties& properties, const std::string& key) {
  auto it = properties.find(key);
  if (it == properties.end() || it->second.empty()) return std::nullopt;
  return it->second;
}

}  // namespace

// A table of the catalog: Refresh is a (conditional) GET, Commit one POST.
class RestTableOperations final : public iceberg::TableOperations {
 public:
  RestTableOperations(RestCatalog* catalog, TableIdentifier id, iceberg::TableMetadataPtr current,
                      std::string etag)
      : catalog_(catalog),
        id_(std::move(id)),
        name_(id_.ToString()),
        current_(std::move(current)),
        etag_(std::move(etag)) {}

  const std::string& name() const override { return name_; }
  io::FileIO& io() override { return catalog_->io(); }
  iceberg::CommitEnvironment& env() override { return catalog_->env(); }

  Result<iceberg::TableMetadataPtr> Refresh() override {
    http::HttpHeaders conditional;
    if (current_ && !etag_.empty()) conditional.emplace_back("If-None-Match", etag_);
    FLOE_ASSIGN_OR_RETURN(http::ClientResponse response,
                          catalog_->Call("GET", catalog_->Url(catalog_->TablePath(id_)), "",
                                         ErrorContext::kDefault, conditional));
    if (response.status == 304 && current_) return current_;
    FLOE_ASSIGN_OR_RETURN(current_, MetadataFromLoadResult(response, "load table " + name_));
    etag_ = std::string(response.Header("etag").value_or(""));
    return current_;
  }

  // One POST of the CommitTableRequest: the server validates the requirements, applies the
  // updates and swaps the pointer (and retries lost swaps itself).
  Result<iceberg::TableMetadataPtr> Commit(
      const std::vector<iceberg::TableRequirement>& requirements,
      const std::vector<iceberg::TableUpdate>& updates) override {
    iceberg::CommitTableRequest request{requirements, updates};
    auto response =
        catalog_->Call("POST", catalog_->Url(catalog_->TablePath(id_)),
                       iceberg::CommitTableRequestToJson(request), ErrorContext::kCommit);
    if (!response.ok()) return response.status().WithContext("commit to {}", name_);
    // Committed: a response we cannot read still leaves the outcome (for us) unknown.
    auto committed = MetadataFromLoadResult(*response, "commit to " + name_);
    if (!committed.ok()) {
      return Status(StatusCode::kUnavailable,
                    "commit state unknown: " + std::string(committed.status().message()));
    }
    current_ = std::move(*committed);
    etag_ = std::string(response->Header("etag").value_or(""));
    return current_;
  }

 private:
  RestCatalog* catalog_;
  TableIdentifier id_;
  std::string name_;
  iceberg::TableMetadataPtr current_;
  std::string etag_;
};

Result<RestUri> ParseRestUri(std::string_view uri) {
  if (!uri.starts_with("rest:")) {
    return Status::InvalidArgument("not a REST catalog URI (rest:http://host:port)");
  }
  std::string_view rest = uri.substr(5);
  size_t scheme_end = rest.find("://");
  if (scheme_end == std::string_view::npos ||
      (rest.substr(0, scheme_end) != "http" && rest.substr(0, scheme_end) != "https")) {
    return Status::InvalidArgument("REST catalog URI must be rest:http://... or rest:https://...");
  }
  RestUri out;
  std::string_view query;
  if (size_t q = rest.find('?'); q != std::string_view::npos) {
    query = rest.substr(q + 1);
    rest = rest.substr(0, q);
  }
  if (rest.find('#') != std::string_view::npos) {
    return Status::InvalidArgument("REST catalog URI must not have a fragment");
  }
  std::string_view authority = rest.substr(scheme_end + 3);
  authority = authority.substr(0, authority.find('/'));
  if (authority.empty()) return Status::InvalidArgument("REST catalog URI has no host");
  if (authority.find('@') != std::string_view::npos) {
    return Status::InvalidArgument(
        "REST catalog URI must not carry credentials in the host part; use ?token= or "
        "?credential=");
  }
  while (rest.ends_with('/')) rest.remove_suffix(1);
  out.base_url = std::string(rest);
  for (std::string_view pair = query; !pair.empty();) {
    std::string_view part = pair.substr(0, pair.find('&'));
    pair = part.size() == pair.size() ? std::string_view() : pair.substr(part.size() + 1);
    if (!part.empty() && (part.find('=') == std::string_view::npos || part.front() == '=')) {
      return Status::InvalidArgument("REST catalog URI: query parameter without a key=value");
    }
  }
  auto parsed = http::ParseQuery(query);
  if (!parsed.ok()) {
    return Status::InvalidArgument("bad percent escape in catalog URI query");
  }
  for (auto& [key, value] : *parsed) out.properties[std::move(key)] = std::move(value);
  return out;
}

std::string EncodeNamespace(const Namespace& ns, std::string_view separator) {
  std::string out;
  for (size_t i = 0; i < ns.levels.size(); ++i) {
    if (i > 0) out += separator;
    out += http::PercentEncode(ns.levels[i]);
  }
  return out;
}

Status RestError(int http_status, std::string_view body, ErrorContext context) {
  std::string type;
  std::string message;
  Json json = ParseOrderedJson(body).value_or(Json());
  if (json.is_object()) {
    const Json* error = Member(json, "error");
    if (error != nullptr && error->is_object()) {
      if (const Json* t = Member(*error, "type"); t && t->is_string()) type = t->get<std::string>();
      if (const Json* m = Member(*error, "message"); m && m->is_string()) {
        message = m->get<std::string>();
      }
    } else if (error != nullptr && error->is_string()) {  // OAuth2 error response
      type = error->get<std::string>();
      if (const Json* d = Member(json, "error_description"); d && d->is_string()) {
        message = d->get<std::string>();
      }
    }
  } else if (!body.empty()) {
    message = std::string(body.substr(0, 200));
  }
  // "<message> (<type>, HTTP <status>)", or as much of it as the server sent.
  std::string text;
  if (message.empty()) {
    text = type.empty() ? fmt::format("HTTP {}", http_status)
                        : fmt::format("{} (HTTP {})", type, http_status);
  } else {
    text = type.empty() ? fmt::format("{} (HTTP {})", message, http_status)
                        : fmt::format("{} ({}, HTTP {})", message, type, http_status);
  }

  if (context == ErrorContext::kCommit && http_status >= 500) {
    // Java RESTTableOperations: the server may have committed; never clean up.
    return Status(http_status == 504 ? StatusCode::kDeadlineExceeded : StatusCode::kUnavailable,
                  "commit state unknown: " + text);
  }
  if (type == "NamespaceNotEmptyException") return Status(StatusCode::kFailedPrecondition, text);
  if (type == "CommitFailedException") return Status(StatusCode::kConflict, text);
  if (type == "CommitStateUnknownException") {
    return Status(StatusCode::kUnavailable, "commit state unknown: " + text);
  }
  if (type.starts_with("NoSuch") && type.ends_with("Exception")) {
    return Status(StatusCode::kNotFound, text);
  }
  if (type == "AlreadyExistsException") return Status(StatusCode::kAlreadyExists, text);
  switch (http_status) {
    case 400:
    case 422: return Status(StatusCode::kInvalidArgument, text);
    case 401:
    case 419: return Status(StatusCode::kUnauthenticated, text);
    case 403: return Status(StatusCode::kPermissionDenied, text);
    case 404: return Status(StatusCode::kNotFound, text);
    case 406: return Status(StatusCode::kUnimplemented, text);
    case 409:
      return Status(
          context == ErrorContext::kCommit ? StatusCode::kConflict : StatusCode::kAlreadyExists,
          text);
    case 504: return Status(StatusCode::kDeadlineExceeded, text);
    default: break;
  }
  if (http_status >= 500) return Status(StatusCode::kUnavailable, text);
  if (http_status >= 400) return Status(StatusCode::kInvalidArgument, text);
  return Status(StatusCode::kIOError, "unexpected response: " + text);
}

RestCatalog::RestCatalog(std::string base_url, CatalogOptions options,
                         std::unique_ptr<http::HttpClient> http)
    : name_(std::move(options.name)),
      base_url_(std::move(base_url)),
      io_(options.io ? std::move(options.io) : std::make_unique<io::LocalFileIO>()),
      env_(options.env ? std::move(options.env) : iceberg::MakeSystemCommitEnvironment()),
      http_(std::move(http)) {}

Result<std::unique_ptr<RestCatalog>> RestCatalog::Open(std::string_view uri,
                                                       CatalogOptions options) {
  FLOE_ASSIGN_OR_RETURN(RestUri parsed, ParseRestUri(uri));
  Properties client = std::move(parsed.properties);
  // The environment is read here, at the edge, and only for what the URI leaves out.
  if (!client.contains("token") && !client.contains("credential")) {
    if (const char* token = std::getenv("FLOE_REST_TOKEN"); token && *token) {
      client["token"] = token;
    } else if (const char* credential = std::getenv("FLOE_REST_CREDENTIAL");
               credential && *credential) {
      client["credential"] = credential;
    }
  }
  if (!client.contains("warehouse") && !options.name.empty()) client["warehouse"] = options.name;
  FLOE_ASSIGN_OR_RETURN(LocationPolicy policy,
                        LocationPolicy::Make(options.name, {}, options.allowed_locations));
  FLOE_ASSIGN_OR_RETURN(auto http, http::HttpClient::Make());
  auto catalog = std::unique_ptr<RestCatalog>(
      new RestCatalog(std::move(parsed.base_url), std::move(options), std::move(http)));
  catalog->policy_ = std::move(policy);
  FLOE_RETURN_IF_ERROR(catalog->Authenticate(client));
  FLOE_RETURN_IF_ERROR(catalog->FetchConfig(client));
  return catalog;
}

// Java OAuth2Util: a static token is used as is; a credential is exchanged once with the
// client_credentials grant (form-encoded) before /v1/config.
Status RestCatalog::Authenticate(const Properties& client) {
  for (const auto& [key, value] : client) {
    if (key.starts_with("header.") && key.size() > 7) headers_.emplace_back(key.substr(7), value);
  }
  if (auto token = Find(client, "token")) {
    headers_.emplace_back("Authorization", "Bearer " + *token);
    return Status::OK();
  }
  auto credential = Find(client, "credential");
  if (!credential) return Status::OK();
  std::vector<std::pair<std::string, std::string>> form = {{"grant_type", "client_credentials"}};
  if (size_t colon = credential->find(':'); colon != std::string::npos) {
    form.emplace_back("client_id", credential->substr(0, colon));
    form.emplace_back("client_secret", credential->substr(colon + 1));
  } else {
    form.emplace_back("client_secret", *credential);
  }
  form.emplace_back("scope", Find(client, "scope").value_or("catalog"));
  http::ClientRequest request;
  request.method = "POST";
  request.url = Find(client, "oauth2-server-uri").value_or(base_url_ + "/v1/oauth/tokens");
  request.headers = headers_;
  request.headers.emplace_back("Content-Type", "application/x-www-form-urlencoded");
  request.headers.emplace_back("Accept", "application/json");
  request.body = http::FormEncode(form);
  auto response = http_->Send(request);
  if (!response.ok()) return response.status().WithContext("REST token request");
  if (response->status < 200 || response->status >= 300) {
    Status error = RestError(response->status, response->body, ErrorContext::kDefault);
    if (response->status >= 400 && response->status < 500) {
      return Status(StatusCode::kUnauthenticated,
                    "REST token request failed: " + std::string(error.message()));
    }
    return error.WithContext("REST token request");
  }
  FLOE_ASSIGN_OR_RETURN(Json json, ParseObject(response->body, "token request"));
  FLOE_ASSIGN_OR_RETURN(std::string token, StringMember(json, "access_token", "token request"));
  headers_.emplace_back("Authorization", "Bearer " + token);
  return Status::OK();
}

Status RestCatalog::FetchConfig(const Properties& client) {
  std::string url = base_url_ + "/v1/config";
  if (auto warehouse = Find(client, "warehouse")) {
    AppendQuery(url, "warehouse", http::PercentEncode(*warehouse));
  }
  FLOE_ASSIGN_OR_RETURN(http::ClientResponse response,
                        Call("GET", url, "", ErrorContext::kDefault));
  FLOE_ASSIGN_OR_RETURN(Json json, ParseObject(response.body, "config"));
  FLOE_ASSIGN_OR_RETURN(Properties defaults, StringMap(json, "defaults", "config"));
  FLOE_ASSIGN_OR_RETURN(Properties overrides, StringMap(json, "overrides", "config"));
  properties_ = std::move(defaults);
  for (const auto& [key, value] : client) properties_[key] = value;
  for (auto& [key, value] : overrides) properties_[key] = std::move(value);
  // Secrets are used above and not kept where callers may print them.
  properties_.erase("token");
  properties_.erase("credential");

  if (Member(json, "endpoints") != nullptr) {
    FLOE_ASSIGN_OR_RETURN(std::vector<std::string> list, StringList(json, "endpoints", "config"));
    endpoints_ = std::set<std::string>(list.begin(), list.end());
    endpoints_listed_ = true;
  }
  if (auto prefix = Find(properties_, "prefix")) {
    std::string_view p = *prefix;
    while (p.starts_with('/')) p.remove_prefix(1);
    while (p.ends_with('/')) p.remove_suffix(1);
    prefix_ = p.empty() ? "" : std::string(p) + "/";
  }
  if (auto separator = Find(properties_, "namespace-separator")) separator_ = *separator;
  if (auto page_size = Find(properties_, "rest-page-size")) page_size_ = *page_size;
  // Headers named by the server's defaults or overrides, unless the client set them.
  for (const auto& [key, value] : properties_) {
    if (!key.starts_with("header.") || key.size() <= 7) continue;
    std::string name = key.substr(7);
    bool present = std::any_of(headers_.begin(), headers_.end(),
                               [&](const auto& h) { return h.first == name; });
    if (!present) headers_.emplace_back(std::move(name), value);
  }
  return Status::OK();
}

Result<http::ClientResponse> RestCatalog::Call(std::string_view method, const std::string& url,
                                               std::string body, ErrorContext context,
                                               const http::HttpHeaders& extra_headers) {
  http::ClientRequest request;
  request.method = std::string(method);
  request.url = url;
  request.headers = headers_;
  request.headers.insert(request.headers.end(), extra_headers.begin(), extra_headers.end());
  request.headers.emplace_back("Accept", "application/json");
  if (!body.empty()) request.headers.emplace_back("Content-Type", "application/json");
  request.body = std::move(body);
  FLOE_ASSIGN_OR_RETURN(http::ClientResponse response, http_->Send(request));
  if ((response.status >= 200 && response.status < 300) || response.status == 304) {
    return response;
  }
  return RestError(response.status, response.body, context);
}

std::string RestCatalog::Url(std::string_view path) const {
  return base_url_ + "/v1/" + prefix_ + std::string(path);
}

std::string RestCatalog::NamespacePath(const Namespace& ns) const {
  return "namespaces/" + EncodeNamespace(ns, separator_);
}

std::string RestCatalog::TablePath(const TableIdentifier& id) const {
  return NamespacePath(id.ns) + "/tables/" + http::PercentEncode(id.name);
}

bool RestCatalog::Supports(std::string_view method, std::string_view route) const {
  if (!endpoints_listed_) return DefaultEndpoint(method, route);
  return endpoints_.contains(fmt::format("{} /v1/{{prefix}}/{}", method, route));
}

Status RestCatalog::Require(std::string_view method, std::string_view route) const {
  if (Supports(method, route)) return Status::OK();
  return Status::Unimplemented("the REST catalog server does not support {} /v1/{{prefix}}/{}",
                               method, route);
}

Result<std::vector<Namespace>> RestCatalog::ListNamespaces(const Namespace& parent) {
  FLOE_RETURN_IF_ERROR(Require("GET", kNamespaces));
  std::vector<Namespace> out;
  std::string token;  // the first request sends an empty pageToken (iceberg.md §2.6)
  while (true) {
    std::string url = Url(kNamespaces);
    if (!parent.empty()) AppendQuery(url, "parent", EncodeNamespace(parent, separator_));
    AppendQuery(url, "pageToken", http::PercentEncode(token));
    if (!page_size_.empty()) AppendQuery(url, "pageSize", http::PercentEncode(page_size_));
    FLOE_ASSIGN_OR_RETURN(http::ClientResponse response,
                          Call("GET", url, "", ErrorContext::kDefault));
    FLOE_ASSIGN_OR_RETURN(Json json, ParseObject(response.body, "list namespaces"));
    if (const Json* list = Member(json, "namespaces")) {
      if (!list->is_array()) return Status::Corrupt("REST list namespaces: not a list");
      for (const Json& ns : *list) {
        FLOE_ASSIGN_OR_RETURN(Namespace n, NamespaceFromJson(ns, "list namespaces"));
        out.push_back(std::move(n));
      }
    }
    const Json* next = Member(json, "next-page-token");
    if (next == nullptr || !next->is_string() || next->get<std::string>().empty()) break;
    if (next->get<std::string>() == token) {
      return Status::Corrupt("REST list namespaces: the server repeats page token '{}'", token);
    }
    token = next->get<std::string>();
  }
  std::sort(out.begin(), out.end());
  return out;
}

Status RestCatalog::CreateNamespace(const Namespace& ns, const Properties& properties) {
  FLOE_RETURN_IF_ERROR(Require("POST", kNamespaces));
  Json body = Json::object();
  body["namespace"] = ns.levels;
  body["properties"] = properties;
  return Call("POST", Url(kNamespaces), Dump(body), ErrorContext::kDefault).status();
}

Result<bool> RestCatalog::NamespaceExists(const Namespace& ns) {
  bool head = Supports("HEAD", kNamespace);
  if (!head) FLOE_RETURN_IF_ERROR(Require("GET", kNamespace));
  auto response = Call(head ? "HEAD" : "GET", Url(NamespacePath(ns)), "", ErrorContext::kDefault);
  if (response.ok()) return true;
  if (response.status().code() == StatusCode::kNotFound) return false;
  return response.status();
}

Result<Properties> RestCatalog::LoadNamespaceProperties(const Namespace& ns) {
  FLOE_RETURN_IF_ERROR(Require("GET", kNamespace));
  FLOE_ASSIGN_OR_RETURN(http::ClientResponse response,
                        Call("GET", Url(NamespacePath(ns)), "", ErrorContext::kDefault));
  FLOE_ASSIGN_OR_RETURN(Json json, ParseObject(response.body, "load namespace"));
  return StringMap(json, "properties", "load namespace");
}

Result<NamespacePropertiesUpdate> RestCatalog::UpdateNamespaceProperties(
    const Namespace& ns, const std::vector<std::string>& removals, const Properties& updates) {
  FLOE_RETURN_IF_ERROR(Require("POST", kNamespaceProperties));
  Json body = Json::object();
  body["removals"] = removals;
  body["updates"] = updates;
  FLOE_ASSIGN_OR_RETURN(
      http::ClientResponse response,
      Call("POST", Url(NamespacePath(ns) + "/properties"), Dump(body), ErrorContext::kDefault));
  FLOE_ASSIGN_OR_RETURN(Json json, ParseObject(response.body, "update namespace properties"));
  NamespacePropertiesUpdate out;
  FLOE_ASSIGN_OR_RETURN(out.updated, StringList(json, "updated", "update namespace properties"));
  FLOE_ASSIGN_OR_RETURN(out.removed, StringList(json, "removed", "update namespace properties"));
  FLOE_ASSIGN_OR_RETURN(out.missing, StringList(json, "missing", "update namespace properties"));
  return out;
}

Status RestCatalog::DropNamespace(const Namespace& ns) {
  FLOE_RETURN_IF_ERROR(Require("DELETE", kNamespace));
  auto response = Call("DELETE", Url(NamespacePath(ns)), "", ErrorContext::kDefault);
  // 409 on a namespace drop means "not empty" (the spec's answer; older servers say 400 with
  // NamespaceNotEmptyException, mapped by type).
  if (!response.ok() && response.status().code() == StatusCode::kAlreadyExists) {
    return Status(StatusCode::kFailedPrecondition, std::string(response.status().message()));
  }
  return response.status();
}

Result<std::vector<TableIdentifier>> RestCatalog::ListTables(const Namespace& ns) {
  FLOE_RETURN_IF_ERROR(Require("GET", kTables));
  std::vector<TableIdentifier> out;
  std::string token;
  while (true) {
    std::string url = Url(NamespacePath(ns) + "/tables");
    AppendQuery(url, "pageToken", http::PercentEncode(token));
    if (!page_size_.empty()) AppendQuery(url, "pageSize", http::PercentEncode(page_size_));
    FLOE_ASSIGN_OR_RETURN(http::ClientResponse response,
                          Call("GET", url, "", ErrorContext::kDefault));
    FLOE_ASSIGN_OR_RETURN(Json json, ParseObject(response.body, "list tables"));
    if (const Json* list = Member(json, "identifiers")) {
      if (!list->is_array()) return Status::Corrupt("REST list tables: not a list");
      for (const Json& item : *list) {
        const Json* ns_json = Member(item, "namespace");
        if (ns_json == nullptr) {
          return Status::Corrupt("REST list tables: identifier without namespace");
        }
        TableIdentifier id;
        FLOE_ASSIGN_OR_RETURN(id.ns, NamespaceFromJson(*ns_json, "list tables"));
        FLOE_ASSIGN_OR_RETURN(id.name, StringMember(item, "name", "list tables"));
        out.push_back(std::move(id));
      }
    }
    const Json* next = Member(json, "next-page-token");
    if (next == nullptr || !next->is_string() || next->get<std::string>().empty()) break;
    if (next->get<std::string>() == token) {
      return Status::Corrupt("REST list tables: the server repeats page token '{}'", token);
    }
    token = next->get<std::string>();
  }
  std::sort(out.begin(), out.end());
  return out;
}

Result<iceberg::TableMetadataPtr> RestCatalog::CreateTable(const TableIdentifier& id,
                                                           const CreateTableRequest& request) {
  FLOE_RETURN_IF_ERROR(Require("POST", kTables));
  // The schema, spec and order JSON of the REST model, as the matching updates write them.
  Json body = Json::object();
  body["name"] = id.name;
  if (request.location && !request.location->empty()) body["location"] = *request.location;
  using iceberg::TableUpdateToJson;
  body["schema"] = TableUpdateToJson(iceberg::update::AddSchema{request.schema})["schema"];
  body["partition-spec"] = TableUpdateToJson(iceberg::update::AddSpec{request.spec})["spec"];
  body["write-order"] =
      TableUpdateToJson(iceberg::update::AddSortOrder{request.sort_order})["sort-order"];
  body["stage-create"] = false;
  // REST has no format-version member: servers read the reserved table property (Java
  // TableMetadata.newTableMetadata), and do not store it.
  Properties properties = request.properties;
  properties.try_emplace("format-version", std::to_string(request.format_version));
  body["properties"] = properties;
  FLOE_ASSIGN_OR_RETURN(
      http::ClientResponse response,
      Call("POST", Url(NamespacePath(id.ns) + "/tables"), Dump(body), ErrorContext::kDefault));
  return MetadataFromLoadResult(response, "create table " + id.ToString());
}

Result<std::unique_ptr<iceberg::TableOperations>> RestCatalog::LoadTable(
    const TableIdentifier& id) {
  FLOE_RETURN_IF_ERROR(Require("GET", kTable));
  FLOE_ASSIGN_OR_RETURN(http::ClientResponse response,
                        Call("GET", Url(TablePath(id)), "", ErrorContext::kDefault));
  FLOE_ASSIGN_OR_RETURN(iceberg::TableMetadataPtr metadata,
                        MetadataFromLoadResult(response, "load table " + id.ToString()));
  std::string etag(response.Header("etag").value_or(""));
  return std::unique_ptr<iceberg::TableOperations>(
      std::make_unique<RestTableOperations>(this, id, std::move(metadata), std::move(etag)));
}

Result<bool> RestCatalog::TableExists(const TableIdentifier& id) {
  bool head = Supports("HEAD", kTable);
  if (!head) FLOE_RETURN_IF_ERROR(Require("GET", kTable));
  auto response = Call(head ? "HEAD" : "GET", Url(TablePath(id)), "", ErrorContext::kDefault);
  if (response.ok()) return true;
  if (response.status().code() == StatusCode::kNotFound) return false;
  return response.status();
}

Status RestCatalog::DropTable(const TableIdentifier& id, bool purge) {
  FLOE_RETURN_IF_ERROR(Require("DELETE", kTable));
  std::string url = Url(TablePath(id));
  AppendQuery(url, "purgeRequested", purge ? "true" : "false");
  return Call("DELETE", url, "", ErrorContext::kDefault).status();
}

Status RestCatalog::RenameTable(const TableIdentifier& from, const TableIdentifier& to) {
  FLOE_RETURN_IF_ERROR(Require("POST", kRename));
  Json body = Json::object();
  body["source"] = IdentifierJson(from);
  body["destination"] = IdentifierJson(to);
  return Call("POST", Url(kRename), Dump(body), ErrorContext::kDefault).status();
}

Result<iceberg::TableMetadataPtr> RestCatalog::RegisterTable(const TableIdentifier& id,
                                                             std::string_view metadata_location,
                                                             bool overwrite) {
  FLOE_RETURN_IF_ERROR(Require("POST", kRegister));
  Json body = Json::object();
  body["name"] = id.name;
  body["metadata-location"] = std::string(metadata_location);
  if (overwrite) body["overwrite"] = true;
  FLOE_ASSIGN_OR_RETURN(
      http::ClientResponse response,
      Call("POST", Url(NamespacePath(id.ns) + "/register"), Dump(body), ErrorContext::kDefault));
  return MetadataFromLoadResult(response, "register table " + id.ToString());
}

Result<std::string> RestCatalog::DefaultTableLocation(const TableIdentifier& id) {
  FLOE_ASSIGN_OR_RETURN(Properties properties, LoadNamespaceProperties(id.ns));
  if (auto location = Find(properties, "location")) {
    std::string base = *location;
    while (base.ends_with('/')) base.pop_back();
    return base + "/" + id.name;
  }
  return Status::Unimplemented(
      "the REST catalog server places table {} (its namespace has no location)", id.ToString());
}

}  // namespace floe::catalog
