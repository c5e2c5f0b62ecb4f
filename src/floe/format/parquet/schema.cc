#include "floe/format/parquet/schema.h"

#include <algorithm>
#include <functional>
#include <set>

#include "floe/base/macros.h"

namespace floe::format::parquet {

namespace col = floe::columnar;
using Kind = AssemblyNode::Kind;

namespace {

constexpr int kMaxDepth = 100;
constexpr int kMaxLevel = 255;  // far beyond any real schema; keeps levels in int16

struct TreeNode {
  int element = -1;
  std::vector<TreeNode> children;
};

Status ParseTree(const std::vector<SchemaElement>& elements, size_t* pos, int depth,
                 TreeNode* out) {
  if (depth > kMaxDepth) return Status::Corrupt("schema nested deeper than {}", kMaxDepth);
  if (*pos >= elements.size()) return Status::Corrupt("schema ends early");
  const size_t index = (*pos)++;
  const SchemaElement& e = elements[index];
  out->element = static_cast<int>(index);
  if (e.type.has_value() && depth > 0) {
    if (e.num_children.value_or(0) != 0) {
      return Status::Corrupt("schema element '{}' has a type and {} children", e.name,
                             *e.num_children);
    }
    return Status::OK();
  }
  if (!e.num_children.has_value()) {
    return Status::Corrupt("schema element '{}' has neither a type nor children", e.name);
  }
  const int32_t n = *e.num_children;
  if (n < 0 || static_cast<size_t>(n) > elements.size() - *pos) {
    return Status::Corrupt("schema element '{}' claims {} children, {} elements remain", e.name, n,
                           elements.size() - *pos);
  }
  out->children.resize(static_cast<size_t>(n));
  for (auto& c : out->children) FLOE_RETURN_IF_ERROR(ParseTree(elements, pos, depth + 1, &c));
  return Status::OK();
}

FieldRepetitionType RepetitionOf(const SchemaElement& e) {
  // DuckDB treats a missing repetition as REQUIRED; so do we.
  return e.repetition_type.value_or(FieldRepetitionType::kRequired);
}

bool IsListAnnotated(const SchemaElement& e) {
  if (e.logical_type) return e.logical_type->kind == LogicalType::Kind::kList;
  return e.converted_type == ConvertedType::kList;
}

bool IsMapAnnotated(const SchemaElement& e) {
  if (e.logical_type && e.logical_type->kind == LogicalType::Kind::kMap) return true;
  return e.converted_type == ConvertedType::kMap || e.converted_type == ConvertedType::kMapKeyValue;
}

col::TimeUnit ToColumnarUnit(TimeUnit u) {
  switch (u) {
    case TimeUnit::kMillis: return col::TimeUnit::kMilli;
    case TimeUnit::kMicros: return col::TimeUnit::kMicro;
    case TimeUnit::kNanos: return col::TimeUnit::kNano;
  }
  return col::TimeUnit::kMicro;
}

Result<col::DataTypePtr> LeafType(const SchemaElement& e, const std::optional<LogicalType>& lt) {
  using LK = LogicalType::Kind;
  const Type physical = *e.type;
  const LK kind = lt ? lt->kind : LK::kUnrecognized;
  if (physical == Type::kFixedLenByteArray && e.type_length.value_or(-1) <= 0) {
    return Status::Corrupt("column '{}': FIXED_LEN_BYTE_ARRAY without a positive length", e.name);
  }
  if (kind == LK::kUnknown) return col::Null();
  if (kind == LK::kDecimal) {
    int32_t p = lt->decimal.precision;
    int32_t s = lt->decimal.scale;
    bool physical_ok = physical == Type::kInt32 || physical == Type::kInt64 ||
                       physical == Type::kFixedLenByteArray || physical == Type::kByteArray;
    if (!physical_ok || p <= 0 || s < 0 || s > p) {
      return Status::Corrupt("column '{}': invalid DECIMAL({}, {}) on {}", e.name, p, s,
                             EnumToString(physical));
    }
    if (p <= 38 && !(physical == Type::kFixedLenByteArray && e.type_length.value_or(0) > 16)) {
      return col::Decimal128(p, s);
    }
    // Wider than decimal128: keep the raw bytes.
  }
  switch (physical) {
    case Type::kBoolean: return col::Bool();
    case Type::kInt32:
      switch (kind) {
        case LK::kInteger: {
          const auto& it = lt->integer;
          switch (it.bit_width) {
            case 8: return it.is_signed ? col::Int8() : col::UInt8();
            case 16: return it.is_signed ? col::Int16() : col::UInt16();
            case 32: return it.is_signed ? col::Int32() : col::UInt32();
            default:
              return Status::Corrupt("column '{}': INTEGER({}) on INT32", e.name,
                                     static_cast<int>(it.bit_width));
          }
        }
        case LK::kDate: return col::Date32();
        case LK::kTime:
          if (lt->temporal.unit != TimeUnit::kMillis) {
            return Status::Corrupt("column '{}': TIME on INT32 must be MILLIS", e.name);
          }
          return col::Time(col::TimeUnit::kMilli);
        default: return col::Int32();
      }
    case Type::kInt64:
      switch (kind) {
        case LK::kInteger:
          if (lt->integer.bit_width != 64) {
            return Status::Corrupt("column '{}': INTEGER({}) on INT64", e.name,
                                   static_cast<int>(lt->integer.bit_width));
          }
          return lt->integer.is_signed ? col::Int64() : col::UInt64();
        case LK::kTime:
          if (lt->temporal.unit == TimeUnit::kMillis) {
            return Status::Corrupt("column '{}': TIME(MILLIS) on INT64", e.name);
          }
          return col::Time(ToColumnarUnit(lt->temporal.unit));
        case LK::kTimestamp:
          return col::Timestamp(ToColumnarUnit(lt->temporal.unit), lt->temporal.is_adjusted_to_utc);
        default: return col::Int64();
      }
    case Type::kInt96: return col::Timestamp(col::TimeUnit::kNano, false);
    case Type::kFloat: return col::Float32();
    case Type::kDouble: return col::Float64();
    case Type::kByteArray:
      if (kind == LK::kString || kind == LK::kEnum || kind == LK::kJson) return col::String();
      return col::Binary();
    case Type::kFixedLenByteArray: {
      const int32_t len = *e.type_length;
      if (kind == LK::kUuid && len == 16) return col::Uuid();
      if (kind == LK::kFloat16 && len == 2) return col::Float16();
      return col::FixedBinary(len);
    }
  }
  return Status::Unimplemented("column '{}': physical type {} is not supported", e.name,
                               static_cast<int>(physical));
}

struct Built {
  AssemblyNode node;
  col::Field field;
};

class TreeBuilder {
 public:
  TreeBuilder(const std::vector<SchemaElement>& elements, std::vector<ColumnDescriptor>* leaves)
      : elements_(elements), leaves_(leaves) {}

