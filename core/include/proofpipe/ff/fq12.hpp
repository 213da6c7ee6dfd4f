// Fq12 = Fq6[w]/(w^2 - v): the pairing's target field, elements c0 + c1 w.
// Coefficient order (c0.c0.c0, c0.c0.c1, c0.c1.c0, ..., c1.c2.c1) is the one of
// snarkjs's vk_alphabeta_12 and of zkcrypto's Gt, so values compare directly.
// Beyond the field operations: the sparse product by a Miller-loop line and
// squaring in the cyclotomic subgroup (Granger, Scott, "Faster squaring in the
// cyclotomic subgroup of sixth degree extensions", PKC 2010, §3.2).
#pragma once

#include "proofpipe/ff/fq6.hpp"

namespace proofpipe::ff {

template <class T>
struct Fq12T {
  using Fq2 = Fq2T<T>;
  using Fq6 = Fq6T<T>;
  using Fq12 = Fq12T;
  Fq6 c0, c1;

  PP_HD static constexpr Fq12 zero() { return {Fq6::zero(), Fq6::zero()}; }
  PP_HD static constexpr Fq12 one() { return {Fq6::one(), Fq6::zero()}; }
  template <class Rng>
  static Fq12 random(Rng& rng) {
    return {Fq6::random(rng), Fq6::random(rng)};  // braced: left to right
  }

  PP_HD constexpr bool is_zero() const { return c0.is_zero() && c1.is_zero(); }
  PP_HD constexpr bool is_one() const { return c0.is_one() && c1.is_zero(); }
  PP_HD constexpr bool operator==(const Fq12& o) const { return c0 == o.c0 && c1 == o.c1; }
  PP_HD constexpr bool operator!=(const Fq12& o) const { return !(*this == o); }

  PP_HD_INLINE constexpr Fq12 operator+(const Fq12& b) const { return {c0 + b.c0, c1 + b.c1}; }
  PP_HD_INLINE constexpr Fq12 operator-(const Fq12& b) const { return {c0 - b.c0, c1 - b.c1}; }
  PP_HD_INLINE constexpr Fq12 operator-() const { return {-c0, -c1}; }

  // Karatsuba: 3 Fq6 products = 18 Fq2 multiplications.
  PP_HD constexpr Fq12 operator*(const Fq12& b) const {
    Fq6 v0 = c0 * b.c0;
    Fq6 v1 = c1 * b.c1;
    return {v0 + v1.mul_by_v(), (c0 + c1) * (b.c0 + b.c1) - v0 - v1};
  }

  // "Complex" squaring: (a0 + a1 w)^2 = (a0 + a1)(a0 + v a1) - t - v t + 2t w
  // with t = a0 a1; 2 Fq6 products = 12 Fq2 multiplications.
  PP_HD constexpr Fq12 sqr() const {
    Fq6 t = c0 * c1;
    Fq6 s = (c0 + c1) * (c0 + c1.mul_by_v()) - t - t.mul_by_v();
    return {s, t.dbl()};
  }

  // a^(p^6): w^(p^6) = -w. On the cyclotomic subgroup (every value after the
  // easy part of the final exponentiation) this is the inverse, for free.
  PP_HD_INLINE constexpr Fq12 conj() const { return {c0, -c1}; }

  // 1/(a0 + a1 w) = (a0 - a1 w)/(a0^2 - v a1^2): one Fq6 inversion. 0 -> 0.
  PP_HD constexpr Fq12 inverse() const {
    Fq6 d = (c0.sqr() - c1.sqr().mul_by_v()).inverse();
    return {c0 * d, -(c1 * d)};
  }

  // Product with a line value l0 + l1 v + l4 v w, the shape every Miller-loop
  // line takes on the M-type twist once scaled by w^3 (see pairing_bls12_381.cpp); the
  // indices count Fq2 coefficients c0.c0, c0.c1, c0.c2, c1.c0, c1.c1, c1.c2.
  // 13 Fq2 multiplications instead of 18.
  PP_HD constexpr Fq12 mul_by_014(const Fq2& l0, const Fq2& l1, const Fq2& l4) const {
    Fq6 v0 = c0.mul_by_01(l0, l1);
    Fq6 v1 = c1.mul_by_1(l4);
    Fq6 s = (c0 + c1).mul_by_01(l0, l1 + l4);
    return {v0 + v1.mul_by_v(), s - v0 - v1};
  }

