// The broker through request and response frames, as a client sends and reads them.
#include "floe/kafka/broker.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <condition_variable>
#include <cstring>
#include <deque>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <thread>

#include "floe/base/testing.h"
#include "floe/io/durable_file.h"
#include "floe/kafka/test_frames.h"

namespace floe::kafka {
namespace {

class BrokerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("floe_broker_" + std::to_string(::getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::remove_all(dir_);
    Open();
  }
  void TearDown() override {
    broker_.reset();
    std::filesystem::remove_all(dir_);
  }
  void Open() {
    broker_.reset();
    BrokerOptions options = options_;
    options.data_dir = dir_.string();
    options.now_ms = [this] { return now_ms_; };
    options.random_seed = 1;
    auto b = Broker::Open(options);
    FLOE_ASSERT_OK(b);
    broker_ = std::move(*b);
  }

  // Sends a request; returns the response frame after the header, or nullopt.
  template <typename Req>
  std::optional<Buffer> Send(const Req& req, int16_t version, Status* status = nullptr) {
    Buffer frame = RequestFrame(req, version, ++correlation_);
    return SendFrame(frame.span(), status);
  }

  std::optional<Buffer> SendFrame(std::span<const uint8_t> frame, Status* status = nullptr) {
    std::optional<Buffer> got;
    bool called = false;
    Status s = broker_->Handle(frame, "127.0.0.1", [&](std::optional<Buffer> b) {
      called = true;
      got = std::move(b);
    });
    if (status != nullptr) *status = s;
    if (!s.ok()) return std::nullopt;
    EXPECT_TRUE(called);
    return got;
  }

  template <typename Resp>
  Resp Parse(const Buffer& frame, int16_t version, bool header_tags) {
    KafkaReader r(frame.span(), false);
    EXPECT_EQ(*r.Int32(), correlation_);
    if (header_tags) {
      FLOE_EXPECT_OK(r.SkipTags());
    }
    KafkaReader body({r.position(), r.remaining()}, Resp::IsFlexible(version));
    Resp resp;
    Status s = resp.Read(body, version);
    FLOE_EXPECT_OK(s);
    EXPECT_EQ(body.remaining(), 0u);
    return resp;
  }

  void CreateTopic(const std::string& name, int partitions) {
    CreateTopicsRequest req;
    auto& t = req.topics.emplace_back();
    t.name = name;
    t.num_partitions = partitions;
    t.replication_factor = -1;
    auto resp = Parse<CreateTopicsResponse>(*Send(req, 7), 7, true);
    ASSERT_EQ(resp.topics.size(), 1u);
    ASSERT_EQ(resp.topics[0].error_code, 0) << resp.topics[0].error_message.value_or("");
  }

  ProduceResponse::PartitionProduceResponse Produce(const std::string& topic, const Buffer& batch,
                                                    int16_t version = 9) {
    ProduceRequest req;
    req.acks = -1;
    auto& t = req.topic_data.emplace_back();
    t.name = topic;
    auto& p = t.partition_data.emplace_back();
    p.index = 0;
    p.records = batch.span();
    auto resp = Parse<ProduceResponse>(*Send(req, version), version, version >= 9);
    return resp.responses.at(0).partition_responses.at(0);
  }

  static Buffer Batch(int64_t pid, int16_t epoch, int32_t seq, int records) {
    BatchBuilderOptions o;
    o.producer_id = pid;
    o.producer_epoch = epoch;
    o.base_sequence = seq;
    BatchBuilder b(o);
    for (int i = 0; i < records; ++i) b.Add(1000 + i, "k" + std::to_string(i), "v");
    Buffer out;
    FLOE_EXPECT_OK(b.Finish(&out));
    return out;
  }

  MetadataResponse Metadata(const std::string& topic, bool auto_create) {
    MetadataRequest md;
    md.topics.emplace();
    md.topics->push_back({Uuid{}, topic});
    md.allow_auto_topic_creation = auto_create;
    return Parse<MetadataResponse>(*Send(md, 12), 12, true);
  }

  int16_t CommitOffset(const std::string& group, const std::string& topic, int64_t offset) {
    OffsetCommitRequest commit;
    commit.group_id = group;
    commit.generation_id_or_member_epoch = -1;
    auto& ct = commit.topics.emplace_back();
    ct.name = topic;
    ct.partitions.push_back({0, offset, -1, std::nullopt});
    return Parse<OffsetCommitResponse>(*Send(commit, 8), 8, true)
        .topics.at(0)
        .partitions.at(0)
        .error_code;
  }

  int64_t FetchCommittedOffset(const std::string& group, const std::string& topic) {
    OffsetFetchRequest fetch;
    fetch.group_id = group;
    auto& ft = fetch.topics.emplace();
    ft.push_back({topic, {0}});
    return Parse<OffsetFetchResponse>(*Send(fetch, 7), 7, true)
        .topics.at(0)
        .partitions.at(0)
        .committed_offset;
  }

  int64_t LogEnd(const std::string& topic) const {
    for (const auto& t : broker_->ListTopics()) {
      if (t.name == topic) return t.partitions.at(0).log_end_offset;
    }
    return -1;
  }

  std::filesystem::path dir_;
  BrokerOptions options_;  // what Open() starts from
  std::unique_ptr<Broker> broker_;
  int64_t now_ms_ = 1'000'000;
  int32_t correlation_ = 0;
};

TEST_F(BrokerTest, ApiVersionsAdvertisesProduceFromZero) {
  ApiVersionsRequest req;
  req.client_software_name = "t";
  req.client_software_version = "1";
  // v3 is flexible but its response header carries no tag byte.
  auto resp = Parse<ApiVersionsResponse>(*Send(req, 3), 3, false);
  EXPECT_EQ(resp.error_code, 0);
  bool produce = false;
  for (const auto& k : resp.api_keys) {
    if (k.api_key == 0) {
      produce = true;
      EXPECT_EQ(k.min_version, 0);
      EXPECT_EQ(k.max_version, 12);
    }
  }
  EXPECT_TRUE(produce);
}

TEST_F(BrokerTest, UnsupportedApiVersionsGetsV0Error) {
  // ApiVersions v99 with a body we cannot know: the answer is a v0 body.
  std::vector<uint8_t> frame = {0, 18, 0, 99, 0, 0, 0, 5, 0, 0, 0xde, 0xad};
  correlation_ = 5;
  auto out = SendFrame(frame);
  ASSERT_TRUE(out.has_value());
  auto resp = Parse<ApiVersionsResponse>(*out, 0, false);
  EXPECT_EQ(resp.error_code, 35);
  ASSERT_EQ(resp.api_keys.size(), 1u);
  EXPECT_EQ(resp.api_keys[0].api_key, 18);
  EXPECT_EQ(resp.api_keys[0].max_version, 4);
}

TEST_F(BrokerTest, MalformedAndUnsupportedFramesCloseTheConnection) {
  Status s;
  std::vector<uint8_t> short_frame = {0, 3, 0};
  EXPECT_FALSE(SendFrame(short_frame, &s).has_value());
  EXPECT_FALSE(s.ok());
  std::vector<uint8_t> unknown_key = {0x7f, 0, 0, 0, 0, 0, 0, 1, 0, 0};
  SendFrame(unknown_key, &s);
  EXPECT_FALSE(s.ok());
  std::vector<uint8_t> produce_v2 = {0, 0, 0, 2, 0, 0, 0, 1, 0, 0};
  SendFrame(produce_v2, &s);
  EXPECT_FALSE(s.ok());
  // Metadata v1 whose topic array claims more elements than bytes.
  std::vector<uint8_t> bad_metadata = {0, 3, 0, 1, 0, 0, 0, 1, 0, 0, 0x10, 0, 0, 0};
  SendFrame(bad_metadata, &s);
  EXPECT_TRUE(s.IsCorrupt()) << s.ToString();
  // The broker still serves after all of that.
  MetadataRequest req;
  EXPECT_TRUE(Send(req, 1).has_value());
}

TEST_F(BrokerTest, IdempotentProduceDetectsDuplicatesAndGaps) {
  CreateTopic("t", 1);
  auto first = Produce("t", Batch(1000, 0, 0, 3));
  EXPECT_EQ(first.error_code, 0);
  EXPECT_EQ(first.base_offset, 0);
  auto second = Produce("t", Batch(1000, 0, 3, 2));
  EXPECT_EQ(second.base_offset, 3);
  // A retry of the first batch: success with the original offset, nothing appended.
  auto retry = Produce("t", Batch(1000, 0, 0, 3));
  EXPECT_EQ(retry.error_code, 0);
  EXPECT_EQ(retry.base_offset, 0);
  // A gap.
  auto gap = Produce("t", Batch(1000, 0, 9, 1));
  EXPECT_EQ(gap.error_code, 45);
  // An older epoch is fenced; a newer one must start at 0.
  EXPECT_EQ(Produce("t", Batch(1000, 1, 4, 1)).error_code, 45);
  EXPECT_EQ(Produce("t", Batch(1000, 1, 0, 1)).error_code, 0);
  EXPECT_EQ(Produce("t", Batch(1000, 0, 5, 1)).error_code, 47);
  // An unknown producer may start anywhere (its state may have been lost).
  EXPECT_EQ(Produce("t", Batch(2000, 0, 77, 1)).error_code, 0);

  // Producer state is rebuilt from the log after a restart.
  Open();
  auto after = Produce("t", Batch(1000, 1, 0, 1));
  EXPECT_EQ(after.error_code, 0);
  EXPECT_EQ(after.base_offset, 5);
  EXPECT_EQ(Produce("t", Batch(2000, 0, 78, 1)).base_offset, 7);
}

TEST_F(BrokerTest, ProduceRejectsBadBatches) {
  CreateTopic("t", 1);
  Buffer batch = Batch(-1, -1, -1, 1);
  batch.data()[batch.size() - 1] ^= 0x40;
  EXPECT_EQ(Produce("t", batch).error_code, 2);  // CORRUPT_MESSAGE
  BatchBuilderOptions o;
  o.codec = BatchCodec::kZstd;
  BatchBuilder b(o);
  b.Add(1, "k", std::string(1000, 'a'));
  Buffer zstd;
  FLOE_ASSERT_OK(b.Finish(&zstd));
  EXPECT_EQ(Produce("t", zstd, 6).error_code, 76);
  EXPECT_EQ(Produce("t", zstd, 7).error_code, 0);
  EXPECT_EQ(Produce("nope", zstd).error_code, 3);
}

// Refuses every record whose value starts with "bad" (a stand-in for schema validation).
class PrefixValidator : public RecordValidator {
 public:
  void Validate(std::span<const RecordView> records, std::vector<RecordError>* errors) override {
    for (size_t i = 0; i < records.size(); ++i) {
      const auto& v = records[i].value;
      if (v && v->size() >= 3 && std::memcmp(v->data(), "bad", 3) == 0) {
        errors->push_back({static_cast<int32_t>(i), "bad_prefix", "value starts with bad"});
      }
    }
  }
};

TEST_F(BrokerTest, ProduceRefusesWhatTheTopicsValidatorRefuses) {
  options_.make_record_validator =
      [](const std::string& topic,
         const std::map<std::string, std::string>& configs) -> std::unique_ptr<RecordValidator> {
    if (topic != "checked") return nullptr;
    return std::make_unique<PrefixValidator>();
  };
  Open();
  CreateTopic("checked", 1);
  CreateTopic("plain", 1);
  BatchBuilderOptions o;
  o.codec = BatchCodec::kLz4;  // the validator sees the inflated records
  BatchBuilder b(o);
  b.Add(1, "k0", std::string("good"));
  b.Add(2, "k1", std::string("bad one"));
  b.Add(3, std::nullopt, std::nullopt);
  b.Add(4, "k3", std::string("bad two"));
  Buffer mixed;
  FLOE_ASSERT_OK(b.Finish(&mixed));
  // Kafka's answer to a batch LogValidator refuses record by record (KIP-467): INVALID_RECORD,
  // each refused record's batch index and message, a top-level message; nothing stored.
  auto pr = Produce("checked", mixed, 9);
  EXPECT_EQ(pr.error_code, 87);
  EXPECT_EQ(pr.base_offset, -1);
  ASSERT_EQ(pr.record_errors.size(), 2u);
  EXPECT_EQ(pr.record_errors[0].batch_index, 1);
  EXPECT_EQ(pr.record_errors[0].batch_index_error_message.value_or(""), "value starts with bad");
  EXPECT_EQ(pr.record_errors[1].batch_index, 3);
  ASSERT_TRUE(pr.error_message.has_value());
  EXPECT_NE(pr.error_message->find("value starts with bad"), std::string::npos);
  // Produce v7 has no record_errors: the error code and nothing stored still hold.
  EXPECT_EQ(Produce("checked", mixed, 7).error_code, 87);
  // The same batch to a topic without a validator, and a good batch, are stored.
  EXPECT_EQ(Produce("plain", mixed).error_code, 0);
  auto ok = Produce("checked", Batch(-1, -1, -1, 2));
  EXPECT_EQ(ok.error_code, 0);
  EXPECT_EQ(ok.base_offset, 0);  // the refused batches took no offsets
  for (const auto& t : broker_->ListTopics()) {
    if (t.name != "checked") continue;
    EXPECT_EQ(t.partitions.at(0).log_end_offset, 2);
    EXPECT_EQ(t.rejected_records.at("bad_prefix"), 4);
    ASSERT_EQ(t.recent_rejections.size(), 4u);
  }
  // An idempotent producer's refused batch leaves its sequence state as it was: the batch
  // that follows at the same sequence is accepted.
  Buffer idem_bad;
  {
    BatchBuilderOptions io;
    io.producer_id = 7;
    io.producer_epoch = 0;
    io.base_sequence = 0;
    BatchBuilder ib(io);
    ib.Add(1, "k", std::string("bad"));
    FLOE_ASSERT_OK(ib.Finish(&idem_bad));
  }
  EXPECT_EQ(Produce("checked", idem_bad).error_code, 87);
  EXPECT_EQ(Produce("checked", Batch(7, 0, 0, 1)).error_code, 0);
}

TEST_F(BrokerTest, FetchWaitsForDataAndReturnsWholeBatches) {
  CreateTopic("t", 1);
  FetchRequest req;
  req.max_wait_ms = 500;
  req.min_bytes = 1;
  auto& t = req.topics.emplace_back();
  t.topic = "t";
  auto& p = t.partitions.emplace_back();
  p.fetch_offset = 0;
  p.partition_max_bytes = 1 << 20;
  std::optional<Buffer> got;
  Buffer frame;
  {
    KafkaWriter hw(&frame, false);
    hw.Int16(1);
    hw.Int16(11);
    hw.Int32(++correlation_);
    hw.ClassicNullableString(std::string("c"));
    KafkaWriter bw(&frame, false);
    req.Write(bw, 11);
  }
  FLOE_ASSERT_OK(
      broker_->Handle(frame.span(), "h", [&](std::optional<Buffer> b) { got = std::move(b); }));
  EXPECT_FALSE(got.has_value());  // parked: no data yet
  int32_t fetch_correlation = correlation_;
  Produce("t", Batch(-1, -1, -1, 4));
  ASSERT_TRUE(got.has_value());  // woken by the append
  correlation_ = fetch_correlation;
  auto resp = Parse<FetchResponse>(*got, 11, false);
  const auto& pd = resp.responses.at(0).partitions.at(0);
  EXPECT_EQ(pd.error_code, 0);
  EXPECT_EQ(pd.high_watermark, 4);
  ASSERT_TRUE(pd.records.has_value());
  Result<BatchHeader> h = ValidateBatch(*pd.records);
  FLOE_ASSERT_OK(h);
  EXPECT_EQ(h->records_count, 4);

  // Out of range, and the deadline path.
  got.reset();
  req.topics[0].partitions[0].fetch_offset = 4;
  frame.Clear();
  {
    KafkaWriter hw(&frame, false);
    hw.Int16(1);
    hw.Int16(11);
    hw.Int32(++correlation_);
    hw.ClassicNullableString(std::string("c"));
    KafkaWriter bw(&frame, false);
    req.Write(bw, 11);
  }
  FLOE_ASSERT_OK(
      broker_->Handle(frame.span(), "h", [&](std::optional<Buffer> b) { got = std::move(b); }));
  EXPECT_FALSE(got.has_value());
  now_ms_ += 501;
  broker_->Tick();
  ASSERT_TRUE(got.has_value());
}

TEST_F(BrokerTest, GroupJoinSyncCommitAndFetchOffsets) {
  CreateTopic("t", 2);
  JoinGroupRequest join;
  join.group_id = "g";
  join.session_timeout_ms = 10000;
  join.rebalance_timeout_ms = 30000;
  join.protocol_type = "consumer";
  std::string meta = "subscription";
  join.protocols.push_back({"range", {reinterpret_cast<const uint8_t*>(meta.data()), meta.size()}});
  auto first = Parse<JoinGroupResponse>(*Send(join, 5), 5, false);
  EXPECT_EQ(first.error_code, 79);  // MEMBER_ID_REQUIRED
  join.member_id = first.member_id;
  auto joined = Parse<JoinGroupResponse>(*Send(join, 5), 5, false);
  EXPECT_EQ(joined.error_code, 0);
  EXPECT_EQ(joined.leader, first.member_id);
  EXPECT_EQ(joined.protocol_name, "range");
  ASSERT_EQ(joined.members.size(), 1u);

  SyncGroupRequest sync;
  sync.group_id = "g";
  sync.generation_id = joined.generation_id;
  sync.member_id = joined.member_id;
  std::string assignment = "assignment";
  sync.assignments.push_back(
      {joined.member_id, {reinterpret_cast<const uint8_t*>(assignment.data()), assignment.size()}});
  Buffer sync_frame = *Send(sync, 3);  // the response's bytes point into it
  auto synced = Parse<SyncGroupResponse>(sync_frame, 3, false);
  EXPECT_EQ(synced.error_code, 0);
  EXPECT_EQ(std::string(synced.assignment.begin(), synced.assignment.end()), assignment);

  HeartbeatRequest hb;
  hb.group_id = "g";
  hb.generation_id = joined.generation_id;
  hb.member_id = joined.member_id;
  EXPECT_EQ(Parse<HeartbeatResponse>(*Send(hb, 3), 3, false).error_code, 0);

  OffsetCommitRequest commit;
  commit.group_id = "g";
  commit.generation_id_or_member_epoch = joined.generation_id;
  commit.member_id = joined.member_id;
  auto& ct = commit.topics.emplace_back();
  ct.name = "t";
  ct.partitions.push_back({1, 42, -1, std::string("meta")});
  auto committed = Parse<OffsetCommitResponse>(*Send(commit, 8), 8, true);
  EXPECT_EQ(committed.topics.at(0).partitions.at(0).error_code, 0);

  // Committed offsets survive a restart; membership does not.
  Open();
  EXPECT_EQ(Parse<HeartbeatResponse>(*Send(hb, 3), 3, false).error_code, 25);
  OffsetFetchRequest fetch;
  fetch.group_id = "g";
  auto& ft = fetch.topics.emplace();
  ft.push_back({"t", {0, 1}});
  auto fetched = Parse<OffsetFetchResponse>(*Send(fetch, 7), 7, true);
  ASSERT_EQ(fetched.topics.size(), 1u);
  EXPECT_EQ(fetched.topics[0].partitions[0].committed_offset, -1);
  EXPECT_EQ(fetched.topics[0].partitions[1].committed_offset, 42);
  EXPECT_EQ(fetched.topics[0].partitions[1].metadata, "meta");
  // v8 shape.
  OffsetFetchRequest fetch8;
  auto& g = fetch8.groups.emplace_back();
  g.group_id = "g";
  auto f8 = Parse<OffsetFetchResponse>(*Send(fetch8, 8), 8, true);
  ASSERT_EQ(f8.groups.size(), 1u);
  EXPECT_EQ(f8.groups[0].topics.at(0).partitions.at(0).committed_offset, 42);
}

TEST_F(BrokerTest, TopicConfigsAreDurable) {
  CreateTopicsRequest create;
  auto& t = create.topics.emplace_back();
  t.name = "cfg";
  t.num_partitions = 3;
  t.replication_factor = 1;
  t.configs.push_back({"retention.ms", std::string("1234")});
  t.configs.push_back({"automq.table.topic.enable", std::string("true")});
  auto created = Parse<CreateTopicsResponse>(*Send(create, 5), 5, true);
  ASSERT_EQ(created.topics.at(0).error_code, 0);
  EXPECT_EQ(created.topics[0].num_partitions, 3);
  // Unknown config names are refused.
  t.name = "cfg2";
  t.configs.push_back({"no.such.config", std::string("1")});
  auto refused = Parse<CreateTopicsResponse>(*Send(create, 5), 5, true);
  EXPECT_EQ(refused.topics.at(0).error_code, 40);

  IncrementalAlterConfigsRequest alter;
  auto& res = alter.resources.emplace_back();
  res.resource_type = 2;
  res.resource_name = "cfg";
  res.configs.push_back({"retention.bytes", 0, std::string("99")});
  auto altered = Parse<IncrementalAlterConfigsResponse>(*Send(alter, 1), 1, true);
  EXPECT_EQ(altered.responses.at(0).error_code, 0);

  Open();
  DescribeConfigsRequest describe;
  auto& d = describe.resources.emplace_back();
  d.resource_type = 2;
  d.resource_name = "cfg";
  d.configuration_keys = std::vector<std::string>{"retention.ms", "retention.bytes",
                                                  "floe.table.topic.enable", "cleanup.policy"};
  auto described = Parse<DescribeConfigsResponse>(*Send(describe, 4), 4, true);
  std::map<std::string, std::pair<std::string, int8_t>> got;
  for (const auto& c : described.results.at(0).configs)
    got[c.name] = {c.value.value_or(""), c.config_source};
  EXPECT_EQ(got["retention.ms"], std::make_pair(std::string("1234"), int8_t{1}));
  EXPECT_EQ(got["retention.bytes"], std::make_pair(std::string("99"), int8_t{1}));
  EXPECT_EQ(got["floe.table.topic.enable"].first, "true");
  EXPECT_EQ(got["cleanup.policy"], std::make_pair(std::string("delete"), int8_t{5}));

  DeleteTopicsRequest del;
  del.topic_names = {"cfg", "missing"};
  auto deleted = Parse<DeleteTopicsResponse>(*Send(del, 4), 4, true);
  EXPECT_EQ(deleted.responses.at(0).error_code, 0);
  EXPECT_EQ(deleted.responses.at(1).error_code, 3);
  Open();
  MetadataRequest md;
  md.topics.emplace();
  md.topics->push_back({Uuid{}, std::string("cfg")});
  md.allow_auto_topic_creation = false;
  auto meta = Parse<MetadataResponse>(*Send(md, 12), 12, true);
  EXPECT_EQ(meta.topics.at(0).error_code, 3);
}

// What a crash leaves in the data directory at any point of a write (a temporary file, a
// topic directory without topic.json, a deletion cut short) does not stop the next start.
TEST_F(BrokerTest, LeftoversOfACrashDoNotStopTheStart) {
  CreateTopic("kept", 1);
  EXPECT_EQ(Produce("kept", Batch(-1, -1, -1, 3)).error_code, 0);
  broker_.reset();
  const std::filesystem::path topics = dir_ / "topics";
  std::ofstream(topics / "kept" / "topic.json.tmp") << "{\"id\": \"00";  // an alter cut short
  std::ofstream(dir_ / "producer-ids.tmp") << "10";
  std::filesystem::create_directories(topics / "unfinished" / "0");  // a creation cut short
  std::ofstream(topics / "unfinished" / "topic.json.tmp") << "{";
  std::filesystem::create_directories(topics / "~deleted-0123" / "0");  // a deletion cut short
  std::filesystem::create_directories(topics / ".deleted-00112233445566778899aabbccddeeff" / "0");
  std::ofstream(topics / ".deleted-00112233445566778899aabbccddeeff" / "topic.json")
      << R"({"id": "00112233445566778899aabbccddeeff", "partitions": 1})";
  Open();
  ASSERT_NE(broker_, nullptr);
  EXPECT_EQ(LogEnd("kept"), 3);
  EXPECT_EQ(Metadata("kept", false).topics.at(0).error_code, 0);
  EXPECT_EQ(Metadata("unfinished", false).topics.at(0).error_code, 3);  // UNKNOWN_TOPIC
  EXPECT_EQ(broker_->ListTopics().size(), 1u);
  EXPECT_FALSE(std::filesystem::exists(topics / "kept" / "topic.json.tmp"));
  EXPECT_FALSE(std::filesystem::exists(dir_ / "producer-ids.tmp"));
  EXPECT_FALSE(std::filesystem::exists(topics / "unfinished"));
  EXPECT_FALSE(std::filesystem::exists(topics / "~deleted-0123"));
  EXPECT_FALSE(std::filesystem::exists(topics / ".deleted-00112233445566778899aabbccddeeff"));
  // The name of the unfinished creation is free again.
  CreateTopic("unfinished", 1);
  EXPECT_EQ(Produce("unfinished", Batch(-1, -1, -1, 1)).error_code, 0);
}

// A full disk: every write answers KAFKA_STORAGE_ERROR, leaves nothing half-written, and the
// broker works again once space is freed, without a restart; everything acknowledged
// survives the restart that follows.
TEST_F(BrokerTest, FullDiskAnswersStorageErrorsAndResumes) {
  io::FileFaults faults;
  options_.file_faults = &faults;
  Open();
  CreateTopic("t", 1);
  ASSERT_EQ(Produce("t", Batch(-1, -1, -1, 2)).error_code, 0);
  ASSERT_EQ(CommitOffset("g", "t", 1), 0);

  faults.FailWritesAfter(20);  // every write below is cut short, then fails
  EXPECT_EQ(Produce("t", Batch(-1, -1, -1, 2)).error_code, 56);  // KAFKA_STORAGE_ERROR
  EXPECT_EQ(CommitOffset("g", "t", 2), 56);
  EXPECT_EQ(Metadata("auto", true).topics.at(0).error_code, 56);
  CreateTopicsRequest create;
  auto& ct = create.topics.emplace_back();
  ct.name = "made";
  ct.num_partitions = 2;
  ct.replication_factor = -1;
  EXPECT_EQ(Parse<CreateTopicsResponse>(*Send(create, 7), 7, true).topics.at(0).error_code, 56);
  IncrementalAlterConfigsRequest alter;
  auto& res = alter.resources.emplace_back();
  res.resource_type = 2;
  res.resource_name = "t";
  res.configs.push_back({"retention.ms", 0, std::string("5000")});
  EXPECT_EQ(
      Parse<IncrementalAlterConfigsResponse>(*Send(alter, 1), 1, true).responses.at(0).error_code,
      56);
  // Failed creations leave no directory behind.
  EXPECT_FALSE(std::filesystem::exists(dir_ / "topics" / "auto"));
  EXPECT_FALSE(std::filesystem::exists(dir_ / "topics" / "made"));
  EXPECT_EQ(LogEnd("t"), 2);

  faults.Clear();  // space freed: the same requests work
  auto produced = Produce("t", Batch(-1, -1, -1, 2));
  EXPECT_EQ(produced.error_code, 0);
  EXPECT_EQ(produced.base_offset, 2);  // right after the last acknowledged batch
  EXPECT_EQ(CommitOffset("g", "t", 4), 0);
  EXPECT_EQ(Metadata("auto", true).topics.at(0).error_code, 0);
  EXPECT_EQ(Parse<CreateTopicsResponse>(*Send(create, 7), 7, true).topics.at(0).error_code, 0);

  options_.file_faults = nullptr;
  Open();
  EXPECT_EQ(LogEnd("t"), 4);
  EXPECT_EQ(LogEnd("auto"), 0);
  // The commit that failed left no torn record hiding the one after it.
  EXPECT_EQ(FetchCommittedOffset("g", "t"), 4);
  DescribeConfigsRequest describe;
  auto& d = describe.resources.emplace_back();
  d.resource_type = 2;
  d.resource_name = "t";
  d.configuration_keys = std::vector<std::string>{"retention.ms"};
  auto described = Parse<DescribeConfigsResponse>(*Send(describe, 4), 4, true);
  EXPECT_EQ(described.results.at(0).configs.at(0).config_source, 5);  // the default: unchanged
}

// Produce throttling on a table topic's untranslated bytes (docs/kafka.md, "Throttling").
class ThrottleTest : public BrokerTest {
 protected:
  void SetUp() override {
    options_.lag_throttle_bytes = 4000;
    options_.lag_limit_bytes = 8000;
    options_.max_throttle_ms = 500;
    BrokerTest::SetUp();
    CreateTopicsRequest create;
    for (const char* name : {"tt", "plain"}) {
      auto& t = create.topics.emplace_back();
      t.name = name;
      t.num_partitions = 1;
      t.replication_factor = 1;
      if (std::string(name) == "tt") {
        t.configs.push_back({"floe.table.topic.enable", std::string("true")});
      }
    }
    auto created = Parse<CreateTopicsResponse>(*Send(create, 5), 5, true);
    ASSERT_EQ(created.topics.at(0).error_code, 0);
    ASSERT_EQ(created.topics.at(1).error_code, 0);
  }

