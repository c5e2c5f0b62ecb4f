#include "floe/iceberg/table_metadata.h"

#include <algorithm>
#include <charconv>
#include <unordered_map>
#include <unordered_set>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "floe/base/macros.h"
#include "floe/format/compression/codec.h"
#include "floe/iceberg/java_json.h"
#include "floe/iceberg/metadata_json.h"
#include "floe/iceberg/ojson_util.h"
#include "floe/io/file_io.h"

namespace floe::iceberg {

using ojson::OJson;

const Schema* TableMetadata::schema_by_id(int32_t id) const {
  for (const Schema& s : schemas) {
    if (s.schema_id() == id) return &s;
  }
  return nullptr;
}

const PartitionSpec* TableMetadata::spec_by_id(int32_t id) const {
  for (const PartitionSpec& s : specs) {
    if (s.spec_id() == id) return &s;
  }
  return nullptr;
}

const SortOrder* TableMetadata::sort_order_by_id(int32_t id) const {
  for (const SortOrder& o : sort_orders) {
    if (o.order_id() == id) return &o;
  }
  return nullptr;
}

const Snapshot* TableMetadata::snapshot_by_id(int64_t id) const {
  for (const Snapshot& s : snapshots) {
    if (s.snapshot_id == id) return &s;
  }
  return nullptr;
}

const Snapshot* TableMetadata::current_snapshot() const {
  return current_snapshot_id ? snapshot_by_id(*current_snapshot_id) : nullptr;
}

const SnapshotRef* TableMetadata::ref(std::string_view name) const {
  auto it = refs.find(std::string(name));
  return it == refs.end() ? nullptr : &it->second;
}

const Snapshot* TableMetadata::SnapshotForRef(std::string_view name) const {
  const SnapshotRef* r = ref(name);
  return r == nullptr ? nullptr : snapshot_by_id(r->snapshot_id);
}

const Snapshot* TableMetadata::SnapshotAsOf(int64_t timestamp_ms) const {
  // Java SnapshotUtil.nullableSnapshotIdAsOfTime: the last log entry at or before the time.
  std::optional<int64_t> id;
  for (const SnapshotLogEntry& e : snapshot_log) {
    if (e.timestamp_ms <= timestamp_ms) id = e.snapshot_id;
  }
  return id ? snapshot_by_id(*id) : nullptr;
}

std::vector<const Snapshot*> TableMetadata::Ancestors(int64_t snapshot_id) const {
  std::unordered_map<int64_t, const Snapshot*> by_id;
  for (const Snapshot& s : snapshots) by_id.emplace(s.snapshot_id, &s);
  std::vector<const Snapshot*> out;
  std::unordered_set<int64_t> seen;  // a cycle in untrusted metadata must not loop forever
  std::optional<int64_t> next = snapshot_id;
  while (next && seen.insert(*next).second) {
    auto it = by_id.find(*next);
    if (it == by_id.end()) break;
    out.push_back(it->second);
    next = it->second->parent_snapshot_id;
  }
  return out;
}

int64_t TableMetadata::PropertyAsInt(std::string_view key, int64_t default_value) const {
  auto it = properties.find(std::string(key));
  if (it == properties.end()) return default_value;
  const std::string& s = it->second;
  int64_t v = 0;
  auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || ptr != s.data() + s.size()) return default_value;
  return v;
}

