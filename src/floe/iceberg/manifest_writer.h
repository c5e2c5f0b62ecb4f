// ManifestWriter: writes one manifest (Iceberg spec, "Manifests") as an Avro object
// container with Iceberg Java's schema for the format version (manifest_avro.h) and the
// file metadata Java writes: schema, partition-spec, partition-spec-id, format-version and
// (v2+) content. Close() returns the manifest list entry with counts, partition summaries
// and placeholder sequence numbers for ManifestListWriter to assign.
//
// Thread-safety: one thread at a time.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "floe/base/status.h"
#include "floe/format/avro/container.h"
#include "floe/iceberg/manifest.h"
#include "floe/iceberg/partition_spec.h"
#include "floe/iceberg/schema.h"
#include "floe/iceberg/type.h"
#include "floe/io/file_io.h"

namespace floe::iceberg {

struct ManifestWriterOptions {
  int format_version = 2;  // 1, 2 or 3
  ManifestContent content = ManifestContent::kData;
  int32_t spec_id = 0;
  // The spec's partition type (PartitionSpec::PartitionType(schema)): a struct whose
  // field ids are the partition field ids.
  TypePtr partition_type;
  // Written as the "schema" and "partition-spec" metadata: the table schema JSON and the
  // spec's fields array JSON.
  std::string schema_json;
  std::string partition_spec_json = "[]";
  // The snapshot that writes the manifest (added_snapshot_id; DELETED entries carry it).
  int64_t snapshot_id = 0;
  // ADDED entries are written with this snapshot id, as Java and pyiceberg do; with
  // inherit_snapshot_id (v2+) they are written null and readers inherit added_snapshot_id.
  bool inherit_snapshot_id = false;
  // v3 data manifests: the manifest's first_row_id when already known (normally null,
  // assigned by the manifest list writer).
  std::optional<int64_t> first_row_id;
  // Java's write.manifest.compression-codec default "gzip" is Avro deflate.
  format::avro::AvroCodec codec = format::avro::AvroCodec::kDeflate;
  int level = format::kDefaultCompressionLevel;
  // Tests: a fixed sync marker.
  std::optional<format::avro::SyncMarker> sync_marker;
};

// Options for a manifest of `spec` over the table `schema`: the partition type, spec id and
// the metadata JSON (schema, spec fields) filled in as Java's ManifestWriter does.
// kInvalidArgument when the spec does not apply to the schema.
Result<ManifestWriterOptions> MakeManifestWriterOptions(
    int format_version, const PartitionSpec& spec, const Schema& schema, int64_t snapshot_id,
    ManifestContent content = ManifestContent::kData);

class ManifestWriter {
 public:
  // Writes the header to `out`. kInvalidArgument for a bad version, a missing or non-struct
  // partition type, a delete manifest in v1; kUnimplemented for partition types without an
  // Avro form.
  static Result<std::unique_ptr<ManifestWriter>> Make(std::unique_ptr<io::OutputStream> out,
                                                      ManifestWriterOptions options);
  ~ManifestWriter();

  // Adds `file` as ADDED. Its sequence numbers are null (inherited at commit) unless
  // `data_sequence_number` is given (a rewrite keeping its starting snapshot's number);
  // the file sequence number is always inherited. kInvalidArgument when the file does not
  // fit the manifest (content, partition arity or types).
  Status Add(const DataFile& file, std::optional<int64_t> data_sequence_number = std::nullopt);
  // Adds an entry carried over unchanged as EXISTING. REQUIRES (v2+, checked): explicit
  // snapshot id and sequence numbers, as read (inherited) from its manifest.
  Status Existing(const ManifestEntry& entry);
  // Adds an entry as DELETED by this snapshot, keeping its sequence numbers.
  Status Delete(const ManifestEntry& entry);

  // Finishes the file and returns its manifest list entry (sequence_number = -1;
  // min_sequence_number = the smallest explicit data sequence number of live entries, else
  // -1).
  Result<ManifestFile> Close();

  int format_version() const { return options_.format_version; }

 private:
  class CountingStream;
  ManifestWriter() = default;
  Status Write(const ManifestEntry& entry);

  ManifestWriterOptions options_;
  std::string location_;
  CountingStream* counter_ = nullptr;  // owned by writer_
  std::unique_ptr<format::avro::ContainerWriter> writer_;
  Buffer datum_;
  int32_t added_files_ = 0, existing_files_ = 0, deleted_files_ = 0;
  int64_t added_rows_ = 0, existing_rows_ = 0, deleted_rows_ = 0;
  std::optional<int64_t> min_data_sequence_number_;
  struct FieldStats {
    bool contains_null = false;
    bool contains_nan = false;
    std::optional<Literal> lower;
    std::optional<Literal> upper;
  };
  std::vector<FieldStats> stats_;
  bool closed_ = false;
};

}  // namespace floe::iceberg
