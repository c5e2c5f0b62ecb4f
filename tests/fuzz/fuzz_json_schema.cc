// Fuzzes the schema registry's JSON Schema path with the input as a schema's text, as a
// client posts it (no credentials needed with auth off): depth-checked parsing, the columns
// a table topic would get, normalization and a compatibility check of the schema against
// itself. Everything must end in a Status or succeed.
//
// Seeds: tests/fuzz/corpus/fuzz_json_schema/ (objects, arrays, refs, combinators, a deep one).
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "floe/base/json.h"
#include "floe/ingest/registry_codec.h"
#include "floe/ingest/schema_compatibility.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  auto parsed = floe::ParseOrderedJson(text);
  if (parsed.ok()) (void)floe::ingest::JsonSchemaColumns(*parsed);
  auto normalized = floe::ingest::NormalizeSchema(floe::ingest::SchemaType::kJson, text, {});
  if (normalized.ok()) {
    std::vector<std::string> messages;
    (void)floe::ingest::CanRead(floe::ingest::SchemaType::kJson, *normalized, *normalized, {},
                                &messages);
  }
  return 0;
}
