#include "floe/format/parquet/encoding/delta.h"

#include <algorithm>
#include <bit>
#include <cstring>
#include <limits>

#include "floe/base/macros.h"
#include "floe/format/parquet/encoding/bit_pack.h"
#include "floe/format/parquet/encoding/internal.h"

namespace floe::format::parquet {

namespace {

inline void UnpackDeltas(const uint8_t* in, int bit_width, uint32_t* out, size_t n) {
  if (bit_width <= 32) {
    Unpack32(in, bit_width, out, n);
    return;
  }
  // INT32 deltas wider than 32 bits (DuckDB computes them in 64 bits): keep the low 32,
  // which is exact in the stream's modulo-2^32 arithmetic.
  uint64_t wide[32];
  for (size_t done = 0; done < n; done += 32) {
    const size_t k = std::min<size_t>(32, n - done);
    Unpack64(in + PackedBytes(done, bit_width), bit_width, wide, k);
    for (size_t i = 0; i < k; ++i) out[done + i] = static_cast<uint32_t>(wide[i]);
  }
}
inline void UnpackDeltas(const uint8_t* in, int bit_width, uint64_t* out, size_t n) {
  Unpack64(in, bit_width, out, n);
}
inline void PackDeltas(const uint32_t* in, size_t n, int bit_width, uint8_t* out) {
  Pack32(in, n, bit_width, out);
}
inline void PackDeltas(const uint64_t* in, size_t n, int bit_width, uint8_t* out) {
  Pack64(in, n, bit_width, out);
}

inline void AppendVarint(uint64_t v, Buffer* out) {
  uint8_t bytes[10];
  out->Append(bytes, EncodeVarint64(v, bytes));
}

// Zigzag in the physical width: an INT32 stream's varints stay within 5 bytes, which
// 32-bit readers (parquet-java readZigZagVarInt) require.
inline uint64_t ZigZag(int32_t v) { return ZigZagEncode32(v); }
inline uint64_t ZigZag(int64_t v) { return ZigZagEncode64(v); }

// Copies 16 bytes; both loads happen before the stores, so dst may overlap src's tail.
inline void CopyShort(uint8_t* dst, const uint8_t* src) {
  const auto lo = LoadLE<uint64_t>(src);
  const auto hi = LoadLE<uint64_t>(src + 8);
  StoreLE(dst, lo);
  StoreLE(dst + 8, hi);
}

// Length of the common prefix of a[0, a_len) and b[0, b_len).
size_t CommonPrefix(const uint8_t* a, size_t a_len, const uint8_t* b, size_t b_len) {
  const size_t len = std::min(a_len, b_len);
  size_t i = 0;
  for (; i + 8 <= len; i += 8) {
    const uint64_t diff = LoadLE<uint64_t>(a + i) ^ LoadLE<uint64_t>(b + i);
    if (diff != 0) return i + static_cast<size_t>(std::countr_zero(diff)) / 8;
  }
  while (i < len && a[i] == b[i]) ++i;
  return i;
}

}  // namespace

// ---- DELTA_BINARY_PACKED decoder ----

template <typename T>
Status DeltaBinaryPackedDecoder<T>::Reset(std::span<const uint8_t> data) {
  *this = DeltaBinaryPackedDecoder();
  data_ = data;
  if (data.empty()) return Status::OK();
  reader_ = ByteReader(data);
  FLOE_ASSIGN_OR_RETURN(uint32_t block_size, reader_.ReadVarint32());
  FLOE_ASSIGN_OR_RETURN(uint32_t miniblocks, reader_.ReadVarint32());
  FLOE_ASSIGN_OR_RETURN(total_count_, reader_.ReadVarint32());
  FLOE_ASSIGN_OR_RETURN(uint64_t first, reader_.ReadVarint64());
  if (block_size == 0 || block_size % 128 != 0) {
    return Status::Corrupt("DELTA_BINARY_PACKED block size {} is not a multiple of 128",
                           block_size);
  }
  if (miniblocks == 0 || block_size % miniblocks != 0 || (block_size / miniblocks) % 32 != 0) {
    return Status::Corrupt(
        "DELTA_BINARY_PACKED: {} miniblocks do not split a block of {} into multiples of 32",
        miniblocks, block_size);
  }
  header_size_ = data.size() - reader_.remaining();
  miniblocks_per_block_ = miniblocks;
  values_per_miniblock_ = block_size / miniblocks;
  // Values wrap at the physical width: an INT32 varint wider than 32 bits is taken modulo
  // 2^32, like the writer's wrapping arithmetic.
  first_value_ = static_cast<U>(ZigZagDecode64(first));
  values_left_ = total_count_;
  first_pending_ = total_count_ > 0;
  miniblock_index_ = miniblocks_per_block_;  // the first miniblock starts a block
  return Status::OK();
}

template <typename T>
Status DeltaBinaryPackedDecoder<T>::NextMiniblock() {
  if (miniblock_index_ == miniblocks_per_block_) {
    FLOE_ASSIGN_OR_RETURN(uint64_t min_delta, reader_.ReadVarint64());
    min_delta_ = static_cast<U>(ZigZagDecode64(min_delta));
    FLOE_ASSIGN_OR_RETURN(std::span<const uint8_t> widths,
                          reader_.Take(static_cast<size_t>(miniblocks_per_block_)));
    widths_ = widths.data();
    miniblock_index_ = 0;
  }
  // Only miniblocks that hold values get here, so the arbitrary widths of unused miniblocks
  // in the last block are never looked at.
  const int width = widths_[miniblock_index_++];
  if (FLOE_PREDICT_FALSE(width > kMaxBits)) {
    return Status::Corrupt("DELTA_BINARY_PACKED miniblock bit width {} exceeds {}", width,
                           kMaxBits);
  }
  // values_per_miniblock_ is a multiple of 32, so the body is a whole number of bytes.
  FLOE_ASSIGN_OR_RETURN(
      std::span<const uint8_t> body,
      reader_.Take(static_cast<size_t>(values_per_miniblock_ / 8 * static_cast<uint64_t>(width))));
  miniblock_data_ = body.data();
  miniblock_width_ = width;
  miniblock_left_ = values_per_miniblock_;
  return Status::OK();
}

template <typename T>
Status DeltaBinaryPackedDecoder<T>::Decode(T* out, size_t n) {
  if (FLOE_PREDICT_FALSE(n > values_left_)) {
    return Status::Corrupt("DELTA_BINARY_PACKED stream holds {} more values, {} wanted",
                           values_left_, n);
  }
  // int32_t/uint32_t (int64_t/uint64_t) may alias: decode deltas in place as U.
  U* const dst = reinterpret_cast<U*>(out);
  size_t done = 0;
  if (first_pending_ && n > 0) {
    dst[0] = first_value_;
    last_value_ = first_value_;
    first_pending_ = false;
    done = 1;
    --values_left_;
  }
  // Locals, not members, in the loops: dst may alias U members for all the compiler knows.
  U last = last_value_;
  while (done < n) {
    if (scratch_pos_ < scratch_len_) {
      const size_t k = std::min<size_t>(n - done, size_t{scratch_len_} - scratch_pos_);
      const U step = min_delta_;
      for (size_t i = 0; i < k; ++i) {
        last += step + scratch_[scratch_pos_ + i];
        dst[done + i] = last;
      }
      scratch_pos_ = static_cast<uint8_t>(scratch_pos_ + k);
      done += k;
      values_left_ -= k;
      continue;
    }
    if (miniblock_left_ == 0) FLOE_RETURN_IF_ERROR(NextMiniblock());
    const size_t want = n - done;
    if (want >= 32) {
      // Whole groups of 32 straight into the output, then the running sum in place.
      const size_t k = static_cast<size_t>(std::min<uint64_t>(want, miniblock_left_)) & ~size_t{31};
      U* d = dst + done;
      UnpackDeltas(miniblock_data_, miniblock_width_, d, k);
      miniblock_data_ += k / 8 * static_cast<size_t>(miniblock_width_);
      const U step = min_delta_;
      for (size_t i = 0; i < k; ++i) {
        last += step + d[i];
        d[i] = last;
      }
      miniblock_left_ -= k;
      done += k;
      values_left_ -= k;
      continue;
    }
    UnpackDeltas(miniblock_data_, miniblock_width_, scratch_, 32);
    miniblock_data_ += 4 * static_cast<size_t>(miniblock_width_);
    miniblock_left_ -= 32;
    scratch_pos_ = 0;
    scratch_len_ = 32;
  }
  last_value_ = last;
  return Status::OK();
}

template <typename T>
Status DeltaBinaryPackedDecoder<T>::Skip(size_t n) {
  T buffer[256];
  for (size_t done = 0; done < n;) {
    const size_t k = std::min(std::size(buffer), n - done);
    FLOE_RETURN_IF_ERROR(Decode(buffer, k));
    done += k;
  }
  return Status::OK();
}

template <typename T>
Result<size_t> DeltaBinaryPackedDecoder<T>::EncodedSize() const {
  if (data_.empty()) return size_t{0};
  ByteReader reader(data_.subspan(header_size_));
  uint64_t remaining = total_count_ > 0 ? total_count_ - 1 : 0;
  // Each block takes at least 2 bytes, so this loop is bounded by the data size whatever
  // the counts say.
  while (remaining > 0) {
    FLOE_ASSIGN_OR_RETURN(uint64_t min_delta, reader.ReadVarint64());
    (void)min_delta;
    FLOE_ASSIGN_OR_RETURN(std::span<const uint8_t> widths,
                          reader.Take(static_cast<size_t>(miniblocks_per_block_)));
    for (size_t m = 0; m < widths.size() && remaining > 0; ++m) {
      if (widths[m] > kMaxBits) {
        return Status::Corrupt("DELTA_BINARY_PACKED miniblock bit width {} exceeds {}", widths[m],
                               kMaxBits);
      }
      FLOE_RETURN_IF_ERROR(reader.Skip(static_cast<size_t>(values_per_miniblock_ / 8 * widths[m])));
      remaining -= std::min(remaining, values_per_miniblock_);
    }
  }
  return data_.size() - reader.remaining();
}

template class DeltaBinaryPackedDecoder<int32_t>;
template class DeltaBinaryPackedDecoder<int64_t>;

// ---- DELTA_BINARY_PACKED encoder ----

template <typename T>
void DeltaBinaryPackedEncoder<T>::Put(const T* values, size_t n) {
  size_t i = 0;
  if (total_count_ == 0 && n > 0) {
    first_value_ = last_value_ = static_cast<U>(values[0]);
    i = 1;
  }
  for (; i < n; ++i) {
    const auto v = static_cast<U>(values[i]);
    deltas_[block_count_++] = v - last_value_;
    last_value_ = v;
    if (block_count_ == kBlockSize) FlushBlock();
  }
  total_count_ += n;
}

template <typename T>
void DeltaBinaryPackedEncoder<T>::FlushBlock() {
  const size_t k = block_count_;
  if (k == 0) return;
  T min_delta = static_cast<T>(deltas_[0]);
  for (size_t i = 1; i < k; ++i) min_delta = std::min(min_delta, static_cast<T>(deltas_[i]));
  const auto umin = static_cast<U>(min_delta);
  for (size_t i = 0; i < k; ++i) deltas_[i] -= umin;
  std::fill(deltas_ + k, deltas_ + kBlockSize, U{0});

  AppendVarint(ZigZag(min_delta), &blocks_);
  uint8_t widths[kMiniblocks] = {};
  const size_t used = (k + kMiniblockSize - 1) / kMiniblockSize;
  for (size_t m = 0; m < used; ++m) {
    U bits = 0;
    for (size_t i = 0; i < kMiniblockSize; ++i) bits |= deltas_[m * kMiniblockSize + i];
    widths[m] = static_cast<uint8_t>(std::bit_width(bits));
  }
  blocks_.Append(widths, kMiniblocks);
  for (size_t m = 0; m < used; ++m) {
    uint8_t* dst = blocks_.AppendUninitialized(kMiniblockSize / 8 * widths[m]);
    PackDeltas(deltas_ + m * kMiniblockSize, kMiniblockSize, widths[m], dst);
  }
  block_count_ = 0;
}

template <typename T>
void DeltaBinaryPackedEncoder<T>::Finish(Buffer* out) {
  FlushBlock();
  AppendVarint(kBlockSize, out);
  AppendVarint(kMiniblocks, out);
  AppendVarint(total_count_, out);
  AppendVarint(ZigZag(static_cast<T>(first_value_)), out);
  out->Append(blocks_.span());
  blocks_.Clear();
  total_count_ = 0;
  first_value_ = last_value_ = 0;
}

template class DeltaBinaryPackedEncoder<int32_t>;
template class DeltaBinaryPackedEncoder<int64_t>;

// ---- DELTA_LENGTH_BYTE_ARRAY ----

Status DeltaLengthByteArrayDecoder::Reset(std::span<const uint8_t> data) {
  FLOE_RETURN_IF_ERROR(lengths_.Reset(data));
  FLOE_ASSIGN_OR_RETURN(size_t lengths_size, lengths_.EncodedSize());
  bytes_ = data.data() + lengths_size;
  bytes_end_ = data.data() + data.size();
  return Status::OK();
}

Result<size_t> DeltaLengthByteArrayDecoder::DecodeLengths(int32_t* lengths, size_t n) {
  FLOE_RETURN_IF_ERROR(lengths_.Decode(lengths, n));
  int32_t min = 0;
  uint64_t total = 0;
  for (size_t i = 0; i < n; ++i) {
    min = std::min(min, lengths[i]);
    total += static_cast<uint32_t>(lengths[i]);
  }
  if (FLOE_PREDICT_FALSE(min < 0)) return Status::Corrupt("negative byte array length {}", min);
  if (FLOE_PREDICT_FALSE(total > bytes_left())) {
    return Status::Corrupt("byte array lengths add up to {} bytes, {} left in the page", total,
                           bytes_left());
  }
  return static_cast<size_t>(total);
}

Status DeltaLengthByteArrayDecoder::Decode(size_t n, int64_t* end_offsets, Buffer* data) {
  int32_t lengths[1024];
  for (size_t done = 0; done < n;) {
    const size_t k = std::min(std::size(lengths), n - done);
    FLOE_ASSIGN_OR_RETURN(size_t total, DecodeLengths(lengths, k));
    uint8_t* dst = data->AppendUninitialized(total);
    internal::CopyBytes(dst, bytes_, total);
    bytes_ += total;
    auto end = static_cast<int64_t>(data->size() - total);
    for (size_t i = 0; i < k; ++i) {
      end += lengths[i];
      end_offsets[done + i] = end;
    }
    done += k;
  }
  return Status::OK();
}

// ---- DELTA_BYTE_ARRAY ----

Status DeltaByteArrayDecoder::Reset(std::span<const uint8_t> data, DeltaByteArrayPages pages) {
  if (pages == DeltaByteArrayPages::kIndependent) last_value_.Clear();
  FLOE_RETURN_IF_ERROR(prefixes_.Reset(data));
  FLOE_ASSIGN_OR_RETURN(size_t prefixes_size, prefixes_.EncodedSize());
  FLOE_RETURN_IF_ERROR(suffixes_.Reset(data.subspan(prefixes_size)));
  if (prefixes_.total_count() != suffixes_.lengths_.total_count()) {
    return Status::Corrupt("DELTA_BYTE_ARRAY has {} prefix lengths but {} suffix lengths",
                           prefixes_.total_count(), suffixes_.lengths_.total_count());
  }
  return Status::OK();
}

Status DeltaByteArrayDecoder::Decode(size_t n, int64_t* end_offsets, Buffer* data) {
  int32_t prefix[kChunk];
  int32_t suffix[kChunk];
  for (size_t done = 0; done < n;) {
    const size_t k = std::min(kChunk, n - done);
    FLOE_RETURN_IF_ERROR(prefixes_.Decode(prefix, k));
    FLOE_RETURN_IF_ERROR(suffixes_.DecodeLengths(suffix, k).status());
    // Validate the chunk and size it, so the copies below never reallocate.
    uint64_t prev_len = last_value_.size();
    uint64_t total = 0;
    for (size_t i = 0; i < k; ++i) {
      if (FLOE_PREDICT_FALSE(prefix[i] < 0 || static_cast<uint64_t>(prefix[i]) > prev_len)) {
        return Status::Corrupt("DELTA_BYTE_ARRAY prefix length {} but the previous value has {}",
                               prefix[i], prev_len);
      }
      prev_len = static_cast<uint64_t>(prefix[i]) + static_cast<uint64_t>(suffix[i]);
      total += prev_len;
    }
    // kSlack bytes of room past the chunk let short copies move a fixed 16 bytes.
    data->Reserve(data->size() + static_cast<size_t>(total) + kSlack);
    uint8_t* dst = data->AppendUninitialized(static_cast<size_t>(total));
    auto end = static_cast<int64_t>(data->size() - total);
    const uint8_t* prev = last_value_.data();
    size_t prev_size = last_value_.size();
    for (size_t i = 0; i < k; ++i) {
      const auto p = static_cast<size_t>(prefix[i]);
      const auto s = static_cast<size_t>(suffix[i]);
      // Fixed-size copies read only initialized bytes (the previous value when it has 16,
      // the page when 16 remain) and write within the slack; the suffix overwrites what
      // the prefix copy wrote past p.
      if (p <= 16 && prev_size >= 16) {
        CopyShort(dst, prev);
      } else {
        internal::CopyBytes(dst, prev, p);
      }
      if (s <= 16 && suffixes_.bytes_left() >= 16) {
        CopyShort(dst + p, suffixes_.bytes_);
      } else {
        internal::CopyBytes(dst + p, suffixes_.bytes_, s);
      }
      suffixes_.bytes_ += s;
      prev = dst;
      prev_size = p + s;
      dst += p + s;
      end += static_cast<int64_t>(p + s);
      end_offsets[done + i] = end;
    }
    last_value_.Clear();
    last_value_.Append(prev, static_cast<size_t>(prev_len));
    done += k;
  }
  return Status::OK();
}

Status DeltaByteArrayDecoder::DecodeFixed(size_t n, size_t byte_width, uint8_t* out) {
  int32_t prefix[kChunk];
  int32_t suffix[kChunk];
  for (size_t done = 0; done < n;) {
    const size_t k = std::min(kChunk, n - done);
    FLOE_RETURN_IF_ERROR(prefixes_.Decode(prefix, k));
    FLOE_RETURN_IF_ERROR(suffixes_.DecodeLengths(suffix, k).status());
    uint64_t prev_len = last_value_.size();
    for (size_t i = 0; i < k; ++i) {
      if (FLOE_PREDICT_FALSE(prefix[i] < 0 || static_cast<uint64_t>(prefix[i]) > prev_len)) {
        return Status::Corrupt("DELTA_BYTE_ARRAY prefix length {} but the previous value has {}",
                               prefix[i], prev_len);
      }
      if (FLOE_PREDICT_FALSE(static_cast<uint64_t>(prefix[i]) + static_cast<uint64_t>(suffix[i]) !=
                             byte_width)) {
        return Status::Corrupt("DELTA_BYTE_ARRAY value of {} bytes in a FIXED_LEN_BYTE_ARRAY({})",
                               static_cast<uint64_t>(prefix[i]) + static_cast<uint64_t>(suffix[i]),
                               byte_width);
      }
      prev_len = byte_width;
    }
    uint8_t* dst = out + done * byte_width;
    const uint8_t* prev = last_value_.data();
    for (size_t i = 0; i < k; ++i) {
      const auto p = static_cast<size_t>(prefix[i]);
      const size_t s = byte_width - p;
      internal::CopyBytes(dst, prev, p);
      internal::CopyBytes(dst + p, suffixes_.bytes_, s);
      suffixes_.bytes_ += s;
      prev = dst;
      dst += byte_width;
    }
    last_value_.Clear();
    last_value_.Append(prev, byte_width);
    done += k;
  }
  return Status::OK();
}

// ---- encoders ----

namespace {

Status CheckLength(int64_t len) {
  if (FLOE_PREDICT_FALSE(len > std::numeric_limits<int32_t>::max())) {
    return Status::InvalidArgument("a {}-byte value is too long for a delta byte array", len);
  }
  return Status::OK();
}

}  // namespace

Status EncodeDeltaLengthByteArray(const int64_t* offsets, const uint8_t* data, size_t n,
                                  Buffer* out) {
  DeltaBinaryPackedEncoder<int32_t> lengths;
  int32_t chunk[1024];
  for (size_t done = 0; done < n;) {
    const size_t k = std::min(std::size(chunk), n - done);
    for (size_t i = 0; i < k; ++i) {
      const int64_t len = offsets[done + i + 1] - offsets[done + i];
      FLOE_RETURN_IF_ERROR(CheckLength(len));
      chunk[i] = static_cast<int32_t>(len);
    }
    lengths.Put(chunk, k);
    done += k;
  }
  lengths.Finish(out);
  out->Append(data + offsets[0], static_cast<size_t>(offsets[n] - offsets[0]));
  return Status::OK();
}

Status EncodeDeltaByteArray(const int64_t* offsets, const uint8_t* data, size_t n, Buffer* out) {
  DeltaBinaryPackedEncoder<int32_t> prefixes;
  DeltaBinaryPackedEncoder<int32_t> suffixes;
  Buffer suffix_bytes;
  int32_t prefix_chunk[512];
  int32_t suffix_chunk[512];
  const uint8_t* prev = nullptr;
  size_t prev_len = 0;
  for (size_t done = 0; done < n;) {
    const size_t k = std::min(std::size(prefix_chunk), n - done);
    for (size_t i = 0; i < k; ++i) {
      const int64_t len = offsets[done + i + 1] - offsets[done + i];
      FLOE_RETURN_IF_ERROR(CheckLength(len));
      const uint8_t* value = data + offsets[done + i];
      const auto value_len = static_cast<size_t>(len);
      const size_t p = prev == nullptr ? 0 : CommonPrefix(prev, prev_len, value, value_len);
      prefix_chunk[i] = static_cast<int32_t>(p);
      suffix_chunk[i] = static_cast<int32_t>(value_len - p);
      suffix_bytes.Append(value + p, value_len - p);
      prev = value;
      prev_len = value_len;
    }
    prefixes.Put(prefix_chunk, k);
    suffixes.Put(suffix_chunk, k);
    done += k;
  }
  prefixes.Finish(out);
  suffixes.Finish(out);
  out->Append(suffix_bytes.span());
  return Status::OK();
}

void EncodeDeltaByteArrayFixed(const uint8_t* values, size_t n, size_t byte_width, Buffer* out) {
  DeltaBinaryPackedEncoder<int32_t> prefixes;
  DeltaBinaryPackedEncoder<int32_t> suffixes;
  Buffer suffix_bytes;
  int32_t prefix_chunk[512];
  int32_t suffix_chunk[512];
  for (size_t done = 0; done < n;) {
    const size_t k = std::min(std::size(prefix_chunk), n - done);
    for (size_t i = 0; i < k; ++i) {
      const uint8_t* value = values + (done + i) * byte_width;
      const size_t p =
          done + i == 0 ? 0 : CommonPrefix(value - byte_width, byte_width, value, byte_width);
      prefix_chunk[i] = static_cast<int32_t>(p);
      suffix_chunk[i] = static_cast<int32_t>(byte_width - p);
      suffix_bytes.Append(value + p, byte_width - p);
    }
    prefixes.Put(prefix_chunk, k);
    suffixes.Put(suffix_chunk, k);
    done += k;
  }
  prefixes.Finish(out);
  suffixes.Finish(out);
  out->Append(suffix_bytes.span());
}

}  // namespace floe::format::parquet
