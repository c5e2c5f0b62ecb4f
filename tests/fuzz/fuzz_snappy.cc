// Fuzzes floe's snappy decompressor differentially against libsnappy, the reference:
//  1. the input as a snappy block: both accept it with the same bytes, or both reject it;
//  2. the input as data: libsnappy's compressed form decodes back to it.
// Any disagreement, or a read or write outside the buffers (ASan), is a crash.
//
// Seeds: tests/fuzz/corpus/fuzz_snappy/ (hex, runs, text and int32 data compressed by
// pyarrow.compress(..., codec="snappy"), i.e. by libsnappy).
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>

#include <snappy.h>

#include "floe/format/compression/snappy_block.h"

namespace {

// Blocks claiming more than this are skipped (both decoders would allocate it first).
constexpr size_t kMaxLength = 1 << 20;

void Differential(const uint8_t* data, size_t size) {
  size_t length = 0;
  size_t preamble = 0;
  const bool ours_ok = floe::format::SnappyUncompressedLength({data, size}, &length, &preamble);
  size_t ref_length = 0;
  const bool ref_ok =
      snappy::GetUncompressedLength(reinterpret_cast<const char*>(data), size, &ref_length);
  if (ours_ok != ref_ok || (ours_ok && length != ref_length)) __builtin_trap();
  if (!ours_ok || length > kMaxLength) return;
  std::string ours(length, '\0');
  std::string ref(length, '\0');
  const bool a =
      floe::format::SnappyDecompress({data, size}, reinterpret_cast<uint8_t*>(ours.data()), length);
  const bool b = snappy::RawUncompress(reinterpret_cast<const char*>(data), size, ref.data());
  if (a != b || (a && ours != ref)) __builtin_trap();
}

void RoundTrip(const uint8_t* data, size_t size) {
  std::string block;
  snappy::Compress(reinterpret_cast<const char*>(data), size, &block);
  std::string out(size, '\0');
  if (!floe::format::SnappyDecompress(
          {reinterpret_cast<const uint8_t*>(block.data()), block.size()},
          reinterpret_cast<uint8_t*>(out.data()), size) ||
      std::memcmp(out.data(), data, size) != 0) {
    __builtin_trap();
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  Differential(data, size);
  RoundTrip(data, size);
  return 0;
}
