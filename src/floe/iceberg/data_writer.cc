#include "floe/iceberg/data_writer.h"

#include <algorithm>
#include <bit>
#include <charconv>
#include <cmath>
#include <cstring>
#include <limits>

#include <fmt/format.h>

#include "floe/base/bytes.h"
#include "floe/base/macros.h"
#include "floe/columnar/compute.h"
#include "floe/iceberg/writer_internal.h"

namespace floe::iceberg {

namespace col = floe::columnar;
namespace pq = floe::format::parquet;

namespace internal {

namespace {

const std::string* FindProperty(const std::map<std::string, std::string>& props,
                                std::string_view key) {
  auto it = props.find(std::string(key));
  return it == props.end() ? nullptr : &it->second;
}

// "write.delete.parquet.<name>" falls back to "write.parquet.<name>" for delete files.
const std::string* ParquetProperty(const std::map<std::string, std::string>& props,
                                   bool delete_file, std::string_view name) {
  if (delete_file) {
    if (const std::string* v = FindProperty(props, fmt::format("write.delete.parquet.{}", name))) {
      return v;
    }
  }
  return FindProperty(props, fmt::format("write.parquet.{}", name));
}

Result<int64_t> ParseInt(std::string_view key, const std::string& text) {
  int64_t v = 0;
  auto [p, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || p != text.data() + text.size()) {
    return Status::InvalidArgument("table property {}: not an integer: '{}'", key, text);
  }
  return v;
}

Status SizeProperty(const std::map<std::string, std::string>& props, bool delete_file,
                    std::string_view name, int64_t* out) {
  if (const std::string* v = ParquetProperty(props, delete_file, name)) {
    FLOE_ASSIGN_OR_RETURN(int64_t n, ParseInt(name, *v));
    if (n <= 0)
      return Status::InvalidArgument("table property write.parquet.{} must be positive", name);
    *out = n;
  }
  return Status::OK();
}

std::string LowerAscii(std::string_view s) {
  std::string out(s);
  for (char& c : out) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c + 32);
  }
  return out;
}

}  // namespace

