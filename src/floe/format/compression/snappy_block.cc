#include "floe/format/compression/snappy_block.h"

#include <cstring>

namespace floe::format {

bool SnappyUncompressedLength(std::span<const uint8_t> in, size_t* length, size_t* preamble) {
  uint64_t v = 0;
  for (size_t i = 0; i < 5 && i < in.size(); ++i) {
    v |= uint64_t{in[i] & 0x7fu} << (7 * i);
    if ((in[i] & 0x80) == 0) {
      if (v > UINT32_MAX) return false;
      *length = static_cast<size_t>(v);
      *preamble = i + 1;
      return true;
    }
  }
  return false;
}

namespace {

inline void Copy16(uint8_t* dst, const uint8_t* src) { std::memcpy(dst, src, 16); }

// Copies `len` bytes from `offset` bytes back, where the regions may overlap (offset < len
// repeats a pattern). REQUIRES: 1 <= offset <= op - out start, op + len <= op_end.
inline void CopyBack(uint8_t* op, size_t offset, size_t len, uint8_t* op_end) {
  const uint8_t* src = op - offset;
  if (offset >= 16 && op_end - op >= static_cast<ptrdiff_t>(len) + 15) {
    // Each 16-byte chunk reads bytes already written: whole-chunk copies, overshooting
    // into the slack (later output overwrites it).
    for (size_t i = 0; i < len; i += 16) Copy16(op + i, src + i);
    return;
  }
  if (op_end - op >= static_cast<ptrdiff_t>(len) + 7) {
    // A short period (offset < 16; runs have offset 1): each byte equals the one `period`
    // bytes back, for any multiple `period` of offset. Take the smallest multiple of at
    // least 8, write the bytes before it one by one, then move 8-byte chunks.
    size_t period = offset;
    size_t i = 0;
    if (offset < 8) {
      period = offset * ((8 + offset - 1) / offset);
      for (; i < len && i < period; ++i) op[i] = src[i];
    }
    for (; i < len; i += 8) std::memcpy(op + i, op + i - period, 8);
    return;
  }
  for (size_t i = 0; i < len; ++i) op[i] = src[i];
}

}  // namespace

bool SnappyDecompress(std::span<const uint8_t> in, uint8_t* out, size_t out_size) {
  size_t length = 0;
  size_t preamble = 0;
  if (!SnappyUncompressedLength(in, &length, &preamble) || length != out_size) return false;
  const uint8_t* ip = in.data() + preamble;
  const uint8_t* const ip_end = in.data() + in.size();
  uint8_t* op = out;
  uint8_t* const op_end = out + out_size;
  while (ip < ip_end) {
    const uint8_t tag = *ip++;
    size_t len;
    size_t offset;
    switch (tag & 3) {
      case 0: {
        len = (tag >> 2) + 1u;
        if (len <= 16 && ip_end - ip >= 16 && op_end - op >= 16) {
          // The common short literal: one fixed-size copy (bytes past len are overwritten).
          Copy16(op, ip);
          ip += len;
          op += len;
          continue;
        }
        if (len > 60) {
          const size_t bytes = len - 60;
          if (static_cast<size_t>(ip_end - ip) < bytes) return false;
          uint32_t encoded = 0;
          for (size_t i = 0; i < bytes; ++i) encoded |= uint32_t{ip[i]} << (8 * i);
          // 32-bit arithmetic as libsnappy (the reference) does: 0xffffffff + 1 wraps to
          // an empty literal, which it accepts.
          len = static_cast<uint32_t>(encoded + 1u);
          ip += bytes;
        }
        if (static_cast<size_t>(ip_end - ip) < len || static_cast<size_t>(op_end - op) < len) {
          return false;
        }
        if (len <= 64 && ip_end - ip >= 64 && op_end - op >= 64) {
          for (size_t i = 0; i < len; i += 16) Copy16(op + i, ip + i);
        } else {
          std::memcpy(op, ip, len);
        }
        ip += len;
        op += len;
        continue;
      }
      case 1:
        if (ip == ip_end) return false;
        len = 4 + ((tag >> 2) & 7u);
        offset = (static_cast<size_t>(tag >> 5) << 8) | *ip++;
        break;
      case 2:
        if (ip_end - ip < 2) return false;
        len = (tag >> 2) + 1u;
        offset = ip[0] | (size_t{ip[1]} << 8);
        ip += 2;
        break;
      default:
        if (ip_end - ip < 4) return false;
        len = (tag >> 2) + 1u;
        offset = ip[0] | (size_t{ip[1]} << 8) | (size_t{ip[2]} << 16) | (size_t{ip[3]} << 24);
        ip += 4;
        break;
    }
    if (offset == 0 || offset > static_cast<size_t>(op - out) ||
        len > static_cast<size_t>(op_end - op)) {
      return false;
    }
    CopyBack(op, offset, len, op_end);
    op += len;
  }
  return op == op_end;
}

}  // namespace floe::format
