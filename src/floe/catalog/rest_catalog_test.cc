// The REST catalog client's pure parts: catalog URIs, namespace and form encoding (RFC 3986;
// the spec's 0x1F namespace separator, iceberg.md §2.2) and the REST error model mapped to
// Status (iceberg.md §2.4, Java ErrorHandlers). tests/interop/test_rest_client.py runs the
// client against Iceberg Java's reference server.
#include "floe/catalog/rest_catalog.h"

#include <gtest/gtest.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <thread>

#include "floe/base/testing.h"

namespace floe::catalog {
namespace {

using Context = RestCatalog::ErrorContext;

TEST(RestUriTest, BaseUrlAndQueryProperties) {
  auto uri = ParseRestUri("rest:http://127.0.0.1:8181/api/catalog/?token=a%2Bb&warehouse=w+1");
  FLOE_ASSERT_OK(uri);
  EXPECT_EQ(uri->base_url, "http://127.0.0.1:8181/api/catalog");
  EXPECT_EQ(uri->properties, (Properties{{"token", "a+b"}, {"warehouse", "w 1"}}));

  uri = ParseRestUri("rest:https://catalog.example.com");
  FLOE_ASSERT_OK(uri);
  EXPECT_EQ(uri->base_url, "https://catalog.example.com");
  EXPECT_TRUE(uri->properties.empty());
}

TEST(RestUriTest, Rejects) {
  for (const char* bad :
       {"http://h:1", "rest:ftp://h", "rest:h:1", "rest:http://", "rest:http://user:secret@h:1",
        "rest:http://h:1?novalue", "rest:http://h:1?k=%zz", "rest:http://h:1?k=%2"}) {
    auto uri = ParseRestUri(bad);
    ASSERT_THAT(uri, IsError(StatusCode::kInvalidArgument)) << bad;
    // The rejected credential is not echoed back.
    EXPECT_EQ(uri.status().message().find("secret"), std::string_view::npos);
  }
}

TEST(RestEncodingTest, PercentEncodeKeepsOnlyUnreserved) {
  EXPECT_EQ(http::PercentEncode("AZaz09-._~"), "AZaz09-._~");
  EXPECT_EQ(http::PercentEncode("a b/c?d&e=f%g+h"), "a%20b%2Fc%3Fd%26e%3Df%25g%2Bh");
  EXPECT_EQ(http::PercentEncode("\x1f"), "%1F");
  EXPECT_EQ(http::PercentEncode("\xc3\xa9"), "%C3%A9");  // é, UTF-8 bytes
  EXPECT_EQ(http::PercentEncode(""), "");
}

TEST(RestEncodingTest, NamespaceLevelsJoinedBySeparator) {
  EXPECT_EQ(EncodeNamespace(Namespace{{"sales"}}), "sales");
  EXPECT_EQ(EncodeNamespace(Namespace{{"sales", "eu west", "a/b"}}), "sales%1Feu%20west%1Fa%2Fb");
  // A level holding the separator byte itself stays distinguishable from two levels.
  EXPECT_EQ(EncodeNamespace(Namespace{{"a\x1f"
                                       "b"}}),
            "a%1Fb");
  EXPECT_EQ(EncodeNamespace(Namespace{{"a", "b"}}, "%2E"), "a%2Eb");
  EXPECT_EQ(EncodeNamespace(Namespace{}), "");
}

TEST(RestEncodingTest, FormEncode) {
  EXPECT_EQ(http::FormEncode({{"grant_type", "client_credentials"}, {"client_secret", "s&=x y"}}),
            "grant_type=client_credentials&client_secret=s%26%3Dx%20y");
}

std::string ErrorBody(std::string_view type, int code, std::string_view message) {
  return fmt::format(R"({{"error":{{"message":"{}","type":"{}","code":{}}}}})", message, type,
                     code);
}

struct ErrorCase {
  int status;
  std::string type;
  Context context;
  StatusCode expected;
};

TEST(RestErrorTest, MapsTheErrorModel) {
  const ErrorCase cases[] = {
      {400, "IllegalArgumentException", Context::kDefault, StatusCode::kInvalidArgument},
      {400, "ValidationException", Context::kCommit, StatusCode::kInvalidArgument},
      {400, "NamespaceNotEmptyException", Context::kDefault, StatusCode::kFailedPrecondition},
      {409, "NamespaceNotEmptyException", Context::kDefault, StatusCode::kFailedPrecondition},
      {401, "NotAuthorizedException", Context::kDefault, StatusCode::kUnauthenticated},
      {419, "", Context::kDefault, StatusCode::kUnauthenticated},
      {403, "ForbiddenException", Context::kDefault, StatusCode::kPermissionDenied},
      {404, "NoSuchNamespaceException", Context::kDefault, StatusCode::kNotFound},
      {404, "NoSuchTableException", Context::kCommit, StatusCode::kNotFound},
      {404, "", Context::kDefault, StatusCode::kNotFound},
      {406, "UnsupportedOperationException", Context::kDefault, StatusCode::kUnimplemented},
      {409, "AlreadyExistsException", Context::kDefault, StatusCode::kAlreadyExists},
      {409, "", Context::kDefault, StatusCode::kAlreadyExists},
      {409, "CommitFailedException", Context::kCommit, StatusCode::kConflict},
      {409, "", Context::kCommit, StatusCode::kConflict},
      {422, "UnprocessableEntityException", Context::kDefault, StatusCode::kInvalidArgument},
      {418, "", Context::kDefault, StatusCode::kInvalidArgument},
      // A commit answered 5xx may have happened: never kConflict or kInternal.
      {500, "CommitStateUnknownException", Context::kCommit, StatusCode::kUnavailable},
      {500, "RuntimeException", Context::kCommit, StatusCode::kUnavailable},
      {502, "", Context::kCommit, StatusCode::kUnavailable},
      {503, "", Context::kCommit, StatusCode::kUnavailable},
      {504, "", Context::kCommit, StatusCode::kDeadlineExceeded},
      {503, "ServiceUnavailableException", Context::kDefault, StatusCode::kUnavailable},
      {504, "", Context::kDefault, StatusCode::kDeadlineExceeded},
  };
  for (const ErrorCase& c : cases) {
    std::string body = c.type.empty() ? "" : ErrorBody(c.type, c.status, "it went wrong");
    Status s = RestError(c.status, body, c.context);
    EXPECT_EQ(s.code(), c.expected) << c.status << " " << c.type << ": " << s.ToString();
    if (!c.type.empty()) {
      EXPECT_NE(s.message().find("it went wrong"), std::string_view::npos) << s.ToString();
      EXPECT_NE(s.message().find(c.type), std::string_view::npos) << s.ToString();
    }
    if (c.context == Context::kCommit && c.status >= 500) {
      EXPECT_NE(s.message().find("commit state unknown"), std::string_view::npos);
    }
  }
}

TEST(RestErrorTest, OAuthAndNonJsonBodies) {
  Status s = RestError(401, R"({"error":"invalid_client","error_description":"bad secret"})",
                       Context::kDefault);
  EXPECT_EQ(s.code(), StatusCode::kUnauthenticated);
  EXPECT_EQ(s.message(), "bad secret (invalid_client, HTTP 401)");
  s = RestError(502, "<html>Bad Gateway</html>", Context::kDefault);
  EXPECT_EQ(s.code(), StatusCode::kUnavailable);
  EXPECT_EQ(s.message(), "<html>Bad Gateway</html> (HTTP 502)");
  s = RestError(404, "", Context::kDefault);
  EXPECT_EQ(s.message(), "HTTP 404");
}

TEST(HttpClientTest, RefusedConnectionIsUnavailable) {
  // A port that was just free: bound, then closed without listening.
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  ASSERT_GE(fd, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ASSERT_EQ(bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)), 0);
  socklen_t len = sizeof(addr);
  ASSERT_EQ(getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len), 0);
  close(fd);

