#include "floe/format/avro/datum_reader.h"

#include <algorithm>
#include <limits>
#include <unordered_map>

#include <fmt/format.h>

#include "floe/base/macros.h"
#include "floe/format/avro/binary.h"
#include "floe/format/avro/columnar_schema.h"
#include "floe/format/avro/json_encoding.h"

namespace floe::format::avro {

namespace col = floe::columnar;

namespace {

// Recursive schemas nest as deep as their data says; this bounds the decoder's recursion.
constexpr int kMaxDecodeDepth = 512;

enum class Op : uint8_t {
  // Decode a writer value into a builder.
  kNull,  // append a null (writer null, or a reader field the writer lacks)
  kBool,
  kIntToInt32,
  kIntToInt64,
  kIntToFloat32,
  kIntToFloat64,
  kLongToInt64,
  kLongToFloat32,
  kLongToFloat64,
  kFloatToFloat32,
  kFloatToFloat64,
  kDoubleToFloat64,
  kBytes,         // bytes or string into a BinaryBuilder
  kFixed,         // fixed into a FixedBinaryBuilder
  kEnum,          // symbol index into a BinaryBuilder, through the symbol table
  kDecimalBytes,  // into FixedWidthBuilder<__int128>
  kDecimalFixed,
  kRecord,       // StructBuilder
  kArray,        // ListBuilder (a List, or a Map from an Iceberg map array)
  kMap,          // ListBuilder of a Map
  kUnion,        // writer union: the branch index picks a plan for the same builder
  kUnionMember,  // reader dense union: append member `size`, decode into it
  kDefault,      // decode the constant (an encoded default) with plan `child`
  kFail,         // a writer union branch the reader cannot take
  // Consume a writer value the reader does not want.
  kSkipNothing,
  kSkipBool,
  kSkipVarint,
  kSkipFixed,
  kSkipBytes,
  kSkipRecord,
  kSkipArray,
  kSkipMap,
  kSkipUnion,
};

// The concrete builder behind a column type: appending a null through it is a direct call.
enum class BuilderKind : uint8_t {
  kNull,
  kBool,
  kInt32,
  kInt64,
  kFloat32,
  kFloat64,
  kInt128,
  kBinary,
  kFixedBinary,
  kStruct,
  kList,
  kUnion,
};

Result<BuilderKind> KindOf(const col::DataType& t) {
  switch (t.id()) {
    case col::TypeId::kNull: return BuilderKind::kNull;
    case col::TypeId::kBool: return BuilderKind::kBool;
    case col::TypeId::kInt32:
    case col::TypeId::kDate32:
    case col::TypeId::kTime32: return BuilderKind::kInt32;
    case col::TypeId::kInt64:
    case col::TypeId::kTime64:
    case col::TypeId::kTimestamp: return BuilderKind::kInt64;
    case col::TypeId::kFloat32: return BuilderKind::kFloat32;
    case col::TypeId::kFloat64: return BuilderKind::kFloat64;
    case col::TypeId::kDecimal128: return BuilderKind::kInt128;
    case col::TypeId::kString:
    case col::TypeId::kBinary: return BuilderKind::kBinary;
    case col::TypeId::kFixedBinary:
    case col::TypeId::kUuid: return BuilderKind::kFixedBinary;
    case col::TypeId::kStruct: return BuilderKind::kStruct;
    case col::TypeId::kList:
    case col::TypeId::kMap: return BuilderKind::kList;
    case col::TypeId::kUnion: return BuilderKind::kUnion;
    default: return Status::Internal("no avro decoding into {}", t.ToString());
  }
}

void AppendNullTo(BuilderKind kind, col::ArrayBuilder* b) {
  switch (kind) {
    case BuilderKind::kNull: static_cast<col::NullBuilder*>(b)->AppendNull(); return;
    case BuilderKind::kBool: static_cast<col::BoolBuilder*>(b)->AppendNull(); return;
    case BuilderKind::kInt32:
      static_cast<col::FixedWidthBuilder<int32_t>*>(b)->AppendNull();
      return;
    case BuilderKind::kInt64:
      static_cast<col::FixedWidthBuilder<int64_t>*>(b)->AppendNull();
      return;
    case BuilderKind::kFloat32:
      static_cast<col::FixedWidthBuilder<float>*>(b)->AppendNull();
      return;
    case BuilderKind::kFloat64:
      static_cast<col::FixedWidthBuilder<double>*>(b)->AppendNull();
      return;
    case BuilderKind::kInt128:
      static_cast<col::FixedWidthBuilder<__int128>*>(b)->AppendNull();
      return;
    case BuilderKind::kBinary: static_cast<col::BinaryBuilder*>(b)->AppendNull(); return;
    case BuilderKind::kFixedBinary: static_cast<col::FixedBinaryBuilder*>(b)->AppendNull(); return;
    case BuilderKind::kStruct: static_cast<col::StructBuilder*>(b)->AppendNull(); return;
    case BuilderKind::kList: static_cast<col::ListBuilder*>(b)->AppendNull(); return;
    case BuilderKind::kUnion: static_cast<col::UnionBuilder*>(b)->AppendNull(); return;
  }
}

std::string Describe(const Node& n) {
  std::string s(n.branch_label());
  if (n.logical_type() != LogicalType::kNone) {
    s += fmt::format(" ({})", LogicalTypeName(n.logical_type()));
  }
  return s;
}

Status Mismatch(const Node& w, const Node& r) {
  return Status::InvalidArgument("writer type {} does not match reader type {}", Describe(w),
                                 Describe(r));
}

bool IsPromotable(AvroType w, AvroType r) {
  switch (w) {
    case AvroType::kInt:
      return r == AvroType::kLong || r == AvroType::kFloat || r == AvroType::kDouble;
    case AvroType::kLong: return r == AvroType::kFloat || r == AvroType::kDouble;
    case AvroType::kFloat: return r == AvroType::kDouble;
    case AvroType::kString: return r == AvroType::kBytes;
    case AvroType::kBytes: return r == AvroType::kString;
    default: return false;
  }
}

bool NamesMatch(const Node& w, const Node& r) {
  if (w.full_name() == r.full_name()) return true;
  return std::find(r.aliases().begin(), r.aliases().end(), w.full_name()) != r.aliases().end();
}

}  // namespace

struct RecordStep {
  int32_t plan = -1;
  int32_t field = -1;  // output child, or -1 to skip the writer field
};

struct DatumReader::PlanNode {
  Op op = Op::kNull;
  BuilderKind kind = BuilderKind::kNull;  // kNull: the builder that takes the null
  int32_t size = 0;                       // fixed sizes; kUnionMember: the member
  int32_t child = -1;                     // items, map values, union member, default
  int64_t min_item_size = 0;              // arrays and maps: smallest encoded item
  std::vector<int32_t> branches;          // unions: plan per writer branch; records: skips
  std::vector<RecordStep> steps;          // kRecord: one per writer field, in order
  std::vector<RecordStep> fills;          // kRecord: reader fields the writer lacks
  std::vector<std::string> symbols;       // kEnum: the reader's symbol per writer index
  std::vector<uint8_t> symbol_ok;         // kEnum: 0 where the reader has no symbol
  std::string message;                    // kFail, and kEnum's unmapped symbols
  Buffer constant;                        // kDefault
};

class PlanCompiler {
 public:
  using PlanNode = DatumReader::PlanNode;

