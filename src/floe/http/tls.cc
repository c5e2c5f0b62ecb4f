#include "floe/http/tls.h"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>
#include <utility>
#include <vector>

#include <openssl/bio.h>
#include <openssl/bn.h>
#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

#include <boost/asio/ssl/context.hpp>

#include "floe/base/macros.h"

namespace floe::http {

namespace asio_ssl = boost::asio::ssl;

namespace {

// A PEM file of certificates or a key is a few KiB; anything this large is not one.
constexpr size_t kMaxPemBytes = 1 << 20;

// TLS 1.2 suites: ECDHE key exchange (forward secrecy) with AEAD ciphers only, as Mozilla's
// "intermediate" profile minus the DHE suites (no DH parameters to manage; every TLS 1.2
// client of the last decade, Java and librdkafka included, has ECDHE-GCM). TLS 1.3 keeps
// OpenSSL's defaults, which are all AEAD.
constexpr const char* kTls12Ciphers =
    "ECDHE-ECDSA-AES128-GCM-SHA256:ECDHE-RSA-AES128-GCM-SHA256:"
    "ECDHE-ECDSA-AES256-GCM-SHA384:ECDHE-RSA-AES256-GCM-SHA384:"
    "ECDHE-ECDSA-CHACHA20-POLY1305:ECDHE-RSA-CHACHA20-POLY1305";

struct BioFree {
  void operator()(BIO* b) const { BIO_free(b); }
};
struct X509Free {
  void operator()(X509* x) const { X509_free(x); }
};
struct PkeyFree {
  void operator()(EVP_PKEY* k) const { EVP_PKEY_free(k); }
};
using BioPtr = std::unique_ptr<BIO, BioFree>;
using X509Ptr = std::unique_ptr<X509, X509Free>;
using PkeyPtr = std::unique_ptr<EVP_PKEY, PkeyFree>;

// The reason of the oldest queued OpenSSL error, and the queue cleared (a later call must
// not report this one). OpenSSL's reasons name what failed, never the bytes involved.
std::string TakeOpenSslError() {
  unsigned long code = ERR_get_error();
  std::string reason = "unknown OpenSSL error";
  if (code != 0) {
    char text[256];
    ERR_error_string_n(code, text, sizeof text);
    reason = text;
  }
  ERR_clear_error();
  return reason;
}

Result<std::string> ReadPemFile(const std::string& path, std::string_view what) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    int err = errno;
    if (err == ENOENT) return Status::NotFound("tls {} {}: no such file", what, path);
    return Status::IOError("tls {} {}: cannot open: {}", what, path, std::strerror(err));
  }
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad()) return Status::IOError("tls {} {}: cannot read", what, path);
  std::string bytes = std::move(text).str();
  if (bytes.size() > kMaxPemBytes) {
    return Status::InvalidArgument("tls {} {}: larger than {} bytes, not a PEM file", what, path,
                                   kMaxPemBytes);
  }
  return bytes;
}

BioPtr MemoryBio(const std::string& bytes) {
  return BioPtr(BIO_new_mem_buf(bytes.data(), static_cast<int>(bytes.size())));
}

// Every certificate of a PEM text; kInvalidArgument when it holds none, or something that is
// not a certificate after them.
Result<std::vector<X509Ptr>> ParseCertificates(const std::string& pem, std::string_view what,
                                               const std::string& path) {
  ERR_clear_error();
  BioPtr bio = MemoryBio(pem);
  if (!bio) return Status::Internal("tls: cannot allocate a BIO");
  std::vector<X509Ptr> certs;
  while (X509* x = PEM_read_bio_X509(bio.get(), nullptr, nullptr, nullptr)) certs.emplace_back(x);
  // The loop ends at the first block that is not a certificate; the end of the text is
  // PEM_R_NO_START_LINE, anything else is a broken block.
  unsigned long last = ERR_peek_last_error();
  bool at_end = ERR_GET_LIB(last) == ERR_LIB_PEM && ERR_GET_REASON(last) == PEM_R_NO_START_LINE;
  if (!at_end && last != 0) {
    return Status::InvalidArgument("tls {} {}: bad PEM certificate: {}", what, path,
                                   TakeOpenSslError());
  }
  ERR_clear_error();
  if (certs.empty()) {
    return Status::InvalidArgument("tls {} {}: holds no PEM certificate", what, path);
  }
  return certs;
}

struct PasswordRequest {
  const std::string* password;
  bool asked = false;
};

// OpenSSL's PEM password callback. Without one, OpenSSL would prompt on the terminal for an
// encrypted key; floe never does.
int PasswordCallback(char* buf, int size, int /*rwflag*/, void* user) {
  auto* request = static_cast<PasswordRequest*>(user);
  request->asked = true;
  if (request->password->empty() || request->password->size() > static_cast<size_t>(size)) {
    return -1;
  }
  std::memcpy(buf, request->password->data(), request->password->size());
  return static_cast<int>(request->password->size());
}

