// cuda_status / launch_status (check.hpp) and the device queries (device.hpp).
#include "check.hpp"

#include <string>

#include "proofpipe/cuda/device.hpp"

namespace proofpipe::cuda {

bool is_sticky(cudaError_t err) {
  switch (err) {
    case cudaErrorIllegalAddress:
    case cudaErrorLaunchFailure:
    case cudaErrorHardwareStackError:
    case cudaErrorIllegalInstruction:
    case cudaErrorMisalignedAddress:
    case cudaErrorInvalidAddressSpace:
    case cudaErrorInvalidPc:
    case cudaErrorAssert:
    case cudaErrorECCUncorrectable:
    case cudaErrorLaunchTimeout:
    case cudaErrorDevicesUnavailable:
    case cudaErrorContained:            // Hopper error containment: the context is gone
    case cudaErrorNvlinkUncorrectable:  // uncorrectable hardware error
    case cudaErrorTensorMemoryLeak:
    case cudaErrorExternalDevice:
    case cudaErrorUnknown: return true;
    default: return false;
  }
}

Status cuda_status(cudaError_t err, const char* what) {
  if (err == cudaSuccess) return Status::ok();
  ErrorCode code = ErrorCode::kInternal;
  if (is_sticky(err)) {
    code = ErrorCode::kDeviceLost;
  } else {
    // Not sticky: clear it, or the next launch check would report it as
    // that kernel's failure.
    (void)cudaGetLastError();
    if (err == cudaErrorMemoryAllocation) {
      code = ErrorCode::kResourceExhausted;
    } else if (err == cudaErrorNoDevice || err == cudaErrorInsufficientDriver) {
      code = ErrorCode::kUnavailable;
    }
  }
  return Status(code, std::string(what) + ": " + cudaGetErrorName(err) + ": " + cudaGetErrorString(err));
}

Status launch_status(const char* kernel) {
  const cudaError_t err = cudaGetLastError();
  // A sticky error may have come from any earlier kernel on the context:
  // cudaGetLastError reports it at the next check, whichever launch that is.
  const std::string what = std::string("launch of ") + kernel + (is_sticky(err) ? " (or earlier work)" : "");
  return cuda_status(err, what.c_str());
}

int device_count() {
  int n = 0;
  if (cudaGetDeviceCount(&n) != cudaSuccess) {
    (void)cudaGetLastError();  // clear the "no driver" error
    return 0;
  }
  return n;
}

std::string no_device_reason() {
  int n = 0;
  const cudaError_t err = cudaGetDeviceCount(&n);
  if (err == cudaSuccess) return n > 0 ? "" : "cudaGetDeviceCount: no devices";
  (void)cudaGetLastError();
  return std::string("cudaGetDeviceCount: ") + cudaGetErrorName(err) + ": " + cudaGetErrorString(err);
}

Result<DeviceInfo> device_info() {
  if (device_count() == 0) return Status(ErrorCode::kUnavailable, "no CUDA device (" + no_device_reason() + ")");
  int dev = 0;
  PP_CUDA_TRY(cudaGetDevice(&dev));
  cudaDeviceProp p{};
  PP_CUDA_TRY(cudaGetDeviceProperties(&p, dev));
  DeviceInfo info;
  info.name = p.name;
  info.sm_major = p.major;
  info.sm_minor = p.minor;
  info.multiprocessors = p.multiProcessorCount;
  info.global_memory = p.totalGlobalMem;
  return info;
}

Result<size_t> device_memory_in_use() {
  if (device_count() == 0) return Status(ErrorCode::kUnavailable, "no CUDA device (" + no_device_reason() + ")");
  size_t free = 0, total = 0;
  PP_CUDA_TRY(cudaMemGetInfo(&free, &total));
  return total - free;
}

}  // namespace proofpipe::cuda
