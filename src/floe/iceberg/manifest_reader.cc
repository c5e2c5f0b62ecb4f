#include "floe/iceberg/manifest_reader.h"

#include <charconv>
#include <cstring>

#include <nlohmann/json.hpp>

#include "floe/base/json.h"
#include "floe/base/macros.h"
#include "floe/format/avro/columnar_schema.h"
#include "floe/iceberg/manifest_avro.h"
#include "floe/iceberg/manifest_internal.h"
#include "floe/iceberg/partition_spec.h"
#include "floe/iceberg/schema.h"

namespace floe::iceberg {

namespace avro = floe::format::avro;
using columnar::Array;
using columnar::TypeId;
using internal::Child;
using internal::GetBytes;
using internal::GetLong;

namespace {

// The non-null branch of ["null", T] (or the node itself).
const avro::Node& Unwrap(const avro::Node& node) {
  if (node.type() != avro::AvroType::kUnion) return node;
  for (size_t i = 0; i < node.num_branches(); ++i) {
    if (node.branch(i).type() != avro::AvroType::kNull) return node.branch(i);
  }
  return node;
}

// Iceberg Java SchemaToType for the primitives TypeToSchema writes.
Result<TypePtr> IcebergTypeOf(const avro::Node& node) {
  using avro::AvroType;
  using avro::LogicalType;
  switch (node.type()) {
    case AvroType::kBoolean: return BooleanType();
    case AvroType::kInt: return node.logical_type() == LogicalType::kDate ? DateType() : IntType();
    case AvroType::kLong: {
      auto utc = node.FindProperty("adjust-to-utc");
      bool tz = utc != nullptr && utc->json == "true";
      switch (node.logical_type()) {
        case LogicalType::kTimeMicros: return TimeType();
        case LogicalType::kTimestampMicros: return tz ? TimestampTzType() : TimestampType();
        case LogicalType::kTimestampNanos: return tz ? TimestampTzNsType() : TimestampNsType();
        default: return LongType();
      }
    }
    case AvroType::kFloat: return FloatType();
    case AvroType::kDouble: return DoubleType();
    case AvroType::kString:
      return node.logical_type() == LogicalType::kUuid ? UuidType() : StringType();
    case AvroType::kBytes:
      if (node.logical_type() == LogicalType::kDecimal) {
        return DecimalType(node.precision(), node.scale());
      }
      return BinaryType();
    case AvroType::kFixed:
      if (node.logical_type() == LogicalType::kDecimal) {
        return DecimalType(node.precision(), node.scale());
      }
      if (node.logical_type() == LogicalType::kUuid) return UuidType();
      return FixedType(node.fixed_size());
    default:
      return Status::Corrupt("partition field of Avro type {}", avro::AvroTypeName(node.type()));
  }
}

Result<TypePtr> PartitionTypeOf(const avro::Node& record) {
  std::vector<NestedField> fields;
  for (const avro::RecordField& f : record.fields()) {
    if (!f.field_id()) return Status::Corrupt("partition field {} has no field-id", f.name());
    FLOE_ASSIGN_OR_RETURN(TypePtr type, IcebergTypeOf(Unwrap(f.type())));
    std::string name = f.name();
    if (auto* original = f.FindProperty("iceberg-field-name"); original != nullptr) {
      auto j = nlohmann::json::parse(original->json, nullptr, false);
      if (j.is_string()) name = j.get<std::string>();
    }
    fields.push_back(avro::IsNullable(f.type())
                         ? NestedField::Optional(*f.field_id(), name, std::move(type))
                         : NestedField::Required(*f.field_id(), name, std::move(type)));
  }
  return StructType(std::move(fields));
}

const avro::RecordField* FieldById(const avro::Node& record, int32_t id) {
  if (record.type() != avro::AvroType::kRecord) return nullptr;
  for (const avro::RecordField& f : record.fields()) {
    if (f.field_id() == id) return &f;
  }
  return nullptr;
}

nlohmann::json* JsonFieldById(nlohmann::json& record, int32_t id) {
  if (!record.is_object() || !record.contains("fields") || !record["fields"].is_array()) {
    return nullptr;
  }
  for (auto& f : record["fields"]) {
    if (f.is_object() && f.contains("field-id") && f["field-id"] == id) return &f;
  }
  return nullptr;
}

nlohmann::json* UnwrapJson(nlohmann::json& type) {
  if (!type.is_array()) return &type;
  for (auto& b : type) {
    if (!(b.is_string() && b == "null")) return &b;
  }
  return nullptr;
}

Result<int64_t> ParseLong(const std::string& s, std::string_view what) {
  int64_t v = 0;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || p != s.data() + s.size()) {
    return Status::Corrupt("manifest metadata {} is not a number: '{}'", what, s);
  }
  return v;
}

// A partition value of `type` from a decoded column (whatever Avro type the writer used).
Result<Literal> ToLiteral(const Array& a, int64_t row, const TypePtr& type) {
  if (a.IsNull(row)) return Literal::Null(type);
  Literal::Value v;
  switch (a.type_id()) {
    case TypeId::kBool: v = a.BoolValue(row); break;
    case TypeId::kInt32:
    case TypeId::kDate32:
      if (type->kind() == TypeKind::kLong) {
        v = static_cast<int64_t>(a.Value<int32_t>(row));
      } else {
        v = a.Value<int32_t>(row);
      }
      break;
    case TypeId::kInt64:
    case TypeId::kTimestamp:
    case TypeId::kTime64: v = a.Value<int64_t>(row); break;
    case TypeId::kFloat32:
      if (type->kind() == TypeKind::kDouble) {
        v = static_cast<double>(a.Value<float>(row));
      } else {
        v = a.Value<float>(row);
      }
      break;
    case TypeId::kFloat64: v = a.Value<double>(row); break;
    case TypeId::kDecimal128: {
      __int128 d;
      std::memcpy(&d, a.FixedValue(row).data(), 16);
      v = d;
      break;
    }
    case TypeId::kUuid:
    case TypeId::kFixedBinary:
    case TypeId::kString:
    case TypeId::kBinary: {
      std::string bytes = *GetBytes(&a, row);
      if (type->kind() == TypeKind::kUuid) {
        if (bytes.size() != 16) {
          // pyiceberg may write uuids as strings; accept the text form too.
          auto lit = Literal::Parse(type, bytes);
          if (!lit) return Status::Corrupt("bad uuid partition value");
          return lit;
        }
        Literal::UuidBytes u;
        std::memcpy(u.data(), bytes.data(), 16);
        v = u;
      } else {
        v = std::move(bytes);
      }
      break;
    }
    default: return Status::Corrupt("partition column of type {}", a.type()->ToString());
  }
  auto lit = Literal::Make(type, std::move(v));
  if (!lit) {
    return Status::Corrupt("partition value does not fit {}: {}", type->ToString(),
                           lit.error().message());
  }
  return lit;
}

template <typename V>
Status ReadMap(const Array* a, int64_t row, std::map<int32_t, V>* out) {
  if (a == nullptr || a->IsNull(row)) return Status::OK();
  if (a->type_id() != TypeId::kMap) return Status::Corrupt("metrics column is not a map");
  const int32_t* offsets = a->list_offsets();
  const Array& entries = a->child(0);
  const Array& keys = entries.child(0);
  const Array& values = entries.child(1);
  for (int32_t i = offsets[row]; i < offsets[row + 1]; ++i) {
    auto key = GetLong(&keys, i);
    if (!key) return Status::Corrupt("metrics map with a null key");
    if constexpr (std::is_same_v<V, int64_t>) {
      auto value = GetLong(&values, i);
      if (!value) return Status::Corrupt("metrics map with a null value");
      (*out)[static_cast<int32_t>(*key)] = *value;
    } else {
      auto value = GetBytes(&values, i);
      if (!value) return Status::Corrupt("bounds map with a null value");
      (*out)[static_cast<int32_t>(*key)] = std::move(*value);
    }
  }
  return Status::OK();
}

template <typename T>
Result<std::optional<std::vector<T>>> ReadList(const Array* a, int64_t row) {
  if (a == nullptr || a->IsNull(row)) return std::optional<std::vector<T>>();
  if (a->type_id() != TypeId::kList) return Status::Corrupt("list column is not a list");
  const int32_t* offsets = a->list_offsets();
  std::vector<T> out;
  for (int32_t i = offsets[row]; i < offsets[row + 1]; ++i) {
    auto v = GetLong(&a->child(0), i);
    if (!v) return Status::Corrupt("list with a null element");
    out.push_back(static_cast<T>(*v));
  }
  return std::optional<std::vector<T>>(std::move(out));
}

// The partition type of the spec and schema in the manifest's metadata (what Java's reader
// uses when it is not given the table's specs), or null when they are absent, do not
// parse, or disagree with the file's partition record on field ids or type kinds (the
// record is what the writer actually wrote).
TypePtr SpecPartitionType(const avro::ContainerReader& header, int32_t spec_id,
                          const Type& avro_type) {
  const std::string* schema_json = header.FindMetadata("schema");
  const std::string* fields_json = header.FindMetadata("partition-spec");
  if (schema_json == nullptr || fields_json == nullptr) return nullptr;
  Result<nlohmann::json> fields = ParseJson(*fields_json);
  if (!fields.ok() || !fields->is_array()) return nullptr;
  auto schema = SchemaFromJson(*schema_json);
  if (!schema) return nullptr;
  auto spec = PartitionSpecFromJsonValue(nlohmann::json{{"spec-id", spec_id}, {"fields", *fields}});
  if (!spec) return nullptr;
  auto type = spec->PartitionType(*schema);
  if (!type) return nullptr;
  const auto& a = (*type)->fields();
  const auto& b = avro_type.fields();
  if (a.size() != b.size()) return nullptr;
  for (size_t i = 0; i < a.size(); ++i) {
    if (a[i].id != b[i].id || a[i].type->kind() != b[i].type->kind()) return nullptr;
  }
  return *type;
}

}  // namespace

