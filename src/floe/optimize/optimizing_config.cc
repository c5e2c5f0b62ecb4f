#include "floe/optimize/optimizing_config.h"

#include <cctype>
#include <climits>
#include <cmath>
#include <cstdint>
#include <initializer_list>
#include <limits>
#include <string_view>

#include "floe/format/text/scalar.h"
#include "floe/optimize/datetime_pattern.h"

namespace floe::optimize {

namespace {

// Reads one property into `out` when present. `check` names the accepted range for the
// error message; nullptr accepts every parsed value.
class PropertyReader {
 public:
  explicit PropertyReader(const std::map<std::string, std::string>& properties)
      : properties_(properties) {}

  Status Bool(std::string_view key, bool* out) {
    const std::string* value = Find(key);
    if (value == nullptr) return Status::OK();
    if (const char* expected = format::text::ParseBool(*value, out)) {
      return Bad(key, *value, expected);
    }
    return Status::OK();
  }

  Status Int64(std::string_view key, int64_t min, int64_t* out) {
    const std::string* value = Find(key);
    if (value == nullptr) return Status::OK();
    if (const char* expected = format::text::ParseInt64(*value, out)) {
      return Bad(key, *value, expected);
    }
    if (*out < min) return Bad(key, *value, fmt::format("an integer >= {}", min));
    return Status::OK();
  }

  Status Int32(std::string_view key, int32_t min, int32_t* out) {
    const std::string* value = Find(key);
    if (value == nullptr) return Status::OK();
    if (const char* expected = format::text::ParseInt32(*value, out)) {
      return Bad(key, *value, expected);
    }
    if (*out < min) return Bad(key, *value, fmt::format("an integer >= {}", min));
    return Status::OK();
  }

  // A finite number in (min, max] (min exclusive when `min_exclusive`).
  Status Double(std::string_view key, double min, bool min_exclusive, double max, double* out) {
    const std::string* value = Find(key);
    if (value == nullptr) return Status::OK();
    if (const char* expected = format::text::ParseFloat64(*value, out)) {
      return Bad(key, *value, expected);
    }
    bool above_min = min_exclusive ? *out > min : *out >= min;
    if (!std::isfinite(*out) || !above_min || *out > max) {
      return Bad(key, *value,
                 fmt::format("a number {} {} and <= {}", min_exclusive ? ">" : ">=", min, max));
    }
    return Status::OK();
  }

  Status DurationMs(std::string_view key, int64_t* out) {
    const std::string* value = Find(key);
    if (value == nullptr) return Status::OK();
    auto ms = ParseDurationMs(*value);
    if (!ms.ok()) return Bad(key, *value, "a duration such as 720min, 12h or 30s");
    *out = *ms;
    return Status::OK();
  }

  // One of `choices` (compared without regard to case); its index into `out`.
  Status Choice(std::string_view key, std::initializer_list<std::string_view> choices,
                size_t* out) {
    const std::string* value = Find(key);
    if (value == nullptr) return Status::OK();
    size_t i = 0;
    for (std::string_view choice : choices) {
      if (EqualsIgnoreCase(*value, choice)) {
        *out = i;
        return Status::OK();
      }
      ++i;
    }
    std::string expected = "one of";
    for (std::string_view choice : choices) expected += fmt::format(" {}", choice);
    return Bad(key, *value, expected);
  }

  Status String(std::string_view key, std::string* out) {
    if (const std::string* value = Find(key)) *out = *value;
    return Status::OK();
  }

 private:
  const std::string* Find(std::string_view key) const {
    auto it = properties_.find(std::string(key));
    return it == properties_.end() ? nullptr : &it->second;
  }
  static bool EqualsIgnoreCase(std::string_view a, std::string_view b) {
    if (a.size() != b.size()) return false;
    for (size_t i = 0; i < a.size(); ++i) {
      if (std::tolower(static_cast<unsigned char>(a[i])) !=
          std::tolower(static_cast<unsigned char>(b[i]))) {
        return false;
      }
    }
    return true;
  }
  static Status Bad(std::string_view key, std::string_view value, std::string_view expected) {
    return Status::InvalidArgument("table property {}: '{}' is not {}", key, value, expected);
  }

