#include "floe/auth/crypto.h"

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/rand.h>
#include <openssl/sha.h>

#include <limits>

namespace floe::auth {

namespace {

const unsigned char* Bytes(std::string_view s) {
  return reinterpret_cast<const unsigned char*>(s.data());
}

}  // namespace

std::string Sha256(std::string_view data) {
  std::string out(kSha256Bytes, '\0');
  SHA256(Bytes(data), data.size(), reinterpret_cast<unsigned char*>(out.data()));
  return out;
}

std::string HmacSha256(std::string_view key, std::string_view data) {
  std::string out(kSha256Bytes, '\0');
  unsigned int length = 0;
  // Only fails on allocation failure or a key longer than int (the keys are 32 bytes).
  HMAC(EVP_sha256(), key.data(), static_cast<int>(key.size()), Bytes(data), data.size(),
       reinterpret_cast<unsigned char*>(out.data()), &length);
  out.resize(length);
  return out;
}

namespace {
const EVP_MD* Md(HashAlgorithm algorithm) {
  return algorithm == HashAlgorithm::kSha512 ? EVP_sha512() : EVP_sha256();
}
}  // namespace

size_t DigestBytes(HashAlgorithm algorithm) {
  return algorithm == HashAlgorithm::kSha512 ? 64 : 32;
}

std::string Hash(HashAlgorithm algorithm, std::string_view data) {
  std::string out(DigestBytes(algorithm), '\0');
  if (algorithm == HashAlgorithm::kSha512) {
    SHA512(Bytes(data), data.size(), reinterpret_cast<unsigned char*>(out.data()));
  } else {
    SHA256(Bytes(data), data.size(), reinterpret_cast<unsigned char*>(out.data()));
  }
  return out;
}

std::string Hmac(HashAlgorithm algorithm, std::string_view key, std::string_view data) {
  std::string out(DigestBytes(algorithm), '\0');
  unsigned int length = 0;
  // Keys are digests or passwords bounded by the SASL message size, far below INT_MAX.
  HMAC(Md(algorithm), key.data(), static_cast<int>(key.size()), Bytes(data), data.size(),
       reinterpret_cast<unsigned char*>(out.data()), &length);
  out.resize(length);
  return out;
}

Result<std::string> Pbkdf2(HashAlgorithm algorithm, std::string_view password,
                           std::string_view salt, int iterations) {
  if (iterations < 1) return Status::InvalidArgument("PBKDF2 needs at least one iteration");
  if (password.size() > static_cast<size_t>(std::numeric_limits<int>::max()) ||
      salt.size() > static_cast<size_t>(std::numeric_limits<int>::max())) {
    return Status::InvalidArgument("PBKDF2 input too long");
  }
  std::string out(DigestBytes(algorithm), '\0');
  if (PKCS5_PBKDF2_HMAC(password.data(), static_cast<int>(password.size()), Bytes(salt),
                        static_cast<int>(salt.size()), iterations, Md(algorithm),
                        static_cast<int>(out.size()),
                        reinterpret_cast<unsigned char*>(out.data())) != 1) {
    return Status::Internal("PBKDF2 failed");
  }
  return out;
}

bool ConstantTimeEquals(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  return CRYPTO_memcmp(a.data(), b.data(), a.size()) == 0;
}

Result<std::string> RandomBytes(size_t n) {
  std::string out(n, '\0');
  if (n > static_cast<size_t>(std::numeric_limits<int>::max()) ||
      RAND_bytes(reinterpret_cast<unsigned char*>(out.data()), static_cast<int>(n)) != 1) {
    return Status::Internal("the system random number generator failed");
  }
  return out;
}

std::string HexEncode(std::string_view bytes) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string out;
  out.reserve(bytes.size() * 2);
  for (char c : bytes) {
    auto b = static_cast<unsigned char>(c);
    out.push_back(kDigits[b >> 4]);
    out.push_back(kDigits[b & 15]);
  }
  return out;
}

Result<std::string> HexDecode(std::string_view hex) {
  if (hex.size() % 2 != 0) return Status::InvalidArgument("odd number of hex digits");
  auto digit = [](char c) -> int {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
  };
  std::string out;
  out.reserve(hex.size() / 2);
  for (size_t i = 0; i < hex.size(); i += 2) {
    int hi = digit(hex[i]);
    int lo = digit(hex[i + 1]);
    if (hi < 0 || lo < 0) return Status::InvalidArgument("not a hex digit");
    out.push_back(static_cast<char>(hi << 4 | lo));
  }
  return out;
}

Result<std::string> Base64Decode(std::string_view text) {
  // EVP_DecodeBlock skips surrounding whitespace and accepts a few shapes RFC 4648 does not;
  // insist on the canonical one first.
  if (text.empty() || text.size() % 4 != 0 ||
      text.size() > static_cast<size_t>(std::numeric_limits<int>::max())) {
    return Status::InvalidArgument("malformed base64");
  }
  size_t padding = text.ends_with("==") ? 2 : text.ends_with('=') ? 1 : 0;
  for (char c : text.substr(0, text.size() - padding)) {
    bool ok = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
              c == '+' || c == '/';
    if (!ok) return Status::InvalidArgument("malformed base64");
  }
  std::string out(text.size() / 4 * 3, '\0');
  int n = EVP_DecodeBlock(reinterpret_cast<unsigned char*>(out.data()), Bytes(text),
                          static_cast<int>(text.size()));
  if (n < 0 || static_cast<size_t>(n) < padding) return Status::InvalidArgument("malformed base64");
  // EVP_DecodeBlock counts the zero bytes the padding stands for.
  out.resize(static_cast<size_t>(n) - padding);
  return out;
}

std::string Base64Encode(std::string_view bytes) {
  static constexpr char kAlphabet[] =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  out.reserve((bytes.size() + 2) / 3 * 4);
  size_t i = 0;
  for (; i + 3 <= bytes.size(); i += 3) {
    uint32_t v = static_cast<uint8_t>(bytes[i]) << 16 | static_cast<uint8_t>(bytes[i + 1]) << 8 |
                 static_cast<uint8_t>(bytes[i + 2]);
    out += kAlphabet[v >> 18];
    out += kAlphabet[(v >> 12) & 63];
    out += kAlphabet[(v >> 6) & 63];
    out += kAlphabet[v & 63];
  }
  if (size_t rest = bytes.size() - i; rest > 0) {
    uint32_t v = static_cast<uint8_t>(bytes[i]) << 16;
    if (rest == 2) v |= static_cast<uint8_t>(bytes[i + 1]) << 8;
    out += kAlphabet[v >> 18];
    out += kAlphabet[(v >> 12) & 63];
    out += rest == 2 ? kAlphabet[(v >> 6) & 63] : '=';
    out += '=';
  }
  return out;
}

}  // namespace floe::auth
