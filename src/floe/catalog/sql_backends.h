// The two SqlConnection backends, opened by SqlConnection::Open. Internal to catalog/.
#pragma once

#include <memory>
#include <string_view>

#include "floe/base/status.h"
#include "floe/catalog/sql_connection.h"

namespace floe::catalog::internal {

Result<std::unique_ptr<SqlConnection>> OpenSqlite(std::string_view path,
                                                  const SqlConnectionOptions& options);
Result<std::unique_ptr<SqlConnection>> OpenPostgres(std::string_view conninfo,
                                                    const SqlConnectionOptions& options);

}  // namespace floe::catalog::internal
