#include "floe/http/http_server.h"

#include <algorithm>
#include <atomic>
#include <cctype>
#include <condition_variable>
#include <cstdio>
#include <mutex>
#include <optional>
#include <thread>
#include <type_traits>
#include <utility>
#include <vector>

#include <fmt/format.h>
#include <boost/asio/bind_executor.hpp>
#include <boost/asio/dispatch.hpp>
#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/strand.hpp>
#include <boost/asio/thread_pool.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/ssl.hpp>

#include "floe/base/json_writer.h"
#include "floe/http/tls.h"

namespace floe::http {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace bhttp = boost::beast::http;
using tcp = boost::asio::ip::tcp;
using TlsStream = beast::ssl_stream<beast::tcp_stream>;

struct HttpServer::Impl {
  HttpServerOptions options;
  HttpHandler handler;
  asio::io_context ioc;
  std::optional<asio::executor_work_guard<asio::io_context::executor_type>> work;
  tcp::acceptor acceptor{ioc};
  std::unique_ptr<asio::thread_pool> workers;
  std::vector<std::thread> io_threads;
  uint16_t bound_port = 0;

  std::atomic<bool> stopping{false};
  std::mutex mu;
  std::condition_variable drained;
  int64_t in_flight = 0;  // requests read and not yet answered
  bool stopped = false;

  void Accept();
  void BeginRequest() {
    std::lock_guard lock(mu);
    ++in_flight;
  }
  void EndRequest() {
    std::lock_guard lock(mu);
    if (--in_flight == 0) drained.notify_all();
  }
};

namespace {

std::string ErrorBody(int status, std::string_view type, std::string_view message) {
  std::string out;
  JsonWriter w(&out);
  w.BeginObject();
  w.Key("error");
  w.BeginObject();
  w.Key("message");
  w.String(message);
  w.Key("type");
  w.String(type);
  w.Key("code");
  w.Int(status);
  w.EndObject();
  w.EndObject();
  return out;
}

}  // namespace

// One connection: plain (Stream = beast::tcp_stream) or TLS (TlsStream); the request and
// response handling is the same code over either.
template <class Stream>
class Session : public std::enable_shared_from_this<Session<Stream>> {
  static constexpr bool kTls = std::is_same_v<Stream, TlsStream>;

 public:
  // `tls`: the listener's context when the connection was accepted (null for plain HTTP).
  Session(tcp::socket socket, HttpServer::Impl* server, std::shared_ptr<asio::ssl::context> tls)
      : tls_context_(std::move(tls)),
        stream_(MakeStream(std::move(socket), tls_context_.get())),
        server_(server) {
    beast::error_code ec;
    auto endpoint = Tcp().socket().remote_endpoint(ec);
    if (!ec) remote_ = fmt::format("{}:{}", endpoint.address().to_string(), endpoint.port());
  }

  void Start() {
    asio::dispatch(stream_.get_executor(),
                   beast::bind_front_handler(&Session::Begin, this->shared_from_this()));
  }

 private:
  static Stream MakeStream(tcp::socket socket, asio::ssl::context* tls) {
    if constexpr (kTls) {
      return Stream(std::move(socket), *tls);
    } else {
      return Stream(std::move(socket));
    }
  }

  beast::tcp_stream& Tcp() { return beast::get_lowest_layer(stream_); }

  void Begin() {
    if constexpr (kTls) {
      // A client that connects and never finishes the handshake is dropped like one that
      // never finishes its request.
      Tcp().expires_after(server_->options.read_timeout);
      stream_.async_handshake(
          asio::ssl::stream_base::server,
          beast::bind_front_handler(&Session::OnHandshake, this->shared_from_this()));
    } else {
      ReadHeader();
    }
  }

  void OnHandshake(beast::error_code ec) {
    // A refused handshake (plain HTTP, an old protocol version, no or an unverified client
    // certificate under client-auth required) has no TLS session to shut down.
    if (ec) return CloseSocket();
    if constexpr (kTls) {
      if (std::optional<TlsPeer> peer = VerifiedPeer(stream_.native_handle())) {
        client_subject_ = std::move(peer->subject);
        client_cn_ = std::move(peer->common_name);
      }
    }
    ReadHeader();
  }

