#include "floe/columnar/array.h"

#include <cstring>

#include "floe/base/macros.h"

namespace floe::columnar {

namespace {

Buffer ZeroedBits(int64_t length) {
  Buffer b;
  b.ResizeZeroed(static_cast<size_t>(BytesForBits(length)));
  return b;
}

Buffer SliceBits(const Buffer& bits, int64_t offset, int64_t length) {
  if (bits.empty()) return Buffer();
  Buffer out = ZeroedBits(length);
  CopyBits(bits.data(), offset, length, out.data(), 0);
  return out;
}

int64_t CountNulls(const Buffer& validity, int64_t offset, int64_t length) {
  if (validity.empty()) return 0;
  return length - CountSetBits(validity.data(), offset, length);
}

}  // namespace

Array Array::Nulls(DataTypePtr type, int64_t length) {
  if (type->id() == TypeId::kNull) {
    return Array(std::move(type), length, length, Buffer(), Buffer(), Buffer(), {});
  }
  Buffer validity = ZeroedBits(length);
  Buffer values;
  Buffer offsets;
  std::vector<Array> children;
  switch (type->id()) {
    case TypeId::kBool: values = ZeroedBits(length); break;
    case TypeId::kString:
    case TypeId::kBinary: offsets.ResizeZeroed(sizeof(int64_t) * (length + 1)); break;
    case TypeId::kList:
    case TypeId::kMap:
      offsets.ResizeZeroed(sizeof(int32_t) * (length + 1));
      children.push_back(Nulls(type->child(0).type, 0));
      break;
    case TypeId::kStruct:
      for (const auto& f : type->children()) children.push_back(Nulls(f.type, length));
      break;
    case TypeId::kUnion: {
      // Dense unions have no validity of their own: point every slot at a null of member 0.
      validity = Buffer();
      values.ResizeZeroed(static_cast<size_t>(length));
      offsets.Resize(sizeof(int32_t) * length);
      for (int64_t i = 0; i < length; ++i) offsets.data_as<int32_t>()[i] = static_cast<int32_t>(i);
      for (size_t m = 0; m < type->children().size(); ++m) {
        children.push_back(Nulls(type->child(m).type, m == 0 ? length : 0));
      }
      return Array(std::move(type), length, 0, std::move(validity), std::move(values),
                   std::move(offsets), std::move(children));
    }
    default: values.ResizeZeroed(static_cast<size_t>(type->fixed_width() * length)); break;
  }
  return Array(std::move(type), length, length, std::move(validity), std::move(values),
               std::move(offsets), std::move(children));
}

Status Array::Validate() const {
  if (!type_) return Status::Internal("array without a type");
  if (length_ < 0 || null_count_ < 0 || null_count_ > length_) {
    return Status::Internal("bad length {} / null_count {}", length_, null_count_);
  }
  const auto id = type_->id();
  if (id == TypeId::kNull) {
    if (null_count_ != length_) return Status::Internal("null array with valid values");
    return Status::OK();
  }
  if (!validity_.empty()) {
    if (validity_.size() < static_cast<size_t>(BytesForBits(length_))) {
      return Status::Internal("validity bitmap too short");
    }
    if (CountNulls(validity_, 0, length_) != null_count_) {
      return Status::Internal("null_count {} does not match the bitmap", null_count_);
    }
  } else if (null_count_ != 0 && id != TypeId::kUnion) {
    return Status::Internal("null_count {} without a validity bitmap", null_count_);
  }
  switch (id) {
    case TypeId::kBool:
      if (values_.size() < static_cast<size_t>(BytesForBits(length_))) {
        return Status::Internal("bool values too short");
      }
      return Status::OK();
    case TypeId::kString:
    case TypeId::kBinary: {
      if (offsets_.size() < sizeof(int64_t) * (length_ + 1)) {
        return Status::Internal("offsets too short");
      }
      const int64_t* o = binary_offsets();
      if (o[0] != 0) return Status::Internal("first offset {} is not 0", o[0]);
      for (int64_t i = 0; i < length_; ++i) {
        if (o[i + 1] < o[i]) return Status::Internal("offsets decrease at {}", i);
      }
      if (static_cast<size_t>(o[length_]) > values_.size()) {
        return Status::Internal("offsets point past the data");
      }
      return Status::OK();
    }
    case TypeId::kStruct:
      if (children_.size() != type_->children().size()) {
        return Status::Internal("struct has {} children, type has {}", children_.size(),
                                type_->children().size());
      }
      for (const auto& c : children_) {
        if (c.length() != length_) return Status::Internal("struct child length differs");
        FLOE_RETURN_IF_ERROR(c.Validate());
      }
      return Status::OK();
    case TypeId::kList:
    case TypeId::kMap: {
      if (children_.size() != 1) return Status::Internal("list/map needs one child");
      if (offsets_.size() < sizeof(int32_t) * (length_ + 1)) {
        return Status::Internal("offsets too short");
      }
      const int32_t* o = list_offsets();
      if (o[0] != 0) return Status::Internal("first offset is not 0");
      for (int64_t i = 0; i < length_; ++i) {
        if (o[i + 1] < o[i]) return Status::Internal("offsets decrease at {}", i);
      }
      if (o[length_] != children_[0].length()) {
        return Status::Internal("last offset {} != child length {}", o[length_],
                                children_[0].length());
      }
      if (id == TypeId::kMap && children_[0].null_count() != 0) {
        return Status::Internal("map entries must not be null");
      }
      return children_[0].Validate();
    }
    case TypeId::kUnion: {
      size_t members = type_->children().size();
      if (children_.size() != members) return Status::Internal("union child count");
      if (values_.size() < static_cast<size_t>(length_) ||
          offsets_.size() < sizeof(int32_t) * length_) {
        return Status::Internal("union buffers too short");
      }
      for (int64_t i = 0; i < length_; ++i) {
        int8_t t = union_type_ids()[i];
        if (t < 0 || static_cast<size_t>(t) >= members) return Status::Internal("bad type id");
        int32_t off = union_offsets()[i];
        if (off < 0 || off >= children_[t].length()) return Status::Internal("bad offset");
      }
      for (const auto& c : children_) FLOE_RETURN_IF_ERROR(c.Validate());
      return Status::OK();
    }
    default: {
      size_t need = static_cast<size_t>(type_->fixed_width()) * static_cast<size_t>(length_);
      if (values_.size() < need) return Status::Internal("values buffer too short");
      return Status::OK();
    }
  }
}

Array Array::Slice(int64_t offset, int64_t length) const {
  FLOE_CHECK(offset >= 0 && length >= 0 && offset + length <= length_);
  const auto id = type_->id();
  if (id == TypeId::kNull) return Nulls(type_, length);
  Buffer validity = SliceBits(validity_, offset, length);
  int64_t nulls = CountNulls(validity, 0, length);
  if (nulls == 0) validity = Buffer();
  Buffer values;
  Buffer offsets;
  std::vector<Array> children;
  switch (id) {
    case TypeId::kBool: values = SliceBits(values_, offset, length); break;
    case TypeId::kString:
    case TypeId::kBinary: {
      const int64_t* o = binary_offsets();
      int64_t base = o[offset];
      offsets.Resize(sizeof(int64_t) * (length + 1));
      auto* dst = offsets.data_as<int64_t>();
      for (int64_t i = 0; i <= length; ++i) dst[i] = o[offset + i] - base;
      values.Append(values_.data() + base, static_cast<size_t>(o[offset + length] - base));
      break;
    }
    case TypeId::kList:
    case TypeId::kMap: {
      const int32_t* o = list_offsets();
      int32_t base = o[offset];
      offsets.Resize(sizeof(int32_t) * (length + 1));
      auto* dst = offsets.data_as<int32_t>();
      for (int64_t i = 0; i <= length; ++i) dst[i] = o[offset + i] - base;
      children.push_back(children_[0].Slice(base, o[offset + length] - base));
      break;
    }
    case TypeId::kStruct:
      for (const auto& c : children_) children.push_back(c.Slice(offset, length));
      break;
    case TypeId::kUnion: {
      // Keep the members whole; only the selectors are sliced.
      values.Append(values_.data() + offset, static_cast<size_t>(length));
      offsets.Append(offsets_.data() + sizeof(int32_t) * offset, sizeof(int32_t) * length);
      for (const auto& c : children_) children.push_back(c.Slice(0, c.length()));
      break;
    }
    default: {
      auto w = static_cast<size_t>(type_->fixed_width());
      values.Append(values_.data() + w * static_cast<size_t>(offset),
                    w * static_cast<size_t>(length));
      break;
    }
  }
  return Array(type_, length, nulls, std::move(validity), std::move(values), std::move(offsets),
               std::move(children));
}

namespace {

bool ValueEquals(const Array& a, int64_t i, const Array& b, int64_t j) {
  bool va = a.IsValid(i);
  bool vb = b.IsValid(j);
  const auto id = a.type_id();
  if (id == TypeId::kUnion) {
    int8_t ta = a.union_type_ids()[i];
    if (ta != b.union_type_ids()[j]) return false;
    return ValueEquals(a.child(ta), a.union_offsets()[i], b.child(ta), b.union_offsets()[j]);
  }
  if (va != vb) return false;
  if (!va) return true;
  switch (id) {
    case TypeId::kBool: return a.BoolValue(i) == b.BoolValue(j);
    case TypeId::kString:
    case TypeId::kBinary: return a.BinaryValue(i) == b.BinaryValue(j);
    case TypeId::kStruct:
      for (size_t c = 0; c < a.children().size(); ++c) {
        if (!ValueEquals(a.child(c), i, b.child(c), j)) return false;
      }
      return true;
    case TypeId::kList:
    case TypeId::kMap: {
      int32_t a0 = a.list_offsets()[i], a1 = a.list_offsets()[i + 1];
      int32_t b0 = b.list_offsets()[j], b1 = b.list_offsets()[j + 1];
      if (a1 - a0 != b1 - b0) return false;
      for (int32_t k = 0; k < a1 - a0; ++k) {
        if (!ValueEquals(a.child(0), a0 + k, b.child(0), b0 + k)) return false;
      }
      return true;
    }
    default: return a.FixedValue(i) == b.FixedValue(j);
  }
}

}  // namespace

bool Array::Equals(const Array& other) const {
  if (!type_->Equals(*other.type_) || length_ != other.length_) return false;
  if (type_->id() == TypeId::kNull) return true;
  for (int64_t i = 0; i < length_; ++i) {
    if (!ValueEquals(*this, i, other, i)) return false;
  }
  return true;
}

Status RecordBatch::Validate() const {
  if (!schema_) return Status::Internal("record batch without schema");
  if (columns_.size() != schema_->num_fields()) {
    return Status::Internal("batch has {} columns, schema has {}", columns_.size(),
                            schema_->num_fields());
  }
  for (size_t i = 0; i < columns_.size(); ++i) {
    const auto& c = columns_[i];
    if (c.length() != num_rows_) {
      return Status::Internal("column {} has {} rows, batch has {}", i, c.length(), num_rows_);
    }
    if (!c.type()->Equals(*schema_->field(i).type)) {
      return Status::Internal("column {} type {} differs from schema type {}", i,
                              c.type()->ToString(), schema_->field(i).type->ToString());
    }
    FLOE_RETURN_IF_ERROR(c.Validate());
  }
  return Status::OK();
}

RecordBatch RecordBatch::Slice(int64_t offset, int64_t length) const {
  std::vector<Array> cols;
  cols.reserve(columns_.size());
  for (const auto& c : columns_) cols.push_back(c.Slice(offset, length));
  return RecordBatch(schema_, length, std::move(cols));
}

bool RecordBatch::Equals(const RecordBatch& other) const {
  if (num_rows_ != other.num_rows_ || columns_.size() != other.columns_.size()) return false;
  for (size_t i = 0; i < columns_.size(); ++i) {
    if (!columns_[i].Equals(other.columns_[i])) return false;
  }
  return true;
}

}  // namespace floe::columnar
