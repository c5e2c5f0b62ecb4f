#include "floe/format/parquet/metadata_json.h"

#include <algorithm>
#include <cctype>
#include <cstring>
#include <string_view>
#include <vector>

#include <fmt/format.h>

#include "floe/base/bytes.h"
#include "floe/base/json_writer.h"
#include "floe/columnar/value_format.h"

namespace floe::format::parquet {

namespace {

using LK = LogicalType::Kind;

// ---- Schema tree walk shared by both renderings.

bool IsGroup(const SchemaElement& e) {
  // Leaves carry a type and no children; a typed element with num_children = 0 (written by
  // some tools) is still a leaf, an untyped one an empty group.
  return e.num_children.has_value() && (*e.num_children > 0 || !e.type.has_value());
}

// Calls visit(index, depth, is_group) for each element of the flattened schema in order
// (root at depth 0) and close(depth) after the last child of each group. The input is
// untrusted: child counts that overrun the list, or elements after the root's last child,
// end the walk instead of failing it.
template <typename Visit, typename Close>
void WalkSchema(const std::vector<SchemaElement>& schema, Visit&& visit, Close&& close) {
  if (schema.empty()) return;
  std::vector<int64_t> children_left;  // one entry per open group
  visit(size_t{0}, size_t{0}, true);
  children_left.push_back(std::max<int64_t>(0, schema[0].num_children.value_or(0)));
  for (size_t i = 1; i < schema.size(); ++i) {
    while (!children_left.empty() && children_left.back() == 0) {
      children_left.pop_back();
      close(children_left.size());
    }
    if (children_left.empty()) break;
    --children_left.back();
    const bool group = IsGroup(schema[i]);
    visit(i, children_left.size(), group);
    if (group) children_left.push_back(std::max<int64_t>(0, *schema[i].num_children));
  }
  while (!children_left.empty()) {
    children_left.pop_back();
    close(children_left.size());
  }
}

// The schema element of each leaf, in column chunk order.
std::vector<const SchemaElement*> Leaves(const FileMetaData& md) {
  std::vector<const SchemaElement*> leaves;
  WalkSchema(
      md.schema,
      [&](size_t i, size_t depth, bool group) {
        if (depth > 0 && !group) leaves.push_back(&md.schema[i]);
      },
      [](size_t) {});
  return leaves;
}

std::optional<columnar::TimeUnit> ColumnarUnit(TimeUnit unit) {
  switch (unit) {
    case TimeUnit::kMillis: return columnar::TimeUnit::kMilli;
    case TimeUnit::kMicros: return columnar::TimeUnit::kMicro;
    case TimeUnit::kNanos: return columnar::TimeUnit::kNano;
  }
  return std::nullopt;
}

// FormatDecimal pads with `scale` digits; a scale from an untrusted footer is only used
// within what a 128-bit decimal can hold.
bool UsableScale(int32_t scale) { return scale >= 0 && scale <= 38; }

// Big-endian two's complement bytes (DECIMAL in BYTE_ARRAY / FIXED_LEN_BYTE_ARRAY).
__int128 BigEndianToInt128(std::string_view b) {
  unsigned __int128 u =
      (static_cast<uint8_t>(b[0]) & 0x80) ? ~static_cast<unsigned __int128>(0) : 0;
  for (char c : b) u = (u << 8) | static_cast<uint8_t>(c);
  return static_cast<__int128>(u);
}

template <typename E>
void WriteEnum(JsonWriter& j, E v) {
  std::string_view name = EnumName(v);
  if (name.empty()) {
    j.Int(static_cast<int64_t>(v));
  } else {
    j.String(name);
  }
}

// Writes one statistics value (PLAIN bytes, no length prefix) as the leaf's type reads best;
// bytes that do not fit the type are written as hex.
void WriteStatValue(JsonWriter& j, std::string_view b, Type physical,
                    const std::optional<LogicalType>& lt) {
  const LK kind = lt ? lt->kind : LK::kUnrecognized;
  switch (physical) {
    case Type::kBoolean:
      if (b.size() == 1) return j.Bool(b[0] != 0);
      break;
    case Type::kInt32:
      if (b.size() == 4) {
        const auto v = LoadLE<int32_t>(b.data());
        if (kind == LK::kDate) return j.String(columnar::FormatDate(v));
        if (kind == LK::kTime) {
          if (auto unit = ColumnarUnit(lt->temporal.unit)) {
            return j.String(columnar::FormatTime(v, *unit));
          }
        }
        if (kind == LK::kDecimal && UsableScale(lt->decimal.scale)) {
          return j.String(columnar::FormatDecimal(v, lt->decimal.scale));
        }
        if (kind == LK::kInteger && !lt->integer.is_signed) return j.UInt(static_cast<uint32_t>(v));
        return j.Int(v);
      }
      break;
    case Type::kInt64:
      if (b.size() == 8) {
        const auto v = LoadLE<int64_t>(b.data());
        if (kind == LK::kTimestamp || kind == LK::kTime) {
          if (auto unit = ColumnarUnit(lt->temporal.unit)) {
            return j.String(kind == LK::kTime ? columnar::FormatTime(v, *unit)
                                              : columnar::FormatTimestamp(
                                                    v, *unit, lt->temporal.is_adjusted_to_utc));
          }
        }
        if (kind == LK::kDecimal && UsableScale(lt->decimal.scale)) {
          return j.String(columnar::FormatDecimal(v, lt->decimal.scale));
        }
        if (kind == LK::kInteger && !lt->integer.is_signed) return j.UInt(static_cast<uint64_t>(v));
        return j.Int(v);
      }
      break;
    case Type::kFloat:
      if (b.size() == 4) return j.Float(LoadLE<float>(b.data()));
      break;
    case Type::kDouble:
      if (b.size() == 8) return j.Double(LoadLE<double>(b.data()));
      break;
    case Type::kByteArray:
    case Type::kFixedLenByteArray:
      if (kind == LK::kString || kind == LK::kEnum || kind == LK::kJson) return j.String(b);
      if (kind == LK::kUuid && b.size() == 16) return j.String(columnar::FormatUuid(b));
      if (kind == LK::kFloat16 && b.size() == 2) {
        return j.Float(columnar::HalfToFloat(LoadLE<uint16_t>(b.data())));
      }
      if (kind == LK::kDecimal && !b.empty() && b.size() <= 16 && UsableScale(lt->decimal.scale)) {
        return j.String(columnar::FormatDecimal(BigEndianToInt128(b), lt->decimal.scale));
      }
      break;
    case Type::kInt96: break;
  }
  j.String(columnar::HexEncode(b));
}

// What the generated writers pass down: the schema leaf of the column chunk being written,
// and the types its statistics values are rendered by.
struct JsonContext {
  std::vector<const SchemaElement*> leaves;
  const SchemaElement* leaf = nullptr;
  Type physical = Type::kBoolean;
  std::optional<LogicalType> logical;
};

// The generated WriteJson() of each footer struct (parquet_thrift.def); it calls the
// Json<Hook> functions below.
#include "floe/format/parquet/parquet_thrift_json.inc"

// Each chunk is rendered with the leaf at its position.
void JsonColumnChunks(JsonWriter& j, const RowGroup& /*parent*/, const std::vector<ColumnChunk>& v,
                      JsonContext& ctx) {
  j.BeginArray();
  for (size_t i = 0; i < v.size(); ++i) {
    ctx.leaf = i < ctx.leaves.size() ? ctx.leaves[i] : nullptr;
    WriteJson(j, v[i], ctx);
  }
  j.EndArray();
}

void JsonColumnStatistics(JsonWriter& j, const ColumnMetaData& parent, const Statistics& v,
                          JsonContext& ctx) {
  // The logical type applies only if the leaf at this position agrees on the physical type;
  // a footer whose chunks do not match its schema gets untyped (hex) values.
  ctx.physical = parent.type;
  ctx.logical.reset();
  if (ctx.leaf != nullptr && ctx.leaf->type == parent.type) {
    ctx.logical = EffectiveLogicalType(*ctx.leaf);
  }
  WriteJson(j, v, ctx);
}

void JsonStatValue(JsonWriter& j, const Statistics& /*parent*/, const std::string& v,
                   JsonContext& ctx) {
  WriteStatValue(j, v, ctx.physical, ctx.logical);
}

// Re-indents compact JSON with two spaces per level. Strings are copied untouched.
std::string Indent(std::string_view json) {
  std::string out;
  out.reserve(json.size() * 2);
  int depth = 0;
  auto newline = [&] {
    out.push_back('\n');
    out.append(static_cast<size_t>(depth) * 2, ' ');
  };
  bool in_string = false;
  for (size_t i = 0; i < json.size(); ++i) {
    char c = json[i];
    if (in_string) {
      out.push_back(c);
      if (c == '\\' && i + 1 < json.size()) {
        out.push_back(json[++i]);
      } else if (c == '"') {
        in_string = false;
      }
      continue;
    }
    switch (c) {
      case '"':
        in_string = true;
        out.push_back(c);
        break;
      case '{':
      case '[':
        out.push_back(c);
        if (i + 1 < json.size() && (json[i + 1] == '}' || json[i + 1] == ']')) {
          out.push_back(json[++i]);
        } else {
          ++depth;
          newline();
        }
        break;
      case '}':
      case ']':
        --depth;
        newline();
        out.push_back(c);
        break;
      case ',':
        out.push_back(c);
        newline();
        break;
      case ':': out.append(": "); break;
      default: out.push_back(c);
    }
  }
  return out;
}

// ---- Message syntax.

std::string Lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

// Names come from the file: control characters would break the one-field-per-line layout.
std::string Printable(std::string_view s) {
  std::string out(s);
  for (char& c : out) {
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7F) c = '?';
  }
  return out;
}

std::string Annotation(const SchemaElement& e) {
  if (e.logical_type) {
    const LogicalType& t = *e.logical_type;
    switch (t.kind) {
      case LK::kDecimal: return fmt::format("DECIMAL({},{})", t.decimal.precision, t.decimal.scale);
      case LK::kTime:
      case LK::kTimestamp:
        return fmt::format("{}({},{})", LogicalTypeKindName(t.kind), EnumToString(t.temporal.unit),
                           t.temporal.is_adjusted_to_utc);
      case LK::kInteger:
        return fmt::format("INTEGER({},{})", t.integer.bit_width, t.integer.is_signed);
      case LK::kVariant:
        if (t.variant_specification_version) {
          return fmt::format("VARIANT({})", *t.variant_specification_version);
        }
        return "VARIANT";
      case LK::kGeometry:
        return t.crs ? fmt::format("GEOMETRY({})", Printable(*t.crs)) : "GEOMETRY";
      case LK::kGeography:
        if (!t.crs && !t.edge_algorithm) return "GEOGRAPHY";
        return fmt::format("GEOGRAPHY({},{})", Printable(t.crs.value_or("")),
                           t.edge_algorithm ? EnumToString(*t.edge_algorithm) : "");
      case LK::kUnrecognized: return fmt::format("unrecognized({})", t.unrecognized.field_id);
      default: return std::string(LogicalTypeKindName(t.kind));
    }
  }
  if (e.converted_type) {
    if (*e.converted_type == ConvertedType::kDecimal) {
      return fmt::format("DECIMAL({},{})", e.precision.value_or(0), e.scale.value_or(0));
    }
    return EnumToString(*e.converted_type);
  }
  return {};
}

std::string PhysicalTypeText(const SchemaElement& e) {
  if (!e.type) return "type(none)";
  if (*e.type == Type::kFixedLenByteArray) {
    return fmt::format("fixed_len_byte_array({})", e.type_length.value_or(0));
  }
  if (*e.type == Type::kByteArray) return "binary";
  std::string_view name = EnumName(*e.type);
  return name.empty() ? fmt::format("type({})", static_cast<int32_t>(*e.type)) : Lower(name);
}

}  // namespace

