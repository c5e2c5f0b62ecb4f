#include "floe/io/s3/s3_metrics.h"

namespace floe::io::s3 {

std::string_view S3OperationName(S3Operation op) {
  switch (op) {
    case S3Operation::kGetObject: return "GetObject";
    case S3Operation::kGetObjectRange: return "GetObjectRange";
    case S3Operation::kHeadObject: return "HeadObject";
    case S3Operation::kPutObject: return "PutObject";
    case S3Operation::kCreateMultipartUpload: return "CreateMultipartUpload";
    case S3Operation::kUploadPart: return "UploadPart";
    case S3Operation::kCompleteMultipartUpload: return "CompleteMultipartUpload";
    case S3Operation::kAbortMultipartUpload: return "AbortMultipartUpload";
    case S3Operation::kDeleteObject: return "DeleteObject";
    case S3Operation::kDeleteObjects: return "DeleteObjects";
    case S3Operation::kListObjectsV2: return "ListObjectsV2";
  }
  return "unknown";
}

S3OperationCounts S3TrafficCounts::Total() const {
  S3OperationCounts t;
  for (const S3OperationCounts& c : operations) {
    t.requests += c.requests;
    t.retries += c.retries;
    t.errors += c.errors;
  }
  return t;
}

void S3TrafficCounts::Add(const S3TrafficCounts& other) {
  for (size_t i = 0; i < kS3OperationCount; ++i) {
    operations[i].requests += other.operations[i].requests;
    operations[i].retries += other.operations[i].retries;
    operations[i].errors += other.operations[i].errors;
  }
  bytes_read += other.bytes_read;
  bytes_written += other.bytes_written;
}

void S3Metrics::Record(std::string_view catalog, std::string_view bucket,
                       const S3Attempt& attempt) {
  // One lock per HTTP request: nothing next to the request itself.
  std::lock_guard lock(mu_);
  S3TrafficCounts& c = counts_[Key(std::string(catalog), std::string(bucket))];
  S3OperationCounts& op = c.operations[static_cast<size_t>(attempt.op)];
  ++op.requests;
  op.retries += attempt.retry ? 1 : 0;
  op.errors += attempt.error ? 1 : 0;
  c.bytes_read += static_cast<int64_t>(attempt.bytes_read);
  c.bytes_written += static_cast<int64_t>(attempt.bytes_written);
}

std::map<S3Metrics::Key, S3TrafficCounts> S3Metrics::Snapshot() const {
  std::lock_guard lock(mu_);
  return counts_;
}

S3TrafficCounts S3Metrics::Total() const {
  S3TrafficCounts t;
  std::lock_guard lock(mu_);
  for (const auto& [key, c] : counts_) t.Add(c);
  return t;
}

void WriteS3Metrics(const S3Metrics& metrics, PrometheusWriter& w) {
  const std::map<S3Metrics::Key, S3TrafficCounts> snapshot = metrics.Snapshot();
  if (snapshot.empty()) return;
  struct PerOperation {
    std::string_view name;
    std::string_view help;
    int64_t S3OperationCounts::*field;
  };
  const PerOperation families[] = {
      {"floe_s3_requests_total",
       "S3 requests sent (every attempt: stores bill each), by catalog, bucket and operation.",
       &S3OperationCounts::requests},
      {"floe_s3_request_retries_total", "S3 requests that repeated a failed attempt.",
       &S3OperationCounts::retries},
      {"floe_s3_request_errors_total",
       "S3 requests that failed: transport errors, throttling, 5xx, and 4xx other than 404 "
       "and 412.",
       &S3OperationCounts::errors},
  };
  for (const PerOperation& f : families) {
    w.Family(f.name, "counter", f.help);
    for (const auto& [key, c] : snapshot) {
      for (size_t i = 0; i < kS3OperationCount; ++i) {
        const int64_t n = c.operations[i].*f.field;
        if (n == 0) continue;
        w.Sample(f.name,
                 {{"catalog", key.first},
                  {"bucket", key.second},
                  {"operation", S3OperationName(static_cast<S3Operation>(i))}},
                 n);
      }
    }
  }
  w.Family("floe_s3_read_bytes_total", "counter", "Bytes of S3 GET response bodies.");
  for (const auto& [key, c] : snapshot) {
    w.Sample("floe_s3_read_bytes_total", {{"catalog", key.first}, {"bucket", key.second}},
             c.bytes_read);
  }
  w.Family("floe_s3_written_bytes_total", "counter",
           "Bytes of S3 PutObject and UploadPart bodies sent (every attempt).");
  for (const auto& [key, c] : snapshot) {
    w.Sample("floe_s3_written_bytes_total", {{"catalog", key.first}, {"bucket", key.second}},
             c.bytes_written);
  }
}

}  // namespace floe::io::s3
