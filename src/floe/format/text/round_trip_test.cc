// What the writers write, the readers read back to equal batches: every type the text forms
// cover, nulls at every level, awkward strings.
#include <cmath>
#include <limits>

#include <gtest/gtest.h>

#include "floe/base/testing.h"
#include "floe/columnar/builder.h"
#include "floe/columnar/json.h"
#include "floe/format/text/test_util.h"
#include "floe/format/text/writer.h"
#include "floe/io/memory_file_io.h"

namespace floe::format::text {
namespace {

using namespace columnar;  // NOLINT(google-build-using-namespace): test brevity

SchemaPtr EveryTypeSchema() {
  auto point = Struct({Field("x", Float64()), Field("y", Float64(), false)});
  return std::make_shared<Schema>(std::vector<Field>{
      Field("b", Bool()),
      Field("i", Int32(), false),
      Field("l", Int64()),
      Field("f", Float32()),
      Field("d", Float64()),
      Field("dec", Decimal128(38, 10)),
      Field("date", Date32()),
      Field("time", Time(TimeUnit::kMicro)),
      Field("ts", Timestamp(TimeUnit::kMicro, false)),
      Field("tstz", Timestamp(TimeUnit::kMicro, true)),
      Field("ts_ns", Timestamp(TimeUnit::kNano, false)),
      Field("s", String()),
      Field("bin", Binary()),
      Field("fx", FixedBinary(3)),
      Field("u", Uuid()),
      Field("st", Struct({Field("a", Int32()), Field("tags", List(Field("element", String())))})),
      Field("pts", List(Field("element", point))),
      Field("ms", Map(Field("key", String()), Field("value", Int64()))),
      Field("mi", Map(Field("key", Int32()), Field("value", List(Field("element", Date32()))))),
  });
}

constexpr int kRows = 4;

RecordBatch EveryTypeBatch() {
  SchemaPtr schema = EveryTypeSchema();
  std::vector<std::unique_ptr<ArrayBuilder>> b;
  for (const auto& f : schema->fields()) b.push_back(MakeBuilder(f.type));
  auto& b_b = static_cast<BoolBuilder&>(*b[0]);
  auto& b_i = static_cast<FixedWidthBuilder<int32_t>&>(*b[1]);
  auto& b_l = static_cast<FixedWidthBuilder<int64_t>&>(*b[2]);
  auto& b_f = static_cast<FixedWidthBuilder<float>&>(*b[3]);
  auto& b_d = static_cast<FixedWidthBuilder<double>&>(*b[4]);
  auto& b_dec = static_cast<FixedWidthBuilder<__int128>&>(*b[5]);
  auto& b_date = static_cast<FixedWidthBuilder<int32_t>&>(*b[6]);
  auto& b_time = static_cast<FixedWidthBuilder<int64_t>&>(*b[7]);
  auto& b_ts = static_cast<FixedWidthBuilder<int64_t>&>(*b[8]);
  auto& b_tstz = static_cast<FixedWidthBuilder<int64_t>&>(*b[9]);
  auto& b_tsns = static_cast<FixedWidthBuilder<int64_t>&>(*b[10]);
  auto& b_s = static_cast<BinaryBuilder&>(*b[11]);
  auto& b_bin = static_cast<BinaryBuilder&>(*b[12]);
  auto& b_fx = static_cast<FixedBinaryBuilder&>(*b[13]);
  auto& b_u = static_cast<FixedBinaryBuilder&>(*b[14]);
  auto& b_st = static_cast<StructBuilder&>(*b[15]);
  auto& b_pts = static_cast<ListBuilder&>(*b[16]);
  auto& b_ms = static_cast<ListBuilder&>(*b[17]);
  auto& b_mi = static_cast<ListBuilder&>(*b[18]);
  __int128 max_dec = 0;
  for (int k = 0; k < 38; ++k) max_dec = max_dec * 10 + 9;

  // Row 0: ordinary values.
  b_b.Append(true);
  b_i.Append(1);
  b_l.Append(std::numeric_limits<int64_t>::min());
  b_f.Append(0.1f);
  b_d.Append(1.0 / 3);
  b_dec.Append(-max_dec);
  b_date.Append(-719529);
  b_time.Append(86399999999);
  b_ts.Append(-1);
  b_tstz.Append(1510871468000001);
  b_tsns.Append(1510871468123456789);
  b_s.Append("plain");
  b_bin.Append(std::string_view("\x00\xff\n", 3));
  b_fx.Append("abc");
  b_u.Append("\xf7\x9c\x3e\x09\x67\x7c\x4b\xbd\xa4\x79\x3f\x34\x9c\xb7\x85\xe7");
  b_st.Append();
  static_cast<FixedWidthBuilder<int32_t>&>(*b_st.child(0)).Append(5);
  {
    auto& tags = static_cast<ListBuilder&>(*b_st.child(1));
    tags.Append();
    static_cast<BinaryBuilder&>(*tags.child()).Append("t1");
    tags.child()->AppendNull();
    static_cast<BinaryBuilder&>(*tags.child()).Append("");
    tags.Close();
  }
  b_pts.Append();
  {
    auto& pt = static_cast<StructBuilder&>(*b_pts.child());
    pt.Append();
    static_cast<FixedWidthBuilder<double>&>(*pt.child(0)).Append(1.5);
    static_cast<FixedWidthBuilder<double>&>(*pt.child(1)).Append(-0.0);
    pt.AppendNull();
    pt.Append();
    pt.child(0)->AppendNull();
    static_cast<FixedWidthBuilder<double>&>(*pt.child(1)).Append(1e300);
  }
  b_pts.Close();
  b_ms.Append();
  {
    auto& entries = static_cast<StructBuilder&>(*b_ms.child());
    entries.Append();
    static_cast<BinaryBuilder&>(*b_ms.key_builder()).Append("k \"1\"");
    static_cast<FixedWidthBuilder<int64_t>&>(*b_ms.item_builder()).Append(7);
    entries.Append();
    static_cast<BinaryBuilder&>(*b_ms.key_builder()).Append("");
    b_ms.item_builder()->AppendNull();
  }
  b_ms.Close();
  b_mi.Append();
  {
    auto& entries = static_cast<StructBuilder&>(*b_mi.child());
    entries.Append();
    static_cast<FixedWidthBuilder<int32_t>&>(*b_mi.key_builder()).Append(-3);
    auto& dates = static_cast<ListBuilder&>(*b_mi.item_builder());
    dates.Append();
    static_cast<FixedWidthBuilder<int32_t>&>(*dates.child()).Append(17486);
    dates.child()->AppendNull();
    dates.Close();
    entries.Append();
    static_cast<FixedWidthBuilder<int32_t>&>(*b_mi.key_builder()).Append(4);
    dates.AppendNull();
  }
  b_mi.Close();

  // Row 1: nulls at the top level everywhere (except the required column).
  for (size_t c = 0; c < b.size(); ++c) {
    if (c == 1) {
      b_i.Append(std::numeric_limits<int32_t>::min());
    } else {
      b[c]->AppendNull();
    }
  }

  // Row 2: special floats, empty containers, awkward text.
  b_b.Append(false);
  b_i.Append(0);
  b_l.Append(std::numeric_limits<int64_t>::max());
  b_f.Append(std::numeric_limits<float>::infinity());
  b_d.Append(-std::numeric_limits<double>::infinity());
  b_dec.Append(max_dec);
  b_date.Append(2932897);
  b_time.Append(0);
  b_ts.Append(253402300799999999);
  b_tstz.Append(-62135596800000000);
  b_tsns.Append(-1);
  b_s.Append("a,\"b\"\r\n\tc \xc3\xa9 \xf0\x9f\x98\x80 \\ /");
  b_bin.Append("");
  b_fx.Append(std::string_view("\0\0\0", 3));
  b_u.Append(std::string_view("\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0", 16));
  b_st.Append();
  b_st.child(0)->AppendNull();
  static_cast<ListBuilder&>(*b_st.child(1)).Append();
  static_cast<ListBuilder&>(*b_st.child(1)).Close();
  b_pts.Append();
  b_pts.Close();
  b_ms.Append();
  b_ms.Close();
  b_mi.Append();
  b_mi.Close();

  // Row 3: NaN, a struct whose fields are all null.
  b_b.AppendNull();
  b_i.Append(-1);
  b_l.Append(0);
  b_f.Append(std::numeric_limits<float>::quiet_NaN());
  b_d.Append(std::numeric_limits<double>::denorm_min());
  b_dec.Append(1);
  b_date.Append(0);
  b_time.AppendNull();
  b_ts.Append(0);
  b_tstz.AppendNull();
  b_tsns.Append(0);
  b_s.Append("");
  b_bin.AppendNull();
  b_fx.AppendNull();
  b_u.AppendNull();
  b_st.Append();
  b_st.child(0)->AppendNull();
  b_st.child(1)->AppendNull();
  b_pts.AppendNull();
  b_ms.AppendNull();
  b_mi.AppendNull();

  std::vector<Array> columns;
  for (auto& builder : b) columns.push_back(builder->Finish());
  return RecordBatch(schema, kRows, std::move(columns));
}

std::string JsonLines(const RecordBatch& batch) {
  std::string out;
  for (int64_t i = 0; i < batch.num_rows(); ++i) AppendJsonLine(batch, i, &out);
  return out;
}

void ExpectSame(const RecordBatch& want, const std::vector<RecordBatch>& got) {
  ASSERT_EQ(got.size(), 1u);
  // JSON lines compare NaN equal to NaN and show the difference when there is one.
  EXPECT_EQ(JsonLines(got[0]), JsonLines(want));
  ASSERT_EQ(got[0].num_columns(), want.num_columns());
  for (size_t c = 0; c < want.num_columns(); ++c) {
    if (c == 3) continue;  // NaN != NaN by value; compared through the JSON text above
    EXPECT_TRUE(got[0].column(c).Equals(want.column(c))) << want.schema()->field(c).name;
  }
}

TEST(RoundTripTest, JsonLines) {
  RecordBatch batch = EveryTypeBatch();
  FLOE_ASSERT_OK(batch.Validate());
  io::MemoryFileIO fio;
  auto out = fio.CreateOutput("mem://rt.jsonl", true).value();
  JsonLinesWriter writer(out.get());
  FLOE_ASSERT_OK(writer.Write(batch));
  FLOE_ASSERT_OK(out->Close());
  std::string text(fio.ReadFile("mem://rt.jsonl").value().view());
  // The writer's lines are exactly `floe parquet cat`'s.
  EXPECT_EQ(text, JsonLines(batch));
  auto back = testing::ReadAll<JsonLinesReader>(text, batch.schema());
  FLOE_ASSERT_OK(back);
  ExpectSame(batch, *back);
}

TEST(RoundTripTest, Csv) {
  RecordBatch batch = EveryTypeBatch();
  for (char delimiter : {',', '\t', '|'}) {
    io::MemoryFileIO fio;
    auto out = fio.CreateOutput("mem://rt.csv", true).value();
    CsvWriteOptions options;
    options.delimiter = delimiter;
    auto writer = CsvWriter::Make(out.get(), batch.schema(), options);
    FLOE_ASSERT_OK(writer);
    FLOE_ASSERT_OK((*writer)->Write(batch));
    FLOE_ASSERT_OK(out->Close());
    std::string text(fio.ReadFile("mem://rt.csv").value().view());
    ReadOptions read;
    read.delimiter = delimiter;
    auto back = testing::ReadAll<CsvReader>(text, batch.schema(), read);
    FLOE_ASSERT_OK(back) << "\n" << text;
    ExpectSame(batch, *back);
  }
}

TEST(RoundTripTest, CsvSingleColumnNulls) {
  auto schema = std::make_shared<Schema>(std::vector<Field>{Field("s", String())});
  BinaryBuilder b(String());
  b.AppendNull();
  b.Append("");
  b.AppendNull();
  b.Append("x");
  std::vector<Array> cols;
  cols.push_back(b.Finish());
  RecordBatch batch(schema, 4, std::move(cols));
  io::MemoryFileIO fio;
  auto out = fio.CreateOutput("mem://one.csv", true).value();
  auto writer = CsvWriter::Make(out.get(), schema);
  FLOE_ASSERT_OK(writer);
  FLOE_ASSERT_OK((*writer)->Write(batch));
  FLOE_ASSERT_OK(out->Close());
  std::string text(fio.ReadFile("mem://one.csv").value().view());
  EXPECT_EQ(text, "s\n\n\"\"\n\nx\n");
  auto back = testing::ReadAll<CsvReader>(text, schema);
  FLOE_ASSERT_OK(back);
  ExpectSame(batch, *back);
}

}  // namespace
}  // namespace floe::format::text
