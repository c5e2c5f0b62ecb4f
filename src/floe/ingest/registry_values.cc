#include "floe/ingest/registry_values.h"

#include <cstring>

#include "floe/base/json.h"
#include "floe/base/macros.h"
#include "floe/ingest/avro_references.h"
#include "floe/ingest/registry_codec.h"

namespace floe::ingest {

namespace col = floe::columnar;
namespace avro = floe::format::avro;

namespace {

// The length of the message-index prefix of a Protobuf payload (without decoding it into a
// vector: this runs per record).
Result<size_t> IndexPrefixLength(std::span<const uint8_t> payload) {
  size_t pos = 0;
  auto varint = [&](uint64_t* out) -> bool {
    uint64_t v = 0;
    for (int shift = 0; shift < 64 && pos < payload.size(); shift += 7) {
      const uint8_t b = payload[pos++];
      v |= uint64_t{b & 0x7fu} << shift;
      if ((b & 0x80) == 0) {
        *out = v;
        return true;
      }
    }
    return false;
  };
  uint64_t count;
  if (!varint(&count)) return Status::InvalidArgument("truncated Protobuf message indexes");
  count = (count >> 1) ^ (~(count & 1) + 1);
  if (count > 64) return Status::InvalidArgument("bad Protobuf message index count");
  for (uint64_t i = 0; i < count; ++i) {
    uint64_t unused;
    if (!varint(&unused)) return Status::InvalidArgument("truncated Protobuf message indexes");
  }
  return pos;
}

}  // namespace

RegistryValues::RegistryValues(const SchemaRegistry* registry, const TableTopicConfig& config,
                               std::string topic, std::string_view subject_suffix)
    : registry_(registry),
      mode_(config.value_type),
      wrap_(config.transform == TransformType::kNone),
      debezium_(config.transform == TransformType::kFlattenDebezium),
      cdc_field_(config.cdc_field),
      subject_(std::move(topic) + std::string(subject_suffix)) {}

void RegistryValues::RefreshLatest() {
  if (mode_ != ConvertType::kByLatestSchema || registry_ == nullptr) return;
  auto v = registry_->GetVersion(subject_, -1, false);
  latest_id_ = v.ok() ? v->id : 0;
}

Result<std::unique_ptr<RegistryCodec>> RegistryValues::MakeCodec(int32_t id,
                                                                 std::span<const uint8_t> indexes) {
  auto codec = std::make_unique<RegistryCodec>();
  codec->schema_id = id;
  auto stored = registry_->GetById(id);
  if (!stored.ok()) {
    return Status::InvalidArgument("schema id {} is not registered", id);
  }
  codec->type = stored->type;
  Status built = [&]() -> Status {
    std::vector<iceberg::NestedField> columns;
    switch (stored->type) {
      case SchemaType::kAvro: {
        FLOE_ASSIGN_OR_RETURN(auto referenced, registry_->ResolveReferences(stored->references));
        FLOE_ASSIGN_OR_RETURN(std::string text, ExpandAvroReferences(stored->schema, referenced));
        FLOE_ASSIGN_OR_RETURN(codec->avro_schema, avro::Schema::Parse(text));
        FLOE_ASSIGN_OR_RETURN(columns, AvroColumns(*codec->avro_schema));
        break;
      }
      case SchemaType::kProtobuf: {
        FLOE_ASSIGN_OR_RETURN(auto imports, registry_->ResolveReferences(stored->references));
        FLOE_ASSIGN_OR_RETURN(codec->proto_schema,
                              proto::ProtoSchema::Parse(stored->schema, imports));
        std::vector<int32_t> path = {0};
        if (!indexes.empty()) {
          std::span<const uint8_t> rest = indexes;
          FLOE_ASSIGN_OR_RETURN(path, ReadMessageIndexes(&rest));
        }
        FLOE_ASSIGN_OR_RETURN(codec->proto_message, codec->proto_schema->MessageAt(path));
        FLOE_ASSIGN_OR_RETURN(columns, ProtoColumns(*codec->proto_message));
        break;
      }
      case SchemaType::kJson: {
        Result<nlohmann::ordered_json> j = ParseOrderedJson(stored->schema);
        if (!j.ok()) return j.status().WithContext("the JSON Schema does not parse");
        FLOE_ASSIGN_OR_RETURN(columns, JsonSchemaColumns(*j));
        break;
      }
    }
    for (const auto& c : columns) codec->names.push_back(c.name);
    // Keyed topics whose records carry their op: the table holds the row, not the envelope.
    if (debezium_) {
      FLOE_ASSIGN_OR_RETURN(columns, DebeziumRowColumns(columns));
    } else if (!cdc_field_.empty()) {
      FLOE_RETURN_IF_ERROR(CheckCdcField(columns, cdc_field_));
    }
    if (wrap_) {
      codec->columns = {iceberg::NestedField::Optional(0, "value", iceberg::StructType(columns))};
    } else {
      codec->columns = std::move(columns);
    }
    return Status::OK();
  }();
  if (!built.ok()) {
    codec->error = fmt::format("schema id {} cannot be decoded: {}", id, built.message());
  }
  return codec;
}

Result<RegistryCodec*> RegistryValues::Resolve(std::span<const uint8_t> value,
                                               std::span<const uint8_t>* payload) {
  if (registry_ == nullptr) {
    return Status::InvalidArgument("this server has no schema registry");
  }
  int32_t id;
  std::span<const uint8_t> rest;
  if (mode_ == ConvertType::kBySchemaId) {
    FLOE_ASSIGN_OR_RETURN(WireHeader h, ParseWireHeader(value));
    id = h.schema_id;
    rest = h.payload;
  } else {
    if (latest_id_ == 0) {
      return Status::InvalidArgument("subject '{}' has no schema", subject_);
    }
    id = latest_id_;
    rest = value;
  }
  // Protobuf payloads of by_schema_id start with the message indexes; which type the id
  // has is only known from the codec, so the fast path compares the previous codec first.
  std::span<const uint8_t> indexes;
  auto split_indexes = [&]() -> Status {
    FLOE_ASSIGN_OR_RETURN(size_t n, IndexPrefixLength(rest));
    indexes = rest.first(n);
    rest = rest.subspan(n);
    return Status::OK();
  };
  if (last_ != nullptr && last_id_ == id) {
    if (last_->type != SchemaType::kProtobuf || mode_ != ConvertType::kBySchemaId) {
      *payload = rest;
      return last_;
    }
    FLOE_RETURN_IF_ERROR(split_indexes());
    if (indexes.size() == last_indexes_.size() &&
        std::memcmp(indexes.data(), last_indexes_.data(), indexes.size()) == 0) {
      *payload = rest;
      return last_;
    }
  } else {
    auto stored = registry_->GetById(id);
    if (!stored.ok()) return Status::InvalidArgument("schema id {} is not registered", id);
    if (stored->type == SchemaType::kProtobuf && mode_ == ConvertType::kBySchemaId) {
      FLOE_RETURN_IF_ERROR(split_indexes());
    }
  }
  std::string key(reinterpret_cast<const char*>(indexes.data()), indexes.size());
  auto it = codecs_.find({id, key});
  if (it == codecs_.end()) {
    FLOE_ASSIGN_OR_RETURN(auto codec, MakeCodec(id, indexes));
    it = codecs_.emplace(std::make_pair(id, key), std::move(codec)).first;
  }
  last_ = it->second.get();
  last_id_ = id;
  last_indexes_ = std::move(key);
  *payload = rest;
  return last_;
}

Status RegistryValues::Decode(RegistryCodec* codec, std::span<const uint8_t> payload) {
  switch (codec->type) {
    case SchemaType::kAvro: {
      if (!codec->avro) {
        FLOE_ASSIGN_OR_RETURN(codec->avro, avro::DatumReader::Make(*codec->avro_schema));
      }
      ByteReader in(payload);
      FLOE_RETURN_IF_ERROR(codec->avro->Read(&in));
      if (in.remaining() != 0) {
        return Status::InvalidArgument("{} bytes follow the Avro datum of schema id {}",
                                       in.remaining(), codec->schema_id);
      }
      return Status::OK();
    }
    case SchemaType::kProtobuf:
      if (!codec->proto) {
        FLOE_ASSIGN_OR_RETURN(codec->proto, ProtoDecoder::Make(*codec->proto_message));
      }
      return codec->proto->Read(payload);
    case SchemaType::kJson: break;
  }
  return Status::Internal("JSON payloads decode through the text decoder");
}

Result<std::vector<col::Array>> RegistryValues::Finish(
    RegistryCodec* codec, const std::vector<iceberg::NestedField>& targets, KeyedRows* keyed) {
  std::vector<col::Array> columns;
  int64_t n = 0;
  if (codec->avro) {
    n = codec->avro->num_rows();
    columns = std::move(codec->avro->Finish().mutable_columns());
  } else if (codec->proto) {
    n = codec->proto->num_rows();
    columns = codec->proto->Finish();
  }
  if (n == 0 || columns.empty()) return ConformColumns({}, {}, targets, 0);
  if (debezium_) {
    // Each image as the table's row first (a union becomes its struct), so that the op's
    // image can be picked row by row from arrays of one type.
    const iceberg::NestedField row =
        iceberg::NestedField::Optional(0, "row", iceberg::StructType(targets));
    for (size_t c = 0; c < columns.size() && c < codec->names.size(); ++c) {
      if (codec->names[c] != "before" && codec->names[c] != "after") continue;
      std::vector<col::Array> image;
      image.push_back(std::move(columns[c]));
      FLOE_ASSIGN_OR_RETURN(image, ConformColumns(std::move(image), {"row"}, {row}, n));
      columns[c] = std::move(image[0]);
    }
    std::vector<std::string> row_names;
    FLOE_ASSIGN_OR_RETURN(
        std::vector<col::Array> rows,
        ExtractDebeziumRows(std::move(columns), codec->names, n, &row_names, keyed));
    return ConformColumns(std::move(rows), row_names, targets, n);
  }
  if (!cdc_field_.empty()) {
    FLOE_RETURN_IF_ERROR(CdcFieldOps(columns, codec->names, cdc_field_, n, keyed));
  }
  if (!wrap_) return ConformColumns(std::move(columns), codec->names, targets, n);
  // transform none: the record is the struct column "value".
  std::vector<col::Array> out;
  for (const iceberg::NestedField& t : targets) {
    if (t.name != "value" || t.type->kind() != iceberg::TypeKind::kStruct) {
      out.push_back(col::Array::Nulls(iceberg::ColumnarTypeOf(*t.type), n));
      continue;
    }
    FLOE_ASSIGN_OR_RETURN(std::vector<col::Array> children,
                          ConformColumns(std::move(columns), codec->names, t.type->fields(), n));
    out.emplace_back(iceberg::ColumnarTypeOf(*t.type), n, 0, Buffer(), Buffer(), Buffer(),
                     std::move(children));
  }
  return out;
}

void RegistryValues::Reset() {
  for (auto& [key, codec] : codecs_) {
    codec->avro.reset();
    codec->proto.reset();
  }
}

}  // namespace floe::ingest
