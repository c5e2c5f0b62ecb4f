#include "floe/auth/sasl.h"

#include <cctype>
#include <charconv>
#include <utility>

#include "floe/base/macros.h"

namespace floe::auth {

namespace {

constexpr size_t kPlainPartMax = 255;  // RFC 4616 §2: 1*SAFE up to 255 octets
constexpr char kKvSep = '\x01';        // RFC 7628 §3.1

Status Malformed(std::string_view what) {
  return Status::InvalidArgument("malformed {} message", what);
}

// Splits on `sep` into at most `max` parts (the last keeps the rest).
std::vector<std::string_view> Split(std::string_view text, char sep) {
  std::vector<std::string_view> parts;
  size_t start = 0;
  while (true) {
    size_t at = text.find(sep, start);
    if (at == std::string_view::npos) {
      parts.push_back(text.substr(start));
      return parts;
    }
    parts.push_back(text.substr(start, at - start));
    start = at + 1;
  }
}

// RFC 5802 §7 saslname: "=2C" is ',', "=3D" is '='; any other '=' is an error.
Result<std::string> DecodeSaslName(std::string_view text) {
  std::string out;
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (c == ',') return Malformed("SCRAM");
    if (c != '=') {
      out.push_back(c);
      continue;
    }
    std::string_view escape = text.substr(i + 1, 2);
    if (escape == "2C") {
      out.push_back(',');
    } else if (escape == "3D") {
      out.push_back('=');
    } else {
      return Malformed("SCRAM");
    }
    i += 2;
  }
  if (out.empty()) return Malformed("SCRAM");
  return out;
}

// RFC 5802 §7 printable: %x21-2B / %x2D-7E (no ',').
bool PrintableNonce(std::string_view nonce) {
  if (nonce.empty()) return false;
  for (char c : nonce) {
    if (c < 0x21 || c > 0x7E || c == ',') return false;
  }
  return true;
}

// The gs2-header of SCRAM and OAUTHBEARER: "n," then "a=<saslname>" or nothing, then ','.
// Returns its length; `authzid` gets the decoded name.
Result<size_t> ParseGs2Header(std::string_view message, std::string* authzid,
                              std::string_view what) {
  // "y" (client supports binding, thinks the server does not) is as good as "n" for a
  // server that offers none (RFC 5802 §6); "p=" asks for a binding floe cannot give.
  if (message.size() < 3 || (message[0] != 'n' && message[0] != 'y') || message[1] != ',') {
    return Malformed(what);
  }
  size_t comma = message.find(',', 2);
  if (comma == std::string_view::npos) return Malformed(what);
  std::string_view a = message.substr(2, comma - 2);
  if (!a.empty()) {
    if (!a.starts_with("a=")) return Malformed(what);
    FLOE_ASSIGN_OR_RETURN(*authzid, DecodeSaslName(a.substr(2)));
  }
  return comma + 1;
}

std::string Xor(std::string_view a, std::string_view b) {
  std::string out(a);
  for (size_t i = 0; i < out.size() && i < b.size(); ++i) out[i] = static_cast<char>(a[i] ^ b[i]);
  return out;
}

const ScramCredential* CredentialFor(const Principal& p, SaslMechanism mechanism) {
  const auto& c = mechanism == SaslMechanism::kScramSha512 ? p.scram_sha512 : p.scram_sha256;
  return c ? &*c : nullptr;
}

}  // namespace

std::optional<SaslMechanism> ParseSaslMechanism(std::string_view name) {
  if (name == "PLAIN") return SaslMechanism::kPlain;
  if (name == "SCRAM-SHA-256") return SaslMechanism::kScramSha256;
  if (name == "SCRAM-SHA-512") return SaslMechanism::kScramSha512;
  if (name == "OAUTHBEARER") return SaslMechanism::kOAuthBearer;
  return std::nullopt;
}

std::string_view SaslMechanismName(SaslMechanism mechanism) {
  return kSaslMechanismNames[static_cast<size_t>(mechanism)];
}

HashAlgorithm ScramHash(SaslMechanism mechanism) {
  return mechanism == SaslMechanism::kScramSha512 ? HashAlgorithm::kSha512 : HashAlgorithm::kSha256;
}

