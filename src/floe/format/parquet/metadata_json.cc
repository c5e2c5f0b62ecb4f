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

void WriteKeyValues(JsonWriter& j, const std::vector<KeyValue>& kvs) {
  j.BeginArray();
  for (const KeyValue& kv : kvs) {
    j.BeginObject();
    j.Key("key");
    j.String(kv.key);
    if (kv.value) {
      j.Key("value");
      j.String(*kv.value);
    }
    j.EndObject();
  }
  j.EndArray();
}

void WriteInt64List(JsonWriter& j, const std::vector<int64_t>& v) {
  j.BeginArray();
  for (int64_t x : v) j.Int(x);
  j.EndArray();
}

void WriteLogicalType(JsonWriter& j, const LogicalType& t) {
  j.BeginObject();
  j.Key("type");
  j.String(LogicalTypeKindName(t.kind));
  switch (t.kind) {
    case LK::kDecimal:
      j.Key("scale");
      j.Int(t.decimal.scale);
      j.Key("precision");
      j.Int(t.decimal.precision);
      break;
    case LK::kTime:
    case LK::kTimestamp:
      j.Key("is_adjusted_to_utc");
      j.Bool(t.temporal.is_adjusted_to_utc);
      j.Key("unit");
      WriteEnum(j, t.temporal.unit);
      break;
    case LK::kInteger:
      j.Key("bit_width");
      j.Int(t.integer.bit_width);
      j.Key("is_signed");
      j.Bool(t.integer.is_signed);
      break;
    case LK::kVariant:
      if (t.variant_specification_version) {
        j.Key("specification_version");
        j.Int(*t.variant_specification_version);
      }
      break;
    case LK::kGeometry:
    case LK::kGeography:
      if (t.crs) {
        j.Key("crs");
        j.String(*t.crs);
      }
      if (t.kind == LK::kGeography && t.edge_algorithm) {
        j.Key("algorithm");
        WriteEnum(j, *t.edge_algorithm);
      }
      break;
    case LK::kUnrecognized:
      j.Key("field_id");
      j.Int(t.unrecognized.field_id);
      break;
    default: break;
  }
  j.EndObject();
}

void WriteSchemaElement(JsonWriter& j, const SchemaElement& e) {
  j.BeginObject();
  j.Key("name");
  j.String(e.name);
  if (e.type) {
    j.Key("type");
    WriteEnum(j, *e.type);
  }
  if (e.type_length) {
    j.Key("type_length");
    j.Int(*e.type_length);
  }
  if (e.repetition_type) {
    j.Key("repetition");
    WriteEnum(j, *e.repetition_type);
  }
  if (e.num_children) {
    j.Key("num_children");
    j.Int(*e.num_children);
  }
  if (e.converted_type) {
    j.Key("converted_type");
    WriteEnum(j, *e.converted_type);
  }
  if (e.logical_type) {
    j.Key("logical_type");
    WriteLogicalType(j, *e.logical_type);
  }
  if (e.scale) {
    j.Key("scale");
    j.Int(*e.scale);
  }
  if (e.precision) {
    j.Key("precision");
    j.Int(*e.precision);
  }
  if (e.field_id) {
    j.Key("field_id");
    j.Int(*e.field_id);
  }
  j.EndObject();
}

void WriteStatistics(JsonWriter& j, const Statistics& s, Type physical,
                     const std::optional<LogicalType>& lt) {
  j.BeginObject();
  auto value = [&](std::string_view key, const std::optional<std::string>& v) {
    if (!v) return;
    j.Key(key);
    WriteStatValue(j, *v, physical, lt);
  };
  auto count = [&](std::string_view key, const std::optional<int64_t>& v) {
    if (!v) return;
    j.Key(key);
    j.Int(*v);
  };
  auto flag = [&](std::string_view key, const std::optional<bool>& v) {
    if (!v) return;
    j.Key(key);
    j.Bool(*v);
  };
  count("null_count", s.null_count);
  count("distinct_count", s.distinct_count);
  count("nan_count", s.nan_count);
  value("min_value", s.min_value);
  value("max_value", s.max_value);
  flag("is_min_value_exact", s.is_min_value_exact);
  flag("is_max_value_exact", s.is_max_value_exact);
  // The deprecated pair, in signed order.
  value("min", s.min);
  value("max", s.max);
  j.EndObject();
}

