// Status names and the assert handler.
#include "proofpipe/common/status.hpp"

#include <cstdio>
#include <cstdlib>

#include "proofpipe/common/assert.hpp"

namespace proofpipe {

const char* error_code_name(ErrorCode code) {
  switch (code) {
    case ErrorCode::kOk: return "ok";
    case ErrorCode::kInvalidArgument: return "invalid_argument";
    case ErrorCode::kBadFormat: return "bad_format";
    case ErrorCode::kNotFound: return "not_found";
    case ErrorCode::kUnavailable: return "unavailable";
    case ErrorCode::kResourceExhausted: return "resource_exhausted";
    case ErrorCode::kDeadlineExceeded: return "deadline_exceeded";
    case ErrorCode::kIo: return "io";
    case ErrorCode::kInternal: return "internal";
    case ErrorCode::kDeviceLost: return "device_lost";
    case ErrorCode::kPermissionDenied: return "permission_denied";
    case ErrorCode::kStale: return "stale";
  }
  return "unknown";
}

std::string Status::to_string() const {
  if (is_ok()) return "ok";
  return fmt::format("{}: {}", error_code_name(code_), message_);
}

namespace detail {
void assert_fail(const char* cond, const char* file, int line, const char* msg) {
  std::fprintf(stderr, "proofpipe: assertion failed: %s at %s:%d: %s\n", cond, file, line, msg);
  std::fflush(stderr);
  std::abort();
}
}  // namespace detail

}  // namespace proofpipe
