// Broker: the Kafka broker core of `floe server`, independent of sockets. It owns the
// topics (their partition logs and configs, under BrokerOptions::data_dir), the idempotent
// producers' sequence state, and a single-node group coordinator with durable committed
// offsets, and answers request frames with response frames.
//
// On disk, under data_dir:
//   cluster.id                         the stable ClusterId of Metadata
//   producer-ids                       the next block of producer ids (never reused)
//   topics/<topic>/topic.json          topic id, partition count, configs set on the topic
//   topics/<topic>/<partition>/…       the partition's log (partition_log.h)
//   groups/offsets.log                 committed offsets, appended and fsynced per commit
//
// Every file is written atomically (io::WriteFileAtomically) or appended all or nothing
// (io::AppendFile), so a crash or a full disk at any point leaves a directory Open accepts:
// Open deletes `*.tmp` leftovers, topic directories without topic.json (a creation that did
// not finish: nothing was ever acknowledged on them) and `~deleted-*` ones (a deletion that
// did not finish). A full disk answers KAFKA_STORAGE_ERROR, and the next request after space
// is freed works without a restart.
//
// Threading: single-threaded. The listener (kafka_server.h) calls Handle and Tick from its
// one io thread; a response may be delivered later than Handle returns (a Fetch waiting for
// data, a JoinGroup waiting for the other members, a Produce waiting for its sync), always
// on that thread. Under group commit (StartGroupCommit) one worker thread of the broker's
// own fdatasyncs the partition logs (log_syncer.h) and posts the outcomes back.
#pragma once

#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <random>
#include <set>
#include <span>
#include <string>
#include <vector>

#include "floe/auth/authenticator.h"
#include "floe/auth/sasl.h"
#include "floe/base/buffer.h"
#include "floe/base/status.h"
#include "floe/kafka/log_syncer.h"
#include "floe/kafka/messages.h"
#include "floe/kafka/partition_log.h"
#include "floe/kafka/protocol.h"
#include "floe/kafka/record_validator.h"

namespace floe::kafka {

struct BrokerOptions {
  std::string data_dir;
  int32_t node_id = 0;
  // What Metadata and FindCoordinator tell clients to connect to.
  std::string advertised_host = "127.0.0.1";
  int32_t advertised_port = 9092;
  // true: fdatasync every appended batch before acknowledging it (and, under group commit,
  // before Fetch, ListOffsets and ReadLog show it); false: every flush_interval_ms (an acked
  // record may then be lost on power failure, not on kill -9).
  bool fsync_every_batch = true;
  int64_t flush_interval_ms = 1000;
  int64_t segment_bytes = 1 << 30;
  // Broker defaults of the topic configs of the same names.
  int32_t default_partitions = 1;
  bool auto_create_topics = true;
  int64_t retention_ms = 7 * 24 * 3600 * 1000LL;
  int64_t retention_bytes = -1;
  int64_t max_message_bytes = 1048588;
  int64_t retention_check_interval_ms = 300'000;
  // Bound on a request's decompressed record bytes (decompression bombs).
  size_t max_uncompressed_batch_bytes = 64 << 20;
  // Produce backpressure on table topics (docs/kafka.md, "Throttling"). A partition's
  // untranslated bytes are its log bytes from the offset committed to its table to the log
  // end. From `lag_throttle_bytes` on, Produce responses carry throttle_time_ms (growing
  // towards `max_throttle_ms` as the lag nears `lag_limit_bytes`) and are held that long;
  // at `lag_limit_bytes` a produce is not appended but waits, up to half its timeout, for
  // translation to catch up, then fails with the retriable REQUEST_TIMED_OUT. <= 0 turns a
  // bound off.
  int64_t lag_throttle_bytes = int64_t{256} << 20;
  int64_t lag_limit_bytes = int64_t{1} << 30;
  int32_t max_throttle_ms = 1000;
  // Checks a table topic's whole config set (the `floe.table.topic.*` keys, after the
  // per-key type checks) on CreateTopics and IncrementalAlterConfigs: an error message
  // becomes INVALID_CONFIG. Injected by the server (ingest/topic_config.h), since the
  // broker does not know what a table topic means.
  std::function<std::optional<std::string>(const std::map<std::string, std::string>&)>
      validate_topic_configs;
  // Builds each topic's produce-time record validator from its configs (record_validator.h);
  // null, or a factory returning null, stores every well-formed batch.
  RecordValidatorFactory make_record_validator;
  // Milliseconds since the epoch; a steady clock is not needed (deadlines are coarse).
  std::function<int64_t()> now_ms;
  // Authentication (docs/kafka.md, "Security"). With an authenticator every connection
  // authenticates with SASL (PLAIN, SCRAM-SHA-256/512, OAUTHBEARER) before any request but
  // ApiVersions, SaslHandshake and SaslAuthenticate, which are all an anonymous connection
  // may send (anything else closes it). The principal's role on `auth_catalog` (the
  // table-topic catalog) then governs: producing, InitProducerId and creating, altering or
  // deleting topics need write; the rest (fetching, offsets, groups, metadata, configs)
  // read. Refusals are Kafka's TOPIC_ / GROUP_ / CLUSTER_AUTHORIZATION_FAILED. Null: no
  // authentication, every connection may do everything. Must outlive the broker.
  const auth::Authenticator* authenticator = nullptr;
  std::string auth_catalog;
  uint64_t random_seed = 0;               // 0: from std::random_device
  io::FileFaults* file_faults = nullptr;  // tests: injected write and sync failures
};

class Broker {
 public:
  // Errors: kIOError / kCorrupt from the data directory.
  static Result<std::unique_ptr<Broker>> Open(BrokerOptions options);
  ~Broker();

