// Short Weierstrass curves y^2 = x^3 + b (a = 0) over a field F: one template
// for G1 (F = Fq) and G2 (F = Fq2), so the two groups cannot diverge.
//
// Affine: (x, y) in Montgomery form, the point at infinity encoded as x = y = 0
// exactly as the snarkjs zkey stores it ((0,0) is not on the curve since b != 0).
// Jacobian: (X, Y, Z) with x = X/Z^2, y = Y/Z^3; infinity has Z = 0.
// Formulas: dbl-2009-l, add-2007-bl, madd-2007-bl from the Explicit-Formulas
// Database (hyperelliptic.org/EFD, "g1p/auto-shortw-jacobian-0").
#pragma once

#include <cstdint>

#include "proofpipe/ff/limbs.hpp"
#include "proofpipe/hd.hpp"

namespace proofpipe::ec {

// Cfg supplies: using Field; static constexpr Field b(); (curve constant);
// static constexpr bool kG2 (whether Field is the quadratic extension).
template <class Cfg>
struct Affine {
  using F = typename Cfg::Field;
  F x, y;

  PP_HD static constexpr Affine identity() { return {F::zero(), F::zero()}; }
  PP_HD constexpr bool is_identity() const { return x.is_zero() && y.is_zero(); }
  PP_HD constexpr bool operator==(const Affine& o) const { return x == o.x && y == o.y; }
  PP_HD constexpr bool operator!=(const Affine& o) const { return !(*this == o); }
  PP_HD constexpr Affine operator-() const { return is_identity() ? *this : Affine{x, -y}; }
  // On the curve (the identity counts as on the curve). Subgroup: in_order_subgroup below.
  PP_HD constexpr bool on_curve() const {
    if (is_identity()) return true;
    return y.sqr() == x.sqr() * x + Cfg::b();
  }
};

template <class Cfg>
struct Jacobian {
  using F = typename Cfg::Field;
  using AffineT = Affine<Cfg>;
  F x, y, z;

  PP_HD static constexpr Jacobian identity() { return {F::one(), F::one(), F::zero()}; }
  PP_HD static constexpr Jacobian from_affine(const AffineT& a) {
    return a.is_identity() ? identity() : Jacobian{a.x, a.y, F::one()};
  }
  PP_HD constexpr bool is_identity() const { return z.is_zero(); }
  PP_HD constexpr Jacobian operator-() const { return {x, -y, z}; }

  // Equality of the points represented: X1 Z2^2 == X2 Z1^2 and Y1 Z2^3 == Y2 Z1^3.
  PP_HD constexpr bool operator==(const Jacobian& o) const {
    if (is_identity() || o.is_identity()) return is_identity() == o.is_identity();
    F z1z1 = z.sqr(), z2z2 = o.z.sqr();
    if (x * z2z2 != o.x * z1z1) return false;
    return y * z2z2 * o.z == o.y * z1z1 * z;
  }
  PP_HD constexpr bool operator!=(const Jacobian& o) const { return !(*this == o); }

  PP_HD constexpr AffineT to_affine() const {
    if (is_identity()) return AffineT::identity();
    F zi = z.inverse();
    F zi2 = zi.sqr();
    return {x * zi2, y * zi2 * zi};
  }
  PP_HD constexpr bool on_curve() const {
    if (is_identity()) return true;
    // Y^2 = X^3 + b Z^6
    F z2 = z.sqr();
    F z6 = z2.sqr() * z2;
    return y.sqr() == x.sqr() * x + Cfg::b() * z6;
  }

  // dbl-2009-l: 2M + 5S.
  PP_HD constexpr Jacobian dbl() const {
    if (is_identity()) return *this;
    F A = x.sqr(), B = y.sqr(), C = B.sqr();
    F D = ((x + B).sqr() - A - C).dbl();
    F E = A.dbl() + A;
    F Fv = E.sqr();
    F X3 = Fv - D.dbl();
    F C8 = C.dbl().dbl().dbl();
    F Y3 = E * (D - X3) - C8;
    F Z3 = (y * z).dbl();
    return {X3, Y3, Z3};
  }

  // add-2007-bl: 11M + 5S; handles P == Q (doubling) and P == -Q (identity).
  PP_HD constexpr Jacobian operator+(const Jacobian& o) const {
    if (is_identity()) return o;
    if (o.is_identity()) return *this;
    F z1z1 = z.sqr(), z2z2 = o.z.sqr();
    F u1 = x * z2z2, u2 = o.x * z1z1;
    F s1 = y * o.z * z2z2, s2 = o.y * z * z1z1;
    F h = u2 - u1;
    F r = (s2 - s1).dbl();
    if (h.is_zero()) return r.is_zero() ? dbl() : identity();
    F i = h.dbl().sqr();
    F j = h * i;
    F v = u1 * i;
    F X3 = r.sqr() - j - v.dbl();
    F Y3 = r * (v - X3) - (s1 * j).dbl();
    F Z3 = ((z + o.z).sqr() - z1z1 - z2z2) * h;
    return {X3, Y3, Z3};
  }

  // madd-2007-bl (Z2 = 1): 7M + 4S; handles the identity and equal points.
  PP_HD constexpr Jacobian add_affine(const AffineT& a) const {
    if (a.is_identity()) return *this;
    if (is_identity()) return from_affine(a);
    F z1z1 = z.sqr();
    F u2 = a.x * z1z1;
    F s2 = a.y * z * z1z1;
    F h = u2 - x;
    F r = (s2 - y).dbl();
    if (h.is_zero()) return r.is_zero() ? dbl() : identity();
    F hh = h.sqr();
    F i = hh.dbl().dbl();
    F j = h * i;
    F v = x * i;
    F X3 = r.sqr() - j - v.dbl();
    F Y3 = r * (v - X3) - (y * j).dbl();
    F Z3 = (z + h).sqr() - z1z1 - hh;
    return {X3, Y3, Z3};
  }
  PP_HD constexpr Jacobian operator-(const Jacobian& o) const { return *this + (-o); }
  Jacobian& operator+=(const Jacobian& o) { return *this = *this + o; }
  Jacobian& operator+=(const AffineT& a) { return *this = add_affine(a); }

  // k * P for a canonical little-endian scalar of any width (double-and-add,
  // variable time: scalars here are public or prover-side).
  template <size_t M>
  PP_HD constexpr Jacobian mul(const ff::Limbs<M>& k) const {
    Jacobian r = identity();
    for (unsigned i = ff::limbs_bit_length(k); i-- > 0;) {
      r = r.dbl();
      if (ff::limbs_bit(k, i)) r = r + *this;
    }
    return r;
  }
};

// On the curve and r * P = O (r: the group order, canonical limbs). One
// scalar multiplication by r (~255 doublings); fast enough for key and
// proof checks. The identity passes.
template <class Cfg, size_t M>
bool in_order_subgroup(const Affine<Cfg>& a, const ff::Limbs<M>& r) {
  if (!a.on_curve()) return false;
  if (a.is_identity()) return true;
  return Jacobian<Cfg>::from_affine(a).mul(r).is_identity();
}

}  // namespace proofpipe::ec
