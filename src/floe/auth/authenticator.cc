#include "floe/auth/authenticator.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <charconv>
#include <cstring>
#include <fstream>
#include <optional>
#include <sstream>
#include <utility>

#include "floe/auth/crypto.h"
#include "floe/base/json_writer.h"
#include "floe/base/macros.h"

namespace floe::auth {

namespace {

constexpr std::string_view kTokenVersion = "floe1";
constexpr std::string_view kClientCredentials = "client_credentials";
constexpr std::string_view kTokenExchange = "urn:ietf:params:oauth:grant-type:token-exchange";
constexpr std::string_view kAccessTokenType = "urn:ietf:params:oauth:token-type:access_token";
constexpr size_t kKeyBytes = 32;

bool EqualsIgnoreCase(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (std::tolower(static_cast<unsigned char>(a[i])) !=
        std::tolower(static_cast<unsigned char>(b[i]))) {
      return false;
    }
  }
  return true;
}

// The credentials of an `Authorization: <scheme> <credentials>` header when its scheme is
// `scheme` (case-insensitive, RFC 9110 §11.1); nullopt for another scheme or no header.
std::optional<std::string_view> Credentials(const http::HttpRequest& request,
                                            std::string_view scheme) {
  const std::string* header = request.Header("authorization");
  if (header == nullptr) return std::nullopt;
  std::string_view value = *header;
  size_t space = value.find(' ');
  if (space == std::string_view::npos || !EqualsIgnoreCase(value.substr(0, space), scheme)) {
    return std::nullopt;
  }
  value.remove_prefix(space);
  while (!value.empty() && value.front() == ' ') value.remove_prefix(1);
  while (!value.empty() && value.back() == ' ') value.remove_suffix(1);
  return value;
}

// An OAuth error response (RFC 6749 §5.2; the REST spec's OAuthError). `description` must
// not contain credentials: clients print it.
http::HttpResponse OAuthError(int status, std::string_view error, std::string_view description) {
  std::string body;
  JsonWriter w(&body);
  w.BeginObject();
  w.Key("error");
  w.String(error);
  w.Key("error_description");
  w.String(description);
  w.EndObject();
  http::HttpResponse response = http::HttpResponse::Json(status, std::move(body));
  response.headers.emplace_back("Cache-Control", "no-store");
  // RFC 6749 §5.2: a 401 from the token endpoint challenges for client authentication.
  if (status == 401) response.headers.emplace_back("WWW-Authenticate", "Basic realm=\"floe\"");
  return response;
}

// The address part of "ip:port" (IPv6 addresses contain ':' themselves).
std::string_view PeerAddress(std::string_view remote) {
  size_t colon = remote.rfind(':');
  return colon == std::string_view::npos ? remote : remote.substr(0, colon);
}

Status CheckScram(const Principal& p, const std::optional<ScramCredential>& c, size_t digest,
                  std::string_view mechanism) {
  if (!c) return Status::OK();
  if (c->salt.empty() || c->iterations < 4096 || c->iterations > 16384 ||
      c->stored_key.size() != digest || c->server_key.size() != digest) {
    return Status::InvalidArgument(
        "principal '{}': the {} credential needs a salt, 4096..16384 iterations and {}-byte keys",
        p.name, mechanism, digest);
  }
  return Status::OK();
}

// 429 for a throttled client (RFC 6585 §4), with the wait in whole seconds, at least one.
http::HttpResponse TooManyAttempts(int64_t wait_ms, const Status& why) {
  http::HttpResponse response = OAuthError(429, "invalid_client", why.message());
  response.headers.emplace_back("Retry-After",
                                std::to_string(std::max<int64_t>(1, (wait_ms + 999) / 1000)));
  return response;
}

}  // namespace

FailureThrottle::FailureThrottle(int32_t burst, int64_t refill_ms, size_t max_keys)
    : burst_(std::max<int32_t>(burst, 1)),
      refill_ms_(std::max<int64_t>(refill_ms, 1)),
      max_keys_(std::max<size_t>(max_keys, 1)) {}

int64_t FailureThrottle::WaitMs(std::string_view key, int64_t now_ms) const {
  std::lock_guard lock(mutex_);
  auto it = tat_.find(std::string(key));
  if (it == tat_.end()) return 0;
  // `burst` failures outstanding make the next attempt wait until one has drained.
  int64_t wait = it->second - now_ms - (burst_ - 1) * refill_ms_;
  return wait > 0 ? wait : 0;
}

