#include "floe/kafka/kafka_server.h"

#include <pthread.h>

#include <deque>
#include <future>
#include <optional>
#include <set>
#include <thread>
#include <variant>

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/read.hpp>
#include <boost/asio/ssl.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/write.hpp>

#include "floe/base/bytes.h"
#include "floe/http/tls.h"

namespace floe::kafka {

namespace asio = boost::asio;
using tcp = asio::ip::tcp;

namespace {
class Connection;
}

struct KafkaServer::Impl {
  KafkaServerOptions options;
  asio::io_context ioc;
  tcp::acceptor acceptor{ioc};
  asio::steady_timer timer{ioc};
  std::unique_ptr<Broker> broker;
  std::set<std::shared_ptr<Connection>> connections;
  std::thread io_thread;
  uint16_t port = 0;
  bool stopped = false;

  void Accept();
  void ScheduleTick();
};

namespace {

// Bound on a bare SASL token frame: SCRAM and PLAIN messages are a few hundred bytes, an
// OAUTHBEARER token a few KB.
constexpr uint32_t kMaxSaslTokenBytes = 64 << 10;

// A connection's byte stream: a TCP socket, or TLS over one. The connection reads and writes
// frames through it the same way either way (one read and one write may be outstanding at
// once, both on the io thread: what Asio's ssl::stream allows).
class ConnectionStream {
 public:
  using TlsStream = asio::ssl::stream<tcp::socket>;

  explicit ConnectionStream(tcp::socket socket) : stream_(std::move(socket)) {}
  // `context` is kept for the connection's life; its handshake is Handshake().
  ConnectionStream(tcp::socket socket, std::shared_ptr<asio::ssl::context> context)
      : context_(std::move(context)),
        stream_(std::in_place_type<TlsStream>, std::move(socket), *context_) {}

  bool tls() const { return std::holds_alternative<TlsStream>(stream_); }

  tcp::socket& socket() {
    if (auto* s = std::get_if<TlsStream>(&stream_)) return s->next_layer();
    return std::get<tcp::socket>(stream_);
  }

  template <class Buffers, class Handler>
  void AsyncRead(const Buffers& buffers, Handler&& handler) {
    std::visit([&](auto& s) { asio::async_read(s, buffers, std::forward<Handler>(handler)); },
               stream_);
  }

  template <class Buffers, class Handler>
  void AsyncWrite(const Buffers& buffers, Handler&& handler) {
    std::visit([&](auto& s) { asio::async_write(s, buffers, std::forward<Handler>(handler)); },
               stream_);
  }

  // REQUIRES: tls().
  template <class Handler>
  void AsyncHandshake(Handler&& handler) {
    std::get<TlsStream>(stream_).async_handshake(asio::ssl::stream_base::server,
                                                 std::forward<Handler>(handler));
  }

  // The verified client certificate after the handshake (mutual TLS); nullopt without.
  std::optional<http::TlsPeer> VerifiedPeer() {
    auto* s = std::get_if<TlsStream>(&stream_);
    return s != nullptr ? http::VerifiedPeer(s->native_handle()) : std::nullopt;
  }

  // Closes the TCP connection (without TLS close_notify: Kafka clients do not wait for one).
  void Close() {
    boost::system::error_code ec;
    socket().shutdown(tcp::socket::shutdown_both, ec);
    socket().close(ec);
  }

 private:
  std::shared_ptr<asio::ssl::context> context_;  // before stream_, which uses it
  std::variant<tcp::socket, TlsStream> stream_;
};

class Connection : public std::enable_shared_from_this<Connection> {
 public:
  Connection(KafkaServer::Impl* server, ConnectionStream socket)
      : server_(server), socket_(std::move(socket)), handshake_timer_(server->ioc) {
    boost::system::error_code ec;
    tcp::endpoint remote = socket_.socket().remote_endpoint(ec);
    if (!ec) session_.client_host = remote.address().to_string();
    socket_.socket().set_option(tcp::no_delay(true), ec);
  }

