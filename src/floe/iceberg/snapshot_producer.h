// Snapshot-producing table updates with Iceberg Java's semantics (SnapshotProducer,
// FastAppend, MergingSnapshotProducer, StreamingDelete, BaseOverwriteFiles, BaseRowDelta,
// BaseRewriteFiles):
//
//   AppendFiles     merge append (Table::NewAppend, Java MergeAppend): one new manifest per
//                   spec for the added files, merged with the parent's manifests as below;
//                   or a fast append (Table::NewFastAppend, Java FastAppend) keeping the
//                   parent's manifests unchanged.
//   DeleteFiles     removes data files by path or by a row filter (files whose rows only
//                   partly match are an error).
//   OverwriteFiles  adds and removes data files, or overwrites by row filter.
//   RowDelta        adds data files and delete files (position deletes, deletion vectors,
//                   equality deletes), removes data and delete files.
//   RewriteFiles    replaces data and delete files (compaction). New data files keep the
//                   starting snapshot's data sequence number, so equality deletes committed
//                   meanwhile still apply (DESIGN.md §4 rule 1).
//
// Manifests that hold removed files are rewritten with those entries DELETED and the
// others EXISTING (sequence numbers and first_row_id carried explicitly); other manifests
// are kept. Every operation but the fast append then merges manifests as Java's
// ManifestMergeManager does (manifest_merge.h; commit.manifest-merge.enabled,
// commit.manifest.min-count-to-merge, commit.manifest.target-size-bytes): data and delete
// manifests apart, per spec, packed from the end into bins of the target size; a bin of
// more than one manifest becomes one manifest, except the bin holding the first manifest
// (the new files' manifest) while it has fewer than min-count-to-merge manifests. A merged
// manifest keeps this commit's ADDED and DELETED entries and carries every other live entry
// as EXISTING with its snapshot id and sequence numbers; older DELETED entries are dropped.
// RewriteManifests rewrites a snapshot's manifests into target-size manifests. New manifests get
// the commit's sequence number from the manifest list writer; v3 snapshots carry first-row-id =
// next-row-id and added-rows from the list writer. Summaries use Java's keys (snapshot_summary.h)
// plus manifests-created/-kept/-replaced.
//
// Validations run against the metadata each attempt applies to and fail with kConflict
// (Java's ValidationException); invalid arguments are kInvalidArgument.
//
// Create the updates from a Table or a Transaction (table.h). Not thread-safe.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "floe/iceberg/expression.h"
#include "floe/iceberg/manifest.h"
#include "floe/iceberg/manifest_reader.h"
#include "floe/iceberg/snapshot_summary.h"
#include "floe/iceberg/table.h"

namespace floe::iceberg {

class ManifestWriter;

// Table property: partitions included in summaries (Java write.summary.partition-limit).
inline constexpr std::string_view kPropertyPartitionSummaryLimit = "write.summary.partition-limit";

// The engine shared by every snapshot-producing update.
class SnapshotProducer : public PendingUpdate {
 public:
  ~SnapshotProducer() override;

  // The snapshot id this update commits (chosen on the first attempt, kept on retries);
  // nullopt before the first Apply.
  std::optional<int64_t> snapshot_id() const { return snapshot_id_; }

  Status Apply(const TableMetadata& base, TableOperations& ops,
               std::vector<TableUpdate>* updates) override;
  void Cleanup(const TableMetadata* committed, TableOperations& ops) override;

  // Adds a check of the metadata each attempt applies to (a retry re-runs it against the
  // refreshed table); an error ends the commit. A writer that keeps its own progress in the
  // table (the table-topic coordinator's offsets) refuses to commit over a change it did
  // not expect, which a plain retry would otherwise rebase over.
  void AddBaseCheck(std::function<Status(const TableMetadata& base)> check) {
    base_checks_.push_back(std::move(check));
  }

 protected:
  SnapshotProducer() = default;

