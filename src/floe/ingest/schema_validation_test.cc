// Produce-time schema validation: the configs and their aliases, the subject-name
// strategies, and the validator over an in-memory registry. Expected bytes follow the Avro
// specification ("Binary Encoding"), the Protocol Buffers encoding and the Confluent wire
// format (magic 0, big-endian schema id, Protobuf message indexes).
#include "floe/ingest/schema_validation.h"

#include <gtest/gtest.h>

#include "floe/base/json.h"
#include "floe/base/testing.h"

namespace floe::ingest {
namespace {

using Configs = std::map<std::string, std::string>;

TEST(SchemaValidationConfig, FloeNamesAndAliases) {
  FLOE_ASSERT_OK_AND_ASSIGN(SchemaValidationConfig none, ParseSchemaValidationConfig({}));
  EXPECT_FALSE(none.enabled());

  FLOE_ASSERT_OK_AND_ASSIGN(
      SchemaValidationConfig c,
      ParseSchemaValidationConfig(
          {{"floe.table.topic.value.validation", "payload"},
           {"floe.table.topic.key.validation", "schema_id"},
           {"floe.table.topic.key.subject.name.strategy", "RecordNameStrategy"}}));
  EXPECT_EQ(c.value.mode, ValidationMode::kPayload);
  EXPECT_EQ(c.value.strategy, SubjectNameStrategy::kTopicName);
  EXPECT_EQ(c.key.mode, ValidationMode::kSchemaId);
  EXPECT_EQ(c.key.strategy, SubjectNameStrategy::kRecordName);

  FLOE_ASSERT_OK_AND_ASSIGN(c,
                            ParseSchemaValidationConfig(
                                {{"confluent.value.schema.validation", "true"},
                                 {"confluent.value.subject.name.strategy",
                                  "io.confluent.kafka.serializers.subject.TopicRecordNameStrategy"},
                                 {"redpanda.key.schema.id.validation", "true"},
                                 {"redpanda.key.subject.name.strategy", "RecordNameStrategy"}}));
  EXPECT_EQ(c.value.mode, ValidationMode::kSchemaId);
  EXPECT_EQ(c.value.strategy, SubjectNameStrategy::kTopicRecordName);
  EXPECT_EQ(c.key.mode, ValidationMode::kSchemaId);
  EXPECT_EQ(c.key.strategy, SubjectNameStrategy::kRecordName);

  // Agreeing spellings are fine; contradicting ones, unknown values and a record name
  // strategy without a header are not.
  EXPECT_FALSE(ValidateSchemaValidationConfigs({{"floe.table.topic.value.validation", "payload"},
                                                {"redpanda.value.schema.id.validation", "true"}}));
  for (const Configs& bad : std::vector<Configs>{
           {{"floe.table.topic.value.validation", "strict"}},
           {{"floe.table.topic.value.validation", "none"},
            {"confluent.value.schema.validation", "true"}},
           {{"confluent.value.schema.validation", "true"},
            {"redpanda.value.schema.id.validation", "false"}},
           {{"floe.table.topic.value.subject.name.strategy", "TopicNameStrategy"},
            {"confluent.value.subject.name.strategy", "RecordNameStrategy"}},
           {{"redpanda.key.subject.name.strategy", "NoSuchStrategy"}},
           {{"floe.table.topic.value.validation", "payload"},
            {"floe.table.topic.convert.value.type", "by_latest_schema"},
            {"floe.table.topic.value.subject.name.strategy", "RecordNameStrategy"}},
       }) {
    EXPECT_TRUE(ValidateSchemaValidationConfigs(bad).has_value()) << bad.begin()->first;
  }
}

TEST(SchemaValidationConfig, SubjectNames) {
  EXPECT_EQ(SubjectName(SubjectNameStrategy::kTopicName, "orders", false, "a.B"), "orders-value");
  EXPECT_EQ(SubjectName(SubjectNameStrategy::kTopicName, "orders", true, "a.B"), "orders-key");
  EXPECT_EQ(SubjectName(SubjectNameStrategy::kRecordName, "orders", false, "a.B"), "a.B");
  EXPECT_EQ(SubjectName(SubjectNameStrategy::kTopicRecordName, "orders", false, "a.B"),
            "orders-a.B");
}

Status CheckJson(std::string_view schema, std::string_view value) {
  auto s = ParseJson(schema);
  auto v = ParseJson(value);
  EXPECT_TRUE(s.ok() && v.ok());
  return CheckJsonSchemaValue(*v, *s, *s);
}

TEST(JsonSchemaValue, TypesRequiredEnumsFormats) {
  const std::string schema = R"({
    "title": "Order", "type": "object", "required": ["id", "item"],
    "properties": {
      "id": {"type": "integer"}, "item": {"type": "string"},
      "size": {"enum": ["S", "M", "L"]},
      "day": {"type": "string", "format": "date"},
      "tags": {"type": "array", "items": {"type": "string"}},
      "note": {"type": ["null", "string"]},
      "ship": {"$ref": "#/definitions/Ship"}},
    "definitions": {"Ship": {"type": "object", "required": ["city"],
                             "properties": {"city": {"type": "string"}}}}})";
  FLOE_EXPECT_OK(CheckJson(schema, R"({"id": 1, "item": "tea", "size": "M", "day": "2024-02-29",
                                       "tags": ["a"], "note": null, "ship": {"city": "Oslo"}})"));
  FLOE_EXPECT_OK(CheckJson(schema, R"({"id": 2.0, "item": "tea", "extra": true})"));
  auto message = [&](std::string_view value) {
    Status s = CheckJson(schema, value);
    EXPECT_FALSE(s.ok()) << value;
    return std::string(s.message());
  };
  EXPECT_EQ(message(R"({"item": "tea"})"), "field 'id': required, missing");
  EXPECT_EQ(message(R"({"id": "1", "item": "tea"})"), "field 'id': expected integer, got string");
  EXPECT_EQ(message(R"({"id": 1.5, "item": "tea"})"), "field 'id': expected integer, got number");
  EXPECT_NE(message(R"({"id": 1, "item": "tea", "size": "XL"})").find("field 'size'"),
            std::string::npos);
  EXPECT_NE(message(R"({"id": 1, "item": "tea", "day": "2024-02-30"})").find("not a date"),
            std::string::npos);
  EXPECT_EQ(message(R"({"id": 1, "item": "tea", "tags": ["a", 2]})"),
            "field 'tags[1]': expected string, got integer");
  EXPECT_EQ(message(R"({"id": 1, "item": "tea", "ship": {}})"),
            "field 'ship.city': required, missing");
  EXPECT_EQ(message(R"([1])"), "the value: expected object, got array");
  EXPECT_NE(message(R"({"id": 1, "item": "tea", "ship": {"$ref": 1}, "x": 1})").size(), 0u);
}

