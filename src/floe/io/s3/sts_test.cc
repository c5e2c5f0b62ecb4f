// STS AssumeRole: the signed request against botocore's SigV4 signer (botocore 1.44, service
// "sts", the same body and time), and the answers of the STS API reference (AssumeRole
// example response, ErrorResponse) through a fake transport.
#include "floe/io/s3/sts.h"

#include <gtest/gtest.h>

namespace floe::io::s3 {
namespace {

constexpr int64_t kSignedAt = 1796146787;  // 2026-12-01T17:39:47Z

StsOptions Options() {
  StsOptions options;
  options.region = "us-east-1";
  options.credentials = {"AKIDEXAMPLE", "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY", ""};
  return options;
}

AssumeRoleRequest Request() {
  AssumeRoleRequest r;
  r.role_arn = "arn:aws:iam::123456789012:role/floe-data";
  r.role_session_name = "floe-lake";
  r.external_id = "ext-1";
  r.policy = R"({"Version":"2012-10-17"})";
  r.duration_seconds = 900;
  return r;
}

std::string HeaderOf(const http::ClientRequest& r, std::string_view name) {
  for (const auto& [k, v] : r.headers) {
    if (k == name) return v;
  }
  return "";
}

TEST(Sts, RequestIsSignedAsBotocoreSignsIt) {
  auto request = BuildAssumeRoleRequest(Options(), Request(), kSignedAt);
  ASSERT_TRUE(request.has_value()) << request.error().ToString();
  EXPECT_EQ(request->method, "POST");
  EXPECT_EQ(request->url, "https://sts.us-east-1.amazonaws.com/");
  // botocore.utils.percent_encode_sequence of the same parameters.
  EXPECT_EQ(request->body,
            "Action=AssumeRole&Version=2011-06-15&RoleArn=arn%3Aaws%3Aiam%3A%3A123456789012%3A"
            "role%2Ffloe-data&RoleSessionName=floe-lake&DurationSeconds=900&ExternalId=ext-1&"
            "Policy=%7B%22Version%22%3A%222012-10-17%22%7D");
  EXPECT_EQ(HeaderOf(*request, "x-amz-date"), "20261201T173947Z");
  EXPECT_EQ(HeaderOf(*request, "authorization"),
            "AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20261201/us-east-1/sts/aws4_request, "
            "SignedHeaders=content-type;host;x-amz-date, "
            "Signature=20962e67ab8dcc22b3c043bfd092bdb061623fa7e0359bf54d2b6eafd7be3237");
}

TEST(Sts, SessionKeysSignTheirToken) {
  StsOptions options = Options();
  options.credentials.session_token = "FwoGZXIvYXdzEXAMPLETOKEN";
  auto request = BuildAssumeRoleRequest(options, Request(), kSignedAt);
  ASSERT_TRUE(request.has_value()) << request.error().ToString();
  EXPECT_EQ(HeaderOf(*request, "x-amz-security-token"), "FwoGZXIvYXdzEXAMPLETOKEN");
  EXPECT_EQ(HeaderOf(*request, "authorization"),
            "AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20261201/us-east-1/sts/aws4_request, "
            "SignedHeaders=content-type;host;x-amz-date;x-amz-security-token, "
            "Signature=a09f992ffd2b1442e6767cfb3d60402c83a173c5f68394cea15ed12e48432150");
}

TEST(Sts, CustomEndpointAndRefusedInputs) {
  StsOptions options = Options();
  options.endpoint = "http://127.0.0.1:9000/";
  auto request = BuildAssumeRoleRequest(options, Request(), kSignedAt);
  ASSERT_TRUE(request.has_value()) << request.error().ToString();
  EXPECT_EQ(request->url, "http://127.0.0.1:9000/");

  options.endpoint = "ftp://host";
  EXPECT_EQ(BuildAssumeRoleRequest(options, Request(), kSignedAt).error().code(),
            StatusCode::kInvalidArgument);
  options = Options();
  options.credentials = {};
  EXPECT_EQ(BuildAssumeRoleRequest(options, Request(), kSignedAt).error().code(),
            StatusCode::kInvalidArgument);
  AssumeRoleRequest bad = Request();
  bad.role_session_name = "has space";
  EXPECT_EQ(BuildAssumeRoleRequest(Options(), bad, kSignedAt).error().code(),
            StatusCode::kInvalidArgument);
}

// The STS API reference's AssumeRole example response (pretty-printed, token indented).
constexpr char kAssumeRoleResponse[] =
    R"(<AssumeRoleResponse xmlns="https://sts.amazonaws.com/doc/2011-06-15/">
  <AssumeRoleResult>
  <SourceIdentity>Alice</SourceIdentity>
    <AssumedRoleUser>
      <Arn>arn:aws:sts::123456789012:assumed-role/demo/TestAR</Arn>
      <AssumedRoleId>ARO123EXAMPLE123:TestAR</AssumedRoleId>
    </AssumedRoleUser>
    <Credentials>
      <AccessKeyId>ASIAIOSFODNN7EXAMPLE</AccessKeyId>
      <SecretAccessKey>wJalrXUtnFEMI/K7MDENG/bPxRfiCYzEXAMPLEKEY</SecretAccessKey>
      <SessionToken>
       AQoDYXdzEPT//////////wEXAMPLEtc764bNrC9SAPBSM22wDOk4x4HIZ8j4FZTwdQWLWsKWHGBuFqwAeMicRXmxfpSPfIeoIYRqTflfKD8YUuwthAx7mSEI/qkPpKPi/kMcGdQrmGdeehM4IC1NtBmUpp2wUE8phUZampKsburEDy0KPkyQDYwT7WZ0wq5VSXDvp75YU9HFvlRd8Tx6q6fE8YQcHNVXAkiY9q6d+xo0rKwT38xVqr7ZD0u0iPPkUL64lIZbqBAz+scqKmlzm8FDrypNC9Yjc8fPOLn9FX9KSYvKTr4rvx3iSIlTJabIQwj2ICCR/oLxBA==
      </SessionToken>
      <Expiration>2019-11-09T13:34:41Z</Expiration>
    </Credentials>
    <PackedPolicySize>6</PackedPolicySize>
  </AssumeRoleResult>
  <ResponseMetadata>
    <RequestId>c6104cbe-af31-11e0-8154-cbc7ccf896c7</RequestId>
  </ResponseMetadata>
</AssumeRoleResponse>)";

TEST(Sts, ParsesTheReferenceResponse) {
  auto parsed = ParseAssumeRoleResponse(200, kAssumeRoleResponse);
  ASSERT_TRUE(parsed.has_value()) << parsed.error().ToString();
  EXPECT_EQ(parsed->credentials.access_key_id, "ASIAIOSFODNN7EXAMPLE");
  EXPECT_EQ(parsed->credentials.secret_access_key, "wJalrXUtnFEMI/K7MDENG/bPxRfiCYzEXAMPLEKEY");
  EXPECT_TRUE(parsed->credentials.session_token.starts_with("AQoDYXdzEPT//////////wEXAMPLE"));
  EXPECT_TRUE(parsed->credentials.session_token.ends_with("LxBA=="));
  EXPECT_EQ(parsed->expires_at_ms, 1573306481000);
}

TEST(Sts, ErrorResponsesMapToCodes) {
  auto error = [](std::string_view code, std::string_view type) {
    return "<ErrorResponse xmlns=\"https://sts.amazonaws.com/doc/2011-06-15/\"><Error><Type>" +
           std::string(type) + "</Type><Code>" + std::string(code) +
           "</Code><Message>User: arn:aws:iam::123456789012:user/floe is not authorized to "
           "perform: sts:AssumeRole</Message></Error><RequestId>4d1b</RequestId>"
           "</ErrorResponse>";
  };
  auto denied = ParseAssumeRoleResponse(403, error("AccessDenied", "Sender"));
  ASSERT_FALSE(denied.has_value());
  EXPECT_EQ(denied.error().code(), StatusCode::kPermissionDenied);
  EXPECT_NE(denied.error().message().find("AccessDenied"), std::string::npos);
  EXPECT_NE(denied.error().message().find("not authorized"), std::string::npos);
  EXPECT_EQ(ParseAssumeRoleResponse(400, error("MalformedPolicyDocument", "Sender")).error().code(),
            StatusCode::kInvalidArgument);
  EXPECT_EQ(ParseAssumeRoleResponse(400, error("Throttling", "Sender")).error().code(),
            StatusCode::kUnavailable);
  EXPECT_EQ(ParseAssumeRoleResponse(503, "<html>busy</html>").error().code(),
            StatusCode::kUnavailable);
}

TEST(Sts, UntrustedBodiesAreCorruptNotCrashes) {
  const char* bodies[] = {
      "",
      "not xml at all",
      "<AssumeRoleResponse><AssumeRoleResult>",  // truncated
      "<!DOCTYPE x [<!ENTITY a \"b\">]><AssumeRoleResponse/>",
      "<AssumeRoleResponse><AssumeRoleResult/></AssumeRoleResponse>",
      "<AssumeRoleResponse><AssumeRoleResult><Credentials><AccessKeyId>ASIA</AccessKeyId>"
      "</Credentials></AssumeRoleResult></AssumeRoleResponse>",
      "<AssumeRoleResponse><AssumeRoleResult><Credentials><AccessKeyId>ASIA</AccessKeyId>"
      "<SecretAccessKey>s</SecretAccessKey><SessionToken>t</SessionToken>"
      "<Expiration>tomorrow</Expiration></Credentials></AssumeRoleResult></AssumeRoleResponse>",
      "<GetCallerIdentityResponse/>",
  };
  for (const char* body : bodies) {
    auto parsed = ParseAssumeRoleResponse(200, body);
    ASSERT_FALSE(parsed.has_value()) << body;
    EXPECT_EQ(parsed.error().code(), StatusCode::kCorrupt) << body;
  }
  std::string deep;
  for (int i = 0; i < 10'000; ++i) deep += "<a>";
  EXPECT_EQ(ParseAssumeRoleResponse(200, deep).error().code(), StatusCode::kCorrupt);
  EXPECT_EQ(ParseAssumeRoleResponse(400, "<ErrorResponse><Error/></ErrorResponse>").error().code(),
            StatusCode::kCorrupt);
}

TEST(Sts, AssumeRoleSendsThroughTheTransport) {
  StsOptions options = Options();
  options.endpoint = "http://sts.test:8080";
  options.now = [] {
    return std::chrono::system_clock::time_point(std::chrono::seconds(kSignedAt));
  };
  http::ClientRequest seen;
  options.transport = [&](const http::ClientRequest& r) -> Result<http::ClientResponse> {
    seen = r;
    http::ClientResponse response;
    response.status = 200;
    response.body = kAssumeRoleResponse;
    return response;
  };
  auto credentials = AssumeRole(options, Request());
  ASSERT_TRUE(credentials.has_value()) << credentials.error().ToString();
  EXPECT_EQ(credentials->credentials.access_key_id, "ASIAIOSFODNN7EXAMPLE");
  EXPECT_EQ(seen.url, "http://sts.test:8080/");
  EXPECT_EQ(HeaderOf(seen, "host"), "sts.test:8080");

  options.transport = [](const http::ClientRequest&) -> Result<http::ClientResponse> {
    return Status::Unavailable("connection refused");
  };
  EXPECT_EQ(AssumeRole(options, Request()).error().code(), StatusCode::kUnavailable);
}

}  // namespace
}  // namespace floe::io::s3
