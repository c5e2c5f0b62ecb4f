// Fuzzes Puffin footers and deletion vectors with one input read four ways:
//  1. as a Puffin file: footer, then every blob (bounded), deletion-vector blobs decoded;
//  2. as a footer payload: parsed JSON must write back to JSON that parses the same;
//  3. as a deletion-vector blob, and 4. as a bare 64-bit Roaring vector.
// Decoding must fail with a Status or succeed. A decoded vector must re-encode to bytes that
// decode to the same set, and its keep-bitmap must agree with Contains (a trap otherwise).
//
// Seeds: tests/fuzz/corpus/fuzz_puffin/ (Puffin files and DV blobs built from pyroaring).
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "floe/columnar/bitmap.h"
#include "floe/format/puffin/deletion_vector.h"
#include "floe/format/puffin/puffin.h"
#include "floe/io/memory_file_io.h"

namespace {

namespace puffin = floe::format::puffin;

void CheckVector(const puffin::PositionBitmap& positions) {
  if (positions.empty()) {
    if (positions.cardinality() != 0) __builtin_trap();
    return;
  }
  const uint64_t max = positions.Max();
  if (!positions.Contains(max) || positions.Contains(max + 1)) __builtin_trap();
  // The dense form Java writes costs 12 bytes per key up to the largest: skip huge keys.
  if ((max >> 32) < 4096) {
    floe::Buffer blob;
    puffin::SerializeDeletionVector(positions, &blob);
    auto again = puffin::DeserializeDeletionVector(blob.span(), positions.cardinality());
    if (!again.ok() || !(*again == positions)) __builtin_trap();
  }
  // A window around the largest position and one at the start.
  for (uint64_t first : {max > 3000 ? max - 3000 : 0, uint64_t{0}}) {
    constexpr uint64_t kRows = 4000;
    uint8_t keep[kRows / 8];
    uint64_t deleted = positions.FillKeepBitmap(first, kRows, keep);
    uint64_t count = 0;
    for (uint64_t i = 0; i < kRows; ++i) {
      const bool del = positions.Contains(first + i);
      count += del;
      if (floe::columnar::GetBit(keep, static_cast<int64_t>(i)) == del) __builtin_trap();
    }
    if (count != deleted) __builtin_trap();
  }
}

void FuzzFile(std::string_view bytes) {
  floe::io::MemoryFileIO io;
  io.Put("f.puffin", std::string(bytes));
  auto file = io.OpenInput("f.puffin");
  if (!file.ok()) __builtin_trap();
  puffin::PuffinReaderOptions options;
  options.max_footer_payload_bytes = 1 << 20;
  options.max_blob_bytes = 1 << 20;
  auto reader = puffin::PuffinReader::Open(**file, options);
  if (!reader.ok()) return;
  const auto& blobs = (*reader)->blobs();
  for (size_t i = 0; i < blobs.size() && i < 64; ++i) {
    auto content = (*reader)->ReadBlob(blobs[i]);
    if (!content.ok() || blobs[i].type != puffin::kDeletionVectorBlobType) continue;
    auto dv = puffin::DeserializeDeletionVector(content->span());
    auto direct = puffin::ReadDeletionVector(**file, blobs[i].offset, blobs[i].length, -1);
    if (!blobs[i].compression_codec && dv.ok() != direct.ok()) __builtin_trap();
    if (dv.ok()) CheckVector(*dv);
  }
  std::string json = puffin::FileMetadataToJson((*reader)->metadata());
  auto again = puffin::ParseFileMetadata(json);
  if (!again.ok() || !(*again == (*reader)->metadata())) __builtin_trap();
}

void FuzzFooterJson(std::string_view bytes) {
  auto metadata = puffin::ParseFileMetadata(bytes);
  if (!metadata.ok()) return;
  auto again = puffin::ParseFileMetadata(puffin::FileMetadataToJson(*metadata));
  if (!again.ok() || !(*again == *metadata)) __builtin_trap();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view input(reinterpret_cast<const char*>(data), size);
  FuzzFile(input);
  FuzzFooterJson(input);
  std::span<const uint8_t> bytes(data, size);
  auto dv = puffin::DeserializeDeletionVector(bytes);
  if (dv.ok()) CheckVector(*dv);
  auto vector = puffin::PositionBitmap::DeserializeVector(bytes);
  if (vector.ok()) CheckVector(*vector);
  return 0;
}
