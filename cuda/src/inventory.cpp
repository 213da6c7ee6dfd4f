// Versions and device memory for `proofpipe doctor` (inventory.hpp).
#include "proofpipe/cuda/inventory.hpp"

#include <cuda_runtime_api.h>

#include "check.hpp"

namespace proofpipe::cuda {

namespace {

// cudaDriverGetVersion / cudaRuntimeGetVersion: 0 where it fails (no driver).
int version_from(cudaError_t (*get)(int*)) {
  int v = 0;
  if (get(&v) != cudaSuccess) {
    (void)cudaGetLastError();
    return 0;
  }
  return v;
}

}  // namespace

int driver_version() { return version_from(cudaDriverGetVersion); }
int runtime_version() { return version_from(cudaRuntimeGetVersion); }

Result<DeviceMemory> device_memory(int device) {
  PP_CUDA_TRY(cudaSetDevice(device));
  cudaDeviceProp p{};
  PP_CUDA_TRY(cudaGetDeviceProperties(&p, device));
  DeviceMemory m;
  m.name = p.name;
  PP_CUDA_TRY(cudaMemGetInfo(&m.free_bytes, &m.total_bytes));
  return m;
}

}  // namespace proofpipe::cuda
