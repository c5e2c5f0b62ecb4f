// Fuzzes the Iceberg manifest readers: the input is read as a manifest (with inheritance of
// sequence numbers and first_row_ids, with and without metrics) and as a manifest list.
// Reading must fail with a Status or succeed; anything read must write back as a manifest
// list (list entries) without error.
//
// Seeds: tests/fuzz/corpus/fuzz_manifest/ (manifests and lists of v1-v3 written by floe
// and pyiceberg).
#include <cstddef>
#include <cstdint>
#include <string>

#include "floe/iceberg/manifest_list.h"
#include "floe/iceberg/manifest_reader.h"
#include "floe/io/memory_file_io.h"

namespace {

namespace ice = floe::iceberg;

void ReadAsManifest(const floe::io::InputFile& file, bool stats) {
  ice::ManifestFile m;
  m.manifest_path = file.location();
  m.sequence_number = 4;
  m.added_snapshot_id = 9;
  m.first_row_id = 100;
  ice::ManifestReaderOptions options;
  options.read_stats = stats;
  options.max_file_bytes = 1 << 20;
  options.batch_rows = 64;
  auto reader = ice::ManifestReader::Open(file, m, options);
  if (!reader) return;
  for (int i = 0; i < 64; ++i) {
    auto entries = (*reader)->Next();
    if (!entries || entries->empty()) break;
  }
}

void ReadAsList(floe::io::MemoryFileIO& io, const floe::io::InputFile& file) {
  auto list = ice::ReadManifestList(file, {.max_file_bytes = 1 << 20});
  if (!list) return;
  auto out = io.CreateOutput("mem://out", true);
  if (!out) return;
  ice::ManifestListWriterOptions o;
  o.format_version = 2;
  auto w = ice::ManifestListWriter::Make(std::move(*out), o);
  if (!w) return;
  for (const ice::ManifestFile& m : *list) {
    ice::ManifestFile copy = m;
    copy.added_snapshot_id = 0;
    (void)(*w)->Add(copy);
  }
  (void)(*w)->Close();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  floe::io::MemoryFileIO io;
  io.Put("mem://in", std::string(reinterpret_cast<const char*>(data), size));
  auto file = io.OpenInput("mem://in");
  if (!file) return 0;
  ReadAsManifest(**file, true);
  ReadAsManifest(**file, false);
  ReadAsList(io, **file);
  return 0;
}
