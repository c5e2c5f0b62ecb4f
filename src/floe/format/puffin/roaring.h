// Bitmap32: a 32-bit Roaring bitmap (array, bitmap and run containers) with the
// RoaringFormatSpec "portable" serialization, the inner layer of Iceberg deletion vectors
// (deletion_vector.h). Written here rather than taken from CRoaring so that every byte of
// an untrusted portable bitmap is validated by one decoder whose memory use is bounded by
// its input size.
//
// Thread-safety: const methods may run concurrently; mutation needs exclusive access.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "floe/base/buffer.h"
#include "floe/base/bytes.h"
#include "floe/base/status.h"

namespace floe::format::puffin {

class Bitmap32 {
 public:
  Bitmap32() = default;

  // Adds `value`; returns false when it was already present.
  bool Add(uint32_t value);
  // Adds every value in [start, end). REQUIRES: start <= end <= 2^32.
  void AddRange(uint64_t start, uint64_t end);
  bool Contains(uint32_t value) const;
  uint64_t cardinality() const;
  bool empty() const { return containers_.empty(); }
  // The largest value. REQUIRES: !empty().
  uint32_t Max() const;
  // Adds every value of `other`.
  void Merge(const Bitmap32& other);

  // Calls fn(uint32_t) for every value in ascending order.
  template <typename Fn>
  void ForEach(Fn&& fn) const;

  // For every value v in [start, end) clears bit (v - start + bit_offset) of the LSB-first
  // bitmap `bits`; returns how many bits were cleared. Cost: a binary search for the first
  // container, then per container the values in range (array), the 64-bit words in range
  // (bitmap) or the runs in range plus the bytes they cover (run). REQUIRES: end <= 2^32.
  uint64_t ClearInRange(uint64_t start, uint64_t end, uint8_t* bits, uint64_t bit_offset) const;

  // Appends the portable serialization, run-optimized the way RoaringBitmap (Java) decides
  // per container: a run container when 2 + 4*runs is smaller than both the array form
  // (2 + 2*cardinality) and the bitmap form (8192 bytes), or equal and it is a run already.
  void SerializePortable(Buffer* out) const;
  // Size SerializePortable would append.
  size_t PortableSizeInBytes() const;
  // Reads one portable bitmap from `in` and advances past it. Validates the cookie, sorted
  // unique container keys, container offsets (when present), sorted array values, sorted
  // non-overlapping runs and every container's cardinality; errors are kCorrupt.
  static Result<Bitmap32> DeserializePortable(ByteReader* in);

  friend bool operator==(const Bitmap32& a, const Bitmap32& b);

 private:
  enum class Kind : uint8_t { kArray, kBitmap, kRun };
  struct Run {
    uint16_t start;
    uint16_t length_minus_one;
  };
  // One 2^16 chunk. Invariant: cardinality >= 1; an array holds at most 4096 values; a
  // bitmap is only kept above 4096 values (except transiently inside an operation).
  struct Container {
    uint16_t key = 0;
    Kind kind = Kind::kArray;
    uint32_t cardinality = 0;
    std::vector<uint16_t> array;  // kArray: sorted unique values
    std::vector<uint64_t> words;  // kBitmap: 1024 words
    std::vector<Run> runs;        // kRun: sorted, non-overlapping

    bool Contains(uint16_t low) const;
    template <typename Fn>
    void ForEach(Fn&& fn) const;
    void ToBitmap();
    void Normalize();
    size_t NumRuns() const;
    Kind SerializedKind() const;
  };

  Container* FindOrInsert(uint16_t key);
  const Container* Find(uint16_t key) const;
  static void AddRangeInContainer(Container* c, uint32_t lo, uint32_t hi);
  static void MergeContainer(Container* c, const Container& other);

  std::vector<Container> containers_;  // sorted by key
};

template <typename Fn>
void Bitmap32::Container::ForEach(Fn&& fn) const {
  const uint32_t base = static_cast<uint32_t>(key) << 16;
  switch (kind) {
    case Kind::kArray:
      for (uint16_t v : array) fn(base | v);
      break;
    case Kind::kBitmap:
      for (uint32_t w = 0; w < words.size(); ++w) {
        uint64_t word = words[w];
        while (word != 0) {
          fn(base | (w * 64 + static_cast<uint32_t>(__builtin_ctzll(word))));
          word &= word - 1;
        }
      }
      break;
    case Kind::kRun:
      for (const Run& r : runs) {
        const uint32_t end = uint32_t{r.start} + r.length_minus_one;
        for (uint32_t v = r.start; v <= end; ++v) fn(base | v);
      }
      break;
  }
}

template <typename Fn>
void Bitmap32::ForEach(Fn&& fn) const {
  for (const Container& c : containers_) c.ForEach(fn);
}

}  // namespace floe::format::puffin
