// The Reporter of one `proofpipe run` (docs/architecture.md, docs/metrics.md):
// the third part of the coordinator, beside the Scheduler (decisions) and the
// Supervisor (processes). It owns the run's figures (RunReport,
// one SeatReport per seat), the --metrics JSONL stream, the sampler (memory
// of every process, ring occupancy, the ledger), the progress line on a TTY
// and the status JSON that `proofpipe status` gets. It changes nothing it
// looks at: the ledger, the ring and the Scheduler are read-only views, and
// the Supervisor hands it the children (SeatView) and tells it what happened.
#pragma once

#include "proofpipe/engine/snapshot.hpp"

#include <sys/types.h>

#include <chrono>
#include <cstdint>
#include <fstream>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "cgroup.hpp"
#include "proofpipe/common/status.hpp"
#include "proofpipe/engine/engine.hpp"
#include "proofpipe/engine/ledger.hpp"
#include "proofpipe/ipc/messages.hpp"
#include "proofpipe/shm/ring.hpp"
#include "scheduler.hpp"

namespace proofpipe::engine {

// One worker seat's process as the Supervisor has it now.
struct SeatView {
  ipc::Role role = ipc::Role::kSynth;
  uint8_t seat = 0;
  uint32_t incarnation = 0;
  pid_t pid = 0;                     // 0: no child running
  const CgroupLeaf* leaf = nullptr;  // its cgroup, while it runs
  bool retired = false;
};

// What a progress line shows; eta_s from the stage times (timings.hpp),
// nullopt while it cannot be estimated.
struct ProgressFigures {
  size_t done = 0, failed = 0, in_flight = 0, total = 0;
  double elapsed_s = 0;
  std::optional<double> eta_s;
  uint64_t max_total_peak_bytes = 0;
};

// The terminal progress line (without the leading '\r'): a bar of done and
// failed partitions, in flight, the rate, elapsed and ETA as h:mm:ss ("ETA
// unknown" until estimable), and the peak so far.
std::string progress_line(const ProgressFigures& f);
// The same without a terminal, for logs (nohup, journald):
// "proofpipe: progress: 3/12 proved, 0 failed, 2 in flight, elapsed 0:01:02, ETA 0:03:00".
std::string plain_progress_line(const ProgressFigures& f);

// How a run shows its progress on stderr: a bar redrawn in place (a
// terminal), a plain line every PROOFPIPE_PROGRESS_INTERVAL_S seconds
// (default 30; no terminal), or not at all (a service: it has /metrics).
enum class ProgressMode { kNone, kBar, kPlain };

class Reporter {
 public:
  Reporter(const PipelineConfig& cfg, const Ledger& ledger, std::chrono::steady_clock::time_point t0);

  // Set-up, once the ring and the Scheduler exist: the ring's figures, one
  // SeatReport per seat, and --metrics opened (created anew, never through a
  // link planted at the name: safe_file.hpp). kBar shows the progress bar
  // instead of one line per proof.
  Status open(const shm::Ring& ring, const Scheduler& scheduler, std::span<const SeatView> seats,
              ProgressMode progress);
  void set_memory_caps(std::string how) { report_.memory_caps = std::move(how); }
  // The run's parent cgroup: the coordinator's leaf (under --mem-max) is
  // sampled like a worker's, and the parent's usage and peak are the totals
  // against --mem-max.
  void set_run_cgroup(const CgroupRun* run) { cgroup_run_ = run; }
  const std::string& memory_caps() const { return report_.memory_caps; }

  // --- events from the Supervisor ---
  void seat_started(uint8_t seat);  // a new incarnation: its HELLO figures start empty
  uint32_t incarnations(uint8_t seat) const { return report_.seats[seat].incarnations; }
  void gpu_hello(uint8_t seat, ipc::GpuHello hello);
  // A child ended: its lifetime figures (ru_maxrss; the leaf's, when it had one).
  void seat_exited(uint8_t seat, uint64_t peak_rss_bytes, const CgroupLeaf* leaf);
  void seat_died(uint8_t seat, const std::string& line);  // also ends the progress line first
  void restarted() { ++report_.restarts; }
  void committed(const Partition& p);
  void end_progress_line() const;    // the bar's last state stays, the cursor goes to the next line
  void clear_progress_line() const;  // before other output on a TTY: the bar is redrawn at the next turn

  // --- the sampler (docs/metrics.md) ---
  // One sample of every process's memory, the ring and the ledger; `event`
  // names the pipeline event that caused it ("sample" for the timer).
  void sample(std::span<const SeatView> seats, const char* event, std::optional<uint32_t> partition = std::nullopt);
  void sample_if_due(std::span<const SeatView> seats);
  void sample_occupancy();  // backpressure maxima, at every turn of the loop
  void show_progress();
  ProgressFigures progress_figures() const;
  EngineSnapshot snapshot(std::span<const SeatView> seats) const;

  // The run's figures, at its end; `dropped` counts frames the ROUTER could not decode.
  RunReport finish(uint64_t dropped, bool interrupted, std::string abort_reason);

 private:
  double now() const;

  const PipelineConfig& cfg_;
  const Ledger& ledger_;
  std::chrono::steady_clock::time_point t0_;
  const shm::Ring* ring_ = nullptr;
  const Scheduler* scheduler_ = nullptr;
  const CgroupRun* cgroup_run_ = nullptr;
  RunReport report_;
  std::ofstream metrics_;
  double next_sample_s_ = 0;
  // Busy time: the loop turns that began with a partition pending or in
  // flight, summed (sample_occupancy runs at every turn).
  double busy_s_ = 0, last_turn_s_ = 0;
  bool busy_ = false;
  nlohmann::json last_sample_;
  bool tty_ = false;
  ProgressMode progress_ = ProgressMode::kNone;
  double plain_interval_s_ = 30, next_plain_s_ = 30;
  size_t committed_ = 0;
};

}  // namespace proofpipe::engine
