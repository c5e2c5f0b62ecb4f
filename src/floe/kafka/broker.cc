#include "floe/kafka/broker.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "floe/base/bytes.h"
#include "floe/base/crc.h"
#include "floe/base/json.h"
#include "floe/base/macros.h"
#include "floe/io/durable_file.h"

namespace floe::kafka {
namespace {

// Produce is advertised from v0 although served from v3: librdkafka before 2.11.1 turns
// compression off unless v0 is inside the advertised range (KAFKA-18659, kafka.md §7.1).
constexpr int16_t kProduceAdvertisedMin = 0;
constexpr int kProducerWindow = 5;  // batches kept per producer (KIP-98)
constexpr int64_t kProducerIdBlock = 1000;
constexpr int32_t kLeaderEpoch = 0;
constexpr int32_t kAllTopicOperations = 0x0FF8;  // READ..ALTER_CONFIGS bits (kafka.md §2.2)
// READ (3), DESCRIBE (8) and DESCRIBE_CONFIGS (10): what a reader of the catalog may do.
constexpr int32_t kReadTopicOperations = (1 << 3) | (1 << 8) | (1 << 10);

// Topic configs floe accepts (Kafka's documented topic configs, and the table-topic keys
// of issue 6 with AutoMQ's prefix as an alias), with their defaults for DescribeConfigs.
struct ConfigDef {
  const char* name;
  const char* default_value;
  int8_t type;  // kafka.md §2.16 ConfigType: 1 boolean, 2 string, 3 int, 5 long, 7 list
};
constexpr ConfigDef kTopicConfigs[] = {
    {"cleanup.policy", "delete", 7},
    {"compression.type", "producer", 2},
    {"delete.retention.ms", "86400000", 5},
    {"file.delete.delay.ms", "60000", 5},
    {"flush.messages", "9223372036854775807", 5},
    {"flush.ms", "9223372036854775807", 5},
    {"index.interval.bytes", "4096", 3},
    {"max.compaction.lag.ms", "9223372036854775807", 5},
    {"max.message.bytes", "1048588", 3},
    {"message.timestamp.type", "CreateTime", 2},
    {"message.timestamp.before.max.ms", "9223372036854775807", 5},
    {"message.timestamp.after.max.ms", "9223372036854775807", 5},
    {"min.cleanable.dirty.ratio", "0.5", 6},
    {"min.compaction.lag.ms", "0", 5},
    {"min.insync.replicas", "1", 3},
    {"preallocate", "false", 1},
    {"retention.bytes", "-1", 5},
    {"retention.ms", "604800000", 5},
    {"segment.bytes", "1073741824", 3},
    {"segment.index.bytes", "10485760", 3},
    {"segment.jitter.ms", "0", 5},
    {"segment.ms", "604800000", 5},
    {"unclean.leader.election.enable", "false", 1},
    // Produce-time schema validation (ingest/schema_validation.h), with the Confluent
    // Server and Redpanda spellings accepted as aliases.
    {"floe.table.topic.value.validation", "none", 2},
    {"floe.table.topic.key.validation", "none", 2},
    {"floe.table.topic.value.subject.name.strategy", "TopicNameStrategy", 2},
    {"floe.table.topic.key.subject.name.strategy", "TopicNameStrategy", 2},
    {"confluent.value.schema.validation", "false", 1},
    {"confluent.key.schema.validation", "false", 1},
    {"confluent.value.subject.name.strategy",
     "io.confluent.kafka.serializers.subject.TopicNameStrategy", 2},
    {"confluent.key.subject.name.strategy",
     "io.confluent.kafka.serializers.subject.TopicNameStrategy", 2},
    {"redpanda.value.schema.id.validation", "false", 1},
    {"redpanda.key.schema.id.validation", "false", 1},
    {"redpanda.value.subject.name.strategy", "TopicNameStrategy", 2},
    {"redpanda.key.subject.name.strategy", "TopicNameStrategy", 2},
    {"floe.table.topic.enable", "false", 1},
    {"floe.table.topic.commit.interval.ms", "60000", 5},
    {"floe.table.topic.namespace", "", 2},
    {"floe.table.topic.convert.value.type", "raw", 2},
    {"floe.table.topic.convert.key.type", "string", 2},
    {"floe.table.topic.transform.value.type", "none", 2},
    {"floe.table.topic.id.columns", "", 7},
    {"floe.table.topic.upsert.enable", "false", 1},
    {"floe.table.topic.cdc.field", "", 2},
    {"floe.table.topic.partition.by", "", 7},
    {"floe.table.topic.errors.tolerance", "all", 2},
    {"floe.table.topic.delete.mode", "position", 2},
    {"floe.table.topic.format.version", "2", 3},
};

const ConfigDef* FindConfig(std::string_view name) {
  for (const ConfigDef& def : kTopicConfigs) {
    if (name == def.name) return &def;
  }
  return nullptr;
}

// The floe name of a topic config: `automq.table.topic.*` is an alias of
// `floe.table.topic.*`.
std::string CanonicalConfigName(std::string_view name) {
  constexpr std::string_view kAutoMq = "automq.table.topic.";
  if (name.starts_with(kAutoMq)) {
    return "floe.table.topic." + std::string(name.substr(kAutoMq.size()));
  }
  return std::string(name);
}

bool ParseInt64(std::string_view s, int64_t* out) {
  auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), *out);
  return ec == std::errc() && ptr == s.data() + s.size();
}

// Checks a config value against its type; the message names the problem.
std::optional<std::string> ValidateConfig(const std::string& name,
                                          const std::optional<std::string>& value) {
  const ConfigDef* def = FindConfig(name);
  if (def == nullptr) return fmt::format("unknown topic config '{}'", name);
  if (!value.has_value()) return fmt::format("null value for '{}'", name);
  int64_t n = 0;
  if ((def->type == 3 || def->type == 5) && !ParseInt64(*value, &n)) {
    return fmt::format("'{}' is not an integer for '{}'", *value, name);
  }
  if (def->type == 1 && *value != "true" && *value != "false") {
    return fmt::format("'{}' is not a boolean for '{}'", *value, name);
  }
  if (name == "floe.table.topic.commit.interval.ms" && n < 1000) {
    return std::string("floe.table.topic.commit.interval.ms must be at least 1000");
  }
  return std::nullopt;
}

bool ValidTopicName(std::string_view name) {
  if (name.empty() || name == "." || name == ".." || name.size() > 249) return false;
  for (char c : name) {
    bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
              c == '.' || c == '_' || c == '-';
    if (!ok) return false;
  }
  return true;
}

// A deleted topic's directory is renamed to this prefix first ('~' is not a topic-name
// character); `.deleted-` is the prefix older versions used.
constexpr std::string_view kDeletedPrefix = "~deleted-";
constexpr std::string_view kLegacyDeletedPrefix = ".deleted-";

Result<std::string> ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return Status::NotFound("{}", path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::string Hex(std::span<const uint8_t> bytes) {
  std::string out;
  for (uint8_t b : bytes) out += fmt::format("{:02x}", b);
  return out;
}

bool ParseHexUuid(std::string_view s, Uuid* out) {
  if (s.size() != 32) return false;
  for (size_t i = 0; i < 16; ++i) {
    unsigned v = 0;
    auto [ptr, ec] = std::from_chars(s.data() + 2 * i, s.data() + 2 * i + 2, v, 16);
    if (ec != std::errc() || ptr != s.data() + 2 * i + 2) return false;
    out->bytes[i] = static_cast<uint8_t>(v);
  }
  return true;
}

void TrackProducer(Broker::Partition& partition, const BatchHeader& h) {
  if (h.producer_id < 0) return;
  Broker::ProducerState& st = partition.producers[h.producer_id];
  if (h.producer_epoch != st.epoch) {
    st.epoch = h.producer_epoch;
    st.batches.clear();
  }
  st.batches.push_back({h.base_sequence, h.last_sequence(), h.base_offset});
  while (st.batches.size() > kProducerWindow) st.batches.pop_front();
}

}  // namespace

