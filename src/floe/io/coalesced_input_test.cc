#include "floe/io/coalesced_input.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cstring>
#include <mutex>
#include <thread>

#include "floe/base/testing.h"

namespace floe::io {
namespace {

// A file in memory that records the reads sent to it (each would be one GET).
class CountingFile final : public InputFile {
 public:
  explicit CountingFile(std::string bytes) : bytes_(std::move(bytes)) {}
  const std::string& location() const override { return location_; }
  uint64_t size() const override { return bytes_.size(); }
  Status ReadAt(uint64_t offset, size_t n, uint8_t* out) const override {
    reads.push_back({offset, n});
    if (offset > bytes_.size() || n > bytes_.size() - offset) return Status::Corrupt("past end");
    std::memcpy(out, bytes_.data() + offset, n);
    return Status::OK();
  }
  mutable std::vector<ByteRange> reads;

 private:
  std::string location_ = "mem://f";
  std::string bytes_;
};

std::string Pattern(size_t n) {
  std::string s(n, '\0');
  for (size_t i = 0; i < n; ++i) s[i] = static_cast<char>(i * 7 % 251);
  return s;
}

TEST(CoalesceRanges, MergesNearRangesWithinTheSizeLimit) {
  // Arrow's defaults: gaps up to 8 KiB are read through.
  EXPECT_EQ(CoalesceRanges({{100, 10}, {0, 10}, {10, 5}, {20000, 10}, {115, 10}, {50, 0}}),
            (std::vector<ByteRange>{{0, 125}, {20000, 10}}));
  CoalesceOptions small{.hole_size_limit = 100, .range_size_limit = 50};
  EXPECT_EQ(CoalesceRanges({{0, 20}, {30, 20}, {60, 20}}, small),
            (std::vector<ByteRange>{{0, 50}, {60, 20}}));
  // A range larger than the limit stays whole; contained ranges always merge, overlapping
  // ones within the limit.
  EXPECT_EQ(CoalesceRanges({{0, 80}, {200, 10}}, small),
            (std::vector<ByteRange>{{0, 80}, {200, 10}}));
  EXPECT_EQ(CoalesceRanges({{0, 30}, {20, 25}}, small), (std::vector<ByteRange>{{0, 45}}));
  EXPECT_EQ(CoalesceRanges({{0, 80}, {10, 20}, {0, 90}}, small), (std::vector<ByteRange>{{0, 90}}));
  // Past the limit an overlapping range starts the next read (chunks padded into their
  // successors, as the Parquet reader announces them, stay within the limit).
  EXPECT_EQ(CoalesceRanges({{0, 40}, {30, 40}}, small),
            (std::vector<ByteRange>{{0, 40}, {30, 40}}));
  EXPECT_EQ(CoalesceRanges({{0, 30}, {20, 30}, {40, 30}}, small),
            (std::vector<ByteRange>{{0, 50}, {40, 30}}));
}

TEST(CoalescedInputFile, OneReadPerMergedRangeReleasedWhenConsumed) {
  const std::string data = Pattern(200000);
  CountingFile base(data);
  const uint64_t tail_offset = data.size() - 64;
  std::span<const uint8_t> tail(reinterpret_cast<const uint8_t*>(data.data()) + tail_offset, 64);
  CoalescedInputFile file(base, {{20, 10}, {0, 10}, {100000, 10}}, {}, tail, tail_offset);
  EXPECT_EQ(file.merged_ranges(), (std::vector<ByteRange>{{0, 30}}));

  uint8_t out[16];
  FLOE_ASSERT_OK(file.ReadAt(0, 10, out));
  EXPECT_EQ(std::memcmp(out, data.data(), 10), 0);
  ASSERT_EQ(base.reads, (std::vector<ByteRange>{{0, 30}}));
  FLOE_ASSERT_OK(file.ReadAt(20, 10, out));
  EXPECT_EQ(std::memcmp(out, data.data() + 20, 10), 0);
  EXPECT_EQ(base.reads.size(), 1u);  // served from the merged read
  // Both announced ranges were read: the bytes are gone, a new read goes to the file.
  FLOE_ASSERT_OK(file.ReadAt(0, 10, out));
  EXPECT_EQ(base.reads.back(), (ByteRange{0, 10}));
  // A lone range is read as asked; so is one crossing a merged range's end.
  FLOE_ASSERT_OK(file.ReadAt(100000, 10, out));
  EXPECT_EQ(base.reads.back(), (ByteRange{100000, 10}));
  FLOE_ASSERT_OK(file.ReadAt(25, 10, out));
  EXPECT_EQ(base.reads.back(), (ByteRange{25, 10}));
  // The preloaded tail costs no read.
  const size_t before = base.reads.size();
  FLOE_ASSERT_OK(file.ReadAt(data.size() - 16, 16, out));
  EXPECT_EQ(std::memcmp(out, data.data() + data.size() - 16, 16), 0);
  EXPECT_EQ(base.reads.size(), before);
  // Errors of the underlying file pass through.
  EXPECT_FALSE(file.ReadAt(data.size() - 8, 16, out).ok());
}

TEST(CoalescedInputFile, OverlappingNeighboursServeTheirOwnRanges) {
  const std::string data = Pattern(1000);
  CountingFile base(data);
  // Three padded chunks of 30 bytes, each running 10 bytes into the next; two reads.
  const std::vector<ByteRange> ranges = {{0, 40}, {30, 40}, {60, 40}};
  CoalescedInputFile file(base, ranges, {.hole_size_limit = 100, .range_size_limit = 70});
  EXPECT_EQ(file.merged_ranges(), (std::vector<ByteRange>{{0, 70}}));  // {60, 40}: one range
  for (const ByteRange& r : ranges) {
    std::string out(r.length, '\0');
    FLOE_ASSERT_OK(file.ReadAt(r.offset, r.length, reinterpret_cast<uint8_t*>(out.data())));
    EXPECT_EQ(out, data.substr(r.offset, r.length));
  }
  EXPECT_EQ(base.reads, (std::vector<ByteRange>{{0, 70}, {60, 40}}));
}

TEST(CoalescedInputFile, IgnoresRangesPastTheEnd) {
  CountingFile base(Pattern(100));
  CoalescedInputFile file(base, {{0, 10}, {20, 10}, {90, 20}});
  EXPECT_EQ(file.merged_ranges(), (std::vector<ByteRange>{{0, 30}}));
}

// A file of an object store seen from its client: each read takes a round trip, and up to
// `concurrency` reads may be sent at once. A read waits (up to a deadline) until
// `gather` reads are in flight together, so a reader that sends its reads one at a time
// fails instead of passing by luck of timing. Records each read's span in time.
class SlowFile final : public InputFile {
 public:
  SlowFile(std::string bytes, int concurrency, int gather)
      : bytes_(std::move(bytes)), concurrency_(concurrency), gather_(gather) {}
  const std::string& location() const override { return location_; }
  uint64_t size() const override { return bytes_.size(); }
  int max_concurrent_reads() const override { return concurrency_; }
  Status ReadAt(uint64_t offset, size_t n, uint8_t* out) const override {
    const auto start = std::chrono::steady_clock::now();
    {
      std::unique_lock lock(mu_);
      ++in_flight_;
      max_in_flight_ = std::max(max_in_flight_, in_flight_);
      ++arrived_;
      cv_.notify_all();
      // The round trip: over once `gather` reads of this wave have been sent together.
      const int wave_end = ((arrived_ - 1) / gather_ + 1) * gather_;
      if (!cv_.wait_for(lock, std::chrono::seconds(10), [&] { return arrived_ >= wave_end; })) {
        --in_flight_;
        return Status::DeadlineExceeded("read at {} waited alone", offset);
      }
    }
    std::memcpy(out, bytes_.data() + offset, n);
    std::lock_guard lock(mu_);
    --in_flight_;
    reads.push_back({offset, n});
    spans.push_back({start, std::chrono::steady_clock::now()});
    return Status::OK();
  }
  int max_in_flight() const {
    std::lock_guard lock(mu_);
    return max_in_flight_;
  }
  // Guarded by mu_ while reads run; read by the test after they are done.
  mutable std::vector<ByteRange> reads;
  mutable std::vector<
      std::pair<std::chrono::steady_clock::time_point, std::chrono::steady_clock::time_point>>
      spans;