// The Confluent wire format of `payload` under schema `id`.
std::string Framed(int32_t id, std::string_view payload) {
  std::string out(1, '\0');
  for (int shift = 24; shift >= 0; shift -= 8) out += static_cast<char>((id >> shift) & 0xff);
  out += payload;
  return out;
}

class SchemaValidatorTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto r = SchemaRegistry::Open("");
    FLOE_ASSERT_OK(r);
    registry_ = std::move(*r);
  }
  int32_t Register(const std::string& subject, SchemaType type, const std::string& schema) {
    auto id = registry_->Register(subject, type, schema, {});
    EXPECT_TRUE(id.ok()) << id.status().ToString();
    return id.value_or(0);
  }
  std::unique_ptr<kafka::RecordValidator> Make(const Configs& configs) {
    auto config = ParseSchemaValidationConfig(configs);
    EXPECT_TRUE(config.ok());
    return SchemaValidator::Make(registry_.get(), "orders", *config);
  }
  // The errors for one batch of values (keys null unless given).
  static std::vector<kafka::RecordError> Run(
      kafka::RecordValidator& v, const std::vector<std::optional<std::string>>& values,
      const std::vector<std::optional<std::string>>& keys = {}) {
    std::vector<kafka::RecordView> views(values.size());
    auto span = [](const std::optional<std::string>& s) -> std::optional<std::span<const uint8_t>> {
      if (!s) return std::nullopt;
      return std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(s->data()), s->size());
    };
    for (size_t i = 0; i < values.size(); ++i) {
      views[i].value = span(values[i]);
      if (i < keys.size()) views[i].key = span(keys[i]);
    }
    std::vector<kafka::RecordError> errors;
    v.Validate(views, &errors);
    return errors;
  }
  std::unique_ptr<SchemaRegistry> registry_;
};

constexpr const char* kReading = R"({"type": "record", "name": "Reading", "namespace": "floe.t",
  "fields": [{"name": "id", "type": "long"},
             {"name": "temp", "type": ["null", "double"], "default": null}]})";