ManifestReader::~ManifestReader() = default;

const std::string* ManifestReader::Metadata(std::string_view key) const {
  return reader_->FindMetadata(key);
}

Result<std::unique_ptr<ManifestReader>> ManifestReader::Open(const io::InputFile& file,
                                                             const ManifestFile& manifest,
                                                             ManifestReaderOptions options) {
  FLOE_ASSIGN_OR_RETURN(auto bytes, internal::ReadAllBytes(file, options.max_file_bytes));
  ManifestSchemaCache* cache = options.schema_cache;
  avro::ContainerReaderOptions header_options;
  header_options.metadata_only = true;
  header_options.schema_cache = cache != nullptr ? &cache->avro : nullptr;
  FLOE_ASSIGN_OR_RETURN(
      auto header,
      avro::ContainerReader::Open(
          std::make_unique<internal::BytesInputFile>(file.location(), bytes), header_options));

  std::unique_ptr<ManifestReader> r(new ManifestReader());
  r->manifest_ = manifest;
  r->spec_id_ = manifest.partition_spec_id;
  if (const std::string* v = header->FindMetadata("format-version")) {
    FLOE_ASSIGN_OR_RETURN(int64_t version, ParseLong(*v, "format-version"));
    if (version < 1 || version > 3) {
      return Status::Corrupt("manifest {} has unsupported format-version {}", file.location(),
                             version);
    }
    r->format_version_ = static_cast<int>(version);
  }
  if (const std::string* v = header->FindMetadata("content")) {
    if (*v == "deletes") {
      r->content_ = ManifestContent::kDeletes;
    } else if (*v != "data") {
      return Status::Corrupt("manifest {} has unknown content '{}'", file.location(), *v);
    }
  }
  if (const std::string* v = header->FindMetadata("partition-spec-id")) {
    FLOE_ASSIGN_OR_RETURN(int64_t id, ParseLong(*v, "partition-spec-id"));
    r->spec_id_ = static_cast<int32_t>(id);
  }

  // Find the writer's partition record, in the tree and in its JSON.
  const avro::Schema& writer = *header->writer_schema();
  const avro::RecordField* data_file = FieldById(writer.root(), 2);
  const avro::RecordField* partition =
      data_file ? FieldById(Unwrap(data_file->type()), 102) : nullptr;
  if (partition == nullptr || Unwrap(partition->type()).type() != avro::AvroType::kRecord) {
    return Status::Corrupt("{} is not a manifest: no data_file.partition record", file.location());
  }
  FLOE_ASSIGN_OR_RETURN(TypePtr avro_type, PartitionTypeOf(Unwrap(partition->type())));
  if (options.partition_type) {
    r->partition_type_ = options.partition_type;
  } else {
    r->partition_type_ = SpecPartitionType(*header, r->spec_id_, *avro_type);
    if (!r->partition_type_) r->partition_type_ = std::move(avro_type);
  }

  // The read schema embeds the writer's partition record verbatim, so it follows from the
  // writer schema's text (present: ContainerReader requires it) and the stats flag.
  const std::string read_key =
      (options.read_stats ? "1" : "0") + *header->FindMetadata("avro.schema");
  avro::SchemaPtr read_schema;
  if (cache != nullptr) {
    auto it = cache->read_schemas.find(read_key);
    if (it != cache->read_schemas.end()) read_schema = it->second;
  }
  if (read_schema == nullptr) {
    auto json = nlohmann::json::parse(writer.ToJson(), nullptr, false);
    nlohmann::json* jdf = json.is_discarded() ? nullptr : JsonFieldById(json, 2);
    nlohmann::json* jdf_type = jdf ? UnwrapJson((*jdf)["type"]) : nullptr;
    nlohmann::json* jpart = jdf_type ? JsonFieldById(*jdf_type, 102) : nullptr;
    nlohmann::json* jpart_type = jpart ? UnwrapJson((*jpart)["type"]) : nullptr;
    if (jpart_type == nullptr || !jpart_type->is_object()) {
      return Status::Corrupt("{}: the partition record is not defined in place", file.location());
    }
    FLOE_ASSIGN_OR_RETURN(std::string read_json,
                          ManifestEntryReadSchema(jpart_type->dump(), options.read_stats));
    auto parsed = avro::Schema::Parse(read_json, {.validate_names = false});
    if (!parsed) return Status::Corrupt("{}: {}", file.location(), parsed.error().message());
    read_schema = std::move(*parsed);
    if (cache != nullptr) cache->read_schemas.emplace(read_key, read_schema);
  }
  avro::ContainerReaderOptions ropts;
  ropts.schema_cache = header_options.schema_cache;
  ropts.reader_schema = std::move(read_schema);
  ropts.batch_rows = options.batch_rows;
  auto opened = avro::ContainerReader::Open(
      std::make_unique<internal::BytesInputFile>(file.location(), bytes), std::move(ropts));
  if (!opened) {
    if (opened.error().code() == StatusCode::kInvalidArgument) {
      return Status::Corrupt("manifest {}: {}", file.location(), opened.error().message());
    }
    return std::move(opened).error();
  }
  r->reader_ = std::move(*opened);

  // First row id inheritance (spec, "First Row ID Inheritance"; Java ManifestReader).
  if (r->content_ == ManifestContent::kData && manifest.first_row_id) {
    r->assign_row_ids_ = true;
    r->next_row_id_ = *manifest.first_row_id;
  } else if (manifest.sequence_number != kUnassignedSequenceNumber) {
    r->clear_row_ids_ = true;
  }
  r->options_ = std::move(options);
  return r;
}