void FailureThrottle::RecordFailure(std::string_view key, int64_t now_ms) {
  std::lock_guard lock(mutex_);
  auto it = tat_.find(std::string(key));
  if (it == tat_.end()) {
    if (tat_.size() >= max_keys_) {
      // Drained keys are as good as absent; if none is, forget the one nearest to draining
      // (an attacker cycling through ids can only push out the ids it made itself longest
      // ago, and the per-peer count still holds it back).
      std::erase_if(tat_, [&](const auto& entry) { return entry.second <= now_ms; });
      if (tat_.size() >= max_keys_) {
        auto oldest = std::min_element(tat_.begin(), tat_.end(), [](const auto& a, const auto& b) {
          return a.second < b.second;
        });
        tat_.erase(oldest);
      }
    }
    it = tat_.emplace(std::string(key), now_ms).first;
  }
  it->second = std::max(it->second, now_ms) + refill_ms_;
}

size_t FailureThrottle::size() const {
  std::lock_guard lock(mutex_);
  return tat_.size();
}

Result<Access> ParseAccess(std::string_view text) {
  if (text == "none") return Access::kNone;
  if (text == "read") return Access::kRead;
  if (text == "write") return Access::kWrite;
  return Status::InvalidArgument("access must be read, write or none, not '{}'", text);
}

Result<std::unique_ptr<Authenticator>> Authenticator::Make(AuthConfig config, std::string token_key,
                                                           std::function<int64_t()> now_ms) {
  if (token_key.size() < kKeyBytes) {
    return Status::InvalidArgument("the token key must have at least {} bytes", kKeyBytes);
  }
  if (config.token_lifetime_seconds < 1) {
    return Status::InvalidArgument("the token lifetime must be at least one second");
  }
  std::unique_ptr<Authenticator> auth(new Authenticator());
  auth->config_ = std::move(config);
  auth->key_ = std::move(token_key);
  auth->now_ms_ = std::move(now_ms);
  const AuthThrottleConfig& t = auth->config_.throttle;
  auth->client_failures_ =
      std::make_unique<FailureThrottle>(t.client_burst, t.refill_ms, t.max_keys);
  auth->peer_failures_ = std::make_unique<FailureThrottle>(t.peer_burst, t.refill_ms, t.max_keys);
  for (const Principal& p : auth->config_.principals) {
    if (p.name.empty()) return Status::InvalidArgument("a principal has an empty name");
    if (!auth->by_name_.emplace(p.name, &p).second) {
      return Status::InvalidArgument("principal '{}' is defined twice", p.name);
    }
    if (p.secret_sha256.empty() && p.token_sha256s.empty() && !p.scram_sha256 && !p.scram_sha512) {
      return Status::InvalidArgument(
          "principal '{}' has no credential (secret, token or SCRAM credential)", p.name);
    }
    FLOE_RETURN_IF_ERROR(CheckScram(p, p.scram_sha256, 32, "SCRAM-SHA-256"));
    FLOE_RETURN_IF_ERROR(CheckScram(p, p.scram_sha512, 64, "SCRAM-SHA-512"));
    if (!p.secret_sha256.empty() && p.secret_sha256.size() != kSha256Bytes) {
      return Status::InvalidArgument("principal '{}': a secret hash is {} bytes", p.name,
                                     kSha256Bytes);
    }
    for (const std::string& hash : p.token_sha256s) {
      if (hash.size() != kSha256Bytes) {
        return Status::InvalidArgument("principal '{}': a token hash is {} bytes", p.name,
                                       kSha256Bytes);
      }
      // One token naming two principals would make the access it grants ambiguous.
      if (!auth->by_token_sha256_.emplace(hash, &p).second) {
        return Status::InvalidArgument("principal '{}': a token hash is used twice", p.name);
      }
    }
  }
  return auth;
}

std::string Authenticator::Mac(std::string_view payload, const Principal& principal) const {
  std::string input(payload);
  input += '\n';
  input += principal.secret_sha256;
  return HmacSha256(key_, input);
}

std::string Authenticator::IssueToken(const Principal& principal) const {
  // The expiry second is rounded up so that the token is valid for the whole `expires_in` of
  // the token response: Iceberg Java refreshes at 90% of expires_in (OAuth2Util
  // scheduleTokenRefresh), and a token cut short by up to a second (rounding down) would lapse
  // before that with short lifetimes; its refresh then fails and the session stalls.
  int64_t expires_s = (now_ms_() + config_.token_lifetime_seconds * 1000 + 999) / 1000;
  std::string payload =
      fmt::format("{}.{}.{}", kTokenVersion, HexEncode(principal.name), expires_s);
  return payload + '.' + HexEncode(Mac(payload, principal));
}

