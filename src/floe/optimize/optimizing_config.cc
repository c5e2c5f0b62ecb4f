#include "floe/optimize/optimizing_config.h"

#include <cmath>
#include <string_view>

#include "floe/format/text/scalar.h"

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

  Status String(std::string_view key, std::string* out) {
    if (const std::string* value = Find(key)) *out = *value;
    return Status::OK();
  }

 private:
  const std::string* Find(std::string_view key) const {
    auto it = properties_.find(std::string(key));
    return it == properties_.end() ? nullptr : &it->second;
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
  FLOE_RETURN_IF_ERROR(
      r.Int32("self-optimizing.execute.num-retries", 0, &c.execute_num_retries));
  FLOE_RETURN_IF_ERROR(r.Bool("self-optimizing.allow-partial-commit", &c.allow_partial_commit));
  FLOE_RETURN_IF_ERROR(r.Int64("self-optimizing.target-size", 1, &c.target_size));
  FLOE_RETURN_IF_ERROR(r.Int64("self-optimizing.max-task-size-bytes", 1, &c.max_task_size));
  FLOE_RETURN_IF_ERROR(r.Int64("self-optimizing.fragment-ratio", 1, &c.fragment_ratio));
  FLOE_RETURN_IF_ERROR(
      r.Double("self-optimizing.min-target-size-ratio", 0, true, 1, &c.min_target_size_ratio));
  FLOE_RETURN_IF_ERROR(
      r.Int32("self-optimizing.minor.trigger.file-count", 0, &c.minor_trigger_file_count));
  // Negative intervals switch the interval trigger off, as in Amoro.
  FLOE_RETURN_IF_ERROR(r.Int64("self-optimizing.minor.trigger.interval", INT64_MIN,
                               &c.minor_trigger_interval_ms));
  FLOE_RETURN_IF_ERROR(r.Double("self-optimizing.major.trigger.duplicate-ratio", 0, false, kMax,
                                &c.major_duplicate_ratio));
  FLOE_RETURN_IF_ERROR(r.Int64("self-optimizing.full.trigger.interval", INT64_MIN,
                               &c.full_trigger_interval_ms));
  FLOE_RETURN_IF_ERROR(
      r.Bool("self-optimizing.full.rewrite-all-files", &c.full_rewrite_all_files));
  FLOE_RETURN_IF_ERROR(r.String("self-optimizing.filter", &c.filter));
  FLOE_RETURN_IF_ERROR(
      r.Int64("self-optimizing.min-plan-interval", 0, &c.min_plan_interval_ms));
  FLOE_RETURN_IF_ERROR(r.Int64("read.split.open-file-cost", 0, &c.open_file_cost));
  return c;
}

}  // namespace floe::optimize
