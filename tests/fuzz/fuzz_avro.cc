// Fuzzes the Avro decoders with one input read three ways:
//  1. up to the first NUL byte: schema JSON, parsed, written back, canonicalized and mapped
//     to columns; the bytes after the NUL are datums of that schema, decoded to columns;
//  2. the whole input as datums of a few fixed schemas (an Iceberg manifest entry, every
//     type, a recursive record skipped by a projection);
//  3. the whole input as an object container file.
// Decoding must fail with a Status or succeed. Whatever decodes must render as Avro JSON and
// encode back to bytes that decode to the same JSON (a trap otherwise).
//
// Seeds: tests/fuzz/corpus/fuzz_avro/ (fastavro and pyiceberg files, schemas with datums).
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "floe/base/bytes.h"
#include "floe/format/avro/columnar_schema.h"
#include "floe/format/avro/container.h"
#include "floe/format/avro/datum_reader.h"
#include "floe/format/avro/datum_writer.h"
#include "floe/format/avro/json_encoding.h"
#include "floe/format/avro/schema.h"
#include "floe/io/memory_file_io.h"

namespace {

namespace avro = floe::format::avro;

constexpr int kMaxDatums = 256;

const char* const kFixedSchemas[] = {
    R"({"type":"record","name":"manifest_entry","fields":[
      {"name":"status","type":"int","field-id":0},
      {"name":"snapshot_id","type":["null","long"],"default":null,"field-id":1},
      {"name":"data_file","type":{"type":"record","name":"r2","fields":[
        {"name":"file_path","type":"string","field-id":100},
        {"name":"partition","type":{"type":"record","name":"r102","fields":[
          {"name":"day","type":["null",{"type":"int","logicalType":"date"}],"field-id":1000}]},"field-id":102},
        {"name":"column_sizes","type":["null",{"type":"array","logicalType":"map","items":{"type":"record",
          "name":"k117_v118","fields":[{"name":"key","type":"int","field-id":117},
          {"name":"value","type":"long","field-id":118}]}}],"default":null,"field-id":108},
        {"name":"split_offsets","type":["null",{"type":"array","items":"long","element-id":133}],
          "default":null,"field-id":132}]},"field-id":2}]})",
    R"({"type":"record","name":"All","fields":[
      {"name":"n","type":"null"},{"name":"b","type":"boolean"},{"name":"i","type":"int"},
      {"name":"l","type":"long"},{"name":"f","type":"float"},{"name":"d","type":"double"},
      {"name":"by","type":"bytes"},{"name":"s","type":"string"},
      {"name":"e","type":{"type":"enum","name":"E","symbols":["A","B","C"]}},
      {"name":"fx","type":{"type":"fixed","name":"F","size":3}},
      {"name":"a","type":{"type":"array","items":["null","int"]}},
      {"name":"m","type":{"type":"map","values":{"type":"array","items":"string"}}},
      {"name":"u","type":["null","int","string","E","F",{"type":"record","name":"R","fields":[{"name":"x","type":"long"}]}]},
      {"name":"db","type":{"type":"bytes","logicalType":"decimal","precision":38,"scale":2}},
      {"name":"df","type":{"type":"fixed","name":"D","size":9,"logicalType":"decimal","precision":20}},
      {"name":"uu","type":{"type":"fixed","name":"U","size":16,"logicalType":"uuid"}},
      {"name":"ts","type":{"type":"long","logicalType":"timestamp-micros"}}]})",
    R"("long")",
};

