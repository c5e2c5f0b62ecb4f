#include "floe/iceberg/metadata_updates.h"

#include <algorithm>
#include <functional>

#include "floe/base/macros.h"
#include "floe/iceberg/schema_update.h"

namespace floe::iceberg {

// --- UpdateSchema ------------------------------------------------------------------------

struct UpdateSchema::Change {
  enum class Kind : uint8_t {
    kAdd,
    kDelete,
    kRename,
    kType,
    kDoc,
    kOptional,
    kRequire,
    kMoveFirst,
    kMoveBefore,
    kMoveAfter,
  };
  Kind kind;
  std::string name;
  std::string other;  // add: parent; rename: new name; move: reference column
  TypePtr type;
  std::string doc;
  bool required = false;
  std::optional<Literal> default_value;
};

UpdateSchema::UpdateSchema(const TableMetadataPtr& base)
    : base_schema_id_(base ? base->current_schema_id : 0) {}
UpdateSchema::~UpdateSchema() = default;

UpdateSchema& UpdateSchema::AddColumn(std::string parent, std::string name, TypePtr type,
                                      std::string doc, bool required,
                                      std::optional<Literal> default_value) {
  changes_.push_back({Change::Kind::kAdd, std::move(name), std::move(parent), std::move(type),
                      std::move(doc), required, std::move(default_value)});
  return *this;
}
UpdateSchema& UpdateSchema::DeleteColumn(std::string name) {
  changes_.push_back({Change::Kind::kDelete, std::move(name), {}, nullptr, {}, false, {}});
  return *this;
}
UpdateSchema& UpdateSchema::RenameColumn(std::string name, std::string new_name) {
  changes_.push_back(
      {Change::Kind::kRename, std::move(name), std::move(new_name), nullptr, {}, false, {}});
  return *this;
}
UpdateSchema& UpdateSchema::UpdateColumn(std::string name, TypePtr new_type) {
  changes_.push_back(
      {Change::Kind::kType, std::move(name), {}, std::move(new_type), {}, false, {}});
  return *this;
}
UpdateSchema& UpdateSchema::UpdateColumnDoc(std::string name, std::string doc) {
  changes_.push_back({Change::Kind::kDoc, std::move(name), {}, nullptr, std::move(doc), false, {}});
  return *this;
}
UpdateSchema& UpdateSchema::MakeColumnOptional(std::string name) {
  changes_.push_back({Change::Kind::kOptional, std::move(name), {}, nullptr, {}, false, {}});
  return *this;
}
UpdateSchema& UpdateSchema::RequireColumn(std::string name) {
  changes_.push_back({Change::Kind::kRequire, std::move(name), {}, nullptr, {}, true, {}});
  return *this;
}
UpdateSchema& UpdateSchema::MoveFirst(std::string name) {
  changes_.push_back({Change::Kind::kMoveFirst, std::move(name), {}, nullptr, {}, false, {}});
  return *this;
}
UpdateSchema& UpdateSchema::MoveBefore(std::string name, std::string before) {
  changes_.push_back(
      {Change::Kind::kMoveBefore, std::move(name), std::move(before), nullptr, {}, false, {}});
  return *this;
}
UpdateSchema& UpdateSchema::MoveAfter(std::string name, std::string after) {
  changes_.push_back(
      {Change::Kind::kMoveAfter, std::move(name), std::move(after), nullptr, {}, false, {}});
  return *this;
}
UpdateSchema& UpdateSchema::SetIdentifierFields(std::vector<std::string> names) {
  identifier_names_ = std::move(names);
  return *this;
}
UpdateSchema& UpdateSchema::AllowIncompatibleChanges() {
  allow_incompatible_ = true;
  return *this;
}
UpdateSchema& UpdateSchema::CaseSensitive(bool v) {
  case_sensitive_ = v;
  return *this;
}

namespace {

constexpr int32_t kRoot = -1;

struct Move {
  enum class Kind : uint8_t { kFirst, kBefore, kAfter } kind;
  int32_t field_id;
  int32_t reference_id;
};

}  // namespace

Result<Schema> UpdateSchema::ApplySchema(const TableMetadata& base) const {
  const Schema* schema = base.current_schema();
  if (schema == nullptr) return Status::InvalidArgument("table has no current schema");
  int32_t next_id = std::max(base.last_column_id, schema->highest_field_id());
  std::set<int32_t> deletes;
  std::map<int32_t, NestedField> updates;
  std::map<int32_t, std::vector<NestedField>> adds;
  std::map<int32_t, std::vector<Move>> moves;
  std::map<std::string, std::pair<int32_t, int32_t>> added_names;  // full name -> (id, parent)

  auto find = [&](const std::string& name) -> Result<const NestedField*> {
    const NestedField* f = schema->FindFieldByName(name, case_sensitive_);
    if (f == nullptr) return Status::InvalidArgument("Cannot find column: {}", name);
    return f;
  };
  auto updated = [&](const NestedField& f) -> NestedField& {
    auto it = updates.find(f.id);
    if (it == updates.end()) it = updates.emplace(f.id, f).first;
    return it->second;
  };
  // (id, parent id) of an existing or newly added column.
  auto locate = [&](const std::string& name) -> Result<std::pair<int32_t, int32_t>> {
    if (auto it = added_names.find(name); it != added_names.end()) return it->second;
    FLOE_ASSIGN_OR_RETURN(const NestedField* f, find(name));
    return std::make_pair(f->id, schema->FindParentId(f->id).value_or(kRoot));
  };

  for (const Change& c : changes_) {
    switch (c.kind) {
      case Change::Kind::kAdd: {
        int32_t parent_id = kRoot;
        const Type* parent_type = schema->as_struct().get();
        std::string full_name = c.name;
        if (!c.other.empty()) {
          FLOE_ASSIGN_OR_RETURN(const NestedField* p, find(c.other));
          const NestedField* target = p;
          if (p->type->kind() == TypeKind::kList) target = &p->type->element();
          if (p->type->kind() == TypeKind::kMap) target = &p->type->value();
          if (target->type->kind() != TypeKind::kStruct) {
            return Status::InvalidArgument("Cannot add to non-struct column: {}: {}", c.other,
                                           p->type->ToString());
          }
          if (deletes.count(target->id) > 0) {
            return Status::InvalidArgument("Cannot add to a column that will be deleted: {}",
                                           c.other);
          }
          parent_id = target->id;
          parent_type = target->type.get();
          full_name = *schema->FindColumnName(p->id) + "." + c.name;
        }
        if (c.name.find('.') != std::string::npos && c.other.empty()) {
          return Status::InvalidArgument(
              "Cannot add column with ambiguous name: {}, use the parent argument", c.name);
        }
        if (const NestedField* existing = parent_type->FieldByName(c.name);
            existing != nullptr && deletes.count(existing->id) == 0) {
          return Status::InvalidArgument("Cannot add column, name already exists: {}", full_name);
        }
        if (added_names.count(full_name) > 0) {
          return Status::InvalidArgument("Cannot add column, name already exists: {}", full_name);
        }
        if (c.required && !c.default_value && !allow_incompatible_) {
          return Status::InvalidArgument("Incompatible change: cannot add required column: {}",
                                         full_name);
        }
        if (c.type == nullptr) return Status::InvalidArgument("missing type for {}", full_name);
        NestedField f;
        f.id = ++next_id;
        f.name = c.name;
        f.type = c.type->is_nested() ? AssignFreshIds(*c.type, [&] { return ++next_id; }) : c.type;
        f.required = c.required;
        f.doc = c.doc;
        if (c.default_value) {
          if (base.format_version < 3) {
            return Status::InvalidArgument("default values require format version 3: {}",
                                           full_name);
          }
          f.initial_default = c.default_value;
          f.write_default = c.default_value;
        }
        added_names[full_name] = {f.id, parent_id};
        adds[parent_id].push_back(std::move(f));
        break;
      }
      case Change::Kind::kDelete: {
        FLOE_ASSIGN_OR_RETURN(const NestedField* f, find(c.name));
        if (adds.count(f->id) > 0) {
          return Status::InvalidArgument("Cannot delete a column that has additions: {}", c.name);
        }
        if (updates.count(f->id) > 0) {
          return Status::InvalidArgument("Cannot delete a column that has updates: {}", c.name);
        }
        deletes.insert(f->id);
        break;
      }
      case Change::Kind::kRename: {
        FLOE_ASSIGN_OR_RETURN(const NestedField* f, find(c.name));
        if (deletes.count(f->id) > 0) {
          return Status::InvalidArgument("Cannot rename a column that will be deleted: {}", c.name);
        }
        updated(*f).name = c.other;
        break;
      }
      case Change::Kind::kType: {
        FLOE_ASSIGN_OR_RETURN(const NestedField* f, find(c.name));
        if (deletes.count(f->id) > 0) {
          return Status::InvalidArgument("Cannot update a column that will be deleted: {}", c.name);
        }
        if (!f->type->is_primitive() || c.type == nullptr || !c.type->is_primitive()) {
          return Status::InvalidArgument("Cannot update non-primitive column: {}", c.name);
        }
        if (!IsPromotionAllowed(*f->type, *c.type, base.format_version)) {
          return Status::InvalidArgument("Cannot change column type: {}: {} -> {}", c.name,
                                         f->type->ToString(), c.type->ToString());
        }
        updated(*f).type = c.type;
        break;
      }
      case Change::Kind::kDoc: {
        FLOE_ASSIGN_OR_RETURN(const NestedField* f, find(c.name));
        updated(*f).doc = c.doc;
        break;
      }
      case Change::Kind::kOptional:
      case Change::Kind::kRequire: {
        FLOE_ASSIGN_OR_RETURN(const NestedField* f, find(c.name));
        bool required = c.kind == Change::Kind::kRequire;
        if (required && !f->required && !allow_incompatible_) {
          return Status::InvalidArgument(
              "Cannot change column nullability: {}: optional -> required", c.name);
        }
        updated(*f).required = required;
        break;
      }
      case Change::Kind::kMoveFirst:
      case Change::Kind::kMoveBefore:
      case Change::Kind::kMoveAfter: {
        FLOE_ASSIGN_OR_RETURN(auto field, locate(c.name));
        Move m{Move::Kind::kFirst, field.first, 0};
        if (c.kind != Change::Kind::kMoveFirst) {
          FLOE_ASSIGN_OR_RETURN(auto ref, locate(c.other));
          if (ref.first == field.first) {
            return Status::InvalidArgument("Cannot move {} before or after itself", c.name);
          }
          if (ref.second != field.second) {
            return Status::InvalidArgument("Cannot move field {} to a different struct", c.name);
          }
          m.kind = c.kind == Change::Kind::kMoveBefore ? Move::Kind::kBefore : Move::Kind::kAfter;
          m.reference_id = ref.first;
        }
        moves[field.second].push_back(m);
        break;
      }
    }
  }

  // Rebuild the tree.
  std::function<Result<NestedField>(const NestedField&)> rewrite_field;
  std::function<Result<std::vector<NestedField>>(const std::vector<NestedField>&, int32_t)>
      rewrite_struct;
  rewrite_field = [&](const NestedField& in) -> Result<NestedField> {
    NestedField f = in;
    if (auto it = updates.find(in.id); it != updates.end()) {
      f.name = it->second.name;
      f.doc = it->second.doc;
      f.required = it->second.required;
      if (in.type->is_primitive()) f.type = it->second.type;
    }
    switch (f.type->kind()) {
      case TypeKind::kStruct: {
        FLOE_ASSIGN_OR_RETURN(auto fields, rewrite_struct(f.type->fields(), f.id));
        f.type = StructType(std::move(fields));
        break;
      }
      case TypeKind::kList: {
        FLOE_ASSIGN_OR_RETURN(NestedField e, rewrite_field(f.type->element()));
        f.type = ListType(std::move(e));
        break;
      }
      case TypeKind::kMap: {
        FLOE_ASSIGN_OR_RETURN(NestedField k, rewrite_field(f.type->key()));
        FLOE_ASSIGN_OR_RETURN(NestedField v, rewrite_field(f.type->value()));
        f.type = MapType(std::move(k), std::move(v));
        break;
      }
      default: break;
    }
    return f;
  };
  rewrite_struct = [&](const std::vector<NestedField>& in,
                       int32_t parent_id) -> Result<std::vector<NestedField>> {
    std::vector<NestedField> out;
    for (const NestedField& f : in) {
      if (deletes.count(f.id) > 0) continue;
      FLOE_ASSIGN_OR_RETURN(NestedField nf, rewrite_field(f));
      out.push_back(std::move(nf));
    }
    if (auto it = adds.find(parent_id); it != adds.end()) {
      out.insert(out.end(), it->second.begin(), it->second.end());
    }
    if (auto it = moves.find(parent_id); it != moves.end()) {
      for (const Move& m : it->second) {
        auto pos = std::find_if(out.begin(), out.end(),
                                [&](const NestedField& f) { return f.id == m.field_id; });
        if (pos == out.end()) continue;
        NestedField moved = std::move(*pos);
        out.erase(pos);
        if (m.kind == Move::Kind::kFirst) {
          out.insert(out.begin(), std::move(moved));
          continue;
        }
        auto ref = std::find_if(out.begin(), out.end(),
                                [&](const NestedField& f) { return f.id == m.reference_id; });
        if (ref == out.end()) {
          return Status::InvalidArgument("Cannot move {} relative to a deleted column", moved.name);
        }
        out.insert(m.kind == Move::Kind::kBefore ? ref : ref + 1, std::move(moved));
      }
    }
    return out;
  };
  FLOE_ASSIGN_OR_RETURN(std::vector<NestedField> fields, rewrite_struct(schema->fields(), kRoot));

  int32_t new_id = 0;
  for (const Schema& s : base.schemas) new_id = std::max(new_id, s.schema_id() + 1);
  FLOE_ASSIGN_OR_RETURN(Schema draft, Schema::Make(fields, new_id));
  std::vector<int32_t> identifiers;
  if (identifier_names_) {
    for (const std::string& n : *identifier_names_) {
      const NestedField* f = draft.FindFieldByName(n, case_sensitive_);
      if (f == nullptr) {
        return Status::InvalidArgument("Cannot add field {} as an identifier field: not found", n);
      }
      if (!f->type->is_primitive() || f->type->kind() == TypeKind::kFloat ||
          f->type->kind() == TypeKind::kDouble) {
        return Status::InvalidArgument(
            "Cannot add field {} as an identifier field: not a valid primitive type", n);
      }
      if (!f->required) {
        return Status::InvalidArgument(
            "Cannot add field {} as an identifier field: not a required field", n);
      }
      identifiers.push_back(f->id);
    }
  } else {
    for (int32_t id : schema->identifier_field_ids()) {
      if (deletes.count(id) > 0) {
        return Status::InvalidArgument("Cannot delete identifier field {}",
                                       schema->FindColumnName(id).value_or("?"));
      }
      identifiers.push_back(id);
    }
  }
  return Schema::Make(std::move(fields), new_id, std::move(identifiers));
}

Status UpdateSchema::Apply(const TableMetadata& base, TableOperations& ops,
                           std::vector<TableUpdate>* updates) {
  if (base.current_schema_id != base_schema_id_) {
    return Status::Conflict("Cannot commit schema update: the current schema changed ({} -> {})",
                            base_schema_id_, base.current_schema_id);
  }
  FLOE_ASSIGN_OR_RETURN(Schema schema, ApplySchema(base));
  if (schema.SameSchema(*base.current_schema())) return Status::OK();
  for (const Schema& s : base.schemas) {
    if (s.SameSchema(schema)) {
      updates->push_back(update::SetCurrentSchema{s.schema_id()});
      return Status::OK();
    }
  }
  updates->push_back(update::AddSchema{std::move(schema)});
  updates->push_back(update::SetCurrentSchema{update::kLastAdded});
  return Status::OK();
}

// --- UpdatePartitionSpec -----------------------------------------------------------------

UpdatePartitionSpec::UpdatePartitionSpec(const TableMetadataPtr& base)
    : base_spec_id_(base ? base->default_spec_id : 0) {}

UpdatePartitionSpec& UpdatePartitionSpec::AddField(std::string source, Transform transform,
                                                   std::string name) {
  adds_.push_back({std::move(source), std::move(transform), std::move(name)});
  return *this;
}
UpdatePartitionSpec& UpdatePartitionSpec::RemoveField(std::string name) {
  removes_.push_back(std::move(name));
  return *this;
}
UpdatePartitionSpec& UpdatePartitionSpec::RenameField(std::string name, std::string new_name) {
  renames_.emplace_back(std::move(name), std::move(new_name));
  return *this;
}

Status UpdatePartitionSpec::Apply(const TableMetadata& base, TableOperations& ops,
                                  std::vector<TableUpdate>* updates) {
  if (base.default_spec_id != base_spec_id_) {
    return Status::Conflict("Cannot commit partition spec update: the default spec changed");
  }
  const PartitionSpec* spec = base.default_spec();
  const Schema* schema = base.current_schema();
  if (spec == nullptr || schema == nullptr) return Status::InvalidArgument("no default spec");
  std::vector<PartitionField> fields = spec->fields();
  auto by_name = [&](const std::string& name) {
    return std::find_if(fields.begin(), fields.end(),
                        [&](const PartitionField& f) { return f.name == name; });
  };
  for (const std::string& name : removes_) {
    auto it = by_name(name);
    if (it == fields.end()) {
      return Status::InvalidArgument("Cannot find partition field to remove: {}", name);
    }
    if (base.format_version == 1) {
      it->transform = Transform::Void();
    } else {
      fields.erase(it);
    }
  }
  for (const auto& [name, new_name] : renames_) {
    auto it = by_name(name);
    if (it == fields.end()) {
      return Status::InvalidArgument("Cannot find partition field to rename: {}", name);
    }
    if (by_name(new_name) != fields.end()) {
      return Status::InvalidArgument("Cannot rename partition field {} to existing name {}", name,
                                     new_name);
    }
    it->name = new_name;
  }
  for (const Add& a : adds_) {
    const NestedField* source = schema->FindFieldByName(a.source);
    if (source == nullptr) {
      return Status::InvalidArgument("Cannot find source column: {}", a.source);
    }
    if (!a.transform.CanTransform(*source->type)) {
      return Status::InvalidArgument("Invalid source type {} for transform: {}",
                                     source->type->ToString(), a.transform.ToString());
    }
    for (const PartitionField& f : fields) {
      if (f.source_id == source->id && f.transform == a.transform) {
        return Status::InvalidArgument("Cannot add duplicate partition field {}", f.name);
      }
    }
    std::string name = a.name.empty() ? DefaultPartitionName(a.source, a.transform) : a.name;
    if (by_name(name) != fields.end()) {
      return Status::InvalidArgument("Cannot add partition field, name already exists: {}", name);
    }
    fields.push_back({source->id, 0, std::move(name), a.transform, {}});
  }
  int32_t new_spec_id = 0;
  for (const PartitionSpec& s : base.specs) new_spec_id = std::max(new_spec_id, s.spec_id() + 1);
  FLOE_ASSIGN_OR_RETURN(EvolvedSpec evolved,
                        EvolveSpec(base.specs, base.last_partition_id, fields, new_spec_id));
  if (evolved.is_existing) {
    if (evolved.spec.spec_id() != base.default_spec_id) {
      updates->push_back(update::SetDefaultSpec{evolved.spec.spec_id()});
    }
    return Status::OK();
  }
  updates->push_back(update::AddSpec{evolved.spec});
  updates->push_back(update::SetDefaultSpec{update::kLastAdded});
  return Status::OK();
}

// --- ReplaceSortOrder --------------------------------------------------------------------

ReplaceSortOrder& ReplaceSortOrder::Asc(std::string column, NullOrder nulls) {
  return Add(std::move(column), Transform::Identity(), SortDirection::kAsc, nulls);
}
ReplaceSortOrder& ReplaceSortOrder::Desc(std::string column, NullOrder nulls) {
  return Add(std::move(column), Transform::Identity(), SortDirection::kDesc, nulls);
}
ReplaceSortOrder& ReplaceSortOrder::Add(std::string column, Transform transform,
                                        SortDirection direction, NullOrder nulls) {
  terms_.push_back({std::move(column), std::move(transform), direction, nulls});
  return *this;
}

Status ReplaceSortOrder::Apply(const TableMetadata& base, TableOperations& ops,
                               std::vector<TableUpdate>* updates) {
  const Schema* schema = base.current_schema();
  if (schema == nullptr) return Status::InvalidArgument("table has no current schema");
  std::vector<SortField> fields;
  for (const Term& t : terms_) {
    const NestedField* f = schema->FindFieldByName(t.column);
    if (f == nullptr) return Status::InvalidArgument("Cannot find field '{}'", t.column);
    fields.push_back({t.transform, f->id, t.direction, t.nulls});
  }
  int32_t new_id = fields.empty() ? 0 : 1;
  for (const SortOrder& o : base.sort_orders) {
    if (o.fields() == fields) {
      if (o.order_id() != base.default_sort_order_id) {
        updates->push_back(update::SetDefaultSortOrder{o.order_id()});
      }
      return Status::OK();
    }
    if (!fields.empty()) new_id = std::max(new_id, o.order_id() + 1);
  }
  SortOrder order(new_id, std::move(fields));
  FLOE_RETURN_IF_ERROR(order.Validate(*schema));
  updates->push_back(update::AddSortOrder{std::move(order)});
  updates->push_back(update::SetDefaultSortOrder{update::kLastAdded});
  return Status::OK();
}

// --- UpdateProperties / UpgradeFormatVersion ---------------------------------------------

UpdateProperties& UpdateProperties::Set(std::string key, std::string value) {
  removes_.erase(key);
  sets_[std::move(key)] = std::move(value);
  return *this;
}
UpdateProperties& UpdateProperties::Remove(std::string key) {
  sets_.erase(key);
  removes_.insert(std::move(key));
  return *this;
}

Status UpdateProperties::Apply(const TableMetadata& base, TableOperations& ops,
                               std::vector<TableUpdate>* updates) {
  if (sets_.count(std::string(kPropertyFormatVersion)) > 0) {
    return Status::InvalidArgument(
        "Cannot set format-version through properties: use UpgradeFormatVersion");
  }
  if (!sets_.empty()) updates->push_back(update::SetProperties{sets_});
  if (!removes_.empty()) {
    updates->push_back(
        update::RemoveProperties{std::vector<std::string>(removes_.begin(), removes_.end())});
  }
  return Status::OK();
}

Status UpgradeFormatVersion::Apply(const TableMetadata& base, TableOperations& ops,
                                   std::vector<TableUpdate>* updates) {
  if (version_ < base.format_version) {
    return Status::InvalidArgument("Cannot downgrade v{} table to v{}", base.format_version,
                                   version_);
  }
  if (version_ > kMaxFormatVersion) {
    return Status::InvalidArgument("Cannot upgrade table to unsupported format version: v{}",
                                   version_);
  }
  if (version_ != base.format_version) updates->push_back(update::UpgradeFormatVersion{version_});
  return Status::OK();
}

// --- ManageSnapshots ---------------------------------------------------------------------

struct ManageSnapshots::Action {
  enum class Kind : uint8_t {
    kCreateBranch,
    kCreateTag,
    kRemoveBranch,
    kRemoveTag,
    kRenameBranch,
    kReplaceBranch,
    kReplaceBranchWith,
    kFastForward,
    kReplaceTag,
    kMinSnapshots,
    kMaxSnapshotAge,
    kMaxRefAge,
    kRollbackTo,
    kRollbackToTime,
    kSetCurrent,
  };
  Kind kind;
  std::string name;
  std::string other;
  int64_t value = 0;
};

ManageSnapshots::ManageSnapshots() = default;
ManageSnapshots::~ManageSnapshots() = default;

#define FLOE_MS_ACTION(kind, ...)                              \
  actions_.push_back(Action{Action::Kind::kind, __VA_ARGS__}); \
  return *this

ManageSnapshots& ManageSnapshots::CreateBranch(std::string name, int64_t id) {
  FLOE_MS_ACTION(kCreateBranch, std::move(name), {}, id);
}
ManageSnapshots& ManageSnapshots::CreateTag(std::string name, int64_t id) {
  FLOE_MS_ACTION(kCreateTag, std::move(name), {}, id);
}
ManageSnapshots& ManageSnapshots::RemoveBranch(std::string name) {
  FLOE_MS_ACTION(kRemoveBranch, std::move(name), {}, 0);
}
ManageSnapshots& ManageSnapshots::RemoveTag(std::string name) {
  FLOE_MS_ACTION(kRemoveTag, std::move(name), {}, 0);
}
ManageSnapshots& ManageSnapshots::RenameBranch(std::string name, std::string new_name) {
  FLOE_MS_ACTION(kRenameBranch, std::move(name), std::move(new_name), 0);
}
ManageSnapshots& ManageSnapshots::ReplaceBranch(std::string name, int64_t id) {
  FLOE_MS_ACTION(kReplaceBranch, std::move(name), {}, id);
}
ManageSnapshots& ManageSnapshots::ReplaceBranchWith(std::string name, std::string source) {
  FLOE_MS_ACTION(kReplaceBranchWith, std::move(name), std::move(source), 0);
}
ManageSnapshots& ManageSnapshots::FastForwardBranch(std::string name, std::string source) {
  FLOE_MS_ACTION(kFastForward, std::move(name), std::move(source), 0);
}
ManageSnapshots& ManageSnapshots::ReplaceTag(std::string name, int64_t id) {
  FLOE_MS_ACTION(kReplaceTag, std::move(name), {}, id);
}
ManageSnapshots& ManageSnapshots::SetMinSnapshotsToKeep(std::string branch, int32_t n) {
  FLOE_MS_ACTION(kMinSnapshots, std::move(branch), {}, n);
}
ManageSnapshots& ManageSnapshots::SetMaxSnapshotAgeMs(std::string branch, int64_t ms) {
  FLOE_MS_ACTION(kMaxSnapshotAge, std::move(branch), {}, ms);
}
ManageSnapshots& ManageSnapshots::SetMaxRefAgeMs(std::string ref, int64_t ms) {
  FLOE_MS_ACTION(kMaxRefAge, std::move(ref), {}, ms);
}
ManageSnapshots& ManageSnapshots::RollbackTo(int64_t id) {
  FLOE_MS_ACTION(kRollbackTo, std::string(kMainBranch), {}, id);
}
ManageSnapshots& ManageSnapshots::RollbackToTime(int64_t ts) {
  FLOE_MS_ACTION(kRollbackToTime, std::string(kMainBranch), {}, ts);
}
ManageSnapshots& ManageSnapshots::SetCurrentSnapshot(int64_t id) {
  FLOE_MS_ACTION(kSetCurrent, std::string(kMainBranch), {}, id);
}
#undef FLOE_MS_ACTION

Status ManageSnapshots::Apply(const TableMetadata& base, TableOperations& ops,
                              std::vector<TableUpdate>* updates) {
  std::map<std::string, SnapshotRef> refs = base.refs;
  auto need_snapshot = [&](int64_t id) -> Status {
    if (base.snapshot_by_id(id) == nullptr) {
      return Status::InvalidArgument("Cannot find snapshot with ID {}", id);
    }
    return Status::OK();
  };
  auto need_ref = [&](const std::string& name, bool branch) -> Result<SnapshotRef*> {
    auto it = refs.find(name);
    if (it == refs.end() || it->second.is_branch() != branch) {
      return Status::InvalidArgument("{} does not exist: {}", branch ? "Branch" : "Tag", name);
    }
    return &it->second;
  };
  auto is_ancestor = [&](int64_t head, int64_t id) {
    for (const Snapshot* s : base.Ancestors(head)) {
      if (s->snapshot_id == id) return true;
    }
    return false;
  };
  for (const Action& a : actions_) {
    switch (a.kind) {
      case Action::Kind::kCreateBranch:
      case Action::Kind::kCreateTag: {
        FLOE_RETURN_IF_ERROR(need_snapshot(a.value));
        if (refs.count(a.name) > 0) {
          return Status::InvalidArgument("Ref {} already exists", a.name);
        }
        refs[a.name] = a.kind == Action::Kind::kCreateBranch ? SnapshotRef::Branch(a.value)
                                                             : SnapshotRef::Tag(a.value);
        break;
      }
      case Action::Kind::kRemoveBranch:
      case Action::Kind::kRemoveTag: {
        bool branch = a.kind == Action::Kind::kRemoveBranch;
        if (branch && a.name == kMainBranch) {
          return Status::InvalidArgument("Cannot remove main branch");
        }
        FLOE_RETURN_IF_ERROR(need_ref(a.name, branch).status());
        refs.erase(a.name);
        break;
      }
      case Action::Kind::kRenameBranch: {
        if (a.name == kMainBranch) return Status::InvalidArgument("Cannot rename main branch");
        FLOE_ASSIGN_OR_RETURN(SnapshotRef * ref, need_ref(a.name, true));
        if (refs.count(a.other) > 0) {
          return Status::InvalidArgument("Ref {} already exists", a.other);
        }
        SnapshotRef copy = *ref;
        refs.erase(a.name);
        refs[a.other] = copy;
        break;
      }
      case Action::Kind::kReplaceBranch:
      case Action::Kind::kReplaceTag: {
        FLOE_RETURN_IF_ERROR(need_snapshot(a.value));
        FLOE_ASSIGN_OR_RETURN(SnapshotRef * ref,
                              need_ref(a.name, a.kind == Action::Kind::kReplaceBranch));
        ref->snapshot_id = a.value;
        break;
      }
      case Action::Kind::kReplaceBranchWith:
      case Action::Kind::kFastForward: {
        FLOE_ASSIGN_OR_RETURN(SnapshotRef * source, need_ref(a.other, true));
        int64_t target = source->snapshot_id;
        auto it = refs.find(a.name);
        if (it == refs.end()) {
          // Java: replacing a missing branch creates it.
          refs[a.name] = SnapshotRef::Branch(target);
          break;
        }
        if (!it->second.is_branch()) {
          return Status::InvalidArgument("Ref {} is a tag, not a branch", a.name);
        }
        if (a.kind == Action::Kind::kFastForward && !is_ancestor(target, it->second.snapshot_id)) {
          return Status::InvalidArgument("Cannot fast-forward: {} is not an ancestor of {}", a.name,
                                         a.other);
        }
        it->second.snapshot_id = target;
        break;
      }
      case Action::Kind::kMinSnapshots: {
        FLOE_ASSIGN_OR_RETURN(SnapshotRef * ref, need_ref(a.name, true));
        ref->min_snapshots_to_keep = static_cast<int32_t>(a.value);
        break;
      }
      case Action::Kind::kMaxSnapshotAge: {
        FLOE_ASSIGN_OR_RETURN(SnapshotRef * ref, need_ref(a.name, true));
        ref->max_snapshot_age_ms = a.value;
        break;
      }
      case Action::Kind::kMaxRefAge: {
        auto it = refs.find(a.name);
        if (it == refs.end()) return Status::InvalidArgument("Ref does not exist: {}", a.name);
        it->second.max_ref_age_ms = a.value;
        break;
      }
      case Action::Kind::kRollbackTo:
      case Action::Kind::kRollbackToTime:
      case Action::Kind::kSetCurrent: {
        auto main = refs.find(std::string(kMainBranch));
        int64_t target = a.value;
        if (a.kind != Action::Kind::kSetCurrent) {
          if (main == refs.end()) {
            return Status::InvalidArgument("Cannot roll back: the table has no current snapshot");
          }
          if (a.kind == Action::Kind::kRollbackToTime) {
            std::optional<int64_t> found;
            for (const Snapshot* s : base.Ancestors(main->second.snapshot_id)) {
              if (s->timestamp_ms < a.value) {
                found = s->snapshot_id;
                break;
              }
            }
            if (!found) {
              return Status::InvalidArgument("Cannot roll back, no valid snapshot older than: {}",
                                             a.value);
            }
            target = *found;
          } else {
            FLOE_RETURN_IF_ERROR(need_snapshot(target));
            if (!is_ancestor(main->second.snapshot_id, target)) {
              return Status::InvalidArgument(
                  "Cannot roll back to snapshot, not an ancestor of the current state: {}", target);
            }
          }
        }
        FLOE_RETURN_IF_ERROR(need_snapshot(target));
        if (main == refs.end()) {
          refs[std::string(kMainBranch)] = SnapshotRef::Branch(target);
        } else {
          main->second.snapshot_id = target;
        }
        break;
      }
    }
  }
  for (const auto& [name, ref] : base.refs) {
    if (refs.count(name) == 0) updates->push_back(update::RemoveSnapshotRef{name});
  }
  for (const auto& [name, ref] : refs) {
    auto it = base.refs.find(name);
    if (it == base.refs.end() || !(it->second == ref)) {
      updates->push_back(update::SetSnapshotRef{name, ref});
    }
  }
  return Status::OK();
}

}  // namespace floe::iceberg
