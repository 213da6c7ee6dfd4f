// The CUDA prover backend. Programs get it through the one backend factory,
// proofpipe/backends/factory.hpp. Host-only header: no CUDA types.
#pragma once

#include <memory>
#include <string>

#include "proofpipe/common/status.hpp"
#include "proofpipe/groth16/backend.hpp"

namespace proofpipe::cuda {

// The CUDA backend on the current device (device 0 unless the process chose
// another): kUnavailable without a device.
//
// Device memory: prepare(pk) checks that the key fits, then uploads its
// points (sections with many identity points without them) and keeps them
// resident for the backend's lifetime, keyed by the host span (backend.cpp);
// an MSM over points prepare() did not see uploads them once then.
// Per-proof buffers (a, b, c, scalars, MSM scratch) are kept and reused, so
// a warm backend allocates nothing per proof.
// @not_thread_safe one prover thread per backend (the GPU worker has one).
Result<std::unique_ptr<groth16::ProverBackendT<curves::Bls12_381>>> make_cuda_backend();

}  // namespace proofpipe::cuda
