// Field8<P>: eight independent elements of the prime field P in one set of
// AVX-512 registers, radix 2^52 (vpmadd52luq / vpmadd52huq), structure of
// arrays: v[k] holds 52-bit limb k of all eight lanes. The representation and
// the conversions to and from ff::Field are described in radix52.hpp.
//
// Every function carries the target attribute, so this header compiles in a
// baseline x86-64 translation unit; calling into it is only allowed after
// ifma::simd_path() (dispatch.hpp) said IFMA, or the process dies of SIGILL.
// Kernels are always_inline so that a caller marked PP_IFMA_TARGET keeps the
// limbs in registers; callers without the attribute go through Pack (memory)
// and the out-of-line wrappers at the bottom.
//
// Invariant between operations: every limb < 2^52, value in [0, 2p). IFMA
// reads only the low 52 bits of its multiplicands, so a limb above 2^52 would
// be silently truncated; the product's 64-bit accumulators hold the
// un-normalised column sums (at most ~6L terms below 2^52 each, < 2^58 for
// L = 8) and are normalised once at the end.
#pragma once

#include "proofpipe/ff/ifma/dispatch.hpp"
#if defined(PP_IFMA_COMPILED)

#include <immintrin.h>

#include <cstddef>
#include <cstdint>

#include "proofpipe/ff/field.hpp"
#include "proofpipe/ff/ifma/radix52.hpp"

#define PP_IFMA_TARGET __attribute__((target("avx512f,avx512vl,avx512ifma")))
#define PP_IFMA_INLINE PP_IFMA_TARGET __attribute__((always_inline)) inline

namespace proofpipe::ff::ifma {

template <class P>
struct Field8 {
  using K = Radix52<P>;
  using F = Field<P>;
  static constexpr size_t L = K::L;
  static constexpr size_t N = K::N;
  // What the lane kernels generic over the lane type (batch_affine.hpp) ask
  // of it beyond the arithmetic; Fq2x8 (fq2x8.hpp) answers the same for Fq2.
  using Base = Field8;  // the prime-field lanes: the type of constants
  // A scalar element times a base-field one, Montgomery R64 (ff::Field's product).
  static F scale(const F& a, const F& f) { return a * f; }

  __m512i v[L];

  PP_IFMA_INLINE static __m512i bc(uint64_t x) { return _mm512_set1_epi64(static_cast<long long>(x)); }
  // Shifts through the zero-masking forms: GCC 12's plain _mm512_srli_epi64
  // and friends trip -Wuninitialized at -O3 on their internal
  // _mm512_undefined_epi32() (fixed in GCC 13); the instruction is the same.
  PP_IFMA_INLINE static __m512i shr(__m512i x, unsigned s) { return _mm512_maskz_srli_epi64(0xff, x, s); }
  PP_IFMA_INLINE static __m512i sar(__m512i x, unsigned s) { return _mm512_maskz_srai_epi64(0xff, x, s); }
  PP_IFMA_INLINE static __m512i shl(__m512i x, unsigned s) { return _mm512_maskz_slli_epi64(0xff, x, s); }
  PP_IFMA_INLINE static Field8 constant(const std::array<uint64_t, L>& c) {
    Field8 r;
    for (size_t k = 0; k < L; ++k) r.v[k] = bc(c[k]);
    return r;
  }
  PP_IFMA_INLINE static Field8 zero() {
    Field8 r;
    for (size_t k = 0; k < L; ++k) r.v[k] = _mm512_setzero_si512();
    return r;
  }
  PP_IFMA_INLINE static Field8 one() { return constant(K::kOne); }

  PP_IFMA_INLINE static Field8 load(const Pack<P>& p) {
    Field8 r;
    for (size_t k = 0; k < L; ++k) r.v[k] = _mm512_load_si512(p.limb[k]);
    return r;
  }
  PP_IFMA_INLINE void store(Pack<P>& p) const {
    for (size_t k = 0; k < L; ++k) _mm512_store_si512(p.limb[k], v[k]);
  }

