// The subcommands of `proofpipe`, each returning the process exit code:
// 0 success, 1 a proof that does not verify (verify only), 2 an error
// (bad input, I/O), with one line on stderr naming the file and the problem.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "proofpipe/common/status.hpp"
#include "proofpipe/curves.hpp"
#include "proofpipe/engine/batch.hpp"
#include "proofpipe/service/serve.hpp"

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
int cmd_prove(const ProveArgs& args);
// `prove` with the witness made once the key is loaded (fullprove): the key
// is read once. make_witness gets the key's curve and wire count and gives
// the witness file's path (args.wtns is not used).
using MakeWitness = std::function<Result<std::string>(curves::CurveId key_curve, uint32_t n_vars)>;
int cmd_prove_with(const ProveArgs& args, const MakeWitness& make_witness);

// fullprove: snarkjs's argument order; the witness from a circom generator
// in a child under --mem-max (cgroup, else RLIMIT_AS), then `prove`.
struct FullproveArgs {
  std::string input, generator, zkey, proof, public_json, backend = "auto", mem_max = "16G";
  unsigned max_attempts = 3;
};
int cmd_fullprove(const FullproveArgs& args);

struct VerifyArgs {
  std::string vkey, public_json, proof;
};
int cmd_verify(const VerifyArgs& args);

struct ExportVkeyArgs {
  std::string zkey, vkey;
};
int cmd_export_vkey(const ExportVkeyArgs& args);

// A Groth16 key with toxic waste known to this process: TESTING ONLY.
struct SetupDevArgs {
  std::string r1cs, zkey;
};
int cmd_setup_dev(const SetupDevArgs& args);

// `proofpipe gen`: a synthetic workload (circuit, TESTING ONLY key, witnesses).
struct GenArgs {
  unsigned constraints = 1u << 16;
  unsigned partitions = 10;
  std::string out;
  uint64_t seed = 1;
  std::string curve = "bls12381";  // or "bn128"
};
int cmd_gen(const GenArgs& args);

// `proofpipe run`: the multi-process pipeline (docs/pipeline.md).
using RunArgs = engine::BatchRequest;
int cmd_run(const RunArgs& args);
// "proofpipe 0.1.0 (git e42d69b)": `--version` (the build's git describe; "unknown" outside git).
std::string version_line();

// `proofpipe status`: asks a running coordinator and prints a table (or JSON).
struct StatusArgs {
  std::string run_dir;  // empty: the only live run under the default base
  bool json = false;
};
int cmd_status(const StatusArgs& args);

// `proofpipe doctor`: what this host offers a run (docs/operations.md);
// exit 1 when a check FAILs (a run would stop), 0 otherwise, 2 on a bad --zkey.
struct DoctorArgs {
  std::string zkey;  // compare /dev/shm with this key's ring (default K)
  bool json = false;
};
int cmd_doctor(const DoctorArgs& args);

// `proofpipe demo`: run on the bundled circuit, then verify every output.
struct DemoArgs {
  std::string out = "proofpipe-demo";
  unsigned synth_workers = 2;
  unsigned gpu_workers = 1;
  bool overwrite = false;          // as run's --overwrite
  bool from_inputs = false;        // --from-inputs: start from the input JSON files (wasm generator)
  std::string curve = "bls12381";  // bls12381, bn128, or both (each into <out>/<curve>)
};
int cmd_demo(const DemoArgs& args);

// `proofpipe serve` (docs/service.md): the resident service.
using ServeArgs = service::ServeOptions;
int cmd_serve(const ServeArgs& args);

// The clients. --server defaults to $PROOFPIPE_SERVER, else http://127.0.0.1:7300;
// a token is read from --token-file or $PROOFPIPE_TOKEN_FILE when given.
struct ClientArgs {
  std::string server;
  std::string token_file;
  double timeout_s = 60;  // --timeout: the whole of one request, connect to last byte
};
struct SubmitArgs : ClientArgs {
  std::string key;
  std::string id;
  int64_t priority = 0;
  std::string out;  // with --wait: where the proofs are written
  bool wait = false;
  bool upload = true;  // false (--paths): send server paths (the server's --allow-dir) instead of the files
  std::vector<std::string> witnesses;
  std::vector<std::string> inputs;  // --inputs FILE|DIR...: circom input JSON instead of witnesses
};
int cmd_submit(const SubmitArgs& args);

struct JobsArgs : ClientArgs {
  std::string id;     // empty: list
  std::string state;  // list filter
  bool json = false;
};
int cmd_jobs(const JobsArgs& args);

struct CancelArgs : ClientArgs {
  std::string id;
};
int cmd_cancel(const CancelArgs& args);

}  // namespace proofpipe::cli
