// Host-side modular inversion by Bernstein-Yang "safegcd" divsteps (D. J.
// Bernstein, B.-Y. Yang, "Fast constant-time gcd computation and modular
// inversion", TCHES 2019), in its variable-time form: runs of even g are
// skipped with one count-trailing-zeros, and up to 6 odd steps that cannot
// swap are done as one g += w*f (the batching P. Wuille describes for
// libsecp256k1's safegcd write-up). Written here from the paper's
// definitions; nothing is copied.
//
// VARIABLE TIME: the branch pattern depends on the input. Fine for the
// prover's own data (MSM batch denominators, batch normalisation): nothing
// inverted here is secret from the prover. Not for constant evaluation or
// device code; Field::inverse() calls this only on the host at run time and
// keeps Fermat (x^(p-2)) everywhere else.
//
// Numbers are held as L signed 62-bit limbs (value = sum v[i] * 2^(62 i),
// limbs 0..L-2 in [0, 2^62), the top limb signed), so a 2x2 matrix of 63-bit
// entries applies to them with 128-bit accumulators and no overflow.
#pragma once

#include <cstddef>
#include <cstdint>

#include "proofpipe/ff/limbs.hpp"

namespace proofpipe::ff::detail {

using i128 = __int128;
inline constexpr int64_t kLimb62Mask = (int64_t(1) << 62) - 1;

// Limbs for a modulus of `bits` bits: the value, a sign bit and one bit of
// slack (|f|, |g| <= p, |d|, |e| < 2p on the way): 7 for Fq (381 bits, 434
// available), 5 for Fr (255 bits, 310 available).
constexpr size_t s62_limbs(unsigned bits) { return (bits + 2 + 61) / 62; }

template <size_t L>
struct S62 {
  int64_t v[L];
};

// Non-negative 64-bit limbs (value < 2^(62L-1)) to signed 62-bit limbs.
template <size_t L, size_t N>
constexpr S62<L> to_s62(const Limbs<N>& a) {
  S62<L> r{};
  for (size_t i = 0; i < L; ++i) {
    const size_t off = 62 * i, w = off / 64, sh = off % 64;
    uint64_t x = w < N ? a[w] >> sh : 0;
    if (sh > 2 && w + 1 < N) x |= a[w + 1] << (64 - sh);
    r.v[i] = int64_t(x & uint64_t(kLimb62Mask));
  }
  return r;
}

// Signed 62-bit limbs of a value in [0, 2^(64N)) to 64-bit limbs.
template <size_t N, size_t L>
constexpr Limbs<N> from_s62(const S62<L>& a) {
  Limbs<N> r{};
  for (size_t i = 0; i < L; ++i) {
    const size_t off = 62 * i, w = off / 64, sh = off % 64;
    const uint64_t x = uint64_t(a.v[i]);
    if (w < N) r[w] |= x << sh;
    if (sh > 2 && w + 1 < N) r[w + 1] |= x >> (64 - sh);
  }
  return r;
}

// The constants one modulus needs: p and R^2 mod p in signed 62-bit limbs,
// and p^-1 mod 2^62 (to make a sum divisible by 2^62 by adding m*p).
template <class C>
struct SafegcdConsts {
  static constexpr size_t L = s62_limbs(C::kBits);
  static constexpr S62<L> kP = to_s62<L>(C::kP);
  static constexpr S62<L> kR2 = to_s62<L>(C::kR2);
  static constexpr uint64_t kPInv = uint64_t(0) - neg_inv64(C::kP[0]);  // p^-1 mod 2^64
  // Divsteps that suffice for any input < p: (49 d + 57) / 17 for d >= 46
  // bits (the paper's Theorem 11.2), in batches of 62, plus one to spare:
  // 19 for Fq (1102 divsteps), 13 for Fr (739). Never reached in practice:
  // random Fq inputs take 13 batches on average, 14 at most in 10^4.
  static constexpr int kMaxBatches = int((49 * C::kBits + 57) / 17 / 62 + 2);
};

// 2^62 * (f', g') = (u f + v g, q f + r g) after 62 divsteps.
struct Divsteps62 {
  int64_t u, v, q, r;
};

// 62 divsteps on the low 62 bits of f (odd) and g; eta = -delta of the
// paper. Returns the new eta. Each step is one of
//   g even:           g = g / 2,           eta = eta - 1
//   g odd, eta >= 0:  g = (g + f) / 2,     eta = eta - 1
//   g odd, eta < 0:   (f, g) = (g, (g - f) / 2), eta = -eta - 1
// |u| + |v| <= 2^62 and |q| + |r| <= 2^62 throughout (each step doubles a
// row or adds the rows), so the entries fit in int64.
inline int64_t divsteps_62(int64_t eta, uint64_t f, uint64_t g, Divsteps62* t) {
  int64_t u = 1, v = 0, q = 0, r = 1;
  int left = 62;
  for (;;) {
    // A run of halvings at once, at most `left` (the OR caps the count).
    const int z = __builtin_ctzll(g | (~uint64_t(0) << left));
    g >>= z;
    u *= int64_t(1) << z;  // multiply: u may be negative
    v *= int64_t(1) << z;
    eta -= z;
    left -= z;
    if (left == 0) break;
    // g is odd here.
    if (eta < 0) {  // the swapping step: (f, g) = (g, -f), then add as below
      eta = -eta;
      const uint64_t tf = f;
      f = g;
      g = uint64_t(0) - tf;
      const int64_t tu = u, tv = v;
      u = q;
      v = r;
      q = -tu;
      r = -tv;
    }
    // With eta >= 0 the next min(eta + 1, left) steps cannot swap: each adds
    // f or nothing and halves, i.e. g += w*f for the w < 2^m that clears
    // the m low bits of g. Capped at m = 6 so that w = -g/f mod 64 comes
    // from one Newton step (f*f = 1 mod 8 for odd f, so f is its own
    // inverse mod 8, and f*(2 - f*f) is the inverse mod 64).
    int m = int(eta) + 1 < left ? int(eta) + 1 : left;
    if (m > 6) m = 6;
    const uint64_t f_inv = f * (2 - f * f);
    const uint64_t w = (uint64_t(0) - g * f_inv) & ((uint64_t(1) << m) - 1);
    g += w * f;
    q += int64_t(w) * u;  // |w u| < 2^m * 2^(62-left) <= 2^62
    r += int64_t(w) * v;
  }
  *t = {u, v, q, r};
  return eta;
}

// a = sign * a + k * p (sign = +-1, k = 0 or 1), limbs renormalised.
template <size_t L>
inline void signed_add_modulus(S62<L>& a, int64_t sign, int64_t k, const S62<L>& p) {
  int64_t c = 0;
  for (size_t j = 0; j + 1 < L; ++j) {
    c += sign * a.v[j] + k * p.v[j];  // |c| < 2^63: both limbs < 2^62, |c| <= 1 before
    a.v[j] = c & kLimb62Mask;
    c >>= 62;
  }
  a.v[L - 1] = sign * a.v[L - 1] + k * p.v[L - 1] + c;
}

// (x, y) = (u x + v y, q x + r y) / 2^62 on the first len limbs.
//  - kModP = false, for (f, g): exact, the divsteps cleared the 62 low bits;
//    |f'|, |g'| <= max(|f|, |g|), and len shrinks as they do.
//  - kModP = true, for (d, e), all L limbs: division by 2^62 mod p, adding
//    the multiple m*p, m in (-2^62, 0], that clears the low 62 bits. With
//    |d|, |e| < p and |u| + |v| <= 2^62 the quotient lies in (-2p, p), and
//    one conditional add of p brings it back to (-p, p).
// Per limb at most three products < 2^124 each: no i128 overflow.
template <bool kModP, size_t L>
inline void apply_divsteps(S62<L>& x, S62<L>& y, size_t len, const Divsteps62& t, const S62<L>& p, uint64_t p_inv) {
  i128 cx = i128(t.u) * x.v[0] + i128(t.v) * y.v[0];
  i128 cy = i128(t.q) * x.v[0] + i128(t.r) * y.v[0];
  int64_t mx = 0, my = 0;
  if constexpr (kModP) {
    mx = -int64_t((uint64_t(cx) * p_inv) & uint64_t(kLimb62Mask));
    my = -int64_t((uint64_t(cy) * p_inv) & uint64_t(kLimb62Mask));
    cx += i128(mx) * p.v[0];
    cy += i128(my) * p.v[0];
  }
  cx >>= 62;
  cy >>= 62;
  for (size_t j = 1; j < len; ++j) {
    cx += i128(t.u) * x.v[j] + i128(t.v) * y.v[j];
    cy += i128(t.q) * x.v[j] + i128(t.r) * y.v[j];
    if constexpr (kModP) {
      cx += i128(mx) * p.v[j];
      cy += i128(my) * p.v[j];
    }
    x.v[j - 1] = int64_t(cx) & kLimb62Mask;
    y.v[j - 1] = int64_t(cy) & kLimb62Mask;
    cx >>= 62;
    cy >>= 62;
  }
  x.v[len - 1] = int64_t(cx);
  y.v[len - 1] = int64_t(cy);
  if constexpr (kModP) {
    if (x.v[L - 1] < 0) signed_add_modulus(x, 1, 1, p);
    if (y.v[L - 1] < 0) signed_add_modulus(y, 1, 1, p);
  }
}

// Montgomery in, Montgomery out: for a = xR mod p returns x^-1 R mod p, the
// same limbs as Fermat's a^(p-2) under Montgomery multiplication; 0 -> 0.
// Starts from e = R^2 instead of 1: the invariants f = d a / R^2 and
// g = e a / R^2 (mod p) end with +-1 = d a / R^2, so d = +-R^2 / (xR) =
// +-x^-1 R and no fix-up multiplication is needed.
template <class C>
Limbs<C::N> inverse_mont_vartime(const Limbs<C::N>& a) {
  using K = SafegcdConsts<C>;
  constexpr size_t L = K::L;
  if (limbs_is_zero(a)) return a;
  S62<L> f = K::kP, g = to_s62<L>(a);
  S62<L> d{}, e = K::kR2;
  int64_t eta = -1;  // delta = 1
  size_t len = L;
  for (int batch = 0; batch < K::kMaxBatches; ++batch) {
    Divsteps62 t;
    eta = divsteps_62(eta, uint64_t(f.v[0]), uint64_t(g.v[0]), &t);
    apply_divsteps<true>(d, e, L, t, K::kP, K::kPInv);
    apply_divsteps<false>(f, g, len, t, K::kP, K::kPInv);
    int64_t any = 0;
    for (size_t j = 0; j < len; ++j) any |= g.v[j];
    if (any == 0) break;
    // Both top limbs only sign (0 or -1): fold them into the limb below,
    // which then carries the sign; the numbers shrink as the gcd proceeds.
    const int64_t fn = f.v[len - 1], gn = g.v[len - 1];
    if (len > 1 && ((fn ^ (fn >> 63)) | (gn ^ (gn >> 63))) == 0) {
      f.v[len - 2] = int64_t(uint64_t(f.v[len - 2]) | (uint64_t(fn) << 62));
      g.v[len - 2] = int64_t(uint64_t(g.v[len - 2]) | (uint64_t(gn) << 62));
      --len;
    }
  }
  // g = 0, so f = +-gcd(p, a) = +-1 (p prime, 0 < a < p), and the inverse
  // is f*d, with d in (-p, p) and not 0: one pass makes it f*d (+ p when
  // that is negative), in [0, p).
  const bool f_neg = f.v[len - 1] < 0, d_neg = d.v[L - 1] < 0;
  signed_add_modulus(d, f_neg ? -1 : 1, f_neg != d_neg ? 1 : 0, K::kP);
  return from_s62<C::N>(d);
}

}  // namespace proofpipe::ff::detail
