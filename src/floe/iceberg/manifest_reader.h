// ManifestReader: reads the entries of one manifest (Iceberg spec, "Manifests") written by
// any implementation and format version, resolving fields by id, and applies the
// inheritance rules of the manifest's list entry (spec, "Sequence Number Inheritance",
// "First Row ID Inheritance"):
//   - a null snapshot_id becomes the manifest's added_snapshot_id;
//   - null sequence numbers become the manifest's sequence_number for ADDED entries, 0 for
//     v1 manifests (manifest sequence number 0); a null on an EXISTING or DELETED entry of
//     a later manifest is kCorrupt;
//   - v3 data manifests with a first_row_id: a null data_file.first_row_id becomes the
//     manifest's first_row_id plus the record counts of the preceding live entries that had
//     none (Java ManifestReader.idAssigner skips DELETED entries). A committed manifest
//     without first_row_id gives every entry a null first_row_id, as Java does.
// Partition values come back as Literals of the partition type; bounds stay Appendix D
// bytes.
//
// Thread-safety: one thread at a time.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "floe/base/status.h"
#include "floe/format/avro/container.h"
#include "floe/iceberg/manifest.h"
#include "floe/iceberg/type.h"
#include "floe/io/file_io.h"

namespace floe::iceberg {

enum class ManifestEntryFilter : uint8_t {
  kAll,
  kLive,   // ADDED and EXISTING (skip DELETED)
  kAdded,  // ADDED only
};

// What manifests written alike share: their parsed writer and read schemas. A scan opens hundreds
// of manifests with a handful of distinct schemas; this parses each once. Not thread-safe: one per
// reading thread, outliving the readers.
struct ManifestSchemaCache {
  format::avro::SchemaCache avro;
  // By stats flag + writer schema text.
  std::unordered_map<std::string, format::avro::SchemaPtr> read_schemas;
};

struct ManifestReaderOptions {
  ManifestSchemaCache* schema_cache = nullptr;  // optional
  ManifestEntryFilter filter = ManifestEntryFilter::kAll;
  // false: the six metrics maps (column sizes, value/null/NaN counts, bounds) are skipped
  // without decoding and come back empty. Planning without metrics is much faster.
  bool read_stats = true;
  // The partition type of the manifest's spec (PartitionSpec::PartitionType of the table's
  // spec with the manifest's id). When null: the type of the spec and schema in the file's
  // metadata, else (absent, unparsable, or not matching the partition record's field ids
  // and type kinds)
  // the type derived from the Avro partition record (TypeToSchema in reverse).
  TypePtr partition_type;
  uint64_t max_file_bytes = uint64_t{1} << 30;
  int64_t batch_rows = 4096;
};

class ManifestReader {
 public:
  // Reads the header. `manifest` supplies what entries inherit. kCorrupt for files that
  // are not manifests.
  static Result<std::unique_ptr<ManifestReader>> Open(const io::InputFile& file,
                                                      const ManifestFile& manifest,
                                                      ManifestReaderOptions options = {});
  ~ManifestReader();

  // From the file's metadata ("format-version" defaults to 1, "content" to data,
  // "partition-spec-id" to the manifest list entry's).
  int format_version() const { return format_version_; }
  ManifestContent content() const { return content_; }
  int32_t spec_id() const { return spec_id_; }
  const std::string* schema_json() const { return Metadata("schema"); }
  const std::string* partition_spec_json() const { return Metadata("partition-spec"); }
  const TypePtr& partition_type() const { return partition_type_; }

  // The next entries (at most about batch_rows), or an empty vector at the end.
  Result<std::vector<ManifestEntry>> Next();
  // Every remaining entry.
  Result<std::vector<ManifestEntry>> ReadAll();

 private:
  ManifestReader() = default;
  const std::string* Metadata(std::string_view key) const;
  Status Convert(const columnar::RecordBatch& batch, std::vector<ManifestEntry>* out);

  ManifestFile manifest_;
  ManifestReaderOptions options_;
  std::unique_ptr<format::avro::ContainerReader> reader_;
  int format_version_ = 1;
  ManifestContent content_ = ManifestContent::kData;
  int32_t spec_id_ = 0;
  TypePtr partition_type_;
  int64_t next_row_id_ = 0;
  bool assign_row_ids_ = false;
  bool clear_row_ids_ = false;
  int64_t entries_read_ = 0;
};

// Reads a whole manifest.
Result<std::vector<ManifestEntry>> ReadManifest(const io::InputFile& file,
                                                const ManifestFile& manifest,
                                                ManifestReaderOptions options = {});

}  // namespace floe::iceberg
