// The backend factory: turns --backend auto|cpu|cuda into a prover backend,
// the same way in every program that proves (the proving worker and
// `proofpipe prove`). Host-only header: no CUDA types.
#pragma once

#include <memory>
#include <string>
#include <type_traits>

#include "proofpipe/common/status.hpp"
#include "proofpipe/groth16/backend.hpp"

namespace proofpipe::backends {

// True when this build has the CUDA backend (nvcc was found at configure).
bool built_with_cuda();

// The BLS12-381 backend (the one curve with device kernels):
// kCpu: the CPU backend.
// kCuda: the CUDA backend on the current device, or kUnavailable naming why
//   (no device, or a build without CUDA): never a silent fallback.
// kAuto: the CUDA backend when a device is present, else the CPU backend
//   with *notice (when given) set to one line saying why, for the caller to
//   log once.
Result<std::unique_ptr<groth16::ProverBackendT<curves::Bls12_381>>> make_bls12_381_backend(
    groth16::BackendKind kind, std::string* notice = nullptr);

// The backend for curve C, for every program that proves either curve
// (`prove`, the proving worker): make_bls12_381_backend for BLS12-381; the CPU
// backend for BN254, which has no device kernels yet (kCuda is refused,
// kInvalidArgument; the callers refuse it earlier with the key's name).
template <class C>
Result<std::unique_ptr<groth16::ProverBackendT<C>>> make_backend_for(groth16::BackendKind kind,
                                                                     std::string* notice = nullptr) {
  if constexpr (std::is_same_v<C, curves::Bls12_381>) {
    return make_bls12_381_backend(kind, notice);
  } else {
    if (kind == groth16::BackendKind::kCuda) {
      return make_error(ErrorCode::kInvalidArgument,
                        "--backend cuda: the CUDA backend proves bls12381 keys only; "
                        "{} keys are proved on the CPU (--backend cpu or auto)",
                        C::kName);
    }
    return std::unique_ptr<groth16::ProverBackendT<C>>(groth16::make_cpu_backend<C>());
  }
}

}  // namespace proofpipe::backends