  explicit PlanCompiler(std::vector<PlanNode>* plan) : plan_(plan) {}

  // Smallest encoded size of a value of `w`; recursive references count as 0.
  int64_t MinSize(const Node& w) {
    switch (w.type()) {
      case AvroType::kNull: return 0;
      case AvroType::kFloat: return 4;
      case AvroType::kDouble: return 8;
      case AvroType::kFixed: return w.fixed_size();
      case AvroType::kRecord: {
        auto it = min_size_memo_.find(&w);
        if (it != min_size_memo_.end()) return it->second;
        min_size_memo_[&w] = 0;
        int64_t sum = 0;
        for (const auto& f : w.fields()) {
          sum = std::min<int64_t>(sum + MinSize(f.type()), int64_t{1} << 40);
        }
        min_size_memo_[&w] = sum;
        return sum;
      }
      default: return 1;  // a varint, a length, a block count or a branch index
    }
  }

  Result<int32_t> SkipPlan(const Node& w) {
    auto it = skip_memo_.find(&w);
    if (it != skip_memo_.end()) return it->second;
    int32_t idx;
    switch (w.type()) {
      case AvroType::kNull: idx = Add(Op::kSkipNothing); break;
      case AvroType::kBoolean: idx = Add(Op::kSkipBool); break;
      case AvroType::kInt:
      case AvroType::kLong:
      case AvroType::kEnum: idx = Add(Op::kSkipVarint); break;
      case AvroType::kFloat:
      case AvroType::kDouble:
      case AvroType::kFixed:
        idx = Add(Op::kSkipFixed);
        at(idx).size = static_cast<int32_t>(MinSize(w));
        break;
      case AvroType::kBytes:
      case AvroType::kString: idx = Add(Op::kSkipBytes); break;
      case AvroType::kRecord: {
        idx = Add(Op::kSkipRecord);
        skip_memo_[&w] = idx;  // before the fields, which may refer back to this record
        std::vector<int32_t> fields;
        for (const auto& f : w.fields()) {
          FLOE_ASSIGN_OR_RETURN(int32_t p, SkipPlan(f.type()));
          fields.push_back(p);
        }
        at(idx).branches = std::move(fields);
        break;
      }
      case AvroType::kArray:
      case AvroType::kMap: {
        bool is_array = w.type() == AvroType::kArray;
        idx = Add(is_array ? Op::kSkipArray : Op::kSkipMap);
        skip_memo_[&w] = idx;
        const Node& item = is_array ? w.items() : w.values();
        FLOE_ASSIGN_OR_RETURN(int32_t p, SkipPlan(item));
        at(idx).child = p;
        at(idx).min_item_size = MinSize(item) + (is_array ? 0 : 1);
        break;
      }
      case AvroType::kUnion: {
        idx = Add(Op::kSkipUnion);
        skip_memo_[&w] = idx;
        std::vector<int32_t> branches;
        for (size_t i = 0; i < w.num_branches(); ++i) {
          FLOE_ASSIGN_OR_RETURN(int32_t p, SkipPlan(w.branch(i)));
          branches.push_back(p);
        }
        at(idx).branches = std::move(branches);
        break;
      }
      default: return Status::Internal("unhandled avro type");
    }
    skip_memo_[&w] = idx;
    return idx;
  }

