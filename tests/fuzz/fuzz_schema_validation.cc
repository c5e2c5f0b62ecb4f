// Fuzzes produce-time schema validation (ingest/schema_validation.h) with the input as one
// produced batch, what any client may send to a topic with validation on: records framed
// as [2-byte big-endian length][bytes], alternately keys and values, checked in payload
// mode against an Avro, a Protobuf and a JSON Schema schema (ids 1-3) under the topic's
// subjects. Every record must end in a refusal or pass, without crashing or hanging.
//
// Seeds: tests/fuzz/corpus/fuzz_schema_validation/ (one valid record of each type, a bad
// header, truncated payloads).
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "floe/ingest/schema_registry.h"
#include "floe/ingest/schema_validation.h"

namespace {

using floe::ingest::SchemaRegistry;
using floe::ingest::SchemaType;

// The registry and validator are built once: the fuzzer runs millions of inputs.
struct Fixture {
  std::unique_ptr<SchemaRegistry> registry;
  std::unique_ptr<floe::kafka::RecordValidator> validator;

  Fixture() {
    registry = std::move(*SchemaRegistry::Open(""));
    (void)registry->SetCompatibility("", floe::ingest::Compatibility::kNone);
    for (const char* subject : {"fuzz-value", "fuzz-key"}) {
      (void)registry->Register(subject, SchemaType::kAvro,
                               R"({"type": "record", "name": "R", "fields": [
                                   {"name": "id", "type": "long"},
                                   {"name": "s", "type": ["null", "string"]},
                                   {"name": "xs", "type": {"type": "array", "items": "double"}},
                                   {"name": "m", "type": {"type": "map", "values": "int"}}]})",
                               {});
      (void)registry->Register(subject, SchemaType::kProtobuf,
                               "syntax = \"proto3\"; package f;\n"
                               "message P { int64 a = 1; string b = 2; repeated int32 c = 3;\n"
                               "  message Q { bytes d = 1; } Q q = 4; }\n",
                               {});
      (void)registry->Register(subject, SchemaType::kJson,
                               R"({"type": "object", "required": ["a"], "properties": {
                                   "a": {"type": "integer"}, "b": {"enum": ["x", "y"]},
                                   "c": {"type": "array", "items": {"$ref": "#/$defs/c"}}},
                                   "$defs": {"c": {"anyOf": [{"type": "string"},
                                                             {"type": "null"}]}}})",
                               {});
    }
    floe::ingest::SchemaValidationConfig config;
    config.value.mode = floe::ingest::ValidationMode::kPayload;
    config.key.mode = floe::ingest::ValidationMode::kPayload;
    config.key.strategy = floe::ingest::SubjectNameStrategy::kRecordName;
    validator = floe::ingest::SchemaValidator::Make(registry.get(), "fuzz", config);
  }
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static Fixture* fixture = new Fixture();
  std::vector<floe::kafka::RecordView> records;
  size_t pos = 0;
  bool key = true;
  while (pos + 2 <= size) {
    const size_t n = (size_t{data[pos]} << 8) | data[pos + 1];
    pos += 2;
    const std::span<const uint8_t> bytes(data + pos, std::min(n, size - pos));
    pos += bytes.size();
    if (key) {
      records.emplace_back().key = bytes;
    } else {
      records.back().value = bytes;
    }
    key = !key;
  }
  std::vector<floe::kafka::RecordError> errors;
  fixture->validator->Validate(records, &errors);
  return 0;
}
