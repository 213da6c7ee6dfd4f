// cuda_inventory (cuda_inventory.hpp): asks cuda/ where this build has it.
#include "proofpipe/backends/cuda_inventory.hpp"

#if defined(PP_BACKENDS_CUDA)
#include "proofpipe/cuda/inventory.hpp"
#endif

namespace proofpipe::backends {

CudaInventory cuda_inventory() {
  CudaInventory inv;
#if defined(PP_BACKENDS_CUDA)
  inv.built = true;
  inv.driver_version = cuda::driver_version();
  inv.runtime_version = cuda::runtime_version();
  const int n = cuda::device_count();
  if (n == 0) inv.no_device_reason = cuda::no_device_reason();
  for (int i = 0; i < n; ++i) {
    auto mem = cuda::device_memory(i);
    if (!mem) {
      inv.no_device_reason = mem.status().message();
      continue;
    }
    inv.devices.push_back({i, mem->name, mem->free_bytes, mem->total_bytes});
  }
#else
  inv.no_device_reason = "this build has no CUDA backend";
#endif
  return inv;
}

}  // namespace proofpipe::backends
