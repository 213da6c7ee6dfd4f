// The coordinator of one `proofpipe run` (docs/pipeline.md): the Supervisor
// (Pipeline, pipeline_impl.hpp) creates the ring and the private run
// directory, spawns and supervises the workers, and executes what the
// Scheduler (scheduler.hpp) decides: grants, dispatches, reclaims, and the
// commit of each verified proof exactly once; it cleans up on the way out.
//
// It never blocks on shared memory: it only loads and CASes slot words, and
// it waits only in one poll over the ROUTER socket, the children's pidfds and
// a signalfd. Messages are hints; after every event the slot words are the
// truth (see reconcile in pipeline_recovery.cpp).
#pragma once

#include <cstdint>
#include <deque>
#include <filesystem>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "ledger.hpp"
#include "process.hpp"
#include "proofpipe/common/status.hpp"
#include "proofpipe/ipc/channel.hpp"
#include "proofpipe/shm/ring.hpp"

namespace proofpipe::coord {

class PipelineKey;  // pipeline_key.hpp
// The run's keys, in PipelineConfig::keys' order: each verifies and writes
// the proofs of its partitions, in its own curve.
using PipelineKeys = std::span<const std::shared_ptr<const PipelineKey>>;

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
  uint64_t synth_mem_max = 0;     // per synthesis worker; 0: no cap
  uint64_t gpu_mem_max = 0;       // per proving worker; 0: no cap
  uint64_t mem_budget = 0;        // --mem-budget, for reports (0: none given)
  uint64_t mem_max = 0;           // --mem-max: the parent cgroup's cap on the whole run (0: none; mem_plan.hpp)
  std::string mem_plan;           // with mem_max: how K and the caps were derived, for the start line
  std::filesystem::path metrics;  // --metrics FILE.jsonl; empty: none
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

class Pipeline;

// What a resident owner of the pipeline (the service, service/) plugs into
// the Supervisor's loop. `run` has none: its loop ends when the ledger is
// finished. With a host the loop runs until the host says stop; every call
// comes from the loop's thread.
//
//   loop turn:  host.on_turn(pipeline) --> pipeline.add_partition / cancel_partition
//               schedule, poll (+ host.wake_fd()), messages, reaps, reconcile, ...
//   a proof:    verify --> host.store_proof (durable) --> ledger commit --> observer: kDone
//   SIGTERM:    host.on_signal(pipeline) (drain: hold grants) ... host.should_stop(pipeline) -> true
class PipelineHost {
 public:
  virtual ~PipelineHost() = default;
  // Polled with the loop's own fds (an eventfd the host signals when it
  // posts work from another thread); -1: none.
  virtual int wake_fd() const = 0;
  virtual void on_turn(Pipeline& pipeline) = 0;
  // A verified proof of `p`: stored durably before it returns, or an error
  // (the partition then fails for good: its outputs cannot be written).
  // `proof` is the raw proof of p's key's curve (PipelineKey::proof_json reads it).
  virtual Status store_proof(const Partition& p, std::string_view proof) = 0;
  // SIGINT/SIGTERM arrived (each one: a second may mean "now").
  virtual void on_signal(Pipeline& pipeline) = 0;
  virtual bool should_stop(const Pipeline& pipeline) = 0;
};

// Runs the pipeline. keys[k] verifies the proofs of partitions with key k.
// Without a host: the whole batch, and partitions end DONE or FAILED in
// `ledger`. The Status is an error only for set-up failures (run dir, ring,
// endpoint), in which case nothing was started and nothing is left behind.
Result<RunReport> run_pipeline(const PipelineConfig& cfg, Ledger& ledger, PipelineKeys keys,
                               PipelineHost* host = nullptr);

}  // namespace proofpipe::coord
