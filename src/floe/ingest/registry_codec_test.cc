// Registry schemas into Iceberg columns (Avro 1.12 spec: named types, unions, logical
// types; JSON Schema draft 2020-12 / draft-07: $ref, $defs, definitions, oneOf, anyOf), Confluent
// schema references, and the rows and ops of Debezium envelopes and cdc.field values
// decoded into columns. Datums are written by hand from the Avro spec's binary encoding.
#include "floe/ingest/registry_codec.h"

#include <gtest/gtest.h>

#include "floe/base/testing.h"
#include "floe/format/avro/datum_reader.h"
#include "floe/ingest/avro_references.h"
#include "floe/ingest/registry_cdc.h"

namespace floe::ingest {
namespace {

namespace avro = floe::format::avro;
namespace col = floe::columnar;
using iceberg::NestedField;
using iceberg::TypeKind;

std::vector<NestedField> Avro(std::string_view schema) {
  auto parsed = avro::Schema::Parse(schema);
  FLOE_EXPECT_OK(parsed);
  if (!parsed.ok()) return {};
  auto columns = AvroColumns(**parsed);
  FLOE_EXPECT_OK(columns);
  return columns.ok() ? *columns : std::vector<NestedField>{};
}

const NestedField& Field(const std::vector<NestedField>& fields, std::string_view name) {
  for (const NestedField& f : fields) {
    if (f.name == name) return f;
  }
  ADD_FAILURE() << "no field " << name;
  static const NestedField kMissing = NestedField::Optional(0, "missing", iceberg::IntType());
  return kMissing;
}

// Avro binary encoding (spec, "Binary Encoding").
std::string Long(int64_t v) {
  uint64_t z = (static_cast<uint64_t>(v) << 1) ^ static_cast<uint64_t>(v >> 63);
  std::string out;
  while (z >= 0x80) {
    out += static_cast<char>((z & 0x7f) | 0x80);
    z >>= 7;
  }
  out += static_cast<char>(z);
  return out;
}
std::string Str(std::string_view s) {
  return Long(static_cast<int64_t>(s.size())) + std::string(s);
}

TEST(RegistryCodecTest, AvroNamedTypesAreExpandedWhereverTheyAreUsed) {
  // Point is defined once and used by name in a field, an array and a map; Color (enum)
  // and Hash (fixed) likewise.
  auto columns = Avro(R"({"type":"record","name":"Shape","namespace":"geo","fields":[
      {"name":"origin","type":{"type":"record","name":"Point","fields":[
          {"name":"x","type":"double"},{"name":"y","type":"double"}]}},
      {"name":"corner","type":"Point"},
      {"name":"path","type":{"type":"array","items":"geo.Point"}},
      {"name":"named","type":{"type":"map","values":"Point"}},
      {"name":"color","type":{"type":"enum","name":"Color","symbols":["RED","GREEN"]}},
      {"name":"fill","type":["null","Color"]},
      {"name":"hash","type":{"type":"fixed","name":"Hash","size":4}},
      {"name":"old_hash","type":"Hash"}]})");
  ASSERT_EQ(columns.size(), 8u);
  for (const char* name : {"origin", "corner"}) {
    const NestedField& f = Field(columns, name);
    ASSERT_EQ(f.type->kind(), TypeKind::kStruct) << name;
    EXPECT_EQ(f.type->fields().size(), 2u);
    EXPECT_EQ(f.type->fields()[1].name, "y");
  }
  EXPECT_EQ(Field(columns, "path").type->element().type->kind(), TypeKind::kStruct);
  EXPECT_EQ(Field(columns, "named").type->value().type->kind(), TypeKind::kStruct);
  EXPECT_EQ(Field(columns, "color").type->kind(), TypeKind::kString);
  EXPECT_EQ(Field(columns, "fill").type->kind(), TypeKind::kString);
  EXPECT_EQ(Field(columns, "hash").type->kind(), TypeKind::kFixed);
  EXPECT_EQ(Field(columns, "old_hash").type->length(), 4);
}

