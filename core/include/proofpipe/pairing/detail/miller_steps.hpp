// The Miller loop's point steps on a sextic twist E': y^2 = x^3 + b' over
// Fq2, shared by the BLS12-381 (M-type twist) and BN254 (D-type twist)
// pairings: T <- 2T and T <- T + Q in homogeneous projective coordinates,
// each returning its line as three Fq2 numbers (c0, c1, c4). Where those
// land in Fq12 depends on the twist (core/src/pairing_bls12_381.cpp for M,
// core/src/pairing_bn254.cpp for D). Host code only.
//
// Why one line shape serves both twists. A line of slope s' through T on E'
// has, at P = (xP, yP) in G1, after untwisting:
//   M-type, psi(x', y') = (x' w^-2, y' w^-3), value times w^3:
//       (s' x'_T - y'_T) + (-s' xP) w^2 + yP w^3
//   D-type, psi(x', y') = (x' w^2, y' w^3):
//       yP + (-s' xP) w + (s' x'_T - y'_T) w^3
// The same three numbers (constant, xP coefficient, yP coefficient), scaled
// by one common Fq2 factor the final exponentiation erases (p^k - 1 divides
// (p^12 - 1)/r for k < 12), only placed differently: c0 is the constant, c1
// the xP coefficient, c4 the yP coefficient.
#pragma once

#include <span>
#include <vector>

namespace proofpipe::pairing::detail {

template <class Fq2>
struct TwistProj {  // (X : Y : Z), x = X/Z, y = Y/Z
  Fq2 x, y, z;
};

template <class Fq2>
struct Line {
  Fq2 c0, c1, c4;
};

// T <- 2T and the tangent at T. Slope s' = 3x^2/(2y); multiplying the line by
// -2y Z^2 and using y^2 = x^3 + b' gives
//   (3b'Z^2 - Y^2) + 3X^2 xP [.] - 2YZ yP [.]
// The point (x3 = s'^2 - 2x, y3 = s'(x - x3) - y), scaled by 4 to avoid halving:
//   X3 = 2XY(Y^2 - 9b'Z^2), Y3 = (Y^2 + 9b'Z^2)^2 - 108 b'^2 Z^4, Z3 = 8Y^3 Z.
// 3 Fq2 multiplications, 6 squarings, and Tw::mul_by_3b (additions only on
// BLS12-381; one multiplication by a constant on BN254).
template <class Tw, class Fq2>
inline Line<Fq2> doubling_step(TwistProj<Fq2>& t) {
  Fq2 a = t.x * t.y;
  Fq2 b = t.y.sqr();
  Fq2 c = t.z.sqr();
  Fq2 e = Tw::mul_by_3b(c);           // 3b'Z^2
  Fq2 f = e.dbl() + e;                // 9b'Z^2
  Fq2 h = (t.y + t.z).sqr() - b - c;  // 2YZ
  Fq2 xx = t.x.sqr();
  Fq2 e2 = e.sqr();
  Line<Fq2> l{e - b, xx.dbl() + xx, -h};
  t.x = (a * (b - f)).dbl();
  Fq2 e2x4 = e2.dbl().dbl();
  t.y = (b + f).sqr() - e2x4.dbl() - e2x4;  // 12 E^2 = 108 b'^2 Z^4
  t.z = (b * h).dbl().dbl();
  return l;
}

// T <- T + Q for affine Q = (x2, y2) and the line through them. With
// theta = Y - y2 Z and lambda = X - x2 Z the slope is theta/lambda; times
// lambda the line is (theta x2 - lambda y2) - theta xP [.] + lambda yP [.], and
//   X3 = lambda H, Y3 = theta (X lambda^2 - H) - Y lambda^3, Z3 = Z lambda^3,
//   H = lambda^3 + Z theta^2 - 2X lambda^2.
// 11 Fq2 multiplications, 2 squarings.
template <class Fq2>
inline Line<Fq2> addition_step(TwistProj<Fq2>& t, const Fq2& qx, const Fq2& qy) {
  Fq2 theta = t.y - qy * t.z;
  Fq2 lambda = t.x - qx * t.z;
  Fq2 c = theta.sqr();
  Fq2 d = lambda.sqr();
  Fq2 e = lambda * d;
  Fq2 g = t.x * d;
  Fq2 h = e + t.z * c - g.dbl();
  Line<Fq2> l{theta * qx - lambda * qy, -theta, lambda};
  t.y = theta * (g - h) - t.y * e;
  t.x = lambda * h;
  t.z = t.z * e;
  return l;
}

// One (P, Q) pair of a multi-Miller loop and its running point T (starting
// at Q). Pairs with an identity contribute 1 and are dropped up front, so
// the loops never meet the identity (for Q of order r, the multiples they
// reach are never O or +-Q, so the formulas' exceptional cases cannot occur).
template <class Pair, class Fq2>
struct ActivePair {
  const Pair* in;
  TwistProj<Fq2> t;
};
template <class Fq2, class Pair>
std::vector<ActivePair<Pair, Fq2>> active_pairs(std::span<const Pair> pairs) {
  std::vector<ActivePair<Pair, Fq2>> act;
  act.reserve(pairs.size());
  for (const Pair& pq : pairs) {
    if (pq.first.is_identity() || pq.second.is_identity()) continue;
    act.push_back({&pq, {pq.second.x, pq.second.y, Fq2::one()}});
  }
  return act;
}

}  // namespace proofpipe::pairing::detail
