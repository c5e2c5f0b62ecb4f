// Status and Result<T>: floe's one error model.
//
// Every fallible function returns Status (no value) or Result<T> (a value or a Status).
// An OK Status is a single null pointer; an error carries a code and a message.
// Propagate with FLOE_RETURN_IF_ERROR / FLOE_ASSIGN_OR_RETURN (base/macros.h).
//
// Thread-safety: const methods may be called concurrently; Status is a value type.
#pragma once

#include <cstdint>
#include <expected>
#include <memory>
#include <string>
#include <string_view>
#include <utility>

#include <fmt/format.h>

namespace floe {

// The code set is small on purpose. base/ only names the codes (StatusCodeName); each
// protocol maps every one of them in one table of its own, a switch without `default:` so a
// new code does not compile until each table has its answer:
//   rest/errors.h               HTTP status and Iceberg REST error type (the REST catalog and
//                               the management API)
//   kafka/protocol.h            Kafka error code (ErrorCodeFor, the broker)
//   ingest/registry_errors.h    Confluent Schema Registry error code
enum class StatusCode : uint8_t {
  kOk = 0,
  kInvalidArgument,     // the caller's input is wrong; retrying will not help
  kNotFound,            // a named object does not exist
  kAlreadyExists,       // a named object exists already
  kFailedPrecondition,  // the system is not in a state where the call can run
  kConflict,            // an optimistic commit lost a race: retry the transaction
  kUnavailable,         // transient: retry the call
  kDeadlineExceeded,    // a timeout elapsed; the outcome may be unknown
  kUnauthenticated,
  kPermissionDenied,
  kCorrupt,            // stored or received bytes are malformed (data loss if ours)
  kUnimplemented,      // a valid request for something floe does not do
  kIOError,            // the OS or a storage service failed an I/O call
  kResourceExhausted,  // storage full (ENOSPC, EDQUOT) or a quota spent: retry once freed
  kInternal,           // a floe bug: an invariant did not hold
};

// Every StatusCode, in enum order: the tests of the mapping tables walk it.
inline constexpr StatusCode kAllStatusCodes[] = {
    StatusCode::kOk,
    StatusCode::kInvalidArgument,
    StatusCode::kNotFound,
    StatusCode::kAlreadyExists,
    StatusCode::kFailedPrecondition,
    StatusCode::kConflict,
    StatusCode::kUnavailable,
    StatusCode::kDeadlineExceeded,
    StatusCode::kUnauthenticated,
    StatusCode::kPermissionDenied,
    StatusCode::kCorrupt,
    StatusCode::kUnimplemented,
    StatusCode::kIOError,
    StatusCode::kResourceExhausted,
    StatusCode::kInternal,
};

// The code's name, as in "NotFound"; "Unknown" for a value outside the enum.
std::string_view StatusCodeName(StatusCode code);

class [[nodiscard]] Status {
 public:
  Status() noexcept = default;
  Status(StatusCode code, std::string message);

  Status(const Status& other);
  Status& operator=(const Status& other);
  Status(Status&&) noexcept = default;
  Status& operator=(Status&&) noexcept = default;

  static Status OK() { return Status(); }