Result<pq::WriterOptions> ParquetOptionsFromProperties(
    const std::map<std::string, std::string>& props, bool delete_file, const Schema& file_schema,
    const pq::SchemaDescriptor& descriptor, const MetricsConfig& metrics) {
  pq::WriterOptions o;
  o.compression = format::CompressionKind::kZstd;
  o.dictionary_page_bytes = int64_t{2} << 20;  // Java write.parquet.dict-size-bytes
  if (const std::string* codec = ParquetProperty(props, delete_file, "compression-codec")) {
    const std::string name = LowerAscii(*codec);
    // Iceberg Java's "lz4" is Parquet's LZ4 codec, the Hadoop framing.
    if (name == "lz4") {
      o.compression = format::CompressionKind::kLz4Hadoop;
    } else if (name == "uncompressed" || name == "snappy" || name == "gzip" || name == "zstd" ||
               name == "lz4_raw") {
      FLOE_ASSIGN_OR_RETURN(o.compression, format::ParseCompressionKind(name));
    } else {
      return Status::InvalidArgument("unsupported write.parquet.compression-codec '{}'", *codec);
    }
  }
  if (const std::string* level = ParquetProperty(props, delete_file, "compression-level")) {
    FLOE_ASSIGN_OR_RETURN(int64_t l, ParseInt("write.parquet.compression-level", *level));
    o.compression_level = static_cast<int>(l);
  }
  FLOE_RETURN_IF_ERROR(
      SizeProperty(props, delete_file, "row-group-size-bytes", &o.row_group_bytes));
  FLOE_RETURN_IF_ERROR(SizeProperty(props, delete_file, "page-size-bytes", &o.page_bytes));
  FLOE_RETURN_IF_ERROR(SizeProperty(props, delete_file, "page-row-limit", &o.page_rows));
  FLOE_RETURN_IF_ERROR(
      SizeProperty(props, delete_file, "dict-size-bytes", &o.dictionary_page_bytes));
  FLOE_RETURN_IF_ERROR(
      SizeProperty(props, delete_file, "bloom-filter-max-bytes", &o.bloom_filter_max_bytes));
  // Bloom filters per column name; the fpp is per column in Java, one value here (the
  // smallest asked for).
  constexpr std::string_view kBloomPrefix = "write.parquet.bloom-filter-enabled.column.";
  for (const auto& [key, value] : props) {
    if (!key.starts_with(kBloomPrefix) || LowerAscii(value) != "true") continue;
    const std::string name = key.substr(kBloomPrefix.size());
    const NestedField* field = file_schema.FindFieldByName(name);
    if (field == nullptr) continue;  // Java ignores columns that are not in the schema
    for (const pq::ColumnDescriptor& leaf : descriptor.leaves()) {
      if (leaf.field_id == field->id) o.bloom_filter_leaves.insert(leaf.index);
    }
    if (const std::string* fpp =
            FindProperty(props, "write.parquet.bloom-filter-fpp.column." + name)) {
      char* end = nullptr;
      const double v = std::strtod(fpp->c_str(), &end);
      if (end != fpp->c_str() + fpp->size() || !(v > 0 && v < 1)) {
        return Status::InvalidArgument("write.parquet.bloom-filter-fpp.column.{}: '{}'", name,
                                       *fpp);
      }
      o.bloom_filter_fpp = std::min(o.bloom_filter_fpp, v);
    }
  }
  // Footer statistics long enough for the metrics: full keeps whole values (as parquet-java
  // does), truncate(N) needs N code points of up to 4 bytes.
  size_t stats_limit = o.statistics_truncate_bytes;
  for (const int32_t id : file_schema.AllFieldIds()) {
    const NestedField* f = file_schema.FindField(id);
    if (f == nullptr ||
        (f->type->kind() != TypeKind::kString && f->type->kind() != TypeKind::kBinary)) {
      continue;
    }
    const MetricsMode mode = metrics.FieldMode(file_schema, id);
    if (mode.kind == MetricsMode::Kind::kFull) {
      stats_limit = std::numeric_limits<size_t>::max();
    } else if (mode.kind == MetricsMode::Kind::kTruncate) {
      stats_limit = std::max(stats_limit, static_cast<size_t>(mode.length) * 4);
    }
  }
  o.statistics_truncate_bytes = stats_limit;
  o.key_value_metadata.push_back(pq::KeyValue{"iceberg.schema", SchemaToJson(file_schema)});
  return o;
}

Result<Literal> ArrayValueToLiteral(const col::Array& a, int64_t i, const TypePtr& type) {
  if (a.IsNull(i)) return Literal::Null(type);
  switch (type->kind()) {
    case TypeKind::kBoolean: return Literal::Make(type, a.BoolValue(i));
    case TypeKind::kInt:
    case TypeKind::kDate: return Literal::Make(type, a.Value<int32_t>(i));
    case TypeKind::kLong:
    case TypeKind::kTime:
    case TypeKind::kTimestamp:
    case TypeKind::kTimestampTz:
    case TypeKind::kTimestampNs:
    case TypeKind::kTimestampTzNs: return Literal::Make(type, a.Value<int64_t>(i));
    case TypeKind::kFloat: return Literal::Make(type, a.Value<float>(i));
    case TypeKind::kDouble: return Literal::Make(type, a.Value<double>(i));
    case TypeKind::kDecimal: {
      __int128 v;
      std::memcpy(&v, a.FixedValue(i).data(), sizeof(v));
      return Literal::Make(type, v);
    }
    case TypeKind::kString:
    case TypeKind::kBinary: return Literal::Make(type, std::string(a.BinaryValue(i)));
    case TypeKind::kFixed: return Literal::Make(type, std::string(a.FixedValue(i)));
    case TypeKind::kUuid: {
      Literal::UuidBytes u{};
      std::memcpy(u.data(), a.FixedValue(i).data(), 16);
      return Literal::Make(type, u);
    }
    default: break;
  }
  return Status::InvalidArgument("no partition value of type {}", type->ToString());
}

