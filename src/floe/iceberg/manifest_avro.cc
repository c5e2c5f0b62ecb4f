#include "floe/iceberg/manifest_avro.h"

#include <cctype>
#include <set>
#include <string_view>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "floe/base/macros.h"

namespace floe::iceberg {

namespace {

using Json = nlohmann::ordered_json;

// Builds schema JSON the way Avro Java serializes TypeToSchema's output: a field is
// {name, type, doc?, default?, props...}; named types are written in full once, then by
// name.
class AvroBuilder {
 public:
  Json Field(std::string_view name, Json type, int32_t id, bool optional,
             std::string_view doc = {}) {
    Json f = Json::object();
    f["name"] = name;
    f["type"] = optional ? Json::array({"null", std::move(type)}) : std::move(type);
    if (!doc.empty()) f["doc"] = doc;
    if (optional) f["default"] = nullptr;
    f["field-id"] = id;
    return f;
  }

  Json Record(std::string name, Json fields) {
    Json r = Json::object();
    r["type"] = "record";
    r["name"] = std::move(name);
    r["fields"] = std::move(fields);
    return r;
  }

  Json List(Json items, int32_t element_id) {
    Json a = Json::object();
    a["type"] = "array";
    a["items"] = std::move(items);
    a["element-id"] = element_id;
    return a;
  }

  // Java AvroSchemaUtil.createMap: map<int, V> as an array of k<key>_v<value> records.
  Json IntMap(int32_t key_id, int32_t value_id, Json value) {
    Json fields = Json::array();
    Json key = Json::object();
    key["name"] = "key";
    key["type"] = "int";
    key["field-id"] = key_id;
    fields.push_back(std::move(key));
    Json val = Json::object();
    val["name"] = "value";
    val["type"] = std::move(value);
    val["field-id"] = value_id;
    fields.push_back(std::move(val));
    Json a = Json::object();
    a["type"] = "array";
    a["items"] = Record(fmt::format("k{}_v{}", key_id, value_id), std::move(fields));
    a["logicalType"] = "map";
    return a;
  }

  Json Fixed(std::string name, int32_t size, Json props) {
    if (!defined_.insert(name).second) return Json(std::move(name));
    Json f = Json::object();
    f["type"] = "fixed";
    f["name"] = std::move(name);
    f["size"] = size;
    for (auto& [k, v] : props.items()) f[k] = v;
    return f;
  }

  Result<Json> Primitive(const Type& type) {
    auto with = [](std::string_view base, std::string_view logical) {
      Json j = Json::object();
      j["type"] = base;
      j["logicalType"] = logical;
      return j;
    };
    switch (type.kind()) {
      case TypeKind::kBoolean: return Json("boolean");
      case TypeKind::kInt: return Json("int");
      case TypeKind::kLong: return Json("long");
      case TypeKind::kFloat: return Json("float");
      case TypeKind::kDouble: return Json("double");
      case TypeKind::kDate: return with("int", "date");
      case TypeKind::kTime: return with("long", "time-micros");
      case TypeKind::kTimestamp:
      case TypeKind::kTimestampTz: {
        Json j = with("long", "timestamp-micros");
        j["adjust-to-utc"] = type.kind() == TypeKind::kTimestampTz;
        return j;
      }
      case TypeKind::kTimestampNs:
      case TypeKind::kTimestampTzNs: {
        Json j = with("long", "timestamp-nanos");
        j["adjust-to-utc"] = type.kind() == TypeKind::kTimestampTzNs;
        return j;
      }
      case TypeKind::kString: return Json("string");
      case TypeKind::kBinary: return Json("bytes");
      case TypeKind::kUuid: return Fixed("uuid_fixed", 16, Json{{"logicalType", "uuid"}});
      case TypeKind::kFixed:
        return Fixed(fmt::format("fixed_{}", type.length()), type.length(), Json::object());
      case TypeKind::kDecimal: {
        Json props = Json::object();
        props["logicalType"] = "decimal";
        props["precision"] = type.precision();
        props["scale"] = type.scale();
        return Fixed(fmt::format("decimal_{}_{}", type.precision(), type.scale()),
                     DecimalRequiredBytes(type.precision()), std::move(props));
      }
      default:
        return Status::Unimplemented("partition fields of type {} have no Avro form",
                                     type.ToString());
    }
  }