  void ReadHeader() {
    parser_.emplace();
    parser_->header_limit(
        static_cast<uint32_t>(std::min<size_t>(server_->options.max_header_bytes, UINT32_MAX)));
    parser_->body_limit(server_->options.max_body_bytes);
    Tcp().expires_after(server_->options.idle_timeout);
    bhttp::async_read_header(
        stream_, buffer_, *parser_,
        beast::bind_front_handler(&Session::OnHeader, this->shared_from_this()));
  }

  void OnHeader(beast::error_code ec, size_t) {
    if (ec) return OnReadError(ec);
    started_ = std::chrono::steady_clock::now();
    Tcp().expires_after(server_->options.read_timeout);
    bhttp::async_read(stream_, buffer_, *parser_,
                      beast::bind_front_handler(&Session::OnRead, this->shared_from_this()));
  }

  void OnReadError(beast::error_code ec) {
    // Only a malformed or oversized request gets an answer; a peer that left, went quiet
    // or broke the connection (end of stream, partial message, timeout, reset) does not.
    const beast::error_code parse_error_example = bhttp::error::bad_target;
    bool parse_error = ec.category() == parse_error_example.category() &&
                       ec != bhttp::error::end_of_stream && ec != bhttp::error::partial_message;
    if (!parse_error) return Close();
    int status = 400;
    std::string_view type = "BadRequestException";
    std::string message = fmt::format("malformed HTTP request: {}", ec.message());
    if (ec == bhttp::error::body_limit) {
      status = 413;
      message = fmt::format("request body exceeds {} bytes", server_->options.max_body_bytes);
    } else if (ec == bhttp::error::header_limit) {
      status = 431;
      message = fmt::format("request header exceeds {} bytes", server_->options.max_header_bytes);
    }
    method_ = "-";
    path_ = "-";
    head_ = false;
    // The client may still be sending the body we refused: read and drop it after the
    // answer, or its write fails (broken pipe) before it reads the 413.
    linger_ = true;
    started_ = std::chrono::steady_clock::now();
    server_->BeginRequest();
    HttpResponse response = HttpResponse::Json(status, ErrorBody(status, type, message));
    Write(std::move(response), /*keep_alive=*/false);
  }