namespace {

// The bytes that identify a value for grouping: raw fixed-width bytes, binary bytes, the
// bit of a boolean; float/double NaNs normalized (spec: partition values compare floats by
// bit pattern with NaN normalized). `scratch` backs values that are not in the array.
std::string_view ValueBytes(const col::Array& a, int64_t i, uint64_t* scratch) {
  switch (a.type_id()) {
    case col::TypeId::kNull: return {};
    case col::TypeId::kBool:
      *scratch = a.BoolValue(i) ? 1 : 0;
      return {reinterpret_cast<const char*>(scratch), 1};
    case col::TypeId::kString:
    case col::TypeId::kBinary: return a.BinaryValue(i);
    case col::TypeId::kFloat32: {
      float f = a.Value<float>(i);
      if (std::isnan(f)) f = std::numeric_limits<float>::quiet_NaN();
      std::memcpy(scratch, &f, sizeof(f));
      return {reinterpret_cast<const char*>(scratch), sizeof(f)};
    }
    case col::TypeId::kFloat64: {
      double d = a.Value<double>(i);
      if (std::isnan(d)) d = std::numeric_limits<double>::quiet_NaN();
      std::memcpy(scratch, &d, sizeof(d));
      return {reinterpret_cast<const char*>(scratch), sizeof(d)};
    }
    default: {
      const auto w = static_cast<size_t>(a.type()->fixed_width());
      return {reinterpret_cast<const char*>(a.values().data()) + w * static_cast<size_t>(i), w};
    }
  }
}

uint64_t HashBytes(std::string_view b) {
  uint64_t h = 0xcbf29ce484222325ULL;  // FNV-1a, then a final mix
  for (char c : b) {
    h ^= static_cast<uint8_t>(c);
    h *= 0x100000001b3ULL;
  }
  h ^= h >> 33;
  h *= 0xff51afd7ed558ccdULL;
  h ^= h >> 33;
  return h;
}

}  // namespace

Result<Partitioner> Partitioner::Make(const Schema& schema, const PartitionSpec& spec) {
  Partitioner p;
  FLOE_ASSIGN_OR_RETURN(TypePtr partition_type, spec.PartitionType(schema));
  for (size_t k = 0; k < spec.fields().size(); ++k) {
    const PartitionField& pf = spec.fields()[k];
    if (!pf.transform.is_known()) {
      return Status::InvalidArgument(
          "cannot write with unknown transform '{}' of partition field {}", pf.transform.ToString(),
          pf.name);
    }
    FieldPlan plan;
    plan.transform = pf.transform;
    plan.result_type = partition_type->fields()[k].type;
    // The path of struct indices from the top level down to the source field.
    const std::vector<NestedField>* level = &schema.fields();
    std::vector<int32_t> chain;
    for (std::optional<int32_t> id = pf.source_id; id; id = schema.FindParentId(*id)) {
      chain.push_back(*id);
    }
    if (schema.FindField(pf.source_id) == nullptr) {
      return Status::InvalidArgument("partition field {}: source column {} is not in the schema",
                                     pf.name, pf.source_id);
    }
    for (auto it = chain.rbegin(); it != chain.rend(); ++it) {
      auto pos = std::find_if(level->begin(), level->end(),
                              [&](const NestedField& f) { return f.id == *it; });
      if (pos == level->end()) {
        return Status::InvalidArgument(
            "partition field {}: source column {} is inside a list or map", pf.name, pf.source_id);
      }
      plan.path.push_back(static_cast<size_t>(pos - level->begin()));
      if (std::next(it) != chain.rend()) {
        if (pos->type->kind() != TypeKind::kStruct) {
          return Status::InvalidArgument(
              "partition field {}: source column {} is inside a list or map", pf.name,
              pf.source_id);
        }
        level = &pos->type->fields();
      } else {
        plan.source_type = pos->type;
      }
    }
    if (!plan.source_type->is_primitive() || !pf.transform.CanTransform(*plan.source_type)) {
      return Status::InvalidArgument("partition field {}: {} cannot transform {}", pf.name,
                                     pf.transform.ToString(), plan.source_type->ToString());
    }
    p.fields_.push_back(std::move(plan));
  }
  return p;
}