TEST(RegistryCodecTest, AvroLogicalTypes) {
  auto columns = Avro(R"({"type":"record","name":"L","fields":[
      {"name":"d1","type":{"type":"bytes","logicalType":"decimal","precision":10,"scale":2}},
      {"name":"d2","type":{"type":"fixed","name":"D","size":8,"logicalType":"decimal",
                           "precision":18,"scale":4}},
      {"name":"u1","type":{"type":"string","logicalType":"uuid"}},
      {"name":"u2","type":{"type":"fixed","name":"U","size":16,"logicalType":"uuid"}},
      {"name":"day","type":{"type":"int","logicalType":"date"}},
      {"name":"t1","type":{"type":"int","logicalType":"time-millis"}},
      {"name":"t2","type":{"type":"long","logicalType":"time-micros"}},
      {"name":"ts1","type":{"type":"long","logicalType":"timestamp-millis"}},
      {"name":"ts2","type":{"type":"long","logicalType":"timestamp-micros"}},
      {"name":"lts1","type":{"type":"long","logicalType":"local-timestamp-millis"}},
      {"name":"lts2","type":{"type":"long","logicalType":"local-timestamp-micros"}}]})");
  ASSERT_EQ(columns.size(), 11u);
  EXPECT_EQ(Field(columns, "d1").type->kind(), TypeKind::kDecimal);
  EXPECT_EQ(Field(columns, "d1").type->precision(), 10);
  EXPECT_EQ(Field(columns, "d2").type->scale(), 4);
  EXPECT_EQ(Field(columns, "u1").type->kind(), TypeKind::kString);
  EXPECT_EQ(Field(columns, "u2").type->kind(), TypeKind::kUuid);
  EXPECT_EQ(Field(columns, "day").type->kind(), TypeKind::kDate);
  EXPECT_EQ(Field(columns, "t1").type->kind(), TypeKind::kTime);
  EXPECT_EQ(Field(columns, "t2").type->kind(), TypeKind::kTime);
  EXPECT_EQ(Field(columns, "ts1").type->kind(), TypeKind::kTimestampTz);
  EXPECT_EQ(Field(columns, "ts2").type->kind(), TypeKind::kTimestampTz);
  EXPECT_EQ(Field(columns, "lts1").type->kind(), TypeKind::kTimestamp);
  EXPECT_EQ(Field(columns, "lts2").type->kind(), TypeKind::kTimestamp);
}

TEST(RegistryCodecTest, AvroRecursiveRecordsAreRefused) {
  auto parsed = avro::Schema::Parse(R"({"type":"record","name":"Node","fields":[
      {"name":"v","type":"long"},{"name":"next","type":["null","Node"]}]})");
  FLOE_ASSERT_OK(parsed);
  auto columns = AvroColumns(**parsed);
  ASSERT_THAT(columns, IsError(StatusCode::kUnimplemented));
  EXPECT_NE(columns.status().message().find("recursive record Node"), std::string::npos)
      << columns.status().message();
}

// `levels` array schemas around `leaf`: {"type":"array","items":...}.
std::string NestedArrays(int levels, std::string_view leaf) {
  std::string out;
  for (int i = 0; i < levels; ++i) out += R"({"type":"array","items":)";
  out += leaf;
  out += std::string(static_cast<size_t>(levels), '}');
  return out;
}

TEST(RegistryCodecTest, ColumnsNestAtMost64Levels) {
  // Registry schemas are parsed 256 JSON levels deep; their columns nest at most 64 levels
  // (Iceberg types nest 100; table metadata takes three JSON levels per struct). Deeper is
  // a schema floe does not map, refused before any record.
  auto avro_columns = [](int levels) {
    auto parsed = avro::Schema::Parse(NestedArrays(levels, R"("long")"));
    FLOE_EXPECT_OK(parsed);
    return AvroColumns(**parsed);
  };
  auto at_limit = avro_columns(64);
  FLOE_ASSERT_OK(at_limit);
  EXPECT_EQ((*at_limit)[0].type->kind(), TypeKind::kList);
  auto past = avro_columns(65);
  EXPECT_EQ(past.status().code(), StatusCode::kUnimplemented);
  EXPECT_NE(past.status().message().find("nests too deeply"), std::string::npos);

  auto json_columns = [](int levels) {
    return JsonSchemaColumns(
        nlohmann::ordered_json::parse(NestedArrays(levels, R"({"type":"integer"})")));
  };
  auto json_at_limit = json_columns(64);
  FLOE_ASSERT_OK(json_at_limit);
  EXPECT_EQ((*json_at_limit)[0].type->kind(), TypeKind::kList);
  auto json_past = json_columns(65);
  EXPECT_EQ(json_past.status().code(), StatusCode::kUnimplemented);
  EXPECT_NE(json_past.status().message().find("nests too deeply"), std::string::npos);
}

