// The engine's configuration and report types (engine.hpp runs them):
// PipelineConfig, what one run or service starts with; RunReport, what it
// says at the end; WorkerFlags, the worker, slot, cap and attempt settings
// `run` and `serve` share, as given (plan.hpp checks them and derives the
// PipelineConfig).
#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "proofpipe/ipc/messages.hpp"

namespace proofpipe::engine {

class PipelineKey;  // key.hpp
// The run's keys, in PipelineConfig::keys' order: each verifies and writes
// the proofs of its partitions, in its own curve.
using PipelineKeys = std::span<const std::shared_ptr<const PipelineKey>>;

// --gpu-workers not given: one per --gpus device, else 1.
inline constexpr unsigned kGpuWorkersAuto = ~0u;

// The worker, slot, cap and attempt settings, as the user gave them (sizes
// as text: plan.hpp parses them and names the flag in its errors).
struct WorkerFlags {
  unsigned synth_workers = 2;
  unsigned gpu_workers = kGpuWorkersAuto;
  std::string gpus;           // --gpus 0,1 (or GPU-<uuid>,...): one CUDA device per proving worker, in turn
  unsigned slots = 0;         // 0: from --mem-budget, else synth + gpu workers
  std::string mem_budget;     // SIZE
  std::string synth_mem_max;  // SIZE per synthesis worker (cgroup, else RLIMIT_AS)
  std::string gpu_mem_max;    // SIZE per proving worker (cgroup only)
  std::string mem_max;        // SIZE: one cgroup cap on the whole run; K and the caps derived from it
  unsigned max_attempts = 3;
  std::string backend = "auto";
  double hang_timeout_s = 30;
  unsigned sample_ms = 250;
  // --witness-gen-timeout DURATION (parse_duration_ms): the wall-clock limit
  // per witness generator run; over it the partition fails, not retried.
  std::string witness_gen_timeout = "10m";
};

struct PipelineConfig {
  // The keys the workers map, in the order a partition's `key` indexes: one
  // for `run`, every --key of `serve`.
  std::vector<std::filesystem::path> keys;
  std::filesystem::path out;
  std::filesystem::path run_dir;  // empty: a fresh private directory under $XDG_RUNTIME_DIR or /tmp
  std::filesystem::path bin_dir;  // where the worker executables are
  unsigned synth_workers = 2;
  unsigned gpu_workers = 1;
  uint32_t slots = 3;
  uint64_t slot_size = 0;
  std::string slots_reason;  // how K was chosen, for the start line
  std::string backend = "auto";
  std::vector<std::string> gpus;  // --gpus: proving worker i gets CUDA_VISIBLE_DEVICES=gpus[i % size]
  double hang_timeout_s = 30;
  uint64_t generate_timeout_ms = 600000;  // per witness generator run (WorkerFlags::witness_gen_timeout)
  uint64_t synth_mem_max = 0;             // per synthesis worker; 0: no cap
  uint64_t gpu_mem_max = 0;               // per proving worker; 0: no cap
  uint64_t mem_budget = 0;                // --mem-budget, for reports (0: none given)
  uint64_t mem_max = 0;                   // --mem-max: the parent cgroup's cap on the whole run (0: none; plan.hpp)
  std::string mem_plan;                   // with mem_max: how K and the caps were derived, for the start line
  std::filesystem::path metrics;          // --metrics FILE.jsonl; empty: none
  unsigned sample_ms = 250;
};

// What happened to one worker seat over the run.
struct SeatReport {
  ipc::Role role = ipc::Role::kSynth;
  unsigned seat = 0;
  unsigned incarnations = 0;
  uint64_t peak_rss_bytes = 0;     // max over its incarnations (ru_maxrss; includes slot pages it touched)
  uint64_t cgroup_peak_bytes = 0;  // max over its incarnations of the leaf cgroup's high-water mark
  uint64_t oom_kills = 0;
  std::vector<std::string> deaths;  // one line per unexpected death
  std::string backend;  // gpu: what its last incarnation proves with ("cuda", "cpu"), from its HELLO; empty before
  std::string devices;  // gpu, cuda backend: the CUDA_VISIBLE_DEVICES it saw (--gpus), from its HELLO
  std::string intake;   // gpu: how it takes a record from its slot ("copy", "take"), from its HELLO
};

struct RunReport {
  double wall_s = 0;
  uint64_t ring_bytes = 0;
  uint32_t slots = 0;
  uint64_t slot_size = 0;
  uint64_t coordinator_peak_rss_bytes = 0;
  uint64_t coordinator_cgroup_peak_bytes = 0;  // --mem-max: its leaf's high-water mark (the ring included)
  std::vector<SeatReport> seats;
  uint32_t max_slots_filled = 0;       // most slots WRITING or READY at once (sampled at every event)
  uint32_t max_waiting_for_grant = 0;  // most synth workers idle for lack of a free slot
  uint64_t max_total_rss_bytes = 0;    // most resident memory of all processes at one sample
  uint64_t max_total_peak_bytes = 0;   // most of the summed per-interval peaks at one sample
  uint64_t samples = 0;
  uint64_t stale_messages = 0;
  uint64_t malformed_messages = 0;  // dropped: a field no message of ours can hold (scheduler.hpp)
  uint64_t duplicate_proofs = 0;
  uint64_t restarts = 0;
  std::string memory_caps;  // how caps were enforced ("cgroup v1", "RLIMIT_AS (no writable cgroup)", "none")
  // --mem-max: the cap, the parent cgroup's high-water mark (every process
  // and the ring, each page once) and the most it held at one sample.
  uint64_t mem_max = 0;
  uint64_t parent_cgroup_peak_bytes = 0;
  uint64_t max_total_cgroup_bytes = 0;
  bool interrupted = false;
  std::string abort_reason;  // non-empty when the run gave up (no workers left)
};

}  // namespace proofpipe::engine
