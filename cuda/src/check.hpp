// CUDA error handling and device memory for the code of cuda/ (internal).
//
// Every runtime call and every launch goes through cuda_status(): a failure
// becomes a Status, never an abort. Errors that poison the context (an
// illegal address, a failed launch, ECC; CUDA calls them "sticky") map to
// ErrorCode::kDeviceLost: the process cannot recover in place, so the GPU
// worker logs and exits with kWorkerExitDevice and the coordinator starts a
// fresh one (the slot is proved again). Out-of-memory maps to
// kResourceExhausted and leaves the context usable.
//
// Compiled by both nvcc (.cu) and the host compiler (.cpp): no device code.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <utility>

#include "proofpipe/common/status.hpp"

namespace proofpipe::cuda {

// Whether err leaves the CUDA context unusable for the rest of the process.
bool is_sticky(cudaError_t err);

// Status of one runtime call; `what` names the call for the message. Builds
// the text by hand: nvcc cannot evaluate fmt's consteval format checks.
Status cuda_status(cudaError_t err, const char* what);

// The error of the last launch (cudaGetLastError), named after the kernel.
Status launch_status(const char* kernel);

#define PP_CUDA_TRY(expr) PP_RETURN_IF_ERROR(::proofpipe::cuda::cuda_status((expr), #expr))
#define PP_CUDA_LAUNCHED(name) PP_RETURN_IF_ERROR(::proofpipe::cuda::launch_status(name))

// An owned device allocation of n elements of T (cudaMalloc/cudaFree).
// Move-only; an empty buffer holds nullptr. Contents are uninitialised.
template <class T>
class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  DeviceBuffer(DeviceBuffer&& o) noexcept : p_(std::exchange(o.p_, nullptr)), n_(std::exchange(o.n_, 0)) {}
  DeviceBuffer& operator=(DeviceBuffer&& o) noexcept {
    if (this != &o) {
      reset();
      p_ = std::exchange(o.p_, nullptr);
      n_ = std::exchange(o.n_, 0);
    }
    return *this;
  }
  ~DeviceBuffer() { reset(); }

  // Frees what is held and allocates n elements (n = 0: holds nothing).
  Status allocate(size_t n) {
    reset();
    if (n == 0) return Status::ok();
    void* p = nullptr;
    PP_CUDA_TRY(cudaMalloc(&p, n * sizeof(T)));
    p_ = static_cast<T*>(p);
    n_ = n;
    return Status::ok();
  }
  // Keeps the allocation when it already holds at least n elements (reuse
  // across proofs of one key: no cudaMalloc/cudaFree per proof).
  Status reserve(size_t n) { return n <= n_ ? Status::ok() : allocate(n); }

  void reset() {
    if (p_ != nullptr) (void)cudaFree(p_);
    p_ = nullptr;
    n_ = 0;
  }

  T* data() const { return p_; }
  size_t size() const { return n_; }
  size_t bytes() const { return n_ * sizeof(T); }

  // n elements from src into elements [at, at + n).
  Status upload(const T* src, size_t n, cudaStream_t stream, size_t at = 0) {
    PP_CUDA_TRY(cudaMemcpyAsync(p_ + at, src, n * sizeof(T), cudaMemcpyHostToDevice, stream));
    return Status::ok();
  }
  Status download(T* dst, size_t n, cudaStream_t stream) const {
    PP_CUDA_TRY(cudaMemcpyAsync(dst, p_, n * sizeof(T), cudaMemcpyDeviceToHost, stream));
    return Status::ok();
  }

 private:
  T* p_ = nullptr;
  size_t n_ = 0;
};

// A stream owned for the lifetime of a backend or a call.
class Stream {
 public:
  Stream() = default;
  Stream(const Stream&) = delete;
  Stream& operator=(const Stream&) = delete;
  ~Stream() {
    if (s_ != nullptr) (void)cudaStreamDestroy(s_);
  }
  Status create() {
    PP_CUDA_TRY(cudaStreamCreateWithFlags(&s_, cudaStreamNonBlocking));
    return Status::ok();
  }
  cudaStream_t get() const { return s_; }
  Status sync() const {
    PP_CUDA_TRY(cudaStreamSynchronize(s_));
    return Status::ok();
  }

 private:
  cudaStream_t s_ = nullptr;
};

// Threads per block for the element-wise kernels, and the grid covering n.
inline constexpr unsigned kBlock = 256;
inline unsigned grid_for(size_t n, unsigned block = kBlock) { return unsigned((n + block - 1) / block); }

}  // namespace proofpipe::cuda
