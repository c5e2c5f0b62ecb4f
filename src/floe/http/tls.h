// TLS for floe's listeners (the HTTP server, the schema registry, the Kafka endpoint):
// server-side OpenSSL contexts built from PEM files, TLS 1.2 and newer only, with optional
// client-certificate verification (mutual TLS), and replaceable while serving (SIGHUP).
//
// Library floe_tls: the HTTP server and the Kafka listener both link it; neither depends on
// the other. Boost.Asio's ssl::context is only forward-declared here, so that config and
// wiring code compiles without the Asio and OpenSSL headers.
//
// Nothing here ever logs or returns the bytes of a key or its password: errors name the
// file and what is wrong with it.
#pragma once

#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>

#include "floe/base/status.h"

namespace boost::asio::ssl {
class context;
}
struct ssl_st;  // OpenSSL's SSL

namespace floe::http {

// Whether the server asks for a client certificate. kRequested: a client may send one (it
// is verified against the CA file when sent); kRequired: a handshake without a verified
// client certificate fails (mutual TLS).
enum class ClientAuth { kNone, kRequested, kRequired };

// "none", "requested", "required"; kInvalidArgument otherwise.
Result<ClientAuth> ParseClientAuth(std::string_view text);
std::string_view ClientAuthName(ClientAuth mode);

// One listener's TLS settings (floe.yaml `<listener>.tls`, docs/server.md, "TLS").
struct TlsSettings {
  // PEM: the server certificate first, then any intermediates up to (not including) the root.
  std::string cert_file;
  // PEM private key of the certificate (PKCS#8 or traditional, optionally encrypted).
  std::string key_file;
  // The password of an encrypted key; empty for a plain one. Never logged or shown.
  std::string key_password;
  // PEM CA certificates that client certificates must chain to; needed by kRequested and
  // kRequired.
  std::string ca_file;
  ClientAuth client_auth = ClientAuth::kNone;

  // TLS is on when a certificate or key is configured (both are then needed).
  bool enabled() const { return !cert_file.empty() || !key_file.empty(); }
};

// What the loaded server certificate says, for start-up and reload log lines.
struct CertificateInfo {
  std::string subject;     // RFC 2253, "CN=floe.example.com,O=Example"
  std::string serial_hex;  // upper-case hex, no separators
  std::string not_after;   // "Jan  2 03:04:05 2027 GMT" (OpenSSL's print form)
};

// The peer of a TLS connection as its verified client certificate names it.
struct TlsPeer {
  std::string subject;      // RFC 2253
  std::string common_name;  // the most specific CN; empty when it has none or an unsafe one
};

// The verified client certificate of a connection after its handshake; nullopt when the
// client sent none or it did not verify.
std::optional<TlsPeer> VerifiedPeer(ssl_st* ssl);

// A listener's current server context. Connections take `Current()` when accepted and
// keep it; `Reload()` builds a new one from the same files for the connections accepted
// after it. Thread-safe.
class TlsContext {
 public:
  // Reads and checks the files. Errors: kInvalidArgument (cert without key or key without
  // cert, client auth without a CA file, a file that holds no certificate or key, a key
  // that does not match the certificate, a wrong key password), kNotFound / kIOError (a
  // file that cannot be read).
  static Result<std::shared_ptr<TlsContext>> Make(TlsSettings settings);
  ~TlsContext();

  TlsContext(const TlsContext&) = delete;
  TlsContext& operator=(const TlsContext&) = delete;

  std::shared_ptr<boost::asio::ssl::context> Current() const;
  CertificateInfo certificate() const;
  const TlsSettings& settings() const { return settings_; }

  // Re-reads the certificate, key and CA files. On success new connections get the new
  // context (connections already open keep theirs); on error the current context stays and
  // the error (as Make's) is returned.
  Status Reload();

 private:
  explicit TlsContext(TlsSettings settings) : settings_(std::move(settings)) {}

  const TlsSettings settings_;
  mutable std::mutex mu_;
  std::shared_ptr<boost::asio::ssl::context> current_;  // guarded by mu_
  CertificateInfo certificate_;                         // guarded by mu_
};

}  // namespace floe::http