Status Partitioner::Compute(const col::RecordBatch& batch, Split* out) const {
  const int64_t n = batch.num_rows();
  out->group_of_row.assign(static_cast<size_t>(n), 0);
  out->keys.clear();
  out->rows.clear();
  std::vector<col::Array> values;
  values.reserve(fields_.size());
  // Rows whose source is null because a parent struct is null (partition value null).
  std::vector<std::vector<uint8_t>> parent_null(fields_.size());
  for (size_t k = 0; k < fields_.size(); ++k) {
    const FieldPlan& f = fields_[k];
    const col::Array* a = &batch.column(f.path[0]);
    for (size_t d = 1; d < f.path.size(); ++d) {
      if (a->null_count() > 0) {
        parent_null[k].resize(static_cast<size_t>(n), 0);
        for (int64_t i = 0; i < n; ++i) parent_null[k][static_cast<size_t>(i)] |= a->IsNull(i);
      }
      a = &a->child(f.path[d]);
    }
    FLOE_ASSIGN_OR_RETURN(col::Array t, f.transform.ApplyToArray(*a, *f.source_type));
    values.push_back(std::move(t));
  }
  auto is_null = [&](size_t k, int64_t i) {
    return values[k].IsNull(i) ||
           (!parent_null[k].empty() && parent_null[k][static_cast<size_t>(i)] != 0);
  };
  auto row_hash = [&](int64_t i) {
    uint64_t h = 0x9e3779b97f4a7c15ULL;
    for (size_t k = 0; k < values.size(); ++k) {
      uint64_t scratch = 0;
      const uint64_t v =
          is_null(k, i) ? 0x5bd1e995ULL : HashBytes(ValueBytes(values[k], i, &scratch));
      h = (h ^ v) * 0x100000001b3ULL + k;
    }
    return h;
  };
  auto rows_equal = [&](int64_t i, int64_t j) {
    for (size_t k = 0; k < values.size(); ++k) {
      const bool ni = is_null(k, i), nj = is_null(k, j);
      if (ni != nj) return false;
      if (ni) continue;
      uint64_t si = 0, sj = 0;
      if (ValueBytes(values[k], i, &si) != ValueBytes(values[k], j, &sj)) return false;
    }
    return true;
  };
  std::unordered_map<uint64_t, int32_t> head;  // hash -> first group with it
  std::vector<int32_t> chain;                  // group -> next group with the same hash
  std::vector<int64_t> rep;                    // group -> its first row
  int32_t last = -1;                           // runs of one partition are common
  for (int64_t i = 0; i < n; ++i) {
    if (last >= 0 && rows_equal(i, rep[static_cast<size_t>(last)])) {
      out->group_of_row[static_cast<size_t>(i)] = last;
      ++out->rows[static_cast<size_t>(last)];
      continue;
    }
    const uint64_t h = row_hash(i);
    auto it = head.find(h);
    int32_t g = it == head.end() ? -1 : it->second;
    while (g >= 0 && !rows_equal(i, rep[static_cast<size_t>(g)])) g = chain[static_cast<size_t>(g)];
    if (g < 0) {
      g = static_cast<int32_t>(rep.size());
      rep.push_back(i);
      chain.push_back(it == head.end() ? -1 : it->second);
      head[h] = g;
      out->rows.push_back(0);
    }
    out->group_of_row[static_cast<size_t>(i)] = g;
    ++out->rows[static_cast<size_t>(g)];
    last = g;
  }
  for (int64_t r : rep) {
    std::vector<Literal> key;
    key.reserve(fields_.size());
    for (size_t k = 0; k < fields_.size(); ++k) {
      if (is_null(k, r)) {
        key.push_back(Literal::Null(fields_[k].result_type));
      } else {
        FLOE_ASSIGN_OR_RETURN(Literal v, ArrayValueToLiteral(values[k], r, fields_[k].result_type));
        key.push_back(std::move(v));
      }
    }
    out->keys.push_back(std::move(key));
  }
  return Status::OK();
}

