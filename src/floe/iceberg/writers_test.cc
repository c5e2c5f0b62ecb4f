// Tests of location.h, metrics.h, data_writer.h and delete_writer.h. Expected values come
// from the Iceberg spec (Appendix D bytes, truncation rules, position delete schema), Iceberg
// Java's OutputFileFactory / LocationProviders / MetricsConfig rules, and pyiceberg 0.12's
// ObjectStoreLocationProvider for the hash directories.
#include <cmath>
#include <cstring>

#include <gtest/gtest.h>

#include "floe/base/testing.h"
#include "floe/columnar/builder.h"
#include "floe/columnar/json.h"
#include "floe/format/puffin/deletion_vector.h"
#include "floe/iceberg/data_reader.h"
#include "floe/iceberg/data_writer.h"
#include "floe/iceberg/delete_writer.h"
#include "floe/iceberg/location.h"
#include "floe/iceberg/metrics.h"
#include "floe/io/memory_file_io.h"

namespace floe::iceberg {
namespace {

namespace col = floe::columnar;
namespace pq = floe::format::parquet;

std::string LE32(int32_t v) { return std::string(reinterpret_cast<const char*>(&v), 4); }
std::string LE64(int64_t v) { return std::string(reinterpret_cast<const char*>(&v), 8); }
std::string LEd(double v) { return std::string(reinterpret_cast<const char*>(&v), 8); }

// ---- locations and names ------------------------------------------------------------

TEST(Location, DefaultLayout) {
  auto p = LocationProvider::Make("s3://bucket/db/tbl/", {});
  EXPECT_EQ(p.data_location(), "s3://bucket/db/tbl/data");
  EXPECT_EQ(p.NewDataLocation("f.parquet"), "s3://bucket/db/tbl/data/f.parquet");
  auto q = LocationProvider::Make("s3://bucket/db/tbl", {{"write.data.path", "s3://other/d/"}});
  EXPECT_EQ(q.NewDataLocation("f.parquet"), "s3://other/d/f.parquet");
  auto r = LocationProvider::Make("/w/t", {{"write.folder-storage.path", "/w/old"}});
  EXPECT_EQ(r.NewDataLocation("f.parquet"), "/w/old/f.parquet");
}

TEST(Location, PartitionedPathIsTheSpecsPath) {
  auto schema = Schema::Make({NestedField::Required(1, "id", LongType()),
                              NestedField::Optional(2, "ts", TimestampTzType())});
  FLOE_ASSERT_OK(schema);
  auto spec = PartitionSpecBuilder(*schema).Day("ts").Bucket("id", 16).Build();
  FLOE_ASSERT_OK(spec);
  auto p = LocationProvider::Make("/w/t", {});
  auto loc = p.NewDataLocation(*spec, {Literal::Date(17486), Literal::Int(3)}, "f.parquet");
  FLOE_ASSERT_OK(loc);
  // Spec "Partitioning" example path, day values printed as dates.
  EXPECT_EQ(*loc, "/w/t/data/ts_day=2017-11-16/id_bucket=3/f.parquet");
  EXPECT_FALSE(p.NewDataLocation(*spec, {Literal::Int(1)}, "f.parquet").ok());
}

TEST(Location, ObjectStorageMatchesPyiceberg) {
  // Values from pyiceberg 0.12 ObjectStoreLocationProvider (same layout as Java 1.7+).
  EXPECT_EQ(ObjectStoreHashDirs("a"), "0101/0110/1001/10110010");
  auto p = LocationProvider::Make("s3://bucket/db/tbl", {{"write.object-storage.enabled", "true"}});
  EXPECT_EQ(p.NewDataLocation("00000-0-op-00001.parquet"),
            "s3://bucket/db/tbl/data/0000/1101/1101/10101110/00000-0-op-00001.parquet");
  auto q = LocationProvider::Make("s3://bucket/db/tbl/",
                                  {{"write.object-storage.enabled", "TRUE"},
                                   {"write.object-storage.partitioned-paths", "false"}});
  EXPECT_EQ(q.NewDataLocation("00000-0-op-00001.parquet"),
            "s3://bucket/db/tbl/data/0000/1101/1101/10101110-00000-0-op-00001.parquet");
  auto schema = Schema::Make({NestedField::Required(1, "id", LongType())});
  auto spec = PartitionSpecBuilder(*schema).Bucket("id", 16).Build();
  auto loc = p.NewDataLocation(*spec, {Literal::Int(3)}, "00000-0-op-00001.parquet");
  FLOE_ASSERT_OK(loc);
  EXPECT_EQ(*loc,
            "s3://bucket/db/tbl/data/0001/1011/1111/10101010/id_bucket=3/00000-0-op-00001.parquet");
  // Java: data outside the table location keeps "<db>/<table>" after the hash (pyiceberg
  // leaves it out).
  auto r = LocationProvider::Make(
      "s3://bucket/db/tbl",
      {{"write.object-storage.enabled", "true"}, {"write.object-storage.path", "s3://x/y"}});
  EXPECT_EQ(r.NewDataLocation("00000-0-op-00001.parquet"),
            "s3://x/y/0000/1101/1101/10101110/db/tbl/00000-0-op-00001.parquet");
}

TEST(Location, OutputFileNamesFollowJava) {
  // OutputFileFactory: "%05d-%d-%s-%05d" + optional "-suffix" + extension.
  OutputFileFactory f(7, 42, "0a1b");
  EXPECT_EQ(f.NewFileName(FileFormat::kParquet), "00007-42-0a1b-00001.parquet");
  EXPECT_EQ(f.NewFileName(FileFormat::kParquet, "deletes"), "00007-42-0a1b-00002-deletes.parquet");
  EXPECT_EQ(f.NewFileName(FileFormat::kPuffin, "deletes"), "00007-42-0a1b-00003-deletes.puffin");
}

// ---- metrics configuration and bounds -----------------------------------------------

TEST(Metrics, ModesParseLikeJava) {
  EXPECT_EQ(*MetricsMode::Parse("truncate(16)"), MetricsMode::Truncate(16));
  EXPECT_EQ(*MetricsMode::Parse("TRUNCATE(3)"), MetricsMode::Truncate(3));
  EXPECT_EQ(*MetricsMode::Parse("Full"), MetricsMode::Full());
  EXPECT_EQ(*MetricsMode::Parse("counts"), MetricsMode::Counts());
  EXPECT_EQ(*MetricsMode::Parse("none"), MetricsMode::None());
  EXPECT_FALSE(MetricsMode::Parse("truncate(0)").ok());
  EXPECT_FALSE(MetricsMode::Parse("truncate(-1)").ok());
  EXPECT_FALSE(MetricsMode::Parse("truncate()").ok());
  EXPECT_FALSE(MetricsMode::Parse("all").ok());
}

TEST(Metrics, ConfigDefaultsOverridesAndSortColumns) {
  auto schema = Schema::Make(
      {NestedField::Required(1, "id", LongType()),
       NestedField::Optional(2, "s", StructType({NestedField::Optional(3, "x", StringType())})),
       NestedField::Optional(4, "y", StringType())});
  FLOE_ASSERT_OK(schema);
  MetricsConfig def = MetricsConfig::ForTable({}, *schema, SortOrder());
  EXPECT_EQ(def.FieldMode(*schema, 3), MetricsMode::Truncate(16));
  MetricsConfig c =
      MetricsConfig::ForTable({{"write.metadata.metrics.default", "counts"},
                               {"write.metadata.metrics.column.s.x", "full"},
                               {"write.metadata.metrics.column.id", "bogus"}},
                              *schema, SortOrder(1, {SortField{Transform::Identity(), 4}}));
  EXPECT_EQ(c.FieldMode(*schema, 3), MetricsMode::Full());
  EXPECT_EQ(c.FieldMode(*schema, 1), MetricsMode::Counts());      // invalid -> the default
  EXPECT_EQ(c.FieldMode(*schema, 4), MetricsMode::Truncate(16));  // sorted column promoted
  // Wide tables: only the first max-inferred top-level columns keep the inferred default.
  MetricsConfig w = MetricsConfig::ForTable(
      {{"write.metadata.metrics.max-inferred-column-defaults", "1"}}, *schema, SortOrder());
  EXPECT_EQ(w.FieldMode(*schema, 1), MetricsMode::Truncate(16));
  EXPECT_EQ(w.FieldMode(*schema, 3), MetricsMode::None());
  EXPECT_EQ(w.FieldMode(*schema, 4), MetricsMode::None());
}

pq::ColumnDescriptor Column(pq::Type physical) {
  pq::ColumnDescriptor c;
  c.physical_type = physical;
  c.path = {"c"};
  return c;
}

TEST(Metrics, ParquetBoundsToSingleValueBytes) {
  auto conv = [](pq::Type physical, const TypePtr& type, std::string plain) {
    auto r = ParquetBoundToIceberg(Column(physical), *type, plain);
    FLOE_EXPECT_OK(r);
    return r.ok() && *r ? **r : std::string("<none>");
  };
  // Appendix D: ints and longs little-endian, booleans one byte.
  EXPECT_EQ(conv(pq::Type::kInt32, IntType(), LE32(-2)), LE32(-2));
  EXPECT_EQ(conv(pq::Type::kInt32, DateType(), LE32(17486)), LE32(17486));
  EXPECT_EQ(conv(pq::Type::kInt64, TimestampTzType(), LE64(1510871468000000)),
            LE64(1510871468000000));
  EXPECT_EQ(conv(pq::Type::kBoolean, BooleanType(), std::string(1, '\1')), std::string(1, '\1'));
  // Decimals: minimal big-endian two's complement of the unscaled value, whatever the
  // Parquet storage (INT32, INT64, FIXED_LEN_BYTE_ARRAY).
  EXPECT_EQ(conv(pq::Type::kInt32, DecimalType(9, 2), LE32(12345)), std::string("\x30\x39", 2));
  EXPECT_EQ(conv(pq::Type::kInt64, DecimalType(18, 2), LE64(-1)), std::string("\xff", 1));
  EXPECT_EQ(conv(pq::Type::kFixedLenByteArray, DecimalType(38, 0),
                 std::string(15, '\0') + std::string("\x80", 1)),
            std::string("\x00\x80", 2));
  // Floats keep their bits; NaN is never a bound.
  EXPECT_EQ(conv(pq::Type::kDouble, DoubleType(), LEd(-0.0)), LEd(-0.0));
  EXPECT_EQ(conv(pq::Type::kDouble, DoubleType(), LEd(std::nan(""))), "<none>");
  EXPECT_EQ(conv(pq::Type::kByteArray, StringType(), "héllo"), "héllo");
  EXPECT_EQ(conv(pq::Type::kFixedLenByteArray, UuidType(), std::string(16, '\x11')),
            std::string(16, '\x11'));
  EXPECT_FALSE(ParquetBoundToIceberg(Column(pq::Type::kInt32), *LongType(), "abc").ok());
  EXPECT_FALSE(ParquetBoundToIceberg(Column(pq::Type::kByteArray), *IntType(), "abcd").ok());
}

// ---- data writer --------------------------------------------------------------------

Schema TestSchema() {
  auto s = Schema::Make({NestedField::Required(1, "id", LongType()),
                         NestedField::Optional(2, "name", StringType()),
                         NestedField::Optional(3, "ts", TimestampTzType()),
                         NestedField::Optional(4, "price", DecimalType(10, 2)),
                         NestedField::Optional(5, "score", DoubleType()),
                         NestedField::Optional(6, "tags", ListType(7, StringType(), true))});
  FLOE_EXPECT_OK(s);
  return *s;
}

struct Row {
  int64_t id;
  std::optional<std::string> name;
  int64_t ts;
  std::optional<__int128> price;
  double score;
  std::optional<std::vector<std::string>> tags;
};

col::RecordBatch Batch(const Schema& schema, const std::vector<Row>& rows, bool null_id = false) {
  col::SchemaPtr cs = std::make_shared<col::Schema>(schema.ToColumnar());
  col::FixedWidthBuilder<int64_t> id(cs->field(0).type);
  col::BinaryBuilder name(cs->field(1).type);
  col::FixedWidthBuilder<int64_t> ts(cs->field(2).type);
  col::FixedWidthBuilder<__int128> price(cs->field(3).type);
  col::FixedWidthBuilder<double> score(cs->field(4).type);
  auto tags_b = col::MakeBuilder(cs->field(5).type);
  auto* tags = static_cast<col::ListBuilder*>(tags_b.get());
  for (const Row& r : rows) {
    null_id ? id.AppendNull() : id.Append(r.id);
    r.name ? name.Append(*r.name) : name.AppendNull();
    ts.Append(r.ts);
    r.price ? price.Append(*r.price) : price.AppendNull();
    score.Append(r.score);
    if (r.tags) {
      tags->Append();
      for (const auto& t : *r.tags) static_cast<col::BinaryBuilder*>(tags->child())->Append(t);
      tags->Close();
    } else {
      tags->AppendNull();
    }
  }
  std::vector<col::Array> cols;
  cols.push_back(id.Finish());
  cols.push_back(name.Finish());
  cols.push_back(ts.Finish());
  cols.push_back(price.Finish());
  cols.push_back(score.Finish());
  cols.push_back(tags->Finish());
  return col::RecordBatch(cs, static_cast<int64_t>(rows.size()), std::move(cols));
}

FileWriterOptions Options() {
  FileWriterOptions o;
  o.table_location = "mem://wh/db/t";
  o.operation_id = "op";
  return o;
}

std::vector<std::string> ReadRows(io::FileIO& io, const Schema& schema, const std::string& path) {
  auto r = DataFileReader::Open(io, path, std::make_shared<const Schema>(schema), {}, nullptr);
  FLOE_EXPECT_OK(r);
  std::vector<std::string> rows;
  if (!r.ok()) return rows;
  while (true) {
    auto b = (*r)->Next();
    FLOE_EXPECT_OK(b);
    if (!b.ok() || !*b) break;
    for (int64_t i = 0; i < (*b)->batch.num_rows(); ++i) {
      std::string line;
      col::AppendJsonLine((*b)->batch, i, &line);
      line.pop_back();
      rows.push_back(line);
    }
  }
  return rows;
}

constexpr int64_t kTs16 = 1510871468000000;  // 2017-11-16T22:31:08Z
constexpr int64_t kTs17 = 1510880400000000;  // 2017-11-17T01:00:00Z

TEST(DataWriter, PartitionsRowsAndComputesMetrics) {
  io::MemoryFileIO io;
  Schema schema = TestSchema();
  auto spec = PartitionSpecBuilder(schema, 0).Day("ts").Build();
  FLOE_ASSERT_OK(spec);
  auto w = DataWriter::Make(&io, schema, *spec, SortOrder(), false, Options());
  FLOE_ASSERT_OK(w);
  const double nan = std::nan("");
  FLOE_ASSERT_OK((*w)->Write(Batch(
      schema, {{1, "abcdefghijklmnopqrstuvwxyz", kTs16, 12345, nan, std::vector<std::string>{"x"}},
               {2, "b", kTs17, -5, 1.5, std::vector<std::string>{}},
               {3, std::nullopt, kTs16 + 1, std::nullopt, -0.0, std::nullopt}})));
  auto files = (*w)->Close();
  FLOE_ASSERT_OK(files);
  ASSERT_EQ(files->size(), 2u);
  const DataFile* a = nullptr;
  const DataFile* b = nullptr;
  for (const DataFile& f : *files) (f.partition[0].int_value() == 17486 ? a : b) = &f;
  ASSERT_TRUE(a && b);
  EXPECT_EQ(a->content, FileContent::kData);
  EXPECT_EQ(a->file_format, FileFormat::kParquet);
  EXPECT_EQ(a->file_path, "mem://wh/db/t/data/ts_day=2017-11-16/00000-0-op-00001.parquet");
  EXPECT_EQ(b->file_path, "mem://wh/db/t/data/ts_day=2017-11-17/00000-0-op-00002.parquet");
  EXPECT_EQ(a->record_count, 2);
  EXPECT_EQ(b->record_count, 1);
  EXPECT_EQ(a->partition, std::vector<Literal>{Literal::Date(17486)});  // day: a date
  EXPECT_EQ(a->split_offsets, std::vector<int64_t>{4});
  EXPECT_FALSE(a->sort_order_id.has_value());
  auto size = io.OpenInput(a->file_path);
  FLOE_ASSERT_OK(size);
  EXPECT_EQ(a->file_size_in_bytes, static_cast<int64_t>((*size)->size()));
  // Counts.
  EXPECT_EQ(a->value_counts.at(1), 2);
  EXPECT_EQ(a->null_value_counts.at(1), 0);
  EXPECT_EQ(a->null_value_counts.at(2), 1);
  EXPECT_EQ(a->nan_value_counts.at(5), 1);
  EXPECT_FALSE(a->nan_value_counts.contains(1));
  // Bounds (Appendix D bytes); strings truncated to 16 code points (truncate(16) default).
  EXPECT_EQ(a->lower_bounds.at(1), LE64(1));
  EXPECT_EQ(a->upper_bounds.at(1), LE64(3));
  EXPECT_EQ(a->lower_bounds.at(2), "abcdefghijklmnop");
  EXPECT_EQ(a->upper_bounds.at(2), "abcdefghijklmnoq");
  EXPECT_EQ(a->lower_bounds.at(3), LE64(kTs16));
  EXPECT_EQ(a->upper_bounds.at(3), LE64(kTs16 + 1));
  EXPECT_EQ(a->lower_bounds.at(4), std::string("\x30\x39", 2));
  EXPECT_EQ(a->upper_bounds.at(4), std::string("\x30\x39", 2));
  // NaN excluded; a zero lower bound is -0.0 (spec: never +0.0 when -0.0 may be present).
  EXPECT_EQ(a->lower_bounds.at(5), LEd(-0.0));
  EXPECT_EQ(b->lower_bounds.at(4), std::string("\xfb", 1));  // -5
  // Repeated fields: sizes only, no counts or bounds (Java ParquetMetrics).
  EXPECT_TRUE(a->column_sizes.contains(7));
  EXPECT_FALSE(a->value_counts.contains(7));
  EXPECT_FALSE(a->lower_bounds.contains(7));
  std::vector<std::string> rows = ReadRows(io, schema, a->file_path);
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(
      rows[1],
      R"({"id":3,"name":null,"ts":"2017-11-16T22:31:08.000001+00:00","price":null,"score":-0,"tags":null})");
}

TEST(DataWriter, MetricsModesNoneCountsFull) {
  io::MemoryFileIO io;
  Schema schema = TestSchema();
  FileWriterOptions o = Options();
  o.properties = {{"write.metadata.metrics.default", "none"},
                  {"write.metadata.metrics.column.name", "full"},
                  {"write.metadata.metrics.column.id", "counts"}};
  auto w = DataWriter::Make(&io, schema, PartitionSpec::Unpartitioned(), SortOrder(), false, o);
  FLOE_ASSERT_OK(w);
  std::string long_name(100, 'z');
  FLOE_ASSERT_OK((*w)->Write(Batch(schema, {{1, long_name, kTs16, 1, 1, std::nullopt}})));
  auto files = (*w)->Close();
  FLOE_ASSERT_OK(files);
  const DataFile& f = files->at(0);
  EXPECT_EQ(f.file_path, "mem://wh/db/t/data/00000-0-op-00001.parquet");
  EXPECT_EQ(f.value_counts.at(1), 1);
  EXPECT_FALSE(f.lower_bounds.contains(1));
  EXPECT_EQ(f.lower_bounds.at(2), long_name);  // full: the whole value, exact
  EXPECT_EQ(f.upper_bounds.at(2), long_name);
  EXPECT_FALSE(f.column_sizes.contains(3));
  EXPECT_FALSE(f.value_counts.contains(3));
}

TEST(DataWriter, RollsAtTargetSizeAndSpillsOpenFiles) {
  io::MemoryFileIO io;
  Schema schema = TestSchema();
  auto spec = PartitionSpecBuilder(schema, 0).Day("ts").Build();
  FileWriterOptions o = Options();
  o.target_file_size_bytes = 1;  // every write rolls
  auto w = DataWriter::Make(&io, schema, *spec, SortOrder(), false, o);
  FLOE_ASSERT_OK(w);
  std::vector<Row> rows;
  for (int i = 0; i < 2500; ++i) rows.push_back({i, "n", kTs16, i, 0.5, std::nullopt});
  FLOE_ASSERT_OK((*w)->Write(Batch(schema, rows)));
  auto files = (*w)->Close();
  FLOE_ASSERT_OK(files);
  ASSERT_EQ(files->size(), 3u);  // 1000 + 1000 + 500 rows (the first slice measures)
  int64_t total = 0;
  for (const DataFile& f : *files) total += f.record_count;
  EXPECT_EQ(total, 2500);

  FileWriterOptions one = Options();
  one.operation_id = "op2";
  one.max_open_files = 1;
  auto w2 = DataWriter::Make(&io, schema, *spec, SortOrder(), false, one);
  FLOE_ASSERT_OK(w2);
  for (int64_t ts : {kTs16, kTs17, kTs16}) {
    FLOE_ASSERT_OK((*w2)->Write(Batch(schema, {{1, "n", ts, 1, 0.5, std::nullopt}})));
  }
  auto files2 = (*w2)->Close();
  FLOE_ASSERT_OK(files2);
  EXPECT_EQ(files2->size(), 3u);  // the day-16 file was closed when day 17 opened
}

TEST(DataWriter, RejectsNullsAndOutOfRangeValues) {
  io::MemoryFileIO io;
  Schema schema = TestSchema();
  auto w =
      DataWriter::Make(&io, schema, PartitionSpec::Unpartitioned(), SortOrder(), false, Options());
  FLOE_ASSERT_OK(w);
  Status s = (*w)->Write(Batch(schema, {{1, "a", kTs16, 1, 1, std::nullopt}}, /*null_id=*/true));
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("'id'"), std::string::npos) << s.message();
  s = (*w)->Write(Batch(schema, {{1, "a", kTs16, __int128{10000000000}, 1, std::nullopt}}));
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("'price'"), std::string::npos) << s.message();
  FLOE_EXPECT_OK((*w)->Abort());
  auto left = io.List("mem://wh/");
  FLOE_ASSERT_OK(left);
  EXPECT_TRUE(left->empty());
}