  // A child of a group: applies the node's own repetition.
  Result<Built> Node(const TreeNode& t, int16_t parent_def, int16_t parent_rep, int16_t slot_rep,
                     int16_t slot_def, std::vector<std::string>& path) {
    const SchemaElement& e = elements_[t.element];
    const FieldRepetitionType rep = RepetitionOf(e);
    if (parent_def >= kMaxLevel || parent_rep >= kMaxLevel) {
      return Status::Corrupt("schema nests too many optional or repeated levels");
    }
    if (rep == FieldRepetitionType::kRepeated) {
      // A repeated field outside LIST/MAP: a required list of required elements.
      const auto d = static_cast<int16_t>(parent_def + 1);
      const auto r = static_cast<int16_t>(parent_rep + 1);
      FLOE_ASSIGN_OR_RETURN(Built element, Value(t, d, r, r, d, d, false, path));
      element.field.nullable = false;
      element.field.field_id.reset();
      Built list;
      list.node.kind = Kind::kList;
      list.node.slot_rep = slot_rep;
      list.node.slot_def = slot_def;
      list.node.valid_def = parent_def;
      list.node.nullable = false;
      list.node.elem_rep = r;
      list.node.elem_def = d;
      list.field = col::Field(e.name, col::List(element.field), false, e.field_id);
      list.node.type = list.field.type;
      list.node.first_leaf = element.node.first_leaf;
      list.node.children.push_back(std::move(element.node));
      return list;
    }
    const bool optional = rep == FieldRepetitionType::kOptional;
    const auto d = static_cast<int16_t>(parent_def + (optional ? 1 : 0));
    return Value(t, d, parent_rep, slot_rep, slot_def, d, optional, path);
  }

