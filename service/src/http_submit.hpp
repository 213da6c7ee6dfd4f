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

#include <httplib.h>

#include "proofpipe/common/status.hpp"
#include "proofpipe/service/core.hpp"

namespace proofpipe::service {

Result<SubmitRequest> submit_from_json(std::string_view body);

// Takes the files' contents out of `parts` (no second copy of an upload).
Result<SubmitRequest> submit_from_form(httplib::MultipartFormDataMap& parts);

// Empty when `id` is a valid job id ([A-Za-z0-9._-]{1,128}, not "." or
// ".."), else what is wrong with it.
std::string job_id_problem(std::string_view id);

}  // namespace proofpipe::service
