// BN254's tower (xi = 9 + u), G1 (y^2 = x^3 + 3 over Fq) and G2 (the D-type
// sextic twist y^2 = x^3 + 3/xi over Fq2), with their generators and
// subgroup checks. Generators: EIP-196/197, also snarkjs's bn128 ones.
// G1 has cofactor 1, so on the curve means in the group; G2's cofactor is
// 2p - r, so a G2 point from outside must pass the r-torsion check.
#pragma once

#include "proofpipe/ec/curve.hpp"
#include "proofpipe/ec/glv.hpp"
#include "proofpipe/ff/bn254.hpp"
#include "proofpipe/ff/fq12.hpp"

namespace proofpipe::bn254 {

struct Tower {
  using Fq = bn254::Fq;
  static constexpr uint64_t kXi = 9;
};
using Fq2 = ff::Fq2T<Tower>;
using Fq6 = ff::Fq6T<Tower>;
using Fq12 = ff::Fq12T<Tower>;
static_assert(sizeof(Fq2) == 64 && sizeof(Fq12) == 384);

inline constexpr Fq fq_hex(const char* hex) { return Fq::from_canonical(ff::limbs_from_hex<4>(hex)); }

struct G1Cfg {
  using Field = Fq;
  static constexpr bool kG2 = false;
  PP_HD static constexpr Fq b() { return Fq::from_u64(3); }
};
// b' = 3 / (9 + u); the tests check b' * xi == 3.
struct G2Cfg {
  using Field = Fq2;
  static constexpr bool kG2 = true;
  PP_HD static constexpr Fq2 b() {
    return {fq_hex("0x2b149d40ceb8aaae81be18991be06ac3b5b4c5e559dbefa33267e6dc24a138e5"),
            fq_hex("0x009713b03af0fed4cd2cafadeed8fdf4a74fa084e52d1852e4a2bd0685c315d2")};
  }
};

using G1Affine = ec::Affine<G1Cfg>;
using G1 = ec::Jacobian<G1Cfg>;
using G2Affine = ec::Affine<G2Cfg>;
using G2 = ec::Jacobian<G2Cfg>;
static_assert(sizeof(G1Affine) == 64 && sizeof(G2Affine) == 128, "bn128 zkey point sizes");

inline G1Affine g1_generator() { return {Fq::from_u64(1), Fq::from_u64(2)}; }

inline G2Affine g2_generator() {
  return {{fq_hex("0x1800deef121f1e76426a00665e5c4479674322d4f75edadd46debd5cd992f6ed"),
           fq_hex("0x198e9393920d483a7260bfb731fb5d25f1aa493335a9e71297e485b7aef312c2")},
          {fq_hex("0x12c85ea5db8c6deb4aab71808dcb408fe3d1e7690c43d37b4ce6cc0166fa7daa"),
           fq_hex("0x090689d0585ff075ec9e99ad690c3395bc4b313370b38ef355acdadcd122975b")}};
}

}  // namespace proofpipe::bn254

// The GLV endomorphisms (ec/glv.hpp), lambda and the bases checked against
// GMP in tests/core/glv_test.cpp; u = 4965661367192848881.
namespace proofpipe::ec {

// G1: phi(x, y) = (beta x, y), beta a cube root of unity in Fq; lambda =
// 36u^3 + 18u^2 + 6u + 1 (192 bits). Basis v1 = (2u+1, -(6u^2+2u)),
// v2 = (6u^2+4u+1, 2u+1).
template <>
struct Glv<bn254::G1Cfg> {
  static constexpr GlvBasis kBasis{
      .a1 = {0x89d3256894d213e3ull, 0, 0, 0},
      .b1 = {0x7dee441482b0eed8ull, 0x90b27db71147a603ull, ~0ull, ~0ull},
      .a2 = {0x0be4e1541221250bull, 0x6f4d8248eeb859fdull, 0, 0},
      .b2 = {0x89d3256894d213e3ull, 0, 0, 0},
      .g1 = {0xd91d232ec7e0b3d7ull, 0x2ull, 0},
      .g2 = {0x7a7bd9d4391eb18dull, 0x4ccef014a773d2cfull, 0x2ull},
  };
  static constexpr ff::Limbs<4> kLambda = {0x8b17ea66b99c90ddull, 0x5bfc41088d8daaa7ull, 0xb3c4d79d41a91758ull, 0};
  static constexpr bn254::Fq kBeta = bn254::fq_hex("0x59e26bcea0d48bacd4f263f1acdb5c4f5763473177fffffe");
  static bn254::G1Affine apply(const bn254::G1Affine& p) { return {p.x * kBeta, p.y}; }
};

// G2: the same order-3 automorphism of y^2 = x^3 + b', phi(x, y) = (beta'
// x, y) with beta' in Fq (2 Fq products per point, against 6 for the twist's
// Frobenius), and the same lambda and basis as G1: beta' is the cube root of
// unity for which phi(Q) = [lambda]Q on G2 (the other one gives lambda^2).
template <>
struct Glv<bn254::G2Cfg> {
  static constexpr GlvBasis kBasis = Glv<bn254::G1Cfg>::kBasis;
  static constexpr ff::Limbs<4> kLambda = Glv<bn254::G1Cfg>::kLambda;
  static constexpr bn254::Fq kBeta =
      bn254::fq_hex("0x30644e72e131a0295e6dd9e7e0acccb0c28f069fbb966e3de4bd44e5607cfd48");  // G1's beta^2
  static bn254::G2Affine apply(const bn254::G2Affine& q) { return {q.x.mul_fq(kBeta), q.y}; }
};

}  // namespace proofpipe::ec

namespace proofpipe::bn254 {

template <class Cfg>
ec::Affine<Cfg> generator() {
  if constexpr (Cfg::kG2) {
    return g2_generator();
  } else {
    return g1_generator();
  }
}

// In the order-r group: G1 is the whole curve (cofactor 1); G2 needs r * Q = O.
template <class Cfg>
bool in_subgroup(const ec::Affine<Cfg>& a) {
  if constexpr (Cfg::kG2) {
    return ec::in_order_subgroup(a, Fr::C::kP);
  } else {
    return a.on_curve();
  }
}

}  // namespace proofpipe::bn254
