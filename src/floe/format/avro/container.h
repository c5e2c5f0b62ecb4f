// Avro Object Container Files (spec, "Object Container Files"): a header (magic "Obj\1",
// a metadata map holding avro.schema and avro.codec, a 16-byte sync marker) and blocks of
// (record count, byte size, data compressed by the codec, sync marker).
//
// ContainerReader reads one block at a time through io::InputFile, so memory is bounded
// by a block (and by ContainerReaderOptions' limits), and decodes it into RecordBatches.
// ContainerWriter encodes RecordBatches into blocks of about a target size and writes
// them to an io::OutputStream.
//
// Codecs: null, deflate (raw RFC 1951), snappy (raw block + big-endian CRC-32 of the
// uncompressed data), zstandard. Files naming another codec (bzip2, xz) open for
// inspection but decoding them is kUnimplemented.
//
// Thread-safety: a reader or writer is used by one thread at a time.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "floe/base/buffer.h"
#include "floe/base/bytes.h"
#include "floe/base/status.h"
#include "floe/columnar/array.h"
#include "floe/format/avro/schema.h"
#include "floe/format/compression/codec.h"
#include "floe/io/file_io.h"

namespace floe::format::avro {

class DatumReader;
class DatumWriter;

enum class AvroCodec : uint8_t { kNull, kDeflate, kSnappy, kZstandard };

// The avro.codec name: "null", "deflate", "snappy", "zstandard".
std::string_view AvroCodecName(AvroCodec codec);
// Parses an avro.codec name; a codec floe does not implement is kUnimplemented naming it.
Result<AvroCodec> ParseAvroCodec(std::string_view name);

using SyncMarker = std::array<uint8_t, 16>;
// File metadata entries in file order; values are the raw bytes.
using FileMetadata = std::vector<std::pair<std::string, std::string>>;

inline constexpr std::string_view kSchemaKey = "avro.schema";
inline constexpr std::string_view kCodecKey = "avro.codec";

// Parsed writer schemas by their JSON text, for readers of many files written alike
// (manifests: every manifest of a table spec carries the same few-KB schema). Not
// thread-safe: one per reading thread.
class SchemaCache {
 public:
  // Schema::Parse(json, {.validate_names = false}), parsed once per distinct text.
  Result<SchemaPtr> Parse(const std::string& json);

 private:
  std::unordered_map<std::string, SchemaPtr> parsed_;
};

struct ContainerReaderOptions {
  // Where the writer schema is parsed; null: parsed for this file alone.
  SchemaCache* schema_cache = nullptr;
  // Read the data as this schema (spec, "Schema Resolution"); null: as written.
  SchemaPtr reader_schema;
  // Top-level fields to produce (empty: all).
  std::vector<std::string> columns;
  // Rows per batch at most; a block larger than this is returned in several batches.
  int64_t batch_rows = 64 * 1024;
  // Largest block, compressed or decompressed, and largest header accepted.
  size_t max_block_bytes = size_t{256} << 20;
  size_t max_header_bytes = size_t{64} << 20;
  // Only read the header and walk blocks (NextBlockInfo); Next() is unavailable, and the
  // schema need not have a columnar form nor the codec be implemented.
  bool metadata_only = false;
};

// A block as found in the file, without decoding it.
struct BlockInfo {
  uint64_t offset = 0;       // of the block's record count
  uint64_t data_offset = 0;  // of its data
  int64_t record_count = 0;
  int64_t size_bytes = 0;  // of the (compressed) data
};

class ContainerReader {
 public:
  // Reads and checks the header. Not an Avro file, a malformed header or an invalid
  // avro.schema is kCorrupt; an unimplemented codec kUnimplemented (unless metadata_only).
  static Result<std::unique_ptr<ContainerReader>> Open(std::unique_ptr<io::InputFile> file,
                                                       ContainerReaderOptions options = {});
  ~ContainerReader();

