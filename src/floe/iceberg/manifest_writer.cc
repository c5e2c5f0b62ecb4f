#include "floe/iceberg/manifest_writer.h"

#include <cmath>
#include <cstring>

#include <nlohmann/json.hpp>

#include "floe/base/macros.h"
#include "floe/format/avro/binary.h"
#include "floe/iceberg/manifest_avro.h"

namespace floe::iceberg {

namespace avro = floe::format::avro;

// Forwards to the real stream and remembers how many bytes went through, so Close() knows
// the manifest's length after the container writer has taken the stream.
class ManifestWriter::CountingStream final : public io::OutputStream {
 public:
  explicit CountingStream(std::unique_ptr<io::OutputStream> out) : out_(std::move(out)) {}
  const std::string& location() const override { return out_->location(); }
  Status Write(const void* data, size_t n) override {
    FLOE_RETURN_IF_ERROR(out_->Write(data, n));
    written_ += n;
    return Status::OK();
  }
  uint64_t position() const override { return written_; }
  Status Close() override { return out_->Close(); }

 private:
  std::unique_ptr<io::OutputStream> out_;
  uint64_t written_ = 0;
};

namespace {

void AppendNull(Buffer* out) { avro::AppendLong(out, 0); }

// An optional value of a ["null", T] union.
template <typename T, typename F>
void AppendOptional(Buffer* out, const std::optional<T>& v, F&& write) {
  if (!v) {
    AppendNull(out);
    return;
  }
  avro::AppendLong(out, 1);
  write(*v);
}

void AppendString(Buffer* out, std::string_view s) { avro::AppendBytes(out, s.data(), s.size()); }

void AppendCounts(Buffer* out, const std::map<int32_t, int64_t>& m) {
  if (m.empty()) return AppendNull(out);
  avro::AppendLong(out, 1);
  avro::AppendLong(out, static_cast<int64_t>(m.size()));
  for (const auto& [id, v] : m) {
    avro::AppendInt(out, id);
    avro::AppendLong(out, v);
  }
  avro::AppendLong(out, 0);
}

void AppendBounds(Buffer* out, const std::map<int32_t, std::string>& m) {
  if (m.empty()) return AppendNull(out);
  avro::AppendLong(out, 1);
  avro::AppendLong(out, static_cast<int64_t>(m.size()));
  for (const auto& [id, v] : m) {
    avro::AppendInt(out, id);
    AppendString(out, v);
  }
  avro::AppendLong(out, 0);
}

template <typename T>
void AppendList(Buffer* out, const std::optional<std::vector<T>>& list) {
  if (!list) return AppendNull(out);
  avro::AppendLong(out, 1);
  if (!list->empty()) {
    avro::AppendLong(out, static_cast<int64_t>(list->size()));
    for (T v : *list) avro::AppendLong(out, v);
  }
  avro::AppendLong(out, 0);
}

void AppendFixedLE(Buffer* out, const void* p, size_t n) { out->Append(p, n); }

bool SameType(const Type& a, const Type& b) {
  if (a.kind() != b.kind()) return false;
  if (a.kind() == TypeKind::kDecimal) {
    return a.precision() == b.precision() && a.scale() == b.scale();
  }
  if (a.kind() == TypeKind::kFixed) return a.length() == b.length();
  return true;
}

// Encodes a partition value as the Avro type manifest_avro.cc gives its Iceberg type.
Status AppendPartitionValue(Buffer* out, const NestedField& field, const Literal& value) {
  if (value.is_null()) {
    if (field.required) {
      return Status::InvalidArgument("partition field {} is required but the value is null",
                                     field.name);
    }
    AppendNull(out);
    return Status::OK();
  }
  if (!SameType(*value.type(), *field.type)) {
    return Status::InvalidArgument("partition field {} has type {}, the value is a {}", field.name,
                                   field.type->ToString(), value.type()->ToString());
  }
  if (!field.required) avro::AppendLong(out, 1);
  switch (field.type->kind()) {
    case TypeKind::kBoolean: {
      uint8_t b = value.bool_value() ? 1 : 0;
      out->Append(&b, 1);
      return Status::OK();
    }
    case TypeKind::kInt:
    case TypeKind::kDate: avro::AppendInt(out, value.int_value()); return Status::OK();
    case TypeKind::kLong:
    case TypeKind::kTime:
    case TypeKind::kTimestamp:
    case TypeKind::kTimestampTz:
    case TypeKind::kTimestampNs:
    case TypeKind::kTimestampTzNs: avro::AppendLong(out, value.long_value()); return Status::OK();
    case TypeKind::kFloat: {
      float f = value.float_value();
      AppendFixedLE(out, &f, 4);
      return Status::OK();
    }
    case TypeKind::kDouble: {
      double d = value.double_value();
      AppendFixedLE(out, &d, 8);
      return Status::OK();
    }
    case TypeKind::kString:
    case TypeKind::kBinary: AppendString(out, value.string_value()); return Status::OK();
    case TypeKind::kFixed:
      out->Append(value.string_value().data(), value.string_value().size());
      return Status::OK();
    case TypeKind::kUuid: out->Append(value.uuid_value().data(), 16); return Status::OK();
    case TypeKind::kDecimal: {
      int32_t size = DecimalRequiredBytes(field.type->precision());
      uint8_t bytes[16];
      FLOE_RETURN_IF_ERROR(avro::DecimalToFixedBytes(value.decimal_value(), size, bytes));
      out->Append(bytes, static_cast<size_t>(size));
      return Status::OK();
    }
    default: return Status::Unimplemented("partition values of type {}", field.type->ToString());
  }
}

bool IsNaN(const Literal& v) {
  if (v.is_null()) return false;
  if (v.type()->kind() == TypeKind::kFloat) return std::isnan(v.float_value());
  if (v.type()->kind() == TypeKind::kDouble) return std::isnan(v.double_value());
  return false;
}

}  // namespace

Result<ManifestWriterOptions> MakeManifestWriterOptions(int format_version,
                                                        const PartitionSpec& spec,
                                                        const Schema& schema, int64_t snapshot_id,
                                                        ManifestContent content) {
  ManifestWriterOptions o;
  o.format_version = format_version;
  o.content = content;
  o.spec_id = spec.spec_id();
  FLOE_ASSIGN_OR_RETURN(o.partition_type, spec.PartitionType(schema));
  o.schema_json = SchemaToJson(schema);
  o.partition_spec_json = PartitionFieldsToJsonValue(spec).dump();
  o.snapshot_id = snapshot_id;
  return o;
}

ManifestWriter::~ManifestWriter() = default;

Result<std::unique_ptr<ManifestWriter>> ManifestWriter::Make(std::unique_ptr<io::OutputStream> out,
                                                             ManifestWriterOptions options) {
  if (options.format_version < 1 || options.format_version > 3) {
    return Status::InvalidArgument("unsupported manifest format version {}",
                                   options.format_version);
  }
  if (!options.partition_type || options.partition_type->kind() != TypeKind::kStruct) {
    return Status::InvalidArgument("a manifest writer needs a struct partition type");
  }
  if (options.format_version == 1 && options.content != ManifestContent::kData) {
    return Status::InvalidArgument("v1 tables have no delete manifests");
  }
  if (options.first_row_id &&
      (options.format_version < 3 || options.content != ManifestContent::kData)) {
    return Status::InvalidArgument("first_row_id is only for v3 data manifests");
  }
  if (options.format_version == 1) options.inherit_snapshot_id = false;
  FLOE_ASSIGN_OR_RETURN(std::string schema_json,
                        ManifestEntryAvroSchema(options.format_version, *options.partition_type));
  FLOE_ASSIGN_OR_RETURN(auto schema, avro::Schema::Parse(schema_json));

  std::unique_ptr<ManifestWriter> w(new ManifestWriter());
  w->location_ = out->location();
  auto counting = std::make_unique<CountingStream>(std::move(out));
  w->counter_ = counting.get();

  avro::ContainerWriterOptions copts;
  copts.codec = options.codec;
  copts.level = options.level;
  copts.sync_marker = options.sync_marker;
  // Java's order: schema, partition-spec, partition-spec-id, format-version, content.
  copts.metadata = {{"schema", options.schema_json},
                    {"partition-spec", options.partition_spec_json},
                    {"partition-spec-id", std::to_string(options.spec_id)},
                    {"format-version", std::to_string(options.format_version)}};
  if (options.format_version >= 2) {
    copts.metadata.emplace_back("content", std::string(ManifestContentName(options.content)));
  }
  FLOE_ASSIGN_OR_RETURN(w->writer_, avro::ContainerWriter::Make(
                                        std::move(counting), std::move(schema), std::move(copts)));
  w->stats_.resize(options.partition_type->fields().size());
  w->options_ = std::move(options);
  return w;
}

Status ManifestWriter::Add(const DataFile& file, std::optional<int64_t> data_sequence_number) {
  ManifestEntry entry;
  entry.status = ManifestStatus::kAdded;
  if (!options_.inherit_snapshot_id) entry.snapshot_id = options_.snapshot_id;
  if (data_sequence_number && *data_sequence_number >= 0) {
    entry.data_sequence_number = data_sequence_number;
  }
  entry.data_file = file;
  return Write(entry);
}

Status ManifestWriter::Existing(const ManifestEntry& entry) {
  ManifestEntry e = entry;
  e.status = ManifestStatus::kExisting;
  return Write(e);
}

Status ManifestWriter::Delete(const ManifestEntry& entry) {
  ManifestEntry e = entry;
  e.status = ManifestStatus::kDeleted;
  e.snapshot_id = options_.snapshot_id;
  return Write(e);
}

Status ManifestWriter::Write(const ManifestEntry& entry) {
  if (closed_) return Status::FailedPrecondition("the manifest writer is closed");
  const int version = options_.format_version;
  const DataFile& f = entry.data_file;
  const bool deletes_manifest = options_.content == ManifestContent::kDeletes;
  if ((f.content != FileContent::kData) != deletes_manifest) {
    return Status::InvalidArgument("cannot write a {} file {} to a {} manifest",
                                   FileContentName(f.content), f.file_path,
                                   ManifestContentName(options_.content));
  }
  const auto& pfields = options_.partition_type->fields();
  if (f.partition.size() != pfields.size()) {
    return Status::InvalidArgument("file {} has {} partition values, the spec {} fields",
                                   f.file_path, f.partition.size(), pfields.size());
  }
  if (version >= 2 && entry.status != ManifestStatus::kAdded &&
      (!entry.data_sequence_number || !entry.file_sequence_number || !entry.snapshot_id)) {
    // Spec, "Sequence Number Inheritance": only ADDED entries may inherit.
    return Status::InvalidArgument(
        "entry for {} is not ADDED but lacks an explicit snapshot id or sequence numbers",
        f.file_path);
  }
  if (version == 1 && !entry.snapshot_id) {
    return Status::InvalidArgument("v1 entries need a snapshot id ({})", f.file_path);
  }

  Buffer& out = datum_;
  out.Clear();
  avro::AppendInt(&out, static_cast<int32_t>(entry.status));
  auto put_long = [&](int64_t v) { avro::AppendLong(&out, v); };
  auto put_int = [&](int32_t v) { avro::AppendInt(&out, v); };
  AppendOptional(&out, entry.snapshot_id, put_long);
  if (version >= 2) {
    AppendOptional(&out, entry.data_sequence_number, put_long);
    AppendOptional(&out, entry.file_sequence_number, put_long);
  }
  // data_file (r2), in V*Metadata's field order.
  if (version >= 2) avro::AppendInt(&out, static_cast<int32_t>(f.content));
  AppendString(&out, f.file_path);
  AppendString(&out, FileFormatName(f.file_format));
  for (size_t i = 0; i < pfields.size(); ++i) {
    FLOE_RETURN_IF_ERROR(AppendPartitionValue(&out, pfields[i], f.partition[i]));
  }
  avro::AppendLong(&out, f.record_count);
  avro::AppendLong(&out, f.file_size_in_bytes);
  if (version == 1) avro::AppendLong(&out, int64_t{64} << 20);  // block_size_in_bytes
  AppendCounts(&out, f.column_sizes);
  AppendCounts(&out, f.value_counts);
  AppendCounts(&out, f.null_value_counts);
  AppendCounts(&out, f.nan_value_counts);
  AppendBounds(&out, f.lower_bounds);
  AppendBounds(&out, f.upper_bounds);
  AppendOptional(&out, f.key_metadata, [&](const std::string& s) { AppendString(&out, s); });
  AppendList(&out, f.split_offsets);
  if (version >= 2) AppendList(&out, f.equality_ids);
  AppendOptional(&out, f.sort_order_id, put_int);
  if (version >= 3) AppendOptional(&out, f.first_row_id, put_long);
  if (version >= 2) {
    AppendOptional(&out, f.referenced_data_file,
                   [&](const std::string& s) { AppendString(&out, s); });
  }
  if (version >= 3) {
    AppendOptional(&out, f.content_offset, put_long);
    AppendOptional(&out, f.content_size_in_bytes, put_long);
  }
  FLOE_RETURN_IF_ERROR(writer_->WriteEncoded(out.span()));

  switch (entry.status) {
    case ManifestStatus::kAdded:
      added_files_ += 1;
      added_rows_ += f.record_count;
      break;
    case ManifestStatus::kExisting:
      existing_files_ += 1;
      existing_rows_ += f.record_count;
      break;
    case ManifestStatus::kDeleted:
      deleted_files_ += 1;
      deleted_rows_ += f.record_count;
      break;
  }
  if (entry.is_live() && entry.data_sequence_number &&
      (!min_data_sequence_number_ || *entry.data_sequence_number < *min_data_sequence_number_)) {
    min_data_sequence_number_ = entry.data_sequence_number;
  }
  // Partition summaries cover every entry, deleted ones included (Java PartitionSummary).
  for (size_t i = 0; i < pfields.size(); ++i) {
    const Literal& v = f.partition[i];
    FieldStats& s = stats_[i];
    if (v.is_null()) {
      s.contains_null = true;
    } else if (IsNaN(v)) {
      s.contains_nan = true;
    } else {
      if (!s.lower || Compare(v, *s.lower) < 0) s.lower = v;
      if (!s.upper || Compare(v, *s.upper) > 0) s.upper = v;
    }
  }
  return Status::OK();
}

Result<ManifestFile> ManifestWriter::Close() {
  if (closed_) return Status::FailedPrecondition("the manifest writer is closed");
  closed_ = true;
  FLOE_RETURN_IF_ERROR(writer_->Close());
  ManifestFile m;
  m.manifest_path = location_;
  m.manifest_length = static_cast<int64_t>(counter_->position());
  m.partition_spec_id = options_.spec_id;
  m.content = options_.content;
  m.sequence_number = kUnassignedSequenceNumber;
  m.min_sequence_number = min_data_sequence_number_.value_or(kUnassignedSequenceNumber);
  m.added_snapshot_id = options_.snapshot_id;
  m.added_files_count = added_files_;
  m.existing_files_count = existing_files_;
  m.deleted_files_count = deleted_files_;
  m.added_rows_count = added_rows_;
  m.existing_rows_count = existing_rows_;
  m.deleted_rows_count = deleted_rows_;
  std::vector<PartitionFieldSummary> summaries;
  for (const FieldStats& s : stats_) {
    PartitionFieldSummary p;
    p.contains_null = s.contains_null;
    p.contains_nan = s.contains_nan;
    if (s.lower) {
      FLOE_ASSIGN_OR_RETURN(p.lower_bound, s.lower->ToBytes());
      FLOE_ASSIGN_OR_RETURN(p.upper_bound, s.upper->ToBytes());
    }
    summaries.push_back(std::move(p));
  }
  m.partitions = std::move(summaries);
  m.first_row_id = options_.first_row_id;
  return m;
}

}  // namespace floe::iceberg
