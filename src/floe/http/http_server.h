// HttpServer: HTTP/1.1 on Boost.Asio/Beast. One io thread (or a few) accepts, reads and
// writes without blocking; handlers run on a separate worker pool because they block (SQL
// metastore, metadata files). Keep-alive, bounded header and body sizes, read and idle
// timeouts, one access-log line per request, and a graceful stop: new connections are
// refused, requests in flight (a catalog commit, say) finish and are answered, then the
// connections close.
//
// With `tls` set the listener speaks only TLS (http/tls.h): each connection starts with a
// handshake (within read_timeout) on the context current when it was accepted, so a
// reloaded certificate serves new connections while open ones keep theirs.
//
// Thread-safety: Start/Stop from one controlling thread; the handler is called
// concurrently from the worker threads.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "floe/base/status.h"
#include "floe/http/http.h"

namespace floe::http {

class TlsContext;

struct HttpServerOptions {
  std::string host = "127.0.0.1";
  uint16_t port = 8181;  // 0 picks a free port (see HttpServer::port)
  int io_threads = 1;
  // Threads running handlers; 0 = 4 per core (handlers mostly wait on I/O and locks).
  int worker_threads = 0;
  size_t max_header_bytes = 64 * 1024;
  size_t max_body_bytes = 16 * 1024 * 1024;
  // A request's header and body must arrive within this long of its first byte being
  // awaited; a kept-alive connection may idle this long between requests.
  std::chrono::milliseconds read_timeout{30'000};
  std::chrono::milliseconds idle_timeout{75'000};
  // How long Stop() waits for handlers in flight before closing anyway.
  std::chrono::milliseconds drain_timeout{60'000};
  // Receives one JSON line per request (method, path without query, status, bytes, micros,
  // remote, the verified client certificate's CN as `client-cn`, and the response's
  // principal and OAuth2 grant when it names them). Query strings,
  // headers and bodies are never logged: they may carry credentials.
  std::function<void(std::string_view)> access_log;
  // Tried on the io thread before a request is handed to the worker pool: a response it
  // returns is written at once, saving two thread hand-offs. It must never block (no catalog
  // query, no file I/O): cached answers and trivial routes only. Called concurrently when
  // there are several io threads.
  std::function<std::optional<HttpResponse>(const HttpRequest&)> inline_handler;
  // TLS for every connection; null: plain HTTP.
  std::shared_ptr<TlsContext> tls;
};

class HttpServer {
 public:
  // Binds and starts serving. Errors: kInvalidArgument (bad host), kUnavailable (the port
  // is taken or cannot be bound).
  static Result<std::unique_ptr<HttpServer>> Start(HttpServerOptions options, HttpHandler handler);
  ~HttpServer();  // Stop()

  HttpServer(const HttpServer&) = delete;
  HttpServer& operator=(const HttpServer&) = delete;

  // The bound port (the chosen one when options.port was 0).
  uint16_t port() const;

  // Stops accepting, lets requests in flight finish (up to drain_timeout), then closes every
  // connection and returns. Idempotent.
  void Stop();

  struct Impl;

 private:
  explicit HttpServer(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace floe::http
