// Authenticator: who a request to `floe server` comes from, and what it may do there
// (docs/server.md, "Authentication").
//
// Principals are configured in floe.yaml (server/config.h). A principal proves who it is with
// a client secret, exchanged for a bearer token at POST /v1/oauth/tokens (OAuth2 client
// credentials, as Iceberg's REST clients do with `credential=id:secret`), or with a static
// bearer token. Secrets and static tokens are configured as SHA-256 hashes only, so floe.yaml
// holds nothing a client could present. Each principal has a role per catalog: read (GET and
// HEAD, plus the POSTs that only read: scan reports and scan planning) or write (everything).
//
// Issued tokens are self-contained and signed rather than kept in a table:
//   floe1.<hex principal>.<expiry, unix seconds>.<hex HMAC-SHA256>
// so nothing grows per token, tokens survive a restart, and every server reading the same key
// file accepts them (several servers sharing one metastore, DESIGN.md §8). The MAC covers the
// principal's secret hash too: changing a secret revokes the tokens issued under the old one,
// and removing a principal from floe.yaml revokes its tokens once the server restarts.
//
// Never logged or echoed: secrets, tokens, form bodies. Error messages name no credential.
//
// Thread-safety: immutable after Make; every method may be called concurrently.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "floe/base/status.h"
#include "floe/http/http.h"

namespace floe::auth {

// A principal's role on a catalog; each level includes the ones below it.
enum class Access : uint8_t { kNone = 0, kRead = 1, kWrite = 2 };

// "none", "read" or "write"; kInvalidArgument otherwise.
Result<Access> ParseAccess(std::string_view text);

// A SCRAM credential as Kafka stores one (RFC 5802 §3; `floe auth scram-credential` computes
// it): the server can verify a client's proof but not act as the client.
struct ScramCredential {
  std::string salt;  // bytes
  int32_t iterations = 0;
  std::string stored_key;  // H(ClientKey), the digest size of the mechanism's hash
  std::string server_key;  // HMAC(SaltedPassword, "Server Key")
};

struct Principal {
  // The OAuth2 client_id, and the name the access log shows.
  std::string name;
  // SHA-256 of the client secret (32 bytes); empty: this principal has no client secret.
  std::string secret_sha256;
  // SHA-256 of each static bearer token (32 bytes each).
  std::vector<std::string> token_sha256s;
  // SCRAM-SHA-256 / SCRAM-SHA-512 credentials for the Kafka listener (sasl.h).
  std::optional<ScramCredential> scram_sha256;
  std::optional<ScramCredential> scram_sha512;
  // Role per catalog name; "*" stands for every catalog not listed.
  std::map<std::string, Access> catalogs;
};

// Throttling of failed authentication attempts (token endpoint, HTTP Basic, SASL): per key
// (a client id, a peer address) `burst` failures pass, then one more per `refill_ms`; an
// attempt while throttled is refused unchecked (429 with Retry-After, or a SASL failure).
struct AuthThrottleConfig {
  int32_t client_burst = 5;
  int32_t peer_burst = 20;
  int64_t refill_ms = 2000;
  // Bound on the keys tracked; past it the key nearest to expiry is forgotten first.
  size_t max_keys = 10000;
};

struct AuthConfig {
  bool enabled = false;
  int64_t token_lifetime_seconds = 3600;
  // The token signing key (hex), created with a random key when missing.
  // Default: <data-dir>/auth-token.key.
  std::string token_key_file;
  std::vector<Principal> principals;
  AuthThrottleConfig throttle;
};

// Counts failed attempts per key (generic cell rate: each failure pushes the key's
// theoretical arrival time `refill_ms` further; `burst` of them may be outstanding). Memory
// is bounded by `max_keys`. Thread-safe.
class FailureThrottle {
 public:
  FailureThrottle(int32_t burst, int64_t refill_ms, size_t max_keys);
  // Milliseconds until `key` may try again; 0: now.
  int64_t WaitMs(std::string_view key, int64_t now_ms) const;
  void RecordFailure(std::string_view key, int64_t now_ms);
  size_t size() const;

 private:
  int32_t burst_;
  int64_t refill_ms_;
  size_t max_keys_;
  mutable std::mutex mutex_;
  std::unordered_map<std::string, int64_t> tat_;  // key -> theoretical arrival time (ms)
};

class Authenticator {
 public:
  // `token_key`: the HMAC key, at least 32 bytes. `now_ms`: milliseconds since the epoch.
  // kInvalidArgument for a principal without credentials or with a hash that is not 32
  // bytes, a name or static token used twice, a short key or a lifetime under a second.
  static Result<std::unique_ptr<Authenticator>> Make(AuthConfig config, std::string token_key,
                                                     std::function<int64_t()> now_ms);

