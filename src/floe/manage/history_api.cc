// GET /api/v1/overview/history: the samples of HistoryRecorder (history_recorder.h) between
// `from` and `to`, downsampled to one point per `step` (docs/management-api.md, "Overview
// history"). Per point and server: counts and sizes as of the bucket's last sample; tasks
// and memory at their peak in the bucket, so a burst between two points still shows; rates
// as what happened in the bucket divided by the time its samples cover. Servers sharing the
// metastore each record their own series; a point adds them up (`server` picks one): the
// tables and files are those of the newest sample (every server sees the same tables),
// threads, tasks, memory, amounts and rates are summed.
#include <algorithm>
#include <charconv>
#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "floe/base/macros.h"
#include "floe/manage/api_util.h"

namespace floe::manage {

using http::HttpResponse;
using internal::JsonResponse;
using internal::OJson;

namespace {

constexpr int64_t kDefaultSpanMs = int64_t{24} * 3600 * 1000;
// Points a default step aims at, and the most a request may ask for.
constexpr int64_t kDefaultPoints = 360;
constexpr int64_t kMaxPoints = 5000;
// Rows read for one answer: more than the recorder keeps by default.
constexpr int64_t kMaxRows = 200'000;
constexpr int64_t kMaxTimeMs = int64_t{1} << 52;

Result<std::optional<int64_t>> IntParam(const ManagementApi::Call& call, std::string_view name) {
  std::optional<std::string> text = call.Query(name);
  if (!text) return std::optional<int64_t>();
  int64_t v = 0;
  auto [end, ec] = std::from_chars(text->data(), text->data() + text->size(), v);
  // The bound keeps to - from + 1 from overflowing; it is beyond year 100000.
  if (ec != std::errc() || end != text->data() + text->size() || v < 0 || v > kMaxTimeMs) {
    return Status::InvalidArgument("{} must be an integer from 0 to {} (milliseconds)", name,
                                   kMaxTimeMs);
  }
  return std::optional<int64_t>(v);
}

struct Bucket {
  metastore::HistorySample last;  // gauges as of the bucket's end
  int64_t tasks_running_max = 0;
  int64_t tasks_queued_max = 0;
  int64_t rss_max = 0;
  int64_t covered_ms = 0;
  int64_t bytes_optimized = 0;
  int64_t cpu_ms = 0;
  int64_t records_produced = 0;
  int64_t rows_ingested = 0;
};

double PerSecond(int64_t amount, int64_t covered_ms) {
  return covered_ms > 0 ? static_cast<double>(amount) * 1000.0 / static_cast<double>(covered_ms)
                        : 0.0;
}

// One point: the buckets of every server that sampled in the step.
OJson PointJson(const std::map<std::string, Bucket>& by_server) {
  const Bucket* newest = nullptr;
  int64_t threads = 0, tasks_running = 0, tasks_queued = 0, rss = 0;
  int64_t bytes_optimized = 0, records_produced = 0, rows_ingested = 0;
  double cpu_ms_per_s = 0, optimized_per_s = 0, produced_per_s = 0, ingested_per_s = 0;
  for (const auto& [server, b] : by_server) {
    if (newest == nullptr || b.last.sample_ms > newest->last.sample_ms) newest = &b;
    threads += b.last.optimizer_threads;
    tasks_running += b.tasks_running_max;
    tasks_queued += b.tasks_queued_max;
    rss += b.rss_max;
    bytes_optimized += b.bytes_optimized;
    records_produced += b.records_produced;
    rows_ingested += b.rows_ingested;
    cpu_ms_per_s += PerSecond(b.cpu_ms, b.covered_ms);
    optimized_per_s += PerSecond(b.bytes_optimized, b.covered_ms);
    produced_per_s += PerSecond(b.records_produced, b.covered_ms);
    ingested_per_s += PerSecond(b.rows_ingested, b.covered_ms);
  }
  OJson j = OJson::object();
  j["timestamp-ms"] = newest->last.sample_ms;
  j["servers"] = by_server.size();
  j["tables"] = newest->last.tables;
  j["data-files"] = newest->last.data_files;
  j["delete-files"] = newest->last.delete_files;
  j["records"] = newest->last.records;
  j["total-bytes"] = newest->last.data_bytes;
  j["optimizer-threads"] = threads;
  j["tasks-running"] = tasks_running;
  j["tasks-queued"] = tasks_queued;
  j["resident-memory-bytes"] = rss;
  j["cpu-cores"] = cpu_ms_per_s / 1000.0;
  j["bytes-optimized"] = bytes_optimized;
  j["bytes-optimized-per-second"] = optimized_per_s;
  j["records-produced"] = records_produced;
  j["produce-records-per-second"] = produced_per_s;
  j["rows-ingested"] = rows_ingested;
  j["ingest-rows-per-second"] = ingested_per_s;
  return j;
}

}  // namespace

Result<HttpResponse> ManagementApi::OverviewHistory(Call& call) {
  const int64_t now = options_.now_ms ? options_.now_ms() : 0;
  FLOE_ASSIGN_OR_RETURN(std::optional<int64_t> to_param, IntParam(call, "to"));
  FLOE_ASSIGN_OR_RETURN(std::optional<int64_t> from_param, IntParam(call, "from"));
  FLOE_ASSIGN_OR_RETURN(std::optional<int64_t> step_param, IntParam(call, "step"));
  const int64_t to = to_param.value_or(now);
  int64_t from = from_param.value_or(std::max<int64_t>(0, to - kDefaultSpanMs));
  if (from > to) return Status::InvalidArgument("from must not be after to");
  if (step_param) {
    if (*step_param < 1) return Status::InvalidArgument("step must be at least 1");
    if ((to - from + 1) / *step_param > kMaxPoints) {
      return Status::InvalidArgument("from..to holds more than {} steps of {} ms", kMaxPoints,
                                     *step_param);
    }
  }
  std::optional<std::string> server = call.Query("server");
  if (server && server->size() > 255) {
    return Status::InvalidArgument("server must be at most 255 bytes (a history.server-id)");
  }
  std::vector<metastore::HistorySample> samples;
  {
    std::lock_guard lock(store_mu_);
    FLOE_ASSIGN_OR_RETURN(samples, store_->ListHistorySamples(from, to, kMaxRows, server));
  }
  // Without `from`, the span starts at the oldest sample of the last day: a server started
  // minutes ago shows each of its samples, not one point for all of them.
  if (!from_param && !samples.empty()) from = samples.front().sample_ms;
  const int64_t step =
      step_param ? *step_param
                 : std::max<int64_t>({options_.history_interval_ms, 1,
                                      (to - from + 1 + kDefaultPoints - 1) / kDefaultPoints});
  OJson points = OJson::array();
  std::optional<int64_t> current_index;
  std::map<std::string, Bucket> buckets;  // by server, for the current step
  std::set<std::string> servers;
  auto flush = [&] {
    if (current_index && !buckets.empty()) points.push_back(PointJson(buckets));
  };
  for (const metastore::HistorySample& s : samples) {
    const int64_t index = (s.sample_ms - from) / step;
    if (!current_index || *current_index != index) {
      flush();
      current_index = index;
      buckets.clear();
    }
    servers.insert(s.server_id);
    Bucket& bucket = buckets[s.server_id];
    bucket.last = s;
    bucket.tasks_running_max = std::max(bucket.tasks_running_max, s.tasks_running);
    bucket.tasks_queued_max = std::max(bucket.tasks_queued_max, s.tasks_queued);
    bucket.rss_max = std::max(bucket.rss_max, s.rss_bytes);
    bucket.covered_ms += s.interval_ms;
    bucket.bytes_optimized += s.bytes_optimized_during;
    bucket.cpu_ms += s.cpu_ms_during;
    bucket.records_produced += s.records_produced_during;
    bucket.rows_ingested += s.rows_ingested_during;
  }
  flush();
  OJson j = OJson::object();
  j["from"] = from;
  j["to"] = to;
  j["step"] = step;
  j["interval-ms"] = options_.history_interval_ms;
  j["servers"] = OJson(std::vector<std::string>(servers.begin(), servers.end()));
  j["points"] = std::move(points);
  return JsonResponse(200, j);
}

}  // namespace floe::manage