  // ----- add / sub -----
  // x - q if x >= q else x; x normalised and < 2q, q a constant below 2^(52L).
  PP_IFMA_INLINE static Field8 sub_if_geq(const Field8& x, const std::array<uint64_t, L>& q) {
    const __m512i m52 = bc(kMask52);
    Field8 d;
    __m512i borrow = _mm512_setzero_si512();
    for (size_t k = 0; k < L; ++k) {
      __m512i t = _mm512_add_epi64(_mm512_sub_epi64(x.v[k], bc(q[k])), borrow);
      borrow = sar(t, 52);  // 0 or -1
      d.v[k] = _mm512_and_si512(t, m52);
    }
    const __mmask8 keep = _mm512_cmplt_epi64_mask(borrow, _mm512_setzero_si512());
    for (size_t k = 0; k < L; ++k) d.v[k] = _mm512_mask_blend_epi64(keep, d.v[k], x.v[k]);
    return d;
  }
  // Signed carry propagation: limbs may be negative or above 2^52, the value
  // is non-negative and below 2^(52L).
  PP_IFMA_INLINE static void carry_signed(Field8& t) {
    const __m512i m52 = bc(kMask52);
    for (size_t k = 0; k + 1 < L; ++k) {
      t.v[k + 1] = _mm512_add_epi64(t.v[k + 1], sar(t.v[k], 52));
      t.v[k] = _mm512_and_si512(t.v[k], m52);
    }
  }
  PP_IFMA_INLINE Field8 operator+(const Field8& b) const {
    Field8 s;
    for (size_t k = 0; k < L; ++k) s.v[k] = _mm512_add_epi64(v[k], b.v[k]);
    carry_signed(s);  // a + b < 4p < 2^(52L)
    return sub_if_geq(s, K::k2P);
  }
  PP_IFMA_INLINE Field8 operator-(const Field8& b) const {
    Field8 s;  // a + 2p - b in (0, 4p): never negative, no borrow out
    for (size_t k = 0; k < L; ++k) s.v[k] = _mm512_sub_epi64(_mm512_add_epi64(v[k], bc(K::k2P[k])), b.v[k]);
    carry_signed(s);
    return sub_if_geq(s, K::k2P);
  }

  // 2p - x, in (0, 2p]: -x without the final subtraction, for use as a
  // multiplicand of sum_of_products only (its bound allows 2p itself).
  PP_IFMA_INLINE Field8 neg_lazy() const {
    Field8 s;
    for (size_t k = 0; k < L; ++k) s.v[k] = _mm512_sub_epi64(bc(K::k2P[k]), v[k]);
    carry_signed(s);
    return s;
  }

  // ----- Montgomery product, operand scanning -----
  // REDC52(sum_k a[k] * b[k]): M products under one reduction (M = 1 is the
  // product; Fq2's coordinates are sums of M = 2, fq2x8.hpp). Per limb i:
  // t += sum_k a_k*b_k,i; m = t0 * (-p^-1) mod 2^52; t += m*p; t >>= 52.
  // M(2L^2) + 2L^2 + L IFMA instructions (105 for L = 5, 264 for L = 8 at
  // M = 1), no carries propagated inside the loop: only t0's spill into t1
  // is needed for the shift to be exact. With a_k < 2p and b_k <= 2p the
  // result is below (4Mp^2 + R52*p) / R52 <= 2p as long as 4Mp <= R52
  // (asserted); a column collects at most (2M + 2)L terms below 2^52
  // (48 for M = 2, L = 8), far from overflowing 64 bits.
  template <size_t M>
  PP_IFMA_INLINE static Field8 sum_of_products(const std::array<const Field8*, M>& a,
                                               const std::array<const Field8*, M>& b) {
    static_assert(K::C::kBits + 2 + (M > 1) + (M > 2) <= 52 * L && M <= 4, "4Mp <= R52: the result stays below 2p");
    __m512i t[L + 1];
    for (size_t k = 0; k <= L; ++k) t[k] = _mm512_setzero_si512();
    for (size_t i = 0; i < L; ++i) {
      for (size_t k = 0; k < M; ++k) {
        const __m512i bi = b[k]->v[i];
        for (size_t j = 0; j < L; ++j) t[j] = _mm512_madd52lo_epu64(t[j], a[k]->v[j], bi);
        for (size_t j = 0; j < L; ++j) t[j + 1] = _mm512_madd52hi_epu64(t[j + 1], a[k]->v[j], bi);
      }
      const __m512i m = _mm512_madd52lo_epu64(_mm512_setzero_si512(), t[0], bc(K::kInv));
      for (size_t j = 0; j < L; ++j) t[j] = _mm512_madd52lo_epu64(t[j], m, bc(K::kP[j]));
      for (size_t j = 0; j < L; ++j) t[j + 1] = _mm512_madd52hi_epu64(t[j + 1], m, bc(K::kP[j]));
      t[1] = _mm512_add_epi64(t[1], shr(t[0], 52));  // t0's low 52 bits are 0 now
      for (size_t j = 0; j < L; ++j) t[j] = t[j + 1];
      t[L] = _mm512_setzero_si512();
    }
    Field8 r;
    for (size_t k = 0; k < L; ++k) r.v[k] = t[k];
    carry_signed(r);  // all columns are non-negative: the signed shift is a plain one here
    return r;
  }
  PP_IFMA_INLINE Field8 operator*(const Field8& b) const { return sum_of_products<1>({this}, {&b}); }

