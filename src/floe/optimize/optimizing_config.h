// OptimizingConfig: a table's self-optimizing settings, read from its properties with
// Apache Amoro's keys and defaults (so an Amoro user's tables behave the same here):
//
//   self-optimizing.enabled                        true
//   self-optimizing.group                          local (Amoro: default; floe names its
//                                                  in-process group `local`)
//   self-optimizing.quota                          0.5   (> 1: threads; <= 1: share of the group)
//   self-optimizing.execute.num-retries            5
//   self-optimizing.allow-partial-commit           false
//   self-optimizing.target-size                    134217728 (128 MiB)
//   self-optimizing.max-task-size-bytes            134217728
//   self-optimizing.fragment-ratio                 8     (fragment: size <= target / 8)
//   self-optimizing.min-target-size-ratio          0.75  (undersized: size <= target * 0.75)
//   self-optimizing.minor.trigger.file-count       12
//   self-optimizing.minor.trigger.interval         3600000 ms
//   self-optimizing.major.trigger.duplicate-ratio  0.1
//   self-optimizing.full.trigger.interval          -1 ms (off)
//   self-optimizing.full.rewrite-all-files         true
//   self-optimizing.filter                         (none; a predicate on the table's columns)
//   self-optimizing.min-plan-interval              60000 ms
//   read.split.open-file-cost                      4194304 (a file's fixed cost in planning)
//
// floe's addition:
//   self-optimizing.memory-budget-mb               0     (a task's memory for equality-delete
//                                                  keys and sorting; 0: the optimizer's
//                                                  --memory-mb per thread, else 1024)
//   self-optimizing.eq-delete.max-age-ms           -1    (off; >= 0: every equality-delete
//                                                  file is converted to position deletes /
//                                                  deletion vectors within this many ms of
//                                                  its commit, data files kept: planner.h's
//                                                  PlanEqualityDeleteConversion)
//
// A value that does not parse, or is out of range, is an error naming the key: the table's
// optimizing status then shows it instead of silently using a default.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>

#include "floe/base/status.h"

namespace floe::optimize {

struct OptimizingConfig {
  bool enabled = true;
  std::string group = "local";
  double quota = 0.5;
  int32_t execute_num_retries = 5;
  bool allow_partial_commit = false;
  int64_t target_size = 134217728;
  int64_t max_task_size = 134217728;
  int64_t fragment_ratio = 8;
  double min_target_size_ratio = 0.75;
  int32_t minor_trigger_file_count = 12;
  int64_t minor_trigger_interval_ms = 3600000;
  double major_duplicate_ratio = 0.1;
  int64_t full_trigger_interval_ms = -1;
  bool full_rewrite_all_files = true;
  std::string filter;
  int64_t min_plan_interval_ms = 60000;
  int64_t open_file_cost = 4194304;
  int64_t memory_budget_mb = 0;
  int64_t eq_delete_max_age_ms = -1;

  // self-optimizing.eq-delete.max-age-ms is set: equality deletes are converted on their own.
  bool converts_equality_deletes() const { return eq_delete_max_age_ms >= 0; }

  // Files at most this size are fragments.
  int64_t fragment_size() const { return target_size / fragment_ratio; }
  // Files above fragment_size() and at most this size are undersized segments.
  int64_t min_target_size() const {
    return static_cast<int64_t>(static_cast<double>(target_size) * min_target_size_ratio);
  }
  // A task's input bound: Amoro packs to max(target-size, max-task-size-bytes).
  int64_t task_size() const { return std::max(target_size, max_task_size); }

