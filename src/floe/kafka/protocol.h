// Kafka wire primitives (shared reference kafka.md §1): big-endian integers, classic and
// compact strings/bytes/arrays, unsigned varints, tagged-field sections, the request header
// (v1, v2) and the response header (v0, v1). The generated messages (messages.h) are written
// in terms of KafkaReader and KafkaWriter.
//
// Bytes read from a socket are untrusted: every read is bounds-checked, array counts are
// checked against the bytes left before anything is allocated, and failures are kCorrupt.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "floe/base/buffer.h"
#include "floe/base/bytes.h"
#include "floe/base/status.h"

namespace floe::kafka {

// A topic id (KIP-516): 16 bytes, all zero meaning "none".
struct Uuid {
  std::array<uint8_t, 16> bytes{};
  bool IsZero() const;
  bool operator==(const Uuid&) const = default;
  // 22-character URL-safe base64 without padding, as Kafka prints ids.
  std::string ToBase64() const;
};

class KafkaReader {
 public:
  // `flexible`: whether the message version uses compact encodings and tag sections.
  KafkaReader(std::span<const uint8_t> bytes, bool flexible) : r_(bytes), flexible_(flexible) {}

  bool flexible() const { return flexible_; }
  size_t remaining() const { return r_.remaining(); }
  const uint8_t* position() const { return r_.position(); }

  Result<int8_t> Int8();
  Result<int16_t> Int16();
  Result<int32_t> Int32();
  Result<int64_t> Int64();
  Result<bool> Bool();
  Result<Uuid> ReadUuid();
  Result<uint32_t> UVarint() { return r_.ReadVarint32(); }

  // A non-nullable string; null on the wire is kCorrupt.
  Result<std::string> String();
  // `nullable`: whether null is legal in this version (else kCorrupt).
  Result<std::optional<std::string>> NullableString(bool nullable);
  // The request header's client id: always classic int16-length, null read as "".
  Result<std::string> ClassicNullableString();
  // Views into the input; valid while the input is.
  Result<std::span<const uint8_t>> Bytes();
  Result<std::optional<std::span<const uint8_t>>> NullableBytes(bool nullable);
  // An array's element count, -1 for null. A count larger than the bytes left (every
  // element takes at least one byte) is kCorrupt, so callers may allocate `count` elements.
  Result<int32_t> ArrayLength();
  // A tagged field's payload (after its tag): the size varint and that many bytes.
  Result<std::span<const uint8_t>> TaggedPayload();
  // Skips a whole tag section (count, then tag/size/payload triples).
  Status SkipTags();

  Status NullError(std::string_view field) const;

 private:
  // The length of a string/bytes: classic int16/int32, or compact varint-1; -1 = null.
  Result<int64_t> Length(bool wide);

  ByteReader r_;
  bool flexible_;
};

class KafkaWriter {
 public:
  KafkaWriter(Buffer* out, bool flexible) : out_(out), flexible_(flexible) {}

  bool flexible() const { return flexible_; }

  void Int8(int8_t v) { out_->PushBack(static_cast<uint8_t>(v)); }
  void Int16(int16_t v) { Big(static_cast<uint16_t>(v)); }
  void Int32(int32_t v) { Big(static_cast<uint32_t>(v)); }
  void Int64(int64_t v) { Big(static_cast<uint64_t>(v)); }
  void Bool(bool v) { out_->PushBack(v ? 1 : 0); }
  void WriteUuid(const Uuid& v) { out_->Append(v.bytes.data(), v.bytes.size()); }
  void UVarint(uint32_t v);

  void String(std::string_view s);
  // Null is written as null when `nullable` (this version allows it), else as "".
  void NullableString(const std::optional<std::string>& s, bool nullable);
  void ClassicNullableString(const std::optional<std::string>& s);
  void Bytes(std::span<const uint8_t> b);
  void NullableBytes(const std::optional<std::span<const uint8_t>>& b, bool nullable);
  void ArrayLength(size_t n);
  void NullArray();
  void Raw(std::span<const uint8_t> b) { out_->Append(b); }

