// The CUDA MSM driver, one template for G1 and G2 (instantiated in
// msm_g1.cu and msm_g2.cu so the two compile in parallel). The kernels are
// thin wrappers around the PP_HD bodies of proofpipe/cuda/msm_kernels.hpp,
// which tests/cuda runs on the CPU in the same order as here.
//
// Once: classify_kernel -> two cub Select::If (indices of the other scalars,
// of the +-1 ones; zero terms drop out) -> read back the two counts -> the plan.
// Per window group (<= 2^27 pairs):
//   digits_kernel (+ ones_pairs_kernel in group 0) -> cub SortPairs (key bits only) -> cub RLE Encode ->
//   scan of counts -> levels of { plan, scan, accumulate, advance } until
//   every bucket is written to the dense [window][bucket] array.
// Then: segment running sums, a fan-16 tree per window, Horner on the host.
// The host reads back 4 bytes per level (the task count, to size the grid)
// once per group (the run count) and once for the split's counts: a handful of
// syncs per MSM. With
// MsmScratch::phases set, events at the phase boundaries time each phase
// (the benchmark's breakdown; proofs leave it null and record nothing).
#pragma once

#include <thrust/iterator/counting_iterator.h>
#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_run_length_encode.cuh>
#include <cub/device/device_scan.cuh>
#include <cub/device/device_select.cuh>

#include <algorithm>
#include <chrono>
#include <string>
#include <utility>
#include <vector>

#include "check.hpp"
#include "msm_device.hpp"
#include "proofpipe/cuda/msm_kernels.hpp"
#include "timing.hpp"

namespace proofpipe::cuda::msm_detail {

// Threads per block of the curve kernels: 128 for both groups. ptxas
// (sm_90, portable field code) gives the G1 accumulation 160 registers with
// no spills: 65536 / 160 = 409 threads an SM, i.e. three 128-thread blocks
// (384) but only one 256-thread block. An Xyzz<G2> alone is 96 32-bit
// registers, so G2 hits the 255 cap either way; small blocks keep several
// resident.
template <class Cfg>
inline constexpr unsigned kCurveBlock = 128;

// Kernels are templates (on Cfg) so that msm_g1.cu and msm_g2.cu can both
// include this header without duplicate symbols.
template <class Cfg>
__global__ void classify_kernel(const bls12_381::Fr* scalars, const uint32_t* index, const ec::Affine<Cfg>* points,
                                size_t n, uint8_t* classes) {
  const size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x;
  if (i < n) classify_body<Cfg>(i, scalars, index, points, classes);
}

template <class Cfg>
__global__ void digits_kernel(const bls12_381::Fr* scalars, const uint32_t* index, const uint32_t* others, size_t count,
                              unsigned c, unsigned j0, unsigned jn, uint32_t* keys, uint32_t* vals) {
  const size_t t = blockIdx.x * size_t(blockDim.x) + threadIdx.x;
  if (t < count) digits_body(t, scalars, index, others, count, c, j0, jn, keys, vals);
}

template <class Cfg>
__global__ void ones_pairs_kernel(const uint32_t* ones, size_t count, const uint8_t* classes, uint32_t* keys,
                                  uint32_t* vals) {
  const size_t t = blockIdx.x * size_t(blockDim.x) + threadIdx.x;
  if (t < count) ones_pairs_body(t, ones, classes, keys, vals);
}

// The split's predicate: scalar index i has a class in [lo, hi].
struct ClassIn {
  const uint8_t* classes;
  uint8_t lo, hi;
  __device__ bool operator()(uint32_t i) const {
    const uint8_t c = classes[i];
    return c >= lo && c <= hi;
  }
};

template <class Cfg>
__global__ void runs_init_kernel(Runs runs, unsigned c) {
  const uint32_t r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r < runs.num) runs_init_body(r, runs, c);
}

template <class Cfg>
__global__ void runs_plan_kernel(Runs runs, unsigned task_len) {
  const uint32_t r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r <= runs.num) runs_plan_body(r, runs, task_len);
}

template <class Cfg>
__global__ void runs_advance_kernel(Runs runs) {
  const uint32_t r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r < runs.num) runs_advance_body(r, runs);
}

