// Throughput of the Parquet encodings: values/s (items_per_second) and decoded output bytes/s
// (bytes_per_second). Build with the release preset (target floe_parquet_encoding_benchmark)
// and run build/release/src/floe/format/parquet/encoding/floe_parquet_encoding_benchmark.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <random>
#include <string>
#include <vector>

#include "floe/base/buffer.h"
#include "floe/format/parquet/encoding/bit_pack.h"
#include "floe/format/parquet/encoding/bloom_filter.h"
#include "floe/format/parquet/encoding/byte_stream_split.h"
#include "floe/format/parquet/encoding/delta.h"
#include "floe/format/parquet/encoding/dictionary.h"
#include "floe/format/parquet/encoding/plain.h"
#include "floe/format/parquet/encoding/rle.h"

namespace floe::format::parquet {
namespace {

constexpr size_t kValues = 64 * 1024;  // about a page's worth
constexpr size_t kBatch = 4096;        // a column reader's batch

void Check(bool ok, benchmark::State& state) {
  if (!ok) state.SkipWithError("decode failed");
}

void BM_Unpack32(benchmark::State& state) {
  const int w = static_cast<int>(state.range(0));
  std::mt19937_64 rng(1);
  std::vector<uint32_t> values(kValues);
  for (auto& v : values) v = static_cast<uint32_t>(rng()) & (w == 32 ? ~0u : (1u << w) - 1);
  std::vector<uint8_t> packed(PackedBytes(kValues, w));
  Pack32(values.data(), kValues, w, packed.data());
  std::vector<uint32_t> out(kValues);
  for (auto _ : state) {
    Unpack32(packed.data(), w, out.data(), kValues);
    benchmark::DoNotOptimize(out.data());
  }
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * kValues));
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * kValues * 4));
}
BENCHMARK(BM_Unpack32)->Arg(1)->Arg(2)->Arg(3)->Arg(5)->Arg(8)->Arg(12)->Arg(16)->Arg(20)->Arg(32);

void BM_Unpack64(benchmark::State& state) {
  const int w = static_cast<int>(state.range(0));
  std::mt19937_64 rng(2);
  std::vector<uint64_t> values(kValues);
  for (auto& v : values) v = rng() & (w == 64 ? ~uint64_t{0} : (uint64_t{1} << w) - 1);
  std::vector<uint8_t> packed(PackedBytes(kValues, w));
  Pack64(values.data(), kValues, w, packed.data());
  std::vector<uint64_t> out(kValues);
  for (auto _ : state) {
    Unpack64(packed.data(), w, out.data(), kValues);
    benchmark::DoNotOptimize(out.data());
  }
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * kValues));
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * kValues * 8));
}
BENCHMARK(BM_Unpack64)->Arg(1)->Arg(7)->Arg(17)->Arg(33)->Arg(64);

void BM_Pack32(benchmark::State& state) {
  const int w = static_cast<int>(state.range(0));
  std::vector<uint32_t> values(kValues);
  for (size_t i = 0; i < kValues; ++i) values[i] = static_cast<uint32_t>(i) & ((1u << w) - 1);
  std::vector<uint8_t> packed(PackedBytes(kValues, w));
  for (auto _ : state) {
    Pack32(values.data(), kValues, w, packed.data());
    benchmark::DoNotOptimize(packed.data());
  }
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * kValues));
}
BENCHMARK(BM_Pack32)->Arg(1)->Arg(8)->Arg(17);

// Data shapes for the hybrid: 0 = random (all bit-packed), 1 = definition levels of a column
// with ~10% nulls in clumps (mostly RLE runs), 2 = short runs of 1..12.
std::vector<uint32_t> HybridValues(int shape, int w, std::mt19937_64& rng) {
  std::vector<uint32_t> values(kValues);
  const uint32_t mask = w == 32 ? ~0u : (1u << w) - 1;
  size_t i = 0;
  while (i < kValues) {
    size_t len = 1;
    uint32_t v = static_cast<uint32_t>(rng()) & mask;
    if (shape == 1) {
      len = rng() % 10 == 0 ? 1 + rng() % 20 : 50 + rng() % 200;
      v = rng() % 10 == 0 ? 0 : mask;
    } else if (shape == 2) {
      len = 1 + rng() % 12;
    }
    for (size_t j = 0; j < len && i < kValues; ++j) values[i++] = v;
  }
  return values;
}

