// G1 instantiation of the CUDA MSM driver (msm.cuh), and the benchmark's
// random and witness-like scalars. G2 lives in msm_g2.cu so the two compile in parallel.
#include "msm.cuh"

namespace proofpipe::cuda {
namespace {

// splitmix64: a cheap, well-mixed 64-bit hash of (seed, i, limb).
__device__ uint64_t mix64(uint64_t z) {
  z += 0x9e3779b97f4a7c15ULL;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

// Limbs below 2^254 < r are a valid Montgomery representation of some
// element, uniformly spread: good enough for timing.
__global__ void random_scalars_kernel(bls12_381::Fr* out, size_t n, uint64_t seed) {
  const size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x;
  if (i >= n) return;
  bls12_381::Fr f;
  for (unsigned k = 0; k < 4; ++k) f.l[k] = mix64(seed ^ mix64(4 * i + k));
  f.l[3] &= (uint64_t(1) << 62) - 1;
  out[i] = f;
}

// Scalar i becomes 0 when its hash lands in [0, zero_pct), +-1 in
// [zero_pct, zero_pct + one_pct) (the hash's parity picks the sign).
__global__ void mix_scalars_kernel(bls12_381::Fr* out, size_t n, uint64_t seed, unsigned zero_pct, unsigned one_pct) {
  const size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x;
  if (i >= n) return;
  const uint64_t h = mix64(seed ^ mix64(i));
  const unsigned pct = unsigned(h % 100);
  if (pct < zero_pct)
    out[i] = bls12_381::Fr::zero();
  else if (pct < zero_pct + one_pct)
    out[i] = ((h >> 32) & 1) != 0 ? -bls12_381::Fr::one() : bls12_381::Fr::one();
}

}  // namespace

Result<bls12_381::G1> msm_g1_device(const bls12_381::G1Affine* points, const bls12_381::Fr* scalars, size_t n,
                                    MsmScratch& scratch, cudaStream_t stream) {
  return msm_detail::msm_device<bls12_381::G1Cfg>(points, scalars, n, scratch, stream, MsmTuning{}, nullptr);
}

Result<bls12_381::G1> msm_g1_device(const bls12_381::G1Affine* points, const bls12_381::Fr* scalars, size_t n,
                                    MsmScratch& scratch, cudaStream_t stream, const MsmTuning& tuning,
                                    const uint32_t* scalar_index) {
  return msm_detail::msm_device<bls12_381::G1Cfg>(points, scalars, n, scratch, stream, tuning, scalar_index);
}

Status reserve_msm_g1(MsmScratch& scratch, size_t n, cudaStream_t stream) {
  return msm_detail::reserve_msm<bls12_381::G1Cfg>(scratch, n, stream);
}

Status expand_points_g1(const bls12_381::G1Affine* base, size_t nb, bls12_381::G1Affine* out, size_t n,
                        cudaStream_t stream) {
  return msm_detail::expand_points<bls12_381::G1Cfg>(base, nb, out, n, stream);
}

Status random_scalars(bls12_381::Fr* out, size_t n, uint64_t seed, cudaStream_t stream) {
  if (n == 0) return Status::ok();
  random_scalars_kernel<<<grid_for(n), kBlock, 0, stream>>>(out, n, seed);
  PP_CUDA_LAUNCHED("random_scalars_kernel");
  return Status::ok();
}

Status mix_scalars(bls12_381::Fr* out, size_t n, uint64_t seed, unsigned zero_pct, unsigned one_pct,
                   cudaStream_t stream) {
  if (zero_pct + one_pct > 100) return Status(ErrorCode::kInvalidArgument, "mix_scalars: zero_pct + one_pct over 100");
  if (n == 0 || zero_pct + one_pct == 0) return Status::ok();
  mix_scalars_kernel<<<grid_for(n), kBlock, 0, stream>>>(out, n, seed, zero_pct, one_pct);
  PP_CUDA_LAUNCHED("mix_scalars_kernel");
  return Status::ok();
}

}  // namespace proofpipe::cuda
