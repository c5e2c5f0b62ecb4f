#include "floe/auth/authenticator.h"

#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "floe/auth/crypto.h"
#include "floe/base/testing.h"

namespace floe::auth {
namespace {

constexpr int64_t kStartMs = 1'800'000'000'000;

class AuthenticatorTest : public ::testing::Test {
 protected:
  void SetUp() override { auth_ = Make(Config()); }

  static AuthConfig Config() {
    AuthConfig config;
    config.enabled = true;
    Principal etl;
    etl.name = "etl";
    etl.secret_sha256 = Sha256("etl-secret");
    etl.catalogs = {{"default", Access::kWrite}, {"lake", Access::kRead}};
    Principal viewer;
    viewer.name = "viewer";
    viewer.token_sha256s = {Sha256("static-token")};
    viewer.catalogs = {{"*", Access::kRead}, {"private", Access::kNone}};
    config.principals = {etl, viewer};
    return config;
  }

  std::unique_ptr<Authenticator> Make(AuthConfig config, std::string key = std::string(32, 'k')) {
    auto made = Authenticator::Make(std::move(config), std::move(key), [this] { return now_ms_; });
    FLOE_EXPECT_OK(made);
    return made.ok() ? std::move(*made) : nullptr;
  }

  static http::HttpRequest TokenRequest(std::string body, std::string authorization = {}) {
    http::HttpRequest request;
    request.method = "POST";
    request.path = "/v1/oauth/tokens";
    request.headers.emplace_back("content-type", "application/x-www-form-urlencoded");
    if (!authorization.empty()) request.headers.emplace_back("authorization", authorization);
    request.body = std::move(body);
    return request;
  }

  static http::HttpRequest Bearer(std::string_view token, std::string_view scheme = "Bearer") {
    http::HttpRequest request;
    request.method = "GET";
    request.path = "/v1/config";
    request.headers.emplace_back("authorization", fmt::format("{} {}", scheme, token));
    return request;
  }

  // The OAuth `error` of a failed token request (RFC 6749 §5.2), checking the status.
  static std::string OAuthErrorOf(const http::HttpResponse& response, int status) {
    EXPECT_EQ(response.status, status) << response.body;
    auto body = nlohmann::json::parse(response.body);
    EXPECT_TRUE(body.contains("error_description")) << response.body;
    return body.value("error", "");
  }

  std::string IssuedToken(const http::HttpResponse& response) {
    EXPECT_EQ(response.status, 200) << response.body;
    return nlohmann::json::parse(response.body).value("access_token", "");
  }

