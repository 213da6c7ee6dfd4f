// G2 entry points of the CPU MSM (msm/msm.hpp): one instantiation of the
// Pippenger driver (msm/pippenger.hpp) per scalar form. G1 lives in
// msm_bls12_381_g1.cpp so the two large instantiations compile in parallel.
#include "proofpipe/msm/pippenger.hpp"

namespace proofpipe::msm {

bls12_381::G2 msm_g2(std::span<const bls12_381::G2Affine> points, std::span<const bls12_381::Fr> scalars,
                     const MsmOptions& options) {
  return detail::pippenger<bls12_381::G2Cfg, bls12_381::Fr, bls12_381::Fr>(points, scalars, options);
}

bls12_381::G2 msm_g2_canonical(std::span<const bls12_381::G2Affine> points, std::span<const ff::Limbs<4>> scalars,
                               const MsmOptions& options) {
  return detail::pippenger<bls12_381::G2Cfg, ff::Limbs<4>, bls12_381::Fr>(points, scalars, options);
}

}  // namespace proofpipe::msm
