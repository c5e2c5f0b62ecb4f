// Coalesced range reads. On an object store every read is a billed request with tens of
// milliseconds of latency, so a reader that knows which byte ranges it is about to need
// (a Parquet row group's column chunks) announces them, and nearby ones are fetched
// together: ranges closer than `hole_size_limit` merge (the gap is read and thrown away),
// and a merged read stays under `range_size_limit` (the defaults are Arrow's
// ReadRangeCache / CacheOptions: 8 KiB and 32 MiB).
#pragma once

#include <cstdint>
#include <mutex>
#include <span>
#include <string>
#include <vector>

#include "floe/base/buffer.h"
#include "floe/io/file_io.h"

namespace floe::io {

struct ByteRange {
  uint64_t offset = 0;
  uint64_t length = 0;

  uint64_t end() const { return offset + length; }
  bool operator==(const ByteRange&) const = default;
};

struct CoalesceOptions {
  uint64_t hole_size_limit = uint64_t{8} << 10;
  uint64_t range_size_limit = uint64_t{32} << 20;
  // The most bytes CoalescedInputFile::Prefetch fetches ahead of their readers (at least
  // one range): what concurrent fetching may hold beyond fetching on demand.
  uint64_t prefetch_limit_bytes = uint64_t{64} << 20;
};

// Sorts `ranges` and merges near and overlapping ones while the merged range stays within
// range_size_limit (a single range larger than that stays whole; a range contained in
// another, or starting with it, always merges). The results start at increasing offsets;
// neighbours may overlap where announced ranges did. Empty ranges are dropped.
std::vector<ByteRange> CoalesceRanges(std::vector<ByteRange> ranges,
                                      const CoalesceOptions& options = {});

// An InputFile over `base` that serves each read lying inside a merged range from one read
// of that merged range, made at the first read that needs it. A merged range's bytes are
// dropped once as many bytes have been served from it as its announced ranges hold (each
// announced range is read once, whole, by its reader), so memory follows the reads still
// to come. Reads inside `preloaded` (bytes of the file already in memory, starting at
// `preloaded_offset`: the tail read with a Parquet footer) cost no request; reads outside
// every merged range, and merged ranges holding a single announced range (unless
// Prefetch fetched them), go to `base`.
// `base` and `preloaded` must outlive this. Thread-safe (a lock per file; a merged range is
// fetched under it on demand, outside it by Prefetch).
class CoalescedInputFile final : public InputFile {
 public:
  CoalescedInputFile(const InputFile& base, std::vector<ByteRange> ranges,
                     const CoalesceOptions& options = {}, std::span<const uint8_t> preloaded = {},
                     uint64_t preloaded_offset = 0);

  const std::string& location() const override { return base_.location(); }
  uint64_t size() const override { return base_.size(); }
  Status ReadAt(uint64_t offset, size_t n, uint8_t* out) const override;
  int max_concurrent_reads() const override { return base_.max_concurrent_reads(); }

  // Fetches the ranges not fetched yet (merged ones and single announced ones), in offset
  // order as many as fit in options.prefetch_limit_bytes (at least one), with up to
  // base.max_concurrent_reads() reads in flight: on an object store a row group's ranges
  // then cost about one round trip instead of one each. The reads sent are the ones
  // on-demand fetching sends (each range once, whole), so bytes and request counts do not
  // change. Does nothing when the base takes one read at a time or fewer than two ranges
  // are pending. Bytes fetched here are held until their announced ranges have been read
  // (or this file is destroyed): at most prefetch_limit_bytes. Uses up to
  // max_concurrent_reads() - 1 short-lived threads besides the caller's, joined before it
  // returns. Call it before the reads it serves. Errors: the first failed read's (the
  // ranges read successfully stay fetched).
  Status Prefetch();

  // Merged ranges that will be (or were) fetched as one read each.
  std::vector<ByteRange> merged_ranges() const;

 private:
  enum class State { kPending, kFetched, kReleased };
  struct Merged {
    ByteRange range;
    int members = 0;
    uint64_t unread = 0;  // bytes of announced ranges not yet served
    State state = State::kPending;
    Buffer bytes;
  };

  const InputFile& base_;
  const uint64_t prefetch_limit_bytes_;
  const std::span<const uint8_t> preloaded_;
  const uint64_t preloaded_offset_;
  mutable std::mutex mu_;
  // By increasing offset; an announced range lies in the last one starting at or before
  // it. Guarded by mu_.
  mutable std::vector<Merged> merged_;
};

}  // namespace floe::io
