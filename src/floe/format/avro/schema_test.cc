#include "floe/format/avro/schema.h"

#include <gtest/gtest.h>

#include <string>

#include "floe/base/testing.h"
#include "floe/format/avro/columnar_schema.h"

namespace floe::format::avro {
namespace {

SchemaPtr MustParse(std::string_view json, ParseOptions options = {}) {
  auto s = Schema::Parse(json, options);
  FLOE_EXPECT_OK(s) << "\n" << json;
  return s.ok() ? *s : nullptr;
}

Status ParseError(std::string_view json, ParseOptions options = {}) {
  auto s = Schema::Parse(json, options);
  return s.ok() ? Status::OK() : s.status();
}

// Cases from the Avro repository's share/test/data/schema-tests.txt: input, Parsing
// Canonical Form and the CRC-64-AVRO fingerprint (as Java's signed long; 0 = not given).
struct CanonicalCase {
  const char* input;
  const char* canonical;
  int64_t fingerprint;
};

const CanonicalCase kCanonicalCases[] = {
    {R"("null")", R"("null")", 7195948357588979594},
    {R"({"type":"null"})", R"("null")", 0},
    {R"("boolean")", R"("boolean")", -6970731678124411036},
    {R"({"type":"boolean"})", R"("boolean")", 0},
    {R"("int")", R"("int")", 8247732601305521295},
    {R"("long")", R"("long")", -3434872931120570953},
    {R"("float")", R"("float")", 5583340709985441680},
    {R"("double")", R"("double")", -8181574048448539266},
    {R"("bytes")", R"("bytes")", 5746618253357095269},
    {R"("string")", R"("string")", -8142146995180207161},
    {R"({"type":"string"})", R"("string")", 0},
    {R"([  ])", R"([])", -1241056759729112623},
    {R"([ "int"  ])", R"(["int"])", -5232228896498058493},
    {R"([ "int" , {"type":"boolean"} ])", R"(["int","boolean"])", 5392556393470105090},
    {R"({"fields":[], "type":"record", "name":"foo"})",
     R"({"name":"foo","type":"record","fields":[]})", -4824392279771201922},
    {R"({"fields":[], "type":"record", "name":"foo", "namespace":"x.y"})",
     R"({"name":"x.y.foo","type":"record","fields":[]})", 5916914534497305771},
    {R"({"fields":[], "type":"record", "name":"a.b.foo", "namespace":"x.y"})",
     R"({"name":"a.b.foo","type":"record","fields":[]})", -4616218487480524110},
    {R"({"fields":[], "type":"record", "name":"foo", "doc":"Useful info"})",
     R"({"name":"foo","type":"record","fields":[]})", -4824392279771201922},
    {R"({"fields":[], "type":"record", "name":"foo", "aliases":["foo","bar"]})",
     R"({"name":"foo","type":"record","fields":[]})", -4824392279771201922},
    {R"({"fields":[{"type":{"type":"boolean"}, "name":"f1"}], "type":"record", "name":"foo"})",
     R"({"name":"foo","type":"record","fields":[{"name":"f1","type":"boolean"}]})",
     7843277075252814651},
    {R"({ "fields":[{"type":"boolean", "aliases":[], "name":"f1", "default":"true"},
                    {"order":"descending","name":"f2","doc":"Hello","type":"int"}],
          "type":"record", "name":"foo"})",
     R"({"name":"foo","type":"record","fields":[{"name":"f1","type":"boolean"},{"name":"f2","type":"int"}]})",
     -4860222112080293046},
    {R"({"type":"enum", "name":"foo", "symbols":["A1"]})",
     R"({"name":"foo","type":"enum","symbols":["A1"]})", -6342190197741309591},
    {R"({"namespace":"x.y.z", "type":"enum", "name":"foo", "doc":"foo bar", "symbols":["A1", "A2"]})",
     R"({"name":"x.y.z.foo","type":"enum","symbols":["A1","A2"]})", -4448647247586288245},
    {R"({"name":"foo","type":"fixed","size":15})", R"({"name":"foo","type":"fixed","size":15})",
     1756455273707447556},
    {R"({"namespace":"x.y.z", "type":"fixed", "name":"foo", "doc":"foo bar", "size":32})",
     R"({"name":"x.y.z.foo","type":"fixed","size":32})", -3064184465700546786},
    {R"({ "items":{"type":"null"}, "type":"array"})", R"({"type":"array","items":"null"})",
     -589620603366471059},
    {R"({ "values":"string", "type":"map"})", R"({"type":"map","values":"string"})",
     -8732877298790414990},
    {R"({"name":"PigValue","type":"record",
         "fields":[{"name":"value", "type":["null", "int", "long", "PigValue"]}]})",
     R"({"name":"PigValue","type":"record","fields":[{"name":"value","type":["null","int","long","PigValue"]}]})",
     -1759257747318642341},
};

