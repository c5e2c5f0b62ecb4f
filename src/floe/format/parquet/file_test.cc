// Reading files written by pyarrow (tests/data/parquet; expected values are the data the
// generator in its README wrote), and the writer/reader pair under every option, which
// the sanitizer builds exercise. Interop in both directions is checked against pyarrow
// and DuckDB by tests/interop.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>

#include "floe/base/testing.h"
#include "floe/columnar/builder.h"
#include "floe/columnar/json.h"
#include "floe/format/parquet/file_reader.h"
#include "floe/format/parquet/file_writer.h"
#include "floe/format/parquet/statistics.h"
#include "floe/io/local_file_io.h"
#include "floe/io/memory_file_io.h"

namespace floe::format::parquet {
namespace {

namespace col = floe::columnar;

std::string DataPath(const std::string& name) {
  const char* root = std::getenv("FLOE_TEST_DATA");
  return std::string(root ? root : "tests/data") + "/parquet/" + name;
}

std::unique_ptr<FileReader> Open(const std::string& name) {
  io::LocalFileIO fio;
  auto file = fio.OpenInput(DataPath(name));
  FLOE_EXPECT_OK(file);
  auto reader = FileReader::Open(std::move(*file));
  FLOE_EXPECT_OK(reader);
  return std::move(*reader);
}

std::vector<std::string> JsonLines(const FileReader& reader,
                                   const SchemaDescriptor::Projection& p) {
  std::vector<std::string> lines;
  for (int rg = 0; rg < reader.num_row_groups(); ++rg) {
    auto batch = reader.ReadRowGroup(rg, p);
    FLOE_EXPECT_OK(batch);
    if (!batch.ok()) break;
    FLOE_EXPECT_OK(batch->Validate());
    for (int64_t i = 0; i < batch->num_rows(); ++i) {
      std::string s;
      col::AppendJsonLine(*batch, i, &s);
      s.pop_back();
      lines.push_back(s);
    }
  }
  return lines;
}

TEST(FileReaderTest, PyarrowFlatTypes) {
  auto r = Open("pyarrow_types_snappy.parquet");
  ASSERT_TRUE(r);
  const auto& schema = *r->schema().schema();
  EXPECT_EQ(schema.field(7).type->ToString(), "decimal(9, 2)");
  EXPECT_EQ(schema.field(8).type->id(), col::TypeId::kUuid);
  EXPECT_EQ(schema.field(9).type->id(), col::TypeId::kFloat16);
  EXPECT_EQ(schema.field(10).type->id(), col::TypeId::kInt8);
  EXPECT_EQ(schema.field(11).type->id(), col::TypeId::kUInt32);
  EXPECT_EQ(*schema.field(13).field_id, 14);
  auto lines = JsonLines(*r, r->schema().ProjectAll());
  ASSERT_EQ(lines.size(), 3u);
  EXPECT_EQ(lines[0],
            "{\"id\":1,\"big\":-5,\"name\":\"alpha\",\"score\":1.5,\"flag\":true,\"day\":"
            "\"2024-01-31\",\"ts\":\"2024-05-06T07:08:09.123456+00:00\",\"price\":\"12.34\","
            "\"u\":\"f79c3e09-677c-4bbd-a479-3f349cb785e7\",\"half\":0.5,\"tiny\":-128,"
            "\"count\":0,\"t\":\"00:00:00.000000\",\"blob\":\"00ff\"}");
  EXPECT_EQ(lines[1],
            "{\"id\":2,\"big\":null,\"name\":\"beta\",\"score\":-2.25,\"flag\":null,\"day\":"
            "\"1969-12-31\",\"ts\":null,\"price\":\"-0.05\",\"u\":"
            "\"00000000-0000-0000-0000-000000000001\",\"half\":-1,\"tiny\":7,\"count\":"
            "4000000000,\"t\":\"01:02:03.000001\",\"blob\":\"\"}");
}

TEST(FileReaderTest, PyarrowNestedProjectionAndBloomFilter) {
  auto r = Open("pyarrow_nested_zstd.parquet");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->num_row_groups(), 2);
  auto lines = JsonLines(*r, r->schema().ProjectAll());
  ASSERT_EQ(lines.size(), 4u);
  EXPECT_EQ(lines[0],
            "{\"id\":10,\"point\":{\"x\":1,\"y\":2},\"tags\":[\"a\",\"b\"],"
            "\"attrs\":{\"k1\":1}}");
  EXPECT_EQ(lines[1], "{\"id\":20,\"point\":null,\"tags\":[],\"attrs\":null}");
  EXPECT_EQ(lines[2],
            "{\"id\":30,\"point\":{\"x\":-3.5,\"y\":null},\"tags\":null,"
            "\"attrs\":{\"k2\":2,\"k3\":null}}");
  EXPECT_EQ(lines[3], "{\"id\":40,\"point\":{\"x\":0,\"y\":0},\"tags\":[\"c\"],\"attrs\":{}}");

