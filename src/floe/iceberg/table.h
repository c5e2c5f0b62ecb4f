// Table and Transaction: the write side of an Iceberg table. A Table is a handle on a
// catalog's TableOperations and the metadata it last saw; operations created from it
// (appends, row deltas, rewrites, schema and spec changes, snapshot management) commit as
// one `TableOperations::Commit(requirements, updates)` each, or together through a
// Transaction.
//
// Commits follow Iceberg Java (SnapshotProducer.commit, BaseTransaction): the requirements
// are those Java's UpdateRequirements derives from the updates (assert-table-uuid,
// assert-ref-snapshot-id for every changed ref, ...); a kConflict from the catalog means
// nothing was committed, so the table is refreshed, every staged operation is applied
// again to the new metadata (re-running its validations, reusing manifests it already
// wrote) and the commit retried up to `commit.retry.num-retries` times with exponential
// backoff between `commit.retry.min-wait-ms` and `commit.retry.max-wait-ms`. Files written
// by attempts that certainly did not commit are deleted; after an error with an unknown
// outcome nothing is deleted.
//
// Thread-safety: a Table, a Transaction and the operations are used by one thread at a time.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "floe/base/status.h"
#include "floe/iceberg/table_metadata.h"
#include "floe/iceberg/table_operations.h"
#include "floe/iceberg/table_update.h"

namespace floe::iceberg {

class AppendFiles;
class DeleteFiles;
class OverwriteFiles;
class RowDelta;
class RewriteManifests;
class RewriteFiles;
class UpdateSchema;
class UpdatePartitionSpec;
class ReplaceSortOrder;
class UpdateProperties;
class UpgradeFormatVersion;
class ManageSnapshots;
class ExpireSnapshots;
class Table;
class Transaction;

// Table properties of the commit loop (Java TableProperties), with Java's defaults.
inline constexpr std::string_view kPropertyCommitNumRetries = "commit.retry.num-retries";
inline constexpr std::string_view kPropertyCommitMinWaitMs = "commit.retry.min-wait-ms";
inline constexpr std::string_view kPropertyCommitMaxWaitMs = "commit.retry.max-wait-ms";

struct CommitRetryPolicy {
  int64_t num_retries = 4;
  int64_t min_wait_ms = 100;
  int64_t max_wait_ms = 60000;

  static CommitRetryPolicy FromProperties(const TableMetadata& metadata);
  // The wait before retry `retry` (1-based): min_wait * 2^(retry-1), capped at max_wait.
  int64_t WaitMs(int64_t retry) const;
};

// Sleeps `ms` milliseconds between commit attempts; tests inject one that records.
using Sleeper = std::function<void(int64_t ms)>;

// The requirements Java's UpdateRequirements.forUpdateTable sends for `updates` made
// against `base`: assert-table-uuid, then per update type (set-snapshot-ref ->
// assert-ref-snapshot-id once per ref, add-schema -> assert-last-assigned-field-id, ...).
std::vector<TableRequirement> RequirementsForUpdate(const TableMetadata& base,
                                                    const std::vector<TableUpdate>& updates);

// One staged change. Apply() may run several times (once per commit attempt) against
// different metadata; implementations keep what they can reuse between attempts.
class PendingUpdate {
 public:
  virtual ~PendingUpdate() = default;

  // Appends this change as table updates made against `base` (the table's metadata with
  // the transaction's earlier changes applied). Errors end the commit: kConflict when a
  // validation finds a concurrent change this update cannot be rebased over,
  // kInvalidArgument for an invalid change.
  virtual Status Apply(const TableMetadata& base, TableOperations& ops,
                       std::vector<TableUpdate>* updates) = 0;

  // Called once after the commit. `committed` is the committed metadata, or nullptr when
  // the commit certainly failed; not called when the outcome is unknown. Deletes the files
  // written by attempts that are not part of `committed`.
  virtual void Cleanup(const TableMetadata* committed, TableOperations& ops) {}

  // Stages this update in its transaction, or commits it alone for an update created from
  // a Table.
  Status Commit();

 protected:
  PendingUpdate() = default;

