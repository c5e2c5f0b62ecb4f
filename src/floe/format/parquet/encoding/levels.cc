#include "floe/format/parquet/encoding/levels.h"

#include <algorithm>

#include "floe/base/bytes.h"
#include "floe/base/macros.h"
#include "floe/format/parquet/encoding/bit_pack.h"

namespace floe::format::parquet {

namespace {

// Levels come from at most BitWidth(max_level) bits, so they are >= 0; only the upper
// bound needs checking. One max over the batch keeps the loop branch-free.
Status CheckMaxLevel(const int16_t* levels, size_t n, int16_t max_level) {
  int16_t max = 0;
  for (size_t i = 0; i < n; ++i) max = std::max(max, levels[i]);
  if (max > max_level) {
    return Status::Corrupt("level {} exceeds the max level {}", max, max_level);
  }
  return Status::OK();
}

}  // namespace

Status LevelDecoder::ResetV1(LevelEncoding encoding, int16_t max_level, uint32_t num_values,
                             std::span<const uint8_t> data, size_t* bytes_consumed) {
  if (max_level < 0) return Status::InvalidArgument("negative max level {}", max_level);
  *this = LevelDecoder();
  max_level_ = max_level;
  bit_width_ = BitWidth(static_cast<uint64_t>(max_level));
  encoding_ = encoding;
  *bytes_consumed = 0;
  if (max_level == 0) return Status::OK();
  if (encoding == LevelEncoding::kRle) {
    ByteReader reader(data);
    FLOE_ASSIGN_OR_RETURN(uint32_t length, reader.ReadLE<uint32_t>());
    if (length > reader.remaining()) {
      return Status::Corrupt("level section of {} bytes runs past the page ({} bytes left)", length,
                             reader.remaining());
    }
    rle_ = RleBitPackedDecoder(data.subspan(4, length), bit_width_);
    *bytes_consumed = 4 + size_t{length};
    return Status::OK();
  }
  const size_t bytes = PackedBytes(num_values, bit_width_);
  if (bytes > data.size()) {
    return Status::Corrupt("BIT_PACKED levels need {} bytes, the page has {}", bytes, data.size());
  }
  packed_ = data.first(bytes);
  packed_count_ = num_values;
  *bytes_consumed = bytes;
  return Status::OK();
}

Status LevelDecoder::ResetV2(int16_t max_level, std::span<const uint8_t> data) {
  if (max_level < 0) return Status::InvalidArgument("negative max level {}", max_level);
  *this = LevelDecoder();
  max_level_ = max_level;
  bit_width_ = BitWidth(static_cast<uint64_t>(max_level));
  if (max_level > 0) rle_ = RleBitPackedDecoder(data, bit_width_);
  return Status::OK();
}

Status LevelDecoder::Decode(int16_t* out, size_t n) {
  if (max_level_ == 0) {
    std::fill_n(out, n, int16_t{0});
    return Status::OK();
  }
  if (encoding_ == LevelEncoding::kBitPacked) return DecodeBitPacked(out, n);
  FLOE_ASSIGN_OR_RETURN(size_t decoded, rle_.GetBatch(out, n));
  if (decoded < n) {
    return Status::Corrupt("level section ends after {} of {} levels", decoded, n);
  }
  return CheckMaxLevel(out, n, max_level_);
}

Status LevelDecoder::DecodeBitPacked(int16_t* out, size_t n) {
  if (n > packed_count_ - packed_index_) {
    return Status::Corrupt("BIT_PACKED level section holds {} more levels, {} wanted",
                           packed_count_ - packed_index_, n);
  }
  UnpackMsbFirst16(packed_.data(), packed_index_ * static_cast<uint64_t>(bit_width_), bit_width_,
                   reinterpret_cast<uint16_t*>(out), n);
  packed_index_ += n;
  return CheckMaxLevel(out, n, max_level_);
}

Status LevelDecoder::Skip(size_t n) {
  if (max_level_ == 0) return Status::OK();
  if (encoding_ == LevelEncoding::kBitPacked) {
    if (n > packed_count_ - packed_index_) {
      return Status::Corrupt("BIT_PACKED level section holds {} more levels, {} to skip",
                             packed_count_ - packed_index_, n);
    }
    packed_index_ += n;
    return Status::OK();
  }
  FLOE_ASSIGN_OR_RETURN(size_t skipped, rle_.Skip(n));
  if (skipped < n) {
    return Status::Corrupt("level section ends after {} of {} levels", skipped, n);
  }
  return Status::OK();
}

void EncodeLevelsV1(const int16_t* levels, size_t n, int16_t max_level, Buffer* out) {
  if (max_level == 0) return;
  const size_t prefix_at = out->size();
  out->AppendValue<uint32_t>(0);
  const size_t length = EncodeLevelsV2(levels, n, max_level, out);
  StoreLE<uint32_t>(out->data() + prefix_at, static_cast<uint32_t>(length));
}

size_t EncodeLevelsV2(const int16_t* levels, size_t n, int16_t max_level, Buffer* out) {
  if (max_level == 0) return 0;
  const size_t start = out->size();
  RleBitPackedEncoder encoder(BitWidth(static_cast<uint64_t>(max_level)), out);
  encoder.Put(levels, n);
  encoder.Flush();
  return out->size() - start;
}

}  // namespace floe::format::parquet
