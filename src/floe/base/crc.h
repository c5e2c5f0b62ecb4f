// Checksums: CRC-32C (Castagnoli; Kafka record batches) and CRC-32 (zlib polynomial;
// Parquet page CRCs, Avro snappy blocks).
#pragma once

#include <cstddef>
#include <cstdint>

namespace floe {

// Extends `crc` (0 to start) with `n` bytes. Uses SSE4.2 when the CPU has it.
uint32_t Crc32c(uint32_t crc, const void* data, size_t n);

// Extends `crc` (0 to start) with `n` bytes; same values as zlib's crc32().
uint32_t Crc32(uint32_t crc, const void* data, size_t n);

}  // namespace floe
