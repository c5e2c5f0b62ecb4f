#include "floe/format/parquet/encoding/bloom_filter.h"

#include <xxhash.h>

#include <bit>
#include <cmath>
#include <utility>

#include "floe/base/bytes.h"

namespace floe::format::parquet {

namespace {

// BloomFilter.md, "Technical Approach": eight odd constants, one per word of a block.
constexpr uint32_t kSalt[8] = {0x47b6137bU, 0x44974d91U, 0x8824ad5bU, 0xa2b7289dU,
                               0x705495c7U, 0x2df1424bU, 0x9efc4947U, 0x5c6bfb31U};

bool ValidSize(size_t num_bytes) {
  return num_bytes >= BloomFilter::kMinBytes && num_bytes <= BloomFilter::kMaxBytes &&
         std::has_single_bit(num_bytes);
}

}  // namespace

Result<BloomFilter> BloomFilter::Make(size_t num_bytes) {
  if (!ValidSize(num_bytes)) {
    return Status::InvalidArgument("Bloom filter size {} is not a power of two in [32 B, 128 MiB]",
                                   num_bytes);
  }
  Buffer bitset;
  bitset.ResizeZeroed(num_bytes);
  return BloomFilter(std::move(bitset));
}

Result<BloomFilter> BloomFilter::FromBitset(std::span<const uint8_t> bitset) {
  if (!ValidSize(bitset.size())) {
    return Status::Corrupt(
        "Bloom filter bitset of {} bytes is not a power of two in [32 B, 128 MiB]", bitset.size());
  }
  Buffer copy;
  copy.Append(bitset);
  return BloomFilter(std::move(copy));
}

Result<size_t> BloomFilter::OptimalNumBytes(uint64_t ndv, double fpp) {
  if (!(fpp > 0.0 && fpp < 1.0)) {
    return Status::InvalidArgument("Bloom filter false-positive probability {} not in (0, 1)", fpp);
  }
  const double bits = -8.0 * static_cast<double>(ndv) / std::log(1.0 - std::pow(fpp, 1.0 / 8));
  constexpr double kMinBits = 8.0 * kMinBytes;
  constexpr double kMaxBits = 8.0 * kMaxBytes;
  const double clamped = std::min(std::max(bits, kMinBits), kMaxBits);
  const uint64_t rounded = std::bit_ceil(static_cast<uint64_t>(std::ceil(clamped)));
  return static_cast<size_t>(rounded / 8);
}

uint32_t* BloomFilter::BlockFor(uint64_t hash) {
  const uint64_t blocks = bitset_.size() / kBytesPerBlock;
  const uint64_t index = ((hash >> 32) * blocks) >> 32;
  // Buffer storage is 16-byte aligned: the words of a block are aligned uint32s, and the
  // host is little-endian as the file format.
  return reinterpret_cast<uint32_t*>(bitset_.data()) + index * 8;
}

const uint32_t* BloomFilter::BlockFor(uint64_t hash) const {
  const uint64_t blocks = bitset_.size() / kBytesPerBlock;
  const uint64_t index = ((hash >> 32) * blocks) >> 32;
  return reinterpret_cast<const uint32_t*>(bitset_.data()) + index * 8;
}

void BloomFilter::Insert(uint64_t hash) {
  uint32_t* block = BlockFor(hash);
  const auto key = static_cast<uint32_t>(hash);
  for (int i = 0; i < 8; ++i) block[i] |= uint32_t{1} << ((key * kSalt[i]) >> 27);
}

void BloomFilter::InsertBatch(const uint64_t* hashes, size_t n) {
  for (size_t i = 0; i < n; ++i) Insert(hashes[i]);
}

bool BloomFilter::Check(uint64_t hash) const {
  const uint32_t* block = BlockFor(hash);
  const auto key = static_cast<uint32_t>(hash);
  uint32_t missing = 0;
  for (int i = 0; i < 8; ++i) missing |= ~block[i] & (uint32_t{1} << ((key * kSalt[i]) >> 27));
  return missing == 0;
}

uint64_t BloomHash(int32_t value) {
  uint8_t bytes[4];
  StoreLE(bytes, value);
  return XXH64(bytes, sizeof(bytes), 0);
}

uint64_t BloomHash(int64_t value) {
  uint8_t bytes[8];
  StoreLE(bytes, value);
  return XXH64(bytes, sizeof(bytes), 0);
}

uint64_t BloomHash(float value) { return BloomHash(std::bit_cast<int32_t>(value)); }
uint64_t BloomHash(double value) { return BloomHash(std::bit_cast<int64_t>(value)); }

uint64_t BloomHash(std::span<const uint8_t> bytes) { return XXH64(bytes.data(), bytes.size(), 0); }

uint64_t BloomHash(std::string_view bytes) { return XXH64(bytes.data(), bytes.size(), 0); }

void BloomHashFixed(const uint8_t* values, size_t n, size_t byte_width, uint64_t* hashes) {
  for (size_t i = 0; i < n; ++i) hashes[i] = XXH64(values + i * byte_width, byte_width, 0);
}

void BloomHashByteArrays(const int64_t* offsets, const uint8_t* data, size_t n, uint64_t* hashes) {
  for (size_t i = 0; i < n; ++i) {
    hashes[i] = XXH64(data + offsets[i], static_cast<size_t>(offsets[i + 1] - offsets[i]), 0);
  }
}

}  // namespace floe::format::parquet
