// HistoryRecorder with an injected clock and process usage: what one sample holds, that
// counters become differences over the interval, and that old samples are trimmed.
#include "floe/manage/history_recorder.h"

#include <atomic>

#include <gtest/gtest.h>

#include "floe/base/testing.h"
#include "floe/catalog/test_util.h"

namespace floe::manage {
namespace {

class HistoryRecorderTest : public ::testing::Test {
 protected:
  void SetUp() override {
    db_.SetUp(catalog::SqlDialect::kSqlite);
    HistoryOptions options;
    options.metastore_uri = db_.uri();
    options.interval_ms = 3'600'000;  // the thread never samples during the test
    options.retention_ms = 10'000;
    options.max_samples = 3;
    options.now_ms = [this] { return now_ms_.load(); };
    options.process_usage = [this] {
      return ProcessUsage{rss_.load(), static_cast<double>(cpu_ms_.load()) / 1000.0};
    };
    auto recorder = HistoryRecorder::Start(std::move(options));
    FLOE_ASSERT_OK(recorder);
    recorder_ = std::move(*recorder);
    auto store = metastore::Metastore::Open(db_.uri());
    FLOE_ASSERT_OK(store);
    store_ = std::move(*store);
  }

  catalog::testing::TestDatabase db_;
  std::atomic<int64_t> now_ms_{1'000'000};
  std::atomic<int64_t> rss_{64 << 20};
  std::atomic<int64_t> cpu_ms_{2'000};
  std::unique_ptr<HistoryRecorder> recorder_;
  std::unique_ptr<metastore::Metastore> store_;
};

TEST_F(HistoryRecorderTest, SamplesHoldGaugesAndDifferences) {
  now_ms_ = 1'002'000;
  cpu_ms_ = 2'500;  // 500 ms of CPU since the recorder started
  FLOE_ASSERT_OK(recorder_->SampleNow());
  now_ms_ = 1'003'000;
  cpu_ms_ = 3'250;
  rss_ = 80 << 20;
  FLOE_ASSERT_OK(recorder_->SampleNow());

  auto samples = store_->ListHistorySamples(0, 2'000'000, 10);
  FLOE_ASSERT_OK(samples);
  ASSERT_EQ(samples->size(), 2u);
  EXPECT_EQ((*samples)[0].sample_ms, 1'002'000);
  EXPECT_EQ((*samples)[0].interval_ms, 2'000);
  EXPECT_EQ((*samples)[0].cpu_ms_during, 500);
  EXPECT_EQ((*samples)[0].rss_bytes, 64 << 20);
  EXPECT_EQ((*samples)[1].interval_ms, 1'000);
  EXPECT_EQ((*samples)[1].cpu_ms_during, 750);
  EXPECT_EQ((*samples)[1].rss_bytes, 80 << 20);
  // Without an optimizer or table topics their figures are zero.
  EXPECT_EQ((*samples)[1].tables, 0);
  EXPECT_EQ((*samples)[1].records_produced_during, 0);
}

TEST_F(HistoryRecorderTest, TrimsByAgeAndCount) {
  for (int64_t t : {1'001'000, 1'002'000, 1'003'000, 1'004'000, 1'005'000}) {
    now_ms_ = t;
    FLOE_ASSERT_OK(recorder_->SampleNow());
  }
  // At most max_samples (3) rows: the newest.
  auto samples = store_->ListHistorySamples(0, 2'000'000, 10);
  FLOE_ASSERT_OK(samples);
  ASSERT_EQ(samples->size(), 3u);
  EXPECT_EQ((*samples)[0].sample_ms, 1'003'000);
  // retention_ms (10 s) later, only the new sample stays.
  now_ms_ = 1'015'500;
  FLOE_ASSERT_OK(recorder_->SampleNow());
  samples = store_->ListHistorySamples(0, 2'000'000, 10);
  FLOE_ASSERT_OK(samples);
  ASSERT_EQ(samples->size(), 1u);
  EXPECT_EQ((*samples)[0].sample_ms, 1'015'500);
}

}  // namespace
}  // namespace floe::manage
