// Metadata-only table updates with Iceberg Java's semantics: UpdateSchema (SchemaUpdate),
// UpdatePartitionSpec (BaseUpdatePartitionSpec), ReplaceSortOrder (BaseReplaceSortOrder),
// UpdateProperties (PropertiesUpdate), UpgradeFormatVersion, and ManageSnapshots
// (SnapshotManager: branches, tags, rollback, set current, fast-forward).
//
// Each records its changes and turns them into table updates in Apply(); the commit sends
// the requirements Java's UpdateRequirements derives (table.h). Changes are validated when
// the update is applied (Commit()); errors are kInvalidArgument, and kConflict when the
// table changed under an update that cannot be rebased (a schema or spec update made
// against an older schema or spec).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "floe/iceberg/partition_spec.h"
#include "floe/iceberg/schema.h"
#include "floe/iceberg/sort_order.h"
#include "floe/iceberg/table.h"

namespace floe::iceberg {

class UpdateSchema final : public PendingUpdate {
 public:
  ~UpdateSchema() override;
  // Adds a column at the end of `parent` (a struct column's full name; empty = top level).
  // A required column needs a v3 `initial_default` or AllowIncompatibleChanges().
  UpdateSchema& AddColumn(std::string parent, std::string name, TypePtr type, std::string doc = {},
                          bool required = false,
                          std::optional<Literal> default_value = std::nullopt);
  UpdateSchema& DeleteColumn(std::string name);
  UpdateSchema& RenameColumn(std::string name, std::string new_name);
  // Widens a primitive type: int -> long, float -> double, decimal(P, S) -> decimal(P2, S)
  // with P2 >= P, and (v3) date -> timestamp / timestamp_ns.
  UpdateSchema& UpdateColumn(std::string name, TypePtr new_type);
  UpdateSchema& UpdateColumnDoc(std::string name, std::string doc);
  UpdateSchema& MakeColumnOptional(std::string name);
  UpdateSchema& RequireColumn(std::string name);
  UpdateSchema& MoveFirst(std::string name);
  UpdateSchema& MoveBefore(std::string name, std::string before);
  UpdateSchema& MoveAfter(std::string name, std::string after);
  UpdateSchema& SetIdentifierFields(std::vector<std::string> names);
  UpdateSchema& AllowIncompatibleChanges();
  UpdateSchema& CaseSensitive(bool v);

  // The evolved schema against `base` (what Apply() adds).
  Result<Schema> ApplySchema(const TableMetadata& base) const;

  Status Apply(const TableMetadata& base, TableOperations& ops,
               std::vector<TableUpdate>* updates) override;

 private:
  friend class Table;
  friend class Transaction;
  explicit UpdateSchema(const TableMetadataPtr& base);
  UpdateSchema(const UpdateSchema&) = delete;

  struct Change;
  int32_t base_schema_id_ = 0;
  std::vector<Change> changes_;
  std::optional<std::vector<std::string>> identifier_names_;
  bool allow_incompatible_ = false;
  bool case_sensitive_ = true;
};

class UpdatePartitionSpec final : public PendingUpdate {
 public:
  // Adds a partition field on a source column; an empty name takes Java's default name.
  UpdatePartitionSpec& AddField(std::string source, Transform transform, std::string name = {});
  UpdatePartitionSpec& AddIdentity(std::string source) {
    return AddField(std::move(source), Transform::Identity());
  }
  // Removes a field by name (v1 tables: it becomes a void transform, as Java does).
  UpdatePartitionSpec& RemoveField(std::string name);
  UpdatePartitionSpec& RenameField(std::string name, std::string new_name);

  Status Apply(const TableMetadata& base, TableOperations& ops,
               std::vector<TableUpdate>* updates) override;

 private:
  friend class Table;
  friend class Transaction;
  explicit UpdatePartitionSpec(const TableMetadataPtr& base);

