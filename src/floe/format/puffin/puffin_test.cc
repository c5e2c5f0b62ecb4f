// Puffin files: the layout from puffin-spec.md, blob codecs, a compressed footer, deletion
// vector blobs located the way manifests locate them, and malformed files.
#include "floe/format/puffin/puffin.h"

#include <cstring>

#include <gtest/gtest.h>

#include "floe/base/bytes.h"
#include "floe/base/testing.h"
#include "floe/format/compression/codec.h"
#include "floe/format/puffin/deletion_vector.h"
#include "floe/io/memory_file_io.h"

namespace floe::format::puffin {
namespace {

std::span<const uint8_t> Bytes(std::string_view s) {
  return {reinterpret_cast<const uint8_t*>(s.data()), s.size()};
}

class PuffinTest : public ::testing::Test {
 protected:
  // Runs `body` against a writer on a fresh file and returns the file's bytes.
  std::string Write(const std::function<void(PuffinWriter&)>& body, PuffinFileInfo* info = nullptr,
                    PuffinWriterOptions options = {}) {
    auto out = io_.CreateOutput("f.puffin", /*overwrite=*/true);
    FLOE_EXPECT_OK(out);
    auto writer = PuffinWriter::Make(out->get(), std::move(options));
    FLOE_EXPECT_OK(writer);
    body(**writer);
    auto finished = (*writer)->Finish();
    FLOE_EXPECT_OK(finished);
    if (info) *info = *finished;
    FLOE_EXPECT_OK((*out)->Close());
    auto bytes = io_.ReadFile("f.puffin");
    return std::string(bytes->view());
  }

  Result<std::unique_ptr<PuffinReader>> Open(const std::string& bytes,
                                             PuffinReaderOptions options = {}) {
    io_.Put("r.puffin", bytes);
    FLOE_ASSIGN_OR_RETURN(file_, io_.OpenInput("r.puffin"));
    return PuffinReader::Open(*file_, options);
  }

  void ExpectCorrupt(const std::string& bytes) {
    auto r = Open(bytes);
    ASSERT_THAT(r, IsError(StatusCode::kCorrupt));
  }

