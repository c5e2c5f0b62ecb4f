// S3Metrics: what floe's S3 traffic costs, by catalog, bucket and S3 operation: requests
// (retries included, since stores bill every attempt), retries, errors, and bytes read and
// written. One S3Metrics is shared by every S3FileIO a process opens (a server's catalog
// pools and optimizer threads; a CLI command's FileIO) and read by /metrics and `--stats`.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <string_view>
#include <utility>

#include "floe/base/prometheus.h"

namespace floe::io::s3 {

// The S3 API operations floe sends (names as in the S3 API reference).
enum class S3Operation : uint8_t {
  kGetObject,       // a GET of a whole object
  kGetObjectRange,  // a GET of part of an object (Range)
  kHeadObject,
  kPutObject,
  kCreateMultipartUpload,
  kUploadPart,
  kCompleteMultipartUpload,
  kAbortMultipartUpload,
  kDeleteObject,
  kDeleteObjects,
  kListObjectsV2,
};
inline constexpr size_t kS3OperationCount = 11;

// "GetObject", "GetObjectRange", "HeadObject", ...: the `operation` label.
std::string_view S3OperationName(S3Operation op);

struct S3OperationCounts {
  int64_t requests = 0;  // attempts sent, retries included
  int64_t retries = 0;   // of those, the repeated attempts
  int64_t errors = 0;    // attempts that failed (see S3Metrics::Record)
};

struct S3TrafficCounts {
  std::array<S3OperationCounts, kS3OperationCount> operations{};
  int64_t bytes_read = 0;     // GET response bodies
  int64_t bytes_written = 0;  // PUT and UploadPart request bodies, every attempt

  const S3OperationCounts& of(S3Operation op) const { return operations[static_cast<size_t>(op)]; }
  // Sums over operations.
  S3OperationCounts Total() const;
  void Add(const S3TrafficCounts& other);
};

// One attempt of one request.
struct S3Attempt {
  S3Operation op = S3Operation::kGetObject;
  bool retry = false;  // not the first attempt
  // A transport failure, an HTTP status of 400 or more other than 404 and 412 (the normal
  // answers to existence checks, deletes of gone keys and conditional writes), or a 200
  // carrying an S3 <Error> (CompleteMultipartUpload).
  bool error = false;
  uint64_t bytes_read = 0;
  uint64_t bytes_written = 0;
};

// Thread-safe.
class S3Metrics {
 public:
  using Key = std::pair<std::string, std::string>;  // catalog, bucket

  void Record(std::string_view catalog, std::string_view bucket, const S3Attempt& attempt);
  std::map<Key, S3TrafficCounts> Snapshot() const;
  // Every catalog and bucket summed.
  S3TrafficCounts Total() const;

 private:
  mutable std::mutex mu_;
  std::map<Key, S3TrafficCounts> counts_;  // guarded by mu_
};

// Writes the floe_s3_* families (docs/metrics.md); nothing before the first S3 request.
void WriteS3Metrics(const S3Metrics& metrics, PrometheusWriter& w);

}  // namespace floe::io::s3
