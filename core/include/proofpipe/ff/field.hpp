// Montgomery prime field over N little-endian 64-bit limbs: the one field
// template behind BLS12-381's Fq (381-bit, 6 limbs) and Fr (255-bit, 4
// limbs), and BN254's Fq and Fr (254-bit, 4 limbs each).
//
// Representation: always Montgomery form in memory (x*R mod p, R = 2^(64N)),
// fully reduced to [0, p). This is the zkey's own point layout, so points are
// used straight from an mmap. Canonical values appear only at the edges
// (bytes, witness scalars, JSON), through from_canonical/to_canonical.
//
// Multiplication is CIOS (Koc, Acar, Kaliski 1996) with the "no-carry"
// shortcut, valid when the top limb of p is below 2^63 - 1 (all four
// moduli are: 0x1a01.. and 0x73ed.. for BLS12-381, 0x3064.. for BN254): the running sum then never needs an
// N+1-th word. Not constant-time in the final subtraction; proving keys and
// witnesses are not secret from the prover itself.
//
// On x86-64 CPUs with BMI2 and ADX (chosen at run time; at compile time in a
// PP_NATIVE build), *, sqr(), + and - run the inline-asm kernels of
// detail/mont_x86.hpp (mulx with adcx/adox carry chains, branch-free add/sub;
// same results bit for bit). The
// C++ below stays the path for constant evaluation, device code built with
// PP_CUDA_NO_PTX and other hosts, and is reachable as mul_portable,
// add_portable and sub_portable.
//
// In nvcc device code, *, sqr(), + and - run the 32-bit PTX carry-chain
// kernels of detail/mont_ptx.hpp for Fr and Fq (same results bit for bit; the
// GPU has native 32-bit multiply-add with carry, 64-bit products are
// emulated; sm_90 instruction counts there). Defining PP_CUDA_NO_PTX keeps
// the portable C++ on the device.
#pragma once

#include <cstdint>
#include <cstring>
#include <type_traits>

#include "proofpipe/ff/detail/inverse.hpp"
#include "proofpipe/ff/detail/mont_ptx.hpp"
#include "proofpipe/ff/detail/mont_x86.hpp"
#include "proofpipe/ff/limbs.hpp"
#include "proofpipe/hd.hpp"

namespace proofpipe::ff {

// Compile-time constants derived from P::kModulus (P supplies kLimbs, kModulus).
template <class P>
struct MontConsts {
  static constexpr size_t N = P::kLimbs;
  static constexpr Limbs<N> kP = P::kModulus;
  static constexpr uint64_t kInv = neg_inv64(kP[0]);          // -p^-1 mod 2^64
  static constexpr Limbs<N> kR = pow2_mod<N>(64 * N, kP);     // R mod p (Montgomery 1)
  static constexpr Limbs<N> kR2 = pow2_mod<N>(128 * N, kP);   // R^2 mod p
  static constexpr Limbs<N> kPMinus2 = limbs_sub_u64(kP, 2);  // Fermat inverse exponent
  static constexpr unsigned kBits = limbs_bit_length(kP);
  static_assert(kP[N - 1] < 0x7fffffffffffffffULL, "no-carry CIOS needs the top limb of p below 2^63-1");
  static_assert((kP[0] & 1) == 1, "modulus must be odd");
};

template <class P>
struct Field {
  static constexpr size_t N = P::kLimbs;
  using C = MontConsts<P>;
  using Params = P;
  using Repr = Limbs<N>;
  static constexpr size_t kBytes = 8 * N;

  uint64_t l[N];

  // Whether *, sqr, +, - run the x86-64 BMI2/ADX kernels (detail/mont_x86.hpp)
  // in host code of this translation unit on this CPU; otherwise the portable
  // C++ below.
  static bool host_asm() {
#if defined(PP_FF_HAVE_MONT_X86)
    return (N == 4 || N == 6) && detail::x86_kernels_enabled();
#else
    return false;
#endif
  }

