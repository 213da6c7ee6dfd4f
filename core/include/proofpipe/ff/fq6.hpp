// Fq6 = Fq2[v]/(v^3 - xi): the middle layer of the pairing tower (Fq2 ->
// Fq6 -> Fq12, the tower of zkcrypto, snarkjs/ffjavascript and the IETF
// pairing-friendly-curves draft; xi = 1 + u on BLS12-381, 9 + u on BN254,
// see fq2.hpp's T). Elements c0 + c1 v + c2 v^2. Arithmetic is
// host and device; the Frobenius map is host-only (its table is computed once,
// at first use, in core/src/fq12.cpp).
// Multiplication and squaring: Devegili, O hEigeartaigh, Scott, Dahab,
// "Multiplication and squaring on pairing-friendly fields" (2006), §4.
#pragma once

#include "proofpipe/ff/fq2.hpp"

namespace proofpipe::ff {

// Frobenius constants of the whole tower, derived from one power of xi:
// w^6 = xi, so (w^e)^(p^k) = w^e * g_k^e with g_k = xi^((p^k - 1)/6).
// gamma[k][e] = g_k^e for k = 1..3 (row 0 is unused), e = 0..5. Fq6 uses the
// even e (v = w^2), Fq12 all six. Computed on first call (a thread-safe local
// static); p^k for k >= 4 is composed from these.
template <class T>
struct FrobeniusTableT {
  Fq2T<T> gamma[4][6];
};
// Instantiated for each tower in core/src/fq12.cpp.
template <class T>
const FrobeniusTableT<T>& frobenius_table();

template <class T>
struct Fq6T {
  using Fq2 = Fq2T<T>;
  using Fq6 = Fq6T;
  Fq2 c0, c1, c2;

  PP_HD static constexpr Fq6 zero() { return {Fq2::zero(), Fq2::zero(), Fq2::zero()}; }
  PP_HD static constexpr Fq6 one() { return {Fq2::one(), Fq2::zero(), Fq2::zero()}; }
  template <class Rng>
  static Fq6 random(Rng& rng) {
    // Braced initialisers evaluate left to right, so a seed fixes the element.
    return {Fq2::random(rng), Fq2::random(rng), Fq2::random(rng)};
  }

  PP_HD constexpr bool is_zero() const { return c0.is_zero() && c1.is_zero() && c2.is_zero(); }
  PP_HD constexpr bool is_one() const { return c0.is_one() && c1.is_zero() && c2.is_zero(); }
  PP_HD constexpr bool operator==(const Fq6& o) const { return c0 == o.c0 && c1 == o.c1 && c2 == o.c2; }
  PP_HD constexpr bool operator!=(const Fq6& o) const { return !(*this == o); }

  PP_HD_INLINE constexpr Fq6 operator+(const Fq6& b) const { return {c0 + b.c0, c1 + b.c1, c2 + b.c2}; }
  PP_HD_INLINE constexpr Fq6 operator-(const Fq6& b) const { return {c0 - b.c0, c1 - b.c1, c2 - b.c2}; }
  PP_HD_INLINE constexpr Fq6 operator-() const { return {-c0, -c1, -c2}; }
  PP_HD_INLINE constexpr Fq6 dbl() const { return {c0.dbl(), c1.dbl(), c2.dbl()}; }

  // Karatsuba over the three coefficients: 6 Fq2 multiplications instead of 9.
  PP_HD constexpr Fq6 operator*(const Fq6& b) const {
    Fq2 v0 = c0 * b.c0;
    Fq2 v1 = c1 * b.c1;
    Fq2 v2 = c2 * b.c2;
    Fq2 t0 = ((c1 + c2) * (b.c1 + b.c2) - v1 - v2).mul_by_xi() + v0;  // a1b2 + a2b1 wraps to v^0
    Fq2 t1 = (c0 + c1) * (b.c0 + b.c1) - v0 - v1 + v2.mul_by_xi();    // a2b2 v^4 = xi a2b2 v
    Fq2 t2 = (c0 + c2) * (b.c0 + b.c2) - v0 - v2 + v1;
    return {t0, t1, t2};
  }

