// Automatic tags (Amoro's "auto-create-tags" action): once per period (daily or hourly) the
// table gets a tag on the first snapshot of main committed after the period's trigger time,
// named with the period that ended there, with the table's AutoTagConfig
// (optimizing_config.h).
//
// The trigger time of a period is its start (UTC) plus `trigger.offset.minutes`; the tag for
// the period before it is named `tag-format` applied to that earlier period's start
// ('tag-'yyyyMMdd: "tag-20261130" is created on 2026-12-01 on the first snapshot after
// 00:00 + offset). No tag when that name exists already, when no snapshot of main is newer
// than the trigger yet, or when the first one is more than `trigger.max-delay.minutes` after
// it (the tag would not show the period's end). `max-age-ms` > 0 becomes the tag's
// max-ref-age-ms, so snapshot expiry drops it when it is that old.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "floe/base/status.h"
#include "floe/iceberg/table.h"
#include "floe/optimize/optimizing_config.h"

namespace floe::optimize {

struct AutoTagResult {
  std::string tag;
  int64_t snapshot_id = 0;
  int64_t trigger_ms = 0;
};

// The trigger time of the newest period whose trigger is at or before `now_ms`.
int64_t TagTriggerMs(const AutoTagConfig& config, int64_t now_ms);

// The tag name for the period that ends at `trigger_ms` (a TagTriggerMs value).
// kInvalidArgument for a bad tag format.
Result<std::string> TagNameFor(const AutoTagConfig& config, int64_t trigger_ms);

// Creates the current period's tag when due (see above). nullopt when off or not due.
// Errors: a bad tag format; the commit's (a concurrent commit retries as usual).
Result<std::optional<AutoTagResult>> CreateAutoTag(iceberg::Table& table,
                                                   const AutoTagConfig& config, int64_t now_ms);

}  // namespace floe::optimize