  io::MemoryFileIO io_;
  std::unique_ptr<io::InputFile> file_;
};

// An empty file is the magic followed by a footer (spec, "File structure").
TEST_F(PuffinTest, EmptyFileLayout) {
  PuffinFileInfo info;
  std::string bytes = Write([](PuffinWriter&) {}, &info);
  const std::string payload = R"({"blobs":[],"properties":{"created-by":"floe version 0.1.0"}})";
  std::string expected = "PFA1PFA1" + payload;
  char size[4];
  StoreLE<int32_t>(size, static_cast<int32_t>(payload.size()));
  expected.append(size, 4);
  expected.append(std::string(4, '\0'));
  expected.append("PFA1");
  EXPECT_EQ(bytes, expected);
  EXPECT_EQ(info.file_size, bytes.size());
  EXPECT_EQ(info.footer_size, bytes.size() - 4);
  auto reader = Open(bytes);
  FLOE_ASSERT_OK(reader);
  EXPECT_TRUE((*reader)->blobs().empty());
  EXPECT_EQ((*reader)->footer_size(), info.footer_size);
  ASSERT_EQ((*reader)->properties().size(), 1u);
  EXPECT_EQ((*reader)->properties()[0].second, "floe version 0.1.0");
}

TEST_F(PuffinTest, BlobsWithEveryCodec) {
  std::string big(100000, 'x');
  for (size_t i = 0; i < big.size(); i += 7) big[i] = static_cast<char>('a' + i % 26);
  const int32_t fields[] = {1, 2};
  std::vector<BlobLocation> locations;
  PuffinFileInfo info;
  std::string bytes = Write(
      [&](PuffinWriter& w) {
        for (PuffinCodec codec : {PuffinCodec::kNone, PuffinCodec::kZstd, PuffinCodec::kLz4}) {
          auto loc = w.AddBlob("apache-datasketches-theta-v1", fields, 42, 7, Bytes(big),
                               {{"ndv", "26"}}, codec);
          FLOE_ASSERT_OK(loc);
          locations.push_back(*loc);
        }
        auto empty = w.AddBlob("empty", {}, 1, 1, {}, {});
        FLOE_ASSERT_OK(empty);
        locations.push_back(*empty);
      },
      &info, PuffinWriterOptions{{{"created-by", "test"}, {"k", "v"}}});
  EXPECT_EQ(locations[0].offset, 4u);
  EXPECT_EQ(locations[0].length, big.size());
  EXPECT_EQ(locations[1].offset, 4 + big.size());
  EXPECT_LT(locations[1].length, big.size());
  EXPECT_EQ(locations[3].length, 0u);
  EXPECT_EQ(bytes.substr(4, big.size()), big);

  auto reader = Open(bytes);
  FLOE_ASSERT_OK(reader);
  const auto& blobs = (*reader)->blobs();
  ASSERT_EQ(blobs.size(), 4u);
  EXPECT_EQ((*reader)->footer_size(), info.footer_size);
  EXPECT_EQ(info.file_size, bytes.size());
  EXPECT_FALSE(blobs[0].compression_codec.has_value());
  EXPECT_EQ(blobs[1].compression_codec, "zstd");
  EXPECT_EQ(blobs[2].compression_codec, "lz4");
  for (size_t i = 0; i < 3; ++i) {
    EXPECT_EQ(blobs[i].type, "apache-datasketches-theta-v1");
    EXPECT_EQ(blobs[i].fields, (std::vector<int32_t>{1, 2}));
    EXPECT_EQ(blobs[i].snapshot_id, 42);
    EXPECT_EQ(blobs[i].sequence_number, 7);
    EXPECT_EQ(blobs[i].offset, locations[i].offset);
    EXPECT_EQ(blobs[i].length, locations[i].length);
    ASSERT_NE(blobs[i].FindProperty("ndv"), nullptr);
    auto content = (*reader)->ReadBlob(blobs[i]);
    FLOE_ASSERT_OK(content);
    EXPECT_EQ(content->view(), big);
  }
  EXPECT_EQ((*reader)->properties(), (Properties{{"created-by", "test"}, {"k", "v"}}));
  // Decompression-bomb bound. (Open replaces file_, so `reader` is not used after this.)
  auto small = Open(bytes, PuffinReaderOptions{.max_blob_bytes = 1000});
  FLOE_ASSERT_OK(small);
  EXPECT_EQ((*small)->ReadBlob(blobs[1]).status().code(), StatusCode::kCorrupt);
  EXPECT_EQ((*small)->ReadBlob(blobs[0]).status().code(), StatusCode::kCorrupt);
  // Unknown codec.
  BlobMetadata odd = blobs[0];
  odd.compression_codec = "brotli";
  EXPECT_EQ((*small)->ReadBlob(odd).status().code(), StatusCode::kUnimplemented);
}

// The footer payload may be one LZ4 frame (flags byte 0, bit 0).
TEST_F(PuffinTest, ReadsCompressedFooter) {
  const std::string payload =
      R"({"blobs":[{"type":"t","fields":[1],"snapshot-id":5,"sequence-number":6,)"
      R"("offset":4,"length":3,"compression-codec":null}],"properties":{"created-by":"x"}})";
  auto codec = Codec::Make(CompressionKind::kLz4Frame);
  FLOE_ASSERT_OK(codec);
  Buffer compressed;
  FLOE_ASSERT_OK((*codec)->Compress(Bytes(payload), &compressed));
  std::string bytes = "PFA1abcPFA1" + std::string(compressed.view());
  char trailer[8] = {};
  StoreLE<int32_t>(trailer, static_cast<int32_t>(compressed.size()));
  trailer[4] = 1;
  bytes.append(trailer, 8);
  bytes.append("PFA1");
  auto reader = Open(bytes);
  FLOE_ASSERT_OK(reader);
  EXPECT_TRUE((*reader)->footer_compressed());
  EXPECT_EQ((*reader)->footer_size(), compressed.size() + 16);
  ASSERT_EQ((*reader)->blobs().size(), 1u);
  auto blob = (*reader)->ReadBlob((*reader)->blobs()[0]);
  FLOE_ASSERT_OK(blob);
  EXPECT_EQ(blob->view(), "abc");
  // The same bytes with the flag clear are not JSON.
  bytes[bytes.size() - 8] = 0;
  ExpectCorrupt(bytes);
}

TEST_F(PuffinTest, DeletionVectorBlobs) {
  PositionBitmap a;
  FLOE_ASSERT_OK(a.Add(0));
  FLOE_ASSERT_OK(a.Add(5));
  PositionBitmap b;
  FLOE_ASSERT_OK(b.AddRange(100, 200000));
  FLOE_ASSERT_OK(b.Add((uint64_t{1} << 32) + 5));
  std::vector<DeletionVectorInfo> dvs;
  std::string bytes = Write([&](PuffinWriter& w) {
    for (const PositionBitmap* p : {&a, &b}) {
      auto info = WriteDeletionVectorBlob(w, p == &a ? "s3://b/a.parquet" : "s3://b/b.parquet", *p);
      FLOE_ASSERT_OK(info);
      dvs.push_back(*info);
    }
  });
  EXPECT_EQ(dvs[0].content_offset, 4u);
  EXPECT_EQ(dvs[0].content_size_in_bytes, 44u);
  EXPECT_EQ(dvs[0].record_count, 2u);
  EXPECT_EQ(dvs[1].content_offset, 48u);
  EXPECT_EQ(dvs[1].record_count, 199901u);
  auto reader = Open(bytes);
  FLOE_ASSERT_OK(reader);
  const BlobMetadata& m = (*reader)->blobs()[0];
  EXPECT_EQ(m.type, "deletion-vector-v1");
  EXPECT_EQ(m.fields, (std::vector<int32_t>{2147483645}));
  EXPECT_EQ(m.snapshot_id, -1);
  EXPECT_EQ(m.sequence_number, -1);
  EXPECT_FALSE(m.compression_codec.has_value());
  EXPECT_EQ(m.properties,
            (Properties{{"referenced-data-file", "s3://b/a.parquet"}, {"cardinality", "2"}}));
  // The footer JSON as Java's FileMetadataParser writes it.
  EXPECT_NE(bytes.find(R"({"type":"deletion-vector-v1","fields":[2147483645],"snapshot-id":-1,)"
                       R"("sequence-number":-1,"offset":4,"length":44,"properties":)"
                       R"({"referenced-data-file":"s3://b/a.parquet","cardinality":"2"}})"),
            std::string::npos);

  for (size_t i = 0; i < 2; ++i) {
    auto dv = ReadDeletionVector(*file_, dvs[i].content_offset, dvs[i].content_size_in_bytes,
                                 static_cast<int64_t>(dvs[i].record_count));
    FLOE_ASSERT_OK(dv);
    EXPECT_EQ(*dv, i == 0 ? a : b);
  }
  // Manifest values that do not fit the file, or disagree with the blob.
  EXPECT_EQ(ReadDeletionVector(*file_, 4, 43, 2).status().code(), StatusCode::kCorrupt);
  EXPECT_EQ(ReadDeletionVector(*file_, 4, 44, 3).status().code(), StatusCode::kCorrupt);
  FLOE_EXPECT_OK(ReadDeletionVector(*file_, 4, 44, -1));
  EXPECT_EQ(ReadDeletionVector(*file_, bytes.size() - 10, 44, 2).status().code(),
            StatusCode::kCorrupt);
  EXPECT_EQ(ReadDeletionVector(*file_, UINT64_MAX, 44, 2).status().code(), StatusCode::kCorrupt);
}

TEST_F(PuffinTest, MalformedFiles) {
  std::string good = Write([](PuffinWriter& w) {
    const int32_t f[] = {1};
    FLOE_ASSERT_OK(w.AddBlob("t", f, 1, 2, Bytes("hello"), {}));
  });
  FLOE_ASSERT_OK(Open(good));
  for (size_t n = 0; n < good.size(); ++n) {
    auto r = Open(good.substr(0, n));
    ASSERT_FALSE(r.ok()) << n;
    ASSERT_EQ(r.status().code(), StatusCode::kCorrupt) << n << " " << r.status().ToString();
  }
  auto bad = good;
  bad[0] = 'X';
  ExpectCorrupt(bad);
  bad = good;
  bad[bad.size() - 1] = 'X';
  ExpectCorrupt(bad);
  bad = good;
  bad[9] = 'X';  // footer magic (after "PFA1hello")
  ExpectCorrupt(bad);
  // Payload size: negative, beyond the file, beyond the limit.
  for (int32_t size : {-1, INT32_MAX, 1 << 20}) {
    bad = good;
    StoreLE<int32_t>(bad.data() + bad.size() - 12, size);
    ExpectCorrupt(bad);
  }
  auto limited = Open(good, PuffinReaderOptions{.max_footer_payload_bytes = 10});
  EXPECT_EQ(limited.status().code(), StatusCode::kCorrupt);
  // Unknown flags.
  bad = good;
  bad[bad.size() - 6] = 1;
  auto flags = Open(bad);
  EXPECT_EQ(flags.status().code(), StatusCode::kUnimplemented);
}

// Footers whose JSON is wrong in each way a required member can be wrong.
TEST_F(PuffinTest, MalformedFooterJson) {
  auto file_with = [](const std::string& payload) {
    std::string bytes = "PFA1hello!PFA1" + payload;
    char trailer[8] = {};
    StoreLE<int32_t>(trailer, static_cast<int32_t>(payload.size()));
    bytes.append(trailer, 8);
    bytes.append("PFA1");
    return bytes;
  };
  const std::string ok_blob =
      R"({"type":"t","fields":[1],"snapshot-id":1,"sequence-number":1,"offset":4,"length":6})";
  FLOE_ASSERT_OK(Open(file_with(R"({"blobs":[)" + ok_blob + "]}")));
  for (
      const char* payload : {
          "",
          "{",
          "[]",
          R"({"blobs":{}})",
          R"({"properties":{}})",
          R"({"blobs":[1]})",
          R"({"blobs":[{"fields":[1],"snapshot-id":1,"sequence-number":1,"offset":4,"length":6}]})",
          R"({"blobs":[{"type":"t","snapshot-id":1,"sequence-number":1,"offset":4,"length":6}]})",
          R"({"blobs":[{"type":"t","fields":["a"],"snapshot-id":1,"sequence-number":1,"offset":4,"length":6}]})",
          R"({"blobs":[{"type":"t","fields":[4294967296],"snapshot-id":1,"sequence-number":1,"offset":4,"length":6}]})",
          R"({"blobs":[{"type":"t","fields":[1],"snapshot-id":1.5,"sequence-number":1,"offset":4,"length":6}]})",
          R"({"blobs":[{"type":"t","fields":[1],"snapshot-id":18446744073709551615,"sequence-number":1,"offset":4,"length":6}]})",
          R"({"blobs":[{"type":"t","fields":[1],"snapshot-id":1,"offset":4,"length":6}]})",
          R"({"blobs":[{"type":"t","fields":[1],"snapshot-id":1,"sequence-number":1,"offset":-4,"length":6}]})",
          R"({"blobs":[{"type":"t","fields":[1],"snapshot-id":1,"sequence-number":1,"offset":4,"length":7}]})",
          R"({"blobs":[{"type":"t","fields":[1],"snapshot-id":1,"sequence-number":1,"offset":0,"length":6}]})",
          R"({"blobs":[{"type":"t","fields":[1],"snapshot-id":1,"sequence-number":1,"offset":4,"length":6,"compression-codec":3}]})",
          R"({"blobs":[{"type":"t","fields":[1],"snapshot-id":1,"sequence-number":1,"offset":4,"length":6,"properties":{"a":1}}]})",
          R"({"blobs":[],"properties":[]})",
      }) {
    auto r = Open(file_with(payload));
    ASSERT_THAT(r, IsError(StatusCode::kCorrupt)) << payload;
  }
}

TEST_F(PuffinTest, WriterMisuse) {
  auto out = io_.CreateOutput("m.puffin", true);
  FLOE_ASSERT_OK(out);
  FLOE_ASSERT_OK((*out)->Write("x"));
  EXPECT_EQ(PuffinWriter::Make(out->get()).status().code(), StatusCode::kInvalidArgument);
  auto out2 = io_.CreateOutput("n.puffin", true);
  auto writer = PuffinWriter::Make(out2->get());
  FLOE_ASSERT_OK(writer);
  FLOE_ASSERT_OK((*writer)->Finish());
  EXPECT_EQ((*writer)->Finish().status().code(), StatusCode::kFailedPrecondition);
  EXPECT_EQ((*writer)->AddBlob("t", {}, 1, 1, {}).status().code(), StatusCode::kFailedPrecondition);
}

}  // namespace
}  // namespace floe::format::puffin
