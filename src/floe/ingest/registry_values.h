// RegistryValues: the record values of a table topic with convert.value.type by_schema_id
// or by_latest_schema, decoded by their registry schema into columns (docs/table-topics.md).
//
// Each distinct (schema id, Protobuf message-index path) gets a Codec, built once from the
// registry's schema: the record's columns (registry_codec.h) and a decoder that appends
// straight into column builders (Avro: format/avro DatumReader; Protobuf: ProtoDecoder;
// JSON Schema: the translator's text RowDecoder on the JSON payload). The last codec used is
// remembered, so a run of records of one schema costs one comparison each to resolve.
//
// Thread-safety: one thread (the topic's translator).
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "floe/base/status.h"
#include "floe/columnar/array.h"
#include "floe/format/avro/datum_reader.h"
#include "floe/iceberg/schema.h"
#include "floe/ingest/proto_decoder.h"
#include "floe/ingest/registry_cdc.h"
#include "floe/ingest/schema_registry.h"
#include "floe/ingest/topic_config.h"

namespace floe::ingest {

struct RegistryCodec {
  int32_t schema_id = 0;
  SchemaType type = SchemaType::kAvro;
  // Why records of this schema cannot be decoded (an unsupported type, a schema that does
  // not parse); empty when they can.
  std::string error;
  // The value columns the table must hold for these records (transform none: one struct
  // column "value"; flatten_debezium: the fields of the envelope's row image), field ids 0.
  std::vector<iceberg::NestedField> columns;
  // The table schema id these columns were last checked to fit (-1: not yet).
  int32_t fits_schema_id = -1;

  // Decoding state.
  format::avro::SchemaPtr avro_schema;
  std::unique_ptr<format::avro::DatumReader> avro;
  std::unique_ptr<proto::ProtoSchema> proto_schema;
  const proto::Message* proto_message = nullptr;
  std::unique_ptr<ProtoDecoder> proto;
  std::vector<std::string> names;  // the decoded columns' names (Debezium: the envelope's)
};

class RegistryValues {
 public:
  // REQUIRES: `registry` (may be null: every record is then invalid) outlives this.
  // Values of `config.value_type` with subject <topic><subject_suffix> for by_latest_schema.
  RegistryValues(const SchemaRegistry* registry, const TableTopicConfig& config, std::string topic,
                 std::string_view subject_suffix = "-value");

  // by_latest_schema: looks up the latest schema of <topic>-value again (once per round).
  void RefreshLatest();

  // The codec for a record value, and its payload (after the header and message indexes).
  // kInvalidArgument (invalid data) when the value has no header or names an unknown
  // schema; a codec with an `error` is returned as such.
  Result<RegistryCodec*> Resolve(std::span<const uint8_t> value, std::span<const uint8_t>* payload);

  // Appends a payload to the codec's builders (Avro, Protobuf). Malformed bytes are
  // kCorrupt / kInvalidArgument; afterwards call Reset() before decoding again.
  Status Decode(RegistryCodec* codec, std::span<const uint8_t> payload);

  // The codec's rows since the last call, as the table's value columns `targets`. With
  // flatten_debezium or cdc.field (Avro, Protobuf), `keyed` gets each row's op or why it is
  // invalid data (the row's columns are then null), and Debezium rows are the op's image.
  Result<std::vector<columnar::Array>> Finish(RegistryCodec* codec,
                                              const std::vector<iceberg::NestedField>& targets,
                                              KeyedRows* keyed);

  // Drops every decoder's pending rows.
  void Reset();

 private:
  Result<std::unique_ptr<RegistryCodec>> MakeCodec(int32_t id, std::span<const uint8_t> indexes);

  const SchemaRegistry* registry_;
  ConvertType mode_;
  bool wrap_;              // transform none: the record is one struct column "value"
  bool debezium_;          // flatten_debezium: values are Debezium envelopes
  std::string cdc_field_;  // cdc.field: the dotted field holding each record's op
  std::string subject_;
  int32_t latest_id_ = 0;
  std::map<std::pair<int32_t, std::string>, std::unique_ptr<RegistryCodec>> codecs_;
  RegistryCodec* last_ = nullptr;
  int32_t last_id_ = -1;
  std::string last_indexes_;
};

}  // namespace floe::ingest