  // ----- construction -----
  PP_HD static constexpr Field from_mont(const Repr& r) {
    Field f{};
    for (size_t i = 0; i < N; ++i) f.l[i] = r[i];
    return f;
  }
  PP_HD static constexpr Field zero() { return Field{}; }
  PP_HD static constexpr Field one() { return from_mont(C::kR); }
  // Canonical limbs (< p, caller's promise) to Montgomery form.
  PP_HD static constexpr Field from_canonical(const Repr& v) { return from_mont(v) * from_mont(C::kR2); }
  PP_HD static constexpr Field from_u64(uint64_t v) {
    Repr r{};
    r[0] = v;
    return from_canonical(r);
  }
  PP_HD constexpr Repr to_canonical() const {
    Field one_raw{};
    one_raw.l[0] = 1;
    Field t = *this * one_raw;
    Repr r{};
    for (size_t i = 0; i < N; ++i) r[i] = t.l[i];
    return r;
  }
  PP_HD constexpr Repr mont() const {
    Repr r{};
    for (size_t i = 0; i < N; ++i) r[i] = l[i];
    return r;
  }

  // Canonical little-endian bytes (kBytes). from_bytes rejects values >= p.
  void to_bytes(uint8_t* out) const {
    Repr r = to_canonical();
    std::memcpy(out, r.data(), kBytes);  // host is little-endian (x86-64, aarch64)
  }
  static bool from_bytes(const uint8_t* in, Field* out) {
    Repr r{};
    std::memcpy(r.data(), in, kBytes);
    if (limbs_geq(r, C::kP)) return false;
    *out = from_canonical(r);
    return true;
  }

  // Uniform random element from any 64-bit URBG (rejection sampling on the
  // bit length of p; the Montgomery image of a uniform value is uniform).
  template <class Rng>
  static Field random(Rng& rng) {
    for (;;) {
      Repr r{};
      for (size_t i = 0; i < N; ++i) r[i] = rng();
      unsigned top = C::kBits % 64;
      if (top) r[N - 1] &= (uint64_t(1) << top) - 1;
      if (!limbs_geq(r, C::kP)) return from_mont(r);
    }
  }

  // ----- predicates -----
  PP_HD constexpr bool is_zero() const {
    uint64_t acc = 0;
    for (size_t i = 0; i < N; ++i) acc |= l[i];
    return acc == 0;
  }
  PP_HD constexpr bool is_one() const { return *this == one(); }
  PP_HD constexpr bool operator==(const Field& o) const {
    uint64_t acc = 0;
    for (size_t i = 0; i < N; ++i) acc |= l[i] ^ o.l[i];
    return acc == 0;
  }
  PP_HD constexpr bool operator!=(const Field& o) const { return !(*this == o); }

  // ----- arithmetic -----
  PP_HD_INLINE constexpr Field operator+(const Field& b) const {
#if defined(PP_FF_HAVE_MONT_X86)
    if (!std::is_constant_evaluated() && detail::x86_kernels_enabled()) {
      if constexpr (N == 6) {
        Field r;
        detail::mod_add_6<C>(r.l, l, b.l);
        return r;
      } else if constexpr (N == 4) {
        Field r;
        detail::mod_add_4<C>(r.l, l, b.l);
        return r;
      }
    }
#endif
#if defined(__CUDA_ARCH__) && !defined(PP_CUDA_NO_PTX)
    if (!std::is_constant_evaluated()) {
      if constexpr (detail::kPtxApplies<C>) {
        Field r;
        detail::ptx_add<C>(r.l, l, b.l);
        return r;
      }
    }
#endif
    return add_portable(b);
  }
  PP_HD_INLINE constexpr Field operator-(const Field& b) const {
#if defined(PP_FF_HAVE_MONT_X86)
    if (!std::is_constant_evaluated() && detail::x86_kernels_enabled()) {
      if constexpr (N == 6) {
        Field r;
        detail::mod_sub_6<C>(r.l, l, b.l);
        return r;
      } else if constexpr (N == 4) {
        Field r;
        detail::mod_sub_4<C>(r.l, l, b.l);
        return r;
      }
    }
#endif
#if defined(__CUDA_ARCH__) && !defined(PP_CUDA_NO_PTX)
    if (!std::is_constant_evaluated()) {
      if constexpr (detail::kPtxApplies<C>) {
        Field r;
        detail::ptx_sub<C>(r.l, l, b.l);
        return r;
      }
    }
#endif
    return sub_portable(b);
  }