void BM_RleDecode(benchmark::State& state) {
  const int w = static_cast<int>(state.range(0));
  const int shape = static_cast<int>(state.range(1));
  std::mt19937_64 rng(3);
  auto values = HybridValues(shape, w, rng);
  Buffer encoded;
  RleBitPackedEncoder encoder(w, &encoded);
  encoder.Put(values.data(), values.size());
  encoder.Flush();
  std::vector<uint32_t> out(kBatch);
  for (auto _ : state) {
    RleBitPackedDecoder decoder(encoded.span(), w);
    for (size_t done = 0; done < kValues; done += kBatch) {
      auto got = decoder.GetBatch(out.data(), kBatch);
      Check(got.ok() && *got == kBatch, state);
      benchmark::DoNotOptimize(out.data());
    }
  }
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * kValues));
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * kValues * 4));
  state.counters["encoded_bytes"] = static_cast<double>(encoded.size());
}
BENCHMARK(BM_RleDecode)
    ->Args({1, 0})
    ->Args({3, 0})
    ->Args({8, 0})
    ->Args({12, 0})
    ->Args({20, 0})
    ->Args({1, 1})
    ->Args({3, 2})
    ->Args({12, 2});

void BM_RleDecodeLevels(benchmark::State& state) {
  const int w = static_cast<int>(state.range(0));
  std::mt19937_64 rng(4);
  auto values = HybridValues(static_cast<int>(state.range(1)), w, rng);
  Buffer encoded;
  RleBitPackedEncoder encoder(w, &encoded);
  encoder.Put(values.data(), values.size());
  encoder.Flush();
  std::vector<int16_t> out(kBatch);
  for (auto _ : state) {
    RleBitPackedDecoder decoder(encoded.span(), w);
    for (size_t done = 0; done < kValues; done += kBatch) {
      auto got = decoder.GetBatch(out.data(), kBatch);
      Check(got.ok() && *got == kBatch, state);
      benchmark::DoNotOptimize(out.data());
    }
  }
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * kValues));
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * kValues * 2));
}
BENCHMARK(BM_RleDecodeLevels)->Args({1, 0})->Args({1, 1})->Args({2, 2});

void BM_RleEncode(benchmark::State& state) {
  const int w = static_cast<int>(state.range(0));
  std::mt19937_64 rng(5);
  auto values = HybridValues(static_cast<int>(state.range(1)), w, rng);
  Buffer encoded;
  for (auto _ : state) {
    encoded.Clear();
    RleBitPackedEncoder encoder(w, &encoded);
    encoder.Put(values.data(), values.size());
    encoder.Flush();
    benchmark::DoNotOptimize(encoded.data());
  }
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * kValues));
}
BENCHMARK(BM_RleEncode)->Args({1, 1})->Args({10, 0})->Args({3, 2});

void BM_DictionaryGather(benchmark::State& state) {
  std::mt19937_64 rng(6);
  const uint32_t dict_size = 1000;
  std::vector<int64_t> dictionary(dict_size);
  for (auto& d : dictionary) d = static_cast<int64_t>(rng());
  std::vector<uint32_t> indices(kValues);
  for (auto& i : indices) i = static_cast<uint32_t>(rng() % dict_size);
  Buffer page;
  EncodeDictionaryIndices(indices.data(), kValues, BitWidth(dict_size - 1), &page);
  std::vector<int64_t> out(kValues);
  for (auto _ : state) {
    DictionaryIndexDecoder decoder;
    Check(decoder.Reset(page.span(), dict_size).ok(), state);
    Check(decoder.Decode(dictionary.data(), out.data(), kValues).ok(), state);
    benchmark::DoNotOptimize(out.data());
  }
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * kValues));
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * kValues * 8));
}
BENCHMARK(BM_DictionaryGather);

