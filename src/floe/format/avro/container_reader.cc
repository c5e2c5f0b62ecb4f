#include <algorithm>
#include <cstring>
#include <limits>

#include "floe/base/crc.h"
#include "floe/base/macros.h"
#include "floe/format/avro/container.h"
#include "floe/format/avro/datum_reader.h"

namespace floe::format::avro {

namespace {

constexpr uint8_t kMagic[4] = {'O', 'b', 'j', 1};
// A block header is two longs: at most 20 bytes.
constexpr size_t kMaxBlockHeaderBytes = 20;
// Datums that may take zero bytes are bounded by this, plus a share of the file size.
constexpr int64_t kZeroSizeBudget = int64_t{1} << 24;

}  // namespace

std::string_view AvroCodecName(AvroCodec codec) {
  switch (codec) {
    case AvroCodec::kNull: return "null";
    case AvroCodec::kDeflate: return "deflate";
    case AvroCodec::kSnappy: return "snappy";
    case AvroCodec::kZstandard: return "zstandard";
  }
  return "unknown";
}

Result<AvroCodec> ParseAvroCodec(std::string_view name) {
  if (name == "null") return AvroCodec::kNull;
  if (name == "deflate") return AvroCodec::kDeflate;
  if (name == "snappy") return AvroCodec::kSnappy;
  if (name == "zstandard") return AvroCodec::kZstandard;
  return Status::Unimplemented("avro codec '{}' is not supported", name);
}

Result<SchemaPtr> SchemaCache::Parse(const std::string& json) {
  if (auto it = parsed_.find(json); it != parsed_.end()) return it->second;
  FLOE_ASSIGN_OR_RETURN(SchemaPtr schema, Schema::Parse(json, {.validate_names = false}));
  parsed_.emplace(json, schema);
  return schema;
}

ContainerReader::~ContainerReader() = default;

Result<std::unique_ptr<ContainerReader>> ContainerReader::Open(std::unique_ptr<io::InputFile> file,
                                                               ContainerReaderOptions options) {
  std::unique_ptr<ContainerReader> r(new ContainerReader());
  r->file_ = std::move(file);
  r->options_ = std::move(options);
  if (r->options_.batch_rows <= 0) r->options_.batch_rows = 1;
  r->file_size_ = r->file_->size();
  FLOE_RETURN_IF_ERROR(r->ReadHeader());
  if (r->options_.metadata_only) return r;

  FLOE_ASSIGN_OR_RETURN(r->codec_, ParseAvroCodec(r->codec_name_));
  CompressionKind kind = CompressionKind::kUncompressed;
  switch (r->codec_) {
    case AvroCodec::kNull: break;
    case AvroCodec::kDeflate: kind = CompressionKind::kDeflate; break;
    case AvroCodec::kSnappy: kind = CompressionKind::kSnappy; break;
    case AvroCodec::kZstandard: kind = CompressionKind::kZstd; break;
  }
  if (kind != CompressionKind::kUncompressed) {
    FLOE_ASSIGN_OR_RETURN(r->decompressor_, Codec::Make(kind));
  }
  DatumReaderOptions dro;
  dro.reader_schema = r->options_.reader_schema.get();
  dro.columns = r->options_.columns;
  FLOE_ASSIGN_OR_RETURN(r->datum_reader_, DatumReader::Make(*r->writer_schema_, dro));
  r->datum_reader_->set_zero_size_budget(kZeroSizeBudget +
                                         64 * static_cast<int64_t>(r->file_size_));
  return r;
}

const std::string* ContainerReader::FindMetadata(std::string_view key) const {
  for (const auto& [k, v] : metadata_) {
    if (k == key) return &v;
  }
  return nullptr;
}

const columnar::SchemaPtr& ContainerReader::schema() const {
  FLOE_CHECK(datum_reader_ != nullptr);
  return datum_reader_->schema();
}

Status ContainerReader::ReadHeader() {
  // Magic, an empty metadata map and the sync marker: the smallest possible header.
  constexpr uint64_t kMinHeaderBytes = 4 + 1 + 16;
  if (file_size_ < kMinHeaderBytes) {
    return Status::Corrupt("{} bytes are too few for an avro object container file", file_size_);
  }
  // The header's length is only known by parsing it: read a prefix and grow it until the
  // parse succeeds or the whole file (or the limit) was tried.
  uint64_t limit = std::min<uint64_t>(file_size_, options_.max_header_bytes);
  uint64_t want = std::min<uint64_t>(limit, 64 * 1024);
  for (;;) {
    FLOE_ASSIGN_OR_RETURN(Buffer buf, file_->Read(0, static_cast<size_t>(want)));
    ByteReader in(buf.span());
    metadata_.clear();
    Status s = ParseHeader(in);
    if (s.ok()) {
      header_size_ = want - in.remaining();
      pos_ = header_size_;
      break;
    }
    if (want >= limit) return s;
    want = std::min<uint64_t>(limit, want * 4);
  }
  const std::string* schema_json = FindMetadata(kSchemaKey);
  if (schema_json == nullptr) return Status::Corrupt("avro file header has no avro.schema");
  // Like Java's file reader, accept names that the spec's grammar would reject: the file
  // exists and its schema still describes its bytes.
  Result<SchemaPtr> schema = options_.schema_cache != nullptr
                                 ? options_.schema_cache->Parse(*schema_json)
                                 : Schema::Parse(*schema_json, {.validate_names = false});
  if (!schema.ok()) {
    return Status::Corrupt("invalid avro.schema: {}", schema.status().message());
  }
  writer_schema_ = std::move(*schema);
  const std::string* codec = FindMetadata(kCodecKey);
  codec_name_ = codec ? *codec : "null";
  return Status::OK();
}

Status ContainerReader::ParseHeader(ByteReader& in) {
  if (in.remaining() < 4 || std::memcmp(in.position(), kMagic, 4) != 0) {
    return Status::Corrupt("not an avro object container file (bad magic)");
  }
  FLOE_RETURN_IF_ERROR(in.Skip(4));
  // Spec: the metadata is a map<bytes>: blocks of entries ending with a zero count.
  for (;;) {
    FLOE_ASSIGN_OR_RETURN(int64_t count, in.ReadZigZag64());
    if (count == 0) break;
    if (count < 0) {
      if (count == std::numeric_limits<int64_t>::min()) {
        return Status::Corrupt("header metadata count overflows");
      }
      count = -count;
      FLOE_ASSIGN_OR_RETURN(int64_t size, in.ReadZigZag64());
      if (size < 0) return Status::Corrupt("negative header metadata block size");
    }
    // Each entry takes at least two bytes (two lengths).
    if (count > static_cast<int64_t>(in.remaining() / 2)) {
      return Status::Corrupt("header metadata claims {} entries in {} bytes", count,
                             in.remaining());
    }
    for (int64_t i = 0; i < count; ++i) {
      std::string kv[2];
      for (auto& s : kv) {
        FLOE_ASSIGN_OR_RETURN(int64_t n, in.ReadZigZag64());
        if (n < 0) return Status::Corrupt("negative header metadata length");
        FLOE_ASSIGN_OR_RETURN(auto bytes, in.Take(static_cast<uint64_t>(n)));
        s.assign(reinterpret_cast<const char*>(bytes.data()), bytes.size());
      }
      // A repeated key replaces the earlier value, as in Java's reader.
      auto it = std::find_if(metadata_.begin(), metadata_.end(),
                             [&](const auto& e) { return e.first == kv[0]; });
      if (it != metadata_.end()) {
        it->second = std::move(kv[1]);
      } else {
        metadata_.emplace_back(std::move(kv[0]), std::move(kv[1]));
      }
    }
  }
  FLOE_ASSIGN_OR_RETURN(auto sync, in.Take(16));
  std::memcpy(sync_.data(), sync.data(), 16);
  return Status::OK();
}

Result<std::optional<BlockInfo>> ContainerReader::ReadBlockHeader() {
  if (pos_ >= file_size_) return std::optional<BlockInfo>();
  size_t n = static_cast<size_t>(std::min<uint64_t>(kMaxBlockHeaderBytes, file_size_ - pos_));
  uint8_t header[kMaxBlockHeaderBytes];
  FLOE_RETURN_IF_ERROR(file_->ReadAt(pos_, n, header));
  ByteReader in(header, n);
  BlockInfo info;
  info.offset = pos_;
  Result<int64_t> count = in.ReadZigZag64();
  Result<int64_t> size = count.ok() ? in.ReadZigZag64() : Result<int64_t>(count.status());
  if (!size.ok()) {
    return Status::Corrupt("truncated or malformed block header at offset {}", pos_);
  }
  info.record_count = *count;
  info.size_bytes = *size;
  if (info.record_count < 0 || info.size_bytes < 0) {
    return Status::Corrupt("block at offset {} has a negative count or size", pos_);
  }
  if (static_cast<uint64_t>(info.size_bytes) > options_.max_block_bytes) {
    return Status::Corrupt("block at offset {} claims {} bytes, above the limit of {}", pos_,
                           info.size_bytes, options_.max_block_bytes);
  }
  info.data_offset = pos_ + (n - in.remaining());
  uint64_t end = info.data_offset + static_cast<uint64_t>(info.size_bytes) + 16;
  if (end > file_size_) {
    return Status::Corrupt("block at offset {} claims {} bytes but the file ends at {}", pos_,
                           info.size_bytes, file_size_);
  }
  return info;
}

Result<std::optional<BlockInfo>> ContainerReader::NextBlockInfo() {
  FLOE_ASSIGN_OR_RETURN(std::optional<BlockInfo> info, ReadBlockHeader());
  if (!info) return info;
  uint64_t sync_offset = info->data_offset + static_cast<uint64_t>(info->size_bytes);
  uint8_t sync[16];
  FLOE_RETURN_IF_ERROR(file_->ReadAt(sync_offset, 16, sync));
  if (std::memcmp(sync, sync_.data(), 16) != 0) {
    return Status::Corrupt("sync marker mismatch after the block at offset {}", info->offset);
  }
  pos_ = sync_offset + 16;
  return info;
}

Status ContainerReader::Decompress(std::span<const uint8_t> data, uint64_t offset) {
  block_.Clear();
  Status s;
  switch (codec_) {
    case AvroCodec::kNull: block_reader_ = ByteReader(data); return Status::OK();
    case AvroCodec::kSnappy: {
      // Spec: the compressed block is followed by the CRC-32 of the uncompressed data.
      if (data.size() < 4) {
        return Status::Corrupt("snappy block at offset {} lacks its CRC", offset);
      }
      std::span<const uint8_t> compressed = data.first(data.size() - 4);
      uint32_t expected = LoadBE<uint32_t>(data.data() + data.size() - 4);
      s = decompressor_->DecompressUnknownSize(compressed, &block_, options_.max_block_bytes);
      if (s.ok() && Crc32(0, block_.data(), block_.size()) != expected) {
        return Status::Corrupt("snappy block at offset {}: CRC mismatch", offset);
      }
      break;
    }
    case AvroCodec::kDeflate:
    case AvroCodec::kZstandard:
      s = decompressor_->DecompressUnknownSize(data, &block_, options_.max_block_bytes);
      break;
  }
  if (!s.ok()) return s.WithContext("block at offset {}", offset);
  block_reader_ = ByteReader(block_.span());
  return Status::OK();
}

Result<bool> ContainerReader::LoadBlock() {
  FLOE_ASSIGN_OR_RETURN(std::optional<BlockInfo> info, ReadBlockHeader());
  if (!info) return false;
  uint64_t data_offset = info->data_offset;
  size_t size = static_cast<size_t>(info->size_bytes);
  raw_.Resize(size + 16);
  FLOE_RETURN_IF_ERROR(file_->ReadAt(data_offset, size + 16, raw_.data()));
  if (std::memcmp(raw_.data() + size, sync_.data(), 16) != 0) {
    return Status::Corrupt("sync marker mismatch after the block at offset {}", info->offset);
  }
  FLOE_RETURN_IF_ERROR(Decompress({raw_.data(), size}, info->offset));
  int64_t min_size = datum_reader_->min_datum_size();
  if (min_size > 0 &&
      info->record_count > static_cast<int64_t>(block_reader_.remaining()) / min_size) {
    return Status::Corrupt("block at offset {} claims {} records in {} bytes", info->offset,
                           info->record_count, block_reader_.remaining());
  }
  block_offset_ = info->offset;
  block_remaining_ = info->record_count;
  pos_ = data_offset + size + 16;
  return true;
}

Result<std::optional<columnar::RecordBatch>> ContainerReader::Next() {
  if (!failed_.ok()) return failed_;
  if (datum_reader_ == nullptr) {
    return Status::FailedPrecondition("reader was opened for metadata only");
  }
  auto fail = [this](Status s) -> Status {
    failed_ = s;
    return s;
  };
  while (block_remaining_ == 0) {
    Result<bool> more = LoadBlock();
    if (!more.ok()) return fail(std::move(more).status());
    if (!*more) return std::optional<columnar::RecordBatch>();
    if (block_remaining_ == 0 && !block_reader_.empty()) {
      return fail(Status::Corrupt("block at offset {} has no records but {} bytes", block_offset_,
                                  block_reader_.remaining()));
    }
  }
  int64_t n = std::min(options_.batch_rows, block_remaining_);
  for (int64_t i = 0; i < n; ++i) {
    Status s = datum_reader_->Read(&block_reader_);
    if (!s.ok()) return fail(s.WithContext("block at offset {}", block_offset_));
  }
  block_remaining_ -= n;
  if (block_remaining_ == 0 && !block_reader_.empty()) {
    return fail(Status::Corrupt("block at offset {} has {} bytes after its last record",
                                block_offset_, block_reader_.remaining()));
  }
  return std::optional<columnar::RecordBatch>(datum_reader_->Finish());
}

}  // namespace floe::format::avro
