// Fuzz target: POST /v1/jobs bodies as ApiServer parses them
// (service/src/http_submit.hpp). The first byte picks the form: JSON
// (submit_from_json over the rest) or multipart (the rest as a form body
// with the boundary "pp", through parse_form and then submit_from_form, as
// the server reads an upload).
// Property: an error Status (kInvalidArgument, the API's 400, or
// kResourceExhausted, its 413), or a request
// that meets what the service relies on: a key, witnesses or inputs (never
// both), a valid id.
#include <fuzzer/FuzzedDataProvider.h>

#include <nlohmann/json.hpp>

#include "fuzz_input.hpp"
#include "http_form.hpp"
#include "http_submit.hpp"

using namespace proofpipe;

namespace {

void check(const Result<service::SubmitRequest>& r, bool json_form) {
  if (!r) {
    // 400, or 413 for more witnesses or inputs than a job takes.
    PP_FUZZ_CHECK(
        (r.status().code() == ErrorCode::kInvalidArgument || r.status().code() == ErrorCode::kResourceExhausted) &&
        !r.status().message().empty());
    return;
  }
  PP_FUZZ_CHECK(!r->key.empty());
  const bool witnesses = !r->paths.empty() || !r->uploads.empty();
  PP_FUZZ_CHECK(witnesses != !r->inputs.empty());  // one kind, never both, never neither
  if (r->id) PP_FUZZ_CHECK(service::job_id_problem(*r->id).empty());
  for (const auto& p : r->paths) PP_FUZZ_CHECK(!p.empty());
  for (const auto& u : r->uploads) PP_FUZZ_CHECK(!u.filename.empty());
  for (const auto& in : r->inputs) {
    PP_FUZZ_CHECK(!in.filename.empty());
    // An inline input is stored as its tree's compact dump, made without
    // the tree (canonical_json.hpp); an uploaded one as it came.
    if (json_form) PP_FUZZ_CHECK(nlohmann::json::parse(in.bytes).dump() == in.bytes);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  FuzzedDataProvider in(data, size);
  if (in.ConsumeBool()) {
    const std::string body = in.ConsumeRemainingBytesAsString();
    check(service::submit_from_json(body), true);
    return 0;
  }
  std::string body = in.ConsumeRemainingBytesAsString();
  auto parts = service::parse_form(body, "pp");
  if (!parts) {
    PP_FUZZ_CHECK(parts.status().code() == ErrorCode::kInvalidArgument ||
                  parts.status().code() == ErrorCode::kResourceExhausted);
    return 0;
  }
  check(service::submit_from_form(std::move(*parts), &body), false);
  return 0;
}
