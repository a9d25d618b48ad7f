// Errors without exceptions: every fallible call in the public API returns a Status or a
// Result<T>. A Status carries a code a program can branch on and a message a person can read.
#pragma once

#include <cstdlib>
#include <string>
#include <string_view>
#include <utility>
#include <variant>

namespace gemmtune {

enum class ErrorCode : int {
  ok = 0,
  invalid_argument = 1,  // the caller passed something that can never work (bad shape, stride…)
  unsupported = 2,       // valid, but this backend, device or build cannot do it
  not_found = 3,         // a named thing (backend, device, entry) does not exist
  io_error = 4,          // a file or socket operation failed
  corrupt_data = 5,      // stored or loaded data is malformed
  unavailable = 6,       // a service (GPU, Redis) is not reachable now
  wrong_result = 7,      // a kernel computed something other than the reference
  internal = 8,          // a bug in gemmtune
};

std::string_view error_code_name(ErrorCode code);

class [[nodiscard]] Status {
 public:
  Status() = default;
  Status(ErrorCode code, std::string message) : code_(code), message_(std::move(message)) {}

  static Status ok() { return {}; }
  bool is_ok() const { return code_ == ErrorCode::ok; }
  ErrorCode code() const { return code_; }
  const std::string& message() const { return message_; }
  // "invalid_argument: m must be >= 0 (got -5)", or "ok".
  std::string to_string() const;

 private:
  ErrorCode code_ = ErrorCode::ok;
  std::string message_;
};

inline Status invalid_argument(std::string message) {
  return {ErrorCode::invalid_argument, std::move(message)};
}
inline Status unsupported(std::string message) {
  return {ErrorCode::unsupported, std::move(message)};
}
inline Status not_found(std::string message) { return {ErrorCode::not_found, std::move(message)}; }
inline Status internal_error(std::string message) {
  return {ErrorCode::internal, std::move(message)};
}

// A value or the Status that explains why there is none.
template <class T>
class [[nodiscard]] Result {
 public:
  Result(T value) : state_(std::move(value)) {}  // NOLINT: implicit by design
  Result(Status status) : state_(std::move(status)) {  // NOLINT: implicit by design
    // An ok Status carries no value; treat it as a bug at the call site.
    if (std::get<Status>(state_).is_ok()) state_ = internal_error("Result built from an ok Status");
  }

  bool is_ok() const { return std::holds_alternative<T>(state_); }
  Status status() const { return is_ok() ? Status::ok() : std::get<Status>(state_); }

  // Calling value() on an error is a bug: abort with the message rather than run on garbage.
  T& value() & { return checked(); }
  const T& value() const& { return const_cast<Result*>(this)->checked(); }
  T&& value() && { return std::move(checked()); }
  T* operator->() { return &checked(); }
  const T* operator->() const { return &const_cast<Result*>(this)->checked(); }
  T& operator*() & { return checked(); }
  const T& operator*() const& { return const_cast<Result*>(this)->checked(); }
  T&& operator*() && { return std::move(checked()); }

 private:
  T& checked();
  std::variant<T, Status> state_;
};

[[noreturn]] void abort_on_bad_result_access(const Status& status);

template <class T>
T& Result<T>::checked() {
  if (!is_ok()) abort_on_bad_result_access(std::get<Status>(state_));
  return std::get<T>(state_);
}

}  // namespace gemmtune

// Propagates a non-ok Status to the caller.
#define GEMMTUNE_RETURN_IF_ERROR(expr)                 \
  do {                                                 \
    ::gemmtune::Status gemmtune_status_ = (expr);      \
    if (!gemmtune_status_.is_ok()) return gemmtune_status_; \
  } while (0)

#define GEMMTUNE_CONCAT_INNER(a, b) a##b
#define GEMMTUNE_CONCAT(a, b) GEMMTUNE_CONCAT_INNER(a, b)
// `GEMMTUNE_ASSIGN_OR_RETURN(auto x, make_x());` binds the value or returns the error.
#define GEMMTUNE_ASSIGN_OR_RETURN(lhs, expr) \
  GEMMTUNE_ASSIGN_OR_RETURN_IMPL(GEMMTUNE_CONCAT(gemmtune_result_, __LINE__), lhs, expr)
#define GEMMTUNE_ASSIGN_OR_RETURN_IMPL(tmp, lhs, expr) \
  auto tmp = (expr);                                   \
  if (!tmp.is_ok()) return tmp.status();               \
  lhs = std::move(tmp).value()
