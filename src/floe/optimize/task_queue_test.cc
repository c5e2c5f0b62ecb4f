#include "floe/optimize/task_queue.h"

#include <gtest/gtest.h>

#include "floe/base/testing.h"

namespace floe::optimize {
namespace {

// The queue with a clock the test moves.
class TaskQueueTest : public ::testing::Test {
 protected:
  TaskQueueTest() {
    TaskQueueOptions o;
    o.now_ms = [this] { return now_; };
    o.heartbeat_timeout_ms = 60'000;
    o.ack_timeout_ms = 30'000;
    o.execute_timeout_ms = 600'000;
    o.on_finished = [this] { ++finished_calls_; };
    queue_ = std::make_unique<TaskQueue>(std::move(o));
    queue_->PutGroup("g", SchedulingPolicy::kQuota);
  }

  ProcessSubmission Process(int64_t id, const std::string& table, int tasks, double quota = 0.5,
                            int retries = 2) {
    ProcessSubmission p;
    p.process_id = id;
    p.group = "g";
    p.table = table;
    p.quota = quota;
    p.max_retries = retries;
    for (int i = 0; i < tasks; ++i) {
      p.tasks.push_back(
          TaskSpec{"payload-" + std::to_string(id) + "-" + std::to_string(i), "p", 1, 100});
    }
    return p;
  }

  std::string Register(int threads = 1) {
    auto o = queue_->Register("g", threads, 1024, false);
    FLOE_EXPECT_OK(o);
    return o->token;
  }

  Handout PollOne(const std::string& token, int32_t thread = 0) {
    auto h = queue_->Poll(token, thread);
    FLOE_EXPECT_OK(h);
    EXPECT_TRUE(h->has_value());
    return h->value_or(Handout{});
  }

  TaskStatus StatusOf(int64_t process, int64_t task) {
    for (const QueuedTask& t : queue_->ProcessTasks(process)) {
      if (t.task_id == task) return t.status;
    }
    ADD_FAILURE() << "no task " << process << "/" << task;
    return TaskStatus::kCanceled;
  }