Broker::Broker(BrokerOptions options) : options_(std::move(options)) {
  if (!options_.now_ms) {
    options_.now_ms = [] {
      return std::chrono::duration_cast<std::chrono::milliseconds>(
                 std::chrono::system_clock::now().time_since_epoch())
          .count();
    };
  }
  uint64_t seed = options_.random_seed;
  if (seed == 0) seed = (uint64_t{std::random_device{}()} << 32) | std::random_device{}();
  random_.seed(seed);
}

struct Broker::WaitingProduce {
  RequestHeader header;
  ProduceResponse response;
  int32_t throttle_ms = 0;
  Respond respond;
  size_t remaining = 0;  // partitions whose sync is still to come
};

Broker::~Broker() {
  // Group commit: the worker finishes its rounds first; their produces are answered (the
  // listener's connections are closed by now, so the answers go nowhere, but nothing waits
  // forever and every acknowledged batch was synced).
  syncer_.reset();
  DrainSyncRounds();
  for (auto& [name, topic] : topics_) {
    for (Partition& p : topic.partitions) {
      if (!p.log) continue;
      Status flushed = p.log->Flush();
      if (!flushed.ok()) {
        AbandonWaiters(p, ErrorCodeFor(flushed), std::string(flushed.message()));
      } else {
        ReleaseWaiters(p);
      }
    }
  }
}

Result<std::unique_ptr<Broker>> Broker::Open(BrokerOptions options) {
  std::unique_ptr<Broker> broker(new Broker(std::move(options)));
  FLOE_RETURN_IF_ERROR(broker->Load());
  return broker;
}

std::string Broker::TopicDir(const std::string& name) const {
  return options_.data_dir + "/topics/" + name;
}

Status Broker::Load() {
  std::error_code ec;
  std::filesystem::create_directories(options_.data_dir + "/topics", ec);
  if (!ec) std::filesystem::create_directories(options_.data_dir + "/groups", ec);
  if (ec) return io::ErrnoStatus(ec.value(), "create directory", options_.data_dir);
  last_flush_ms_ = last_retention_ms_ = Now();
  // cluster.id.tmp or producer-ids.tmp from a crash mid-write: the old file (or none) holds.
  FLOE_RETURN_IF_ERROR(io::RemoveTemporaryFiles(options_.data_dir).status());

  const std::string cluster_path = options_.data_dir + "/cluster.id";
  if (Result<std::string> id = ReadFile(cluster_path); id.ok() && !id->empty()) {
    cluster_id_ = *id;
  } else {
    Uuid u;
    for (auto& b : u.bytes) b = static_cast<uint8_t>(random_());
    cluster_id_ = u.ToBase64();
    FLOE_RETURN_IF_ERROR(io::WriteFileAtomically(cluster_path, cluster_id_, options_.file_faults));
  }

  const std::string pid_path = options_.data_dir + "/producer-ids";
  if (Result<std::string> text = ReadFile(pid_path); text.ok()) {
    if (!ParseInt64(*text, &producer_id_limit_) || producer_id_limit_ < 0) {
      return Status::Corrupt("{} holds '{}'", pid_path, *text);
    }
  }
  next_producer_id_ = producer_id_limit_;

  std::vector<std::filesystem::path> unfinished;
  for (const auto& entry : std::filesystem::directory_iterator(options_.data_dir + "/topics", ec)) {
    const std::string name = entry.path().filename().string();
    if (name.starts_with(kDeletedPrefix) || name.starts_with(kLegacyDeletedPrefix)) {
      unfinished.push_back(entry.path());  // a deletion a crash interrupted
      continue;
    }
    if (!ValidTopicName(name) || !entry.is_directory(ec)) continue;
    FLOE_RETURN_IF_ERROR(io::RemoveTemporaryFiles(entry.path().string()).status());
    if (!std::filesystem::exists(entry.path() / "topic.json", ec)) {
      // topic.json is written last: without it the creation did not finish, and the topic
      // was never visible to a client.
      unfinished.push_back(entry.path());
      continue;
    }
    FLOE_ASSIGN_OR_RETURN(std::string text, ReadFile(entry.path().string() + "/topic.json"));
    nlohmann::json j = ParseJson(text).value_or(nlohmann::json());
    if (!j.is_object() || !j["partitions"].is_number_integer() || !j["id"].is_string()) {
      return Status::Corrupt("{}/topic.json is malformed", entry.path().string());
    }
    Topic topic;
    topic.name = name;
    if (!ParseHexUuid(j["id"].get<std::string>(), &topic.id)) {
      return Status::Corrupt("{}/topic.json: bad id", entry.path().string());
    }
    if (j.contains("configs") && j["configs"].is_object()) {
      for (const auto& [k, v] : j["configs"].items()) {
        if (v.is_string()) topic.configs[k] = v.get<std::string>();
      }
    }
    int64_t n = j["partitions"].get<int64_t>();
    if (n <= 0 || n > 100000) return Status::Corrupt("{}: {} partitions", name, n);
    topic.partitions.resize(static_cast<size_t>(n));
    LogOptions log_options;
    log_options.segment_bytes = ConfigInt(topic, "segment.bytes", options_.segment_bytes);
    log_options.fsync_every_batch = options_.fsync_every_batch;
    log_options.faults = options_.file_faults;
    for (int64_t i = 0; i < n; ++i) {
      Partition& p = topic.partitions[static_cast<size_t>(i)];
      FLOE_ASSIGN_OR_RETURN(
          p.log, PartitionLog::Open(fmt::format("{}/{}", entry.path().string(), i), log_options,
                                    [&p](const BatchHeader& h) { TrackProducer(p, h); }));
      p.untranslated_bytes = p.log->size_bytes();  // until the translator reports its offset
    }
    BuildValidator(topic);
    topics_.emplace(name, std::move(topic));
  }
  if (ec) return Status::IOError("cannot list topics: {}", ec.message());
  for (const std::filesystem::path& dir : unfinished) {
    std::filesystem::remove_all(dir, ec);
    if (ec) return io::ErrnoStatus(ec.value(), "delete unfinished topic directory", dir.string());
    fmt::print(stderr, "kafka: deleted {}, a topic creation or deletion a crash interrupted\n",
               dir.string());
  }
  return LoadOffsets();
}

Result<int64_t> Broker::NextProducerId() {
  if (next_producer_id_ >= producer_id_limit_) {
    int64_t limit = next_producer_id_ + kProducerIdBlock;
    FLOE_RETURN_IF_ERROR(io::WriteFileAtomically(options_.data_dir + "/producer-ids",
                                                 std::to_string(limit), options_.file_faults));
    producer_id_limit_ = limit;
  }
  return next_producer_id_++;
}

Broker::Topic* Broker::FindTopic(const std::string& name) {
  auto it = topics_.find(name);
  return it == topics_.end() ? nullptr : &it->second;
}

std::string Broker::ConfigValue(const Topic& topic, const std::string& name) const {
  auto it = topic.configs.find(name);
  if (it != topic.configs.end()) return it->second;
  if (name == "retention.ms") return std::to_string(options_.retention_ms);
  if (name == "retention.bytes") return std::to_string(options_.retention_bytes);
  if (name == "max.message.bytes") return std::to_string(options_.max_message_bytes);
  if (name == "segment.bytes") return std::to_string(options_.segment_bytes);
  const ConfigDef* def = FindConfig(name);
  return def ? def->default_value : "";
}

int64_t Broker::ConfigInt(const Topic& topic, const std::string& name, int64_t fallback) const {
  int64_t v = 0;
  return ParseInt64(ConfigValue(topic, name), &v) ? v : fallback;
}

Status Broker::WriteTopicFile(const Topic& topic) const {
  nlohmann::json j;
  j["id"] = Hex(topic.id.bytes);
  j["partitions"] = topic.partitions.size();
  j["configs"] = nlohmann::json::object();
  for (const auto& [k, v] : topic.configs) j["configs"][k] = v;
  return io::WriteFileAtomically(TopicDir(topic.name) + "/topic.json", j.dump(2),
                                 options_.file_faults);
}

