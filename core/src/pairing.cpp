// Miller loop and final exponentiation of the BLS12-381 optimal ate pairing
// (pairing.hpp has the definition and references). G2 points run in
// homogeneous projective coordinates on the twist; lines are evaluated at the
// affine G1 point; formulas are derived below and cross-checked by the tests.
#include "proofpipe/pairing/pairing.hpp"

#include <vector>

namespace proofpipe::pairing {
namespace {

using ff::Fq;
using ff::Fq12;
using ff::Fq2;

// |x|; x itself is negative (ff::kBlsXIsNegative). Bits 63, 62, 60, 57, 48, 16:
// 63 doublings and 5 additions per Miller loop, 63 squarings and 5
// multiplications per exponentiation by x.
constexpr uint64_t kAbsX = ff::kBlsX;
constexpr int kTopBit = 63;
static_assert(ff::kBlsXIsNegative, "the Miller loop and expt() conjugate for negative x");
static_assert((kAbsX >> kTopBit) == 1);

// A point (X : Y : Z) of the twist E': y^2 = x^3 + b', b' = 4 xi, with
// x = X/Z, y = Y/Z.
struct TwistProj {
  Fq2 x, y, z;
};

// A line before evaluation: its value at P = (xP, yP) is
// c0 + (c1 xP) v + (c4 yP) vw, the sparse shape of Fq12::mul_by_014.
struct Line {
  Fq2 c0, c1, c4;
};

// Why that shape. E' is the M-type twist (b' = b xi), untwisted by
// psi(x', y') = (x' w^-2, y' w^-3) into E(Fq12) (w^6 = xi makes
// (y' w^-3)^2 = (x' w^-2)^3 + b). A line of slope s' on E' becomes a line of
// slope s' w^-1 on E; its value at P, times w^3, is
//   yP w^3 - s' xP w^2 + (s' x'_T - y'_T),   with w^2 = v, w^3 = vw.
// Any factor in a proper subfield (w^3 in Fq4, Fq2 denominators) is erased by
// the final exponentiation, since p^k - 1 divides (p^12 - 1)/r for k < 12.

// 3 b' a = 12 xi a, by additions only (b' = 4 + 4u is the twist constant).
inline Fq2 mul_by_3b(const Fq2& a) {
  Fq2 t = a.mul_by_xi().dbl().dbl();  // 4 xi a
  return t.dbl() + t;
}

// T <- 2T and the tangent at T. Slope s' = 3x^2/(2y); multiplying the line by
// -2y Z^2 and using y^2 = x^3 + b' gives
//   (3b'Z^2 - Y^2) + 3X^2 xP v - 2YZ yP vw.
// The point (x3 = s'^2 - 2x, y3 = s'(x - x3) - y), scaled by 4 to avoid halving:
//   X3 = 2XY(Y^2 - 9b'Z^2), Y3 = (Y^2 + 9b'Z^2)^2 - 108 b'^2 Z^4, Z3 = 8Y^3 Z.
// 3 Fq2 multiplications, 6 squarings.
inline Line doubling_step(TwistProj& t) {
  Fq2 a = t.x * t.y;
  Fq2 b = t.y.sqr();
  Fq2 c = t.z.sqr();
  Fq2 e = mul_by_3b(c);               // 3b'Z^2
  Fq2 f = e.dbl() + e;                // 9b'Z^2
  Fq2 h = (t.y + t.z).sqr() - b - c;  // 2YZ
  Fq2 xx = t.x.sqr();
  Fq2 e2 = e.sqr();
  Line l{e - b, xx.dbl() + xx, -h};
  t.x = (a * (b - f)).dbl();
  Fq2 e2x4 = e2.dbl().dbl();
  t.y = (b + f).sqr() - e2x4.dbl() - e2x4;  // 12 E^2 = 108 b'^2 Z^4
  t.z = (b * h).dbl().dbl();
  return l;
}

// T <- T + Q for affine Q = (x2, y2) and the line through them. With
// theta = Y - y2 Z and lambda = X - x2 Z the slope is theta/lambda; times
// lambda the line is (theta x2 - lambda y2) - theta xP v + lambda yP vw, and
//   X3 = lambda H, Y3 = theta (X lambda^2 - H) - Y lambda^3, Z3 = Z lambda^3,
//   H = lambda^3 + Z theta^2 - 2X lambda^2.
// 11 Fq2 multiplications, 2 squarings.
inline Line addition_step(TwistProj& t, const ec::G2Affine& q) {
  Fq2 theta = t.y - q.y * t.z;
  Fq2 lambda = t.x - q.x * t.z;
  Fq2 c = theta.sqr();
  Fq2 d = lambda.sqr();
  Fq2 e = lambda * d;
  Fq2 g = t.x * d;
  Fq2 h = e + t.z * c - g.dbl();
  Line l{theta * q.x - lambda * q.y, -theta, lambda};
  t.y = theta * (g - h) - t.y * e;
  t.x = lambda * h;
  t.z = t.z * e;
  return l;
}

inline Fq12 mul_by_line(const Fq12& f, const Line& l, const ec::G1Affine& p) {
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
  // Identity inputs contribute 1 and are dropped up front, so the loop below
  // never meets the identity (for Q of order r, [k]Q != O and [k]Q != +-Q for
  // 1 < k < |x| < r, so the formulas' exceptional cases cannot occur).
  struct Active {
    const G1G2Pair* in;
    TwistProj t;
  };
  std::vector<Active> act;
  act.reserve(pairs.size());
  for (const G1G2Pair& pq : pairs) {
    if (pq.first.is_identity() || pq.second.is_identity()) continue;
    act.push_back({&pq, {pq.second.x, pq.second.y, Fq2::one()}});
  }
  Fq12 f = Fq12::one();
  if (act.empty()) return f;
  for (int i = kTopBit - 1; i >= 0; --i) {
    if (i != kTopBit - 1) f = f.sqr();  // f is still 1 on the first step
    for (Active& a : act) f = mul_by_line(f, doubling_step(a.t), a.in->first);
    if ((kAbsX >> i) & 1) {
      for (Active& a : act) f = mul_by_line(f, addition_step(a.t, a.in->second), a.in->first);
    }
  }
  // f_{x,Q} = 1/f_{|x|,Q} up to a vertical line (erased by the final
  // exponentiation); after the easy part, conjugation is that inverse.
  return f.conj();
}

Fq12 miller_loop(const ec::G1Affine& p, const ec::G2Affine& q) {
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

Fq12 pairing(const ec::G1Affine& p, const ec::G2Affine& q) { return final_exponentiation(miller_loop(p, q)); }

Fq12 multi_pairing(std::span<const G1G2Pair> pairs) { return final_exponentiation(multi_miller_loop(pairs)); }

bool pairing_product_is_one(std::span<const G1G2Pair> pairs) { return multi_pairing(pairs).is_one(); }

}  // namespace proofpipe::pairing
