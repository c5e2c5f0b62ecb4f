#include "floe/ingest/ingest_service.h"

#include <algorithm>

#include <fmt/format.h>

#include "floe/base/macros.h"
#include "floe/kafka/record_batch.h"

namespace floe::ingest {

// A topic's worker. Its rounds run one at a time on the executor (phase); the round in
// progress owns the lease and the translator, and after stop the stopping thread does.
struct IngestService::Worker {
  Worker(std::string topic_name, std::string key, TableTopicConfig topic_config,
         const IngestServiceOptions& options)
      : topic(std::move(topic_name)),
        config_key(std::move(key)),
        config(std::move(topic_config)),
        retry(options.retry_interval, options.max_retry_interval, options.error_log_interval) {}

  const std::string topic;
  const std::string config_key;  // the table-topic configs it runs with
  const TableTopicConfig config;
  // A topic that keeps failing (a catalog down, a commit refused) retries less and less
  // often and logs the same error once a minute, not every second.
  RetryPolicy retry;
  // The lease points into the pool: the pool outlives it, and the translator (which uses the
  // leased catalog: its FileIO, its connection) goes before both (StopWorker).
  std::shared_ptr<catalog::CatalogPool> pool;
  std::optional<catalog::CatalogLease> lease;
  // Written by the round under IngestService::mu_ (Topics reads it there).
  std::unique_ptr<TopicTranslator> translator;

