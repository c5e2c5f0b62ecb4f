#include "floe/format/parquet/encoding/plain.h"

#include <algorithm>
#include <cstring>
#include <limits>

#include "floe/base/bytes.h"
#include "floe/base/macros.h"
#include "floe/columnar/bitmap.h"
#include "floe/format/parquet/encoding/bit_pack.h"
#include "floe/format/parquet/encoding/internal.h"

namespace floe::format::parquet {

Status PlainFixedDecoder::Reset(std::span<const uint8_t> data, size_t byte_width) {
  if (byte_width == 0) return Status::InvalidArgument("PLAIN value width must be positive");
  data_ = data;
  byte_width_ = byte_width;
  return Status::OK();
}

Status PlainFixedDecoder::Decode(void* out, size_t n) {
  if (FLOE_PREDICT_FALSE(n > values_left())) {
    return Status::Corrupt("PLAIN page holds {} more values of {} bytes, {} wanted", values_left(),
                           byte_width_, n);
  }
  const size_t bytes = n * byte_width_;
  internal::CopyBytes(out, data_.data(), bytes);
  data_ = data_.subspan(bytes);
  return Status::OK();
}

Status PlainFixedDecoder::Skip(size_t n) {
  if (FLOE_PREDICT_FALSE(n > values_left())) {
    return Status::Corrupt("PLAIN page holds {} more values of {} bytes, {} to skip", values_left(),
                           byte_width_, n);
  }
  data_ = data_.subspan(n * byte_width_);
  return Status::OK();
}

void PlainBooleanDecoder::Reset(std::span<const uint8_t> data) {
  data_ = data;
  bit_pos_ = 0;
}

Status PlainBooleanDecoder::Decode(uint8_t* out, size_t n) {
  if (FLOE_PREDICT_FALSE(n > values_left())) {
    return Status::Corrupt("PLAIN boolean page holds {} more values, {} wanted", values_left(), n);
  }
  size_t i = 0;
  for (; i < n && bit_pos_ % 8 != 0; ++i, ++bit_pos_) {
    out[i] = (data_[bit_pos_ / 8] >> (bit_pos_ % 8)) & 1;
  }
  // Byte-aligned now: PLAIN booleans are bit packing of width 1.
  Unpack8(data_.data() + bit_pos_ / 8, 1, out + i, n - i);
  bit_pos_ += n - i;
  return Status::OK();
}

Status PlainBooleanDecoder::DecodeBits(uint8_t* bitmap, int64_t bit_offset, size_t n) {
  if (FLOE_PREDICT_FALSE(n > values_left())) {
    return Status::Corrupt("PLAIN boolean page holds {} more values, {} wanted", values_left(), n);
  }
  if (n == 0) return Status::OK();
  columnar::CopyBits(data_.data(), static_cast<int64_t>(bit_pos_), static_cast<int64_t>(n), bitmap,
                     bit_offset);
  bit_pos_ += n;
  return Status::OK();
}

Status PlainBooleanDecoder::Skip(size_t n) {
  if (FLOE_PREDICT_FALSE(n > values_left())) {
    return Status::Corrupt("PLAIN boolean page holds {} more values, {} to skip", values_left(), n);
  }
  bit_pos_ += n;
  return Status::OK();
}

void PlainByteArrayDecoder::Reset(std::span<const uint8_t> data) {
  data_ = data;
  pos_ = 0;
}

Status PlainByteArrayDecoder::Decode(size_t n, int64_t* end_offsets, Buffer* data) {
  // The values cannot hold more bytes than the rest of the page: one reservation, then
  // copies without growth checks.
  data->Reserve(data->size() + bytes_left());
  const uint8_t* p = data_.data() + pos_;
  const uint8_t* const end = data_.data() + data_.size();
  uint8_t* const base = data->data();
  size_t size = data->size();
  Status status;
  size_t i = 0;
  for (; i < n; ++i) {
    if (FLOE_PREDICT_FALSE(end - p < 4)) {
      status = Status::Corrupt("PLAIN byte array {} of {}: length prefix past the page end", i, n);
      break;
    }
    const uint32_t len = LoadLE<uint32_t>(p);
    p += 4;
    if (FLOE_PREDICT_FALSE(len > static_cast<size_t>(end - p))) {
      status = Status::Corrupt("PLAIN byte array of {} bytes runs past the page ({} left)", len,
                               end - p);
      p -= 4;
      break;
    }
    if (len <= 32 && end - p >= 32) {
      // Short values: one fixed 32-byte copy instead of a variable-length memcpy. Room for it
      // in `data`: the reservation covers the page's remaining bytes, which include these 32.
      std::memcpy(base + size, p, 32);
    } else {
      internal::CopyBytes(base + size, p, len);
    }
    p += len;
    size += len;
    end_offsets[i] = static_cast<int64_t>(size);
  }
  data->Resize(size);
  pos_ = static_cast<size_t>(p - data_.data());
  return status;
}

Status PlainByteArrayDecoder::Skip(size_t n) {
  ByteReader reader(data_.subspan(pos_));
  for (size_t i = 0; i < n; ++i) {
    FLOE_ASSIGN_OR_RETURN(uint32_t len, reader.ReadLE<uint32_t>());
    FLOE_RETURN_IF_ERROR(reader.Skip(len));
  }
  pos_ = data_.size() - reader.remaining();
  return Status::OK();
}

Result<RleBitPackedDecoder> MakeRleBooleanDecoder(std::span<const uint8_t> data) {
  ByteReader reader(data);
  FLOE_ASSIGN_OR_RETURN(uint32_t length, reader.ReadLE<uint32_t>());
  FLOE_ASSIGN_OR_RETURN(std::span<const uint8_t> runs, reader.Take(length));
  return RleBitPackedDecoder(runs, 1);
}

void EncodePlainFixed(const void* values, size_t n, size_t byte_width, Buffer* out) {
  out->Append(values, n * byte_width);
}

void EncodePlainBooleans(const uint8_t* values, size_t n, Buffer* out) {
  uint8_t* dst = out->AppendUninitialized((n + 7) / 8);
  size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    uint8_t b = 0;
    for (int j = 0; j < 8; ++j) b |= static_cast<uint8_t>((values[i + j] != 0) << j);
    *dst++ = b;
  }
  if (i < n) {
    uint8_t b = 0;
    for (int j = 0; i + j < n; ++j) b |= static_cast<uint8_t>((values[i + j] != 0) << j);
    *dst = b;
  }
}