// Reads datums of `writer` from `in` (as `reader` when given): renders what decodes, encodes
// it, and checks that the encoding decodes to the same JSON.
void DecodeDatums(const avro::Schema& writer, floe::ByteReader in,
                  const avro::Schema* reader = nullptr, std::vector<std::string> columns = {}) {
  avro::DatumReaderOptions options;
  options.reader_schema = reader;
  options.columns = std::move(columns);
  auto dr = avro::DatumReader::Make(writer, options);
  if (!dr.ok()) return;
  (*dr)->set_zero_size_budget(1 << 16);
  for (int i = 0; i < kMaxDatums && !in.empty(); ++i) {
    if (!(*dr)->Read(&in).ok()) return;
  }
  floe::columnar::RecordBatch batch = (*dr)->Finish();
  if (!batch.Validate().ok()) __builtin_trap();
  if (reader != nullptr || !options.columns.empty()) return;
  std::string json;
  for (int64_t row = 0; row < batch.num_rows(); ++row) {
    if (!avro::AppendJsonLine(writer, batch, row, &json).ok()) __builtin_trap();
  }
  auto dw = avro::DatumWriter::Make(writer, *batch.schema());
  if (!dw.ok()) __builtin_trap();
  floe::Buffer encoded;
  for (int64_t row = 0; row < batch.num_rows(); ++row) {
    if (!(*dw)->Write(batch, row, &encoded).ok()) __builtin_trap();
  }
  auto again = avro::DatumReader::Make(writer);
  if (!again.ok()) __builtin_trap();
  (*again)->set_zero_size_budget(1 << 16);
  floe::ByteReader re(encoded.span());
  for (int64_t row = 0; row < batch.num_rows(); ++row) {
    if (!(*again)->Read(&re).ok()) __builtin_trap();
  }
  if (!re.empty()) __builtin_trap();
  floe::columnar::RecordBatch second = (*again)->Finish();
  std::string json2;
  for (int64_t row = 0; row < second.num_rows(); ++row) {
    if (!avro::AppendJsonLine(writer, second, row, &json2).ok()) __builtin_trap();
  }
  if (json != json2) __builtin_trap();
}

void FuzzSchema(std::string_view text, floe::ByteReader datums) {
  for (bool strict : {false, true}) {
    avro::ParseOptions options;
    options.strict = strict;
    auto schema = avro::Schema::Parse(text, options);
    if (!schema.ok()) continue;
    std::string json = (*schema)->ToJson();
    auto again = avro::Schema::Parse(json, options);
    if (!again.ok() || (*again)->ToJson() != json) __builtin_trap();
    if ((*again)->CanonicalForm() != (*schema)->CanonicalForm()) __builtin_trap();
    (void)(*schema)->Fingerprint64();
    for (const auto& f : (*schema)->root().fields()) {
      if (!f.default_json()) continue;
      floe::Buffer scratch;
      (void)avro::EncodeDefaultValue(f.type(), *f.default_json(), &scratch);
    }
    if (!strict) DecodeDatums(**schema, datums);
  }
}

void FuzzContainer(std::string_view bytes) {
  floe::io::MemoryFileIO io;
  io.Put("f.avro", std::string(bytes));
  for (bool metadata_only : {false, true}) {
    auto file = io.OpenInput("f.avro");
    if (!file.ok()) __builtin_trap();
    avro::ContainerReaderOptions options;
    options.metadata_only = metadata_only;
    options.max_block_bytes = 1 << 20;
    options.batch_rows = 64;
    auto reader = avro::ContainerReader::Open(std::move(*file), options);
    if (!reader.ok()) continue;
    (void)(*reader)->writer_schema()->ToJson();
    for (int i = 0; i < 1000; ++i) {
      if (metadata_only) {
        auto info = (*reader)->NextBlockInfo();
        if (!info.ok() || !*info) break;
        continue;
      }
      auto batch = (*reader)->Next();
      if (!batch.ok() || !*batch) break;
      std::string json;
      for (int64_t row = 0; row < (*batch)->num_rows(); ++row) {
        if (!avro::AppendJsonLine(*(*reader)->writer_schema(), **batch, row, &json).ok()) {
          __builtin_trap();
        }
      }
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view input(reinterpret_cast<const char*>(data), size);
  size_t nul = input.find('\0');
  if (nul != std::string_view::npos) {
    FuzzSchema(input.substr(0, nul), floe::ByteReader(data + nul + 1, size - nul - 1));
  } else {
    FuzzSchema(input, floe::ByteReader());
  }

  static const auto* fixed = [] {
    auto* schemas = new std::vector<avro::SchemaPtr>();
    for (const char* json : kFixedSchemas) schemas->push_back(*avro::Schema::Parse(json));
    return schemas;
  }();
  for (const auto& schema : *fixed) DecodeDatums(*schema, floe::ByteReader(data, size));

  // A recursive writer record read through a reader that drops the recursive field: the
  // decoder skips arbitrarily deep values without materializing them.
  static const auto* recursive = new avro::SchemaPtr(*avro::Schema::Parse(
      R"({"type":"record","name":"L","fields":[{"name":"v","type":"int"},
          {"name":"next","type":["null","L"]},{"name":"tail","type":"string"}]})"));
  static const auto* projected = new avro::SchemaPtr(*avro::Schema::Parse(
      R"({"type":"record","name":"L","fields":[{"name":"v","type":"long"},
          {"name":"tail","type":"bytes"}]})"));
  DecodeDatums(**recursive, floe::ByteReader(data, size), projected->get());

  FuzzContainer(input);
  return 0;
}