struct PartitionedFileWriter::Target {
  PartitionSpec spec;
  std::vector<Literal> partition;
  std::string location;
  std::unique_ptr<pq::FileWriter> writer;
  uint32_t file_index = 0;  // of the open file in written_
  uint64_t last_write = 0;
};

PartitionedFileWriter::~PartitionedFileWriter() = default;

Result<std::unique_ptr<PartitionedFileWriter>> PartitionedFileWriter::Make(
    io::FileIO* io, Schema file_schema, PartitionSpec spec, MetricsConfig metrics, FileKind kind,
    const FileWriterOptions& options, int64_t default_target_bytes) {
  if (options.operation_id.empty()) return Status::InvalidArgument("writer needs an operation id");
  if (options.max_open_files < 1) return Status::InvalidArgument("max_open_files must be >= 1");
  std::unique_ptr<PartitionedFileWriter> w(new PartitionedFileWriter());
  w->io_ = io;
  w->schema_ = std::move(file_schema);
  w->spec_ = std::move(spec);
  w->metrics_ = std::move(metrics);
  w->kind_ = std::move(kind);
  w->max_open_files_ = options.max_open_files;
  if (!w->spec_.is_unpartitioned()) {
    FLOE_ASSIGN_OR_RETURN(Partitioner p, Partitioner::Make(w->schema_, w->spec_));
    w->partitioner_ = std::move(p);
  } else {
    // Specs of void transforms only: every row has the all-null tuple.
    FLOE_ASSIGN_OR_RETURN(TypePtr pt, w->spec_.PartitionType(w->schema_));
    for (const NestedField& f : pt->fields()) w->null_partition_.push_back(Literal::Null(f.type));
  }
  FLOE_ASSIGN_OR_RETURN(std::unique_ptr<pq::SchemaDescriptor> desc,
                        pq::SchemaDescriptor::FromColumnar(w->schema_.ToColumnar()));
  w->descriptor_ = std::move(desc);
  const bool delete_file = w->kind_.content != FileContent::kData;
  FLOE_ASSIGN_OR_RETURN(w->parquet_options_,
                        ParquetOptionsFromProperties(options.properties, delete_file, w->schema_,
                                                     *w->descriptor_, w->metrics_));
  w->target_bytes_ = default_target_bytes;
  const std::string_view target_key =
      delete_file ? kDeleteTargetFileSizeProperty : kTargetFileSizeProperty;
  if (options.target_file_size_bytes) {
    w->target_bytes_ = *options.target_file_size_bytes;
  } else if (auto it = options.properties.find(std::string(target_key));
             it != options.properties.end()) {
    FLOE_ASSIGN_OR_RETURN(w->target_bytes_, ParseInt(target_key, it->second));
  }
  if (w->target_bytes_ <= 0) return Status::InvalidArgument("target file size must be positive");
  w->locations_ = LocationProvider::Make(options.table_location, options.properties);
  w->names_ = std::make_unique<OutputFileFactory>(options.partition_id, options.task_id,
                                                  options.operation_id);
  return w;
}

namespace {

// A stable map key for a partition: the spec id, then per value a null marker or its
// length-prefixed single-value bytes.
Result<std::string> PartitionKeyString(const PartitionSpec& spec,
                                       const std::vector<Literal>& values) {
  std::string key = fmt::format("{}:", spec.spec_id());
  for (const Literal& v : values) {
    if (v.is_null()) {
      key.push_back('\0');
      continue;
    }
    FLOE_ASSIGN_OR_RETURN(std::string bytes, v.ToBytes());
    key.push_back('\1');
    key += fmt::format("{}:", bytes.size());
    key += bytes;
  }
  return key;
}

}  // namespace

Result<PartitionedFileWriter::Target*> PartitionedFileWriter::FindOrAdd(
    const PartitionSpec& spec, const std::vector<Literal>& partition) {
  if (partition.size() != spec.fields().size()) {
    return Status::InvalidArgument("partition has {} values, spec {} has {} fields",
                                   partition.size(), spec.spec_id(), spec.fields().size());
  }
  FLOE_ASSIGN_OR_RETURN(std::string key, PartitionKeyString(spec, partition));
  auto it = targets_.find(key);
  if (it != targets_.end()) return it->second.get();
  auto t = std::make_unique<Target>();
  t->spec = spec;
  t->partition = partition;
  Target* raw = t.get();
  targets_.emplace(std::move(key), std::move(t));
  return raw;
}