  // Receives the response frame (header and body, without the size prefix), or nullopt
  // when the request gets no response (Produce with acks=0).
  using Respond = std::function<void(std::optional<Buffer>)>;

  // One client connection as the broker sees it: where it comes from and how far its SASL
  // authentication got. The listener keeps one per connection, for the connection's life.
  struct Session {
    std::string client_host;
    std::unique_ptr<auth::SaslServer> sasl;      // between SaslHandshake and completion
    const auth::Principal* principal = nullptr;  // once authenticated
    // After a SaslHandshake v0: the next frames are bare SASL tokens (HandleSaslToken).
    bool bare_sasl_tokens = false;
    // Set by the broker after answering a failed or illegal SASL step: the listener writes
    // the answers queued so far and closes the connection (what Kafka does).
    bool close_after_responses = false;
  };

  // Handles one request frame (without its size prefix) of `session`'s connection.
  // `respond` is called exactly once, now or later, unless an error is returned: then the
  // caller closes the connection (a malformed or unsupported request, or one an
  // unauthenticated connection may not send, as Kafka does).
  Status Handle(std::span<const uint8_t> frame, Session& session, Respond respond);
  // A bare SASL token frame, what follows a SaslHandshake v0 (Session::bare_sasl_tokens):
  // `respond` gets the server's token, framed the same way. An error (a failed exchange)
  // closes the connection unanswered, as Kafka does with v0.
  Status HandleSaslToken(std::span<const uint8_t> frame, Session& session, Respond respond);
  // The same for a connection of its own from `client_host` (tests, fuzzing): without an
  // authenticator it may do everything, with one it is unauthenticated.
  Status Handle(std::span<const uint8_t> frame, const std::string& client_host, Respond respond);

  // Completes waiting fetches and joins whose time has come, expires group members, flushes
  // logs under the interval policy and applies retention. Call every few milliseconds.
  void Tick();

  // Switches fsync_every_batch to group commit: a produced batch is written on the
  // broker's thread and fdatasynced by the broker's sync worker (log_syncer.h), which syncs
  // every log made dirty since its last round once; the produce is answered (acks 1 / -1),
  // and its records are shown to Fetch, ListOffsets, ListTopics and ReadLog, once that sync
  // is back on the broker's thread. A failed sync answers KAFKA_STORAGE_ERROR and cuts the
  // unsynced batches off their log. `post` runs a function on the broker's thread later
  // (the listener's io_context); the worker calls it. Without group commit appends sync
  // inline; with fsync_every_batch false this does nothing. REQUIRES: on the broker's
  // thread, before requests are handled; `post` works until the broker is destroyed (a
  // function posted after the broker's thread stopped must simply never run).
  void StartGroupCommit(std::function<void(std::function<void()>)> post);

  // The group-commit worker's figures (/metrics), since the start.
  struct SyncStats {
    int64_t rounds = 0;          // rounds of the worker
    int64_t syncs = 0;           // fdatasyncs of partition files by the worker
    int64_t synced_batches = 0;  // batches those made durable
    int64_t failures = 0;        // failed syncs that discarded batches
  };
  const SyncStats& sync_stats() const { return sync_stats_; }
  bool group_commit() const { return syncer_ != nullptr; }

