# Parquet metadata structs and their Thrift compact (de)serialization.
target_sources(floe_format PRIVATE
  ${CMAKE_CURRENT_LIST_DIR}/metadata.cc
  ${CMAKE_CURRENT_LIST_DIR}/metadata_json.cc)

floe_add_test(NAME floe_parquet_metadata_test
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/metadata_test.cc
  LIBS floe_format nlohmann_json::nlohmann_json)
