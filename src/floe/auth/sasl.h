// SASL server mechanisms for floe's Kafka listener (docs/kafka.md, "Security"), independent
// of the Kafka framing that carries their messages:
//   PLAIN          RFC 4616: the principal's client secret, checked like the token endpoint's
//                  client credentials (Authenticator::AuthenticateSecret).
//   SCRAM-SHA-256  RFC 5802 / RFC 7677, and SCRAM-SHA-512 (the same over SHA-512, as Kafka
//                  names it), against the salted credentials of floe.yaml (ScramCredential).
//   OAUTHBEARER    RFC 7628: a bearer token floe issued (POST /v1/oauth/tokens) or a static
//                  token of a principal (Authenticator::VerifyToken).
//
// The parsers are exposed for the fuzz targets (tests/fuzz/fuzz_sasl*.cc) and unit tests; the
// messages they read come from unauthenticated clients and are bounds-checked throughout.
//
// Nothing an exchange sees is logged; error messages name the user at most, never a
// password, proof or token.
//
// Thread-safety: a SaslServer is one exchange on one connection (not thread-safe); the
// functions are.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "floe/auth/authenticator.h"
#include "floe/auth/crypto.h"
#include "floe/base/status.h"

namespace floe::auth {

enum class SaslMechanism : uint8_t { kPlain, kScramSha256, kScramSha512, kOAuthBearer };

// Every mechanism floe serves, by its IANA / Kafka name, in the order SaslHandshake lists them.
inline constexpr std::string_view kSaslMechanismNames[] = {"PLAIN", "SCRAM-SHA-256",
                                                           "SCRAM-SHA-512", "OAUTHBEARER"};

// The mechanism of a name (exact, upper case as clients send it); nullopt for another.
std::optional<SaslMechanism> ParseSaslMechanism(std::string_view name);
std::string_view SaslMechanismName(SaslMechanism mechanism);
// SCRAM-SHA-256 / -512: the hash; kSha256 for the others (unused).
HashAlgorithm ScramHash(SaslMechanism mechanism);

// RFC 4616 §2: [authzid] NUL authcid NUL passwd, each 1..255 UTF-8 characters without NUL
// (authzid may be empty). Bounded to 255 bytes per part.
struct PlainMessage {
  std::string authzid;
  std::string authcid;
  std::string password;
};
Result<PlainMessage> ParsePlainMessage(std::string_view message);

// RFC 5802 §7 client-first-message: gs2-header ("n,," or "n,a=<authzid>,"; channel binding
// "y" / "p" refused: floe offers none), then n=<saslname>,r=<nonce>[,<extensions>]. Kafka's
// clients may append extensions (`tokenauth=true` for delegation tokens, which floe refuses).
struct ScramClientFirst {
  std::string gs2_header;  // "n,," or "n,a=...,": the channel binding the final must echo
  std::string authzid;     // decoded; empty when absent
  std::string username;    // saslname decoded (=2C ',' and =3D '=')
  std::string nonce;
  std::map<std::string, std::string> extensions;
  std::string bare;  // client-first-message-bare, part of the AuthMessage
};
Result<ScramClientFirst> ParseScramClientFirst(std::string_view message);

// RFC 5802 §7 client-final-message: c=<base64 channel binding>,r=<nonce>[,extensions],
// p=<base64 proof>.
struct ScramClientFinal {
  std::string channel_binding;  // decoded
  std::string nonce;
  std::string proof;          // decoded
  std::string without_proof;  // client-final-message-without-proof, part of the AuthMessage
};
Result<ScramClientFinal> ParseScramClientFinal(std::string_view message);

// RFC 7628 §3.1 client initial response: gs2-header, then kvsep-separated key=value pairs
// ending with an empty one: "n,," 0x01 "auth=Bearer <token>" 0x01 [k=v 0x01]* 0x01.
// Keys are ALPHA+, values VCHAR / SP / HTAB / CR / LF; `auth` is required, the others are
// extensions (Kafka's SASL extensions ride there).
struct OAuthBearerInitial {
  std::string authzid;
  std::string token;
  std::map<std::string, std::string> extensions;
};
Result<OAuthBearerInitial> ParseOAuthBearerInitial(std::string_view message);

// Iterations Kafka allows for SCRAM credentials (ScramMechanism's minimum; its maximum for
// stored credentials): clients refuse fewer than 4096 (Java's ScramSaslClient).
inline constexpr int kScramMinIterations = 4096;
inline constexpr int kScramMaxIterations = 16384;

// The credential a server stores for `password` (RFC 5802 §3): SaltedPassword = Hi(password,
// salt, iterations), StoredKey = H(HMAC(SaltedPassword, "Client Key")), ServerKey =
// HMAC(SaltedPassword, "Server Key"). `password` is used as given (ASCII passwords need no
// SASLprep; floe does not normalize others, as Kafka's clients do not). kInvalidArgument for
// an empty salt or iterations outside [kScramMinIterations, kScramMaxIterations].
Result<ScramCredential> ComputeScramCredential(HashAlgorithm algorithm, std::string_view password,
                                               std::string_view salt, int iterations);

// One SASL exchange of one connection.
class SaslServer {
 public:
  // `peer`: the client's address, a throttling key. `nonce`: the server's part of the SCRAM
  // nonce (tests inject RFC 7677's); default 24 CSPRNG bytes as base64.
  SaslServer(const Authenticator* authenticator, SaslMechanism mechanism, std::string peer,
             std::function<Result<std::string>()> nonce = {});

  // Takes the client's next message and returns the server's reply (empty for PLAIN and
  // OAUTHBEARER, server-first then server-final for SCRAM). kUnauthenticated, with a message
  // a client may be shown, when authentication fails; kResourceExhausted when the client id
  // or peer failed too often lately (Authenticator throttling); kInvalidArgument for a
  // malformed message. After an error or completion, every call fails.
  Result<std::string> Step(std::string_view client_message);

  bool complete() const { return state_ == State::kComplete; }
  // The authenticated principal once complete(), else nullptr.
  const Principal* principal() const { return principal_; }
  SaslMechanism mechanism() const { return mechanism_; }

 private:
  enum class State : uint8_t { kInitial, kScramFinal, kComplete, kFailed };

  Result<std::string> StepPlain(std::string_view message);
  Result<std::string> StepOAuthBearer(std::string_view message);
  Result<std::string> StepScramFirst(std::string_view message);
  Result<std::string> StepScramFinal(std::string_view message);

  const Authenticator* authenticator_;
  SaslMechanism mechanism_;
  std::string peer_;
  std::function<Result<std::string>()> nonce_;
  State state_ = State::kInitial;
  const Principal* principal_ = nullptr;
  // SCRAM between the two rounds.
  const Principal* scram_principal_ = nullptr;  // nullptr: unknown user (fails at the end)
  ScramCredential scram_credential_;
  std::string scram_user_;
  std::string scram_gs2_header_;
  std::string scram_nonce_;         // client nonce + server nonce
  std::string scram_client_nonce_;  // the client's part
  std::string scram_auth_prefix_;   // client-first-bare "," server-first
};

}  // namespace floe::auth