  void OnRead(beast::error_code ec, size_t) {
    if (ec) return OnReadError(ec);
    bhttp::request<bhttp::string_body> message = parser_->release();
    parser_.reset();

    HttpRequest request;
    request.method = std::string(message.method_string());
    std::string_view target(message.target().data(), message.target().size());
    size_t q = target.find('?');
    request.path = std::string(target.substr(0, q));
    if (q != std::string_view::npos) request.query = std::string(target.substr(q + 1));
    for (const auto& field : message) {
      std::string name(field.name_string());
      std::transform(name.begin(), name.end(), name.begin(),
                     [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
      request.headers.emplace_back(std::move(name), std::string(field.value()));
    }
    request.body = std::move(message.body());
    request.remote = remote_;
    request.client_subject = client_subject_;
    request.client_cn = client_cn_;
    method_ = request.method;
    path_ = request.path;
    head_ = message.method() == bhttp::verb::head;
    bool keep_alive = message.keep_alive();

    server_->BeginRequest();
    if (server_->stopping.load()) {
      Write(HttpResponse::Json(
                503, ErrorBody(503, "ServiceUnavailableException", "the server is shutting down")),
            false);
      return;
    }
    if (server_->options.inline_handler) {
      std::optional<HttpResponse> answered;
      try {
        answered = server_->options.inline_handler(request);
      } catch (...) {
        answered.reset();  // the worker pool answers (and reports) it
      }
      if (answered) {
        Write(std::move(*answered), keep_alive);
        return;
      }
    }
    asio::post(*server_->workers, [self = this->shared_from_this(), request = std::move(request),
                                   keep_alive]() mutable {
      HttpResponse response;
      try {
        response = self->server_->handler(request);
      } catch (const std::exception& e) {
        // The exception's text names internals (a library's error, a file): it goes to the
        // server's log, never to the client.
        std::fprintf(stderr, "http: %s %s: unhandled exception: %s\n", request.method.c_str(),
                     request.path.c_str(), e.what());
        response = HttpResponse::Json(500, ErrorBody(500, "InternalServerError", "internal error"));
      } catch (...) {
        response = HttpResponse::Json(500, ErrorBody(500, "InternalServerError", "internal error"));
      }
      asio::post(self->stream_.get_executor(),
                 [self, response = std::move(response), keep_alive]() mutable {
                   self->Write(std::move(response), keep_alive);
                 });
    });
  }

  void Write(HttpResponse response, bool keep_alive) {
    response_.emplace();
    auto& res = *response_;
    res.version(11);
    res.result(static_cast<unsigned>(response.status));
    res.set(bhttp::field::server, "floe");
    if (!response.content_type.empty() && response.status != 204 && response.status != 304) {
      res.set(bhttp::field::content_type, response.content_type);
    }
    for (auto& [name, value] : response.headers) res.set(name, value);
    bytes_ = response.body.size();
    if (!head_ && response.status != 204 && response.status != 304) {
      res.body() = std::move(response.body);
    }
    res.keep_alive(keep_alive && !server_->stopping.load());
    res.prepare_payload();
    status_ = response.status;
    principal_ = std::move(response.principal);
    grant_ = std::move(response.grant);
    Tcp().expires_after(server_->options.read_timeout);
    bhttp::async_write(stream_, res,
                       beast::bind_front_handler(&Session::OnWrite, this->shared_from_this()));
  }

  void OnWrite(beast::error_code ec, size_t) {
    bool keep_alive = response_->keep_alive();
    response_.reset();
    Log();
    server_->EndRequest();
    if (!ec && linger_) return Linger();
    if (ec || !keep_alive) return Close();
    ReadHeader();
  }

  // A lingering close: stop sending, discard what the peer still sends (bounded in bytes
  // and time), then close.
  void Linger() {
    beast::error_code ignored;
    Tcp().socket().shutdown(tcp::socket::shutdown_send, ignored);
    Tcp().expires_after(std::chrono::seconds(5));
    scratch_.resize(64 * 1024);
    stream_.async_read_some(
        asio::buffer(scratch_),
        beast::bind_front_handler(&Session::OnLinger, this->shared_from_this()));
  }

  void OnLinger(beast::error_code ec, size_t n) {
    lingered_ += n;
    if (ec || lingered_ > 2 * server_->options.max_body_bytes + (1u << 20)) return Close();
    stream_.async_read_some(
        asio::buffer(scratch_),
        beast::bind_front_handler(&Session::OnLinger, this->shared_from_this()));
  }

  void Log() {
    if (!server_->options.access_log) return;
    auto micros = std::chrono::duration_cast<std::chrono::microseconds>(
                      std::chrono::steady_clock::now() - started_)
                      .count();
    std::string line;
    JsonWriter w(&line);
    w.BeginObject();
    w.Key("remote");
    w.String(remote_);
    if (!client_cn_.empty()) {
      w.Key("client-cn");
      w.String(client_cn_);
    }
    w.Key("method");
    w.String(method_);
    w.Key("path");
    w.String(path_);
    w.Key("status");
    w.Int(status_);
    w.Key("bytes");
    w.Int(static_cast<int64_t>(bytes_));
    w.Key("micros");
    w.Int(micros);
    if (!principal_.empty()) {
      w.Key("principal");
      w.String(principal_);
    }
    if (!grant_.empty()) {
      w.Key("grant");
      w.String(grant_);
    }
    w.EndObject();
    server_->options.access_log(line);
  }

  void Close() {
    if constexpr (kTls) {
      // close_notify first, so that the client sees an orderly end rather than a truncated
      // stream; the peer gets a second to answer it.
      Tcp().expires_after(std::chrono::seconds(1));
      stream_.async_shutdown(
          [self = this->shared_from_this()](beast::error_code) { self->CloseSocket(); });
    } else {
      CloseSocket();
    }
  }

  void CloseSocket() {
    beast::error_code ec;
    Tcp().socket().shutdown(tcp::socket::shutdown_send, ec);
    Tcp().socket().close(ec);
  }

  // Declared before stream_, which uses it: the context outlives the connection's session.
  std::shared_ptr<asio::ssl::context> tls_context_;
  Stream stream_;
  HttpServer::Impl* server_;
  beast::flat_buffer buffer_;
  std::optional<bhttp::request_parser<bhttp::string_body>> parser_;
  std::optional<bhttp::response<bhttp::string_body>> response_;
  std::string remote_;
  std::string method_;
  std::string path_;
  bool head_ = false;
  bool linger_ = false;
  size_t lingered_ = 0;
  std::vector<char> scratch_;
  int status_ = 0;
  size_t bytes_ = 0;
  std::string principal_;
  std::string grant_;
  std::string client_subject_;  // of a verified client certificate (TLS)
  std::string client_cn_;
  std::chrono::steady_clock::time_point started_;
};

void HttpServer::Impl::Accept() {
  acceptor.async_accept(asio::make_strand(ioc), [this](beast::error_code ec, tcp::socket socket) {
    if (stopping.load() || !acceptor.is_open()) return;
    if (!ec) {
      beast::error_code ignored;
      socket.set_option(tcp::no_delay(true), ignored);
      if (options.tls) {
        std::make_shared<Session<TlsStream>>(std::move(socket), this, options.tls->Current())
            ->Start();
      } else {
        std::make_shared<Session<beast::tcp_stream>>(std::move(socket), this, nullptr)->Start();
      }
    }
    Accept();
  });
}

HttpServer::HttpServer(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

HttpServer::~HttpServer() { Stop(); }

uint16_t HttpServer::port() const { return impl_->bound_port; }

Result<std::unique_ptr<HttpServer>> HttpServer::Start(HttpServerOptions options,
                                                      HttpHandler handler) {
  auto impl = std::make_unique<Impl>();
  impl->options = std::move(options);
  impl->handler = std::move(handler);
  beast::error_code ec;
  asio::ip::address address = asio::ip::make_address(impl->options.host, ec);
  if (ec) {
    tcp::resolver resolver(impl->ioc);
    auto results = resolver.resolve(impl->options.host, "", ec);
    if (ec || results.empty()) {
      return Status::InvalidArgument("cannot resolve listen host '{}': {}", impl->options.host,
                                     ec ? ec.message() : "no address");
    }
    address = results.begin()->endpoint().address();
  }
  tcp::endpoint endpoint(address, impl->options.port);
  impl->acceptor.open(endpoint.protocol(), ec);
  if (!ec) impl->acceptor.set_option(asio::socket_base::reuse_address(true), ec);
  if (!ec) impl->acceptor.bind(endpoint, ec);
  if (!ec) impl->acceptor.listen(asio::socket_base::max_listen_connections, ec);
  if (ec) {
    return Status::Unavailable("cannot listen on {}:{}: {}", impl->options.host, impl->options.port,
                               ec.message());
  }
  impl->bound_port = impl->acceptor.local_endpoint().port();

  int workers = impl->options.worker_threads;
  if (workers <= 0) {
    workers = static_cast<int>(std::max(1u, std::thread::hardware_concurrency())) * 4;
  }
  impl->workers = std::make_unique<asio::thread_pool>(static_cast<size_t>(workers));
  impl->work.emplace(impl->ioc.get_executor());
  impl->Accept();
  int io_threads = std::max(1, impl->options.io_threads);
  for (int i = 0; i < io_threads; ++i) {
    impl->io_threads.emplace_back([raw = impl.get()] { raw->ioc.run(); });
  }
  return std::unique_ptr<HttpServer>(new HttpServer(std::move(impl)));
}

void HttpServer::Stop() {
  Impl& s = *impl_;
  {
    std::lock_guard lock(s.mu);
    if (s.stopped) return;
    s.stopped = true;
  }
  s.stopping.store(true);
  // Close the acceptor on its own thread: asio objects are not thread-safe.
  asio::post(s.ioc, [&s] {
    beast::error_code ec;
    s.acceptor.close(ec);
  });
  {
    std::unique_lock lock(s.mu);
    s.drained.wait_for(lock, s.options.drain_timeout, [&s] { return s.in_flight == 0; });
  }
  s.work.reset();
  s.ioc.stop();
  for (std::thread& t : s.io_threads) t.join();
  s.io_threads.clear();
  s.workers->join();
}

}  // namespace floe::http
