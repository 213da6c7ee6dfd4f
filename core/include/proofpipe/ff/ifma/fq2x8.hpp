// Fq2x8<P>: eight independent elements of Fq2 = Fq[u]/(u^2 + 1) over the
// prime field P on AVX-512 IFMA lanes, as two Field8<P> (field8.hpp): c0 and
// c1 of lane e are lane e of each. The G2 counterpart of Field8 for the lane
// kernels that are generic over the lane type (batch_affine.hpp), with the
// same operations and the same contract: inputs and results in [0, 2p) per
// coordinate, every limb below 2^52, and a caller that checked simd_path().
//
// Both curves' Fq2 (ff::Fq2T, ec/bn254.hpp and ec/bls12_381.hpp) take
// u^2 = -1; the towers differ only in the Fq6 non-residue, which no G2
// addition uses. So one type per base field serves either tower.
//
// Montgomery factors: both coordinates of an element carry the same power of
// two f (batch_affine.hpp's notation). Every coordinate of a result below is
// one radix-2^52 reduction of a sum of coordinate products (2p - x stands
// for -x, the same factor), or sums and differences of such results; each
// carries f1 + f2 - R52, and sums of terms with equal factors keep it. So an
// Fq2x8 product carries f1 + f2 - R52 as one Field8 product does, and the
// factor bookkeeping of the kernels holds unchanged.
#pragma once

#include "proofpipe/ff/ifma/field8.hpp"
#if defined(PP_IFMA_COMPILED)

#include <type_traits>

#include "proofpipe/ff/fq2.hpp"

namespace proofpipe::ff::ifma {

template <class P>
struct Fq2x8 {
  using Base = Field8<P>;
  using Fq = Field<P>;
  using K = Radix52<P>;
  using Packed = Pack2<P>;
  static constexpr size_t L = K::L;

  Base c0, c1;

  // A base-field constant, embedded (c1 = 0): the kernels' 1 and padding.
  PP_IFMA_INLINE static Fq2x8 constant(const std::array<uint64_t, L>& c) { return {Base::constant(c), Base::zero()}; }
  PP_IFMA_INLINE static Fq2x8 one() { return constant(K::kOne); }
  PP_IFMA_INLINE static Fq2x8 zero() { return {Base::zero(), Base::zero()}; }

  PP_IFMA_INLINE static Fq2x8 load(const Packed& p) { return {Base::load(p.c0), Base::load(p.c1)}; }
  PP_IFMA_INLINE void store(Packed& p) const {
    c0.store(p.c0);
    c1.store(p.c1);
  }

  PP_IFMA_INLINE Fq2x8 operator+(const Fq2x8& b) const { return {c0 + b.c0, c1 + b.c1}; }
  PP_IFMA_INLINE Fq2x8 operator-(const Fq2x8& b) const { return {c0 - b.c0, c1 - b.c1}; }
  // (a0 + a1 u)(b0 + b1 u) = (a0 b0 - a1 b1) + (a0 b1 + a1 b0) u, each
  // coordinate one reduction of a sum of two products (Field8::
  // sum_of_products), the minus as a1 (2p - b1). Same IFMA count as
  // Karatsuba's 3 products (12L^2 + 2L against 12L^2 + 3L) without its five
  // modular additions: G2 MSM at 2^16 on IFMA, one core, A/B in turns on a
  // shared machine, BN254 3.65-3.86 vs 4.29-4.42 us per point, BLS12-381
  // 7.95-8.11 vs 8.69-8.99.
  PP_IFMA_INLINE Fq2x8 operator*(const Fq2x8& b) const {
    const Base nb1 = b.c1.neg_lazy();
    return {Base::template sum_of_products<2>({&c0, &c1}, {&b.c0, &nb1}),
            Base::template sum_of_products<2>({&c0, &c1}, {&b.c1, &b.c0})};
  }
  // By a base-field lane value (the kernels' constants): 2 products.
  PP_IFMA_INLINE Fq2x8 operator*(const Base& b) const { return {c0 * b, c1 * b}; }
  // (a + bu)^2 = (a + b)(a - b) + 2ab u: 2 products.
  PP_IFMA_INLINE Fq2x8 sqr() const {
    const Base t = c0 * c1;
    return {(c0 + c1) * (c0 - c1), t + t};
  }
  PP_IFMA_INLINE Fq2x8 blend(__mmask8 m, const Fq2x8& a) const { return {c0.blend(m, a.c0), c1.blend(m, a.c1)}; }
  // Lanes whose element is 0: both coordinates 0 mod p.
  PP_IFMA_INLINE __mmask8 zero_mask() const { return c0.zero_mask() & c1.zero_mask(); }

  // Conversions from / to arrays of an ff::Fq2T over Field<P> (any tower):
  // lane e is base[e * stride], stride counted in Fq2 elements, integers
  // moved as they are (load_raw / store_raw of field8.hpp per coordinate).
  template <class S>
  PP_IFMA_INLINE static Fq2x8 load_raw(const S* base, size_t stride, size_t count = 8) {
    check_layout<S>();
    return {Base::load_raw(&base->c0, 2 * stride, count), Base::load_raw(&base->c1, 2 * stride, count)};
  }
  template <class S>
  PP_IFMA_INLINE void store_raw(S* base, size_t stride, size_t count = 8) const {
    check_layout<S>();
    c0.store_raw(&base->c0, 2 * stride, count);
    c1.store_raw(&base->c1, 2 * stride, count);
  }
  // Lane e is the Fq2 element at byte offset off[e] from base (Field8's
  // load_raw_at per coordinate; c1 follows c0).
  PP_IFMA_INLINE static Fq2x8 load_raw_at(const void* base, const int64_t* off, size_t count) {
    const auto* b = static_cast<const char*>(base);
    return {Base::load_raw_at(b, off, count), Base::load_raw_at(b + sizeof(Fq), off, count)};
  }
  PP_IFMA_INLINE void store_raw_at(void* base, const int64_t* off, size_t count) const {
    auto* b = static_cast<char*>(base);
    c0.store_raw_at(b, off, count);
    c1.store_raw_at(b + sizeof(Fq), off, count);
  }
  // Eight consecutive elements, x*R64 -> x*R52 and back, as Field8's.
  template <class S>
  PP_IFMA_INLINE static Fq2x8 from_fields(const S* x) {
    return load_raw(x, 1) * Base::constant(K::kIn);
  }
  template <class S>
  PP_IFMA_INLINE void to_fields(S* out) const {
    (*this * Base::constant(K::kOut)).store_raw(out, 1);
  }
  // A scalar Fq2 times a base-field element (ff::Fq2T::mul_fq, R64).
  template <class S>
  static S scale(const S& a, const Fq& f) {
    return a.mul_fq(f);
  }

 private:
  // The strided views above walk c0 and c1 as Fq arrays of stride 2*stride.
  template <class S>
  static constexpr void check_layout() {
    static_assert(std::is_same_v<typename S::Fq, Fq> && sizeof(S) == 2 * sizeof(Fq), "an Fq2T over Field<P>");
  }
};

}  // namespace proofpipe::ff::ifma

#endif  // PP_IFMA_COMPILED
