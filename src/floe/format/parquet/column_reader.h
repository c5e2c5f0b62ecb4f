// ColumnChunkReader: decodes the pages of one column chunk (a leaf column within one row
// group) into LeafData, a batch of records at a time: levels plus dense values in the
// leaf's columnar layout (schema.h). The chunk is read through a window of at most `window_bytes`
// (grown only for a page larger than it), so input memory does not scale with the chunk; decoded
// memory is bounded by `max_decoded_bytes`, checked before anything sized by the file is
// allocated. Handles dictionary, data page v1 and v2, every encoding and codec of
// parquet.md §4-§6, and the writer quirks of §1 and §10.
#pragma once

#include <memory>
#include <string>

#include "floe/base/buffer.h"
#include "floe/base/status.h"
#include "floe/format/parquet/assembly.h"
#include "floe/format/parquet/metadata.h"
#include "floe/format/parquet/schema.h"
#include "floe/io/coalesced_input.h"
#include "floe/io/file_io.h"

namespace floe::format::parquet {

struct ColumnReadOptions {
  // Check page CRCs when the writer stored them.
  bool verify_crc = true;
  // The file's created_by, for writer-specific workarounds.
  std::string created_by;
  // Bytes of the file before the footer: no chunk may extend past them.
  uint64_t data_end = 0;
  // Size of the read window over the chunk.
  size_t window_bytes = size_t{8} << 20;
  // Largest uncompressed page accepted.
  int64_t max_page_bytes = int64_t{1} << 30;
  // Largest decoded size (levels and values) of one column chunk.
  int64_t max_decoded_bytes = int64_t{2} << 30;
};

class ChunkDecoder;

// The bytes ColumnChunkReader reads for `chunk` in a file whose data ends at `data_end`
// (empty for a chunk without values). Errors: kCorrupt (no metadata, negative sizes, a range
// outside the data).
Result<io::ByteRange> ColumnChunkRange(const ColumnChunk& chunk, uint64_t data_end);

// Reads a column chunk record by record: each call decodes just enough pages.
class ColumnChunkReader {
 public:
  // Checks the chunk's metadata. `file` must outlive the reader.
  // Errors (here and from ReadRecords): kCorrupt for malformed or inconsistent pages and
  // metadata (naming the column), kUnimplemented for encrypted columns, external chunks
  // (file_path) and unsupported codecs or encodings.
  static Result<std::unique_ptr<ColumnChunkReader>> Make(const io::InputFile& file,
                                                         const ColumnDescriptor& column,
                                                         const ColumnChunk& chunk,
                                                         const ColumnReadOptions& options);
  ~ColumnChunkReader();

  // Decodes the next `records` whole records (fewer at the end of the chunk) into `out`
  // (which is reset) and returns how many.
  Result<int64_t> ReadRecords(int64_t records, LeafData* out);
  // Every entry of the chunk has been decoded.
  bool AtEnd() const;

 private:
  explicit ColumnChunkReader(const ColumnDescriptor& column);
  const ColumnDescriptor& column_;
  std::unique_ptr<ChunkDecoder> decoder_;
};

}  // namespace floe::format::parquet
