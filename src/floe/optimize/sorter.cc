#include "floe/optimize/sorter.h"

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <queue>
#include <utility>

#include <fmt/format.h>

#include "floe/base/macros.h"
#include "floe/columnar/gather.h"
#include "floe/format/parquet/file_writer.h"
#include "floe/format/parquet/schema.h"
#include "floe/iceberg/data_reader.h"
#include "floe/io/local_file_io.h"

namespace floe::optimize {

namespace col = floe::columnar;

namespace {

// The column of field `id` in `batch`: the top-level column, then struct children down to
// it; `parents` collects the structs on the way (a null struct makes its fields null).
Result<const col::Array*> LocateColumn(const iceberg::Schema& schema, const col::RecordBatch& batch,
                                       int32_t id, std::vector<const col::Array*>* parents) {
  std::vector<int32_t> path{id};
  for (std::optional<int32_t> p = schema.FindParentId(id); p; p = schema.FindParentId(*p)) {
    path.insert(path.begin(), *p);
  }
  const std::vector<iceberg::NestedField>* fields = &schema.fields();
  const col::Array* array = nullptr;
  for (size_t depth = 0; depth < path.size(); ++depth) {
    size_t index = fields->size();
    for (size_t i = 0; i < fields->size(); ++i) {
      if ((*fields)[i].id == path[depth]) index = i;
    }
    if (index == fields->size()) return Status::InvalidArgument("sort field {} not found", id);
    if (depth == 0) {
      if (index >= batch.num_columns()) {
        return Status::InvalidArgument("batch lacks sort field {}", id);
      }
      array = &batch.column(index);
    } else {
      parents->push_back(array);
      array = &array->child(index);
    }
    if (depth + 1 < path.size()) {
      if ((*fields)[index].type->kind() != iceberg::TypeKind::kStruct) {
        return Status::InvalidArgument("sort field {} is inside a list or map", id);
      }
      fields = &(*fields)[index].type->fields();
    }
  }
  return array;
}

template <typename U>
void AppendBigEndian(U v, std::string* out) {
  for (int shift = static_cast<int>(sizeof(U) * 8) - 8; shift >= 0; shift -= 8) {
    out->push_back(static_cast<char>((v >> shift) & 0xFF));
  }
}

template <typename S>
void AppendSigned(S v, std::string* out) {
  using U = std::make_unsigned_t<S>;
  AppendBigEndian(static_cast<U>(static_cast<U>(v) ^ (U{1} << (sizeof(U) * 8 - 1))), out);
}

// IEEE total order: negative values (and -NaN) have every bit inverted, positive ones only
// the sign bit set.
template <typename U>
void AppendFloatBits(U bits, std::string* out) {
  constexpr U kSign = U{1} << (sizeof(U) * 8 - 1);
  AppendBigEndian(static_cast<U>((bits & kSign) ? ~bits : (bits | kSign)), out);
}

Status AppendValue(const col::Array& a, int64_t i, std::string* out) {
  switch (a.type_id()) {
    case col::TypeId::kBool: out->push_back(a.BoolValue(i) ? '\1' : '\0'); return Status::OK();
    case col::TypeId::kInt8: AppendSigned(a.Value<int8_t>(i), out); return Status::OK();
    case col::TypeId::kInt16: AppendSigned(a.Value<int16_t>(i), out); return Status::OK();
    case col::TypeId::kInt32:
    case col::TypeId::kDate32:
    case col::TypeId::kTime32: AppendSigned(a.Value<int32_t>(i), out); return Status::OK();
    case col::TypeId::kInt64:
    case col::TypeId::kTime64:
    case col::TypeId::kTimestamp: AppendSigned(a.Value<int64_t>(i), out); return Status::OK();
    case col::TypeId::kUInt8: AppendBigEndian(a.Value<uint8_t>(i), out); return Status::OK();
    case col::TypeId::kUInt16: AppendBigEndian(a.Value<uint16_t>(i), out); return Status::OK();
    case col::TypeId::kUInt32: AppendBigEndian(a.Value<uint32_t>(i), out); return Status::OK();
    case col::TypeId::kUInt64: AppendBigEndian(a.Value<uint64_t>(i), out); return Status::OK();
    case col::TypeId::kFloat32: AppendFloatBits(a.Value<uint32_t>(i), out); return Status::OK();
    case col::TypeId::kFloat64: AppendFloatBits(a.Value<uint64_t>(i), out); return Status::OK();
    case col::TypeId::kDecimal128: {
      // 16 bytes little-endian two's complement: big-endian with the sign bit flipped.
      std::string_view v = a.FixedValue(i);
      for (size_t k = 0; k < 16; ++k) {
        auto b = static_cast<uint8_t>(v[15 - k]);
        if (k == 0) b ^= 0x80;
        out->push_back(static_cast<char>(b));
      }
      return Status::OK();
    }
    case col::TypeId::kString:
    case col::TypeId::kBinary: {
      // 0x00 is escaped as 00 FF and the value ends with 00 00: no key is a prefix of
      // another's encoding, and shorter strings sort first.
      for (char c : a.BinaryValue(i)) {
        out->push_back(c);
        if (c == '\0') out->push_back('\xFF');
      }
      out->push_back('\0');
      out->push_back('\0');
      return Status::OK();
    }
    case col::TypeId::kFixedBinary:
    case col::TypeId::kUuid: out->append(a.FixedValue(i)); return Status::OK();
    default:
      return Status::InvalidArgument("cannot sort by a column of type {}",
                                     col::TypeIdName(a.type_id()));
  }
}

int64_t ArrayBytes(const col::Array& a) {
  auto bytes = static_cast<int64_t>(a.validity().size() + a.values().size() + a.offsets().size());
  for (const col::Array& c : a.children()) bytes += ArrayBytes(c);
  return bytes;
}

}  // namespace

Status NormalizedSortKeys(const iceberg::Schema& schema, const iceberg::SortOrder& order,
                          const col::RecordBatch& batch, std::string* keys,
                          std::vector<size_t>* ends) {
  struct Column {
    const col::Array* array;
    std::vector<const col::Array*> parents;
    col::Array transformed;
    bool descending;
    bool nulls_first;
  };
  std::vector<Column> columns;
  columns.reserve(order.fields().size());
  for (const iceberg::SortField& f : order.fields()) {
    Column c;
    FLOE_ASSIGN_OR_RETURN(c.array, LocateColumn(schema, batch, f.source_id, &c.parents));
    if (f.transform.kind() != iceberg::TransformKind::kIdentity) {
      const iceberg::NestedField* field = schema.FindField(f.source_id);
      FLOE_ASSIGN_OR_RETURN(c.transformed, f.transform.ApplyToArray(*c.array, *field->type));
      c.array = &c.transformed;
    }
    c.descending = f.direction == iceberg::SortDirection::kDesc;
    c.nulls_first = f.null_order == iceberg::NullOrder::kNullsFirst;
    columns.push_back(std::move(c));
  }
  keys->clear();
  ends->clear();
  ends->reserve(static_cast<size_t>(batch.num_rows()));
  for (int64_t i = 0; i < batch.num_rows(); ++i) {
    for (const Column& c : columns) {
      bool valid = c.array->IsValid(i);
      for (const col::Array* p : c.parents) valid = valid && p->IsValid(i);
      if (!valid) {
        keys->push_back(c.nulls_first ? '\0' : '\2');
        continue;
      }
      keys->push_back('\1');
      const size_t start = keys->size();
      FLOE_RETURN_IF_ERROR(AppendValue(*c.array, i, keys));
      if (c.descending) {
        for (size_t k = start; k < keys->size(); ++k) (*keys)[k] = static_cast<char>(~(*keys)[k]);
      }
    }
    ends->push_back(keys->size());
  }
  return Status::OK();
}

struct ExternalSorter::Keyed {
  col::RecordBatch batch;
  std::string keys;
  std::vector<size_t> ends;
  std::string_view key(size_t i) const {
    const size_t begin = i == 0 ? 0 : ends[i - 1];
    return std::string_view(keys).substr(begin, ends[i] - begin);
  }
};

ExternalSorter::ExternalSorter(iceberg::Schema schema, iceberg::SortOrder order, int64_t budget,
                               std::string spill_dir)
    : schema_(std::move(schema)),
      order_(std::move(order)),
      budget_(budget),
      spill_dir_(std::move(spill_dir)) {}

ExternalSorter::~ExternalSorter() {
  if (!run_dir_.empty()) {
    std::error_code ec;
    std::filesystem::remove_all(run_dir_, ec);
  }
}

Result<std::unique_ptr<ExternalSorter>> ExternalSorter::Make(iceberg::Schema schema,
                                                             iceberg::SortOrder order,
                                                             int64_t memory_budget_bytes,
                                                             std::string spill_dir) {
  FLOE_RETURN_IF_ERROR(order.Validate(schema));
  return std::unique_ptr<ExternalSorter>(
      new ExternalSorter(std::move(schema), std::move(order),
                         std::max<int64_t>(memory_budget_bytes, 1 << 20), std::move(spill_dir)));
}

Result<ExternalSorter::Keyed> ExternalSorter::KeyBatch(col::RecordBatch batch) const {
  Keyed k;
  FLOE_RETURN_IF_ERROR(NormalizedSortKeys(schema_, order_, batch, &k.keys, &k.ends));
  k.batch = std::move(batch);
  return k;
}

Status ExternalSorter::Add(col::RecordBatch batch) {
  if (batch.num_rows() == 0) return Status::OK();
  FLOE_ASSIGN_OR_RETURN(Keyed k, KeyBatch(std::move(batch)));
  for (const col::Array& a : k.batch.columns()) buffered_bytes_ += ArrayBytes(a);
  buffered_bytes_ += static_cast<int64_t>(k.keys.size() + k.ends.size() * sizeof(size_t));
  buffered_.push_back(std::move(k));
  if (buffered_bytes_ > budget_) return SpillBuffered();
  return Status::OK();
}

Status ExternalSorter::EmitBuffered(const std::function<Status(const col::RecordBatch&)>& sink) {
  std::vector<col::RowRef> refs;
  for (size_t b = 0; b < buffered_.size(); ++b) {
    for (int64_t i = 0; i < buffered_[b].batch.num_rows(); ++i) {
      refs.push_back({static_cast<uint32_t>(b), static_cast<uint32_t>(i)});
    }
  }
  std::stable_sort(refs.begin(), refs.end(), [this](const col::RowRef& x, const col::RowRef& y) {
    return buffered_[x.source].key(x.row) < buffered_[y.source].key(y.row);
  });
  std::vector<const col::RecordBatch*> sources;
  for (const Keyed& k : buffered_) sources.push_back(&k.batch);
  for (size_t at = 0; at < refs.size(); at += kOutputRows) {
    std::vector<col::RowRef> chunk(
        refs.begin() + static_cast<std::ptrdiff_t>(at),
        refs.begin() + static_cast<std::ptrdiff_t>(std::min(refs.size(), at + kOutputRows)));
    FLOE_ASSIGN_OR_RETURN(col::RecordBatch out, col::Gather(sources, chunk));
    FLOE_RETURN_IF_ERROR(sink(out));
  }
  buffered_.clear();
  buffered_bytes_ = 0;
  return Status::OK();
}

Status ExternalSorter::SpillBuffered() {
  if (buffered_.empty()) return Status::OK();
  if (run_dir_.empty()) {
    std::error_code ec;
    std::filesystem::path base = spill_dir_.empty() ? std::filesystem::temp_directory_path(ec)
                                                    : std::filesystem::path(spill_dir_);
    if (ec) return Status::Unavailable("no temporary directory: {}", ec.message());
    std::filesystem::create_directories(base, ec);
    std::string tmpl = (base / "floe-sort-XXXXXX").string();
    if (::mkdtemp(tmpl.data()) == nullptr) {
      return Status::Unavailable("sort spill directory {}: {}", tmpl, std::strerror(errno));
    }
    run_dir_ = tmpl;
  }
  io::LocalFileIO io;
  const std::string path = fmt::format("{}/run-{}.parquet", run_dir_, runs_.size());
  FLOE_ASSIGN_OR_RETURN(auto descriptor,
                        format::parquet::SchemaDescriptor::FromColumnar(schema_.ToColumnar()));
  FLOE_ASSIGN_OR_RETURN(auto out, io.CreateOutput(path, true));
  format::parquet::WriterOptions options;
  FLOE_ASSIGN_OR_RETURN(auto writer, format::parquet::FileWriter::Make(
                                         std::move(out), std::move(descriptor), options));
  FLOE_RETURN_IF_ERROR(EmitBuffered([&](const col::RecordBatch& b) { return writer->Write(b); }));
  FLOE_RETURN_IF_ERROR(writer->Close().status());
  runs_.push_back(path);
  ++runs_spilled_;
  return Status::OK();
}

Status ExternalSorter::Finish(const std::function<Status(const col::RecordBatch&)>& sink) {
  if (runs_.empty()) return EmitBuffered(sink);
  FLOE_RETURN_IF_ERROR(SpillBuffered());
  return Merge(sink);
}

Status ExternalSorter::Merge(const std::function<Status(const col::RecordBatch&)>& sink) {
  io::LocalFileIO io;
  auto read_schema = std::make_shared<const iceberg::Schema>(schema_);
  // Each run holds one batch at a time: together about half the budget.
  iceberg::DataReadOptions read;
  read.batch_rows =
      std::clamp<int64_t>(budget_ / 2 / static_cast<int64_t>(runs_.size()) / 256, 1024, 64 * 1024);
  struct Source {
    std::unique_ptr<iceberg::DataFileReader> reader;
    Keyed current;
    int64_t row = 0;
    bool done = false;
  };
  std::vector<Source> sources(runs_.size());
  auto advance_batch = [&](Source& s) -> Status {
    while (true) {
      FLOE_ASSIGN_OR_RETURN(std::optional<iceberg::PositionedBatch> b, s.reader->Next());
      if (!b) {
        s.done = true;
        return Status::OK();
      }
      if (b->batch.num_rows() == 0) continue;
      FLOE_ASSIGN_OR_RETURN(s.current, KeyBatch(std::move(b->batch)));
      s.row = 0;
      return Status::OK();
    }
  };
  for (size_t r = 0; r < runs_.size(); ++r) {
    FLOE_ASSIGN_OR_RETURN(sources[r].reader, iceberg::DataFileReader::Open(
                                                 io, runs_[r], read_schema, {}, nullptr, read));
    FLOE_RETURN_IF_ERROR(advance_batch(sources[r]));
  }
  // Ties go to the lower run: runs hold consecutive input, so the merge stays stable.
  auto greater = [&](size_t x, size_t y) {
    std::string_view kx = sources[x].current.key(static_cast<size_t>(sources[x].row));
    std::string_view ky = sources[y].current.key(static_cast<size_t>(sources[y].row));
    if (kx != ky) return kx > ky;
    return x > y;
  };
  std::priority_queue<size_t, std::vector<size_t>, decltype(greater)> heap(greater);
  for (size_t r = 0; r < sources.size(); ++r) {
    if (!sources[r].done) heap.push(r);
  }
  std::vector<col::RowRef> picks;
  auto flush = [&]() -> Status {
    if (picks.empty()) return Status::OK();
    std::vector<const col::RecordBatch*> batches;
    for (const Source& s : sources) batches.push_back(&s.current.batch);
    FLOE_ASSIGN_OR_RETURN(col::RecordBatch out, col::Gather(batches, picks));
    picks.clear();
    return sink(out);
  };
  while (!heap.empty()) {
    const size_t r = heap.top();
    heap.pop();
    Source& s = sources[r];
    picks.push_back({static_cast<uint32_t>(r), static_cast<uint32_t>(s.row)});
    if (++s.row >= s.current.batch.num_rows()) {
      // The picks refer to this batch: write them before it is replaced.
      FLOE_RETURN_IF_ERROR(flush());
      FLOE_RETURN_IF_ERROR(advance_batch(s));
      if (s.done) continue;
    } else if (static_cast<int64_t>(picks.size()) >= kOutputRows) {
      FLOE_RETURN_IF_ERROR(flush());
    }
    heap.push(r);
  }
  FLOE_RETURN_IF_ERROR(flush());
  for (const std::string& path : runs_) (void)io.Delete(path);
  runs_.clear();
  return Status::OK();
}

}  // namespace floe::optimize
