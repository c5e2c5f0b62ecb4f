// SqlConnection over libpq.
//
// Statements are prepared server-side (PQprepare) under generated names, with parameter types
// fixed from the first call's parameters (text, int8, or left to the server for NULL); the
// cache key is the SQL text plus those types. All values travel in text format.
#include <libpq-fe.h>

#include <cctype>
#include <cstdlib>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "floe/base/macros.h"
#include "floe/catalog/sql_backends.h"

namespace floe::catalog::internal {
namespace {

// Type OIDs from PostgreSQL's catalog/pg_type.dat.
constexpr Oid kTextOid = 25;
constexpr Oid kInt8Oid = 20;

struct ResultDeleter {
  void operator()(PGresult* r) const { PQclear(r); }
};
using ResultPtr = std::unique_ptr<PGresult, ResultDeleter>;

struct ConnDeleter {
  void operator()(PGconn* c) const { PQfinish(c); }
};
using ConnPtr = std::unique_ptr<PGconn, ConnDeleter>;

std::string Trim(const char* s) {
  std::string out = s != nullptr ? s : "";
  while (!out.empty() && std::isspace(static_cast<unsigned char>(out.back()))) out.pop_back();
  return out;
}

// Maps an SQLSTATE (PostgreSQL manual, Appendix A "Error Codes") to a status code.
StatusCode CodeForSqlState(std::string_view state) {
  if (state == "23505") return StatusCode::kAlreadyExists;                    // unique_violation
  if (state == "40001" || state == "40P01") return StatusCode::kUnavailable;  // serialization
  if (state == "55P03") return StatusCode::kUnavailable;                      // lock_not_available
  if (state == "57014") return StatusCode::kDeadlineExceeded;                 // query_canceled
  if (state == "42501") return StatusCode::kPermissionDenied;  // insufficient_privilege
  std::string_view cls = state.substr(0, 2);
  if (cls == "23" || cls == "22") return StatusCode::kInvalidArgument;  // constraint, data
  if (cls == "08" || cls == "53" || cls == "57")
    return StatusCode::kUnavailable;  // connection,
                                      // resources, shutdown
  if (cls == "28") return StatusCode::kUnauthenticated;
  if (cls == "25") return StatusCode::kUnavailable;  // in failed transaction: roll back, retry
  if (cls == "XX") return StatusCode::kCorrupt;
  return StatusCode::kInternal;
}

class PostgresConnection final : public SqlConnection {
 public:
  explicit PostgresConnection(ConnPtr conn) : conn_(std::move(conn)) {}

  SqlDialect dialect() const override { return SqlDialect::kPostgres; }

  Status Begin(SqlTransactionMode mode) override {
    if (in_transaction_) return Status::Internal("postgres: transaction already open");
    FLOE_RETURN_IF_ERROR(Command(mode == SqlTransactionMode::kWrite
                                     ? "BEGIN"
                                     : "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY"));
    in_transaction_ = true;
    return Status::OK();
  }

  Status Commit() override {
    if (!in_transaction_) return Status::Internal("postgres: COMMIT outside a transaction");
    ResultPtr res(PQexec(conn_.get(), "COMMIT"));
    Status status = Check(res.get(), "COMMIT");
    if (!status.ok()) return status;
    in_transaction_ = false;
    // COMMIT of a transaction an earlier error aborted succeeds with the tag ROLLBACK.
    if (std::string_view(PQcmdStatus(res.get())) == "ROLLBACK") {
      return Status::Unavailable("postgres: transaction was aborted by an earlier error");
    }
    return Status::OK();
  }

  Status Rollback() override {
    if (!in_transaction_) return Status::OK();
    in_transaction_ = false;
    return Command("ROLLBACK");
  }

  bool in_transaction() const override { return in_transaction_; }