std::string FileMetaDataToJson(const FileMetaData& md, bool pretty) {
  std::string out;
  JsonWriter j(&out);
  JsonContext ctx;
  ctx.leaves = Leaves(md);
  WriteJson(j, md, ctx);
  return pretty ? Indent(out) : out;
}

std::string SchemaToText(const FileMetaData& md) {
  // Deeply nested (malformed) schemas would otherwise make the output quadratic.
  constexpr size_t kMaxIndentLevels = 64;
  std::string out;
  auto indent = [&](size_t depth) { out.append(std::min(depth, kMaxIndentLevels) * 2, ' '); };
  WalkSchema(
      md.schema,
      [&](size_t i, size_t depth, bool group) {
        const SchemaElement& e = md.schema[i];
        if (depth == 0) {
          out += fmt::format("message {} {{\n", Printable(e.name));
          return;
        }
        indent(depth);
        // A missing repetition reads as required, as the schema builder treats it.
        std::string rep = "required";
        if (e.repetition_type) {
          std::string_view name = EnumName(*e.repetition_type);
          rep = name.empty()
                    ? fmt::format("repetition({})", static_cast<int32_t>(*e.repetition_type))
                    : Lower(name);
        }
        out +=
            fmt::format("{} {} {}", rep, group ? "group" : PhysicalTypeText(e), Printable(e.name));
        std::string annotation = Annotation(e);
        if (!annotation.empty()) out += fmt::format(" ({})", annotation);
        if (e.field_id) out += fmt::format(" = {}", *e.field_id);
        out += group ? " {\n" : ";\n";
      },
      [&](size_t depth) {
        indent(depth);
        out += "}\n";
      });
  return out;
}

}  // namespace floe::format::parquet
