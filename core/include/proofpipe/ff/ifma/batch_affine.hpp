// One batch of affine point additions (the MSM's batch-affine buckets,
// msm/buckets.hpp, and the pair additions of msm/reduce.hpp) on eight IFMA
// lanes: entry k adds *src[k] (or its negation) into *dst[k] in place. The
// lanes gather both points straight from their addresses and form
// den = x2 - x1, num = y2 - y1 and s = x1 + x2 themselves; then prefix
// products, one shared inversion, and lambda, x3, y3 per entry, scattered
// back to dst. Lanes where x1 = x2 (rare) are settled in scalar code: the
// tangent (den = 2y, num = 3x^2) or P + (-P) (dst becomes the identity).
// Coordinates are ff::Field values (Montgomery R64 = 2^(64N)), or for G2
// ff::Fq2T ones (the same form per coordinate).
//
// No conversion products. Inputs enter as raw integers (x*R64 repacked to
// radix 2^52) and results leave the same way, because the Montgomery factors
// are folded into the products the addition needs anyway. Writing f for the
// power of two an integer carries (it holds value * 2^f mod p), a radix-2^52
// product of f1 and f2 gives f1 + f2 - R with R = 52L; inputs carry
// I = 64N; D = R - I is 4 for the 4-limb fields, 32 for BLS12-381's Fq.
//   inputs (x1, y1, x2, y2; den, num, s)   I
//   prefix before group g (acc starts 1)   R - D*g
//   running inverse at group g             R + D/2 + D*g
//   1/den = running * prefix               R + D/2
//   lambda = num * 1/den                   I + D/2
//   lambda^2                               I        -> x3 = lambda^2 - s
//   t = (x1 - x3) * 2^(D/2)                I + D/2
//   lambda * t                             I        -> y3 = lambda*t - y1
// The running inverse of the last group G - 1 must carry R + D*G - D/2,
// against the lane total A = prod(den) * 2^(R - D*G): as an integer that is
// 2^(2R - D/2) / A whatever G is. ff::Field's inverse of the element with
// Montgomery limbs A has limbs 2^(2I) / A; one scalar product by the
// element with limbs 2^(I + 3D/2) moves it there. The 2^(D/2) of t is two
// modular doublings for D = 4 and one product by a constant for D = 32.
#pragma once

#include <cstddef>

#include "proofpipe/ff/ifma/field8.hpp"
#include "proofpipe/ff/ifma/fq2x8.hpp"
#if defined(PP_IFMA_COMPILED)

