#include "floe/format/avro/datum_writer.h"

#include <functional>
#include <string>
#include <string_view>
#include <unordered_map>

#include "floe/base/macros.h"
#include "floe/format/avro/binary.h"
#include "floe/format/avro/columnar_schema.h"

namespace floe::format::avro {

namespace col = floe::columnar;

namespace {

constexpr int kMaxEncodeDepth = 512;

enum class EncOp : uint8_t {
  kNothing,  // null: no bytes
  kBool,
  kInt32,  // Int32 / Date32 / Time32 as int or long
  kInt64,  // Int64 / Timestamp / Time64 as long
  kFloat32,
  kFloat64,
  kFloat32AsDouble,
  kBinary,  // String / Binary as bytes or string
  kFixed,   // FixedBinary / Uuid as fixed
  kEnum,    // String as the symbol's index
  kDecimalBytes,
  kDecimalFixed,
  kRecord,    // Struct; `columns` maps fields to children
  kList,      // List, or Map as an Iceberg map array (items are the entries struct)
  kMap,       // Map with string keys
  kNullable,  // union of null and one type: the column's validity picks the branch
  kDense,     // dense Union: the type id is the branch
};

// Lets the enum table be searched with a string_view, without building a string per value.
struct StringViewHash {
  using is_transparent = void;
  size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
};

bool IsOneOf(col::TypeId id, std::initializer_list<col::TypeId> ids) {
  for (auto i : ids) {
    if (id == i) return true;
  }
  return false;
}

}  // namespace

struct DatumWriter::PlanNode {
  EncOp op = EncOp::kNothing;
  int32_t size = 0;  // fixed size
  int32_t child = -1;
  int32_t null_branch = -1;
  int32_t value_branch = -1;
  std::vector<int32_t> children;  // record fields, union branches
  std::vector<int32_t> columns;   // record: the struct child of each field
  std::unordered_map<std::string, int32_t, StringViewHash, std::equal_to<>> symbols;  // enum
  std::string name;  // for messages
};

class EncodeCompiler {
 public:
  using PlanNode = DatumWriter::PlanNode;
  explicit EncodeCompiler(std::vector<PlanNode>* plan) : plan_(plan) {}