  // The node as a value whose levels (def, rep) already include its own repetition.
  Result<Built> Value(const TreeNode& t, int16_t def, int16_t rep, int16_t slot_rep,
                      int16_t slot_def, int16_t valid_def, bool nullable,
                      std::vector<std::string>& path) {
    const SchemaElement& e = elements_[t.element];
    path.push_back(e.name);
    Result<Built> r = ValueInner(t, def, rep, slot_rep, slot_def, valid_def, nullable, path);
    path.pop_back();
    return r;
  }

 private:
  Result<Built> ValueInner(const TreeNode& t, int16_t def, int16_t rep, int16_t slot_rep,
                           int16_t slot_def, int16_t valid_def, bool nullable,
                           std::vector<std::string>& path) {
    const SchemaElement& e = elements_[t.element];
    Built b;
    b.node.slot_rep = slot_rep;
    b.node.slot_def = slot_def;
    b.node.valid_def = valid_def;
    b.node.nullable = nullable;
    if (e.type.has_value()) {
      ColumnDescriptor c;
      c.index = static_cast<int>(leaves_->size());
      c.path = path;
      c.element = &e;
      c.physical_type = *e.type;
      c.type_length = e.type_length.value_or(0);
      c.max_def = def;
      c.max_rep = rep;
      c.logical_type = EffectiveLogicalType(e);
      c.field_id = e.field_id;
      FLOE_ASSIGN_OR_RETURN(c.type, LeafType(e, c.logical_type));
      b.node.kind = Kind::kLeaf;
      b.node.type = c.type;
      b.node.max_def = def;
      b.node.max_rep = rep;
      b.node.leaf = c.index;
      b.node.first_leaf = c.index;
      b.field = col::Field(e.name, c.type, nullable, e.field_id);
      leaves_->push_back(std::move(c));
      return b;
    }
    if (t.children.empty()) return Status::Corrupt("group '{}' has no fields", e.name);
    if (IsListAnnotated(e)) return List(t, def, rep, std::move(b), path);
    if (IsMapAnnotated(e)) return Map(t, def, rep, std::move(b), path);
    std::vector<col::Field> fields;
    for (const auto& c : t.children) {
      FLOE_ASSIGN_OR_RETURN(Built child, Node(c, def, rep, slot_rep, slot_def, path));
      fields.push_back(std::move(child.field));
      b.node.children.push_back(std::move(child.node));
    }
    b.node.kind = Kind::kStruct;
    b.field = col::Field(e.name, col::Struct(std::move(fields)), nullable, e.field_id);
    b.node.type = b.field.type;
    b.node.first_leaf = b.node.children[0].first_leaf;
    return b;
  }

  // LIST-annotated group: parquet.md §5.4 rules for which node is the element.
  Result<Built> List(const TreeNode& t, int16_t def, int16_t rep, Built b,
                     std::vector<std::string>& path) {
    const SchemaElement& e = elements_[t.element];
    if (t.children.size() != 1) {
      return Status::Corrupt("LIST group '{}' has {} children, expected 1", e.name,
                             t.children.size());
    }
    const TreeNode& r = t.children[0];
    const SchemaElement& re = elements_[r.element];
    if (RepetitionOf(re) != FieldRepetitionType::kRepeated) {
      return Status::Corrupt("LIST group '{}': child '{}' is not repeated", e.name, re.name);
    }
    const auto rd = static_cast<int16_t>(def + 1);
    const auto rr = static_cast<int16_t>(rep + 1);
    bool repeated_is_element =
        re.type.has_value() || r.children.size() != 1 ||
        RepetitionOf(elements_[r.children[0].element]) == FieldRepetitionType::kRepeated ||
        re.name == "array" || re.name == e.name + "_tuple";
    Built element;
    if (repeated_is_element) {
      FLOE_ASSIGN_OR_RETURN(element, Value(r, rd, rr, rr, rd, rd, false, path));
      element.field.nullable = false;
    } else {
      path.push_back(re.name);
      Result<Built> inner = Node(r.children[0], rd, rr, rr, rd, path);
      path.pop_back();
      FLOE_ASSIGN_OR_RETURN(element, std::move(inner));
    }
    b.node.kind = Kind::kList;
    b.node.elem_rep = rr;
    b.node.elem_def = rd;
    b.field = col::Field(e.name, col::List(element.field), b.node.nullable, e.field_id);
    b.node.type = b.field.type;
    b.node.first_leaf = element.node.first_leaf;
    b.node.children.push_back(std::move(element.node));
    return b;
  }

