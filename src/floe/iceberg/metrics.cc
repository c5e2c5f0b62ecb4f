#include "floe/iceberg/metrics.h"

#include <cctype>
#include <charconv>
#include <cmath>
#include <cstring>

#include "floe/base/bytes.h"
#include "floe/base/macros.h"

namespace floe::iceberg {

namespace pq = floe::format::parquet;

namespace {

std::string Lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

std::string_view Trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

// Every field id of `field` and below (struct fields, list elements, map keys and values).
void CollectIds(const NestedField& field, std::vector<int32_t>* ids) {
  ids->push_back(field.id);
  for (const NestedField& child : field.type->fields()) CollectIds(child, ids);
}

}  // namespace

Result<MetricsMode> MetricsMode::Parse(std::string_view text) {
  const std::string mode = Lower(Trim(text));
  if (mode == "none") return None();
  if (mode == "counts") return Counts();
  if (mode == "full") return Full();
  std::string_view rest = mode;
  if (rest.starts_with("truncate(") && rest.ends_with(")")) {
    rest = rest.substr(9, rest.size() - 10);
    int32_t n = 0;
    auto [p, ec] = std::from_chars(rest.data(), rest.data() + rest.size(), n);
    if (!rest.empty() && ec == std::errc() && p == rest.data() + rest.size() &&
        std::isdigit(static_cast<unsigned char>(rest.front()))) {
      if (n <= 0) return Status::InvalidArgument("truncate length must be positive: {}", text);
      return Truncate(n);
    }
  }
  return Status::InvalidArgument("invalid metrics mode: '{}'", text);
}

std::string MetricsMode::ToString() const {
  switch (kind) {
    case Kind::kNone: return "none";
    case Kind::kCounts: return "counts";
    case Kind::kFull: return "full";
    case Kind::kTruncate: return "truncate(" + std::to_string(length) + ")";
  }
  return "";
}

MetricsConfig MetricsConfig::ForTable(const std::map<std::string, std::string>& properties,
                                      const Schema& schema, const SortOrder& sort_order) {
  MetricsConfig config;
  int max_inferred = kMetricsMaxInferredColumnsDefault;
  if (auto it = properties.find(std::string(kMetricsMaxInferredColumnsProperty));
      it != properties.end()) {
    int v = 0;
    std::string_view s = Trim(it->second);
    auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    if (ec == std::errc() && p == s.data() + s.size() && v >= 0) max_inferred = v;
  }
  const MetricsMode java_default = MetricsMode::Truncate(16);
  if (auto it = properties.find(std::string(kMetricsDefaultProperty)); it != properties.end()) {
    Result<MetricsMode> mode = MetricsMode::Parse(it->second);
    config.default_mode_ = mode.has_value() ? *mode : java_default;
  } else if (schema.fields().size() <= static_cast<size_t>(max_inferred)) {
    config.default_mode_ = java_default;
  } else {
    // Wide tables: the inferred default covers the first columns (and their nested fields).
    std::vector<int32_t> ids;
    for (size_t i = 0; i < static_cast<size_t>(max_inferred); ++i)
      CollectIds(schema.fields()[i], &ids);
    for (int32_t id : ids) {
      if (std::optional<std::string> name = schema.FindColumnName(id)) {
        config.column_modes_[*name] = java_default;
      }
    }
    config.default_mode_ = MetricsMode::None();
  }
  // Sorted columns get at least truncate(16) (Java sortedColumnDefaultMode).
  const MetricsMode sorted_mode = config.default_mode_.kind == MetricsMode::Kind::kNone ||
                                          config.default_mode_.kind == MetricsMode::Kind::kCounts
                                      ? MetricsMode::Truncate(16)
                                      : config.default_mode_;
  for (const SortField& f : sort_order.fields()) {
    if (!f.transform.PreservesOrder()) continue;
    if (std::optional<std::string> name = schema.FindColumnName(f.source_id)) {
      config.column_modes_[*name] = sorted_mode;
    }
  }
  for (const auto& [key, value] : properties) {
    if (!key.starts_with(kMetricsColumnPrefix)) continue;
    Result<MetricsMode> mode = MetricsMode::Parse(value);
    config.column_modes_[key.substr(kMetricsColumnPrefix.size())] =
        mode.has_value() ? *mode : config.default_mode_;
  }
  return config;
}

MetricsConfig MetricsConfig::ForPositionDeletes() {
  MetricsConfig config;
  config.default_mode_ = MetricsMode::Full();
  config.column_modes_["file_path"] = MetricsMode::Full();
  config.column_modes_["pos"] = MetricsMode::Full();
  return config;
}

MetricsMode MetricsConfig::ColumnMode(std::string_view column_name) const {
  auto it = column_modes_.find(column_name);
  return it == column_modes_.end() ? default_mode_ : it->second;
}

MetricsMode MetricsConfig::FieldMode(const Schema& schema, int32_t field_id) const {
  std::optional<std::string> name = schema.FindColumnName(field_id);
  return name ? ColumnMode(*name) : default_mode_;
}

namespace {

Status WrongSize(const pq::ColumnDescriptor& column, std::string_view v) {
  return Status::Corrupt("statistics value of column '{}' has {} bytes", column.PathString(),
                         v.size());
}

// A big-endian two's complement integer of 1..16 bytes.
std::optional<__int128> BigEndianUnscaled(std::string_view be) {
  if (be.empty() || be.size() > 16) return std::nullopt;
  unsigned __int128 v =
      (static_cast<uint8_t>(be[0]) & 0x80) ? ~static_cast<unsigned __int128>(0) : 0;
  for (char c : be) v = (v << 8) | static_cast<uint8_t>(c);
  return static_cast<__int128>(v);
}

}  // namespace

Result<std::optional<std::string>> ParquetBoundToIceberg(const pq::ColumnDescriptor& column,
                                                         const Type& type, std::string_view plain) {
  const pq::Type physical = column.physical_type;
  auto need = [&](size_t n) -> Status {
    return plain.size() == n ? Status::OK() : WrongSize(column, plain);
  };
  auto mismatch = [&]() {
    return Status::InvalidArgument("column '{}': Parquet type {} cannot hold Iceberg {}",
                                   column.PathString(), static_cast<int>(physical),
                                   type.ToString());
  };
  std::optional<Literal> lit;
  switch (type.kind()) {
    case TypeKind::kBoolean:
      if (physical != pq::Type::kBoolean) return mismatch();
      FLOE_RETURN_IF_ERROR(need(1));
      lit = Literal::Boolean(plain[0] != 0);
      break;
    case TypeKind::kInt:
    case TypeKind::kDate: {
      if (physical != pq::Type::kInt32) return mismatch();
      FLOE_RETURN_IF_ERROR(need(4));
      const int32_t v = LoadLE<int32_t>(plain.data());
      lit = type.kind() == TypeKind::kInt ? Literal::Int(v) : Literal::Date(v);
      break;
    }
    case TypeKind::kLong:
    case TypeKind::kTime:
    case TypeKind::kTimestamp:
    case TypeKind::kTimestampTz:
    case TypeKind::kTimestampNs:
    case TypeKind::kTimestampTzNs: {
      int64_t v = 0;
      if (physical == pq::Type::kInt64) {
        FLOE_RETURN_IF_ERROR(need(8));
        v = LoadLE<int64_t>(plain.data());
      } else if (physical == pq::Type::kInt32 && type.kind() == TypeKind::kLong) {
        FLOE_RETURN_IF_ERROR(need(4));
        v = LoadLE<int32_t>(plain.data());
      } else {
        return mismatch();
      }
      switch (type.kind()) {
        case TypeKind::kLong: lit = Literal::Long(v); break;
        case TypeKind::kTime: lit = Literal::Time(v); break;
        case TypeKind::kTimestamp: lit = Literal::Timestamp(v); break;
        case TypeKind::kTimestampTz: lit = Literal::TimestampTz(v); break;
        case TypeKind::kTimestampNs: lit = Literal::TimestampNs(v); break;
        default: lit = Literal::TimestampTzNs(v); break;
      }
      break;
    }
    case TypeKind::kFloat: {
      if (physical != pq::Type::kFloat) return mismatch();
      FLOE_RETURN_IF_ERROR(need(4));
      const float v = LoadLE<float>(plain.data());
      if (std::isnan(v)) return std::optional<std::string>();
      lit = Literal::Float(v);
      break;
    }
    case TypeKind::kDouble: {
      double v = 0;
      if (physical == pq::Type::kDouble) {
        FLOE_RETURN_IF_ERROR(need(8));
        v = LoadLE<double>(plain.data());
      } else if (physical == pq::Type::kFloat) {
        FLOE_RETURN_IF_ERROR(need(4));
        v = LoadLE<float>(plain.data());
      } else {
        return mismatch();
      }
      if (std::isnan(v)) return std::optional<std::string>();
      lit = Literal::Double(v);
      break;
    }
    case TypeKind::kDecimal: {
      __int128 unscaled = 0;
      if (physical == pq::Type::kInt32) {
        FLOE_RETURN_IF_ERROR(need(4));
        unscaled = LoadLE<int32_t>(plain.data());
      } else if (physical == pq::Type::kInt64) {
        FLOE_RETURN_IF_ERROR(need(8));
        unscaled = LoadLE<int64_t>(plain.data());
      } else if (physical == pq::Type::kFixedLenByteArray || physical == pq::Type::kByteArray) {
        std::optional<__int128> v = BigEndianUnscaled(plain);
        if (!v) return WrongSize(column, plain);
        unscaled = *v;
      } else {
        return mismatch();
      }
      lit = Literal::Decimal(unscaled, type.precision(), type.scale());
      break;
    }
    case TypeKind::kString:
    case TypeKind::kBinary:
      if (physical != pq::Type::kByteArray) return mismatch();
      lit = type.kind() == TypeKind::kString ? Literal::String(std::string(plain))
                                             : Literal::Binary(std::string(plain));
      break;
    case TypeKind::kFixed:
      if (physical != pq::Type::kFixedLenByteArray) return mismatch();
      FLOE_RETURN_IF_ERROR(need(static_cast<size_t>(type.length())));
      lit = Literal::Fixed(std::string(plain));
      break;
    case TypeKind::kUuid: {
      if (physical != pq::Type::kFixedLenByteArray) return mismatch();
      FLOE_RETURN_IF_ERROR(need(16));
      Literal::UuidBytes u{};
      std::memcpy(u.data(), plain.data(), 16);
      lit = Literal::Uuid(u);
      break;
    }
    default: return mismatch();
  }
  FLOE_ASSIGN_OR_RETURN(std::string bytes, lit->ToBytes());
  return std::optional<std::string>(std::move(bytes));
}

Status ApplyParquetMetrics(const Schema& schema, const MetricsConfig& config,
                           const pq::SchemaDescriptor& file_schema, const pq::WriteResult& result,
                           DataFile* file) {
  file->record_count = result.num_rows;
  for (const pq::ColumnMetrics& c : result.columns) {
    if (!c.field_id || c.leaf < 0 || c.leaf >= file_schema.num_leaves()) continue;
    const int32_t id = *c.field_id;
    const NestedField* field = schema.FindField(id);
    if (field == nullptr || !field->type->is_primitive()) continue;
    const MetricsMode mode = config.FieldMode(schema, id);
    if (mode.kind == MetricsMode::Kind::kNone) continue;
    file->column_sizes[id] += c.compressed_bytes;
    const pq::ColumnDescriptor& leaf = file_schema.leaf(c.leaf);
    // Java ParquetMetrics: repeated fields (inside lists and maps) get no counts or bounds.
    if (leaf.max_rep > 0) continue;
    file->value_counts[id] = c.value_count;
    file->null_value_counts[id] = c.null_count;
    if (c.nan_count) file->nan_value_counts[id] = *c.nan_count;
    // A minimum without a maximum happens when no upper bound of a long binary value could
    // be written; the lower bound alone is still valid.
    if (mode.kind == MetricsMode::Kind::kCounts || !c.min) continue;
    FLOE_ASSIGN_OR_RETURN(std::optional<std::string> lower,
                          ParquetBoundToIceberg(leaf, *field->type, *c.min));
    std::optional<std::string> upper;
    if (c.max) {
      FLOE_ASSIGN_OR_RETURN(upper, ParquetBoundToIceberg(leaf, *field->type, *c.max));
      if (!upper) lower.reset();  // Java drops both bounds when either is NaN
    }
    if (!lower) continue;
    const TypeKind kind = field->type->kind();
    if (mode.kind == MetricsMode::Kind::kTruncate &&
        (kind == TypeKind::kString || kind == TypeKind::kBinary)) {
      // An inexact Parquet minimum is a prefix of the true one and an inexact maximum an
      // incremented prefix, so truncating them gives valid (never exact) bounds.
      FLOE_ASSIGN_OR_RETURN(Literal lo, Literal::FromBytes(field->type, *lower));
      FLOE_ASSIGN_OR_RETURN(*lower, TruncateLowerBound(lo, mode.length).ToBytes());
      if (upper) {
        FLOE_ASSIGN_OR_RETURN(Literal hi, Literal::FromBytes(field->type, *upper));
        std::optional<Literal> hi_t = TruncateUpperBound(hi, mode.length);
        if (hi_t) {
          FLOE_ASSIGN_OR_RETURN(*upper, hi_t->ToBytes());
        } else {
          upper.reset();
        }
      }
    }
    file->lower_bounds[id] = std::move(*lower);
    if (upper) file->upper_bounds[id] = std::move(*upper);
  }
  return Status::OK();
}

}  // namespace floe::iceberg