  virtual std::string_view operation() const = 0;
  virtual Status Validate(const TableMetadata& base, const Snapshot* parent, TableOperations& ops) {
    return Status::OK();
  }
  // The fast append keeps the parent's manifests as they are.
  virtual bool fast_append() const { return false; }
  // An operation that builds the snapshot's manifests itself (RewriteManifests) returns
  // them from here; the default file-level engine is used otherwise.
  virtual bool replaces_manifests() const { return false; }
  virtual Result<std::vector<ManifestFile>> ReplaceManifests(const TableMetadata& base,
                                                             const Snapshot* parent,
                                                             TableOperations& ops,
                                                             SnapshotSummaryBuilder* summary) {
    return Status::Internal("ReplaceManifests not implemented");
  }
  // Writes entries to a new manifest of this commit, which Cleanup deletes unless it was
  // committed. `write` adds the entries through the writer.
  Result<ManifestFile> WriteNewManifest(const TableMetadata& base, int32_t spec_id,
                                        ManifestContent content,
                                        const std::function<Status(ManifestWriter&)>& write,
                                        TableOperations& ops);

  // Staging (Java MergingSnapshotProducer.add / delete / deleteByRowFilter).
  void SetBranch(std::string branch) { branch_ = std::move(branch); }
  void SetSummaryProperty(std::string key, std::string value);
  void AddDataFile(const DataFile& file);
  void AddDeleteFile(const DataFile& file, std::optional<int64_t> data_sequence_number);
  void DeleteDataFile(const DataFile& file);
  void DeleteDataPath(std::string path) { delete_data_paths_.insert(std::move(path)); }
  // Removes one delete file; a deletion vector is one blob of its Puffin file (others in the
  // same file stay).
  void DeleteDeleteFile(const DataFile& file);
  void DeleteByRowFilter(ExpressionPtr expr) { delete_expr_ = std::move(expr); }
  void FailMissingDeletePaths() { fail_missing_delete_paths_ = true; }

  bool adds_data_files() const { return !new_data_files_.empty(); }
  bool adds_delete_files() const { return !new_delete_files_.empty(); }
  bool deletes_data_files() const { return !delete_data_paths_.empty() || delete_expr_ != nullptr; }
  bool deletes_delete_files() const { return !delete_delete_paths_.empty(); }

  // Validations (Java MergingSnapshotProducer), over the snapshots after `starting` up to
  // `parent`. A null filter matches every file.
  Status ValidateAddedDataFiles(const TableMetadata& base, std::optional<int64_t> starting,
                                const ExpressionPtr& filter, const Snapshot* parent,
                                TableOperations& ops);
  Status ValidateNoNewDeleteFiles(const TableMetadata& base, std::optional<int64_t> starting,
                                  const ExpressionPtr& filter, const Snapshot* parent,
                                  TableOperations& ops);
  Status ValidateNoNewDeletesForDataFiles(const TableMetadata& base,
                                          std::optional<int64_t> starting,
                                          const ExpressionPtr& filter,
                                          const std::vector<DataFile>& data_files,
                                          bool ignore_equality_deletes, const Snapshot* parent,
                                          TableOperations& ops);
  Status ValidateDeletedDataFiles(const TableMetadata& base, std::optional<int64_t> starting,
                                  const ExpressionPtr& filter, const Snapshot* parent,
                                  TableOperations& ops);
  Status ValidateDataFilesExist(const TableMetadata& base, std::optional<int64_t> starting,
                                const std::set<std::string>& paths, bool skip_deletes,
                                const ExpressionPtr& filter, const Snapshot* parent,
                                TableOperations& ops);
  Status ValidateAddedDVs(const TableMetadata& base, std::optional<int64_t> starting,
                          const ExpressionPtr& filter, const Snapshot* parent,
                          TableOperations& ops);
  // DESIGN.md §4 rule 2: every removed delete file must no longer apply to a data file that
  // stays live, unless this commit adds a file-scoped delete for that data file (which
  // must then carry the removed deletes' rows) or names it in rescoped_data_files_.
  // kConflict otherwise.
  Status ValidateRemovedDeletesUnneeded(const TableMetadata& base, const Snapshot* parent,
                                        TableOperations& ops);

