// The Supervisor, inside engine::run: supervisor.cpp (set-up, the event
// loop, scheduling), supervisor_messages.cpp (the Scheduler's actions
// executed) and supervisor_recovery.cpp (deaths, reclaim, respawn, hang
// checks, shutdown); figures, samples and progress go to the Reporter
// (reporter.hpp). Private to the engine.
#pragma once

#include <chrono>

#include "cgroup.hpp"
#include "process.hpp"
#include "proofpipe/engine/engine.hpp"
#include "proofpipe/ipc/channel.hpp"
#include "proofpipe/shm/ring.hpp"
#include "reporter.hpp"
#include "scheduler.hpp"

namespace proofpipe::engine {

// A worker seat's processes: the Supervisor's side. What the seat is doing
// (hello, waiting, the partition it holds) is the Scheduler's SeatState.
struct SeatProcess {
  ipc::Role role = ipc::Role::kSynth;
  uint8_t seat = 0;
  uint32_t incarnation = 0;        // of the current (or last) child
  std::optional<Child> child;      // set while a child of this seat is running
  std::optional<CgroupLeaf> leaf;  // its cgroup, while it runs
  std::string kill_reason;         // set when the coordinator SIGKILLs it
  bool cancel_kill = false;        // ... because its partition was cancelled while it generated a witness
  std::string peer;                // its routing id
  bool ever_hello = false;         // some incarnation of this seat got through its set-up
  // Deaths in a row outside partition work (at start, while idle): a death
  // while the seat holds a partition is that partition's attempt instead.
  uint32_t consecutive_deaths = 0;
  uint64_t ooms_counted = 0;    // of the leaf's OOM kills, those already charged (a generator's)
  double respawn_at = -1;       // run clock; < 0: no respawn pending
  bool retired = false;         // crash-loop breaker tripped
  std::string retired_because;  // for the run's abort reason, and serve's readiness
  uint32_t revivals = 0;        // serve: times a retired seat was tried again (its back-off)
};

class Supervisor final : public EngineControl {
 public:
  Supervisor(const PipelineConfig& cfg, Ledger& ledger, PipelineKeys keys, Host* host);
  ~Supervisor();
  Result<RunReport> run();

  // --- EngineControl (engine.hpp), for the Host, from the loop's thread ---
  uint32_t add_partition(Partition p) override { return ledger_.append(std::move(p)); }
  // A synthesis worker running the partition's witness generator cannot be
  // told to stop mid-run (its loop is in run_generator): it is killed, which
  // takes the generator's processes with it, and restarted at once.
  void cancel_partition(uint32_t index) override;
  void hold_grants(bool hold) override { scheduler_->hold_grants(hold); }
  const Ledger& ledger() const override { return ledger_; }
  Readiness readiness() const override;
  // A hosted pipeline is `serve`'s: idle between jobs, so its s/proof counts
  // busy time only (Reporter::sample_occupancy), not the time it waited.
  EngineSnapshot snapshot() const override {
    EngineSnapshot s = reporter_.snapshot(seat_views());
    if (host_ != nullptr) {
      s.mode = "serve";
      s.s_per_proof = s.done ? s.busy_s / double(s.done) : 0.0;
    }
    return s;
  }
  double now() const override;

 private:
  // --- supervisor.cpp ---
  Status setup();
  Status setup_memory_caps(uint64_t run_id);
  void loop();
  void poll_events(int timeout_ms);
  bool keep_looping();
  // What the Reporter reads of the children, and a sample of them now.
  std::vector<SeatView> seat_views() const;
  void sample(const char* event, std::optional<uint32_t> partition = std::nullopt);

  // --- supervisor_messages.cpp: the Scheduler's actions, executed ---
  void drain_messages();
  void on_message(const ipc::Envelope& env);
  void execute(const Actions& actions);
  void verify_and_commit(const Action& a);
  void send(SeatProcess& w, ipc::MsgType type, ipc::MsgHeader h, std::string body = {});

  // --- supervisor_recovery.cpp ---
  Status spawn(SeatProcess& w);
  std::vector<std::string> worker_env(const SeatProcess& w) const;
  ExitInfo classify(SeatProcess& w, ExitInfo info);
  // The leaf counted an OOM kill not yet charged to anything: charges it.
  bool new_oom(SeatProcess& w);
  // After child `pid` of a seat is reaped: its generators' folders and its
  // leaf (with anything left in it) are removed.
  void child_gone(SeatProcess& w, pid_t pid);
  void retire(SeatProcess& w, std::string why);
  void reap_children();
  void on_death(SeatProcess& w, const ExitInfo& info);
  void respawn_due();
  void check_hangs();
  void abort_if_no_workers();
  void shutdown_workers();
  void fail_remaining(const std::string& cause);

  const PipelineConfig& cfg_;
  Ledger& ledger_;
  PipelineKeys keys_;  // by Partition::key
  Host* host_;         // null: a batch (`run`)
  std::chrono::steady_clock::time_point t0_;
  std::filesystem::path run_dir_;
  bool run_dir_created_ = false;
  std::string ring_prefix_;
  std::optional<shm::Ring> ring_;
  std::optional<CgroupRun> cgroups_;
  std::optional<ipc::Router> router_;
  int signal_fd_ = -1;
  uint32_t next_incarnation_ = 1;
  std::vector<SeatProcess> workers_;    // index = seat: synth seats first, then gpu
  std::optional<Scheduler> scheduler_;  // every decision over the ledger and the slots
  Reporter reporter_;                   // the run's figures, --metrics, progress and status
  bool interrupted_ = false;
  std::string abort_reason_;  // non-empty when the run gave up (no workers left)
  std::string setup_error_;   // non-empty: the run could not start (run() returns it; exit 2)
  bool stopping_ = false;
  bool ever_all_hello_ = false;  // every seat has said HELLO once (readiness)
};

}  // namespace proofpipe::engine
