#include "floe/rest/credential_vendor.h"

#include <algorithm>
#include <charconv>
#include <string_view>
#include <utility>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "floe/base/macros.h"
#include "floe/io/s3/s3_file_io.h"

namespace floe::rest {

namespace {

using OJson = nlohmann::ordered_json;

constexpr std::string_view kRoleArn = "vended-credentials.role-arn";
constexpr std::string_view kExternalId = "vended-credentials.external-id";
constexpr std::string_view kDuration = "vended-credentials.duration-seconds";
constexpr std::string_view kStsEndpoint = "vended-credentials.sts-endpoint";
constexpr std::string_view kStsRegion = "vended-credentials.sts-region";
constexpr std::string_view kStaticKeys = "vended-credentials.static-keys";
constexpr std::string_view kClientConfigPrefix = "client-config.";
constexpr std::string_view kAllowedLocations = "vended-credentials.allowed-locations";
constexpr int64_t kDefaultDurationSeconds = 3600;

const std::string* Find(const std::map<std::string, std::string>& properties,
                        std::string_view key) {
  auto it = properties.find(std::string(key));
  return it == properties.end() ? nullptr : &it->second;
}

bool IsS3(std::string_view location) {
  return location.starts_with("s3://") || location.starts_with("s3a://");
}

std::string WithoutTrailingSlash(std::string text) {
  while (text.size() > 1 && text.back() == '/') text.pop_back();
  return text;
}

// The ARN partition of a region (AWS General Reference, "Amazon Resource Names").
std::string PartitionOf(std::string_view region) {
  if (region.starts_with("cn-")) return "aws-cn";
  if (region.starts_with("us-gov-")) return "aws-us-gov";
  return "aws";
}

// RoleSessionName allows [\w+=,.@-]{2,64}: the catalog's name, other bytes replaced.
std::string SessionName(std::string_view catalog) {
  std::string name = "floe-";
  for (char c : catalog) {
    bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
              c == '+' || c == '=' || c == ',' || c == '.' || c == '@' || c == '_' || c == '-';
    name.push_back(ok ? c : '_');
    if (name.size() == 64) break;
  }
  return name;
}

void PutKeys(std::map<std::string, std::string>& config, const io::s3::AwsCredentials& keys,
             std::optional<int64_t> expires_at_ms) {
  config["s3.access-key-id"] = keys.access_key_id;
  config["s3.secret-access-key"] = keys.secret_access_key;
  if (!keys.session_token.empty()) config["s3.session-token"] = keys.session_token;
  if (expires_at_ms) config["s3.session-token-expires-at-ms"] = std::to_string(*expires_at_ms);
}

// The non-empty items of a comma-separated list, without surrounding spaces (an HTTP
// header's list, or a property's).
std::vector<std::string_view> CommaList(std::string_view list) {
  std::vector<std::string_view> items;
  while (!list.empty()) {
    const size_t comma = list.find(',');
    std::string_view item = list.substr(0, comma);
    while (!item.empty() && item.front() == ' ') item.remove_prefix(1);
    while (!item.empty() && item.back() == ' ') item.remove_suffix(1);
    if (!item.empty()) items.push_back(item);
    if (comma == std::string_view::npos) break;
    list.remove_prefix(comma + 1);
  }
  return items;
}

// Whether `location` is `allowed` or lies under it (s3:// and s3a:// name the same objects).
bool Under(std::string_view location, std::string_view allowed) {
  auto loc = io::s3::S3Location::Parse(location);
  auto root = io::s3::S3Location::Parse(allowed);
  if (!loc.ok() || !root.ok() || loc->bucket != root->bucket) return false;
  std::string_view key = loc->key;
  std::string_view prefix = root->key;
  while (key.ends_with('/')) key.remove_suffix(1);
  while (prefix.ends_with('/')) prefix.remove_suffix(1);
  if (prefix.empty() || key == prefix) return true;
  return key.size() > prefix.size() && key.starts_with(prefix) && key[prefix.size()] == '/';
}

}  // namespace

bool WantsVendedCredentials(std::string_view header) {
  const std::vector<std::string_view> items = CommaList(header);
  return std::find(items.begin(), items.end(), "vended-credentials") != items.end();
}

std::vector<std::string> StorageLocations(const iceberg::TableMetadata& metadata) {
  std::vector<std::string> out = {WithoutTrailingSlash(metadata.location)};
  for (const char* key : {"write.data.path", "write.metadata.path"}) {
    auto it = metadata.properties.find(key);
    if (it == metadata.properties.end() || it->second.empty()) continue;
    std::string path = WithoutTrailingSlash(it->second);
    // A path under the table's location is covered by it.
    if (path.starts_with(out.front() + "/")) continue;
    if (std::find(out.begin(), out.end(), path) == out.end()) out.push_back(std::move(path));
  }
  return out;
}

Result<std::string> SessionPolicy(const std::vector<std::string>& locations, StorageAccess access,
                                  std::string_view partition) {
  // Per bucket: the object ARNs under each prefix and the prefixes ListBucket may name.
  std::map<std::string, std::pair<OJson, OJson>> buckets;
  for (const std::string& location : locations) {
    FLOE_ASSIGN_OR_RETURN(io::s3::S3Location loc, io::s3::S3Location::Parse(location));
    std::string prefix = loc.key;
    while (!prefix.empty() && prefix.back() == '/') prefix.pop_back();
    auto& [objects, prefixes] = buckets[loc.bucket];
    if (objects.is_null()) objects = OJson::array();
    if (prefixes.is_null()) prefixes = OJson::array();
    if (prefix.empty()) {
      objects.push_back(fmt::format("arn:{}:s3:::{}/*", partition, loc.bucket));
      prefixes.push_back("*");
    } else {
      objects.push_back(fmt::format("arn:{}:s3:::{}/{}/*", partition, loc.bucket, prefix));
      prefixes.push_back(prefix);
      prefixes.push_back(prefix + "/*");
    }
  }
  OJson statements = OJson::array();
  OJson read_objects = OJson::array();
  OJson bucket_arns = OJson::array();
  for (const auto& [bucket, entry] : buckets) {
    for (const auto& arn : entry.first) read_objects.push_back(arn);
    std::string bucket_arn = fmt::format("arn:{}:s3:::{}", partition, bucket);
    bucket_arns.push_back(bucket_arn);
    statements.push_back(OJson{{"Effect", "Allow"},
                               {"Action", OJson::array({"s3:ListBucket"})},
                               {"Resource", bucket_arn},
                               {"Condition", {{"StringLike", {{"s3:prefix", entry.second}}}}}});
  }
  statements.push_back(OJson{{"Effect", "Allow"},
                             {"Action", OJson::array({"s3:GetBucketLocation"})},
                             {"Resource", bucket_arns}});
  statements.push_back(OJson{{"Effect", "Allow"},
                             {"Action", OJson::array({"s3:GetObject", "s3:GetObjectVersion"})},
                             {"Resource", read_objects}});
  if (access == StorageAccess::kReadWrite) {
    statements.push_back(
        OJson{{"Effect", "Allow"},
              {"Action", OJson::array({"s3:PutObject", "s3:DeleteObject", "s3:AbortMultipartUpload",
                                       "s3:ListMultipartUploadParts"})},
              {"Resource", read_objects}});
  }
  OJson policy = {{"Version", "2012-10-17"}, {"Statement", std::move(statements)}};
  return policy.dump(-1, ' ', false, OJson::error_handler_t::replace);
}

CredentialVendor::CredentialVendor(CredentialVendorOptions options)
    : options_(std::move(options)) {}

int64_t CredentialVendor::NowMs() const {
  auto now = options_.now ? options_.now() : std::chrono::system_clock::now();
  return std::chrono::duration_cast<std::chrono::milliseconds>(now.time_since_epoch()).count();
}

std::map<std::string, std::string> CredentialVendor::ClientConfig(
    const std::string& catalog) const {
  // Where the store is and how to address it; the keys stay on the server.
  std::map<std::string, std::string> config;
  if (options_.client_settings) config = options_.client_settings(catalog);
  if (!options_.catalog_properties) return config;
  std::optional<std::map<std::string, std::string>> properties =
      options_.catalog_properties(catalog);
  if (!properties) return config;
  // What the operator sets for clients only (an endpoint they reach under another name).
  for (const auto& [key, value] : *properties) {
    if (key.starts_with(kClientConfigPrefix) && key.size() > kClientConfigPrefix.size()) {
      config[key.substr(kClientConfigPrefix.size())] = value;
    }
  }
  return config;
}

Status CredentialVendor::CheckAllowed(const TableStorageRequest& request,
                                      const std::map<std::string, std::string>& properties) const {
  std::vector<std::string> allowed;
  if (const std::string* v = Find(properties, kAllowedLocations); v != nullptr && !v->empty()) {
    for (std::string_view item : CommaList(*v)) allowed.emplace_back(item);
  } else if (options_.catalog_warehouse) {
    allowed.push_back(options_.catalog_warehouse(request.catalog));
  }
  for (const std::string& location : request.locations) {
    bool inside = std::any_of(allowed.begin(), allowed.end(),
                              [&](const std::string& root) { return Under(location, root); });
    if (!inside) {
      return Status::FailedPrecondition(
          "no credentials are vended for {}: it is outside catalog '{}''s allowed locations "
          "({}; default: the catalog's warehouse)",
          location, request.catalog, kAllowedLocations);
    }
  }

  return Status::OK();
}

Result<std::optional<CredentialVendor::Vended>> CredentialVendor::Vend(
    const TableStorageRequest& request, const std::map<std::string, std::string>& properties) {
  const std::string* role = Find(properties, kRoleArn);
  bool static_keys = false;
  if (const std::string* v = Find(properties, kStaticKeys)) static_keys = *v == "true";
  if ((role == nullptr || role->empty()) && !static_keys) return std::nullopt;
  FLOE_RETURN_IF_ERROR(CheckAllowed(request, properties));

  FLOE_ASSIGN_OR_RETURN(io::s3::S3Options s3,
                        io::s3::S3Options::FromProperties(properties, options_.getenv));
  if (role == nullptr || role->empty()) {
    if (s3.credentials.access_key_id.empty()) {
      return Status::FailedPrecondition(
          "catalog '{}' has vended-credentials.static-keys but no keys of its own",
          request.catalog);
    }
    return Vended{s3.credentials, std::nullopt};
  }

  int64_t duration_s = kDefaultDurationSeconds;
  if (const std::string* v = Find(properties, kDuration)) {
    auto [ptr, ec] = std::from_chars(v->data(), v->data() + v->size(), duration_s);
    // STS accepts 900 s up to the role's maximum session duration (at most 12 h).
    if (ec != std::errc() || ptr != v->data() + v->size() || duration_s < 900 ||
        duration_s > 43'200) {
      return Status::InvalidArgument("catalog '{}': {} must be 900..43200, not '{}'",
                                     request.catalog, kDuration, *v);
    }
  }
  std::string external_id;
  if (const std::string* v = Find(properties, kExternalId)) external_id = *v;

  std::string key = fmt::format("{}\n{}\n{}\n{}\n{}\n", request.catalog, *role, external_id,
                                duration_s, request.access == StorageAccess::kRead ? "r" : "rw");
  for (const std::string& location : request.locations) key += location + '\n';
  const int64_t now_ms = NowMs();
  {
    std::lock_guard lock(mu_);
    auto it = cache_.find(key);
    // Handed out again while more than half its lifetime is left, so a client always gets
    // at least half the configured duration before it must refresh.
    if (it != cache_.end() &&
        it->second.credentials.expires_at_ms - now_ms > it->second.duration_ms / 2) {
      return Vended{it->second.credentials.credentials, it->second.credentials.expires_at_ms};
    }
  }

  io::s3::StsOptions sts;
  sts.region = s3.region;
  if (const std::string* v = Find(properties, kStsRegion); v != nullptr && !v->empty()) {
    sts.region = *v;
  }
  // MinIO and moto serve STS at their S3 endpoint; AWS has its own regional endpoint.
  sts.endpoint = s3.endpoint;
  if (const std::string* v = Find(properties, kStsEndpoint); v != nullptr && !v->empty()) {
    sts.endpoint = *v;
  }
  sts.credentials = s3.credentials;
  sts.transport = options_.sts_transport;
  sts.now = options_.now;

  io::s3::AssumeRoleRequest assume;
  assume.role_arn = *role;
  assume.role_session_name = SessionName(request.catalog);
  assume.external_id = external_id;
  assume.duration_seconds = duration_s;
  FLOE_ASSIGN_OR_RETURN(assume.policy,
                        SessionPolicy(request.locations, request.access, PartitionOf(sts.region)));
  FLOE_ASSIGN_OR_RETURN(io::s3::TemporaryCredentials fresh, io::s3::AssumeRole(sts, assume));

  std::lock_guard lock(mu_);
  if (cache_.size() >= options_.max_cached) {
    std::erase_if(cache_, [&](const auto& entry) {
      return entry.second.credentials.expires_at_ms - now_ms <= entry.second.duration_ms / 2;
    });
    if (cache_.size() >= options_.max_cached) cache_.clear();
  }
  cache_[key] = CacheEntry{fresh, duration_s * 1000};
  return Vended{fresh.credentials, fresh.expires_at_ms};
}

Result<TableStorage> CredentialVendor::ForTable(const TableStorageRequest& request) {
  TableStorage out;
  std::optional<std::map<std::string, std::string>> properties =
      options_.catalog_properties ? options_.catalog_properties(request.catalog) : std::nullopt;
  if (!properties) return out;
  // A table's config overrides the client's own settings (REST OpenAPI, LoadTableResult),
  // unlike /v1/config defaults: without vended credentials it carries only what the
  // operator set for clients explicitly, so a client that reaches the store under another
  // name than the server (a container network) keeps its own s3.endpoint.
  for (const auto& [key, value] : *properties) {
    if (key.starts_with(kClientConfigPrefix) && key.size() > kClientConfigPrefix.size()) {
      out.config[key.substr(kClientConfigPrefix.size())] = value;
    }
  }
  if (!request.vended || request.locations.empty() || !IsS3(request.locations.front())) {
    return out;
  }
  // A table outside the allowed locations gets no credentials (GET .../credentials says
  // why); its load still succeeds for clients with keys of their own.
  if (!CheckAllowed(request, *properties).ok()) return out;
  FLOE_ASSIGN_OR_RETURN(std::optional<Vended> vended, Vend(request, *properties));
  // A catalog that does not vend answers as before: pyiceberg asks for vended credentials
  // by default, and its users bring their own keys.
  if (!vended) return out;
  // Credentials go with the store they are valid for.
  out.config = ClientConfig(request.catalog);
  StorageCredential credential;
  credential.prefix = request.locations.front();
  PutKeys(credential.config, vended->credentials, vended->expires_at_ms);
  // Older clients read the keys from `config` only.
  PutKeys(out.config, vended->credentials, vended->expires_at_ms);
  // Without a leading '/': Iceberg Java's VendedCredentialsProvider hands the value to its
  // HTTPClient as a path relative to the catalog URI, and that client refuses paths that
  // start with '/' (HTTPRequest.check), so a refresh would fail once the first credentials
  // near expiry. Relative, it also resolves under a catalog URI with a path of its own.
  std::string_view refresh_endpoint = request.refresh_endpoint;
  while (refresh_endpoint.starts_with('/')) refresh_endpoint.remove_prefix(1);
  if (vended->expires_at_ms && !refresh_endpoint.empty()) {
    for (auto* config : {&out.config, &credential.config}) {
      (*config)["client.refresh-credentials-endpoint"] = std::string(refresh_endpoint);
      (*config)["client.refresh-credentials-enabled"] = "true";
    }
  }
  out.credentials.push_back(std::move(credential));
  for (size_t i = 1; i < request.locations.size(); ++i) {
    if (!IsS3(request.locations[i])) continue;
    StorageCredential more = out.credentials.front();
    more.prefix = request.locations[i];
    out.credentials.push_back(std::move(more));
  }
  return out;
}

Result<std::vector<StorageCredential>> CredentialVendor::Credentials(
    const TableStorageRequest& request) {
  if (request.locations.empty() || !IsS3(request.locations.front())) {
    return std::vector<StorageCredential>{};
  }
  std::optional<std::map<std::string, std::string>> properties =
      options_.catalog_properties ? options_.catalog_properties(request.catalog) : std::nullopt;
  if (!properties) return Status::NotFound("no catalog named '{}'", request.catalog);
  FLOE_ASSIGN_OR_RETURN(std::optional<Vended> vended, Vend(request, *properties));
  if (!vended) {
    return Status::FailedPrecondition(
        "catalog '{}' does not vend credentials: set {} (or {}: true) in its properties",
        request.catalog, kRoleArn, kStaticKeys);
  }
  TableStorageRequest forced = request;
  forced.vended = true;
  FLOE_ASSIGN_OR_RETURN(TableStorage storage, ForTable(forced));
  return std::move(storage.credentials);
}

}  // namespace floe::rest
