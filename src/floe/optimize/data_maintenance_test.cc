// Data expiration and automatic tags: Amoro's property keys and defaults, java.time-style
// patterns, and the files and refs the actions commit on an in-memory table. Instants are
// epoch milliseconds computed independently (Python's datetime, UTC) from the ISO times in
// the comments; expected files and tags follow Amoro's rules worked by hand.
#include <gtest/gtest.h>

#include <set>
#include <string>

#include "floe/base/testing.h"
#include "floe/iceberg/in_memory_table_operations.h"
#include "floe/iceberg/partition_spec.h"
#include "floe/iceberg/scan.h"
#include "floe/iceberg/snapshot_producer.h"
#include "floe/iceberg/table_metadata_builder.h"
#include "floe/io/memory_file_io.h"
#include "floe/optimize/auto_tag.h"
#include "floe/optimize/data_expiration.h"
#include "floe/optimize/datetime_pattern.h"
#include "floe/optimize/optimizing_config.h"

namespace floe::optimize {
namespace {

using iceberg::DataFile;
using iceberg::testing::FixedCommitEnvironment;
using iceberg::testing::InMemoryTableOperations;

constexpr int64_t k20240229T235958 = 1709251198000;
constexpr int64_t k20261120 = 1795132800000;
constexpr int64_t k20261123T12 = 1795435200000;
constexpr int64_t k20261130 = 1795996800000;
constexpr int64_t k20261201 = 1796083200000;
constexpr int64_t k20261201T0005 = 1796083500000;
constexpr int64_t k20261201T0020 = 1796084400000;
constexpr int64_t k20261201T10 = 1796119200000;
constexpr int64_t k20261201T1030 = 1796121000000;
constexpr int64_t kDayMs = 86'400'000;

// Iceberg spec, Appendix D: long and timestamp bounds are 8-byte little-endian.
std::string LongBytes(int64_t v) {
  std::string out(8, '\0');
  for (int i = 0; i < 8; ++i) {
    out[i] = static_cast<char>((static_cast<uint64_t>(v) >> (8 * i)) & 0xFF);
  }
  return out;
}

TEST(DataMaintenanceConfig, AmoroDefaults) {
  auto d = DataExpirationConfig::FromProperties({});
  FLOE_ASSERT_OK(d);
  EXPECT_FALSE(d->enabled);
  EXPECT_EQ(d->level, DataExpirationConfig::Level::kPartition);
  EXPECT_EQ(d->datetime_string_pattern, "yyyy-MM-dd");
  EXPECT_FALSE(d->number_in_seconds);
  EXPECT_EQ(d->base_on, DataExpirationConfig::BaseOn::kLastCommitTime);

  auto t = AutoTagConfig::FromProperties({});
  FLOE_ASSERT_OK(t);
  EXPECT_FALSE(t->enabled);
  EXPECT_EQ(t->period, AutoTagConfig::Period::kDaily);
  EXPECT_EQ(t->offset_minutes, 0);
  EXPECT_EQ(t->max_delay_minutes, 60);
  EXPECT_EQ(t->tag_format, "'tag-'yyyyMMdd");
  EXPECT_EQ(t->max_age_ms, -1);
  auto hourly = AutoTagConfig::FromProperties({{"tag.auto-create.trigger.period", "hourly"}});
  FLOE_ASSERT_OK(hourly);
  EXPECT_EQ(hourly->tag_format, "'tag-'yyyyMMddHH");
  auto monthly = AutoTagConfig::FromProperties({{"tag.auto-create.trigger.period", "monthly"}});
  FLOE_ASSERT_OK(monthly);
  EXPECT_EQ(monthly->period, AutoTagConfig::Period::kMonthly);
  EXPECT_EQ(monthly->tag_format, "'tag-'yyyyMM");
  EXPECT_FALSE(AutoTagConfig::FromProperties({{"tag.auto-create.trigger.period", "weekly"}}).ok());
}

TEST(DataMaintenanceConfig, ParsesAmoroValues) {
  auto d =
      DataExpirationConfig::FromProperties({{"data-expire.enabled", "true"},
                                            {"data-expire.field", "ts"},
                                            {"data-expire.level", "FILE"},
                                            {"data-expire.retention-time", "7d"},
                                            {"data-expire.datetime-number-format", "timestamp_s"},
                                            {"data-expire.base-on-rule", "CURRENT_TIME"}});
  FLOE_ASSERT_OK(d);
  EXPECT_TRUE(d->enabled);
  EXPECT_EQ(d->field, "ts");
  EXPECT_EQ(d->level, DataExpirationConfig::Level::kFile);
  EXPECT_EQ(d->retention_ms, 7 * kDayMs);
  EXPECT_TRUE(d->number_in_seconds);
  EXPECT_EQ(d->base_on, DataExpirationConfig::BaseOn::kCurrentTime);
}

TEST(DataMaintenanceConfig, RejectsBadValuesNamingTheKey) {
  auto no_field = DataExpirationConfig::FromProperties(
      {{"data-expire.enabled", "true"}, {"data-expire.retention-time", "1d"}});
  ASSERT_FALSE(no_field.ok());
  EXPECT_NE(no_field.status().ToString().find("data-expire.field"), std::string::npos);
  auto no_retention = DataExpirationConfig::FromProperties(
      {{"data-expire.enabled", "true"}, {"data-expire.field", "ts"}});
  ASSERT_FALSE(no_retention.ok());
  EXPECT_NE(no_retention.status().ToString().find("retention-time"), std::string::npos);
  auto level = DataExpirationConfig::FromProperties({{"data-expire.level", "row"}});
  ASSERT_FALSE(level.ok());
  EXPECT_NE(level.status().ToString().find("data-expire.level"), std::string::npos);
  EXPECT_FALSE(
      DataExpirationConfig::FromProperties({{"data-expire.datetime-string-pattern", "yyyy-MMM"}})
          .ok());
  auto period = AutoTagConfig::FromProperties({{"tag.auto-create.trigger.period", "weekly"}});
  ASSERT_FALSE(period.ok());
  EXPECT_NE(period.status().ToString().find("tag.auto-create.trigger.period"), std::string::npos);
  EXPECT_FALSE(
      AutoTagConfig::FromProperties({{"tag.auto-create.trigger.offset.minutes", "1440"}}).ok());
  EXPECT_FALSE(AutoTagConfig::FromProperties({{"tag.auto-create.tag-format", "'tag-"}}).ok());
}

TEST(DateTimePattern, FormatsLikeJavaTime) {
  auto full = DateTimePattern::Make("yyyy-MM-dd HH:mm:ss");
  FLOE_ASSERT_OK(full);
  EXPECT_EQ(full->Format(k20240229T235958), "2024-02-29 23:59:58");
  EXPECT_EQ(DateTimePattern::Make("'tag-'yyyyMMdd")->Format(k20261130), "tag-20261130");
  EXPECT_EQ(DateTimePattern::Make("'tag-'yyyyMMddHH")->Format(k20261201T10), "tag-2026120110");
  EXPECT_EQ(DateTimePattern::Make("yy/M/d")->Format(k20240229T235958), "24/2/29");
  EXPECT_EQ(DateTimePattern::Make("'o''clock' HH")->Format(k20240229T235958), "o'clock 23");
}

TEST(DateTimePattern, ParsesWholeTextOnly) {
  auto date = DateTimePattern::Make("yyyy-MM-dd");
  FLOE_ASSERT_OK(date);
  EXPECT_EQ(*date->Parse("2026-11-20"), k20261120);
  EXPECT_FALSE(date->Parse("2026-11-20x").ok());
  EXPECT_FALSE(date->Parse("2026-13-01").ok());
  EXPECT_FALSE(date->Parse("2023-02-29").ok());
  EXPECT_FALSE(date->Parse("").ok());
  auto compact = DateTimePattern::Make("yyyyMMddHH");
  FLOE_ASSERT_OK(compact);
  EXPECT_EQ(*compact->Parse("2026120110"), k20261201T10);
  EXPECT_EQ(*DateTimePattern::Make("yyyy-MM-dd HH:mm:ss")->Parse("2024-02-29 23:59:58"),
            k20240229T235958);
  EXPECT_FALSE(DateTimePattern::Make("yyyy-MMM").ok());
  EXPECT_FALSE(DateTimePattern::Make("yyyy-MM-dd'T").ok());
}

TEST(AutoTag, TriggerAndNameFollowThePeriod) {
  AutoTagConfig daily;
  daily.tag_format = "'tag-'yyyyMMdd";
  // 2026-12-01T10:30Z: the day's trigger is 00:00, the tag names 2026-11-30.
  EXPECT_EQ(TagTriggerMs(daily, k20261201T1030), k20261201);
  EXPECT_EQ(*TagNameFor(daily, k20261201), "tag-20261130");
  daily.offset_minutes = 5;
  EXPECT_EQ(TagTriggerMs(daily, k20261201T1030), k20261201T0005);
  EXPECT_EQ(*TagNameFor(daily, k20261201T0005), "tag-20261130");
  // Before the offset, the previous day's trigger still applies.
  EXPECT_EQ(TagTriggerMs(daily, k20261201 + 60'000), k20261201T0005 - kDayMs);

  AutoTagConfig hourly;
  hourly.period = AutoTagConfig::Period::kHourly;
  hourly.tag_format = "'tag-'yyyyMMddHH";
  EXPECT_EQ(TagTriggerMs(hourly, k20261201T1030), k20261201T10);
  EXPECT_EQ(*TagNameFor(hourly, k20261201T10), "tag-2026120109");

  // Calendar months (UTC): on 2026-12-01T10:30 the trigger is 2026-12-01T00:00 and the tag
  // names November; in March 2024 (a leap year) the tag names February.
  AutoTagConfig monthly;
  monthly.period = AutoTagConfig::Period::kMonthly;
  monthly.tag_format = "'tag-'yyyyMM";
  EXPECT_EQ(TagTriggerMs(monthly, k20261201T1030), k20261201);
  EXPECT_EQ(TagTriggerMs(monthly, k20261201T1030 + 20 * kDayMs), k20261201);
  EXPECT_EQ(*TagNameFor(monthly, k20261201), "tag-202611");
  const int64_t k20240301 = k20240229T235958 + 2'000;
  EXPECT_EQ(TagTriggerMs(monthly, k20240301 + 5 * kDayMs), k20240301);
  EXPECT_EQ(*TagNameFor(monthly, k20240301), "tag-202402");
  // Before the offset, the previous month's trigger still applies.
  monthly.offset_minutes = 60;
  EXPECT_EQ(TagTriggerMs(monthly, k20240301 + 60'000), k20240301 - 29 * kDayMs + 3'600'000);
  EXPECT_EQ(*TagNameFor(monthly, k20240301 + 3'600'000), "tag-202402");
}

DataFile Data(std::string path, std::string region, std::optional<int64_t> ts_upper_ms) {
  DataFile f;
  f.file_path = std::move(path);
  f.record_count = 10;
  f.file_size_in_bytes = 100;
  f.partition = {iceberg::Literal::String(std::move(region))};
  if (ts_upper_ms) {
    f.lower_bounds = {{2, LongBytes((*ts_upper_ms - kDayMs) * 1000)}};
    f.upper_bounds = {{2, LongBytes(*ts_upper_ms * 1000)}};
  }
  return f;
}

DataFile EqDelete(std::string path, std::string region) {
  DataFile f = Data(std::move(path), std::move(region), std::nullopt);
  f.content = iceberg::FileContent::kEqualityDeletes;
  f.equality_ids = std::vector<int32_t>{1};
  return f;
}

class DataMaintenanceTableTest : public ::testing::Test {
 protected:
  void SetUp() override {
    schema_ = *iceberg::Schema::Make(
        {iceberg::NestedField::Required(1, "id", iceberg::LongType()),
         iceberg::NestedField::Optional(2, "ts", iceberg::TimestampTzType()),
         iceberg::NestedField::Optional(3, "region", iceberg::StringType())});
    auto spec = iceberg::PartitionSpecBuilder(schema_).Identity("region").Build();
    FLOE_ASSERT_OK(spec);
    auto md = iceberg::TableMetadataBuilder::NewTable(
        schema_, *spec, iceberg::SortOrder::Unsorted(), "mem://wh/db/t", {{"format-version", "2"}},
        "9c12d441-03fe-4693-9a96-a0705ddf69c1", 1700000000000);
    FLOE_ASSERT_OK(md);
    auto ops = InMemoryTableOperations::Create("db.t", io_, env_, *md);
    FLOE_ASSERT_OK(ops);
    ops_ = std::move(*ops);
    auto t = iceberg::Table::Load(*ops_);
    FLOE_ASSERT_OK(t);
    table_ = std::move(*t);
  }

  // Files committed at 2026-12-01T10:30Z: eu a (rows up to 11-20) and b (up to 11-23 12:00),
  // us c (up to 11-20) and d (up to 12-01), ap e (no ts bound); then an equality delete in
  // eu and one in us.
  void Populate() {
    env_.set_now(k20261201T1030 - 60'000);
    auto append = table_->NewAppend();
    append->AppendFile(Data("mem://d/a.parquet", "eu", k20261120))
        .AppendFile(Data("mem://d/b.parquet", "eu", k20261123T12))
        .AppendFile(Data("mem://d/c.parquet", "us", k20261120))
        .AppendFile(Data("mem://d/d.parquet", "us", k20261201))
        .AppendFile(Data("mem://d/e.parquet", "ap", std::nullopt));
    FLOE_ASSERT_OK(append->Commit());
    env_.set_now(k20261201T1030);
    auto delta = table_->NewRowDelta();
    delta->AddDeletes(EqDelete("mem://d/eq-eu.parquet", "eu"))
        .AddDeletes(EqDelete("mem://d/eq-us.parquet", "us"));
    FLOE_ASSERT_OK(delta->Commit());
  }

  std::set<std::string> LiveFiles() {
    auto scan = iceberg::TableScan::Make(table_->metadata(), io_, {});
    FLOE_EXPECT_OK(scan);
    auto tasks = (*scan)->PlanFiles();
    FLOE_EXPECT_OK(tasks);
    std::set<std::string> out;
    for (const auto& t : *tasks) {
      out.insert(t.data->file.file_path);
      for (const auto& d : t.equality_deletes) out.insert(d->file.file_path);
    }
    return out;
  }

  DataExpirationConfig Config(DataExpirationConfig::Level level) {
    DataExpirationConfig c;
    c.enabled = true;
    c.field = "ts";
    c.level = level;
    c.retention_ms = 7 * kDayMs;
    return c;
  }

  iceberg::Schema schema_;
  io::MemoryFileIO io_;
  FixedCommitEnvironment env_;
  std::unique_ptr<InMemoryTableOperations> ops_;
  std::unique_ptr<iceberg::Table> table_;
};

TEST_F(DataMaintenanceTableTest, PartitionLevelDropsOnlyWhollyExpiredPartitions) {
  Populate();
  // Last commit 12-01 10:30 minus 7 days: 11-24 10:30. Only eu expired entirely; a week
  // later by the clock changes nothing (LAST_COMMIT_TIME).
  env_.set_now(k20261201T1030 + kDayMs);
  auto r = ExpireData(*table_, Config(DataExpirationConfig::Level::kPartition),
                      k20261201T1030 + 7 * kDayMs);
  FLOE_ASSERT_OK(r);
  ASSERT_TRUE(r->has_value());
  EXPECT_EQ((*r)->threshold_ms, k20261201T1030 - 7 * kDayMs);
  EXPECT_EQ((*r)->data_files_removed, 2);
  EXPECT_EQ((*r)->records_removed, 20);
  EXPECT_EQ((*r)->delete_files_removed, 1);  // eu's equality delete applied only to a and b
  EXPECT_TRUE((*r)->delete_cleanup_error.empty());
  ASSERT_TRUE((*r)->snapshot_id.has_value());
  const iceberg::Snapshot* deleted = table_->metadata()->snapshot_by_id(*(*r)->snapshot_id);
  ASSERT_NE(deleted, nullptr);
  EXPECT_EQ(deleted->operation, "delete");
  EXPECT_EQ(*deleted->SummaryValue("snapshot-producer"), "DATA_EXPIRATION");
  EXPECT_EQ(LiveFiles(), (std::set<std::string>{"mem://d/c.parquet", "mem://d/d.parquet",
                                                "mem://d/e.parquet", "mem://d/eq-us.parquet"}));

  // Nothing more to expire: no commit.
  auto again = ExpireData(*table_, Config(DataExpirationConfig::Level::kPartition),
                          k20261201T1030 + 7 * kDayMs);
  FLOE_ASSERT_OK(again);
  ASSERT_TRUE(again->has_value());
  EXPECT_EQ((*again)->data_files_removed, 0);
  EXPECT_FALSE((*again)->snapshot_id.has_value());
}

TEST_F(DataMaintenanceTableTest, FileLevelDropsEachExpiredFileAndKeepsNeededDeletes) {
  Populate();
  auto r = ExpireData(*table_, Config(DataExpirationConfig::Level::kFile), k20261201T1030);
  FLOE_ASSERT_OK(r);
  ASSERT_TRUE(r->has_value());
  EXPECT_EQ((*r)->data_files_removed, 3);
  // us's equality delete still applies to d.
  EXPECT_EQ((*r)->delete_files_removed, 1);
  EXPECT_EQ(LiveFiles(), (std::set<std::string>{"mem://d/d.parquet", "mem://d/e.parquet",
                                                "mem://d/eq-us.parquet"}));
}

TEST_F(DataMaintenanceTableTest, CurrentTimeBaseAndDisabledAndBadField) {
  Populate();
  // CURRENT_TIME at 12-09: threshold 12-02, so d expires too; e has no bound and stays.
  DataExpirationConfig c = Config(DataExpirationConfig::Level::kFile);
  c.base_on = DataExpirationConfig::BaseOn::kCurrentTime;
  DataExpirationConfig off = c;
  off.enabled = false;
  auto none = ExpireData(*table_, off, k20261201T1030 + 8 * kDayMs);
  FLOE_ASSERT_OK(none);
  EXPECT_FALSE(none->has_value());
  DataExpirationConfig missing = c;
  missing.field = "nope";
  EXPECT_FALSE(ExpireData(*table_, missing, k20261201T1030).ok());
  auto r = ExpireData(*table_, c, k20261201T1030 + 8 * kDayMs);
  FLOE_ASSERT_OK(r);
  EXPECT_EQ((*r)->data_files_removed, 4);
  EXPECT_EQ(LiveFiles(), (std::set<std::string>{"mem://d/e.parquet"}));
}

TEST(DataExpiration, UpperBoundsOfEachFieldKind) {
  DataExpirationConfig c;
  auto date_pattern = DateTimePattern::Make("yyyy-MM-dd");
  FLOE_ASSERT_OK(date_pattern);
  DataFile f;
  auto s = iceberg::NestedField::Optional(7, "dt", iceberg::StringType());
  f.upper_bounds = {{7, "2026-11-20"}};
  EXPECT_EQ(UpperBoundMs(f, s, c, *date_pattern), k20261120);
  f.upper_bounds = {{7, "20261120"}};
  EXPECT_EQ(UpperBoundMs(f, s, c, *date_pattern), std::nullopt);
  auto l = iceberg::NestedField::Optional(7, "at", iceberg::LongType());
  f.upper_bounds = {{7, LongBytes(k20261120)}};
  EXPECT_EQ(UpperBoundMs(f, l, c, *date_pattern), k20261120);
  c.number_in_seconds = true;
  f.upper_bounds = {{7, LongBytes(k20261120 / 1000)}};
  EXPECT_EQ(UpperBoundMs(f, l, c, *date_pattern), k20261120);
  // Date bounds are 4-byte little-endian days (Appendix D).
  auto d = iceberg::NestedField::Optional(7, "day", iceberg::DateType());
  const int32_t days = static_cast<int32_t>(k20261120 / kDayMs);
  std::string day_bytes(4, '\0');
  for (int i = 0; i < 4; ++i) day_bytes[i] = static_cast<char>((days >> (8 * i)) & 0xFF);
  f.upper_bounds = {{7, day_bytes}};
  EXPECT_EQ(UpperBoundMs(f, d, c, *date_pattern), k20261120);
  // A truncated or corrupt bound keeps the file.
  f.upper_bounds = {{7, "\x01\x02"}};
  EXPECT_EQ(UpperBoundMs(f, d, c, *date_pattern), std::nullopt);
  f.upper_bounds.clear();
  EXPECT_EQ(UpperBoundMs(f, d, c, *date_pattern), std::nullopt);
}

TEST_F(DataMaintenanceTableTest, AutoTagOnFirstSnapshotAfterTheTrigger) {
  auto commit = [&](int64_t at, const std::string& name) {
    env_.set_now(at);
    auto append = table_->NewAppend();
    append->AppendFile(Data("mem://d/" + name + ".parquet", "eu", at));
    FLOE_EXPECT_OK(append->Commit());
    return table_->metadata()->current_snapshot()->snapshot_id;
  };
  commit(k20261201 - 3'600'000, "s1");  // 11-30 23:00
  const int64_t s2 = commit(k20261201T0020, "s2");
  commit(k20261201 + 2 * 3'600'000, "s3");  // 12-01 02:00

  AutoTagConfig c;
  c.enabled = true;
  c.tag_format = "'tag-'yyyyMMdd";
  // The first snapshot after 00:00 is 20 minutes late: over a 10-minute max delay, no tag.
  c.max_delay_minutes = 10;
  auto late = CreateAutoTag(*table_, c, k20261201T1030);
  FLOE_ASSERT_OK(late);
  EXPECT_FALSE(late->has_value());
  EXPECT_FALSE(table_->metadata()->refs.contains("tag-20261130"));

  c.max_delay_minutes = 60;
  c.max_age_ms = 3 * kDayMs;
  auto made = CreateAutoTag(*table_, c, k20261201T1030);
  FLOE_ASSERT_OK(made);
  ASSERT_TRUE(made->has_value());
  EXPECT_EQ((*made)->tag, "tag-20261130");
  EXPECT_EQ((*made)->snapshot_id, s2);
  auto ref = table_->metadata()->refs.find("tag-20261130");
  ASSERT_NE(ref, table_->metadata()->refs.end());
  EXPECT_EQ(ref->second.type, iceberg::SnapshotRefType::kTag);
  EXPECT_EQ(ref->second.snapshot_id, s2);
  EXPECT_EQ(ref->second.max_ref_age_ms, 3 * kDayMs);

  // Due once per period.
  auto again = CreateAutoTag(*table_, c, k20261201T1030 + 60'000);
  FLOE_ASSERT_OK(again);
  EXPECT_FALSE(again->has_value());
  // Off: nothing.
  c.enabled = false;
  auto off = CreateAutoTag(*table_, c, k20261201T1030 + kDayMs);
  FLOE_ASSERT_OK(off);
  EXPECT_FALSE(off->has_value());
}

TEST_F(DataMaintenanceTableTest, NoAutoTagBeforeASnapshotFollowsTheTrigger) {
  env_.set_now(k20261201 - 3'600'000);
  auto append = table_->NewAppend();
  append->AppendFile(Data("mem://d/s1.parquet", "eu", k20261201 - 3'600'000));
  FLOE_ASSERT_OK(append->Commit());
  AutoTagConfig c;
  c.enabled = true;
  c.tag_format = "'tag-'yyyyMMdd";
  auto r = CreateAutoTag(*table_, c, k20261201T1030);
  FLOE_ASSERT_OK(r);
  EXPECT_FALSE(r->has_value());
}

}  // namespace
}  // namespace floe::optimize