  auto client = http::HttpClient::Make();
  FLOE_ASSERT_OK(client);
  http::ClientRequest request;
  request.url = fmt::format("http://127.0.0.1:{}/v1/config", ntohs(addr.sin_port));
  request.headers = {{"Authorization", "Bearer top-secret"}};
  auto response = (*client)->Send(request);
  ASSERT_THAT(response, IsError(StatusCode::kUnavailable));
  EXPECT_EQ(response.status().message().find("top-secret"), std::string_view::npos);
}

// A loopback server (port 0): reads requests and answers each with the next of `responses`
// (raw HTTP; "" answers nothing); after the last it waits for the client to close.
class CannedServer {
 public:
  explicit CannedServer(std::vector<std::string> responses) {
    listen_fd_ = socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    bind(listen_fd_, reinterpret_cast<sockaddr*>(&addr), sizeof(addr));
    socklen_t len = sizeof(addr);
    getsockname(listen_fd_, reinterpret_cast<sockaddr*>(&addr), &len);
    port_ = ntohs(addr.sin_port);
    listen(listen_fd_, 4);
    thread_ = std::thread([this, responses = std::move(responses)] { Serve(responses); });
  }
  ~CannedServer() {
    shutdown(listen_fd_, SHUT_RDWR);  // unblocks accept() when a test ends early
    Join();
    close(listen_fd_);
  }
  // Waits until the client closed after the last response.
  void Join() {
    if (thread_.joinable()) thread_.join();
  }

  std::string url(std::string_view path) const {
    return fmt::format("http://127.0.0.1:{}{}", port_, path);
  }
  // Every request received, raw (after Join()).
  const std::vector<std::string>& requests() const { return requests_; }
  int connections() const { return connections_; }

