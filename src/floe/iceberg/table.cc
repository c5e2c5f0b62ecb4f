#include "floe/iceberg/table.h"

#include <chrono>
#include <set>
#include <thread>
#include <type_traits>
#include <variant>

#include "floe/base/macros.h"
#include "floe/iceberg/expire_snapshots.h"
#include "floe/iceberg/metadata_updates.h"
#include "floe/iceberg/snapshot_producer.h"
#include "floe/iceberg/table_metadata_builder.h"

namespace floe::iceberg {

CommitRetryPolicy CommitRetryPolicy::FromProperties(const TableMetadata& metadata) {
  CommitRetryPolicy p;
  p.num_retries = std::max<int64_t>(0, metadata.PropertyAsInt(kPropertyCommitNumRetries, 4));
  p.min_wait_ms = std::max<int64_t>(0, metadata.PropertyAsInt(kPropertyCommitMinWaitMs, 100));
  p.max_wait_ms = std::max<int64_t>(0, metadata.PropertyAsInt(kPropertyCommitMaxWaitMs, 60000));
  return p;
}

int64_t CommitRetryPolicy::WaitMs(int64_t retry) const {
  int64_t wait = min_wait_ms;
  for (int64_t i = 1; i < retry && wait < max_wait_ms; ++i) {
    if (__builtin_mul_overflow(wait, 2, &wait)) wait = max_wait_ms;
  }
  return std::min(wait, max_wait_ms);
}

std::vector<TableRequirement> RequirementsForUpdate(const TableMetadata& base,
                                                    const std::vector<TableUpdate>& updates) {
  std::vector<TableRequirement> out;
  out.push_back(requirement::AssertTableUuid{base.table_uuid.value_or("")});
  std::set<std::string> changed_refs;
  bool added_schema = false, set_schema_id = false, added_spec = false, set_spec_id = false,
       set_order_id = false;
  auto require_schema = [&] {
    if (!set_schema_id) out.push_back(requirement::AssertCurrentSchemaId{base.current_schema_id});
    set_schema_id = true;
  };
  auto require_spec = [&] {
    if (!set_spec_id) out.push_back(requirement::AssertDefaultSpecId{base.default_spec_id});
    set_spec_id = true;
  };
  auto require_branches = [&] {
    for (const auto& [name, ref] : base.refs) {
      if (ref.is_branch() && name != kMainBranch) {
        out.push_back(requirement::AssertRefSnapshotId{name, ref.snapshot_id});
      }
    }
  };
  for (const TableUpdate& u : updates) {
    std::visit(
        [&](const auto& x) {
          using T = std::decay_t<decltype(x)>;
          if constexpr (std::is_same_v<T, update::SetSnapshotRef>) {
            if (changed_refs.insert(x.ref_name).second) {
              const SnapshotRef* ref = base.ref(x.ref_name);
              out.push_back(requirement::AssertRefSnapshotId{
                  x.ref_name, ref ? std::optional<int64_t>(ref->snapshot_id) : std::nullopt});
            }
          } else if constexpr (std::is_same_v<T, update::AddSchema>) {
            if (!added_schema) {
              out.push_back(requirement::AssertLastAssignedFieldId{base.last_column_id});
            }
            added_schema = true;
          } else if constexpr (std::is_same_v<T, update::SetCurrentSchema>) {
            require_schema();
          } else if constexpr (std::is_same_v<T, update::AddSpec>) {
            if (!added_spec) {
              out.push_back(requirement::AssertLastAssignedPartitionId{base.last_partition_id});
            }
            added_spec = true;
          } else if constexpr (std::is_same_v<T, update::SetDefaultSpec>) {
            require_spec();
          } else if constexpr (std::is_same_v<T, update::SetDefaultSortOrder>) {
            if (!set_order_id) {
              out.push_back(requirement::AssertDefaultSortOrderId{base.default_sort_order_id});
            }
            set_order_id = true;
          } else if constexpr (std::is_same_v<T, update::RemovePartitionSpecs>) {
            require_spec();
            require_branches();
          } else if constexpr (std::is_same_v<T, update::RemoveSchemas>) {
            require_schema();
            require_branches();
          }
        },
        u);
  }
  return out;
}

namespace {

struct Applied {
  TableMetadataPtr metadata;
  std::vector<TableUpdate> changes;
};

Result<Applied> ApplyUpdates(const TableMetadataPtr& base, const std::vector<TableUpdate>& updates,
                             int64_t now_ms) {
  TableMetadataBuilder builder = TableMetadataBuilder::From(base);
  FLOE_RETURN_IF_ERROR(builder.ApplyAll(updates));
  Applied out;
  out.changes = builder.changes();
  FLOE_ASSIGN_OR_RETURN(out.metadata, builder.Build(now_ms));
  return out;
}

// A commit error after which the catalog certainly did not commit.
bool CertainlyFailed(const Status& s) {
  return s.code() == StatusCode::kConflict || s.code() == StatusCode::kInvalidArgument ||
         s.code() == StatusCode::kFailedPrecondition || s.code() == StatusCode::kNotFound;
}

}  // namespace

Status PendingUpdate::Commit() {
  if (committed_) return Status::FailedPrecondition("update already committed");
  if (transaction_ != nullptr) return transaction_->Stage(this);
  if (table_ == nullptr) return Status::FailedPrecondition("update is not attached to a table");
  // Like Java's SnapshotProducer.apply(), a standalone commit starts from fresh metadata.
  FLOE_RETURN_IF_ERROR(table_->Refresh());
  Transaction tx(*table_);
  FLOE_RETURN_IF_ERROR(tx.Stage(this));
  return tx.Commit();
}

Table::Table(TableOperations& ops, TableMetadataPtr metadata)
    : ops_(ops), metadata_(std::move(metadata)) {}

Result<std::unique_ptr<Table>> Table::Load(TableOperations& ops) {
  FLOE_ASSIGN_OR_RETURN(TableMetadataPtr md, ops.Refresh());
  return std::make_unique<Table>(ops, std::move(md));
}

Status Table::Refresh() {
  FLOE_ASSIGN_OR_RETURN(metadata_, ops_.Refresh());
  return Status::OK();
}

void Table::Sleep(int64_t ms) {
  if (ms <= 0) return;
  if (sleeper_) {
    sleeper_(ms);
  } else {
    std::this_thread::sleep_for(std::chrono::milliseconds(ms));
  }
}

template <typename T>
std::unique_ptr<T> Table::Attach(std::unique_ptr<T> update) {
  update->table_ = this;
  return update;
}

std::unique_ptr<AppendFiles> Table::NewAppend() {
  return Attach(std::unique_ptr<AppendFiles>(new AppendFiles(/*fast=*/false)));
}
std::unique_ptr<AppendFiles> Table::NewFastAppend() {
  return Attach(std::unique_ptr<AppendFiles>(new AppendFiles(/*fast=*/true)));
}
std::unique_ptr<RewriteManifests> Table::NewRewriteManifests() {
  return Attach(std::unique_ptr<RewriteManifests>(new RewriteManifests()));
}
std::unique_ptr<DeleteFiles> Table::NewDelete() {
  return Attach(std::unique_ptr<DeleteFiles>(new DeleteFiles()));
}
std::unique_ptr<OverwriteFiles> Table::NewOverwrite() {
  return Attach(std::unique_ptr<OverwriteFiles>(new OverwriteFiles()));
}
std::unique_ptr<RowDelta> Table::NewRowDelta() {
  return Attach(std::unique_ptr<RowDelta>(new RowDelta()));
}
std::unique_ptr<RewriteFiles> Table::NewRewrite() {
  return Attach(std::unique_ptr<RewriteFiles>(new RewriteFiles()));
}
std::unique_ptr<UpdateSchema> Table::NewUpdateSchema() {
  return Attach(std::unique_ptr<UpdateSchema>(new UpdateSchema(metadata_)));
}
std::unique_ptr<UpdatePartitionSpec> Table::NewUpdateSpec() {
  return Attach(std::unique_ptr<UpdatePartitionSpec>(new UpdatePartitionSpec(metadata_)));
}
std::unique_ptr<ReplaceSortOrder> Table::NewReplaceSortOrder() {
  return Attach(std::unique_ptr<ReplaceSortOrder>(new ReplaceSortOrder()));
}
std::unique_ptr<UpdateProperties> Table::NewUpdateProperties() {
  return Attach(std::unique_ptr<UpdateProperties>(new UpdateProperties()));
}
std::unique_ptr<UpgradeFormatVersion> Table::NewUpgradeFormatVersion() {
  return Attach(std::unique_ptr<UpgradeFormatVersion>(new UpgradeFormatVersion()));
}
std::unique_ptr<ManageSnapshots> Table::NewManageSnapshots() {
  return Attach(std::unique_ptr<ManageSnapshots>(new ManageSnapshots()));
}
std::unique_ptr<ExpireSnapshots> Table::NewExpireSnapshots() {
  return Attach(std::unique_ptr<ExpireSnapshots>(new ExpireSnapshots()));
}
std::unique_ptr<Transaction> Table::NewTransaction() {
  return std::make_unique<Transaction>(*this);
}

Transaction::Transaction(Table& table)
    : table_(table), base_(table.metadata()), current_(table.metadata()) {}

Transaction::~Transaction() {
  // Abandoned: the staged updates' files were never committed.
  if (!committed_) CleanupAll(nullptr);
}

template <typename T>
T& Transaction::Attach(std::unique_ptr<T> update) {
  update->transaction_ = this;
  T& ref = *update;
  owned_.push_back(std::move(update));
  return ref;
}

AppendFiles& Transaction::NewAppend() {
  return Attach(std::unique_ptr<AppendFiles>(new AppendFiles(/*fast=*/false)));
}
AppendFiles& Transaction::NewFastAppend() {
  return Attach(std::unique_ptr<AppendFiles>(new AppendFiles(/*fast=*/true)));
}
DeleteFiles& Transaction::NewDelete() {
  return Attach(std::unique_ptr<DeleteFiles>(new DeleteFiles()));
}
OverwriteFiles& Transaction::NewOverwrite() {
  return Attach(std::unique_ptr<OverwriteFiles>(new OverwriteFiles()));
}
RowDelta& Transaction::NewRowDelta() { return Attach(std::unique_ptr<RowDelta>(new RowDelta())); }
RewriteFiles& Transaction::NewRewrite() {
  return Attach(std::unique_ptr<RewriteFiles>(new RewriteFiles()));
}
UpdateSchema& Transaction::NewUpdateSchema() {
  return Attach(std::unique_ptr<UpdateSchema>(new UpdateSchema(current_)));
}
UpdatePartitionSpec& Transaction::NewUpdateSpec() {
  return Attach(std::unique_ptr<UpdatePartitionSpec>(new UpdatePartitionSpec(current_)));
}
ReplaceSortOrder& Transaction::NewReplaceSortOrder() {
  return Attach(std::unique_ptr<ReplaceSortOrder>(new ReplaceSortOrder()));
}
UpdateProperties& Transaction::NewUpdateProperties() {
  return Attach(std::unique_ptr<UpdateProperties>(new UpdateProperties()));
}
UpgradeFormatVersion& Transaction::NewUpgradeFormatVersion() {
  return Attach(std::unique_ptr<UpgradeFormatVersion>(new UpgradeFormatVersion()));
}
ManageSnapshots& Transaction::NewManageSnapshots() {
  return Attach(std::unique_ptr<ManageSnapshots>(new ManageSnapshots()));
}

Status Transaction::Stage(PendingUpdate* update) {
  if (committed_) return Status::FailedPrecondition("transaction already committed");
  TableOperations& ops = table_.operations();
  std::vector<TableUpdate> ups;
  Status st = update->Apply(*current_, ops, &ups);
  Result<Applied> applied =
      st.ok() ? ApplyUpdates(current_, ups, ops.env().NowMillis()) : Result<Applied>(st);
  if (!applied.ok()) {
    update->Cleanup(nullptr, ops);
    return applied.status();
  }
  current_ = applied->metadata;
  updates_.insert(updates_.end(), std::make_move_iterator(ups.begin()),
                  std::make_move_iterator(ups.end()));
  staged_.push_back(update);
  update->committed_ = true;
  return Status::OK();
}

void Transaction::CleanupAll(const TableMetadata* committed) {
  for (PendingUpdate* u : staged_) u->Cleanup(committed, table_.operations());
}

Status Transaction::Commit() {
  if (committed_) return Status::FailedPrecondition("transaction already committed");
  for (const auto& u : owned_) {
    if (!u->committed_) {
      return Status::FailedPrecondition("an update of the transaction was not committed");
    }
  }
  Status st = CommitWithRetry();
  committed_ = true;
  return st;
}

Status Transaction::CommitWithRetry() {
  TableOperations& ops = table_.operations();
  const CommitRetryPolicy policy = CommitRetryPolicy::FromProperties(*base_);
  for (int64_t attempt = 0;; ++attempt) {
    if (attempt > 0) {
      // Nothing was committed: replay every staged update on the table's new metadata.
      Result<TableMetadataPtr> fresh = ops.Refresh();
      if (!fresh.ok()) {
        CleanupAll(nullptr);
        return fresh.status();
      }
      base_ = *fresh;
      current_ = base_;
      updates_.clear();
      for (PendingUpdate* u : staged_) {
        std::vector<TableUpdate> ups;
        Status st = u->Apply(*current_, ops, &ups);
        Result<Applied> applied =
            st.ok() ? ApplyUpdates(current_, ups, ops.env().NowMillis()) : Result<Applied>(st);
        if (!applied.ok()) {
          table_.metadata_ = base_;
          CleanupAll(nullptr);
          return applied.status();
        }
        current_ = applied->metadata;
        updates_.insert(updates_.end(), ups.begin(), ups.end());
      }
    }
    Result<Applied> all = ApplyUpdates(base_, updates_, ops.env().NowMillis());
    if (!all.ok()) {
      CleanupAll(nullptr);
      return all.status();
    }
    if (all->changes.empty()) {
      table_.metadata_ = base_;
      CleanupAll(base_.get());
      return Status::OK();
    }
    std::vector<TableRequirement> requirements = RequirementsForUpdate(*base_, all->changes);
    Result<TableMetadataPtr> result = ops.Commit(requirements, all->changes);
    if (result.ok()) {
      table_.metadata_ = *result;
      CleanupAll(result->get());
      return Status::OK();
    }
    Status st = result.status();
    if (st.IsConflict() && attempt < policy.num_retries) {
      table_.Sleep(policy.WaitMs(attempt + 1));
      continue;
    }
    if (CertainlyFailed(st)) CleanupAll(nullptr);
    return st;
  }
}

}  // namespace floe::iceberg