  int64_t now_ = 1'000'000'000;
  int finished_calls_ = 0;
  std::unique_ptr<TaskQueue> queue_;
};

TEST_F(TaskQueueTest, TaskRunsThroughPollAckComplete) {
  const std::string token = Register();
  FLOE_ASSERT_OK(queue_->Submit(Process(1, "t1", 1)));
  Handout h = PollOne(token);
  EXPECT_EQ(h.process_id, 1);
  EXPECT_EQ(h.task_id, 0);
  EXPECT_EQ(h.attempt, 1);
  EXPECT_EQ(h.payload, "payload-1-0");
  EXPECT_EQ(StatusOf(1, 0), TaskStatus::kScheduled);
  FLOE_ASSERT_OK(queue_->Ack(token, 1, 0, h.attempt));
  EXPECT_EQ(StatusOf(1, 0), TaskStatus::kAcked);
  FLOE_ASSERT_OK(queue_->Complete(token, 1, 0, h.attempt, std::string("out")));
  EXPECT_EQ(finished_calls_, 1);
  auto finished = queue_->TakeFinished();
  ASSERT_EQ(finished.size(), 1u);
  EXPECT_EQ(finished[0].outcome, ProcessOutcome::kSuccess);
  EXPECT_EQ(finished[0].tasks[0].output, "out");
  EXPECT_EQ(finished[0].tasks[0].status, TaskStatus::kSuccess);
  EXPECT_TRUE(queue_->TakeFinished().empty());
}

TEST_F(TaskQueueTest, NothingToPollAndUnknownTokens) {
  const std::string token = Register();
  auto h = queue_->Poll(token, 0);
  FLOE_ASSERT_OK(h);
  EXPECT_FALSE(h->has_value());
  EXPECT_EQ(queue_->Poll("nope", 0).status().code(), StatusCode::kUnauthenticated);
  EXPECT_EQ(queue_->Heartbeat("nope").code(), StatusCode::kUnauthenticated);
  EXPECT_EQ(queue_->Poll(token, 1).status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(queue_->Register("other", 1, 0, false).status().code(), StatusCode::kNotFound);
  EXPECT_EQ(queue_->Register("g", 0, 0, false).status().code(), StatusCode::kInvalidArgument);
}

TEST_F(TaskQueueTest, AckTimeoutResetsTaskAndStaleAckIsRefused) {
  const std::string a = Register();
  const std::string b = Register();
  FLOE_ASSERT_OK(queue_->Submit(Process(1, "t1", 1)));
  Handout first = PollOne(a);
  now_ += 30'001;
  queue_->Expire();
  EXPECT_EQ(StatusOf(1, 0), TaskStatus::kPlanned);
  Handout second = PollOne(b);
  EXPECT_EQ(second.attempt, first.attempt + 1);
  // The first optimizer's ack comes too late: refused, so it does not run the task.
  EXPECT_EQ(queue_->Ack(a, 1, 0, first.attempt).code(), StatusCode::kFailedPrecondition);
  FLOE_ASSERT_OK(queue_->Ack(b, 1, 0, second.attempt));
  FLOE_ASSERT_OK(queue_->Complete(b, 1, 0, second.attempt, std::string("ok")));
  auto finished = queue_->TakeFinished();
  ASSERT_EQ(finished.size(), 1u);
  // Resets after timeouts are not failures.
  EXPECT_EQ(finished[0].tasks[0].retries, 0);
}

TEST_F(TaskQueueTest, ExecuteTimeoutAndStaleCompletionIsIgnored) {
  const std::string a = Register();
  const std::string b = Register();
  FLOE_ASSERT_OK(queue_->Submit(Process(1, "t1", 1)));
  Handout first = PollOne(a);
  FLOE_ASSERT_OK(queue_->Ack(a, 1, 0, first.attempt));
  now_ += 600'001;
  FLOE_ASSERT_OK(queue_->Heartbeat(a));  // alive, but the task took too long
  FLOE_ASSERT_OK(queue_->Heartbeat(b));
  queue_->Expire();
  EXPECT_EQ(StatusOf(1, 0), TaskStatus::kPlanned);
  Handout second = PollOne(b);
  FLOE_ASSERT_OK(queue_->Ack(b, 1, 0, second.attempt));
  // The slow first attempt completes late: ignored, the task stays with the second.
  EXPECT_EQ(queue_->Complete(a, 1, 0, first.attempt, std::string("late")).code(),
            StatusCode::kFailedPrecondition);
  EXPECT_EQ(StatusOf(1, 0), TaskStatus::kAcked);
  FLOE_ASSERT_OK(queue_->Complete(b, 1, 0, second.attempt, std::string("fresh")));
  auto finished = queue_->TakeFinished();
  ASSERT_EQ(finished.size(), 1u);
  EXPECT_EQ(finished[0].tasks[0].output, "fresh");
}

TEST_F(TaskQueueTest, DeadOptimizerLosesItsTasks) {
  const std::string a = Register();
  FLOE_ASSERT_OK(queue_->Submit(Process(1, "t1", 1)));
  Handout h = PollOne(a);
  FLOE_ASSERT_OK(queue_->Ack(a, 1, 0, h.attempt));
  now_ += 59'000;
  queue_->Expire();
  EXPECT_EQ(StatusOf(1, 0), TaskStatus::kAcked);  // within the heartbeat timeout
  now_ += 2'000;
  queue_->Expire();
  EXPECT_EQ(StatusOf(1, 0), TaskStatus::kPlanned);
  EXPECT_TRUE(queue_->Optimizers().empty());
  EXPECT_EQ(queue_->Heartbeat(a).code(), StatusCode::kUnauthenticated);
  EXPECT_EQ(queue_->Complete(a, 1, 0, h.attempt, std::string("x")).code(),
            StatusCode::kUnauthenticated);
}

TEST_F(TaskQueueTest, FailuresAreRetriedThenFailTheProcess) {
  const std::string a = Register(2);
  FLOE_ASSERT_OK(queue_->Submit(Process(1, "t1", 2, 0.5, /*retries=*/2)));
  // Task 1 succeeds; task 0 fails three times: the first failure and two retries.
  Handout first = PollOne(a, 0);
  Handout other = PollOne(a, 1);
  ASSERT_EQ(first.task_id, 0);
  ASSERT_EQ(other.task_id, 1);
  FLOE_ASSERT_OK(queue_->Ack(a, 1, 1, other.attempt));
  FLOE_ASSERT_OK(queue_->Complete(a, 1, 1, other.attempt, std::string("ok")));
  Handout h = first;
  for (int i = 0; i < 3; ++i) {
    if (i > 0) h = PollOne(a, 0);
    ASSERT_EQ(h.task_id, 0);
    EXPECT_EQ(h.attempt, i + 1);
    FLOE_ASSERT_OK(queue_->Ack(a, 1, 0, h.attempt));
    FLOE_ASSERT_OK(queue_->Complete(a, 1, 0, h.attempt, Status::IOError("disk full")));
    if (i < 2) {
      EXPECT_EQ(StatusOf(1, 0), TaskStatus::kPlanned) << "attempt " << i;
      EXPECT_TRUE(queue_->TakeFinished().empty());
    }
  }
  auto finished = queue_->TakeFinished();
  ASSERT_EQ(finished.size(), 1u);
  EXPECT_EQ(finished[0].outcome, ProcessOutcome::kFailed);
  EXPECT_EQ(finished[0].tasks[0].status, TaskStatus::kFailed);
  EXPECT_EQ(finished[0].tasks[0].retries, 3);
  EXPECT_NE(finished[0].error.find("disk full"), std::string::npos);
  EXPECT_EQ(finished[0].tasks[1].status, TaskStatus::kSuccess);
}

TEST_F(TaskQueueTest, CancelEndsProcessAndMakesCompletionsStale) {
  const std::string a = Register();
  FLOE_ASSERT_OK(queue_->Submit(Process(1, "t1", 2)));
  Handout h = PollOne(a);
  FLOE_ASSERT_OK(queue_->Ack(a, 1, h.task_id, h.attempt));
  FLOE_ASSERT_OK(queue_->Cancel(1));
  auto finished = queue_->TakeFinished();
  ASSERT_EQ(finished.size(), 1u);
  EXPECT_EQ(finished[0].outcome, ProcessOutcome::kCanceled);
  for (const QueuedTask& t : finished[0].tasks) EXPECT_EQ(t.status, TaskStatus::kCanceled);
  EXPECT_EQ(queue_->Complete(a, 1, h.task_id, h.attempt, std::string("x")).code(),
            StatusCode::kFailedPrecondition);
  EXPECT_EQ(queue_->Cancel(1).code(), StatusCode::kNotFound);
  // The table may have a new process now.
  FLOE_EXPECT_OK(queue_->Submit(Process(2, "t1", 1)));
}

TEST_F(TaskQueueTest, PollingAgainReleasesTheThreadsTask) {
  const std::string a = Register();
  FLOE_ASSERT_OK(queue_->Submit(Process(1, "t1", 1)));
  Handout first = PollOne(a);
  FLOE_ASSERT_OK(queue_->Ack(a, 1, 0, first.attempt));
  // The thread restarted (it cannot be running the task while it polls): handed out anew.
  Handout again = PollOne(a);
  EXPECT_EQ(again.task_id, 0);
  EXPECT_EQ(again.attempt, first.attempt + 1);
}

TEST_F(TaskQueueTest, DrainingOptimizerGetsNoTasks) {
  auto o = queue_->Register("g", 1, 0, false);
  FLOE_ASSERT_OK(o);
  FLOE_ASSERT_OK(queue_->Submit(Process(1, "t1", 1)));
  FLOE_ASSERT_OK(queue_->Drain(o->id));
  EXPECT_TRUE(*queue_->Draining(o->token));
  auto h = queue_->Poll(o->token, 0);
  FLOE_ASSERT_OK(h);
  EXPECT_FALSE(h->has_value());
  EXPECT_EQ(queue_->GroupThreads("g"), 0);
  EXPECT_EQ(queue_->RemoveGroup("g").code(), StatusCode::kFailedPrecondition);
}

TEST_F(TaskQueueTest, QuotaLimitsTasksPerTableUnlessNothingElseWaits) {
  // 4 threads, quota 0.5: each table may hold ceil(0.5 * 4) = 2 tasks at once.
  const std::string a = Register(4);
  FLOE_ASSERT_OK(queue_->Submit(Process(1, "t1", 4)));
  FLOE_ASSERT_OK(queue_->Submit(Process(2, "t2", 4)));
  std::map<int64_t, int> per_process;
  for (int thread = 0; thread < 4; ++thread) ++per_process[PollOne(a, thread).process_id];
  EXPECT_EQ(per_process[1], 2);
  EXPECT_EQ(per_process[2], 2);
}

TEST_F(TaskQueueTest, QuotaBreaksLimitWhenNoOtherTableHasWork) {
  const std::string a = Register(4);
  FLOE_ASSERT_OK(queue_->Submit(Process(1, "t1", 4)));
  for (int thread = 0; thread < 4; ++thread) EXPECT_EQ(PollOne(a, thread).process_id, 1);
}

TEST_F(TaskQueueTest, QuotaPolicyPrefersTheTableThatUsedLeast) {
  const std::string a = Register(1);
  // t1 ran for 10 minutes in the last hour.
  FLOE_ASSERT_OK(queue_->Submit(Process(1, "t1", 1)));
  Handout h = PollOne(a);
  FLOE_ASSERT_OK(queue_->Ack(a, 1, 0, h.attempt));
  now_ += 600'000;
  FLOE_ASSERT_OK(queue_->Complete(a, 1, 0, h.attempt, std::string("ok")));
  // quota limit 1 thread: 10 min / 60 min / 1.
  EXPECT_NEAR(queue_->QuotaOccupation("t1", 0.5, 1), 1.0 / 6, 1e-9);
  // Submitted first, but t1 has used its quota; t2 has not.
  FLOE_ASSERT_OK(queue_->Submit(Process(3, "t1", 1)));
  FLOE_ASSERT_OK(queue_->Submit(Process(4, "t2", 1)));
  EXPECT_EQ(PollOne(a).process_id, 4);
  // An hour later t1's use has left the window.
  now_ += 3'600'001;
  EXPECT_EQ(queue_->QuotaOccupation("t1", 0.5, 1), 0.0);
}

TEST_F(TaskQueueTest, QuotaAboveOneIsAThreadCount) {
  const std::string a = Register(1);
  FLOE_ASSERT_OK(queue_->Submit(Process(1, "t1", 1)));
  Handout h = PollOne(a);
  FLOE_ASSERT_OK(queue_->Ack(a, 1, 0, h.attempt));
  now_ += 1'800'000;
  FLOE_ASSERT_OK(queue_->Complete(a, 1, 0, h.attempt, std::string("ok")));
  // 30 min of the hour over a limit of 3 threads.
  EXPECT_NEAR(queue_->QuotaOccupation("t1", 3, 1), 0.5 / 3, 1e-9);
}

TEST_F(TaskQueueTest, BalancedPolicyPrefersTheTableOptimizedLongestAgo) {
  queue_->PutGroup("g", SchedulingPolicy::kBalanced);
  const std::string a = Register(1);
  ProcessSubmission recent = Process(1, "t1", 1);
  recent.last_optimized_ms = now_ - 1000;
  ProcessSubmission old = Process(2, "t2", 1);
  old.last_optimized_ms = now_ - 100'000;
  FLOE_ASSERT_OK(queue_->Submit(std::move(recent)));
  FLOE_ASSERT_OK(queue_->Submit(std::move(old)));
  EXPECT_EQ(PollOne(a).process_id, 2);
}

TEST_F(TaskQueueTest, SubmitChecks) {
  EXPECT_EQ(queue_->Submit(Process(1, "t1", 0)).code(), StatusCode::kInvalidArgument);
  ProcessSubmission p = Process(1, "t1", 1);
  p.group = "nope";
  EXPECT_EQ(queue_->Submit(std::move(p)).code(), StatusCode::kNotFound);
  FLOE_ASSERT_OK(queue_->Submit(Process(1, "t1", 1)));
  EXPECT_EQ(queue_->Submit(Process(1, "t2", 1)).code(), StatusCode::kAlreadyExists);
  EXPECT_EQ(queue_->Submit(Process(2, "t1", 1)).code(), StatusCode::kAlreadyExists);
  EXPECT_EQ(queue_->RemoveGroup("g").code(), StatusCode::kFailedPrecondition);
}

TEST_F(TaskQueueTest, GroupStatsCountTasks) {
  const std::string a = Register(2);
  FLOE_ASSERT_OK(queue_->Submit(Process(1, "t1", 3)));
  Handout h = PollOne(a);
  auto g = queue_->FindGroup("g");
  ASSERT_TRUE(g.has_value());
  EXPECT_EQ(g->threads, 2);
  EXPECT_EQ(g->optimizers, 1);
  EXPECT_EQ(g->queued_tasks, 2);
  EXPECT_EQ(g->running_tasks, 1);
  FLOE_ASSERT_OK(queue_->Ack(a, 1, h.task_id, h.attempt));
  FLOE_ASSERT_OK(queue_->Complete(a, 1, h.task_id, h.attempt, std::string("ok")));
  g = queue_->FindGroup("g");
  EXPECT_EQ(g->completed_tasks, 1);
  EXPECT_EQ(g->completed_bytes, 100);
}

}  // namespace
}  // namespace floe::optimize
