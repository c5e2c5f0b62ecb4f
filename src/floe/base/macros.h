// Propagation macros for Status / Result<T> and small compiler helpers.
#pragma once

#include <utility>

#include "floe/base/status.h"

#define FLOE_CONCAT_INNER(a, b) a##b
#define FLOE_CONCAT(a, b) FLOE_CONCAT_INNER(a, b)

#define FLOE_PREDICT_FALSE(x) (__builtin_expect(!!(x), 0))
#define FLOE_PREDICT_TRUE(x) (__builtin_expect(!!(x), 1))

namespace floe::internal {
inline Status ToStatus(Status s) { return s; }
template <typename T>
Status ToStatus(Result<T>&& r) {
  return std::move(r).status();
}
template <typename T>
Status ToStatus(const Result<T>& r) {
  return r.status();
}
}  // namespace floe::internal

// Evaluates `expr` (a Status or Result) and returns its error from the enclosing function.
#define FLOE_RETURN_IF_ERROR(expr)                                    \
  do {                                                                \
    ::floe::Status _floe_status = ::floe::internal::ToStatus((expr)); \
    if (FLOE_PREDICT_FALSE(!_floe_status.ok())) return _floe_status;  \
  } while (false)

#define FLOE_ASSIGN_OR_RETURN_IMPL(tmp, lhs, expr) \
  auto tmp = (expr);                               \
  if (FLOE_PREDICT_FALSE(!tmp.has_value())) {      \
    return std::move(tmp).error();                 \
  }                                                \
  lhs = std::move(tmp).value()

// Evaluates `expr` (a Result<T>); on error returns it, else moves the value into `lhs`,
// which may be a declaration: FLOE_ASSIGN_OR_RETURN(auto x, MakeX());
#define FLOE_ASSIGN_OR_RETURN(lhs, expr) \
  FLOE_ASSIGN_OR_RETURN_IMPL(FLOE_CONCAT(_floe_result_, __COUNTER__), lhs, expr)

// Checks an invariant of floe's own code (never bytes from outside): aborts with a message.
// FLOE_CHECK always runs; FLOE_DCHECK only in debug builds (hot paths).
#define FLOE_CHECK(cond)                                        \
  do {                                                          \
    if (FLOE_PREDICT_FALSE(!(cond))) {                          \
      ::floe::internal::CheckFailed(#cond, __FILE__, __LINE__); \
    }                                                           \
  } while (false)
#ifdef NDEBUG
#define FLOE_DCHECK(cond) \
  do {                    \
  } while (false && (cond))
#else
#define FLOE_DCHECK(cond) FLOE_CHECK(cond)
#endif

namespace floe::internal {
[[noreturn]] void CheckFailed(const char* cond, const char* file, int line);
}  // namespace floe::internal
