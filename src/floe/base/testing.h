// GoogleTest helpers for Status / Result, shared by every unit test:
//   FLOE_ASSERT_OK(expr) / FLOE_EXPECT_OK(expr)   expr (a Status or Result) is OK, else the
//                                                  failure prints its status (and whatever
//                                                  is streamed in: FLOE_ASSERT_OK(x) << path)
//   FLOE_ASSERT_OK_AND_ASSIGN(lhs, expr)           expr is an OK Result; its value moves to lhs
//   EXPECT_THAT(expr, IsError(StatusCode::kX))     expr failed with that code
//   EXPECT_THAT(expr, IsError(kX, HasSubstr("…"))) ... and a message matching the matcher
// Tests only: the header includes gmock.
#pragma once

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <ostream>
#include <string>
#include <utility>

#include "floe/base/macros.h"
#include "floe/base/status.h"

namespace floe {

inline void PrintTo(const Status& status, std::ostream* os) { *os << status.ToString(); }
inline void PrintTo(StatusCode code, std::ostream* os) { *os << StatusCodeName(code); }

namespace testing_internal {

template <typename T>
Status AsStatus(const T& value) {
  return ::floe::internal::ToStatus(value);
}

}  // namespace testing_internal

// Matches a Status or Result<T> that failed with `code` and a message matching `message`.
MATCHER_P2(IsErrorWithMessage, code, message,
           std::string(negation ? "is not" : "is") + " an error " +
               std::string(StatusCodeName(code))) {
  Status status = ::floe::testing_internal::AsStatus(arg);
  *result_listener << "whose status is " << status.ToString();
  return status.code() == code &&
         ::testing::ExplainMatchResult(message, std::string(status.message()), result_listener);
}

template <typename MessageMatcher>
auto IsError(StatusCode code, MessageMatcher message) {
  return IsErrorWithMessage(code, ::testing::SafeMatcherCast<const std::string&>(message));
}

inline auto IsError(StatusCode code) { return IsError(code, ::testing::_); }

}  // namespace floe

// FLOE_ASSERT_OK / FLOE_EXPECT_OK take more context like any gtest assertion:
// FLOE_ASSERT_OK(Write(path)) << path. `switch (0) case 0: default:` makes the macro one
// statement that a following `else` cannot attach to (gtest's own assertions do the same).
#define FLOE_TEST_OK_IMPL(expr, fail)                                                \
  switch (0)                                                                         \
  case 0:                                                                            \
  default:                                                                           \
    if (const ::floe::Status _floe_test_status = ::floe::internal::ToStatus((expr)); \
        _floe_test_status.ok()) {                                                    \
    } else                                                                           \
      fail() << #expr << ": " << _floe_test_status.ToString()

#define FLOE_ASSERT_OK(expr) FLOE_TEST_OK_IMPL(expr, FAIL)
#define FLOE_EXPECT_OK(expr) FLOE_TEST_OK_IMPL(expr, ADD_FAILURE)

#define FLOE_ASSERT_OK_AND_ASSIGN_IMPL(tmp, lhs, expr)               \
  auto tmp = (expr);                                                 \
  if (!tmp.ok()) FAIL() << #expr << ": " << tmp.status().ToString(); \
  lhs = std::move(tmp).value()

// Expects `expr` (a Status or Result) to fail with StatusCode::`code`: FLOE_EXPECT_CODE(x,
// kNotFound).
#define FLOE_EXPECT_CODE(expr, code) EXPECT_THAT((expr), ::floe::IsError(::floe::StatusCode::code))

// Asserts that `expr` (a Result<T>) is OK and moves its value into `lhs`, which may be a
// declaration: FLOE_ASSERT_OK_AND_ASSIGN(auto table, catalog->LoadTable(id));
#define FLOE_ASSERT_OK_AND_ASSIGN(lhs, expr) \
  FLOE_ASSERT_OK_AND_ASSIGN_IMPL(FLOE_CONCAT(_floe_assert_, __COUNTER__), lhs, expr)