  int64_t now_ms_ = kStartMs;
  std::unique_ptr<Authenticator> auth_;
};

TEST_F(AuthenticatorTest, ClientCredentialsInTheBodyGetATokenResponse) {
  http::HttpResponse response = auth_->HandleTokenRequest(TokenRequest(
      "grant_type=client_credentials&client_id=etl&client_secret=etl-secret&scope=catalog"));
  ASSERT_EQ(response.status, 200) << response.body;
  auto body = nlohmann::json::parse(response.body);
  // The REST spec's OAuthTokenResponse.
  EXPECT_EQ(body["token_type"], "bearer");
  EXPECT_EQ(body["expires_in"], 3600);
  EXPECT_EQ(body["issued_token_type"], "urn:ietf:params:oauth:token-type:access_token");
  auto principal = auth_->VerifyToken(body["access_token"].get<std::string>());
  FLOE_ASSERT_OK(principal);
  EXPECT_EQ((*principal)->name, "etl");
  EXPECT_EQ(response.principal, "etl");
  bool no_store = false;
  for (const auto& [name, value] : response.headers) no_store |= value == "no-store";
  EXPECT_TRUE(no_store);
}

TEST_F(AuthenticatorTest, ClientCredentialsAsHttpBasic) {
  std::string token = IssuedToken(auth_->HandleTokenRequest(
      TokenRequest("grant_type=client_credentials", "Basic ZXRsOmV0bC1zZWNyZXQ=")));
  EXPECT_EQ((*auth_->VerifyToken(token))->name, "etl");
}

TEST_F(AuthenticatorTest, FormValuesArePercentDecoded) {
  AuthConfig config = Config();
  config.principals[0].secret_sha256 = Sha256("a+b c/=%");
  auto auth = Make(config);
  std::string token = IssuedToken(auth->HandleTokenRequest(
      TokenRequest("grant_type=client_credentials&client_id=etl&client_secret=a%2Bb+c%2F%3D%25")));
  EXPECT_EQ((*auth->VerifyToken(token))->name, "etl");
}

TEST_F(AuthenticatorTest, BadClientCredentialsAre401InvalidClientWithoutEchoingThem) {
  for (const auto& request : {
           TokenRequest("grant_type=client_credentials&client_id=etl&client_secret=bad-s3cr3t"),
           TokenRequest("grant_type=client_credentials&client_id=nobody&client_secret=bad-s3cr3t"),
           TokenRequest("grant_type=client_credentials&client_secret=bad-s3cr3t"),
           TokenRequest("grant_type=client_credentials&client_id=etl"),
           // A principal with static tokens only has no secret to match.
           TokenRequest("grant_type=client_credentials&client_id=viewer&client_secret=bad-s3cr3t"),
           TokenRequest("grant_type=client_credentials", "Basic ZXRsOndyb25n"),
           TokenRequest("grant_type=client_credentials", "Basic not*base64"),
           TokenRequest("grant_type=client_credentials"),
       }) {
    http::HttpResponse response = auth_->HandleTokenRequest(request);
    EXPECT_EQ(OAuthErrorOf(response, 401), "invalid_client") << request.body;
    EXPECT_EQ(response.body.find("s3cr3t"), std::string::npos) << response.body;
    EXPECT_EQ(response.body.find("wrong"), std::string::npos) << response.body;
    EXPECT_TRUE(response.principal.empty());
  }
}

// The Retry-After header of a response, or -1.
int RetryAfter(const http::HttpResponse& response) {
  for (const auto& [name, value] : response.headers) {
    if (name == "Retry-After") return std::stoi(value);
  }
  return -1;
}

TEST_F(AuthenticatorTest, FailedAttemptsPerClientIdAreThrottledWith429) {
  // Defaults: 5 failures per client id pass, then one per 2 s.
  auto attempt = [&](std::string_view id, std::string_view secret, std::string remote) {
    http::HttpRequest r = TokenRequest(
        fmt::format("grant_type=client_credentials&client_id={}&client_secret={}", id, secret));
    r.remote = std::move(remote);
    return auth_->HandleTokenRequest(r);
  };
  // Each from its own address, so that only the per-id count applies.
  for (int i = 0; i < 5; ++i) {
    EXPECT_EQ(attempt("etl", "wrong", fmt::format("10.0.0.{}:5000", i)).status, 401);
  }
  http::HttpResponse throttled = attempt("etl", "etl-secret", "10.0.1.1:5000");
  EXPECT_EQ(OAuthErrorOf(throttled, 429), "invalid_client");
  EXPECT_EQ(RetryAfter(throttled), 2);
  // Unknown ids are throttled the same way, and others are not held back.
  for (int i = 0; i < 5; ++i) {
    EXPECT_EQ(attempt("nobody", "wrong", fmt::format("10.0.2.{}:5000", i)).status, 401);
  }
  EXPECT_EQ(attempt("nobody", "wrong", "10.0.3.1:5000").status, 429);
  now_ms_ += 2000;
  EXPECT_EQ(attempt("etl", "etl-secret", "10.0.1.1:5000").status, 200);
  FLOE_EXPECT_CODE(auth_->AuthenticateSecret("etl", "bad", "10.9.9.9").status(), kUnauthenticated);
  FLOE_EXPECT_CODE(auth_->AuthenticateSecret("etl", "etl-secret", "10.9.9.9").status(),
                   kResourceExhausted);
}

TEST_F(AuthenticatorTest, FailedAttemptsPerPeerAreThrottled) {
  // 20 failures from one address over different ids, then 429 for any id from it.
  for (int i = 0; i < 20; ++i) {
    http::HttpRequest r = TokenRequest(
        fmt::format("grant_type=client_credentials&client_id=guess{}&client_secret=x", i));
    r.remote = "[::1]:4000";
    EXPECT_EQ(auth_->HandleTokenRequest(r).status, 401);
  }
  http::HttpRequest r =
      TokenRequest("grant_type=client_credentials&client_id=etl&client_secret=etl-secret");
  r.remote = "[::1]:4001";  // another port of the same peer
  http::HttpResponse throttled = auth_->HandleTokenRequest(r);
  EXPECT_EQ(throttled.status, 429);
  EXPECT_GE(RetryAfter(throttled), 1);
  r.remote = "127.0.0.2:4001";
  EXPECT_EQ(auth_->HandleTokenRequest(r).status, 200);
  // Guessed subject tokens count against the peer too.
  http::HttpRequest exchange = TokenRequest(
      "grant_type=urn:ietf:params:oauth:grant-type:token-exchange&subject_token=floe1.x.1.ab");
  exchange.remote = "[::1]:4002";
  EXPECT_EQ(auth_->HandleTokenRequest(exchange).status, 429);
}

TEST(FailureThrottle, MemoryIsBounded) {
  FailureThrottle throttle(2, 1000, 100);
  for (int i = 0; i < 10000; ++i) throttle.RecordFailure(fmt::format("id{}", i), 0);
  EXPECT_LE(throttle.size(), 100u);
  // The newest keys are still counted.
  throttle.RecordFailure("id9999", 0);
  EXPECT_EQ(throttle.WaitMs("id9999", 0), 1000);
  EXPECT_EQ(throttle.WaitMs("never", 0), 0);
}

TEST_F(AuthenticatorTest, MalformedTokenRequestsAre400) {
  std::string creds = "&client_id=etl&client_secret=etl-secret";
  EXPECT_EQ(OAuthErrorOf(auth_->HandleTokenRequest(TokenRequest(creds.substr(1))), 400),
            "invalid_request");
  EXPECT_EQ(
      OAuthErrorOf(auth_->HandleTokenRequest(TokenRequest("grant_type=password" + creds)), 400),
      "unsupported_grant_type");
  EXPECT_EQ(OAuthErrorOf(auth_->HandleTokenRequest(
                             TokenRequest("grant_type=client_credentials&scope=a&scope=b" + creds)),
                         400),
            "invalid_request");
  EXPECT_EQ(OAuthErrorOf(auth_->HandleTokenRequest(TokenRequest("grant_type=%zz" + creds)), 400),
            "invalid_request");
  http::HttpRequest get = TokenRequest("");
  get.method = "GET";
  EXPECT_EQ(OAuthErrorOf(auth_->HandleTokenRequest(get), 400), "invalid_request");
  EXPECT_EQ(OAuthErrorOf(auth_->HandleTokenRequest(TokenRequest(
                             "grant_type=urn:ietf:params:oauth:grant-type:token-exchange")),
                         400),
            "invalid_request");
}

TEST_F(AuthenticatorTest, TokensExpireAfterTheirLifetime) {
  std::string token = auth_->IssueToken(*(*auth_->VerifyToken("static-token")));
  now_ms_ += 3599'999;
  FLOE_EXPECT_OK(auth_->VerifyToken(token));
  now_ms_ += 1;
  auto expired = auth_->VerifyToken(token);
  ASSERT_THAT(expired, IsError(StatusCode::kUnauthenticated));
  FLOE_EXPECT_OK(auth_->VerifyToken(token, /*allow_expired=*/true));
}

TEST_F(AuthenticatorTest, ATokenIssuedMidSecondLivesItsWholeLifetime) {
  // expires_in promises the lifetime from the moment of issue, whatever the millisecond.
  now_ms_ += 900;
  std::string token = auth_->IssueToken(*(*auth_->VerifyToken("static-token")));
  now_ms_ += 3599'999;
  FLOE_EXPECT_OK(auth_->VerifyToken(token));
  now_ms_ += 101;
  EXPECT_FALSE(auth_->VerifyToken(token).ok());
}

TEST_F(AuthenticatorTest, ForgedAndForeignTokensAreRefused) {
  std::string token = IssuedToken(auth_->HandleTokenRequest(
      TokenRequest("grant_type=client_credentials", "Basic ZXRsOmV0bC1zZWNyZXQ=")));
  FLOE_ASSERT_OK(auth_->VerifyToken(token));
  // Another principal's name, or a later expiry, under etl's MAC.
  std::string other = token;
  other.replace(other.find(HexEncode("etl")), 6, HexEncode("viewer"));
  std::string later = token;
  size_t expiry = later.find('.', 6) + 1;
  later[expiry] = later[expiry] == '9' ? '8' : '9';
  std::string flipped = token;
  flipped.back() = flipped.back() == '0' ? '1' : '0';
  for (const std::string& bad : {other, later, flipped, token.substr(0, token.size() - 2),
                                 std::string("floe1"), std::string("floe1...."), std::string(""),
                                 std::string("etl-secret"), std::string("floe1.zz.1.00")}) {
    auto verified = auth_->VerifyToken(bad);
    EXPECT_THAT(verified, IsError(StatusCode::kUnauthenticated)) << bad;
  }
  // Another key: another server that does not share the key file.
  EXPECT_FALSE(Make(Config(), std::string(32, 'x'))->VerifyToken(token).ok());
  // The same key: a second server sharing the key file accepts it.
  FLOE_EXPECT_OK(Make(Config())->VerifyToken(token));
  // A new secret revokes the tokens issued under the old one.
  AuthConfig rotated = Config();
  rotated.principals[0].secret_sha256 = Sha256("new-secret");
  EXPECT_FALSE(Make(rotated)->VerifyToken(token).ok());
}

TEST_F(AuthenticatorTest, TokenExchangeRefreshesAToken) {
  std::string token = IssuedToken(auth_->HandleTokenRequest(
      TokenRequest("grant_type=client_credentials&client_id=etl&client_secret=etl-secret")));
  std::string exchange =
      "grant_type=urn%3Aietf%3Aparams%3Aoauth%3Agrant-type%3Atoken-exchange"
      "&subject_token_type=urn%3Aietf%3Aparams%3Aoauth%3Atoken-type%3Aaccess_token"
      "&scope=catalog&subject_token=" +
      token;
  now_ms_ += 3000'000;
  // What Iceberg Java sends before expiry: the current token as subject (and as Bearer).
  std::string refreshed =
      IssuedToken(auth_->HandleTokenRequest(TokenRequest(exchange, "Bearer " + token)));
  now_ms_ += 1000'000;
  EXPECT_FALSE(auth_->VerifyToken(token).ok());
  EXPECT_EQ((*auth_->VerifyToken(refreshed))->name, "etl");
  // Expired: only with the client's own credentials besides.
  EXPECT_EQ(OAuthErrorOf(auth_->HandleTokenRequest(TokenRequest(exchange)), 400), "invalid_grant");
  EXPECT_EQ(
      IssuedToken(auth_->HandleTokenRequest(TokenRequest(exchange, "Basic ZXRsOmV0bC1zZWNyZXQ=")))
          .empty(),
      false);
  AuthConfig config = Config();
  config.principals[1].secret_sha256 = Sha256("x");
  auto auth = Make(config);
  // viewer:x may not renew etl's token.
  EXPECT_EQ(
      OAuthErrorOf(auth->HandleTokenRequest(TokenRequest(exchange, "Basic dmlld2VyOng=")), 400),
      "invalid_grant");
  // A static token is a valid subject too.
  std::string from_static = IssuedToken(auth_->HandleTokenRequest(TokenRequest(
      "grant_type=urn:ietf:params:oauth:grant-type:token-exchange&subject_token=static-token")));
  EXPECT_EQ((*auth_->VerifyToken(from_static))->name, "viewer");
}

TEST_F(AuthenticatorTest, AuthenticateReadsTheBearerHeader) {
  EXPECT_EQ((*auth_->Authenticate(Bearer("static-token")))->name, "viewer");
  EXPECT_EQ((*auth_->Authenticate(Bearer("static-token", "bearer")))->name, "viewer");
  EXPECT_EQ(auth_->Authenticate(Bearer("static-token", "Basic")).status().code(),
            StatusCode::kUnauthenticated);
  EXPECT_EQ(auth_->Authenticate(Bearer("", "Bearer")).status().code(),
            StatusCode::kUnauthenticated);
  EXPECT_EQ(auth_->Authenticate(Bearer("other-token")).status().code(),
            StatusCode::kUnauthenticated);
  http::HttpRequest none;
  EXPECT_EQ(auth_->Authenticate(none).status().code(), StatusCode::kUnauthenticated);
}

TEST_F(AuthenticatorTest, AccessDecisions) {
  AuthConfig config = Config();
  const Principal& etl = config.principals[0];
  const Principal& viewer = **auth_->VerifyToken("static-token");
  FLOE_EXPECT_OK(Authenticator::Authorize(etl, "default", Access::kWrite));
  FLOE_EXPECT_OK(Authenticator::Authorize(etl, "default", Access::kRead));
  FLOE_EXPECT_OK(Authenticator::Authorize(etl, "lake", Access::kRead));
  EXPECT_EQ(Authenticator::Authorize(etl, "lake", Access::kWrite).code(),
            StatusCode::kPermissionDenied);
  EXPECT_EQ(Authenticator::Authorize(etl, "other", Access::kRead).code(),
            StatusCode::kPermissionDenied);
  FLOE_EXPECT_OK(Authenticator::Authorize(viewer, "anything", Access::kRead));
  EXPECT_FALSE(Authenticator::Authorize(viewer, "anything", Access::kWrite).ok());
  // A catalog's own entry wins over "*".
  EXPECT_FALSE(Authenticator::Authorize(viewer, "private", Access::kRead).ok());
}

TEST_F(AuthenticatorTest, BadConfigurationsAreRefused) {
  auto refused = [&](AuthConfig config, std::string key = std::string(32, 'k')) {
    return !Authenticator::Make(std::move(config), std::move(key), [] { return int64_t{0}; }).ok();
  };
  EXPECT_TRUE(refused(Config(), std::string(31, 'k')));
  AuthConfig twice = Config();
  twice.principals[1].name = "etl";
  EXPECT_TRUE(refused(twice));
  AuthConfig bare = Config();
  bare.principals[1].token_sha256s.clear();
  EXPECT_TRUE(refused(bare));
  AuthConfig short_hash = Config();
  short_hash.principals[0].secret_sha256 = "abc";
  EXPECT_TRUE(refused(short_hash));
  AuthConfig shared_token = Config();
  shared_token.principals[0].token_sha256s = {Sha256("static-token")};
  EXPECT_TRUE(refused(shared_token));
  AuthConfig no_lifetime = Config();
  no_lifetime.token_lifetime_seconds = 0;
  EXPECT_TRUE(refused(no_lifetime));
}

TEST(TokenKey, CreatedOnceWithOwnerOnlyPermissions) {
  std::filesystem::path dir =
      std::filesystem::temp_directory_path() / ("floe-token-key-" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  std::string path = (dir / "auth-token.key").string();
  auto first = LoadOrCreateTokenKey(path);
  FLOE_ASSERT_OK(first);
  EXPECT_EQ(first->size(), 32u);
  struct stat st {};
  ASSERT_EQ(::stat(path.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
  EXPECT_EQ(*LoadOrCreateTokenKey(path), *first);
  std::ofstream(path, std::ios::trunc) << "not hex\n";
  EXPECT_EQ(LoadOrCreateTokenKey(path).status().code(), StatusCode::kInvalidArgument);
  std::ofstream(path, std::ios::trunc) << "abcd\n";
  EXPECT_EQ(LoadOrCreateTokenKey(path).status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(LoadOrCreateTokenKey((dir / "missing-dir" / "k").string()).status().code(),
            StatusCode::kIOError);
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace floe::auth