TEST_F(SchemaValidatorTest, SchemaIdModeChecksHeaderIdAndSubject) {
  const int32_t id = Register("orders-value", SchemaType::kAvro, kReading);
  const int32_t other = Register("other-value", SchemaType::kAvro,
                                 R"({"type": "record", "name": "Other", "fields": []})");
  EXPECT_EQ(Make({}), nullptr);
  auto v = Make({{"confluent.value.schema.validation", "true"}});
  ASSERT_NE(v, nullptr);
  // id 1 = long 1 (zig-zag 0x02), temp = union branch 0 (null).
  const std::string good = Framed(id, std::string("\x02\x00", 2));
  auto errors = Run(*v, {good, std::nullopt, std::string("{\"id\": 1}"), std::string("\0\0", 2),
                         Framed(9999, "x"), Framed(other, ""), Framed(-1, ""),
                         Framed(id, "garbage is not checked in schema_id mode")});
  ASSERT_EQ(errors.size(), 5u);
  EXPECT_EQ(errors[0].batch_index, 2);
  EXPECT_EQ(errors[0].reason, "no_schema_id");
  EXPECT_EQ(errors[1].batch_index, 3);
  EXPECT_EQ(errors[1].reason, "no_schema_id");
  EXPECT_EQ(errors[2].batch_index, 4);
  EXPECT_EQ(errors[2].reason, "unknown_schema_id");
  EXPECT_EQ(errors[2].message, "the value's schema id 9999 is not registered");
  EXPECT_EQ(errors[3].reason, "subject_mismatch");
  EXPECT_NE(errors[3].message.find("'orders-value'"), std::string::npos);
  EXPECT_NE(errors[3].message.find("'other-value'"), std::string::npos);
  EXPECT_EQ(errors[4].reason, "unknown_schema_id");  // 0xffffffff

  // A soft delete takes the id off the subject at once (no stale cache).
  FLOE_ASSERT_OK(registry_->DeleteSubject("orders-value", false));
  errors = Run(*v, {good});
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_EQ(errors[0].reason, "subject_mismatch");
}

TEST_F(SchemaValidatorTest, RecordNameStrategies) {
  const int32_t id = Register("floe.t.Reading", SchemaType::kAvro, kReading);
  auto record = Make({{"redpanda.value.schema.id.validation", "true"},
                      {"redpanda.value.subject.name.strategy", "RecordNameStrategy"}});
  EXPECT_TRUE(Run(*record, {Framed(id, "")}).empty());
  auto topic_record =
      Make({{"floe.table.topic.value.validation", "schema_id"},
            {"floe.table.topic.value.subject.name.strategy", "TopicRecordNameStrategy"}});
  auto errors = Run(*topic_record, {Framed(id, "")});
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_NE(errors[0].message.find("'orders-floe.t.Reading'"), std::string::npos);
  Register("orders-floe.t.Reading", SchemaType::kAvro, kReading);
  EXPECT_TRUE(Run(*topic_record, {Framed(id, "")}).empty());
}

TEST_F(SchemaValidatorTest, PayloadModeDecodesAvroProtobufAndJson) {
  const int32_t avro = Register("orders-value", SchemaType::kAvro, kReading);
  auto v = Make({{"floe.table.topic.value.validation", "payload"}});
  auto errors = Run(*v, {Framed(avro, std::string("\x02\x00", 2)),
                         Framed(avro, std::string("\x02", 1)),          // temp missing
                         Framed(avro, std::string("\x02\x02\x00", 3)),  // double cut short
                         Framed(avro, std::string("\x02\x00\x00", 3)),  // a byte after it
                         Framed(avro, std::string("\x04\x00", 2))});
  ASSERT_EQ(errors.size(), 3u);
  EXPECT_EQ(errors[0].batch_index, 1);
  EXPECT_EQ(errors[0].reason, "invalid_payload");
  EXPECT_EQ(errors[1].batch_index, 2);
  EXPECT_EQ(errors[2].batch_index, 3);
  EXPECT_NE(errors[0].message.find("AVRO schema id"), std::string::npos) << errors[0].message;

  // Protobuf: message indexes first ([0] as the single byte 0), then the message.
  FLOE_ASSERT_OK(registry_->SetCompatibility("orders-value", Compatibility::kNone));
  const int32_t proto = Register("orders-value", SchemaType::kProtobuf,
                                 "syntax = \"proto3\";\npackage floe.t;\n"
                                 "message Reading { int64 id = 1; string name = 2; }\n");
  const std::string msg = std::string("\x08\x01\x12\x02hi", 6);
  errors = Run(*v, {Framed(proto, std::string(1, '\0') + msg),
                    Framed(proto, std::string(1, '\0') + std::string("\x12\x05hi", 4)),
                    Framed(proto, std::string("\x02\x0a", 2) + msg),  // indexes [5]: no such
                    Framed(proto, std::string("\x02", 1))});          // indexes cut short
  ASSERT_EQ(errors.size(), 3u);
  EXPECT_EQ(errors[0].batch_index, 1);
  EXPECT_EQ(errors[1].batch_index, 2);
  EXPECT_EQ(errors[2].batch_index, 3);

  const int32_t json = Register(
      "orders-value", SchemaType::kJson,
      R"({"type": "object", "required": ["id"], "properties": {"id": {"type": "integer"}}})");
  errors = Run(*v, {Framed(json, R"({"id": 7})"), Framed(json, R"({"name": "x"})"),
                    Framed(json, "{not json")});
  ASSERT_EQ(errors.size(), 2u);
  EXPECT_NE(errors[0].message.find("field 'id': required, missing"), std::string::npos);
  EXPECT_EQ(errors[1].batch_index, 2);
}

