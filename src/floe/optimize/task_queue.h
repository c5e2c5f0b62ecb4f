// TaskQueue: the optimizer groups' task queues, the optimizers registered with them and
// the task state machine of the task protocol (DESIGN.md §6, docs/optimizer-groups.md).
//
// An optimizing process is submitted with its tasks to its table's group. Optimizers of
// the group (the server's own threads or `floe optimizer` processes over HTTP) register
// (-> id and token), heartbeat, poll a task, ack it and complete it with its output or an
// error. Tasks move
//
//   planned -> scheduled (poll) -> acked (ack) -> success | failed (complete)
//                 |                  |
//                 +------------------+--> planned (ack / heartbeat / execute timeout, the
//                                         optimizer polled again on that thread, or it
//                                         was unregistered)
//   failed -> planned while retries <= self-optimizing.execute.num-retries
//   any unfinished -> canceled (the process was canceled or another task failed for good)
//
// Every hand-out stamps a new attempt number; an ack or completion that names another
// attempt (or comes from another optimizer) is stale: refused with kFailedPrecondition and
// ignored, so a task reset after a timeout never counts twice. Resets after timeouts are
// not failures and do not use up retries (as in Amoro).
//
// Which process a poll serves follows the group's scheduling policy (Amoro's): `quota`
// prefers the table that used the least of its quota over the last hour (task time / hour
// / quota limit, quota limit = quota > 1 ? quota threads : ceil(quota * group threads));
// `balanced` prefers the table optimized longest ago. A table gets at most its quota limit
// of tasks at once unless no other table has work (Amoro's break-quota-limit).
//
// Payloads and outputs are opaque strings (task_codec.h). The clock is injected; nothing
// here sleeps or does I/O, so timeouts are tested by moving the clock and calling Expire.
//
// Thread-safety: every method may be called from any thread.
#pragma once

#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "floe/base/status.h"

namespace floe::optimize {

enum class TaskStatus { kPlanned, kScheduled, kAcked, kSuccess, kFailed, kCanceled };
// "planned", "scheduled", "acked", "success", "failed", "canceled".
std::string_view TaskStatusName(TaskStatus status);

enum class SchedulingPolicy { kQuota, kBalanced };
// "quota" / "balanced"; kInvalidArgument otherwise.
Result<SchedulingPolicy> ParseSchedulingPolicy(std::string_view name);
std::string_view SchedulingPolicyName(SchedulingPolicy policy);

struct TaskQueueOptions {
  // Milliseconds since the epoch (required).
  std::function<int64_t()> now_ms;
  // Amoro's optimizer.heart-beat-timeout, task-ack-timeout, task-execute-timeout.
  int64_t heartbeat_timeout_ms = 60'000;
  int64_t ack_timeout_ms = 30'000;
  int64_t execute_timeout_ms = 3'600'000;
  // Optimizer tokens (secrets); 128 random bits from std::random_device when empty.
  std::function<std::string()> new_token;
  // Called (without the queue's lock held) when a process has finished: TakeFinished.
  std::function<void()> on_finished;
  // Called (without the lock) after a task changed state, with its new state.
  std::function<void(int64_t process_id, int64_t task_id)> on_task_changed;
};

// One task as the queue keeps it.
struct QueuedTask {
  int64_t process_id = 0;
  int64_t task_id = 0;
  TaskStatus status = TaskStatus::kPlanned;
  int64_t attempt = 0;  // hand-outs so far; the current hand-out's number
  int64_t retries = 0;  // failed executions so far
  std::string optimizer_id;
  int32_t thread = 0;
  int64_t scheduled_ms = 0;
  int64_t acked_ms = 0;
  int64_t end_ms = 0;
  std::string payload;
  std::string output;  // of the successful attempt
  std::string error;   // of the last failed attempt
  // For history and the API.
  std::string partition_key;
  int64_t input_files = 0;
  int64_t input_bytes = 0;
};

struct TaskSpec {
  std::string payload;
  std::string partition_key;
  int64_t input_files = 0;
  int64_t input_bytes = 0;
};

struct ProcessSubmission {
  int64_t process_id = 0;
  std::string group;
  std::string table;  // one process per table at a time; quota usage is kept per table
  double quota = 0.5;
  int32_t max_retries = 5;
  // self-optimizing.allow-partial-commit: a failed task does not cancel the others; the
  // process finishes (as failed) once every task has succeeded or failed, so that the
  // partitions whose tasks all succeeded can still be committed.
  bool allow_partial_commit = false;
  // When the table was last optimized (balanced policy).
  int64_t last_optimized_ms = 0;
  std::vector<TaskSpec> tasks;
};

struct Handout {
  int64_t process_id = 0;
  int64_t task_id = 0;
  int64_t attempt = 0;
  std::string payload;
};

struct OptimizerInfo {
  std::string id;
  std::string token;
  std::string group;
  int32_t threads = 1;
  int64_t memory_mb = 0;
  bool local = false;  // the server's own threads: never expire
  bool draining = false;
  int64_t registered_ms = 0;
  int64_t heartbeat_ms = 0;
  int64_t running_tasks = 0;
  int64_t completed_tasks = 0;
  int64_t failed_tasks = 0;
  // Thread CPU time of its completed tasks as it reported them (filled by
  // OptimizingService::Optimizers; the queue does not read outputs).
  double cpu_seconds = 0;
};

enum class ProcessOutcome { kSuccess, kFailed, kCanceled };

struct FinishedProcess {
  int64_t process_id = 0;
  ProcessOutcome outcome = ProcessOutcome::kSuccess;
  std::string error;              // failed: the task error that ended it
  std::vector<QueuedTask> tasks;  // by task id, with their outputs
};

struct GroupStats {
  std::string name;
  SchedulingPolicy policy = SchedulingPolicy::kQuota;
  int64_t optimizers = 0;
  int64_t threads = 0;        // of optimizers not draining
  int64_t queued_tasks = 0;   // planned
  int64_t running_tasks = 0;  // scheduled or acked
  int64_t processes = 0;      // unfinished
  int64_t completed_tasks = 0;
  int64_t failed_tasks = 0;
  int64_t completed_bytes = 0;  // input bytes of successful tasks
  int64_t busy_ms = 0;          // execution time of successful tasks
};

class TaskQueue {
 public:
  explicit TaskQueue(TaskQueueOptions options);