 private:
  friend class Table;
  friend class Transaction;
  Table* table_ = nullptr;
  Transaction* transaction_ = nullptr;
  bool committed_ = false;
};

class Table {
 public:
  // REQUIRES: `ops` outlives the table. `metadata` is the current metadata (from
  // ops.Refresh() or a catalog load).
  Table(TableOperations& ops, TableMetadataPtr metadata);
  // Loads the current metadata through ops.Refresh().
  static Result<std::unique_ptr<Table>> Load(TableOperations& ops);

  const std::string& name() const { return ops_.name(); }
  const TableMetadataPtr& metadata() const { return metadata_; }
  io::FileIO& io() { return ops_.io(); }
  TableOperations& operations() { return ops_; }

  // Reloads the metadata from the catalog.
  Status Refresh();

  // The sleeper between commit attempts (default: std::this_thread::sleep_for).
  void set_sleeper(Sleeper sleeper) { sleeper_ = std::move(sleeper); }

  // A merge append (Java newAppend); NewFastAppend keeps the parent's manifests as they are.
  std::unique_ptr<AppendFiles> NewAppend();
  std::unique_ptr<AppendFiles> NewFastAppend();
  std::unique_ptr<RewriteManifests> NewRewriteManifests();
  std::unique_ptr<DeleteFiles> NewDelete();
  std::unique_ptr<OverwriteFiles> NewOverwrite();
  std::unique_ptr<RowDelta> NewRowDelta();
  std::unique_ptr<RewriteFiles> NewRewrite();
  std::unique_ptr<UpdateSchema> NewUpdateSchema();
  std::unique_ptr<UpdatePartitionSpec> NewUpdateSpec();
  std::unique_ptr<ReplaceSortOrder> NewReplaceSortOrder();
  std::unique_ptr<UpdateProperties> NewUpdateProperties();
  std::unique_ptr<UpgradeFormatVersion> NewUpgradeFormatVersion();
  std::unique_ptr<ManageSnapshots> NewManageSnapshots();
  std::unique_ptr<ExpireSnapshots> NewExpireSnapshots();
  std::unique_ptr<Transaction> NewTransaction();

 private:
  friend class Transaction;
  friend class PendingUpdate;
  friend class ExpireSnapshots;
  template <typename T>
  std::unique_ptr<T> Attach(std::unique_ptr<T> update);
  void Sleep(int64_t ms);

  TableOperations& ops_;
  TableMetadataPtr metadata_;
  Sleeper sleeper_;
};

// Several updates committed atomically. Updates created here are staged by their Commit()
// (which applies them to current() at once, so errors show early) and committed together
// by Transaction::Commit().
class Transaction {
 public:
  explicit Transaction(Table& table);
  ~Transaction();

  // The table's metadata with the staged updates applied.
  const TableMetadataPtr& current() const { return current_; }

  AppendFiles& NewAppend();
  AppendFiles& NewFastAppend();
  DeleteFiles& NewDelete();
  OverwriteFiles& NewOverwrite();
  RowDelta& NewRowDelta();
  RewriteFiles& NewRewrite();
  UpdateSchema& NewUpdateSchema();
  UpdatePartitionSpec& NewUpdateSpec();
  ReplaceSortOrder& NewReplaceSortOrder();
  UpdateProperties& NewUpdateProperties();
  UpgradeFormatVersion& NewUpgradeFormatVersion();
  ManageSnapshots& NewManageSnapshots();

  // Commits the staged updates with the retry loop described at the top of this file and
  // updates the table's metadata. kFailedPrecondition if an update created here was not
  // committed (staged) or the transaction already committed; kConflict when validations
  // fail on a concurrent change or retries ran out; other catalog errors as returned.
  Status Commit();

 private:
  friend class PendingUpdate;
  friend class Table;
  template <typename T>
  T& Attach(std::unique_ptr<T> update);
  Status Stage(PendingUpdate* update);
  Status CommitWithRetry();
  void CleanupAll(const TableMetadata* committed);

  Table& table_;
  TableMetadataPtr base_;
  TableMetadataPtr current_;
  std::vector<std::unique_ptr<PendingUpdate>> owned_;
  std::vector<PendingUpdate*> staged_;
  std::vector<TableUpdate> updates_;  // raw updates of the staged updates, in order
  bool committed_ = false;
};

}  // namespace floe::iceberg
