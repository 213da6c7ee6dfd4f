// One memory budget for the whole pipeline (`--mem-max TOTAL`;
// docs/operations.md, "One memory budget"): from TOTAL, the slot size, the
// key's sizes and the worker counts, the plan derives K and the per-worker
// caps from a measured model of what each process needs (engine/src/plan.cpp
// has the model and its measurements). What counts against TOTAL, each part
// once:
//
//   coordinator allowance + K x slot (the ring: shm pages the coordinator
//   allocates, charged to it alone) + the key's pages (page cache: charged to
//   whichever process reads them first, so counted once) + S x a synthesis
//   worker's private memory + G x a proving worker's + headroom.
//
// The headroom left after K is chosen goes to the workers' caps, in
// proportion to their private needs. Each cap also holds the key pages its
// role maps (any one worker may be the one charged for them), so the caps
// may add up to more than TOTAL by the key pages counted twice; the parent
// cgroup's cap, TOTAL, is the bound. A TOTAL that cannot hold the
// coordinator, one slot (or the K given) and every worker is refused before
// anything is created. `run` and `serve` both plan through apply_mem_max.
#pragma once

#include <cstdint>
#include <string>

#include "proofpipe/common/status.hpp"
#include "proofpipe/curves.hpp"
#include "proofpipe/engine/config.hpp"
#include "proofpipe/formats/zkey.hpp"
#include "proofpipe/groth16/backend.hpp"

namespace proofpipe::engine {

// What the model reads of a proving key.
struct KeySizes {
  uint32_t domain_size = 0;
  uint32_t n_vars = 0;
  uint64_t coef_bytes = 0;   // section 4 (A and B coefficients): what a synthesis worker maps
  uint64_t point_bytes = 0;  // sections 5-9 (A, B1, B2, C, H points): what a proving worker maps
};
// For either curve (instantiated for both in engine/src/plan.cpp).
template <class C>
KeySizes key_sizes_of(const formats::ZkeyT<C>& zkey);
// Several keys resident at once (serve): the largest domain and witness,
// the pages of all of them.
KeySizes merge_key_sizes(const KeySizes& a, const KeySizes& b);

struct MemPlanInputs {
  uint64_t slot_size = 0;
  KeySizes key;
  unsigned synth_workers = 1;
  unsigned gpu_workers = 1;
  unsigned threads = 1;            // each worker's thread count (worker_count(): PROOFPIPE_THREADS, else the CPUs)
  uint64_t coordinator_extra = 0;  // serve: what its own structures add to run's coordinator
  // Given beside --mem-max (0: derive it). Explicit values win when they
  // fit inside TOTAL with everything else at its need.
  uint32_t slots = 0;
  std::string slots_reason;  // how the explicit K was chosen (--slots K, --mem-budget ...)
  uint64_t synth_cap = 0;    // --synth-mem-max
  uint64_t gpu_cap = 0;      // --gpu-mem-max
};

struct MemPlan {
  uint64_t total = 0;
  uint32_t slots = 0;
  uint64_t slot_size = 0;
  std::string slots_reason;
  uint64_t coordinator = 0;  // its allowance (no cap of its own: the parent's bounds it)
  uint64_t key_pages = 0;    // counted once, for the roles whose caps were derived
  uint64_t synth_cap = 0;
  uint64_t gpu_cap = 0;
  unsigned synth_workers = 0;
  unsigned gpu_workers = 0;
};

// The model, each a whole number of MiB (margin included).
uint64_t coordinator_need(const MemPlanInputs& in);
uint64_t synth_private_need(const MemPlanInputs& in);  // without the key's pages
uint64_t gpu_private_need(const MemPlanInputs& in);    // without the key's pages

// The plan, or the one-line refusal: "--mem-max 64.00 MiB cannot hold ...:
// needs at least X (...)".
Result<MemPlan> make_mem_plan(uint64_t total, const MemPlanInputs& in);

// The start line's text after "proofpipe: memory: ": "--mem-max 2.00 GiB: K=3
// slots of 96.00 MiB, synth cap 300.00 MiB x2, gpu cap 900.00 MiB x1,
// coordinator ~40.00 MiB, key pages 180.00 MiB".
std::string describe_mem_plan(const MemPlan& plan);

// The inputs from a prepared config: its slot size, worker counts and
// explicit caps (cfg.synth_mem_max / gpu_mem_max; 0 = derive), the key, and
// `explicit_slots` (0 = derive) with how they were chosen.
MemPlanInputs mem_plan_inputs(const PipelineConfig& cfg, const KeySizes& key, uint32_t explicit_slots,
                              const std::string& slots_reason);
// Sets cfg's slots, slots_reason, caps, mem_max and mem_plan from the plan.
void apply_mem_plan(const MemPlan& plan, PipelineConfig& cfg);
// Both, for `run`: the plan for --mem-max `total`, applied to cfg.
Status apply_mem_max(uint64_t total, const KeySizes& key, uint32_t explicit_slots, const std::string& slots_reason,
                     PipelineConfig& cfg);

// --backend cuda (or --gpus) with a key the CUDA kernels cannot prove: they
// are BLS12-381's only (docs/curves.md); `zkey` names the file in the error.
Status check_backend_curve(groth16::BackendKind kind, curves::CurveId curve, const std::filesystem::path& zkey);

// The flags `run` and `serve` share: workers, devices, backend, caps and
// slots. check_worker_flags checks them before any file is read (with
// --gpu-workers resolved); pipeline_config makes the PipelineConfig for the
// keys' sizes (several keys: merge_key_sizes), with K and the caps from
// --mem-max when given (keys, out and metrics are the caller's).
struct WorkerSetup {
  WorkerFlags given;              // --gpu-workers resolved; --backend cuda when --gpus is given
  std::vector<std::string> gpus;  // --gpus, one entry per device
};
Result<WorkerSetup> check_worker_flags(const WorkerFlags& given);
Result<PipelineConfig> pipeline_config(const WorkerSetup& setup, const KeySizes& keys);

// One ring slot's bytes for keys of these sizes (the partition record,
// aligned); `proofpipe doctor` sizes the ring with it too.
uint64_t slot_size_for(const KeySizes& keys);

// K from the flags: explicit --slots, else as many slots as --mem-budget holds
// (at most synth + 2 x gpu workers: more never helps), else synth + gpu
// workers. `reason` says which, for the start line.
Result<uint32_t> choose_slot_count(const WorkerFlags& flags, uint64_t slot_size, std::string* reason);

// --hang-timeout: workers beat every 100 ms, so below half a second a busy
// one could be killed for one late beat; above a week it is no timeout.
inline constexpr double kMinHangTimeoutS = 0.5;
inline constexpr double kMaxHangTimeoutS = 7 * 24 * 3600.0;
// Empty when `seconds` is an acceptable --hang-timeout, else what is wrong.
std::string hang_timeout_problem(double seconds);

// --witness-gen-timeout DURATION: a whole number with a unit, ms, s, m or h
// ("90s", "10m"; a bare number is seconds), from 1 s to one week. Errors
// are one line naming the flag.
Result<uint64_t> parse_witness_gen_timeout_ms(std::string_view text);

}  // namespace proofpipe::engine
