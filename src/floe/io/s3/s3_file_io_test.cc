#include "floe/io/s3/s3_file_io.h"

#include <gtest/gtest.h>

#include <atomic>
#include <deque>
#include <map>
#include <mutex>
#include <thread>

#include "floe/base/testing.h"
#include "floe/http/http.h"
#include "floe/io/s3/make_file_io.h"
#include "floe/io/s3/xml.h"

namespace floe::io::s3 {
namespace {

using http::ClientRequest;
using http::ClientResponse;

// An in-memory S3 of one endpoint (path-style), enough of the API for S3FileIO, with a
// queue of injected failures served before real answers.
class FakeS3 {
 public:
  std::mutex mu;
  std::map<std::string, std::string> objects;  // "bucket/key" -> bytes
  std::map<std::string, std::map<int, std::string>> uploads;
  std::deque<Result<ClientResponse>> faults;
  std::vector<ClientRequest> requests;
  size_t list_page_size = 2;
  // Handle the next request, then answer it with a transport error (the response is lost).
  bool lose_next_response = false;
  int next_upload = 0;

  S3Transport Transport() {
    return [this](const ClientRequest& r) { return Handle(r); };
  }

  static ClientResponse Reply(int status, std::string body = {}) {
    ClientResponse r;
    r.status = status;
    r.body = std::move(body);
    return r;
  }

  Result<ClientResponse> Handle(const ClientRequest& request) {
    std::lock_guard lock(mu);
    requests.push_back(request);
    if (!faults.empty()) {
      auto fault = std::move(faults.front());
      faults.pop_front();
      return fault;
    }
    Result<ClientResponse> r = Serve(request);
    if (lose_next_response) {
      lose_next_response = false;
      return Status::Unavailable("connection reset after the request was handled");
    }
    return r;
  }

  Result<ClientResponse> Serve(const ClientRequest& request) {
    std::string_view url = request.url;
    EXPECT_TRUE(url.starts_with("http://fake:9000/")) << url;
    url.remove_prefix(std::string_view("http://fake:9000/").size());
    std::string_view path = url.substr(0, url.find('?'));
    std::map<std::string, std::string> query;
    if (size_t q = url.find('?'); q != std::string_view::npos) {
      std::string_view rest = url.substr(q + 1);
      while (!rest.empty()) {
        std::string_view part = rest.substr(0, rest.find('&'));
        rest.remove_prefix(std::min(rest.size(), part.size() + 1));
        size_t eq = part.find('=');
        std::string key = *http::PercentDecode(part.substr(0, eq));
        query[key] = eq == std::string_view::npos ? "" : *http::PercentDecode(part.substr(eq + 1));
      }
    }
    std::string name = *http::PercentDecode(path);
    auto header = [&](std::string_view n) -> std::string {
      for (const auto& [k, v] : request.headers) {
        if (k == n) return v;
      }
      return {};
    };
    const std::string& m = request.method;
    bool bucket_only = name.find('/') == std::string::npos;
    if (m == "GET" && bucket_only) return List(name, query);
    if (m == "POST" && bucket_only && query.contains("delete")) return DeleteObjects(name, request);
    if (m == "POST" && query.contains("uploads")) {
      std::string id = "upload-" + std::to_string(++next_upload);
      uploads[id];
      return Reply(200, "<InitiateMultipartUploadResult><UploadId>" + id +
                            "</UploadId></InitiateMultipartUploadResult>");
    }
    if (m == "PUT" && query.contains("uploadId")) {
      auto it = uploads.find(query["uploadId"]);
      if (it == uploads.end()) return Reply(404, "<Error><Code>NoSuchUpload</Code></Error>");
      it->second[std::stoi(query["partNumber"])] = request.body;
      ClientResponse r = Reply(200);
      r.headers.emplace_back("etag", "\"etag-" + query["partNumber"] + "\"");
      return r;
    }
    if (m == "POST" && query.contains("uploadId")) {
      auto it = uploads.find(query["uploadId"]);
      if (it == uploads.end()) return Reply(404, "<Error><Code>NoSuchUpload</Code></Error>");
      if (header("if-none-match") == "*" && objects.contains(name)) return Reply(412);
      std::string data;
      for (const auto& [n, part] : it->second) data += part;
      objects[name] = data;
      uploads.erase(it);
      return Reply(200, "<CompleteMultipartUploadResult/>");
    }
    if (m == "DELETE" && query.contains("uploadId")) {
      uploads.erase(query["uploadId"]);
      return Reply(204);
    }
    if (m == "PUT") {
      if (header("if-none-match") == "*" && objects.contains(name)) return Reply(412);
      objects[name] = request.body;
      return Reply(200);
    }
    if (m == "DELETE") {
      objects.erase(name);
      return Reply(204);
    }
    auto it = objects.find(name);
    if (it == objects.end()) return Reply(404);
    if (m == "HEAD") {
      ClientResponse r = Reply(200);
      r.headers.emplace_back("content-length", std::to_string(it->second.size()));
      r.headers.emplace_back("etag", "\"" + Md5Hex(it->second) + "\"");
      return r;
    }
    if (m == "GET") {
      std::string range = header("range");
      size_t dash = range.find('-');
      size_t first = std::stoull(range.substr(6, dash - 6));
      size_t last = std::stoull(range.substr(dash + 1));
      return Reply(206, it->second.substr(first, last - first + 1));
    }
    return Reply(400);
  }

