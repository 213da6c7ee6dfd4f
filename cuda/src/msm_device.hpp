// The CUDA MSM on device-resident inputs (internal to cuda/): what the
// backend calls with the key's points already on the device. The algorithm
// is in msm.cuh, its per-thread bodies in proofpipe/cuda/msm_kernels.hpp.
// Compiled by nvcc (msm_*.cu) and the host compiler (backend.cpp): no CUB
// and no device code in this header.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "check.hpp"
#include "proofpipe/common/status.hpp"
#include "proofpipe/cuda/msm.hpp"
#include "proofpipe/ec/bls12_381.hpp"
#include "proofpipe/ff/bls12_381.hpp"

namespace proofpipe::cuda {

// Device buffers one MSM needs, kept across calls and grown with reserve();
// reserve_msm_g1/g2 below size them for any MSM up to n terms, after which
// an MSM allocates nothing. For 2^24 terms in both groups that is 5.4 GiB:
// 2 GiB of sort pairs (2^27 a group), 0.7 GiB of G2 buckets (0.35 for G1),
// up to 2.5 GiB of G2 partial sums (the bound; about 1.2 GiB for random
// scalars) and 144 MiB for the split (a class byte, two 4-byte indices a
// term).
// @not_thread_safe one MSM at a time per scratch.
class MsmScratch {
 public:
  DeviceBuffer<uint8_t> classes;            // the split: class of each scalar,
  DeviceBuffer<uint32_t> others, ones;      // indices of the other and the +-1 scalars,
  DeviceBuffer<uint32_t> split_counts;      // and their two counts
  DeviceBuffer<uint32_t> keys[2], vals[2];  // sort pairs, double-buffered
  DeviceBuffer<std::byte> cub_temp;         // radix sort / RLE / scan temp storage
  DeviceBuffer<uint32_t> run_key, run_off, run_cnt, run_ntasks, run_toff;
  DeviceBuffer<uint32_t> num_runs;     // RLE's run count (1 element)
  DeviceBuffer<std::byte> partial[2];  // per-level partial bucket sums (XYZZ)
  DeviceBuffer<std::byte> buckets;     // dense [window][bucket] XYZZ sums
  DeviceBuffer<std::byte> reduce[2];   // segment sums and the tree above them
  MsmPhases* phases = nullptr;         // when set, each MSM adds its phase times here

  // Device bytes held.
  size_t bytes() const {
    size_t b = classes.bytes() + others.bytes() + ones.bytes() + split_counts.bytes() + cub_temp.bytes() +
               num_runs.bytes() + buckets.bytes();
    for (int i = 0; i < 2; ++i) b += keys[i].bytes() + vals[i].bytes() + partial[i].bytes() + reduce[i].bytes();
    for (const auto* r : {&run_key, &run_off, &run_cnt, &run_ntasks, &run_toff}) b += r->bytes();
    return b;
  }
};

// sum scalars[i] * points[i]; points and scalars are device arrays of n
// elements (affine points, identity (0,0) allowed; Montgomery Fr scalars).
// Enqueues on `stream` and synchronises it before returning (a few small
// read-backs size the launches); the last W window sums are combined on
// the host. n < 2^31 (the pair value holds a 31-bit index).
Result<bls12_381::G1> msm_g1_device(const bls12_381::G1Affine* points, const bls12_381::Fr* scalars, size_t n,
                                    MsmScratch& scratch, cudaStream_t stream);
Result<bls12_381::G2> msm_g2_device(const bls12_381::G2Affine* points, const bls12_381::Fr* scalars, size_t n,
                                    MsmScratch& scratch, cudaStream_t stream);

// Same with an explicit plan (MsmTuning in msm.hpp; 0 = the default for
// each of c, L, S), and optionally a scalar index: term i is then
// scalars[scalar_index[i]] * points[i] (a key section stored without its
// identity points reads the whole witness in place; see key_compaction.hpp).
Result<bls12_381::G1> msm_g1_device(const bls12_381::G1Affine* points, const bls12_381::Fr* scalars, size_t n,
                                    MsmScratch& scratch, cudaStream_t stream, const MsmTuning& tuning,
                                    const uint32_t* scalar_index = nullptr);
Result<bls12_381::G2> msm_g2_device(const bls12_381::G2Affine* points, const bls12_381::Fr* scalars, size_t n,
                                    MsmScratch& scratch, cudaStream_t stream, const MsmTuning& tuning,
                                    const uint32_t* scalar_index = nullptr);

// The same for either group (Cfg = bls12_381::G1Cfg or bls12_381::G2Cfg), for callers
// written once over both.
template <class Cfg>
Result<ec::Jacobian<Cfg>> device_msm(const ec::Affine<Cfg>* points, const bls12_381::Fr* scalars, size_t n,
                                     MsmScratch& scratch, cudaStream_t stream, const MsmTuning& tuning = {},
                                     const uint32_t* scalar_index = nullptr) {
  if constexpr (std::is_same_v<Cfg, bls12_381::G1Cfg>)
    return msm_g1_device(points, scalars, n, scratch, stream, tuning, scalar_index);
  else
    return msm_g2_device(points, scalars, n, scratch, stream, tuning, scalar_index);
}

// Grows `scratch` for any MSM of up to n terms of the group, whatever its
// scalars (msm.cuh's reserve_msm): called at the backend's set-up, so no
// proof allocates device memory and a device without room fails the set-up.
// Nothing may be in flight on `stream`. One scratch may be reserved for both
// groups (each buffer takes the larger size).
Status reserve_msm_g1(MsmScratch& scratch, size_t n, cudaStream_t stream);
Status reserve_msm_g2(MsmScratch& scratch, size_t n, cudaStream_t stream);

// Benchmark inputs (msm_g1.cu): out[i] = +-base[i % nb], n points from
// nb distinct ones; and n pseudo-random scalars (below 2^254, Montgomery
// form taken as is) from `seed`. Enqueued on `stream`, not synchronised.
Status expand_points_g1(const bls12_381::G1Affine* base, size_t nb, bls12_381::G1Affine* out, size_t n,
                        cudaStream_t stream);
Status expand_points_g2(const bls12_381::G2Affine* base, size_t nb, bls12_381::G2Affine* out, size_t n,
                        cudaStream_t stream);
Status random_scalars(bls12_381::Fr* out, size_t n, uint64_t seed, cudaStream_t stream);
// Then zero_pct % of them 0 and one_pct % +-1, chosen by a hash of (seed, i).
Status mix_scalars(bls12_381::Fr* out, size_t n, uint64_t seed, unsigned zero_pct, unsigned one_pct,
                   cudaStream_t stream);

}  // namespace proofpipe::cuda
