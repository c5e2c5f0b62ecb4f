// SqlConnection: one connection to a SQL database, SQLite (libsqlite3) or PostgreSQL (libpq),
// behind one small interface: statements with positional `?` parameters (text, int64, null),
// rows of nullable strings, affected-row counts, and transactions.
//
// Statements are prepared once per connection and cached by their SQL text, so callers pass
// the same constant SQL every time and bind user input as parameters: user input never
// becomes SQL text.
//
// Errors map to Status codes the same way on both backends:
//   unique / primary-key violation                    -> kAlreadyExists
//   other constraint, value too long, bad parameter   -> kInvalidArgument
//   lock contention (SQLite busy after the timeout), serialization failure, deadlock,
//   lost or refused connection                        -> kUnavailable (retry the call)
//   statement cancelled by a timeout                  -> kDeadlineExceeded
//   authentication / privileges                       -> kUnauthenticated / kPermissionDenied
//   unreadable or malformed database file             -> kIOError / kCorrupt
//   anything else (a bad statement of ours)           -> kInternal
//
// Thread-safety: a SqlConnection is not thread-safe. Use one connection per thread; any
// number of connections, in any number of processes, may share one database.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "floe/base/status.h"

namespace floe::catalog {

enum class SqlDialect : uint8_t { kSqlite, kPostgres };

// Where a catalog URI points.
struct SqlTarget {
  SqlDialect dialect;
  // SQLite: the database file path (or ":memory:"). PostgreSQL: a libpq connection URI.
  std::string location;
};

// Parses a catalog URI:
//   sqlite:PATH, sqlite:///abs/path (read as /abs/path), jdbc:sqlite:PATH
//   postgresql://user:pass@host:port/db?param=value..., postgres://..., jdbc:postgresql://...,
//   and SQLAlchemy's postgresql+DRIVER://... (the driver part is dropped)
// Returns kInvalidArgument for any other scheme, an empty path, or a malformed PostgreSQL URI.
Result<SqlTarget> ParseSqlUri(std::string_view uri);

// One positional parameter. Holds a view: the text must outlive the Execute call.
class SqlParam {
 public:
  enum class Kind : uint8_t { kNull, kText, kInt64 };

  SqlParam(std::nullopt_t) : kind_(Kind::kNull) {}  // NOLINT(google-explicit-constructor)
  SqlParam(std::string_view text)                   // NOLINT(google-explicit-constructor)
      : kind_(Kind::kText), text_(text) {}
  SqlParam(const char* text) : SqlParam(std::string_view(text)) {}         // NOLINT
  SqlParam(const std::string& text) : SqlParam(std::string_view(text)) {}  // NOLINT
  SqlParam(int64_t value) : kind_(Kind::kInt64), int64_(value) {}          // NOLINT
  SqlParam(int value) : SqlParam(static_cast<int64_t>(value)) {}           // NOLINT
  SqlParam(const std::optional<std::string>& text)                         // NOLINT
      : kind_(text ? Kind::kText : Kind::kNull) {
    if (text) text_ = *text;
  }

  Kind kind() const { return kind_; }
  std::string_view text() const { return text_; }
  int64_t int64() const { return int64_; }

 private:
  Kind kind_;
  std::string_view text_;
  int64_t int64_ = 0;
};

// One result row: each column as text, nullopt for SQL NULL (integers come back as decimal text).
using SqlRow = std::vector<std::optional<std::string>>;

struct SqlResult {
  std::vector<SqlRow> rows;
  // Rows inserted, updated or deleted by the statement; 0 for queries and DDL.
  int64_t affected_rows = 0;
};

enum class SqlTransactionMode : uint8_t {
  // A consistent snapshot for several reads (PostgreSQL: REPEATABLE READ READ ONLY;
  // SQLite: a deferred transaction).
  kRead,
  // Takes the write lock up front (SQLite: BEGIN IMMEDIATE, so two writers never deadlock
  // upgrading read locks; PostgreSQL: READ COMMITTED, the peers' isolation level).
  kWrite,
};

struct SqlConnectionOptions {
  // SQLite: how long one statement waits for a lock held by another connection.
  int64_t busy_timeout_ms = 10'000;
  // SQLite: how many times BEGIN IMMEDIATE is tried when a whole busy timeout passes.
  int begin_attempts = 3;
};

class SqlConnection {
 public:
  // Opens a connection to the database a catalog URI names (see ParseSqlUri). A SQLite file is
  // created if missing. Errors: kInvalidArgument (bad URI), kUnavailable (server unreachable or
  // refusing), kIOError / kPermissionDenied (SQLite file cannot be opened).
  static Result<std::unique_ptr<SqlConnection>> Open(std::string_view uri,
                                                     const SqlConnectionOptions& options = {});
  static Result<std::unique_ptr<SqlConnection>> Open(const SqlTarget& target,
                                                     const SqlConnectionOptions& options = {});

  virtual ~SqlConnection() = default;
  SqlConnection(const SqlConnection&) = delete;
  SqlConnection& operator=(const SqlConnection&) = delete;

  virtual SqlDialect dialect() const = 0;

  // Runs one statement with `?` placeholders bound, in order, to `params`. Outside a
  // transaction the statement commits on its own.
  Result<SqlResult> Execute(std::string_view sql, std::span<const SqlParam> params) {
    return ExecuteImpl(sql, params);
  }
  Result<SqlResult> Execute(std::string_view sql, std::initializer_list<SqlParam> params = {}) {
    return ExecuteImpl(sql, std::span<const SqlParam>(params.begin(), params.size()));
  }

  // Starts a transaction. REQUIRES: !in_transaction().
  // Errors: kUnavailable when SQLite's write lock stays busy for every attempt.
  virtual Status Begin(SqlTransactionMode mode) = 0;
  // Commits. On error the transaction may still be open: call Rollback. A PostgreSQL
  // transaction that an earlier error aborted reports kUnavailable here, not success.
  virtual Status Commit() = 0;
  // Rolls back; a no-op outside a transaction.
  virtual Status Rollback() = 0;
  virtual bool in_transaction() const = 0;

 protected:
  SqlConnection() = default;
  virtual Result<SqlResult> ExecuteImpl(std::string_view sql, std::span<const SqlParam> params) = 0;
};

// A transaction scope: rolls back on destruction unless Commit succeeded.
//
//   FLOE_ASSIGN_OR_RETURN(auto txn, SqlTransaction::Begin(conn, SqlTransactionMode::kWrite));
//   ... conn->Execute(...) ...
//   FLOE_RETURN_IF_ERROR(txn.Commit());
class [[nodiscard]] SqlTransaction {
 public:
  static Result<SqlTransaction> Begin(SqlConnection* conn, SqlTransactionMode mode);

  SqlTransaction(SqlTransaction&& other) noexcept : conn_(std::exchange(other.conn_, nullptr)) {}
  SqlTransaction& operator=(SqlTransaction&&) = delete;
  ~SqlTransaction();

  Status Commit();

 private:
  explicit SqlTransaction(SqlConnection* conn) : conn_(conn) {}
  SqlConnection* conn_;  // null once committed or moved from
};

namespace internal {
// Rewrites `?` placeholders outside quoted literals, quoted identifiers and `--` comments to
// PostgreSQL's `$1`, `$2`, ... Exposed for tests.
std::string ToPostgresPlaceholders(std::string_view sql, int* count);
}  // namespace internal

}  // namespace floe::catalog