  // Field ids 3 (point.x) and 9 (attrs' value): the map keeps its keys.
  auto p = r->schema().ProjectByIds({3, 9});
  EXPECT_EQ(p.schema->ToString(),
            "point: struct<x: float32 id=3> id=2\n"
            "attrs: map<string, value: int32 id=9> id=7\n");
  auto projected = JsonLines(*r, p);
  EXPECT_EQ(projected[2], "{\"point\":{\"x\":-3.5},\"attrs\":{\"k2\":2,\"k3\":null}}");
  auto by_name = r->schema().ProjectByNames({"tags"});
  FLOE_ASSERT_OK(by_name);
  EXPECT_EQ(JsonLines(*r, *by_name)[0], "{\"tags\":[\"a\",\"b\"]}");
  EXPECT_TRUE(r->schema().ProjectByNames({"nope"}).status().IsNotFound());

  // pyarrow wrote a Bloom filter on id: every id is found in its row group.
  for (int rg = 0; rg < 2; ++rg) {
    auto bf = r->ReadBloomFilter(rg, 0);
    FLOE_ASSERT_OK(bf);
    ASSERT_TRUE(bf->has_value());
    for (int64_t id : {10, 20, 30, 40}) {
      bool here = (rg == 0) == (id <= 20);
      if (here) {
        EXPECT_TRUE((*bf)->Check(BloomHash(id))) << id;
      }
    }
  }
  // RowGroupMayMatch keeps id = 10 in the first row group (10..20) and skips the second
  // (30..40).
  for (int rg = 0; rg < 2; ++rg) {
    int64_t v = 10;
    ColumnPredicate eq{0, ColumnPredicate::Op::kEq, std::string(reinterpret_cast<char*>(&v), 8)};
    auto m = r->RowGroupMayMatch(rg, {&eq, 1});
    FLOE_ASSERT_OK(m);
    EXPECT_EQ(*m, rg == 0);
  }
  // Row group statistics prune id = 30 from the first group, not from the second.
  const ColumnDescriptor& id = r->schema().leaf(0);
  for (int rg = 0; rg < 2; ++rg) {
    auto stats = TrustedStatistics(
        id, *r->metadata().row_groups[static_cast<size_t>(rg)].columns[0].meta_data, r->metadata());
    int64_t v = 30;
    ColumnPredicate eq{0, ColumnPredicate::Op::kEq, std::string(reinterpret_cast<char*>(&v), 8)};
    EXPECT_EQ(ChunkMayMatch(id, stats, eq), rg == 1);
  }
}

TEST(FileReaderTest, PyarrowV2PagesGzip) {
  auto r = Open("pyarrow_v2pages_gzip_sorted.parquet");
  ASSERT_TRUE(r);
  auto lines = JsonLines(*r, r->schema().ProjectAll());
  ASSERT_EQ(lines.size(), 6u);
  EXPECT_EQ(lines[5], "{\"k\":\"c\",\"v\":6}");
  bool found = false;
  for (const auto& [k, v] : r->key_value_metadata()) found |= k == "floe.test" && v == "v2 pages";
  EXPECT_TRUE(found);
}

// A batch with every type the writer supports, nulls at every level, nested types.
col::RecordBatch AllTypesBatch(int64_t rows) {
  std::vector<col::Field> fields = {
      col::Field("b", col::Bool()),
      col::Field("i8", col::Int8()),
      col::Field("u16", col::UInt16()),
      col::Field("i32", col::Int32(), false),
      col::Field("i64", col::Int64()),
      col::Field("u64", col::UInt64()),
      col::Field("f32", col::Float32()),
      col::Field("f64", col::Float64()),
      col::Field("d9", col::Decimal128(9, 2)),
      col::Field("d18", col::Decimal128(18, 4)),
      col::Field("d38", col::Decimal128(38, 0)),
      col::Field("date", col::Date32()),
      col::Field("t", col::Time(col::TimeUnit::kMicro)),
      col::Field("ts", col::Timestamp(col::TimeUnit::kNano, true)),
      col::Field("s", col::String()),
      col::Field("bin", col::Binary()),
      col::Field("fixed", col::FixedBinary(3)),
      col::Field("uuid", col::Uuid()),
      col::Field("list", col::List(col::Field("element", col::Int64()))),
      col::Field("map",
                 col::Map(col::Field("key", col::String(), false),
                          col::Field("value", col::List(col::Field("element", col::Int32()))))),
      col::Field("st", col::Struct(
                           {col::Field("a", col::Int32(), false), col::Field("b", col::String())})),
  };
  auto schema = std::make_shared<col::Schema>(fields);
  std::vector<col::Array> columns;
  for (const auto& f : fields) {
    auto b = col::MakeBuilder(f.type);
    for (int64_t i = 0; i < rows; ++i) {
      const bool null = f.nullable && i % 7 == 3;
      if (null) {
        b->AppendNull();
        continue;
      }
      const int64_t v = (i * 7919) % 1000 - 500;
      switch (f.type->id()) {
        case col::TypeId::kBool: static_cast<col::BoolBuilder*>(b.get())->Append(v > 0); break;
        case col::TypeId::kInt8:
          static_cast<col::FixedWidthBuilder<int8_t>*>(b.get())->Append(static_cast<int8_t>(v));
          break;
        case col::TypeId::kUInt16:
          static_cast<col::FixedWidthBuilder<uint16_t>*>(b.get())->Append(
              static_cast<uint16_t>(v + 60000));
          break;
        case col::TypeId::kInt32:
        case col::TypeId::kDate32:
          static_cast<col::FixedWidthBuilder<int32_t>*>(b.get())->Append(
              static_cast<int32_t>(v * 1000));
          break;
        case col::TypeId::kInt64:
        case col::TypeId::kTime64:
        case col::TypeId::kTimestamp:
          static_cast<col::FixedWidthBuilder<int64_t>*>(b.get())->Append(v * 1000000007LL);
          break;
        case col::TypeId::kUInt64:
          static_cast<col::FixedWidthBuilder<uint64_t>*>(b.get())->Append(
              ~static_cast<uint64_t>(i));
          break;
        case col::TypeId::kFloat32:
          static_cast<col::FixedWidthBuilder<float>*>(b.get())->Append(i % 11 == 5 ? std::nanf("")
                                                                                   : v * 0.5f);
          break;
        case col::TypeId::kFloat64:
          static_cast<col::FixedWidthBuilder<double>*>(b.get())->Append(i == 0 ? -0.0 : v * 0.25);
          break;
        case col::TypeId::kDecimal128: {
          __int128 d = v;
          if (f.type->precision() == 38)
            d = d * static_cast<__int128>(1000000000000000000LL) * 1000000;
          static_cast<col::FixedWidthBuilder<__int128>*>(b.get())->Append(d);
          break;
        }
        case col::TypeId::kString:
          static_cast<col::BinaryBuilder*>(b.get())->Append(
              i % 5 == 0 ? std::string(300, 'x') : "s" + std::to_string(v % 13));
          break;
        case col::TypeId::kBinary:
          static_cast<col::BinaryBuilder*>(b.get())->Append(
              std::string(static_cast<size_t>(i % 4), '\xFF'));
          break;
        case col::TypeId::kFixedBinary:
          static_cast<col::FixedBinaryBuilder*>(b.get())->Append(std::string("abc", 3));
          break;
        case col::TypeId::kUuid:
          static_cast<col::FixedBinaryBuilder*>(b.get())->Append(
              std::string(16, static_cast<char>(i)));
          break;
        case col::TypeId::kList: {
          auto* l = static_cast<col::ListBuilder*>(b.get());
          l->Append();
          for (int64_t k = 0; k < i % 4; ++k) {
            if (k == 2) {
              l->child()->AppendNull();
            } else {
              static_cast<col::FixedWidthBuilder<int64_t>*>(l->child())->Append(k);
            }
          }
          l->Close();
          break;
        }
        case col::TypeId::kMap: {
          auto* m = static_cast<col::ListBuilder*>(b.get());
          m->Append();
          for (int64_t k = 0; k < i % 3; ++k) {
            static_cast<col::StructBuilder*>(m->child())->Append();
            static_cast<col::BinaryBuilder*>(m->key_builder())->Append("k" + std::to_string(k));
            auto* vl = static_cast<col::ListBuilder*>(m->item_builder());
            if (k == 1) {
              vl->AppendNull();
            } else {
              vl->Append();
              static_cast<col::FixedWidthBuilder<int32_t>*>(vl->child())
                  ->Append(static_cast<int32_t>(k));
              vl->Close();
            }
          }
          m->Close();
          break;
        }
        case col::TypeId::kStruct: {
          auto* s = static_cast<col::StructBuilder*>(b.get());
          s->Append();
          static_cast<col::FixedWidthBuilder<int32_t>*>(s->child(0))
              ->Append(static_cast<int32_t>(i));
          if (i % 2) {
            s->child(1)->AppendNull();
          } else {
            static_cast<col::BinaryBuilder*>(s->child(1))->Append("v");
          }
          break;
        }
        default: ADD_FAILURE() << "unhandled " << f.type->ToString();
      }
    }
    columns.push_back(b->Finish());
  }
  return col::RecordBatch(schema, rows, std::move(columns));
}

struct WriterCase {
  CompressionKind codec;
  int page_version;
  bool dictionary;
  int64_t page_bytes;
  int64_t row_group_bytes;
};

class WriterRoundTrip : public ::testing::TestWithParam<WriterCase> {};

TEST_P(WriterRoundTrip, ReadsBackEqual) {
  const WriterCase& c = GetParam();
  col::RecordBatch batch = AllTypesBatch(5000);
  FLOE_ASSERT_OK(batch.Validate());
  auto schema = SchemaDescriptor::FromColumnar(*batch.schema());
  FLOE_ASSERT_OK(schema);
  std::shared_ptr<const SchemaDescriptor> shared = std::move(*schema);
  io::MemoryFileIO fio;
  WriterOptions options;
  options.compression = c.codec;
  options.page_version = c.page_version;
  options.dictionary = c.dictionary;
  options.page_bytes = c.page_bytes;
  options.row_group_bytes = c.row_group_bytes;
  options.write_page_crc = true;
  options.bloom_filter_leaves = {4, 14};
  options.dictionary_page_bytes = 2048;  // forces fallback to PLAIN mid-chunk
  auto writer = FileWriter::Make(*fio.CreateOutput("mem://t.parquet", true), shared, options);
  FLOE_ASSERT_OK(writer);
  FLOE_ASSERT_OK((*writer)->Write(batch.Slice(0, 1234)));
  FLOE_ASSERT_OK((*writer)->Write(batch.Slice(1234, 5000 - 1234)));
  auto result = (*writer)->Close();
  FLOE_ASSERT_OK(result);
  EXPECT_EQ(result->num_rows, 5000);
  EXPECT_EQ(result->columns[4].null_count, 5000 / 7 + (5000 % 7 > 3 ? 1 : 0));

  auto reader = FileReader::Open(*fio.OpenInput("mem://t.parquet"));
  FLOE_ASSERT_OK(reader);
  std::vector<col::RecordBatch> parts;
  int64_t row = 0;
  for (int rg = 0; rg < (*reader)->num_row_groups(); ++rg) {
    auto got = (*reader)->ReadRowGroup(rg, (*reader)->schema().ProjectAll());
    FLOE_ASSERT_OK(got);
    FLOE_ASSERT_OK(got->Validate());
    EXPECT_TRUE(got->Equals(batch.Slice(row, got->num_rows()))) << "row group " << rg;
    row += got->num_rows();
    // Every value is in its row group's Bloom filter.
    auto bf = (*reader)->ReadBloomFilter(rg, 4);
    ASSERT_TRUE(bf.ok() && bf->has_value());
    const col::Array& i64 = got->column(4);
    for (int64_t i = 0; i < i64.length(); ++i) {
      if (i64.IsValid(i)) {
        EXPECT_TRUE((*bf)->Check(BloomHash(i64.Value<int64_t>(i))));
      }
    }
  }
  EXPECT_EQ(row, 5000);
  if (c.row_group_bytes < 100000) {
    EXPECT_GT((*reader)->num_row_groups(), 1);
  }
}

INSTANTIATE_TEST_SUITE_P(
    Options, WriterRoundTrip,
    ::testing::Values(WriterCase{CompressionKind::kUncompressed, 1, true, 1 << 20, 128 << 20},
                      WriterCase{CompressionKind::kSnappy, 2, true, 4096, 128 << 20},
                      WriterCase{CompressionKind::kZstd, 1, false, 1000, 50000},
                      WriterCase{CompressionKind::kGzip, 2, false, 1 << 20, 20000},
                      WriterCase{CompressionKind::kLz4Raw, 1, true, 512, 1 << 20},
                      WriterCase{CompressionKind::kLz4Hadoop, 2, true, 1 << 20, 1 << 20}));

// Batches of any size cut row groups at record boundaries: concatenated they equal the
// whole row groups (nested and repeated columns included).
TEST(FileReaderTest, BatchesOfAnySizeMatchWholeRowGroups) {
  col::RecordBatch batch = AllTypesBatch(3000);
  auto schema = SchemaDescriptor::FromColumnar(*batch.schema());
  std::shared_ptr<const SchemaDescriptor> shared = std::move(*schema);
  io::MemoryFileIO fio;
  WriterOptions options;
  options.page_bytes = 700;  // many pages per chunk
  options.row_group_bytes = 60000;
  auto writer = FileWriter::Make(*fio.CreateOutput("mem://b", true), shared, options);
  FLOE_ASSERT_OK((*writer)->Write(batch));
  FLOE_ASSERT_OK((*writer)->Close());
  auto reader = FileReader::Open(*fio.OpenInput("mem://b"));
  FLOE_ASSERT_OK(reader);
  ASSERT_GT((*reader)->num_row_groups(), 1);
  for (int64_t size : {1, 7, 256, 1000, 100000}) {
    auto batches = (*reader)->ReadBatches((*reader)->schema().ProjectAll(), size);
    FLOE_ASSERT_OK(batches);
    int64_t row = 0;
    for (;;) {
      auto next = (*batches)->Next();
      FLOE_ASSERT_OK(next);
      if (!next->has_value()) break;
      const col::RecordBatch& b = **next;
      FLOE_ASSERT_OK(b.Validate());
      ASSERT_LE(b.num_rows(), size);
      ASSERT_TRUE(b.Equals(batch.Slice(row, b.num_rows()))) << "size " << size << " row " << row;
      row += b.num_rows();
    }
    EXPECT_EQ(row, 3000) << size;
  }
  // The pyarrow nested file, two rows per row group, one row per batch.
  auto r = Open("pyarrow_nested_zstd.parquet");
  auto one = r->ReadBatches(r->schema().ProjectAll(), 1);
  FLOE_ASSERT_OK(one);
  int rows = 0;
  for (;;) {
    auto next = (*one)->Next();
    FLOE_ASSERT_OK(next);
    if (!next->has_value()) break;
    EXPECT_EQ((*next)->num_rows(), 1);
    ++rows;
  }
  EXPECT_EQ(rows, 4);
}

// An object-store-like file over a file in memory: invites `concurrency` reads at once and
// records each read.
class ConcurrentReadsFile final : public io::InputFile {
 public:
  ConcurrentReadsFile(std::unique_ptr<io::InputFile> base, int concurrency)
      : base_(std::move(base)), concurrency_(concurrency) {}
  const std::string& location() const override { return base_->location(); }
  uint64_t size() const override { return base_->size(); }
  int max_concurrent_reads() const override { return concurrency_; }
  Status ReadAt(uint64_t offset, size_t n, uint8_t* out) const override {
    {
      std::lock_guard lock(mu_);
      reads.push_back({offset, n});
    }
    return base_->ReadAt(offset, n, out);
  }
  mutable std::mutex mu_;
  mutable std::vector<io::ByteRange> reads;  // guarded by mu_