namespace proofpipe::ff::ifma {

namespace detail {

// Lanes of `same` (x1 = x2) of group k0: the tangent's den = 2y1 and
// num = 3x1^2, or for P + (-P) den = 1 and the entry marked cancelled.
// Scalar: equal x-coordinates are rare outside deliberately skewed inputs.
template <class V, class F>
[[gnu::cold]] PP_IFMA_TARGET void settle_equal_x(F* const* dst, const F* const* src, const uint8_t* neg, size_t k0,
                                                 __mmask8 same, V& d, V& n, uint8_t* cancelled) {
  F den[8], num[8];
  for (int e = 0; e < 8; ++e) {
    den[e] = F::one();
    num[e] = F::zero();
    if (!((same >> e) & 1)) continue;
    const F* a = dst[k0 + e];
    const F y2 = neg[k0 + e] ? -src[k0 + e][1] : src[k0 + e][1];
    if (y2 == a[1] && !a[1].is_zero()) {
      const F x2 = a[0].sqr();
      num[e] = x2.dbl() + x2;
      den[e] = a[1].dbl();
    } else {
      cancelled[k0 + e] = 1;
    }
  }
  d = d.blend(same, V::load_raw(den, 1, 8));
  n = n.blend(same, V::load_raw(num, 1, 8));
}

}  // namespace detail

// *dst[k] += neg[k] ? -*src[k] : *src[k] for k < m. A point is two
// consecutive F (x, y, as ec::Affine lays them out), neither the identity;
// the dst are distinct and none is a src. An entry that cancels (P + (-P))
// leaves dst = (0, 0), the identity, and cancelled[k] = 1; every other
// cancelled[k] is set to 0. scratch: 6 * ceil(m / 8) lane Packs.
// F is ff::Field (G1, on Field8 lanes) or ff::Fq2T (G2, on Fq2x8 lanes); one
// loop serves both because the lane types answer the same calls and an
// Fq2x8 product keeps the factor law above (fq2x8.hpp), so every factor,
// kLaneFix and kTFix included, is a power of two in the base field Fq: the
// Fq2 constants are base-field ones (1 = (1, 0)), applied per coordinate.
template <class F>
PP_IFMA_TARGET void batch_affine_add(F* const* dst, const F* const* src, const uint8_t* neg, size_t m,
                                     typename LanePack<F>::type* scratch, uint8_t* cancelled) {
  using V = typename LanePack<F>::type::Lanes;
  using Fq = typename V::Base::F;
  using K = typename V::Base::K;
  using P = typename Fq::Params;
  constexpr size_t kD = 52 * K::L - 64 * K::N;
  static_assert(kD % 2 == 0 && kD > 0, "the factor bookkeeping needs an even, positive R52/R64 exponent gap");
  constexpr Fq kLaneFix = Fq::from_mont(pow2_mod<K::N>(unsigned(64 * K::N + 3 * kD / 2), MontConsts<P>::kP));
  constexpr std::array<uint64_t, K::L> kTFix =
      to_radix52<K::L>(pow2_mod<K::N>(unsigned(52 * K::L + kD / 2), MontConsts<P>::kP));
  if (m == 0) return;
  const size_t groups = (m + 7) / 8;
  auto* prefix = scratch;
  auto* den = prefix + groups;
  auto* num = den + groups;
  auto* sum = num + groups;
  auto* x1s = sum + groups;
  auto* y1s = x1s + groups;
  // Byte offsets of group g's points from its first dst and first src.
  alignas(64) int64_t od[8], os[8];
  const auto offsets = [&](size_t k0, size_t cnt, const F* const* ptr, int64_t* off) {
    const auto* b = reinterpret_cast<const char*>(ptr[k0]);
    for (size_t e = 0; e < 8; ++e) off[e] = e < cnt ? reinterpret_cast<const char*>(ptr[k0 + e]) - b : 0;
    return b;
  };
  // Lane e of group g is entry 8g + e. Padding lanes of the last group take
  // den = 1 (the limbs of R64 mod p), so every lane runs `groups` steps.
  const V pad = V::constant(to_radix52<K::L>(MontConsts<P>::kR));
  V acc = V::one();
  for (size_t g = 0; g < groups; ++g) {
    const size_t k0 = 8 * g, cnt = m - k0 < 8 ? m - k0 : 8;
    const __mmask8 live = cnt >= 8 ? __mmask8(0xff) : __mmask8((1u << cnt) - 1);
    const char* bd = offsets(k0, cnt, dst, od);
    const char* bs = offsets(k0, cnt, src, os);
    __mmask8 negated = 0;
    for (size_t e = 0; e < cnt; ++e) {
      negated = __mmask8(negated | ((neg[k0 + e] != 0) << e));
      cancelled[k0 + e] = 0;
    }
    const V x1 = V::load_raw_at(bd, od, cnt), y1 = V::load_raw_at(bd + sizeof(F), od, cnt);
    const V x2 = V::load_raw_at(bs, os, cnt);
    V y2 = V::load_raw_at(bs + sizeof(F), os, cnt);
    y2 = y2.blend(negated, V::zero() - y2);
    V d = x2 - x1, n = y2 - y1;
    if (const __mmask8 same = __mmask8(d.zero_mask() & live); same != 0) {
      detail::settle_equal_x<V>(dst, src, neg, k0, same, d, n, cancelled);
    }
    if (cnt < 8) d = d.blend(static_cast<__mmask8>(~live), pad);
    d.store(den[g]);
    n.store(num[g]);
    (x1 + x2).store(sum[g]);
    x1.store(x1s[g]);
    y1.store(y1s[g]);
    acc.store(prefix[g]);
    acc = acc * d;
  }
  // The eight lane totals: one scalar Montgomery trick, one inversion (for
  // Fq2, ff::Fq2T's: one Fq inversion; its value semantics are the same, so
  // the 2^(2I) / A law below holds for it too).
  F lane[8], lane_prefix[8];
  acc.store_raw(lane, 1);
  F run = F::one();
  for (int e = 0; e < 8; ++e) {
    lane_prefix[e] = run;
    run = run * lane[e];
  }
  F inv = run.inverse();
  for (int e = 8; e-- > 0;) {
    const F t = inv * lane_prefix[e];
    inv = inv * lane[e];
    lane[e] = V::scale(t, kLaneFix);
  }
  V run8 = V::load_raw(lane, 1);
  for (size_t g = groups; g-- > 0;) {
    const size_t k0 = 8 * g, cnt = m - k0 < 8 ? m - k0 : 8;
    const V inv_k = run8 * V::load(prefix[g]);
    run8 = run8 * V::load(den[g]);
    const V lambda = V::load(num[g]) * inv_k;
    V x3 = lambda.sqr() - V::load(sum[g]);
    V t = V::load(x1s[g]) - x3;
    if constexpr (kD <= 4) {
      for (size_t i = 0; i < kD / 2; ++i) t = t + t;
    } else {
      t = t * V::Base::constant(kTFix);
    }
    V y3 = lambda * t - V::load(y1s[g]);
    __mmask8 gone = 0;
    for (size_t e = 0; e < cnt; ++e) gone = __mmask8(gone | (cancelled[k0 + e] << e));
    if (gone != 0) {
      x3 = x3.blend(gone, V::zero());
      y3 = y3.blend(gone, V::zero());
    }
    char* bd = const_cast<char*>(offsets(k0, cnt, dst, od));
    x3.store_raw_at(bd, od, cnt);
    y3.store_raw_at(bd + sizeof(F), od, cnt);
  }
}

}  // namespace proofpipe::ff::ifma

#endif  // PP_IFMA_COMPILED