Result<const Principal*> Authenticator::VerifyToken(std::string_view token,
                                                    bool allow_expired) const {
  // Static tokens first: a configured token may look like an issued one.
  if (auto it = by_token_sha256_.find(Sha256(token)); it != by_token_sha256_.end()) {
    return it->second;
  }
  auto invalid = [] { return Status::Unauthenticated("the bearer token is not valid"); };
  size_t mac_dot = token.rfind('.');
  if (mac_dot == std::string_view::npos) return invalid();
  std::string_view payload = token.substr(0, mac_dot);
  std::string_view rest = payload;
  if (!rest.starts_with(kTokenVersion) || rest.substr(kTokenVersion.size(), 1) != ".") {
    return invalid();
  }
  rest.remove_prefix(kTokenVersion.size() + 1);
  size_t dot = rest.find('.');
  if (dot == std::string_view::npos) return invalid();
  auto name = HexDecode(rest.substr(0, dot));
  auto mac = HexDecode(token.substr(mac_dot + 1));
  if (!name.ok() || !mac.ok()) return invalid();
  std::string_view expiry = rest.substr(dot + 1);
  int64_t expires_s = 0;
  auto [end, ec] = std::from_chars(expiry.data(), expiry.data() + expiry.size(), expires_s);
  if (ec != std::errc() || end != expiry.data() + expiry.size()) return invalid();
  auto principal = by_name_.find(*name);
  if (principal == by_name_.end()) return invalid();
  if (!ConstantTimeEquals(*mac, Mac(payload, *principal->second))) return invalid();
  if (!allow_expired && now_ms_() / 1000 >= expires_s) {
    return Status::Unauthenticated("the bearer token expired");
  }
  return principal->second;
}

Result<const Principal*> Authenticator::Authenticate(const http::HttpRequest& request) const {
  std::optional<std::string_view> token = Credentials(request, "Bearer");
  if (!token || token->empty()) {
    return Status::Unauthenticated("authentication is required: send Authorization: Bearer");
  }
  return VerifyToken(*token);
}

Result<const Principal*> Authenticator::AuthenticateBasicOrBearer(
    const http::HttpRequest& request) const {
  if (std::optional<std::string_view> basic = Credentials(request, "Basic")) {
    auto decoded = Base64Decode(*basic);
    size_t colon = decoded.ok() ? decoded->find(':') : std::string::npos;
    if (colon == std::string::npos) {
      return Status::Unauthenticated("malformed HTTP Basic credentials");
    }
    return AuthenticateSecret(std::string_view(*decoded).substr(0, colon),
                              std::string_view(*decoded).substr(colon + 1),
                              PeerAddress(request.remote));
  }
  std::optional<std::string_view> token = Credentials(request, "Bearer");
  if (!token || token->empty()) {
    return Status::Unauthenticated(
        "authentication is required: send Authorization: Basic or Bearer");
  }
  return VerifyToken(*token);
}

bool Authenticator::ReadsEveryCatalog(const Principal& principal) {
  auto all = principal.catalogs.find("*");
  if (all == principal.catalogs.end() || all->second < Access::kRead) return false;
  for (const auto& [catalog, access] : principal.catalogs) {
    if (access < Access::kRead) return false;
  }
  return true;
}

Status Authenticator::Authorize(const Principal& principal, std::string_view catalog,
                                Access needed) {
  // A catalog's own entry wins over "*", so "*" can grant broadly and an entry narrow it.
  Access held = Access::kNone;
  if (auto it = principal.catalogs.find(std::string(catalog)); it != principal.catalogs.end()) {
    held = it->second;
  } else if (auto all = principal.catalogs.find("*"); all != principal.catalogs.end()) {
    held = all->second;
  }
  if (held >= needed) return Status::OK();
  return Status::PermissionDenied("principal '{}' may not {} catalog '{}'", principal.name,
                                  needed == Access::kWrite ? "change" : "read", catalog);
}

