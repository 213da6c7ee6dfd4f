// The proving worker's loop: on DISPATCH claim the READY slot, copy its
// record out (checking the checksum), release the slot at once, then run the
// prover's start step (H) and finish step (the MSMs) on the private copy, and
// send the proof. The backend is the CPU one until cuda/ provides its own.
#pragma once

#include "proofpipe/ipc/worker.hpp"

namespace proofpipe::gpu {

// Returns the process exit code (ipc::kWorkerExit*).
int run(const ipc::WorkerArgs& args);

}  // namespace proofpipe::gpu