Result<Broker::Topic*> Broker::CreateTopic(const std::string& name, int32_t partitions,
                                           std::map<std::string, std::string> configs) {
  Topic topic;
  topic.name = name;
  do {
    for (auto& b : topic.id.bytes) b = static_cast<uint8_t>(random_());
  } while (topic.id.IsZero());
  topic.configs = std::move(configs);
  topic.partitions.resize(static_cast<size_t>(partitions));
  const std::string dir = TopicDir(name);
  Status created = [&]() -> Status {
    std::error_code ec;
    std::filesystem::create_directories(dir, ec);
    if (ec) return io::ErrnoStatus(ec.value(), "create directory", dir);
    LogOptions log_options;
    log_options.segment_bytes = ConfigInt(topic, "segment.bytes", options_.segment_bytes);
    log_options.fsync_every_batch = options_.fsync_every_batch;
    log_options.faults = options_.file_faults;
    for (int32_t i = 0; i < partitions; ++i) {
      FLOE_ASSIGN_OR_RETURN(topic.partitions[static_cast<size_t>(i)].log,
                            PartitionLog::Open(fmt::format("{}/{}", dir, i), log_options));
    }
    // topic.json last: a directory without it is an unfinished creation, deleted on load.
    // Its rename's directory fsync makes the partition directories durable; the topics
    // directory's makes the topic's own.
    FLOE_RETURN_IF_ERROR(WriteTopicFile(topic));
    return io::SyncDirectory(options_.data_dir + "/topics", options_.file_faults);
  }();
  if (!created.ok()) {
    // Give the space back now (a full disk is the usual cause); a retry starts afresh.
    topic.partitions.clear();
    std::error_code ec;
    std::filesystem::remove_all(dir, ec);
    return created;
  }
  BuildValidator(topic);
  auto [it, inserted] = topics_.emplace(name, std::move(topic));
  if (syncer_) {
    for (Partition& p : it->second.partitions) EnableGroupCommit(p);
  }
  return &it->second;
}

// ---------------------------------------------------------------------------------------
// Group commit

void Broker::StartGroupCommit(std::function<void(std::function<void()>)> post) {
  if (!options_.fsync_every_batch || syncer_) return;
  post_ = std::move(post);
  for (auto& [name, topic] : topics_) {
    for (Partition& p : topic.partitions) EnableGroupCommit(p);
  }
  syncer_ = std::make_unique<LogSyncer>([this](std::vector<LogSyncer::Outcome> round) {
    bool first = false;
    {
      std::lock_guard lock(completed_mu_);
      first = completed_.empty();
      completed_.push_back(std::move(round));
    }
    // One drain takes every round delivered before it runs.
    if (first) post_([this] { DrainSyncRounds(); });
  });
}

void Broker::EnableGroupCommit(Partition& partition) {
  partition.log->EnableGroupCommit();
  partition.sync_key = next_sync_key_++;
  partitions_by_key_[partition.sync_key] = &partition;
}

void Broker::SubmitSync(Partition& partition) {
  syncer_->Submit(partition.sync_key, partition.log->PrepareSync());
}

void Broker::DrainSyncRounds() {
  std::vector<std::vector<LogSyncer::Outcome>> rounds;
  {
    std::lock_guard lock(completed_mu_);
    rounds.swap(completed_);
  }
  bool visible = false;
  for (std::vector<LogSyncer::Outcome>& round : rounds) {
    ++sync_stats_.rounds;
    for (LogSyncer::Outcome& outcome : round) {
      ++sync_stats_.syncs;
      auto it = partitions_by_key_.find(outcome.key);
      if (it == partitions_by_key_.end()) continue;  // its topic was deleted
      Partition& p = *it->second;
      Result<int64_t> synced = p.log->CompleteSync(outcome.point, outcome.status);
      if (!synced.ok()) {
        FailUnsynced(p, synced.status());
        continue;
      }
      if (*synced == 0) continue;
      sync_stats_.synced_batches += *synced;
      visible = true;
      ReleaseWaiters(p);
    }
  }
  if (visible) WakeFetches();
}

void Broker::ReleaseWaiters(Partition& partition) {
  const int64_t hwm = partition.log->high_watermark();
  while (!partition.waiters.empty() && partition.waiters.begin()->first < hwm) {
    std::shared_ptr<WaitingProduce> waiting = std::move(partition.waiters.begin()->second.produce);
    partition.waiters.erase(partition.waiters.begin());
    if (--waiting->remaining == 0) FinishWaiting(*waiting);
  }
}

void Broker::AbandonWaiters(Partition& partition, ErrorCode code, const std::string& message) {
  std::multimap<int64_t, AckWait> waiters;
  waiters.swap(partition.waiters);
  for (auto& [base, wait] : waiters) {
    ProduceResponse::PartitionProduceResponse& pr =
        wait.produce->response.responses.at(wait.topic).partition_responses.at(wait.partition);
    pr.error_code = Code(code);
    pr.base_offset = -1;
    pr.error_message = message;
    if (--wait.produce->remaining == 0) FinishWaiting(*wait.produce);
  }
}

void Broker::FailUnsynced(Partition& partition, const Status& status) {
  ++sync_stats_.failures;
  // Whether the unsynced batches reached the disk is unknown: they were not acknowledged,
  // so they go, as a failed inline fdatasync cuts its batch (io::AppendFile::Append).
  if (Status cut = partition.log->DiscardUnsynced(); !cut.ok()) {
    fmt::print(stderr, "kafka: {} (retried before the next append)\n", cut.ToString());
  }
  fmt::print(stderr, "kafka: {}: unsynced batches of {} discarded\n", status.ToString(),
             partition.log->dir());
  AbandonWaiters(partition, ErrorCodeFor(status), std::string(status.message()));
  // The discarded batches' sequence numbers are free again: a retry must append, not be
  // taken for a duplicate of a batch that is gone.
  partition.producers.clear();
  Status scanned = partition.log->ForEachBatch(
      [&partition](const BatchHeader& h) { TrackProducer(partition, h); });
  if (!scanned.ok()) {
    fmt::print(stderr, "kafka: rebuilding producer state of {}: {}\n", partition.log->dir(),
               scanned.ToString());
  }
  if (Result<int64_t> bytes = partition.log->BytesFrom(partition.committed_offset); bytes.ok()) {
    partition.untranslated_bytes = *bytes;
  }
}

void Broker::FinishWaiting(WaitingProduce& waiting) {
  if (waiting.throttle_ms > 0) {
    waiting.response.throttle_time_ms = waiting.throttle_ms;
    held_responses_.push_back({Now() + waiting.throttle_ms,
                               EncodeResponse(waiting.header, waiting.response),
                               std::move(waiting.respond)});
  } else {
    waiting.respond(EncodeResponse(waiting.header, waiting.response));
  }
}

int64_t Broker::ProtectedOffset(const std::string& topic, int32_t partition) const {
  auto it = topics_.find(topic);
  if (it == topics_.end() || partition < 0 ||
      static_cast<size_t>(partition) >= it->second.partitions.size()) {
    return 0;
  }
  const Partition& p = it->second.partitions[static_cast<size_t>(partition)];
  if (ConfigValue(it->second, "floe.table.topic.enable") == "true") return p.committed_offset;
  return p.log->log_end_offset();
}

std::vector<Broker::TopicView> Broker::ListTopics() const {
  std::vector<TopicView> out;
  out.reserve(topics_.size());
  for (const auto& [name, topic] : topics_) {
    TopicView& v = out.emplace_back();
    v.name = name;
    v.configs = topic.configs;
    for (const Partition& p : topic.partitions) {
      v.partitions.push_back({p.log->log_start_offset(), p.log->high_watermark(),
                              p.records_appended, p.last_append_ms, p.untranslated_bytes,
                              p.committed_offset});
    }
    v.rejected_records = topic.validation.rejected_records;
    v.recent_rejections.assign(topic.validation.recent.begin(), topic.validation.recent.end());
  }
  return out;
}

Status Broker::ReadLog(const std::string& topic, int32_t partition, int64_t offset,
                       size_t max_bytes, Buffer* out) const {
  auto it = topics_.find(topic);
  if (it == topics_.end() || partition < 0 ||
      static_cast<size_t>(partition) >= it->second.partitions.size()) {
    return Status::NotFound("no partition {} of topic '{}'", partition, topic);
  }
  return it->second.partitions[static_cast<size_t>(partition)].log->Read(offset, max_bytes, out);
}

