#include "floe/io/s3/s3_file_io.h"

#include <algorithm>
#include <charconv>
#include <cstring>
#include <ctime>
#include <mutex>
#include <random>
#include <thread>
#include <vector>

#include "floe/base/macros.h"
#include "floe/http/http.h"
#include "floe/io/s3/xml.h"

namespace floe::io::s3 {

namespace {

// S3 refuses more parts than this (Amazon S3 multipart upload limits).
constexpr int kMaxParts = 10'000;
// Nor parts (but the last) under 5 MiB.
constexpr uint64_t kMinPartBytes = 5ull << 20;
// Objects are stored as opaque bytes. Every request with a body names its type: libcurl
// would otherwise label it a form (application/x-www-form-urlencoded), and servers that
// parse forms (moto's) then lose the body.
constexpr std::string_view kObjectContentType = "application/octet-stream";
// DeleteObjects takes at most this many keys.
constexpr size_t kDeleteBatch = 1000;
// One ranged GET reads at most this much, well under HttpClient's response limit.
constexpr size_t kMaxGetBytes = 64ull << 20;

using Op = S3Operation;

// Error messages quote a bounded prefix of what the server said.
std::string Bounded(std::string_view text) {
  constexpr size_t kMax = 300;
  if (text.size() <= kMax) return std::string(text);
  return std::string(text.substr(0, kMax)) + "...";
}

Result<bool> ParseBool(std::string_view key, std::string_view value) {
  if (value == "true" || value == "TRUE" || value == "True" || value == "1") return true;
  if (value == "false" || value == "FALSE" || value == "False" || value == "0") return false;
  return Status::InvalidArgument("{}: expected true or false, got '{}'", key, value);
}

Result<int64_t> ParseInt(std::string_view key, std::string_view value) {
  int64_t out = 0;
  auto [ptr, ec] = std::from_chars(value.data(), value.data() + value.size(), out);
  if (ec != std::errc() || ptr != value.data() + value.size()) {
    return Status::InvalidArgument("{}: expected an integer, got '{}'", key, value);
  }
  return out;
}

struct Endpoint {
  std::string scheme;  // http or https
  std::string host;    // host[:port], without a default port
  std::string base;    // a path prefix, without a trailing '/'
};

Result<Endpoint> ParseEndpoint(std::string_view url) {
  Endpoint e;
  size_t sep = url.find("://");
  if (sep == std::string_view::npos) {
    return Status::InvalidArgument("S3 endpoint {}: expected http://host[:port] or https://...",
                                   url);
  }
  e.scheme = std::string(url.substr(0, sep));
  if (e.scheme != "http" && e.scheme != "https") {
    return Status::InvalidArgument("S3 endpoint {}: scheme must be http or https", url);
  }
  std::string_view rest = url.substr(sep + 3);
  size_t slash = rest.find('/');
  std::string_view host = rest.substr(0, slash);
  if (host.empty() || host.find('@') != std::string_view::npos) {
    return Status::InvalidArgument("S3 endpoint {}: expected a host (and no credentials)", url);
  }
  // curl leaves a default port out of the Host header; the signed host must match it.
  if (e.scheme == "http" && host.ends_with(":80")) host.remove_suffix(3);
  if (e.scheme == "https" && host.ends_with(":443")) host.remove_suffix(4);
  e.host = std::string(host);
  if (slash != std::string_view::npos) {
    std::string_view base = rest.substr(slash);
    while (base.ends_with('/')) base.remove_suffix(1);
    e.base = std::string(base);
  }
  return e;
}

bool RetryableStatus(int status) {
  return status == 429 || status == 500 || status == 502 || status == 503 || status == 504;
}

// S3's error code and message from an <Error> body, when there is one.
struct S3Error {
  std::string code;
  std::string message;
};

S3Error ParseError(const http::ClientResponse& response) {
  S3Error e;
  if (response.body.empty()) return e;
  auto root = ParseXml(response.body);
  if (!root.has_value() || root->name != "Error") return e;
  e.code = Bounded(root->ChildText("Code"));
  e.message = Bounded(root->ChildText("Message"));
  return e;
}

std::string Describe(const http::ClientResponse& response) {
  S3Error e = ParseError(response);
  if (e.code.empty()) return fmt::format("HTTP {}", response.status);
  return fmt::format("HTTP {} {}: {}", response.status, e.code, e.message);
}

// Maps a failed response to a Status. `what` names the operation and location.
Status ResponseStatus(const http::ClientResponse& response, std::string_view what) {
  std::string detail = Describe(response);
  switch (response.status) {
    case 400: return Status::InvalidArgument("{}: {}", what, detail);
    case 401: return Status::Unauthenticated("{}: {}", what, detail);
    case 403: return Status::PermissionDenied("{}: {}", what, detail);
    case 404: return Status::NotFound("{}: {}", what, detail);
    case 409:
    case 412: return Status::FailedPrecondition("{}: {}", what, detail);
    case 416: return Status::Corrupt("{}: {}", what, detail);
    default:
      if (RetryableStatus(response.status)) {
        return Status::Unavailable("{}: {} (retries exhausted)", what, detail);
      }
      return Status::IOError("{}: {}", what, detail);
  }
}

Result<uint64_t> ContentLength(const http::ClientResponse& response, std::string_view what) {
  auto value = response.Header("content-length");
  if (!value) return Status::Corrupt("{}: response has no Content-Length", what);
  uint64_t n = 0;
  auto [ptr, ec] = std::from_chars(value->data(), value->data() + value->size(), n);
  if (ec != std::errc() || ptr != value->data() + value->size()) {
    return Status::Corrupt("{}: bad Content-Length '{}'", what, Bounded(*value));
  }
  return n;
}

// The ETag S3 gives a completed multipart upload: the hex MD5 of the concatenated binary MD5s
// of the parts, "-", the number of parts. Empty when a part ETag is not a plain MD5 (e.g.
// SSE-KMS objects).
std::string MultipartEtag(const std::vector<std::string>& part_etags) {
  std::string digests;
  for (std::string etag : part_etags) {
    std::erase(etag, '"');
    if (etag.size() != 32) return {};
    for (size_t i = 0; i < 32; i += 2) {
      unsigned value = 0;
      auto [ptr, ec] = std::from_chars(etag.data() + i, etag.data() + i + 2, value, 16);
      if (ec != std::errc() || ptr != etag.data() + i + 2) return {};
      digests += static_cast<char>(value);
    }
  }
  return fmt::format("{}-{}", Md5Hex(digests), part_etags.size());
}

}  // namespace

int64_t RetryPolicy::DelayMs(int retry, double unit) const {
  int64_t cap = base_delay_ms;
  for (int i = 1; i < retry && cap < max_delay_ms; ++i) cap *= 2;
  cap = std::min(cap, max_delay_ms);
  return static_cast<int64_t>(unit * static_cast<double>(cap));
}

Result<S3Options> S3Options::FromProperties(const std::map<std::string, std::string>& properties,
                                            const std::function<const char*(const char*)>& getenv) {
  auto env = [&](const char* name) -> std::string {
    if (!getenv) return {};
    const char* v = getenv(name);
    return v ? std::string(v) : std::string();
  };
  auto prop = [&](const char* key) -> std::optional<std::string> {
    auto it = properties.find(key);
    if (it == properties.end()) return std::nullopt;
    return it->second;
  };
  S3Options o;
  // Properties win over the environment, which wins over defaults (Iceberg's S3FileIO and the
  // AWS SDKs read them in this order).
  auto pick = [&](const char* key, std::initializer_list<const char*> vars) {
    if (auto v = prop(key)) return *v;
    for (const char* var : vars) {
      std::string v = env(var);
      if (!v.empty()) return v;
    }
    return std::string();
  };
  o.endpoint = pick("s3.endpoint", {"AWS_ENDPOINT_URL_S3", "AWS_ENDPOINT_URL"});
  if (std::string region = pick("s3.region", {"AWS_REGION", "AWS_DEFAULT_REGION"});
      !region.empty()) {
    o.region = region;
  } else if (auto region_prop = prop("client.region")) {
    o.region = *region_prop;
  }
  o.credentials.access_key_id = pick("s3.access-key-id", {"AWS_ACCESS_KEY_ID"});
  o.credentials.secret_access_key = pick("s3.secret-access-key", {"AWS_SECRET_ACCESS_KEY"});
  o.credentials.session_token = pick("s3.session-token", {"AWS_SESSION_TOKEN"});
  if (o.credentials.access_key_id.empty() != o.credentials.secret_access_key.empty()) {
    return Status::InvalidArgument(
        "S3 credentials: an access key id needs a secret access key and vice versa");
  }
  if (auto v = prop("s3.path-style-access")) {
    FLOE_ASSIGN_OR_RETURN(o.path_style, ParseBool("s3.path-style-access", *v));
  }
  if (auto v = prop("s3.signed-payload")) {
    FLOE_ASSIGN_OR_RETURN(o.sign_payload, ParseBool("s3.signed-payload", *v));
  }
  if (auto v = prop("s3.multipart.size")) {
    FLOE_ASSIGN_OR_RETURN(int64_t n, ParseInt("s3.multipart.size", *v));
    if (n < static_cast<int64_t>(kMinPartBytes) || n > (int64_t{5} << 30)) {
      return Status::InvalidArgument("s3.multipart.size: {} is outside 5 MiB..5 GiB", n);
    }
    o.part_size_bytes = static_cast<uint64_t>(n);
  }
  if (auto v = prop("s3.max-connections")) {
    FLOE_ASSIGN_OR_RETURN(int64_t n, ParseInt("s3.max-connections", *v));
    if (n < 1 || n > 1024) {
      return Status::InvalidArgument("s3.max-connections: {} not in 1..1024", n);
    }
    o.max_connections = static_cast<int>(n);
  }
  if (auto v = prop("s3.read-concurrency")) {
    FLOE_ASSIGN_OR_RETURN(int64_t n, ParseInt("s3.read-concurrency", *v));
    if (n < 1 || n > 1024) {
      return Status::InvalidArgument("s3.read-concurrency: {} not in 1..1024", n);
    }
    o.read_concurrency = static_cast<int>(n);
  }
  if (auto v = prop("s3.retry.max-attempts")) {
    FLOE_ASSIGN_OR_RETURN(int64_t n, ParseInt("s3.retry.max-attempts", *v));
    if (n < 1 || n > 100) {
      return Status::InvalidArgument("s3.retry.max-attempts: {} not in 1..100", n);
    }
    o.retry.max_attempts = static_cast<int>(n);
  }
  return o;
}

Result<S3Location> S3Location::Parse(std::string_view location) {
  S3Location out;
  if (location.starts_with("s3://")) {
    out.scheme = "s3";
    location.remove_prefix(5);
  } else if (location.starts_with("s3a://")) {
    out.scheme = "s3a";
    location.remove_prefix(6);
  } else {
    return Status::InvalidArgument("{}: not an s3:// or s3a:// location", location);
  }
  size_t slash = location.find('/');
  out.bucket = std::string(location.substr(0, slash));
  if (out.bucket.empty()) return Status::InvalidArgument("{}: no bucket", location);
  if (slash != std::string_view::npos) out.key = std::string(location.substr(slash + 1));
  return out;
}

Result<int64_t> ParseS3Timestamp(std::string_view text) {
  // YYYY-MM-DDTHH:MM:SS[.fff]Z
  auto num = [&](size_t at, size_t len, int* out) {
    if (at + len > text.size()) return false;
    auto [ptr, ec] = std::from_chars(text.data() + at, text.data() + at + len, *out);
    return ec == std::errc() && ptr == text.data() + at + len;
  };
  int year, month, day, hour, minute, second;
  if (text.size() < 20 || text[4] != '-' || text[7] != '-' || text[10] != 'T' || text[13] != ':' ||
      text[16] != ':' || !num(0, 4, &year) || !num(5, 2, &month) || !num(8, 2, &day) ||
      !num(11, 2, &hour) || !num(14, 2, &minute) || !num(17, 2, &second) || month < 1 ||
      month > 12 || day < 1 || day > 31 || hour > 23 || minute > 59 || second > 60) {
    return Status::Corrupt("bad S3 timestamp '{}'", Bounded(text));
  }
  int millis = 0;
  size_t pos = 19;
  if (text[pos] == '.') {
    ++pos;
    int digits = 0;
    while (pos < text.size() && text[pos] >= '0' && text[pos] <= '9') {
      if (digits < 3) millis = millis * 10 + (text[pos] - '0');
      ++digits;
      ++pos;
    }
    if (digits == 0) return Status::Corrupt("bad S3 timestamp '{}'", Bounded(text));
    for (; digits < 3; ++digits) millis *= 10;
  }
  if (pos + 1 != text.size() || text[pos] != 'Z') {
    return Status::Corrupt("bad S3 timestamp '{}'", Bounded(text));
  }
  std::tm tm{};
  tm.tm_year = year - 1900;
  tm.tm_mon = month - 1;
  tm.tm_mday = day;
  tm.tm_hour = hour;
  tm.tm_min = minute;
  tm.tm_sec = second;
  return static_cast<int64_t>(timegm(&tm)) * 1000 + millis;
}

// The state shared by an S3FileIO and the files it opened: options, the connection pool,
// request counters.
class S3Client {
 public:
  struct Call {
    Op op = Op::kGetObjectRange;
    std::string method;
    const S3Location* location = nullptr;
    bool bucket_only = false;  // a bucket operation (list, batch delete): no key in the path
    std::vector<std::pair<std::string, std::string>> query;
    http::HttpHeaders headers;
    std::string body;
    // CompleteMultipartUpload can fail after a 200 with an <Error> body (S3 API reference):
    // such a response is retried like a 500.
    bool error_in_ok_body = false;
  };
  struct Outcome {
    http::ClientResponse response;
    int attempts = 0;
  };

