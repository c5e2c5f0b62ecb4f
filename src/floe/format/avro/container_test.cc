// Object Container Files: a file built by hand from the spec's layout, round trips through
// every codec, and malformed files.
#include "floe/format/avro/container.h"

#include <gtest/gtest.h>

#include "floe/base/testing.h"
#include "floe/format/avro/binary.h"
#include "floe/format/avro/test_util.h"
#include "floe/io/memory_file_io.h"

namespace floe::format::avro {
namespace {

using testing::Json;
using testing::Parse;
using testing::Unhex;

// Spec, "Object Container Files": "Obj" 1, map<bytes> {avro.schema: "long", avro.codec:
// "null"}, sync 00..0f; one block of 2 records (1, 2) in 2 bytes, then the sync marker.
const char* kHandBuiltHeader =
    "4f 62 6a 01"
    " 04"
    " 16 61 76 72 6f 2e 73 63 68 65 6d 61  0c 22 6c 6f 6e 67 22"
    " 14 61 76 72 6f 2e 63 6f 64 65 63  08 6e 75 6c 6c"
    " 00"
    " 00 01 02 03 04 05 06 07 08 09 0a 0b 0c 0d 0e 0f";
const char* kSync = " 00 01 02 03 04 05 06 07 08 09 0a 0b 0c 0d 0e 0f";

class ContainerTest : public ::testing::Test {
 protected:
  Result<std::unique_ptr<ContainerReader>> Open(const std::string& bytes,
                                                ContainerReaderOptions options = {}) {
    io_.Put("f.avro", bytes);
    FLOE_ASSIGN_OR_RETURN(auto file, io_.OpenInput("f.avro"));
    return ContainerReader::Open(std::move(file), std::move(options));
  }

  // Reads every batch; returns the JSON lines or the first error.
  Result<std::string> ReadAll(const std::string& bytes, ContainerReaderOptions options = {},
                              std::vector<int64_t>* batch_sizes = nullptr) {
    FLOE_ASSIGN_OR_RETURN(auto reader, Open(bytes, std::move(options)));
    std::string out;
    const Schema& schema = *reader->writer_schema();
    for (;;) {
      FLOE_ASSIGN_OR_RETURN(auto batch, reader->Next());
      if (!batch) break;
      if (batch_sizes) batch_sizes->push_back(batch->num_rows());
      out += Json(schema, *batch);
    }
    return out;
  }

  // A file with `n` records {id, name, score} written by ContainerWriter.
  std::string WriteSample(SchemaPtr schema, int n, ContainerWriterOptions options) {
    Buffer data;
    for (int i = 0; i < n; ++i) {
      AppendLong(&data, i);
      std::string name = "name-" + std::to_string(i * 7919 % 1000);
      AppendBytes(&data, name.data(), name.size());
      if (i % 3 == 0) {
        AppendInt(&data, 0);
      } else {
        AppendInt(&data, 1);
        data.AppendValue<double>(i * 0.25);
      }
    }
    auto batch = testing::Decode(*schema, data.view(), n);
    FLOE_EXPECT_OK(batch);
    auto out = io_.CreateOutput("w.avro", true);
    FLOE_EXPECT_OK(out);
    auto writer = ContainerWriter::Make(std::move(*out), schema, std::move(options));
    FLOE_EXPECT_OK(writer);
    // Two batches, to cross block boundaries mid-batch.
    FLOE_EXPECT_OK((*writer)->Write(batch->Slice(0, n / 2)));
    FLOE_EXPECT_OK((*writer)->Write(batch->Slice(n / 2, n - n / 2)));
    FLOE_EXPECT_OK((*writer)->Close());
    expected_json_ = Json(*schema, *batch);
    auto bytes = io_.ReadFile("w.avro");
    FLOE_EXPECT_OK(bytes);
    return std::string(bytes->view());
  }

  SchemaPtr SampleSchema() {
    return Parse(R"({"type":"record","name":"Sample","namespace":"floe.test","fields":[
      {"name":"id","type":"long","field-id":1},
      {"name":"name","type":"string","field-id":2},
      {"name":"score","type":["null","double"],"default":null,"field-id":3}]})");
  }

  io::MemoryFileIO io_;
  std::string expected_json_;
};

TEST_F(ContainerTest, ReadsAHandBuiltFile) {
  std::string file = Unhex(std::string(kHandBuiltHeader) + " 04 04 02 04" + kSync);
  auto reader = Open(file);
  FLOE_ASSERT_OK(reader);
  EXPECT_EQ((*reader)->codec_name(), "null");
  EXPECT_EQ((*reader)->writer_schema()->ToJson(), "\"long\"");
  EXPECT_EQ((*reader)->sync_marker()[15], 0x0f);
  EXPECT_EQ((*reader)->header_size(), 4u + 1 + 19 + 16 + 1 + 16);
  auto json = ReadAll(file);
  FLOE_ASSERT_OK(json);
  EXPECT_EQ(*json, "1\n2\n");
}

