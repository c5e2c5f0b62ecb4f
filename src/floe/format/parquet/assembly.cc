#include "floe/format/parquet/assembly.h"

#include <cstring>

#include "floe/base/macros.h"
#include "floe/columnar/bitmap.h"

namespace floe::format::parquet {

using columnar::Array;
using columnar::TypeId;

namespace {

// Slots of a node computed from its first leaf: count, validity and (lists) offsets.
struct Slots {
  int64_t count = 0;
  int64_t null_count = 0;
  Buffer validity;  // empty when null_count == 0
  Buffer offsets;   // int32_t[count + 1] for lists and maps
};

// Walks the entries of `leaf` and collects the slots of `node`. The common top-level,
// non-repeated case (every entry is a slot) takes the first branch.
Slots ComputeSlots(const AssemblyNode& node, const LeafData& leaf, bool want_offsets) {
  Slots s;
  const int64_t n = leaf.num_entries;
  const int16_t* def = leaf.def_levels.empty() ? nullptr : leaf.defs();
  const int16_t* rep = leaf.rep_levels.empty() ? nullptr : leaf.reps();
  const bool every_entry_is_slot = rep == nullptr && node.slot_def == 0;
  s.validity.ResizeZeroed(static_cast<size_t>(columnar::BytesForBits(n)));
  uint8_t* bits = s.validity.data();
  if (every_entry_is_slot && !want_offsets) {
    // Flat column: one slot per entry; build the bitmap a byte at a time.
    s.count = n;
    if (def == nullptr || node.valid_def == 0) {
      s.validity = Buffer();
      return s;
    }
    const int16_t valid = node.valid_def;
    int64_t e = 0;
    for (; e + 8 <= n; e += 8) {
      unsigned byte = 0;
      for (int k = 0; k < 8; ++k) byte |= static_cast<unsigned>(def[e + k] >= valid) << k;
      bits[e >> 3] = static_cast<uint8_t>(byte);
    }
    for (; e < n; ++e) {
      if (def[e] >= valid) columnar::SetBit(bits, e);
    }
    s.null_count = n - columnar::CountSetBits(bits, 0, n);
    if (s.null_count == 0) s.validity = Buffer();
    return s;
  }
  int32_t* offsets = nullptr;
  if (want_offsets) {
    s.offsets.Resize(sizeof(int32_t) * static_cast<size_t>(n + 1));
    offsets = s.offsets.data_as<int32_t>();
  }
  int32_t elements = 0;
  int64_t slot = 0;
  for (int64_t e = 0; e < n; ++e) {
    const int16_t d = def ? def[e] : 0;
    const int16_t r = rep ? rep[e] : 0;
    if (every_entry_is_slot || (r <= node.slot_rep && d >= node.slot_def)) {
      if (offsets) offsets[slot] = elements;
      if (d >= node.valid_def) {
        columnar::SetBit(bits, slot);
      } else {
        ++s.null_count;
      }
      ++slot;
    }
    if (offsets && r <= node.elem_rep && d >= node.elem_def) ++elements;
  }
  s.count = slot;
  if (offsets) offsets[slot] = elements;
  if (s.null_count == 0) s.validity = Buffer();
  return s;
}

template <typename T>
void SpreadTyped(const uint8_t* src, const uint8_t* bits, int64_t slots, uint8_t* dst) {
  auto* out = reinterpret_cast<T*>(dst);
  const auto* in = reinterpret_cast<const T*>(src);
  size_t k = 0;
  for (int64_t i = 0; i < slots; ++i) {
    // Branch-free: copy the next dense value and advance only for valid slots.
    const bool valid = columnar::GetBit(bits, i);
    T v;
    std::memcpy(&v, in + k, sizeof(T));
    out[i] = valid ? v : T{};
    k += valid;
  }
}

// Spreads dense fixed-width values over the valid slots; null slots are zero.
Buffer SpreadFixed(const Buffer& dense, const Buffer& validity, int64_t slots, size_t width) {
  Buffer out;
  const uint8_t* src = dense.data();
  const uint8_t* bits = validity.data();
  // The branch-free loops read one value past the last dense one: give them room.
  Buffer padded;
  if (dense.capacity() < dense.size() + width) {
    padded.Reserve(dense.size() + width);
    padded.Append(dense.data(), dense.size());
    src = padded.data();
  }
  switch (width) {
    case 1:
      out.Resize(static_cast<size_t>(slots));
      SpreadTyped<uint8_t>(src, bits, slots, out.data());
      return out;
    case 2:
      out.Resize(2 * static_cast<size_t>(slots));
      SpreadTyped<uint16_t>(src, bits, slots, out.data());
      return out;
    case 4:
      out.Resize(4 * static_cast<size_t>(slots));
      SpreadTyped<uint32_t>(src, bits, slots, out.data());
      return out;
    case 8:
      out.Resize(8 * static_cast<size_t>(slots));
      SpreadTyped<uint64_t>(src, bits, slots, out.data());
      return out;
    default: break;
  }
  out.ResizeZeroed(width * static_cast<size_t>(slots));
  uint8_t* dst = out.data();
  size_t k = 0;
  for (int64_t i = 0; i < slots; ++i) {
    if (columnar::GetBit(bits, i)) {
      std::memcpy(dst + width * static_cast<size_t>(i), src + width * k, width);
      ++k;
    }
  }
  return out;
}

Buffer SpreadBits(const Buffer& dense, const Buffer& validity, int64_t slots) {
  Buffer out;
  out.ResizeZeroed(static_cast<size_t>(columnar::BytesForBits(slots)));
  int64_t k = 0;
  for (int64_t i = 0; i < slots; ++i) {
    if (columnar::GetBit(validity.data(), i)) {
      if (columnar::GetBit(dense.data(), k)) columnar::SetBit(out.data(), i);
      ++k;
    }
  }
  return out;
}

Buffer SpreadOffsets(const Buffer& dense_offsets, const Buffer& validity, int64_t slots) {
  Buffer out;
  out.Resize(sizeof(int64_t) * static_cast<size_t>(slots + 1));
  const auto* src = dense_offsets.data_as<int64_t>();
  auto* dst = out.data_as<int64_t>();
  int64_t k = 0;
  dst[0] = 0;
  for (int64_t i = 0; i < slots; ++i) {
    if (columnar::GetBit(validity.data(), i)) ++k;
    dst[i + 1] = src[k];
  }
  return out;
}

Result<Array> AssembleLeaf(const AssemblyNode& node, LeafData& leaf) {
  const auto& type = node.type;
  Slots s = ComputeSlots(node, leaf, /*want_offsets=*/false);
  if (s.count - s.null_count != leaf.num_values) {
    return Status::Corrupt("column has {} values but its levels define {}", leaf.num_values,
                           s.count - s.null_count);
  }
  if (type->id() == TypeId::kNull) return Array::Nulls(type, s.count);
  Buffer values;
  Buffer offsets;
  if (s.null_count == 0) {
    values = std::move(leaf.values);
    offsets = std::move(leaf.offsets);
  } else if (type->id() == TypeId::kBool) {
    values = SpreadBits(leaf.values, s.validity, s.count);
  } else if (type->is_binary_like()) {
    offsets = SpreadOffsets(leaf.offsets, s.validity, s.count);
    values = std::move(leaf.values);
  } else {
    values =
        SpreadFixed(leaf.values, s.validity, s.count, static_cast<size_t>(type->fixed_width()));
  }
  if (type->is_binary_like() && offsets.empty()) offsets.ResizeZeroed(sizeof(int64_t));
  return Array(type, s.count, s.null_count, std::move(s.validity), std::move(values),
               std::move(offsets), {});
}

Result<Array> Assemble(const AssemblyNode& node, std::vector<LeafData>& leaves) {
  if (node.kind == AssemblyNode::Kind::kLeaf) return AssembleLeaf(node, leaves[node.leaf]);
  const LeafData& first = leaves[node.first_leaf];
  const bool is_list = node.kind != AssemblyNode::Kind::kStruct;
  Slots s = ComputeSlots(node, first, is_list);
  std::vector<Array> children;
  if (node.kind == AssemblyNode::Kind::kStruct) {
    for (const auto& c : node.children) {
      FLOE_ASSIGN_OR_RETURN(Array child, Assemble(c, leaves));
      if (child.length() != s.count) {
        return Status::Corrupt("nested columns disagree on the number of values ({} vs {})",
                               child.length(), s.count);
      }
      children.push_back(std::move(child));
    }
  } else if (node.kind == AssemblyNode::Kind::kList) {
    FLOE_ASSIGN_OR_RETURN(Array element, Assemble(node.children[0], leaves));
    children.push_back(std::move(element));
  } else {
    std::vector<Array> kv;
    for (const auto& c : node.children) {
      FLOE_ASSIGN_OR_RETURN(Array a, Assemble(c, leaves));
      kv.push_back(std::move(a));
    }
    int64_t entries = kv[0].length();
    if (kv.size() > 1 && kv[1].length() != entries) {
      return Status::Corrupt("map keys and values disagree ({} vs {})", entries, kv[1].length());
    }
    if (kv[0].null_count() != 0) return Status::Corrupt("map has a null key");
    children.emplace_back(node.type->child(0).type, entries, 0, Buffer(), Buffer(), Buffer(),
                          std::move(kv));
  }
  if (is_list) {
    const int32_t last = s.offsets.data_as<int32_t>()[s.count];
    if (last != children[0].length()) {
      return Status::Corrupt("list levels count {} elements, the element column has {}", last,
                             children[0].length());
    }
  }
  return Array(node.type, s.count, s.null_count, std::move(s.validity), Buffer(),
               std::move(s.offsets), std::move(children));
}

// Shredding: one walker per leaf path. Each call handles one slot of `node` at index i of
// `array` and appends the entries it produces.
class Shredder {
 public:
  Shredder(const AssemblyNode& leaf_node, ShreddedLeaf* out) : leaf_(leaf_node), out_(out) {}

