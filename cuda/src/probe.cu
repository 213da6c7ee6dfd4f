// Device count and a batched Fr multiply (see probe.hpp).
#include "proofpipe/cuda/probe.hpp"

#include <string>

#include <cuda_runtime.h>

namespace proofpipe::cuda {
namespace {

__global__ void fr_mul_kernel(const ff::Fr* a, const ff::Fr* b, ff::Fr* out, size_t n) {
  size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x;
  if (i < n) out[i] = a[i] * b[i];
}

Status cuda_status(cudaError_t err, const char* what) {
  if (err == cudaSuccess) return Status::ok();
  // nvcc cannot evaluate fmt's consteval format checks: build the text by hand.
  return Status(ErrorCode::kInternal, std::string(what) + ": " + cudaGetErrorName(err) + ": " + cudaGetErrorString(err));
}

}  // namespace

int device_count() {
  int n = 0;
  if (cudaGetDeviceCount(&n) != cudaSuccess) {
    (void)cudaGetLastError();  // clear the sticky "no driver" error
    return 0;
  }
  return n;
}

Status fr_mul_batch(const ff::Fr* a, const ff::Fr* b, ff::Fr* out, size_t n) {
  if (n == 0) return Status::ok();
  const size_t bytes = n * sizeof(ff::Fr);
  ff::Fr *da = nullptr, *db = nullptr, *dout = nullptr;
  auto run = [&]() -> Status {
    PP_RETURN_IF_ERROR(cuda_status(cudaMalloc(&da, bytes), "cudaMalloc"));
    PP_RETURN_IF_ERROR(cuda_status(cudaMalloc(&db, bytes), "cudaMalloc"));
    PP_RETURN_IF_ERROR(cuda_status(cudaMalloc(&dout, bytes), "cudaMalloc"));
    PP_RETURN_IF_ERROR(cuda_status(cudaMemcpy(da, a, bytes, cudaMemcpyHostToDevice), "cudaMemcpy"));
    PP_RETURN_IF_ERROR(cuda_status(cudaMemcpy(db, b, bytes, cudaMemcpyHostToDevice), "cudaMemcpy"));
    const unsigned threads = 256;
    fr_mul_kernel<<<unsigned((n + threads - 1) / threads), threads>>>(da, db, dout, n);
    PP_RETURN_IF_ERROR(cuda_status(cudaGetLastError(), "fr_mul_kernel launch"));
    return cuda_status(cudaMemcpy(out, dout, bytes, cudaMemcpyDeviceToHost), "cudaMemcpy");
  };
  Status st = run();
  (void)cudaFree(da);
  (void)cudaFree(db);
  (void)cudaFree(dout);
  return st;
}

}  // namespace proofpipe::cuda