  // The same for the D-type twist's lines (BN254, see pairing/bn254.hpp):
  // l0 + l3 w + l4 v w, i.e. c0.c0, c1.c0, c1.c1. (c0 + c1 w)(l0 + B w) with
  // B = l3 + l4 v: Karatsuba over w, 3 + 5 + 5 = 13 Fq2 multiplications.
  PP_HD constexpr Fq12 mul_by_034(const Fq2& l0, const Fq2& l3, const Fq2& l4) const {
    Fq6 v0 = c0.mul_fq2(l0);
    Fq6 v1 = c1.mul_by_01(l3, l4);
    Fq6 s = (c0 + c1).mul_by_01(l0 + l3, l4);
    return {v0 + v1.mul_by_v(), s - v0 - v1};
  }

  // Squaring valid only in the cyclotomic subgroup (a^(p^4 - p^2 + 1) = 1; any
  // f^((p^6 - 1)(p^2 + 1)) is there), where conj is the inverse. Over Fq4 = Fq2[z]/(z^2 - xi), z = w^3, an
  // element is A0 + A1 w + A2 w^2 and its square is
  //   B0 = 3 A0^2 - 2 conj(A0),  B1 = 3 z A2^2 + 2 conj(A1),  B2 = 3 A1^2 - 2 conj(A2)
  // (conj: z -> -z): 3 Fq4 squarings = 6 Fq2 squarings + 3 products by xi,
  // against 12 Fq2 multiplications for sqr(). A0 = (c0.c0, c1.c1),
  // A1 = (c1.c0, c0.c2), A2 = (c0.c1, c1.c2) as (1, z) coefficient pairs.
  PP_HD constexpr Fq12 cyclotomic_sqr() const {
    Fq2 a0, a1, b0, b1, d0, d1;
    fq4_sqr(c0.c0, c1.c1, &a0, &a1);  // A0^2
    fq4_sqr(c1.c0, c0.c2, &b0, &b1);  // A1^2
    fq4_sqr(c0.c1, c1.c2, &d0, &d1);  // A2^2
    Fq12 r;
    r.c0.c0 = three_minus_two(a0, c0.c0);
    r.c1.c1 = three_plus_two(a1, c1.c1);
    r.c1.c0 = three_plus_two(d1.mul_by_xi(), c1.c0);  // z * A2^2 = xi d1 + d0 z
    r.c0.c2 = three_minus_two(d0, c0.c2);
    r.c0.c1 = three_minus_two(b0, c0.c1);
    r.c1.c2 = three_plus_two(b1, c1.c2);
    return r;
  }

  // a^(p^k), any k >= 0 (host only): coefficient of w^e becomes
  // phi^k(coefficient) * gamma[k][e], e = 2j + i for c_i.c_j (fq6.hpp).
  Fq12 frobenius(unsigned k = 1) const {
    const FrobeniusTableT<T>& t = frobenius_table<T>();
    Fq12 r = *this;
    for (k %= 12; k > 0;) {
      unsigned s = k > 3 ? 3 : k;
      Fq2* coef[6] = {&r.c0.c0, &r.c1.c0, &r.c0.c1, &r.c1.c1, &r.c0.c2, &r.c1.c2};  // by e
      for (unsigned e = 0; e < 6; ++e) {
        Fq2 a = (s & 1) ? coef[e]->conj() : *coef[e];
        *coef[e] = e == 0 ? a : a * t.gamma[s][e];
      }
      k -= s;
    }
    return r;
  }

  Fq12& operator*=(const Fq12& b) { return *this = *this * b; }

  // a^e for a canonical exponent of any width (tests and slow paths only;
  // general squarings, so valid for every element).
  template <size_t M>
  PP_HD constexpr Fq12 pow(const Limbs<M>& e) const {
    Fq12 r = one();
    for (unsigned i = limbs_bit_length(e); i-- > 0;) {
      r = r.sqr();
      if (limbs_bit(e, i)) r = r * *this;
    }
    return r;
  }

 private:
  // 3 sq - 2x and 3 sq + 2x, additions only.
  PP_HD_INLINE static constexpr Fq2 three_minus_two(const Fq2& sq, const Fq2& x) { return (sq - x).dbl() + sq; }
  PP_HD_INLINE static constexpr Fq2 three_plus_two(const Fq2& sq, const Fq2& x) { return (sq + x).dbl() + sq; }
  // (a + b z)^2 = (a^2 + xi b^2) + ((a + b)^2 - a^2 - b^2) z: 3 squarings.
  PP_HD_INLINE static constexpr void fq4_sqr(const Fq2& a, const Fq2& b, Fq2* r0, Fq2* r1) {
    Fq2 t0 = a.sqr();
    Fq2 t1 = b.sqr();
    *r0 = t1.mul_by_xi() + t0;
    *r1 = (a + b).sqr() - t0 - t1;
  }
};

}  // namespace proofpipe::ff
