// BN254 G2 entry points of the CPU MSM (msm/msm.hpp): the Pippenger driver
// (msm/pippenger.hpp) instantiated for BN254's G2 and Fr, one file per group
// so the large instantiations compile in parallel.
#include "proofpipe/msm/pippenger.hpp"

namespace proofpipe::msm {

bn254::G2 msm_g2(std::span<const bn254::G2Affine> points, std::span<const bn254::Fr> scalars,
                 const MsmOptions& options) {
  return detail::pippenger<bn254::G2Cfg, bn254::Fr, bn254::Fr>(points, scalars, options);
}

bn254::G2 msm_g2_canonical(std::span<const bn254::G2Affine> points, std::span<const ff::Limbs<4>> scalars,
                           const MsmOptions& options) {
  return detail::pippenger<bn254::G2Cfg, ff::Limbs<4>, bn254::Fr>(points, scalars, options);
}

}  // namespace proofpipe::msm