Result<PlainMessage> ParsePlainMessage(std::string_view message) {
  std::vector<std::string_view> parts = Split(message, '\0');
  if (parts.size() != 3) return Malformed("PLAIN");
  if (parts[0].size() > kPlainPartMax || parts[1].empty() || parts[1].size() > kPlainPartMax ||
      parts[2].empty() || parts[2].size() > kPlainPartMax) {
    return Malformed("PLAIN");
  }
  return PlainMessage{std::string(parts[0]), std::string(parts[1]), std::string(parts[2])};
}

Result<ScramClientFirst> ParseScramClientFirst(std::string_view message) {
  ScramClientFirst first;
  FLOE_ASSIGN_OR_RETURN(size_t header, ParseGs2Header(message, &first.authzid, "SCRAM"));
  first.gs2_header = std::string(message.substr(0, header));
  first.bare = std::string(message.substr(header));
  std::vector<std::string_view> attributes = Split(first.bare, ',');
  // RFC 5802 §7: reserved-mext "m=" is refused; then n=, r=, then extensions.
  if (attributes.size() < 2 || !attributes[0].starts_with("n=") ||
      !attributes[1].starts_with("r=")) {
    return Malformed("SCRAM");
  }
  FLOE_ASSIGN_OR_RETURN(first.username, DecodeSaslName(attributes[0].substr(2)));
  first.nonce = std::string(attributes[1].substr(2));
  if (!PrintableNonce(first.nonce)) return Malformed("SCRAM");
  for (size_t i = 2; i < attributes.size(); ++i) {
    size_t eq = attributes[i].find('=');
    if (eq == 0 || eq == std::string_view::npos) return Malformed("SCRAM");
    std::string key(attributes[i].substr(0, eq));
    if (!first.extensions.emplace(key, attributes[i].substr(eq + 1)).second) {
      return Malformed("SCRAM");
    }
  }
  return first;
}

Result<ScramClientFinal> ParseScramClientFinal(std::string_view message) {
  ScramClientFinal final_message;
  size_t proof_at = message.rfind(",p=");
  if (proof_at == std::string_view::npos) return Malformed("SCRAM");
  final_message.without_proof = std::string(message.substr(0, proof_at));
  FLOE_ASSIGN_OR_RETURN(final_message.proof, Base64Decode(message.substr(proof_at + 3)));
  std::vector<std::string_view> attributes = Split(final_message.without_proof, ',');
  if (attributes.size() < 2 || !attributes[0].starts_with("c=") ||
      !attributes[1].starts_with("r=")) {
    return Malformed("SCRAM");
  }
  FLOE_ASSIGN_OR_RETURN(final_message.channel_binding, Base64Decode(attributes[0].substr(2)));
  final_message.nonce = std::string(attributes[1].substr(2));
  if (!PrintableNonce(final_message.nonce)) return Malformed("SCRAM");
  return final_message;
}

