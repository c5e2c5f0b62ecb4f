// Binary encoding and decoding of every Avro type, with the spec's examples ("Binary
// Encoding"), the JSON encoding of decoded values ("JSON Encoding") and malformed input.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "floe/base/testing.h"
#include "floe/columnar/builder.h"
#include "floe/format/avro/columnar_schema.h"
#include "floe/format/avro/test_util.h"

namespace floe::format::avro {
namespace {

using testing::Decode;
using testing::Encode;
using testing::Hex;
using testing::Json;
using testing::Parse;
using testing::Unhex;
namespace col = floe::columnar;

// Decodes `hex` as `count` datums, checks the JSON encoding of the values and that
// encoding them again gives the same bytes.
void ExpectRoundTrip(std::string_view schema_json, std::string_view hex, int64_t count,
                     std::string_view expected_json) {
  SchemaPtr schema = Parse(schema_json);
  ASSERT_NE(schema, nullptr);
  auto batch = Decode(*schema, Unhex(hex), count);
  FLOE_ASSERT_OK(batch) << " for " << schema_json;
  FLOE_ASSERT_OK(batch->Validate());
  EXPECT_EQ(Json(*schema, *batch), expected_json) << schema_json;
  auto bytes = Encode(*schema, *batch);
  FLOE_ASSERT_OK(bytes);
  EXPECT_EQ(Hex(*bytes), Hex(Unhex(hex))) << schema_json;
}

TEST(AvroBinary, ZigZagLongsFromTheSpec) {
  // Spec table: 0 -> 00, -1 -> 01, 1 -> 02, -2 -> 03, 2 -> 04, -64 -> 7f, 64 -> 80 01.
  ExpectRoundTrip(R"("long")", "00 01 02 03 04 7f 80 01", 7, "0\n-1\n1\n-2\n2\n-64\n64\n");
  SchemaPtr s = Parse(R"("long")");
  auto batch = Decode(*s, Unhex("ff ff ff ff ff ff ff ff ff 01 fe ff ff ff ff ff ff ff ff 01"), 2);
  FLOE_ASSERT_OK(batch);
  EXPECT_EQ(batch->column(0).Value<int64_t>(0), std::numeric_limits<int64_t>::min());
  EXPECT_EQ(batch->column(0).Value<int64_t>(1), std::numeric_limits<int64_t>::max());
}

TEST(AvroBinary, IntsUseTheSameEncoding) {
  ExpectRoundTrip(R"("int")", "00 01 02 7f 80 01 fe ff ff ff 0f ff ff ff ff 0f", 7,
                  "0\n-1\n1\n-64\n64\n2147483647\n-2147483648\n");
}

TEST(AvroBinary, Primitives) {
  ExpectRoundTrip(R"("null")", "", 3, "null\nnull\nnull\n");
  ExpectRoundTrip(R"("boolean")", "00 01", 2, "false\ntrue\n");
  // IEEE 754 little-endian: 1.5f = 0x3fc00000, 1.5 = 0x3ff8000000000000.
  ExpectRoundTrip(R"("float")", "00 00 c0 3f", 1, "1.5\n");
  ExpectRoundTrip(R"("double")", "00 00 00 00 00 00 f8 3f", 1, "1.5\n");
  // Spec: "foo" is 06 66 6f 6f.
  ExpectRoundTrip(R"("string")", "06 66 6f 6f 00", 2, "\"foo\"\n\"\"\n");
  // Bytes and fixed are JSON strings whose code points are the byte values.
  ExpectRoundTrip(R"("bytes")", "04 00 ff", 1, "\"\\u0000\xc3\xbf\"\n");
  ExpectRoundTrip(R"({"type":"fixed","name":"F","size":3})", "01 41 e9", 1,
                  "\"\\u0001A\xc3\xa9\"\n");
}

TEST(AvroBinary, FloatsAsFastavroWritesThem) {
  // fastavro widens floats to Python floats and writes NaN and infinities as bare tokens.
  ExpectRoundTrip(R"("float")", "cd cc 8c 3f 00 00 c0 7f 00 00 80 7f 00 00 80 ff 00 00 80 3f", 5,
                  "1.100000023841858\nNaN\nInfinity\n-Infinity\n1.0\n");
}

TEST(AvroBinary, RecordFromTheSpec) {
  // Spec: {"a": 27, "b": "foo"} is 36 06 66 6f 6f.
  ExpectRoundTrip(
      R"({"type":"record","name":"test","fields":[{"name":"a","type":"long"},{"name":"b","type":"string"}]})",
      "36 06 66 6f 6f", 1, "{\"a\":27,\"b\":\"foo\"}\n");
}

TEST(AvroBinary, EnumFromTheSpec) {
  ExpectRoundTrip(R"({"type":"enum","name":"Foo","symbols":["A","B","C","D"]})", "00 06 02", 3,
                  "\"A\"\n\"D\"\n\"B\"\n");
}

TEST(AvroBinary, ArrayFromTheSpec) {
  // Spec: [3, 27] is 04 06 36 00.
  ExpectRoundTrip(R"({"type":"array","items":"long"})", "04 06 36 00 00", 2, "[3,27]\n[]\n");
  // A negative count is followed by the block's byte size.
  SchemaPtr s = Parse(R"({"type":"array","items":"long"})");
  auto batch = Decode(*s, Unhex("03 04 06 36 02 02 00"), 1);
  FLOE_ASSERT_OK(batch);
  EXPECT_EQ(Json(*s, *batch), "[3,27,1]\n");
}

TEST(AvroBinary, Maps) {
  ExpectRoundTrip(R"({"type":"map","values":"long"})", "04 02 61 02 02 62 04 00 00", 2,
                  "{\"a\":1,\"b\":2}\n{}\n");
}

TEST(AvroBinary, UnionFromTheSpec) {
  // Spec: null is 00, "a" is 02 02 61; JSON: null and {"string": "a"}.
  ExpectRoundTrip(R"(["null","string"])", "00 02 02 61", 2, "null\n{\"string\":\"a\"}\n");
  ExpectRoundTrip(R"(["string","null"])", "02 00 02 61", 2, "null\n{\"string\":\"a\"}\n");
}

TEST(AvroBinary, DenseUnions) {
  const char* schema =
      R"(["null","int","string",{"type":"record","name":"ns.R","fields":[{"name":"x","type":"int"}]},{"type":"array","items":"int"}])";
  ExpectRoundTrip(schema, "00 02 0a 04 02 61 06 02 08 02 02 00", 5,
                  "null\n{\"int\":5}\n{\"string\":\"a\"}\n{\"ns.R\":{\"x\":1}}\n{\"array\":[1]}\n");
  SchemaPtr s = Parse(schema);
  auto type = ToColumnarType(s->root());
  FLOE_ASSERT_OK(type);
  EXPECT_EQ((*type)->id(), col::TypeId::kUnion);
  EXPECT_EQ((*type)->children().size(), 5u);
  EXPECT_EQ((*type)->child(0).type->id(), col::TypeId::kNull);
  EXPECT_EQ((*type)->child(3).name, "ns.R");
}

TEST(AvroBinary, NestedRecordsArraysAndMaps) {
  const char* schema = R"({"type":"record","name":"Outer","fields":[
    {"name":"id","type":"long"},
    {"name":"tags","type":{"type":"array","items":{"type":"record","name":"Tag","fields":[
       {"name":"k","type":"string"},{"name":"v","type":["null","double"]}]}}},
    {"name":"attrs","type":{"type":"map","values":{"type":"array","items":"int"}}},
    {"name":"inner","type":["null","Tag"]}]})";
  // id=1, tags=[{k:"a", v:null}, {k:"b", v:0.5}], attrs={"x":[1,2]}, inner={k:"c",v:null}
  // then id=2, tags=[], attrs={}, inner=null.
  ExpectRoundTrip(
      schema,
      "02 04 02 61 00 02 62 02 00 00 00 00 00 00 e0 3f 00"
      " 02 02 78 04 02 04 00 00"
      " 02 02 63 00"
      " 04 00 00 00",
      2,
      "{\"id\":1,\"tags\":[{\"k\":\"a\",\"v\":null},{\"k\":\"b\",\"v\":{\"double\":0.5}}],"
      "\"attrs\":{\"x\":[1,2]},\"inner\":{\"Tag\":{\"k\":\"c\",\"v\":null}}}\n"
      "{\"id\":2,\"tags\":[],\"attrs\":{},\"inner\":null}\n");
}