  void Start() {
    if (!socket_.tls()) return ReadSize();
    handshake_timer_.expires_after(server_->options.handshake_timeout);
    handshake_timer_.async_wait([weak = weak_from_this()](boost::system::error_code ec) {
      if (ec) return;  // the handshake finished first
      if (auto self = weak.lock()) self->Close();
    });
    socket_.AsyncHandshake([self = shared_from_this()](boost::system::error_code ec) {
      self->handshake_timer_.cancel();
      // Refused (plain Kafka on the TLS port, an old protocol version, no or an unverified
      // client certificate under client-auth required): close, as Kafka does.
      if (ec) return self->Close();
      if (std::optional<http::TlsPeer> peer = self->socket_.VerifiedPeer()) {
        self->tls_peer_ = std::move(*peer);
      }
      self->ReadSize();
    });
  }

  void Close() {
    if (closed_) return;
    closed_ = true;
    handshake_timer_.cancel();
    socket_.Close();
    server_->connections.erase(shared_from_this());
  }

 private:
  struct Slot {
    bool ready = false;
    std::optional<Buffer> bytes;
    uint8_t size[4];
  };

  void ReadSize() {
    reading_ = true;
    socket_.AsyncRead(asio::buffer(size_buf_, 4),
                      [self = shared_from_this()](boost::system::error_code ec, size_t) {
                        self->reading_ = false;
                        if (ec) return self->Close();
                        self->OnSize();
                      });
  }

  void OnSize() {
    const uint32_t size = LoadBE<uint32_t>(size_buf_);
    // A request has an 8-byte header at least; a bare SASL token (after SaslHandshake v0)
    // has none, and SASL messages are small.
    const bool token = session_.bare_sasl_tokens;
    if (token ? size > kMaxSaslTokenBytes : (size < 8 || size > server_->options.max_frame_bytes)) {
      return Close();
    }
    frame_.Resize(size);
    reading_ = true;
    socket_.AsyncRead(asio::buffer(frame_.data(), frame_.size()),
                      [self = shared_from_this()](boost::system::error_code ec, size_t) {
                        self->reading_ = false;
                        if (ec) return self->Close();
                        self->OnFrame();
                      });
  }

  void OnFrame() {
    auto slot = std::make_shared<Slot>();
    slots_.push_back(slot);
    std::weak_ptr<Connection> weak = weak_from_this();
    auto respond = [weak, slot](std::optional<Buffer> bytes) {
      slot->ready = true;
      slot->bytes = std::move(bytes);
      if (auto self = weak.lock()) self->Flush();
    };
    Status s = session_.bare_sasl_tokens
                   ? server_->broker->HandleSaslToken(frame_.span(), session_, respond)
                   : server_->broker->Handle(frame_.span(), session_, respond);
    if (!s.ok()) {
      // Malformed, unsupported, or not allowed before authentication: Kafka closes the
      // connection; so does floe.
      fmt::print(stderr, "kafka: closing connection from {}: {}\n", session_.client_host,
                 s.ToString());
      return Close();
    }
    MaybeRead();
  }

  void MaybeRead() {
    // After a failed authentication nothing more is read: the answers go out, then the
    // connection closes (Flush).
    if (closed_ || reading_ || session_.close_after_responses) return;
    if (slots_.size() < server_->options.max_in_flight) ReadSize();
  }

  void Flush() {
    if (closed_ || writing_) return;
    while (!slots_.empty() && slots_.front()->ready && !slots_.front()->bytes.has_value()) {
      slots_.pop_front();  // a Produce with acks=0: nothing to send
    }
    if (slots_.empty() && session_.close_after_responses) return Close();
    if (slots_.empty() || !slots_.front()->ready) return MaybeRead();
    std::shared_ptr<Slot> slot = slots_.front();
    StoreBE<uint32_t>(slot->size, static_cast<uint32_t>(slot->bytes->size()));
    std::array<asio::const_buffer, 2> buffers = {
        asio::buffer(slot->size, 4), asio::buffer(slot->bytes->data(), slot->bytes->size())};
    writing_ = true;
    socket_.AsyncWrite(buffers,
                       [self = shared_from_this(), slot](boost::system::error_code ec, size_t) {
                         self->writing_ = false;
                         if (ec) return self->Close();
                         self->slots_.pop_front();
                         self->Flush();
                       });
  }

