// AWS Signature Version 4 for S3 requests (AWS General Reference, "Signature Version 4
// signing process"; Amazon S3 API Reference, "Authenticating Requests (AWS Signature
// Version 4)"): the canonical request, the string to sign, the derived signing key and the
// Authorization header. Pure functions over values: no clock, no network.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace floe::io::s3 {

struct AwsCredentials {
  std::string access_key_id;
  std::string secret_access_key;
  std::string session_token;  // empty unless temporary credentials
};

// The x-amz-content-sha256 value that leaves the body out of the signature (S3 only).
inline constexpr std::string_view kUnsignedPayload = "UNSIGNED-PAYLOAD";

struct SigningRequest {
  std::string method;
  // The path exactly as sent (already percent-encoded, see UriEncode); "" means "/".
  std::string path;
  // Query parameters, not yet encoded; order does not matter (they are sorted).
  std::vector<std::pair<std::string, std::string>> query;
  // Headers to sign: must include host. Names in any case.
  std::vector<std::pair<std::string, std::string>> headers;
  // Hex SHA-256 of the body, or kUnsignedPayload.
  std::string payload_hash;
};

struct SigningScope {
  std::string amz_date;  // ISO 8601 basic: 20150830T123600Z
  std::string region;
  std::string service;  // "s3"
};

// Percent-encodes every byte except A-Z a-z 0-9 - . _ ~ (and '/' when keep_slash), with
// uppercase hex, as SigV4 requires of paths and query parameters.
std::string UriEncode(std::string_view text, bool keep_slash);

// Lowercase hex of SHA-256(data).
std::string Sha256Hex(std::string_view data);
// Base64 of MD5(data) (the Content-MD5 header DeleteObjects requires).
std::string Md5Base64(std::string_view data);
// Lowercase hex of MD5(data) (an S3 single-part ETag).
std::string Md5Hex(std::string_view data);

// The canonical request (method, URI, query, headers, signed header names, payload hash
// joined by newlines). S3 paths are used as given, without normalization or a second
// encoding.
std::string CanonicalRequest(const SigningRequest& request);
// "host;x-amz-date;..." : the lowercase names of the signed headers, sorted.
std::string SignedHeaderNames(const SigningRequest& request);
std::string StringToSign(const SigningScope& scope, std::string_view canonical_request);
// Hex HMAC-SHA256 signature of `string_to_sign` with the key derived from the secret, date,
// region and service.
std::string Signature(std::string_view secret_access_key, const SigningScope& scope,
                      std::string_view string_to_sign);
// The Authorization header value.
std::string AuthorizationHeader(const AwsCredentials& credentials, const SigningScope& scope,
                                const SigningRequest& request);

// Formats seconds since the epoch as an x-amz-date value.
std::string AmzDate(int64_t unix_seconds);

}  // namespace floe::io::s3
