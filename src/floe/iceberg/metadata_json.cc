#include "floe/iceberg/metadata_json.h"

#include <algorithm>
#include <array>
#include <vector>

#include "floe/base/macros.h"
#include "floe/format/compression/codec.h"
#include "floe/iceberg/ojson_util.h"
#include "floe/io/file_io.h"

namespace floe::iceberg {
namespace {

// One global rank per member name reproduces every Java writer's order: schema structs
// (type, schema-id, identifier-field-ids, fields), fields (id, name, required, type, doc,
// initial-default, write-default), lists, maps, specs (spec-id, fields), partition fields
// (name, transform, source-id, field-id), orders (order-id, fields) and sort fields
// (transform, source-id, direction, null-order). Unknown members keep their order after.
constexpr std::array<std::string_view, 24> kMemberRank = {"id",
                                                          "name",
                                                          "required",
                                                          "type",
                                                          "transform",
                                                          "source-id",
                                                          "source-ids",
                                                          "field-id",
                                                          "direction",
                                                          "null-order",
                                                          "spec-id",
                                                          "order-id",
                                                          "schema-id",
                                                          "identifier-field-ids",
                                                          "fields",
                                                          "element-id",
                                                          "element",
                                                          "element-required",
                                                          "key-id",
                                                          "key",
                                                          "value-id",
                                                          "value",
                                                          "value-required",
                                                          "doc"};

size_t Rank(std::string_view key) {
  auto it = std::find(kMemberRank.begin(), kMemberRank.end(), key);
  if (it != kMemberRank.end()) return static_cast<size_t>(it - kMemberRank.begin());
  if (key == "initial-default") return kMemberRank.size();
  if (key == "write-default") return kMemberRank.size() + 1;
  return kMemberRank.size() + 2;
}

}  // namespace

OJson ToJavaMemberOrder(const nlohmann::json& value) {
  if (value.is_array()) {
    OJson out = OJson::array();
    for (const auto& e : value) out.push_back(ToJavaMemberOrder(e));
    return out;
  }
  if (!value.is_object()) return OJson(value);
  std::vector<std::string> keys;
  for (const auto& [k, v] : value.items()) keys.push_back(k);
  std::stable_sort(keys.begin(), keys.end(),
                   [](const std::string& a, const std::string& b) { return Rank(a) < Rank(b); });
  OJson out = OJson::object();
  // Defaults are values, not schema objects: keep them as they are.
  for (const std::string& k : keys) {
    const auto& v = value.at(k);
    out[k] = (k == "initial-default" || k == "write-default") ? OJson(v) : ToJavaMemberOrder(v);
  }
  return out;
}

Result<Schema> ParseSchema(const OJson& json) { return SchemaFromJsonValue(nlohmann::json(json)); }

OJson SchemaJson(const Schema& schema) { return ToJavaMemberOrder(SchemaToJsonValue(schema)); }

Result<PartitionSpec> ParseSpec(const OJson& json) {
  return PartitionSpecFromJsonValue(nlohmann::json(json));
}

Result<PartitionSpec> ParseV1SpecFields(const OJson& fields) {
  return PartitionSpecFromV1FieldsJson(nlohmann::json(fields), 0);
}

OJson SpecJson(const PartitionSpec& spec) {
  return ToJavaMemberOrder(PartitionSpecToJsonValue(spec));
}

Result<SortOrder> ParseSortOrder(const OJson& json) {
  return SortOrderFromJsonValue(nlohmann::json(json));
}

OJson SortOrderJson(const SortOrder& order) {
  return ToJavaMemberOrder(SortOrderToJsonValue(order));
}

Result<StatisticsFile> StatisticsFileFromJson(const OJson& json) {
  if (!json.is_object()) return Status::InvalidArgument("statistics file must be an object");
  StatisticsFile f;
  FLOE_ASSIGN_OR_RETURN(f.snapshot_id, ojson::GetLong(json, "snapshot-id"));
  FLOE_ASSIGN_OR_RETURN(f.path, ojson::GetString(json, "statistics-path"));
  FLOE_ASSIGN_OR_RETURN(f.file_size_in_bytes, ojson::GetLong(json, "file-size-in-bytes"));
  FLOE_ASSIGN_OR_RETURN(f.file_footer_size_in_bytes,
                        ojson::GetLong(json, "file-footer-size-in-bytes"));
  FLOE_ASSIGN_OR_RETURN(const OJson* blobs, ojson::Get(json, "blob-metadata"));
  FLOE_RETURN_IF_ERROR(ojson::AsArray(*blobs, "blob-metadata"));
  for (const OJson& b : *blobs) {
    if (!b.is_object()) return Status::InvalidArgument("blob metadata must be an object");
    BlobMetadata blob;
    FLOE_ASSIGN_OR_RETURN(blob.type, ojson::GetString(b, "type"));
    FLOE_ASSIGN_OR_RETURN(blob.source_snapshot_id, ojson::GetLong(b, "snapshot-id"));
    FLOE_ASSIGN_OR_RETURN(blob.source_snapshot_sequence_number,
                          ojson::GetLong(b, "sequence-number"));
    FLOE_ASSIGN_OR_RETURN(blob.fields, ojson::GetIntList(b, "fields"));
    FLOE_ASSIGN_OR_RETURN(blob.properties, ojson::GetStringMap(b, "properties"));
    f.blob_metadata.push_back(std::move(blob));
  }
  return f;
}

OJson StatisticsFileToJson(const StatisticsFile& f) {
  OJson j = OJson::object();
  j["snapshot-id"] = f.snapshot_id;
  j["statistics-path"] = f.path;
  j["file-size-in-bytes"] = f.file_size_in_bytes;
  j["file-footer-size-in-bytes"] = f.file_footer_size_in_bytes;
  OJson blobs = OJson::array();
  for (const BlobMetadata& b : f.blob_metadata) {
    OJson bj = OJson::object();
    bj["type"] = b.type;
    bj["snapshot-id"] = b.source_snapshot_id;
    bj["sequence-number"] = b.source_snapshot_sequence_number;
    bj["fields"] = b.fields;
    if (!b.properties.empty()) bj["properties"] = ojson::StringMapToJson(b.properties);
    blobs.push_back(std::move(bj));
  }
  j["blob-metadata"] = std::move(blobs);
  return j;
}

Result<PartitionStatisticsFile> PartitionStatisticsFileFromJson(const OJson& json) {
  if (!json.is_object()) return Status::InvalidArgument("partition statistics must be an object");
  PartitionStatisticsFile f;
  FLOE_ASSIGN_OR_RETURN(f.snapshot_id, ojson::GetLong(json, "snapshot-id"));
  FLOE_ASSIGN_OR_RETURN(f.path, ojson::GetString(json, "statistics-path"));
  FLOE_ASSIGN_OR_RETURN(f.file_size_in_bytes, ojson::GetLong(json, "file-size-in-bytes"));
  return f;
}

OJson PartitionStatisticsFileToJson(const PartitionStatisticsFile& f) {
  OJson j = OJson::object();
  j["snapshot-id"] = f.snapshot_id;
  j["statistics-path"] = f.path;
  j["file-size-in-bytes"] = f.file_size_in_bytes;
  return j;
}

Result<EncryptionKey> EncryptionKeyFromJson(const OJson& json) {
  if (!json.is_object()) return Status::InvalidArgument("encryption key must be an object");
  EncryptionKey k;
  FLOE_ASSIGN_OR_RETURN(k.key_id, ojson::GetString(json, "key-id"));
  FLOE_ASSIGN_OR_RETURN(std::string b64, ojson::GetString(json, "encrypted-key-metadata"));
  FLOE_ASSIGN_OR_RETURN(k.encrypted_key_metadata, Base64Decode(b64));
  FLOE_ASSIGN_OR_RETURN(k.encrypted_by_id, ojson::OptString(json, "encrypted-by-id"));
  FLOE_ASSIGN_OR_RETURN(k.properties, ojson::GetStringMap(json, "properties"));
  return k;
}

OJson EncryptionKeyToJson(const EncryptionKey& k) {
  OJson j = OJson::object();
  j["key-id"] = k.key_id;
  j["encrypted-key-metadata"] = Base64Encode(k.encrypted_key_metadata);
  if (k.encrypted_by_id) j["encrypted-by-id"] = *k.encrypted_by_id;
  if (!k.properties.empty()) j["properties"] = ojson::StringMapToJson(k.properties);
  return j;
}

namespace {
constexpr char kB64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
}

std::string Base64Encode(std::string_view bytes) {
  std::string out;
  out.reserve((bytes.size() + 2) / 3 * 4);
  size_t i = 0;
  for (; i + 2 < bytes.size(); i += 3) {
    uint32_t n = (uint32_t{static_cast<uint8_t>(bytes[i])} << 16) |
                 (uint32_t{static_cast<uint8_t>(bytes[i + 1])} << 8) |
                 uint32_t{static_cast<uint8_t>(bytes[i + 2])};
    out.push_back(kB64[(n >> 18) & 63]);
    out.push_back(kB64[(n >> 12) & 63]);
    out.push_back(kB64[(n >> 6) & 63]);
    out.push_back(kB64[n & 63]);
  }
  size_t rest = bytes.size() - i;
  if (rest > 0) {
    uint32_t n = uint32_t{static_cast<uint8_t>(bytes[i])} << 16;
    if (rest == 2) n |= uint32_t{static_cast<uint8_t>(bytes[i + 1])} << 8;
    out.push_back(kB64[(n >> 18) & 63]);
    out.push_back(kB64[(n >> 12) & 63]);
    out.push_back(rest == 2 ? kB64[(n >> 6) & 63] : '=');
    out.push_back('=');
  }
  return out;
}

Result<std::string> Base64Decode(std::string_view text) {
  if (text.size() % 4 != 0) return Status::InvalidArgument("invalid base64 length");
  auto value = [](char c) -> int {
    if (c >= 'A' && c <= 'Z') return c - 'A';
    if (c >= 'a' && c <= 'z') return c - 'a' + 26;
    if (c >= '0' && c <= '9') return c - '0' + 52;
    if (c == '+') return 62;
    if (c == '/') return 63;
    return -1;
  };
  std::string out;
  for (size_t i = 0; i < text.size(); i += 4) {
    bool last = i + 4 == text.size();
    int pad = 0;
    if (last && text[i + 3] == '=') pad = text[i + 2] == '=' ? 2 : 1;
    uint32_t n = 0;
    for (int k = 0; k < 4; ++k) {
      int v = 0;
      if (k >= 4 - pad) {
        v = 0;
      } else {
        v = value(text[i + k]);
        if (v < 0) return Status::InvalidArgument("invalid base64 character");
      }
      n = (n << 6) | static_cast<uint32_t>(v);
    }
    out.push_back(static_cast<char>((n >> 16) & 0xFF));
    if (pad < 2) out.push_back(static_cast<char>((n >> 8) & 0xFF));
    if (pad < 1) out.push_back(static_cast<char>(n & 0xFF));
  }
  return out;
}

namespace {

bool EndsWith(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

// Metadata files are JSON text; a bound against decompression bombs.
constexpr size_t kMaxMetadataBytes = size_t{1} << 31;

}  // namespace

// Java TableMetadataParser.Codec.fromFileName.
bool IsGzipMetadataName(std::string_view location) {
  return EndsWith(location, ".metadata.json.gz") || EndsWith(location, ".gz.metadata.json");
}

Result<std::string> ReadMetadataText(io::FileIO& io, std::string_view location) {
  FLOE_ASSIGN_OR_RETURN(Buffer raw, io.ReadFile(location));
  if (!IsGzipMetadataName(location)) {
    return std::string(reinterpret_cast<const char*>(raw.data()), raw.size());
  }
  FLOE_ASSIGN_OR_RETURN(auto codec, format::Codec::Make(format::CompressionKind::kGzip));
  Buffer inflated;
  Status s = codec->DecompressUnknownSize(std::span<const uint8_t>(raw.data(), raw.size()),
                                          &inflated, kMaxMetadataBytes);
  if (!s.ok()) return s.WithContext("{}", location);
  return std::string(reinterpret_cast<const char*>(inflated.data()), inflated.size());
}

Status WriteMetadataText(io::FileIO& io, std::string_view location, std::string_view text) {
  if (!IsGzipMetadataName(location)) return io.WriteFile(location, text, /*overwrite=*/false);
  FLOE_ASSIGN_OR_RETURN(auto codec, format::Codec::Make(format::CompressionKind::kGzip));
  Buffer gz;
  FLOE_RETURN_IF_ERROR(codec->Compress(
      std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(text.data()), text.size()), &gz));
  return io.WriteFile(location,
                      std::string_view(reinterpret_cast<const char*>(gz.data()), gz.size()),
                      /*overwrite=*/false);
}

}  // namespace floe::iceberg