  void Emit(int16_t rep, int16_t def) {
    if (leaf_.max_def > 0) out_->def_levels.AppendValue<int16_t>(def);
    if (leaf_.max_rep > 0) out_->rep_levels.AppendValue<int16_t>(rep);
    ++out_->num_entries;
  }

  // `path` holds the nodes from the top-level field down to the leaf.
  void Walk(const std::vector<const AssemblyNode*>& path, const std::vector<int>& child_index,
            size_t depth, const Array& array, int64_t i, int16_t rep) {
    const AssemblyNode& node = *path[depth];
    if (!array.IsValid(i)) {
      if (!node.nullable) {
        required_null_ = true;
        return;
      }
      // Null here: the entry's definition level is the one just above this node.
      Emit(rep, static_cast<int16_t>(node.valid_def - 1));
      return;
    }
    switch (node.kind) {
      case AssemblyNode::Kind::kLeaf:
        Emit(rep, node.max_def);
        out_->value_indices.push_back(i);
        ++out_->num_values;
        return;
      case AssemblyNode::Kind::kStruct:
        Walk(path, child_index, depth + 1, array.child(child_index[depth]), i, rep);
        return;
      case AssemblyNode::Kind::kList:
      case AssemblyNode::Kind::kMap: {
        const int32_t begin = array.list_offsets()[i];
        const int32_t end = array.list_offsets()[i + 1];
        if (begin == end) {
          // Defined but empty: one entry at the list's own level.
          Emit(rep, static_cast<int16_t>(node.elem_def - 1));
          return;
        }
        const Array* child = &array.child(0);
        if (node.kind == AssemblyNode::Kind::kMap) child = &child->child(child_index[depth]);
        for (int32_t k = begin; k < end; ++k) {
          Walk(path, child_index, depth + 1, *child, k, k == begin ? rep : node.elem_rep);
        }
        return;
      }
    }
  }

