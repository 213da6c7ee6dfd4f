// Fq2 = Fq[u]/(u^2 + 1), the field of G2's coordinates, for any base field
// with q = 3 mod 4 (BLS12-381 and BN254 both). Elements c0 + c1*u, stored as
// (c0, c1), each Montgomery Fq: the zkey's G2 layout (96 bytes on BLS12-381,
// 64 on BN254).
//
// T is the tower's configuration: `using Fq` (the base field) and kXi, the
// integer a of the Fq6 non-residue xi = a + u (1 for BLS12-381, 9 for BN254),
// the one constant in which the two towers differ. Each curve names its own
// tower and instances (bls12_381::Fq2 in ec/bls12_381.hpp, bn254::Fq2 in
// ec/bn254.hpp).
#pragma once

#include <type_traits>

#include "proofpipe/ff/field.hpp"

namespace proofpipe::ff {

template <class T>
struct Fq2T {
  using Fq = typename T::Fq;
  using Tower = T;
  using Fq2 = Fq2T;
  Fq c0, c1;

  PP_HD static constexpr Fq2 zero() { return {Fq::zero(), Fq::zero()}; }
  PP_HD static constexpr Fq2 one() { return {Fq::one(), Fq::zero()}; }
  template <class Rng>
  static Fq2 random(Rng& rng) {
    Fq a = Fq::random(rng);
    return {a, Fq::random(rng)};
  }

  PP_HD constexpr bool is_zero() const { return c0.is_zero() && c1.is_zero(); }
  PP_HD constexpr bool is_one() const { return c0.is_one() && c1.is_zero(); }
  PP_HD constexpr bool operator==(const Fq2& o) const { return c0 == o.c0 && c1 == o.c1; }
  PP_HD constexpr bool operator!=(const Fq2& o) const { return !(*this == o); }

  PP_HD_INLINE constexpr Fq2 operator+(const Fq2& b) const { return {c0 + b.c0, c1 + b.c1}; }
  PP_HD_INLINE constexpr Fq2 operator-(const Fq2& b) const { return {c0 - b.c0, c1 - b.c1}; }
  PP_HD_INLINE constexpr Fq2 operator-() const { return {-c0, -c1}; }
  PP_HD_INLINE constexpr Fq2 dbl() const { return {c0.dbl(), c1.dbl()}; }

  // On x86-64 CPUs with BMI2/ADX (detail::x86_kernels_enabled()), Karatsuba on unreduced double-width
  // products with two Montgomery reductions instead of three
  // (detail/mont_x86_wide.hpp, same limbs; 6-limb BLS12-381 and 4-limb BN254
  // Fq); elsewhere (device code, constant evaluation) the Karatsuba over Fq
  // products below.
  PP_HD_INLINE constexpr Fq2 operator*(const Fq2& b) const {
#if defined(PP_FF_HAVE_MONT_X86)
    if constexpr (detail::kFq2LazyApplies<typename Fq::C>) {
      if (!std::is_constant_evaluated() && detail::x86_kernels_enabled()) {
        Fq2 r;
        detail::fq2_mul_lazy<typename Fq::C>(r.c0.l, r.c1.l, c0.l, c1.l, b.c0.l, b.c1.l);
        return r;
      }
    }
#endif
    return mul_karatsuba(b);
  }
  // Karatsuba: 3 Fq multiplications.
  PP_HD_INLINE constexpr Fq2 mul_karatsuba(const Fq2& b) const {
    Fq v0 = c0 * b.c0;
    Fq v1 = c1 * b.c1;
    Fq s = (c0 + c1) * (b.c0 + b.c1);
    return {v0 - v1, s - v0 - v1};
  }
  // (a + bu)^2 = (a+b)(a-b) + 2ab u: 2 multiplications.
  PP_HD_INLINE constexpr Fq2 sqr() const {
    Fq t = c0 * c1;
    return {(c0 + c1) * (c0 - c1), t.dbl()};
  }
  PP_HD_INLINE constexpr Fq2 mul_fq(const Fq& b) const { return {c0 * b, c1 * b}; }
  // Multiply by the Fq6 non-residue xi = k + u: (a + bu)(k + u) = (ka - b) +
  // (a + kb)u; k a by additions (k = 1: none; k = 9: three doublings and an add).
  PP_HD_INLINE constexpr Fq2 mul_by_xi() const {
    if constexpr (T::kXi == 1) {
      return {c0 - c1, c0 + c1};
    } else {
      static_assert(T::kXi == 9, "mul_by_xi: add the addition chain for this xi");
      const Fq a9 = c0.dbl().dbl().dbl() + c0, b9 = c1.dbl().dbl().dbl() + c1;
      return {a9 - c1, c0 + b9};
    }
  }
  PP_HD_INLINE constexpr Fq2 conj() const { return {c0, -c1}; }
  // Frobenius x -> x^p is conjugation in Fq2.
  PP_HD constexpr Fq2 frobenius() const { return conj(); }

  Fq2& operator+=(const Fq2& b) { return *this = *this + b; }
  Fq2& operator-=(const Fq2& b) { return *this = *this - b; }
  Fq2& operator*=(const Fq2& b) { return *this = *this * b; }

  PP_HD constexpr Fq norm() const { return c0.sqr() + c1.sqr(); }
  // 1/(a + bu) = (a - bu)/(a^2 + b^2); inverse of 0 is 0.
  PP_HD constexpr Fq2 inverse() const {
    Fq t = norm().inverse();
    return {c0 * t, -(c1 * t)};
  }

  template <size_t M>
  PP_HD constexpr Fq2 pow(const Limbs<M>& e) const {
    Fq2 r = one();
    for (unsigned i = limbs_bit_length(e); i-- > 0;) {
      r = r.sqr();
      if (limbs_bit(e, i)) r = r * *this;
    }
    return r;
  }

  // Square root for q = 3 mod 4 (Adj, Rodriguez-Henriquez 2012, Alg. 9).
  // Returns false for a non-square.
  bool sqrt(Fq2* out) const {
    if (is_zero()) {
      *out = zero();
      return true;
    }
    constexpr auto kP = Fq::C::kP;
    static_assert((kP[0] & 3) == 3, "Fq2::sqrt needs q = 3 mod 4");
    constexpr Limbs<Fq::N> kE1 = limbs_shr(limbs_sub_u64(kP, 3), 2);  // (q-3)/4
    constexpr Limbs<Fq::N> kE2 = limbs_shr(limbs_sub_u64(kP, 1), 1);  // (q-1)/2
    Fq2 a1 = pow(kE1);
    Fq2 alpha = a1 * a1 * *this;
    Fq2 x0 = a1 * *this;
    Fq2 minus_one = -one();
    Fq2 cand;
    if (alpha == minus_one) {
      cand = Fq2{Fq::zero(), Fq::one()} * x0;  // u * x0
    } else {
      Fq2 b = (one() + alpha).pow(kE2);
      cand = b * x0;
    }
    if (cand.sqr() != *this) return false;
    *out = cand;
    return true;
  }
};

}  // namespace proofpipe::ff