namespace {

Status Corrupt(const Status& s) {
  if (s.ok() || s.code() == StatusCode::kUnimplemented) return s;
  return Status(StatusCode::kCorrupt, fmt::format("table metadata: {}", s.message()));
}

Result<TableMetadata> ParseMetadata(const OJson& node) {
  if (!node.is_object()) return Status::InvalidArgument("not a JSON object");
  TableMetadata md;
  FLOE_ASSIGN_OR_RETURN(md.format_version, ojson::GetInt(node, "format-version"));
  if (md.format_version > kMaxFormatVersion) {
    return Status::Unimplemented("table format version {} is not supported (max {})",
                                 md.format_version, kMaxFormatVersion);
  }
  if (md.format_version < 1) {
    return Status::InvalidArgument("invalid format-version {}", md.format_version);
  }
  const int32_t v = md.format_version;
  FLOE_ASSIGN_OR_RETURN(md.table_uuid, ojson::OptString(node, "table-uuid"));
  if (v > 1 && !md.table_uuid) return Status::InvalidArgument("missing 'table-uuid'");
  FLOE_ASSIGN_OR_RETURN(md.location, ojson::GetString(node, "location"));
  if (v > 1) {
    FLOE_ASSIGN_OR_RETURN(md.last_sequence_number, ojson::GetLong(node, "last-sequence-number"));
  }
  FLOE_ASSIGN_OR_RETURN(md.last_column_id, ojson::GetInt(node, "last-column-id"));

  // Schemas: the list (required from v2) or the v1 single schema.
  if (const OJson* list = ojson::Find(node, "schemas")) {
    FLOE_RETURN_IF_ERROR(ojson::AsArray(*list, "schemas"));
    FLOE_ASSIGN_OR_RETURN(md.current_schema_id, ojson::GetInt(node, "current-schema-id"));
    for (const OJson& s : *list) {
      FLOE_ASSIGN_OR_RETURN(Schema schema, ParseSchema(s));
      if (md.schema_by_id(schema.schema_id()) != nullptr) {
        return Status::InvalidArgument("duplicate schema id {}", schema.schema_id());
      }
      md.schemas.push_back(std::move(schema));
    }
    if (md.current_schema() == nullptr) {
      return Status::InvalidArgument("cannot find schema with current-schema-id={} in schemas",
                                     md.current_schema_id);
    }
  } else {
    if (v != 1) return Status::InvalidArgument("'schemas' must exist in format v{}", v);
    FLOE_ASSIGN_OR_RETURN(const OJson* s, ojson::Get(node, "schema"));
    FLOE_ASSIGN_OR_RETURN(Schema schema, ParseSchema(*s));
    md.current_schema_id = schema.schema_id();
    md.schemas.push_back(std::move(schema));
  }
  if (const OJson* list = ojson::Find(node, "partition-specs")) {
    FLOE_RETURN_IF_ERROR(ojson::AsArray(*list, "partition-specs"));
    FLOE_ASSIGN_OR_RETURN(md.default_spec_id, ojson::GetInt(node, "default-spec-id"));
    for (const OJson& s : *list) {
      FLOE_ASSIGN_OR_RETURN(PartitionSpec spec, ParseSpec(s));
      if (md.spec_by_id(spec.spec_id()) != nullptr) {
        return Status::InvalidArgument("duplicate partition spec id {}", spec.spec_id());
      }
      md.specs.push_back(std::move(spec));
    }
  } else {
    if (v != 1) return Status::InvalidArgument("'partition-specs' must exist in format v{}", v);
    FLOE_ASSIGN_OR_RETURN(const OJson* fields, ojson::Get(node, "partition-spec"));
    FLOE_RETURN_IF_ERROR(ojson::AsArray(*fields, "partition-spec"));
    md.default_spec_id = 0;
    FLOE_ASSIGN_OR_RETURN(PartitionSpec parsed, ParseV1SpecFields(*fields));
    md.specs.push_back(std::move(parsed));
  }
  if (md.default_spec() == nullptr) {
    return Status::InvalidArgument("cannot find partition spec with default-spec-id={}",
                                   md.default_spec_id);
  }
  FLOE_ASSIGN_OR_RETURN(auto last_partition_id, ojson::OptInt(node, "last-partition-id"));
  if (last_partition_id) {
    md.last_partition_id = *last_partition_id;
  } else {
    if (v != 1) return Status::InvalidArgument("'last-partition-id' must exist in format v{}", v);
    md.last_partition_id = kFirstPartitionFieldId - 1;
    for (const PartitionSpec& spec : md.specs) {
      md.last_partition_id = std::max(md.last_partition_id, spec.last_assigned_field_id());
    }
  }

  if (const OJson* list = ojson::Find(node, "sort-orders")) {
    FLOE_RETURN_IF_ERROR(ojson::AsArray(*list, "sort-orders"));
    FLOE_ASSIGN_OR_RETURN(md.default_sort_order_id, ojson::GetInt(node, "default-sort-order-id"));
    for (const OJson& o : *list) {
      FLOE_ASSIGN_OR_RETURN(SortOrder order, ParseSortOrder(o));
      if (md.sort_order_by_id(order.order_id()) != nullptr) {
        return Status::InvalidArgument("duplicate sort order id {}", order.order_id());
      }
      md.sort_orders.push_back(std::move(order));
    }
    if (md.default_sort_order() == nullptr) {
      return Status::InvalidArgument("cannot find sort order with default-sort-order-id={}",
                                     md.default_sort_order_id);
    }
  } else {
    if (v != 1) return Status::InvalidArgument("'sort-orders' must exist in format v{}", v);
    md.sort_orders.push_back(SortOrder::Unsorted());
    md.default_sort_order_id = 0;
  }

  FLOE_ASSIGN_OR_RETURN(md.properties, ojson::GetStringMap(node, "properties"));
  FLOE_ASSIGN_OR_RETURN(md.current_snapshot_id, ojson::OptLong(node, "current-snapshot-id"));
  if (md.current_snapshot_id && *md.current_snapshot_id == -1) md.current_snapshot_id.reset();
  if (v >= 3) {
    FLOE_ASSIGN_OR_RETURN(md.next_row_id, ojson::GetLong(node, "next-row-id"));
  }
  FLOE_ASSIGN_OR_RETURN(md.last_updated_ms, ojson::GetLong(node, "last-updated-ms"));

  if (const OJson* keys = ojson::Find(node, "encryption-keys")) {
    FLOE_RETURN_IF_ERROR(ojson::AsArray(*keys, "encryption-keys"));
    for (const OJson& k : *keys) {
      FLOE_ASSIGN_OR_RETURN(EncryptionKey key, EncryptionKeyFromJson(k));
      md.encryption_keys.push_back(std::move(key));
    }
  }

  if (const OJson* snapshots = ojson::Find(node, "snapshots")) {
    FLOE_RETURN_IF_ERROR(ojson::AsArray(*snapshots, "snapshots"));
    std::unordered_set<int64_t> ids;
    for (const OJson& s : *snapshots) {
      FLOE_ASSIGN_OR_RETURN(Snapshot snapshot, SnapshotFromJson(s));
      if (!ids.insert(snapshot.snapshot_id).second) {
        return Status::InvalidArgument("duplicate snapshot id {}", snapshot.snapshot_id);
      }
      if (snapshot.sequence_number > md.last_sequence_number) {
        return Status::InvalidArgument(
            "snapshot {} has sequence number {} greater than last sequence number {}",
            snapshot.snapshot_id, snapshot.sequence_number, md.last_sequence_number);
      }
      md.snapshots.push_back(std::move(snapshot));
    }
  }
  if (md.current_snapshot_id && md.current_snapshot() == nullptr) {
    return Status::InvalidArgument("cannot find current snapshot {}", *md.current_snapshot_id);
  }

  if (const OJson* refs = ojson::Find(node, "refs")) {
    if (!refs->is_object()) return Status::InvalidArgument("'refs' must be an object");
    for (const auto& [name, r] : refs->items()) {
      FLOE_ASSIGN_OR_RETURN(SnapshotRef ref, SnapshotRefFromJson(r));
      if (md.snapshot_by_id(ref.snapshot_id) == nullptr) {
        return Status::InvalidArgument("ref '{}' points at unknown snapshot {}", name,
                                       ref.snapshot_id);
      }
      md.refs[name] = ref;
    }
  } else if (md.current_snapshot_id) {
    md.refs[std::string(kMainBranch)] = SnapshotRef::Branch(*md.current_snapshot_id);
  }
  const SnapshotRef* main = md.ref(kMainBranch);
  if (md.current_snapshot_id) {
    if (main != nullptr && main->snapshot_id != *md.current_snapshot_id) {
      return Status::InvalidArgument("current snapshot id {} does not match main branch ({})",
                                     *md.current_snapshot_id, main->snapshot_id);
    }
  } else if (main != nullptr) {
    return Status::InvalidArgument("current snapshot is not set, but main branch exists");
  }

  if (const OJson* stats = ojson::Find(node, "statistics")) {
    FLOE_RETURN_IF_ERROR(ojson::AsArray(*stats, "statistics"));
    for (const OJson& s : *stats) {
      FLOE_ASSIGN_OR_RETURN(StatisticsFile f, StatisticsFileFromJson(s));
      md.statistics.push_back(std::move(f));
    }
  }
  if (const OJson* stats = ojson::Find(node, "partition-statistics")) {
    FLOE_RETURN_IF_ERROR(ojson::AsArray(*stats, "partition-statistics"));
    for (const OJson& s : *stats) {
      FLOE_ASSIGN_OR_RETURN(PartitionStatisticsFile f, PartitionStatisticsFileFromJson(s));
      md.partition_statistics.push_back(std::move(f));
    }
  }
  if (const OJson* log = ojson::Find(node, "snapshot-log")) {
    FLOE_RETURN_IF_ERROR(ojson::AsArray(*log, "snapshot-log"));
    for (const OJson& e : *log) {
      SnapshotLogEntry entry;
      FLOE_ASSIGN_OR_RETURN(entry.timestamp_ms, ojson::GetLong(e, "timestamp-ms"));
      FLOE_ASSIGN_OR_RETURN(entry.snapshot_id, ojson::GetLong(e, "snapshot-id"));
      md.snapshot_log.push_back(entry);
    }
  }
  if (const OJson* log = ojson::Find(node, "metadata-log")) {
    FLOE_RETURN_IF_ERROR(ojson::AsArray(*log, "metadata-log"));
    for (const OJson& e : *log) {
      MetadataLogEntry entry;
      FLOE_ASSIGN_OR_RETURN(entry.timestamp_ms, ojson::GetLong(e, "timestamp-ms"));
      FLOE_ASSIGN_OR_RETURN(entry.metadata_file, ojson::GetString(e, "metadata-file"));
      md.metadata_log.push_back(std::move(entry));
    }
  }
  return md;
}

}  // namespace

