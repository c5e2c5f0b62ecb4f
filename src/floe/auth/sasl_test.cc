#include "floe/auth/sasl.h"

#include <gtest/gtest.h>

#include "floe/base/testing.h"

namespace floe::auth {
namespace {

// RFC 7677 §3's example: user "user", password "pencil".
constexpr std::string_view kRfcSalt = "W22ZaJ0SNY7soEsUEjb6gQ==";
constexpr std::string_view kRfcClientFirst = "n,,n=user,r=rOprNGfwEbeRWgbNEkqO";
constexpr std::string_view kRfcServerNonce = "%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0";
constexpr std::string_view kRfcServerFirst =
    "r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,s=W22ZaJ0SNY7soEsUEjb6gQ==,i=4096";
constexpr std::string_view kRfcClientFinal =
    "c=biws,r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,"
    "p=dHzbZapWIk4jUhN+Ute9ytag9zjfMHgsqmmiz7AndVQ=";
constexpr std::string_view kRfcServerFinal = "v=6rriTRBi23WpRR/wtup+mMhUZUn/dB5nLTJRsjl95G4=";

std::string Decode(std::string_view b64) {
  auto r = Base64Decode(b64);
  return r.ok() ? *r : std::string();
}

class SaslTest : public ::testing::Test {
 protected:
  void SetUp() override {
    AuthConfig config;
    config.enabled = true;
    config.throttle.client_burst = 3;
    config.throttle.peer_burst = 100;
    config.throttle.refill_ms = 1000;
    Principal user;
    user.name = "user";
    user.secret_sha256 = Sha256("pencil");
    FLOE_ASSERT_OK_AND_ASSIGN(
        user.scram_sha256,
        ComputeScramCredential(HashAlgorithm::kSha256, "pencil", Decode(kRfcSalt), 4096));
    FLOE_ASSERT_OK_AND_ASSIGN(
        user.scram_sha512,
        ComputeScramCredential(HashAlgorithm::kSha512, "pencil", Decode(kRfcSalt), 4096));
    user.catalogs["default"] = Access::kWrite;
    config.principals.push_back(user);
    Principal other;
    other.name = "other";
    other.secret_sha256 = Sha256("other-secret");
    config.principals.push_back(other);
    FLOE_ASSERT_OK_AND_ASSIGN(
        auth_, Authenticator::Make(config, std::string(32, 'k'), [this] { return now_ms_; }));
  }

  SaslServer Server(SaslMechanism mechanism, std::string_view server_nonce = kRfcServerNonce) {
    return SaslServer(auth_.get(), mechanism, "10.0.0.1",
                      [n = std::string(server_nonce)]() -> Result<std::string> { return n; });
  }