  S3Client(S3Options options, Endpoint endpoint)
      : options_(std::move(options)),
        endpoint_(std::move(endpoint)),
        path_style_(options_.path_style.value_or(!options_.endpoint.empty())),
        rng_(options_.jitter_seed.value_or(std::random_device{}())) {}

  const S3Options& options() const { return options_; }

  // Signs and sends `call`, retrying transient failures. Returns the last response whatever
  // its status; a transport error once the attempts run out.
  Result<Outcome> Send(const Call& call) {
    Outcome out;
    const int max_attempts = std::max(1, options_.retry.max_attempts);
    for (int attempt = 1;; ++attempt) {
      out.attempts = attempt;
      http::ClientRequest request = Build(call);
      Result<http::ClientResponse> r = Transport(request);
      const bool error_body =
          r.has_value() && call.error_in_ok_body && r->status == 200 && IsErrorBody(r->body);
      Count(call, attempt > 1, r, error_body);
      bool retry;
      if (!r.has_value()) {
        StatusCode code = r.error().code();
        retry = code == StatusCode::kUnavailable || code == StatusCode::kDeadlineExceeded;
        if (!retry || attempt >= max_attempts) return std::move(r).error();
      } else {
        retry = RetryableStatus(r->status) ||
                (r->status == 400 && ParseError(*r).code == "RequestTimeout") || error_body;
        if (!retry || attempt >= max_attempts) {
          out.response = std::move(r).value();
          return out;
        }
      }
      Sleep(options_.retry.DelayMs(attempt, NextUnit()));
    }
  }