TEST(RegistryCodecTest, AvroUnionsOfSeveralTypesBecomeStructs) {
  constexpr std::string_view kSchema = R"({"type":"record","name":"E","fields":[
      {"name":"id","type":"long"},
      {"name":"payload","type":["null","long","string",
          {"type":"record","name":"a.Point","fields":[{"name":"x","type":"int"}]}]}]})";
  auto columns = Avro(kSchema);
  ASSERT_EQ(columns.size(), 2u);
  const NestedField& payload = Field(columns, "payload");
  ASSERT_EQ(payload.type->kind(), TypeKind::kStruct);
  ASSERT_EQ(payload.type->fields().size(), 3u);
  EXPECT_EQ(payload.type->fields()[0].name, "long");
  EXPECT_EQ(payload.type->fields()[1].name, "string");
  EXPECT_EQ(payload.type->fields()[2].name, "Point");
  for (const NestedField& m : payload.type->fields()) EXPECT_FALSE(m.required);

  // Four datums: id, then the union's branch index and value (spec, "Unions").
  auto schema = *avro::Schema::Parse(kSchema);
  auto reader = avro::DatumReader::Make(*schema);
  FLOE_ASSERT_OK(reader);
  for (const std::string& datum : {Long(1) + Long(1) + Long(42), Long(2) + Long(2) + Str("hi"),
                                   Long(3) + Long(0), Long(4) + Long(3) + Long(-7)}) {
    ByteReader in(
        std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(datum.data()), datum.size()));
    FLOE_ASSERT_OK((*reader)->Read(&in));
  }
  col::RecordBatch batch = (*reader)->Finish();
  auto conformed =
      ConformColumns(std::move(batch.mutable_columns()), {"id", "payload"}, columns, 4);
  FLOE_ASSERT_OK(conformed);
  const col::Array& p = (*conformed)[1];
  ASSERT_EQ(p.type_id(), col::TypeId::kStruct);
  EXPECT_TRUE(p.IsValid(0));
  EXPECT_EQ(p.child(0).Value<int64_t>(0), 42);
  EXPECT_TRUE(p.child(1).IsNull(0));
  EXPECT_TRUE(p.child(2).IsNull(0));
  EXPECT_EQ(p.child(1).BinaryValue(1), "hi");
  EXPECT_TRUE(p.child(0).IsNull(1));
  EXPECT_TRUE(p.IsNull(2));  // the union's null
  EXPECT_EQ(p.child(2).child(0).Value<int32_t>(3), -7);
  EXPECT_TRUE(p.child(0).IsNull(3));
}

TEST(RegistryCodecTest, ConfluentReferencesWriteInTheReferencedTypes) {
  // The main schema uses floe.it.Address (another subject's schema) twice, and Status
  // (an enum in the null namespace, defined in a second reference).
  const std::map<std::string, std::string> referenced = {
      {"floe.it.Address", R"({"type":"record","name":"Address","namespace":"floe.it",
          "fields":[{"name":"city","type":"string"}]})"},
      {"Status", R"({"type":"enum","name":"Status","symbols":["ON","OFF"]})"}};
  auto expanded = ExpandAvroReferences(R"({"type":"record","name":"Customer",
      "namespace":"floe.it","fields":[{"name":"home","type":"Address"},
      {"name":"work","type":["null","floe.it.Address"]},{"name":"status","type":"Status"}]})",
                                       referenced);
  FLOE_ASSERT_OK(expanded);
  auto columns = Avro(*expanded);
  ASSERT_EQ(columns.size(), 3u);
  EXPECT_EQ(Field(columns, "home").type->fields()[0].name, "city");
  EXPECT_EQ(Field(columns, "work").type->kind(), TypeKind::kStruct);
  EXPECT_EQ(Field(columns, "status").type->kind(), TypeKind::kString);
  // The written-in types keep their full names: the enum is not floe.it.Status.
  auto schema = avro::Schema::Parse(*expanded);
  FLOE_ASSERT_OK(schema);
  EXPECT_NE((*schema)->FindNamed("Status"), nullptr);
  EXPECT_NE((*schema)->FindNamed("floe.it.Address"), nullptr);
  // Without the references the schema does not parse.
  EXPECT_FALSE(avro::Schema::Parse(R"({"type":"record","name":"C","fields":[
      {"name":"home","type":"floe.it.Address"}]})")
                   .ok());
}

std::vector<NestedField> Json(std::string_view schema) {
  auto columns = JsonSchemaColumns(nlohmann::ordered_json::parse(schema));
  FLOE_EXPECT_OK(columns);
  return columns.ok() ? *columns : std::vector<NestedField>{};
}

