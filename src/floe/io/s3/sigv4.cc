#include "floe/io/s3/sigv4.h"

#include <openssl/evp.h>
#include <openssl/hmac.h>

#include <algorithm>
#include <cctype>
#include <ctime>
#include <map>

#include <fmt/format.h>

namespace floe::io::s3 {

namespace {

constexpr char kHexLower[] = "0123456789abcdef";

std::string HexLower(const unsigned char* data, size_t n) {
  std::string out;
  out.reserve(2 * n);
  for (size_t i = 0; i < n; ++i) {
    out += kHexLower[data[i] >> 4];
    out += kHexLower[data[i] & 0xF];
  }
  return out;
}

std::string Digest(const EVP_MD* md, std::string_view data) {
  unsigned char out[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  // EVP_Digest only fails on allocation failure; an empty digest then fails the signature
  // check at the server instead of crashing here.
  if (EVP_Digest(data.data(), data.size(), out, &len, md, nullptr) != 1) return {};
  return std::string(reinterpret_cast<const char*>(out), len);
}

std::string HmacSha256(std::string_view key, std::string_view data) {
  unsigned char out[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  if (HMAC(EVP_sha256(), key.data(), static_cast<int>(key.size()),
           reinterpret_cast<const unsigned char*>(data.data()), data.size(), out,
           &len) == nullptr) {
    return {};
  }
  return std::string(reinterpret_cast<const char*>(out), len);
}

bool Unreserved(unsigned char c) {
  return std::isalnum(c) || c == '-' || c == '.' || c == '_' || c == '~';
}

// Trims the value and collapses runs of spaces to one (SigV4 canonical headers).
std::string CanonicalHeaderValue(std::string_view value) {
  std::string out;
  bool space = false;
  for (char c : value) {
    if (c == ' ' || c == '\t') {
      space = true;
      continue;
    }
    if (space && !out.empty()) out += ' ';
    space = false;
    out += c;
  }
  return out;
}

std::string Lower(std::string_view s) {
  std::string out(s);
  std::transform(out.begin(), out.end(), out.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return out;
}

// Lowercase names to their values; a repeated header's values joined by commas.
std::map<std::string, std::string> CanonicalHeaders(const SigningRequest& request) {
  std::map<std::string, std::string> headers;
  for (const auto& [name, value] : request.headers) {
    std::string& slot = headers[Lower(name)];
    if (!slot.empty()) slot += ',';
    slot += CanonicalHeaderValue(value);
  }
  return headers;
}

std::string Base64(std::string_view data) {
  std::string out(4 * ((data.size() + 2) / 3) + 1, '\0');
  int n = EVP_EncodeBlock(reinterpret_cast<unsigned char*>(out.data()),
                          reinterpret_cast<const unsigned char*>(data.data()),
                          static_cast<int>(data.size()));
  out.resize(n < 0 ? 0 : static_cast<size_t>(n));
  return out;
}

}  // namespace

std::string UriEncode(std::string_view text, bool keep_slash) {
  std::string out;
  out.reserve(text.size());
  for (char ch : text) {
    auto c = static_cast<unsigned char>(ch);
    if (Unreserved(c) || (keep_slash && c == '/')) {
      out += ch;
    } else {
      out += '%';
      out += "0123456789ABCDEF"[c >> 4];
      out += "0123456789ABCDEF"[c & 0xF];
    }
  }
  return out;
}

std::string Sha256Hex(std::string_view data) {
  std::string d = Digest(EVP_sha256(), data);
  return HexLower(reinterpret_cast<const unsigned char*>(d.data()), d.size());
}

std::string Md5Base64(std::string_view data) { return Base64(Digest(EVP_md5(), data)); }

std::string Md5Hex(std::string_view data) {
  std::string d = Digest(EVP_md5(), data);
  return HexLower(reinterpret_cast<const unsigned char*>(d.data()), d.size());
}

std::string SignedHeaderNames(const SigningRequest& request) {
  std::string out;
  for (const auto& [name, value] : CanonicalHeaders(request)) {
    if (!out.empty()) out += ';';
    out += name;
  }
  return out;
}

std::string CanonicalRequest(const SigningRequest& request) {
  std::vector<std::pair<std::string, std::string>> query;
  query.reserve(request.query.size());
  for (const auto& [key, value] : request.query) {
    query.emplace_back(UriEncode(key, false), UriEncode(value, false));
  }
  std::sort(query.begin(), query.end());
  std::string out = request.method;
  out += '\n';
  out += request.path.empty() ? "/" : request.path;
  out += '\n';
  for (size_t i = 0; i < query.size(); ++i) {
    if (i > 0) out += '&';
    out += query[i].first;
    out += '=';
    out += query[i].second;
  }
  out += '\n';
  for (const auto& [name, value] : CanonicalHeaders(request)) {
    out += name;
    out += ':';
    out += value;
    out += '\n';
  }
  out += '\n';
  out += SignedHeaderNames(request);
  out += '\n';
  out += request.payload_hash;
  return out;
}

std::string StringToSign(const SigningScope& scope, std::string_view canonical_request) {
  return fmt::format("AWS4-HMAC-SHA256\n{}\n{}/{}/{}/aws4_request\n{}", scope.amz_date,
                     scope.amz_date.substr(0, 8), scope.region, scope.service,
                     Sha256Hex(canonical_request));
}

std::string Signature(std::string_view secret_access_key, const SigningScope& scope,
                      std::string_view string_to_sign) {
  std::string key = HmacSha256("AWS4" + std::string(secret_access_key),
                               std::string_view(scope.amz_date).substr(0, 8));
  key = HmacSha256(key, scope.region);
  key = HmacSha256(key, scope.service);
  key = HmacSha256(key, "aws4_request");
  std::string sig = HmacSha256(key, string_to_sign);
  return HexLower(reinterpret_cast<const unsigned char*>(sig.data()), sig.size());
}

std::string AuthorizationHeader(const AwsCredentials& credentials, const SigningScope& scope,
                                const SigningRequest& request) {
  std::string string_to_sign = StringToSign(scope, CanonicalRequest(request));
  return fmt::format(
      "AWS4-HMAC-SHA256 Credential={}/{}/{}/{}/aws4_request, SignedHeaders={}, Signature={}",
      credentials.access_key_id, scope.amz_date.substr(0, 8), scope.region, scope.service,
      SignedHeaderNames(request), Signature(credentials.secret_access_key, scope, string_to_sign));
}

std::string AmzDate(int64_t unix_seconds) {
  std::time_t t = static_cast<std::time_t>(unix_seconds);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  size_t n = std::strftime(buf, sizeof(buf), "%Y%m%dT%H%M%SZ", &tm);
  return std::string(buf, n);
}

}  // namespace floe::io::s3