TEST(AvroSchema, CanonicalFormAndFingerprintMatchTheSpecTestData) {
  for (const auto& c : kCanonicalCases) {
    SchemaPtr s = MustParse(c.input);
    ASSERT_NE(s, nullptr);
    EXPECT_EQ(s->CanonicalForm(), c.canonical) << c.input;
    if (c.fingerprint != 0) {
      EXPECT_EQ(s->Fingerprint64(), static_cast<uint64_t>(c.fingerprint)) << c.input;
    }
  }
}

TEST(AvroSchema, Crc64OfEmptyInputIsTheSpecsEmptyValue) {
  // Spec, "Schema Fingerprints": fingerprints start from EMPTY = 0xc15d213aa4d7a795.
  EXPECT_EQ(Crc64Avro(""), 0xc15d213aa4d7a795ULL);
}

// An Iceberg manifest-list-like schema: attributes the spec does not define, in an order
// of the writer's choosing, must come back verbatim.
constexpr std::string_view kIcebergSchema =
    R"({"type":"record","name":"manifest_file","fields":[)"
    R"({"name":"manifest_path","type":"string","doc":"Location URI with FS scheme","field-id":500},)"
    R"({"field-id":502,"name":"partition_spec_id","type":"int"},)"
    R"({"name":"partitions","type":["null",{"type":"array","items":{"type":"record","name":"r508","fields":[)"
    R"({"name":"contains_null","type":"boolean","field-id":509},)"
    R"({"name":"lower_bound","type":["null","bytes"],"default":null,"field-id":510}]},"element-id":508}],)"
    R"("default":null,"field-id":507},)"
    R"({"name":"column_sizes","type":["null",{"type":"array","items":{"type":"record","name":"k117_v118","fields":[)"
    R"({"name":"key","type":"int","field-id":117},{"name":"value","type":"long","field-id":118}]},"logicalType":"map"}],)"
    R"("default":null,"field-id":108},)"
    R"({"name":"ts","type":{"type":"long","logicalType":"timestamp-micros","adjust-to-utc":true},"field-id":7},)"
    R"({"name":"props","type":{"type":"map","values":"string","key-id":9,"value-id":10},"field-id":8},)"
    R"({"name":"x","type":{"type":"fixed","name":"f16","size":16,"logicalType":"uuid"},"field-id":11},)"
    R"({"name":"y","type":"f16","field-id":12}]})";

TEST(AvroSchema, ToJsonKeepsEveryAttributeInOrder) {
  SchemaPtr s = MustParse(kIcebergSchema);
  ASSERT_NE(s, nullptr);
  EXPECT_EQ(s->ToJson(), kIcebergSchema);
  // Parsing the output again gives the same text: a fixed point.
  EXPECT_EQ(MustParse(s->ToJson())->ToJson(), kIcebergSchema);
}

TEST(AvroSchema, ToJsonKeepsFormattingChoicesButDropsWhitespace) {
  SchemaPtr s = MustParse(R"( { "type" : "record", "name":"R", "fields": [
      {"name": "a", "type": {"type": "int"}, "default": 1.50, "meta": {"z": 1, "a": [true, null]}} ] } )");
  EXPECT_EQ(
      s->ToJson(),
      R"({"type":"record","name":"R","fields":[{"name":"a","type":{"type":"int"},"default":1.5,"meta":{"z":1,"a":[true,null]}}]})");
}