  Result<Built> Map(const TreeNode& t, int16_t def, int16_t rep, Built b,
                    std::vector<std::string>& path) {
    const SchemaElement& e = elements_[t.element];
    if (t.children.size() != 1) {
      return Status::Corrupt("MAP group '{}' has {} children, expected 1", e.name,
                             t.children.size());
    }
    const TreeNode& kv = t.children[0];
    const SchemaElement& kve = elements_[kv.element];
    if (RepetitionOf(kve) != FieldRepetitionType::kRepeated || kve.type.has_value()) {
      return Status::Corrupt("MAP group '{}': child '{}' is not a repeated group", e.name,
                             kve.name);
    }
    if (kv.children.size() != 2) {
      return Status::Unimplemented(
          "MAP group '{}' has {} fields in '{}' (a key and a value are required)", e.name,
          kv.children.size(), kve.name);
    }
    const auto rd = static_cast<int16_t>(def + 1);
    const auto rr = static_cast<int16_t>(rep + 1);
    path.push_back(kve.name);
    Result<Built> key = Node(kv.children[0], rd, rr, rr, rd, path);
    Result<Built> value = key.ok() ? Node(kv.children[1], rd, rr, rr, rd, path) : Result<Built>();
    path.pop_back();
    FLOE_ASSIGN_OR_RETURN(Built k, std::move(key));
    FLOE_ASSIGN_OR_RETURN(Built v, std::move(value));
    b.node.kind = Kind::kMap;
    b.node.elem_rep = rr;
    b.node.elem_def = rd;
    b.field = col::Field(e.name, col::Map(k.field, v.field), b.node.nullable, e.field_id);
    b.node.type = b.field.type;
    b.node.first_leaf = k.node.first_leaf;
    b.node.children.push_back(std::move(k.node));
    b.node.children.push_back(std::move(v.node));
    return b;
  }

  const std::vector<SchemaElement>& elements_;
  std::vector<ColumnDescriptor>* leaves_;
};

}  // namespace

std::string ColumnDescriptor::PathString() const {
  std::string s;
  for (size_t i = 0; i < path.size(); ++i) {
    if (i) s += '.';
    s += path[i];
  }
  return s;
}

size_t ColumnDescriptor::physical_width() const {
  switch (physical_type) {
    case Type::kInt32:
    case Type::kFloat: return 4;
    case Type::kInt64:
    case Type::kDouble: return 8;
    case Type::kInt96: return 12;
    case Type::kFixedLenByteArray: return static_cast<size_t>(type_length);
    default: return 0;
  }
}

Result<std::unique_ptr<SchemaDescriptor>> SchemaDescriptor::Make(
    std::vector<SchemaElement> elements) {
  std::unique_ptr<SchemaDescriptor> d(new SchemaDescriptor());
  d->elements_ = std::move(elements);
  FLOE_RETURN_IF_ERROR(d->Build());
  return d;
}

Status SchemaDescriptor::Build() {
  if (elements_.empty()) return Status::Corrupt("schema has no root element");
  TreeNode root;
  size_t pos = 0;
  FLOE_RETURN_IF_ERROR(ParseTree(elements_, &pos, 0, &root));
  if (pos != elements_.size()) {
    return Status::Corrupt("schema has {} elements but the tree uses {}", elements_.size(), pos);
  }
  TreeBuilder builder(elements_, &leaves_);
  std::vector<col::Field> fields;
  std::vector<std::string> path;
  for (const auto& c : root.children) {
    FLOE_ASSIGN_OR_RETURN(Built b, builder.Node(c, 0, 0, 0, 0, path));
    fields.push_back(std::move(b.field));
    fields_.push_back(std::move(b.node));
  }
  schema_ = std::make_shared<col::Schema>(std::move(fields));
  return Status::OK();
}

namespace {

// Walks a top-level field's assembly tree together with its columnar Field.
struct Pruner {
  // Selection predicate over (field, path of names).
  std::function<bool(const col::Field&)> selected;

