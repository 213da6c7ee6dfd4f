// The backend factory: turns --backend auto|cpu|cuda into a prover backend,
// the same way in every program that proves (the proving worker and
// `proofpipe prove`). Host-only header: no CUDA types.
#pragma once

#include <memory>
#include <string>

#include "proofpipe/common/status.hpp"
#include "proofpipe/groth16/backend.hpp"

namespace proofpipe::backends {

// True when this build has the CUDA backend (nvcc was found at configure).
bool built_with_cuda();

// kCpu: the CPU backend.
// kCuda: the CUDA backend on the current device, or kUnavailable naming why
//   (no device, or a build without CUDA): never a silent fallback.
// kAuto: the CUDA backend when a device is present, else the CPU backend
//   with *notice (when given) set to one line saying why, for the caller to
//   log once.
Result<std::unique_ptr<groth16::ProverBackend>> make_backend(groth16::BackendKind kind, std::string* notice = nullptr);

}  // namespace proofpipe::backends