template <class Cfg>
__global__ void __launch_bounds__(kCurveBlock<Cfg>)
    accumulate_points_kernel(Runs runs, uint32_t tasks, const ec::Affine<Cfg>* points, const uint32_t* vals,
                             unsigned task_len, unsigned c, unsigned j0, size_t m, ec::Xyzz<Cfg>* partial_out,
                             ec::Xyzz<Cfg>* buckets) {
  const uint32_t t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t < tasks) accumulate_points_body<Cfg>(t, runs, points, vals, task_len, c, j0, m, partial_out, buckets);
}

template <class Cfg>
__global__ void __launch_bounds__(kCurveBlock<Cfg>)
    accumulate_sums_kernel(Runs runs, uint32_t tasks, const ec::Xyzz<Cfg>* partial_in, unsigned task_len, unsigned c,
                           unsigned j0, size_t m, ec::Xyzz<Cfg>* partial_out, ec::Xyzz<Cfg>* buckets) {
  const uint32_t t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t < tasks) accumulate_sums_body<Cfg>(t, runs, partial_in, task_len, c, j0, m, partial_out, buckets);
}

template <class Cfg>
__global__ void __launch_bounds__(kCurveBlock<Cfg>)
    reduce_segment_kernel(uint32_t segments, const ec::Xyzz<Cfg>* buckets, size_t m, unsigned seg, ec::Xyzz<Cfg>* out) {
  const uint32_t s = blockIdx.x * blockDim.x + threadIdx.x;
  if (s < segments) reduce_segment_body<Cfg>(s, buckets, m, seg, out);
}

template <class Cfg>
__global__ void __launch_bounds__(kCurveBlock<Cfg>)
    reduce_rows_kernel(uint32_t total, const ec::Xyzz<Cfg>* in, size_t cols_in, unsigned fan, size_t cols_out,
                       ec::Xyzz<Cfg>* out) {
  const uint32_t t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t < total) reduce_rows_body<Cfg>(t, in, cols_in, fan, cols_out, out);
}

inline Status bad_argument(const std::string& what) { return Status(ErrorCode::kInvalidArgument, what); }

// A pair's value holds a 31-bit term index.
inline Status check_term_count(size_t n) {
  if (n >= (size_t(1) << 31)) return bad_argument("cuda msm: n = " + std::to_string(n) + " (at most 2^31 - 1)");
  return Status::ok();
}

// k 4-byte counts read back (they size the next launches); syncs `stream`.
inline Status read_counts(const uint32_t* d, uint32_t* out, size_t k, cudaStream_t stream) {
  PP_CUDA_TRY(cudaMemcpyAsync(out, d, k * sizeof(uint32_t), cudaMemcpyDeviceToHost, stream));
  PP_CUDA_TRY(cudaStreamSynchronize(stream));
  return Status::ok();
}
inline Result<uint32_t> read_count(const uint32_t* d, cudaStream_t stream) {
  uint32_t v = 0;
  PP_RETURN_IF_ERROR(read_counts(d, &v, 1, stream));
  return v;
}

template <class T>
T* as(DeviceBuffer<std::byte>& b) {
  return reinterpret_cast<T*>(b.data());
}

// The split's buffers for n terms; returns the CUB temp bytes of its
// selects (both have the same types, so one size serves both).
inline Result<size_t> reserve_split(MsmScratch& s, size_t n, cudaStream_t stream) {
  PP_RETURN_IF_ERROR(s.classes.reserve(n));
  PP_RETURN_IF_ERROR(s.others.reserve(n));
  PP_RETURN_IF_ERROR(s.ones.reserve(n));
  PP_RETURN_IF_ERROR(s.split_counts.reserve(2));
  size_t bytes = 0;
  PP_CUDA_TRY(cub::DeviceSelect::If(nullptr, bytes, thrust::counting_iterator<uint32_t>(0), s.others.data(),
                                    s.split_counts.data(), int64_t(n),
                                    ClassIn{s.classes.data(), kOtherScalar, kOtherScalar}, stream));
  return bytes;
}