Result<PkeyPtr> ParsePrivateKey(const std::string& pem, const TlsSettings& settings) {
  ERR_clear_error();
  BioPtr bio = MemoryBio(pem);
  if (!bio) return Status::Internal("tls: cannot allocate a BIO");
  PasswordRequest request{&settings.key_password};
  PkeyPtr key(PEM_read_bio_PrivateKey(bio.get(), nullptr, PasswordCallback, &request));
  if (key) {
    ERR_clear_error();
    return key;
  }
  std::string reason = TakeOpenSslError();
  if (request.asked && settings.key_password.empty()) {
    return Status::InvalidArgument("tls key-file {}: the key is encrypted and needs key-password",
                                   settings.key_file);
  }
  if (request.asked) {
    return Status::InvalidArgument("tls key-file {}: key-password does not decrypt the key",
                                   settings.key_file);
  }
  return Status::InvalidArgument("tls key-file {}: holds no PEM private key ({})",
                                 settings.key_file, reason);
}

std::string PrintName(const X509_NAME* name) {
  BioPtr bio(BIO_new(BIO_s_mem()));
  if (!bio || X509_NAME_print_ex(bio.get(), name, 0, XN_FLAG_RFC2253) < 0) return "";
  char* data = nullptr;
  long n = BIO_get_mem_data(bio.get(), &data);
  return n > 0 ? std::string(data, static_cast<size_t>(n)) : "";
}

CertificateInfo DescribeCertificate(const X509* cert) {
  CertificateInfo info;
  if (cert == nullptr) return info;
  info.subject = PrintName(X509_get_subject_name(cert));
  if (BIGNUM* bn = ASN1_INTEGER_to_BN(X509_get0_serialNumber(cert), nullptr)) {
    if (char* hex = BN_bn2hex(bn)) {
      info.serial_hex = hex;
      OPENSSL_free(hex);
    }
    BN_free(bn);
  }
  BioPtr bio(BIO_new(BIO_s_mem()));
  if (bio && ASN1_TIME_print(bio.get(), X509_get0_notAfter(cert)) == 1) {
    char* data = nullptr;
    long n = BIO_get_mem_data(bio.get(), &data);
    if (n > 0) info.not_after.assign(data, static_cast<size_t>(n));
  }
  ERR_clear_error();
  return info;
}

// The last (most specific) CN of a name as UTF-8; empty when there is none, or when it holds
// a NUL or control character (a name that could pass for another when mapped to a
// principal).
std::string CommonName(const X509_NAME* name) {
  int index = -1;
  for (int i = X509_NAME_get_index_by_NID(name, NID_commonName, -1); i >= 0;
       i = X509_NAME_get_index_by_NID(name, NID_commonName, i)) {
    index = i;
  }
  if (index < 0) return "";
  const ASN1_STRING* value = X509_NAME_ENTRY_get_data(X509_NAME_get_entry(name, index));
  unsigned char* utf8 = nullptr;
  int n = ASN1_STRING_to_UTF8(&utf8, value);
  if (n < 0) {
    ERR_clear_error();
    return "";
  }
  std::string cn(reinterpret_cast<const char*>(utf8), static_cast<size_t>(n));
  OPENSSL_free(utf8);
  for (unsigned char c : cn) {
    if (c < 0x20 || c == 0x7f) return "";
  }
  return cn;
}

