#include "floe/optimize/data_expiration.h"

#include <algorithm>
#include <map>
#include <vector>

#include "floe/iceberg/literal.h"
#include "floe/iceberg/snapshot_producer.h"
#include "floe/iceberg/type.h"
#include "floe/optimize/cleanup.h"
#include "floe/optimize/maintenance.h"

namespace floe::optimize {

namespace {

int64_t FloorDiv(int64_t a, int64_t b) {
  int64_t q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0))) --q;
  return q;
}

bool SupportedKind(iceberg::TypeKind kind) {
  using K = iceberg::TypeKind;
  return kind == K::kTimestamp || kind == K::kTimestampTz || kind == K::kTimestampNs ||
         kind == K::kTimestampTzNs || kind == K::kLong || kind == K::kString || kind == K::kDate;
}

// Whether `s` changed the table's rows in a way that dates them: not an optimizer rewrite
// and not data expiration itself (else every run would move the base time forward).
bool ChangesData(const iceberg::Snapshot& s) {
  if (ProducedByOptimizer(s)) return false;
  const std::string* producer = s.SummaryValue("snapshot-producer");
  return producer == nullptr || *producer != kDataExpirationProducer;
}

}  // namespace

std::optional<int64_t> UpperBoundMs(const iceberg::DataFile& file,
                                    const iceberg::NestedField& field,
                                    const DataExpirationConfig& config,
                                    const DateTimePattern& pattern) {
  auto it = file.upper_bounds.find(field.id);
  if (it == file.upper_bounds.end()) return std::nullopt;
  // Metrics bytes are untrusted: an unreadable bound keeps the file.
  auto bound = iceberg::Literal::FromBytes(field.type, it->second);
  if (!bound.ok() || bound->is_null()) return std::nullopt;
  using K = iceberg::TypeKind;
  switch (field.type->kind()) {
    case K::kTimestamp:
    case K::kTimestampTz: return FloorDiv(bound->long_value(), 1000);
    case K::kTimestampNs:
    case K::kTimestampTzNs: return FloorDiv(bound->long_value(), 1'000'000);
    case K::kDate: return static_cast<int64_t>(bound->int_value()) * 86'400'000;
    case K::kLong: {
      const int64_t v = bound->long_value();
      if (!config.number_in_seconds) return v;
      if (v > INT64_MAX / 1000 || v < INT64_MIN / 1000) return std::nullopt;
      return v * 1000;
    }
    case K::kString: {
      auto ms = pattern.Parse(bound->string_value());
      if (!ms.ok()) return std::nullopt;
      return *ms;
    }
    default: return std::nullopt;
  }
}

Result<std::optional<DataExpirationResult>> ExpireData(iceberg::Table& table,
                                                       const DataExpirationConfig& config,
                                                       int64_t now_ms) {
  using Outcome = std::optional<DataExpirationResult>;
  if (!config.enabled) return Outcome{};
  iceberg::TableMetadataPtr metadata = table.metadata();
  const iceberg::Snapshot* snapshot = metadata->current_snapshot();
  if (snapshot == nullptr) return Outcome{};
  const iceberg::Schema* schema = metadata->current_schema();
  const iceberg::NestedField* field =
      schema == nullptr ? nullptr : schema->FindFieldByName(config.field);
  if (field == nullptr) {
    return Status::InvalidArgument("data-expire.field: the table has no column '{}'", config.field);
  }
  if (!SupportedKind(field->type->kind())) {
    return Status::InvalidArgument(
        "data-expire.field: column '{}' is {}, not a timestamp, date, long or string", config.field,
        iceberg::TypeKindName(field->type->kind()));
  }
  FLOE_ASSIGN_OR_RETURN(DateTimePattern pattern,
                        DateTimePattern::Make(config.datetime_string_pattern));

  int64_t base_ms = now_ms;
  if (config.base_on == DataExpirationConfig::BaseOn::kLastCommitTime) {
    std::optional<int64_t> newest;
    for (const iceberg::Snapshot& s : metadata->snapshots) {
      if (ChangesData(s)) newest = std::max(newest.value_or(s.timestamp_ms), s.timestamp_ms);
    }
    if (!newest) return Outcome{};
    base_ms = *newest;
  }
  DataExpirationResult result;
  result.threshold_ms = base_ms - config.retention_ms;

  // Live data files by partition (spec id and values), each with whether it expired.
  struct Candidate {
    iceberg::DataFile file;
    bool expired = false;
  };
  std::map<std::string, std::vector<Candidate>> partitions;
  FLOE_ASSIGN_OR_RETURN(std::vector<iceberg::ManifestFile> manifests,
                        iceberg::ReadSnapshotManifests(*snapshot, table.io()));
  for (const iceberg::ManifestFile& manifest : manifests) {
    if (manifest.content != iceberg::ManifestContent::kData) continue;
    FLOE_ASSIGN_OR_RETURN(std::vector<iceberg::ManifestEntry> entries,
                          iceberg::ReadManifestEntries(*metadata, manifest, table.io(),
                                                       iceberg::ManifestEntryFilter::kLive,
                                                       /*read_stats=*/true));
    for (iceberg::ManifestEntry& entry : entries) {
      std::string key = std::to_string(entry.data_file.spec_id);
      for (const iceberg::Literal& v : entry.data_file.partition) {
        key += '\x1f';
        key += v.ToJson();
      }
      std::optional<int64_t> upper = UpperBoundMs(entry.data_file, *field, config, pattern);
      const bool expired = upper && *upper <= result.threshold_ms;
      partitions[key].push_back(Candidate{std::move(entry.data_file), expired});
    }
  }

  auto remove = table.NewDelete();
  for (const auto& [key, files] : partitions) {
    const bool whole =
        std::all_of(files.begin(), files.end(), [](const Candidate& c) { return c.expired; });
    if (config.level == DataExpirationConfig::Level::kPartition && !whole) continue;
    for (const Candidate& c : files) {
      if (!c.expired) continue;
      remove->DeleteFile(c.file);
      ++result.data_files_removed;
      result.records_removed += c.file.record_count;
    }
  }
  if (result.data_files_removed == 0) return Outcome(std::move(result));
  // A file an optimizer rewrote or a writer deleted meanwhile fails the commit: the next run
  // looks at the new snapshot.
  remove->ValidateFilesExist().Set("snapshot-producer", std::string(kDataExpirationProducer));
  FLOE_RETURN_IF_ERROR(remove->Commit());
  result.snapshot_id = table.metadata()->current_snapshot_id;

  // Delete files that applied only to the removed data files now apply to nothing; removing
  // them through the scan planner's assignment never drops a delete a live file needs.
  auto cleaned = CleanDanglingDeleteFiles(table);
  if (cleaned.ok()) {
    result.delete_files_removed =
        cleaned->position_delete_files_removed + cleaned->equality_delete_files_removed;
  } else {
    result.delete_cleanup_error = cleaned.status().ToString();
  }
  return Outcome(std::move(result));
}

}  // namespace floe::optimize