TEST(AvroBinary, DecimalsUseTwosComplementBigEndian) {
  // The shortest forms (Java's BigInteger.toByteArray): 0 -> 00, 1 -> 01, -1 -> ff,
  // 127 -> 7f, 128 -> 00 80, -128 -> 80, -129 -> ff 7f.
  SchemaPtr s = Parse(R"({"type":"bytes","logicalType":"decimal","precision":10,"scale":2})");
  std::string hex = "02 00 02 01 02 ff 02 7f 04 00 80 02 80 04 ff 7f";
  auto batch = Decode(*s, Unhex(hex), 7);
  FLOE_ASSERT_OK(batch);
  const col::Array& a = batch->column(0);
  ASSERT_EQ(a.type()->id(), col::TypeId::kDecimal128);
  EXPECT_EQ(a.type()->precision(), 10);
  EXPECT_EQ(a.type()->scale(), 2);
  const __int128 expected[] = {0, 1, -1, 127, 128, -128, -129};
  for (int i = 0; i < 7; ++i) EXPECT_TRUE(a.Value<__int128>(i) == expected[i]) << i;
  auto bytes = Encode(*s, *batch);
  FLOE_ASSERT_OK(bytes);
  EXPECT_EQ(Hex(*bytes), Hex(Unhex(hex)));
  // Longer sign-extended forms read the same; an empty form is zero.
  batch = Decode(*s, Unhex("06 ff ff 80 00 08 00 00 00 01"), 3);
  FLOE_ASSERT_OK(batch);
  EXPECT_TRUE(batch->column(0).Value<__int128>(0) == -128);
  EXPECT_TRUE(batch->column(0).Value<__int128>(1) == 0);
  EXPECT_TRUE(batch->column(0).Value<__int128>(2) == 1);

  // On a fixed the value is sign-extended to the size.
  ExpectRoundTrip(R"({"type":"fixed","name":"d","size":4,"logicalType":"decimal","precision":9})",
                  "ff ff ff ff 00 00 00 01 ff ff ff 80", 3,
                  "\"\xc3\xbf\xc3\xbf\xc3\xbf\xc3\xbf\"\n\"\\u0000\\u0000\\u0000\\u0001\"\n"
                  "\"\xc3\xbf\xc3\xbf\xc3\xbf\xc2\x80\"\n");
  // Beyond 128 bits is corrupt.
  auto wide = Decode(*s, Unhex("22 01 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00"), 1);
  EXPECT_EQ(wide.status().code(), StatusCode::kCorrupt);
  // Precision above 38 has no columnar form.
  SchemaPtr p40 = Parse(R"({"type":"bytes","logicalType":"decimal","precision":40})");
  EXPECT_EQ(ToColumnarType(p40->root()).status().code(), StatusCode::kUnimplemented);
}

