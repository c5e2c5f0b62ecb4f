#include "floe/base/executor.h"

#include <pthread.h>
#include <time.h>

#include <algorithm>
#include <utility>

namespace floe {

namespace {

// Which executor the calling thread belongs to (none: null). Set once per thread at its start.
thread_local const Executor* current_executor = nullptr;

bool Later(const auto& a, const auto& b) {
  return a.due != b.due ? a.due > b.due : a.order > b.order;
}

}  // namespace

int64_t ThreadCpuNanos() {
  timespec ts{};
  if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts) != 0) return 0;
  return static_cast<int64_t>(ts.tv_sec) * 1'000'000'000 + ts.tv_nsec;
}

Result<std::unique_ptr<Executor>> Executor::Make(ExecutorOptions options) {
  if (options.threads < 0) {
    return Status::InvalidArgument("executor '{}': threads must be >= 0, got {}", options.name,
                                   options.threads);
  }
  if (options.max_queued == 0) {
    return Status::InvalidArgument("executor '{}': max_queued must be > 0", options.name);
  }
  if (options.threads == 0) {
    options.threads = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  }
  std::unique_ptr<Executor> executor(new Executor(std::move(options)));
  const size_t n = static_cast<size_t>(executor->options_.threads);
  executor->threads_.reserve(n);
  for (size_t i = 0; i < n; ++i) {
    executor->threads_.emplace_back([raw = executor.get(), i] { raw->Work(i); });
  }
  executor->timer_ = std::thread([raw = executor.get()] { raw->Timer(); });
  return executor;
}

Executor::Executor(ExecutorOptions options) : options_(std::move(options)) {}

Executor::~Executor() { Stop(); }

Status Executor::Submit(std::function<void()> task) {
  {
    std::lock_guard lock(mu_);
    if (stopping_) {
      rejected_.fetch_add(1, std::memory_order_relaxed);
      return Status::Unavailable("executor '{}' is stopping", options_.name);
    }
    if (queue_.size() >= options_.max_queued) {
      rejected_.fetch_add(1, std::memory_order_relaxed);
      return Status::Unavailable("executor '{}' has {} tasks queued", options_.name, queue_.size());
    }
    queue_.push_back({std::move(task), std::chrono::steady_clock::now()});
    submitted_.fetch_add(1, std::memory_order_relaxed);
  }
  work_cv_.notify_one();
  return Status::OK();
}

Status Executor::SubmitAfter(std::chrono::milliseconds delay, std::function<void()> task) {
  if (delay.count() <= 0) {
    std::lock_guard lock(mu_);
    if (stopping_) {
      rejected_.fetch_add(1, std::memory_order_relaxed);
      return Status::Unavailable("executor '{}' is stopping", options_.name);
    }
    queue_.push_back({std::move(task), std::chrono::steady_clock::now()});
    submitted_.fetch_add(1, std::memory_order_relaxed);
    work_cv_.notify_one();
    return Status::OK();
  }
  {
    std::lock_guard lock(mu_);
    if (stopping_) {
      rejected_.fetch_add(1, std::memory_order_relaxed);
      return Status::Unavailable("executor '{}' is stopping", options_.name);
    }
    delayed_.push_back(
        {std::chrono::steady_clock::now() + delay, delayed_order_++, std::move(task)});
    std::push_heap(delayed_.begin(), delayed_.end(), Later<Delayed, Delayed>);
  }
  timer_cv_.notify_one();
  return Status::OK();
}

void Executor::Timer() {
  std::unique_lock lock(mu_);
  while (!stopping_) {
    if (delayed_.empty()) {
      timer_cv_.wait(lock);
      continue;
    }
    const auto due = delayed_.front().due;
    if (std::chrono::steady_clock::now() < due) {
      timer_cv_.wait_until(lock, due);
      continue;
    }
    std::pop_heap(delayed_.begin(), delayed_.end(), Later<Delayed, Delayed>);
    queue_.push_back({std::move(delayed_.back().task), std::chrono::steady_clock::now()});
    delayed_.pop_back();
    submitted_.fetch_add(1, std::memory_order_relaxed);
    work_cv_.notify_one();
  }
}

