// Timing helpers for the benchmark entry points of cuda/ (internal): the
// median of repeated runs, each timed with a CUDA event pair on a stream
// (kernels only) or with the host clock (work that ends in a host sync, such
// as the MSM's host Horner step), and the MSM's per-phase clock. Used by
// ntt.cu, field_ops.cu, msm.cuh and msm_host.cpp; compiled by both nvcc and
// the host compiler.
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <utility>
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

// A phase clock for a breakdown struct Out (MsmPhases: MsmScratch::phases):
// an event on the stream where each phase starts; after the work's last
// sync, the time between consecutive events goes to the phase the earlier
// one started. A no-op (no events) when `out` is null, as it is in every
// proof.
template <class Out>
class PhaseClock {
 public:
  using Phase = double Out::*;
  explicit PhaseClock(Out* out) : out_(out) {}
  PhaseClock(const PhaseClock&) = delete;
  PhaseClock& operator=(const PhaseClock&) = delete;
  ~PhaseClock() {
    for (auto& m : marks_) (void)cudaEventDestroy(m.second);
  }
  // `phase` starts here (nullptr: the last phase ends here).
  Status mark(Phase phase, cudaStream_t stream) {
    if (out_ == nullptr) return Status::ok();
    cudaEvent_t e = nullptr;
    PP_CUDA_TRY(cudaEventCreate(&e));
    marks_.emplace_back(phase, e);
    PP_CUDA_TRY(cudaEventRecord(e, stream));
    return Status::ok();
  }
  // After the stream has been synchronised.
  Status collect() {
    for (size_t i = 1; i < marks_.size(); ++i) {
      float ms = 0;
      PP_CUDA_TRY(cudaEventElapsedTime(&ms, marks_[i - 1].second, marks_[i].second));
      if (marks_[i - 1].first != nullptr) out_->*marks_[i - 1].first += ms;
    }
    return Status::ok();
  }
  Out* out() const { return out_; }

 private:
  Out* out_;
  std::vector<std::pair<Phase, cudaEvent_t>> marks_;
};

}  // namespace proofpipe::cuda
