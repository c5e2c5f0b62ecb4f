#include "floe/optimize/auto_tag.h"

#include <chrono>

#include "floe/iceberg/metadata_updates.h"
#include "floe/optimize/datetime_pattern.h"

namespace floe::optimize {

namespace {

int64_t FloorDiv(int64_t a, int64_t b) {
  int64_t q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0))) --q;
  return q;
}

// The start (00:00 UTC on the 1st) of the calendar month holding `ms`.
int64_t MonthStartMs(int64_t ms) {
  using namespace std::chrono;
  const year_month_day day{floor<days>(sys_time<milliseconds>(milliseconds(ms)))};
  const sys_days first{day.year() / day.month() / 1};
  return duration_cast<milliseconds>(first.time_since_epoch()).count();
}

}  // namespace

int64_t TagTriggerMs(const AutoTagConfig& config, int64_t now_ms) {
  const int64_t offset = config.offset_minutes * 60'000;
  if (config.period == AutoTagConfig::Period::kMonthly) {
    return MonthStartMs(now_ms - offset) + offset;
  }
  const int64_t period = config.period_ms();
  return FloorDiv(now_ms - offset, period) * period + offset;
}

Result<std::string> TagNameFor(const AutoTagConfig& config, int64_t trigger_ms) {
  FLOE_ASSIGN_OR_RETURN(DateTimePattern pattern, DateTimePattern::Make(config.tag_format));
  // The tag names the period that ended at the trigger.
  const int64_t period_end = trigger_ms - config.offset_minutes * 60'000;
  if (config.period == AutoTagConfig::Period::kMonthly) {
    return pattern.Format(MonthStartMs(period_end - 1));
  }
  return pattern.Format(period_end - config.period_ms());
}

Result<std::optional<AutoTagResult>> CreateAutoTag(iceberg::Table& table,
                                                   const AutoTagConfig& config, int64_t now_ms) {
  using Outcome = std::optional<AutoTagResult>;
  if (!config.enabled) return Outcome{};
  AutoTagResult result;
  result.trigger_ms = TagTriggerMs(config, now_ms);
  FLOE_ASSIGN_OR_RETURN(result.tag, TagNameFor(config, result.trigger_ms));
  iceberg::TableMetadataPtr metadata = table.metadata();
  // A branch of that name blocks the tag as well: refs share one namespace.
  if (metadata->refs.contains(result.tag)) return Outcome{};

  // The oldest snapshot of main's history after the trigger: walk back from the head while
  // snapshots are newer than the trigger.
  const iceberg::Snapshot* first_after = nullptr;
  for (const iceberg::Snapshot* s = metadata->current_snapshot();
       s != nullptr && s->timestamp_ms > result.trigger_ms;
       s = s->parent_snapshot_id ? metadata->snapshot_by_id(*s->parent_snapshot_id) : nullptr) {
    first_after = s;
  }
  if (first_after == nullptr) return Outcome{};
  if (config.max_delay_minutes > 0 &&
      first_after->timestamp_ms - result.trigger_ms > config.max_delay_minutes * 60'000) {
    return Outcome{};
  }
  result.snapshot_id = first_after->snapshot_id;
  std::unique_ptr<iceberg::ManageSnapshots> manage = table.NewManageSnapshots();
  manage->CreateTag(result.tag, result.snapshot_id);
  if (config.max_age_ms > 0) manage->SetMaxRefAgeMs(result.tag, config.max_age_ms);
  FLOE_RETURN_IF_ERROR(manage->Commit());
  return Outcome(std::move(result));
}

}  // namespace floe::optimize