  // A plan that appends a null for reader schema `r` (column type `t`).
  Result<int32_t> NullPlan(const Node& r, const col::DataTypePtr& t) {
    if (r.type() == AvroType::kUnion) {
      UnionShape shape = ClassifyUnion(r);
      if (shape.null_branch < 0) {
        return Status::InvalidArgument("reader type {} is not nullable", Describe(r));
      }
      if (shape.dense) {
        int32_t child = Add(Op::kNull);
        at(child).kind = BuilderKind::kNull;
        int32_t idx = Add(Op::kUnionMember);
        at(idx).size = shape.null_branch;
        at(idx).child = child;
        return idx;
      }
    } else if (r.type() != AvroType::kNull) {
      return Status::InvalidArgument("reader type {} is not nullable", Describe(r));
    }
    FLOE_ASSIGN_OR_RETURN(BuilderKind kind, KindOf(*t));
    int32_t idx = Add(Op::kNull);
    at(idx).kind = kind;
    return idx;
  }

  // A plan reading writer schema `w` as reader schema `r` into a column of type `t`.
  Result<int32_t> Resolve(const Node& w, const Node& r, const col::DataTypePtr& t) {
    if (w.type() == AvroType::kUnion) {
      // Spec: each writer branch is resolved against the reader's schema; a branch that
      // does not match is an error only when a datum takes it.
      std::vector<int32_t> branches;
      bool any = false;
      for (size_t i = 0; i < w.num_branches(); ++i) {
        Result<int32_t> p = Resolve(w.branch(i), r, t);
        if (p.ok()) {
          branches.push_back(*p);
          any = true;
        } else {
          int32_t fail = Add(Op::kFail);
          at(fail).message = fmt::format("writer union branch {} ({}): {}", i,
                                         Describe(w.branch(i)), p.status().message());
          branches.push_back(fail);
        }
      }
      if (!any && w.num_branches() > 0) {
        return Status::InvalidArgument("no branch of the writer's union matches reader type {}",
                                       Describe(r));
      }
      int32_t idx = Add(Op::kUnion);
      at(idx).branches = std::move(branches);
      return idx;
    }
    if (r.type() == AvroType::kUnion) {
      UnionShape shape = ClassifyUnion(r);
      if (!shape.dense) {
        if (w.type() == AvroType::kNull) {
          if (shape.null_branch >= 0) return NullPlan(r, t);
          return Mismatch(w, r);
        }
        if (shape.value_branch < 0) return Mismatch(w, r);
        return Resolve(w, r.branch(static_cast<size_t>(shape.value_branch)), t);
      }
      Status last = Mismatch(w, r);
      for (int m : BranchCandidates(w, r)) {
        Result<int32_t> child =
            Resolve(w, r.branch(static_cast<size_t>(m)), t->child(static_cast<size_t>(m)).type);
        if (!child.ok()) {
          last = std::move(child).status();
          continue;
        }
        int32_t idx = Add(Op::kUnionMember);
        at(idx).size = m;
        at(idx).child = *child;
        return idx;
      }
      return last;
    }
    return ResolveLeafOrContainer(w, r, t);
  }

  // `selected`: the reader fields to produce, in output order; `columns` their columns.
  Result<int32_t> RecordPlan(const Node& w, const Node& r, const std::vector<size_t>& selected,
                             const std::vector<col::Field>& columns) {
    const auto& wf = w.fields();
    const auto& rf = r.fields();
    bool writer_has_ids =
        std::any_of(wf.begin(), wf.end(), [](const RecordField& f) { return f.field_id(); });
    std::vector<int32_t> writer_to_out(wf.size(), -1);
    std::vector<bool> matched(selected.size(), false);
    for (size_t k = 0; k < selected.size(); ++k) {
      const RecordField& f = rf[selected[k]];
      int wi = -1;
      if (f.field_id() && writer_has_ids) {
        // Iceberg: ids are the identity of a field; names may have changed.
        for (size_t i = 0; i < wf.size() && wi < 0; ++i) {
          if (wf[i].field_id() == f.field_id()) wi = static_cast<int>(i);
        }
      } else {
        for (size_t i = 0; i < wf.size() && wi < 0; ++i) {
          if (wf[i].name() == f.name()) wi = static_cast<int>(i);
        }
        for (const auto& alias : f.aliases()) {
          for (size_t i = 0; i < wf.size() && wi < 0; ++i) {
            if (wf[i].name() == alias) wi = static_cast<int>(i);
          }
        }
      }
      if (wi >= 0 && writer_to_out[static_cast<size_t>(wi)] < 0) {
        writer_to_out[static_cast<size_t>(wi)] = static_cast<int32_t>(k);
        matched[k] = true;
      }
    }
    std::vector<RecordStep> steps;
    for (size_t i = 0; i < wf.size(); ++i) {
      int32_t k = writer_to_out[i];
      if (k < 0) {
        FLOE_ASSIGN_OR_RETURN(int32_t p, SkipPlan(wf[i].type()));
        steps.push_back({p, -1});
        continue;
      }
      const RecordField& f = rf[selected[static_cast<size_t>(k)]];
      Result<int32_t> p = Resolve(wf[i].type(), f.type(), columns[static_cast<size_t>(k)].type);
      if (!p.ok()) return p.status().WithContext("field '{}' of '{}'", f.name(), r.full_name());
      steps.push_back({*p, k});
    }
    std::vector<RecordStep> fills;
    for (size_t k = 0; k < selected.size(); ++k) {
      if (matched[k]) continue;
      const RecordField& f = rf[selected[k]];
      Result<int32_t> p = FillPlan(f, columns[k].type);
      if (!p.ok()) return p.status().WithContext("field '{}' of '{}'", f.name(), r.full_name());
      fills.push_back({*p, static_cast<int32_t>(k)});
    }
    int32_t idx = Add(Op::kRecord);
    at(idx).steps = std::move(steps);
    at(idx).fills = std::move(fills);
    return idx;
  }

