// One spdlog logger per process, named after its role ("coord", "synth.3",
// "gpu.0"). Pattern: time with ms, name, pid, level. Logs go to stderr so that
// stdout stays for a command's own output (OK/INVALID, tables, JSON).
#pragma once

#include <memory>
#include <string>

#include <spdlog/spdlog.h>

namespace proofpipe {

// Creates the process logger and makes it spdlog's default. Level from
// PROOFPIPE_LOG (trace|debug|info|warn|error|off), default info.
std::shared_ptr<spdlog::logger> init_logging(const std::string& role);

}  // namespace proofpipe
