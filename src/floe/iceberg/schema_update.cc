#include "floe/iceberg/schema_update.h"

#include <algorithm>
#include <map>
#include <set>

#include "floe/base/macros.h"

namespace floe::iceberg {

bool IsPromotionAllowed(const Type& from, const Type& to, int format_version) {
  if (from.Equals(to)) return true;
  switch (from.kind()) {
    case TypeKind::kInt: return to.kind() == TypeKind::kLong;
    case TypeKind::kFloat: return to.kind() == TypeKind::kDouble;
    case TypeKind::kDecimal:
      return to.kind() == TypeKind::kDecimal && to.scale() == from.scale() &&
             to.precision() >= from.precision();
    case TypeKind::kDate:
      return format_version >= 3 &&
             (to.kind() == TypeKind::kTimestamp || to.kind() == TypeKind::kTimestampNs);
    case TypeKind::kUnknown: return format_version >= 3;
    default: return false;
  }
}

Status ValidateIdentifierField(const Schema& schema, int32_t id) {
  const NestedField* f = schema.FindField(id);
  if (f == nullptr) return Status::InvalidArgument("identifier field id {} does not exist", id);
  std::string name = schema.FindColumnName(id).value_or(f->name);
  if (!f->type->is_primitive()) {
    return Status::InvalidArgument("identifier field '{}' is not a primitive type", name);
  }
  if (f->type->kind() == TypeKind::kFloat || f->type->kind() == TypeKind::kDouble) {
    return Status::InvalidArgument("identifier field '{}' must not be float or double", name);
  }
  if (!f->required) {
    return Status::InvalidArgument("identifier field '{}' must be required", name);
  }
  for (auto p = schema.FindParentId(id); p; p = schema.FindParentId(*p)) {
    const NestedField* parent = schema.FindField(*p);
    if (parent->type->kind() != TypeKind::kStruct) {
      return Status::InvalidArgument("identifier field '{}' must not be nested in a list or map",
                                     name);
    }
    if (!parent->required) {
      return Status::InvalidArgument(
          "identifier field '{}' must not be nested in an optional struct", name);
    }
  }
  return Status::OK();
}

SchemaUpdate& SchemaUpdate::AddColumn(std::string_view parent, std::string name, TypePtr type,
                                      std::string doc) {
  changes_.push_back(
      {Op::kAdd, std::string(parent), std::move(name), std::move(type), false, std::nullopt, {}});
  changes_.back().doc = std::move(doc);
  return *this;
}

SchemaUpdate& SchemaUpdate::AddRequiredColumn(std::string_view parent, std::string name,
                                              TypePtr type, std::string doc,
                                              std::optional<Literal> default_value) {
  changes_.push_back({Op::kAdd,
                      std::string(parent),
                      std::move(name),
                      std::move(type),
                      true,
                      std::move(default_value),
                      {}});
  changes_.back().doc = std::move(doc);
  return *this;
}

SchemaUpdate& SchemaUpdate::DeleteColumn(std::string_view name) {
  changes_.push_back({Op::kDelete, std::string(name), {}, nullptr, false, std::nullopt, {}});
  return *this;
}
SchemaUpdate& SchemaUpdate::RenameColumn(std::string_view name, std::string new_name) {
  changes_.push_back(
      {Op::kRename, std::string(name), std::move(new_name), nullptr, false, std::nullopt, {}});
  return *this;
}
SchemaUpdate& SchemaUpdate::UpdateColumnType(std::string_view name, TypePtr new_type) {
  changes_.push_back(
      {Op::kUpdateType, std::string(name), {}, std::move(new_type), false, std::nullopt, {}});
  return *this;
}
SchemaUpdate& SchemaUpdate::MakeOptional(std::string_view name) {
  changes_.push_back({Op::kMakeOptional, std::string(name), {}, nullptr, false, std::nullopt, {}});
  return *this;
}
SchemaUpdate& SchemaUpdate::RequireColumn(std::string_view name) {
  changes_.push_back({Op::kRequire, std::string(name), {}, nullptr, false, std::nullopt, {}});
  return *this;
}
SchemaUpdate& SchemaUpdate::UpdateDoc(std::string_view name, std::string doc) {
  changes_.push_back(
      {Op::kUpdateDoc, std::string(name), std::move(doc), nullptr, false, std::nullopt, {}});
  return *this;
}
SchemaUpdate& SchemaUpdate::UpdateWriteDefault(std::string_view name,
                                               std::optional<Literal> value) {
  changes_.push_back(
      {Op::kUpdateWriteDefault, std::string(name), {}, nullptr, false, std::move(value), {}});
  return *this;
}
SchemaUpdate& SchemaUpdate::MoveFirst(std::string_view name) {
  changes_.push_back({Op::kMoveFirst, std::string(name), {}, nullptr, false, std::nullopt, {}});
  return *this;
}
SchemaUpdate& SchemaUpdate::MoveBefore(std::string_view name, std::string_view before) {
  changes_.push_back(
      {Op::kMoveBefore, std::string(name), std::string(before), nullptr, false, std::nullopt, {}});
  return *this;
}
SchemaUpdate& SchemaUpdate::MoveAfter(std::string_view name, std::string_view after) {
  changes_.push_back(
      {Op::kMoveAfter, std::string(name), std::string(after), nullptr, false, std::nullopt, {}});
  return *this;
}
SchemaUpdate& SchemaUpdate::SetIdentifierFields(std::vector<std::string> names) {
  identifier_names_ = std::move(names);
  return *this;
}

namespace {

constexpr int32_t kRoot = -1;

struct Move {
  enum Kind { kFirst, kBefore, kAfter } kind;
  int32_t id;
  int32_t ref;
};

// The pending changes, resolved to field ids.
struct Plan {
  std::set<int32_t> deletes;
  std::map<int32_t, NestedField> updates;
  std::map<int32_t, std::vector<NestedField>> adds;  // struct owner id -> new fields
  std::map<std::string, int32_t> added_names;        // full name -> id
  std::map<int32_t, int32_t> added_parent;           // added id -> struct owner id
  std::map<int32_t, std::vector<Move>> moves;        // struct owner id -> moves