TEST(AvroSchema, PropertiesAndFieldIds) {
  SchemaPtr s = MustParse(kIcebergSchema);
  const Node& root = s->root();
  ASSERT_EQ(root.type(), AvroType::kRecord);
  ASSERT_EQ(root.fields().size(), 8u);
  EXPECT_EQ(root.fields()[0].field_id(), 500);
  EXPECT_EQ(root.fields()[0].doc(), "Location URI with FS scheme");
  EXPECT_EQ(root.fields()[1].field_id(), 502);
  ASSERT_EQ(root.fields()[0].properties().size(), 1u);
  EXPECT_EQ(root.fields()[0].properties()[0].key, "field-id");
  EXPECT_EQ(root.fields()[0].properties()[0].json, "500");
  const Node& partitions = root.fields()[2].type();
  ASSERT_EQ(partitions.type(), AvroType::kUnion);
  EXPECT_EQ(partitions.branch(1).IntProperty("element-id"), 508);
  EXPECT_EQ(root.fields()[2].default_json(), "null");
  const Node& column_sizes = root.fields()[3].type().branch(1);
  EXPECT_EQ(column_sizes.StringProperty("logicalType"), "map");
  EXPECT_EQ(column_sizes.logical_type(), LogicalType::kNone);  // unknown: ignored
  const Node& ts = root.fields()[4].type();
  EXPECT_EQ(ts.logical_type(), LogicalType::kTimestampMicros);
  ASSERT_NE(ts.FindProperty("adjust-to-utc"), nullptr);
  EXPECT_EQ(ts.FindProperty("adjust-to-utc")->json, "true");
  const Node& props = root.fields()[5].type();
  EXPECT_EQ(props.IntProperty("key-id"), 9);
  EXPECT_EQ(props.IntProperty("value-id"), 10);
  // "y" refers to the fixed defined by "x": the same node.
  EXPECT_EQ(&root.fields()[7].type(), &root.fields()[6].type());
  EXPECT_EQ(&root.fields()[6].type(), s->FindNamed("f16"));
  EXPECT_EQ(root.fields()[7].type().logical_type(), LogicalType::kUuid);
}

TEST(AvroSchema, NamespacesFollowTheSpecExample) {
  // Spec, "Names": the example with inheritNull, explicitNamespace and fullName.
  SchemaPtr s = MustParse(R"({"type":"record","name":"Example","fields":[
    {"name":"inheritNull","type":{"type":"enum","name":"Simple","symbols":["a","b"]}},
    {"name":"explicitNamespace","type":{"type":"fixed","name":"Simple","namespace":"explicit","size":12}},
    {"name":"fullName","type":{"type":"record","name":"a.full.Name","namespace":"ignored","fields":[
      {"name":"inheritNamespace","type":{"type":"enum","name":"Understanding","symbols":["d","e"]}},
      {"name":"ref","type":"Understanding"}]}}]})");
  const Node& root = s->root();
  EXPECT_EQ(root.full_name(), "Example");
  EXPECT_EQ(root.fields()[0].type().full_name(), "Simple");
  EXPECT_EQ(root.fields()[1].type().full_name(), "explicit.Simple");
  const Node& full = root.fields()[2].type();
  EXPECT_EQ(full.full_name(), "a.full.Name");
  EXPECT_EQ(full.name_space(), "a.full");
  EXPECT_EQ(full.name(), "Name");
  EXPECT_EQ(full.fields()[0].type().full_name(), "a.full.Understanding");
  EXPECT_EQ(&full.fields()[1].type(), &full.fields()[0].type());
  EXPECT_NE(s->FindNamed("explicit.Simple"), nullptr);
  EXPECT_EQ(
      s->CanonicalForm(),
      R"({"name":"Example","type":"record","fields":[)"
      R"({"name":"inheritNull","type":{"name":"Simple","type":"enum","symbols":["a","b"]}},)"
      R"({"name":"explicitNamespace","type":{"name":"explicit.Simple","type":"fixed","size":12}},)"
      R"({"name":"fullName","type":{"name":"a.full.Name","type":"record","fields":[)"
      R"({"name":"inheritNamespace","type":{"name":"a.full.Understanding","type":"enum","symbols":["d","e"]}},)"
      R"({"name":"ref","type":"a.full.Understanding"}]}}]})");
}

