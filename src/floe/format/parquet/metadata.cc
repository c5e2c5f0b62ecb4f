#include "floe/format/parquet/metadata.h"

namespace floe::format::parquet {

std::optional<LogicalType> EffectiveLogicalType(const SchemaElement& e) {
  using K = LogicalType::Kind;
  if (e.logical_type) return e.logical_type;
  if (!e.converted_type) return std::nullopt;
  switch (*e.converted_type) {
    case ConvertedType::kUtf8: return LogicalType::Of(K::kString);
    case ConvertedType::kMap:
    case ConvertedType::kMapKeyValue: return LogicalType::Of(K::kMap);
    case ConvertedType::kList: return LogicalType::Of(K::kList);
    case ConvertedType::kEnum: return LogicalType::Of(K::kEnum);
    case ConvertedType::kDecimal:
      return LogicalType::Decimal(e.precision.value_or(0), e.scale.value_or(0));
    case ConvertedType::kDate: return LogicalType::Of(K::kDate);
    case ConvertedType::kTimeMillis: return LogicalType::Time(true, TimeUnit::kMillis);
    case ConvertedType::kTimeMicros: return LogicalType::Time(true, TimeUnit::kMicros);
    case ConvertedType::kTimestampMillis: return LogicalType::Timestamp(true, TimeUnit::kMillis);
    case ConvertedType::kTimestampMicros: return LogicalType::Timestamp(true, TimeUnit::kMicros);
    case ConvertedType::kUint8: return LogicalType::Integer(8, false);
    case ConvertedType::kUint16: return LogicalType::Integer(16, false);
    case ConvertedType::kUint32: return LogicalType::Integer(32, false);
    case ConvertedType::kUint64: return LogicalType::Integer(64, false);
    case ConvertedType::kInt8: return LogicalType::Integer(8, true);
    case ConvertedType::kInt16: return LogicalType::Integer(16, true);
    case ConvertedType::kInt32: return LogicalType::Integer(32, true);
    case ConvertedType::kInt64: return LogicalType::Integer(64, true);
    case ConvertedType::kJson: return LogicalType::Of(K::kJson);
    case ConvertedType::kBson: return LogicalType::Of(K::kBson);
    case ConvertedType::kInterval: return std::nullopt;
  }
  return std::nullopt;
}

}  // namespace floe::format::parquet
