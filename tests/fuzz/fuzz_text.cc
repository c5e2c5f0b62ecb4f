// Fuzzes the JSON Lines and CSV readers against a fixed schema with every type the text
// forms cover. The first byte picks the reader and options; the rest is the file. Reading
// must fail with a Status or succeed; whatever reads must write back (JSON Lines and CSV)
// to text that reads to the same rows (a trap otherwise).
//
// Seeds: tests/fuzz/corpus/fuzz_text/.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "floe/columnar/json.h"
#include "floe/format/text/reader.h"
#include "floe/format/text/writer.h"
#include "floe/io/memory_file_io.h"

namespace {

namespace text = floe::format::text;
using namespace floe::columnar;  // NOLINT(google-build-using-namespace)

SchemaPtr FuzzSchema() {
  auto point = Struct({Field("x", Float64()), Field("y", Float32(), false)});
  return std::make_shared<Schema>(std::vector<Field>{
      Field("b", Bool()),
      Field("i", Int32(), false),
      Field("l", Int64()),
      Field("f", Float32()),
      Field("d", Float64()),
      Field("dec", Decimal128(20, 4)),
      Field("date", Date32()),
      Field("time", Time(TimeUnit::kMicro)),
      Field("ts", Timestamp(TimeUnit::kMicro, false)),
      Field("tstz", Timestamp(TimeUnit::kNano, true)),
      Field("s", String()),
      Field("bin", Binary()),
      Field("fx", FixedBinary(2)),
      Field("u", Uuid()),
      Field("st", Struct({Field("a", Int32()), Field("p", point)})),
      Field("li", List(Field("element", List(Field("element", String()))))),
      Field("ms", Map(Field("key", String()), Field("value", Int64()))),
      Field("mi", Map(Field("key", Date32()), Field("value", point))),
  });
}

std::string Lines(const RecordBatch& batch) {
  std::string out;
  for (int64_t i = 0; i < batch.num_rows(); ++i) AppendJsonLine(batch, i, &out);
  return out;
}

template <typename Reader>
std::string ReadLines(floe::io::MemoryFileIO& fio, const std::string& name, const SchemaPtr& schema,
                      const text::ReadOptions& options, bool* ok) {
  *ok = false;
  auto file = fio.OpenInput(name);
  if (!file.ok()) return {};
  auto reader = Reader::Open(std::move(*file), schema, options);
  if (!reader.ok()) return {};
  std::string out;
  while (true) {
    auto batch = (*reader)->Next();
    if (!batch.ok()) return {};
    if (!batch->has_value()) break;
    if (!(*batch)->Validate().ok()) __builtin_trap();
    out += Lines(**batch);
  }
  *ok = true;
  return out;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 1) return 0;
  static const SchemaPtr schema = FuzzSchema();
  const uint8_t mode = data[0];
  text::ReadOptions options;
  options.chunk_bytes = 4096;
  options.max_record_bytes = 1 << 16;
  options.batch_rows = 1 + (mode >> 4);
  options.max_depth = 16;
  options.case_insensitive = (mode & 2) != 0;
  options.ignore_unknown_fields = (mode & 4) != 0;
  options.header = (mode & 8) == 0;
  floe::io::MemoryFileIO fio;
  fio.Put("in", std::string(reinterpret_cast<const char*>(data + 1), size - 1));
  const bool csv = (mode & 1) != 0;
  bool ok;
  std::string lines = csv ? ReadLines<text::CsvReader>(fio, "in", schema, options, &ok)
                          : ReadLines<text::JsonLinesReader>(fio, "in", schema, options, &ok);
  if (!ok) return 0;

  // Round trip: the JSON lines read as JSON Lines, and again through CSV.
  fio.Put("rt.jsonl", lines);
  text::ReadOptions plain;
  plain.chunk_bytes = 4096;
  bool rt_ok;
  std::string again = ReadLines<text::JsonLinesReader>(fio, "rt.jsonl", schema, plain, &rt_ok);
  if (!rt_ok || again != lines) __builtin_trap();
  auto file = fio.OpenInput("rt.jsonl");
  auto reader = text::JsonLinesReader::Open(std::move(*file), schema, plain);
  if (!reader.ok()) __builtin_trap();
  auto out = fio.CreateOutput("rt.csv", true);
  if (!out.ok()) return 0;
  auto writer = text::CsvWriter::Make(out->get(), schema);
  if (!writer.ok()) __builtin_trap();
  while (true) {
    auto batch = (*reader)->Next();
    if (!batch.ok()) __builtin_trap();
    if (!batch->has_value()) break;
    if (!(*writer)->Write(**batch).ok()) __builtin_trap();
  }
  if (!(*out)->Close().ok()) return 0;
  std::string via_csv = ReadLines<text::CsvReader>(fio, "rt.csv", schema, plain, &rt_ok);
  if (!rt_ok || via_csv != lines) __builtin_trap();
  return 0;
}