  // Portable add/sub: constant evaluation, device code built with
  // PP_CUDA_NO_PTX, other hosts; the reference for the asm and PTX kernels.
  PP_HD_INLINE constexpr Field add_portable(const Field& b) const {
    // p < 2^(64N-1), so a + b < 2^(64N): no carry out of the top limb.
    Field r;
    u128 c = 0;
    for (size_t i = 0; i < N; ++i) {
      c += u128(l[i]) + b.l[i];
      r.l[i] = uint64_t(c);
      c >>= 64;
    }
    r.reduce_once();
    return r;
  }
  PP_HD_INLINE constexpr Field sub_portable(const Field& b) const {
    Field r;
    uint64_t borrow = 0;
    for (size_t i = 0; i < N; ++i) {
      u128 t = u128(l[i]) - b.l[i] - borrow;
      r.l[i] = uint64_t(t);
      borrow = uint64_t(t >> 64) & 1;
    }
    if (borrow) {
      constexpr Repr kp = C::kP;
      u128 c = 0;
      for (size_t i = 0; i < N; ++i) {
        c += u128(r.l[i]) + kp[i];
        r.l[i] = uint64_t(c);
        c >>= 64;
      }
    }
    return r;
  }
  PP_HD_INLINE constexpr Field operator-() const { return is_zero() ? *this : from_mont(C::kP) - *this; }
  PP_HD_INLINE constexpr Field dbl() const { return *this + *this; }

  PP_HD_INLINE constexpr Field operator*(const Field& b) const {
#if defined(PP_FF_HAVE_MONT_X86)
    if (!std::is_constant_evaluated() && detail::x86_kernels_enabled()) {
      if constexpr (N == 6) {
        Field r;
        detail::mont_mul_6<C>(r.l, l, b.l);
        return r;
      } else if constexpr (N == 4) {
        Field r;
        detail::mont_mul_4<C>(r.l, l, b.l);
        return r;
      }
    }
#endif
#if defined(__CUDA_ARCH__) && !defined(PP_CUDA_NO_PTX)
    if (!std::is_constant_evaluated()) {
      if constexpr (detail::kPtxApplies<C>) {
        Field r;
        detail::ptx_mul<C>(r.l, l, b.l);
        return r;
      }
    }
#endif
    return mul_portable(b);
  }

  // The portable CIOS product: the path in constant evaluation, non-x86 hosts
  // and device code built with PP_CUDA_NO_PTX, and the reference the asm and
  // PTX kernels are tested against.
  PP_HD_INLINE constexpr Field mul_portable(const Field& b) const {
    // Local constexpr copies: device code may not read a host static member.
    constexpr Repr kp = C::kP;
    constexpr uint64_t kinv = C::kInv;
    uint64_t t[N] = {};
    for (size_t i = 0; i < N; ++i) {
      u128 s = u128(t[0]) + u128(l[0]) * b.l[i];
      t[0] = uint64_t(s);
      uint64_t A = uint64_t(s >> 64);
      uint64_t m = t[0] * kinv;
      u128 s2 = u128(t[0]) + u128(m) * kp[0];
      uint64_t Cc = uint64_t(s2 >> 64);
      for (size_t j = 1; j < N; ++j) {
        s = u128(t[j]) + u128(l[j]) * b.l[i] + A;
        A = uint64_t(s >> 64);
        s2 = u128(uint64_t(s)) + u128(m) * kp[j] + Cc;
        Cc = uint64_t(s2 >> 64);
        t[j - 1] = uint64_t(s2);
      }
      t[N - 1] = Cc + A;
    }
    Field r;
    for (size_t i = 0; i < N; ++i) r.l[i] = t[i];
    r.reduce_once();
    return r;
  }
  PP_HD_INLINE constexpr Field sqr() const {
#if defined(PP_FF_HAVE_MONT_X86)
    if (!std::is_constant_evaluated() && detail::x86_kernels_enabled()) {
      if constexpr (detail::kSqr6Applies<C>) {
        Field r;
        detail::mont_sqr_6<C>(r.l, l);
        return r;
      }
    }
#endif
#if defined(__CUDA_ARCH__) && !defined(PP_CUDA_NO_PTX)
    if (!std::is_constant_evaluated()) {
      if constexpr (detail::kPtxApplies<C>) {
        Field r;
        detail::ptx_sqr<C>(r.l, l);
        return r;
      }
    }
#endif
    return *this * *this;
  }