void EncodePlainBooleanBits(const uint8_t* bitmap, int64_t bit_offset, size_t n, Buffer* out) {
  if (n == 0) return;
  const size_t bytes = (n + 7) / 8;
  uint8_t* dst = out->AppendUninitialized(bytes);
  std::memset(dst, 0, bytes);
  columnar::CopyBits(bitmap, bit_offset, static_cast<int64_t>(n), dst, 0);
}

Status EncodePlainByteArrays(const int64_t* offsets, const uint8_t* data, size_t n, Buffer* out) {
  const size_t total = static_cast<size_t>(offsets[n] - offsets[0]) + 4 * n;
  const size_t start = out->size();
  uint8_t* dst = out->AppendUninitialized(total);
  for (size_t i = 0; i < n; ++i) {
    const auto len = static_cast<uint64_t>(offsets[i + 1] - offsets[i]);
    if (FLOE_PREDICT_FALSE(len > std::numeric_limits<uint32_t>::max())) {
      out->Resize(start);
      return Status::InvalidArgument("a {}-byte value is too long for a Parquet BYTE_ARRAY", len);
    }
    StoreLE<uint32_t>(dst, static_cast<uint32_t>(len));
    internal::CopyBytes(dst + 4, data + offsets[i], len);
    dst += 4 + len;
  }
  return Status::OK();
}

void EncodeRleBooleans(const uint8_t* values, size_t n, Buffer* out) {
  const size_t prefix_at = out->size();
  out->AppendValue<uint32_t>(0);
  RleBitPackedEncoder encoder(1, out);
  uint8_t bits[256];
  for (size_t done = 0; done < n;) {
    const size_t k = std::min(sizeof(bits), n - done);
    for (size_t i = 0; i < k; ++i) bits[i] = values[done + i] != 0;
    encoder.Put(bits, k);
    done += k;
  }
  encoder.Flush();
  StoreLE<uint32_t>(out->data() + prefix_at, static_cast<uint32_t>(out->size() - prefix_at - 4));
}

}  // namespace floe::format::parquet
