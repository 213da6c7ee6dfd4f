// Timing helpers for the benchmark entry points of cuda/ (internal): the
// median of repeated runs, each timed with a CUDA event pair on a stream
// (kernels only) or with the host clock (work that ends in a host sync, such
// as the MSM's host Horner step). Used by ntt.cu, field_ops.cu and
// msm_host.cpp; compiled by both nvcc and the host compiler.
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <vector>

#include "check.hpp"

namespace proofpipe::cuda {

// A cudaEvent pair, destroyed on every path out.
class EventPair {
 public:
  EventPair() = default;
  EventPair(const EventPair&) = delete;
  EventPair& operator=(const EventPair&) = delete;
  ~EventPair() {
    if (start_ != nullptr) (void)cudaEventDestroy(start_);
    if (stop_ != nullptr) (void)cudaEventDestroy(stop_);
  }

  // Device milliseconds of the work `run` enqueues on `stream` (run returns
  // a Status); waits for it to finish.
  template <class Run>
  Result<double> time_ms(cudaStream_t stream, Run&& run) {
    if (start_ == nullptr) {
      PP_CUDA_TRY(cudaEventCreate(&start_));
      PP_CUDA_TRY(cudaEventCreate(&stop_));
    }
    PP_CUDA_TRY(cudaEventRecord(start_, stream));
    PP_RETURN_IF_ERROR(run());
    PP_CUDA_TRY(cudaEventRecord(stop_, stream));
    PP_CUDA_TRY(cudaEventSynchronize(stop_));
    float ms = 0;
    PP_CUDA_TRY(cudaEventElapsedTime(&ms, start_, stop_));
    return double(ms);
  }

 private:
  cudaEvent_t start_ = nullptr, stop_ = nullptr;
};

// Host milliseconds of `run` (returns a Status), which must end with its
// work finished (a stream sync or a downloaded result).
template <class Run>
Result<double> wall_time_ms(Run&& run) {
  const auto t0 = std::chrono::steady_clock::now();
  PP_RETURN_IF_ERROR(run());
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

// The median of `reps` results of `timed` (a callable returning
// Result<double> milliseconds), after one untimed warm-up call (module load,
// clocks, first-use tables and scratch allocations).
template <class Timed>
Result<double> median_ms(int reps, Timed&& timed) {
  if (reps < 1) return Status(ErrorCode::kInvalidArgument, "timing: reps must be >= 1");
  PP_RETURN_IF_ERROR(timed().status());
  std::vector<double> ms;
  for (int r = 0; r < reps; ++r) {
    PP_ASSIGN_OR_RETURN(const double t, timed());
    ms.push_back(t);
  }
  std::sort(ms.begin(), ms.end());
  return ms[ms.size() / 2];
}

}  // namespace proofpipe::cuda
