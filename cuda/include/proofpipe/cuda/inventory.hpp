// The driver's and runtime's versions and one device's memory, for
// `proofpipe doctor` (backends/include/proofpipe/backends/cuda_inventory.hpp).
// Host-only API (no CUDA headers).
#pragma once

#include <cstddef>
#include <string>

#include "proofpipe/common/status.hpp"
#include "proofpipe/cuda/device.hpp"

namespace proofpipe::cuda {

int driver_version();   // cudaDriverGetVersion: 12040 = 12.4; 0 without a driver
int runtime_version();  // cudaRuntimeGetVersion

struct DeviceMemory {
  std::string name;
  size_t free_bytes = 0, total_bytes = 0;
};
// Makes `device` current and asks cudaMemGetInfo (creates its context).
Result<DeviceMemory> device_memory(int device);

}  // namespace proofpipe::cuda
