// The synthesis worker's loop: ask for a slot, write one partition into it
// (a = A.w, b = B.w, c = a o b and the witness, straight into shared memory),
// seal it, repeat until SHUTDOWN.
#pragma once

#include "proofpipe/ipc/worker.hpp"

namespace proofpipe::synth {

// Returns the process exit code (ipc::kWorkerExit*).
int run(const ipc::WorkerArgs& args);

}  // namespace proofpipe::synth