  enum class Phase {
    kUnscheduled,  // no round queued: the supervisor submits one (new, or refused)
    kScheduled,    // a round is queued or delayed on the executor
    kRunning,      // a round is on an executor thread
  };
  std::mutex mu;
  std::condition_variable idle_cv;    // left kRunning (guarded by mu)
  Phase phase = Phase::kUnscheduled;  // guarded by mu
  bool stop = false;                  // guarded by mu
};

namespace {

// The table-topic part of a topic's configs, as a string that changes when they do.
std::string TableTopicKey(const std::map<std::string, std::string>& configs) {
  std::string key;
  for (const auto& [k, v] : configs) {
    if (k.starts_with("floe.table.topic.")) key += k + "=" + v + "\n";
  }
  return key;
}

}  // namespace

std::chrono::milliseconds RetryPolicy::Failed(const Status& error, int64_t now_ms,
                                              std::optional<Status>* report) {
  ++failures_;
  std::string message = error.ToString();
  if (message != last_logged_ || now_ms - last_logged_ms_ >= log_interval_ms_) {
    std::string text(error.message());
    if (not_logged_ > 0) {
      text += fmt::format(" ({} more failed rounds not logged since the last report)", not_logged_);
    }
    *report = Status(error.code(), std::move(text));
    last_logged_ = std::move(message);
    last_logged_ms_ = now_ms;
    not_logged_ = 0;
  } else {
    report->reset();
    ++not_logged_;
  }
  // first * 2^(failures - 1), capped (the shift is bounded so it cannot overflow).
  const int shift = std::min(failures_ - 1, 20);
  return std::min(max_, first_ * (int64_t{1} << shift));
}

void RetryPolicy::Succeeded() {
  failures_ = 0;
  last_logged_.clear();
  not_logged_ = 0;
}

IngestService::IngestService(std::shared_ptr<catalog::CatalogRegistry> registry, BrokerCall broker,
                             IngestServiceOptions options)
    : registry_(std::move(registry)), broker_(std::move(broker)), options_(std::move(options)) {}

Result<std::unique_ptr<IngestService>> IngestService::Start(
    std::shared_ptr<catalog::CatalogRegistry> registry, BrokerCall broker,
    IngestServiceOptions options) {
  // Fail the server's start, not the first table, on a catalog that does not exist.
  FLOE_RETURN_IF_ERROR(registry->Get(options.catalog).status());
  if (!options.translator.now_ms) {
    options.translator.now_ms = [] {
      return std::chrono::duration_cast<std::chrono::milliseconds>(
                 std::chrono::system_clock::now().time_since_epoch())
          .count();
    };
  }
  std::unique_ptr<Executor> owned;
  if (options.executor == nullptr) {
    FLOE_ASSIGN_OR_RETURN(owned, Executor::Make({.name = "ingest", .threads = options.threads}));
  }
  std::unique_ptr<IngestService> service(
      new IngestService(std::move(registry), std::move(broker), std::move(options)));
  service->owned_executor_ = std::move(owned);
  service->executor_ = service->options_.executor != nullptr ? service->options_.executor
                                                             : service->owned_executor_.get();
  service->supervisor_ = std::thread([raw = service.get()] { raw->Supervise(); });
  return service;
}

IngestService::~IngestService() { Stop(); }

void IngestService::Stop() {
  {
    std::lock_guard lock(mu_);
    if (stopping_ && !supervisor_.joinable()) return;
    stopping_ = true;
  }
  cv_.notify_all();
  if (supervisor_.joinable()) supervisor_.join();
  std::map<std::string, std::shared_ptr<Worker>> workers;
  {
    std::lock_guard lock(mu_);
    workers.swap(workers_);
  }
  for (auto& [name, w] : workers) StopWorker(*w);
  // Queued rounds find their workers stopped (or gone) and return.
  if (owned_executor_) owned_executor_->Stop();
}

void IngestService::StopWorker(Worker& w) {
  {
    std::unique_lock lock(w.mu);
    w.stop = true;
    w.idle_cv.wait(lock, [&w] { return w.phase != Worker::Phase::kRunning; });
  }
  // No round runs now or later: this thread owns the translator, the lease and the pool.
  {
    std::lock_guard lock(mu_);
    w.translator.reset();
  }
  w.lease.reset();
  w.pool.reset();
}

void IngestService::ScheduleLocked(const std::shared_ptr<Worker>& w,
                                   std::chrono::milliseconds delay) {
  // The task holds the worker weakly and the service by pointer: RunRound dereferences the
  // service only after seeing the worker alive and not stopped, and StopWorker (which every
  // Stop runs) waits for a round that saw that.
  auto task = [service = this, weak = std::weak_ptr<Worker>(w)] { RunRound(service, weak); };
  // A delayed round is due whatever the queue holds (it was accepted); a first round or a
  // resubmission is bounded by the queue.
  const Status submitted = delay.count() > 0 ? executor_->SubmitAfter(delay, std::move(task))
                                             : executor_->Submit(std::move(task));
  if (submitted.ok()) {
    w->phase = Worker::Phase::kScheduled;
  } else {
    w->phase = Worker::Phase::kUnscheduled;
    deferred_rounds_.fetch_add(1, std::memory_order_relaxed);
  }
}

void IngestService::RunRound(IngestService* service, const std::weak_ptr<Worker>& weak) {
  std::shared_ptr<Worker> w = weak.lock();
  if (!w) return;
  {
    std::lock_guard lock(w->mu);
    if (w->stop) return;
    w->phase = Worker::Phase::kRunning;
  }
  // Until the phase leaves kRunning, StopWorker waits: the service is alive.
  const std::chrono::milliseconds next = service->Round(*w);
  {
    std::lock_guard lock(w->mu);
    if (w->stop) {
      w->phase = Worker::Phase::kUnscheduled;
    } else {
      service->ScheduleLocked(w, next);
    }
  }
  w->idle_cv.notify_all();
}

std::chrono::milliseconds IngestService::Round(Worker& w) {
  auto failed = [&](const Status& error) {
    std::optional<Status> report;
    const std::chrono::milliseconds delay =
        w.retry.Failed(error, options_.translator.now_ms(), &report);
    if (report && options_.log_error) options_.log_error(w.topic, *report);
    return delay;
  };
  if (!w.lease) {
    if (!w.pool) {
      Result<std::shared_ptr<catalog::CatalogPool>> pool = registry_->Get(options_.catalog);
      if (!pool.ok()) return failed(pool.status());
      w.pool = std::move(*pool);
    }
    Result<catalog::CatalogLease> acquired = w.pool->Acquire();
    if (!acquired.ok()) return failed(acquired.status());
    w.lease.emplace(std::move(*acquired));
    auto translator = std::make_unique<TopicTranslator>(w.topic, w.config, &**w.lease, broker_,
                                                        options_.translator);
    std::lock_guard lock(mu_);
    w.translator = std::move(translator);
  }
  Status st = w.translator->RunOnce();
  if (!st.ok()) {
    w.translator->Reset();
    return failed(st);
  }
  w.retry.Succeeded();
  return options_.poll_interval;
}

void IngestService::SubmitUnscheduled() {
  std::vector<std::shared_ptr<Worker>> workers;
  {
    std::lock_guard lock(mu_);
    workers.reserve(workers_.size());
    for (const auto& [name, w] : workers_) workers.push_back(w);
  }
  for (const auto& w : workers) {
    std::lock_guard lock(w->mu);
    if (!w->stop && w->phase == Worker::Phase::kUnscheduled) {
      ScheduleLocked(w, std::chrono::milliseconds(0));
    }
  }
}

void IngestService::Supervise() {
  while (true) {
    std::vector<kafka::Broker::TopicView> topics;
    Status listed = broker_([&](kafka::Broker& b) { topics = b.ListTopics(); });
    std::vector<std::shared_ptr<Worker>> retired;
    {
      std::lock_guard lock(mu_);
      if (stopping_) return;
      if (listed.ok()) {
        const int64_t now = options_.translator.now_ms();
        std::map<std::string, bool> wanted;
        for (const auto& t : topics) {
          int64_t total = 0;
          for (const auto& p : t.partitions) total += p.records_appended;
          Rate& r = rates_[t.name];
          if (r.sample_ms < 0) {
            r.sample_ms = now, r.sample_total = total;
          } else if (now - r.sample_ms >= 1000) {
            r.per_second = static_cast<double>(total - r.sample_total) * 1000.0 /
                           static_cast<double>(now - r.sample_ms);
            r.sample_ms = now, r.sample_total = total;
          }
          Result<TableTopicConfig> config = ParseTableTopicConfig(t.configs);
          if (!config.ok() || !config->enabled) continue;
          wanted[t.name] = true;
          const std::string key = TableTopicKey(t.configs);
          auto it = workers_.find(t.name);
          if (it != workers_.end() && it->second->config_key == key) continue;
          if (it != workers_.end()) {
            retired.push_back(std::move(it->second));
            workers_.erase(it);
          }
          // Its first round is submitted below, once the retired worker has stopped.
          workers_[t.name] = std::make_shared<Worker>(t.name, key, std::move(*config), options_);
        }
        for (auto it = workers_.begin(); it != workers_.end();) {
          if (wanted.contains(it->first)) {
            ++it;
          } else {
            retired.push_back(std::move(it->second));
            it = workers_.erase(it);
          }
        }
      }
    }
    // Stopped outside mu_: a round may be waiting for it (installing its translator). A
    // restarted topic's old translator is gone before the new one's first round.
    for (auto& w : retired) StopWorker(*w);
    retired.clear();
    SubmitUnscheduled();
    std::unique_lock lock(mu_);
    cv_.wait_for(lock, options_.poll_interval, [this] { return stopping_; });
    if (stopping_) return;
  }
}

Result<std::vector<TopicInfo>> IngestService::Topics() {
  std::vector<kafka::Broker::TopicView> topics;
  FLOE_RETURN_IF_ERROR(broker_([&](kafka::Broker& b) { topics = b.ListTopics(); }));
  std::vector<TopicInfo> out;
  std::lock_guard lock(mu_);
  for (auto& t : topics) {
    TopicInfo& info = out.emplace_back();
    info.name = t.name;
    info.partitions = static_cast<int32_t>(t.partitions.size());
    for (const auto& p : t.partitions) {
      info.offsets.push_back(
          {p.log_start_offset, p.log_end_offset, p.committed_offset, p.untranslated_bytes});
      info.records += p.log_end_offset - p.log_start_offset;
      info.log_end_offset_sum += p.log_end_offset;
      info.last_produce_ms = std::max(info.last_produce_ms, p.last_append_ms);
    }
    Result<TableTopicConfig> config = ParseTableTopicConfig(t.configs);
    if (!config.ok()) {
      info.config_error = std::string(config.error().message());
    } else {
      info.table_topic = config->enabled;
    }
    if (auto r = rates_.find(t.name); r != rates_.end()) {
      info.produce_records_per_second = r->second.per_second;
    }
    if (auto w = workers_.find(t.name); w != workers_.end() && w->second->translator) {
      info.translation = w->second->translator->stats();
    }
    info.configs = std::move(t.configs);
    info.rejected_records = std::move(t.rejected_records);
    info.recent_rejections = std::move(t.recent_rejections);
  }
  return out;
}

int64_t TopicInfo::LagOffsets() const {
  int64_t lag = 0;
  for (const PartitionOffsets& p : offsets) lag += p.lag_offsets();
  return lag;
}

int64_t TopicInfo::LagBytes() const {
  int64_t lag = 0;
  for (const PartitionOffsets& p : offsets) lag += p.untranslated_bytes;
  return lag;
}

Result<TopicInfo> IngestService::Topic(const std::string& name) {
  FLOE_ASSIGN_OR_RETURN(std::vector<TopicInfo> all, Topics());
  for (TopicInfo& t : all) {
    if (t.name == name) return std::move(t);
  }
  return Status::NotFound("no topic '{}'", name);
}

Result<std::vector<SampleRecord>> IngestService::RecentRecords(const std::string& topic,
                                                               int limit) {
  std::vector<SampleRecord> out;
  if (limit <= 0) return out;
  Status read;
  bool found = false;
  std::vector<Buffer> chunks;
  FLOE_RETURN_IF_ERROR(broker_([&](kafka::Broker& b) {
    for (const auto& t : b.ListTopics()) {
      if (t.name != topic) continue;
      found = true;
      for (size_t p = 0; p < t.partitions.size(); ++p) {
        const auto& part = t.partitions[p];
        int64_t from = std::max(part.log_start_offset, part.log_end_offset - limit);
        Buffer& chunk = chunks.emplace_back();
        if (from >= part.log_end_offset) continue;
        // Bounded: at most the limit's worth of records, and 4 MiB per partition.
        Status st = b.ReadLog(topic, static_cast<int32_t>(p), from, size_t{4} << 20, &chunk);
        if (!st.ok() && read.ok()) read = st;
      }
    }
  }));
  if (!found) return Status::NotFound("no topic '{}'", topic);
  FLOE_RETURN_IF_ERROR(read);
  Buffer scratch;
  for (size_t p = 0; p < chunks.size(); ++p) {
    std::span<const uint8_t> bytes(chunks[p].data(), chunks[p].size());
    while (bytes.size() >= kafka::kBatchHeaderBytes) {
      FLOE_ASSIGN_OR_RETURN(kafka::BatchHeader h, kafka::ParseBatchHeader(bytes));
      if (h.total_bytes() > bytes.size()) break;
      std::span<const uint8_t> batch = bytes.first(h.total_bytes());
      bytes = bytes.subspan(h.total_bytes());
      FLOE_RETURN_IF_ERROR(kafka::ValidateBatch(batch).status());
      FLOE_RETURN_IF_ERROR(
          kafka::DecodeRecords(batch, size_t{64} << 20, &scratch, [&](const kafka::Record& r) {
            SampleRecord& s = out.emplace_back();
            s.partition = static_cast<int32_t>(p);
            s.offset = r.offset;
            s.timestamp_ms = r.timestamp;
            if (r.key) s.key.emplace(reinterpret_cast<const char*>(r.key->data()), r.key->size());
            if (r.value) {
              s.value.emplace(reinterpret_cast<const char*>(r.value->data()), r.value->size());
            }
            s.headers = r.headers;
            return Status::OK();
          }));
    }
  }
  std::sort(out.begin(), out.end(), [](const SampleRecord& a, const SampleRecord& b) {
    return a.timestamp_ms != b.timestamp_ms ? a.timestamp_ms > b.timestamp_ms : a.offset > b.offset;
  });
  if (out.size() > static_cast<size_t>(limit)) out.resize(static_cast<size_t>(limit));
  return out;
}

}  // namespace floe::ingest