  std::optional<int64_t> new_data_sequence_number_;
  bool case_sensitive_ = true;
  bool replace_previous_dvs_ = false;  // RowDelta: a new DV replaces the data file's old DV
  // RewriteFiles: a delete file to remove that is already gone is fine (same outcome).
  bool tolerate_missing_delete_files_ = false;
  // RewriteFiles::DeletesRestated: data files whose deletes at the starting snapshot this
  // commit restates in file-scoped form (nothing, when they deleted no row).
  std::set<std::string> rescoped_data_files_;

 private:
  // A parent manifest after filtering: the same manifest, or a rewritten copy.
  struct Filtered {
    ManifestFile manifest;
    bool replaced = false;
    std::vector<DataFile> deleted;
    int64_t duplicates = 0;
  };
  struct Written {
    std::vector<ManifestFile> manifests;
    SnapshotSummaryBuilder summary;
  };
  Result<Written> ApplyManifests(const TableMetadata& base, const Snapshot* parent,
                                 TableOperations& ops);
  Result<std::vector<ManifestFile>> NewDataManifests(const TableMetadata& base,
                                                     TableOperations& ops);
  Result<std::vector<ManifestFile>> NewDeleteManifests(const TableMetadata& base,
                                                       TableOperations& ops);
  using FilesWithSequence = std::vector<std::pair<DataFile, std::optional<int64_t>>>;
  Result<ManifestFile> WriteManifest(const TableMetadata& base, int32_t spec_id,
                                     ManifestContent content, const FilesWithSequence& files,
                                     TableOperations& ops);
  std::string NextManifestPath(const TableMetadata& base);
  // Java ManifestMergeManager.mergeManifests over one content's manifests, in order.
  // `replaced` counts the parent manifests merged away.
  Result<std::vector<ManifestFile>> MergeManifests(const TableMetadata& base,
                                                   std::vector<ManifestFile> manifests,
                                                   TableOperations& ops, int64_t* replaced);
  Result<ManifestFile> MergeBin(const TableMetadata& base, int32_t spec_id,
                                const std::vector<const ManifestFile*>& bin, TableOperations& ops);

  std::string branch_{kMainBranch};
  std::vector<std::function<Status(const TableMetadata&)>> base_checks_;
  std::vector<std::pair<std::string, std::string>> summary_properties_;
  std::map<int32_t, std::vector<DataFile>> new_data_files_;  // by spec id
  std::set<std::string> new_data_paths_;
  std::vector<std::pair<DataFile, std::optional<int64_t>>> new_delete_files_;
  std::set<std::string> new_delete_paths_;  // DeleteFileKey()s
  std::set<std::string> delete_data_paths_;
  std::set<std::string> delete_delete_paths_;  // DeleteFileKey()s
  ExpressionPtr delete_expr_;
  bool fail_missing_delete_paths_ = false;

  // Kept across attempts.
  std::optional<int64_t> snapshot_id_;
  std::string commit_uuid_;
  int64_t manifest_count_ = 0;
  int64_t attempt_ = 0;
  std::vector<ManifestFile> new_data_manifests_;
  std::vector<ManifestFile> new_delete_manifests_;
  std::map<std::string, std::unique_ptr<Filtered>> filtered_;  // by source manifest path
  // Merged manifests by the paths of their bin (Java mergedManifests), reused on retries.
  std::map<std::vector<std::string>, ManifestFile> merged_;
  std::set<std::string> written_manifests_;
  std::vector<std::string> written_lists_;
};

class AppendFiles final : public SnapshotProducer {
 public:
  AppendFiles& AppendFile(const DataFile& file) {
    AddDataFile(file);
    return *this;
  }
  AppendFiles& ToBranch(std::string branch) {
    SetBranch(std::move(branch));
    return *this;
  }
  AppendFiles& Set(std::string key, std::string value) {
    SetSummaryProperty(std::move(key), std::move(value));
    return *this;
  }