void WriteColumnChunk(JsonWriter& j, const ColumnChunk& c, const SchemaElement* leaf) {
  auto opt_int = [&](std::string_view key, const auto& v) {
    if (!v) return;
    j.Key(key);
    j.Int(*v);
  };
  j.BeginObject();
  if (c.meta_data) {
    j.Key("path");
    j.BeginArray();
    for (const std::string& name : c.meta_data->path_in_schema) j.String(name);
    j.EndArray();
  }
  if (c.file_path) {
    j.Key("file_path");
    j.String(*c.file_path);
  }
  j.Key("file_offset");
  j.Int(c.file_offset);
  if (c.meta_data) {
    const ColumnMetaData& m = *c.meta_data;
    j.Key("type");
    WriteEnum(j, m.type);
    j.Key("encodings");
    j.BeginArray();
    for (Encoding e : m.encodings) WriteEnum(j, e);
    j.EndArray();
    j.Key("codec");
    WriteEnum(j, m.codec);
    j.Key("num_values");
    j.Int(m.num_values);
    j.Key("total_uncompressed_size");
    j.Int(m.total_uncompressed_size);
    j.Key("total_compressed_size");
    j.Int(m.total_compressed_size);
    j.Key("data_page_offset");
    j.Int(m.data_page_offset);
    opt_int("dictionary_page_offset", m.dictionary_page_offset);
    opt_int("index_page_offset", m.index_page_offset);
    opt_int("bloom_filter_offset", m.bloom_filter_offset);
    opt_int("bloom_filter_length", m.bloom_filter_length);
  }
  opt_int("offset_index_offset", c.offset_index_offset);
  opt_int("offset_index_length", c.offset_index_length);
  opt_int("column_index_offset", c.column_index_offset);
  opt_int("column_index_length", c.column_index_length);
  if (c.crypto_metadata || c.encrypted_column_metadata) {
    j.Key("encrypted");
    j.Bool(true);
  }
  if (c.meta_data) {
    const ColumnMetaData& m = *c.meta_data;
    if (m.key_value_metadata) {
      j.Key("key_value_metadata");
      WriteKeyValues(j, *m.key_value_metadata);
    }
    if (m.encoding_stats) {
      j.Key("encoding_stats");
      j.BeginArray();
      for (const PageEncodingStats& s : *m.encoding_stats) {
        j.BeginObject();
        j.Key("page_type");
        WriteEnum(j, s.page_type);
        j.Key("encoding");
        WriteEnum(j, s.encoding);
        j.Key("count");
        j.Int(s.count);
        j.EndObject();
      }
      j.EndArray();
    }
    if (m.statistics) {
      // The logical type applies only if the leaf at this position agrees on the physical
      // type; a footer whose chunks do not match its schema gets untyped (hex) values.
      std::optional<LogicalType> lt;
      if (leaf != nullptr && leaf->type == m.type) lt = EffectiveLogicalType(*leaf);
      j.Key("statistics");
      WriteStatistics(j, *m.statistics, m.type, lt);
    }
    if (m.size_statistics) {
      const SizeStatistics& s = *m.size_statistics;
      j.Key("size_statistics");
      j.BeginObject();
      opt_int("unencoded_byte_array_data_bytes", s.unencoded_byte_array_data_bytes);
      if (s.repetition_level_histogram) {
        j.Key("repetition_level_histogram");
        WriteInt64List(j, *s.repetition_level_histogram);
      }
      if (s.definition_level_histogram) {
        j.Key("definition_level_histogram");
        WriteInt64List(j, *s.definition_level_histogram);
      }
      j.EndObject();
    }
  }
  j.EndObject();
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
  j.BeginObject();
  j.Key("version");
  j.Int(md.version);
  j.Key("num_rows");
  j.Int(md.num_rows);
  if (md.created_by) {
    j.Key("created_by");
    j.String(*md.created_by);
  }
  if (md.key_value_metadata) {
    j.Key("key_value_metadata");
    WriteKeyValues(j, *md.key_value_metadata);
  }
  if (md.encryption_algorithm || md.footer_signing_key_metadata) {
    // Encrypted columns under a plaintext footer; the algorithm itself is kept opaque.
    j.Key("encrypted");
    j.Bool(true);
  }
  j.Key("schema");
  j.BeginArray();
  for (const SchemaElement& e : md.schema) WriteSchemaElement(j, e);
  j.EndArray();
  if (md.column_orders) {
    j.Key("column_orders");
    j.BeginArray();
    for (const ColumnOrder& o : *md.column_orders) j.String(ColumnOrderKindName(o.kind));
    j.EndArray();
  }
  const std::vector<const SchemaElement*> leaves = Leaves(md);
  j.Key("row_groups");
  j.BeginArray();
  for (const RowGroup& rg : md.row_groups) {
    j.BeginObject();
    j.Key("num_rows");
    j.Int(rg.num_rows);
    j.Key("total_byte_size");
    j.Int(rg.total_byte_size);
    if (rg.total_compressed_size) {
      j.Key("total_compressed_size");
      j.Int(*rg.total_compressed_size);
    }
    if (rg.file_offset) {
      j.Key("file_offset");
      j.Int(*rg.file_offset);
    }
    if (rg.ordinal) {
      j.Key("ordinal");
      j.Int(*rg.ordinal);
    }
    if (rg.sorting_columns) {
      j.Key("sorting_columns");
      j.BeginArray();
      for (const SortingColumn& s : *rg.sorting_columns) {
        j.BeginObject();
        j.Key("column_idx");
        j.Int(s.column_idx);
        j.Key("descending");
        j.Bool(s.descending);
        j.Key("nulls_first");
        j.Bool(s.nulls_first);
        j.EndObject();
      }
      j.EndArray();
    }
    j.Key("columns");
    j.BeginArray();
    for (size_t i = 0; i < rg.columns.size(); ++i) {
      WriteColumnChunk(j, rg.columns[i], i < leaves.size() ? leaves[i] : nullptr);
    }
    j.EndArray();
    j.EndObject();
  }
  j.EndArray();
  j.EndObject();
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