 private:
  const AssemblyNode& leaf_;
  ShreddedLeaf* out_;

 public:
  bool required_null_ = false;
};

void CollectLeafPaths(
    const AssemblyNode& node, std::vector<const AssemblyNode*>& path, std::vector<int>& child_index,
    std::vector<std::pair<std::vector<const AssemblyNode*>, std::vector<int>>>* out) {
  path.push_back(&node);
  if (node.kind == AssemblyNode::Kind::kLeaf) {
    out->emplace_back(path, child_index);
  } else {
    for (size_t c = 0; c < node.children.size(); ++c) {
      child_index.push_back(static_cast<int>(c));
      CollectLeafPaths(node.children[c], path, child_index, out);
      child_index.pop_back();
    }
  }
  path.pop_back();
}

}  // namespace

Result<Array> AssembleArray(const AssemblyNode& node, std::vector<LeafData>& leaves) {
  return Assemble(node, leaves);
}

Status ShredArray(const AssemblyNode& node, const Array& array, int64_t offset, int64_t length,
                  std::vector<ShreddedLeaf>* out) {
  if (node.kind == AssemblyNode::Kind::kLeaf && node.max_rep == 0) {
    // Flat column: levels straight from the validity bitmap; values are the valid slots.
    ShreddedLeaf leaf;
    leaf.array = &array;
    leaf.slot_offset = offset;
    leaf.num_entries = length;
    const bool all_null = array.type_id() == columnar::TypeId::kNull;  // no bitmap, all null
    const uint8_t* bits = array.validity().empty() ? nullptr : array.validity().data();
    const int64_t nulls = all_null ? length
                          : bits   ? length - columnar::CountSetBits(bits, offset, length)
                                   : 0;
    if (!node.nullable && nulls > 0) {
      return Status::InvalidArgument("a required column holds {} nulls", nulls);
    }
    leaf.num_values = length - nulls;
    if (node.max_def > 0) {
      leaf.def_levels.Resize(sizeof(int16_t) * static_cast<size_t>(length));
      auto* d = leaf.def_levels.data_as<int16_t>();
      const int16_t null_def = static_cast<int16_t>(node.max_def - 1);
      if (nulls == 0) {
        for (int64_t i = 0; i < length; ++i) d[i] = node.max_def;
      } else if (all_null) {
        for (int64_t i = 0; i < length; ++i) d[i] = null_def;
      } else {
        for (int64_t i = 0; i < length; ++i) {
          d[i] = columnar::GetBit(bits, offset + i) ? node.max_def : null_def;
        }
      }
    }
    out->push_back(std::move(leaf));
    return Status::OK();
  }
  std::vector<const AssemblyNode*> path;
  std::vector<int> child_index;
  std::vector<std::pair<std::vector<const AssemblyNode*>, std::vector<int>>> leaf_paths;
  CollectLeafPaths(node, path, child_index, &leaf_paths);
  for (auto& [nodes, indices] : leaf_paths) {
    ShreddedLeaf leaf;
    leaf.all_valid = false;
    // Find the leaf's own array by following the child indices.
    const Array* a = &array;
    for (size_t d = 0; d + 1 < nodes.size(); ++d) {
      if (nodes[d]->kind == AssemblyNode::Kind::kStruct) {
        a = &a->child(static_cast<size_t>(indices[d]));
      } else if (nodes[d]->kind == AssemblyNode::Kind::kList) {
        a = &a->child(0);
      } else {
        a = &a->child(0).child(static_cast<size_t>(indices[d]));
      }
    }
    leaf.array = a;
    Shredder shredder(*nodes.back(), &leaf);
    for (int64_t i = offset; i < offset + length; ++i) {
      shredder.Walk(nodes, indices, 0, array, i, 0);
    }
    if (shredder.required_null_) {
      return Status::InvalidArgument("a required nested field holds a null");
    }
    out->push_back(std::move(leaf));
  }
  return Status::OK();
}

}  // namespace floe::format::parquet