  template <typename... Args>
  static Status InvalidArgument(fmt::format_string<Args...> f, Args&&... args) {
    return Status(StatusCode::kInvalidArgument, fmt::format(f, std::forward<Args>(args)...));
  }
  template <typename... Args>
  static Status NotFound(fmt::format_string<Args...> f, Args&&... args) {
    return Status(StatusCode::kNotFound, fmt::format(f, std::forward<Args>(args)...));
  }
  template <typename... Args>
  static Status AlreadyExists(fmt::format_string<Args...> f, Args&&... args) {
    return Status(StatusCode::kAlreadyExists, fmt::format(f, std::forward<Args>(args)...));
  }
  template <typename... Args>
  static Status FailedPrecondition(fmt::format_string<Args...> f, Args&&... args) {
    return Status(StatusCode::kFailedPrecondition, fmt::format(f, std::forward<Args>(args)...));
  }
  template <typename... Args>
  static Status Conflict(fmt::format_string<Args...> f, Args&&... args) {
    return Status(StatusCode::kConflict, fmt::format(f, std::forward<Args>(args)...));
  }
  template <typename... Args>
  static Status Unavailable(fmt::format_string<Args...> f, Args&&... args) {
    return Status(StatusCode::kUnavailable, fmt::format(f, std::forward<Args>(args)...));
  }
  template <typename... Args>
  static Status DeadlineExceeded(fmt::format_string<Args...> f, Args&&... args) {
    return Status(StatusCode::kDeadlineExceeded, fmt::format(f, std::forward<Args>(args)...));
  }
  template <typename... Args>
  static Status Unauthenticated(fmt::format_string<Args...> f, Args&&... args) {
    return Status(StatusCode::kUnauthenticated, fmt::format(f, std::forward<Args>(args)...));
  }
  template <typename... Args>
  static Status PermissionDenied(fmt::format_string<Args...> f, Args&&... args) {
    return Status(StatusCode::kPermissionDenied, fmt::format(f, std::forward<Args>(args)...));
  }
  template <typename... Args>
  static Status Corrupt(fmt::format_string<Args...> f, Args&&... args) {
    return Status(StatusCode::kCorrupt, fmt::format(f, std::forward<Args>(args)...));
  }
  template <typename... Args>
  static Status Unimplemented(fmt::format_string<Args...> f, Args&&... args) {
    return Status(StatusCode::kUnimplemented, fmt::format(f, std::forward<Args>(args)...));
  }
  template <typename... Args>
  static Status IOError(fmt::format_string<Args...> f, Args&&... args) {
    return Status(StatusCode::kIOError, fmt::format(f, std::forward<Args>(args)...));
  }
  template <typename... Args>
  static Status ResourceExhausted(fmt::format_string<Args...> f, Args&&... args) {
    return Status(StatusCode::kResourceExhausted, fmt::format(f, std::forward<Args>(args)...));
  }
  template <typename... Args>
  static Status Internal(fmt::format_string<Args...> f, Args&&... args) {
    return Status(StatusCode::kInternal, fmt::format(f, std::forward<Args>(args)...));
  }

  bool ok() const { return state_ == nullptr; }
  StatusCode code() const { return state_ ? state_->code : StatusCode::kOk; }
  // The message without the code name; empty for OK.
  std::string_view message() const {
    return state_ ? std::string_view(state_->message) : std::string_view();
  }
  // "Corrupt: <message>", or "OK".
  std::string ToString() const;

  // Returns a copy whose message is "<context>: <message>". OK stays OK.
  template <typename... Args>
  Status WithContext(fmt::format_string<Args...> f, Args&&... args) const {
    if (ok()) return Status();
    return Status(code(), fmt::format(f, std::forward<Args>(args)...) + ": " + state_->message);
  }

  bool IsNotFound() const { return code() == StatusCode::kNotFound; }
  bool IsConflict() const { return code() == StatusCode::kConflict; }
  bool IsCorrupt() const { return code() == StatusCode::kCorrupt; }
  bool IsInvalidArgument() const { return code() == StatusCode::kInvalidArgument; }

 private:
  struct State {
    StatusCode code;
    std::string message;
  };
  std::unique_ptr<State> state_;
};

// Result<T>: a T or an error Status. A std::expected that also converts from a Status,
// so a function returning Result<T> can `return Status::NotFound(...)`.
template <typename T>
class [[nodiscard]] Result : public std::expected<T, Status> {
  using Base = std::expected<T, Status>;

 public:
  using Base::Base;
  Result(Status status)  // NOLINT(google-explicit-constructor)
      : Base(std::unexpect, std::move(status)) {}

  bool ok() const { return this->has_value(); }
  // The error, or OK.
  Status status() const& { return this->has_value() ? Status() : this->error(); }
  Status status() && { return this->has_value() ? Status() : std::move(this->error()); }
};

}  // namespace floe

template <>
struct fmt::formatter<floe::Status> : fmt::formatter<std::string> {
  auto format(const floe::Status& s, fmt::format_context& ctx) const {
    return fmt::formatter<std::string>::format(s.ToString(), ctx);
  }
};
