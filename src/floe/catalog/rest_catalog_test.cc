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

namespace floe::catalog {
namespace {

using Context = RestCatalog::ErrorContext;

TEST(RestUriTest, BaseUrlAndQueryProperties) {
  auto uri = ParseRestUri("rest:http://127.0.0.1:8181/api/catalog/?token=a%2Bb&warehouse=w+1");
  ASSERT_TRUE(uri.ok()) << uri.status().ToString();
  EXPECT_EQ(uri->base_url, "http://127.0.0.1:8181/api/catalog");
  EXPECT_EQ(uri->properties, (Properties{{"token", "a+b"}, {"warehouse", "w 1"}}));

  uri = ParseRestUri("rest:https://catalog.example.com");
  ASSERT_TRUE(uri.ok());
  EXPECT_EQ(uri->base_url, "https://catalog.example.com");
  EXPECT_TRUE(uri->properties.empty());
}

TEST(RestUriTest, Rejects) {
  for (const char* bad : {"http://h:1", "rest:ftp://h", "rest:h:1", "rest:http://",
                          "rest:http://user:secret@h:1", "rest:http://h:1?novalue",
                          "rest:http://h:1?k=%zz", "rest:http://h:1?k=%2"}) {
    auto uri = ParseRestUri(bad);
    ASSERT_FALSE(uri.ok()) << bad;
    EXPECT_EQ(uri.status().code(), StatusCode::kInvalidArgument) << bad;
    // The rejected credential is not echoed back.
    EXPECT_EQ(uri.status().message().find("secret"), std::string_view::npos);
  }
}

TEST(RestEncodingTest, PercentEncodeKeepsOnlyUnreserved) {
  EXPECT_EQ(PercentEncode("AZaz09-._~"), "AZaz09-._~");
  EXPECT_EQ(PercentEncode("a b/c?d&e=f%g+h"), "a%20b%2Fc%3Fd%26e%3Df%25g%2Bh");
  EXPECT_EQ(PercentEncode("\x1f"), "%1F");
  EXPECT_EQ(PercentEncode("\xc3\xa9"), "%C3%A9");  // é, UTF-8 bytes
  EXPECT_EQ(PercentEncode(""), "");
}

TEST(RestEncodingTest, NamespaceLevelsJoinedBySeparator) {
  EXPECT_EQ(EncodeNamespace(Namespace{{"sales"}}), "sales");
  EXPECT_EQ(EncodeNamespace(Namespace{{"sales", "eu west", "a/b"}}), "sales%1Feu%20west%1Fa%2Fb");
  // A level holding the separator byte itself stays distinguishable from two levels.
  EXPECT_EQ(EncodeNamespace(Namespace{{"a\x1f" "b"}}), "a%1Fb");
  EXPECT_EQ(EncodeNamespace(Namespace{{"a", "b"}}, "%2E"), "a%2Eb");
  EXPECT_EQ(EncodeNamespace(Namespace{}), "");
}

TEST(RestEncodingTest, FormEncode) {
  EXPECT_EQ(FormEncode({{"grant_type", "client_credentials"}, {"client_secret", "s&=x y"}}),
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

  auto client = HttpClient::Make();
  ASSERT_TRUE(client.ok());
  HttpRequest request;
  request.url = fmt::format("http://127.0.0.1:{}/v1/config", ntohs(addr.sin_port));
  request.headers = {{"Authorization", "Bearer top-secret"}};
  auto response = (*client)->Send(request);
  ASSERT_FALSE(response.ok());
  EXPECT_EQ(response.status().code(), StatusCode::kUnavailable) << response.status().ToString();
  EXPECT_EQ(response.status().message().find("top-secret"), std::string_view::npos);
}

TEST(HttpClientTest, OtherSchemesAreRefused) {
  auto client = HttpClient::Make();
  ASSERT_TRUE(client.ok());
  HttpRequest request;
  request.url = "file:///etc/passwd";
  auto response = (*client)->Send(request);
  ASSERT_FALSE(response.ok());
  EXPECT_EQ(response.status().code(), StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace floe::catalog