  KafkaServer::Impl* server_;
  ConnectionStream socket_;
  asio::steady_timer handshake_timer_;
  // The verified client certificate of a mutual-TLS connection: its subject and CN, what a
  // principal is mapped from.
  std::optional<http::TlsPeer> tls_peer_;
  Broker::Session session_;  // the client's address and SASL state
  uint8_t size_buf_[4] = {};
  Buffer frame_;
  std::deque<std::shared_ptr<Slot>> slots_;
  bool reading_ = false;
  bool writing_ = false;
  bool closed_ = false;
};

}  // namespace

void KafkaServer::Impl::Accept() {
  acceptor.async_accept([this](boost::system::error_code ec, tcp::socket socket) {
    if (stopped) return;
    if (!ec) {
      auto conn = options.tls
                      ? std::make_shared<Connection>(
                            this, ConnectionStream(std::move(socket), options.tls->Current()))
                      : std::make_shared<Connection>(this, ConnectionStream(std::move(socket)));
      connections.insert(conn);
      conn->Start();
    }
    Accept();
  });
}

void KafkaServer::Impl::ScheduleTick() {
  timer.expires_after(options.tick);
  timer.async_wait([this](boost::system::error_code ec) {
    if (ec || stopped) return;
    broker->Tick();
    ScheduleTick();
  });
}

KafkaServer::KafkaServer(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

KafkaServer::~KafkaServer() { Stop(); }

uint16_t KafkaServer::port() const { return impl_->port; }

Result<std::unique_ptr<KafkaServer>> KafkaServer::Start(KafkaServerOptions options,
                                                        std::unique_ptr<Broker> broker) {
  auto impl = std::make_unique<Impl>();
  impl->options = std::move(options);
  impl->broker = std::move(broker);
  boost::system::error_code ec;
  asio::ip::address address = asio::ip::make_address(impl->options.host, ec);
  if (ec) return Status::InvalidArgument("kafka host '{}': {}", impl->options.host, ec.message());
  tcp::endpoint endpoint(address, impl->options.port);
  impl->acceptor.open(endpoint.protocol(), ec);
  if (!ec) impl->acceptor.set_option(asio::socket_base::reuse_address(true), ec);
  if (!ec) impl->acceptor.bind(endpoint, ec);
  if (!ec) impl->acceptor.listen(asio::socket_base::max_listen_connections, ec);
  if (ec) {
    return Status::Unavailable("kafka listener cannot listen on {}:{}: {}", impl->options.host,
                               impl->options.port, ec.message());
  }
  impl->port = impl->acceptor.local_endpoint().port();
  if (impl->options.advertise_bound_port) impl->broker->set_advertised_port(impl->port);
  // Produce with fsync per batch: syncs on the broker's worker, answers back on this
  // context (the posted drain holds the broker only while the io thread runs it: Stop
  // joins the thread before the broker is destroyed, and what is posted later never runs).
  impl->broker->StartGroupCommit(
      [raw = impl.get()](std::function<void()> fn) { asio::post(raw->ioc, std::move(fn)); });
  impl->Accept();
  impl->ScheduleTick();
  impl->io_thread = std::thread([raw = impl.get()] {
    pthread_setname_np(pthread_self(), "kafka-io");
    raw->ioc.run();
  });
  return std::unique_ptr<KafkaServer>(new KafkaServer(std::move(impl)));
}

Status KafkaServer::Call(const std::function<void(Broker&)>& fn) {
  Impl& s = *impl_;
  if (!s.io_thread.joinable()) return Status::Unavailable("the kafka listener is stopped");
  // The promise outlives the wait: a handler dropped unrun at shutdown breaks it, which
  // the waiter sees as an exception from get() (turned into kUnavailable here).
  auto done = std::make_shared<std::promise<bool>>();
  std::future<bool> ran = done->get_future();
  asio::post(s.ioc, [&s, &fn, done] {
    if (s.stopped || !s.broker) {
      done->set_value(false);
      return;
    }
    fn(*s.broker);
    done->set_value(true);
  });
  bool ok = false;
  try {
    ok = ran.get();
  } catch (const std::future_error&) {
    ok = false;
  }
  return ok ? Status::OK() : Status::Unavailable("the kafka listener is stopping");
}

void KafkaServer::Stop() {
  Impl& s = *impl_;
  if (!s.io_thread.joinable()) return;
  asio::post(s.ioc, [&s] {
    s.stopped = true;
    boost::system::error_code ec;
    s.acceptor.close(ec);
    s.timer.cancel();
    auto connections = s.connections;
    for (const auto& c : connections) c->Close();
  });
  s.io_thread.join();
  // Handlers left in the io_context (parked fetches' callbacks hold weak references only)
  // are destroyed with it; the broker flushes its logs when destroyed.
  s.broker.reset();
}

}  // namespace floe::kafka