  ClientResponse List(const std::string& bucket, std::map<std::string, std::string>& query) {
    std::string prefix = bucket + "/" + query["prefix"];
    auto it = objects.lower_bound(
        query.contains("continuation-token") ? bucket + "/" + query["continuation-token"] : prefix);
    std::string body = "<ListBucketResult><EncodingType>url</EncodingType>";
    size_t n = 0;
    for (; it != objects.end() && it->first.starts_with(prefix) && n < list_page_size; ++it, ++n) {
      body += "<Contents><Key>" + UriEncode(it->first.substr(bucket.size() + 1), true) +
              "</Key><LastModified>2026-01-02T03:04:05.678Z</LastModified><Size>" +
              std::to_string(it->second.size()) + "</Size></Contents>";
    }
    if (it != objects.end() && it->first.starts_with(prefix)) {
      body += "<IsTruncated>true</IsTruncated><NextContinuationToken>" +
              XmlEscape(it->first.substr(bucket.size() + 1)) + "</NextContinuationToken>";
    } else {
      body += "<IsTruncated>false</IsTruncated>";
    }
    return Reply(200, body + "</ListBucketResult>");
  }

  ClientResponse DeleteObjects(const std::string& bucket, const ClientRequest& request) {
    auto root = ParseXml(request.body);
    EXPECT_TRUE(root.has_value());
    size_t keys = 0;
    for (const XmlElement& object : root->children) {
      if (object.name != "Object") continue;
      objects.erase(bucket + "/" + std::string(object.ChildText("Key")));
      ++keys;
    }
    EXPECT_LE(keys, 1000u);
    return Reply(200, "<DeleteResult/>");
  }
};

class S3FileIOTest : public ::testing::Test {
 protected:
  std::unique_ptr<S3FileIO> Make(S3Options options = {}) {
    options.endpoint = "http://fake:9000";
    options.credentials = {"AKID", "SECRET", ""};
    options.transport = fake_.Transport();
    options.sleep = [this](int64_t ms) { sleeps_.push_back(ms); };
    options.jitter_seed = 7;
    options.now = [] {
      return std::chrono::system_clock::time_point(std::chrono::seconds(1440938160));
    };
    auto io = S3FileIO::Make(std::move(options));
    EXPECT_TRUE(io.has_value());
    return std::move(io).value();
  }

  static Result<ClientResponse> Status503() {
    ClientResponse r;
    r.status = 503;
    r.body =
        "<Error><Code>SlowDown</Code><Message>Please reduce your request rate.</Message>"
        "</Error>";
    return r;
  }

