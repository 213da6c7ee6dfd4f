// Status and Result<T>: the one error mechanism across library boundaries.
// Expected failures (I/O, malformed input, exhausted resources) travel as
// values; bugs are PP_ASSERTs (assert.hpp); nothing throws across a library API.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <variant>

#if !defined(__CUDACC__)
// fmt 9's consteval format checks do not compile under nvcc: CUDA translation
// units build their messages as plain strings.
#include <fmt/format.h>
#endif

namespace proofpipe {

enum class ErrorCode : uint8_t {
  kOk = 0,
  kInvalidArgument,    // the caller passed something unusable (flag, size, path)
  kBadFormat,          // a file is malformed: truncated, bad magic, wrong section size
  kNotFound,           // a file or object does not exist
  kUnavailable,        // a feature or device is not present (e.g. CUDA backend)
  kResourceExhausted,  // out of memory, /dev/shm too small, no free slot
  kDeadlineExceeded,   // a timeout
  kIo,                 // an OS call failed (errno in the message)
  kInternal,           // should not happen; a bug that is reported, not asserted
  kDeviceLost,         // a sticky GPU error: the CUDA context is unusable, the process must exit
  kPermissionDenied,   // refused by policy (a witness path outside the service's --allow-dir)
  kStale,              // a claim's fencing token is no longer current (service queue: another node holds it)
};

const char* error_code_name(ErrorCode code);

class [[nodiscard]] Status {
 public:
  Status() = default;
  Status(ErrorCode code, std::string message) : code_(code), message_(std::move(message)) {}

  static Status ok() { return {}; }
  bool is_ok() const { return code_ == ErrorCode::kOk; }
  explicit operator bool() const { return is_ok(); }
  ErrorCode code() const { return code_; }
  const std::string& message() const { return message_; }
  // "bad_format: zkey: section 7 is 1024 bytes, expected 2048"
  std::string to_string() const;

 private:
  ErrorCode code_ = ErrorCode::kOk;
  std::string message_;
};

#if !defined(__CUDACC__)
template <class... Args>
Status make_error(ErrorCode code, fmt::format_string<Args...> f, Args&&... args) {
  return Status(code, fmt::format(f, std::forward<Args>(args)...));
}
#endif

// Result<T>: a T or a non-ok Status.
template <class T>
class [[nodiscard]] Result {
 public:
  Result(T value) : v_(std::move(value)) {}         // NOLINT: implicit by design
  Result(Status status) : v_(std::move(status)) {}  // NOLINT: implicit by design

  bool is_ok() const { return std::holds_alternative<T>(v_); }
  explicit operator bool() const { return is_ok(); }
  const Status& status() const {
    static const Status kOkStatus;
    return is_ok() ? kOkStatus : std::get<Status>(v_);
  }
  T& value() & { return std::get<T>(v_); }
  const T& value() const& { return std::get<T>(v_); }
  T&& value() && { return std::get<T>(std::move(v_)); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }

 private:
  std::variant<T, Status> v_;
};

}  // namespace proofpipe

// Early return of a non-ok Status from a function returning Status or Result<T>.
#define PP_RETURN_IF_ERROR(expr)                \
  do {                                          \
    ::proofpipe::Status pp_status_ = (expr);    \
    if (!pp_status_.is_ok()) return pp_status_; \
  } while (0)

#define PP_CONCAT_INNER(a, b) a##b
#define PP_CONCAT(a, b) PP_CONCAT_INNER(a, b)
// PP_ASSIGN_OR_RETURN(auto x, make_x()); — binds the value or returns the Status.
// `lhs` is a declaration and `tmp` a name, so neither can be parenthesized.
// NOLINTBEGIN(bugprone-macro-parentheses)
#define PP_ASSIGN_OR_RETURN(lhs, expr) PP_ASSIGN_OR_RETURN_IMPL(PP_CONCAT(pp_result_, __LINE__), lhs, expr)
#define PP_ASSIGN_OR_RETURN_IMPL(tmp, lhs, expr) \
  auto tmp = (expr);                             \
  if (!tmp.is_ok()) return tmp.status();         \
  lhs = std::move(tmp).value()
// NOLINTEND(bugprone-macro-parentheses)