  // Squaring: the 2L-column product with each cross term once, doubled, plus
  // the diagonal, then the same reduction: L^2 + L + 2L^2 + L IFMAs (85 for
  // L = 5, 208 for L = 8) instead of 4L^2 + L.
  // For L = 8 the 2L = 16 column accumulators plus the operand spill to the
  // stack (38 stack accesses in GCC 12's code) and the general product is
  // faster: 105 vs 85 M elements/s on one Zen 5 core (bench/ifma_bench), while
  // for L = 5 the squaring wins, 318 vs 257 M/s.
  PP_IFMA_INLINE Field8 sqr() const {
    if constexpr (L > 6) return *this * *this;
    __m512i t[2 * L];
    for (size_t k = 0; k < 2 * L; ++k) t[k] = _mm512_setzero_si512();
    for (size_t i = 0; i < L; ++i)
      for (size_t j = i + 1; j < L; ++j) {
        t[i + j] = _mm512_madd52lo_epu64(t[i + j], v[i], v[j]);
        t[i + j + 1] = _mm512_madd52hi_epu64(t[i + j + 1], v[i], v[j]);
      }
    for (size_t k = 1; k < 2 * L; ++k) t[k] = _mm512_add_epi64(t[k], t[k]);
    for (size_t i = 0; i < L; ++i) {
      t[2 * i] = _mm512_madd52lo_epu64(t[2 * i], v[i], v[i]);
      t[2 * i + 1] = _mm512_madd52hi_epu64(t[2 * i + 1], v[i], v[i]);
    }
    for (size_t i = 0; i < L; ++i) {
      const __m512i m = _mm512_madd52lo_epu64(_mm512_setzero_si512(), t[i], bc(K::kInv));
      for (size_t j = 0; j < L; ++j) t[i + j] = _mm512_madd52lo_epu64(t[i + j], m, bc(K::kP[j]));
      for (size_t j = 0; j < L; ++j) t[i + j + 1] = _mm512_madd52hi_epu64(t[i + j + 1], m, bc(K::kP[j]));
      t[i + 1] = _mm512_add_epi64(t[i + 1], shr(t[i], 52));
    }
    Field8 r;
    for (size_t k = 0; k < L; ++k) r.v[k] = t[L + k];
    carry_signed(r);
    return r;
  }

  // ----- predicates and selection -----
  // Lanes whose value is 0 mod p: 0 itself or its redundant form p.
  PP_IFMA_INLINE __mmask8 zero_mask() const {
    __m512i any = _mm512_setzero_si512(), diff = _mm512_setzero_si512();
    for (size_t k = 0; k < L; ++k) {
      any = _mm512_or_si512(any, v[k]);
      diff = _mm512_or_si512(diff, _mm512_xor_si512(v[k], bc(K::kP[k])));
    }
    return static_cast<__mmask8>(~(_mm512_test_epi64_mask(any, any) & _mm512_test_epi64_mask(diff, diff)));
  }
  // Lanes of `a` where the mask bit is set, of *this elsewhere.
  PP_IFMA_INLINE Field8 blend(__mmask8 m, const Field8& a) const {
    Field8 r;
    for (size_t k = 0; k < L; ++k) r.v[k] = _mm512_mask_blend_epi64(m, v[k], a.v[k]);
    return r;
  }
  // The fully reduced representative, [0, p).
  PP_IFMA_INLINE Field8 canonical() const { return sub_if_geq(*this, K::kP); }