  int64_t now_ms_ = 1'700'000'000'000;
  std::unique_ptr<Authenticator> auth_;
};

TEST_F(SaslTest, ScramCredentialMatchesPythonHashlib) {
  // Expected values: Python's hashlib.pbkdf2_hmac / hmac over RFC 7677's salt and password.
  const Principal* user = auth_->FindPrincipal("user");
  ASSERT_NE(user, nullptr);
  EXPECT_EQ(Base64Encode(user->scram_sha256->stored_key),
            "WG5d8oPm3OtcPnkdi4Uo7BkeZkBFzpcXkuLmtbsT4qY=");
  EXPECT_EQ(Base64Encode(user->scram_sha256->server_key),
            "wfPLwcE6nTWhTAmQ7tl2KeoiWGPlZqQxSrmfPwDl2dU=");
  EXPECT_EQ(
      Base64Encode(user->scram_sha512->stored_key),
      "6AAub3065EYRmyFpM2RNwqK+eGnrkYuEWbXn19LsEmBqzu8QaCXNc1FwpnX9NhH2hK/60dzj9DoO5DvVkOHbvg==");
  EXPECT_EQ(
      Base64Encode(user->scram_sha512->server_key),
      "jZHbYjC1aHh0/hKbxyBuGFjDrgjgKTT1esA7awWiKcRZ0o/0b1yWEebBeSVkkCFewf91nLDfKF24mvD5nmE6rA==");
  FLOE_EXPECT_CODE(ComputeScramCredential(HashAlgorithm::kSha256, "p", "salt", 4095).status(),
                   kInvalidArgument);
  FLOE_EXPECT_CODE(ComputeScramCredential(HashAlgorithm::kSha256, "p", "", 4096).status(),
                   kInvalidArgument);
}

TEST_F(SaslTest, ScramSha256Rfc7677Exchange) {
  SaslServer server = Server(SaslMechanism::kScramSha256);
  FLOE_ASSERT_OK_AND_ASSIGN(std::string server_first, server.Step(kRfcClientFirst));
  EXPECT_EQ(server_first, kRfcServerFirst);
  EXPECT_FALSE(server.complete());
  FLOE_ASSERT_OK_AND_ASSIGN(std::string server_final, server.Step(kRfcClientFinal));
  EXPECT_EQ(server_final, kRfcServerFinal);
  ASSERT_TRUE(server.complete());
  EXPECT_EQ(server.principal()->name, "user");
  // Over: nothing more is accepted.
  EXPECT_FALSE(server.Step(kRfcClientFinal).ok());
}

TEST_F(SaslTest, ScramSha512ExchangeComputedWithPython) {
  SaslServer server = Server(SaslMechanism::kScramSha512, "servernonce");
  FLOE_ASSERT_OK_AND_ASSIGN(std::string server_first, server.Step("n,,n=user,r=clientnonce512"));
  EXPECT_EQ(server_first, "r=clientnonce512servernonce,s=W22ZaJ0SNY7soEsUEjb6gQ==,i=4096");
  FLOE_ASSERT_OK_AND_ASSIGN(
      std::string server_final,
      server.Step("c=biws,r=clientnonce512servernonce,p=kbgdkPDVKHp6tDmRK7tZZ/vvpvupbEnMx82p9FmRX29"
                  "i6sseHzOPVtDweYLvnyrI7ztcqVQoD8Jcdapml98mWA=="));
  EXPECT_EQ(
      server_final,
      "v=mzORNY26VenLbfDIsK7osOvxtvMbsjoxXRugENb89pAq7dmLBpmew7ciWWmDICuGOK18ThYPq1z5m/iL56P3KA"
      "==");
  EXPECT_TRUE(server.complete());
}

TEST_F(SaslTest, ScramAcceptsOldLibrdkafkasDoubledClientNonce) {
  // librdkafka < 2.6.1 sends r=<client nonce><combined nonce>; the proof over that
  // client-final-message-without-proof and the server signature computed with Python's
  // hashlib/hmac.
  SaslServer server = Server(SaslMechanism::kScramSha256);
  FLOE_ASSERT_OK(server.Step(kRfcClientFirst).status());
  FLOE_ASSERT_OK_AND_ASSIGN(
      std::string server_final,
      server.Step("c=biws,r=rOprNGfwEbeRWgbNEkqOrOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$"
                  "k0,p=1Y75+q7XaCGJj/r6vyQWwoNxSzV5ksS8xhp5Lqyriec="));
  EXPECT_EQ(server_final, "v=3svB0h5EwFJ/+WVn2GpJ5uBzW8HEv9nm1rcYAhYlm0A=");
  EXPECT_TRUE(server.complete());
  // Doubling anything else (here the server nonce) is still refused.
  SaslServer other = Server(SaslMechanism::kScramSha256);
  FLOE_ASSERT_OK(other.Step(kRfcClientFirst).status());
  EXPECT_THAT(
      other
          .Step("c=biws,r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0%hvYDpWUa2RaTCAf"
                "uxFIlj)hNlF$k0,p=1Y75+q7XaCGJj/r6vyQWwoNxSzV5ksS8xhp5Lqyriec=")
          .status(),
      IsError(StatusCode::kUnauthenticated));
}

TEST_F(SaslTest, ScramWrongProofNonceOrBindingFails) {
  std::string wrong_proof(kRfcClientFinal);
  wrong_proof[wrong_proof.size() - 3] ^= 1;  // still base64, another proof
  for (const std::string& final_message :
       {wrong_proof,
        std::string(
            "c=biws,r=rOprNGfwEbeRWgbNEkqOother,p=dHzbZapWIk4jUhN+Ute9ytag9zjfMHgsqmmiz7AndVQ="),
        std::string("c=eSws,r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,p=dHzbZapWIk4jUhN+"
                    "Ute9ytag9zjfMHgsqmmiz7AndVQ=")}) {
    SaslServer server = Server(SaslMechanism::kScramSha256);
    FLOE_ASSERT_OK(server.Step(kRfcClientFirst).status());
    EXPECT_THAT(server.Step(final_message).status(), IsError(StatusCode::kUnauthenticated));
    EXPECT_FALSE(server.complete());
    EXPECT_EQ(server.principal(), nullptr);
  }
}

TEST_F(SaslTest, ScramUnknownUserLooksLikeAWrongPassword) {
  SaslServer a = Server(SaslMechanism::kScramSha256);
  FLOE_ASSERT_OK_AND_ASSIGN(std::string first, a.Step("n,,n=nobody,r=abc"));
  // A salt, as for a real user, and the same one on every attempt.
  EXPECT_TRUE(first.starts_with("r=abc%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,s=")) << first;
  SaslServer b = Server(SaslMechanism::kScramSha256);
  FLOE_ASSERT_OK_AND_ASSIGN(std::string again, b.Step("n,,n=nobody,r=abc"));
  EXPECT_EQ(first, again);
  EXPECT_THAT(a.Step("c=biws,r=abc%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,p=AAAA").status(),
              IsError(StatusCode::kUnauthenticated));
  // "other" has no SCRAM credential: the same path.
  SaslServer c = Server(SaslMechanism::kScramSha512);
  FLOE_ASSERT_OK(c.Step("n,,n=other,r=abc").status());
}

TEST_F(SaslTest, ScramRefusesDelegationTokensAndForeignAuthzid) {
  SaslServer a = Server(SaslMechanism::kScramSha256);
  EXPECT_THAT(a.Step("n,,n=user,r=abc,tokenauth=true").status(),
              IsError(StatusCode::kUnauthenticated));
  SaslServer b = Server(SaslMechanism::kScramSha256);
  EXPECT_THAT(b.Step("n,a=other,n=user,r=abc").status(), IsError(StatusCode::kUnauthenticated));
}

TEST_F(SaslTest, ScramThrottlesAfterTheBurst) {
  for (int i = 0; i < 3; ++i) {
    SaslServer s = Server(SaslMechanism::kScramSha256);
    FLOE_ASSERT_OK(s.Step(kRfcClientFirst).status());
    EXPECT_THAT(
        s.Step("c=biws,r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,p=AAAA").status(),
        IsError(StatusCode::kUnauthenticated));
  }
  // Even the right proof is refused now, unchecked.
  SaslServer s = Server(SaslMechanism::kScramSha256);
  EXPECT_THAT(s.Step(kRfcClientFirst).status(), IsError(StatusCode::kResourceExhausted));
  now_ms_ += 1000;  // one failure drained
  SaslServer t = Server(SaslMechanism::kScramSha256);
  FLOE_ASSERT_OK(t.Step(kRfcClientFirst).status());
  FLOE_ASSERT_OK(t.Step(kRfcClientFinal).status());
  EXPECT_TRUE(t.complete());
}

TEST_F(SaslTest, ParseScramMessages) {
  FLOE_ASSERT_OK_AND_ASSIGN(ScramClientFirst first,
                            ParseScramClientFirst("n,a=a=3Db,n=a=3Db=2Cc,r=xyz,ext=1"));
  EXPECT_EQ(first.gs2_header, "n,a=a=3Db,");
  EXPECT_EQ(first.authzid, "a=b");
  EXPECT_EQ(first.username, "a=b,c");
  EXPECT_EQ(first.nonce, "xyz");
  EXPECT_EQ(first.extensions.at("ext"), "1");
  EXPECT_EQ(first.bare, "n=a=3Db=2Cc,r=xyz,ext=1");
  for (std::string_view bad :
       {"", "n,,", "p=tls-unique,,n=u,r=x", "n,,n=,r=x", "n,,n=u=4,r=x", "n,,r=x,n=u",
        "n,,n=u,r=", "n,,n=u,r=a\x7f", "n,,m=x,n=u,r=x", "n,,n=u,r=x,=v", "n,,n=u,r=x,e=1,e=2"}) {
    EXPECT_THAT(ParseScramClientFirst(bad).status(), IsError(StatusCode::kInvalidArgument)) << bad;
  }
  FLOE_ASSERT_OK_AND_ASSIGN(ScramClientFinal final_message, ParseScramClientFinal(kRfcClientFinal));
  EXPECT_EQ(final_message.channel_binding, "n,,");
  EXPECT_EQ(final_message.proof.size(), 32u);
  EXPECT_EQ(final_message.without_proof,
            "c=biws,r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0");
  for (std::string_view bad : {"", "c=biws,r=x", "c=biws,p=AAAA", "c=b!ws,r=x,p=AAAA",
                               "c=biws,r=x,p=A", "r=x,c=biws,p=AAAA"}) {
    EXPECT_THAT(ParseScramClientFinal(bad).status(), IsError(StatusCode::kInvalidArgument)) << bad;
  }
}

TEST_F(SaslTest, Plain) {
  SaslServer ok = Server(SaslMechanism::kPlain);
  FLOE_ASSERT_OK_AND_ASSIGN(std::string reply, ok.Step(std::string("\0user\0pencil", 12)));
  EXPECT_EQ(reply, "");
  ASSERT_TRUE(ok.complete());
  EXPECT_EQ(ok.principal()->name, "user");
  SaslServer same_authzid = Server(SaslMechanism::kPlain);
  FLOE_ASSERT_OK(same_authzid.Step(std::string("user\0user\0pencil", 16)).status());

  SaslServer wrong = Server(SaslMechanism::kPlain);
  EXPECT_THAT(wrong.Step(std::string("\0user\0pencil2", 13)).status(),
              IsError(StatusCode::kUnauthenticated));
  SaslServer unknown = Server(SaslMechanism::kPlain);
  EXPECT_THAT(unknown.Step(std::string("\0nobody\0pencil", 14)).status(),
              IsError(StatusCode::kUnauthenticated));
  SaslServer act_as = Server(SaslMechanism::kPlain);
  EXPECT_THAT(act_as.Step(std::string("other\0user\0pencil", 17)).status(),
              IsError(StatusCode::kUnauthenticated));

  FLOE_ASSERT_OK_AND_ASSIGN(PlainMessage m, ParsePlainMessage(std::string("z\0u\0p", 5)));
  EXPECT_EQ(m.authzid, "z");
  EXPECT_EQ(m.authcid, "u");
  EXPECT_EQ(m.password, "p");
  for (const std::string& bad :
       {std::string(""), std::string("\0u", 2), std::string("\0\0p", 3), std::string("\0u\0", 3),
        std::string("\0u\0p\0", 5), std::string("\0u\0", 3) + std::string(256, 'p')}) {
    EXPECT_THAT(ParsePlainMessage(bad).status(), IsError(StatusCode::kInvalidArgument));
  }
}

TEST_F(SaslTest, OAuthBearer) {
  const Principal* user = auth_->FindPrincipal("user");
  std::string token = auth_->IssueToken(*user);
  SaslServer ok = Server(SaslMechanism::kOAuthBearer);
  FLOE_ASSERT_OK_AND_ASSIGN(std::string reply, ok.Step("n,,\x01"
                                                       "auth=Bearer " +
                                                       token + "\x01\x01"));
  EXPECT_EQ(reply, "");
  ASSERT_TRUE(ok.complete());
  EXPECT_EQ(ok.principal()->name, "user");

  SaslServer forged = Server(SaslMechanism::kOAuthBearer);
  std::string bad_token = token;
  bad_token.back() = bad_token.back() == '0' ? '1' : '0';
  EXPECT_THAT(forged
                  .Step("n,,\x01"
                        "auth=Bearer " +
                        bad_token + "\x01\x01")
                  .status(),
              IsError(StatusCode::kUnauthenticated));
  now_ms_ += 3600 * 1000 + 1000;
  SaslServer expired = Server(SaslMechanism::kOAuthBearer);
  EXPECT_THAT(expired
                  .Step("n,,\x01"
                        "auth=Bearer " +
                        token + "\x01\x01")
                  .status(),
              IsError(StatusCode::kUnauthenticated));

  // RFC 7628 §3.1 shapes, with an authzid and Kafka-style extensions.
  FLOE_ASSERT_OK_AND_ASSIGN(
      OAuthBearerInitial initial,
      ParseOAuthBearerInitial("n,a=user@example.com,\x01host=server.example.com\x01port=143\x01"
                              "auth=Bearer vF9dft4qmTc2Nvb3RlckBhbHRhdmlzdGEuY29tCg==\x01\x01"));
  EXPECT_EQ(initial.authzid, "user@example.com");
  EXPECT_EQ(initial.token, "vF9dft4qmTc2Nvb3RlckBhbHRhdmlzdGEuY29tCg==");
  EXPECT_EQ(initial.extensions.at("host"), "server.example.com");
  EXPECT_EQ(initial.extensions.at("port"), "143");
  for (std::string_view bad : {"", "n,,", "n,,\x01\x01",
                               "n,,\x01"
                               "auth=Bearer x\x01",
                               "n,,\x01"
                               "auth=Basic x\x01\x01",
                               "n,,\x01"
                               "auth=Bearer \x01\x01",
                               "n,,\x01"
                               "host=x\x01\x01",
                               "n,,\x01"
                               "auth=Bearer x\x01"
                               "auth=Bearer y\x01\x01",
                               "n,,\x01"
                               "a1=b\x01\x01",
                               "n,,\x01"
                               "auth=Bearer x\x01"
                               "k=\x02\x01\x01"}) {
    EXPECT_THAT(ParseOAuthBearerInitial(bad).status(), IsError(StatusCode::kInvalidArgument))
        << bad;
  }
}

TEST_F(SaslTest, MechanismNames) {
  for (std::string_view name : kSaslMechanismNames) {
    auto m = ParseSaslMechanism(name);
    ASSERT_TRUE(m.has_value()) << name;
    EXPECT_EQ(SaslMechanismName(*m), name);
  }
  EXPECT_FALSE(ParseSaslMechanism("GSSAPI").has_value());
  EXPECT_FALSE(ParseSaslMechanism("plain").has_value());
}

}  // namespace
}  // namespace floe::auth
