#include "floe/catalog/sql_connection.h"

#include <libpq-fe.h>

#include <cctype>
#include <memory>
#include <string>

#include "floe/base/macros.h"
#include "floe/catalog/sql_backends.h"

namespace floe::catalog {
namespace {

bool StartsWithNoCase(std::string_view s, std::string_view prefix) {
  if (s.size() < prefix.size()) return false;
  for (size_t i = 0; i < prefix.size(); ++i) {
    if (std::tolower(static_cast<unsigned char>(s[i])) != prefix[i]) return false;
  }
  return true;
}

Result<SqlTarget> ParseSqlite(std::string_view uri, std::string_view rest) {
  // "sqlite:///abs/path" has an empty authority: the path is what follows "//".
  if (rest.starts_with("//")) {
    rest.remove_prefix(2);
    if (!rest.starts_with('/')) {
      return Status::InvalidArgument("sqlite URI with a host is not supported: {}", uri);
    }
  }
  if (rest.empty()) return Status::InvalidArgument("sqlite URI without a path: {}", uri);
  return SqlTarget{SqlDialect::kSqlite, std::string(rest)};
}

Result<SqlTarget> ParsePostgres(std::string_view uri, std::string_view rest) {
  // `rest` follows "postgres" or "postgresql": an optional "+driver", then "://".
  if (rest.starts_with('+')) {
    size_t colon = rest.find(':');
    if (colon == std::string_view::npos) {
      return Status::InvalidArgument("malformed PostgreSQL URI: {}", uri);
    }
    rest.remove_prefix(colon);
  }
  if (!rest.starts_with("://")) return Status::InvalidArgument("malformed PostgreSQL URI: {}", uri);
  std::string conninfo = "postgresql" + std::string(rest);
  // Let libpq validate it now (no network), so a bad URI is kInvalidArgument, not kUnavailable.
  char* error = nullptr;
  PQconninfoOption* options = PQconninfoParse(conninfo.c_str(), &error);
  if (options == nullptr) {
    std::string message = error ? error : "out of memory";
    PQfreemem(error);
    while (!message.empty() && std::isspace(static_cast<unsigned char>(message.back()))) {
      message.pop_back();
    }
    return Status::InvalidArgument("malformed PostgreSQL URI: {}", message);
  }
  PQconninfoFree(options);
  return SqlTarget{SqlDialect::kPostgres, std::move(conninfo)};
}

}  // namespace

Result<SqlTarget> ParseSqlUri(std::string_view uri) {
  std::string_view rest = uri;
  if (StartsWithNoCase(rest, "jdbc:")) rest.remove_prefix(5);
  if (StartsWithNoCase(rest, "sqlite:")) return ParseSqlite(uri, rest.substr(7));
  if (StartsWithNoCase(rest, "postgresql")) return ParsePostgres(uri, rest.substr(10));
  if (StartsWithNoCase(rest, "postgres")) return ParsePostgres(uri, rest.substr(8));
  return Status::InvalidArgument(
      "unsupported SQL catalog URI (expected sqlite:PATH or postgresql://...): {}", uri);
}

Result<std::unique_ptr<SqlConnection>> SqlConnection::Open(std::string_view uri,
                                                           const SqlConnectionOptions& options) {
  FLOE_ASSIGN_OR_RETURN(SqlTarget target, ParseSqlUri(uri));
  return Open(target, options);
}

Result<std::unique_ptr<SqlConnection>> SqlConnection::Open(const SqlTarget& target,
                                                           const SqlConnectionOptions& options) {
  switch (target.dialect) {
    case SqlDialect::kSqlite: return internal::OpenSqlite(target.location, options);
    case SqlDialect::kPostgres: return internal::OpenPostgres(target.location, options);
  }
  return Status::Internal("unknown SQL dialect");
}

Result<SqlTransaction> SqlTransaction::Begin(SqlConnection* conn, SqlTransactionMode mode) {
  FLOE_RETURN_IF_ERROR(conn->Begin(mode));
  return SqlTransaction(conn);
}

SqlTransaction::~SqlTransaction() {
  // The error of a rollback in a destructor has nowhere to go; a failed rollback leaves the
  // connection unusable, which its next statement reports.
  if (conn_ != nullptr) (void)conn_->Rollback();
}

Status SqlTransaction::Commit() {
  if (conn_ == nullptr) return Status::Internal("transaction already finished");
  Status status = conn_->Commit();
  if (status.ok()) conn_ = nullptr;
  return status;
}

namespace internal {

std::string ToPostgresPlaceholders(std::string_view sql, int* count) {
  std::string out;
  out.reserve(sql.size() + 16);
  int n = 0;
  char quote = 0;  // the quote character of the literal or identifier we are in, or 0
  for (size_t i = 0; i < sql.size(); ++i) {
    char c = sql[i];
    if (quote != 0) {
      // A doubled quote inside a literal reads as two toggles, which is harmless.
      if (c == quote) quote = 0;
      out += c;
    } else if (c == '\'' || c == '"') {
      quote = c;
      out += c;
    } else if (c == '-' && i + 1 < sql.size() && sql[i + 1] == '-') {
      size_t end = sql.find('\n', i);
      if (end == std::string_view::npos) end = sql.size();
      out.append(sql.substr(i, end - i));
      i = end - 1;
    } else if (c == '?') {
      out += '$';
      out += std::to_string(++n);
    } else {
      out += c;
    }
  }
  if (count != nullptr) *count = n;
  return out;
}

}  // namespace internal
}  // namespace floe::catalog
