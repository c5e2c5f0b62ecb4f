// Table maintenance that removes what a table no longer needs (Amoro's "clean-orphan-files"
// and "clean-dangling-delete-files" actions), with the table's MaintenanceConfig
// (optimizing_config.h):
//   - orphan files: files under the table's data and metadata directories that no metadata
//     file, snapshot, manifest list, manifest or statistics file of the table references —
//     left by failed writers and by commits that lost (Iceberg Java's DeleteOrphanFiles).
//   - dangling delete files: delete files of the current snapshot that apply to no live data
//     file (their data was rewritten or deleted), which every reader still has to open.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "floe/base/status.h"
#include "floe/iceberg/table.h"
#include "floe/io/file_io.h"

namespace floe::optimize {

struct OrphanCleaningResult {
  int64_t content_files_deleted = 0;   // under the data directory
  int64_t metadata_files_deleted = 0;  // under the metadata directory
  int64_t bytes_deleted = 0;
  // Unreferenced but younger than the minimum age (a writer may be about to commit them).
  int64_t too_young = 0;
  int64_t failed_deletes = 0;  // left behind; the next run tries again
};

// One spelling per file for comparing references with listings: `file:/p` and `file:///p`
// are `/p`, and `s3a://` / `s3n://` are `s3://` (Iceberg Java's default equal schemes).
std::string NormalizeLocation(std::string_view location);

// Every file `metadata` references (normalized): the current and logged metadata files, each
// snapshot's manifest list, manifests and their entries of any status, statistics and
// partition statistics files. Errors: reading a manifest list or manifest; a caller must then
// delete nothing, since it cannot tell what is referenced.
Result<std::vector<std::string>> ReferencedFiles(const iceberg::TableMetadata& metadata,
                                                 io::FileIO& io);

// The directories orphan cleaning lists: the data directory (write.data.path, else
// <location>/data) and the metadata directory (write.metadata.path, else
// <location>/metadata), each ending in '/'; one entry when they are the same.
std::vector<std::string> OrphanCleaningDirectories(const iceberg::TableMetadata& metadata);

// Deletes the files under the table's data directory (write.data.path, else
// <location>/data) and metadata directory (write.metadata.path, else <location>/metadata)
// that ReferencedFiles does not name and that were last modified before now_ms -
// min_age_ms. The metadata directory's version-hint.text is kept.
//
// Listings first, then `table` is refreshed and its references read: whatever `table`
// held may be stale (an evaluation that began before later commits), and a commit's files
// are not always young (files added by reference, a writer slower than the bound), so the
// references must be at least as new as the listing. A commit after the refresh writes
// young files, which the bound keeps. Nothing is deleted when the refreshed table sets
// gc.enabled=false, or when the refreshed table's directories are no longer the ones the
// caller checked (`checked_directories`, OrphanCleaningDirectories of the metadata it
// confined: a commit moved them meanwhile; kConflict, nothing deleted). Errors: a listing, the
// refresh or a referenced file that cannot be read (then nothing is deleted).
Result<OrphanCleaningResult> CleanOrphanFiles(iceberg::Table& table, int64_t now_ms,
                                              int64_t min_age_ms,
                                              const std::vector<std::string>& checked_directories);

struct DanglingDeleteResult {
  int64_t position_delete_files_removed = 0;  // deletion vectors included
  int64_t equality_delete_files_removed = 0;
  std::optional<int64_t> snapshot_id;  // the commit that removed them, if any
};

// Removes from the current snapshot of main the delete files that a scan of it assigns to
// no data file, in one rewrite commit (snapshot-producer CLEAN_DANGLING_DELETE, as Amoro)
// validated from the snapshot that was planned. Nothing to do without delete files. The
// removed files stay on storage until snapshot expiry drops the snapshots that reach them.
Result<DanglingDeleteResult> CleanDanglingDeleteFiles(iceberg::Table& table);

}  // namespace floe::optimize
