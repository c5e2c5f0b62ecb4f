#include "floe/ingest/translator.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cstring>

#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include "floe/base/json.h"
#include "floe/base/macros.h"
#include "floe/columnar/builder.h"
#include "floe/columnar/compute.h"
#include "floe/columnar/gather.h"
#include "floe/format/text/decoder.h"
#include "floe/format/text/scalar.h"
#include "floe/iceberg/data_writer.h"
#include "floe/iceberg/metadata_updates.h"
#include "floe/iceberg/snapshot_producer.h"
#include "floe/iceberg/table.h"
#include "floe/ingest/dead_letter_sink.h"
#include "floe/ingest/json_schema.h"
#include "floe/ingest/keyed_batch_writer.h"
#include "floe/ingest/offset_committer.h"
#include "floe/ingest/partition_reader.h"
#include "floe/ingest/registry_cdc.h"
#include "floe/ingest/registry_codec.h"
#include "floe/ingest/registry_values.h"

namespace floe::ingest {

namespace col = floe::columnar;
using format::text::internal::RowDecoder;

std::map<std::string, std::string> TableTopicTableDefaults() {
  return {{"write.metadata.delete-after-commit.enabled", "true"},
          {"write.metadata.previous-versions-max", "20"},
          {"commit.manifest.min-count-to-merge", "10"}};
}

namespace {

// The rows of a dead-letter table: its current snapshot's total-records (floe appends only).
int64_t DlqRowCount(const iceberg::TableMetadata& md) {
  const iceberg::Snapshot* snapshot = md.current_snapshot();
  if (snapshot == nullptr) return 0;
  const std::string* total = snapshot->SummaryValue("total-records");
  int64_t n = 0;
  if (total == nullptr ||
      std::from_chars(total->data(), total->data() + total->size(), n).ec != std::errc()) {
    return 0;
  }
  return n;
}

// The `_kafka` column: where each row came from (docs/table-topics.md).
iceberg::TypePtr KafkaColumnType(bool string_key) {
  using iceberg::NestedField;
  return iceberg::StructType({
      NestedField::Required(0, "partition", iceberg::IntType()),
      NestedField::Required(0, "offset", iceberg::LongType()),
      NestedField::Required(0, "timestamp", iceberg::TimestampTzType()),
      NestedField::Optional(0, "key", string_key ? iceberg::StringType() : iceberg::BinaryType()),
      NestedField::Optional(
          0, "headers",
          iceberg::MapType(0, iceberg::StringType(), 0, iceberg::BinaryType(), false)),
  });
}

// A minimal JSON scanner for keyed topics: finds members of an object without building
// anything (the op field, Debezium's before/after, id columns). Malformed text yields
// nullopt; the full decode reports the error.
const char* SkipWs(const char* p, const char* e) {
  while (p < e && (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n')) ++p;
  return p;
}

const char* SkipString(const char* p, const char* e) {  // p at the opening quote
  for (++p; p < e; ++p) {
    if (*p == '\\') {
      ++p;
    } else if (*p == '"') {
      return p + 1;
    }
  }
  return nullptr;
}

const char* SkipValue(const char* p, const char* e, int depth) {
  p = SkipWs(p, e);
  if (p >= e || depth > 64) return nullptr;
  if (*p == '"') return SkipString(p, e);
  if (*p == '{' || *p == '[') {
    const char close = *p == '{' ? '}' : ']';
    const bool object = *p == '{';
    p = SkipWs(p + 1, e);
    if (p < e && *p == close) return p + 1;
    while (p < e) {
      if (object) {
        p = SkipWs(p, e);
        if (p >= e || *p != '"' || (p = SkipString(p, e)) == nullptr) return nullptr;
        p = SkipWs(p, e);
        if (p >= e || *p != ':') return nullptr;
        ++p;
      }
      if ((p = SkipValue(p, e, depth + 1)) == nullptr) return nullptr;
      p = SkipWs(p, e);
      if (p >= e) return nullptr;
      if (*p == close) return p + 1;
      if (*p != ',') return nullptr;
      ++p;
    }
    return nullptr;
  }
  while (p < e && *p != ',' && *p != '}' && *p != ']' && *p != ' ' && *p != '\t' && *p != '\r' &&
         *p != '\n') {
    ++p;
  }
  return p;
}

// The text of member `name` of the JSON object `text` (names compared as written).
std::optional<std::string_view> FindMember(std::string_view text, std::string_view name) {
  const char* p = SkipWs(text.data(), text.data() + text.size());
  const char* e = text.data() + text.size();
  if (p >= e || *p != '{') return std::nullopt;
  p = SkipWs(p + 1, e);
  if (p < e && *p == '}') return std::nullopt;
  while (p < e) {
    p = SkipWs(p, e);
    if (p >= e || *p != '"') return std::nullopt;
    const char* key_end = SkipString(p, e);
    if (key_end == nullptr) return std::nullopt;
    std::string_view key(p + 1, static_cast<size_t>(key_end - p - 2));
    p = SkipWs(key_end, e);
    if (p >= e || *p != ':') return std::nullopt;
    const char* v = SkipWs(p + 1, e);
    const char* v_end = SkipValue(v, e, 1);
    if (v_end == nullptr) return std::nullopt;
    if (key == name) return std::string_view(v, static_cast<size_t>(v_end - v));
    p = SkipWs(v_end, e);
    if (p >= e || *p != ',') return std::nullopt;
    ++p;
  }
  return std::nullopt;
}

iceberg::Transform PartitionTransform(const PartitionByField& f) {
  if (f.transform == "year") return iceberg::Transform::Year();
  if (f.transform == "month") return iceberg::Transform::Month();
  if (f.transform == "day") return iceberg::Transform::Day();
  if (f.transform == "hour") return iceberg::Transform::Hour();
  if (f.transform == "bucket") return iceberg::Transform::Bucket(f.argument);
  if (f.transform == "truncate") return iceberg::Transform::Truncate(f.argument);
  return iceberg::Transform::Identity();
}

}  // namespace

struct TopicTranslator::Impl {
  std::string topic;
  TableTopicConfig config;
  catalog::Catalog* catalog;
  BrokerCall broker;
  IngestOptions options;
  catalog::TableIdentifier id;
  catalog::TableIdentifier dlq_id;

  mutable std::mutex stats_mu;
  TopicStats stats;  // guarded by stats_mu

  bool loaded = false;
  std::unique_ptr<iceberg::TableOperations> ops;
  std::unique_ptr<iceberg::Table> table;
  OffsetCommitter offsets{"committed offsets"};  // per partition: below, in the table
  std::vector<int64_t> next;
  // Per partition: the timestamp of the oldest record read but not committed, -1 for none
  // (the translation lag in seconds).
  std::vector<int64_t> pending_first_ms;
  std::unique_ptr<DeadLetterSink> dlq;  // records that cannot go into the table
  int64_t last_commit_ms = 0;

  std::unique_ptr<PartitionReader> reader;  // the log -> the arena of RecordRefs

  // Decoding into the table's current schema.
  col::SchemaPtr table_columnar;
  std::unique_ptr<RowDecoder> decoder;       // json: the value columns
  std::unique_ptr<col::ArrayBuilder> meta;   // the _kafka column
  std::unique_ptr<col::ArrayBuilder> value;  // raw / string: the value column
  std::string wrapped;                       // json + transform none: {"value":...}
  // Registry-decoded values: the codec of the rows in the builders, and one that a row
  // needs the table to evolve for (set by DecodeValue for HandleBadRow).
  std::unique_ptr<RegistryValues> registry_values;
  // Registry-encoded keys of a flatten_debezium topic: the ids of deletes without `before`.
  std::unique_ptr<RegistryValues> key_values;
  RegistryCodec* active_codec = nullptr;
  RegistryCodec* evolve_codec = nullptr;
  std::string registry_json_text;  // a JSON Schema payload the decoder rejected
  std::unique_ptr<iceberg::DataWriter> writer;
  std::vector<iceberg::DataFile> files;
  int64_t pending_rows = 0;

  // Keyed topics (upserts, CDC): the rows of the pending commit with each row's op ('U'
  // upsert, 'D' delete), deduplicated by key at commit time.
  std::unique_ptr<KeyedBatchWriter> keyed_rows;
  std::vector<char> pending_ops;      // rows in the builders
  std::vector<RecordRef> built_rows;  // the rows in the builders, in order
  bool skip_row = false;              // set by DecodeValue: the row adds nothing
  std::vector<int64_t> processed;     // per partition: one past the last row handled
  std::vector<iceberg::DataFile> delete_files;
  // Position mode: what the pending commit's delete files replace and name, and the key
  // index update to apply once it lands.
  std::optional<PositionalDeletes> positional;

  int64_t Now() const { return options.now_ms(); }

  void SetState(std::string state, std::string error) {
    std::lock_guard lock(stats_mu);
    stats.state = std::move(state);
    stats.last_error = std::move(error);
  }

  std::string_view Bytes(int64_t pos, int64_t len) const { return reader->Bytes(pos, len); }

  // ---- loading

  Result<std::vector<kafka::Broker::TopicView::PartitionView>> Partitions() {
    std::vector<kafka::Broker::TopicView::PartitionView> out;
    bool found = false;
    FLOE_RETURN_IF_ERROR(broker([&](kafka::Broker& b) {
      for (auto& t : b.ListTopics()) {
        if (t.name == topic) {
          out = std::move(t.partitions);
          found = true;
        }
      }
    }));
    if (!found) return Status::NotFound("topic '{}' is gone", topic);
    return out;
  }

  const std::vector<int64_t>& committed() const { return offsets.ends(); }

  Status Load() {
    FLOE_ASSIGN_OR_RETURN(auto parts, Partitions());
    FLOE_RETURN_IF_ERROR(offsets.Start(parts.size(), nullptr));
    pending_first_ms.assign(parts.size(), -1);
    FLOE_RETURN_IF_ERROR(dlq->Start(parts.size(), nullptr));
    table.reset();
    ops.reset();
    auto loaded_ops = catalog->LoadTable(id);
    if (loaded_ops.ok()) {
      ops = std::move(*loaded_ops);
      FLOE_ASSIGN_OR_RETURN(table, iceberg::Table::Load(*ops));
      FLOE_RETURN_IF_ERROR(offsets.Start(parts.size(), table->metadata().get()));
    } else if (loaded_ops.error().code() != StatusCode::kNotFound) {
      return loaded_ops.status();
    }
    auto dlq_ops = catalog->LoadTable(dlq_id);
    if (dlq_ops.ok()) {
      FLOE_ASSIGN_OR_RETURN(auto dlq_table, iceberg::Table::Load(**dlq_ops));
      FLOE_RETURN_IF_ERROR(dlq->Start(parts.size(), dlq_table->metadata().get()));
      // The dead-letter count survives restarts: it is the table's row count.
      std::lock_guard lock(stats_mu);
      stats.dlq_records = DlqRowCount(*dlq_table->metadata());
    } else if (dlq_ops.error().code() != StatusCode::kNotFound) {
      return dlq_ops.status();
    }
    next = committed();
    processed = committed();
    for (size_t p = 0; p < parts.size(); ++p) {
      // Records below the log start are gone (retention ran before the topic became a table
      // topic); translation starts at what the log still holds.
      next[p] = std::max(next[p], parts[p].log_start_offset);
    }
    FLOE_RETURN_IF_ERROR(broker([&](kafka::Broker& b) {
      for (size_t p = 0; p < committed().size(); ++p) {
        b.SetCommittedOffset(topic, static_cast<int32_t>(p), committed()[p]);
      }
    }));
    if (table) FLOE_RETURN_IF_ERROR(Rebind());
    last_commit_ms = Now();
    loaded = true;
    {
      std::lock_guard lock(stats_mu);
      stats.partitions.assign(parts.size(), {});
      for (size_t p = 0; p < parts.size(); ++p) {
        stats.partitions[p].committed_offset = committed()[p];
        stats.partitions[p].translated_offset = next[p];
        stats.partitions[p].log_end_offset = parts[p].log_end_offset;
      }
    }
    SetState("running", "");
    return Status::OK();
  }

  Status CreateTable() {
    Status ns = catalog->CreateNamespace(id.ns, {});
    if (!ns.ok() && ns.code() != StatusCode::kAlreadyExists) return ns;
    int32_t last_id = 1;  // the catalog reassigns ids anyway; these only need to be unique
    auto next_id = [&last_id] { return ++last_id; };
    std::vector<iceberg::NestedField> fields = {iceberg::NestedField::Required(
        1, std::string(kKafkaColumn),
        iceberg::AssignFreshIds(*KafkaColumnType(config.key_type == ConvertType::kString), next_id),
        "Kafka partition, offset, timestamp, key and headers of the record")};
    if (config.value_type != ConvertType::kJson && !config.registry()) {
      fields.push_back(iceberg::NestedField::Optional(next_id(), "value",
                                                      config.value_type == ConvertType::kString
                                                          ? iceberg::StringType()
                                                          : iceberg::BinaryType()));
    }
    catalog::CreateTableRequest request;
    FLOE_ASSIGN_OR_RETURN(request.schema, iceberg::Schema::Make(std::move(fields)));
    request.format_version = config.format_version;
    request.properties = TableTopicTableDefaults();
    request.properties["floe.ingest.topic"] = topic;
    auto created = catalog->CreateTable(id, request);
    if (!created.ok() && created.error().code() != StatusCode::kAlreadyExists) {
      return created.status();
    }
    FLOE_ASSIGN_OR_RETURN(ops, catalog->LoadTable(id));
    FLOE_ASSIGN_OR_RETURN(table, iceberg::Table::Load(*ops));
    FLOE_RETURN_IF_ERROR(offsets.Start(committed().size(), table->metadata().get()));
    if (!offsets.property().empty()) {
      return Status::Conflict("table {} appeared with committed offsets; starting over",
                              id.ToString());
    }
    return Rebind();
  }

  // Rebuilds the decoders for the table's current schema.
  Status Rebind() {
    const iceberg::Schema& schema = *table->metadata()->current_schema();
    if (schema.fields().empty() || schema.fields()[0].name != kKafkaColumn) {
      return Status::FailedPrecondition("table {} does not start with the {} column", id.ToString(),
                                        kKafkaColumn);
    }
    table_columnar = std::make_shared<col::Schema>(schema.ToColumnar());
    meta = col::MakeBuilder(table_columnar->field(0).type);
    built_rows.clear();
    pending_ops.clear();
    decoder.reset();
    value.reset();
    if (registry_values) registry_values->Reset();
    active_codec = nullptr;
    if (config.value_type == ConvertType::kJson || config.registry()) {
      std::vector<iceberg::NestedField> rest(schema.fields().begin() + 1, schema.fields().end());
      FLOE_ASSIGN_OR_RETURN(iceberg::Schema value_schema, iceberg::Schema::Make(std::move(rest)));
      format::text::ReadOptions ro;
      FLOE_ASSIGN_OR_RETURN(
          decoder, RowDecoder::Make(std::make_shared<col::Schema>(value_schema.ToColumnar()), ro));
    } else {
      if (schema.fields().size() != 2) {
        return Status::FailedPrecondition("table {} should have the columns _kafka and value",
                                          id.ToString());
      }
      value = col::MakeBuilder(table_columnar->field(1).type);
    }
    return Status::OK();
  }

  // ---- decoding

  void AppendMeta(const RecordRef& row) {
    built_rows.push_back(row);
    auto* s = static_cast<col::StructBuilder*>(meta.get());
    s->Append();
    static_cast<col::FixedWidthBuilder<int32_t>*>(s->child(0))->Append(row.partition);
    static_cast<col::FixedWidthBuilder<int64_t>*>(s->child(1))->Append(row.offset);
    static_cast<col::FixedWidthBuilder<int64_t>*>(s->child(2))->Append(row.timestamp_ms * 1000);
    auto* key = static_cast<col::BinaryBuilder*>(s->child(3));
    if (row.key_len < 0) {
      key->AppendNull();
    } else {
      key->Append(Bytes(row.key_pos, row.key_len));
    }
    auto* headers = static_cast<col::ListBuilder*>(s->child(4));
    headers->Append();
    auto* hk = static_cast<col::BinaryBuilder*>(headers->key_builder());
    auto* hv = static_cast<col::BinaryBuilder*>(headers->item_builder());
    auto* entries = static_cast<col::StructBuilder*>(headers->child());
    int64_t pos = row.headers_pos;
    for (int32_t i = 0; i < row.header_count; ++i) {
      uint32_t klen;
      std::memcpy(&klen, reader->Span(pos, 4).data(), 4);
      pos += 4;
      entries->Append();
      hk->Append(Bytes(pos, klen));
      pos += klen;
      int32_t vlen;
      std::memcpy(&vlen, reader->Span(pos, 4).data(), 4);
      pos += 4;
      if (vlen < 0) {
        hv->AppendNull();
      } else {
        hv->Append(Bytes(pos, vlen));
        pos += vlen;
      }
    }
    headers->Close();
  }

  // Keyed topics: the op and the row's JSON text of a value (Debezium: `after`, or `before`
  // for a delete; the envelope may sit in `payload`). kInvalidArgument: invalid data.
  Result<std::pair<char, std::string_view>> Envelope(std::string_view value) const {
    char op = kOpUpsert;
    std::string_view row = value;
    if (config.transform == TransformType::kFlattenDebezium) {
      std::string_view envelope = value;
      if (auto payload = FindMember(value, "payload"); payload && payload->starts_with('{')) {
        envelope = *payload;
      }
      auto op_text = FindMember(envelope, "op");
      if (!op_text || op_text->size() < 2 || (*op_text)[0] != '"') {
        return Status::InvalidArgument("not a Debezium envelope: no \"op\"");
      }
      const std::string_view c = op_text->substr(1, op_text->size() - 2);
      FLOE_ASSIGN_OR_RETURN(op, DebeziumOp(c));
      auto image = FindMember(envelope, op == kOpDelete ? "before" : "after");
      if (!image || !image->starts_with('{')) {
        return Status::InvalidArgument("Debezium op '{}' without \"{}\"", c,
                                       op == kOpDelete ? "before" : "after");
      }
      row = *image;
    } else if (!config.cdc_field.empty()) {
      std::string_view at = value;
      std::optional<std::string_view> field;
      size_t start = 0;
      while (true) {
        size_t dot = config.cdc_field.find('.', start);
        std::string_view name =
            std::string_view(config.cdc_field)
                .substr(start, dot == std::string::npos ? std::string::npos : dot - start);
        field = FindMember(at, name);
        if (!field || dot == std::string::npos) break;
        at = *field;
        start = dot + 1;
      }
      if (!field || field->size() < 3 || (*field)[0] != '"') {
        return Status::InvalidArgument("no string CDC field \"{}\"", config.cdc_field);
      }
      FLOE_ASSIGN_OR_RETURN(op, CdcFieldOp(field->substr(1, field->size() - 2), config.cdc_field));
    }
    for (const std::string& id_column : config.id_columns) {
      auto v = FindMember(row, id_column);
      if (!v || *v == "null") {
        return Status::InvalidArgument("the row has no id column \"{}\"", id_column);
      }
    }
    return std::make_pair(op, row);
  }

  // A keyed record with a null value. Debezium follows every delete event with one (for
  // log compaction; tombstones.on.delete): the delete event already removed the key, so
  // the tombstone adds no row (skip_row). For upserts and cdc.field it is invalid data.
  Status Tombstone(bool* invalid_data) {
    if (config.transform == TransformType::kFlattenDebezium) {
      skip_row = true;
      return Status::OK();
    }
    *invalid_data = true;
    return Status::InvalidArgument("a null value carries no key to upsert or delete");
  }

  // Registry values whose op the decoded columns hold (Debezium envelopes, cdc.field):
  // RegistryValues::Finish works the ops out per batch (Avro, Protobuf).
  bool OpsFromColumns() const {
    return config.transform == TransformType::kFlattenDebezium || !config.cdc_field.empty();
  }

  // Decodes one row's value into the value builders; on error the builders may hold part
  // of the row (json), so the caller rebuilds them. A row that adds nothing (a Debezium
  // tombstone) sets skip_row instead.
  Status DecodeValue(const RecordRef& row, bool* invalid_data) {
    *invalid_data = false;
    if (config.key_type == ConvertType::kString && row.key_len >= 0 &&
        !format::text::ValidUtf8(Bytes(row.key_pos, row.key_len))) {
      *invalid_data = true;
      return Status::InvalidArgument("the key is not valid UTF-8");
    }
    if (config.registry()) return DecodeRegistryValue(row, invalid_data);
    if (config.value_type == ConvertType::kRaw) {
      auto* b = static_cast<col::BinaryBuilder*>(value.get());
      row.value_len < 0 ? b->AppendNull() : b->Append(Bytes(row.value_pos, row.value_len));
      return Status::OK();
    }
    if (row.value_len >= 0 && !format::text::ValidUtf8(Bytes(row.value_pos, row.value_len))) {
      *invalid_data = true;
      return Status::InvalidArgument("the value is not valid UTF-8");
    }
    if (config.value_type == ConvertType::kString) {
      auto* b = static_cast<col::BinaryBuilder*>(value.get());
      row.value_len < 0 ? b->AppendNull() : b->Append(Bytes(row.value_pos, row.value_len));
      return Status::OK();
    }
    if (config.keyed()) {
      if (row.value_len < 0) return Tombstone(invalid_data);
      auto envelope = Envelope(Bytes(row.value_pos, row.value_len));
      if (!envelope.ok()) {
        *invalid_data = true;
        return envelope.status();
      }
      FLOE_RETURN_IF_ERROR(decoder->DecodeJsonRow(envelope->second));
      pending_ops.push_back(envelope->first);
      return Status::OK();
    }
    if (row.value_len < 0) {
      // A tombstone: no value columns to fill, every one null.
      return decoder->DecodeJsonRow("{}");
    }
    std::string_view text = Bytes(row.value_pos, row.value_len);
    if (config.transform == TransformType::kNone) {
      wrapped.assign("{\"value\":");
      wrapped.append(text);
      wrapped.push_back('}');
      text = wrapped;
    }
    return decoder->DecodeJsonRow(text);
  }

  // The codec of a row's value, or nullptr when it has none (the decode reports why).
  RegistryCodec* RowCodec(const RecordRef& row) {
    if (row.value_len < 0) return nullptr;
    std::span<const uint8_t> payload;
    auto codec = registry_values->Resolve(reader->Span(row.value_pos, row.value_len), &payload);
    return codec.ok() && (*codec)->error.empty() ? *codec : nullptr;
  }

  // Registry-decoded values (see RegistryValues). A schema the table cannot hold yet sets
  // evolve_codec and fails, so that HandleBadRow evolves the table and the row is retried.
  Status DecodeRegistryValue(const RecordRef& row, bool* invalid_data) {
    if (row.value_len < 0) {
      if (config.keyed()) return Tombstone(invalid_data);
      *invalid_data = true;
      return Status::InvalidArgument("a null value carries no schema");
    }
    std::span<const uint8_t> payload;
    auto resolved = registry_values->Resolve(reader->Span(row.value_pos, row.value_len), &payload);
    if (!resolved.ok()) {
      *invalid_data = true;
      return resolved.status();
    }
    RegistryCodec* codec = *resolved;
    if (!codec->error.empty()) {
      *invalid_data = true;
      return Status::InvalidArgument("{}", codec->error);
    }
    const int32_t schema_id = table->metadata()->current_schema()->schema_id();
    if (codec->fits_schema_id != schema_id) {
      auto changes = CodecChanges(*codec);
      if (changes.ok() && changes->empty()) {
        codec->fits_schema_id = schema_id;
      } else {
        evolve_codec = codec;
        return changes.ok() ? Status::FailedPrecondition("schema id {} needs a schema update",
                                                         codec->schema_id)
                            : changes.status();
      }
    }
    if (active_codec != nullptr && active_codec != codec) {
      return Status::Internal("rows of two schemas in one batch");
    }
    active_codec = codec;
    if (codec->type == SchemaType::kJson) {
      std::string_view text(reinterpret_cast<const char*>(payload.data()), payload.size());
      if (!format::text::ValidUtf8(text)) {
        *invalid_data = true;
        return Status::InvalidArgument("the value is not valid UTF-8");
      }
      char op = kOpUpsert;
      if (OpsFromColumns()) {
        // JSON text: the same envelope and CDC field scan as convert.value.type json.
        auto envelope = Envelope(text);
        if (!envelope.ok()) {
          *invalid_data = true;
          return envelope.status();
        }
        op = envelope->first;
        text = envelope->second;
      }
      if (config.transform == TransformType::kNone) {
        wrapped.assign("{\"value\":");
        wrapped.append(text);
        wrapped.push_back('}');
        text = wrapped;
      }
      Status st = decoder->DecodeJsonRow(text);
      if (!st.ok()) {
        // HandleBadRow decides: not JSON (invalid data), or columns to add.
        registry_json_text.assign(text);
        return st;
      }
      if (config.keyed()) pending_ops.push_back(op);
      return Status::OK();
    }
    Status st = registry_values->Decode(codec, payload);
    if (!st.ok()) {
      *invalid_data = true;
      return st.WithContext("schema id {}", codec->schema_id);
    }
    if (config.keyed() && !OpsFromColumns()) pending_ops.push_back(kOpUpsert);
    return Status::OK();
  }

  Status WriteBuilt() {
    std::vector<col::Array> columns;
    columns.push_back(meta->Finish());
    int64_t n = columns[0].length();
    std::vector<RecordRef> built = std::move(built_rows);
    built_rows.clear();
    if (active_codec != nullptr && active_codec->type != SchemaType::kJson) {
      const iceberg::Schema& schema = *table->metadata()->current_schema();
      std::vector<iceberg::NestedField> targets(schema.fields().begin() + 1, schema.fields().end());
      KeyedRows keyed;
      FLOE_ASSIGN_OR_RETURN(std::vector<col::Array> values,
                            registry_values->Finish(active_codec, targets, &keyed));
      for (col::Array& a : values) columns.push_back(std::move(a));
      if (config.keyed() && n > 0) {
        col::RecordBatch batch(table_columnar, n, std::move(columns));
        FLOE_RETURN_IF_ERROR(KeepKeyedRows(&batch, built, &keyed));
        n = batch.num_rows();
        columns = std::move(batch.mutable_columns());
      }
    } else if (decoder) {
      col::RecordBatch values = decoder->Finish();
      for (col::Array& a : values.mutable_columns()) columns.push_back(std::move(a));
    } else {
      columns.push_back(value->Finish());
    }
    if (n == 0) return Status::OK();
    if (config.keyed()) {
      FLOE_RETURN_IF_ERROR(
          keyed_rows->Hold(col::RecordBatch(table_columnar, n, std::move(columns)), pending_ops));
      pending_ops.clear();
      return Status::OK();
    }
    if (!writer) {
      const iceberg::TableMetadata& md = *table->metadata();
      iceberg::FileWriterOptions o;
      o.table_location = md.location;
      o.properties = md.properties;
      o.operation_id = table->operations().env().NewUuid();
      FLOE_ASSIGN_OR_RETURN(
          writer, iceberg::DataWriter::Make(&table->io(), *md.current_schema(), *md.default_spec(),
                                            iceberg::SortOrder(), false, o));
    }
    pending_rows += n;
    return writer->Write(col::RecordBatch(table_columnar, n, std::move(columns)));
  }

  Status CloseWriter() {
    if (!writer) return Status::OK();
    FLOE_ASSIGN_OR_RETURN(std::vector<iceberg::DataFile> done, writer->Close());
    writer.reset();
    for (auto& f : done) files.push_back(std::move(f));
    return Status::OK();
  }

  // Keyed topics: the last row of each key that is not a delete, plus position deletes of
  // the keys' earlier rows (position mode) or equality deletes of every key touched.
  Status WriteKeyed() {
    if (keyed_rows->empty()) return Status::OK();
    const bool position_mode = config.delete_mode == DeleteMode::kPosition;
    if (position_mode && options.key_index == nullptr) {
      return Status::FailedPrecondition(
          "topic {}: delete.mode position needs the key index (floe.yaml kafka.key-index)", topic);
    }
    FLOE_ASSIGN_OR_RETURN(KeyedCommitFiles written, keyed_rows->Write(*table, position_mode));
    for (auto& f : written.data_files) files.push_back(std::move(f));
    for (auto& f : written.delete_files) delete_files.push_back(std::move(f));
    positional = std::move(written.positional);
    pending_rows = written.data_rows;
    return Status::OK();
  }

  // Position mode, after a commit: the key index follows the table to `ranges`' snapshot.
  void IndexCommitted(const std::string& ranges) {
    if (!positional) return;
    const iceberg::Snapshot* s = table->metadata()->current_snapshot();
    const std::string* committed_ranges = s ? s->SummaryValue(kSummaryOffsets) : nullptr;
    Status st;
    if (committed_ranges != nullptr && *committed_ranges == ranges) {
      st = keyed_rows->Committed(*positional, s->snapshot_id, s->parent_snapshot_id);
    } else {
      st = Status::Internal("the table's current snapshot is not the commit's");
    }
    if (!st.ok()) {
      // The commit stands; the next sync reads the index from its last recorded snapshot on.
      keyed_rows->ForgetIndex();
      std::lock_guard lock(stats_mu);
      ++stats.key_index_errors;
      stats.last_key_index_error = std::string(st.message());
    }
    positional.reset();
  }

  // Evolves the table so that `object` (the record's value columns as JSON) decodes.
  // Returns false when no change would help.
  Result<bool> Evolve(const nlohmann::json& object, std::string* conflict) {
    const iceberg::Schema& schema = *table->metadata()->current_schema();
    std::vector<iceberg::NestedField> rest(schema.fields().begin() + 1, schema.fields().end());
    std::vector<SchemaChange> changes;
    Status inferred = InferChanges(rest, object, "", &changes);
    if (!inferred.ok()) {
      *conflict = std::string(inferred.message());
      return false;
    }
    return ApplyChanges(std::move(changes), conflict);
  }

  // The registry schema's changes for a codec (registry_codec.h, RecordChanges). Id columns
  // of keyed topics stay required (identifier fields).
  Result<std::vector<SchemaChange>> CodecChanges(const RegistryCodec& codec) {
    const iceberg::Schema& schema = *table->metadata()->current_schema();
    std::vector<iceberg::NestedField> rest(schema.fields().begin() + 1, schema.fields().end());
    std::vector<SchemaChange> changes;
    FLOE_RETURN_IF_ERROR(RecordChanges(rest, codec.columns, "", &changes));
    std::erase_if(changes, [&](const SchemaChange& c) {
      return config.keyed() && c.kind == SchemaChange::Kind::kMakeOptional &&
             std::find(config.id_columns.begin(), config.id_columns.end(), c.name) !=
                 config.id_columns.end();
    });
    return changes;
  }

  // Applies schema changes (commits held rows of keyed topics first). False when there are
  // none or they clash with the id columns (`conflict` says why).
  Result<bool> ApplyChanges(std::vector<SchemaChange> changes, std::string* conflict) {
    // Held: a keyed topic commits below, which replaces the table's metadata.
    const iceberg::TableMetadataPtr metadata = table->metadata();
    const iceberg::Schema& schema = *metadata->current_schema();
    for (const SchemaChange& c : changes) {
      if (c.kind == SchemaChange::Kind::kAddColumn && c.parent.empty() && c.name == kKafkaColumn) {
        *conflict = "a value field named _kafka clashes with the metadata column";
        return false;
      }
    }
    if (changes.empty()) return false;
    auto is_id = [&](const SchemaChange& c) {
      return std::find(config.id_columns.begin(), config.id_columns.end(), c.name) !=
             config.id_columns.end();
    };
    bool adds_id = false;
    for (const SchemaChange& c : changes) {
      if (!config.keyed() || !c.parent.empty()) continue;
      if (c.kind == SchemaChange::Kind::kMakeOptional && is_id(c)) {
        *conflict = fmt::format("the id column \"{}\" is null", c.name);
        return false;
      }
      if (c.kind == SchemaChange::Kind::kAddColumn && is_id(c)) {
        if (c.type->is_nested()) {
          *conflict = fmt::format("the id column \"{}\" is not a primitive value", c.name);
          return false;
        }
        adds_id = true;
      }
    }
    if (config.keyed()) {
      // Held rows have the old schema: commit them (up to the rows handled so far) first.
      FLOE_RETURN_IF_ERROR(CommitUpTo(processed, /*final=*/false));
    }
    // Files already written keep the old schema (readers map them by field id); rows from
    // here on use the new one.
    FLOE_RETURN_IF_ERROR(CloseWriter());
    std::unique_ptr<iceberg::UpdateSchema> update = table->NewUpdateSchema();
    if (adds_id) {
      // Identifier fields must be required; the columns are new, so no rows lack them.
      update->AllowIncompatibleChanges();
    }
    for (const SchemaChange& c : changes) {
      switch (c.kind) {
        case SchemaChange::Kind::kAddColumn:
          update->AddColumn(c.parent, c.name, c.type, {},
                            config.keyed() && c.parent.empty() && is_id(c));
          break;
        case SchemaChange::Kind::kWiden: update->UpdateColumn(c.name, c.type); break;
        case SchemaChange::Kind::kMakeOptional: update->MakeColumnOptional(c.name); break;
      }
    }
    if (config.keyed() && schema.identifier_field_ids().empty()) {
      bool all = true;
      for (const std::string& name : config.id_columns) {
        bool added = false;
        for (const SchemaChange& c : changes) {
          added |= c.kind == SchemaChange::Kind::kAddColumn && c.parent.empty() && c.name == name;
        }
        all &= added || schema.FindFieldByName(name) != nullptr;
      }
      if (all) update->SetIdentifierFields(config.id_columns);
    }
    FLOE_RETURN_IF_ERROR(update->Commit());
    FLOE_RETURN_IF_ERROR(MaybeAddPartitionFields());
    {
      std::lock_guard lock(stats_mu);
      ++stats.schema_updates;
    }
    FLOE_RETURN_IF_ERROR(Rebind());
    return true;
  }

  // partition.by fields whose source column exists now and the spec lacks (value columns
  // appear with the first record that has them).
  Status MaybeAddPartitionFields() {
    if (config.partition_by.empty()) return Status::OK();
    const iceberg::TableMetadata& md = *table->metadata();
    const iceberg::Schema& schema = *md.current_schema();
    std::unique_ptr<iceberg::UpdatePartitionSpec> spec;
    for (const PartitionByField& f : config.partition_by) {
      const iceberg::NestedField* source = schema.FindFieldByName(f.column);
      if (source == nullptr) continue;
      bool present = false;
      for (const iceberg::PartitionField& pf : md.default_spec()->fields()) {
        present |= pf.source_id == source->id && !pf.transform.is_void();
      }
      if (present) continue;
      if (!spec) spec = table->NewUpdateSpec();
      spec->AddField(f.column, PartitionTransform(f));
    }
    if (!spec) return Status::OK();
    FLOE_RETURN_IF_ERROR(CloseWriter());
    return spec->Commit();
  }

  // Handles a row that failed to decode: evolve and retry (true), or route it per
  // errors.tolerance (false; an error when the tolerance is exceeded).
  Result<bool> HandleBadRow(const RecordRef& row, bool invalid_data, const Status& why,
                            bool evolved_already) {
    std::string reason = std::string(why.message());
    if (!invalid_data && config.registry() && evolve_codec != nullptr) {
      RegistryCodec* codec = std::exchange(evolve_codec, nullptr);
      if (!evolved_already) {
        auto changes = CodecChanges(*codec);
        if (!changes.ok()) {
          reason = std::string(changes.status().message());
        } else {
          std::string conflict;
          FLOE_ASSIGN_OR_RETURN(bool evolved, ApplyChanges(std::move(*changes), &conflict));
          if (evolved) return true;
          if (!conflict.empty()) reason = conflict;
        }
      }
    }
    // JSON Schema values that the table's columns reject (fields the schema leaves open)
    // evolve like plain JSON.
    const std::string registry_json = std::exchange(registry_json_text, std::string());
    if (!invalid_data && (config.value_type == ConvertType::kJson || !registry_json.empty()) &&
        row.value_len >= 0 && !evolved_already) {
      std::string_view text =
          registry_json.empty() ? Bytes(row.value_pos, row.value_len) : registry_json;
      if (config.keyed() && registry_json.empty()) {
        // DecodeValue only fails after a good envelope for keyed rows: its row text.
        auto envelope = Envelope(text);
        if (envelope.ok()) text = envelope->second;
      }
      Result<nlohmann::json> parsed = ParseJson(text);
      if (!parsed.ok() || !parsed->is_object()) {
        invalid_data = true;
        reason = !parsed.ok() ? fmt::format("the value is not JSON: {}", parsed.status().message())
                              : "the value is not a JSON object";
      } else {
        nlohmann::json object = config.transform == TransformType::kNone
                                    ? nlohmann::json{{"value", std::move(*parsed)}}
                                    : std::move(*parsed);
        std::string conflict;
        FLOE_ASSIGN_OR_RETURN(bool evolved, Evolve(object, &conflict));
        if (evolved) return true;
        if (!conflict.empty()) reason = conflict;
      }
    }
    FLOE_RETURN_IF_ERROR(RouteBad(row, invalid_data, std::move(reason)));
    return false;
  }

  // A row that cannot go into the table: to the dead-letter table per errors.tolerance,
  // or an error that stops translation here.
  Status RouteBad(const RecordRef& row, bool invalid_data, std::string reason) {
    return dlq->Route(row, invalid_data, std::move(reason));
  }

  // Keyed registry rows decoded into `batch` (the table's columns; `rows` are its records):
  // drops the rows that are invalid data (an op Finish rejected, a null id column; to the
  // dead-letter table) and queues the ops of the others (from `keyed` when the columns held
  // them, else upserts already queued by DecodeRegistryValue).
  Status KeepKeyedRows(col::RecordBatch* batch, const std::vector<RecordRef>& rows,
                       KeyedRows* keyed) {
    const int64_t n = batch->num_rows();
    if (static_cast<int64_t>(rows.size()) != n) {
      return Status::Internal("{} rows decoded for {} records", n, rows.size());
    }
    const bool ops_here = !keyed->ops.empty();
    if (!ops_here) {
      // Upserts: DecodeRegistryValue queued one op per row.
      keyed->ops.assign(pending_ops.end() - n, pending_ops.end());
      keyed->errors.assign(static_cast<size_t>(n), std::string());
      pending_ops.resize(pending_ops.size() - static_cast<size_t>(n));
    }
    if (key_values != nullptr && !keyed->key_only.empty()) {
      FLOE_RETURN_IF_ERROR(KeysOfDeletes(batch, rows, keyed));
    }
    std::vector<size_t> key_columns;
    for (const std::string& name : config.id_columns) {
      const int c = batch->schema()->FieldIndex(name);
      if (c >= 0) key_columns.push_back(static_cast<size_t>(c));
    }
    std::vector<uint8_t> keep(static_cast<size_t>(n), 1);
    bool dropped = false;
    for (int64_t i = 0; i < n; ++i) {
      const size_t r = static_cast<size_t>(i);
      std::string& error = keyed->errors[r];
      for (size_t k = 0; k < key_columns.size() && error.empty(); ++k) {
        if (batch->column(key_columns[k]).IsNull(i)) {
          error = fmt::format("the row has no id column \"{}\"",
                              batch->schema()->field(key_columns[k]).name);
        }
      }
      if (error.empty()) {
        pending_ops.push_back(keyed->ops[r]);
        continue;
      }
      keep[r] = 0;
      dropped = true;
      FLOE_RETURN_IF_ERROR(RouteBad(rows[r], /*invalid_data=*/true, std::move(error)));
    }
    if (dropped) *batch = col::Filter(*batch, keep);
    return Status::OK();
  }

  // Debezium deletes without a `before` image (keyed->key_only): their id columns from the
  // record's registry-encoded key (a record of the id columns), patched into `batch`. A key
  // that does not decode leaves the row invalid.
  Status KeysOfDeletes(col::RecordBatch* batch, const std::vector<RecordRef>& rows,
                       KeyedRows* keyed) {
    const iceberg::Schema& schema = *table->metadata()->current_schema();
    std::vector<iceberg::NestedField> id_fields;
    std::vector<size_t> id_at;
    for (const std::string& name : config.id_columns) {
      const int c = batch->schema()->FieldIndex(name);
      const iceberg::NestedField* f = schema.FindFieldByName(name);
      if (c < 0 || f == nullptr) return Status::OK();
      id_fields.push_back(*f);
      id_at.push_back(static_cast<size_t>(c));
    }
    std::vector<std::vector<col::Array>> keys;  // per patched row: its id columns
    std::vector<int64_t> patched;
    for (size_t r = 0; r < rows.size(); ++r) {
      if (keyed->key_only[r] == 0 || rows[r].key_len < 0) continue;
      std::span<const uint8_t> payload;
      auto codec = key_values->Resolve(reader->Span(rows[r].key_pos, rows[r].key_len), &payload);
      if (!codec.ok() || !(*codec)->error.empty()) continue;
      if (!key_values->Decode(*codec, payload).ok()) {
        key_values->Reset();
        continue;
      }
      FLOE_ASSIGN_OR_RETURN(std::vector<col::Array> key,
                            key_values->Finish(*codec, id_fields, nullptr));
      keys.push_back(std::move(key));
      patched.push_back(static_cast<int64_t>(r));
      keyed->errors[r].clear();
      keyed->ops[r] = kOpDelete;
    }
    if (patched.empty()) return Status::OK();
    const int64_t n = batch->num_rows();
    col::SchemaPtr batch_schema = batch->schema();
    std::vector<col::Array> columns = std::move(batch->mutable_columns());
    for (size_t k = 0; k < id_at.size(); ++k) {
      std::vector<const col::Array*> sources = {&columns[id_at[k]]};
      for (const auto& key : keys) sources.push_back(&key[k]);
      std::vector<col::RowRef> picks(static_cast<size_t>(n));
      for (int64_t i = 0; i < n; ++i) {
        picks[static_cast<size_t>(i)] = {0, static_cast<uint32_t>(i)};
      }
      for (size_t j = 0; j < patched.size(); ++j) {
        picks[static_cast<size_t>(patched[j])] = {static_cast<uint32_t>(j + 1), 0};
      }
      FLOE_ASSIGN_OR_RETURN(col::Array merged, col::Gather(sources, picks));
      columns[id_at[k]] = std::move(merged);
    }
    *batch = col::RecordBatch(std::move(batch_schema), n, std::move(columns));
    return Status::OK();
  }

  // Decodes the arena into batches for the writer, then empties it.
  Status Flush() {
    const std::vector<RecordRef>& rows = reader->records();
    if (rows.empty()) return Status::OK();
    if (!table) FLOE_RETURN_IF_ERROR(CreateTable());
    size_t segment = 0;  // first row not yet written
    size_t evolved_row = SIZE_MAX;
    if (registry_values) registry_values->RefreshLatest();
    if (key_values) key_values->RefreshLatest();
    for (size_t i = 0; i < rows.size();) {
      if (config.registry()) {
        // The builders hold rows of one codec: a row of another writes them out first.
        RegistryCodec* codec = RowCodec(rows[i]);
        if (codec != nullptr && codec != active_codec) {
          if (active_codec != nullptr) {
            FLOE_RETURN_IF_ERROR(WriteBuilt());
            segment = i;
          }
          active_codec = codec;
        }
      }
      bool invalid = false;
      Status st = DecodeValue(rows[i], &invalid);
      if (st.ok()) {
        if (!std::exchange(skip_row, false)) AppendMeta(rows[i]);
        processed[static_cast<size_t>(rows[i].partition)] = rows[i].offset + 1;
        ++i;
        continue;
      }
      // Start the builders over and write the good rows before this one again (each row
      // is decoded at most twice), then deal with this row.
      FLOE_RETURN_IF_ERROR(Rebind());
      for (size_t j = segment; j < i; ++j) {
        bool unused = false;
        Status again = DecodeValue(rows[j], &unused);
        if (!again.ok())
          return Status::Internal("row decoded once failed again: {}", again.message());
        if (!std::exchange(skip_row, false)) AppendMeta(rows[j]);
      }
      FLOE_RETURN_IF_ERROR(WriteBuilt());
      segment = i;
      FLOE_ASSIGN_OR_RETURN(bool retry, HandleBadRow(rows[i], invalid, st, evolved_row == i));
      if (retry) {
        evolved_row = i;
        continue;
      }
      processed[static_cast<size_t>(rows[i].partition)] = rows[i].offset + 1;
      ++i;
      segment = i;
    }
    FLOE_RETURN_IF_ERROR(WriteBuilt());
    reader->ClearRecords();
    // Bad rows still point into the arena until the dead-letter commit copies them.
    if (dlq->empty()) reader->ClearArena();
    return Status::OK();
  }

  // ---- committing

  Status CommitDlq(const std::vector<int64_t>& ends) {
    if (dlq->empty()) return Status::OK();
    auto loaded_ops = catalog->LoadTable(dlq_id);
    std::unique_ptr<iceberg::TableOperations> dops;
    if (loaded_ops.ok()) {
      dops = std::move(*loaded_ops);
    } else if (loaded_ops.error().code() == StatusCode::kNotFound) {
      FLOE_ASSIGN_OR_RETURN(iceberg::Schema schema, DeadLetterSchema());
      Status ns = catalog->CreateNamespace(dlq_id.ns, {});
      if (!ns.ok() && ns.code() != StatusCode::kAlreadyExists) return ns;
      catalog::CreateTableRequest request;
      request.schema = std::move(schema);
      request.format_version = 2;
      request.properties = TableTopicTableDefaults();
      request.properties["floe.ingest.topic"] = topic;
      auto created = catalog->CreateTable(dlq_id, request);
      if (!created.ok() && created.error().code() != StatusCode::kAlreadyExists) {
        return created.status();
      }
      FLOE_ASSIGN_OR_RETURN(dops, catalog->LoadTable(dlq_id));
    } else {
      return loaded_ops.status();
    }
    FLOE_ASSIGN_OR_RETURN(int64_t committed_rows, dlq->Commit(ends, *reader, *dops));
    {
      std::lock_guard lock(stats_mu);
      stats.dlq_records += committed_rows;
    }
    if (options.on_table_changed) options.on_table_changed(dlq_id);
    return Status::OK();
  }

  Status Commit() {
    FLOE_RETURN_IF_ERROR(Flush());
    FLOE_RETURN_IF_ERROR(CommitUpTo(next, /*final=*/true));
    processed = next;
    return Status::OK();
  }

  // Commits everything written so far as the partitions' ranges up to `ends`. `final`: the
  // arena holds nothing more (a mid-flush commit of a keyed topic keeps it).
  Status CommitUpTo(std::vector<int64_t> ends, bool final) {
    bool advanced = false;
    for (size_t p = 0; p < ends.size(); ++p) advanced |= ends[p] > committed()[p];
    if (!advanced) {
      last_commit_ms = Now();
      return Status::OK();
    }
    const int64_t start_ms = Now();
    if (!table) FLOE_RETURN_IF_ERROR(CreateTable());
    FLOE_RETURN_IF_ERROR(config.keyed() ? WriteKeyed() : CloseWriter());
    FLOE_RETURN_IF_ERROR(CommitDlq(ends));
    if (final) reader->ClearArena();
    const std::string ranges = offsets.Ranges(ends);
    std::unique_ptr<iceberg::Transaction> txn = table->NewTransaction();
    iceberg::SnapshotProducer* producer;
    if (delete_files.empty()) {
      iceberg::AppendFiles& append = txn->NewAppend();
      for (const auto& f : files) append.AppendFile(f);
      append.Set(std::string(kSummaryTopic), topic);
      append.Set(std::string(kSummaryOffsets), ranges);
      producer = &append;
    } else {
      // Deletes and inserts of one commit in one snapshot (a row delta, as Flink's upsert
      // writer commits).
      iceberg::RowDelta& delta = txn->NewRowDelta();
      for (const auto& f : files) delta.AddRows(f);
      for (const auto& f : delete_files) delta.AddDeletes(f);
      if (positional) {
        // The position deletes name rows of the snapshot they were found in: a commit in
        // between that removed one of those files (an optimizer rewrite) or added a DV for
        // one of them fails this one, and the round starts over from the table.
        for (const auto& f : positional->rewritten_delete_files) delta.RemoveDeletes(f);
        if (positional->base_snapshot_id) delta.ValidateFromSnapshot(*positional->base_snapshot_id);
        delta.ValidateDataFilesExist(positional->referenced_data_files);
      }
      delta.Set(std::string(kSummaryTopic), topic);
      delta.Set(std::string(kSummaryOffsets), ranges);
      producer = &delta;
    }
    FLOE_RETURN_IF_ERROR(offsets.Commit(*txn, *producer, ends));
    IndexCommitted(ranges);
    for (size_t p = 0; p < committed().size(); ++p) {
      // After a partial commit the oldest pending record is younger than the one kept: the
      // lag shown errs high until the next full commit.
      if (committed()[p] >= next[p]) pending_first_ms[p] = -1;
    }
    files.clear();
    delete_files.clear();
    const int64_t rows_committed = pending_rows;
    pending_rows = 0;
    FLOE_RETURN_IF_ERROR(broker([&](kafka::Broker& b) {
      for (size_t p = 0; p < committed().size(); ++p) {
        b.SetCommittedOffset(topic, static_cast<int32_t>(p), committed()[p]);
      }
    }));
    const int64_t end_ms = Now();
    last_commit_ms = end_ms;
    {
      std::lock_guard lock(stats_mu);
      ++stats.commits;
      stats.rows_committed += rows_committed;
      stats.last_commit_ms = end_ms;
      stats.last_commit_latency_ms = end_ms - start_ms;
    }
    if (options.on_table_changed) options.on_table_changed(id);
    return Status::OK();
  }

  void Drop() {
    if (writer) (void)writer->Abort();
    writer.reset();
    files.clear();
    delete_files.clear();
    positional.reset();
    keyed_rows->Clear();
    pending_ops.clear();
    dlq->Clear();
    reader->Clear();
    pending_rows = 0;
    active_codec = nullptr;
    evolve_codec = nullptr;
    if (registry_values) registry_values->Reset();
    if (key_values) key_values->Reset();
    loaded = false;
  }
};

TopicTranslator::TopicTranslator(std::string topic, TableTopicConfig config,
                                 catalog::Catalog* catalog, BrokerCall broker,
                                 IngestOptions options)
    : impl_(std::make_unique<Impl>()) {
  Impl& s = *impl_;
  s.topic = std::move(topic);
  s.config = std::move(config);
  s.catalog = catalog;
  s.broker = std::move(broker);
  s.options = std::move(options);
  const std::string& ns =
      s.config.table_namespace.empty() ? s.options.default_namespace : s.config.table_namespace;
  s.id = {catalog::Namespace::FromString(ns), s.topic};
  s.dlq_id = {s.id.ns, s.topic + "_dlq"};
  s.stats.topic = s.topic;
  s.stats.table = s.id.ToString();
  s.stats.dlq_table = s.dlq_id.ToString();
  s.stats.state = "starting";
  s.dlq = std::make_unique<DeadLetterSink>(s.topic, s.config.errors_tolerance);
  s.keyed_rows =
      std::make_unique<KeyedBatchWriter>(s.id.ToString(), s.config.id_columns, s.options.key_index);
  PartitionReaderOptions read;
  read.read_bytes = s.options.read_bytes;
  read.max_uncompressed_batch_bytes = s.options.max_uncompressed_batch_bytes;
  read.arena_bytes = s.options.arena_bytes;
  s.reader = std::make_unique<PartitionReader>(
      s.topic,
      [&s](int32_t p, int64_t offset, size_t max_bytes, Buffer* out) {
        Status read_status;
        FLOE_RETURN_IF_ERROR(s.broker([&](kafka::Broker& b) {
          read_status = b.ReadLog(s.topic, p, offset, max_bytes, out);
        }));
        return read_status;
      },
      read);
  if (s.config.registry()) {
    s.registry_values =
        std::make_unique<RegistryValues>(s.options.schema_registry, s.config, s.topic);
  }
  if (s.config.registry() && s.config.transform == TransformType::kFlattenDebezium &&
      s.config.key_registry != ConvertType::kRaw) {
    TableTopicConfig keys = s.config;
    keys.value_type = s.config.key_registry;
    keys.transform = TransformType::kFlatten;
    keys.cdc_field.clear();
    s.key_values =
        std::make_unique<RegistryValues>(s.options.schema_registry, keys, s.topic, "-key");
  }
}

TopicTranslator::~TopicTranslator() { impl_->Drop(); }

Status TopicTranslator::RunOnce() {
  Impl& s = *impl_;
  Status st = [&]() -> Status {
    if (!s.loaded) FLOE_RETURN_IF_ERROR(s.Load());
    FLOE_ASSIGN_OR_RETURN(auto parts, s.Partitions());
    if (parts.size() > s.next.size()) {
      // Partitions added since the load: they start at their beginning.
      s.offsets.AddPartitions(parts.size());
      s.next.resize(parts.size(), 0);
      s.pending_first_ms.resize(parts.size(), -1);
      s.dlq->AddPartitions(parts.size());
      s.processed.resize(parts.size(), 0);
    }
    for (size_t p = 0; p < s.next.size(); ++p) {
      FLOE_RETURN_IF_ERROR(s.reader->Read(static_cast<int32_t>(p), parts[p].log_end_offset,
                                          &s.next[p], &s.pending_first_ms[p]));
      if (s.reader->full()) FLOE_RETURN_IF_ERROR(s.Flush());
    }
    FLOE_RETURN_IF_ERROR(s.Flush());
    {
      std::lock_guard lock(s.stats_mu);
      s.stats.partitions.resize(parts.size());
      for (size_t p = 0; p < parts.size(); ++p) {
        auto& sp = s.stats.partitions[p];
        sp.log_end_offset = parts[p].log_end_offset;
        sp.committed_offset = s.committed()[p];
        sp.translated_offset = s.next[p];
        sp.oldest_pending_ms =
            s.committed()[p] < parts[p].log_end_offset ? s.pending_first_ms[p] : -1;
        sp.untranslated_bytes = parts[p].untranslated_bytes;
      }
    }
    // A backlog past commit_backlog_bytes commits early: it bounds the log bytes kept for
    // the table and lifts the broker's produce throttle (docs/kafka.md, "Throttling").
    bool backlog = false;
    for (const auto& part : parts) {
      backlog |= s.options.commit_backlog_bytes > 0 &&
                 part.untranslated_bytes >= s.options.commit_backlog_bytes;
    }
    if (backlog || s.Now() - s.last_commit_ms >= s.config.commit_interval_ms) {
      FLOE_RETURN_IF_ERROR(s.Commit());
    }
    return Status::OK();
  }();
  if (!st.ok()) s.SetState("failed", std::string(st.message()));
  return st;
}

Status TopicTranslator::CommitNow() {
  Impl& s = *impl_;
  if (!s.loaded) FLOE_RETURN_IF_ERROR(s.Load());
  Status st = s.Commit();
  if (!st.ok()) s.SetState("failed", std::string(st.message()));
  return st;
}

void TopicTranslator::Reset() { impl_->Drop(); }

TopicStats TopicTranslator::stats() const {
  std::lock_guard lock(impl_->stats_mu);
  return impl_->stats;
}

}  // namespace floe::ingest