Result<std::vector<ManifestEntry>> ManifestReader::Next() {
  std::vector<ManifestEntry> out;
  while (out.empty()) {
    FLOE_ASSIGN_OR_RETURN(auto batch, reader_->Next());
    if (!batch) break;
    FLOE_RETURN_IF_ERROR(Convert(*batch, &out));
  }
  return out;
}

Result<std::vector<ManifestEntry>> ManifestReader::ReadAll() {
  std::vector<ManifestEntry> all;
  while (true) {
    FLOE_ASSIGN_OR_RETURN(auto part, Next());
    if (part.empty()) break;
    for (auto& e : part) all.push_back(std::move(e));
  }
  return all;
}

Status ManifestReader::Convert(const columnar::RecordBatch& batch,
                               std::vector<ManifestEntry>* out) {
  auto col = [&](std::string_view name) -> const Array* {
    int i = batch.schema()->FieldIndex(name);
    return i < 0 ? nullptr : &batch.column(static_cast<size_t>(i));
  };
  const Array* status = col("status");
  const Array* snapshot = col("snapshot_id");
  const Array* seq = col("sequence_number");
  const Array* file_seq = col("file_sequence_number");
  const Array* df = col("data_file");
  if (status == nullptr || df == nullptr || df->type_id() != TypeId::kStruct) {
    return Status::Corrupt("manifest entries without status or data_file");
  }
  const Array* content = Child(*df, "content");
  const Array* path = Child(*df, "file_path");
  const Array* format = Child(*df, "file_format");
  const Array* partition = Child(*df, "partition");
  const Array* record_count = Child(*df, "record_count");
  const Array* file_size = Child(*df, "file_size_in_bytes");
  // Partition columns by field id, in the partition type's order.
  const auto& pfields = partition_type_->fields();
  std::vector<const Array*> pcols(pfields.size(), nullptr);
  if (partition != nullptr && partition->type_id() == TypeId::kStruct) {
    const auto& children = partition->type()->children();
    for (size_t i = 0; i < pfields.size(); ++i) {
      for (size_t c = 0; c < children.size(); ++c) {
        if (children[c].field_id == pfields[i].id) pcols[i] = &partition->child(c);
      }
    }
  }
  const bool v1_sequence = manifest_.sequence_number == 0;
  const bool unassigned = manifest_.sequence_number == kUnassignedSequenceNumber;

  for (int64_t row = 0; row < batch.num_rows(); ++row, ++entries_read_) {
    ManifestEntry e;
    auto st = GetLong(status, row);
    if (!st || *st < 0 || *st > 2) return Status::Corrupt("entry {}: bad status", entries_read_);
    e.status = static_cast<ManifestStatus>(*st);
    if (df->IsNull(row)) return Status::Corrupt("entry {}: null data_file", entries_read_);
    DataFile& f = e.data_file;
    int64_t c = GetLong(content, row).value_or(0);
    if (c < 0 || c > 2) return Status::Corrupt("entry {}: bad content {}", entries_read_, c);
    f.content = static_cast<FileContent>(c);
    auto p = GetBytes(path, row);
    auto fmt = GetBytes(format, row);
    auto rc = GetLong(record_count, row);
    auto size = GetLong(file_size, row);
    if (!p || !fmt || !rc || !size) {
      return Status::Corrupt(
          "entry {}: missing file_path, file_format, record_count or "
          "file_size_in_bytes",
          entries_read_);
    }
    f.file_path = std::move(*p);
    auto parsed_format = ParseFileFormat(*fmt);
    if (!parsed_format) {
      return Status::Corrupt("entry {}: unknown file format '{}'", entries_read_, *fmt);
    }
    f.file_format = *parsed_format;
    f.record_count = *rc;
    f.file_size_in_bytes = *size;
    f.spec_id = spec_id_;
    for (size_t i = 0; i < pfields.size(); ++i) {
      if (pcols[i] == nullptr || partition->IsNull(row)) {
        f.partition.push_back(Literal::Null(pfields[i].type));
        continue;
      }
      FLOE_ASSIGN_OR_RETURN(Literal v, ToLiteral(*pcols[i], row, pfields[i].type));
      f.partition.push_back(std::move(v));
    }
    if (options_.read_stats) {
      FLOE_RETURN_IF_ERROR(ReadMap(Child(*df, "column_sizes"), row, &f.column_sizes));
      FLOE_RETURN_IF_ERROR(ReadMap(Child(*df, "value_counts"), row, &f.value_counts));
      FLOE_RETURN_IF_ERROR(ReadMap(Child(*df, "null_value_counts"), row, &f.null_value_counts));
      FLOE_RETURN_IF_ERROR(ReadMap(Child(*df, "nan_value_counts"), row, &f.nan_value_counts));
      FLOE_RETURN_IF_ERROR(ReadMap(Child(*df, "lower_bounds"), row, &f.lower_bounds));
      FLOE_RETURN_IF_ERROR(ReadMap(Child(*df, "upper_bounds"), row, &f.upper_bounds));
    }
    f.key_metadata = GetBytes(Child(*df, "key_metadata"), row);
    FLOE_ASSIGN_OR_RETURN(f.split_offsets, ReadList<int64_t>(Child(*df, "split_offsets"), row));
    FLOE_ASSIGN_OR_RETURN(f.equality_ids, ReadList<int32_t>(Child(*df, "equality_ids"), row));
    if (auto v = GetLong(Child(*df, "sort_order_id"), row)) {
      f.sort_order_id = static_cast<int32_t>(*v);
    }
    f.first_row_id = GetLong(Child(*df, "first_row_id"), row);
    f.referenced_data_file = GetBytes(Child(*df, "referenced_data_file"), row);
    f.content_offset = GetLong(Child(*df, "content_offset"), row);
    f.content_size_in_bytes = GetLong(Child(*df, "content_size_in_bytes"), row);

    // Inheritance (spec, "Sequence Number Inheritance"; Java InheritableMetadataFactory).
    e.snapshot_id = GetLong(snapshot, row);
    if (!e.snapshot_id) e.snapshot_id = manifest_.added_snapshot_id;
    e.data_sequence_number = GetLong(seq, row);
    e.file_sequence_number = GetLong(file_seq, row);
    const bool inherit = !unassigned && (v1_sequence || e.status == ManifestStatus::kAdded);
    for (std::optional<int64_t>* s : {&e.data_sequence_number, &e.file_sequence_number}) {
      if (s->has_value()) continue;
      if (inherit) {
        *s = manifest_.sequence_number;
      } else if (!unassigned) {
        return Status::Corrupt("entry {} ({}) is not ADDED but has a null sequence number",
                               entries_read_, f.file_path);
      }
    }
    if (assign_row_ids_) {
      if (e.status != ManifestStatus::kDeleted && !f.first_row_id) {
        f.first_row_id = next_row_id_;
        next_row_id_ += f.record_count;
      }
    } else if (clear_row_ids_) {
      f.first_row_id.reset();
    }

    switch (options_.filter) {
      case ManifestEntryFilter::kAll: break;
      case ManifestEntryFilter::kLive:
        if (!e.is_live()) continue;
        break;
      case ManifestEntryFilter::kAdded:
        if (e.status != ManifestStatus::kAdded) continue;
        break;
    }
    out->push_back(std::move(e));
  }
  return Status::OK();
}

Result<std::vector<ManifestEntry>> ReadManifest(const io::InputFile& file,
                                                const ManifestFile& manifest,
                                                ManifestReaderOptions options) {
  FLOE_ASSIGN_OR_RETURN(auto reader, ManifestReader::Open(file, manifest, std::move(options)));
  return reader->ReadAll();
}

}  // namespace floe::iceberg
