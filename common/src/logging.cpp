// Process logger set-up (see logging.hpp).
#include "proofpipe/common/logging.hpp"

#include <cstdlib>

#include <spdlog/sinks/stdout_color_sinks.h>

namespace proofpipe {

std::shared_ptr<spdlog::logger> init_logging(const std::string& role) {
  auto existing = spdlog::get(role);
  if (existing) return existing;
  auto logger = spdlog::stderr_color_mt(role);
  logger->set_pattern("%H:%M:%S.%e %n[%P] %^%l%$ %v");
  spdlog::level::level_enum level = spdlog::level::info;
  if (const char* env = std::getenv("PROOFPIPE_LOG")) level = spdlog::level::from_str(env);
  logger->set_level(level);
  spdlog::set_default_logger(logger);
  return logger;
}

}  // namespace proofpipe