TEST(AvroSchema, AliasesAreQualifiedByTheTypesNamespace) {
  // Spec, "Aliases": a type "a.b" with aliases "c" and "x.y" has aliases "a.c" and "x.y".
  SchemaPtr s = MustParse(R"({"type":"fixed","name":"a.b","size":1,"aliases":["c","x.y"]})");
  EXPECT_EQ(s->root().aliases(), (std::vector<std::string>{"a.c", "x.y"}));
}

TEST(AvroSchema, RecursiveTypesParseAndRefuseColumns) {
  SchemaPtr s = MustParse(R"({"type":"record","name":"LongList","aliases":["LinkedLongs"],
    "fields":[{"name":"value","type":"long"},{"name":"next","type":["null","LongList"]}]})");
  const Node& root = s->root();
  EXPECT_EQ(&root.fields()[1].type().branch(1), &root);
  EXPECT_EQ(ToColumnarSchema(*s).status().code(), StatusCode::kUnimplemented);
}

TEST(AvroSchema, InvalidSchemasAreErrors) {
  const char* bad[] = {
      R"(nope)",
      R"(42)",
      R"({"name":"x"})",                                 // no type
      R"("Foo")",                                        // undefined name
      R"({"type":"record","name":"1bad","fields":[]})",  // bad name
      R"({"type":"record","name":"a..b","fields":[]})",  // bad namespace
      R"({"type":"record","name":"R","fields":[{"name":"a-b","type":"int"}]})",
      R"({"type":"record","name":"R","fields":[{"name":"a","type":"int"},{"name":"a","type":"long"}]})",
      R"({"type":"record","name":"R","fields":[{"name":"a","type":{"type":"record","name":"R","fields":[]}}]})",
      R"({"type":"record","name":"R"})",                // no fields
      R"({"type":"record","name":"int","fields":[]})",  // primitive name
      R"(["int",["null","long"]])",                     // union in union
      R"(["int","int"])",                               // duplicate branch
      R"(["null",{"type":"array","items":"int"},{"type":"array","items":"long"}])",
      R"([{"type":"fixed","name":"F","size":1},{"type":"fixed","name":"F","size":2}])",
      R"({"type":"enum","name":"E","symbols":["A","A"]})",
      R"({"type":"enum","name":"E","symbols":["1A"]})",
      R"({"type":"fixed","name":"F","size":-1})",
      R"({"type":"fixed","name":"F"})",
      R"({"type":"array"})",
      R"({"type":"map","values":"Nope"})",
  };
  for (const char* json : bad) {
    Status s = ParseError(json);
    EXPECT_EQ(s.code(), StatusCode::kInvalidArgument) << json;
  }
  // Two records with different fullnames but the same simple name are fine in a union.
  FLOE_EXPECT_OK(ParseError(
      R"([{"type":"record","name":"a.R","fields":[]}, {"type":"record","name":"b.R","fields":[]}])"));
}

TEST(AvroSchema, NameValidationCanBeTurnedOff) {
  ParseOptions lenient;
  lenient.validate_names = false;
  SchemaPtr s = MustParse(
      R"({"type":"record","name":"my-record","fields":[{"name":"a b","type":"int"}]})", lenient);
  EXPECT_EQ(s->root().fields()[0].name(), "a b");
  EXPECT_FALSE(ParseError(R"({"type":"record","name":"my-record","fields":[]})").ok());
}

