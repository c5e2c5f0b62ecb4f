#include "floe/manage/history_recorder.h"

#include <algorithm>
#include <chrono>
#include <cmath>

#include "floe/base/macros.h"

namespace floe::manage {

Result<std::unique_ptr<HistoryRecorder>> HistoryRecorder::Start(HistoryOptions options) {
  if (options.interval_ms <= 0) {
    return Status::InvalidArgument("history interval must be positive");
  }
  if (!options.process_usage) options.process_usage = CurrentProcessUsage;
  std::unique_ptr<HistoryRecorder> recorder(new HistoryRecorder(std::move(options)));
  FLOE_ASSIGN_OR_RETURN(recorder->store_,
                        metastore::Metastore::Open(recorder->options_.metastore_uri));
  recorder->last_ = recorder->ReadCounters();
  recorder->thread_ = std::thread([r = recorder.get()] { r->Run(); });
  return recorder;
}

HistoryRecorder::~HistoryRecorder() { Stop(); }

void HistoryRecorder::Stop() {
  {
    std::lock_guard lock(mu_);
    stopping_ = true;
  }
  cv_.notify_all();
  if (thread_.joinable()) thread_.join();
}

int64_t HistoryRecorder::Now() const {
  if (options_.now_ms) return options_.now_ms();
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

void HistoryRecorder::Run() {
  std::unique_lock lock(mu_);
  while (!stopping_) {
    // The wait is on the steady clock: the injected clock only dates the samples.
    if (cv_.wait_for(lock, std::chrono::milliseconds(options_.interval_ms),
                     [this] { return stopping_; })) {
      break;
    }
    lock.unlock();
    // A failed sample (metastore busy or down) is skipped; the next one covers its interval.
    (void)SampleNow();
    lock.lock();
  }
}

HistoryRecorder::Counters HistoryRecorder::ReadCounters() {
  Counters c;
  c.sample_ms = Now();
  c.cpu_seconds = options_.process_usage().cpu_seconds;
  if (options_.optimizer != nullptr)
    c.bytes_optimized = options_.optimizer->Counters().bytes_written;
  if (options_.ingest != nullptr) {
    auto topics = options_.ingest->Topics();
    if (topics.ok()) {
      for (const ingest::TopicInfo& t : *topics) {
        c.log_end_offsets += t.log_end_offset_sum;
        if (t.translation) c.rows_ingested += t.translation->rows_committed;
      }
    }
  }
  return c;
}

Status HistoryRecorder::SampleNow() {
  metastore::HistorySample s;
  s.server_id = options_.server_id;
  // Gauges.
  if (options_.optimizer != nullptr) {
    const auto stats = options_.optimizer->StatsView();
    for (const optimize::TableStats& t : *stats) {
      ++s.tables;
      s.data_files += t.data_files;
      s.delete_files += t.delete_files;
      s.records += t.records;
      s.data_bytes += t.files_bytes;
    }
    for (const auto& g : options_.optimizer->Groups()) {
      s.optimizer_threads += g.stats.threads;
      s.tasks_running += g.stats.running_tasks;
      s.tasks_queued += g.stats.queued_tasks;
    }
  }
  s.rss_bytes = options_.process_usage().resident_bytes;
  const Counters now = ReadCounters();
  std::lock_guard lock(mu_);
  s.sample_ms = now.sample_ms;
  s.interval_ms = std::max<int64_t>(0, now.sample_ms - last_.sample_ms);
  // Differences of counters that only grow while the process runs; a topic deleted
  // meanwhile lowers the offset sum, which counts as nothing produced rather than negative.
  s.bytes_optimized_during = std::max<int64_t>(0, now.bytes_optimized - last_.bytes_optimized);
  s.cpu_ms_during =
      std::max<int64_t>(0, std::llround((now.cpu_seconds - last_.cpu_seconds) * 1000.0));
  s.records_produced_during = std::max<int64_t>(0, now.log_end_offsets - last_.log_end_offsets);
  s.rows_ingested_during = std::max<int64_t>(0, now.rows_ingested - last_.rows_ingested);
  last_ = now;
  FLOE_RETURN_IF_ERROR(store_->SaveHistorySample(s));
  return store_->TrimHistory(options_.server_id, s.sample_ms - options_.retention_ms,
                             options_.max_samples);
}

}  // namespace floe::manage
