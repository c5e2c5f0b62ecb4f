#include "floe/iceberg/data_reader.h"

#include <gtest/gtest.h>

#include "floe/base/testing.h"
#include "floe/columnar/builder.h"
#include "floe/columnar/json.h"
#include "floe/format/parquet/file_writer.h"
#include "floe/io/memory_file_io.h"

namespace floe::iceberg {
namespace {

namespace col = floe::columnar;
namespace pq = floe::format::parquet;

// Writes `batch` as a Parquet file through floe's writer.
void WriteParquet(io::FileIO& io, const std::string& path, const col::RecordBatch& batch) {
  auto out = io.CreateOutput(path, true);
  FLOE_ASSERT_OK(out);
  auto desc = pq::SchemaDescriptor::FromColumnar(*batch.schema());
  FLOE_ASSERT_OK(desc);
  auto w = pq::FileWriter::Make(std::move(*out),
                                std::shared_ptr<const pq::SchemaDescriptor>(std::move(*desc)),
                                pq::WriterOptions{});
  FLOE_ASSERT_OK(w);
  FLOE_ASSERT_OK((*w)->Write(batch));
  FLOE_ASSERT_OK((*w)->Close());
}

// A file written under the old schema: id int (1), name string (2), s struct<x int (4)> (3).
col::RecordBatch OldRows(bool with_ids) {
  auto id = [&](int v) { return with_ids ? std::optional<int32_t>(v) : std::nullopt; };
  col::DataTypePtr s_type = col::Struct({col::Field("x", col::Int32(), true, id(4))});
  col::Schema schema({col::Field("id", col::Int32(), false, id(1)),
                      col::Field("name", col::String(), true, id(2)),
                      col::Field("s", s_type, true, id(3))});
  col::FixedWidthBuilder<int32_t> ids(col::Int32());
  col::BinaryBuilder names(col::String());
  auto sb = col::MakeBuilder(s_type);
  auto* s = static_cast<col::StructBuilder*>(sb.get());
  auto* x = static_cast<col::FixedWidthBuilder<int32_t>*>(s->child(0));
  ids.Append(1);
  ids.Append(2);
  ids.Append(-3);
  names.Append("a");
  names.AppendNull();
  names.Append("c");
  s->Append();
  x->Append(10);
  s->AppendNull();
  s->Append();
  x->AppendNull();
  std::vector<col::Array> cols;
  cols.push_back(ids.Finish());
  cols.push_back(names.Finish());
  cols.push_back(s->Finish());
  return col::RecordBatch(std::make_shared<col::Schema>(std::move(schema)), 3, std::move(cols));
}

// The evolved table schema: id promoted to long, name renamed, s gained y (6), a new
// column `added` (5) with an initial default, and `region` (7) an identity-partition
// source stored only in the manifest.
std::shared_ptr<const Schema> NewSchema() {
  NestedField added = NestedField::Optional(5, "added", IntType());
  added.initial_default = Literal::Int(7);
  auto s =
      Schema::Make({NestedField::Required(1, "id", LongType()),
                    NestedField::Optional(2, "full_name", StringType()), added,
                    NestedField::Optional(3, "s",
                                          StructType({NestedField::Optional(6, "y", StringType()),
                                                      NestedField::Optional(4, "x", LongType())})),
                    NestedField::Optional(7, "region", StringType())});
  FLOE_EXPECT_OK(s);
  return std::make_shared<const Schema>(*s);
}

std::vector<std::string> ReadAll(io::FileIO& io, const std::string& path,
                                 const NameMapping* mapping, int64_t batch_rows = 2) {
  std::map<int32_t, Literal> constants = {{7, Literal::String("eu")}};
  DataReadOptions options;
  options.batch_rows = batch_rows;
  auto r = DataFileReader::Open(io, path, NewSchema(), constants, mapping, options);
  FLOE_EXPECT_OK(r);
  std::vector<std::string> rows;
  if (!r.ok()) return rows;
  int64_t expected_pos = 0;
  while (true) {
    auto b = (*r)->Next();
    FLOE_EXPECT_OK(b);
    if (!b.ok() || !*b) break;
    EXPECT_EQ((*b)->first_position, expected_pos);
    const col::RecordBatch& batch = (*b)->batch;
    FLOE_EXPECT_OK(batch.Validate());
    for (int64_t i = 0; i < batch.num_rows(); ++i) {
      std::string row;
      col::AppendJsonLine(batch, i, &row);
      while (!row.empty() && row.back() == '\n') row.pop_back();
      rows.push_back(row);
    }
    expected_pos += batch.num_rows();
  }
  return rows;
}

TEST(DataFileReader, ResolvesEvolvedSchemaById) {
  io::MemoryFileIO io;
  WriteParquet(io, "mem://t/a.parquet", OldRows(true));
  std::vector<std::string> rows = ReadAll(io, "mem://t/a.parquet", nullptr);
  // Spec "Column Projection": promoted types read widened, renamed fields by id, missing
  // fields from the partition constant, else initial-default, else null.
  ASSERT_EQ(rows.size(), 3u);
  EXPECT_EQ(rows[0], R"({"id":1,"full_name":"a","added":7,"s":{"y":null,"x":10},"region":"eu"})");
  EXPECT_EQ(rows[1], R"({"id":2,"full_name":null,"added":7,"s":null,"region":"eu"})");
  EXPECT_EQ(rows[2],
            R"({"id":-3,"full_name":"c","added":7,"s":{"y":null,"x":null},"region":"eu"})");
}

TEST(DataFileReader, NameMappingForFilesWithoutIds) {
  io::MemoryFileIO io;
  WriteParquet(io, "mem://t/b.parquet", OldRows(false));
  auto mapping = NameMapping::FromJson(
      R"([{"field-id": 1, "names": ["id"]}, {"field-id": 2, "names": ["full_name", "name"]},
          {"field-id": 3, "names": ["s"], "fields": [{"field-id": 4, "names": ["x"]}]}])");
  FLOE_ASSERT_OK(mapping);
  std::vector<std::string> rows = ReadAll(io, "mem://t/b.parquet", &*mapping, 100);
  ASSERT_EQ(rows.size(), 3u);
  EXPECT_EQ(rows[0], R"({"id":1,"full_name":"a","added":7,"s":{"y":null,"x":10},"region":"eu"})");
  // Without a mapping, names of the read schema are used: "name" is not "full_name".
  std::vector<std::string> by_schema = ReadAll(io, "mem://t/b.parquet", nullptr, 100);
  ASSERT_EQ(by_schema.size(), 3u);
  EXPECT_EQ(by_schema[0],
            R"({"id":1,"full_name":null,"added":7,"s":{"y":null,"x":10},"region":"eu"})");
}

TEST(DataFileReader, IncompatibleTypesAreErrors) {
  io::MemoryFileIO io;
  WriteParquet(io, "mem://t/c.parquet", OldRows(true));
  auto bad = Schema::Make({NestedField::Optional(2, "name", IntType())});
  auto r = DataFileReader::Open(io, "mem://t/c.parquet", std::make_shared<const Schema>(*bad), {},
                                nullptr);
  FLOE_ASSERT_OK(r);
  auto b = (*r)->Next();
  EXPECT_EQ(b.status().code(), StatusCode::kInvalidArgument);
  auto missing = DataFileReader::Open(io, "mem://t/none.parquet", NewSchema(), {}, nullptr);
  EXPECT_EQ(missing.status().code(), StatusCode::kNotFound);
}

}  // namespace
}  // namespace floe::iceberg
