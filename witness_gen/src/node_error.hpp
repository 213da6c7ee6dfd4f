// The part of a generator's output that says what went wrong, for the
// partition's cause: node's report of an uncaught error starts with the
// script's file:line and the JavaScript source line that threw, then the
// error itself ("Error: Too many values for input signal s"), then the
// stack. Only the error is the user's business; circom's messages name the
// signal where circom knows it (not found, too many or not enough values),
// and an assert's carries circom's "Error in template T line: N".
#pragma once

#include <string>
#include <string_view>

namespace proofpipe::witness_gen {

// `tail` is the generator's kept output, lines joined by " | " (stack frames
// already dropped). From the first line that is a JavaScript error
// ("Error: ...", "TypeError: ...", ...) on, that prefix dropped; a tail
// without one (a native generator's own words) is returned as it is.
std::string error_from_output(std::string_view tail);

}  // namespace proofpipe::witness_gen