  // Answers POST /v1/oauth/tokens (Iceberg REST OAuthTokenRequest): grant_type
  // client_credentials (RFC 6749 §4.4; client_id and client_secret in the form body or as
  // HTTP Basic credentials) and urn:ietf:params:oauth:grant-type:token-exchange (RFC 8693;
  // a valid subject_token gets a fresh token, which is how Iceberg Java refreshes; with
  // client credentials besides, an expired one of the same principal does too). Errors are
  // OAuth error bodies (RFC 6749 §5.2): 401 invalid_client, 400 invalid_request,
  // invalid_grant, unsupported_grant_type; 429 with Retry-After while the client id or the
  // peer address (request.remote) failed too often lately (AuthThrottleConfig).
  http::HttpResponse HandleTokenRequest(const http::HttpRequest& request) const;

  // The principal a client id and secret belong to (the token endpoint's client credentials,
  // SASL/PLAIN, HTTP Basic). Unknown ids are compared against a dummy hash, so the time taken
  // does not tell which ids exist. Failures count against `client_id` and `peer` (an address;
  // empty: not counted per peer). kUnauthenticated for a wrong id or secret,
  // kResourceExhausted ("retry after N s") while either is throttled.
  Result<const Principal*> AuthenticateSecret(std::string_view client_id, std::string_view secret,
                                              std::string_view peer = {}) const;

  // Throttling shared by every way of authenticating: how long (ms) `client_id` (may be
  // empty) and `peer` (may be empty) must wait, 0 when they may try now; and counting a
  // failure against both.
  int64_t ThrottleWaitMs(std::string_view client_id, std::string_view peer) const;
  void RecordFailure(std::string_view client_id, std::string_view peer) const;
  // kResourceExhausted naming the wait when ThrottleWaitMs is not 0.
  Status CheckThrottle(std::string_view client_id, std::string_view peer) const;

  // The principal named `name`, or nullptr.
  const Principal* FindPrincipal(std::string_view name) const;
  // A salt for SCRAM users that do not exist (or have no credential for the mechanism):
  // stable per name and mechanism and unpredictable without the key, so that the
  // server-first message does not tell which users exist (RFC 5802 §9).
  std::string FakeScramSalt(std::string_view name, std::string_view mechanism) const;
  int64_t now_ms() const { return now_ms_(); }

  // The principal whose token the request's `Authorization: Bearer` header carries.
  // kUnauthenticated when the header is missing or the token malformed, unknown or expired.
  // The pointer lives as long as the Authenticator.
  Result<const Principal*> Authenticate(const http::HttpRequest& request) const;

  // The principal of a request's `Authorization: Basic` credentials (a client id and its
  // secret, checked and throttled as AuthenticateSecret, per the peer of request.remote) or
  // `Bearer` token: what the schema registry (Confluent's basic.auth.user.info or
  // bearer.auth.token) and /metrics (Prometheus' basic_auth or authorization) accept.
  // kUnauthenticated without credentials or with wrong ones, kResourceExhausted while
  // throttled.
  Result<const Principal*> AuthenticateBasicOrBearer(const http::HttpRequest& request) const;

  // Whether `principal` may read every catalog, present and future ("*" at least read, and no
  // catalog narrowed below read): what /metrics needs, since it names every catalog's tables.
  static bool ReadsEveryCatalog(const Principal& principal);

  // kPermissionDenied unless `principal` holds at least `needed` on `catalog`.
  static Status Authorize(const Principal& principal, std::string_view catalog, Access needed);

  // A signed token for `principal` (one of this Authenticator's), valid for the lifetime.
  std::string IssueToken(const Principal& principal) const;
  // The principal of an issued or static token. kUnauthenticated when it is unknown, forged,
  // or (unless `allow_expired`) expired.
  Result<const Principal*> VerifyToken(std::string_view token, bool allow_expired = false) const;

  int64_t token_lifetime_seconds() const { return config_.token_lifetime_seconds; }

 private:
  Authenticator() = default;
  Result<const Principal*> AuthenticateClient(const http::HttpRequest& request,
                                              const std::map<std::string, std::string>& form,
                                              bool* sent, std::string* client_id) const;
  std::string Mac(std::string_view payload, const Principal& principal) const;

  AuthConfig config_;
  std::string key_;
  std::function<int64_t()> now_ms_;
  std::map<std::string, const Principal*, std::less<>> by_name_;
  std::map<std::string, const Principal*, std::less<>> by_token_sha256_;
  std::unique_ptr<FailureThrottle> client_failures_;
  std::unique_ptr<FailureThrottle> peer_failures_;
};

// The token signing key stored in `path` as hex. When the file does not exist, a random
// 32-byte key is written there first (mode 0600; atomically, so servers starting together
// agree on one key). kInvalidArgument for a file that is not at least 32 bytes of hex,
// kIOError when it cannot be read or written.
Result<std::string> LoadOrCreateTokenKey(const std::string& path);

}  // namespace floe::auth
