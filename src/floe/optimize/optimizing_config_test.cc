#include "floe/optimize/optimizing_config.h"

#include "floe/base/testing.h"
#include "floe/optimize/maintenance.h"

#include <gtest/gtest.h>

namespace floe::optimize {
namespace {

// Amoro's defaults (TableProperties.java).
TEST(OptimizingConfig, DefaultsAreAmoros) {
  auto c = OptimizingConfig::FromProperties({});
  FLOE_ASSERT_OK(c);
  EXPECT_TRUE(c->enabled);
  EXPECT_EQ(c->group, "local");
  EXPECT_DOUBLE_EQ(c->quota, 0.5);
  EXPECT_EQ(c->execute_num_retries, 5);
  EXPECT_FALSE(c->allow_partial_commit);
  EXPECT_EQ(c->target_size, 134217728);
  EXPECT_EQ(c->max_task_size, 134217728);
  EXPECT_EQ(c->fragment_ratio, 8);
  EXPECT_DOUBLE_EQ(c->min_target_size_ratio, 0.75);
  EXPECT_EQ(c->minor_trigger_file_count, 12);
  EXPECT_EQ(c->minor_trigger_interval_ms, 3600000);
  EXPECT_DOUBLE_EQ(c->major_duplicate_ratio, 0.1);
  EXPECT_EQ(c->full_trigger_interval_ms, -1);
  EXPECT_TRUE(c->full_rewrite_all_files);
  EXPECT_EQ(c->min_plan_interval_ms, 60000);
  EXPECT_EQ(c->open_file_cost, 4194304);
  // floe's own: equality-delete conversion is off unless a table asks for it.
  EXPECT_EQ(c->eq_delete_max_age_ms, -1);
  EXPECT_FALSE(c->converts_equality_deletes());
  // 16 MB fragments and 96 MB undersized segments, as Amoro's docs state.
  EXPECT_EQ(c->fragment_size(), 16777216);
  EXPECT_EQ(c->min_target_size(), 100663296);
}

TEST(OptimizingConfig, ReadsProperties) {
  auto c = OptimizingConfig::FromProperties({{"self-optimizing.enabled", "FALSE"},
                                             {"self-optimizing.group", "cdc"},
                                             {"self-optimizing.target-size", "268435456"},
                                             {"self-optimizing.max-task-size-bytes", "1024"},
                                             {"self-optimizing.fragment-ratio", "4"},
                                             {"self-optimizing.minor.trigger.interval", "-1"},
                                             {"self-optimizing.full.trigger.interval", "86400000"},
                                             {"self-optimizing.quota", "2"},
                                             {"unrelated", "x"}});
  FLOE_ASSERT_OK(c);
  EXPECT_FALSE(c->enabled);
  EXPECT_EQ(c->group, "cdc");
  EXPECT_EQ(c->fragment_size(), 67108864);
  EXPECT_EQ(c->task_size(), 268435456);  // max(target, max-task-size)
  EXPECT_EQ(c->minor_trigger_interval_ms, -1);
  EXPECT_EQ(c->full_trigger_interval_ms, 86400000);
  EXPECT_DOUBLE_EQ(c->quota, 2);
}

TEST(OptimizingConfig, EqualityDeleteMaxAge) {
  auto c = OptimizingConfig::FromProperties({{"self-optimizing.eq-delete.max-age-ms", "5000"}});
  FLOE_ASSERT_OK(c);
  EXPECT_EQ(c->eq_delete_max_age_ms, 5000);
  EXPECT_TRUE(c->converts_equality_deletes());
  // 0: as soon as the service sees the commit.
  c = OptimizingConfig::FromProperties({{"self-optimizing.eq-delete.max-age-ms", "0"}});
  FLOE_ASSERT_OK(c);
  EXPECT_TRUE(c->converts_equality_deletes());
  c = OptimizingConfig::FromProperties({{"self-optimizing.eq-delete.max-age-ms", "-1"}});
  FLOE_ASSERT_OK(c);
  EXPECT_FALSE(c->converts_equality_deletes());
}

TEST(OptimizingConfig, BadValuesNameTheKey) {
  for (auto [key, value] : std::vector<std::pair<std::string, std::string>>{
           {"self-optimizing.target-size", "big"},
           {"self-optimizing.target-size", "0"},
           {"self-optimizing.fragment-ratio", "0"},
           {"self-optimizing.min-target-size-ratio", "1.5"},
           {"self-optimizing.min-target-size-ratio", "NaN"},
           {"self-optimizing.quota", "0"},
           {"self-optimizing.enabled", "yes please"},
           {"self-optimizing.minor.trigger.file-count", "99999999999"},
           {"self-optimizing.major.trigger.duplicate-ratio", "-0.1"},
           {"self-optimizing.eq-delete.max-age-ms", "-2"},
           {"self-optimizing.eq-delete.max-age-ms", "10s"}}) {
    auto c = OptimizingConfig::FromProperties({{key, value}});
    ASSERT_THAT(c, IsError(StatusCode::kInvalidArgument)) << key << "=" << value;
    EXPECT_NE(c.status().message().find(key), std::string::npos) << c.status().message();
  }
}

TEST(MaintenanceConfig, AmoroDefaultsAndDurations) {
  auto d = MaintenanceConfig::FromProperties({});
  FLOE_ASSERT_OK(d);
  EXPECT_TRUE(d->expire_enabled);
  EXPECT_TRUE(d->gc_enabled);
  EXPECT_EQ(d->snapshot_keep_ms, 720LL * 60 * 1000);  // Amoro's "720min"
  EXPECT_EQ(d->snapshot_keep_min_count, 1);
  for (auto [text, ms] : std::vector<std::pair<std::string, int64_t>>{{"720min", 43'200'000},
                                                                      {"12h", 43'200'000},
                                                                      {"1d", 86'400'000},
                                                                      {"30 s", 30'000},
                                                                      {"1500", 1500},
                                                                      {"250ms", 250},
                                                                      {" 2 Minutes ", 120'000}}) {
    auto parsed = ParseDurationMs(text);
    FLOE_ASSERT_OK(parsed) << text;
    EXPECT_EQ(*parsed, ms) << text;
  }
  for (const char* bad : {"", "min", "-5min", "12 fortnights", "1.5h", "99999999999999999999d"}) {
    EXPECT_FALSE(ParseDurationMs(bad).ok()) << bad;
  }
  auto c = MaintenanceConfig::FromProperties({{"snapshot.keep.duration", "2h"},
                                              {"snapshot.keep.min-count", "5"},
                                              {"table-expire.enabled", "false"}});
  FLOE_ASSERT_OK(c);
  EXPECT_EQ(c->snapshot_keep_ms, 7'200'000);
  EXPECT_EQ(c->snapshot_keep_min_count, 5);
  EXPECT_FALSE(c->expire_enabled);
  auto bad = MaintenanceConfig::FromProperties({{"snapshot.keep.duration", "soon"}});
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("snapshot.keep.duration"), std::string::npos);
}

TEST(MaintenanceConfig, CleaningKeysWithAmoroDefaults) {
  auto d = MaintenanceConfig::FromProperties({});
  FLOE_ASSERT_OK(d);
  EXPECT_FALSE(d->orphan_cleaning_enabled);
  EXPECT_EQ(d->orphan_min_age_ms, 2880LL * 60 * 1000);  // two days
  EXPECT_TRUE(d->dangling_delete_cleaning_enabled);
  auto c = MaintenanceConfig::FromProperties({{"clean-orphan-file.enabled", "true"},
                                              {"clean-orphan-file.min-existing-time-minutes", "90"},
                                              {"clean-dangling-delete-files.enabled", "false"}});
  FLOE_ASSERT_OK(c);
  EXPECT_TRUE(c->orphan_cleaning_enabled);
  EXPECT_EQ(c->orphan_min_age_ms, 90LL * 60 * 1000);
  EXPECT_FALSE(c->dangling_delete_cleaning_enabled);
  for (const char* bad : {"-1", "soon", "999999999999999999"}) {
    auto refused =
        MaintenanceConfig::FromProperties({{"clean-orphan-file.min-existing-time-minutes", bad}});
    ASSERT_FALSE(refused.ok()) << bad;
    EXPECT_NE(refused.status().message().find("clean-orphan-file.min-existing-time-minutes"),
              std::string::npos);
  }
}

TEST(ExpireOlderThan, NeverPastTheNewestExternalCommit) {
  iceberg::TableMetadata m;
  EXPECT_FALSE(ExpireOlderThanMs(m, MaintenanceConfig{}, 1'000'000).has_value());
  auto snapshot = [](int64_t id, int64_t ts, bool optimize) {
    iceberg::Snapshot s;
    s.snapshot_id = id;
    s.timestamp_ms = ts;
    s.operation = optimize ? "replace" : "append";
    if (optimize) s.summary = {{"snapshot-producer", "OPTIMIZE"}};
    return s;
  };
  MaintenanceConfig config;
  config.snapshot_keep_ms = 100;
  // External commits at 10 and 500, optimize commits after them.
  m.snapshots = {snapshot(1, 10, false), snapshot(2, 500, false), snapshot(3, 600, true),
                 snapshot(4, 700, true)};
  // now - keep = 900, but the newest external commit (500) bounds it.
  EXPECT_EQ(ExpireOlderThanMs(m, config, 1000), 500);
  // Within the keep duration the duration bounds it.
  EXPECT_EQ(ExpireOlderThanMs(m, config, 550), 450);
  // Only optimize commits: the duration alone.
  m.snapshots = {snapshot(3, 600, true)};
  EXPECT_EQ(ExpireOlderThanMs(m, config, 1000), 900);
}

}  // namespace
}  // namespace floe::optimize