  std::string Describe(const S3Location& loc) const {
    return fmt::format("{}://{}/{}", loc.scheme, loc.bucket, loc.key);
  }

  S3RequestCounts counts() const {
    S3RequestCounts c;
    c.get = get_.load();
    c.head = head_.load();
    c.put = put_.load();
    c.list = list_.load();
    c.delete_ = delete_.load();
    c.multipart = multipart_.load();
    c.retries = retries_.load();
    return c;
  }

  static bool IsErrorBody(std::string_view body) {
    auto root = ParseXml(body);
    return root.has_value() && root->name == "Error";
  }

 private:
  // Counts one attempt in this client's request counts and in the shared S3Metrics.
  void Count(const Call& call, bool retry, const Result<http::ClientResponse>& r, bool error_body) {
    switch (call.op) {
      case Op::kGetObject:
      case Op::kGetObjectRange: ++get_; break;
      case Op::kHeadObject: ++head_; break;
      case Op::kPutObject: ++put_; break;
      case Op::kListObjectsV2: ++list_; break;
      case Op::kDeleteObject:
      case Op::kDeleteObjects: ++delete_; break;
      case Op::kCreateMultipartUpload:
      case Op::kUploadPart:
      case Op::kCompleteMultipartUpload:
      case Op::kAbortMultipartUpload: ++multipart_; break;
    }
    if (retry) ++retries_;
    if (!options_.metrics) return;
    S3Attempt a;
    a.op = call.op;
    a.retry = retry;
    a.error =
        !r.has_value() || error_body || (r->status >= 400 && r->status != 404 && r->status != 412);
    if (r.has_value() && (call.op == Op::kGetObject || call.op == Op::kGetObjectRange) &&
        (r->status == 200 || r->status == 206)) {
      a.bytes_read = r->body.size();
    }
    if (call.op == Op::kPutObject || call.op == Op::kUploadPart) {
      a.bytes_written = call.body.size();
    }
    options_.metrics->Record(options_.metrics_catalog, call.location->bucket, a);
  }

