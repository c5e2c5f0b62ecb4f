#include "floe/exe/progress.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace floe::exe {
namespace {

struct Terminal {
  int64_t now = 1000;
  std::string out;
  ProgressBar Bar(int64_t total) {
    return ProgressBar(
        "scan", total, "files", [this] { return now; },
        [this](std::string_view s) { out.append(s); });
  }
};

TEST(ProgressBarTest, FramesShowBarPercentCountsRowsAndTime) {
  Terminal t;
  ProgressBar bar = t.Bar(4);
  bar.Update(1, 1'234'567);
  EXPECT_EQ(bar.Frame(2500), "scan [======>                 ]  25% 1/4 files, 1.2M rows, 2.5s");
  bar.Update(4, 12);
  EXPECT_EQ(bar.Frame(0), "scan [========================] 100% 4/4 files, 12 rows, 0.0s");
  ProgressBar open = t.Bar(0);  // unknown total: counts only
  open.Update(7);
  EXPECT_EQ(open.Frame(100), "scan 7 files, 0.1s");
}

TEST(ProgressBarTest, ThrottlesRedrawsAndErasesItsLineAtTheEnd) {
  Terminal t;
  {
    ProgressBar bar = t.Bar(10);
    bar.Update(1);
    t.now += 50;
    bar.Update(2);  // within 100 ms of the last frame: not drawn
    t.now += 60;
    bar.Update(3);
    EXPECT_EQ(t.out,
              "\r\x1b[Kscan [==>                     ]  10% 1/10 files, 0.0s"
              "\r\x1b[Kscan [=======>                ]  30% 3/10 files, 0.1s");
    t.out.clear();
    bar.Update(10);  // throttled, but Finish draws the final counts before erasing
  }
  EXPECT_EQ(t.out, "\r\x1b[Kscan [========================] 100% 10/10 files, 0.1s\r\x1b[K");
}

TEST(ProgressBarTest, InertAndMovedFromBarsWriteNothing) {
  ProgressBar bar;
  bar.Update(5, 5);
  bar.Finish();  // no sink to call: must not crash
  Terminal t;
  ProgressBar a = t.Bar(2);
  ProgressBar b = std::move(a);
  a.Update(1);  // NOLINT(bugprone-use-after-move): inert by contract
  a.Finish();
  EXPECT_EQ(t.out, "");
  b.Finish();
  EXPECT_EQ(t.out, "\r\x1b[Kscan [>                       ]   0% 0/2 files, 0.0s\r\x1b[K");
}

}  // namespace
}  // namespace floe::exe
