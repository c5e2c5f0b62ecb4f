#include "floe/optimize/task_queue.h"

#include <algorithm>
#include <cmath>
#include <random>

#include <fmt/format.h>

namespace floe::optimize {

namespace {

// Amoro's QUOTA_LOOK_BACK_TIME: quota use is measured over the last hour.
constexpr int64_t kQuotaWindowMs = 3'600'000;

std::string RandomToken() {
  std::random_device rd;
  return fmt::format("{:08x}{:08x}{:08x}{:08x}", rd(), rd(), rd(), rd());
}

bool Unfinished(TaskStatus s) {
  return s == TaskStatus::kPlanned || s == TaskStatus::kScheduled || s == TaskStatus::kAcked;
}

bool Running(TaskStatus s) { return s == TaskStatus::kScheduled || s == TaskStatus::kAcked; }

}  // namespace

std::string_view TaskStatusName(TaskStatus status) {
  switch (status) {
    case TaskStatus::kPlanned: return "planned";
    case TaskStatus::kScheduled: return "scheduled";
    case TaskStatus::kAcked: return "acked";
    case TaskStatus::kSuccess: return "success";
    case TaskStatus::kFailed: return "failed";
    case TaskStatus::kCanceled: return "canceled";
  }
  return "planned";
}

Result<SchedulingPolicy> ParseSchedulingPolicy(std::string_view name) {
  if (name == "quota") return SchedulingPolicy::kQuota;
  if (name == "balanced") return SchedulingPolicy::kBalanced;
  return Status::InvalidArgument("scheduling-policy must be quota or balanced, not '{}'", name);
}

std::string_view SchedulingPolicyName(SchedulingPolicy policy) {
  return policy == SchedulingPolicy::kBalanced ? "balanced" : "quota";
}

TaskQueue::TaskQueue(TaskQueueOptions options) : options_(std::move(options)) {
  if (!options_.new_token) options_.new_token = RandomToken;
}

void TaskQueue::PutGroup(const std::string& name, SchedulingPolicy policy) {
  std::lock_guard lock(mu_);
  groups_[name].policy = policy;
}

Status TaskQueue::RemoveGroup(const std::string& name) {
  std::lock_guard lock(mu_);
  if (!groups_.contains(name)) return Status::NotFound("no optimizer group named '{}'", name);
  for (const auto& [id, o] : optimizers_) {
    if (o.group == name) {
      return Status::FailedPrecondition("optimizer group '{}' still has optimizer {}", name, id);
    }
  }
  for (const auto& [id, p] : processes_) {
    if (p.submission.group == name) {
      return Status::FailedPrecondition("optimizer group '{}' still runs process {} of {}", name,
                                        id, p.submission.table);
    }
  }
  groups_.erase(name);
  return Status::OK();
}

bool TaskQueue::HasGroup(const std::string& name) const {
  std::lock_guard lock(mu_);
  return groups_.contains(name);
}

OptimizerInfo* TaskQueue::FindByToken(const std::string& token) {
  for (auto& [id, o] : optimizers_) {
    if (o.token == token) return &o;
  }
  return nullptr;
}

const OptimizerInfo* TaskQueue::FindByToken(const std::string& token) const {
  for (const auto& [id, o] : optimizers_) {
    if (o.token == token) return &o;
  }
  return nullptr;
}

Result<OptimizerInfo> TaskQueue::Register(const std::string& group, int32_t threads,
                                          int64_t memory_mb, bool local) {
  if (threads < 1 || threads > 1024) {
    return Status::InvalidArgument("an optimizer needs 1 to 1024 threads, not {}", threads);
  }
  if (memory_mb < 0) return Status::InvalidArgument("memory must not be negative");
  std::lock_guard lock(mu_);
  if (!groups_.contains(group)) return Status::NotFound("no optimizer group named '{}'", group);
  OptimizerInfo o;
  o.id = fmt::format("{}-{}", local ? "local" : "optimizer", ++next_optimizer_);
  o.token = options_.new_token();
  o.group = group;
  o.threads = threads;
  o.memory_mb = memory_mb;
  o.local = local;
  o.registered_ms = options_.now_ms();
  o.heartbeat_ms = o.registered_ms;
  optimizers_[o.id] = o;
  return o;
}

Status TaskQueue::Heartbeat(const std::string& token) {
  std::lock_guard lock(mu_);
  OptimizerInfo* o = FindByToken(token);
  if (o == nullptr) return Status::Unauthenticated("unknown optimizer token: register again");
  o->heartbeat_ms = options_.now_ms();
  return Status::OK();
}

Result<bool> TaskQueue::Draining(const std::string& token) const {
  std::lock_guard lock(mu_);
  const OptimizerInfo* o = FindByToken(token);
  if (o == nullptr) return Status::Unauthenticated("unknown optimizer token: register again");
  return o->draining;
}

void TaskQueue::ReleaseTasksOf(const std::string& optimizer_id, std::optional<int32_t> thread,
                               Changed* changed) {
  for (auto& [pid, p] : processes_) {
    for (QueuedTask& t : p.tasks) {
      if (!Running(t.status) || t.optimizer_id != optimizer_id) continue;
      if (thread && t.thread != *thread) continue;
      if (t.status == TaskStatus::kAcked)
        RecordUsage(p.submission.table, t.acked_ms, options_.now_ms());
      t.status = TaskStatus::kPlanned;
      changed->emplace_back(pid, t.task_id);
    }
  }
}

Status TaskQueue::Unregister(const std::string& token) {
  Changed changed;
  {
    std::lock_guard lock(mu_);
    OptimizerInfo* o = FindByToken(token);
    if (o == nullptr) return Status::Unauthenticated("unknown optimizer token");
    const std::string id = o->id;
    ReleaseTasksOf(id, std::nullopt, &changed);
    optimizers_.erase(id);
  }
  Notify(changed, false);
  return Status::OK();
}

Status TaskQueue::Drain(const std::string& optimizer_id) {
  std::lock_guard lock(mu_);
  auto it = optimizers_.find(optimizer_id);
  if (it == optimizers_.end()) return Status::NotFound("no optimizer '{}'", optimizer_id);
  it->second.draining = true;
  return Status::OK();
}

int64_t TaskQueue::QuotaTimeLocked(const std::string& table, int64_t now) const {
  const int64_t window_start = now - kQuotaWindowMs;
  int64_t total = 0;
  if (auto it = usage_.find(table); it != usage_.end()) {
    for (const auto& [start, end] : it->second) {
      if (end > window_start) total += end - std::max(start, window_start);
    }
  }
  for (const auto& [pid, p] : processes_) {
    if (p.submission.table != table) continue;
    for (const QueuedTask& t : p.tasks) {
      if (t.status == TaskStatus::kAcked) total += now - std::max(t.acked_ms, window_start);
    }
  }
  return total;
}

void TaskQueue::RecordUsage(const std::string& table, int64_t start_ms, int64_t end_ms) {
  auto& runs = usage_[table];
  runs.emplace_back(start_ms, end_ms);
  const int64_t window_start = options_.now_ms() - kQuotaWindowMs;
  while (!runs.empty() && runs.front().second <= window_start) runs.pop_front();
}

int64_t TaskQueue::GroupThreadsLocked(const std::string& group) const {
  int64_t threads = 0;
  for (const auto& [id, o] : optimizers_) {
    if (o.group == group && !o.draining) threads += o.threads;
  }
  return threads;
}

int64_t TaskQueue::GroupThreads(const std::string& group) const {
  std::lock_guard lock(mu_);
  return GroupThreadsLocked(group);
}

namespace {

// Amoro's quota limit: quota > 1 is a thread count, else a share of the group's threads.
int64_t QuotaLimit(double quota, int64_t group_threads) {
  if (quota > 1) return static_cast<int64_t>(quota);
  return std::max<int64_t>(
      1, static_cast<int64_t>(std::ceil(quota * static_cast<double>(group_threads))));
}

}  // namespace

double TaskQueue::QuotaOccupation(const std::string& table, double quota,
                                  int64_t group_threads) const {
  std::lock_guard lock(mu_);
  return static_cast<double>(QuotaTimeLocked(table, options_.now_ms())) /
         static_cast<double>(kQuotaWindowMs) /
         static_cast<double>(QuotaLimit(quota, group_threads));
}

Result<std::optional<Handout>> TaskQueue::Poll(const std::string& token, int32_t thread) {
  Changed changed;
  std::optional<Handout> handout;
  {
    std::lock_guard lock(mu_);
    OptimizerInfo* o = FindByToken(token);
    if (o == nullptr) return Status::Unauthenticated("unknown optimizer token: register again");
    if (thread < 0 || thread >= o->threads) {
      return Status::InvalidArgument("thread {} is outside 0..{}", thread, o->threads - 1);
    }
    const int64_t now = options_.now_ms();
    o->heartbeat_ms = now;
    ReleaseTasksOf(o->id, thread, &changed);
    if (!o->draining) {
      const Group& group = groups_[o->group];
      const int64_t threads = GroupThreadsLocked(o->group);
      // Candidate processes of the group with planned tasks, in policy order.
      struct Candidate {
        Process* process;
        double key;
        int64_t running;
      };
      std::vector<Candidate> candidates;
      for (auto& [pid, p] : processes_) {
        if (p.submission.group != o->group) continue;
        bool planned = false;
        int64_t running = 0;
        for (const QueuedTask& t : p.tasks) {
          planned |= t.status == TaskStatus::kPlanned;
          running += Running(t.status) ? 1 : 0;
        }
        if (!planned) continue;
        double key = group.policy == SchedulingPolicy::kBalanced
                         ? static_cast<double>(p.submission.last_optimized_ms)
                         : static_cast<double>(QuotaTimeLocked(p.submission.table, now)) /
                               static_cast<double>(QuotaLimit(p.submission.quota, threads));
        candidates.push_back({&p, key, running});
      }
      std::stable_sort(candidates.begin(), candidates.end(),
                       [](const Candidate& a, const Candidate& b) {
                         if (a.key != b.key) return a.key < b.key;
                         return a.process->submit_order < b.process->submit_order;
                       });
      Process* chosen = nullptr;
      for (const Candidate& c : candidates) {
        if (c.running < QuotaLimit(c.process->submission.quota, threads)) {
          chosen = c.process;
          break;
        }
      }
      // Break the quota limit rather than leave a thread idle.
      if (chosen == nullptr && !candidates.empty()) chosen = candidates.front().process;
      if (chosen != nullptr) {
        for (QueuedTask& t : chosen->tasks) {
          if (t.status != TaskStatus::kPlanned) continue;
          t.status = TaskStatus::kScheduled;
          ++t.attempt;
          t.optimizer_id = o->id;
          t.thread = thread;
          t.scheduled_ms = now;
          t.acked_ms = 0;
          handout = Handout{t.process_id, t.task_id, t.attempt, t.payload};
          changed.emplace_back(t.process_id, t.task_id);
          break;
        }
      }
    }
  }
  Notify(changed, false);
  return handout;
}

Status TaskQueue::Ack(const std::string& token, int64_t process_id, int64_t task_id,
                      int64_t attempt) {
  {
    std::lock_guard lock(mu_);
    OptimizerInfo* o = FindByToken(token);
    if (o == nullptr) return Status::Unauthenticated("unknown optimizer token: register again");
    o->heartbeat_ms = options_.now_ms();
    auto it = processes_.find(process_id);
    if (it == processes_.end() || task_id < 0 ||
        task_id >= static_cast<int64_t>(it->second.tasks.size())) {
      return Status::FailedPrecondition("task {}/{} is not running", process_id, task_id);
    }
    QueuedTask& t = it->second.tasks[static_cast<size_t>(task_id)];
    if (t.status != TaskStatus::kScheduled || t.attempt != attempt || t.optimizer_id != o->id) {
      return Status::FailedPrecondition("stale ack of task {}/{} attempt {}", process_id, task_id,
                                        attempt);
    }
    t.status = TaskStatus::kAcked;
    t.acked_ms = options_.now_ms();
  }
  Notify({{process_id, task_id}}, false);
  return Status::OK();
}

Status TaskQueue::Complete(const std::string& token, int64_t process_id, int64_t task_id,
                           int64_t attempt, const Result<std::string>& output) {
  Changed changed;
  bool finished = false;
  {
    std::lock_guard lock(mu_);
    OptimizerInfo* o = FindByToken(token);
    if (o == nullptr) return Status::Unauthenticated("unknown optimizer token: register again");
    const int64_t now = options_.now_ms();
    o->heartbeat_ms = now;
    auto it = processes_.find(process_id);
    if (it == processes_.end() || task_id < 0 ||
        task_id >= static_cast<int64_t>(it->second.tasks.size())) {
      return Status::FailedPrecondition("task {}/{} is not running", process_id, task_id);
    }
    Process& p = it->second;
    QueuedTask& t = p.tasks[static_cast<size_t>(task_id)];
    if (t.status != TaskStatus::kAcked || t.attempt != attempt || t.optimizer_id != o->id) {
      return Status::FailedPrecondition("stale completion of task {}/{} attempt {}", process_id,
                                        task_id, attempt);
    }
    RecordUsage(p.submission.table, t.acked_ms, now);
    t.end_ms = now;
    Group& group = groups_[p.submission.group];
    if (output.ok()) {
      t.status = TaskStatus::kSuccess;
      t.output = *output;
      t.error.clear();
      ++o->completed_tasks;
      ++group.completed_tasks;
      group.completed_bytes += t.input_bytes;
      group.busy_ms += now - t.acked_ms;
    } else {
      ++t.retries;
      t.error = output.status().ToString();
      ++o->failed_tasks;
      ++group.failed_tasks;
      // `retries` counts failures: num-retries = N allows N executions after the first.
      t.status = t.retries <= p.submission.max_retries ? TaskStatus::kPlanned : TaskStatus::kFailed;
    }
    changed.emplace_back(process_id, task_id);
    finished = MaybeFinish(process_id, &changed);
  }
  Notify(changed, finished);
  return Status::OK();
}

Status TaskQueue::Submit(ProcessSubmission submission) {
  if (submission.tasks.empty()) return Status::InvalidArgument("a process needs tasks");
  Changed changed;
  {
    std::lock_guard lock(mu_);
    if (!groups_.contains(submission.group)) {
      return Status::NotFound("no optimizer group named '{}'", submission.group);
    }
    if (processes_.contains(submission.process_id)) {
      return Status::AlreadyExists("process {} is queued", submission.process_id);
    }
    if (queued_tables_.contains(submission.table)) {
      return Status::AlreadyExists("{} already has a process queued", submission.table);
    }
    Process p;
    p.submit_order = ++next_submit_;
    for (size_t i = 0; i < submission.tasks.size(); ++i) {
      QueuedTask t;
      t.process_id = submission.process_id;
      t.task_id = static_cast<int64_t>(i);
      t.payload = std::move(submission.tasks[i].payload);
      t.partition_key = std::move(submission.tasks[i].partition_key);
      t.input_files = submission.tasks[i].input_files;
      t.input_bytes = submission.tasks[i].input_bytes;
      changed.emplace_back(t.process_id, t.task_id);
      p.tasks.push_back(std::move(t));
    }
    submission.tasks.clear();
    queued_tables_.insert(submission.table);
    const int64_t id = submission.process_id;
    p.submission = std::move(submission);
    processes_.emplace(id, std::move(p));
  }
  Notify(changed, false);
  return Status::OK();
}

void TaskQueue::Finish(Process& p, ProcessOutcome outcome, std::string error, Changed* changed) {
  const int64_t now = options_.now_ms();
  for (QueuedTask& t : p.tasks) {
    if (!Unfinished(t.status)) continue;
    if (t.status == TaskStatus::kAcked) RecordUsage(p.submission.table, t.acked_ms, now);
    t.status = TaskStatus::kCanceled;
    t.end_ms = now;
    changed->emplace_back(t.process_id, t.task_id);
  }
  FinishedProcess f;
  f.process_id = p.submission.process_id;
  f.outcome = outcome;
  f.error = std::move(error);
  f.tasks = std::move(p.tasks);
  queued_tables_.erase(p.submission.table);
  processes_.erase(f.process_id);
  finished_.push_back(std::move(f));
}

bool TaskQueue::MaybeFinish(int64_t process_id, Changed* changed) {
  auto it = processes_.find(process_id);
  if (it == processes_.end()) return false;
  Process& p = it->second;
  if (p.submission.allow_partial_commit) {
    for (const QueuedTask& t : p.tasks) {
      if (t.status != TaskStatus::kSuccess && t.status != TaskStatus::kFailed) return false;
    }
  }
  for (const QueuedTask& t : p.tasks) {
    if (t.status == TaskStatus::kFailed) {
      Finish(p, ProcessOutcome::kFailed,
             fmt::format("task {} failed after {} retries: {}", t.task_id, t.retries - 1, t.error),
             changed);
      return true;
    }
  }
  for (const QueuedTask& t : p.tasks) {
    if (t.status != TaskStatus::kSuccess) return false;
  }
  Finish(p, ProcessOutcome::kSuccess, "", changed);
  return true;
}

Status TaskQueue::Cancel(int64_t process_id) {
  Changed changed;
  {
    std::lock_guard lock(mu_);
    auto it = processes_.find(process_id);
    if (it == processes_.end()) return Status::NotFound("process {} is not running", process_id);
    Finish(it->second, ProcessOutcome::kCanceled, "canceled", &changed);
  }
  Notify(changed, true);
  return Status::OK();
}

void TaskQueue::Expire() {
  Changed changed;
  {
    std::lock_guard lock(mu_);
    const int64_t now = options_.now_ms();
    std::vector<std::string> dead;
    for (const auto& [id, o] : optimizers_) {
      if (!o.local && now - o.heartbeat_ms > options_.heartbeat_timeout_ms) dead.push_back(id);
    }
    for (const std::string& id : dead) {
      ReleaseTasksOf(id, std::nullopt, &changed);
      optimizers_.erase(id);
    }
    for (auto& [pid, p] : processes_) {
      for (QueuedTask& t : p.tasks) {
        const bool ack_late =
            t.status == TaskStatus::kScheduled && now - t.scheduled_ms > options_.ack_timeout_ms;
        const bool run_late =
            t.status == TaskStatus::kAcked && now - t.acked_ms > options_.execute_timeout_ms;
        if (!ack_late && !run_late) continue;
        if (run_late) RecordUsage(p.submission.table, t.acked_ms, now);
        t.status = TaskStatus::kPlanned;
        t.error = ack_late ? "ack timeout" : "execute timeout";
        changed.emplace_back(pid, t.task_id);
      }
    }
  }
  Notify(changed, false);
}

std::vector<FinishedProcess> TaskQueue::TakeFinished() {
  std::lock_guard lock(mu_);
  std::vector<FinishedProcess> out;
  out.swap(finished_);
  return out;
}

void TaskQueue::Notify(const Changed& changed, bool finished) {
  if (options_.on_task_changed) {
    for (const auto& [pid, tid] : changed) options_.on_task_changed(pid, tid);
  }
  if (finished && options_.on_finished) options_.on_finished();
}

std::vector<GroupStats> TaskQueue::Groups() const {
  std::lock_guard lock(mu_);
  std::vector<GroupStats> out;
  for (const auto& [name, g] : groups_) {
    GroupStats s;
    s.name = name;
    s.policy = g.policy;
    s.completed_tasks = g.completed_tasks;
    s.failed_tasks = g.failed_tasks;
    s.completed_bytes = g.completed_bytes;
    s.busy_ms = g.busy_ms;
    for (const auto& [id, o] : optimizers_) {
      if (o.group != name) continue;
      ++s.optimizers;
      if (!o.draining) s.threads += o.threads;
    }
    for (const auto& [pid, p] : processes_) {
      if (p.submission.group != name) continue;
      ++s.processes;
      for (const QueuedTask& t : p.tasks) {
        if (t.status == TaskStatus::kPlanned) ++s.queued_tasks;
        if (Running(t.status)) ++s.running_tasks;
      }
    }
    out.push_back(std::move(s));
  }
  return out;
}

std::optional<GroupStats> TaskQueue::FindGroup(const std::string& name) const {
  for (GroupStats& s : Groups()) {
    if (s.name == name) return std::move(s);
  }
  return std::nullopt;
}

std::vector<OptimizerInfo> TaskQueue::Optimizers() const {
  std::lock_guard lock(mu_);
  std::vector<OptimizerInfo> out;
  for (const auto& [id, o] : optimizers_) {
    OptimizerInfo info = o;
    info.running_tasks = 0;
    for (const auto& [pid, p] : processes_) {
      for (const QueuedTask& t : p.tasks) {
        if (Running(t.status) && t.optimizer_id == id) ++info.running_tasks;
      }
    }
    out.push_back(std::move(info));
  }
  return out;
}

std::vector<QueuedTask> TaskQueue::ProcessTasks(int64_t process_id) const {
  std::lock_guard lock(mu_);
  auto it = processes_.find(process_id);
  if (it == processes_.end()) return {};
  return it->second.tasks;
}

}  // namespace floe::optimize
