// Avro binary encoding primitives (spec, "Binary Encoding"): zig-zag varint ints and
// longs, and the big-endian two's complement byte forms of decimals.
#pragma once

#include <cstdint>
#include <cstring>
#include <span>

#include "floe/base/buffer.h"
#include "floe/base/bytes.h"
#include "floe/base/status.h"

namespace floe::format::avro {

// Appends `v` as an Avro long (zig-zag, then ULEB128).
inline void AppendLong(Buffer* out, int64_t v) {
  uint8_t tmp[10];
  size_t n = EncodeVarint64(ZigZagEncode64(v), tmp);
  out->Append(tmp, n);
}

// Appends an Avro int. Ints and longs share one encoding.
inline void AppendInt(Buffer* out, int32_t v) { AppendLong(out, v); }

// Appends bytes or a string: its length as a long, then the bytes.
inline void AppendBytes(Buffer* out, const void* data, size_t n) {
  AppendLong(out, static_cast<int64_t>(n));
  out->Append(data, n);
}

// Writes the shortest big-endian two's complement form of `v` (at least one byte) into
// `out[16]`, right-aligned; returns the number of bytes, which end at out + 16. This is
// Java's BigInteger.toByteArray(), the form Iceberg and Avro Java write for decimals.
inline size_t DecimalToMinimalBytes(__int128 v, uint8_t out[16]) {
  auto u = static_cast<unsigned __int128>(v);
  for (int i = 15; i >= 0; --i) {
    out[i] = static_cast<uint8_t>(u);
    u >>= 8;
  }
  size_t start = 0;
  // Drop a leading byte while it is pure sign extension of the next one.
  while (start < 15) {
    uint8_t b = out[start];
    uint8_t next_sign = (out[start + 1] & 0x80) ? 0xFF : 0x00;
    if (b != next_sign) break;
    ++start;
  }
  return 16 - start;
}

// Writes `v` sign-extended to exactly `size` big-endian bytes (a decimal on a fixed).
// kInvalidArgument when it does not fit.
inline Status DecimalToFixedBytes(__int128 v, int32_t size, uint8_t* out) {
  uint8_t minimal[16];
  size_t n = DecimalToMinimalBytes(v, minimal);
  if (size < 0 || n > static_cast<size_t>(size)) {
    return Status::InvalidArgument("decimal value needs {} bytes, the fixed holds {}", n, size);
  }
  uint8_t fill = v < 0 ? 0xFF : 0x00;
  size_t pad = static_cast<size_t>(size) - n;
  std::memset(out, fill, pad);
  std::memcpy(out + pad, minimal + 16 - n, n);
  return Status::OK();
}

// Reads a big-endian two's complement integer of any length (empty means 0). Longer forms
// are accepted when the extra leading bytes are sign extension; values beyond 128 bits
// are kCorrupt.
inline Result<__int128> DecimalFromBytes(std::span<const uint8_t> bytes) {
  if (bytes.empty()) return __int128{0};
  uint8_t sign = (bytes[0] & 0x80) ? 0xFF : 0x00;
  size_t start = 0;
  while (bytes.size() - start > 16) {
    if (bytes[start] != sign) return Status::Corrupt("decimal value exceeds 128 bits");
    ++start;
  }
  if (start > 0 && ((bytes[start] & 0x80) ? 0xFF : 0x00) != sign) {
    return Status::Corrupt("decimal value exceeds 128 bits");
  }
  unsigned __int128 u = sign ? ~static_cast<unsigned __int128>(0) : 0;
  for (size_t i = start; i < bytes.size(); ++i) u = (u << 8) | bytes[i];
  return static_cast<__int128>(u);
}

}  // namespace floe::format::avro
