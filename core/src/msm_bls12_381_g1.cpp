// G1 entry points of the CPU MSM (msm/msm.hpp): one instantiation of the
// Pippenger driver (msm/pippenger.hpp) per scalar form. G2 lives in
// msm_bls12_381_g2.cpp so the two large instantiations compile in parallel.
#include "proofpipe/msm/pippenger.hpp"

namespace proofpipe::msm {

ec::G1 msm_g1(std::span<const ec::G1Affine> points, std::span<const ff::Fr> scalars, const MsmOptions& options) {
  return detail::pippenger<ec::G1Cfg, ff::Fr>(points, scalars, options);
}

ec::G1 msm_g1_sum(std::span<const MsmPart<ec::G1Cfg, ff::Fr>> parts, const MsmOptions& options) {
  return detail::pippenger_sum<ec::G1Cfg, ff::Fr>(parts, options);
}

ec::G1 msm_g1_canonical(std::span<const ec::G1Affine> points, std::span<const ff::Limbs<4>> scalars,
                        const MsmOptions& options) {
  return detail::pippenger<ec::G1Cfg, ff::Limbs<4>>(points, scalars, options);
}

}  // namespace proofpipe::msm