 private:
  std::set<std::string> defined_;
};

// Java AvroSchemaUtil.validAvroName / sanitize: names must match [A-Za-z_][A-Za-z0-9_]*.
bool ValidAvroName(std::string_view name) {
  if (name.empty()) return false;
  auto first = static_cast<unsigned char>(name[0]);
  if (!(std::isalpha(first) || first == '_')) return false;
  for (char c : name.substr(1)) {
    auto u = static_cast<unsigned char>(c);
    if (!(std::isalnum(u) || u == '_')) return false;
  }
  return true;
}

std::string SanitizeChar(unsigned char c) {
  if (std::isdigit(c)) return fmt::format("_{}", static_cast<char>(c));
  return fmt::format("_x{:X}", c);
}

std::string SanitizeAvroName(std::string_view name) {
  std::string out;
  for (size_t i = 0; i < name.size(); ++i) {
    auto c = static_cast<unsigned char>(name[i]);
    bool ok = i == 0 ? (std::isalpha(c) || c == '_') : (std::isalnum(c) || c == '_');
    if (ok) {
      out.push_back(static_cast<char>(c));
    } else if (i == 0) {
      out += SanitizeChar(c);
    } else {
      out += fmt::format("_x{:X}", c);
    }
  }
  return out;
}

Result<Json> PartitionRecord(AvroBuilder& b, const Type& partition_type) {
  if (partition_type.kind() != TypeKind::kStruct) {
    return Status::InvalidArgument("the partition type must be a struct, not {}",
                                   partition_type.ToString());
  }
  Json fields = Json::array();
  for (const NestedField& field : partition_type.fields()) {
    FLOE_ASSIGN_OR_RETURN(Json type, b.Primitive(*field.type));
    bool valid = ValidAvroName(field.name);
    Json f = Json::object();
    f["name"] = valid ? field.name : SanitizeAvroName(field.name);
    f["type"] = field.required ? std::move(type) : Json::array({"null", std::move(type)});
    if (!field.doc.empty()) f["doc"] = field.doc;
    if (!field.required) f["default"] = nullptr;
    if (!valid) f["iceberg-field-name"] = field.name;
    f["field-id"] = field.id;
    fields.push_back(std::move(f));
  }
  return b.Record("r102", std::move(fields));
}

}  // namespace

int32_t DecimalRequiredBytes(int32_t precision) {
  // The smallest n with floor(log10(2^(8n-1) - 1)) >= precision.
  static constexpr int32_t kMaxPrecision[17] = {0,  2,  4,  6,  9,  11, 14, 16, 18,
                                                21, 23, 26, 28, 31, 33, 35, 38};
  for (int32_t n = 1; n <= 16; ++n) {
    if (kMaxPrecision[n] >= precision) return n;
  }
  return 16;
}

Result<std::string> ManifestEntryAvroSchema(int format_version, const Type& partition_type) {
  if (format_version < 1 || format_version > 3) {
    return Status::InvalidArgument("unsupported manifest format version {}", format_version);
  }
  AvroBuilder b;
  const bool v1 = format_version == 1;
  FLOE_ASSIGN_OR_RETURN(Json partition, PartitionRecord(b, partition_type));

  Json df = Json::array();
  if (!v1) {
    df.push_back(b.Field("content", "int", 134, false,
                         "Contents of the file: 0=data, 1=position deletes, 2=equality deletes"));
  }
  df.push_back(b.Field("file_path", "string", 100, false, "Location URI with FS scheme"));
  df.push_back(
      b.Field("file_format", "string", 101, false, "File format name: avro, orc, or parquet"));
  df.push_back(b.Field("partition", std::move(partition), 102, false,
                       v1 ? "" : "Partition data tuple, schema based on the partition spec"));
  df.push_back(b.Field("record_count", "long", 103, false, "Number of records in the file"));
  df.push_back(b.Field("file_size_in_bytes", "long", 104, false, "Total file size in bytes"));
  if (v1) df.push_back(b.Field("block_size_in_bytes", "long", 105, false));
  df.push_back(b.Field("column_sizes", b.IntMap(117, 118, "long"), 108, true,
                       "Map of column id to total size on disk"));
  df.push_back(b.Field("value_counts", b.IntMap(119, 120, "long"), 109, true,
                       "Map of column id to total count, including null and NaN"));
  df.push_back(b.Field("null_value_counts", b.IntMap(121, 122, "long"), 110, true,
                       "Map of column id to null value count"));
  df.push_back(b.Field("nan_value_counts", b.IntMap(138, 139, "long"), 137, true,
                       "Map of column id to number of NaN values in the column"));
  df.push_back(b.Field("lower_bounds", b.IntMap(126, 127, "bytes"), 125, true,
                       "Map of column id to lower bound"));
  df.push_back(b.Field("upper_bounds", b.IntMap(129, 130, "bytes"), 128, true,
                       "Map of column id to upper bound"));
  df.push_back(b.Field("key_metadata", "bytes", 131, true, "Encryption key metadata blob"));
  df.push_back(b.Field("split_offsets", b.List("long", 133), 132, true, "Splittable offsets"));
  if (!v1) {
    df.push_back(
        b.Field("equality_ids", b.List("int", 136), 135, true, "Equality comparison field IDs"));
  }
  df.push_back(b.Field("sort_order_id", "int", 140, true, "Sort order ID"));
  if (format_version >= 3) {
    df.push_back(b.Field("first_row_id", "long", 142, true,
                         "The first row ID assigned to the first row in the data file"));
  }
  if (!v1) {
    df.push_back(
        b.Field("referenced_data_file", "string", 143, true,
                "Fully qualified location (URI with FS scheme) of a data file that all deletes "
                "reference"));
  }
  if (format_version >= 3) {
    df.push_back(b.Field("content_offset", "long", 144, true,
                         "The offset in the file where the content starts"));
    df.push_back(b.Field("content_size_in_bytes", "long", 145, true,
                         "The length of referenced content stored in the file"));
  }

  Json fields = Json::array();
  fields.push_back(b.Field("status", "int", 0, false));
  // Java's ManifestEntry.SNAPSHOT_ID is optional in every version (the spec's table calls
  // it required in v1; Java v1 writers always set it).
  fields.push_back(b.Field("snapshot_id", "long", 1, true));
  if (!v1) {
    fields.push_back(b.Field("sequence_number", "long", 3, true));
    fields.push_back(b.Field("file_sequence_number", "long", 4, true));
  }
  fields.push_back(b.Field("data_file", b.Record("r2", std::move(df)), 2, false));
  return b.Record("manifest_entry", std::move(fields)).dump();
}

Result<std::string> ManifestListAvroSchema(int format_version) {
  if (format_version < 1 || format_version > 3) {
    return Status::InvalidArgument("unsupported manifest list format version {}", format_version);
  }
  AvroBuilder b;
  const bool v1 = format_version == 1;
  Json summary = Json::array();
  summary.push_back(b.Field("contains_null", "boolean", 509, false,
                            "True if any file has a null partition value"));
  summary.push_back(
      b.Field("contains_nan", "boolean", 518, true, "True if any file has a nan partition value"));
  summary.push_back(
      b.Field("lower_bound", "bytes", 510, true, "Partition lower bound for all files"));
  summary.push_back(
      b.Field("upper_bound", "bytes", 511, true, "Partition upper bound for all files"));
  Json partitions = b.Field("partitions", b.List(b.Record("r508", std::move(summary)), 508), 507,
                            true, "Summary for each partition");

  Json f = Json::array();
  f.push_back(b.Field("manifest_path", "string", 500, false, "Location URI with FS scheme"));
  f.push_back(b.Field("manifest_length", "long", 501, false, "Total file size in bytes"));
  f.push_back(b.Field("partition_spec_id", "int", 502, false, "Spec ID used to write"));
  if (!v1) {
    f.push_back(
        b.Field("content", "int", 517, false, "Contents of the manifest: 0=data, 1=deletes"));
    f.push_back(b.Field("sequence_number", "long", 515, false,
                        "Sequence number when the manifest was added"));
    f.push_back(b.Field("min_sequence_number", "long", 516, false,
                        "Lowest sequence number in the manifest"));
  }
  f.push_back(
      b.Field("added_snapshot_id", "long", 503, false, "Snapshot ID that added the manifest"));
  f.push_back(b.Field("added_files_count", "int", 504, v1, "Added entry count"));
  f.push_back(b.Field("existing_files_count", "int", 505, v1, "Existing entry count"));
  f.push_back(b.Field("deleted_files_count", "int", 506, v1, "Deleted entry count"));
  // Java's v1 list puts the partition summaries before the row counts.
  if (v1) f.push_back(partitions);
  f.push_back(b.Field("added_rows_count", "long", 512, v1, "Added rows count"));
  f.push_back(b.Field("existing_rows_count", "long", 513, v1, "Existing rows count"));
  f.push_back(b.Field("deleted_rows_count", "long", 514, v1, "Deleted rows count"));
  if (!v1) f.push_back(partitions);
  f.push_back(b.Field("key_metadata", "bytes", 519, true, "Encryption key metadata blob"));
  if (format_version >= 3) {
    f.push_back(b.Field("first_row_id", "long", 520, true,
                        "Starting row ID to assign to new rows in ADDED data files"));
  }
  return b.Record("manifest_file", std::move(f)).dump();
}

namespace {

// Makes every field of a record optional: ["null", T] with a null default.
void MakeOptional(Json& record) {
  for (Json& field : record["fields"]) {
    Json& type = field["type"];
    bool nullable = type.is_array() && !type.empty() && type[0] == "null";
    if (!nullable) type = Json::array({"null", type});
    // "default" must follow "type" to mirror Java's layout; order is cosmetic here.
    field["default"] = nullptr;
  }
}

}  // namespace

std::string ManifestListReadSchema() {
  Json schema = Json::parse(*ManifestListAvroSchema(3));
  MakeOptional(schema);
  return schema.dump();
}

Result<std::string> ManifestEntryReadSchema(std::string_view partition_json, bool with_stats) {
  Json partition = Json::parse(partition_json, nullptr, /*allow_exceptions=*/false);
  if (partition.is_discarded()) return Status::Corrupt("malformed partition schema JSON");
  Json schema = Json::parse(*ManifestEntryAvroSchema(3, *StructType({})));
  MakeOptional(schema);
  for (Json& field : schema["fields"]) {
    if (field["field-id"] != 2) continue;
    Json& data_file = field["type"][1];
    Json kept = Json::array();
    for (Json& f : data_file["fields"]) {
      int id = f["field-id"].get<int>();
      bool stats = id == 108 || id == 109 || id == 110 || id == 137 || id == 125 || id == 128;
      if (stats && !with_stats) continue;
      if (id == 102) f["type"] = Json::array({"null", partition});
      kept.push_back(std::move(f));
    }
    data_file["fields"] = std::move(kept);
    MakeOptional(data_file);
  }
  return schema.dump();
}

}  // namespace floe::iceberg
