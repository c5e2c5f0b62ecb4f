// Metastore: floe's own durable state, in one SQL database (SQLite embedded by default, or
// PostgreSQL shared by several servers). Its schema is versioned: migrations are numbered,
// each applied once in its own transaction and recorded in floe_schema_version, so any
// number of servers may start at once on one database.
//
// What it holds today: the catalogs a server serves (floe_catalogs), each table's
// self-optimizing state (floe_table_runtime, with its paused flag), its optimizing processes
// and their tasks (floe_optimizing_processes, floe_optimizing_tasks), the optimizer groups
// (floe_optimizer_groups), the table maintenance runs (floe_maintenance_runs) and the
// overview's history samples (floe_overview_history). Internal catalogs keep their namespaces and
// table pointers in the same database, in the JDBC catalog tables (iceberg_tables,
// iceberg_namespace_properties) under their own catalog name, so a Java JdbcCatalog or pyiceberg
// SqlCatalog pointed at the metastore sees them too.
//
// Thread-safety: not thread-safe (one connection); use one Metastore per thread.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "floe/base/status.h"
#include "floe/catalog/sql_connection.h"

namespace floe::metastore {

// How a catalog keeps its table pointers.
enum class CatalogKind : uint8_t {
  kInternal,    // in this metastore
  kSql,         // an external Iceberg JDBC/SQL catalog database (uri)
  kFilesystem,  // a Hadoop-layout warehouse (warehouse)
  kRest,        // another REST catalog (uri)
};

std::string_view CatalogKindName(CatalogKind kind);
Result<CatalogKind> ParseCatalogKind(std::string_view name);

struct CatalogRecord {
  std::string name;
  CatalogKind kind = CatalogKind::kInternal;
  std::string uri;        // external sql and rest catalogs
  std::string warehouse;  // where new tables go (internal, sql) / the root (filesystem)
  std::map<std::string, std::string> properties;
  int64_t created_at_ms = 0;
};

// A table's self-optimizing state (optimize/service.h), kept across restarts.
struct TableRuntimeRecord {
  std::string catalog;
  std::string table_namespace;  // dotted, as in iceberg_tables
  std::string table_name;
  std::string status = "idle";  // idle, pending, planning, minor, major, full, committing
  std::string status_reason;
  std::optional<int64_t> last_optimized_snapshot_id;
  int64_t last_minor_ms = 0;
  int64_t last_major_ms = 0;
  int64_t last_full_ms = 0;
  int64_t last_plan_ms = 0;
  int64_t updated_at_ms = 0;
  // Paused by an operator: not optimized until resumed.
  bool paused = false;
  // The optimizer group the table was last evaluated for (self-optimizing.group).
  std::string optimizer_group;
};

// An optimizer group: where a table's tasks run (self-optimizing.group) and how the group's
// threads are shared among its tables.
struct OptimizerGroupRecord {
  std::string name;
  std::string scheduling_policy = "quota";  // quota, balanced
  std::map<std::string, std::string> properties;
  int64_t created_at_ms = 0;
};

// One task of an optimizing process, for history.
struct OptimizingTaskRecord {
  int64_t process_id = 0;
  int64_t task_id = 0;
  std::string status;     // planned, scheduled, acked, success, failed, canceled
  int64_t attempt = 0;    // hand-outs so far
  int64_t retries = 0;    // failed executions so far
  std::string optimizer;  // the optimizer id of the last hand-out
  std::string partition_key;
  int64_t input_files = 0;
  int64_t input_bytes = 0;
  int64_t output_files = 0;
  int64_t output_bytes = 0;
  int64_t rows_read = 0;
  int64_t start_ms = 0;  // last hand-out
  int64_t end_ms = 0;
  std::string error;
};

// One table maintenance run (snapshot expiry, ...) with its outcome.
struct MaintenanceRunRecord {
  int64_t run_id = 0;
  std::string catalog;
  std::string table_namespace;
  std::string table_name;
  std::string kind;    // expire-snapshots, clean-dangling-delete-files, clean-orphan-files
  std::string status;  // success, failed
  int64_t start_ms = 0;
  int64_t end_ms = 0;
  int64_t expired_snapshots = 0;
  int64_t deleted_files = 0;
  std::string error;
};

// One optimizing process of a table: its plan, outcome and figures.
struct OptimizingProcessRecord {
  int64_t process_id = 0;
  std::string catalog;
  std::string table_namespace;
  std::string table_name;
  std::string optimizing_type;  // minor, major, full
  std::string status;           // running, success, failed, canceled
  std::optional<int64_t> planned_snapshot_id;
  std::optional<int64_t> committed_snapshot_id;
  int64_t plan_time_ms = 0;
  int64_t end_time_ms = 0;
  int64_t task_count = 0;
  int64_t rewritten_data_files = 0;
  int64_t converted_data_files = 0;
  int64_t removed_delete_files = 0;
  int64_t new_data_files = 0;
  int64_t new_delete_files = 0;
  int64_t rows_rewritten = 0;
  int64_t bytes_written = 0;
  std::string reason;  // the triggers that chose it
  std::string error;   // why it failed
};

// One sample of the server's totals for the overview's history charts
// (manage/history_recorder.h). Gauges hold the value at sample_ms; the *_during fields count
// what happened in the interval_ms before it (so downsampling sums them and restarts do not
// show as drops). Each server sharing the metastore records its own series, keyed by
// server_id.
struct HistorySample {
  std::string server_id;
  int64_t sample_ms = 0;
  int64_t interval_ms = 0;
  int64_t tables = 0;
  int64_t data_files = 0;
  int64_t delete_files = 0;
  int64_t records = 0;
  int64_t data_bytes = 0;
  int64_t optimizer_threads = 0;
  int64_t tasks_running = 0;
  int64_t tasks_queued = 0;
  int64_t rss_bytes = 0;
  int64_t bytes_optimized_during = 0;
  int64_t cpu_ms_during = 0;
  int64_t records_produced_during = 0;
  int64_t rows_ingested_during = 0;
};

class Metastore {
 public:
  // The newest schema version this build knows.
  static constexpr int kSchemaVersion = 5;

