// KafkaServer: the TCP listener of `floe server`'s Kafka endpoint, on Boost.Asio. One io
// thread reads size-prefixed frames, hands them to the Broker and writes the responses back
// in request order (clients pipeline; a response may come later than the next request's, a
// long-polling Fetch say, and still goes out first). Each connection has at most
// `max_in_flight` requests unanswered; past that it stops reading, which bounds its memory.
// A frame larger than `max_frame_bytes`, or one the broker cannot parse, closes the
// connection (what Kafka does).
//
// With `tls` set the listener is Kafka's SSL (or, with SASL, SASL_SSL) security protocol:
// each connection starts with a TLS handshake (http/tls.h) on the context current when it
// was accepted; the frames then flow over TLS exactly as over TCP.
//
// Thread-safety: Start/Stop from one controlling thread.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "floe/base/status.h"
#include "floe/kafka/broker.h"

namespace floe::http {
class TlsContext;
}

namespace floe::kafka {

struct KafkaServerOptions {
  std::string host = "127.0.0.1";
  uint16_t port = 9092;  // 0 picks a free port (see port())
  size_t max_frame_bytes = 100 << 20;
  size_t max_in_flight = 16;
  // How often the broker's timers run (fetch waits, group deadlines, flushes).
  std::chrono::milliseconds tick{5};
  // Advertise the bound port in Metadata (for port 0).
  bool advertise_bound_port = false;
  // TLS on every connection; null: plain TCP.
  std::shared_ptr<http::TlsContext> tls;
  // A connection whose TLS handshake has not completed by then is closed.
  std::chrono::milliseconds handshake_timeout{10'000};
};

class KafkaServer {
 public:
  // Binds and starts serving `broker`, which the server owns from now on. Errors:
  // kInvalidArgument (bad host), kUnavailable (the port cannot be bound).
  static Result<std::unique_ptr<KafkaServer>> Start(KafkaServerOptions options,
                                                    std::unique_ptr<Broker> broker);
  ~KafkaServer();

  KafkaServer(const KafkaServer&) = delete;
  KafkaServer& operator=(const KafkaServer&) = delete;

  uint16_t port() const;

  // Runs `fn` on the io thread, the broker's only thread, and waits for it: how other
  // threads (the table translator) read the broker. Must not be called from the io thread.
  // kUnavailable once the server is stopping.
  Status Call(const std::function<void(Broker&)>& fn);

  // Closes the listener and every connection, then the broker (flushing its logs).
  // Idempotent.
  void Stop();

  struct Impl;

 private:
  explicit KafkaServer(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace floe::kafka