TEST_F(SchemaValidatorTest, KeysAndLatestSchema) {
  auto v = Make({{"floe.table.topic.key.validation", "payload"},
                 {"floe.table.topic.convert.key.type", "by_latest_schema"}});
  // No schema under orders-key yet: every non-null key is refused, null keys pass.
  auto errors =
      Run(*v, {std::string("v"), std::string("v")}, {std::string("\x02\x00", 2), std::nullopt});
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_EQ(errors[0].reason, "no_schema");
  Register("orders-key", SchemaType::kAvro, kReading);
  errors = Run(*v, {std::string("v"), std::string("v")},
               {std::string("\x02\x00", 2), std::string("\x02", 1)});
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_EQ(errors[0].batch_index, 1);
  EXPECT_EQ(errors[0].reason, "invalid_payload");
}

TEST(JsonSchemaValue, ExplosiveSchemasAreBounded) {
  // Every level doubles the walk: 2^64 steps without a budget.
  auto schema = ParseJson(R"({"anyOf": [{"$ref": "#"}, {"$ref": "#"}]})");
  ASSERT_TRUE(schema.ok());
  auto value = ParseJson("1");
  Status s = CheckJsonSchemaValue(*value, *schema, *schema, 10'000);
  EXPECT_FALSE(s.ok());
}

TEST_F(SchemaValidatorTest, HostileRecordsGetCleanRefusals) {
  const int32_t zeros = Register("orders-value", SchemaType::kAvro,
                                 R"({"type": "record", "name": "Z", "fields": [
                   {"name": "a", "type": {"type": "array",
                                          "items": {"type": "fixed", "name": "F", "size": 0}}}]})");
  auto v = Make({{"floe.table.topic.value.validation", "payload"}});
  // A block of 2^41 empty fixeds takes no bytes: refused, at once, not looped over.
  std::string huge = "\x80\x80\x80\x80\x80\x80\x01";  // varint 2^42: zig-zag 2^41
  huge += std::string(1, '\0');
  auto errors = Run(*v, {Framed(zeros, huge), Framed(zeros, std::string("\x04\x00", 2)),
                         std::string(), std::string(4, '\0'), Framed(zeros, "")});
  ASSERT_EQ(errors.size(), 4u);
  EXPECT_EQ(errors[0].batch_index, 0);
  EXPECT_EQ(errors[0].reason, "invalid_payload");
  // Record 1, two empty fixeds, is fine: the refused block's count did not use the budget.
  EXPECT_EQ(errors[1].batch_index, 2);  // empty: no header
  EXPECT_EQ(errors[1].reason, "no_schema_id");
  EXPECT_EQ(errors[2].batch_index, 3);  // 4 bytes: no header
  EXPECT_EQ(errors[3].batch_index, 4);  // no datum at all

  // A message quoting the client's bytes stays bounded and valid UTF-8.
  FLOE_ASSERT_OK(registry_->SetCompatibility("orders-value", Compatibility::kNone));
  const int32_t json = Register("orders-value", SchemaType::kJson,
                                R"({"type": "object", "properties": {"s": {"enum": ["a"]}}})");
  errors = Run(*v, {Framed(json, "{\"s\": \"" + std::string(100'000, 'x') + "\"}")});
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_LE(errors[0].message.size(), 403u);
  EXPECT_TRUE(errors[0].message.ends_with("..."));
}

TEST_F(SchemaValidatorTest, NoRegistryRefusesCheckedRecords) {
  auto config = ParseSchemaValidationConfig({{"confluent.value.schema.validation", "true"}});
  auto v = SchemaValidator::Make(nullptr, "orders", *config);
  EXPECT_EQ(Run(*v, {std::string("x"), std::nullopt}).size(), 1u);
}

}  // namespace
}  // namespace floe::ingest
