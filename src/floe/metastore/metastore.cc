#include "floe/metastore/metastore.h"

#include <algorithm>
#include <array>
#include <charconv>
#include <chrono>

#include <nlohmann/json.hpp>

#include "floe/base/json.h"
#include "floe/base/macros.h"

namespace floe::metastore {

namespace {

using catalog::SqlTransaction;
using catalog::SqlTransactionMode;

constexpr std::string_view kCreateVersionTableSql =
    "CREATE TABLE IF NOT EXISTS floe_schema_version ("
    "version INTEGER NOT NULL PRIMARY KEY, "
    "description VARCHAR(255) NOT NULL, "
    "applied_at_ms BIGINT NOT NULL)";
constexpr std::string_view kMaxVersionSql = "SELECT MAX(version) FROM floe_schema_version";
constexpr std::string_view kRecordVersionSql =
    "INSERT INTO floe_schema_version (version, description, applied_at_ms) VALUES (?, ?, ?)";

struct Migration {
  int version;
  std::string_view description;
  std::vector<std::string_view> statements;  // the same SQL on SQLite and PostgreSQL
};

// Append only: a released migration never changes; later changes are new versions.
const std::vector<Migration>& Migrations() {
  static const std::vector<Migration> kMigrations = {
      {1,
       "catalogs served by the server",
       {"CREATE TABLE IF NOT EXISTS floe_catalogs ("
        "name VARCHAR(255) NOT NULL PRIMARY KEY, "
        "catalog_kind VARCHAR(32) NOT NULL, "
        "uri VARCHAR(1000), "
        "warehouse VARCHAR(1000), "
        "properties TEXT NOT NULL, "
        "created_at_ms BIGINT NOT NULL)"}},
      {2,
       "self-optimizing state and history",
       {"CREATE TABLE IF NOT EXISTS floe_table_runtime ("
        "catalog_name VARCHAR(255) NOT NULL, "
        "table_namespace VARCHAR(255) NOT NULL, "
        "table_name VARCHAR(255) NOT NULL, "
        "status VARCHAR(32) NOT NULL, "
        "status_reason TEXT, "
        "last_optimized_snapshot_id BIGINT, "
        "last_minor_ms BIGINT NOT NULL, "
        "last_major_ms BIGINT NOT NULL, "
        "last_full_ms BIGINT NOT NULL, "
        "last_plan_ms BIGINT NOT NULL, "
        "updated_at_ms BIGINT NOT NULL, "
        "PRIMARY KEY (catalog_name, table_namespace, table_name))",
        "CREATE TABLE IF NOT EXISTS floe_optimizing_processes ("
        "process_id BIGINT NOT NULL PRIMARY KEY, "
        "catalog_name VARCHAR(255) NOT NULL, "
        "table_namespace VARCHAR(255) NOT NULL, "
        "table_name VARCHAR(255) NOT NULL, "
        "optimizing_type VARCHAR(16) NOT NULL, "
        "status VARCHAR(16) NOT NULL, "
        "planned_snapshot_id BIGINT, "
        "committed_snapshot_id BIGINT, "
        "plan_time_ms BIGINT NOT NULL, "
        "end_time_ms BIGINT NOT NULL, "
        "task_count BIGINT NOT NULL, "
        "rewritten_data_files BIGINT NOT NULL, "
        "converted_data_files BIGINT NOT NULL, "
        "removed_delete_files BIGINT NOT NULL, "
        "new_data_files BIGINT NOT NULL, "
        "new_delete_files BIGINT NOT NULL, "
        "rows_rewritten BIGINT NOT NULL, "
        "bytes_written BIGINT NOT NULL, "
        "reason TEXT, "
        "error TEXT)",
        "CREATE INDEX IF NOT EXISTS floe_optimizing_processes_table ON floe_optimizing_processes "
        "(catalog_name, table_namespace, table_name, process_id)"}},
      {3,
       "optimizer groups, optimizing tasks, paused tables, maintenance runs",
       {"CREATE TABLE IF NOT EXISTS floe_optimizer_groups ("
        "name VARCHAR(255) NOT NULL PRIMARY KEY, "
        "scheduling_policy VARCHAR(32) NOT NULL, "
        "properties TEXT NOT NULL, "
        "created_at_ms BIGINT NOT NULL)",
        "CREATE TABLE IF NOT EXISTS floe_optimizing_tasks ("
        "process_id BIGINT NOT NULL, "
        "task_id BIGINT NOT NULL, "
        "status VARCHAR(16) NOT NULL, "
        "attempt BIGINT NOT NULL, "
        "retries BIGINT NOT NULL, "
        "optimizer VARCHAR(255), "
        "partition_key TEXT, "
        "input_files BIGINT NOT NULL, "
        "input_bytes BIGINT NOT NULL, "
        "output_files BIGINT NOT NULL, "
        "output_bytes BIGINT NOT NULL, "
        "rows_read BIGINT NOT NULL, "
        "start_ms BIGINT NOT NULL, "
        "end_ms BIGINT NOT NULL, "
        "error TEXT, "
        "PRIMARY KEY (process_id, task_id))",
        "ALTER TABLE floe_table_runtime ADD COLUMN paused INTEGER NOT NULL DEFAULT 0",
        "ALTER TABLE floe_table_runtime ADD COLUMN optimizer_group VARCHAR(255)",
        "CREATE TABLE IF NOT EXISTS floe_maintenance_runs ("
        "run_id BIGINT NOT NULL PRIMARY KEY, "
        "catalog_name VARCHAR(255) NOT NULL, "
        "table_namespace VARCHAR(255) NOT NULL, "
        "table_name VARCHAR(255) NOT NULL, "
        "kind VARCHAR(64) NOT NULL, "
        "status VARCHAR(16) NOT NULL, "
        "start_ms BIGINT NOT NULL, "
        "end_ms BIGINT NOT NULL, "
        "expired_snapshots BIGINT NOT NULL, "
        "deleted_files BIGINT NOT NULL, "
        "error TEXT)",
        "CREATE INDEX IF NOT EXISTS floe_maintenance_runs_table ON floe_maintenance_runs "
        "(catalog_name, table_namespace, table_name, run_id)"}},
      {4,
       "overview history samples",
       {"CREATE TABLE IF NOT EXISTS floe_overview_history ("
        "sample_ms BIGINT NOT NULL PRIMARY KEY, "
        "interval_ms BIGINT NOT NULL, "
        "tables BIGINT NOT NULL, "
        "data_files BIGINT NOT NULL, "
        "delete_files BIGINT NOT NULL, "
        "records BIGINT NOT NULL, "
        "data_bytes BIGINT NOT NULL, "
        "optimizer_threads BIGINT NOT NULL, "
        "tasks_running BIGINT NOT NULL, "
        "tasks_queued BIGINT NOT NULL, "
        "bytes_optimized BIGINT NOT NULL, "
        "rss_bytes BIGINT NOT NULL, "
        "cpu_ms BIGINT NOT NULL, "
        "records_produced BIGINT NOT NULL, "
        "rows_ingested BIGINT NOT NULL)"}},
      // Several servers on one metastore each keep their own series: the table is rebuilt
      // with (server_id, sample_ms) as its key; the samples recorded before belong to the
      // server id '' (shown with the others in the merged series).
      {5,
       "overview history per server",
       {"CREATE TABLE floe_overview_history_v5 ("
        "server_id VARCHAR(255) NOT NULL, "
        "sample_ms BIGINT NOT NULL, "
        "interval_ms BIGINT NOT NULL, "
        "tables BIGINT NOT NULL, "
        "data_files BIGINT NOT NULL, "
        "delete_files BIGINT NOT NULL, "
        "records BIGINT NOT NULL, "
        "data_bytes BIGINT NOT NULL, "
        "optimizer_threads BIGINT NOT NULL, "
        "tasks_running BIGINT NOT NULL, "
        "tasks_queued BIGINT NOT NULL, "
        "bytes_optimized BIGINT NOT NULL, "
        "rss_bytes BIGINT NOT NULL, "
        "cpu_ms BIGINT NOT NULL, "
        "records_produced BIGINT NOT NULL, "
        "rows_ingested BIGINT NOT NULL, "
        "PRIMARY KEY (server_id, sample_ms))",
        "INSERT INTO floe_overview_history_v5 (server_id, sample_ms, interval_ms, tables, "
        "data_files, delete_files, records, data_bytes, optimizer_threads, tasks_running, "
        "tasks_queued, bytes_optimized, rss_bytes, cpu_ms, records_produced, rows_ingested) "
        "SELECT '', sample_ms, interval_ms, tables, data_files, delete_files, records, "
        "data_bytes, optimizer_threads, tasks_running, tasks_queued, bytes_optimized, "
        "rss_bytes, cpu_ms, records_produced, rows_ingested FROM floe_overview_history",
        "DROP TABLE floe_overview_history",
        "ALTER TABLE floe_overview_history_v5 RENAME TO floe_overview_history",
        "CREATE INDEX IF NOT EXISTS floe_overview_history_time ON floe_overview_history "
        "(sample_ms)"}},
  };
  return kMigrations;
}

constexpr std::string_view kListCatalogsSql =
    "SELECT name, catalog_kind, uri, warehouse, properties, created_at_ms FROM floe_catalogs "
    "ORDER BY name";
constexpr std::string_view kLoadCatalogSql =
    "SELECT name, catalog_kind, uri, warehouse, properties, created_at_ms FROM floe_catalogs "
    "WHERE name = ?";
constexpr std::string_view kInsertCatalogSql =
    "INSERT INTO floe_catalogs (name, catalog_kind, uri, warehouse, properties, created_at_ms) "
    "VALUES (?, ?, ?, ?, ?, ?)";
constexpr std::string_view kDeleteCatalogSql = "DELETE FROM floe_catalogs WHERE name = ?";
constexpr std::string_view kUpdateCatalogSql =
    "UPDATE floe_catalogs SET catalog_kind = ?, uri = ?, warehouse = ?, properties = ? "
    "WHERE name = ?";

constexpr std::string_view kListRuntimesSql =
    "SELECT catalog_name, table_namespace, table_name, status, status_reason, "
    "last_optimized_snapshot_id, last_minor_ms, last_major_ms, last_full_ms, last_plan_ms, "
    "updated_at_ms, paused, optimizer_group FROM floe_table_runtime "
    "ORDER BY catalog_name, table_namespace, table_name";
// SQLite (3.24+) and PostgreSQL both take this upsert.
constexpr std::string_view kSaveRuntimeSql =
    "INSERT INTO floe_table_runtime (catalog_name, table_namespace, table_name, status, "
    "status_reason, last_optimized_snapshot_id, last_minor_ms, last_major_ms, last_full_ms, "
    "last_plan_ms, updated_at_ms, paused, optimizer_group) "
    "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) "
    "ON CONFLICT (catalog_name, table_namespace, table_name) DO UPDATE SET "
    "status = excluded.status, status_reason = excluded.status_reason, "
    "last_optimized_snapshot_id = excluded.last_optimized_snapshot_id, "
    "last_minor_ms = excluded.last_minor_ms, last_major_ms = excluded.last_major_ms, "
    "last_full_ms = excluded.last_full_ms, last_plan_ms = excluded.last_plan_ms, "
    "updated_at_ms = excluded.updated_at_ms, paused = excluded.paused, "
    "optimizer_group = excluded.optimizer_group";
constexpr std::string_view kTaskColumns =
    "process_id, task_id, status, attempt, retries, optimizer, partition_key, input_files, "
    "input_bytes, output_files, output_bytes, rows_read, start_ms, end_ms, error";
constexpr std::string_view kRunColumns =
    "run_id, catalog_name, table_namespace, table_name, kind, status, start_ms, end_ms, "
    "expired_snapshots, deleted_files, error";
constexpr std::string_view kProcessColumns =
    "process_id, catalog_name, table_namespace, table_name, optimizing_type, status, "
    "planned_snapshot_id, committed_snapshot_id, plan_time_ms, end_time_ms, task_count, "
    "rewritten_data_files, converted_data_files, removed_delete_files, new_data_files, "
    "new_delete_files, rows_rewritten, bytes_written, reason, error";

int64_t NowMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

Result<int64_t> ParseInt(const std::optional<std::string>& text, std::string_view what) {
  if (!text) return int64_t{0};
  int64_t value = 0;
  auto [ptr, ec] = std::from_chars(text->data(), text->data() + text->size(), value);
  if (ec != std::errc() || ptr != text->data() + text->size()) {
    return Status::Corrupt("metastore: {} is not an integer: '{}'", what, *text);
  }
  return value;
}

Result<CatalogRecord> RecordFromRow(const catalog::SqlRow& row) {
  if (row.size() != 6 || !row[0] || !row[1]) return Status::Corrupt("metastore: bad catalog row");
  CatalogRecord record;
  record.name = *row[0];
  FLOE_ASSIGN_OR_RETURN(record.kind, ParseCatalogKind(*row[1]));
  record.uri = row[2].value_or("");
  record.warehouse = row[3].value_or("");
  nlohmann::json props = ParseJson(row[4].value_or("{}")).value_or(nlohmann::json());
  if (!props.is_object()) {
    return Status::Corrupt("metastore: properties of catalog {} are not a JSON object",
                           record.name);
  }
  for (const auto& [k, v] : props.items()) {
    if (v.is_string()) record.properties[k] = v.get<std::string>();
  }
  FLOE_ASSIGN_OR_RETURN(record.created_at_ms, ParseInt(row[5], "created_at_ms"));
  return record;
}

catalog::SqlParam Nullable(const std::optional<int64_t>& v) {
  if (v) return catalog::SqlParam(*v);
  return catalog::SqlParam(std::optional<std::string>());
}

Result<std::optional<int64_t>> ParseNullable(const std::optional<std::string>& text,
                                             std::string_view what) {
  if (!text) return std::optional<int64_t>();
  FLOE_ASSIGN_OR_RETURN(int64_t v, ParseInt(text, what));
  return std::optional<int64_t>(v);
}

Status CheckName(std::string_view what, std::string_view name) {
  if (name.empty() || name.size() > 255) {
    return Status::InvalidArgument("{} name must have 1 to 255 characters", what);
  }
  for (char c : name) {
    bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
              c == '_' || c == '-' || c == '.';
    if (!ok) {
      return Status::InvalidArgument("{} name '{}' may only hold letters, digits, '_', '-' and '.'",
                                     what, name);
    }
  }
  return Status::OK();
}

Status CheckCatalogName(std::string_view name) {
  if (name.empty() || name.size() > 255) {
    return Status::InvalidArgument("catalog name must have 1 to 255 characters");
  }
  for (char c : name) {
    bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
              c == '_' || c == '-' || c == '.';
    if (!ok) {
      return Status::InvalidArgument(
          "catalog name '{}' may only hold letters, digits, '_', '-' and '.'", name);
    }
  }
  // Unprefixed REST routes start with these words (rest_catalog_service.cc).
  for (std::string_view reserved :
       {"namespaces", "tables", "transactions", "views", "config", "oauth"}) {
    if (name == reserved) return Status::InvalidArgument("catalog name '{}' is reserved", name);
  }
  return Status::OK();
}

}  // namespace

std::string_view CatalogKindName(CatalogKind kind) {
  switch (kind) {
    case CatalogKind::kInternal: return "internal";
    case CatalogKind::kSql: return "sql";
    case CatalogKind::kFilesystem: return "filesystem";
    case CatalogKind::kRest: return "rest";
  }
  return "internal";
}

Result<CatalogKind> ParseCatalogKind(std::string_view name) {
  if (name == "internal") return CatalogKind::kInternal;
  if (name == "sql") return CatalogKind::kSql;
  if (name == "filesystem") return CatalogKind::kFilesystem;
  if (name == "rest") return CatalogKind::kRest;
  return Status::InvalidArgument("unknown catalog kind '{}' (internal, sql, filesystem, rest)",
                                 name);
}

Result<std::unique_ptr<Metastore>> Metastore::Open(std::string_view uri) {
  FLOE_ASSIGN_OR_RETURN(auto conn, catalog::SqlConnection::Open(uri));
  std::unique_ptr<Metastore> store(new Metastore(std::move(conn), std::string(uri)));
  FLOE_RETURN_IF_ERROR(store->Migrate());
  return store;
}

Status Metastore::Migrate() {
  Status status;
  // Servers starting together race on the DDL and the version rows: the loser sees a
  // unique violation or a serialization failure and simply looks again.
  for (int attempt = 0; attempt < 5; ++attempt) {
    status = [&]() -> Status {
      FLOE_ASSIGN_OR_RETURN(auto txn,
                            SqlTransaction::Begin(conn_.get(), SqlTransactionMode::kWrite));
      FLOE_RETURN_IF_ERROR(conn_->Execute(kCreateVersionTableSql));
      FLOE_ASSIGN_OR_RETURN(auto max, conn_->Execute(kMaxVersionSql));
      FLOE_ASSIGN_OR_RETURN(int64_t current,
                            ParseInt(max.rows.empty() ? std::nullopt : max.rows[0][0], "version"));
      if (current > kSchemaVersion) {
        return Status::FailedPrecondition(
            "the metastore has schema version {}; this floe knows up to {}: upgrade floe", current,
            kSchemaVersion);
      }
      for (const Migration& m : Migrations()) {
        if (m.version <= current) continue;
        for (std::string_view sql : m.statements) FLOE_RETURN_IF_ERROR(conn_->Execute(sql));
        FLOE_RETURN_IF_ERROR(
            conn_->Execute(kRecordVersionSql, {int64_t{m.version}, m.description, NowMs()}));
      }
      return txn.Commit();
    }();
    if (status.ok()) return status;
    if (status.code() != StatusCode::kAlreadyExists && status.code() != StatusCode::kUnavailable) {
      return status;
    }
  }
  return status;
}

Result<int> Metastore::SchemaVersion() {
  FLOE_ASSIGN_OR_RETURN(auto max, conn_->Execute(kMaxVersionSql));
  FLOE_ASSIGN_OR_RETURN(int64_t v,
                        ParseInt(max.rows.empty() ? std::nullopt : max.rows[0][0], "version"));
  return static_cast<int>(v);
}

Result<std::vector<CatalogRecord>> Metastore::ListCatalogs() {
  FLOE_ASSIGN_OR_RETURN(auto result, conn_->Execute(kListCatalogsSql));
  std::vector<CatalogRecord> out;
  for (const auto& row : result.rows) {
    FLOE_ASSIGN_OR_RETURN(CatalogRecord record, RecordFromRow(row));
    out.push_back(std::move(record));
  }
  return out;
}

Result<CatalogRecord> Metastore::LoadCatalog(std::string_view name) {
  FLOE_ASSIGN_OR_RETURN(auto result, conn_->Execute(kLoadCatalogSql, {name}));
  if (result.rows.empty()) return Status::NotFound("no catalog named '{}'", name);
  return RecordFromRow(result.rows[0]);
}

Status Metastore::CreateCatalog(const CatalogRecord& record) {
  FLOE_RETURN_IF_ERROR(CheckCatalogName(record.name));
  nlohmann::json props = nlohmann::json::object();
  for (const auto& [k, v] : record.properties) props[k] = v;
  int64_t created = record.created_at_ms > 0 ? record.created_at_ms : NowMs();
  std::optional<std::string> uri;
  if (!record.uri.empty()) uri = record.uri;
  std::optional<std::string> warehouse;
  if (!record.warehouse.empty()) warehouse = record.warehouse;
  auto inserted = conn_->Execute(kInsertCatalogSql, {record.name, CatalogKindName(record.kind), uri,
                                                     warehouse, props.dump(), created});
  if (!inserted.ok()) {
    if (inserted.status().code() == StatusCode::kAlreadyExists) {
      return Status::AlreadyExists("catalog '{}' already exists", record.name);
    }
    return inserted.status();
  }
  return Status::OK();
}

Status Metastore::UpdateCatalog(const CatalogRecord& record) {
  nlohmann::json props = nlohmann::json::object();
  for (const auto& [k, v] : record.properties) props[k] = v;
  std::optional<std::string> uri;
  if (!record.uri.empty()) uri = record.uri;
  std::optional<std::string> warehouse;
  if (!record.warehouse.empty()) warehouse = record.warehouse;
  FLOE_ASSIGN_OR_RETURN(
      auto result, conn_->Execute(kUpdateCatalogSql, {CatalogKindName(record.kind), uri, warehouse,
                                                      props.dump(), record.name}));
  if (result.affected_rows == 0) return Status::NotFound("no catalog named '{}'", record.name);
  return Status::OK();
}

Status Metastore::DropCatalog(std::string_view name) {
  FLOE_ASSIGN_OR_RETURN(auto result, conn_->Execute(kDeleteCatalogSql, {name}));
  if (result.affected_rows == 0) return Status::NotFound("no catalog named '{}'", name);
  return Status::OK();
}

Result<std::vector<TableRuntimeRecord>> Metastore::ListTableRuntimes() {
  FLOE_ASSIGN_OR_RETURN(auto result, conn_->Execute(kListRuntimesSql));
  std::vector<TableRuntimeRecord> out;
  for (const auto& row : result.rows) {
    if (row.size() != 13 || !row[0] || !row[1] || !row[2] || !row[3]) {
      return Status::Corrupt("metastore: bad floe_table_runtime row");
    }
    TableRuntimeRecord r;
    r.catalog = *row[0];
    r.table_namespace = *row[1];
    r.table_name = *row[2];
    r.status = *row[3];
    r.status_reason = row[4].value_or("");
    FLOE_ASSIGN_OR_RETURN(r.last_optimized_snapshot_id,
                          ParseNullable(row[5], "last_optimized_snapshot_id"));
    FLOE_ASSIGN_OR_RETURN(r.last_minor_ms, ParseInt(row[6], "last_minor_ms"));
    FLOE_ASSIGN_OR_RETURN(r.last_major_ms, ParseInt(row[7], "last_major_ms"));
    FLOE_ASSIGN_OR_RETURN(r.last_full_ms, ParseInt(row[8], "last_full_ms"));
    FLOE_ASSIGN_OR_RETURN(r.last_plan_ms, ParseInt(row[9], "last_plan_ms"));
    FLOE_ASSIGN_OR_RETURN(r.updated_at_ms, ParseInt(row[10], "updated_at_ms"));
    FLOE_ASSIGN_OR_RETURN(int64_t paused, ParseInt(row[11], "paused"));
    r.paused = paused != 0;
    r.optimizer_group = row[12].value_or("");
    out.push_back(std::move(r));
  }
  return out;
}

Status Metastore::SaveTableRuntime(const TableRuntimeRecord& r) {
  std::optional<std::string> reason;
  if (!r.status_reason.empty()) reason = r.status_reason;
  int64_t updated = r.updated_at_ms > 0 ? r.updated_at_ms : NowMs();
  return conn_
      ->Execute(kSaveRuntimeSql,
                {r.catalog, r.table_namespace, r.table_name, r.status, reason,
                 Nullable(r.last_optimized_snapshot_id), r.last_minor_ms, r.last_major_ms,
                 r.last_full_ms, r.last_plan_ms, updated, int64_t{r.paused ? 1 : 0},
                 r.optimizer_group.empty() ? std::optional<std::string>()
                                           : std::optional<std::string>(r.optimizer_group)})
      .status();
}

Status Metastore::DeleteTableRuntime(std::string_view catalog, std::string_view table_namespace,
                                     std::string_view table_name) {
  return conn_
      ->Execute(
          "DELETE FROM floe_table_runtime WHERE catalog_name = ? AND table_namespace = ? AND "
          "table_name = ?",
          {std::string(catalog), std::string(table_namespace), std::string(table_name)})
      .status();
}

Status Metastore::SaveProcess(const OptimizingProcessRecord& r) {
  std::optional<std::string> reason;
  if (!r.reason.empty()) reason = r.reason;
  std::optional<std::string> error;
  if (!r.error.empty()) error = r.error;
  FLOE_ASSIGN_OR_RETURN(auto txn, SqlTransaction::Begin(conn_.get(), SqlTransactionMode::kWrite));
  FLOE_RETURN_IF_ERROR(
      conn_->Execute("DELETE FROM floe_optimizing_processes WHERE process_id = ?", {r.process_id})
          .status());
  FLOE_RETURN_IF_ERROR(
      conn_
          ->Execute(fmt::format("INSERT INTO floe_optimizing_processes ({}) VALUES "
                                "(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                                kProcessColumns),
                    {r.process_id,
                     r.catalog,
                     r.table_namespace,
                     r.table_name,
                     r.optimizing_type,
                     r.status,
                     Nullable(r.planned_snapshot_id),
                     Nullable(r.committed_snapshot_id),
                     r.plan_time_ms,
                     r.end_time_ms,
                     r.task_count,
                     r.rewritten_data_files,
                     r.converted_data_files,
                     r.removed_delete_files,
                     r.new_data_files,
                     r.new_delete_files,
                     r.rows_rewritten,
                     r.bytes_written,
                     reason,
                     error})
          .status());
  return txn.Commit();
}

Result<std::vector<OptimizingProcessRecord>> Metastore::ListProcesses(
    std::string_view catalog, std::string_view table_namespace, std::string_view table_name,
    int64_t limit) {
  FLOE_ASSIGN_OR_RETURN(
      auto result,
      conn_->Execute(fmt::format("SELECT {} FROM floe_optimizing_processes WHERE catalog_name = ? "
                                 "AND table_namespace = ? AND table_name = ? "
                                 "ORDER BY process_id DESC LIMIT ?",
                                 kProcessColumns),
                     {catalog, table_namespace, table_name, limit}));
  std::vector<OptimizingProcessRecord> out;
  for (const auto& row : result.rows) {
    if (row.size() != 20 || !row[0] || !row[1] || !row[2] || !row[3] || !row[4] || !row[5]) {
      return Status::Corrupt("metastore: bad floe_optimizing_processes row");
    }
    OptimizingProcessRecord r;
    FLOE_ASSIGN_OR_RETURN(r.process_id, ParseInt(row[0], "process_id"));
    r.catalog = *row[1];
    r.table_namespace = *row[2];
    r.table_name = *row[3];
    r.optimizing_type = *row[4];
    r.status = *row[5];
    FLOE_ASSIGN_OR_RETURN(r.planned_snapshot_id, ParseNullable(row[6], "planned_snapshot_id"));
    FLOE_ASSIGN_OR_RETURN(r.committed_snapshot_id, ParseNullable(row[7], "committed_snapshot_id"));
    int64_t* numbers[] = {&r.plan_time_ms,         &r.end_time_ms,          &r.task_count,
                          &r.rewritten_data_files, &r.converted_data_files, &r.removed_delete_files,
                          &r.new_data_files,       &r.new_delete_files,     &r.rows_rewritten,
                          &r.bytes_written};
    for (size_t i = 0; i < std::size(numbers); ++i) {
      FLOE_ASSIGN_OR_RETURN(*numbers[i], ParseInt(row[8 + i], "process figure"));
    }
    r.reason = row[18].value_or("");
    r.error = row[19].value_or("");
    out.push_back(std::move(r));
  }
  return out;
}

Result<std::vector<OptimizerGroupRecord>> Metastore::ListGroups() {
  FLOE_ASSIGN_OR_RETURN(auto result,
                        conn_->Execute("SELECT name, scheduling_policy, properties, created_at_ms "
                                       "FROM floe_optimizer_groups ORDER BY name"));
  std::vector<OptimizerGroupRecord> out;
  for (const auto& row : result.rows) {
    if (row.size() != 4 || !row[0] || !row[1]) return Status::Corrupt("metastore: bad group row");
    OptimizerGroupRecord r;
    r.name = *row[0];
    r.scheduling_policy = *row[1];
    nlohmann::json props = ParseJson(row[2].value_or("{}")).value_or(nlohmann::json());
    if (!props.is_object()) {
      return Status::Corrupt("metastore: properties of group {} are not a JSON object", r.name);
    }
    for (const auto& [k, v] : props.items()) {
      if (v.is_string()) r.properties[k] = v.get<std::string>();
    }
    FLOE_ASSIGN_OR_RETURN(r.created_at_ms, ParseInt(row[3], "created_at_ms"));
    out.push_back(std::move(r));
  }
  return out;
}

Status Metastore::CreateGroup(const OptimizerGroupRecord& record) {
  FLOE_RETURN_IF_ERROR(CheckName("optimizer group", record.name));
  if (record.scheduling_policy != "quota" && record.scheduling_policy != "balanced") {
    return Status::InvalidArgument("scheduling-policy must be quota or balanced, not '{}'",
                                   record.scheduling_policy);
  }
  nlohmann::json props = nlohmann::json::object();
  for (const auto& [k, v] : record.properties) props[k] = v;
  auto inserted = conn_->Execute(
      "INSERT INTO floe_optimizer_groups (name, scheduling_policy, properties, created_at_ms) "
      "VALUES (?, ?, ?, ?)",
      {record.name, record.scheduling_policy, props.dump(),
       record.created_at_ms > 0 ? record.created_at_ms : NowMs()});
  if (!inserted.ok()) {
    if (inserted.status().code() == StatusCode::kAlreadyExists) {
      return Status::AlreadyExists("optimizer group '{}' already exists", record.name);
    }
    return inserted.status();
  }
  return Status::OK();
}

Status Metastore::DropGroup(std::string_view name) {
  FLOE_ASSIGN_OR_RETURN(auto result,
                        conn_->Execute("DELETE FROM floe_optimizer_groups WHERE name = ?", {name}));
  if (result.affected_rows == 0) return Status::NotFound("no optimizer group named '{}'", name);
  return Status::OK();
}

namespace {

std::optional<std::string> NonEmpty(const std::string& s) {
  if (s.empty()) return std::nullopt;
  return s;
}

}  // namespace

Status Metastore::SaveTask(const OptimizingTaskRecord& r) {
  FLOE_ASSIGN_OR_RETURN(auto txn, SqlTransaction::Begin(conn_.get(), SqlTransactionMode::kWrite));
  FLOE_RETURN_IF_ERROR(
      conn_
          ->Execute("DELETE FROM floe_optimizing_tasks WHERE process_id = ? AND task_id = ?",
                    {r.process_id, r.task_id})
          .status());
  FLOE_RETURN_IF_ERROR(
      conn_
          ->Execute(fmt::format("INSERT INTO floe_optimizing_tasks ({}) VALUES "
                                "(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                                kTaskColumns),
                    {r.process_id, r.task_id, r.status, r.attempt, r.retries, NonEmpty(r.optimizer),
                     NonEmpty(r.partition_key), r.input_files, r.input_bytes, r.output_files,
                     r.output_bytes, r.rows_read, r.start_ms, r.end_ms, NonEmpty(r.error)})
          .status());
  return txn.Commit();
}

Result<std::vector<OptimizingTaskRecord>> Metastore::ListTasks(int64_t process_id) {
  FLOE_ASSIGN_OR_RETURN(
      auto result,
      conn_->Execute(fmt::format("SELECT {} FROM floe_optimizing_tasks WHERE process_id = ? "
                                 "ORDER BY task_id",
                                 kTaskColumns),
                     {process_id}));
  std::vector<OptimizingTaskRecord> out;
  for (const auto& row : result.rows) {
    if (row.size() != 15 || !row[2]) return Status::Corrupt("metastore: bad task row");
    OptimizingTaskRecord r;
    FLOE_ASSIGN_OR_RETURN(r.process_id, ParseInt(row[0], "process_id"));
    FLOE_ASSIGN_OR_RETURN(r.task_id, ParseInt(row[1], "task_id"));
    r.status = *row[2];
    FLOE_ASSIGN_OR_RETURN(r.attempt, ParseInt(row[3], "attempt"));
    FLOE_ASSIGN_OR_RETURN(r.retries, ParseInt(row[4], "retries"));
    r.optimizer = row[5].value_or("");
    r.partition_key = row[6].value_or("");
    int64_t* numbers[] = {&r.input_files, &r.input_bytes, &r.output_files, &r.output_bytes,
                          &r.rows_read,   &r.start_ms,    &r.end_ms};
    for (size_t i = 0; i < std::size(numbers); ++i) {
      FLOE_ASSIGN_OR_RETURN(*numbers[i], ParseInt(row[7 + i], "task figure"));
    }
    r.error = row[14].value_or("");
    out.push_back(std::move(r));
  }
  return out;
}

namespace {

constexpr std::string_view kHistoryColumns =
    "sample_ms, interval_ms, tables, data_files, delete_files, records, data_bytes, "
    "optimizer_threads, tasks_running, tasks_queued, bytes_optimized, rss_bytes, cpu_ms, "
    "records_produced, rows_ingested";

// The sample's fields in kHistoryColumns order.
std::array<int64_t HistorySample::*, 15> HistoryFields() {
  return {&HistorySample::sample_ms,
          &HistorySample::interval_ms,
          &HistorySample::tables,
          &HistorySample::data_files,
          &HistorySample::delete_files,
          &HistorySample::records,
          &HistorySample::data_bytes,
          &HistorySample::optimizer_threads,
          &HistorySample::tasks_running,
          &HistorySample::tasks_queued,
          &HistorySample::bytes_optimized_during,
          &HistorySample::rss_bytes,
          &HistorySample::cpu_ms_during,
          &HistorySample::records_produced_during,
          &HistorySample::rows_ingested_during};
}

}  // namespace

Status Metastore::SaveHistorySample(const HistorySample& sample) {
  std::vector<catalog::SqlParam> params;
  params.emplace_back(sample.server_id);
  for (auto field : HistoryFields()) params.emplace_back(sample.*field);
  // Delete then insert: the same statements on SQLite and PostgreSQL.
  FLOE_ASSIGN_OR_RETURN(auto tx, SqlTransaction::Begin(conn_.get(), SqlTransactionMode::kWrite));
  FLOE_RETURN_IF_ERROR(
      conn_
          ->Execute("DELETE FROM floe_overview_history WHERE server_id = ? AND sample_ms = ?",
                    {sample.server_id, sample.sample_ms})
          .status());
  FLOE_RETURN_IF_ERROR(
      conn_
          ->Execute(fmt::format("INSERT INTO floe_overview_history (server_id, {}) VALUES "
                                "(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                                kHistoryColumns),
                    params)
          .status());
  return tx.Commit();
}

Result<std::vector<HistorySample>> Metastore::ListHistorySamples(
    int64_t from_ms, int64_t to_ms, int64_t limit, const std::optional<std::string>& server_id) {
  std::vector<catalog::SqlParam> params = {from_ms, to_ms};
  if (server_id) params.emplace_back(*server_id);
  params.emplace_back(limit);
  FLOE_ASSIGN_OR_RETURN(
      auto result,
      conn_->Execute(fmt::format("SELECT server_id, {} FROM floe_overview_history "
                                 "WHERE sample_ms >= ? AND sample_ms <= ?{} "
                                 "ORDER BY sample_ms, server_id LIMIT ?",
                                 kHistoryColumns, server_id ? " AND server_id = ?" : ""),
                     params));
  const auto fields = HistoryFields();
  std::vector<HistorySample> out;
  out.reserve(result.rows.size());
  for (const auto& row : result.rows) {
    if (row.size() != fields.size() + 1 || !row[0] || !row[1]) {
      return Status::Corrupt("metastore: bad floe_overview_history row");
    }
    HistorySample s;
    s.server_id = *row[0];
    for (size_t i = 0; i < fields.size(); ++i) {
      FLOE_ASSIGN_OR_RETURN(s.*fields[i], ParseInt(row[i + 1], "floe_overview_history value"));
    }
    out.push_back(std::move(s));
  }
  return out;
}

Status Metastore::TrimHistory(const std::string& server_id, int64_t before_ms, int64_t max_rows) {
  FLOE_RETURN_IF_ERROR(
      conn_->Execute("DELETE FROM floe_overview_history WHERE sample_ms < ?", {before_ms})
          .status());
  FLOE_ASSIGN_OR_RETURN(
      auto oldest_kept,
      conn_->Execute("SELECT sample_ms FROM floe_overview_history WHERE server_id = ? "
                     "ORDER BY sample_ms DESC LIMIT 1 OFFSET ?",
                     {server_id, std::max<int64_t>(0, max_rows - 1)}));
  if (oldest_kept.rows.empty() || oldest_kept.rows[0].empty()) return Status::OK();
  FLOE_ASSIGN_OR_RETURN(int64_t keep_from, ParseInt(oldest_kept.rows[0][0], "sample_ms"));
  return conn_
      ->Execute("DELETE FROM floe_overview_history WHERE server_id = ? AND sample_ms < ?",
                {server_id, keep_from})
      .status();
}

Status Metastore::SaveMaintenanceRun(const MaintenanceRunRecord& r) {
  return conn_
      ->Execute(fmt::format("INSERT INTO floe_maintenance_runs ({}) VALUES "
                            "(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                            kRunColumns),
                {r.run_id, r.catalog, r.table_namespace, r.table_name, r.kind, r.status, r.start_ms,
                 r.end_ms, r.expired_snapshots, r.deleted_files, NonEmpty(r.error)})
      .status();
}

Result<std::vector<MaintenanceRunRecord>> Metastore::ListMaintenanceRuns(
    std::string_view catalog, std::string_view table_namespace, std::string_view table_name,
    int64_t limit) {
  FLOE_ASSIGN_OR_RETURN(
      auto result,
      conn_->Execute(fmt::format("SELECT {} FROM floe_maintenance_runs WHERE catalog_name = ? "
                                 "AND table_namespace = ? AND table_name = ? "
                                 "ORDER BY run_id DESC LIMIT ?",
                                 kRunColumns),
                     {catalog, table_namespace, table_name, limit}));
  std::vector<MaintenanceRunRecord> out;
  for (const auto& row : result.rows) {
    if (row.size() != 11 || !row[1] || !row[2] || !row[3] || !row[4] || !row[5]) {
      return Status::Corrupt("metastore: bad floe_maintenance_runs row");
    }
    MaintenanceRunRecord r;
    FLOE_ASSIGN_OR_RETURN(r.run_id, ParseInt(row[0], "run_id"));
    r.catalog = *row[1];
    r.table_namespace = *row[2];
    r.table_name = *row[3];
    r.kind = *row[4];
    r.status = *row[5];
    FLOE_ASSIGN_OR_RETURN(r.start_ms, ParseInt(row[6], "start_ms"));
    FLOE_ASSIGN_OR_RETURN(r.end_ms, ParseInt(row[7], "end_ms"));
    FLOE_ASSIGN_OR_RETURN(r.expired_snapshots, ParseInt(row[8], "expired_snapshots"));
    FLOE_ASSIGN_OR_RETURN(r.deleted_files, ParseInt(row[9], "deleted_files"));
    r.error = row[10].value_or("");
    out.push_back(std::move(r));
  }
  return out;
}

}  // namespace floe::metastore