// Client authentication (RFC 6749 §2.3.1): HTTP Basic, else client_id and client_secret in
// the body. Returns nullptr (and *sent false) when the request carries neither.
Result<const Principal*> Authenticator::AuthenticateClient(
    const http::HttpRequest& request, const std::map<std::string, std::string>& form, bool* sent,
    std::string* client_id) const {
  std::string& id = *client_id;
  std::string secret;
  if (std::optional<std::string_view> basic = Credentials(request, "Basic")) {
    // Iceberg Java sends base64("id:secret") without the form-encoding the RFC asks for, so
    // the decoded text is taken as is; ids and secrets with ':' or '%' are best avoided.
    auto decoded = Base64Decode(*basic);
    size_t colon = decoded.ok() ? decoded->find(':') : std::string::npos;
    if (colon == std::string::npos) {
      *sent = true;
      return Status::Unauthenticated("malformed HTTP Basic client credentials");
    }
    id = decoded->substr(0, colon);
    secret = decoded->substr(colon + 1);
  } else {
    auto id_it = form.find("client_id");
    auto secret_it = form.find("client_secret");
    if (id_it == form.end() && secret_it == form.end()) {
      *sent = false;
      return nullptr;
    }
    if (id_it == form.end() || secret_it == form.end()) {
      *sent = true;
      return Status::Unauthenticated("client credentials need both client_id and client_secret");
    }
    id = id_it->second;
    secret = secret_it->second;
  }
  *sent = true;
  return AuthenticateSecret(id, secret, PeerAddress(request.remote));
}

const Principal* Authenticator::FindPrincipal(std::string_view name) const {
  auto it = by_name_.find(name);
  return it == by_name_.end() ? nullptr : it->second;
}

std::string Authenticator::FakeScramSalt(std::string_view name, std::string_view mechanism) const {
  return HmacSha256(key_, fmt::format("scram-salt\n{}\n{}", mechanism, name)).substr(0, 16);
}

int64_t Authenticator::ThrottleWaitMs(std::string_view client_id, std::string_view peer) const {
  int64_t now = now_ms_();
  int64_t wait = client_id.empty() ? 0 : client_failures_->WaitMs(client_id, now);
  if (!peer.empty()) wait = std::max(wait, peer_failures_->WaitMs(peer, now));
  return wait;
}

void Authenticator::RecordFailure(std::string_view client_id, std::string_view peer) const {
  int64_t now = now_ms_();
  if (!client_id.empty()) client_failures_->RecordFailure(client_id, now);
  if (!peer.empty()) peer_failures_->RecordFailure(peer, now);
}

Status Authenticator::CheckThrottle(std::string_view client_id, std::string_view peer) const {
  int64_t wait = ThrottleWaitMs(client_id, peer);
  if (wait == 0) return Status::OK();
  return Status::ResourceExhausted("too many failed authentication attempts; retry after {} s",
                                   (wait + 999) / 1000);
}

Result<const Principal*> Authenticator::AuthenticateSecret(std::string_view client_id,
                                                           std::string_view secret,
                                                           std::string_view peer) const {
  // Refused unchecked while throttled, for known and unknown ids alike.
  FLOE_RETURN_IF_ERROR(CheckThrottle(client_id, peer));
  const Principal* principal = FindPrincipal(client_id);
  // Hash and compare for unknown clients too, against a dummy hash, so timing does not tell
  // which ids exist.
  static const std::string kNoSecret(kSha256Bytes, '\0');
  const std::string& expected = principal != nullptr && !principal->secret_sha256.empty()
                                    ? principal->secret_sha256
                                    : kNoSecret;
  bool match = ConstantTimeEquals(Sha256(secret), expected);
  if (principal == nullptr || principal->secret_sha256.empty() || !match) {
    RecordFailure(client_id, peer);
    return Status::Unauthenticated("unknown client or incorrect secret");
  }
  return principal;
}

