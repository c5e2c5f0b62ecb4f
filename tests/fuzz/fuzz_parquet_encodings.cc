// Feeds arbitrary bytes to every Parquet value/level decoder (src/floe/format/parquet/encoding).
// Input layout: byte 0 selects the decoder, byte 1 is its parameter (bit width, byte width,
// max level, dictionary size), bytes 2-3 the number of values to ask for, byte 4 the batch
// size; the rest is the page data. Decoders must return an error or values, never crash.
// A few selectors instead encode the data with our encoders and check that decoding gives it
// back, which turns the fuzzer into a round-trip oracle.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>
#include <vector>

#include "floe/base/buffer.h"
#include "floe/format/parquet/encoding/bit_pack.h"
#include "floe/format/parquet/encoding/bloom_filter.h"
#include "floe/format/parquet/encoding/byte_stream_split.h"
#include "floe/format/parquet/encoding/delta.h"
#include "floe/format/parquet/encoding/dictionary.h"
#include "floe/format/parquet/encoding/levels.h"
#include "floe/format/parquet/encoding/plain.h"
#include "floe/format/parquet/encoding/rle.h"

namespace {

using namespace floe;                   // NOLINT
using namespace floe::format::parquet;  // NOLINT

#define FUZZ_CHECK(cond)           \
  do {                             \
    if (!(cond)) __builtin_trap(); \
  } while (false)

struct Input {
  uint8_t selector;
  uint8_t param;
  size_t count;
  size_t batch;
  std::span<const uint8_t> data;
};

// Calls decode(offset, k) over [0, count) in batches until it reports an error.
template <typename F>
void InBatches(const Input& in, F&& decode) {
  for (size_t done = 0; done < in.count;) {
    const size_t k = std::min(in.batch, in.count - done);
    if (!decode(done, k)) return;
    done += k;
  }
}

void FuzzRle(const Input& in) {
  const int width = in.param % 33;
  RleBitPackedDecoder decoder(in.data, width);
  std::vector<uint32_t> out(in.count);
  InBatches(in, [&](size_t at, size_t k) {
    auto got = (at / k) % 3 == 2 ? decoder.Skip(k) : decoder.GetBatch(out.data() + at, k);
    return got.ok() && *got == k;
  });
}

void FuzzRleNarrow(const Input& in) {
  std::vector<int16_t> levels(in.count);
  RleBitPackedDecoder d16(in.data, in.param % 17);
  InBatches(in, [&](size_t at, size_t k) {
    auto got = d16.GetBatch(levels.data() + at, k);
    return got.ok() && *got == k;
  });
  std::vector<uint8_t> bytes(in.count);
  RleBitPackedDecoder d8(in.data, in.param % 9);
  InBatches(in, [&](size_t at, size_t k) {
    auto got = d8.GetBatch(bytes.data() + at, k);
    return got.ok() && *got == k;
  });
}

void FuzzDictionary(const Input& in) {
  const uint32_t dictionary_size = in.param;
  std::vector<int32_t> dictionary(dictionary_size + 1, 7);
  DictionaryIndexDecoder decoder;
  if (!decoder.Reset(in.data, dictionary_size).ok()) return;
  std::vector<int32_t> out(in.count);
  InBatches(in, [&](size_t at, size_t k) {
    return decoder.Decode(dictionary.data(), out.data() + at, k).ok();
  });
}

void FuzzLevels(const Input& in, int mode) {
  const auto max_level = static_cast<int16_t>(in.param % 40);
  LevelDecoder decoder;
  if (mode == 2) {
    if (!decoder.ResetV2(max_level, in.data).ok()) return;
  } else {
    size_t consumed = 0;
    const auto encoding = mode == 0 ? LevelEncoding::kRle : LevelEncoding::kBitPacked;
    if (!decoder.ResetV1(encoding, max_level, static_cast<uint32_t>(in.count), in.data, &consumed)
             .ok()) {
      return;
    }
    FUZZ_CHECK(consumed <= in.data.size());
  }
  std::vector<int16_t> out(in.count);
  InBatches(in, [&](size_t at, size_t k) {
    if ((at / k) % 4 == 3) return decoder.Skip(k).ok();
    if (!decoder.Decode(out.data() + at, k).ok()) return false;
    for (size_t i = 0; i < k; ++i) FUZZ_CHECK(out[at + i] >= 0 && out[at + i] <= max_level);
    return true;
  });
}

void FuzzPlain(const Input& in) {
  const size_t width = in.param % 16 + 1;
  PlainFixedDecoder fixed;
  if (!fixed.Reset(in.data, width).ok()) return;
  std::vector<uint8_t> out(in.count * width);
  InBatches(in, [&](size_t at, size_t k) { return fixed.Decode(out.data() + at * width, k).ok(); });

  PlainBooleanDecoder booleans;
  booleans.Reset(in.data);
  std::vector<uint8_t> bitmap(in.count / 8 + 2);
  InBatches(in, [&](size_t at, size_t k) {
    return at % 2 ? booleans.Decode(out.data() + at, k).ok()
                  : booleans.DecodeBits(bitmap.data(), static_cast<int64_t>(at), k).ok();
  });

  PlainByteArrayDecoder arrays;
  arrays.Reset(in.data);
  Buffer data;
  std::vector<int64_t> ends(in.count);
  InBatches(in, [&](size_t at, size_t k) {
    if (!arrays.Decode(k, ends.data() + at, &data).ok()) return false;
    for (size_t i = 0; i < k; ++i) FUZZ_CHECK(ends[at + i] <= static_cast<int64_t>(data.size()));
    return true;
  });

  auto rle_booleans = MakeRleBooleanDecoder(in.data);
  if (rle_booleans.ok()) {
    InBatches(in, [&](size_t at, size_t k) {
      auto got = rle_booleans->GetBatch(out.data() + at, k);
      return got.ok() && *got == k;
    });
  }
}

template <typename T>
void FuzzDeltaBinaryPacked(const Input& in) {
  DeltaBinaryPackedDecoder<T> decoder;
  if (!decoder.Reset(in.data).ok()) return;
  auto size = decoder.EncodedSize();
  if (size.ok()) FUZZ_CHECK(*size <= in.data.size());
  std::vector<T> out(in.count);
  InBatches(in, [&](size_t at, size_t k) {
    if ((at / k) % 3 == 2) return decoder.Skip(k).ok();
    return decoder.Decode(out.data() + at, k).ok();
  });
}

void FuzzDeltaByteArrays(const Input& in, int mode) {
  // Each value can be as long as the page and DBA values can repeat their predecessor's
  // prefix, so the output is bounded by count * page size: keep count small.
  const size_t count = std::min<size_t>(in.count, 512);
  Buffer data;
  std::vector<int64_t> ends(count);
  Input bounded = in;
  bounded.count = count;
  if (mode == 0) {
    DeltaLengthByteArrayDecoder decoder;
    if (!decoder.Reset(in.data).ok()) return;
    InBatches(bounded,
              [&](size_t at, size_t k) { return decoder.Decode(k, ends.data() + at, &data).ok(); });
  } else if (mode == 1) {
    // The data twice as two pages; with carry-over the second page's first prefix may
    // reach into the first page's last value.
    const auto pages =
        in.param & 1 ? DeltaByteArrayPages::kCarryOver : DeltaByteArrayPages::kIndependent;
    DeltaByteArrayDecoder decoder;
    for (int page = 0; page < 2; ++page) {
      if (!decoder.Reset(in.data, pages).ok()) return;
      InBatches(bounded, [&](size_t at, size_t k) {
        return decoder.Decode(k, ends.data() + at, &data).ok();
      });
    }
  } else {
    const size_t width = in.param % 16 + 1;
    DeltaByteArrayDecoder decoder;
    if (!decoder.Reset(in.data).ok()) return;
    std::vector<uint8_t> out(count * width);
    InBatches(bounded, [&](size_t at, size_t k) {
      return decoder.DecodeFixed(k, width, out.data() + at * width).ok();
    });
  }
}

void FuzzByteStreamSplit(const Input& in) {
  const size_t width = in.param % 16 + 1;
  ByteStreamSplitDecoder decoder;
  if (!decoder.Reset(in.data, width).ok()) return;
  std::vector<uint8_t> out(in.count * width);
  InBatches(in,
            [&](size_t at, size_t k) { return decoder.Decode(out.data() + at * width, k).ok(); });
}

void FuzzBloom(const Input& in) {
  auto filter = BloomFilter::FromBitset(in.data);
  if (!filter.ok()) return;
  for (size_t i = 0; i + 8 <= in.data.size() && i < 4096; i += 8) {
    uint64_t h;
    std::memcpy(&h, in.data.data() + i, 8);
    (void)filter->Check(h);
    filter->Insert(h);
    FUZZ_CHECK(filter->Check(h));
  }
}

// Round trips: the data, read as values, must come back unchanged.
void RoundTripRle(const Input& in) {
  const int width = in.param % 33;
  const uint32_t mask = width == 32 ? ~0u : (1u << width) - 1;
  std::vector<uint32_t> values(in.data.size() / 2);
  for (size_t i = 0; i < values.size(); ++i) {
    // Two bytes per value: a run-friendly distribution of small and repeated values.
    values[i] = (static_cast<uint32_t>(in.data[2 * i]) * 0x01010101u ^ in.data[2 * i + 1]) & mask;
  }
  Buffer encoded;
  RleBitPackedEncoder encoder(width, &encoded);
  encoder.Put(values.data(), values.size());
  encoder.Flush();
  FUZZ_CHECK(encoded.size() <= RleBitPackedEncoder::MaxEncodedSize(width, values.size()));
  RleBitPackedDecoder decoder(encoded.span(), width);
  std::vector<uint32_t> out(values.size());
  auto got = decoder.GetBatch(out.data(), out.size());
  FUZZ_CHECK(got.ok() && *got == values.size() && out == values);
}

template <typename T>
void RoundTripDelta(const Input& in) {
  std::vector<T> values(in.data.size() / sizeof(T));
  if (!values.empty()) std::memcpy(values.data(), in.data.data(), values.size() * sizeof(T));
  Buffer encoded;
  EncodeDeltaBinaryPacked(values.data(), values.size(), &encoded);
  DeltaBinaryPackedDecoder<T> decoder;
  FUZZ_CHECK(decoder.Reset(encoded.span()).ok());
  auto size = decoder.EncodedSize();
  FUZZ_CHECK(size.ok() && *size == encoded.size());
  std::vector<T> out(values.size());
  FUZZ_CHECK(decoder.Decode(out.data(), out.size()).ok() && out == values);
}

void RoundTripByteArrays(const Input& in) {
  // Split the data into values at bytes equal to the parameter.
  std::vector<int64_t> offsets = {0};
  for (size_t i = 0; i < in.data.size(); ++i) {
    if (in.data[i] == in.param) offsets.push_back(static_cast<int64_t>(i));
  }
  offsets.push_back(static_cast<int64_t>(in.data.size()));
  const size_t n = offsets.size() - 1;
  for (int mode = 0; mode < 2; ++mode) {
    Buffer encoded;
    Buffer data;
    std::vector<int64_t> ends(n);
    if (mode == 0) {
      FUZZ_CHECK(EncodeDeltaLengthByteArray(offsets.data(), in.data.data(), n, &encoded).ok());
      DeltaLengthByteArrayDecoder decoder;
      FUZZ_CHECK(decoder.Reset(encoded.span()).ok());
      FUZZ_CHECK(decoder.Decode(n, ends.data(), &data).ok());
    } else {
      FUZZ_CHECK(EncodeDeltaByteArray(offsets.data(), in.data.data(), n, &encoded).ok());
      DeltaByteArrayDecoder decoder;
      FUZZ_CHECK(decoder.Reset(encoded.span()).ok());
      FUZZ_CHECK(decoder.Decode(n, ends.data(), &data).ok());
    }
    FUZZ_CHECK(data.size() == in.data.size());
    FUZZ_CHECK(data.size() == 0 || std::memcmp(data.data(), in.data.data(), data.size()) == 0);
    for (size_t i = 0; i < n; ++i) FUZZ_CHECK(ends[i] == offsets[i + 1]);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* bytes, size_t size) {
  if (size < 5) return 0;
  Input in;
  in.selector = bytes[0];
  in.param = bytes[1];
  in.count = (size_t{bytes[2]} << 8 | bytes[3]) & 0x3FFF;  // up to 16383 values
  in.batch = 1 + bytes[4] % 97 + (bytes[4] >= 200 ? 4096 : 0);
  in.data = std::span<const uint8_t>(bytes + 5, size - 5);
  switch (in.selector % 22) {
    case 0: FuzzRle(in); break;
    case 1: FuzzRleNarrow(in); break;
    case 2: FuzzDictionary(in); break;
    case 3: FuzzLevels(in, 0); break;
    case 4: FuzzLevels(in, 1); break;
    case 5: FuzzLevels(in, 2); break;
    case 6: FuzzPlain(in); break;
    case 7: FuzzDeltaBinaryPacked<int32_t>(in); break;
    case 8: FuzzDeltaBinaryPacked<int64_t>(in); break;
    case 9: FuzzDeltaByteArrays(in, 0); break;
    case 10: FuzzDeltaByteArrays(in, 1); break;
    case 11: FuzzDeltaByteArrays(in, 2); break;
    case 12: FuzzByteStreamSplit(in); break;
    case 13: FuzzBloom(in); break;
    case 14: RoundTripRle(in); break;
    case 15: RoundTripDelta<int32_t>(in); break;
    case 16: RoundTripDelta<int64_t>(in); break;
    case 17: RoundTripByteArrays(in); break;
    default:
      FuzzRle(in);
      FuzzDeltaBinaryPacked<int64_t>(in);
      break;
  }
  return 0;
}
