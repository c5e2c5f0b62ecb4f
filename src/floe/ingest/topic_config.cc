#include "floe/ingest/topic_config.h"

#include <algorithm>
#include <charconv>

#include "floe/base/macros.h"

namespace floe::ingest {

namespace {

constexpr std::string_view kPrefix = "floe.table.topic.";

std::string_view Trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

Result<bool> ParseBool(const std::string& key, std::string_view v) {
  if (v == "true") return true;
  if (v == "false") return false;
  return Status::InvalidArgument("{}{}: '{}' is not a boolean", kPrefix, key, v);
}

Result<ConvertType> ParseConvert(const std::string& key, std::string_view v) {
  if (v == "raw") return ConvertType::kRaw;
  if (v == "string") return ConvertType::kString;
  if (v == "json") return ConvertType::kJson;
  if (v == "by_schema_id") return ConvertType::kBySchemaId;
  if (v == "by_latest_schema") return ConvertType::kByLatestSchema;
  return Status::InvalidArgument(
      "{}{}: '{}' is not one of raw, string, json, by_schema_id, by_latest_schema", kPrefix, key,
      v);
}

bool ValidColumnName(std::string_view s) {
  if (s.empty()) return false;
  for (char c : s) {
    bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
              c == '_' || c == '-' || c == '.';
    if (!ok) return false;
  }
  return true;
}

Result<PartitionByField> ParsePartitionBy(std::string_view entry) {
  PartitionByField f;
  size_t open = entry.find('(');
  if (open == std::string_view::npos) {
    if (!ValidColumnName(entry)) {
      return Status::InvalidArgument("{}partition.by: bad column name '{}'", kPrefix, entry);
    }
    f.transform = "identity";
    f.column = std::string(entry);
    return f;
  }
  if (entry.back() != ')') {
    return Status::InvalidArgument("{}partition.by: '{}' lacks a closing ')'", kPrefix, entry);
  }
  f.transform = std::string(Trim(entry.substr(0, open)));
  std::string_view args = entry.substr(open + 1, entry.size() - open - 2);
  std::string_view column = args;
  std::optional<std::string_view> argument;
  if (size_t comma = args.find(','); comma != std::string_view::npos) {
    column = args.substr(0, comma);
    argument = Trim(args.substr(comma + 1));
  }
  column = Trim(column);
  if (!ValidColumnName(column)) {
    return Status::InvalidArgument("{}partition.by: bad column name '{}' in '{}'", kPrefix, column,
                                   entry);
  }
  f.column = std::string(column);
  const bool takes_argument = f.transform == "bucket" || f.transform == "truncate";
  if (f.transform != "year" && f.transform != "month" && f.transform != "day" &&
      f.transform != "hour" && f.transform != "identity" && !takes_argument) {
    return Status::InvalidArgument(
        "{}partition.by: unknown transform '{}' (identity, year, month, day, hour, bucket, "
        "truncate)",
        kPrefix, f.transform);
  }
  if (takes_argument != argument.has_value()) {
    return Status::InvalidArgument("{}partition.by: '{}' {} an argument", kPrefix, entry,
                                   takes_argument ? "needs" : "takes no");
  }
  if (argument) {
    auto [p, ec] =
        std::from_chars(argument->data(), argument->data() + argument->size(), f.argument);
    if (ec != std::errc() || p != argument->data() + argument->size() || f.argument <= 0) {
      return Status::InvalidArgument("{}partition.by: '{}' needs a positive integer argument",
                                     kPrefix, entry);
    }
  }
  return f;
}

}  // namespace

std::vector<std::string> SplitListConfig(std::string_view value) {
  value = Trim(value);
  if (value.size() >= 2 && value.front() == '[' && value.back() == ']') {
    value = value.substr(1, value.size() - 2);
  }
  std::vector<std::string> out;
  int depth = 0;
  size_t start = 0;
  for (size_t i = 0; i <= value.size(); ++i) {
    if (i == value.size() || (value[i] == ',' && depth == 0)) {
      std::string_view part = Trim(value.substr(start, i - start));
      if (!part.empty()) out.emplace_back(part);
      start = i + 1;
    } else if (value[i] == '(') {
      ++depth;
    } else if (value[i] == ')') {
      --depth;
    }
  }
  return out;
}

Result<TableTopicConfig> ParseTableTopicConfig(const std::map<std::string, std::string>& configs) {
  TableTopicConfig c;
  for (const auto& [name, value] : configs) {
    if (!name.starts_with(kPrefix)) continue;
    const std::string key = name.substr(kPrefix.size());
    if (key == "enable") {
      FLOE_ASSIGN_OR_RETURN(c.enabled, ParseBool(key, value));
    } else if (key == "commit.interval.ms") {
      auto [p, ec] =
          std::from_chars(value.data(), value.data() + value.size(), c.commit_interval_ms);
      if (ec != std::errc() || p != value.data() + value.size()) {
        return Status::InvalidArgument("{}{}: '{}' is not an integer", kPrefix, key, value);
      }
      if (c.commit_interval_ms < kMinCommitIntervalMs) {
        return Status::InvalidArgument("{}{} must be at least {}", kPrefix, key,
                                       kMinCommitIntervalMs);
      }
    } else if (key == "namespace") {
      c.table_namespace = value;
    } else if (key == "convert.value.type") {
      FLOE_ASSIGN_OR_RETURN(c.value_type, ParseConvert(key, value));
    } else if (key == "convert.key.type") {
      FLOE_ASSIGN_OR_RETURN(c.key_type, ParseConvert(key, value));
      if (c.key_type == ConvertType::kJson) {
        return Status::InvalidArgument("{}{}: keys are stored as raw or string", kPrefix, key);
      }
      // Registry-encoded keys are kept as their bytes in _kafka.key (docs/table-topics.md).
      if (c.key_type == ConvertType::kBySchemaId || c.key_type == ConvertType::kByLatestSchema) {
        c.key_registry = c.key_type;
        c.key_type = ConvertType::kRaw;
      }
    } else if (key == "transform.value.type") {
      if (value == "none") {
        c.transform = TransformType::kNone;
      } else if (value == "flatten") {
        c.transform = TransformType::kFlatten;
      } else if (value == "flatten_debezium") {
        c.transform = TransformType::kFlattenDebezium;
      } else {
        return Status::InvalidArgument("{}{}: '{}' is not one of none, flatten, flatten_debezium",
                                       kPrefix, key, value);
      }
    } else if (key == "id.columns") {
      c.id_columns = SplitListConfig(value);
      for (const std::string& col : c.id_columns) {
        if (!ValidColumnName(col)) {
          return Status::InvalidArgument("{}{}: bad column name '{}'", kPrefix, key, col);
        }
      }
    } else if (key == "upsert.enable") {
      FLOE_ASSIGN_OR_RETURN(c.upsert, ParseBool(key, value));
    } else if (key == "cdc.field") {
      c.cdc_field = std::string(Trim(value));
    } else if (key == "partition.by") {
      for (const std::string& entry : SplitListConfig(value)) {
        FLOE_ASSIGN_OR_RETURN(PartitionByField f, ParsePartitionBy(entry));
        c.partition_by.push_back(std::move(f));
      }
    } else if (key == "delete.mode") {
      if (value == "position") {
        c.delete_mode = DeleteMode::kPosition;
      } else if (value == "equality") {
        c.delete_mode = DeleteMode::kEquality;
      } else {
        return Status::InvalidArgument("{}{}: '{}' is not one of position, equality", kPrefix, key,
                                       value);
      }
    } else if (key == "format.version") {
      if (value == "2") {
        c.format_version = 2;
      } else if (value == "3") {
        c.format_version = 3;
      } else {
        return Status::InvalidArgument("{}{}: '{}' is not 2 or 3", kPrefix, key, value);
      }
    } else if (key == "errors.tolerance") {
      if (value == "none") {
        c.errors_tolerance = ErrorsTolerance::kNone;
      } else if (value == "invalid_data") {
        c.errors_tolerance = ErrorsTolerance::kInvalidData;
      } else if (value == "all") {
        c.errors_tolerance = ErrorsTolerance::kAll;
      } else {
        return Status::InvalidArgument("{}{}: '{}' is not one of none, invalid_data, all", kPrefix,
                                       key, value);
      }
    } else if (key == "value.validation" || key == "key.validation" ||
               key == "value.subject.name.strategy" || key == "key.subject.name.strategy") {
      // Produce-time schema validation: parsed by ingest/schema_validation.h.
    } else {
      return Status::InvalidArgument("unknown table topic config '{}'", name);
    }
  }
  // Cross-key rules: columns only exist for structured values.
  const bool structured = c.value_type == ConvertType::kJson || c.registry();
  if (c.transform != TransformType::kNone && !structured) {
    return Status::InvalidArgument(
        "{}transform.value.type: flatten and flatten_debezium need convert.value.type json, "
        "by_schema_id or by_latest_schema",
        kPrefix);
  }
  if ((c.upsert || !c.cdc_field.empty()) && c.id_columns.empty()) {
    return Status::InvalidArgument("{}upsert.enable and {}cdc.field need {}id.columns", kPrefix,
                                   kPrefix, kPrefix);
  }
  if (c.keyed() && c.transform == TransformType::kNone) {
    return Status::InvalidArgument(
        "{}id.columns name top-level columns: upserts and CDC need transform.value.type flatten "
        "or flatten_debezium",
        kPrefix);
  }
  if (c.keyed() && c.id_columns.empty()) {
    return Status::InvalidArgument("{}transform.value.type flatten_debezium needs {}id.columns",
                                   kPrefix, kPrefix);
  }
  if (c.keyed()) {
    // Equality deletes of a key must meet its rows: a key's rows stay in one partition when
    // every partition source is an id column (Flink's rule for upsert tables).
    for (const PartitionByField& f : c.partition_by) {
      if (std::find(c.id_columns.begin(), c.id_columns.end(), f.column) == c.id_columns.end()) {
        return Status::InvalidArgument(
            "{}partition.by column '{}' must be one of {}id.columns for upserts and CDC", kPrefix,
            f.column, kPrefix);
      }
    }
  }
  if (!c.partition_by.empty() && c.transform == TransformType::kNone) {
    return Status::InvalidArgument(
        "{}partition.by names value columns: it needs transform.value.type flatten or "
        "flatten_debezium",
        kPrefix);
  }
  return c;
}

std::optional<std::string> ValidateTableTopicConfigs(
    const std::map<std::string, std::string>& configs) {
  Result<TableTopicConfig> parsed = ParseTableTopicConfig(configs);
  if (parsed.ok()) return std::nullopt;
  return std::string(parsed.error().message());
}

}  // namespace floe::ingest
