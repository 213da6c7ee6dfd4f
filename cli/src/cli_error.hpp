// The one way a `proofpipe` subcommand reports an error: one line on stderr,
// "proofpipe: error: <message>", and the exit code kExitError (2); and the one
// clock the subcommands time their steps with.
#pragma once

#include <chrono>
#include <cstdio>
#include <string>

#include "commands.hpp"
#include "proofpipe/common/clock.hpp"
#include "proofpipe/common/status.hpp"

namespace proofpipe::cli {

inline int fail(std::string message) {
  // One line, whatever the message holds (CLI11's and errno texts included).
  for (char& c : message) c = c == '\n' ? ' ' : c;
  while (!message.empty() && message.back() == ' ') message.pop_back();
  std::fprintf(stderr, "proofpipe: error: %s\n", message.c_str());
  return kExitError;
}
inline int fail(const Status& st) { return fail(st.message()); }

}  // namespace proofpipe::cli
