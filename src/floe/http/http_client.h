// HttpClient: blocking HTTP/1.1 requests over libcurl, for the REST catalog client, S3 and STS.
// One client holds one curl easy handle, so consecutive requests to the same host reuse the
// connection (keep-alive).
//
// Errors: transport failures are kUnavailable (could not resolve or connect, connection
// reset, TLS failure) or kDeadlineExceeded (a timeout elapsed); a response body larger than
// max_response_bytes is kIOError. Any HTTP status is a successful result: mapping statuses to
// errors is the caller's business. Messages name the method and URL but never header values
// (they may carry credentials); URLs must not carry credentials either.
//
// Thread-safety: not thread-safe; use one client per thread.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "floe/base/status.h"

namespace floe::http {

struct HttpClientOptions {
  int64_t connect_timeout_ms = 10'000;
  // The whole request, connect included.
  int64_t request_timeout_ms = 120'000;
  int64_t max_response_bytes = 256 << 20;
  std::string user_agent = "floe";
};

using HttpHeaders = std::vector<std::pair<std::string, std::string>>;

struct ClientRequest {
  std::string method = "GET";  // GET, HEAD, POST, DELETE, PUT
  std::string url;
  HttpHeaders headers;
  std::string body;  // sent when non-empty or when the method is POST / PUT
};

struct ClientResponse {
  int status = 0;
  HttpHeaders headers;  // names lowercased, in arrival order (last response of redirects)
  std::string body;

  // The first header named `name` (lowercase), or nullopt.
  std::optional<std::string_view> Header(std::string_view name) const;
};

class HttpClient {
 public:
  // Errors: kInternal when libcurl cannot be initialised.
  static Result<std::unique_ptr<HttpClient>> Make(HttpClientOptions options = {});
  ~HttpClient();
  HttpClient(const HttpClient&) = delete;
  HttpClient& operator=(const HttpClient&) = delete;

  // Sends `request` and reads the whole response. Redirects are not followed.
  Result<ClientResponse> Send(const ClientRequest& request);

 private:
  HttpClient(HttpClientOptions options, void* curl);

  HttpClientOptions options_;
  void* curl_;  // CURL*, owned
};

// application/x-www-form-urlencoded body from pairs (each part percent-encoded by
// PercentEncode, http.h).
std::string FormEncode(const std::vector<std::pair<std::string, std::string>>& fields);

}  // namespace floe::http
