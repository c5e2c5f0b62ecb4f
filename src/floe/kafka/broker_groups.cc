// The Broker's single-node classic group coordinator (kafka.md §6): JoinGroup with the
// KIP-394 two-step join, SyncGroup, Heartbeat, LeaveGroup, and committed offsets kept in
// groups/offsets.log. Group membership lives in memory only: after a restart members get
// UNKNOWN_MEMBER_ID on their next heartbeat and rejoin; committed offsets survive.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstring>

#include "floe/base/bytes.h"
#include "floe/base/crc.h"
#include "floe/base/macros.h"
#include "floe/kafka/broker.h"

namespace floe::kafka {
namespace {

constexpr int32_t kMinSessionTimeoutMs = 6000;
constexpr int32_t kMaxSessionTimeoutMs = 1800000;
constexpr size_t kMaxOffsetMetadataBytes = 4096;

std::span<const uint8_t> AsBytes(const std::string& s) {
  return {reinterpret_cast<const uint8_t*>(s.data()), s.size()};
}

std::string AsString(std::span<const uint8_t> b) {
  return std::string(reinterpret_cast<const char*>(b.data()), b.size());
}

}  // namespace

Broker::Group& Broker::GetGroup(const std::string& id) {
  Group& g = groups_[id];
  g.id = id;
  return g;
}

void Broker::StartRebalance(Group& group) {
  group.state = GroupState::kPreparingRebalance;
  int32_t timeout = 0;
  for (auto& [mid, m] : group.members) {
    timeout = std::max(timeout, m.rebalance_timeout_ms);
    if (m.sync.has_value()) {
      SyncGroupResponse resp;
      resp.error_code = Code(ErrorCode::kRebalanceInProgress);
      m.sync->respond(EncodeResponse(m.sync->header, resp));
      m.sync.reset();
    }
  }
  group.rebalance_deadline_ms = Now() + timeout;
}

void Broker::RemoveMember(Group& group, const std::string& member_id) {
  auto it = group.members.find(member_id);
  if (it == group.members.end()) return;
  Member& m = it->second;
  if (m.join.has_value()) {
    JoinGroupResponse resp;
    resp.error_code = Code(ErrorCode::kUnknownMemberId);
    m.join->respond(EncodeResponse(m.join->header, resp));
  }
  if (m.sync.has_value()) {
    SyncGroupResponse resp;
    resp.error_code = Code(ErrorCode::kUnknownMemberId);
    m.sync->respond(EncodeResponse(m.sync->header, resp));
  }
  group.members.erase(it);
  if (group.leader == member_id) group.leader.clear();
}

void Broker::SendJoinResponse(Group& group, Member& member) {
  if (!member.join.has_value()) return;
  JoinGroupResponse resp;
  resp.generation_id = group.generation;
  resp.protocol_type = group.protocol_type;
  resp.protocol_name = group.protocol;
  resp.leader = group.leader;
  resp.member_id = member.id;
  std::vector<std::string> keep;  // the members' metadata, alive until Encode returns
  if (member.id == group.leader) {
    for (auto& [mid, m] : group.members) {
      JoinGroupResponse::JoinGroupResponseMember& out = resp.members.emplace_back();
      out.member_id = mid;
      out.group_instance_id = m.instance_id;
      for (const auto& [name, metadata] : m.protocols) {
        if (name == group.protocol) out.metadata = AsBytes(metadata);
      }
    }
  }
  member.join->respond(EncodeResponse(member.join->header, resp));
  member.join.reset();
}

void Broker::MaybeCompleteJoin(Group& group, bool deadline_passed) {
  if (group.state != GroupState::kPreparingRebalance) return;
  bool all_joined = true;
  for (auto& [mid, m] : group.members) all_joined &= m.join.has_value();
  if (!all_joined && !deadline_passed) return;
  std::vector<std::string> laggards;
  for (auto& [mid, m] : group.members) {
    if (!m.join.has_value()) laggards.push_back(mid);
  }
  for (const std::string& mid : laggards) RemoveMember(group, mid);
  ++group.generation;
  if (group.members.empty()) {
    group.state = GroupState::kEmpty;
    group.protocol.clear();
    group.leader.clear();
    return;
  }
  // The protocol every member offers that most members prefer (ClassicGroup.selectProtocol).
  std::map<std::string, int> offered;
  for (auto& [mid, m] : group.members) {
    for (const auto& [name, metadata] : m.protocols) ++offered[name];
  }
  std::map<std::string, int> votes;
  for (auto& [mid, m] : group.members) {
    for (const auto& [name, metadata] : m.protocols) {
      if (offered[name] == static_cast<int>(group.members.size())) {
        ++votes[name];
        break;
      }
    }
  }
  if (votes.empty()) {
    std::vector<std::string> all;
    for (auto& [mid, m] : group.members) all.push_back(mid);
    for (const std::string& mid : all) {
      Member& m = group.members[mid];
      JoinGroupResponse resp;
      resp.error_code = Code(ErrorCode::kInconsistentGroupProtocol);
      m.join->respond(EncodeResponse(m.join->header, resp));
      m.join.reset();
      group.members.erase(mid);
    }
    group.state = GroupState::kEmpty;
    return;
  }
  group.protocol = std::max_element(votes.begin(), votes.end(), [](const auto& a, const auto& b) {
                     return a.second < b.second;
                   })->first;
  if (!group.members.contains(group.leader)) {
    const Member* first = nullptr;
    for (auto& [mid, m] : group.members) {
      if (first == nullptr || m.join_order < first->join_order) first = &m;
    }
    group.leader = first->id;
  }
  group.state = GroupState::kCompletingRebalance;
  int32_t timeout = 0;
  for (auto& [mid, m] : group.members) {
    timeout = std::max(timeout, m.rebalance_timeout_ms);
    m.assignment.clear();
    m.session_deadline_ms = Now() + m.session_timeout_ms;
    SendJoinResponse(group, m);
  }
  group.rebalance_deadline_ms = Now() + timeout;
}

Status Broker::HandleFindCoordinator(const RequestHeader& h, KafkaReader& r, Respond& respond) {
  FindCoordinatorRequest req;
  FLOE_RETURN_IF_ERROR(req.Read(r, h.api_version));
  FindCoordinatorResponse resp;
  auto error_for = [&req]() {
    if (req.key_type == 0) return ErrorCode::kNone;
    // Transactions are not implemented; a non-retriable error makes clients fail fast.
    return req.key_type == 1 ? ErrorCode::kTransactionalIdAuthorizationFailed
                             : ErrorCode::kInvalidRequest;
  };
  ErrorCode error = error_for();
  if (h.api_version < 4) {
    resp.error_code = Code(error);
    resp.node_id = error == ErrorCode::kNone ? options_.node_id : -1;
    resp.host = error == ErrorCode::kNone ? options_.advertised_host : "";
    resp.port = error == ErrorCode::kNone ? options_.advertised_port : -1;
  } else {
    for (const std::string& key : req.coordinator_keys) {
      FindCoordinatorResponse::Coordinator& c = resp.coordinators.emplace_back();
      c.key = key;
      c.error_code = Code(error);
      c.node_id = error == ErrorCode::kNone ? options_.node_id : -1;
      c.host = error == ErrorCode::kNone ? options_.advertised_host : "";
      c.port = error == ErrorCode::kNone ? options_.advertised_port : -1;
    }
  }
  respond(EncodeResponse(h, resp));
  return Status::OK();
}

Status Broker::HandleJoinGroup(const RequestHeader& h, const std::string& client_host,
                               KafkaReader& r, Respond& respond) {
  JoinGroupRequest req;
  FLOE_RETURN_IF_ERROR(req.Read(r, h.api_version));
  auto fail = [&](ErrorCode code, std::string member_id = "") {
    JoinGroupResponse resp;
    resp.error_code = Code(code);
    resp.member_id = std::move(member_id);
    respond(EncodeResponse(h, resp));
    return Status::OK();
  };
  if (req.group_id.empty()) return fail(ErrorCode::kInvalidGroupId);
  if (req.session_timeout_ms < kMinSessionTimeoutMs ||
      req.session_timeout_ms > kMaxSessionTimeoutMs) {
    return fail(ErrorCode::kInvalidSessionTimeout);
  }
  if (req.protocol_type.empty() || req.protocols.empty()) {
    return fail(ErrorCode::kInconsistentGroupProtocol);
  }
  Group& group = GetGroup(req.group_id);
  if (!group.members.empty() && group.protocol_type != req.protocol_type) {
    return fail(ErrorCode::kInconsistentGroupProtocol);
  }
  std::string member_id = req.member_id;
  if (member_id.empty()) {
    member_id = fmt::format("{}-{:016x}{:016x}", h.client_id, random_(), random_());
    if (h.api_version >= 4 && !req.group_instance_id.has_value()) {
      // KIP-394: hand out the id first; the member joins with it in its next request.
      group.pending_members[member_id] = Now() + req.session_timeout_ms;
      return fail(ErrorCode::kMemberIdRequired, member_id);
    }
  } else if (!group.members.contains(member_id)) {
    if (!group.pending_members.erase(member_id)) {
      return fail(ErrorCode::kUnknownMemberId, member_id);
    }
  }
  if (req.group_instance_id.has_value()) {
    // Static membership, simplified: the newest member with an instance id replaces the
    // older one.
    std::vector<std::string> stale;
    for (auto& [mid, m] : group.members) {
      if (mid != member_id && m.instance_id == req.group_instance_id) stale.push_back(mid);
    }
    for (const std::string& mid : stale) RemoveMember(group, mid);
  }
  Member& m = group.members[member_id];
  if (m.id.empty()) m.join_order = ++join_counter_;
  m.id = member_id;
  m.instance_id = req.group_instance_id;
  m.client_id = h.client_id;
  m.client_host = client_host;
  m.session_timeout_ms = req.session_timeout_ms;
  m.rebalance_timeout_ms = h.api_version >= 1 && req.rebalance_timeout_ms > 0
                               ? req.rebalance_timeout_ms
                               : req.session_timeout_ms;
  m.protocols.clear();
  for (const auto& p : req.protocols) m.protocols.emplace_back(p.name, AsString(p.metadata));
  if (m.join.has_value()) {
    // A second JoinGroup from the same member replaces the first.
    JoinGroupResponse resp;
    resp.error_code = Code(ErrorCode::kUnknownMemberId);
    m.join->respond(EncodeResponse(m.join->header, resp));
  }
  m.join = Parked{h, std::move(respond)};
  m.session_deadline_ms = Now() + m.session_timeout_ms;
  group.protocol_type = req.protocol_type;
  // Every join from a known member rebalances (the simple variant of kafka.md §6.3).
  if (group.state != GroupState::kPreparingRebalance) StartRebalance(group);
  MaybeCompleteJoin(group, false);
  return Status::OK();
}

Status Broker::HandleSyncGroup(const RequestHeader& h, KafkaReader& r, Respond& respond) {
  SyncGroupRequest req;
  FLOE_RETURN_IF_ERROR(req.Read(r, h.api_version));
  auto answer = [&h, &respond](ErrorCode code, const Group* group, const std::string* bytes) {
    SyncGroupResponse resp;
    resp.error_code = Code(code);
    if (group != nullptr) {
      resp.protocol_type = group->protocol_type;
      resp.protocol_name = group->protocol;
    }
    if (bytes != nullptr) resp.assignment = AsBytes(*bytes);
    respond(EncodeResponse(h, resp));
    return Status::OK();
  };
  auto git = groups_.find(req.group_id);
  if (git == groups_.end()) return answer(ErrorCode::kUnknownMemberId, nullptr, nullptr);
  Group& group = git->second;
  auto mit = group.members.find(req.member_id);
  if (mit == group.members.end()) return answer(ErrorCode::kUnknownMemberId, nullptr, nullptr);
  if (req.generation_id != group.generation) {
    return answer(ErrorCode::kIllegalGeneration, nullptr, nullptr);
  }
  if ((req.protocol_type.has_value() && *req.protocol_type != group.protocol_type) ||
      (req.protocol_name.has_value() && *req.protocol_name != group.protocol)) {
    return answer(ErrorCode::kInconsistentGroupProtocol, nullptr, nullptr);
  }
  Member& member = mit->second;
  member.session_deadline_ms = Now() + member.session_timeout_ms;
  switch (group.state) {
    case GroupState::kEmpty: return answer(ErrorCode::kUnknownMemberId, nullptr, nullptr);
    case GroupState::kPreparingRebalance:
      return answer(ErrorCode::kRebalanceInProgress, nullptr, nullptr);
    case GroupState::kStable: return answer(ErrorCode::kNone, &group, &member.assignment);
    case GroupState::kCompletingRebalance: break;
  }
  if (member.sync.has_value()) {
    SyncGroupResponse resp;
    resp.error_code = Code(ErrorCode::kUnknownMemberId);
    member.sync->respond(EncodeResponse(member.sync->header, resp));
  }
  member.sync = Parked{h, std::move(respond)};
  if (member.id != group.leader) return Status::OK();
  for (auto& [mid, m] : group.members) m.assignment.clear();
  for (const auto& a : req.assignments) {
    auto it = group.members.find(a.member_id);
    if (it != group.members.end()) it->second.assignment = AsString(a.assignment);
  }
  group.state = GroupState::kStable;
  for (auto& [mid, m] : group.members) {
    if (!m.sync.has_value()) continue;
    SyncGroupResponse resp;
    resp.protocol_type = group.protocol_type;
    resp.protocol_name = group.protocol;
    resp.assignment = AsBytes(m.assignment);
    m.sync->respond(EncodeResponse(m.sync->header, resp));
    m.sync.reset();
  }
  return Status::OK();
}

Status Broker::HandleHeartbeat(const RequestHeader& h, KafkaReader& r, Respond& respond) {
  HeartbeatRequest req;
  FLOE_RETURN_IF_ERROR(req.Read(r, h.api_version));
  HeartbeatResponse resp;
  auto git = groups_.find(req.group_id);
  Member* member = nullptr;
  if (git != groups_.end()) {
    auto mit = git->second.members.find(req.member_id);
    if (mit != git->second.members.end()) member = &mit->second;
  }
  if (member == nullptr || git->second.state == GroupState::kEmpty) {
    resp.error_code = Code(ErrorCode::kUnknownMemberId);
  } else if (req.generation_id != git->second.generation) {
    resp.error_code = Code(ErrorCode::kIllegalGeneration);
  } else {
    member->session_deadline_ms = Now() + member->session_timeout_ms;
    if (git->second.state == GroupState::kPreparingRebalance) {
      resp.error_code = Code(ErrorCode::kRebalanceInProgress);
    }
  }
  respond(EncodeResponse(h, resp));
  return Status::OK();
}

Status Broker::HandleLeaveGroup(const RequestHeader& h, KafkaReader& r, Respond& respond) {
  LeaveGroupRequest req;
  FLOE_RETURN_IF_ERROR(req.Read(r, h.api_version));
  LeaveGroupResponse resp;
  std::vector<LeaveGroupRequest::MemberIdentity> leaving = req.members;
  if (h.api_version < 3) leaving.push_back({req.member_id, std::nullopt, std::nullopt});
  auto git = groups_.find(req.group_id);
  bool removed = false;
  for (const auto& who : leaving) {
    ErrorCode code = ErrorCode::kUnknownMemberId;
    if (git != groups_.end()) {
      Group& group = git->second;
      std::string id = who.member_id;
      if (id.empty() && who.group_instance_id.has_value()) {
        for (auto& [mid, m] : group.members) {
          if (m.instance_id == who.group_instance_id) id = mid;
        }
      }
      if (group.members.contains(id)) {
        RemoveMember(group, id);
        code = ErrorCode::kNone;
        removed = true;
      }
    }
    if (h.api_version < 3) {
      resp.error_code = Code(code);
    } else {
      resp.members.push_back({who.member_id, who.group_instance_id, Code(code)});
    }
  }
  if (removed) {
    Group& group = git->second;
    if (group.state != GroupState::kPreparingRebalance) StartRebalance(group);
    MaybeCompleteJoin(group, false);
  }
  respond(EncodeResponse(h, resp));
  return Status::OK();
}

// Committed offsets: records of {u32 BE length, u32 BE CRC-32C, payload} where the payload
// is group, topic (classic strings), int32 partition, int64 offset, int32 leader epoch,
// nullable metadata. The newest record for a partition wins.
Status Broker::AppendOffsetRecord(const std::string& group, const std::string& topic,
                                  int32_t partition, const CommittedOffset& offset) {
  Buffer payload;
  KafkaWriter w(&payload, false);
  w.String(group);
  w.String(topic);
  w.Int32(partition);
  w.Int64(offset.offset);
  w.Int32(offset.leader_epoch);
  w.NullableString(offset.metadata, true);
  Buffer record;
  KafkaWriter rw(&record, false);
  rw.Int32(static_cast<int32_t>(payload.size()));
  rw.Int32(static_cast<int32_t>(Crc32c(0, payload.data(), payload.size())));
  rw.Raw(payload.span());
  // All or nothing: a record torn by a full disk would hide every later one from LoadOffsets.
  return offsets_log_->Append(record.span(), true);
}

Status Broker::LoadOffsets() {
  const std::string path = options_.data_dir + "/groups/offsets.log";
  FLOE_ASSIGN_OR_RETURN(offsets_log_, io::AppendFile::Open(path, options_.file_faults));
  Buffer data(static_cast<size_t>(offsets_log_->size()));
  FLOE_ASSIGN_OR_RETURN(size_t got, offsets_log_->ReadAt(0, data.size(), data.data()));
  ByteReader r(data.data(), got);
  size_t good = 0;
  while (!r.empty()) {
    Result<uint32_t> len = r.ReadBE<uint32_t>();
    Result<uint32_t> crc = r.ReadBE<uint32_t>();
    if (!len.ok() || !crc.ok()) break;
    Result<std::span<const uint8_t>> payload = r.Take(*len);
    if (!payload.ok() || Crc32c(0, payload->data(), payload->size()) != *crc) break;
    KafkaReader pr(*payload, false);
    Result<std::string> group = pr.String();
    Result<std::string> topic = pr.String();
    Result<int32_t> partition = pr.Int32();
    Result<int64_t> offset = pr.Int64();
    Result<int32_t> epoch = pr.Int32();
    Result<std::optional<std::string>> metadata = pr.NullableString(true);
    if (!group.ok() || !topic.ok() || !partition.ok() || !offset.ok() || !epoch.ok() ||
        !metadata.ok()) {
      break;
    }
    good = static_cast<size_t>(r.position() - data.data());
    // Offsets of topics deleted since stay in the file but are not loaded (Kafka drops a
    // deleted topic's committed offsets too).
    if (!topics_.contains(*topic)) continue;
    GetGroup(*group).offsets[{*topic, *partition}] = {*offset, *epoch, *metadata};
  }
  if (good < data.size()) {
    // A torn last record from a crash mid-append: it was never acknowledged.
    FLOE_RETURN_IF_ERROR(offsets_log_->Truncate(static_cast<int64_t>(good)));
  }
  return Status::OK();
}

Status Broker::HandleOffsetCommit(const RequestHeader& h, KafkaReader& r, Respond& respond) {
  OffsetCommitRequest req;
  FLOE_RETURN_IF_ERROR(req.Read(r, h.api_version));
  ErrorCode group_error = ErrorCode::kNone;
  auto git = groups_.find(req.group_id);
  const bool has_member = req.generation_id_or_member_epoch >= 0 || !req.member_id.empty() ||
                          req.group_instance_id.has_value();
  if (req.group_id.empty()) {
    group_error = ErrorCode::kInvalidGroupId;
  } else if (git == groups_.end()) {
    if (has_member) {
      group_error =
          h.api_version >= 9 ? ErrorCode::kGroupIdNotFound : ErrorCode::kIllegalGeneration;
    }
  } else if (has_member) {
    if (!git->second.members.contains(req.member_id)) {
      group_error = ErrorCode::kUnknownMemberId;
    } else if (req.generation_id_or_member_epoch != git->second.generation) {
      group_error = ErrorCode::kIllegalGeneration;
    } else if (git->second.state == GroupState::kCompletingRebalance) {
      group_error = ErrorCode::kRebalanceInProgress;
    }
  } else if (git->second.state != GroupState::kEmpty) {
    group_error = ErrorCode::kUnknownMemberId;
  }
  OffsetCommitResponse resp;
  for (const auto& t : req.topics) {
    OffsetCommitResponse::OffsetCommitResponseTopic& tr = resp.topics.emplace_back();
    tr.name = t.name;
    Topic* topic = FindTopic(t.name);
    for (const auto& p : t.partitions) {
      ErrorCode code = group_error;
      if (code == ErrorCode::kNone) {
        if (topic == nullptr || p.partition_index < 0 ||
            static_cast<size_t>(p.partition_index) >= topic->partitions.size()) {
          code = ErrorCode::kUnknownTopicOrPartition;
        } else if (p.committed_metadata.has_value() &&
                   p.committed_metadata->size() > kMaxOffsetMetadataBytes) {
          code = ErrorCode::kOffsetMetadataTooLarge;
        } else {
          CommittedOffset offset{p.committed_offset, p.committed_leader_epoch,
                                 p.committed_metadata};
          if (Status appended = AppendOffsetRecord(req.group_id, t.name, p.partition_index, offset);
              appended.ok()) {
            GetGroup(req.group_id).offsets[{t.name, p.partition_index}] = offset;
          } else {
            code = ErrorCodeFor(appended);
          }
        }
      }
      tr.partitions.push_back({p.partition_index, Code(code)});
    }
  }
  respond(EncodeResponse(h, resp));
  return Status::OK();
}

Status Broker::HandleOffsetFetch(const RequestHeader& h, KafkaReader& r, Respond& respond) {
  OffsetFetchRequest req;
  FLOE_RETURN_IF_ERROR(req.Read(r, h.api_version));
  OffsetFetchResponse resp;
  // One group's answer, in the v8+ shape; v1-7 copy it into the top-level fields.
  auto answer =
      [this](const std::string& group_id,
             const std::optional<std::vector<std::pair<std::string, std::vector<int32_t>>>>& want) {
        OffsetFetchResponse::OffsetFetchResponseGroup out;
        out.group_id = group_id;
        auto git = groups_.find(group_id);
        std::map<std::string, std::vector<int32_t>> topics;
        if (want.has_value()) {
          for (const auto& [name, parts] : *want) topics[name] = parts;
        } else if (git != groups_.end()) {
          for (const auto& [key, offset] : git->second.offsets)
            topics[key.first].push_back(key.second);
        }
        for (const auto& [name, parts] : topics) {
          auto& t = out.topics.emplace_back();
          t.name = name;
          for (int32_t p : parts) {
            auto& po = t.partitions.emplace_back();
            po.partition_index = p;
            po.committed_offset = -1;
            po.metadata = "";
            if (git == groups_.end()) continue;
            auto oit = git->second.offsets.find({name, p});
            if (oit == git->second.offsets.end()) continue;
            po.committed_offset = oit->second.offset;
            po.committed_leader_epoch = oit->second.leader_epoch;
            po.metadata = oit->second.metadata.value_or("");
          }
        }
        return out;
      };
  using Want = std::optional<std::vector<std::pair<std::string, std::vector<int32_t>>>>;
  if (h.api_version < 8) {
    Want want;
    if (req.topics.has_value()) {
      want.emplace();
      for (const auto& t : *req.topics) want->emplace_back(t.name, t.partition_indexes);
    }
    OffsetFetchResponse::OffsetFetchResponseGroup g = answer(req.group_id, want);
    for (auto& t : g.topics) {
      auto& out = resp.topics.emplace_back();
      out.name = t.name;
      for (auto& p : t.partitions) {
        out.partitions.push_back({p.partition_index, p.committed_offset, p.committed_leader_epoch,
                                  p.metadata, p.error_code});
      }
    }
  } else {
    for (const auto& g : req.groups) {
      Want want;
      if (g.topics.has_value()) {
        want.emplace();
        for (const auto& t : *g.topics) want->emplace_back(t.name, t.partition_indexes);
      }
      resp.groups.push_back(answer(g.group_id, want));
    }
  }
  respond(EncodeResponse(h, resp));
  return Status::OK();
}

namespace {

const char* StateName(int state) {
  static constexpr const char* kNames[] = {"Empty", "PreparingRebalance", "CompletingRebalance",
                                           "Stable"};
  return kNames[state];
}

bool EqualsIgnoreCase(std::string_view a, std::string_view b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::tolower(x) == std::tolower(y);
         });
}

}  // namespace