Status PartitionedFileWriter::Open(Target* t) {
  // Spill: close the least recently written file to stay within max_open_files.
  while (open_files_ >= max_open_files_) {
    Target* lru = nullptr;
    for (auto& [key, other] : targets_) {
      if (other->writer && other.get() != t &&
          (lru == nullptr || other->last_write < lru->last_write)) {
        lru = other.get();
      }
    }
    if (lru == nullptr) break;
    FLOE_RETURN_IF_ERROR(CloseFile(lru));
  }
  const std::string name = names_->NewFileName(FileFormat::kParquet, kind_.suffix);
  FLOE_ASSIGN_OR_RETURN(t->location, locations_->NewDataLocation(t->spec, t->partition, name));
  FLOE_ASSIGN_OR_RETURN(std::unique_ptr<io::OutputStream> out,
                        io_->CreateOutput(t->location, false));
  t->file_index = static_cast<uint32_t>(written_.size());
  written_.push_back(t->location);
  FLOE_ASSIGN_OR_RETURN(t->writer,
                        pq::FileWriter::Make(std::move(out), descriptor_, parquet_options_));
  ++open_files_;
  return Status::OK();
}

Status PartitionedFileWriter::CloseFile(Target* t) {
  std::unique_ptr<pq::FileWriter> writer = std::move(t->writer);
  --open_files_;
  FLOE_ASSIGN_OR_RETURN(pq::WriteResult r, writer->Close());
  DataFile f;
  f.content = kind_.content;
  f.file_path = t->location;
  f.file_format = FileFormat::kParquet;
  f.spec_id = t->spec.spec_id();
  f.partition = t->partition;
  f.file_size_in_bytes = r.file_bytes;
  FLOE_RETURN_IF_ERROR(ApplyParquetMetrics(schema_, metrics_, *descriptor_, r, &f));
  f.split_offsets = r.row_group_offsets;
  f.equality_ids = kind_.equality_ids;
  f.sort_order_id = kind_.sort_order_id;
  done_.push_back(std::move(f));
  return Status::OK();
}

Status PartitionedFileWriter::WriteRows(Target* t, const col::RecordBatch& batch,
                                        RowLocation* locations) {
  t->last_write = ++clock_;
  int64_t offset = 0;
  const int64_t n = batch.num_rows();
  while (offset < n) {
    if (!t->writer) FLOE_RETURN_IF_ERROR(Open(t));
    // Rows that fit before the target size, from the bytes per row so far (Java's
    // RollingFileWriter checks the size every 1000 rows).
    int64_t length = n - offset;
    const int64_t rows = t->writer->num_rows();
    const int64_t size = t->writer->EstimatedSize();
    if (rows > 0) {
      const int64_t per_row = std::max<int64_t>(1, size / rows);
      length = std::min(length, std::max<int64_t>(1000, (target_bytes_ - size) / per_row + 1));
    } else {
      length = std::min<int64_t>(length, 1000);
    }
    if (locations != nullptr) {
      for (int64_t i = 0; i < length; ++i) {
        locations[offset + i] = RowLocation{t->file_index, rows + i};
      }
    }
    if (offset == 0 && length == n) {
      FLOE_RETURN_IF_ERROR(t->writer->Write(batch));
    } else {
      FLOE_RETURN_IF_ERROR(t->writer->Write(batch.Slice(offset, length)));
    }
    offset += length;
    if (t->writer->EstimatedSize() >= target_bytes_) FLOE_RETURN_IF_ERROR(CloseFile(t));
  }
  return Status::OK();
}

