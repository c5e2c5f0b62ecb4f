// Fuzzes the Kafka listener's SASL mechanisms (auth/sasl.h) with what an unauthenticated
// client sends: the whole input through each message parser, then as an exchange — the
// first byte picks the mechanism, the second where the input splits into the client's
// first and second message — against an Authenticator holding a principal with a client
// secret and SCRAM-SHA-256/512 credentials. Everything must end in a Status or succeed;
// a completed exchange must name the principal.
//
// Seeds: tests/fuzz/corpus/fuzz_sasl/ (RFC 4616, 5802/7677 and 7628 example messages).
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "floe/auth/authenticator.h"
#include "floe/auth/crypto.h"
#include "floe/auth/sasl.h"

namespace {

namespace auth = floe::auth;

const auth::Authenticator* Fixture() {
  static const std::unique_ptr<auth::Authenticator> authenticator = [] {
    auth::AuthConfig config;
    config.enabled = true;
    auth::Principal user;
    user.name = "user";
    user.secret_sha256 = auth::Sha256("pencil");
    auto salt = auth::Base64Decode("W22ZaJ0SNY7soEsUEjb6gQ==");
    user.scram_sha256 =
        *auth::ComputeScramCredential(auth::HashAlgorithm::kSha256, "pencil", *salt, 4096);
    user.scram_sha512 =
        *auth::ComputeScramCredential(auth::HashAlgorithm::kSha512, "pencil", *salt, 4096);
    user.catalogs["*"] = auth::Access::kWrite;
    config.principals.push_back(std::move(user));
    // A throttle the fuzzer's failures never reach, so the exchanges themselves are run.
    config.throttle.client_burst = 1 << 30;
    config.throttle.peer_burst = 1 << 30;
    auto made = auth::Authenticator::Make(std::move(config), std::string(32, 'k'),
                                          [] { return int64_t{1'700'000'000'000}; });
    if (!made.ok()) __builtin_trap();
    return std::move(*made);
  }();
  return authenticator.get();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  (void)auth::ParsePlainMessage(input);
  (void)auth::ParseScramClientFirst(input);
  (void)auth::ParseScramClientFinal(input);
  (void)auth::ParseOAuthBearerInitial(input);
  if (size < 2) return 0;
  const auth::SaslMechanism mechanisms[] = {
      auth::SaslMechanism::kPlain, auth::SaslMechanism::kScramSha256,
      auth::SaslMechanism::kScramSha512, auth::SaslMechanism::kOAuthBearer};
  auth::SaslServer server(Fixture(), mechanisms[data[0] % 4], "10.0.0.1",
                          []() -> floe::Result<std::string> { return std::string("srvnonce"); });
  const std::string_view rest = input.substr(2);
  const size_t split = std::min<size_t>(rest.size(), data[1]);
  auto first = server.Step(rest.substr(0, split));
  if (first.ok() && !server.complete()) (void)server.Step(rest.substr(split));
  if (server.complete() && (server.principal() == nullptr || server.principal()->name != "user")) {
    __builtin_trap();
  }
  return 0;
}