  double NextUnit() {
    std::lock_guard lock(rng_mu_);
    return std::uniform_real_distribution<double>(0.0, 1.0)(rng_);
  }

  void Sleep(int64_t ms) {
    if (options_.sleep) {
      options_.sleep(ms);
    } else if (ms > 0) {
      std::this_thread::sleep_for(std::chrono::milliseconds(ms));
    }
  }

  int64_t NowSeconds() const {
    auto now = options_.now ? options_.now() : std::chrono::system_clock::now();
    return std::chrono::duration_cast<std::chrono::seconds>(now.time_since_epoch()).count();
  }

  http::ClientRequest Build(const Call& call) const {
    const S3Location& loc = *call.location;
    std::string host = path_style_ ? endpoint_.host : loc.bucket + "." + endpoint_.host;
    std::string path = endpoint_.base;
    if (path_style_) path += "/" + UriEncode(loc.bucket, false);
    if (!call.bucket_only) {
      path += "/" + UriEncode(loc.key, true);
    } else if (!path_style_) {
      path += "/";
    }
    if (path.empty()) path = "/";

    http::ClientRequest request;
    request.method = call.method;
    request.url = endpoint_.scheme + "://" + host + path;
    for (size_t i = 0; i < call.query.size(); ++i) {
      const auto& [key, value] = call.query[i];
      request.url += i == 0 ? '?' : '&';
      request.url += UriEncode(key, false);
      // A flag parameter (?uploads, ?delete) is sent bare, and signed as "uploads=".
      if (!value.empty()) request.url += "=" + UriEncode(value, false);
    }
    request.headers = call.headers;
    request.body = call.body;

    SigningRequest signing;
    signing.method = call.method;
    signing.path = path;
    signing.query = call.query;
    signing.payload_hash = options_.sign_payload || call.body.empty()
                               ? Sha256Hex(call.body)
                               : std::string(kUnsignedPayload);
    std::string amz_date = AmzDate(NowSeconds());
    signing.headers = call.headers;
    signing.headers.emplace_back("host", host);
    signing.headers.emplace_back("x-amz-content-sha256", signing.payload_hash);
    signing.headers.emplace_back("x-amz-date", amz_date);
    if (!options_.credentials.session_token.empty()) {
      signing.headers.emplace_back("x-amz-security-token", options_.credentials.session_token);
    }
    request.headers = signing.headers;
    // Without keys the request goes anonymously (a public bucket).
    if (!options_.credentials.access_key_id.empty()) {
      SigningScope scope{amz_date, options_.region, "s3"};
      request.headers.emplace_back("authorization",
                                   AuthorizationHeader(options_.credentials, scope, signing));
    }
    return request;
  }

