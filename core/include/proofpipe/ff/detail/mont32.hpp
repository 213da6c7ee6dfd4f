// Montgomery arithmetic on 32-bit words, written once against a tiny
// "instruction" layer with an explicit carry flag, so that the same algorithm
// runs on the host as emulated C++ (EmuIsa, below: what the host tests check)
// and on the device as inline PTX (PtxIsa in mont_ptx.hpp: one asm statement
// per instruction, the carry in the hardware's CC.CF).
//
// Why 32-bit words: the GPU multiplies 32x32 bits natively (IMAD; IMAD.WIDE
// gives the 64-bit product plus a 64-bit addend in one instruction), and
// 64x64 products are emulated. In the sm_90 code (nvcc 13, counted from the
// cubin) a whole Fr product here is 296 instructions per kernel against 552
// for the portable C++, and an Fq product 432 with 280 IMAD.WIDE, one per
// 32x32 product, and about 50 carry adds: the two-accumulator layout of
// m32_mul below is what lets ptxas fuse each mad.lo.cc/madc.hi.cc pair into
// one IMAD.WIDE (a plain lo-pass/hi-pass CIOS came out at 1248 for Fq).
//
// Layout: the field's 64-bit little-endian limbs, reinterpreted as W = 2N
// little-endian 32-bit words. R = 2^(64N) = 2^(32W) either way, and a
// Montgomery product reduced to [0, p) is unique, so a 32-bit CIOS with
// inv = -p^-1 mod 2^32 (the low half of the 64-bit -p^-1) returns the 64-bit
// code's result bit for bit.
//
// Instruction semantics (the PTX ISA's, which EmuIsa reproduces exactly):
//   mad_lo_cc(a,b,c)  = lo32(a*b) + c        , CF := carry out
//   madc_lo_cc(a,b,c) = lo32(a*b) + c + CF   , CF := carry out
//   mad_hi_cc / madc_hi_cc: the same with hi32(a*b); madc_hi does not write CF
//   add_cc / addc_cc / addc : a + b (+ CF) ; sub_cc / subc_cc / subc: a - b (- CF),
//   CF = borrow for the subtractions. The "c" forms without _cc leave CF alone.
//
// Precondition used throughout: p < 2^(32W - 1) (so 2p < R; both BLS12-381
// moduli have headroom: top words 0x73eda753 and 0x1a0111ea). Inputs in
// [0, p); outputs in [0, p).
#pragma once

#include <cstddef>
#include <cstdint>

#include "proofpipe/hd.hpp"

// Full unrolling on the device keeps every word array in registers (the
// indices become constants); the host compiler decides for itself.
#if defined(__CUDA_ARCH__)
#define PP_M32_UNROLL _Pragma("unroll")
#else
#define PP_M32_UNROLL
#endif

namespace proofpipe::ff::detail {

// The modulus as 32-bit words plus inv = -p^-1 mod 2^32, derived at compile
// time from the 64-bit limbs of K::kP (K = MontConsts<P>).
template <size_t W>
struct Mod32 {
  uint32_t p[W];
  uint32_t inv;
};

template <class K>
constexpr Mod32<2 * K::N> mod32_of() {
  Mod32<2 * K::N> m{};
  for (size_t i = 0; i < K::N; ++i) {
    m.p[2 * i] = uint32_t(K::kP[i]);
    m.p[2 * i + 1] = uint32_t(K::kP[i] >> 32);
  }
  m.inv = uint32_t(K::kInv);  // -p^-1 mod 2^64, reduced mod 2^32
  return m;
}

// Host emulation of the PTX instructions above, carry flag included.
struct EmuIsa {
  uint32_t cf = 0;

  PP_HD_INLINE uint32_t put(uint64_t s) {
    cf = uint32_t(s >> 32);
    return uint32_t(s);
  }
  static PP_HD_INLINE uint64_t lo(uint32_t a, uint32_t b) { return uint32_t(uint64_t(a) * b); }
  static PP_HD_INLINE uint64_t hi(uint32_t a, uint32_t b) { return (uint64_t(a) * b) >> 32; }

