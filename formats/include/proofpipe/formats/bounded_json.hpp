// Parsing JSON that comes from outside (request bodies, server answers,
// proof, public and verification key files) with its nesting capped, so no
// deeply nested value is ever built. nlohmann-json parses iteratively, but
// copies and compares values recursively: a 200 KB text of 100,000 nested
// arrays, built whole, is a stack overflow waiting for its first copy.
// Every reader of outside JSON goes through parse_json_bounded.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "proofpipe/common/status.hpp"

namespace proofpipe::formats {

// Arrays and objects nested at most this deep. snarkjs's deepest file
// (vk_alphabeta_12) nests 4; the API's answers 3; circom inputs rarely past
// 4. 64 leaves room for any real document and keeps the recursion of a
// copy or comparison of the tree under about 64 frames.
inline constexpr size_t kMaxJsonDepth = 64;

// Empty when `text` nests at most `max_depth` arrays and objects deep, else
// the one-line error. One pass, no recursion, strings skipped (a bracket in
// one does not count); it does not validate, a parser does.
std::string json_depth_problem(std::string_view text, size_t max_depth = kMaxJsonDepth);

// `text` as a tree, or kBadFormat: "malformed JSON: <the parser's message>"
// or "JSON nested deeper than <max_depth> arrays and objects". The cap is
// applied while parsing (a too-deep array or object stops the parse at its
// opening bracket), so what is built never nests deeper. Never throws.
Result<nlohmann::json> parse_json_bounded(std::string_view text, size_t max_depth = kMaxJsonDepth);
// The same, keeping the members' order (snarkjs's files, proofs as stored).
Result<nlohmann::ordered_json> parse_ordered_json_bounded(std::string_view text, size_t max_depth = kMaxJsonDepth);

}  // namespace proofpipe::formats
