#include "floe/format/parquet/encoding/dictionary.h"

#include <cstring>

#include "floe/format/parquet/encoding/internal.h"

namespace floe::format::parquet {

Status DictionaryIndexDecoder::Reset(std::span<const uint8_t> data, uint32_t dictionary_size) {
  dictionary_size_ = dictionary_size;
  if (data.empty()) {
    indices_ = RleBitPackedDecoder();
    return Status::OK();
  }
  FLOE_ASSIGN_OR_RETURN(indices_, RleBitPackedDecoder::Make(data.subspan(1), data[0]));
  return Status::OK();
}

Result<size_t> DictionaryIndexDecoder::DecodeIndices(uint32_t* out, size_t n) {
  return indices_.GetIndices(out, n, dictionary_size_);
}

Status DictionaryIndexDecoder::DecodeChunk(uint32_t* indices, size_t n) {
  FLOE_ASSIGN_OR_RETURN(size_t decoded, indices_.GetIndices(indices, n, dictionary_size_));
  if (decoded < n) {
    return Status::Corrupt("dictionary indices end {} values early", n - decoded);
  }
  return Status::OK();
}

Status DictionaryIndexDecoder::DecodeFixed(const uint8_t* dictionary, size_t byte_width,
                                           uint8_t* out, size_t n) {
  uint32_t indices[kChunk];
  for (size_t done = 0; done < n;) {
    const size_t k = std::min(kChunk, n - done);
    FLOE_RETURN_IF_ERROR(DecodeChunk(indices, k));
    uint8_t* dst = out + done * byte_width;
    for (size_t i = 0; i < k; ++i) {
      std::memcpy(dst + i * byte_width, dictionary + size_t{indices[i]} * byte_width, byte_width);
    }
    done += k;
  }
  return Status::OK();
}

Status DictionaryIndexDecoder::DecodeByteArrays(const int64_t* dictionary_offsets,
                                                const uint8_t* dictionary_data, size_t n,
                                                int64_t* end_offsets, Buffer* data) {
  uint32_t indices[kChunk];
  for (size_t done = 0; done < n;) {
    const size_t k = std::min(kChunk, n - done);
    FLOE_RETURN_IF_ERROR(DecodeChunk(indices, k));
    // Size the chunk first so the copies below never reallocate.
    size_t bytes = 0;
    for (size_t i = 0; i < k; ++i) {
      bytes +=
          static_cast<size_t>(dictionary_offsets[indices[i] + 1] - dictionary_offsets[indices[i]]);
    }
    uint8_t* dst = data->AppendUninitialized(bytes);
    size_t end = data->size() - bytes;
    for (size_t i = 0; i < k; ++i) {
      const int64_t begin = dictionary_offsets[indices[i]];
      const size_t len = static_cast<size_t>(dictionary_offsets[indices[i] + 1] - begin);
      internal::CopyBytes(dst, dictionary_data + begin, len);
      dst += len;
      end += len;
      end_offsets[done + i] = static_cast<int64_t>(end);
    }
    done += k;
  }
  return Status::OK();
}

void EncodeDictionaryIndices(const uint32_t* indices, size_t n, int bit_width, Buffer* out) {
  out->PushBack(static_cast<uint8_t>(bit_width));
  RleBitPackedEncoder encoder(bit_width, out);
  encoder.Put(indices, n);
  encoder.Flush();
}

}  // namespace floe::format::parquet