  // Adds a group or changes its policy.
  void PutGroup(const std::string& name, SchedulingPolicy policy);
  // kNotFound; kFailedPrecondition while optimizers are registered or processes queued.
  Status RemoveGroup(const std::string& name);
  bool HasGroup(const std::string& name) const;

  // Registers an optimizer of `group` (kNotFound when there is no such group;
  // kInvalidArgument for threads < 1). The token authenticates its later calls.
  Result<OptimizerInfo> Register(const std::string& group, int32_t threads, int64_t memory_mb,
                                 bool local);
  // kUnauthenticated for an unknown (or expired) token: the optimizer registers again.
  Status Heartbeat(const std::string& token);
  // Removes the optimizer; its unfinished tasks go back to planned.
  Status Unregister(const std::string& token);
  // The optimizer gets no new tasks; it is removed when its tasks are done and it
  // unregisters (or expires). kNotFound.
  Status Drain(const std::string& optimizer_id);
  // True when the optimizer was told to drain (its heartbeat answer).
  Result<bool> Draining(const std::string& token) const;

  // Hands the next task of the optimizer's group to `thread` (0 <= thread < its threads),
  // or nullopt when there is none or the optimizer drains. A task the same thread still
  // held goes back to planned (the thread is evidently not working on it).
  Result<std::optional<Handout>> Poll(const std::string& token, int32_t thread);
  // scheduled -> acked. kFailedPrecondition when stale (the optimizer must not run it).
  Status Ack(const std::string& token, int64_t process_id, int64_t task_id, int64_t attempt);
  // acked -> success with `output`, or failed with output's error (retried while retries
  // last). kFailedPrecondition when stale (ignored).
  Status Complete(const std::string& token, int64_t process_id, int64_t task_id, int64_t attempt,
                  const Result<std::string>& output);

  // kNotFound for an unknown group; kAlreadyExists for a process id or a table already
  // queued; kInvalidArgument without tasks.
  Status Submit(ProcessSubmission process);
  // Ends an unfinished process as canceled (its tasks canceled, later completions stale).
  // kNotFound when it is not queued.
  Status Cancel(int64_t process_id);
  // Applies the heartbeat, ack and execute timeouts at the current time.
  void Expire();
  // Processes that finished since the last call.
  std::vector<FinishedProcess> TakeFinished();

  std::vector<GroupStats> Groups() const;
  std::optional<GroupStats> FindGroup(const std::string& name) const;
  std::vector<OptimizerInfo> Optimizers() const;
  // The tasks of an unfinished process (empty when it is not queued).
  std::vector<QueuedTask> ProcessTasks(int64_t process_id) const;
  // Threads of the group's optimizers that are not draining.
  int64_t GroupThreads(const std::string& group) const;
  // The table's share of its quota used over the last hour (quota policy), 0 when idle.
  double QuotaOccupation(const std::string& table, double quota, int64_t group_threads) const;

 private:
  struct Process {
    ProcessSubmission submission;
    std::vector<QueuedTask> tasks;
    int64_t submit_order = 0;
  };
  struct Group {
    SchedulingPolicy policy = SchedulingPolicy::kQuota;
    int64_t completed_tasks = 0;
    int64_t failed_tasks = 0;
    int64_t completed_bytes = 0;
    int64_t busy_ms = 0;
  };
  using Changed = std::vector<std::pair<int64_t, int64_t>>;

  OptimizerInfo* FindByToken(const std::string& token);
  const OptimizerInfo* FindByToken(const std::string& token) const;
  // Returns the optimizer's unfinished tasks to planned (REQUIRES: mu_).
  void ReleaseTasksOf(const std::string& optimizer_id, std::optional<int32_t> thread,
                      Changed* changed);
  // The table's task time in [now - 1 h, now] (REQUIRES: mu_).
  int64_t QuotaTimeLocked(const std::string& table, int64_t now) const;
  int64_t GroupThreadsLocked(const std::string& group) const;
  void RecordUsage(const std::string& table, int64_t start_ms, int64_t end_ms);
  // Moves the process to finished_ when it is done (REQUIRES: mu_). True when it did.
  bool MaybeFinish(int64_t process_id, Changed* changed);
  void Finish(Process& p, ProcessOutcome outcome, std::string error, Changed* changed);
  void Notify(const Changed& changed, bool finished);

  TaskQueueOptions options_;
  mutable std::mutex mu_;
  std::map<std::string, Group> groups_;              // guarded by mu_
  std::map<std::string, OptimizerInfo> optimizers_;  // by id; guarded by mu_
  std::map<int64_t, Process> processes_;             // unfinished; guarded by mu_
  std::set<std::string> queued_tables_;              // guarded by mu_
  // Per table: (start, end) of finished task runs within the quota window.
  std::map<std::string, std::deque<std::pair<int64_t, int64_t>>> usage_;  // guarded by mu_
  std::vector<FinishedProcess> finished_;                                 // guarded by mu_
  int64_t next_optimizer_ = 0;                                            // guarded by mu_
  int64_t next_submit_ = 0;                                               // guarded by mu_
};

}  // namespace floe::optimize