TEST(AvroBinary, LogicalTypesMapToColumnarTypes) {
  SchemaPtr s = Parse(R"({"type":"record","name":"L","fields":[
    {"name":"date","type":{"type":"int","logicalType":"date"}},
    {"name":"tmil","type":{"type":"int","logicalType":"time-millis"}},
    {"name":"tmic","type":{"type":"long","logicalType":"time-micros"}},
    {"name":"tsms","type":{"type":"long","logicalType":"timestamp-millis"}},
    {"name":"tsus","type":{"type":"long","logicalType":"timestamp-micros"}},
    {"name":"tsns","type":{"type":"long","logicalType":"timestamp-nanos"}},
    {"name":"lms","type":{"type":"long","logicalType":"local-timestamp-millis"}},
    {"name":"lus","type":{"type":"long","logicalType":"local-timestamp-micros"}},
    {"name":"lns","type":{"type":"long","logicalType":"local-timestamp-nanos"}},
    {"name":"uuid_s","type":{"type":"string","logicalType":"uuid"}},
    {"name":"uuid_f","type":{"type":"fixed","name":"U","size":16,"logicalType":"uuid"}},
    {"name":"dur","type":{"type":"fixed","name":"D","size":12,"logicalType":"duration"}},
    {"name":"dec","type":["null",{"type":"bytes","logicalType":"decimal","precision":38,"scale":10}]},
    {"name":"e","type":{"type":"enum","name":"E","symbols":["X"]}}]})");
  auto cs = ToColumnarSchema(*s);
  FLOE_ASSERT_OK(cs);
  const auto& f = (*cs)->fields();
  EXPECT_TRUE(f[0].type->Equals(*col::Date32()));
  EXPECT_TRUE(f[1].type->Equals(*col::Time(col::TimeUnit::kMilli)));
  EXPECT_TRUE(f[2].type->Equals(*col::Time(col::TimeUnit::kMicro)));
  EXPECT_TRUE(f[3].type->Equals(*col::Timestamp(col::TimeUnit::kMilli, true)));
  EXPECT_TRUE(f[4].type->Equals(*col::Timestamp(col::TimeUnit::kMicro, true)));
  EXPECT_TRUE(f[5].type->Equals(*col::Timestamp(col::TimeUnit::kNano, true)));
  EXPECT_TRUE(f[6].type->Equals(*col::Timestamp(col::TimeUnit::kMilli, false)));
  EXPECT_TRUE(f[7].type->Equals(*col::Timestamp(col::TimeUnit::kMicro, false)));
  EXPECT_TRUE(f[8].type->Equals(*col::Timestamp(col::TimeUnit::kNano, false)));
  EXPECT_TRUE(f[9].type->Equals(*col::String()));
  EXPECT_TRUE(f[10].type->Equals(*col::Uuid()));
  EXPECT_TRUE(f[11].type->Equals(*col::FixedBinary(12)));
  EXPECT_TRUE(f[12].type->Equals(*col::Decimal128(38, 10)));
  EXPECT_TRUE(f[12].nullable);
  EXPECT_FALSE(f[0].nullable);
  EXPECT_TRUE(f[13].type->Equals(*col::String()));

  std::string uuid = "00112233445566778899aabbccddeeff";
  std::string hex = "c6 01 02 04 06 08 0a 0c 0e 10 48 " +
                    std::string(
                        "34 36 62 36 31 30 33 62 2d 33 38 64 66 2d 34 37 37 30 2d 38 32 35 39 2d "
                        "33 63 37 35 63 36 31 61 31 34 65 33 ") +
                    uuid + " 01 00 00 00 02 00 00 00 03 00 00 00 02 04 03 e8 00";
  // date 99, time-millis 1, time-micros 2, ..., the uuid string, the uuid fixed, duration
  // (1 month, 2 days, 3 ms), decimal 1000 (03 e8), enum X.
  auto batch = Decode(*s, Unhex(hex), 1);
  FLOE_ASSERT_OK(batch);
  EXPECT_EQ(batch->column(0).Value<int32_t>(0), 99);
  EXPECT_EQ(batch->column(8).Value<int64_t>(0), 8);
  EXPECT_EQ(batch->column(9).BinaryValue(0), "46b6103b-38df-4770-8259-3c75c61a14e3");
  EXPECT_EQ(Hex(batch->column(10).FixedValue(0)), Hex(Unhex(uuid)));
  EXPECT_TRUE(batch->column(12).Value<__int128>(0) == 1000);
  EXPECT_EQ(batch->column(13).BinaryValue(0), "X");
  auto bytes = Encode(*s, *batch);
  FLOE_ASSERT_OK(bytes);
  EXPECT_EQ(Hex(*bytes), Hex(Unhex(hex)));
}

