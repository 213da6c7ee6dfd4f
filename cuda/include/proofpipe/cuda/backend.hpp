// The CUDA prover backend and the backend factory of the processes that link
// cuda/ (the GPU worker and the tests). Host-only header: no CUDA types.
#pragma once

#include <memory>
#include <string>

#include "proofpipe/common/status.hpp"
#include "proofpipe/groth16/backend.hpp"

namespace proofpipe::cuda {

// The CUDA backend on the current device (device 0 unless the process chose
// another): kUnavailable without a device.
//
// Device memory: the proving key's points are uploaded on first use and stay
// resident for the backend's lifetime (keyed by the host span, see
// backend.cpp); per-proof buffers (a, b, c, scalars, MSM scratch) are kept and
// reused, so a warm backend allocates nothing per proof.
// @not_thread_safe one prover thread per backend (the GPU worker has one).
Result<std::unique_ptr<groth16::ProverBackend>> make_cuda_backend();

// kCpu: the CPU backend. kCuda: the CUDA backend, or its error.
// kAuto: the CUDA backend when a device is present, else the CPU backend with
// *notice set to one line saying why (the caller logs it once).
Result<std::unique_ptr<groth16::ProverBackend>> make_backend(groth16::BackendKind kind, std::string* notice);

}  // namespace proofpipe::cuda