  Result<http::ClientResponse> Transport(const http::ClientRequest& request) {
    if (options_.transport) return options_.transport(request);
    std::unique_ptr<http::HttpClient> client;
    {
      std::lock_guard lock(pool_mu_);
      if (!idle_.empty()) {
        client = std::move(idle_.back());
        idle_.pop_back();
      }
    }
    if (!client) {
      FLOE_ASSIGN_OR_RETURN(client, http::HttpClient::Make(options_.http));
    }
    Result<http::ClientResponse> r = client->Send(request);
    std::lock_guard lock(pool_mu_);
    if (idle_.size() < static_cast<size_t>(std::max(1, options_.max_connections))) {
      idle_.push_back(std::move(client));
    }
    return r;
  }

  const S3Options options_;
  const Endpoint endpoint_;
  const bool path_style_;

  std::mutex pool_mu_;
  std::vector<std::unique_ptr<http::HttpClient>> idle_;  // guarded by pool_mu_

  std::mutex rng_mu_;
  std::mt19937_64 rng_;  // guarded by rng_mu_

  std::atomic<int64_t> get_{0}, head_{0}, put_{0}, list_{0}, delete_{0}, multipart_{0}, retries_{0};
};

namespace {

struct HeadResult {
  uint64_t size = 0;
  std::string etag;
};

Result<std::optional<HeadResult>> Head(S3Client& client, const S3Location& loc) {
  S3Client::Call call;
  call.op = Op::kHeadObject;
  call.method = "HEAD";
  call.location = &loc;
  FLOE_ASSIGN_OR_RETURN(auto outcome, client.Send(call));
  const http::ClientResponse& r = outcome.response;
  if (r.status == 404) return std::optional<HeadResult>();
  std::string what = "S3 HEAD " + client.Describe(loc);
  if (r.status != 200) return ResponseStatus(r, what);
  HeadResult head;
  FLOE_ASSIGN_OR_RETURN(head.size, ContentLength(r, what));
  if (auto etag = r.Header("etag")) head.etag = std::string(*etag);
  return std::optional<HeadResult>(std::move(head));
}

class S3InputFile final : public InputFile {
 public:
  S3InputFile(std::shared_ptr<S3Client> client, std::string location, S3Location loc,
              HeadResult head)
      : client_(std::move(client)),
        location_(std::move(location)),
        loc_(std::move(loc)),
        head_(std::move(head)) {}

  const std::string& location() const override { return location_; }
  uint64_t size() const override { return head_.size; }
  // Bounded by the connection pool, so concurrent GETs reuse its connections.
  int max_concurrent_reads() const override {
    const S3Options& o = client_->options();
    return std::max(1, std::min(o.read_concurrency, o.max_connections));
  }

  Status ReadAt(uint64_t offset, size_t n, uint8_t* out) const override {
    if (offset > head_.size || n > head_.size - offset) {
      return Status::Corrupt("{}: read of {} bytes at offset {} is past the end ({} bytes)",
                             location_, n, offset, head_.size);
    }
    while (n > 0) {
      size_t chunk = std::min(n, kMaxGetBytes);
      FLOE_RETURN_IF_ERROR(ReadRange(offset, chunk, out));
      offset += chunk;
      out += chunk;
      n -= chunk;
    }
    return Status::OK();
  }

 private:
  Status ReadRange(uint64_t offset, size_t n, uint8_t* out) const {
    S3Client::Call call;
    call.op = offset == 0 && n == head_.size ? Op::kGetObject : Op::kGetObjectRange;
    call.method = "GET";
    call.location = &loc_;
    call.headers.emplace_back("range", fmt::format("bytes={}-{}", offset, offset + n - 1));
    // The object must be the one sized at open: a replaced object fails instead of mixing
    // bytes of two versions.
    if (!head_.etag.empty()) call.headers.emplace_back("if-match", head_.etag);
    FLOE_ASSIGN_OR_RETURN(auto outcome, client_->Send(call));
    const http::ClientResponse& r = outcome.response;
    std::string what = fmt::format("S3 GET {} bytes {}+{}", location_, offset, n);
    if (r.status == 412) {
      return Status::IOError("{}: the object changed since it was opened", what);
    }
    if (r.status == 206 && r.body.size() == n) {
      std::memcpy(out, r.body.data(), n);
      return Status::OK();
    }
    // A server that ignores Range sends the whole object.
    if (r.status == 200 && r.body.size() == head_.size) {
      std::memcpy(out, r.body.data() + offset, n);
      return Status::OK();
    }
    if (r.status == 200 || r.status == 206) {
      return Status::IOError("{}: got {} bytes (HTTP {})", what, r.body.size(), r.status);
    }
    return ResponseStatus(r, what);
  }

  std::shared_ptr<S3Client> client_;
  std::string location_;
  S3Location loc_;
  HeadResult head_;
};

class S3OutputStream final : public OutputStream {
 public:
  S3OutputStream(std::shared_ptr<S3Client> client, std::string location, S3Location loc,
                 bool overwrite)
      : client_(std::move(client)),
        location_(std::move(location)),
        loc_(std::move(loc)),
        overwrite_(overwrite),
        part_size_(std::max<uint64_t>(client_->options().part_size_bytes, kMinPartBytes)) {}

  ~S3OutputStream() override {
    // Abandoned before Close: parts already uploaded are billed storage until aborted.
    if (!closed_ && !upload_id_.empty()) (void)Abort();
  }

  const std::string& location() const override { return location_; }
  uint64_t position() const override { return position_; }