  std::vector<NestedField> RebuildFields(const std::vector<NestedField>& fields, int32_t owner,
                                         Status* status) const {
    std::vector<NestedField> out;
    for (const auto& f : fields) {
      if (deletes.contains(f.id)) continue;
      auto it = updates.find(f.id);
      NestedField nf = it != updates.end() ? it->second : f;
      if (f.type->is_nested()) nf.type = RebuildType(*f.type, f.id, status);
      out.push_back(std::move(nf));
    }
    if (auto a = adds.find(owner); a != adds.end()) {
      out.insert(out.end(), a->second.begin(), a->second.end());
    }
    if (auto m = moves.find(owner); m != moves.end()) {
      for (const Move& mv : m->second) {
        auto pos = [&](int32_t id) {
          return std::find_if(out.begin(), out.end(),
                              [id](const NestedField& x) { return x.id == id; });
        };
        auto it = pos(mv.id);
        if (it == out.end()) {
          *status = Status::InvalidArgument("cannot move deleted field {}", mv.id);
          return out;
        }
        NestedField moved = std::move(*it);
        out.erase(it);
        if (mv.kind == Move::kFirst) {
          out.insert(out.begin(), std::move(moved));
          continue;
        }
        auto ref = pos(mv.ref);
        if (ref == out.end()) {
          *status = Status::InvalidArgument("cannot move next to deleted field {}", mv.ref);
          return out;
        }
        out.insert(mv.kind == Move::kBefore ? ref : ref + 1, std::move(moved));
      }
    }
    return out;
  }

  TypePtr RebuildType(const Type& t, int32_t owner, Status* status) const {
    switch (t.kind()) {
      case TypeKind::kStruct: return StructType(RebuildFields(t.fields(), owner, status));
      case TypeKind::kList: return ListType(RebuildChild(t.element(), status));
      case TypeKind::kMap:
        return MapType(RebuildChild(t.key(), status), RebuildChild(t.value(), status));
      default: return std::make_shared<const Type>(t);
    }
  }

