// /metrics: the server's Prometheus metrics (docs/metrics.md lists names and labels).
#include <algorithm>
#include <functional>
#include <string>

#include <fmt/format.h>

#include "floe/base/process_stats.h"
#include "floe/base/prometheus.h"
#include "floe/server/server.h"

namespace floe::server {

namespace {

constexpr std::array<std::string_view, 5> kRouteNames = {"iceberg_rest", "management", "metrics",
                                                         "health", "other"};
constexpr std::array<std::string_view, 5> kStatusClasses = {"1xx", "2xx", "3xx", "4xx", "5xx"};
constexpr std::array<std::string_view, 7> kStatuses = {"idle",  "pending", "planning",  "minor",
                                                       "major", "full",    "committing"};

}  // namespace

http::HttpResponse Server::HandleMetrics(const http::HttpRequest& request) {
  if (auth_) {
    // Basic (Prometheus' basic_auth) or a bearer token (its authorization credentials). The
    // figures name every catalog's tables, so the principal must read every catalog.
    auto principal = auth_->AuthenticateBasicOrBearer(request);
    if (!principal.ok()) {
      if (principal.status().code() == StatusCode::kResourceExhausted) {
        return rest::ErrorResponse(429, "TooManyRequestsException", principal.status().message());
      }
      return Unauthorized(request, principal.status());
    }
    if (!auth::Authenticator::ReadsEveryCatalog(**principal)) {
      return rest::ErrorResponse(
          403, "ForbiddenException",
          fmt::format("principal '{}' may not read /metrics: it needs read on every catalog "
                      "(\"*\": read)",
                      (*principal)->name));
    }
  }
  static_assert(kRouteNames.size() == kRouteClasses);
  std::string out;
  out.reserve(16 << 10);
  PrometheusWriter w(&out);

  w.Family("floe_build_info", "gauge", "The running floe's version.");
  w.Sample("floe_build_info", {{"version", FLOE_VERSION}}, int64_t{1});
  w.Family("process_start_time_seconds", "gauge", "When the server started (Unix time).");
  w.Sample("process_start_time_seconds", {}, static_cast<double>(start_time_ms_) / 1000.0);
  w.Family("process_resident_memory_bytes", "gauge", "Resident set size.");
  const ProcessUsage usage = CurrentProcessUsage();
  w.Sample("process_resident_memory_bytes", {}, usage.resident_bytes);
  w.Family("process_cpu_seconds_total", "counter", "User and system CPU time.");
  w.Sample("process_cpu_seconds_total", {}, usage.cpu_seconds);

  w.Family("floe_http_requests_total", "counter",
           "HTTP requests answered, by route class and status class.");
  for (size_t r = 0; r < kRouteClasses; ++r) {
    for (size_t c = 0; c < kStatusClasses.size(); ++c) {
      uint64_t n = http_metrics_.responses[r][c].load(std::memory_order_relaxed);
      if (n == 0) continue;
      w.Sample("floe_http_requests_total", {{"route", kRouteNames[r]}, {"code", kStatusClasses[c]}},
               static_cast<int64_t>(n));
    }
  }
  w.Family("floe_http_request_duration_seconds", "histogram",
           "Time from a request's dispatch to its response, by route class.");
  for (size_t r = 0; r < kRouteClasses; ++r) {
    http_metrics_.latency[r].Write(w, "floe_http_request_duration_seconds",
                                   {{"route", kRouteNames[r]}});
  }

  w.Family("floe_catalogs", "gauge", "Catalogs the server serves.");
  w.Sample("floe_catalogs", {}, static_cast<int64_t>(registry_->Names().size()));

  if (optimizer_) {
    const std::string group = "local";
    w.Family("floe_optimizer_threads", "gauge", "Threads of an optimizer group.");
    w.Sample("floe_optimizer_threads", {{"group", group}},
             static_cast<int64_t>(optimizer_->threads()));
    w.Family("floe_optimizer_queued_tables", "gauge", "Tables waiting for evaluation.");
    w.Sample("floe_optimizer_queued_tables", {{"group", group}},
             static_cast<int64_t>(optimizer_->QueuedCount()));
    w.Family("floe_optimizer_running_tables", "gauge", "Tables being evaluated or optimized.");
    w.Sample("floe_optimizer_running_tables", {{"group", group}},
             static_cast<int64_t>(optimizer_->RunningCount()));
    const optimize::OptimizerCounters counters = optimizer_->Counters();
    w.Family("floe_optimizer_bytes_written_total", "counter",
             "Bytes of data and delete files the group's processes wrote.");
    w.Sample("floe_optimizer_bytes_written_total", {{"group", group}}, counters.bytes_written);
    w.Family("floe_optimizer_rows_rewritten_total", "counter",
             "Rows the group's processes read and rewrote.");
    w.Sample("floe_optimizer_rows_rewritten_total", {{"group", group}}, counters.rows_rewritten);
    w.Family("floe_optimizer_files_rewritten_total", "counter",
             "Data files the group's processes rewrote.");
    w.Sample("floe_optimizer_files_rewritten_total", {{"group", group}}, counters.files_rewritten);
    // Thread CPU time, not wall time: a thread waiting for storage or a queue is not busy.
    w.Family("floe_optimizer_busy_seconds_total", "counter",
             "Thread CPU time spent evaluating, planning, rewriting and committing, by group.");
    w.Sample("floe_optimizer_busy_seconds_total", {{"group", group}},
             counters.cpu_seconds_by_group.contains(group) ? counters.cpu_seconds_by_group.at(group)
                                                           : 0.0);
    for (const auto& [name, seconds] : counters.cpu_seconds_by_group) {
      if (name != group) w.Sample("floe_optimizer_busy_seconds_total", {{"group", name}}, seconds);
    }
    w.Family("floe_optimizer_cpu_seconds_total", "counter",
             "Thread CPU time of the tasks an optimizer (local threads or a standalone process) "
             "ran, by optimizer id.");
    for (const auto& [id, seconds] : counters.cpu_seconds_by_optimizer) {
      w.Sample("floe_optimizer_cpu_seconds_total", {{"optimizer", id}}, seconds);
    }
    w.Family("floe_table_optimizer_cpu_seconds_total", "counter",
             "Thread CPU time self-optimizing spent on a table (evaluation, tasks, commits).");
    for (const auto& [table_key, seconds] : counters.cpu_seconds_by_table) {
      const auto& [catalog, ns, table] = table_key;
      w.Sample("floe_table_optimizer_cpu_seconds_total",
               {{"catalog", catalog}, {"namespace", ns}, {"table", table}}, seconds);
    }
    w.Family("floe_maintenance_expired_snapshots_total", "counter",
             "Snapshots the group's maintenance expired.");
    w.Sample("floe_maintenance_expired_snapshots_total", {{"group", group}},
             counters.expired_snapshots);
    w.Family("floe_maintenance_deleted_files_total", "counter",
             "Files (data, delete, manifest, manifest list, statistics) deleted with expired "
             "snapshots.");
    w.Sample("floe_maintenance_deleted_files_total", {{"group", group}},
             counters.expired_files_deleted);
    w.Family("floe_maintenance_orphan_files_deleted_total", "counter",
             "Orphan files (referenced by no table metadata) the group's maintenance deleted.");
    w.Sample("floe_maintenance_orphan_files_deleted_total", {{"group", group}},
             counters.orphan_files_deleted);
    w.Family("floe_maintenance_dangling_delete_files_removed_total", "counter",
             "Delete files applying to no live data file that maintenance removed from tables.");
    w.Sample("floe_maintenance_dangling_delete_files_removed_total", {{"group", group}},
             counters.dangling_delete_files_removed);
    w.Family("floe_maintenance_expired_data_files_total", "counter",
             "Data files data expiration (data-expire.*) removed from tables.");
    w.Sample("floe_maintenance_expired_data_files_total", {{"group", group}},
             counters.expired_data_files);
    w.Family("floe_maintenance_expired_records_total", "counter",
             "Records in the data files data expiration removed.");
    w.Sample("floe_maintenance_expired_records_total", {{"group", group}},
             counters.expired_records);
    w.Family("floe_maintenance_tags_created_total", "counter",
             "Tags automatic tagging (tag.auto-create.*) created.");
    w.Sample("floe_maintenance_tags_created_total", {{"group", group}}, counters.tags_created);
    w.Family("floe_maintenance_manifests_rewritten_total", "counter",
             "Small manifests maintenance rewrote into target-size manifests.");
    w.Sample("floe_maintenance_manifests_rewritten_total", {{"group", group}},
             counters.manifests_rewritten);
    w.Family("floe_maintenance_metadata_files_deleted_total", "counter",
             "Metadata files older than the metadata log that maintenance deleted.");
    w.Sample("floe_maintenance_metadata_files_deleted_total", {{"group", group}},
             counters.metadata_files_deleted);
    w.Family("floe_optimizing_processes_total", "counter",
             "Optimizing processes that ended, by table, type and outcome.");
    for (const auto& [key, n] : counters.processes) {
      const auto& [catalog, ns, table, type, status] = key;
      w.Sample("floe_optimizing_processes_total",
               {{"catalog", catalog},
                {"namespace", ns},
                {"table", table},
                {"type", type},
                {"status", status}},
               n);
    }

    const auto runtimes_view = optimizer_->TablesView();
    const std::vector<metastore::TableRuntimeRecord>& runtimes = *runtimes_view;
    const int64_t now_ms = config_.now_ms();
    w.Family("floe_table_optimizing_status", "gauge",
             "1 for a table's current self-optimizing status.");
    for (const auto& r : runtimes) {
      for (std::string_view status : kStatuses) {
        if (r.status != status) continue;
        w.Sample("floe_table_optimizing_status",
                 {{"catalog", r.catalog},
                  {"namespace", r.table_namespace},
                  {"table", r.table_name},
                  {"status", status}},
                 int64_t{1});
      }
    }
    w.Family("floe_table_optimizing_status_duration_seconds", "gauge",
             "Time a table has been in its current self-optimizing status.");
    for (const auto& r : runtimes) {
      w.Sample("floe_table_optimizing_status_duration_seconds",
               {{"catalog", r.catalog},
                {"namespace", r.table_namespace},
                {"table", r.table_name},
                {"status", r.status}},
               r.updated_at_ms > 0 ? static_cast<double>(now_ms - r.updated_at_ms) / 1000.0 : 0.0);
    }
    w.Family("floe_table_last_optimized_timestamp_seconds", "gauge",
             "When a table was last optimized, by type (Unix time; absent when never).");
    for (const auto& r : runtimes) {
      const std::pair<std::string_view, int64_t> times[] = {
          {"minor", r.last_minor_ms}, {"major", r.last_major_ms}, {"full", r.last_full_ms}};
      for (const auto& [type, ms] : times) {
        if (ms <= 0) continue;
        w.Sample("floe_table_last_optimized_timestamp_seconds",
                 {{"catalog", r.catalog},
                  {"namespace", r.table_namespace},
                  {"table", r.table_name},
                  {"type", type}},
                 static_cast<double>(ms) / 1000.0);
      }
    }

    const auto stats_view = optimizer_->StatsView();
    const std::vector<optimize::TableStats>& stats = *stats_view;
    struct Gauge {
      std::string_view name;
      std::string_view help;
      int64_t optimize::TableStats::*field;
    };
    const Gauge gauges[] = {
        {"floe_table_data_files", "Data files of the current snapshot.",
         &optimize::TableStats::data_files},
        {"floe_table_delete_files", "Delete files of the current snapshot.",
         &optimize::TableStats::delete_files},
        {"floe_table_equality_delete_files", "Equality delete files (from the last plan).",
         &optimize::TableStats::equality_delete_files},
        {"floe_table_position_delete_files",
         "Position delete files and deletion vectors (from the last plan).",
         &optimize::TableStats::position_delete_files},
        {"floe_table_records", "Records of the current snapshot (before deletes).",
         &optimize::TableStats::records},
        {"floe_table_equality_delete_records", "Equality delete records.",
         &optimize::TableStats::equality_delete_records},
        {"floe_table_position_delete_records", "Position delete records.",
         &optimize::TableStats::position_delete_records},
        {"floe_table_size_bytes", "Bytes of the current snapshot's files.",
         &optimize::TableStats::files_bytes},
        {"floe_table_snapshots", "Snapshots in the table's metadata.",
         &optimize::TableStats::snapshots},
    };
    for (const Gauge& g : gauges) {
      w.Family(g.name, "gauge", g.help);
      for (const optimize::TableStats& s : stats) {
        const int64_t value = s.*g.field;
        if (value < 0) continue;
        w.Sample(
            g.name,
            {{"catalog", s.catalog}, {"namespace", s.table_namespace}, {"table", s.table_name}},
            value);
      }
    }
    w.Family("floe_table_health_score", "gauge",
             "Amoro's health score (0-100) of the table's current snapshot, from the last plan.");
    for (const optimize::TableStats& s : stats) {
      if (s.health_score < 0) continue;
      w.Sample("floe_table_health_score",
               {{"catalog", s.catalog}, {"namespace", s.table_namespace}, {"table", s.table_name}},
               static_cast<int64_t>(s.health_score));
    }
  }

  if (kafka_) {
    // The broker's counters live on its io thread: read there, as the topic figures are.
    kafka::Broker::SyncStats sync;
    bool group_commit = false;
    if (kafka_
            ->Call([&](kafka::Broker& b) {
              sync = b.sync_stats();
              group_commit = b.group_commit();
            })
            .ok() &&
        group_commit) {
      w.Family("floe_kafka_log_sync_rounds_total", "counter",
               "Rounds of the Kafka group-commit worker (each syncs every log made dirty "
               "since the last).");
      w.Sample("floe_kafka_log_sync_rounds_total", {}, sync.rounds);
      w.Family("floe_kafka_log_syncs_total", "counter",
               "fdatasyncs of Kafka partition files by the group-commit worker.");
      w.Sample("floe_kafka_log_syncs_total", {}, sync.syncs);
      w.Family("floe_kafka_log_synced_batches_total", "counter",
               "Produced record batches those fdatasyncs made durable.");
      w.Sample("floe_kafka_log_synced_batches_total", {}, sync.synced_batches);
      w.Family("floe_kafka_log_sync_failures_total", "counter",
               "Failed syncs whose unsynced batches were discarded (KAFKA_STORAGE_ERROR).");
      w.Sample("floe_kafka_log_sync_failures_total", {}, sync.failures);
    }
  }
  WriteExecutorMetrics(w);
  if (ingest_) WriteTopicMetrics(w);
  if (s3_metrics_) io::s3::WriteS3Metrics(*s3_metrics_, w);

  http::HttpResponse response;
  response.content_type = "text/plain; version=0.0.4; charset=utf-8";
  response.body = std::move(out);
  return response;
}

void Server::WriteExecutorMetrics(PrometheusWriter& w) {
  std::vector<ExecutorStats> executors;
  for (const Executor* e : {ingest_executor_.get()}) {
    if (e != nullptr) executors.push_back(e->stats());
  }
  if (executors.empty()) return;
  auto family = [&](std::string_view name, std::string_view type, std::string_view help,
                    const auto& value) {
    w.Family(name, type, help);
    for (const ExecutorStats& s : executors) w.Sample(name, {{"executor", s.name}}, value(s));
  };
  using S = const ExecutorStats&;
  auto count = [](uint64_t n) { return static_cast<int64_t>(n); };
  family("floe_executor_threads", "gauge", "Threads of an executor.",
         [](S s) { return int64_t{s.threads}; });
  family("floe_executor_queued_tasks", "gauge", "Tasks waiting for a thread of the executor.",
         [&](S s) { return count(s.queued); });
  family("floe_executor_running_tasks", "gauge", "Tasks on a thread of the executor now.",
         [&](S s) { return count(s.running); });
  family("floe_executor_delayed_tasks", "gauge", "Tasks submitted for later, not due yet.",
         [&](S s) { return count(s.delayed); });
  family("floe_executor_submitted_tasks_total", "counter",
         "Tasks the executor accepted (a delayed one once due).",
         [&](S s) { return count(s.submitted); });
  family("floe_executor_completed_tasks_total", "counter", "Tasks the executor ran.",
         [&](S s) { return count(s.completed); });
  family("floe_executor_rejected_tasks_total", "counter",
         "Tasks the executor refused (a full queue, or stopping).",
         [&](S s) { return count(s.rejected); });
  family("floe_executor_queue_wait_seconds_total", "counter",
         "Time the completed tasks waited for a thread, summed.",
         [](S s) { return s.queue_wait_seconds; });
  // Thread CPU time, as floe_optimizer_busy_seconds_total: a task waiting is not busy.
  family("floe_executor_busy_seconds_total", "counter", "Thread CPU time of the executor's tasks.",
         [](S s) { return s.busy_cpu_seconds; });
}

void Server::WriteTopicMetrics(PrometheusWriter& w) {
  w.Family("floe_table_topic_deferred_rounds_total", "counter",
           "Table topic rounds the ingest executor refused, submitted again by the supervisor.");
  w.Sample("floe_table_topic_deferred_rounds_total", {},
           static_cast<int64_t>(ingest_->deferred_rounds()));
  if (key_index_) {
    const ingest::KeyIndexStats k = key_index_->stats();
    struct Figure {
      const char* name;
      const char* type;
      const char* help;
      int64_t value;
    };
    const Figure figures[] = {
        {"floe_key_index_memory_bytes", "gauge",
         "Memory of the keyed topics' key index: block cache (memtables charged to it) and "
         "table readers.",
         k.memory_bytes},
        {"floe_key_index_memory_limit_bytes", "gauge", "kafka.key-index.memory-bytes.",
         k.memory_limit_bytes},
        {"floe_key_index_memtable_bytes", "gauge", "Of which memtables.", k.memtable_bytes},
        {"floe_key_index_disk_bytes", "gauge",
         "The key index's files on local disk (SSTs, write-ahead log).", k.disk_bytes},
        {"floe_key_index_entries", "gauge",
         "Entries of the key index (RocksDB's estimate; keys and file names of all tables).",
         k.keys},
        {"floe_key_index_rebuilds_total", "counter",
         "Tables whose key index was built from all their live data files.", k.rebuilds},
        {"floe_key_index_catch_ups_total", "counter",
         "Key index syncs that read the data files other commits added.", k.catch_ups},
        {"floe_key_index_files_read_total", "counter",
         "Data files whose key columns the key index read.", k.files_read},
    };
    for (const Figure& f : figures) {
      w.Family(f.name, f.type, f.help);
      w.Sample(f.name, {}, f.value);
    }
  }
  auto topics = ingest_->Topics();
  if (!topics.ok()) return;
  w.Family("floe_topic_produced_records", "gauge",
           "Records in the topic's log (log end minus log start, over partitions).");
  for (const auto& t : *topics)
    w.Sample("floe_topic_produced_records", {{"topic", t.name}}, t.records);
  w.Family("floe_topic_log_end_offset", "gauge",
           "The sum over partitions of the log end offset: its rate is the produce rate.");
  for (const auto& t : *topics) {
    w.Sample("floe_topic_log_end_offset", {{"topic", t.name}}, t.log_end_offset_sum);
  }
  w.Family("floe_topic_records_rejected_total", "counter",
           "Records refused at produce time by the topic's schema validation, by reason.");
  for (const auto& t : *topics) {
    for (const auto& [reason, n] : t.rejected_records) {
      w.Sample("floe_topic_records_rejected_total", {{"topic", t.name}, {"reason", reason}}, n);
    }
  }
  w.Family("floe_topic_produce_records_per_second", "gauge",
           "Records appended per second, over the last second or more.");
  for (const auto& t : *topics) {
    w.Sample("floe_topic_produce_records_per_second", {{"topic", t.name}},
             t.produce_records_per_second);
  }
  // Each family's samples follow its HELP and TYPE lines (the text format's grouping).
  auto family = [&](std::string_view name, std::string_view type, std::string_view help,
                    const std::function<void(const ingest::TopicStats&, std::string_view)>& emit) {
    w.Family(name, type, help);
    for (const auto& t : *topics) {
      if (t.translation) emit(*t.translation, t.name);
    }
  };
  // Lag from the broker's view now, for every table topic (one whose translator has not
  // started yet lags by its whole log).
  w.Family("floe_table_topic_translation_lag_records", "gauge",
           "Records of a table topic not yet committed to its table.");
  for (const auto& t : *topics) {
    if (t.table_topic) {
      w.Sample("floe_table_topic_translation_lag_records", {{"topic", t.name}}, t.LagOffsets());
    }
  }
  w.Family("floe_table_topic_translation_lag_bytes", "gauge",
           "Log bytes of a table topic not yet committed to its table (produce throttling).");
  for (const auto& t : *topics) {
    if (t.table_topic) {
      w.Sample("floe_table_topic_translation_lag_bytes", {{"topic", t.name}}, t.LagBytes());
    }
  }
  family("floe_table_topic_commits_total", "counter", "Commits of a table topic's coordinator.",
         [&](const ingest::TopicStats& s, std::string_view topic) {
           w.Sample("floe_table_topic_commits_total", {{"topic", topic}}, s.commits);
         });
  family("floe_table_topic_rows_committed_total", "counter",
         "Rows a table topic's coordinator committed to its table.",
         [&](const ingest::TopicStats& s, std::string_view topic) {
           w.Sample("floe_table_topic_rows_committed_total", {{"topic", topic}}, s.rows_committed);
         });
  family("floe_table_topic_last_commit_latency_seconds", "gauge",
         "How long the coordinator's last commit took (dead-letter and table commits).",
         [&](const ingest::TopicStats& s, std::string_view topic) {
           if (s.last_commit_latency_ms < 0) return;
           w.Sample("floe_table_topic_last_commit_latency_seconds", {{"topic", topic}},
                    static_cast<double>(s.last_commit_latency_ms) / 1000.0);
         });
  family("floe_table_topic_dlq_records_total", "counter",
         "Records a table topic sent to its dead-letter table.",
         [&](const ingest::TopicStats& s, std::string_view topic) {
           w.Sample("floe_table_topic_dlq_records_total", {{"topic", topic}}, s.dlq_records);
         });
  family("floe_table_topic_failed", "gauge",
         "1 while a table topic's translation is failing (see the management API).",
         [&](const ingest::TopicStats& s, std::string_view topic) {
           w.Sample("floe_table_topic_failed", {{"topic", topic}},
                    int64_t{s.state == "failed" ? 1 : 0});
         });
}

}  // namespace floe::server