 private:
  int32_t Add(Op op) {
    plan_->emplace_back();
    plan_->back().op = op;
    return static_cast<int32_t>(plan_->size() - 1);
  }
  PlanNode& at(int32_t i) { return (*plan_)[static_cast<size_t>(i)]; }

  // A leaf op after checking that the column's builder is the one the op appends to.
  Result<int32_t> Leaf(Op op, const col::DataTypePtr& t, BuilderKind expected) {
    FLOE_ASSIGN_OR_RETURN(BuilderKind kind, KindOf(*t));
    if (kind != expected) {
      return Status::Internal("avro decode plan: column {} does not fit", t->ToString());
    }
    return Add(op);
  }

  // Reader union branches to try for writer type `w`, best first (see the header).
  std::vector<int> BranchCandidates(const Node& w, const Node& r) {
    std::vector<int> out;
    auto add = [&](size_t i) {
      if (std::find(out.begin(), out.end(), static_cast<int>(i)) == out.end()) {
        out.push_back(static_cast<int>(i));
      }
    };
    for (int pass = 0; pass < 4; ++pass) {
      for (size_t i = 0; i < r.num_branches(); ++i) {
        const Node& b = r.branch(i);
        bool same = b.type() == w.type();
        bool take = false;
        switch (pass) {
          case 0: take = same && (!w.is_named() || NamesMatch(w, b)); break;
          case 1: take = same && w.is_named() && b.name() == w.name(); break;
          case 2: take = same; break;
          case 3: take = IsPromotable(w.type(), b.type()); break;
        }
        if (take) add(i);
      }
    }
    return out;
  }

  Result<int32_t> FillPlan(const RecordField& f, const col::DataTypePtr& t) {
    if (f.default_json()) {
      Buffer bytes;
      // A default that does not fit its type counts as absent (strict parsing rejects it).
      if (EncodeDefaultValue(f.type(), *f.default_json(), &bytes).ok()) {
        FLOE_ASSIGN_OR_RETURN(int32_t child, Resolve(f.type(), f.type(), t));
        int32_t idx = Add(Op::kDefault);
        at(idx).constant = std::move(bytes);
        at(idx).child = child;
        return idx;
      }
    }
    if (IsNullable(f.type())) return NullPlan(f.type(), t);
    return Status::InvalidArgument("the writer's schema lacks the field and it has no default");
  }

