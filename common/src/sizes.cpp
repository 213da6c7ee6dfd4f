// Size parsing and formatting, list splitting, whole numbers (see sizes.hpp).
#include "proofpipe/common/sizes.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <string>

namespace proofpipe {

Result<uint64_t> parse_size(std::string_view text) {
  std::string s(text);
  size_t i = 0;
  while (i < s.size() && (std::isdigit(static_cast<unsigned char>(s[i])) || s[i] == '.')) ++i;
  if (i == 0) return make_error(ErrorCode::kInvalidArgument, "size '{}': expected a number such as 512M or 4G", s);
  double number = 0;
  try {
    size_t used = 0;
    number = std::stod(s.substr(0, i), &used);
    if (used != i) throw std::invalid_argument("partial");
  } catch (const std::exception&) {
    return make_error(ErrorCode::kInvalidArgument, "size '{}': '{}' is not a number", s, s.substr(0, i));
  }
  std::string unit;
  for (size_t j = i; j < s.size(); ++j) {
    if (!std::isspace(static_cast<unsigned char>(s[j])))
      unit += static_cast<char>(std::toupper(static_cast<unsigned char>(s[j])));
  }
  // Accept K, KB, KIB (and M, G, T likewise); all binary multiples.
  double mult = 1;
  if (!unit.empty() && unit != "B") {
    static constexpr std::string_view kUnits = "KMGT";
    size_t p = kUnits.find(unit[0]);
    std::string_view rest = std::string_view(unit).substr(1);
    if (p == std::string_view::npos || !(rest.empty() || rest == "B" || rest == "IB")) {
      return make_error(ErrorCode::kInvalidArgument,
                        "size '{}': unknown unit '{}' (use K, M, G, T, optionally with B or iB)", s, s.substr(i));
    }
    mult = std::ldexp(1.0, 10 * static_cast<int>(p + 1));
  }
  double bytes = number * mult;
  if (!(bytes < 1.8e19)) return make_error(ErrorCode::kInvalidArgument, "size '{}' is too large", s);
  if (mult == 1 && number != std::floor(number))
    return make_error(ErrorCode::kInvalidArgument, "size '{}': a fraction of a byte", s);
  return static_cast<uint64_t>(std::llround(bytes));
}

std::string format_size(uint64_t bytes) {
  static constexpr const char* kNames[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  double v = static_cast<double>(bytes);
  int u = 0;
  while (v >= 1024 && u < 4) {
    v /= 1024;
    ++u;
  }
  if (u == 0) return fmt::format("{} B", bytes);
  return fmt::format("{:.2f} {}", v, kNames[u]);
}

std::vector<std::string_view> split_list(std::string_view text, char sep) {
  std::vector<std::string_view> out;
  for (size_t start = 0; start <= text.size();) {
    const size_t end = std::min(text.find(sep, start), text.size());
    out.push_back(text.substr(start, end - start));
    start = end + 1;
  }
  return out;
}

bool parse_uint(std::string_view text, unsigned* out) {
  if (text.empty()) return false;
  auto [p, ec] = std::from_chars(text.data(), text.data() + text.size(), *out);
  return ec == std::errc() && p == text.data() + text.size();
}

}  // namespace proofpipe
