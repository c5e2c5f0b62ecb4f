#include "floe/ingest/registry_cdc.h"

#include <cctype>

#include "floe/base/macros.h"
#include "floe/columnar/gather.h"

namespace floe::ingest {

namespace col = floe::columnar;
using iceberg::NestedField;
using iceberg::TypeKind;

Result<char> DebeziumOp(std::string_view op) {
  if (op == "c" || op == "r" || op == "u") return kOpUpsert;
  if (op == "d") return kOpDelete;
  return Status::InvalidArgument("Debezium op '{}' is not c, r, u or d", op);
}

Result<char> CdcFieldOp(std::string_view value, std::string_view field) {
  const char c =
      value.empty() ? '\0' : static_cast<char>(std::toupper(static_cast<unsigned char>(value[0])));
  if (c == 'I' || c == 'U') return kOpUpsert;
  if (c == 'D') return kOpDelete;
  return Status::InvalidArgument("CDC field \"{}\" is \"{}\", not I, U or D", field, value);
}

namespace {

const NestedField* FindField(const std::vector<NestedField>& fields, std::string_view name) {
  for (const NestedField& f : fields) {
    if (f.name == name) return &f;
  }
  return nullptr;
}

int FindName(const std::vector<std::string>& names, std::string_view name) {
  for (size_t i = 0; i < names.size(); ++i) {
    if (names[i] == name) return static_cast<int>(i);
  }
  return -1;
}

// Splits "a.b.c" into its parts.
std::vector<std::string_view> PathParts(std::string_view path) {
  std::vector<std::string_view> parts;
  size_t start = 0;
  while (true) {
    size_t dot = path.find('.', start);
    parts.push_back(path.substr(start, dot == std::string_view::npos ? dot : dot - start));
    if (dot == std::string_view::npos) return parts;
    start = dot + 1;
  }
}

}  // namespace

Result<std::vector<NestedField>> DebeziumRowColumns(const std::vector<NestedField>& envelope) {
  const NestedField* op = FindField(envelope, "op");
  if (op == nullptr || op->type->kind() != TypeKind::kString) {
    return Status::InvalidArgument("not a Debezium envelope: no string field \"op\"");
  }
  const NestedField* before = FindField(envelope, "before");
  const NestedField* after = FindField(envelope, "after");
  if (before == nullptr && after == nullptr) {
    return Status::InvalidArgument("not a Debezium envelope: no \"before\" or \"after\" record");
  }
  for (const NestedField* image : {before, after}) {
    if (image != nullptr && image->type->kind() != TypeKind::kStruct) {
      return Status::InvalidArgument("Debezium \"{}\" is {}, not a record", image->name,
                                     image->type->ToString());
    }
  }
  // The picked images become one column per field: both must have one type.
  if (before != nullptr && after != nullptr && !before->type->Equals(*after->type)) {
    return Status::InvalidArgument(
        "Debezium \"before\" ({}) and \"after\" ({}) are not records of one type",
        before->type->ToString(), after->type->ToString());
  }
  return (after != nullptr ? after : before)->type->fields();
}

Status CheckCdcField(const std::vector<NestedField>& columns, std::string_view path) {
  const std::vector<NestedField>* fields = &columns;
  std::vector<std::string_view> parts = PathParts(path);
  for (size_t i = 0; i < parts.size(); ++i) {
    const NestedField* f = FindField(*fields, parts[i]);
    if (f == nullptr) return Status::InvalidArgument("the schema has no cdc.field \"{}\"", path);
    if (i + 1 == parts.size()) {
      if (f->type->kind() != TypeKind::kString) {
        return Status::InvalidArgument("cdc.field \"{}\" is {}, not a string", path,
                                       f->type->ToString());
      }
      return Status::OK();
    }
    if (f->type->kind() != TypeKind::kStruct) {
      return Status::InvalidArgument("cdc.field \"{}\": \"{}\" is not a record", path, parts[i]);
    }
    fields = &f->type->fields();
  }
  return Status::OK();
}

Result<std::vector<col::Array>> ExtractDebeziumRows(std::vector<col::Array> columns,
                                                    const std::vector<std::string>& names,
                                                    int64_t num_rows,
                                                    std::vector<std::string>* row_names,
                                                    KeyedRows* keyed) {
  const int op_at = FindName(names, "op");
  const int before_at = FindName(names, "before");
  const int after_at = FindName(names, "after");
  if (op_at < 0 || (before_at < 0 && after_at < 0)) {
    return Status::Internal("decoded columns are not a Debezium envelope");
  }
  const col::Array& op = columns[static_cast<size_t>(op_at)];
  if (!op.type()->is_binary_like()) return Status::Internal("Debezium op is not a string");
  // Sources: 0 after, 1 before, 2 a single null row (for the rows that are invalid).
  const col::Array* image = &columns[static_cast<size_t>(after_at >= 0 ? after_at : before_at)];
  const col::Array* after = after_at >= 0 ? &columns[static_cast<size_t>(after_at)] : nullptr;
  const col::Array* before = before_at >= 0 ? &columns[static_cast<size_t>(before_at)] : nullptr;
  col::Array null_row = col::Array::Nulls(image->type(), 1);
  col::Array no_after =
      after == nullptr ? col::Array::Nulls(image->type(), num_rows) : col::Array();
  col::Array no_before =
      before == nullptr ? col::Array::Nulls(image->type(), num_rows) : col::Array();
  if (after == nullptr) after = &no_after;
  if (before == nullptr) before = &no_before;
  keyed->ops.assign(static_cast<size_t>(num_rows), 0);
  keyed->errors.assign(static_cast<size_t>(num_rows), std::string());
  keyed->key_only.assign(static_cast<size_t>(num_rows), 0);
  std::vector<col::RowRef> picks(static_cast<size_t>(num_rows));
  for (int64_t i = 0; i < num_rows; ++i) {
    const size_t r = static_cast<size_t>(i);
    picks[r] = {2, 0};
    if (op.IsNull(i)) {
      keyed->errors[r] = "not a Debezium envelope: no \"op\"";
      continue;
    }
    Result<char> o = DebeziumOp(op.BinaryValue(i));
    if (!o.ok()) {
      keyed->errors[r] = std::string(o.status().message());
      continue;
    }
    const bool del = *o == kOpDelete;
    const col::Array& picked = del ? *before : *after;
    if (picked.IsNull(i)) {
      keyed->errors[r] = fmt::format("Debezium op '{}' without \"{}\"", op.BinaryValue(i),
                                     del ? "before" : "after");
      keyed->key_only[r] = del ? 1 : 0;
      continue;
    }
    keyed->ops[r] = *o;
    picks[r] = {del ? 1u : 0u, static_cast<uint32_t>(i)};
  }
  FLOE_ASSIGN_OR_RETURN(col::Array rows, col::Gather({after, before, &null_row}, picks));
  col::DataTypePtr type = rows.type();
  row_names->clear();
  for (const col::Field& f : type->children()) row_names->push_back(f.name);
  return std::move(std::move(rows).Release().children);
}

Status CdcFieldOps(const std::vector<col::Array>& columns, const std::vector<std::string>& names,
                   std::string_view path, int64_t num_rows, KeyedRows* keyed) {
  std::vector<std::string_view> parts = PathParts(path);
  std::vector<const col::Array*> chain;  // the structs on the way, then the string column
  const int top = FindName(names, parts[0]);
  if (top < 0) return Status::Internal("decoded columns lack cdc.field {}", path);
  chain.push_back(&columns[static_cast<size_t>(top)]);
  for (size_t p = 1; p < parts.size(); ++p) {
    const col::Array& parent = *chain.back();
    const col::Array* child = nullptr;
    for (size_t c = 0; c < parent.type()->children().size(); ++c) {
      if (parent.type()->child(c).name == parts[p]) child = &parent.child(c);
    }
    if (child == nullptr) return Status::Internal("decoded columns lack cdc.field {}", path);
    chain.push_back(child);
  }
  const col::Array& field = *chain.back();
  if (!field.type()->is_binary_like()) return Status::Internal("cdc.field is not a string");
  keyed->ops.assign(static_cast<size_t>(num_rows), 0);
  keyed->errors.assign(static_cast<size_t>(num_rows), std::string());
  for (int64_t i = 0; i < num_rows; ++i) {
    const size_t r = static_cast<size_t>(i);
    bool present = true;
    for (const col::Array* a : chain) present &= a->IsValid(i);
    if (!present) {
      keyed->errors[r] = fmt::format("no string CDC field \"{}\"", path);
      continue;
    }
    Result<char> o = CdcFieldOp(field.BinaryValue(i), path);
    if (!o.ok()) {
      keyed->errors[r] = std::string(o.status().message());
      continue;
    }
    keyed->ops[r] = *o;
  }
  return Status::OK();
}

}  // namespace floe::ingest