void Executor::Work(size_t index) {
  current_executor = this;
  // Linux keeps 15 bytes of a thread's name.
  std::string thread_name = options_.name.substr(0, 10) + "-" + std::to_string(index);
  pthread_setname_np(pthread_self(), thread_name.substr(0, 15).c_str());
  std::unique_lock lock(mu_);
  for (;;) {
    work_cv_.wait(lock, [this] { return stopping_ || !queue_.empty(); });
    if (queue_.empty()) return;  // stopping, and everything queued has run
    Queued item = std::move(queue_.front());
    queue_.pop_front();
    running_.fetch_add(1, std::memory_order_relaxed);
    lock.unlock();
    const auto started = std::chrono::steady_clock::now();
    queue_wait_ns_.fetch_add(
        std::chrono::duration_cast<std::chrono::nanoseconds>(started - item.enqueued).count(),
        std::memory_order_relaxed);
    const int64_t cpu_before = ThreadCpuNanos();
    item.task();
    // Destroy what the task captured before counting it done.
    item.task = nullptr;
    busy_cpu_ns_.fetch_add(ThreadCpuNanos() - cpu_before, std::memory_order_relaxed);
    running_.fetch_sub(1, std::memory_order_relaxed);
    completed_.fetch_add(1, std::memory_order_relaxed);
    lock.lock();
  }
}

void Executor::Stop() {
  {
    std::lock_guard lock(mu_);
    if (stopping_ && threads_.empty()) return;
    stopping_ = true;
    delayed_.clear();
  }
  work_cv_.notify_all();
  timer_cv_.notify_all();
  for (std::thread& t : threads_) {
    if (t.joinable()) t.join();
  }
  if (timer_.joinable()) timer_.join();
  std::lock_guard lock(mu_);
  threads_.clear();
}

bool Executor::OnExecutorThread() const { return current_executor == this; }

ExecutorStats Executor::stats() const {
  ExecutorStats s;
  s.name = options_.name;
  s.threads = options_.threads;
  {
    std::lock_guard lock(mu_);
    s.queued = queue_.size();
    s.delayed = delayed_.size();
  }
  s.running = running_.load(std::memory_order_relaxed);
  s.submitted = submitted_.load(std::memory_order_relaxed);
  s.completed = completed_.load(std::memory_order_relaxed);
  s.rejected = rejected_.load(std::memory_order_relaxed);
  s.queue_wait_seconds = static_cast<double>(queue_wait_ns_.load(std::memory_order_relaxed)) / 1e9;
  s.busy_cpu_seconds = static_cast<double>(busy_cpu_ns_.load(std::memory_order_relaxed)) / 1e9;
  return s;
}

struct TaskGroup::State {
  std::mutex mu;
  std::condition_variable done_cv;
  std::deque<std::function<Status()>> pending;  // not started yet; guarded by mu
  size_t running = 0;                           // started, not finished; guarded by mu
  Status first_error;                           // guarded by mu

  // Runs one pending task if there is one; false when none was pending.
  bool RunOne() {
    std::function<Status()> task;
    {
      std::lock_guard lock(mu);
      if (pending.empty()) return false;
      task = std::move(pending.front());
      pending.pop_front();
      ++running;
    }
    Status status = task();
    task = nullptr;
    {
      std::lock_guard lock(mu);
      if (!status.ok() && first_error.ok()) first_error = std::move(status);
      --running;
    }
    done_cv.notify_all();
    return true;
  }
};

TaskGroup::TaskGroup(Executor* executor) : executor_(executor), state_(std::make_shared<State>()) {}

TaskGroup::~TaskGroup() { (void)Wait(); }

void TaskGroup::Run(std::function<Status()> task) {
  {
    std::lock_guard lock(state_->mu);
    state_->pending.push_back(std::move(task));
  }
  if (executor_ == nullptr) return;
  // Each submitted job runs whichever task of the group is next; a refused job leaves its
  // task to Wait.
  (void)executor_->Submit([state = state_] { state->RunOne(); });
}

Status TaskGroup::Wait() {
  while (state_->RunOne()) {
  }
  std::unique_lock lock(state_->mu);
  state_->done_cv.wait(lock, [this] { return state_->pending.empty() && state_->running == 0; });
  Status result = std::move(state_->first_error);
  state_->first_error = Status::OK();
  return result;
}

}  // namespace floe
