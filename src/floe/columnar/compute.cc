#include "floe/columnar/compute.h"

#include <cstring>
#include <utility>

#include "floe/columnar/bitmap.h"

namespace floe::columnar {

int64_t CountSelected(const uint8_t* mask, int64_t n) {
  int64_t count = 0;
  for (int64_t i = 0; i < n; ++i) count += mask[i] != 0;
  return count;
}

namespace {

// The validity of the selected rows; empty (all valid) when the input had no nulls.
Buffer FilterValidity(const Array& a, const uint8_t* mask, int64_t selected, int64_t* nulls) {
  *nulls = 0;
  if (a.null_count() == 0 || a.validity().empty()) return Buffer();
  Buffer out;
  out.ResizeZeroed(static_cast<size_t>(BytesForBits(selected)));
  const uint8_t* in = a.validity().data();
  int64_t j = 0;
  for (int64_t i = 0; i < a.length(); ++i) {
    if (!mask[i]) continue;
    if (GetBit(in, i)) {
      SetBit(out.data(), j);
    } else {
      ++*nulls;
    }
    ++j;
  }
  if (*nulls == 0) return Buffer();
  return out;
}

template <size_t W>
void CopyFixed(const uint8_t* in, const uint8_t* mask, int64_t n, uint8_t* out) {
  for (int64_t i = 0; i < n; ++i) {
    if (mask[i]) {
      std::memcpy(out, in + W * static_cast<size_t>(i), W);
      out += W;
    }
  }
}

// Selected ranges of a list's children: the child mask and the new offsets.
void ListSelection(const Array& a, const uint8_t* mask, std::vector<uint8_t>* child_mask,
                   int64_t* child_selected, Buffer* offsets) {
  const int32_t* o = a.list_offsets();
  int64_t child_len = a.children().empty() ? 0 : a.child(0).length();
  child_mask->assign(static_cast<size_t>(child_len), 0);
  offsets->AppendValue<int32_t>(0);
  int32_t total = 0;
  for (int64_t i = 0; i < a.length(); ++i) {
    if (!mask[i]) continue;
    for (int32_t k = o[i]; k < o[i + 1]; ++k) (*child_mask)[static_cast<size_t>(k)] = 1;
    total += o[i + 1] - o[i];
    offsets->AppendValue<int32_t>(total);
  }
  *child_selected = total;
}

}  // namespace

Array Filter(const Array& a, const uint8_t* mask, int64_t selected) {
  const DataTypePtr& type = a.type();
  if (type->id() == TypeId::kNull) return Array::Nulls(type, selected);
  int64_t nulls = 0;
  Buffer validity = FilterValidity(a, mask, selected, &nulls);
  const int64_t n = a.length();
  switch (type->id()) {
    case TypeId::kBool: {
      Buffer values;
      values.ResizeZeroed(static_cast<size_t>(BytesForBits(selected)));
      const uint8_t* in = a.values().data();
      int64_t j = 0;
      for (int64_t i = 0; i < n; ++i) {
        if (!mask[i]) continue;
        if (GetBit(in, i)) SetBit(values.data(), j);
        ++j;
      }
      return Array(type, selected, nulls, std::move(validity), std::move(values), Buffer(), {});
    }
    case TypeId::kString:
    case TypeId::kBinary: {
      const int64_t* o = a.binary_offsets();
      int64_t bytes = 0;
      for (int64_t i = 0; i < n; ++i) {
        if (mask[i]) bytes += o[i + 1] - o[i];
      }
      Buffer offsets(static_cast<size_t>(selected + 1) * sizeof(int64_t));
      Buffer data(static_cast<size_t>(bytes));
      int64_t* out_o = offsets.data_as<int64_t>();
      uint8_t* out_d = data.data();
      const uint8_t* in = a.values().data();
      int64_t pos = 0, j = 0;
      out_o[0] = 0;
      for (int64_t i = 0; i < n; ++i) {
        if (!mask[i]) continue;
        int64_t len = o[i + 1] - o[i];
        if (len > 0) std::memcpy(out_d + pos, in + o[i], static_cast<size_t>(len));
        pos += len;
        out_o[++j] = pos;
      }
      return Array(type, selected, nulls, std::move(validity), std::move(data), std::move(offsets),
                   {});
    }
    case TypeId::kStruct: {
      std::vector<Array> children;
      for (const Array& c : a.children()) children.push_back(Filter(c, mask, selected));
      return Array(type, selected, nulls, std::move(validity), Buffer(), Buffer(),
                   std::move(children));
    }
    case TypeId::kList:
    case TypeId::kMap: {
      std::vector<uint8_t> child_mask;
      int64_t child_selected = 0;
      Buffer offsets;
      ListSelection(a, mask, &child_mask, &child_selected, &offsets);
      std::vector<Array> children;
      children.push_back(Filter(a.child(0), child_mask.data(), child_selected));
      return Array(type, selected, nulls, std::move(validity), Buffer(), std::move(offsets),
                   std::move(children));
    }
    case TypeId::kUnion: {
      // Dense union: keep the selected slots' type ids, and per member the selected values.
      const int8_t* ids = a.union_type_ids();
      const int32_t* offs = a.union_offsets();
      std::vector<std::vector<uint8_t>> member_masks(a.children().size());
      for (size_t m = 0; m < a.children().size(); ++m) {
        member_masks[m].assign(static_cast<size_t>(a.child(m).length()), 0);
      }
      Buffer out_ids, out_offsets;
      std::vector<int32_t> next(a.children().size(), 0);
      for (int64_t i = 0; i < n; ++i) {
        if (!mask[i]) continue;
        auto m = static_cast<size_t>(ids[i]);
        member_masks[m][static_cast<size_t>(offs[i])] = 1;
        out_ids.AppendValue<int8_t>(ids[i]);
        out_offsets.AppendValue<int32_t>(next[m]++);
      }
      std::vector<Array> children;
      for (size_t m = 0; m < a.children().size(); ++m) {
        children.push_back(Filter(a.child(m), member_masks[m].data(), next[m]));
      }
      return Array(type, selected, 0, Buffer(), std::move(out_ids), std::move(out_offsets),
                   std::move(children));
    }
    default: break;
  }
  // Fixed-width values.
  const size_t w = static_cast<size_t>(type->fixed_width());
  Buffer values(w * static_cast<size_t>(selected));
  const uint8_t* in = a.values().data();
  switch (w) {
    case 1: CopyFixed<1>(in, mask, n, values.data()); break;
    case 2: CopyFixed<2>(in, mask, n, values.data()); break;
    case 4: CopyFixed<4>(in, mask, n, values.data()); break;
    case 8: CopyFixed<8>(in, mask, n, values.data()); break;
    case 16: CopyFixed<16>(in, mask, n, values.data()); break;
    default: {
      uint8_t* out = values.data();
      for (int64_t i = 0; i < n; ++i) {
        if (mask[i]) {
          std::memcpy(out, in + w * static_cast<size_t>(i), w);
          out += w;
        }
      }
    }
  }
  return Array(type, selected, nulls, std::move(validity), std::move(values), Buffer(), {});
}

RecordBatch Filter(const RecordBatch& batch, const std::vector<uint8_t>& mask) {
  int64_t selected = CountSelected(mask.data(), batch.num_rows());
  std::vector<Array> columns;
  columns.reserve(batch.num_columns());
  for (const Array& c : batch.columns()) columns.push_back(Filter(c, mask.data(), selected));
  return RecordBatch(batch.schema(), selected, std::move(columns));
}

}  // namespace floe::columnar