TEST(AvroBinary, IcebergMapArraysBecomeMaps) {
  SchemaPtr s = Parse(R"({"type":"record","name":"r2","fields":[
    {"name":"column_sizes","type":["null",{"type":"array","items":{"type":"record","name":"k117_v118",
      "fields":[{"name":"key","type":"int","field-id":117},{"name":"value","type":"long","field-id":118}]},
      "logicalType":"map"}],"default":null,"field-id":108},
    {"name":"ids","type":{"type":"array","items":"int","element-id":136},"field-id":135},
    {"name":"props","type":{"type":"map","values":["null","string"],"key-id":9,"value-id":10},"field-id":8}]})");
  auto cs = ToColumnarSchema(*s);
  FLOE_ASSERT_OK(cs);
  const col::Field& sizes = (*cs)->field(0);
  EXPECT_EQ(sizes.field_id, 108);
  ASSERT_EQ(sizes.type->id(), col::TypeId::kMap);
  const col::DataType& entries = *sizes.type->child(0).type;
  EXPECT_EQ(entries.child(0).field_id, 117);
  EXPECT_EQ(entries.child(0).type->id(), col::TypeId::kInt32);
  EXPECT_EQ(entries.child(1).field_id, 118);
  EXPECT_EQ((*cs)->field(1).type->child(0).field_id, 136);
  const col::DataType& props = *(*cs)->field(2).type->child(0).type;
  EXPECT_EQ(props.child(0).field_id, 9);
  EXPECT_EQ(props.child(1).field_id, 10);
  EXPECT_TRUE(props.child(1).nullable);

  // column_sizes = {1: 100, 2: 200}, ids = [7], props = {"a": null}; then all empty/null.
  std::string hex = "02 04 02 c8 01 04 90 03 00 02 0e 00 02 02 61 00 00   00 00 00";
  ExpectRoundTrip(
      s->ToJson(), hex, 2,
      "{\"column_sizes\":{\"array\":[{\"key\":1,\"value\":100},{\"key\":2,\"value\":200}]},"
      "\"ids\":[7],\"props\":{\"a\":null}}\n"
      "{\"column_sizes\":null,\"ids\":[],\"props\":{}}\n");
}