  Result<int32_t> Compile(const Node& node, const col::DataTypePtr& t, const std::string& name) {
    if (node.type() == AvroType::kUnion) return CompileUnion(node, t, name);
    col::TypeId id = t->id();
    auto mismatch = [&]() {
      return Status::InvalidArgument("'{}': a {} column cannot be written as avro {}", name,
                                     t->ToString(), AvroTypeName(node.type()));
    };
    auto leaf = [&](EncOp op) {
      int32_t idx = Add(op, name);
      at(idx).size = node.type() == AvroType::kFixed ? node.fixed_size() : 0;
      return idx;
    };
    switch (node.type()) {
      case AvroType::kNull: return leaf(EncOp::kNothing);
      case AvroType::kBoolean:
        if (id == col::TypeId::kBool) return leaf(EncOp::kBool);
        break;
      case AvroType::kInt:
        if (IsOneOf(id, {col::TypeId::kInt32, col::TypeId::kDate32, col::TypeId::kTime32})) {
          return leaf(EncOp::kInt32);
        }
        break;
      case AvroType::kLong:
        if (IsOneOf(id, {col::TypeId::kInt64, col::TypeId::kTimestamp, col::TypeId::kTime64})) {
          return leaf(EncOp::kInt64);
        }
        if (IsOneOf(id, {col::TypeId::kInt32, col::TypeId::kDate32, col::TypeId::kTime32})) {
          return leaf(EncOp::kInt32);
        }
        break;
      case AvroType::kFloat:
        if (id == col::TypeId::kFloat32) return leaf(EncOp::kFloat32);
        break;
      case AvroType::kDouble:
        if (id == col::TypeId::kFloat64) return leaf(EncOp::kFloat64);
        if (id == col::TypeId::kFloat32) return leaf(EncOp::kFloat32AsDouble);
        break;
      case AvroType::kBytes:
      case AvroType::kString:
        if (t->is_binary_like()) return leaf(EncOp::kBinary);
        if (id == col::TypeId::kDecimal128 && node.type() == AvroType::kBytes) {
          return leaf(EncOp::kDecimalBytes);
        }
        break;
      case AvroType::kFixed:
        if (id == col::TypeId::kDecimal128) return leaf(EncOp::kDecimalFixed);
        if (IsOneOf(id, {col::TypeId::kFixedBinary, col::TypeId::kUuid}) &&
            t->fixed_width() == node.fixed_size()) {
          return leaf(EncOp::kFixed);
        }
        break;
      case AvroType::kEnum: {
        if (!t->is_binary_like()) break;
        int32_t idx = leaf(EncOp::kEnum);
        for (size_t i = 0; i < node.symbols().size(); ++i) {
          at(idx).symbols.emplace(node.symbols()[i], static_cast<int32_t>(i));
        }
        return idx;
      }
      case AvroType::kRecord: {
        if (id != col::TypeId::kStruct) break;
        std::vector<int32_t> columns;
        FLOE_RETURN_IF_ERROR(MatchFields(node, t->children(), name, &columns));
        std::vector<int32_t> children;
        for (size_t k = 0; k < node.fields().size(); ++k) {
          const RecordField& f = node.fields()[k];
          FLOE_ASSIGN_OR_RETURN(int32_t c,
                                Compile(f.type(), t->child(static_cast<size_t>(columns[k])).type,
                                        name + "." + f.name()));
          children.push_back(c);
        }
        int32_t idx = Add(EncOp::kRecord, name);
        at(idx).children = std::move(children);
        at(idx).columns = std::move(columns);
        return idx;
      }
      case AvroType::kArray: {
        bool map_array = id == col::TypeId::kMap && IsMapArray(node);
        if (id != col::TypeId::kList && !map_array) break;
        FLOE_ASSIGN_OR_RETURN(int32_t c, Compile(node.items(), t->child(0).type, name + "[]"));
        int32_t idx = Add(EncOp::kList, name);
        at(idx).child = c;
        return idx;
      }
      case AvroType::kMap: {
        if (id != col::TypeId::kMap) break;
        const col::DataTypePtr& entries = t->child(0).type;
        if (!entries->child(0).type->is_binary_like()) break;
        FLOE_ASSIGN_OR_RETURN(int32_t c,
                              Compile(node.values(), entries->child(1).type, name + "{}"));
        int32_t idx = Add(EncOp::kMap, name);
        at(idx).child = c;
        return idx;
      }
      case AvroType::kUnion: break;
    }
    return mismatch();
  }

  // Finds the column of each field of `record` by name.
  static Status MatchFields(const Node& record, const std::vector<col::Field>& columns,
                            const std::string& name, std::vector<int32_t>* out) {
    for (const auto& f : record.fields()) {
      int32_t found = -1;
      for (size_t i = 0; i < columns.size() && found < 0; ++i) {
        if (columns[i].name == f.name()) found = static_cast<int32_t>(i);
      }
      if (found < 0) {
        return Status::InvalidArgument("no column for field '{}'",
                                       name.empty() ? f.name() : name + "." + f.name());
      }
      out->push_back(found);
    }
    return Status::OK();
  }

 private:
  int32_t Add(EncOp op, const std::string& name) {
    plan_->emplace_back();
    plan_->back().op = op;
    plan_->back().name = name;
    return static_cast<int32_t>(plan_->size() - 1);
  }
  PlanNode& at(int32_t i) { return (*plan_)[static_cast<size_t>(i)]; }

