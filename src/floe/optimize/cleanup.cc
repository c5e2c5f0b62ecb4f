#include "floe/optimize/cleanup.h"

#include <algorithm>
#include <set>
#include <unordered_set>
#include <utility>

#include "floe/iceberg/scan.h"
#include "floe/iceberg/snapshot_producer.h"
#include "floe/optimize/maintenance.h"

namespace floe::optimize {
namespace {

// The table's data or metadata directory, with a trailing '/' so that listing it cannot match
// a sibling that merely shares the prefix (data/ vs data-old/).
std::string TableDirectory(const iceberg::TableMetadata& metadata, std::string_view property,
                           std::string_view default_leaf) {
  std::string dir;
  if (auto it = metadata.properties.find(std::string(property));
      it != metadata.properties.end() && !it->second.empty()) {
    dir = it->second;
  } else {
    dir = metadata.location;
    while (!dir.empty() && dir.back() == '/') dir.pop_back();
    dir += '/';
    dir += default_leaf;
  }
  if (dir.back() != '/') dir += '/';
  return dir;
}

}  // namespace

std::string NormalizeLocation(std::string_view location) {
  if (location.starts_with("file:")) {
    std::string_view rest = location.substr(5);
    // file:///p and file://localhost/p name /p; file:/p too.
    if (rest.starts_with("//")) {
      rest.remove_prefix(2);
      size_t slash = rest.find('/');
      rest = slash == std::string_view::npos ? std::string_view() : rest.substr(slash);
    }
    return std::string(rest);
  }
  for (std::string_view scheme : {"s3a://", "s3n://"}) {
    if (location.starts_with(scheme)) return "s3://" + std::string(location.substr(scheme.size()));
  }
  return std::string(location);
}

Result<std::vector<std::string>> ReferencedFiles(const iceberg::TableMetadata& metadata,
                                                 io::FileIO& io) {
  std::unordered_set<std::string> files;
  auto add = [&](std::string_view location) {
    if (!location.empty()) files.insert(NormalizeLocation(location));
  };
  add(metadata.metadata_file_location);
  for (const iceberg::MetadataLogEntry& entry : metadata.metadata_log) add(entry.metadata_file);
  for (const auto& statistics : metadata.statistics) add(statistics.path);
  for (const auto& statistics : metadata.partition_statistics) add(statistics.path);

  // Manifests are shared by many snapshots: read each once.
  std::set<std::string> manifests_read;
  for (const iceberg::Snapshot& snapshot : metadata.snapshots) {
    add(snapshot.manifest_list);
    FLOE_ASSIGN_OR_RETURN(std::vector<iceberg::ManifestFile> manifests,
                          iceberg::ReadSnapshotManifests(snapshot, io));
    for (const iceberg::ManifestFile& manifest : manifests) {
      if (!manifests_read.insert(manifest.manifest_path).second) continue;
      add(manifest.manifest_path);
      // Entries of every status: a DELETED entry's file is still reachable from an older
      // snapshot's manifest while that snapshot lives, and keeping one more file is harmless.
      FLOE_ASSIGN_OR_RETURN(
          std::vector<iceberg::ManifestEntry> entries,
          iceberg::ReadManifestEntries(metadata, manifest, io, iceberg::ManifestEntryFilter::kAll,
                                       /*read_stats=*/false));
      for (const iceberg::ManifestEntry& entry : entries) add(entry.data_file.file_path);
    }
  }
  std::vector<std::string> out(files.begin(), files.end());
  std::sort(out.begin(), out.end());
  return out;
}

std::vector<std::string> OrphanCleaningDirectories(const iceberg::TableMetadata& metadata) {
  std::vector<std::string> dirs = {TableDirectory(metadata, "write.data.path", "data"),
                                   TableDirectory(metadata, "write.metadata.path", "metadata")};
  if (NormalizeLocation(dirs[0]) == NormalizeLocation(dirs[1])) dirs.pop_back();
  return dirs;
}

Result<OrphanCleaningResult> CleanOrphanFiles(iceberg::Table& table, int64_t now_ms,
                                              int64_t min_age_ms,
                                              const std::vector<std::string>& checked_directories) {
  const iceberg::TableMetadataPtr listed_metadata = table.metadata();
  if (listed_metadata->location.empty()) {
    return Status::InvalidArgument("the table has no location: no directory to clean");
  }
  if (OrphanCleaningDirectories(*listed_metadata) != checked_directories) {
    return Status::Conflict("the table's data or metadata directory changed since it was checked");
  }
  io::FileIO& io = table.io();
  const int64_t older_than_ms = now_ms - min_age_ms;

  OrphanCleaningResult result;
  const std::string data_dir = TableDirectory(*listed_metadata, "write.data.path", "data");
  const std::string metadata_dir =
      TableDirectory(*listed_metadata, "write.metadata.path", "metadata");
  struct Directory {
    const std::string* prefix;
    int64_t* deleted;
  };
  const Directory directories[] = {{&data_dir, &result.content_files_deleted},
                                   {&metadata_dir, &result.metadata_files_deleted}};
  // The listings complete before anything is deleted: a failed listing deletes nothing.
  std::vector<std::pair<std::vector<io::FileInfo>, int64_t*>> listings;
  std::set<std::string> listed_prefixes;
  for (const Directory& dir : directories) {
    // write.data.path may equal the metadata directory (or the table location); list once.
    if (!listed_prefixes.insert(NormalizeLocation(*dir.prefix)).second) continue;
    FLOE_ASSIGN_OR_RETURN(std::vector<io::FileInfo> files, io.List(*dir.prefix));
    listings.emplace_back(std::move(files), dir.deleted);
  }
  // References second, from the table as it is now: every commit that ended before the
  // listings is in them.
  FLOE_RETURN_IF_ERROR(table.Refresh());
  const iceberg::TableMetadataPtr metadata = table.metadata();
  if (OrphanCleaningDirectories(*metadata) != checked_directories) {
    return Status::Conflict("the table's data or metadata directory changed while listing");
  }
  if (auto gc = metadata->properties.find("gc.enabled");
      gc != metadata->properties.end() && gc->second == "false") {
    return result;
  }
  FLOE_ASSIGN_OR_RETURN(std::vector<std::string> referenced, ReferencedFiles(*metadata, io));
  const std::unordered_set<std::string> keep(referenced.begin(), referenced.end());

  for (auto& [files, deleted] : listings) {
    std::vector<std::string> doomed;
    int64_t doomed_bytes = 0;
    for (const io::FileInfo& file : files) {
      const std::string normalized = NormalizeLocation(file.location);
      if (keep.contains(normalized)) continue;
      // Catalogs of the Hadoop layout read the version hint; it is never referenced.
      if (normalized.ends_with("/version-hint.text")) continue;
      if (file.modified_ms >= older_than_ms) {
        ++result.too_young;
        continue;
      }
      doomed.push_back(file.location);
      doomed_bytes += static_cast<int64_t>(file.size);
    }
    if (doomed.empty()) continue;
    Status deleted_all = io.DeleteFiles(doomed);
    if (deleted_all.ok()) {
      *deleted += static_cast<int64_t>(doomed.size());
      result.bytes_deleted += doomed_bytes;
      continue;
    }
    // Some failed: count what is really gone.
    for (const std::string& location : doomed) {
      auto exists = io.Exists(location);
      if (exists.ok() && !*exists) {
        ++*deleted;
      } else {
        ++result.failed_deletes;
      }
    }
  }
  return result;
}

Result<DanglingDeleteResult> CleanDanglingDeleteFiles(iceberg::Table& table) {
  DanglingDeleteResult result;
  iceberg::TableMetadataPtr metadata = table.metadata();
  const iceberg::Snapshot* snapshot = metadata->current_snapshot();
  if (snapshot == nullptr) return result;
  // Amoro's shortcut: the summary says whether there is any delete file at all.
  if (const std::string* total = snapshot->SummaryValue("total-delete-files");
      total != nullptr && *total == "0") {
    return result;
  }

  // Every live delete file of the snapshot.
  FLOE_ASSIGN_OR_RETURN(std::vector<iceberg::ManifestFile> manifests,
                        iceberg::ReadSnapshotManifests(*snapshot, table.io()));
  std::vector<iceberg::DataFile> delete_files;
  for (const iceberg::ManifestFile& manifest : manifests) {
    if (manifest.content != iceberg::ManifestContent::kDeletes) continue;
    FLOE_ASSIGN_OR_RETURN(std::vector<iceberg::ManifestEntry> entries,
                          iceberg::ReadManifestEntries(*metadata, manifest, table.io(),
                                                       iceberg::ManifestEntryFilter::kLive,
                                                       /*read_stats=*/false));
    for (iceberg::ManifestEntry& entry : entries)
      delete_files.push_back(std::move(entry.data_file));
  }
  if (delete_files.empty()) return result;

  // What a reader of the snapshot applies: the scan planner's assignment of deletes to data
  // files (partition, sequence numbers, referenced data file, bounds).
  iceberg::ScanOptions options;
  options.snapshot_id = snapshot->snapshot_id;
  FLOE_ASSIGN_OR_RETURN(auto scan, iceberg::TableScan::Make(metadata, table.io(), options));
  FLOE_ASSIGN_OR_RETURN(std::vector<iceberg::FileScanTask> tasks, scan->PlanFiles());
  // Deletion vectors share Puffin files: a DV is its file and its blob's offset.
  auto key = [](const iceberg::DataFile& file) {
    std::string k = file.file_path;
    if (file.content_offset) {
      k += '#';
      k += std::to_string(*file.content_offset);
    }
    return k;
  };
  std::unordered_set<std::string> applied;
  for (const iceberg::FileScanTask& task : tasks) {
    for (const auto& d : task.position_deletes) applied.insert(key(d->file));
    for (const auto& d : task.equality_deletes) applied.insert(key(d->file));
  }

  auto rewrite = table.NewRewrite();
  bool any = false;
  for (const iceberg::DataFile& file : delete_files) {
    if (applied.contains(key(file))) continue;
    rewrite->DeleteDeleteFile(file);
    any = true;
    if (file.content == iceberg::FileContent::kEqualityDeletes) {
      ++result.equality_delete_files_removed;
    } else {
      ++result.position_delete_files_removed;
    }
  }
  if (!any) return result;
  rewrite->ValidateFromSnapshot(snapshot->snapshot_id)
      .Set("snapshot-producer", std::string(kCleanDanglingDeleteProducer));
  FLOE_RETURN_IF_ERROR(rewrite->Commit());
  result.snapshot_id = table.metadata()->current_snapshot_id;
  return result;
}

}  // namespace floe::optimize
