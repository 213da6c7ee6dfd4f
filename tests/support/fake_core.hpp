// A ServiceCore with scripted answers for the API and client tests: jobs
// live in a map, the same id with the same content is the same job and with
// other content a conflict (as the journal decides), a job's later states
// can be queued up to be served one per GET, and any call can be made to
// fail with a chosen Status. Thread-safe: the server calls it from its
// own threads.
#pragma once

#include <condition_variable>
#include <deque>
#include <map>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "proofpipe/service/core.hpp"

namespace proofpipe::test {

using namespace proofpipe::service;

class FakeCore : public ServiceCore {
 public:
  // --- scripting (from the test thread) ---
  void set_submit_error(Status st) {
    std::lock_guard l(mu_);
    submit_error_ = std::move(st);
  }
  // After the current state, job(id) answers these one by one (the last stays).
  void queue_states(const std::string& id, std::vector<Job> later) {
    std::lock_guard l(mu_);
    for (auto& j : later) later_[id].push_back(std::move(j));
  }
  void put_job(Job job) {
    std::lock_guard l(mu_);
    const std::string id = job.id;
    jobs_[id] = std::move(job);
  }
  void put_proof(const std::string& id, const std::string& name, ProofFiles files) {
    std::lock_guard l(mu_);
    proofs_[{id, name}] = std::move(files);
  }
  void set_health(Health h) {
    std::lock_guard l(mu_);
    health_ = std::move(h);
  }
  void set_keys(std::vector<KeyInfo> k) {
    std::lock_guard l(mu_);
    keys_ = std::move(k);
  }
  void set_metrics(ServiceMetrics m) {
    std::lock_guard l(mu_);
    metrics_ = std::move(m);
  }
  // A submit() with uploads waits until release() while held (a slow intake).
  void hold_uploads() {
    std::lock_guard l(mu_);
    held_ = true;
  }
  void release() {
    {
      std::lock_guard l(mu_);
      held_ = false;
    }
    cv_.notify_all();
  }
  size_t submits_waiting() {
    std::lock_guard l(mu_);
    return waiting_;
  }

  // --- what the server asked ---
  std::vector<SubmitRequest> submitted() {
    std::lock_guard l(mu_);
    return submitted_;
  }

  // --- ServiceCore ---
  Result<SubmitResult> submit(const SubmitRequest& r) override {
    std::unique_lock l(mu_);
    if (!r.uploads.empty()) {
      ++waiting_;
      cv_.wait(l, [&] { return !held_; });
      --waiting_;
    }
    submitted_.push_back(r);
    if (!submit_error_.is_ok()) return submit_error_;
    const std::string id = r.id.value_or("job-" + std::to_string(jobs_.size() + 1));
    const std::string digest = digest_of(r);
    if (const auto it = jobs_.find(id); it != jobs_.end())
      return SubmitResult{it->second.digest == digest ? SubmitOutcome::kExisting : SubmitOutcome::kConflict,
                          it->second};
    Job job;
    job.id = id;
    job.key = r.key;
    job.priority = r.priority;
    job.digest = digest;
    job.submitted_at = 1700000000.5;
    for (const auto& name : names_of(r)) {
      PartitionInfo p;
      p.index = uint32_t(job.partitions.size());
      p.name = name;
      job.partitions.push_back(p);
    }
    job.total = uint32_t(job.partitions.size());
    jobs_[id] = job;
    return SubmitResult{SubmitOutcome::kCreated, job};
  }

  Result<std::optional<Job>> job(std::string_view id) override {
    std::lock_guard l(mu_);
    const std::string key(id);
    auto it = jobs_.find(key);
    if (it == jobs_.end()) return std::optional<Job>();
    Job now = it->second;
    if (auto& q = later_[key]; !q.empty()) {
      it->second = std::move(q.front());
      q.pop_front();
    }
    return std::optional<Job>(std::move(now));
  }

  Result<std::vector<Job>> jobs(std::optional<JobState> state, size_t limit) override {
    std::lock_guard l(mu_);
    std::vector<Job> out;
    for (const auto& [id, j] : jobs_) {
      if (out.size() == limit) break;
      if (state && j.state != *state) continue;
      Job copy = j;
      copy.partitions.clear();
      out.push_back(std::move(copy));
    }
    return out;
  }

  Result<std::optional<Job>> cancel(std::string_view id) override {
    std::lock_guard l(mu_);
    auto it = jobs_.find(std::string(id));
    if (it == jobs_.end()) return std::optional<Job>();
    Job& j = it->second;
    if (j.state == JobState::kQueued || j.state == JobState::kRunning) {
      j.state = JobState::kCancelled;
      for (auto& p : j.partitions) {
        if (p.status != PartStatus::kDone && p.status != PartStatus::kFailed) {
          p.status = PartStatus::kCancelled;
          ++j.cancelled;
        }
      }
    }
    return std::optional<Job>(j);
  }

  Result<std::optional<ProofFiles>> proof(std::string_view id, std::string_view name) override {
    std::lock_guard l(mu_);
    const auto it = proofs_.find({std::string(id), std::string(name)});
    if (it == proofs_.end()) return std::optional<ProofFiles>();
    return std::optional<ProofFiles>(it->second);
  }

  std::vector<KeyInfo> keys() const override {
    std::lock_guard l(mu_);
    return keys_;
  }
  Health health() const override {
    std::lock_guard l(mu_);
    return health_;
  }
  ServiceMetrics metrics() const override {
    std::lock_guard l(mu_);
    return metrics_;
  }

 private:
  static std::vector<std::string> names_of(const SubmitRequest& r) {
    std::vector<std::string> names;
    const auto stem = [](const std::string& f) {
      const auto slash = f.rfind('/');
      std::string base = slash == std::string::npos ? f : f.substr(slash + 1);
      return base.substr(0, base.rfind('.'));
    };
    for (const auto& p : r.paths) names.push_back(stem(p));
    for (const auto& u : r.uploads) names.push_back(stem(u.filename));
    return names;
  }
  // The content an id is bound to (a stand-in for the journal's BLAKE2b).
  static std::string digest_of(const SubmitRequest& r) {
    std::string d = r.key + "|" + std::to_string(r.priority);
    for (const auto& p : r.paths) d += "|" + p;
    for (const auto& u : r.uploads) d += "|" + u.filename + "=" + std::to_string(std::hash<std::string>{}(u.bytes));
    return std::to_string(std::hash<std::string>{}(d));
  }

  mutable std::mutex mu_;
  std::condition_variable cv_;
  bool held_ = false;
  size_t waiting_ = 0;
  Status submit_error_;
  std::map<std::string, Job> jobs_;
  std::map<std::string, std::deque<Job>> later_;
  std::map<std::pair<std::string, std::string>, ProofFiles> proofs_;
  std::vector<SubmitRequest> submitted_;
  Health health_{true, false, ""};
  std::vector<KeyInfo> keys_;
  ServiceMetrics metrics_;
};

}  // namespace proofpipe::test