void Broker::SetCommittedOffset(const std::string& topic, int32_t partition, int64_t offset) {
  auto it = topics_.find(topic);
  if (it == topics_.end() || partition < 0 ||
      static_cast<size_t>(partition) >= it->second.partitions.size()) {
    return;
  }
  Partition& p = it->second.partitions[static_cast<size_t>(partition)];
  p.committed_offset = std::max(p.committed_offset, offset);
  // Unreadable headers only make the figure stale; the next commit computes it again.
  Result<int64_t> bytes = p.log->BytesFrom(p.committed_offset);
  if (bytes.ok()) p.untranslated_bytes = *bytes;
}

// ---------------------------------------------------------------------------------------
// Dispatch

Status Broker::Handle(std::span<const uint8_t> frame, const std::string& client_host,
                      Respond respond) {
  Session session;
  session.client_host = client_host;
  return Handle(frame, session, std::move(respond));
}

Status Broker::Handle(std::span<const uint8_t> frame, Session& session, Respond respond) {
  const std::string& client_host = session.client_host;
  KafkaReader r(frame, false);
  RequestHeader h;
  FLOE_ASSIGN_OR_RETURN(h.api_key, r.Int16());
  FLOE_ASSIGN_OR_RETURN(h.api_version, r.Int16());
  FLOE_ASSIGN_OR_RETURN(h.correlation_id, r.Int32());
  const ApiInfo* api = FindApi(h.api_key);
  if (api == nullptr) return Status::Unimplemented("API key {}", h.api_key);
  if (h.api_key == kApiVersionsKey && h.api_version > api->max_version) {
    // A newer client: answer in v0 with our range so that it retries with a version we
    // speak (kafka.md §2.1).
    ApiVersionsResponse resp;
    resp.error_code = Code(ErrorCode::kUnsupportedVersion);
    resp.api_keys.push_back({kApiVersionsKey, 0, api->max_version});
    RequestHeader v0 = h;
    v0.api_version = 0;
    respond(EncodeResponse(v0, resp));
    return Status::OK();
  }
  if (h.api_version < api->min_version || h.api_version > api->max_version) {
    return Status::Unimplemented("{} v{} (serving v{}-v{})", api->name, h.api_version,
                                 api->min_version, api->max_version);
  }
  FLOE_ASSIGN_OR_RETURN(h.client_id, r.ClassicNullableString());
  const bool flexible = h.api_version >= api->first_flexible_version;
  if (flexible) FLOE_RETURN_IF_ERROR(r.SkipTags());
  KafkaReader body({r.position(), r.remaining()}, flexible);
  switch (h.api_key) {
    case ApiVersionsRequest::kApiKey: return HandleApiVersions(h, body, respond);
    case SaslHandshakeRequest::kApiKey: return HandleSaslHandshake(h, body, session, respond);
    case SaslAuthenticateRequest::kApiKey: return HandleSaslAuthenticate(h, body, session, respond);
    default: break;
  }
  request_access_ = SessionAccess(session);
  if (options_.authenticator != nullptr && session.principal == nullptr) {
    // Kafka's SaslServerAuthenticator: any other request before authentication is a
    // protocol violation that closes the connection, unanswered.
    return Status::Unauthenticated("{} before SASL authentication", api->name);
  }
  const bool writes =
      h.api_key == ProduceRequest::kApiKey || h.api_key == InitProducerIdRequest::kApiKey ||
      h.api_key == CreateTopicsRequest::kApiKey || h.api_key == DeleteTopicsRequest::kApiKey ||
      h.api_key == IncrementalAlterConfigsRequest::kApiKey;
  if (request_access_ < (writes ? auth::Access::kWrite : auth::Access::kRead)) {
    return Refuse(h, body, respond);
  }
  switch (h.api_key) {
    case MetadataRequest::kApiKey: return HandleMetadata(h, body, respond);
    case ProduceRequest::kApiKey: return HandleProduce(h, body, respond);
    case FetchRequest::kApiKey: return HandleFetch(h, body, respond);
    case ListOffsetsRequest::kApiKey: return HandleListOffsets(h, body, respond);
    case InitProducerIdRequest::kApiKey: return HandleInitProducerId(h, body, respond);
    case CreateTopicsRequest::kApiKey: return HandleCreateTopics(h, body, respond);
    case DeleteTopicsRequest::kApiKey: return HandleDeleteTopics(h, body, respond);
    case DescribeConfigsRequest::kApiKey: return HandleDescribeConfigs(h, body, respond);
    case IncrementalAlterConfigsRequest::kApiKey:
      return HandleIncrementalAlterConfigs(h, body, respond);
    case FindCoordinatorRequest::kApiKey: return HandleFindCoordinator(h, body, respond);
    case JoinGroupRequest::kApiKey: return HandleJoinGroup(h, client_host, body, respond);
    case SyncGroupRequest::kApiKey: return HandleSyncGroup(h, body, respond);
    case HeartbeatRequest::kApiKey: return HandleHeartbeat(h, body, respond);
    case LeaveGroupRequest::kApiKey: return HandleLeaveGroup(h, body, respond);
    case OffsetCommitRequest::kApiKey: return HandleOffsetCommit(h, body, respond);
    case OffsetFetchRequest::kApiKey: return HandleOffsetFetch(h, body, respond);
    case DescribeGroupsRequest::kApiKey: return HandleDescribeGroups(h, body, respond);
    case ListGroupsRequest::kApiKey: return HandleListGroups(h, body, respond);
    default: return Status::Unimplemented("API key {}", h.api_key);
  }
}

Status Broker::HandleApiVersions(const RequestHeader& h, KafkaReader& r, Respond& respond) {
  ApiVersionsRequest req;
  FLOE_RETURN_IF_ERROR(req.Read(r, h.api_version));
  ApiVersionsResponse resp;
  for (const ApiInfo& api : kApis) {
    int16_t min = api.key == ProduceRequest::kApiKey ? kProduceAdvertisedMin : api.min_version;
    resp.api_keys.push_back({api.key, min, api.max_version});
  }
  respond(EncodeResponse(h, resp));
  return Status::OK();
}

Status Broker::HandleMetadata(const RequestHeader& h, KafkaReader& r, Respond& respond) {
  MetadataRequest req;
  FLOE_RETURN_IF_ERROR(req.Read(r, h.api_version));
  MetadataResponse resp;
  resp.brokers.push_back(
      {options_.node_id, options_.advertised_host, options_.advertised_port, std::nullopt});
  resp.cluster_id = cluster_id_;
  resp.controller_id = options_.node_id;
  auto describe = [&](const Topic& topic) {
    MetadataResponse::MetadataResponseTopic& t = resp.topics.emplace_back();
    t.name = topic.name;
    t.topic_id = topic.id;
    t.topic_authorized_operations = !req.include_topic_authorized_operations ? INT32_MIN
                                    : request_access_ >= auth::Access::kWrite
                                        ? kAllTopicOperations
                                        : kReadTopicOperations;
    for (size_t i = 0; i < topic.partitions.size(); ++i) {
      MetadataResponse::MetadataResponsePartition& p = t.partitions.emplace_back();
      p.partition_index = static_cast<int32_t>(i);
      p.leader_id = options_.node_id;
      p.leader_epoch = kLeaderEpoch;
      p.replica_nodes = {options_.node_id};
      p.isr_nodes = {options_.node_id};
    }
  };
  // v0: an empty list means every topic; v1+: null means every topic.
  const bool all = !req.topics.has_value() || (h.api_version == 0 && req.topics->empty());
  if (all) {
    for (const auto& [name, topic] : topics_) describe(topic);
  } else {
    // Creating a topic is a write (a reader gets UNKNOWN_TOPIC_OR_PARTITION, as from Kafka
    // without the Create ACL).
    const bool may_create = options_.auto_create_topics &&
                            (h.api_version < 4 || req.allow_auto_topic_creation) &&
                            request_access_ >= auth::Access::kWrite;
    for (const auto& want : *req.topics) {
      Topic* topic = nullptr;
      if (!want.name.has_value()) {
        for (auto& [name, t] : topics_) {
          if (t.id == want.topic_id) topic = &t;
        }
        if (topic == nullptr) {
          MetadataResponse::MetadataResponseTopic& t = resp.topics.emplace_back();
          t.error_code = Code(ErrorCode::kUnknownTopicId);
          t.topic_id = want.topic_id;
          continue;
        }
      } else {
        topic = FindTopic(*want.name);
      }
      if (topic == nullptr) {
        MetadataResponse::MetadataResponseTopic t;
        t.name = want.name;
        if (!ValidTopicName(*want.name)) {
          t.error_code = Code(ErrorCode::kInvalidTopicException);
        } else if (may_create) {
          Result<Topic*> created = CreateTopic(*want.name, options_.default_partitions, {});
          if (created.ok()) {
            describe(**created);
            continue;
          }
          t.error_code = Code(ErrorCodeFor(created.status()));
        } else {
          t.error_code = Code(ErrorCode::kUnknownTopicOrPartition);
        }
        resp.topics.push_back(std::move(t));
        continue;
      }
      describe(*topic);
    }
  }
  respond(EncodeResponse(h, resp));
  return Status::OK();
}