Result<TableMetadata> TableMetadataFromJson(std::string_view json_text) {
  auto parsed = ojson::Parse(json_text, "table metadata");
  if (!parsed.ok()) return Corrupt(parsed.status());
  auto md = ParseMetadata(*parsed);
  if (!md.ok()) return Corrupt(md.status());
  return md;
}

std::string TableMetadataToJson(const TableMetadata& md, bool pretty) {
  OJson j = OJson::object();
  j["format-version"] = md.format_version;
  j["table-uuid"] = md.table_uuid ? OJson(*md.table_uuid) : OJson(nullptr);
  j["location"] = md.location;
  if (md.format_version > 1) j["last-sequence-number"] = md.last_sequence_number;
  j["last-updated-ms"] = md.last_updated_ms;
  j["last-column-id"] = md.last_column_id;
  const Schema* current = md.current_schema();
  if (md.format_version == 1 && current != nullptr) j["schema"] = SchemaJson(*current);
  j["current-schema-id"] = md.current_schema_id;
  OJson schemas = OJson::array();
  for (const Schema& s : md.schemas) schemas.push_back(SchemaJson(s));
  j["schemas"] = std::move(schemas);
  const PartitionSpec* spec = md.default_spec();
  if (md.format_version == 1 && spec != nullptr)
    j["partition-spec"] = ToJavaMemberOrder(PartitionFieldsToJsonValue(*spec));
  j["default-spec-id"] = md.default_spec_id;
  OJson specs = OJson::array();
  for (const PartitionSpec& s : md.specs) specs.push_back(SpecJson(s));
  j["partition-specs"] = std::move(specs);
  j["last-partition-id"] = md.last_partition_id;
  j["default-sort-order-id"] = md.default_sort_order_id;
  OJson orders = OJson::array();
  for (const SortOrder& o : md.sort_orders) orders.push_back(SortOrderJson(o));
  j["sort-orders"] = std::move(orders);
  j["properties"] = ojson::StringMapToJson(md.properties);
  if (md.current_snapshot_id) {
    j["current-snapshot-id"] = *md.current_snapshot_id;
  } else if (md.format_version >= 3) {
    j["current-snapshot-id"] = nullptr;
  } else {
    j["current-snapshot-id"] = -1;
  }
  if (md.format_version >= 3) j["next-row-id"] = md.next_row_id;
  if (!md.encryption_keys.empty()) {
    OJson keys = OJson::array();
    for (const EncryptionKey& k : md.encryption_keys) keys.push_back(EncryptionKeyToJson(k));
    j["encryption-keys"] = std::move(keys);
  }
  OJson refs = OJson::object();
  for (const auto& [name, r] : md.refs) refs[name] = SnapshotRefToJson(r);
  j["refs"] = std::move(refs);
  OJson snapshots = OJson::array();
  for (const Snapshot& s : md.snapshots) snapshots.push_back(SnapshotToJson(s));
  j["snapshots"] = std::move(snapshots);
  OJson stats = OJson::array();
  for (const StatisticsFile& f : md.statistics) stats.push_back(StatisticsFileToJson(f));
  j["statistics"] = std::move(stats);
  OJson pstats = OJson::array();
  for (const PartitionStatisticsFile& f : md.partition_statistics) {
    pstats.push_back(PartitionStatisticsFileToJson(f));
  }
  j["partition-statistics"] = std::move(pstats);
  OJson snapshot_log = OJson::array();
  for (const SnapshotLogEntry& e : md.snapshot_log) {
    OJson entry = OJson::object();
    entry["timestamp-ms"] = e.timestamp_ms;
    entry["snapshot-id"] = e.snapshot_id;
    snapshot_log.push_back(std::move(entry));
  }
  j["snapshot-log"] = std::move(snapshot_log);
  OJson metadata_log = OJson::array();
  for (const MetadataLogEntry& e : md.metadata_log) {
    OJson entry = OJson::object();
    entry["timestamp-ms"] = e.timestamp_ms;
    entry["metadata-file"] = e.metadata_file;
    metadata_log.push_back(std::move(entry));
  }
  j["metadata-log"] = std::move(metadata_log);
  return ToJavaJson(j, pretty);
}

