#include "floe/format/parquet/encoding/byte_stream_split.h"

#include <algorithm>
#include <type_traits>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "floe/base/bytes.h"
#include "floe/base/macros.h"

namespace floe::format::parquet {

namespace {

// Scalar gather of one byte from each stream into a word; the tail of the SSE2 paths and
// the whole loop elsewhere.
template <size_t K>
void DecodeFixedWidthScalar(const uint8_t* streams, size_t stride, size_t begin, size_t n,
                            uint8_t* out) {
  using Word = std::conditional_t<K == 4, uint32_t, uint64_t>;
  for (size_t i = begin; i < n; ++i) {
    Word v = 0;
    for (size_t j = 0; j < K; ++j) v |= static_cast<Word>(streams[j * stride + i]) << (8 * j);
    StoreLE<Word>(out + i * K, v);
  }
}

#if defined(__SSE2__)
// 16 values per step: interleaving the streams' bytes, then 16-bit pairs (then 32-bit
// quads for K = 8) transposes a K x 16 byte block into 16 values.
void DecodeWidth4(const uint8_t* streams, size_t stride, size_t n, uint8_t* out) {
  size_t i = 0;
  for (; i + 16 <= n; i += 16) {
    __m128i s[4];
    for (size_t j = 0; j < 4; ++j) {
      s[j] = _mm_loadu_si128(reinterpret_cast<const __m128i*>(streams + j * stride + i));
    }
    const __m128i a0 = _mm_unpacklo_epi8(s[0], s[1]);
    const __m128i a1 = _mm_unpackhi_epi8(s[0], s[1]);
    const __m128i a2 = _mm_unpacklo_epi8(s[2], s[3]);
    const __m128i a3 = _mm_unpackhi_epi8(s[2], s[3]);
    auto* dst = reinterpret_cast<__m128i*>(out + 4 * i);
    _mm_storeu_si128(dst + 0, _mm_unpacklo_epi16(a0, a2));
    _mm_storeu_si128(dst + 1, _mm_unpackhi_epi16(a0, a2));
    _mm_storeu_si128(dst + 2, _mm_unpacklo_epi16(a1, a3));
    _mm_storeu_si128(dst + 3, _mm_unpackhi_epi16(a1, a3));
  }
  DecodeFixedWidthScalar<4>(streams, stride, i, n, out);
}

void DecodeWidth8(const uint8_t* streams, size_t stride, size_t n, uint8_t* out) {
  size_t i = 0;
  for (; i + 16 <= n; i += 16) {
    __m128i s[8];
    for (size_t j = 0; j < 8; ++j) {
      s[j] = _mm_loadu_si128(reinterpret_cast<const __m128i*>(streams + j * stride + i));
    }
    __m128i a[8];  // a[2p] values 0..7, a[2p + 1] values 8..15, bytes 2p and 2p + 1
    for (size_t p = 0; p < 4; ++p) {
      a[2 * p] = _mm_unpacklo_epi8(s[2 * p], s[2 * p + 1]);
      a[2 * p + 1] = _mm_unpackhi_epi8(s[2 * p], s[2 * p + 1]);
    }
    __m128i b[8];  // b[q] values 4q..4q+3, bytes 0-3; b[4 + q] the same values, bytes 4-7
    for (size_t h = 0; h < 2; ++h) {
      const size_t lo = 4 * h;  // a[lo..lo+1]: bytes 4h, 4h+1; a[lo+2..lo+3]: 4h+2, 4h+3
      b[lo + 0] = _mm_unpacklo_epi16(a[lo], a[lo + 2]);
      b[lo + 1] = _mm_unpackhi_epi16(a[lo], a[lo + 2]);
      b[lo + 2] = _mm_unpacklo_epi16(a[lo + 1], a[lo + 3]);
      b[lo + 3] = _mm_unpackhi_epi16(a[lo + 1], a[lo + 3]);
    }
    auto* dst = reinterpret_cast<__m128i*>(out + 8 * i);
    for (size_t q = 0; q < 4; ++q) {
      _mm_storeu_si128(dst + 2 * q, _mm_unpacklo_epi32(b[q], b[4 + q]));
      _mm_storeu_si128(dst + 2 * q + 1, _mm_unpackhi_epi32(b[q], b[4 + q]));
    }
  }
  DecodeFixedWidthScalar<8>(streams, stride, i, n, out);
}
#else
void DecodeWidth4(const uint8_t* streams, size_t stride, size_t n, uint8_t* out) {
  DecodeFixedWidthScalar<4>(streams, stride, 0, n, out);
}
void DecodeWidth8(const uint8_t* streams, size_t stride, size_t n, uint8_t* out) {
  DecodeFixedWidthScalar<8>(streams, stride, 0, n, out);
}
#endif

// Any width: value by value, reading the K streams in step (sequential reads, which the
// prefetchers follow) and writing the output contiguously.
void DecodeAnyWidth(const uint8_t* streams, size_t stride, size_t width, size_t n, uint8_t* out) {
  for (size_t i = 0; i < n; ++i) {
    const uint8_t* src = streams + i;
    for (size_t j = 0; j < width; ++j) out[j] = src[j * stride];
    out += width;
  }
}

template <size_t K>
void EncodeFixedWidth(const uint8_t* values, size_t n, uint8_t* streams) {
  using Word = std::conditional_t<K == 4, uint32_t, uint64_t>;
  for (size_t i = 0; i < n; ++i) {
    const Word v = LoadLE<Word>(values + i * K);
    for (size_t j = 0; j < K; ++j) streams[j * n + i] = static_cast<uint8_t>(v >> (8 * j));
  }
}

}  // namespace

Status ByteStreamSplitDecoder::Reset(std::span<const uint8_t> data, size_t byte_width) {
  if (byte_width == 0) return Status::InvalidArgument("BYTE_STREAM_SPLIT width must be positive");
  if (data.size() % byte_width != 0) {
    return Status::Corrupt("BYTE_STREAM_SPLIT section of {} bytes is not a multiple of {}",
                           data.size(), byte_width);
  }
  data_ = data.data();
  byte_width_ = byte_width;
  num_values_ = data.size() / byte_width;
  pos_ = 0;
  return Status::OK();
}

Status ByteStreamSplitDecoder::Decode(uint8_t* out, size_t n) {
  if (FLOE_PREDICT_FALSE(n > values_left())) {
    return Status::Corrupt("BYTE_STREAM_SPLIT page holds {} more values, {} wanted", values_left(),
                           n);
  }
  const uint8_t* streams = data_ + pos_;
  switch (byte_width_) {
    case 4: DecodeWidth4(streams, num_values_, n, out); break;
    case 8: DecodeWidth8(streams, num_values_, n, out); break;
    default: DecodeAnyWidth(streams, num_values_, byte_width_, n, out);
  }
  pos_ += n;
  return Status::OK();
}

Status ByteStreamSplitDecoder::Skip(size_t n) {
  if (FLOE_PREDICT_FALSE(n > values_left())) {
    return Status::Corrupt("BYTE_STREAM_SPLIT page holds {} more values, {} to skip", values_left(),
                           n);
  }
  pos_ += n;
  return Status::OK();
}

void EncodeByteStreamSplit(const uint8_t* values, size_t n, size_t byte_width, Buffer* out) {
  if (n == 0) return;
  uint8_t* streams = out->AppendUninitialized(n * byte_width);
  switch (byte_width) {
    case 4: EncodeFixedWidth<4>(values, n, streams); break;
    case 8: EncodeFixedWidth<8>(values, n, streams); break;
    default:
      for (size_t j = 0; j < byte_width; ++j) {
        uint8_t* stream = streams + j * n;
        for (size_t i = 0; i < n; ++i) stream[i] = values[i * byte_width + j];
      }
  }
}

}  // namespace floe::format::parquet
