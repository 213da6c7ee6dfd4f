// Depth-capped JSON parsing (bounded_json.hpp).
#include "proofpipe/formats/bounded_json.hpp"

#include <fmt/format.h>

namespace proofpipe::formats {
namespace {

std::string too_deep(size_t max_depth) {
  return fmt::format("JSON nested deeper than {} arrays and objects", max_depth);
}

// Thrown from the parser's callback at the first array or object past the
// cap: the parse stops there, and the partial tree (at most max_depth deep)
// is destroyed on the way out.
struct TooDeep {};

template <class J>
Result<J> parse_bounded(std::string_view text, size_t max_depth) {
  // depth: the arrays and objects around the one starting, so the
  // outermost is at 0 and the (max_depth + 1)-th level at max_depth.
  const typename J::parser_callback_t cap = [max_depth](int depth, typename J::parse_event_t event, J&) {
    if ((event == J::parse_event_t::object_start || event == J::parse_event_t::array_start) &&
        size_t(depth) >= max_depth)
      throw TooDeep{};
    return true;
  };
  try {
    return J::parse(text.begin(), text.end(), cap);
  } catch (const TooDeep&) {
    return Status(ErrorCode::kBadFormat, too_deep(max_depth));
  } catch (const std::exception& e) {
    std::string msg = e.what();
    for (char& c : msg) c = (c == '\n' || c == '\r') ? ' ' : c;
    return Status(ErrorCode::kBadFormat, "malformed JSON: " + msg);
  }
}

}  // namespace

std::string json_depth_problem(std::string_view text, size_t max_depth) {
  size_t depth = 0;
  bool in_string = false;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (in_string) {
      if (c == '\\')
        ++i;
      else if (c == '"')
        in_string = false;
    } else if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      if (++depth > max_depth) return too_deep(max_depth);
    } else if ((c == ']' || c == '}') && depth > 0) {
      --depth;
    }
  }
  return {};
}

Result<nlohmann::json> parse_json_bounded(std::string_view text, size_t max_depth) {
  return parse_bounded<nlohmann::json>(text, max_depth);
}
Result<nlohmann::ordered_json> parse_ordered_json_bounded(std::string_view text, size_t max_depth) {
  return parse_bounded<nlohmann::ordered_json>(text, max_depth);
}

}  // namespace proofpipe::formats
