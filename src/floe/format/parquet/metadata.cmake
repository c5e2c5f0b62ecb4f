# Parquet metadata: the structs, enums and their Thrift compact (de)serialization and JSON
# rendering are generated at build time from parquet_thrift.def by gen_parquet_thrift.py.
find_package(Python3 REQUIRED COMPONENTS Interpreter)
set(floe_parquet_gen ${CMAKE_CURRENT_BINARY_DIR}/gen)
set(floe_parquet_gen_files
  ${floe_parquet_gen}/floe/format/parquet/parquet_thrift.h
  ${floe_parquet_gen}/floe/format/parquet/parquet_thrift.cc
  ${floe_parquet_gen}/floe/format/parquet/parquet_thrift_json.inc)
add_custom_command(
  OUTPUT ${floe_parquet_gen_files}
  COMMAND Python3::Interpreter ${CMAKE_CURRENT_LIST_DIR}/gen_parquet_thrift.py
          ${CMAKE_CURRENT_LIST_DIR}/parquet_thrift.def ${floe_parquet_gen}
  DEPENDS ${CMAKE_CURRENT_LIST_DIR}/gen_parquet_thrift.py ${CMAKE_CURRENT_LIST_DIR}/parquet_thrift.def
  COMMENT "Generating Parquet Thrift structs from parquet_thrift.def")
# floe_format is created in the parent directory: a custom target carries the generation
# step to it, and the generated sources are marked as such there too.
add_custom_target(floe_parquet_thrift_gen DEPENDS ${floe_parquet_gen_files})
add_dependencies(floe_format floe_parquet_thrift_gen)
set_source_files_properties(${floe_parquet_gen_files} DIRECTORY ${PROJECT_SOURCE_DIR}/src/floe/format
  PROPERTIES GENERATED TRUE)
target_include_directories(floe_format PUBLIC ${floe_parquet_gen})
target_sources(floe_format PRIVATE
  ${CMAKE_CURRENT_LIST_DIR}/metadata.cc
  ${CMAKE_CURRENT_LIST_DIR}/metadata_json.cc
  ${floe_parquet_gen}/floe/format/parquet/parquet_thrift.cc)

floe_add_test(NAME floe_parquet_metadata_test
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/metadata_test.cc
  LIBS floe_format nlohmann_json::nlohmann_json)
