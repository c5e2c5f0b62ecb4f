// Produce-time schema validation (docs/table-topics.md, "Produce-time schema validation"):
// the topic configs that turn it on, and SchemaValidator, the registry-backed
// kafka::RecordValidator the broker calls before it stores a batch.
//
// Configs, per side (key, value), on table topics and plain topics alike:
//   floe.table.topic.<side>.validation            none | schema_id | payload
//   floe.table.topic.<side>.subject.name.strategy TopicNameStrategy | RecordNameStrategy |
//                                                 TopicRecordNameStrategy
// with the aliases confluent.<side>.schema.validation / redpanda.<side>.schema.id.validation
// (true = schema_id) and confluent.<side>.subject.name.strategy /
// redpanda.<side>.subject.name.strategy (the short names, or Confluent's class names
// io.confluent.kafka.serializers.subject.<Strategy>). Settings that contradict each other
// are an invalid config. A side whose convert type is by_latest_schema
// (floe.table.topic.convert.<side>.type) carries no header: it is checked against the
// latest version of <topic>-<side>.
//
// schema_id: a non-null record carries the Confluent wire header (magic 0, a 4-byte id), the
// id is registered, and it is registered (live) under the subject the strategy gives.
// payload: that, and the payload decodes with the schema (Avro datum, Protobuf message at
// its message indexes, JSON Schema: types, required properties, enum / const, formats date
// and date-time, properties, items, additionalProperties, allOf / anyOf / oneOf, local
// $refs). Null keys and values (tombstones) pass, as with Confluent and Redpanda.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "floe/base/status.h"
#include "floe/ingest/schema_registry.h"
#include "floe/kafka/record_validator.h"

namespace floe::ingest {

enum class ValidationMode { kNone, kSchemaId, kPayload };
enum class SubjectNameStrategy { kTopicName, kRecordName, kTopicRecordName };

struct SchemaValidationSide {
  ValidationMode mode = ValidationMode::kNone;
  SubjectNameStrategy strategy = SubjectNameStrategy::kTopicName;
  bool latest_schema = false;  // no header: the latest version of <topic>-<side>
};

struct SchemaValidationConfig {
  SchemaValidationSide key;
  SchemaValidationSide value;
  bool enabled() const {
    return key.mode != ValidationMode::kNone || value.mode != ValidationMode::kNone;
  }
};

// Parses the validation configs out of a topic's configs (canonical names; others are
// ignored). kInvalidArgument naming the key: an unknown mode or strategy, settings that
// contradict each other, RecordNameStrategy with a by_latest_schema side.
Result<SchemaValidationConfig> ParseSchemaValidationConfig(
    const std::map<std::string, std::string>& configs);

// The broker's validate_topic_configs check of the same: the error message, or nullopt.
std::optional<std::string> ValidateSchemaValidationConfigs(
    const std::map<std::string, std::string>& configs);

// The subject `strategy` gives a record of `topic` whose schema's record name (Avro
// fullname, Protobuf message full name, JSON Schema title) is `record_name`.
std::string SubjectName(SubjectNameStrategy strategy, std::string_view topic, bool key,
                        std::string_view record_name);

// Checks `value` against JSON Schema `schema` (whose local $refs resolve in `root`). The
// error names the field ("field 'order.qty': ...") and what is wrong. At most `budget`
// steps (schema nodes visited): a schema whose $refs and anyOf / oneOf branches would make
// the walk explode is an error, not a stalled thread.
Status CheckJsonSchemaValue(const nlohmann::json& value, const nlohmann::json& schema,
                            const nlohmann::json& root, int64_t budget = 1'000'000);

class SchemaValidator final : public kafka::RecordValidator {
 public:
  // Null when `config` turns nothing on. REQUIRES: `registry` (null: every checked record
  // is refused, there is no registry) outlives the validator.
  static std::unique_ptr<kafka::RecordValidator> Make(const SchemaRegistry* registry,
                                                      std::string topic,
                                                      const SchemaValidationConfig& config);
  ~SchemaValidator() override;

  // Thread-safety: one thread (the broker's). Registry lookups happen only on a cache miss
  // and after the registry changed (SchemaRegistry::generation), never per record.
  void Validate(std::span<const kafka::RecordView> records,
                std::vector<kafka::RecordError>* errors) override;

  struct Side;

 private:
  SchemaValidator() = default;
  const SchemaRegistry* registry_ = nullptr;
  std::unique_ptr<Side> key_;    // null: keys unchecked
  std::unique_ptr<Side> value_;  // null: values unchecked
};

// The server's BrokerOptions::make_record_validator: SchemaValidator::Make over `registry`
// for a topic's parsed configs (null when they turn nothing on).
kafka::RecordValidatorFactory MakeSchemaValidatorFactory(const SchemaRegistry* registry);

}  // namespace floe::ingest
