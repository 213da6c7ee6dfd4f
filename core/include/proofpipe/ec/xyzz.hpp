// XYZZ coordinates (X, Y, ZZ, ZZZ) for y^2 = x^3 + b: the accumulator of
// choice for Pippenger buckets. Not a general-purpose point type: no
// equality or on-curve test here; convert to Jacobian for those.
// Formulas madd-2008-s, add-2008-s, dbl-2008-s-1, mdbl-2008-s-1 from the
// Explicit-Formulas Database (hyperelliptic.org/EFD, "g1p/auto-shortw-xyzz").
#pragma once

#include "proofpipe/ec/curve.hpp"

namespace proofpipe::ec {

// The point (X/ZZ, Y/ZZZ) with ZZ^3 = ZZZ^2; identity when ZZ = 0.
// Why XYZZ and not Jacobian for buckets: a mixed add costs 8M + 2S here
// against 7M + 4S for madd-2007-bl (same for us, since S = M in our field
// code), but a full add costs 12M + 2S against 11M + 5S, and the equal-point
// test needs no extra work. Every function is pure; values are thread-safe.
template <class Cfg>
struct Xyzz {
  using F = typename Cfg::Field;
  using AffineT = Affine<Cfg>;
  using JacobianT = Jacobian<Cfg>;
  F x, y, zz, zzz;

  PP_HD static constexpr Xyzz identity() { return {F::one(), F::one(), F::zero(), F::zero()}; }
  PP_HD static constexpr Xyzz from_affine(const AffineT& a) {
    return a.is_identity() ? identity() : Xyzz{a.x, a.y, F::one(), F::one()};
  }
  PP_HD constexpr bool is_identity() const { return zz.is_zero(); }
  PP_HD constexpr Xyzz operator-() const { return {x, -y, zz, zzz}; }

  // With Z = ZZZ/ZZ (Z^2 = ZZ, Z^3 = ZZZ follow from ZZ^3 = ZZZ^2), the
  // Jacobian point (X*Z^8, Y*Z^12, Z^5) = (X*ZZ*ZZZ^2, Y*ZZZ^4, ZZ*ZZZ)
  // represents the same affine point without an inversion: 5M + 1S.
  PP_HD constexpr JacobianT to_jacobian() const {
    if (is_identity()) return JacobianT::identity();
    F zzz2 = zzz.sqr();
    return {x * zz * zzz2, y * zzz2 * zzz2, zz * zzz};
  }
  // One inversion of ZZ*ZZZ, then x = X*ZZZ*inv, y = Y*ZZ*inv.
  PP_HD constexpr AffineT to_affine() const {
    if (is_identity()) return AffineT::identity();
    F inv = (zz * zzz).inverse();
    return {x * zzz * inv, y * zz * inv};
  }

  // mdbl-2008-s-1 (doubling an affine point, 4M + 3S) and dbl-2008-s-1
  // (6M + 3S). a = 0 is used only in M = 3X^2. Points of order 2 (y = 0)
  // do not occur in the prime-order subgroups; they would give ZZ = 0, i.e.
  // the identity, which is the right answer anyway.
  PP_HD static constexpr Xyzz dbl_affine(const AffineT& a) {
    if (a.is_identity()) return identity();
    F u = a.y.dbl();
    F v = u.sqr();
    F w = u * v;
    F s = a.x * v;
    F x2 = a.x.sqr();
    F m = x2.dbl() + x2;
    F x3 = m.sqr() - s.dbl();
    F y3 = m * (s - x3) - w * a.y;
    return {x3, y3, v, w};
  }
  PP_HD constexpr Xyzz dbl() const {
    if (is_identity()) return *this;
    F u = y.dbl();
    F v = u.sqr();
    F w = u * v;
    F s = x * v;
    F x2 = x.sqr();
    F m = x2.dbl() + x2;
    F x3 = m.sqr() - s.dbl();
    F y3 = m * (s - x3) - w * y;
    return {x3, y3, v * zz, w * zzz};
  }

  // madd-2008-s: this + affine, 8M + 2S. Handles the identity on either
  // side, P + P (doubling) and P + (-P) (identity).
  PP_HD constexpr Xyzz add_affine(const AffineT& a) const {
    if (a.is_identity()) return *this;
    if (is_identity()) return from_affine(a);
    F p = a.x * zz - x;
    F r = a.y * zzz - y;
    if (p.is_zero()) return r.is_zero() ? dbl_affine(a) : identity();
    F pp = p.sqr();
    F ppp = p * pp;
    F q = x * pp;
    F x3 = r.sqr() - ppp - q.dbl();
    F y3 = r * (q - x3) - y * ppp;
    return {x3, y3, zz * pp, zzz * ppp};
  }
  // this - affine, without materialising the negated point.
  PP_HD constexpr Xyzz sub_affine(const AffineT& a) const {
    return add_affine(AffineT{a.x, a.is_identity() ? a.y : -a.y});
  }

  // add-2008-s: 12M + 2S, all special cases handled.
  PP_HD constexpr Xyzz operator+(const Xyzz& o) const {
    if (o.is_identity()) return *this;
    if (is_identity()) return o;
    F u1 = x * o.zz;
    F s1 = y * o.zzz;
    F p = o.x * zz - u1;
    F r = o.y * zzz - s1;
    if (p.is_zero()) return r.is_zero() ? dbl() : identity();
    F pp = p.sqr();
    F ppp = p * pp;
    F q = u1 * pp;
    F x3 = r.sqr() - ppp - q.dbl();
    F y3 = r * (q - x3) - s1 * ppp;
    return {x3, y3, zz * o.zz * pp, zzz * o.zzz * ppp};
  }
  Xyzz& operator+=(const Xyzz& o) { return *this = *this + o; }
  Xyzz& operator+=(const AffineT& a) { return *this = add_affine(a); }
};

}  // namespace proofpipe::ec
