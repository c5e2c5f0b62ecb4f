// The Broker's produce backpressure for table topics (docs/kafka.md, "Throttling"): a table
// topic's records stay in its log until the translator commits them to the table, so a
// translator that falls behind (slow, failed, or a long commit interval) would let the log
// grow until the disk is full. Producers are slowed down first, then held, before that.
//
// Kafka's quotas answer a produce over quota with throttle_time_ms and mute the connection
// for that long (KIP-219). The listener has no muting, so the response itself is held:
// a connection's responses go out in request order and its unanswered requests are capped
// (KafkaServerOptions::max_in_flight), so holding one response slows every client, also
// those that ignore throttle_time_ms. KIP-219 clients then wait the reported time again
// before their next request: the pause is up to twice the reported time, which errs on
// the side of the disk.
#include <algorithm>

#include "floe/kafka/broker.h"

namespace floe::kafka {

bool Broker::IsTableTopic(const Topic& topic) const {
  return ConfigValue(topic, "floe.table.topic.enable") == "true";
}

bool Broker::OverLagLimit(const Topic& topic, int32_t partition) const {
  if (options_.lag_limit_bytes <= 0 || partition < 0 ||
      static_cast<size_t>(partition) >= topic.partitions.size() || !IsTableTopic(topic)) {
    return false;
  }
  return topic.partitions[static_cast<size_t>(partition)].untranslated_bytes >=
         options_.lag_limit_bytes;
}

bool Broker::OverLagLimit(const ProduceRequest& req) {
  if (options_.lag_limit_bytes <= 0 || req.acks == 0) return false;
  for (const auto& td : req.topic_data) {
    const Topic* topic = FindTopic(td.name);
    if (topic == nullptr) continue;
    for (const auto& pd : td.partition_data) {
      if (OverLagLimit(*topic, pd.index)) return true;
    }
  }
  return false;
}

int32_t Broker::ThrottleMs(const Topic& topic, int32_t partition) const {
  const int64_t soft = options_.lag_throttle_bytes;
  if (soft <= 0 || options_.max_throttle_ms <= 0 || partition < 0 ||
      static_cast<size_t>(partition) >= topic.partitions.size() || !IsTableTopic(topic)) {
    return 0;
  }
  const int64_t lag = topic.partitions[static_cast<size_t>(partition)].untranslated_bytes;
  if (lag < soft) return 0;
  // Linear from a small pause at the throttle bound to max_throttle_ms at the hard bound
  // (or at twice the throttle bound without one), like Kafka's throttle time, which grows
  // with how far a client is over its quota.
  const int64_t hard = options_.lag_limit_bytes > soft ? options_.lag_limit_bytes : 2 * soft;
  const int64_t max_ms = options_.max_throttle_ms;
  const int64_t min_ms = std::min<int64_t>(10, max_ms);
  const double over = static_cast<double>(lag - soft) / static_cast<double>(hard - soft);
  const int64_t ms = min_ms + static_cast<int64_t>(over * static_cast<double>(max_ms - min_ms));
  return static_cast<int32_t>(std::clamp<int64_t>(ms, min_ms, max_ms));
}

void Broker::TickProduces() {
  const int64_t now = Now();
  if (!held_responses_.empty()) {
    std::vector<HeldResponse> due;
    std::erase_if(held_responses_, [&](HeldResponse& r) {
      if (r.due_ms > now) return false;
      due.push_back(std::move(r));
      return true;
    });
    for (HeldResponse& r : due) r.respond(std::move(r.frame));
  }
  // Oldest first, and stop at the first that must still wait: a producer's batches of one
  // partition are appended in the order they came.
  while (!parked_produces_.empty()) {
    ParkedProduce p = std::move(parked_produces_.front());
    parked_produces_.pop_front();
    KafkaReader r({p.body.data(), p.body.size()}, p.flexible);
    ProduceRequest req;
    if (!req.Read(r, p.header.api_version).ok()) continue;  // parsed once already
    const bool expired = p.deadline_ms <= now;
    if (!expired && OverLagLimit(req)) {
      parked_produces_.push_front(std::move(p));  // req's spans stay in p.body's buffer
      break;
    }
    AnswerProduce(p.header, req, p.respond, expired);
  }
}

}  // namespace floe::kafka
