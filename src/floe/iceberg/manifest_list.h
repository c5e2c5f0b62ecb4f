// Manifest lists (Iceberg spec, "Manifest Lists"): ManifestListWriter writes a snapshot's
// list with Java's schema and metadata for the format version, assigning the commit's
// sequence number to new manifests and (v3) first_row_ids to data manifests;
// ReadManifestList reads lists of any version.
//
// Thread-safety: one thread at a time per writer.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "floe/base/status.h"
#include "floe/format/avro/container.h"
#include "floe/iceberg/manifest.h"
#include "floe/io/file_io.h"

namespace floe::iceberg {

struct ManifestListWriterOptions {
  int format_version = 2;  // 1, 2 or 3
  int64_t snapshot_id = 0;
  // Written as "null" when absent, like Java.
  std::optional<int64_t> parent_snapshot_id;
  // The commit's sequence number (v2+), given to manifests written with
  // kUnassignedSequenceNumber.
  int64_t sequence_number = 0;
  // v3: the snapshot's first-row-id (the table's next-row-id). Required for v3.
  std::optional<int64_t> first_row_id;
  format::avro::AvroCodec codec = format::avro::AvroCodec::kDeflate;
  int level = format::kDefaultCompressionLevel;
  std::optional<format::avro::SyncMarker> sync_marker;
};

class ManifestListWriter {
 public:
  // Writes the header (metadata snapshot-id, parent-snapshot-id, sequence-number (v2+),
  // first-row-id (v3), format-version). kInvalidArgument for a bad version or a v3 list
  // without first_row_id.
  static Result<std::unique_ptr<ManifestListWriter>> Make(std::unique_ptr<io::OutputStream> out,
                                                          ManifestListWriterOptions options);
  ~ManifestListWriter();

  // Appends a manifest. v2+: an unassigned sequence_number / min_sequence_number becomes
  // the commit's, which is only legal for manifests added by this snapshot
  // (kInvalidArgument otherwise). v3: a data manifest without first_row_id gets the next
  // row id, which then advances by its existing + added rows. v1: delete manifests are
  // kInvalidArgument. Returns the manifest as written.
  Result<ManifestFile> Add(const ManifestFile& manifest);

  // Finishes the file.
  Status Close();

  // v3: the row ids assigned so far (the snapshot's "added-rows"); 0 before v3.
  int64_t assigned_rows() const { return next_row_id_ - options_.first_row_id.value_or(0); }
  // v3: the table's next-row-id after this snapshot.
  int64_t next_row_id() const { return next_row_id_; }

 private:
  ManifestListWriter() = default;

  ManifestListWriterOptions options_;
  std::unique_ptr<format::avro::ContainerWriter> writer_;
  Buffer datum_;
  int64_t next_row_id_ = 0;
};

struct ManifestListReadOptions {
  uint64_t max_file_bytes = uint64_t{1} << 30;
};

// Reads a manifest list of any format version. v1 lists read with content DATA and
// sequence numbers 0; missing v1 counts stay null (unknown). Malformed files are kCorrupt.
Result<std::vector<ManifestFile>> ReadManifestList(const io::InputFile& file,
                                                   const ManifestListReadOptions& options = {});

}  // namespace floe::iceberg
