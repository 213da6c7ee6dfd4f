// Values as users write them on the command line and in the environment.
// Byte sizes: "512M", "4G", "1.5GiB", "100MB", "4096". Binary multiples
// throughout (K = KiB = 1024), as memory caps and cgroup limits are; a bare
// number is bytes. Lists: "a,b,c" (--gpus, PROOFPIPE_FAULTS).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "proofpipe/common/status.hpp"

namespace proofpipe {

// Parses a size; errors name the text and what is wrong.
Result<uint64_t> parse_size(std::string_view text);

// "a,b,,c" -> {"a", "b", "", "c"}; "" -> {""}: every piece, empty ones too,
// so each caller decides whether an empty entry is an error.
std::vector<std::string_view> split_list(std::string_view text, char sep = ',');

// A whole decimal unsigned number (no sign, no spaces, in range).
bool parse_uint(std::string_view text, unsigned* out);

// 1536 -> "1.50 KiB", 3221225472 -> "3.00 GiB" (for logs and summaries).
std::string format_size(uint64_t bytes);

}  // namespace proofpipe
