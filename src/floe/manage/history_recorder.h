// HistoryRecorder: samples the server's totals every interval into the metastore's
// floe_overview_history, for the overview's "over time" charts (GET
// /api/v1/overview/history; docs/dashboard.md). A sample holds gauges (tables, files,
// records, bytes, optimizer threads and tasks, resident memory) and what happened since the
// previous sample (bytes optimized, CPU time, records produced and rows ingested), so rates
// survive downsampling and restarts. Old samples go after `retention_ms` and beyond
// `max_samples`, so the table stays bounded whatever the interval.
//
// Thread-safety: Start runs one thread of its own; SampleNow may be called from any thread.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include "floe/base/process_stats.h"
#include "floe/base/status.h"
#include "floe/ingest/ingest_service.h"
#include "floe/metastore/metastore.h"
#include "floe/optimize/service.h"

namespace floe::manage {

struct HistoryOptions {
  // floe's metastore (the recorder keeps its own connection).
  std::string metastore_uri;
  // This server's name in the samples (history.server-id; default host:port), so that
  // servers sharing a metastore keep separate series.
  std::string server_id;
  int64_t interval_ms = 60'000;
  int64_t retention_ms = int64_t{7} * 24 * 3600 * 1000;
  int64_t max_samples = 20'000;
  // Milliseconds since the epoch: the samples' times (the system clock when empty).
  std::function<int64_t()> now_ms;
  // Null when self-optimizing / the Kafka endpoint is off: their figures stay zero.
  optimize::OptimizingService* optimizer = nullptr;
  ingest::IngestService* ingest = nullptr;
  // This process's memory and CPU (CurrentProcessUsage when empty).
  std::function<ProcessUsage()> process_usage;
};

class HistoryRecorder {
 public:
  // Opens the metastore and starts the sampling thread (first sample after one interval).
  // Errors: the metastore's; kInvalidArgument for a non-positive interval.
  static Result<std::unique_ptr<HistoryRecorder>> Start(HistoryOptions options);
  ~HistoryRecorder();

  // Takes and saves one sample now, then trims old ones.
  Status SampleNow();
  // Stops the thread. Idempotent.
  void Stop();

 private:
  explicit HistoryRecorder(HistoryOptions options) : options_(std::move(options)) {}
  void Run();
  int64_t Now() const;

  // The cumulative counters at the previous sample, whose differences the next sample holds.
  struct Counters {
    int64_t sample_ms = 0;
    int64_t bytes_optimized = 0;
    double cpu_seconds = 0;
    int64_t log_end_offsets = 0;
    int64_t rows_ingested = 0;
  };
  Counters ReadCounters();

  HistoryOptions options_;
  std::mutex mu_;  // guards store_, last_, stopping_
  std::condition_variable cv_;
  bool stopping_ = false;
  std::unique_ptr<metastore::Metastore> store_;
  Counters last_;
  std::thread thread_;
};

}  // namespace floe::manage