template <typename T>
void BM_DeltaDecode(benchmark::State& state) {
  std::mt19937_64 rng(7);
  std::vector<T> values(kValues);
  T acc = 1000;
  for (auto& v : values) {
    // Shape 0: timestamps-like (small positive deltas); 1: random in the full range.
    acc = static_cast<T>(acc + static_cast<T>(state.range(0) == 0 ? rng() % 1000 : rng()));
    v = acc;
  }
  Buffer encoded;
  EncodeDeltaBinaryPacked(values.data(), values.size(), &encoded);
  std::vector<T> out(kBatch);
  for (auto _ : state) {
    DeltaBinaryPackedDecoder<T> decoder;
    Check(decoder.Reset(encoded.span()).ok(), state);
    for (size_t done = 0; done < kValues; done += kBatch) {
      Check(decoder.Decode(out.data(), kBatch).ok(), state);
      benchmark::DoNotOptimize(out.data());
    }
  }
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * kValues));
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * kValues * sizeof(T)));
  state.counters["encoded_bytes"] = static_cast<double>(encoded.size());
}
BENCHMARK_TEMPLATE(BM_DeltaDecode, int32_t)->Arg(0)->Arg(1);
BENCHMARK_TEMPLATE(BM_DeltaDecode, int64_t)->Arg(0)->Arg(1);

template <typename T>
void BM_DeltaEncode(benchmark::State& state) {
  std::mt19937_64 rng(8);
  std::vector<T> values(kValues);
  T acc = 0;
  for (auto& v : values) {
    acc = static_cast<T>(acc + static_cast<T>(rng() % 1000));
    v = acc;
  }
  Buffer encoded;
  for (auto _ : state) {
    encoded.Clear();
    EncodeDeltaBinaryPacked(values.data(), values.size(), &encoded);
    benchmark::DoNotOptimize(encoded.data());
  }
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * kValues));
}
BENCHMARK_TEMPLATE(BM_DeltaEncode, int32_t);
BENCHMARK_TEMPLATE(BM_DeltaEncode, int64_t);

void BM_ByteStreamSplitDecode(benchmark::State& state) {
  const auto width = static_cast<size_t>(state.range(0));
  std::mt19937_64 rng(9);
  std::vector<uint8_t> values(kValues * width);
  for (auto& b : values) b = static_cast<uint8_t>(rng());
  Buffer encoded;
  EncodeByteStreamSplit(values.data(), kValues, width, &encoded);
  std::vector<uint8_t> out(kBatch * width);
  for (auto _ : state) {
    ByteStreamSplitDecoder decoder;
    Check(decoder.Reset(encoded.span(), width).ok(), state);
    for (size_t done = 0; done < kValues; done += kBatch) {
      Check(decoder.Decode(out.data(), kBatch).ok(), state);
      benchmark::DoNotOptimize(out.data());
    }
  }
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * kValues));
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * kValues * width));
}
BENCHMARK(BM_ByteStreamSplitDecode)->Arg(4)->Arg(8)->Arg(16);

void BM_ByteStreamSplitEncode(benchmark::State& state) {
  const auto width = static_cast<size_t>(state.range(0));
  std::vector<uint8_t> values(kValues * width, 7);
  Buffer encoded;
  for (auto _ : state) {
    encoded.Clear();
    EncodeByteStreamSplit(values.data(), kValues, width, &encoded);
    benchmark::DoNotOptimize(encoded.data());
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * kValues * width));
}
BENCHMARK(BM_ByteStreamSplitEncode)->Arg(4)->Arg(8);

