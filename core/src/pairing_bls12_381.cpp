// Miller loop and final exponentiation of the BLS12-381 optimal ate pairing
// (pairing/bls12_381.hpp has the definition and references). G2 points run in
// homogeneous projective coordinates on the twist; lines are evaluated at the
// affine G1 point; formulas are derived below and cross-checked by the tests.
#include "proofpipe/pairing/bls12_381.hpp"

#include <vector>

#include "proofpipe/pairing/detail/miller_steps.hpp"

namespace proofpipe::bls12_381 {
namespace {

// |x|; x itself is negative (kXIsNegative). Bits 63, 62, 60, 57, 48, 16:
// 63 doublings and 5 additions per Miller loop, 63 squarings and 5
// multiplications per exponentiation by x.
constexpr uint64_t kAbsX = kX;
constexpr int kTopBit = 63;
static_assert(kXIsNegative, "the Miller loop and expt() conjugate for negative x");
static_assert((kAbsX >> kTopBit) == 1);

// The twist E': y^2 = x^3 + b', b' = 4 xi (M-type); its 3b' multiplier for
// the shared doubling step (pairing/detail/miller_steps.hpp, which also
// derives the line shape).
struct BlsTwist {
  // 3 b' a = 12 xi a, by additions only.
  static Fq2 mul_by_3b(const Fq2& a) {
    Fq2 t = a.mul_by_xi().dbl().dbl();  // 4 xi a
    return t.dbl() + t;
  }
};
using TwistProj = pairing::detail::TwistProj<Fq2>;
using Line = pairing::detail::Line<Fq2>;

inline Line doubling_step(TwistProj& t) { return pairing::detail::doubling_step<BlsTwist>(t); }
inline Line addition_step(TwistProj& t, const G2Affine& q) { return pairing::detail::addition_step(t, q.x, q.y); }

// M-type: the line's value times w^3 is c0 + (c1 xP) v + (c4 yP) vw.
inline Fq12 mul_by_line(const Fq12& f, const Line& l, const G1Affine& p) {
  return f.mul_by_014(l.c0, l.c1.mul_fq(p.x), l.c4.mul_fq(p.y));
}

// a^|x| by square-and-multiply with cyclotomic squarings (a in the cyclotomic
// subgroup), then conjugation: a^x = (a^|x|)^-1 for the negative x.
Fq12 expt(const Fq12& a) {
  Fq12 r = a;
  for (int i = kTopBit - 1; i >= 0; --i) {
    r = r.cyclotomic_sqr();
    if ((kAbsX >> i) & 1) r = r * a;
  }
  return r.conj();
}

}  // namespace

Fq12 multi_miller_loop(std::span<const G1G2Pair> pairs) {
  auto act = pairing::detail::active_pairs<Fq2>(pairs);  // identity pairs dropped (miller_steps.hpp)
  Fq12 f = Fq12::one();
  if (act.empty()) return f;
  for (int i = kTopBit - 1; i >= 0; --i) {
    if (i != kTopBit - 1) f = f.sqr();  // f is still 1 on the first step
    for (auto& a : act) f = mul_by_line(f, doubling_step(a.t), a.in->first);
    if ((kAbsX >> i) & 1) {
      for (auto& a : act) f = mul_by_line(f, addition_step(a.t, a.in->second), a.in->first);
    }
  }
  // f_{x,Q} = 1/f_{|x|,Q} up to a vertical line (erased by the final
  // exponentiation); after the easy part, conjugation is that inverse.
  return f.conj();
}

Fq12 miller_loop(const G1Affine& p, const G2Affine& q) {
  G1G2Pair pq{p, q};
  return multi_miller_loop(std::span<const G1G2Pair>(&pq, 1));
}

Fq12 final_exponentiation(const Fq12& f) {
  // Easy part: m = f^((p^6 - 1)(p^2 + 1)); m is then in the cyclotomic
  // subgroup, where conj() inverts and cyclotomic_sqr() applies.
  Fq12 m = f.conj() * f.inverse();
  m = m.frobenius(2) * m;
  // Hard part, 3 (p^4 - p^2 + 1)/r = (x - 1)^2 (x + p)(x^2 + p^2 - 1) + 3:
  // 4 expt() (252 cyclotomic squarings, 20 multiplications) and 7 more
  // multiplications, 1 cyclotomic squaring, 2 Frobenius maps.
  Fq12 t0 = expt(m) * m.conj();                            // m^(x-1)
  t0 = expt(t0) * t0.conj();                               // m^((x-1)^2)
  Fq12 t1 = expt(t0) * t0.frobenius(1);                    // ^(x + p)
  Fq12 t2 = expt(expt(t1)) * t1.frobenius(2) * t1.conj();  // ^(x^2 + p^2 - 1)
  return t2 * m.cyclotomic_sqr() * m;                      // * m^3
}

Fq12 pairing(const G1Affine& p, const G2Affine& q) { return final_exponentiation(miller_loop(p, q)); }

Fq12 multi_pairing(std::span<const G1G2Pair> pairs) { return final_exponentiation(multi_miller_loop(pairs)); }

bool pairing_product_is_one(std::span<const G1G2Pair> pairs) { return multi_pairing(pairs).is_one(); }

}  // namespace proofpipe::bls12_381
