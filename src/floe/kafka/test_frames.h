// Tests only: Kafka request frames as a client sends them (request header v1, or v2 with its
// empty tagged-field section for flexible versions, then the body), for the tests of the
// broker, the listener and the table translators.
#pragma once

#include <cstdint>
#include <span>
#include <string>

#include "floe/base/buffer.h"
#include "floe/kafka/messages.h"
#include "floe/kafka/protocol.h"

namespace floe::kafka {

// Appends the frame of `req` at `version` (without the size prefix) to `out`.
template <typename Req>
void AppendRequestFrame(const Req& req, int16_t version, int32_t correlation_id, Buffer* out) {
  KafkaWriter header(out, false);
  header.Int16(Req::kApiKey);
  header.Int16(version);
  header.Int32(correlation_id);
  header.ClassicNullableString(std::string("test"));
  const bool flexible = Req::IsFlexible(version);
  if (flexible) header.UVarint(0);
  KafkaWriter body(out, flexible);
  req.Write(body, version);
}

template <typename Req>
Buffer RequestFrame(const Req& req, int16_t version, int32_t correlation_id) {
  Buffer frame;
  AppendRequestFrame(req, version, correlation_id, &frame);
  return frame;
}

// A produce of one batch to one partition.
inline ProduceRequest ProduceOf(const std::string& topic, std::span<const uint8_t> records,
                                int16_t acks = -1, int32_t timeout_ms = 30000,
                                int32_t partition = 0) {
  ProduceRequest req;
  req.acks = acks;
  req.timeout_ms = timeout_ms;
  auto& t = req.topic_data.emplace_back();
  t.name = topic;
  auto& p = t.partition_data.emplace_back();
  p.index = partition;
  p.records = records;
  return req;
}

}  // namespace floe::kafka
