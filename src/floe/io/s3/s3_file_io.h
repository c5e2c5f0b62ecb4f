// S3FileIO: FileIO over the S3 REST API (AWS S3, MinIO, Alibaba OSS and other S3-compatible
// stores) for s3:// and s3a:// locations, on libcurl with SigV4 signing (sigv4.h).
//
// Semantics on an object store:
//   - OpenInput issues a HEAD (size fixed at open); ReadAt issues one ranged GET per call.
//     Its InputFiles invite up to S3Options::read_concurrency concurrent ReadAt calls
//     (InputFile::max_concurrent_reads).
//   - CreateOutput buffers up to part_size_bytes: a file that fits is one PUT at Close; a
//     larger one becomes a multipart upload whose parts are sent while writing. Nothing is
//     visible before Close succeeds; a failed part, a failed Close or destruction without
//     Close aborts the upload.
//   - overwrite=false sends `If-None-Match: *`, so a concurrent writer of the same key loses
//     with kAlreadyExists (412) on stores that support conditional writes (AWS S3 since 2024,
//     MinIO); a store that ignores the header cannot make this atomic, and the HEAD at
//     CreateOutput is then the only check.
//   - Delete of a missing key succeeds (S3 cannot tell); DeleteFiles uses DeleteObjects,
//     1000 keys a request. There is no rename: RenameNoReplace is kUnimplemented.
//   - List is ListObjectsV2 with continuation tokens; modified_ms comes from LastModified.
//
// Every request is retried with exponential backoff and full jitter on throttling (429, 503
// SlowDown), 500, 502, 504, S3's RequestTimeout / InternalError codes and transport errors,
// up to RetryPolicy::max_attempts. Requests are counted per operation (request_counts(), and
// S3Options::metrics when given).
//
// Thread-safety: the FileIO and its InputFiles may be used from several threads (a pool of
// curl handles, each reusing its connection); one OutputStream is used by one thread.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "floe/http/http_client.h"
#include "floe/io/file_io.h"
#include "floe/io/s3/s3_metrics.h"
#include "floe/io/s3/sigv4.h"

namespace floe::io::s3 {

struct RetryPolicy {
  int max_attempts = 6;  // the first try included
  int64_t base_delay_ms = 50;
  int64_t max_delay_ms = 5'000;

  // The wait before retry number `retry` (1 = the first retry): uniform in
  // [0, min(max_delay_ms, base_delay_ms * 2^(retry-1))] ("full jitter"), `unit` in [0, 1).
  int64_t DelayMs(int retry, double unit) const;
};

// Sends one HTTP request. Must be thread-safe. Tests inject a fake; the default is a pool
// of HttpClients.
using S3Transport = std::function<Result<http::ClientResponse>(const http::ClientRequest&)>;

struct S3Options {
  // http(s)://host[:port][/base]; empty = AWS: https://s3.<region>.amazonaws.com.
  std::string endpoint;
  std::string region = "us-east-1";
  // Path-style (endpoint/bucket/key) instead of virtual-hosted (bucket.endpoint/key).
  // Unset: path-style with a custom endpoint, virtual-hosted on AWS.
  std::optional<bool> path_style;
  AwsCredentials credentials;
  // Sign bodies (x-amz-content-sha256 = their SHA-256) or send UNSIGNED-PAYLOAD.
  bool sign_payload = true;
  uint64_t part_size_bytes = 8ull << 20;
  // Curl handles kept for reuse (also the useful parallelism of concurrent readers).
  int max_connections = 16;
  // Ranged GETs of one file a reader may send at once (a Parquet row group's coalesced
  // ranges), at most max_connections; 1: one at a time.
  int read_concurrency = 8;
  RetryPolicy retry;
  http::HttpClientOptions http;
  // Where every attempt is also counted, labelled with `metrics_catalog` and the bucket
  // (s3_metrics.h); null: only request_counts().
  std::shared_ptr<S3Metrics> metrics;
  std::string metrics_catalog;

  // Injected for tests; defaults: a pool of HttpClients, the system clock, a real sleep,
  // a random seed.
  S3Transport transport;
  std::function<std::chrono::system_clock::time_point()> now;
  std::function<void(int64_t ms)> sleep;
  std::optional<uint64_t> jitter_seed;

  // Reads the Iceberg FileIO properties (s3.endpoint, s3.region, s3.access-key-id,
  // s3.secret-access-key, s3.session-token, s3.path-style-access, s3.multipart.size,
  // s3.signed-payload, s3.max-connections, s3.read-concurrency, s3.retry.max-attempts) and, for
  // what they leave out, the standard AWS environment (AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY,
  // AWS_SESSION_TOKEN, AWS_REGION / AWS_DEFAULT_REGION, AWS_ENDPOINT_URL_S3 /
  // AWS_ENDPOINT_URL). `getenv` may be null (no environment). Errors: kInvalidArgument.
  static Result<S3Options> FromProperties(const std::map<std::string, std::string>& properties,
                                          const std::function<const char*(const char*)>& getenv);
};

// Requests sent, per S3 operation (retries included): what an object store bills.
struct S3RequestCounts {
  int64_t get = 0;
  int64_t head = 0;
  int64_t put = 0;
  int64_t list = 0;
  int64_t delete_ = 0;    // DeleteObject and DeleteObjects
  int64_t multipart = 0;  // Create / UploadPart / Complete / Abort
  int64_t retries = 0;    // of all the above, the repeated attempts
};

// A parsed s3:// or s3a:// location.
struct S3Location {
  std::string scheme;  // "s3" or "s3a"
  std::string bucket;
  std::string key;  // without a leading '/'

  // Errors: kInvalidArgument (another scheme, no bucket).
  static Result<S3Location> Parse(std::string_view location);
};

class S3Client;

class S3FileIO final : public FileIO {
 public:
  // Errors: kInvalidArgument (a malformed endpoint).
  static Result<std::unique_ptr<S3FileIO>> Make(S3Options options);
  ~S3FileIO() override;

  Result<std::unique_ptr<InputFile>> OpenInput(std::string_view location) override;
  Result<std::unique_ptr<OutputStream>> CreateOutput(std::string_view location,
                                                     bool overwrite) override;
  Status Delete(std::string_view location) override;
  Status DeleteFiles(const std::vector<std::string>& locations) override;
  Result<bool> Exists(std::string_view location) override;
  Result<std::vector<FileInfo>> List(std::string_view prefix) override;

  S3RequestCounts request_counts() const;

 private:
  explicit S3FileIO(std::shared_ptr<S3Client> client);
  // Shared with open files and streams, which may outlive this FileIO.
  std::shared_ptr<S3Client> client_;
};

// Parses an ISO 8601 timestamp as S3 writes them (2009-10-12T17:50:30.000Z) to
// milliseconds since the epoch. Errors: kCorrupt.
Result<int64_t> ParseS3Timestamp(std::string_view text);

}  // namespace floe::io::s3