TEST(DataWriter, NoUpperBoundWhenARowGroupHasNone) {
  // 0xFF bytes cannot be incremented (Java BinaryUtil.truncateBinaryMax gives null): a row
  // group of such values leaves the file without an upper bound, even when another row group
  // has one.
  io::MemoryFileIO io;
  auto schema = Schema::Make(
      {NestedField::Required(1, "id", LongType()), NestedField::Optional(2, "raw", BinaryType())});
  FLOE_ASSERT_OK(schema);
  FileWriterOptions o = Options();
  o.properties = {{"write.parquet.row-group-size-bytes", "1"}};
  auto w = DataWriter::Make(&io, *schema, PartitionSpec(), SortOrder(), false, o);
  FLOE_ASSERT_OK(w);
  col::SchemaPtr cs = std::make_shared<col::Schema>(schema->ToColumnar());
  for (const std::string& v : {std::string("a"), std::string(100, '\xff')}) {
    col::FixedWidthBuilder<int64_t> id(cs->field(0).type);
    col::BinaryBuilder raw(cs->field(1).type);
    id.Append(1);
    raw.Append(v);
    std::vector<col::Array> cols;
    cols.push_back(id.Finish());
    cols.push_back(raw.Finish());
    FLOE_ASSERT_OK((*w)->Write(col::RecordBatch(cs, 1, std::move(cols))));
  }
  auto files = (*w)->Close();
  FLOE_ASSERT_OK(files);
  const DataFile& f = files->at(0);
  ASSERT_EQ(f.split_offsets->size(), 2u);
  EXPECT_EQ(f.lower_bounds.at(2), "a");
  EXPECT_FALSE(f.upper_bounds.contains(2));
}

