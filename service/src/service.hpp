// The resident proving service (`proofpipe serve`, docs/service.md): the
// journal's jobs fed to the coordinator's engine, and the engine's results
// written back. One object with two faces on two threads:
//
//   HTTP threads (ApiServer)            engine thread (run_pipeline's loop)
//   ------------------------            -----------------------------------
//   ServiceCore::submit: intake,        engine::Host::on_turn: takes the inbox:
//     JobQueue::submit (durable),  -->    a new job -> claim now
//     inbox += new job, wake              a cancel  -> Scheduler::cancel, then
//   ServiceCore::cancel: JobQueue::  -->  the waiting HTTP thread is answered
//     cancel (durable), inbox += cancel, JobQueue::claim up to the free capacity
//     wait for the engine's answer        (claim_window less what the ledger holds)
//   job(), jobs(): JobQueue reads         -> appended to the ledger;
//   proof(): JobQueue::read_proof         JobQueue::renew every renew_every_s
//                                         (cancelled or lost claims dropped)
//   health(), metrics(): the engine's   ledger observer -> start_attempt,
//     last published snapshot             fail_attempt, commit/fail_partition/release
//                                       store_proof: the proof's JSON, kept for the
//                                         queue's commit (which stores it its own
//                                         way, durably, with the done mark)
//                                       publishes health and metrics (every 500 ms)
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

#include "proofpipe/engine/engine.hpp"
#include "proofpipe/engine/key.hpp"
#include "proofpipe/engine/plan.hpp"
#include "proofpipe/engine/snapshot.hpp"
#include "proofpipe/service/core.hpp"
#include "proofpipe/service/job_queue.hpp"

namespace proofpipe::service {

// One --key: loaded once at start, mapped for the life of the service.
struct ServiceKey {
  KeyInfo info;
  // Header, coefficients (checked) and verification key, in the key's
  // curve: intake checks witnesses with it, the pipeline verifies proofs.
  std::shared_ptr<const engine::PipelineKey> key;
  engine::KeySizes sizes;  // for the ring's slot size and --mem-max's plan
  // --witness-gen NAME=KIND:PATH, resolved (witness_gen::resolve_generator): the
  // command a synthesis worker runs on an input of this key. Empty: the key
  // takes witnesses only (an input is refused at intake, and not claimed).
  std::vector<std::string> generator;
};

struct ServiceConfig {
  std::filesystem::path state_dir;  // journal.db, witnesses/, proofs/
  std::vector<std::filesystem::path> allow_dirs;
  uint64_t max_witness_bytes = 0;
  size_t max_witnesses = 100000;
  double drain_timeout_s = 60;
  uint64_t mem_max = 0;  // for /metrics; 0: none
  std::string node_id;   // /metrics' node label
  // Partitions held at once (granted or waiting for a grant): the ring's
  // slots plus one per synthesis worker, so a worker that frees up finds
  // one waiting and nothing else sits claimed and idle on this node.
  size_t claim_window = 4;
  double renew_every_s = 10;  // --lease / 3: two renewals may fail before the lease runs out
  double retain_s = 0;        // --retain: ended jobs older than this are removed; 0: kept forever
};

class Service final : public ServiceCore, public engine::Host {
 public:
  Service(ServiceConfig cfg, JobQueue& queue, std::vector<ServiceKey> keys);
  ~Service() override;
  Service(const Service&) = delete;
  Service& operator=(const Service&) = delete;

  // Before the engine starts: the observer that records every transition.
  // Returns how many partitions the queue holds (the engine claims them as
  // it has room, from its first turn).
  Result<size_t> recover(engine::Ledger& ledger);
  // After the engine stopped: every claim not ended goes back to the queue,
  // and the writes the queue refused while unreachable are tried once more.
  void release_claims();
  engine::PipelineKeys pipeline_keys() const { return pipeline_keys_; }

  // --- ServiceCore (any thread) ---
  Result<SubmitResult> submit(const SubmitRequest& request) override;
  Result<std::optional<Job>> job(std::string_view id) override;
  Result<std::vector<Job>> jobs(std::optional<JobState> state, size_t limit) override;
  Result<std::optional<Job>> cancel(std::string_view id) override;
  Result<std::optional<ProofFiles>> proof(std::string_view id, std::string_view name) override;
  std::vector<KeyInfo> keys() const override;
  Health health() const override;
  ServiceMetrics metrics() const override;

  // --- engine::Host (the engine's thread) ---
  int wake_fd() const override { return wake_fd_; }
  void on_turn(engine::EngineControl& pipeline) override;
  Status store_proof(const engine::Partition& p, std::string_view proof) override;
  void on_signal(engine::EngineControl& pipeline) override;
  bool should_stop(const engine::EngineControl& pipeline) override;