  Status Write(const void* data, size_t n) override {
    if (closed_) return Status::FailedPrecondition("{}: write after close", location_);
    if (!failed_.ok()) return failed_;
    const auto* p = static_cast<const uint8_t*>(data);
    while (n > 0) {
      size_t take = std::min<uint64_t>(n, part_size_ - buffer_.size());
      buffer_.append(reinterpret_cast<const char*>(p), take);
      p += take;
      n -= take;
      position_ += take;
      if (buffer_.size() >= part_size_) FLOE_RETURN_IF_ERROR(Fail(UploadPart()));
    }
    return Status::OK();
  }

  Status Close() override {
    if (closed_) return failed_;
    if (!failed_.ok()) {
      closed_ = true;
      return failed_;
    }
    Status s;
    if (upload_id_.empty()) {
      s = PutObject();
    } else {
      if (!buffer_.empty()) s = UploadPart();
      if (s.ok()) s = Complete();
      if (!s.ok()) (void)Abort();
    }
    closed_ = true;
    failed_ = s;
    buffer_.clear();
    buffer_.shrink_to_fit();
    return s;
  }

 private:
  // Records the first failure; the upload is aborted so no parts linger.
  Status Fail(Status s) {
    if (s.ok()) return s;
    failed_ = s;
    if (!upload_id_.empty()) (void)Abort();
    return s;
  }

  std::string What(std::string_view op) const { return fmt::format("S3 {} {}", op, location_); }

  // An If-None-Match write answered 412 may be our own earlier attempt that succeeded with
  // its response lost (retried by us, or resent by libcurl itself when a reused connection
  // dies without an answer): the object then carries our content's ETag.
  Result<bool> WrittenByUs(std::string_view expected_etag) {
    FLOE_ASSIGN_OR_RETURN(auto head, Head(*client_, loc_));
    if (!head) return false;
    std::string etag = head->etag;
    std::erase(etag, '"');
    return etag == expected_etag;
  }

  Status PutObject() {
    S3Client::Call call;
    call.op = Op::kPutObject;
    call.method = "PUT";
    call.location = &loc_;
    call.headers.emplace_back("content-type", std::string(kObjectContentType));
    if (!overwrite_) call.headers.emplace_back("if-none-match", "*");
    call.body = std::move(buffer_);
    FLOE_ASSIGN_OR_RETURN(auto outcome, client_->Send(call));
    const http::ClientResponse& r = outcome.response;
    if (r.status == 200) return Status::OK();
    if (!overwrite_ && (r.status == 412 || r.status == 409)) {
      FLOE_ASSIGN_OR_RETURN(bool ours, WrittenByUs(Md5Hex(call.body)));
      if (ours) return Status::OK();
      return Status::AlreadyExists("{}: the object exists", What("PUT"));
    }
    return ResponseStatus(r, What("PUT"));
  }

  Status Start() {
    S3Client::Call call;
    call.op = Op::kCreateMultipartUpload;
    call.method = "POST";
    call.location = &loc_;
    call.query.emplace_back("uploads", "");
    call.headers.emplace_back("content-type", std::string(kObjectContentType));
    FLOE_ASSIGN_OR_RETURN(auto outcome, client_->Send(call));
    const http::ClientResponse& r = outcome.response;
    if (r.status != 200) return ResponseStatus(r, What("CreateMultipartUpload"));
    FLOE_ASSIGN_OR_RETURN(XmlElement root, ParseXml(r.body));
    std::string_view id = root.ChildText("UploadId");
    if (root.name != "InitiateMultipartUploadResult" || id.empty()) {
      return Status::Corrupt("{}: no UploadId in the response", What("CreateMultipartUpload"));
    }
    upload_id_ = std::string(id);
    return Status::OK();
  }

  Status UploadPart() {
    if (upload_id_.empty()) FLOE_RETURN_IF_ERROR(Start());
    if (etags_.size() >= kMaxParts) {
      return Status::InvalidArgument("{}: more than {} parts; raise s3.multipart.size", location_,
                                     kMaxParts);
    }
    S3Client::Call call;
    call.op = Op::kUploadPart;
    call.method = "PUT";
    call.location = &loc_;
    call.query.emplace_back("partNumber", std::to_string(etags_.size() + 1));
    call.query.emplace_back("uploadId", upload_id_);
    call.headers.emplace_back("content-type", std::string(kObjectContentType));
    call.body = std::move(buffer_);
    buffer_.clear();
    FLOE_ASSIGN_OR_RETURN(auto outcome, client_->Send(call));
    const http::ClientResponse& r = outcome.response;
    if (r.status != 200) return ResponseStatus(r, What("UploadPart"));
    auto etag = r.Header("etag");
    if (!etag || etag->empty()) return Status::Corrupt("{}: no ETag", What("UploadPart"));
    etags_.emplace_back(*etag);
    return Status::OK();
  }

