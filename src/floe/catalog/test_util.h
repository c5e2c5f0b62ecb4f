// Helpers shared by the catalog unit tests: one empty database per test on either backend.
//
// SQLite: a file in a fresh temp dir. PostgreSQL: a fresh schema (first on the search_path) in
// the server that FLOE_TEST_POSTGRES_URI names; ctest's floe_catalog_postgres_test starts one
// with scripts/test-postgres.sh. Without that variable the PostgreSQL tests fail, not skip.
#pragma once

#include <gtest/gtest.h>
#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <filesystem>
#include <string>

#include "floe/base/macros.h"
#include "floe/base/testing.h"
#include "floe/catalog/sql_connection.h"

namespace floe::catalog::testing {

inline std::string DialectName(const ::testing::TestParamInfo<SqlDialect>& info) {
  return info.param == SqlDialect::kSqlite ? "Sqlite" : "Postgres";
}

// An empty database for one test.
class TestDatabase {
 public:
  // Sets `uri()` or records a gtest failure.
  void SetUp(SqlDialect dialect) {
    static std::atomic<int> counter{0};
    std::string id = std::to_string(getpid()) + "_" + std::to_string(counter++);
    if (dialect == SqlDialect::kSqlite) {
      dir_ = std::filesystem::temp_directory_path() / ("floe_catalog_test_" + id);
      std::filesystem::remove_all(dir_);
      std::filesystem::create_directories(dir_);
      uri_ = "sqlite:" + (dir_ / "catalog.db").string();
      return;
    }
    const char* server = std::getenv("FLOE_TEST_POSTGRES_URI");
    if (server == nullptr || *server == '\0') {
      FAIL() << "FLOE_TEST_POSTGRES_URI is not set: run the PostgreSQL tests through ctest "
                "(floe_catalog_postgres_test) or scripts/test-postgres.sh run -- ...";
    }
    server_ = server;
    schema_ = "floe_test_" + id;
    auto admin = SqlConnection::Open(server_);
    FLOE_ASSERT_OK(admin);
    // Our own identifier, not user input.
    auto created = (*admin)->Execute("CREATE SCHEMA " + schema_);
    FLOE_ASSERT_OK(created);
    uri_ = server_ + (server_.find('?') == std::string::npos ? "?" : "&") +
           "options=-csearch_path%3D" + schema_;
  }

  ~TestDatabase() {
    if (!dir_.empty()) {
      std::error_code ec;
      std::filesystem::remove_all(dir_, ec);
    }
    if (!schema_.empty()) {
      auto admin = SqlConnection::Open(server_);
      if (admin.ok()) (void)(*admin)->Execute("DROP SCHEMA " + schema_ + " CASCADE");
    }
  }

  const std::string& uri() const { return uri_; }
  const std::filesystem::path& dir() const { return dir_; }

 private:
  std::string uri_;
  std::filesystem::path dir_;
  std::string server_;
  std::string schema_;
};

}  // namespace floe::catalog::testing