TEST(RegistryCodecTest, JsonSchemaRefsAndNullableUnions) {
  auto columns = Json(R"({"type":"object","properties":{
      "id":{"type":"integer"},
      "home":{"$ref":"#/definitions/Address"},
      "work":{"oneOf":[{"type":"null"},{"$ref":"#/$defs/Address2"}]},
      "note":{"anyOf":[{"type":"string"},{"type":"null"}]},
      "tags":{"type":"array","items":{"$ref":"#/definitions/Tag"}}},
    "definitions":{"Address":{"type":"object","properties":{"city":{"type":"string"}}},
                   "Tag":{"type":"string"}},
    "$defs":{"Address2":{"type":"object","properties":{"zip":{"type":"integer"}}}}})");
  ASSERT_EQ(columns.size(), 5u);
  EXPECT_EQ(Field(columns, "home").type->fields()[0].name, "city");
  EXPECT_EQ(Field(columns, "work").type->fields()[0].type->kind(), TypeKind::kLong);
  EXPECT_EQ(Field(columns, "note").type->kind(), TypeKind::kString);
  EXPECT_EQ(Field(columns, "tags").type->element().type->kind(), TypeKind::kString);

  auto recursive = JsonSchemaColumns(nlohmann::ordered_json::parse(
      R"({"type":"object","properties":{"node":{"$ref":"#/definitions/Node"}},
          "definitions":{"Node":{"type":"object","properties":{
              "next":{"$ref":"#/definitions/Node"}}}}})"));
  ASSERT_FALSE(recursive.ok());
  EXPECT_NE(recursive.status().message().find("recursive"), std::string::npos);
  EXPECT_FALSE(
      JsonSchemaColumns(nlohmann::ordered_json::parse(
                            R"({"type":"object","properties":{"x":{"oneOf":[{"type":"string"},
                       {"type":"integer"}]}}})"))
          .ok());
  EXPECT_FALSE(
      JsonSchemaColumns(nlohmann::ordered_json::parse(
                            R"({"type":"object","properties":{"x":{"$ref":"other.json#/X"}}})"))
          .ok());
}

TEST(RegistryCdcTest, OpsAsDebeziumAndCdcFieldsDefineThem) {
  // Debezium: c create, r snapshot read, u update -> the after image; d delete.
  EXPECT_EQ(*DebeziumOp("c"), kOpUpsert);
  EXPECT_EQ(*DebeziumOp("r"), kOpUpsert);
  EXPECT_EQ(*DebeziumOp("u"), kOpUpsert);
  EXPECT_EQ(*DebeziumOp("d"), kOpDelete);
  EXPECT_FALSE(DebeziumOp("t").ok());  // truncate has no row
  EXPECT_FALSE(DebeziumOp("").ok());
  // AutoMQ's cdc.field: the first letter, any case.
  EXPECT_EQ(*CdcFieldOp("insert", "op"), kOpUpsert);
  EXPECT_EQ(*CdcFieldOp("u", "op"), kOpUpsert);
  EXPECT_EQ(*CdcFieldOp("DELETE", "op"), kOpDelete);
  EXPECT_FALSE(CdcFieldOp("x", "op").ok());
  EXPECT_FALSE(CdcFieldOp("", "op").ok());
}

constexpr std::string_view kEnvelope = R"({"type":"record","name":"Envelope","fields":[
    {"name":"before","type":["null",{"type":"record","name":"Value","fields":[
        {"name":"id","type":"long"},{"name":"name","type":["null","string"]}]}]},
    {"name":"after","type":["null","Value"]},
    {"name":"op","type":"string"}]})";

TEST(RegistryCdcTest, DebeziumRowColumnsAreTheImagesFields) {
  auto row = DebeziumRowColumns(Avro(kEnvelope));
  FLOE_ASSERT_OK(row);
  ASSERT_EQ(row->size(), 2u);
  EXPECT_EQ((*row)[0].name, "id");
  EXPECT_EQ((*row)[1].name, "name");
  // Not an envelope: no op, or images of two types.
  EXPECT_FALSE(DebeziumRowColumns(Avro(R"({"type":"record","name":"R","fields":[
      {"name":"after","type":{"type":"record","name":"V",
                              "fields":[{"name":"id","type":"long"}]}}]})"))
                   .ok());
  EXPECT_FALSE(DebeziumRowColumns(Avro(R"({"type":"record","name":"R","fields":[
      {"name":"before","type":{"type":"record","name":"V","fields":[{"name":"id","type":"long"}]}},
      {"name":"after","type":{"type":"record","name":"W","fields":[{"name":"id","type":"int"}]}},
      {"name":"op","type":"string"}]})"))
                   .ok());
}