TEST(DataWriter, DeclaredSortOrderIsRecorded) {
  io::MemoryFileIO io;
  Schema schema = TestSchema();
  SortOrder order(3, {SortField{Transform::Identity(), 1}});
  auto w = DataWriter::Make(&io, schema, PartitionSpec::Unpartitioned(), order, true, Options());
  FLOE_ASSERT_OK(w);
  FLOE_ASSERT_OK((*w)->Write(Batch(schema, {{1, "a", kTs16, 1, 1, std::nullopt}})));
  auto files = (*w)->Close();
  FLOE_ASSERT_OK(files);
  EXPECT_EQ(files->at(0).sort_order_id, 3);
}

// ---- delete writers -----------------------------------------------------------------

TEST(PositionDeleteWriter, SortsGroupsByPartitionAndNamesSingleFiles) {
  io::MemoryFileIO io;
  Schema schema = TestSchema();
  auto spec = PartitionSpecBuilder(schema, 0).Day("ts").Build();
  auto w = PositionDeleteWriter::Make(&io, Options());
  FLOE_ASSERT_OK(w);
  std::vector<int64_t> p1 = {5, 1, 5, 3};
  std::vector<int64_t> p2 = {0};
  std::vector<int64_t> p3 = {9, 2};
  FLOE_ASSERT_OK((*w)->Delete("mem://d/b.parquet", p1, *spec, {Literal::Date(17486)}));
  FLOE_ASSERT_OK((*w)->Delete("mem://d/a.parquet", p2, *spec, {Literal::Date(17486)}));
  FLOE_ASSERT_OK((*w)->Delete("mem://d/c.parquet", p3, *spec, {Literal::Date(17487)}));
  EXPECT_FALSE(
      (*w)->Delete("mem://d/c.parquet", std::vector<int64_t>{-1}, *spec, {Literal::Int(1)}).ok());
  auto r = (*w)->Close();
  FLOE_ASSERT_OK(r);
  ASSERT_EQ(r->delete_files.size(), 2u);
  EXPECT_EQ(
      r->referenced_data_files,
      (std::vector<std::string>{"mem://d/a.parquet", "mem://d/b.parquet", "mem://d/c.parquet"}));
  const DataFile& two =
      r->delete_files[0].record_count == 4 ? r->delete_files[0] : r->delete_files[1];
  const DataFile& one =
      r->delete_files[0].record_count == 4 ? r->delete_files[1] : r->delete_files[0];
  EXPECT_EQ(two.content, FileContent::kPositionDeletes);
  EXPECT_NE(two.file_path.find("/ts_day=2017-11-16/00000-0-op-"), std::string::npos);
  EXPECT_TRUE(two.file_path.ends_with("-deletes.parquet")) << two.file_path;
  EXPECT_FALSE(two.referenced_data_file.has_value());
  EXPECT_FALSE(two.lower_bounds.contains(kDeleteFilePathFieldId));
  EXPECT_FALSE(two.value_counts.contains(kDeleteFilePosFieldId));
  EXPECT_EQ(one.referenced_data_file, "mem://d/c.parquet");
  EXPECT_EQ(one.lower_bounds.at(kDeleteFilePathFieldId), "mem://d/c.parquet");
  EXPECT_EQ(one.lower_bounds.at(kDeleteFilePosFieldId), LE64(2));
  EXPECT_EQ(one.upper_bounds.at(kDeleteFilePosFieldId), LE64(9));
  EXPECT_FALSE(one.value_counts.contains(kDeleteFilePathFieldId));
  std::vector<std::string> rows = ReadRows(io, PositionDeleteSchema(), two.file_path);
  EXPECT_EQ(rows, (std::vector<std::string>{R"({"file_path":"mem://d/a.parquet","pos":0})",
                                            R"({"file_path":"mem://d/b.parquet","pos":1})",
                                            R"({"file_path":"mem://d/b.parquet","pos":3})",
                                            R"({"file_path":"mem://d/b.parquet","pos":5})"}));
}

TEST(EqualityDeleteWriter, PartitionsFromRowsAndRecordsIds) {
  io::MemoryFileIO io;
  auto schema = Schema::Make({NestedField::Required(1, "id", LongType()),
                              NestedField::Optional(3, "ts", TimestampTzType())});
  FLOE_ASSERT_OK(schema);
  auto spec = PartitionSpecBuilder(*schema, 0).Day("ts").Build();
  auto w = EqualityDeleteWriter::Make(&io, *schema, {1}, *spec, Options());
  FLOE_ASSERT_OK(w);
  col::SchemaPtr cs = std::make_shared<col::Schema>(schema->ToColumnar());
  col::FixedWidthBuilder<int64_t> id(cs->field(0).type), ts(cs->field(1).type);
  id.Append(7);
  ts.Append(kTs16);
  id.Append(8);
  ts.Append(kTs17);
  std::vector<col::Array> cols;
  cols.push_back(id.Finish());
  cols.push_back(ts.Finish());
  FLOE_ASSERT_OK((*w)->Write(col::RecordBatch(cs, 2, std::move(cols))));
  auto r = (*w)->Close();
  FLOE_ASSERT_OK(r);
  ASSERT_EQ(r->delete_files.size(), 2u);
  for (const DataFile& f : r->delete_files) {
    EXPECT_EQ(f.content, FileContent::kEqualityDeletes);
    EXPECT_EQ(f.equality_ids, std::vector<int32_t>{1});
    EXPECT_EQ(f.record_count, 1);
    EXPECT_TRUE(f.file_path.ends_with("-deletes.parquet"));
    EXPECT_EQ(f.lower_bounds.at(1), LE64(f.partition[0].int_value() == 17486 ? 7 : 8));
  }
  auto no_ts = Schema::Make({NestedField::Required(1, "id", LongType())});
  EXPECT_EQ(EqualityDeleteWriter::Make(&io, *no_ts, {1}, *spec, Options()).status().code(),
            StatusCode::kInvalidArgument);
  EXPECT_FALSE(EqualityDeleteWriter::Make(&io, *no_ts, {9}, PartitionSpec(), Options()).ok());
}

TEST(DeletionVectorWriter, OneVectorPerDataFileMergedWithPrevious) {
  io::MemoryFileIO io;
  Schema schema = TestSchema();
  auto spec = PartitionSpecBuilder(schema, 2).Day("ts").Build();
  auto w = DeletionVectorWriter::Make(&io, Options());
  FLOE_ASSERT_OK(w);
  FLOE_ASSERT_OK(
      (*w)->Delete("mem://d/a.parquet", std::vector<int64_t>{4, 1}, *spec, {Literal::Date(17486)}));
  FLOE_ASSERT_OK(
      (*w)->Delete("mem://d/b.parquet", std::vector<int64_t>{0}, *spec, {Literal::Date(17487)}));
  format::puffin::PositionBitmap prev;
  FLOE_ASSERT_OK(prev.Add(7));
  FLOE_ASSERT_OK(prev.Add(1));
  DataFile old_dv;
  old_dv.file_path = "mem://old.puffin";
  old_dv.file_format = FileFormat::kPuffin;
  old_dv.content_offset = 4;
  DataFile shared_pos;  // partition-scoped: stays in the table
  shared_pos.file_path = "mem://shared-deletes.parquet";
  FLOE_ASSERT_OK((*w)->MergePrevious("mem://d/a.parquet", prev, {old_dv, shared_pos}));
  FLOE_ASSERT_OK((*w)->MergePrevious("mem://d/z.parquet", prev, {old_dv}));  // no new deletes
  auto r = (*w)->Close();
  FLOE_ASSERT_OK(r);
  ASSERT_EQ(r->delete_files.size(), 2u);
  const DataFile& a = r->delete_files[0];
  EXPECT_EQ(a.referenced_data_file, "mem://d/a.parquet");
  EXPECT_EQ(a.file_format, FileFormat::kPuffin);
  EXPECT_EQ(a.content, FileContent::kPositionDeletes);
  EXPECT_EQ(a.record_count, 3);  // {1, 4} + {1, 7}
  EXPECT_EQ(a.spec_id, 2);
  EXPECT_EQ(a.partition, std::vector<Literal>{Literal::Date(17486)});
  EXPECT_EQ(a.file_path, "mem://wh/db/t/data/00000-0-op-00001-deletes.puffin");
  EXPECT_EQ(r->delete_files[1].file_path, a.file_path);
  EXPECT_EQ(r->delete_files[1].record_count, 1);
  ASSERT_EQ(r->rewritten_delete_files.size(), 1u);
  EXPECT_EQ(r->rewritten_delete_files[0].file_path, "mem://old.puffin");
  auto in = io.OpenInput(a.file_path);
  FLOE_ASSERT_OK(in);
  EXPECT_EQ(a.file_size_in_bytes, static_cast<int64_t>((*in)->size()));
  auto dv = format::puffin::ReadDeletionVector(**in, static_cast<uint64_t>(*a.content_offset),
                                               static_cast<uint64_t>(*a.content_size_in_bytes), 3);
  FLOE_ASSERT_OK(dv);
  EXPECT_EQ(dv->ToSortedVector(), (std::vector<uint64_t>{1, 4, 7}));
}

}  // namespace
}  // namespace floe::iceberg
