// SqlConnection over libsqlite3.
//
// Locking: every statement waits up to busy_timeout_ms for another connection's lock
// (sqlite3_busy_timeout). Writers start with BEGIN IMMEDIATE, which takes the write lock
// first: a deferred transaction that reads and then writes can fail at once with SQLITE_BUSY
// (SQLite refuses to wait when two readers both want to upgrade), so we never do that.
#include <sqlite3.h>

#include <algorithm>
#include <cctype>
#include <memory>
#include <string>
#include <unordered_map>

#include "floe/base/macros.h"
#include "floe/catalog/sql_backends.h"

namespace floe::catalog::internal {
namespace {

struct StmtDeleter {
  void operator()(sqlite3_stmt* stmt) const { sqlite3_finalize(stmt); }
};
using StmtPtr = std::unique_ptr<sqlite3_stmt, StmtDeleter>;

struct DbDeleter {
  void operator()(sqlite3* db) const { sqlite3_close_v2(db); }
};
using DbPtr = std::unique_ptr<sqlite3, DbDeleter>;

Status ErrorStatus(sqlite3* db, int rc, std::string_view what) {
  int extended = db != nullptr ? sqlite3_extended_errcode(db) : rc;
  std::string message = fmt::format("sqlite {}: {} ({})", what,
                                    db != nullptr ? sqlite3_errmsg(db) : sqlite3_errstr(rc),
                                    sqlite3_errstr(extended));
  switch (extended) {
    case SQLITE_CONSTRAINT_PRIMARYKEY:
    case SQLITE_CONSTRAINT_UNIQUE: return Status(StatusCode::kAlreadyExists, std::move(message));
    default: break;
  }
  switch (extended & 0xff) {
    case SQLITE_CONSTRAINT:
    case SQLITE_TOOBIG:
    case SQLITE_RANGE:
    case SQLITE_MISMATCH: return Status(StatusCode::kInvalidArgument, std::move(message));
    case SQLITE_BUSY:
    case SQLITE_LOCKED:
    case SQLITE_PROTOCOL: return Status(StatusCode::kUnavailable, std::move(message));
    case SQLITE_INTERRUPT: return Status(StatusCode::kDeadlineExceeded, std::move(message));
    case SQLITE_READONLY:
    case SQLITE_PERM:
    case SQLITE_AUTH: return Status(StatusCode::kPermissionDenied, std::move(message));
    case SQLITE_CORRUPT:
    case SQLITE_NOTADB: return Status(StatusCode::kCorrupt, std::move(message));
    case SQLITE_FULL: return Status(StatusCode::kResourceExhausted, std::move(message));
    case SQLITE_IOERR:
    case SQLITE_CANTOPEN:
    case SQLITE_NOLFS: return Status(StatusCode::kIOError, std::move(message));
    default: return Status(StatusCode::kInternal, std::move(message));
  }
}

class SqliteConnection final : public SqlConnection {
 public:
  SqliteConnection(DbPtr db, const SqlConnectionOptions& options)
      : db_(std::move(db)), options_(options) {}

  ~SqliteConnection() override {
    // Statements must be finalized before the database handle closes.
    statements_.clear();
  }

  SqlDialect dialect() const override { return SqlDialect::kSqlite; }

  Status Begin(SqlTransactionMode mode) override {
    if (in_transaction()) return Status::Internal("sqlite: transaction already open");
    const char* sql = mode == SqlTransactionMode::kWrite ? "BEGIN IMMEDIATE" : "BEGIN";
    Status status;
    for (int attempt = 0; attempt < std::max(1, options_.begin_attempts); ++attempt) {
      status = Exec(sql);
      if (status.code() != StatusCode::kUnavailable) break;
    }
    return status;
  }

  Status Commit() override {
    if (!in_transaction()) return Status::Internal("sqlite: COMMIT outside a transaction");
    return Exec("COMMIT");
  }

  Status Rollback() override {
    if (!in_transaction()) return Status::OK();
    return Exec("ROLLBACK");
  }

  bool in_transaction() const override { return sqlite3_get_autocommit(db_.get()) == 0; }

