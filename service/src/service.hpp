// The resident proving service (`proofpipe serve`, docs/service.md): the
// journal's jobs fed to the coordinator's engine, and the engine's results
// written back. One object with two faces on two threads:
//
//   HTTP threads (ApiServer)            engine thread (run_pipeline's loop)
//   ------------------------            -----------------------------------
//   ServiceCore::submit: intake,        PipelineHost::on_turn: takes the inbox:
//     JobQueue::submit (durable),  -->    a new job -> its partitions appended
//     inbox += new job, wake              a cancel  -> Scheduler::cancel, then
//   ServiceCore::cancel: JobQueue::  -->  the waiting HTTP thread is answered
//     cancel (durable), inbox += cancel, ledger observer -> JobQueue::attempt_started,
//     wait for the engine's answer        attempt_failed, partition_done/failed
//   job(), jobs(): JobQueue reads       store_proof: the proof files (temp,
//   proof(): the stored files             fsync, rename) BEFORE the ledger commits
//   health(), metrics(): the engine's   publishes health and metrics every turn
//     last published snapshot             (at most every 500 ms)
//
// Crash order (docs/service.md, "What a crash leaves"): a job is answered
// only once the journal holds it; a proof's files are durable before its
// partition is marked done; so after a kill -9 anywhere the next start
// proves exactly the partitions not marked done, and a proof file without
// its mark is just written again.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <filesystem>
#include <future>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "job_queue.hpp"
#include "mem_plan.hpp"
#include "pipeline.hpp"
#include "proofpipe/formats/zkey.hpp"
#include "proofpipe/groth16/verifier.hpp"
#include "service_core.hpp"

namespace proofpipe::service {

// One --key: loaded once at start, mapped for the life of the service.
struct ServiceKey {
  KeyInfo info;
  std::shared_ptr<const formats::Zkey> zkey;  // header and coefficients (checked), for intake
  groth16::VerificationKey vk;
  coord::KeySizes sizes;  // for the ring's slot size and --mem-max's plan
};

struct ServiceConfig {
  std::filesystem::path state_dir;  // journal.db, witnesses/, proofs/
  std::vector<std::filesystem::path> allow_dirs;
  uint64_t max_witness_bytes = 0;
  size_t max_witnesses = 100000;
  double drain_timeout_s = 60;
  uint64_t mem_max = 0;  // for /metrics; 0: none
};

class Service final : public ServiceCore, public coord::PipelineHost {
 public:
  Service(ServiceConfig cfg, JobQueue& queue, std::vector<ServiceKey> keys);
  ~Service() override;
  Service(const Service&) = delete;
  Service& operator=(const Service&) = delete;

  // Before the engine starts: the journal's unfinished partitions, in the
  // ledger's order (priority, age, index), and the observer that records
  // every transition. Returns how many partitions were queued.
  Result<size_t> recover(coord::Ledger& ledger);
  std::span<const groth16::VerificationKey> verification_keys() const { return vks_; }

  // --- ServiceCore (any thread) ---
  Result<SubmitResult> submit(const SubmitRequest& request) override;
  Result<std::optional<Job>> job(std::string_view id) override;
  Result<std::vector<Job>> jobs(std::optional<JobState> state, size_t limit) override;
  Result<std::optional<Job>> cancel(std::string_view id) override;
  Result<std::optional<ProofFiles>> proof(std::string_view id, std::string_view name) override;
  std::vector<KeyInfo> keys() const override;
  Health health() const override;
  ServiceMetrics metrics() const override;

  // --- PipelineHost (the engine's thread) ---
  int wake_fd() const override { return wake_fd_; }
  void on_turn(coord::Pipeline& pipeline) override;
  Status store_proof(const coord::Partition& p, const groth16::Proof& proof) override;
  void on_signal(coord::Pipeline& pipeline) override;
  bool should_stop(const coord::Pipeline& pipeline) override;

  bool draining() const;
  std::filesystem::path proof_dir(std::string_view job_id) const;

 private:
  // What an HTTP thread hands the engine.
  struct Command {
    enum class Kind : uint8_t { kNewJob, kCancel } kind = Kind::kNewJob;
    std::string job_id;
    std::shared_ptr<std::promise<void>> done;  // kCancel: set once nothing of the job is dispatched any more
  };
  // The engine's side of one ledger partition.
  struct PartRef {
    uint64_t job_seq = 0;
    uint32_t index = 0;  // in its job
    std::string job_id;
    double added_unix = 0, granted_unix = 0;  // queued here; the last attempt's grant
  };
  struct JobRef {
    std::string id;
    std::vector<uint32_t> ledger_indices;
    size_t open = 0;  // partitions not yet ended
  };

  void post(Command c);
  // `now`: the engine's clock when the partition joins its queue.
  void add_work(const WorkItem& item, double now);
  void cancel_job(coord::Pipeline& pipeline, const std::string& id);
  void release_witnesses(const std::string& id);
  void on_ledger_event(const coord::Partition& p, coord::LedgerEvent e, std::string_view cause);
  void publish(const coord::Pipeline& pipeline);
  int key_index(std::string_view name) const;

  ServiceConfig cfg_;
  JobQueue& queue_;
  std::vector<ServiceKey> keys_;
  std::vector<groth16::VerificationKey> vks_;  // by key index
  int wake_fd_ = -1;
  double started_unix_ = 0;

  mutable std::mutex inbox_mu_;
  std::deque<Command> inbox_;

  // Engine thread only.
  coord::Ledger* ledger_ = nullptr;  // the engine's, from recover()
  std::vector<PartRef> refs_;        // by ledger index
  std::map<uint64_t, JobRef> jobs_;  // by job seq, while it has open partitions
  std::vector<uint32_t> ended_;      // ledger indices whose payload to forget next turn
  ServiceMetrics counted_;           // proofs by key and result, partition seconds: counted as they end
  double drain_deadline_ = 0;        // pipeline clock
  bool stop_now_ = false;
  double next_publish_ = 0;
  bool ready_now_ = false;  // all_hello() as last published

  // Published by the engine, read by the HTTP threads.
  mutable std::mutex snap_mu_;
  bool draining_ = false;
  bool ready_ = false;
  std::string why_not_ = "starting";
  ServiceMetrics metrics_;
};

// The wall clock, as the journal stores it (unix seconds).
double unix_now();

}  // namespace proofpipe::service
