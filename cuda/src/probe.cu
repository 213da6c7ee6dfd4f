// A batched Fr multiply on the device (see probe.hpp).
#include "proofpipe/cuda/probe.hpp"

#include "check.hpp"

namespace proofpipe::cuda {
namespace {

__global__ void fr_mul_kernel(const ff::Fr* a, const ff::Fr* b, ff::Fr* out, size_t n) {
  size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x;
  if (i < n) out[i] = a[i] * b[i];
}

}  // namespace

Status fr_mul_batch(const ff::Fr* a, const ff::Fr* b, ff::Fr* out, size_t n) {
  if (n == 0) return Status::ok();
  DeviceBuffer<ff::Fr> da, db, dout;
  PP_RETURN_IF_ERROR(da.allocate(n));
  PP_RETURN_IF_ERROR(db.allocate(n));
  PP_RETURN_IF_ERROR(dout.allocate(n));
  PP_RETURN_IF_ERROR(da.upload(a, n, nullptr));
  PP_RETURN_IF_ERROR(db.upload(b, n, nullptr));
  fr_mul_kernel<<<grid_for(n), kBlock>>>(da.data(), db.data(), dout.data(), n);
  PP_CUDA_LAUNCHED("fr_mul_kernel");
  PP_RETURN_IF_ERROR(dout.download(out, n, nullptr));
  PP_CUDA_TRY(cudaDeviceSynchronize());
  return Status::ok();
}

}  // namespace proofpipe::cuda
