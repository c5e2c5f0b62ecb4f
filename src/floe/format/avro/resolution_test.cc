// Schema resolution (spec, "Schema Resolution") and Iceberg's resolution by field id.
#include <gtest/gtest.h>

#include "floe/format/avro/test_util.h"

namespace floe::format::avro {
namespace {

using testing::Decode;
using testing::Json;
using testing::Parse;
using testing::Unhex;

// Reads `hex` (`count` datums of `writer`) as `reader` and returns the JSON lines, or the
// error's code name.
std::string ReadAs(std::string_view writer, std::string_view reader, std::string_view hex,
                   int64_t count, std::vector<std::string> columns = {}) {
  SchemaPtr w = Parse(writer);
  SchemaPtr r = Parse(reader);
  if (!w || !r) return "bad schema";
  auto batch = Decode(*w, Unhex(hex), count, r.get(), columns);
  if (!batch.ok()) return std::string(StatusCodeName(batch.status().code()));
  if (!columns.empty()) {
    std::string out;
    for (int64_t i = 0; i < batch->num_rows(); ++i) {
      for (size_t c = 0; c < batch->num_columns(); ++c) {
        int idx = -1;
        for (size_t k = 0; k < r->root().fields().size(); ++k) {
          if (r->root().fields()[k].name() == columns[c]) idx = static_cast<int>(k);
        }
        JsonWriter jw(&out);
        Status s = WriteJsonValue(r->root().fields()[static_cast<size_t>(idx)].type(),
                                  batch->column(c), i, jw);
        if (!s.ok()) return s.ToString();
        out += c + 1 < batch->num_columns() ? " " : "\n";
      }
    }
    return out;
  }
  return Json(*r, *batch);
}

std::string Rec(std::string_view fields) {
  return R"({"type":"record","name":"R","fields":[)" + std::string(fields) + "]}";
}

TEST(AvroResolution, NumericPromotions) {
  // int 1, -2 promoted to long, float, double.
  EXPECT_EQ(ReadAs(R"("int")", R"("long")", "02 03", 2), "1\n-2\n");
  EXPECT_EQ(ReadAs(R"("int")", R"("float")", "02 03", 2), "1.0\n-2.0\n");
  EXPECT_EQ(ReadAs(R"("int")", R"("double")", "02 03", 2), "1.0\n-2.0\n");
  EXPECT_EQ(ReadAs(R"("long")", R"("float")", "80 01", 1), "64.0\n");
  EXPECT_EQ(ReadAs(R"("long")", R"("double")", "80 01", 1), "64.0\n");
  EXPECT_EQ(ReadAs(R"("float")", R"("double")", "00 00 c0 3f", 1), "1.5\n");
  // string <-> bytes.
  EXPECT_EQ(ReadAs(R"("string")", R"("bytes")", "02 61", 1), "\"a\"\n");
  EXPECT_EQ(ReadAs(R"("bytes")", R"("string")", "02 61", 1), "\"a\"\n");
  // No demotions, and no unrelated types.
  EXPECT_EQ(ReadAs(R"("long")", R"("int")", "02", 1), "InvalidArgument");
  EXPECT_EQ(ReadAs(R"("double")", R"("float")", "00 00 00 00 00 00 00 00", 1), "InvalidArgument");
  EXPECT_EQ(ReadAs(R"("int")", R"("string")", "02", 1), "InvalidArgument");
  EXPECT_EQ(ReadAs(R"({"type":"fixed","name":"F","size":2})",
                   R"({"type":"fixed","name":"F","size":3})", "00 00", 1),
            "InvalidArgument");
}

TEST(AvroResolution, RecordFieldsMatchByNameInAnyOrder) {
  std::string writer = Rec(R"({"name":"a","type":"int"},{"name":"b","type":"string"})");
  std::string reader = Rec(R"({"name":"b","type":"string"},{"name":"a","type":"long"})");
  EXPECT_EQ(ReadAs(writer, reader, "02 02 78", 1), "{\"b\":\"x\",\"a\":1}\n");
}

TEST(AvroResolution, WriterFieldsTheReaderLacksAreSkipped) {
  // The writer has fields of every shape around the one the reader wants, including
  // blocked arrays and maps with byte sizes and a recursive record.
  std::string writer = Rec(R"(
    {"name":"s","type":"string"},
    {"name":"arr","type":{"type":"array","items":"long"}},
    {"name":"blocked","type":{"type":"array","items":"long"}},
    {"name":"m","type":{"type":"map","values":{"type":"record","name":"X","fields":[{"name":"f","type":"float"},{"name":"b","type":"boolean"}]}}},
    {"name":"u","type":["null","double",{"type":"fixed","name":"F","size":2}]},
    {"name":"e","type":{"type":"enum","name":"E","symbols":["A","B"]}},
    {"name":"list","type":{"type":"record","name":"L","fields":[{"name":"v","type":"int"},{"name":"next","type":["null","L"]}]}},
    {"name":"want","type":"int"},
    {"name":"n","type":"null"})");
  std::string reader = Rec(R"({"name":"want","type":"int"})");
  std::string hex =
      "06 61 62 63"                  // s = "abc"
      " 04 02 04 00"                 // arr = [1, 2]
      " 03 04 02 04 00"              // blocked = [1, 2] as count -2, size 2
      " 02 02 6b 00 00 80 3f 01 00"  // m = {"k": {1.0, true}}
      " 04 aa bb"                    // u = fixed
      " 02"                          // e = B
      " 02 02 04 02 06 00"           // list = 1 -> 2 -> 3
      " 54";                         // want = 42
  EXPECT_EQ(ReadAs(writer, reader, hex, 1), "{\"want\":42}\n");
}

TEST(AvroResolution, MissingReaderFieldsTakeDefaultsOrNull) {
  std::string writer = Rec(R"({"name":"a","type":"int"})");
  std::string reader = Rec(R"(
    {"name":"a","type":"int"},
    {"name":"b","type":"string","default":"dflt"},
    {"name":"c","type":["null","long"],"default":null},
    {"name":"d","type":["long","null"],"default":7},
    {"name":"e","type":{"type":"record","name":"S","fields":[{"name":"x","type":"int"}]},"default":{"x":3}},
    {"name":"f","type":{"type":"array","items":"int"},"default":[1,2]},
    {"name":"g","type":["null","string"]},
    {"name":"h","type":{"type":"enum","name":"E","symbols":["P","Q"]},"default":"Q"},
    {"name":"i","type":"bytes","default":"\u00ff"})");
  EXPECT_EQ(ReadAs(writer, reader, "02 04", 2),
            "{\"a\":1,\"b\":\"dflt\",\"c\":null,\"d\":{\"long\":7},\"e\":{\"x\":3},\"f\":[1,2],"
            "\"g\":null,\"h\":\"Q\",\"i\":\"\xc3\xbf\"}\n"
            "{\"a\":2,\"b\":\"dflt\",\"c\":null,\"d\":{\"long\":7},\"e\":{\"x\":3},\"f\":[1,2],"
            "\"g\":null,\"h\":\"Q\",\"i\":\"\xc3\xbf\"}\n");
  // A required field without a default cannot be read.
  EXPECT_EQ(ReadAs(writer, Rec(R"({"name":"a","type":"int"},{"name":"z","type":"int"})"), "02", 1),
            "InvalidArgument");
}

TEST(AvroResolution, ReaderAliasesMatchOldWriterNames) {
  std::string writer = Rec(R"({"name":"old","type":"int"})");
  std::string reader = Rec(R"({"name":"new","type":"int","aliases":["old"]})");
  EXPECT_EQ(ReadAs(writer, reader, "0a", 1), "{\"new\":5}\n");
}

TEST(AvroResolution, IcebergFieldIdsWinOverNames) {
  // The column with id 1 was renamed a -> b; id 2 was dropped and a new column named "a"
  // (id 3) was added: it must not pick up the old "a" values.
  std::string writer =
      Rec(R"({"name":"a","type":"int","field-id":1},{"name":"x","type":"string","field-id":2})");
  std::string reader = Rec(R"({"name":"b","type":"long","field-id":1},
                              {"name":"a","type":["null","int"],"default":null,"field-id":3})");
  EXPECT_EQ(ReadAs(writer, reader, "0e 02 7a", 1), "{\"b\":7,\"a\":null}\n");
}

TEST(AvroResolution, EnumSymbolsMapByNameWithDefault) {
  std::string writer = R"({"type":"enum","name":"E","symbols":["A","B","C"]})";
  EXPECT_EQ(ReadAs(writer, R"({"type":"enum","name":"E","symbols":["C","A"],"default":"A"})",
                   "00 02 04", 3),
            "\"A\"\n\"A\"\n\"C\"\n");
  // Without a default, a symbol the reader lacks fails when it is read, not before.
  std::string no_default = R"({"type":"enum","name":"E","symbols":["C","A"]})";
  EXPECT_EQ(ReadAs(writer, no_default, "00 04", 2), "\"A\"\n\"C\"\n");
  EXPECT_EQ(ReadAs(writer, no_default, "02", 1), "InvalidArgument");
}

TEST(AvroResolution, Unions) {
  // Writer union against a reader union with promotion.
  EXPECT_EQ(ReadAs(R"(["null","int"])", R"(["null","long"])", "00 02 06", 2),
            "null\n{\"long\":3}\n");
  // Writer non-union into a reader union; writer union into a reader non-union.
  EXPECT_EQ(ReadAs(R"("int")", R"(["null","long"])", "06", 1), "{\"long\":3}\n");
  EXPECT_EQ(ReadAs(R"(["int","string"])", R"("string")", "02 02 61", 1), "\"a\"\n");
  // A writer branch the reader cannot take fails only when a datum takes it.
  EXPECT_EQ(ReadAs(R"(["int","string"])", R"("string")", "00 02", 1), "InvalidArgument");
  EXPECT_EQ(ReadAs(R"(["null","int"])", R"("int")", "00", 1), "InvalidArgument");
  // Dense reader unions: the branch of the same type wins over a promotable one.
  EXPECT_EQ(ReadAs(R"("int")", R"(["null","long","int"])", "06", 1), "{\"int\":3}\n");
  EXPECT_EQ(ReadAs(R"(["null","int"])", R"(["long","string","null"])", "00 02 06", 2),
            "null\n{\"long\":3}\n");
  // Named branches are chosen by name.
  std::string a = R"({"type":"record","name":"A","fields":[{"name":"x","type":"int"}]})";
  std::string b = R"({"type":"record","name":"B","fields":[{"name":"y","type":"string"}]})";
  EXPECT_EQ(ReadAs(b, "[" + a + "," + b + "]", "02 62", 1), "{\"B\":{\"y\":\"b\"}}\n");
  // Nothing matches: an error when the plan is made.
  EXPECT_EQ(ReadAs(R"(["int","long"])", R"("string")", "", 0), "InvalidArgument");
}

TEST(AvroResolution, ProjectionSelectsAndOrdersColumns) {
  std::string schema = Rec(R"({"name":"a","type":"int"},{"name":"b","type":"string"},
                              {"name":"c","type":{"type":"array","items":"long"}})");
  EXPECT_EQ(ReadAs(schema, schema, "02 02 78 04 02 04 00", 1, {"c", "a"}), "[1,2] 1\n");
  EXPECT_EQ(ReadAs(schema, schema, "02 02 78 00", 1, {"nope"}), "InvalidArgument");
}

TEST(AvroResolution, ProjectionLeavesOutFieldsWithoutAColumnarForm) {
  // A recursive field has no columnar form, but a projection skips it: 1 -> 2 -> 3.
  std::string list = R"({"type":"record","name":"L","fields":[{"name":"v","type":"long"},
                         {"name":"next","type":["null","L"]}]})";
  EXPECT_EQ(ReadAs(list, list, "02 02 04 02 06 00", 1, {"v"}), "1\n");
  EXPECT_EQ(ReadAs(list, list, "02 00", 1), "Unimplemented");
}

TEST(AvroResolution, IcebergMapArraysResolveById) {
  std::string writer = Rec(
      R"({"name":"m","type":{"type":"array","logicalType":"map","items":{"type":"record","name":"k1_v2",
         "fields":[{"name":"key","type":"int","field-id":1},{"name":"value","type":"int","field-id":2}]}},"field-id":3})");
  std::string reader = Rec(
      R"({"name":"m","type":{"type":"array","logicalType":"map","items":{"type":"record","name":"k1_v2",
         "fields":[{"name":"key","type":"int","field-id":1},{"name":"value","type":"long","field-id":2}]}},"field-id":3})");
  EXPECT_EQ(ReadAs(writer, reader, "02 02 04 00", 1), "{\"m\":[{\"key\":1,\"value\":2}]}\n");
}

}  // namespace
}  // namespace floe::format::avro
