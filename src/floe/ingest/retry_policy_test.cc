// A failing topic's retries back off and its log lines are rate-limited (issue 19 §3).
#include <gtest/gtest.h>

#include "floe/ingest/ingest_service.h"

namespace floe::ingest {
namespace {

using std::chrono::milliseconds;

TEST(RetryPolicy, BacksOffAndRateLimitsTheSameError) {
  RetryPolicy retry(milliseconds(1000), milliseconds(60'000), milliseconds(60'000));
  const Status poison = Status::InvalidArgument("partition 0 offset 7: bad");
  std::optional<Status> report;
  int64_t now = 0;
  EXPECT_EQ(retry.Failed(poison, now, &report), milliseconds(1000));
  ASSERT_TRUE(report.has_value());
  EXPECT_EQ(report->message(), "partition 0 offset 7: bad");
  EXPECT_EQ(report->code(), StatusCode::kInvalidArgument);
  std::vector<int64_t> waits;
  int reported = 0;
  for (int i = 0; i < 9; ++i) {
    now += 1000;
    waits.push_back(retry.Failed(poison, now, &report).count());
    reported += report.has_value();
  }
  EXPECT_EQ(waits,
            (std::vector<int64_t>{2000, 4000, 8000, 16000, 32000, 60000, 60000, 60000, 60000}));
  EXPECT_EQ(reported, 0);
  // A minute after the last report: reported again, with the count of those not logged.
  now = 60'000;
  retry.Failed(poison, now, &report);
  ASSERT_TRUE(report.has_value());
  EXPECT_NE(report->message().find("(9 more failed rounds not logged"), std::string::npos)
      << report->message();
  // Another error is reported at once.
  retry.Failed(Status::Unavailable("catalog down"), now + 1, &report);
  ASSERT_TRUE(report.has_value());
  EXPECT_EQ(report->message(), "catalog down");
  // Success resets the wait and the report.
  retry.Succeeded();
  EXPECT_EQ(retry.Failed(poison, now + 2, &report), milliseconds(1000));
  EXPECT_TRUE(report.has_value());
}

}  // namespace
}  // namespace floe::ingest
