// Prometheus text exposition format 0.0.4 (what /metrics answers): PrometheusWriter writes
// metric families (HELP, TYPE, samples with escaped label values); LatencyHistogram counts
// observations into fixed buckets without locks, for request latencies on hot paths.
#pragma once

#include <array>
#include <atomic>
#include <cstdint>
#include <initializer_list>
#include <string>
#include <string_view>
#include <utility>

namespace floe {

using PrometheusLabels = std::initializer_list<std::pair<std::string_view, std::string_view>>;

class PrometheusWriter {
 public:
  explicit PrometheusWriter(std::string* out) : out_(out) {}

  // Starts a family: `type` is counter, gauge or histogram. Call once per name, before its
  // samples.
  void Family(std::string_view name, std::string_view type, std::string_view help);
  void Sample(std::string_view name, PrometheusLabels labels, double value);
  void Sample(std::string_view name, PrometheusLabels labels, int64_t value);

  // Label values escape '\\', '"' and newlines; help text escapes '\\' and newlines.
  static void AppendLabelValue(std::string* out, std::string_view value);

 private:
  void Labels(PrometheusLabels labels, std::string_view extra_key = {},
              std::string_view extra_value = {});

  friend class LatencyHistogram;
  std::string* out_;
};

// Observations in seconds, bucketed by the bounds below (Prometheus' client defaults,
// extended down to 100 µs since catalog reads are that fast). Thread-safe.
class LatencyHistogram {
 public:
  static constexpr std::array<double, 14> kBounds = {
      0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5};

  void Observe(double seconds);
  // Writes `name`_bucket / _sum / _count samples (the family header is the caller's).
  void Write(PrometheusWriter& w, std::string_view name, PrometheusLabels labels) const;

 private:
  std::array<std::atomic<uint64_t>, kBounds.size() + 1> buckets_{};  // the last is +Inf
  std::atomic<uint64_t> sum_micros_{0};
};

}  // namespace floe
