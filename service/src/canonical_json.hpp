// An inline circom input's text as the service stores it, made without
// building its tree: exactly what nlohmann::json::parse(text).dump() gives
// (no spaces, each object's members in name order, a repeated name's last
// value, numbers as the parser reads them), which is what the service
// always stored, so a job's digest is what it was. The tree of a 200 MiB
// input with one long array cost 20x its text; this costs the text it
// writes, plus 4 bytes a member while an object is open (8 while one whose
// names are out of order is sorted, and a copy of that object's text).
#pragma once

#include <string>
#include <string_view>

#include "proofpipe/common/status.hpp"

namespace proofpipe::service {

// `text` must be valid JSON nested at most formats::kMaxJsonDepth deep
// (the body was checked whole); kInvalidArgument otherwise, or when the
// text is over 2 GiB (the offsets kept are 32-bit; inputs are 256 MiB at most).
Result<std::string> canonical_json(std::string_view text);

}  // namespace proofpipe::service
