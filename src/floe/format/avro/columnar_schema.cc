#include "floe/format/avro/columnar_schema.h"

#include <algorithm>
#include <limits>
#include <vector>

#include "floe/base/macros.h"

namespace floe::format::avro {

namespace col = floe::columnar;

UnionShape ClassifyUnion(const Node& node) {
  UnionShape shape;
  int non_null = 0;
  int last_non_null = -1;
  for (size_t i = 0; i < node.num_branches(); ++i) {
    if (node.branch(i).type() == AvroType::kNull) {
      shape.null_branch = static_cast<int>(i);
    } else {
      ++non_null;
      last_non_null = static_cast<int>(i);
    }
  }
  if (node.num_branches() == 0 || non_null > 1) {
    shape.dense = true;
    shape.null_branch = -1;
    for (size_t i = 0; i < node.num_branches(); ++i) {
      if (node.branch(i).type() == AvroType::kNull) shape.null_branch = static_cast<int>(i);
    }
    return shape;
  }
  shape.value_branch = last_non_null;
  return shape;
}

bool IsNullable(const Node& node) {
  if (node.type() == AvroType::kNull) return true;
  if (node.type() != AvroType::kUnion) return false;
  return ClassifyUnion(node).null_branch >= 0;
}

bool IsMapArray(const Node& node) {
  if (node.type() != AvroType::kArray) return false;
  std::optional<std::string> lt = node.StringProperty("logicalType");
  if (!lt || *lt != "map") return false;
  const Node& items = node.items();
  return items.type() == AvroType::kRecord && items.fields().size() == 2 &&
         !IsNullable(items.fields()[0].type());
}

namespace {

std::optional<int32_t> Int32Property(const Node& node, std::string_view key) {
  std::optional<int64_t> v = node.IntProperty(key);
  if (!v || *v < std::numeric_limits<int32_t>::min() || *v > std::numeric_limits<int32_t>::max()) {
    return std::nullopt;
  }
  return static_cast<int32_t>(*v);
}

class TypeMapper {
 public:
  Result<col::DataTypePtr> Map(const Node& node) {
    switch (node.logical_type()) {
      case LogicalType::kDecimal:
        if (node.precision() > 38) {
          return Status::Unimplemented("decimal precision {} exceeds 38", node.precision());
        }
        return col::Decimal128(node.precision(), node.scale());
      case LogicalType::kUuid: return node.type() == AvroType::kFixed ? col::Uuid() : col::String();
      case LogicalType::kDate: return col::Date32();
      case LogicalType::kTimeMillis: return col::Time(col::TimeUnit::kMilli);
      case LogicalType::kTimeMicros: return col::Time(col::TimeUnit::kMicro);
      case LogicalType::kTimestampMillis: return col::Timestamp(col::TimeUnit::kMilli, true);
      case LogicalType::kTimestampMicros: return col::Timestamp(col::TimeUnit::kMicro, true);
      case LogicalType::kTimestampNanos: return col::Timestamp(col::TimeUnit::kNano, true);
      case LogicalType::kLocalTimestampMillis: return col::Timestamp(col::TimeUnit::kMilli, false);
      case LogicalType::kLocalTimestampMicros: return col::Timestamp(col::TimeUnit::kMicro, false);
      case LogicalType::kLocalTimestampNanos: return col::Timestamp(col::TimeUnit::kNano, false);
      case LogicalType::kDuration: return col::FixedBinary(12);
      case LogicalType::kNone: break;
    }
    switch (node.type()) {
      case AvroType::kNull: return col::Null();
      case AvroType::kBoolean: return col::Bool();
      case AvroType::kInt: return col::Int32();
      case AvroType::kLong: return col::Int64();
      case AvroType::kFloat: return col::Float32();
      case AvroType::kDouble: return col::Float64();
      case AvroType::kBytes: return col::Binary();
      case AvroType::kString: return col::String();
      case AvroType::kEnum: return col::String();
      case AvroType::kFixed: return col::FixedBinary(node.fixed_size());
      case AvroType::kRecord: return MapRecord(node);
      case AvroType::kArray: return MapArray(node);
      case AvroType::kMap: {
        FLOE_ASSIGN_OR_RETURN(col::DataTypePtr value, Map(node.values()));
        return col::Map(col::Field("key", col::String(), false, Int32Property(node, "key-id")),
                        col::Field("value", std::move(value), IsNullable(node.values()),
                                   Int32Property(node, "value-id")));
      }
      case AvroType::kUnion: return MapUnion(node);
    }
    return Status::Internal("unhandled avro type");
  }