  // Chung-Hasan SQR2: 3 Fq2 multiplications and 2 squarings (vs 6 for mul).
  PP_HD constexpr Fq6 sqr() const {
    Fq2 s0 = c0.sqr();
    Fq2 s1 = (c0 * c1).dbl();
    Fq2 s2 = (c0 - c1 + c2).sqr();
    Fq2 s3 = (c1 * c2).dbl();
    Fq2 s4 = c2.sqr();
    return {s0 + s3.mul_by_xi(), s1 + s4.mul_by_xi(), s1 + s2 + s3 - s0 - s4};
  }

  // (c0 + c1 v + c2 v^2) * v = xi c2 + c0 v + c1 v^2: the Fq12 non-residue
  // multiplication (w^2 = v), additions only.
  PP_HD_INLINE constexpr Fq6 mul_by_v() const { return {c2.mul_by_xi(), c0, c1}; }
  PP_HD_INLINE constexpr Fq6 mul_fq2(const Fq2& b) const { return {c0 * b, c1 * b, c2 * b}; }

  // Sparse products for the Miller loop's line functions. mul_by_01 multiplies
  // by b0 + b1 v (5 Fq2 mul instead of 6), mul_by_1 by b1 v (3 instead of 6).
  PP_HD constexpr Fq6 mul_by_01(const Fq2& b0, const Fq2& b1) const {
    Fq2 v0 = c0 * b0;
    Fq2 v1 = c1 * b1;
    Fq2 t0 = (c2 * b1).mul_by_xi() + v0;
    Fq2 t1 = (c0 + c1) * (b0 + b1) - v0 - v1;
    Fq2 t2 = c2 * b0 + v1;
    return {t0, t1, t2};
  }
  PP_HD constexpr Fq6 mul_by_1(const Fq2& b1) const { return {(c2 * b1).mul_by_xi(), c0 * b1, c1 * b1}; }

  Fq6& operator+=(const Fq6& b) { return *this = *this + b; }
  Fq6& operator-=(const Fq6& b) { return *this = *this - b; }
  Fq6& operator*=(const Fq6& b) { return *this = *this * b; }

  // 1/a = adj(a)/N(a) for the multiplication-by-a matrix; one Fq2 inversion.
  // Inverse of 0 is 0 (the Fq2 inverse of 0 is 0).
  PP_HD constexpr Fq6 inverse() const {
    Fq2 t0 = c0.sqr() - (c1 * c2).mul_by_xi();
    Fq2 t1 = c2.sqr().mul_by_xi() - c0 * c1;
    Fq2 t2 = c1.sqr() - c0 * c2;
    Fq2 n = c0 * t0 + (c2 * t1 + c1 * t2).mul_by_xi();
    Fq2 ni = n.inverse();
    return {t0 * ni, t1 * ni, t2 * ni};
  }

  // a^(p^k), any k >= 0 (host only). Applies the p^1..p^3 maps: conjugate the
  // Fq2 coefficients for odd powers, scale the v^j one by gamma[k][2j].
  Fq6 frobenius(unsigned k = 1) const {
    const FrobeniusTableT<T>& t = frobenius_table<T>();
    Fq6 r = *this;
    for (k %= 6; k > 0;) {
      unsigned s = k > 3 ? 3 : k;
      if (s & 1) r = {r.c0.conj(), r.c1.conj(), r.c2.conj()};
      r = {r.c0, r.c1 * t.gamma[s][2], r.c2 * t.gamma[s][4]};
      k -= s;
    }
    return r;
  }

  // a^e for a canonical exponent of any width (tests and slow paths only).
  template <size_t M>
  PP_HD constexpr Fq6 pow(const Limbs<M>& e) const {
    Fq6 r = one();
    for (unsigned i = limbs_bit_length(e); i-- > 0;) {
      r = r.sqr();
      if (limbs_bit(e, i)) r = r * *this;
    }
    return r;
  }
};

}  // namespace proofpipe::ff
