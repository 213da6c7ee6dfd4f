// The service's API face (service.hpp): intake and the journal for submits,
// the engine's inbox for new jobs and cancels, reads of the journal and of
// the stored proofs, and the snapshot the engine publishes.
#include "service.hpp"

#include <fcntl.h>
#include <sys/eventfd.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "http_submit.hpp"
#include "intake.hpp"
#include "proofpipe/common/assert.hpp"
#include "proofpipe/common/safe_file.hpp"

namespace proofpipe::service {

// How long a cancel waits for the engine to drop the job's partitions. The
// loop turns at least every 100 ms; a turn that takes longer (a 2^24 proof's
// verification) still ends well within this.
constexpr auto kCancelWait = std::chrono::seconds(30);
// The largest proof or public JSON served back (a proof is < 1 KiB; public
// inputs of a big circuit can be a few MiB).

namespace {

// A queue error is the service's fault, never the client's: an HTTP 4xx
// would tell the client to change its request. An unreachable queue or a
// full state disk is 503 (kUnavailable: try again later); anything else
// (a damaged journal, a missing stored proof, a broken invariant) is 500.
Status queue_fault(const Status& st) {
  switch (st.code()) {
    case ErrorCode::kUnavailable: return st;
    case ErrorCode::kResourceExhausted: return Status(ErrorCode::kUnavailable, st.message());
    default: return Status(ErrorCode::kInternal, st.message());
  }
}
template <typename T>
Result<T> from_queue(Result<T> r) {
  if (!r) return queue_fault(r.status());
  return r;
}

}  // namespace

double unix_now() { return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count(); }

Service::Service(ServiceConfig cfg, JobQueue& queue, std::vector<ServiceKey> keys)
    : cfg_(std::move(cfg)), queue_(queue), keys_(std::move(keys)), started_unix_(unix_now()) {
  for (const ServiceKey& k : keys_) pipeline_keys_.push_back(k.key);
  wake_fd_ = ::eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
  PP_ASSERT(wake_fd_ >= 0, "eventfd failed");
}

Service::~Service() {
  if (wake_fd_ >= 0) ::close(wake_fd_);
}

int Service::key_index(std::string_view name) const {
  for (size_t i = 0; i < keys_.size(); ++i) {
    if (keys_[i].info.name == name) return int(i);
  }
  return -1;
}

void Service::post(Command c) {
  {
    std::lock_guard lock(inbox_mu_);
    inbox_.push_back(std::move(c));
  }
  const uint64_t one = 1;
  // A full counter (2^64 - 2 posts unread) cannot happen; a lost wake-up
  // would only delay the job to the loop's next 100 ms turn.
  (void)!::write(wake_fd_, &one, sizeof one);
}

bool Service::draining() const {
  std::lock_guard lock(snap_mu_);
  return draining_;
}

Result<SubmitResult> Service::submit(const SubmitRequest& request) {
  if (draining()) return make_error(ErrorCode::kUnavailable, "the service is draining (shutting down): try another");
  const int k = key_index(request.key);
  if (k < 0) {
    std::string names;
    for (const ServiceKey& key : keys_) names += (names.empty() ? "" : ", ") + key.info.name;
    return make_error(ErrorCode::kNotFound, "unknown key '{}' (loaded: {})", request.key, names);
  }
  if (!request.inputs.empty() && keys_[size_t(k)].generator.empty()) return inputs_refused(request.key);
  const IntakePolicy policy{cfg_.state_dir / "witnesses", cfg_.allow_dirs, cfg_.max_witness_bytes, cfg_.max_witnesses};
  PP_ASSIGN_OR_RETURN(JobSpec spec, stage_job(request, request.key, *keys_[size_t(k)].key, policy));
  auto result = from_queue(queue_.submit(spec, unix_now()));
  if (!result || result->outcome != SubmitOutcome::kCreated) {
    // The queue has the job already (or none): these copies are nobody's.
    discard_staged(spec);
    return result;
  }
  spdlog::info("job {}: {} partition{} of key {}{}, priority {}", spec.id, spec.witnesses.size(),
               spec.witnesses.size() == 1 ? "" : "s", spec.key, request.inputs.empty() ? "" : " from inputs",
               spec.priority);
  post({Command::Kind::kNewJob, spec.id, nullptr});
  return result;
}

Result<std::optional<Job>> Service::job(std::string_view id) { return from_queue(queue_.get(id)); }

Result<std::vector<Job>> Service::jobs(std::optional<JobState> state, size_t limit) {
  return from_queue(queue_.list(state, limit));
}

Result<std::optional<Job>> Service::cancel(std::string_view id) {
  PP_ASSIGN_OR_RETURN(auto job, from_queue(queue_.cancel(id, unix_now())));
  if (!job || job->state != JobState::kCancelled) return job;
  // The journal says cancelled (a restart will not load it); now the engine
  // must stop dispatching it before the answer goes out.
  auto done = std::make_shared<std::promise<void>>();
  auto acked = done->get_future();
  post({Command::Kind::kCancel, std::string(id), done});
  if (acked.wait_for(kCancelWait) != std::future_status::ready) {
    return make_error(ErrorCode::kDeadlineExceeded,
                      "job {} is cancelled in the journal, but the engine did not "
                      "confirm within {} s",
                      id, kCancelWait.count());
  }
  spdlog::info("job {}: cancelled", id);
  return from_queue(queue_.get(id));
}

Result<std::optional<ProofFiles>> Service::proof(std::string_view id, std::string_view name) {
  return from_queue(queue_.read_proof(id, name));
}

std::vector<KeyInfo> Service::keys() const {
  std::vector<KeyInfo> out;
  for (const ServiceKey& k : keys_) out.push_back(k.info);
  return out;
}

Health Service::health() const {
  const std::string queue_down = queue_.unavailable_reason();
  std::lock_guard lock(snap_mu_);
  if (!draining_ && !queue_down.empty()) return {false, false, "the queue is unreachable: " + queue_down};
  if (!draining_ && !disk_full_reason_.empty()) return {false, false, "the state disk is full: " + disk_full_reason_};
  return {ready_ && !draining_, draining_, draining_ ? "draining" : why_not_};
}

ServiceMetrics Service::metrics() const {
  std::lock_guard lock(snap_mu_);
  ServiceMetrics m = metrics_;
  m.uptime_seconds = unix_now() - started_unix_;
  return m;
}

}  // namespace proofpipe::service
