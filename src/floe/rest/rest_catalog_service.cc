#include "floe/rest/rest_catalog_service.h"

#include <algorithm>
#include <charconv>
#include <chrono>
#include <optional>
#include <set>
#include <span>
#include <utility>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "floe/base/json.h"
#include "floe/base/json_writer.h"
#include "floe/base/macros.h"
#include "floe/iceberg/partition_spec.h"
#include "floe/iceberg/schema.h"
#include "floe/iceberg/sort_order.h"
#include "floe/iceberg/table_metadata.h"
#include "floe/iceberg/table_update.h"
#include "floe/iceberg/view_metadata.h"
#include "floe/rest/errors.h"

namespace floe::rest {

namespace {

using OJson = nlohmann::ordered_json;
using catalog::Namespace;
using catalog::TableIdentifier;
using http::HttpRequest;
using http::HttpResponse;

constexpr char kNamespaceSeparator = '\x1f';

// What a failing call was about: picks the exception name of a 404 or 409.
enum class Subject : uint8_t { kNamespace, kTable, kView, kCommit, kOther };

HttpResponse Error(int code, std::string_view type, std::string_view message) {
  return RestError(code, type, message);
}

// `name` is the namespace or table the call was about; with it, the messages of the common
// cases are the texts Java's catalogs use, which Java clients and the REST compatibility
// kit match on ("Table does not exist: ns.tbl").
HttpResponse FromStatus(const Status& status, Subject subject, std::string_view name = {}) {
  std::string message(status.message());
  switch (status.code()) {
    case StatusCode::kNotFound:
      switch (subject) {
        case Subject::kNamespace:
          if (!name.empty()) message = fmt::format("Namespace does not exist: {}", name);
          return Error(404, "NoSuchNamespaceException", message);
        case Subject::kTable:
        case Subject::kCommit:
          if (!name.empty()) message = fmt::format("Table does not exist: {}", name);
          return Error(404, "NoSuchTableException", message);
        case Subject::kView:
          // The catalogs word missing views as Java does ("View does not exist: ns.v").
          return Error(404, "NoSuchViewException", message);
        case Subject::kOther: return Error(404, "NotFoundException", message);
      }
      break;
    case StatusCode::kAlreadyExists:
      // Clashes with views come worded as Java's already ("View with same name already
      // exists: ns.v"); floe's own lower-case table and namespace messages are replaced.
      if (!name.empty() && subject == Subject::kNamespace) {
        message = fmt::format("Namespace already exists: {}", name);
      } else if (!name.empty() && subject == Subject::kTable && message.starts_with("table ")) {
        message = fmt::format("Table already exists: {}", name);
      }
      break;
    case StatusCode::kFailedPrecondition:
      if (subject == Subject::kNamespace) {
        if (!name.empty()) message = fmt::format("Namespace {} is not empty: {}", name, message);
        return Error(409, "NamespaceNotEmptyException", message);
      }
      return Error(400, "ValidationException", message);
    case StatusCode::kInvalidArgument:
      // The catalog refused valid JSON (Java: IllegalArgumentException, which Java clients
      // rethrow as such; malformed requests are BadRequestException, see BadRequest).
      return Error(400,
                   subject == Subject::kCommit ? "ValidationException" : "IllegalArgumentException",
                   message);
    // As errors.h's table, whatever the call: a commit that failed with one of these is
    // known not to have happened (kResourceExhausted: the metadata file or the pointer swap
    // failed for space before the swap), so the client may clean up.
    case StatusCode::kConflict:
    case StatusCode::kUnimplemented:
    case StatusCode::kUnauthenticated:
    case StatusCode::kPermissionDenied:
    case StatusCode::kResourceExhausted: break;
    // The commit may have happened (the pointer swap's answer was lost, the metadata file
    // write failed half-way...): the client must not clean up its files.
    case StatusCode::kOk:
    case StatusCode::kUnavailable:
    case StatusCode::kDeadlineExceeded:
    case StatusCode::kCorrupt:
    case StatusCode::kIOError:
    case StatusCode::kInternal:
      if (subject == Subject::kCommit) return Error(500, "CommitStateUnknownException", message);
      break;
  }
  HttpError e = HttpErrorFor(status.code());
  return Error(e.status, e.type, message);
}

HttpResponse BadRequest(std::string_view message) {
  return Error(400, "BadRequestException", message);
}

// What a client proposes for a table (iceberg::CheckProposedSchema / CheckProposedSpec):
// schemas and specs it adds.
Status CheckProposedUpdates(const std::vector<iceberg::TableUpdate>& updates) {
  for (const iceberg::TableUpdate& u : updates) {
    if (const auto* add = std::get_if<iceberg::update::AddSchema>(&u)) {
      FLOE_RETURN_IF_ERROR(iceberg::CheckProposedSchema(add->schema));
    } else if (const auto* spec = std::get_if<iceberg::update::AddSpec>(&u)) {
      FLOE_RETURN_IF_ERROR(iceberg::CheckProposedSpec(spec->spec));
    }
  }
  return Status::OK();
}

HttpResponse JsonOk(const OJson& body) {
  return HttpResponse::Json(200, body.dump(-1, ' ', false, OJson::error_handler_t::replace));
}

Result<OJson> ParseBody(const HttpRequest& request) {
  Result<OJson> parsed = ParseOrderedJson(request.body);
  if (!parsed.ok()) return parsed.status().WithContext("malformed JSON request body");
  OJson body = std::move(*parsed);
  if (!body.is_object()) return Status::InvalidArgument("request body must be a JSON object");
  return body;
}

Result<std::string> GetString(const OJson& object, std::string_view key) {
  auto it = object.find(key);
  if (it == object.end() || !it->is_string()) {
    return Status::InvalidArgument("missing or non-string field '{}'", key);
  }
  return it->get<std::string>();
}

Result<std::optional<std::string>> GetOptionalString(const OJson& object, std::string_view key) {
  auto it = object.find(key);
  if (it == object.end() || it->is_null()) return std::optional<std::string>();
  if (!it->is_string()) return Status::InvalidArgument("field '{}' must be a string", key);
  return std::optional<std::string>(it->get<std::string>());
}

Result<std::map<std::string, std::string>> GetStringMap(const OJson& object, std::string_view key) {
  std::map<std::string, std::string> out;
  auto it = object.find(key);
  if (it == object.end() || it->is_null()) return out;
  if (!it->is_object()) return Status::InvalidArgument("field '{}' must be an object", key);
  for (const auto& [k, v] : it->items()) {
    if (!v.is_string()) {
      return Status::InvalidArgument("value of '{}' in '{}' must be a string", k, key);
    }
    out[k] = v.get<std::string>();
  }
  return out;
}

Result<std::vector<std::string>> GetStringList(const OJson& object, std::string_view key) {
  std::vector<std::string> out;
  auto it = object.find(key);
  if (it == object.end() || it->is_null()) return out;
  if (!it->is_array()) return Status::InvalidArgument("field '{}' must be an array", key);
  for (const auto& v : *it) {
    if (!v.is_string()) return Status::InvalidArgument("'{}' must hold strings", key);
    out.push_back(v.get<std::string>());
  }
  return out;
}

Status CheckLevels(const Namespace& ns) {
  if (ns.empty()) return Status::InvalidArgument("empty namespace");
  for (const std::string& level : ns.levels) {
    if (level.empty())
      return Status::InvalidArgument("namespace '{}' has an empty level", ns.ToString());
  }
  return Status::OK();
}

Result<Namespace> NamespaceFromJson(const OJson& value) {
  if (!value.is_array()) return Status::InvalidArgument("namespace must be an array of strings");
  Namespace ns;
  for (const auto& level : value) {
    if (!level.is_string()) return Status::InvalidArgument("namespace levels must be strings");
    ns.levels.push_back(level.get<std::string>());
  }
  FLOE_RETURN_IF_ERROR(CheckLevels(ns));
  return ns;
}

// A namespace in a path or `parent` parameter: levels joined by 0x1F.
Result<Namespace> NamespaceFromPath(std::string_view text) {
  Namespace ns;
  size_t start = 0;
  while (true) {
    size_t sep = text.find(kNamespaceSeparator, start);
    ns.levels.emplace_back(text.substr(start, sep - start));
    if (sep == std::string_view::npos) break;
    start = sep + 1;
  }
  FLOE_RETURN_IF_ERROR(CheckLevels(ns));
  return ns;
}

OJson NamespaceJson(const Namespace& ns) {
  OJson out = OJson::array();
  for (const std::string& level : ns.levels) out.push_back(level);
  return out;
}

Result<TableIdentifier> IdentifierFromJson(const OJson& value) {
  if (!value.is_object()) return Status::InvalidArgument("table identifier must be an object");
  TableIdentifier id;
  auto ns = value.find("namespace");
  if (ns == value.end()) return Status::InvalidArgument("table identifier without namespace");
  FLOE_ASSIGN_OR_RETURN(id.ns, NamespaceFromJson(*ns));
  FLOE_ASSIGN_OR_RETURN(id.name, GetString(value, "name"));
  if (id.name.empty()) return Status::InvalidArgument("empty table name");
  return id;
}

// 64-bit FNV-1a: a stable ETag for the same metadata file and representation on every
// server sharing the metastore.
uint64_t Fnv1a(std::string_view text) {
  uint64_t hash = 14695981039346656037ull;
  for (char c : text) {
    hash ^= static_cast<unsigned char>(c);
    hash *= 1099511628211ull;
  }
  return hash;
}

std::string ETagFor(std::string_view metadata_location, std::string_view mode) {
  return fmt::format("\"{:016x}\"", Fnv1a(fmt::format("{}|{}", metadata_location, mode)));
}

// Keeps only the snapshots a branch or tag points at (`snapshots=refs`).
iceberg::TableMetadataPtr OnlyReferencedSnapshots(const iceberg::TableMetadataPtr& metadata) {
  std::set<int64_t> referenced;
  for (const auto& [name, ref] : metadata->refs) referenced.insert(ref.snapshot_id);
  if (referenced.size() == metadata->snapshots.size()) return metadata;
  auto copy = std::make_shared<iceberg::TableMetadata>(*metadata);
  std::erase_if(copy->snapshots, [&](const iceberg::Snapshot& snapshot) {
    return !referenced.contains(snapshot.snapshot_id);
  });
  return copy;
}

// A LoadTableResult without `config` (LoadResponse adds it) or a CommitTableResponse.
std::string LoadResultJson(const iceberg::TableMetadata& metadata, bool with_location) {
  std::string out = "{\"metadata-location\":";
  if (with_location && !metadata.metadata_file_location.empty()) {
    out += OJson(metadata.metadata_file_location).dump();
  } else {
    out += "null";
  }
  out += ",\"metadata\":";
  out += iceberg::TableMetadataToJson(metadata);
  out += '}';
  return out;
}

// `body` (a JSON object) with the fields of `storage` appended.
std::string WithStorage(std::string body, const TableStorage& storage) {
  OJson config = OJson::object();
  for (const auto& [k, v] : storage.config) config[k] = v;
  body.pop_back();
  body += ",\"config\":";
  body += config.dump();
  if (!storage.credentials.empty()) {
    OJson credentials = OJson::array();
    for (const StorageCredential& credential : storage.credentials) {
      OJson entry_config = OJson::object();
      for (const auto& [k, v] : credential.config) entry_config[k] = v;
      credentials.push_back(OJson{{"prefix", credential.prefix}, {"config", entry_config}});
    }
    body += ",\"storage-credentials\":";
    body += credentials.dump();
  }
  body += '}';
  return body;
}

// A failure to vend credentials, in the REST error model: a catalog that does not vend is
// the client's mistake (400); STS out of reach is 503; anything else the server's.
// A failure to find or vend a table's storage credentials. Apart from a missing table and
// a catalog the vendor cannot serve as asked, what fails here is the server's side (its STS
// role refused, its storage settings wrong): the caller's request was fine, so it is a 500
// (or a 503 when STS may answer on a retry), not the 400 / 401 / 403 errors.h gives those
// codes for a caller's mistakes.
HttpResponse VendingError(const Status& status, std::string_view catalog) {
  const std::string context =
      fmt::format("cannot vend credentials for catalog '{}': {}", catalog, status.message());
  switch (status.code()) {
    case StatusCode::kFailedPrecondition:
      return Error(400, "BadRequestException", status.message());
    case StatusCode::kNotFound: return Error(404, "NotFoundException", status.message());
    case StatusCode::kUnavailable:
    case StatusCode::kDeadlineExceeded: return Error(503, "ServiceUnavailableException", context);
    case StatusCode::kOk:
    case StatusCode::kInvalidArgument:
    case StatusCode::kAlreadyExists:
    case StatusCode::kConflict:
    case StatusCode::kUnauthenticated:
    case StatusCode::kPermissionDenied:
    case StatusCode::kCorrupt:
    case StatusCode::kUnimplemented:
    case StatusCode::kIOError:
    case StatusCode::kResourceExhausted:
    case StatusCode::kInternal: break;
  }
  return Error(500, "ServerErrorException", context);
}

std::string LoadViewResultJson(const catalog::LoadedView& view) {
  OJson body = {{"metadata-location", view.metadata_location},
                {"metadata", iceberg::ViewMetadataToJsonValue(*view.metadata)},
                {"config", OJson::object()}};
  return body.dump(-1, ' ', false, OJson::error_handler_t::replace);
}

Result<catalog::CreateViewRequest> CreateViewRequestFromJson(const OJson& body) {
  catalog::CreateViewRequest request;
  auto schema = body.find("schema");
  if (schema == body.end()) return Status::InvalidArgument("missing field 'schema'");
  FLOE_ASSIGN_OR_RETURN(request.schema, iceberg::SchemaFromJsonValue(nlohmann::json(*schema)));
  FLOE_RETURN_IF_ERROR(iceberg::CheckProposedSchema(request.schema));
  auto version_json = body.find("view-version");
  if (version_json == body.end()) return Status::InvalidArgument("missing field 'view-version'");
  FLOE_ASSIGN_OR_RETURN(iceberg::ViewVersion version, iceberg::ViewVersionFromJson(*version_json));
  request.representations = std::move(version.representations);
  request.default_catalog = std::move(version.default_catalog);
  request.default_namespace.levels = std::move(version.default_namespace);
  request.summary = std::move(version.summary);
  FLOE_ASSIGN_OR_RETURN(request.location, GetOptionalString(body, "location"));
  FLOE_ASSIGN_OR_RETURN(request.properties, GetStringMap(body, "properties"));
  return request;
}

// Sorted keys -> the page the request asks for. Without a pageToken parameter everything
// is returned and no next-page-token is written (the spec's rule for paging servers).
struct Page {
  size_t begin = 0;
  size_t end = 0;
  bool paging = false;
  std::optional<std::string> next;
};

Result<Page> Paginate(const std::vector<std::string>& keys, const std::string* token,
                      const std::string* size_text) {
  Page page;
  page.end = keys.size();
  if (token == nullptr) return page;
  page.paging = true;
  if (!token->empty()) {
    page.begin =
        static_cast<size_t>(std::upper_bound(keys.begin(), keys.end(), *token) - keys.begin());
  }
  if (size_text != nullptr && !size_text->empty()) {
    int64_t size = 0;
    auto [ptr, ec] =
        std::from_chars(size_text->data(), size_text->data() + size_text->size(), size);
    if (ec != std::errc() || ptr != size_text->data() + size_text->size() || size <= 0) {
      return Status::InvalidArgument("pageSize must be a positive integer, got '{}'", *size_text);
    }
    page.end = std::min(keys.size(), page.begin + static_cast<size_t>(size));
  }
  if (page.end < keys.size()) page.next = keys[page.end - 1];
  page.begin = std::min(page.begin, page.end);
  return page;
}

// {"identifiers": [...], "next-page-token": ...} written directly: table lists are the
// most frequent large answers.
std::string IdentifiersJson(const std::vector<TableIdentifier>& ids, const Page& page) {
  std::string out;
  out.reserve(64 + (page.end - page.begin) * 48);
  JsonWriter w(&out);
  w.BeginObject();
  w.Key("identifiers");
  w.BeginArray();
  for (size_t i = page.begin; i < page.end; ++i) {
    w.BeginObject();
    w.Key("namespace");
    w.BeginArray();
    for (const std::string& level : ids[i].ns.levels) w.String(level);
    w.EndArray();
    w.Key("name");
    w.String(ids[i].name);
    w.EndObject();
  }
  w.EndArray();
  if (page.paging) {
    w.Key("next-page-token");
    if (page.next) {
      w.String(*page.next);
    } else {
      w.Null();
    }
  }
  w.EndObject();
  return out;
}

// A ListTablesResponse / ListViewsResponse page of `listed` (names sorted).
template <typename CallT>
HttpResponse ListResponse(const Result<std::vector<TableIdentifier>>& listed, const Namespace& ns,
                          const CallT& call) {
  if (!listed.ok()) return FromStatus(listed.status(), Subject::kNamespace, ns.ToString());
  std::vector<std::string> keys;
  keys.reserve(listed->size());
  for (const TableIdentifier& id : *listed) keys.push_back(id.name);
  auto page = Paginate(keys, call.Query("pageToken"), call.Query("pageSize"));
  if (!page.ok()) return BadRequest(page.status().message());
  return HttpResponse::Json(200, IdentifiersJson(*listed, *page));
}

// The 404 (or lookup error) to answer when `ns` does not exist; nothing when it does.
std::optional<HttpResponse> MissingNamespace(catalog::Catalog& cat, const Namespace& ns) {
  auto exists = cat.NamespaceExists(ns);
  if (!exists.ok()) return FromStatus(exists.status(), Subject::kNamespace);
  if (*exists) return std::nullopt;
  return Error(404, "NoSuchNamespaceException",
               fmt::format("Namespace does not exist: {}", ns.ToString()));
}

// A RenameTableRequest body: {source, destination}.
Result<std::pair<TableIdentifier, TableIdentifier>> RenameFromJson(const HttpRequest& request) {
  FLOE_ASSIGN_OR_RETURN(OJson body, ParseBody(request));
  auto source = body.find("source");
  auto dest = body.find("destination");
  if (source == body.end() || dest == body.end()) {
    return Status::InvalidArgument("rename needs 'source' and 'destination'");
  }
  FLOE_ASSIGN_OR_RETURN(TableIdentifier from, IdentifierFromJson(*source));
  FLOE_ASSIGN_OR_RETURN(TableIdentifier to, IdentifierFromJson(*dest));
  return std::make_pair(std::move(from), std::move(to));
}

void AddPageToken(OJson& body, const Page& page) {
  if (!page.paging) return;
  body["next-page-token"] = page.next ? OJson(*page.next) : OJson(nullptr);
}

// Partition specs and sort orders in a create request may leave out their ids (they are
// assigned on create); the model's parsers want them.
OJson WithSpecDefaults(OJson spec) {
  if (!spec.contains("spec-id")) spec["spec-id"] = 0;
  if (auto fields = spec.find("fields"); fields != spec.end() && fields->is_array()) {
    int32_t next_id = 1000;
    for (auto& field : *fields) {
      if (field.is_object() && !field.contains("field-id")) field["field-id"] = next_id;
      ++next_id;
    }
  }
  return spec;
}

OJson WithOrderDefaults(OJson order) {
  if (!order.contains("order-id")) {
    auto fields = order.find("fields");
    bool unsorted = fields == order.end() || (fields->is_array() && fields->empty());
    order["order-id"] = unsorted ? 0 : 1;
  }
  return order;
}

// A CreateTableRequest body (its errors are the client's: 400).
struct CreateTableBody {
  std::string name;
  catalog::CreateTableRequest create;
  bool stage = false;
};
Result<CreateTableBody> CreateTableFromJson(const OJson& body) {
  CreateTableBody out;
  FLOE_ASSIGN_OR_RETURN(out.name, GetString(body, "name"));
  if (out.name.empty()) return Status::InvalidArgument("empty table name");
  catalog::CreateTableRequest& create = out.create;
  auto schema_json = body.find("schema");
  if (schema_json == body.end()) return Status::InvalidArgument("missing field 'schema'");
  FLOE_ASSIGN_OR_RETURN(create.schema, iceberg::SchemaFromJsonValue(nlohmann::json(*schema_json)));
  FLOE_RETURN_IF_ERROR(iceberg::CheckProposedSchema(create.schema));
  if (auto spec = body.find("partition-spec"); spec != body.end() && !spec->is_null()) {
    FLOE_ASSIGN_OR_RETURN(
        create.spec, iceberg::PartitionSpecFromJsonValue(nlohmann::json(WithSpecDefaults(*spec))));
    FLOE_RETURN_IF_ERROR(iceberg::CheckProposedSpec(create.spec));
  }
  if (auto order = body.find("write-order"); order != body.end() && !order->is_null()) {
    FLOE_ASSIGN_OR_RETURN(create.sort_order, iceberg::SortOrderFromJsonValue(
                                                 nlohmann::json(WithOrderDefaults(*order))));
  }
  FLOE_ASSIGN_OR_RETURN(create.location, GetOptionalString(body, "location"));
  FLOE_ASSIGN_OR_RETURN(create.properties, GetStringMap(body, "properties"));
  if (auto it = body.find("stage-create"); it != body.end() && it->is_boolean()) {
    out.stage = it->get<bool>();
  }
  return out;
}

bool IsReservedPrefix(std::string_view segment) {
  return segment == "namespaces" || segment == "tables" || segment == "transactions" ||
         segment == "views";
}

// The catalog of GET /v1/config: `warehouse` names it.
std::string ConfigCatalog(const std::vector<std::pair<std::string, std::string>>& query,
                          const std::string& default_catalog) {
  std::string name = default_catalog;
  for (const auto& [k, v] : query) {
    if (k == "warehouse" && !v.empty()) name = v;
  }
  return name;
}

// The catalog of a /v1/{prefix}/... or unprefixed /v1/namespaces/... route, and the index
// of the first segment after the prefix; nullopt for other paths.
struct CatalogRoute {
  std::string catalog;
  size_t first;
};
std::optional<CatalogRoute> RouteCatalog(const std::vector<std::string>& segs,
                                         const std::string& default_catalog) {
  if (segs.size() >= 2 && IsReservedPrefix(segs[1])) return CatalogRoute{default_catalog, 1};
  if (segs.size() >= 3) return CatalogRoute{segs[1], 2};
  return std::nullopt;
}

std::string ListingKey(const HttpRequest& request) {
  std::string key;
  key.reserve(request.path.size() + 1 + request.query.size());
  key += request.path;
  key += '?';
  key += request.query;
  return key;
}

}  // namespace

HttpResponse ErrorResponse(int code, std::string_view type, std::string_view message) {
  return Error(code, type, message);
}

// A route's handler (RestCatalogService::Handlers).
using Handler = HttpResponse (*)(RestCatalogService&, RestCatalogService::Call&);

struct RestCatalogService::Call {
  const HttpRequest& request;
  CallerContext caller;
  // The path's segments, /v1/{prefix}/..., the default catalog in place of a missing prefix.
  std::vector<std::string> segments;
  std::vector<std::pair<std::string, std::string>> query;
  std::shared_ptr<catalog::CatalogPool> pool;
  // The route of the method and path (null: none, 405 when `path_known`, else 404).
  const http::Route<Handler>* route = nullptr;
  bool path_known = false;
  http::PathParams params;
  // While the handler runs: the leased catalog and the parsed `{namespace}`.
  catalog::Catalog* cat = nullptr;
  Namespace ns;

