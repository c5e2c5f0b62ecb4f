// Fuzzes the whole Parquet read path: footer, schema, page headers, decompression, level
// and value decoding, record assembly, Bloom filters. Any input must yield a clean
// Status, never a crash, hang or unbounded allocation.
#include <cstddef>
#include <cstdint>
#include <string>

#include "floe/columnar/json.h"
#include "floe/format/parquet/file_reader.h"
#include "floe/io/memory_file_io.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace floe;
  io::MemoryFileIO fio;
  fio.Put("mem://fuzz.parquet", std::string(reinterpret_cast<const char*>(data), size));
  auto file = fio.OpenInput("mem://fuzz.parquet");
  if (!file.ok()) return 0;
  auto reader = format::parquet::FileReader::Open(std::move(*file));
  if (!reader.ok()) return 0;
  const auto& r = **reader;
  const auto projection = r.schema().ProjectAll();
  for (int rg = 0; rg < r.num_row_groups(); ++rg) {
    auto batch = r.ReadRowGroup(rg, projection);
    if (batch.ok()) {
      // Batches that decode must be well-formed and printable.
      if (!batch->Validate().ok()) __builtin_trap();
      std::string out;
      for (int64_t i = 0; i < batch->num_rows() && i < 64; ++i) {
        columnar::AppendJsonLine(*batch, i, &out);
      }
    }
    for (int leaf = 0; leaf < r.schema().num_leaves(); ++leaf) {
      (void)r.ReadBloomFilter(rg, leaf);
    }
  }
  return 0;
}
