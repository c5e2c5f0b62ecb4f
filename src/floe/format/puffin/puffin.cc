#include "floe/format/puffin/puffin.h"

#include <cstring>
#include <limits>

#include <nlohmann/json.hpp>

#include "floe/base/bytes.h"
#include "floe/base/json.h"
#include "floe/base/json_writer.h"
#include "floe/base/macros.h"
#include "floe/format/compression/codec.h"

namespace floe::format::puffin {

namespace {

using Json = nlohmann::ordered_json;

// Trailer after the payload: FooterPayloadSize(4) Flags(4) Magic(4).
constexpr uint64_t kTrailerBytes = 12;

Result<CompressionKind> CodecKind(PuffinCodec codec) {
  switch (codec) {
    case PuffinCodec::kNone: return CompressionKind::kUncompressed;
    case PuffinCodec::kLz4: return CompressionKind::kLz4Frame;
    case PuffinCodec::kZstd: return CompressionKind::kZstd;
  }
  return Status::InvalidArgument("unknown Puffin codec");
}

Result<int64_t> GetLong(const Json& obj, const char* name) {
  auto it = obj.find(name);
  if (it == obj.end()) return Status::Corrupt("blob metadata lacks '{}'", name);
  if (it->is_number_unsigned()) {
    const auto v = it->get<uint64_t>();
    if (v > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) {
      return Status::Corrupt("'{}' {} out of range", name, v);
    }
    return static_cast<int64_t>(v);
  }
  if (!it->is_number_integer()) return Status::Corrupt("'{}' is not an integer", name);
  return it->get<int64_t>();
}

Result<Properties> GetProperties(const Json& obj, std::string_view what) {
  Properties out;
  auto it = obj.find("properties");
  if (it == obj.end() || it->is_null()) return out;
  if (!it->is_object()) return Status::Corrupt("{} 'properties' is not an object", what);
  out.reserve(it->size());
  for (const auto& [key, value] : it->items()) {
    if (!value.is_string()) {
      return Status::Corrupt("{} property '{}' is not a string", what, key);
    }
    out.emplace_back(key, value.get<std::string>());
  }
  return out;
}

Result<BlobMetadata> ParseBlob(const Json& j) {
  if (!j.is_object()) return Status::Corrupt("blob metadata is not an object");
  BlobMetadata blob;
  auto type = j.find("type");
  if (type == j.end() || !type->is_string()) return Status::Corrupt("blob lacks a string 'type'");
  blob.type = type->get<std::string>();
  auto fields = j.find("fields");
  if (fields == j.end() || !fields->is_array()) {
    return Status::Corrupt("blob lacks a 'fields' array");
  }
  blob.fields.reserve(fields->size());
  for (const Json& f : *fields) {
    if (!f.is_number_integer()) return Status::Corrupt("blob field id is not an integer");
    if (f.is_number_unsigned() ? f.get<uint64_t>() > INT32_MAX
                               : (f.get<int64_t>() < INT32_MIN || f.get<int64_t>() > INT32_MAX)) {
      return Status::Corrupt("blob field id out of int range");
    }
    blob.fields.push_back(static_cast<int32_t>(f.get<int64_t>()));
  }
  FLOE_ASSIGN_OR_RETURN(blob.snapshot_id, GetLong(j, "snapshot-id"));
  FLOE_ASSIGN_OR_RETURN(blob.sequence_number, GetLong(j, "sequence-number"));
  FLOE_ASSIGN_OR_RETURN(int64_t offset, GetLong(j, "offset"));
  FLOE_ASSIGN_OR_RETURN(int64_t length, GetLong(j, "length"));
  if (offset < 0 || length < 0) {
    return Status::Corrupt("blob offset {} / length {} negative", offset, length);
  }
  blob.offset = static_cast<uint64_t>(offset);
  blob.length = static_cast<uint64_t>(length);
  auto codec = j.find("compression-codec");
  if (codec != j.end() && !codec->is_null()) {
    if (!codec->is_string()) return Status::Corrupt("'compression-codec' is not a string");
    blob.compression_codec = codec->get<std::string>();
  }
  FLOE_ASSIGN_OR_RETURN(blob.properties, GetProperties(j, "blob"));
  return blob;
}

void WriteProperties(JsonWriter& w, const Properties& properties) {
  w.Key("properties");
  w.BeginObject();
  for (const auto& [key, value] : properties) {
    w.Key(key);
    w.String(value);
  }
  w.EndObject();
}

}  // namespace

std::string_view PuffinCodecName(PuffinCodec codec) {
  switch (codec) {
    case PuffinCodec::kNone: return "";
    case PuffinCodec::kLz4: return "lz4";
    case PuffinCodec::kZstd: return "zstd";
  }
  return "";
}

Result<PuffinCodec> ParsePuffinCodec(std::string_view name) {
  if (name == "lz4") return PuffinCodec::kLz4;
  if (name == "zstd") return PuffinCodec::kZstd;
  return Status::Unimplemented("Puffin compression codec '{}' is not supported", name);
}

const std::string* BlobMetadata::FindProperty(std::string_view key) const {
  for (const auto& [k, v] : properties) {
    if (k == key) return &v;
  }
  return nullptr;
}

std::string FileMetadataToJson(const FileMetadata& metadata) {
  std::string out;
  JsonWriter w(&out);
  w.BeginObject();
  w.Key("blobs");
  w.BeginArray();
  for (const BlobMetadata& b : metadata.blobs) {
    w.BeginObject();
    w.Key("type");
    w.String(b.type);
    w.Key("fields");
    w.BeginArray();
    for (int32_t f : b.fields) w.Int(f);
    w.EndArray();
    w.Key("snapshot-id");
    w.Int(b.snapshot_id);
    w.Key("sequence-number");
    w.Int(b.sequence_number);
    w.Key("offset");
    w.UInt(b.offset);
    w.Key("length");
    w.UInt(b.length);
    if (b.compression_codec) {
      w.Key("compression-codec");
      w.String(*b.compression_codec);
    }
    if (!b.properties.empty()) WriteProperties(w, b.properties);
    w.EndObject();
  }
  w.EndArray();
  if (!metadata.properties.empty()) WriteProperties(w, metadata.properties);
  w.EndObject();
  return out;
}

Result<FileMetadata> ParseFileMetadata(std::string_view json) {
  Result<Json> parsed = ParseOrderedJson(json);
  if (!parsed.ok()) {
    return Status::Corrupt("Puffin footer payload is not valid JSON: {}",
                           parsed.status().message());
  }
  const Json& j = *parsed;
  if (!j.is_object()) return Status::Corrupt("Puffin footer payload is not a JSON object");
  auto blobs = j.find("blobs");
  if (blobs == j.end() || !blobs->is_array()) {
    return Status::Corrupt("Puffin footer lacks a 'blobs' array");
  }
  FileMetadata metadata;
  metadata.blobs.reserve(blobs->size());
  for (const Json& b : *blobs) {
    Result<BlobMetadata> blob = ParseBlob(b);
    if (!blob.ok()) return blob.status().WithContext("blob {}", metadata.blobs.size());
    metadata.blobs.push_back(std::move(*blob));
  }
  FLOE_ASSIGN_OR_RETURN(metadata.properties, GetProperties(j, "file"));
  return metadata;
}

Result<std::unique_ptr<PuffinReader>> PuffinReader::Open(const io::InputFile& file,
                                                         PuffinReaderOptions options) {
  const uint64_t size = file.size();
  // The smallest file is the leading magic and an empty-payload footer.
  if (size < kMagic.size() + kFooterOverheadBytes) {
    return Status::Corrupt("{} bytes is too small for a Puffin file", size);
  }
  uint8_t head[4];
  FLOE_RETURN_IF_ERROR(file.ReadAt(0, 4, head));
  if (std::memcmp(head, kMagic.data(), 4) != 0) {
    return Status::Corrupt("not a Puffin file: bad leading magic");
  }
  uint8_t trailer[kTrailerBytes];
  FLOE_RETURN_IF_ERROR(file.ReadAt(size - kTrailerBytes, kTrailerBytes, trailer));
  if (std::memcmp(trailer + 8, kMagic.data(), 4) != 0) {
    return Status::Corrupt("not a Puffin file: bad trailing magic");
  }
  const int32_t payload_size = LoadLE<int32_t>(trailer);
  const uint8_t* flags = trailer + 4;
  if (payload_size < 0) return Status::Corrupt("negative footer payload size {}", payload_size);
  const uint64_t payload_bytes = static_cast<uint64_t>(payload_size);
  if (payload_bytes > options.max_footer_payload_bytes) {
    return Status::Corrupt("footer payload of {} bytes exceeds the limit of {}", payload_bytes,
                           options.max_footer_payload_bytes);
  }
  const uint64_t footer_size = payload_bytes + kFooterOverheadBytes;
  if (footer_size > size - kMagic.size()) {
    return Status::Corrupt("footer of {} bytes does not fit in a file of {} bytes", footer_size,
                           size);
  }
  if ((flags[0] & ~kFlagFooterCompressed) != 0 || flags[1] != 0 || flags[2] != 0 || flags[3] != 0) {
    return Status::Unimplemented("unknown Puffin footer flags {:02x}{:02x}{:02x}{:02x}", flags[0],
                                 flags[1], flags[2], flags[3]);
  }
  const uint64_t footer_start = size - footer_size;
  FLOE_ASSIGN_OR_RETURN(Buffer footer, file.Read(footer_start, footer_size - kTrailerBytes));
  if (std::memcmp(footer.data(), kMagic.data(), 4) != 0) {
    return Status::Corrupt("bad magic at the start of the Puffin footer");
  }
  std::span<const uint8_t> payload = footer.span().subspan(4);
  auto reader = std::unique_ptr<PuffinReader>(new PuffinReader(file, options));
  reader->footer_size_ = footer_size;
  reader->footer_compressed_ = (flags[0] & kFlagFooterCompressed) != 0;
  Buffer decompressed;
  if (reader->footer_compressed_) {
    FLOE_ASSIGN_OR_RETURN(auto codec, Codec::Make(CompressionKind::kLz4Frame));
    Status s =
        codec->DecompressUnknownSize(payload, &decompressed, options.max_footer_payload_bytes);
    if (!s.ok()) return Status::Corrupt("compressed Puffin footer: {}", s.message());
    payload = decompressed.span();
  }
  Result<FileMetadata> metadata = ParseFileMetadata(
      std::string_view(reinterpret_cast<const char*>(payload.data()), payload.size()));
  if (!metadata.ok()) return metadata.status();
  for (size_t i = 0; i < metadata->blobs.size(); ++i) {
    const BlobMetadata& b = metadata->blobs[i];
    if (b.offset < kMagic.size() || b.offset > footer_start || b.length > footer_start - b.offset) {
      return Status::Corrupt("blob {} at [{}, +{}) lies outside the blob area [4, {})", i, b.offset,
                             b.length, footer_start);
    }
  }
  reader->metadata_ = std::move(*metadata);
  return reader;
}

Result<Buffer> PuffinReader::ReadBlob(const BlobMetadata& blob) const {
  if (blob.offset > file_.size() || blob.length > file_.size() - blob.offset) {
    return Status::Corrupt("blob range [{}, +{}) past the end of a {}-byte file", blob.offset,
                           blob.length, file_.size());
  }
  PuffinCodec codec = PuffinCodec::kNone;
  if (blob.compression_codec) {
    FLOE_ASSIGN_OR_RETURN(codec, ParsePuffinCodec(*blob.compression_codec));
  }
  if (codec == PuffinCodec::kNone && blob.length > options_.max_blob_bytes) {
    return Status::Corrupt("blob of {} bytes exceeds the limit of {}", blob.length,
                           options_.max_blob_bytes);
  }
  FLOE_ASSIGN_OR_RETURN(Buffer stored, file_.Read(blob.offset, blob.length));
  if (codec == PuffinCodec::kNone) return stored;
  FLOE_ASSIGN_OR_RETURN(CompressionKind kind, CodecKind(codec));
  FLOE_ASSIGN_OR_RETURN(auto decoder, Codec::Make(kind));
  Buffer out;
  Status s = decoder->DecompressUnknownSize(stored.span(), &out, options_.max_blob_bytes);
  if (!s.ok()) {
    return Status::Corrupt("{} blob at offset {}: {}", PuffinCodecName(codec), blob.offset,
                           s.message());
  }
  return out;
}

Result<std::unique_ptr<PuffinWriter>> PuffinWriter::Make(io::OutputStream* out,
                                                         PuffinWriterOptions options) {
  if (out->position() != 0) {
    return Status::InvalidArgument("a Puffin file must start at position 0, not {}",
                                   out->position());
  }
  bool has_created_by = false;
  for (const auto& [key, value] : options.properties) has_created_by |= key == "created-by";
  if (!has_created_by) options.properties.emplace_back("created-by", kCreatedBy);
  FLOE_RETURN_IF_ERROR(out->Write(kMagic));
  return std::unique_ptr<PuffinWriter>(new PuffinWriter(out, std::move(options)));
}

Result<BlobLocation> PuffinWriter::AddBlob(std::string_view type, std::span<const int32_t> fields,
                                           int64_t snapshot_id, int64_t sequence_number,
                                           std::span<const uint8_t> bytes, Properties properties,
                                           PuffinCodec codec) {
  if (finished_) return Status::FailedPrecondition("Puffin writer already finished");
  BlobMetadata blob;
  blob.type = std::string(type);
  blob.fields.assign(fields.begin(), fields.end());
  blob.snapshot_id = snapshot_id;
  blob.sequence_number = sequence_number;
  blob.offset = out_->position();
  blob.properties = std::move(properties);
  if (codec == PuffinCodec::kNone) {
    FLOE_RETURN_IF_ERROR(out_->Write(bytes.data(), bytes.size()));
    blob.length = bytes.size();
  } else {
    FLOE_ASSIGN_OR_RETURN(CompressionKind kind, CodecKind(codec));
    FLOE_ASSIGN_OR_RETURN(auto encoder, Codec::Make(kind, options_.compression_level));
    Buffer compressed;
    FLOE_RETURN_IF_ERROR(encoder->Compress(bytes, &compressed));
    FLOE_RETURN_IF_ERROR(out_->Write(compressed.data(), compressed.size()));
    blob.length = compressed.size();
    blob.compression_codec = std::string(PuffinCodecName(codec));
  }
  BlobLocation location{blob.offset, blob.length};
  metadata_.blobs.push_back(std::move(blob));
  return location;
}

Result<PuffinFileInfo> PuffinWriter::Finish() {
  if (finished_) return Status::FailedPrecondition("Puffin writer already finished");
  finished_ = true;
  metadata_.properties = options_.properties;
  const std::string payload = FileMetadataToJson(metadata_);
  if (payload.size() > static_cast<size_t>(std::numeric_limits<int32_t>::max())) {
    return Status::InvalidArgument("Puffin footer payload of {} bytes is too large",
                                   payload.size());
  }
  std::string footer;
  footer.reserve(payload.size() + kFooterOverheadBytes);
  footer.append(kMagic);
  footer.append(payload);
  char trailer[kTrailerBytes] = {};
  StoreLE<int32_t>(trailer, static_cast<int32_t>(payload.size()));
  std::memcpy(trailer + 8, kMagic.data(), 4);
  footer.append(trailer, kTrailerBytes);
  FLOE_RETURN_IF_ERROR(out_->Write(footer));
  return PuffinFileInfo{out_->position(), footer.size()};
}

}  // namespace floe::format::puffin
