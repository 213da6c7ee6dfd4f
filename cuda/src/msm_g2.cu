// G2 instantiation of the CUDA MSM driver (msm.cuh); see msm_g1.cu.
#include "msm.cuh"

namespace proofpipe::cuda {

Result<ec::G2> msm_g2_device(const ec::G2Affine* points, const ff::Fr* scalars, size_t n, MsmScratch& scratch,
                             cudaStream_t stream) {
  return msm_detail::msm_device<ec::G2Cfg>(points, scalars, n, scratch, stream, MsmTuning{}, nullptr);
}

Result<ec::G2> msm_g2_device(const ec::G2Affine* points, const ff::Fr* scalars, size_t n, MsmScratch& scratch,
                             cudaStream_t stream, const MsmTuning& tuning, const uint32_t* scalar_index) {
  return msm_detail::msm_device<ec::G2Cfg>(points, scalars, n, scratch, stream, tuning, scalar_index);
}

Status reserve_msm_g2(MsmScratch& scratch, size_t n, cudaStream_t stream) {
  return msm_detail::reserve_msm<ec::G2Cfg>(scratch, n, stream);
}

Status expand_points_g2(const ec::G2Affine* base, size_t nb, ec::G2Affine* out, size_t n, cudaStream_t stream) {
  return msm_detail::expand_points<ec::G2Cfg>(base, nb, out, n, stream);
}

}  // namespace proofpipe::cuda
