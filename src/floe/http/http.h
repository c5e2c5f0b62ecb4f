// HTTP request and response values shared by the HTTP server (http_server.h) and the
// services behind it (the REST catalog, the management API, the schema registry). No Beast
// types here, so handlers compile without Boost.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "floe/base/status.h"

namespace floe::http {

struct HttpRequest {
  std::string method;  // "GET", "POST", ... as sent
  std::string path;    // the target before '?', still percent-encoded
  std::string query;   // after '?', still percent-encoded; empty without one
  // Header names lowercased; values as sent.
  std::vector<std::pair<std::string, std::string>> headers;
  std::string body;
  std::string remote;  // "ip:port" of the peer
  // Over TLS with a verified client certificate (http/tls.h, client-auth requested or
  // required): its subject (RFC 2253, "CN=etl,O=Example") and common name, for mapping the
  // connection to a principal. Empty otherwise.
  std::string client_subject;
  std::string client_cn;

  // The first header named `lower_name` (lowercase), or nullptr.
  const std::string* Header(std::string_view lower_name) const;
};

struct HttpResponse {
  int status = 200;
  std::string content_type = "application/json";
  std::vector<std::pair<std::string, std::string>> headers;
  std::string body;
  // The authenticated principal the request came from, for the access log; never sent.
  std::string principal;
  // The OAuth2 grant a token response answered ("client_credentials", "token-exchange"), for
  // the access log (logins and refreshes told apart); never sent.
  std::string grant;

  static HttpResponse Json(int status, std::string body) {
    HttpResponse r;
    r.status = status;
    r.body = std::move(body);
    return r;
  }
  static HttpResponse NoContent() {
    HttpResponse r;
    r.status = 204;
    r.content_type.clear();
    return r;
  }
};

// Called on a worker thread for every request; may block (catalog calls do).
// Must not throw: the server answers 500 for an escaped exception, but handlers report
// errors as responses.
using HttpHandler = std::function<HttpResponse(const HttpRequest&)>;

// Percent-decodes one path segment or query component ('+' stays '+' unless
// `plus_is_space`). kInvalidArgument for a malformed escape.
Result<std::string> PercentDecode(std::string_view text, bool plus_is_space = false);
// Percent-encodes everything but RFC 3986 unreserved characters.
std::string PercentEncode(std::string_view text);

// The decoded `name=value` pairs of a query string, in order.
Result<std::vector<std::pair<std::string, std::string>>> ParseQuery(std::string_view query);

// The decoded segments of a path: "/v1/a%1Fb/x" -> {"v1", "a\x1f" "b", "x"}. Empty segments
// from "//" or a trailing '/' are dropped.
Result<std::vector<std::string>> SplitPath(std::string_view path);

// The reason phrase for a status code ("Not Found"); "" for unknown codes.
std::string_view ReasonPhrase(int status);

}  // namespace floe::http