  NestedField RebuildChild(const NestedField& f, Status* status) const {
    auto it = updates.find(f.id);
    NestedField nf = it != updates.end() ? it->second : f;
    if (f.type->is_nested()) nf.type = RebuildType(*f.type, f.id, status);
    return nf;
  }
};

}  // namespace

Result<SchemaUpdateResult> SchemaUpdate::Apply(const Schema& base, int32_t last_column_id,
                                               int format_version) const {
  int32_t last = std::max(last_column_id, base.highest_field_id());
  Plan plan;

  auto find = [&](const std::string& name) -> Result<const NestedField*> {
    const NestedField* f = base.FindFieldByName(name);
    if (f == nullptr) return Status::InvalidArgument("column '{}' does not exist", name);
    return f;
  };
  auto live = [&](const std::string& name, std::string_view what) -> Result<const NestedField*> {
    FLOE_ASSIGN_OR_RETURN(const NestedField* f, find(name));
    if (plan.deletes.contains(f->id)) {
      return Status::InvalidArgument("cannot {} column '{}': it is being deleted", what, name);
    }
    return f;
  };
  auto updated = [&](const NestedField& f) -> NestedField& {
    auto it = plan.updates.find(f.id);
    if (it == plan.updates.end()) it = plan.updates.emplace(f.id, f).first;
    return it->second;
  };
  // The struct owner a field lives in (kRoot for top-level fields).
  auto owner_of = [&](int32_t id) -> int32_t {
    if (auto p = plan.added_parent.find(id); p != plan.added_parent.end()) return p->second;
    return base.FindParentId(id).value_or(kRoot);
  };
  auto find_for_move = [&](const std::string& name) -> Result<int32_t> {
    if (const NestedField* f = base.FindFieldByName(name)) return f->id;
    if (auto a = plan.added_names.find(name); a != plan.added_names.end()) return a->second;
    return Status::InvalidArgument("cannot move missing column '{}'", name);
  };

  for (const Change& c : changes_) {
    switch (c.op) {
      case Op::kAdd: {
        const std::string& name = c.arg;
        const std::string& doc = c.doc;
        if (name.empty()) return Status::InvalidArgument("cannot add a column without a name");
        if (c.type == nullptr) return Status::InvalidArgument("column '{}' has no type", name);
        int32_t owner = kRoot;
        std::string full = name;
        if (!c.name.empty()) {
          FLOE_ASSIGN_OR_RETURN(const NestedField* parent, find(c.name));
          const NestedField* target = parent;
          if (parent->type->kind() == TypeKind::kList) target = &parent->type->element();
          if (parent->type->kind() == TypeKind::kMap) target = &parent->type->value();
          if (target->type->kind() != TypeKind::kStruct) {
            return Status::InvalidArgument("cannot add column '{}' to non-struct '{}'", name,
                                           c.name);
          }
          if (plan.deletes.contains(parent->id) || plan.deletes.contains(target->id)) {
            return Status::InvalidArgument("cannot add column '{}' to '{}': it is being deleted",
                                           name, c.name);
          }
          owner = target->id;
          full = base.FindColumnName(target->id).value_or(c.name) + "." + name;
        }
        const NestedField* existing = base.FindFieldByName(full);
        if ((existing != nullptr && !plan.deletes.contains(existing->id)) ||
            plan.added_names.contains(full)) {
          return Status::InvalidArgument("cannot add column '{}': name already exists", full);
        }
        NestedField f;
        f.id = ++last;
        f.name = name;
        f.doc = doc;
        f.type = AssignFreshIds(*c.type, [&] { return ++last; });
        f.required = c.required;
        if (c.required) {
          if (c.literal && !c.literal->is_null()) {
            if (format_version < 3) {
              return Status::FailedPrecondition(
                  "cannot add required column '{}' with a default before format v3", full);
            }
            if (!f.type->is_primitive()) {
              return Status::InvalidArgument("default for non-primitive column '{}'", full);
            }
            auto lit = c.literal->CastTo(f.type);
            if (!lit.ok()) return lit.status().WithContext("default of column '{}'", full);
            f.initial_default = *lit;
            f.write_default = *lit;
          } else if (!allow_incompatible_) {
            return Status::InvalidArgument(
                "incompatible change: cannot add required column '{}' without a default", full);
          }
        }
        plan.added_names[full] = f.id;
        plan.added_parent[f.id] = owner;
        plan.adds[owner].push_back(std::move(f));
        break;
      }
      case Op::kDelete: {
        FLOE_ASSIGN_OR_RETURN(const NestedField* f, live(c.name, "delete"));
        auto parent = base.FindParentId(f->id);
        if (parent && base.FindField(*parent)->type->kind() != TypeKind::kStruct) {
          return Status::InvalidArgument("cannot delete list element or map key/value '{}'",
                                         c.name);
        }
        if (plan.adds.contains(f->id) ||
            (f->type->kind() == TypeKind::kList && plan.adds.contains(f->type->element().id)) ||
            (f->type->kind() == TypeKind::kMap && plan.adds.contains(f->type->value().id))) {
          return Status::InvalidArgument("cannot delete column '{}': it has additions", c.name);
        }
        if (plan.updates.contains(f->id)) {
          return Status::InvalidArgument("cannot delete column '{}': it has updates", c.name);
        }
        plan.deletes.insert(f->id);
        break;
      }
      case Op::kRename: {
        FLOE_ASSIGN_OR_RETURN(const NestedField* f, live(c.name, "rename"));
        if (c.arg.empty()) return Status::InvalidArgument("cannot rename '{}' to ''", c.name);
        auto parent = base.FindParentId(f->id);
        if (parent && base.FindField(*parent)->type->kind() != TypeKind::kStruct) {
          return Status::InvalidArgument("cannot rename list element or map key/value '{}'",
                                         c.name);
        }
        updated(*f).name = c.arg;
        break;
      }
      case Op::kUpdateType: {
        FLOE_ASSIGN_OR_RETURN(const NestedField* f, live(c.name, "update"));
        if (c.type == nullptr || !f->type->is_primitive() || !c.type->is_primitive()) {
          return Status::InvalidArgument("cannot change the type of '{}': only primitive types",
                                         c.name);
        }
        NestedField& u = updated(*f);
        if (!IsPromotionAllowed(*u.type, *c.type, format_version)) {
          return Status::InvalidArgument(
              "cannot change column type of '{}': {} -> {}{}", c.name, u.type->ToString(),
              c.type->ToString(),
              IsPromotionAllowed(*u.type, *c.type, 3) ? " (needs format v3)" : "");
        }
        u.type = c.type;
        // Defaults stay valid: promotions widen, so the literal casts.
        for (auto* d : {&u.initial_default, &u.write_default}) {
          if (*d) {
            auto cast = (*d)->CastTo(c.type);
            if (!cast.ok()) return cast.status().WithContext("default of '{}'", c.name);
            *d = *cast;
          }
        }
        break;
      }
      case Op::kMakeOptional: {
        FLOE_ASSIGN_OR_RETURN(const NestedField* f, live(c.name, "update"));
        updated(*f).required = false;
        break;
      }
      case Op::kRequire: {
        FLOE_ASSIGN_OR_RETURN(const NestedField* f, live(c.name, "update"));
        if (!f->required && !allow_incompatible_) {
          return Status::InvalidArgument(
              "incompatible change: cannot make optional column '{}' required", c.name);
        }
        updated(*f).required = true;
        break;
      }
      case Op::kUpdateDoc: {
        FLOE_ASSIGN_OR_RETURN(const NestedField* f, live(c.name, "update"));
        updated(*f).doc = c.arg;
        break;
      }
      case Op::kUpdateWriteDefault: {
        FLOE_ASSIGN_OR_RETURN(const NestedField* f, live(c.name, "update"));
        NestedField& u = updated(*f);
        if (!c.literal || c.literal->is_null()) {
          u.write_default.reset();
          break;
        }
        if (format_version < 3) {
          return Status::FailedPrecondition("default values need format v3 ('{}')", c.name);
        }
        if (!u.type->is_primitive()) {
          return Status::InvalidArgument("default for non-primitive column '{}'", c.name);
        }
        auto lit = c.literal->CastTo(u.type);
        if (!lit.ok()) return lit.status().WithContext("default of '{}'", c.name);
        u.write_default = *lit;
        break;
      }
      case Op::kMoveFirst:
      case Op::kMoveBefore:
      case Op::kMoveAfter: {
        FLOE_ASSIGN_OR_RETURN(int32_t id, find_for_move(c.name));
        Move mv{Move::kFirst, id, 0};
        if (c.op != Op::kMoveFirst) {
          FLOE_ASSIGN_OR_RETURN(mv.ref, find_for_move(c.arg));
          if (mv.ref == id) {
            return Status::InvalidArgument("cannot move '{}' relative to itself", c.name);
          }
          if (owner_of(mv.ref) != owner_of(id)) {
            return Status::InvalidArgument("cannot move '{}' next to '{}': different structs",
                                           c.name, c.arg);
          }
          mv.kind = c.op == Op::kMoveBefore ? Move::kBefore : Move::kAfter;
        }
        int32_t owner = owner_of(id);
        if (owner != kRoot && base.FindField(owner) != nullptr &&
            base.FindField(owner)->type->kind() != TypeKind::kStruct) {
          return Status::InvalidArgument("cannot move list element or map key/value '{}'", c.name);
        }
        plan.moves[owner].push_back(mv);
        break;
      }
    }
  }

  Status status;
  std::vector<NestedField> fields = plan.RebuildFields(base.fields(), kRoot, &status);
  FLOE_RETURN_IF_ERROR(status);
  FLOE_ASSIGN_OR_RETURN(Schema without_ids, Schema::Make(fields, base.schema_id()));

  std::vector<int32_t> identifier_ids;
  if (identifier_names_) {
    for (const auto& name : *identifier_names_) {
      const NestedField* f = without_ids.FindFieldByName(name);
      if (f == nullptr) {
        return Status::InvalidArgument("identifier field '{}' does not exist", name);
      }
      if (std::find(identifier_ids.begin(), identifier_ids.end(), f->id) == identifier_ids.end()) {
        identifier_ids.push_back(f->id);
      }
    }
  } else {
    for (int32_t id : base.identifier_field_ids()) {
      if (without_ids.FindField(id) == nullptr) {
        return Status::InvalidArgument(
            "cannot delete identifier field '{}'; also update the identifier fields",
            base.FindColumnName(id).value_or(std::to_string(id)));
      }
      identifier_ids.push_back(id);
    }
  }
  for (int32_t id : identifier_ids) FLOE_RETURN_IF_ERROR(ValidateIdentifierField(without_ids, id));
  FLOE_ASSIGN_OR_RETURN(Schema result, Schema::Make(fields, base.schema_id(), identifier_ids));
  return SchemaUpdateResult{std::move(result), last};
}

}  // namespace floe::iceberg
