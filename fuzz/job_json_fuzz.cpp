// Fuzz target: the service's JSON shapes as the clients parse them
// (proofpipe/service/job_json.hpp: job_from_json, key_from_json, time_from_json).
// Property: an error Status, or a value that survives to_json -> from_json
// (to_json's output is a fixed point).
#include <nlohmann/json.hpp>

#include "fuzz_input.hpp"
#include "proofpipe/formats/bounded_json.hpp"
#include "proofpipe/service/job_json.hpp"

using namespace proofpipe;
using nlohmann::json;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  // As the clients parse answers: depth-capped (formats/bounded_json.hpp).
  auto parsed = formats::parse_json_bounded(std::string_view(reinterpret_cast<const char*>(data), size));
  if (!parsed) return 0;
  const json j = std::move(parsed).value();
  volatile size_t sink = service::dump_json(j).size();
  (void)sink;

  if (auto job = service::job_from_json(j)) {
    const json once = service::job_to_json(*job, true);
    auto back = service::job_from_json(once);
    PP_FUZZ_CHECK(back.is_ok() && service::job_to_json(*back, true) == once);
  }
  if (auto key = service::key_from_json(j)) {
    const json once = service::key_to_json(*key);
    auto back = service::key_from_json(once);
    PP_FUZZ_CHECK(back.is_ok() && service::key_to_json(*back) == once);
  }
  if (auto t = service::time_from_json(j)) {
    auto back = service::time_from_json(service::time_to_json(*t));
    PP_FUZZ_CHECK(back.is_ok() && service::time_to_json(*back) == service::time_to_json(*t));
  }
  return 0;
}