  Result<int32_t> CompileUnion(const Node& node, const col::DataTypePtr& t,
                               const std::string& name) {
    UnionShape shape = ClassifyUnion(node);
    if (!shape.dense) {
      int32_t child = -1;
      if (shape.value_branch >= 0) {
        FLOE_ASSIGN_OR_RETURN(
            child, Compile(node.branch(static_cast<size_t>(shape.value_branch)), t, name));
      }
      int32_t idx = Add(EncOp::kNullable, name);
      at(idx).child = child;
      at(idx).null_branch = shape.null_branch;
      at(idx).value_branch = shape.value_branch;
      return idx;
    }
    if (t->id() != col::TypeId::kUnion || t->children().size() != node.num_branches()) {
      return Status::InvalidArgument("'{}': a {} column cannot be written as a union of {}", name,
                                     t->ToString(), node.num_branches());
    }
    std::vector<int32_t> children;
    for (size_t i = 0; i < node.num_branches(); ++i) {
      FLOE_ASSIGN_OR_RETURN(int32_t c, Compile(node.branch(i), t->child(i).type, name));
      children.push_back(c);
    }
    int32_t idx = Add(EncOp::kDense, name);
    at(idx).children = std::move(children);
    return idx;
  }

  std::vector<PlanNode>* plan_;
};

DatumWriter::DatumWriter() = default;
DatumWriter::~DatumWriter() = default;

Result<std::unique_ptr<DatumWriter>> DatumWriter::Make(const Schema& schema,
                                                       const col::Schema& columns) {
  std::unique_ptr<DatumWriter> dw(new DatumWriter());
  EncodeCompiler compiler(&dw->plan_);
  const Node& root = schema.root();
  if (root.type() == AvroType::kRecord) {
    FLOE_RETURN_IF_ERROR(
        EncodeCompiler::MatchFields(root, columns.fields(), "", &dw->root_columns_));
    // The root record's plan: one child plan per field, its column from root_columns_.
    std::vector<int32_t> children;
    for (size_t k = 0; k < root.fields().size(); ++k) {
      const RecordField& f = root.fields()[k];
      FLOE_ASSIGN_OR_RETURN(
          int32_t c,
          compiler.Compile(f.type(), columns.field(static_cast<size_t>(dw->root_columns_[k])).type,
                           f.name()));
      children.push_back(c);
    }
    dw->plan_.emplace_back();
    dw->plan_.back().op = EncOp::kRecord;
    dw->plan_.back().children = std::move(children);
    dw->root_ = static_cast<int32_t>(dw->plan_.size() - 1);
    dw->root_is_record_ = true;
  } else {
    if (columns.num_fields() != 1) {
      return Status::InvalidArgument("a {} schema needs exactly one column",
                                     AvroTypeName(root.type()));
    }
    FLOE_ASSIGN_OR_RETURN(dw->root_, compiler.Compile(root, columns.field(0).type, "value"));
  }
  return dw;
}

Status DatumWriter::Write(const col::RecordBatch& batch, int64_t row, Buffer* out) const {
  if (row < 0 || row >= batch.num_rows()) return Status::InvalidArgument("row out of range");
  if (!root_is_record_) return Encode(root_, batch.column(0), row, out, 0);
  const PlanNode& node = plan_[static_cast<size_t>(root_)];
  for (size_t k = 0; k < node.children.size(); ++k) {
    auto column = static_cast<size_t>(root_columns_[k]);
    if (column >= batch.num_columns()) return Status::InvalidArgument("batch lacks a column");
    FLOE_RETURN_IF_ERROR(Encode(node.children[k], batch.column(column), row, out, 1));
  }
  return Status::OK();
}

Status DatumWriter::Encode(int32_t idx, const col::Array& a, int64_t i, Buffer* out,
                           int depth) const {
  if (depth > kMaxEncodeDepth) return Status::InvalidArgument("value nests too deeply");
  const PlanNode& node = plan_[static_cast<size_t>(idx)];
  if (node.op == EncOp::kNullable) {
    if (a.IsNull(i)) {
      if (node.null_branch < 0) {
        return Status::InvalidArgument("'{}': null value but the type is not nullable", node.name);
      }
      AppendInt(out, node.null_branch);
      return Status::OK();
    }
    if (node.value_branch < 0) {
      return Status::InvalidArgument("'{}': only null fits ['null']", node.name);
    }
    AppendInt(out, node.value_branch);
    return Encode(node.child, a, i, out, depth + 1);
  }
  if (node.op == EncOp::kNothing) return Status::OK();
  if (node.op == EncOp::kDense) {
    int8_t m = a.union_type_ids()[i];
    if (m < 0 || static_cast<size_t>(m) >= node.children.size()) {
      return Status::InvalidArgument("'{}': union type id {} out of range", node.name, m);
    }
    AppendInt(out, m);
    return Encode(node.children[static_cast<size_t>(m)], a.child(static_cast<size_t>(m)),
                  a.union_offsets()[i], out, depth + 1);
  }
  if (a.null_count() > 0 && a.IsNull(i)) {
    return Status::InvalidArgument("'{}': null value but the type is not nullable", node.name);
  }
  switch (node.op) {
    case EncOp::kBool: out->PushBack(a.BoolValue(i) ? 1 : 0); break;
    case EncOp::kInt32: AppendLong(out, a.Value<int32_t>(i)); break;
    case EncOp::kInt64: AppendLong(out, a.Value<int64_t>(i)); break;
    case EncOp::kFloat32: out->AppendValue<float>(a.Value<float>(i)); break;
    case EncOp::kFloat64: out->AppendValue<double>(a.Value<double>(i)); break;
    case EncOp::kFloat32AsDouble:
      out->AppendValue<double>(static_cast<double>(a.Value<float>(i)));
      break;
    case EncOp::kBinary: {
      std::string_view v = a.BinaryValue(i);
      AppendBytes(out, v.data(), v.size());
      break;
    }
    case EncOp::kFixed: {
      std::string_view v = a.FixedValue(i);
      out->Append(v.data(), v.size());
      break;
    }
    case EncOp::kEnum: {
      std::string_view v = a.BinaryValue(i);
      auto it = node.symbols.find(v);
      if (it == node.symbols.end()) {
        return Status::InvalidArgument("'{}': '{}' is not a symbol of the enum", node.name, v);
      }
      AppendInt(out, it->second);
      break;
    }
    case EncOp::kDecimalBytes: {
      uint8_t buf[16];
      size_t n = DecimalToMinimalBytes(a.Value<__int128>(i), buf);
      AppendBytes(out, buf + 16 - n, n);
      break;
    }
    case EncOp::kDecimalFixed: {
      uint8_t* dst = out->AppendUninitialized(static_cast<size_t>(node.size));
      Status s = DecimalToFixedBytes(a.Value<__int128>(i), node.size, dst);
      if (!s.ok()) return s.WithContext("'{}'", node.name);
      break;
    }
    case EncOp::kRecord:
      for (size_t k = 0; k < node.children.size(); ++k) {
        FLOE_RETURN_IF_ERROR(Encode(node.children[k], a.child(static_cast<size_t>(node.columns[k])),
                                    i, out, depth + 1));
      }
      break;
    case EncOp::kList:
    case EncOp::kMap: {
      const int32_t* offsets = a.list_offsets();
      int32_t begin = offsets[i];
      int32_t end = offsets[i + 1];
      if (end > begin) {
        AppendLong(out, end - begin);
        const col::Array& items = a.child(0);
        for (int32_t k = begin; k < end; ++k) {
          if (node.op == EncOp::kList) {
            FLOE_RETURN_IF_ERROR(Encode(node.child, items, k, out, depth + 1));
          } else {
            std::string_view key = items.child(0).BinaryValue(k);
            AppendBytes(out, key.data(), key.size());
            FLOE_RETURN_IF_ERROR(Encode(node.child, items.child(1), k, out, depth + 1));
          }
        }
      }
      AppendLong(out, 0);
      break;
    }
    case EncOp::kNothing:
    case EncOp::kNullable:
    case EncOp::kDense: break;
  }
  return Status::OK();
}

}  // namespace floe::format::avro