  PP_HD_INLINE uint32_t mad_lo_cc(uint32_t a, uint32_t b, uint32_t c) { return put(lo(a, b) + c); }
  PP_HD_INLINE uint32_t madc_lo_cc(uint32_t a, uint32_t b, uint32_t c) { return put(lo(a, b) + c + cf); }
  PP_HD_INLINE uint32_t mad_hi_cc(uint32_t a, uint32_t b, uint32_t c) { return put(hi(a, b) + c); }
  PP_HD_INLINE uint32_t madc_hi_cc(uint32_t a, uint32_t b, uint32_t c) { return put(hi(a, b) + c + cf); }
  PP_HD_INLINE uint32_t madc_hi(uint32_t a, uint32_t b, uint32_t c) { return uint32_t(hi(a, b) + c + cf); }
  PP_HD_INLINE uint32_t add_cc(uint32_t a, uint32_t b) { return put(uint64_t(a) + b); }
  PP_HD_INLINE uint32_t addc_cc(uint32_t a, uint32_t b) { return put(uint64_t(a) + b + cf); }
  PP_HD_INLINE uint32_t addc(uint32_t a, uint32_t b) { return a + b + cf; }
  PP_HD_INLINE uint32_t sub_cc(uint32_t a, uint32_t b) {
    uint64_t d = uint64_t(a) - b;
    cf = uint32_t(d >> 32) & 1;
    return uint32_t(d);
  }
  PP_HD_INLINE uint32_t subc_cc(uint32_t a, uint32_t b) {
    uint64_t d = uint64_t(a) - b - cf;
    cf = uint32_t(d >> 32) & 1;
    return uint32_t(d);
  }
  PP_HD_INLINE uint32_t subc(uint32_t a, uint32_t b) { return a - b - cf; }
};

// ---------------------------------------------------------------------------
// Building blocks. Every loop has a constant trip count and is unrolled on
// the device, so the word arrays live in registers.
// ---------------------------------------------------------------------------

// r = t - p if that does not borrow, else t (t < 2p, so r < p).
template <class Isa, size_t W>
PP_HD_INLINE void m32_final_sub(Isa& isa, uint32_t* r, const uint32_t* t, const Mod32<W>& m) {
  uint32_t s[W];
  s[0] = isa.sub_cc(t[0], m.p[0]);
  PP_M32_UNROLL
  for (size_t j = 1; j < W; ++j) s[j] = isa.subc_cc(t[j], m.p[j]);
  const uint32_t borrow = isa.subc(0, 0);  // 0, or all ones when t < p
  PP_M32_UNROLL
  for (size_t j = 0; j < W; ++j) r[j] = borrow ? t[j] : s[j];
}

// acc[k] += lo(x[k] y), acc[k+1] += hi(x[k] y) for even k < W, on one chain
// starting with no carry in, its carry out added to acc[W]. Caller's promise:
// acc[W] does not overflow.
template <class Isa, size_t W>
PP_HD_INLINE void m32_mac_even(Isa& isa, uint32_t* acc, const uint32_t* x, uint32_t y) {
  acc[0] = isa.mad_lo_cc(x[0], y, acc[0]);
  acc[1] = isa.madc_hi_cc(x[0], y, acc[1]);
  PP_M32_UNROLL
  for (size_t k = 2; k < W; k += 2) {
    acc[k] = isa.madc_lo_cc(x[k], y, acc[k]);
    acc[k + 1] = isa.madc_hi_cc(x[k], y, acc[k + 1]);
  }
  acc[W] = isa.addc(acc[W], 0);
}
// The same for odd k, one word down: acc[k-1] += lo(x[k] y), acc[k] += hi.
template <class Isa, size_t W>
PP_HD_INLINE void m32_mac_odd(Isa& isa, uint32_t* acc, const uint32_t* x, uint32_t y) {
  acc[0] = isa.mad_lo_cc(x[1], y, acc[0]);
  acc[1] = isa.madc_hi_cc(x[1], y, acc[1]);
  PP_M32_UNROLL
  for (size_t k = 3; k < W; k += 2) {
    acc[k - 1] = isa.madc_lo_cc(x[k], y, acc[k - 1]);
    acc[k] = isa.madc_hi_cc(x[k], y, acc[k]);
  }
  acc[W] = isa.addc(acc[W], 0);
}

// The end of one row of m32_mul/m32_sqr: the reduction by m = word 0 of
// the sum (ne[0]) times -p^-1, which zeroes ne[0], then the row's sums
// become the next row's accumulators.
template <class Isa, size_t W>
PP_HD_INLINE void m32_reduce_row(Isa& isa, uint32_t* ne, uint32_t* no, uint32_t* e, uint32_t* o, const Mod32<W>& m) {
  const uint32_t mi = ne[0] * m.inv;
  m32_mac_even<Isa, W>(isa, ne, m.p, mi);  // ne[0] becomes 0
  m32_mac_odd<Isa, W>(isa, no, m.p, mi);
  PP_M32_UNROLL
  for (size_t j = 0; j <= W; ++j) {
    e[j] = ne[j];
    o[j] = no[j];
  }
}

// After the last row: t = e[1..W] + o[0..W-1] < 2p < 2^(32W), then r = t
// or t - p.
template <class Isa, size_t W>
PP_HD_INLINE void m32_finish(Isa& isa, uint32_t* r, const uint32_t* e, const uint32_t* o, const Mod32<W>& m) {
  uint32_t t[W];
  t[0] = isa.add_cc(e[1], o[0]);
  PP_M32_UNROLL
  for (size_t j = 1; j + 1 < W; ++j) t[j] = isa.addc_cc(e[j + 1], o[j]);
  t[W - 1] = isa.addc(e[W], o[W - 1]);
  m32_final_sub(isa, r, t, m);
}

// ---------------------------------------------------------------------------
// Montgomery product r = a * b / 2^(32W) mod p: CIOS, one row per word of b,
// with the running sum split into two accumulators so that every carry chain
// pairs the lo and hi halves of one product in adjacent, pair-aligned words
// (ptxas then issues one IMAD.WIDE per 32x32 product instead of a separate
// lo and hi multiply, each with its own carry add, and needs no register
// moves to re-pair words after the per-row shift):
//   e[0..W]: the even-k products a_k*b_i and p_k*m, at words k, k+1;
//   o[0..W]: the odd-k products, one word down (o[j] is word j+1).
// After a row (multiply, then reduce) the sum is T = e + 2^32 o with e[0] = 0,
// and the CIOS window is t = T / 2^32 = e[1..W] + o[0..W] (both from word 0).
// The next row folds that back into the same shape: the new even
// accumulator starts as o, plus e[1] at word 0 (its carry enters the odd
// chain at word 1); the new odd accumulator takes e[2..W] as the addends of
// the odd products (o'[j] = word j+1 = e[j+2] + ...). Word pairs stay
// aligned, and each accumulator's top word only collects carries (<= 4).
// Bounds as in plain CIOS: t < 2p at the start of every row, t + a*b_i + m*p
// < 2^33 p < 2^(32(W+1)) (p < 2^(32W-1)), t < 2p after the division; the
// final t = e[1..W] + o[0..W-1] (o[W] and the sum's carry are then 0), then
// one conditional subtraction. 4W^2 + W multiplies (lo or hi halves).
// r may alias a or b (the result is written after the last read).
// ---------------------------------------------------------------------------
template <class Isa, size_t W>
PP_HD_INLINE void m32_mul(Isa& isa, uint32_t* r, const uint32_t* a, const uint32_t* b, const Mod32<W>& m) {
  static_assert(W >= 4 && W % 2 == 0, "even word counts of at least 4 (Fr 8, Fq 12)");
  uint32_t e[W + 1], o[W + 1];
  PP_M32_UNROLL
  for (size_t j = 0; j <= W; ++j) e[j] = o[j] = 0;  // t = 0 before row 0
  PP_M32_UNROLL
  for (size_t i = 0; i < W; ++i) {
    const uint32_t bi = b[i];
    uint32_t ne[W + 1], no[W + 1];
    // Word 0 of t (e[1] + o[0]); its carry goes to word 1 = no[0].
    ne[0] = isa.add_cc(o[0], e[1]);
    // Odd products at words k, k+1 = no[k-1], no[k], onto t's e-part there.
    PP_M32_UNROLL
    for (size_t k = 1; k + 2 < W; k += 2) {
      no[k - 1] = isa.madc_lo_cc(a[k], bi, e[k + 1]);
      no[k] = isa.madc_hi_cc(a[k], bi, e[k + 2]);
    }
    // hi(x*y) <= 2^32 - 2, so hi + carry (the top word, addend 0) never
    // carries out: no[W] starts at 0.
    no[W - 2] = isa.madc_lo_cc(a[W - 1], bi, e[W]);
    no[W - 1] = isa.madc_hi(a[W - 1], bi, 0);
    no[W] = 0;
    // Even products at words k, k+1, onto t's o-part there.
    PP_M32_UNROLL
    for (size_t j = 1; j <= W; ++j) ne[j] = o[j];
    m32_mac_even<Isa, W>(isa, ne, a, bi);
    m32_reduce_row<Isa, W>(isa, ne, no, e, o, m);
  }
  m32_finish<Isa, W>(isa, r, e, o, m);
}

// ---------------------------------------------------------------------------
// Montgomery square r = a^2 / 2^(32W) mod p, for p < 2^(32W-2) (Fq: 2^381 <
// 2^382; not Fr, which squares with m32_mul). The product's rows are
// interleaved with the reduction as in m32_mul, on the same two accumulators,
// but row i multiplies a_i by V_i = a_i + 2 * (a_{i+1} .. a_{W-1}) * 2^32 and
// sits i words up in the window (a^2 = sum_i a_i V_i 2^(64i)): W-i products
// instead of W, W(W+1)/2 in all instead of W^2.
// V_i's words are a_i, e_{i+1}, d_{i+2} .. d_{W-1} with e_k = 2 a_k mod 2^32
// and d_k = e_k + (a_{k-1} >> 31) (the words of 2a); 2a < 2^(32W), so none
// is lost. Below row i's first product the odd accumulator is only the
// shifted copy of e plus the carry of word 0 (plain adds).
// Bounds: V_i 2^(32i) < 2a < 2p, so a row adds below 2^33 p to the window
// (the product's row adds below 2^32 p); with m*p < 2^32 p the window stays
// below 4p between rows and below 4p + 3 * 2^32 p < 2^34 p <= 2^(32(W+1))
// within one: that is where p < 2^(32W-2) comes in. The end value is
// (a^2 + M p) / R < p^2/R + p < 2p: one conditional subtraction.
// ---------------------------------------------------------------------------
template <size_t W>
constexpr bool m32_sqr_fits(const Mod32<W>& m) {
  return (m.p[W - 1] >> 30) == 0;
}

template <class Isa, size_t W>
PP_HD_INLINE void m32_sqr(Isa& isa, uint32_t* r, const uint32_t* a, const Mod32<W>& m) {
  static_assert(W >= 4 && W % 2 == 0, "even word counts of at least 4");
  // d[k] = word k of 2a (k >= 1); the e_k words are a[k] << 1.
  uint32_t d[W];
  PP_M32_UNROLL
  for (size_t k = 1; k < W; ++k) d[k] = (a[k] << 1) | (a[k - 1] >> 31);
  uint32_t e[W + 1], o[W + 1];
  PP_M32_UNROLL
  for (size_t j = 0; j <= W; ++j) e[j] = o[j] = 0;
  PP_M32_UNROLL
  for (size_t i = 0; i < W; ++i) {
    const uint32_t ai = a[i];
    // Word q of the window gets a_i * v(q - i) for q >= i, v the words of V_i.
    auto v = [&](size_t k) -> uint32_t { return k == 0 ? ai : k == 1 ? uint32_t(a[i + 1] << 1) : d[i + k]; };
    uint32_t ne[W + 1], no[W + 1];
    ne[0] = isa.add_cc(o[0], e[1]);
    // Odd words q (pairs q, q+1 = no[q-1], no[q]).
    PP_M32_UNROLL
    for (size_t q = 1; q + 2 < W; q += 2) {
      if (q >= i) {
        no[q - 1] = isa.madc_lo_cc(ai, v(q - i), e[q + 1]);
        no[q] = isa.madc_hi_cc(ai, v(q - i), e[q + 2]);
      } else {
        no[q - 1] = isa.addc_cc(e[q + 1], 0);
        no[q] = isa.addc_cc(e[q + 2], 0);
      }
    }
    // The top pair always holds a product (i <= W-1); as in m32_mul its hi
    // half plus a carry cannot carry out.
    no[W - 2] = isa.madc_lo_cc(ai, v(W - 1 - i), e[W]);
    no[W - 1] = isa.madc_hi(ai, v(W - 1 - i), 0);
    no[W] = 0;
    // Even words q >= i, on a chain of their own.
    PP_M32_UNROLL
    for (size_t j = 1; j <= W; ++j) ne[j] = o[j];
    const size_t q0 = i + (i & 1);
    if (q0 + 2 <= W) {
      ne[q0] = isa.mad_lo_cc(ai, v(q0 - i), ne[q0]);
      ne[q0 + 1] = isa.madc_hi_cc(ai, v(q0 - i), ne[q0 + 1]);
      PP_M32_UNROLL
      for (size_t q = q0 + 2; q < W; q += 2) {
        ne[q] = isa.madc_lo_cc(ai, v(q - i), ne[q]);
        ne[q + 1] = isa.madc_hi_cc(ai, v(q - i), ne[q + 1]);
      }
      ne[W] = isa.addc(ne[W], 0);
    }
    m32_reduce_row<Isa, W>(isa, ne, no, e, o, m);
  }
  m32_finish<Isa, W>(isa, r, e, o, m);
}

// r = a + b mod p: a + b < 2p < 2^(32W) (no carry out), then the conditional
// subtraction; branch-free. With m32_sub: 35 instructions for Fq and 23 for Fr
// in the sm_90 code, against about 86 and 48 for the portable 64-bit C++
// (whose subtraction also branches).
template <class Isa, size_t W>
PP_HD_INLINE void m32_add(Isa& isa, uint32_t* r, const uint32_t* a, const uint32_t* b, const Mod32<W>& m) {
  uint32_t t[W];
  t[0] = isa.add_cc(a[0], b[0]);
  PP_M32_UNROLL
  for (size_t j = 1; j + 1 < W; ++j) t[j] = isa.addc_cc(a[j], b[j]);
  t[W - 1] = isa.addc(a[W - 1], b[W - 1]);
  m32_final_sub(isa, r, t, m);
}

// r = a - b mod p: a - b, then p added back under the borrow mask (the add's
// carry out cancels the borrow and is dropped); branch-free.
template <class Isa, size_t W>
PP_HD_INLINE void m32_sub(Isa& isa, uint32_t* r, const uint32_t* a, const uint32_t* b, const Mod32<W>& m) {
  uint32_t t[W];
  t[0] = isa.sub_cc(a[0], b[0]);
  PP_M32_UNROLL
  for (size_t j = 1; j < W; ++j) t[j] = isa.subc_cc(a[j], b[j]);
  const uint32_t mask = isa.subc(0, 0);
  r[0] = isa.add_cc(t[0], m.p[0] & mask);
  PP_M32_UNROLL
  for (size_t j = 1; j + 1 < W; ++j) r[j] = isa.addc_cc(t[j], m.p[j] & mask);
  r[W - 1] = isa.addc(t[W - 1], m.p[W - 1] & mask);
}

// ---------------------------------------------------------------------------
// 64-bit limbs <-> 32-bit words (on the device a register pair split: free).
// ---------------------------------------------------------------------------
template <size_t N>
PP_HD_INLINE void m32_split(uint32_t* w, const uint64_t* l) {
  PP_M32_UNROLL
  for (size_t i = 0; i < N; ++i) {
    w[2 * i] = uint32_t(l[i]);
    w[2 * i + 1] = uint32_t(l[i] >> 32);
  }
}
template <size_t N>
PP_HD_INLINE void m32_join(uint64_t* l, const uint32_t* w) {
  PP_M32_UNROLL
  for (size_t i = 0; i < N; ++i) l[i] = uint64_t(w[2 * i]) | (uint64_t(w[2 * i + 1]) << 32);
}

// Field-limb entry points over any Isa (K = MontConsts<P>, N = K::N limbs).
// r may alias a or b.
template <class K, class Isa>
PP_HD_INLINE void m32_mul_limbs(Isa& isa, uint64_t* r, const uint64_t* a, const uint64_t* b) {
  constexpr size_t N = K::N, W = 2 * N;
  constexpr Mod32<W> m = mod32_of<K>();
  uint32_t x[W], y[W], z[W];
  m32_split<N>(x, a);
  m32_split<N>(y, b);
  m32_mul(isa, z, x, y, m);
  m32_join<N>(r, z);
}
template <class K, class Isa>
PP_HD_INLINE void m32_sqr_limbs(Isa& isa, uint64_t* r, const uint64_t* a) {
  constexpr size_t N = K::N, W = 2 * N;
  constexpr Mod32<W> m = mod32_of<K>();
  uint32_t x[W], z[W];
  m32_split<N>(x, a);
  if constexpr (m32_sqr_fits(m)) {
    m32_sqr(isa, z, x, m);
  } else {
    m32_mul(isa, z, x, x, m);
  }
  m32_join<N>(r, z);
}
template <class K, class Isa>
PP_HD_INLINE void m32_add_limbs(Isa& isa, uint64_t* r, const uint64_t* a, const uint64_t* b) {
  constexpr size_t N = K::N, W = 2 * N;
  constexpr Mod32<W> m = mod32_of<K>();
  uint32_t x[W], y[W], z[W];
  m32_split<N>(x, a);
  m32_split<N>(y, b);
  m32_add(isa, z, x, y, m);
  m32_join<N>(r, z);
}
template <class K, class Isa>
PP_HD_INLINE void m32_sub_limbs(Isa& isa, uint64_t* r, const uint64_t* a, const uint64_t* b) {
  constexpr size_t N = K::N, W = 2 * N;
  constexpr Mod32<W> m = mod32_of<K>();
  uint32_t x[W], y[W], z[W];
  m32_split<N>(x, a);
  m32_split<N>(y, b);
  m32_sub(isa, z, x, y, m);
  m32_join<N>(r, z);
}

// Whether the 32-bit kernels apply to modulus K: p < 2^(32W - 1).
template <class K>
inline constexpr bool kMont32Applies = (K::kP[K::N - 1] >> 63) == 0;

}  // namespace proofpipe::ff::detail
