// Byte sizes as users write them on the command line: "512M", "4G", "1.5GiB",
// "100MB", "4096". Binary multiples throughout (K = KiB = 1024), as memory caps
// and cgroup limits are; a bare number is bytes.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "proofpipe/common/status.hpp"

namespace proofpipe {

// Parses a size; errors name the text and what is wrong.
Result<uint64_t> parse_size(std::string_view text);

// 1536 -> "1.50 KiB", 3221225472 -> "3.00 GiB" (for logs and summaries).
std::string format_size(uint64_t bytes);

}  // namespace proofpipe