 private:
  template <typename T>
  void Big(T v) {
    uint8_t* p = out_->AppendUninitialized(sizeof(T));
    StoreBE<T>(p, v);
  }
  void Length(int64_t n, bool wide);

  Buffer* out_;
  bool flexible_;
};

// The fields of a request header floe uses (kafka.md §1.2).
struct RequestHeader {
  int16_t api_key = 0;
  int16_t api_version = 0;
  int32_t correlation_id = 0;
  std::string client_id;
};

// The ApiVersions API key: its responses always use response header v0 (KIP-511).
inline constexpr int16_t kApiVersionsKey = 18;

// A whole response frame body: the response header for `h` (v1, with its tagged fields,
// when the response version is flexible; v0 for ApiVersions and non-flexible versions)
// and `resp` written at h.api_version. `Resp` is a generated response struct.
template <typename Resp>
Buffer EncodeResponse(const RequestHeader& h, const Resp& resp) {
  Buffer out;
  KafkaWriter header(&out, false);
  header.Int32(h.correlation_id);
  const bool flexible = Resp::IsFlexible(h.api_version);
  if (flexible && Resp::kApiKey != kApiVersionsKey) header.UVarint(0);
  KafkaWriter body(&out, flexible);
  resp.Write(body, h.api_version);
  return out;
}

// Error codes floe returns (kafka.md §3).
enum class ErrorCode : int16_t {
  kUnknownServerError = -1,
  kNone = 0,
  kOffsetOutOfRange = 1,
  kCorruptMessage = 2,
  kUnknownTopicOrPartition = 3,
  kLeaderNotAvailable = 5,
  kRequestTimedOut = 7,
  kMessageTooLarge = 10,
  kOffsetMetadataTooLarge = 12,
  kCoordinatorNotAvailable = 15,
  kInvalidTopicException = 17,
  kTopicAuthorizationFailed = 29,
  kGroupAuthorizationFailed = 30,
  kClusterAuthorizationFailed = 31,
  kUnsupportedSaslMechanism = 33,
  kIllegalSaslState = 34,
  kInvalidRequiredAcks = 21,
  kIllegalGeneration = 22,
  kInconsistentGroupProtocol = 23,
  kInvalidGroupId = 24,
  kUnknownMemberId = 25,
  kInvalidSessionTimeout = 26,
  kRebalanceInProgress = 27,
  kUnsupportedVersion = 35,
  kTopicAlreadyExists = 36,
  kInvalidPartitions = 37,
  kInvalidReplicationFactor = 38,
  kInvalidReplicaAssignment = 39,
  kInvalidConfig = 40,
  kInvalidRequest = 42,
  kOutOfOrderSequenceNumber = 45,
  kInvalidProducerEpoch = 47,
  kTransactionalIdAuthorizationFailed = 53,
  kKafkaStorageError = 56,
  kSaslAuthenticationFailed = 58,
  kGroupIdNotFound = 69,
  kFetchSessionIdNotFound = 70,
  kFencedLeaderEpoch = 74,
  kUnknownLeaderEpoch = 75,
  kUnsupportedCompressionType = 76,
  kMemberIdRequired = 79,
  kInvalidRecord = 87,
  kUnknownTopicId = 100,
};

inline int16_t Code(ErrorCode e) { return static_cast<int16_t>(e); }

// The Kafka error code of every StatusCode (kafka.md §3), for a Status the broker's storage
// (topic files, logs, offsets, producer ids) or its checks of a produced batch return. The
// broker answers unknown topics, existing topics and refused principals from its own state,
// with their own codes; a Status reaching this table comes from below. kOk is kNone.
ErrorCode ErrorCodeFor(StatusCode code);
inline ErrorCode ErrorCodeFor(const Status& status) { return ErrorCodeFor(status.code()); }

}  // namespace floe::kafka
