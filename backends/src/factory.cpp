// make_bls12_381_backend (factory.hpp): the CPU backend from groth16/, the CUDA one
// from cuda/ when this build has it.
#include "proofpipe/backends/factory.hpp"

#if defined(PP_BACKENDS_CUDA)
#include "proofpipe/cuda/backend.hpp"
#endif

namespace proofpipe::backends {
namespace {

Result<std::unique_ptr<groth16::ProverBackendT<curves::Bls12_381>>> make_device_backend() {
#if defined(PP_BACKENDS_CUDA)
  return cuda::make_cuda_backend();
#else
  return make_error(ErrorCode::kUnavailable,
                    "this build has no CUDA backend (nvcc was not found when it was configured; see docs/gpu.md)");
#endif
}

}  // namespace

bool built_with_cuda() {
#if defined(PP_BACKENDS_CUDA)
  return true;
#else
  return false;
#endif
}

Result<std::unique_ptr<groth16::ProverBackendT<curves::Bls12_381>>> make_bls12_381_backend(groth16::BackendKind kind,
                                                                                           std::string* notice) {
  switch (kind) {
    case groth16::BackendKind::kCpu: return groth16::make_cpu_backend<curves::Bls12_381>();
    case groth16::BackendKind::kCuda: return make_device_backend();
    case groth16::BackendKind::kAuto: break;
  }
  auto device = make_device_backend();
  if (device) return device;
  if (notice != nullptr) *notice = device.status().message() + ": proving on the CPU";
  return groth16::make_cpu_backend<curves::Bls12_381>();
}

}  // namespace proofpipe::backends