// The buffers after the split, sized `z` (plan_sizes of one MSM's plan, or
// reserve_sizes), and the CUB temp storage: the largest of the split's
// selects, the radix sort of z.pairs items on `key_bits` bits, the RLE and
// the scans. Returns the temp bytes. Grows buffers: the stream must be idle.
template <class Cfg>
Result<size_t> reserve_plan(MsmScratch& s, const PlanSizes& z, unsigned key_bits, size_t select_bytes,
                            cudaStream_t stream) {
  using X = ec::Xyzz<Cfg>;
  for (auto& b : s.keys) PP_RETURN_IF_ERROR(b.reserve(z.pairs));
  for (auto& b : s.vals) PP_RETURN_IF_ERROR(b.reserve(z.pairs));
  for (auto* b : {&s.run_key, &s.run_off, &s.run_cnt, &s.run_ntasks, &s.run_toff})
    PP_RETURN_IF_ERROR(b->reserve(z.runs + 1));
  PP_RETURN_IF_ERROR(s.num_runs.reserve(1));
  PP_RETURN_IF_ERROR(s.buckets.reserve(z.bucket_slots * sizeof(X)));
  PP_RETURN_IF_ERROR(s.reduce[0].reserve(z.segment_sums * sizeof(X)));
  PP_RETURN_IF_ERROR(s.reduce[1].reserve(z.tree_sums * sizeof(X)));
  // Temp sizes depend only on the item counts (and the sort's passes).
  size_t sort_bytes = 0, rle_bytes = 0, scan_bytes = 0;
  cub::DoubleBuffer<uint32_t> dk(s.keys[0].data(), s.keys[1].data()), dv(s.vals[0].data(), s.vals[1].data());
  PP_CUDA_TRY(cub::DeviceRadixSort::SortPairs(nullptr, sort_bytes, dk, dv, int(z.pairs), 0, int(key_bits), stream));
  PP_CUDA_TRY(cub::DeviceRunLengthEncode::Encode(nullptr, rle_bytes, s.keys[0].data(), s.run_key.data(),
                                                 s.run_cnt.data(), s.num_runs.data(), int(z.pairs), stream));
  PP_CUDA_TRY(
      cub::DeviceScan::ExclusiveSum(nullptr, scan_bytes, s.run_cnt.data(), s.run_off.data(), int(z.runs + 1), stream));
  const size_t temp_bytes = std::max({sort_bytes, rle_bytes, scan_bytes, select_bytes, size_t(1)});
  PP_RETURN_IF_ERROR(s.cub_temp.reserve(temp_bytes));
  return temp_bytes;
}

// Sizes `s` for any MSM of up to n terms (reserve_sizes in msm_plan.hpp),
// the accumulation's partial sums included: the backend's set-up calls it so
// that no proof allocates on the device, and a device without the memory
// fails the set-up instead of the first proof. The stream must be idle.
template <class Cfg>
Status reserve_msm(MsmScratch& s, size_t n, cudaStream_t stream) {
  using X = ec::Xyzz<Cfg>;
  if (n == 0) return Status::ok();
  PP_RETURN_IF_ERROR(check_term_count(n));
  PP_ASSIGN_OR_RETURN(const size_t select_bytes, reserve_split(s, n, stream));
  const PlanSizes z = reserve_sizes(n);
  // 32 key bits: at least as many sort passes as any plan's key.
  PP_RETURN_IF_ERROR(reserve_plan<Cfg>(s, z, 32, select_bytes, stream).status());
  PP_RETURN_IF_ERROR(s.partial[0].reserve(z.partial[0] * sizeof(X)));
  return s.partial[1].reserve(z.partial[1] * sizeof(X));
}

