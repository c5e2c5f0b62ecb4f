// Data types, fields and schemas of in-memory columns. The physical layout of each type
// follows the Arrow columnar format (see array.h), so batches can be exported through
// the Arrow C Data Interface without copying.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace floe::columnar {

enum class TypeId : uint8_t {
  kNull,  // every value is null; no buffers
  kBool,  // bit-packed, LSB first
  kInt8,
  kInt16,
  kInt32,
  kInt64,
  kUInt8,
  kUInt16,
  kUInt32,
  kUInt64,
  kFloat16,  // IEEE half precision, raw 16 bits
  kFloat32,
  kFloat64,
  kDecimal128,   // 16-byte little-endian two's complement unscaled value; precision <= 38
  kDate32,       // days since 1970-01-01
  kTime32,       // time of day, unit kMilli
  kTime64,       // time of day, unit kMicro or kNano
  kTimestamp,    // int64 since the epoch in `unit`; utc_adjusted distinguishes tz-aware
  kString,       // UTF-8; int64 offsets + bytes
  kBinary,       // int64 offsets + bytes
  kFixedBinary,  // byte_width bytes per value
  kUuid,         // 16 bytes, big-endian (RFC 4122 byte order)
  kStruct,
  kList,   // int32 offsets + one child
  kMap,    // int32 offsets + one child: non-null struct<key, value>
  kUnion,  // dense union: int8 type ids + int32 offsets + one child per member
};

enum class TimeUnit : uint8_t { kSecond, kMilli, kMicro, kNano };

std::string_view TypeIdName(TypeId id);
std::string_view TimeUnitName(TimeUnit unit);

struct Field;
class DataType;
using DataTypePtr = std::shared_ptr<const DataType>;

// Key-value metadata attached to fields and schemas (order preserved).
using KeyValueMetadata = std::vector<std::pair<std::string, std::string>>;

// An immutable type descriptor. Create with the factory functions below.
class DataType {
 public:
  TypeId id() const { return id_; }
  // Decimal
  int32_t precision() const { return precision_; }
  int32_t scale() const { return scale_; }
  // Time32/Time64/Timestamp
  TimeUnit unit() const { return unit_; }
  bool utc_adjusted() const { return utc_adjusted_; }
  // FixedBinary (16 for Uuid, 2 for Float16)
  int32_t byte_width() const { return byte_width_; }
  // Struct fields, the List element, Map's single entries struct, Union members.
  const std::vector<Field>& children() const { return children_; }
  const Field& child(size_t i) const;

  // Bytes per value of the values buffer for fixed-width types; 0 for others (bool: 0).
  int32_t fixed_width() const;
  bool is_nested() const {
    return id_ == TypeId::kStruct || id_ == TypeId::kList || id_ == TypeId::kMap ||
           id_ == TypeId::kUnion;
  }
  bool is_binary_like() const { return id_ == TypeId::kString || id_ == TypeId::kBinary; }

  bool Equals(const DataType& other) const;
  // "int64", "decimal(10, 2)", "struct<a: int32, b: list<string>>".
  std::string ToString() const;

  explicit DataType(TypeId id);  // use the factories

 private:
  friend DataTypePtr Decimal128(int32_t, int32_t);
  friend DataTypePtr Time(TimeUnit);
  friend DataTypePtr Timestamp(TimeUnit, bool);
  friend DataTypePtr FixedBinary(int32_t);
  friend DataTypePtr Struct(std::vector<Field>);
  friend DataTypePtr List(Field);
  friend DataTypePtr Map(Field, Field, bool);
  friend DataTypePtr Union(std::vector<Field>);

  TypeId id_;
  int32_t precision_ = 0;
  int32_t scale_ = 0;
  TimeUnit unit_ = TimeUnit::kMicro;
  bool utc_adjusted_ = false;
  bool keys_sorted_ = false;
  int32_t byte_width_ = 0;
  std::vector<Field> children_;
};

struct Field {
  std::string name;
  DataTypePtr type;
  bool nullable = true;
  std::optional<int32_t> field_id;
  KeyValueMetadata metadata;

  Field() = default;
  Field(std::string n, DataTypePtr t, bool null = true, std::optional<int32_t> id = std::nullopt)
      : name(std::move(n)), type(std::move(t)), nullable(null), field_id(id) {}

  bool Equals(const Field& other, bool check_metadata = false) const;
  std::string ToString() const;
};

inline DataType::DataType(TypeId id) : id_(id) {}
inline const Field& DataType::child(size_t i) const { return children_[i]; }

// The columns of a batch. Equivalent to the fields of a struct type plus metadata.
class Schema {
 public:
  Schema() = default;
  explicit Schema(std::vector<Field> fields, KeyValueMetadata metadata = {})
      : fields_(std::move(fields)), metadata_(std::move(metadata)) {}

  const std::vector<Field>& fields() const { return fields_; }
  const Field& field(size_t i) const { return fields_[i]; }
  size_t num_fields() const { return fields_.size(); }
  const KeyValueMetadata& metadata() const { return metadata_; }
  // Index of the top-level field named `name`, or -1.
  int FieldIndex(std::string_view name) const;

  bool Equals(const Schema& other, bool check_metadata = false) const;
  std::string ToString() const;

 private:
  std::vector<Field> fields_;
  KeyValueMetadata metadata_;
};
using SchemaPtr = std::shared_ptr<const Schema>;

// Singletons of parameterless types are cheap to share; these return shared instances.
DataTypePtr Null();
DataTypePtr Bool();
DataTypePtr Int8();
DataTypePtr Int16();
DataTypePtr Int32();
DataTypePtr Int64();
DataTypePtr UInt8();
DataTypePtr UInt16();
DataTypePtr UInt32();
DataTypePtr UInt64();
DataTypePtr Float16();
DataTypePtr Float32();
DataTypePtr Float64();
DataTypePtr Date32();
DataTypePtr String();
DataTypePtr Binary();
DataTypePtr Uuid();

DataTypePtr Decimal128(int32_t precision, int32_t scale);
// kMilli gives Time32; kMicro and kNano give Time64.
DataTypePtr Time(TimeUnit unit);
DataTypePtr Timestamp(TimeUnit unit, bool utc_adjusted);
DataTypePtr FixedBinary(int32_t byte_width);
DataTypePtr Struct(std::vector<Field> fields);
DataTypePtr List(Field element);
// The entries struct is built from `key` (made non-nullable) and `value`.
DataTypePtr Map(Field key, Field value, bool keys_sorted = false);
DataTypePtr Union(std::vector<Field> members);

}  // namespace floe::columnar