  // Reads the keys above from table properties; absent keys keep their defaults.
  // kInvalidArgument naming the key for a value that does not parse or is out of range.
  static Result<OptimizingConfig> FromProperties(
      const std::map<std::string, std::string>& properties);
};

// A table's maintenance settings, with Amoro's keys and defaults:
//
//   table-expire.enabled       true    expire old snapshots (needs gc.enabled)
//   snapshot.keep.duration     720min  snapshots newer than this stay
//   snapshot.keep.min-count    1       the newest N snapshots of main stay (at least 1)
//   gc.enabled                 true    (Iceberg's) false: never delete files, so no expiry
//   clean-orphan-file.enabled  false   delete unreferenced files under data/ and metadata/
//   clean-orphan-file.min-existing-time-minutes  2880  ... only when older than this
//   clean-dangling-delete-files.enabled          true  drop delete files that apply to nothing
//
// and floe's additions that keep a managed table's metadata bounded (docs/self-optimizing.md):
//
//   snapshot.keep.max-count    100     main's snapshots beyond the newest N expire whatever
//                                      their age (0: no count bound; never below min-count)
//   write.metadata.delete-after-commit.enabled  true  (Iceberg's key; Iceberg's default is
//                                      false) metadata files the metadata log no longer lists
//                                      are deleted by maintenance
//   rewrite-manifests.enabled  true    rewrite a snapshot's small manifests
//   rewrite-manifests.max-small-count  16  ... when more than this many of one content are
//                                      under half of commit.manifest.target-size-bytes
//
// Durations are a number and a unit (ms, s, min, h, d; no unit: milliseconds), as Amoro
// reads them. Errors as for OptimizingConfig.
struct MaintenanceConfig {
  bool expire_enabled = true;
  int64_t snapshot_keep_ms = 720LL * 60 * 1000;
  int32_t snapshot_keep_min_count = 1;
  bool gc_enabled = true;
  // clean-orphan-file.enabled, clean-orphan-file.min-existing-time-minutes (2 days): files
  // under the table's data and metadata directories that no metadata references, older than
  // the minimum age by modification time.
  bool orphan_cleaning_enabled = false;
  int64_t orphan_min_age_ms = 2880LL * 60 * 1000;
  // clean-dangling-delete-files.enabled: delete files that apply to no live data file.
  bool dangling_delete_cleaning_enabled = true;
  int32_t snapshot_keep_max_count = 100;
  bool delete_old_metadata = true;
  bool rewrite_manifests_enabled = true;
  int32_t rewrite_manifests_max_small_count = 16;

  static Result<MaintenanceConfig> FromProperties(
      const std::map<std::string, std::string>& properties);
};

// A table's data expiration settings (Amoro's "expire-data" action), with Amoro's keys and
// defaults:
//
//   data-expire.enabled                  false
//   data-expire.field                    (none; required when enabled) a timestamp,
//                                        timestamptz, long, string or date column
//   data-expire.level                    partition   partition | file
//   data-expire.retention-time           (none; required when enabled) a duration
//   data-expire.datetime-string-pattern  yyyy-MM-dd  how a string field holds its time
//   data-expire.datetime-number-format   TIMESTAMP_MS  TIMESTAMP_MS | TIMESTAMP_S (long field)
//   data-expire.base-on-rule             LAST_COMMIT_TIME  LAST_COMMIT_TIME | CURRENT_TIME
//
// Enum values are matched without regard to case, as Amoro does. Errors as for
// OptimizingConfig; whether the field exists and has a usable type is checked against the
// schema when expiry runs (data_expiration.h).
struct DataExpirationConfig {
  enum class Level { kPartition, kFile };
  enum class BaseOn { kLastCommitTime, kCurrentTime };

  bool enabled = false;
  std::string field;
  Level level = Level::kPartition;
  int64_t retention_ms = 0;  // 0: not set
  std::string datetime_string_pattern = "yyyy-MM-dd";
  bool number_in_seconds = false;  // datetime-number-format TIMESTAMP_S
  BaseOn base_on = BaseOn::kLastCommitTime;

  static Result<DataExpirationConfig> FromProperties(
      const std::map<std::string, std::string>& properties);
};

// A table's automatic tag settings (Amoro's "auto-create-tags" action), with Amoro's keys and
// defaults:
//
//   tag.auto-create.enabled                    false
//   tag.auto-create.trigger.period             daily   daily | hourly | monthly (UTC months)
//   tag.auto-create.trigger.offset.minutes     0       the period's trigger is its start + this
//   tag.auto-create.trigger.max-delay.minutes  60      no tag when the first snapshot after the
//                                                      trigger is later than this (<= 0: no limit)
//   tag.auto-create.tag-format                 'tag-'yyyyMMdd (daily), 'tag-'yyyyMMddHH (hourly),
//                                              'tag-'yyyyMM (monthly)
//   tag.auto-create.max-age-ms                 -1      the tag's max-ref-age-ms (<= 0: kept)
struct AutoTagConfig {
  enum class Period { kDaily, kHourly, kMonthly };

  bool enabled = false;
  Period period = Period::kDaily;
  int64_t offset_minutes = 0;
  int64_t max_delay_minutes = 60;
  std::string tag_format;  // the period's default when the property is absent
  int64_t max_age_ms = -1;

  // The period's length; for months the shortest one (28 days), which bounds the offset.
  int64_t period_ms() const {
    return period == Period::kDaily    ? 86'400'000
           : period == Period::kHourly ? 3'600'000
                                       : int64_t{28} * 86'400'000;
  }

  static Result<AutoTagConfig> FromProperties(const std::map<std::string, std::string>& properties);
};

// "720min", "12h", "30 s", "1500" (ms), ... to milliseconds; kInvalidArgument otherwise.
Result<int64_t> ParseDurationMs(std::string_view text);

}  // namespace floe::optimize