  const std::string* Query(std::string_view name) const {
    for (const auto& [k, v] : query) {
      if (k == name) return &v;
    }
    return nullptr;
  }
  TableIdentifier Table() const { return {ns, params.Get("table")}; }
  TableIdentifier View() const { return {ns, params.Get("view")}; }
};

// The handlers of the route table, one per row: nested in the service for its caches and
// options. Each runs with the catalog leased (`call.cat`) and the route's parameters bound;
// `{namespace}` is parsed before the table is consulted (Route).
struct RestCatalogService::Handlers {
  static HttpResponse ListNamespaces(RestCatalogService& self, Call& call);
  static HttpResponse CreateNamespace(RestCatalogService& self, Call& call);
  static HttpResponse LoadNamespace(RestCatalogService& self, Call& call);
  static HttpResponse NamespaceExists(RestCatalogService& self, Call& call);
  static HttpResponse DropNamespace(RestCatalogService& self, Call& call);
  static HttpResponse UpdateProperties(RestCatalogService& self, Call& call);
  static HttpResponse ListTables(RestCatalogService& self, Call& call);
  static HttpResponse CreateTable(RestCatalogService& self, Call& call);
  static HttpResponse LoadTable(RestCatalogService& self, Call& call);
  static HttpResponse TableExists(RestCatalogService& self, Call& call);
  static HttpResponse UpdateTable(RestCatalogService& self, Call& call);
  static HttpResponse DropTable(RestCatalogService& self, Call& call);
  static HttpResponse LoadCredentials(RestCatalogService& self, Call& call);
  static HttpResponse RegisterTable(RestCatalogService& self, Call& call);
  static HttpResponse ReportMetrics(RestCatalogService& self, Call& call);
  static HttpResponse ScanPlanning(RestCatalogService& self, Call& call);
  static HttpResponse RenameTable(RestCatalogService& self, Call& call);
  static HttpResponse CommitTransaction(RestCatalogService& self, Call& call);
  static HttpResponse ListViews(RestCatalogService& self, Call& call);
  static HttpResponse CreateView(RestCatalogService& self, Call& call);
  static HttpResponse LoadView(RestCatalogService& self, Call& call);
  static HttpResponse ViewExists(RestCatalogService& self, Call& call);
  static HttpResponse ReplaceView(RestCatalogService& self, Call& call);
  static HttpResponse DropView(RestCatalogService& self, Call& call);
  static HttpResponse RegisterView(RestCatalogService& self, Call& call);
  static HttpResponse RenameView(RestCatalogService& self, Call& call);

