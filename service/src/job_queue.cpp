// Names of job and partition states (job_queue.hpp): one spelling for the
// journal, the API's JSON and the clients; which partitions a claim takes;
// and what a refusal for want of space looks like.
#include "proofpipe/service/job_queue.hpp"

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstring>

namespace proofpipe::service {
namespace {
constexpr std::array<const char*, 5> kNames = {"queued", "running", "done", "failed", "cancelled"};
}

bool out_of_space(const Status& st) {
  return st.code() == ErrorCode::kResourceExhausted || st.message().find(std::strerror(ENOSPC)) != std::string::npos ||
         st.message().find(std::strerror(EDQUOT)) != std::string::npos;
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