  Status Complete() {
    std::string body = "<CompleteMultipartUpload>";
    for (size_t i = 0; i < etags_.size(); ++i) {
      body += fmt::format("<Part><PartNumber>{}</PartNumber><ETag>{}</ETag></Part>", i + 1,
                          XmlEscape(etags_[i]));
    }
    body += "</CompleteMultipartUpload>";
    S3Client::Call call;
    call.op = Op::kCompleteMultipartUpload;
    call.method = "POST";
    call.location = &loc_;
    call.query.emplace_back("uploadId", upload_id_);
    call.headers.emplace_back("content-type", "application/xml");
    if (!overwrite_) call.headers.emplace_back("if-none-match", "*");
    call.body = std::move(body);
    call.error_in_ok_body = true;
    FLOE_ASSIGN_OR_RETURN(auto outcome, client_->Send(call));
    const http::ClientResponse& r = outcome.response;
    if (r.status == 200 && !S3Client::IsErrorBody(r.body)) {
      upload_id_.clear();  // nothing left to abort
      return Status::OK();
    }
    if (r.status == 404 || r.status == 412) {
      // Our earlier attempt may have completed: the upload is gone and the object carries
      // the ETag of our parts.
      auto head = Head(*client_, loc_);
      std::string expected = MultipartEtag(etags_);
      if (head.has_value() && *head && !expected.empty()) {
        std::string etag = (*head)->etag;
        std::erase(etag, '"');
        if (etag == expected) {
          upload_id_.clear();
          return Status::OK();
        }
      }
    }
    if (!overwrite_ && (r.status == 412 || r.status == 409)) {
      return Status::AlreadyExists("{}: the object exists", What("CompleteMultipartUpload"));
    }
    if (r.status == 200) {
      return Status::IOError("{}: {}", What("CompleteMultipartUpload"), Bounded(r.body));
    }
    return ResponseStatus(r, What("CompleteMultipartUpload"));
  }

  Status Abort() {
    if (upload_id_.empty()) return Status::OK();
    S3Client::Call call;
    call.op = Op::kAbortMultipartUpload;
    call.method = "DELETE";
    call.location = &loc_;
    call.query.emplace_back("uploadId", upload_id_);
    upload_id_.clear();
    FLOE_ASSIGN_OR_RETURN(auto outcome, client_->Send(call));
    const http::ClientResponse& r = outcome.response;
    if (r.status == 204 || r.status == 200 || r.status == 404) return Status::OK();
    return ResponseStatus(r, What("AbortMultipartUpload"));
  }