Status Broker::HandleDescribeGroups(const RequestHeader& h, KafkaReader& r, Respond& respond) {
  DescribeGroupsRequest req;
  FLOE_RETURN_IF_ERROR(req.Read(r, h.api_version));
  DescribeGroupsResponse resp;
  for (const std::string& id : req.groups) {
    DescribeGroupsResponse::DescribedGroup& out = resp.groups.emplace_back();
    out.group_id = id;
    auto git = groups_.find(id);
    if (git == groups_.end()) {
      out.group_state = "Dead";  // Kafka's answer for an unknown group before v6
      continue;
    }
    const Group& group = git->second;
    out.group_state = StateName(static_cast<int>(group.state));
    out.protocol_type = group.protocol_type;
    const bool stable = group.state == GroupState::kStable;
    out.protocol_data = stable ? group.protocol : "";
    for (const auto& [mid, m] : group.members) {
      DescribeGroupsResponse::DescribedGroupMember& dm = out.members.emplace_back();
      dm.member_id = mid;
      dm.group_instance_id = m.instance_id;
      dm.client_id = m.client_id;
      dm.client_host = "/" + m.client_host;
      if (!stable) continue;
      for (const auto& [name, metadata] : m.protocols) {
        if (name == group.protocol) dm.member_metadata = AsBytes(metadata);
      }
      dm.member_assignment = AsBytes(m.assignment);
    }
  }
  respond(EncodeResponse(h, resp));
  return Status::OK();
}

Status Broker::HandleListGroups(const RequestHeader& h, KafkaReader& r, Respond& respond) {
  ListGroupsRequest req;
  FLOE_RETURN_IF_ERROR(req.Read(r, h.api_version));
  ListGroupsResponse resp;
  for (const auto& [id, group] : groups_) {
    const char* state = StateName(static_cast<int>(group.state));
    auto matches = [](const std::vector<std::string>& filter, std::string_view value) {
      if (filter.empty()) return true;
      for (const std::string& f : filter) {
        if (EqualsIgnoreCase(f, value)) return true;
      }
      return false;
    };
    if (!matches(req.states_filter, state) || !matches(req.types_filter, "classic")) continue;
    resp.groups.push_back({id, group.protocol_type, state, "classic"});
  }
  respond(EncodeResponse(h, resp));
  return Status::OK();
}

}  // namespace floe::kafka
