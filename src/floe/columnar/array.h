// Array: one immutable column of `length` values of a DataType, laid out as in the Arrow
// columnar format:
//
//   validity  bitmap, 1 = valid; empty when null_count == 0 (kNull: no buffers at all)
//   values    fixed-width types: length * fixed_width() bytes; kBool: bitmap;
//             kString/kBinary: the concatenated bytes; kUnion: int8 type ids
//   offsets   kString/kBinary: int64[length + 1]; kList/kMap: int32[length + 1];
//             kUnion: int32[length] (index into the member child)
//   children  kStruct: one per field (each of `length`); kList: the elements;
//             kMap: one non-null struct<key, value>; kUnion: one per member
//
// Arrays never carry an offset: slices are copied (Slice()). RecordBatch is a set of
// equal-length columns with a Schema.
#pragma once

#include <cstdint>
#include <memory>
#include <string_view>
#include <vector>

#include "floe/base/buffer.h"
#include "floe/base/status.h"
#include "floe/columnar/bitmap.h"
#include "floe/columnar/type.h"

namespace floe::columnar {

class Array {
 public:
  Array() = default;
  Array(DataTypePtr type, int64_t length, int64_t null_count, Buffer validity, Buffer values,
        Buffer offsets, std::vector<Array> children)
      : type_(std::move(type)),
        length_(length),
        null_count_(null_count),
        validity_(std::move(validity)),
        values_(std::move(values)),
        offsets_(std::move(offsets)),
        children_(std::move(children)) {}

  Array(Array&&) noexcept = default;
  Array& operator=(Array&&) noexcept = default;
  Array(const Array&) = delete;
  Array& operator=(const Array&) = delete;

  // An array of `length` nulls of `type` (children built recursively).
  static Array Nulls(DataTypePtr type, int64_t length);

  const DataTypePtr& type() const { return type_; }
  TypeId type_id() const { return type_->id(); }
  int64_t length() const { return length_; }
  int64_t null_count() const { return null_count_; }

  bool IsValid(int64_t i) const {
    if (type_->id() == TypeId::kNull) return false;
    return validity_.empty() || GetBit(validity_.data(), i);
  }
  bool IsNull(int64_t i) const { return !IsValid(i); }

  const Buffer& validity() const { return validity_; }
  const Buffer& values() const { return values_; }
  const Buffer& offsets() const { return offsets_; }
  const std::vector<Array>& children() const { return children_; }
  const Array& child(size_t i) const { return children_[i]; }

  template <typename T>
  const T* data() const {
    return values_.data_as<T>();
  }
  template <typename T>
  T Value(int64_t i) const {
    return values_.data_as<T>()[i];
  }
  bool BoolValue(int64_t i) const { return GetBit(values_.data(), i); }

  // kString / kBinary
  const int64_t* binary_offsets() const { return offsets_.data_as<int64_t>(); }
  std::string_view BinaryValue(int64_t i) const {
    const int64_t* o = binary_offsets();
    return {reinterpret_cast<const char*>(values_.data()) + o[i],
            static_cast<size_t>(o[i + 1] - o[i])};
  }
  // kFixedBinary / kUuid / kDecimal128 / kFloat16 raw bytes of value i.
  std::string_view FixedValue(int64_t i) const {
    auto w = static_cast<size_t>(type_->fixed_width());
    return {reinterpret_cast<const char*>(values_.data()) + w * static_cast<size_t>(i), w};
  }
  // kList / kMap
  const int32_t* list_offsets() const { return offsets_.data_as<int32_t>(); }
  // kUnion
  const int8_t* union_type_ids() const { return values_.data_as<int8_t>(); }
  const int32_t* union_offsets() const { return offsets_.data_as<int32_t>(); }

  // Checks the layout invariants above (buffer sizes, offsets monotonic and in range,
  // child lengths, null_count). For tests and for arrays from outside floe.
  Status Validate() const;

  // Deep copy of rows [offset, offset + length).
  Array Slice(int64_t offset, int64_t length) const;

  // Value-level equality (same type, same valid values at every position).
  bool Equals(const Array& other) const;

  // The same buffers under another type of the same layout (string <-> binary, a wider
  // decimal, fixed_binary[16] <-> uuid). REQUIRES: the layouts match.
  Array WithType(DataTypePtr type) && {
    type_ = std::move(type);
    return std::move(*this);
  }
  // Everything the array holds, moved out, so that nested arrays can be rebuilt (a
  // struct's children retyped) without copying buffers.
  struct Parts {
    DataTypePtr type;
    int64_t length = 0;
    int64_t null_count = 0;
    Buffer validity;
    Buffer values;
    Buffer offsets;
    std::vector<Array> children;
  };
  Parts Release() && {
    return Parts{std::move(type_),    length_,
                 null_count_,         std::move(validity_),
                 std::move(values_),  std::move(offsets_),
                 std::move(children_)};
  }

 private:
  DataTypePtr type_;
  int64_t length_ = 0;
  int64_t null_count_ = 0;
  Buffer validity_;
  Buffer values_;
  Buffer offsets_;
  std::vector<Array> children_;
};

class RecordBatch {
 public:
  RecordBatch() = default;
  RecordBatch(SchemaPtr schema, int64_t num_rows, std::vector<Array> columns)
      : schema_(std::move(schema)), num_rows_(num_rows), columns_(std::move(columns)) {}
  RecordBatch(RecordBatch&&) noexcept = default;
  RecordBatch& operator=(RecordBatch&&) noexcept = default;

  const SchemaPtr& schema() const { return schema_; }
  int64_t num_rows() const { return num_rows_; }
  size_t num_columns() const { return columns_.size(); }
  const Array& column(size_t i) const { return columns_[i]; }
  const std::vector<Array>& columns() const { return columns_; }
  std::vector<Array>& mutable_columns() { return columns_; }

  Status Validate() const;
  RecordBatch Slice(int64_t offset, int64_t length) const;
  bool Equals(const RecordBatch& other) const;

 private:
  SchemaPtr schema_;
  int64_t num_rows_ = 0;
  std::vector<Array> columns_;
};

}  // namespace floe::columnar