TEST_F(ContainerTest, RoundTripsThroughEveryCodec) {
  for (AvroCodec codec :
       {AvroCodec::kNull, AvroCodec::kDeflate, AvroCodec::kSnappy, AvroCodec::kZstandard}) {
    ContainerWriterOptions options;
    options.codec = codec;
    options.block_size_bytes = 512;  // many blocks
    options.metadata = {{"schema", "{\"type\":\"struct\"}"}, {"format-version", "2"}};
    options.sync_marker = SyncMarker{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16};
    SchemaPtr schema = SampleSchema();
    std::string file = WriteSample(schema, 1000, options);

    auto reader = Open(file);
    FLOE_ASSERT_OK(reader);
    EXPECT_EQ((*reader)->codec_name(), AvroCodecName(codec));
    EXPECT_EQ((*reader)->writer_schema()->ToJson(), schema->ToJson());
    EXPECT_EQ((*reader)->sync_marker(), *options.sync_marker);
    ASSERT_NE((*reader)->FindMetadata("schema"), nullptr);
    EXPECT_EQ(*(*reader)->FindMetadata("schema"), "{\"type\":\"struct\"}");
    EXPECT_EQ(*(*reader)->FindMetadata("format-version"), "2");
    EXPECT_EQ((*reader)->schema()->field(0).field_id, 1);

    std::vector<int64_t> sizes;
    auto json = ReadAll(file, {}, &sizes);
    FLOE_ASSERT_OK(json);
    EXPECT_EQ(*json, expected_json_) << AvroCodecName(codec);
    EXPECT_GT(sizes.size(), 5u);

    // Walking the blocks without decoding them counts the same records.
    ContainerReaderOptions meta;
    meta.metadata_only = true;
    auto walker = Open(file, meta);
    FLOE_ASSERT_OK(walker);
    int64_t records = 0;
    int blocks = 0;
    for (;;) {
      auto info = (*walker)->NextBlockInfo();
      FLOE_ASSERT_OK(info);
      if (!*info) break;
      records += (*info)->record_count;
      ++blocks;
    }
    EXPECT_EQ(records, 1000);
    EXPECT_EQ(blocks, static_cast<int>(sizes.size()));
  }
}

TEST_F(ContainerTest, BatchesSplitLargeBlocks) {
  ContainerWriterOptions options;
  options.block_size_bytes = 1 << 20;  // one block
  options.sync_marker = SyncMarker{};
  std::string file = WriteSample(SampleSchema(), 10, options);
  ContainerReaderOptions ro;
  ro.batch_rows = 3;
  std::vector<int64_t> sizes;
  auto json = ReadAll(file, ro, &sizes);
  FLOE_ASSERT_OK(json);
  EXPECT_EQ(*json, expected_json_);
  EXPECT_EQ(sizes, (std::vector<int64_t>{3, 3, 3, 1}));
}

TEST_F(ContainerTest, SyncMarkerComesFromTheInjectedRandomness) {
  ContainerWriterOptions options;
  options.random_bytes = [](uint8_t* out, size_t n) {
    for (size_t i = 0; i < n; ++i) out[i] = static_cast<uint8_t>(0xA0 + i);
  };
  std::string file = WriteSample(SampleSchema(), 3, options);
  auto reader = Open(file);
  FLOE_ASSERT_OK(reader);
  EXPECT_EQ((*reader)->sync_marker()[0], 0xA0);
  EXPECT_EQ((*reader)->sync_marker()[15], 0xAF);
  // Two files written with the same options are byte-identical.
  std::string again = WriteSample(SampleSchema(), 3, options);
  EXPECT_EQ(file, again);
}

TEST_F(ContainerTest, ReaderSchemaAndProjection) {
  ContainerWriterOptions options;
  options.sync_marker = SyncMarker{};
  std::string file = WriteSample(SampleSchema(), 4, options);
  ContainerReaderOptions ro;
  ro.reader_schema = Parse(R"({"type":"record","name":"Sample","fields":[
      {"name":"renamed","type":"double","field-id":1},
      {"name":"extra","type":"string","default":"x","field-id":9}]})");
  auto reader = Open(file, ro);
  FLOE_ASSERT_OK(reader);
  auto batch = (*reader)->Next();
  ASSERT_TRUE(batch.ok() && *batch);
  EXPECT_EQ(Json(*ro.reader_schema, **batch),
            "{\"renamed\":0.0,\"extra\":\"x\"}\n{\"renamed\":1.0,\"extra\":\"x\"}\n"
            "{\"renamed\":2.0,\"extra\":\"x\"}\n{\"renamed\":3.0,\"extra\":\"x\"}\n");
  ContainerReaderOptions projected;
  projected.columns = {"name"};
  reader = Open(file, projected);
  FLOE_ASSERT_OK(reader);
  EXPECT_EQ((*reader)->schema()->num_fields(), 1u);
  EXPECT_EQ((*reader)->schema()->field(0).name, "name");
}