Result<std::shared_ptr<asio_ssl::context>> BuildContext(const TlsSettings& settings,
                                                        CertificateInfo* info) {
  if (settings.cert_file.empty() || settings.key_file.empty()) {
    return Status::InvalidArgument("tls needs both cert-file and key-file");
  }
  if (settings.client_auth != ClientAuth::kNone && settings.ca_file.empty()) {
    return Status::InvalidArgument("tls client-auth {} needs a ca-file to verify clients with",
                                   ClientAuthName(settings.client_auth));
  }
  FLOE_ASSIGN_OR_RETURN(std::string cert_pem, ReadPemFile(settings.cert_file, "cert-file"));
  FLOE_ASSIGN_OR_RETURN(std::string key_pem, ReadPemFile(settings.key_file, "key-file"));
  FLOE_ASSIGN_OR_RETURN(std::vector<X509Ptr> chain,
                        ParseCertificates(cert_pem, "cert-file", settings.cert_file));
  Result<PkeyPtr> key = ParsePrivateKey(key_pem, settings);
  // The key's text is not needed any longer; do not leave it in freed memory.
  OPENSSL_cleanse(key_pem.data(), key_pem.size());
  if (!key.ok()) return key.status();

  std::shared_ptr<asio_ssl::context> context;
  try {
    context = std::make_shared<asio_ssl::context>(asio_ssl::context::tls_server);
  } catch (const std::exception& e) {
    return Status::Internal("tls: cannot create an OpenSSL context: {}", e.what());
  }
  SSL_CTX* ctx = context->native_handle();
  ERR_clear_error();
  SSL_CTX_set_min_proto_version(ctx, TLS1_2_VERSION);
  SSL_CTX_set_options(ctx, SSL_OP_NO_COMPRESSION | SSL_OP_NO_RENEGOTIATION);
  if (SSL_CTX_set_cipher_list(ctx, kTls12Ciphers) != 1) {
    return Status::Internal("tls: cipher list refused: {}", TakeOpenSslError());
  }
  if (SSL_CTX_use_certificate(ctx, chain[0].get()) != 1) {
    return Status::InvalidArgument("tls cert-file {}: {}", settings.cert_file, TakeOpenSslError());
  }
  for (size_t i = 1; i < chain.size(); ++i) {
    if (SSL_CTX_add1_chain_cert(ctx, chain[i].get()) != 1) {
      return Status::InvalidArgument("tls cert-file {}: certificate {} of the chain: {}",
                                     settings.cert_file, i + 1, TakeOpenSslError());
    }
  }
  if (X509_check_private_key(chain[0].get(), key->get()) != 1) {
    ERR_clear_error();
    return Status::InvalidArgument("tls key-file {} does not match the certificate of cert-file {}",
                                   settings.key_file, settings.cert_file);
  }
  if (SSL_CTX_use_PrivateKey(ctx, key->get()) != 1) {
    return Status::InvalidArgument("tls key-file {}: {}", settings.key_file, TakeOpenSslError());
  }

  if (!settings.ca_file.empty()) {
    FLOE_ASSIGN_OR_RETURN(std::string ca_pem, ReadPemFile(settings.ca_file, "ca-file"));
    FLOE_ASSIGN_OR_RETURN(std::vector<X509Ptr> cas,
                          ParseCertificates(ca_pem, "ca-file", settings.ca_file));
    X509_STORE* store = SSL_CTX_get_cert_store(ctx);
    for (const X509Ptr& ca : cas) {
      // The CA list sent in the CertificateRequest tells clients which certificate to pick.
      if (X509_STORE_add_cert(store, ca.get()) != 1 || SSL_CTX_add_client_CA(ctx, ca.get()) != 1) {
        return Status::InvalidArgument("tls ca-file {}: {}", settings.ca_file, TakeOpenSslError());
      }
    }
  }
  int mode = SSL_VERIFY_NONE;
  if (settings.client_auth == ClientAuth::kRequested) mode = SSL_VERIFY_PEER;
  if (settings.client_auth == ClientAuth::kRequired) {
    mode = SSL_VERIFY_PEER | SSL_VERIFY_FAIL_IF_NO_PEER_CERT;
  }
  SSL_CTX_set_verify(ctx, mode, nullptr);
  // Session resumption with client verification needs a session id context; without one
  // OpenSSL fails resumed handshakes.
  static constexpr unsigned char kSessionContext[] = "floe";
  SSL_CTX_set_session_id_context(ctx, kSessionContext, sizeof kSessionContext - 1);
  *info = DescribeCertificate(chain[0].get());
  ERR_clear_error();
  return context;
}

}  // namespace

Result<ClientAuth> ParseClientAuth(std::string_view text) {
  if (text == "none") return ClientAuth::kNone;
  if (text == "requested") return ClientAuth::kRequested;
  if (text == "required") return ClientAuth::kRequired;
  return Status::InvalidArgument("client-auth must be none, requested or required, not '{}'", text);
}

std::string_view ClientAuthName(ClientAuth mode) {
  switch (mode) {
    case ClientAuth::kNone: return "none";
    case ClientAuth::kRequested: return "requested";
    case ClientAuth::kRequired: return "required";
  }
  return "none";
}

std::optional<TlsPeer> VerifiedPeer(ssl_st* ssl) {
  if (ssl == nullptr) return std::nullopt;
  X509* cert = SSL_get0_peer_certificate(ssl);
  if (cert == nullptr || SSL_get_verify_result(ssl) != X509_V_OK) return std::nullopt;
  TlsPeer peer;
  peer.subject = PrintName(X509_get_subject_name(cert));
  peer.common_name = CommonName(X509_get_subject_name(cert));
  return peer;
}

Result<std::shared_ptr<TlsContext>> TlsContext::Make(TlsSettings settings) {
  std::shared_ptr<TlsContext> tls(new TlsContext(std::move(settings)));
  FLOE_RETURN_IF_ERROR(tls->Reload());
  return tls;
}

TlsContext::~TlsContext() = default;

std::shared_ptr<asio_ssl::context> TlsContext::Current() const {
  std::lock_guard lock(mu_);
  return current_;
}

CertificateInfo TlsContext::certificate() const {
  std::lock_guard lock(mu_);
  return certificate_;
}

Status TlsContext::Reload() {
  CertificateInfo info;
  FLOE_ASSIGN_OR_RETURN(std::shared_ptr<asio_ssl::context> context, BuildContext(settings_, &info));
  std::lock_guard lock(mu_);
  current_ = std::move(context);
  certificate_ = std::move(info);
  return Status::OK();
}

}  // namespace floe::http