  // ----- conversion from / to ff::Field (64-bit limbs, Montgomery R64) -----
  // load_raw / store_raw move the integer itself between 64-bit and 52-bit
  // limbs, Montgomery factor unchanged: lane e is base[e * stride], lanes at
  // and past `count` load as 0 and are not stored. store_raw writes the
  // fully reduced integer, transposed through a 64-byte-aligned scratch; the
  // radix change is shifts on whole registers.
  PP_IFMA_INLINE static Field8 load_raw(const F* base, size_t stride, size_t count = 8) {
    // Contiguous elements: a scalar transposition through an aligned buffer
    // (round trip to ff::Field: 89 vs 80 M/s for BN254 Fq with gathers).
    // Strided ones (an Fq2 array's coordinates) and partial groups: one
    // masked gather per 64-bit word. (The MSM's slots, strided, measured a
    // few per cent faster with gathers; the MSM now loads its points by
    // address, load_raw_at below, where the transposition won.)
    if (stride == 1 && count >= 8) return transposed([&](size_t e) { return base + e; }, 8);
    const long long step = static_cast<long long>(stride * sizeof(F));
    const __m512i off = _mm512_set_epi64(7 * step, 6 * step, 5 * step, 4 * step, 3 * step, 2 * step, step, 0);
    const __mmask8 live = count >= 8 ? __mmask8(0xff) : __mmask8((1u << count) - 1);
    const auto* b = reinterpret_cast<const char*>(base);
    __m512i W[N];
    for (size_t j = 0; j < N; ++j) W[j] = _mm512_mask_i64gather_epi64(_mm512_setzero_si512(), live, off, b + 8 * j, 1);
    return from_words(W);
  }
  // Lane e is the element at byte offset off[e] from base, e < count: eight
  // unrelated addresses (the MSM's buckets and points). A scalar
  // transposition, as for contiguous elements: against one gather per word,
  // G1 MSM at 2^16 on one core, alternating runs on a loaded machine, BN254
  // 1.70-1.79 vs 1.88-2.21 us per point, BLS12-381 3.22-3.70 vs 3.29-4.00.
  PP_IFMA_INLINE static Field8 load_raw_at(const void* base, const int64_t* off, size_t count) {
    const auto* b = static_cast<const char*>(base);
    return transposed([&](size_t e) { return reinterpret_cast<const F*>(b + off[e]); }, count);
  }
  PP_IFMA_INLINE void store_raw(F* base, size_t stride, size_t count = 8) const {
    alignas(64) uint64_t w[N][8];
    to_words(w);
    for (size_t e = 0; e < count && e < 8; ++e)
      for (size_t j = 0; j < N; ++j) base[e * stride].l[j] = w[j][e];
  }
  // The element of lane e to byte offset off[e] from base, e < count.
  PP_IFMA_INLINE void store_raw_at(void* base, const int64_t* off, size_t count) const {
    alignas(64) uint64_t w[N][8];
    to_words(w);
    for (size_t e = 0; e < count && e < 8; ++e) {
      F* out = reinterpret_cast<F*>(static_cast<char*>(base) + off[e]);
      for (size_t j = 0; j < N; ++j) out->l[j] = w[j][e];
    }
  }
  // Eight consecutive elements, x*R64 -> x*R52 (one product by K_in) and back.
  PP_IFMA_INLINE static Field8 from_fields(const F* x) { return load_raw(x, 1) * constant(K::kIn); }
  PP_IFMA_INLINE void to_fields(F* out) const { (*this * constant(K::kOut)).store_raw(out, 1); }