TEST_F(ContainerTest, WriterRejectsReservedMetadataKeys) {
  ContainerWriterOptions options;
  options.metadata = {{"avro.codec", "null"}};
  auto out = io_.CreateOutput("x.avro", true);
  FLOE_ASSERT_OK(out);
  EXPECT_EQ(ContainerWriter::Make(std::move(*out), SampleSchema(), options).status().code(),
            StatusCode::kInvalidArgument);
}

StatusCode CodeOf(const Result<std::string>& r) {
  return r.ok() ? StatusCode::kOk : r.status().code();
}

TEST_F(ContainerTest, MalformedFilesAreCorrupt) {
  std::string header = kHandBuiltHeader;
  struct Case {
    std::string name;
    std::string hex;
  } cases[] = {
      {"empty", ""},
      {"bad magic", "4f 62 6a 02" + header.substr(11)},
      {"truncated header", header.substr(0, 60)},
      {"sync mismatch", header + " 04 04 02 04 00 01 02 03 04 05 06 07 08 09 0a 0b 0c 0d 0e ff"},
      {"truncated block", header + " 04 04 02 04 00 01 02"},
      {"block past the end", header + " 04 fe ff ff ff 0f 02 04" + kSync},
      {"negative block size", header + " 04 03 02 04" + kSync},
      {"negative count", header + " 03 04 02 04" + kSync},
      {"absurd count", header + " d0 0f 04 02 04" + kSync},
      {"trailing bytes", header + " 02 04 02 04" + kSync},
      {"truncated record", header + " 04 02 02" + kSync},
      {"partial block header", header + " 04"},
      {"no records but bytes", header + " 00 02 02" + kSync},
  };
  for (const auto& c : cases) {
    auto json = ReadAll(Unhex(c.hex));
    EXPECT_EQ(CodeOf(json), StatusCode::kCorrupt)
        << c.name << ": " << (json.ok() ? *json : json.status().ToString());
  }
  // Without avro.schema, or with an invalid one.
  std::string no_schema =
      "4f 62 6a 01 02 14 61 76 72 6f 2e 63 6f 64 65 63 08 6e 75 6c 6c 00" + std::string(kSync);
  EXPECT_EQ(CodeOf(ReadAll(Unhex(no_schema))), StatusCode::kCorrupt);
  std::string bad_schema =
      "4f 62 6a 01 02 16 61 76 72 6f 2e 73 63 68 65 6d 61 06 22 78 22 00" + std::string(kSync);
  EXPECT_EQ(CodeOf(ReadAll(Unhex(bad_schema))), StatusCode::kCorrupt);
}

TEST_F(ContainerTest, SnappyBlocksCarryACheckedCrc) {
  ContainerWriterOptions options;
  options.codec = AvroCodec::kSnappy;
  options.sync_marker = SyncMarker{7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7};
  std::string file = WriteSample(SampleSchema(), 20, options);
  FLOE_ASSERT_OK(ReadAll(file));
  // The CRC is the 4 bytes before the final sync marker of the only block.
  std::string broken = file;
  broken[broken.size() - 17] ^= 0x01;
  auto json = ReadAll(broken);
  EXPECT_EQ(CodeOf(json), StatusCode::kCorrupt);
  EXPECT_NE(json.status().message().find("CRC"), std::string_view::npos);
}

TEST_F(ContainerTest, UnknownCodecsAreUnimplementedButInspectable) {
  // avro.codec = "bzip2".
  std::string file = Unhex(
      "4f 62 6a 01 04"
      " 16 61 76 72 6f 2e 73 63 68 65 6d 61 0c 22 6c 6f 6e 67 22"
      " 14 61 76 72 6f 2e 63 6f 64 65 63 0a 62 7a 69 70 32"
      " 00" +
      std::string(kSync) + " 02 02 02" + kSync);
  auto reader = Open(file);
  EXPECT_EQ(reader.status().code(), StatusCode::kUnimplemented);
  EXPECT_NE(reader.status().message().find("bzip2"), std::string_view::npos);
  ContainerReaderOptions meta;
  meta.metadata_only = true;
  reader = Open(file, meta);
  FLOE_ASSERT_OK(reader);
  EXPECT_EQ((*reader)->codec_name(), "bzip2");
  auto info = (*reader)->NextBlockInfo();
  ASSERT_TRUE(info.ok() && *info);
  EXPECT_EQ((*info)->record_count, 1);
}

}  // namespace
}  // namespace floe::format::avro