  FakeS3 fake_;
  std::vector<int64_t> sleeps_;
};

TEST_F(S3FileIOTest, SmallFileRoundTripIsOnePut) {
  auto io = Make();
  auto out = io->CreateOutput("s3://b/dir/a b.txt", /*overwrite=*/false);
  ASSERT_TRUE(out.has_value());
  FLOE_ASSERT_OK((*out)->Write("hello, object store"));
  EXPECT_FALSE(fake_.objects.contains("b/dir/a b.txt"));  // nothing visible before Close
  FLOE_ASSERT_OK((*out)->Close());
  EXPECT_EQ(fake_.objects["b/dir/a b.txt"], "hello, object store");
  const ClientRequest& put = fake_.requests.back();
  EXPECT_EQ(put.url, "http://fake:9000/b/dir/a%20b.txt");
  bool if_none_match = false, signed_auth = false;
  for (const auto& [k, v] : put.headers) {
    if_none_match |= k == "if-none-match" && v == "*";
    signed_auth |= k == "authorization" && v.starts_with(
                                               "AWS4-HMAC-SHA256 Credential=AKID/"
                                               "20150830/us-east-1/s3/aws4_request");
  }
  EXPECT_TRUE(if_none_match);
  EXPECT_TRUE(signed_auth);

  auto in = io->OpenInput("s3a://b/dir/a b.txt");
  ASSERT_TRUE(in.has_value());
  EXPECT_EQ((*in)->size(), 19u);
  auto bytes = (*in)->Read(7, 6);
  ASSERT_TRUE(bytes.has_value());
  EXPECT_EQ(std::string_view(reinterpret_cast<const char*>(bytes->data()), bytes->size()),
            "object");
  EXPECT_EQ((*in)->Read(15, 5).error().code(), StatusCode::kCorrupt);
  auto counts = io->request_counts();
  EXPECT_EQ(counts.put, 1);
  EXPECT_EQ(counts.head, 2);  // the existence check and the open
  EXPECT_EQ(counts.get, 1);
  EXPECT_EQ(counts.multipart, 0);
}

TEST_F(S3FileIOTest, OverwriteFalseRefusesAnExistingObject) {
  auto io = Make();
  fake_.objects["b/k"] = "x";
  EXPECT_EQ(io->CreateOutput("s3://b/k", false).error().code(), StatusCode::kAlreadyExists);
  // A writer that wins between our HEAD and our PUT: the conditional PUT loses with 412.
  auto out = io->CreateOutput("s3://b/k2", false);
  ASSERT_TRUE(out.has_value());
  fake_.objects["b/k2"] = "theirs";
  FLOE_ASSERT_OK((*out)->Write("ours"));
  EXPECT_EQ((*out)->Close().code(), StatusCode::kAlreadyExists);
  EXPECT_EQ(fake_.objects["b/k2"], "theirs");
  auto again = io->CreateOutput("s3://b/k2", true);
  ASSERT_TRUE(again.has_value());
  FLOE_ASSERT_OK((*again)->Write("ours"));
  FLOE_ASSERT_OK((*again)->Close());
  EXPECT_EQ(fake_.objects["b/k2"], "ours");
}

TEST_F(S3FileIOTest, ConditionalPutWhoseResponseWasLostSucceeds) {
  auto io = Make();
  auto out = io->CreateOutput("s3://b/once", false);
  ASSERT_TRUE(out.has_value());
  FLOE_ASSERT_OK((*out)->Write("payload"));
  fake_.lose_next_response = true;  // the PUT lands, its answer does not
  FLOE_ASSERT_OK((*out)->Close());
  EXPECT_EQ(fake_.objects["b/once"], "payload");
  EXPECT_EQ(io->request_counts().put, 2);  // the retry was answered 412, then a HEAD
  EXPECT_EQ(io->request_counts().head, 2);
}

TEST_F(S3FileIOTest, LargeFileIsAMultipartUpload) {
  S3Options options;
  options.part_size_bytes = 5 << 20;
  auto io = Make(std::move(options));
  std::string data(12 << 20, '\0');
  for (size_t i = 0; i < data.size(); ++i) data[i] = static_cast<char>(i * 31 % 251);
  auto out = io->CreateOutput("s3://b/big", true);
  ASSERT_TRUE(out.has_value());
  for (size_t at = 0; at < data.size(); at += 1 << 20) {
    FLOE_ASSERT_OK((*out)->Write(data.data() + at, 1 << 20));
  }
  EXPECT_EQ(fake_.uploads.size(), 1u);
  EXPECT_FALSE(fake_.objects.contains("b/big"));
  FLOE_ASSERT_OK((*out)->Close());
  EXPECT_EQ(fake_.objects["b/big"], data);
  EXPECT_TRUE(fake_.uploads.empty());
  // create + 3 parts (5, 5, 2 MiB) + complete
  EXPECT_EQ(io->request_counts().multipart, 5);
  EXPECT_EQ(io->request_counts().put, 0);
}

TEST_F(S3FileIOTest, AbandonedOrFailedUploadsAreAborted) {
  S3Options options;
  options.part_size_bytes = 5 << 20;
  options.retry.max_attempts = 2;
  auto io = Make(std::move(options));
  std::string part(6 << 20, 'x');
  {
    auto out = io->CreateOutput("s3://b/abandoned", true);
    FLOE_ASSERT_OK((*out)->Write(part));
    EXPECT_EQ(fake_.uploads.size(), 1u);
  }
  EXPECT_TRUE(fake_.uploads.empty());
  EXPECT_FALSE(fake_.objects.contains("b/abandoned"));

  auto out = io->CreateOutput("s3://b/failed", true);
  FLOE_ASSERT_OK((*out)->Write(part));
  fake_.faults.push_back(Status503());
  fake_.faults.push_back(Status503());
  EXPECT_EQ((*out)->Write(part).code(), StatusCode::kUnavailable);
  EXPECT_TRUE(fake_.uploads.empty());
  EXPECT_FALSE((*out)->Close().ok());
  EXPECT_FALSE(fake_.objects.contains("b/failed"));
}

TEST_F(S3FileIOTest, RetriesThrottlingWithBackoff) {
  auto io = Make();
  fake_.objects["b/k"] = "v";
  fake_.faults.push_back(Status503());
  fake_.faults.push_back(Status::Unavailable("connection reset"));
  fake_.faults.push_back(FakeS3::Reply(500));
  auto exists = io->Exists("s3://b/k");
  ASSERT_TRUE(exists.has_value()) << exists.error().ToString();
  EXPECT_TRUE(*exists);
  ASSERT_EQ(sleeps_.size(), 3u);
  RetryPolicy policy;
  for (size_t i = 0; i < sleeps_.size(); ++i) {
    EXPECT_GE(sleeps_[i], 0);
    EXPECT_LE(sleeps_[i], policy.base_delay_ms << i);
  }
  EXPECT_EQ(io->request_counts().head, 4);
  EXPECT_EQ(io->request_counts().retries, 3);
}

TEST_F(S3FileIOTest, RetriesAreBoundedAndClientErrorsAreNotRetried) {
  S3Options options;
  options.retry.max_attempts = 3;
  auto io = Make(std::move(options));
  for (int i = 0; i < 5; ++i) fake_.faults.push_back(Status503());
  auto r = io->Exists("s3://b/k");
  ASSERT_FALSE(r.has_value());
  EXPECT_EQ(r.error().code(), StatusCode::kUnavailable);
  EXPECT_NE(r.error().message().find("SlowDown"), std::string_view::npos);
  EXPECT_EQ(fake_.requests.size(), 3u);

  fake_.faults.clear();
  fake_.requests.clear();
  ClientResponse denied;
  denied.status = 403;
  denied.body = "<Error><Code>SignatureDoesNotMatch</Code><Message>no</Message></Error>";
  fake_.faults.push_back(denied);
  auto d = io->OpenInput("s3://b/k");
  ASSERT_FALSE(d.has_value());
  EXPECT_EQ(d.error().code(), StatusCode::kPermissionDenied);
  EXPECT_EQ(fake_.requests.size(), 1u);
}

// Every attempt is one billed request: counted by catalog, bucket and operation, with the
// retries, the failed attempts (503, 403; not the 404 of an existence check) and the body
// bytes of GETs and PUTs.
TEST_F(S3FileIOTest, SharedMetricsCountAttemptsByCatalogBucketAndOperation) {
  auto metrics = std::make_shared<S3Metrics>();
  S3Options options;
  options.metrics = metrics;
  options.metrics_catalog = "lake";
  auto io = Make(std::move(options));
  fake_.objects["b/k"] = "0123456789";
  auto in = io->OpenInput("s3://b/k");
  ASSERT_TRUE(in.has_value());
  ASSERT_TRUE((*in)->Read(2, 3).has_value());
  ASSERT_TRUE((*in)->Read(0, 10).has_value());
  fake_.faults.push_back(Status503());
  auto exists = io->Exists("s3://b/missing");
  ASSERT_TRUE(exists.has_value());
  EXPECT_FALSE(*exists);
  FLOE_ASSERT_OK(io->WriteFile("s3a://c/new", "abcdef", /*overwrite=*/true));
  ClientResponse denied = FakeS3::Reply(403, "<Error><Code>AccessDenied</Code></Error>");
  fake_.faults.push_back(denied);
  EXPECT_EQ(io->Delete("s3://b/k").code(), StatusCode::kPermissionDenied);

  auto snapshot = metrics->Snapshot();
  ASSERT_EQ(snapshot.size(), 2u);
  const S3TrafficCounts& b = snapshot[{"lake", "b"}];
  EXPECT_EQ(b.of(S3Operation::kHeadObject).requests, 3);  // the open, the 503, the 404
  EXPECT_EQ(b.of(S3Operation::kHeadObject).retries, 1);
  EXPECT_EQ(b.of(S3Operation::kHeadObject).errors, 1);
  EXPECT_EQ(b.of(S3Operation::kGetObjectRange).requests, 1);
  EXPECT_EQ(b.of(S3Operation::kGetObject).requests, 1);
  EXPECT_EQ(b.of(S3Operation::kDeleteObject).requests, 1);
  EXPECT_EQ(b.of(S3Operation::kDeleteObject).errors, 1);
  EXPECT_EQ(b.bytes_read, 13);
  EXPECT_EQ(b.bytes_written, 0);
  const S3TrafficCounts& c = snapshot[{"lake", "c"}];
  EXPECT_EQ(c.of(S3Operation::kPutObject).requests, 1);
  EXPECT_EQ(c.of(S3Operation::kPutObject).errors, 0);
  EXPECT_EQ(c.bytes_written, 6);
  EXPECT_EQ(c.Total().requests, 1);
  EXPECT_EQ(metrics->Total().Total().requests, 7);

  std::string text;
  PrometheusWriter w(&text);
  WriteS3Metrics(*metrics, w);
  EXPECT_NE(text.find("floe_s3_requests_total{catalog=\"lake\",bucket=\"b\","
                      "operation=\"HeadObject\"} 3\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("floe_s3_read_bytes_total{catalog=\"lake\",bucket=\"b\"} 13\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("# TYPE floe_s3_request_errors_total counter"), std::string::npos);
}

TEST_F(S3FileIOTest, ConcurrentReadsShareOneFile) {
  auto io = Make();
  std::string data(1 << 16, '\0');
  for (size_t i = 0; i < data.size(); ++i) data[i] = static_cast<char>(i * 7 % 256);
  fake_.objects["b/shared"] = data;
  auto in = io->OpenInput("s3://b/shared");
  ASSERT_TRUE(in.has_value());
  std::vector<std::thread> readers;
  std::atomic<int> mismatches{0};
  for (int t = 0; t < 8; ++t) {
    readers.emplace_back([&, t] {
      for (int i = 0; i < 50; ++i) {
        uint64_t offset = static_cast<uint64_t>((t * 997 + i * 131) % (data.size() - 100));
        auto bytes = (*in)->Read(offset, 100);
        if (!bytes.has_value() ||
            std::string_view(reinterpret_cast<const char*>(bytes->data()), 100) !=
                std::string_view(data).substr(offset, 100)) {
          ++mismatches;
        }
      }
    });
  }
  for (auto& r : readers) r.join();
  EXPECT_EQ(mismatches.load(), 0);
  EXPECT_EQ(io->request_counts().get, 400);
}

TEST_F(S3FileIOTest, ReadConcurrencyIsBoundedByTheConnectionPool) {
  fake_.objects["b/k"] = "bytes";
  auto defaults = Make()->OpenInput("s3://b/k");
  ASSERT_TRUE(defaults.has_value());
  EXPECT_EQ((*defaults)->max_concurrent_reads(), 8);
  S3Options few;
  few.max_connections = 3;
  auto capped = Make(few)->OpenInput("s3://b/k");
  ASSERT_TRUE(capped.has_value());
  EXPECT_EQ((*capped)->max_concurrent_reads(), 3);
  auto o = S3Options::FromProperties({{"s3.read-concurrency", "1"}}, nullptr);
  ASSERT_TRUE(o.has_value());
  EXPECT_EQ(o->read_concurrency, 1);
  auto sequential = Make(*o)->OpenInput("s3://b/k");
  ASSERT_TRUE(sequential.has_value());
  EXPECT_EQ((*sequential)->max_concurrent_reads(), 1);
  EXPECT_FALSE(S3Options::FromProperties({{"s3.read-concurrency", "0"}}, nullptr).has_value());
}

TEST_F(S3FileIOTest, RetryPolicyDelays) {
  RetryPolicy p{.max_attempts = 10, .base_delay_ms = 100, .max_delay_ms = 1000};
  EXPECT_EQ(p.DelayMs(1, 0.999), 99);
  EXPECT_EQ(p.DelayMs(2, 0.5), 100);
  EXPECT_EQ(p.DelayMs(4, 0.5), 400);
  EXPECT_EQ(p.DelayMs(9, 0.5), 500);  // capped at max_delay_ms
  EXPECT_EQ(p.DelayMs(60, 0.0), 0);
}

TEST_F(S3FileIOTest, ListPaginatesAndDeleteFilesBatches) {
  auto io = Make();
  for (int i = 0; i < 5; ++i) fake_.objects["b/t/f" + std::to_string(i) + " x+y"] = "abc";
  fake_.objects["b/other"] = "z";
  auto files = io->List("s3://b/t/");
  ASSERT_TRUE(files.has_value()) << files.error().ToString();
  ASSERT_EQ(files->size(), 5u);
  EXPECT_EQ((*files)[0].location, "s3://b/t/f0 x+y");
  EXPECT_EQ((*files)[0].size, 3u);
  EXPECT_EQ((*files)[0].modified_ms, 1767323045678);
  EXPECT_EQ(io->request_counts().list, 3);

  std::vector<std::string> doomed;
  for (const FileInfo& f : *files) doomed.push_back(f.location);
  FLOE_ASSERT_OK(io->DeleteFiles(doomed));
  EXPECT_EQ(fake_.objects.size(), 1u);
  EXPECT_EQ(io->request_counts().delete_, 1);
}

TEST_F(S3FileIOTest, ListRejectsMalformedPages) {
  auto io = Make();
  const char* bodies[] = {
      "not xml",
      "<Error><Code>x</Code></Error>",
      "<ListBucketResult><IsTruncated>true</IsTruncated></ListBucketResult>",
      "<ListBucketResult><Contents><Key>k</Key><Size>-1</Size>"
      "<LastModified>2026-01-02T03:04:05Z</LastModified></Contents></ListBucketResult>",
      "<ListBucketResult><Contents><Key>k</Key><Size>1</Size>"
      "<LastModified>yesterday</LastModified></Contents></ListBucketResult>",
  };
  for (const char* body : bodies) {
    fake_.faults.push_back(FakeS3::Reply(200, body));
    auto r = io->List("s3://b/");
    EXPECT_FALSE(r.has_value()) << body;
  }
}

TEST(S3Options, PropertiesBeatEnvironment) {
  std::map<std::string, std::string> env = {{"AWS_ACCESS_KEY_ID", "env-key"},
                                            {"AWS_SECRET_ACCESS_KEY", "env-secret"},
                                            {"AWS_REGION", "eu-west-1"},
                                            {"AWS_ENDPOINT_URL", "http://generic:1"},
                                            {"AWS_ENDPOINT_URL_S3", "http://s3-specific:2"},
                                            {"AWS_SESSION_TOKEN", "tok"}};
  auto getenv = [&](const char* name) -> const char* {
    auto it = env.find(name);
    return it == env.end() ? nullptr : it->second.c_str();
  };
  auto o = S3Options::FromProperties({}, getenv);
  ASSERT_TRUE(o.has_value());
  EXPECT_EQ(o->endpoint, "http://s3-specific:2");
  EXPECT_EQ(o->region, "eu-west-1");
  EXPECT_EQ(o->credentials.access_key_id, "env-key");
  EXPECT_EQ(o->credentials.session_token, "tok");
  EXPECT_FALSE(o->path_style.has_value());

  auto p = S3Options::FromProperties({{"s3.endpoint", "http://minio:9000"},
                                      {"s3.access-key-id", "k"},
                                      {"s3.secret-access-key", "s"},
                                      {"s3.region", "cn-hangzhou"},
                                      {"s3.path-style-access", "false"},
                                      {"s3.multipart.size", "16777216"}},
                                     getenv);
  ASSERT_TRUE(p.has_value());
  EXPECT_EQ(p->endpoint, "http://minio:9000");
  EXPECT_EQ(p->credentials.access_key_id, "k");
  EXPECT_EQ(p->region, "cn-hangzhou");
  EXPECT_EQ(p->path_style, false);
  EXPECT_EQ(p->part_size_bytes, 16u << 20);

  EXPECT_FALSE(S3Options::FromProperties({{"s3.path-style-access", "maybe"}}, nullptr).has_value());
  EXPECT_FALSE(S3Options::FromProperties({{"s3.multipart.size", "1024"}}, nullptr).has_value());
  EXPECT_FALSE(S3Options::FromProperties({{"s3.access-key-id", "k"}}, nullptr).has_value());
  auto none = S3Options::FromProperties({}, nullptr);
  ASSERT_TRUE(none.has_value());
  EXPECT_EQ(none->region, "us-east-1");
}

TEST(S3FileIOAddressing, VirtualHostedOnAwsAndSessionToken) {
  std::vector<ClientRequest> seen;
  S3Options o;
  o.region = "eu-central-1";
  o.credentials = {"AKID", "SECRET", "session"};
  o.transport = [&](const ClientRequest& r) -> Result<ClientResponse> {
    seen.push_back(r);
    ClientResponse resp;
    resp.status = 404;
    return resp;
  };
  auto io = S3FileIO::Make(o);
  ASSERT_TRUE(io.has_value());
  EXPECT_FALSE(*(*io)->Exists("s3://my-bucket/a/b.parquet"));
  ASSERT_EQ(seen.size(), 1u);
  EXPECT_EQ(seen[0].url, "https://my-bucket.s3.eu-central-1.amazonaws.com/a/b.parquet");
  std::string auth, token;
  for (const auto& [k, v] : seen[0].headers) {
    if (k == "authorization") auth = v;
    if (k == "x-amz-security-token") token = v;
  }
  EXPECT_EQ(token, "session");
  EXPECT_NE(auth.find("SignedHeaders=host;x-amz-content-sha256;x-amz-date;x-amz-security-token"),
            std::string::npos);

  o.endpoint = "https://oss-cn-hangzhou.aliyuncs.com/";
  o.path_style = false;
  seen.clear();
  auto oss = S3FileIO::Make(o);
  ASSERT_TRUE(oss.has_value());
  EXPECT_FALSE(*(*oss)->Exists("s3://bkt/k"));
  EXPECT_EQ(seen[0].url, "https://bkt.oss-cn-hangzhou.aliyuncs.com/k");

  o.endpoint = "ftp://x";
  EXPECT_EQ(S3FileIO::Make(o).error().code(), StatusCode::kInvalidArgument);
}

TEST(S3Location, Parse) {
  auto l = S3Location::Parse("s3a://bucket/a/b");
  ASSERT_TRUE(l.has_value());
  EXPECT_EQ(l->scheme, "s3a");
  EXPECT_EQ(l->bucket, "bucket");
  EXPECT_EQ(l->key, "a/b");
  EXPECT_FALSE(S3Location::Parse("s3:///key").has_value());
  EXPECT_FALSE(S3Location::Parse("gs://b/k").has_value());
}

TEST(S3Timestamp, Parse) {
  EXPECT_EQ(*ParseS3Timestamp("2009-10-12T17:50:30.000Z"), 1255369830000);
  EXPECT_EQ(*ParseS3Timestamp("2009-10-12T17:50:30Z"), 1255369830000);
  EXPECT_EQ(*ParseS3Timestamp("2009-10-12T17:50:30.5Z"), 1255369830500);
  EXPECT_FALSE(ParseS3Timestamp("2009-10-12 17:50:30Z").has_value());
  EXPECT_FALSE(ParseS3Timestamp("2009-13-12T17:50:30Z").has_value());
  EXPECT_FALSE(ParseS3Timestamp("").has_value());
}

TEST(MakeFileIO, RoutesBySchemeAndRefusesRenameOnS3) {
  auto io = MakeFileIO({{"s3.endpoint", "http://127.0.0.1:1"}}, nullptr);
  ASSERT_TRUE(io.has_value());
  EXPECT_EQ((*io)->RenameNoReplace("s3://b/x", "s3://b/y").code(), StatusCode::kUnimplemented);
  EXPECT_EQ((*io)->RenameNoReplace("/tmp/x", "s3://b/y").code(), StatusCode::kUnimplemented);
  // A local path goes to LocalFileIO.
  EXPECT_EQ((*io)->Exists("/nonexistent/floe/s3/test").value(), false);
  EXPECT_FALSE(MakeFileIO({{"s3.endpoint", "nohost"}}, nullptr).has_value());
}

}  // namespace
}  // namespace floe::io::s3