 private:
  // Lane e < count is *at(e), the rest 0: a scalar transposition through an
  // aligned buffer, then the radix change.
  template <class At>
  PP_IFMA_INLINE static Field8 transposed(At at, size_t count) {
    alignas(64) uint64_t w[N][8];
    for (size_t e = 0; e < 8; ++e) {
      if (e < count) {
        const F* in = at(e);
        for (size_t j = 0; j < N; ++j) w[j][e] = in->l[j];
      } else {
        for (size_t j = 0; j < N; ++j) w[j][e] = 0;
      }
    }
    __m512i W[N];
    for (size_t j = 0; j < N; ++j) W[j] = _mm512_load_si512(w[j]);
    return from_words(W);
  }
  // Radix 2^64 words -> radix 2^52 limbs, the integer unchanged.
  PP_IFMA_INLINE static Field8 from_words(const __m512i* W) {
    Field8 a;
    for (size_t k = 0; k < L; ++k) {
      const size_t bit = 52 * k, q = bit / 64, s = bit % 64;
      __m512i t = q < N ? shr(W[q], unsigned(s)) : _mm512_setzero_si512();
      if (s > 12 && q + 1 < N) t = _mm512_or_si512(t, shl(W[q + 1], unsigned(64 - s)));
      a.v[k] = _mm512_and_si512(t, bc(kMask52));
    }
    return a;
  }
  // The fully reduced integer as radix 2^64 words, w[j][e]: word j of lane e.
  PP_IFMA_INLINE void to_words(uint64_t (*w)[8]) const {
    const Field8 r = canonical();
    for (size_t j = 0; j < N; ++j) {
      __m512i W = _mm512_setzero_si512();
      for (size_t k = 0; k < L; ++k) {
        const long shift = long(52 * k) - long(64 * j);  // where limb k lands in word j
        if (shift >= 64 || shift <= -52) continue;
        W = _mm512_or_si512(W, shift >= 0 ? shl(r.v[k], unsigned(shift)) : shr(r.v[k], unsigned(-shift)));
      }
      _mm512_store_si512(w[j], W);
    }
  }
};

// Batched inversion of 8*m elements held as m Packs, in place: Montgomery's
// trick down the array in every lane (3 vector products per Pack), then once
// more across the eight lane totals in scalar code, where the single
// inversion is ff::Field::inverse(). Elements that are 0 mod p (0 or p) come
// back as 0, ff::Field's convention, and do not poison the others. `prefix`
// is caller-owned scratch of m Packs. Results are in [0, 2p).
template <class P>
PP_IFMA_TARGET void batch_inverse(Pack<P>* x, size_t m, Pack<P>* prefix) {
  using V = Field8<P>;
  using F = Field<P>;
  if (m == 0) return;
  const V one = V::one();
  V acc = one;
  for (size_t i = 0; i < m; ++i) {
    acc.store(prefix[i]);
    const V xi = V::load(x[i]);
    acc = acc * xi.blend(xi.zero_mask(), one);
  }
  F lane[8], lane_prefix[8];
  acc.to_fields(lane);
  F run = F::one();
  for (int e = 0; e < 8; ++e) {
    lane_prefix[e] = run;
    run = run * lane[e];
  }
  F inv = run.inverse();  // every lane total is a product of non-zero values
  for (int e = 8; e-- > 0;) {
    const F t = inv * lane_prefix[e];
    inv = inv * lane[e];
    lane[e] = t;
  }
  V inv8 = V::from_fields(lane);
  for (size_t i = m; i-- > 0;) {
    const V xi = V::load(x[i]);
    const __mmask8 z = xi.zero_mask();
    const V r = inv8 * V::load(prefix[i]);
    inv8 = inv8 * xi.blend(z, one);
    r.blend(z, V::zero()).store(x[i]);
  }
}

// Out-of-line entry points over Pack and Pack2 (the lane type is Pk::Lanes),
// for callers without the target attribute (tests, scalar code that hands
// over a batch).
template <class Pk>
PP_IFMA_TARGET void pack_add(Pk& r, const Pk& a, const Pk& b) {
  using V = typename Pk::Lanes;
  (V::load(a) + V::load(b)).store(r);
}
template <class Pk>
PP_IFMA_TARGET void pack_sub(Pk& r, const Pk& a, const Pk& b) {
  using V = typename Pk::Lanes;
  (V::load(a) - V::load(b)).store(r);
}
template <class Pk>
PP_IFMA_TARGET void pack_mul(Pk& r, const Pk& a, const Pk& b) {
  using V = typename Pk::Lanes;
  (V::load(a) * V::load(b)).store(r);
}
template <class Pk>
PP_IFMA_TARGET void pack_sqr(Pk& r, const Pk& a) {
  Pk::Lanes::load(a).sqr().store(r);
}
template <class Pk, class S>
PP_IFMA_TARGET void pack_from_fields(Pk& r, const S* x) {
  Pk::Lanes::from_fields(x).store(r);
}
template <class Pk, class S>
PP_IFMA_TARGET void pack_to_fields(const Pk& a, S* out) {
  Pk::Lanes::load(a).to_fields(out);
}

}  // namespace proofpipe::ff::ifma

#endif  // PP_IFMA_COMPILED
