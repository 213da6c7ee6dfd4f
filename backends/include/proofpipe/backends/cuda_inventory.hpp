// What `proofpipe doctor` reports of CUDA: the driver's and the runtime's
// versions and each device with its free memory. Host-only header; a build
// without the CUDA backend answers built = false.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace proofpipe::backends {

struct CudaDevice {
  int index = 0;
  std::string name;
  uint64_t free_bytes = 0, total_bytes = 0;
};

struct CudaInventory {
  bool built = false;       // this build has the CUDA backend
  int driver_version = 0;   // 12040 = 12.4 (cudaDriverGetVersion; 0 without a driver)
  int runtime_version = 0;  // cudaRuntimeGetVersion
  std::vector<CudaDevice> devices;
  std::string no_device_reason;  // when devices is empty
};

// Creates a context on each device (cudaMemGetInfo needs one): call it only
// where that is wanted (doctor).
CudaInventory cuda_inventory();

}  // namespace proofpipe::backends
