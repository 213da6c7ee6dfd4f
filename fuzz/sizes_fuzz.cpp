// Fuzz target: the command line's size and number parsers (common/sizes.hpp:
// parse_size for --memory-style sizes, parse_uint behind the CLI's numeric
// checks, split_list for --gpus). Property: an error or a value that a
// second parse of its own spelling gives back.
#include <string>

#include "fuzz_input.hpp"
#include "proofpipe/common/sizes.hpp"

using namespace proofpipe;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);

  if (auto bytes = parse_size(text)) {
    auto back = parse_size(std::to_string(*bytes));
    PP_FUZZ_CHECK(back.is_ok() && *back == *bytes);
    volatile size_t sink = format_size(*bytes).size();
    (void)sink;
  }

  unsigned n = 0;
  if (parse_uint(text, &n)) {
    unsigned back = 0;
    PP_FUZZ_CHECK(parse_uint(std::to_string(n), &back) && back == n);
    PP_FUZZ_CHECK(text.find_first_not_of("0123456789") == std::string_view::npos);
  }

  std::string joined;
  bool first = true;
  for (std::string_view piece : split_list(text)) {
    if (!first) joined += ',';
    joined += piece;
    first = false;
  }
  PP_FUZZ_CHECK(joined == text);
  return 0;
}
