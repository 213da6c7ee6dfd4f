// One spdlog logger per process, named after its role ("coord", "synth.3",
// "gpu.0"). Pattern: time with ms, name, pid, level. Logs go to stderr so that
// stdout stays for a command's own output (OK/INVALID, tables, JSON).
#pragma once

#include <memory>
#include <string>

#include <spdlog/spdlog.h>

namespace proofpipe {

// Creates the process logger and makes it spdlog's default. Level from
// PROOFPIPE_LOG (trace|debug|info|warn|error|off), default warn: a command
// that succeeds prints only what it promises, as snarkjs and rapidsnark do
// (log_verbosely() brings the info lines back). With
// PROOFPIPE_LOG_CLEAR_LINE=1 in the environment each line starts by
// clearing the terminal line (kClearLine): `proofpipe run` sets it for
// itself and its workers while it shows a progress bar, so a log line
// replaces the bar instead of landing on it, and the bar is drawn again
// below it.
std::shared_ptr<spdlog::logger> init_logging(const std::string& role);

inline constexpr const char* kClearLineEnv = "PROOFPIPE_LOG_CLEAR_LINE";
inline constexpr const char* kClearLine = "\r\033[K";  // carriage return, erase to the end of the line

// Info level for this process and the workers it spawns after (through
// PROOFPIPE_LOG), unless PROOFPIPE_LOG already says otherwise: `--verbose`,
// and `serve`, whose log is the operator's record.
void log_verbosely();

// Sets kClearLineEnv (inherited by the children spawned after) and makes
// this process's logger clear the line before each message.
void clear_line_before_logs();

}  // namespace proofpipe