template <class Cfg>
Result<ec::Jacobian<Cfg>> msm_device(const ec::Affine<Cfg>* points, const bls12_381::Fr* scalars, size_t n,
                                     MsmScratch& s, cudaStream_t stream, const MsmTuning& tuning,
                                     const uint32_t* scalar_index) {
  using X = ec::Xyzz<Cfg>;
  constexpr unsigned B = kCurveBlock<Cfg>;
  if (n == 0) return ec::Jacobian<Cfg>::identity();
  PP_RETURN_IF_ERROR(check_term_count(n));
  if (tuning.window_bits != 0 && (tuning.window_bits < 2 || tuning.window_bits > 20))
    return bad_argument("cuda msm: window bits " + std::to_string(tuning.window_bits) + " (need 2..20)");
  if (tuning.task_len == 1) return bad_argument("cuda msm: task length 1 (need >= 2)");
  if ((tuning.segment & (tuning.segment - 1)) != 0)
    return bad_argument("cuda msm: segment " + std::to_string(tuning.segment) + " (need a power of two)");
  if (tuning.max_group_pairs > kMaxGroupPairs)  // CUB's item counts are int
    return bad_argument("cuda msm: group pairs " + std::to_string(tuning.max_group_pairs) + " (at most 2^27)");

  PhaseClock<MsmPhases> clock(s.phases);
  // The split: zero terms (scalar 0, identity point) drop out, +-1 scalars
  // become one pair each.
  PP_RETURN_IF_ERROR(clock.mark(&MsmPhases::split, stream));
  PP_ASSIGN_OR_RETURN(const size_t select_bytes, reserve_split(s, n, stream));
  PP_RETURN_IF_ERROR(s.cub_temp.reserve(std::max(select_bytes, size_t(1))));
  classify_kernel<Cfg><<<grid_for(n), kBlock, 0, stream>>>(scalars, scalar_index, points, n, s.classes.data());
  PP_CUDA_LAUNCHED("msm classify_kernel");
  const thrust::counting_iterator<uint32_t> index(0);
  const ClassIn is_other{s.classes.data(), kOtherScalar, kOtherScalar};
  const ClassIn is_one{s.classes.data(), kPlusOne, kMinusOne};
  size_t bytes = select_bytes;
  PP_CUDA_TRY(cub::DeviceSelect::If(s.cub_temp.data(), bytes, index, s.others.data(), s.split_counts.data(), int64_t(n),
                                    is_other, stream));
  bytes = select_bytes;
  PP_CUDA_TRY(cub::DeviceSelect::If(s.cub_temp.data(), bytes, index, s.ones.data(), s.split_counts.data() + 1,
                                    int64_t(n), is_one, stream));
  uint32_t split[2] = {0, 0};
  PP_RETURN_IF_ERROR(read_counts(s.split_counts.data(), split, 2, stream));
  if (split[0] > n || split[1] > n - split[0]) {
    return Status(ErrorCode::kInternal, "cuda msm: the split counted " + std::to_string(split[0]) + " + " +
                                            std::to_string(split[1]) + " of " + std::to_string(n) +
                                            " scalars (device counts wrong)");
  }
  if (clock.out() != nullptr) {
    clock.out()->others += split[0];
    clock.out()->ones += split[1];
  }
  if (split[0] == 0 && split[1] == 0) return ec::Jacobian<Cfg>::identity();  // every term zero

  PlanRequest req{tuning.window_bits, tuning.task_len, tuning.segment};
  if (tuning.max_group_pairs != 0) req.max_group_pairs = tuning.max_group_pairs;
  const Plan p = make_plan(split[0], split[1], req);
  const size_t m = p.buckets;
  const PlanSizes z = plan_sizes(p);
  PP_ASSIGN_OR_RETURN(const size_t temp_bytes, reserve_plan<Cfg>(s, z, p.key_bits, select_bytes, stream));
  const size_t bucket_bytes = z.bucket_slots * sizeof(X);
  const size_t segs_per_window = m / p.segment;
  const size_t segments = z.segment_sums;

  // Zero bytes are the XYZZ identity (ZZ = 0): buckets nobody writes stay empty.
  PP_RETURN_IF_ERROR(clock.mark(&MsmPhases::digits, stream));
  PP_CUDA_TRY(cudaMemsetAsync(s.buckets.data(), 0, bucket_bytes, stream));
  X* buckets = as<X>(s.buckets);

  for (unsigned j0 = 0; j0 < p.windows; j0 += p.group_windows) {
    const unsigned jn = std::min(p.group_windows, p.windows - j0);
    const size_t items = p.group_pairs(j0, jn);
    if (items == 0) continue;  // no windowed scalars: only group 0 (the ones) has pairs
    const int key_bits = int(p.c + bit_length(jn - 1));
    if (j0 != 0) PP_RETURN_IF_ERROR(clock.mark(&MsmPhases::digits, stream));
    if (p.others != 0) {
      digits_kernel<Cfg><<<grid_for(p.others), kBlock, 0, stream>>>(scalars, scalar_index, s.others.data(), p.others,
                                                                    p.c, j0, jn, s.keys[0].data(), s.vals[0].data());
      PP_CUDA_LAUNCHED("msm digits_kernel");
    }
    if (j0 == 0 && p.ones != 0) {
      const size_t at = p.others * jn;  // after the group's windowed pairs
      ones_pairs_kernel<Cfg><<<grid_for(p.ones), kBlock, 0, stream>>>(s.ones.data(), p.ones, s.classes.data(),
                                                                      s.keys[0].data() + at, s.vals[0].data() + at);
      PP_CUDA_LAUNCHED("msm ones_pairs_kernel");
    }

    cub::DoubleBuffer<uint32_t> dk(s.keys[0].data(), s.keys[1].data()), dv(s.vals[0].data(), s.vals[1].data());
    bytes = temp_bytes;
    PP_RETURN_IF_ERROR(clock.mark(&MsmPhases::sort, stream));
    PP_CUDA_TRY(cub::DeviceRadixSort::SortPairs(s.cub_temp.data(), bytes, dk, dv, int(items), 0, key_bits, stream));
    const uint32_t* sorted_keys = dk.Current();
    const uint32_t* sorted_vals = dv.Current();

    PP_RETURN_IF_ERROR(clock.mark(&MsmPhases::runs, stream));
    bytes = temp_bytes;
    PP_CUDA_TRY(cub::DeviceRunLengthEncode::Encode(s.cub_temp.data(), bytes, sorted_keys, s.run_key.data(),
                                                   s.run_cnt.data(), s.num_runs.data(), int(items), stream));
    PP_ASSIGN_OR_RETURN(const uint32_t num, read_count(s.num_runs.data(), stream));
    bytes = temp_bytes;
    PP_CUDA_TRY(
        cub::DeviceScan::ExclusiveSum(s.cub_temp.data(), bytes, s.run_cnt.data(), s.run_off.data(), int(num), stream));
    const Runs runs{s.run_key.data(), s.run_off.data(), s.run_cnt.data(), s.run_ntasks.data(), s.run_toff.data(), num};
    runs_init_kernel<Cfg><<<grid_for(num), kBlock, 0, stream>>>(runs, p.c);
    PP_CUDA_LAUNCHED("msm runs_init_kernel");

    // Each level cuts every run's count to ceil(count / L) (L >= 2), so a
    // correct device finishes within log_L(items) + 2 levels; a device that
    // returns wrong counts must fail here, not spin until a timeout.
    const unsigned max_levels = 2 + bit_length(items) / (bit_length(p.task_len) - 1);
    PP_RETURN_IF_ERROR(clock.mark(&MsmPhases::accumulate, stream));
    for (unsigned level = 0;; ++level) {
      if (level > max_levels) {
        return Status(ErrorCode::kInternal, "cuda msm: bucket levels did not converge after " +
                                                std::to_string(max_levels) + " levels (device counts wrong)");
      }
      runs_plan_kernel<Cfg><<<grid_for(num + 1), kBlock, 0, stream>>>(runs, p.task_len);
      PP_CUDA_LAUNCHED("msm runs_plan_kernel");
      bytes = temp_bytes;
      PP_CUDA_TRY(cub::DeviceScan::ExclusiveSum(s.cub_temp.data(), bytes, s.run_ntasks.data(), s.run_toff.data(),
                                                int(num + 1), stream));
      PP_ASSIGN_OR_RETURN(const uint32_t tasks, read_count(s.run_toff.data() + num, stream));
      if (tasks == 0) break;
      if (clock.out() != nullptr) ++clock.out()->levels;
      // Level k writes partial[k % 2] and reads partial[(k - 1) % 2]; the
      // stream is idle here (read_count synced), so growing is safe.
      DeviceBuffer<std::byte>& out = s.partial[level & 1];
      PP_RETURN_IF_ERROR(out.reserve(size_t(tasks) * sizeof(X)));
      if (level == 0) {
        accumulate_points_kernel<Cfg><<<grid_for(tasks, B), B, 0, stream>>>(
            runs, tasks, points, sorted_vals, p.task_len, p.c, j0, m, as<X>(out), buckets);
        PP_CUDA_LAUNCHED("msm accumulate_points_kernel");
      } else {
        accumulate_sums_kernel<Cfg><<<grid_for(tasks, B), B, 0, stream>>>(
            runs, tasks, as<X>(s.partial[(level - 1) & 1]), p.task_len, p.c, j0, m, as<X>(out), buckets);
        PP_CUDA_LAUNCHED("msm accumulate_sums_kernel");
      }
      runs_advance_kernel<Cfg><<<grid_for(num), kBlock, 0, stream>>>(runs);
      PP_CUDA_LAUNCHED("msm runs_advance_kernel");
    }
  }

  // sum_b b * B_b per window: segments, then the tree.
  PP_RETURN_IF_ERROR(clock.mark(&MsmPhases::reduce, stream));
  reduce_segment_kernel<Cfg>
      <<<grid_for(segments, B), B, 0, stream>>>(uint32_t(segments), buckets, m, p.segment, as<X>(s.reduce[0]));
  PP_CUDA_LAUNCHED("msm reduce_segment_kernel");
  size_t cols = segs_per_window;
  unsigned cur = 0;
  while (cols > 1) {
    const size_t cols_out = (cols + kReduceFan - 1) / kReduceFan;
    const size_t total = size_t(p.windows) * cols_out;
    reduce_rows_kernel<Cfg><<<grid_for(total, B), B, 0, stream>>>(uint32_t(total), as<X>(s.reduce[cur]), cols,
                                                                  kReduceFan, cols_out, as<X>(s.reduce[cur ^ 1]));
    PP_CUDA_LAUNCHED("msm reduce_rows_kernel");
    cur ^= 1;
    cols = cols_out;
  }
  std::vector<X> window_sums(p.windows);
  PP_CUDA_TRY(
      cudaMemcpyAsync(window_sums.data(), s.reduce[cur].data(), p.windows * sizeof(X), cudaMemcpyDeviceToHost, stream));
  PP_RETURN_IF_ERROR(clock.mark(nullptr, stream));
  PP_CUDA_TRY(cudaStreamSynchronize(stream));
  if (MsmPhases* out = clock.out(); out != nullptr) {
    PP_RETURN_IF_ERROR(clock.collect());
    out->groups += (p.windows + p.group_windows - 1) / p.group_windows;
    out->window_bits = p.c;
    const auto t0 = std::chrono::steady_clock::now();
    const ec::Jacobian<Cfg> sum = combine_windows<Cfg>(window_sums.data(), p.windows, p.c);
    out->combine += std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    return sum;
  }
  return combine_windows<Cfg>(window_sums.data(), p.windows, p.c);
}

// ----- benchmark inputs ---------------------------------------------------

// out[i] = +-base[i % nb] (negated on odd copies): n valid points from nb
// distinct ones without an inversion per point.
template <class Cfg>
__global__ void expand_points_kernel(const ec::Affine<Cfg>* base, size_t nb, ec::Affine<Cfg>* out, size_t n) {
  const size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x;
  if (i >= n) return;
  const ec::Affine<Cfg> a = base[i % nb];
  out[i] = ((i / nb) & 1) != 0 ? -a : a;
}

template <class Cfg>
Status expand_points(const ec::Affine<Cfg>* base, size_t nb, ec::Affine<Cfg>* out, size_t n, cudaStream_t stream) {
  if (n == 0) return Status::ok();
  expand_points_kernel<Cfg><<<grid_for(n), kBlock, 0, stream>>>(base, nb, out, n);
  PP_CUDA_LAUNCHED("msm expand_points_kernel");
  return Status::ok();
}

}  // namespace proofpipe::cuda::msm_detail
