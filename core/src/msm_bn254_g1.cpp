// BN254 G1 entry points of the CPU MSM (msm/msm.hpp): the Pippenger driver
// (msm/pippenger.hpp) instantiated for BN254's G1 and Fr, one file per group
// so the large instantiations compile in parallel.
#include "proofpipe/msm/pippenger.hpp"

namespace proofpipe::msm {

bn254::G1 msm_g1(std::span<const bn254::G1Affine> points, std::span<const bn254::Fr> scalars,
                 const MsmOptions& options) {
  return detail::pippenger<bn254::G1Cfg, bn254::Fr, bn254::Fr>(points, scalars, options);
}

bn254::G1 msm_g1_sum(std::span<const MsmPart<bn254::G1Cfg, bn254::Fr>> parts, const MsmOptions& options) {
  return detail::pippenger_sum<bn254::G1Cfg, bn254::Fr, bn254::Fr>(parts, options);
}

bn254::G1 msm_g1_canonical(std::span<const bn254::G1Affine> points, std::span<const ff::Limbs<4>> scalars,
                           const MsmOptions& options) {
  return detail::pippenger<bn254::G1Cfg, ff::Limbs<4>, bn254::Fr>(points, scalars, options);
}

}  // namespace proofpipe::msm