  bool draining() const;

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
    uint64_t fence = 0;  // the claim's token
    std::string job_id;
    double added_unix = 0, granted_unix = 0;  // queued here; the last attempt's grant
    std::optional<ProofFiles> proof;          // queue-held proofs: from store_proof to the commit
    bool start_unrecorded = false;            // the last attempt's start was refused for want of space
  };
  // A write the queue could not take (unreachable): kept, in order, and
  // tried again every turn; the fence is checked when it lands.
  struct Unsent {
    enum class Kind : uint8_t { kCommit, kFail, kRelease } kind = Kind::kCommit;
    Claim claim;
    std::string job_id, stem, cause;
    PartTimes times;
    std::optional<ProofFiles> proof;
    double at = 0;    // unix seconds of the event
    std::string key;  // kCommit: the key's name, for the metrics of a refused commit
    // The attempt's start was never recorded (a full disk): written first,
    // at the end's time.
    bool start_first = false;
  };
  struct JobRef {
    std::string id;
    std::vector<uint32_t> ledger_indices;
    size_t open = 0;  // partitions not yet ended
  };

  void post(Command c);
  // `now`: the engine's clock when the partition joins its queue.
  void add_work(engine::EngineControl& engine, const WorkItem& item, double now);
  void cancel_job(engine::EngineControl& pipeline, const std::string& id);
  void on_ledger_event(const engine::Partition& p, engine::LedgerEvent e, std::string_view cause);
  void publish(const engine::EngineControl& pipeline);
  void claim_more(engine::EngineControl& pipeline);
  void renew_claims(engine::EngineControl& pipeline);
  // Every kHousekeepingEveryS: --retain's removals, the bytes the queue holds,
  // and freed heap pages given back (malloc_trim).
  void housekeeping(engine::EngineControl& pipeline);
  static Unsent ending(Unsent::Kind kind, const Claim& claim, const std::string& job_id, const std::string& stem,
                       double at);
  // One ending write; false when the queue was unreachable (kept in unsent_).
  bool send(Unsent& w);
  void queue_trouble(std::string_view what, const Status& st);
  // A write refused for want of space: kept, retried with back-off, logged at
  // most once per kDiskLogEveryS, and /readyz says why until one lands.
  void disk_trouble(const Status& st);
  void disk_recovered();
  int key_index(std::string_view name) const;
  PartRef& ref(uint32_t ledger_index) { return refs_[ledger_index - refs_base_]; }

  ServiceConfig cfg_;
  JobQueue& queue_;
  std::vector<ServiceKey> keys_;
  std::vector<std::shared_ptr<const engine::PipelineKey>> pipeline_keys_;  // by key index
  int wake_fd_ = -1;
  double started_unix_ = 0;

  mutable std::mutex inbox_mu_;
  std::deque<Command> inbox_;

  // Engine thread only.
  engine::Ledger* ledger_ = nullptr;                        // the engine's, from recover()
  std::deque<PartRef> refs_;                                // by ledger index, from refs_base_
  uint32_t refs_base_ = 0;                                  // follows the ledger's first_held()
  std::map<uint64_t, JobRef> jobs_;                         // by job seq, while it has open partitions
  std::vector<uint32_t> ended_;                             // ledger indices whose payload to forget next turn
  std::map<std::pair<uint64_t, uint32_t>, uint32_t> held_;  // open claims (job seq, index) -> ledger index
  std::deque<Unsent> unsent_;
  bool claim_due_ = true;                                    // a new job or a freed place: claim at this turn
  double next_claim_ = 0, next_renew_ = 0, next_depth_ = 0;  // pipeline clock
  double next_housekeeping_ = 0;                             // pipeline clock
  double cluster_depth_ = 0;
  std::string last_trouble_;   // the queue's last error, logged once until it changes
  bool disk_full_ = false;     // the last write was refused for want of space: no new claims
  double next_send_ = 0;       // unix seconds: unsent_ is not tried before this
  double send_backoff_s_ = 0;  // doubles per refused retry, up to kMaxBackoffS
  double last_disk_log_ = 0;   // unix seconds of the last "disk full" line
  ServiceMetrics counted_;     // proofs by key and result, partition seconds: counted as they end
  double drain_deadline_ = 0;  // pipeline clock
  bool stop_now_ = false;
  double next_publish_ = 0;
  bool ready_now_ = false;  // readiness().ready as last published

  // Published by the engine, read by the HTTP threads.
  mutable std::mutex snap_mu_;
  bool draining_ = false;
  bool ready_ = false;
  std::string why_not_ = "starting";
  std::string disk_full_reason_;  // non-empty: /readyz is 503 with it
  ServiceMetrics metrics_;
};

// The wall clock, as the journal stores it (unix seconds).
double unix_now();

}  // namespace proofpipe::service