TEST(AvroSchema, LogicalTypes) {
  struct Case {
    const char* json;
    LogicalType expected;
  } cases[] = {
      {R"({"type":"bytes","logicalType":"decimal","precision":4,"scale":2})",
       LogicalType::kDecimal},
      {R"({"type":"fixed","name":"d","size":16,"logicalType":"decimal","precision":38})",
       LogicalType::kDecimal},
      {R"({"type":"string","logicalType":"uuid"})", LogicalType::kUuid},
      {R"({"type":"fixed","name":"u","size":16,"logicalType":"uuid"})", LogicalType::kUuid},
      {R"({"type":"int","logicalType":"date"})", LogicalType::kDate},
      {R"({"type":"int","logicalType":"time-millis"})", LogicalType::kTimeMillis},
      {R"({"type":"long","logicalType":"time-micros"})", LogicalType::kTimeMicros},
      {R"({"type":"long","logicalType":"timestamp-millis"})", LogicalType::kTimestampMillis},
      {R"({"type":"long","logicalType":"timestamp-micros"})", LogicalType::kTimestampMicros},
      {R"({"type":"long","logicalType":"timestamp-nanos"})", LogicalType::kTimestampNanos},
      {R"({"type":"long","logicalType":"local-timestamp-millis"})",
       LogicalType::kLocalTimestampMillis},
      {R"({"type":"long","logicalType":"local-timestamp-micros"})",
       LogicalType::kLocalTimestampMicros},
      {R"({"type":"long","logicalType":"local-timestamp-nanos"})",
       LogicalType::kLocalTimestampNanos},
      {R"({"type":"fixed","name":"dur","size":12,"logicalType":"duration"})",
       LogicalType::kDuration},
      // Invalid ones fall back to the underlying type (spec, "Logical Types").
      {R"({"type":"bytes","logicalType":"decimal","precision":2,"scale":3})", LogicalType::kNone},
      {R"({"type":"bytes","logicalType":"decimal","precision":0})", LogicalType::kNone},
      {R"({"type":"bytes","logicalType":"decimal"})", LogicalType::kNone},
      // fixed(4) holds floor(log10(2^31 - 1)) = 9 digits.
      {R"({"type":"fixed","name":"d4","size":4,"logicalType":"decimal","precision":10})",
       LogicalType::kNone},
      {R"({"type":"string","logicalType":"decimal","precision":3})", LogicalType::kNone},
      {R"({"type":"int","logicalType":"uuid"})", LogicalType::kNone},
      {R"({"type":"fixed","name":"u8","size":8,"logicalType":"uuid"})", LogicalType::kNone},
      {R"({"type":"long","logicalType":"date"})", LogicalType::kNone},
      {R"({"type":"int","logicalType":"time-micros"})", LogicalType::kNone},
      {R"({"type":"fixed","name":"d13","size":13,"logicalType":"duration"})", LogicalType::kNone},
      {R"({"type":"int","logicalType":"no-such-type"})", LogicalType::kNone},
  };
  for (const auto& c : cases) {
    SchemaPtr s = MustParse(c.json);
    ASSERT_NE(s, nullptr);
    EXPECT_EQ(s->root().logical_type(), c.expected) << c.json;
    // The logicalType attribute is kept either way.
    EXPECT_EQ(s->ToJson().find("logicalType") != std::string::npos, true);
  }
  SchemaPtr d = MustParse(
      R"({"type":"fixed","name":"d","size":9,"logicalType":"decimal","precision":20,"scale":3})");
  EXPECT_EQ(d->root().precision(), 20);
  EXPECT_EQ(d->root().scale(), 3);
  SchemaPtr d4 =
      MustParse(R"({"type":"fixed","name":"d","size":4,"logicalType":"decimal","precision":9})");
  EXPECT_EQ(d4->root().logical_type(), LogicalType::kDecimal);
}

TEST(AvroSchema, StrictModeRejectsInvalidLogicalTypesAndDefaults) {
  ParseOptions strict;
  strict.strict = true;
  EXPECT_EQ(
      ParseError(R"({"type":"bytes","logicalType":"decimal","precision":2,"scale":3})", strict)
          .code(),
      StatusCode::kInvalidArgument);
  EXPECT_EQ(
      ParseError(
          R"({"type":"record","name":"R","fields":[{"name":"a","type":"int","default":"x"}]})",
          strict)
          .code(),
      StatusCode::kInvalidArgument);
  EXPECT_EQ(
      ParseError(R"({"type":"enum","name":"E","symbols":["A"],"default":"B"})", strict).code(),
      StatusCode::kInvalidArgument);
  // Unknown logical types are not invalid: Iceberg's "map" parses in strict mode too.
  FLOE_EXPECT_OK(ParseError(R"({"type":"array","items":"int","logicalType":"map"})", strict));
  FLOE_EXPECT_OK(ParseError(
      R"({"type":"record","name":"R","fields":[ {"name":"a","type":["null","int"],"default":null}, {"name":"b","type":{"type":"array","items":"int"},"default":[1,2]}, {"name":"c","type":"bytes","default":"\u00ff"}, {"name":"d","type":{"type":"record","name":"S","fields":[{"name":"x","type":"int","default":3}]},"default":{}}]})",
      strict));
}

