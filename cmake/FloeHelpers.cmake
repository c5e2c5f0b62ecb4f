# floe_add_test(NAME SOURCES a_test.cc ... LIBS floe_x ...)
# Builds one GoogleTest binary and registers it with CTest.
function(floe_add_test)
  cmake_parse_arguments(ARG "" "NAME" "SOURCES;LIBS" ${ARGN})
  if(NOT FLOE_BUILD_TESTS)
    return()
  endif()
  add_executable(${ARG_NAME} ${ARG_SOURCES})
  target_link_libraries(${ARG_NAME} PRIVATE ${ARG_LIBS} GTest::gtest GTest::gmock GTest::gtest_main)
  target_compile_options(${ARG_NAME} PRIVATE ${FLOE_TEST_OPT_FLAGS})
  floe_use_pch(${ARG_NAME} floe_test_pch)
  add_dependencies(floe_unit_tests ${ARG_NAME})
  add_test(NAME ${ARG_NAME} COMMAND ${ARG_NAME})
  set_tests_properties(${ARG_NAME} PROPERTIES ENVIRONMENT
                       "FLOE_TEST_DATA=${PROJECT_SOURCE_DIR}/tests/data")
endfunction()

# floe_add_library(NAME SOURCES ... DEPS ...): one library per layer.
function(floe_add_library)
  cmake_parse_arguments(ARG "" "NAME" "SOURCES;DEPS;PRIVATE_DEPS" ${ARGN})
  add_library(${ARG_NAME} STATIC ${ARG_SOURCES})
  target_include_directories(${ARG_NAME} PUBLIC ${PROJECT_SOURCE_DIR}/src)
  target_link_libraries(${ARG_NAME} PUBLIC ${ARG_DEPS} PRIVATE ${ARG_PRIVATE_DEPS})
  floe_use_pch(${ARG_NAME} floe_pch)
endfunction()

# Precompiled headers. fmt (through Status, in nearly every file), nlohmann/json and
# GoogleTest cost one to three seconds of parsing per translation unit with clang (measured
# with -fsyntax-only); with them precompiled and -g1 the clang sanitizer tree builds in
# 6.7 minutes instead of 11 on two cores. Two shared headers are compiled once: floe_pch
# for the libraries, the executables and the fuzz targets, floe_test_pch for the GoogleTest
# binaries (other flags and macros: a header is only reusable with the same ones). Off with
# -DFLOE_PCH=OFF, e.g. to check that every file includes what it uses.
#
# The test bodies gain nothing from optimisation: the code under test is the libraries,
# built with the preset's flags. -O1 in release (-O3 test bodies were a third of its compile
# time), -O0 under the sanitizers (the model-checking tests keep their loops plain so that
# this stays quick).
if(FLOE_SANITIZE)
  set(FLOE_TEST_OPT_FLAGS -O0)
else()
  set(FLOE_TEST_OPT_FLAGS $<$<CONFIG:Release>:-O1>)
endif()

set(FLOE_PCH_HEADERS
    <algorithm> <cstdint> <cstring> <functional> <map> <memory> <optional> <span> <string>
    <string_view> <utility> <vector> <fmt/format.h> <nlohmann/json.hpp>)

function(floe_setup_pch)
  if(NOT FLOE_PCH)
    return()
  endif()
  add_library(floe_pch OBJECT ${PROJECT_SOURCE_DIR}/cmake/pch.cc)
  target_include_directories(floe_pch PRIVATE ${PROJECT_SOURCE_DIR}/src)
  target_link_libraries(floe_pch PRIVATE fmt::fmt nlohmann_json::nlohmann_json)
  target_precompile_headers(floe_pch PRIVATE ${FLOE_PCH_HEADERS})
  if(FLOE_BUILD_TESTS)
    add_library(floe_test_pch OBJECT ${PROJECT_SOURCE_DIR}/cmake/pch.cc)
    target_include_directories(floe_test_pch PRIVATE ${PROJECT_SOURCE_DIR}/src)
    target_link_libraries(floe_test_pch PRIVATE fmt::fmt nlohmann_json::nlohmann_json
                          GTest::gtest GTest::gmock)
    target_compile_options(floe_test_pch PRIVATE ${FLOE_TEST_OPT_FLAGS})
    target_precompile_headers(floe_test_pch PRIVATE ${FLOE_PCH_HEADERS}
                              <gtest/gtest.h> <gmock/gmock.h>)
  endif()
endfunction()

# floe_use_pch(TARGET PCH_TARGET): TARGET's files start from PCH_TARGET's precompiled header.
function(floe_use_pch target pch_target)
  if(FLOE_PCH)
    target_precompile_headers(${target} REUSE_FROM ${pch_target})
  endif()
endfunction()
