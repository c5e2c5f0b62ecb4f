#include "floe/io/coalesced_input.h"

#include <gtest/gtest.h>

#include <cstring>

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
  // A range larger than the limit stays whole; overlapping ranges always merge.
  EXPECT_EQ(CoalesceRanges({{0, 80}, {200, 10}}, small),
            (std::vector<ByteRange>{{0, 80}, {200, 10}}));
  EXPECT_EQ(CoalesceRanges({{0, 40}, {30, 40}}, small), (std::vector<ByteRange>{{0, 70}}));
}

TEST(CoalescedInputFile, OneReadPerMergedRangeReleasedWhenConsumed) {
  const std::string data = Pattern(200000);
  CountingFile base(data);
  const uint64_t tail_offset = data.size() - 64;
  std::span<const uint8_t> tail(reinterpret_cast<const uint8_t*>(data.data()) + tail_offset, 64);
  CoalescedInputFile file(base, {{20, 10}, {0, 10}, {100000, 10}}, {}, tail, tail_offset);
  EXPECT_EQ(file.merged_ranges(), (std::vector<ByteRange>{{0, 30}}));

  uint8_t out[16];
  ASSERT_TRUE(file.ReadAt(0, 10, out).ok());
  EXPECT_EQ(std::memcmp(out, data.data(), 10), 0);
  ASSERT_EQ(base.reads, (std::vector<ByteRange>{{0, 30}}));
  ASSERT_TRUE(file.ReadAt(20, 10, out).ok());
  EXPECT_EQ(std::memcmp(out, data.data() + 20, 10), 0);
  EXPECT_EQ(base.reads.size(), 1u);  // served from the merged read
  // Both announced ranges were read: the bytes are gone, a new read goes to the file.
  ASSERT_TRUE(file.ReadAt(0, 10, out).ok());
  EXPECT_EQ(base.reads.back(), (ByteRange{0, 10}));
  // A lone range is read as asked; so is one crossing a merged range's end.
  ASSERT_TRUE(file.ReadAt(100000, 10, out).ok());
  EXPECT_EQ(base.reads.back(), (ByteRange{100000, 10}));
  ASSERT_TRUE(file.ReadAt(25, 10, out).ok());
  EXPECT_EQ(base.reads.back(), (ByteRange{25, 10}));
  // The preloaded tail costs no read.
  const size_t before = base.reads.size();
  ASSERT_TRUE(file.ReadAt(data.size() - 16, 16, out).ok());
  EXPECT_EQ(std::memcmp(out, data.data() + data.size() - 16, 16), 0);
  EXPECT_EQ(base.reads.size(), before);
  // Errors of the underlying file pass through.
  EXPECT_FALSE(file.ReadAt(data.size() - 8, 16, out).ok());
}

TEST(CoalescedInputFile, IgnoresRangesPastTheEnd) {
  CountingFile base(Pattern(100));
  CoalescedInputFile file(base, {{0, 10}, {20, 10}, {90, 20}});
  EXPECT_EQ(file.merged_ranges(), (std::vector<ByteRange>{{0, 30}}));
}

}  // namespace
}  // namespace floe::io
