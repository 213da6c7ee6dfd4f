// Process logger set-up (see logging.hpp).
#include "proofpipe/common/logging.hpp"

#include <cstdlib>

#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/sinks/stdout_sinks.h>

namespace proofpipe {
namespace {

bool clear_line() {
  const char* clear = std::getenv(kClearLineEnv);
  return clear != nullptr && std::string(clear) == "1";
}

std::string pattern() { return std::string(clear_line() ? kClearLine : "") + "%H:%M:%S.%e %n[%P] %^%l%$ %v"; }

// Clearing the line: a plain sink, which writes each line with one write();
// the colour sink writes a line in pieces, and another process's progress
// bar could land between the clearing and the text.
spdlog::sink_ptr make_sink() {
  if (clear_line()) return std::make_shared<spdlog::sinks::stderr_sink_mt>();
  return std::make_shared<spdlog::sinks::stderr_color_sink_mt>();
}

}  // namespace

std::shared_ptr<spdlog::logger> init_logging(const std::string& role) {
  auto existing = spdlog::get(role);
  if (existing) return existing;
  auto logger = std::make_shared<spdlog::logger>(role, make_sink());
  spdlog::register_logger(logger);
  logger->set_pattern(pattern());
  spdlog::level::level_enum level = spdlog::level::warn;
  if (const char* env = std::getenv("PROOFPIPE_LOG")) level = spdlog::level::from_str(env);
  logger->set_level(level);
  spdlog::set_default_logger(logger);
  return logger;
}

void log_verbosely() {
  if (std::getenv("PROOFPIPE_LOG") != nullptr) return;
  ::setenv("PROOFPIPE_LOG", "info", 1);
  if (auto logger = spdlog::default_logger()) logger->set_level(spdlog::level::info);
}

void clear_line_before_logs() {
  ::setenv(kClearLineEnv, "1", 1);
  if (auto logger = spdlog::default_logger()) {
    logger->sinks().assign(1, make_sink());
    logger->set_pattern(pattern());
  }
}

}  // namespace proofpipe
