// Internals of run_pipeline shared by pipeline.cpp (set-up, the event loop,
// messages, scheduling) and pipeline_recovery.cpp (deaths, reclaim, respawn,
// hang checks, shutdown); figures, samples and progress go to the Reporter
// (reporter.hpp). Not a public interface.
#pragma once

#include <chrono>

#include "cgroup.hpp"
#include "pipeline.hpp"
#include "reporter.hpp"
#include "scheduler.hpp"

namespace proofpipe::coord {

// A worker seat's processes: the Supervisor's side. What the seat is doing
// (hello, waiting, the partition it holds) is the Scheduler's SeatState.
struct WorkerSlot {
  ipc::Role role = ipc::Role::kSynth;
  uint8_t seat = 0;
  uint32_t incarnation = 0;        // of the current (or last) child
  std::optional<Child> child;      // set while a child of this seat is running
  std::optional<CgroupLeaf> leaf;  // its cgroup, while it runs
  std::string kill_reason;         // set when the coordinator SIGKILLs it
  std::string peer;                // its routing id
  bool ever_hello = false;         // some incarnation of this seat got through its set-up
  uint32_t consecutive_deaths = 0;
  double respawn_at = -1;       // run clock; < 0: no respawn pending
  bool retired = false;         // crash-loop breaker tripped
  std::string retired_because;  // for the run's abort reason
};

class Pipeline {
 public:
  Pipeline(const PipelineConfig& cfg, Ledger& ledger, PipelineKeys keys, PipelineHost* host);
  ~Pipeline();
  Result<RunReport> run();

  // --- for a PipelineHost (pipeline.hpp), from the loop's thread; it
  // appends partitions to the ledger it gave run_pipeline itself ---
  void cancel_partition(uint32_t index) { scheduler_->cancel(index); }
  void hold_grants(bool hold) { scheduler_->hold_grants(hold); }
  const Ledger& ledger() const { return ledger_; }
  // Every seat's current child said HELLO (its keys are loaded): ready to prove.
  bool all_hello() const;
  // The status JSON `proofpipe status` gets (docs/metrics.md): workers, slots, memory.
  nlohmann::json status() const { return reporter_.status_json(seat_views()); }
  const std::string& abort_reason() const { return abort_reason_; }
  double now() const;

 private:
  // --- pipeline.cpp ---
  Status setup();
  Status setup_memory_caps(uint64_t run_id);
  void loop();
  void poll_events(int timeout_ms);
  bool keep_looping();
  // What the Reporter reads of the children, and a sample of them now.
  std::vector<SeatView> seat_views() const;
  void sample(const char* event, std::optional<uint32_t> partition = std::nullopt);

  // --- pipeline_messages.cpp: the Scheduler's actions, executed ---
  void drain_messages();
  void on_message(const ipc::Envelope& env);
  void execute(const Actions& actions);
  void verify_and_commit(const Action& a);
  void send(WorkerSlot& w, ipc::MsgType type, ipc::MsgHeader h, std::string body = {});

  // --- pipeline_recovery.cpp ---
  Status spawn(WorkerSlot& w);
  std::vector<std::string> worker_env(const WorkerSlot& w) const;
  ExitInfo classify(WorkerSlot& w, ExitInfo info);
  void reap_children();
  void on_death(WorkerSlot& w, const ExitInfo& info);
  void respawn_due();
  void check_hangs();
  void abort_if_no_workers();
  void shutdown_workers();
  void fail_remaining(const std::string& cause);

  const PipelineConfig& cfg_;
  Ledger& ledger_;
  PipelineKeys keys_;   // by Partition::key
  PipelineHost* host_;  // null: a batch (`run`)
  std::chrono::steady_clock::time_point t0_;
  std::filesystem::path run_dir_;
  bool run_dir_created_ = false;
  std::string ring_prefix_;
  std::optional<shm::Ring> ring_;
  std::optional<CgroupRun> cgroups_;
  std::optional<ipc::Router> router_;
  int signal_fd_ = -1;
  uint32_t next_incarnation_ = 1;
  std::vector<WorkerSlot> workers_;     // index = seat: synth seats first, then gpu
  std::optional<Scheduler> scheduler_;  // every decision over the ledger and the slots
  Reporter reporter_;                   // the run's figures, --metrics, progress and status
  bool interrupted_ = false;
  std::string abort_reason_;  // non-empty when the run gave up (no workers left)
  std::string setup_error_;   // non-empty: the run could not start (run() returns it; exit 2)
  bool stopping_ = false;
};

}  // namespace proofpipe::coord