  // About 1.1 KB: five records of 200 bytes.
  static Buffer BigBatch() {
    BatchBuilder b(BatchBuilderOptions{});
    for (int i = 0; i < 5; ++i) b.Add(1000 + i, "k", std::string(200, 'x'));
    Buffer out;
    FLOE_EXPECT_OK(b.Finish(&out));
    return out;
  }

  // Sends a v9 produce of `batch` to `topic` without expecting an answer now.
  void SendProduce(const std::string& topic, const Buffer& batch, std::optional<Buffer>* got,
                   bool* called) {
    ProduceRequest req = ProduceOf(topic, batch.span());
    Buffer frame = RequestFrame(req, 9, ++correlation_);
    FLOE_ASSERT_OK(broker_->Handle(frame.span(), "h", [got, called](std::optional<Buffer> b) {
      *called = true;
      *got = std::move(b);
    }));
  }

  int64_t LogEnd(const std::string& topic) {
    for (const auto& t : broker_->ListTopics()) {
      if (t.name == topic) return t.partitions.at(0).log_end_offset;
    }
    return -1;
  }
};

TEST_F(ThrottleTest, BelowTheBoundResponsesAreImmediateAndUnthrottled) {
  const Buffer batch = BigBatch();
  ASSERT_LT(batch.size(), 4000u);
  std::optional<Buffer> got;
  bool called = false;
  SendProduce("tt", batch, &got, &called);
  ASSERT_TRUE(called);
  auto resp = Parse<ProduceResponse>(*got, 9, true);
  EXPECT_EQ(resp.responses.at(0).partition_responses.at(0).error_code, 0);
  EXPECT_EQ(resp.throttle_time_ms, 0);
}

TEST_F(ThrottleTest, PastTheThrottleBoundResponsesCarryAndWaitTheThrottleTime) {
  const Buffer batch = BigBatch();
  // A plain topic is never throttled, however large its log.
  for (int i = 0; i < 10; ++i) {
    std::optional<Buffer> got;
    bool called = false;
    SendProduce("plain", batch, &got, &called);
    ASSERT_TRUE(called);
    EXPECT_EQ(Parse<ProduceResponse>(*got, 9, true).throttle_time_ms, 0);
  }
  // The table topic: appended, but the answer waits for its throttle time.
  int32_t throttle = 0;
  for (int i = 0; i < 5 && throttle == 0; ++i) {
    std::optional<Buffer> got;
    bool called = false;
    SendProduce("tt", batch, &got, &called);
    if (!called) {
      EXPECT_EQ(LogEnd("tt"), 5 * (i + 1));  // on disk already
      broker_->Tick();
      EXPECT_FALSE(called);
      now_ms_ += 500;
      broker_->Tick();
      ASSERT_TRUE(called);
      auto resp = Parse<ProduceResponse>(*got, 9, true);
      EXPECT_EQ(resp.responses.at(0).partition_responses.at(0).error_code, 0);
      throttle = resp.throttle_time_ms;
      EXPECT_GT(throttle, 0);
      EXPECT_LE(throttle, 500);
    } else {
      EXPECT_EQ(Parse<ProduceResponse>(*got, 9, true).throttle_time_ms, 0);
    }
  }
  EXPECT_GT(throttle, 0);
  // Once the translator has committed everything, produces go through unthrottled.
  broker_->SetCommittedOffset("tt", 0, LogEnd("tt"));
  std::optional<Buffer> got;
  bool called = false;
  SendProduce("tt", batch, &got, &called);
  ASSERT_TRUE(called);
  EXPECT_EQ(Parse<ProduceResponse>(*got, 9, true).throttle_time_ms, 0);
}

TEST_F(ThrottleTest, PastTheLimitProducesWaitForTranslationAndAreNotLost) {
  const Buffer batch = BigBatch();
  // Fill the backlog to the limit, answering throttled responses as they come due.
  int64_t end = 0;
  std::optional<Buffer> got;  // outlives the loop: the parked produce answers here
  bool called = false;
  for (int i = 0; i < 20; ++i) {
    got.reset();
    called = false;
    SendProduce("tt", batch, &got, &called);
    now_ms_ += 500;
    broker_->Tick();
    if (!called) break;  // parked: the limit is reached
    end = LogEnd("tt");
  }
  ASSERT_GT(end, 0);
  ASSERT_FALSE(called);
  EXPECT_EQ(LogEnd("tt"), end);  // the parked batch is not appended
  const int32_t parked_correlation = correlation_;
  // The parked produce (and the one behind it) go once translation catches up.
  std::optional<Buffer> second;
  bool second_called = false;
  SendProduce("tt", batch, &second, &second_called);
  EXPECT_FALSE(second_called);
  broker_->SetCommittedOffset("tt", 0, end);
  broker_->Tick();
  ASSERT_TRUE(called);
  correlation_ = parked_correlation;
  EXPECT_EQ(
      Parse<ProduceResponse>(*got, 9, true).responses.at(0).partition_responses.at(0).base_offset,
      end);
  ASSERT_TRUE(second_called);
  correlation_ = parked_correlation + 1;
  auto resp = Parse<ProduceResponse>(*second, 9, true);
  EXPECT_EQ(resp.responses.at(0).partition_responses.at(0).error_code, 0);
  EXPECT_EQ(resp.responses.at(0).partition_responses.at(0).base_offset, end + 5);
  EXPECT_EQ(LogEnd("tt"), end + 10);
}

TEST_F(ThrottleTest, PastTheLimitWithoutTranslationTheProduceTimesOutUnappended) {
  const Buffer batch = BigBatch();
  std::optional<Buffer> got;
  bool called = false;
  for (int i = 0; i < 20; ++i) {
    got.reset();
    called = false;
    SendProduce("tt", batch, &got, &called);
    now_ms_ += 500;
    broker_->Tick();
    if (!called) break;
  }
  ASSERT_FALSE(called);
  const int64_t end = LogEnd("tt");
  now_ms_ += 15'000;  // half the request's timeout
  broker_->Tick();
  ASSERT_TRUE(called);
  auto resp = Parse<ProduceResponse>(*got, 9, true);
  // REQUEST_TIMED_OUT: retriable; the batch was not appended, so a retry appends it once.
  EXPECT_EQ(resp.responses.at(0).partition_responses.at(0).error_code, 7);
  EXPECT_EQ(LogEnd("tt"), end);
}

// Group commit (Broker::StartGroupCommit): the broker's sync worker fdatasyncs, and what it
// posts back runs here, on the test's thread, as the listener's io thread would run it.
// FileFaults::HoldSyncs stops the worker inside its fdatasync, so that a test sees exactly
// what the broker does while a sync is under way.
class GroupCommitTest : public BrokerTest {
 protected:
  void SetUp() override {
    options_.file_faults = &faults_;
    BrokerTest::SetUp();
    StartGroupCommit();
  }
  void TearDown() override {
    faults_.Clear();
    BrokerTest::TearDown();
  }
  void Reopen() {
    Open();
    StartGroupCommit();
  }
  void StartGroupCommit() {
    broker_->StartGroupCommit([this](std::function<void()> fn) {
      {
        std::lock_guard lock(mu_);
        posted_.push_back(std::move(fn));
      }
      posted_cv_.notify_all();
    });
  }