http::HttpResponse Authenticator::HandleTokenRequest(const http::HttpRequest& request) const {
  if (request.method != "POST") {
    return OAuthError(400, "invalid_request", "use POST with a form-encoded body");
  }
  auto pairs = http::ParseQuery(request.body);
  if (!pairs.ok()) return OAuthError(400, "invalid_request", "malformed form-encoded body");
  std::map<std::string, std::string> form;
  for (auto& [name, value] : *pairs) {
    // RFC 6749 §3.2: parameters must not be repeated.
    if (!form.emplace(name, std::move(value)).second) {
      return OAuthError(400, "invalid_request", fmt::format("parameter '{}' is repeated", name));
    }
  }
  bool sent_client = false;
  std::string client_id;
  auto client = AuthenticateClient(request, form, &sent_client, &client_id);
  if (!client.ok()) {
    if (client.status().code() == StatusCode::kResourceExhausted) {
      return TooManyAttempts(ThrottleWaitMs(client_id, PeerAddress(request.remote)),
                             client.status());
    }
    return OAuthError(401, "invalid_client", client.status().message());
  }

  auto grant = form.find("grant_type");
  if (grant == form.end()) return OAuthError(400, "invalid_request", "grant_type is missing");
  const Principal* principal = nullptr;
  if (grant->second == kClientCredentials) {
    if (!sent_client) return OAuthError(401, "invalid_client", "client credentials are missing");
    principal = *client;
  } else if (grant->second == kTokenExchange) {
    auto subject = form.find("subject_token");
    if (subject == form.end() || subject->second.empty()) {
      return OAuthError(400, "invalid_request", "subject_token is missing");
    }
    // Authenticated clients may renew their own expired token (Iceberg Java does so with
    // Basic credentials once a token has lapsed); anyone else needs a token still valid.
    // Guessing subject tokens is throttled per peer like guessing secrets.
    std::string_view peer = PeerAddress(request.remote);
    if (Status throttled = CheckThrottle({}, peer); !throttled.ok()) {
      return TooManyAttempts(ThrottleWaitMs({}, peer), throttled);
    }
    auto verified = VerifyToken(subject->second, /*allow_expired=*/sent_client);
    if (!verified.ok()) {
      RecordFailure({}, peer);
      return OAuthError(400, "invalid_grant", verified.status().message());
    }
    if (sent_client && *verified != *client) {
      return OAuthError(400, "invalid_grant", "the subject token belongs to another client");
    }
    principal = *verified;
  } else {
    return OAuthError(
        400, "unsupported_grant_type",
        fmt::format("grant_type must be {} or {}", kClientCredentials, kTokenExchange));
  }

  // The scope is not checked: a token carries its principal's roles, whatever the client
  // asked for (Iceberg clients send "catalog" by default; others send their own).
  std::string body;
  JsonWriter w(&body);
  w.BeginObject();
  w.Key("access_token");
  w.String(IssueToken(*principal));
  w.Key("token_type");
  w.String("bearer");
  w.Key("expires_in");
  w.Int(config_.token_lifetime_seconds);
  w.Key("issued_token_type");
  w.String(kAccessTokenType);
  w.EndObject();
  http::HttpResponse response = http::HttpResponse::Json(200, std::move(body));
  // RFC 6749 §5.1: token responses must not be cached.
  response.headers.emplace_back("Cache-Control", "no-store");
  response.headers.emplace_back("Pragma", "no-cache");
  response.principal = principal->name;
  response.grant = grant->second == kTokenExchange ? "token-exchange" : "client_credentials";
  return response;
}

Result<std::string> LoadOrCreateTokenKey(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    if (errno != ENOENT) return Status::IOError("cannot open token key file {}", path);
    FLOE_ASSIGN_OR_RETURN(std::string key, RandomBytes(kKeyBytes));
    std::string text = HexEncode(key) + "\n";
    // Write a private temporary file, then link it into place: link fails when the file
    // exists, so of several servers starting together the first one's key wins for all.
    std::string tmp = fmt::format("{}.tmp{}", path, ::getpid());
    int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (fd < 0) {
      return Status::IOError("cannot create token key file {}: {}", tmp, std::strerror(errno));
    }
    bool written = ::write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size()) &&
                   ::fsync(fd) == 0;
    ::close(fd);
    int linked = written ? ::link(tmp.c_str(), path.c_str()) : -1;
    int link_errno = errno;
    ::unlink(tmp.c_str());
    if (!written) return Status::IOError("cannot write token key file {}", tmp);
    if (linked != 0 && link_errno != EEXIST) {
      return Status::IOError("cannot create token key file {}: {}", path,
                             std::strerror(link_errno));
    }
    in.open(path, std::ios::binary);
    if (!in) return Status::IOError("cannot open token key file {}", path);
  }
  std::ostringstream text;
  text << in.rdbuf();
  std::string hex = text.str();
  while (!hex.empty() && std::isspace(static_cast<unsigned char>(hex.back()))) hex.pop_back();
  auto key = HexDecode(hex);
  if (!key.ok() || key->size() < kKeyBytes) {
    return Status::InvalidArgument("token key file {} must hold at least {} bytes as hex", path,
                                   kKeyBytes);
  }
  return std::move(*key);
}

}  // namespace floe::auth