  struct Add {
    std::string source;
    Transform transform;
    std::string name;
  };
  int32_t base_spec_id_ = 0;
  std::vector<Add> adds_;
  std::vector<std::string> removes_;
  std::vector<std::pair<std::string, std::string>> renames_;
};

class ReplaceSortOrder final : public PendingUpdate {
 public:
  ReplaceSortOrder& Asc(std::string column, NullOrder nulls = NullOrder::kNullsFirst);
  ReplaceSortOrder& Desc(std::string column, NullOrder nulls = NullOrder::kNullsLast);
  ReplaceSortOrder& Add(std::string column, Transform transform, SortDirection direction,
                        NullOrder nulls);

  Status Apply(const TableMetadata& base, TableOperations& ops,
               std::vector<TableUpdate>* updates) override;

 private:
  friend class Table;
  friend class Transaction;
  ReplaceSortOrder() = default;
  struct Term {
    std::string column;
    Transform transform;
    SortDirection direction;
    NullOrder nulls;
  };
  std::vector<Term> terms_;
};

class UpdateProperties final : public PendingUpdate {
 public:
  UpdateProperties& Set(std::string key, std::string value);
  UpdateProperties& Remove(std::string key);

  Status Apply(const TableMetadata& base, TableOperations& ops,
               std::vector<TableUpdate>* updates) override;

 private:
  friend class Table;
  friend class Transaction;
  UpdateProperties() = default;
  std::map<std::string, std::string> sets_;
  std::set<std::string> removes_;
};

class UpgradeFormatVersion final : public PendingUpdate {
 public:
  UpgradeFormatVersion& Version(int32_t format_version) {
    version_ = format_version;
    return *this;
  }
  Status Apply(const TableMetadata& base, TableOperations& ops,
               std::vector<TableUpdate>* updates) override;

 private:
  friend class Table;
  friend class Transaction;
  UpgradeFormatVersion() = default;
  int32_t version_ = 0;
};

class ManageSnapshots final : public PendingUpdate {
 public:
  ~ManageSnapshots() override;
  // Branches and tags (Java ManageSnapshots). Unknown snapshots, existing names on create,
  // missing names on replace/remove and removing main are kInvalidArgument.
  ManageSnapshots& CreateBranch(std::string name, int64_t snapshot_id);
  ManageSnapshots& CreateTag(std::string name, int64_t snapshot_id);
  ManageSnapshots& RemoveBranch(std::string name);
  ManageSnapshots& RemoveTag(std::string name);
  ManageSnapshots& RenameBranch(std::string name, std::string new_name);
  ManageSnapshots& ReplaceBranch(std::string name, int64_t snapshot_id);
  // Moves `name` to the head of branch `source`.
  ManageSnapshots& ReplaceBranchWith(std::string name, std::string source);
  // Like ReplaceBranchWith, but `name`'s head must be an ancestor of `source`'s head.
  ManageSnapshots& FastForwardBranch(std::string name, std::string source);
  ManageSnapshots& ReplaceTag(std::string name, int64_t snapshot_id);
  ManageSnapshots& SetMinSnapshotsToKeep(std::string branch, int32_t n);
  ManageSnapshots& SetMaxSnapshotAgeMs(std::string branch, int64_t ms);
  ManageSnapshots& SetMaxRefAgeMs(std::string ref, int64_t ms);
  // main rollbacks (Java SetSnapshotOperation): the target must be an ancestor of the
  // current snapshot.
  ManageSnapshots& RollbackTo(int64_t snapshot_id);
  // Rolls main back to the newest ancestor older than `timestamp_ms`.
  ManageSnapshots& RollbackToTime(int64_t timestamp_ms);
  ManageSnapshots& SetCurrentSnapshot(int64_t snapshot_id);

  Status Apply(const TableMetadata& base, TableOperations& ops,
               std::vector<TableUpdate>* updates) override;

 private:
  friend class Table;
  friend class Transaction;
  ManageSnapshots();
  struct Action;
  std::vector<Action> actions_;
};

}  // namespace floe::iceberg
