// Executor: a named, bounded pool of threads that runs the server's CPU and blocking work
// (DESIGN §5: one fixed worker pool sized to the cores), and TaskGroup, a fork-join over it.
//
// A server builds its executors in main()/Server::Start and passes them down; modules do not
// start threads of their own for per-item work (per prefetch, per rewrite, per topic). Each
// executor counts what it ran, what waited and for how long, and the CPU time its threads
// spent (thread CPU time, not wall time), for /metrics.
//
// Thread-safety: every method may be called from any thread, including the executor's own.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "floe/base/status.h"

namespace floe {

struct ExecutorOptions {
  // Names the threads ("<name>-<i>", cut to the 15 bytes Linux keeps) and the metrics.
  std::string name = "floe";
  // Threads; 0: one per core.
  int threads = 0;
  // Tasks that may wait for a thread; Submit refuses more (Unavailable). Delayed tasks count
  // once they are due.
  size_t max_queued = 100'000;
};

// A consistent-enough reading of an executor's counters (each counter is read atomically).
struct ExecutorStats {
  std::string name;
  int threads = 0;
  uint64_t queued = 0;   // waiting for a thread now
  uint64_t delayed = 0;  // SubmitAfter tasks not yet due
  uint64_t running = 0;  // on a thread now
  uint64_t submitted = 0;
  uint64_t completed = 0;
  uint64_t rejected = 0;          // refused by a full queue or a stopped executor
  double queue_wait_seconds = 0;  // summed over completed tasks, enqueue to start
  double busy_cpu_seconds = 0;    // thread CPU time of the tasks
};

// CPU time of the calling thread in nanoseconds (CLOCK_THREAD_CPUTIME_ID).
int64_t ThreadCpuNanos();

class Executor {
 public:
  // Starts the threads. InvalidArgument for a negative thread count or a zero queue bound.
  static Result<std::unique_ptr<Executor>> Make(ExecutorOptions options);
  ~Executor();

  Executor(const Executor&) = delete;
  Executor& operator=(const Executor&) = delete;

  // Queues `task`. Unavailable when the queue holds max_queued tasks or Stop was called; the
  // task is then not run (the caller decides: run it inline, retry, or report the refusal).
  Status Submit(std::function<void()> task);

  // Queues `task` once `delay` has passed (a timer, not a sleeping thread). Unavailable after
  // Stop. A due task is queued even when the queue is full (it was accepted earlier).
  Status SubmitAfter(std::chrono::milliseconds delay, std::function<void()> task);

  // Refuses new tasks, drops delayed ones that are not due, runs what is queued, and joins
  // the threads. Idempotent, but not to be called concurrently, nor from one of the
  // executor's own threads.
  void Stop();

  // Whether the calling thread is one of this executor's.
  bool OnExecutorThread() const;

  int threads() const { return options_.threads; }
  const std::string& name() const { return options_.name; }
  ExecutorStats stats() const;

 private:
  explicit Executor(ExecutorOptions options);
  void Work(size_t index);
  void Timer();

  struct Queued {
    std::function<void()> task;
    std::chrono::steady_clock::time_point enqueued;
  };
  struct Delayed {
    std::chrono::steady_clock::time_point due;
    uint64_t order;  // FIFO among equal deadlines
    std::function<void()> task;
  };

  ExecutorOptions options_;
  mutable std::mutex mu_;
  std::condition_variable work_cv_;   // a task was queued, or stopping (guarded by mu_)
  std::condition_variable timer_cv_;  // an earlier deadline, or stopping (guarded by mu_)
  std::deque<Queued> queue_;          // guarded by mu_
  std::vector<Delayed> delayed_;      // a min-heap by (due, order); guarded by mu_
  uint64_t delayed_order_ = 0;        // guarded by mu_
  bool stopping_ = false;             // guarded by mu_
  std::vector<std::thread> threads_;
  std::thread timer_;

  std::atomic<uint64_t> running_{0};
  std::atomic<uint64_t> submitted_{0};
  std::atomic<uint64_t> completed_{0};
  std::atomic<uint64_t> rejected_{0};
  std::atomic<int64_t> queue_wait_ns_{0};
  std::atomic<int64_t> busy_cpu_ns_{0};
};

// Fork-join: tasks run on an executor and Wait returns when all have finished. The waiting
// thread runs tasks of its own group that no executor thread has started yet, so a task
// already on the executor may fork and wait without deadlocking a full pool. With a null
// executor, or when the executor refuses a task, the tasks run in Wait on the caller.
//
// Thread-safety: Run and Wait from one thread (the owner); the tasks run anywhere.
class TaskGroup {
 public:
  explicit TaskGroup(Executor* executor);
  // Waits for the tasks still running (their errors are dropped: call Wait to see them).
  ~TaskGroup();

  TaskGroup(const TaskGroup&) = delete;
  TaskGroup& operator=(const TaskGroup&) = delete;

  void Run(std::function<Status()> task);

  // Runs or waits for every task given to Run; returns the first error (by completion).
  Status Wait();

 private:
  struct State;
  Executor* executor_;
  std::shared_ptr<State> state_;
};

}  // namespace floe