 private:
  std::unique_ptr<io::InputFile> base_;
  int concurrency_;
};

TEST(FileReaderTest, ConcurrentRangeFetchReadsTheSameBytesAndBatches) {
  col::RecordBatch batch = AllTypesBatch(20000);
  auto schema = SchemaDescriptor::FromColumnar(*batch.schema());
  FLOE_ASSERT_OK(schema);
  std::shared_ptr<const SchemaDescriptor> shared = std::move(*schema);
  io::MemoryFileIO fio;
  WriterOptions options;
  options.compression = CompressionKind::kUncompressed;
  options.dictionary = false;
  options.row_group_bytes = 400000;  // a few row groups
  auto writer = FileWriter::Make(*fio.CreateOutput("mem://c", true), shared, options);
  FLOE_ASSERT_OK((*writer)->Write(batch));
  FLOE_ASSERT_OK((*writer)->Close());

  // Columns far apart (more than the 8 KiB hole limit): several ranges per row group.
  auto read = [&](int concurrency, std::vector<io::ByteRange>* reads, int* row_groups) {
    auto file = std::make_unique<ConcurrentReadsFile>(*fio.OpenInput("mem://c"), concurrency);
    ConcurrentReadsFile* raw = file.get();
    auto reader = FileReader::Open(std::move(file));
    FLOE_EXPECT_OK(reader);
    *row_groups = (*reader)->num_row_groups();
    auto projection = (*reader)->schema().ProjectByNames({"i8", "f64", "s", "map"});
    FLOE_EXPECT_OK(projection);
    auto batches = (*reader)->ReadBatches(*projection, 4096);
    FLOE_EXPECT_OK(batches);
    std::vector<col::RecordBatch> out;
    for (;;) {
      auto next = (*batches)->Next();
      FLOE_EXPECT_OK(next);
      if (!next.ok() || !next->has_value()) break;
      out.push_back(std::move(**next));
    }
    std::lock_guard lock(raw->mu_);
    *reads = raw->reads;
    std::sort(reads->begin(), reads->end(), [](const io::ByteRange& a, const io::ByteRange& b) {
      return a.offset != b.offset ? a.offset < b.offset : a.length < b.length;
    });
    return out;
  };
  std::vector<io::ByteRange> sequential_reads, concurrent_reads;
  int row_groups = 0;
  std::vector<col::RecordBatch> sequential = read(1, &sequential_reads, &row_groups);
  ASSERT_GT(row_groups, 1);
  // Per row group: the four chunks, each its own read.
  ASSERT_GE(sequential_reads.size(), static_cast<size_t>(4 * row_groups));
  std::vector<col::RecordBatch> concurrent = read(4, &concurrent_reads, &row_groups);
  EXPECT_EQ(concurrent_reads, sequential_reads);  // the same requests and bytes
  ASSERT_EQ(concurrent.size(), sequential.size());
  int64_t rows = 0;
  for (size_t i = 0; i < concurrent.size(); ++i) {
    EXPECT_TRUE(concurrent[i].Equals(sequential[i])) << i;
    rows += concurrent[i].num_rows();
  }
  EXPECT_EQ(rows, 20000);
}

TEST(FileReaderTest, DamagedFilesAreCorrupt) {
  io::LocalFileIO local;
  auto bytes = local.ReadFile(DataPath("pyarrow_types_snappy.parquet"));
  FLOE_ASSERT_OK(bytes);
  std::string good(bytes->view());
  io::MemoryFileIO fio;
  auto read_all = [&](const std::string& contents) -> Status {
    fio.Put("mem://x", contents);
    FLOE_ASSIGN_OR_RETURN(auto file, fio.OpenInput("mem://x"));
    FLOE_ASSIGN_OR_RETURN(auto r, FileReader::Open(std::move(file)));
    for (int rg = 0; rg < r->num_row_groups(); ++rg) {
      FLOE_RETURN_IF_ERROR(r->ReadRowGroup(rg, r->schema().ProjectAll()).status());
    }
    return Status::OK();
  };
  FLOE_ASSERT_OK(read_all(good));
  for (size_t cut : {size_t{0}, size_t{5}, good.size() / 2, good.size() - 1}) {
    Status s = read_all(good.substr(0, cut));
    EXPECT_TRUE(s.IsCorrupt()) << cut << ": " << s.ToString();
    EXPECT_NE(s.message().find("mem://x"), std::string::npos);
  }
  std::string bad_magic = good;
  bad_magic[good.size() - 1] = 'X';
  EXPECT_TRUE(read_all(bad_magic).IsCorrupt());
  std::string huge_footer = good;
  huge_footer[good.size() - 5] = '\x7F';
  EXPECT_TRUE(read_all(huge_footer).IsCorrupt());
}

TEST(FileReaderTest, PageCrcMismatchIsCorrupt) {
  col::RecordBatch batch = AllTypesBatch(100);
  auto schema = SchemaDescriptor::FromColumnar(*batch.schema());
  std::shared_ptr<const SchemaDescriptor> shared = std::move(*schema);
  io::MemoryFileIO fio;
  WriterOptions options;
  options.compression = CompressionKind::kUncompressed;
  options.write_page_crc = true;
  auto writer = FileWriter::Make(*fio.CreateOutput("mem://c", true), shared, options);
  FLOE_ASSERT_OK((*writer)->Write(batch));
  auto result = (*writer)->Close();
  FLOE_ASSERT_OK(result);
  auto bytes = fio.ReadFile("mem://c");
  std::string data(bytes->view());
  // Flip a byte inside the first data page body of column i32 (after its header).
  const auto& meta = *result->metadata.row_groups[0].columns[3].meta_data;
  data[static_cast<size_t>(meta.data_page_offset + meta.total_compressed_size - 3)] ^= 0x01;
  fio.Put("mem://c", data);
  auto reader = FileReader::Open(*fio.OpenInput("mem://c"));
  FLOE_ASSERT_OK(reader);
  Status s = (*reader)->ReadRowGroup(0, (*reader)->schema().ProjectAll()).status();
  EXPECT_TRUE(s.IsCorrupt()) << s.ToString();
  EXPECT_NE(s.message().find("CRC"), std::string::npos) << s.ToString();
}

}  // namespace
}  // namespace floe::format::parquet
