// Block compression codecs used by Parquet pages, Avro blocks and Kafka record batches.
// A Codec object holds reusable library contexts: create one per thread and reuse it.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string_view>

#include "floe/base/buffer.h"
#include "floe/base/status.h"

namespace floe::format {

enum class CompressionKind : uint8_t {
  kUncompressed,
  kSnappy,     // raw snappy block (Parquet, Avro adds its own CRC)
  kGzip,       // RFC 1952 gzip members; zlib (RFC 1950) streams are accepted on read
  kDeflate,    // raw RFC 1951 deflate (Avro "deflate")
  kZstd,       // one or more zstd frames
  kLz4Raw,     // one bare LZ4 block (Parquet LZ4_RAW)
  kLz4Hadoop,  // Hadoop framing: [u32 BE raw len][u32 BE compressed len][LZ4 block]...
  kLz4Frame,   // LZ4 frame format (Kafka)
};

std::string_view CompressionKindName(CompressionKind kind);
// Parses "none"/"uncompressed", "snappy", "gzip", "deflate", "zstd", "lz4"/"lz4_raw",
// "lz4_hadoop", "lz4_frame" (case-insensitive).
Result<CompressionKind> ParseCompressionKind(std::string_view name);

// Level meaning "the library's default".
inline constexpr int kDefaultCompressionLevel = INT32_MIN;

class Codec {
 public:
  virtual ~Codec() = default;

  // REQUIRES: level is kDefaultCompressionLevel or valid for the kind (gzip/deflate 1-12,
  // zstd 1-22, lz4 1-12); others are kInvalidArgument.
  static Result<std::unique_ptr<Codec>> Make(CompressionKind kind,
                                             int level = kDefaultCompressionLevel);

  virtual CompressionKind kind() const = 0;

  // Appends the compressed form of `in` to `out`.
  virtual Status Compress(std::span<const uint8_t> in, Buffer* out) = 0;

  // Appends the compressed form of the concatenation of `pieces` to `out`. Codecs that
  // can stream (snappy, zstd) compress the pieces in place; others concatenate first.
  virtual Status CompressPieces(std::span<const std::span<const uint8_t>> pieces, Buffer* out);

  // Decompresses `in`, which must expand to exactly `out_size` bytes, into `out`.
  // Malformed input or a size mismatch is kCorrupt.
  virtual Status Decompress(std::span<const uint8_t> in, uint8_t* out, size_t out_size) = 0;

  // Decompresses `in` of unknown expanded size, appending to `out`; more than
  // `max_size` bytes of output is kCorrupt (a bound against decompression bombs).
  virtual Status DecompressUnknownSize(std::span<const uint8_t> in, Buffer* out,
                                       size_t max_size) = 0;
};

}  // namespace floe::format
