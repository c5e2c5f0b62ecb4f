#include "floe/iceberg/manifest_list.h"

#include "floe/base/macros.h"
#include "floe/format/avro/binary.h"
#include "floe/iceberg/manifest_avro.h"
#include "floe/iceberg/manifest_internal.h"

namespace floe::iceberg {

namespace avro = floe::format::avro;

namespace {

void AppendOptionalLong(Buffer* out, std::optional<int64_t> v) {
  avro::AppendLong(out, v ? 1 : 0);
  if (v) avro::AppendLong(out, *v);
}

void AppendOptionalBytes(Buffer* out, const std::optional<std::string>& v) {
  avro::AppendLong(out, v ? 1 : 0);
  if (v) avro::AppendBytes(out, v->data(), v->size());
}

// Appends a count: required (plain) in v2+, optional in v1.
void AppendCount(Buffer* out, bool v1, std::optional<int64_t> v) {
  if (v1) return AppendOptionalLong(out, v);
  avro::AppendLong(out, v.value_or(0));
}

void AppendPartitions(Buffer* out, const std::optional<std::vector<PartitionFieldSummary>>& p) {
  avro::AppendLong(out, p ? 1 : 0);
  if (!p) return;
  if (!p->empty()) {
    avro::AppendLong(out, static_cast<int64_t>(p->size()));
    for (const PartitionFieldSummary& s : *p) {
      uint8_t b = s.contains_null ? 1 : 0;
      out->Append(&b, 1);
      avro::AppendLong(out, s.contains_nan ? 1 : 0);
      if (s.contains_nan) {
        b = *s.contains_nan ? 1 : 0;
        out->Append(&b, 1);
      }
      AppendOptionalBytes(out, s.lower_bound);
      AppendOptionalBytes(out, s.upper_bound);
    }
  }
  avro::AppendLong(out, 0);
}

}  // namespace

ManifestListWriter::~ManifestListWriter() = default;

Result<std::unique_ptr<ManifestListWriter>> ManifestListWriter::Make(
    std::unique_ptr<io::OutputStream> out, ManifestListWriterOptions options) {
  const int version = options.format_version;
  if (version < 1 || version > 3) {
    return Status::InvalidArgument("unsupported manifest list format version {}", version);
  }
  if (version == 3 && !options.first_row_id) {
    return Status::InvalidArgument("a v3 manifest list needs the snapshot's first-row-id");
  }
  FLOE_ASSIGN_OR_RETURN(std::string schema_json, ManifestListAvroSchema(version));
  FLOE_ASSIGN_OR_RETURN(auto schema, avro::Schema::Parse(schema_json));
  avro::ContainerWriterOptions copts;
  copts.codec = options.codec;
  copts.level = options.level;
  copts.sync_marker = options.sync_marker;
  copts.metadata.emplace_back("snapshot-id", std::to_string(options.snapshot_id));
  copts.metadata.emplace_back(
      "parent-snapshot-id", options.parent_snapshot_id ? std::to_string(*options.parent_snapshot_id)
                                                       : std::string("null"));
  if (version >= 2) {
    copts.metadata.emplace_back("sequence-number", std::to_string(options.sequence_number));
  }
  if (version >= 3) {
    copts.metadata.emplace_back("first-row-id", std::to_string(*options.first_row_id));
  }
  copts.metadata.emplace_back("format-version", std::to_string(version));

  std::unique_ptr<ManifestListWriter> w(new ManifestListWriter());
  FLOE_ASSIGN_OR_RETURN(
      w->writer_, avro::ContainerWriter::Make(std::move(out), std::move(schema), std::move(copts)));
  w->next_row_id_ = options.first_row_id.value_or(0);
  w->options_ = std::move(options);
  return w;
}

Result<ManifestFile> ManifestListWriter::Add(const ManifestFile& manifest) {
  const int version = options_.format_version;
  const bool v1 = version == 1;
  ManifestFile m = manifest;
  if (v1 && m.content != ManifestContent::kData) {
    return Status::InvalidArgument("cannot store delete manifest {} in a v1 table",
                                   m.manifest_path);
  }
  if (version >= 2) {
    // V2Metadata.ManifestFileWrapper: only this snapshot's manifests may be unassigned.
    for (int64_t* seq : {&m.sequence_number, &m.min_sequence_number}) {
      if (*seq != kUnassignedSequenceNumber) continue;
      if (m.added_snapshot_id != options_.snapshot_id) {
        return Status::InvalidArgument(
            "manifest {} from snapshot {} has an unassigned sequence number", m.manifest_path,
            m.added_snapshot_id);
      }
      *seq = options_.sequence_number;
    }
    if (!m.added_files_count || !m.existing_files_count || !m.deleted_files_count ||
        !m.added_rows_count || !m.existing_rows_count || !m.deleted_rows_count) {
      return Status::InvalidArgument("manifest {} lacks file or row counts", m.manifest_path);
    }
  }
  if (version >= 3 && m.content == ManifestContent::kData && !m.first_row_id) {
    // Spec, "First Row ID Assignment": room for existing rows too, since pre-v3 files
    // without first_row_id inherit ids through the manifest.
    m.first_row_id = next_row_id_;
    next_row_id_ += *m.existing_rows_count + *m.added_rows_count;
  }
  if (version < 3 || m.content != ManifestContent::kData) {
    if (version >= 3 && m.first_row_id) {
      return Status::InvalidArgument("delete manifest {} has a first_row_id", m.manifest_path);
    }
    if (version < 3) m.first_row_id.reset();
  }

  Buffer& out = datum_;
  out.Clear();
  avro::AppendBytes(&out, m.manifest_path.data(), m.manifest_path.size());
  avro::AppendLong(&out, m.manifest_length);
  avro::AppendInt(&out, m.partition_spec_id);
  if (!v1) {
    avro::AppendInt(&out, static_cast<int32_t>(m.content));
    avro::AppendLong(&out, m.sequence_number);
    avro::AppendLong(&out, m.min_sequence_number);
  }
  avro::AppendLong(&out, m.added_snapshot_id);
  AppendCount(&out, v1, m.added_files_count);
  AppendCount(&out, v1, m.existing_files_count);
  AppendCount(&out, v1, m.deleted_files_count);
  if (v1) AppendPartitions(&out, m.partitions);
  AppendCount(&out, v1, m.added_rows_count);
  AppendCount(&out, v1, m.existing_rows_count);
  AppendCount(&out, v1, m.deleted_rows_count);
  if (!v1) AppendPartitions(&out, m.partitions);
  AppendOptionalBytes(&out, m.key_metadata);
  if (version >= 3) AppendOptionalLong(&out, m.first_row_id);
  FLOE_RETURN_IF_ERROR(writer_->WriteEncoded(out.span()));
  return m;
}

Status ManifestListWriter::Close() { return writer_->Close(); }

Result<std::vector<ManifestFile>> ReadManifestList(const io::InputFile& file,
                                                   const ManifestListReadOptions& options) {
  FLOE_ASSIGN_OR_RETURN(auto bytes, internal::ReadAllBytes(file, options.max_file_bytes));
  FLOE_ASSIGN_OR_RETURN(auto reader_schema, avro::Schema::Parse(ManifestListReadSchema()));
  avro::ContainerReaderOptions ropts;
  ropts.reader_schema = std::move(reader_schema);
  auto opened = avro::ContainerReader::Open(
      std::make_unique<internal::BytesInputFile>(file.location(), bytes), std::move(ropts));
  if (!opened) {
    // A writer schema that does not resolve against the list schema is a malformed list.
    if (opened.error().code() == StatusCode::kInvalidArgument) {
      return Status::Corrupt("manifest list {}: {}", file.location(), opened.error().message());
    }
    return std::move(opened).error();
  }
  auto& reader = *opened;
  std::vector<ManifestFile> result;
  using internal::Child;
  using internal::GetBool;
  using internal::GetBytes;
  using internal::GetLong;
  while (true) {
    FLOE_ASSIGN_OR_RETURN(auto batch, reader->Next());
    if (!batch) break;
    auto col = [&](std::string_view name) -> const columnar::Array* {
      int i = batch->schema()->FieldIndex(name);
      return i < 0 ? nullptr : &batch->column(static_cast<size_t>(i));
    };
    const columnar::Array* path = col("manifest_path");
    const columnar::Array* partitions = col("partitions");
    for (int64_t row = 0; row < batch->num_rows(); ++row) {
      ManifestFile m;
      auto p = GetBytes(path, row);
      auto length = GetLong(col("manifest_length"), row);
      auto spec_id = GetLong(col("partition_spec_id"), row);
      auto snapshot = GetLong(col("added_snapshot_id"), row);
      if (!p || !length || !spec_id || !snapshot) {
        return Status::Corrupt(
            "manifest list {} entry {} lacks a path, length, spec id or "
            "snapshot id",
            file.location(), result.size());
      }
      m.manifest_path = std::move(*p);
      m.manifest_length = *length;
      m.partition_spec_id = static_cast<int32_t>(*spec_id);
      m.added_snapshot_id = *snapshot;
      int64_t content = GetLong(col("content"), row).value_or(0);
      if (content != 0 && content != 1) {
        return Status::Corrupt("manifest list {}: unknown manifest content {}", file.location(),
                               content);
      }
      m.content = static_cast<ManifestContent>(content);
      // Spec: v1 lists have no sequence numbers; read them as 0.
      m.sequence_number = GetLong(col("sequence_number"), row).value_or(0);
      m.min_sequence_number = GetLong(col("min_sequence_number"), row).value_or(0);
      auto count32 = [&](std::string_view name) -> std::optional<int32_t> {
        auto v = GetLong(col(name), row);
        if (!v) return std::nullopt;
        return static_cast<int32_t>(*v);
      };
      m.added_files_count = count32("added_files_count");
      m.existing_files_count = count32("existing_files_count");
      m.deleted_files_count = count32("deleted_files_count");
      m.added_rows_count = GetLong(col("added_rows_count"), row);
      m.existing_rows_count = GetLong(col("existing_rows_count"), row);
      m.deleted_rows_count = GetLong(col("deleted_rows_count"), row);
      m.key_metadata = GetBytes(col("key_metadata"), row);
      m.first_row_id = GetLong(col("first_row_id"), row);
      if (partitions != nullptr && partitions->IsValid(row)) {
        const int32_t* offsets = partitions->list_offsets();
        const columnar::Array& items = partitions->child(0);
        std::vector<PartitionFieldSummary> summaries;
        for (int32_t i = offsets[row]; i < offsets[row + 1]; ++i) {
          if (items.IsNull(i)) {
            return Status::Corrupt("manifest list {}: null partition summary", file.location());
          }
          PartitionFieldSummary s;
          auto contains_null = GetBool(Child(items, "contains_null"), i);
          if (!contains_null) {
            return Status::Corrupt("manifest list {}: partition summary without contains_null",
                                   file.location());
          }
          s.contains_null = *contains_null;
          s.contains_nan = GetBool(Child(items, "contains_nan"), i);
          s.lower_bound = GetBytes(Child(items, "lower_bound"), i);
          s.upper_bound = GetBytes(Child(items, "upper_bound"), i);
          summaries.push_back(std::move(s));
        }
        m.partitions = std::move(summaries);
      }
      result.push_back(std::move(m));
    }
  }
  return result;
}

}  // namespace floe::iceberg
