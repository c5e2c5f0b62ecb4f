#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <nlohmann/json.hpp>

#include "floe/base/testing.h"
#include "floe/format/avro/schema.h"
#include "floe/iceberg/manifest.h"
#include "floe/iceberg/manifest_avro.h"
#include "floe/iceberg/manifest_list.h"
#include "floe/iceberg/manifest_reader.h"
#include "floe/iceberg/manifest_writer.h"
#include "floe/iceberg/partition_spec.h"
#include "floe/iceberg/schema.h"
#include "floe/io/memory_file_io.h"

namespace floe::iceberg {
namespace {

using Json = nlohmann::json;

TypePtr TestPartitionType() {
  return StructType({NestedField::Optional(1000, "id", IntType()),
                     NestedField::Optional(1001, "ts_day", DateType()),
                     NestedField::Optional(1002, "name_bucket", IntType()),
                     NestedField::Optional(1003, "price", DecimalType(9, 2)),
                     NestedField::Optional(1004, "score", DoubleType())});
}

DataFile TestFile(std::string path, int32_t id, int32_t day, int64_t rows) {
  DataFile f;
  f.file_path = std::move(path);
  f.file_format = FileFormat::kParquet;
  f.partition = {Literal::Int(id), Literal::Date(day), Literal::Null(IntType()),
                 Literal::Decimal(12345, 9, 2), Literal::Double(1.5)};
  f.record_count = rows;
  f.file_size_in_bytes = rows * 10;
  f.column_sizes = {{1, 100}, {2, 200}};
  f.value_counts = {{1, rows}};
  f.null_value_counts = {{1, 0}};
  f.nan_value_counts = {{3, 1}};
  f.lower_bounds = {{1, std::string("\x01\x00\x00\x00", 4)}};
  f.upper_bounds = {{1, std::string("\x09\x00\x00\x00", 4)}};
  f.split_offsets = std::vector<int64_t>{4};
  f.sort_order_id = 0;
  return f;
}

struct Written {
  ManifestFile manifest;
};

ManifestWriterOptions Options(int version, ManifestContent content = ManifestContent::kData) {
  ManifestWriterOptions o;
  o.format_version = version;
  o.content = content;
  o.spec_id = 3;
  o.partition_type = TestPartitionType();
  o.schema_json = R"({"type":"struct","schema-id":0,"fields":[]})";
  o.snapshot_id = 77;
  return o;
}

class ManifestTest : public ::testing::Test {
 protected:
  std::unique_ptr<ManifestWriter> NewWriter(const std::string& path, ManifestWriterOptions o) {
    auto out = io_.CreateOutput(path, true);
    EXPECT_TRUE(out.has_value());
    auto w = ManifestWriter::Make(std::move(*out), std::move(o));
    EXPECT_TRUE(w.has_value()) << w.error().ToString();
    return std::move(*w);
  }
  Result<std::vector<ManifestEntry>> Read(const ManifestFile& m,
                                          ManifestReaderOptions options = {}) {
    auto in = io_.OpenInput(m.manifest_path);
    EXPECT_TRUE(in.has_value());
    return ReadManifest(**in, m, std::move(options));
  }
  io::MemoryFileIO io_;
};

TEST(ManifestAvroTest, EntrySchemaMatchesJavaLayout) {
  for (int version : {1, 2, 3}) {
    auto json = ManifestEntryAvroSchema(version, *TestPartitionType());
    ASSERT_TRUE(json.has_value());
    ASSERT_TRUE(format::avro::Schema::Parse(*json).has_value()) << *json;
    Json j = Json::parse(*json);
    EXPECT_EQ(j["name"], "manifest_entry");
    std::vector<int> ids;
    for (auto& f : j["fields"]) ids.push_back(f["field-id"]);
    if (version == 1) {
      EXPECT_EQ(ids, (std::vector<int>{0, 1, 2}));
    } else {
      EXPECT_EQ(ids, (std::vector<int>{0, 1, 3, 4, 2}));
    }
    Json df = j["fields"][ids.size() - 1]["type"];
    EXPECT_EQ(df["name"], "r2");
    std::vector<int> df_ids;
    for (auto& f : df["fields"]) df_ids.push_back(f["field-id"]);
    // V1Metadata.dataFileSchema / V2Metadata.fileType / V3Metadata.fileType.
    std::vector<int> expected =
        version == 1   ? std::vector<int>{100, 101, 102, 103, 104, 105, 108, 109,
                                          110, 137, 125, 128, 131, 132, 140}
        : version == 2 ? std::vector<int>{134, 100, 101, 102, 103, 104, 108, 109, 110,
                                          137, 125, 128, 131, 132, 135, 140, 143}
                       : std::vector<int>{134, 100, 101, 102, 103, 104, 108, 109, 110, 137,
                                          125, 128, 131, 132, 135, 140, 142, 143, 144, 145};
    EXPECT_EQ(df_ids, expected);
    Json partition = df["fields"][version == 1 ? 2 : 3]["type"];
    EXPECT_EQ(partition["name"], "r102");
    EXPECT_EQ(partition["fields"][1]["type"][1]["logicalType"], "date");
    EXPECT_EQ(partition["fields"][3]["type"][1]["type"], "fixed");
    EXPECT_EQ(partition["fields"][3]["type"][1]["size"], 4);
    Json column_sizes = df["fields"][version == 1 ? 6 : 6]["type"][1];
    EXPECT_EQ(column_sizes["logicalType"], "map");
    EXPECT_EQ(column_sizes["items"]["name"], "k117_v118");
  }
}

TEST(ManifestAvroTest, DecimalRequiredBytes) {
  // Java TypeUtil.decimalRequiredBytes.
  EXPECT_EQ(DecimalRequiredBytes(1), 1);
  EXPECT_EQ(DecimalRequiredBytes(9), 4);
  EXPECT_EQ(DecimalRequiredBytes(10), 5);
  EXPECT_EQ(DecimalRequiredBytes(18), 8);
  EXPECT_EQ(DecimalRequiredBytes(38), 16);
}

TEST(ManifestPathsTest, JavaNames) {
  EXPECT_EQ(ManifestPath("s3://b/t/", "abc", 0), "s3://b/t/metadata/abc-m0.avro");
  EXPECT_EQ(ManifestListPath("s3://b/t", 5, 1, "abc"), "s3://b/t/metadata/snap-5-1-abc.avro");
  EXPECT_EQ(*ParseFileFormat("parquet"), FileFormat::kParquet);
  EXPECT_EQ(*ParseFileFormat("PuFfIn"), FileFormat::kPuffin);
  EXPECT_FALSE(ParseFileFormat("csv").has_value());
}

TEST_F(ManifestTest, RoundTripEveryVersion) {
  for (int version : {1, 2, 3}) {
    std::string path = "mem://t/metadata/m" + std::to_string(version) + ".avro";
    auto w = NewWriter(path, Options(version));
    DataFile a = TestFile("s3://t/data/a.parquet", 1, 19000, 100);
    DataFile b = TestFile("s3://t/data/b.parquet", 7, 19001, 50);
    b.partition[0] = Literal::Null(IntType());
    b.partition[4] = Literal::Double(std::nan(""));
    FLOE_ASSERT_OK(w->Add(a));
    FLOE_ASSERT_OK(w->Add(b, 4));
    auto m = w->Close();
    ASSERT_TRUE(m.has_value()) << m.error().ToString();
    EXPECT_EQ(m->manifest_path, path);
    EXPECT_EQ(m->manifest_length, static_cast<int64_t>(io_.ReadFile(path)->size()));
    EXPECT_EQ(m->sequence_number, kUnassignedSequenceNumber);
    EXPECT_EQ(m->min_sequence_number, version == 1 ? 4 : 4);
    EXPECT_EQ(m->added_files_count, 2);
    EXPECT_EQ(m->added_rows_count, 150);
    ASSERT_EQ(m->partitions->size(), 5u);
    const auto& s = *m->partitions;
    EXPECT_TRUE(s[0].contains_null);
    EXPECT_EQ(s[0].lower_bound, *Literal::Int(1).ToBytes());
    EXPECT_EQ(s[0].upper_bound, *Literal::Int(1).ToBytes());
    EXPECT_EQ(s[1].lower_bound, *Literal::Date(19000).ToBytes());
    EXPECT_EQ(s[1].upper_bound, *Literal::Date(19001).ToBytes());
    EXPECT_TRUE(s[2].contains_null);
    EXPECT_FALSE(s[2].lower_bound.has_value());
    EXPECT_EQ(s[4].contains_nan, true);
    EXPECT_EQ(s[4].lower_bound, *Literal::Double(1.5).ToBytes());

    ManifestFile committed = *m;
    committed.sequence_number = 9;
    committed.min_sequence_number = 4;
    auto entries = Read(committed);
    ASSERT_TRUE(entries.has_value()) << entries.error().ToString();
    ASSERT_EQ(entries->size(), 2u);
    const ManifestEntry& ea = (*entries)[0];
    EXPECT_EQ(ea.status, ManifestStatus::kAdded);
    EXPECT_EQ(ea.snapshot_id, 77);
    EXPECT_EQ(ea.data_sequence_number, 9);
    EXPECT_EQ(ea.file_sequence_number, 9);
    DataFile expect_a = a;
    expect_a.spec_id = 3;
    EXPECT_EQ(ea.data_file, expect_a);
    const ManifestEntry& eb = (*entries)[1];
    if (version == 1) {
      // v1 has no sequence number columns: everything inherits.
      EXPECT_EQ(eb.data_sequence_number, 9);
    } else {
      EXPECT_EQ(eb.data_sequence_number, 4);
    }
    EXPECT_EQ(eb.file_sequence_number, 9);
    EXPECT_TRUE(eb.data_file.partition[0].is_null());
    EXPECT_TRUE(std::isnan(eb.data_file.partition[4].double_value()));

    ManifestReaderOptions no_stats;
    no_stats.read_stats = false;
    auto slim = Read(committed, no_stats);
    ASSERT_TRUE(slim.has_value());
    EXPECT_TRUE((*slim)[0].data_file.lower_bounds.empty());
    EXPECT_TRUE((*slim)[0].data_file.column_sizes.empty());
    EXPECT_EQ((*slim)[0].data_file.split_offsets, a.split_offsets);
  }
}

TEST_F(ManifestTest, DeleteManifests) {
  auto w = NewWriter("mem://t/d2.avro", Options(2, ManifestContent::kDeletes));
  DataFile eq = TestFile("s3://t/data/eq.parquet", 1, 1, 3);
  eq.content = FileContent::kEqualityDeletes;
  eq.equality_ids = std::vector<int32_t>{1, 2};
  DataFile pos = TestFile("s3://t/data/pos.parquet", 1, 1, 2);
  pos.content = FileContent::kPositionDeletes;
  pos.referenced_data_file = "s3://t/data/a.parquet";
  pos.sort_order_id.reset();
  FLOE_ASSERT_OK(w->Add(eq));
  FLOE_ASSERT_OK(w->Add(pos));
  EXPECT_FALSE(w->Add(TestFile("s3://t/data/x.parquet", 1, 1, 1)).ok());  // data file
  auto m = w->Close();
  ASSERT_TRUE(m.has_value());
  EXPECT_EQ(m->content, ManifestContent::kDeletes);
  m->sequence_number = 2;
  auto entries = Read(*m);
  ASSERT_TRUE(entries.has_value()) << entries.error().ToString();
  ASSERT_EQ(entries->size(), 2u);
  EXPECT_EQ((*entries)[0].data_file.content, FileContent::kEqualityDeletes);
  EXPECT_EQ((*entries)[0].data_file.equality_ids, (std::vector<int32_t>{1, 2}));
  EXPECT_EQ((*entries)[1].data_file.referenced_data_file, "s3://t/data/a.parquet");
  EXPECT_FALSE((*entries)[1].data_file.sort_order_id.has_value());

  // v3 deletion vector.
  auto w3 = NewWriter("mem://t/d3.avro", Options(3, ManifestContent::kDeletes));
  DataFile dv = TestFile("s3://t/data/dv.puffin", 1, 1, 5);
  dv.content = FileContent::kPositionDeletes;
  dv.file_format = FileFormat::kPuffin;
  dv.referenced_data_file = "s3://t/data/a.parquet";
  dv.content_offset = 4;
  dv.content_size_in_bytes = 40;
  FLOE_ASSERT_OK(w3->Add(dv));
  auto m3 = w3->Close();
  ASSERT_TRUE(m3.has_value());
  m3->sequence_number = 5;
  auto e3 = Read(*m3);
  ASSERT_TRUE(e3.has_value()) << e3.error().ToString();
  EXPECT_EQ((*e3)[0].data_file.file_format, FileFormat::kPuffin);
  EXPECT_EQ((*e3)[0].data_file.content_offset, 4);
  EXPECT_EQ((*e3)[0].data_file.content_size_in_bytes, 40);
  EXPECT_FALSE((*e3)[0].data_file.first_row_id.has_value());

  // v1 has no delete manifests.
  auto out = io_.CreateOutput("mem://t/d1.avro", true);
  EXPECT_FALSE(
      ManifestWriter::Make(std::move(*out), Options(1, ManifestContent::kDeletes)).has_value());
}

TEST_F(ManifestTest, InheritanceOnlyForAddedEntries) {
  auto w = NewWriter("mem://t/i.avro", Options(2));
  ManifestEntry existing;
  existing.snapshot_id = 10;
  existing.data_sequence_number = 2;
  existing.file_sequence_number = 3;
  existing.data_file = TestFile("s3://t/data/old.parquet", 1, 1, 10);
  ManifestEntry missing = existing;
  missing.data_sequence_number.reset();
  EXPECT_FALSE(w->Existing(missing).ok());  // writers refuse to drop explicit numbers
  FLOE_ASSERT_OK(w->Existing(existing));
  FLOE_ASSERT_OK(w->Delete(existing));
  FLOE_ASSERT_OK(w->Add(TestFile("s3://t/data/new.parquet", 1, 1, 1)));
  auto m = w->Close();
  ASSERT_TRUE(m.has_value());
  EXPECT_EQ(m->min_sequence_number, 2);
  EXPECT_EQ(m->existing_files_count, 1);
  EXPECT_EQ(m->deleted_files_count, 1);
  m->sequence_number = 8;
  m->added_snapshot_id = 77;
  auto entries = Read(*m);
  ASSERT_TRUE(entries.has_value());
  ASSERT_EQ(entries->size(), 3u);
  EXPECT_EQ((*entries)[0].status, ManifestStatus::kExisting);
  EXPECT_EQ((*entries)[0].snapshot_id, 10);
  EXPECT_EQ((*entries)[0].data_sequence_number, 2);
  EXPECT_EQ((*entries)[0].file_sequence_number, 3);
  EXPECT_EQ((*entries)[1].status, ManifestStatus::kDeleted);
  EXPECT_EQ((*entries)[1].snapshot_id, 77);  // the deleting snapshot
  EXPECT_EQ((*entries)[1].data_sequence_number, 2);
  EXPECT_EQ((*entries)[2].data_sequence_number, 8);

  ManifestReaderOptions live;
  live.filter = ManifestEntryFilter::kLive;
  EXPECT_EQ(Read(*m, live)->size(), 2u);
  live.filter = ManifestEntryFilter::kAdded;
  EXPECT_EQ(Read(*m, live)->size(), 1u);
}

// An EXISTING entry with a null sequence number (which floe's writer refuses to produce)
// is corrupt: patch the status of an ADDED entry in an uncompressed manifest.
TEST_F(ManifestTest, NullSequenceNumberOnExistingEntryIsCorrupt) {
  auto o = Options(2);
  o.codec = format::avro::AvroCodec::kNull;
  format::avro::SyncMarker sync;
  for (size_t i = 0; i < sync.size(); ++i) sync[i] = static_cast<uint8_t>(0xA0 + i);
  o.sync_marker = sync;
  auto w = NewWriter("mem://t/p.avro", o);
  FLOE_ASSERT_OK(w->Add(TestFile("s3://t/data/a.parquet", 1, 1, 1)));
  auto m = w->Close();
  ASSERT_TRUE(m.has_value());
  std::string bytes(io_.ReadFile(m->manifest_path)->view());
  size_t header_end =
      bytes.find(std::string(reinterpret_cast<const char*>(sync.data()), sync.size())) + 16;
  size_t datum = header_end + 1;  // count 1 (one byte)
  while (static_cast<uint8_t>(bytes[datum]) & 0x80) ++datum;
  ++datum;                          // block size varint
  ASSERT_EQ(bytes[datum], '\x02');  // status ADDED
  bytes[datum] = '\x00';            // EXISTING
  io_.Put(m->manifest_path, bytes);
  m->sequence_number = 3;
  auto entries = Read(*m);
  ASSERT_FALSE(entries.has_value());
  EXPECT_TRUE(entries.error().IsCorrupt()) << entries.error().ToString();
}

// Spec, "First Row ID Inheritance": null first_row_ids are assigned in order from the
// manifest's first_row_id, each advancing by its record count; explicit ones are kept and
// DELETED entries take none (Java ManifestReader.idAssigner).
TEST_F(ManifestTest, FirstRowIdInheritance) {
  auto w = NewWriter("mem://t/r.avro", Options(3));
  DataFile a = TestFile("s3://t/data/a.parquet", 1, 1, 100);
  ManifestEntry b;
  b.snapshot_id = 1;
  b.data_sequence_number = 1;
  b.file_sequence_number = 1;
  b.data_file = TestFile("s3://t/data/b.parquet", 1, 1, 50);
  b.data_file.first_row_id = 5;
  ManifestEntry c = b;
  c.data_file = TestFile("s3://t/data/c.parquet", 1, 1, 30);
  DataFile d = TestFile("s3://t/data/d.parquet", 1, 1, 20);
  FLOE_ASSERT_OK(w->Add(a));
  FLOE_ASSERT_OK(w->Existing(b));
  FLOE_ASSERT_OK(w->Delete(c));
  FLOE_ASSERT_OK(w->Add(d));
  auto m = w->Close();
  ASSERT_TRUE(m.has_value());

  // Uncommitted: kept as written.
  auto raw = Read(*m);
  ASSERT_TRUE(raw.has_value());
  EXPECT_FALSE((*raw)[0].data_file.first_row_id.has_value());
  EXPECT_EQ((*raw)[1].data_file.first_row_id, 5);

  m->sequence_number = 2;
  m->first_row_id = 1000;
  auto entries = Read(*m);
  ASSERT_TRUE(entries.has_value());
  EXPECT_EQ((*entries)[0].data_file.first_row_id, 1000);
  EXPECT_EQ((*entries)[1].data_file.first_row_id, 5);
  EXPECT_FALSE((*entries)[2].data_file.first_row_id.has_value());
  EXPECT_EQ((*entries)[3].data_file.first_row_id, 1100);

  // A committed manifest without first_row_id (pre-v3 upgrade): all null, as in Java.
  m->first_row_id.reset();
  auto cleared = Read(*m);
  ASSERT_TRUE(cleared.has_value());
  EXPECT_FALSE((*cleared)[1].data_file.first_row_id.has_value());
}

ManifestFile ListEntry(std::string path, ManifestContent content, int64_t snapshot,
                       int64_t added_rows, int64_t existing_rows) {
  ManifestFile m;
  m.manifest_path = std::move(path);
  m.manifest_length = 1234;
  m.partition_spec_id = 1;
  m.content = content;
  m.added_snapshot_id = snapshot;
  m.added_files_count = 1;
  m.existing_files_count = 2;
  m.deleted_files_count = 0;
  m.added_rows_count = added_rows;
  m.existing_rows_count = existing_rows;
  m.deleted_rows_count = 0;
  m.partitions = std::vector<PartitionFieldSummary>{{false, false, "\x01", "\x02"},
                                                    {true, std::nullopt, {}, {}}};
  return m;
}

// Spec, "First Row ID Assignment": new data manifests get ids from the snapshot's
// first-row-id, advancing by existing + added rows; delete manifests and manifests that
// have one keep theirs.
TEST_F(ManifestTest, ManifestListV3AssignsSequenceNumbersAndRowIds) {
  ManifestListWriterOptions o;
  o.format_version = 3;
  o.snapshot_id = 50;
  o.parent_snapshot_id = 49;
  o.sequence_number = 7;
  o.first_row_id = 1000;
  auto out = io_.CreateOutput("mem://t/snap.avro", true);
  auto w = ManifestListWriter::Make(std::move(*out), o);
  ASSERT_TRUE(w.has_value());
  ManifestFile m1 = ListEntry("m1", ManifestContent::kData, 50, 100, 50);
  ManifestFile m2 = ListEntry("m2", ManifestContent::kDeletes, 50, 3, 0);
  ManifestFile m3 = ListEntry("m3", ManifestContent::kData, 40, 10, 0);
  m3.sequence_number = 5;
  m3.min_sequence_number = 4;
  m3.first_row_id = 42;
  ManifestFile m4 = ListEntry("m4", ManifestContent::kData, 50, 10, 0);
  m4.min_sequence_number = 6;
  for (const ManifestFile& m : {m1, m2, m3, m4}) ASSERT_TRUE((*w)->Add(m).has_value());
  ManifestFile foreign = ListEntry("m5", ManifestContent::kData, 12, 1, 0);
  EXPECT_FALSE((*w)->Add(foreign).has_value());  // unassigned but not from this snapshot
  EXPECT_EQ((*w)->assigned_rows(), 160);
  EXPECT_EQ((*w)->next_row_id(), 1160);
  FLOE_ASSERT_OK((*w)->Close());

  auto in = io_.OpenInput("mem://t/snap.avro");
  auto list = ReadManifestList(**in);
  ASSERT_TRUE(list.has_value()) << list.error().ToString();
  ASSERT_EQ(list->size(), 4u);
  EXPECT_EQ((*list)[0].sequence_number, 7);
  EXPECT_EQ((*list)[0].min_sequence_number, 7);
  EXPECT_EQ((*list)[0].first_row_id, 1000);
  EXPECT_FALSE((*list)[1].first_row_id.has_value());
  EXPECT_EQ((*list)[1].content, ManifestContent::kDeletes);
  EXPECT_EQ((*list)[2].sequence_number, 5);
  EXPECT_EQ((*list)[2].first_row_id, 42);
  EXPECT_EQ((*list)[3].min_sequence_number, 6);
  EXPECT_EQ((*list)[3].first_row_id, 1150);
  EXPECT_EQ((*list)[0].partitions, m1.partitions);
}

TEST_F(ManifestTest, ManifestListV1AndV2) {
  for (int version : {1, 2}) {
    ManifestListWriterOptions o;
    o.format_version = version;
    o.snapshot_id = 50;
    o.sequence_number = 3;
    std::string path = "mem://t/l" + std::to_string(version);
    auto w = ManifestListWriter::Make(*io_.CreateOutput(path, true), o);
    ASSERT_TRUE(w.has_value());
    ManifestFile m = ListEntry("m1", ManifestContent::kData, 50, 1, 2);
    ASSERT_TRUE((*w)->Add(m).has_value());
    if (version == 1) {
      EXPECT_FALSE((*w)->Add(ListEntry("d", ManifestContent::kDeletes, 50, 1, 0)).has_value());
    }
    FLOE_ASSERT_OK((*w)->Close());
    auto list = ReadManifestList(**io_.OpenInput(path));
    ASSERT_TRUE(list.has_value()) << list.error().ToString();
    ASSERT_EQ(list->size(), 1u);
    ManifestFile expected = m;
    expected.sequence_number = version == 1 ? 0 : 3;
    expected.min_sequence_number = version == 1 ? 0 : 3;
    EXPECT_EQ((*list)[0], expected);
  }
}

// A spec with identity, bucket and day transforms: the writer takes its partition type and
// metadata from the spec; the reader rebuilds the type from the file's metadata.
TEST_F(ManifestTest, SpecAndSchemaFromMetadata) {
  auto schema = SchemaFromJson(
      R"({"type":"struct","schema-id":1,"fields":[
        {"id":1,"name":"id","required":true,"type":"long"},
        {"id":2,"name":"name","required":false,"type":"string"},
        {"id":3,"name":"ts","required":false,"type":"timestamptz"}]})");
  ASSERT_TRUE(schema.has_value()) << schema.error().ToString();
  auto spec = PartitionSpecFromJson(
      R"({"spec-id":2,"fields":[
        {"name":"id","transform":"identity","source-id":1,"field-id":1000},
        {"name":"name_bucket","transform":"bucket[16]","source-id":2,"field-id":1001},
        {"name":"ts_day","transform":"day","source-id":3,"field-id":1002}]})");
  ASSERT_TRUE(spec.has_value()) << spec.error().ToString();
  auto options = MakeManifestWriterOptions(2, *spec, *schema, 11);
  ASSERT_TRUE(options.has_value()) << options.error().ToString();
  auto w = NewWriter("mem://t/spec.avro", *options);
  DataFile f;
  f.file_path = "s3://t/a.parquet";
  // Java's day transform yields date; take the type the spec gives rather than assume it.
  auto day = Literal::Make(options->partition_type->fields()[2].type, int32_t{19000});
  ASSERT_TRUE(day.has_value());
  f.partition = {Literal::Long(5), Literal::Int(3), *day};
  f.record_count = 1;
  Status added = w->Add(f);
  FLOE_ASSERT_OK(added);
  auto m = w->Close();
  ASSERT_TRUE(m.has_value());
  auto in = io_.OpenInput(m->manifest_path);
  auto reader = ManifestReader::Open(**in, *m);
  ASSERT_TRUE(reader.has_value()) << reader.error().ToString();
  EXPECT_EQ((*reader)->spec_id(), 2);
  EXPECT_TRUE((*reader)->partition_type()->Equals(*options->partition_type));
  auto entries = (*reader)->ReadAll();
  ASSERT_TRUE(entries.has_value());
  EXPECT_EQ((*entries)[0].data_file.partition, f.partition);
  EXPECT_EQ((*entries)[0].data_file.spec_id, 2);
}

TEST_F(ManifestTest, MalformedInputIsAnError) {
  io_.Put("mem://bad", "Obj\x01garbage");
  ManifestFile m;
  m.manifest_path = "mem://bad";
  EXPECT_FALSE(Read(m).has_value());
  EXPECT_FALSE(ReadManifestList(**io_.OpenInput("mem://bad")).has_value());
  // A valid manifest truncated at every length.
  auto w = NewWriter("mem://t/ok.avro", Options(2));
  FLOE_ASSERT_OK(w->Add(TestFile("s3://t/a.parquet", 1, 1, 1)));
  auto ok = w->Close();
  ASSERT_TRUE(ok.has_value());
  std::string bytes(io_.ReadFile(ok->manifest_path)->view());
  for (size_t n = 0; n < bytes.size(); n += 7) {
    io_.Put("mem://t/cut.avro", bytes.substr(0, n));
    ManifestFile cut = *ok;
    cut.manifest_path = "mem://t/cut.avro";
    EXPECT_FALSE(Read(cut).has_value()) << n;
  }
}

}  // namespace
}  // namespace floe::iceberg
