#include "floe/optimize/optimizing_config.h"

#include <gtest/gtest.h>

namespace floe::optimize {
namespace {

// Amoro's defaults (TableProperties.java).
TEST(OptimizingConfig, DefaultsAreAmoros) {
  auto c = OptimizingConfig::FromProperties({});
  ASSERT_TRUE(c.ok());
  EXPECT_TRUE(c->enabled);
  EXPECT_EQ(c->group, "default");
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
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_FALSE(c->enabled);
  EXPECT_EQ(c->group, "cdc");
  EXPECT_EQ(c->fragment_size(), 67108864);
  EXPECT_EQ(c->task_size(), 268435456);  // max(target, max-task-size)
  EXPECT_EQ(c->minor_trigger_interval_ms, -1);
  EXPECT_EQ(c->full_trigger_interval_ms, 86400000);
  EXPECT_DOUBLE_EQ(c->quota, 2);
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
           {"self-optimizing.major.trigger.duplicate-ratio", "-0.1"}}) {
    auto c = OptimizingConfig::FromProperties({{key, value}});
    ASSERT_FALSE(c.ok()) << key << "=" << value;
    EXPECT_EQ(c.status().code(), StatusCode::kInvalidArgument);
    EXPECT_NE(c.status().message().find(key), std::string::npos) << c.status().message();
  }
}

}  // namespace
}  // namespace floe::optimize
