#include "floe/base/executor.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <set>
#include <thread>
#include <vector>

#include "floe/base/testing.h"

namespace floe {
namespace {

using namespace std::chrono_literals;

// Waits until `done` holds, for at most 10 s.
template <typename F>
bool WaitFor(F done) {
  const auto deadline = std::chrono::steady_clock::now() + 10s;
  while (!done()) {
    if (std::chrono::steady_clock::now() > deadline) return false;
    std::this_thread::sleep_for(1ms);
  }
  return true;
}

TEST(ExecutorTest, RefusesBadOptions) {
  EXPECT_THAT(Executor::Make({.name = "x", .threads = -1}), IsError(StatusCode::kInvalidArgument));
  EXPECT_THAT(Executor::Make({.name = "x", .threads = 1, .max_queued = 0}),
              IsError(StatusCode::kInvalidArgument));
}

TEST(ExecutorTest, RunsEveryTaskOnItsThreads) {
  FLOE_ASSERT_OK_AND_ASSIGN(auto executor, Executor::Make({.name = "pool", .threads = 3}));
  EXPECT_EQ(executor->threads(), 3);
  std::mutex mu;
  std::set<std::thread::id> ids;
  std::atomic<int> ran{0};
  std::atomic<int> on_executor{0};
  for (int i = 0; i < 300; ++i) {
    FLOE_ASSERT_OK(executor->Submit([&] {
      if (executor->OnExecutorThread()) on_executor++;
      std::lock_guard lock(mu);
      ids.insert(std::this_thread::get_id());
      ran++;
    }));
  }
  EXPECT_FALSE(executor->OnExecutorThread());
  ASSERT_TRUE(WaitFor([&] { return ran.load() == 300; }));
  EXPECT_EQ(on_executor.load(), 300);
  EXPECT_LE(ids.size(), 3u);
  EXPECT_FALSE(ids.contains(std::this_thread::get_id()));
  ASSERT_TRUE(WaitFor([&] { return executor->stats().completed == 300; }));
  ExecutorStats stats = executor->stats();
  EXPECT_EQ(stats.name, "pool");
  EXPECT_EQ(stats.submitted, 300u);
  EXPECT_EQ(stats.rejected, 0u);
}

TEST(ExecutorTest, AFullQueueRefusesAndCounts) {
  FLOE_ASSERT_OK_AND_ASSIGN(auto executor,
                            Executor::Make({.name = "small", .threads = 1, .max_queued = 2}));
  std::mutex mu;
  std::condition_variable cv;
  bool release = false;
  std::atomic<bool> started{false};
  FLOE_ASSERT_OK(executor->Submit([&] {
    started = true;
    std::unique_lock lock(mu);
    cv.wait(lock, [&] { return release; });
  }));
  ASSERT_TRUE(WaitFor([&] { return started.load(); }));
  FLOE_ASSERT_OK(executor->Submit([] {}));
  FLOE_ASSERT_OK(executor->Submit([] {}));
  EXPECT_THAT(executor->Submit([] {}), IsError(StatusCode::kUnavailable));
  ExecutorStats stats = executor->stats();
  EXPECT_EQ(stats.queued, 2u);
  EXPECT_EQ(stats.running, 1u);
  EXPECT_EQ(stats.rejected, 1u);
  {
    std::lock_guard lock(mu);
    release = true;
  }
  cv.notify_all();
  ASSERT_TRUE(WaitFor([&] { return executor->stats().completed == 3; }));
  EXPECT_GT(executor->stats().queue_wait_seconds, 0.0);
}

TEST(ExecutorTest, DelayedTasksRunAfterTheirDelayInDeadlineOrder) {
  FLOE_ASSERT_OK_AND_ASSIGN(auto executor, Executor::Make({.name = "timer", .threads = 1}));
  std::mutex mu;
  std::vector<int> order;
  const auto start = std::chrono::steady_clock::now();
  std::chrono::steady_clock::duration first_at{};
  FLOE_ASSERT_OK(executor->SubmitAfter(80ms, [&] {
    std::lock_guard lock(mu);
    order.push_back(2);
  }));
  FLOE_ASSERT_OK(executor->SubmitAfter(40ms, [&] {
    std::lock_guard lock(mu);
    first_at = std::chrono::steady_clock::now() - start;
    order.push_back(1);
  }));
  EXPECT_EQ(executor->stats().delayed, 2u);
  ASSERT_TRUE(WaitFor([&] {
    std::lock_guard lock(mu);
    return order.size() == 2;
  }));
  EXPECT_EQ(order, (std::vector<int>{1, 2}));
  EXPECT_GE(first_at, 40ms);
}

TEST(ExecutorTest, StopRunsWhatIsQueuedDropsWhatIsDelayedAndRefusesMore) {
  FLOE_ASSERT_OK_AND_ASSIGN(auto executor, Executor::Make({.name = "stop", .threads = 1}));
  std::atomic<int> ran{0};
  for (int i = 0; i < 50; ++i) FLOE_ASSERT_OK(executor->Submit([&] { ran++; }));
  FLOE_ASSERT_OK(executor->SubmitAfter(1h, [&] { ran += 1000; }));
  executor->Stop();
  EXPECT_EQ(ran.load(), 50);
  EXPECT_THAT(executor->Submit([] {}), IsError(StatusCode::kUnavailable));
  EXPECT_THAT(executor->SubmitAfter(1ms, [] {}), IsError(StatusCode::kUnavailable));
  executor->Stop();  // idempotent
}

TEST(ExecutorTest, CountsTheCpuTimeOfItsTasksNotTheirWaiting) {
  FLOE_ASSERT_OK_AND_ASSIGN(auto executor, Executor::Make({.name = "cpu", .threads = 1}));
  std::atomic<bool> done{false};
  FLOE_ASSERT_OK(executor->Submit([&] {
    std::this_thread::sleep_for(200ms);  // wall time, no CPU
    const int64_t start = ThreadCpuNanos();
    volatile uint64_t x = 0;
    while (ThreadCpuNanos() - start < 50'000'000) x = x + 1;  // 50 ms of CPU
    done = true;
  }));
  ASSERT_TRUE(WaitFor([&] { return done.load() && executor->stats().completed == 1; }));
  const double cpu = executor->stats().busy_cpu_seconds;
  EXPECT_GE(cpu, 0.05);
  EXPECT_LT(cpu, 0.2);
}

TEST(TaskGroupTest, WaitReturnsTheFirstErrorAfterEveryTaskRan) {
  FLOE_ASSERT_OK_AND_ASSIGN(auto executor, Executor::Make({.name = "group", .threads = 2}));
  TaskGroup group(executor.get());
  std::atomic<int> ran{0};
  for (int i = 0; i < 20; ++i) {
    group.Run([&, i] {
      ran++;
      return i == 7 ? Status::Corrupt("task {}", i) : Status::OK();
    });
  }
  EXPECT_THAT(group.Wait(), IsError(StatusCode::kCorrupt, ::testing::HasSubstr("task 7")));
  EXPECT_EQ(ran.load(), 20);
  FLOE_EXPECT_OK(group.Wait());
}

TEST(TaskGroupTest, TasksOnAFullPoolMayForkAndWait) {
  // Every thread of the pool runs a task that forks subtasks and waits for them: without
  // the waiter running its own group's tasks this would deadlock.
  FLOE_ASSERT_OK_AND_ASSIGN(auto executor, Executor::Make({.name = "nested", .threads = 2}));
  std::atomic<int> leaves{0};
  TaskGroup outer(executor.get());
  for (int i = 0; i < 4; ++i) {
    outer.Run([&] {
      TaskGroup inner(executor.get());
      for (int j = 0; j < 8; ++j) {
        inner.Run([&] {
          leaves++;
          return Status::OK();
        });
      }
      return inner.Wait();
    });
  }
  FLOE_EXPECT_OK(outer.Wait());
  EXPECT_EQ(leaves.load(), 32);
}

TEST(TaskGroupTest, WithoutAnExecutorTasksRunOnTheCaller) {
  TaskGroup group(nullptr);
  std::thread::id ran_on;
  group.Run([&] {
    ran_on = std::this_thread::get_id();
    return Status::OK();
  });
  FLOE_EXPECT_OK(group.Wait());
  EXPECT_EQ(ran_on, std::this_thread::get_id());
}

TEST(TaskGroupTest, ARefusedTaskRunsInWait) {
  FLOE_ASSERT_OK_AND_ASSIGN(auto executor, Executor::Make({.name = "refuse", .threads = 1}));
  executor->Stop();
  TaskGroup group(executor.get());
  bool ran = false;
  group.Run([&] {
    ran = true;
    return Status::OK();
  });
  FLOE_EXPECT_OK(group.Wait());
  EXPECT_TRUE(ran);
}

}  // namespace
}  // namespace floe