  // Runs what the worker posts until `done` holds; false after 10 s.
  bool RunUntil(const std::function<bool()>& done) {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    while (!done()) {
      std::function<void()> fn;
      {
        std::unique_lock lock(mu_);
        if (!posted_cv_.wait_until(lock, deadline, [this] { return !posted_.empty(); })) {
          return false;
        }
        fn = std::move(posted_.front());
        posted_.pop_front();
      }
      fn();
    }
    return true;
  }
  // Waits until `n` syncs are held in FileFaults (the worker is inside a round).
  bool WaitHeld(int n) {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    while (faults_.held_syncs() != n) {
      if (std::chrono::steady_clock::now() > deadline) return false;
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    return true;
  }

  struct Answer {
    bool called = false;
    std::optional<Buffer> frame;
    int32_t correlation = 0;
  };
  // Sends a v9 produce of `batch` to `topic`/`partition`; the answer lands in `*answer`.
  void SendProduce(const std::string& topic, int32_t partition, const Buffer& batch, int16_t acks,
                   Answer* answer) {
    ProduceRequest req = ProduceOf(topic, batch.span(), acks, 30000, partition);
    Buffer frame = RequestFrame(req, 9, ++correlation_);
    answer->correlation = correlation_;
    ASSERT_TRUE(broker_
                    ->Handle(frame.span(), "h",
                             [answer](std::optional<Buffer> b) {
                               answer->called = true;
                               answer->frame = std::move(b);
                             })
                    .ok());
  }
  ProduceResponse::PartitionProduceResponse Answered(const Answer& answer) {
    correlation_ = answer.correlation;
    auto resp = Parse<ProduceResponse>(*answer.frame, 9, true);
    return resp.responses.at(0).partition_responses.at(0);
  }

  // What a consumer sees of `topic`/`partition`: the high watermark and record bytes of a
  // fetch from 0 that does not wait.
  std::pair<int64_t, size_t> Fetch(const std::string& topic, int32_t partition) {
    FetchRequest req;
    req.max_wait_ms = 0;
    auto& t = req.topics.emplace_back();
    t.topic = topic;
    auto& p = t.partitions.emplace_back();
    p.partition = partition;
    p.fetch_offset = 0;
    p.partition_max_bytes = 1 << 20;
    auto resp = Parse<FetchResponse>(*Send(req, 11), 11, false);
    const auto& pd = resp.responses.at(0).partitions.at(0);
    EXPECT_EQ(pd.error_code, 0);
    return {pd.high_watermark, pd.records.has_value() ? pd.records->size() : 0};
  }
  int64_t LatestOffset(const std::string& topic) {
    ListOffsetsRequest req;
    req.replica_id = -1;
    auto& t = req.topics.emplace_back();
    t.name = topic;
    t.partitions.push_back({0, -1, -1});
    auto resp = Parse<ListOffsetsResponse>(*Send(req, 7), 7, true);
    return resp.topics.at(0).partitions.at(0).offset;
  }
  size_t ReadLogBytes(const std::string& topic) {
    Buffer out;
    EXPECT_TRUE(broker_->ReadLog(topic, 0, 0, 1 << 20, &out).ok());
    return out.size();
  }

  io::FileFaults faults_;
  std::mutex mu_;
  std::condition_variable posted_cv_;
  std::deque<std::function<void()>> posted_;  // guarded by mu_
};

// Invariants 1 and 2: a produce is answered only once its batch is fdatasynced, and until
// then neither a consumer (Fetch, ListOffsets) nor the table translator (ListTopics,
// ReadLog) sees it. acks=0 is answered (with nothing) at once, as before.
TEST_F(GroupCommitTest, AnswersAndShowsABatchOnlyOnceItIsSynced) {
  CreateTopic("t", 1);
  faults_.HoldSyncs(true);
  Answer acked;
  SendProduce("t", 0, Batch(-1, -1, -1, 3), -1, &acked);
  ASSERT_TRUE(WaitHeld(1));  // the worker is in the batch's fdatasync
  EXPECT_FALSE(acked.called);
  Answer unacked;
  SendProduce("t", 0, Batch(-1, -1, -1, 2), 0, &unacked);
  EXPECT_TRUE(unacked.called);
  EXPECT_FALSE(unacked.frame.has_value());
  EXPECT_EQ(Fetch("t", 0), std::make_pair(int64_t{0}, size_t{0}));
  EXPECT_EQ(LatestOffset("t"), 0);
  EXPECT_EQ(LogEnd("t"), 0);
  EXPECT_EQ(ReadLogBytes("t"), 0u);

  faults_.HoldSyncs(false);
  ASSERT_TRUE(RunUntil([&] { return acked.called; }));
  auto pr = Answered(acked);
  EXPECT_EQ(pr.error_code, 0);
  EXPECT_EQ(pr.base_offset, 0);
  // The acks=0 batch was appended during the first round: it is synced by the next one.
  ASSERT_TRUE(RunUntil([&] { return LogEnd("t") == 5; }));
  EXPECT_EQ(LatestOffset("t"), 5);
  EXPECT_EQ(Fetch("t", 0).first, 5);
  EXPECT_GT(Fetch("t", 0).second, 0u);
  EXPECT_EQ(ReadLogBytes("t"), Fetch("t", 0).second);
  EXPECT_EQ(broker_->sync_stats().synced_batches, 2);
}

// Batches that arrive while a round syncs share the next round: one fdatasync per dirty
// partition file, however many batches each got.
TEST_F(GroupCommitTest, OneSyncPerDirtyPartitionPerRound) {
  CreateTopic("t", 8);
  faults_.HoldSyncs(true);
  std::vector<std::unique_ptr<Answer>> answers;
  answers.push_back(std::make_unique<Answer>());
  SendProduce("t", 0, Batch(-1, -1, -1, 1), -1, answers.back().get());
  ASSERT_TRUE(WaitHeld(1));
  for (int round = 0; round < 3; ++round) {
    for (int32_t p = 0; p < 8; ++p) {
      answers.push_back(std::make_unique<Answer>());
      SendProduce("t", p, Batch(-1, -1, -1, 1), -1, answers.back().get());
    }
  }
  for (const auto& a : answers) EXPECT_FALSE(a->called);
  faults_.HoldSyncs(false);
  ASSERT_TRUE(RunUntil([&] {
    return std::all_of(answers.begin(), answers.end(), [](const auto& a) { return a->called; });
  }));
  for (const auto& a : answers) EXPECT_EQ(Answered(*a).error_code, 0);
  EXPECT_EQ(Answered(*answers[1]).base_offset, 1);  // partition 0, after the first batch
  EXPECT_EQ(Answered(*answers[2]).base_offset, 0);  // partition 1
  EXPECT_EQ(broker_->sync_stats().rounds, 2);
  EXPECT_EQ(broker_->sync_stats().syncs, 1 + 8);
  EXPECT_EQ(broker_->sync_stats().synced_batches, 25);
  EXPECT_EQ(Fetch("t", 3).first, 3);
}

// Invariants 4 and 5: a failed sync answers every produce waiting on the partition with
// KAFKA_STORAGE_ERROR, shows none of their records, and cuts them off the log; the
// idempotent producer's retries then append (they are not mistaken for duplicates of
// batches that are gone), and a restart finds exactly the acknowledged batches.
TEST_F(GroupCommitTest, AFailedSyncAnswersStorageErrorsAndDiscardsTheBatches) {
  CreateTopic("t", 1);
  Answer first;
  SendProduce("t", 0, Batch(1000, 0, 0, 2), -1, &first);
  ASSERT_TRUE(RunUntil([&] { return first.called; }));
  ASSERT_EQ(Answered(first).error_code, 0);

  faults_.HoldSyncs(true);
  Answer a;
  SendProduce("t", 0, Batch(1000, 0, 2, 3), -1, &a);
  ASSERT_TRUE(WaitHeld(1));
  Answer b;  // the next round's
  SendProduce("t", 0, Batch(1000, 0, 5, 2), -1, &b);
  Answer dup;  // a retry of `a` while it waits: answered with `a`
  SendProduce("t", 0, Batch(1000, 0, 2, 3), -1, &dup);
  faults_.FailSyncs(true);
  faults_.HoldSyncs(false);
  ASSERT_TRUE(RunUntil([&] { return a.called && b.called && dup.called; }));
  for (const Answer* answer : {&a, &b, &dup}) {
    EXPECT_EQ(Answered(*answer).error_code, 56);  // KAFKA_STORAGE_ERROR
    EXPECT_EQ(Answered(*answer).base_offset, -1);
  }
  EXPECT_EQ(LogEnd("t"), 2);
  EXPECT_EQ(Fetch("t", 0).first, 2);
  EXPECT_GE(broker_->sync_stats().failures, 1);

  faults_.Clear();  // the disk works again: the producer's retries append from offset 2
  Answer retry_a;
  SendProduce("t", 0, Batch(1000, 0, 2, 3), -1, &retry_a);
  ASSERT_TRUE(RunUntil([&] { return retry_a.called; }));
  EXPECT_EQ(Answered(retry_a).error_code, 0);
  EXPECT_EQ(Answered(retry_a).base_offset, 2);
  Answer retry_b;
  SendProduce("t", 0, Batch(1000, 0, 5, 2), -1, &retry_b);
  ASSERT_TRUE(RunUntil([&] { return retry_b.called; }));
  EXPECT_EQ(Answered(retry_b).base_offset, 5);
  EXPECT_EQ(LogEnd("t"), 7);

  Reopen();
  EXPECT_EQ(LogEnd("t"), 7);
  Buffer all;
  ASSERT_TRUE(broker_->ReadLog("t", 0, 0, 1 << 20, &all).ok());
  size_t batches = 0;
  for (size_t pos = 0; pos < all.size(); ++batches) {
    Result<BatchHeader> h = ParseBatchHeader(all.span().subspan(pos));
    ASSERT_TRUE(h.ok());
    pos += h->total_bytes();
  }
  EXPECT_EQ(batches, 3u);
  // Producer state rebuilt from that log: the next sequence is 7.
  Answer next;
  SendProduce("t", 0, Batch(1000, 0, 7, 1), -1, &next);
  ASSERT_TRUE(RunUntil([&] { return next.called; }));
  EXPECT_EQ(Answered(next).base_offset, 7);
}

// A retry of a batch that is still waiting for its sync is answered with the original's
// offset, and only once that batch is synced.
TEST_F(GroupCommitTest, ARetryOfAnUnsyncedBatchWaitsForItsSync) {
  CreateTopic("t", 1);
  faults_.HoldSyncs(true);
  Answer original;
  SendProduce("t", 0, Batch(1000, 0, 0, 3), -1, &original);
  ASSERT_TRUE(WaitHeld(1));
  Answer retry;
  SendProduce("t", 0, Batch(1000, 0, 0, 3), -1, &retry);
  EXPECT_FALSE(retry.called);
  faults_.HoldSyncs(false);
  ASSERT_TRUE(RunUntil([&] { return original.called && retry.called; }));
  EXPECT_EQ(Answered(original).base_offset, 0);
  EXPECT_EQ(Answered(retry).base_offset, 0);
  EXPECT_EQ(LogEnd("t"), 3);
}

// Throttled table-topic produces are held for their throttle time after their sync.
TEST_F(GroupCommitTest, ThrottledResponsesAreHeldAfterTheSync) {
  options_.lag_throttle_bytes = 100;
  options_.max_throttle_ms = 500;
  Reopen();
  CreateTopicsRequest create;
  auto& ct = create.topics.emplace_back();
  ct.name = "tt";
  ct.num_partitions = 1;
  ct.replication_factor = 1;
  ct.configs.push_back({"floe.table.topic.enable", std::string("true")});
  ASSERT_EQ(Parse<CreateTopicsResponse>(*Send(create, 5), 5, true).topics.at(0).error_code, 0);
  Answer answer;
  SendProduce("tt", 0, Batch(-1, -1, -1, 5), -1, &answer);
  ASSERT_TRUE(RunUntil([&] { return LogEnd("tt") == 5; }));
  EXPECT_FALSE(answer.called);  // synced, now held
  now_ms_ += 500;
  broker_->Tick();
  ASSERT_TRUE(answer.called);
  correlation_ = answer.correlation;
  EXPECT_GT(Parse<ProduceResponse>(*answer.frame, 9, true).throttle_time_ms, 0);
}

// A roll into a new segment syncs the sealed one on the broker's thread: the produces
// waiting on it are answered then, before the worker's outcome is even applied.
TEST_F(GroupCommitTest, ARollAnswersTheProducesOfTheSealedSegment) {
  CreateTopicsRequest create;
  auto& ct = create.topics.emplace_back();
  ct.name = "t";
  ct.num_partitions = 1;
  ct.replication_factor = 1;
  ct.configs.push_back({"segment.bytes", std::string("1")});  // every append rolls
  ASSERT_EQ(Parse<CreateTopicsResponse>(*Send(create, 5), 5, true).topics.at(0).error_code, 0);
  Answer a;
  SendProduce("t", 0, Batch(-1, -1, -1, 2), -1, &a);
  EXPECT_FALSE(a.called);
  Answer b;
  SendProduce("t", 0, Batch(-1, -1, -1, 2), -1, &b);
  ASSERT_TRUE(a.called);  // nothing posted by the worker has run yet
  EXPECT_EQ(Answered(a).base_offset, 0);
  EXPECT_FALSE(b.called);
  EXPECT_EQ(LogEnd("t"), 2);
  ASSERT_TRUE(RunUntil([&] { return b.called; }));
  EXPECT_EQ(Answered(b).base_offset, 2);
  EXPECT_EQ(LogEnd("t"), 4);
}

// Deleting a topic answers the produces waiting on it; their late sync finds nothing.
TEST_F(GroupCommitTest, DeletingATopicAnswersItsWaitingProduces) {
  CreateTopic("t", 1);
  faults_.HoldSyncs(true);
  Answer answer;
  SendProduce("t", 0, Batch(-1, -1, -1, 1), -1, &answer);
  ASSERT_TRUE(WaitHeld(1));
  DeleteTopicsRequest del;
  del.topic_names.push_back("t");
  auto deleted = Parse<DeleteTopicsResponse>(*Send(del, 5), 5, true);
  EXPECT_EQ(deleted.responses.at(0).error_code, 0);
  ASSERT_TRUE(answer.called);
  EXPECT_EQ(Answered(answer).error_code, 3);  // UNKNOWN_TOPIC_OR_PARTITION
  faults_.HoldSyncs(false);
  ASSERT_TRUE(RunUntil([&] { return broker_->sync_stats().rounds == 1; }));
}

// Shutdown while a produce waits for its sync: the broker's destruction lets the worker
// finish the round and answers the produce; the batch is in the log after a restart.
TEST_F(GroupCommitTest, ShutdownFinishesTheSyncsUnderWay) {
  CreateTopic("t", 1);
  faults_.HoldSyncs(true);
  Answer answer;
  SendProduce("t", 0, Batch(-1, -1, -1, 3), -1, &answer);
  ASSERT_TRUE(WaitHeld(1));
  std::thread shutdown([this] { broker_.reset(); });
  faults_.HoldSyncs(false);
  shutdown.join();
  ASSERT_TRUE(answer.called);
  EXPECT_EQ(Answered(answer).error_code, 0);
  Reopen();
  EXPECT_EQ(LogEnd("t"), 3);
}

}  // namespace
}  // namespace floe::kafka
