// Fuzzes the Parquet metadata decoders: FileMetaData (the footer), PageHeader,
// BloomFilterHeader, ColumnIndex and OffsetIndex are each parsed from the whole input.
// Parsing must fail with a Status or succeed; whatever parses must serialize, parse back to
// an equal value, and render as JSON and schema text.
//
// Seeds: tests/fuzz/corpus/fuzz_parquet_footer/, footers and index structs cut from the
// files in tests/data/parquet/.
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>

#include "floe/base/buffer.h"
#include "floe/format/parquet/metadata.h"
#include "floe/format/parquet/metadata_json.h"

namespace {

using namespace floe::format::parquet;  // NOLINT(google-build-using-namespace)

// Parses `in` into `*v` and returns whether it parsed. Traps, so that the fuzzer reports it,
// when a parsed value does not survive Serialize and Deserialize unchanged.
template <typename T>
bool ParseAndRoundTrip(std::span<const uint8_t> in, T* v) {
  size_t consumed = 0;
  if (!Deserialize(in, v, &consumed).ok()) return false;
  if (consumed > in.size()) __builtin_trap();
  floe::Buffer out;
  Serialize(*v, &out);
  T again;
  size_t again_consumed = 0;
  if (!Deserialize(out.span(), &again, &again_consumed).ok()) __builtin_trap();
  if (again_consumed != out.size() || !(again == *v)) __builtin_trap();
  return true;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::span<const uint8_t> in(data, size);
  FileMetaData md;
  if (ParseAndRoundTrip(in, &md)) {
    std::string json = FileMetaDataToJson(md, /*pretty=*/true);
    std::string text = SchemaToText(md);
    if (json.empty()) __builtin_trap();
    (void)text;
  }
  PageHeader page;
  ParseAndRoundTrip(in, &page);
  BloomFilterHeader bloom;
  ParseAndRoundTrip(in, &bloom);
  ColumnIndex column_index;
  ParseAndRoundTrip(in, &column_index);
  OffsetIndex offset_index;
  ParseAndRoundTrip(in, &offset_index);
  return 0;
}