  const SchemaPtr& writer_schema() const { return writer_schema_; }
  // The avro.codec value ("null" when absent).
  const std::string& codec_name() const { return codec_name_; }
  // Every header metadata entry, avro.* included, in file order.
  const FileMetadata& metadata() const { return metadata_; }
  // The value of a metadata key, or nullptr.
  const std::string* FindMetadata(std::string_view key) const;
  const SyncMarker& sync_marker() const { return sync_; }
  uint64_t header_size() const { return header_size_; }
  // The columns Next() produces. REQUIRES: !metadata_only.
  const columnar::SchemaPtr& schema() const;

  // The next batch of rows, or nullopt after the last block. Malformed blocks (sizes or
  // counts beyond the data, a wrong sync marker, a bad snappy CRC, trailing bytes) are
  // kCorrupt naming the block's offset. After an error every call returns it again.
  Result<std::optional<columnar::RecordBatch>> Next();

  // The next block's header, after checking its bounds and sync marker, without reading
  // its data; nullopt at the end. Do not mix with Next().
  Result<std::optional<BlockInfo>> NextBlockInfo();

 private:
  ContainerReader() = default;
  Status ReadHeader();
  Status ParseHeader(ByteReader& in);
  Result<std::optional<BlockInfo>> ReadBlockHeader();
  Result<bool> LoadBlock();
  Status Decompress(std::span<const uint8_t> data, uint64_t offset);

  std::unique_ptr<io::InputFile> file_;
  ContainerReaderOptions options_;
  uint64_t file_size_ = 0;
  uint64_t header_size_ = 0;
  uint64_t pos_ = 0;  // offset of the next block
  SchemaPtr writer_schema_;
  std::string codec_name_;
  AvroCodec codec_ = AvroCodec::kNull;
  FileMetadata metadata_;
  SyncMarker sync_{};
  std::unique_ptr<Codec> decompressor_;
  std::unique_ptr<DatumReader> datum_reader_;
  Buffer raw_;    // the current block's data and sync marker as read
  Buffer block_;  // the current block's decompressed data
  ByteReader block_reader_;
  uint64_t block_offset_ = 0;
  int64_t block_remaining_ = 0;  // records not yet decoded
  Status failed_;
};

struct ContainerWriterOptions {
  AvroCodec codec = AvroCodec::kNull;
  int level = kDefaultCompressionLevel;
  // A block is written once its encoded records reach this many bytes.
  size_t block_size_bytes = 64 * 1024;
  // User metadata written after avro.schema and avro.codec. Keys starting with "avro."
  // are reserved (kInvalidArgument).
  FileMetadata metadata;
  // The sync marker; when absent, 16 bytes from random_bytes.
  std::optional<SyncMarker> sync_marker;
  // Fills `n` bytes with randomness; when absent, std::random_device is used.
  std::function<void(uint8_t* out, size_t n)> random_bytes;
};

class ContainerWriter {
 public:
  // Writes the header to `out`, with the schema as Schema::ToJson() (every attribute).
  static Result<std::unique_ptr<ContainerWriter>> Make(std::unique_ptr<io::OutputStream> out,
                                                       SchemaPtr schema,
                                                       ContainerWriterOptions options = {});
  ~ContainerWriter();

  // Encodes every row of `batch` (columns as ToColumnarSchema(schema) gives them).
  Status Write(const columnar::RecordBatch& batch);
  // Appends one datum already encoded in Avro binary with the file's schema.
  Status WriteEncoded(std::span<const uint8_t> datum);
  // Writes the last block and closes the stream.
  Status Close();

  const SyncMarker& sync_marker() const { return sync_; }
  int64_t records_written() const { return records_written_; }

 private:
  ContainerWriter() = default;
  Status FlushBlock();
  Status Append(std::span<const uint8_t> bytes);

  std::unique_ptr<io::OutputStream> out_;
  SchemaPtr schema_;
  ContainerWriterOptions options_;
  SyncMarker sync_{};
  std::unique_ptr<Codec> compressor_;
  std::unique_ptr<DatumWriter> datum_writer_;
  columnar::SchemaPtr datum_writer_columns_;
  Buffer pending_;  // encoded records of the open block
  int64_t pending_records_ = 0;
  Buffer scratch_;  // compressed block
  int64_t records_written_ = 0;
  bool closed_ = false;
};

}  // namespace floe::format::avro