  // Connects to `uri` (sqlite:PATH or postgresql://...) and applies missing migrations.
  // kFailedPrecondition when the database was migrated by a newer floe.
  static Result<std::unique_ptr<Metastore>> Open(std::string_view uri);

  const std::string& uri() const { return uri_; }
  Result<int> SchemaVersion();

  // Sorted by name.
  Result<std::vector<CatalogRecord>> ListCatalogs();
  // kNotFound.
  Result<CatalogRecord> LoadCatalog(std::string_view name);
  // kAlreadyExists; kInvalidArgument for a bad name (1-255 characters of letters, digits,
  // '_', '-', '.'; not a REST route word such as "namespaces").
  Status CreateCatalog(const CatalogRecord& record);
  // Replaces the definition (kind, uri, warehouse, properties) of the catalog named
  // record.name; its creation time stays. kNotFound.
  Status UpdateCatalog(const CatalogRecord& record);
  // kNotFound.
  Status DropCatalog(std::string_view name);

  // Every table's optimizing state, by catalog, namespace and name.
  Result<std::vector<TableRuntimeRecord>> ListTableRuntimes();
  // Inserts or replaces the record of its table.
  Status SaveTableRuntime(const TableRuntimeRecord& record);
  // Removes a dropped table's record; OK when there is none.
  Status DeleteTableRuntime(std::string_view catalog, std::string_view table_namespace,
                            std::string_view table_name);

  // Inserts a process, or replaces the one with its id.
  Status SaveProcess(const OptimizingProcessRecord& record);
  // A table's processes, newest first, at most `limit`.
  Result<std::vector<OptimizingProcessRecord>> ListProcesses(std::string_view catalog,
                                                             std::string_view table_namespace,
                                                             std::string_view table_name,
                                                             int64_t limit);

  // Sorted by name.
  Result<std::vector<OptimizerGroupRecord>> ListGroups();
  // kAlreadyExists; kInvalidArgument for a bad name (as catalog names) or policy.
  Status CreateGroup(const OptimizerGroupRecord& record);
  // kNotFound.
  Status DropGroup(std::string_view name);

  // Inserts a task, or replaces the one with its process and task id.
  Status SaveTask(const OptimizingTaskRecord& record);
  // A process's tasks by task id.
  Result<std::vector<OptimizingTaskRecord>> ListTasks(int64_t process_id);

  // Inserts a sample (replacing the one with the same server_id and sample_ms).
  Status SaveHistorySample(const HistorySample& sample);
  // The samples with from_ms <= sample_ms <= to_ms of every server (or of `server_id` when
  // given), oldest first (then by server), at most `limit`.
  Result<std::vector<HistorySample>> ListHistorySamples(
      int64_t from_ms, int64_t to_ms, int64_t limit,
      const std::optional<std::string>& server_id = std::nullopt);
  // Deletes every server's samples older than `before_ms` (so a server gone for good leaves
  // nothing behind), then `server_id`'s oldest beyond its newest `max_rows`.
  Status TrimHistory(const std::string& server_id, int64_t before_ms, int64_t max_rows);

  Status SaveMaintenanceRun(const MaintenanceRunRecord& record);
  // A table's runs, newest first, at most `limit`.
  Result<std::vector<MaintenanceRunRecord>> ListMaintenanceRuns(std::string_view catalog,
                                                                std::string_view table_namespace,
                                                                std::string_view table_name,
                                                                int64_t limit);

 private:
  Metastore(std::unique_ptr<catalog::SqlConnection> conn, std::string uri)
      : conn_(std::move(conn)), uri_(std::move(uri)) {}
  Status Migrate();

  std::unique_ptr<catalog::SqlConnection> conn_;
  std::string uri_;
};

}  // namespace floe::metastore
