// proofpipe-synth-worker: the synthesis process (docs/design/overview.md §2). Spawned by
// `proofpipe run` with its seat and run endpoints; not meant to be run by hand.
#include "synth_loop.hpp"

int main(int argc, char** argv) {
  return proofpipe::ipc::worker_main(argc, argv, proofpipe::ipc::Role::kSynth, proofpipe::synth::run);
}