// ---------------------------------------------------------------------------------------
// Produce

void Broker::BuildValidator(Topic& topic) {
  topic.validator = options_.make_record_validator
                        ? options_.make_record_validator(topic.name, topic.configs)
                        : nullptr;
}

void Broker::NoteRefusal(Topic& topic, const std::vector<RecordError>& errors) {
  ValidationStats& v = topic.validation;
  ++v.rejected_batches;
  for (const RecordError& e : errors) {
    ++v.rejected_records[e.reason];
    v.recent.push_back(e.message);
    if (v.recent.size() > kRecentRejections) v.recent.pop_front();
  }
  // One line per topic every 10 s at most: a producer sending bad records in a loop must
  // not flood the log; the line says how many refusals it stands for.
  constexpr int64_t kLogIntervalMs = 10'000;
  const int64_t now = Now();
  v.unlogged += static_cast<int64_t>(errors.size());
  if (v.last_log_ms >= 0 && now - v.last_log_ms < kLogIntervalMs) return;
  fmt::print(stderr, "kafka: topic {}: refused {} record(s) at produce time, last: {}\n",
             topic.name, v.unlogged, errors.empty() ? "" : errors.front().message);
  v.last_log_ms = now;
  v.unlogged = 0;
}

ErrorCode Broker::AppendBatch(Topic& topic, Partition& partition, std::span<const uint8_t> records,
                              int16_t version, int64_t* base_offset, std::string* message,
                              std::vector<RecordError>* record_errors) {
  if (static_cast<int64_t>(records.size()) >
      ConfigInt(topic, "max.message.bytes", options_.max_message_bytes)) {
    *message = fmt::format("batch of {} bytes exceeds max.message.bytes", records.size());
    return ErrorCode::kMessageTooLarge;
  }
  Result<BatchHeader> parsed = ParseBatchHeader(records);
  if (parsed.ok() && parsed->total_bytes() < records.size()) {
    *message = "more than one record batch";
    return ErrorCode::kInvalidRecord;
  }
  Result<BatchHeader> checked = ValidateBatch(records);
  if (!checked.ok()) {
    *message = std::string(checked.error().message());
    return ErrorCodeFor(checked.error());
  }
  const BatchHeader& h = *checked;
  if (h.codec() == BatchCodec::kZstd && version < 7) {
    *message = "zstd needs Produce v7";
    return ErrorCode::kUnsupportedCompressionType;
  }
  // The records inside, before anything is stored: a batch whose header and CRC are right
  // but whose records do not parse would fail every consumer and the table translator.
  if (Status records_ok =
          ValidateRecords(records, h, options_.max_uncompressed_batch_bytes, &validate_scratch_,
                          topic.validator ? &record_views_ : nullptr);
      !records_ok.ok()) {
    *message = std::string(records_ok.message());
    return ErrorCodeFor(records_ok);
  }
  if (h.control() || h.transactional()) {
    *message = "transactional and control batches are not supported";
    return ErrorCode::kInvalidRecord;
  }
  // The topic's own record checks come before the producer's sequence state, as Kafka's
  // LogValidator runs before it: a refused batch changes nothing, like any other refusal.
  if (topic.validator) {
    topic.validator->Validate(record_views_, record_errors);
    if (!record_errors->empty()) {
      NoteRefusal(topic, *record_errors);
      *message =
          record_errors->size() == 1
              ? fmt::format("record {} refused: {}", record_errors->front().batch_index,
                            record_errors->front().message)
              : fmt::format("{} of the batch's {} records refused; record {}: {}",
                            record_errors->size(), h.records_count,
                            record_errors->front().batch_index, record_errors->front().message);
      return ErrorCode::kInvalidRecord;
    }
  }
  if (h.producer_id >= 0) {
    if (h.base_sequence < 0) {
      *message = "idempotent batch without a base sequence";
      return ErrorCode::kInvalidRecord;
    }
    auto it = partition.producers.find(h.producer_id);
    if (it != partition.producers.end()) {
      const ProducerState& st = it->second;
      if (h.producer_epoch == st.epoch) {
        for (const ProducerBatch& b : st.batches) {
          if (b.first_seq == h.base_sequence && b.last_seq == h.last_sequence()) {
            *base_offset = b.base_offset;  // a retry of a batch already in the log
            return ErrorCode::kNone;
          }
        }
      }
      if (h.producer_epoch < st.epoch) return ErrorCode::kInvalidProducerEpoch;
      if (h.producer_epoch > st.epoch) {
        if (h.base_sequence != 0) return ErrorCode::kOutOfOrderSequenceNumber;
      } else if (!st.batches.empty()) {
        int32_t last = st.batches.back().last_seq;
        int32_t expected = last == INT32_MAX ? 0 : last + 1;
        if (h.base_sequence != expected) {
          *message = fmt::format("sequence {} where {} was expected", h.base_sequence, expected);
          return ErrorCode::kOutOfOrderSequenceNumber;
        }
      }
    }
  }
  Buffer copy;
  copy.Append(records);
  Result<int64_t> offset = partition.log->Append({copy.data(), copy.size()}, kLeaderEpoch);
  if (!offset.ok()) {
    *message = std::string(offset.error().message());
    return ErrorCodeFor(offset.error());
  }
  *base_offset = *offset;
  partition.untranslated_bytes += static_cast<int64_t>(records.size());
  partition.records_appended += h.records_count;
  partition.last_append_ms = Now();
  BatchHeader stored = h;
  stored.base_offset = *offset;
  TrackProducer(partition, stored);
  return ErrorCode::kNone;
}

