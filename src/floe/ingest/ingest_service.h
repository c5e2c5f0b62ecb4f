// IngestService: runs the table topics of `floe server`. A supervisor thread watches the
// broker's topics; every topic with floe.table.topic.enable=true gets a worker owning a
// TopicTranslator (translation and the table's commit coordinator) and a catalog of its
// own. A worker is not a thread: it is a chain of rounds on a shared Executor (base/
// executor.h), each round (lease a catalog if needed, RunOnce) scheduling the next after the
// poll interval or its RetryPolicy backoff: 10,000 topics share the executor's threads.
// A changed table-topic config restarts the worker, which resumes from the table's committed
// offsets; a disabled or deleted topic stops it.
//
// Thread-safety: all public methods may be called from any thread.
#pragma once

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "floe/base/executor.h"
#include "floe/catalog/catalog_pool.h"
#include "floe/ingest/translator.h"

namespace floe::ingest {

struct IngestServiceOptions {
  IngestOptions translator;
  // The catalog receiving the tables (floe.yaml kafka.table-catalog).
  std::string catalog;
  std::chrono::milliseconds poll_interval{200};
  // After a failed round a topic waits retry_interval, doubling with each further failure
  // up to max_retry_interval; a round that succeeds resets it.
  std::chrono::milliseconds retry_interval{1000};
  std::chrono::milliseconds max_retry_interval{60'000};
  // Called with a failed round's error (the server logs it): a topic's same error again
  // only once per error_log_interval, then with the count of those not reported.
  std::function<void(const std::string& topic, const Status&)> log_error;
  std::chrono::milliseconds error_log_interval{60'000};
  // Runs the topics' rounds (floe server's `ingest` executor); it must outlive the service
  // and may be shared. Null: the service makes an executor of `threads` threads (0: one per
  // core) and owns it.
  Executor* executor = nullptr;
  int threads = 0;
};

// How one topic's translation retries after failures and reports them (IngestServiceOptions).
// Not thread-safe: one per topic worker.
class RetryPolicy {
 public:
  RetryPolicy(std::chrono::milliseconds first, std::chrono::milliseconds max,
              std::chrono::milliseconds log_interval)
      : first_(first), max_(max), log_interval_ms_(log_interval.count()) {}

  // A failed round at `now_ms`: how long to wait before the next one, and in *report the
  // error to log (its message extended by the failures not reported since the last), or
  // nullopt when this one is not to be logged.
  std::chrono::milliseconds Failed(const Status& error, int64_t now_ms,
                                   std::optional<Status>* report);
  // A round that succeeded: the next failure waits `first` again and is logged.
  void Succeeded();

 private:
  std::chrono::milliseconds first_;
  std::chrono::milliseconds max_;
  int64_t log_interval_ms_;
  int failures_ = 0;
  std::string last_logged_;
  int64_t last_logged_ms_ = 0;
  int64_t not_logged_ = 0;
};

// One topic as the management API and /metrics show it.
// A partition as the broker sees it when asked: the translator's stats are as of its last
// pass, and a translator not yet running has none.
struct PartitionOffsets {
  int64_t log_start_offset = 0;
  int64_t log_end_offset = 0;
  int64_t committed_offset = 0;    // table topics: below this, in the table
  int64_t untranslated_bytes = 0;  // table topics: log bytes from committed_offset on
  // Records not yet in the table (retention may have removed some below the log start
  // before the topic became a table topic: translation starts at the log start).
  int64_t lag_offsets() const {
    return std::max<int64_t>(0, log_end_offset - std::max(committed_offset, log_start_offset));
  }
};

struct TopicInfo {
  std::string name;
  int32_t partitions = 0;
  bool table_topic = false;
  std::map<std::string, std::string> configs;
  int64_t records = 0;  // sum over partitions of log end - log start
  int64_t log_end_offset_sum = 0;
  double produce_records_per_second = 0;
  int64_t last_produce_ms = -1;
  std::vector<PartitionOffsets> offsets;  // per partition, the broker's view now
  std::optional<TopicStats> translation;  // table topics whose translator runs
  std::string config_error;               // a table topic whose configs do not parse
  // Records refused at produce time (schema validation) by reason, and the newest
  // refusals' messages (newest last), since the broker started.
  std::map<std::string, int64_t> rejected_records;
  std::vector<std::string> recent_rejections;

  // Table topics: records / log bytes not yet committed to the table, from `offsets`.
  int64_t LagOffsets() const;
  int64_t LagBytes() const;
};

struct SampleRecord {
  int32_t partition = 0;
  int64_t offset = 0;
  int64_t timestamp_ms = 0;
  std::optional<std::string> key;
  std::optional<std::string> value;
  std::vector<kafka::RecordHeader> headers;
};

class IngestService {
 public:
  // Starts the supervisor. kNotFound for an unknown catalog; InvalidArgument for a negative
  // thread count (no executor given).
  static Result<std::unique_ptr<IngestService>> Start(
      std::shared_ptr<catalog::CatalogRegistry> registry, BrokerCall broker,
      IngestServiceOptions options);
  ~IngestService();
  // Stops every worker, waiting for the rounds in progress (what they translated but did
  // not commit is translated again after the restart). Rounds still queued or delayed on a
  // shared executor find their worker stopped and do nothing. Idempotent; not to be called
  // from one of the executor's threads.
  void Stop();

  // The executor running the rounds (the one passed in, or the service's own).
  Executor* executor() const { return executor_; }
  // Rounds the executor refused (a full queue, a stopping executor); each refused topic is
  // submitted again on the supervisor's next pass.
  uint64_t deferred_rounds() const { return deferred_rounds_.load(std::memory_order_relaxed); }

  Result<std::vector<TopicInfo>> Topics();
  // kNotFound for an unknown topic.
  Result<TopicInfo> Topic(const std::string& name);
  // The newest records of `topic` (at most `limit`, newest first) from the log.
  Result<std::vector<SampleRecord>> RecentRecords(const std::string& topic, int limit);

 private:
  struct Worker;
  explicit IngestService(std::shared_ptr<catalog::CatalogRegistry> registry, BrokerCall broker,
                         IngestServiceOptions options);
  void Supervise();
  // Submits the first round of every worker that has none queued (new, or refused).
  void SubmitUnscheduled();
  // One round of `weak`'s worker, unless it is gone or stopped (then `service` may be gone
  // too and is not touched).
  static void RunRound(IngestService* service, const std::weak_ptr<Worker>& weak);
  // Lease, translator, RunOnce; the delay before the next round.
  std::chrono::milliseconds Round(Worker& w);
  // Queues w's next round after `delay` (0: now, within the queue bound). REQUIRES: w->mu
  // held, no round of w queued or running but the caller.
  void ScheduleLocked(const std::shared_ptr<Worker>& w, std::chrono::milliseconds delay);
  // Stops w: waits for its round in progress, then drops its translator before its lease.
  // REQUIRES: mu_ not held (the round may take it).
  void StopWorker(Worker& w);

  std::shared_ptr<catalog::CatalogRegistry> registry_;
  BrokerCall broker_;
  IngestServiceOptions options_;
  std::unique_ptr<Executor> owned_executor_;  // when options.executor is null
  Executor* executor_ = nullptr;              // options.executor or owned_executor_
  std::atomic<uint64_t> deferred_rounds_{0};

  mutable std::mutex mu_;
  std::condition_variable cv_;
  bool stopping_ = false;  // guarded by mu_
  // The owners: a round on the executor holds its worker weakly (strongly only while it
  // runs), so a worker erased here and stopped is gone for its leftover rounds.
  std::map<std::string, std::shared_ptr<Worker>> workers_;  // guarded by mu_
  struct Rate {
    int64_t sample_ms = -1;
    int64_t sample_total = 0;
    double per_second = 0;
  };
  std::map<std::string, Rate> rates_;  // guarded by mu_
  std::thread supervisor_;
};

}  // namespace floe::ingest
