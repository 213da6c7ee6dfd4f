// Names of job and partition states (job_queue.hpp): one spelling for the
// journal, the API's JSON and the clients; and which partitions a claim takes.
#include "proofpipe/service/job_queue.hpp"

#include <algorithm>
#include <array>

namespace proofpipe::service {
namespace {
constexpr std::array<const char*, 5> kNames = {"queued", "running", "done", "failed", "cancelled"};
}

const char* job_state_name(JobState s) { return kNames[size_t(s)]; }
const char* part_status_name(PartStatus s) { return kNames[size_t(s)]; }

std::optional<JobState> parse_job_state(std::string_view name) {
  for (size_t i = 0; i < kNames.size(); ++i) {
    if (name == kNames[i]) return JobState(i);
  }
  return std::nullopt;
}

bool ClaimRequest::takes(std::string_view key, bool input) const {
  const auto has = [&](const std::vector<std::string>& v) { return std::find(v.begin(), v.end(), key) != v.end(); };
  return has(keys) && (!input || has(input_keys));
}

}  // namespace proofpipe::service
