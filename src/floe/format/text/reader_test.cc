// JSON Lines and CSV readers: value forms, nulls, errors with line numbers and field paths,
// RFC 4180 details, limits on untrusted input.
#include "floe/format/text/reader.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "floe/base/testing.h"
#include "floe/columnar/json.h"
#include "floe/format/text/test_util.h"

namespace floe::format::text {
namespace {

using columnar::Field;
using ::testing::HasSubstr;
using testing::ReadAll;

columnar::SchemaPtr MakeSchema(std::vector<Field> fields) {
  return std::make_shared<columnar::Schema>(std::move(fields));
}

// The rows of `batches` as JSON lines (the form `floe parquet cat` prints).
std::string Lines(const std::vector<columnar::RecordBatch>& batches) {
  std::string out;
  for (const auto& b : batches) {
    for (int64_t i = 0; i < b.num_rows(); ++i) columnar::AppendJsonLine(b, i, &out);
  }
  return out;
}

columnar::SchemaPtr LocSchema() {
  auto loc =
      columnar::Struct({Field("lat", columnar::Float64()), Field("lon", columnar::Float64())});
  return MakeSchema({Field("id", columnar::Int64(), false), Field("name", columnar::String()),
                     Field("loc", loc),
                     Field("tags", columnar::List(Field("element", columnar::String())))});
}

TEST(JsonLinesReaderTest, ObjectsFieldsInAnyOrderAndNulls) {
  std::string in =
      "{\"id\": 1, \"name\": \"a\\u00e9\\n\", \"loc\": {\"lat\": 1.5, \"lon\": -2}, \"tags\": "
      "[\"x\", null]}\n"
      "{\"tags\": [], \"loc\": null, \"id\": 2}\r\n"
      "\n"
      "  {\"id\": 3, \"loc\": {\"lon\": 1e2}, \"name\": null}";
  auto batches = ReadAll<JsonLinesReader>(in, LocSchema());
  FLOE_ASSERT_OK(batches);
  EXPECT_EQ(Lines(*batches),
            "{\"id\":1,\"name\":\"a\xc3\xa9\\n\",\"loc\":{\"lat\":1.5,\"lon\":-2},\"tags\":[\"x\","
            "null]}\n"
            "{\"id\":2,\"name\":null,\"loc\":null,\"tags\":[]}\n"
            "{\"id\":3,\"name\":null,\"loc\":{\"lat\":null,\"lon\":100},\"tags\":null}\n");
}

TEST(JsonLinesReaderTest, ErrorsNameLineAndField) {
  auto expect_error = [](const std::string& in, const std::string& message,
                         ReadOptions options = {}) {
    auto r = ReadAll<JsonLinesReader>(in, LocSchema(), options);
    ASSERT_THAT(r, IsError(StatusCode::kInvalidArgument)) << in;
    EXPECT_THAT(std::string(r.status().message()), HasSubstr(message)) << in;
  };
  std::string ok = "{\"id\": 1}\n";
  expect_error(ok + ok + "{\"id\": 1, \"loc\": {\"lat\": \"abc\"}}\n",
               "line 3, field \"loc.lat\": expected a number, found \"abc\"");
  expect_error(ok + "{\"name\": \"x\"}\n",
               "line 2, field \"id\": expected a value (the field is required), found none");
  expect_error("{\"id\": null}",
               "line 1, field \"id\": expected a value (the field is required), found null");
  expect_error("{\"id\": 1.5}", "line 1, field \"id\": expected an integer, found \"1.5\"");
  expect_error("{\"id\": \"1\"}", "line 1, field \"id\": expected an integer, found \"1\"");
  expect_error("{\"id\": 99999999999999999999}", "an integer in the long range");
  expect_error("{\"id\": 1, \"tags\": [\"a\", 2]}",
               "line 1, field \"tags[1]\": expected a string, found 2");
  expect_error("{\"id\": 1, \"extra\": 2}",
               "line 1, field \"extra\": expected a field of the schema");
  expect_error("{\"id\": 1, \"id\": 2}", "field \"id\": expected one value");
  expect_error("{\"id\": 1", "line 1: malformed JSON");
  expect_error("[1]", "line 1: malformed JSON: expected a JSON object");
  expect_error("{\"id\": 1} x", "line 1: malformed JSON");
  expect_error("{\"id\": 1, \"name\": \"\\x\"}", "field \"name\": expected a JSON string");
  expect_error("{\"id\": 1, \"name\": \"\xff\"}",
               "field \"name\": expected valid UTF-8, found \"\\xff\"");
  expect_error("{\"id\": 1, \"name\": \"\\ud800\"}", "expected a JSON string");
  expect_error("{\"id\": 1, \"ID\": 1}", "field \"ID\"");
}

TEST(JsonLinesReaderTest, Options) {
  ReadOptions options;
  options.case_insensitive = true;
  options.ignore_unknown_fields = true;
  auto r = ReadAll<JsonLinesReader>(
      "{\"ID\": 7, \"x\": {\"deep\": [1, {\"a\": null}, \"s\"]}, \"Name\": \"n\"}", LocSchema(),
      options);
  FLOE_ASSERT_OK(r);
  EXPECT_EQ(Lines(*r), "{\"id\":7,\"name\":\"n\",\"loc\":null,\"tags\":null}\n");
}

TEST(JsonLinesReaderTest, BatchesAcrossChunks) {
  std::string in;
  for (int i = 0; i < 5000; ++i)
    in += "{\"id\": " + std::to_string(i) + ", \"name\": \"" +
          std::string(static_cast<size_t>(i % 50), 'x') + "\"}\n";
  ReadOptions options;
  options.batch_rows = 1000;
  options.chunk_bytes = 4096;
  auto r = ReadAll<JsonLinesReader>(in, LocSchema(), options);
  FLOE_ASSERT_OK(r);
  ASSERT_EQ(r->size(), 5u);
  int64_t next = 0;
  for (const auto& b : *r) {
    ASSERT_EQ(b.num_rows(), 1000);
    for (int64_t i = 0; i < b.num_rows(); ++i) {
      EXPECT_EQ(b.column(0).Value<int64_t>(i), next);
      EXPECT_EQ(b.column(1).BinaryValue(i).size(), static_cast<size_t>(next % 50));
      ++next;
    }
  }
}

TEST(JsonLinesReaderTest, UntrustedInputLimits) {
  ReadOptions options;
  options.max_record_bytes = 10000;
  options.chunk_bytes = 4096;
  auto r = ReadAll<JsonLinesReader>(
      "{\"id\": 1}\n{\"id\": 1, \"name\": \"" + std::string(20000, 'a') + "\"}\n", LocSchema(),
      options);
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(std::string(r.status().message()), HasSubstr("line 2: longer than the limit"));
  // Deep nesting in an ignored field stops at the depth limit, without recursion trouble.
  ReadOptions ignore;
  ignore.ignore_unknown_fields = true;
  r = ReadAll<JsonLinesReader>("{\"id\": 1, \"x\": " + std::string(100000, '[') + "}", LocSchema(),
                               ignore);
  ASSERT_THAT(r, IsError(StatusCode::kInvalidArgument));
  // A nested array beyond the schema's depth is a type error, not a crash.
  r = ReadAll<JsonLinesReader>("{\"id\": 1, \"tags\": [[[[[[[[]]]]]]]]}", LocSchema());
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(std::string(r.status().message()), HasSubstr("field \"tags[0]\": expected a string"));
  // Binary garbage.
  std::string junk;
  for (int i = 0; i < 4096; ++i) junk.push_back(static_cast<char>(i * 7919 % 256));
  r = ReadAll<JsonLinesReader>(junk, LocSchema());
  EXPECT_FALSE(r.ok());
}

TEST(JsonLinesReaderTest, ValueForms) {
  auto schema = MakeSchema({
      Field("dec", columnar::Decimal128(9, 2)),
      Field("f", columnar::Float32()),
      Field("tstz", columnar::Timestamp(columnar::TimeUnit::kMicro, true)),
      Field("bin", columnar::Binary()),
      Field("fx", columnar::FixedBinary(2)),
      Field("u", columnar::Uuid()),
      Field("m",
            columnar::Map(Field("key", columnar::Int32()), Field("value", columnar::String()))),
  });
  auto r = ReadAll<JsonLinesReader>(
      "{\"dec\": 1.5, \"f\": \"NaN\", \"tstz\": \"2017-11-16T14:31:08-08:00\", \"bin\": \"00FF\", "
      "\"fx\": \"abcd\", \"u\": \"f79c3e09-677c-4bbd-a479-3f349cb785e7\", \"m\": {\"1\": \"a\"}}\n"
      "{\"dec\": \"-0.05\", \"f\": -Infinity, \"m\": [[2, \"b\"], [3, null]]}\n",
      schema);
  // -Infinity as a bare literal is not JSON.
  ASSERT_FALSE(r.ok());
  r = ReadAll<JsonLinesReader>(
      "{\"dec\": 1.5, \"f\": \"NaN\", \"tstz\": \"2017-11-16T14:31:08-08:00\", \"bin\": \"00FF\", "
      "\"fx\": \"abcd\", \"u\": \"f79c3e09-677c-4bbd-a479-3f349cb785e7\", \"m\": {\"1\": \"a\"}}\n"
      "{\"dec\": \"-0.05\", \"f\": \"-Infinity\", \"m\": [[2, \"b\"], [3, null]]}\n",
      schema);
  FLOE_ASSERT_OK(r);
  EXPECT_EQ(
      Lines(*r),
      "{\"dec\":\"1.50\",\"f\":\"NaN\",\"tstz\":\"2017-11-16T22:31:08.000000+00:00\","
      "\"bin\":\"00ff\",\"fx\":\"abcd\",\"u\":\"f79c3e09-677c-4bbd-a479-3f349cb785e7\","
      "\"m\":[[1,\"a\"]]}\n"
      "{\"dec\":\"-0.05\",\"f\":\"-Infinity\",\"tstz\":null,\"bin\":null,\"fx\":null,\"u\":null,"
      "\"m\":[[2,\"b\"],[3,null]]}\n");
  auto bad = ReadAll<JsonLinesReader>("{\"dec\": 1.234}", schema);
  ASSERT_FALSE(bad.ok());
  EXPECT_THAT(std::string(bad.status().message()),
              HasSubstr("line 1, field \"dec\": expected a decimal with no more fractional digits "
                        "than the type's scale, found \"1.234\""));
  bad = ReadAll<JsonLinesReader>("{\"fx\": \"abcdef\"}", schema);
  ASSERT_FALSE(bad.ok());
  EXPECT_THAT(std::string(bad.status().message()),
              HasSubstr("expected 2 bytes as hex, found 3 bytes"));
  bad = ReadAll<JsonLinesReader>("{\"m\": [[null, \"x\"]]}", schema);
  ASSERT_FALSE(bad.ok());
  EXPECT_THAT(std::string(bad.status().message()), HasSubstr("field \"m[0].key\""));
}

columnar::SchemaPtr CsvSchema() {
  return MakeSchema({Field("id", columnar::Int32(), false), Field("s", columnar::String()),
                     Field("d", columnar::Date32()),
                     Field("l", columnar::List(Field("element", columnar::Int64())))});
}

TEST(CsvReaderTest, QuotingNullsAndLineEndings) {
  std::string in =
      "id,s,d,l\r\n"
      "1,plain,2017-11-16,\"[1,2]\"\r\n"
      "2,\"a,\"\"b\"\"\nc\",,[]\n"
      "3,\"\",\"1970-01-01\",\n"
      "\n"
      "4,,,null";
  auto r = ReadAll<CsvReader>(in, CsvSchema());
  FLOE_ASSERT_OK(r);
  EXPECT_EQ(Lines(*r),
            "{\"id\":1,\"s\":\"plain\",\"d\":\"2017-11-16\",\"l\":[1,2]}\n"
            "{\"id\":2,\"s\":\"a,\\\"b\\\"\\nc\",\"d\":null,\"l\":[]}\n"
            "{\"id\":3,\"s\":\"\",\"d\":\"1970-01-01\",\"l\":null}\n"
            "{\"id\":4,\"s\":null,\"d\":null,\"l\":null}\n");
}

TEST(CsvReaderTest, HeaderMatching) {
  // Header order differs from the schema; an absent nullable column is null.
  auto r = ReadAll<CsvReader>("s,id\nx,1\n", CsvSchema());
  FLOE_ASSERT_OK(r);
  EXPECT_EQ(Lines(*r), "{\"id\":1,\"s\":\"x\",\"d\":null,\"l\":null}\n");
  ReadOptions no_header;
  no_header.header = false;
  no_header.delimiter = ';';
  r = ReadAll<CsvReader>("1;x;2000-01-01;[3]\n", CsvSchema(), no_header);
  FLOE_ASSERT_OK(r);
  EXPECT_EQ(Lines(*r), "{\"id\":1,\"s\":\"x\",\"d\":\"2000-01-01\",\"l\":[3]}\n");
  auto bad = ReadAll<CsvReader>("s\nx\n", CsvSchema());
  ASSERT_FALSE(bad.ok());
  EXPECT_THAT(std::string(bad.status().message()),
              HasSubstr("line 1: required column \"id\" is not in the header"));
  bad = ReadAll<CsvReader>("id,zz\n1,2\n", CsvSchema());
  ASSERT_FALSE(bad.ok());
  EXPECT_THAT(std::string(bad.status().message()),
              HasSubstr("column \"zz\" of the header is not in the schema"));
  ReadOptions ignore;
  ignore.ignore_unknown_fields = true;
  ignore.case_insensitive = true;
  r = ReadAll<CsvReader>("ID,zz\n1,2\n", CsvSchema(), ignore);
  FLOE_ASSERT_OK(r);
  EXPECT_EQ(Lines(*r), "{\"id\":1,\"s\":null,\"d\":null,\"l\":null}\n");
  // An empty file has no rows.
  r = ReadAll<CsvReader>("", CsvSchema());
  FLOE_ASSERT_OK(r);
  EXPECT_TRUE(r->empty());
}

TEST(CsvReaderTest, ErrorsNameTheLine) {
  auto expect_error = [](const std::string& in, const std::string& message) {
    auto r = ReadAll<CsvReader>(in, CsvSchema());
    ASSERT_THAT(r, IsError(StatusCode::kInvalidArgument)) << in;
    EXPECT_THAT(std::string(r.status().message()), HasSubstr(message)) << in;
  };
  // Line numbers count the newlines inside quoted cells.
  expect_error("id,s\n1,\"a\nb\nc\"\nx,y\n",
               "line 5, field \"id\": expected an integer, found \"x\"");
  expect_error("id,s\n1\n", "line 2: expected 2 fields, found 1");
  expect_error("id,s\n1,2,3\n", "line 2: more than 2 fields");
  expect_error("id,s\n1,\"abc\n", "line 2: unterminated quoted field");
  expect_error("id,s\n1,\"ab\"c\n", "line 2: unexpected character after a closing quote");
  expect_error("id,s\n,x\n",
               "line 2, field \"id\": expected a value (the field is required), found null");
  expect_error("id,l\n1,\"[1,\"\"a\"\"]\"\n",
               "line 2, field \"l[1]\": expected an integer, found \"a\"");
  expect_error("id,l\n1,[1] x\n", "line 2, field \"l\"");
  expect_error("id,d\n1,\"\"\n", "line 2, field \"d\": expected a date (YYYY-MM-DD), found \"\"");
}

TEST(CsvReaderTest, LongRecordsAndLimits) {
  ReadOptions options;
  options.chunk_bytes = 4096;
  std::string big(50000, 'q');
  auto r = ReadAll<CsvReader>("id,s\n1,\"" + big + "\"\n2,\"a\r\nb\"\r\n", CsvSchema(), options);
  FLOE_ASSERT_OK(r);
  ASSERT_EQ((*r)[0].num_rows(), 2);
  EXPECT_EQ((*r)[0].column(1).BinaryValue(0), big);
  EXPECT_EQ((*r)[0].column(1).BinaryValue(1), "a\r\nb");
  options.max_record_bytes = 10000;
  r = ReadAll<CsvReader>("id,s\n1,\"" + big + "\"\n", CsvSchema(), options);
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(std::string(r.status().message()), HasSubstr("line 2: record longer than the limit"));
  // Many delimiters in one header: bounded.
  r = ReadAll<CsvReader>(std::string(200000, ','), CsvSchema(), options);
  ASSERT_FALSE(r.ok());
}

}  // namespace
}  // namespace floe::format::text