  void set_advertised_port(int32_t port) { options_.advertised_port = port; }

  // The first offset of `topic`/`partition` that retention must keep: the log end for
  // plain topics; for table topics the offset the translator last committed to the table
  // (SetCommittedOffset), 0 until it reports one.
  int64_t ProtectedOffset(const std::string& topic, int32_t partition) const;

  // Batches a topic's RecordValidator refused (/metrics, the management API's topic stats).
  struct ValidationStats {
    std::map<std::string, int64_t> rejected_records;  // by RecordError::reason
    int64_t rejected_batches = 0;
    std::deque<std::string> recent;  // the newest kRecentRejections reasons, newest last
    // Logging at a bounded rate: when the last line was written, refusals since then.
    int64_t last_log_ms = -1;
    int64_t unlogged = 0;
  };
  static constexpr size_t kRecentRejections = 5;

  // What the table translator (ingest/) sees of a topic.
  struct TopicView {
    std::string name;
    std::map<std::string, std::string> configs;  // set on the topic (canonical names)
    struct PartitionView {
      int64_t log_start_offset = 0;
      int64_t log_end_offset = 0;
      int64_t records_appended = 0;  // since the broker started
      int64_t last_append_ms = -1;
      int64_t untranslated_bytes = 0;  // table topics: log bytes not yet in the table
      // Table topics: below this, in the table as the translator last reported it
      // (SetCommittedOffset); 0 until it reports, so a translator not yet running shows
      // the whole log as lag.
      int64_t committed_offset = 0;
    };
    std::vector<PartitionView> partitions;
    std::map<std::string, int64_t> rejected_records;  // ValidationStats, by reason
    std::vector<std::string> recent_rejections;       // newest last
  };
  std::vector<TopicView> ListTopics() const;

  // Appends whole batches of `topic`/`partition` from the one holding `offset`, up to
  // `max_bytes` (at least one batch when `offset` is below the log end). kNotFound for an
  // unknown topic or partition or an offset outside the log.
  Status ReadLog(const std::string& topic, int32_t partition, int64_t offset, size_t max_bytes,
                 Buffer* out) const;

  // Records that everything below `offset` of a table topic's partition is committed to its
  // table: retention may delete it from now on.
  void SetCommittedOffset(const std::string& topic, int32_t partition, int64_t offset);

  struct ProducerBatch {
    int32_t first_seq;
    int32_t last_seq;
    int64_t base_offset;
  };
  struct ProducerState {
    int16_t epoch = -1;
    std::deque<ProducerBatch> batches;  // the newest 5 (duplicate window)
  };
  // A produce waiting for its batches' syncs (group commit); defined in broker.cc.
  struct WaitingProduce;
  // One partition's part of a waiting produce: the indexes of its partition response.
  struct AckWait {
    std::shared_ptr<WaitingProduce> produce;
    size_t topic = 0;
    size_t partition = 0;
  };
  struct Partition {
    std::unique_ptr<PartitionLog> log;
    std::map<int64_t, ProducerState> producers;
    // Group commit: the partition's name for the sync worker, and the produces waiting for
    // its sync by the base offset of their batch (answered once the high watermark passes).
    uint64_t sync_key = 0;
    std::multimap<int64_t, AckWait> waiters;
    int64_t committed_offset = 0;    // table topics: below this, in the table
    int64_t untranslated_bytes = 0;  // log bytes from committed_offset to the log end
    int64_t records_appended = 0;
    int64_t last_append_ms = -1;
  };
  struct Topic {
    std::string name;
    Uuid id;
    std::map<std::string, std::string> configs;  // set on the topic; defaults not stored
    std::vector<Partition> partitions;
    std::unique_ptr<RecordValidator> validator;  // from the configs; null: none
    ValidationStats validation;
  };

