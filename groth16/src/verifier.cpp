// Groth16 verification (see verifier.hpp).
#include "proofpipe/groth16/verifier.hpp"

#include "proofpipe/msm/msm.hpp"
#include "proofpipe/pairing/bls12_381.hpp"

namespace proofpipe::groth16 {

template <class C>
formats::Fq12CoeffsT<C> alphabeta_of(const typename C::G1Affine& alpha1, const typename C::G2Affine& beta2) {
  const auto e = C::pairing(alpha1, beta2);
  formats::Fq12CoeffsT<C> out;
  for (int i = 0; i < 2; ++i) {
    const auto& half = i == 0 ? e.c0 : e.c1;
    out.c[i][0] = half.c0;
    out.c[i][1] = half.c1;
    out.c[i][2] = half.c2;
  }
  return out;
}

template <class C>
Result<Verdict> verify(const VerificationKeyT<C>& vk,
                       std::span<const std::type_identity_t<typename C::Fr>> public_inputs, const ProofT<C>& proof) {
  if (vk.ic.size() != size_t(vk.n_public) + 1)
    return make_error(ErrorCode::kInvalidArgument, "verification key has {} IC points for {} public signals",
                      vk.ic.size(), vk.n_public);
  if (public_inputs.size() != vk.n_public)
    return make_error(ErrorCode::kInvalidArgument, "{} public signals given, the key expects {}", public_inputs.size(),
                      vk.n_public);
  if (!C::in_subgroup(proof.a)) return Verdict{false, "pi_a is not a point of G1"};
  if (!C::in_subgroup(proof.b)) return Verdict{false, "pi_b is not a point of G2"};
  if (!C::in_subgroup(proof.c)) return Verdict{false, "pi_c is not a point of G1"};

  const typename C::G1 l = msm::msm_g1(std::span(vk.ic).subspan(1), public_inputs).add_affine(vk.ic[0]);
  const typename C::G1G2Pair pairs[] = {
      {-proof.a, proof.b},
      {vk.alpha1, vk.beta2},
      {l.to_affine(), vk.gamma2},
      {proof.c, vk.delta2},
  };
  if (!C::pairing_product_is_one(pairs)) return Verdict{false, "pairing check failed"};
  return Verdict{true, ""};
}

#define PP_VERIFIER_CURVE(C)                                                                \
  template formats::Fq12CoeffsT<C> alphabeta_of<C>(const C::G1Affine&, const C::G2Affine&); \
  template Result<Verdict> verify(const VerificationKeyT<C>&, std::span<const C::Fr>, const ProofT<C>&);
PP_VERIFIER_CURVE(curves::Bls12_381)
PP_VERIFIER_CURVE(curves::Bn254)
#undef PP_VERIFIER_CURVE

}  // namespace proofpipe::groth16