  Result<int32_t> ResolveLeafOrContainer(const Node& w, const Node& r, const col::DataTypePtr& t) {
    AvroType wt = w.type();
    AvroType rt = r.type();
    switch (wt) {
      case AvroType::kNull:
        if (rt == AvroType::kNull) return NullPlan(r, t);
        break;
      case AvroType::kBoolean:
        if (rt == AvroType::kBoolean) return Leaf(Op::kBool, t, BuilderKind::kBool);
        break;
      case AvroType::kInt:
        if (rt == AvroType::kInt) return Leaf(Op::kIntToInt32, t, BuilderKind::kInt32);
        if (rt == AvroType::kLong) return Leaf(Op::kIntToInt64, t, BuilderKind::kInt64);
        if (rt == AvroType::kFloat) return Leaf(Op::kIntToFloat32, t, BuilderKind::kFloat32);
        if (rt == AvroType::kDouble) return Leaf(Op::kIntToFloat64, t, BuilderKind::kFloat64);
        break;
      case AvroType::kLong:
        if (rt == AvroType::kLong) return Leaf(Op::kLongToInt64, t, BuilderKind::kInt64);
        if (rt == AvroType::kFloat) return Leaf(Op::kLongToFloat32, t, BuilderKind::kFloat32);
        if (rt == AvroType::kDouble) return Leaf(Op::kLongToFloat64, t, BuilderKind::kFloat64);
        break;
      case AvroType::kFloat:
        if (rt == AvroType::kFloat) return Leaf(Op::kFloatToFloat32, t, BuilderKind::kFloat32);
        if (rt == AvroType::kDouble) {
          return Leaf(Op::kFloatToFloat64, t, BuilderKind::kFloat64);
        }
        break;
      case AvroType::kDouble:
        if (rt == AvroType::kDouble) {
          return Leaf(Op::kDoubleToFloat64, t, BuilderKind::kFloat64);
        }
        break;
      case AvroType::kBytes:
      case AvroType::kString:
        if (rt != AvroType::kBytes && rt != AvroType::kString) break;
        if (t->id() == col::TypeId::kDecimal128) {
          if (wt != AvroType::kBytes || !SameDecimal(w, r)) break;
          return Leaf(Op::kDecimalBytes, t, BuilderKind::kInt128);
        }
        return Leaf(Op::kBytes, t, BuilderKind::kBinary);
      case AvroType::kFixed: {
        if (rt != AvroType::kFixed || w.fixed_size() != r.fixed_size()) break;
        Result<int32_t> idx =
            t->id() == col::TypeId::kDecimal128
                ? (SameDecimal(w, r) ? Leaf(Op::kDecimalFixed, t, BuilderKind::kInt128)
                                     : Result<int32_t>(Mismatch(w, r)))
                : Leaf(Op::kFixed, t, BuilderKind::kFixedBinary);
        if (idx.ok()) at(*idx).size = w.fixed_size();
        return idx;
      }
      case AvroType::kEnum: {
        if (rt != AvroType::kEnum) break;
        FLOE_ASSIGN_OR_RETURN(int32_t idx, Leaf(Op::kEnum, t, BuilderKind::kBinary));
        PlanNode& node = at(idx);
        for (const auto& s : w.symbols()) {
          bool found = std::find(r.symbols().begin(), r.symbols().end(), s) != r.symbols().end();
          if (found) {
            node.symbols.push_back(s);
            node.symbol_ok.push_back(1);
          } else if (r.enum_default()) {
            node.symbols.push_back(*r.enum_default());
            node.symbol_ok.push_back(1);
          } else {
            node.symbols.emplace_back();
            node.symbol_ok.push_back(0);
          }
        }
        node.message = r.full_name();
        return idx;
      }
      case AvroType::kRecord: {
        if (rt != AvroType::kRecord) break;
        if (t->id() != col::TypeId::kStruct) break;
        std::vector<size_t> all(r.fields().size());
        for (size_t i = 0; i < all.size(); ++i) all[i] = i;
        return RecordPlan(w, r, all, t->children());
      }
      case AvroType::kArray: {
        if (rt != AvroType::kArray) break;
        if (t->id() != col::TypeId::kList && t->id() != col::TypeId::kMap) break;
        // For a map array the items decode into the map's entries struct.
        FLOE_ASSIGN_OR_RETURN(int32_t child, Resolve(w.items(), r.items(), t->child(0).type));
        int32_t idx = Add(Op::kArray);
        at(idx).child = child;
        at(idx).min_item_size = MinSize(w.items());
        return idx;
      }
      case AvroType::kMap: {
        if (rt != AvroType::kMap || t->id() != col::TypeId::kMap) break;
        FLOE_ASSIGN_OR_RETURN(int32_t child,
                              Resolve(w.values(), r.values(), t->child(0).type->child(1).type));
        int32_t idx = Add(Op::kMap);
        at(idx).child = child;
        at(idx).min_item_size = 1 + MinSize(w.values());
        return idx;
      }
      case AvroType::kUnion: break;
    }
    return Mismatch(w, r);
  }

  // Spec, "Decimal": two decimals match when precision and scale match. A writer without
  // the logical type holds the same bytes.
  static bool SameDecimal(const Node& w, const Node& r) {
    return w.logical_type() != LogicalType::kDecimal ||
           (w.precision() == r.precision() && w.scale() == r.scale());
  }