 private:
  friend class Table;
  friend class Transaction;
  explicit AppendFiles(bool fast) : fast_(fast) {}
  std::string_view operation() const override { return kOperationAppend; }
  bool fast_append() const override { return fast_; }

  bool fast_;
};

class DeleteFiles final : public SnapshotProducer {
 public:
  DeleteFiles& DeleteFile(std::string path) {
    DeleteDataPath(std::move(path));
    return *this;
  }
  DeleteFiles& DeleteFile(const DataFile& file) {
    DeleteDataFile(file);
    return *this;
  }
  // Removes the data files whose rows all match `expr` (strict partition and metrics
  // evaluation); a file whose rows may only partly match fails the commit
  // (kInvalidArgument, as Java's "Cannot delete file where some, but not all, rows match").
  DeleteFiles& DeleteFromRowFilter(ExpressionPtr expr) {
    DeleteByRowFilter(std::move(expr));
    return *this;
  }
  DeleteFiles& ValidateFilesExist() {
    FailMissingDeletePaths();
    return *this;
  }
  DeleteFiles& CaseSensitive(bool v) {
    case_sensitive_ = v;
    return *this;
  }
  DeleteFiles& ToBranch(std::string branch) {
    SetBranch(std::move(branch));
    return *this;
  }
  DeleteFiles& Set(std::string key, std::string value) {
    SetSummaryProperty(std::move(key), std::move(value));
    return *this;
  }

 private:
  friend class Table;
  friend class Transaction;
  DeleteFiles() = default;
  std::string_view operation() const override { return kOperationDelete; }
};

class OverwriteFiles final : public SnapshotProducer {
 public:
  OverwriteFiles& AddFile(const DataFile& file) {
    AddDataFile(file);
    return *this;
  }
  OverwriteFiles& DeleteFile(const DataFile& file) {
    DeleteDataFile(file);
    deleted_data_files_.push_back(file);
    return *this;
  }
  OverwriteFiles& DeleteDeleteFile(const DataFile& file) {
    SnapshotProducer::DeleteDeleteFile(file);
    return *this;
  }
  OverwriteFiles& OverwriteByRowFilter(ExpressionPtr expr) {
    row_filter_ = expr;
    DeleteByRowFilter(std::move(expr));
    return *this;
  }
  OverwriteFiles& ValidateFromSnapshot(int64_t snapshot_id) {
    starting_snapshot_id_ = snapshot_id;
    return *this;
  }
  OverwriteFiles& ConflictDetectionFilter(ExpressionPtr filter) {
    conflict_filter_ = std::move(filter);
    return *this;
  }
  OverwriteFiles& ValidateNoConflictingData() {
    validate_new_data_ = true;
    FailMissingDeletePaths();
    return *this;
  }
  OverwriteFiles& ValidateNoConflictingDeletes() {
    validate_new_deletes_ = true;
    FailMissingDeletePaths();
    return *this;
  }
  OverwriteFiles& CaseSensitive(bool v) {
    case_sensitive_ = v;
    return *this;
  }
  OverwriteFiles& ToBranch(std::string branch) {
    SetBranch(std::move(branch));
    return *this;
  }
  OverwriteFiles& Set(std::string key, std::string value) {
    SetSummaryProperty(std::move(key), std::move(value));
    return *this;
  }

 private:
  friend class Table;
  friend class Transaction;
  OverwriteFiles() = default;
  std::string_view operation() const override;
  Status Validate(const TableMetadata& base, const Snapshot* parent, TableOperations& ops) override;

