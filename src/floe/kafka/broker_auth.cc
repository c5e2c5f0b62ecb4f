// The broker's SASL authentication and per-request authorization (broker.h, BrokerOptions::
// authenticator; docs/kafka.md, "Security").
#include <fmt/format.h>

#include "floe/base/macros.h"
#include "floe/kafka/broker.h"

namespace floe::kafka {

namespace {

constexpr int8_t kTopicResourceType = 2;  // ConfigResource.Type.TOPIC (4 is BROKER)

std::vector<std::string> MechanismNames() {
  return {std::begin(auth::kSaslMechanismNames), std::end(auth::kSaslMechanismNames)};
}

// Parses a Req from `r`, lets `fill` turn it into the refusal and answers with that.
template <typename Req, typename Resp, typename Fill>
Status Answer(const RequestHeader& h, KafkaReader& r, Broker::Respond& respond, Fill fill) {
  Req req;
  FLOE_RETURN_IF_ERROR(req.Read(r, h.api_version));
  Resp resp;
  FLOE_RETURN_IF_ERROR(fill(req, resp));
  respond(EncodeResponse(h, resp));
  return Status::OK();
}

// The group requests whose answer is one error code.
template <typename Req, typename Resp>
Status GroupError(const RequestHeader& h, KafkaReader& r, Broker::Respond& respond) {
  return Answer<Req, Resp>(h, r, respond, [](const Req&, Resp& resp) {
    resp.error_code = Code(ErrorCode::kGroupAuthorizationFailed);
    return Status::OK();
  });
}

}  // namespace

auth::Access Broker::SessionAccess(const Session& session) const {
  if (options_.authenticator == nullptr) return auth::Access::kWrite;
  if (session.principal == nullptr) return auth::Access::kNone;
  for (auth::Access access : {auth::Access::kWrite, auth::Access::kRead}) {
    if (auth::Authenticator::Authorize(*session.principal, options_.auth_catalog, access).ok()) {
      return access;
    }
  }
  return auth::Access::kNone;
}

Status Broker::HandleSaslHandshake(const RequestHeader& h, KafkaReader& r, Session& session,
                                   Respond& respond) {
  SaslHandshakeRequest req;
  FLOE_RETURN_IF_ERROR(req.Read(r, h.api_version));
  SaslHandshakeResponse resp;
  if (options_.authenticator == nullptr || session.principal != nullptr || session.sasl) {
    // A listener without SASL, or a second handshake (floe grants sessions without a
    // lifetime, so there is no re-authentication): Kafka answers ILLEGAL_SASL_STATE.
    resp.error_code = Code(ErrorCode::kIllegalSaslState);
    session.close_after_responses = options_.authenticator != nullptr;
  } else if (std::optional<auth::SaslMechanism> mechanism =
                 auth::ParseSaslMechanism(req.mechanism)) {
    session.sasl =
        std::make_unique<auth::SaslServer>(options_.authenticator, *mechanism, session.client_host);
    session.bare_sasl_tokens = h.api_version == 0;
  } else {
    resp.error_code = Code(ErrorCode::kUnsupportedSaslMechanism);
    session.close_after_responses = true;
  }
  resp.mechanisms = MechanismNames();
  respond(EncodeResponse(h, resp));
  return Status::OK();
}

Status Broker::HandleSaslAuthenticate(const RequestHeader& h, KafkaReader& r, Session& session,
                                      Respond& respond) {
  SaslAuthenticateRequest req;
  FLOE_RETURN_IF_ERROR(req.Read(r, h.api_version));
  SaslAuthenticateResponse resp;
  std::string reply;
  if (options_.authenticator == nullptr || !session.sasl) {
    resp.error_code = Code(ErrorCode::kIllegalSaslState);
    resp.error_message = options_.authenticator == nullptr
                             ? "SASL is not enabled on this listener"
                             : "SaslAuthenticate without a SaslHandshake first";
    session.close_after_responses = options_.authenticator != nullptr;
  } else {
    std::string_view message(reinterpret_cast<const char*>(req.auth_bytes.data()),
                             req.auth_bytes.size());
    Result<std::string> step = session.sasl->Step(message);
    if (!step.ok()) {
      // Unknown user, wrong password or proof, a token floe did not issue, a malformed
      // message, or too many failures lately: one error code, the connection closes, and
      // the message names no secret (sasl.h).
      resp.error_code = Code(ErrorCode::kSaslAuthenticationFailed);
      resp.error_message =
          fmt::format("Authentication failed with SASL mechanism {}: {}",
                      auth::SaslMechanismName(session.sasl->mechanism()), step.status().message());
      session.sasl.reset();
      session.close_after_responses = true;
    } else {
      reply = std::move(*step);
      if (session.sasl->complete()) {
        session.principal = session.sasl->principal();
        session.sasl.reset();
      }
    }
  }
  resp.auth_bytes = {reinterpret_cast<const uint8_t*>(reply.data()), reply.size()};
  // 0: the session does not expire, so clients never re-authenticate (KIP-368; Kafka's
  // default, connections.max.reauth.ms = 0).
  resp.session_lifetime_ms = 0;
  respond(EncodeResponse(h, resp));
  return Status::OK();
}

Status Broker::HandleSaslToken(std::span<const uint8_t> frame, Session& session, Respond respond) {
  if (!session.sasl || !session.bare_sasl_tokens) {
    return Status::Internal("a bare SASL token outside a SaslHandshake v0 exchange");
  }
  std::string_view message(reinterpret_cast<const char*>(frame.data()), frame.size());
  Result<std::string> step = session.sasl->Step(message);
  if (!step.ok()) {
    const auth::SaslMechanism mechanism = session.sasl->mechanism();
    session.sasl.reset();
    session.bare_sasl_tokens = false;
    return Status::Unauthenticated("SASL {} authentication failed: {}",
                                   auth::SaslMechanismName(mechanism), step.status().message());
  }
  if (session.sasl->complete()) {
    session.principal = session.sasl->principal();
    session.sasl.reset();
    session.bare_sasl_tokens = false;
  }
  Buffer reply;
  reply.Append(step->data(), step->size());
  respond(std::move(reply));
  return Status::OK();
}

Status Broker::Refuse(const RequestHeader& h, KafkaReader& r, Respond& respond) {
  const int16_t topic_denied = Code(ErrorCode::kTopicAuthorizationFailed);
  const int16_t group_denied = Code(ErrorCode::kGroupAuthorizationFailed);
  const int16_t cluster_denied = Code(ErrorCode::kClusterAuthorizationFailed);
  // DescribeConfigs and IncrementalAlterConfigs: per resource, topic or broker.
  auto refuse_resource = [&](const auto& res, auto& out) {
    out.error_code = res.resource_type == kTopicResourceType ? topic_denied : cluster_denied;
    out.error_message = "Authorization failed.";
    out.resource_type = res.resource_type;
    out.resource_name = res.resource_name;
  };
  switch (h.api_key) {
    case MetadataRequest::kApiKey:
      return Answer<MetadataRequest, MetadataResponse>(
          h, r, respond, [&](const MetadataRequest& req, MetadataResponse& resp) {
            resp.brokers.push_back({options_.node_id, options_.advertised_host,
                                    options_.advertised_port, std::nullopt});
            resp.cluster_id = cluster_id_;
            resp.controller_id = options_.node_id;
            // Listing every topic shows none; each named topic is refused.
            if (req.topics.has_value() && !(h.api_version == 0 && req.topics->empty())) {
              for (const auto& want : *req.topics) {
                MetadataResponse::MetadataResponseTopic& t = resp.topics.emplace_back();
                t.error_code = topic_denied;
                t.name = want.name;
                t.topic_id = want.topic_id;
              }
            }
            return Status::OK();
          });
    case ProduceRequest::kApiKey:
      return Answer<ProduceRequest, ProduceResponse>(
          h, r, respond, [&](const ProduceRequest& req, ProduceResponse& resp) {
            // acks=0 has no answer to carry the error: Kafka closes the connection.
            if (req.acks == 0)
              return Status::PermissionDenied("produce with acks=0 not authorized");
            for (const auto& td : req.topic_data) {
              auto& tr = resp.responses.emplace_back();
              tr.name = td.name;
              for (const auto& pd : td.partition_data) {
                auto& pr = tr.partition_responses.emplace_back();
                pr.index = pd.index;
                pr.error_code = topic_denied;
                pr.base_offset = -1;
              }
            }
            return Status::OK();
          });
    case FetchRequest::kApiKey:
      return Answer<FetchRequest, FetchResponse>(h, r, respond,
                                                 [&](const FetchRequest& req, FetchResponse& resp) {
                                                   for (const auto& ft : req.topics) {
                                                     auto& tr = resp.responses.emplace_back();
                                                     tr.topic = ft.topic;
                                                     for (const auto& fp : ft.partitions) {
                                                       auto& pd = tr.partitions.emplace_back();
                                                       pd.partition_index = fp.partition;
                                                       pd.error_code = topic_denied;
                                                       pd.high_watermark = -1;
                                                     }
                                                   }
                                                   return Status::OK();
                                                 });
    case ListOffsetsRequest::kApiKey:
      return Answer<ListOffsetsRequest, ListOffsetsResponse>(
          h, r, respond, [&](const ListOffsetsRequest& req, ListOffsetsResponse& resp) {
            for (const auto& lt : req.topics) {
              auto& tr = resp.topics.emplace_back();
              tr.name = lt.name;
              for (const auto& lp : lt.partitions) {
                auto& pr = tr.partitions.emplace_back();
                pr.partition_index = lp.partition_index;
                pr.error_code = topic_denied;
              }
            }
            return Status::OK();
          });
    case InitProducerIdRequest::kApiKey:
      return Answer<InitProducerIdRequest, InitProducerIdResponse>(
          h, r, respond, [&](const InitProducerIdRequest& req, InitProducerIdResponse& resp) {
            // Kafka: an idempotent producer needs IdempotentWrite on the cluster.
            resp.error_code = req.transactional_id.has_value()
                                  ? Code(ErrorCode::kTransactionalIdAuthorizationFailed)
                                  : cluster_denied;
            return Status::OK();
          });
    case CreateTopicsRequest::kApiKey:
      return Answer<CreateTopicsRequest, CreateTopicsResponse>(
          h, r, respond, [&](const CreateTopicsRequest& req, CreateTopicsResponse& resp) {
            for (const auto& t : req.topics) {
              auto& tr = resp.topics.emplace_back();
              tr.name = t.name;
              tr.error_code = topic_denied;
              tr.error_message = "Authorization failed.";
            }
            return Status::OK();
          });
    case DeleteTopicsRequest::kApiKey:
      return Answer<DeleteTopicsRequest, DeleteTopicsResponse>(
          h, r, respond, [&](const DeleteTopicsRequest& req, DeleteTopicsResponse& resp) {
            auto refuse = [&](std::optional<std::string> name, const Uuid& id) {
              auto& tr = resp.responses.emplace_back();
              tr.name = std::move(name);
              tr.topic_id = id;
              tr.error_code = topic_denied;
              tr.error_message = "Authorization failed.";
            };
            for (const std::string& name : req.topic_names) refuse(name, Uuid{});
            for (const auto& t : req.topics) refuse(t.name, t.topic_id);
            return Status::OK();
          });
    case DescribeConfigsRequest::kApiKey:
      return Answer<DescribeConfigsRequest, DescribeConfigsResponse>(
          h, r, respond, [&](const DescribeConfigsRequest& req, DescribeConfigsResponse& resp) {
            for (const auto& res : req.resources) refuse_resource(res, resp.results.emplace_back());
            return Status::OK();
          });
    case IncrementalAlterConfigsRequest::kApiKey:
      return Answer<IncrementalAlterConfigsRequest, IncrementalAlterConfigsResponse>(
          h, r, respond,
          [&](const IncrementalAlterConfigsRequest& req, IncrementalAlterConfigsResponse& resp) {
            for (const auto& res : req.resources) {
              refuse_resource(res, resp.responses.emplace_back());
            }
            return Status::OK();
          });
    case FindCoordinatorRequest::kApiKey:
      return Answer<FindCoordinatorRequest, FindCoordinatorResponse>(
          h, r, respond, [&](const FindCoordinatorRequest& req, FindCoordinatorResponse& resp) {
            resp.error_code = group_denied;
            resp.node_id = -1;
            resp.port = -1;
            for (const std::string& key : req.coordinator_keys) {
              auto& c = resp.coordinators.emplace_back();
              c.key = key;
              c.node_id = -1;
              c.port = -1;
              c.error_code = group_denied;
            }
            return Status::OK();
          });
    case JoinGroupRequest::kApiKey:
      return Answer<JoinGroupRequest, JoinGroupResponse>(
          h, r, respond, [&](const JoinGroupRequest& req, JoinGroupResponse& resp) {
            resp.error_code = group_denied;
            resp.member_id = req.member_id;
            if (h.api_version < 7) resp.protocol_name = "";
            return Status::OK();
          });
    case SyncGroupRequest::kApiKey:
      return GroupError<SyncGroupRequest, SyncGroupResponse>(h, r, respond);
    case HeartbeatRequest::kApiKey:
      return GroupError<HeartbeatRequest, HeartbeatResponse>(h, r, respond);
    case LeaveGroupRequest::kApiKey:
      return GroupError<LeaveGroupRequest, LeaveGroupResponse>(h, r, respond);
    case OffsetCommitRequest::kApiKey:
      return Answer<OffsetCommitRequest, OffsetCommitResponse>(
          h, r, respond, [&](const OffsetCommitRequest& req, OffsetCommitResponse& resp) {
            for (const auto& t : req.topics) {
              auto& tr = resp.topics.emplace_back();
              tr.name = t.name;
              for (const auto& p : t.partitions)
                tr.partitions.push_back({p.partition_index, group_denied});
            }
            return Status::OK();
          });
    case OffsetFetchRequest::kApiKey:
      return Answer<OffsetFetchRequest, OffsetFetchResponse>(
          h, r, respond, [&](const OffsetFetchRequest& req, OffsetFetchResponse& resp) {
            resp.error_code = group_denied;
            for (const auto& g : req.groups) {
              auto& gr = resp.groups.emplace_back();
              gr.group_id = g.group_id;
              gr.error_code = group_denied;
            }
            return Status::OK();
          });
    case DescribeGroupsRequest::kApiKey:
      return Answer<DescribeGroupsRequest, DescribeGroupsResponse>(
          h, r, respond, [&](const DescribeGroupsRequest& req, DescribeGroupsResponse& resp) {
            for (const std::string& id : req.groups) {
              auto& g = resp.groups.emplace_back();
              g.error_code = group_denied;
              g.group_id = id;
            }
            return Status::OK();
          });
    case ListGroupsRequest::kApiKey:
      // Kafka lists the groups the principal may describe: none.
      return Answer<ListGroupsRequest, ListGroupsResponse>(
          h, r, respond,
          [](const ListGroupsRequest&, ListGroupsResponse&) { return Status::OK(); });
    default: return Status::Unimplemented("API key {}", h.api_key);
  }
}

}  // namespace floe::kafka