Status Broker::HandleProduce(const RequestHeader& h, KafkaReader& r, Respond& respond) {
  const std::span<const uint8_t> body(r.position(), r.remaining());
  const bool flexible = r.flexible();
  ProduceRequest req;
  FLOE_RETURN_IF_ERROR(req.Read(r, h.api_version));
  // Behind a parked produce, every produce waits its turn: appending it first could reorder
  // an idempotent producer's batches of one partition.
  if (!parked_produces_.empty() || OverLagLimit(req)) {
    const int64_t wait_ms = std::clamp<int64_t>(req.timeout_ms / 2, 0, 15'000);
    parked_produces_.push_back({h, std::vector<uint8_t>(body.begin(), body.end()), flexible,
                                Now() + wait_ms, std::move(respond)});
    return Status::OK();
  }
  AnswerProduce(h, req, respond, false);
  return Status::OK();
}

void Broker::AnswerProduce(const RequestHeader& h, const ProduceRequest& req, Respond& respond,
                           bool refuse_lagging) {
  ProduceResponse resp;
  int32_t throttle_ms = 0;
  const bool acks_ok = req.acks == 0 || req.acks == 1 || req.acks == -1;
  bool visible = false;  // a batch readers see now (no group commit, or a roll synced it)
  // Group commit: the batches still to be synced, with where their answers go.
  struct Unsynced {
    Partition* partition;
    int64_t base_offset;
    uint64_t discards;
    size_t topic;
    size_t index;
  };
  std::vector<Unsynced> unsynced;
  for (const auto& td : req.topic_data) {
    ProduceResponse::TopicProduceResponse& tr = resp.responses.emplace_back();
    tr.name = td.name;
    Topic* topic = FindTopic(td.name);
    for (const auto& pd : td.partition_data) {
      ProduceResponse::PartitionProduceResponse& pr = tr.partition_responses.emplace_back();
      pr.index = pd.index;
      pr.base_offset = -1;
      ErrorCode error = ErrorCode::kNone;
      std::string message;
      if (!acks_ok) {
        error = ErrorCode::kInvalidRequiredAcks;
      } else if (req.transactional_id.has_value()) {
        error = ErrorCode::kTransactionalIdAuthorizationFailed;
      } else if (topic == nullptr || pd.index < 0 ||
                 static_cast<size_t>(pd.index) >= topic->partitions.size()) {
        error = ErrorCode::kUnknownTopicOrPartition;
      } else if (!pd.records.has_value() || pd.records->empty()) {
        error = ErrorCode::kInvalidRecord;
      } else if (refuse_lagging && OverLagLimit(*topic, pd.index)) {
        error = ErrorCode::kRequestTimedOut;
        message = "the table topic's translation lags too far behind; retry later";
      } else {
        Partition& partition = topic->partitions[static_cast<size_t>(pd.index)];
        const int64_t hwm_before = partition.log->high_watermark();
        int64_t base = -1;
        std::vector<RecordError> record_errors;
        error = AppendBatch(*topic, partition, *pd.records, h.api_version, &base, &message,
                            &record_errors);
        for (RecordError& e : record_errors) {
          auto& out = pr.record_errors.emplace_back();
          out.batch_index = e.batch_index;
          out.batch_index_error_message = std::move(e.message);
        }
        if (error == ErrorCode::kNone) {
          pr.base_offset = base;
          pr.log_start_offset = partition.log->log_start_offset();
          throttle_ms = std::max(throttle_ms, ThrottleMs(*topic, pd.index));
          if (partition.log->high_watermark() <= base) {
            // Group commit: appended now, or a retry of a batch still waiting for its sync.
            SubmitSync(partition);
            unsynced.push_back({&partition, base, partition.log->discards(),
                                resp.responses.size() - 1, tr.partition_responses.size() - 1});
          }
        } else if (error == ErrorCode::kKafkaStorageError && partition.log->sync_failed()) {
          // A roll's sync of the segment failed: its unsynced batches are not durable.
          FailUnsynced(partition, Status::IOError("{}", message));
        }
        if (partition.log->high_watermark() > hwm_before) {
          // Appended without group commit, or a roll synced the sealed segment's batches.
          visible = true;
          ReleaseWaiters(partition);
        }
      }
      pr.error_code = Code(error);
      if (!message.empty()) pr.error_message = message;
    }
  }
  if (visible) WakeFetches();
  if (req.acks == 0) {
    respond(std::nullopt);
  } else if (!unsynced.empty()) {
    // Answered once every batch is synced (ReleaseWaiters) or failed (AbandonWaiters).
    auto waiting = std::make_shared<WaitingProduce>();
    waiting->header = h;
    waiting->response = std::move(resp);
    waiting->throttle_ms = throttle_ms;
    waiting->respond = std::move(respond);
    waiting->remaining = 1;  // held until every partition is registered
    for (const Unsynced& u : unsynced) {
      if (u.partition->log->discards() != u.discards) {
        // The same partition named twice, and a failed roll discarded the first batch.
        auto& pr = waiting->response.responses[u.topic].partition_responses[u.index];
        pr.error_code = Code(ErrorCode::kKafkaStorageError);
        pr.base_offset = -1;
        continue;
      }
      ++waiting->remaining;
      u.partition->waiters.emplace(u.base_offset, AckWait{waiting, u.topic, u.index});
    }
    if (--waiting->remaining == 0) FinishWaiting(*waiting);
  } else if (throttle_ms > 0) {
    resp.throttle_time_ms = throttle_ms;
    held_responses_.push_back({Now() + throttle_ms, EncodeResponse(h, resp), std::move(respond)});
  } else {
    respond(EncodeResponse(h, resp));
  }
}

Status Broker::HandleInitProducerId(const RequestHeader& h, KafkaReader& r, Respond& respond) {
  InitProducerIdRequest req;
  FLOE_RETURN_IF_ERROR(req.Read(r, h.api_version));
  InitProducerIdResponse resp;
  if (req.transactional_id.has_value()) {
    // Transactions are not implemented: fail fast rather than let the client retry.
    resp.error_code =
        Code(req.transactional_id->empty() ? ErrorCode::kInvalidRequest
                                           : ErrorCode::kTransactionalIdAuthorizationFailed);
  } else {
    Result<int64_t> id = NextProducerId();
    if (id.ok()) {
      resp.producer_id = *id;
      resp.producer_epoch = 0;
    } else {
      resp.error_code = Code(ErrorCodeFor(id.status()));
    }
  }
  respond(EncodeResponse(h, resp));
  return Status::OK();
}

// ---------------------------------------------------------------------------------------
// Fetch and ListOffsets

size_t Broker::FillFetch(const FetchRequest& req, FetchResponse* resp, Buffer* storage) {
  // Pass 1 gathers the bytes into `storage`, pass 2 points the responses into it (the buffer
  // may move while it grows).
  struct Slice {
    size_t begin;
    size_t end;
  };
  std::vector<Slice> slices;
  size_t total = 0;
  const size_t max_bytes = static_cast<size_t>(std::max(req.max_bytes, 0));
  resp->responses.clear();
  for (const auto& ft : req.topics) {
    FetchResponse::FetchableTopicResponse& tr = resp->responses.emplace_back();
    tr.topic = ft.topic;
    Topic* topic = FindTopic(ft.topic);
    for (const auto& fp : ft.partitions) {
      FetchResponse::PartitionData& pd = tr.partitions.emplace_back();
      pd.partition_index = fp.partition;
      size_t begin = storage->size();
      slices.push_back({begin, begin});
      if (topic == nullptr || fp.partition < 0 ||
          static_cast<size_t>(fp.partition) >= topic->partitions.size()) {
        pd.error_code = Code(ErrorCode::kUnknownTopicOrPartition);
        pd.high_watermark = pd.last_stable_offset = pd.log_start_offset = -1;
        continue;
      }
      const PartitionLog& log = *topic->partitions[static_cast<size_t>(fp.partition)].log;
      pd.high_watermark = log.high_watermark();
      pd.last_stable_offset = log.high_watermark();
      pd.log_start_offset = log.log_start_offset();
      if (req.isolation_level == 1) pd.aborted_transactions.emplace();
      if (fp.current_leader_epoch > kLeaderEpoch) {
        pd.error_code = Code(ErrorCode::kUnknownLeaderEpoch);
        continue;
      }
      if (fp.fetch_offset < log.log_start_offset() || fp.fetch_offset > log.high_watermark()) {
        pd.error_code = Code(ErrorCode::kOffsetOutOfRange);
        continue;
      }
      // Soft limits (KIP-74): the first partition with data gets at least one whole batch.
      size_t limit = std::min<size_t>(static_cast<size_t>(std::max(fp.partition_max_bytes, 0)),
                                      total < max_bytes ? max_bytes - total : 0);
      if (total > 0 && limit == 0) continue;
      Status s = log.Read(fp.fetch_offset, std::max<size_t>(limit, 1), storage);
      if (!s.ok()) {
        // A failed read of the broker's own log is a storage failure whatever its code: a
        // Corrupt status here is about stored bytes, not the client's.
        storage->Resize(begin);
        pd.error_code = Code(ErrorCode::kKafkaStorageError);
        continue;
      }
      slices.back().end = storage->size();
      total += storage->size() - begin;
    }
  }
  size_t i = 0;
  for (auto& tr : resp->responses) {
    for (auto& pd : tr.partitions) {
      const Slice& s = slices[i++];
      pd.records = std::span<const uint8_t>(storage->data() + s.begin, s.end - s.begin);
    }
  }
  return total;
}

void Broker::CompleteFetch(PendingFetch& fetch) {
  FetchResponse resp;
  Buffer storage;
  FillFetch(fetch.request, &resp, &storage);
  fetch.respond(EncodeResponse(fetch.header, resp));
}

void Broker::WakeFetches() {
  for (size_t i = 0; i < pending_fetches_.size();) {
    PendingFetch& f = pending_fetches_[i];
    FetchResponse resp;
    Buffer storage;
    size_t bytes = FillFetch(f.request, &resp, &storage);
    bool error = false;
    for (const auto& tr : resp.responses) {
      for (const auto& pd : tr.partitions) error |= pd.error_code != 0;
    }
    if (error || bytes >= static_cast<size_t>(std::max(f.request.min_bytes, 1))) {
      f.respond(EncodeResponse(f.header, resp));
      pending_fetches_.erase(pending_fetches_.begin() + static_cast<ptrdiff_t>(i));
    } else {
      ++i;
    }
  }
}

Status Broker::HandleFetch(const RequestHeader& h, KafkaReader& r, Respond& respond) {
  FetchRequest req;
  FLOE_RETURN_IF_ERROR(req.Read(r, h.api_version));
  FetchResponse resp;
  if (req.session_id != 0) {
    // floe never hands out fetch sessions (kafka.md §2.4).
    resp.error_code = Code(ErrorCode::kFetchSessionIdNotFound);
    respond(EncodeResponse(h, resp));
    return Status::OK();
  }
  Buffer storage;
  size_t bytes = FillFetch(req, &resp, &storage);
  bool error = false;
  for (const auto& tr : resp.responses) {
    for (const auto& pd : tr.partitions) error |= pd.error_code != 0;
  }
  if (error || req.max_wait_ms <= 0 || bytes >= static_cast<size_t>(std::max(req.min_bytes, 1))) {
    respond(EncodeResponse(h, resp));
    return Status::OK();
  }
  const int64_t deadline_ms = Now() + req.max_wait_ms;
  pending_fetches_.push_back({h, std::move(req), deadline_ms, std::move(respond)});
  return Status::OK();
}

Status Broker::HandleListOffsets(const RequestHeader& h, KafkaReader& r, Respond& respond) {
  ListOffsetsRequest req;
  FLOE_RETURN_IF_ERROR(req.Read(r, h.api_version));
  ListOffsetsResponse resp;
  for (const auto& t : req.topics) {
    ListOffsetsResponse::ListOffsetsTopicResponse& tr = resp.topics.emplace_back();
    tr.name = t.name;
    Topic* topic = FindTopic(t.name);
    for (const auto& p : t.partitions) {
      ListOffsetsResponse::ListOffsetsPartitionResponse& pr = tr.partitions.emplace_back();
      pr.partition_index = p.partition_index;
      if (topic == nullptr || p.partition_index < 0 ||
          static_cast<size_t>(p.partition_index) >= topic->partitions.size()) {
        pr.error_code = Code(ErrorCode::kUnknownTopicOrPartition);
        continue;
      }
      if (p.current_leader_epoch > kLeaderEpoch) {
        pr.error_code = Code(ErrorCode::kUnknownLeaderEpoch);
        continue;
      }
      const PartitionLog& log = *topic->partitions[static_cast<size_t>(p.partition_index)].log;
      pr.leader_epoch = kLeaderEpoch;
      if (p.timestamp == -1) {
        pr.offset = log.high_watermark();
      } else if (p.timestamp == -2 || p.timestamp == -4) {
        pr.offset = log.log_start_offset();
      } else if (p.timestamp >= 0) {
        Result<std::optional<BatchHeader>> found = log.FindByTimestamp(p.timestamp);
        if (!found.ok()) {
          // As in Fetch: the broker's own log failed to read.
          pr.error_code = Code(ErrorCode::kKafkaStorageError);
        } else if (found->has_value()) {
          // The batch's first record at or after the timestamp.
          Buffer batch;
          Buffer scratch;
          const BatchHeader& bh = **found;
          Status s = log.Read(bh.base_offset, 1, &batch);
          bool done = false;
          if (s.ok()) {
            s = DecodeRecords(batch.span().subspan(0, std::min(batch.size(), bh.total_bytes())),
                              options_.max_uncompressed_batch_bytes, &scratch,
                              [&](const Record& rec) {
                                if (!done && rec.timestamp >= p.timestamp) {
                                  pr.offset = rec.offset;
                                  pr.timestamp = rec.timestamp;
                                  done = true;
                                }
                                return Status::OK();
                              });
          }
          if (!s.ok() || !done) {
            pr.offset = bh.base_offset;
            pr.timestamp = bh.max_timestamp;
          }
        }
      }
      // -3 (max timestamp) and -5 (tiered) answer offset -1, timestamp -1.
    }
  }
  respond(EncodeResponse(h, resp));
  return Status::OK();
}

// ---------------------------------------------------------------------------------------
// Topic administration

Status Broker::HandleCreateTopics(const RequestHeader& h, KafkaReader& r, Respond& respond) {
  CreateTopicsRequest req;
  FLOE_RETURN_IF_ERROR(req.Read(r, h.api_version));
  CreateTopicsResponse resp;
  std::map<std::string, int> seen;
  for (const auto& t : req.topics) ++seen[t.name];
  for (const auto& t : req.topics) {
    CreateTopicsResponse::CreatableTopicResult& res = resp.topics.emplace_back();
    res.name = t.name;
    auto fail = [&res](ErrorCode code, std::string message) {
      res.error_code = Code(code);
      res.error_message = std::move(message);
    };
    int32_t partitions = t.num_partitions == -1 ? options_.default_partitions : t.num_partitions;
    std::map<std::string, std::string> configs;
    std::optional<std::string> config_error;
    for (const auto& c : t.configs) {
      std::string name = CanonicalConfigName(c.name);
      if (!config_error) config_error = ValidateConfig(name, c.value);
      if (c.value.has_value()) configs[name] = *c.value;
    }
    if (seen[t.name] > 1) {
      fail(ErrorCode::kInvalidRequest, "topic named twice in the request");
    } else if (!ValidTopicName(t.name)) {
      fail(ErrorCode::kInvalidTopicException, "invalid topic name");
    } else if (FindTopic(t.name) != nullptr) {
      fail(ErrorCode::kTopicAlreadyExists, fmt::format("topic '{}' already exists", t.name));
    } else if (!t.assignments.empty()) {
      fail(ErrorCode::kInvalidReplicaAssignment, "manual replica assignment is not supported");
    } else if (partitions <= 0 || partitions > 10000) {
      fail(ErrorCode::kInvalidPartitions, "partition count must be between 1 and 10000");
    } else if (t.replication_factor != -1 && t.replication_factor != 1) {
      fail(ErrorCode::kInvalidReplicationFactor, "floe has one replica per partition");
    } else if (config_error || (options_.validate_topic_configs &&
                                (config_error = options_.validate_topic_configs(configs)))) {
      fail(ErrorCode::kInvalidConfig, *config_error);
    } else if (!req.validate_only) {
      Result<Topic*> created = CreateTopic(t.name, partitions, configs);
      if (!created.ok()) {
        fail(ErrorCodeFor(created.status()), std::string(created.error().message()));
      } else {
        res.topic_id = (*created)->id;
      }
    }
    if (res.error_code == 0) {
      res.num_partitions = partitions;
      res.replication_factor = 1;
      auto& out = res.configs.emplace();
      for (const ConfigDef& def : kTopicConfigs) {
        CreateTopicsResponse::CreatableTopicConfigs& c = out.emplace_back();
        c.name = def.name;
        auto it = configs.find(def.name);
        c.value = it != configs.end() ? it->second : std::string(def.default_value);
        c.config_source = it != configs.end() ? 1 : 5;
      }
    }
  }
  respond(EncodeResponse(h, resp));
  return Status::OK();
}

Status Broker::HandleDeleteTopics(const RequestHeader& h, KafkaReader& r, Respond& respond) {
  DeleteTopicsRequest req;
  FLOE_RETURN_IF_ERROR(req.Read(r, h.api_version));
  DeleteTopicsResponse resp;
  std::vector<std::pair<std::optional<std::string>, Uuid>> wanted;
  for (const auto& name : req.topic_names) wanted.emplace_back(name, Uuid{});
  for (const auto& t : req.topics) wanted.emplace_back(t.name, t.topic_id);
  for (const auto& [name, id] : wanted) {
    DeleteTopicsResponse::DeletableTopicResult& res = resp.responses.emplace_back();
    res.name = name;
    res.topic_id = id;
    Topic* topic = nullptr;
    if (name.has_value()) {
      topic = FindTopic(*name);
    } else {
      for (auto& [n, t] : topics_) {
        if (t.id == id) topic = &t;
      }
    }
    if (topic == nullptr) {
      res.error_code =
          Code(name.has_value() ? ErrorCode::kUnknownTopicOrPartition : ErrorCode::kUnknownTopicId);
      continue;
    }
    res.name = topic->name;
    res.topic_id = topic->id;
    // Rename first so that a crash mid-delete leaves no half topic behind (Load finishes
    // the deletion of what carries the prefix).
    const std::string dir = TopicDir(topic->name);
    const std::string doomed =
        fmt::format("{}/topics/{}{}", options_.data_dir, kDeletedPrefix, Hex(topic->id.bytes));
    for (Partition& p : topic->partitions) {
      AbandonWaiters(p, ErrorCode::kUnknownTopicOrPartition, "the topic was deleted");
      partitions_by_key_.erase(p.sync_key);
    }
    topic->partitions.clear();
    std::error_code ec;
    std::filesystem::rename(dir, doomed, ec);
    if (!ec) std::filesystem::remove_all(doomed, ec);
    std::string topic_name = topic->name;
    topics_.erase(topic_name);
    for (auto& [gid, group] : groups_) {
      std::erase_if(group.offsets, [&](const auto& kv) { return kv.first.first == topic_name; });
    }
    if (ec) {
      res.error_code = Code(ErrorCode::kUnknownServerError);
      res.error_message = ec.message();
    }
  }
  WakeFetches();
  respond(EncodeResponse(h, resp));
  return Status::OK();
}

Status Broker::HandleDescribeConfigs(const RequestHeader& h, KafkaReader& r, Respond& respond) {
  DescribeConfigsRequest req;
  FLOE_RETURN_IF_ERROR(req.Read(r, h.api_version));
  DescribeConfigsResponse resp;
  for (const auto& res : req.resources) {
    DescribeConfigsResponse::DescribeConfigsResult& out = resp.results.emplace_back();
    out.resource_type = res.resource_type;
    out.resource_name = res.resource_name;
    if (res.resource_type == 4) continue;  // broker: no dynamic configs to show
    if (res.resource_type != 2) {
      out.error_code = Code(ErrorCode::kInvalidRequest);
      out.error_message = "only topic and broker resources";
      continue;
    }
    Topic* topic = FindTopic(res.resource_name);
    if (topic == nullptr) {
      out.error_code = Code(ErrorCode::kUnknownTopicOrPartition);
      continue;
    }
    for (const ConfigDef& def : kTopicConfigs) {
      if (res.configuration_keys.has_value() &&
          std::find(res.configuration_keys->begin(), res.configuration_keys->end(), def.name) ==
              res.configuration_keys->end()) {
        continue;
      }
      DescribeConfigsResponse::DescribeConfigsResourceResult& c = out.configs.emplace_back();
      c.name = def.name;
      c.value = ConfigValue(*topic, def.name);
      bool set = topic->configs.contains(def.name);
      c.config_source = set ? 1 : 5;
      c.config_type = def.type;
      if (req.include_synonyms && set) {
        c.synonyms.push_back({def.name, c.value, 1});
      }
    }
  }
  respond(EncodeResponse(h, resp));
  return Status::OK();
}

Status Broker::HandleIncrementalAlterConfigs(const RequestHeader& h, KafkaReader& r,
                                             Respond& respond) {
  IncrementalAlterConfigsRequest req;
  FLOE_RETURN_IF_ERROR(req.Read(r, h.api_version));
  IncrementalAlterConfigsResponse resp;
  for (const auto& res : req.resources) {
    IncrementalAlterConfigsResponse::AlterConfigsResourceResponse& out =
        resp.responses.emplace_back();
    out.resource_type = res.resource_type;
    out.resource_name = res.resource_name;
    if (res.resource_type != 2) {
      out.error_code = Code(ErrorCode::kInvalidRequest);
      out.error_message = "only topic configs can be altered";
      continue;
    }
    Topic* topic = FindTopic(res.resource_name);
    if (topic == nullptr) {
      out.error_code = Code(ErrorCode::kUnknownTopicOrPartition);
      continue;
    }
    std::map<std::string, std::string> configs = topic->configs;
    std::set<std::string> names;
    std::optional<std::string> error;
    for (const auto& c : res.configs) {
      std::string name = CanonicalConfigName(c.name);
      if (!names.insert(name).second) {
        error = fmt::format("'{}' named twice", name);
      } else if (c.config_operation == 0) {
        if (auto e = ValidateConfig(name, c.value)) {
          error = e;
        } else {
          configs[name] = *c.value;
        }
      } else if (c.config_operation == 1) {
        if (FindConfig(name) == nullptr) error = fmt::format("unknown topic config '{}'", name);
        configs.erase(name);
      } else {
        error = fmt::format("operation {} on '{}' is not supported", c.config_operation, name);
      }
      if (error) break;
    }
    if (!error && options_.validate_topic_configs) error = options_.validate_topic_configs(configs);
    if (error) {
      out.error_code = Code(ErrorCode::kInvalidConfig);
      out.error_message = *error;
      continue;
    }
    if (req.validate_only) continue;
    std::swap(topic->configs, configs);
    if (Status s = WriteTopicFile(*topic); !s.ok()) {
      std::swap(topic->configs, configs);
      out.error_code = Code(ErrorCodeFor(s));
      out.error_message = std::string(s.message());
    }
    BuildValidator(*topic);
  }
  respond(EncodeResponse(h, resp));
  return Status::OK();
}

// ---------------------------------------------------------------------------------------
// Tick

void Broker::Tick() {
  TickProduces();
  const int64_t now = Now();
  for (size_t i = 0; i < pending_fetches_.size();) {
    if (pending_fetches_[i].deadline_ms <= now) {
      PendingFetch f = std::move(pending_fetches_[i]);
      pending_fetches_.erase(pending_fetches_.begin() + static_cast<ptrdiff_t>(i));
      CompleteFetch(f);
    } else {
      ++i;
    }
  }
  for (auto& [id, group] : groups_) {
    std::erase_if(group.pending_members, [now](const auto& kv) { return kv.second <= now; });
    std::vector<std::string> expired;
    for (auto& [mid, m] : group.members) {
      if (!m.join.has_value() && m.session_deadline_ms <= now) expired.push_back(mid);
    }
    if (group.state == GroupState::kCompletingRebalance && group.rebalance_deadline_ms <= now) {
      // Members that did not sync in time are dropped (kafka.md §6.3).
      for (auto& [mid, m] : group.members) {
        if (!m.sync.has_value()) expired.push_back(mid);
      }
    }
    std::sort(expired.begin(), expired.end());
    expired.erase(std::unique(expired.begin(), expired.end()), expired.end());
    for (const std::string& mid : expired) RemoveMember(group, mid);
    if (!expired.empty() && group.state != GroupState::kPreparingRebalance) {
      StartRebalance(group);
    }
    if (group.state == GroupState::kPreparingRebalance) {
      MaybeCompleteJoin(group, group.rebalance_deadline_ms <= now);
    }
  }
  if (!options_.fsync_every_batch && now - last_flush_ms_ >= options_.flush_interval_ms) {
    last_flush_ms_ = now;
    for (auto& [name, topic] : topics_) {
      for (Partition& p : topic.partitions) (void)p.log->Flush();
    }
  }
  if (now - last_retention_ms_ >= options_.retention_check_interval_ms) {
    last_retention_ms_ = now;
    for (auto& [name, topic] : topics_) {
      int64_t retention_ms = ConfigInt(topic, "retention.ms", options_.retention_ms);
      int64_t retention_bytes = ConfigInt(topic, "retention.bytes", options_.retention_bytes);
      for (size_t i = 0; i < topic.partitions.size(); ++i) {
        (void)topic.partitions[i].log->ApplyRetention(
            now, retention_ms, retention_bytes, ProtectedOffset(name, static_cast<int32_t>(i)));
      }
    }
  }
}

}  // namespace floe::kafka