 private:
  void Serve(const std::vector<std::string>& responses) {
    size_t next = 0;
    while (next < responses.size()) {
      int fd = accept(listen_fd_, nullptr, nullptr);
      if (fd < 0) return;
      ++connections_;
      std::string buffer;
      char chunk[4096];
      while (true) {
        size_t end = buffer.find("\r\n\r\n");
        if (end != std::string::npos) {
          // Requests here carry no body unless Content-Length says so.
          size_t body = 0;
          if (size_t cl = buffer.find("Content-Length: "); cl != std::string::npos && cl < end) {
            body = std::stoul(buffer.substr(cl + 16));
          }
          if (buffer.size() >= end + 4 + body) {
            requests_.push_back(buffer.substr(0, end + 4 + body));
            buffer.erase(0, end + 4 + body);
            if (next < responses.size()) {
              const std::string& r = responses[next++];
              if (!r.empty()) (void)!write(fd, r.data(), r.size());
            }
            continue;
          }
        }
        ssize_t n = read(fd, chunk, sizeof(chunk));
        if (n <= 0) break;
        buffer.append(chunk, static_cast<size_t>(n));
      }
      close(fd);
    }
  }

  int listen_fd_ = -1;
  int port_ = 0;
  int connections_ = 0;
  std::vector<std::string> requests_;
  std::thread thread_;
};

TEST(HttpClientTest, StatusHeadersBodyAndKeepAlive) {
  {
    CannedServer server({
        "HTTP/1.1 200 OK\r\nContent-Length: 5\r\nETag: \"v1\"\r\nX-Two: a\r\n\r\nhello",
        "HTTP/1.1 404 Not Found\r\nContent-Length: 2\r\n\r\n{}",
    });
    auto made = http::HttpClient::Make();  // destroyed before the server: closes the connection
    FLOE_ASSERT_OK(made);
    std::unique_ptr<http::HttpClient>& client = *made;
    http::ClientRequest get;
    get.url = server.url("/v1/config?warehouse=w");
    get.headers = {{"Authorization", "Bearer t"}};
    auto first = client->Send(get);
    FLOE_ASSERT_OK(first);
    EXPECT_EQ(first->status, 200);
    EXPECT_EQ(first->body, "hello");
    EXPECT_EQ(first->Header("etag"), "\"v1\"");
    EXPECT_EQ(first->Header("x-two"), "a");
    EXPECT_EQ(first->Header("missing"), std::nullopt);

    http::ClientRequest post;
    post.method = "POST";
    post.url = server.url("/v1/namespaces");
    post.body = R"({"namespace":["a"]})";
    post.headers = {{"Content-Type", "application/json"}};
    auto second = client->Send(post);
    FLOE_ASSERT_OK(second);
    EXPECT_EQ(second->status, 404);  // any status is a result
    EXPECT_EQ(second->body, "{}");
    client.reset();  // closes the connection; the server thread ends
    server.Join();

    ASSERT_EQ(server.requests().size(), 2u);
    EXPECT_EQ(server.connections(), 1);  // the second request reused the connection
    EXPECT_TRUE(server.requests()[0].starts_with("GET /v1/config?warehouse=w HTTP/1.1\r\n"));
    EXPECT_NE(server.requests()[0].find("Authorization: Bearer t\r\n"), std::string::npos);
    EXPECT_TRUE(server.requests()[1].starts_with("POST /v1/namespaces HTTP/1.1\r\n"));
    EXPECT_TRUE(server.requests()[1].ends_with("\r\n\r\n{\"namespace\":[\"a\"]}"));
    EXPECT_EQ(server.requests()[1].find("Expect:"), std::string::npos);
  }
}

TEST(HttpClientTest, ResponseSizeCapAndTimeout) {
  {
    CannedServer server({"HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\n0123456789"});
    http::HttpClientOptions options;
    options.max_response_bytes = 4;
    auto client = http::HttpClient::Make(options);
    FLOE_ASSERT_OK(client);
    http::ClientRequest get;
    get.url = server.url("/big");
    auto response = (*client)->Send(get);
    ASSERT_THAT(response, IsError(StatusCode::kIOError));
    client->reset();
  }
  {
    CannedServer server({""});  // reads the request, never answers
    http::HttpClientOptions options;
    options.request_timeout_ms = 200;
    auto client = http::HttpClient::Make(options);
    FLOE_ASSERT_OK(client);
    http::ClientRequest get;
    get.url = server.url("/slow");
    auto response = (*client)->Send(get);
    ASSERT_FALSE(response.ok());
    EXPECT_EQ(response.status().code(), StatusCode::kDeadlineExceeded)
        << response.status().ToString();
    client->reset();
  }
}

TEST(HttpClientTest, OtherSchemesAreRefused) {
  auto client = http::HttpClient::Make();
  FLOE_ASSERT_OK(client);
  http::ClientRequest request;
  request.url = "file:///etc/passwd";
  auto response = (*client)->Send(request);
  ASSERT_THAT(response, IsError(StatusCode::kInvalidArgument));
}

}  // namespace
}  // namespace floe::catalog
