// The body of POST /v1/jobs (docs/api.md) into a SubmitRequest, strictly:
// the JSON form {"id","key","witnesses"|"inputs","priority"} and the
// multipart form (fields id, key, priority; files named "witness" or
// "input"). An unknown field, a field of the wrong type (a priority that is
// not an integer, witnesses that are not a list of strings, an inline input
// that is not a JSON object), malformed JSON, a missing key, or witnesses
// and inputs in one job is kInvalidArgument with one line naming the field:
// the API answers 400.
#pragma once

#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "http_form.hpp"

#include "proofpipe/common/status.hpp"
#include "proofpipe/service/core.hpp"

namespace proofpipe::service {

// ServiceConfig::max_witnesses' default, which serve keeps.
inline constexpr size_t kMaxJsonItems = 100000;

// What a JSON body may hold, checked while it is walked, before anything
// of its size is built (docs/api.md, Limits).
struct SubmitLimits {
  // Witnesses or inputs in one job: past this, 413 before one is copied.
  // The service's per-job limit (ServiceConfig::max_witnesses).
  size_t max_items = kMaxJsonItems;
  // Whether key NAME takes inputs (a known key without a --witness-gen does
  // not): asked before any input is parsed, so a key that takes none never
  // has its inputs' text made. Unset: every key may.
  std::function<bool(const std::string& key)> inputs_allowed;
};

// Nested deeper than formats::kMaxJsonDepth, the body is refused before it
// is parsed. Its memory is the body and what it asks for (the inputs' text,
// the paths): no tree of more than one scalar member is built.
Result<SubmitRequest> submit_from_json(std::string_view body, const SubmitLimits& limits = {});

// The 400 for inputs to a key that takes none (also the core's answer).
Status inputs_refused(std::string_view key);

// The parts in name order (the order the fields are checked in). With
// `body` (the text the parts view), the largest file takes the body's own
// storage (cut to its bytes in place) and only the others are copied, so a
// one-file upload costs its body once; *body is left empty.
Result<SubmitRequest> submit_from_form(std::vector<FormPart> parts, std::string* body = nullptr);

// Empty when `id` is a valid job id ([A-Za-z0-9._-]{1,128}, not "." or
// ".."), else what is wrong with it.
std::string job_id_problem(std::string_view id);

}  // namespace proofpipe::service
