# Product dependencies: Debian packages only (scripts/install-deps.sh installs them).
find_package(PkgConfig REQUIRED)
find_package(Threads REQUIRED)
find_package(ZLIB REQUIRED)
find_package(fmt REQUIRED)
find_package(nlohmann_json REQUIRED)
find_package(CLI11 REQUIRED)
pkg_check_modules(ZSTD REQUIRED IMPORTED_TARGET libzstd)
pkg_check_modules(LZ4 REQUIRED IMPORTED_TARGET liblz4)
pkg_check_modules(XXHASH REQUIRED IMPORTED_TARGET libxxhash)
# The key index of keyed table topics (src/floe/ingest/key_index.h).
pkg_check_modules(ROCKSDB REQUIRED IMPORTED_TARGET rocksdb)
# The SQL catalog's two backends (catalog/sql_connection.h).
pkg_check_modules(SQLITE3 REQUIRED IMPORTED_TARGET sqlite3)
pkg_check_modules(LIBPQ REQUIRED IMPORTED_TARGET libpq)
# floe.yaml (server/config.h).
pkg_check_modules(YAML_CPP REQUIRED IMPORTED_TARGET yaml-cpp)
# SHA-256, HMAC and a CSPRNG for authentication (auth/crypto.h); TLS on the listeners
# (http/tls.h).
find_package(OpenSSL REQUIRED COMPONENTS Crypto SSL)
# HTTP for the REST catalog client (catalog/http_client.h).
pkg_check_modules(LIBCURL REQUIRED IMPORTED_TARGET libcurl)
find_library(SNAPPY_LIBRARY NAMES snappy REQUIRED)
find_path(SNAPPY_INCLUDE_DIR NAMES snappy.h REQUIRED)
add_library(floe_snappy INTERFACE)
target_link_libraries(floe_snappy INTERFACE ${SNAPPY_LIBRARY})
target_include_directories(floe_snappy INTERFACE ${SNAPPY_INCLUDE_DIR})
if(FLOE_BUILD_TESTS)
  find_package(GTest REQUIRED)
endif()