Status PartitionedFileWriter::Write(const col::RecordBatch& batch,
                                    std::vector<RowLocation>* locations) {
  if (closed_) return Status::FailedPrecondition("write after close");
  if (batch.num_rows() == 0) return Status::OK();
  RowLocation* out = nullptr;
  if (locations != nullptr) {
    const size_t first = locations->size();
    locations->resize(first + static_cast<size_t>(batch.num_rows()));
    out = locations->data() + first;
  }
  if (!partitioner_) {
    FLOE_ASSIGN_OR_RETURN(Target * t, FindOrAdd(spec_, null_partition_));
    return WriteRows(t, batch, out);
  }
  FLOE_RETURN_IF_ERROR(partitioner_->Compute(batch, &split_));
  if (split_.keys.size() == 1) {
    FLOE_ASSIGN_OR_RETURN(Target * t, FindOrAdd(spec_, split_.keys[0]));
    return WriteRows(t, batch, out);
  }
  std::vector<uint8_t> mask(static_cast<size_t>(batch.num_rows()));
  std::vector<RowLocation> group_locations;
  for (size_t g = 0; g < split_.keys.size(); ++g) {
    for (size_t i = 0; i < mask.size(); ++i)
      mask[i] = split_.group_of_row[i] == static_cast<int32_t>(g);
    FLOE_ASSIGN_OR_RETURN(Target * t, FindOrAdd(spec_, split_.keys[g]));
    if (out != nullptr) group_locations.resize(static_cast<size_t>(split_.rows[g]));
    FLOE_RETURN_IF_ERROR(
        WriteRows(t, col::Filter(batch, mask), out != nullptr ? group_locations.data() : nullptr));
    if (out != nullptr) {
      // The group's rows in batch order: scatter their locations back to the batch rows.
      size_t next = 0;
      for (size_t i = 0; i < mask.size(); ++i) {
        if (mask[i]) out[i] = group_locations[next++];
      }
    }
  }
  return Status::OK();
}

Status PartitionedFileWriter::WriteTo(const PartitionSpec& spec,
                                      const std::vector<Literal>& partition,
                                      const col::RecordBatch& batch) {
  if (closed_) return Status::FailedPrecondition("write after close");
  if (batch.num_rows() == 0) return Status::OK();
  FLOE_ASSIGN_OR_RETURN(Target * t, FindOrAdd(spec, partition));
  return WriteRows(t, batch, nullptr);
}

Result<std::vector<DataFile>> PartitionedFileWriter::Close() {
  if (closed_) return Status::FailedPrecondition("closed twice");
  closed_ = true;
  // Close in a stable order (by last write) so results do not depend on hashing.
  std::vector<Target*> open;
  for (auto& [key, t] : targets_) {
    if (t->writer) open.push_back(t.get());
  }
  std::sort(open.begin(), open.end(),
            [](const Target* a, const Target* b) { return a->last_write < b->last_write; });
  for (Target* t : open) FLOE_RETURN_IF_ERROR(CloseFile(t));
  return std::move(done_);
}

Status PartitionedFileWriter::Abort() {
  closed_ = true;
  for (auto& [key, t] : targets_) t->writer.reset();
  open_files_ = 0;
  Status first;
  for (const std::string& loc : written_) {
    Status s = io_->Delete(loc);
    if (!s.ok() && s.code() != StatusCode::kNotFound && first.ok()) first = s;
  }
  written_.clear();
  done_.clear();
  return first;
}

}  // namespace internal

