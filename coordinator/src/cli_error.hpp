// The one way a `proofpipe` subcommand reports an error: one line on stderr,
// "proofpipe: error: <message>", and the exit code kExitError (2).
#pragma once

#include <cstdio>
#include <string>

#include "proofpipe/common/status.hpp"
#include "proofpipe/coordinator/commands.hpp"

namespace proofpipe::cli {

inline int fail(const std::string& message) {
  std::fprintf(stderr, "proofpipe: error: %s\n", message.c_str());
  return kExitError;
}
inline int fail(const Status& st) { return fail(st.message()); }

}  // namespace proofpipe::cli
