// Time as proofpipe reports it: seconds elapsed on the steady clock, UTC
// timestamps in ISO 8601 ("2026-12-06T03:02:37Z", or with milliseconds where
// the API and the journal's times need them), and the durations flags take.
#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <string_view>

namespace proofpipe {

inline double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// Whole seconds (truncated), or milliseconds (rounded once, so that 59.9996 s
// is the next minute and never ":60"). `unix_seconds` <= 0 is the epoch.
std::string iso8601_utc(double unix_seconds, bool millis);
std::string iso8601_utc(std::chrono::system_clock::time_point t, bool millis = false);

// A flag's duration: a non-negative decimal number with a unit of ms, s, m,
// h or d ("90s", "1.5h", "30d"; no unit: seconds), in seconds; nullopt when
// it is not one. Each flag checks its own range and words its own error.
std::optional<double> parse_duration_s(std::string_view text);

}  // namespace proofpipe
