// BN254's tower (xi = 9 + u), G1 (y^2 = x^3 + 3 over Fq) and G2 (the D-type
// sextic twist y^2 = x^3 + 3/xi over Fq2), with their generators and
// subgroup checks. Generators: EIP-196/197, also snarkjs's bn128 ones.
// G1 has cofactor 1, so on the curve means in the group; G2's cofactor is
// 2p - r, so a G2 point from outside must pass the r-torsion check.
#pragma once

#include "proofpipe/ec/curve.hpp"
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
