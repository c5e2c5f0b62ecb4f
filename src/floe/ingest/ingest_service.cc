#include "floe/ingest/ingest_service.h"

#include <algorithm>

#include <fmt/format.h>

#include "floe/base/macros.h"
#include "floe/kafka/record_batch.h"

namespace floe::ingest {

struct IngestService::Worker {
  std::string config_key;  // the table-topic configs it runs with
  std::unique_ptr<TopicTranslator> translator;
  std::mutex mu;
  std::condition_variable cv;
  bool stop = false;  // guarded by mu
  std::thread thread;

  void Stop() {
    {
      std::lock_guard lock(mu);
      stop = true;
    }
    cv.notify_all();
    if (thread.joinable()) thread.join();
  }
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
  std::unique_ptr<IngestService> service(
      new IngestService(std::move(registry), std::move(broker), std::move(options)));
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
  std::map<std::string, std::unique_ptr<Worker>> workers;
  {
    std::lock_guard lock(mu_);
    workers.swap(workers_);
  }
  for (auto& [name, w] : workers) w->Stop();
}

void IngestService::StartWorker(const std::string& topic, const std::string& config_key,
                                TableTopicConfig config) {
  auto worker = std::make_unique<Worker>();
  worker->config_key = config_key;
  Worker* w = worker.get();
  workers_[topic] = std::move(worker);
  w->thread = std::thread([this, w, topic, config = std::move(config)]() mutable {
    auto pool = registry_->Get(options_.catalog);
    std::optional<catalog::CatalogLease> lease;
    // The translator uses the leased catalog (its FileIO, its connection): it goes first.
    struct DropFirst {
      IngestService* service;
      Worker* worker;
      ~DropFirst() {
        std::lock_guard lock(service->mu_);
        worker->translator.reset();
      }
    } drop_first{this, w};
    auto wait = [w](std::chrono::milliseconds d) {
      std::unique_lock lock(w->mu);
      w->cv.wait_for(lock, d, [w] { return w->stop; });
      return !w->stop;
    };
    // A topic that keeps failing (a catalog down, a commit refused) retries less and less
    // often and logs the same error once a minute, not every second.
    RetryPolicy retry(options_.retry_interval, options_.max_retry_interval,
                      options_.error_log_interval);
    auto failed = [&](const Status& error) {
      std::optional<Status> report;
      const std::chrono::milliseconds delay =
          retry.Failed(error, options_.translator.now_ms(), &report);
      if (report && options_.log_error) options_.log_error(topic, *report);
      return wait(delay);
    };
    while (true) {
      {
        std::lock_guard lock(w->mu);
        if (w->stop) return;
      }
      if (!lease) {
        Result<catalog::CatalogLease> acquired =
            pool.ok() ? (*pool)->Acquire() : Result<catalog::CatalogLease>(pool.status());
        if (!acquired.ok()) {
          if (!failed(acquired.status())) return;
          continue;
        }
        lease.emplace(std::move(*acquired));
        auto translator = std::make_unique<TopicTranslator>(topic, config, &**lease, broker_,
                                                            options_.translator);
        std::lock_guard lock(mu_);
        w->translator = std::move(translator);
      }
      Status st = w->translator->RunOnce();
      if (!st.ok()) {
        w->translator->Reset();
        if (!failed(st)) return;
        continue;
      }
      retry.Succeeded();
      if (!wait(options_.poll_interval)) return;
    }
  });
}

void IngestService::Supervise() {
  while (true) {
    std::vector<kafka::Broker::TopicView> topics;
    Status listed = broker_([&](kafka::Broker& b) { topics = b.ListTopics(); });
    std::vector<std::unique_ptr<Worker>> retired;
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
          StartWorker(t.name, key, std::move(*config));
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
    // Joined outside mu_: a worker may be waiting for it (stats).
    for (auto& w : retired) w->Stop();
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
