#include "floe/http/http_server.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <future>
#include <string>
#include <thread>

#include <gtest/gtest.h>

#include "floe/base/testing.h"
#include "floe/http/http.h"

namespace floe::http {
namespace {

// A blocking client on one TCP connection: sends raw bytes, reads one response (status
// line, headers, Content-Length body).
class RawClient {
 public:
  explicit RawClient(uint16_t port) {
    fd_ = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_port = htons(port);
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    connected_ = ::connect(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0;
  }
  ~RawClient() { ::close(fd_); }

  bool connected() const { return connected_; }

  void Send(const std::string& bytes) {
    size_t sent = 0;
    while (sent < bytes.size()) {
      ssize_t n = ::send(fd_, bytes.data() + sent, bytes.size() - sent, MSG_NOSIGNAL);
      if (n <= 0) return;
      sent += static_cast<size_t>(n);
    }
  }

  // Returns {status, body}; status 0 when the connection closed first.
  std::pair<int, std::string> ReadResponse() {
    while (pending_.find("\r\n\r\n") == std::string::npos) {
      if (!Fill()) return {0, ""};
    }
    size_t head_end = pending_.find("\r\n\r\n");
    std::string head = pending_.substr(0, head_end);
    pending_.erase(0, head_end + 4);
    int status = std::stoi(head.substr(9, 3));
    size_t length = 0;
    size_t pos = head.find("Content-Length: ");
    if (pos != std::string::npos) length = std::stoul(head.substr(pos + 16));
    while (pending_.size() < length) {
      if (!Fill()) return {0, ""};
    }
    std::string body = pending_.substr(0, length);
    pending_.erase(0, length);
    last_head_ = head;
    return {status, body};
  }

  // True when the server closed the connection (read returns 0).
  bool ClosedByPeer() {
    char c;
    return ::recv(fd_, &c, 1, 0) == 0;
  }

  const std::string& last_head() const { return last_head_; }

 private:
  bool Fill() {
    char buf[4096];
    ssize_t n = ::recv(fd_, buf, sizeof buf, 0);
    if (n <= 0) return false;
    pending_.append(buf, static_cast<size_t>(n));
    return true;
  }

  int fd_ = -1;
  bool connected_ = false;
  std::string pending_;
  std::string last_head_;
};

HttpResponse Echo(const HttpRequest& request) {
  const std::string* custom = request.Header("x-test");
  return HttpResponse::Json(200, request.method + " " + request.path + "?" + request.query + " " +
                                     (custom ? *custom : "-") + " " + request.body);
}

TEST(HttpServer, KeepAliveServesSeveralRequestsOnOneConnection) {
  HttpServerOptions options;
  options.port = 0;
  auto server = HttpServer::Start(options, Echo);
  FLOE_ASSERT_OK(server);
  RawClient client((*server)->port());
  ASSERT_TRUE(client.connected());
  client.Send("GET /v1/a%1Fb?x=1 HTTP/1.1\r\nHost: t\r\nX-Test: hi\r\n\r\n");
  auto [s1, b1] = client.ReadResponse();
  EXPECT_EQ(s1, 200);
  EXPECT_EQ(b1, "GET /v1/a%1Fb?x=1 hi ");
  client.Send("POST /p HTTP/1.1\r\nHost: t\r\nContent-Length: 5\r\n\r\nhello");
  auto [s2, b2] = client.ReadResponse();
  EXPECT_EQ(s2, 200);
  EXPECT_EQ(b2, "POST /p? - hello");
}

TEST(HttpServer, OversizedBodyGets413AndTheServerKeepsServing) {
  HttpServerOptions options;
  options.port = 0;
  options.max_body_bytes = 100;
  auto server = HttpServer::Start(options, Echo);
  FLOE_ASSERT_OK(server);
  {
    RawClient client((*server)->port());
    client.Send("POST /p HTTP/1.1\r\nHost: t\r\nContent-Length: 101\r\n\r\n" +
                std::string(101, 'x'));
    auto [status, body] = client.ReadResponse();
    EXPECT_EQ(status, 413);
    EXPECT_NE(body.find("\"code\":413"), std::string::npos) << body;
  }
  RawClient again((*server)->port());
  again.Send("GET /ok HTTP/1.1\r\nHost: t\r\n\r\n");
  EXPECT_EQ(again.ReadResponse().first, 200);
}

TEST(HttpServer, MalformedRequestGets400AndClose) {
  HttpServerOptions options;
  options.port = 0;
  auto server = HttpServer::Start(options, Echo);
  FLOE_ASSERT_OK(server);
  RawClient client((*server)->port());
  client.Send("NOT AN HTTP REQUEST\r\n\r\n");
  auto [status, body] = client.ReadResponse();
  EXPECT_EQ(status, 400);
  EXPECT_NE(body.find("BadRequestException"), std::string::npos) << body;
  EXPECT_TRUE(client.ClosedByPeer());
}

TEST(HttpServer, OversizedHeaderGets431) {
  HttpServerOptions options;
  options.port = 0;
  options.max_header_bytes = 1024;
  auto server = HttpServer::Start(options, Echo);
  FLOE_ASSERT_OK(server);
  RawClient client((*server)->port());
  client.Send("GET / HTTP/1.1\r\nHost: t\r\nX-Big: " + std::string(4096, 'a') + "\r\n\r\n");
  EXPECT_EQ(client.ReadResponse().first, 431);
}

TEST(HttpServer, HeadAnswersWithoutBody) {
  HttpServerOptions options;
  options.port = 0;
  auto server = HttpServer::Start(
      options, [](const HttpRequest&) { return HttpResponse::Json(404, "{\"error\":{}}"); });
  FLOE_ASSERT_OK(server);
  RawClient client((*server)->port());
  client.Send("HEAD /x HTTP/1.1\r\nHost: t\r\n\r\n");
  auto [status, body] = client.ReadResponse();
  EXPECT_EQ(status, 404);
  EXPECT_EQ(body, "");
  // The connection is still usable: a HEAD response carries no body bytes.
  client.Send("HEAD /x HTTP/1.1\r\nHost: t\r\n\r\n");
  EXPECT_EQ(client.ReadResponse().first, 404);
}

TEST(HttpServer, StopLetsARequestInFlightFinish) {
  std::promise<void> entered;
  std::atomic<bool> release{false};
  HttpServerOptions options;
  options.port = 0;
  auto server = HttpServer::Start(options, [&](const HttpRequest&) {
    entered.set_value();
    while (!release.load()) std::this_thread::sleep_for(std::chrono::milliseconds(5));
    return HttpResponse::Json(200, "committed");
  });
  FLOE_ASSERT_OK(server);
  RawClient client((*server)->port());
  client.Send("POST /commit HTTP/1.1\r\nHost: t\r\nContent-Length: 0\r\n\r\n");
  entered.get_future().wait();
  std::thread stopper([&] { (*server)->Stop(); });
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  // New connections are refused once stopping.
  RawClient late((*server)->port());
  if (late.connected()) {
    late.Send("GET / HTTP/1.1\r\nHost: t\r\n\r\n");
    EXPECT_EQ(late.ReadResponse().first, 0);
  }
  release.store(true);
  auto [status, body] = client.ReadResponse();
  EXPECT_EQ(status, 200);
  EXPECT_EQ(body, "committed");
  EXPECT_NE(client.last_head().find("Connection: close"), std::string::npos) << client.last_head();
  stopper.join();
}

// Collects access-log lines; Options() listens on a free port.
struct AccessLog {
  std::mutex mu;
  std::vector<std::string> lines;
  HttpServerOptions Options() {
    HttpServerOptions options;
    options.port = 0;
    options.access_log = [this](std::string_view line) {
      std::lock_guard lock(mu);
      lines.emplace_back(line);
    };
    return options;
  }
};

TEST(HttpServer, AccessLogHasNoQueryString) {
  AccessLog log;
  std::vector<std::string>& lines = log.lines;
  HttpServerOptions options = log.Options();
  {
    auto server = HttpServer::Start(options, Echo);
    FLOE_ASSERT_OK(server);
    RawClient client((*server)->port());
    client.Send(
        "GET /v1/x?token=secret HTTP/1.1\r\nHost: t\r\nAuthorization: Bearer s3cr3t\r\n\r\n");
    EXPECT_EQ(client.ReadResponse().first, 200);
    (*server)->Stop();
  }
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_NE(lines[0].find("\"path\":\"/v1/x\""), std::string::npos) << lines[0];
  EXPECT_NE(lines[0].find("\"status\":200"), std::string::npos) << lines[0];
  EXPECT_EQ(lines[0].find("secret"), std::string::npos) << lines[0];
  EXPECT_EQ(lines[0].find("s3cr3t"), std::string::npos) << lines[0];
}

TEST(HttpServer, AccessLogNamesThePrincipalOfTheResponse) {
  AccessLog log;
  std::vector<std::string>& lines = log.lines;
  HttpServerOptions options = log.Options();
  {
    auto server = HttpServer::Start(options, [](const HttpRequest& request) {
      HttpResponse response = HttpResponse::Json(200, "{}");
      if (request.path == "/who") {
        response.principal = "etl";
        response.grant = "client_credentials";
      }
      return response;
    });
    FLOE_ASSERT_OK(server);
    RawClient client((*server)->port());
    client.Send("GET /who HTTP/1.1\r\nHost: t\r\n\r\n");
    EXPECT_EQ(client.ReadResponse().first, 200);
    EXPECT_EQ(client.last_head().find("client_credentials"), std::string::npos)
        << "the grant is not sent";
    client.Send("GET /anonymous HTTP/1.1\r\nHost: t\r\n\r\n");
    auto [status, body] = client.ReadResponse();
    EXPECT_EQ(status, 200);
    EXPECT_EQ(client.last_head().find("etl"), std::string::npos) << "the principal is not sent";
    (*server)->Stop();
  }
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_NE(lines[0].find("\"principal\":\"etl\""), std::string::npos) << lines[0];
  EXPECT_NE(lines[0].find("\"grant\":\"client_credentials\""), std::string::npos) << lines[0];
  EXPECT_EQ(lines[1].find("principal"), std::string::npos) << lines[1];
  EXPECT_EQ(lines[1].find("grant"), std::string::npos) << lines[1];
}

TEST(HttpServer, BusyPortIsUnavailable) {
  HttpServerOptions options;
  options.port = 0;
  auto first = HttpServer::Start(options, Echo);
  FLOE_ASSERT_OK(first);
  options.port = (*first)->port();
  auto second = HttpServer::Start(options, Echo);
  ASSERT_THAT(second, IsError(StatusCode::kUnavailable));
}

TEST(HttpUtil, PercentDecodingAndPaths) {
  EXPECT_EQ(*PercentDecode("a%1Fb%2f"), std::string("a\x1f"
                                                    "b/"));
  EXPECT_FALSE(PercentDecode("a%1").ok());
  EXPECT_FALSE(PercentDecode("a%zz").ok());
  EXPECT_EQ(*PercentDecode("a+b", true), "a b");
  EXPECT_EQ(PercentEncode("a b\x1f/"), "a%20b%1F%2F");
  auto parts = SplitPath("/v1/cat/namespaces/a%1Fb/");
  FLOE_ASSERT_OK(parts);
  EXPECT_EQ(*parts, (std::vector<std::string>{"v1", "cat", "namespaces",
                                              "a\x1f"
                                              "b"}));
  auto query = ParseQuery("pageToken=&pageSize=10&parent=a%1Fb");
  FLOE_ASSERT_OK(query);
  ASSERT_EQ(query->size(), 3u);
  EXPECT_EQ((*query)[0], (std::pair<std::string, std::string>{"pageToken", ""}));
  EXPECT_EQ((*query)[2].second,
            "a\x1f"
            "b");
}

}  // namespace
}  // namespace floe::http
