// Everything `proofpipe run` checks before it creates anything (docs/design/overview.md §5
// "bad input"): the key, every witness (length, w[0], values below r), the
// output folder, the worker counts, and the slot count K from --slots or
// --mem-budget. A failure here is one line and exit 2, with nothing written
// and no shared memory or run directory created.
#pragma once

#include <vector>

#include "ledger.hpp"
#include "mem_plan.hpp"
#include "pipeline.hpp"
#include "pipeline_key.hpp"
#include "proofpipe/coordinator/commands.hpp"

namespace proofpipe::coord {

struct PreparedRun {
  PipelineConfig config;
  std::vector<Partition> partitions;
  std::shared_ptr<const PipelineKey> key;  // the --zkey, of either curve
};

Result<PreparedRun> prepare_run(const cli::RunArgs& args);

// --backend cuda (or --gpus) with a key the CUDA kernels cannot prove: they
// are BLS12-381's only (docs/curves.md); `zkey` names the file in the error.
Status check_backend_curve(groth16::BackendKind kind, curves::CurveId curve, const std::filesystem::path& zkey);

// The flags `run` and `serve` share: workers, devices, backend, caps and
// slots. check_worker_flags checks them before any file is read (with
// --gpu-workers resolved); pipeline_config makes the PipelineConfig for the
// keys' sizes (several keys: merge_key_sizes), with K and the caps from
// --mem-max when given (keys, out and metrics are the caller's).
struct WorkerFlags {
  cli::RunArgs args;
  std::vector<std::string> gpus;
};
Result<WorkerFlags> check_worker_flags(const cli::RunArgs& given);
Result<PipelineConfig> pipeline_config(const WorkerFlags& flags, const KeySizes& keys);

// One ring slot's bytes for keys of these sizes (the partition record,
// aligned); `proofpipe doctor` sizes the ring with it too.
uint64_t slot_size_for(const KeySizes& keys);

// K from the flags: explicit --slots, else as many slots as --mem-budget holds
// (at most synth + 2 x gpu workers: more never helps), else synth + gpu
// workers. `reason` says which, for the start line.
Result<uint32_t> choose_slot_count(const cli::RunArgs& args, uint64_t slot_size, std::string* reason);

}  // namespace proofpipe::coord