  Result<col::Field> MapField(const RecordField& f) {
    FLOE_ASSIGN_OR_RETURN(col::DataTypePtr type, Map(f.type()));
    return col::Field(f.name(), std::move(type), IsNullable(f.type()), f.field_id());
  }

 private:
  Result<col::DataTypePtr> MapRecord(const Node& node) {
    if (std::find(in_progress_.begin(), in_progress_.end(), &node) != in_progress_.end()) {
      return Status::Unimplemented("recursive type '{}' cannot be represented as columns",
                                   node.full_name());
    }
    in_progress_.push_back(&node);
    std::vector<col::Field> fields;
    fields.reserve(node.fields().size());
    for (const auto& f : node.fields()) {
      Result<col::Field> field = MapField(f);
      if (!field.ok()) {
        in_progress_.pop_back();
        return std::move(field).status();
      }
      fields.push_back(std::move(*field));
    }
    in_progress_.pop_back();
    return col::Struct(std::move(fields));
  }

  Result<col::DataTypePtr> MapArray(const Node& node) {
    const Node& items = node.items();
    if (IsMapArray(node)) {
      FLOE_ASSIGN_OR_RETURN(col::Field key, MapField(items.fields()[0]));
      FLOE_ASSIGN_OR_RETURN(col::Field value, MapField(items.fields()[1]));
      return col::Map(std::move(key), std::move(value));
    }
    FLOE_ASSIGN_OR_RETURN(col::DataTypePtr element, Map(items));
    return col::List(col::Field("element", std::move(element), IsNullable(items),
                                Int32Property(node, "element-id")));
  }

  Result<col::DataTypePtr> MapUnion(const Node& node) {
    UnionShape shape = ClassifyUnion(node);
    if (!shape.dense) {
      if (shape.value_branch < 0) return col::Null();
      return Map(node.branch(static_cast<size_t>(shape.value_branch)));
    }
    if (node.num_branches() > 127) {
      return Status::Unimplemented("union of {} branches exceeds 127", node.num_branches());
    }
    std::vector<col::Field> members;
    for (size_t i = 0; i < node.num_branches(); ++i) {
      const Node& b = node.branch(i);
      FLOE_ASSIGN_OR_RETURN(col::DataTypePtr type, Map(b));
      members.emplace_back(std::string(b.branch_label()), std::move(type),
                           b.type() == AvroType::kNull);
    }
    return col::Union(std::move(members));
  }

  std::vector<const Node*> in_progress_;
};

}  // namespace

Result<col::DataTypePtr> ToColumnarType(const Node& node) { return TypeMapper().Map(node); }

Result<col::Field> ToColumnarField(const RecordField& field) {
  return TypeMapper().MapField(field);
}

Result<col::SchemaPtr> ToColumnarSchema(const Schema& schema) {
  const Node& root = schema.root();
  TypeMapper mapper;
  std::vector<col::Field> fields;
  if (root.type() == AvroType::kRecord) {
    FLOE_ASSIGN_OR_RETURN(col::DataTypePtr type, mapper.Map(root));
    fields = type->children();
  } else {
    FLOE_ASSIGN_OR_RETURN(col::DataTypePtr type, mapper.Map(root));
    fields.emplace_back("value", std::move(type), IsNullable(root));
  }
  return std::make_shared<const col::Schema>(std::move(fields));
}

}  // namespace floe::format::avro