 protected:
  Result<SqlResult> ExecuteImpl(std::string_view sql, std::span<const SqlParam> params) override {
    FLOE_ASSIGN_OR_RETURN(sqlite3_stmt * stmt, Prepare(sql));
    // Reset and unbind on every exit: the bound text views belong to the caller.
    struct Cleanup {
      sqlite3_stmt* stmt;
      ~Cleanup() {
        sqlite3_reset(stmt);
        sqlite3_clear_bindings(stmt);
      }
    } cleanup{stmt};

    if (static_cast<int>(params.size()) != sqlite3_bind_parameter_count(stmt)) {
      return Status::Internal("sqlite: statement has {} parameters, {} given: {}",
                              sqlite3_bind_parameter_count(stmt), params.size(), sql);
    }
    for (size_t i = 0; i < params.size(); ++i) {
      int index = static_cast<int>(i) + 1;
      const SqlParam& p = params[i];
      int rc = SQLITE_OK;
      switch (p.kind()) {
        case SqlParam::Kind::kNull: rc = sqlite3_bind_null(stmt, index); break;
        case SqlParam::Kind::kInt64: rc = sqlite3_bind_int64(stmt, index, p.int64()); break;
        case SqlParam::Kind::kText:
          rc = sqlite3_bind_text64(stmt, index, p.text().data(), p.text().size(), SQLITE_STATIC,
                                   SQLITE_UTF8);
          break;
      }
      if (rc != SQLITE_OK) return ErrorStatus(db_.get(), rc, "bind");
    }

    SqlResult result;
    const int columns = sqlite3_column_count(stmt);
    while (true) {
      int rc = sqlite3_step(stmt);
      if (rc == SQLITE_DONE) break;
      if (rc != SQLITE_ROW) return ErrorStatus(db_.get(), rc, "step");
      SqlRow& row = result.rows.emplace_back();
      row.reserve(columns);
      for (int c = 0; c < columns; ++c) {
        if (sqlite3_column_type(stmt, c) == SQLITE_NULL) {
          row.emplace_back(std::nullopt);
          continue;
        }
        const auto* text = reinterpret_cast<const char*>(sqlite3_column_text(stmt, c));
        int bytes = sqlite3_column_bytes(stmt, c);
        row.emplace_back(std::string(text != nullptr ? text : "", static_cast<size_t>(bytes)));
      }
    }
    if (sqlite3_stmt_readonly(stmt) == 0) result.affected_rows = sqlite3_changes64(db_.get());
    return result;
  }

 private:
  Result<sqlite3_stmt*> Prepare(std::string_view sql) {
    std::string key(sql);
    if (auto it = statements_.find(key); it != statements_.end()) return it->second.get();
    sqlite3_stmt* raw = nullptr;
    const char* tail = nullptr;
    int rc = sqlite3_prepare_v3(db_.get(), sql.data(), static_cast<int>(sql.size()),
                                SQLITE_PREPARE_PERSISTENT, &raw, &tail);
    StmtPtr stmt(raw);
    if (rc != SQLITE_OK) return ErrorStatus(db_.get(), rc, "prepare");
    if (stmt == nullptr) return Status::Internal("sqlite: empty statement");
    for (const char* p = tail; p != nullptr && p < sql.data() + sql.size(); ++p) {
      if (!std::isspace(static_cast<unsigned char>(*p)) && *p != ';') {
        return Status::Internal("sqlite: one statement per call: {}", sql);
      }
    }
    sqlite3_stmt* result = stmt.get();
    statements_.emplace(std::move(key), std::move(stmt));
    return result;
  }

  Status Exec(const char* sql) {
    FLOE_ASSIGN_OR_RETURN(auto result, ExecuteImpl(sql, {}));
    (void)result;
    return Status::OK();
  }

  DbPtr db_;
  SqlConnectionOptions options_;
  std::unordered_map<std::string, StmtPtr> statements_;
};

}  // namespace

// SQLite's memory statistics take one process-wide mutex on every allocation: with a
// connection per server worker that lock was the hottest contention point under load. The
// setting must precede SQLite's initialisation, hence once, before the first open.
void ConfigureSqliteOnce() {
  static const bool configured = [] {
    sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0);
    return true;
  }();
  (void)configured;
}

Result<std::unique_ptr<SqlConnection>> OpenSqlite(std::string_view path,
                                                  const SqlConnectionOptions& options) {
  ConfigureSqliteOnce();
  sqlite3* raw = nullptr;
  std::string path_string(path);
  int rc =
      sqlite3_open_v2(path_string.c_str(), &raw,
                      SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, nullptr);
  DbPtr db(raw);
  if (rc != SQLITE_OK) {
    return ErrorStatus(db.get(), rc, "open").WithContext("{}", path);
  }
  sqlite3_extended_result_codes(db.get(), 1);
  sqlite3_busy_timeout(db.get(), static_cast<int>(options.busy_timeout_ms));
  // Write-ahead logging: readers never wait for a writer (nor block one), a commit is one
  // append and one fsync of the log (synchronous stays FULL: an acknowledged commit survives
  // power loss), and a change probe (PRAGMA data_version) reads shared memory only. The mode
  // is stored in the file; a database that cannot switch (read-only media, a file system
  // without shared memory) keeps working in its rollback-journal mode.
  if (path_string != ":memory:") {
    sqlite3_exec(db.get(), "PRAGMA journal_mode=WAL", nullptr, nullptr, nullptr);
  }
  sqlite3_exec(db.get(), "PRAGMA synchronous=FULL", nullptr, nullptr, nullptr);
  return std::unique_ptr<SqlConnection>(new SqliteConnection(std::move(db), options));
}

}  // namespace floe::catalog::internal
