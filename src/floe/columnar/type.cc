#include "floe/columnar/type.h"

#include <fmt/format.h>

namespace floe::columnar {

std::string_view TypeIdName(TypeId id) {
  switch (id) {
    case TypeId::kNull: return "null";
    case TypeId::kBool: return "bool";
    case TypeId::kInt8: return "int8";
    case TypeId::kInt16: return "int16";
    case TypeId::kInt32: return "int32";
    case TypeId::kInt64: return "int64";
    case TypeId::kUInt8: return "uint8";
    case TypeId::kUInt16: return "uint16";
    case TypeId::kUInt32: return "uint32";
    case TypeId::kUInt64: return "uint64";
    case TypeId::kFloat16: return "float16";
    case TypeId::kFloat32: return "float32";
    case TypeId::kFloat64: return "float64";
    case TypeId::kDecimal128: return "decimal128";
    case TypeId::kDate32: return "date32";
    case TypeId::kTime32: return "time32";
    case TypeId::kTime64: return "time64";
    case TypeId::kTimestamp: return "timestamp";
    case TypeId::kString: return "string";
    case TypeId::kBinary: return "binary";
    case TypeId::kFixedBinary: return "fixed_binary";
    case TypeId::kUuid: return "uuid";
    case TypeId::kStruct: return "struct";
    case TypeId::kList: return "list";
    case TypeId::kMap: return "map";
    case TypeId::kUnion: return "union";
  }
  return "unknown";
}

std::string_view TimeUnitName(TimeUnit unit) {
  switch (unit) {
    case TimeUnit::kSecond: return "s";
    case TimeUnit::kMilli: return "ms";
    case TimeUnit::kMicro: return "us";
    case TimeUnit::kNano: return "ns";
  }
  return "?";
}

int32_t DataType::fixed_width() const {
  switch (id_) {
    case TypeId::kInt8:
    case TypeId::kUInt8: return 1;
    case TypeId::kInt16:
    case TypeId::kUInt16:
    case TypeId::kFloat16: return 2;
    case TypeId::kInt32:
    case TypeId::kUInt32:
    case TypeId::kFloat32:
    case TypeId::kDate32:
    case TypeId::kTime32: return 4;
    case TypeId::kInt64:
    case TypeId::kUInt64:
    case TypeId::kFloat64:
    case TypeId::kTime64:
    case TypeId::kTimestamp: return 8;
    case TypeId::kDecimal128:
    case TypeId::kUuid: return 16;
    case TypeId::kFixedBinary: return byte_width_;
    default: return 0;
  }
}

bool DataType::Equals(const DataType& o) const {
  if (this == &o) return true;
  if (id_ != o.id_) return false;
  switch (id_) {
    case TypeId::kDecimal128: return precision_ == o.precision_ && scale_ == o.scale_;
    case TypeId::kTime32:
    case TypeId::kTime64: return unit_ == o.unit_;
    case TypeId::kTimestamp: return unit_ == o.unit_ && utc_adjusted_ == o.utc_adjusted_;
    case TypeId::kFixedBinary: return byte_width_ == o.byte_width_;
    case TypeId::kStruct:
    case TypeId::kList:
    case TypeId::kMap:
    case TypeId::kUnion:
      if (children_.size() != o.children_.size()) return false;
      for (size_t i = 0; i < children_.size(); ++i) {
        if (!children_[i].Equals(o.children_[i])) return false;
      }
      return true;
    default: return true;
  }
}

std::string DataType::ToString() const {
  switch (id_) {
    case TypeId::kDecimal128: return fmt::format("decimal({}, {})", precision_, scale_);
    case TypeId::kTime32:
    case TypeId::kTime64: return fmt::format("time[{}]", TimeUnitName(unit_));
    case TypeId::kTimestamp:
      return fmt::format("timestamp[{}{}]", TimeUnitName(unit_), utc_adjusted_ ? ", UTC" : "");
    case TypeId::kFixedBinary: return fmt::format("fixed_binary[{}]", byte_width_);
    case TypeId::kStruct:
    case TypeId::kUnion: {
      std::string s(TypeIdName(id_));
      s += "<";
      for (size_t i = 0; i < children_.size(); ++i) {
        if (i) s += ", ";
        s += children_[i].ToString();
      }
      return s + ">";
    }
    case TypeId::kList: return "list<" + children_[0].ToString() + ">";
    case TypeId::kMap:
      return "map<" + children_[0].type->child(0).type->ToString() + ", " +
             children_[0].type->child(1).ToString() + ">";
    default: return std::string(TypeIdName(id_));
  }
}

bool Field::Equals(const Field& o, bool check_metadata) const {
  return name == o.name && nullable == o.nullable && field_id == o.field_id &&
         type->Equals(*o.type) && (!check_metadata || metadata == o.metadata);
}

std::string Field::ToString() const {
  std::string s = name + ": " + type->ToString();
  if (!nullable) s += " not null";
  if (field_id) s += fmt::format(" id={}", *field_id);
  return s;
}

int Schema::FieldIndex(std::string_view name) const {
  for (size_t i = 0; i < fields_.size(); ++i) {
    if (fields_[i].name == name) return static_cast<int>(i);
  }
  return -1;
}

bool Schema::Equals(const Schema& o, bool check_metadata) const {
  if (fields_.size() != o.fields_.size()) return false;
  for (size_t i = 0; i < fields_.size(); ++i) {
    if (!fields_[i].Equals(o.fields_[i], check_metadata)) return false;
  }
  return !check_metadata || metadata_ == o.metadata_;
}

std::string Schema::ToString() const {
  std::string s;
  for (const auto& f : fields_) s += f.ToString() + "\n";
  return s;
}

#define FLOE_SINGLETON_TYPE(Name, Id)                                \
  DataTypePtr Name() {                                               \
    static const DataTypePtr kType = std::make_shared<DataType>(Id); \
    return kType;                                                    \
  }
FLOE_SINGLETON_TYPE(Null, TypeId::kNull)
FLOE_SINGLETON_TYPE(Bool, TypeId::kBool)
FLOE_SINGLETON_TYPE(Int8, TypeId::kInt8)
FLOE_SINGLETON_TYPE(Int16, TypeId::kInt16)
FLOE_SINGLETON_TYPE(Int32, TypeId::kInt32)
FLOE_SINGLETON_TYPE(Int64, TypeId::kInt64)
FLOE_SINGLETON_TYPE(UInt8, TypeId::kUInt8)
FLOE_SINGLETON_TYPE(UInt16, TypeId::kUInt16)
FLOE_SINGLETON_TYPE(UInt32, TypeId::kUInt32)
FLOE_SINGLETON_TYPE(UInt64, TypeId::kUInt64)
FLOE_SINGLETON_TYPE(Float32, TypeId::kFloat32)
FLOE_SINGLETON_TYPE(Float64, TypeId::kFloat64)
FLOE_SINGLETON_TYPE(Date32, TypeId::kDate32)
FLOE_SINGLETON_TYPE(String, TypeId::kString)
FLOE_SINGLETON_TYPE(Binary, TypeId::kBinary)
FLOE_SINGLETON_TYPE(Float16, TypeId::kFloat16)
FLOE_SINGLETON_TYPE(Uuid, TypeId::kUuid)
#undef FLOE_SINGLETON_TYPE

DataTypePtr Decimal128(int32_t precision, int32_t scale) {
  auto t = std::make_shared<DataType>(TypeId::kDecimal128);
  t->precision_ = precision;
  t->scale_ = scale;
  return t;
}

DataTypePtr Time(TimeUnit unit) {
  auto t = std::make_shared<DataType>(
      unit == TimeUnit::kMilli || unit == TimeUnit::kSecond ? TypeId::kTime32 : TypeId::kTime64);
  t->unit_ = unit;
  return t;
}

DataTypePtr Timestamp(TimeUnit unit, bool utc_adjusted) {
  auto t = std::make_shared<DataType>(TypeId::kTimestamp);
  t->unit_ = unit;
  t->utc_adjusted_ = utc_adjusted;
  return t;
}

DataTypePtr FixedBinary(int32_t byte_width) {
  auto t = std::make_shared<DataType>(TypeId::kFixedBinary);
  t->byte_width_ = byte_width;
  return t;
}

DataTypePtr Struct(std::vector<Field> fields) {
  auto t = std::make_shared<DataType>(TypeId::kStruct);
  t->children_ = std::move(fields);
  return t;
}

DataTypePtr List(Field element) {
  auto t = std::make_shared<DataType>(TypeId::kList);
  t->children_.push_back(std::move(element));
  return t;
}

DataTypePtr Map(Field key, Field value, bool keys_sorted) {
  auto t = std::make_shared<DataType>(TypeId::kMap);
  key.nullable = false;
  std::vector<Field> kv;
  kv.push_back(std::move(key));
  kv.push_back(std::move(value));
  t->children_.emplace_back("entries", Struct(std::move(kv)), /*nullable=*/false);
  t->keys_sorted_ = keys_sorted;
  return t;
}

DataTypePtr Union(std::vector<Field> members) {
  auto t = std::make_shared<DataType>(TypeId::kUnion);
  t->children_ = std::move(members);
  return t;
}

}  // namespace floe::columnar
