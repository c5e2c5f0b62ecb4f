#include "floe/http/tls.h"

#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>

#include <gtest/gtest.h>
#include <boost/asio/connect.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/read.hpp>
#include <boost/asio/ssl.hpp>
#include <boost/asio/write.hpp>

#include "floe/base/testing.h"
#include "floe/http/http_server.h"

namespace floe::http {
namespace {

namespace asio = boost::asio;
using ::testing::HasSubstr;
using ::testing::Not;

// Test PKI made with OpenSSL's own API: EC P-256 keys, X.509 v3 certificates signed by a CA
// (or self-signed), written as PEM files.
struct KeyPair {
  std::unique_ptr<EVP_PKEY, decltype(&EVP_PKEY_free)> key{nullptr, EVP_PKEY_free};
  std::unique_ptr<X509, decltype(&X509_free)> cert{nullptr, X509_free};
};

KeyPair MakeCertificate(const std::string& cn, long serial, const KeyPair* issuer, bool is_ca) {
  KeyPair out;
  out.key.reset(EVP_EC_gen("P-256"));
  out.cert.reset(X509_new());
  X509* x = out.cert.get();
  X509_set_version(x, 2);
  ASN1_INTEGER_set(X509_get_serialNumber(x), serial);
  X509_gmtime_adj(X509_getm_notBefore(x), -60);
  X509_gmtime_adj(X509_getm_notAfter(x), 3600);
  X509_set_pubkey(x, out.key.get());
  X509_NAME* name = X509_get_subject_name(x);
  X509_NAME_add_entry_by_txt(name, "O", MBSTRING_ASC,
                             reinterpret_cast<const unsigned char*>("floe tests"), -1, -1, 0);
  X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_ASC,
                             reinterpret_cast<const unsigned char*>(cn.c_str()), -1, -1, 0);
  X509_set_issuer_name(x, issuer != nullptr ? X509_get_subject_name(issuer->cert.get()) : name);
  X509V3_CTX ctx;
  X509V3_set_ctx_nodb(&ctx);
  X509V3_set_ctx(&ctx, issuer != nullptr ? issuer->cert.get() : x, x, nullptr, nullptr, 0);
  auto add = [&](int nid, const char* value) {
    X509_EXTENSION* ext = X509V3_EXT_conf_nid(nullptr, &ctx, nid, value);
    X509_add_ext(x, ext, -1);
    X509_EXTENSION_free(ext);
  };
  add(NID_basic_constraints, is_ca ? "critical,CA:TRUE" : "critical,CA:FALSE");
  if (!is_ca) add(NID_subject_alt_name, "DNS:localhost,IP:127.0.0.1");
  X509_sign(x, issuer != nullptr ? issuer->key.get() : out.key.get(), EVP_sha256());
  return out;
}

class TlsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("floe_tls_test." + std::to_string(::getpid()) + "." +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::create_directories(dir_);
    ca_ = MakeCertificate("floe test CA", 1, nullptr, true);
    server_ = MakeCertificate("localhost", 0x1001, &ca_, false);
    WriteCert(ca_, "ca.pem");
    WriteCert(server_, "server.pem");
    WriteKey(server_, "server.key");
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  std::string Path(const std::string& name) const { return (dir_ / name).string(); }

  void WriteCert(const KeyPair& pair, const std::string& name) {
    FILE* f = std::fopen(Path(name).c_str(), "w");
    PEM_write_X509(f, pair.cert.get());
    std::fclose(f);
  }
  void WriteKey(const KeyPair& pair, const std::string& name, const std::string& password = "") {
    FILE* f = std::fopen(Path(name).c_str(), "w");
    if (password.empty()) {
      PEM_write_PrivateKey(f, pair.key.get(), nullptr, nullptr, 0, nullptr, nullptr);
    } else {
      PEM_write_PKCS8PrivateKey(f, pair.key.get(), EVP_aes_256_cbc(), password.data(),
                                static_cast<int>(password.size()), nullptr, nullptr);
    }
    std::fclose(f);
  }
  void WriteText(const std::string& name, const std::string& text) {
    std::ofstream(Path(name)) << text;
  }

  TlsSettings ServerSettings() const {
    TlsSettings s;
    s.cert_file = Path("server.pem");
    s.key_file = Path("server.key");
    return s;
  }

  std::filesystem::path dir_;
  KeyPair ca_;
  KeyPair server_;
};

TEST_F(TlsTest, LoadsACertificateAndDescribesIt) {
  FLOE_ASSERT_OK_AND_ASSIGN(auto tls, TlsContext::Make(ServerSettings()));
  ASSERT_NE(tls->Current(), nullptr);
  CertificateInfo info = tls->certificate();
  EXPECT_EQ(info.serial_hex, "1001");
  EXPECT_EQ(info.subject, "CN=localhost,O=floe tests");
  EXPECT_FALSE(info.not_after.empty());
}

TEST_F(TlsTest, MissingFilesAreNotFound) {
  TlsSettings s = ServerSettings();
  s.cert_file = Path("absent.pem");
  EXPECT_THAT(TlsContext::Make(s), IsError(StatusCode::kNotFound, HasSubstr("absent.pem")));
  s = ServerSettings();
  s.key_file = Path("absent.key");
  EXPECT_THAT(TlsContext::Make(s), IsError(StatusCode::kNotFound, HasSubstr("absent.key")));
}

TEST_F(TlsTest, CertificateWithoutKeyIsRefused) {
  TlsSettings s = ServerSettings();
  s.key_file.clear();
  EXPECT_THAT(TlsContext::Make(s), IsError(StatusCode::kInvalidArgument, HasSubstr("key-file")));
}

TEST_F(TlsTest, KeyOfAnotherCertificateIsRefused) {
  KeyPair other = MakeCertificate("other", 7, &ca_, false);
  WriteKey(other, "other.key");
  TlsSettings s = ServerSettings();
  s.key_file = Path("other.key");
  EXPECT_THAT(TlsContext::Make(s),
              IsError(StatusCode::kInvalidArgument, HasSubstr("does not match")));
}

TEST_F(TlsTest, FilesThatAreNotPemAreRefused) {
  WriteText("garbage.pem", "this is not a certificate\n");
  TlsSettings s = ServerSettings();
  s.cert_file = Path("garbage.pem");
  EXPECT_THAT(TlsContext::Make(s),
              IsError(StatusCode::kInvalidArgument, HasSubstr("holds no PEM certificate")));
  s = ServerSettings();
  s.key_file = Path("garbage.pem");
  EXPECT_THAT(TlsContext::Make(s),
              IsError(StatusCode::kInvalidArgument, HasSubstr("holds no PEM private key")));
  // A certificate file whose second block is broken is refused, not cut short.
  std::ifstream in(Path("server.pem"));
  std::string pem((std::istreambuf_iterator<char>(in)), {});
  WriteText("broken_chain.pem",
            pem + "-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n");
  s = ServerSettings();
  s.cert_file = Path("broken_chain.pem");
  EXPECT_THAT(TlsContext::Make(s), IsError(StatusCode::kInvalidArgument));
}

TEST_F(TlsTest, ClientAuthNeedsACaFile) {
  TlsSettings s = ServerSettings();
  s.client_auth = ClientAuth::kRequired;
  EXPECT_THAT(TlsContext::Make(s), IsError(StatusCode::kInvalidArgument, HasSubstr("ca-file")));
  s.ca_file = Path("ca.pem");
  FLOE_EXPECT_OK(TlsContext::Make(s));
  EXPECT_THAT(ParseClientAuth("optional"), IsError(StatusCode::kInvalidArgument));
  FLOE_ASSERT_OK_AND_ASSIGN(ClientAuth mode, ParseClientAuth("requested"));
  EXPECT_EQ(mode, ClientAuth::kRequested);
}

TEST_F(TlsTest, EncryptedKeyNeedsItsPasswordWhichNoErrorRepeats) {
  const std::string password = "s3cret-passphrase";
  WriteKey(server_, "encrypted.key", password);
  TlsSettings s = ServerSettings();
  s.key_file = Path("encrypted.key");
  EXPECT_THAT(TlsContext::Make(s),
              IsError(StatusCode::kInvalidArgument, HasSubstr("needs key-password")));
  s.key_password = "wrong-passphrase";
  EXPECT_THAT(TlsContext::Make(s),
              IsError(StatusCode::kInvalidArgument,
                      AllOf(HasSubstr("does not decrypt"), Not(HasSubstr("wrong-passphrase")))));
  s.key_password = password;
  FLOE_EXPECT_OK(TlsContext::Make(s));
}

TEST_F(TlsTest, ReloadKeepsTheOldContextOnABadFileAndTakesANewOne) {
  FLOE_ASSERT_OK_AND_ASSIGN(auto tls, TlsContext::Make(ServerSettings()));
  auto before = tls->Current();
  WriteText("server.pem", "truncated");
  EXPECT_THAT(tls->Reload(), IsError(StatusCode::kInvalidArgument));
  EXPECT_EQ(tls->Current(), before);
  EXPECT_EQ(tls->certificate().serial_hex, "1001");

  KeyPair renewed = MakeCertificate("localhost", 0x2002, &ca_, false);
  WriteCert(renewed, "server.pem");
  WriteKey(renewed, "server.key");
  FLOE_ASSERT_OK(tls->Reload());
  EXPECT_NE(tls->Current(), before);
  EXPECT_EQ(tls->certificate().serial_hex, "2002");
}

// One HTTPS request over Asio's TLS client (verifying the server against the test CA,
// optionally presenting a client certificate); returns the response text, or "" when the
// handshake or the exchange failed.
std::string HttpsGet(uint16_t port, const std::string& ca_file, const std::string& cert_file,
                     const std::string& key_file) {
  asio::io_context ioc;
  asio::ssl::context ctx(asio::ssl::context::tls_client);
  ctx.load_verify_file(ca_file);
  ctx.set_verify_mode(asio::ssl::verify_peer);
  if (!cert_file.empty()) {
    ctx.use_certificate_chain_file(cert_file);
    ctx.use_private_key_file(key_file, asio::ssl::context::pem);
  }
  asio::ssl::stream<asio::ip::tcp::socket> stream(ioc, ctx);
  boost::system::error_code ec;
  stream.lowest_layer().connect({asio::ip::make_address("127.0.0.1"), port}, ec);
  if (ec) return "";
  stream.handshake(asio::ssl::stream_base::client, ec);
  if (ec) return "";
  std::string request = "GET /who HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n";
  asio::write(stream, asio::buffer(request), ec);
  if (ec) return "";
  std::string response;
  char buf[4096];
  for (;;) {
    size_t n = stream.read_some(asio::buffer(buf), ec);
    response.append(buf, n);
    if (ec) break;
  }
  // With TLS 1.3 a refused client certificate shows as an alert on the first read, after
  // the client's side of the handshake completed.
  return response.find("HTTP/1.1 ") == 0 ? response : "";
}

TEST_F(TlsTest, HttpServerServesTlsAndHandsTheClientCertificateToTheHandler) {
  KeyPair client = MakeCertificate("etl-client", 0x3003, &ca_, false);
  WriteCert(client, "client.pem");
  WriteKey(client, "client.key");
  KeyPair rogue_ca = MakeCertificate("rogue CA", 9, nullptr, true);
  KeyPair rogue = MakeCertificate("etl-client", 0x4004, &rogue_ca, false);
  WriteCert(rogue, "rogue.pem");
  WriteKey(rogue, "rogue.key");

  TlsSettings s = ServerSettings();
  s.ca_file = Path("ca.pem");
  s.client_auth = ClientAuth::kRequired;
  FLOE_ASSERT_OK_AND_ASSIGN(auto tls, TlsContext::Make(s));
  HttpServerOptions options;
  options.port = 0;
  options.worker_threads = 1;
  options.tls = tls;
  FLOE_ASSERT_OK_AND_ASSIGN(auto server, HttpServer::Start(options, [](const HttpRequest& request) {
                              return HttpResponse::Json(200, "{\"cn\":\"" + request.client_cn +
                                                                 "\",\"subject\":\"" +
                                                                 request.client_subject + "\"}");
                            }));
  std::string ok = HttpsGet(server->port(), Path("ca.pem"), Path("client.pem"), Path("client.key"));
  EXPECT_THAT(ok, HasSubstr("HTTP/1.1 200"));
  EXPECT_THAT(ok, HasSubstr("{\"cn\":\"etl-client\",\"subject\":\"CN=etl-client,O=floe tests\"}"));
  EXPECT_EQ(HttpsGet(server->port(), Path("ca.pem"), "", ""), "");
  EXPECT_EQ(HttpsGet(server->port(), Path("ca.pem"), Path("rogue.pem"), Path("rogue.key")), "");
  // Still serving after the refusals.
  EXPECT_THAT(HttpsGet(server->port(), Path("ca.pem"), Path("client.pem"), Path("client.key")),
              HasSubstr("HTTP/1.1 200"));
}

}  // namespace
}  // namespace floe::http
