// Private JSON helpers shared by table_metadata.cc, table_update.cc and view_metadata.cc: the
// adapters to the schema / partition spec / sort order JSON of the core model (converted to
// insertion-ordered JSON in Java's member order), the small metadata objects (statistics,
// encryption keys) and metadata-file reading and writing.
#pragma once

#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "floe/base/status.h"
#include "floe/iceberg/table_metadata.h"

namespace floe::io {
class FileIO;
}

namespace floe::iceberg {

using OJson = nlohmann::ordered_json;

// Converts core JSON (sorted keys) to insertion-ordered JSON with members in the order
// Java's SchemaParser / PartitionSpecParser / SortOrderParser write them.
OJson ToJavaMemberOrder(const nlohmann::json& value);

Result<Schema> ParseSchema(const OJson& json);
OJson SchemaJson(const Schema& schema);
// Specs and orders are not checked against a schema when read: like Java (bindUnchecked),
// old specs may name dropped columns.
Result<PartitionSpec> ParseSpec(const OJson& json);
// The v1 metadata "partition-spec" member (fields only; spec id 0).
Result<PartitionSpec> ParseV1SpecFields(const OJson& fields);
OJson SpecJson(const PartitionSpec& spec);
Result<SortOrder> ParseSortOrder(const OJson& json);
OJson SortOrderJson(const SortOrder& order);

Result<StatisticsFile> StatisticsFileFromJson(const OJson& json);
OJson StatisticsFileToJson(const StatisticsFile& file);
Result<PartitionStatisticsFile> PartitionStatisticsFileFromJson(const OJson& json);
OJson PartitionStatisticsFileToJson(const PartitionStatisticsFile& file);
Result<EncryptionKey> EncryptionKeyFromJson(const OJson& json);
OJson EncryptionKeyToJson(const EncryptionKey& key);

std::string Base64Encode(std::string_view bytes);
// Strict RFC 4648 (padding required, like java.util.Base64.getDecoder()).
Result<std::string> Base64Decode(std::string_view text);

// Metadata files (tables and views): `.gz.metadata.json` and `.metadata.json.gz` names are
// gzipped (Java TableMetadataParser.Codec.fromFileName). Reading inflates them (bounded);
// writing never overwrites (kAlreadyExists).
bool IsGzipMetadataName(std::string_view location);
Result<std::string> ReadMetadataText(io::FileIO& io, std::string_view location);
Status WriteMetadataText(io::FileIO& io, std::string_view location, std::string_view text);

}  // namespace floe::iceberg