Result<OAuthBearerInitial> ParseOAuthBearerInitial(std::string_view message) {
  OAuthBearerInitial initial;
  FLOE_ASSIGN_OR_RETURN(size_t header, ParseGs2Header(message, &initial.authzid, "OAUTHBEARER"));
  std::string_view rest = message.substr(header);
  // kvsep 1*(kvpair) kvsep, each kvpair ending in kvsep: so the rest starts with one and
  // ends with two.
  if (rest.size() < 3 || rest.front() != kKvSep || !rest.ends_with("\x01\x01")) {
    return Malformed("OAUTHBEARER");
  }
  rest = rest.substr(1, rest.size() - 3);
  bool have_auth = false;
  for (std::string_view pair : Split(rest, kKvSep)) {
    size_t eq = pair.find('=');
    if (eq == 0 || eq == std::string_view::npos) return Malformed("OAUTHBEARER");
    std::string_view key = pair.substr(0, eq);
    std::string_view value = pair.substr(eq + 1);
    for (char c : key) {
      if (!((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z'))) return Malformed("OAUTHBEARER");
    }
    for (char c : value) {
      bool ok = (c >= 0x21 && c <= 0x7E) || c == ' ' || c == '\t' || c == '\r' || c == '\n';
      if (!ok) return Malformed("OAUTHBEARER");
    }
    if (key == "auth") {
      // RFC 6750 §2.1 credentials: "Bearer" (case-insensitive) 1*SP token.
      if (have_auth || value.size() < 7) return Malformed("OAUTHBEARER");
      std::string_view scheme = value.substr(0, 6);
      bool bearer = true;
      for (size_t i = 0; i < 6; ++i) {
        bearer &= std::tolower(static_cast<unsigned char>(scheme[i])) == "bearer"[i];
      }
      if (!bearer || value[6] != ' ') return Malformed("OAUTHBEARER");
      std::string_view token = value.substr(7);
      while (!token.empty() && token.front() == ' ') token.remove_prefix(1);
      if (token.empty()) return Malformed("OAUTHBEARER");
      initial.token = std::string(token);
      have_auth = true;
    } else if (!initial.extensions.emplace(std::string(key), std::string(value)).second) {
      return Malformed("OAUTHBEARER");
    }
  }
  if (!have_auth) return Malformed("OAUTHBEARER");
  return initial;
}

Result<ScramCredential> ComputeScramCredential(HashAlgorithm algorithm, std::string_view password,
                                               std::string_view salt, int iterations) {
  if (salt.empty()) return Status::InvalidArgument("a SCRAM salt must not be empty");
  if (iterations < kScramMinIterations || iterations > kScramMaxIterations) {
    return Status::InvalidArgument("SCRAM iterations must be in [{}, {}]", kScramMinIterations,
                                   kScramMaxIterations);
  }
  FLOE_ASSIGN_OR_RETURN(std::string salted, Pbkdf2(algorithm, password, salt, iterations));
  ScramCredential credential;
  credential.salt = std::string(salt);
  credential.iterations = iterations;
  credential.stored_key = Hash(algorithm, Hmac(algorithm, salted, "Client Key"));
  credential.server_key = Hmac(algorithm, salted, "Server Key");
  return credential;
}

SaslServer::SaslServer(const Authenticator* authenticator, SaslMechanism mechanism,
                       std::string peer, std::function<Result<std::string>()> nonce)
    : authenticator_(authenticator),
      mechanism_(mechanism),
      peer_(std::move(peer)),
      nonce_(std::move(nonce)) {
  if (!nonce_) {
    nonce_ = []() -> Result<std::string> {
      FLOE_ASSIGN_OR_RETURN(std::string bytes, RandomBytes(24));
      return Base64Encode(bytes);
    };
  }
}

Result<std::string> SaslServer::Step(std::string_view client_message) {
  Result<std::string> reply = Status::FailedPrecondition("the SASL exchange is over");
  switch (state_) {
    case State::kInitial:
      switch (mechanism_) {
        case SaslMechanism::kPlain: reply = StepPlain(client_message); break;
        case SaslMechanism::kOAuthBearer: reply = StepOAuthBearer(client_message); break;
        case SaslMechanism::kScramSha256:
        case SaslMechanism::kScramSha512: reply = StepScramFirst(client_message); break;
      }
      break;
    case State::kScramFinal: reply = StepScramFinal(client_message); break;
    case State::kComplete:
    case State::kFailed: break;
  }
  if (!reply.ok()) {
    state_ = State::kFailed;
    principal_ = nullptr;
  }
  return reply;
}

Result<std::string> SaslServer::StepPlain(std::string_view message) {
  FLOE_ASSIGN_OR_RETURN(PlainMessage plain, ParsePlainMessage(message));
  // Acting as another principal is not a thing floe grants (Kafka refuses it too).
  if (!plain.authzid.empty() && plain.authzid != plain.authcid) {
    return Status::Unauthenticated("the authorization id must be empty or the user itself");
  }
  FLOE_ASSIGN_OR_RETURN(principal_,
                        authenticator_->AuthenticateSecret(plain.authcid, plain.password, peer_));
  state_ = State::kComplete;
  return std::string();
}

Result<std::string> SaslServer::StepOAuthBearer(std::string_view message) {
  FLOE_ASSIGN_OR_RETURN(OAuthBearerInitial initial, ParseOAuthBearerInitial(message));
  FLOE_RETURN_IF_ERROR(authenticator_->CheckThrottle({}, peer_));
  auto principal = authenticator_->VerifyToken(initial.token);
  if (!principal.ok()) {
    authenticator_->RecordFailure({}, peer_);
    return Status::Unauthenticated("the bearer token is not valid or expired");
  }
  if (!initial.authzid.empty() && initial.authzid != (*principal)->name) {
    return Status::Unauthenticated("the authorization id must be empty or the token's principal");
  }
  principal_ = *principal;
  state_ = State::kComplete;
  return std::string();
}

Result<std::string> SaslServer::StepScramFirst(std::string_view message) {
  FLOE_ASSIGN_OR_RETURN(ScramClientFirst first, ParseScramClientFirst(message));
  if (first.extensions.contains("tokenauth")) {
    return Status::Unauthenticated("delegation tokens are not accepted; use OAUTHBEARER");
  }
  if (!first.authzid.empty() && first.authzid != first.username) {
    return Status::Unauthenticated("the authorization id must be empty or the user itself");
  }
  FLOE_RETURN_IF_ERROR(authenticator_->CheckThrottle(first.username, peer_));
  scram_user_ = first.username;
  scram_gs2_header_ = first.gs2_header;
  scram_principal_ = authenticator_->FindPrincipal(first.username);
  const ScramCredential* credential =
      scram_principal_ != nullptr ? CredentialFor(*scram_principal_, mechanism_) : nullptr;
  if (credential != nullptr) {
    scram_credential_ = *credential;
  } else {
    // Carry on with a stable fake salt: the failure comes at the proof, as for a wrong
    // password (RFC 5802 §9).
    scram_principal_ = nullptr;
    scram_credential_ = ScramCredential();
    scram_credential_.salt =
        authenticator_->FakeScramSalt(first.username, SaslMechanismName(mechanism_));
    scram_credential_.iterations = kScramMinIterations;
  }
  FLOE_ASSIGN_OR_RETURN(std::string server_nonce, nonce_());
  scram_nonce_ = first.nonce + server_nonce;
  scram_client_nonce_ = first.nonce;
  std::string server_first =
      fmt::format("r={},s={},i={}", scram_nonce_, Base64Encode(scram_credential_.salt),
                  scram_credential_.iterations);
  scram_auth_prefix_ = first.bare + "," + server_first;
  state_ = State::kScramFinal;
  return server_first;
}

Result<std::string> SaslServer::StepScramFinal(std::string_view message) {
  FLOE_ASSIGN_OR_RETURN(ScramClientFinal final_message, ParseScramClientFinal(message));
  // RFC 5802 §5.1: the combined nonce, echoed exactly. librdkafka before 2.6.1 (Debian 12's
  // 2.0.2, so kcat) prepends its own nonce once more; Kafka 3.8.1-3.9 accept that form, and
  // so does floe: it still carries this exchange's server nonce, and the proof covers it.
  // Nothing else is accepted.
  if (final_message.nonce != scram_nonce_ &&
      final_message.nonce != scram_client_nonce_ + scram_nonce_) {
    return Status::Unauthenticated("the SCRAM nonce does not match");
  }
  if (final_message.channel_binding != scram_gs2_header_) {
    return Status::Unauthenticated("the SCRAM channel binding does not match");
  }
  const HashAlgorithm algorithm = ScramHash(mechanism_);
  const std::string auth_message = scram_auth_prefix_ + "," + final_message.without_proof;
  bool valid = false;
  if (scram_principal_ != nullptr && final_message.proof.size() == DigestBytes(algorithm)) {
    // ClientKey = ClientProof XOR HMAC(StoredKey, AuthMessage); valid when H(ClientKey) is
    // the StoredKey.
    std::string signature = Hmac(algorithm, scram_credential_.stored_key, auth_message);
    std::string client_key = Xor(final_message.proof, signature);
    valid = ConstantTimeEquals(Hash(algorithm, client_key), scram_credential_.stored_key);
  }
  if (!valid) {
    authenticator_->RecordFailure(scram_user_, peer_);
    return Status::Unauthenticated("authentication failed: invalid credentials");
  }
  principal_ = scram_principal_;
  state_ = State::kComplete;
  return "v=" + Base64Encode(Hmac(algorithm, scram_credential_.server_key, auth_message));
}

}  // namespace floe::auth