  std::shared_ptr<S3Client> client_;
  std::string location_;
  S3Location loc_;
  bool overwrite_;
  uint64_t part_size_;
  std::string buffer_;
  uint64_t position_ = 0;
  std::string upload_id_;
  std::vector<std::string> etags_;
  bool closed_ = false;
  Status failed_;
};

}  // namespace

S3FileIO::S3FileIO(std::shared_ptr<S3Client> client) : client_(std::move(client)) {}
S3FileIO::~S3FileIO() = default;

Result<std::unique_ptr<S3FileIO>> S3FileIO::Make(S3Options options) {
  std::string url = options.endpoint.empty()
                        ? fmt::format("https://s3.{}.amazonaws.com", options.region)
                        : options.endpoint;
  FLOE_ASSIGN_OR_RETURN(Endpoint endpoint, ParseEndpoint(url));
  if (options.region.empty()) return Status::InvalidArgument("S3: empty region");
  auto client = std::make_shared<S3Client>(std::move(options), std::move(endpoint));
  return std::unique_ptr<S3FileIO>(new S3FileIO(std::move(client)));
}

S3RequestCounts S3FileIO::request_counts() const { return client_->counts(); }

Result<std::unique_ptr<InputFile>> S3FileIO::OpenInput(std::string_view location) {
  FLOE_ASSIGN_OR_RETURN(S3Location loc, S3Location::Parse(location));
  FLOE_ASSIGN_OR_RETURN(auto head, Head(*client_, loc));
  if (!head) return Status::NotFound("{}: no such object", location);
  return std::make_unique<S3InputFile>(client_, std::string(location), std::move(loc),
                                       std::move(*head));
}

Result<std::unique_ptr<OutputStream>> S3FileIO::CreateOutput(std::string_view location,
                                                             bool overwrite) {
  FLOE_ASSIGN_OR_RETURN(S3Location loc, S3Location::Parse(location));
  if (loc.key.empty()) return Status::InvalidArgument("{}: no object key", location);
  if (!overwrite) {
    FLOE_ASSIGN_OR_RETURN(auto head, Head(*client_, loc));
    if (head) return Status::AlreadyExists("{} already exists", location);
  }
  return std::make_unique<S3OutputStream>(client_, std::string(location), std::move(loc),
                                          overwrite);
}

Status S3FileIO::Delete(std::string_view location) {
  FLOE_ASSIGN_OR_RETURN(S3Location loc, S3Location::Parse(location));
  S3Client::Call call;
  call.op = Op::kDeleteObject;
  call.method = "DELETE";
  call.location = &loc;
  FLOE_ASSIGN_OR_RETURN(auto outcome, client_->Send(call));
  const http::ClientResponse& r = outcome.response;
  if (r.status == 204 || r.status == 200 || r.status == 404) return Status::OK();
  return ResponseStatus(r, "S3 DELETE " + std::string(location));
}

Status S3FileIO::DeleteFiles(const std::vector<std::string>& locations) {
  // Group by bucket, keeping each location's spelling for error messages.
  std::map<std::string, std::vector<S3Location>> by_bucket;
  for (const std::string& location : locations) {
    FLOE_ASSIGN_OR_RETURN(S3Location loc, S3Location::Parse(location));
    by_bucket[loc.bucket].push_back(std::move(loc));
  }
  Status first;
  for (const auto& [bucket, locs] : by_bucket) {
    for (size_t start = 0; start < locs.size(); start += kDeleteBatch) {
      size_t end = std::min(locs.size(), start + kDeleteBatch);
      std::string body = "<Delete><Quiet>true</Quiet>";
      for (size_t i = start; i < end; ++i) {
        body += "<Object><Key>" + XmlEscape(locs[i].key) + "</Key></Object>";
      }
      body += "</Delete>";
      S3Client::Call call;
      call.op = Op::kDeleteObjects;
      call.method = "POST";
      call.location = &locs[start];
      call.bucket_only = true;
      call.query.emplace_back("delete", "");
      call.headers.emplace_back("content-md5", Md5Base64(body));
      call.headers.emplace_back("content-type", "application/xml");
      call.body = std::move(body);
      std::string what = fmt::format("S3 DeleteObjects s3://{} ({} keys)", bucket, end - start);
      auto outcome = client_->Send(call);
      Status s;
      if (!outcome.has_value()) {
        s = std::move(outcome).error();
      } else if (outcome->response.status != 200) {
        s = ResponseStatus(outcome->response, what);
      } else {
        auto root = ParseXml(outcome->response.body);
        if (!root.has_value()) {
          s = root.error().WithContext("{}", what);
        } else if (root->name == "Error") {
          s = Status::IOError("{}: {}", what, Bounded(outcome->response.body));
        } else {
          for (const XmlElement& child : root->children) {
            if (child.name != "Error" || child.ChildText("Code") == "NoSuchKey") continue;
            s = Status::IOError("{}: s3://{}/{}: {}: {}", what, bucket,
                                Bounded(child.ChildText("Key")), Bounded(child.ChildText("Code")),
                                Bounded(child.ChildText("Message")));
            break;
          }
        }
      }
      if (!s.ok() && first.ok()) first = std::move(s);
    }
  }
  return first;
}

Result<bool> S3FileIO::Exists(std::string_view location) {
  FLOE_ASSIGN_OR_RETURN(S3Location loc, S3Location::Parse(location));
  FLOE_ASSIGN_OR_RETURN(auto head, Head(*client_, loc));
  return head.has_value();
}

Result<std::vector<FileInfo>> S3FileIO::List(std::string_view prefix) {
  FLOE_ASSIGN_OR_RETURN(S3Location loc, S3Location::Parse(prefix));
  std::vector<FileInfo> files;
  std::string token;
  while (true) {
    S3Client::Call call;
    call.op = Op::kListObjectsV2;
    call.method = "GET";
    call.location = &loc;
    call.bucket_only = true;
    call.query.emplace_back("list-type", "2");
    call.query.emplace_back("prefix", loc.key);
    // Keys may hold characters XML 1.0 cannot carry; url encoding makes any key safe.
    call.query.emplace_back("encoding-type", "url");
    if (!token.empty()) call.query.emplace_back("continuation-token", token);
    std::string what = "S3 ListObjectsV2 " + std::string(prefix);
    FLOE_ASSIGN_OR_RETURN(auto outcome, client_->Send(call));
    const http::ClientResponse& r = outcome.response;
    if (r.status != 200) return ResponseStatus(r, what);
    FLOE_ASSIGN_OR_RETURN(XmlElement root, ParseXml(r.body));
    if (root.name != "ListBucketResult") {
      return Status::Corrupt("{}: unexpected response element <{}>", what, Bounded(root.name));
    }
    bool url_encoded = root.ChildText("EncodingType") == "url";
    for (const XmlElement& child : root.children) {
      if (child.name != "Contents") continue;
      std::string key(child.ChildText("Key"));
      if (url_encoded) {
        auto decoded = http::PercentDecode(key, /*plus_is_space=*/true);
        if (!decoded.has_value()) {
          return Status::Corrupt("{}: bad url-encoded key '{}'", what, Bounded(key));
        }
        key = std::move(decoded).value();
      }
      FileInfo info;
      info.location = fmt::format("{}://{}/{}", loc.scheme, loc.bucket, key);
      auto size = ParseInt("Size", child.ChildText("Size"));
      if (!size.has_value() || *size < 0) {
        return Status::Corrupt("{}: bad Size for {}", what, Bounded(info.location));
      }
      info.size = static_cast<uint64_t>(*size);
      FLOE_ASSIGN_OR_RETURN(info.modified_ms, ParseS3Timestamp(child.ChildText("LastModified")));
      files.push_back(std::move(info));
    }
    if (root.ChildText("IsTruncated") != "true") break;
    std::string next(root.ChildText("NextContinuationToken"));
    if (next.empty() || next == token) {
      return Status::Corrupt("{}: a truncated page without a new continuation token", what);
    }
    token = std::move(next);
  }
  return files;
}

}  // namespace floe::io::s3
