#include "floe/iceberg/table_metadata_builder.h"

#include <algorithm>
#include <charconv>
#include <unordered_map>
#include <unordered_set>

#include "floe/base/macros.h"

namespace floe::iceberg {

template <class... Ts>
struct Visitor : Ts... {
  using Ts::operator()...;
};
template <class... Ts>
Visitor(Ts...) -> Visitor<Ts...>;

namespace {

constexpr int32_t kLastAdded = update::kLastAdded;
constexpr int32_t kInitialSortOrderId = 1;

// Java TableProperties.RESERVED_PROPERTIES.
bool IsReservedProperty(const std::string& key) {
  static const char* const kReserved[] = {
      "format-version",           "uuid",
      "snapshot-count",           "current-snapshot-id",
      "current-snapshot-summary", "current-snapshot-timestamp-ms",
      "current-schema",           "default-partition-spec",
      "default-sort-order"};
  return std::any_of(std::begin(kReserved), std::end(kReserved),
                     [&](const char* r) { return key == r; });
}

// Java PartitionSpec.checkCompatibility.
Status CheckSpecCompatibility(const PartitionSpec& spec, const Schema& schema) {
  for (const PartitionField& f : spec.fields()) {
    if (f.transform.is_void()) continue;
    const NestedField* source = schema.FindField(f.source_id);
    if (source == nullptr) {
      return Status::InvalidArgument("Cannot find source column for partition field: {}", f.name);
    }
    if (!source->type->is_primitive()) {
      return Status::InvalidArgument("Cannot partition by non-primitive source field: {}",
                                     source->type->ToString());
    }
    if (f.transform.is_known() && !f.transform.CanTransform(*source->type)) {
      return Status::InvalidArgument("Invalid source type {} for transform: {}",
                                     source->type->ToString(), f.transform.ToString());
    }
  }
  return Status::OK();
}

}  // namespace

TableMetadataBuilder TableMetadataBuilder::FromEmpty(int32_t format_version, std::string uuid) {
  TableMetadataBuilder b;
  b.md_.format_version = format_version;
  b.md_.table_uuid = std::move(uuid);
  b.md_.last_partition_id = kFirstPartitionFieldId - 1;
  return b;
}

TableMetadataBuilder TableMetadataBuilder::From(TableMetadataPtr base) {
  TableMetadataBuilder b;
  b.md_ = *base;
  b.base_ = std::move(base);
  return b;
}

bool TableMetadataBuilder::IsAddedSnapshot(int64_t snapshot_id) const {
  for (const TableUpdate& c : changes_) {
    if (const auto* add = std::get_if<update::AddSnapshot>(&c);
        add != nullptr && add->snapshot.snapshot_id == snapshot_id) {
      return true;
    }
  }
  return false;
}

Status TableMetadataBuilder::Apply(const TableUpdate& u) {
  return std::visit(
      Visitor{
          [&](const update::AssignUuid& x) { return AssignUuid(x.uuid); },
          [&](const update::UpgradeFormatVersion& x) {
            return UpgradeFormatVersion(x.format_version);
          },
          [&](const update::AddSchema& x) { return AddSchema(x.schema); },
          [&](const update::SetCurrentSchema& x) { return SetCurrentSchema(x.schema_id); },
          [&](const update::AddSpec& x) { return AddSpec(x.spec); },
          [&](const update::SetDefaultSpec& x) { return SetDefaultSpec(x.spec_id); },
          [&](const update::AddSortOrder& x) { return AddSortOrder(x.sort_order); },
          [&](const update::SetDefaultSortOrder& x) {
            return SetDefaultSortOrder(x.sort_order_id);
          },
          [&](const update::AddSnapshot& x) { return AddSnapshot(x.snapshot); },
          [&](const update::SetSnapshotRef& x) { return SetRef(x.ref_name, x.ref); },
          [&](const update::RemoveSnapshots& x) { return RemoveSnapshots(x.snapshot_ids); },
          [&](const update::RemoveSnapshotRef& x) { return RemoveRef(x.ref_name); },
          [&](const update::SetLocation& x) { return SetLocation(x.location); },
          [&](const update::SetProperties& x) { return SetProperties(x.updates); },
          [&](const update::RemoveProperties& x) { return RemoveProperties(x.removals); },
          [&](const update::SetStatistics& x) { return SetStatistics(x.statistics); },
          [&](const update::RemoveStatistics& x) { return RemoveStatistics(x.snapshot_id); },
          [&](const update::SetPartitionStatistics& x) {
            return SetPartitionStatistics(x.partition_statistics);
          },
          [&](const update::RemovePartitionStatistics& x) {
            return RemovePartitionStatistics(x.snapshot_id);
          },
          [&](const update::RemovePartitionSpecs& x) { return RemoveSpecs(x.spec_ids); },
          [&](const update::RemoveSchemas& x) { return RemoveSchemas(x.schema_ids); },
          [&](const update::AddEncryptionKey& x) { return AddEncryptionKey(x.key); },
          [&](const update::RemoveEncryptionKey& x) { return RemoveEncryptionKey(x.key_id); },
      },
      u);
}

Status TableMetadataBuilder::ApplyAll(const std::vector<TableUpdate>& updates) {
  for (const TableUpdate& u : updates) {
    Status s = Apply(u);
    if (!s.ok()) return s.WithContext("{}", UpdateAction(u));
  }
  return Status::OK();
}

Status TableMetadataBuilder::AssignUuid(const std::string& uuid) {
  if (md_.table_uuid == uuid) return Status::OK();
  md_.table_uuid = uuid;
  changes_.push_back(update::AssignUuid{uuid});
  return Status::OK();
}

Status TableMetadataBuilder::UpgradeFormatVersion(int32_t v) {
  if (v > kMaxFormatVersion) {
    return Status::InvalidArgument(
        "Cannot upgrade table to unsupported format version: v{} (supported: v{})", v,
        kMaxFormatVersion);
  }
  if (v < md_.format_version) {
    return Status::InvalidArgument("Cannot downgrade v{} table to v{}", md_.format_version, v);
  }
  if (v == md_.format_version) return Status::OK();
  // Spec "Row Lineage": next-row-id starts at 0 on upgrade to v3 (it is 0 in v1/v2 metadata).
  if (v >= 3 && md_.format_version < 3) md_.next_row_id = 0;
  md_.format_version = v;
  changes_.push_back(update::UpgradeFormatVersion{v});
  return Status::OK();
}

Status TableMetadataBuilder::AddSchema(const Schema& schema) {
  // REST add-schema: the new last column id is max(last-column-id, highest field id).
  const int32_t new_last_column_id = std::max(md_.last_column_id, schema.highest_field_id());
  // Reuse the id of an identical schema, else max id + 1 (starting from the current id).
  int32_t new_id = md_.current_schema_id;
  bool found = false;
  for (const Schema& s : md_.schemas) {
    if (s.SameSchema(schema)) {
      new_id = s.schema_id();
      found = true;
      break;
    }
    if (s.schema_id() >= new_id) new_id = s.schema_id() + 1;
  }
  if (found && new_last_column_id == md_.last_column_id) {
    bool is_new = false;
    if (last_added_schema_id_) {
      for (const TableUpdate& c : changes_) {
        if (const auto* a = std::get_if<update::AddSchema>(&c);
            a != nullptr && a->schema.schema_id() == new_id) {
          is_new = true;
        }
      }
    }
    last_added_schema_id_ = is_new ? std::optional<int32_t>(new_id) : std::nullopt;
    return Status::OK();
  }
  md_.last_column_id = new_last_column_id;
  Schema new_schema = schema.schema_id() == new_id ? schema : schema.WithSchemaId(new_id);
  if (!found) md_.schemas.push_back(new_schema);
  changes_.push_back(update::AddSchema{std::move(new_schema)});
  last_added_schema_id_ = new_id;
  return Status::OK();
}

Status TableMetadataBuilder::SetCurrentSchema(int32_t schema_id) {
  if (schema_id == kLastAdded) {
    if (!last_added_schema_id_) {
      return Status::InvalidArgument("Cannot set last added schema: no schema has been added");
    }
    return SetCurrentSchema(*last_added_schema_id_);
  }
  if (md_.current_schema_id == schema_id && md_.current_schema() != nullptr) return Status::OK();
  if (md_.schema_by_id(schema_id) == nullptr) {
    return Status::InvalidArgument("Cannot set current schema to unknown schema: {}", schema_id);
  }
  md_.current_schema_id = schema_id;
  changes_.push_back(
      update::SetCurrentSchema{last_added_schema_id_ == schema_id ? kLastAdded : schema_id});
  return Status::OK();
}

Status TableMetadataBuilder::AddSpec(const PartitionSpec& spec) {
  int32_t new_id = 0;
  bool found = false;
  for (const PartitionSpec& s : md_.specs) {
    if (spec.CompatibleWith(s)) {
      new_id = s.spec_id();
      found = true;
      break;
    }
    if (new_id <= s.spec_id()) new_id = s.spec_id() + 1;
  }
  if (found) {
    // Java keeps "last added" only if the last added spec was added in this commit.
    bool is_new = false;
    if (last_added_spec_id_) {
      for (const TableUpdate& c : changes_) {
        if (const auto* a = std::get_if<update::AddSpec>(&c);
            a != nullptr && a->spec.spec_id() == *last_added_spec_id_) {
          is_new = true;
        }
      }
    }
    last_added_spec_id_ = is_new ? std::optional<int32_t>(new_id) : std::nullopt;
    return Status::OK();
  }
  const Schema* schema = md_.current_schema();
  if (schema == nullptr) return Status::InvalidArgument("Cannot add a spec before a schema");
  FLOE_RETURN_IF_ERROR(CheckSpecCompatibility(spec, *schema));
  if (md_.format_version == 1) {
    for (size_t i = 0; i < spec.fields().size(); ++i) {
      if (spec.fields()[i].field_id != kFirstPartitionFieldId + static_cast<int32_t>(i)) {
        return Status::InvalidArgument(
            "Spec does not use sequential IDs that are required in v1: {}", spec.ToString());
      }
    }
  }
  PartitionSpec new_spec(new_id, spec.fields());
  md_.last_partition_id = std::max(md_.last_partition_id, new_spec.last_assigned_field_id());
  md_.specs.push_back(new_spec);
  changes_.push_back(update::AddSpec{std::move(new_spec)});
  last_added_spec_id_ = new_id;
  return Status::OK();
}

Status TableMetadataBuilder::SetDefaultSpec(int32_t spec_id) {
  if (spec_id == kLastAdded) {
    if (!last_added_spec_id_) {
      return Status::InvalidArgument("Cannot set last added spec: no spec has been added");
    }
    return SetDefaultSpec(*last_added_spec_id_);
  }
  if (md_.default_spec_id == spec_id && md_.default_spec() != nullptr) return Status::OK();
  if (md_.spec_by_id(spec_id) == nullptr) {
    return Status::InvalidArgument("Cannot set default partition spec to unknown spec: {}",
                                   spec_id);
  }
  md_.default_spec_id = spec_id;
  changes_.push_back(update::SetDefaultSpec{last_added_spec_id_ == spec_id ? kLastAdded : spec_id});
  return Status::OK();
}

Status TableMetadataBuilder::AddSortOrder(const SortOrder& order) {
  int32_t new_id = 0;
  bool found = false;
  if (order.is_unsorted()) {
    new_id = 0;
    found = md_.sort_order_by_id(0) != nullptr;
  } else {
    new_id = kInitialSortOrderId;
    for (const SortOrder& o : md_.sort_orders) {
      if (o.SameOrder(order)) {
        new_id = o.order_id();
        found = true;
        break;
      }
      if (new_id <= o.order_id()) new_id = o.order_id() + 1;
    }
  }
  if (found) {
    bool is_new = false;
    if (last_added_order_id_) {
      for (const TableUpdate& c : changes_) {
        if (const auto* a = std::get_if<update::AddSortOrder>(&c);
            a != nullptr && a->sort_order.order_id() == *last_added_order_id_) {
          is_new = true;
        }
      }
    }
    last_added_order_id_ = is_new ? std::optional<int32_t>(new_id) : std::nullopt;
    return Status::OK();
  }
  const Schema* schema = md_.current_schema();
  if (schema == nullptr) return Status::InvalidArgument("Cannot add a sort order before a schema");
  Status valid = order.Validate(*schema);
  if (!valid.ok()) return Status::InvalidArgument("{}", valid.message());
  SortOrder new_order =
      order.is_unsorted() ? SortOrder::Unsorted() : SortOrder(new_id, order.fields());
  md_.sort_orders.push_back(new_order);
  changes_.push_back(update::AddSortOrder{std::move(new_order)});
  last_added_order_id_ = new_id;
  return Status::OK();
}

Status TableMetadataBuilder::SetDefaultSortOrder(int32_t order_id) {
  if (order_id == kLastAdded) {
    if (!last_added_order_id_) {
      return Status::InvalidArgument(
          "Cannot set last added sort order: no sort order has been added");
    }
    return SetDefaultSortOrder(*last_added_order_id_);
  }
  if (md_.default_sort_order_id == order_id && md_.default_sort_order() != nullptr) {
    return Status::OK();
  }
  if (md_.sort_order_by_id(order_id) == nullptr) {
    return Status::InvalidArgument("Cannot set default sort order to unknown order: {}", order_id);
  }
  md_.default_sort_order_id = order_id;
  changes_.push_back(
      update::SetDefaultSortOrder{last_added_order_id_ == order_id ? kLastAdded : order_id});
  return Status::OK();
}

Status TableMetadataBuilder::AddSnapshot(const Snapshot& snapshot) {
  if (md_.schemas.empty()) {
    return Status::InvalidArgument("Attempting to add a snapshot before a schema is added");
  }
  if (md_.specs.empty()) {
    return Status::InvalidArgument("Attempting to add a snapshot before a partition spec is added");
  }
  if (md_.sort_orders.empty()) {
    return Status::InvalidArgument("Attempting to add a snapshot before a sort order is added");
  }
  if (md_.snapshot_by_id(snapshot.snapshot_id) != nullptr) {
    return Status::InvalidArgument("Snapshot already exists for id: {}", snapshot.snapshot_id);
  }
  if (md_.format_version > 1 && snapshot.sequence_number <= md_.last_sequence_number &&
      snapshot.parent_snapshot_id) {
    return Status::Conflict(
        "Cannot add snapshot with sequence number {} older than last sequence number {}",
        snapshot.sequence_number, md_.last_sequence_number);
  }
  if (md_.format_version >= 3) {
    if (!snapshot.first_row_id) {
      return Status::InvalidArgument("Cannot add a snapshot: first-row-id is null");
    }
    if (!snapshot.added_rows) {
      return Status::InvalidArgument("Cannot add a snapshot: added-rows is null");
    }
    if (*snapshot.first_row_id < md_.next_row_id) {
      return Status::Conflict(
          "Cannot add a snapshot, first-row-id is behind table next-row-id: {} < {}",
          *snapshot.first_row_id, md_.next_row_id);
    }
    if (*snapshot.added_rows < 0 ||
        __builtin_add_overflow(md_.next_row_id, *snapshot.added_rows, &md_.next_row_id)) {
      return Status::InvalidArgument("Cannot add a snapshot: invalid added-rows {}",
                                     *snapshot.added_rows);
    }
  }
  md_.last_sequence_number = snapshot.sequence_number;
  md_.snapshots.push_back(snapshot);
  changes_.push_back(update::AddSnapshot{snapshot});
  return Status::OK();
}

Status TableMetadataBuilder::SetRef(const std::string& name, const SnapshotRef& ref) {
  if (const SnapshotRef* existing = md_.ref(name); existing != nullptr && *existing == ref) {
    return Status::OK();
  }
  FLOE_RETURN_IF_ERROR(ValidateSnapshotRef(ref));
  const Snapshot* snapshot = md_.snapshot_by_id(ref.snapshot_id);
  if (snapshot == nullptr) {
    return Status::InvalidArgument("Cannot set {} to unknown snapshot: {}", name, ref.snapshot_id);
  }
  if (name == kMainBranch) {
    md_.current_snapshot_id = ref.snapshot_id;
    // A snapshot added in this commit is logged at its own time; a rollback to an older
    // snapshot at the commit time.
    if (IsAddedSnapshot(ref.snapshot_id)) {
      md_.snapshot_log.push_back({snapshot->timestamp_ms, ref.snapshot_id});
    } else {
      log_entries_at_commit_time_.insert(md_.snapshot_log.size());
      md_.snapshot_log.push_back({0, ref.snapshot_id});
    }
  }
  md_.refs[name] = ref;
  changes_.push_back(update::SetSnapshotRef{name, ref});
  return Status::OK();
}

Status TableMetadataBuilder::RemoveRef(const std::string& name) {
  if (name == kMainBranch) md_.current_snapshot_id.reset();
  if (md_.refs.erase(name) > 0) changes_.push_back(update::RemoveSnapshotRef{name});
  return Status::OK();
}

Status TableMetadataBuilder::RemoveSnapshots(const std::vector<int64_t>& snapshot_ids) {
  std::unordered_set<int64_t> remove(snapshot_ids.begin(), snapshot_ids.end());
  std::vector<Snapshot> kept;
  for (Snapshot& s : md_.snapshots) {
    if (remove.count(s.snapshot_id) > 0) {
      changes_.push_back(update::RemoveSnapshots{{s.snapshot_id}});
      FLOE_RETURN_IF_ERROR(RemoveStatistics(s.snapshot_id));
      FLOE_RETURN_IF_ERROR(RemovePartitionStatistics(s.snapshot_id));
    } else {
      kept.push_back(std::move(s));
    }
  }
  md_.snapshots = std::move(kept);
  std::vector<std::string> dangling;
  for (const auto& [name, ref] : md_.refs) {
    if (md_.snapshot_by_id(ref.snapshot_id) == nullptr) dangling.push_back(name);
  }
  for (const std::string& name : dangling) FLOE_RETURN_IF_ERROR(RemoveRef(name));
  return Status::OK();
}

Status TableMetadataBuilder::SetLocation(const std::string& location) {
  if (md_.location == location) return Status::OK();
  md_.location = location;
  changes_.push_back(update::SetLocation{location});
  return Status::OK();
}

Status TableMetadataBuilder::SetProperties(const std::map<std::string, std::string>& updates) {
  if (updates.empty()) return Status::OK();
  // Like Java's Builder, every key is stored (reserved ones included): the reserved
  // properties are filtered by table creation and by the clients' property updates.
  for (const auto& [k, v] : updates) md_.properties[k] = v;
  changes_.push_back(update::SetProperties{updates});
  return Status::OK();
}

Status TableMetadataBuilder::RemoveProperties(const std::vector<std::string>& removals) {
  if (removals.empty()) return Status::OK();
  for (const std::string& k : removals) md_.properties.erase(k);
  changes_.push_back(update::RemoveProperties{removals});
  return Status::OK();
}

Status TableMetadataBuilder::SetStatistics(const StatisticsFile& file) {
  auto& stats = md_.statistics;
  auto it = std::find_if(stats.begin(), stats.end(), [&](const StatisticsFile& f) {
    return f.snapshot_id == file.snapshot_id;
  });
  if (it != stats.end()) {
    *it = file;
    stats.erase(
        std::remove_if(std::next(it), stats.end(),
                       [&](const StatisticsFile& f) { return f.snapshot_id == file.snapshot_id; }),
        stats.end());
  } else {
    stats.push_back(file);
  }
  changes_.push_back(update::SetStatistics{file});
  return Status::OK();
}

Status TableMetadataBuilder::RemoveStatistics(int64_t snapshot_id) {
  auto& stats = md_.statistics;
  size_t before = stats.size();
  stats.erase(std::remove_if(stats.begin(), stats.end(),
                             [&](const StatisticsFile& f) { return f.snapshot_id == snapshot_id; }),
              stats.end());
  if (stats.size() != before) changes_.push_back(update::RemoveStatistics{snapshot_id});
  return Status::OK();
}

Status TableMetadataBuilder::SetPartitionStatistics(const PartitionStatisticsFile& file) {
  auto& stats = md_.partition_statistics;
  stats.erase(std::remove_if(stats.begin(), stats.end(),
                             [&](const PartitionStatisticsFile& f) {
                               return f.snapshot_id == file.snapshot_id;
                             }),
              stats.end());
  stats.push_back(file);
  changes_.push_back(update::SetPartitionStatistics{file});
  return Status::OK();
}

Status TableMetadataBuilder::RemovePartitionStatistics(int64_t snapshot_id) {
  auto& stats = md_.partition_statistics;
  size_t before = stats.size();
  stats.erase(std::remove_if(
                  stats.begin(), stats.end(),
                  [&](const PartitionStatisticsFile& f) { return f.snapshot_id == snapshot_id; }),
              stats.end());
  if (stats.size() != before) changes_.push_back(update::RemovePartitionStatistics{snapshot_id});
  return Status::OK();
}

Status TableMetadataBuilder::RemoveSpecs(const std::vector<int32_t>& spec_ids) {
  if (std::find(spec_ids.begin(), spec_ids.end(), md_.default_spec_id) != spec_ids.end()) {
    return Status::InvalidArgument("Cannot remove the default partition spec");
  }
  if (spec_ids.empty()) return Status::OK();
  std::erase_if(md_.specs, [&](const PartitionSpec& s) {
    return std::find(spec_ids.begin(), spec_ids.end(), s.spec_id()) != spec_ids.end();
  });
  changes_.push_back(update::RemovePartitionSpecs{spec_ids});
  return Status::OK();
}

Status TableMetadataBuilder::RemoveSchemas(const std::vector<int32_t>& schema_ids) {
  if (std::find(schema_ids.begin(), schema_ids.end(), md_.current_schema_id) != schema_ids.end()) {
    return Status::InvalidArgument("Cannot remove the current schema");
  }
  if (schema_ids.empty()) return Status::OK();
  std::erase_if(md_.schemas, [&](const Schema& s) {
    return std::find(schema_ids.begin(), schema_ids.end(), s.schema_id()) != schema_ids.end();
  });
  changes_.push_back(update::RemoveSchemas{schema_ids});
  return Status::OK();
}

Status TableMetadataBuilder::AddEncryptionKey(const EncryptionKey& key) {
  for (const EncryptionKey& k : md_.encryption_keys) {
    if (k.key_id == key.key_id) return Status::OK();
  }
  md_.encryption_keys.push_back(key);
  changes_.push_back(update::AddEncryptionKey{key});
  return Status::OK();
}

Status TableMetadataBuilder::RemoveEncryptionKey(const std::string& key_id) {
  size_t before = md_.encryption_keys.size();
  std::erase_if(md_.encryption_keys, [&](const EncryptionKey& k) { return k.key_id == key_id; });
  if (md_.encryption_keys.size() != before) changes_.push_back(update::RemoveEncryptionKey{key_id});
  return Status::OK();
}

Result<TableMetadataPtr> TableMetadataBuilder::Build(int64_t now_ms) {
  if (changes_.empty() && base_ != nullptr) return base_;
  TableMetadata out = md_;
  if (out.format_version < 1 || out.format_version > kMaxFormatVersion) {
    return Status::InvalidArgument("Unsupported format version: v{} (supported: v{})",
                                   out.format_version, kMaxFormatVersion);
  }
  if (out.current_schema() == nullptr) {
    return Status::InvalidArgument("Invalid table metadata: no current schema");
  }
  if (out.default_spec() == nullptr) {
    return Status::InvalidArgument("Invalid table metadata: no default partition spec");
  }
  if (out.default_sort_order() == nullptr) {
    return Status::InvalidArgument("Invalid table metadata: no default sort order");
  }
  if (out.format_version > 1 && !out.table_uuid) {
    return Status::InvalidArgument("UUID is required in format v{}", out.format_version);
  }
  out.last_updated_ms = now_ms;
  for (size_t i : log_entries_at_commit_time_) out.snapshot_log[i].timestamp_ms = now_ms;

  // Java Builder.updateSnapshotLog: drop snapshots that were added and made current in this
  // commit but then replaced as current (intermediate); after removals, drop the history
  // before any entry whose snapshot is gone (no gaps for time travel).
  std::unordered_set<int64_t> added, intermediate;
  bool removed = false;
  for (const TableUpdate& c : changes_) {
    if (const auto* a = std::get_if<update::AddSnapshot>(&c)) {
      added.insert(a->snapshot.snapshot_id);
    } else if (const auto* r = std::get_if<update::SetSnapshotRef>(&c)) {
      if (added.count(r->ref.snapshot_id) > 0 && r->ref_name == kMainBranch &&
          out.current_snapshot_id != r->ref.snapshot_id) {
        intermediate.insert(r->ref.snapshot_id);
      }
    } else if (std::holds_alternative<update::RemoveSnapshots>(c)) {
      removed = true;
    }
  }
  if (!intermediate.empty() || removed) {
    std::vector<SnapshotLogEntry> log;
    for (const SnapshotLogEntry& e : out.snapshot_log) {
      if (out.snapshot_by_id(e.snapshot_id) != nullptr) {
        if (intermediate.count(e.snapshot_id) == 0) log.push_back(e);
      } else if (removed) {
        log.clear();
      }
    }
    if (out.current_snapshot() != nullptr &&
        (log.empty() || log.back().snapshot_id != *out.current_snapshot_id)) {
      return Status::InvalidArgument(
          "Cannot set invalid snapshot log: latest entry is not the current snapshot");
    }
    out.snapshot_log = std::move(log);
  }

  if (base_ != nullptr && !base_->metadata_file_location.empty()) {
    int64_t max_size = std::max<int64_t>(
        1, out.PropertyAsInt(kPropertyPreviousVersionsMax, kPreviousVersionsMaxDefault));
    auto& log = out.metadata_log;
    if (static_cast<int64_t>(log.size()) >= max_size) {
      log.erase(log.begin(), log.begin() + static_cast<ptrdiff_t>(log.size() - max_size + 1));
    }
    log.push_back({base_->last_updated_ms, base_->metadata_file_location});
  }
  out.metadata_file_location.clear();
  return std::make_shared<const TableMetadata>(std::move(out));
}

Result<TableMetadata> TableMetadataBuilder::NewTable(const Schema& schema,
                                                     const PartitionSpec& spec,
                                                     const SortOrder& sort_order,
                                                     std::string location,
                                                     std::map<std::string, std::string> properties,
                                                     std::string uuid, int64_t now_ms) {
  int32_t format_version = kDefaultFormatVersion;
  if (auto it = properties.find(std::string(kPropertyFormatVersion)); it != properties.end()) {
    const std::string& text = it->second;
    int32_t v = 0;
    auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
    if (ec != std::errc() || ptr != text.data() + text.size()) {
      return Status::InvalidArgument("invalid format-version property '{}'", text);
    }
    format_version = v;
  }
  std::map<std::string, std::string> persisted = {{"write.parquet.compression-codec", "zstd"}};
  for (auto& [k, v] : properties) {
    if (!IsReservedProperty(k)) persisted[k] = v;
  }

  int32_t last_column_id = 0;
  FLOE_ASSIGN_OR_RETURN(Schema fresh, AssignFreshIds(
                                          schema, [&] { return ++last_column_id; }, 0));
  auto fresh_source_id = [&](int32_t old_id) -> Result<int32_t> {
    std::optional<std::string> name = schema.FindColumnName(old_id);
    const NestedField* f = name ? fresh.FindFieldByName(*name) : nullptr;
    if (f == nullptr) return Status::InvalidArgument("Cannot find source column {}", old_id);
    return f->id;
  };
  std::vector<PartitionField> spec_fields;
  for (const PartitionField& f : spec.fields()) {
    PartitionField nf = f;
    FLOE_ASSIGN_OR_RETURN(nf.source_id, fresh_source_id(f.source_id));
    nf.field_id = kFirstPartitionFieldId + static_cast<int32_t>(spec_fields.size());
    spec_fields.push_back(std::move(nf));
  }
  std::vector<SortField> order_fields;
  for (const SortField& f : sort_order.fields()) {
    SortField nf = f;
    FLOE_ASSIGN_OR_RETURN(nf.source_id, fresh_source_id(f.source_id));
    order_fields.push_back(std::move(nf));
  }
  SortOrder fresh_order = order_fields.empty()
                              ? SortOrder::Unsorted()
                              : SortOrder(kInitialSortOrderId, std::move(order_fields));

  TableMetadataBuilder b = FromEmpty(format_version, std::move(uuid));
  FLOE_RETURN_IF_ERROR(b.AddSchema(fresh));
  FLOE_RETURN_IF_ERROR(b.SetCurrentSchema(kLastAdded));
  FLOE_RETURN_IF_ERROR(b.AddSpec(PartitionSpec(0, std::move(spec_fields))));
  FLOE_RETURN_IF_ERROR(b.SetDefaultSpec(kLastAdded));
  FLOE_RETURN_IF_ERROR(b.AddSortOrder(fresh_order));
  FLOE_RETURN_IF_ERROR(b.SetDefaultSortOrder(kLastAdded));
  FLOE_RETURN_IF_ERROR(b.SetLocation(location));
  FLOE_RETURN_IF_ERROR(b.SetProperties(persisted));
  FLOE_ASSIGN_OR_RETURN(TableMetadataPtr md, b.Build(now_ms));
  return *md;
}

std::vector<TableUpdate> TableMetadataBuilder::CreateUpdates(const TableMetadata& md) {
  std::vector<TableUpdate> u;
  u.push_back(update::AssignUuid{md.table_uuid.value_or("")});
  u.push_back(update::UpgradeFormatVersion{md.format_version});
  if (const Schema* s = md.current_schema()) u.push_back(update::AddSchema{*s});
  u.push_back(update::SetCurrentSchema{kLastAdded});
  const PartitionSpec* spec = md.default_spec();
  u.push_back(update::AddSpec{spec != nullptr ? *spec : PartitionSpec::Unpartitioned()});
  u.push_back(update::SetDefaultSpec{kLastAdded});
  const SortOrder* order = md.default_sort_order();
  u.push_back(update::AddSortOrder{order != nullptr ? *order : SortOrder::Unsorted()});
  u.push_back(update::SetDefaultSortOrder{kLastAdded});
  u.push_back(update::SetLocation{md.location});
  if (!md.properties.empty()) u.push_back(update::SetProperties{md.properties});
  return u;
}

Result<TableMetadata> TableMetadataBuilder::ApplyCreate(const std::vector<TableUpdate>& updates,
                                                        std::string uuid, int64_t now_ms) {
  int32_t format_version = kDefaultFormatVersion;
  for (const TableUpdate& u : updates) {
    if (const auto* v = std::get_if<update::UpgradeFormatVersion>(&u)) {
      format_version = v->format_version;
      break;
    }
  }
  TableMetadataBuilder b = FromEmpty(format_version, std::move(uuid));
  FLOE_RETURN_IF_ERROR(b.ApplyAll(updates));
  FLOE_ASSIGN_OR_RETURN(TableMetadataPtr md, b.Build(now_ms));
  return *md;
}

}  // namespace floe::iceberg