TEST(RegistryCdcTest, DebeziumRowsAreTheOpsImages) {
  auto schema = *avro::Schema::Parse(kEnvelope);
  auto reader = avro::DatumReader::Make(*schema);
  FLOE_ASSERT_OK(reader);
  auto value = [](int64_t id, std::string_view name) { return Long(id) + Long(1) + Str(name); };
  const std::string none = Long(0);
  const std::string some = Long(1);
  for (const std::string& datum : {
           none + some + value(1, "a") + Str("c"),                  // create 1
           some + value(1, "a") + some + value(1, "b") + Str("u"),  // update 1
           some + value(2, "x") + none + Str("d"),                  // delete 2: the before image
           none + some + value(3, "z") + Str("truncate"),           // not an op
           none + none + Str("d"),                                  // a delete without before
       }) {
    ByteReader in(
        std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(datum.data()), datum.size()));
    FLOE_ASSERT_OK((*reader)->Read(&in));
  }
  col::RecordBatch batch = (*reader)->Finish();
  std::vector<std::string> row_names;
  KeyedRows keyed;
  auto rows = ExtractDebeziumRows(std::move(batch.mutable_columns()), {"before", "after", "op"}, 5,
                                  &row_names, &keyed);
  FLOE_ASSERT_OK(rows);
  EXPECT_EQ(row_names, (std::vector<std::string>{"id", "name"}));
  EXPECT_EQ(keyed.ops, (std::vector<char>{kOpUpsert, kOpUpsert, kOpDelete, 0, 0}));
  EXPECT_TRUE(keyed.errors[0].empty() && keyed.errors[1].empty() && keyed.errors[2].empty());
  EXPECT_NE(keyed.errors[3].find("not c, r, u or d"), std::string::npos) << keyed.errors[3];
  EXPECT_NE(keyed.errors[4].find("without \"before\""), std::string::npos) << keyed.errors[4];
  const col::Array& id = (*rows)[0];
  const col::Array& name = (*rows)[1];
  EXPECT_EQ(id.Value<int64_t>(0), 1);
  EXPECT_EQ(name.BinaryValue(0), "a");
  EXPECT_EQ(name.BinaryValue(1), "b");
  EXPECT_EQ(id.Value<int64_t>(2), 2);
  EXPECT_EQ(name.BinaryValue(2), "x");
  EXPECT_TRUE(id.IsNull(3));
  EXPECT_TRUE(id.IsNull(4));
}

TEST(RegistryCdcTest, CdcFieldOpsFollowTheDottedPath) {
  auto columns = Avro(R"({"type":"record","name":"R","fields":[{"name":"id","type":"long"},
      {"name":"meta","type":["null",{"type":"record","name":"M","fields":[
          {"name":"op","type":"string"}]}]}]})");
  FLOE_EXPECT_OK(CheckCdcField(columns, "meta.op"));
  EXPECT_FALSE(CheckCdcField(columns, "meta.kind").ok());
  EXPECT_FALSE(CheckCdcField(columns, "id").ok());  // not a string
  auto schema = *avro::Schema::Parse(R"({"type":"record","name":"R","fields":[
      {"name":"id","type":"long"},{"name":"meta","type":["null",{"type":"record","name":"M",
      "fields":[{"name":"op","type":"string"}]}]}]})");
  auto reader = avro::DatumReader::Make(*schema);
  FLOE_ASSERT_OK(reader);
  for (const std::string& datum : {Long(1) + Long(1) + Str("I"), Long(2) + Long(1) + Str("d"),
                                   Long(3) + Long(0), Long(4) + Long(1) + Str("?")}) {
    ByteReader in(
        std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(datum.data()), datum.size()));
    FLOE_ASSERT_OK((*reader)->Read(&in));
  }
  col::RecordBatch batch = (*reader)->Finish();
  KeyedRows keyed;
  FLOE_ASSERT_OK(CdcFieldOps(batch.columns(), {"id", "meta"}, "meta.op", 4, &keyed));
  EXPECT_EQ(keyed.ops, (std::vector<char>{kOpUpsert, kOpDelete, 0, 0}));
  EXPECT_FALSE(keyed.errors[2].empty());  // meta is null
  EXPECT_FALSE(keyed.errors[3].empty());
}

}  // namespace
}  // namespace floe::ingest
