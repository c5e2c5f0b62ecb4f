// Little/big-endian loads and stores, and ByteReader: a bounds-checked cursor over
// untrusted bytes. Every read that could run past the end returns an error instead.
#pragma once

#include <bit>
#include <cstdint>
#include <cstring>
#include <span>
#include <string_view>
#include <type_traits>

#include "floe/base/macros.h"
#include "floe/base/status.h"

namespace floe {

static_assert(std::endian::native == std::endian::little, "floe assumes a little-endian host");

template <typename T>
inline T LoadLE(const void* p) {
  static_assert(std::is_trivially_copyable_v<T>);
  T v;
  std::memcpy(&v, p, sizeof(T));
  return v;
}

template <typename T>
inline void StoreLE(void* p, T v) {
  static_assert(std::is_trivially_copyable_v<T>);
  std::memcpy(p, &v, sizeof(T));
}

template <typename T>
inline T LoadBE(const void* p) {
  static_assert(std::is_integral_v<T>);
  return std::byteswap(LoadLE<T>(p));
}

template <typename T>
inline void StoreBE(void* p, T v) {
  static_assert(std::is_integral_v<T>);
  StoreLE<T>(p, std::byteswap(v));
}

// Reverses the bytes of a 128-bit value (clang has no __builtin_bswap128).
inline unsigned __int128 ByteSwap128(unsigned __int128 v) {
  const auto lo = static_cast<uint64_t>(v);
  const auto hi = static_cast<uint64_t>(v >> 64);
  return (static_cast<unsigned __int128>(__builtin_bswap64(lo)) << 64) | __builtin_bswap64(hi);
}

inline uint32_t ZigZagEncode32(int32_t n) {
  return (static_cast<uint32_t>(n) << 1) ^ static_cast<uint32_t>(n >> 31);
}
inline uint64_t ZigZagEncode64(int64_t n) {
  return (static_cast<uint64_t>(n) << 1) ^ static_cast<uint64_t>(n >> 63);
}
inline int32_t ZigZagDecode32(uint32_t n) {
  return static_cast<int32_t>((n >> 1) ^ (~(n & 1) + 1));
}
inline int64_t ZigZagDecode64(uint64_t n) {
  return static_cast<int64_t>((n >> 1) ^ (~(n & 1) + 1));
}

// The value of hexadecimal digit `c` (either case), or -1 for any other character.
inline int HexDigitValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// Writes `v` as ULEB128 into `out` (at least 10 bytes); returns the bytes written.
inline size_t EncodeVarint64(uint64_t v, uint8_t* out) {
  size_t n = 0;
  while (v >= 0x80) {
    out[n++] = static_cast<uint8_t>(v | 0x80);
    v >>= 7;
  }
  out[n++] = static_cast<uint8_t>(v);
  return n;
}

// A cursor over a byte range that is not trusted. Reads fail with kCorrupt when they
// would cross the end; the message names what was being read.
class ByteReader {
 public:
  ByteReader() = default;
  ByteReader(const uint8_t* data, size_t size) : pos_(data), end_(data + size) {}
  explicit ByteReader(std::span<const uint8_t> bytes)
      : pos_(bytes.data()), end_(bytes.data() + bytes.size()) {}
  explicit ByteReader(std::string_view bytes)
      : pos_(reinterpret_cast<const uint8_t*>(bytes.data())), end_(pos_ + bytes.size()) {}

  size_t remaining() const { return static_cast<size_t>(end_ - pos_); }
  bool empty() const { return pos_ == end_; }
  const uint8_t* position() const { return pos_; }

  Status Skip(size_t n) {
    if (FLOE_PREDICT_FALSE(n > remaining())) return Truncated(n);
    pos_ += n;
    return Status::OK();
  }

  // Returns a view of the next `n` bytes and advances past them.
  Result<std::span<const uint8_t>> Take(size_t n) {
    if (FLOE_PREDICT_FALSE(n > remaining())) return Truncated(n);
    std::span<const uint8_t> out(pos_, n);
    pos_ += n;
    return out;
  }

  template <typename T>
  Result<T> ReadLE() {
    if (FLOE_PREDICT_FALSE(sizeof(T) > remaining())) return Truncated(sizeof(T));
    T v = LoadLE<T>(pos_);
    pos_ += sizeof(T);
    return v;
  }

  template <typename T>
  Result<T> ReadBE() {
    if (FLOE_PREDICT_FALSE(sizeof(T) > remaining())) return Truncated(sizeof(T));
    T v = LoadBE<T>(pos_);
    pos_ += sizeof(T);
    return v;
  }

  Result<uint8_t> ReadByte() {
    if (FLOE_PREDICT_FALSE(pos_ == end_)) return Truncated(1);
    return *pos_++;
  }

  // ULEB128 of at most 10 bytes (64 bits); longer or overflowing encodings are corrupt.
  Result<uint64_t> ReadVarint64() {
    uint64_t result = 0;
    for (int shift = 0; shift < 64; shift += 7) {
      if (FLOE_PREDICT_FALSE(pos_ == end_)) return Truncated(1);
      uint8_t b = *pos_++;
      if (shift == 63 && b > 1) return Status::Corrupt("varint overflows 64 bits");
      result |= static_cast<uint64_t>(b & 0x7F) << shift;
      if ((b & 0x80) == 0) return result;
    }
    return Status::Corrupt("varint longer than 10 bytes");
  }

  // ULEB128 of at most 5 bytes (32 bits).
  Result<uint32_t> ReadVarint32() {
    uint32_t result = 0;
    for (int shift = 0; shift < 35; shift += 7) {
      if (FLOE_PREDICT_FALSE(pos_ == end_)) return Truncated(1);
      uint8_t b = *pos_++;
      if (shift == 28 && b > 0x0F) return Status::Corrupt("varint overflows 32 bits");
      result |= static_cast<uint32_t>(b & 0x7F) << shift;
      if ((b & 0x80) == 0) return result;
    }
    return Status::Corrupt("varint longer than 5 bytes");
  }

  Result<int64_t> ReadZigZag64() {
    FLOE_ASSIGN_OR_RETURN(uint64_t v, ReadVarint64());
    return ZigZagDecode64(v);
  }
  Result<int32_t> ReadZigZag32() {
    FLOE_ASSIGN_OR_RETURN(uint32_t v, ReadVarint32());
    return ZigZagDecode32(v);
  }

 private:
  Status Truncated(size_t wanted) const {
    return Status::Corrupt("unexpected end of data: needed {} bytes, {} left", wanted, remaining());
  }

  const uint8_t* pos_ = nullptr;
  const uint8_t* end_ = nullptr;
};

}  // namespace floe
