#include "floe/format/parquet/encoding/rle.h"

#include <algorithm>
#include <cstring>

#include "floe/base/bytes.h"
#include "floe/base/macros.h"
#include "floe/format/parquet/encoding/bit_pack.h"

namespace floe::format::parquet {

namespace {

inline void UnpackTo(const uint8_t* in, int bit_width, uint32_t* out, size_t n) {
  Unpack32(in, bit_width, out, n);
}
inline void UnpackTo(const uint8_t* in, int bit_width, uint16_t* out, size_t n) {
  Unpack16(in, bit_width, out, n);
}
inline void UnpackTo(const uint8_t* in, int bit_width, uint8_t* out, size_t n) {
  Unpack8(in, bit_width, out, n);
}

}  // namespace

RleBitPackedDecoder::RleBitPackedDecoder(std::span<const uint8_t> data, int bit_width)
    : pos_(data.data()), end_(data.data() + data.size()), bit_width_(bit_width) {
  FLOE_DCHECK(bit_width >= 0 && bit_width <= kMaxBitWidth);
}

Result<RleBitPackedDecoder> RleBitPackedDecoder::Make(std::span<const uint8_t> data,
                                                      int bit_width) {
  if (bit_width < 0 || bit_width > kMaxBitWidth) {
    return Status::Corrupt("RLE/bit-packed bit width {} is outside [0, 32]", bit_width);
  }
  return RleBitPackedDecoder(data, bit_width);
}

Status RleBitPackedDecoder::NextRun() {
  ByteReader reader(pos_, static_cast<size_t>(end_ - pos_));
  FLOE_ASSIGN_OR_RETURN(uint32_t header, reader.ReadVarint32());
  const uint32_t count = header >> 1;
  if (header & 1) {
    // Bit-packed: count groups of 8 values, count * bit_width bytes.
    const uint64_t values = uint64_t{count} * 8;
    const uint64_t bytes = uint64_t{count} * static_cast<uint64_t>(bit_width_);
    const uint64_t avail = std::min<uint64_t>(bytes, reader.remaining());
    bp_data_ = reader.position();
    bp_left_ = values;
    bp_avail_ = bit_width_ == 0
                    ? values
                    : std::min<uint64_t>(values, avail * 8 / static_cast<uint64_t>(bit_width_));
    pos_ = bp_data_ + avail;
    return Status::OK();
  }
  // RLE: the value in ceil(bit_width / 8) little-endian bytes.
  const size_t value_bytes = (static_cast<size_t>(bit_width_) + 7) / 8;
  FLOE_ASSIGN_OR_RETURN(std::span<const uint8_t> value_data, reader.Take(value_bytes));
  uint32_t value = 0;
  std::memcpy(&value, value_data.data(), value_bytes);
  if (bit_width_ < 32 && (value >> bit_width_) != 0) {
    return Status::Corrupt("RLE run value {} does not fit in {} bits", value, bit_width_);
  }
  rle_value_ = value;
  rle_left_ = count;
  pos_ = reader.position();
  return Status::OK();
}

template <typename Out>
Result<size_t> RleBitPackedDecoder::GetBatchImpl(Out* out, size_t n) {
  size_t done = 0;
  while (done < n) {
    if (scratch_pos_ < scratch_len_) {
      const size_t k = std::min<size_t>(n - done, size_t{scratch_len_} - scratch_pos_);
      for (size_t i = 0; i < k; ++i) out[done + i] = static_cast<Out>(scratch_[scratch_pos_ + i]);
      scratch_pos_ = static_cast<uint8_t>(scratch_pos_ + k);
      done += k;
      continue;
    }
    if (rle_left_ > 0) {
      const size_t k = std::min<size_t>(n - done, rle_left_);
      std::fill_n(out + done, k, static_cast<Out>(rle_value_));
      rle_left_ -= static_cast<uint32_t>(k);
      done += k;
      continue;
    }
    if (bp_left_ > 0) {
      const size_t want = n - done;
      if (want >= 8 && bp_avail_ >= 8) {
        // Whole groups of 8 straight into the output; a group is bit_width bytes.
        const size_t k = static_cast<size_t>(std::min<uint64_t>(want, bp_avail_)) & ~size_t{7};
        UnpackTo(bp_data_, bit_width_, out + done, k);
        bp_data_ += k / 8 * static_cast<size_t>(bit_width_);
        bp_left_ -= k;
        bp_avail_ -= k;
        done += k;
        continue;
      }
      if (FLOE_PREDICT_FALSE(bp_avail_ == 0)) {
        return Status::Corrupt("bit-packed run truncated: {} values have no bytes", bp_left_);
      }
      // A partial group: unpack the (up to) 8 values whose bits are present and serve them
      // from scratch. Fewer than 8 only for a truncated last run.
      const size_t m = static_cast<size_t>(std::min<uint64_t>(8, bp_avail_));
      Unpack32(bp_data_, bit_width_, scratch_, m);
      if (m == 8) bp_data_ += bit_width_;
      bp_left_ -= m;
      bp_avail_ -= m;
      scratch_pos_ = 0;
      scratch_len_ = static_cast<uint8_t>(m);
      continue;
    }
    if (pos_ == end_) break;
    FLOE_RETURN_IF_ERROR(NextRun());
  }
  return done;
}

Result<size_t> RleBitPackedDecoder::GetBatch(uint32_t* out, size_t n) {
  return GetBatchImpl(out, n);
}

Result<size_t> RleBitPackedDecoder::GetBatch(int16_t* out, size_t n) {
  if (bit_width_ > 16) {
    return Status::InvalidArgument("cannot decode {}-bit values into int16", bit_width_);
  }
  // int16_t and uint16_t may alias; values are < 2^16 so the cast is the identity bit-wise.
  return GetBatchImpl(reinterpret_cast<uint16_t*>(out), n);
}

Result<size_t> RleBitPackedDecoder::GetBatch(uint8_t* out, size_t n) {
  if (bit_width_ > 8) {
    return Status::InvalidArgument("cannot decode {}-bit values into uint8", bit_width_);
  }
  return GetBatchImpl(out, n);
}

Result<size_t> RleBitPackedDecoder::GetIndices(uint32_t* out, size_t n, uint32_t dictionary_size) {
  FLOE_ASSIGN_OR_RETURN(size_t k, GetBatchImpl(out, n));
  // One branch-free max over the batch instead of a check per value.
  uint32_t max = 0;
  for (size_t i = 0; i < k; ++i) max = std::max(max, out[i]);
  if (k > 0 && max >= dictionary_size) {
    return Status::Corrupt("dictionary index {} out of range for a dictionary of {} entries", max,
                           dictionary_size);
  }
  return k;
}

Result<size_t> RleBitPackedDecoder::Skip(size_t n) {
  size_t done = 0;
  while (done < n) {
    if (scratch_pos_ < scratch_len_) {
      const size_t k = std::min<size_t>(n - done, size_t{scratch_len_} - scratch_pos_);
      scratch_pos_ = static_cast<uint8_t>(scratch_pos_ + k);
      done += k;
      continue;
    }
    if (rle_left_ > 0) {
      const size_t k = std::min<size_t>(n - done, rle_left_);
      rle_left_ -= static_cast<uint32_t>(k);
      done += k;
      continue;
    }
    if (bp_left_ > 0) {
      const size_t want = n - done;
      if (want >= 8 && bp_avail_ >= 8) {
        const size_t k = static_cast<size_t>(std::min<uint64_t>(want, bp_avail_)) & ~size_t{7};
        bp_data_ += k / 8 * static_cast<size_t>(bit_width_);
        bp_left_ -= k;
        bp_avail_ -= k;
        done += k;
        continue;
      }
      // The partial group goes through scratch so that a later GetBatch resumes mid-group.
      uint32_t unused[8];
      FLOE_ASSIGN_OR_RETURN(size_t k, GetBatchImpl(unused, std::min<size_t>(want, 1)));
      done += k;
      if (k == 0) break;
      continue;
    }
    if (pos_ == end_) break;
    FLOE_RETURN_IF_ERROR(NextRun());
  }
  return done;
}

RleBitPackedEncoder::RleBitPackedEncoder(int bit_width, Buffer* out)
    : out_(out),
      bit_width_(bit_width),
      mask_(bit_width >= 32 ? ~uint32_t{0} : (uint32_t{1} << bit_width) - 1) {
  FLOE_DCHECK(bit_width >= 0 && bit_width <= 32);
}

size_t RleBitPackedEncoder::MaxEncodedSize(int bit_width, size_t n) {
  // Per group of 8 values: a literal group costs bit_width bytes plus at most one header
  // byte; an RLE run (>= 8 values) costs at most 5 header bytes and 4 value bytes.
  const size_t groups = (n + 7) / 8;
  return groups * (static_cast<size_t>(bit_width) + 9) + 16;
}

void RleBitPackedEncoder::Put(const uint32_t* values, size_t n) { PutImpl(values, n); }
void RleBitPackedEncoder::Put(const int16_t* values, size_t n) { PutImpl(values, n); }
void RleBitPackedEncoder::Put(const uint8_t* values, size_t n) { PutImpl(values, n); }

template <typename In>
void RleBitPackedEncoder::PutImpl(const In* values, size_t n) {
  size_t i = 0;
  while (i < n) {
    if (run_count_ > 0) {
      // Extend the open RLE run over equal values without buffering them.
      const size_t limit =
          i + static_cast<size_t>(std::min<uint64_t>(n - i, kMaxRunLength - run_count_));
      size_t j = i;
      while (j < limit && (static_cast<uint32_t>(values[j]) & mask_) == run_value_) ++j;
      run_count_ += j - i;
      i = j;
      if (i == n) return;
      EmitRleRun(run_value_, run_count_);
      run_count_ = 0;
    }
    FLOE_DCHECK((static_cast<uint32_t>(values[i]) & ~mask_) == 0);
    group_[group_size_++] = static_cast<uint32_t>(values[i++]) & mask_;
    if (group_size_ == 8) CompleteGroup();
  }
}

void RleBitPackedEncoder::CompleteGroup() {
  group_size_ = 0;
  bool same = true;
  for (int i = 1; i < 8; ++i) same &= group_[i] == group_[0];
  if (same) {
    // A literal run cannot end mid-group, so repeats only start an RLE run at a group
    // boundary: close the literals, open the run.
    EmitLiterals();
    run_value_ = group_[0];
    run_count_ = 8;
    return;
  }
  std::memcpy(literals_ + literal_count_, group_, sizeof(group_));
  literal_count_ += 8;
  if (literal_count_ == kMaxLiteralValues) EmitLiterals();
}

void RleBitPackedEncoder::EmitRleRun(uint32_t value, uint64_t count) {
  uint8_t bytes[10 + 4];
  size_t len = EncodeVarint64(count << 1, bytes);
  const size_t value_bytes = (static_cast<size_t>(bit_width_) + 7) / 8;
  std::memcpy(bytes + len, &value, value_bytes);
  out_->Append(bytes, len + value_bytes);
}

void RleBitPackedEncoder::EmitLiterals() {
  if (literal_count_ == 0) return;
  out_->PushBack(static_cast<uint8_t>((literal_count_ / 8) << 1 | 1));
  uint8_t* dst = out_->AppendUninitialized(literal_count_ / 8 * static_cast<size_t>(bit_width_));
  Pack32(literals_, literal_count_, bit_width_, dst);
  literal_count_ = 0;
}

void RleBitPackedEncoder::Flush() {
  if (run_count_ > 0) {
    EmitRleRun(run_value_, run_count_);
    run_count_ = 0;
  } else if (group_size_ > 0) {
    bool same = true;
    for (size_t i = 1; i < group_size_; ++i) same &= group_[i] == group_[0];
    if (same && literal_count_ == 0) {
      EmitRleRun(group_[0], group_size_);
    } else {
      // Pad the last group with zeros: readers stop at the value count they know.
      std::fill(group_ + group_size_, group_ + 8, 0u);
      std::memcpy(literals_ + literal_count_, group_, sizeof(group_));
      literal_count_ += 8;
    }
    group_size_ = 0;
  }
  EmitLiterals();
}

}  // namespace floe::format::parquet
