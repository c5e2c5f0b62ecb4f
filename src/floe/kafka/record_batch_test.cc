#include "floe/kafka/record_batch.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "floe/base/bytes.h"
#include "floe/base/crc.h"
#include "floe/base/testing.h"

namespace floe::kafka {
namespace {

struct Decoded {
  int64_t offset;
  int64_t timestamp;
  std::optional<std::string> key;
  std::optional<std::string> value;
  std::vector<RecordHeader> headers;
};

std::vector<Decoded> DecodeAll(std::span<const uint8_t> batch) {
  std::vector<Decoded> out;
  Buffer scratch;
  Status s = DecodeRecords(batch, 1 << 20, &scratch, [&](const Record& r) {
    Decoded d{r.offset, r.timestamp, std::nullopt, std::nullopt, r.headers};
    if (r.key) d.key.emplace(reinterpret_cast<const char*>(r.key->data()), r.key->size());
    if (r.value) d.value.emplace(reinterpret_cast<const char*>(r.value->data()), r.value->size());
    out.push_back(std::move(d));
    return Status::OK();
  });
  FLOE_EXPECT_OK(s);
  return out;
}

TEST(RecordBatchTest, HandWrittenUncompressedBatch) {
  // One record, key "k", value "v", no headers, BaseTimestamp 1000, per kafka.md §4.1/§4.3.
  std::vector<uint8_t> rec = {
      0x00,       // attributes
      0x00,       // timestamp delta 0
      0x00,       // offset delta 0
      0x02, 'k',  // key length 1 (zig-zag 2)
      0x02, 'v',  // value length 1
      0x00,       // header count 0
  };
  std::vector<uint8_t> batch(61, 0);
  StoreBE<uint32_t>(batch.data() + 8, static_cast<uint32_t>(61 - 12 + 1 + rec.size()));
  StoreBE<uint32_t>(batch.data() + 12, 0xffffffff);
  batch[16] = 2;
  StoreBE<uint32_t>(batch.data() + 23, 0);     // last offset delta
  StoreBE<uint64_t>(batch.data() + 27, 1000);  // base timestamp
  StoreBE<uint64_t>(batch.data() + 35, 1000);  // max timestamp
  StoreBE<uint64_t>(batch.data() + 43, ~uint64_t{0});
  StoreBE<uint16_t>(batch.data() + 51, 0xffff);
  StoreBE<uint32_t>(batch.data() + 53, 0xffffffff);
  StoreBE<uint32_t>(batch.data() + 57, 1);
  batch.push_back(static_cast<uint8_t>(rec.size() * 2));  // record length, zig-zag
  batch.insert(batch.end(), rec.begin(), rec.end());
  StoreBE<uint32_t>(batch.data() + 17, Crc32c(0, batch.data() + 21, batch.size() - 21));

  Result<BatchHeader> h = ValidateBatch(batch);
  FLOE_ASSERT_OK(h);
  EXPECT_EQ(h->records_count, 1);
  EXPECT_EQ(h->producer_id, -1);
  auto records = DecodeAll(batch);
  ASSERT_EQ(records.size(), 1u);
  EXPECT_EQ(records[0].key, "k");
  EXPECT_EQ(records[0].value, "v");
  EXPECT_EQ(records[0].timestamp, 1000);

  // The builder produces the same bytes for the same record.
  BatchBuilder b({});
  b.Add(1000, "k", "v");
  Buffer built;
  FLOE_ASSERT_OK(b.Finish(&built));
  EXPECT_EQ(std::vector<uint8_t>(built.data(), built.data() + built.size()), batch);
}

TEST(RecordBatchTest, EveryCodecRoundTrips) {
  struct Case {
    BatchCodec codec;
    bool xerial;
  };
  for (Case c : {Case{BatchCodec::kNone, false}, Case{BatchCodec::kGzip, false},
                 Case{BatchCodec::kSnappy, false}, Case{BatchCodec::kSnappy, true},
                 Case{BatchCodec::kLz4, false}, Case{BatchCodec::kZstd, false}}) {
    BatchBuilderOptions options;
    options.codec = c.codec;
    options.xerial_snappy = c.xerial;
    options.producer_id = 7;
    options.producer_epoch = 1;
    options.base_sequence = 10;
    BatchBuilder b(options);
    std::string big(100000, 'x');  // crosses xerial's 32 KiB blocks
    b.Add(5000, std::nullopt, big, {{"h1", "v1"}, {"h2", std::nullopt}});
    b.Add(5003, "key2", std::nullopt);
    b.Add(4990, "key3", "value3");
    Buffer out;
    FLOE_ASSERT_OK(b.Finish(&out));
    Result<BatchHeader> h = ValidateBatch(out.span());
    FLOE_ASSERT_OK(h);
    EXPECT_EQ(h->codec(), c.codec);
    EXPECT_EQ(h->last_offset_delta, 2);
    EXPECT_EQ(h->max_timestamp, 5003);
    EXPECT_EQ(h->last_sequence(), 12);
    if (c.codec != BatchCodec::kNone) {
      EXPECT_LT(out.size(), 10000u);
    }
    if (c.xerial) {
      EXPECT_TRUE(IsXerialSnappy(out.span().subspan(61)));
    }
    auto records = DecodeAll(out.span());
    ASSERT_EQ(records.size(), 3u);
    EXPECT_FALSE(records[0].key.has_value());
    EXPECT_EQ(records[0].value, big);
    ASSERT_EQ(records[0].headers.size(), 2u);
    EXPECT_EQ(records[0].headers[0].key, "h1");
    EXPECT_EQ(records[0].headers[0].value, "v1");
    EXPECT_FALSE(records[0].headers[1].value.has_value());
    EXPECT_EQ(records[1].key, "key2");
    EXPECT_FALSE(records[1].value.has_value());
    EXPECT_EQ(records[1].offset, 1);
    EXPECT_EQ(records[2].timestamp, 4990);
  }
}

TEST(RecordBatchTest, BadCrcIsCorrupt) {
  BatchBuilder b({});
  b.Add(1, "a", "b");
  Buffer out;
  FLOE_ASSERT_OK(b.Finish(&out));
  out.data()[out.size() - 1] ^= 1;
  EXPECT_TRUE(ValidateBatch(out.span()).error().IsCorrupt());
}

TEST(RecordBatchTest, OffsetAndEpochAreOutsideTheCrc) {
  BatchBuilder b({});
  b.Add(1, "a", "b");
  Buffer out;
  FLOE_ASSERT_OK(b.Finish(&out));
  SetBatchOffsetAndEpoch({out.data(), out.size()}, 12345, 7);
  Result<BatchHeader> h = ValidateBatch(out.span());
  FLOE_ASSERT_OK(h);
  EXPECT_EQ(h->base_offset, 12345);
  EXPECT_EQ(h->partition_leader_epoch, 7);
}

TEST(RecordBatchTest, DecompressionIsBounded) {
  BatchBuilderOptions options;
  options.codec = BatchCodec::kZstd;
  BatchBuilder b(options);
  b.Add(1, std::nullopt, std::string(1 << 20, 'z'));
  Buffer out;
  FLOE_ASSERT_OK(b.Finish(&out));
  Buffer scratch;
  Status s = DecodeRecords(out.span(), 1000, &scratch, [](const Record&) { return Status::OK(); });
  EXPECT_TRUE(s.IsCorrupt()) << s.ToString();
}

TEST(RecordBatchTest, WrongMagicAndCountsAreInvalid) {
  BatchBuilder b({});
  b.Add(1, "a", "b");
  Buffer out;
  FLOE_ASSERT_OK(b.Finish(&out));
  Buffer magic = out.Clone();
  magic.data()[16] = 1;
  EXPECT_TRUE(ValidateBatch(magic.span()).error().IsInvalidArgument());
  Buffer count = out.Clone();
  StoreBE<uint32_t>(count.data() + 57, 2);
  StoreBE<uint32_t>(count.data() + 17, Crc32c(0, count.data() + 21, count.size() - 21));
  EXPECT_TRUE(ValidateBatch(count.span()).error().IsInvalidArgument());
  EXPECT_TRUE(ValidateBatch(out.span().subspan(0, 30)).error().IsCorrupt());
}

// The checks Kafka's LogValidator makes inside a batch whose header and CRC are right: each
// case is a valid batch with one thing changed and its CRC (and, where the change resizes
// it, its length) fixed up.
TEST(RecordBatchTest, RecordsInsideAValidHeaderAreChecked) {
  BatchBuilder b({});
  b.Add(1, "a", "b");
  b.Add(2, "c", "d", {{"h", std::string("v")}});
  Buffer good;
  FLOE_ASSERT_OK(b.Finish(&good));
  auto fix = [](std::vector<uint8_t>& batch) {
    StoreBE<uint32_t>(batch.data() + 8, static_cast<uint32_t>(batch.size() - 12));
    StoreBE<uint32_t>(batch.data() + 17, Crc32c(0, batch.data() + 21, batch.size() - 21));
  };
  auto check = [](const std::vector<uint8_t>& batch) {
    Result<BatchHeader> h = ValidateBatch(batch);
    FLOE_EXPECT_OK(h);
    Buffer scratch;
    return h.ok() ? ValidateRecords(batch, *h, 1 << 20, &scratch) : h.error();
  };
  const std::vector<uint8_t> base(good.data(), good.data() + good.size());
  FLOE_EXPECT_OK(check(base));
  // The first record is at byte 61: its length (zig-zag), attributes, timestamp delta,
  // offset delta.
  {
    std::vector<uint8_t> more = base;  // the header claims 3 records, 2 are there
    StoreBE<uint32_t>(more.data() + 57, 3);
    StoreBE<uint32_t>(more.data() + 23, 2);
    fix(more);
    EXPECT_TRUE(check(more).IsInvalidArgument()) << check(more).ToString();
  }
  {
    std::vector<uint8_t> trailing = base;  // garbage after the last record
    trailing.insert(trailing.end(), {0x02, 0x00, 0x00});
    fix(trailing);
    EXPECT_TRUE(check(trailing).IsCorrupt()) << check(trailing).ToString();
  }
  {
    std::vector<uint8_t> longer = base;  // the first record's length runs into the second
    longer[61] = static_cast<uint8_t>(longer[61] + 2);
    fix(longer);
    EXPECT_FALSE(check(longer).ok());
  }
  {
    std::vector<uint8_t> delta = base;  // the first record's offset delta 1
    delta[64] = 0x02;
    fix(delta);
    EXPECT_TRUE(check(delta).IsInvalidArgument()) << check(delta).ToString();
  }
}

}  // namespace
}  // namespace floe::kafka
