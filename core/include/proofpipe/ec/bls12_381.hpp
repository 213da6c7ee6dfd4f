// BLS12-381's tower (xi = 1 + u), G1 (y^2 = x^3 + 4 over Fq) and G2 (the
// M-type sextic twist y^2 = x^3 + 4(1 + u) over Fq2): curve constants,
// generators, scalar multiplication by Fr, and subgroup checks. Generators
// from draft-irtf-cfrg-pairing-friendly-curves §4.2.1 (the zcash/IETF
// generators, also snarkjs's).
#pragma once

#include <type_traits>

#include "proofpipe/ec/curve.hpp"
#include "proofpipe/ff/bls12_381.hpp"
#include "proofpipe/ff/fq12.hpp"

namespace proofpipe::bls12_381 {

struct Tower {
  using Fq = bls12_381::Fq;
  static constexpr uint64_t kXi = 1;
};
using Fq2 = ff::Fq2T<Tower>;
using Fq6 = ff::Fq6T<Tower>;
using Fq12 = ff::Fq12T<Tower>;
using FrobeniusTable = ff::FrobeniusTableT<Tower>;
static_assert(sizeof(Fq2) == 96 && sizeof(Fq6) == 288 && sizeof(Fq12) == 576);

struct G1Cfg {
  using Field = Fq;
  static constexpr bool kG2 = false;
  PP_HD static constexpr Fq b() { return Fq::from_u64(4); }
};
// G2 lives on the sextic twist y^2 = x^3 + 4(1 + u) over Fq2.
struct G2Cfg {
  using Field = Fq2;
  static constexpr bool kG2 = true;
  PP_HD static constexpr Fq2 b() { return {Fq::from_u64(4), Fq::from_u64(4)}; }
};

using G1Affine = ec::Affine<G1Cfg>;
using G1 = ec::Jacobian<G1Cfg>;
using G2Affine = ec::Affine<G2Cfg>;
using G2 = ec::Jacobian<G2Cfg>;

static_assert(sizeof(G1Affine) == 96 && sizeof(G2Affine) == 192, "zkey point sizes");

inline G1Affine g1_generator() {
  using ff::limbs_from_hex;
  return {Fq::from_canonical(limbs_from_hex<6>(
              "0x17f1d3a73197d7942695638c4fa9ac0fc3688c4f9774b905a14e3a3f171bac586c55e83ff97a1aeffb3af00adb22c6bb")),
          Fq::from_canonical(limbs_from_hex<6>(
              "0x08b3f481e3aaa0f1a09e30ed741d8ae4fcf5e095d5d00af600db18cb2c04b3edd03cc744a2888ae40caa232946c5e7e1"))};
}

inline G2Affine g2_generator() {
  using ff::limbs_from_hex;
  auto fq = [](const char* h) { return Fq::from_canonical(limbs_from_hex<6>(h)); };
  return {{fq("0x024aa2b2f08f0a91260805272dc51051c6e47ad4fa403b02b4510b647ae3d1770bac0326a805bbefd48056c8c121bdb8"),
           fq("0x13e02b6052719f607dacd3a088274f65596bd0d09920b61ab5da61bbdc7f5049334cf11213945d57e5ac7d055d042b7e")},
          {fq("0x0ce5d527727d6e118cc9cdc6da2e351aadfd9baa8cbdd3a76d429a695160d12c923ac9cc3baca289e193548608b82801"),
           fq("0x0606c4a02ea734cc32acd2b02bc28b99cb3e287e85a763af267492ab572e99ab3f370d275cec1da1aaa9075ff05f79be")}};
}

// The generator of G1 or G2, chosen by the curve configuration (for code
// written once for both groups).
template <class Cfg>
ec::Affine<Cfg> generator() {
  if constexpr (std::is_same_v<Cfg, G1Cfg>) {
    return g1_generator();
  } else {
    return g2_generator();
  }
}

// k * P with k an Fr element (its canonical value is the multiplier).
template <class Cfg>
ec::Jacobian<Cfg> scalar_mul(const ec::Jacobian<Cfg>& p, const Fr& k) {
  return p.mul(k.to_canonical());
}

// In the prime-order subgroup: on the curve and r * P = O. One scalar
// multiplication by r (255 doublings); fast enough for key and proof checks.
template <class Cfg>
bool in_subgroup(const ec::Affine<Cfg>& a) {
  return ec::in_order_subgroup(a, ff::MontConsts<FrParams>::kP);
}

}  // namespace proofpipe::bls12_381
