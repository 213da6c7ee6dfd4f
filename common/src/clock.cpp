// iso8601_utc and parse_duration_s (clock.hpp).
#include "proofpipe/common/clock.hpp"

#include <charconv>
#include <cmath>
#include <cstdint>
#include <ctime>

#include <fmt/format.h>

namespace proofpipe {

std::string iso8601_utc(double unix_seconds, bool millis) {
  const auto ms_total = millis ? static_cast<int64_t>(std::llround(unix_seconds * 1000.0))
                               : static_cast<int64_t>(std::floor(unix_seconds)) * 1000;
  const std::time_t secs = static_cast<std::time_t>(ms_total / 1000);
  std::tm tm{};
  ::gmtime_r(&secs, &tm);
  const std::string date = fmt::format("{:04}-{:02}-{:02}T{:02}:{:02}:{:02}", tm.tm_year + 1900, tm.tm_mon + 1,
                                       tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec);
  return millis ? fmt::format("{}.{:03}Z", date, ms_total % 1000) : date + "Z";
}

std::string iso8601_utc(std::chrono::system_clock::time_point t, bool millis) {
  return iso8601_utc(std::chrono::duration<double>(t.time_since_epoch()).count(), millis);
}

std::optional<double> parse_duration_s(std::string_view text) {
  // A digit first: from_chars would also take "inf", "nan" and a sign.
  if (text.empty() || text[0] < '0' || text[0] > '9') return std::nullopt;
  double value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value, std::chars_format::fixed);
  if (ec != std::errc() || !std::isfinite(value)) return std::nullopt;
  const std::string_view unit(end, size_t(text.data() + text.size() - end));
  double scale = 0;
  if (unit == "ms") scale = 0.001;
  if (unit.empty() || unit == "s") scale = 1;
  if (unit == "m") scale = 60;
  if (unit == "h") scale = 3600;
  if (unit == "d") scale = 86400;
  if (scale == 0) return std::nullopt;
  return value * scale;
}

}  // namespace proofpipe
