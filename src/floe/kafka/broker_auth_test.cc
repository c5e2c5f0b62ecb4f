// The broker's SASL gate and its per-request authorization, through request frames on
// sessions as the listener keeps them (one per connection).
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>

#include "floe/auth/crypto.h"
#include "floe/base/testing.h"
#include "floe/kafka/broker.h"
#include "floe/kafka/test_frames.h"

namespace floe::kafka {
namespace {

class BrokerAuthTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("floe_broker_auth_" + std::to_string(::getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::remove_all(dir_);
    auth::AuthConfig config;
    config.enabled = true;
    auto add = [&](const std::string& name, std::optional<auth::Access> access) {
      auth::Principal p;
      p.name = name;
      p.secret_sha256 = auth::Sha256(name + "-secret");
      if (access) p.catalogs["topics"] = *access;
      config.principals.push_back(p);
    };
    add("writer", auth::Access::kWrite);
    add("reader", auth::Access::kRead);
    add("stranger", std::nullopt);
    FLOE_ASSERT_OK_AND_ASSIGN(
        auth_, auth::Authenticator::Make(config, std::string(32, 'k'), [] { return 1000; }));
    BrokerOptions options;
    options.data_dir = dir_.string();
    options.now_ms = [] { return 1000; };
    options.random_seed = 1;
    options.authenticator = auth_.get();
    options.auth_catalog = "topics";
    FLOE_ASSERT_OK_AND_ASSIGN(broker_, Broker::Open(options));
  }
  void TearDown() override {
    broker_.reset();
    std::filesystem::remove_all(dir_);
  }

  // Sends a request on `session`; the response frame, or nullopt with *status set.
  template <typename Req>
  std::optional<Buffer> Send(Broker::Session& session, const Req& req, int16_t version,
                             Status* status = nullptr) {
    Buffer frame = RequestFrame(req, version, ++correlation_);
    std::optional<Buffer> got;
    Status s = broker_->Handle(frame.span(), session,
                               [&](std::optional<Buffer> b) { got = std::move(b); });
    if (status != nullptr) *status = s;
    return got;
  }

  template <typename Resp>
  Resp Parse(const Buffer& frame, int16_t version) {
    KafkaReader r(frame.span(), false);
    EXPECT_EQ(*r.Int32(), correlation_);
    if (Resp::IsFlexible(version) && Resp::kApiKey != kApiVersionsKey) {
      FLOE_EXPECT_OK(r.SkipTags());
    }
    KafkaReader body({r.position(), r.remaining()}, Resp::IsFlexible(version));
    Resp resp;
    Status s = resp.Read(body, version);
    FLOE_EXPECT_OK(s);
    EXPECT_EQ(body.remaining(), 0u);
    return resp;
  }

  // SaslHandshake v1 + SaslAuthenticate v2 with PLAIN; the SaslAuthenticate error code.
  int16_t LoginPlain(Broker::Session& session, const std::string& user,
                     const std::string& password) {
    SaslHandshakeRequest hs;
    hs.mechanism = "PLAIN";
    auto hs_resp = Parse<SaslHandshakeResponse>(*Send(session, hs, 1), 1);
    EXPECT_EQ(hs_resp.error_code, 0);
    std::string message = std::string("\0", 1) + user + std::string("\0", 1) + password;
    SaslAuthenticateRequest req;
    req.auth_bytes = {reinterpret_cast<const uint8_t*>(message.data()), message.size()};
    auto resp = Parse<SaslAuthenticateResponse>(*Send(session, req, 2), 2);
    return resp.error_code;
  }

  Broker::Session Session() {
    Broker::Session s;
    s.client_host = "10.1.2.3";
    return s;
  }

  CreateTopicsResponse CreateTopic(Broker::Session& session, const std::string& name) {
    CreateTopicsRequest req;
    auto& t = req.topics.emplace_back();
    t.name = name;
    t.num_partitions = 1;
    t.replication_factor = -1;
    return Parse<CreateTopicsResponse>(*Send(session, req, 7), 7);
  }

  std::filesystem::path dir_;
  std::unique_ptr<auth::Authenticator> auth_;
  std::unique_ptr<Broker> broker_;
  int32_t correlation_ = 0;
};

TEST_F(BrokerAuthTest, AnonymousMayOnlyNegotiate) {
  Broker::Session s = Session();
  ApiVersionsRequest versions;
  auto v = Parse<ApiVersionsResponse>(*Send(s, versions, 3), 3);
  bool lists_handshake = false;
  bool lists_authenticate = false;
  for (const auto& api : v.api_keys) {
    lists_handshake |= api.api_key == SaslHandshakeRequest::kApiKey && api.min_version == 0 &&
                       api.max_version == 1;
    lists_authenticate |= api.api_key == SaslAuthenticateRequest::kApiKey && api.max_version == 2;
  }
  EXPECT_TRUE(lists_handshake);
  EXPECT_TRUE(lists_authenticate);
  // Anything else before authentication closes the connection, unanswered.
  MetadataRequest metadata;
  Status status;
  EXPECT_FALSE(Send(s, metadata, 12, &status).has_value());
  EXPECT_EQ(status.code(), StatusCode::kUnauthenticated);
  EXPECT_TRUE(broker_->ListTopics().empty());
}

TEST_F(BrokerAuthTest, WrongPasswordFailsAndCloses) {
  Broker::Session s = Session();
  EXPECT_EQ(LoginPlain(s, "writer", "wrong"), Code(ErrorCode::kSaslAuthenticationFailed));
  EXPECT_TRUE(s.close_after_responses);
  EXPECT_EQ(s.principal, nullptr);
  Broker::Session unknown = Session();
  EXPECT_EQ(LoginPlain(unknown, "nobody", "x"), Code(ErrorCode::kSaslAuthenticationFailed));
}

TEST_F(BrokerAuthTest, UnknownMechanismListsTheServedOnes) {
  Broker::Session s = Session();
  SaslHandshakeRequest hs;
  hs.mechanism = "GSSAPI";
  auto resp = Parse<SaslHandshakeResponse>(*Send(s, hs, 1), 1);
  EXPECT_EQ(resp.error_code, Code(ErrorCode::kUnsupportedSaslMechanism));
  EXPECT_EQ(resp.mechanisms,
            (std::vector<std::string>{"PLAIN", "SCRAM-SHA-256", "SCRAM-SHA-512", "OAUTHBEARER"}));
  EXPECT_TRUE(s.close_after_responses);
}

TEST_F(BrokerAuthTest, HandshakeV0TakesBareTokens) {
  // Kafka before 1.0 (and librdkafka's feature probe) : after SaslHandshake v0 the tokens
  // follow as bare frames.
  for (const auto& [password, ok] :
       {std::pair<std::string, bool>{"writer-secret", true}, {"wrong", false}}) {
    Broker::Session s = Session();
    SaslHandshakeRequest hs;
    hs.mechanism = "PLAIN";
    ASSERT_EQ(Parse<SaslHandshakeResponse>(*Send(s, hs, 0), 0).error_code, 0);
    EXPECT_TRUE(s.bare_sasl_tokens);
    std::string token = std::string("\0writer\0", 8) + password;
    std::optional<Buffer> reply;
    Status st =
        broker_->HandleSaslToken({reinterpret_cast<const uint8_t*>(token.data()), token.size()}, s,
                                 [&](std::optional<Buffer> b) { reply = std::move(b); });
    EXPECT_FALSE(s.bare_sasl_tokens);
    if (ok) {
      FLOE_EXPECT_OK(st);
      ASSERT_TRUE(reply.has_value());
      EXPECT_EQ(reply->size(), 0u);  // PLAIN: the server's token is empty
      ASSERT_NE(s.principal, nullptr);
      EXPECT_EQ(CreateTopic(s, "v0-topic").topics.at(0).error_code, 0);
    } else {
      EXPECT_EQ(st.code(), StatusCode::kUnauthenticated);
      EXPECT_EQ(s.principal, nullptr);
    }
  }
}

TEST_F(BrokerAuthTest, AuthenticateWithoutHandshakeIsIllegal) {
  Broker::Session s = Session();
  SaslAuthenticateRequest req;
  auto resp = Parse<SaslAuthenticateResponse>(*Send(s, req, 2), 2);
  EXPECT_EQ(resp.error_code, Code(ErrorCode::kIllegalSaslState));
  EXPECT_TRUE(s.close_after_responses);
}

TEST_F(BrokerAuthTest, WriterCreatesReaderIsRefused) {
  Broker::Session writer = Session();
  ASSERT_EQ(LoginPlain(writer, "writer", "writer-secret"), 0);
  ASSERT_NE(writer.principal, nullptr);
  EXPECT_EQ(writer.principal->name, "writer");
  EXPECT_EQ(CreateTopic(writer, "events").topics.at(0).error_code, 0);

  Broker::Session reader = Session();
  ASSERT_EQ(LoginPlain(reader, "reader", "reader-secret"), 0);
  EXPECT_EQ(CreateTopic(reader, "other").topics.at(0).error_code,
            Code(ErrorCode::kTopicAuthorizationFailed));
  // Produce: every partition refused, nothing appended.
  ProduceRequest produce;
  produce.acks = -1;
  produce.timeout_ms = 1000;
  auto& td = produce.topic_data.emplace_back();
  td.name = "events";
  td.partition_data.push_back({0, std::nullopt});
  auto p = Parse<ProduceResponse>(*Send(reader, produce, 9), 9);
  EXPECT_EQ(p.responses.at(0).partition_responses.at(0).error_code,
            Code(ErrorCode::kTopicAuthorizationFailed));
  EXPECT_EQ(broker_->ListTopics().at(0).partitions.at(0).log_end_offset, 0);
  // A reader sees the topic, but Metadata does not create missing ones for it.
  MetadataRequest metadata;
  metadata.topics.emplace();
  metadata.topics->push_back({Uuid{}, std::string("events")});
  metadata.topics->push_back({Uuid{}, std::string("missing")});
  metadata.allow_auto_topic_creation = true;
  auto m = Parse<MetadataResponse>(*Send(reader, metadata, 12), 12);
  ASSERT_EQ(m.topics.size(), 2u);
  EXPECT_EQ(m.topics[0].error_code, 0);
  EXPECT_EQ(m.topics[1].error_code, Code(ErrorCode::kUnknownTopicOrPartition));
  EXPECT_EQ(broker_->ListTopics().size(), 1u);
  // Idempotent producers need write.
  InitProducerIdRequest init;
  init.transaction_timeout_ms = -1;
  EXPECT_EQ(Parse<InitProducerIdResponse>(*Send(reader, init, 4), 4).error_code,
            Code(ErrorCode::kClusterAuthorizationFailed));
}

TEST_F(BrokerAuthTest, NoRoleIsRefusedEverything) {
  Broker::Session writer = Session();
  ASSERT_EQ(LoginPlain(writer, "writer", "writer-secret"), 0);
  ASSERT_EQ(CreateTopic(writer, "events").topics.at(0).error_code, 0);
  Broker::Session s = Session();
  ASSERT_EQ(LoginPlain(s, "stranger", "stranger-secret"), 0);
  MetadataRequest all;  // null topics: every topic
  EXPECT_TRUE(Parse<MetadataResponse>(*Send(s, all, 12), 12).topics.empty());
  FetchRequest fetch;
  fetch.max_wait_ms = 0;
  auto& ft = fetch.topics.emplace_back();
  ft.topic = "events";
  ft.partitions.emplace_back().partition = 0;
  auto f = Parse<FetchResponse>(*Send(s, fetch, 12), 12);
  EXPECT_EQ(f.responses.at(0).partitions.at(0).error_code,
            Code(ErrorCode::kTopicAuthorizationFailed));
  FindCoordinatorRequest find;
  find.key_type = 0;
  find.coordinator_keys = {"g"};
  auto c = Parse<FindCoordinatorResponse>(*Send(s, find, 4), 4);
  EXPECT_EQ(c.coordinators.at(0).error_code, Code(ErrorCode::kGroupAuthorizationFailed));
  JoinGroupRequest join;
  join.group_id = "g";
  join.session_timeout_ms = 10000;
  join.protocol_type = "consumer";
  EXPECT_EQ(Parse<JoinGroupResponse>(*Send(s, join, 9), 9).error_code,
            Code(ErrorCode::kGroupAuthorizationFailed));
}

TEST_F(BrokerAuthTest, WithoutAuthenticatorSaslIsIllegal) {
  broker_.reset();
  BrokerOptions options;
  options.data_dir = dir_.string();
  options.now_ms = [] { return 1000; };
  options.random_seed = 1;
  FLOE_ASSERT_OK_AND_ASSIGN(broker_, Broker::Open(options));
  Broker::Session s = Session();
  SaslHandshakeRequest hs;
  hs.mechanism = "PLAIN";
  EXPECT_EQ(Parse<SaslHandshakeResponse>(*Send(s, hs, 1), 1).error_code,
            Code(ErrorCode::kIllegalSaslState));
  EXPECT_FALSE(s.close_after_responses);
  EXPECT_EQ(CreateTopic(s, "events").topics.at(0).error_code, 0);
}

}  // namespace
}  // namespace floe::kafka