  std::vector<DataFile> deleted_data_files_;
  ExpressionPtr row_filter_;
  std::optional<int64_t> starting_snapshot_id_;
  ExpressionPtr conflict_filter_;
  bool validate_new_data_ = false;
  bool validate_new_deletes_ = false;
};

class RowDelta final : public SnapshotProducer {
 public:
  RowDelta& AddRows(const DataFile& file) {
    AddDataFile(file);
    return *this;
  }
  // A position delete file, deletion vector or equality delete file. In v3 a new DV for a
  // data file replaces the DV the table has for it (that entry is marked DELETED).
  RowDelta& AddDeletes(const DataFile& file) {
    AddDeleteFile(file, std::nullopt);
    return *this;
  }
  RowDelta& RemoveRows(const DataFile& file) {
    DeleteDataFile(file);
    removed_data_files_.push_back(file);
    return *this;
  }
  RowDelta& RemoveDeletes(const DataFile& file) {
    DeleteDeleteFile(file);
    return *this;
  }
  RowDelta& ValidateFromSnapshot(int64_t snapshot_id) {
    starting_snapshot_id_ = snapshot_id;
    return *this;
  }
  RowDelta& ValidateDeletedFiles() {
    validate_deletes_ = true;
    return *this;
  }
  RowDelta& ValidateDataFilesExist(const std::vector<std::string>& paths) {
    referenced_data_files_.insert(paths.begin(), paths.end());
    return *this;
  }
  RowDelta& ConflictDetectionFilter(ExpressionPtr filter) {
    conflict_filter_ = std::move(filter);
    return *this;
  }
  RowDelta& ValidateNoConflictingDataFiles() {
    validate_new_data_ = true;
    return *this;
  }
  RowDelta& ValidateNoConflictingDeleteFiles() {
    validate_new_deletes_ = true;
    return *this;
  }
  RowDelta& CaseSensitive(bool v) {
    case_sensitive_ = v;
    return *this;
  }
  RowDelta& ToBranch(std::string branch) {
    SetBranch(std::move(branch));
    return *this;
  }
  RowDelta& Set(std::string key, std::string value) {
    SetSummaryProperty(std::move(key), std::move(value));
    return *this;
  }

 private:
  friend class Table;
  friend class Transaction;
  RowDelta() { replace_previous_dvs_ = true; }
  std::string_view operation() const override;
  Status Validate(const TableMetadata& base, const Snapshot* parent, TableOperations& ops) override;

  std::vector<DataFile> removed_data_files_;
  std::set<std::string> referenced_data_files_;
  std::optional<int64_t> starting_snapshot_id_;
  ExpressionPtr conflict_filter_;
  bool validate_deletes_ = false;
  bool validate_new_data_ = false;
  bool validate_new_deletes_ = false;
};

class RewriteFiles final : public SnapshotProducer {
 public:
  RewriteFiles& DeleteFile(const DataFile& data_file) {
    DeleteDataFile(data_file);
    replaced_data_files_.push_back(data_file);
    return *this;
  }
  RewriteFiles& DeleteDeleteFile(const DataFile& delete_file) {
    SnapshotProducer::DeleteDeleteFile(delete_file);
    return *this;
  }
  RewriteFiles& AddFile(const DataFile& data_file) {
    AddDataFile(data_file);
    return *this;
  }
  RewriteFiles& AddDeleteFile(const DataFile& delete_file,
                              std::optional<int64_t> data_sequence_number = std::nullopt) {
    SnapshotProducer::AddDeleteFile(delete_file, data_sequence_number);
    return *this;
  }
  // Declares that every delete of the starting snapshot that applies to data file `path`
  // is restated by this commit's new file-scoped delete for it, or deleted none of its rows
  // (then no new delete is written): the removed delete files no longer need to apply to
  // it (ValidateRemovedDeletesUnneeded). A new file-scoped delete declares this by itself.
  RewriteFiles& DeletesRestated(std::string path) {
    rescoped_data_files_.insert(std::move(path));
    return *this;
  }
  // The snapshot the rewrite read. Validations cover the snapshots committed after it, and
  // (unless DataSequenceNumber is given) the new data files take its sequence number.
  RewriteFiles& ValidateFromSnapshot(int64_t snapshot_id) {
    starting_snapshot_id_ = snapshot_id;
    return *this;
  }
  // An explicit data sequence number for the new data files.
  RewriteFiles& DataSequenceNumber(int64_t sequence_number) {
    explicit_sequence_number_ = sequence_number;
    return *this;
  }
  RewriteFiles& ToBranch(std::string branch) {
    SetBranch(std::move(branch));
    return *this;
  }
  RewriteFiles& Set(std::string key, std::string value) {
    SetSummaryProperty(std::move(key), std::move(value));
    return *this;
  }

