// PartitionReader over logs held in memory: record batches built with kafka::BatchBuilder
// at chosen base offsets, served by a LogReader as Broker::ReadLog serves them (whole
// batches from the one holding the offset, up to a byte limit, at least one).
#include "floe/ingest/partition_reader.h"

#include <gtest/gtest.h>

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "floe/base/testing.h"

namespace floe::ingest {
namespace {

struct Log {
  std::vector<Buffer> batches;  // in offset order
  int reads = 0;

  void Add(int64_t base_offset, std::vector<std::optional<std::string>> values,
           int64_t timestamp = 1000, std::vector<kafka::RecordHeader> headers = {}) {
    kafka::BatchBuilder b({});
    for (const auto& v : values) b.Add(timestamp, "k", v, headers);
    Buffer out;
    FLOE_ASSERT_OK(b.Finish(&out));
    kafka::SetBatchOffsetAndEpoch({out.data(), out.size()}, base_offset, 0);
    batches.push_back(std::move(out));
  }

  LogReader Reader() {
    return [this](int32_t, int64_t offset, size_t max_bytes, Buffer* out) -> Status {
      ++reads;
      for (const Buffer& batch : batches) {
        auto h = kafka::ParseBatchHeader({batch.data(), batch.size()});
        if (!h.ok()) return h.status();
        if (h->last_offset() < offset) continue;
        if (out->size() > 0 && out->size() + batch.size() > max_bytes) break;
        out->Append(batch.data(), batch.size());
      }
      return Status::OK();
    };
  }
};

std::vector<std::string> Values(const PartitionReader& r) {
  std::vector<std::string> out;
  for (const RecordRef& rec : r.records()) {
    out.push_back(rec.value_len < 0 ? "<null>"
                                    : std::string(r.Bytes(rec.value_pos, rec.value_len)));
  }
  return out;
}

TEST(PartitionReader, CopiesRecordsFromTheOffsetToTheEnd) {
  Log log;
  log.Add(0, {"a", "b", "c"}, 5000);
  log.Add(3, {"d", std::nullopt});
  PartitionReader reader("t", log.Reader(), {});
  // From offset 1: the first batch's record 0 is below it and skipped.
  int64_t next = 1;
  int64_t first_ms = -1;
  FLOE_ASSERT_OK(reader.Read(2, 5, &next, &first_ms));
  EXPECT_EQ(next, 5);
  EXPECT_EQ(first_ms, 5000);
  EXPECT_EQ(Values(reader), (std::vector<std::string>{"b", "c", "d", "<null>"}));
  const RecordRef& b = reader.records()[0];
  EXPECT_EQ(b.partition, 2);
  EXPECT_EQ(b.offset, 1);
  EXPECT_EQ(b.timestamp_ms, 5000);
  EXPECT_EQ(reader.Bytes(b.key_pos, b.key_len), "k");
  EXPECT_EQ(reader.records()[3].offset, 4);
  // Nothing more to read: no call.
  const int reads = log.reads;
  FLOE_ASSERT_OK(reader.Read(2, 5, &next, &first_ms));
  EXPECT_EQ(log.reads, reads);
  reader.Clear();
  EXPECT_TRUE(reader.records().empty());
}

TEST(PartitionReader, HeadersInTheArena) {
  Log log;
  std::vector<kafka::RecordHeader> headers(2);
  headers[0].key = "h1";
  headers[0].value = "xy";
  headers[1].key = "h2";
  log.Add(0, {"v"}, 1000, headers);
  PartitionReader reader("t", log.Reader(), {});
  int64_t next = 0;
  int64_t first_ms = -1;
  FLOE_ASSERT_OK(reader.Read(0, 1, &next, &first_ms));
  ASSERT_EQ(reader.records().size(), 1u);
  const RecordRef& r = reader.records()[0];
  EXPECT_EQ(r.header_count, 2);
  // [u32 key length, key, i32 value length (-1 null), value] per header.
  std::string_view bytes = reader.Bytes(r.headers_pos, 4 + 2 + 4 + 2 + 4 + 2 + 4);
  std::string expected;
  auto u32 = [&](int32_t v) { expected.append(reinterpret_cast<const char*>(&v), 4); };
  u32(2);
  expected += "h1";
  u32(2);
  expected += "xy";
  u32(2);
  expected += "h2";
  u32(-1);
  EXPECT_EQ(bytes, expected);
}

TEST(PartitionReader, StopsWhenTheArenaIsFull) {
  Log log;
  for (int64_t b = 0; b < 4; ++b) log.Add(b * 2, {std::string(100, 'x'), std::string(100, 'y')});
  PartitionReaderOptions options;
  options.read_bytes = 1;  // one batch per read
  options.arena_bytes = 300;
  PartitionReader reader("t", log.Reader(), options);
  int64_t next = 0;
  int64_t first_ms = 7;  // set already: kept
  FLOE_ASSERT_OK(reader.Read(0, 8, &next, &first_ms));
  EXPECT_TRUE(reader.full());
  EXPECT_EQ(next, 4);
  EXPECT_EQ(reader.records().size(), 4u);
  EXPECT_EQ(first_ms, 7);
  reader.Clear();
  FLOE_ASSERT_OK(reader.Read(0, 8, &next, &first_ms));
  EXPECT_EQ(next, 8);
  EXPECT_EQ(reader.records().front().offset, 4);
}

TEST(PartitionReader, ErrorsOfTheLog) {
  Log log;
  PartitionReader empty("t", log.Reader(), {});
  int64_t next = 0;
  int64_t first_ms = -1;
  // The log claims offsets it does not serve.
  EXPECT_EQ(empty.Read(0, 3, &next, &first_ms).code(), StatusCode::kCorrupt);
  log.Add(0, {"a"});
  log.batches[0].data()[log.batches[0].size() - 1] ^= 1;  // breaks the CRC
  PartitionReader broken("t", log.Reader(), {});
  EXPECT_FALSE(broken.Read(0, 1, &next, &first_ms).ok());
  PartitionReader failing(
      "t", [](int32_t, int64_t, size_t, Buffer*) { return Status::Unavailable("gone"); }, {});
  EXPECT_EQ(failing.Read(0, 1, &next, &first_ms).code(), StatusCode::kUnavailable);
}

}  // namespace
}  // namespace floe::ingest
