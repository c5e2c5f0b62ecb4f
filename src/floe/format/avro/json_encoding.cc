#include "floe/format/avro/json_encoding.h"

#include <cmath>
#include <exception>
#include <limits>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "floe/base/json.h"
#include "floe/base/macros.h"
#include "floe/format/avro/binary.h"
#include "floe/format/avro/columnar_schema.h"

namespace floe::format::avro {

namespace col = floe::columnar;
using Json = nlohmann::ordered_json;

namespace {

constexpr int kMaxDepth = 512;

// Decodes UTF-8 `s` into bytes, one per code point; code points above 255 are an error
// (spec: bytes and fixed defaults map code points 0-255 to byte values).
Status Latin1FromUtf8(const std::string& s, Buffer* out) {
  size_t i = 0;
  while (i < s.size()) {
    auto b = static_cast<unsigned char>(s[i]);
    if (b < 0x80) {
      out->PushBack(b);
      ++i;
    } else if ((b & 0xE0) == 0xC0 && i + 1 < s.size()) {
      uint32_t cp = ((b & 0x1Fu) << 6) | (static_cast<unsigned char>(s[i + 1]) & 0x3Fu);
      if (cp > 0xFF) break;
      out->PushBack(static_cast<uint8_t>(cp));
      i += 2;
    } else {
      break;
    }
  }
  if (i != s.size()) {
    return Status::InvalidArgument("string has a code point above 255, so it is not bytes");
  }
  return Status::OK();
}

Status Mismatch(const Node& node, const Json& j) {
  return Status::InvalidArgument("{} does not fit type {}",
                                 j.dump(-1, ' ', false, Json::error_handler_t::replace),
                                 AvroTypeName(node.type()));
}

Status EncodeJson(const Node& node, const Json& j, Buffer* out, int depth) {
  if (depth > kMaxDepth) return Status::InvalidArgument("default value nests too deeply");
  switch (node.type()) {
    case AvroType::kNull:
      if (!j.is_null()) return Mismatch(node, j);
      return Status::OK();
    case AvroType::kBoolean:
      if (!j.is_boolean()) return Mismatch(node, j);
      out->PushBack(j.get<bool>() ? 1 : 0);
      return Status::OK();
    case AvroType::kInt:
    case AvroType::kLong: {
      if (!j.is_number_integer()) return Mismatch(node, j);
      int64_t lo = node.type() == AvroType::kInt ? std::numeric_limits<int32_t>::min()
                                                 : std::numeric_limits<int64_t>::min();
      int64_t hi = node.type() == AvroType::kInt ? std::numeric_limits<int32_t>::max()
                                                 : std::numeric_limits<int64_t>::max();
      if (j.is_number_unsigned() && j.get<uint64_t>() > static_cast<uint64_t>(hi)) {
        return Mismatch(node, j);
      }
      int64_t v = j.get<int64_t>();
      if (v < lo || v > hi) return Mismatch(node, j);
      AppendLong(out, v);
      return Status::OK();
    }
    case AvroType::kFloat:
      if (!j.is_number()) return Mismatch(node, j);
      out->AppendValue<float>(static_cast<float>(j.get<double>()));
      return Status::OK();
    case AvroType::kDouble:
      if (!j.is_number()) return Mismatch(node, j);
      out->AppendValue<double>(j.get<double>());
      return Status::OK();
    case AvroType::kString: {
      if (!j.is_string()) return Mismatch(node, j);
      const auto& s = j.get_ref<const std::string&>();
      AppendBytes(out, s.data(), s.size());
      return Status::OK();
    }
    case AvroType::kBytes:
    case AvroType::kFixed: {
      if (!j.is_string()) return Mismatch(node, j);
      Buffer bytes;
      FLOE_RETURN_IF_ERROR(Latin1FromUtf8(j.get_ref<const std::string&>(), &bytes));
      if (node.type() == AvroType::kBytes) {
        AppendBytes(out, bytes.data(), bytes.size());
      } else {
        if (bytes.size() != static_cast<size_t>(node.fixed_size())) {
          return Status::InvalidArgument("default of {} bytes for fixed '{}' of size {}",
                                         bytes.size(), node.full_name(), node.fixed_size());
        }
        out->Append(bytes.data(), bytes.size());
      }
      return Status::OK();
    }
    case AvroType::kEnum: {
      if (!j.is_string()) return Mismatch(node, j);
      const auto& s = j.get_ref<const std::string&>();
      for (size_t i = 0; i < node.symbols().size(); ++i) {
        if (node.symbols()[i] == s) {
          AppendInt(out, static_cast<int32_t>(i));
          return Status::OK();
        }
      }
      return Status::InvalidArgument("'{}' is not a symbol of enum '{}'", s, node.full_name());
    }
    case AvroType::kArray:
      if (!j.is_array()) return Mismatch(node, j);
      if (!j.empty()) {
        AppendLong(out, static_cast<int64_t>(j.size()));
        for (const auto& item : j) {
          FLOE_RETURN_IF_ERROR(EncodeJson(node.items(), item, out, depth + 1));
        }
      }
      AppendLong(out, 0);
      return Status::OK();
    case AvroType::kMap:
      if (!j.is_object()) return Mismatch(node, j);
      if (!j.empty()) {
        AppendLong(out, static_cast<int64_t>(j.size()));
        for (const auto& [key, value] : j.items()) {
          AppendBytes(out, key.data(), key.size());
          FLOE_RETURN_IF_ERROR(EncodeJson(node.values(), value, out, depth + 1));
        }
      }
      AppendLong(out, 0);
      return Status::OK();
    case AvroType::kRecord:
      if (!j.is_object()) return Mismatch(node, j);
      for (const auto& f : node.fields()) {
        auto it = j.find(f.name());
        if (it != j.end()) {
          FLOE_RETURN_IF_ERROR(EncodeJson(f.type(), *it, out, depth + 1));
        } else if (f.default_json()) {
          Json d = Json::parse(*f.default_json(), nullptr, false);
          FLOE_RETURN_IF_ERROR(EncodeJson(f.type(), d, out, depth + 1));
        } else {
          return Status::InvalidArgument("record default lacks field '{}'", f.name());
        }
      }
      return Status::OK();
    case AvroType::kUnion: {
      size_t mark = out->size();
      for (size_t i = 0; i < node.num_branches(); ++i) {
        AppendInt(out, static_cast<int32_t>(i));
        if (EncodeJson(node.branch(i), j, out, depth + 1).ok()) return Status::OK();
        out->Resize(mark);
      }
      return Status::InvalidArgument("{} fits no branch of the union",
                                     j.dump(-1, ' ', false, Json::error_handler_t::replace));
    }
  }
  return Status::Internal("unhandled avro type");
}

// Appends `bytes` as a JSON string whose code points are the byte values.
void WriteLatin1String(std::string_view bytes, JsonWriter& w) {
  std::string utf8;
  utf8.reserve(bytes.size() + bytes.size() / 2);
  for (char c : bytes) {
    auto b = static_cast<unsigned char>(c);
    if (b < 0x80) {
      utf8.push_back(static_cast<char>(b));
    } else {
      utf8.push_back(static_cast<char>(0xC0 | (b >> 6)));
      utf8.push_back(static_cast<char>(0x80 | (b & 0x3F)));
    }
  }
  w.String(utf8);
}

// Python's json module writes floats with repr() and non-finite values as bare tokens.
void WriteDouble(double v, JsonWriter& w) {
  if (std::isnan(v)) return w.Raw("NaN");
  if (std::isinf(v)) return w.Raw(v > 0 ? "Infinity" : "-Infinity");
  std::string s = fmt::format("{}", v);
  if (s.find_first_of(".en") == std::string::npos) s += ".0";
  w.Raw(s);
}

Status ColumnMismatch(const Node& node, const col::Array& a) {
  return Status::InvalidArgument("column of type {} does not hold avro {}", a.type()->ToString(),
                                 AvroTypeName(node.type()));
}

bool HasId(const col::Array& a, std::initializer_list<col::TypeId> ids) {
  for (auto id : ids) {
    if (a.type_id() == id) return true;
  }
  return false;
}

Status WriteValue(const Node& node, const col::Array& a, int64_t i, JsonWriter& w, int depth);

Status WriteRecord(const Node& node, const col::Array& a, int64_t i, JsonWriter& w, int depth) {
  if (a.type_id() != col::TypeId::kStruct || a.children().size() != node.fields().size()) {
    return ColumnMismatch(node, a);
  }
  w.BeginObject();
  for (size_t k = 0; k < node.fields().size(); ++k) {
    w.Key(node.fields()[k].name());
    FLOE_RETURN_IF_ERROR(WriteValue(node.fields()[k].type(), a.child(k), i, w, depth + 1));
  }
  w.EndObject();
  return Status::OK();
}

Status WriteValue(const Node& node, const col::Array& a, int64_t i, JsonWriter& w, int depth) {
  if (depth > kMaxDepth) return Status::InvalidArgument("value nests too deeply");
  if (i < 0 || i >= a.length()) return Status::InvalidArgument("row {} out of range", i);
  if (node.type() == AvroType::kUnion) {
    UnionShape shape = ClassifyUnion(node);
    if (!shape.dense) {
      if (shape.value_branch < 0 || a.IsNull(i)) {
        w.Null();
        return Status::OK();
      }
      const Node& branch = node.branch(static_cast<size_t>(shape.value_branch));
      w.BeginObject();
      w.Key(branch.branch_label());
      FLOE_RETURN_IF_ERROR(WriteValue(branch, a, i, w, depth + 1));
      w.EndObject();
      return Status::OK();
    }
    if (a.type_id() != col::TypeId::kUnion || a.children().size() != node.num_branches()) {
      return ColumnMismatch(node, a);
    }
    int8_t m = a.union_type_ids()[i];
    if (m < 0 || static_cast<size_t>(m) >= node.num_branches()) {
      return Status::InvalidArgument("union type id {} out of range", m);
    }
    const Node& branch = node.branch(static_cast<size_t>(m));
    if (branch.type() == AvroType::kNull) {
      w.Null();
      return Status::OK();
    }
    w.BeginObject();
    w.Key(branch.branch_label());
    FLOE_RETURN_IF_ERROR(
        WriteValue(branch, a.child(static_cast<size_t>(m)), a.union_offsets()[i], w, depth + 1));
    w.EndObject();
    return Status::OK();
  }
  if (node.type() == AvroType::kNull || a.IsNull(i)) {
    w.Null();
    return Status::OK();
  }
  switch (node.type()) {
    case AvroType::kNull: break;
    case AvroType::kBoolean:
      if (a.type_id() != col::TypeId::kBool) return ColumnMismatch(node, a);
      w.Bool(a.BoolValue(i));
      return Status::OK();
    case AvroType::kInt:
      if (a.type()->fixed_width() != 4 || a.type_id() == col::TypeId::kFloat32) {
        return ColumnMismatch(node, a);
      }
      w.Int(a.Value<int32_t>(i));
      return Status::OK();
    case AvroType::kLong:
      if (a.type()->fixed_width() != 8 || a.type_id() == col::TypeId::kFloat64) {
        return ColumnMismatch(node, a);
      }
      w.Int(a.Value<int64_t>(i));
      return Status::OK();
    case AvroType::kFloat:
      if (a.type_id() != col::TypeId::kFloat32) return ColumnMismatch(node, a);
      WriteDouble(static_cast<double>(a.Value<float>(i)), w);
      return Status::OK();
    case AvroType::kDouble:
      if (a.type_id() != col::TypeId::kFloat64) return ColumnMismatch(node, a);
      WriteDouble(a.Value<double>(i), w);
      return Status::OK();
    case AvroType::kBytes:
    case AvroType::kFixed:
      if (a.type_id() == col::TypeId::kDecimal128) {
        uint8_t buf[16];
        __int128 v = a.Value<__int128>(i);
        if (node.type() == AvroType::kBytes) {
          size_t n = DecimalToMinimalBytes(v, buf);
          WriteLatin1String({reinterpret_cast<const char*>(buf) + 16 - n, n}, w);
          return Status::OK();
        }
        std::string fixed(static_cast<size_t>(node.fixed_size()), '\0');
        FLOE_RETURN_IF_ERROR(
            DecimalToFixedBytes(v, node.fixed_size(), reinterpret_cast<uint8_t*>(fixed.data())));
        WriteLatin1String(fixed, w);
        return Status::OK();
      }
      if (HasId(a, {col::TypeId::kBinary, col::TypeId::kString})) {
        WriteLatin1String(a.BinaryValue(i), w);
        return Status::OK();
      }
      if (HasId(a, {col::TypeId::kFixedBinary, col::TypeId::kUuid})) {
        WriteLatin1String(a.FixedValue(i), w);
        return Status::OK();
      }
      return ColumnMismatch(node, a);
    case AvroType::kString:
    case AvroType::kEnum:
      if (!a.type()->is_binary_like()) return ColumnMismatch(node, a);
      w.String(a.BinaryValue(i));
      return Status::OK();
    case AvroType::kRecord: return WriteRecord(node, a, i, w, depth);
    case AvroType::kArray: {
      if (!HasId(a, {col::TypeId::kList, col::TypeId::kMap})) return ColumnMismatch(node, a);
      const int32_t* offsets = a.list_offsets();
      w.BeginArray();
      for (int32_t k = offsets[i]; k < offsets[i + 1]; ++k) {
        // A map array's items are the entries struct, written as the item record.
        FLOE_RETURN_IF_ERROR(WriteValue(node.items(), a.child(0), k, w, depth + 1));
      }
      w.EndArray();
      return Status::OK();
    }
    case AvroType::kMap: {
      if (a.type_id() != col::TypeId::kMap) return ColumnMismatch(node, a);
      const int32_t* offsets = a.list_offsets();
      const col::Array& entries = a.child(0);
      w.BeginObject();
      for (int32_t k = offsets[i]; k < offsets[i + 1]; ++k) {
        w.Key(entries.child(0).BinaryValue(k));
        FLOE_RETURN_IF_ERROR(WriteValue(node.values(), entries.child(1), k, w, depth + 1));
      }
      w.EndObject();
      return Status::OK();
    }
    case AvroType::kUnion: break;
  }
  return Status::Internal("unhandled avro type");
}

}  // namespace

Status EncodeDefaultValue(const Node& node, std::string_view json, Buffer* out) {
  try {
    Result<Json> j = ParseOrderedJson(json);
    if (!j.ok()) return j.status().WithContext("default is not valid JSON");
    return EncodeJson(node, *j, out, 0);
  } catch (const std::exception& e) {
    return Status::InvalidArgument("cannot encode default: {}", e.what());
  }
}

Status WriteJsonValue(const Node& node, const col::Array& array, int64_t row, JsonWriter& writer) {
  return WriteValue(node, array, row, writer, 0);
}

Status AppendJsonLine(const Schema& schema, const col::RecordBatch& batch, int64_t row,
                      std::string* out) {
  JsonWriter w(out);
  const Node& root = schema.root();
  if (root.type() == AvroType::kRecord) {
    if (batch.num_columns() != root.fields().size()) {
      return Status::InvalidArgument("batch has {} columns, the record {} fields",
                                     batch.num_columns(), root.fields().size());
    }
    w.BeginObject();
    for (size_t k = 0; k < root.fields().size(); ++k) {
      w.Key(root.fields()[k].name());
      FLOE_RETURN_IF_ERROR(WriteValue(root.fields()[k].type(), batch.column(k), row, w, 1));
    }
    w.EndObject();
  } else {
    if (batch.num_columns() != 1) return Status::InvalidArgument("batch needs one column");
    FLOE_RETURN_IF_ERROR(WriteValue(root, batch.column(0), row, w, 0));
  }
  out->push_back('\n');
  return Status::OK();
}

}  // namespace floe::format::avro