 private:
  friend class Table;
  friend class Transaction;
  RewriteFiles() { FailMissingDeletePaths(); }
  std::string_view operation() const override { return kOperationReplace; }
  Status Validate(const TableMetadata& base, const Snapshot* parent, TableOperations& ops) override;

  std::vector<DataFile> replaced_data_files_;
  std::optional<int64_t> starting_snapshot_id_;
  std::optional<int64_t> explicit_sequence_number_;
};

// Rewrites manifests of the branch's snapshot (Java BaseRewriteManifests with the Spark
// action's sizing, RewriteManifestsSparkAction): the selected manifests of each content and
// spec are read, their live entries clustered by partition and written as EXISTING
// (snapshot ids, data and file sequence numbers and first_row_id unchanged) into
// ceil(selected bytes / commit.manifest.target-size-bytes) manifests of equal entry
// counts; other manifests are kept. Operation "replace", no file changes; summary
// manifests-created / -kept / -replaced and entries-processed. A retry keeps the manifests
// already written; kConflict when a selected manifest is no longer in the snapshot
// (Java "Manifest is missing").
class RewriteManifests final : public SnapshotProducer {
 public:
  // Which manifests to rewrite (default: all of them).
  RewriteManifests& RewriteIf(std::function<bool(const ManifestFile&)> predicate) {
    predicate_ = std::move(predicate);
    return *this;
  }
  RewriteManifests& ToBranch(std::string branch) {
    SetBranch(std::move(branch));
    return *this;
  }
  RewriteManifests& Set(std::string key, std::string value) {
    SetSummaryProperty(std::move(key), std::move(value));
    return *this;
  }
  // After Commit(): manifests rewritten and written.
  int64_t rewritten_manifests() const { return static_cast<int64_t>(selected_.size()); }
  int64_t added_manifests() const { return static_cast<int64_t>(written_.size()); }

 private:
  friend class Table;
  friend class Transaction;
  RewriteManifests() = default;
  std::string_view operation() const override { return kOperationReplace; }
  bool replaces_manifests() const override { return true; }
  Result<std::vector<ManifestFile>> ReplaceManifests(const TableMetadata& base,
                                                     const Snapshot* parent, TableOperations& ops,
                                                     SnapshotSummaryBuilder* summary) override;

  std::function<bool(const ManifestFile&)> predicate_;
  std::set<std::string> selected_;     // paths rewritten, chosen on the first attempt
  std::vector<ManifestFile> written_;  // their replacements, kept across attempts
  int64_t entries_processed_ = 0;
  int64_t live_files_ = 0;
  bool chosen_ = false;
};

// The manifest list of `snapshot` (empty for a snapshot without one). kUnimplemented for
// v1 snapshots that embed their manifests.
Result<std::vector<ManifestFile>> ReadSnapshotManifests(const Snapshot& snapshot, io::FileIO& io);
// The entries of `manifest` (inheritance applied, data_file.spec_id set), with the partition
// type of its spec in `metadata`.
Result<std::vector<ManifestEntry>> ReadManifestEntries(const TableMetadata& metadata,
                                                       const ManifestFile& manifest, io::FileIO& io,
                                                       ManifestEntryFilter filter,
                                                       bool read_stats = true);

// A snapshot id from a random UUID, as Java's SnapshotIdGeneratorUtil (halves XORed,
// masked non-negative).
int64_t SnapshotIdFromUuid(std::string_view uuid);

}  // namespace floe::iceberg