 private:
  std::string location_ = "s3://bucket/slow";
  std::string bytes_;
  int concurrency_;
  int gather_;
  mutable std::mutex mu_;
  mutable std::condition_variable cv_;
  mutable int in_flight_ = 0;
  mutable int max_in_flight_ = 0;
  mutable int arrived_ = 0;
};

// Ranges 20 KiB apart (beyond the 8 KiB hole limit): six separate reads, two of them
// merged ranges of two announced ranges each, four single ones.
std::vector<ByteRange> SpreadRanges() {
  return {{0, 1000},    {2000, 500},   {20000, 3000}, {40000, 100},
          {40200, 700}, {60000, 4096}, {80000, 1},    {100000, 5000}};
}

// Reads every announced range through `file`, as column readers would, and returns the
// bytes in announcement order.
std::vector<std::string> ReadAll(const InputFile& file, const std::vector<ByteRange>& ranges) {
  std::vector<std::string> out;
  for (const ByteRange& r : ranges) {
    std::string bytes(r.length, '\0');
    FLOE_EXPECT_OK(file.ReadAt(r.offset, r.length, reinterpret_cast<uint8_t*>(bytes.data())));
    out.push_back(std::move(bytes));
  }
  return out;
}

TEST(CoalescedInputFile, PrefetchSendsTheRangesConcurrentlyWithTheSameReads) {
  const std::string data = Pattern(120000);
  const std::vector<ByteRange> ranges = SpreadRanges();

  // On demand, one at a time: the reads to expect (and the bytes).
  CountingFile counting(data);
  CoalescedInputFile sequential(counting, ranges);
  const std::vector<std::string> expected = ReadAll(sequential, ranges);
  std::vector<ByteRange> expected_reads = counting.reads;
  ASSERT_EQ(expected_reads.size(), 6u);
  for (size_t i = 0; i < ranges.size(); ++i) {
    ASSERT_EQ(expected[i], data.substr(ranges[i].offset, ranges[i].length));
  }

  // Three reads in flight at a time, and each waits for two others: sequential reads
  // would time out.
  SlowFile slow(data, 3, 3);
  CoalescedInputFile file(slow, ranges);
  FLOE_ASSERT_OK(file.Prefetch());
  EXPECT_EQ(slow.max_in_flight(), 3);  // never more than the file allows
  ASSERT_EQ(slow.spans.size(), 6u);
  // Each of the first three reads overlaps in time with the other two, and so do the last three.
  for (size_t wave : {0u, 3u}) {
    for (size_t i = wave; i < wave + 3; ++i) {
      for (size_t j = wave; j < wave + 3; ++j) {
        EXPECT_LT(slow.spans[i].first, slow.spans[j].second) << i << " " << j;
      }
    }
  }
  // The readers are then served from the fetched bytes: no more reads, the same bytes.
  EXPECT_EQ(ReadAll(file, ranges), expected);
  std::vector<ByteRange> reads = slow.reads;
  std::sort(reads.begin(), reads.end(),
            [](const ByteRange& a, const ByteRange& b) { return a.offset < b.offset; });
  EXPECT_EQ(reads, expected_reads);
  // Everything was consumed: a read now goes to the file again.
  CountingFile after(data);
  CoalescedInputFile again(after, ranges);
  FLOE_ASSERT_OK(again.Prefetch());  // one read at a time: Prefetch leaves it to the readers
  EXPECT_TRUE(after.reads.empty());
}

TEST(CoalescedInputFile, PrefetchHoldsAtMostItsLimit) {
  const std::string data = Pattern(120000);
  const std::vector<ByteRange> ranges = SpreadRanges();
  // Merged ranges of 2500, 3000, 900, 4096, 1 and 5000 bytes: 6500 bytes take the first
  // three; the rest are fetched on demand, as before.
  SlowFile slow(data, 4, 3);
  CoalesceOptions limited;
  limited.prefetch_limit_bytes = 6500;
  CoalescedInputFile file(slow, ranges, limited);
  FLOE_ASSERT_OK(file.Prefetch());
  EXPECT_EQ(slow.reads.size(), 3u);
  EXPECT_EQ(slow.max_in_flight(), 3);
  // A second Prefetch counts what the first still holds: nothing more fits.
  FLOE_ASSERT_OK(file.Prefetch());
  EXPECT_EQ(slow.reads.size(), 3u);
}

TEST(CoalescedInputFile, PrefetchReportsAFailedRead) {
  const std::string data = Pattern(1000);
  // The second range lies past the end of the file: its read fails.
  class Truncated final : public InputFile {
   public:
    explicit Truncated(const std::string& d) : data_(d) {}
    const std::string& location() const override { return location_; }
    uint64_t size() const override { return 200000; }
    int max_concurrent_reads() const override { return 2; }
    Status ReadAt(uint64_t offset, size_t n, uint8_t* out) const override {
      if (offset + n > data_.size()) return Status::IOError("connection reset");
      std::memcpy(out, data_.data() + offset, n);
      return Status::OK();
    }

   private:
    std::string location_ = "s3://bucket/truncated";
    const std::string& data_;
  } base(data);
  CoalescedInputFile file(base, {{0, 100}, {50000, 100}});
  EXPECT_EQ(file.Prefetch().code(), StatusCode::kIOError);
  // The range that was read serves its reader; the other fails again on demand.
  uint8_t out[100];
  FLOE_EXPECT_OK(file.ReadAt(0, 100, out));
  EXPECT_EQ(std::memcmp(out, data.data(), 100), 0);
  EXPECT_FALSE(file.ReadAt(50000, 100, out).ok());
}

}  // namespace
}  // namespace floe::io
