// The split-block Bloom filter (SBBF) bitset of Parquet (BloomFilter.md, parquet.md §8):
// z = num_bytes / 32 blocks of eight 32-bit little-endian words. A 64-bit hash h selects
// block ((h >> 32) * z) >> 32 and, through the eight salts, one bit in each word of it.
// Values are hashed with XXH64 (seed 0) over their PLAIN bytes without a length prefix.
// The BloomFilterHeader around the bitset is Thrift and lives with the file metadata.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>

#include "floe/base/buffer.h"
#include "floe/base/status.h"

namespace floe::format::parquet {

// Not thread-safe for Insert; Check is const and may run concurrently with other Checks.
class BloomFilter {
 public:
  static constexpr size_t kBytesPerBlock = 32;
  static constexpr size_t kMinBytes = 32;
  static constexpr size_t kMaxBytes = size_t{128} << 20;  // Arrow's read limit

  // Returns an empty filter of num_bytes bytes. kInvalidArgument: num_bytes is not a power
  // of two in [32 B, 128 MiB].
  static Result<BloomFilter> Make(size_t num_bytes);
  // Returns a filter holding a copy of a bitset read from a file. kCorrupt: its size is not
  // a power of two in [32 B, 128 MiB] (what Arrow and parquet-java write and accept).
  static Result<BloomFilter> FromBitset(std::span<const uint8_t> bitset);
  // Returns the bitset size for ndv distinct values at false-positive probability fpp: the
  // spec's -8 * ndv / ln(1 - fpp^(1/8)) bits, clamped to [32 B, 128 MiB] and rounded up to
  // a power of two (as Arrow's OptimalNumOfBits). kInvalidArgument: fpp not in (0, 1).
  static Result<size_t> OptimalNumBytes(uint64_t ndv, double fpp);

  BloomFilter(BloomFilter&&) noexcept = default;
  BloomFilter& operator=(BloomFilter&&) noexcept = default;

  void Insert(uint64_t hash);
  void InsertBatch(const uint64_t* hashes, size_t n);
  // False: no value with this hash was inserted. True: one probably was.
  bool Check(uint64_t hash) const;

  size_t num_bytes() const { return bitset_.size(); }
  // The bitset as stored in a file (words little-endian).
  std::span<const uint8_t> bitset() const { return bitset_.span(); }

 private:
  explicit BloomFilter(Buffer bitset) : bitset_(std::move(bitset)) {}

  uint32_t* BlockFor(uint64_t hash);
  const uint32_t* BlockFor(uint64_t hash) const;

  Buffer bitset_;
};

// XXH64 with seed 0 of a value's PLAIN bytes, the hash Parquet Bloom filters use.
// INT32 and FLOAT hash 4 LE bytes, INT64 and DOUBLE 8 (so -0.0 and 0.0, and NaNs with
// different bits, hash differently); INT96 and FIXED_LEN_BYTE_ARRAY their raw bytes;
// BYTE_ARRAY its bytes without the length prefix.
uint64_t BloomHash(int32_t value);
uint64_t BloomHash(int64_t value);
uint64_t BloomHash(float value);
uint64_t BloomHash(double value);
uint64_t BloomHash(std::span<const uint8_t> bytes);
uint64_t BloomHash(std::string_view bytes);

// Hashes n values into hashes[0..n): fixed-width values of byte_width bytes each (4 or 8
// for the numeric types, the FLBA length otherwise).
void BloomHashFixed(const uint8_t* values, size_t n, size_t byte_width, uint64_t* hashes);
// Hashes n byte arrays in column layout (value i is data[offsets[i], offsets[i + 1])).
void BloomHashByteArrays(const int64_t* offsets, const uint8_t* data, size_t n, uint64_t* hashes);

}  // namespace floe::format::parquet