namespace {

constexpr int64_t kMicrosPerDay = int64_t{86400} * 1000000;

__int128 Pow10(int p) {
  __int128 v = 1;
  for (int i = 0; i < p; ++i) v *= 10;
  return v;
}

Status CheckValues(const col::Array& a, const Type& type, const std::string& name) {
  switch (type.kind()) {
    case TypeKind::kDecimal: {
      const __int128 limit = Pow10(type.precision());
      for (int64_t i = 0; i < a.length(); ++i) {
        if (a.IsNull(i)) continue;
        __int128 v;
        std::memcpy(&v, a.FixedValue(i).data(), sizeof(v));
        if (v >= limit || v <= -limit) {
          return Status::InvalidArgument("column '{}': value at row {} exceeds {}", name, i,
                                         type.ToString());
        }
      }
      return Status::OK();
    }
    case TypeKind::kTime:
      for (int64_t i = 0; i < a.length(); ++i) {
        if (a.IsNull(i)) continue;
        const int64_t v = a.Value<int64_t>(i);
        if (v < 0 || v >= kMicrosPerDay) {
          return Status::InvalidArgument("column '{}': time of day {} us at row {} is out of range",
                                         name, v, i);
        }
      }
      return Status::OK();
    case TypeKind::kStruct:
      for (size_t k = 0; k < type.fields().size(); ++k) {
        FLOE_RETURN_IF_ERROR(
            CheckValues(a.child(k), *type.fields()[k].type, name + "." + type.fields()[k].name));
      }
      return Status::OK();
    case TypeKind::kList: return CheckValues(a.child(0), *type.element().type, name + ".element");
    case TypeKind::kMap: {
      const col::Array& entries = a.child(0);
      FLOE_RETURN_IF_ERROR(CheckValues(entries.child(0), *type.key().type, name + ".key"));
      return CheckValues(entries.child(1), *type.value().type, name + ".value");
    }
    default: return Status::OK();
  }
}

}  // namespace

Status ValidateBatch(const Schema& schema, const col::RecordBatch& batch) {
  const auto& fields = schema.fields();
  if (batch.num_columns() != fields.size()) {
    return Status::InvalidArgument("batch has {} columns, the schema {}", batch.num_columns(),
                                   fields.size());
  }
  for (size_t k = 0; k < fields.size(); ++k) {
    const NestedField& f = fields[k];
    const col::Array& a = batch.column(k);
    const col::DataTypePtr want = ColumnarTypeOf(*f.type);
    if (!a.type()->Equals(*want)) {
      return Status::InvalidArgument("column '{}' has type {}, the schema says {}", f.name,
                                     a.type()->ToString(), want->ToString());
    }
    if (a.length() != batch.num_rows()) {
      return Status::InvalidArgument("column '{}' has {} rows, the batch {}", f.name, a.length(),
                                     batch.num_rows());
    }
    if (f.required && a.null_count() > 0) {
      return Status::InvalidArgument("column '{}' is required but holds {} null values", f.name,
                                     a.null_count());
    }
    FLOE_RETURN_IF_ERROR(CheckValues(a, *f.type, f.name));
  }
  return Status::OK();
}

DataWriter::DataWriter(std::unique_ptr<internal::PartitionedFileWriter> impl)
    : impl_(std::move(impl)) {}
DataWriter::~DataWriter() = default;

Result<std::unique_ptr<DataWriter>> DataWriter::Make(io::FileIO* io, Schema schema,
                                                     PartitionSpec spec, SortOrder sort_order,
                                                     bool input_sorted, FileWriterOptions options) {
  MetricsConfig metrics = MetricsConfig::ForTable(options.properties, schema, sort_order);
  internal::FileKind kind;
  kind.content = FileContent::kData;
  if (input_sorted) kind.sort_order_id = sort_order.order_id();
  FLOE_ASSIGN_OR_RETURN(std::unique_ptr<internal::PartitionedFileWriter> impl,
                        internal::PartitionedFileWriter::Make(
                            io, std::move(schema), std::move(spec), std::move(metrics),
                            std::move(kind), options, kTargetFileSizeDefault));
  return std::unique_ptr<DataWriter>(new DataWriter(std::move(impl)));
}

Status DataWriter::Write(const col::RecordBatch& batch) {
  FLOE_RETURN_IF_ERROR(ValidateBatch(impl_->schema(), batch));
  return impl_->Write(batch);
}

Status DataWriter::Write(const col::RecordBatch& batch, std::vector<RowLocation>* locations) {
  FLOE_RETURN_IF_ERROR(ValidateBatch(impl_->schema(), batch));
  return impl_->Write(batch, locations);
}

const std::vector<std::string>& DataWriter::file_paths() const { return impl_->paths(); }

Result<std::vector<DataFile>> DataWriter::Close() { return impl_->Close(); }

Status DataWriter::Abort() { return impl_->Abort(); }

}  // namespace floe::iceberg