 private:
  struct Parked {
    RequestHeader header;
    Respond respond;
  };
  // A produce waiting for its table topic's translation to catch up (lag_limit_bytes): the
  // request body is kept and parsed again when it runs.
  struct ParkedProduce {
    RequestHeader header;
    std::vector<uint8_t> body;
    bool flexible = false;
    int64_t deadline_ms = 0;
    Respond respond;
  };
  // A throttled produce response, sent when its throttle time has passed.
  struct HeldResponse {
    int64_t due_ms = 0;
    Buffer frame;
    Respond respond;
  };
  struct PendingFetch {
    RequestHeader header;
    FetchRequest request;
    int64_t deadline_ms;
    Respond respond;
  };
  struct Member {
    std::string id;
    std::optional<std::string> instance_id;
    std::string client_id;
    std::string client_host;
    int32_t session_timeout_ms = 0;
    int32_t rebalance_timeout_ms = 0;
    std::vector<std::pair<std::string, std::string>> protocols;  // name, metadata
    std::optional<Parked> join;
    std::optional<Parked> sync;
    std::string assignment;
    int64_t session_deadline_ms = 0;
    uint64_t join_order = 0;
  };
  enum class GroupState { kEmpty, kPreparingRebalance, kCompletingRebalance, kStable };
  struct CommittedOffset {
    int64_t offset = -1;
    int32_t leader_epoch = -1;
    std::optional<std::string> metadata;
  };
  struct Group {
    std::string id;
    GroupState state = GroupState::kEmpty;
    int32_t generation = 0;
    std::string protocol_type;
    std::string protocol;
    std::string leader;
    std::map<std::string, Member> members;
    std::map<std::string, int64_t> pending_members;  // KIP-394 ids -> expiry
    int64_t rebalance_deadline_ms = 0;
    std::map<std::pair<std::string, int32_t>, CommittedOffset> offsets;
  };

  explicit Broker(BrokerOptions options);
  Status Load();
  int64_t Now() const { return options_.now_ms(); }

  // Request handlers: parse the body from `r`, answer through `respond`.
  Status HandleSaslHandshake(const RequestHeader& h, KafkaReader& r, Session& session,
                             Respond& respond);
  Status HandleSaslAuthenticate(const RequestHeader& h, KafkaReader& r, Session& session,
                                Respond& respond);
  // The role `session` holds: kWrite without an authenticator; kNone before authentication.
  auth::Access SessionAccess(const Session& session) const;
  // Answers a request the session's role does not allow with Kafka's authorization errors
  // on every topic, partition, group or resource it names.
  Status Refuse(const RequestHeader& h, KafkaReader& r, Respond& respond);
  Status HandleApiVersions(const RequestHeader& h, KafkaReader& r, Respond& respond);
  Status HandleMetadata(const RequestHeader& h, KafkaReader& r, Respond& respond);
  Status HandleProduce(const RequestHeader& h, KafkaReader& r, Respond& respond);
  Status HandleFetch(const RequestHeader& h, KafkaReader& r, Respond& respond);
  Status HandleListOffsets(const RequestHeader& h, KafkaReader& r, Respond& respond);
  Status HandleInitProducerId(const RequestHeader& h, KafkaReader& r, Respond& respond);
  Status HandleCreateTopics(const RequestHeader& h, KafkaReader& r, Respond& respond);
  Status HandleDeleteTopics(const RequestHeader& h, KafkaReader& r, Respond& respond);
  Status HandleDescribeConfigs(const RequestHeader& h, KafkaReader& r, Respond& respond);
  Status HandleIncrementalAlterConfigs(const RequestHeader& h, KafkaReader& r, Respond& respond);
  Status HandleFindCoordinator(const RequestHeader& h, KafkaReader& r, Respond& respond);
  Status HandleJoinGroup(const RequestHeader& h, const std::string& client_host, KafkaReader& r,
                         Respond& respond);
  Status HandleSyncGroup(const RequestHeader& h, KafkaReader& r, Respond& respond);
  Status HandleHeartbeat(const RequestHeader& h, KafkaReader& r, Respond& respond);
  Status HandleLeaveGroup(const RequestHeader& h, KafkaReader& r, Respond& respond);
  Status HandleOffsetCommit(const RequestHeader& h, KafkaReader& r, Respond& respond);
  Status HandleOffsetFetch(const RequestHeader& h, KafkaReader& r, Respond& respond);
  Status HandleDescribeGroups(const RequestHeader& h, KafkaReader& r, Respond& respond);
  Status HandleListGroups(const RequestHeader& h, KafkaReader& r, Respond& respond);