  Field& operator+=(const Field& b) { return *this = *this + b; }
  Field& operator-=(const Field& b) { return *this = *this - b; }
  Field& operator*=(const Field& b) { return *this = *this * b; }

  // x^e for a canonical exponent of any limb count (left-to-right binary).
  template <size_t M>
  PP_HD constexpr Field pow(const Limbs<M>& e) const {
    Field r = one();
    for (unsigned i = limbs_bit_length(e); i-- > 0;) {
      r = r.sqr();
      if (limbs_bit(e, i)) r = r * *this;
    }
    return r;
  }
  PP_HD constexpr Field pow_u64(uint64_t e) const { return pow(Limbs<1>{e}); }

  // Multiplicative inverse; inverse of 0 is 0. On the host at run time,
  // variable-time safegcd (detail/inverse.hpp; bench fq_inverse against
  // fq_inverse_fermat in one run: Fq 1.8 vs 18 us, Fr 1.1 vs 8.7 us); in
  // device code and constant evaluation, Fermat. Both give the same limbs.
  PP_HD constexpr Field inverse() const {
#if !defined(__CUDA_ARCH__)
    if (!std::is_constant_evaluated()) return from_mont(detail::inverse_mont_vartime<C>(mont()));
#endif
    return inverse_fermat();
  }
  // Fermat: x^(p-2), ~381 S + ~190 M for Fq. The device and constant-
  // evaluation path, and the reference the host inversion is tested against.
  PP_HD constexpr Field inverse_fermat() const { return pow(C::kPMinus2); }

  // Square root when p = 3 mod 4 (true for Fq): x^((p+1)/4), checked.
  // Returns false when x is not a square.
  PP_HD constexpr bool sqrt(Field* out) const {
    static_assert((C::kP[0] & 3) == 3, "sqrt implemented for p = 3 mod 4 only");
    constexpr Repr kExp = [] {
      Repr e = C::kP;
      Repr one_l{};
      one_l[0] = 1;
      limbs_add(e, one_l);
      return limbs_shr(e, 2);
    }();
    Field s = pow(kExp);
    if (s.sqr() != *this) return false;
    *out = s;
    return true;
  }

  // Legendre-based test: 1 for a non-zero square, 0 for zero, -1 otherwise.
  PP_HD constexpr int legendre() const {
    if (is_zero()) return 0;
    constexpr Repr kHalf = limbs_shr(limbs_sub_u64(C::kP, 1), 1);
    return pow(kHalf).is_one() ? 1 : -1;
  }

 private:
  PP_HD_INLINE constexpr void reduce_once() {
    constexpr Repr kp = C::kP;
    uint64_t t[N];
    uint64_t borrow = 0;
    for (size_t i = 0; i < N; ++i) {
      u128 d = u128(l[i]) - kp[i] - borrow;
      t[i] = uint64_t(d);
      borrow = uint64_t(d >> 64) & 1;
    }
    if (!borrow) {
      for (size_t i = 0; i < N; ++i) l[i] = t[i];
    }
  }
};

}  // namespace proofpipe::ff
