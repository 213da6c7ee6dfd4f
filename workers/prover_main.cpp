// proofpipe-gpu-worker: the proving process (docs/design/overview.md §2). Spawned by
// `proofpipe run` with its seat and run endpoints; not meant to be run by hand.
#include "prover_loop.hpp"

int main(int argc, char** argv) {
  return proofpipe::ipc::worker_main(argc, argv, proofpipe::ipc::Role::kProver, proofpipe::prover::run);
}