  // Topics.
  Topic* FindTopic(const std::string& name);
  Result<Topic*> CreateTopic(const std::string& name, int32_t partitions,
                             std::map<std::string, std::string> configs);
  Status WriteTopicFile(const Topic& topic) const;
  std::string TopicDir(const std::string& name) const;
  std::string ConfigValue(const Topic& topic, const std::string& name) const;
  int64_t ConfigInt(const Topic& topic, const std::string& name, int64_t fallback) const;
  // Appends one batch to a partition after the idempotence checks (kafka.md §5.3).
  // A batch its topic's validator refuses fills `record_errors` (and `message`).
  ErrorCode AppendBatch(Topic& topic, Partition& partition, std::span<const uint8_t> records,
                        int16_t version, int64_t* base_offset, std::string* message,
                        std::vector<RecordError>* record_errors);
  // (Re)builds the topic's validator from its configs.
  void BuildValidator(Topic& topic);
  // Counts and logs (at a bounded rate) a batch the topic's validator refused.
  void NoteRefusal(Topic& topic, const std::vector<RecordError>& errors);
  // Appends a parsed produce and answers it (held for its throttle time). With
  // `refuse_lagging`, partitions at lag_limit_bytes get REQUEST_TIMED_OUT, unappended.
  void AnswerProduce(const RequestHeader& h, const ProduceRequest& req, Respond& respond,
                     bool refuse_lagging);
  // Whether `req` appends to a table-topic partition at lag_limit_bytes.
  bool OverLagLimit(const ProduceRequest& req);
  bool OverLagLimit(const Topic& topic, int32_t partition) const;
  // The throttle time for appending to `topic`/`partition` now: 0 below lag_throttle_bytes.
  int32_t ThrottleMs(const Topic& topic, int32_t partition) const;
  bool IsTableTopic(const Topic& topic) const;
  // Sends held responses that are due and runs parked produces that may go (oldest first).
  void TickProduces();
  // Group commit.
  void EnableGroupCommit(Partition& partition);
  // Hands the partition's unsynced tail to the sync worker.
  void SubmitSync(Partition& partition);
  // Applies the sync rounds the worker delivered (on the broker's thread).
  void DrainSyncRounds();
  // Answers the waiters below the partition's high watermark.
  void ReleaseWaiters(Partition& partition);
  // Answers every waiter of the partition with `code`.
  void AbandonWaiters(Partition& partition, ErrorCode code, const std::string& message);
  // A failed sync: discards the unsynced batches, answers their produces with
  // KAFKA_STORAGE_ERROR and rebuilds the producers' state from what the log still holds.
  void FailUnsynced(Partition& partition, const Status& status);
  // Sends a waiting produce's response (held for its throttle time first).
  void FinishWaiting(WaitingProduce& waiting);
  // Fills a fetch response; returns the record bytes gathered.
  size_t FillFetch(const FetchRequest& request, FetchResponse* response, Buffer* storage);
  void CompleteFetch(PendingFetch& fetch);
  void WakeFetches();

  // Groups.
  Group& GetGroup(const std::string& id);
  void MaybeCompleteJoin(Group& group, bool deadline_passed);
  void StartRebalance(Group& group);
  void RemoveMember(Group& group, const std::string& member_id);
  void SendJoinResponse(Group& group, Member& member);
  Status AppendOffsetRecord(const std::string& group, const std::string& topic, int32_t partition,
                            const CommittedOffset& offset);
  Status LoadOffsets();
  Result<int64_t> NextProducerId();

  BrokerOptions options_;
  std::string cluster_id_;
  std::mt19937_64 random_;
  std::map<std::string, Topic> topics_;
  std::vector<PendingFetch> pending_fetches_;
  std::deque<ParkedProduce> parked_produces_;
  std::vector<HeldResponse> held_responses_;
  std::map<std::string, Group> groups_;
  uint64_t join_counter_ = 0;
  std::unique_ptr<io::AppendFile> offsets_log_;
  int64_t next_producer_id_ = 0;
  int64_t producer_id_limit_ = 0;  // ids below this are reserved on disk
  int64_t last_flush_ms_ = 0;
  int64_t last_retention_ms_ = 0;
  // The role of the request being handled (handlers run one at a time): Metadata creates
  // missing topics only with write.
  auth::Access request_access_ = auth::Access::kWrite;
  Buffer validate_scratch_;  // inflated records of the batch being validated (AppendBatch)
  std::vector<RecordView> record_views_;  // its records, for a topic's validator
  // Group commit (StartGroupCommit): the worker, its delivered rounds, the partitions by
  // their sync keys (never reused, so a deleted topic's late outcomes find nothing).
  std::function<void(std::function<void()>)> post_;
  std::mutex completed_mu_;
  std::vector<std::vector<LogSyncer::Outcome>> completed_;  // guarded by completed_mu_
  std::map<uint64_t, Partition*> partitions_by_key_;
  uint64_t next_sync_key_ = 1;
  SyncStats sync_stats_;
  std::unique_ptr<LogSyncer> syncer_;  // last: its worker delivers into the members above
};

}  // namespace floe::kafka
