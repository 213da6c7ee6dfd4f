// The body of POST /v1/jobs (docs/api.md) into a SubmitRequest, strictly:
// the JSON form {"id","key","witnesses"|"inputs","priority"} and the
// multipart form (fields id, key, priority; files named "witness" or
// "input"). An unknown field, a field of the wrong type (a priority that is
// not an integer, witnesses that are not a list of strings, an inline input
// that is not a JSON object), malformed JSON, a missing key, or witnesses
// and inputs in one job is kInvalidArgument with one line naming the field:
// the API answers 400.
#pragma once

#include <string_view>
#include <vector>

#include "http_form.hpp"

#include "proofpipe/common/status.hpp"
#include "proofpipe/service/core.hpp"

namespace proofpipe::service {

// A body nested deeper than kMaxJsonDepth is refused before it is parsed
// (json_depth_problem), so no later walk of the tree recurses that deep.
Result<SubmitRequest> submit_from_json(std::string_view body);

// The parts in name order (the order the fields are checked in). With
// `body` (the text the parts view), the largest file takes the body's own
// storage (cut to its bytes in place) and only the others are copied, so a
// one-file upload costs its body once; *body is left empty.
Result<SubmitRequest> submit_from_form(std::vector<FormPart> parts, std::string* body = nullptr);

// Arrays and objects nested at most this deep in a JSON body.
inline constexpr size_t kMaxJsonDepth = 64;
// Empty when `body` nests at most kMaxJsonDepth deep, else the one-line
// error. One pass, no recursion, strings skipped (a bracket inside one does
// not count); it does not validate, the parser does.
std::string json_depth_problem(std::string_view body);

// Empty when `id` is a valid job id ([A-Za-z0-9._-]{1,128}, not "." or
// ".."), else what is wrong with it.
std::string job_id_problem(std::string_view id);

}  // namespace proofpipe::service
