// Row-at-a-time builders for Arrays: for decoders whose input is row-oriented (Avro,
// JSON, Kafka records) and for tests. Columnar decoders (Parquet) fill Buffers directly.
//
// Typed appends are non-virtual on the concrete builders; only AppendNull and Finish are
// virtual. Nested builders own their children: append the parent slot first
// (StructBuilder::Append, ListBuilder::Append), then the children's values.
#pragma once

#include <cstdint>
#include <memory>
#include <string_view>
#include <vector>

#include "floe/base/buffer.h"
#include "floe/columnar/array.h"

namespace floe::columnar {

class ArrayBuilder {
 public:
  explicit ArrayBuilder(DataTypePtr type) : type_(std::move(type)) {}
  virtual ~ArrayBuilder() = default;
  ArrayBuilder(const ArrayBuilder&) = delete;
  ArrayBuilder& operator=(const ArrayBuilder&) = delete;

  const DataTypePtr& type() const { return type_; }
  int64_t length() const { return length_; }
  int64_t null_count() const { return null_count_; }

  virtual void AppendNull() = 0;
  // Returns the built array and resets the builder to empty.
  virtual Array Finish() = 0;

 protected:
  void AppendValidity(bool valid) {
    if ((length_ & 7) == 0) validity_.PushBack(0);
    if (valid) {
      SetBit(validity_.data(), length_);
    } else {
      ++null_count_;
    }
    ++length_;
  }
  // Moves out the validity bitmap (empty if no nulls) and resets the counters.
  Buffer TakeValidity(int64_t* length, int64_t* null_count);

  DataTypePtr type_;
  int64_t length_ = 0;
  int64_t null_count_ = 0;
  Buffer validity_;
};

class NullBuilder final : public ArrayBuilder {
 public:
  NullBuilder() : ArrayBuilder(Null()) {}
  void AppendNull() override { ++length_, ++null_count_; }
  Array Finish() override;
};

class BoolBuilder final : public ArrayBuilder {
 public:
  BoolBuilder() : ArrayBuilder(Bool()) {}
  void Append(bool v) {
    if ((length_ & 7) == 0) values_.PushBack(0);
    if (v) SetBit(values_.data(), length_);
    AppendValidity(true);
  }
  void AppendNull() override {
    if ((length_ & 7) == 0) values_.PushBack(0);
    AppendValidity(false);
  }
  Array Finish() override;

 private:
  Buffer values_;
};

// For every fixed-width type: T is the storage type (int32_t for Date32, __int128 for
// Decimal128, uint16_t for Float16, ...).
template <typename T>
class FixedWidthBuilder final : public ArrayBuilder {
 public:
  explicit FixedWidthBuilder(DataTypePtr type) : ArrayBuilder(std::move(type)) {}
  void Append(T v) {
    values_.AppendValue<T>(v);
    AppendValidity(true);
  }
  void AppendNull() override {
    values_.AppendValue<T>(T{});
    AppendValidity(false);
  }
  Array Finish() override {
    int64_t length, nulls;
    Buffer validity = TakeValidity(&length, &nulls);
    return Array(type_, length, nulls, std::move(validity), std::move(values_), Buffer(), {});
  }

 private:
  Buffer values_;
};

// kFixedBinary, kUuid (and any fixed-width type given as raw bytes).
class FixedBinaryBuilder final : public ArrayBuilder {
 public:
  explicit FixedBinaryBuilder(DataTypePtr type)
      : ArrayBuilder(std::move(type)), width_(static_cast<size_t>(type_->fixed_width())) {}
  // REQUIRES: v.size() == byte width.
  void Append(std::string_view v) {
    values_.Append(v.data(), width_);
    AppendValidity(true);
  }
  void AppendNull() override {
    std::memset(values_.AppendUninitialized(width_), 0, width_);
    AppendValidity(false);
  }
  Array Finish() override;

