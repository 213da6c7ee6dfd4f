// The subcommands of `proofpipe`, each returning the process exit code:
// 0 success, 1 a proof that does not verify (verify only), 2 an error
// (bad input, I/O), with one line on stderr naming the file and the problem.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace proofpipe::cli {

inline constexpr int kExitOk = 0;
inline constexpr int kExitInvalid = 1;
inline constexpr int kExitError = 2;
// `run`: the batch finished but some partitions failed (named on stderr and
// in summary.json); the proofs of the others were written.
inline constexpr int kExitPartial = 3;
// `run`: stopped by SIGINT/SIGTERM (workers stopped, ring removed).
inline constexpr int kExitInterrupted = 130;

struct ProveArgs {
  std::string zkey, wtns, proof, public_json, backend = "auto";
};
int run_prove(const ProveArgs& args);

// fullprove: snarkjs's argument order; the witness from a circom generator
// in a child under --mem-max (cgroup, else RLIMIT_AS), then `prove`.
struct FullproveArgs {
  std::string input, generator, zkey, proof, public_json, backend = "auto", mem_max = "16G";
  unsigned max_attempts = 3;
};
int run_fullprove(const FullproveArgs& args);

struct VerifyArgs {
  std::string vkey, public_json, proof;
};
int run_verify(const VerifyArgs& args);

struct ExportVkeyArgs {
  std::string zkey, vkey;
};
int run_export_vkey(const ExportVkeyArgs& args);

// A Groth16 key with toxic waste known to this process: TESTING ONLY.
struct SetupDevArgs {
  std::string r1cs, zkey;
};
int run_setup_dev(const SetupDevArgs& args);

// `proofpipe gen`: a synthetic workload (circuit, TESTING ONLY key, witnesses).
struct GenArgs {
  unsigned constraints = 1u << 16;
  unsigned partitions = 10;
  std::string out;
  uint64_t seed = 1;
  std::string curve = "bls12381";  // or "bn128"
};
int run_gen(const GenArgs& args);

// `proofpipe run`: the multi-process pipeline (docs/design/overview.md §2-§5, §7).
inline constexpr unsigned kGpuWorkersAuto = ~0u;  // --gpu-workers not given
struct RunArgs {
  std::string zkey;
  std::vector<std::string> witnesses;
  std::string witness_dir;
  std::vector<std::string> inputs;  // --inputs: circuit input JSON files or folders (docs/witness-gen.md)
  std::string witness_gen;          // --witness-gen wasm:<dir|.wasm> | native:<binary>, with --inputs
  std::string out;
  unsigned synth_workers = 2;
  unsigned gpu_workers = kGpuWorkersAuto;  // not given: one per --gpus device, else 1
  std::string gpus;           // --gpus 0,1 (or GPU-<uuid>,...): one CUDA device per proving worker, in turn
  unsigned slots = 0;         // 0: from --mem-budget, else synth + gpu workers
  std::string mem_budget;     // SIZE
  std::string synth_mem_max;  // SIZE per synthesis worker (cgroup, else RLIMIT_AS)
  std::string gpu_mem_max;    // SIZE per proving worker (cgroup only)
  std::string mem_max;        // SIZE: one cgroup cap on the whole run; K and the caps derived from it
  unsigned max_attempts = 3;
  std::string backend = "auto";
  std::string run_dir;  // empty: a fresh private one
  double hang_timeout_s = 30;
  std::string metrics;  // FILE.jsonl (docs/metrics.md)
  unsigned sample_ms = 250;
  bool overwrite = false;  // --overwrite: replace this run's outputs in a used --out (docs/operations.md)
  bool resume = false;     // --resume: keep the proofs in --out that verify, prove the rest (resume.hpp)
};
int run_run(const RunArgs& args);
// "proofpipe 0.1.0 (git e42d69b)": `--version` (the build's git describe; "unknown" outside git).
std::string version_line();

// `proofpipe status`: asks a running coordinator and prints a table (or JSON).
struct StatusArgs {
  std::string run_dir;  // empty: the only live run under the default base
  bool json = false;
};
int run_status(const StatusArgs& args);

// `proofpipe doctor`: what this host offers a run (docs/operations.md);
// exit 1 when a check FAILs (a run would stop), 0 otherwise, 2 on a bad --zkey.
struct DoctorArgs {
  std::string zkey;  // compare /dev/shm with this key's ring (default K)
  bool json = false;
};
int run_doctor(const DoctorArgs& args);

// `proofpipe demo`: run on the bundled circuit, then verify every output.
struct DemoArgs {
  std::string out = "proofpipe-demo";
  unsigned synth_workers = 2;
  unsigned gpu_workers = 1;
  bool overwrite = false;          // as run's --overwrite
  bool from_inputs = false;        // --from-inputs: start from the input JSON files (wasm generator)
  std::string curve = "bls12381";  // bls12381, bn128, or both (each into <out>/<curve>)
};
int run_demo(const DemoArgs& args);

}  // namespace proofpipe::cli
