// Checks CLI11 runs on flag values as it parses them, so that a bad value is
// refused before anything runs, in one line naming the flag
// ("proofpipe: error: --slots: ..."), exit 2. Counts must be whole numbers
// of at least 1: "--slots 0" is refused, not taken for the default (leave
// the flag out for that). Sizes are checked where they are used (engine/src/batch.cpp).
#pragma once

#include <cmath>
#include <string>

#include <fmt/format.h>
#include <CLI/CLI.hpp>

#include "proofpipe/common/sizes.hpp"

namespace proofpipe::cli {

// --hang-timeout: workers beat every 100 ms, so below half a second a busy
// one could be killed for one late beat; above a week it is no timeout.
inline constexpr double kMinHangTimeoutS = 0.5;
inline constexpr double kMaxHangTimeoutS = 7 * 24 * 3600.0;

// Empty when `seconds` is an acceptable --hang-timeout, else what is wrong.
inline std::string hang_timeout_problem(double seconds) {
  if (std::isfinite(seconds) && seconds >= kMinHangTimeoutS && seconds <= kMaxHangTimeoutS) return {};
  return fmt::format("{} is not a number of seconds from {} to {} (one week)", seconds, kMinHangTimeoutS,
                     kMaxHangTimeoutS);
}

// A whole number from `min` to `max`: no sign, no fraction, no "auto" 0.
inline CLI::Validator count_range(unsigned min, unsigned max) {
  return CLI::Validator(
      [min, max](std::string& text) -> std::string {
        unsigned n = 0;
        if (parse_uint(text, &n) && n >= min && n <= max) return {};
        return fmt::format("'{}' is not a whole number from {} to {}", text, min, max);
      },
      // No description: CLI11 would print it after the type ("UINT:INT in
      // [10 - 60000]"); the error above names the range when it matters.
      "");
}

inline CLI::Validator hang_timeout_check() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        char* end = nullptr;
        const double s = std::strtod(text.c_str(), &end);
        if (text.empty() || end != text.c_str() + text.size())
          return fmt::format("'{}' is not a number of seconds", text);
        return hang_timeout_problem(s);
      },
      "");
}

}  // namespace proofpipe::cli