  const std::map<std::string, std::string>& properties_;
};

}  // namespace

Result<OptimizingConfig> OptimizingConfig::FromProperties(
    const std::map<std::string, std::string>& properties) {
  OptimizingConfig c;
  PropertyReader r(properties);
  constexpr double kMax = 1e300;
  FLOE_RETURN_IF_ERROR(r.Bool("self-optimizing.enabled", &c.enabled));
  FLOE_RETURN_IF_ERROR(r.String("self-optimizing.group", &c.group));
  FLOE_RETURN_IF_ERROR(r.Double("self-optimizing.quota", 0, true, kMax, &c.quota));
  FLOE_RETURN_IF_ERROR(r.Int32("self-optimizing.execute.num-retries", 0, &c.execute_num_retries));
  FLOE_RETURN_IF_ERROR(r.Bool("self-optimizing.allow-partial-commit", &c.allow_partial_commit));
  FLOE_RETURN_IF_ERROR(r.Int64("self-optimizing.target-size", 1, &c.target_size));
  FLOE_RETURN_IF_ERROR(r.Int64("self-optimizing.max-task-size-bytes", 1, &c.max_task_size));
  FLOE_RETURN_IF_ERROR(r.Int64("self-optimizing.fragment-ratio", 1, &c.fragment_ratio));
  FLOE_RETURN_IF_ERROR(
      r.Double("self-optimizing.min-target-size-ratio", 0, true, 1, &c.min_target_size_ratio));
  FLOE_RETURN_IF_ERROR(
      r.Int32("self-optimizing.minor.trigger.file-count", 0, &c.minor_trigger_file_count));
  // Negative intervals switch the interval trigger off, as in Amoro.
  FLOE_RETURN_IF_ERROR(
      r.Int64("self-optimizing.minor.trigger.interval", INT64_MIN, &c.minor_trigger_interval_ms));
  FLOE_RETURN_IF_ERROR(r.Double("self-optimizing.major.trigger.duplicate-ratio", 0, false, kMax,
                                &c.major_duplicate_ratio));
  FLOE_RETURN_IF_ERROR(
      r.Int64("self-optimizing.full.trigger.interval", INT64_MIN, &c.full_trigger_interval_ms));
  FLOE_RETURN_IF_ERROR(r.Bool("self-optimizing.full.rewrite-all-files", &c.full_rewrite_all_files));
  FLOE_RETURN_IF_ERROR(r.String("self-optimizing.filter", &c.filter));
  FLOE_RETURN_IF_ERROR(r.Int64("self-optimizing.min-plan-interval", 0, &c.min_plan_interval_ms));
  FLOE_RETURN_IF_ERROR(r.Int64("read.split.open-file-cost", 0, &c.open_file_cost));
  FLOE_RETURN_IF_ERROR(r.Int64("self-optimizing.memory-budget-mb", 0, &c.memory_budget_mb));
  // -1 (the default) is off; any other negative value is a typo, not a way to switch it off.
  FLOE_RETURN_IF_ERROR(
      r.Int64("self-optimizing.eq-delete.max-age-ms", -1, &c.eq_delete_max_age_ms));
  return c;
}

Result<int64_t> ParseDurationMs(std::string_view text) {
  auto trim = [](std::string_view v) {
    while (!v.empty() && std::isspace(static_cast<unsigned char>(v.front()))) v.remove_prefix(1);
    while (!v.empty() && std::isspace(static_cast<unsigned char>(v.back()))) v.remove_suffix(1);
    return v;
  };
  text = trim(text);
  size_t digits = 0;
  while (digits < text.size() && std::isdigit(static_cast<unsigned char>(text[digits]))) {
    ++digits;
  }
  int64_t number = 0;
  if (digits == 0 || digits > 18 ||
      format::text::ParseInt64(text.substr(0, digits), &number) != nullptr) {
    return Status::InvalidArgument("'{}' is not a duration", text);
  }
  std::string unit(trim(text.substr(digits)));
  for (char& c : unit) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  struct Unit {
    std::string_view name;
    int64_t ms;
  };
  static constexpr Unit kUnits[] = {{"", 1},
                                    {"ms", 1},
                                    {"milli", 1},
                                    {"millis", 1},
                                    {"millisecond", 1},
                                    {"milliseconds", 1},
                                    {"s", 1000},
                                    {"sec", 1000},
                                    {"secs", 1000},
                                    {"second", 1000},
                                    {"seconds", 1000},
                                    {"m", 60'000},
                                    {"min", 60'000},
                                    {"mins", 60'000},
                                    {"minute", 60'000},
                                    {"minutes", 60'000},
                                    {"h", 3'600'000},
                                    {"hour", 3'600'000},
                                    {"hours", 3'600'000},
                                    {"d", 86'400'000},
                                    {"day", 86'400'000},
                                    {"days", 86'400'000}};
  for (const Unit& u : kUnits) {
    if (unit != u.name) continue;
    if (number > INT64_MAX / u.ms) return Status::InvalidArgument("'{}' is too long", text);
    return number * u.ms;
  }
  return Status::InvalidArgument("'{}' has an unknown time unit", text);
}

Result<MaintenanceConfig> MaintenanceConfig::FromProperties(
    const std::map<std::string, std::string>& properties) {
  MaintenanceConfig c;
  PropertyReader r(properties);
  FLOE_RETURN_IF_ERROR(r.Bool("table-expire.enabled", &c.expire_enabled));
  FLOE_RETURN_IF_ERROR(r.DurationMs("snapshot.keep.duration", &c.snapshot_keep_ms));
  FLOE_RETURN_IF_ERROR(r.Int32("snapshot.keep.min-count", 0, &c.snapshot_keep_min_count));
  FLOE_RETURN_IF_ERROR(r.Bool("gc.enabled", &c.gc_enabled));
  FLOE_RETURN_IF_ERROR(r.Bool("clean-orphan-file.enabled", &c.orphan_cleaning_enabled));
  int64_t orphan_minutes = c.orphan_min_age_ms / 60'000;
  FLOE_RETURN_IF_ERROR(r.Int64("clean-orphan-file.min-existing-time-minutes", 0, &orphan_minutes));
  if (orphan_minutes > std::numeric_limits<int64_t>::max() / 60'000) {
    return Status::InvalidArgument("clean-orphan-file.min-existing-time-minutes is too large");
  }
  c.orphan_min_age_ms = orphan_minutes * 60'000;
  FLOE_RETURN_IF_ERROR(
      r.Bool("clean-dangling-delete-files.enabled", &c.dangling_delete_cleaning_enabled));
  FLOE_RETURN_IF_ERROR(r.Int32("snapshot.keep.max-count", 0, &c.snapshot_keep_max_count));
  // An Iceberg key: Java reads it with Boolean.parseBoolean (anything but "true" is false),
  // so no value of it makes the maintenance settings invalid.
  if (auto it = properties.find("write.metadata.delete-after-commit.enabled");
      it != properties.end()) {
    std::string v = it->second;
    for (char& ch : v) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
    c.delete_old_metadata = v == "true";
  }
  FLOE_RETURN_IF_ERROR(r.Bool("rewrite-manifests.enabled", &c.rewrite_manifests_enabled));
  FLOE_RETURN_IF_ERROR(
      r.Int32("rewrite-manifests.max-small-count", 1, &c.rewrite_manifests_max_small_count));
  return c;
}

Result<DataExpirationConfig> DataExpirationConfig::FromProperties(
    const std::map<std::string, std::string>& properties) {
  DataExpirationConfig c;
  PropertyReader r(properties);
  FLOE_RETURN_IF_ERROR(r.Bool("data-expire.enabled", &c.enabled));
  FLOE_RETURN_IF_ERROR(r.String("data-expire.field", &c.field));
  size_t level = 0;
  FLOE_RETURN_IF_ERROR(r.Choice("data-expire.level", {"partition", "file"}, &level));
  c.level = level == 0 ? Level::kPartition : Level::kFile;
  FLOE_RETURN_IF_ERROR(r.DurationMs("data-expire.retention-time", &c.retention_ms));
  FLOE_RETURN_IF_ERROR(r.String("data-expire.datetime-string-pattern", &c.datetime_string_pattern));
  size_t number = 0;
  FLOE_RETURN_IF_ERROR(
      r.Choice("data-expire.datetime-number-format", {"TIMESTAMP_MS", "TIMESTAMP_S"}, &number));
  c.number_in_seconds = number == 1;
  size_t base = 0;
  FLOE_RETURN_IF_ERROR(
      r.Choice("data-expire.base-on-rule", {"LAST_COMMIT_TIME", "CURRENT_TIME"}, &base));
  c.base_on = base == 0 ? BaseOn::kLastCommitTime : BaseOn::kCurrentTime;
  if (auto pattern = DateTimePattern::Make(c.datetime_string_pattern); !pattern.ok()) {
    return Status::InvalidArgument("table property data-expire.datetime-string-pattern: {}",
                                   pattern.status().message());
  }
  if (c.enabled && c.field.empty()) {
    return Status::InvalidArgument(
        "table property data-expire.field must name a column when "
        "data-expire.enabled is true");
  }
  if (c.enabled && c.retention_ms <= 0) {
    return Status::InvalidArgument(
        "table property data-expire.retention-time must be a "
        "positive duration when data-expire.enabled is true");
  }
  return c;
}

Result<AutoTagConfig> AutoTagConfig::FromProperties(
    const std::map<std::string, std::string>& properties) {
  AutoTagConfig c;
  PropertyReader r(properties);
  FLOE_RETURN_IF_ERROR(r.Bool("tag.auto-create.enabled", &c.enabled));
  size_t period = 0;
  FLOE_RETURN_IF_ERROR(
      r.Choice("tag.auto-create.trigger.period", {"daily", "hourly", "monthly"}, &period));
  c.period = period == 0 ? Period::kDaily : period == 1 ? Period::kHourly : Period::kMonthly;
  FLOE_RETURN_IF_ERROR(r.Int64("tag.auto-create.trigger.offset.minutes", 0, &c.offset_minutes));
  if (c.offset_minutes >= c.period_ms() / 60'000) {
    return Status::InvalidArgument(
        "table property tag.auto-create.trigger.offset.minutes: {} is not shorter than the "
        "trigger period",
        c.offset_minutes);
  }
  FLOE_RETURN_IF_ERROR(
      r.Int64("tag.auto-create.trigger.max-delay.minutes", INT32_MIN, &c.max_delay_minutes));
  if (c.max_delay_minutes > INT32_MAX) {
    return Status::InvalidArgument(
        "table property tag.auto-create.trigger.max-delay.minutes "
        "is too large");
  }
  c.tag_format = c.period == Period::kDaily    ? "'tag-'yyyyMMdd"
                 : c.period == Period::kHourly ? "'tag-'yyyyMMddHH"
                                               : "'tag-'yyyyMM";
  FLOE_RETURN_IF_ERROR(r.String("tag.auto-create.tag-format", &c.tag_format));
  if (auto pattern = DateTimePattern::Make(c.tag_format); !pattern.ok()) {
    return Status::InvalidArgument("table property tag.auto-create.tag-format: {}",
                                   pattern.status().message());
  }
  FLOE_RETURN_IF_ERROR(r.Int64("tag.auto-create.max-age-ms", INT64_MIN, &c.max_age_ms));
  return c;
}

}  // namespace floe::optimize