  std::vector<PlanNode>* plan_;
  std::unordered_map<const Node*, int32_t> skip_memo_;
  std::unordered_map<const Node*, int64_t> min_size_memo_;
};

DatumReader::DatumReader() = default;
DatumReader::~DatumReader() = default;

Result<std::unique_ptr<DatumReader>> DatumReader::Make(const Schema& writer,
                                                       const DatumReaderOptions& options) {
  const Schema& reader = options.reader_schema ? *options.reader_schema : writer;
  std::unique_ptr<DatumReader> dr(new DatumReader());
  PlanCompiler compiler(&dr->plan_);
  const Node& w = writer.root();
  const Node& r = reader.root();
  std::vector<col::Field> fields;
  if (r.type() == AvroType::kRecord) {
    std::vector<size_t> selected;
    if (options.columns.empty()) {
      for (size_t i = 0; i < r.fields().size(); ++i) selected.push_back(i);
    } else {
      for (const auto& name : options.columns) {
        auto it = std::find_if(r.fields().begin(), r.fields().end(),
                               [&](const RecordField& f) { return f.name() == name; });
        if (it == r.fields().end()) {
          return Status::InvalidArgument("the schema has no field '{}'", name);
        }
        selected.push_back(static_cast<size_t>(it - r.fields().begin()));
      }
    }
    // Only the selected fields need a columnar form: a projection may leave out a
    // recursive field or a decimal wider than 38 digits.
    for (size_t i : selected) {
      FLOE_ASSIGN_OR_RETURN(col::Field field, ToColumnarField(r.fields()[i]));
      fields.push_back(std::move(field));
    }
    if (w.type() != AvroType::kRecord) {
      return Status::InvalidArgument("the reader's schema is a record, the writer's {}",
                                     Describe(w));
    }
    FLOE_ASSIGN_OR_RETURN(dr->root_, compiler.RecordPlan(w, r, selected, fields));
    dr->root_is_record_ = true;
  } else {
    if (!options.columns.empty()) {
      return Status::InvalidArgument("column projection needs a record schema");
    }
    FLOE_ASSIGN_OR_RETURN(col::SchemaPtr full, ToColumnarSchema(reader));
    fields = full->fields();
    FLOE_ASSIGN_OR_RETURN(dr->root_, compiler.Resolve(w, r, fields[0].type));
  }
  dr->min_datum_size_ = compiler.MinSize(w);
  for (const auto& f : fields) {
    dr->columns_.push_back(col::MakeBuilder(f.type));
    dr->column_ptrs_.push_back(dr->columns_.back().get());
  }
  dr->schema_ = std::make_shared<const col::Schema>(std::move(fields));
  return dr;
}

Status DatumReader::Read(ByteReader* in) {
  if (min_datum_size_ == 0 && --zero_size_budget_ < 0) {
    return Status::Corrupt("more zero-size datums than the budget allows");
  }
  if (root_is_record_) {
    FLOE_RETURN_IF_ERROR(DecodeFields(plan_[static_cast<size_t>(root_)], *in, nullptr, 1));
  } else {
    FLOE_RETURN_IF_ERROR(Decode(root_, *in, column_ptrs_[0], 1));
  }
  ++num_rows_;
  return Status::OK();
}

col::RecordBatch DatumReader::Finish() {
  std::vector<col::Array> arrays;
  arrays.reserve(columns_.size());
  for (auto& b : columns_) arrays.push_back(b->Finish());
  col::RecordBatch batch(schema_, num_rows_, std::move(arrays));
  num_rows_ = 0;
  return batch;
}

Result<int64_t> DatumReader::ReadBlockCount(ByteReader& in, int64_t min_item_size) {
  FLOE_ASSIGN_OR_RETURN(int64_t count, in.ReadZigZag64());
  if (count < 0) {
    // Spec: a negative count is followed by the block's size in bytes.
    if (count == std::numeric_limits<int64_t>::min()) {
      return Status::Corrupt("array block count overflows");
    }
    count = -count;
    FLOE_ASSIGN_OR_RETURN(int64_t size, in.ReadZigZag64());
    if (size < 0) return Status::Corrupt("negative array block size {}", size);
  }
  if (count == 0) return count;
  if (min_item_size > 0) {
    if (count > static_cast<int64_t>(in.remaining()) / min_item_size) {
      return Status::Corrupt("block of {} items needs at least {} bytes each, {} bytes left", count,
                             min_item_size, in.remaining());
    }
  } else {
    zero_size_budget_ -= count;
    if (zero_size_budget_ < 0) {
      return Status::Corrupt("block of {} zero-size items exceeds the budget", count);
    }
  }
  return count;
}

Status DatumReader::DecodeFields(const PlanNode& node, ByteReader& in, col::StructBuilder* parent,
                                 int depth) {
  for (const RecordStep& s : node.steps) {
    if (s.field < 0) {
      FLOE_RETURN_IF_ERROR(Skip(s.plan, in, depth + 1));
      continue;
    }
    auto field = static_cast<size_t>(s.field);
    col::ArrayBuilder* target = parent ? parent->child(field) : column_ptrs_[field];
    FLOE_RETURN_IF_ERROR(Decode(s.plan, in, target, depth + 1));
  }
  for (const RecordStep& s : node.fills) {
    auto field = static_cast<size_t>(s.field);
    col::ArrayBuilder* target = parent ? parent->child(field) : column_ptrs_[field];
    FLOE_RETURN_IF_ERROR(Decode(s.plan, in, target, depth + 1));
  }
  return Status::OK();
}

Status DatumReader::Decode(int32_t idx, ByteReader& in, col::ArrayBuilder* b, int depth) {
  if (FLOE_PREDICT_FALSE(depth > kMaxDecodeDepth)) {
    return Status::Corrupt("value nests deeper than {} levels", kMaxDecodeDepth);
  }
  const PlanNode& node = plan_[static_cast<size_t>(idx)];
  switch (node.op) {
    case Op::kNull: AppendNullTo(node.kind, b); break;
    case Op::kBool: {
      FLOE_ASSIGN_OR_RETURN(uint8_t v, in.ReadByte());
      if (v > 1) return Status::Corrupt("boolean byte {} is neither 0 nor 1", v);
      static_cast<col::BoolBuilder*>(b)->Append(v != 0);
      break;
    }
    case Op::kIntToInt32: {
      FLOE_ASSIGN_OR_RETURN(int32_t v, in.ReadZigZag32());
      static_cast<col::FixedWidthBuilder<int32_t>*>(b)->Append(v);
      break;
    }
    case Op::kIntToInt64: {
      FLOE_ASSIGN_OR_RETURN(int32_t v, in.ReadZigZag32());
      static_cast<col::FixedWidthBuilder<int64_t>*>(b)->Append(v);
      break;
    }
    case Op::kIntToFloat32: {
      FLOE_ASSIGN_OR_RETURN(int32_t v, in.ReadZigZag32());
      static_cast<col::FixedWidthBuilder<float>*>(b)->Append(static_cast<float>(v));
      break;
    }
    case Op::kIntToFloat64: {
      FLOE_ASSIGN_OR_RETURN(int32_t v, in.ReadZigZag32());
      static_cast<col::FixedWidthBuilder<double>*>(b)->Append(static_cast<double>(v));
      break;
    }
    case Op::kLongToInt64: {
      FLOE_ASSIGN_OR_RETURN(int64_t v, in.ReadZigZag64());
      static_cast<col::FixedWidthBuilder<int64_t>*>(b)->Append(v);
      break;
    }
    case Op::kLongToFloat32: {
      FLOE_ASSIGN_OR_RETURN(int64_t v, in.ReadZigZag64());
      static_cast<col::FixedWidthBuilder<float>*>(b)->Append(static_cast<float>(v));
      break;
    }
    case Op::kLongToFloat64: {
      FLOE_ASSIGN_OR_RETURN(int64_t v, in.ReadZigZag64());
      static_cast<col::FixedWidthBuilder<double>*>(b)->Append(static_cast<double>(v));
      break;
    }
    case Op::kFloatToFloat32: {
      FLOE_ASSIGN_OR_RETURN(float v, in.ReadLE<float>());
      static_cast<col::FixedWidthBuilder<float>*>(b)->Append(v);
      break;
    }
    case Op::kFloatToFloat64: {
      FLOE_ASSIGN_OR_RETURN(float v, in.ReadLE<float>());
      static_cast<col::FixedWidthBuilder<double>*>(b)->Append(static_cast<double>(v));
      break;
    }
    case Op::kDoubleToFloat64: {
      FLOE_ASSIGN_OR_RETURN(double v, in.ReadLE<double>());
      static_cast<col::FixedWidthBuilder<double>*>(b)->Append(v);
      break;
    }
    case Op::kBytes: {
      FLOE_ASSIGN_OR_RETURN(int64_t n, in.ReadZigZag64());
      if (n < 0) return Status::Corrupt("negative length {}", n);
      FLOE_ASSIGN_OR_RETURN(auto bytes, in.Take(static_cast<uint64_t>(n)));
      static_cast<col::BinaryBuilder*>(b)->Append(
          {reinterpret_cast<const char*>(bytes.data()), bytes.size()});
      break;
    }
    case Op::kFixed: {
      FLOE_ASSIGN_OR_RETURN(auto bytes, in.Take(static_cast<size_t>(node.size)));
      static_cast<col::FixedBinaryBuilder*>(b)->Append(
          {reinterpret_cast<const char*>(bytes.data()), bytes.size()});
      break;
    }
    case Op::kEnum: {
      FLOE_ASSIGN_OR_RETURN(int32_t i, in.ReadZigZag32());
      if (i < 0 || static_cast<size_t>(i) >= node.symbols.size()) {
        return Status::Corrupt("enum index {} out of range for {} symbols", i, node.symbols.size());
      }
      if (!node.symbol_ok[static_cast<size_t>(i)]) {
        return Status::InvalidArgument("writer enum symbol {} has no counterpart in '{}'", i,
                                       node.message);
      }
      static_cast<col::BinaryBuilder*>(b)->Append(node.symbols[static_cast<size_t>(i)]);
      break;
    }
    case Op::kDecimalBytes:
    case Op::kDecimalFixed: {
      size_t n = static_cast<size_t>(node.size);
      if (node.op == Op::kDecimalBytes) {
        FLOE_ASSIGN_OR_RETURN(int64_t len, in.ReadZigZag64());
        if (len < 0) return Status::Corrupt("negative length {}", len);
        n = static_cast<size_t>(len);
      }
      FLOE_ASSIGN_OR_RETURN(auto bytes, in.Take(n));
      FLOE_ASSIGN_OR_RETURN(__int128 v, DecimalFromBytes(bytes));
      static_cast<col::FixedWidthBuilder<__int128>*>(b)->Append(v);
      break;
    }
    case Op::kRecord: {
      auto* sb = static_cast<col::StructBuilder*>(b);
      sb->Append();
      return DecodeFields(node, in, sb, depth);
    }
    case Op::kArray:
    case Op::kMap: {
      auto* lb = static_cast<col::ListBuilder*>(b);
      lb->Append();
      col::ArrayBuilder* child = lb->child();
      // A map's child is its entries struct (key, value); an array's is the item builder.
      auto* entries = node.op == Op::kMap ? static_cast<col::StructBuilder*>(child) : nullptr;
      for (;;) {
        FLOE_ASSIGN_OR_RETURN(int64_t count, ReadBlockCount(in, node.min_item_size));
        if (count == 0) break;
        if (child->length() + count > std::numeric_limits<int32_t>::max()) {
          return Status::Unimplemented("more than 2^31 list items in one batch");
        }
        for (int64_t k = 0; k < count; ++k) {
          if (node.op == Op::kArray) {
            FLOE_RETURN_IF_ERROR(Decode(node.child, in, child, depth + 1));
            continue;
          }
          FLOE_ASSIGN_OR_RETURN(int64_t n, in.ReadZigZag64());
          if (n < 0) return Status::Corrupt("negative map key length {}", n);
          FLOE_ASSIGN_OR_RETURN(auto key, in.Take(static_cast<uint64_t>(n)));
          entries->Append();
          static_cast<col::BinaryBuilder*>(entries->child(0))
              ->Append({reinterpret_cast<const char*>(key.data()), key.size()});
          FLOE_RETURN_IF_ERROR(Decode(node.child, in, entries->child(1), depth + 1));
        }
      }
      lb->Close();
      break;
    }
    case Op::kUnion: {
      FLOE_ASSIGN_OR_RETURN(int32_t i, in.ReadZigZag32());
      if (i < 0 || static_cast<size_t>(i) >= node.branches.size()) {
        return Status::Corrupt("union branch {} out of range for {} branches", i,
                               node.branches.size());
      }
      return Decode(node.branches[static_cast<size_t>(i)], in, b, depth + 1);
    }
    case Op::kUnionMember: {
      auto* ub = static_cast<col::UnionBuilder*>(b);
      ub->AppendMember(static_cast<int8_t>(node.size));
      return Decode(node.child, in, ub->member(static_cast<size_t>(node.size)), depth + 1);
    }
    case Op::kDefault: {
      ByteReader constant(node.constant.span());
      return Decode(node.child, constant, b, depth + 1);
    }
    case Op::kFail: return Status::InvalidArgument("{}", node.message);
    default: return Status::Internal("avro decode plan: skip op in a decode position");
  }
  return Status::OK();
}

Status DatumReader::Skip(int32_t idx, ByteReader& in, int depth) {
  if (FLOE_PREDICT_FALSE(depth > kMaxDecodeDepth)) {
    return Status::Corrupt("value nests deeper than {} levels", kMaxDecodeDepth);
  }
  const PlanNode& node = plan_[static_cast<size_t>(idx)];
  switch (node.op) {
    case Op::kSkipNothing: return Status::OK();
    case Op::kSkipBool: return in.Skip(1);
    case Op::kSkipVarint: return in.ReadVarint64().status();
    case Op::kSkipFixed: return in.Skip(static_cast<size_t>(node.size));
    case Op::kSkipBytes: {
      FLOE_ASSIGN_OR_RETURN(int64_t n, in.ReadZigZag64());
      if (n < 0) return Status::Corrupt("negative length {}", n);
      return in.Skip(static_cast<uint64_t>(n));
    }
    case Op::kSkipRecord:
      for (int32_t p : node.branches) FLOE_RETURN_IF_ERROR(Skip(p, in, depth + 1));
      return Status::OK();
    case Op::kSkipArray:
    case Op::kSkipMap:
      for (;;) {
        FLOE_ASSIGN_OR_RETURN(int64_t count, in.ReadZigZag64());
        if (count == 0) return Status::OK();
        if (count < 0) {
          // The block carries its byte size: skip it whole (spec, "Arrays").
          if (count == std::numeric_limits<int64_t>::min()) {
            return Status::Corrupt("array block count overflows");
          }
          FLOE_ASSIGN_OR_RETURN(int64_t size, in.ReadZigZag64());
          if (size < 0) return Status::Corrupt("negative array block size {}", size);
          FLOE_RETURN_IF_ERROR(in.Skip(static_cast<uint64_t>(size)));
          continue;
        }
        if (node.min_item_size > 0) {
          if (count > static_cast<int64_t>(in.remaining()) / node.min_item_size) {
            return Status::Corrupt("block of {} items needs at least {} bytes each, {} left", count,
                                   node.min_item_size, in.remaining());
          }
        } else {
          zero_size_budget_ -= count;
          if (zero_size_budget_ < 0) {
            return Status::Corrupt("block of {} zero-size items exceeds the budget", count);
          }
        }
        for (int64_t k = 0; k < count; ++k) {
          if (node.op == Op::kSkipMap) {
            FLOE_ASSIGN_OR_RETURN(int64_t n, in.ReadZigZag64());
            if (n < 0) return Status::Corrupt("negative map key length {}", n);
            FLOE_RETURN_IF_ERROR(in.Skip(static_cast<uint64_t>(n)));
          }
          FLOE_RETURN_IF_ERROR(Skip(node.child, in, depth + 1));
        }
      }
    case Op::kSkipUnion: {
      FLOE_ASSIGN_OR_RETURN(int32_t i, in.ReadZigZag32());
      if (i < 0 || static_cast<size_t>(i) >= node.branches.size()) {
        return Status::Corrupt("union branch {} out of range for {} branches", i,
                               node.branches.size());
      }
      return Skip(node.branches[static_cast<size_t>(i)], in, depth + 1);
    }
    default: return Status::Internal("avro decode plan: decode op in a skip position");
  }
}

}  // namespace floe::format::avro
