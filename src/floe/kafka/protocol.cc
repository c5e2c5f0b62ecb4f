#include "floe/kafka/protocol.h"

#include "floe/base/macros.h"

namespace floe::kafka {

bool Uuid::IsZero() const {
  for (uint8_t b : bytes) {
    if (b != 0) return false;
  }
  return true;
}

std::string Uuid::ToBase64() const {
  static constexpr char kAlphabet[] =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
  std::string out;
  size_t i = 0;
  for (; i + 3 <= bytes.size(); i += 3) {
    uint32_t v = (uint32_t{bytes[i]} << 16) | (uint32_t{bytes[i + 1]} << 8) | bytes[i + 2];
    for (int s = 18; s >= 0; s -= 6) out.push_back(kAlphabet[(v >> s) & 63]);
  }
  // 16 = 5 * 3 + 1: one byte left, two characters.
  uint32_t v = uint32_t{bytes[i]} << 16;
  out.push_back(kAlphabet[(v >> 18) & 63]);
  out.push_back(kAlphabet[(v >> 12) & 63]);
  return out;
}

Result<int8_t> KafkaReader::Int8() {
  FLOE_ASSIGN_OR_RETURN(uint8_t v, r_.ReadByte());
  return static_cast<int8_t>(v);
}
Result<int16_t> KafkaReader::Int16() {
  FLOE_ASSIGN_OR_RETURN(uint16_t v, r_.ReadBE<uint16_t>());
  return static_cast<int16_t>(v);
}
Result<int32_t> KafkaReader::Int32() {
  FLOE_ASSIGN_OR_RETURN(uint32_t v, r_.ReadBE<uint32_t>());
  return static_cast<int32_t>(v);
}
Result<int64_t> KafkaReader::Int64() {
  FLOE_ASSIGN_OR_RETURN(uint64_t v, r_.ReadBE<uint64_t>());
  return static_cast<int64_t>(v);
}
Result<bool> KafkaReader::Bool() {
  FLOE_ASSIGN_OR_RETURN(uint8_t v, r_.ReadByte());
  return v != 0;
}
Result<Uuid> KafkaReader::ReadUuid() {
  FLOE_ASSIGN_OR_RETURN(std::span<const uint8_t> b, r_.Take(16));
  Uuid id;
  std::copy(b.begin(), b.end(), id.bytes.begin());
  return id;
}

Result<int64_t> KafkaReader::Length(bool wide) {
  if (flexible_) {
    FLOE_ASSIGN_OR_RETURN(uint32_t v, r_.ReadVarint32());
    return static_cast<int64_t>(v) - 1;
  }
  if (wide) {
    FLOE_ASSIGN_OR_RETURN(int32_t v, Int32());
    return v;
  }
  FLOE_ASSIGN_OR_RETURN(int16_t v, Int16());
  return v;
}

Status KafkaReader::NullError(std::string_view field) const {
  return Status::Corrupt("null {} where the version does not allow null", field);
}

Result<std::string> KafkaReader::String() {
  FLOE_ASSIGN_OR_RETURN(int64_t n, Length(false));
  if (n < -1) return Status::Corrupt("negative string length {}", n);
  if (n == -1) return NullError("string");
  FLOE_ASSIGN_OR_RETURN(std::span<const uint8_t> b, r_.Take(static_cast<size_t>(n)));
  return std::string(reinterpret_cast<const char*>(b.data()), b.size());
}

Result<std::optional<std::string>> KafkaReader::NullableString(bool nullable) {
  FLOE_ASSIGN_OR_RETURN(int64_t n, Length(false));
  if (n < -1) return Status::Corrupt("negative string length {}", n);
  if (n == -1) {
    if (!nullable) return NullError("string");
    return std::optional<std::string>();
  }
  FLOE_ASSIGN_OR_RETURN(std::span<const uint8_t> b, r_.Take(static_cast<size_t>(n)));
  return std::optional<std::string>(std::string(reinterpret_cast<const char*>(b.data()), b.size()));
}

Result<std::string> KafkaReader::ClassicNullableString() {
  FLOE_ASSIGN_OR_RETURN(int16_t n, Int16());
  if (n < -1) return Status::Corrupt("negative client id length {}", n);
  if (n == -1) return std::string();
  FLOE_ASSIGN_OR_RETURN(std::span<const uint8_t> b, r_.Take(static_cast<size_t>(n)));
  return std::string(reinterpret_cast<const char*>(b.data()), b.size());
}

Result<std::span<const uint8_t>> KafkaReader::Bytes() {
  FLOE_ASSIGN_OR_RETURN(auto b, NullableBytes(false));
  return *b;
}

Result<std::optional<std::span<const uint8_t>>> KafkaReader::NullableBytes(bool nullable) {
  FLOE_ASSIGN_OR_RETURN(int64_t n, Length(true));
  if (n < -1) return Status::Corrupt("negative bytes length {}", n);
  if (n == -1) {
    if (!nullable) return NullError("bytes");
    return std::optional<std::span<const uint8_t>>();
  }
  FLOE_ASSIGN_OR_RETURN(std::span<const uint8_t> b, r_.Take(static_cast<size_t>(n)));
  return std::optional<std::span<const uint8_t>>(b);
}

Result<int32_t> KafkaReader::ArrayLength() {
  FLOE_ASSIGN_OR_RETURN(int64_t n, Length(true));
  if (n < -1) return Status::Corrupt("negative array length {}", n);
  if (n > static_cast<int64_t>(r_.remaining())) {
    return Status::Corrupt("array of {} elements in {} bytes", n, r_.remaining());
  }
  return static_cast<int32_t>(n);
}

Result<std::span<const uint8_t>> KafkaReader::TaggedPayload() {
  FLOE_ASSIGN_OR_RETURN(uint32_t size, r_.ReadVarint32());
  return r_.Take(size);
}

Status KafkaReader::SkipTags() {
  FLOE_ASSIGN_OR_RETURN(uint32_t n, r_.ReadVarint32());
  for (uint32_t i = 0; i < n; ++i) {
    FLOE_RETURN_IF_ERROR(r_.ReadVarint32());
    FLOE_RETURN_IF_ERROR(TaggedPayload());
  }
  return Status::OK();
}

void KafkaWriter::UVarint(uint32_t v) {
  uint8_t tmp[10];
  out_->Append(tmp, EncodeVarint64(v, tmp));
}

void KafkaWriter::Length(int64_t n, bool wide) {
  if (flexible_) {
    UVarint(static_cast<uint32_t>(n + 1));
  } else if (wide) {
    Int32(static_cast<int32_t>(n));
  } else {
    Int16(static_cast<int16_t>(n));
  }
}

void KafkaWriter::String(std::string_view s) {
  Length(static_cast<int64_t>(s.size()), false);
  out_->Append(s);
}

void KafkaWriter::NullableString(const std::optional<std::string>& s, bool nullable) {
  if (!s.has_value()) {
    if (nullable) {
      Length(-1, false);
    } else {
      String("");
    }
    return;
  }
  String(*s);
}

void KafkaWriter::ClassicNullableString(const std::optional<std::string>& s) {
  if (!s.has_value()) {
    Int16(-1);
    return;
  }
  Int16(static_cast<int16_t>(s->size()));
  out_->Append(*s);
}

void KafkaWriter::Bytes(std::span<const uint8_t> b) {
  Length(static_cast<int64_t>(b.size()), true);
  out_->Append(b);
}

void KafkaWriter::NullableBytes(const std::optional<std::span<const uint8_t>>& b, bool nullable) {
  if (!b.has_value()) {
    if (nullable) {
      Length(-1, true);
    } else {
      Length(0, true);
    }
    return;
  }
  Bytes(*b);
}

void KafkaWriter::ArrayLength(size_t n) { Length(static_cast<int64_t>(n), true); }
void KafkaWriter::NullArray() { Length(-1, true); }

ErrorCode ErrorCodeFor(StatusCode code) {
  switch (code) {
    case StatusCode::kOk: return ErrorCode::kNone;
    // A batch that breaks a rule of the format: a bad count, a record that does not parse.
    case StatusCode::kInvalidArgument: return ErrorCode::kInvalidRecord;
    // A CRC mismatch, a batch cut short, compressed bytes that do not inflate.
    case StatusCode::kCorrupt: return ErrorCode::kCorruptMessage;
    // What the data path does not implement is a compression codec.
    case StatusCode::kUnimplemented: return ErrorCode::kUnsupportedCompressionType;
    // The broker's own files failed: a missing, unreadable or existing file (errno ENOENT,
    // EACCES, EEXIST) is a storage failure as much as EIO or a full disk. Retriable: the
    // client retries and succeeds once the disk is back (docs/server.md, full disks).
    case StatusCode::kNotFound:
    case StatusCode::kAlreadyExists:
    case StatusCode::kPermissionDenied:
    case StatusCode::kIOError:
    case StatusCode::kResourceExhausted: return ErrorCode::kKafkaStorageError;
    // Nothing below the broker fails with these; if something does, it is unexpected.
    case StatusCode::kFailedPrecondition:
    case StatusCode::kConflict:
    case StatusCode::kUnavailable:
    case StatusCode::kDeadlineExceeded:
    case StatusCode::kUnauthenticated:
    case StatusCode::kInternal: return ErrorCode::kUnknownServerError;
  }
  return ErrorCode::kUnknownServerError;
}

}  // namespace floe::kafka