  // Iceberg REST spec 1.11 (open-api/rest-catalog-open-api.yaml): each row's path and
  // operationId are the spec's; /v1/config advertises the rows in this order. Reads are the
  // GETs and HEADs and the POSTs of a reader's scan: reportMetrics, planTableScan and
  // fetchScanTasks (and cancelPlanning's DELETE); they change nothing in the catalog. Only
  // the listings are cacheable: their answers depend on the catalog's database alone, so a
  // change probe can validate them (CachedListing).
  static const http::RouteTable<Handler>& Table() {
    using http::Access;
    constexpr Access kRead = Access::kRead;
    constexpr Access kWrite = Access::kWrite;
    constexpr bool kListing = true;
    static const http::RouteTable<Handler> kTable({
        {{"GET", "/v1/{prefix}/namespaces", kRead, kListing, "listNamespaces"}, &ListNamespaces},
        {{"POST", "/v1/{prefix}/namespaces", kWrite, false, "createNamespace"}, &CreateNamespace},
        {{"GET", "/v1/{prefix}/namespaces/{namespace}", kRead, false, "loadNamespaceMetadata"},
         &LoadNamespace},
        {{"HEAD", "/v1/{prefix}/namespaces/{namespace}", kRead, false, "namespaceExists"},
         &NamespaceExists},
        {{"DELETE", "/v1/{prefix}/namespaces/{namespace}", kWrite, false, "dropNamespace"},
         &DropNamespace},
        {{"POST", "/v1/{prefix}/namespaces/{namespace}/properties", kWrite, false,
          "updateProperties"},
         &UpdateProperties},
        {{"GET", "/v1/{prefix}/namespaces/{namespace}/tables", kRead, kListing, "listTables"},
         &ListTables},
        {{"POST", "/v1/{prefix}/namespaces/{namespace}/tables", kWrite, false, "createTable"},
         &CreateTable},
        {{"GET", "/v1/{prefix}/namespaces/{namespace}/tables/{table}", kRead, false, "loadTable"},
         &LoadTable},
        {{"HEAD", "/v1/{prefix}/namespaces/{namespace}/tables/{table}", kRead, false,
          "tableExists"},
         &TableExists},
        {{"POST", "/v1/{prefix}/namespaces/{namespace}/tables/{table}", kWrite, false,
          "updateTable"},
         &UpdateTable},
        {{"DELETE", "/v1/{prefix}/namespaces/{namespace}/tables/{table}", kWrite, false,
          "dropTable"},
         &DropTable},
        {{"GET", "/v1/{prefix}/namespaces/{namespace}/tables/{table}/credentials", kRead, false,
          "loadCredentials"},
         &LoadCredentials},
        {{"POST", "/v1/{prefix}/namespaces/{namespace}/register", kWrite, false, "registerTable"},
         &RegisterTable},
        {{"POST", "/v1/{prefix}/namespaces/{namespace}/tables/{table}/metrics", kRead, false,
          "reportMetrics"},
         &ReportMetrics},
        {{"POST", "/v1/{prefix}/namespaces/{namespace}/tables/{table}/plan", kRead, false,
          "planTableScan"},
         &ScanPlanning},
        {{"GET", "/v1/{prefix}/namespaces/{namespace}/tables/{table}/plan/{plan-id}", kRead, false,
          "fetchPlanningResult"},
         &ScanPlanning},
        {{"DELETE", "/v1/{prefix}/namespaces/{namespace}/tables/{table}/plan/{plan-id}", kRead,
          false, "cancelPlanning"},
         &ScanPlanning},
        {{"POST", "/v1/{prefix}/namespaces/{namespace}/tables/{table}/tasks", kRead, false,
          "fetchScanTasks"},
         &ScanPlanning},
        {{"POST", "/v1/{prefix}/tables/rename", kWrite, false, "renameTable"}, &RenameTable},
        {{"POST", "/v1/{prefix}/transactions/commit", kWrite, false, "commitTransaction"},
         &CommitTransaction},
        {{"GET", "/v1/{prefix}/namespaces/{namespace}/views", kRead, kListing, "listViews"},
         &ListViews},
        {{"POST", "/v1/{prefix}/namespaces/{namespace}/views", kWrite, false, "createView"},
         &CreateView},
        {{"GET", "/v1/{prefix}/namespaces/{namespace}/views/{view}", kRead, false, "loadView"},
         &LoadView},
        {{"HEAD", "/v1/{prefix}/namespaces/{namespace}/views/{view}", kRead, false, "viewExists"},
         &ViewExists},
        {{"POST", "/v1/{prefix}/namespaces/{namespace}/views/{view}", kWrite, false, "replaceView"},
         &ReplaceView},
        {{"DELETE", "/v1/{prefix}/namespaces/{namespace}/views/{view}", kWrite, false, "dropView"},
         &DropView},
        {{"POST", "/v1/{prefix}/namespaces/{namespace}/register-view", kWrite, false,
          "registerView"},
         &RegisterView},
        {{"POST", "/v1/{prefix}/views/rename", kWrite, false, "renameView"}, &RenameView},
    });
    return kTable;
  }
};

std::span<const http::RouteInfo> RestCatalogService::Routes() { return Handlers::Table().infos(); }

RestCatalogService::RestCatalogService(std::shared_ptr<catalog::CatalogRegistry> registry,
                                       RestCatalogOptions options)
    : registry_(std::move(registry)), options_(std::move(options)) {
  if (!options_.now_ms) {
    options_.now_ms = [] {
      return std::chrono::duration_cast<std::chrono::milliseconds>(
                 std::chrono::system_clock::now().time_since_epoch())
          .count();
    };
  }
  scan_planner_ = std::make_unique<ScanPlanner>(options_.scan_planning, options_.now_ms);
}

std::shared_ptr<const RestCatalogService::CachedLoad> RestCatalogService::CachedLoadFor(
    const std::string& location) {
  std::lock_guard lock(load_cache_mu_);
  auto it = load_cache_.find(location);
  return it == load_cache_.end() ? nullptr : it->second;
}

std::shared_ptr<const RestCatalogService::CachedLoad> RestCatalogService::CacheLoad(
    const iceberg::TableMetadataPtr& metadata) {
  auto entry = std::make_shared<CachedLoad>();
  entry->all = LoadResultJson(*metadata, true);
  iceberg::TableMetadataPtr refs = OnlyReferencedSnapshots(metadata);
  entry->refs = refs == metadata ? entry->all : LoadResultJson(*refs, true);
  entry->locations = StorageLocations(*metadata);
  entry->bytes = entry->all.size() + entry->refs.size();
  if (entry->bytes > options_.load_cache_bytes / 4) return entry;  // too big to be worth keeping
  std::lock_guard lock(load_cache_mu_);
  auto [it, inserted] = load_cache_.emplace(metadata->metadata_file_location, entry);
  if (!inserted) return it->second;
  load_cache_order_.push_back(metadata->metadata_file_location);
  load_cache_bytes_ += entry->bytes;
  while (load_cache_bytes_ > options_.load_cache_bytes && !load_cache_order_.empty()) {
    auto old = load_cache_.find(load_cache_order_.front());
    load_cache_order_.pop_front();
    if (old == load_cache_.end()) continue;
    load_cache_bytes_ -= old->second->bytes;
    load_cache_.erase(old);
  }
  return entry;
}

HttpResponse RestCatalogService::LoadResponse(const Call& call, std::string body,
                                              const std::vector<std::string>& locations,
                                              const std::string& path_to_table) {
  TableStorage storage;
  if (options_.credential_vendor) {
    const std::string* delegation = call.request.Header("x-iceberg-access-delegation");
    TableStorageRequest request{
        call.pool->name(), locations,
        call.caller.may_write ? StorageAccess::kReadWrite : StorageAccess::kRead,
        delegation != nullptr && WantsVendedCredentials(*delegation),
        path_to_table + "/credentials"};
    auto resolved = options_.credential_vendor->ForTable(request);
    if (!resolved.ok()) return VendingError(resolved.status(), call.pool->name());
    storage = std::move(*resolved);
  }
  return HttpResponse::Json(200, WithStorage(std::move(body), storage));
}

std::shared_ptr<std::mutex> RestCatalogService::TableCommitLock(const std::string& catalog,
                                                                const std::string& table) {
  std::string key = catalog + '\x1f' + table;
  std::lock_guard lock(commit_locks_mu_);
  if (auto it = commit_locks_.find(key); it != commit_locks_.end()) {
    if (auto existing = it->second.lock()) return existing;
  }
  // Drop the entries of tables nobody is committing to, so the map stays small.
  if (commit_locks_.size() > 4096) {
    std::erase_if(commit_locks_, [](const auto& entry) { return entry.second.expired(); });
  }
  auto created = std::make_shared<std::mutex>();
  commit_locks_[key] = created;
  return created;
}

HttpResponse RestCatalogService::Handle(const HttpRequest& request, const CallerContext& caller) {
  const std::string* key = request.Header("idempotency-key");
  if (key == nullptr || key->empty() || request.method == "GET" || request.method == "HEAD") {
    return Dispatch(request, caller);
  }
  std::string fingerprint = request.method + ' ' + request.path + '\n' + request.body;
  // Keys are the caller's own: another principal sending the same key (guessed, or reused by
  // a shared client library) runs its own request and never sees the first one's answer.
  const std::string entry_key = caller.principal + '\n' + *key;
  int64_t now = options_.now_ms();
  {
    std::lock_guard lock(idempotency_mu_);
    if (auto it = idempotent_.find(entry_key); it != idempotent_.end()) {
      if (it->second.expires_ms > now) {
        if (it->second.fingerprint != fingerprint) {
          return Error(422, "UnprocessableEntityException",
                       "the Idempotency-Key was used for a different request");
        }
        return it->second.response;
      }
      idempotent_.erase(it);
    }
    if (auto it = in_progress_.find(entry_key); it != in_progress_.end()) {
      return Error(503, "ServiceUnavailableException",
                   "a request with this Idempotency-Key is in progress; retry later");
    }
    in_progress_.emplace(entry_key, fingerprint);
  }
  HttpResponse response = Dispatch(request, caller);
  std::lock_guard lock(idempotency_mu_);
  in_progress_.erase(entry_key);
  // 5xx answers are never replayed: the retry must run again.
  if (response.status >= 500) return response;
  if (idempotent_.size() >= options_.idempotency_max_entries) {
    std::erase_if(idempotent_, [&](const auto& entry) { return entry.second.expires_ms <= now; });
  }
  if (idempotent_.size() < options_.idempotency_max_entries) {
    idempotent_[entry_key] =
        StoredResponse{now + options_.idempotency_lifetime_ms, std::move(fingerprint), response};
  }
  return response;
}

HttpResponse RestCatalogService::Dispatch(const HttpRequest& request, const CallerContext& caller) {
  try {
    return Route(request, caller);
  } catch (const nlohmann::json::exception&) {
    // A body field of the wrong type or missing, read with nlohmann's throwing accessors: the
    // client's mistake, answered without the library's text.
    return BadJsonTypeResponse();
  }
}

// GET /v1/config: the ConfigResponse of the catalog `warehouse` names.
HttpResponse RestCatalogService::Config(
    const std::vector<std::pair<std::string, std::string>>& query) const {
  std::string name = ConfigCatalog(query, options_.default_catalog);
  if (!registry_->Contains(name)) {
    return Error(404, "NotFoundException", fmt::format("no catalog (warehouse) named '{}'", name));
  }
  OJson defaults = OJson::object();
  for (const auto& [k, v] : options_.config_defaults) defaults[k] = v;
  if (options_.catalog_config_defaults) {
    for (const auto& [k, v] : options_.catalog_config_defaults(name)) defaults[k] = v;
  }
  OJson overrides = OJson::object();
  for (const auto& [k, v] : options_.config_overrides) overrides[k] = v;
  overrides["prefix"] = name;
  OJson body = {
      {"defaults", defaults},
      {"overrides", overrides},
      {"endpoints", AdvertisedEndpoints()},
      {"idempotency-key-lifetime", fmt::format("PT{}S", options_.idempotency_lifetime_ms / 1000)}};
  return JsonOk(body);
}

HttpResponse RestCatalogService::Route(const HttpRequest& request, const CallerContext& caller) {
  auto segments = http::SplitPath(request.path);
  if (!segments.ok()) return BadRequest(segments.status().message());
  auto query = http::ParseQuery(request.query);
  if (!query.ok()) return BadRequest(query.status().message());
  std::vector<std::string>& segs = *segments;
  if (segs.empty() || segs[0] != "v1") return Error(404, "NotFoundException", "no such route");

  if (segs.size() == 2 && segs[1] == "config") {
    if (request.method != "GET") return Error(405, "BadRequestException", "use GET /v1/config");
    return Config(*query);
  }
  if (segs.size() >= 2 && segs[1] == "oauth") {
    return Error(400, "BadRequestException",
                 "authentication is off on this server: no token is needed");
  }

  std::optional<CatalogRoute> route = RouteCatalog(segs, options_.default_catalog);
  if (!route) return Error(404, "NotFoundException", "no such route");
  auto pool = registry_->Get(route->catalog);
  if (!pool.ok()) return FromStatus(pool.status(), Subject::kOther);
  if (route->first == 1) segs.insert(segs.begin() + 1, route->catalog);
  auto found = Handlers::Table().Find(request.method, segs);
  Call call{request,          caller,      std::move(segs),  std::move(*query),
            std::move(*pool), found.route, found.path_known, std::move(found.params),
            nullptr,          Namespace{}};
  if (call.route == nullptr || !call.route->info.cacheable) return Route(call);
  // Read before the listing query: see CachedListing.
  std::optional<uint64_t> version = call.pool->ChangeVersion();
  HttpResponse response = Route(call);
  if (version && response.status == 200) StoreListing(request, call.pool, *version, response);
  return response;
}

void RestCatalogService::StoreListing(const HttpRequest& request,
                                      const std::shared_ptr<catalog::CatalogPool>& pool,
                                      uint64_t version, const HttpResponse& response) {
  constexpr size_t kMaxEntries = 4096;
  constexpr size_t kMaxBytes = 64 << 20;
  const size_t bytes = response.body.size() + request.path.size() + request.query.size();
  if (bytes > kMaxBytes / 16) return;
  auto stored = std::make_shared<const HttpResponse>(response);
  std::string key = ListingKey(request);
  std::lock_guard lock(listing_mu_);
  if (listings_.size() >= kMaxEntries || listing_bytes_ + bytes > kMaxBytes) {
    listings_.clear();
    listing_bytes_ = 0;
  }
  auto [it, inserted] = listings_.try_emplace(std::move(key));
  if (!inserted) {
    listing_bytes_ -= it->second.response->body.size() + request.path.size() + request.query.size();
  }
  it->second = CachedListing{pool, version, std::move(stored)};
  listing_bytes_ += bytes;
}

std::optional<HttpResponse> RestCatalogService::TryCachedListing(const HttpRequest& request) {
  if (request.method != "GET") return std::nullopt;
  std::shared_ptr<catalog::CatalogPool> pool;
  uint64_t version = 0;
  std::shared_ptr<const HttpResponse> response;
  {
    std::string key = ListingKey(request);
    std::lock_guard lock(listing_mu_);
    auto it = listings_.find(key);
    if (it == listings_.end()) return std::nullopt;
    pool = it->second.pool.lock();
    version = it->second.version;
    response = it->second.response;
  }
  // The catalog may have been detached, or replaced by an edit, since.
  if (!pool) return std::nullopt;
  auto current = registry_->Get(pool->name());
  if (!current.ok() || current->get() != pool.get()) return std::nullopt;
  std::optional<uint64_t> now = pool->ChangeVersion();
  if (!now || *now != version) return std::nullopt;
  return *response;
}

std::optional<RouteTarget> RestCatalogService::Target(const HttpRequest& request) const {
  auto segments = http::SplitPath(request.path);
  auto query = http::ParseQuery(request.query);
  if (!segments.ok() || !query.ok()) return std::nullopt;
  std::vector<std::string>& segs = *segments;
  // The same order of checks as Dispatch.
  if (segs.empty() || segs[0] != "v1") return std::nullopt;
  if (segs.size() == 2 && segs[1] == "config") {
    return RouteTarget{ConfigCatalog(*query, options_.default_catalog), false};
  }
  if (segs.size() >= 2 && segs[1] == "oauth") return std::nullopt;
  std::optional<CatalogRoute> route = RouteCatalog(segs, options_.default_catalog);
  if (!route) return std::nullopt;
  if (route->first == 1) segs.insert(segs.begin() + 1, route->catalog);
  http::Access access = Handlers::Table().matcher().RequiredAccess(request.method, segs);
  return RouteTarget{route->catalog, access == http::Access::kWrite};
}

// The spec's "<HTTP verb> <resource path>" of every route (ConfigResponse.endpoints).
std::vector<std::string> RestCatalogService::AdvertisedEndpoints() {
  std::vector<std::string> out;
  for (const http::RouteInfo& route : Routes()) {
    out.push_back(fmt::format("{} {}", route.method, route.path));
  }
  return out;
}

HttpResponse RestCatalogService::Route(Call& call) {
  auto lease_or = call.pool->Acquire();
  if (!lease_or.ok()) return FromStatus(lease_or.status(), Subject::kOther);
  catalog::CatalogLease lease = std::move(*lease_or);
  call.cat = &*lease;
  // A namespace in the path is checked whatever follows it: a malformed one is the client's
  // mistake (400) before any 404 or 405 of the rest of the path.
  if (call.segments.size() >= 4 && call.segments[2] == "namespaces") {
    auto ns = NamespaceFromPath(call.segments[3]);
    if (!ns.ok()) return BadRequest(ns.status().message());
    call.ns = std::move(*ns);
  }
  if (call.route == nullptr) {
    if (call.path_known) {
      return Error(
          405, "BadRequestException",
          fmt::format("method {} is not allowed on {}", call.request.method, call.request.path));
    }
    return Error(404, "NotFoundException", fmt::format("no route for {}", call.request.path));
  }
  return call.route->handler(*this, call);
}

HttpResponse RestCatalogService::Handlers::ListNamespaces(RestCatalogService&, Call& call) {
  Namespace parent;
  if (const std::string* p = call.Query("parent"); p != nullptr && !p->empty()) {
    auto parsed = NamespaceFromPath(*p);
    if (!parsed.ok()) return BadRequest(parsed.status().message());
    parent = std::move(*parsed);
  }
  auto list = call.cat->ListNamespaces(parent);
  if (!list.ok()) return FromStatus(list.status(), Subject::kNamespace, parent.ToString());
  std::vector<std::string> keys;
  keys.reserve(list->size());
  for (const Namespace& ns : *list) {
    std::string key;
    for (size_t i = 0; i < ns.levels.size(); ++i) {
      if (i > 0) key += kNamespaceSeparator;
      key += ns.levels[i];
    }
    keys.push_back(std::move(key));
  }
  // ListNamespaces sorts by levels; keys of one depth sort the same way.
  auto page = Paginate(keys, call.Query("pageToken"), call.Query("pageSize"));
  if (!page.ok()) return BadRequest(page.status().message());
  OJson names = OJson::array();
  for (size_t i = page->begin; i < page->end; ++i) names.push_back(NamespaceJson((*list)[i]));
  OJson body = {{"namespaces", std::move(names)}};
  AddPageToken(body, *page);
  return JsonOk(body);
}

HttpResponse RestCatalogService::Handlers::CreateNamespace(RestCatalogService&, Call& call) {
  auto body = ParseBody(call.request);
  if (!body.ok()) return BadRequest(body.status().message());
  auto ns_json = body->find("namespace");
  if (ns_json == body->end()) return BadRequest("missing field 'namespace'");
  auto ns = NamespaceFromJson(*ns_json);
  if (!ns.ok()) return BadRequest(ns.status().message());
  auto properties = GetStringMap(*body, "properties");
  if (!properties.ok()) return BadRequest(properties.status().message());
  Status created = call.cat->CreateNamespace(*ns, *properties);
  if (!created.ok()) return FromStatus(created, Subject::kNamespace, ns->ToString());
  OJson props = OJson::object();
  for (const auto& [k, v] : *properties) props[k] = v;
  return JsonOk(OJson{{"namespace", NamespaceJson(*ns)}, {"properties", props}});
}

HttpResponse RestCatalogService::Handlers::LoadNamespace(RestCatalogService&, Call& call) {
  auto props = call.cat->LoadNamespaceProperties(call.ns);
  if (!props.ok()) return FromStatus(props.status(), Subject::kNamespace, call.ns.ToString());
  OJson p = OJson::object();
  for (const auto& [k, v] : *props) p[k] = v;
  return JsonOk(OJson{{"namespace", NamespaceJson(call.ns)}, {"properties", p}});
}

HttpResponse RestCatalogService::Handlers::NamespaceExists(RestCatalogService&, Call& call) {
  if (auto missing = MissingNamespace(*call.cat, call.ns)) return std::move(*missing);
  return HttpResponse::NoContent();
}

HttpResponse RestCatalogService::Handlers::DropNamespace(RestCatalogService&, Call& call) {
  Status dropped = call.cat->DropNamespace(call.ns);
  if (!dropped.ok()) return FromStatus(dropped, Subject::kNamespace, call.ns.ToString());
  return HttpResponse::NoContent();
}

HttpResponse RestCatalogService::Handlers::UpdateProperties(RestCatalogService&, Call& call) {
  auto body = ParseBody(call.request);
  if (!body.ok()) return BadRequest(body.status().message());
  auto removals = GetStringList(*body, "removals");
  if (!removals.ok()) return BadRequest(removals.status().message());
  auto updates = GetStringMap(*body, "updates");
  if (!updates.ok()) return BadRequest(updates.status().message());
  for (const std::string& key : *removals) {
    if (updates->contains(key)) {
      return Error(422, "UnprocessableEntityException",
                   fmt::format("property '{}' is both removed and updated", key));
    }
  }
  auto change = call.cat->UpdateNamespaceProperties(call.ns, *removals, *updates);
  if (!change.ok()) return FromStatus(change.status(), Subject::kNamespace, call.ns.ToString());
  return JsonOk(OJson{
      {"updated", change->updated}, {"removed", change->removed}, {"missing", change->missing}});
}

HttpResponse RestCatalogService::Handlers::ListTables(RestCatalogService&, Call& call) {
  return ListResponse(call.cat->ListTables(call.ns), call.ns, call);
}

HttpResponse RestCatalogService::Handlers::CreateTable(RestCatalogService& self, Call& call) {
  auto body = ParseBody(call.request);
  if (!body.ok()) return BadRequest(body.status().message());
  auto parsed = CreateTableFromJson(*body);
  if (!parsed.ok()) return BadRequest(parsed.status().message());
  const auto& [name, create, stage] = *parsed;
  catalog::Catalog& cat = *call.cat;
  const Namespace& ns = call.ns;
  TableIdentifier id{ns, name};
  if (auto missing = MissingNamespace(cat, ns)) return std::move(*missing);
  auto metadata = stage ? catalog::StageCreateTable(cat, id, create) : cat.CreateTable(id, create);
  if (!metadata.ok()) {
    if (metadata.status().code() == StatusCode::kNotFound) {
      return FromStatus(metadata.status(), Subject::kNamespace, ns.ToString());
    }
    return FromStatus(metadata.status(), Subject::kTable, id.ToString());
  }
  HttpResponse response =
      self.LoadResponse(call, LoadResultJson(**metadata, !stage), StorageLocations(**metadata),
                        call.request.path + "/" + http::PercentEncode(name));
  if (response.status != 200) return response;
  if (!stage) {
    response.headers.emplace_back("ETag", ETagFor((*metadata)->metadata_file_location, "all"));
    self.TableChanged(call, id);
  }
  return response;
}

void RestCatalogService::TableChanged(const Call& call, const TableIdentifier& id) const {
  if (options_.on_table_changed) options_.on_table_changed(call.pool->name(), id);
}

HttpResponse RestCatalogService::Handlers::LoadTable(RestCatalogService& self, Call& call) {
  catalog::Catalog& cat = *call.cat;
  TableIdentifier id = call.Table();
  std::string mode = "all";
  if (const std::string* m = call.Query("snapshots"); m != nullptr && !m->empty()) {
    if (*m != "all" && *m != "refs") {
      return BadRequest(fmt::format("snapshots must be 'all' or 'refs', not '{}'", *m));
    }
    mode = *m;
  }
  auto location = cat.LoadTableMetadataLocation(id);
  if (!location.ok()) return FromStatus(location.status(), Subject::kTable, id.ToString());
  std::string etag = ETagFor(*location, mode);
  auto missing_file = [&] {
    // The pointer exists but its metadata file is gone: Java's NotFoundException, not a
    // missing table.
    return Error(404, "NotFoundException",
                 fmt::format("Failed to open input stream for file: {}", *location));
  };
  std::shared_ptr<const CachedLoad> cached = self.CachedLoadFor(*location);
  const std::string* match = call.request.Header("if-none-match");
  if (cached || (match != nullptr && *match == etag)) {
    // Neither a cached body nor a 304 may outlive the file (it may have been deleted).
    auto exists = cat.io().Exists(*location);
    if (!exists.ok()) return FromStatus(exists.status(), Subject::kTable, id.ToString());
    if (!*exists) return missing_file();
  }
  if (match != nullptr && *match == etag) {
    HttpResponse not_modified;
    not_modified.status = 304;
    not_modified.content_type.clear();
    not_modified.headers.emplace_back("ETag", etag);
    return not_modified;
  }
  if (!cached) {
    auto ops = cat.LoadTable(id);
    if (!ops.ok()) {
      if (ops.status().code() == StatusCode::kNotFound) {
        auto still = cat.LoadTableMetadataLocation(id);
        if (still.ok() && *still == *location) return missing_file();
      }
      return FromStatus(ops.status(), Subject::kTable, id.ToString());
    }
    auto metadata = (*ops)->Refresh();
    if (!metadata.ok()) return FromStatus(metadata.status(), Subject::kTable, id.ToString());
    // A commit may have landed between the two reads: describe what was loaded.
    if ((*metadata)->metadata_file_location != *location) {
      *location = (*metadata)->metadata_file_location;
      etag = ETagFor(*location, mode);
    }
    cached = self.CacheLoad(*metadata);
  }
  HttpResponse response = self.LoadResponse(call, mode == "refs" ? cached->refs : cached->all,
                                            cached->locations, call.request.path);
  if (response.status != 200) return response;
  response.headers.emplace_back("ETag", std::move(etag));
  return response;
}

HttpResponse RestCatalogService::Handlers::TableExists(RestCatalogService&, Call& call) {
  TableIdentifier id = call.Table();
  auto exists = call.cat->TableExists(id);
  if (!exists.ok()) {
    if (exists.status().code() == StatusCode::kNotFound) {
      return Error(404, "NoSuchTableException", exists.status().message());
    }
    return FromStatus(exists.status(), Subject::kTable);
  }
  if (!*exists) {
    return Error(404, "NoSuchTableException",
                 fmt::format("Table does not exist: {}", id.ToString()));
  }
  return HttpResponse::NoContent();
}

HttpResponse RestCatalogService::Handlers::UpdateTable(RestCatalogService& self, Call& call) {
  catalog::Catalog& cat = *call.cat;
  TableIdentifier id = call.Table();
  auto request = iceberg::CommitTableRequestFromJson(call.request.body);
  if (!request.ok()) return BadRequest(request.status().message());
  if (Status proposed = CheckProposedUpdates(request->updates); !proposed.ok()) {
    return BadRequest(proposed.message());
  }
  bool create = std::any_of(request->requirements.begin(), request->requirements.end(),
                            [](const iceberg::TableRequirement& r) {
                              return std::holds_alternative<iceberg::requirement::AssertCreate>(r);
                            });
  iceberg::TableMetadataPtr committed;
  if (create) {
    if (auto missing = MissingNamespace(cat, call.ns)) return std::move(*missing);
    auto created = cat.CreateTableFromUpdates(id, request->updates);
    if (!created.ok()) {
      if (created.status().code() == StatusCode::kNotFound) {
        return FromStatus(created.status(), Subject::kNamespace, call.ns.ToString());
      }
      if (created.status().code() == StatusCode::kAlreadyExists) {
        // A view has the name: the catalog's message says so (Java's text).
        if (created.status().message().starts_with("View")) {
          return Error(409, "AlreadyExistsException", created.status().message());
        }
        // The requirement assert-create failed (Java's text), nothing was written.
        return Error(409, "CommitFailedException", "Requirement failed: table already exists");
      }
      return FromStatus(created.status(), Subject::kCommit);
    }
    committed = *created;
  } else {
    auto ops = cat.LoadTable(id);
    if (!ops.ok()) return FromStatus(ops.status(), Subject::kTable, id.ToString());
    std::shared_ptr<std::mutex> table_lock = self.TableCommitLock(call.pool->name(), id.ToString());
    std::lock_guard serialized(*table_lock);
    auto result = (*ops)->Commit(request->requirements, request->updates);
    if (!result.ok()) return FromStatus(result.status(), Subject::kCommit);
    committed = *result;
  }
  self.TableChanged(call, id);
  HttpResponse response = HttpResponse::Json(200, LoadResultJson(*committed, true));
  response.headers.emplace_back("ETag", ETagFor(committed->metadata_file_location, "all"));
  return response;
}

HttpResponse RestCatalogService::Handlers::DropTable(RestCatalogService& self, Call& call) {
  TableIdentifier id = call.Table();
  bool purge = false;
  if (const std::string* p = call.Query("purgeRequested"); p != nullptr) {
    purge = *p == "true" || *p == "True" || *p == "TRUE";
  }
  Status dropped = call.cat->DropTable(id, purge);
  if (!dropped.ok()) return FromStatus(dropped, Subject::kTable, id.ToString());
  self.TableChanged(call, id);
  return HttpResponse::NoContent();
}

HttpResponse RestCatalogService::Handlers::LoadCredentials(RestCatalogService& self, Call& call) {
  catalog::Catalog& cat = *call.cat;
  TableIdentifier id = call.Table();
  auto exists = cat.TableExists(id);
  if (!exists.ok()) return FromStatus(exists.status(), Subject::kTable);
  if (!*exists) {
    return Error(404, "NoSuchTableException",
                 fmt::format("Table does not exist: {}", id.ToString()));
  }
  OJson list = OJson::array();
  if (self.options_.credential_vendor) {
    auto ops = cat.LoadTable(id);
    if (!ops.ok()) return FromStatus(ops.status(), Subject::kTable, id.ToString());
    auto metadata = (*ops)->Refresh();
    if (!metadata.ok()) return FromStatus(metadata.status(), Subject::kTable, id.ToString());
    TableStorageRequest request{
        call.pool->name(), StorageLocations(**metadata),
        call.caller.may_write ? StorageAccess::kReadWrite : StorageAccess::kRead, true,
        call.request.path};
    auto credentials = self.options_.credential_vendor->Credentials(request);
    if (!credentials.ok()) return VendingError(credentials.status(), call.pool->name());
    for (const StorageCredential& credential : *credentials) {
      OJson config = OJson::object();
      for (const auto& [k, v] : credential.config) config[k] = v;
      list.push_back(OJson{{"prefix", credential.prefix}, {"config", config}});
    }
  }
  return JsonOk(OJson{{"storage-credentials", std::move(list)}});
}

HttpResponse RestCatalogService::Handlers::RegisterTable(RestCatalogService& self, Call& call) {
  auto body = ParseBody(call.request);
  if (!body.ok()) return BadRequest(body.status().message());
  auto name = GetString(*body, "name");
  if (!name.ok()) return BadRequest(name.status().message());
  auto location = GetString(*body, "metadata-location");
  if (!location.ok()) return BadRequest(location.status().message());
  bool overwrite = false;
  if (auto it = body->find("overwrite"); it != body->end() && it->is_boolean()) {
    overwrite = it->get<bool>();
  }
  TableIdentifier id{call.ns, *name};
  // The catalog replaces the pointer in one swap, after reading the new file.
  auto metadata = call.cat->RegisterTable(id, *location, overwrite);
  if (!metadata.ok()) {
    if (metadata.status().code() == StatusCode::kAlreadyExists) {
      return FromStatus(metadata.status(), Subject::kTable, id.ToString());
    }
    return FromStatus(metadata.status(), Subject::kOther);
  }
  auto copy = std::make_shared<iceberg::TableMetadata>(**metadata);
  copy->metadata_file_location = *location;
  std::string namespace_path = call.request.path.substr(0, call.request.path.rfind('/'));
  HttpResponse response =
      self.LoadResponse(call, LoadResultJson(*copy, true), StorageLocations(*copy),
                        namespace_path + "/tables/" + http::PercentEncode(*name));
  if (response.status != 200) return response;
  response.headers.emplace_back("ETag", ETagFor(*location, "all"));
  self.TableChanged(call, id);
  return response;
}

HttpResponse RestCatalogService::Handlers::ReportMetrics(RestCatalogService&, Call& call) {
  auto body = ParseBody(call.request);
  if (!body.ok()) return BadRequest(body.status().message());
  // Accepted and not stored (the spec makes storing optional).
  return HttpResponse::NoContent();
}

// planTableScan, fetchPlanningResult, cancelPlanning and fetchScanTasks: the scan planner's,
// given the path after the table's segment.
HttpResponse RestCatalogService::Handlers::ScanPlanning(RestCatalogService& self, Call& call) {
  constexpr std::ptrdiff_t kAfterTable = 6;  // v1 {prefix} namespaces {ns} tables {table}
  return self.scan_planner_->Handle(*call.cat, call.pool->name(), call.Table(), call.request,
                                    {call.segments.begin() + kAfterTable, call.segments.end()});
}

HttpResponse RestCatalogService::Handlers::RenameTable(RestCatalogService& self, Call& call) {
  catalog::Catalog& cat = *call.cat;
  auto rename = RenameFromJson(call.request);
  if (!rename.ok()) return BadRequest(rename.status().message());
  const TableIdentifier& source = rename->first;
  const TableIdentifier& dest = rename->second;
  auto source_exists = cat.TableExists(source);
  if (!source_exists.ok() || !*source_exists) {
    if (!source_exists.ok() && source_exists.status().code() != StatusCode::kNotFound) {
      return FromStatus(source_exists.status(), Subject::kTable);
    }
    return Error(404, "NoSuchTableException",
                 fmt::format("Table does not exist: {}", source.ToString()));
  }
  if (auto missing = MissingNamespace(cat, dest.ns)) return std::move(*missing);
  Status renamed = cat.RenameTable(source, dest);
  if (!renamed.ok()) {
    if (renamed.code() == StatusCode::kAlreadyExists) {
      return FromStatus(renamed, Subject::kTable, dest.ToString());
    }
    return FromStatus(renamed, Subject::kTable, source.ToString());
  }
  self.TableChanged(call, source);
  self.TableChanged(call, dest);
  return HttpResponse::NoContent();
}

HttpResponse RestCatalogService::Handlers::CommitTransaction(RestCatalogService& self, Call& call) {
  auto body = ParseBody(call.request);
  if (!body.ok()) return BadRequest(body.status().message());
  auto changes = body->find("table-changes");
  if (changes == body->end() || !changes->is_array()) {
    return BadRequest("missing array 'table-changes'");
  }
  std::vector<catalog::TableCommit> commits;
  for (const OJson& change : *changes) {
    if (!change.is_object()) return BadRequest("table-changes must hold objects");
    auto identifier = change.find("identifier");
    if (identifier == change.end()) return BadRequest("a table change needs an identifier");
    auto id = IdentifierFromJson(*identifier);
    if (!id.ok()) return BadRequest(id.status().message());
    auto parsed = iceberg::CommitTableRequestFromJson(change.dump());
    if (!parsed.ok()) return BadRequest(parsed.status().message());
    if (Status proposed = CheckProposedUpdates(parsed->updates); !proposed.ok()) {
      return BadRequest(proposed.message());
    }
    commits.push_back(
        {std::move(*id), std::move(parsed->requirements), std::move(parsed->updates)});
  }
  Status committed = call.cat->CommitTransaction(commits);
  if (!committed.ok()) return FromStatus(committed, Subject::kCommit);
  for (const auto& c : commits) self.TableChanged(call, c.id);
  return HttpResponse::NoContent();
}

HttpResponse RestCatalogService::Handlers::ListViews(RestCatalogService&, Call& call) {
  return ListResponse(call.cat->ListViews(call.ns), call.ns, call);
}

HttpResponse RestCatalogService::Handlers::CreateView(RestCatalogService&, Call& call) {
  auto body = ParseBody(call.request);
  if (!body.ok()) return BadRequest(body.status().message());
  auto name = GetString(*body, "name");
  if (!name.ok()) return BadRequest(name.status().message());
  if (name->empty()) return BadRequest("empty view name");
  auto request = CreateViewRequestFromJson(*body);
  if (!request.ok()) return BadRequest(request.status().message());
  if (auto missing = MissingNamespace(*call.cat, call.ns)) return std::move(*missing);
  auto view = call.cat->CreateView(TableIdentifier{call.ns, *name}, *request);
  if (!view.ok()) {
    if (view.status().code() == StatusCode::kNotFound) {
      return FromStatus(view.status(), Subject::kNamespace, call.ns.ToString());
    }
    return FromStatus(view.status(), Subject::kView);
  }
  return HttpResponse::Json(200, LoadViewResultJson(*view));
}

HttpResponse RestCatalogService::Handlers::LoadView(RestCatalogService&, Call& call) {
  auto view = call.cat->LoadView(call.View());
  if (!view.ok()) return FromStatus(view.status(), Subject::kView);
  return HttpResponse::Json(200, LoadViewResultJson(*view));
}

HttpResponse RestCatalogService::Handlers::ViewExists(RestCatalogService&, Call& call) {
  TableIdentifier id = call.View();
  auto exists = call.cat->ViewExists(id);
  if (!exists.ok()) return FromStatus(exists.status(), Subject::kView);
  if (!*exists) {
    return Error(404, "NoSuchViewException", fmt::format("View does not exist: {}", id.ToString()));
  }
  return HttpResponse::NoContent();
}

HttpResponse RestCatalogService::Handlers::ReplaceView(RestCatalogService&, Call& call) {
  auto request = iceberg::CommitViewRequestFromJson(call.request.body);
  if (!request.ok()) return BadRequest(request.status().message());
  auto view = call.cat->CommitView(call.View(), request->requirements, request->updates);
  if (!view.ok()) {
    if (view.status().code() == StatusCode::kNotFound) {
      return FromStatus(view.status(), Subject::kView);
    }
    return FromStatus(view.status(), Subject::kCommit);
  }
  return HttpResponse::Json(200, LoadViewResultJson(*view));
}

HttpResponse RestCatalogService::Handlers::DropView(RestCatalogService&, Call& call) {
  Status dropped = call.cat->DropView(call.View());
  if (!dropped.ok()) return FromStatus(dropped, Subject::kView);
  return HttpResponse::NoContent();
}

HttpResponse RestCatalogService::Handlers::RegisterView(RestCatalogService&, Call& call) {
  auto body = ParseBody(call.request);
  if (!body.ok()) return BadRequest(body.status().message());
  auto name = GetString(*body, "name");
  if (!name.ok()) return BadRequest(name.status().message());
  auto location = GetString(*body, "metadata-location");
  if (!location.ok()) return BadRequest(location.status().message());
  auto view = call.cat->RegisterView(TableIdentifier{call.ns, *name}, *location);
  if (!view.ok()) {
    if (view.status().code() == StatusCode::kNotFound) {
      return FromStatus(view.status(), Subject::kNamespace, call.ns.ToString());
    }
    return FromStatus(view.status(), Subject::kView);
  }
  return HttpResponse::Json(200, LoadViewResultJson(*view));
}

HttpResponse RestCatalogService::Handlers::RenameView(RestCatalogService&, Call& call) {
  catalog::Catalog& cat = *call.cat;
  auto rename = RenameFromJson(call.request);
  if (!rename.ok()) return BadRequest(rename.status().message());
  const TableIdentifier& source = rename->first;
  const TableIdentifier& dest = rename->second;
  auto source_exists = cat.ViewExists(source);
  if (!source_exists.ok()) return FromStatus(source_exists.status(), Subject::kView);
  if (!*source_exists) {
    return Error(404, "NoSuchViewException",
                 fmt::format("View does not exist: {}", source.ToString()));
  }
  if (auto missing = MissingNamespace(cat, dest.ns)) return std::move(*missing);
  Status renamed = cat.RenameView(source, dest);
  if (!renamed.ok()) return FromStatus(renamed, Subject::kView);
  return HttpResponse::NoContent();
}

}  // namespace floe::rest
