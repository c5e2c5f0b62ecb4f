// Puffin files (Iceberg format/puffin-spec.md): blobs followed by a footer whose JSON
// payload describes them. PuffinReader reads the footer of an untrusted file and its blobs;
// PuffinWriter appends blobs to an output stream and writes the footer.
//
//   File   := Magic Blob* Footer
//   Footer := Magic FooterPayload FooterPayloadSize(int32 LE) Flags(4 bytes) Magic
//
// Thread-safety: a PuffinReader may be used concurrently (ReadBlob is const); a PuffinWriter
// needs exclusive access.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "floe/base/buffer.h"
#include "floe/base/status.h"
#include "floe/io/file_io.h"

namespace floe::format::puffin {

inline constexpr std::string_view kMagic = "PFA1";
// Footer bytes around the payload: Magic, FooterPayloadSize, Flags, Magic.
inline constexpr uint64_t kFooterOverheadBytes = 16;
// Flags byte 0, bit 0: the footer payload is one LZ4 frame.
inline constexpr uint8_t kFlagFooterCompressed = 0x01;

// Ordered string properties, as they appear in the JSON.
using Properties = std::vector<std::pair<std::string, std::string>>;

// Blob compression ("Compression codecs"): both are a single frame with the content size.
enum class PuffinCodec : uint8_t { kNone, kLz4, kZstd };
// "lz4", "zstd"; kNone has no name (the field is omitted).
std::string_view PuffinCodecName(PuffinCodec codec);
// Parses a `compression-codec` value; anything else is kUnimplemented.
Result<PuffinCodec> ParsePuffinCodec(std::string_view name);

// One entry of the footer's `blobs` ("BlobMetadata").
struct BlobMetadata {
  std::string type;
  std::vector<int32_t> fields;
  int64_t snapshot_id = -1;
  int64_t sequence_number = -1;
  uint64_t offset = 0;                           // in the file
  uint64_t length = 0;                           // stored (compressed) length
  std::optional<std::string> compression_codec;  // as written; absent means uncompressed
  Properties properties;

  // The value of property `key`, or null.
  const std::string* FindProperty(std::string_view key) const;
  friend bool operator==(const BlobMetadata&, const BlobMetadata&) = default;
};

// The footer payload ("FileMetadata").
struct FileMetadata {
  std::vector<BlobMetadata> blobs;
  Properties properties;
  friend bool operator==(const FileMetadata&, const FileMetadata&) = default;
};

// Writes the footer payload JSON as Iceberg Java does: `compression-codec` and
// `properties` only when present / non-empty.
std::string FileMetadataToJson(const FileMetadata& metadata);
// Parses a footer payload. Unknown members are ignored; missing required members, wrong
// types, out-of-range numbers or negative offsets/lengths are kCorrupt.
Result<FileMetadata> ParseFileMetadata(std::string_view json);

struct PuffinReaderOptions {
  // Bounds on the footer payload as stored and after LZ4 decompression.
  uint64_t max_footer_payload_bytes = 16 << 20;
  // Bound on a blob after decompression (a decompression-bomb guard).
  uint64_t max_blob_bytes = uint64_t{1} << 30;
};

class PuffinReader {
 public:
  // Reads and validates the footer of `file`: both magics, the payload size against the file
  // size and options, the flags (only bit 0 may be set), the JSON, and that every blob lies
  // between the leading magic and the footer. Errors are kCorrupt (kUnimplemented for
  // unknown flags); I/O failures are passed through.
  // REQUIRES: `file` outlives the reader.
  static Result<std::unique_ptr<PuffinReader>> Open(const io::InputFile& file,
                                                    PuffinReaderOptions options = {});

  const FileMetadata& metadata() const { return metadata_; }
  const std::vector<BlobMetadata>& blobs() const { return metadata_.blobs; }
  const Properties& properties() const { return metadata_.properties; }
  // The whole footer: magic, payload, size, flags, magic (`file-footer-size-in-bytes`).
  uint64_t footer_size() const { return footer_size_; }
  bool footer_compressed() const { return footer_compressed_; }

  // Reads a blob's bytes and decompresses them. `blob` need not come from blobs(); its range
  // is checked against the file. Unknown codecs are kUnimplemented, bad frames kCorrupt.
  Result<Buffer> ReadBlob(const BlobMetadata& blob) const;

 private:
  PuffinReader(const io::InputFile& file, PuffinReaderOptions options)
      : file_(file), options_(options) {}

  const io::InputFile& file_;
  PuffinReaderOptions options_;
  FileMetadata metadata_;
  uint64_t footer_size_ = 0;
  bool footer_compressed_ = false;
};

struct PuffinWriterOptions {
  // File properties; `created-by` is added when absent.
  Properties properties;
  // Compression level for blobs written with a codec (the library default otherwise).
  int compression_level = INT32_MIN;
};

// Where AddBlob put a blob.
struct BlobLocation {
  uint64_t offset = 0;
  uint64_t length = 0;
};

struct PuffinFileInfo {
  uint64_t file_size = 0;
  uint64_t footer_size = 0;  // `file-footer-size-in-bytes`
};

class PuffinWriter {
 public:
  inline static const std::string kCreatedBy = "floe version 0.1.0";

  // Starts a Puffin file on `out` by writing the magic. `out` must be at position 0 (else
  // kInvalidArgument). The writer does not close `out`.
  // REQUIRES: `out` outlives the writer.
  static Result<std::unique_ptr<PuffinWriter>> Make(io::OutputStream* out,
                                                    PuffinWriterOptions options = {});

  // Appends a blob, compressed with `codec`, and records its metadata.
  // REQUIRES: Finish() has not been called (kFailedPrecondition otherwise).
  Result<BlobLocation> AddBlob(std::string_view type, std::span<const int32_t> fields,
                               int64_t snapshot_id, int64_t sequence_number,
                               std::span<const uint8_t> bytes, Properties properties = {},
                               PuffinCodec codec = PuffinCodec::kNone);

  // Writes the (uncompressed) footer. The caller then closes the stream.
  Result<PuffinFileInfo> Finish();

  const std::vector<BlobMetadata>& blobs() const { return metadata_.blobs; }

 private:
  PuffinWriter(io::OutputStream* out, PuffinWriterOptions options)
      : out_(out), options_(std::move(options)) {}

  io::OutputStream* out_;
  PuffinWriterOptions options_;
  FileMetadata metadata_;
  bool finished_ = false;
};

}  // namespace floe::format::puffin