TEST(AvroSchema, DeeplyNestedJsonIsAnErrorNotACrash) {
  std::string deep;
  for (int i = 0; i < 5000; ++i) deep += "[";
  for (int i = 0; i < 5000; ++i) deep += "]";
  EXPECT_FALSE(Schema::Parse(deep).ok());
  std::string arrays;
  for (int i = 0; i < 2000; ++i) arrays += R"({"type":"array","items":)";
  arrays += R"("int")";
  for (int i = 0; i < 2000; ++i) arrays += "}";
  EXPECT_EQ(Schema::Parse(arrays).status().code(), StatusCode::kInvalidArgument);
}

// What Confluent's registry refuses (Avro Java 1.11 Schema.Parser with validateDefaults, and
// records whose values could never end), checked only when asked: files keep parsing as
// before.
TEST(AvroSchema, RegistrationChecks) {
  ParseOptions registry;
  registry.validate_defaults = true;
  registry.reject_unterminated_records = true;
  const std::string bad_default =
      R"({"type":"record","name":"R","fields":[{"name":"a","type":"int","default":"x"}]})";
  FLOE_EXPECT_OK(Schema::Parse(bad_default));
  auto refused = Schema::Parse(bad_default, registry);
  EXPECT_EQ(refused.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(refused.status().message().find("invalid default for field 'a'"), std::string::npos)
      << refused.status().ToString();
  EXPECT_FALSE(Schema::Parse(R"({"type":"record","name":"R","fields":[
      {"name":"a","type":{"type":"array","items":"int"},"default":{"x":1}}]})",
                             registry)
                   .ok());
  FLOE_EXPECT_OK(Schema::Parse(
      R"({"type":"record","name":"R","fields":[ {"name":"a","type":["null","int"],"default":null}]})",
      registry));
  // Never ending: a record holding itself, directly or through another record.
  for (const char* endless : {
           R"({"type":"record","name":"R","fields":[{"name":"r","type":"R"}]})",
           R"({"type":"record","name":"A","fields":[{"name":"b","type":{"type":"record",
               "name":"B","fields":[{"name":"a","type":"A"}]}}]})",
           R"({"type":"record","name":"U","fields":[{"name":"u","type":["U"]}]})",
       }) {
    FLOE_EXPECT_OK(Schema::Parse(endless)) << endless;
    auto s = Schema::Parse(endless, registry);
    EXPECT_EQ(s.status().code(), StatusCode::kInvalidArgument) << endless;
    EXPECT_NE(s.status().message().find("can never end"), std::string::npos) << endless;
  }
  // Linked lists and trees end: through a null branch, an array, a map.
  for (const char* ends : {
           R"({"type":"record","name":"L","fields":[{"name":"v","type":"int"},
               {"name":"next","type":["null","L"]}]})",
           R"({"type":"record","name":"T","fields":[{"name":"kids","type":{"type":"array",
               "items":"T"}}]})",
           R"({"type":"record","name":"M","fields":[{"name":"m","type":{"type":"map",
               "values":"M"}}]})",
       }) {
    FLOE_EXPECT_OK(Schema::Parse(ends, registry)) << ends;
  }
}

TEST(AvroSchema, NestsAtMostTheJsonDepthLimit) {
  // `levels` arrays around "int": one JSON level each.
  auto arrays = [](int levels) {
    std::string out;
    for (int i = 0; i < levels; ++i) out += R"({"type":"array","items":)";
    return out + R"("int")" + std::string(static_cast<size_t>(levels), '}');
  };
  auto at_limit = Schema::Parse(arrays(256));
  FLOE_ASSERT_OK(at_limit);
  EXPECT_EQ((*at_limit)->root().type(), AvroType::kArray);
  auto past = Schema::Parse(arrays(257));
  EXPECT_EQ(past.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(past.status().message().find("nested deeper than 256 levels"), std::string::npos)
      << past.status().ToString();
}

}  // namespace
}  // namespace floe::format::avro
