#include "floe/kafka/record_batch.h"

#include <cstring>

#include "floe/base/bytes.h"
#include "floe/base/crc.h"
#include "floe/base/macros.h"
#include "floe/format/compression/codec.h"

namespace floe::kafka {
namespace {

constexpr uint8_t kXerialMagic[8] = {0x82, 'S', 'N', 'A', 'P', 'P', 'Y', 0};
// snappy-java's default block size; kafka-python uses 32 KiB, any size is valid to read.
constexpr size_t kXerialBlockBytes = 32 * 1024;
// Attributes start at byte 21; the CRC covers [21, end).
constexpr size_t kCrcStart = 21;

Result<format::CompressionKind> KindFor(BatchCodec codec) {
  switch (codec) {
    case BatchCodec::kGzip: return format::CompressionKind::kGzip;
    case BatchCodec::kSnappy: return format::CompressionKind::kSnappy;
    case BatchCodec::kLz4: return format::CompressionKind::kLz4Frame;
    case BatchCodec::kZstd: return format::CompressionKind::kZstd;
    case BatchCodec::kNone: break;
  }
  return Status::InvalidArgument("no compression kind for codec {}", static_cast<int>(codec));
}

void PutVarint(Buffer* out, int64_t v) {
  uint8_t tmp[10];
  out->Append(tmp, EncodeVarint64(ZigZagEncode64(v), tmp));
}

Result<std::optional<std::span<const uint8_t>>> ReadVarBytes(ByteReader& r) {
  FLOE_ASSIGN_OR_RETURN(int32_t n, r.ReadZigZag32());
  if (n < -1) return Status::Corrupt("record field length {}", n);
  if (n == -1) return std::optional<std::span<const uint8_t>>();
  FLOE_ASSIGN_OR_RETURN(std::span<const uint8_t> b, r.Take(static_cast<size_t>(n)));
  return std::optional<std::span<const uint8_t>>(b);
}

}  // namespace

int32_t BatchHeader::last_sequence() const {
  if (base_sequence < 0) return -1;
  int64_t s = int64_t{base_sequence} + last_offset_delta;
  return static_cast<int32_t>(s > INT32_MAX ? s - INT32_MAX - 1 : s);
}

Result<BatchHeader> ParseBatchHeader(std::span<const uint8_t> bytes) {
  if (bytes.size() < kBatchHeaderBytes) {
    return Status::Corrupt("record batch of {} bytes is shorter than its header", bytes.size());
  }
  const uint8_t* p = bytes.data();
  BatchHeader h;
  h.base_offset = static_cast<int64_t>(LoadBE<uint64_t>(p));
  h.batch_length = static_cast<int32_t>(LoadBE<uint32_t>(p + 8));
  h.partition_leader_epoch = static_cast<int32_t>(LoadBE<uint32_t>(p + 12));
  h.magic = static_cast<int8_t>(p[16]);
  h.crc = LoadBE<uint32_t>(p + 17);
  h.attributes = static_cast<int16_t>(LoadBE<uint16_t>(p + 21));
  h.last_offset_delta = static_cast<int32_t>(LoadBE<uint32_t>(p + 23));
  h.base_timestamp = static_cast<int64_t>(LoadBE<uint64_t>(p + 27));
  h.max_timestamp = static_cast<int64_t>(LoadBE<uint64_t>(p + 35));
  h.producer_id = static_cast<int64_t>(LoadBE<uint64_t>(p + 43));
  h.producer_epoch = static_cast<int16_t>(LoadBE<uint16_t>(p + 51));
  h.base_sequence = static_cast<int32_t>(LoadBE<uint32_t>(p + 53));
  h.records_count = static_cast<int32_t>(LoadBE<uint32_t>(p + 57));
  if (h.magic != 2) return Status::InvalidArgument("record batch magic {} (only 2)", h.magic);
  if (h.batch_length < static_cast<int32_t>(kBatchHeaderBytes - kLogOverheadBytes)) {
    return Status::Corrupt("record batch length {} below the header size", h.batch_length);
  }
  return h;
}

Result<BatchHeader> ValidateBatch(std::span<const uint8_t> batch) {
  FLOE_ASSIGN_OR_RETURN(BatchHeader h, ParseBatchHeader(batch));
  if (h.total_bytes() != batch.size()) {
    return Status::Corrupt("record batch says {} bytes, {} present", h.total_bytes(), batch.size());
  }
  uint32_t crc = Crc32c(0, batch.data() + kCrcStart, batch.size() - kCrcStart);
  if (crc != h.crc) {
    return Status::Corrupt("record batch CRC-32C {:08x}, computed {:08x}", h.crc, crc);
  }
  if ((h.attributes & 7) > 4) {
    return Status::Unimplemented("compression codec {}", h.attributes & 7);
  }
  if (h.records_count <= 0 || h.last_offset_delta != h.records_count - 1) {
    return Status::InvalidArgument("record batch count {} with last offset delta {}",
                                   h.records_count, h.last_offset_delta);
  }
  return h;
}

void SetBatchOffsetAndEpoch(std::span<uint8_t> batch, int64_t base_offset, int32_t leader_epoch) {
  StoreBE<uint64_t>(batch.data(), static_cast<uint64_t>(base_offset));
  StoreBE<uint32_t>(batch.data() + 12, static_cast<uint32_t>(leader_epoch));
}

bool IsXerialSnappy(std::span<const uint8_t> in) {
  return in.size() >= 16 && std::memcmp(in.data(), kXerialMagic, 8) == 0;
}

Status XerialSnappyDecompress(std::span<const uint8_t> in, Buffer* out, size_t max_size) {
  FLOE_ASSIGN_OR_RETURN(auto codec, format::Codec::Make(format::CompressionKind::kSnappy));
  ByteReader r(in.subspan(16));  // magic, version, compatible version
  const size_t base = out->size();
  while (!r.empty()) {
    FLOE_ASSIGN_OR_RETURN(uint32_t n, r.ReadBE<uint32_t>());
    FLOE_ASSIGN_OR_RETURN(std::span<const uint8_t> block, r.Take(n));
    size_t produced = out->size() - base;
    FLOE_RETURN_IF_ERROR(codec->DecompressUnknownSize(block, out, max_size - produced));
  }
  return Status::OK();
}

Status XerialSnappyCompress(std::span<const uint8_t> in, Buffer* out) {
  FLOE_ASSIGN_OR_RETURN(auto codec, format::Codec::Make(format::CompressionKind::kSnappy));
  out->Append(kXerialMagic, sizeof(kXerialMagic));
  uint8_t ver[8];
  StoreBE<uint32_t>(ver, 1);
  StoreBE<uint32_t>(ver + 4, 1);
  out->Append(ver, sizeof(ver));
  for (size_t pos = 0; pos < in.size(); pos += kXerialBlockBytes) {
    size_t n = std::min(kXerialBlockBytes, in.size() - pos);
    size_t len_at = out->size();
    out->AppendUninitialized(4);
    FLOE_RETURN_IF_ERROR(codec->Compress(in.subspan(pos, n), out));
    StoreBE<uint32_t>(out->data() + len_at, static_cast<uint32_t>(out->size() - len_at - 4));
  }
  return Status::OK();
}

namespace {

// The records of a batch, inflated into `scratch` when compressed.
Result<std::span<const uint8_t>> RecordsBody(std::span<const uint8_t> batch, const BatchHeader& h,
                                             size_t max_uncompressed_bytes, Buffer* scratch) {
  if (h.total_bytes() > batch.size()) return Status::Corrupt("record batch cut short");
  std::span<const uint8_t> body =
      batch.subspan(kBatchHeaderBytes, h.total_bytes() - kBatchHeaderBytes);
  if (h.codec() == BatchCodec::kNone) return body;
  scratch->Clear();
  if (h.codec() == BatchCodec::kSnappy && IsXerialSnappy(body)) {
    FLOE_RETURN_IF_ERROR(XerialSnappyDecompress(body, scratch, max_uncompressed_bytes));
  } else {
    FLOE_ASSIGN_OR_RETURN(format::CompressionKind kind, KindFor(h.codec()));
    FLOE_ASSIGN_OR_RETURN(auto codec, format::Codec::Make(kind));
    FLOE_RETURN_IF_ERROR(codec->DecompressUnknownSize(body, scratch, max_uncompressed_bytes));
  }
  return scratch->span();
}

Status SkipVarBytes(ByteReader& r) {
  FLOE_ASSIGN_OR_RETURN(int32_t n, r.ReadZigZag32());
  if (n < -1) return Status::Corrupt("record field length {}", n);
  if (n > 0) FLOE_RETURN_IF_ERROR(r.Take(static_cast<size_t>(n)).status());
  return Status::OK();
}

}  // namespace

Status ValidateRecords(std::span<const uint8_t> batch, const BatchHeader& h,
                       size_t max_uncompressed_bytes, Buffer* scratch,
                       std::vector<RecordView>* views) {
  if (views != nullptr) views->clear();
  FLOE_ASSIGN_OR_RETURN(std::span<const uint8_t> body,
                        RecordsBody(batch, h, max_uncompressed_bytes, scratch));
  ByteReader r(body);
  for (int32_t i = 0; i < h.records_count; ++i) {
    if (r.empty()) {
      return Status::InvalidArgument("record batch holds {} records, its header says {}", i,
                                     h.records_count);
    }
    FLOE_ASSIGN_OR_RETURN(int32_t length, r.ReadZigZag32());
    if (length < 0) return Status::Corrupt("record length {}", length);
    FLOE_ASSIGN_OR_RETURN(std::span<const uint8_t> bytes, r.Take(static_cast<size_t>(length)));
    ByteReader rr(bytes);
    FLOE_RETURN_IF_ERROR(rr.ReadByte().status());      // attributes
    FLOE_RETURN_IF_ERROR(rr.ReadZigZag64().status());  // timestamp delta
    FLOE_ASSIGN_OR_RETURN(int32_t offset_delta, rr.ReadZigZag32());
    if (offset_delta != i) {
      return Status::InvalidArgument("record {} of the batch has offset delta {}", i, offset_delta);
    }
    if (views != nullptr) {
      RecordView& view = views->emplace_back();
      FLOE_ASSIGN_OR_RETURN(view.key, ReadVarBytes(rr));
      FLOE_ASSIGN_OR_RETURN(view.value, ReadVarBytes(rr));
    } else {
      FLOE_RETURN_IF_ERROR(SkipVarBytes(rr));  // key
      FLOE_RETURN_IF_ERROR(SkipVarBytes(rr));  // value
    }
    FLOE_ASSIGN_OR_RETURN(int32_t header_count, rr.ReadZigZag32());
    if (header_count < 0 || static_cast<size_t>(header_count) > rr.remaining()) {
      return Status::Corrupt("record header count {}", header_count);
    }
    for (int32_t j = 0; j < header_count; ++j) {
      FLOE_ASSIGN_OR_RETURN(int32_t key_length, rr.ReadZigZag32());
      if (key_length < 0) return Status::Corrupt("null or negative record header key length");
      FLOE_RETURN_IF_ERROR(rr.Take(static_cast<size_t>(key_length)).status());
      FLOE_RETURN_IF_ERROR(SkipVarBytes(rr));
    }
    if (!rr.empty()) return Status::Corrupt("{} bytes left over in record {}", rr.remaining(), i);
  }
  if (!r.empty()) {
    return Status::Corrupt("{} bytes after the batch's {} records", r.remaining(), h.records_count);
  }
  return Status::OK();
}

Status DecodeRecords(std::span<const uint8_t> batch, size_t max_uncompressed_bytes, Buffer* scratch,
                     const std::function<Status(const Record&)>& visit) {
  FLOE_ASSIGN_OR_RETURN(BatchHeader h, ParseBatchHeader(batch));
  FLOE_ASSIGN_OR_RETURN(std::span<const uint8_t> body,
                        RecordsBody(batch, h, max_uncompressed_bytes, scratch));
  ByteReader r(body);
  Record rec;
  for (int32_t i = 0; i < h.records_count; ++i) {
    FLOE_ASSIGN_OR_RETURN(int32_t length, r.ReadZigZag32());
    if (length < 0) return Status::Corrupt("record length {}", length);
    FLOE_ASSIGN_OR_RETURN(std::span<const uint8_t> bytes, r.Take(static_cast<size_t>(length)));
    ByteReader rr(bytes);
    FLOE_RETURN_IF_ERROR(rr.ReadByte());  // attributes, unused
    FLOE_ASSIGN_OR_RETURN(int64_t ts_delta, rr.ReadZigZag64());
    FLOE_ASSIGN_OR_RETURN(int32_t offset_delta, rr.ReadZigZag32());
    rec.timestamp = h.base_timestamp + ts_delta;
    rec.offset = h.base_offset + offset_delta;
    FLOE_ASSIGN_OR_RETURN(rec.key, ReadVarBytes(rr));
    FLOE_ASSIGN_OR_RETURN(rec.value, ReadVarBytes(rr));
    FLOE_ASSIGN_OR_RETURN(int32_t header_count, rr.ReadZigZag32());
    if (header_count < 0 || static_cast<size_t>(header_count) > rr.remaining()) {
      return Status::Corrupt("record header count {}", header_count);
    }
    rec.headers.clear();
    for (int32_t j = 0; j < header_count; ++j) {
      FLOE_ASSIGN_OR_RETURN(auto key, ReadVarBytes(rr));
      if (!key.has_value()) return Status::Corrupt("null record header key");
      FLOE_ASSIGN_OR_RETURN(auto value, ReadVarBytes(rr));
      RecordHeader& hdr = rec.headers.emplace_back();
      hdr.key.assign(reinterpret_cast<const char*>(key->data()), key->size());
      if (value.has_value()) {
        hdr.value.emplace(reinterpret_cast<const char*>(value->data()), value->size());
      }
    }
    if (!rr.empty()) return Status::Corrupt("{} bytes left over in a record", rr.remaining());
    FLOE_RETURN_IF_ERROR(visit(rec));
  }
  return Status::OK();
}

void BatchBuilder::Add(int64_t timestamp, std::optional<std::string_view> key,
                       std::optional<std::string_view> value,
                       const std::vector<RecordHeader>& headers) {
  if (count_ == 0) {
    base_timestamp_ = timestamp;
    max_timestamp_ = timestamp;
  }
  max_timestamp_ = std::max(max_timestamp_, timestamp);
  Buffer rec;
  rec.PushBack(0);
  PutVarint(&rec, timestamp - base_timestamp_);
  PutVarint(&rec, count_);
  auto put_bytes = [&rec](std::optional<std::string_view> b) {
    if (!b.has_value()) {
      PutVarint(&rec, -1);
      return;
    }
    PutVarint(&rec, static_cast<int64_t>(b->size()));
    rec.Append(*b);
  };
  put_bytes(key);
  put_bytes(value);
  PutVarint(&rec, static_cast<int64_t>(headers.size()));
  for (const RecordHeader& h : headers) {
    put_bytes(h.key);
    put_bytes(h.value.has_value() ? std::optional<std::string_view>(*h.value) : std::nullopt);
  }
  PutVarint(&records_, static_cast<int64_t>(rec.size()));
  records_.Append(rec.span());
  ++count_;
}

Status BatchBuilder::Finish(Buffer* out) {
  const size_t start = out->size();
  out->AppendUninitialized(kBatchHeaderBytes);
  if (options_.codec == BatchCodec::kNone) {
    out->Append(records_.span());
  } else if (options_.codec == BatchCodec::kSnappy && options_.xerial_snappy) {
    FLOE_RETURN_IF_ERROR(XerialSnappyCompress(records_.span(), out));
  } else {
    FLOE_ASSIGN_OR_RETURN(format::CompressionKind kind, KindFor(options_.codec));
    FLOE_ASSIGN_OR_RETURN(auto codec, format::Codec::Make(kind));
    FLOE_RETURN_IF_ERROR(codec->Compress(records_.span(), out));
  }
  uint8_t* p = out->data() + start;
  const size_t total = out->size() - start;
  int16_t attributes = static_cast<int16_t>(options_.codec);
  if (options_.transactional) attributes |= 0x10;
  StoreBE<uint64_t>(p, 0);
  StoreBE<uint32_t>(p + 8, static_cast<uint32_t>(total - kLogOverheadBytes));
  StoreBE<uint32_t>(p + 12, static_cast<uint32_t>(options_.partition_leader_epoch));
  p[16] = 2;
  StoreBE<uint16_t>(p + 21, static_cast<uint16_t>(attributes));
  StoreBE<uint32_t>(p + 23, static_cast<uint32_t>(count_ - 1));
  StoreBE<uint64_t>(p + 27, static_cast<uint64_t>(base_timestamp_));
  StoreBE<uint64_t>(p + 35, static_cast<uint64_t>(max_timestamp_));
  StoreBE<uint64_t>(p + 43, static_cast<uint64_t>(options_.producer_id));
  StoreBE<uint16_t>(p + 51, static_cast<uint16_t>(options_.producer_epoch));
  StoreBE<uint32_t>(p + 53, static_cast<uint32_t>(options_.base_sequence));
  StoreBE<uint32_t>(p + 57, static_cast<uint32_t>(count_));
  StoreBE<uint32_t>(p + 17, Crc32c(0, p + kCrcStart, total - kCrcStart));
  return Status::OK();
}

}  // namespace floe::kafka
