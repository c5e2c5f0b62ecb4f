#include "floe/columnar/builder.h"

namespace floe::columnar {

Buffer ArrayBuilder::TakeValidity(int64_t* length, int64_t* null_count) {
  *length = length_;
  *null_count = null_count_;
  Buffer v = null_count_ == 0 ? Buffer() : std::move(validity_);
  validity_ = Buffer();
  length_ = 0;
  null_count_ = 0;
  return v;
}

Array NullBuilder::Finish() {
  int64_t n = length_;
  length_ = null_count_ = 0;
  return Array::Nulls(type_, n);
}

Array BoolBuilder::Finish() {
  int64_t length, nulls;
  Buffer validity = TakeValidity(&length, &nulls);
  return Array(type_, length, nulls, std::move(validity), std::move(values_), Buffer(), {});
}

Array FixedBinaryBuilder::Finish() {
  int64_t length, nulls;
  Buffer validity = TakeValidity(&length, &nulls);
  return Array(type_, length, nulls, std::move(validity), std::move(values_), Buffer(), {});
}

Array BinaryBuilder::Finish() {
  int64_t length, nulls;
  Buffer validity = TakeValidity(&length, &nulls);
  Array a(type_, length, nulls, std::move(validity), std::move(data_), std::move(offsets_), {});
  offsets_ = Buffer();
  data_ = Buffer();
  offsets_.AppendValue<int64_t>(0);
  return a;
}

void StructBuilder::AppendNull() {
  AppendValidity(false);
  for (auto& c : children_) c->AppendNull();
}

Array StructBuilder::Finish() {
  int64_t length, nulls;
  Buffer validity = TakeValidity(&length, &nulls);
  std::vector<Array> children;
  children.reserve(children_.size());
  for (auto& c : children_) children.push_back(c->Finish());
  return Array(type_, length, nulls, std::move(validity), Buffer(), Buffer(), std::move(children));
}

Array ListBuilder::Finish() {
  int64_t length, nulls;
  Buffer validity = TakeValidity(&length, &nulls);
  std::vector<Array> children;
  children.push_back(child_->Finish());
  Array a(type_, length, nulls, std::move(validity), Buffer(), std::move(offsets_),
          std::move(children));
  offsets_ = Buffer();
  offsets_.AppendValue<int32_t>(0);
  return a;
}

Array UnionBuilder::Finish() {
  int64_t length = length_;
  length_ = 0;
  std::vector<Array> children;
  children.reserve(members_.size());
  for (auto& m : members_) children.push_back(m->Finish());
  Array a(type_, length, 0, Buffer(), std::move(type_ids_), std::move(offsets_),
          std::move(children));
  type_ids_ = Buffer();
  offsets_ = Buffer();
  return a;
}

std::unique_ptr<ArrayBuilder> MakeBuilder(const DataTypePtr& type) {
  switch (type->id()) {
    case TypeId::kNull: return std::make_unique<NullBuilder>();
    case TypeId::kBool: return std::make_unique<BoolBuilder>();
    case TypeId::kInt8: return std::make_unique<FixedWidthBuilder<int8_t>>(type);
    case TypeId::kUInt8: return std::make_unique<FixedWidthBuilder<uint8_t>>(type);
    case TypeId::kInt16: return std::make_unique<FixedWidthBuilder<int16_t>>(type);
    case TypeId::kUInt16:
    case TypeId::kFloat16: return std::make_unique<FixedWidthBuilder<uint16_t>>(type);
    case TypeId::kInt32:
    case TypeId::kDate32:
    case TypeId::kTime32: return std::make_unique<FixedWidthBuilder<int32_t>>(type);
    case TypeId::kUInt32: return std::make_unique<FixedWidthBuilder<uint32_t>>(type);
    case TypeId::kFloat32: return std::make_unique<FixedWidthBuilder<float>>(type);
    case TypeId::kInt64:
    case TypeId::kTime64:
    case TypeId::kTimestamp: return std::make_unique<FixedWidthBuilder<int64_t>>(type);
    case TypeId::kUInt64: return std::make_unique<FixedWidthBuilder<uint64_t>>(type);
    case TypeId::kFloat64: return std::make_unique<FixedWidthBuilder<double>>(type);
    case TypeId::kDecimal128: return std::make_unique<FixedWidthBuilder<__int128>>(type);
    case TypeId::kFixedBinary:
    case TypeId::kUuid: return std::make_unique<FixedBinaryBuilder>(type);
    case TypeId::kString:
    case TypeId::kBinary: return std::make_unique<BinaryBuilder>(type);
    case TypeId::kStruct: {
      std::vector<std::unique_ptr<ArrayBuilder>> children;
      for (const auto& f : type->children()) children.push_back(MakeBuilder(f.type));
      return std::make_unique<StructBuilder>(type, std::move(children));
    }
    case TypeId::kList:
    case TypeId::kMap: return std::make_unique<ListBuilder>(type, MakeBuilder(type->child(0).type));
    case TypeId::kUnion: {
      std::vector<std::unique_ptr<ArrayBuilder>> members;
      for (const auto& f : type->children()) members.push_back(MakeBuilder(f.type));
      return std::make_unique<UnionBuilder>(type, std::move(members));
    }
  }
  return nullptr;
}

}  // namespace floe::columnar
