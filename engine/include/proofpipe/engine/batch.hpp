// Everything `proofpipe run` checks before it creates anything (docs/design/overview.md §5
// "bad input"): the key, every witness (length, w[0], values below r), the
// output folder, the worker counts, and the slot count K from --slots or
// --mem-budget. A failure here is one line and exit 2, with nothing written
// and no shared memory or run directory created.
#pragma once

#include <vector>

#include <memory>
#include <string>

#include "proofpipe/engine/config.hpp"
#include "proofpipe/engine/key.hpp"
#include "proofpipe/engine/ledger.hpp"
#include "proofpipe/engine/plan.hpp"

namespace proofpipe::engine {

// One batch as `run` (and `demo`) asks for it.
struct BatchRequest {
  std::string zkey;
  std::vector<std::string> witnesses;
  std::string witness_dir;
  std::vector<std::string> inputs;  // --inputs: circuit input JSON files or folders (docs/witness-gen.md)
  std::string witness_gen;          // --witness-gen wasm:<dir|.wasm> | native:<binary>, with --inputs
  std::string out;
  std::string run_dir;     // empty: a fresh private one
  std::string metrics;     // FILE.jsonl (docs/metrics.md)
  bool overwrite = false;  // --overwrite: replace this run's outputs in a used --out (docs/operations.md)
  bool resume = false;     // --resume: keep the proofs in --out that verify, prove the rest (resume.hpp)
  WorkerFlags workers;
};

struct PreparedRun {
  PipelineConfig config;
  std::vector<Partition> partitions;
  std::shared_ptr<const PipelineKey> key;  // the --zkey, of either curve
};

Result<PreparedRun> prepare_run(const BatchRequest& request);

}  // namespace proofpipe::engine
