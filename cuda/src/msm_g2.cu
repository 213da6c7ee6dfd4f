// G2 instantiation of the CUDA MSM driver (msm.cuh); see msm_g1.cu.
#include "msm.cuh"

namespace proofpipe::cuda {

Result<bls12_381::G2> msm_g2_device(const bls12_381::G2Affine* points, const bls12_381::Fr* scalars, size_t n,
                                    MsmScratch& scratch, cudaStream_t stream) {
  return msm_detail::msm_device<bls12_381::G2Cfg>(points, scalars, n, scratch, stream, MsmTuning{}, nullptr);
}

Result<bls12_381::G2> msm_g2_device(const bls12_381::G2Affine* points, const bls12_381::Fr* scalars, size_t n,
                                    MsmScratch& scratch, cudaStream_t stream, const MsmTuning& tuning,
                                    const uint32_t* scalar_index) {
  return msm_detail::msm_device<bls12_381::G2Cfg>(points, scalars, n, scratch, stream, tuning, scalar_index);
}

Status reserve_msm_g2(MsmScratch& scratch, size_t n, cudaStream_t stream) {
  return msm_detail::reserve_msm<bls12_381::G2Cfg>(scratch, n, stream);
}

Status expand_points_g2(const bls12_381::G2Affine* base, size_t nb, bls12_381::G2Affine* out, size_t n,
                        cudaStream_t stream) {
  return msm_detail::expand_points<bls12_381::G2Cfg>(base, nb, out, n, stream);
}

}  // namespace proofpipe::cuda
