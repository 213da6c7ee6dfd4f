// The proving worker's loop: on DISPATCH claim the READY slot, check its
// record, run the prover's start step on it in place, release the slot as
// soon as its bytes are no longer needed, then the finish step (the MSMs),
// then send the proof. The backend is the CPU one until cuda/ provides its own.
#pragma once

#include "proofpipe/ipc/worker.hpp"

namespace proofpipe::gpu {

// Returns the process exit code (ipc::kWorkerExit*).
int run(const ipc::WorkerArgs& args);

}  // namespace proofpipe::gpu