// Strings of 4..36 bytes from a small alphabet, sorted (so DELTA_BYTE_ARRAY finds prefixes).
struct StringColumn {
  std::string text;
  std::vector<int64_t> offsets = {0};
  StringColumn() {
    std::mt19937_64 rng(10);
    std::vector<std::string> values(kValues);
    for (auto& v : values) {
      v.resize(4 + rng() % 33);
      for (auto& c : v) c = static_cast<char>('a' + rng() % 4);
    }
    std::sort(values.begin(), values.end());
    for (const auto& v : values) {
      text += v;
      offsets.push_back(static_cast<int64_t>(text.size()));
    }
  }
  const uint8_t* data() const { return reinterpret_cast<const uint8_t*>(text.data()); }
};

enum ByteArrayEncoding { kPlain, kDeltaLength, kDelta };

void BM_ByteArrayDecode(benchmark::State& state) {
  const auto encoding = static_cast<ByteArrayEncoding>(state.range(0));
  static const StringColumn column;
  Buffer encoded;
  bool ok = true;
  if (encoding == kPlain) {
    ok = EncodePlainByteArrays(column.offsets.data(), column.data(), kValues, &encoded).ok();
  } else if (encoding == kDeltaLength) {
    ok = EncodeDeltaLengthByteArray(column.offsets.data(), column.data(), kValues, &encoded).ok();
  } else {
    ok = EncodeDeltaByteArray(column.offsets.data(), column.data(), kValues, &encoded).ok();
  }
  Check(ok, state);
  Buffer data;
  std::vector<int64_t> ends(kBatch);
  for (auto _ : state) {
    data.Clear();
    PlainByteArrayDecoder plain;
    DeltaLengthByteArrayDecoder dlba;
    DeltaByteArrayDecoder dba;
    if (encoding == kPlain) plain.Reset(encoded.span());
    if (encoding == kDeltaLength) Check(dlba.Reset(encoded.span()).ok(), state);
    if (encoding == kDelta) Check(dba.Reset(encoded.span()).ok(), state);
    for (size_t done = 0; done < kValues; done += kBatch) {
      Status status = encoding == kPlain         ? plain.Decode(kBatch, ends.data(), &data)
                      : encoding == kDeltaLength ? dlba.Decode(kBatch, ends.data(), &data)
                                                 : dba.Decode(kBatch, ends.data(), &data);
      Check(status.ok(), state);
    }
    benchmark::DoNotOptimize(data.data());
  }
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * kValues));
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * column.text.size()));
  state.counters["encoded_bytes"] = static_cast<double>(encoded.size());
}
BENCHMARK(BM_ByteArrayDecode)->Arg(kPlain)->Arg(kDeltaLength)->Arg(kDelta);

void BM_BloomFilter(benchmark::State& state) {
  std::mt19937_64 rng(11);
  const size_t n = 1 << 20;
  std::vector<uint64_t> hashes(n);
  for (auto& h : hashes) h = BloomHash(static_cast<int64_t>(rng()));
  auto filter = *BloomFilter::Make(*BloomFilter::OptimalNumBytes(n, 0.01));
  const bool check = state.range(0) == 1;
  if (check) filter.InsertBatch(hashes.data(), n);
  size_t hits = 0;
  for (auto _ : state) {
    if (check) {
      for (uint64_t h : hashes) hits += filter.Check(h);
    } else {
      filter.InsertBatch(hashes.data(), n);
    }
    benchmark::DoNotOptimize(hits);
  }
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * n));
}
BENCHMARK(BM_BloomFilter)->Arg(0)->Arg(1);

void BM_BloomHashInt64(benchmark::State& state) {
  std::vector<int64_t> values(kValues);
  for (size_t i = 0; i < kValues; ++i) values[i] = static_cast<int64_t>(i * 7919);
  std::vector<uint64_t> hashes(kValues);
  for (auto _ : state) {
    BloomHashFixed(reinterpret_cast<const uint8_t*>(values.data()), kValues, 8, hashes.data());
    benchmark::DoNotOptimize(hashes.data());
  }
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * kValues));
}
BENCHMARK(BM_BloomHashInt64);

}  // namespace
}  // namespace floe::format::parquet

BENCHMARK_MAIN();
