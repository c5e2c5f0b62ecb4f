// AWS STS AssumeRole over the query API (AWS STS API Reference, "AssumeRole"; "Making Query
// Requests"): a form-encoded POST signed with SigV4 for service "sts", and the
// AssumeRoleResponse / ErrorResponse XML it answers. What the REST catalog uses to vend
// short-lived, scoped credentials (rest/credential_vendor.h). Works against AWS STS, MinIO's
// STS (served at the S3 endpoint) and moto.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

#include "floe/base/status.h"
#include "floe/http/http_client.h"
#include "floe/io/s3/sigv4.h"

namespace floe::io::s3 {

// Sends one HTTP request; tests inject a fake. Default: a new HttpClient per call (STS calls
// are rare: their answers are cached for most of their lifetime).
using StsTransport = std::function<Result<http::ClientResponse>(const http::ClientRequest&)>;

struct StsOptions {
  // http(s)://host[:port][/base]; empty: https://sts.<region>.amazonaws.com.
  std::string endpoint;
  std::string region = "us-east-1";
  // Who asks: the caller's own (long-lived or session) keys.
  AwsCredentials credentials;
  StsTransport transport;
  std::function<std::chrono::system_clock::time_point()> now;
};

struct AssumeRoleRequest {
  std::string role_arn;
  std::string role_session_name;  // 2..64 of [A-Za-z0-9+=,.@_-]
  std::string external_id;        // sent when not empty
  std::string policy;             // session policy JSON, sent when not empty
  int64_t duration_seconds = 3600;
};

struct TemporaryCredentials {
  AwsCredentials credentials;  // session_token always set
  int64_t expires_at_ms = 0;
};

// The signed POST for `request` at `unix_seconds`. Errors: kInvalidArgument (a malformed
// endpoint, no keys, an empty role ARN or session name).
Result<http::ClientRequest> BuildAssumeRoleRequest(const StsOptions& options,
                                                   const AssumeRoleRequest& request,
                                                   int64_t unix_seconds);

// Reads an STS answer. A 2xx AssumeRoleResponse gives the credentials; an ErrorResponse
// gives kPermissionDenied (AccessDenied, 403), kUnavailable (throttling, 5xx) or
// kInvalidArgument (other 4xx: a malformed policy, a bad duration), with STS's code and
// message. Anything else (not XML, a DOCTYPE, missing fields) is kCorrupt.
Result<TemporaryCredentials> ParseAssumeRoleResponse(int status, std::string_view body);

// Calls AssumeRole once (no retry: the REST client that asked retries its own request).
// Errors: as above, and the transport's (kUnavailable, kDeadlineExceeded).
Result<TemporaryCredentials> AssumeRole(const StsOptions& options,
                                        const AssumeRoleRequest& request);

}  // namespace floe::io::s3