Result<TableMetadata> ReadTableMetadata(io::FileIO& io, std::string_view location) {
  FLOE_ASSIGN_OR_RETURN(std::string text, ReadMetadataText(io, location));
  auto md = TableMetadataFromJson(text);
  if (!md.ok()) return md.status().WithContext("{}", location);
  md->metadata_file_location = std::string(location);
  return md;
}

Status WriteTableMetadata(io::FileIO& io, std::string_view location,
                          const TableMetadata& metadata) {
  return WriteMetadataText(io, location, TableMetadataToJson(metadata));
}

std::optional<int32_t> ParseMetadataFileVersion(std::string_view location) {
  size_t slash = location.rfind('/');
  size_t start = slash == std::string_view::npos ? 0 : slash + 1;
  size_t dash = location.find('-', start);
  if (dash == std::string_view::npos || dash == start) return std::nullopt;
  int32_t v = 0;
  auto [ptr, ec] = std::from_chars(location.data() + start, location.data() + dash, v);
  if (ec != std::errc() || ptr != location.data() + dash) return std::nullopt;
  return v;
}

int32_t NextMetadataVersion(std::string_view previous_location) {
  std::optional<int32_t> v = ParseMetadataFileVersion(previous_location);
  return v && *v >= 0 && *v < INT32_MAX ? *v + 1 : 0;
}

std::string NewMetadataLocation(const TableMetadata& md, int32_t version, std::string_view uuid) {
  std::string codec = "none";
  if (auto it = md.properties.find(std::string(kPropertyMetadataCompression));
      it != md.properties.end()) {
    codec = it->second;
    std::transform(codec.begin(), codec.end(), codec.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  }
  std::string name = fmt::format("{:05d}-{}{}", version, uuid,
                                 codec == "gzip" ? ".gz.metadata.json" : ".metadata.json");
  if (auto it = md.properties.find(std::string(kPropertyMetadataPath)); it != md.properties.end()) {
    std::string dir = it->second;
    while (dir.size() > 1 && dir.back() == '/') dir.pop_back();
    return dir + "/" + name;
  }
  return md.location + "/metadata/" + name;
}

}  // namespace floe::iceberg
