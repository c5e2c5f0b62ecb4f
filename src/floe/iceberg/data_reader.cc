#include "floe/iceberg/data_reader.h"

#include <utility>

#include "floe/base/macros.h"
#include "floe/columnar/builder.h"

namespace floe::iceberg {

namespace col = floe::columnar;
namespace pq = floe::format::parquet;

// ---------------------------------------------------------------------------------------
// Constants

Result<col::Array> ConstantArray(const Literal& value, const Type& type, int64_t n) {
  col::DataTypePtr ct = ColumnarTypeOf(type);
  if (value.is_null() || !type.is_primitive()) return col::Array::Nulls(ct, n);
  std::unique_ptr<col::ArrayBuilder> b = col::MakeBuilder(ct);
  const Literal::Value& v = value.value();
  auto mismatch = [&]() {
    return Status::InvalidArgument("value {} does not fit type {}", value.ToString(),
                                   type.ToString());
  };
  switch (ct->id()) {
    case col::TypeId::kBool: {
      if (!std::holds_alternative<bool>(v)) return mismatch();
      auto* bb = static_cast<col::BoolBuilder*>(b.get());
      for (int64_t i = 0; i < n; ++i) bb->Append(std::get<bool>(v));
      break;
    }
    case col::TypeId::kInt32:
    case col::TypeId::kDate32: {
      if (!std::holds_alternative<int32_t>(v)) return mismatch();
      auto* fb = static_cast<col::FixedWidthBuilder<int32_t>*>(b.get());
      for (int64_t i = 0; i < n; ++i) fb->Append(std::get<int32_t>(v));
      break;
    }
    case col::TypeId::kInt64:
    case col::TypeId::kTime64:
    case col::TypeId::kTimestamp: {
      if (!std::holds_alternative<int64_t>(v)) return mismatch();
      auto* fb = static_cast<col::FixedWidthBuilder<int64_t>*>(b.get());
      for (int64_t i = 0; i < n; ++i) fb->Append(std::get<int64_t>(v));
      break;
    }
    case col::TypeId::kFloat32: {
      if (!std::holds_alternative<float>(v)) return mismatch();
      auto* fb = static_cast<col::FixedWidthBuilder<float>*>(b.get());
      for (int64_t i = 0; i < n; ++i) fb->Append(std::get<float>(v));
      break;
    }
    case col::TypeId::kFloat64: {
      if (!std::holds_alternative<double>(v)) return mismatch();
      auto* fb = static_cast<col::FixedWidthBuilder<double>*>(b.get());
      for (int64_t i = 0; i < n; ++i) fb->Append(std::get<double>(v));
      break;
    }
    case col::TypeId::kDecimal128: {
      if (!std::holds_alternative<__int128>(v)) return mismatch();
      auto* fb = static_cast<col::FixedWidthBuilder<__int128>*>(b.get());
      for (int64_t i = 0; i < n; ++i) fb->Append(std::get<__int128>(v));
      break;
    }
    case col::TypeId::kString:
    case col::TypeId::kBinary: {
      if (!std::holds_alternative<std::string>(v)) return mismatch();
      auto* sb = static_cast<col::BinaryBuilder*>(b.get());
      for (int64_t i = 0; i < n; ++i) sb->Append(std::get<std::string>(v));
      break;
    }
    case col::TypeId::kFixedBinary:
    case col::TypeId::kUuid: {
      std::string_view bytes;
      if (std::holds_alternative<std::string>(v)) {
        bytes = std::get<std::string>(v);
      } else if (std::holds_alternative<Literal::UuidBytes>(v)) {
        const auto& u = std::get<Literal::UuidBytes>(v);
        bytes = std::string_view(reinterpret_cast<const char*>(u.data()), u.size());
      } else {
        return mismatch();
      }
      if (static_cast<int32_t>(bytes.size()) != ct->fixed_width()) return mismatch();
      auto* fb = static_cast<col::FixedBinaryBuilder*>(b.get());
      for (int64_t i = 0; i < n; ++i) fb->Append(bytes);
      break;
    }
    default: return col::Array::Nulls(ct, n);
  }
  return b->Finish();
}

// ---------------------------------------------------------------------------------------
// Conversion of stored columns to read types

namespace {

// Multiplies (factor > 0) or floor-divides (factor < 0) int values into int64.
template <typename In>
col::Array ScaleToInt64(const col::Array& a, col::DataTypePtr type, int64_t factor) {
  Buffer values(static_cast<size_t>(a.length()) * sizeof(int64_t));
  int64_t* out = values.data_as<int64_t>();
  const In* in = a.data<In>();
  for (int64_t i = 0; i < a.length(); ++i) {
    int64_t x = static_cast<int64_t>(in[i]);
    if (factor >= 0) {
      out[i] = x * factor;
    } else {
      int64_t d = -factor;
      int64_t q = x / d;
      out[i] = (x % d != 0 && x < 0) ? q - 1 : q;
    }
  }
  return col::Array(std::move(type), a.length(), a.null_count(), a.validity().Clone(),
                    std::move(values), Buffer(), {});
}

template <typename In, typename Out>
col::Array Widen(const col::Array& a, col::DataTypePtr type) {
  Buffer values(static_cast<size_t>(a.length()) * sizeof(Out));
  Out* out = values.data_as<Out>();
  const In* in = a.data<In>();
  for (int64_t i = 0; i < a.length(); ++i) out[i] = static_cast<Out>(in[i]);
  return col::Array(std::move(type), a.length(), a.null_count(), a.validity().Clone(),
                    std::move(values), Buffer(), {});
}

int64_t UnitsPerSecond(col::TimeUnit u) {
  switch (u) {
    case col::TimeUnit::kSecond: return 1;
    case col::TimeUnit::kMilli: return 1000;
    case col::TimeUnit::kMicro: return 1000000;
    case col::TimeUnit::kNano: return 1000000000;
  }
  return 1;
}

// factor to go from unit `from` to unit `to` (positive: multiply; negative: divide).
int64_t UnitFactor(col::TimeUnit from, col::TimeUnit to) {
  int64_t f = UnitsPerSecond(from), t = UnitsPerSecond(to);
  return t >= f ? t / f : -(f / t);
}

Result<col::Array> ConformPrimitive(col::Array a, const col::DataTypePtr& t,
                                    const NestedField& target) {
  const col::DataType& s = *a.type();
  if (s.Equals(*t)) return std::move(a).WithType(t);
  using col::TypeId;
  TypeId from = s.id(), to = t->id();
  auto same_layout = [&]() { return std::move(a).WithType(t); };
  switch (to) {
    case TypeId::kInt64:
      if (from == TypeId::kInt32) return Widen<int32_t, int64_t>(a, t);
      if (from == TypeId::kUInt32) return Widen<uint32_t, int64_t>(a, t);
      if (from == TypeId::kInt64) return same_layout();
      break;
    case TypeId::kInt32:
      if (from == TypeId::kInt8) return Widen<int8_t, int32_t>(a, t);
      if (from == TypeId::kInt16) return Widen<int16_t, int32_t>(a, t);
      if (from == TypeId::kUInt8) return Widen<uint8_t, int32_t>(a, t);
      if (from == TypeId::kUInt16) return Widen<uint16_t, int32_t>(a, t);
      break;
    case TypeId::kFloat64:
      if (from == TypeId::kFloat32) return Widen<float, double>(a, t);
      break;
    case TypeId::kDecimal128:
      if (from == TypeId::kDecimal128 && s.scale() == t->scale() &&
          s.precision() <= t->precision()) {
        return same_layout();
      }
      break;
    case TypeId::kTimestamp:
      if (from == TypeId::kTimestamp) {
        return ScaleToInt64<int64_t>(a, t, UnitFactor(s.unit(), t->unit()));
      }
      if (from == TypeId::kDate32) {
        return ScaleToInt64<int32_t>(a, t, int64_t{86400} * UnitsPerSecond(t->unit()));
      }
      break;
    case TypeId::kTime64:
      if (from == TypeId::kTime32) {
        return ScaleToInt64<int32_t>(a, t, UnitFactor(s.unit(), t->unit()));
      }
      if (from == TypeId::kTime64) {
        return ScaleToInt64<int64_t>(a, t, UnitFactor(s.unit(), t->unit()));
      }
      break;
    case TypeId::kString:
      if (from == TypeId::kBinary) return same_layout();
      break;
    case TypeId::kBinary:
      if (from == TypeId::kString) return same_layout();
      break;
    case TypeId::kUuid:
      if (from == TypeId::kFixedBinary && s.byte_width() == 16) return same_layout();
      break;
    case TypeId::kFixedBinary:
      if ((from == TypeId::kUuid || from == TypeId::kFixedBinary) &&
          s.fixed_width() == t->fixed_width()) {
        return same_layout();
      }
      break;
    default: break;
  }
  return Status::InvalidArgument("cannot read column '{}' (field id {}) stored as {} as {}",
                                 target.name, target.id, s.ToString(), target.type->ToString());
}

// The value of a field that a file (or a nested struct of it) does not hold.
Result<col::Array> MissingField(const NestedField& f, const std::map<int32_t, Literal>* constants,
                                int64_t n) {
  if (constants) {
    if (auto it = constants->find(f.id); it != constants->end()) {
      return ConstantArray(it->second, *f.type, n);
    }
  }
  if (f.initial_default) return ConstantArray(*f.initial_default, *f.type, n);
  return col::Array::Nulls(ColumnarTypeOf(*f.type), n);
}

Result<col::Array> Conform(col::Array a, const NestedField& target);

// Resolves the children of a stored struct against the target struct's fields by id.
Result<std::vector<col::Array>> ConformChildren(const col::DataType& stored,
                                                std::vector<col::Array> children,
                                                const std::vector<NestedField>& targets,
                                                int64_t n) {
  std::vector<col::Array> out;
  out.reserve(targets.size());
  for (const NestedField& t : targets) {
    int found = -1;
    for (size_t i = 0; i < stored.children().size(); ++i) {
      if (stored.child(i).field_id == t.id) {
        found = static_cast<int>(i);
        break;
      }
    }
    if (found < 0) {
      FLOE_ASSIGN_OR_RETURN(col::Array m, MissingField(t, nullptr, n));
      out.push_back(std::move(m));
    } else {
      FLOE_ASSIGN_OR_RETURN(col::Array c,
                            Conform(std::move(children[static_cast<size_t>(found)]), t));
      out.push_back(std::move(c));
    }
  }
  return out;
}

Result<col::Array> Conform(col::Array a, const NestedField& target) {
  col::DataTypePtr t = ColumnarTypeOf(*target.type);
  if (a.type_id() == col::TypeId::kNull) return col::Array::Nulls(t, a.length());
  const Type& tt = *target.type;
  if (tt.is_primitive()) return ConformPrimitive(std::move(a), t, target);

  auto mismatch = [&]() {
    return Status::InvalidArgument("cannot read column '{}' (field id {}) stored as {} as {}",
                                   target.name, target.id, a.type()->ToString(), tt.ToString());
  };
  switch (tt.kind()) {
    case TypeKind::kStruct: {
      if (a.type_id() != col::TypeId::kStruct) return mismatch();
      col::DataTypePtr stored = a.type();
      col::Array::Parts p = std::move(a).Release();
      FLOE_ASSIGN_OR_RETURN(std::vector<col::Array> children,
                            ConformChildren(*stored, std::move(p.children), tt.fields(), p.length));
      return col::Array(t, p.length, p.null_count, std::move(p.validity), Buffer(), Buffer(),
                        std::move(children));
    }
    case TypeKind::kList: {
      if (a.type_id() != col::TypeId::kList) return mismatch();
      col::Array::Parts p = std::move(a).Release();
      if (p.children.size() != 1) return mismatch();
      FLOE_ASSIGN_OR_RETURN(col::Array element, Conform(std::move(p.children[0]), tt.element()));
      std::vector<col::Array> children;
      children.push_back(std::move(element));
      return col::Array(t, p.length, p.null_count, std::move(p.validity), Buffer(),
                        std::move(p.offsets), std::move(children));
    }
    case TypeKind::kMap: {
      if (a.type_id() != col::TypeId::kMap) return mismatch();
      col::Array::Parts p = std::move(a).Release();
      if (p.children.size() != 1) return mismatch();
      col::DataTypePtr entries_type = p.children[0].type();
      col::Array::Parts e = std::move(p.children[0]).Release();
      if (e.children.size() != 2) return mismatch();
      FLOE_ASSIGN_OR_RETURN(col::Array keys, Conform(std::move(e.children[0]), tt.key()));
      FLOE_ASSIGN_OR_RETURN(col::Array values, Conform(std::move(e.children[1]), tt.value()));
      std::vector<col::Array> kv;
      kv.push_back(std::move(keys));
      kv.push_back(std::move(values));
      col::Array entries(t->child(0).type, e.length, e.null_count, std::move(e.validity), Buffer(),
                         Buffer(), std::move(kv));
      std::vector<col::Array> children;
      children.push_back(std::move(entries));
      return col::Array(t, p.length, p.null_count, std::move(p.validity), Buffer(),
                        std::move(p.offsets), std::move(children));
    }
    default: return mismatch();
  }
}

void CollectLeafIds(const Type& type, std::vector<int32_t>* ids) {
  switch (type.kind()) {
    case TypeKind::kStruct:
      for (const NestedField& f : type.fields()) {
        if (f.type->is_primitive()) {
          ids->push_back(f.id);
        } else {
          CollectLeafIds(*f.type, ids);
        }
      }
      break;
    case TypeKind::kList:
      if (type.element().type->is_primitive()) {
        ids->push_back(type.element().id);
      } else {
        CollectLeafIds(*type.element().type, ids);
      }
      break;
    case TypeKind::kMap:
      for (const NestedField* f : {&type.key(), &type.value()}) {
        if (f->type->is_primitive()) {
          ids->push_back(f->id);
        } else {
          CollectLeafIds(*f->type, ids);
        }
      }
      break;
    default: break;
  }
}

}  // namespace

Result<col::Array> ConformArray(col::Array array, const NestedField& target) {
  return Conform(std::move(array), target);
}

// ---------------------------------------------------------------------------------------
// DataFileReader

Result<std::unique_ptr<DataFileReader>> DataFileReader::Open(
    io::FileIO& io, const std::string& path, std::shared_ptr<const Schema> read_schema,
    std::map<int32_t, Literal> constants, const NameMapping* mapping, DataReadOptions options) {
  std::unique_ptr<DataFileReader> r(new DataFileReader());
  r->path_ = path;
  r->read_schema_ = std::move(read_schema);
  r->out_schema_ = std::make_shared<col::Schema>(r->read_schema_->ToColumnar());
  r->constants_ = std::move(constants);
  r->options_ = options;
  FLOE_ASSIGN_OR_RETURN(std::unique_ptr<io::InputFile> file, io.OpenInput(path));
  FLOE_ASSIGN_OR_RETURN(r->parquet_, pq::FileReader::Open(std::move(file), options.parquet));

  std::vector<int32_t> ids;
  CollectLeafIds(*r->read_schema_->as_struct(), &ids);
  const pq::SchemaDescriptor* descriptor = &r->parquet_->schema();
  if (HasNoFieldIds(r->parquet_->metadata().schema)) {
    NameMapping fallback;
    if (mapping == nullptr) {
      fallback = NameMapping::FromSchema(*r->read_schema_);
      mapping = &fallback;
    }
    FLOE_ASSIGN_OR_RETURN(std::vector<pq::SchemaElement> mapped,
                          ApplyNameMapping(r->parquet_->metadata().schema, *mapping));
    Result<std::unique_ptr<pq::SchemaDescriptor>> d = pq::SchemaDescriptor::Make(std::move(mapped));
    if (!d.ok()) return Status::Corrupt("{}: {}", path, d.status().message());
    r->mapped_schema_ = std::move(*d);
    descriptor = r->mapped_schema_.get();
  }
  r->projection_ = descriptor->ProjectByIds(ids);
  return r;
}

Result<std::optional<PositionedBatch>> DataFileReader::Next() {
  while (true) {
    if (batches_) {
      FLOE_ASSIGN_OR_RETURN(std::optional<col::RecordBatch> b, batches_->Next());
      if (b) {
        int64_t first = row_group_start_ + rows_in_group_done_;
        rows_in_group_done_ += b->num_rows();
        Result<col::RecordBatch> conformed = Conform(std::move(*b));
        if (!conformed.ok()) {
          return Status(conformed.status().code(),
                        fmt::format("{}: {}", path_, conformed.status().message()));
        }
        return PositionedBatch{std::move(*conformed), first};
      }
      batches_.reset();
      row_group_start_ += parquet_->metadata().row_groups[static_cast<size_t>(row_group_)].num_rows;
    }
    if (row_group_ + 1 >= parquet_->num_row_groups()) return std::nullopt;
    ++row_group_;
    rows_in_group_done_ = 0;
    FLOE_ASSIGN_OR_RETURN(batches_,
                          parquet_->ReadBatches(projection_, options_.batch_rows, {row_group_}));
  }
}

Result<col::RecordBatch> DataFileReader::Conform(col::RecordBatch file_batch) const {
  const int64_t n = file_batch.num_rows();
  const col::Schema& stored = *file_batch.schema();
  std::vector<col::Array>& columns = file_batch.mutable_columns();
  std::vector<col::Array> out;
  out.reserve(read_schema_->fields().size());
  for (const NestedField& f : read_schema_->fields()) {
    int found = -1;
    for (size_t i = 0; i < stored.num_fields(); ++i) {
      if (stored.field(i).field_id == f.id) {
        found = static_cast<int>(i);
        break;
      }
    }
    // Identity-partition values win over stored columns only when the column is absent.
    if (found < 0) {
      FLOE_ASSIGN_OR_RETURN(col::Array m, MissingField(f, &constants_, n));
      out.push_back(std::move(m));
      continue;
    }
    FLOE_ASSIGN_OR_RETURN(col::Array c,
                          ConformArray(std::move(columns[static_cast<size_t>(found)]), f));
    out.push_back(std::move(c));
  }
  return col::RecordBatch(out_schema_, n, std::move(out));
}

}  // namespace floe::iceberg
