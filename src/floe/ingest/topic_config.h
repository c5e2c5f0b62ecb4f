// TableTopicConfig: the `floe.table.topic.*` topic configs (AutoMQ's `automq.table.topic.*`
// suffixes; the broker already maps that prefix to ours) parsed and checked as a whole.
// docs/table-topics.md lists every key.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "floe/base/status.h"

namespace floe::ingest {

// kBySchemaId: the Confluent wire format (magic byte, schema id) decoded with that schema;
// kByLatestSchema: no header, decoded with the latest schema of subject <topic>-value.
enum class ConvertType { kRaw, kString, kJson, kBySchemaId, kByLatestSchema };
enum class TransformType { kNone, kFlatten, kFlattenDebezium };
enum class ErrorsTolerance { kNone, kInvalidData, kAll };
// How keyed topics replace a key's earlier row: kPosition, a position delete (v2) or a
// deletion vector (v3) of that row found in the key index (key_index.h), so that every
// snapshot is readable without equality deletes; kEquality, an equality delete of the key
// (Flink's upsert writer), which readers such as pyiceberg cannot read.
enum class DeleteMode { kPosition, kEquality };

// One `partition.by` entry: "name" (identity), "year(ts)", "bucket(id, 16)", "truncate(s, 4)".
struct PartitionByField {
  std::string transform;  // identity, year, month, day, hour, bucket, truncate
  std::string column;
  int32_t argument = 0;  // bucket count / truncate width
};

struct TableTopicConfig {
  bool enabled = false;
  int64_t commit_interval_ms = 60000;
  std::string table_namespace;  // empty: the server's default (floe.yaml kafka.table-namespace)
  ConvertType value_type = ConvertType::kRaw;
  ConvertType key_type = ConvertType::kString;
  // by_schema_id / by_latest_schema keys (stored as bytes, key_type kRaw): decoded only for
  // the key of a Debezium delete without a `before` image. kRaw otherwise.
  ConvertType key_registry = ConvertType::kRaw;
  TransformType transform = TransformType::kNone;
  std::vector<std::string> id_columns;
  bool upsert = false;
  std::string cdc_field;  // dotted path; empty = no CDC field
  std::vector<PartitionByField> partition_by;
  // Every record that cannot be translated goes to the dead-letter table; none stops the
  // topic unless asked (Redpanda's default, iceberg_invalid_record_action=dlq_table).
  ErrorsTolerance errors_tolerance = ErrorsTolerance::kAll;
  DeleteMode delete_mode = DeleteMode::kPosition;
  // The format version of the table the topic creates (an existing table keeps its own).
  int format_version = 2;

  // Values are decoded with schema registry schemas.
  bool registry() const {
    return value_type == ConvertType::kBySchemaId || value_type == ConvertType::kByLatestSchema;
  }

  // Rows are keyed: upserts, CDC ops or Debezium envelopes become equality deletes.
  bool keyed() const {
    return upsert || !cdc_field.empty() || transform == TransformType::kFlattenDebezium;
  }
};

inline constexpr int64_t kMinCommitIntervalMs = 1000;

// Parses a topic's configs (canonical `floe.table.topic.*` names; other keys ignored).
// kInvalidArgument naming the key and what is wrong: unknown enum values; transforms that
// need structured values; upsert or CDC without id.columns; bad partition.by entries.
Result<TableTopicConfig> ParseTableTopicConfig(const std::map<std::string, std::string>& configs);

// The broker's validation hook (BrokerOptions::validate_topic_configs): the message of
// ParseTableTopicConfig's error, or nullopt.
std::optional<std::string> ValidateTableTopicConfigs(
    const std::map<std::string, std::string>& configs);

// Splits a list config: "[a, b]" or "a,b" -> {"a", "b"} (commas inside parentheses kept).
std::vector<std::string> SplitListConfig(std::string_view value);

}  // namespace floe::ingest