TEST(AvroBinary, TopLevelNonRecordsAreOneColumnNamedValue) {
  SchemaPtr s = Parse(R"(["null","long"])");
  auto batch = Decode(*s, Unhex("00 02 02"), 2);
  FLOE_ASSERT_OK(batch);
  EXPECT_EQ(batch->schema()->field(0).name, "value");
  EXPECT_TRUE(batch->schema()->field(0).nullable);
  EXPECT_TRUE(batch->column(0).IsNull(0));
  EXPECT_EQ(batch->column(0).Value<int64_t>(1), 1);
}

TEST(AvroBinary, MalformedInputIsCorruptNotACrash) {
  struct Case {
    const char* schema;
    const char* hex;
  } cases[] = {
      {R"("string")", "06 66"},                         // truncated
      {R"("string")", "01"},                            // negative length
      {R"("bytes")", "fe ff ff ff ff ff ff ff ff 01"},  // length far beyond the data
      {R"("boolean")", "02"},
      {R"("long")", "ff ff ff ff ff ff ff ff ff ff 01"},  // varint longer than 10 bytes
      {R"("int")", "ff ff ff ff 1f"},                     // int beyond 32 bits
      {R"("float")", "00 00"},
      {R"(["null","string"])", "04"},  // branch 2 of 2
      {R"(["null","string"])", "01"},  // branch -1
      {R"({"type":"enum","name":"E","symbols":["A"]})", "02"},
      {R"({"type":"fixed","name":"F","size":4})", "01 02 03"},
      {R"({"type":"array","items":"long"})", "fe ff ff ff ff ff ff ff 7f"},  // huge count
      {R"({"type":"array","items":"long"})", "04 02"},                       // truncated
      {R"({"type":"array","items":"long"})", "01 80 80 80 80 80 80 80 80 80 01"},
      {R"({"type":"map","values":"int"})", "fe ff ff ff 0f 02 61"},
      {R"({"type":"array","items":"null"})", "fe ff ff ff ff ff ff ff 7f 00"},  // zero-size items
      {R"({"type":"array","items":{"type":"record","name":"E","fields":[]}})", "fe ff ff ff 7f 00"},
  };
  for (const auto& c : cases) {
    SchemaPtr s = Parse(c.schema);
    ASSERT_NE(s, nullptr);
    auto batch = Decode(*s, Unhex(c.hex), 1);
    EXPECT_EQ(batch.status().code(), StatusCode::kCorrupt)
        << c.schema << " " << c.hex << " " << batch.status().ToString();
  }
}

