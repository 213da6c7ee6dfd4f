// G1 entry points of the CPU MSM (msm/msm.hpp): one instantiation of the
// Pippenger driver (msm/pippenger.hpp) per scalar form. G2 lives in
// msm_bls12_381_g2.cpp so the two large instantiations compile in parallel.
#include "proofpipe/msm/pippenger.hpp"

namespace proofpipe::msm {

bls12_381::G1 msm_g1(std::span<const bls12_381::G1Affine> points, std::span<const bls12_381::Fr> scalars,
                     const MsmOptions& options) {
  return detail::pippenger<bls12_381::G1Cfg, bls12_381::Fr, bls12_381::Fr>(points, scalars, options);
}

bls12_381::G1 msm_g1_sum(std::span<const MsmPart<bls12_381::G1Cfg, bls12_381::Fr>> parts, const MsmOptions& options) {
  return detail::pippenger_sum<bls12_381::G1Cfg, bls12_381::Fr, bls12_381::Fr>(parts, options);
}

bls12_381::G1 msm_g1_canonical(std::span<const bls12_381::G1Affine> points, std::span<const ff::Limbs<4>> scalars,
                               const MsmOptions& options) {
  return detail::pippenger<bls12_381::G1Cfg, ff::Limbs<4>, bls12_381::Fr>(points, scalars, options);
}

}  // namespace proofpipe::msm
