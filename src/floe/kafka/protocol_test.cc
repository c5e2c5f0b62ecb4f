// Generated message codecs against byte sequences written out by hand from the protocol
// guide's encoding rules (kafka.md §1.4-1.5 and the per-API field tables).
#include <gtest/gtest.h>

#include <iterator>
#include <string>
#include <vector>

#include "floe/base/testing.h"
#include "floe/kafka/messages.h"
#include "floe/kafka/protocol.h"

namespace floe::kafka {
namespace {

std::vector<uint8_t> Bytes(std::initializer_list<int> v) {
  std::vector<uint8_t> out;
  for (int b : v) out.push_back(static_cast<uint8_t>(b));
  return out;
}

std::vector<uint8_t> ToVector(const Buffer& b) { return {b.data(), b.data() + b.size()}; }

TEST(KafkaProtocolTest, ApiVersionsV3RequestIsCompactWithTags) {
  // compact string "floe" (len+1 = 5), compact string "1.0" (4), empty tag section.
  auto wire = Bytes({5, 'f', 'l', 'o', 'e', 4, '1', '.', '0', 0});
  KafkaReader r(wire, true);
  ApiVersionsRequest req;
  FLOE_ASSERT_OK(req.Read(r, 3));
  EXPECT_EQ(req.client_software_name, "floe");
  EXPECT_EQ(req.client_software_version, "1.0");
  EXPECT_EQ(r.remaining(), 0u);

  Buffer out;
  KafkaWriter w(&out, true);
  req.Write(w, 3);
  EXPECT_EQ(ToVector(out), wire);
}

TEST(KafkaProtocolTest, ApiVersionsResponseV0HasNoThrottleTime) {
  ApiVersionsResponse resp;
  resp.error_code = 35;
  resp.api_keys.push_back({18, 0, 4});
  Buffer out;
  KafkaWriter w(&out, false);
  resp.Write(w, 0);
  // int16 error, int32 count 1, {int16 18, int16 0, int16 4}
  EXPECT_EQ(ToVector(out), Bytes({0, 35, 0, 0, 0, 1, 0, 18, 0, 0, 0, 4}));
}

TEST(KafkaProtocolTest, MetadataV1NullTopicsMeansAll) {
  auto wire = Bytes({0xff, 0xff, 0xff, 0xff});
  KafkaReader r(wire, false);
  MetadataRequest req;
  FLOE_ASSERT_OK(req.Read(r, 1));
  EXPECT_FALSE(req.topics.has_value());
  EXPECT_TRUE(req.allow_auto_topic_creation);  // default, absent before v4
}

TEST(KafkaProtocolTest, MetadataV0RejectsNullTopics) {
  auto wire = Bytes({0xff, 0xff, 0xff, 0xff});
  KafkaReader r(wire, false);
  MetadataRequest req;
  EXPECT_FALSE(req.Read(r, 0).ok());
}

TEST(KafkaProtocolTest, ProduceResponseV9Flexible) {
  ProduceResponse resp;
  auto& t = resp.responses.emplace_back();
  t.name = "t";
  auto& p = t.partition_responses.emplace_back();
  p.index = 0;
  p.base_offset = 7;
  p.log_start_offset = 0;
  Buffer out;
  KafkaWriter w(&out, true);
  resp.Write(w, 9);
  auto expected = Bytes({
      2,                                               // compact array, 1 topic
      2,    't',                                       // compact string "t"
      2,                                               // 1 partition
      0,    0,    0,    0,                             // index
      0,    0,                                         // error
      0,    0,    0,    0,    0,    0,    0,    7,     // base offset
      0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,  // log append time -1
      0,    0,    0,    0,    0,    0,    0,    0,     // log start offset
      1,                                               // record errors: empty compact array
      0,                                               // error message: null
      0,                                               // partition tags
      0,                                               // topic tags
      0,    0,    0,    0,  // throttle time, after the responses in Produce
      0,                    // top-level tags
  });
  EXPECT_EQ(ToVector(out), expected);
}

TEST(KafkaProtocolTest, FetchRequestV12ReadsTaggedClusterId) {
  ProduceRequest unused;
  (void)unused;
  FetchRequest req;
  req.cluster_id = "c1";
  req.max_wait_ms = 500;
  req.min_bytes = 1;
  auto& t = req.topics.emplace_back();
  t.topic = "x";
  auto& p = t.partitions.emplace_back();
  p.partition = 3;
  p.fetch_offset = 42;
  p.partition_max_bytes = 1 << 20;
  Buffer out;
  KafkaWriter w(&out, true);
  req.Write(w, 12);
  // The body ends with the top-level tag section: 1 tag, tag 0, 3 bytes: compact "c1".
  std::vector<uint8_t> bytes = ToVector(out);
  ASSERT_GE(bytes.size(), 6u);
  EXPECT_EQ(std::vector<uint8_t>(bytes.end() - 6, bytes.end()), Bytes({1, 0, 3, 3, 'c', '1'}));
  KafkaReader r(bytes, true);
  FetchRequest back;
  FLOE_ASSERT_OK(back.Read(r, 12));
  EXPECT_EQ(back.cluster_id, "c1");
  ASSERT_EQ(back.topics.size(), 1u);
  EXPECT_EQ(back.topics[0].partitions[0].fetch_offset, 42);
  EXPECT_EQ(back.topics[0].partitions[0].partition, 3);
}

TEST(KafkaProtocolTest, UnknownTagsAreSkipped) {
  // Heartbeat v4: compact "g", int32 gen 1, compact "m", null instance id, tags: one
  // unknown tag 9 with 2 bytes.
  auto wire = Bytes({2, 'g', 0, 0, 0, 1, 2, 'm', 0, 1, 9, 2, 0xaa, 0xbb});
  KafkaReader r(wire, true);
  HeartbeatRequest req;
  FLOE_ASSERT_OK(req.Read(r, 4));
  EXPECT_EQ(req.group_id, "g");
  EXPECT_EQ(req.generation_id, 1);
  EXPECT_FALSE(req.group_instance_id.has_value());
  EXPECT_EQ(r.remaining(), 0u);
}

TEST(KafkaProtocolTest, HugeArrayCountIsRejectedBeforeAllocating) {
  // CreateTopics v2: topics count 0x7fffffff with no bytes behind it.
  auto wire = Bytes({0x7f, 0xff, 0xff, 0xff});
  KafkaReader r(wire, false);
  CreateTopicsRequest req;
  Status s = req.Read(r, 2);
  EXPECT_TRUE(s.IsCorrupt()) << s.ToString();
}

TEST(KafkaProtocolTest, TruncatedStringIsCorrupt) {
  auto wire = Bytes({0, 10, 'a', 'b'});
  KafkaReader r(wire, false);
  EXPECT_TRUE(r.String().error().IsCorrupt());
}

TEST(KafkaProtocolTest, UuidBase64IsKafkasForm) {
  Uuid id;
  for (int i = 0; i < 16; ++i) id.bytes[static_cast<size_t>(i)] = static_cast<uint8_t>(i);
  // base64url of 00 01 02 ... 0f without padding.
  EXPECT_EQ(id.ToBase64(), "AAECAwQFBgcICQoLDA0ODw");
}

// Every StatusCode's Kafka error code, the numbers as kafka.md §3 lists them (Kafka's
// Errors.java): the client's bad batches are its own (CORRUPT_MESSAGE, INVALID_RECORD,
// UNSUPPORTED_COMPRESSION_TYPE), the broker's disk is KAFKA_STORAGE_ERROR (retriable), the
// rest UNKNOWN_SERVER_ERROR.
TEST(KafkaProtocolTest, EveryStatusCodeHasItsErrorCode) {
  struct Case {
    StatusCode code;
    int16_t kafka;
  };
  const Case cases[] = {
      {StatusCode::kOk, 0},                   // NONE
      {StatusCode::kInvalidArgument, 87},     // INVALID_RECORD
      {StatusCode::kNotFound, 56},            // KAFKA_STORAGE_ERROR
      {StatusCode::kAlreadyExists, 56},       // KAFKA_STORAGE_ERROR
      {StatusCode::kFailedPrecondition, -1},  // UNKNOWN_SERVER_ERROR
      {StatusCode::kConflict, -1},            // UNKNOWN_SERVER_ERROR
      {StatusCode::kUnavailable, -1},         // UNKNOWN_SERVER_ERROR
      {StatusCode::kDeadlineExceeded, -1},    // UNKNOWN_SERVER_ERROR
      {StatusCode::kUnauthenticated, -1},     // UNKNOWN_SERVER_ERROR
      {StatusCode::kPermissionDenied, 56},    // KAFKA_STORAGE_ERROR
      {StatusCode::kCorrupt, 2},              // CORRUPT_MESSAGE
      {StatusCode::kUnimplemented, 76},       // UNSUPPORTED_COMPRESSION_TYPE
      {StatusCode::kIOError, 56},             // KAFKA_STORAGE_ERROR
      {StatusCode::kResourceExhausted, 56},   // KAFKA_STORAGE_ERROR
      {StatusCode::kInternal, -1},            // UNKNOWN_SERVER_ERROR
  };
  ASSERT_EQ(std::size(cases), std::size(kAllStatusCodes));
  for (size_t i = 0; i < std::size(cases); ++i) {
    ASSERT_EQ(cases[i].code, kAllStatusCodes[i]);
    EXPECT_EQ(Code(ErrorCodeFor(cases[i].code)), cases[i].kafka) << StatusCodeName(cases[i].code);
    EXPECT_EQ(Code(ErrorCodeFor(Status(cases[i].code, "what happened"))), cases[i].kafka);
  }
}

}  // namespace
}  // namespace floe::kafka
