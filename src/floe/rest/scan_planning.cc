#include "floe/rest/scan_planning.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <optional>
#include <set>
#include <unordered_map>
#include <utility>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "floe/base/crc.h"
#include "floe/base/json.h"
#include "floe/base/json_writer.h"
#include "floe/base/macros.h"
#include "floe/iceberg/expression_json.h"
#include "floe/iceberg/file_filter.h"
#include "floe/iceberg/literal.h"
#include "floe/iceberg/manifest_list.h"
#include "floe/iceberg/metadata_json.h"
#include "floe/iceberg/partition_spec.h"
#include "floe/iceberg/scan.h"

namespace floe::rest {

using Json = nlohmann::json;
using http::HttpRequest;
using http::HttpResponse;

HttpResponse RestError(int code, std::string_view type, std::string_view message) {
  Json body = {{"error", {{"message", message}, {"type", type}, {"code", code}}}};
  return HttpResponse::Json(code, body.dump(-1, ' ', false, Json::error_handler_t::replace));
}

namespace {

constexpr std::string_view kTokenPrefix = "floe-plan-task-v1:";

// A PlanTableScanRequest, validated. `normalized` is what plan ids and plan tasks carry:
// the request with the snapshot pinned, so that later answers describe the same scan.
struct Query {
  std::optional<int64_t> snapshot_id;
  std::optional<int64_t> start_snapshot_id;
  iceberg::ExpressionPtr filter;
  bool case_sensitive = true;
  std::vector<std::string> select;
  std::vector<std::string> stats_fields;
  Json normalized = Json::object();
};

Result<std::optional<int64_t>> OptionalLong(const Json& body, const char* key) {
  auto it = body.find(key);
  if (it == body.end() || it->is_null()) return std::optional<int64_t>();
  if (!it->is_number_integer()) return Status::InvalidArgument("'{}' must be an integer", key);
  if (it->is_number_unsigned() && it->get<uint64_t>() > uint64_t{INT64_MAX}) {
    return Status::InvalidArgument("'{}' is out of range", key);
  }
  return std::optional<int64_t>(it->get<int64_t>());
}

Result<bool> OptionalBool(const Json& body, const char* key, bool fallback) {
  auto it = body.find(key);
  if (it == body.end() || it->is_null()) return fallback;
  if (!it->is_boolean()) return Status::InvalidArgument("'{}' must be a boolean", key);
  return it->get<bool>();
}

Result<std::vector<std::string>> OptionalNames(const Json& body, const char* key) {
  std::vector<std::string> out;
  auto it = body.find(key);
  if (it == body.end() || it->is_null()) return out;
  if (!it->is_array()) return Status::InvalidArgument("'{}' must be an array of names", key);
  for (const Json& name : *it) {
    if (!name.is_string()) return Status::InvalidArgument("'{}' must be an array of names", key);
    out.push_back(name.get<std::string>());
  }
  return out;
}

Result<Query> QueryFromJson(const Json& body) {
  if (!body.is_object()) return Status::InvalidArgument("request body must be a JSON object");
  Query q;
  FLOE_ASSIGN_OR_RETURN(q.snapshot_id, OptionalLong(body, "snapshot-id"));
  FLOE_ASSIGN_OR_RETURN(q.start_snapshot_id, OptionalLong(body, "start-snapshot-id"));
  FLOE_ASSIGN_OR_RETURN(std::optional<int64_t> end, OptionalLong(body, "end-snapshot-id"));
  FLOE_ASSIGN_OR_RETURN(q.case_sensitive, OptionalBool(body, "case-sensitive", true));
  FLOE_ASSIGN_OR_RETURN(bool use_snapshot_schema, OptionalBool(body, "use-snapshot-schema", false));
  (void)use_snapshot_schema;  // floe reads a snapshot by id with that snapshot's schema
  FLOE_ASSIGN_OR_RETURN(q.select, OptionalNames(body, "select"));
  FLOE_ASSIGN_OR_RETURN(q.stats_fields, OptionalNames(body, "stats-fields"));
  FLOE_ASSIGN_OR_RETURN(std::optional<int64_t> min_rows, OptionalLong(body, "min-rows-requested"));
  (void)min_rows;  // a hint the spec lets servers ignore
  // The spec: point-in-time (snapshot-id) or incremental (start + end), never both.
  if (q.start_snapshot_id.has_value() != end.has_value()) {
    return Status::InvalidArgument(
        "an incremental scan needs both start-snapshot-id and end-snapshot-id");
  }
  if (q.snapshot_id && end) {
    return Status::InvalidArgument("snapshot-id cannot be combined with start/end-snapshot-id");
  }
  if (end) q.snapshot_id = end;
  if (auto it = body.find("filter"); it != body.end() && !it->is_null()) {
    FLOE_ASSIGN_OR_RETURN(q.filter, iceberg::ExpressionFromJson(*it));
    q.normalized["filter"] = *it;
  }
  if (q.start_snapshot_id) q.normalized["start-snapshot-id"] = *q.start_snapshot_id;
  q.normalized["case-sensitive"] = q.case_sensitive;
  if (!q.select.empty()) q.normalized["select"] = q.select;
  if (!q.stats_fields.empty()) q.normalized["stats-fields"] = q.stats_fields;
  return q;
}

// What goes wrong while planning, as the REST error Java's reference server answers.
HttpResponse PlanningError(const Status& status) {
  switch (status.code()) {
    case StatusCode::kNotFound:  // an unknown snapshot: Java's IllegalArgumentException
    case StatusCode::kInvalidArgument:
      return RestError(400, "IllegalArgumentException", status.message());
    case StatusCode::kUnavailable:
      return RestError(503, "ServiceUnavailableException", status.message());
    default: return RestError(500, "ServerErrorException", status.message());
  }
}

// ---------------------------------------------------------------------------------------
// Plan tasks: kTokenPrefix + base64(payload JSON) + "." + CRC-32C of the payload (hex).
// The CRC catches damaged tokens; a token edited consistently can only name another slice
// of a table the caller may read anyway, and every field is checked again on use.

std::string EncodeToken(const Json& payload) {
  std::string text = payload.dump();
  return fmt::format("{}{}.{:08x}", kTokenPrefix, iceberg::Base64Encode(text),
                     Crc32c(0, text.data(), text.size()));
}

Result<Json> DecodeToken(std::string_view token) {
  auto bad = [] { return Status::NotFound("not a plan task of this server"); };
  if (!token.starts_with(kTokenPrefix)) return bad();
  token.remove_prefix(kTokenPrefix.size());
  size_t dot = token.rfind('.');
  if (dot == std::string_view::npos || token.size() - dot != 9) return bad();
  Result<std::string> text = iceberg::Base64Decode(token.substr(0, dot));
  if (!text.ok()) return bad();
  if (fmt::format("{:08x}", Crc32c(0, text->data(), text->size())) != token.substr(dot + 1)) {
    return bad();
  }
  // The token holds a request body one level down: the stored-document limit.
  Result<Json> payload = ParseJson(*text, kMaxStoredJsonDepth);
  if (!payload.ok() || !payload->is_object()) return bad();
  return payload;
}

// ---------------------------------------------------------------------------------------
// JSON of content files (Java ContentFileParser, 1.11 forms) and file scan tasks.

// A metrics map in the single-value JSON form of map<int, V>: {"keys":[...],"values":[...]},
// limited to the `keep` field ids. Counts are longs; bounds are binary (upper-case hex).
template <typename V, typename WriteValue>
void WriteMetricsMap(JsonWriter& w, std::string_view key, const std::map<int32_t, V>& map,
                     const std::set<int32_t>& keep, WriteValue write_value) {
  bool any =
      std::any_of(map.begin(), map.end(), [&](const auto& e) { return keep.contains(e.first); });
  if (!any) return;
  w.Key(key);
  w.BeginObject();
  w.Key("keys");
  w.BeginArray();
  for (const auto& [id, v] : map) {
    if (keep.contains(id)) w.Int(id);
  }
  w.EndArray();
  w.Key("values");
  w.BeginArray();
  for (const auto& [id, v] : map) {
    if (keep.contains(id)) write_value(v);
  }
  w.EndArray();
  w.EndObject();
}

std::string_view ContentName(iceberg::FileContent content) {
  switch (content) {
    case iceberg::FileContent::kData: return "data";
    case iceberg::FileContent::kPositionDeletes: return "position-deletes";
    case iceberg::FileContent::kEqualityDeletes: return "equality-deletes";
  }
  return "data";
}

// `stats` are the field ids whose column metrics are sent (the request's stats-fields).
void WriteContentFile(JsonWriter& w, const iceberg::DataFile& f, const std::set<int32_t>& stats) {
  w.BeginObject();
  w.Key("spec-id");
  w.Int(f.spec_id);
  w.Key("content");
  w.String(ContentName(f.content));
  w.Key("file-path");
  w.String(f.file_path);
  w.Key("file-format");
  std::string format(iceberg::FileFormatName(f.file_format));
  std::transform(format.begin(), format.end(), format.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  w.String(format);
  w.Key("partition");
  w.BeginArray();
  for (const iceberg::Literal& v : f.partition) w.Raw(v.ToJson());
  w.EndArray();
  w.Key("file-size-in-bytes");
  w.Int(f.file_size_in_bytes);
  w.Key("record-count");
  w.Int(f.record_count);
  if (!stats.empty()) {
    auto count = [&](int64_t v) { w.Int(v); };
    auto bound = [&](const std::string& v) { w.Raw(iceberg::Literal::Binary(v).ToJson()); };
    WriteMetricsMap(w, "column-sizes", f.column_sizes, stats, count);
    WriteMetricsMap(w, "value-counts", f.value_counts, stats, count);
    WriteMetricsMap(w, "null-value-counts", f.null_value_counts, stats, count);
    WriteMetricsMap(w, "nan-value-counts", f.nan_value_counts, stats, count);
    WriteMetricsMap(w, "lower-bounds", f.lower_bounds, stats, bound);
    WriteMetricsMap(w, "upper-bounds", f.upper_bounds, stats, bound);
  }
  if (f.key_metadata) {
    w.Key("key-metadata");
    w.Raw(iceberg::Literal::Binary(*f.key_metadata).ToJson());
  }
  if (f.split_offsets) {
    w.Key("split-offsets");
    w.BeginArray();
    for (int64_t v : *f.split_offsets) w.Int(v);
    w.EndArray();
  }
  if (f.equality_ids && f.content == iceberg::FileContent::kEqualityDeletes) {
    w.Key("equality-ids");
    w.BeginArray();
    for (int32_t v : *f.equality_ids) w.Int(v);
    w.EndArray();
  }
  if (f.sort_order_id) {
    w.Key("sort-order-id");
    w.Int(*f.sort_order_id);
  }
  if (f.first_row_id && f.content == iceberg::FileContent::kData) {
    w.Key("first-row-id");
    w.Int(*f.first_row_id);
  }
  if (f.content != iceberg::FileContent::kData) {
    if (f.referenced_data_file) {
      w.Key("referenced-data-file");
      w.String(*f.referenced_data_file);
    }
    if (f.content_offset) {
      w.Key("content-offset");
      w.Int(*f.content_offset);
    }
    if (f.content_size_in_bytes) {
      w.Key("content-size-in-bytes");
      w.Int(*f.content_size_in_bytes);
    }
  }
  w.EndObject();
}

// Writes "delete-files" and "file-scan-tasks" (the ScanTasks fields). Delete files are
// listed once per answer and referenced by index; the spec wants no delete-files without
// tasks that reference them.
void WriteTasks(JsonWriter& w, const iceberg::TableMetadata& md,
                const std::vector<iceberg::FileScanTask>& tasks,
                const iceberg::BoundExpressionPtr& filter, const std::set<int32_t>& stats) {
  std::unordered_map<const iceberg::ScanFile*, int64_t> index;
  std::vector<const iceberg::ScanFile*> deletes;
  for (const iceberg::FileScanTask& t : tasks) {
    for (const auto* list : {&t.position_deletes, &t.equality_deletes}) {
      for (const auto& d : *list) {
        if (index.emplace(d.get(), static_cast<int64_t>(deletes.size())).second) {
          deletes.push_back(d.get());
        }
      }
    }
  }
  if (!deletes.empty()) {
    w.Key("delete-files");
    w.BeginArray();
    for (const iceberg::ScanFile* d : deletes) WriteContentFile(w, d->file, {});
    w.EndArray();
  }
  w.Key("file-scan-tasks");
  w.BeginArray();
  for (const iceberg::FileScanTask& t : tasks) {
    w.BeginObject();
    w.Key("data-file");
    WriteContentFile(w, t.data->file, stats);
    if (!t.position_deletes.empty() || !t.equality_deletes.empty()) {
      w.Key("delete-file-references");
      w.BeginArray();
      for (const auto* list : {&t.position_deletes, &t.equality_deletes}) {
        for (const auto& d : *list) w.Int(index.at(d.get()));
      }
      w.EndArray();
    }
    // Java's client builds its ResidualEvaluator from this field: always send it.
    w.Key("residual-filter");
    const iceberg::PartitionSpec* spec = md.spec_by_id(t.data->file.spec_id);
    if (spec != nullptr) {
      WriteExpressionJson(*iceberg::Residual(filter, *spec, t.data->file.partition), w);
    } else {
      WriteExpressionJson(*filter, w);
    }
    w.EndObject();
  }
  w.EndArray();
}

// A loaded table and a scan over it as `q` asks.
struct Scan {
  std::unique_ptr<iceberg::TableOperations> ops;
  iceberg::TableMetadataPtr metadata;
  std::unique_ptr<iceberg::TableScan> scan;
  std::set<int32_t> stats;
};

Result<Scan> MakeScan(std::unique_ptr<iceberg::TableOperations> ops, iceberg::TableMetadataPtr md,
                      const Query& q, std::optional<std::pair<size_t, size_t>> range) {
  Scan out;
  out.ops = std::move(ops);
  out.metadata = std::move(md);
  iceberg::ScanOptions options;
  options.snapshot_id = q.snapshot_id;
  options.from_snapshot_id = q.start_snapshot_id;
  options.filter = q.filter;
  options.case_sensitive = q.case_sensitive;
  options.columns = q.select;
  options.keep_stats = !q.stats_fields.empty();
  options.manifest_range = range;
  FLOE_ASSIGN_OR_RETURN(out.scan,
                        iceberg::TableScan::Make(out.metadata, out.ops->io(), std::move(options)));
  for (const std::string& name : q.stats_fields) {
    const iceberg::NestedField* field =
        out.scan->scan_schema().FindFieldByName(name, q.case_sensitive);
    if (field == nullptr) return Status::InvalidArgument("stats field '{}' not found", name);
    out.stats.insert(field->id);
  }
  return out;
}

// Runs of consecutive data manifests holding about `per_task` files each, as [begin, end)
// positions in the manifest list; empty when the whole plan is small enough to answer
// inline. Manifests without counts count as `per_task` files (they may be big).
std::vector<std::pair<size_t, size_t>> SplitManifests(
    const std::vector<iceberg::ManifestFile>& manifests, const ScanPlanningOptions& options) {
  std::vector<std::pair<size_t, size_t>> ranges;
  int64_t total = 0;
  std::vector<std::pair<size_t, int64_t>> data;  // position, files
  for (size_t i = 0; i < manifests.size(); ++i) {
    const iceberg::ManifestFile& m = manifests[i];
    if (m.content != iceberg::ManifestContent::kData) continue;
    int64_t files = options.files_per_task;
    if (m.added_files_count && m.existing_files_count) {
      files = int64_t{*m.added_files_count} + *m.existing_files_count;
    }
    data.emplace_back(i, files);
    total += files;
  }
  if (total <= options.inline_files || data.empty()) return ranges;
  size_t begin = data.front().first;
  int64_t files = 0;
  for (size_t k = 0; k < data.size(); ++k) {
    if (files > 0 && files + data[k].second > options.files_per_task) {
      ranges.emplace_back(begin, data[k].first);
      begin = data[k].first;
      files = 0;
    }
    files += data[k].second;
  }
  ranges.emplace_back(begin, data.back().first + 1);
  return ranges;
}

// The thresholds for one table: table properties floe.scan-planning.inline-files and
// floe.scan-planning.files-per-task override the server's (non-numbers are ignored).
ScanPlanningOptions ForTable(ScanPlanningOptions options, const iceberg::TableMetadata& md) {
  auto read = [&](const char* key, int64_t* out, int64_t min) {
    auto it = md.properties.find(key);
    if (it == md.properties.end()) return;
    int64_t v = 0;
    auto [p, ec] = std::from_chars(it->second.data(), it->second.data() + it->second.size(), v);
    if (ec == std::errc() && p == it->second.data() + it->second.size() && v >= min) *out = v;
  };
  read("floe.scan-planning.inline-files", &options.inline_files, 0);
  read("floe.scan-planning.files-per-task", &options.files_per_task, 1);
  return options;
}

std::string TableKey(const std::string& catalog_name, const catalog::TableIdentifier& id) {
  return catalog_name + '\x1f' + id.ToString();
}

}  // namespace

ScanPlanner::ScanPlanner(ScanPlanningOptions options, std::function<int64_t()> now_ms)
    : options_(options), now_ms_(std::move(now_ms)), random_(std::random_device{}()) {}

std::string ScanPlanner::NewPlanId() {
  std::lock_guard lock(mu_);
  return fmt::format("floe-{:016x}{:016x}", random_(), random_());
}

HttpResponse ScanPlanner::Handle(catalog::Catalog& cat, const std::string& catalog_name,
                                 const catalog::TableIdentifier& id, const HttpRequest& request,
                                 const std::vector<std::string>& rest) {
  const std::string& method = request.method;
  const bool plan = rest.size() == 1 && rest[0] == "plan";
  const bool plan_id = rest.size() == 2 && rest[0] == "plan";
  const bool tasks = rest.size() == 1 && rest[0] == "tasks";
  if (!plan && !plan_id && !tasks) {
    return RestError(404, "NotFoundException", fmt::format("no route for {}", request.path));
  }
  if (((plan || tasks) && method != "POST") || (plan_id && method != "GET" && method != "DELETE")) {
    return RestError(405, "BadRequestException",
                     fmt::format("method {} is not allowed on {}", method, request.path));
  }
  const std::string table_key = TableKey(catalog_name, id);

  // The request body (or the stored request of a plan id / plan task).
  Json body;
  Json token;
  if (plan || tasks) {
    Result<Json> parsed = ParseJson(request.body);
    if (!parsed.ok()) {
      return RestError(400, "BadRequestException",
                       fmt::format("malformed JSON request body: {}", parsed.status().message()));
    }
    body = std::move(*parsed);
    if (!body.is_object()) {
      return RestError(400, "BadRequestException", "request body must be a JSON object");
    }
  }
  if (plan_id) {
    int64_t now = now_ms_();
    std::lock_guard lock(mu_);
    auto it = plans_.find(rest[1]);
    if (it != plans_.end() && it->second.expires_ms <= now) {
      plans_.erase(it);
      it = plans_.end();
    }
    if (it == plans_.end() || it->second.table_key != table_key) {
      return RestError(404, "NoSuchPlanIdException",
                       fmt::format("No plan with id {} for table {}", rest[1], id.ToString()));
    }
    if (method == "DELETE") {
      plans_.erase(it);
      return HttpResponse::NoContent();
    }
    body = Json::parse(it->second.request);
  }
  if (tasks) {
    auto task = body.find("plan-task");
    if (task == body.end() || !task->is_string()) {
      return RestError(400, "BadRequestException", "missing or non-string field 'plan-task'");
    }
    Result<Json> decoded = DecodeToken(task->get<std::string>());
    if (!decoded.ok()) return RestError(404, "NoSuchPlanTaskException", decoded.status().message());
    token = std::move(*decoded);
    auto req = token.find("request");
    if (req == token.end() || !req->is_object()) {
      return RestError(404, "NoSuchPlanTaskException", "not a plan task of this server");
    }
    body = *req;
  }
  Result<Query> query = QueryFromJson(body);
  if (!query.ok()) {
    if (tasks) return RestError(404, "NoSuchPlanTaskException", query.status().message());
    return RestError(400, "IllegalArgumentException", query.status().message());
  }

  auto ops = cat.LoadTable(id);
  if (!ops.ok()) {
    if (ops.status().code() == StatusCode::kNotFound) {
      return RestError(404, "NoSuchTableException",
                       fmt::format("Table does not exist: {}", id.ToString()));
    }
    return PlanningError(ops.status());
  }
  auto metadata = (*ops)->Refresh();
  if (!metadata.ok()) return PlanningError(metadata.status());
  const std::string uuid = (*metadata)->table_uuid.value_or("");

  std::optional<std::pair<size_t, size_t>> range;
  if (tasks) {
    auto table = token.find("table");
    auto r = token.find("range");
    if (table == token.end() || *table != uuid || r == token.end() || !r->is_array() ||
        r->size() != 2 || !(*r)[0].is_number_unsigned() || !(*r)[1].is_number_unsigned() ||
        !query->snapshot_id) {
      return RestError(404, "NoSuchPlanTaskException",
                       fmt::format("not a plan task of table {}", id.ToString()));
    }
    range.emplace((*r)[0].get<size_t>(), (*r)[1].get<size_t>());
  }

  auto scan = MakeScan(std::move(*ops), *metadata, *query, range);
  if (!scan.ok()) {
    if (tasks) return RestError(404, "NoSuchPlanTaskException", scan.status().message());
    return PlanningError(scan.status());
  }
  const iceberg::Snapshot* snapshot = scan->scan->snapshot();
  Json normalized = query->normalized;
  // The pinned snapshot. An incremental plan pins it as its end: plan tasks and plan ids are
  // parsed back by QueryFromJson, which wants start-snapshot-id with end-snapshot-id.
  if (snapshot != nullptr) {
    normalized[query->start_snapshot_id ? "end-snapshot-id" : "snapshot-id"] =
        snapshot->snapshot_id;
  }

  std::vector<std::pair<size_t, size_t>> ranges;
  if (!tasks && snapshot != nullptr) {
    auto list_file = scan->ops->io().OpenInput(snapshot->manifest_list);
    if (!list_file.ok()) return PlanningError(list_file.status());
    auto manifests = iceberg::ReadManifestList(**list_file);
    if (!manifests.ok()) return PlanningError(manifests.status());
    ranges = SplitManifests(*manifests, ForTable(options_, *scan->metadata));
  } else if (tasks && snapshot != nullptr) {
    if (range->first > range->second) {
      return RestError(404, "NoSuchPlanTaskException", "not a plan task of this server");
    }
  }

  std::vector<iceberg::FileScanTask> planned;
  if (ranges.empty()) {
    auto files = scan->scan->PlanFiles();
    if (!files.ok()) return PlanningError(files.status());
    planned = std::move(*files);
  }

  std::string out;
  JsonWriter w(&out);
  w.BeginObject();
  if (!tasks) {
    w.Key("status");
    w.String("completed");
    std::string new_id;
    if (plan) {
      new_id = NewPlanId();
      int64_t now = now_ms_();
      std::lock_guard lock(mu_);
      if (plans_.size() >= options_.max_plan_ids) {
        std::erase_if(plans_, [&](const auto& e) { return e.second.expires_ms <= now; });
      }
      if (plans_.size() < options_.max_plan_ids) {
        plans_[new_id] =
            KnownPlan{table_key, normalized.dump(), now + options_.plan_id_lifetime_ms};
      }
    }
    if (plan) {
      w.Key("plan-id");
      w.String(new_id);
    }
  }
  if (!ranges.empty()) {
    w.Key("plan-tasks");
    w.BeginArray();
    for (const auto& [begin, end] : ranges) {
      w.String(
          EncodeToken(Json{{"table", uuid}, {"request", normalized}, {"range", {begin, end}}}));
    }
    w.EndArray();
  } else {
    WriteTasks(w, *scan->metadata, planned, scan->scan->bound_filter(), scan->stats);
  }
  w.EndObject();
  return HttpResponse::Json(200, std::move(out));
}

}  // namespace floe::rest
