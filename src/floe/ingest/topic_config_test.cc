// Table-topic configs: AutoMQ's documented keys, values and defaults (ingest.md §1.1) and
// the rules of issue 6.
#include "floe/ingest/topic_config.h"

#include <gtest/gtest.h>

#include "floe/base/testing.h"

namespace floe::ingest {
namespace {

std::map<std::string, std::string> Configs(
    std::initializer_list<std::pair<const std::string, std::string>> kv) {
  std::map<std::string, std::string> out;
  for (const auto& [k, v] : kv) out["floe.table.topic." + k] = v;
  return out;
}

TEST(TopicConfigTest, DefaultsMatchAutoMq) {
  auto c = ParseTableTopicConfig({});
  FLOE_ASSERT_OK(c);
  EXPECT_FALSE(c->enabled);
  EXPECT_EQ(c->commit_interval_ms, 60000);
  EXPECT_EQ(c->value_type, ConvertType::kRaw);
  EXPECT_EQ(c->key_type, ConvertType::kString);
  EXPECT_EQ(c->transform, TransformType::kNone);
  EXPECT_EQ(c->errors_tolerance, ErrorsTolerance::kAll);
  EXPECT_FALSE(c->upsert);
}

TEST(TopicConfigTest, ParsesEveryKey) {
  auto c = ParseTableTopicConfig(
      Configs({{"enable", "true"},
               {"commit.interval.ms", "1000"},
               {"namespace", "events"},
               {"convert.value.type", "json"},
               {"convert.key.type", "raw"},
               {"transform.value.type", "flatten"},
               {"id.columns", "[region, name]"},
               {"cdc.field", "meta.op"},
               {"partition.by", "[bucket(name, 16), truncate(name, 4), region]"},
               {"errors.tolerance", "all"}}));
  FLOE_ASSERT_OK(c);
  EXPECT_TRUE(c->enabled);
  EXPECT_EQ(c->commit_interval_ms, 1000);
  EXPECT_EQ(c->table_namespace, "events");
  EXPECT_EQ(c->value_type, ConvertType::kJson);
  EXPECT_EQ(c->key_type, ConvertType::kRaw);
  EXPECT_EQ(c->transform, TransformType::kFlatten);
  EXPECT_EQ(c->id_columns, (std::vector<std::string>{"region", "name"}));
  EXPECT_EQ(c->cdc_field, "meta.op");
  EXPECT_TRUE(c->keyed());
  ASSERT_EQ(c->partition_by.size(), 3u);
  EXPECT_EQ(c->partition_by[0].transform, "bucket");
  EXPECT_EQ(c->partition_by[0].column, "name");
  EXPECT_EQ(c->partition_by[0].argument, 16);
  EXPECT_EQ(c->partition_by[1].transform, "truncate");
  EXPECT_EQ(c->partition_by[1].argument, 4);
  EXPECT_EQ(c->partition_by[2].transform, "identity");
  EXPECT_EQ(c->partition_by[2].column, "region");
  EXPECT_EQ(c->errors_tolerance, ErrorsTolerance::kAll);
}

TEST(TopicConfigTest, RejectsBadValues) {
  auto bad = [](std::initializer_list<std::pair<const std::string, std::string>> kv,
                std::string_view needle) {
    auto c = ParseTableTopicConfig(Configs(kv));
    ASSERT_FALSE(c.ok());
    EXPECT_NE(c.error().message().find(needle), std::string::npos) << c.error().message();
  };
  bad({{"commit.interval.ms", "999"}}, "at least 1000");
  bad({{"commit.interval.ms", "soon"}}, "not an integer");
  bad({{"enable", "yes"}}, "not a boolean");
  bad({{"convert.value.type", "avro"}}, "not one of raw, string, json, by_schema_id");
  bad({{"transform.value.type", "unwrap"}}, "not one of none, flatten");
  bad({{"transform.value.type", "flatten"}}, "need convert.value.type json");
  bad({{"errors.tolerance", "some"}}, "not one of none, invalid_data, all");
  bad({{"convert.value.type", "json"},
       {"transform.value.type", "flatten"},
       {"upsert.enable", "true"}},
      "need floe.table.topic.id.columns");
  bad({{"convert.value.type", "json"}, {"transform.value.type", "flatten_debezium"}},
      "flatten_debezium needs floe.table.topic.id.columns");
  bad({{"convert.value.type", "json"},
       {"transform.value.type", "flatten"},
       {"upsert.enable", "true"},
       {"id.columns", "[id]"},
       {"partition.by", "[day(ts)]"}},
      "must be one of floe.table.topic.id.columns");
  bad({{"convert.value.type", "json"},
       {"transform.value.type", "flatten"},
       {"partition.by", "[days(ts)]"}},
      "unknown transform 'days'");
  bad({{"convert.value.type", "json"},
       {"transform.value.type", "flatten"},
       {"partition.by", "[bucket(id)]"}},
      "needs an argument");
  bad({{"convert.value.type", "json"},
       {"transform.value.type", "flatten"},
       {"partition.by", "[truncate(s, 0)]"}},
      "positive integer");
  bad({{"convert.value.type", "json"}, {"partition.by", "[id]"}}, "partition.by names value");
  bad({{"no.such.key", "1"}}, "unknown table topic config");
}

TEST(TopicConfigTest, RegistryValuesTakeDebeziumAndCdcField) {
  auto debezium = ParseTableTopicConfig(Configs({{"convert.value.type", "by_schema_id"},
                                                 {"transform.value.type", "flatten_debezium"},
                                                 {"id.columns", "[id]"}}));
  FLOE_ASSERT_OK(debezium);
  EXPECT_TRUE(debezium->keyed());
  auto cdc = ParseTableTopicConfig(Configs({{"convert.value.type", "by_latest_schema"},
                                            {"transform.value.type", "flatten"},
                                            {"cdc.field", "op"},
                                            {"id.columns", "[id]"}}));
  FLOE_ASSERT_OK(cdc);
  EXPECT_EQ(cdc->cdc_field, "op");
  // Still refused: Debezium without id columns, whatever the value type.
  EXPECT_FALSE(ParseTableTopicConfig(Configs({{"convert.value.type", "by_schema_id"},
                                              {"transform.value.type", "flatten_debezium"}}))
                   .ok());
}

TEST(TopicConfigTest, ValidateHookReturnsTheMessage) {
  EXPECT_EQ(ValidateTableTopicConfigs({{"retention.ms", "5"}}), std::nullopt);
  auto message = ValidateTableTopicConfigs(Configs({{"errors.tolerance", "x"}}));
  ASSERT_TRUE(message.has_value());
  EXPECT_NE(message->find("errors.tolerance"), std::string::npos);
}

TEST(TopicConfigTest, SplitsLists) {
  EXPECT_EQ(SplitListConfig("[a, b]"), (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(SplitListConfig("a,b"), (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(SplitListConfig("[bucket(x, 4), y]"), (std::vector<std::string>{"bucket(x, 4)", "y"}));
  EXPECT_TRUE(SplitListConfig("[]").empty());
}

}  // namespace
}  // namespace floe::ingest
