#include "floe/io/s3/sts.h"

#include <utility>
#include <vector>

#include <fmt/format.h>

#include "floe/base/macros.h"
#include "floe/io/s3/s3_file_io.h"
#include "floe/io/s3/xml.h"

namespace floe::io::s3 {

namespace {

constexpr std::string_view kFormContentType = "application/x-www-form-urlencoded; charset=utf-8";

// At most this much of a server's text goes into an error message.
std::string Clip(std::string_view text) {
  constexpr size_t kMax = 300;
  std::string out(text.substr(0, kMax));
  for (char& c : out) {
    if (static_cast<unsigned char>(c) < 0x20) c = ' ';
  }
  if (text.size() > kMax) out += "...";
  return out;
}

struct StsEndpoint {
  std::string scheme;
  std::string host;  // host[:port], without a default port (curl leaves it out of Host)
  std::string path;  // "/" or "/base"
};

Result<StsEndpoint> ParseStsEndpoint(std::string_view url) {
  size_t sep = url.find("://");
  StsEndpoint e;
  if (sep != std::string_view::npos) e.scheme = std::string(url.substr(0, sep));
  if (e.scheme != "http" && e.scheme != "https") {
    return Status::InvalidArgument("STS endpoint '{}': expected http(s)://host[:port]", Clip(url));
  }
  std::string_view rest = url.substr(sep + 3);
  size_t slash = rest.find('/');
  std::string_view host = rest.substr(0, slash);
  if (host.empty() || host.find('@') != std::string_view::npos ||
      host.find_first_of(" \r\n?#") != std::string_view::npos) {
    return Status::InvalidArgument("STS endpoint '{}': expected a host (and no credentials)",
                                   Clip(url));
  }
  if (e.scheme == "http" && host.ends_with(":80")) host.remove_suffix(3);
  if (e.scheme == "https" && host.ends_with(":443")) host.remove_suffix(4);
  e.host = std::string(host);
  std::string_view base = slash == std::string_view::npos ? "" : rest.substr(slash);
  while (base.ends_with('/')) base.remove_suffix(1);
  e.path = base.empty() ? "/" : std::string(base);
  return e;
}

// A field's text without surrounding whitespace (pretty-printed answers indent it).
std::string Field(const XmlElement& parent, std::string_view name) {
  std::string_view text = parent.ChildText(name);
  while (!text.empty() && (text.front() == ' ' || text.front() == '\n' || text.front() == '\r' ||
                           text.front() == '\t')) {
    text.remove_prefix(1);
  }
  while (!text.empty() && (text.back() == ' ' || text.back() == '\n' || text.back() == '\r' ||
                           text.back() == '\t')) {
    text.remove_suffix(1);
  }
  return std::string(text);
}

bool ValidSessionName(std::string_view name) {
  if (name.size() < 2 || name.size() > 64) return false;
  for (char c : name) {
    bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
              c == '+' || c == '=' || c == ',' || c == '.' || c == '@' || c == '_' || c == '-';
    if (!ok) return false;
  }
  return true;
}

}  // namespace

Result<http::ClientRequest> BuildAssumeRoleRequest(const StsOptions& options,
                                                   const AssumeRoleRequest& request,
                                                   int64_t unix_seconds) {
  if (options.region.empty()) return Status::InvalidArgument("STS: empty region");
  if (options.credentials.access_key_id.empty() || options.credentials.secret_access_key.empty()) {
    return Status::InvalidArgument(
        "STS AssumeRole needs the server's own keys (s3.access-key-id / AWS_ACCESS_KEY_ID)");
  }
  if (request.role_arn.empty()) return Status::InvalidArgument("STS AssumeRole: empty role ARN");
  if (!ValidSessionName(request.role_session_name)) {
    return Status::InvalidArgument("STS AssumeRole: bad role session name '{}'",
                                   Clip(request.role_session_name));
  }
  std::string url = options.endpoint.empty()
                        ? fmt::format("https://sts.{}.amazonaws.com", options.region)
                        : options.endpoint;
  FLOE_ASSIGN_OR_RETURN(StsEndpoint endpoint, ParseStsEndpoint(url));

  // Parameters in the order the API reference lists them; the body is signed as sent.
  std::vector<std::pair<std::string, std::string>> form = {
      {"Action", "AssumeRole"},
      {"Version", "2011-06-15"},
      {"RoleArn", request.role_arn},
      {"RoleSessionName", request.role_session_name},
      {"DurationSeconds", std::to_string(request.duration_seconds)}};
  if (!request.external_id.empty()) form.emplace_back("ExternalId", request.external_id);
  if (!request.policy.empty()) form.emplace_back("Policy", request.policy);

  http::ClientRequest out;
  out.method = "POST";
  out.url = endpoint.scheme + "://" + endpoint.host + endpoint.path;
  out.body = http::FormEncode(form);

  SigningRequest signing;
  signing.method = "POST";
  signing.path = endpoint.path;
  signing.payload_hash = Sha256Hex(out.body);
  std::string amz_date = AmzDate(unix_seconds);
  signing.headers = {{"content-type", std::string(kFormContentType)},
                     {"host", endpoint.host},
                     {"x-amz-date", amz_date}};
  if (!options.credentials.session_token.empty()) {
    signing.headers.emplace_back("x-amz-security-token", options.credentials.session_token);
  }
  out.headers = signing.headers;
  SigningScope scope{amz_date, options.region, "sts"};
  out.headers.emplace_back("authorization",
                           AuthorizationHeader(options.credentials, scope, signing));
  return out;
}

Result<TemporaryCredentials> ParseAssumeRoleResponse(int status, std::string_view body) {
  auto parsed = ParseXml(body);
  if (!parsed.ok()) {
    if (status >= 500) {
      return Status::Unavailable("STS answered HTTP {}: {}", status, Clip(body));
    }
    return Status::Corrupt("STS answered HTTP {} with a body that is not XML ({}): {}", status,
                           parsed.status().message(), Clip(body));
  }
  const XmlElement& root = *parsed;
  if (status < 200 || status > 299 || root.name == "ErrorResponse" || root.name == "Error") {
    const XmlElement* error = root.name == "Error" ? &root : root.Child("Error");
    std::string code = error ? Clip(Field(*error, "Code")) : "";
    std::string message = error ? Clip(Field(*error, "Message")) : "";
    if (code.empty()) {
      if (status >= 500) {
        return Status::Unavailable("STS answered HTTP {}: {}", status, Clip(body));
      }
      return Status::Corrupt("STS answered HTTP {} without an error code: {}", status, Clip(body));
    }
    std::string text =
        fmt::format("STS AssumeRole refused (HTTP {}, {}): {}", status, code, message);
    if (status >= 500 || code == "Throttling" || code == "ThrottlingException" ||
        code == "RequestLimitExceeded" || code == "ServiceUnavailable") {
      return Status::Unavailable("{}", text);
    }
    if (status == 403 || code == "AccessDenied" || code == "InvalidClientTokenId" ||
        code == "SignatureDoesNotMatch" || code == "ExpiredToken" ||
        code == "RegionDisabledException") {
      return Status::PermissionDenied("{}", text);
    }
    return Status::InvalidArgument("{}", text);
  }
  if (root.name != "AssumeRoleResponse") {
    return Status::Corrupt("STS answered <{}>, not <AssumeRoleResponse>", Clip(root.name));
  }
  const XmlElement* result = root.Child("AssumeRoleResult");
  const XmlElement* credentials = result ? result->Child("Credentials") : nullptr;
  if (credentials == nullptr) {
    return Status::Corrupt("STS AssumeRoleResponse without AssumeRoleResult/Credentials");
  }
  TemporaryCredentials out;
  out.credentials.access_key_id = Field(*credentials, "AccessKeyId");
  out.credentials.secret_access_key = Field(*credentials, "SecretAccessKey");
  out.credentials.session_token = Field(*credentials, "SessionToken");
  if (out.credentials.access_key_id.empty() || out.credentials.secret_access_key.empty() ||
      out.credentials.session_token.empty()) {
    return Status::Corrupt(
        "STS AssumeRoleResponse lacks AccessKeyId, SecretAccessKey or SessionToken");
  }
  auto expires = ParseS3Timestamp(Field(*credentials, "Expiration"));
  if (!expires.ok()) {
    return Status::Corrupt("STS AssumeRoleResponse: bad Expiration: {}",
                           expires.status().message());
  }
  out.expires_at_ms = *expires;
  return out;
}

Result<TemporaryCredentials> AssumeRole(const StsOptions& options,
                                        const AssumeRoleRequest& request) {
  auto now = options.now ? options.now() : std::chrono::system_clock::now();
  int64_t seconds =
      std::chrono::duration_cast<std::chrono::seconds>(now.time_since_epoch()).count();
  FLOE_ASSIGN_OR_RETURN(http::ClientRequest http_request,
                        BuildAssumeRoleRequest(options, request, seconds));
  Result<http::ClientResponse> response = [&]() -> Result<http::ClientResponse> {
    if (options.transport) return options.transport(http_request);
    http::HttpClientOptions client_options;
    client_options.request_timeout_ms = 30'000;
    client_options.max_response_bytes = 1 << 20;
    FLOE_ASSIGN_OR_RETURN(std::unique_ptr<http::HttpClient> client,
                          http::HttpClient::Make(client_options));
    return client->Send(http_request);
  }();
  if (!response.ok()) return response.status();
  return ParseAssumeRoleResponse(response->status, response->body);
}

}  // namespace floe::io::s3
