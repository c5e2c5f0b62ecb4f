#include "floe/columnar/gather.h"

#include <cstring>

namespace floe::columnar {

Result<Array> Gather(const std::vector<const Array*>& sources, const std::vector<RowRef>& picks) {
  if (sources.empty()) return Status::InvalidArgument("gather from no arrays");
  const DataTypePtr& type = sources[0]->type();
  for (const Array* a : sources) {
    if (a->type_id() != type->id()) {
      return Status::InvalidArgument("gather from arrays of different types");
    }
  }
  const auto n = static_cast<int64_t>(picks.size());
  if (type->id() == TypeId::kNull) return Array::Nulls(type, n);

  int64_t nulls = 0;
  for (const RowRef& p : picks) nulls += sources[p.source]->IsNull(p.row) ? 1 : 0;
  Buffer validity;
  if (nulls > 0) {
    validity.ResizeZeroed(static_cast<size_t>(BytesForBits(n)));
    for (int64_t i = 0; i < n; ++i) {
      const RowRef& p = picks[static_cast<size_t>(i)];
      if (sources[p.source]->IsValid(p.row)) SetBit(validity.data(), i);
    }
  }
  Buffer values;
  Buffer offsets;
  std::vector<Array> children;
  switch (type->id()) {
    case TypeId::kBool: {
      values.ResizeZeroed(static_cast<size_t>(BytesForBits(n)));
      for (int64_t i = 0; i < n; ++i) {
        const RowRef& p = picks[static_cast<size_t>(i)];
        if (sources[p.source]->BoolValue(p.row)) SetBit(values.data(), i);
      }
      break;
    }
    case TypeId::kString:
    case TypeId::kBinary: {
      offsets.Resize(static_cast<size_t>(n + 1) * sizeof(int64_t));
      int64_t* o = offsets.data_as<int64_t>();
      o[0] = 0;
      size_t total = 0;
      for (const RowRef& p : picks) total += sources[p.source]->BinaryValue(p.row).size();
      values.Resize(total);
      size_t at = 0;
      for (int64_t i = 0; i < n; ++i) {
        const RowRef& p = picks[static_cast<size_t>(i)];
        std::string_view v = sources[p.source]->BinaryValue(p.row);
        if (!v.empty()) std::memcpy(values.data() + at, v.data(), v.size());
        at += v.size();
        o[i + 1] = static_cast<int64_t>(at);
      }
      break;
    }
    case TypeId::kStruct: {
      for (size_t c = 0; c < type->children().size(); ++c) {
        std::vector<const Array*> child_sources;
        for (const Array* a : sources) child_sources.push_back(&a->child(c));
        FLOE_ASSIGN_OR_RETURN(Array child, Gather(child_sources, picks));
        children.push_back(std::move(child));
      }
      break;
    }
    case TypeId::kList:
    case TypeId::kMap: {
      offsets.Resize(static_cast<size_t>(n + 1) * sizeof(int32_t));
      int32_t* o = offsets.data_as<int32_t>();
      o[0] = 0;
      std::vector<RowRef> child_picks;
      for (int64_t i = 0; i < n; ++i) {
        const RowRef& p = picks[static_cast<size_t>(i)];
        const int32_t* so = sources[p.source]->list_offsets();
        for (int32_t j = so[p.row]; j < so[p.row + 1]; ++j) {
          child_picks.push_back({p.source, static_cast<uint32_t>(j)});
        }
        if (child_picks.size() > static_cast<size_t>(INT32_MAX)) {
          return Status::InvalidArgument("gathered list has over 2^31 elements");
        }
        o[i + 1] = static_cast<int32_t>(child_picks.size());
      }
      std::vector<const Array*> child_sources;
      for (const Array* a : sources) child_sources.push_back(&a->child(0));
      FLOE_ASSIGN_OR_RETURN(Array child, Gather(child_sources, child_picks));
      children.push_back(std::move(child));
      break;
    }
    case TypeId::kUnion: return Status::Unimplemented("gather of union arrays");
    default: {
      const auto w = static_cast<size_t>(type->fixed_width());
      values.Resize(static_cast<size_t>(n) * w);
      uint8_t* out = values.data();
      for (const RowRef& p : picks) {
        std::memcpy(out, sources[p.source]->values().data() + w * p.row, w);
        out += w;
      }
    }
  }
  return Array(type, n, nulls, std::move(validity), std::move(values), std::move(offsets),
               std::move(children));
}

Result<RecordBatch> Gather(const std::vector<const RecordBatch*>& sources,
                           const std::vector<RowRef>& picks) {
  if (sources.empty()) return Status::InvalidArgument("gather from no batches");
  std::vector<Array> columns;
  for (size_t c = 0; c < sources[0]->num_columns(); ++c) {
    std::vector<const Array*> column_sources;
    for (const RecordBatch* b : sources) column_sources.push_back(&b->column(c));
    FLOE_ASSIGN_OR_RETURN(Array a, Gather(column_sources, picks));
    columns.push_back(std::move(a));
  }
  return RecordBatch(sources[0]->schema(), static_cast<int64_t>(picks.size()), std::move(columns));
}

}  // namespace floe::columnar
