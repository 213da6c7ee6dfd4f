// Which CUDA device this process sees. Host-only API (no CUDA headers), so
// the GPU worker and the tests can ask without compiling CUDA themselves.
#pragma once

#include <cstddef>
#include <string>

#include "proofpipe/common/status.hpp"

namespace proofpipe::cuda {

// Number of usable CUDA devices; 0 when there is no driver or no device.
int device_count();

// Why device_count() is 0, in the runtime's words (e.g. "cudaGetDeviceCount:
// cudaErrorInsufficientDriver: CUDA driver version is insufficient for CUDA
// runtime version"); empty when a device is there. A GPU that nvidia-smi
// lists but this process cannot use then says why instead of a bare
// "no CUDA device".
std::string no_device_reason();

struct DeviceInfo {
  std::string name;
  int sm_major = 0, sm_minor = 0;
  int multiprocessors = 0;
  size_t global_memory = 0;  // bytes
};
// The current device (device 0 unless the caller chose another);
// kUnavailable without one.
Result<DeviceInfo> device_info();

// Bytes of the current device's memory in use by every process and context
// (total - free, cudaMemGetInfo; creates this process's context). The
// benchmark's measure of what a context keeps beyond its own buffers (local
// memory for spilling kernels, loaded modules).
Result<size_t> device_memory_in_use();

}  // namespace proofpipe::cuda
