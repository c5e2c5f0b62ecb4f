#include "floe/iceberg/file_filter.h"

#include <optional>
#include <string_view>

#include "floe/base/macros.h"

namespace floe::iceberg {

FileMetricsRef MetricsOf(const DataFile& file) {
  auto count = [](const std::map<int32_t, int64_t>& m) {
    return [&m](int32_t id) -> std::optional<int64_t> {
      auto it = m.find(id);
      if (it == m.end()) return std::nullopt;
      return it->second;
    };
  };
  auto bound = [](const std::map<int32_t, std::string>& m) {
    return [&m](int32_t id) -> std::optional<std::string_view> {
      auto it = m.find(id);
      if (it == m.end()) return std::nullopt;
      return std::string_view(it->second);
    };
  };
  FileMetricsRef r;
  r.record_count = file.record_count;
  r.value_count = count(file.value_counts);
  r.null_count = count(file.null_value_counts);
  r.nan_count = count(file.nan_value_counts);
  r.lower_bound = bound(file.lower_bounds);
  r.upper_bound = bound(file.upper_bounds);
  return r;
}

namespace {

std::optional<Literal> Bound(const std::map<int32_t, std::string>& m, const BoundTerm& term) {
  auto it = m.find(term.field_id);
  if (it == m.end()) return std::nullopt;
  Result<Literal> lit = Literal::FromBytes(term.type, it->second);
  if (!lit.ok() || lit->is_null()) return std::nullopt;
  return *lit;
}

std::optional<int64_t> Count(const std::map<int32_t, int64_t>& m, int32_t id) {
  auto it = m.find(id);
  if (it == m.end()) return std::nullopt;
  return it->second;
}

bool IsFloat(const BoundTerm& t) {
  return t.type->kind() == TypeKind::kFloat || t.type->kind() == TypeKind::kDouble;
}

// Every row of `file` satisfies the predicate (Java StrictMetricsEvaluator, conservative).
bool StrictPredicate(const BoundExpression& p, const DataFile& file) {
  const BoundTerm& t = p.term();
  const std::optional<int64_t> nulls = Count(file.null_value_counts, t.field_id);
  const std::optional<int64_t> values = Count(file.value_counts, t.field_id);
  const bool no_nulls = t.required || (nulls && *nulls == 0);
  const bool only_nulls = nulls && values && *values == *nulls;
  const std::optional<int64_t> nans = Count(file.nan_value_counts, t.field_id);
  const bool no_nans = !IsFloat(t) || (nans && *nans == 0);
  switch (p.op()) {
    case Operation::kIsNull: return only_nulls;
    case Operation::kNotNull: return no_nulls;
    case Operation::kNotNan: return no_nans || only_nulls;
    default: break;
  }
  if (!no_nulls || !no_nans) {
    // not-eq / not-in hold for nulls (Iceberg row semantics); keep it simple and
    // conservative: nulls or NaNs make the strict answer "maybe not".
    return false;
  }
  std::optional<Literal> lower = Bound(file.lower_bounds, t);
  std::optional<Literal> upper = Bound(file.upper_bounds, t);
  const std::vector<Literal>& lits = p.literals();
  switch (p.op()) {
    case Operation::kLt: return upper && Compare(*upper, lits[0]) < 0;
    case Operation::kLtEq: return upper && Compare(*upper, lits[0]) <= 0;
    case Operation::kGt: return lower && Compare(*lower, lits[0]) > 0;
    case Operation::kGtEq: return lower && Compare(*lower, lits[0]) >= 0;
    case Operation::kEq:
      return lower && upper && Compare(*lower, lits[0]) == 0 && Compare(*upper, lits[0]) == 0;
    case Operation::kNotEq:
      return (lower && Compare(*lower, lits[0]) > 0) || (upper && Compare(*upper, lits[0]) < 0);
    case Operation::kIn:
      if (!lower || !upper || Compare(*lower, *upper) != 0) return false;
      for (const Literal& l : lits) {
        if (Compare(l, *lower) == 0) return true;
      }
      return false;
    case Operation::kNotIn:
      for (const Literal& l : lits) {
        bool outside = (lower && Compare(l, *lower) < 0) || (upper && Compare(l, *upper) > 0);
        if (!outside) return false;
      }
      return true;
    default: return false;
  }
}

// The identity partition field of `spec` whose source is `field_id`, as an index.
std::optional<size_t> IdentityIndex(const PartitionSpec& spec, int32_t field_id) {
  for (size_t i = 0; i < spec.fields().size(); ++i) {
    const PartitionField& f = spec.fields()[i];
    if (f.source_id == field_id && f.transform.kind() == TransformKind::kIdentity) return i;
  }
  return std::nullopt;
}

bool StrictEval(const BoundExpression& e, const PartitionSpec& spec, const DataFile& file) {
  switch (e.op()) {
    case Operation::kTrue: return true;
    case Operation::kFalse: return false;
    case Operation::kAnd:
      return StrictEval(*e.left(), spec, file) && StrictEval(*e.right(), spec, file);
    case Operation::kOr:
      return StrictEval(*e.left(), spec, file) || StrictEval(*e.right(), spec, file);
    default: break;
  }
  // Residual (Java ResidualEvaluator): an identity partition value decides the predicate.
  if (std::optional<size_t> idx = IdentityIndex(spec, e.term().field_id);
      idx && *idx < file.partition.size()) {
    const Literal& value = file.partition[*idx];
    return EvaluateStruct(
        e, [&](int32_t) -> const Literal* { return value.is_null() ? nullptr : &value; });
  }
  return StrictPredicate(e, file);
}

}  // namespace

BoundExpressionPtr Residual(const BoundExpressionPtr& filter, const PartitionSpec& spec,
                            const std::vector<Literal>& partition) {
  switch (filter->op()) {
    case Operation::kTrue:
    case Operation::kFalse: return filter;
    case Operation::kAnd:
      return BoundExpression::And(Residual(filter->left(), spec, partition),
                                  Residual(filter->right(), spec, partition));
    case Operation::kOr:
      return BoundExpression::Or(Residual(filter->left(), spec, partition),
                                 Residual(filter->right(), spec, partition));
    default: break;
  }
  std::optional<size_t> idx = IdentityIndex(spec, filter->term().field_id);
  if (!idx || *idx >= partition.size()) return filter;
  const Literal& value = partition[*idx];
  bool match = EvaluateStruct(
      *filter, [&](int32_t) -> const Literal* { return value.is_null() ? nullptr : &value; });
  return match ? BoundExpression::True() : BoundExpression::False();
}

Result<FileFilter> FileFilter::Make(const TableMetadata& metadata, const ExpressionPtr& expr,
                                    bool case_sensitive) {
  FileFilter f;
  f.metadata_ = &metadata;
  f.schema_ = metadata.current_schema();
  if (f.schema_ == nullptr) return Status::InvalidArgument("table has no current schema");
  if (expr == nullptr || expr->op() == Operation::kTrue) return f;
  FLOE_ASSIGN_OR_RETURN(f.bound_, Bind(*f.schema_, expr, case_sensitive));
  if (f.bound_->op() == Operation::kTrue) f.bound_ = nullptr;
  return f;
}

std::string FileFilter::ToString() const { return bound_ ? bound_->ToString() : "true"; }

Result<FileFilter::SpecState*> FileFilter::StateFor(int32_t spec_id) {
  auto it = specs_.find(spec_id);
  if (it != specs_.end()) return &it->second;
  const PartitionSpec* spec = metadata_->spec_by_id(spec_id);
  if (spec == nullptr) return Status::Corrupt("unknown partition spec {}", spec_id);
  SpecState st;
  st.spec = spec;
  FLOE_ASSIGN_OR_RETURN(st.projection, ProjectInclusive(*bound_, *schema_, *spec));
  return &specs_.emplace(spec_id, std::move(st)).first->second;
}

Result<bool> FileFilter::ManifestMayMatch(const ManifestFile& manifest) {
  if (bound_ == nullptr) return true;
  FLOE_ASSIGN_OR_RETURN(SpecState * st, StateFor(manifest.partition_spec_id));
  if (!manifest.partitions) return true;
  std::vector<FieldSummaryRef> refs;
  for (const PartitionFieldSummary& s : *manifest.partitions) {
    FieldSummaryRef r;
    r.contains_null = s.contains_null;
    r.contains_nan = s.contains_nan;
    if (s.lower_bound) r.lower_bound = std::string_view(*s.lower_bound);
    if (s.upper_bound) r.upper_bound = std::string_view(*s.upper_bound);
    refs.push_back(r);
  }
  if (refs.size() != st->spec->fields().size()) return true;
  return iceberg::ManifestMayMatch(*st->projection, *st->spec, refs);
}

Result<bool> FileFilter::MayMatch(const DataFile& file) {
  if (bound_ == nullptr) return true;
  FLOE_ASSIGN_OR_RETURN(SpecState * st, StateFor(file.spec_id));
  if (file.partition.size() == st->spec->fields().size() &&
      !EvaluatePartition(*st->projection, *st->spec, file.partition)) {
    return false;
  }
  return FileMayMatch(*bound_, MetricsOf(file));
}

Result<bool> FileFilter::MustMatch(const DataFile& file) {
  if (bound_ == nullptr) return true;
  if (file.record_count <= 0) return true;
  FLOE_ASSIGN_OR_RETURN(SpecState * st, StateFor(file.spec_id));
  return StrictEval(*bound_, *st->spec, file);
}

namespace {

// A field of any of the table's schemas by id (current schema first): what Java's
// DeleteFileIndex looks equality fields up in.
const NestedField* FindFieldInAnySchema(const TableMetadata& md, int32_t id) {
  if (const Schema* current = md.current_schema(); current != nullptr) {
    if (const NestedField* f = current->FindField(id); f != nullptr) return f;
  }
  for (const Schema& s : md.schemas) {
    if (const NestedField* f = s.FindField(id); f != nullptr) return f;
  }
  return nullptr;
}

}  // namespace

// Java DeleteFileIndex.canContainEqDeletesForFile, rule for rule.
bool EqualityDeletesMayApply(const TableMetadata& md, const DataFile& data,
                             const DataFile& deletes) {
  if (!deletes.equality_ids) return true;
  for (int32_t id : *deletes.equality_ids) {
    const NestedField* field = FindFieldInAnySchema(md, id);
    if (field == nullptr || !field->type->is_primitive()) continue;
    std::optional<int64_t> data_nulls = Count(data.null_value_counts, id);
    std::optional<int64_t> delete_nulls = Count(deletes.null_value_counts, id);
    auto contains_null = [&](std::optional<int64_t> nulls) {
      return !field->required && (!nulls || *nulls > 0);
    };
    auto all_non_null = [&](std::optional<int64_t> nulls) {
      return field->required || (nulls && *nulls <= 0);
    };
    auto all_null = [&](std::optional<int64_t> nulls, const DataFile& f) {
      std::optional<int64_t> values = Count(f.value_counts, id);
      return !field->required && nulls && values && *nulls == *values;
    };
    if (contains_null(data_nulls) && contains_null(delete_nulls)) continue;
    if (all_null(data_nulls, data) && all_non_null(delete_nulls)) return false;
    if (all_null(delete_nulls, deletes) && all_non_null(data_nulls)) return false;
    auto dl = data.lower_bounds.find(id);
    auto du = data.upper_bounds.find(id);
    auto xl = deletes.lower_bounds.find(id);
    auto xu = deletes.upper_bounds.find(id);
    if (dl == data.lower_bounds.end() || du == data.upper_bounds.end() ||
        xl == deletes.lower_bounds.end() || xu == deletes.upper_bounds.end()) {
      continue;
    }
    Result<Literal> data_lower = Literal::FromBytes(field->type, dl->second);
    Result<Literal> data_upper = Literal::FromBytes(field->type, du->second);
    Result<Literal> delete_lower = Literal::FromBytes(field->type, xl->second);
    Result<Literal> delete_upper = Literal::FromBytes(field->type, xu->second);
    if (!data_lower.ok() || !data_upper.ok() || !delete_lower.ok() || !delete_upper.ok()) continue;
    if (Compare(*data_lower, *delete_upper) > 0 || Compare(*delete_lower, *data_upper) > 0) {
      return false;
    }
  }
  return true;
}

}  // namespace floe::iceberg