 private:
  size_t width_;
  Buffer values_;
};

// kString, kBinary.
class BinaryBuilder final : public ArrayBuilder {
 public:
  explicit BinaryBuilder(DataTypePtr type) : ArrayBuilder(std::move(type)) {
    offsets_.AppendValue<int64_t>(0);
  }
  void Append(std::string_view v) {
    data_.Append(v);
    offsets_.AppendValue<int64_t>(static_cast<int64_t>(data_.size()));
    AppendValidity(true);
  }
  void AppendNull() override {
    offsets_.AppendValue<int64_t>(static_cast<int64_t>(data_.size()));
    AppendValidity(false);
  }
  Array Finish() override;

 private:
  Buffer offsets_;
  Buffer data_;
};

class StructBuilder final : public ArrayBuilder {
 public:
  StructBuilder(DataTypePtr type, std::vector<std::unique_ptr<ArrayBuilder>> children)
      : ArrayBuilder(std::move(type)), children_(std::move(children)) {}
  // Marks the slot valid; the caller then appends one value to every child.
  void Append() { AppendValidity(true); }
  // Marks the slot null and appends a null to every child.
  void AppendNull() override;
  ArrayBuilder* child(size_t i) { return children_[i].get(); }
  size_t num_children() const { return children_.size(); }
  Array Finish() override;

 private:
  std::vector<std::unique_ptr<ArrayBuilder>> children_;
};

// kList and kMap (for kMap the child is the entries StructBuilder).
class ListBuilder final : public ArrayBuilder {
 public:
  ListBuilder(DataTypePtr type, std::unique_ptr<ArrayBuilder> child)
      : ArrayBuilder(std::move(type)), child_(std::move(child)) {
    offsets_.AppendValue<int32_t>(0);
  }
  // Opens a valid list slot; append its elements to child(), then call Close().
  void Append() { AppendValidity(true); }
  // Ends the slot opened by Append() (records the element count).
  void Close() { offsets_.AppendValue<int32_t>(static_cast<int32_t>(child_->length())); }
  void AppendNull() override {
    AppendValidity(false);
    Close();
  }
  ArrayBuilder* child() { return child_.get(); }
  // kMap only: the key and value builders of the entries struct.
  ArrayBuilder* key_builder() { return static_cast<StructBuilder*>(child_.get())->child(0); }
  ArrayBuilder* item_builder() { return static_cast<StructBuilder*>(child_.get())->child(1); }
  Array Finish() override;

 private:
  std::unique_ptr<ArrayBuilder> child_;
  Buffer offsets_;
};

// Dense union: AppendMember(m) then append one value to member(m).
class UnionBuilder final : public ArrayBuilder {
 public:
  UnionBuilder(DataTypePtr type, std::vector<std::unique_ptr<ArrayBuilder>> members)
      : ArrayBuilder(std::move(type)), members_(std::move(members)) {}
  void AppendMember(int8_t m) {
    type_ids_.AppendValue<int8_t>(m);
    offsets_.AppendValue<int32_t>(static_cast<int32_t>(members_[m]->length()));
    ++length_;
  }
  // Appends a null of the first null-typed member, or of member 0 when there is none
  // (dense unions have no validity bitmap of their own).
  void AppendNull() override {
    int8_t m = 0;
    for (size_t i = 0; i < members_.size(); ++i) {
      if (members_[i]->type()->id() == TypeId::kNull) {
        m = static_cast<int8_t>(i);
        break;
      }
    }
    AppendMember(m);
    members_[static_cast<size_t>(m)]->AppendNull();
  }
  ArrayBuilder* member(size_t m) { return members_[m].get(); }
  Array Finish() override;

 private:
  std::vector<std::unique_ptr<ArrayBuilder>> members_;
  Buffer type_ids_;
  Buffer offsets_;
};

// Builds a builder tree for `type`.
std::unique_ptr<ArrayBuilder> MakeBuilder(const DataTypePtr& type);

}  // namespace floe::columnar