TEST(AvroBinary, EncoderRejectsValuesTheSchemaCannotHold) {
  SchemaPtr s = Parse(R"({"type":"record","name":"R","fields":[
    {"name":"a","type":"long"},
    {"name":"e","type":{"type":"enum","name":"E","symbols":["A","B"]}},
    {"name":"d","type":{"type":"fixed","name":"D","size":1,"logicalType":"decimal","precision":2}}]})");
  auto cs = ToColumnarSchema(*s);
  FLOE_ASSERT_OK(cs);
  auto make_batch = [&](bool null_a, std::string_view symbol, __int128 d) {
    col::FixedWidthBuilder<int64_t> a(col::Int64());
    col::BinaryBuilder e(col::String());
    col::FixedWidthBuilder<__int128> dec(col::Decimal128(2, 0));
    if (null_a) {
      a.AppendNull();
    } else {
      a.Append(5);
    }
    e.Append(symbol);
    dec.Append(d);
    std::vector<col::Array> columns;
    columns.push_back(a.Finish());
    columns.push_back(e.Finish());
    columns.push_back(dec.Finish());
    return col::RecordBatch(*cs, 1, std::move(columns));
  };
  auto ok = Encode(*s, make_batch(false, "B", -1));
  FLOE_ASSERT_OK(ok);
  EXPECT_EQ(Hex(*ok), "0a 02 ff");
  EXPECT_EQ(Encode(*s, make_batch(true, "B", 1)).status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(Encode(*s, make_batch(false, "C", 1)).status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(Encode(*s, make_batch(false, "A", 300)).status().code(), StatusCode::kInvalidArgument);
  // A column that is missing or of the wrong type fails at Make.
  col::Schema wrong({col::Field("a", col::String(), false)});
  EXPECT_EQ(DatumWriter::Make(*s, wrong).status().code(), StatusCode::kInvalidArgument);
}

TEST(AvroDefaults, EncodeTheSpecsDefaultValueForms) {
  // Spec, "Records": the JSON form of defaults per type.
  struct Case {
    const char* schema;
    const char* json;
    const char* hex;
  } cases[] = {
      {R"("null")", "null", ""},
      {R"("boolean")", "true", "01"},
      {R"("int")", "1", "02"},
      {R"("long")", "-1", "01"},
      {R"("float")", "1.5", "00 00 c0 3f"},
      {R"("double")", "2", "00 00 00 00 00 00 00 40"},
      {R"("bytes")", R"("\u00FF")", "02 ff"},
      {R"("string")", R"("foo")", "06 66 6f 6f"},
      {R"({"type":"record","name":"R","fields":[{"name":"a","type":"int"},{"name":"b","type":"int","default":5}]})",
       R"({"a": 1})", "02 0a"},
      {R"({"type":"enum","name":"E","symbols":["A","FOO"]})", R"("FOO")", "02"},
      {R"({"type":"array","items":"int"})", "[1]", "02 02 00"},
      {R"({"type":"array","items":"int"})", "[]", "00"},
      {R"({"type":"map","values":"int"})", R"({"a": 1})", "02 02 61 02 00"},
      {R"({"type":"fixed","name":"F","size":2})", R"("\u00ff\u0001")", "ff 01"},
      {R"(["null","int"])", "null", "00"},
      {R"(["int","null"])", "1", "00 02"},
      {R"(["null","int"])", "3", "02 06"},  // Avro 1.12: any branch the value fits
  };
  for (const auto& c : cases) {
    SchemaPtr s = Parse(c.schema);
    Buffer out;
    Status st = EncodeDefaultValue(s->root(), c.json, &out);
    FLOE_ASSERT_OK(st) << c.schema << " " << c.json;
    EXPECT_EQ(Hex(out.view()), Hex(Unhex(c.hex))) << c.schema << " " << c.json;
  }
  const char* bad[][2] = {
      {R"("int")", "2147483648"},
      {R"("int")", "1.5"},
      {R"("bytes")", R"("\u0100")"},
      {R"({"type":"fixed","name":"F","size":2})", R"("a")"},
      {R"({"type":"enum","name":"E","symbols":["A"]})", R"("B")"},
      {R"({"type":"record","name":"R","fields":[{"name":"a","type":"int"}]})", "{}"},
      {R"(["null","int"])", R"("x")"},
  };
  for (const auto& b : bad) {
    SchemaPtr s = Parse(b[0]);
    Buffer out;
    EXPECT_EQ(EncodeDefaultValue(s->root(), b[1], &out).code(), StatusCode::kInvalidArgument)
        << b[0] << " " << b[1];
  }
}

}  // namespace
}  // namespace floe::format::avro