  // Returns the pruned node and field, or nullopt when nothing under it is selected.
  std::optional<std::pair<AssemblyNode, col::Field>> Prune(const AssemblyNode& node,
                                                           const col::Field& field, bool forced) {
    if (forced || selected(field)) return std::make_pair(node, field);
    const auto& type = *field.type;
    switch (node.kind) {
      case Kind::kLeaf: return std::nullopt;
      case Kind::kStruct: {
        AssemblyNode out = node;
        out.children.clear();
        std::vector<col::Field> kept;
        for (size_t i = 0; i < node.children.size(); ++i) {
          auto c = Prune(node.children[i], type.child(i), false);
          if (!c) continue;
          out.children.push_back(std::move(c->first));
          kept.push_back(std::move(c->second));
        }
        if (kept.empty()) return std::nullopt;
        col::Field f = field;
        f.type = col::Struct(std::move(kept));
        out.type = f.type;
        out.first_leaf = out.children[0].first_leaf;
        return std::make_pair(std::move(out), std::move(f));
      }
      case Kind::kList: {
        auto c = Prune(node.children[0], type.child(0), false);
        if (!c) return std::nullopt;
        AssemblyNode out = node;
        out.children = {std::move(c->first)};
        col::Field f = field;
        f.type = col::List(std::move(c->second));
        out.type = f.type;
        out.first_leaf = out.children[0].first_leaf;
        return std::make_pair(std::move(out), std::move(f));
      }
      case Kind::kMap: {
        const auto& entries = *type.child(0).type;
        auto v = Prune(node.children[1], entries.child(1), false);
        bool key_selected = selected(entries.child(0));
        if (!v && !key_selected) return std::nullopt;
        if (!v) v = std::make_pair(node.children[1], entries.child(1));
        AssemblyNode out = node;
        out.children = {node.children[0], std::move(v->first)};
        col::Field f = field;
        f.type = col::Map(entries.child(0), std::move(v->second));
        out.type = f.type;
        return std::make_pair(std::move(out), std::move(f));
      }
    }
    return std::nullopt;
  }
};

void CollectLeaves(const AssemblyNode& node, std::vector<int>* out) {
  if (node.kind == Kind::kLeaf) {
    out->push_back(node.leaf);
    return;
  }
  for (const auto& c : node.children) CollectLeaves(c, out);
}

}  // namespace

SchemaDescriptor::Projection SchemaDescriptor::ProjectAll() const {
  Projection p;
  p.schema = schema_;
  p.fields = fields_;
  for (const auto& f : fields_) CollectLeaves(f, &p.leaves);
  std::sort(p.leaves.begin(), p.leaves.end());
  return p;
}

SchemaDescriptor::Projection SchemaDescriptor::ProjectByIds(const std::vector<int32_t>& ids) const {
  std::set<int32_t> wanted(ids.begin(), ids.end());
  Pruner pruner{[&](const col::Field& f) { return f.field_id && wanted.contains(*f.field_id); }};
  Projection p;
  std::vector<col::Field> fields;
  for (size_t i = 0; i < fields_.size(); ++i) {
    auto r = pruner.Prune(fields_[i], schema_->field(i), false);
    if (!r) continue;
    CollectLeaves(r->first, &p.leaves);
    p.fields.push_back(std::move(r->first));
    fields.push_back(std::move(r->second));
  }
  std::sort(p.leaves.begin(), p.leaves.end());
  p.schema = std::make_shared<col::Schema>(std::move(fields), schema_->metadata());
  return p;
}

Result<SchemaDescriptor::Projection> SchemaDescriptor::ProjectByNames(
    const std::vector<std::string>& paths) const {
  // Resolve every dotted path to a Field object of the file schema (by address).
  std::set<const col::Field*> wanted;
  std::set<int> top;
  for (const auto& path : paths) {
    std::vector<std::string> parts;
    size_t start = 0;
    while (true) {
      size_t dot = path.find('.', start);
      parts.push_back(
          path.substr(start, dot == std::string::npos ? std::string::npos : dot - start));
      if (dot == std::string::npos) break;
      start = dot + 1;
    }
    int index = schema_->FieldIndex(parts[0]);
    if (index < 0) return Status::NotFound("no column named '{}'", path);
    top.insert(index);
    const col::Field* f = &schema_->field(static_cast<size_t>(index));
    for (size_t k = 1; k < parts.size(); ++k) {
      const col::Field* next = nullptr;
      const col::DataType* t = f->type.get();
      if (t->id() == col::TypeId::kMap) t = t->child(0).type.get();
      for (const auto& c : t->children()) {
        if (c.name == parts[k]) next = &c;
      }
      if (!next) return Status::NotFound("no column named '{}'", path);
      f = next;
    }
    wanted.insert(f);
  }
  Pruner pruner{[&](const col::Field& f) { return wanted.contains(&f); }};
  Projection p;
  std::vector<col::Field> fields;
  for (size_t i = 0; i < fields_.size(); ++i) {
    if (!top.contains(static_cast<int>(i))) continue;
    auto r = pruner.Prune(fields_[i], schema_->field(i), false);
    if (!r) continue;
    CollectLeaves(r->first, &p.leaves);
    p.fields.push_back(std::move(r->first));
    fields.push_back(std::move(r->second));
  }
  std::sort(p.leaves.begin(), p.leaves.end());
  p.schema = std::make_shared<col::Schema>(std::move(fields), schema_->metadata());
  return p;
}

namespace {

int32_t DecimalBytes(int32_t precision) {
  // Smallest n with 10^precision - 1 < 2^(8n - 1).
  for (int32_t n = 1; n <= 16; ++n) {
    double max_digits = (8.0 * n - 1) * 0.30102999566398120;  // log10(2)
    if (precision <= static_cast<int32_t>(max_digits)) return n;
  }
  return 16;
}

Status AppendElements(const col::Field& f, FieldRepetitionType rep,
                      std::vector<SchemaElement>* out) {
  SchemaElement e;
  e.name = f.name;
  e.repetition_type = rep;
  e.field_id = f.field_id;
  const auto& t = *f.type;
  using LK = LogicalType::Kind;
  auto integer = [&](Type physical, int8_t bits, bool is_signed, ConvertedType ct) {
    e.type = physical;
    e.logical_type = LogicalType::Integer(bits, is_signed);
    e.converted_type = ct;
  };
  auto unit_of = [](col::TimeUnit u) {
    return u == col::TimeUnit::kMilli   ? TimeUnit::kMillis
           : u == col::TimeUnit::kMicro ? TimeUnit::kMicros
                                        : TimeUnit::kNanos;
  };
  switch (t.id()) {
    case col::TypeId::kNull:
      e.type = Type::kInt32;
      e.logical_type = LogicalType::Of(LK::kUnknown);
      break;
    case col::TypeId::kBool: e.type = Type::kBoolean; break;
    case col::TypeId::kInt8: integer(Type::kInt32, 8, true, ConvertedType::kInt8); break;
    case col::TypeId::kInt16: integer(Type::kInt32, 16, true, ConvertedType::kInt16); break;
    case col::TypeId::kInt32: e.type = Type::kInt32; break;
    case col::TypeId::kInt64: e.type = Type::kInt64; break;
    case col::TypeId::kUInt8: integer(Type::kInt32, 8, false, ConvertedType::kUint8); break;
    case col::TypeId::kUInt16: integer(Type::kInt32, 16, false, ConvertedType::kUint16); break;
    case col::TypeId::kUInt32: integer(Type::kInt32, 32, false, ConvertedType::kUint32); break;
    case col::TypeId::kUInt64: integer(Type::kInt64, 64, false, ConvertedType::kUint64); break;
    case col::TypeId::kFloat16:
      e.type = Type::kFixedLenByteArray;
      e.type_length = 2;
      e.logical_type = LogicalType::Of(LK::kFloat16);
      break;
    case col::TypeId::kFloat32: e.type = Type::kFloat; break;
    case col::TypeId::kFloat64: e.type = Type::kDouble; break;
    case col::TypeId::kDecimal128: {
      const int32_t p = t.precision();
      if (p <= 9) {
        e.type = Type::kInt32;
      } else if (p <= 18) {
        e.type = Type::kInt64;
      } else {
        e.type = Type::kFixedLenByteArray;
        e.type_length = DecimalBytes(p);
      }
      e.logical_type = LogicalType::Decimal(p, t.scale());
      e.converted_type = ConvertedType::kDecimal;
      e.precision = p;
      e.scale = t.scale();
      break;
    }
    case col::TypeId::kDate32:
      e.type = Type::kInt32;
      e.logical_type = LogicalType::Of(LK::kDate);
      e.converted_type = ConvertedType::kDate;
      break;
    case col::TypeId::kTime32:
    case col::TypeId::kTime64:
      if (t.unit() == col::TimeUnit::kSecond) {
        return Status::InvalidArgument("field '{}': time in seconds has no Parquet type", f.name);
      }
      e.type = t.unit() == col::TimeUnit::kMilli ? Type::kInt32 : Type::kInt64;
      e.logical_type = LogicalType::Time(false, unit_of(t.unit()));
      if (t.unit() == col::TimeUnit::kMilli) e.converted_type = ConvertedType::kTimeMillis;
      if (t.unit() == col::TimeUnit::kMicro) e.converted_type = ConvertedType::kTimeMicros;
      break;
    case col::TypeId::kTimestamp:
      if (t.unit() == col::TimeUnit::kSecond) {
        return Status::InvalidArgument("field '{}': timestamps in seconds have no Parquet type",
                                       f.name);
      }
      e.type = Type::kInt64;
      e.logical_type = LogicalType::Timestamp(t.utc_adjusted(), unit_of(t.unit()));
      if (t.unit() == col::TimeUnit::kMilli) e.converted_type = ConvertedType::kTimestampMillis;
      if (t.unit() == col::TimeUnit::kMicro) e.converted_type = ConvertedType::kTimestampMicros;
      break;
    case col::TypeId::kString:
      e.type = Type::kByteArray;
      e.logical_type = LogicalType::Of(LK::kString);
      e.converted_type = ConvertedType::kUtf8;
      break;
    case col::TypeId::kBinary: e.type = Type::kByteArray; break;
    case col::TypeId::kFixedBinary:
      e.type = Type::kFixedLenByteArray;
      e.type_length = t.byte_width();
      break;
    case col::TypeId::kUuid:
      e.type = Type::kFixedLenByteArray;
      e.type_length = 16;
      e.logical_type = LogicalType::Of(LK::kUuid);
      break;
    case col::TypeId::kStruct: {
      if (t.children().empty()) {
        return Status::InvalidArgument("field '{}': Parquet cannot store a struct with no fields",
                                       f.name);
      }
      e.num_children = static_cast<int32_t>(t.children().size());
      out->push_back(std::move(e));
      for (const auto& c : t.children()) {
        FLOE_RETURN_IF_ERROR(AppendElements(
            c, c.nullable ? FieldRepetitionType::kOptional : FieldRepetitionType::kRequired, out));
      }
      return Status::OK();
    }
    case col::TypeId::kList: {
      e.num_children = 1;
      e.logical_type = LogicalType::Of(LK::kList);
      e.converted_type = ConvertedType::kList;
      out->push_back(std::move(e));
      SchemaElement list;
      list.name = "list";
      list.repetition_type = FieldRepetitionType::kRepeated;
      list.num_children = 1;
      out->push_back(std::move(list));
      col::Field element = t.child(0);
      element.name = "element";
      return AppendElements(
          element,
          element.nullable ? FieldRepetitionType::kOptional : FieldRepetitionType::kRequired, out);
    }
    case col::TypeId::kMap: {
      e.num_children = 1;
      e.logical_type = LogicalType::Of(LK::kMap);
      e.converted_type = ConvertedType::kMap;
      out->push_back(std::move(e));
      SchemaElement kv;
      kv.name = "key_value";
      kv.repetition_type = FieldRepetitionType::kRepeated;
      kv.num_children = 2;
      out->push_back(std::move(kv));
      const auto& entries = *t.child(0).type;
      col::Field key = entries.child(0);
      key.name = "key";
      col::Field value = entries.child(1);
      value.name = "value";
      FLOE_RETURN_IF_ERROR(AppendElements(key, FieldRepetitionType::kRequired, out));
      return AppendElements(
          value, value.nullable ? FieldRepetitionType::kOptional : FieldRepetitionType::kRequired,
          out);
    }
    case col::TypeId::kUnion:
      return Status::InvalidArgument("field '{}': Parquet cannot store a union", f.name);
  }
  out->push_back(std::move(e));
  return Status::OK();
}

}  // namespace

Result<std::unique_ptr<SchemaDescriptor>> SchemaDescriptor::FromColumnar(const col::Schema& schema,
                                                                         std::string root_name) {
  std::vector<SchemaElement> elements;
  SchemaElement root;
  root.name = std::move(root_name);
  root.num_children = static_cast<int32_t>(schema.num_fields());
  elements.push_back(std::move(root));
  for (const auto& f : schema.fields()) {
    FLOE_RETURN_IF_ERROR(AppendElements(
        f, f.nullable ? FieldRepetitionType::kOptional : FieldRepetitionType::kRequired,
        &elements));
  }
  return Make(std::move(elements));
}

}  // namespace floe::format::parquet
