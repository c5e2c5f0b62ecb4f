#include "floe/base/prometheus.h"

#include <iterator>
#include <limits>

#include <fmt/format.h>

namespace floe {

namespace {

void AppendDouble(std::string* out, double v) {
  if (v != v) {
    out->append("NaN");
  } else if (v == std::numeric_limits<double>::infinity()) {
    out->append("+Inf");
  } else if (v == -std::numeric_limits<double>::infinity()) {
    out->append("-Inf");
  } else {
    fmt::format_to(std::back_inserter(*out), "{}", v);
  }
}

}  // namespace

void PrometheusWriter::AppendLabelValue(std::string* out, std::string_view value) {
  for (char c : value) {
    switch (c) {
      case '\\': out->append("\\\\"); break;
      case '"': out->append("\\\""); break;
      case '\n': out->append("\\n"); break;
      default: out->push_back(c);
    }
  }
}

void PrometheusWriter::Family(std::string_view name, std::string_view type, std::string_view help) {
  out_->append("# HELP ").append(name).push_back(' ');
  for (char c : help) {
    if (c == '\\') {
      out_->append("\\\\");
    } else if (c == '\n') {
      out_->append("\\n");
    } else {
      out_->push_back(c);
    }
  }
  out_->append("\n# TYPE ").append(name).push_back(' ');
  out_->append(type).push_back('\n');
}

void PrometheusWriter::Labels(PrometheusLabels labels, std::string_view extra_key,
                              std::string_view extra_value) {
  if (labels.size() == 0 && extra_key.empty()) return;
  out_->push_back('{');
  bool first = true;
  auto one = [&](std::string_view k, std::string_view v) {
    if (!first) out_->push_back(',');
    first = false;
    out_->append(k).append("=\"");
    AppendLabelValue(out_, v);
    out_->push_back('"');
  };
  for (const auto& [k, v] : labels) one(k, v);
  if (!extra_key.empty()) one(extra_key, extra_value);
  out_->push_back('}');
}

void PrometheusWriter::Sample(std::string_view name, PrometheusLabels labels, double value) {
  out_->append(name);
  Labels(labels);
  out_->push_back(' ');
  AppendDouble(out_, value);
  out_->push_back('\n');
}

void PrometheusWriter::Sample(std::string_view name, PrometheusLabels labels, int64_t value) {
  out_->append(name);
  Labels(labels);
  fmt::format_to(std::back_inserter(*out_), " {}\n", value);
}

void LatencyHistogram::Observe(double seconds) {
  size_t i = 0;
  while (i < kBounds.size() && seconds > kBounds[i]) ++i;
  buckets_[i].fetch_add(1, std::memory_order_relaxed);
  const double micros = seconds * 1e6;
  sum_micros_.fetch_add(micros > 0 ? static_cast<uint64_t>(micros) : 0, std::memory_order_relaxed);
}

void LatencyHistogram::Write(PrometheusWriter& w, std::string_view name,
                             PrometheusLabels labels) const {
  // Buckets are cumulative in the exposition format.
  uint64_t cumulative = 0;
  const std::string bucket = std::string(name) + "_bucket";
  for (size_t i = 0; i <= kBounds.size(); ++i) {
    cumulative += buckets_[i].load(std::memory_order_relaxed);
    std::string le;
    if (i < kBounds.size()) {
      AppendDouble(&le, kBounds[i]);
    } else {
      le = "+Inf";
    }
    w.out_->append(bucket);
    w.Labels(labels, "le", le);
    fmt::format_to(std::back_inserter(*w.out_), " {}\n", cumulative);
  }
  w.Sample(std::string(name) + "_sum", labels,
           static_cast<double>(sum_micros_.load(std::memory_order_relaxed)) / 1e6);
  w.Sample(std::string(name) + "_count", labels, static_cast<int64_t>(cumulative));
}

}  // namespace floe
