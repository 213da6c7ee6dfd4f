// error_from_output (node_error.hpp).
#include "node_error.hpp"

#include <vector>

namespace proofpipe::witness_gen {
namespace {

constexpr std::string_view kSep = " | ";

// "Error: x", "TypeError: x", "RangeError [ERR_X]: x": a name ending in
// "Error" (letters only, an optional bracketed code) before ": ".
size_t error_message_start(std::string_view line) {
  const size_t colon = line.find(": ");
  if (colon == std::string_view::npos) return std::string_view::npos;
  std::string_view name = line.substr(0, colon);
  if (const size_t bracket = name.find(" ["); bracket != std::string_view::npos && name.ends_with(']')) {
    name = name.substr(0, bracket);
  }
  if (!name.ends_with("Error")) return std::string_view::npos;
  for (const char c : name) {
    if (!((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z'))) return std::string_view::npos;
  }
  return colon + 2;
}

}  // namespace

std::string error_from_output(std::string_view tail) {
  std::vector<std::string_view> lines;
  for (std::string_view rest = tail; !rest.empty();) {
    const size_t sep = rest.find(kSep);
    lines.push_back(rest.substr(0, sep));
    rest = sep == std::string_view::npos ? std::string_view() : rest.substr(sep + kSep.size());
  }
  for (size_t i = 0; i < lines.size(); ++i) {
    const size_t start = error_message_start(lines[i]);
    if (start == std::string_view::npos) continue;
    std::string out(lines[i].substr(start));
    for (size_t j = i + 1; j < lines.size(); ++j) {
      out += kSep;
      out += lines[j];
    }
    return out;
  }
  return std::string(tail);
}

}  // namespace proofpipe::witness_gen