 protected:
  Result<SqlResult> ExecuteImpl(std::string_view sql, std::span<const SqlParam> params) override {
    std::vector<Oid> types(params.size());
    std::string key(sql);
    key += '\x1f';
    for (size_t i = 0; i < params.size(); ++i) {
      switch (params[i].kind()) {
        case SqlParam::Kind::kNull:
          types[i] = 0;
          key += 'n';
          break;
        case SqlParam::Kind::kText:
          types[i] = kTextOid;
          key += 't';
          break;
        case SqlParam::Kind::kInt64:
          types[i] = kInt8Oid;
          key += 'i';
          break;
      }
    }
    FLOE_ASSIGN_OR_RETURN(const std::string* name, Prepare(key, sql, types));

    std::vector<std::string> owned;  // NUL-terminated parameter texts
    owned.reserve(params.size());
    std::vector<const char*> values(params.size());
    std::vector<int> lengths(params.size());
    std::vector<int> formats(params.size(), 0);
    for (size_t i = 0; i < params.size(); ++i) {
      const SqlParam& p = params[i];
      if (p.kind() == SqlParam::Kind::kInt64) {
        const std::string& s = owned.emplace_back(std::to_string(p.int64()));
        values[i] = s.c_str();
        lengths[i] = static_cast<int>(s.size());
      } else if (p.kind() == SqlParam::Kind::kText) {
        // Text format reads a C string: an embedded NUL would silently cut the value.
        if (p.text().find('\0') != std::string_view::npos) {
          return Status::InvalidArgument("postgres: text parameter {} contains a NUL byte", i + 1);
        }
        // libpq needs NUL-terminated text values; keep a terminated copy.
        const std::string& s = owned.emplace_back(p.text());
        values[i] = s.c_str();
        lengths[i] = static_cast<int>(s.size());
      }
    }
    ResultPtr res(PQexecPrepared(conn_.get(), name->c_str(), static_cast<int>(params.size()),
                                 values.data(), lengths.data(), formats.data(), 0));
    FLOE_RETURN_IF_ERROR(Check(res.get(), sql));

    SqlResult result;
    if (PQresultStatus(res.get()) == PGRES_TUPLES_OK) {
      const int rows = PQntuples(res.get());
      const int columns = PQnfields(res.get());
      result.rows.reserve(rows);
      for (int r = 0; r < rows; ++r) {
        SqlRow& row = result.rows.emplace_back();
        row.reserve(columns);
        for (int c = 0; c < columns; ++c) {
          if (PQgetisnull(res.get(), r, c)) {
            row.emplace_back(std::nullopt);
          } else {
            row.emplace_back(std::string(PQgetvalue(res.get(), r, c),
                                         static_cast<size_t>(PQgetlength(res.get(), r, c))));
          }
        }
      }
    } else {
      const char* tuples = PQcmdTuples(res.get());
      result.affected_rows = (tuples != nullptr && *tuples != '\0') ? std::atoll(tuples) : 0;
    }
    return result;
  }

 private:
  Result<const std::string*> Prepare(const std::string& key, std::string_view sql,
                                     const std::vector<Oid>& types) {
    if (auto it = statements_.find(key); it != statements_.end()) return &it->second;
    int count = 0;
    std::string translated = ToPostgresPlaceholders(sql, &count);
    if (count != static_cast<int>(types.size())) {
      return Status::Internal("postgres: statement has {} parameters, {} given: {}", count,
                              types.size(), sql);
    }
    std::string name = "floe_" + std::to_string(statements_.size() + 1);
    ResultPtr res(PQprepare(conn_.get(), name.c_str(), translated.c_str(),
                            static_cast<int>(types.size()), types.data()));
    FLOE_RETURN_IF_ERROR(Check(res.get(), sql));
    auto [it, inserted] = statements_.emplace(key, std::move(name));
    return &it->second;
  }

  Status Command(const char* sql) {
    ResultPtr res(PQexec(conn_.get(), sql));
    return Check(res.get(), sql);
  }

  // Turns a failed result into a Status. A lost connection is kUnavailable: the caller
  // reconnects (this connection stays broken).
  Status Check(PGresult* res, std::string_view what) {
    ExecStatusType st = res != nullptr ? PQresultStatus(res) : PGRES_FATAL_ERROR;
    if (st == PGRES_COMMAND_OK || st == PGRES_TUPLES_OK) return Status::OK();
    if (PQstatus(conn_.get()) == CONNECTION_BAD) {
      return Status::Unavailable("postgres: connection lost: {}",
                                 Trim(PQerrorMessage(conn_.get())));
    }
    const char* state = res != nullptr ? PQresultErrorField(res, PG_DIAG_SQLSTATE) : nullptr;
    std::string message =
        Trim(res != nullptr ? PQresultErrorMessage(res) : PQerrorMessage(conn_.get()));
    StatusCode code = state != nullptr ? CodeForSqlState(state) : StatusCode::kInternal;
    return Status(code,
                  fmt::format("postgres [{}]: {} (in: {})", state ? state : "?", message, what));
  }

  ConnPtr conn_;
  bool in_transaction_ = false;
  // Cache key (SQL text + parameter kinds) -> prepared statement name.
  std::unordered_map<std::string, std::string> statements_;
};

void IgnoreNotice(void*, const char*) {}

}  // namespace

Result<std::unique_ptr<SqlConnection>> OpenPostgres(std::string_view conninfo,
                                                    const SqlConnectionOptions& options) {
  std::string conninfo_string(conninfo);
  ConnPtr conn(PQconnectdb(conninfo_string.c_str()));
  if (conn == nullptr) return Status::Unavailable("postgres: out of memory connecting");
  if (PQstatus(conn.get()) != CONNECTION_OK) {
    // libpq reports no SQLSTATE for connection failures: refused, unreachable, or rejected
    // credentials all read as "retry later or fix the configuration".
    return Status::Unavailable("postgres: cannot connect: {}", Trim(PQerrorMessage(conn.get())));
  }
  // "relation already exists, skipping" and similar notices would go to stderr otherwise.
  PQsetNoticeProcessor(conn.get(), IgnoreNotice, nullptr);
  if (PQsetClientEncoding(conn.get(), "UTF8") != 0) {
    return Status::Unavailable("postgres: cannot set client encoding UTF8: {}",
                               Trim(PQerrorMessage(conn.get())));
  }
  (void)options;
  return std::unique_ptr<SqlConnection>(new PostgresConnection(std::move(conn)));
}

}  // namespace floe::catalog::internal
