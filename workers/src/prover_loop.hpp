// The proving worker's loop: on DISPATCH claim the READY slot, take its
// record (copied out and checksummed, or uploaded straight from the slot by
// a backend that takes its inputs), release the slot at once, run the
// prover's start step (H) and finish step (the MSMs), and send the proof.
// The backend comes from the one factory (backends/): CUDA where a device is
// present and --backend allows it, else the CPU.
#pragma once

#include "proofpipe/ipc/worker.hpp"

namespace proofpipe::prover {

// Returns the process exit code (ipc::kWorkerExit*).
int run(const ipc::WorkerArgs& args);

}  // namespace proofpipe::prover
