// The few cryptographic primitives authentication needs, on OpenSSL's libcrypto: SHA-256 and
// SHA-512, their HMACs, PBKDF2 (SCRAM's Hi), a constant-time comparison, CSPRNG bytes, and
// the hex and base64 text forms credentials travel in.
//
// Thread-safety: every function may be called concurrently.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "floe/base/status.h"

namespace floe::auth {

inline constexpr size_t kSha256Bytes = 32;

// The 32-byte SHA-256 digest of `data` (FIPS 180-4).
std::string Sha256(std::string_view data);
// The 32-byte HMAC-SHA256 of `data` under `key` (RFC 2104).
std::string HmacSha256(std::string_view key, std::string_view data);

// The hash functions SCRAM is defined over (RFC 7677 SHA-256, RFC 5802 §5 for any hash;
// Kafka adds SHA-512).
enum class HashAlgorithm : uint8_t { kSha256, kSha512 };
// The digest size of `algorithm` in bytes (32 or 64).
size_t DigestBytes(HashAlgorithm algorithm);
// The digest of `data`.
std::string Hash(HashAlgorithm algorithm, std::string_view data);
// The HMAC of `data` under `key` (RFC 2104).
std::string Hmac(HashAlgorithm algorithm, std::string_view key, std::string_view data);
// PBKDF2 with HMAC (RFC 8018 §5.2), one block of the digest size: SCRAM's Hi(password, salt,
// iterations) (RFC 5802 §2.2). kInvalidArgument for iterations < 1.
Result<std::string> Pbkdf2(HashAlgorithm algorithm, std::string_view password,
                           std::string_view salt, int iterations);

// Whether a == b, in a time that depends on the lengths only (not on where they differ).
bool ConstantTimeEquals(std::string_view a, std::string_view b);
// `n` bytes from OpenSSL's CSPRNG. kInternal when it cannot be seeded.
Result<std::string> RandomBytes(size_t n);

// Lowercase hex of `bytes`.
std::string HexEncode(std::string_view bytes);
// Bytes of a hex string (either case). kInvalidArgument for odd length or a non-hex digit.
Result<std::string> HexDecode(std::string_view hex);
// Bytes of standard padded base64 (RFC 4648 §4), as HTTP Basic credentials carry them.
// kInvalidArgument for malformed text.
Result<std::string> Base64Decode(std::string_view text);
// Standard padded base64 (RFC 4648 §4) of `bytes`.
std::string Base64Encode(std::string_view bytes);

}  // namespace floe::auth
