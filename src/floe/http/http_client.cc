#include "floe/http/http_client.h"

#include "floe/http/http.h"

#include <curl/curl.h>

#include <algorithm>
#include <cctype>
#include <mutex>

namespace floe::http {

namespace {

struct Collector {
  ClientResponse* response;
  int64_t max_bytes;
  bool too_large = false;
};

size_t OnBody(char* data, size_t size, size_t count, void* user) {
  auto* c = static_cast<Collector*>(user);
  size_t n = size * count;
  if (static_cast<int64_t>(c->response->body.size() + n) > c->max_bytes) {
    c->too_large = true;
    return 0;  // aborts the transfer with CURLE_WRITE_ERROR
  }
  c->response->body.append(data, n);
  return n;
}

size_t OnHeader(char* data, size_t size, size_t count, void* user) {
  auto* c = static_cast<Collector*>(user);
  size_t n = size * count;
  std::string_view line(data, n);
  // A new status line starts a new response (after 100 Continue or a redirect): keep only the
  // last response's headers.
  if (line.starts_with("HTTP/")) {
    c->response->headers.clear();
    return n;
  }
  size_t colon = line.find(':');
  if (colon == std::string_view::npos) return n;
  std::string name(line.substr(0, colon));
  std::transform(name.begin(), name.end(), name.begin(),
                 [](unsigned char ch) { return static_cast<char>(std::tolower(ch)); });
  std::string_view value = line.substr(colon + 1);
  while (!value.empty() && (value.front() == ' ' || value.front() == '\t')) value.remove_prefix(1);
  while (!value.empty() && (value.back() == '\r' || value.back() == '\n' || value.back() == ' ')) {
    value.remove_suffix(1);
  }
  c->response->headers.emplace_back(std::move(name), std::string(value));
  return n;
}

Status TransportError(CURLcode code, const char* detail, const ClientRequest& request) {
  std::string what = detail[0] != '\0' ? detail : curl_easy_strerror(code);
  switch (code) {
    case CURLE_OPERATION_TIMEDOUT:
      return Status::DeadlineExceeded("{} {}: {}", request.method, request.url, what);
    case CURLE_URL_MALFORMAT:
    case CURLE_UNSUPPORTED_PROTOCOL:
      return Status::InvalidArgument("{} {}: {}", request.method, request.url, what);
    case CURLE_COULDNT_RESOLVE_HOST:
    case CURLE_COULDNT_RESOLVE_PROXY:
    case CURLE_COULDNT_CONNECT:
    case CURLE_SEND_ERROR:
    case CURLE_RECV_ERROR:
    case CURLE_GOT_NOTHING:
    case CURLE_PARTIAL_FILE:
    case CURLE_SSL_CONNECT_ERROR:
    case CURLE_PEER_FAILED_VERIFICATION:
      return Status::Unavailable("{} {}: {}", request.method, request.url, what);
    default: return Status::IOError("{} {}: {}", request.method, request.url, what);
  }
}

struct HeaderList {
  curl_slist* list = nullptr;
  ~HeaderList() { curl_slist_free_all(list); }
  bool Append(const std::string& line) {
    curl_slist* next = curl_slist_append(list, line.c_str());
    if (next == nullptr) return false;
    list = next;
    return true;
  }
};

}  // namespace

std::optional<std::string_view> ClientResponse::Header(std::string_view name) const {
  for (const auto& [key, value] : headers) {
    if (key == name) return std::string_view(value);
  }
  return std::nullopt;
}

Result<std::unique_ptr<HttpClient>> HttpClient::Make(HttpClientOptions options) {
  // libcurl requires one global initialisation before the first handle; it is process state
  // of the library, not ours, so it is done once and never undone.
  static std::once_flag once;
  static CURLcode global = CURLE_OK;
  std::call_once(once, [] { global = curl_global_init(CURL_GLOBAL_DEFAULT); });
  if (global != CURLE_OK) {
    return Status::Internal("libcurl initialisation failed: {}", curl_easy_strerror(global));
  }
  CURL* curl = curl_easy_init();
  if (curl == nullptr) return Status::Internal("libcurl: curl_easy_init failed");
  return std::unique_ptr<HttpClient>(new HttpClient(std::move(options), curl));
}

HttpClient::HttpClient(HttpClientOptions options, void* curl)
    : options_(std::move(options)), curl_(curl) {}

HttpClient::~HttpClient() { curl_easy_cleanup(static_cast<CURL*>(curl_)); }

Result<ClientResponse> HttpClient::Send(const ClientRequest& request) {
  CURL* curl = static_cast<CURL*>(curl_);
  // Reset clears the previous request's options but keeps the connection cache (keep-alive).
  curl_easy_reset(curl);

  ClientResponse response;
  Collector collector{&response, options_.max_response_bytes};
  char error[CURL_ERROR_SIZE] = {0};
  HeaderList headers;
  for (const auto& [name, value] : request.headers) {
    if (!headers.Append(name + ": " + value)) return Status::Internal("libcurl: out of memory");
  }
  // No "Expect: 100-continue" round trip before a body.
  if (!headers.Append("Expect:")) return Status::Internal("libcurl: out of memory");

  bool ok = true;
  auto set = [&ok](CURLcode code) { ok = ok && code == CURLE_OK; };
  set(curl_easy_setopt(curl, CURLOPT_URL, request.url.c_str()));
  set(curl_easy_setopt(curl, CURLOPT_PROTOCOLS_STR, "http,https"));
  set(curl_easy_setopt(curl, CURLOPT_NOSIGNAL, 1L));
  set(curl_easy_setopt(curl, CURLOPT_ERRORBUFFER, error));
  set(curl_easy_setopt(curl, CURLOPT_CONNECTTIMEOUT_MS,
                       static_cast<long>(options_.connect_timeout_ms)));
  set(curl_easy_setopt(curl, CURLOPT_TIMEOUT_MS, static_cast<long>(options_.request_timeout_ms)));
  set(curl_easy_setopt(curl, CURLOPT_USERAGENT, options_.user_agent.c_str()));
  set(curl_easy_setopt(curl, CURLOPT_ACCEPT_ENCODING, ""));  // whatever libcurl decodes
  set(curl_easy_setopt(curl, CURLOPT_HTTPHEADER, headers.list));
  set(curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, OnBody));
  set(curl_easy_setopt(curl, CURLOPT_WRITEDATA, &collector));
  set(curl_easy_setopt(curl, CURLOPT_HEADERFUNCTION, OnHeader));
  set(curl_easy_setopt(curl, CURLOPT_HEADERDATA, &collector));
  if (request.method == "GET") {
    set(curl_easy_setopt(curl, CURLOPT_HTTPGET, 1L));
  } else if (request.method == "HEAD") {
    set(curl_easy_setopt(curl, CURLOPT_NOBODY, 1L));
  } else {
    if (request.method == "POST") {
      set(curl_easy_setopt(curl, CURLOPT_POST, 1L));
    } else {
      set(curl_easy_setopt(curl, CURLOPT_CUSTOMREQUEST, request.method.c_str()));
    }
    if (request.method == "POST" || request.method == "PUT" || !request.body.empty()) {
      set(curl_easy_setopt(curl, CURLOPT_POSTFIELDS, request.body.data()));
      set(curl_easy_setopt(curl, CURLOPT_POSTFIELDSIZE_LARGE,
                           static_cast<curl_off_t>(request.body.size())));
    }
  }
  if (!ok) return Status::Internal("libcurl: cannot set up {} {}", request.method, request.url);

  CURLcode code = curl_easy_perform(curl);
  if (collector.too_large) {
    return Status::IOError("{} {}: response larger than {} bytes", request.method, request.url,
                           options_.max_response_bytes);
  }
  if (code != CURLE_OK) return TransportError(code, error, request);
  long status = 0;
  curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &status);
  response.status = static_cast<int>(status);
  return response;
}

std::string FormEncode(const std::vector<std::pair<std::string, std::string>>& fields) {
  std::string out;
  for (const auto& [key, value] : fields) {
    if (!out.empty()) out += '&';
    out += PercentEncode(key);
    out += '=';
    out += PercentEncode(value);
  }
  return out;
}

}  // namespace floe::http
